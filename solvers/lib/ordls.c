/* ordls.c - see ordls.h.
 *
 * Incremental evaluation: a move rearranges the window [a, b] of steps and
 * leaves every other step's node in place.  Only the buffers that the
 * window's nodes own, read or use as workspace can get new intervals, and
 * a buffer's birth or death moves only between steps of the window, so
 * every change of M lies inside [a, b]: the window of M is recomputed from
 * a difference array over those buffers' old and new intervals clipped to
 * the window, and the peak outside it comes from the segment tree.
 *
 * Drag moves: v at step i goes to step j < i (early) with S = v and its
 * ancestors among steps [j, i); the window becomes S (in order) then the
 * rest (in order).  Valid: a node of S has its predecessors before j or in
 * S; a node of the rest has none in S after it (a predecessor of a rest
 * node lying in S is fine, S now comes first, and no rest node precedes a
 * node of S, else it would be an ancestor of v and in S).  Late drags are
 * the mirror image with descendants. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ordls.h"

static inline double term(const mp_ols *s, int64_t m) {
  double x = (double)m / s->scale, y = 1;
  for (int i = 0; i < s->k; i++) y *= x;
  return y;
}

static inline int64_t over(int64_t m, int64_t U) { return m > U ? m - U : 0; }

static void tree_set(mp_ols *s, int t, int64_t v) {
  int i = t + s->tn;
  s->tree[i] = v;
  for (i >>= 1; i >= 1; i >>= 1)
    s->tree[i] = s->tree[2 * i] > s->tree[2 * i + 1] ? s->tree[2 * i] : s->tree[2 * i + 1];
}

static int64_t tree_max(const mp_ols *s, int lo, int hi) { /* [lo, hi] */
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
static void interval(const mp_ols *s, int b, int64_t *lo, int64_t *hi) {
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

void mp_ols_init(mp_ols *s, const mp_graph *g, int mode, int k) {
  memset(s, 0, sizeof *s);
  int n = g->n > 0 ? g->n : 1;
  s->g = g;
  s->n = g->n;
  s->mode = mode;
  s->k = k;
  s->scale = 1;
  s->ord = mp_xmalloc(sizeof(int) * (size_t)n);
  s->pos = mp_xmalloc(sizeof(int) * (size_t)n);
  int nb = g->n_buf ? g->n_buf : 1;
  s->birth = mp_xmalloc(sizeof(int64_t) * (size_t)nb);
  s->death = mp_xmalloc(sizeof(int64_t) * (size_t)nb);
  s->stamp = mp_xcalloc((size_t)nb, sizeof(int));
  s->aff = mp_xmalloc(sizeof(int) * (size_t)nb);
  s->nb = mp_xmalloc(sizeof(int64_t) * (size_t)nb);
  s->nd = mp_xmalloc(sizeof(int64_t) * (size_t)nb);
  s->M = mp_xmalloc(sizeof(int64_t) * (size_t)(n + 1));
  s->Mw = mp_xmalloc(sizeof(int64_t) * (size_t)(n + 1));
  s->diff = mp_xmalloc(sizeof(int64_t) * (size_t)(n + 2));
  s->save = mp_xmalloc(sizeof(int) * (size_t)n);
  s->tmp = mp_xmalloc(sizeof(int) * (size_t)n);
  s->mark = mp_xcalloc((size_t)n, 1);
  s->tn = 1;
  while (s->tn < n) s->tn *= 2;
  s->tree = mp_xcalloc((size_t)(2 * s->tn), sizeof(int64_t));
}

void mp_ols_destroy(mp_ols *s) {
  free(s->ord);
  free(s->pos);
  free(s->birth);
  free(s->death);
  free(s->stamp);
  free(s->aff);
  free(s->nb);
  free(s->nd);
  free(s->M);
  free(s->Mw);
  free(s->diff);
  free(s->save);
  free(s->tmp);
  free(s->mark);
  free(s->tree);
  memset(s, 0, sizeof *s);
}

void mp_ols_set_target(mp_ols *s, int64_t U) {
  s->U = U;
  s->xs = 0;
  if (s->mode == 1)
    for (int t = 0; t < s->n; t++) s->xs += over(s->M[t], U);
}

void mp_ols_target_below(mp_ols *s, int64_t best, double margin) {
  int64_t U = (int64_t)((double)best * (1 - margin)) - 1;
  mp_ols_set_target(s, U < 0 ? 0 : U);
}

void mp_ols_set_scale(mp_ols *s, double scale) {
  s->scale = scale > 0 ? scale : 1;
  s->sum = 0;
  if (s->mode == 0)
    for (int t = 0; t < s->n; t++) s->sum += term(s, s->M[t]);
}

void mp_ols_load(mp_ols *s, const int *order) {
  const mp_graph *g = s->g;
  memcpy(s->ord, order, sizeof(int) * (size_t)s->n);
  for (int i = 0; i < s->n; i++) s->pos[s->ord[i]] = i;
  int64_t *d = s->diff;
  memset(d, 0, sizeof(int64_t) * (size_t)(s->n + 1));
  for (int b = 0; b < g->n_buf; b++) {
    if (g->bufs[b].size <= 0) continue;
    interval(s, b, &s->birth[b], &s->death[b]);
    d[s->birth[b]] += g->bufs[b].size;
    d[s->death[b] + 1] -= g->bufs[b].size;
  }
  int64_t run = 0;
  for (int t = 0; t < s->n; t++) {
    run += d[t];
    s->M[t] = run;
  }
  for (int i = 0; i < 2 * s->tn; i++) s->tree[i] = 0;
  for (int t = 0; t < s->n; t++) s->tree[t + s->tn] = s->M[t];
  for (int i = s->tn - 1; i >= 1; i--)
    s->tree[i] = s->tree[2 * i] > s->tree[2 * i + 1] ? s->tree[2 * i] : s->tree[2 * i + 1];
  mp_ols_set_target(s, s->U);
  mp_ols_set_scale(s, s->scale);
}

static void touch(mp_ols *s, int b) {
  if (b < 0 || s->g->bufs[b].size <= 0 || s->stamp[b] == s->cur) return;
  s->stamp[b] = s->cur;
  s->aff[s->naff++] = b;
}

mp_ols_eval mp_ols_eval_move(mp_ols *s) {
  const mp_graph *g = s->g;
  int a = s->a, b = s->b;
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
  int64_t run = 0, mx = 0, xs = s->xs;
  double s2 = s->sum;
  for (int t = 0; t < w; t++) {
    run += d[t];
    int64_t m = s->M[a + t] + run;
    s->Mw[t] = m;
    if (run) {
      if (s->mode == 0)
        s2 += term(s, m) - term(s, s->M[a + t]);
      else
        xs += over(m, s->U) - over(s->M[a + t], s->U);
    }
    if (m > mx) mx = m;
  }
  int64_t out = tree_max(s, 0, a - 1), out2 = tree_max(s, b + 1, s->n - 1);
  if (out > mx) mx = out;
  if (out2 > mx) mx = out2;
  return (mp_ols_eval){mx, xs, s2};
}

void mp_ols_commit(mp_ols *s, mp_ols_eval ev) {
  for (int k = 0; k < s->naff; k++) {
    s->birth[s->aff[k]] = s->nb[k];
    s->death[s->aff[k]] = s->nd[k];
  }
  for (int t = s->a; t <= s->b; t++)
    if (s->M[t] != s->Mw[t - s->a]) {
      s->M[t] = s->Mw[t - s->a];
      tree_set(s, t, s->M[t]);
    }
  s->sum = ev.sum;
  s->xs = ev.xs;
}

void mp_ols_revert(mp_ols *s) {
  for (int t = s->a; t <= s->b; t++) {
    s->ord[t] = s->save[t - s->a];
    s->pos[s->ord[t]] = t;
  }
}

/* s->tmp[0 .. b-a] becomes the window [a, b]; the old contents are saved. */
static void apply_window(mp_ols *s, int a, int b) {
  memcpy(s->save, s->ord + a, sizeof(int) * (size_t)(b - a + 1));
  for (int t = a; t <= b; t++) {
    s->ord[t] = s->tmp[t - a];
    s->pos[s->ord[t]] = t;
  }
  s->a = a;
  s->b = b;
}

/* Shift: pick a node v (uniformly) at step i; it goes to a step j between
 * its last predecessor and its first successor (j != i), uniformly; with
 * j = i +- 1 this swaps two adjacent independent nodes.  Half the time v
 * takes along the operator chain that follows it in the order (each next
 * node its only successor and having it as only predecessor: conv -> bn ->
 * relu) and the chain moves as a block. */
static bool shift_move(mp_ols *s, mp_rng *r) {
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
  int a, b, rot;
  if (j > i) { /* the block goes later: rotate [i, j+L-1] left by L */
    a = i;
    b = j + L - 1;
    rot = L;
  } else { /* earlier: rotate [j, i+L-1] left by i - j */
    a = j;
    b = i + L - 1;
    rot = i - j;
  }
  int len = b - a + 1;
  for (int k = 0; k < len; k++) s->tmp[k] = s->ord[a + (k + rot) % len];
  apply_window(s, a, b);
  return true;
}

/* Drag (see the top of the file). */
static bool drag_move(mp_ols *s, mp_rng *r, int reach) {
  const mp_graph *g = s->g;
  int n = s->n, i = (int)mp_rng_below(r, (uint64_t)n);
  bool early = mp_rng_below(r, 2) == 0;
  if (reach > n) reach = n;
  int a, b;
  if (early) {
    if (i == 0) return false;
    int span = i < reach ? i : reach;
    a = i - 1 - (int)mp_rng_below(r, (uint64_t)span);
    b = i;
  } else {
    if (i == n - 1) return false;
    int span = n - 1 - i < reach ? n - 1 - i : reach;
    a = i;
    b = i + 1 + (int)mp_rng_below(r, (uint64_t)span);
  }
  s->mark[s->ord[i]] = 1;
  if (early) {
    for (int t = i - 1; t >= a; t--) {
      int u = s->ord[t];
      for (int k = 0; k < g->n_succ[u]; k++)
        if (s->mark[g->succ[u][k]]) {
          s->mark[u] = 1;
          break;
        }
    }
  } else {
    for (int t = i + 1; t <= b; t++) {
      int u = s->ord[t];
      for (int k = 0; k < g->n_pred[u]; k++)
        if (s->mark[g->pred[u][k]]) {
          s->mark[u] = 1;
          break;
        }
    }
  }
  int w = b - a + 1, k = 0;
  for (int pass = 0; pass < 2; pass++) {
    int want = early ? pass == 0 : pass == 1;
    for (int t = a; t <= b; t++)
      if (s->mark[s->ord[t]] == want) s->tmp[k++] = s->ord[t];
  }
  for (int t = a; t <= b; t++) s->mark[s->ord[t]] = 0;
  bool moved = false;
  for (int t = 0; t < w && !moved; t++) moved = s->tmp[t] != s->ord[a + t];
  if (!moved) return false;
  apply_window(s, a, b);
  return true;
}

bool mp_ols_move(mp_ols *s, mp_rng *r, double pdrag, int reach) {
  if (s->n < 2) return false;
  if (pdrag > 0 && mp_rng_unit(r) < pdrag) return drag_move(s, r, reach);
  return shift_move(s, r);
}

/* ---- annealing ---- */

double mp_ols_energy(const mp_ols *s, mp_ols_eval ev, double smooth) {
  if (s->mode == 1) return (double)ev.xs;
  return (double)ev.peak + smooth * s->scale * ev.sum / (double)s->n;
}

double mp_ols_sample_t0(mp_ols *s, mp_rng *r, double pdrag, int reach, double smooth, int samples) {
  double e = mp_ols_energy(s, mp_ols_current(s), smooth), up = 0;
  int nup = 0;
  for (int k = 0; k < samples; k++) {
    if (!mp_ols_move(s, r, pdrag, reach)) continue;
    mp_ols_eval ev = mp_ols_eval_move(s);
    mp_ols_revert(s);
    double de = mp_ols_energy(s, ev, smooth) - e;
    if (de > 0 && (s->mode == 1 || ev.peak > mp_ols_peak(s))) {
      up += de;
      nup++;
    }
  }
  return nup ? up / nup / log(2.0) : 1.0;
}

bool mp_ols_anneal_step(mp_ols *s, mp_rng *r, double pdrag, int reach, double T, double smooth,
                        mp_ols_eval *ev) {
  if (!mp_ols_move(s, r, pdrag, reach)) return false;
  *ev = mp_ols_eval_move(s);
  double de = mp_ols_energy(s, *ev, smooth) - mp_ols_energy(s, mp_ols_current(s), smooth);
  if (de <= 0 || mp_rng_unit(r) < exp(-de / T)) {
    mp_ols_commit(s, *ev);
    return true;
  }
  mp_ols_revert(s);
  return false;
}
