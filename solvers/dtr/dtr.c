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
 * split; a rematerialised tensor takes its cost out of its class and puts it
 * back when it is evicted again).
 * Evicted tensors come back when a run reads them (recursively, lib/
 * remat_exec.h); tensors no later run reads are freed at once (DTR's
 * banishing).  Ties go to the lower buffer id: the plan is deterministic.
 *
 * Only tensors that may be recomputed are evicted (lib/remat_info.h): not
 * the inputs, not in-place storage.  When nothing can be evicted the stage
 * fails and says how many bytes were stuck.
 *
 * The victim is the argmin of (h, buffer id) over the resident candidates;
 * stale.h finds it without looking at each of them (a lower bound of h by
 * staleness prunes all but a few), so an eviction costs about the same at
 * 10^6 nodes as at 10^4. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dtr/stale.h"
#include "lib/remat_exec.h"
#include "solver.h"

#define DTR_OPTIONS(X) \
  X(scan, INT, 0, 0, 1, "1: each victim by a scan of every resident buffer (slow: a check of the index)")
enum { DTR_OPTIONS(MP_OPT_ENUM) DTR_N_OPTS };
static const mp_option dtr_options[] = {DTR_OPTIONS(MP_OPT_ENTRY)};

typedef struct dtr_state {
  const ri_info *ri;
  int *parent;    /* union-find over buffers */
  double *ccost;  /* per class root: the cost of its evicted members */
  bool *evicted;
  bool *was_evicted; /* in the union-find: evicted once */
  int *stamp, tick;
  dtr_stale index; /* the resident candidates by staleness */
  bool scan;       /* the victim by a scan instead (the scan option) */
  rx_exec *x;      /* during a victim search: the builder, and the best so far */
  int best;
  double best_h;
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
  if (what == RX_NOTE_ACCESS) {
    dtr_stale_touch(&s->index, b, x->last_access[b]);
    return;
  }
  if (what == RX_NOTE_GONE) {
    dtr_stale_remove(&s->index, b);
    return;
  }
  double c = s->ri->cost[s->ri->g->bufs[b].owner];
  if (what == RX_NOTE_FREED && !s->evicted[b]) {
    s->evicted[b] = true;
    if (s->was_evicted[b]) {
      s->ccost[uf_find(s, b)] += c; /* back into the class it never left */
    } else {
      s->was_evicted[b] = true;
      s->ccost[b] = c;
    }
    FOR_EVICTED_NEIGHBOURS(s, b, nb, uf_join(s, b, nb));
  } else if (what == RX_NOTE_MADE && s->evicted[b]) {
    s->evicted[b] = false;
    s->ccost[uf_find(s, b)] -= c;
    dtr_stale_reset(&s->index); /* the neighbourhoods of b's class cost less */
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

/* Offer candidate b: h_DTR, the lower buffer id on a tie.  Returns the
 * c(e*) it computed, or -1. */
static double offer(dtr_state *s, int b) {
  rx_exec *x = s->x;
  const ri_info *ri = x->ri;
  if (x->lock[b] > 0 || x->hold[b] > 0 || !(ri->flags[b] & RI_DROP)) return -1;
  double stale = x->clock - x->last_access[b], h = DBL_MAX, c = -1;
  if (stale > 0) {
    c = neighbourhood_cost(s, b);
    h = c / ((double)ri->size[b] * stale);
  }
  if (s->best < 0 || h < s->best_h || (h == s->best_h && b < s->best)) s->best = b, s->best_h = h;
  return c;
}

static double visit(int b, void *ctx) { return offer(ctx, b); }

/* The least h over the resident candidates: the index's walk finds it when
 * some candidate is stale (h finite); when none is, every resident buffer
 * is looked at (all h are DBL_MAX and the lowest id wins). */
static int dtr_victim(rx_exec *x, int64_t need, void *ctx) {
  dtr_state *s = ctx;
  (void)need;
  s->x = x, s->best = -1, s->best_h = DBL_MAX;
  if (!s->scan) dtr_stale_walk(&s->index, x->clock, visit, &s->best_h, s);
  if (s->best < 0 || s->best_h == DBL_MAX) {
    s->best = -1, s->best_h = DBL_MAX;
    for (int i = 0; i < x->nres; i++) offer(s, x->rlist[i]);
  }
  return s->best;
}

static int dtr_solve(mp_ctx *c) {
  int rc = ri_begin(c, "dtr");
  if (rc) return rc > 0 ? 0 : -1;
  ri_info ri;
  ri_init(&ri, c->g, c->start_order);
  size_t nb = (size_t)ri.nb + 1;
  dtr_state s = {.ri = &ri, .scan = c->opt[OPT_scan] != 0};
  s.parent = mp_xmalloc(sizeof(int) * nb);
  s.ccost = mp_xcalloc(nb, sizeof(double));
  s.evicted = mp_xcalloc(nb, sizeof(bool));
  s.was_evicted = mp_xcalloc(nb, sizeof(bool));
  s.stamp = mp_xcalloc(nb, sizeof(int));
  bool *droppable = mp_xcalloc(nb, sizeof(bool));
  double *owner_cost = mp_xcalloc(nb, sizeof(double));
  for (int b = 0; b < ri.nb; b++) {
    s.parent[b] = b;
    droppable[b] = (ri.flags[b] & RI_DROP) != 0;
    owner_cost[b] = ri.cost[c->g->bufs[b].owner];
  }
  dtr_stale_init(&s.index, ri.nb, droppable, ri.size, owner_cost);
  free(droppable);
  free(owner_cost);
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
    snprintf(c->msg, sizeof c->msg, "no plan within budget %lld: %.200s (after %lld reruns)",
             (long long)c->budget, x.msg, (long long)x.n_reruns);
    mp_events_clear(c->events);
    rc = ri_no_plan(c); /* timeout when the limit cut the run */
  }
  rx_destroy(&x);
  free(s.parent);
  free(s.ccost);
  free(s.evicted);
  free(s.was_evicted);
  free(s.stamp);
  dtr_stale_destroy(&s.index);
  ri_destroy(&ri);
  return rc;
}

const mp_solver solver_dtr = {
    .name = "dtr",
    .summary = "Dynamic Tensor Rematerialization (ICLR'21): the order as is, evicting the "
               "smallest cost / (size x staleness) whenever the budget would be exceeded",
    .decides = MP_DECIDES_EVENTS,
    .options = MP_OPTIONS(dtr_options),
    .solve = dtr_solve,
};
