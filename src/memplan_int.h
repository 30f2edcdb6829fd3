/* memplan_int.h - what the files of the public API (memplan*.c) share: the
 * opaque handles over the internal objects and the checks every call makes.
 * Internal: a client sees memplan.h alone. */
#ifndef MP_MEMPLAN_INT_H
#define MP_MEMPLAN_INT_H

#include "memplan.h"
#include "run.h"

struct memplan_instance {
  mp_instance in;
  mp_baselines baselines; /* computed once per alignment, on first need */
  char *source;           /* a generated graph: how to make it again (NULL: read) */
};

struct memplan_result {
  mp_result r;
  const memplan_instance *owner;
};

/* Copy a message into err (err may be NULL). */
void mp_api_error(memplan_error *err, const char *msg);
/* printf-style; returns code, for `return mp_api_fail(err, MEMPLAN_EUSAGE, ...)`. */
memplan_err mp_api_fail(memplan_error *err, memplan_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Is an option struct of this header's layout (its _init was called)?
 * MEMPLAN_OK, or MEMPLAN_EUSAGE with a message naming the struct. */
memplan_err mp_api_version_check(int version, const char *what, memplan_error *err);
/* Is a request usable (set by its _init, fields in the ranges the CLI
 * enforces)?  MEMPLAN_OK, or MEMPLAN_EUSAGE with a message. */
memplan_err mp_api_request_check(const memplan_request *req, memplan_error *err);
/* A judge's align argument: 0 (the default) or one the CLI's --align takes,
 * [1, 2^30]; else MEMPLAN_EUSAGE naming `what`. */
memplan_err mp_api_align_check(int64_t align, const char *what, memplan_error *err);
/* n >= 0 strings, none NULL (a may be NULL when n is 0). */
bool mp_api_strings_ok(const char *const *a, int n);
/* The harness's run spec of a request (the instance's baseline cache may be
 * NULL). */
void mp_api_spec(const memplan_request *req, mp_baselines *baselines, mp_run_spec *spec);

#endif
