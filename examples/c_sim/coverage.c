/* c-sim's coverage runtime (`make coverage`): the compiler calls __sanitizer_cov_trace_pc at every edge
 * of the simulator's code (gcc's and clang's -fsanitize-coverage=trace-pc); this file remembers each
 * edge's address once per api (so that the kit can tell what each api's calls reached) and hands the
 * new ones to the next reply, as its `coverage` field
 * (docs/exec-protocol.md, Coverage). A point's id is the edge's address in the program (built without
 * PIE, so the same on every run); covmap.sh names every id of the build in c_sim_cov.map, which the
 * hello points the kit to. This file itself is built without the instrumentation. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coverage.h"

#define SEEN_SLOTS (1u << 16)                   /* more edges than the simulator has, a power of two */
#define APIS 8                                  /* apis told apart; any more share the last slot */

static uintptr_t seen[SEEN_SLOTS];              /* edge address * APIS + api, plus one (0: empty) */
static char api_names[APIS][32];
static uintptr_t api_now;
static uintptr_t fresh[SEEN_SLOTS];
static size_t nfresh;

void __sanitizer_cov_trace_pc(void)
{
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    uintptr_t key = pc * APIS + api_now + 1;
    size_t slot = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 48) & (SEEN_SLOTS - 1);
    while (seen[slot] != 0) {
        if (seen[slot] == key)
            return;                                 /* the common case: an edge reached before */
        slot = (slot + 1) & (SEEN_SLOTS - 1);
    }
    seen[slot] = key;
    if (nfresh < SEEN_SLOTS)
        fresh[nfresh++] = pc;
}

void coverage_api(const char *api, size_t len)
{
    uintptr_t i;
    if (len >= sizeof api_names[0])
        len = sizeof api_names[0] - 1;
    for (i = 0; i < APIS - 1 && api_names[i][0] != '\0'; i++)
        if (strncmp(api_names[i], api, len) == 0 && api_names[i][len] == '\0')
            break;
    if (i < APIS - 1 && api_names[i][0] == '\0')
        memcpy(api_names[i], api, len);             /* a new api: the next slot (zero-filled: ended) */
    api_now = i;
}

void coverage_hello(jbuf *b)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 5);
    if (n <= 0)
        return;
    memcpy(exe + n, ".map", 5);
    jb_raw(b, ",\"coverage\":{\"map\":");
    jb_cstring(b, exe);
    jb_raw(b, "}");
}

void coverage_reply(jbuf *b)
{
    if (nfresh == 0)
        return;
    jb_raw(b, ",\"coverage\":[");
    for (size_t i = 0; i < nfresh; i++) {
        if (i)
            jb_raw(b, ",");
        jb_int(b, (int64_t)fresh[i]);
    }
    jb_raw(b, "]");
    nfresh = 0;
}
