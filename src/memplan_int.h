/* memplan_int.h - what the files of the public API (memplan.c,
 * memplan_events.c) share: the opaque handles over the internal objects.
 * Internal: a client sees memplan.h alone. */
#ifndef MP_MEMPLAN_INT_H
#define MP_MEMPLAN_INT_H

#include "memplan.h"
#include "run.h"

struct memplan_instance {
  mp_instance in;
  mp_baselines baselines; /* computed once per alignment, on first need */
};

struct memplan_result {
  mp_result r;
  const memplan_instance *owner;
};

/* Copy a message into err (err may be NULL). */
void mp_api_error(memplan_error *err, const char *msg);

#endif
