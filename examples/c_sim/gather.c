/* c-sim: Ascend C Gather (spec specs/gather.yaml; vendor page asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/
 * Memory矢量计算/离散与聚合/Gather.md; the mask by mask.c).
 *
 *   form `count`:           Gather(dst, src, srcOffset, srcBaseAddr, count)
 *   form `mask_bits`:       Gather(dst, src, srcOffset, srcBaseAddr, mask[], repeatTime, dstRepStride)
 *   form `mask_continuous`: Gather(dst, src, srcOffset, srcBaseAddr, mask, repeatTime, dstRepStride)
 *
 * dst[i] = the src element srcBaseAddr + srcOffset[i] bytes from src (offsets: little-endian uint32 bytes).
 * The mask forms: iteration r covers 8 DataBlocks of dst (4 of 8-bit data, ascend310b), dst moving by
 * dstRepStride DataBlocks; element e the mask selects reads entry r * (elements of an iteration) + e.
 * Every offset is read, and every src element, before any dst byte is written; iterations write in order.
 * An element read from past UB (undefined territory) reads as zeros.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

enum { DATA_BLOCK = 32, OFFSET_BYTES = 4 };

typedef struct {
    const char *product;
    const char *dtype_rule;
    const char *const *dtypes;
    size_t ndtypes;
} ga_product;

static const char *const A2_A3[] = {"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"};
static const char *const B310[] = {"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"};
static const char *const P310[] = {"int16", "uint16", "float16", "int32", "uint32", "float32"};
#define N(a) (sizeof a / sizeof a[0])
static const ga_product PRODUCTS[] = {          /* gather.product.supported and the dtype rule of each */
    {"ascend910_93", "gather.dtype.supported_a2_a3", A2_A3, N(A2_A3)},
    {"ascend910b", "gather.dtype.supported_a2_a3", A2_A3, N(A2_A3)},
    {"ascend310b", "gather.dtype.supported_310b", B310, N(B310)},
    {"ascend310p-aicore", "gather.dtype.supported_310p", P310, N(P310)},
};

typedef struct {
    int counted;
    int64_t count, repeat, stride, per;
    mask_value mask;
} ga_shape;

static int ga_checks(outcome *o, const product_info *p, const tensor *dst, const tensor *src, const tensor *offs,
                     int64_t base, ga_shape *g)
{
    const ga_product *gp = NULL;
    for (size_t i = 0; i < N(PRODUCTS); i++)
        if (strcmp(PRODUCTS[i].product, p->id) == 0)
            gp = &PRODUCTS[i];
    if (gp == NULL) {
        set_rejected(o, "gather.product.supported", "Gather is not supported on %s", p->id);
        return 0;
    }
    const tensor *ops[3] = {dst, src, offs};
    static const char *const names[3] = {"dst", "src", "srcOffset"};
    static const char *const scope_rules[3] = {"gather.dst.scope", "gather.src.scope", "gather.srcOffset.scope"};
    for (int i = 0; i < 3; i++)
        if (ops[i]->scope != SCOPE_UB) {
            set_rejected(o, scope_rules[i], "%s is in %s, not UB", names[i], SCOPE_NAMES[ops[i]->scope]);
            return 0;
        }
    if (rule_dtypes(o, gp->dtype_rule, dst, name_in(gp->dtypes, gp->ndtypes, dst->dtype->name), src,
                    name_in(gp->dtypes, gp->ndtypes, src->dtype->name), p))
        return 0;
    if (strcmp(offs->dtype->name, "uint32") != 0) {
        set_rejected(o, "gather.srcOffset.dtype", "srcOffset is a LocalTensor<uint32_t>, not %s", offs->dtype->name);
        return 0;
    }
    if (rule_same_dtype(o, "gather.dtype.same", dst, src) ||
        rule_align(o, "gather.dst.align", "dst", dst, SCOPE_UB, 32) ||
        rule_align(o, "gather.src.align", "src", src, SCOPE_UB, 32) ||
        rule_align(o, "gather.srcOffset.align", "srcOffset", offs, SCOPE_UB, 32) ||
        rule_range(o, "gather.srcBaseAddr.range", "srcBaseAddr", base, 0, 4294967295LL))
        return 0;
    if (g->counted)
        return !rule_range(o, "gather.count.range", "count", g->count, 0, 4294967295LL);
    if (rule_range(o, "gather.repeatTime.range", "repeatTime", g->repeat, 0, 255) ||
        rule_range(o, "gather.dstRepStride.range", "dstRepStride", g->stride, 0, 65535))
        return 0;
    int width = dst->dtype->bytes;
    if (!g->mask.bits) {
        if (!g->mask.fits)
            set_rejected(o, "gather.mask.count_range", "mask is not a uint64_t");
        return g->mask.fits;
    }
    const char *rule = width <= 2 ? "gather.mask.bits_16bit" : width == 4 ? "gather.mask.bits_32bit" : "gather.mask.bits_64bit";
    if (!g->mask.fits || g->mask.nwords != 2 || (width >= 4 && g->mask.words[1] != 0) ||
        (width == 8 && g->mask.words[0] > 4294967295ULL)) {
        set_rejected(o, rule, "mask[] is not two 64-bit words valid for %d-bit elements", 8 * width);
        return 0;
    }
    return 1;
}

void api_gather(outcome *o, const product_info *p, const char *form, const jvalue *args, resolve_images resolve,
                void *ctx)
{
    tensor dst, src, offs;
    int64_t base = 0;
    ga_shape g = {0};
    g.counted = strcmp(form, "count") == 0;
    int bits = strcmp(form, "mask_bits") == 0;
    if (!g.counted && !bits && strcmp(form, "mask_continuous") != 0) {
        set_error(o, "call.form: gather has the forms count, mask_bits and mask_continuous, not '%s'", form);
        return;
    }
    if (!arg_tensor(o, args, "dst", &dst) || !arg_tensor(o, args, "src", &src) ||
        !arg_tensor(o, args, "srcOffset", &offs) || !arg_int(o, args, "call.args", "srcBaseAddr", &base))
        return;
    if (g.counted ? !arg_int(o, args, "call.args", "count", &g.count)
                  : (!arg_int(o, args, "call.args", "repeatTime", &g.repeat) ||
                     !arg_int(o, args, "call.args", "dstRepStride", &g.stride) || !mask_read(o, args, bits, &g.mask)))
        return;
    if (!ga_checks(o, p, &dst, &src, &offs, base, &g))
        return;

    int64_t width = dst.dtype->bytes, moved = g.count, dst_end = 0, offs_end = 0;
    if (!g.counted) {
        g.per = (width == 1 ? 4 : 8) * DATA_BLOCK / width;        /* gather.repeat.8bit */
        int64_t last = mask_last(&g.mask, g.per), picked = 0;
        for (int64_t e = 0; e < g.per; e++)
            picked += mask_selects(&g.mask, e);
        moved = g.repeat * picked;
        if (moved > 0) {
            dst_end = (g.repeat - 1) * g.stride * DATA_BLOCK + last * width + width;
            offs_end = ((g.repeat - 1) * g.per + last + 1) * OFFSET_BYTES;
        }
    } else {
        dst_end = moved * width;
        offs_end = moved * OFFSET_BYTES;
    }
    if (rule_bounds(o, "gather.dst.bounds", "dst", &dst, 0, dst_end) ||
        rule_bounds(o, "gather.srcOffset.bounds", "srcOffset", &offs, 0, offs_end) ||
        rule_capacity(o, "gather.dst.capacity", "dst", &dst, p) ||
        rule_capacity(o, "gather.src.capacity", "src", &src, p) ||
        rule_capacity(o, "gather.srcOffset.capacity", "srcOffset", &offs, p))
        return;

    o->kind = OUT_OK;
    if (moved == 0)
        return;                                 /* gather.zero.nop, or a mask of no element */
    images m;
    if (!resolve(ctx, o, &m) || !image_span(o, &m, "dst", &dst, 0, dst_end) ||
        !image_span(o, &m, "srcOffset", &offs, 0, offs_end))
        return;
    uint8_t *ub = m.base[SCOPE_UB], *values = malloc((size_t)(moved * width));
    int64_t *at = malloc((size_t)moved * sizeof *at);
    if (values == NULL || at == NULL) {
        free(values);
        free(at);
        set_error(o, "out of memory for %lld elements", (long long)moved);
        return;
    }
    int64_t k = 0, entry = 0;
    for (int64_t r = 0; g.counted ? k < moved : r < g.repeat; r++)       /* every read first */
        for (int64_t e = 0; e < (g.counted ? moved : g.per); e++) {
            if (!g.counted && !mask_selects(&g.mask, e))
                continue;
            entry = g.counted ? e : r * g.per + e;
            at[k] = g.counted ? e * width : r * g.stride * DATA_BLOCK + e * width;
            const uint8_t *q = ub + offs.addr + entry * OFFSET_BYTES;
            int64_t from = src.addr + base + (int64_t)((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
                                                        (uint32_t)q[3] << 24);
            if (from >= 0 && from + width <= m.size[SCOPE_UB])
                memcpy(values + k * width, ub + from, (size_t)width);
            else
                memset(values + k * width, 0, (size_t)width);
            k++;
        }
    for (k = 0; k < moved; k++)
        memcpy(ub + dst.addr + at[k], values + k * width, (size_t)width);
    free(values);
    free(at);
}
