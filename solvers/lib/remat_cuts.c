/* remat_cuts.c - the lazy rerun rows of remat_milp.h: which are violated at
 * a point, and adding them to the model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_milp.h"

/* A row being built, as a sparse accumulator over the columns. */
typedef struct cut {
  double *acc;  /* per column (1-based) */
  int *idx;     /* columns touched */
  int n;
  double cst;   /* constant part of the left side */
  double lhs;   /* value at the point */
  double viol;
  int t, k;
} cut;

typedef struct sep {
  rm_milp *x;
  const rs_model *m;
  const double *col;
  bool integral;
  double *r, *s; /* R and S at the point: N x N, (N+1) x nb */
  cut c;
} sep;

static double val(const sep *p, int c) {
  return c == RM_ONE ? 1.0 : c == RM_ZERO ? 0.0 : p->col[c];
}

static double Rv(const sep *p, int t, int k) { return p->r[(size_t)t * p->m->n_pos + k]; }
static double Sv(const sep *p, int t, int b) { return p->s[(size_t)t * p->m->nb + b]; }

static void term(cut *c, int col, double coef) {
  if (col == RM_ZERO) return;
  if (col == RM_ONE) {
    c->cst += coef;
    return;
  }
  if (c->acc[col] == 0) c->idx[c->n++] = col;
  c->acc[col] += coef;
  if (c->acc[col] == 0) c->acc[col] = 1e-300; /* keep it listed */
}

/* The point's R and S; at integral R, S rounded down (remat_milp.h). */
static void point(sep *p) {
  const rs_model *m = p->m;
  int N = m->n_pos;
  p->integral = true;
  for (int t = 0; t <= N; t++)
    for (int k = 0; k < N; k++) {
      double v = val(p, rm_rcol(p->x, t, k));
      p->r[(size_t)t * N + k] = v;
      if (v > 1e-6 && v < 1 - 1e-6) p->integral = false;
    }
  for (int t = 0; t <= N + 1; t++)
    for (int b = 0; b < m->nb; b++) {
      double v = val(p, rm_scol(p->x, t, b));
      p->s[(size_t)t * m->nb + b] = p->integral ? (v > 1 - 1e-6 ? 1.0 : 0.0) : v;
    }
  if (p->integral)
    for (size_t i = 0; i < ((size_t)N + 1) * N; i++) p->r[i] = p->r[i] > 0.5;
}

/* The owner's R column in stage t when it runs before position k (else 0). */
static int made_before(const sep *p, int t, int b, int k) {
  int o = p->m->own_pos[b];
  return o >= 0 && o < k && rs_may_run(p->m, t, o) ? rm_rcol(p->x, t, o) : RM_ZERO;
}

/* Stage shape: the best need choice for b after k in stage t (a user's R
 * column or S[t+1,b]) and its value. */
static int best_need(const sep *p, int t, int b, int k, double *v) {
  const rs_model *m = p->m;
  int best = rm_scol(p->x, t + 1, b);
  *v = Sv(p, t + 1, b);
  for (int j = m->us_start[b]; j < m->us_start[b + 1] && *v < 1; j++) {
    int u = m->us[j];
    if (u <= k || u > t || Rv(p, t, u) <= *v) continue;
    *v = Rv(p, t, u);
    best = rm_rcol(p->x, t, u);
  }
  return best;
}

/* b's term at the run of k in stage t (remat_milp.h), added to c when
 * positive at the point.  Stage shape: S[t,b] + R[t,o] (o < k) + need - 1;
 * every plan: S[t,b] - R[t,o] + (S[t+1,b], or 1 when t reads b) - 1. */
static void add_term(sep *p, int t, int k, int b) {
  const rs_model *m = p->m;
  cut *c = &p->c;
  int keep = rm_scol(p->x, t, b), made, next;
  double v, sign;
  if (p->x->kind == RM_STAGE) {
    made = made_before(p, t, b, k);
    next = best_need(p, t, b, k, &v);
    sign = 1;
  } else {
    int o = m->own_pos[b];
    made = o >= 0 && o < t && rs_may_run(m, t, o) ? rm_rcol(p->x, t, o) : RM_ZERO;
    bool read_last = t < m->n_pos && rs_reads(m, t, b);
    next = read_last ? RM_ONE : rm_scol(p->x, t + 1, b);
    v = read_last ? 1.0 : Sv(p, t + 1, b);
    sign = -1;
  }
  v += Sv(p, t, b) + sign * val(p, made) - 1;
  if (v <= 1e-9) return;
  double size = (double)m->size[b] / p->x->scale;
  c->lhs += size * v;
  term(c, keep, size);
  term(c, made, sign * size);
  term(c, next, size);
  c->cst -= size;
}

static void clear(cut *c) {
  for (int i = 0; i < c->n; i++) c->acc[c->idx[i]] = 0;
  c->n = 0;
  c->cst = c->lhs = 0;
}

/* The row for the run of k in stage t at the point; its violation. */
static double build(sep *p, int t, int k) {
  const rs_model *m = p->m;
  cut *c = &p->c;
  clear(c);
  c->t = t;
  c->k = k;
  double need = (double)rs_need(m, k) / p->x->scale;
  term(c, rm_rcol(p->x, t, k), need);
  c->lhs = need * Rv(p, t, k);
  for (int b = 0; b < m->nb; b++) {
    if (rs_touches(m, k, b)) continue;
    if (Sv(p, t, b) <= 1e-9 && (p->x->kind == RM_BOUND || val(p, made_before(p, t, b, k)) <= 1e-9))
      continue;
    add_term(p, t, k, b);
  }
  return c->lhs - p->x->budget;
}

/* c as the row  terms + cst <= rhs. */
static void emit(sep *p, double rhs) {
  cut *c = &p->c;
  glp_prob *P = p->x->P;
  int *ind = mp_xmalloc(sizeof(int) * ((size_t)c->n + 1));
  double *v = mp_xmalloc(sizeof(double) * ((size_t)c->n + 1));
  int n = 0;
  for (int i = 0; i < c->n; i++)
    if (fabs(c->acc[c->idx[i]]) > 1e-200) {
      ind[++n] = c->idx[i];
      v[n] = c->acc[c->idx[i]];
    }
  int row = glp_add_rows(P, 1);
  glp_set_mat_row(P, row, n, ind, v);
  glp_set_row_bnds(P, row, GLP_UP, -1e30, rhs - c->cst);
  p->x->cuts++;
  free(ind);
  free(v);
}

/* The reads and no-double rows of reruns (lazy: only a rerun's own rows
 * can be violated, and only where it runs).  Returns the rows added. */
static int logic_cuts(sep *p) {
  const rs_model *m = p->m;
  cut *c = &p->c;
  int N = m->n_pos, added = 0;
  for (int t = 0; t <= N; t++)
    for (int k = 0; k < t && k < N; k++) {
      double r = Rv(p, t, k);
      if (r <= 1e-6) continue;
      int rk = rm_rcol(p->x, t, k);
      for (int i = m->rd_start[k]; i < m->rd_start[k + 1]; i++) {
        int b = m->rd[i], o = m->own_pos[b];
        int ro = o >= 0 && rs_may_run(m, t, o) ? rm_rcol(p->x, t, o) : RM_ZERO;
        if (r - Sv(p, t, b) - val(p, ro) <= 1e-6) continue;
        clear(c);
        term(c, rk, 1);
        term(c, rm_scol(p->x, t, b), -1);
        term(c, ro, -1);
        emit(p, 0);
        added++;
      }
      if (p->x->kind != RM_STAGE) continue;
      for (int i = m->mk_start[k]; i < m->mk_start[k + 1]; i++) {
        int b = m->mk[i];
        if (r + Sv(p, t, b) <= 1 + 1e-6) continue;
        clear(c);
        term(c, rk, 1);
        term(c, rm_scol(p->x, t, b), 1);
        emit(p, 1);
        added++;
      }
    }
  return added;
}

typedef struct cand {
  double viol;
  int t, k;
} cand;

static int by_violation(const void *a, const void *b) {
  double x = ((const cand *)a)->viol, y = ((const cand *)b)->viol;
  return (x < y) - (x > y);
}

int rm_separate(rm_milp *x, const double *col, int max_rows) {
  const rs_model *m = x->m;
  int N = m->n_pos, ncols = glp_get_num_cols(x->P);
  sep p = {.x = x, .m = m, .col = col};
  p.r = mp_xmalloc(sizeof(double) * (((size_t)N + 1) * N + 1));
  p.s = mp_xmalloc(sizeof(double) * (((size_t)N + 2) * m->nb + 1));
  p.c.acc = mp_xcalloc((size_t)ncols + 1, sizeof(double));
  p.c.idx = mp_xmalloc(sizeof(int) * ((size_t)ncols + 1));
  point(&p);
  int logic = x->lazy ? logic_cuts(&p) : 0;
  cand *cs = NULL;
  int nc = 0, cap = 0;
  for (int t = 0; t <= N; t++)
    for (int k = 0; k < t && k < N; k++) {
      if (Rv(&p, t, k) <= 1e-6) continue;
      double viol = build(&p, t, k);
      if (viol <= 1e-7 * fmax(1.0, x->budget)) continue;
      if (nc == cap) cs = mp_xrealloc(cs, sizeof(cand) * (size_t)(cap = cap ? 2 * cap : 64));
      cs[nc++] = (cand){viol, t, k};
    }
  if (nc > 1) qsort(cs, (size_t)nc, sizeof(cand), by_violation);
  int added = 0;
  for (int i = 0; i < nc && (p.integral || added < max_rows); i++) {
    build(&p, cs[i].t, cs[i].k);
    emit(&p, x->budget);
    added++;
  }
  free(cs);
  free(p.r);
  free(p.s);
  free(p.c.acc);
  free(p.c.idx);
  return added + logic;
}
