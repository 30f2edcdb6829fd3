/* remat_milp.c - building the models of remat_milp.h.  Rows are collected
 * term by term (fixed decisions go to the bounds) and handed to GLPK. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_check.h"
#include "lib/remat_milp.h"

/* ---- rows ---- */

typedef struct row {
  int n, cap;
  int *ind; /* 1-based, as GLPK wants */
  double *val;
  double cst;
} row;

typedef struct builder {
  rm_milp *x;
  const rs_model *m;
  row r;         /* rows built in one go */
  row mem;       /* the memory recurrence, built around free columns */
  double B;      /* the budget in model units */
  bool integer;
  long max_cols;
  char name[64];
} builder;

static void row_col(row *r, int col, double v) {
  if (r->n + 2 > r->cap) {
    r->cap = r->cap ? 2 * r->cap : 32;
    r->ind = mp_xrealloc(r->ind, sizeof(int) * (size_t)r->cap);
    r->val = mp_xrealloc(r->val, sizeof(double) * (size_t)r->cap);
  }
  r->n++;
  r->ind[r->n] = col;
  r->val[r->n] = v;
}

/* A decision's column (or constant) times coef. */
static void row_dec(row *r, int col, double coef) {
  if (col == RM_ONE)
    r->cst += coef;
  else if (col != RM_ZERO)
    row_col(r, col, coef);
}

static int rcol(const rm_milp *x, int t, int k) { return rm_rcol(x, t, k); }
static int scol(const rm_milp *x, int t, int b) { return rm_scol(x, t, b); }

/* lo <= terms + cst <= hi as a GLPK row; a row without columns only
 * records whether it fails. */
static void emit_row(builder *bd, row *r, int type, double lo, double hi) {
  if (r->n == 0) {
    double eps = 1e-9;
    if (((type == GLP_LO || type == GLP_DB || type == GLP_FX) && r->cst < lo - eps) ||
        ((type == GLP_UP || type == GLP_DB || type == GLP_FX) && r->cst > hi + eps))
      bd->x->empty_row_fails = true;
    r->cst = 0;
    return;
  }
  glp_prob *P = bd->x->P;
  int i = glp_add_rows(P, 1);
  glp_set_mat_row(P, i, r->n, r->ind, r->val);
  glp_set_row_bnds(P, i, type, lo - r->cst, hi - r->cst);
  r->n = 0;
  r->cst = 0;
}

static void emit(builder *bd, int type, double lo, double hi) {
  emit_row(bd, &bd->r, type, lo, hi);
}

static int add_col(builder *bd, double lo, double hi, bool binary, double obj) {
  glp_prob *P = bd->x->P;
  int j = glp_add_cols(P, 1);
  if (binary)
    glp_set_col_kind(P, j, GLP_BV);
  else
    glp_set_col_bnds(P, j, lo < hi ? GLP_DB : GLP_FX, lo, hi);
  if (obj != 0) glp_set_obj_coef(P, j, obj);
  if (bd->name[0]) glp_set_col_name(P, j, bd->name);
  return j;
}

static void add_aux(rm_milp *x, rm_aux_kind kind, int col, int t, int b, int k) {
  if (x->n_aux == x->cap_aux) {
    x->cap_aux = x->cap_aux ? 2 * x->cap_aux : 1024;
    x->aux = mp_xrealloc(x->aux, sizeof(rm_aux) * (size_t)x->cap_aux);
  }
  x->aux[x->n_aux++] = (rm_aux){kind, col, t, b, k};
}

/* ---- the decisions ---- */

static void decision_cols(builder *bd) {
  rm_milp *x = bd->x;
  const rs_model *m = bd->m;
  int N = m->n_pos, nb = m->nb;
  x->rcol = mp_xcalloc(((size_t)N + 1) * (size_t)N + 1, sizeof(int));
  x->scol = mp_xcalloc(((size_t)N + 2) * (size_t)nb + 1, sizeof(int));
  for (int t = 0; t <= N; t++) {
    if (t < N) {
      x->obj_const += m->cost[t];
      x->rcol[(size_t)t * N + t] = RM_ONE;
    }
    for (int k = 0; k < t && k < N; k++) {
      if (!rs_may_run(m, t, k)) continue;
      snprintf(bd->name, sizeof bd->name, "R_%d_%d", t, k);
      x->rcol[(size_t)t * N + k] = add_col(bd, 0, 1, bd->integer, m->cost[k]);
    }
  }
  for (int b = 0; b < nb; b++)
    for (int t = 0; t <= N + 1; t++) {
      int *s = &x->scol[(size_t)t * nb + b];
      if ((t == 0 && m->own_pos[b] < 0) || (t == N + 1 && m->last_s[b] == N + 1))
        *s = RM_ONE; /* inputs at the start, graph outputs at the end */
      else if (rs_may_keep(m, t, b)) {
        snprintf(bd->name, sizeof bd->name, "S_%d_%d", t, b);
        *s = add_col(bd, 0, 1, false, 0);
      }
    }
}

/* The R column of b's owner in stage t (RM_ZERO when it cannot run). */
static int owner_r(const rm_milp *x, int t, int b) {
  int o = x->m->own_pos[b];
  return o >= 0 && o <= t && o < x->m->n_pos && rs_may_run(x->m, t, o) ? rcol(x, t, o) : RM_ZERO;
}

/* reads, keeping and (stage shape) no double residency, for stage t */
static void logic_rows(builder *bd, int t) {
  rm_milp *x = bd->x;
  const rs_model *m = bd->m;
  row *r = &bd->r;
  for (int k = 0; k <= t && k < m->n_pos; k++) {
    if (rcol(x, t, k) == RM_ZERO || (x->lazy && k < t)) continue; /* reruns: rm_separate */
    for (int i = m->rd_start[k]; i < m->rd_start[k + 1]; i++) {
      int b = m->rd[i];
      row_dec(r, rcol(x, t, k), 1);
      row_dec(r, scol(x, t, b), -1);
      row_dec(r, owner_r(x, t, b), -1);
      emit(bd, GLP_UP, 0, 0);
    }
  }
  for (int b = 0; b < m->nb; b++) {
    int next = scol(x, t + 1, b);
    if (next == RM_ZERO || m->own_pos[b] == t) continue;
    row_dec(r, next, 1);
    row_dec(r, scol(x, t, b), -1);
    row_dec(r, owner_r(x, t, b), -1);
    emit(bd, GLP_UP, 0, 0);
  }
  if (x->kind != RM_STAGE || x->lazy) return;
  for (int k = 0; k < t && k < m->n_pos; k++) {
    if (rcol(x, t, k) == RM_ZERO) continue;
    for (int i = m->mk_start[k]; i < m->mk_start[k + 1]; i++) {
      int s = scol(x, t, m->mk[i]);
      if (s == RM_ZERO) continue;
      row_dec(r, s, 1);
      row_dec(r, rcol(x, t, k), 1);
      emit(bd, GLP_UP, 0, 1);
    }
  }
}

/* ---- the stage shape's memory ---- */

/* A free column of b after position k in stage t (k = -1: at the stage's
 * start), bounded by the events that forbid it; 0 when it is always 0. */
static int free_col(builder *bd, int t, int b, int k) {
  rm_milp *x = bd->x;
  const rs_model *m = bd->m;
  row *r = &bd->r;
  int next = scol(x, t + 1, b), here = k < 0 ? scol(x, t, b) : rcol(x, t, k);
  if (next == RM_ONE || here == RM_ZERO) return 0;
  int later = 0; /* users after k in the stage */
  for (int j = m->us_start[b]; j < m->us_start[b + 1]; j++) {
    int u = m->us[j];
    if (u <= k || u > t || rcol(x, t, u) == RM_ZERO) continue;
    if (rcol(x, t, u) == RM_ONE) return 0;
    later++;
  }
  snprintf(bd->name, sizeof bd->name, k < 0 ? "F0_%d_%d" : "FREE_%d_%d_%d", t, b, k);
  int col = add_col(bd, 0, 1, false, 0);
  add_aux(x, k < 0 ? RM_F0 : RM_FREE, col, t, b, k);
  if (here != RM_ONE) {
    row_col(r, col, 1);
    row_dec(r, here, -1);
    emit(bd, GLP_UP, 0, 0);
  }
  if (next != RM_ZERO) {
    row_col(r, col, 1);
    row_dec(r, next, 1);
    emit(bd, GLP_UP, 0, 1);
  }
  bool each = later <= 6; /* one row per user, or one aggregated row */
  for (int j = m->us_start[b]; j < m->us_start[b + 1]; j++) {
    int u = m->us[j];
    if (u <= k || u > t || rcol(x, t, u) == RM_ZERO) continue;
    row_dec(r, rcol(x, t, u), 1);
    if (each) {
      row_col(r, col, 1);
      emit(bd, GLP_UP, 0, 1);
    }
  }
  if (!each) {
    row_col(r, col, later);
    emit(bd, GLP_UP, 0, later);
  }
  return col;
}

static void stage_memory(builder *bd, int t) {
  rm_milp *x = bd->x;
  const rs_model *m = bd->m;
  row *r = &bd->mem;
  double sc = x->scale;
  int prev_u = 0, prev_k = -1;
  for (int k = 0; k <= t && k < m->n_pos; k++) {
    int rk = rcol(x, t, k);
    if (rk == RM_ZERO) continue;
    snprintf(bd->name, sizeof bd->name, "U_%d_%d", t, k);
    int u = add_col(bd, 0, bd->B, false, 0);
    add_aux(x, RM_U, u, t, -1, k);
    row_col(r, u, 1);
    row_dec(r, rk, -(double)m->adds[k] / sc);
    if (prev_u == 0) { /* the first run of the stage: what the stage starts with */
      for (int b = 0; b < m->nb; b++) {
        int s = scol(x, t, b);
        if (s == RM_ZERO) continue;
        row_dec(r, s, -(double)m->size[b] / sc);
        int f = free_col(bd, t, b, -1);
        if (f) row_col(r, f, (double)m->size[b] / sc);
      }
    } else {
      row_col(r, prev_u, -1);
      int a = m->rd_start[prev_k], ae = m->rd_start[prev_k + 1];
      int c = m->mk_start[prev_k], ce = m->mk_start[prev_k + 1];
      while (a < ae || c < ce) {
        int b = c >= ce || (a < ae && m->rd[a] < m->mk[c]) ? m->rd[a++] : m->mk[c++];
        int f = free_col(bd, t, b, prev_k);
        if (f) row_col(r, f, (double)m->size[b] / sc);
      }
    }
    emit_row(bd, r, GLP_FX, 0, 0);
    if (m->ws[k] > 0) {
      row_col(r, u, 1);
      row_dec(r, rk, (double)m->ws[k] / sc);
      emit_row(bd, r, GLP_UP, -1e30, bd->B);
    }
    prev_u = u;
    prev_k = k;
  }
}

/* ---- the relaxation's memory (every plan) ---- */

/* Keep[t,b] for every buffer (0: none), and their sum K[t]. */
static int keep_cols(builder *bd, int t, int *keep) {
  rm_milp *x = bd->x;
  const rs_model *m = bd->m;
  row *r = &bd->r;
  row *k_row = &bd->mem;
  for (int b = 0; b < m->nb; b++) {
    keep[b] = 0;
    int s = scol(x, t, b), next = scol(x, t + 1, b);
    bool read_last = t < m->n_pos && rs_reads(m, t, b);
    if (s == RM_ZERO || (!read_last && next == RM_ZERO)) continue;
    snprintf(bd->name, sizeof bd->name, "Keep_%d_%d", t, b);
    keep[b] = add_col(bd, 0, 1, false, 0);
    add_aux(x, RM_KEEP, keep[b], t, b, read_last);
    row_col(r, keep[b], 1);
    row_dec(r, s, -1);
    row_dec(r, owner_r(x, t, b), 1);
    if (!read_last) row_dec(r, next, -1);
    emit(bd, GLP_LO, read_last ? 0 : -1, 1e30);
    row_col(k_row, keep[b], -(double)m->size[b] / x->scale);
  }
  snprintf(bd->name, sizeof bd->name, "K_%d", t);
  int K = add_col(bd, 0, 1e30, false, 0);
  glp_set_col_bnds(x->P, K, GLP_LO, 0, 0);
  add_aux(x, RM_K, K, t, -1, -1);
  row_col(k_row, K, 1);
  emit_row(bd, k_row, GLP_LO, 0, 1e30);
  return K;
}

static void bound_memory(builder *bd, int t, int *keep) {
  rm_milp *x = bd->x;
  const rs_model *m = bd->m;
  row *r = &bd->r;
  double sc = x->scale;
  int K = 0;
  for (int j = 0; j < t && j < m->n_pos; j++) {
    int rj = rcol(x, t, j);
    if (rj == RM_ZERO) continue;
    if (!K) K = keep_cols(bd, t, keep);
    row_col(r, K, 1);
    for (int b = 0; b < m->nb; b++)
      if (keep[b] && rs_touches(m, j, b)) row_col(r, keep[b], -(double)m->size[b] / sc);
    row_dec(r, rj, (double)rs_need(m, j) / sc);
    emit(bd, GLP_UP, -1e30, bd->B);
  }
}

/* ---- both models ---- */

/* The last run of stage t (the first run of t): what is kept into t + 1
 * beside what t reads and makes (exact, see the header). */
static void last_run_row(builder *bd, int t) {
  rm_milp *x = bd->x;
  const rs_model *m = bd->m;
  row *r = &bd->r;
  for (int b = 0; b < m->nb; b++)
    if (!rs_touches(m, t, b)) row_dec(r, scol(x, t + 1, b), (double)m->size[b] / x->scale);
  emit(bd, GLP_UP, -1e30, bd->B - (double)rs_need(m, t) / x->scale);
}

/* ---- the model ---- */

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Columns the model will have, roughly, before building it (the size cap). */
static long estimate_cols(const rs_model *m, rm_kind kind) {
  long cols = 0;
  for (int t = 0; t <= m->n_pos; t++)
    for (int k = 0; k <= t && k < m->n_pos; k++)
      if (rs_may_run(m, t, k))
        cols += 2 + (kind == RM_STAGE ? (m->rd_start[k + 1] - m->rd_start[k]) +
                                            (m->mk_start[k + 1] - m->mk_start[k])
                                      : 0);
  for (int b = 0; b < m->nb; b++)
    if (m->last_s[b] >= m->first_s[b]) cols += (long)(m->last_s[b] - m->first_s[b] + 1) * 2;
  return cols;
}

int rm_size_cap(const rs_model *m, rm_kind kind, bool lazy, long max_cols, mp_error *err) {
  long est = estimate_cols(m, lazy ? RM_BOUND : kind);
  if (max_cols > 0 && est > max_cols)
    return mp_errorf(err, "the model would have about %ld columns, over max_cols=%ld", est, max_cols);
  return 0;
}

int rm_build(rm_milp *x, const rs_model *m, rm_kind kind, int64_t budget, bool integer, bool lazy,
             long max_cols, double deadline, mp_error *err) {
  double t0 = mp_now();
  memset(x, 0, sizeof *x);
  x->m = m;
  x->kind = kind;
  x->lazy = lazy;
  if (rm_size_cap(m, kind, lazy, max_cols, err)) return -1;
  int64_t unit = 0, big = 1, small = INT64_MAX;
  for (int b = 0; b < m->g->n_buf; b++)
    if (m->g->bufs[b].size > 0) {
      unit = gcd64(m->g->bufs[b].size, unit);
      if (m->g->bufs[b].size > big) big = m->g->bufs[b].size;
      if (m->g->bufs[b].size < small) small = m->g->bufs[b].size;
    }
  if (unit <= 0) unit = 1;
  /* A bound is a proof: GLPK's double-precision LP stated bounds above
   * the true optimum once sizes spanned ~1e13:1 (a 2^54-byte buffer beside
   * 7-byte ones, tests/py/audit.py --claims); no proof beyond 2^32:1. */
  if (kind == RM_BOUND && small < big && (double)big / (double)small > RM_BOUND_RANGE)
    return mp_errorf(err, "buffer sizes span %.3g:1, beyond the %.3g:1 the LP bound is trusted in",
                     (double)big / (double)small, RM_BOUND_RANGE);
  x->scale = big > 64 ? (double)big / 64.0 : 1.0;
  builder bd = {.x = x, .m = m, .integer = integer, .max_cols = max_cols};
  /* memory is a multiple of unit: half a unit of slack absorbs tolerances */
  bd.B = x->budget = ((double)(budget / unit) + 0.5) * (double)unit / x->scale;
  x->P = glp_create_prob();
  glp_set_prob_name(x->P, kind == RM_STAGE ? "memplan_remat_stage" : "memplan_remat_bound");
  glp_set_obj_dir(x->P, GLP_MIN);
  decision_cols(&bd);
  int *keep = mp_xmalloc(sizeof(int) * (size_t)(m->nb ? m->nb : 1));
  bool late = false;
  for (int t = 0; t <= m->n_pos && !late; t++) {
    if ((t & 15) == 0 && deadline > 0 && mp_now() >= deadline) late = true;
    logic_rows(&bd, t);
    if (t < m->n_pos) last_run_row(&bd, t);
    if (lazy)
      continue;
    if (kind == RM_STAGE)
      stage_memory(&bd, t);
    else
      bound_memory(&bd, t, keep);
  }
  glp_set_obj_coef(x->P, 0, x->obj_const);
  free(keep);
  free(bd.r.ind);
  free(bd.r.val);
  free(bd.mem.ind);
  free(bd.mem.val);
  x->build_s = mp_now() - t0;
  if (late) {
    rm_destroy(x);
    mp_errorf(err, "the time limit ended the model's build");
    return RM_BUILD_TIME;
  }
  return 0;
}

void rm_destroy(rm_milp *x) {
  if (x->P) glp_delete_prob(x->P);
  free(x->rcol);
  free(x->scol);
  free(x->aux);
  memset(x, 0, sizeof *x);
}

/* ---- points and decisions ---- */

/* May b be freed after position k of stage t (k = -1: at its start)?  The
 * rule both rs_decode and the model's free columns follow. */
static bool may_free(const rs_model *m, const rs_dec *d, int t, int b, int k) {
  if (*rs_S(d, t + 1, b) || !(k < 0 ? *rs_S(d, t, b) : *rs_R(d, t, k))) return false;
  for (int j = m->us_start[b]; j < m->us_start[b + 1]; j++) {
    int u = m->us[j];
    if (u > k && u <= t && *rs_R(d, t, u)) return false;
  }
  return true;
}

/* U of stage t at each position (model units): memory after each run. */
static void stage_u(const rm_milp *x, const rs_dec *d, int t, double *u) {
  const rs_model *m = x->m;
  double live = 0;
  for (int b = 0; b < m->nb; b++)
    if (*rs_S(d, t, b) && !may_free(m, d, t, b, -1)) live += (double)m->size[b] / x->scale;
  for (int k = 0; k <= t && k < m->n_pos; k++) {
    if (!*rs_R(d, t, k)) {
      u[k] = live;
      continue;
    }
    live += (double)m->adds[k] / x->scale;
    u[k] = live;
    for (int i = m->rd_start[k]; i < m->rd_start[k + 1]; i++)
      if (may_free(m, d, t, m->rd[i], k)) live -= (double)m->size[m->rd[i]] / x->scale;
    for (int i = m->mk_start[k]; i < m->mk_start[k + 1]; i++)
      if (may_free(m, d, t, m->mk[i], k)) live -= (double)m->size[m->mk[i]] / x->scale;
  }
}

/* Keep[t,b] at decisions d (k: t reads b). */
static double keep_value(const rm_milp *x, const rs_dec *d, int t, int b, bool read_last) {
  const rs_model *m = x->m;
  int o = m->own_pos[b];
  int remade = o >= 0 && o <= t && *rs_R(d, t, o);
  int v = *rs_S(d, t, b) - remade - (read_last ? 0 : 1 - *rs_S(d, t + 1, b));
  return v > 0 ? 1.0 : 0.0;
}

void rm_point(const rm_milp *x, const rs_dec *d, double *col) {
  const rs_model *m = x->m;
  int N = m->n_pos;
  for (int t = 0; t <= N; t++)
    for (int k = 0; k < t && k < N; k++)
      if (rcol(x, t, k) > 0) col[rcol(x, t, k)] = *rs_R(d, t, k);
  for (int t = 0; t <= N + 1; t++)
    for (int b = 0; b < m->nb; b++)
      if (scol(x, t, b) > 0) col[scol(x, t, b)] = *rs_S(d, t, b);
  double *u = mp_xmalloc(sizeof(double) * (size_t)(N ? N : 1)), ksum = 0;
  int ut = -1;
  for (int i = 0; i < x->n_aux; i++) {
    const rm_aux *a = &x->aux[i];
    switch (a->kind) {
    case RM_F0:
    case RM_FREE:
      col[a->col] = may_free(m, d, a->t, a->b, a->k);
      break;
    case RM_U:
      if (a->t != ut) stage_u(x, d, ut = a->t, u);
      col[a->col] = u[a->k];
      break;
    case RM_KEEP:
      col[a->col] = keep_value(x, d, a->t, a->b, a->k);
      ksum += col[a->col] * (double)m->size[a->b] / x->scale;
      break;
    case RM_K: /* after the stage's Keep columns */
      col[a->col] = ksum;
      ksum = 0;
      break;
    }
  }
  free(u);
}

int rm_decisions(const rm_milp *x, const double *col, rs_dec *d) {
  const rs_model *m = x->m;
  int N = m->n_pos;
  for (int t = 0; t <= N; t++)
    for (int k = 0; k < N; k++) {
      int c = rcol(x, t, k);
      *rs_R(d, t, k) = c == RM_ONE || (c > 0 && col[c] > 0.5);
    }
  for (int t = 0; t <= N + 1; t++)
    for (int b = 0; b < m->nb; b++) *rs_S(d, t, b) = rm_s_value(x, col, t, b) > 1 - 1e-6;
  return rs_complete(m, d);
}

double rm_s_value(const rm_milp *x, const double *col, int t, int b) {
  int c = scol(x, t, b);
  return c == RM_ONE ? 1.0 : c == RM_ZERO ? 0.0 : col[c];
}

/* ---- the LP and the row generation ---- */

static void read_prim(glp_prob *P, double *col) {
  int n = glp_get_num_cols(P);
  for (int j = 1; j <= n; j++) col[j] = glp_get_col_prim(P, j);
}

int rm_solve_lp(rm_milp *x, const mp_ctx *c, double *col) {
  glp_smcp sp;
  glp_init_smcp(&sp);
  sp.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
  sp.meth = GLP_DUALP;
  /* GLPK's scaling and the simplex's setup cannot be interrupted: each
   * costs about as much as the build (mobilenet_v2_train_b32: 0.4-1.2 s) */
  if (rm_no_time(c, x, 2)) return RM_LP_TIME;
  glp_scale_prob(x->P, GLP_SF_AUTO);
  for (bool first = true;; first = false) {
    if (!first && rm_no_time(c, x, 1)) return RM_LP_TIME;
    sp.tm_lim = mp_glp_tm_lim_reserve(c, 0, x->build_s);
    int rc = glp_simplex(x->P, &sp);
    if (rc == GLP_ETMLIM) return RM_LP_TIME;
    if (rc != 0) return RM_LP_FAIL;
    int st = glp_get_status(x->P);
    if (st == GLP_NOFEAS || st == GLP_INFEAS) return RM_LP_INFEASIBLE;
    if (st != GLP_OPT) return RM_LP_FAIL;
    read_prim(x->P, col);
    if (!x->lazy || rm_separate(x, col, 400) == 0) return RM_LP_OPT;
    if (mp_time_up(c)) return RM_LP_TIME;
  }
}

void rm_rowgen(glp_tree *T, rm_milp *x, double *col) {
  if (glp_ios_reason(T) != GLP_IROWGEN || !x->lazy) return;
  read_prim(x->P, col);
  rm_separate(x, col, 50);
}
