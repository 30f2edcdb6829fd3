/* ilp_place.c - placement as a GLPK mixed-integer programme.
 * Variables: k_i >= 0 integer with offset o_i = align_i * k_i (pinned items:
 * k fixed), the arena A (continuous), and one binary z_ij per pair of
 * buffers with intersecting lifetimes (the literal half-open test, so empty
 * lifetimes [t, t) pair with every lifetime across t):
 *     o_i + s_i <= o_j + M z_ij          (i below j when z_ij = 0)
 *     o_j + s_j <= o_i + M (1 - z_ij)    (j below i when z_ij = 1)
 *     o_i + s_i <= A,   bound <= A <= M
 * M = the incumbent (lib/pack.h's greedy incumbent), or the capacity when
 * one is asked for (then A <= C and any feasible point will do); bound =
 * lib/sweep.h's placement lower bound.  Minimise A.  GLPK's solution is
 * kept only when the solver's own check (mp_place_ok) accepts it; the
 * incumbent is kept when the MIP finds nothing better within the time
 * limit.  Above max_items placeable buffers the solver refuses (status
 * refused): the model has O(n^2) binaries and GLPK's branch and bound
 * cannot close it.  --write-lp writes the model also when the answer needs
 * none (the bound above the capacity, the incumbent at the bound or within
 * the capacity), unless the size cap would have refused it. */
#include <stdlib.h>
#include <string.h>

#include "lib/glpk_util.h"
#include "lib/pack.h"
#include "lib/sweep.h"
#include "solver.h"

#define ILPP_OPTIONS(X)                                                              \
  X(max_items, INT, 60, 1, 100000, "refuse problems with more placeable buffers (size cap)") \
  X(time, SECONDS, 0, 0, 1e6, "GLPK time limit in seconds (0: none; --time-limit caps it)")

enum { ILPP_OPTIONS(MP_OPT_ENUM) ILPP_N_OPTS };
static const mp_option ilpp_options[] = {ILPP_OPTIONS(MP_OPT_ENTRY)};

/* The model and what solving it found. */
typedef struct pjob {
  mp_ctx *c;
  const mp_problem *p;
  int64_t M, lb;
  int *col;          /* per item: its k column, 0 for an item of size 0 */
  int npairs;
  glp_prob *lp;
  int rc, st;        /* glp_intopt's return code, glp_mip_status */
  bool accepted;     /* GLPK's solution passed the own check and became c->offsets */
  bool lp_failed;    /* --write-lp could not write the model */
  bool write_only;   /* the answer is known: write the model, solve nothing */
} pjob;

/* k_i columns and the rows o_i + s_i <= A. */
static void add_items(pjob *J, int colA) {
  const mp_problem *p = J->p;
  char name[64];
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->size <= 0) continue;
    int64_t al = it->align < 1 ? 1 : it->align;
    J->col[i] = glp_add_cols(J->lp, 1);
    snprintf(name, sizeof name, "k%d", i);
    glp_set_col_name(J->lp, J->col[i], name);
    glp_set_col_kind(J->lp, J->col[i], GLP_IV);
    if (it->fixed >= 0)
      glp_set_col_bnds(J->lp, J->col[i], GLP_FX, (double)(it->fixed / al), (double)(it->fixed / al));
    else
      mp_glp_col_range(J->lp, J->col[i], 0, (double)((J->M - it->size) / al));
    int r = glp_add_rows(J->lp, 1);
    snprintf(name, sizeof name, "top%d", i);
    glp_set_row_name(J->lp, r, name);
    int ind[3] = {0, J->col[i], colA};
    double val[3] = {0, (double)al, -1.0};
    glp_set_mat_row(J->lp, r, 2, ind, val);
    glp_set_row_bnds(J->lp, r, GLP_UP, 0, (double)-it->size);
  }
}

/* One binary and two big-M rows per pair live together (not both pinned). */
static void add_pairs(pjob *J) {
  const mp_problem *p = J->p;
  double M = (double)J->M;
  char name[64];
  for (int i = 0; i < p->n; i++) {
    if (!J->col[i]) continue;
    for (int j = i + 1; j < p->n; j++) {
      const mp_item *a = &p->items[i], *b = &p->items[j];
      if (!J->col[j] || !mp_live_together(a, b) || (a->fixed >= 0 && b->fixed >= 0)) continue;
      int64_t ai = a->align < 1 ? 1 : a->align, aj = b->align < 1 ? 1 : b->align;
      int z = glp_add_cols(J->lp, 1);
      snprintf(name, sizeof name, "z%d_%d", i, j);
      glp_set_col_name(J->lp, z, name);
      glp_set_col_kind(J->lp, z, GLP_BV);
      J->npairs++;
      int r = glp_add_rows(J->lp, 2), ind[4] = {0, J->col[i], J->col[j], z};
      double v1[4] = {0, (double)ai, (double)-aj, -M}; /* ai ki - aj kj - M z <= -s_i */
      glp_set_mat_row(J->lp, r, 3, ind, v1);
      glp_set_row_bnds(J->lp, r, GLP_UP, 0, (double)-a->size);
      double v2[4] = {0, (double)-ai, (double)aj, M}; /* aj kj - ai ki + M z <= M - s_j */
      glp_set_mat_row(J->lp, r + 1, 3, ind, v2);
      glp_set_row_bnds(J->lp, r + 1, GLP_UP, 0, M - (double)b->size);
    }
  }
}

/* GLPK's offsets, kept when the own check accepts them and they are no
 * worse than the incumbent. */
static void take_solution(pjob *J) {
  const mp_problem *p = J->p;
  size_t nz = (size_t)(p->n ? p->n : 1);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * nz);
  for (int i = 0; i < p->n; i++) {
    int64_t al = p->items[i].align < 1 ? 1 : p->items[i].align;
    off[i] = J->col[i] ? (int64_t)(glp_mip_col_val(J->lp, J->col[i]) + 0.5) * al : J->c->offsets[i];
  }
  if (mp_place_ok(p, off) && mp_place_arena(p, off) <= mp_place_arena(p, J->c->offsets)) {
    memcpy(J->c->offsets, off, sizeof(int64_t) * (size_t)p->n);
    J->accepted = true;
  }
  free(off);
}

static void run_model(void *arg) {
  pjob *J = arg;
  mp_ctx *c = J->c;
  mp_glp_term(c);
  J->lp = glp_create_prob();
  glp_set_prob_name(J->lp, "ilp_place");
  glp_set_obj_dir(J->lp, GLP_MIN);
  int colA = glp_add_cols(J->lp, 1);
  glp_set_col_name(J->lp, colA, "A");
  mp_glp_col_range(J->lp, colA, (double)J->lb, (double)J->M);
  glp_set_obj_coef(J->lp, colA, 1.0);
  add_items(J, colA);
  add_pairs(J);
  int ran = mp_glp_run_mip(J->lp, c, c->opt[OPT_time], (double)J->M, !J->write_only, &J->rc, &J->st);
  if (ran < 0) J->lp_failed = true;
  if (ran > 0) take_solution(J);
  glp_delete_prob(J->lp);
}

/* --write-lp when the answer came without the model: the model that would
 * have been solved (M and lb as there), written and not solved; 0, or -1
 * with a message when it could not be written.  The answer stands. */
static int write_unsolved(mp_ctx *c, int64_t M, int64_t lb) {
  int n = c->prob->n;
  pjob J = {c, c->prob, M, lb, mp_xcalloc((size_t)(n ? n : 1), sizeof(int)), 0, NULL, 0, 0, false, false, true};
  if (mp_glp_guarded(run_model, &J) != 0) J.lp_failed = true;
  free(J.col);
  if (!J.lp_failed) return 0;
  snprintf(c->msg, sizeof c->msg, "cannot write the LP model to %s", c->write_lp);
  return -1;
}

/* The status GLPK's answer proves. */
static void conclude(pjob *J) {
  mp_ctx *c = J->c;
  int64_t C = c->capacity, arena = mp_place_arena(J->p, c->offsets);
  bool proves = mp_glp_proves((double)J->M);
  if (J->st == GLP_OPT && J->rc == 0 && J->accepted) {
    /* minimising, GLPK proved this arena optimal (at a scale where its
     * tolerances are under a byte); with a capacity the model only asked
     * for a fit */
    if (C == 0 && proves) c->bound = arena;
    c->status = arena == c->bound ? MP_OPTIMAL : MP_FEASIBLE;
    if (!proves && c->status != MP_OPTIMAL)
      snprintf(c->msg, sizeof c->msg, "GLPK's optimum kept, unproven: M = %lld is above 2^23, "
               "where its tolerances exceed a byte", (long long)J->M);
  } else if (mp_glp_no_integer_point(J->rc, J->st) && C > 0 && proves) {
    c->status = MP_INFEASIBLE;
    c->bound = C + 1;
    snprintf(c->msg, sizeof c->msg, "GLPK proved that no placement fits in %lld bytes", (long long)C);
  } else if (J->st == GLP_OPT && J->rc == 0) { /* within GLPK's tolerances only */
    c->status = MP_FEASIBLE;
    snprintf(c->msg, sizeof c->msg, "GLPK's optimum (%d pair binaries) failed the own check or "
             "was no better; the greedy incumbent is kept, unproven", J->npairs);
  } else {
    c->status = J->rc == GLP_ETMLIM || mp_time_up(c) ? MP_TIMEOUT : MP_FEASIBLE;
    snprintf(c->msg, sizeof c->msg, "GLPK stopped (rc %d, status %d) with %d pair binaries", J->rc,
             J->st, J->npairs);
  }
}

static int ilp_place_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int n = p->n, m = 0;
  for (int i = 0; i < n; i++) m += p->items[i].size > 0;
  bool capped = m > (int)c->opt[OPT_max_items];
  int64_t lb = mp_place_lower_bound(p), C = c->capacity;
  c->bound = lb;
  if (C > 0 && lb > C) { /* infeasible at once, whatever the size */
    if (capped) /* no placement made: the harness judges by the live peak */
      for (int i = 0; i < n; i++) c->offsets[i] = p->items[i].fixed >= 0 ? p->items[i].fixed : 0;
    else /* a valid placement: the harness takes lb with it */
      mp_place_incumbent(c, p, c->offsets);
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg, "lower bound %lld exceeds the capacity %lld", (long long)lb,
             (long long)C);
    /* the model of the capacity, unless the size cap would have refused it */
    return c->write_lp && !capped ? write_unsolved(c, C, lb) : 0;
  }
  if (capped) {
    c->status = MP_REFUSED;
    snprintf(c->msg, sizeof c->msg,
             "%d placeable buffers exceed the size cap max_items=%d (O(n^2) binaries); "
             "use exact, or raise max_items", m, (int)c->opt[OPT_max_items]);
    return -1;
  }
  int64_t ub = mp_place_incumbent(c, p, c->offsets);
  if (ub == lb || (C > 0 && ub <= C)) {
    c->status = ub == lb ? MP_OPTIMAL : MP_FEASIBLE;
    return c->write_lp ? write_unsolved(c, C > 0 ? C : ub, lb) : 0;
  }
  pjob J = {c, p, C > 0 ? C : ub, lb, mp_xcalloc((size_t)(n ? n : 1), sizeof(int)), 0, NULL, 0, 0, false, false, false};
  int rc = 0;
  if (mp_glp_guarded(run_model, &J) != 0) {
    c->status = MP_FEASIBLE;
    snprintf(c->msg, sizeof c->msg, "GLPK failed (internal error); the greedy incumbent is kept");
  } else if (J.lp_failed) { /* as ilp: the model asked for is part of the answer */
    snprintf(c->msg, sizeof c->msg, "cannot write the LP model to %s", c->write_lp);
    rc = -1;
  } else {
    conclude(&J);
  }
  free(J.col);
  return rc;
}

const mp_solver solver_ilp_place = {
    .name = "ilp-place",
    .summary = "GLPK MIP: integer offsets, big-M pair disjunctions, minimise the arena; size cap max_items",
    .decides = MP_DECIDES_OFFSETS,
    .roles = MP_ROLE_WRITES_LP,
    .options = MP_OPTIONS(ilpp_options),
    .quick = "max_items=7,time=1",
    .solve = ilp_place_solve,
};
