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
 * Incumbent: the best of the start order, the greedy order (least live
 * memory after each step, via mp_sim) and the given order, each placed by
 * greedy-by-size with best and first fit; M = its arena.  So the result is
 * never worse than any of those.  Refuses above max_nodes / max_buffers. */
#include <stdlib.h>
#include <string.h>

#include "lib/glpk_util.h"
#include "lib/pack.h"
#include "lib/sim.h"
#include "solver.h"

#define JILP_OPTIONS(X)                                                        \
  X(max_nodes, 14, 1, 10000, "refuse graphs with more nodes")                   \
  X(max_buffers, 20, 1, 100000, "refuse graphs with more buffers of size > 0") \
  X(time, 0, 0, 1e6, "GLPK time limit in seconds (0: none; --time-limit caps it)")

enum { JILP_OPTIONS(MP_OPT_ENUM) JILP_N_OPTS };
static const mp_option jilp_options[] = {JILP_OPTIONS(MP_OPT_ENTRY)};

static void greedy_order(const mp_graph *g, int *order) {
  int n = g->n;
  mp_sim s;
  mp_sim_init(&s, g);
  for (int step = 0; step < n; step++) {
    int bv = -1;
    int64_t ba = 0, bd = 0;
    for (int k = 0; k < n; k++) {
      int v = g->given[k];
      if (!mp_sim_ready(&s, v)) continue;
      int64_t after, during = mp_sim_cost(&s, v, &after);
      if (bv < 0 || after < ba || (after == ba && during < bd)) {
        bv = v;
        ba = after;
        bd = during;
      }
    }
    mp_sim_run(&s, bv);
    order[step] = bv;
  }
  mp_sim_free(&s);
}

/* Place an order by greedy-by-size (best and first fit); arena, offsets. */
static int64_t place_order(const mp_graph *g, const int *order, int64_t align, int64_t *off) {
  mp_problem q;
  mp_problem_from_order(g, order, align, &q);
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(q.n ? q.n : 1));
  int64_t *o2 = mp_xmalloc(sizeof(int64_t) * (size_t)(q.n ? q.n : 1));
  mp_seq_by_size(&q, seq);
  int64_t a = mp_pack(&q, seq, q.n, MP_BEST_FIT, off);
  int64_t b = mp_pack(&q, seq, q.n, MP_FIRST_FIT, o2);
  if (b < a) {
    a = b;
    memcpy(off, o2, sizeof(int64_t) * (size_t)q.n);
  }
  for (int i = 0; i < q.n; i++)
    if (off[i] < 0) off[i] = 0;
  free(seq);
  free(o2);
  mp_problem_destroy(&q);
  return a;
}

static int joint_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n, nb = g->n_buf;
  int64_t align = c->align > 0 ? c->align : 1;
  int nbuf_pos = 0;
  for (int b = 0; b < nb; b++)
    if (g->bufs[b].size > 0) nbuf_pos++;
  if (c->capacity > 0 && mp_node_lower_bound(g) > c->capacity) {
    c->status = MP_INFEASIBLE;
    c->bound = mp_node_lower_bound(g);
    snprintf(c->msg, sizeof c->msg, "lower bound %lld exceeds the capacity %lld",
             (long long)c->bound, (long long)c->capacity);
    memcpy(c->order, c->start_order, sizeof(int) * (size_t)n);
    return 0;
  }
  if (n > (int)c->opt[OPT_max_nodes] || nbuf_pos > (int)c->opt[OPT_max_buffers]) {
    snprintf(c->msg, sizeof c->msg,
             "joint-ilp: %d nodes / %d buffers exceed the size cap (max_nodes=%d, max_buffers=%d); "
             "the time-indexed model grows as n^2 + 4 buffers^2 binaries",
             n, nbuf_pos, (int)c->opt[OPT_max_nodes], (int)c->opt[OPT_max_buffers]);
    return -1;
  }
  size_t nz = (size_t)(n ? n : 1), bz = (size_t)(nb ? nb : 1);
  /* incumbent over several orders */
  int *cand = mp_xmalloc(sizeof(int) * nz * 3);
  memcpy(cand, c->start_order, sizeof(int) * (size_t)n);
  greedy_order(g, cand + n);
  memcpy(cand + 2 * n, g->given, sizeof(int) * (size_t)n);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * bz);
  int64_t ub = -1;
  for (int k = 0; k < 3; k++) {
    int64_t a = place_order(g, cand + (size_t)k * (size_t)n, align, off);
    if (ub < 0 || a < ub) {
      ub = a;
      memcpy(c->order, cand + (size_t)k * (size_t)n, sizeof(int) * (size_t)n);
      memcpy(c->offsets, off, sizeof(int64_t) * (size_t)nb);
    }
  }
  int64_t lb = mp_node_lower_bound(g);
  c->bound = lb;
  int64_t C = c->capacity;
  c->status = ub <= lb ? MP_OPTIMAL : MP_FEASIBLE;
  if (C > 0 && lb > C) {
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg, "lower bound %lld exceeds the capacity %lld", (long long)lb,
             (long long)C);
    goto out;
  }
  if (ub <= lb || (C > 0 && ub <= C) || n == 0) goto out;
  {
    int64_t M = C > 0 ? C : ub;
    if (!c->verbose) glp_term_out(GLP_OFF);
    glp_prob *lp = glp_create_prob();
    glp_set_prob_name(lp, "joint_ilp");
    glp_set_obj_dir(lp, GLP_MIN);
    char name[64];
    int colA = glp_add_cols(lp, 1);
    glp_set_col_name(lp, colA, "A");
    mp_glp_col_range(lp, colA, (double)lb, (double)M);
    glp_set_obj_coef(lp, colA, 1);
    int *x = mp_xmalloc(sizeof(int) * nz * nz); /* x[v*n+t] */
    int *sv = mp_xmalloc(sizeof(int) * nz);
    for (int v = 0; v < n; v++) {
      sv[v] = glp_add_cols(lp, 1);
      snprintf(name, sizeof name, "s%d", v);
      glp_set_col_name(lp, sv[v], name);
      mp_glp_col_range(lp, sv[v], 0, n - 1);
      for (int t = 0; t < n; t++) {
        int j = x[v * n + t] = glp_add_cols(lp, 1);
        snprintf(name, sizeof name, "x%d_%d", v, t);
        glp_set_col_name(lp, j, name);
        glp_set_col_kind(lp, j, GLP_BV);
      }
    }
    int *ind = mp_xmalloc(sizeof(int) * (nz + 2));
    double *val = mp_xmalloc(sizeof(double) * (nz + 2));
    for (int v = 0; v < n; v++) { /* one step per node; s_v = sum t x */
      int r = glp_add_rows(lp, 2);
      for (int t = 0; t < n; t++) {
        ind[t + 1] = x[v * n + t];
        val[t + 1] = 1;
      }
      glp_set_mat_row(lp, r, n, ind, val);
      glp_set_row_bnds(lp, r, GLP_FX, 1, 1);
      for (int t = 0; t < n; t++) val[t + 1] = t;
      ind[n + 1] = sv[v];
      val[n + 1] = -1;
      glp_set_mat_row(lp, r + 1, n + 1, ind, val);
      glp_set_row_bnds(lp, r + 1, GLP_FX, 0, 0);
    }
    for (int t = 0; t < n; t++) { /* one node per step */
      int r = glp_add_rows(lp, 1);
      for (int v = 0; v < n; v++) {
        ind[v + 1] = x[v * n + t];
        val[v + 1] = 1;
      }
      glp_set_mat_row(lp, r, n, ind, val);
      glp_set_row_bnds(lp, r, GLP_FX, 1, 1);
    }
    for (int u = 0; u < n; u++)
      for (int k = 0; k < g->n_succ[u]; k++) {
        int r = glp_add_rows(lp, 1);
        int i2[3] = {0, sv[u], sv[g->succ[u][k]]};
        double v2[3] = {0, 1, -1};
        glp_set_mat_row(lp, r, 2, i2, v2);
        glp_set_row_bnds(lp, r, GLP_UP, 0, -1);
      }
    /* lifetimes */
    int *Bc = mp_xmalloc(sizeof(int) * bz), *Dc = mp_xmalloc(sizeof(int) * bz), *kc = mp_xcalloc(bz, sizeof(int));
    for (int b = 0; b < nb; b++) {
      const mp_buffer *bf = &g->bufs[b];
      Bc[b] = glp_add_cols(lp, 1);
      Dc[b] = glp_add_cols(lp, 1);
      snprintf(name, sizeof name, "B%d", b);
      glp_set_col_name(lp, Bc[b], name);
      snprintf(name, sizeof name, "D%d", b);
      glp_set_col_name(lp, Dc[b], name);
      mp_glp_col_range(lp, Bc[b], 0, n - 1);
      mp_glp_col_range(lp, Dc[b], 0, n - 1);
      int r = glp_add_rows(lp, 1); /* B = s_owner or 0 */
      if (bf->kind == MP_BUF_TENSOR && bf->born_at_start) {
        int i2[2] = {0, Bc[b]};
        double v2[2] = {0, 1};
        glp_set_mat_row(lp, r, 1, i2, v2);
      } else {
        int i2[3] = {0, Bc[b], sv[bf->owner]};
        double v2[3] = {0, 1, -1};
        glp_set_mat_row(lp, r, 2, i2, v2);
      }
      glp_set_row_bnds(lp, r, GLP_FX, 0, 0);
      if (bf->kind == MP_BUF_WORKSPACE) { /* D = B */
        r = glp_add_rows(lp, 1);
        int i2[3] = {0, Dc[b], Bc[b]};
        double v2[3] = {0, 1, -1};
        glp_set_mat_row(lp, r, 2, i2, v2);
        glp_set_row_bnds(lp, r, GLP_FX, 0, 0);
      } else if (bf->graph_output) {
        glp_set_col_bnds(lp, Dc[b], GLP_FX, n - 1, n - 1);
      } else {
        r = glp_add_rows(lp, 1); /* D >= B */
        int i2[3] = {0, Dc[b], Bc[b]};
        double v2[3] = {0, 1, -1};
        glp_set_mat_row(lp, r, 2, i2, v2);
        glp_set_row_bnds(lp, r, GLP_LO, 0, 0);
        /* readers and the alias set */
        for (int v = 0; v < n; v++) {
          bool touches = false;
          for (int q = 0; q < bf->n_readers; q++)
            if (bf->readers[q] == v) touches = true;
          for (int k = 0; k < g->nodes[v].n_out && !touches; k++)
            if (g->root_of[v] && g->root_of[v][k] == b && v != bf->owner) touches = true;
          if (!touches) continue;
          r = glp_add_rows(lp, 1);
          int i3[3] = {0, Dc[b], sv[v]};
          double v3[3] = {0, 1, -1};
          glp_set_mat_row(lp, r, 2, i3, v3);
          glp_set_row_bnds(lp, r, GLP_LO, 0, 0);
        }
      }
      if (bf->size <= 0) continue;
      kc[b] = glp_add_cols(lp, 1);
      snprintf(name, sizeof name, "k%d", b);
      glp_set_col_name(lp, kc[b], name);
      glp_set_col_kind(lp, kc[b], GLP_IV);
      mp_glp_col_range(lp, kc[b], 0, (double)((M - bf->size) / align));
      r = glp_add_rows(lp, 1);
      int i2[3] = {0, kc[b], colA};
      double v2[3] = {0, (double)align, -1};
      glp_set_mat_row(lp, r, 2, i2, v2);
      glp_set_row_bnds(lp, r, GLP_UP, 0, (double)-bf->size);
    }
    for (int b = 0; b < nb; b++) {
      if (g->bufs[b].size <= 0) continue;
      for (int d = b + 1; d < nb; d++) {
        if (g->bufs[d].size <= 0) continue;
        int y = glp_add_cols(lp, 4);
        for (int q = 0; q < 4; q++) {
          snprintf(name, sizeof name, "y%d_%d_%d", b, d, q);
          glp_set_col_name(lp, y + q, name);
          glp_set_col_kind(lp, y + q, GLP_BV);
        }
        int r = glp_add_rows(lp, 5);
        double sb = (double)g->bufs[b].size, sd = (double)g->bufs[d].size;
        /* align kb - align kd + M y1 <= M - sb */
        int i1[4] = {0, kc[b], kc[d], y};
        double v1[4] = {0, (double)align, (double)-align, (double)M};
        glp_set_mat_row(lp, r, 3, i1, v1);
        glp_set_row_bnds(lp, r, GLP_UP, 0, (double)M - sb);
        int i2[4] = {0, kc[d], kc[b], y + 1};
        glp_set_mat_row(lp, r + 1, 3, i2, v1);
        glp_set_row_bnds(lp, r + 1, GLP_UP, 0, (double)M - sd);
        /* D_b - B_d + n y3 <= n - 1 */
        int i3[4] = {0, Dc[b], Bc[d], y + 2};
        double v3[4] = {0, 1, -1, (double)n};
        glp_set_mat_row(lp, r + 2, 3, i3, v3);
        glp_set_row_bnds(lp, r + 2, GLP_UP, 0, n - 1);
        int i4[4] = {0, Dc[d], Bc[b], y + 3};
        glp_set_mat_row(lp, r + 3, 3, i4, v3);
        glp_set_row_bnds(lp, r + 3, GLP_UP, 0, n - 1);
        int i5[5] = {0, y, y + 1, y + 2, y + 3};
        double v5[5] = {0, 1, 1, 1, 1};
        glp_set_mat_row(lp, r + 4, 4, i5, v5);
        glp_set_row_bnds(lp, r + 4, GLP_LO, 1, 0);
      }
    }
    if (c->write_lp) glp_write_lp(lp, NULL, c->write_lp);
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
    double limit = c->opt[OPT_time];
    if (c->time_limit > 0 && (limit <= 0 || c->time_limit < limit)) limit = c->time_limit;
    if (limit > 0) parm.tm_lim = (int)(limit * 1000 > 2e9 ? 2e9 : limit * 1000);
    int rc = glp_intopt(lp, &parm);
    int st = glp_mip_status(lp);
    if ((st == GLP_OPT || st == GLP_FEAS) && (rc == 0 || rc == GLP_ETMLIM)) {
      int *ord = mp_xmalloc(sizeof(int) * nz);
      for (int t = 0; t < n; t++) ord[t] = -1;
      for (int v = 0; v < n; v++)
        for (int t = 0; t < n; t++)
          if (glp_mip_col_val(lp, x[v * n + t]) > 0.5) ord[t] = v;
      int64_t *o2 = mp_xmalloc(sizeof(int64_t) * bz);
      for (int b = 0; b < nb; b++)
        o2[b] = kc[b] ? (int64_t)(glp_mip_col_val(lp, kc[b]) + 0.5) * align : 0;
      mp_error e;
      bool ok = true;
      for (int t = 0; t < n; t++)
        if (ord[t] < 0) ok = false;
      if (ok && mp_order_check(g, ord, &e) < 0) {
        mp_problem q;
        mp_problem_from_order(g, ord, align, &q);
        if (mp_verify_offsets(&q, o2, NULL) == 0 && mp_arena(&q, o2) <= ub) {
          memcpy(c->order, ord, sizeof(int) * (size_t)n);
          memcpy(c->offsets, o2, sizeof(int64_t) * (size_t)nb);
          ub = mp_arena(&q, o2);
        }
        mp_problem_destroy(&q);
      }
      free(ord);
      free(o2);
    }
    if (st == GLP_OPT && rc == 0) {
      if (C == 0) {
        c->status = MP_OPTIMAL;
        c->bound = ub;
      } else {
        c->status = ub <= lb ? MP_OPTIMAL : MP_FEASIBLE;
      }
    } else if (st == GLP_NOFEAS && rc == 0 && C > 0) {
      c->status = MP_INFEASIBLE;
      snprintf(c->msg, sizeof c->msg, "GLPK proved that no order and placement fit in %lld bytes",
               (long long)C);
    } else {
      c->status = rc == GLP_ETMLIM || mp_time_up(c) ? MP_TIMEOUT : MP_FEASIBLE;
      if (rc) snprintf(c->msg, sizeof c->msg, "GLPK stopped (rc %d, status %d)", rc, st);
    }
    glp_delete_prob(lp);
    free(x);
    free(sv);
    free(ind);
    free(val);
    free(Bc);
    free(Dc);
    free(kc);
  }
out:
  free(cand);
  free(off);
  return 0;
}

const mp_solver solver_joint_ilp = {
    .name = "joint-ilp",
    .summary = "GLPK MIP deciding order and offsets together (OLLA/MODeL style), small graphs",
    .decides = MP_DECIDES_BOTH,
    .options = MP_OPTIONS(jilp_options),
    .quick = "max_nodes=7,max_buffers=9,time=1",
    .solve = joint_solve,
};
