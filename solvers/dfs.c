/* dfs.c - depth-first topological order: after a node runs, the nodes it
 * made ready run next (last made ready first), so each branch is finished
 * before the next is started.  Among nodes made ready together, file order.
 * The rule lives in lib/listsched.c (shared with `best` and the search
 * solvers' start orders). */
#include "lib/listsched.h"
#include "solver.h"

static int dfs_solve(mp_ctx *c) {
  mp_ls_order(c->g, MP_LS_DFS, c->order);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_dfs = {
    .name = "dfs",
    .summary = "depth-first topological order (finish a branch before starting the next)",
    .decides = MP_DECIDES_ORDER,
    .solve = dfs_solve,
};
