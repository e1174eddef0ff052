/* c-sim: Ascend C Gatherb (spec specs/gatherb.yaml; vendor page asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/
 * Memory矢量计算/离散与聚合/Gatherb(ISASI).md).
 *
 *   Gatherb(dst, src, offset, repeatTime, GatherRepeatParams{dstBlkStride, dstRepStride})
 *
 * DataBlock j of iteration i (8 an iteration) is the 32 bytes offset[i * 8 + j] bytes from src (little-endian
 * uint32 bytes), written (i * dstRepStride + j * dstBlkStride) DataBlocks from dst, a dstBlkStride of 0 read
 * as 1. Every block is read before any is written; a block past UB (undefined territory) reads as zeros.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

enum { DATA_BLOCK = 32, PER_ITERATION = 8, OFFSET_BYTES = 4 };

static const char *const A2_A3[] = {"uint16", "uint32"};
static const char *const B310[] = {"int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32",
                                   "float32", "int64"};
#define N(a) (sizeof a / sizeof a[0])

static int gb_checks(outcome *o, const product_info *p, const tensor *ops[3], int64_t repeat, int64_t blk, int64_t rep)
{
    static const char *const names[3] = {"dst", "src", "offset"};
    static const char *const scope_rules[3] = {"gatherb.dst.scope", "gatherb.src.scope", "gatherb.offset.scope"};
    static const char *const align_rules[3] = {"gatherb.dst.align", "gatherb.src.align", "gatherb.offset.align"};
    int a2 = strcmp(p->id, "ascend910b") == 0 || strcmp(p->id, "ascend910_93") == 0, b = strcmp(p->id, "ascend310b") == 0;
    if (!a2 && !b) {
        set_rejected(o, "gatherb.product.supported", "Gatherb is not supported on %s", p->id);
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if (ops[i]->scope != SCOPE_UB) {
            set_rejected(o, scope_rules[i], "%s is in %s, not UB", names[i], SCOPE_NAMES[ops[i]->scope]);
            return 0;
        }
    const char *const *list = a2 ? A2_A3 : B310;
    size_t n = a2 ? N(A2_A3) : N(B310);
    if (rule_dtypes(o, a2 ? "gatherb.dtype.supported_a2_a3" : "gatherb.dtype.supported_310b", ops[0],
                    name_in(list, n, ops[0]->dtype->name), ops[1], name_in(list, n, ops[1]->dtype->name), p))
        return 0;
    if (strcmp(ops[2]->dtype->name, "uint32") != 0) {
        set_rejected(o, "gatherb.offset.dtype", "offset is a LocalTensor<uint32_t>, not %s", ops[2]->dtype->name);
        return 0;
    }
    if (rule_same_dtype(o, "gatherb.dtype.same", ops[0], ops[1]))
        return 0;
    for (int i = 0; i < 3; i++)
        if (rule_align(o, align_rules[i], names[i], ops[i], SCOPE_UB, 32))
            return 0;
    return !(rule_range(o, "gatherb.repeatTime.range", "repeatTime", repeat, 0, 255) ||
             rule_range(o, "gatherb.dstBlkStride.range", "repeatParams.dstBlkStride", blk, 0, 255) ||
             rule_range(o, "gatherb.dstRepStride.range", "repeatParams.dstRepStride", rep, 0, 65535));
}

void api_gatherb(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx)
{
    tensor dst, src, offs;
    int64_t repeat = 0, blk = 0, rep = 0;
    const char *w = "call.args.repeatParams";
    if (!arg_tensor(o, args, "dst", &dst) || !arg_tensor(o, args, "src", &src) || !arg_tensor(o, args, "offset", &offs) ||
        !arg_int(o, args, "call.args", "repeatTime", &repeat))
        return;
    const jvalue *rp = arg_object(o, args, "repeatParams", "GatherRepeatParams");
    if (rp == NULL || !arg_int(o, rp, w, "dstBlkStride", &blk) || !arg_int(o, rp, w, "dstRepStride", &rep))
        return;
    const tensor *ops[3] = {&dst, &src, &offs};
    if (!gb_checks(o, p, ops, repeat, blk, rep))
        return;
    int64_t step = blk == 0 ? 1 : blk;                          /* gatherb.dstBlkStride.zero */
    int64_t n = repeat * PER_ITERATION;
    int64_t dst_end = n ? ((repeat - 1) * rep + (PER_ITERATION - 1) * step + 1) * DATA_BLOCK : 0;
    if (rule_bounds(o, "gatherb.dst.bounds", "dst", &dst, 0, dst_end) ||
        rule_bounds(o, "gatherb.offset.bounds", "offset", &offs, 0, n * OFFSET_BYTES) ||
        rule_capacity(o, "gatherb.dst.capacity", "dst", &dst, p) ||
        rule_capacity(o, "gatherb.src.capacity", "src", &src, p) ||
        rule_capacity(o, "gatherb.offset.capacity", "offset", &offs, p))
        return;

    o->kind = OUT_OK;
    if (n == 0)
        return;                                 /* gatherb.repeatTime.nop */
    images m;
    if (!resolve(ctx, o, &m) || !image_span(o, &m, "dst", &dst, 0, dst_end) ||
        !image_span(o, &m, "offset", &offs, 0, n * OFFSET_BYTES))
        return;
    uint8_t *ub = m.base[SCOPE_UB], *values = malloc((size_t)(n * DATA_BLOCK));
    if (values == NULL) {
        set_error(o, "out of memory for %lld blocks", (long long)n);
        return;
    }
    for (int64_t k = 0; k < n; k++) {               /* every read first */
        const uint8_t *q = ub + offs.addr + k * OFFSET_BYTES;
        int64_t from = src.addr + (int64_t)((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
                                            (uint32_t)q[3] << 24);
        if (from >= 0 && from + DATA_BLOCK <= m.size[SCOPE_UB])
            memcpy(values + k * DATA_BLOCK, ub + from, DATA_BLOCK);
        else
            memset(values + k * DATA_BLOCK, 0, DATA_BLOCK);
    }
    for (int64_t k = 0; k < n; k++)
        memcpy(ub + dst.addr + ((k / PER_ITERATION) * rep + (k % PER_ITERATION) * step) * DATA_BLOCK,
               values + k * DATA_BLOCK, DATA_BLOCK);
    free(values);
}
