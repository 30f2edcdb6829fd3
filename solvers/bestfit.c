/* bestfit.c - best fit in birth order, like a runtime allocator.
 * Buffers in order of birth (ties by index), each in the smallest gap that
 * fits among the live buffers already placed (ties: lowest offset), else on top. */
#include <stdlib.h>

#include "lib/pack.h"
#include "solver.h"

static int bestfit_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  mp_seq_by_birth(p, seq);
  mp_pack(p, seq, p->n, MP_BEST_FIT, c->offsets);
  free(seq);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_bestfit = {
    .name = "bestfit",
    .summary = "best fit in birth order, like a runtime allocator",
    .decides = MP_DECIDES_OFFSETS,
    .solve = bestfit_solve,
};
