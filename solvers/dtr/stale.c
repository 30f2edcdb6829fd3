/* stale.c - DTR's staleness index (stale.h): a kinetic tournament tree of
 * the lines f_b(x) = size(b) / L(b) x (x - last(b)); the smallest bound of
 * h is 1 / (the highest line). */
#include <math.h>
#include <stdlib.h>

#include "dtr/stale.h"
#include "util.h"

/* The walk's stack: two nodes per level at most, and the tree is at most
 * 2^31 leaves deep. */
#define STACK_MAX 80

void dtr_stale_init(dtr_stale *s, int nb, const bool *indexed, const int64_t *size,
                    const double *owner_cost) {
  size_t n = (size_t)nb + 1;
  *s = (dtr_stale){.nb = nb, .leaves = 1, .now = -INFINITY};
  while (s->leaves < nb) s->leaves *= 2;
  size_t nodes = 2 * (size_t)s->leaves;
  s->size = mp_xmalloc(sizeof(int64_t) * n);
  s->c0 = mp_xmalloc(sizeof(double) * n);
  s->cost = mp_xmalloc(sizeof(double) * n);
  s->slope = mp_xmalloc(sizeof(double) * n);
  s->last = mp_xcalloc(n, sizeof(double));
  s->indexed = mp_xcalloc(n, sizeof(bool));
  s->listed = mp_xcalloc(n, sizeof(bool));
  s->free_b = mp_xmalloc(sizeof(int) * n);
  s->free_pos = mp_xmalloc(sizeof(int) * n);
  s->raised = mp_xmalloc(sizeof(int) * n);
  s->is_raised = mp_xcalloc(n, sizeof(bool));
  for (int b = 0; b < nb; b++) {
    s->size[b] = size[b];
    s->c0[b] = s->cost[b] = owner_cost[b];
    s->slope[b] = (double)size[b] / owner_cost[b];
    s->indexed[b] = indexed[b];
    s->free_pos[b] = -1;
  }
  s->win = mp_xmalloc(sizeof(int) * nodes);
  s->fail = mp_xmalloc(sizeof(double) * nodes);
  s->minfail = mp_xmalloc(sizeof(double) * nodes);
  for (size_t i = 0; i < nodes; i++) s->win[i] = -1, s->fail[i] = s->minfail[i] = INFINITY;
  s->stack = mp_xmalloc(sizeof(int) * STACK_MAX);
}

void dtr_stale_destroy(dtr_stale *s) {
  free(s->size);
  free(s->c0);
  free(s->cost);
  free(s->slope);
  free(s->last);
  free(s->indexed);
  free(s->listed);
  free(s->free_b);
  free(s->free_pos);
  free(s->raised);
  free(s->is_raised);
  free(s->win);
  free(s->fail);
  free(s->minfail);
  free(s->pending);
  free(s->stack);
}

static double line(const dtr_stale *s, int b, double x) { return s->slope[b] * (x - s->last[b]); }

/* The higher line at x; on a tie the lower buffer id (any fixed rule). */
static int higher(const dtr_stale *s, int i, int j, double x) {
  if (i < 0 || j < 0) return i < 0 ? j : i;
  double fi = line(s, i, x), fj = line(s, j, x);
  if (fi != fj) return fi > fj ? i : j;
  return i < j ? i : j;
}

/* When loser o's line may rise above winner w's: their crossing, taken
 * early by far more than its rounding (a bound of the cancellation in the
 * numerator and of the quotient's error, times 10^6); never for lines that
 * do not close in.  A NaN says "now", which is always safe. */
static double certificate(const dtr_stale *s, int w, int o) {
  if (w < 0 || o < 0 || !(s->slope[o] > s->slope[w])) return INFINITY;
  double pw = s->slope[w] * s->last[w], po = s->slope[o] * s->last[o], d = s->slope[o] - s->slope[w];
  double x = (po - pw) / d, err = 1e-9 * ((fabs(po) + fabs(pw)) / d + fabs(x)) + 1e-300;
  return isnan(x - err) ? -INFINITY : x - err;
}

/* Node i compared again at the index's clock. */
static void pull(dtr_stale *s, int i) {
  int l = s->win[2 * i], r = s->win[2 * i + 1];
  int w = higher(s, l, r, s->now);
  s->win[i] = w;
  s->fail[i] = certificate(s, w, w == l ? r : l);
  s->minfail[i] = fmin(s->fail[i], fmin(s->minfail[2 * i], s->minfail[2 * i + 1]));
}

/* b's leaf says whether it is in the tree; buffers without a bound go to
 * the free list instead. */
static void place(dtr_stale *s, int b) {
  bool bounded = s->cost[b] > 0 && isfinite(s->slope[b]);
  bool in_tree = s->listed[b] && bounded, in_free = s->listed[b] && !bounded;
  if (in_free && s->free_pos[b] < 0) {
    s->free_pos[b] = s->n_free, s->free_b[s->n_free++] = b;
  } else if (!in_free && s->free_pos[b] >= 0) {
    int j = s->free_pos[b], m = s->free_b[--s->n_free];
    s->free_b[j] = m, s->free_pos[m] = j, s->free_pos[b] = -1;
  }
  int i = s->leaves + b;
  s->win[i] = in_tree ? b : -1;
  for (i /= 2; i >= 1; i /= 2) pull(s, i);
}

void dtr_stale_touch(dtr_stale *s, int b, double when) {
  if (!s->indexed[b]) return;
  s->last[b] = when;
  if (when > s->now) s->now = when;
  s->listed[b] = true;
  place(s, b);
}

void dtr_stale_remove(dtr_stale *s, int b) {
  if (!s->indexed[b] || !s->listed[b]) return;
  s->listed[b] = false;
  place(s, b);
}

static void set_cost(dtr_stale *s, int b, double cost) {
  s->cost[b] = cost;
  s->slope[b] = (double)s->size[b] / cost;
  place(s, b);
}

void dtr_stale_reset(dtr_stale *s) {
  s->walks_since_reset = 0;
  for (int i = 0; i < s->n_raised; i++) {
    int b = s->raised[i];
    s->is_raised[b] = false;
    set_cost(s, b, s->c0[b]);
  }
  s->n_raised = 0;
}

static void raise_cost(dtr_stale *s, int b, double cost) {
  if (!s->indexed[b] || !(cost >= 0) || cost == s->cost[b]) return;
  if (!s->is_raised[b]) s->is_raised[b] = true, s->raised[s->n_raised++] = b;
  set_cost(s, b, cost);
}

/* Every node whose certificate the clock has passed, compared again
 * (children first). */
static void advance(dtr_stale *s, int i) {
  if (s->minfail[i] > s->now || i >= s->leaves) return;
  advance(s, 2 * i);
  advance(s, 2 * i + 1);
  pull(s, i);
}

/* The lower bound of h for buffer b now (infinite when it is not stale). */
static double bound(const dtr_stale *s, int b) {
  double f = line(s, b, s->now);
  return f > 0 ? 1.0 / f : INFINITY;
}

/* A margin far above the rounding of h and of its bound (a few ulps): a
 * buffer is passed over only when even its bound is clearly above the best. */
static bool beyond(double lb, double best) { return lb * (1 - 1e-9) > best; }

static void offer(dtr_stale *s, int b, dtr_visit_fn visit, void *ctx) {
  double c = visit(b, ctx);
  if (c < 0) return;
  if (s->n_pending == s->cap_pending) {
    s->cap_pending = s->cap_pending ? 2 * s->cap_pending : 64;
    s->pending = mp_xrealloc(s->pending, sizeof(dtr_raise) * (size_t)s->cap_pending);
  }
  s->pending[s->n_pending++] = (dtr_raise){b, c};
}

/* The free list whole, then the tree from the root, the higher child
 * first, passing over every node whose best bound is beyond the best h. */
void dtr_stale_walk(dtr_stale *s, double now, dtr_visit_fn visit, const double *best_h, void *ctx) {
  if (now > s->now) s->now = now;
  advance(s, 1);
  s->n_pending = 0;
  for (int i = 0; i < s->n_free; i++) offer(s, s->free_b[i], visit, ctx);
  int n = 0;
  s->stack[n++] = 1;
  while (n > 0) {
    int i = s->stack[--n], w = s->win[i];
    if (w < 0 || beyond(bound(s, w), *best_h)) continue; /* and the whole subtree */
    if (i >= s->leaves) {
      offer(s, w, visit, ctx);
      continue;
    }
    bool left_wins = s->win[2 * i] == w;
    s->stack[n++] = left_wins ? 2 * i + 1 : 2 * i;
    s->stack[n++] = left_wins ? 2 * i : 2 * i + 1;
  }
  /* Raising only pays when the bounds live through a few walks: while the
   * costs keep falling (a reset between every two walks) it is skipped,
   * which is always safe (L stays a lower bound). */
  if (s->walks_since_reset++ >= 1)
    for (int i = 0; i < s->n_pending; i++) raise_cost(s, s->pending[i].b, s->pending[i].cost);
}
