/* remat_greedy.c - rs_greedy (remat_stage.h): a stage-shaped plan by
 * greedy eviction, the first incumbent of remat-ilp. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_stage.h"
#include "solver.h"

typedef struct progress {
  int stage;     /* the first stage over the budget (N + 1: none) */
  int64_t worst; /* its largest sample */
  int at;        /* where that sample is (-1: the start) */
} progress;

static progress measure(const rs_model *m, const rs_dec *d, int64_t budget, int64_t *peak, int *at) {
  rs_stage_peaks(m, d, peak, at);
  progress p = {m->n_pos + 1, 0, -1};
  for (int t = 0; t <= m->n_pos; t++)
    if (peak[t] > budget) {
      p = (progress){t, peak[t], at[t]};
      break;
    }
  return p;
}

static bool better(progress a, progress b) {
  return a.stage > b.stage || (a.stage == b.stage && a.worst < b.worst);
}

/* The last first run at or before stage t that uses b (its owner's or a
 * reader's), and the first reader position after t (N: the tail, for a
 * graph output; -1 when nothing reads it later). */
static void uses_around(const rs_model *m, int b, int t, int *p, int *q) {
  *p = m->own_pos[b];
  *q = -1;
  for (int j = m->us_start[b]; j < m->us_start[b + 1]; j++) {
    int u = m->us[j];
    if (u <= t && u > *p) *p = u;
    if (u > t && *q < 0) *q = u;
  }
  if (*q < 0 && m->g->bufs[b].graph_output) *q = m->n_pos;
}

/* Drop b between its last first-run use before stage t + after (after: 0
 * or 1) and its next one: freed there, made again when next read.  The
 * stages dropped are [*lo, *hi]. */
static bool drop(const rs_model *m, rs_dec *d, int b, int t, int after, int *lo, int *hi) {
  int p, q;
  uses_around(m, b, t - 1 + after, &p, &q);
  if (m->fixed_buf[b] || q < 0 || m->own_pos[b] < 0 || !rs_may_run(m, q, m->own_pos[b])) return false;
  for (int s = p + 1; s <= q; s++) *rs_S(d, s, b) = 0;
  *lo = p + 1;
  *hi = q;
  return rs_complete(m, d) == 0;
}

typedef struct dropped {
  int b, lo, hi;
} dropped;

/* Once within budget: keep again, latest drop first, what still fits and
 * costs less (an early drop may have been made useless by later ones). */
static void undo_pass(const rs_model *m, int64_t budget, const dropped *dr, int n, rs_dec *d,
                      rs_dec *trial, int64_t *peak, int *at, const mp_ctx *c) {
  for (int i = n - 1; i >= 0; i--) {
    if (c && mp_time_up(c)) return;
    rs_dec_copy(trial, d);
    for (int s = dr[i].lo; s <= dr[i].hi; s++)
      if (rs_may_keep(m, s, dr[i].b)) *rs_S(trial, s, dr[i].b) = 1;
    if (rs_complete(m, trial) || rs_cost(m, trial) >= rs_cost(m, d)) continue;
    if (measure(m, trial, budget, peak, at).stage > m->n_pos) rs_dec_copy(d, trial);
  }
}

/* Scratch of the rounds: a trial decision, the best of a round, the
 * stage peaks and where they are. */
typedef struct scratch {
  rs_dec trial, best;
  int64_t *peak;
  int *at;
} scratch;

/* One round at the first stage over the budget: of the drops that make
 * progress, the one that costs least per byte freed (into x->best, *p and
 * *dr).  False when no drop makes progress, or when the time is up (a
 * round tries 2 x buffers drops: seconds on 10^3-node graphs, so the
 * deadline is checked within it, not only between rounds). */
static bool best_drop(const rs_model *m, int64_t budget, const rs_dec *d, progress now,
                      scratch *x, progress *p_out, dropped *dr, const mp_ctx *c) {
  int t = now.stage, k = now.at;
  double base = rs_cost(m, d), best_rate = INFINITY;
  progress best_p = now;
  for (int cand = 0; cand < 2 * m->nb; cand++) {
    if (c && cand % 16 == 0 && mp_time_up(c)) return false;
    int b = cand >> 1, after = cand & 1;
    if (!*rs_S(d, t + after, b) || (k >= 0 && rs_touches(m, k, b))) continue;
    rs_dec_copy(&x->trial, d);
    int lo, hi;
    if (!drop(m, &x->trial, b, t, after, &lo, &hi)) continue;
    progress p = measure(m, &x->trial, budget, x->peak, x->at);
    if (!better(p, now)) continue;
    double freed = (double)(p.stage > t ? now.worst - budget : now.worst - p.worst);
    double rate = (rs_cost(m, &x->trial) - base + 1e-9) / (freed > 0 ? freed : 1);
    if (rate < best_rate || (rate == best_rate && better(p, best_p))) {
      best_rate = rate;
      best_p = p;
      *dr = (dropped){b, lo, hi};
      rs_dec_copy(&x->best, &x->trial);
    }
  }
  *p_out = best_p;
  return isfinite(best_rate);
}

int rs_greedy(const rs_model *m, int64_t budget, const mp_ctx *c, rs_dec *d) {
  int N = m->n_pos;
  scratch x;
  x.peak = mp_xmalloc(sizeof(int64_t) * ((size_t)N + 1));
  x.at = mp_xmalloc(sizeof(int) * ((size_t)N + 1));
  rs_dec_init(m, &x.trial);
  rs_dec_init(m, &x.best);
  mp_events keep;
  mp_events_init(&keep);
  mp_events_from_order(m->g, m->order, &keep);
  int rc = rs_project(m, &keep, d);
  mp_events_destroy(&keep);
  progress now = rc ? (progress){0, 0, -1} : measure(m, d, budget, x.peak, x.at);
  dropped *dr = mp_xmalloc(sizeof(dropped) * (size_t)(8 * (N + 1) + 1));
  int n_dr = 0;
  for (int round = 0; rc == 0 && now.stage <= N && round < 8 * (N + 1); round++) {
    if (c && mp_time_up(c)) {
      rc = -1;
      break;
    }
    if (!best_drop(m, budget, d, now, &x, &now, &dr[n_dr], c)) rc = -1;
    else {
      rs_dec_copy(d, &x.best);
      n_dr++;
    }
  }
  if (rc == 0 && now.stage <= N) rc = -1;
  if (rc == 0) undo_pass(m, budget, dr, n_dr, d, &x.trial, x.peak, x.at, c);
  free(dr);
  rs_dec_destroy(&x.trial);
  rs_dec_destroy(&x.best);
  free(x.peak);
  free(x.at);
  return rc;
}
