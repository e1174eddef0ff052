/* c-sim: Ascend C DataCopy between GM and UB and inside UB, in its two forms (spec specs/data_copy.yaml;
 * vendor pages asc-devkit@0da921b9, under docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/:
 * GM与UB数据搬运/GM与UB连续数据搬运(DataCopy).md and GM与UB高维切分数据搬运(DataCopy).md,
 * UB与UB数据搬运/UBToUB连续数据搬运(DataCopy).md and UBToUB高维切分数据搬运(DataCopy).md).
 *
 *   form `count`:  DataCopy(dst, src, const uint32_t count)
 *   form `params`: DataCopy(dst, src, const DataCopyParams& repeatParams)
 *
 * count: "count * sizeof(T)需要32字节对齐，若未对齐，搬运量会向下取整到32字节对齐": one run of
 * count * sizeof(T) bytes rounded down to a multiple of 32, from src to dst (fewer than 32 bytes: none).
 * An unaligned count is the ambiguity data_copy.count.unaligned; this simulator follows its reading
 * round_down and says so in its hello (main.c).
 *
 * params: blockCount blocks of blockLen DataBlocks (32 B); srcGap / dstGap are "前一个数据块结束地址与后一个
 * 数据块起始地址的差值" in DataBlocks on every path, so block k lies k * (blockLen + gap) * 32 bytes after the
 * operand's address. A blockCount or blockLen of 0 moves nothing (the NOP sentence of A2 / A3; on the other
 * products that region is an ambiguity the kit does not enter unless a reading is declared, and this
 * simulator moves nothing there either).
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

enum { DATA_BLOCK = 32 };   /* the DataBlock of 表3 and the rounding unit of the count form */

/* data_copy.product.supported, data_copy.path.supported and the dtype rule of each product: the GM<->UB
 * pages' 产品支持情况 (UB->UB: the UB->UB pages'), and the two dtype lists of 数据类型. */
typedef struct {
    const char *product;
    int npaths;
    struct { scope_id src, dst; } paths[3];
    int bf16;                   /* 1: bfloat16_t is in the product's list (data_copy.dtype.supported) */
} dc_product;

#define P(s, d) {SCOPE_##s, SCOPE_##d}
static const dc_product PRODUCT_TABLE[] = {
    {"ascend910_93",          3, {P(GM, UB), P(UB, GM), P(UB, UB)}, 1},   /* Atlas A3 */
    {"ascend910b",            3, {P(GM, UB), P(UB, GM), P(UB, UB)}, 1},   /* Atlas A2 */
    {"ascend310b",            2, {P(GM, UB), P(UB, GM)},            1},   /* Atlas 200I/500 A2: no UB->UB */
    {"ascend310p-aicore",     3, {P(GM, UB), P(UB, GM), P(UB, UB)}, 0},   /* 推理系列产品 AI Core */
    {"ascend310p-vectorcore", 2, {P(GM, UB), P(UB, GM)},            0},   /* 推理系列产品 Vector Core: no UB->UB */
    {"ascend910",             3, {P(GM, UB), P(UB, GM), P(UB, UB)}, 0},   /* Atlas 训练系列产品 */
};
#undef P

/* "int8_t、uint8_t、int16_t、uint16_t、half、bfloat16_t、int32_t、uint32_t、float、int64_t、uint64_t、double"
 * (A2, A3, 200I/500 A2); the AI Core, Vector Core and 训练系列产品 list the same without bfloat16_t. */
static const char *const DTYPES[] = {"int8", "uint8", "int16", "uint16", "float16", "bfloat16",
                                     "int32", "uint32", "float32", "int64", "uint64", "float64"};

static const dc_product *find_product(const product_info *p)
{
    for (size_t i = 0; i < sizeof PRODUCT_TABLE / sizeof PRODUCT_TABLE[0]; i++)
        if (strcmp(PRODUCT_TABLE[i].product, p->id) == 0)
            return &PRODUCT_TABLE[i];
    return NULL;
}

static int dtype_allowed(const dc_product *dp, const dtype_info *d)
{
    return (dp->bf16 || strcmp(d->name, "bfloat16") != 0) && name_in(DTYPES, sizeof DTYPES / sizeof DTYPES[0], d->name);
}

void api_data_copy(outcome *o, const product_info *p, const char *form, const jvalue *args, resolve_images resolve,
                   void *ctx)
{
    tensor dst, src;
    int by_count = strcmp(form, "count") == 0;
    int64_t count = 0, blockCount = 0, blockLen = 0, srcGap = 0, dstGap = 0;
    const char *w = "call.args.repeatParams";
    if (!by_count && strcmp(form, "params") != 0) {
        set_error(o, "call.form: data_copy has the forms count and params, not '%s'", form);
        return;
    }
    if (!arg_tensor(o, args, "dst", &dst) || !arg_tensor(o, args, "src", &src))
        return;
    if (by_count) {
        if (!arg_int(o, args, "call.args", "count", &count))
            return;
    } else {
        const jvalue *rp = arg_object(o, args, "repeatParams", "DataCopyParams");
        if (rp == NULL || !arg_int(o, rp, w, "blockCount", &blockCount) || !arg_int(o, rp, w, "blockLen", &blockLen) ||
            !arg_int(o, rp, w, "srcGap", &srcGap) || !arg_int(o, rp, w, "dstGap", &dstGap))
            return;
    }

    /* data_copy.product.supported: every product but Atlas 200/300/500 推理产品 (ascend310). */
    const dc_product *dp = find_product(p);
    if (dp == NULL) {
        set_rejected(o, "data_copy.product.supported", "data_copy is not supported on %s", p->id);
        return;
    }

    /* data_copy.path.supported: GM->UB and UB->GM everywhere; UB->UB where the UB->UB pages say 支持. */
    int path_ok = 0;
    for (int i = 0; i < dp->npaths; i++)
        if (dp->paths[i].src == src.scope && dp->paths[i].dst == dst.scope)
            path_ok = 1;
    if (!path_ok) {
        set_rejected(o, "data_copy.path.supported", "path %s->%s is not supported on %s",
                     SCOPE_NAMES[src.scope], SCOPE_NAMES[dst.scope], p->id);
        return;
    }

    /* data_copy.dtype.supported (A2, A3, 200I/500 A2) / data_copy.dtype.supported_no_bf16 (the others):
     * dst, then src, has a dtype of the product's list. */
    if (rule_dtypes(o, dp->bf16 ? "data_copy.dtype.supported" : "data_copy.dtype.supported_no_bf16",
                    &dst, dtype_allowed(dp, dst.dtype), &src, dtype_allowed(dp, src.dtype), p))
        return;

    /* data_copy.dtype.same: one template parameter T for dst and src. */
    if (rule_same_dtype(o, "data_copy.dtype.same", &dst, &src))
        return;

    /* Addresses: a LocalTensor (UB) 32-byte aligned, a GlobalTensor (GM) aligned to its element width. */
    if (rule_align(o, "data_copy.dst.align.UB", "dst", &dst, SCOPE_UB, 32) ||
        rule_align(o, "data_copy.src.align.UB", "src", &src, SCOPE_UB, 32) ||
        rule_align(o, "data_copy.dst.align.GM", "dst", &dst, SCOPE_GM, dst.dtype->bytes) ||
        rule_align(o, "data_copy.src.align.GM", "src", &src, SCOPE_GM, src.dtype->bytes))
        return;

    /* The ranges: count is a uint32_t (data_copy.count.range, inferred from the type); the DataCopyParams
     * fields as 表3 of the strided pages gives them. */
    if (by_count) {
        if (rule_range(o, "data_copy.count.range", "count", count, 0, 4294967295LL))
            return;
    } else if (rule_range(o, "data_copy.blockCount.range", "repeatParams.blockCount", blockCount, 0, 4095) ||
               rule_range(o, "data_copy.blockLen.range", "repeatParams.blockLen", blockLen, 0, 65535) ||
               rule_range(o, "data_copy.srcGap.range", "repeatParams.srcGap", srcGap, 0, 65535) ||
               rule_range(o, "data_copy.dstGap.range", "repeatParams.dstGap", dstGap, 0, 65535)) {
        return;
    }

    /* The footprint, the same number of runs of the same length on both sides. The ranges above keep
     * every product inside int64_t. */
    int64_t runs, length, src_step, dst_step;
    if (by_count) {
        /* data_copy.count.unaligned, reading round_down: count * sizeof(T) rounded down to 32 bytes. */
        length = count * dst.dtype->bytes / DATA_BLOCK * DATA_BLOCK;
        runs = 1;
        src_step = dst_step = length;
    } else {
        /* data_copy.params.gap_end_to_start; data_copy.params.nop (a 0 makes the runs empty). */
        length = blockLen * DATA_BLOCK;
        runs = blockCount;
        src_step = length + srcGap * DATA_BLOCK;
        dst_step = length + dstGap * DATA_BLOCK;
    }
    int64_t src_end = runs_end(src_step, runs, length), dst_end = runs_end(dst_step, runs, length);

    /* data_copy.src.bounds / data_copy.dst.bounds: no byte read or written outside the tensor given. */
    if (rule_bounds(o, "data_copy.src.bounds", "src", &src, 0, src_end) ||
        rule_bounds(o, "data_copy.dst.bounds", "dst", &dst, 0, dst_end))
        return;

    /* data_copy.src.capacity / data_copy.dst.capacity: a LocalTensor lies inside the product's UB. */
    if (rule_capacity(o, "data_copy.src.capacity", "src", &src, p) ||
        rule_capacity(o, "data_copy.dst.capacity", "dst", &dst, p))
        return;

    /* data_copy.overlap (severity undefined, UB->UB): bytes read and written that overlap get whatever
     * the block-by-block copy below leaves; nothing to refuse. */

    o->kind = OUT_OK;
    if (src_end == 0)
        return;                                             /* nothing moves (a NOP, or under 32 bytes) */
    const uint8_t *s;
    uint8_t *d;
    if (!move_images(o, resolve, ctx, &src, src_end, &dst, dst_end, &s, &d))
        return;
    copy_runs(d, dst_step, s, src_step, runs, length);
}
