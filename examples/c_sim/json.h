/* A small JSON reader and writer for the exec protocol (docs/exec-protocol.md).
 *
 * Reader: a recursive-descent parser of one JSON text into a tree allocated from an arena (freed all at
 * once after each request). It knows objects, arrays, strings (with every escape, \uXXXX surrogate pairs
 * included, decoded to UTF-8), numbers, true, false and null. An integer literal is kept as an int64_t;
 * one too large for it is saturated and flagged `big` (every range check then refuses it). A literal in
 * [0, 2^64 - 1] is also kept as a uint64_t (`word`: a 64-bit mask word).
 *
 * Writer: a growable byte buffer with helpers that escape strings properly.
 */
#ifndef CSIM_JSON_H
#define CSIM_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum { J_NULL, J_BOOL, J_INT, J_REAL, J_STRING, J_ARRAY, J_OBJECT } jtype;

typedef struct jvalue jvalue;
struct jvalue {
    jtype type;
    int boolean;            /* J_BOOL */
    int64_t integer;        /* J_INT */
    int big;                /* J_INT: the literal did not fit in int64_t (integer is saturated) */
    uint64_t word;          /* J_INT: the literal as a uint64_t (a 64-bit mask word), when word_ok */
    int word_ok;            /* J_INT: the literal is in [0, 2^64 - 1] */
    double real;            /* J_REAL: a number with a fraction or an exponent */
    const char *str;        /* J_STRING: decoded bytes, NUL-terminated (may hold NULs: see len) */
    size_t len;
    size_t count;           /* J_ARRAY / J_OBJECT: number of children */
    jvalue *first;          /* first child */
    jvalue *next;           /* next sibling */
    const char *key;        /* member of an object: its key (decoded, NUL-terminated) */
    size_t keylen;
};

/* ---- arena ---------------------------------------------------------------------------------------- */
typedef struct arena_chunk arena_chunk;
typedef struct {
    arena_chunk *head;
} arena;

void *arena_alloc(arena *a, size_t n);   /* NULL when out of memory */
void arena_free(arena *a);

/* ---- reader --------------------------------------------------------------------------------------- */
/* Parses text[0..len) as exactly one JSON value (whitespace around it allowed). Returns NULL and writes a
 * message to err on malformed input or when out of memory. */
jvalue *json_parse(arena *a, const char *text, size_t len, char *err, size_t errlen);

/* Member `key` of an object (NULL when v is not an object or has no such member). */
const jvalue *json_get(const jvalue *v, const char *key);
/* Is v a string equal to s? */
int json_is_str(const jvalue *v, const char *s);
const char *json_type_name(const jvalue *v);

/* ---- writer --------------------------------------------------------------------------------------- */
typedef struct {
    char *data;
    size_t len, cap;
    int oom;                /* set when an allocation failed; the buffer then holds a truncated text */
} jbuf;

void jb_init(jbuf *b);
void jb_free(jbuf *b);
void jb_reset(jbuf *b);
void jb_raw(jbuf *b, const char *s);                  /* appends s verbatim */
void jb_string(jbuf *b, const char *s, size_t len);   /* appends s as a quoted, escaped JSON string */
void jb_cstring(jbuf *b, const char *s);              /* same for a NUL-terminated s (NULL -> null) */
void jb_int(jbuf *b, int64_t v);
void jb_value(jbuf *b, const jvalue *v);              /* writes a parsed value back (NULL -> null) */

#endif
