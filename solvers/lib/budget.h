/* budget.h - sharing a stage's time limit between its phases: a bound or a
 * preprocessing step that could take the whole limit gets a share of what
 * is left, so that the search after it still runs. */
#ifndef MP_LIB_BUDGET_H
#define MP_LIB_BUDGET_H

#include "solver.h"

/* The absolute deadline that leaves `share` (0..1] of the time left until
 * the stage's deadline to the caller's next phase; 0 (none) without one. */
static inline double mp_deadline_share(const mp_ctx *c, double share) {
  if (c->deadline <= 0) return 0;
  double now = mp_now(), left = c->deadline - now;
  return left > 0 ? now + share * left : c->deadline;
}

#endif
