/* c-sim: an example backend for ascend-conformance, speaking the kit's exec protocol version 1
 * (docs/exec-protocol.md): JSON lines on stdin / stdout, memory images in a shared file mapped here.
 *
 * It simulates nine data-movement APIs of Huawei Ascend NPUs, as their vendor pages and the kit's specs
 * describe them: TIK data_move (data_move.c), Ascend C DataCopy NZ -> ND (data_copy_nz2nd.c) and ND -> NZ
 * (data_copy_nd2nz.c), Ascend C DataCopy GM <-> UB / UB -> UB (data_copy.c), Ascend C DataCopyPad
 * (data_copy_pad.c), Ascend C Gather (gather.c), Ascend C Copy UB -> UB with a mask (copy.c), their masks
 * read by mask.c, Ascend C Gatherb (gatherb.c) and Ascend C DataCopy GM <-> UB by SliceInfo (data_copy_slice.c).
 * Build with `make` (c_sim, and c_sim_buggy with the planted bug described in README.md).
 */
#define _POSIX_C_SOURCE 200809L

#include "coverage.h"
#include "sim.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIM_NAME "c-sim"
#ifdef PLANTED_BUG
#define SIM_VERSION "1.0-planted-bug"
#else
#define SIM_VERSION "1.0"
#endif

/* ---- the shared memory file ------------------------------------------------------------------------ */

/* The mapping is kept from call to call and redone when the request names another file or size (or the
 * name now points at another file than the one mapped). */
static struct {
    char *file;
    int64_t size;
    uint8_t *base;
    dev_t dev;
    ino_t ino;
} g_map;

static void unmap(void)
{
    if (g_map.base != NULL)
        munmap(g_map.base, (size_t)g_map.size);
    free(g_map.file);
    memset(&g_map, 0, sizeof g_map);
}

static int map_file(outcome *o, const char *file, int64_t size)
{
    struct stat st;
    if (stat(file, &st) != 0) {
        set_error(o, "memory.file %s: cannot stat it", file);
        return 0;
    }
    if (g_map.base != NULL && g_map.size == size && strcmp(g_map.file, file) == 0 && st.st_dev == g_map.dev &&
        st.st_ino == g_map.ino)
        return 1;                                           /* the usual case: the same file as before */
    unmap();
    if (size <= 0 || (uint64_t)size > (uint64_t)SIZE_MAX) {
        set_error(o, "memory.size %lld is not a usable size", (long long)size);
        return 0;
    }
    if ((int64_t)st.st_size < size) {
        set_error(o, "memory.file %s holds %lld bytes, fewer than memory.size %lld", file, (long long)st.st_size,
                  (long long)size);
        return 0;
    }
    int fd = open(file, O_RDWR);
    if (fd < 0) {
        set_error(o, "memory.file %s: cannot open it read-write", file);
        return 0;
    }
    void *base = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        set_error(o, "memory.file %s: mmap of %lld bytes failed", file, (long long)size);
        return 0;
    }
    g_map.file = strdup(file);
    if (g_map.file == NULL) {
        munmap(base, (size_t)size);
        set_error(o, "out of memory");
        return 0;
    }
    g_map.base = base;
    g_map.size = size;
    g_map.dev = st.st_dev;
    g_map.ino = st.st_ino;
    return 1;
}

/* resolve_images for a request's "memory" object: map the file, locate each scope's image in it. */
static int resolve_memory(void *ctx, outcome *o, images *m)
{
    const jvalue *mem = ctx, *file = json_get(mem, "file"), *scopes = json_get(mem, "scopes");
    int64_t size;
    memset(m, 0, sizeof *m);
    if (mem == NULL || mem->type != J_OBJECT) {
        set_error(o, "memory: expected an object {file, size, scopes}, got %s", json_type_name(mem));
        return 0;
    }
    if (file == NULL || file->type != J_STRING || file->len == 0 || strlen(file->str) != file->len) {
        set_error(o, "memory.file: expected a file name");
        return 0;
    }
    if (!arg_int(o, mem, "memory", "size", &size))
        return 0;
    if (scopes == NULL || scopes->type != J_OBJECT) {
        set_error(o, "memory.scopes: expected an object, got %s", json_type_name(scopes));
        return 0;
    }
    if (!map_file(o, file->str, size))
        return 0;
    for (int s = 0; s < SCOPE_COUNT; s++) {
        const jvalue *where = json_get(scopes, SCOPE_NAMES[s]);
        int64_t offset, bytes;
        char label[32];
        if (where == NULL)
            continue;                                       /* a call lists only the scopes it uses */
        snprintf(label, sizeof label, "memory.scopes.%s", SCOPE_NAMES[s]);
        if (!arg_int(o, where, label, "offset", &offset) || !arg_int(o, where, label, "size", &bytes))
            return 0;
        if (offset < 0 || bytes < 0 || offset > size || bytes > size - offset) {
            set_error(o, "%s: [%lld, +%lld) is not inside the %lld-byte file", label, (long long)offset,
                      (long long)bytes, (long long)size);
            return 0;
        }
        m->base[s] = g_map.base + offset;
        m->size[s] = bytes;
    }
    return 1;
}

/* ---- one call -------------------------------------------------------------------------------------- */

static void run_call(outcome *o, const jvalue *call, const jvalue *memory)
{
    o->kind = OUT_ERROR;
    o->rule = NULL;
    o->message[0] = '\0';
    if (call == NULL || call->type != J_OBJECT) {
        set_error(o, "call: expected an object {api, product, form, args}, got %s", json_type_name(call));
        return;
    }
    const jvalue *api = json_get(call, "api"), *product = json_get(call, "product");
    const jvalue *form = json_get(call, "form"), *args = json_get(call, "args");
    if (api != NULL && api->type == J_STRING)
        coverage_api(api->str, api->len);                   /* points are reported once per api */
    if (api == NULL || api->type != J_STRING || product == NULL || product->type != J_STRING) {
        set_error(o, "call.api and call.product must be strings");
        return;
    }
    if (args == NULL || args->type != J_OBJECT) {
        set_error(o, "call.args: expected an object, got %s", json_type_name(args));
        return;
    }
    const product_info *p = product_find(product->str, product->len);
    if (p == NULL) {
        set_error(o, "call.product: unknown product '%s'", product->str);
        return;
    }
    int has_forms = json_is_str(api, "data_copy") || json_is_str(api, "data_copy_pad") || json_is_str(api, "gather") ||
                    json_is_str(api, "copy");
    if (has_forms) {
        /* DataCopy, DataCopyPad, Gather and Copy have several forms: form names the overload */
        if (form == NULL || form->type != J_STRING || strlen(form->str) != form->len) {
            set_error(o, "call.form: %s has several forms; form must name one", api->str);
            return;
        }
    } else if (form != NULL && form->type != J_NULL) {
        /* data_move, data_copy_nz2nd, data_copy_nd2nz, data_copy_slice and gatherb have a single form:
         * form must be null */
        set_error(o, "call.form: %s has a single form; form must be null", api->str);
        return;
    }
    if (json_is_str(api, "data_move"))
        api_data_move(o, p, args, resolve_memory, (void *)memory);
    else if (json_is_str(api, "data_copy_nz2nd"))
        api_data_copy_nz2nd(o, p, args, resolve_memory, (void *)memory);
    else if (json_is_str(api, "data_copy_nd2nz"))
        api_data_copy_nd2nz(o, p, args, resolve_memory, (void *)memory);
    else if (json_is_str(api, "data_copy_slice"))
        api_data_copy_slice(o, p, args, resolve_memory, (void *)memory);
    else if (json_is_str(api, "data_copy"))
        api_data_copy(o, p, form->str, args, resolve_memory, (void *)memory);
    else if (json_is_str(api, "data_copy_pad"))
        api_data_copy_pad(o, p, form->str, args, resolve_memory, (void *)memory);
    else if (json_is_str(api, "gatherb"))
        api_gatherb(o, p, args, resolve_memory, (void *)memory);
    else if (json_is_str(api, "copy"))
        api_copy(o, p, form->str, args, resolve_memory, (void *)memory);
    else if (json_is_str(api, "gather"))
        api_gather(o, p, form->str, args, resolve_memory, (void *)memory);
    else
        set_error(o, "call.api: c-sim does not implement '%s'", api->str);
}

/* The outcome as the members of a reply object (after "op"; without braces). */
static void write_outcome(jbuf *b, const outcome *o)
{
    switch (o->kind) {
    case OUT_OK:
        jb_raw(b, "\"op\":\"ok\"");
        break;
    case OUT_REJECTED:
        jb_raw(b, "\"op\":\"rejected\",\"rule\":");
        jb_cstring(b, o->rule);
        jb_raw(b, ",\"message\":");
        jb_cstring(b, o->message);
        break;
    case OUT_ERROR:
        jb_raw(b, "\"op\":\"error\",\"message\":");
        jb_cstring(b, o->message);
        break;
    }
}

static void write_id(jbuf *b, const jvalue *id)
{
    jb_raw(b, ",\"id\":");
    jb_value(b, id);                                        /* echoed as given (null when absent) */
}

static void reply_error(jbuf *b, const jvalue *id, const char *message)
{
    jb_raw(b, "{\"op\":\"error\"");
    write_id(b, id);
    jb_raw(b, ",\"message\":");
    jb_cstring(b, message);
    jb_raw(b, "}");
}

static void send_reply(jbuf *b)
{
    if (b->oom) {                                           /* never send a truncated line */
        jb_reset(b);
        jb_raw(b, "{\"op\":\"error\",\"id\":null,\"message\":\"out of memory\"}");
    }
    fwrite(b->data, 1, b->len, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* ---- the protocol loop ----------------------------------------------------------------------------- */

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    jbuf out;
    int status = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    jb_init(&out);
    fprintf(stderr, "%s %s: ready\n", SIM_NAME, SIM_VERSION);

    while ((n = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)n;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        size_t k = 0;
        while (k < len && (line[k] == ' ' || line[k] == '\t'))
            k++;
        if (k == len)
            continue;                                       /* a blank line is no request */

        arena a = {NULL};
        char err[200];
        jb_reset(&out);
        const jvalue *req = json_parse(&a, line, len, err, sizeof err);
        const jvalue *id = json_get(req, "id"), *op = json_get(req, "op");
        int stop = 0;

        if (req == NULL) {
            fprintf(stderr, "c-sim: %s\n", err);
            reply_error(&out, NULL, err);
        } else if (req->type != J_OBJECT || op == NULL || op->type != J_STRING) {
            reply_error(&out, id, "a request is a JSON object with a string member \"op\"");
        } else if (json_is_str(op, "hello")) {
            const jvalue *protocol = json_get(req, "protocol");
            if (protocol != NULL && !(protocol->type == J_INT && protocol->integer == 1)) {
                reply_error(&out, id, "c-sim speaks exec protocol version 1 only");
                stop = 1;
                status = 1;
            } else {
                jb_raw(&out, "{\"op\":\"hello\",\"protocol\":1,\"name\":");
                jb_cstring(&out, SIM_NAME);
                jb_raw(&out, ",\"version\":");
                jb_cstring(&out, SIM_VERSION);
                jb_raw(&out, ",\"supports\":{\"data_move\":[\"*\"],\"data_copy_nz2nd\":[\"*\"],"
                            "\"data_copy_nd2nz\":[\"*\"],\"data_copy\":[\"*\"],\"data_copy_pad\":[\"*\"],"
                            "\"gather\":[\"*\"],\"copy\":[\"*\"],\"gatherb\":[\"*\"],"
                            "\"data_copy_slice\":[\"*\"]},\"batch\":true,"
                            /* the readings data_copy.c and data_copy_pad.c carry out where the pages
                             * read two ways: the kit enters those regions and judges them by these */
                            "\"readings\":{\"data_copy.count.unaligned\":\"round_down\","
                            "\"data_copy_pad.dummy.no_padding\":\"block_first\","
                            "\"data_copy_pad.dummy.without_isPad\":\"block_first\","
                            "\"data_copy_pad.dummy.no_padding_b64\":\"block_first\","
                            "\"data_copy_pad.dummy.without_isPad_b64\":\"block_first\","
                            "\"data_copy_slice.formula.higher_dims\":\"per_index\","
                            "\"data_copy_slice.burstLen.first_dim\":\"first_dim\"}");
                coverage_hello(&out);
                jb_raw(&out, "}");
            }
        } else if (json_is_str(op, "bye")) {
            arena_free(&a);
            break;                                          /* no reply expected */
        } else if (json_is_str(op, "run")) {
            outcome o;
            run_call(&o, json_get(req, "call"), json_get(req, "memory"));
            jb_raw(&out, "{");
            write_outcome(&out, &o);
            write_id(&out, id);
            coverage_reply(&out);
            jb_raw(&out, "}");
        } else if (json_is_str(op, "batch")) {
            const jvalue *runs = json_get(req, "runs");
            if (runs == NULL || runs->type != J_ARRAY) {
                reply_error(&out, id, "batch.runs: expected an array");
            } else {
                jb_raw(&out, "{\"op\":\"batch\"");
                write_id(&out, id);
                jb_raw(&out, ",\"results\":[");
                for (const jvalue *r = runs->first; r != NULL; r = r->next) {
                    outcome o;
                    if (r->type != J_OBJECT)
                        set_error(&o, "batch.runs: each run is an object {call, memory}");
                    else
                        run_call(&o, json_get(r, "call"), json_get(r, "memory"));
                    jb_raw(&out, r == runs->first ? "{" : ",{");
                    write_outcome(&out, &o);
                    coverage_reply(&out);
                    jb_raw(&out, "}");
                }
                jb_raw(&out, "]}");
            }
        } else {
            char msg[120];
            snprintf(msg, sizeof msg, "unknown op '%.60s'", op->str);
            reply_error(&out, id, msg);
        }
        send_reply(&out);
        arena_free(&a);
        if (stop)
            break;
    }
    free(line);
    jb_free(&out);
    unmap();
    return status;
}
