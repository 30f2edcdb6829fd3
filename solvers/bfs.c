/* bfs.c - breadth-first topological order (Kahn's algorithm with a FIFO):
 * nodes run in the order they became ready; ties in file order.
 * The rule lives in lib/listsched.c (shared with `best` and the search
 * solvers' start orders). */
#include "lib/listsched.h"
#include "solver.h"

static int bfs_solve(mp_ctx *c) {
  mp_ls_order(c->g, MP_LS_BFS, c->order);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_bfs = {
    .name = "bfs",
    .summary = "breadth-first topological order (run nodes in the order they become ready)",
    .decides = MP_DECIDES_ORDER,
    .solve = bfs_solve,
};
