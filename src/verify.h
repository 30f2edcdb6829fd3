/* verify.h - the judge of plan files: re-check a plan (DESIGN 1.5) against
 * its instance with the model alone.  It shares no code with any solver and
 * never runs one: figures that depend on a solver's answer (the baseline of
 * reduction_vs_given) are checked against the figure the plan states. */
#ifndef MP_VERIFY_H
#define MP_VERIFY_H

#include "io.h"

/* Re-check a plan file against an instance: the order is a topological
 * permutation (data and in-place edges), the offsets are aligned and no two
 * live buffers overlap, and every figure the plan states recomputes.
 * align_override > 0 replaces the plan's alignment.  MP_OK when valid, else
 * MP_EINPUT with err naming the plan file and the first violation. */
mp_err mp_plan_verify(const mp_instance *in, const char *plan_path, int64_t align_override,
                   mp_error *err);

#endif
