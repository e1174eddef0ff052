/* c-sim: TIK data_move (vendor page 001_e45651b2d591d11d.txt, spec specs/data_move.yaml).
 *
 *   data_move(dst, src, sid, nburst, burst, src_stride, dst_stride)
 *
 * nburst bursts of `burst` units; src_stride / dst_stride are the gap "from the tail of one burst to the
 * head of the next" (前 burst 尾与后 burst 头), so burst k starts k * (burst + stride) units after the
 * operand's address. Every unit on every path of the page's table is 32 bytes.
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

/* The page's table "src.scope | dst.scope | dtype | burst 单位 | src_stride 单位 | dst_stride 单位". */
typedef struct {
    scope_id src, dst;
    int64_t burst_unit, src_stride_unit, dst_stride_unit;
} dm_path;

static const dm_path PATH_TABLE[] = {
    {SCOPE_GM, SCOPE_L1, 32, 32, 32},   /* OUT | L1  | ... | 32B | 32B | 32B */
    {SCOPE_L1, SCOPE_GM, 32, 32, 32},   /* L1  | OUT | ... | 32B | 32B | 32B */
    {SCOPE_GM, SCOPE_UB, 32, 32, 32},   /* OUT | UB  | ... | 32B | 32B | 32B */
    {SCOPE_UB, SCOPE_GM, 32, 32, 32},   /* UB  | OUT | ... | 32B | 32B | 32B */
    {SCOPE_UB, SCOPE_UB, 32, 32, 32},   /* UB  | UB  | ... | 32B | 32B | 32B */
};
/* A path the table lacks is refused by data_move.path.supported; 32 B is what every row agrees on. */
static const dm_path DEFAULT_UNITS = {SCOPE_GM, SCOPE_GM, 32, 32, 32};

/* data_move.product.supported and data_move.path.supported: the products of "支持的型号" and, for each,
 * the paths of "功能说明". A product missing here does not have the API. */
typedef struct {
    const char *product;
    int npaths;
    struct { scope_id src, dst; } paths[5];
} dm_product;

#define P(s, d) {SCOPE_##s, SCOPE_##d}
static const dm_product PRODUCT_TABLE[] = {
    {"ascend310",             4, {P(UB, UB), P(UB, GM), P(GM, UB), P(GM, L1)}},
    {"ascend910",             4, {P(UB, UB), P(UB, GM), P(GM, UB), P(GM, L1)}},
    {"ascend310p-aicore",     4, {P(UB, UB), P(UB, GM), P(GM, UB), P(GM, L1)}},
    {"ascend310p-vectorcore", 3, {P(UB, GM), P(UB, UB), P(GM, UB)}},
    {"ascend910b",            5, {P(UB, UB), P(UB, GM), P(GM, UB), P(GM, L1), P(L1, GM)}},
    {"ascend310b",            5, {P(UB, UB), P(UB, GM), P(GM, UB), P(GM, L1), P(L1, GM)}},
};
#undef P

/* data_move.dtype.supported: "uint8, int8, float16, uint16, int16, float32, int32, uint32, uint64, int64"
 * (the same list on every row of the table; no bfloat16). */
static const char *const DTYPES[] = {"uint8", "int8", "float16", "uint16", "int16",
                                     "float32", "int32", "uint32", "uint64", "int64"};

static int dtype_allowed(const dtype_info *d)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (strcmp(DTYPES[i], d->name) == 0)
            return 1;
    return 0;
}

static const dm_product *find_product(const product_info *p)
{
    for (size_t i = 0; i < sizeof PRODUCT_TABLE / sizeof PRODUCT_TABLE[0]; i++)
        if (strcmp(PRODUCT_TABLE[i].product, p->id) == 0)
            return &PRODUCT_TABLE[i];
    return NULL;
}

static const dm_path *units_of(scope_id src, scope_id dst)
{
    for (size_t i = 0; i < sizeof PATH_TABLE / sizeof PATH_TABLE[0]; i++)
        if (PATH_TABLE[i].src == src && PATH_TABLE[i].dst == dst)
            return &PATH_TABLE[i];
    return &DEFAULT_UNITS;
}

void api_data_move(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx)
{
    tensor dst, src;
    int64_t sid, nburst, burst, src_stride, dst_stride;
    if (!arg_tensor(o, args, "dst", &dst) || !arg_tensor(o, args, "src", &src) ||
        !arg_int(o, args, "call.args", "sid", &sid) || !arg_int(o, args, "call.args", "nburst", &nburst) ||
        !arg_int(o, args, "call.args", "burst", &burst) ||
        !arg_int(o, args, "call.args", "src_stride", &src_stride) ||
        !arg_int(o, args, "call.args", "dst_stride", &dst_stride))
        return;

    /* data_move.product.supported: "支持的型号" lists every product but the Atlas A3 ones. */
    const dm_product *prod = find_product(p);
    if (prod == NULL) {
        set_rejected(o, "data_move.product.supported", "data_move is not supported on %s", p->id);
        return;
    }

    /* data_move.path.supported: src.scope -> dst.scope must be one of the product's paths. */
    int path_ok = 0;
    for (int i = 0; i < prod->npaths; i++)
        if (prod->paths[i].src == src.scope && prod->paths[i].dst == dst.scope)
            path_ok = 1;
    if (!path_ok) {
        set_rejected(o, "data_move.path.supported", "path %s->%s is not supported on %s",
                     SCOPE_NAMES[src.scope], SCOPE_NAMES[dst.scope], p->id);
        return;
    }

    /* data_move.dtype.supported: src and dst each have a dtype of the table. */
    if (!dtype_allowed(src.dtype) || !dtype_allowed(dst.dtype)) {
        set_rejected(o, "data_move.dtype.supported", "%s has dtype %s, not one of the page's table",
                     dtype_allowed(src.dtype) ? "dst" : "src",
                     dtype_allowed(src.dtype) ? dst.dtype->name : src.dtype->name);
        return;
    }

    /* data_move.dtype.same: "src需与dst保持一致". */
    if (src.dtype != dst.dtype) {
        set_rejected(o, "data_move.dtype.same", "dtypes differ: src=%s, dst=%s", src.dtype->name, dst.dtype->name);
        return;
    }

    /* The scalar ranges, in the order of the page. sid 1..15 is an ambiguity of the spec
     * (data_move.sid.reserved): this simulator moves the same data for every sid in range. */
    if (rule_range(o, "data_move.sid.range", "sid", sid, 0, 15) ||
        rule_range(o, "data_move.nburst.range", "nburst", nburst, 1, 4095) ||
        rule_range(o, "data_move.burst.range", "burst", burst, 1, 65535) ||
        rule_range(o, "data_move.src_stride.range", "src_stride", src_stride, 0, 65535) ||
        rule_range(o, "data_move.dst_stride.range", "dst_stride", dst_stride, 0, 65535))
        return;

    /* Address alignment: L1 32 bytes, UB the product's block size. */
    if (rule_align(o, "data_move.dst.align.L1", "dst", &dst, SCOPE_L1, 32) ||
        rule_align(o, "data_move.dst.align.UB", "dst", &dst, SCOPE_UB, p->block_bytes) ||
        rule_align(o, "data_move.src.align.L1", "src", &src, SCOPE_L1, 32) ||
        rule_align(o, "data_move.src.align.UB", "src", &src, SCOPE_UB, p->block_bytes))
        return;

    /* The footprint: burst k of an operand covers [k * step, k * step + length) from its address. The
     * ranges above keep every product well inside int64_t. */
    const dm_path *u = units_of(src.scope, dst.scope);
    int64_t length = burst * u->burst_unit;
    int64_t src_step = length + src_stride * u->src_stride_unit;
    int64_t dst_step = length + dst_stride * u->dst_stride_unit;
    int64_t src_end = src_step * (nburst - 1) + length;
    int64_t dst_end = dst_step * (nburst - 1) + length;

    /* data_move.src.bounds / data_move.dst.bounds: no byte read or written outside the tensor given. */
    if (rule_bounds(o, "data_move.src.bounds", "src", &src, 0, src_end) ||
        rule_bounds(o, "data_move.dst.bounds", "dst", &dst, 0, dst_end))
        return;

    /* data_move.src.capacity / data_move.dst.capacity: a UB / L1 tensor lies inside that buffer. */
    if (rule_capacity(o, "data_move.src.capacity", "src", &src, p) ||
        rule_capacity(o, "data_move.dst.capacity", "dst", &dst, p))
        return;

    /* data_move.overlap (severity undefined): src and dst sharing bytes (UB->UB) is left to whatever the
     * burst-by-burst copy below does; nothing to refuse. */

    const uint8_t *s;
    uint8_t *d;
    if (!move_images(o, resolve, ctx, &src, src_end, &dst, dst_end, &s, &d))
        return;
    copy_runs(d, dst_step, s, src_step, nburst, length);
    o->kind = OUT_OK;
}
