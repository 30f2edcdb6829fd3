/* bysize.c - greedy by size with best fit (TFLite, XLA).
 * Largest buffer first (ties: earlier birth, then index), each in the
 * smallest gap that fits among the already placed buffers live with it
 * (ties: lowest offset), else on top.  Also the baseline of reduction_vs_given. */
#include "lib/by_size.h"
#include "solver.h"

static int bysize_solve(mp_ctx *c) { return mp_place_by_size(c, MP_BEST_FIT, "bysize"); }

const mp_solver solver_bysize = {
    .name = "bysize",
    .summary = "greedy by size with best fit (TFLite, XLA)",
    .decides = MP_DECIDES_OFFSETS,
    .roles = MP_ROLE_DEFAULT | MP_ROLE_BASELINE,
    .solve = bysize_solve,
};
