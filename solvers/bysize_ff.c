/* bysize_ff.c - greedy by size with first fit (TVM).
 * Largest buffer first (ties: earlier birth, then index), each at the lowest
 * aligned gap among the already placed buffers live with it. */
#include <stdlib.h>

#include "lib/pack.h"
#include "solver.h"

static int bysize_ff_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  mp_seq_by_size(p, seq);
  mp_pack_counts cnt;
  mp_pack_counted(p, seq, p->n, MP_FIRST_FIT, c->offsets, c->verbose ? &cnt : NULL);
  if (c->verbose) mp_pack_counts_print("bysize-ff", &cnt);
  free(seq);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_bysize_ff = {
    .name = "bysize-ff",
    .summary = "greedy by size with first fit (TVM)",
    .decides = MP_DECIDES_OFFSETS,
    .solve = bysize_ff_solve,
};
