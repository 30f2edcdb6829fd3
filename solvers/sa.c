/* sa.c - simulated annealing over topological orders.
 *
 * State: a valid order, the birth/death step of every buffer and the live
 * profile M(t), with a max segment tree over M.
 * Move: pick a node v (uniformly) at step i; it may go to any step j between
 * its last predecessor and its first successor (j != i), uniformly; with j =
 * i +- 1 this is the swap of two adjacent independent nodes.  Half the time
 * v takes along the operator chain that follows it (block move, see
 * pick_move).  Every move keeps the order valid.
 * Incremental evaluation: only the steps between i and j change.  The nodes
 * there shift by one, the buffers they own, read or use as workspace get
 * new intervals, and every such interval change stays inside [i, j]; the
 * window of M is recomputed from a difference array over those buffers
 * (cost: the window plus the degrees of its nodes), the rest of the
 * profile comes from the segment tree.
 * Energy: E = peak + smooth * P0 * mean_t (M(t)/P0)^k, P0 the start's peak,
 * k = power: a soft maximum that counts how many steps sit near the peak,
 * so moves that empty a peak step are rewarded before the peak itself
 * drops (the peak alone is flat over most moves; smooth=0 anneals it
 * alone, power=1 uses the mean).  The best order is kept by
 * (peak, E), starting with the start order, so the result is never worse
 * than the start (`--order greedy,sa` refines greedy).
 * Schedule: T0 makes the average move that raises the peak, among 200
 * sampled moves from the start, accepted with probability 1/2 (T0 = mean
 * such uphill / ln 2, times the option heat); geometric
 * cooling T <- T * alpha per iteration, alpha = (t_end)^(1/iters), so T
 * reaches T0 * t_end at the end of each restart.  Each restart begins at the
 * best order so far, reheated to T0.  Budget: restarts x iters moves, or the
 * time limit (status timeout), whichever first; with fill=1 and a time
 * limit, restarts go on until the limit (status feasible once the minimum
 * restarts are done).  Deterministic for a seed when no limit cuts it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"

#define SA_OPTIONS(X)                                                        \
  X(iters, 200000, 1, 1e10, "moves per restart")                             \
  X(restarts, 4, 1, 10000, "restarts (each from the best order, reheated)") \
  X(t_end, 1e-4, 1e-9, 1, "final temperature as a fraction of the initial") \
  X(smooth, 0.5, 0, 10, "weight of the soft-max term in the energy")          \
  X(power, 8, 1, 32, "exponent k of the soft-max term (1: mean live memory)") \
  X(heat, 1, 1e-3, 1e6, "initial temperature factor (1: mean sampled uphill accepted at 1/2)") \
  X(fill, 1, 0, 1, "1: with --time-limit, keep restarting until it expires (restarts is then a minimum)")
enum { SA_OPTIONS(MP_OPT_ENUM) SA_N_OPTS };
static const mp_option sa_options[] = {SA_OPTIONS(MP_OPT_ENTRY)};

typedef struct sa_state {
  const mp_graph *g;
  int n;
  int *ord, *pos;
  int64_t *birth, *death; /* per buffer (size > 0 only are used) */
  int64_t *M;             /* profile */
  int64_t *tree;          /* max segment tree over M */
  int tn;                 /* leaves (power of two) */
  double sum;             /* sum over t of (M(t)/scale)^k */
  double scale;           /* the start order's peak */
  int k;
  /* scratch */
  int *stamp, cur;
  int *aff, naff;
  int64_t *nb, *nd; /* new birth/death of affected */
  int64_t *diff, *Mw;
  int *rot;
} sa_state;

static inline double term(const sa_state *s, int64_t m) {
  double x = (double)m / s->scale, y = 1;
  for (int i = 0; i < s->k; i++) y *= x;
  return y;
}

static void tree_set(sa_state *s, int t, int64_t v) {
  int i = t + s->tn;
  s->tree[i] = v;
  for (i >>= 1; i >= 1; i >>= 1) s->tree[i] = s->tree[2 * i] > s->tree[2 * i + 1] ? s->tree[2 * i] : s->tree[2 * i + 1];
}

static int64_t tree_max(const sa_state *s, int lo, int hi) { /* [lo, hi] */
  int64_t m = 0;
  if (lo > hi) return 0;
  int l = lo + s->tn, r = hi + s->tn + 1;
  while (l < r) {
    if (l & 1) {
      if (s->tree[l] > m) m = s->tree[l];
      l++;
    }
    if (r & 1) {
      r--;
      if (s->tree[r] > m) m = s->tree[r];
    }
    l >>= 1;
    r >>= 1;
  }
  return m;
}

/* Interval of buffer b under the current positions. */
static void interval(const sa_state *s, int b, int64_t *lo, int64_t *hi) {
  const mp_graph *g = s->g;
  const mp_buffer *bb = &g->bufs[b];
  if (bb->kind == MP_BUF_WORKSPACE) {
    *lo = *hi = s->pos[bb->owner];
    return;
  }
  int64_t birth = bb->born_at_start ? 0 : s->pos[bb->owner], death = birth;
  if (bb->graph_output) {
    death = s->n - 1;
  } else {
    for (int i = 0; i < bb->n_readers; i++)
      if (s->pos[bb->readers[i]] > death) death = s->pos[bb->readers[i]];
  }
  *lo = birth;
  *hi = death;
}

static void sa_full(sa_state *s) {
  const mp_graph *g = s->g;
  for (int i = 0; i < s->n; i++) s->pos[s->ord[i]] = i;
  memset(s->M, 0, sizeof(int64_t) * (size_t)(s->n + 1));
  int64_t *d = s->diff;
  memset(d, 0, sizeof(int64_t) * (size_t)(s->n + 1));
  for (int b = 0; b < g->n_buf; b++) {
    if (g->bufs[b].size <= 0) continue;
    interval(s, b, &s->birth[b], &s->death[b]);
    d[s->birth[b]] += g->bufs[b].size;
    d[s->death[b] + 1] -= g->bufs[b].size;
  }
  int64_t run = 0;
  s->sum = 0;
  for (int t = 0; t < s->n; t++) {
    run += d[t];
    s->M[t] = run;
    s->sum += term(s, run);
  }
  for (int i = 0; i < 2 * s->tn; i++) s->tree[i] = 0;
  for (int t = 0; t < s->n; t++) s->tree[t + s->tn] = s->M[t];
  for (int i = s->tn - 1; i >= 1; i--)
    s->tree[i] = s->tree[2 * i] > s->tree[2 * i + 1] ? s->tree[2 * i] : s->tree[2 * i + 1];
}

/* A move: rotate ord[a..b] left by r (0 < r <= b - a). */
typedef struct move {
  int a, b, r;
} move;

static void rotate(sa_state *s, int a, int b, int r) {
  int len = b - a + 1;
  int *tmp = s->rot;
  for (int k = 0; k < len; k++) tmp[k] = s->ord[a + (k + r) % len];
  for (int k = 0; k < len; k++) {
    s->ord[a + k] = tmp[k];
    s->pos[tmp[k]] = a + k;
  }
}

static void touch(sa_state *s, int b) {
  if (b < 0 || s->g->bufs[b].size <= 0 || s->stamp[b] == s->cur) return;
  s->stamp[b] = s->cur;
  s->aff[s->naff++] = b;
}

/* Apply the move i -> j, recompute the window into Mw; returns the new peak
 * and the new sum through pointers.  The move stays applied (positions,
 * not the profile): sa_commit or sa_revert next. */
static void sa_try(sa_state *s, move mv, int64_t *peak, double *sum) {
  const mp_graph *g = s->g;
  int a = mv.a, b = mv.b;
  rotate(s, a, b, mv.r);
  s->cur++;
  s->naff = 0;
  for (int t = a; t <= b; t++) {
    int v = s->ord[t];
    const mp_node *nd = &g->nodes[v];
    for (int k = 0; k < nd->n_out; k++) {
      int x = g->root_of[v][k];
      if (x >= 0 && g->bufs[x].owner == v) touch(s, x);
    }
    for (int k = 0; k < g->n_reads[v]; k++) touch(s, g->reads[v][k]);
    touch(s, g->ws_buf[v]);
  }
  int w = b - a + 1;
  int64_t *d = s->diff;
  memset(d, 0, sizeof(int64_t) * (size_t)(w + 1));
  for (int k = 0; k < s->naff; k++) {
    int x = s->aff[k];
    int64_t sz = g->bufs[x].size, lo, hi;
    interval(s, x, &lo, &hi);
    s->nb[k] = lo;
    s->nd[k] = hi;
    /* old interval within the window */
    int64_t ol = s->birth[x] > a ? s->birth[x] : a, oh = s->death[x] < b ? s->death[x] : b;
    if (ol <= oh) {
      d[ol - a] -= sz;
      d[oh - a + 1] += sz;
    }
    int64_t nl = lo > a ? lo : a, nh = hi < b ? hi : b;
    if (nl <= nh) {
      d[nl - a] += sz;
      d[nh - a + 1] -= sz;
    }
  }
  int64_t run = 0, mx = 0;
  double s2 = s->sum;
  for (int t = 0; t < w; t++) {
    run += d[t];
    s->Mw[t] = s->M[a + t] + run;
    if (run) s2 += term(s, s->Mw[t]) - term(s, s->M[a + t]);
    if (s->Mw[t] > mx) mx = s->Mw[t];
  }
  int64_t out = tree_max(s, 0, a - 1), out2 = tree_max(s, b + 1, s->n - 1);
  if (out > mx) mx = out;
  if (out2 > mx) mx = out2;
  *peak = mx;
  *sum = s2;
}

static void sa_commit(sa_state *s, move mv, double sum) {
  int a = mv.a, b = mv.b;
  for (int k = 0; k < s->naff; k++) {
    s->birth[s->aff[k]] = s->nb[k];
    s->death[s->aff[k]] = s->nd[k];
  }
  for (int t = a; t <= b; t++)
    if (s->M[t] != s->Mw[t - a]) {
      s->M[t] = s->Mw[t - a];
      tree_set(s, t, s->M[t]);
    }
  s->sum = sum;
}

static void sa_revert(sa_state *s, move mv) { rotate(s, mv.a, mv.b, mv.b - mv.a + 1 - mv.r); }

/* A random valid move: returns false if the picked node cannot move.
 * Half the time the node carries the chain that follows it in the order
 * (each next node its only successor and having it as only predecessor:
 * an operator chain such as conv -> bn -> relu) and the chain moves as a
 * block; otherwise the node moves alone. */
static bool pick_move(sa_state *s, mp_rng *r, move *mv) {
  const mp_graph *g = s->g;
  int i = (int)mp_rng_below(r, (uint64_t)s->n), v = s->ord[i];
  int L = 1;
  if (mp_rng_below(r, 2)) {
    int last = v;
    while (i + L < s->n && g->n_succ[last] == 1 && g->succ[last][0] == s->ord[i + L] &&
           g->n_pred[s->ord[i + L]] == 1)
      last = s->ord[i + L++];
  }
  int w = s->ord[i + L - 1];
  int lo = 0, hi = s->n - 1;
  for (int k = 0; k < g->n_pred[v]; k++)
    if (s->pos[g->pred[v][k]] + 1 > lo) lo = s->pos[g->pred[v][k]] + 1;
  for (int k = 0; k < g->n_succ[w]; k++)
    if (s->pos[g->succ[w][k]] - 1 < hi) hi = s->pos[g->succ[w][k]] - 1;
  hi -= L - 1; /* last start step of the block */
  if (hi <= lo) return false;
  int j = lo + (int)mp_rng_below(r, (uint64_t)(hi - lo));
  if (j >= i) j++;
  if (j > i)
    *mv = (move){i, j + L - 1, L};
  else
    *mv = (move){j, i + L - 1, i - j};
  return true;
}

static double energy(const sa_state *s, int64_t peak, double sum, double smooth) {
  return (double)peak + smooth * s->scale * sum / (double)s->n;
}

static int sa_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  memcpy(c->order, c->start_order, sizeof(int) * (size_t)n);
  c->status = MP_FEASIBLE;
  if (n < 2) return 0;
  sa_state s;
  memset(&s, 0, sizeof s);
  s.g = g;
  s.n = n;
  s.ord = mp_xmalloc(sizeof(int) * (size_t)n);
  s.pos = mp_xmalloc(sizeof(int) * (size_t)n);
  int nb = g->n_buf ? g->n_buf : 1;
  s.birth = mp_xmalloc(sizeof(int64_t) * (size_t)nb);
  s.death = mp_xmalloc(sizeof(int64_t) * (size_t)nb);
  s.stamp = mp_xcalloc((size_t)nb, sizeof(int));
  s.aff = mp_xmalloc(sizeof(int) * (size_t)nb);
  s.nb = mp_xmalloc(sizeof(int64_t) * (size_t)nb);
  s.nd = mp_xmalloc(sizeof(int64_t) * (size_t)nb);
  s.M = mp_xmalloc(sizeof(int64_t) * (size_t)(n + 1));
  s.Mw = mp_xmalloc(sizeof(int64_t) * (size_t)(n + 1));
  s.diff = mp_xmalloc(sizeof(int64_t) * (size_t)(n + 2));
  s.rot = mp_xmalloc(sizeof(int) * (size_t)n);
  s.tn = 1;
  while (s.tn < n) s.tn *= 2;
  s.tree = mp_xcalloc((size_t)(2 * s.tn), sizeof(int64_t));
  memcpy(s.ord, c->start_order, sizeof(int) * (size_t)n);
  s.k = (int)c->opt[OPT_power];
  s.scale = 1;
  sa_full(&s);
  s.scale = s.tree[1] > 0 ? (double)s.tree[1] : 1;
  sa_full(&s);

  double smooth = c->opt[OPT_smooth];
  int64_t best_peak = s.tree[1];
  double best_e = energy(&s, best_peak, s.sum, smooth);
  int *best = mp_xmalloc(sizeof(int) * (size_t)n);
  memcpy(best, s.ord, sizeof(int) * (size_t)n);

  mp_rng r;
  mp_rng_seed(&r, c->seed);
  /* initial temperature from sampled uphill moves */
  double up = 0;
  int nup = 0;
  double e0 = best_e;
  for (int k = 0; k < 200; k++) {
    move mv;
    if (!pick_move(&s, &r, &mv)) continue;
    int64_t p;
    double sm;
    sa_try(&s, mv, &p, &sm);
    sa_revert(&s, mv);
    /* uphill moves that raise the peak: the steps the search must be able
     * to climb (moves that only change the soft term are much smaller) */
    double de = energy(&s, p, sm, smooth) - e0;
    if (de > 0 && p > s.tree[1]) {
      up += de;
      nup++;
    }
  }
  double T0 = (nup ? up / nup / log(2.0) : 1.0) * c->opt[OPT_heat];
  long iters = (long)c->opt[OPT_iters];
  int restarts = (int)c->opt[OPT_restarts];
  double alpha = pow(c->opt[OPT_t_end], 1.0 / (double)iters);
  bool cut = false;
  bool fill = c->opt[OPT_fill] > 0 && c->deadline > 0;
  int rs = 0;
  for (; (rs < restarts || fill) && !cut; rs++) {
    if (rs > 0) {
      memcpy(s.ord, best, sizeof(int) * (size_t)n);
      sa_full(&s);
    }
    double e = energy(&s, s.tree[1], s.sum, smooth), T = T0;
    for (long it = 0; it < iters; it++, T *= alpha) {
      if ((it & 255) == 0 && mp_time_up(c)) {
        cut = true;
        break;
      }
      move mv;
      if (!pick_move(&s, &r, &mv)) continue;
      int64_t p;
      double sm;
      sa_try(&s, mv, &p, &sm);
      double ne = energy(&s, p, sm, smooth), de = ne - e;
      if (de <= 0 || mp_rng_unit(&r) < exp(-de / T)) {
        sa_commit(&s, mv, sm);
        e = ne;
        if (p < best_peak || (p == best_peak && ne < best_e)) {
          best_peak = p;
          best_e = ne;
          memcpy(best, s.ord, sizeof(int) * (size_t)n);
        }
      } else {
        sa_revert(&s, mv);
      }
    }
  }
  memcpy(c->order, best, sizeof(int) * (size_t)n);
  if (cut && rs <= restarts) c->status = MP_TIMEOUT; /* cut before the minimum */
  free(best);
  free(s.ord);
  free(s.pos);
  free(s.birth);
  free(s.death);
  free(s.stamp);
  free(s.aff);
  free(s.nb);
  free(s.nd);
  free(s.M);
  free(s.Mw);
  free(s.diff);
  free(s.rot);
  free(s.tree);
  return 0;
}

const mp_solver solver_sa = {
    .name = "sa",
    .summary = "simulated annealing over valid orders (window moves, incremental profile), refines its start",
    .decides = MP_DECIDES_ORDER,
    .options = MP_OPTIONS(sa_options),
    .quick = "iters=2000,restarts=2,fill=0",
    .solve = sa_solve,
};
