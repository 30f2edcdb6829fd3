/* bfs.c - breadth-first topological order (Kahn's algorithm with a FIFO):
 * nodes run in the order they became ready; ties in file order. */
#include <stdlib.h>

#include "solver.h"

static int bfs_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  int *missing = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int *pos = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int *q = c->order;
  int head = 0, tail = 0;
  for (int i = 0; i < n; i++) pos[g->given[i]] = i;
  for (int v = 0; v < n; v++) missing[v] = g->n_pred[v];
  for (int i = 0; i < n; i++)
    if (missing[g->given[i]] == 0) q[tail++] = g->given[i];
  while (head < tail) {
    int v = q[head++], base = tail;
    for (int i = 0; i < g->n_succ[v]; i++)
      if (--missing[g->succ[v][i]] == 0) q[tail++] = g->succ[v][i];
    for (int a = base + 1; a < tail; a++) { /* file order among siblings */
      int x = q[a], b = a - 1;
      while (b >= base && pos[q[b]] > pos[x]) {
        q[b + 1] = q[b];
        b--;
      }
      q[b + 1] = x;
    }
  }
  free(missing);
  free(pos);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_bfs = {
    .name = "bfs",
    .summary = "breadth-first topological order (run nodes in the order they become ready)",
    .decides = MP_DECIDES_ORDER,
    .solve = bfs_solve,
};
