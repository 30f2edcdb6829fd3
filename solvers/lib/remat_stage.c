/* remat_stage.c - see remat_stage.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_check.h"
#include "lib/remat_stage.h"
#include "solver.h"

/* ---- the model ---- */

/* CSR lists per position: reads and made buffers. */
static void build_lists(rs_model *m) {
  const mp_graph *g = m->g;
  int N = m->n_pos, nr = 0, nm = 0;
  for (int p = 0; p < N; p++) {
    int v = m->node[p];
    nr += g->n_reads[v];
    if (!g->nodes[v].has_alias) nm += g->nodes[v].n_out;
  }
  m->rd_start = mp_xcalloc((size_t)N + 1, sizeof(int));
  m->mk_start = mp_xcalloc((size_t)N + 1, sizeof(int));
  m->rd = mp_xmalloc(sizeof(int) * (size_t)(nr ? nr : 1));
  m->mk = mp_xmalloc(sizeof(int) * (size_t)(nm ? nm : 1));
  m->adds = mp_xcalloc((size_t)(N ? N : 1), sizeof(int64_t));
  m->ws = mp_xcalloc((size_t)(N ? N : 1), sizeof(int64_t));
  m->cost = mp_xcalloc((size_t)(N ? N : 1), sizeof(double));
  nr = nm = 0;
  for (int p = 0; p < N; p++) {
    int v = m->node[p];
    const mp_node *nd = &g->nodes[v];
    for (int i = 0; i < g->n_reads[v]; i++) m->rd[nr++] = g->reads[v][i];
    if (!nd->has_alias)
      for (int k = 0; k < nd->n_out; k++) /* root_of increases with k */
        if (g->root_of[v][k] >= 0) {
          m->mk[nm++] = g->root_of[v][k];
          m->adds[p] += g->bufs[g->root_of[v][k]].size;
        }
    m->rd_start[p + 1] = nr;
    m->mk_start[p + 1] = nm;
    m->ws[p] = g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0;
    m->cost[p] = nd->cost;
  }
}

/* Readers' positions per buffer, increasing. */
static void build_users(rs_model *m) {
  int nb = m->nb, N = m->n_pos;
  m->us_start = mp_xcalloc((size_t)nb + 1, sizeof(int));
  for (int p = 0; p < N; p++)
    for (int i = m->rd_start[p]; i < m->rd_start[p + 1]; i++) m->us_start[m->rd[i] + 1]++;
  for (int b = 0; b < nb; b++) m->us_start[b + 1] += m->us_start[b];
  int *fill = mp_xcalloc((size_t)(nb ? nb : 1), sizeof(int));
  m->us = mp_xmalloc(sizeof(int) * (size_t)(m->us_start[nb] ? m->us_start[nb] : 1));
  for (int p = 0; p < N; p++) /* increasing p: lists come out sorted */
    for (int i = m->rd_start[p]; i < m->rd_start[p + 1]; i++) {
      int b = m->rd[i];
      m->us[m->us_start[b] + fill[b]++] = p;
    }
  free(fill);
}

/* last_stage by decreasing position (readers come later), then the ranges
 * where keeping a buffer can matter. */
static void build_ranges(rs_model *m, const bool *fixed_node, const int *cap) {
  const mp_graph *g = m->g;
  int N = m->n_pos;
  m->last_stage = mp_xmalloc(sizeof(int) * (size_t)(N ? N : 1));
  for (int p = N - 1; p >= 0; p--) {
    int v = m->node[p], L = p;
    bool again = !fixed_node[v] && !g->nodes[v].has_alias && m->mk_start[p + 1] > m->mk_start[p];
    for (int i = m->mk_start[p]; again && i < m->mk_start[p + 1]; i++) {
      int b = m->mk[i];
      if (g->bufs[b].graph_output) L = N; /* made again in the tail */
      for (int j = m->us_start[b]; j < m->us_start[b + 1]; j++)
        if (m->last_stage[m->us[j]] > L) L = m->last_stage[m->us[j]];
    }
    m->last_stage[p] = cap && cap[p] < L ? (cap[p] > p ? cap[p] : p) : L;
  }
  for (int b = 0; b < m->nb; b++) {
    int last = -1;
    for (int j = m->us_start[b]; j < m->us_start[b + 1]; j++)
      if (m->last_stage[m->us[j]] > last) last = m->last_stage[m->us[j]];
    if (g->bufs[b].graph_output) last = N + 1;
    m->first_s[b] = m->own_pos[b] + 1; /* an input's: 0 */
    m->last_s[b] = last >= m->first_s[b] ? last : m->first_s[b] - 1;
  }
}

void rs_model_init(rs_model *m, const mp_graph *g, const int *order) {
  rs_model_init_capped(m, g, order, NULL);
}

void rs_model_init_capped(rs_model *m, const mp_graph *g, const int *order, const int *cap) {
  memset(m, 0, sizeof *m);
  m->g = g;
  int n = g->n;
  for (int b = 0; b < g->n_buf; b++) m->nb += g->bufs[b].kind == MP_BUF_TENSOR;
  m->node = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  m->pos = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  m->order = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  memcpy(m->order, order, sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) {
    int v = order[i];
    m->pos[v] = g->nodes[v].is_input ? -1 : m->n_pos;
    if (!g->nodes[v].is_input) m->node[m->n_pos++] = v;
  }
  size_t nb = (size_t)(m->nb ? m->nb : 1);
  bool *fixed_node = mp_xcalloc((size_t)(n ? n : 1), sizeof(bool));
  m->fixed_buf = mp_xcalloc((size_t)g->n_buf + 1, sizeof(bool));
  mp_remat_inplace(g, m->fixed_buf, fixed_node);
  m->size = mp_xmalloc(sizeof(int64_t) * nb);
  m->own_pos = mp_xmalloc(sizeof(int) * nb);
  m->first_s = mp_xmalloc(sizeof(int) * nb);
  m->last_s = mp_xmalloc(sizeof(int) * nb);
  for (int b = 0; b < m->nb; b++) {
    m->size[b] = g->bufs[b].size;
    m->own_pos[b] = m->pos[g->bufs[b].owner];
    if (g->bufs[b].born_at_start) m->fixed_buf[b] = true;
  }
  build_lists(m);
  build_users(m);
  build_ranges(m, fixed_node, cap);
  free(fixed_node);
}

void rs_model_destroy(rs_model *m) {
  free(m->node);
  free(m->pos);
  free(m->order);
  free(m->own_pos);
  free(m->first_s);
  free(m->last_s);
  free(m->fixed_buf);
  free(m->last_stage);
  free(m->size);
  free(m->adds);
  free(m->ws);
  free(m->cost);
  free(m->rd_start);
  free(m->rd);
  free(m->mk_start);
  free(m->mk);
  free(m->us_start);
  free(m->us);
  memset(m, 0, sizeof *m);
}

int64_t rs_need(const rs_model *m, int k) {
  int64_t s = m->adds[k] + m->ws[k];
  for (int i = m->rd_start[k]; i < m->rd_start[k + 1]; i++) s += m->size[m->rd[i]];
  return s;
}

bool rs_reads(const rs_model *m, int k, int b) {
  for (int i = m->rd_start[k]; i < m->rd_start[k + 1]; i++)
    if (m->rd[i] == b) return true;
  return false;
}

bool rs_touches(const rs_model *m, int k, int b) {
  if (rs_reads(m, k, b)) return true;
  for (int i = m->mk_start[k]; i < m->mk_start[k + 1]; i++)
    if (m->mk[i] == b) return true;
  return false;
}

/* ---- decisions ---- */

void rs_dec_init(const rs_model *m, rs_dec *d) {
  d->n_pos = m->n_pos;
  d->nb = m->nb;
  d->R = mp_xcalloc(((size_t)m->n_pos + 1) * (size_t)m->n_pos + 1, 1);
  d->S = mp_xcalloc(((size_t)m->n_pos + 2) * (size_t)m->nb + 1, 1);
}

void rs_dec_destroy(rs_dec *d) {
  free(d->R);
  free(d->S);
  memset(d, 0, sizeof *d);
}

void rs_dec_copy(rs_dec *dst, const rs_dec *src) {
  memcpy(dst->R, src->R, ((size_t)src->n_pos + 1) * (size_t)src->n_pos);
  memcpy(dst->S, src->S, ((size_t)src->n_pos + 2) * (size_t)src->nb);
}

double rs_cost(const rs_model *m, const rs_dec *d) {
  double c = 0;
  for (int t = 0; t <= m->n_pos; t++)
    for (int k = 0; k <= t && k < m->n_pos; k++)
      if (*rs_R(d, t, k)) c += m->cost[k];
  return c;
}

double rs_cost_unit(const rs_model *m) {
  double u = 0;
  for (int k = 0; k < m->n_pos; k++) {
    double x = m->cost[k];
    if (x == 0) continue;
    if (x != floor(x) || x > 1e12) return 0;
    double a = u, b = x;
    while (b > 0) {
      double r = fmod(a, b);
      a = b;
      b = r;
    }
    u = a;
  }
  return u;
}

double rs_bound_up(double v, double unit) {
  if (!isfinite(v)) return v;
  double tol = 1e-6 * fmax(1.0, fabs(v));
  if (unit > 0) return ceil((v - tol) / unit) * unit;
  return v - 1e-9 * fmax(1.0, fabs(v));
}

/* The last stage a buffer that cannot be made again must stay resident to:
 * its last reader's first run, or the end for a graph output. */
static int last_need(const rs_model *m, int b) {
  if (m->g->bufs[b].graph_output) return m->n_pos + 1;
  int last = m->first_s[b] - 1;
  for (int j = m->us_start[b]; j < m->us_start[b + 1]; j++)
    if (m->us[j] > last) last = m->us[j];
  return last;
}

/* S cut to where it can matter; unmakeable buffers kept while needed. */
static void clip_s(const rs_model *m, rs_dec *d) {
  for (int b = 0; b < m->nb; b++) {
    int need = m->fixed_buf[b] ? last_need(m, b) : -1;
    for (int t = 0; t <= m->n_pos + 1; t++) {
      uint8_t *s = rs_S(d, t, b);
      if (!rs_may_keep(m, t, b)) *s = 0;
      if (t >= m->first_s[b] && t <= need) *s = 1;
    }
    if (m->own_pos[b] < 0) *rs_S(d, 0, b) = 1; /* inputs are resident at the start */
  }
}

/* R of stage t from S[t], S[t+1]: the makers of newly kept buffers and the
 * closure over reads.  Drops wishes nothing can make; -1 when a read cannot
 * be met. */
static int stage_r(const rs_model *m, rs_dec *d, int t) {
  memset(rs_R(d, t, 0), 0, (size_t)m->n_pos);
  if (t < m->n_pos) *rs_R(d, t, t) = 1;
  for (int b = 0; b < m->nb; b++) {
    uint8_t *next = rs_S(d, t + 1, b);
    if (!*next || *rs_S(d, t, b)) continue;
    int o = m->own_pos[b];
    if (o == t) continue;
    if (o < 0 || m->fixed_buf[b] || !rs_may_run(m, t, o))
      *next = 0;
    else
      *rs_R(d, t, o) = 1;
  }
  for (int k = t < m->n_pos ? t : m->n_pos - 1; k >= 0; k--) {
    if (!*rs_R(d, t, k)) continue;
    for (int i = m->rd_start[k]; i < m->rd_start[k + 1]; i++) {
      int b = m->rd[i], o = m->own_pos[b];
      if (*rs_S(d, t, b)) continue;
      if (o < 0 || o >= k || m->fixed_buf[b] || !rs_may_run(m, t, o)) return -1;
      *rs_R(d, t, o) = 1;
    }
  }
  return 0;
}

int rs_complete(const rs_model *m, rs_dec *d) {
  int N = m->n_pos;
  clip_s(m, d);
  for (int round = 0; round <= N + 2; round++) {
    for (int t = 0; t <= N; t++)
      if (stage_r(m, d, t)) return -1;
    /* a buffer whose owner runs in a stage is not kept into it as well */
    bool changed = false;
    for (int t = 0; t <= N; t++)
      for (int k = 0; k < t && k < N; k++) {
        if (!*rs_R(d, t, k)) continue;
        for (int i = m->mk_start[k]; i < m->mk_start[k + 1]; i++)
          if (*rs_S(d, t, m->mk[i])) {
            *rs_S(d, t, m->mk[i]) = 0;
            changed = true;
          }
      }
    if (!changed) return 0;
  }
  return -1;
}

int rs_project(const rs_model *m, const mp_events *p, rs_dec *d) {
  int N = m->n_pos, t = 0;
  memset(d->R, 0, ((size_t)N + 1) * (size_t)N);
  memset(d->S, 0, ((size_t)N + 2) * (size_t)m->nb);
  uint8_t *res = mp_xcalloc((size_t)m->nb + 1, 1);
  bool *ran = mp_xcalloc((size_t)m->g->n + 1, sizeof(bool));
  for (int b = 0; b < m->nb; b++) res[b] = m->own_pos[b] < 0;
  memcpy(rs_S(d, 0, 0), res, (size_t)m->nb);
  int rc = 0, pending = -1; /* stage whose start is not yet recorded */
  for (int i = 0; i < p->n && rc == 0; i++) {
    mp_event e = p->ev[i];
    if (e.kind == MP_EV_OUT || e.kind == MP_EV_IN) rc = -1;
    if (e.kind == MP_EV_FREE && e.id >= 0 && e.id < m->nb) res[e.id] = 0;
    if (e.kind != MP_EV_RUN) continue;
    if (pending >= 0) memcpy(rs_S(d, pending, 0), res, (size_t)m->nb);
    pending = -1;
    int v = e.id;
    if (v < 0 || v >= m->g->n || m->pos[v] < 0) {
      rc = -1;
      break;
    }
    int q = m->pos[v];
    for (int j = m->mk_start[q]; j < m->mk_start[q + 1]; j++) res[m->mk[j]] = 1;
    if (!ran[v]) {
      ran[v] = true;
      if (q != t) rc = -1; /* first runs out of the order */
      pending = ++t;
    }
  }
  if (rc == 0 && t == N) {
    if (pending >= 0) memcpy(rs_S(d, pending, 0), res, (size_t)m->nb); /* no tail runs */
    memcpy(rs_S(d, N + 1, 0), res, (size_t)m->nb);
  }
  free(res);
  free(ran);
  if (rc || t != N) return -1;
  return rs_complete(m, d);
}

/* ---- the plan ---- */

/* In stage t: the last position that uses each buffer (reads or makes it),
 * or -1. */
static void stage_last_use(const rs_model *m, const rs_dec *d, int t, int *last) {
  for (int b = 0; b < m->nb; b++) last[b] = -1;
  for (int k = 0; k <= t && k < m->n_pos; k++) {
    if (!*rs_R(d, t, k)) continue;
    for (int i = m->rd_start[k]; i < m->rd_start[k + 1]; i++) last[m->rd[i]] = k;
    for (int i = m->mk_start[k]; i < m->mk_start[k + 1]; i++) last[m->mk[i]] = k;
  }
}

void rs_decode(const rs_model *m, const rs_dec *d, mp_events *out) {
  int N = m->n_pos;
  mp_events_clear(out);
  int *last = mp_xmalloc(sizeof(int) * (size_t)(m->nb ? m->nb : 1));
  uint8_t *res = mp_xcalloc((size_t)m->nb + 1, 1);
  for (int b = 0; b < m->nb; b++) res[b] = m->own_pos[b] < 0;
  for (int t = 0; t <= N; t++) {
    stage_last_use(m, d, t, last);
    for (int b = 0; b < m->nb; b++) /* unused and not kept: freed at the start */
      if (res[b] && last[b] < 0 && !*rs_S(d, t + 1, b)) {
        mp_events_push(out, MP_EV_FREE, b);
        res[b] = 0;
      }
    for (int k = 0; k <= t && k < N; k++) {
      if (!*rs_R(d, t, k)) continue;
      mp_events_push(out, MP_EV_RUN, m->node[k]);
      int a = m->rd_start[k], ae = m->rd_start[k + 1], c = m->mk_start[k], ce = m->mk_start[k + 1];
      for (int i = c; i < ce; i++) res[m->mk[i]] = 1;
      while (a < ae || c < ce) { /* reads and makes, merged in buffer-id order */
        int b = c >= ce || (a < ae && m->rd[a] < m->mk[c]) ? m->rd[a++] : m->mk[c++];
        if (last[b] == k && !*rs_S(d, t + 1, b) && res[b]) {
          mp_events_push(out, MP_EV_FREE, b);
          res[b] = 0;
        }
      }
    }
  }
  free(res);
  free(last);
}

int rs_decode_checked(const rs_model *m, const rs_dec *d, mp_ctx *c) {
  rs_decode(m, d, c->events);
  int64_t peak;
  mp_error err;
  bool invalid = mp_remat_check(c->g, c->start_order, c->events, false, &peak, &err) != 0;
  if (!invalid && peak <= c->budget) return 0;
  if (!invalid) /* the check passed: only the budget is missed */
    snprintf(err.msg, sizeof err.msg, "peak %lld over the budget %lld", (long long)peak,
             (long long)c->budget);
  mp_events_clear(c->events);
  snprintf(c->msg, sizeof c->msg, "decoding failed its own check: %.200s", err.msg);
  return -1;
}

/* ---- memory of the decoded plan ---- */

void rs_stage_peaks(const rs_model *m, const rs_dec *d, int64_t *peak, int *at) {
  int N = m->n_pos;
  int *last = mp_xmalloc(sizeof(int) * (size_t)(m->nb ? m->nb : 1));
  uint8_t *res = mp_xcalloc((size_t)m->nb + 1, 1);
  int64_t live = 0;
  for (int b = 0; b < m->nb; b++)
    if (m->own_pos[b] < 0) {
      res[b] = 1;
      live += m->size[b];
    }
  int64_t start = live;
  for (int t = 0; t <= N; t++) {
    peak[t] = t == 0 ? start : 0;
    at[t] = -1; /* the start sample (stage 0), or no run */
    stage_last_use(m, d, t, last);
    for (int b = 0; b < m->nb; b++)
      if (res[b] && last[b] < 0 && !*rs_S(d, t + 1, b)) {
        res[b] = 0;
        live -= m->size[b];
      }
    for (int k = 0; k <= t && k < N; k++) {
      if (!*rs_R(d, t, k)) continue;
      for (int i = m->mk_start[k]; i < m->mk_start[k + 1]; i++)
        if (!res[m->mk[i]]) {
          res[m->mk[i]] = 1;
          live += m->size[m->mk[i]];
        }
      if (live + m->ws[k] > peak[t] || (at[t] < 0 && t > 0)) {
        peak[t] = live + m->ws[k];
        at[t] = k;
      }
      for (int i = m->rd_start[k]; i < m->rd_start[k + 1] + (m->mk_start[k + 1] - m->mk_start[k]); i++) {
        int b = i < m->rd_start[k + 1] ? m->rd[i] : m->mk[m->mk_start[k] + i - m->rd_start[k + 1]];
        if (last[b] == k && !*rs_S(d, t + 1, b) && res[b]) {
          res[b] = 0;
          live -= m->size[b];
        }
      }
    }
  }
  free(res);
  free(last);
}
