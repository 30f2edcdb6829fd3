/* firstfit.c - first fit in birth order, like a runtime allocator.
 * Buffers in order of birth (ties by index), each at the lowest aligned gap
 * among the live buffers already placed. */
#include <stdlib.h>

#include "lib/pack.h"
#include "solver.h"

static int firstfit_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  mp_seq_by_birth(p, seq);
  mp_pack(p, seq, p->n, MP_FIRST_FIT, c->offsets);
  free(seq);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_firstfit = {
    .name = "firstfit",
    .summary = "first fit in birth order, like a runtime allocator",
    .decides = MP_DECIDES_OFFSETS,
    .solve = firstfit_solve,
};
