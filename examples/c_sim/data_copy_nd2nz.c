/* c-sim: Ascend C DataCopy(LocalTensor dst, GlobalTensor src, Nd2NzParams intriParams), GM -> UB with
 * ND -> NZ conversion (asc-devkit GMToUB随路转换ND2NZ搬运(DataCopy).md, spec specs/data_copy_nd2nz.yaml).
 *
 * Source layout (ND): row r of matrix i starts at i * srcNdMatrixStride + r * srcDValue elements and holds
 * dValue elements. Destination layout (NZ): a row is cut into pieces of C0 = 32 / sizeof(T) elements
 * (C0_SIZE, 32 bytes); piece j of row r of matrix i fills the 32-byte block at byte
 *
 *   i * dstNzMatrixStride * sizeof(T) + j * dstNzC0Stride * 32 + r * dstNzNStride * 32
 *
 * of dst, the rest of the last piece's block zero ("不足的部分会被补齐为0").
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

enum { C0_BYTES = 32 };

/* 产品支持情况 and 数据类型 (core_dtypes): the rule naming the product's dtype list; NULL where the page
 * does not support the product. */
static const char *dtype_rule_of(const product_info *p, const char *const **names, size_t *n)
{
    switch (core_dtypes(p, names, n)) {
    case 1:
        return "data_copy_nd2nz.dtype.supported";
    case 2:
        return "data_copy_nd2nz.dtype.supported_310p";
    default:
        return NULL;
    }
}

/* The Nd2NzParams fields in the struct's order (表3), with their ranges (表4). */
enum { ND_NUM, N_VALUE, D_VALUE, SRC_MATRIX, SRC_D, DST_C0, DST_N, DST_MATRIX, FIELDS };
static const struct { const char *name, *rule; int64_t min, max; } FIELD[FIELDS] = {
    {"ndNum", "data_copy_nd2nz.ndNum.range", 0, 4095},
    {"nValue", "data_copy_nd2nz.nValue.range", 0, 16384},
    {"dValue", "data_copy_nd2nz.dValue.range", 0, 65535},
    {"srcNdMatrixStride", "data_copy_nd2nz.srcNdMatrixStride.range", 0, 65535},
    {"srcDValue", "data_copy_nd2nz.srcDValue.range", 1, 65535},
    {"dstNzC0Stride", "data_copy_nd2nz.dstNzC0Stride.range", 1, 16384},
    {"dstNzNStride", "data_copy_nd2nz.dstNzNStride.range", 1, 16384},
    {"dstNzMatrixStride", "data_copy_nd2nz.dstNzMatrixStride.range", 1, 65535},
};

void api_data_copy_nd2nz(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx)
{
    tensor dst, src;
    int64_t v[FIELDS];
    char param[64];
    const jvalue *ip = arg_object(o, args, "intriParams", "Nd2NzParams");
    if (!arg_tensor(o, args, "dst", &dst) || !arg_tensor(o, args, "src", &src) || ip == NULL)
        return;
    for (int f = 0; f < FIELDS; f++)
        if (!arg_int(o, ip, "call.args.intriParams", FIELD[f].name, &v[f]))
            return;

    const char *const *dtypes;
    size_t n_dtypes;
    const char *dtype_rule;
    if ((dtype_rule = dtype_rule_of(p, &dtypes, &n_dtypes)) == NULL) {
        set_rejected(o, "data_copy_nd2nz.product.supported", "data_copy_nd2nz is not supported on %s", p->id);
        return;
    }
    /* data_copy_nd2nz.path.supported: GM -> VECIN only. */
    if (src.scope != SCOPE_GM || dst.scope != SCOPE_UB) {
        set_rejected(o, "data_copy_nd2nz.path.supported", "path %s->%s is not supported (supported: GM->UB)",
                     SCOPE_NAMES[src.scope], SCOPE_NAMES[dst.scope]);
        return;
    }
    if (rule_dtypes(o, dtype_rule, &dst, name_in(dtypes, n_dtypes, dst.dtype->name), &src,
                    name_in(dtypes, n_dtypes, src.dtype->name), p) ||
        rule_same_dtype(o, "data_copy_nd2nz.dtype.same", &dst, &src))
        return;
    for (int f = 0; f < FIELDS; f++) {
        snprintf(param, sizeof param, "intriParams.%s", FIELD[f].name);
        if (rule_range(o, FIELD[f].rule, param, v[f], FIELD[f].min, FIELD[f].max))
            return;
    }
    if (rule_align(o, "data_copy_nd2nz.dst.align", "dst", &dst, SCOPE_UB, 32))
        return;

    /* The footprints, in bytes from each operand's address: src, ndNum x nValue rows of dValue elements;
     * dst, ndNum x blocks x nValue blocks of 32 bytes. */
    int64_t width = dst.dtype->bytes, per = C0_BYTES / width;
    int64_t blocks = (v[D_VALUE] + per - 1) / per;
    int64_t src_matrix = v[SRC_MATRIX] * width, src_row = v[SRC_D] * width;
    int64_t dst_matrix = v[DST_MATRIX] * width, dst_piece = v[DST_C0] * C0_BYTES, dst_row = v[DST_N] * C0_BYTES;
    int64_t src_end = 0, dst_end = 0;                      /* no matrix, row or column: nothing touched */
    if (v[ND_NUM] > 0 && v[N_VALUE] > 0 && v[D_VALUE] > 0) {
        src_end = (v[ND_NUM] - 1) * src_matrix + (v[N_VALUE] - 1) * src_row + v[D_VALUE] * width;
        dst_end = (v[ND_NUM] - 1) * dst_matrix + (blocks - 1) * dst_piece + (v[N_VALUE] - 1) * dst_row + C0_BYTES;
    }
    if (rule_bounds(o, "data_copy_nd2nz.src.bounds", "src", &src, 0, src_end) ||
        rule_bounds(o, "data_copy_nd2nz.dst.bounds", "dst", &dst, 0, dst_end) ||
        rule_capacity(o, "data_copy_nd2nz.dst.capacity", "dst", &dst, p))
        return;
    /* data_copy_nd2nz.dst.rows_overlap (undefined): blocks that share bytes get what the loop below leaves. */

    o->kind = OUT_OK;
    if (dst_end == 0)
        return;
    const uint8_t *s;
    uint8_t *d;
    if (!move_images(o, resolve, ctx, &src, src_end, &dst, dst_end, &s, &d))
        return;
    for (int64_t i = 0; i < v[ND_NUM]; i++)
        for (int64_t r = 0; r < v[N_VALUE]; r++)
            for (int64_t j = 0; j < blocks; j++) {
                int64_t n = (j + 1 < blocks ? per : v[D_VALUE] - j * per) * width;
                uint8_t *block = d + i * dst_matrix + j * dst_piece + r * dst_row;
                memcpy(block, s + i * src_matrix + r * src_row + j * per * width, (size_t)n);
                memset(block + n, 0, (size_t)(C0_BYTES - n));
            }
}
