/* c-sim: Ascend C DataCopy(GlobalTensor dst, LocalTensor src, Nz2NdParamsFull intriParams), UB -> GM with
 * NZ -> ND conversion (vendor page 004_dc35eb371305363d.txt, spec specs/data_copy_nz2nd.yaml).
 *
 * Source layout (NZ): matrix i starts at i * srcNdMatrixStride * 256 elements; inside it, column block b
 * (16 columns: the fractal is 16 elements wide for every dtype) starts at b * srcNStride * 16 elements and
 * holds nValue fractal rows of 16 elements back to back. Destination layout (ND): row r of matrix i starts
 * at i * dstNdMatrixStride + r * dstDStride elements and holds dValue elements. So
 *
 *   dst[i * dstNdMatrixStride + r * dstDStride + c] =
 *       src[i * srcNdMatrixStride * 256 + (c / 16) * srcNStride * 16 + r * 16 + c % 16]
 *
 * (the page's example {1, 32, 32, 1, 32, 32, 1} on 1..1024: "1 2 ... 15 16 513 514 ... 527 528 17 ...").
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

enum { FRACTAL = 16 };   /* elements per fractal row, every dtype */

/* 产品支持情况 and 表4 "Local Memory -> Global Memory具体通路和支持的数据类型": the products that have the
 * API, their path (UB -> GM on each) and their dtypes, with the id of the dtype rule of the spec. */
typedef struct {
    const char *product;
    scope_id src, dst;
    const char *dtype_rule;
    const char *dtypes[8];
} nz_product;

static const nz_product PRODUCT_TABLE[] = {
    {"ascend310p-aicore", SCOPE_UB, SCOPE_GM, "data_copy_nz2nd.dtype.supported_310p",
     {"int16", "uint16", "int32", "uint32", "float16", "float32"}},
    {"ascend910b", SCOPE_UB, SCOPE_GM, "data_copy_nz2nd.dtype.supported",
     {"int16", "uint16", "int32", "uint32", "float16", "bfloat16", "float32"}},
    {"ascend910_93", SCOPE_UB, SCOPE_GM, "data_copy_nz2nd.dtype.supported",
     {"int16", "uint16", "int32", "uint32", "float16", "bfloat16", "float32"}},
};

static const nz_product *find_product(const product_info *p)
{
    for (size_t i = 0; i < sizeof PRODUCT_TABLE / sizeof PRODUCT_TABLE[0]; i++)
        if (strcmp(PRODUCT_TABLE[i].product, p->id) == 0)
            return &PRODUCT_TABLE[i];
    return NULL;
}

static int dtype_allowed(const nz_product *np, const dtype_info *d)
{
    return name_in(np->dtypes, 8, d->name);
}

void api_data_copy_nz2nd(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx)
{
    tensor dst, src;
    int64_t ndNum, nValue, dValue, srcNdMatrixStride, srcNStride, dstDStride, dstNdMatrixStride;
    const char *w = "call.args.intriParams";
    const jvalue *ip = json_get(args, "intriParams");
    if (!arg_tensor(o, args, "dst", &dst) || !arg_tensor(o, args, "src", &src))
        return;
    if (ip == NULL || ip->type != J_OBJECT) {
        set_error(o, "%s: expected an object with the Nz2NdParamsFull fields, got %s", w, json_type_name(ip));
        return;
    }
    if (!arg_int(o, ip, w, "ndNum", &ndNum) || !arg_int(o, ip, w, "nValue", &nValue) ||
        !arg_int(o, ip, w, "dValue", &dValue) || !arg_int(o, ip, w, "srcNdMatrixStride", &srcNdMatrixStride) ||
        !arg_int(o, ip, w, "srcNStride", &srcNStride) || !arg_int(o, ip, w, "dstDStride", &dstDStride) ||
        !arg_int(o, ip, w, "dstNdMatrixStride", &dstNdMatrixStride))
        return;

    /* data_copy_nz2nd.product.supported: √ on Atlas A3, Atlas A2 and Atlas 推理系列产品 AI Core only. */
    const nz_product *np = find_product(p);
    if (np == NULL) {
        set_rejected(o, "data_copy_nz2nd.product.supported", "data_copy_nz2nd is not supported on %s", p->id);
        return;
    }

    /* data_copy_nz2nd.path.supported: VECOUT -> GM (UB -> GM). */
    if (src.scope != np->src || dst.scope != np->dst) {
        set_rejected(o, "data_copy_nz2nd.path.supported", "path %s->%s is not supported on %s (supported: UB->GM)",
                     SCOPE_NAMES[src.scope], SCOPE_NAMES[dst.scope], p->id);
        return;
    }

    /* data_copy_nz2nd.dtype.supported_310p (AI Core) / data_copy_nz2nd.dtype.supported (A2, A3):
     * dst and src each have a dtype of the product's row of 表4. */
    if (rule_dtypes(o, np->dtype_rule, &dst, dtype_allowed(np, dst.dtype), &src, dtype_allowed(np, src.dtype), p))
        return;

    /* data_copy_nz2nd.dtype.same: "源操作数和目的操作数的数据类型 (两者保持一致)". */
    if (rule_same_dtype(o, "data_copy_nz2nd.dtype.same", &dst, &src))
        return;

    /* 表3, the Nz2NdParamsFull ranges. */
    if (rule_range(o, "data_copy_nz2nd.ndNum.range", "intriParams.ndNum", ndNum, 0, 4095) ||
        rule_range(o, "data_copy_nz2nd.nValue.range", "intriParams.nValue", nValue, 1, 8192) ||
        rule_range(o, "data_copy_nz2nd.dValue.range", "intriParams.dValue", dValue, 1, 8192))
        return;
    /* data_copy_nz2nd.dValue.multiple: "dValue必须为16的倍数". */
    if (dValue % 16 != 0) {
        set_rejected(o, "data_copy_nz2nd.dValue.multiple", "intriParams.dValue=%lld is not a multiple of 16",
                     (long long)dValue);
        return;
    }
    if (rule_range(o, "data_copy_nz2nd.srcNdMatrixStride.range", "intriParams.srcNdMatrixStride",
                   srcNdMatrixStride, 1, 512) ||
        rule_range(o, "data_copy_nz2nd.srcNStride.range", "intriParams.srcNStride", srcNStride, 0, 4096) ||
        rule_range(o, "data_copy_nz2nd.dstDStride.range", "intriParams.dstDStride", dstDStride, 1, 65535) ||
        rule_range(o, "data_copy_nz2nd.dstNdMatrixStride.range", "intriParams.dstNdMatrixStride",
                   dstNdMatrixStride, 1, 65535))
        return;

    /* data_copy_nz2nd.src.align: a LocalTensor in UB starts on a 32-byte boundary. */
    if (rule_align(o, "data_copy_nz2nd.src.align", "src", &src, SCOPE_UB, 32))
        return;

    /* The footprints, in bytes from each operand's address (units: srcNdMatrixStride 256 elements,
     * srcNStride 16 elements, dstDStride and dstNdMatrixStride 1 element; elements of dst's dtype).
     * src: ndNum matrices of `blocks` column blocks of nValue fractal rows each;
     * dst: ndNum matrices of nValue rows of dValue elements each. */
    int64_t width = dst.dtype->bytes;
    int64_t blocks = dValue / FRACTAL;
    int64_t piece = FRACTAL * width;                       /* one fractal row: 16 elements */
    int64_t src_matrix = srcNdMatrixStride * 256 * width, src_block = srcNStride * FRACTAL * width;
    int64_t dst_matrix = dstNdMatrixStride * width, dst_row = dstDStride * width;
    int64_t src_end = 0, dst_end = 0;                      /* ndNum = 0: an empty move touches nothing */
    if (ndNum > 0) {
        src_end = (ndNum - 1) * src_matrix + (blocks - 1) * src_block + nValue * piece;
        dst_end = (ndNum - 1) * dst_matrix + (nValue - 1) * dst_row + dValue * width;
    }

    /* data_copy_nz2nd.src.bounds / data_copy_nz2nd.dst.bounds: every fractal row read and every ND row
     * written lies inside the tensor given. */
    if (rule_bounds(o, "data_copy_nz2nd.src.bounds", "src", &src, 0, src_end) ||
        rule_bounds(o, "data_copy_nz2nd.dst.bounds", "dst", &dst, 0, dst_end))
        return;

    /* data_copy_nz2nd.src.capacity: the LocalTensor lies inside the product's UB. */
    if (rule_capacity(o, "data_copy_nz2nd.src.capacity", "src", &src, p))
        return;

    /* data_copy_nz2nd.dst.rows_overlap (severity undefined): destination rows that share bytes get
     * whatever the row-by-row copy below leaves; nothing to refuse. */

    o->kind = OUT_OK;
    if (ndNum == 0)
        return;
    const uint8_t *s;
    uint8_t *d;
    if (!move_images(o, resolve, ctx, &src, src_end, &dst, dst_end, &s, &d))
        return;
    for (int64_t i = 0; i < ndNum; i++)
        for (int64_t r = 0; r < nValue; r++)         /* ND row r: one fractal row of each column block */
            copy_runs(d + i * dst_matrix + r * dst_row, piece, s + i * src_matrix + r * piece, src_block, blocks, piece);
}
