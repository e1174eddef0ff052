/* c-sim: Ascend C DataCopyPad, the prototype without `mode` (spec specs/data_copy_pad.yaml; vendor pages
 * asc-devkit@0da921b9, under docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/GM与UB数据搬运/:
 * GMToUB非对齐数据搬运(DataCopyPad).md and UBToGM非对齐数据搬运(DataCopyPad).md).
 *
 *   form `gm_to_ub`: DataCopyPad(LocalTensor dst, GlobalTensor src, dataCopyParams, padParams)
 *   form `ub_to_gm`: DataCopyPad(GlobalTensor dst, LocalTensor src, dataCopyParams)
 *
 * blockCount blocks of blockLen bytes. Strides run "前一个数据块结束地址与后一个数据块起始地址的差值", in
 * bytes where the operand is in GM and in DataBlocks (32 B) where it is in UB. In UB a block takes whole
 * DataBlocks:
 *
 * GM -> UB: block k is read at k * (blockLen + srcStride) bytes after src. In UB it becomes leftPadding
 *   elements, the blockLen bytes, rightPadding elements and dummy bytes up to a multiple of 32: P bytes,
 *   block k at k * (P + dstStride * 32) bytes after dst (the end dstStride counts from is the block's
 *   32-byte end, the spec's reading of data_copy_pad.gm_to_ub.block_align).
 * UB -> GM: block k is read at k * (round_up(blockLen, 32) + srcStride * 32) bytes after src and its
 *   blockLen bytes written k * (blockLen + dstStride) bytes after dst: the dummy is dropped.
 *
 * A blockCount or blockLen of 0 moves nothing, padding included (the NOP sentence of A2 / A3; on Atlas
 * 200I/500 A2 that region is an ambiguity the kit enters only with a declared reading).
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

enum { DATA_BLOCK = 32, PAD_BYTES_MAX = 32 };

/* data_copy_pad.product.supported ("不支持数据搬运模式mode的原型": A3, A2 and 200I/500 A2) with each
 * product's dtype rule. */
typedef struct {
    const char *product;
    const char *dtype_rule;
    int wide;                   /* 1: the 64-bit dtypes (int64_t, uint64_t, double) are in the list */
} pad_product;

static const pad_product PRODUCT_TABLE[] = {
    {"ascend910_93", "data_copy_pad.dtype.supported", 1},      /* Atlas A3 */
    {"ascend910b",   "data_copy_pad.dtype.supported", 1},      /* Atlas A2 */
    {"ascend310b",   "data_copy_pad.dtype.supported_310b", 0}, /* Atlas 200I/500 A2: no 64-bit types */
};

/* 数据类型: "int8_t、uint8_t、int16_t、uint16_t、half、bfloat16_t、int32_t、uint32_t、float" everywhere, then
 * "int64_t、uint64_t、double" on A2 / A3. */
static const char *const DTYPES[] = {"int8", "uint8", "int16", "uint16", "float16", "bfloat16",
                                     "int32", "uint32", "float32", "int64", "uint64", "float64"};
enum { NARROW_DTYPES = 9 };

static const pad_product *find_product(const product_info *p)
{
    for (size_t i = 0; i < sizeof PRODUCT_TABLE / sizeof PRODUCT_TABLE[0]; i++)
        if (strcmp(PRODUCT_TABLE[i].product, p->id) == 0)
            return &PRODUCT_TABLE[i];
    return NULL;
}

static int dtype_allowed(const pad_product *pp, const dtype_info *d)
{
    return name_in(DTYPES, pp->wide ? sizeof DTYPES / sizeof DTYPES[0] : NARROW_DTYPES, d->name);
}

/* The rule id of a per-width rule family: "<prefix>.b8" / ".b16" / ".b32" / ".b64". */
static const char *width_rule(const char *const ids[4], int width)
{
    return ids[width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : 3];
}

static const char *const LEFT_RULES[4] = {"data_copy_pad.leftPadding.b8", "data_copy_pad.leftPadding.b16",
                                          "data_copy_pad.leftPadding.b32", "data_copy_pad.leftPadding.b64"};
static const char *const RIGHT_RULES[4] = {"data_copy_pad.rightPadding.b8", "data_copy_pad.rightPadding.b16",
                                           "data_copy_pad.rightPadding.b32", "data_copy_pad.rightPadding.b64"};
static const char *const VALUE_RULES[4] = {"data_copy_pad.paddingValue.b8", "data_copy_pad.paddingValue.b16",
                                           "data_copy_pad.paddingValue.b32", "data_copy_pad.paddingValue.b64"};

/* `bytes` bytes at `at` filled with one element of `width` bytes, over and over. */
static void fill_elements(uint8_t *at, int64_t bytes, const uint8_t *element, int width)
{
    for (int64_t i = 0; i + width <= bytes; i += width)
        memcpy(at + i, element, (size_t)width);
}

void api_data_copy_pad(outcome *o, const product_info *p, const char *form, const jvalue *args,
                       resolve_images resolve, void *ctx)
{
    tensor dst, src;
    int to_ub = strcmp(form, "gm_to_ub") == 0;
    int64_t blockCount, blockLen, srcStride, dstStride, leftPadding = 0, rightPadding = 0, paddingValue = 0;
    int isPad = 0;
    const char *w = "call.args.dataCopyParams", *wp = "call.args.padParams";
    if (!to_ub && strcmp(form, "ub_to_gm") != 0) {
        set_error(o, "call.form: data_copy_pad has the forms gm_to_ub and ub_to_gm, not '%s'", form);
        return;
    }
    if (!arg_tensor(o, args, "dst", &dst) || !arg_tensor(o, args, "src", &src))
        return;
    const jvalue *cp = arg_object(o, args, "dataCopyParams", "DataCopyExtParams");
    if (cp == NULL || !arg_int(o, cp, w, "blockCount", &blockCount) || !arg_int(o, cp, w, "blockLen", &blockLen) ||
        !arg_int(o, cp, w, "srcStride", &srcStride) || !arg_int(o, cp, w, "dstStride", &dstStride))
        return;
    if (to_ub) {
        const jvalue *pad = arg_object(o, args, "padParams", "DataCopyPadExtParams");
        if (pad == NULL || !arg_bool(o, pad, wp, "isPad", &isPad) ||
            !arg_int(o, pad, wp, "leftPadding", &leftPadding) || !arg_int(o, pad, wp, "rightPadding", &rightPadding) ||
            !arg_int(o, pad, wp, "paddingValue", &paddingValue))
            return;
    }

    /* data_copy_pad.product.supported: A3, A2 and 200I/500 A2 (支持); the others 不支持. */
    const pad_product *pp = find_product(p);
    if (pp == NULL) {
        set_rejected(o, "data_copy_pad.product.supported", "data_copy_pad is not supported on %s", p->id);
        return;
    }

    /* data_copy_pad.path.gm_to_ub ("GM -> VECIN; GM -> VECOUT") / data_copy_pad.path.ub_to_gm
     * ("VECIN -> GM; VECOUT -> GM"): each form has one path. */
    scope_id want_src = to_ub ? SCOPE_GM : SCOPE_UB, want_dst = to_ub ? SCOPE_UB : SCOPE_GM;
    if (src.scope != want_src || dst.scope != want_dst) {
        set_rejected(o, to_ub ? "data_copy_pad.path.gm_to_ub" : "data_copy_pad.path.ub_to_gm",
                     "path %s->%s is not the %s path (%s->%s)", SCOPE_NAMES[src.scope], SCOPE_NAMES[dst.scope], form,
                     SCOPE_NAMES[want_src], SCOPE_NAMES[want_dst]);
        return;
    }

    /* data_copy_pad.dtype.supported (A2, A3) / data_copy_pad.dtype.supported_310b: dst, then src. */
    if (rule_dtypes(o, pp->dtype_rule, &dst, dtype_allowed(pp, dst.dtype), &src, dtype_allowed(pp, src.dtype), p))
        return;

    /* data_copy_pad.dtype.same: one template parameter T for dst, src (and paddingValue). */
    if (rule_same_dtype(o, "data_copy_pad.dtype.same", &dst, &src))
        return;

    /* The UB address 32-byte aligned; the GM one "1字节对齐" (no rule). */
    if (rule_align(o, "data_copy_pad.dst.align.UB", "dst", &dst, SCOPE_UB, 32) ||
        rule_align(o, "data_copy_pad.src.align.UB", "src", &src, SCOPE_UB, 32))
        return;

    /* 表3 / 表5, DataCopyExtParams. */
    int width = dst.dtype->bytes;
    if (rule_range(o, "data_copy_pad.blockCount.range", "dataCopyParams.blockCount", blockCount, 0, 4095) ||
        rule_range(o, "data_copy_pad.blockLen.range", "dataCopyParams.blockLen", blockLen, 0, 2097151))
        return;
    /* data_copy_pad.blockLen.multiple: "blockLen必须是sizeof(T)的整数倍". */
    if (blockLen % width != 0) {
        set_rejected(o, "data_copy_pad.blockLen.multiple", "dataCopyParams.blockLen=%lld is not a multiple of %d",
                     (long long)blockLen, width);
        return;
    }
    if (rule_range(o, "data_copy_pad.srcStride.range", "dataCopyParams.srcStride", srcStride, 0, 4294967295LL) ||
        rule_range(o, "data_copy_pad.dstStride.range", "dataCopyParams.dstStride", dstStride, 0, 4294967295LL))
        return;

    /* 表4, DataCopyPadExtParams (GM -> UB): "leftPadding、rightPadding所占字节数均不能超过32B" (counted in
     * elements: 32 / sizeof(T) of them); paddingValue is the bits of one T, and 0 for a b64 T. */
    if (to_ub) {
        int64_t value_max = width == 8 ? 0 : (int64_t)((UINT64_C(1) << (8 * width)) - 1);
        if (rule_range(o, width_rule(LEFT_RULES, width), "padParams.leftPadding", leftPadding, 0,
                       PAD_BYTES_MAX / width) ||
            rule_range(o, width_rule(RIGHT_RULES, width), "padParams.rightPadding", rightPadding, 0,
                       PAD_BYTES_MAX / width) ||
            rule_range(o, width_rule(VALUE_RULES, width), "padParams.paddingValue", paddingValue, 0, value_max))
            return;
    }

    /* The footprints (every number above is in range, so int64_t holds them). A block of no byte, or no
     * block, touches nothing (data_copy_pad.nop). */
    int64_t runs = blockLen > 0 ? blockCount : 0;
    int64_t left = leftPadding * width, right = rightPadding * width;
    int64_t src_step, dst_step, dst_length;
    if (to_ub) {
        dst_length = round_up(left + blockLen + right, DATA_BLOCK);        /* padding and dummy included */
        src_step = blockLen + srcStride;
        dst_step = dst_length + dstStride * DATA_BLOCK;
    } else {
        dst_length = blockLen;                                             /* the dummy is dropped */
        src_step = round_up(blockLen, DATA_BLOCK) + srcStride * DATA_BLOCK;
        dst_step = blockLen + dstStride;
    }
    int64_t src_end = runs_end(src_step, runs, blockLen), dst_end = runs_end(dst_step, runs, dst_length);

    /* data_copy_pad.src.bounds / data_copy_pad.dst.bounds: every byte read, and every byte written (on
     * GM -> UB the padding and dummy up to each block's 32-byte end), lies inside the tensor given. */
    if (rule_bounds(o, "data_copy_pad.src.bounds", "src", &src, 0, src_end) ||
        rule_bounds(o, "data_copy_pad.dst.bounds", "dst", &dst, 0, dst_end))
        return;

    /* data_copy_pad.src.capacity / data_copy_pad.dst.capacity: the LocalTensor lies inside the UB. */
    if (rule_capacity(o, "data_copy_pad.src.capacity", "src", &src, p) ||
        rule_capacity(o, "data_copy_pad.dst.capacity", "dst", &dst, p))
        return;

    o->kind = OUT_OK;
    if (runs == 0)
        return;
    const uint8_t *s;
    uint8_t *d;
    if (!move_images(o, resolve, ctx, &src, src_end, &dst, dst_end, &s, &d))
        return;
    if (!to_ub) {
        copy_runs(d, dst_step, s, src_step, runs, blockLen);
        return;
    }

    /* GM -> UB: the data of every block, then its padding and dummy. */
    copy_runs(d + left, dst_step, s, src_step, runs, blockLen);
    uint8_t value[8];
    for (int i = 0; i < width; i++)                                        /* paddingValue, little-endian */
        value[i] = (uint8_t)((uint64_t)paddingValue >> (8 * i));
    int no_padding = left == 0 && right == 0;
    for (int64_t k = 0; k < runs; k++) {
        uint8_t *block = d + k * dst_step;
        uint8_t *tail = block + left + blockLen;                           /* right padding, then dummy */
        int64_t tail_bytes = dst_length - left - blockLen;
        if (no_padding) {
            /* data_copy_pad.gm_to_ub.dummy: "若leftPadding、rightPadding都为0：dummy会默认填充待搬运数据块
             * 的第一个元素值": the block's first element, read from GM, with or without isPad (the reading
             * block_first of data_copy_pad.dummy.no_padding, .without_isPad and their _b64 twins, declared in
             * main.c: the element is sizeof(T), 8 bytes for 64-bit types). */
            fill_elements(tail, tail_bytes, s + k * src_step, width);
        } else if (isPad) {
            /* data_copy_pad.gm_to_ub.padding_aligned / .dummy: padding and dummy hold paddingValue. */
            fill_elements(block, left, value, width);
            fill_elements(tail, tail_bytes, value, width);
        }
        /* isPad false with padding: "左右两侧填充的数据值和dummy值均为随机值": left as they are. */
    }
}
