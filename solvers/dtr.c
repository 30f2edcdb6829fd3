/* dtr.c - Dynamic Tensor Rematerialization (Kirisame et al., ICLR'21) as a
 * static planner: run the first-run order; whenever a run or a copy would
 * take memory over the budget, evict the resident tensor with the smallest
 *
 *     h_DTR(t) = c(e*(t)) / (size(t) x staleness(t)),
 *
 * where c(e*(t)) is the cost of t's producer plus that of the evicted
 * tensors a rerun of t would bring back or whose reruns would need t, the
 * evicted neighbourhood; staleness is the compute time since t was last
 * made or read.  The neighbourhood is the paper's h_DTR-eq approximation:
 * evicted tensors joined into classes by a union-find (a class is never
 * split; a rematerialised tensor takes its cost out of its class).
 * Evicted tensors come back when a run reads them (recursively, lib/
 * remat_exec.h); tensors no later run reads are freed at once (DTR's
 * banishing).  Ties go to the lower buffer id: the plan is deterministic.
 *
 * Only tensors that may be recomputed are evicted (lib/remat_info.h): not
 * the inputs, not in-place storage.  When nothing can be evicted the stage
 * fails and says how many bytes were stuck. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/remat_exec.h"
#include "solver.h"

typedef struct dtr_state {
  const ri_info *ri;
  int *parent;    /* union-find over buffers */
  double *ccost;  /* per class root: the cost of its evicted members */
  bool *evicted;
  int *stamp, tick;
} dtr_state;

static int uf_find(dtr_state *s, int b) {
  while (s->parent[b] != b) {
    s->parent[b] = s->parent[s->parent[b]];
    b = s->parent[b];
  }
  return b;
}

static void uf_join(dtr_state *s, int a, int b) {
  a = uf_find(s, a), b = uf_find(s, b);
  if (a == b) return;
  if (a > b) { /* the lower id is the root: deterministic */
    int t = a;
    a = b, b = t;
  }
  s->parent[b] = a;
  s->ccost[a] += s->ccost[b];
}

/* Apply f to every evicted neighbour of b: the buffers its producer reads
 * and the buffers made by the nodes that read it. */
#define FOR_EVICTED_NEIGHBOURS(s, b, nb, BODY)                                    \
  do {                                                                             \
    const mp_graph *g_ = (s)->ri->g;                                               \
    int u_ = g_->bufs[b].owner;                                                    \
    for (int k_ = 0; k_ < ri_nreads((s)->ri, u_); k_++) {                                 \
      int nb = ri_read((s)->ri, u_, k_);                                                  \
      if ((s)->evicted[nb]) BODY;                                                  \
    }                                                                              \
    for (int k_ = 0; k_ < g_->bufs[b].n_readers; k_++) {                           \
      int w_ = g_->bufs[b].readers[k_];                                            \
      for (int i_ = (s)->ri->own_start[w_]; i_ < (s)->ri->own_start[w_ + 1]; i_++) { \
        int nb = (s)->ri->own[i_];                                                 \
        if ((s)->evicted[nb]) BODY;                                                \
      }                                                                            \
    }                                                                              \
  } while (0)

static void dtr_note(rx_exec *x, int b, int what, void *ctx) {
  dtr_state *s = ctx;
  (void)x;
  double c = s->ri->cost[s->ri->g->bufs[b].owner];
  if (what == RX_NOTE_FREED && !s->evicted[b]) {
    s->evicted[b] = true;
    s->parent[b] = b;
    s->ccost[b] = c;
    FOR_EVICTED_NEIGHBOURS(s, b, nb, uf_join(s, b, nb));
  } else if (what == RX_NOTE_MADE && s->evicted[b]) {
    s->evicted[b] = false;
    s->ccost[uf_find(s, b)] -= c;
  }
}

/* c(e*(t)): t's producer plus each evicted class next to t, once. */
static double neighbourhood_cost(dtr_state *s, int t) {
  double c = s->ri->cost[s->ri->g->bufs[t].owner];
  s->tick++;
  FOR_EVICTED_NEIGHBOURS(s, t, nb, {
    int r = uf_find(s, nb);
    if (s->stamp[r] != s->tick) {
      s->stamp[r] = s->tick;
      c += s->ccost[r] > 0 ? s->ccost[r] : 0;
    }
  });
  return c;
}

static int dtr_victim(rx_exec *x, int64_t need, void *ctx) {
  dtr_state *s = ctx;
  const ri_info *ri = x->ri;
  (void)need;
  int best = -1;
  double best_h = DBL_MAX;
  for (int i = 0; i < x->nres; i++) {
    int b = x->rlist[i];
    if (x->lock[b] > 0 || x->hold[b] > 0 || !(ri->flags[b] & RI_DROP)) continue;
    double stale = x->clock - x->last_access[b];
    double h = stale > 0 ? neighbourhood_cost(s, b) / ((double)ri->size[b] * stale) : DBL_MAX;
    if (best < 0 || h < best_h || (h == best_h && b < best)) best = b, best_h = h;
  }
  return best;
}

static int dtr_solve(mp_ctx *c) {
  int rc = ri_begin(c, "dtr");
  if (rc) return rc > 0 ? 0 : -1;
  ri_info ri;
  ri_init(&ri, c->g, c->start_order);
  size_t nb = (size_t)ri.nb + 1;
  dtr_state s = {.ri = &ri};
  s.parent = mp_xmalloc(sizeof(int) * nb);
  s.ccost = mp_xcalloc(nb, sizeof(double));
  s.evicted = mp_xcalloc(nb, sizeof(bool));
  s.stamp = mp_xcalloc(nb, sizeof(int));
  for (int b = 0; b < ri.nb; b++) s.parent[b] = b;
  rx_exec x;
  rx_init(&x, &ri, c->events, c->budget, 0);
  x.victim = dtr_victim;
  x.note = dtr_note;
  x.ctx = &s;
  x.deadline = c->deadline;
  rc = rx_start(&x);
  if (rc == 0) rc = rx_finish(&x);
  if (rc == 0 && x.peak > c->budget) rc = -1, snprintf(x.msg, sizeof x.msg, "peak over budget");
  if (rc == 0) {
    ri_claim(c, x.duration);
    snprintf(c->msg, sizeof c->msg, "%lld reruns", (long long)x.n_reruns);
  } else {
    snprintf(c->msg, sizeof c->msg, "no plan within budget %lld: %.200s", (long long)c->budget,
             x.msg);
    mp_events_clear(c->events);
  }
  rx_destroy(&x);
  free(s.parent);
  free(s.ccost);
  free(s.evicted);
  free(s.stamp);
  ri_destroy(&ri);
  return rc;
}

const mp_solver solver_dtr = {
    .name = "dtr",
    .summary = "Dynamic Tensor Rematerialization (ICLR'21): the order as is, evicting the "
               "smallest cost / (size x staleness) whenever the budget would be exceeded",
    .decides = MP_DECIDES_EVENTS,
    .solve = dtr_solve,
};
