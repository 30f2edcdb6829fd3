/* keepall.c - the baseline of DESIGN 6: no recomputation, no copies.  It
 * runs the order it is handed once and frees every buffer after its last
 * reader (the plan of DESIGN 6.2's equivalence rule, mp_events_from_order),
 * so its figures are those of section 1 for that order.
 *
 * Every valid plan runs each non-input node at least once on the one
 * compute stream, so its duration is at least their costs, which is
 * keepall's duration: within the budget, keepall is optimal over every
 * plan.  Over the budget it has no plan; it says `infeasible` only when the
 * floor of mp_events_floor proves that no plan fits. */
#include <stdio.h>

#include "events.h"
#include "lib/remat_info.h"
#include "solver.h"

static int keepall_solve(mp_ctx *c) {
  int rc = ri_begin(c, "keepall");
  if (rc) return rc < 0 ? -1 : 0;
  const mp_graph *g = c->g;
  mp_events_from_order(g, c->start_order, c->events);
  int64_t peak = mp_events_memory(g, c->events, NULL);
  if (peak > c->budget) {
    mp_events_clear(c->events);
    snprintf(c->msg, sizeof c->msg,
             "no plan within budget %lld: keeping every tensor peaks at %lld (keepall neither "
             "recomputes nor offloads)",
             (long long)c->budget, (long long)peak);
    return -1;
  }
  c->status = MP_OPTIMAL; /* its duration meets duration_bound */
  return 0;
}

const mp_solver solver_keepall = {
    .name = "keepall",
    .summary = "baseline: the order as is, each buffer freed after its last reader (optimal "
               "when it fits the budget)",
    .decides = MP_DECIDES_EVENTS,
    .solve = keepall_solve,
};
