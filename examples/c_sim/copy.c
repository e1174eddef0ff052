/* c-sim: Ascend C Copy, UB -> UB with a mask (spec specs/copy.yaml; vendor page asc-devkit@0da921b9:docs/zh/api/
 * SIMD-API/基础API/Memory矢量计算/数据搬运/UB与UB数据搬运/UBToUB掩码式高维数据搬运(Copy).md; the mask by mask.c).
 *
 *   form `mask_bits`:       Copy(dst, src, mask[], repeatTime, CopyRepeatParams{dstStride, srcStride,
 *   form `mask_continuous`: Copy(dst, src, mask,   repeatTime,                  dstRepeatSize, srcRepeatSize})
 *
 * An iteration is 8 DataBlocks (32 B each); element e of iteration r, as the mask selects it, lies in block
 * j = e * width / 32 at byte (e * width) % 32, that block r * RepeatSize + j * Stride DataBlocks from the
 * operand (each side its own fields). Every element is read before any is written.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

enum { DATA_BLOCK = 32, ITERATION = 256 };

static const char *const PRODUCTS[] = {"ascend910_93", "ascend910b", "ascend310b"};
static const char *const DTYPES[] = {"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"};
#define N(a) (sizeof a / sizeof a[0])

typedef struct {
    int64_t repeat, stride[2], size[2];   /* [0]: dst, [1]: src, in DataBlocks */
    mask_value mask;
} cp_shape;

/* Byte of element e of iteration r in operand `side` (0: dst, 1: src), relative to the operand. */
static int64_t cp_place(const cp_shape *c, int side, int64_t r, int64_t e, int64_t width)
{
    int64_t byte = e * width;
    return (r * c->size[side] + byte / DATA_BLOCK * c->stride[side]) * DATA_BLOCK + byte % DATA_BLOCK;
}

static int cp_checks(outcome *o, const product_info *p, const tensor *dst, const tensor *src, cp_shape *c)
{
    if (!name_in(PRODUCTS, N(PRODUCTS), p->id)) {
        set_rejected(o, "copy.product.supported", "Copy is not supported on %s", p->id);
        return 0;
    }
    if (dst->scope != SCOPE_UB || src->scope != SCOPE_UB) {
        int bad_dst = dst->scope != SCOPE_UB;
        set_rejected(o, bad_dst ? "copy.dst.scope" : "copy.src.scope", "%s is not in UB", bad_dst ? "dst" : "src");
        return 0;
    }
    if (rule_dtypes(o, "copy.dtype.supported", dst, name_in(DTYPES, N(DTYPES), dst->dtype->name), src,
                    name_in(DTYPES, N(DTYPES), src->dtype->name), p) ||
        rule_same_dtype(o, "copy.dtype.same", dst, src) ||
        rule_align(o, "copy.dst.align", "dst", dst, SCOPE_UB, 32) ||
        rule_align(o, "copy.src.align", "src", src, SCOPE_UB, 32) ||
        rule_range(o, "copy.repeatTime.range", "repeatTime", c->repeat, 0, 255) ||
        rule_range(o, "copy.dstStride.range", "repeatParams.dstStride", c->stride[0], 0, 65535) ||
        rule_range(o, "copy.srcStride.range", "repeatParams.srcStride", c->stride[1], 0, 65535) ||
        rule_range(o, "copy.dstRepeatSize.range", "repeatParams.dstRepeatSize", c->size[0], 0, 4095) ||
        rule_range(o, "copy.srcRepeatSize.range", "repeatParams.srcRepeatSize", c->size[1], 0, 4095))
        return 0;
    int width = dst->dtype->bytes;
    if (!c->mask.bits) {
        if (!c->mask.fits)
            set_rejected(o, "copy.mask.count_range", "mask is not a uint64_t");
        return c->mask.fits;
    }
    if (!c->mask.fits || c->mask.nwords != 2 || (width >= 4 && c->mask.words[1] != 0)) {
        set_rejected(o, width <= 2 ? "copy.mask.bits_16bit" : "copy.mask.bits_32bit",
                     "mask[] is not two 64-bit words valid for %d-bit elements", 8 * width);
        return 0;
    }
    return 1;
}

void api_copy(outcome *o, const product_info *p, const char *form, const jvalue *args, resolve_images resolve,
              void *ctx)
{
    tensor dst, src;
    cp_shape c = {0};
    const char *w = "call.args.repeatParams";
    int bits = strcmp(form, "mask_bits") == 0;
    if (!bits && strcmp(form, "mask_continuous") != 0) {
        set_error(o, "call.form: copy has the forms mask_bits and mask_continuous, not '%s'", form);
        return;
    }
    if (!arg_tensor(o, args, "dst", &dst) || !arg_tensor(o, args, "src", &src) ||
        !arg_int(o, args, "call.args", "repeatTime", &c.repeat) || !mask_read(o, args, bits, &c.mask))
        return;
    const jvalue *rp = arg_object(o, args, "repeatParams", "CopyRepeatParams");
    if (rp == NULL || !arg_int(o, rp, w, "dstStride", &c.stride[0]) || !arg_int(o, rp, w, "srcStride", &c.stride[1]) ||
        !arg_int(o, rp, w, "dstRepeatSize", &c.size[0]) || !arg_int(o, rp, w, "srcRepeatSize", &c.size[1]))
        return;
    if (!cp_checks(o, p, &dst, &src, &c))
        return;

    int64_t width = dst.dtype->bytes, per = ITERATION / width, picked = 0, end[2] = {0, 0};
    for (int64_t e = 0; e < per; e++)
        if (mask_selects(&c.mask, e)) {
            picked++;
            for (int side = 0; side < 2; side++) {
                int64_t last = cp_place(&c, side, c.repeat - 1, e, width) + width;   /* steps are not negative */
                end[side] = last > end[side] ? last : end[side];
            }
        }
    int64_t moved = c.repeat * picked;
    if (moved == 0)
        end[0] = end[1] = 0;
    if (rule_bounds(o, "copy.dst.bounds", "dst", &dst, 0, end[0]) ||
        rule_bounds(o, "copy.src.bounds", "src", &src, 0, end[1]) ||
        rule_capacity(o, "copy.dst.capacity", "dst", &dst, p) || rule_capacity(o, "copy.src.capacity", "src", &src, p))
        return;

    o->kind = OUT_OK;
    if (moved == 0)
        return;                                 /* copy.repeatTime.nop, or a mask of no element */
    const uint8_t *s;
    uint8_t *d;
    if (!move_images(o, resolve, ctx, &src, end[1], &dst, end[0], &s, &d))
        return;
    uint8_t *values = malloc((size_t)(moved * width));
    if (values == NULL) {
        set_error(o, "out of memory for %lld elements", (long long)moved);
        return;
    }
    int64_t k = 0;
    for (int64_t r = 0; r < c.repeat; r++)          /* every read first */
        for (int64_t e = 0; e < per; e++)
            if (mask_selects(&c.mask, e))
                memcpy(values + (k++) * width, s + cp_place(&c, 1, r, e, width), (size_t)width);
    k = 0;
    for (int64_t r = 0; r < c.repeat; r++)
        for (int64_t e = 0; e < per; e++)
            if (mask_selects(&c.mask, e))
                memcpy(d + cp_place(&c, 0, r, e, width), values + (k++) * width, (size_t)width);
    free(values);
}
