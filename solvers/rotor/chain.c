/* chain.c - the chain rotor works on (rotor.h): stages of the forward cut
 * at small frontiers, their frontiers and tapes, the backward groups, and
 * what each step needs at its own time.  Linear in the graph's size (plus
 * O(L) per stage boundary). */
#include <stdlib.h>
#include <string.h>

#include "rotor/rotor.h"

/* A chain buffer: a forward buffer that may be dropped, or a held input.
 * A graph output (a training step's loss) is not: it stays, as rotor keeps
 * its loss. */
bool rt_chain_buf(const ri_info *ri, int b) {
  uint8_t f = ri->flags[b];
  return (f & RI_TENSOR) && !(f & RI_OUTPUT) && ((f & RI_HOLD) || ((f & RI_DROP) && ri_fwd_buf(ri, b)));
}

static bool chain_buf(const ri_info *ri, int b) { return rt_chain_buf(ri, b); }

/* Last forward use of b (its production when none; -1 for an unread input). */
static int last_fwd_use(const ri_info *ri, int b) {
  int lf = ri_prod(ri, b);
  for (int e = ri->ev_start[b] + 1; e < ri->ev_start[b + 1] && ri->ev[e] < ri->turn; e++) lf = ri->ev[e];
  return lf;
}

/* Bytes of the chain frontier after each position of the forward. */
static int64_t *chain_frontier(const ri_info *ri) {
  int T = ri->turn;
  int64_t *fb = mp_xcalloc((size_t)T + 2, sizeof(int64_t));
  for (int b = 0; b < ri->nb; b++) {
    if (!chain_buf(ri, b)) continue;
    int p = ri_prod(ri, b) < 0 ? 0 : ri_prod(ri, b), lf = last_fwd_use(ri, b);
    if (lf <= p) continue;
    fb[p] += ri->size[b];
    fb[lf] -= ri->size[b];
  }
  for (int i = 1; i < T; i++) fb[i] += fb[i - 1];
  return fb;
}

/* Boundaries (the last position of each stage but the last): every
 * candidate when they are few enough (one stage per forward position, or
 * per articulation point with frontier = 0); else one pass over the
 * forward, the best candidate of each of max_stages - 1 windows of equal
 * cost (the fewest chain frontier bytes, then the nearest to the window's
 * centre).  The windows alone would merge cheap positions next to costly
 * ones (a window that a costly node spans holds no boundary), so a short
 * chain would get fewer stages than it has layers. */
static int pick_boundaries(const ri_info *ri, int max_stages, int frontier, int *bnd) {
  int T = ri->turn, nb = 0;
  if (T <= 1 || max_stages <= 1) return 0;
  int ncut = 0;
  for (int i = 0; i + 1 < T; i++) ncut += frontier || ri->front_count[i] <= 1;
  if (ncut <= max_stages - 1) {
    for (int i = 0; i + 1 < T; i++)
      if (frontier || ri->front_count[i] <= 1) bnd[nb++] = i;
    return nb;
  }
  int64_t *fb = chain_frontier(ri);
  double total = 0;
  for (int p = 0; p < T; p++) total += ri->cost[ri->seq[p]] + 1e-3;
  double w = total / max_stages, c = 0, best_d = 0;
  int win = -1;
  for (int i = 0; i + 1 < T; i++) {
    c += ri->cost[ri->seq[i]] + 1e-3;
    int j = (int)(c / w + 0.5); /* the window whose centre j x w is nearest */
    if (j < 1 || j > max_stages - 1) continue;
    if (!frontier && ri->front_count[i] > 1) continue;
    double d = c > j * w ? c - j * w : j * w - c;
    if (j != win) {
      bnd[nb++] = i, win = j, best_d = d;
    } else if (fb[i] < fb[bnd[nb - 1]] || (fb[i] == fb[bnd[nb - 1]] && d < best_d)) {
      bnd[nb - 1] = i, best_d = d;
    }
  }
  free(fb);
  return nb;
}

/* Per chain buffer: the stage that makes it (0 for an input) and the stage
 * of its last forward use; it is in X_k for k0 <= k < k1. */
typedef struct span {
  int k0, k1;
} span;

static span buf_span(const ri_info *ri, const int *stage_of, int b) {
  int p = ri_prod(ri, b), lf = last_fwd_use(ri, b);
  span s = {p < 0 ? 0 : stage_of[p], lf < 0 ? 0 : stage_of[lf]};
  if (s.k1 < s.k0) s.k1 = s.k0;
  return s;
}

static bool read_by_backward(const ri_info *ri, int b) {
  return ri->ev_start[b + 1] > ri->ev_start[b] + 1 && ri->ev[ri->ev_start[b + 1] - 1] >= ri->turn;
}

/* The stage whose backward a read of b belongs to: the tape of stage k0,
 * or the input of stage k1 for a frontier buffer. */
static int level(const span *sp, bool frontier) { return frontier ? sp->k1 : sp->k0; }

/* ov[i][j] (i < j): the bytes of the buffers whose span [k0, k1) holds
 * both, k0 <= i and j < k1: per (k0, k1), then sums over k0 <= i and over
 * k1 > j. */
static void overlaps(rt_chain *ch, const ri_info *ri, const span *sp) {
  int n = ch->L + 1;
  int64_t *c = mp_xcalloc((size_t)(n + 1) * (size_t)(n + 1), sizeof(int64_t));
  for (int b = 0; b < ri->nb; b++)
    if (chain_buf(ri, b) && sp[b].k1 > sp[b].k0 + 1) c[sp[b].k0 * (n + 1) + sp[b].k1] += ri->size[b];
  for (int i = 0; i < n; i++) /* suffix over k1 */
    for (int j = n - 1; j >= 0; j--) c[i * (n + 1) + j] += c[i * (n + 1) + j + 1];
  for (int i = 1; i < n; i++) /* prefix over k0 */
    for (int j = 0; j <= n; j++) c[i * (n + 1) + j] += c[(i - 1) * (n + 1) + j];
  ch->ov = mp_xcalloc((size_t)n * (size_t)n, sizeof(int64_t));
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) ch->ov[i * n + j] = c[i * (n + 1) + j + 1];
  free(c);
}

/* CSR lists X_k (k = 0..L) and T_k (k = 1..L), their bytes. */
static void frontiers_and_tapes(rt_chain *ch, const ri_info *ri, const span *sp) {
  int L = ch->L;
  ch->x_start = mp_xcalloc((size_t)L + 3, sizeof(int));
  ch->t_start = mp_xcalloc((size_t)L + 3, sizeof(int));
  for (int b = 0; b < ri->nb; b++) {
    if (!chain_buf(ri, b)) continue;
    for (int k = sp[b].k0; k < sp[b].k1; k++) ch->x_start[k + 1]++, ch->a[k] += ri->size[b];
    if (sp[b].k1 == sp[b].k0 && sp[b].k0 > 0 && read_by_backward(ri, b))
      ch->t_start[sp[b].k0 + 1]++, ch->tb[sp[b].k0] += ri->size[b];
  }
  for (int k = 0; k <= L; k++) ch->x_start[k + 1] += ch->x_start[k], ch->t_start[k + 1] += ch->t_start[k];
  overlaps(ch, ri, sp);
  ch->x = mp_xmalloc(sizeof(int) * (size_t)(ch->x_start[L + 1] + 1));
  ch->t = mp_xmalloc(sizeof(int) * (size_t)(ch->t_start[L + 1] + 1));
  int *xf = mp_xmalloc(sizeof(int) * (size_t)(L + 2)), *tf = mp_xmalloc(sizeof(int) * (size_t)(L + 2));
  memcpy(xf, ch->x_start, sizeof(int) * (size_t)(L + 1));
  memcpy(tf, ch->t_start, sizeof(int) * (size_t)(L + 1));
  for (int b = 0; b < ri->nb; b++) {
    if (!chain_buf(ri, b)) continue;
    for (int k = sp[b].k0; k < sp[b].k1; k++) ch->x[xf[k]++] = b;
    if (sp[b].k1 == sp[b].k0 && sp[b].k0 > 0 && read_by_backward(ri, b)) ch->t[tf[sp[b].k0]++] = b;
  }
  free(xf);
  free(tf);
}

/* Backward groups: the running minimum of each node's level. */
static void backward_groups(rt_chain *ch, const ri_info *ri, const span *sp) {
  int L = ch->L, g = L;
  int *cnt = mp_xcalloc((size_t)L + 2, sizeof(int));
  for (int q = ri->turn; q < ri->m; q++) {
    int v = ri->seq[q];
    for (int i = 0; i < ri_nreads(ri, v); i++) {
      int r = ri_read(ri, v, i);
      if (!chain_buf(ri, r)) continue;
      int lv = level(&sp[r], sp[r].k1 > sp[r].k0);
      if (lv >= 1 && lv < g) g = lv;
    }
    cnt[g]++;
  }
  ch->gstart = mp_xcalloc((size_t)L + 2, sizeof(int));
  ch->gend = mp_xcalloc((size_t)L + 2, sizeof(int));
  int q = ri->turn;
  for (int k = L; k >= 1; k--) ch->gstart[k] = q, q += cnt[k], ch->gend[k] = q;
  free(cnt);
}

/* kin, kx, and the reads the model does not place. */
static void group_reads(rt_chain *ch, const ri_info *ri, const span *sp) {
  for (int k = 1; k <= ch->L; k++)
    for (int q = ch->gstart[k]; q < ch->gend[k]; q++) {
      int v = ri->seq[q];
      for (int i = 0; i < ri_nreads(ri, v); i++) {
        int r = ri_read(ri, v, i);
        if (!chain_buf(ri, r)) continue;
        bool in = sp[r].k0 <= k - 1 && k - 1 < sp[r].k1, top = sp[r].k0 <= k && k < sp[r].k1;
        bool tape = sp[r].k1 == sp[r].k0 && sp[r].k0 == k;
        ch->kin[k] |= in;
        ch->kx[k] |= top;
        ch->cross += !in && !top && !tape;
      }
    }
}

/* Group k's tail: from its first node that reads X_{k-1} to its end.  The
 * program may run it later, once the caller has brought X_{k-1} back; its
 * carry (the buffers of T_k and X_k it reads) is then held until it runs. */
static void tails(rt_chain *ch, const ri_info *ri, const span *sp) {
  int L = ch->L;
  ch->ts = mp_xcalloc((size_t)L + 2, sizeof(int));
  ch->c_start = mp_xcalloc((size_t)L + 3, sizeof(int));
  int *mark = mp_xcalloc((size_t)ri->nb + 1, sizeof(int)), *list = NULL, n = 0, cap = 0;
  for (int k = 1; k <= L; k++) {
    ch->ts[k] = ch->gend[k];
    for (int q = ch->gstart[k]; q < ch->gend[k] && ch->ts[k] == ch->gend[k]; q++) {
      int v = ri->seq[q];
      for (int i = 0; i < ri_nreads(ri, v); i++) {
        int r = ri_read(ri, v, i);
        if (chain_buf(ri, r) && sp[r].k0 <= k - 1 && k - 1 < sp[r].k1) ch->ts[k] = q;
      }
    }
    for (int q = ch->ts[k]; q < ch->gend[k]; q++) {
      int v = ri->seq[q];
      for (int i = 0; i < ri_nreads(ri, v); i++) {
        int r = ri_read(ri, v, i);
        bool in = sp[r].k0 <= k - 1 && k - 1 < sp[r].k1;
        if (!chain_buf(ri, r) || in || mark[r] == k || sp[r].k0 > k) continue;
        bool tape = sp[r].k1 == sp[r].k0 && sp[r].k0 == k, top = sp[r].k0 <= k && k < sp[r].k1;
        if (!tape && !top) continue;
        mark[r] = k;
        if (n == cap) cap = cap ? 2 * cap : 64, list = mp_xrealloc(list, sizeof(int) * (size_t)cap);
        list[n++] = r;
        ch->carry[k] += ri->size[r];
      }
    }
    ch->c_start[k + 1] = n;
  }
  ch->c = list ? list : mp_xmalloc(sizeof(int));
  free(mark);
}

/* The background (every tensor that is not a chain buffer, resident as in
 * the keep-all plan) before each position, and its sample at each
 * position (with the node's other outputs and its workspace). */
static void background(const ri_info *ri, int64_t *before, int64_t *at) {
  int m = ri->m;
  memset(before, 0, sizeof(int64_t) * (size_t)(m + 2));
  for (int b = 0; b < ri->nb; b++) {
    if (!(ri->flags[b] & RI_TENSOR) || chain_buf(ri, b)) continue;
    int lo = ri_prod(ri, b) + 1, hi = ri->last_use[b] < m ? ri->last_use[b] : m;
    if (lo > hi) continue;
    before[lo] += ri->size[b];
    before[hi + 1] -= ri->size[b];
  }
  for (int q = 1; q <= m; q++) before[q] += before[q - 1];
  for (int q = 0; q < m; q++) {
    int v = ri->seq[q];
    at[q] = before[q] + ri_ws(ri, v);
    for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++)
      if (!chain_buf(ri, ri->own[i])) at[q] += ri->size[ri->own[i]];
  }
}

/* The last use of b inside [lo, hi) (first-run positions), or -1. */
static int last_use_in(const ri_info *ri, int b, int lo, int hi) {
  int last = -1;
  for (int e = ri->ev_start[b] + 1; e < ri->ev_start[b + 1]; e++)
    if (ri->ev[e] >= lo && ri->ev[e] < hi) last = ri->ev[e];
  return last;
}

typedef struct work {
  const ri_info *ri;
  const span *sp;
  const int64_t *before, *at;
  int64_t *diff;  /* per position */
  uint8_t *need;  /* per node: reruns in the mode being measured */
  int *stamp;     /* per buffer */
  int stamp_now;
} work;

/* Until when a chain buffer made in stage k at position p is resident
 * during stage k's forward in mode m (0: X_k kept; 1: the tape too). */
static int alive_until(const work *w, const rt_chain *ch, int b, int k, int m) {
  int fin = ch->start[k + 1] - 1, p = ri_prod(w->ri, b);
  if (w->sp[b].k1 > k) return fin;
  if (m && read_by_backward(w->ri, b)) return fin;
  int lu = last_use_in(w->ri, b, p + 1, fin + 1);
  return lu < 0 ? p : lu;
}

/* The nodes of stage k a rerun in mode m runs: those that make X_k (and
 * T_k), and what they read of the stage, by one reverse pass. */
static void rerun_set(work *w, const rt_chain *ch, int k, int m) {
  const ri_info *ri = w->ri;
  w->stamp_now++;
  for (int q = ch->start[k + 1] - 1; q >= ch->start[k]; q--) {
    int v = ri->seq[q];
    bool need = false;
    for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) {
      int b = ri->own[i];
      if (!chain_buf(ri, b)) continue;
      need |= w->stamp[b] == w->stamp_now || w->sp[b].k1 > k ||
              (m && w->sp[b].k1 == k && read_by_backward(ri, b));
    }
    w->need[v] = need;
    if (!need) continue;
    for (int i = 0; i < ri_nreads(ri, v); i++) {
      int r = ri_read(ri, v, i);
      if (chain_buf(ri, r) && ri_prod(ri, r) >= ch->start[k]) w->stamp[r] = w->stamp_now;
    }
  }
}

/* Does node v make a buffer of T_k? */
static bool makes_tape(const work *w, int v, int k) {
  const ri_info *ri = w->ri;
  for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) {
    int b = ri->own[i];
    if (chain_buf(ri, b) && w->sp[b].k0 == k && w->sp[b].k1 == k && read_by_backward(ri, b)) return true;
  }
  return false;
}

/* needS, needR and the rerun cost of stage k in mode m. */
static void stage_needs(work *w, rt_chain *ch, int k, int m) {
  const ri_info *ri = w->ri;
  int lo = ch->start[k], hi = ch->start[k + 1];
  rerun_set(w, ch, k, m);
  int *r = ch->r_pos[m], n = ch->r_start[m][k];
  for (int q = lo; q < hi; q++)
    if (w->need[ri->seq[q]]) r[n++] = q;
  ch->r_start[m][k + 1] = n;
  for (int rerun = 0; rerun < 2; rerun++) {
    memset(w->diff + lo, 0, sizeof(int64_t) * (size_t)(hi - lo + 1));
    for (int q = lo; q < hi; q++) {
      int v = ri->seq[q];
      if (rerun && !w->need[v]) continue;
      for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) {
        int b = ri->own[i];
        if (!chain_buf(ri, b)) continue;
        w->diff[q] += ri->size[b];
        w->diff[alive_until(w, ch, b, k, m) + 1] -= ri->size[b];
      }
    }
    int64_t live = 0, peak = 0;
    double cost = 0, after = 0; /* after: the runs after the first that makes a tape buffer */
    bool taped = false;
    for (int q = lo; q < hi; q++) {
      int v = ri->seq[q];
      live += w->diff[q];
      if (rerun && !w->need[v]) continue;
      int64_t s = rerun ? live + w->at[q] - w->before[q] : live + w->at[q];
      if (s > peak) peak = s;
      cost += ri->cost[v];
      if (taped) after += ri->cost[v];
      taped |= makes_tape(w, v, k);
    }
    if (m) ch->tape_after[rerun][k] = after;
    if (rerun) ch->needR[m][k] = peak, ch->fr_cost[m][k] = cost;
    else ch->needS[m][k] = peak, ch->first_cost[k] = cost;
  }
}

/* What a range of group k's positions needs: background + the buffers of
 * T_k, X_k (when group k reads it) and X_{k-1} (W_IN) it reads, each until
 * its last read in the range; the carry through the whole range
 * (W_THROUGH: the head of a group whose tail runs later) or until its last
 * read (W_CARRY: the tail alone). */
enum { W_GROUP = 1, W_IN = 2, W_THROUGH = 4, W_CARRY = 8 };

static void alive_span(work *w, int b, int lo, int hi, bool through) {
  const ri_info *ri = w->ri;
  if (w->stamp[b] == w->stamp_now) return;
  int last = through ? hi - 1 : last_use_in(ri, b, lo, hi);
  if (last < 0) return;
  w->stamp[b] = w->stamp_now;
  w->diff[lo] += ri->size[b];
  w->diff[last + 1] -= ri->size[b];
}

static int64_t range_need(work *w, const rt_chain *ch, int k, int lo, int hi, int what) {
  if (lo >= hi) return 0;
  memset(w->diff + lo, 0, sizeof(int64_t) * (size_t)(hi - lo + 1));
  w->stamp_now++;
  if (what & (W_THROUGH | W_CARRY))
    for (int i = ch->c_start[k]; i < ch->c_start[k + 1]; i++) alive_span(w, ch->c[i], lo, hi, what & W_THROUGH);
  if (what & W_GROUP) {
    for (int i = ch->t_start[k]; i < ch->t_start[k + 1]; i++) alive_span(w, ch->t[i], lo, hi, false);
    if (ch->kx[k])
      for (int i = ch->x_start[k]; i < ch->x_start[k + 1]; i++) alive_span(w, ch->x[i], lo, hi, false);
  }
  if (what & W_IN)
    for (int i = ch->x_start[k - 1]; i < ch->x_start[k]; i++) alive_span(w, ch->x[i], lo, hi, false);
  int64_t live = 0, peak = 0;
  for (int q = lo; q < hi; q++) {
    live += w->diff[q];
    if (live + w->at[q] > peak) peak = live + w->at[q];
  }
  return peak;
}

static void alloc_arrays(rt_chain *ch) {
  size_t n = (size_t)ch->L + 2;
  ch->start = mp_xcalloc(n, sizeof(int));
  ch->a = mp_xcalloc(n, sizeof(int64_t));
  ch->tb = mp_xcalloc(n, sizeof(int64_t));
  for (int m = 0; m < 2; m++) {
    ch->needS[m] = mp_xcalloc(n, sizeof(int64_t));
    ch->needR[m] = mp_xcalloc(n, sizeof(int64_t));
    ch->fr_cost[m] = mp_xcalloc(n, sizeof(double));
    ch->tape_after[m] = mp_xcalloc(n, sizeof(double));
    ch->r_start[m] = mp_xcalloc(n + 1, sizeof(int));
  }
  ch->gneed = mp_xcalloc(n, sizeof(int64_t));
  ch->gneedx = mp_xcalloc(n, sizeof(int64_t));
  ch->ghead = mp_xcalloc(n, sizeof(int64_t));
  ch->gtail = mp_xcalloc(n, sizeof(int64_t));
  ch->gtailx = mp_xcalloc(n, sizeof(int64_t));
  ch->bgT = mp_xcalloc(n, sizeof(int64_t));
  ch->carry = mp_xcalloc(n, sizeof(int64_t));
  ch->bgF = mp_xcalloc(n, sizeof(int64_t));
  ch->gcost = mp_xcalloc(n, sizeof(double));
  ch->hcost = mp_xcalloc(n, sizeof(double));
  ch->first_cost = mp_xcalloc(n, sizeof(double));
  ch->kin = mp_xcalloc(n, sizeof(bool));
  ch->kx = mp_xcalloc(n, sizeof(bool));
  ch->fix = mp_xcalloc(n, sizeof(int));
}

static void measure(rt_chain *ch, const ri_info *ri, const span *sp) {
  int m = ri->m;
  work w = {.ri = ri, .sp = sp};
  int64_t *before = mp_xmalloc(sizeof(int64_t) * (size_t)(m + 2));
  int64_t *at = mp_xmalloc(sizeof(int64_t) * (size_t)(m + 1));
  background(ri, before, at);
  w.before = before, w.at = at;
  w.diff = mp_xcalloc((size_t)m + 2, sizeof(int64_t));
  w.need = mp_xcalloc((size_t)ri->n + 1, 1);
  w.stamp = mp_xcalloc((size_t)ri->nb + 1, sizeof(int));
  for (int md = 0; md < 2; md++) ch->r_pos[md] = mp_xmalloc(sizeof(int) * (size_t)(ri->turn + 1));
  for (int k = 1; k <= ch->L; k++) {
    for (int md = 0; md < 2; md++) stage_needs(&w, ch, k, md);
    int g0 = ch->gstart[k], g1 = ch->gend[k], ts = ch->ts[k];
    ch->gneed[k] = range_need(&w, ch, k, g0, g1, W_GROUP);
    ch->gneedx[k] = range_need(&w, ch, k, g0, g1, W_GROUP | W_IN);
    ch->ghead[k] = range_need(&w, ch, k, g0, ts, W_GROUP | W_THROUGH);
    ch->gtail[k] = range_need(&w, ch, k, ts, g1, W_CARRY);
    ch->gtailx[k] = range_need(&w, ch, k, ts, g1, W_CARRY | W_IN);
    ch->bgF[k] = before[g0];
    ch->bgT[k] = before[ts];
    for (int q = ch->gstart[k]; q < ch->gend[k]; q++) ch->gcost[k] += ri->cost[ri->seq[q]];
    for (int q = ch->gstart[k]; q < ts; q++) ch->hcost[k] += ri->cost[ri->seq[q]];
  }
  for (int k = 0; k <= ch->L; k++) ch->fix[k] = ch->a[k] == 0 ? k : k > 0 ? ch->fix[k - 1] : -1;
  for (int q = 0; q < m; q++) {
    int v = ri->seq[q];
    int64_t x = at[q];
    for (int i = 0; i < ri_nreads(ri, v); i++)
      if (chain_buf(ri, ri_read(ri, v, i))) x += ri->size[ri_read(ri, v, i)];
    for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++)
      if (chain_buf(ri, ri->own[i])) x += ri->size[ri->own[i]];
    if (x > ch->floor) ch->floor = x;
  }
  free(before);
  free(at);
  free(w.diff);
  free(w.need);
  free(w.stamp);
}

void rt_chain_init(rt_chain *ch, const ri_info *ri, int max_stages, int frontier) {
  memset(ch, 0, sizeof *ch);
  int T = ri->turn;
  int *bnd = mp_xmalloc(sizeof(int) * (size_t)(max_stages + 1));
  int nb = pick_boundaries(ri, max_stages, frontier, bnd);
  ch->L = T > 0 ? nb + 1 : 0;
  alloc_arrays(ch);
  int L = ch->L;
  for (int k = 1; k <= L; k++) ch->start[k] = k == 1 ? 0 : bnd[k - 2] + 1;
  ch->start[L + 1] = T;
  free(bnd);
  int *stage_of = mp_xmalloc(sizeof(int) * (size_t)(T + 1));
  for (int k = 1; k <= L; k++)
    for (int p = ch->start[k]; p < ch->start[k + 1]; p++) stage_of[p] = k;
  span *sp = mp_xcalloc((size_t)ri->nb + 1, sizeof(span));
  for (int b = 0; b < ri->nb; b++)
    if (chain_buf(ri, b)) sp[b] = buf_span(ri, stage_of, b);
  frontiers_and_tapes(ch, ri, sp);
  backward_groups(ch, ri, sp);
  group_reads(ch, ri, sp);
  tails(ch, ri, sp);
  measure(ch, ri, sp);
  free(sp);
  free(stage_of);
}

void rt_chain_destroy(rt_chain *ch) {
  free(ch->start);
  free(ch->a);
  free(ch->tb);
  free(ch->ov);
  for (int m = 0; m < 2; m++) {
    free(ch->needS[m]);
    free(ch->needR[m]);
    free(ch->fr_cost[m]);
    free(ch->tape_after[m]);
    free(ch->r_start[m]);
    free(ch->r_pos[m]);
  }
  free(ch->gneed);
  free(ch->gneedx);
  free(ch->ghead);
  free(ch->gtail);
  free(ch->gtailx);
  free(ch->bgT);
  free(ch->carry);
  free(ch->ts);
  free(ch->c_start);
  free(ch->c);
  free(ch->bgF);
  free(ch->gcost);
  free(ch->hcost);
  free(ch->first_cost);
  free(ch->kin);
  free(ch->kx);
  free(ch->fix);
  free(ch->x_start);
  free(ch->x);
  free(ch->t_start);
  free(ch->t);
  free(ch->gstart);
  free(ch->gend);
  memset(ch, 0, sizeof *ch);
}
