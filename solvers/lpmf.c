/* lpmf.c - PyTorch Inductor's least-peak-memory-first rule (memory.py,
 * topological_sort_lpmf).  At each step, among the ready nodes, minimise the
 * key (max(M_v, P), A_v - F_v, file position) where M_v is the memory live
 * while v runs (live + v's new tensors + its workspace), P the peak so far
 * (at least the memory live before the first step), A_v - F_v the net bytes
 * v leaves (allocated minus freed after its step).  So: a node that fits
 * under the current peak and leaves the least memory; if none fits, the one
 * needing the least while it runs; remaining ties in file order.
 * The rule lives in lib/listsched.c (shared with `best` and the search
 * solvers' start orders). */
#include "lib/listsched.h"
#include "solver.h"

static int lpmf_solve(mp_ctx *c) {
  mp_ls_order(c->g, MP_LS_LPMF, c->order);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_lpmf = {
    .name = "lpmf",
    .summary = "PyTorch Inductor's least-peak-memory-first list scheduling",
    .decides = MP_DECIDES_ORDER,
    .solve = lpmf_solve,
};
