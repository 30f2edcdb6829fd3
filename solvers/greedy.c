/* greedy.c - list scheduling: at each step run the ready node that leaves
 * the least memory live after its step.  Ties: the smaller memory during the
 * step, then the node that comes first in the file.
 * The rule lives in lib/listsched.c (shared with `best` and the search
 * solvers' start orders). */
#include "lib/listsched.h"
#include "solver.h"

static int greedy_solve(mp_ctx *c) {
  mp_ls_order(c->g, MP_LS_GREEDY, c->order);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_greedy = {
    .name = "greedy",
    .summary = "run the ready node that leaves the least live memory after its step",
    .decides = MP_DECIDES_ORDER,
    .solve = greedy_solve,
};
