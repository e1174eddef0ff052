/* c-sim: the per-product tables, argument reading and the rule checks the APIs share. */
#include "sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const SCOPE_NAMES[SCOPE_COUNT] = {"GM", "UB", "L1"};

/* specs/dtypes.yaml: canonical name and width in bytes. */
static const dtype_info DTYPES[] = {
    {"int8", 1},    {"uint8", 1},   {"int16", 2},   {"uint16", 2},
    {"float16", 2}, {"bfloat16", 2}, {"int32", 4},  {"uint32", 4},
    {"float32", 4}, {"int64", 8},   {"uint64", 8},  {"float64", 8},
};

/* specs/products.yaml: block size, UB and L1 size in bytes (0 = no such buffer). */
static const product_info PRODUCTS[] = {
    /* id                      block  UB       L1 */
    {"ascend310",              32,    262144,  1048576},  /* Atlas 200/300/500 推理产品 */
    {"ascend910",              32,    262144,  1048576},  /* Atlas 训练系列产品 */
    {"ascend310p-aicore",      32,    262144,  1048576},  /* Atlas 推理系列产品 AI Core */
    {"ascend310p-vectorcore",  32,    262144,  0},        /* Atlas 推理系列产品 Vector Core: no L1 */
    {"ascend310b",             32,    253952,  1048576},  /* Atlas 200/500 A2 推理产品 (248 KB UB) */
    {"ascend910b",             32,    196608,  524288},   /* Atlas A2 训练系列产品 / Atlas 800I A2 */
    {"ascend910_93",           32,    196608,  524288},   /* Atlas A3 训练 / 推理系列产品 */
};

const dtype_info *dtype_find(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (strlen(DTYPES[i].name) == len && memcmp(DTYPES[i].name, name, len) == 0)
            return &DTYPES[i];
    return NULL;
}

const product_info *product_find(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof PRODUCTS / sizeof PRODUCTS[0]; i++)
        if (strlen(PRODUCTS[i].id) == len && memcmp(PRODUCTS[i].id, name, len) == 0)
            return &PRODUCTS[i];
    return NULL;
}

int64_t product_capacity(const product_info *p, scope_id scope)
{
    switch (scope) {
    case SCOPE_UB: return p->ub_bytes;
    case SCOPE_L1: return p->l1_bytes;
    default: return -1;
    }
}

/* ---- outcomes -------------------------------------------------------------------------------------- */

static void set_outcome(outcome *o, outcome_kind kind, const char *rule, const char *fmt, va_list ap)
{
    o->kind = kind;
    o->rule = rule;
    vsnprintf(o->message, sizeof o->message, fmt, ap);
}

void set_rejected(outcome *o, const char *rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_outcome(o, OUT_REJECTED, rule, fmt, ap);
    va_end(ap);
}

void set_error(outcome *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_outcome(o, OUT_ERROR, NULL, fmt, ap);
    va_end(ap);
}

/* ---- arithmetic ------------------------------------------------------------------------------------ */

int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

int64_t sat_mul(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

int64_t tensor_bytes(const tensor *t)
{
    return sat_mul(t->numel, t->dtype->bytes);
}

int64_t runs_end(int64_t step, int64_t count, int64_t length)
{
    if (count <= 0 || length <= 0)
        return 0;
    return sat_add(sat_mul(step, count - 1), length);
}

int64_t round_up(int64_t value, int64_t unit)
{
    return (value + unit - 1) / unit * unit;
}

/* ---- arguments ------------------------------------------------------------------------------------- */

int arg_int(outcome *o, const jvalue *obj, const char *where, const char *name, int64_t *out)
{
    const jvalue *v = json_get(obj, name);
    if (v == NULL || v->type != J_INT) {
        set_error(o, "%s.%s: expected an integer, got %s", where, name, json_type_name(v));
        return 0;
    }
    *out = v->integer;       /* a literal past int64 is saturated: every range check refuses it */
    return 1;
}

int arg_bool(outcome *o, const jvalue *obj, const char *where, const char *name, int *out)
{
    const jvalue *v = json_get(obj, name);
    if (v == NULL || v->type != J_BOOL) {
        set_error(o, "%s.%s: expected true or false, got %s", where, name, json_type_name(v));
        return 0;
    }
    *out = v->boolean;
    return 1;
}

const jvalue *arg_object(outcome *o, const jvalue *args, const char *name, const char *what)
{
    const jvalue *v = json_get(args, name);
    if (v == NULL || v->type != J_OBJECT) {
        set_error(o, "call.args.%s: expected an object with the %s fields, got %s", name, what, json_type_name(v));
        return NULL;
    }
    return v;
}

int arg_tensor(outcome *o, const jvalue *args, const char *name, tensor *t)
{
    const jvalue *v = json_get(args, name);
    char where[64];
    snprintf(where, sizeof where, "call.args.%s", name);
    if (v == NULL || v->type != J_OBJECT) {
        set_error(o, "%s: expected a tensor {scope, addr, dtype, numel}, got %s", where, json_type_name(v));
        return 0;
    }
    const jvalue *scope = json_get(v, "scope"), *dtype = json_get(v, "dtype");
    int found = 0;
    for (int s = 0; s < SCOPE_COUNT; s++)
        if (json_is_str(scope, SCOPE_NAMES[s])) {
            t->scope = (scope_id)s;
            found = 1;
        }
    if (!found) {
        set_error(o, "%s.scope: expected GM, UB or L1", where);
        return 0;
    }
    if (dtype == NULL || dtype->type != J_STRING || (t->dtype = dtype_find(dtype->str, dtype->len)) == NULL) {
        if (dtype != NULL && dtype->type == J_STRING)
            set_error(o, "%s.dtype: unknown dtype '%s'", where, dtype->str);
        else
            set_error(o, "%s.dtype: expected a dtype name, got %s", where, json_type_name(dtype));
        return 0;
    }
    if (!arg_int(o, v, where, "addr", &t->addr) || !arg_int(o, v, where, "numel", &t->numel))
        return 0;
    if (t->addr < 0 || t->numel < 0) {
        set_error(o, "%s: addr and numel must be non-negative", where);
        return 0;
    }
    return 1;
}

/* ---- memory ---------------------------------------------------------------------------------------- */

int image_span(outcome *o, const images *m, const char *label, const tensor *t, int64_t lo, int64_t hi)
{
    if (m->base[t->scope] == NULL) {
        set_error(o, "the request gives no %s image for %s", SCOPE_NAMES[t->scope], label);
        return 0;
    }
    int64_t a = sat_add(t->addr, lo), b = sat_add(t->addr, hi);
    if (a < 0 || b > m->size[t->scope]) {
        set_error(o, "%s touches bytes [%lld, %lld) of %s, outside the %lld-byte image the kit gave",
                  label, (long long)a, (long long)b, SCOPE_NAMES[t->scope], (long long)m->size[t->scope]);
        return 0;
    }
    return 1;
}

/* ---- rule kinds ------------------------------------------------------------------------------------ */

/* kind `range`: the parameter lies in [min, max]. */
int rule_range(outcome *o, const char *rule, const char *param, int64_t value, int64_t min, int64_t max)
{
    if (value >= min && value <= max)
        return 0;
    set_rejected(o, rule, "%s=%lld is outside [%lld, %lld]", param, (long long)value, (long long)min, (long long)max);
    return 1;
}

/* kind `align`: a tensor in `scope` starts at a multiple of `bytes`. */
int rule_align(outcome *o, const char *rule, const char *label, const tensor *t, scope_id scope, int64_t bytes)
{
    if (t->scope != scope || t->addr % bytes == 0)
        return 0;
    set_rejected(o, rule, "%s in %s at byte %lld is not %lld-byte aligned", label, SCOPE_NAMES[scope],
                 (long long)t->addr, (long long)bytes);
    return 1;
}

/* kind `bounds`: the accessed bytes stay inside the numel elements of the tensor. An access of no byte
 * (an empty move) is always inside. */
int rule_bounds(outcome *o, const char *rule, const char *label, const tensor *t, int64_t begin, int64_t end)
{
    int64_t size = tensor_bytes(t);
    if (end <= begin || (begin >= 0 && end <= size))
        return 0;
    set_rejected(o, rule, "%s is accessed at bytes [%lld, %lld) of a tensor of %lld bytes (%lld x %s)", label,
                 (long long)begin, (long long)end, (long long)size, (long long)t->numel, t->dtype->name);
    return 1;
}

/* kind `dtype`, of the two operands of a move: dst first, as the specs list them. */
int rule_dtypes(outcome *o, const char *rule, const tensor *dst, int dst_ok, const tensor *src, int src_ok,
                const product_info *p)
{
    if (dst_ok && src_ok)
        return 0;
    const tensor *bad = dst_ok ? src : dst;
    set_rejected(o, rule, "%s has dtype %s, not one of the dtypes of %s", dst_ok ? "src" : "dst", bad->dtype->name,
                 p->id);
    return 1;
}

/* kind `same_dtype`: one template parameter T for dst and src. */
int rule_same_dtype(outcome *o, const char *rule, const tensor *dst, const tensor *src)
{
    if (src->dtype == dst->dtype)
        return 0;
    set_rejected(o, rule, "dtypes differ: dst=%s, src=%s", dst->dtype->name, src->dtype->name);
    return 1;
}

int name_in(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n && names[i] != NULL; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* kind `capacity`: a tensor in UB / L1 ends inside that buffer; a product without the buffer refuses it. */
int rule_capacity(outcome *o, const char *rule, const char *label, const tensor *t, const product_info *p)
{
    int64_t cap = product_capacity(p, t->scope);
    if (cap < 0)
        return 0;                                           /* GM: no size */
    if (cap == 0) {
        set_rejected(o, rule, "%s has no %s", p->id, SCOPE_NAMES[t->scope]);
        return 1;
    }
    int64_t end = sat_add(t->addr, tensor_bytes(t));
    if (end <= cap)
        return 0;
    set_rejected(o, rule, "%s ends at byte %lld of %s, past its %lld bytes on %s", label, (long long)end,
                 SCOPE_NAMES[t->scope], (long long)cap, p->id);
    return 1;
}

/* ---- moving bytes ---------------------------------------------------------------------------------- */

void copy_runs(uint8_t *dst, int64_t dst_step, const uint8_t *src, int64_t src_step, int64_t count, int64_t length)
{
#ifdef PLANTED_BUG
    /* PLANTED BUG (built into c_sim_buggy only): the loop pre-decrements its counter, so it moves
     * count - 1 runs instead of count. data_move loses its last burst (a one-burst move writes nothing)
     * and DataCopy NZ->ND loses the last 16-element column block of every ND row. */
    while (--count > 0) {
#else
    while (count-- > 0) {
#endif
        memmove(dst, src, (size_t)length);
        dst += dst_step;
        src += src_step;
    }
}

int move_images(outcome *o, resolve_images resolve, void *ctx, const tensor *src, int64_t src_end,
                const tensor *dst, int64_t dst_end, const uint8_t **s, uint8_t **d)
{
    images m;
    if (!resolve(ctx, o, &m))
        return 0;
    if (!image_span(o, &m, "src", src, 0, src_end) || !image_span(o, &m, "dst", dst, 0, dst_end))
        return 0;
    *s = m.base[src->scope] + src->addr;
    *d = m.base[dst->scope] + dst->addr;
    return 1;
}

/* The dtype lists the Ascend C pages of the A2 / A3 products (with bfloat16) and of the inference series'
 * AI Core (without) give: ND2NZ and the slices move (数据类型). */
static const char *const CORE_DTYPES_A2[] = {"int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32",
                                             "uint32", "float32"};
static const char *const CORE_DTYPES_310P[] = {"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32",
                                               "float32"};

int core_dtypes(const product_info *p, const char *const **names, size_t *n)
{
    if (strcmp(p->id, "ascend910b") == 0 || strcmp(p->id, "ascend910_93") == 0) {
        *names = CORE_DTYPES_A2, *n = sizeof CORE_DTYPES_A2 / sizeof CORE_DTYPES_A2[0];
        return 1;
    }
    if (strcmp(p->id, "ascend310p-aicore") == 0) {
        *names = CORE_DTYPES_310P, *n = sizeof CORE_DTYPES_310P / sizeof CORE_DTYPES_310P[0];
        return 2;
    }
    return 0;
}
