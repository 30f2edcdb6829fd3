/* remat_lp.c - Checkmate's fast variant: the LP relaxation of remat-ilp's
 * stage MILP (solvers/lib/remat_milp.h, R and S continuous, the rerun rows
 * added while the LP violates them), then S rounded (Checkmate's
 * strategy_approx_lp): deterministic thresholds 0.1 .. 0.9 and `rounds`
 * random roundings (S = 1 with probability S), each completed to a
 * consistent R (rs_complete: "R from S") and decoded; the cheapest plan
 * within the budget is kept.  When no rounding fits, Checkmate solves the LP
 * again under a smaller budget ("0.9 x budget"); here up to `retries`
 * times, the LP budget shrinking by `shrink` each time, never below the
 * floor.  Deterministic for a seed.
 *
 * Status: `feasible` (a rounding proves nothing).  The duration bound is the
 * LP value of the relaxation valid for every plan without copies (RM_BOUND,
 * bound=1), else the duration floor.  No plan within budget: -1, no claim,
 * unless that LP has no solution (then no plan fits: infeasible; below the
 * floor too).  More stages than `contract_above`: all of this on a
 * contraction of the order into `segments` segments (lib/remat_contract.h),
 * the plan expanded and checked, no bound from the contraction; then that
 * LP on the whole graph (within max_nodes), in the share bound_share of a
 * time limit kept back for it.  strict=1: the
 * stage model's reruns capped as lib/remat_strict.h says (no stale rerun),
 * the bound's LP on the model without the caps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_check.h"
#include "lib/remat_contract.h"
#include "lib/remat_info.h"
#include "lib/glpk_util.h"
#include "lib/remat_milp.h"
#include "lib/remat_strict.h"
#include "solver.h"

#define RLP_OPTIONS(X)                                                                    \
  X(max_nodes, INT, 1000, 1, 1e6, "refuse graphs with more stages (non-input nodes) than this") \
  X(max_cols, INT, 3e6, 1000, 1e9, "refuse models with more columns than this (size cap)") \
  X(contract_above, INT, 250, 0, 1e6, "more stages than this: solve on a contraction of the order (0: never)") \
  X(segments, INT, 40, 1, 1e6, "segments of that contraction (twice as many while it has no plan)") \
  X(rounds, INT, 100, 0, 1e6, "random roundings of S per LP")                             \
  X(retries, INT, 3, 0, 50, "LPs solved again under a smaller budget when no rounding fits") \
  X(shrink, REAL, 0.9, 0.3, 0.999, "LP budget factor per retry (Checkmate: 0.9)")         \
  X(bound, INT, 1, 0, 1, "bound the duration with the LP of the relaxation valid for every plan in the order") \
  X(bound_share, REAL, 0.1, 0, 0.9, "after a contraction: share of a time limit kept for that LP on the whole graph") \
  X(strict, INT, 0, 0, 1, "no stale rerun: rerun a node only where the in-place writes before it are those of the file order (fewer plans: bounds and claims come from the model without it)")
enum { RLP_OPTIONS(MP_OPT_ENUM) RLP_N_OPTS };
static const mp_option rlp_options[] = {RLP_OPTIONS(MP_OPT_ENTRY)};

static const double thresholds[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};

typedef struct lp_run {
  mp_ctx *c;
  const rs_model *m;
  int64_t lp_budget; /* the budget the LP is solved under */
  rm_kind kind;
  int lp;            /* RM_LP_* */
  double value;      /* the LP optimum */
  double *s;         /* its S values, (N+2) x nb */
} lp_run;

static void solve_lp(void *arg) {
  lp_run *r = arg;
  rm_milp x;
  mp_error err;
  r->lp = RM_LP_FAIL;
  int built = rm_build(&x, r->m, r->kind, r->lp_budget, false, true, (long)r->c->opt[OPT_max_cols],
                       r->c->deadline, &err);
  if (built == RM_BUILD_TIME) {
    r->lp = RM_LP_TIME;
    return;
  }
  if (built) {
    snprintf(r->c->msg, sizeof r->c->msg, "refused: %.200s", err.msg);
    r->c->status = MP_REFUSED;
    return;
  }
  double *col = mp_xcalloc((size_t)glp_get_num_cols(x.P) + 1, sizeof(double));
  r->lp = x.empty_row_fails ? RM_LP_INFEASIBLE : rm_solve_lp(&x, r->c, col);
  if (r->lp == RM_LP_OPT) {
    r->value = glp_get_obj_val(x.P);
    for (int t = 0; t <= r->m->n_pos + 1; t++)
      for (int b = 0; b < r->m->nb; b++) r->s[(size_t)t * r->m->nb + b] = rm_s_value(&x, col, t, b);
  }
  free(col);
  rm_destroy(&x);
}

/* One LP solve under lp_budget, guarded; RM_LP_*. */
static int lp_solve(lp_run *r, int64_t lp_budget, rm_kind kind) {
  r->lp_budget = lp_budget;
  r->kind = kind;
  if (mp_glp_guarded(solve_lp, r)) r->lp = RM_LP_FAIL;
  return r->lp;
}

/* The LPs and their roundings: the LP under the budget, then (while no
 * rounding fits) up to `retries` more under a budget shrunk by `shrink`,
 * never below the floor.  The best fitting decision in best/best_cost;
 * returns the number of LPs rounded. */
static int round_lps(mp_ctx *c, const rs_model *m, lp_run *r, rs_dec *best, double *best_cost,
                     bool *cut) {
  mp_rng rng;
  mp_rng_seed(&rng, c->seed);
  int64_t lowest = mp_events_floor(c->g), lp_budget = c->budget;
  int n_thr = sizeof thresholds / sizeof thresholds[0], tries = 0;
  for (int k = 0; k <= c->opt[OPT_retries] && !isfinite(*best_cost) && !mp_time_up(c); k++) {
    if (lp_solve(r, lp_budget, RM_STAGE) != RM_LP_OPT) {
      if (r->lp == RM_LP_TIME) *cut = true;
      break;
    }
    rm_frac f = {m->n_pos, m->nb, r->s};
    int fits = rm_round(m, &f, thresholds, n_thr, (int)c->opt[OPT_rounds], &rng, c->budget, c,
                        best, best_cost);
    tries++;
    if (c->verbose)
      fprintf(stderr, "remat-lp: LP at %lld: %.6g; %d roundings fit, best %.6g\n",
              (long long)lp_budget, r->value, fits, *best_cost);
    int64_t next = (int64_t)floor((double)lp_budget * c->opt[OPT_shrink]);
    if (next < lowest) break;
    lp_budget = next;
  }
  if (mp_time_up(c)) *cut = true; /* roundings or retries left out */
  return tries;
}

/* Why no rounding fits, from the last LP's outcome (a refusal has said so
 * already).  The time limit makes it a timeout, never a claim: also when
 * an LP stopped early because the time left looked too short for it (cut;
 * the clock itself may not have run out yet). */
static void no_plan(mp_ctx *c, int lp, int64_t lp_budget, int tries, bool cut) {
  if (c->status == MP_REFUSED) return;
  const char *s = tries == 1 ? "" : "s";
  long long b = (long long)c->budget;
  if (lp == RM_LP_TIME || cut || mp_time_up(c)) {
    c->status = MP_TIMEOUT;
    snprintf(c->msg, sizeof c->msg,
             "the time limit ended the LPs before a rounding fit budget %lld (%d LP%s solved and "
             "rounded)", b, tries, s);
  } else if (lp == RM_LP_INFEASIBLE) {
    snprintf(c->msg, sizeof c->msg,
             "no rounding of %d LP%s fits budget %lld, and the stage LP under budget %lld has no "
             "solution (Checkmate's stage shape, no claim for other plans)", tries, s, b,
             (long long)lp_budget);
  } else if (lp == RM_LP_FAIL) {
    snprintf(c->msg, sizeof c->msg, "GLPK failed on the LP (%d LP%s rounded before, none within "
             "budget %lld)", tries, s, b);
  } else {
    snprintf(c->msg, sizeof c->msg, "no rounding of %d LP%s fits budget %lld", tries, s, b);
  }
}

/* The best rounding decoded into c->events and checked, with the status
 * and the message; 0, or -1 when none fits or the decoding fails. */
static int conclude(mp_ctx *c, const rs_model *m, rs_dec *best, double best_cost, int tries,
                    const lp_run *last, bool cut) {
  if (!isfinite(best_cost)) {
    no_plan(c, last->lp, last->lp_budget, tries, cut);
    return -1;
  }
  if (rs_decode_checked(m, best, c)) return -1;
  c->status = best_cost <= c->duration_bound ? MP_OPTIMAL : cut ? MP_TIMEOUT : MP_FEASIBLE;
  snprintf(c->msg, sizeof c->msg, "best of %d rounded LP%s%s; every plan%s takes at least %.6g",
           tries, tries == 1 ? "" : "s", c->status == MP_TIMEOUT ? " before the time limit" : "",
           c->bandwidth > 0 ? " without copies" : "", c->duration_bound);
  return 0;
}

/* The bound's LP (RM_BOUND) under c->budget into c->duration_bound; on
 * the model without caps when m has them (strict), so that it bounds every
 * plan.  Its RM_LP_* outcome (RM_LP_TIME also when the limit came first). */
static int bound_lp(mp_ctx *c, const rs_model *m, lp_run *r, bool capped) {
  rs_model full;
  if (capped) rs_model_init(&full, c->g, c->start_order);
  r->m = capped ? &full : m;
  int lp = mp_time_up(c) ? RM_LP_TIME : lp_solve(r, c->budget, RM_BOUND);
  if (lp == RM_LP_OPT && rs_bound_up(r->value, rs_cost_unit(r->m)) > c->duration_bound)
    c->duration_bound = rs_bound_up(r->value, rs_cost_unit(r->m));
  r->m = m;
  if (capped) rs_model_destroy(&full);
  return lp;
}

/* The bound's LP has no solution under the budget: as it holds every plan
 * without copies whose first runs follow the order, none fits. */
static int proved_infeasible(mp_ctx *c) {
  mp_events_clear(c->events);
  c->status = MP_INFEASIBLE;
  snprintf(c->msg, sizeof c->msg,
           "no plan without copies whose first runs follow the order fits budget %lld: the LP "
           "relaxation valid for every such plan has no solution", (long long)c->budget);
  return 0;
}

/* The LPs, their roundings and the bound, on c->g; reruns limited by cap
 * (NULL: none). */
static int solve_graph(mp_ctx *c, const int *cap) {
  mp_glp_term(c);
  rs_model m;
  rs_model_init_capped(&m, c->g, c->start_order, cap);
  if (m.n_pos > c->opt[OPT_max_nodes]) {
    snprintf(c->msg, sizeof c->msg, "%d stages exceed max_nodes=%.0f", m.n_pos, c->opt[OPT_max_nodes]);
    c->status = MP_REFUSED;
    rs_model_destroy(&m);
    return -1;
  }
  lp_run r = {.c = c, .m = &m};
  r.s = mp_xcalloc(((size_t)m.n_pos + 2) * (size_t)m.nb + 1, sizeof(double));
  rs_dec best;
  rs_dec_init(&m, &best);
  double best_cost = INFINITY;
  bool cut = false;
  int tries = round_lps(c, &m, &r, &best, &best_cost, &cut);
  lp_run last = r; /* the bound's LP below reuses r */
  int blp = c->bandwidth <= 0 && c->opt[OPT_bound] != 0 ? bound_lp(c, &m, &r, cap != NULL) : RM_LP_FAIL;
  cut = cut || blp == RM_LP_TIME;
  int rc = blp == RM_LP_INFEASIBLE && !isfinite(best_cost)
               ? proved_infeasible(c)
               : conclude(c, &m, &best, best_cost, tries, &last, cut);
  free(r.s);
  rs_dec_destroy(&best);
  rs_model_destroy(&m);
  return rc;
}

/* On a contracted graph (rc_solve): a bound proved there holds for it alone. */
static int solve_contracted(mp_ctx *c, const int *cap) {
  c->opt[OPT_bound] = 0;
  return solve_graph(c, cap);
}

/* After a contraction: the bound's LP on the whole graph (a size cap
 * refuses it quietly).  No solution proves that no
 * plan fits; its value bounds every plan, and the contraction's plan is
 * optimal when it meets it.  rc: the contraction's. */
static int whole_graph_bound(mp_ctx *c, int rc) {
  rs_model m;
  rs_model_init(&m, c->g, c->start_order);
  mp_status was = c->status;
  char msg[sizeof c->msg];
  memcpy(msg, c->msg, sizeof msg);
  lp_run r = {.c = c, .m = &m};
  r.s = mp_xcalloc(((size_t)m.n_pos + 2) * (size_t)m.nb + 1, sizeof(double));
  int lp = bound_lp(c, &m, &r, false);
  free(r.s);
  rs_model_destroy(&m);
  c->status = was; /* a size cap's refusal of the bound is no answer */
  memcpy(c->msg, msg, sizeof msg);
  if (lp == RM_LP_INFEASIBLE && rc != 0) return proved_infeasible(c);
  if (lp == RM_LP_TIME) { /* more time, another answer */
    c->status = MP_TIMEOUT;
    ri_note_first(c, "the time limit ended the whole graph's LP bound");
    return rc;
  }
  if (lp != RM_LP_OPT || rc != 0) return rc;
  if (ri_meets(c, ri_runs_cost(c->g, c->events))) {
    c->status = MP_OPTIMAL;
    ri_note_first(c, "optimal: the whole graph's LP bound meets the plan");
  } else {
    char note[128];
    snprintf(note, sizeof note, "the whole graph's LP: every plan without copies takes at least %.6g",
             c->duration_bound);
    ri_note_first(c, note);
  }
  return rc;
}

/* On a contraction of the order, less a share of a time limit kept for
 * the bound's LP on the whole graph when it is within max_nodes (the
 * contraction's own claims hold for it alone). */
static int solve_by_contraction(mp_ctx *c, bool strict) {
  bool whole = c->bandwidth <= 0 && c->opt[OPT_bound] != 0 && rc_stages(c->g) <= c->opt[OPT_max_nodes];
  double deadline = c->deadline;
  if (whole && deadline > 0) c->deadline = mp_now() + (1 - c->opt[OPT_bound_share]) * (deadline - mp_now());
  int rc = rc_solve(c, (int)c->opt[OPT_segments], strict, solve_contracted);
  c->deadline = deadline;
  return whole && c->status != MP_OPTIMAL ? whole_graph_bound(c, rc) : rc;
}

/* On c->g, or on a contraction of the order; with strict, the caps of
 * remat_strict.h. */
static int solve_strict_or_not(mp_ctx *c) {
  bool strict = c->opt[OPT_strict] != 0;
  if (rc_wanted(c->g, c->opt[OPT_contract_above])) return solve_by_contraction(c, strict);
  if (!strict) return solve_graph(c, NULL);
  int *cap = mp_xmalloc(sizeof(int) * ((size_t)c->g->n + 1));
  rs_strict_caps(c->g, c->start_order, cap);
  int rc = solve_graph(c, cap);
  free(cap);
  return rc;
}

static int remat_lp_solve(mp_ctx *c) {
  if (!c->g) {
    snprintf(c->msg, sizeof c->msg, "remat-lp plans graphs, not fixed-lifetime problems");
    return -1;
  }
  if (mp_remat_settled(c)) return 0;
  return solve_strict_or_not(c);
}

const mp_solver solver_remat_lp = {
    .name = "remat-lp",
    .summary = "Checkmate's LP relaxation of remat-ilp's MILP with S rounded (thresholds, random), "
               "the best plan within budget",
    .decides = MP_DECIDES_EVENTS,
    .options = MP_OPTIONS(rlp_options),
    .quick = "rounds=10",
    .solve = remat_lp_solve,
};
