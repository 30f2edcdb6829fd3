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
 * 0.5 s at most, those of 20 and 25 nodes are not proved within 60 s (the
 * bound stalls about 15% below the optimum): use `dp` beyond ~15 nodes.
 * --write-lp FILE writes the model in CPLEX LP format (glp_write_lp) for
 * CBC, HiGHS or Gurobi. */
#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/listsched.h"
#include "schedbound.h"
#include "solver.h"

#define ILP_OPTIONS(X)                                                              \
  X(max_nodes, 60, 1, 100000, "refuse graphs with more nodes than this (size cap)") \
  X(warm, 1, 0, 1, "0: no heuristic incumbent and only the per-node bound (ablation, tests)") \
  X(strong, 1, 0, 1, "add L[b,t] >= x[v,t] for the owner and readers of b (tighter LP)") \
  X(cuts, 1, 0, 1, "GLPK cutting planes (Gomory, MIR, cover, clique)")              \
  X(backtrack, 2, 0, 3, "GLPK node selection: 0 depth, 1 breadth, 2 best local, 3 best projection")
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

/* GLPK reports internal errors (e.g. a failed numerical assertion) through
 * this hook; jumping back keeps the process alive (glp_free_env after). */
static jmp_buf glpk_jump;
static void glpk_error(void *info) {
  (void)info;
  longjmp(glpk_jump, 1);
}

/* bytes (a multiple of unit) no lower than the model value v times scale,
 * within rounding */
static int64_t up_to_unit(double v, double scale, int64_t unit) {
  double b = v * scale;
  b -= 1e-9 * fabs(b) + 1e-6;
  int64_t k = (int64_t)ceil(b / (double)unit);
  return k * unit;
}

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* LP relaxation, then branch-and-cut from the incumbent.  Updates *ubp
 * (and ctx->order) when GLPK finds a better order, *best_bound, *proved and
 * *cut. */
static void run_glpk(mp_ctx *c, const model *mm, glp_prob *P, double *sol, double scale,
                     int64_t unit, bool warm, int64_t *ubp, int64_t *best_bound, bool *proved,
                     bool *cut) {
  const mp_graph *g = mm->g;
  int n = mm->n;
  model m = *mm;
  glp_smcp sp;
  glp_init_smcp(&sp);
  sp.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
  if (c->deadline > 0) {
    double left = c->deadline - mp_now();
    sp.tm_lim = left > 0.001 ? (int)(left * 1000) : 1;
  }
  glp_scale_prob(P, GLP_SF_AUTO);
  int rc = glp_simplex(P, &sp);
  if (rc == 0 && glp_get_status(P) == GLP_OPT) {
    double relax = glp_get_obj_val(P);
    int64_t rb = up_to_unit(relax, scale, unit);
    if (rb > *best_bound) *best_bound = rb;
    glp_iocp ip;
    glp_init_iocp(&ip);
    ip.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
    ip.presolve = GLP_OFF;
    if (c->opt[OPT_cuts] != 0) ip.gmi_cuts = ip.mir_cuts = ip.cov_cuts = ip.clq_cuts = GLP_ON;
    static const int bt[] = {GLP_BT_DFS, GLP_BT_BFS, GLP_BT_BLB, GLP_BT_BPH};
    ip.bt_tech = bt[(int)c->opt[OPT_backtrack]];
    ip.mip_gap = 0.999 * (double)unit / (double)((*ubp) > 0 ? (*ubp) : 1);
    cbinfo cb = {warm ? sol : NULL, false, relax};
    ip.cb_func = callback;
    ip.cb_info = &cb;
    if (c->deadline > 0) {
      double left = c->deadline - mp_now();
      ip.tm_lim = left > 0.001 ? (int)(left * 1000) : 1;
    }
    int irc = glp_intopt(P, &ip);
    int st = glp_mip_status(P);
    if (st == GLP_OPT || st == GLP_FEAS) {
      int *ord = mp_xmalloc(sizeof(int) * (size_t)n);
      bool ok = true;
      for (int t = 0; t < n && ok; t++) ord[t] = -1;
      for (int v = 0; v < n && ok; v++)
        for (int t = m.asap[v]; t <= m.alap[v]; t++)
          if (glp_mip_col_val(P, m.xcol[v] + t - m.asap[v]) > 0.5) {
            if (ord[t] >= 0) ok = false;
            ord[t] = v;
          }
      for (int t = 0; t < n && ok; t++) ok = ord[t] >= 0;
      if (ok) {
        mp_error e;
        ok = mp_order_check(g, ord, &e) < 0;
      }
      if (ok && mp_order_peak(g, ord) < (*ubp)) {
        memcpy(c->order, ord, sizeof(int) * (size_t)n);
        (*ubp) = mp_order_peak(g, ord);
      }
      free(ord);
    }
    /* GLPK stops with GLP_EMIPGAP when the incumbent is within less than
     * one unit of the bound: optimal, since P is an integer in units */
    if ((irc == 0 || irc == GLP_EMIPGAP) && (st == GLP_OPT || st == GLP_FEAS) &&
        llround(glp_mip_obj_val(P) * scale / (double)unit) * unit == (*ubp)) {
      *proved = true;
    } else {
      *cut = irc == GLP_ETMLIM;
      int64_t b = up_to_unit(cb.bound, scale, unit);
      if (b > *best_bound) *best_bound = b;
    }
  } else {
    *cut = rc == GLP_ETMLIM;
  }
}

static int ilp_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  if (n > c->opt[OPT_max_nodes]) {
    snprintf(c->msg, sizeof c->msg,
             "%d nodes exceed max_nodes=%.0f (the time-indexed model has up to n^2 binaries); "
             "raise ilp.max_nodes or use dp",
             n, c->opt[OPT_max_nodes]);
    return -1;
  }
  bool warm = c->opt[OPT_warm] != 0;
  int64_t ub, lb = mp_node_lower_bound(g);
  if (warm) {
    ub = mp_ls_best(g, c->start_order, c->order, NULL);
    int64_t cutlb = mp_sched_lower_bound(g, NULL);
    if (cutlb > lb) lb = cutlb;
  } else {
    /* the start order only bounds P (the model needs a finite box) */
    memcpy(c->order, c->start_order, sizeof(int) * (size_t)n);
    ub = mp_order_peak(g, c->order);
  }
  c->status = MP_FEASIBLE;
  if (n == 0) {
    c->status = MP_OPTIMAL;
    return 0;
  }
  /* units: gcd of every size */
  int64_t unit = 0;
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].size > 0) unit = gcd64(g->bufs[b].size, unit);
  if (unit <= 0) unit = 1;
  int64_t maxsize = 1;
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].size > maxsize) maxsize = g->bufs[b].size;
  double scale = (double)maxsize / 64.0;
  if (scale < 1) scale = 1;
  model m = {g, n, NULL, NULL, NULL, NULL, 0, NULL};
  m.asap = mp_xcalloc((size_t)n, sizeof(int));
  m.alap = mp_xcalloc((size_t)n, sizeof(int));
  /* ancestors / descendants counts by bitset closure in file order */
  int words = (n + 63) / 64;
  uint64_t *anc = mp_xcalloc((size_t)n * (size_t)words, sizeof(uint64_t));
  uint64_t *des = mp_xcalloc((size_t)n * (size_t)words, sizeof(uint64_t));
  for (int i = 0; i < n; i++) {
    int v = g->given[i];
    for (int j = 0; j < g->n_pred[v]; j++) {
      int p = g->pred[v][j];
      for (int w = 0; w < words; w++) anc[(size_t)v * words + w] |= anc[(size_t)p * words + w];
      anc[(size_t)v * words + (p >> 6)] |= 1ull << (p & 63);
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    int v = g->given[i];
    for (int j = 0; j < g->n_succ[v]; j++) {
      int p = g->succ[v][j];
      for (int w = 0; w < words; w++) des[(size_t)v * words + w] |= des[(size_t)p * words + w];
      des[(size_t)v * words + (p >> 6)] |= 1ull << (p & 63);
    }
  }
  for (int v = 0; v < n; v++) {
    int a = 0, d = 0;
    for (int w = 0; w < words; w++) {
      a += __builtin_popcountll(anc[(size_t)v * words + w]);
      d += __builtin_popcountll(des[(size_t)v * words + w]);
    }
    m.asap[v] = a;
    m.alap[v] = n - 1 - d;
  }
  free(anc);
  free(des);

  glp_term_out(c->verbose ? GLP_ON : GLP_OFF);
  glp_prob *P = glp_create_prob();
  m.P = P;
  glp_set_prob_name(P, "memplan_schedule");
  glp_set_obj_dir(P, GLP_MIN);
  m.xcol = mp_xmalloc(sizeof(int) * (size_t)n);
  m.ccol = mp_xmalloc(sizeof(int) * (size_t)n);
  char name[64];
  for (int v = 0; v < n; v++) {
    int w = m.alap[v] - m.asap[v] + 1;
    m.xcol[v] = glp_add_cols(P, w);
    for (int k = 0; k < w; k++) {
      int j = m.xcol[v] + k;
      snprintf(name, sizeof name, "x_%d_%d", v, m.asap[v] + k);
      glp_set_col_name(P, j, name);
      glp_set_col_kind(P, j, GLP_BV);
    }
    m.ccol[v] = 0;
    if (w > 1) {
      m.ccol[v] = glp_add_cols(P, w - 1);
      for (int k = 0; k < w - 1; k++) {
        int j = m.ccol[v] + k;
        snprintf(name, sizeof name, "C_%d_%d", v, m.asap[v] + k);
        glp_set_col_name(P, j, name);
        glp_set_col_bnds(P, j, GLP_DB, 0, 1);
      }
    }
  }
  m.pcol = glp_add_cols(P, 1);
  glp_set_col_name(P, m.pcol, "peak");
  glp_set_col_bnds(P, m.pcol, lb < ub ? GLP_DB : GLP_FX, (double)lb / scale, (double)ub / scale);
  glp_set_obj_coef(P, m.pcol, 1.0);

  row r = {0, 0, NULL, NULL, 0};
  /* each node once; C recurrence */
  for (int v = 0; v < n; v++) {
    for (int t = m.asap[v]; t <= m.alap[v]; t++) add_x(&m, &r, v, t, 1);
    emit(P, &r, GLP_FX, 1, 1);
    for (int t = m.asap[v]; t < m.alap[v]; t++) {
      /* C[v,t] - C[v,t-1] - x[v,t] = 0 */
      add_C(&m, &r, v, t, 1);
      add_C(&m, &r, v, t - 1, -1);
      add_x(&m, &r, v, t, -1);
      emit(P, &r, GLP_FX, 0, 0);
    }
    /* at alap: C is 1, so C[v,alap-1] + x[v,alap] = 1 follows from the
     * sum over x; nothing more needed */
  }
  /* one node per step */
  for (int t = 0; t < n; t++) {
    for (int v = 0; v < n; v++) add_x(&m, &r, v, t, 1);
    emit(P, &r, GLP_FX, 1, 1);
  }
  /* precedence u -> w: C[w,t] - C[u,t-1] <= 0 */
  for (int u = 0; u < n; u++)
    for (int k = 0; k < g->n_succ[u]; k++) {
      int w = g->succ[u][k];
      for (int t = m.asap[w]; t < m.alap[w]; t++) {
        if (t - 1 >= m.alap[u]) continue; /* C[u,t-1] = 1 */
        add_C(&m, &r, w, t, 1);
        add_C(&m, &r, u, t - 1, -1);
        if (r.n == 0) {
          r.cst = 0;
          continue;
        }
        emit(P, &r, GLP_UP, -1e30, 0);
      }
    }
  /* liveness and peak rows */
  row *peak = mp_xcalloc((size_t)n, sizeof(row));
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    if (bb->size <= 0) continue;
    double sz = (double)bb->size / scale;
    if (bb->kind == MP_BUF_WORKSPACE) {
      for (int t = m.asap[bb->owner]; t <= m.alap[bb->owner]; t++) add_x(&m, &peak[t], bb->owner, t, sz);
      continue;
    }
    if (bb->born_at_start && bb->n_readers == 0 && !bb->graph_output) {
      peak[0].cst += sz; /* dead input: step 0 only */
      continue;
    }
    if (bb->graph_output) {
      for (int t = 0; t < n; t++) {
        if (bb->born_at_start)
          peak[t].cst += sz;
        else
          add_C(&m, &peak[t], bb->owner, t, sz);
      }
      continue;
    }
    int u = bb->owner;
    if (bb->n_readers == 0) { /* dead value: its own step */
      for (int t = m.asap[u]; t <= m.alap[u]; t++) add_x(&m, &peak[t], u, t, sz);
      continue;
    }
    int from = bb->born_at_start ? 0 : m.asap[u], to = 0;
    for (int i = 0; i < bb->n_readers; i++)
      if (m.alap[bb->readers[i]] > to) to = m.alap[bb->readers[i]];
    for (int t = from; t <= to; t++) {
      /* L[b,t] >= C[u,t] - C[r,t-1] for each reader r; constant cases */
      bool surely = false, maybe = false;
      for (int i = 0; i < bb->n_readers; i++) {
        int rd = bb->readers[i];
        bool born = bb->born_at_start || t >= m.alap[u];
        bool possible_born = bb->born_at_start || t >= m.asap[u];
        bool reader_surely_pending = t - 1 < m.asap[rd];
        bool reader_maybe_pending = t - 1 < m.alap[rd];
        if (born && reader_surely_pending) surely = true;
        if (possible_born && reader_maybe_pending) maybe = true;
      }
      if (surely) {
        peak[t].cst += sz;
        continue;
      }
      if (!maybe) continue;
      int col = glp_add_cols(P, 1);
      snprintf(name, sizeof name, "L_%d_%d", b, t);
      glp_set_col_name(P, col, name);
      glp_set_col_bnds(P, col, GLP_DB, 0, 1);
      row_add(&peak[t], col, sz);
      for (int i = 0; i < bb->n_readers; i++) {
        int rd = bb->readers[i];
        /* L - C[u,t] + C[r,t-1] >= 0  (C[u,t] = 1 for graph inputs) */
        row_add(&r, col, 1);
        if (bb->born_at_start)
          r.cst -= 1;
        else
          add_C(&m, &r, u, t, -1);
        add_C(&m, &r, rd, t - 1, 1);
        if (r.n == 1 && r.cst >= 0) { /* trivially satisfied */
          r.n = 0;
          r.cst = 0;
          continue;
        }
        emit(P, &r, GLP_LO, 0, 1e30);
      }
      if (c->opt[OPT_strong] != 0) {
        /* L[b,t] >= x[v,t] for the owner and each reader (implied at
         * integral points, tightens the relaxation) */
        if (!bb->born_at_start && t <= m.alap[u] && t >= m.asap[u]) {
          row_add(&r, col, 1);
          add_x(&m, &r, u, t, -1);
          emit(P, &r, GLP_LO, 0, 1e30);
        }
        for (int i = 0; i < bb->n_readers; i++) {
          int rd = bb->readers[i];
          if (t < m.asap[rd] || t > m.alap[rd]) continue;
          row_add(&r, col, 1);
          add_x(&m, &r, rd, t, -1);
          emit(P, &r, GLP_LO, 0, 1e30);
        }
      }
    }
  }
  for (int t = 0; t < n; t++) {
    row_add(&peak[t], m.pcol, -1);
    emit(P, &peak[t], GLP_UP, -1e30, 0);
    free(peak[t].ind);
    free(peak[t].val);
  }
  free(peak);
  free(r.ind);
  free(r.val);

  if (c->write_lp && glp_write_lp(P, NULL, c->write_lp) != 0) {
    snprintf(c->msg, sizeof c->msg, "cannot write the LP model to %s", c->write_lp);
    glp_delete_prob(P);
    free(m.asap);
    free(m.alap);
    free(m.xcol);
    free(m.ccol);
    return -1;
  }

  /* incumbent: the heuristic order's values for every column */
  int ncol = glp_get_num_cols(P);
  double *sol = mp_xcalloc((size_t)ncol + 1, sizeof(double));
  {
    int *step = mp_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) step[c->order[i]] = i;
    for (int v = 0; v < n; v++) {
      for (int t = m.asap[v]; t <= m.alap[v]; t++) sol[m.xcol[v] + t - m.asap[v]] = step[v] == t;
      for (int t = m.asap[v]; t < m.alap[v]; t++) sol[m.ccol[v] + t - m.asap[v]] = step[v] <= t;
    }
    mp_problem pr;
    mp_problem_from_order(g, c->order, 1, &pr);
    for (int j = 1; j <= ncol; j++) {
      const char *nm = glp_get_col_name(P, j);
      int bb, t;
      if (nm && sscanf(nm, "L_%d_%d", &bb, &t) == 2) sol[j] = t >= pr.items[bb].lo && t < pr.items[bb].hi;
    }
    mp_problem_destroy(&pr);
    free(step);
    sol[m.pcol] = (double)ub / scale;
  }

  int64_t best_bound = lb;
  bool proved = ub <= lb;
  bool cut = false;
  bool failed = false;
  if (!proved) {
    static int64_t r_ub, r_bound; /* outlive a longjmp from GLPK */
    static bool r_proved, r_cut;
    r_ub = ub;
    r_bound = best_bound;
    r_proved = r_cut = false;
    glp_error_hook(glpk_error, NULL);
    if (setjmp(glpk_jump) == 0) {
      run_glpk(c, &m, P, sol, scale, unit, warm, &r_ub, &r_bound, &r_proved, &r_cut);
    } else {
      failed = true;
      glp_free_env(); /* frees every GLPK object, P included */
    }
    glp_error_hook(NULL, NULL);
    ub = r_ub;
    best_bound = r_bound;
    proved = r_proved;
    cut = r_cut;
  }
  if (proved) best_bound = ub;
  if (best_bound > ub) best_bound = ub;
  c->bound = best_bound;
  c->status = best_bound >= ub ? MP_OPTIMAL : cut ? MP_TIMEOUT : MP_FEASIBLE;
  if (failed) {
    snprintf(c->msg, sizeof c->msg, "GLPK failed (internal error); the best heuristic order is kept");
  } else {
    snprintf(c->msg, sizeof c->msg, "%d columns, %d rows", glp_get_num_cols(P), glp_get_num_rows(P));
    glp_delete_prob(P);
  }
  free(sol);
  free(m.asap);
  free(m.alap);
  free(m.xcol);
  free(m.ccol);
  return 0;
}

const mp_solver solver_ilp = {
    .name = "ilp",
    .summary = "exact: time-indexed integer program (GLPK), heuristic incumbent, size cap max_nodes",
    .decides = MP_DECIDES_ORDER,
    .options = MP_OPTIONS(ilp_options),
    .solve = ilp_solve,
};
