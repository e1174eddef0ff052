/* c-sim: Ascend C DataCopy(dst, src, SliceInfo dstSliceInfo[], SliceInfo srcSliceInfo[], dimValue), GM -> UB
 * and UB -> GM by slices (asc-devkit GM与UB切片数据搬运(DataCopy).md, spec specs/data_copy_slice.yaml).
 *
 * Each side is a tensor of dimValue dimensions, dimension 0 (a row's elements) first: element (i_0, i_1, ...)
 * is element i_0 + i_1 * shapeValue_0 + i_2 * shapeValue_0 * shapeValue_1 + ... of the tensor. Dimension 0
 * holds N slices of burstLen DataBlocks (32 bytes), the j-th from startIndex + j * (slice + stride) elements,
 * where endIndex - startIndex + 1 = (N - 1) * stride + N * burstLen * 32 / sizeof(T); a dimension above 0
 * holds the indices startIndex + k * (1 + stride) up to endIndex (the page's {0, 2, 1, 1, 3}: rows 0 and 2).
 * The source's counts decide how many slices move; the j-th slice of the source (dimension 0 fastest) lands
 * on the j-th slice of the destination.
 *
 * Where the page reads two ways, this simulator follows (and main.c declares): a dimension above 0 selects
 * single indices (data_copy_slice.formula.higher_dims = per_index), and dimension 0's burstLen is the slice's
 * length whatever dimValue is (data_copy_slice.burstLen.first_dim = first_dim).
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

enum { DATABLOCK = 32, MAX_DIMS = 8 };

/* 产品支持情况 and 数据类型 (core_dtypes): the rule naming the product's dtype list; NULL where the page
 * does not support the product. */
static const char *dtype_rule_of(const product_info *p, const char *const **names, size_t *n)
{
    switch (core_dtypes(p, names, n)) {
    case 1:
        return "data_copy_slice.dtype.supported";
    case 2:
        return "data_copy_slice.dtype.supported_310p";
    default:
        return NULL;
    }
}

/* SliceInfo in the struct's order (表3). */
enum { START, END, STRIDE, BURST, SHAPE, FIELDS };
static const char *const FIELD[FIELDS] = {"startIndex", "endIndex", "stride", "burstLen", "shapeValue"};

typedef struct {
    int64_t v[MAX_DIMS][FIELDS];
    int64_t n;                  /* entries given (at most MAX_DIMS + 1 are read) */
} slice_list;

/* A SliceInfo[] argument: 0 and an error outcome when it is not an array of objects of five integers. */
static int read_list(outcome *o, const jvalue *args, const char *name, slice_list *l)
{
    const jvalue *arr = json_get(args, name);
    char where[64];
    if (arr == NULL || arr->type != J_ARRAY) {
        set_error(o, "call.args.%s: expected a list of SliceInfo", name);
        return 0;
    }
    l->n = (int64_t)arr->count;
    int64_t i = 0;
    for (const jvalue *e = arr->first; e != NULL && i < MAX_DIMS; e = e->next, i++) {
        snprintf(where, sizeof where, "call.args.%s[%lld]", name, (long long)i);
        if (e->type != J_OBJECT) {
            set_error(o, "%s: expected a SliceInfo object", where);
            return 0;
        }
        for (int f = 0; f < FIELDS; f++)
            if (!arg_int(o, e, where, FIELD[f], &l->v[i][f]))
                return 0;
    }
    return 1;
}

/* The pieces a dimension holds: span + stride = N * (piece + stride), rounded down. */
static int64_t pieces(const int64_t *e, int64_t piece)
{
    int64_t whole = piece + e[STRIDE];
    return whole > 0 ? (e[END] - e[START] + 1 + e[STRIDE]) / whole : 0;
}

/* Do the entries of one list satisfy the page's sentences about them? 1 (and a rejection) when not. */
static int check_entries(outcome *o, const slice_list *l, int64_t dims, int64_t per, const char *name)
{
    for (int64_t i = 0; i < dims; i++) {
        const int64_t *e = l->v[i];
        int64_t piece = i == 0 ? e[BURST] * per : 1;
        if (!(e[START] < e[END] && e[END] <= e[SHAPE])) {
            set_rejected(o, "data_copy_slice.order", "%s[%lld]: startIndex < endIndex <= shapeValue does not hold",
                         name, (long long)i);
            return 1;
        }
        if (i == 0 && e[BURST] < 1) {
            set_rejected(o, "data_copy_slice.burstLen.positive", "%s[0].burstLen is 0", name);
            return 1;
        }
        if (i > 0 && e[BURST] != 1) {
            set_rejected(o, "data_copy_slice.burstLen.one", "%s[%lld].burstLen must be 1", name, (long long)i);
            return 1;
        }
        if ((e[END] - e[START] + 1 + e[STRIDE]) % (piece + e[STRIDE]) != 0) {
            set_rejected(o, i == 0 ? "data_copy_slice.formula" : "data_copy_slice.rows.formula",
                         "%s[%lld]: no whole number of slices", name, (long long)i);
            return 1;
        }
    }
    return 0;
}

/* Element offset of slice `k` (dimension 0 fastest) of a list, and the pitch of each dimension. */
static int64_t slice_at(const slice_list *l, int64_t dims, const int64_t *count, int64_t piece, int64_t k)
{
    int64_t at = 0, pitch = 1;
    for (int64_t i = 0; i < dims; i++) {
        const int64_t *e = l->v[i];
        int64_t idx = k % count[i], step = i == 0 ? piece + e[STRIDE] : 1 + e[STRIDE];
        k /= count[i];
        at += (e[START] + idx * step) * pitch;
        pitch *= e[SHAPE];
    }
    return at;
}

/* Element offset of the slice whose index in each dimension is idx[i]. */
static int64_t slice_end(const slice_list *l, int64_t dims, const int64_t *idx, int64_t piece)
{
    int64_t at = 0, pitch = 1;
    for (int64_t i = 0; i < dims; i++) {
        const int64_t *e = l->v[i];
        int64_t step = i == 0 ? piece + e[STRIDE] : 1 + e[STRIDE];
        at = sat_add(at, sat_mul(sat_add(e[START], sat_mul(idx[i], step)), pitch));
        pitch = sat_mul(pitch, e[SHAPE]);
    }
    return at;
}

void api_data_copy_slice(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx)
{
    tensor dst, src;
    int64_t dims;
    static slice_list dl, sl;
    if (!arg_tensor(o, args, "dst", &dst) || !arg_tensor(o, args, "src", &src) ||
        !arg_int(o, args, "call.args", "dimValue", &dims) || !read_list(o, args, "dstSliceInfo", &dl) ||
        !read_list(o, args, "srcSliceInfo", &sl))
        return;
    const char *const *dtypes;
    size_t n_dtypes;
    const char *dtype_rule;
    if ((dtype_rule = dtype_rule_of(p, &dtypes, &n_dtypes)) == NULL) {
        set_rejected(o, "data_copy_slice.product.supported", "data_copy_slice is not supported on %s", p->id);
        return;
    }
    if (!((src.scope == SCOPE_GM && dst.scope == SCOPE_UB) || (src.scope == SCOPE_UB && dst.scope == SCOPE_GM))) {
        set_rejected(o, "data_copy_slice.path.supported", "path %s->%s is not supported (GM->UB, UB->GM)",
                     SCOPE_NAMES[src.scope], SCOPE_NAMES[dst.scope]);
        return;
    }
    if (rule_dtypes(o, dtype_rule, &dst, name_in(dtypes, n_dtypes, dst.dtype->name), &src,
                    name_in(dtypes, n_dtypes, src.dtype->name), p) ||
        rule_same_dtype(o, "data_copy_slice.dtype.same", &dst, &src) ||
        rule_align(o, "data_copy_slice.dst.align.UB", "dst", &dst, SCOPE_UB, 32) ||
        rule_align(o, "data_copy_slice.src.align.UB", "src", &src, SCOPE_UB, 32) ||
        rule_range(o, "data_copy_slice.dimValue.range", "dimValue", dims, 1, MAX_DIMS))
        return;
    if (dl.n != dims || sl.n != dims) {
        set_rejected(o, "data_copy_slice.entries.dimValue", "the SliceInfo lists have %lld and %lld entries, dimValue %lld",
                     (long long)dl.n, (long long)sl.n, (long long)dims);
        return;
    }
    int64_t width = dst.dtype->bytes, per = DATABLOCK / width;
    if (check_entries(o, &dl, dims, per, "dstSliceInfo") || check_entries(o, &sl, dims, per, "srcSliceInfo"))
        return;
    for (int64_t i = 0; i < dims; i++)
        if (dl.v[i][BURST] != sl.v[i][BURST]) {
            set_rejected(o, "data_copy_slice.burstLen.same", "burstLen of entry %lld differs", (long long)i);
            return;
        }

    /* how many move: the source's counts */
    int64_t count[MAX_DIMS], total = 1, piece = sl.v[0][BURST] * per;
    for (int64_t i = 0; i < dims; i++) {
        count[i] = pieces(sl.v[i], i == 0 ? piece : 1);
        total = sat_mul(total, count[i]);
    }
    /* the last byte each side reaches: every index at its last value (the steps are not negative) */
    int64_t last[MAX_DIMS];
    for (int64_t i = 0; i < dims; i++)
        last[i] = count[i] > 0 ? count[i] - 1 : 0;
    int64_t src_end = total ? sat_mul(sat_add(slice_end(&sl, dims, last, piece), piece), width) : 0;
    int64_t dst_end = total ? sat_mul(sat_add(slice_end(&dl, dims, last, piece), piece), width) : 0;
    if (rule_bounds(o, "data_copy_slice.src.bounds", "src", &src, 0, src_end) ||
        rule_bounds(o, "data_copy_slice.dst.bounds", "dst", &dst, 0, dst_end) ||
        rule_capacity(o, "data_copy_slice.src.capacity", "src", &src, p) ||
        rule_capacity(o, "data_copy_slice.dst.capacity", "dst", &dst, p))
        return;

    o->kind = OUT_OK;
    if (total == 0 || piece == 0)
        return;
    const uint8_t *s;
    uint8_t *d;
    if (!move_images(o, resolve, ctx, &src, src_end, &dst, dst_end, &s, &d))
        return;
    for (int64_t k = 0; k < total; k++) {
        memcpy(d + slice_at(&dl, dims, count, piece, k) * width, s + slice_at(&sl, dims, count, piece, k) * width,
               (size_t)(piece * width));
    }
}
