/* c-sim: shared types of the simulator (the per-product tables, tensors, outcomes, rule checks). */
#ifndef CSIM_SIM_H
#define CSIM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* ---- scopes and dtypes (specs/dtypes.yaml) -------------------------------------------------------- */
typedef enum { SCOPE_GM, SCOPE_UB, SCOPE_L1, SCOPE_COUNT } scope_id;
extern const char *const SCOPE_NAMES[SCOPE_COUNT];   /* "GM", "UB", "L1" (GM is TIK's OUT) */

typedef struct {
    const char *name;
    int bytes;
} dtype_info;

const dtype_info *dtype_find(const char *name, size_t len);

/* ---- products (specs/products.yaml) --------------------------------------------------------------- */
typedef struct {
    const char *id;
    int64_t block_bytes;
    int64_t ub_bytes;        /* 0: the product has no UB */
    int64_t l1_bytes;        /* 0: the product has no L1 */
} product_info;

const product_info *product_find(const char *name, size_t len);
/* Size of a UB / L1 buffer on the product; -1 for GM (outside the core, no size); 0 for none. */
int64_t product_capacity(const product_info *p, scope_id scope);

/* ---- a call ---------------------------------------------------------------------------------------- */
typedef struct {
    scope_id scope;
    int64_t addr;            /* byte offset inside the scope's image */
    const dtype_info *dtype;
    int64_t numel;
} tensor;

typedef enum { OUT_OK, OUT_REJECTED, OUT_ERROR } outcome_kind;

typedef struct {
    outcome_kind kind;
    const char *rule;        /* OUT_REJECTED: the spec rule id */
    char message[320];
} outcome;

void set_rejected(outcome *o, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void set_error(outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reading arguments (each returns 0 and sets an error outcome when the argument is malformed). */
int arg_tensor(outcome *o, const jvalue *args, const char *name, tensor *t);
int arg_int(outcome *o, const jvalue *obj, const char *where, const char *name, int64_t *out);
int arg_bool(outcome *o, const jvalue *obj, const char *where, const char *name, int *out);
/* A member that is an object of parameters (intriParams, repeatParams, ...): NULL and an error outcome
 * when it is missing or not an object. */
const jvalue *arg_object(outcome *o, const jvalue *args, const char *name, const char *what);

/* ---- memory images --------------------------------------------------------------------------------- */
typedef struct {
    uint8_t *base[SCOPE_COUNT];   /* NULL: the request gave no image for that scope */
    int64_t size[SCOPE_COUNT];
} images;

/* Byte range [lo, hi) of a scope image that a legal call touches: 0 and an error outcome when it falls
 * outside the image the kit gave (or the image is missing). */
int image_span(outcome *o, const images *m, const char *label, const tensor *t, int64_t lo, int64_t hi);

/* ---- rule checks shared by the APIs (rule kinds of specs/README.md) ------------------------------- */
/* Each returns 1 when the call breaks the rule (and fills the outcome as a rejection). */
int rule_range(outcome *o, const char *rule, const char *param, int64_t value, int64_t min, int64_t max);
int rule_align(outcome *o, const char *rule, const char *label, const tensor *t, scope_id scope, int64_t bytes);
/* bounds: bytes [begin, end) (relative to the tensor's addr) the call accesses must lie in the tensor. */
int rule_bounds(outcome *o, const char *rule, const char *label, const tensor *t, int64_t begin, int64_t end);
/* capacity: a tensor in UB / L1 lies inside that buffer of the product, which must have one. */
int rule_capacity(outcome *o, const char *rule, const char *label, const tensor *t, const product_info *p);
/* dtype: dst, then src, has a dtype of the product's list (`*_ok`: whether each has). */
int rule_dtypes(outcome *o, const char *rule, const tensor *dst, int dst_ok, const tensor *src, int src_ok,
                const product_info *p);
/* same_dtype: dst and src have one dtype. */
int rule_same_dtype(outcome *o, const char *rule, const tensor *dst, const tensor *src);
/* The dtype list of the Ascend C pages (ND2NZ, slices) for the product: 1 on Atlas A2 / A3 (bfloat16
 * included), 2 on the inference series' AI Core, 0 on a product those pages do not support. */
int core_dtypes(const product_info *p, const char *const **names, size_t *n);
/* Is `name` one of the first n of `names`? */
int name_in(const char *const *names, size_t n, const char *name);

int64_t sat_add(int64_t a, int64_t b);   /* a + b, saturating (a, b >= 0) */
int64_t sat_mul(int64_t a, int64_t b);   /* a * b, saturating (a, b >= 0) */
int64_t tensor_bytes(const tensor *t);   /* numel * width, saturating */
/* One past the last byte of `count` runs of `length` bytes, run k at k * step (step >= 0); 0 when the
 * runs touch nothing (no run, or runs of no byte). */
int64_t runs_end(int64_t step, int64_t count, int64_t length);
int64_t round_up(int64_t value, int64_t unit);   /* value >= 0 rounded up to a multiple of unit */

/* `count` runs of `length` bytes, run k at src + k * src_step, copied to dst + k * dst_step, in order
 * (memmove: a run that overlaps its own source is still copied whole). Shared by every API. */
void copy_runs(uint8_t *dst, int64_t dst_step, const uint8_t *src, int64_t src_step, int64_t count, int64_t length);

/* ---- the iteration mask (mask.c; specs/masks.yaml) ----------------------------------------------- */
typedef struct {
    int bits;                /* 1: bit mode (a list of words); 0: count mode (one integer) */
    uint64_t words[2];       /* bit mode: the first two words; count mode: words[0] is the count */
    int nwords;              /* words given */
    int fits;                /* every word given is in [0, 2^64 - 1] */
} mask_value;

/* call.args.mask in the mode the form reads it: 0 and an error outcome when it is malformed. */
int mask_read(outcome *o, const jvalue *args, int bits, mask_value *m);
/* Does the mask select element e (0-based) of an iteration? */
int mask_selects(const mask_value *m, int64_t e);
/* The last element of an iteration of `per` the mask selects; -1 when none. */
int64_t mask_last(const mask_value *m, int64_t per);

/* ---- the APIs ------------------------------------------------------------------------------------- */
/* Check the call against every `reject` rule of the spec, then (legal or undefined) run it on the
 * images. `mem` is resolved only once the checks pass: a refused call never touches memory. */
typedef int (*resolve_images)(void *ctx, outcome *o, images *m);
/* A legal move's images resolved, its src bytes [0, src_end) and dst bytes [0, dst_end) found inside
 * them: 1 with the tensors' first bytes in *s and *d, or 0 (the outcome says why). */
int move_images(outcome *o, resolve_images resolve, void *ctx, const tensor *src, int64_t src_end,
                const tensor *dst, int64_t dst_end, const uint8_t **s, uint8_t **d);

void api_data_move(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx);
void api_data_copy_nz2nd(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx);
void api_data_copy_nd2nz(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx);
/* DataCopy by SliceInfo (GM <-> UB): a single form. */
void api_data_copy_slice(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx);
/* The APIs with several forms (call.form, a string): DataCopy `count` | `params`, DataCopyPad
 * `gm_to_ub` | `ub_to_gm`. */
void api_data_copy(outcome *o, const product_info *p, const char *form, const jvalue *args, resolve_images resolve,
                   void *ctx);
void api_data_copy_pad(outcome *o, const product_info *p, const char *form, const jvalue *args,
                       resolve_images resolve, void *ctx);
/* Copy (UB -> UB, masked): `mask_bits` | `mask_continuous`; Gather: `count` | `mask_bits` | `mask_continuous`. */
void api_copy(outcome *o, const product_info *p, const char *form, const jvalue *args, resolve_images resolve,
              void *ctx);
/* Gatherb: a single form. */
void api_gatherb(outcome *o, const product_info *p, const jvalue *args, resolve_images resolve, void *ctx);
void api_gather(outcome *o, const product_info *p, const char *form, const jvalue *args, resolve_images resolve,
                void *ctx);

#endif
