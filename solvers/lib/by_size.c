/* by_size.c - see by_size.h. */
#include <stdio.h>
#include <stdlib.h>

#include "lib/by_size.h"

/* The fallback once the deadline cut the packing: birth-order first fit. */
static void place_by_birth(mp_ctx *c, int *seq, int done) {
  const mp_problem *p = c->prob;
  mp_seq_by_birth(p, seq);
  mp_pack(p, seq, p->n, MP_FIRST_FIT, c->offsets);
  c->status = MP_TIMEOUT;
  snprintf(c->msg, sizeof c->msg,
           "the time limit cut greedy by size after %d of %d buffers (%.1f s past the deadline); "
           "the plan is birth-order first fit",
           done, p->n, MP_BY_SIZE_SLACK);
}

int mp_place_by_size(mp_ctx *c, enum mp_fit fit, const char *name) {
  const mp_problem *p = c->prob;
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  mp_seq_by_size(p, seq);
  mp_pack_counts cnt;
  double deadline = c->deadline > 0 ? c->deadline + MP_BY_SIZE_SLACK : 0;
  int64_t arena = mp_pack_counted(p, seq, p->n, fit, c->offsets, c->verbose ? &cnt : NULL, deadline);
  if (arena >= 0) {
    if (c->verbose) mp_pack_counts_print(name, &cnt);
    c->status = MP_FEASIBLE;
  } else {
    int done = 0;
    for (int i = 0; i < p->n; i++) done += c->offsets[i] >= 0;
    place_by_birth(c, seq, done);
  }
  free(seq);
  return 0;
}
