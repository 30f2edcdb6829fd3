/* by_size.c - see by_size.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/by_size.h"

/* What one greedy placer packs: its sequence, its fit, its names. */
typedef struct greedy {
  mp_seq_fn seq_of;
  const char *what; /* in the time-limit message */
  enum mp_fit fit;
  const char *name; /* labels the --verbose counts */
} greedy;

/* The greedy packing into off, cut (-1) once mp_now() passes deadline (> 0);
 * without one, on c->threads threads (their CPU time reported in c), cut
 * (-1) once the run is cancelled (c->cancel). */
static int64_t pack_greedy(mp_ctx *c, int *seq, const greedy *gr, int64_t *off, double deadline) {
  const mp_problem *p = c->prob;
  mp_pack_counts cnt, *counts = c->verbose ? &cnt : NULL;
  gr->seq_of(p, seq);
  int64_t arena;
  if (deadline <= 0 && mp_cancelled(c)) return -1; /* the sort took a while: the index would too */
  if (deadline > 0) {
    arena = mp_pack_counted(p, seq, p->n, gr->fit, off, counts, deadline);
  } else {
    mp_pack_threads th = {.threads = c->threads, .cancel = c->cancel};
    arena = mp_pack_threaded(p, seq, p->n, gr->fit, off, counts, &th);
    c->threads_cpu_s += th.cpu_s;
  }
  if (arena >= 0 && c->verbose) mp_pack_counts_print(gr->name, &cnt);
  return arena;
}

/* Under a deadline: birth-order first fit into c->offsets first, then the
 * greedy packing, kept when it finishes in time. */
static void greedy_or_first_fit(mp_ctx *c, int *seq, const greedy *gr, double slack) {
  const mp_problem *p = c->prob;
  mp_seq_by_birth(p, seq);
  mp_pack(p, seq, p->n, MP_FIRST_FIT, c->offsets);
  double deadline = c->deadline, floor = mp_now() + slack;
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)p->n);
  if (pack_greedy(c, seq, gr, off, deadline > floor ? deadline : floor) >= 0) {
    memcpy(c->offsets, off, sizeof(int64_t) * (size_t)p->n);
    c->status = MP_FEASIBLE;
  } else {
    int done = 0;
    for (int i = 0; i < p->n; i++) done += off[i] >= 0;
    c->status = MP_TIMEOUT;
    snprintf(c->msg, sizeof c->msg,
             "the time limit cut %s after %d of %d buffers; the plan is birth-order first fit",
             gr->what, done, p->n);
  }
  free(off);
}

int mp_place_greedy_within(mp_ctx *c, mp_seq_fn seq_of, const char *what, enum mp_fit fit,
                           const char *name, double slack) {
  const mp_problem *p = c->prob;
  greedy gr = {seq_of, what, fit, name};
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  if (c->deadline > 0 && mp_live_pairs(p) > MP_INCUMBENT_PAIRS) {
    greedy_or_first_fit(c, seq, &gr, slack);
  } else if (pack_greedy(c, seq, &gr, c->offsets, 0) < 0) {
    snprintf(c->msg, sizeof c->msg, "cancelled: the run no longer wants a plan");
    free(seq);
    return -1;
  } else {
    c->status = MP_FEASIBLE;
  }
  free(seq);
  return 0;
}

int mp_place_by_size_within(mp_ctx *c, enum mp_fit fit, const char *name, double slack) {
  return mp_place_greedy_within(c, mp_seq_by_size, "greedy by size", fit, name, slack);
}

int mp_place_by_size(mp_ctx *c, enum mp_fit fit, const char *name) {
  return mp_place_by_size_within(c, fit, name, MP_BY_SIZE_SLACK);
}
