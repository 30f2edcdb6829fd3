/* ilp_place.c - placement as a GLPK mixed-integer programme.
 * Variables: k_i >= 0 integer with offset o_i = align_i * k_i (pinned items:
 * k fixed), the arena A (continuous), and one binary z_ij per pair of
 * buffers with intersecting lifetimes:
 *     o_i + s_i <= o_j + M z_ij          (i below j when z_ij = 0)
 *     o_j + s_j <= o_i + M (1 - z_ij)    (j below i when z_ij = 1)
 *     o_i + s_i <= A,   max-live <= A <= M
 * M = the incumbent: the best greedy-by-size packing (best and first fit),
 * or the capacity when one is asked for (then A <= C and any feasible
 * point will do).  Minimise A.  The incumbent is kept when the MIP finds
 * nothing better within the time limit.  Above max_items placeable buffers
 * the solver refuses: the model has O(n^2) binaries and GLPK's branch and
 * bound cannot close it. */
#include <stdlib.h>
#include <string.h>

#include "lib/glpk_util.h"
#include "lib/pack.h"
#include "solver.h"

#define ILPP_OPTIONS(X)                                                              \
  X(max_items, 60, 1, 100000, "refuse problems with more placeable buffers")           \
  X(time, 0, 0, 1e6, "GLPK time limit in seconds (0: none; --time-limit caps it)")

enum { ILPP_OPTIONS(MP_OPT_ENUM) ILPP_N_OPTS };
static const mp_option ilpp_options[] = {ILPP_OPTIONS(MP_OPT_ENTRY)};

static int ilp_place_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  int *var = mp_xmalloc(sizeof(int) * nz);
  int m = 0;
  for (int i = 0; i < n; i++) {
    const mp_item *it = &p->items[i];
    /* every buffer with bytes, empty lifetimes too: the half-open test
     * a.lo < b.hi && b.lo < a.hi decides the pairs, as everywhere */
    var[i] = it->size > 0 ? ++m : 0;
    c->offsets[i] = it->fixed >= 0 ? it->fixed : 0;
  }
  if (c->capacity > 0) { /* below max-live: infeasible at once, whatever the size */
    int64_t live = mp_live_peak(p);
    if (live > c->capacity) {
      c->status = MP_INFEASIBLE;
      c->bound = live;
      snprintf(c->msg, sizeof c->msg, "max-live %lld exceeds the capacity %lld", (long long)live,
               (long long)c->capacity);
      free(var);
      return 0;
    }
  }
  if (m > (int)c->opt[OPT_max_items]) {
    snprintf(c->msg, sizeof c->msg,
             "ilp-place: %d placeable buffers exceed the size cap max_items=%d (O(n^2) binaries); "
             "use exact, or raise max_items", m, (int)c->opt[OPT_max_items]);
    free(var);
    return -1;
  }
  /* incumbent */
  int *seq = mp_xmalloc(sizeof(int) * nz);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * nz), *inc = mp_xmalloc(sizeof(int64_t) * nz);
  mp_seq_by_size(p, seq);
  int64_t ub = mp_pack(p, seq, n, MP_BEST_FIT, inc);
  int64_t a2 = mp_pack(p, seq, n, MP_FIRST_FIT, off);
  if (a2 < ub) {
    ub = a2;
    memcpy(inc, off, sizeof(int64_t) * nz);
  }
  for (int i = 0; i < n; i++)
    if (inc[i] < 0) inc[i] = 0;
  int64_t lb = mp_live_peak(p);
  for (int i = 0; i < n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].fixed + p->items[i].size > lb)
      lb = p->items[i].fixed + p->items[i].size;
  int64_t C = c->capacity;
  memcpy(c->offsets, inc, sizeof(int64_t) * nz);
  c->bound = lb;
  if (C > 0 && lb > C) {
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg, "lower bound %lld exceeds the capacity %lld", (long long)lb,
             (long long)C);
    goto done;
  }
  if (ub <= lb || (C > 0 && ub <= C)) {
    c->status = ub <= lb ? MP_OPTIMAL : MP_FEASIBLE;
    goto done;
  }
  {
    int64_t M = C > 0 ? C : ub;
    if (!c->verbose) glp_term_out(GLP_OFF);
    glp_prob *lp = glp_create_prob();
    glp_set_prob_name(lp, "ilp_place");
    glp_set_obj_dir(lp, GLP_MIN);
    int colA = glp_add_cols(lp, 1);
    glp_set_col_name(lp, colA, "A");
    mp_glp_col_range(lp, colA, (double)lb, (double)M);
    glp_set_obj_coef(lp, colA, 1.0);
    int *col = mp_xcalloc(nz, sizeof(int));
    char name[64];
    for (int i = 0; i < n; i++) {
      if (!var[i]) continue;
      const mp_item *it = &p->items[i];
      int64_t al = it->align < 1 ? 1 : it->align;
      col[i] = glp_add_cols(lp, 1);
      snprintf(name, sizeof name, "k%d", i);
      glp_set_col_name(lp, col[i], name);
      glp_set_col_kind(lp, col[i], GLP_IV);
      if (it->fixed >= 0)
        glp_set_col_bnds(lp, col[i], GLP_FX, (double)(it->fixed / al), (double)(it->fixed / al));
      else
        mp_glp_col_range(lp, col[i], 0, (double)((M - it->size) / al));
      /* o_i + s_i <= A */
      int r = glp_add_rows(lp, 1);
      snprintf(name, sizeof name, "top%d", i);
      glp_set_row_name(lp, r, name);
      int ind[3] = {0, col[i], colA};
      double val[3] = {0, (double)al, -1.0};
      glp_set_mat_row(lp, r, 2, ind, val);
      glp_set_row_bnds(lp, r, GLP_UP, 0, (double)-it->size);
    }
    int npairs = 0;
    for (int i = 0; i < n; i++) {
      if (!var[i]) continue;
      for (int j = i + 1; j < n; j++) {
        if (!var[j]) continue;
        const mp_item *a = &p->items[i], *b = &p->items[j];
        if (!(a->lo < b->hi && b->lo < a->hi)) continue;
        if (a->fixed >= 0 && b->fixed >= 0) continue;
        int64_t ai = a->align < 1 ? 1 : a->align, aj = b->align < 1 ? 1 : b->align;
        int z = glp_add_cols(lp, 1);
        snprintf(name, sizeof name, "z%d_%d", i, j);
        glp_set_col_name(lp, z, name);
        glp_set_col_kind(lp, z, GLP_BV);
        npairs++;
        /* ai ki - aj kj - M z <= -s_i */
        int r = glp_add_rows(lp, 2);
        int ind[4] = {0, col[i], col[j], z};
        double v1[4] = {0, (double)ai, (double)-aj, (double)-M};
        glp_set_mat_row(lp, r, 3, ind, v1);
        glp_set_row_bnds(lp, r, GLP_UP, 0, (double)-a->size);
        /* aj kj - ai ki + M z <= M - s_j */
        double v2[4] = {0, (double)-ai, (double)aj, (double)M};
        glp_set_mat_row(lp, r + 1, 3, ind, v2);
        glp_set_row_bnds(lp, r + 1, GLP_UP, 0, (double)(M - b->size));
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
    bool accepted = false;
    int st = glp_mip_status(lp);
    if ((st == GLP_OPT || st == GLP_FEAS) && (rc == 0 || rc == GLP_ETMLIM)) {
      for (int i = 0; i < n; i++) {
        if (!var[i]) continue;
        int64_t al = p->items[i].align < 1 ? 1 : p->items[i].align;
        off[i] = (int64_t)(glp_mip_col_val(lp, col[i]) + 0.5) * al;
      }
      for (int i = 0; i < n; i++)
        if (!var[i]) off[i] = c->offsets[i];
      if (mp_verify_offsets(p, off, NULL) == 0 && mp_arena(p, off) <= mp_arena(p, c->offsets)) {
        memcpy(c->offsets, off, sizeof(int64_t) * nz);
        accepted = true;
      }
    }
    int64_t arena = mp_arena(p, c->offsets);
    if (st == GLP_OPT && rc == 0 && accepted) {
      /* with a capacity the model is a feasibility question: any point */
      c->status = C > 0 ? (arena <= lb ? MP_OPTIMAL : MP_FEASIBLE) : MP_OPTIMAL;
      if (C == 0) c->bound = arena;
    } else if (st == GLP_NOFEAS && rc == 0) {
      if (C > 0) {
        c->status = MP_INFEASIBLE;
        c->bound = C + 1;
        snprintf(c->msg, sizeof c->msg, "GLPK proved that no placement fits in %lld bytes",
                 (long long)C);
      } else {
        c->status = MP_FEASIBLE; /* cannot happen: the incumbent is a point */
      }
    } else {
      c->status = rc == GLP_ETMLIM || mp_time_up(c) ? MP_TIMEOUT : MP_FEASIBLE;
      snprintf(c->msg, sizeof c->msg, "GLPK stopped (rc %d, status %d) with %d pair binaries", rc,
               st, npairs);
    }
    glp_delete_prob(lp);
    free(col);
  }
done:
  free(var);
  free(seq);
  free(off);
  free(inc);
  return 0;
}

const mp_solver solver_ilp_place = {
    .name = "ilp-place",
    .summary = "GLPK MIP: integer offsets, big-M pair disjunctions, minimise the arena",
    .decides = MP_DECIDES_OFFSETS,
    .options = MP_OPTIONS(ilpp_options),
    .quick = "max_items=10,time=1",
    .solve = ilp_place_solve,
};
