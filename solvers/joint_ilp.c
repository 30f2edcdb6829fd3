/* joint_ilp.c - order and offsets in one GLPK model (OLLA/MODeL style) for
 * small graphs.
 * Time-indexed order: x[v][t] = 1 when node v runs at step t (every node one
 * step, every step one node), s_v = sum_t t x[v][t], s_u + 1 <= s_v on every
 * precedence edge (data and in-place).  Buffer b lives over [B_b, D_b]:
 * B_b = s_owner (0 for graph inputs), D_b >= s_r for every reader and alias
 * of b, D_b >= B_b, D_b = n - 1 for graph outputs; a workspace lives at its
 * node's step only.  Offsets o_b = align * k_b (k_b integer), arena A >=
 * o_b + size_b.  For every pair of buffers four binaries choose why they do
 * not collide (b below c, c below b, b dies before c is born, or the
 * reverse), at least one holds:
 *     o_b + s_b <= o_c + M (1 - y1)      o_c + s_c <= o_b + M (1 - y2)
 *     D_b + 1 <= B_c + n (1 - y3)        D_c + 1 <= B_b + n (1 - y4)
 * This replaces OLLA's per-step generate/keep/live variables by lifetime
 * endpoints (same decisions, fewer binaries).  Minimise A.
 * Incumbent: the best of the start order and the five rule orders of
 * lib/listsched.h (given, greedy, lpmf, bfs, dfs), each placed by the
 * greedy incumbent of lib/pack.h; M = its arena.  So the result is never
 * worse than any of those.  GLPK's order and offsets are kept only when
 * the solver's own checks accept them (mp_sim_order_ok, mp_place_ok); it
 * claims optimal only then.  Refuses (status refused) above max_nodes /
 * max_buffers.  --write-lp writes the model also when the answer needs
 * none (the bound above the capacity, the incumbent at the bound or within
 * the capacity, an empty graph), unless a size cap would have refused it. */
#include <stdlib.h>
#include <string.h>

#include "lib/glpk_util.h"
#include "lib/listsched.h"
#include "lib/pack.h"
#include "lib/sim.h"
#include "solver.h"

#define JILP_OPTIONS(X)                                                        \
  X(max_nodes, INT, 14, 1, 10000, "refuse graphs with more nodes (size cap)")  \
  X(max_buffers, INT, 20, 1, 100000, "refuse graphs with more buffers of size > 0 (size cap)") \
  X(time, SECONDS, 0, 0, 1e6, "GLPK time limit in seconds (0: none; --time-limit caps it)")

enum { JILP_OPTIONS(MP_OPT_ENUM) JILP_N_OPTS };
static const mp_option jilp_options[] = {JILP_OPTIONS(MP_OPT_ENTRY)};

/* Place an order with the greedy incumbent; arena, offsets. */
static int64_t place_order(const mp_ctx *c, const int *order, int64_t align, int64_t *off) {
  mp_problem q;
  mp_problem_from_order(c->g, order, align, &q);
  mp_ctx pc = *c; /* the packings alone: no previous placement applies */
  pc.start_offsets = NULL;
  int64_t a = mp_place_incumbent(&pc, &q, off);
  mp_problem_destroy(&q);
  return a;
}

/* The incumbent: the start order and the rule orders, each placed. */
static int64_t joint_incumbent(mp_ctx *c, int64_t align) {
  const mp_graph *g = c->g;
  int n = g->n;
  int *ord = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)(g->n_buf ? g->n_buf : 1));
  int64_t ub = -1;
  for (int k = -1; k < MP_LS_N_RULES; k++) {
    if (k < 0)
      memcpy(ord, c->start_order, sizeof(int) * (size_t)n);
    else
      mp_ls_order(g, (mp_ls_rule)k, ord);
    int64_t a = place_order(c, ord, align, off);
    if (ub < 0 || a < ub) {
      ub = a;
      memcpy(c->order, ord, sizeof(int) * (size_t)n);
      memcpy(c->offsets, off, sizeof(int64_t) * (size_t)g->n_buf);
    }
  }
  free(ord);
  free(off);
  return ub;
}

/* The model and what solving it found. */
typedef struct jjob {
  mp_ctx *c;
  int64_t align, M, lb, ub;
  glp_prob *lp;
  int *x;            /* x[v*n+t] */
  int *sv;           /* s_v = the step of v */
  int *Bc, *Dc, *kc; /* per buffer: birth, death, offset / align */
  int rc, st;
  bool accepted;     /* GLPK's plan passed the own checks and became c->order / c->offsets */
  bool lp_failed;    /* --write-lp could not write the model */
  bool write_only;   /* the answer is known: write the model, solve nothing */
} jjob;

static void add_row(glp_prob *lp, int n, const int *ind, const double *val, int type, double lo, double hi) {
  int r = glp_add_rows(lp, 1);
  glp_set_mat_row(lp, r, n, ind, val);
  glp_set_row_bnds(lp, r, type, lo, hi);
}

/* x, s: every node one step, every step one node, precedence. */
static void add_order(jjob *J) {
  const mp_graph *g = J->c->g;
  int n = g->n;
  char name[64];
  size_t nz = (size_t)(n ? n : 1);
  for (int v = 0; v < n; v++) {
    J->sv[v] = glp_add_cols(J->lp, 1);
    snprintf(name, sizeof name, "s%d", v);
    glp_set_col_name(J->lp, J->sv[v], name);
    mp_glp_col_range(J->lp, J->sv[v], 0, n - 1);
    for (int t = 0; t < n; t++) {
      int j = J->x[v * n + t] = glp_add_cols(J->lp, 1);
      snprintf(name, sizeof name, "x%d_%d", v, t);
      glp_set_col_name(J->lp, j, name);
      glp_set_col_kind(J->lp, j, GLP_BV);
    }
  }
  int *ind = mp_xmalloc(sizeof(int) * (nz + 2));
  double *val = mp_xmalloc(sizeof(double) * (nz + 2));
  for (int v = 0; v < n; v++) { /* one step per node; s_v = sum t x */
    for (int t = 0; t < n; t++) ind[t + 1] = J->x[v * n + t], val[t + 1] = 1;
    add_row(J->lp, n, ind, val, GLP_FX, 1, 1);
    for (int t = 0; t < n; t++) val[t + 1] = t;
    ind[n + 1] = J->sv[v];
    val[n + 1] = -1;
    add_row(J->lp, n + 1, ind, val, GLP_FX, 0, 0);
  }
  for (int t = 0; t < n; t++) { /* one node per step */
    for (int v = 0; v < n; v++) ind[v + 1] = J->x[v * n + t], val[v + 1] = 1;
    add_row(J->lp, n, ind, val, GLP_FX, 1, 1);
  }
  for (int u = 0; u < n; u++)
    for (int k = 0; k < g->n_succ[u]; k++) {
      int i2[3] = {0, J->sv[u], J->sv[g->succ[u][k]]};
      double v2[3] = {0, 1, -1};
      add_row(J->lp, 2, i2, v2, GLP_UP, 0, -1);
    }
  free(ind);
  free(val);
}

/* Does node v read buffer b, or belong to its alias set? */
static bool touches(const mp_graph *g, int b, int v) {
  const mp_buffer *bf = &g->bufs[b];
  for (int q = 0; q < bf->n_readers; q++)
    if (bf->readers[q] == v) return true;
  for (int k = 0; k < g->nodes[v].n_out; k++)
    if (g->root_of[v] && g->root_of[v][k] == b && v != bf->owner) return true;
  return false;
}

/* Buffer b lives over [B_b, D_b]; its offset is align k_b, below A. */
static void add_lifetime(jjob *J, int b, int colA) {
  const mp_graph *g = J->c->g;
  const mp_buffer *bf = &g->bufs[b];
  int n = g->n;
  char name[64];
  J->Bc[b] = glp_add_cols(J->lp, 1);
  J->Dc[b] = glp_add_cols(J->lp, 1);
  snprintf(name, sizeof name, "B%d", b);
  glp_set_col_name(J->lp, J->Bc[b], name);
  snprintf(name, sizeof name, "D%d", b);
  glp_set_col_name(J->lp, J->Dc[b], name);
  mp_glp_col_range(J->lp, J->Bc[b], 0, n - 1);
  mp_glp_col_range(J->lp, J->Dc[b], 0, n - 1);
  int iB[3] = {0, J->Bc[b], J->sv[bf->owner]}, iD[3] = {0, J->Dc[b], J->Bc[b]};
  double one[2] = {0, 1}, diff[3] = {0, 1, -1};
  if (bf->kind == MP_BUF_TENSOR && bf->born_at_start) /* B = s_owner, or 0 */
    add_row(J->lp, 1, iB, one, GLP_FX, 0, 0);
  else
    add_row(J->lp, 2, iB, diff, GLP_FX, 0, 0);
  if (bf->kind == MP_BUF_WORKSPACE) { /* D = B */
    add_row(J->lp, 2, iD, diff, GLP_FX, 0, 0);
  } else if (bf->graph_output) {
    glp_set_col_bnds(J->lp, J->Dc[b], GLP_FX, n - 1, n - 1);
  } else {
    add_row(J->lp, 2, iD, diff, GLP_LO, 0, 0); /* D >= B */
    for (int v = 0; v < n; v++) /* D >= the step of every reader and alias */
      if (touches(g, b, v)) {
        int i3[3] = {0, J->Dc[b], J->sv[v]};
        add_row(J->lp, 2, i3, diff, GLP_LO, 0, 0);
      }
  }
  if (bf->size <= 0) return;
  J->kc[b] = glp_add_cols(J->lp, 1);
  snprintf(name, sizeof name, "k%d", b);
  glp_set_col_name(J->lp, J->kc[b], name);
  glp_set_col_kind(J->lp, J->kc[b], GLP_IV);
  mp_glp_col_range(J->lp, J->kc[b], 0, (double)((J->M - bf->size) / J->align));
  int i2[3] = {0, J->kc[b], colA};
  double v2[3] = {0, (double)J->align, -1};
  add_row(J->lp, 2, i2, v2, GLP_UP, 0, (double)-bf->size);
}

/* Four binaries per pair of buffers: b below d, d below b, b dies before
 * d is born, or the reverse; at least one holds. */
static void add_pair(jjob *J, int b, int d) {
  const mp_graph *g = J->c->g;
  int n = g->n;
  char name[64];
  int y = glp_add_cols(J->lp, 4);
  for (int q = 0; q < 4; q++) {
    snprintf(name, sizeof name, "y%d_%d_%d", b, d, q);
    glp_set_col_name(J->lp, y + q, name);
    glp_set_col_kind(J->lp, y + q, GLP_BV);
  }
  double M = (double)J->M, sb = (double)g->bufs[b].size, sd = (double)g->bufs[d].size;
  int i1[4] = {0, J->kc[b], J->kc[d], y}, i2[4] = {0, J->kc[d], J->kc[b], y + 1};
  double v1[4] = {0, (double)J->align, (double)-J->align, M}; /* align kb - align kd + M y1 <= M - sb */
  add_row(J->lp, 3, i1, v1, GLP_UP, 0, M - sb);
  add_row(J->lp, 3, i2, v1, GLP_UP, 0, M - sd);
  int i3[4] = {0, J->Dc[b], J->Bc[d], y + 2}, i4[4] = {0, J->Dc[d], J->Bc[b], y + 3};
  double v3[4] = {0, 1, -1, (double)n}; /* D_b - B_d + n y3 <= n - 1 */
  add_row(J->lp, 3, i3, v3, GLP_UP, 0, n - 1);
  add_row(J->lp, 3, i4, v3, GLP_UP, 0, n - 1);
  int i5[5] = {0, y, y + 1, y + 2, y + 3};
  double v5[5] = {0, 1, 1, 1, 1};
  add_row(J->lp, 4, i5, v5, GLP_LO, 1, 0);
}

/* GLPK's plan, kept when the own checks accept it and it is no worse. */
static void take_solution(jjob *J) {
  mp_ctx *c = J->c;
  const mp_graph *g = c->g;
  int n = g->n, nb = g->n_buf;
  int *ord = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)(nb ? nb : 1));
  for (int t = 0; t < n; t++) ord[t] = -1;
  for (int v = 0; v < n; v++)
    for (int t = 0; t < n; t++)
      if (glp_mip_col_val(J->lp, J->x[v * n + t]) > 0.5) ord[t] = v;
  for (int b = 0; b < nb; b++)
    off[b] = J->kc[b] ? (int64_t)(glp_mip_col_val(J->lp, J->kc[b]) + 0.5) * J->align : 0;
  if (mp_sim_order_ok(g, ord, NULL)) {
    mp_problem q;
    mp_problem_from_order(g, ord, J->align, &q);
    int64_t a = mp_place_arena(&q, off);
    if (mp_place_ok(&q, off) && a <= J->ub) {
      memcpy(c->order, ord, sizeof(int) * (size_t)n);
      memcpy(c->offsets, off, sizeof(int64_t) * (size_t)nb);
      J->ub = a;
      J->accepted = true;
    }
    mp_problem_destroy(&q);
  }
  free(ord);
  free(off);
}

static void run_model(void *arg) {
  jjob *J = arg;
  mp_ctx *c = J->c;
  const mp_graph *g = c->g;
  mp_glp_term(c);
  J->lp = glp_create_prob();
  glp_set_prob_name(J->lp, "joint_ilp");
  glp_set_obj_dir(J->lp, GLP_MIN);
  int colA = glp_add_cols(J->lp, 1);
  glp_set_col_name(J->lp, colA, "A");
  mp_glp_col_range(J->lp, colA, (double)J->lb, (double)J->M);
  glp_set_obj_coef(J->lp, colA, 1);
  add_order(J);
  for (int b = 0; b < g->n_buf; b++) add_lifetime(J, b, colA);
  for (int b = 0; b < g->n_buf; b++)
    for (int d = b + 1; d < g->n_buf; d++)
      if (g->bufs[b].size > 0 && g->bufs[d].size > 0) add_pair(J, b, d);
  int ran = mp_glp_run_mip(J->lp, c, c->opt[OPT_time], (double)J->M, !J->write_only, &J->rc, &J->st);
  if (ran < 0) J->lp_failed = true;
  if (ran > 0) take_solution(J);
  glp_delete_prob(J->lp);
}

/* The status GLPK's answer proves: optimal only for a plan the own checks
 * accepted. */
static void conclude(jjob *J) {
  mp_ctx *c = J->c;
  int64_t C = c->capacity;
  bool proves = mp_glp_proves((double)J->M);
  if (J->st == GLP_OPT && J->rc == 0 && J->accepted) {
    if (C == 0 && proves) c->bound = J->ub; /* GLPK proved this arena optimal */
    c->status = J->ub == c->bound ? MP_OPTIMAL : MP_FEASIBLE;
  } else if (mp_glp_no_integer_point(J->rc, J->st) && C > 0 && proves) {
    c->status = MP_INFEASIBLE;
    c->bound = C + 1;
    snprintf(c->msg, sizeof c->msg, "GLPK proved that no order and placement fit in %lld bytes",
             (long long)C);
  } else {
    c->status = J->rc == GLP_ETMLIM || mp_time_up(c) ? MP_TIMEOUT : MP_FEASIBLE;
    if (J->st == GLP_OPT && !J->accepted)
      snprintf(c->msg, sizeof c->msg, "GLPK's plan failed the solver's own check; the incumbent is kept");
    else if (J->rc)
      snprintf(c->msg, sizeof c->msg, "GLPK stopped (rc %d, status %d)", J->rc, J->st);
  }
}

/* Build the model (M, lb, ub as the caller decided) and solve it, or only
 * write it (write_only: the answer came without it and stands).  0, or -1
 * with a message when --write-lp could not write the model. */
static int run_job(mp_ctx *c, int64_t align, int64_t M, int64_t lb, int64_t ub, bool write_only) {
  const mp_graph *g = c->g;
  size_t nz = (size_t)(g->n ? g->n : 1), bz = (size_t)(g->n_buf ? g->n_buf : 1);
  jjob J = {c, align, M, lb, ub, NULL, mp_xmalloc(sizeof(int) * nz * nz),
            mp_xmalloc(sizeof(int) * nz), mp_xmalloc(sizeof(int) * bz), mp_xmalloc(sizeof(int) * bz),
            mp_xcalloc(bz, sizeof(int)), 0, 0, false, false, write_only};
  int rc = 0;
  bool failed = mp_glp_guarded(run_model, &J) != 0;
  if (failed && write_only) J.lp_failed = true; /* no model written */
  if (J.lp_failed) { /* as ilp: the model asked for is part of the answer */
    snprintf(c->msg, sizeof c->msg, "cannot write the LP model to %s", c->write_lp);
    rc = -1;
  } else if (failed) {
    c->status = MP_FEASIBLE;
    snprintf(c->msg, sizeof c->msg, "GLPK failed (internal error); the incumbent is kept");
  } else if (!write_only) {
    conclude(&J);
  }
  free(J.x), free(J.sv), free(J.Bc), free(J.Dc), free(J.kc);
  return rc;
}

static int joint_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n, nb = g->n_buf, nbuf_pos = 0;
  int64_t align = c->align > 0 ? c->align : 1, lb = mp_node_lower_bound(g), C = c->capacity;
  for (int b = 0; b < nb; b++) nbuf_pos += g->bufs[b].size > 0;
  bool capped = n > (int)c->opt[OPT_max_nodes] || nbuf_pos > (int)c->opt[OPT_max_buffers];
  c->bound = lb;
  memcpy(c->order, c->start_order, sizeof(int) * (size_t)n);
  if (C > 0 && lb > C) {
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg, "lower bound %lld exceeds the capacity %lld", (long long)lb,
             (long long)C);
    /* the model of the capacity, unless the size cap would have refused it */
    return c->write_lp && !capped ? run_job(c, align, C, lb, lb, true) : 0;
  }
  if (capped) {
    c->status = MP_REFUSED;
    snprintf(c->msg, sizeof c->msg,
             "%d nodes / %d buffers exceed the size cap (max_nodes=%d, max_buffers=%d); "
             "the time-indexed model grows as n^2 + 4 buffers^2 binaries",
             n, nbuf_pos, (int)c->opt[OPT_max_nodes], (int)c->opt[OPT_max_buffers]);
    return -1;
  }
  int64_t ub = joint_incumbent(c, align);
  c->status = ub == lb ? MP_OPTIMAL : MP_FEASIBLE;
  bool settled = ub == lb || (C > 0 && ub <= C) || n == 0;
  if (settled && !c->write_lp) return 0;
  return run_job(c, align, C > 0 ? C : ub, lb, ub, settled);
}

const mp_solver solver_joint_ilp = {
    .name = "joint-ilp",
    .summary = "GLPK MIP deciding order and offsets together (OLLA/MODeL style), small graphs; size cap",
    .decides = MP_DECIDES_BOTH,
    .roles = MP_ROLE_WRITES_LP,
    .options = MP_OPTIONS(jilp_options),
    .quick = "max_nodes=6,max_buffers=7,time=1",
    .solve = joint_solve,
};
