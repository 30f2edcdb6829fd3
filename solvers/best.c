/* best.c - the best of several cheap orders, as Inductor and XLA do: the
 * start order (the previous chain stage, or the file order) and the orders
 * of the given, greedy, lpmf, bfs and dfs rules, keeping the lowest live
 * peak.  Ties keep the earlier candidate in that list, so a chain never gets
 * worse and the file order wins when nothing is better.  The winner's name
 * is reported in the stage message.  It also reports the min-cut lower bound of
 * schedbound.h (ctx->bound), so its gap is measured against something
 * stronger than the per-node bound; under a time limit, the best bound
 * proven when the limit comes.  That bound takes quadratic memory (n^2/4
 * bytes of closures) and time, so above `bound_nodes` nodes it is skipped
 * and the message says so (the harness's per-node bound remains).  On two
 * threads or more (ctx->threads) lpmf's order is built beside the others
 * (mp_ls_best_threads): the same answer, sooner. */
#include <stdio.h>

#include "lib/listsched.h"
#include "schedbound.h"
#include "solver.h"

#define BEST_OPTIONS(X)                                                                    \
  X(bound_nodes, INT, 5000, 0, 1e9, "largest graph (nodes) given the min-cut lower bound")

enum { BEST_OPTIONS(MP_OPT_ENUM) BEST_N_OPTS };
static const mp_option best_options[] = {BEST_OPTIONS(MP_OPT_ENTRY)};

static int best_solve(mp_ctx *c) {
  const char *which = NULL;
  mp_ls_best_threads(c->g, c->start_order, c->order, &which, c->threads, &c->threads_cpu_s);
  if (c->g->n <= (int)c->opt[OPT_bound_nodes]) {
    c->bound = mp_sched_lower_bound_until(c->g, c->deadline, NULL, NULL);
    snprintf(c->msg, sizeof c->msg, "best order: %s", which);
  } else {
    snprintf(c->msg, sizeof c->msg, "best order: %s; min-cut bound skipped (%d nodes > bound_nodes=%d)",
             which, c->g->n, (int)c->opt[OPT_bound_nodes]);
  }
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_best = {
    .name = "best",
    .summary = "lowest live peak among the start order and the given/greedy/lpmf/bfs/dfs orders",
    .decides = MP_DECIDES_ORDER,
    .options = MP_OPTIONS(best_options),
    .solve = best_solve,
};
