/* by_size.c - see by_size.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/by_size.h"

/* Greedy by size into off, cut (-1) once mp_now() passes deadline (> 0);
 * without one, on c->threads threads (their CPU time reported in c), cut
 * (-1) once the run is cancelled (c->cancel). */
static int64_t pack_by_size(mp_ctx *c, int *seq, enum mp_fit fit, int64_t *off, double deadline,
                            const char *name) {
  const mp_problem *p = c->prob;
  mp_pack_counts cnt, *counts = c->verbose ? &cnt : NULL;
  mp_seq_by_size(p, seq);
  int64_t arena;
  if (deadline <= 0 && mp_cancelled(c)) return -1; /* the sort took a while: the index would too */
  if (deadline > 0) {
    arena = mp_pack_counted(p, seq, p->n, fit, off, counts, deadline);
  } else {
    mp_pack_threads th = {.threads = c->threads, .cancel = c->cancel};
    arena = mp_pack_threaded(p, seq, p->n, fit, off, counts, &th);
    c->threads_cpu_s += th.cpu_s;
  }
  if (arena >= 0 && c->verbose) mp_pack_counts_print(name, &cnt);
  return arena;
}

/* Under a deadline: birth-order first fit into c->offsets first, then greedy
 * by size, kept when it finishes in time. */
static void by_size_or_first_fit(mp_ctx *c, int *seq, enum mp_fit fit, const char *name,
                                 double slack) {
  const mp_problem *p = c->prob;
  mp_seq_by_birth(p, seq);
  mp_pack(p, seq, p->n, MP_FIRST_FIT, c->offsets);
  double deadline = c->deadline, floor = mp_now() + slack;
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)p->n);
  if (pack_by_size(c, seq, fit, off, deadline > floor ? deadline : floor, name) >= 0) {
    memcpy(c->offsets, off, sizeof(int64_t) * (size_t)p->n);
    c->status = MP_FEASIBLE;
  } else {
    int done = 0;
    for (int i = 0; i < p->n; i++) done += off[i] >= 0;
    c->status = MP_TIMEOUT;
    snprintf(c->msg, sizeof c->msg,
             "the time limit cut greedy by size after %d of %d buffers; the plan is birth-order "
             "first fit",
             done, p->n);
  }
  free(off);
}

int mp_place_by_size_within(mp_ctx *c, enum mp_fit fit, const char *name, double slack) {
  const mp_problem *p = c->prob;
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  if (c->deadline > 0 && mp_live_pairs(p) > MP_INCUMBENT_PAIRS) {
    by_size_or_first_fit(c, seq, fit, name, slack);
  } else if (pack_by_size(c, seq, fit, c->offsets, 0, name) < 0) {
    snprintf(c->msg, sizeof c->msg, "cancelled: the run no longer wants a plan");
    free(seq);
    return -1;
  } else {
    c->status = MP_FEASIBLE;
  }
  free(seq);
  return 0;
}

int mp_place_by_size(mp_ctx *c, enum mp_fit fit, const char *name) {
  return mp_place_by_size_within(c, fit, name, MP_BY_SIZE_SLACK);
}
