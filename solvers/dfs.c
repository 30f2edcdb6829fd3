/* dfs.c - depth-first topological order: after a node runs, the nodes it
 * made ready run next (last made ready first), so each branch is finished
 * before the next is started.  Among nodes made ready together, file order. */
#include <stdlib.h>

#include "solver.h"

static int dfs_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  int *missing = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int *pos = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int *stack = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int sp = 0, step = 0;
  for (int i = 0; i < n; i++) pos[g->given[i]] = i;
  for (int v = 0; v < n; v++) missing[v] = g->n_pred[v];
  /* roots pushed in reverse file order so the first in the file pops first */
  for (int i = n - 1; i >= 0; i--)
    if (missing[g->given[i]] == 0) stack[sp++] = g->given[i];
  while (sp > 0) {
    int v = stack[--sp];
    c->order[step++] = v;
    int base = sp;
    for (int i = 0; i < g->n_succ[v]; i++) {
      int w = g->succ[v][i];
      if (--missing[w] == 0) stack[sp++] = w;
    }
    /* newly ready: sort descending by file position so the earliest pops first */
    for (int a = base + 1; a < sp; a++) {
      int x = stack[a], b = a - 1;
      while (b >= base && pos[stack[b]] < pos[x]) {
        stack[b + 1] = stack[b];
        b--;
      }
      stack[b + 1] = x;
    }
  }
  free(missing);
  free(pos);
  free(stack);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_dfs = {
    .name = "dfs",
    .summary = "depth-first topological order (finish a branch before starting the next)",
    .decides = MP_DECIDES_ORDER,
    .solve = dfs_solve,
};
