/* bysize.c - greedy by size with best fit (TFLite, XLA).
 * Largest buffer first (ties: earlier birth, then index), each in the
 * smallest gap that fits among the already placed buffers live with it
 * (ties: lowest offset), else on top.  Also the baseline of reduction_vs_given. */
#include <stdlib.h>

#include "lib/pack.h"
#include "solver.h"

static int bysize_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  mp_seq_by_size(p, seq);
  mp_pack_counts cnt;
  mp_pack_counted(p, seq, p->n, MP_BEST_FIT, c->offsets, c->verbose ? &cnt : NULL);
  if (c->verbose) mp_pack_counts_print("bysize", &cnt);
  free(seq);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_bysize = {
    .name = "bysize",
    .summary = "greedy by size with best fit (TFLite, XLA)",
    .decides = MP_DECIDES_OFFSETS,
    .roles = MP_ROLE_DEFAULT | MP_ROLE_BASELINE,
    .solve = bysize_solve,
};
