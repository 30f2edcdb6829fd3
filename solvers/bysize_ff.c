/* bysize_ff.c - greedy by size with first fit (TVM).
 * Largest buffer first (ties: earlier birth, then index), each at the lowest
 * aligned gap among the already placed buffers live with it. */
#include "lib/by_size.h"
#include "solver.h"

static int bysize_ff_solve(mp_ctx *c) { return mp_place_by_size(c, MP_FIRST_FIT, "bysize-ff"); }

const mp_solver solver_bysize_ff = {
    .name = "bysize-ff",
    .summary = "greedy by size with first fit (TVM)",
    .decides = MP_DECIDES_OFFSETS,
    .solve = bysize_ff_solve,
};
