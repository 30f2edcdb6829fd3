/* verify.h - the judge of plan files: re-check a plan (DESIGN 1.5) against
 * its instance with the model alone.  It shares no code with any solver and
 * never runs one: figures that depend on a solver's answer (the baseline of
 * reduction_vs_given) are checked against the figure the plan states. */
#ifndef MP_VERIFY_H
#define MP_VERIFY_H

#include "events.h"
#include "io.h"

/* Re-check a plan file against an instance: the order is a topological
 * permutation (data and in-place edges), the offsets are aligned and no two
 * live buffers overlap, and every figure the plan states recomputes.
 * align_override > 0 replaces the plan's alignment.  MP_OK when valid, else
 * MP_EINPUT with err naming the plan file and the first violation. */
mp_err mp_plan_verify(const mp_instance *in, const char *plan_path, int64_t align_override,
                   mp_error *err);

/* What the judge recomputed from a plan it found valid: the figures a
 * caller compares with those a program printed (bench, for a program that
 * is not this memplan), whether or not the plan states them. */
typedef struct mp_plan_facts {
  bool events;           /* an event plan (recomputation) */
  int64_t align;         /* the alignment the offsets were checked at (0: a CSV's own) */
  mp_figures fig;        /* DESIGN 1.3 of the placement (lower_bound, given_arena: the plan's) */
  int64_t nodes;         /* of the graph; -1 for a fixed-lifetime problem */
  int64_t buffers;       /* of the graph, or the problem's items */
  /* an event plan's (DESIGN 6.3): */
  double bandwidth;      /* the host link it was checked with */
  int64_t budget;        /* the budget it states (-1: none) */
  int64_t residencies;   /* the placed residencies */
  mp_ev_figures ev;
} mp_plan_facts;

/* mp_plan_verify, and on success (MP_OK) the recomputed figures in *out. */
mp_err mp_plan_verify_facts(const mp_instance *in, const char *plan_path, int64_t align_override,
                            mp_plan_facts *out, mp_error *err);

#endif
