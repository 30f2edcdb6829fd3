/* greedy.c - list scheduling: at each step run the ready node that leaves
 * the least memory live after its step.  Ties: the smaller memory during the
 * step, then the node that comes first in the file. */
#include <stdlib.h>

#include "solver.h"

static int greedy_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  int *pos = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) pos[g->given[i]] = i;
  int *ready = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int nr = 0;
  mp_sim s;
  mp_sim_init(&s, g);
  for (int v = 0; v < n; v++)
    if (s.missing[v] == 0) ready[nr++] = v;
  for (int step = 0; step < n; step++) {
    int bi = -1;
    int64_t best_after = 0, best_during = 0;
    for (int k = 0; k < nr; k++) {
      int v = ready[k];
      int64_t after, during = mp_sim_cost(&s, v, &after);
      if (bi < 0 || after < best_after || (after == best_after && during < best_during) ||
          (after == best_after && during == best_during && pos[v] < pos[ready[bi]])) {
        bi = k;
        best_after = after;
        best_during = during;
      }
    }
    int v = ready[bi];
    ready[bi] = ready[--nr];
    mp_sim_run(&s, v);
    c->order[step] = v;
    for (int i = 0; i < g->n_succ[v]; i++)
      if (s.missing[g->succ[v][i]] == 0) ready[nr++] = g->succ[v][i];
  }
  mp_sim_free(&s);
  free(ready);
  free(pos);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_greedy = {
    .name = "greedy",
    .summary = "run the ready node that leaves the least live memory after its step",
    .decides = MP_DECIDES_ORDER,
    .solve = greedy_solve,
};
