/* c-sim's coverage runtime (coverage.c): built in by `make coverage`, absent from the plain build. */
#ifndef CSIM_COVERAGE_H
#define CSIM_COVERAGE_H

#include <stddef.h>

#include "json.h"

#ifdef SIM_COVERAGE
void coverage_hello(jbuf *b);   /* appends the hello's "coverage" member: where the map file is */
void coverage_reply(jbuf *b);   /* appends a reply's "coverage" member: the edges first reached since */
void coverage_api(const char *api, size_t len);    /* the api of the call about to run */
#else
#define coverage_api(api, len) ((void)(api), (void)(len))
#define coverage_hello(b) ((void)(b))
#define coverage_reply(b) ((void)(b))
#endif

#endif
