/* A small JSON reader and writer: see json.h. Written for c-sim; no third-party code. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== arena ========================================================================================= */

struct arena_chunk {
    arena_chunk *next;
    size_t used, size;
    max_align_t data[];     /* the bytes handed out */
};

enum { ARENA_CHUNK = 64 * 1024 };

void *arena_alloc(arena *a, size_t n)
{
    size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    arena_chunk *c = a->head;
    if (c == NULL || c->size - c->used < n) {
        size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        c = malloc(sizeof(arena_chunk) + size);
        if (c == NULL)
            return NULL;
        c->next = a->head;
        c->used = 0;
        c->size = size;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

void arena_free(arena *a)
{
    arena_chunk *c = a->head;
    while (c != NULL) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
}

/* ==== reader ======================================================================================== */

enum { MAX_DEPTH = 200 };   /* nesting deeper than this is refused, so the recursion cannot overflow */

typedef struct {
    const char *p, *end;
    arena *a;
    int depth;
    char *err;
    size_t errlen;
    int failed;
} parser;

static void fail(parser *ps, const char *what)
{
    if (!ps->failed) {
        ps->failed = 1;
        snprintf(ps->err, ps->errlen, "%s", what);
    }
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static jvalue *new_value(parser *ps, jtype type)
{
    jvalue *v = arena_alloc(ps->a, sizeof *v);
    if (v == NULL) {
        fail(ps, "out of memory");
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = type;
    return v;
}

static int hex4(parser *ps, unsigned *out)
{
    unsigned v = 0;
    if (ps->end - ps->p < 4) {
        fail(ps, "truncated \\u escape");
        return 0;
    }
    for (int i = 0; i < 4; i++) {
        char c = *ps->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else {
            fail(ps, "bad hex digit in \\u escape");
            return 0;
        }
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Parses a string starting at the opening quote; the decoded bytes go to the arena. */
static int parse_string(parser *ps, const char **out, size_t *outlen)
{
    ps->p++;                                            /* the opening quote */
    const char *q = ps->p;
    while (q < ps->end && *q != '"') {                  /* decoded text is never longer than the raw one */
        if (*q == '\\' && q + 1 < ps->end)
            q++;
        q++;
    }
    char *buf = arena_alloc(ps->a, (size_t)(q - ps->p) + 1);
    if (buf == NULL) {
        fail(ps, "out of memory");
        return 0;
    }
    size_t n = 0;
    for (;;) {
        if (ps->p >= ps->end) {
            fail(ps, "unterminated string");
            return 0;
        }
        unsigned char c = (unsigned char)*ps->p++;
        if (c == '"')
            break;
        if (c < 0x20) {
            fail(ps, "control character in string");
            return 0;
        }
        if (c != '\\') {
            buf[n++] = (char)c;
            continue;
        }
        if (ps->p >= ps->end) {
            fail(ps, "unterminated escape");
            return 0;
        }
        char e = *ps->p++;
        switch (e) {
        case '"': buf[n++] = '"'; break;
        case '\\': buf[n++] = '\\'; break;
        case '/': buf[n++] = '/'; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (!hex4(ps, &cp))
                return 0;
            if (cp >= 0xD800 && cp <= 0xDBFF && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
                const char *save = ps->p;
                unsigned lo;
                ps->p += 2;
                if (!hex4(ps, &lo))
                    return 0;
                if (lo >= 0xDC00 && lo <= 0xDFFF)
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                else
                    ps->p = save;                       /* a lone high surrogate, then another escape */
            }
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp = 0xFFFD;                            /* a lone surrogate: the replacement character */
            n += put_utf8(buf + n, cp);                 /* \uXXXX is 6 raw bytes, at most 4 decoded */
            break;
        }
        default:
            fail(ps, "bad escape in string");
            return 0;
        }
    }
    buf[n] = '\0';
    *out = buf;
    *outlen = n;
    return 1;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static jvalue *parse_number(parser *ps)
{
    const char *start = ps->p;
    int negative = 0, real = 0;
    if (ps->p < ps->end && *ps->p == '-') {
        negative = 1;
        ps->p++;
    }
    if (ps->p >= ps->end || !is_digit(*ps->p)) {
        fail(ps, "bad number");
        return NULL;
    }
    if (*ps->p == '0')
        ps->p++;
    else
        while (ps->p < ps->end && is_digit(*ps->p))
            ps->p++;
    const char *int_end = ps->p;
    if (ps->p < ps->end && *ps->p == '.') {
        real = 1;
        ps->p++;
        if (ps->p >= ps->end || !is_digit(*ps->p)) {
            fail(ps, "bad number");
            return NULL;
        }
        while (ps->p < ps->end && is_digit(*ps->p))
            ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        real = 1;
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (ps->p >= ps->end || !is_digit(*ps->p)) {
            fail(ps, "bad number");
            return NULL;
        }
        while (ps->p < ps->end && is_digit(*ps->p))
            ps->p++;
    }
    jvalue *v = new_value(ps, real ? J_REAL : J_INT);
    if (v == NULL)
        return NULL;
    if (real) {
        char tmp[64];
        size_t n = (size_t)(ps->p - start);
        if (n >= sizeof tmp)
            n = sizeof tmp - 1;
        memcpy(tmp, start, n);
        tmp[n] = '\0';
        v->real = strtod(tmp, NULL);
        return v;
    }
    /* As a uint64_t, where the literal is one (a mask word may use all 64 bits). */
    v->word_ok = !negative;
    for (const char *d = start; d < int_end && v->word_ok; d++) {
        uint64_t digit = (uint64_t)(*d - '0');
        if (v->word > (UINT64_MAX - digit) / 10)
            v->word_ok = 0;
        else
            v->word = v->word * 10 + digit;
    }
    /* Accumulate as a negative number so that INT64_MIN fits; saturate on overflow. */
    int64_t acc = 0;
    for (const char *d = start + negative; d < int_end; d++) {
        int digit = *d - '0';
        if (acc < (INT64_MIN + digit) / 10) {
            v->big = 1;
            acc = INT64_MIN;
            break;
        }
        acc = acc * 10 - digit;
    }
    if (negative)
        v->integer = acc;
    else if (acc == INT64_MIN) {
        v->integer = INT64_MAX;
        v->big = 1;
    } else
        v->integer = -acc;
    return v;
}

static int literal(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) {
        fail(ps, "unexpected character");
        return 0;
    }
    ps->p += n;
    return 1;
}

static jvalue *parse_value(parser *ps);

static jvalue *parse_container(parser *ps, int object)
{
    jvalue *v = new_value(ps, object ? J_OBJECT : J_ARRAY);
    if (v == NULL)
        return NULL;
    if (++ps->depth > MAX_DEPTH) {
        fail(ps, "nesting too deep");
        return NULL;
    }
    char close = object ? '}' : ']';
    jvalue **tail = &v->first;
    ps->p++;                                            /* '{' or '[' */
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        ps->depth--;
        return v;
    }
    for (;;) {
        const char *key = NULL;
        size_t keylen = 0;
        skip_ws(ps);
        if (object) {
            if (ps->p >= ps->end || *ps->p != '"') {
                fail(ps, "expected a string key");
                return NULL;
            }
            if (!parse_string(ps, &key, &keylen))
                return NULL;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                fail(ps, "expected ':'");
                return NULL;
            }
            ps->p++;
        }
        jvalue *child = parse_value(ps);
        if (child == NULL)
            return NULL;
        child->key = key;
        child->keylen = keylen;
        *tail = child;
        tail = &child->next;
        v->count++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            break;
        }
        fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
        return NULL;
    }
    ps->depth--;
    return v;
}

static jvalue *parse_value(parser *ps)
{
    skip_ws(ps);
    if (ps->p >= ps->end) {
        fail(ps, "unexpected end of input");
        return NULL;
    }
    jvalue *v;
    switch (*ps->p) {
    case '{':
        return parse_container(ps, 1);
    case '[':
        return parse_container(ps, 0);
    case '"':
        v = new_value(ps, J_STRING);
        if (v == NULL || !parse_string(ps, &v->str, &v->len))
            return NULL;
        return v;
    case 't':
        if (!literal(ps, "true") || (v = new_value(ps, J_BOOL)) == NULL)
            return NULL;
        v->boolean = 1;
        return v;
    case 'f':
        if (!literal(ps, "false") || (v = new_value(ps, J_BOOL)) == NULL)
            return NULL;
        return v;
    case 'n':
        if (!literal(ps, "null"))
            return NULL;
        return new_value(ps, J_NULL);
    default:
        if (*ps->p == '-' || is_digit(*ps->p))
            return parse_number(ps);
        fail(ps, "unexpected character");
        return NULL;
    }
}

jvalue *json_parse(arena *a, const char *text, size_t len, char *err, size_t errlen)
{
    parser ps = {text, text + len, a, 0, err, errlen, 0};
    jvalue *v = parse_value(&ps);
    if (v != NULL) {
        skip_ws(&ps);
        if (ps.p != ps.end) {
            fail(&ps, "trailing characters after the JSON value");
            v = NULL;
        }
    }
    if (v == NULL && !ps.failed)
        snprintf(err, errlen, "malformed JSON");
    if (v == NULL && ps.failed) {                       /* say where: characters from the line's start */
        char what[160];
        snprintf(what, sizeof what, "%s", err);
        snprintf(err, errlen, "malformed JSON: %s at character %ld", what, (long)(ps.p - text));
    }
    return v;
}

const jvalue *json_get(const jvalue *v, const char *key)
{
    if (v == NULL || v->type != J_OBJECT)
        return NULL;
    size_t n = strlen(key);
    const jvalue *found = NULL;
    for (const jvalue *c = v->first; c != NULL; c = c->next)
        if (c->keylen == n && memcmp(c->key, key, n) == 0)
            found = c;                                  /* a repeated key: the last one counts */
    return found;
}

int json_is_str(const jvalue *v, const char *s)
{
    return v != NULL && v->type == J_STRING && v->len == strlen(s) && memcmp(v->str, s, v->len) == 0;
}

const char *json_type_name(const jvalue *v)
{
    if (v == NULL)
        return "missing";
    switch (v->type) {
    case J_NULL: return "null";
    case J_BOOL: return "a boolean";
    case J_INT: return "an integer";
    case J_REAL: return "a non-integer number";
    case J_STRING: return "a string";
    case J_ARRAY: return "an array";
    case J_OBJECT: return "an object";
    }
    return "?";
}

/* ==== writer ======================================================================================== */

void jb_init(jbuf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void jb_free(jbuf *b)
{
    free(b->data);
    jb_init(b);
}

void jb_reset(jbuf *b)
{
    b->len = 0;
    b->oom = 0;
    if (b->data != NULL)
        b->data[0] = '\0';
}

static int jb_reserve(jbuf *b, size_t extra)
{
    if (b->oom)
        return 0;
    if (b->len + extra + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (p == NULL) {
        b->oom = 1;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    return 1;
}

static void jb_bytes(jbuf *b, const char *s, size_t n)
{
    if (!jb_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void jb_raw(jbuf *b, const char *s)
{
    jb_bytes(b, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 if it is not one. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

void jb_string(jbuf *b, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    jb_bytes(b, "\"", 1);
    for (size_t i = 0; i < len;) {
        unsigned char c = u[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            jb_bytes(b, esc, 2);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            const char *named = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t"
                              : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
            if (named != NULL)
                jb_raw(b, named);
            else {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                jb_raw(b, esc);
            }
            i++;
        } else {
            size_t n = utf8_seq(u + i, len - i);
            if (n == 0) {                               /* not UTF-8: never send invalid text */
                jb_raw(b, "\\ufffd");
                i++;
            } else {
                jb_bytes(b, s + i, n);
                i += n;
            }
        }
    }
    jb_bytes(b, "\"", 1);
}

void jb_cstring(jbuf *b, const char *s)
{
    if (s == NULL)
        jb_raw(b, "null");
    else
        jb_string(b, s, strlen(s));
}

void jb_int(jbuf *b, int64_t v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    jb_raw(b, tmp);
}

void jb_value(jbuf *b, const jvalue *v)
{
    if (v == NULL) {
        jb_raw(b, "null");
        return;
    }
    switch (v->type) {
    case J_NULL: jb_raw(b, "null"); break;
    case J_BOOL: jb_raw(b, v->boolean ? "true" : "false"); break;
    case J_INT: jb_int(b, v->integer); break;
    case J_REAL: {
        char tmp[40];
        snprintf(tmp, sizeof tmp, "%.17g", v->real);
        if (strchr(tmp, 'n') || strchr(tmp, 'i'))       /* nan / inf have no JSON spelling */
            jb_raw(b, "null");
        else
            jb_raw(b, tmp);
        break;
    }
    case J_STRING: jb_string(b, v->str, v->len); break;
    case J_ARRAY:
    case J_OBJECT: {
        jb_raw(b, v->type == J_ARRAY ? "[" : "{");
        for (const jvalue *c = v->first; c != NULL; c = c->next) {
            if (c != v->first)
                jb_raw(b, ",");
            if (v->type == J_OBJECT) {
                jb_string(b, c->key, c->keylen);
                jb_raw(b, ":");
            }
            jb_value(b, c);
        }
        jb_raw(b, v->type == J_ARRAY ? "]" : "}");
        break;
    }
    }
}
