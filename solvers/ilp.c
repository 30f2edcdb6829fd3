/* ilp.c - exact scheduling by integer programming (GLPK), time-indexed.
 *
 * Variables (steps t = 0..n-1; a node can only run between asap(v) = its
 * number of ancestors and alap(v) = n-1 - its number of descendants):
 *   x[v,t] in {0,1}  node v runs at step t;
 *   C[v,t] in [0,1]  v has run by step t: C[v,t] = C[v,t-1] + x[v,t]
 *                    (0 before asap(v), 1 from alap(v) on: constants);
 *   L[b,t] in [0,1]  buffer b is live at step t;
 *   P                the peak, minimised.
 * Constraints:
 *   sum_t x[v,t] = 1 (each node once), sum_v x[v,t] = 1 (one node a step);
 *   precedence (data and in-place edges) u -> w: C[w,t] <= C[u,t-1];
 *   liveness (DESIGN 1.2, closed intervals): b made by u and read by r:
 *     L[b,t] >= C[u,t] - C[r,t-1]; a graph input read by r: L[b,t] >=
 *     1 - C[r,t-1]; a graph output made by u is live C[u,t]; a dead value
 *     x[u,t]; a dead input at step 0 only; workspace ws(v) x[v,t];
 *   peak: sum_b size(b) L[b,t] + sum_v ws(v) x[v,t] <= P for every t.
 * L needs no integrality: at an integral x every lower bound is 0 or 1 and
 * minimising P leaves no reason to exceed it.
 * Every peak is a multiple of u, the greatest common divisor of the sizes,
 * so the search stops as soon as the incumbent is within less than u of the
 * bound (mip_gap), which proves it optimal.  The model measures bytes in
 * units of max size / 64 (coefficients at most 64) for numerical safety,
 * with GLPK's automatic scaling on top; if GLPK still fails (an internal
 * error), the error hook returns the heuristic order with a message.
 * Incumbent: the best heuristic order (start order and the given, greedy,
 * lpmf, bfs, dfs orders) bounds P from above and is handed to GLPK as its
 * first integer solution from the branch-and-cut callback.  P >= the cut
 * lower bound of schedbound.h.
 * Time limit: GLPK's tm_lim; when it stops early the best order is returned
 * with status timeout and ctx->bound = the best bound GLPK proved.
 * Size: n^2 binaries at most, so the solver refuses graphs above max_nodes
 * (default 60).  Measured (scripts/bench.d/schedule.sh, results/schedule.md,
 * 2-core machine): random layered DAGs of 10 and 15 nodes are proved in
 * 25 ms and 0.55 s, those of 20 and 25 nodes are not proved within 60 s (the
 * bound stalls about 15% below the optimum): use `dp` beyond ~15 nodes.
 * --write-lp FILE writes the model in CPLEX LP format (glp_write_lp) for
 * CBC, HiGHS or Gurobi, also when it needs no solving (the incumbent meets
 * the bound; an empty graph, whose model has no rows: GLPK then writes only
 * its header, a warning and End). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/glpk_util.h"
#include "lib/listsched.h"
#include "lib/sim.h"
#include "schedbound.h"
#include "solver.h"

#define ILP_OPTIONS(X)                                                              \
  X(max_nodes, INT, 60, 1, 100000, "refuse graphs with more nodes than this (size cap)") \
  X(warm, INT, 1, 0, 1, "0: no heuristic incumbent and only the per-node bound (ablation, tests)") \
  X(strong, INT, 1, 0, 1, "add L[b,t] >= x[v,t] for the owner and readers of b (tighter LP)") \
  X(cuts, INT, 1, 0, 1, "GLPK cutting planes (Gomory, MIR, cover, clique)")         \
  X(backtrack, INT, 2, 0, 3, "GLPK node selection: 0 depth, 1 breadth, 2 best local, 3 best projection")
enum { ILP_OPTIONS(MP_OPT_ENUM) ILP_N_OPTS };
static const mp_option ilp_options[] = {ILP_OPTIONS(MP_OPT_ENTRY)};

/* a linear term list for one row */
typedef struct row {
  int n, cap;
  int *ind;
  double *val;
  double cst; /* constant part (moved to the right-hand side) */
} row;

static void row_add(row *r, int col, double v) {
  if (r->n + 1 >= r->cap) {
    r->cap = r->cap ? 2 * r->cap : 16;
    r->ind = mp_xrealloc(r->ind, sizeof(int) * (size_t)(r->cap + 1));
    r->val = mp_xrealloc(r->val, sizeof(double) * (size_t)(r->cap + 1));
  }
  r->n++;
  r->ind[r->n] = col; /* GLPK arrays are 1-based */
  r->val[r->n] = v;
}

typedef struct model {
  const mp_graph *g;
  int n;
  int *asap, *alap;
  int *xcol;   /* x[v,t] column = xcol[v] + t - asap[v] */
  int *ccol;   /* C[v,t] column = ccol[v] + t - asap[v], for asap <= t < alap */
  int pcol;
  double scale;  /* bytes per model unit */
  int64_t unit;  /* every peak is a multiple of it (gcd of the sizes) */
  glp_prob *P;
} model;

/* Add coef * C[v,t] to a row (constants go to cst). */
static void add_C(const model *m, row *r, int v, int t, double coef) {
  if (t < m->asap[v]) return;
  if (t >= m->alap[v]) {
    r->cst += coef;
    return;
  }
  row_add(r, m->ccol[v] + t - m->asap[v], coef);
}

static void add_x(const model *m, row *r, int v, int t, double coef) {
  if (t < m->asap[v] || t > m->alap[v]) return;
  row_add(r, m->xcol[v] + t - m->asap[v], coef);
}

typedef struct term {
  int ind;
  double val;
} term;

static int cmp_term(const void *a, const void *b) {
  const term *x = a, *y = b;
  return (x->ind > y->ind) - (x->ind < y->ind);
}

/* Emit row: lo <= sum + cst <= hi (terms on one column merged). */
static void emit(glp_prob *P, row *r, int type, double lo, double hi) {
  if (r->n > 1) {
    term *t = mp_xmalloc(sizeof(term) * (size_t)r->n);
    for (int k = 0; k < r->n; k++) t[k] = (term){r->ind[k + 1], r->val[k + 1]};
    qsort(t, (size_t)r->n, sizeof(term), cmp_term);
    int m = 0;
    for (int k = 0; k < r->n; k++) {
      if (m > 0 && t[m - 1].ind == t[k].ind)
        t[m - 1].val += t[k].val;
      else
        t[m++] = t[k];
    }
    for (int k = 0; k < m; k++) {
      r->ind[k + 1] = t[k].ind;
      r->val[k + 1] = t[k].val;
    }
    r->n = m;
    free(t);
  }
  int i = glp_add_rows(P, 1);
  glp_set_mat_row(P, i, r->n, r->ind, r->val);
  glp_set_row_bnds(P, i, type, lo - r->cst, hi - r->cst);
  r->n = 0;
  r->cst = 0;
}

typedef struct cbinfo {
  double *sol;     /* incumbent, 1-based, or NULL */
  bool given;
  double bound;    /* best bound seen (model units) */
} cbinfo;

static void callback(glp_tree *T, void *info) {
  cbinfo *cb = info;
  int p = glp_ios_best_node(T);
  if (p) {
    double b = glp_ios_node_bound(T, p);
    if (b > cb->bound) cb->bound = b;
  }
  if (glp_ios_reason(T) == GLP_IHEUR && cb->sol && !cb->given) {
    cb->given = true;
    glp_ios_heur_sol(T, cb->sol);
  }
}

/* A proven bound in bytes from a bound v GLPK reports in model units: v
 * may exceed the true value by GLPK's tolerances (1e-7 relative), so 1e-6
 * of it is given up first; then up to a multiple of unit (every peak is
 * one).  Never above the true bound, so never above an achieved peak. */
static int64_t up_to_unit(double v, double scale, int64_t unit) {
  double b = v * scale;
  b -= 1e-6 * (fabs(b) + scale);
  if (!(b > 0)) return 0;
  double k = ceil(b / (double)unit);
  return k * (double)unit >= 9.2e18 ? INT64_MAX : (int64_t)k * unit;
}

/* The largest peak, in units, whose optimality the gap test may prove:
 * 2^40, 4096 times a double's 2^-52 resolution. */
#define ILP_GAP_RANGE 1099511627776.0

/* ---- the model ---- */

/* asap(v) = its ancestors, alap(v) = n - 1 - its descendants. */
static void step_windows(model *m) {
  mp_reach R;
  mp_reach_init(&R, m->g);
  m->asap = mp_xcalloc((size_t)m->n, sizeof(int));
  m->alap = mp_xcalloc((size_t)m->n, sizeof(int));
  for (int v = 0; v < m->n; v++) {
    m->asap[v] = mp_reach_n_anc(&R, v);
    m->alap[v] = m->n - 1 - mp_reach_n_des(&R, v);
  }
  mp_reach_destroy(&R);
}

/* x[v,t] binaries, C[v,t] in [0, 1], the peak P in [lb, ub]. */
static void add_columns(model *m, int64_t lb, int64_t ub) {
  glp_prob *P = m->P;
  char name[64];
  m->xcol = mp_xmalloc(sizeof(int) * (size_t)m->n);
  m->ccol = mp_xmalloc(sizeof(int) * (size_t)m->n);
  for (int v = 0; v < m->n; v++) {
    int w = m->alap[v] - m->asap[v] + 1;
    m->xcol[v] = glp_add_cols(P, w);
    for (int k = 0; k < w; k++) {
      int j = m->xcol[v] + k;
      snprintf(name, sizeof name, "x_%d_%d", v, m->asap[v] + k);
      glp_set_col_name(P, j, name);
      glp_set_col_kind(P, j, GLP_BV);
    }
    m->ccol[v] = 0;
    if (w > 1) {
      m->ccol[v] = glp_add_cols(P, w - 1);
      for (int k = 0; k < w - 1; k++) {
        int j = m->ccol[v] + k;
        snprintf(name, sizeof name, "C_%d_%d", v, m->asap[v] + k);
        glp_set_col_name(P, j, name);
        glp_set_col_bnds(P, j, GLP_DB, 0, 1);
      }
    }
  }
  m->pcol = glp_add_cols(P, 1);
  glp_set_col_name(P, m->pcol, "peak");
  mp_glp_col_range(P, m->pcol, (double)lb / m->scale, (double)ub / m->scale);
  glp_set_obj_coef(P, m->pcol, 1.0);
}

/* Each node once, one node a step, the C recurrence, precedence. */
static void add_order_rows(model *m, row *r) {
  const mp_graph *g = m->g;
  glp_prob *P = m->P;
  int n = m->n;
  for (int v = 0; v < n; v++) {
    for (int t = m->asap[v]; t <= m->alap[v]; t++) add_x(m, r, v, t, 1);
    emit(P, r, GLP_FX, 1, 1);
    for (int t = m->asap[v]; t < m->alap[v]; t++) { /* C[v,t] - C[v,t-1] - x[v,t] = 0 */
      add_C(m, r, v, t, 1);
      add_C(m, r, v, t - 1, -1);
      add_x(m, r, v, t, -1);
      emit(P, r, GLP_FX, 0, 0);
    }
    /* at alap C is 1: C[v,alap-1] + x[v,alap] = 1 follows from the sum */
  }
  for (int t = 0; t < n; t++) {
    for (int v = 0; v < n; v++) add_x(m, r, v, t, 1);
    emit(P, r, GLP_FX, 1, 1);
  }
  for (int u = 0; u < n; u++) /* u -> w: C[w,t] - C[u,t-1] <= 0 */
    for (int k = 0; k < g->n_succ[u]; k++) {
      int w = g->succ[u][k];
      for (int t = m->asap[w]; t < m->alap[w]; t++) {
        if (t - 1 >= m->alap[u]) continue; /* C[u,t-1] = 1 */
        add_C(m, r, w, t, 1);
        add_C(m, r, u, t - 1, -1);
        if (r->n == 0) {
          r->cst = 0;
          continue;
        }
        emit(P, r, GLP_UP, -1e30, 0);
      }
    }
}

/* L[b,t] of a buffer made by u (or present from the start) at step t:
 * L >= C[u,t] - C[r,t-1] for each reader r (and, option strong, L >=
 * x[v,t] for its owner and readers); its bytes go into peak row t. */
static void add_live_column(model *m, row *r, row *peak, int b, int t, double sz, bool strong) {
  const mp_buffer *bb = &m->g->bufs[b];
  glp_prob *P = m->P;
  int u = bb->owner;
  char name[64];
  int col = glp_add_cols(P, 1);
  snprintf(name, sizeof name, "L_%d_%d", b, t);
  glp_set_col_name(P, col, name);
  glp_set_col_bnds(P, col, GLP_DB, 0, 1);
  row_add(&peak[t], col, sz);
  for (int i = 0; i < bb->n_readers; i++) {
    row_add(r, col, 1); /* L - C[u,t] + C[r,t-1] >= 0  (C[u,t] = 1 for graph inputs) */
    if (bb->born_at_start)
      r->cst -= 1;
    else
      add_C(m, r, u, t, -1);
    add_C(m, r, bb->readers[i], t - 1, 1);
    if (r->n == 1 && r->cst >= 0) { /* trivially satisfied */
      r->n = 0;
      r->cst = 0;
      continue;
    }
    emit(P, r, GLP_LO, 0, 1e30);
  }
  if (!strong) return; /* L[b,t] >= x[v,t]: implied at integral points, a tighter relaxation */
  if (!bb->born_at_start && t <= m->alap[u] && t >= m->asap[u]) {
    row_add(r, col, 1);
    add_x(m, r, u, t, -1);
    emit(P, r, GLP_LO, 0, 1e30);
  }
  for (int i = 0; i < bb->n_readers; i++) {
    int rd = bb->readers[i];
    if (t < m->asap[rd] || t > m->alap[rd]) continue;
    row_add(r, col, 1);
    add_x(m, r, rd, t, -1);
    emit(P, r, GLP_LO, 0, 1e30);
  }
}

/* A tensor read by someone: live at t for sure (a constant), maybe (an L
 * column), or not at all. */
static void add_read_buffer(model *m, row *r, row *peak, int b, double sz, bool strong) {
  const mp_buffer *bb = &m->g->bufs[b];
  int u = bb->owner;
  int from = bb->born_at_start ? 0 : m->asap[u], to = 0;
  for (int i = 0; i < bb->n_readers; i++)
    if (m->alap[bb->readers[i]] > to) to = m->alap[bb->readers[i]];
  for (int t = from; t <= to; t++) {
    bool surely = false, maybe = false;
    for (int i = 0; i < bb->n_readers; i++) {
      int rd = bb->readers[i];
      bool born = bb->born_at_start || t >= m->alap[u];
      bool possible_born = bb->born_at_start || t >= m->asap[u];
      if (born && t - 1 < m->asap[rd]) surely = true;
      if (possible_born && t - 1 < m->alap[rd]) maybe = true;
    }
    if (surely)
      peak[t].cst += sz;
    else if (maybe)
      add_live_column(m, r, peak, b, t, sz, strong);
  }
}

/* Liveness (DESIGN 1.2) and the peak rows: sum of live bytes <= P. */
static void add_peak_rows(model *m, row *r, bool strong) {
  const mp_graph *g = m->g;
  int n = m->n;
  row *peak = mp_xcalloc((size_t)n, sizeof(row));
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    if (bb->size <= 0) continue;
    double sz = (double)bb->size / m->scale;
    int u = bb->owner;
    if (bb->kind == MP_BUF_WORKSPACE || (!bb->born_at_start && !bb->graph_output && bb->n_readers == 0)) {
      for (int t = m->asap[u]; t <= m->alap[u]; t++) add_x(m, &peak[t], u, t, sz); /* its own step */
    } else if (bb->born_at_start && bb->n_readers == 0 && !bb->graph_output) {
      peak[0].cst += sz; /* dead input: step 0 only */
    } else if (bb->graph_output) {
      for (int t = 0; t < n; t++) {
        if (bb->born_at_start)
          peak[t].cst += sz;
        else
          add_C(m, &peak[t], u, t, sz);
      }
    } else {
      add_read_buffer(m, r, peak, b, sz, strong);
    }
  }
  for (int t = 0; t < n; t++) {
    row_add(&peak[t], m->pcol, -1);
    emit(m->P, &peak[t], GLP_UP, -1e30, 0);
    free(peak[t].ind);
    free(peak[t].val);
  }
  free(peak);
}

static void build_model(model *m, const mp_ctx *c, int64_t lb, int64_t ub) {
  const mp_graph *g = m->g;
  int64_t unit = 0, maxsize = 1;
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].size > 0) {
      unit = mp_gcd(g->bufs[b].size, unit);
      if (g->bufs[b].size > maxsize) maxsize = g->bufs[b].size;
    }
  m->unit = unit > 0 ? unit : 1;
  m->scale = (double)maxsize / 64.0 < 1 ? 1 : (double)maxsize / 64.0;
  step_windows(m);
  mp_glp_term(c);
  m->P = glp_create_prob();
  glp_set_prob_name(m->P, "memplan_schedule");
  glp_set_obj_dir(m->P, GLP_MIN);
  add_columns(m, lb, ub);
  row r = {0, 0, NULL, NULL, 0};
  add_order_rows(m, &r);
  add_peak_rows(m, &r, c->opt[OPT_strong] != 0);
  free(r.ind);
  free(r.val);
}

static void model_destroy(model *m) {
  free(m->asap);
  free(m->alap);
  free(m->xcol);
  free(m->ccol);
}

/* The incumbent order's value for every column (1-based). */
static double *incumbent(const model *m, const int *order, int64_t ub) {
  const mp_graph *g = m->g;
  int n = m->n, ncol = glp_get_num_cols(m->P);
  double *sol = mp_xcalloc((size_t)ncol + 1, sizeof(double));
  int *step = mp_xmalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) step[order[i]] = i;
  for (int v = 0; v < n; v++) {
    for (int t = m->asap[v]; t <= m->alap[v]; t++) sol[m->xcol[v] + t - m->asap[v]] = step[v] == t;
    for (int t = m->asap[v]; t < m->alap[v]; t++) sol[m->ccol[v] + t - m->asap[v]] = step[v] <= t;
  }
  mp_problem pr;
  mp_problem_from_order(g, order, 1, &pr);
  for (int j = 1; j <= ncol; j++) {
    const char *nm = glp_get_col_name(m->P, j);
    int bb, t;
    if (nm && sscanf(nm, "L_%d_%d", &bb, &t) == 2) sol[j] = t >= pr.items[bb].lo && t < pr.items[bb].hi;
  }
  mp_problem_destroy(&pr);
  free(step);
  sol[m->pcol] = (double)ub / m->scale;
  return sol;
}

/* ---- solving ---- */

/* What a GLPK run needs and what it finds (in memory a longjmp from the
 * error hook cannot lose). */
typedef struct job {
  mp_ctx *c;
  const model *m;
  double *sol;        /* the incumbent, or NULL */
  int64_t ub;         /* the best peak found (its order in c->order) */
  int64_t bound;      /* the best bound proven */
  bool proved, cut;
} job;

/* The order of GLPK's integer solution, if its own check accepts it and
 * it beats the best so far. */
static void take_solution(job *J) {
  const model *m = J->m;
  int n = m->n;
  int *ord = mp_xmalloc(sizeof(int) * (size_t)n);
  bool ok = true;
  for (int t = 0; t < n; t++) ord[t] = -1;
  for (int v = 0; v < n && ok; v++)
    for (int t = m->asap[v]; t <= m->alap[v]; t++)
      if (glp_mip_col_val(m->P, m->xcol[v] + t - m->asap[v]) > 0.5) {
        if (ord[t] >= 0) ok = false;
        ord[t] = v;
      }
  int64_t peak;
  if (ok && mp_sim_order_ok(m->g, ord, &peak) && peak < J->ub) {
    memcpy(J->c->order, ord, sizeof(int) * (size_t)n);
    J->ub = peak;
  }
  free(ord);
}

/* LP relaxation, then branch-and-cut from the incumbent. */
static void run_glpk(void *arg) {
  job *J = arg;
  mp_ctx *c = J->c;
  const model *m = J->m;
  glp_smcp sp;
  glp_init_smcp(&sp);
  sp.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
  sp.tm_lim = mp_glp_tm_lim(c, 0);
  glp_scale_prob(m->P, GLP_SF_AUTO);
  int rc = glp_simplex(m->P, &sp);
  if (rc != 0 || glp_get_status(m->P) != GLP_OPT) {
    J->cut = rc == GLP_ETMLIM;
    return;
  }
  double relax = glp_get_obj_val(m->P);
  int64_t rb = up_to_unit(relax, m->scale, m->unit);
  if (rb > J->bound) J->bound = rb;
  glp_iocp ip;
  glp_init_iocp(&ip);
  ip.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
  ip.presolve = GLP_OFF;
  if (c->opt[OPT_cuts] != 0) ip.gmi_cuts = ip.mir_cuts = ip.cov_cuts = ip.clq_cuts = GLP_ON;
  static const int bt[] = {GLP_BT_DFS, GLP_BT_BFS, GLP_BT_BLB, GLP_BT_BPH};
  ip.bt_tech = bt[(int)c->opt[OPT_backtrack]];
  ip.mip_gap = 0.999 * (double)m->unit / (double)(J->ub > 0 ? J->ub : 1);
  cbinfo cb = {J->sol, false, relax};
  ip.cb_func = callback;
  ip.cb_info = &cb;
  ip.tm_lim = mp_glp_tm_lim(c, 0);
  int irc = glp_intopt(m->P, &ip);
  int st = glp_mip_status(m->P);
  if (st == GLP_OPT || st == GLP_FEAS) take_solution(J);
  /* GLPK stops with GLP_EMIPGAP when the incumbent is within less than
   * one unit of the bound: optimal, since P is an integer in units.  Only
   * while a unit is far above a double's resolution of P: with a 2^54-byte
   * peak and unit 1 the gap test passed one byte above the optimum
   * (tests/py/audit.py --order-claims); there the bound below decides. */
  if ((irc == 0 || irc == GLP_EMIPGAP) && (st == GLP_OPT || st == GLP_FEAS) &&
      (double)J->ub / (double)m->unit < ILP_GAP_RANGE &&
      llround(glp_mip_obj_val(m->P) * m->scale / (double)m->unit) * m->unit == J->ub) {
    J->proved = true;
  } else {
    J->cut = irc == GLP_ETMLIM;
    int64_t b = up_to_unit(cb.bound, m->scale, m->unit);
    if (b > J->bound) J->bound = b;
  }
}

static int ilp_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  if (n > c->opt[OPT_max_nodes]) {
    c->status = MP_REFUSED;
    snprintf(c->msg, sizeof c->msg,
             "%d nodes exceed the size cap max_nodes=%.0f (the time-indexed model has up to n^2 binaries); "
             "raise ilp.max_nodes or use dp",
             n, c->opt[OPT_max_nodes]);
    return -1;
  }
  bool warm = c->opt[OPT_warm] != 0;
  int64_t ub, lb = mp_node_lower_bound(g);
  if (warm) {
    ub = mp_ls_best(g, c->start_order, c->order, NULL);
    int64_t cutlb = mp_sched_lower_bound_until(g, c->deadline, NULL, NULL);
    if (cutlb > lb) lb = cutlb;
  } else { /* the start order only bounds P (the model needs a finite box) */
    memcpy(c->order, c->start_order, sizeof(int) * (size_t)n);
    ub = mp_order_peak(g, c->order);
  }
  c->status = MP_FEASIBLE;
  if (n == 0 && !c->write_lp) {
    c->status = MP_OPTIMAL;
    return 0;
  }
  model m = {g, n, NULL, NULL, NULL, NULL, 0, 1, 1, NULL};
  build_model(&m, c, lb, ub);
  bool lp_failed = c->write_lp && mp_glp_write_lp(m.P, c->write_lp) != 0;
  if (lp_failed || n == 0) { /* n == 0: nothing to order, the model only written */
    if (lp_failed)
      snprintf(c->msg, sizeof c->msg, "cannot write the LP model to %s", c->write_lp);
    else
      c->status = MP_OPTIMAL;
    glp_delete_prob(m.P);
    model_destroy(&m);
    return lp_failed ? -1 : 0;
  }
  job J = {c, &m, NULL, ub, lb, ub == lb, false};
  J.sol = warm ? incumbent(&m, c->order, ub) : NULL;
  bool failed = !J.proved && mp_glp_guarded(run_glpk, &J) != 0;
  if (J.proved) J.bound = J.ub;
  c->bound = J.bound;
  c->status = J.bound == J.ub ? MP_OPTIMAL : J.cut ? MP_TIMEOUT : MP_FEASIBLE;
  if (failed) {
    snprintf(c->msg, sizeof c->msg, "GLPK failed (internal error); the best order found is kept");
  } else {
    snprintf(c->msg, sizeof c->msg, "%d columns, %d rows", glp_get_num_cols(m.P), glp_get_num_rows(m.P));
    glp_delete_prob(m.P);
  }
  free(J.sol);
  model_destroy(&m);
  return 0;
}

const mp_solver solver_ilp = {
    .name = "ilp",
    .summary = "exact: time-indexed integer program (GLPK), heuristic incumbent, size cap max_nodes",
    .decides = MP_DECIDES_ORDER,
    .roles = MP_ROLE_WRITES_LP,
    .options = MP_OPTIONS(ilp_options),
    .solve = ilp_solve,
};
