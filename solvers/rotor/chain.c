/* chain.c - the chain rotor works on (rotor.h): stages of the forward cut
 * at small frontiers, their sizes and costs, the backward groups. */
#include <stdlib.h>
#include <string.h>

#include "rotor/rotor.h"

/* Last forward use of b (its production when none). */
static int last_fwd_use(const ri_info *ri, int b) {
  int lf = ri_prod(ri, b);
  for (int e = ri->ev_start[b] + 1; e < ri->ev_start[b + 1] && ri->ev[e] < ri->turn; e++) lf = ri->ev[e];
  return lf;
}

static bool droppable_fwd(const ri_info *ri, int b) {
  return (ri->flags[b] & RI_DROP) && ri_fwd_buf(ri, b);
}

/* Bytes of the droppable frontier after each position of the forward. */
static int64_t *drop_frontier(const ri_info *ri) {
  int T = ri->turn;
  int64_t *fb = mp_xcalloc((size_t)T + 2, sizeof(int64_t));
  for (int b = 0; b < ri->nb; b++) {
    if (!droppable_fwd(ri, b)) continue;
    int p = ri_prod(ri, b), lf = last_fwd_use(ri, b);
    if (lf <= p) continue;
    fb[p] += ri->size[b];
    fb[lf] -= ri->size[b];
  }
  for (int i = 1; i < T; i++) fb[i] += fb[i - 1];
  return fb;
}

/* Boundaries (the last position of each stage but the last): one pass
 * over the forward, the best candidate of each of max_stages - 1 windows
 * of equal cost (the fewest droppable frontier bytes, then the nearest to
 * the window's centre).  With frontier = 0 only articulation points are
 * candidates, and all of them when they are few enough. */
static int pick_boundaries(const ri_info *ri, int max_stages, int frontier, int *bnd) {
  int T = ri->turn, nb = 0;
  if (T <= 1 || max_stages <= 1) return 0;
  int64_t *fb = drop_frontier(ri);
  int ncut = 0;
  for (int i = 0; i + 1 < T; i++) ncut += ri->front_count[i] <= 1;
  if (!frontier && ncut <= max_stages - 1) {
    for (int i = 0; i + 1 < T; i++)
      if (ri->front_count[i] <= 1) bnd[nb++] = i;
    free(fb);
    return nb;
  }
  double total = 0;
  for (int p = 0; p < T; p++) total += ri->cost[ri->seq[p]] + 1e-3;
  double w = total / max_stages, c = 0;
  int win = -1;
  double best_d = 0;
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

/* CSR of the droppable forward buffers by stage: made in stage k (mk),
 * crossing boundary k (fr), made in k and read by the backward (sv). */
static void stage_lists(rt_chain *ch, const ri_info *ri, const int *stage_of) {
  int L = ch->L;
  ch->mk_start = mp_xcalloc((size_t)L + 3, sizeof(int));
  ch->fr_start = mp_xcalloc((size_t)L + 3, sizeof(int));
  ch->sv_start = mp_xcalloc((size_t)L + 3, sizeof(int));
  for (int pass = 0; pass < 2; pass++) {
    int *mf = pass ? mp_xmalloc(sizeof(int) * (size_t)(L + 2)) : NULL;
    int *ff = pass ? mp_xmalloc(sizeof(int) * (size_t)(L + 2)) : NULL;
    int *sf = pass ? mp_xmalloc(sizeof(int) * (size_t)(L + 2)) : NULL;
    if (pass)
      for (int k = 0; k <= L; k++) mf[k] = ch->mk_start[k], ff[k] = ch->fr_start[k], sf[k] = ch->sv_start[k];
    for (int b = 0; b < ri->nb; b++) {
      if (!droppable_fwd(ri, b)) continue;
      int p = ri_prod(ri, b), k0 = stage_of[p], lf = last_fwd_use(ri, b);
      bool bwd = ri->last_use[b] >= ri->turn;
      if (pass) ch->mk[mf[k0]++] = b; else ch->mk_start[k0 + 1]++;
      int k = k0;
      for (; k < L && ch->start[k + 1] - 1 < lf; k++) {
        if (pass) ch->fr[ff[k]++] = b; else ch->fr_start[k + 1]++;
        ch->a[k] += pass ? 0 : ri->size[b];
      }
      if (bwd && k == k0) {
        if (pass) ch->svb[sf[k0]++] = b; else ch->sv_start[k0 + 1]++;
        ch->sv[k0] += pass ? 0 : ri->size[b];
      }
    }
    if (!pass) {
      for (int k = 0; k <= L; k++) {
        ch->mk_start[k + 1] += ch->mk_start[k];
        ch->fr_start[k + 1] += ch->fr_start[k];
        ch->sv_start[k + 1] += ch->sv_start[k];
      }
      ch->mk = mp_xmalloc(sizeof(int) * (size_t)(ch->mk_start[L + 1] + 1));
      ch->fr = mp_xmalloc(sizeof(int) * (size_t)(ch->fr_start[L + 1] + 1));
      ch->svb = mp_xmalloc(sizeof(int) * (size_t)(ch->sv_start[L + 1] + 1));
    }
    free(mf);
    free(ff);
    free(sf);
  }
}

/* pk and f: each stage's forward swept alone. */
static void stage_costs(rt_chain *ch, const ri_info *ri, const int *stage_of) {
  int T = ri->turn;
  int64_t *diff = mp_xcalloc((size_t)T + 2, sizeof(int64_t));
  for (int b = 0; b < ri->nb; b++) {
    if (!droppable_fwd(ri, b)) continue;
    int p = ri_prod(ri, b), k = stage_of[p], end = last_fwd_use(ri, b);
    if (end > ch->start[k + 1] - 1) end = ch->start[k + 1] - 1;
    diff[p] += ri->size[b];
    diff[end + 1] -= ri->size[b];
  }
  for (int k = 1; k <= ch->L; k++) {
    int64_t live = 0;
    for (int p = ch->start[k]; p < ch->start[k + 1]; p++) {
      live += diff[p];
      if (live > ch->pk[k]) ch->pk[k] = live;
      int v = ri->seq[p];
      bool makes = false;
      for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) makes |= droppable_fwd(ri, ri->own[i]);
      if (makes) ch->f[k] += ri->cost[v];
    }
  }
  free(diff);
}

static void backward_groups(rt_chain *ch, const ri_info *ri, const int *stage_of) {
  int L = ch->L, g = L;
  ch->gstart = mp_xcalloc((size_t)L + 2, sizeof(int));
  ch->gend = mp_xcalloc((size_t)L + 2, sizeof(int));
  for (int k = 1; k <= L; k++) ch->gend[k] = ri->m;
  for (int q = ri->turn; q < ri->m; q++) {
    int v = ri->seq[q];
    for (int k = 0; k < ri_nreads(ri, v); k++) {
      int r = ri_read(ri, v, k);
      if (droppable_fwd(ri, r) && stage_of[ri_prod(ri, r)] < g) {
        for (int j = stage_of[ri_prod(ri, r)] + 1; j <= g; j++) ch->gend[j] = q;
        g = stage_of[ri_prod(ri, r)];
      }
    }
  }
  ch->gstart[L] = ri->turn;
  for (int k = L - 1; k >= 1; k--) ch->gstart[k] = ch->gend[k + 1];
  for (int k = 1; k <= L; k++)
    if (ch->gend[k] < ch->gstart[k]) ch->gend[k] = ch->gstart[k];
}

/* The background (everything but the chain's droppable forward buffers)
 * of the keep-all plan: resident before each position, and sampled at its
 * run. */
static void background(rt_chain *ch, const ri_info *ri) {
  int m = ri->m, L = ch->L, T = ri->turn;
  int64_t *before = mp_xcalloc((size_t)m + 2, sizeof(int64_t));
  for (int b = 0; b < ri->nb; b++) {
    if (!(ri->flags[b] & RI_TENSOR) || droppable_fwd(ri, b)) continue;
    int lo = ri_prod(ri, b) + 1, hi = ri->last_use[b] < m ? ri->last_use[b] : m;
    if (lo > hi) continue;
    before[lo] += ri->size[b];
    before[hi + 1] -= ri->size[b];
  }
  for (int q = 1; q <= m; q++) before[q] += before[q - 1];
  int64_t *at = mp_xmalloc(sizeof(int64_t) * (size_t)(m + 1));
  for (int q = 0; q < m; q++) {
    int v = ri->seq[q];
    at[q] = before[q] + ri_ws(ri, v);
    for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++)
      if (!droppable_fwd(ri, ri->own[i])) at[q] += ri->size[ri->own[i]];
  }
  ch->bgS = mp_xcalloc((size_t)L + 2, sizeof(int64_t));
  ch->bgF = mp_xcalloc((size_t)L + 2, sizeof(int64_t));
  ch->bgB = mp_xcalloc((size_t)L + 2, sizeof(int64_t));
  for (int k = 1; k <= L; k++) {
    ch->bgF[k] = ch->bgB[k] = before[ch->gstart[k]];
    for (int q = ch->gstart[k]; q < ch->gend[k]; q++)
      if (at[q] > ch->bgB[k]) ch->bgB[k] = at[q];
    for (int q = ch->start[k]; q < ch->start[k + 1]; q++)
      if (at[q] > ch->bgS[k]) ch->bgS[k] = at[q];
  }
  (void)T;
  ch->at = at;
  free(before);
}

/* bneed: per group, the background at each position plus the bytes of the
 * stage's saved buffers and read frontier not yet past their last use. */
static void backward_need(rt_chain *ch, const ri_info *ri) {
  int L = ch->L;
  ch->bneed = mp_xcalloc((size_t)L + 2, sizeof(int64_t));
  int64_t *live = mp_xcalloc((size_t)ri->m + 2, sizeof(int64_t));
  ch->ain = mp_xcalloc((size_t)L + 2, sizeof(int64_t));
  for (int k = 1; k <= L; k++) {
    int g0 = ch->gstart[k], g1 = ch->gend[k];
    for (int i = ch->fr_start[k - 1]; i < ch->fr_start[k]; i++) { /* the input frontier */
      int b = ch->fr[i];
      for (int e = ri->ev_start[b] + 1; e < ri->ev_start[b + 1]; e++)
        if (ri->ev[e] >= g0 && ri->ev[e] < g1) {
          ch->ain[k] += ri->size[b];
          break;
        }
    }
    for (int pass = 0; pass < 2; pass++) {
      const int *st = pass ? ch->fr_start : ch->sv_start, *list = pass ? ch->fr : ch->svb;
      for (int i = st[k]; i < st[k + 1]; i++) {
        int b = list[i], last = ri->last_use[b] < g1 ? ri->last_use[b] : g1 - 1;
        bool read = false;
        for (int e = ri->ev_start[b] + 1; e < ri->ev_start[b + 1]; e++) read |= ri->ev[e] >= g0 && ri->ev[e] < g1;
        if (!read || last < g0) continue;
        if (pass) ch->ab[k] += ri->size[b];
        live[g0] += ri->size[b];
        live[last + 1] -= ri->size[b];
      }
    }
    int64_t run = 0;
    ch->bneed[k] = ch->bgB[k];
    for (int q = g0; q < g1; q++) {
      run += live[q];
      if (ch->at[q] + run > ch->bneed[k]) ch->bneed[k] = ch->at[q] + run;
    }
    for (int q = g0; q <= g1; q++) live[q] = 0;
  }
  free(live);
}

static void build(rt_chain *ch, const ri_info *ri, const int *bnd, int nb) {
  memset(ch, 0, sizeof *ch);
  int T = ri->turn;
  int L = ch->L = T > 0 ? nb + 1 : 0;
  ch->start = mp_xcalloc((size_t)L + 2, sizeof(int));
  for (int k = 1; k <= L; k++) ch->start[k] = k == 1 ? 0 : bnd[k - 2] + 1;
  ch->start[L + 1] = T;
  ch->a = mp_xcalloc((size_t)L + 2, sizeof(int64_t));
  ch->sv = mp_xcalloc((size_t)L + 2, sizeof(int64_t));
  ch->pk = mp_xcalloc((size_t)L + 2, sizeof(int64_t));
  ch->ab = mp_xcalloc((size_t)L + 2, sizeof(int64_t));
  ch->f = mp_xcalloc((size_t)L + 2, sizeof(double));
  int *stage_of = mp_xmalloc(sizeof(int) * (size_t)(T + 1));
  for (int k = 1; k <= L; k++)
    for (int p = ch->start[k]; p < ch->start[k + 1]; p++) stage_of[p] = k;
  stage_lists(ch, ri, stage_of);
  stage_costs(ch, ri, stage_of);
  backward_groups(ch, ri, stage_of);
  background(ch, ri);
  backward_need(ch, ri);
  free(stage_of);
}

/* A stage whose backward group is empty has no backward of its own (a node
 * that reads it also reads a lower stage): it joins the stage below (stage
 * 1 the stage above), and the chain is rebuilt until every group has a
 * node. */
void rt_chain_init(rt_chain *ch, const ri_info *ri, int max_stages, int frontier) {
  int *bnd = mp_xmalloc(sizeof(int) * (size_t)(max_stages + 1));
  int nb = pick_boundaries(ri, max_stages, frontier, bnd);
  for (;;) {
    build(ch, ri, bnd, nb);
    int kept = 0;
    for (int k = 2; k <= ch->L; k++) { /* bnd[k - 2] starts stage k */
      bool empty = ch->gstart[k] == ch->gend[k] || (k == 2 && ch->gstart[1] == ch->gend[1]);
      if (!empty) bnd[kept++] = bnd[k - 2];
    }
    if (kept == nb) break;
    nb = kept;
    rt_chain_destroy(ch);
  }
  free(bnd);
}

void rt_chain_destroy(rt_chain *ch) {
  free(ch->start);
  free(ch->a);
  free(ch->sv);
  free(ch->pk);
  free(ch->ab);
  free(ch->ain);
  free(ch->bneed);
  free(ch->at);
  free(ch->f);
  free(ch->fr_start);
  free(ch->fr);
  free(ch->sv_start);
  free(ch->svb);
  free(ch->mk_start);
  free(ch->mk);
  free(ch->gstart);
  free(ch->gend);
  free(ch->bgS);
  free(ch->bgF);
  free(ch->bgB);
  memset(ch, 0, sizeof *ch);
}
