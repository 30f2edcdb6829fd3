/* best.c - the best of several cheap orders, as Inductor and XLA do: the
 * start order (the previous chain stage, or the file order) and the orders
 * of the given, greedy, lpmf, bfs and dfs rules, keeping the lowest live
 * peak.  Ties keep the earlier candidate in that list, so a chain never gets
 * worse and the file order wins when nothing is better.  The winner's name
 * is reported in the stage message.  It also reports the min-cut lower bound of
 * schedbound.h (ctx->bound), so its gap is measured against something
 * stronger than the per-node bound; under a time limit, the best bound
 * proven when the limit comes. */
#include <stdio.h>

#include "lib/listsched.h"
#include "schedbound.h"
#include "solver.h"

static int best_solve(mp_ctx *c) {
  const char *which = NULL;
  mp_ls_best(c->g, c->start_order, c->order, &which);
  c->bound = mp_sched_lower_bound_until(c->g, c->deadline, NULL, NULL);
  snprintf(c->msg, sizeof c->msg, "best order: %s", which);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_best = {
    .name = "best",
    .summary = "lowest live peak among the start order and the given/greedy/lpmf/bfs/dfs orders",
    .decides = MP_DECIDES_ORDER,
    .solve = best_solve,
};
