/* remat_ilp.c - Checkmate's MILP (Jain et al., MLSys'20) on GLPK, in
 * memplan's model: solvers/lib/remat_milp.h over the stages of the
 * first-run order handed in (remat_stage.h: multi-output nodes, views,
 * in-place storage, workspaces, inputs and outputs, a tail stage for graph
 * outputs made again; memory counted as the evaluator counts it).
 *
 * 1. Below the floor: infeasible (mp_events_floor, a proof).  Keeping every
 *    tensor fits: the keep-all plan, optimal (its duration is the floor).
 * 2. The stage MILP with lazy rerun rows: a greedy eviction plan
 *    (rs_greedy) or, in a chain, the plan before when it fits the stage
 *    shape (take_start), the LP relaxation rounded as Checkmate rounds it, a
 *    depth-first dive when neither gave a plan, then best-bound
 *    branch-and-cut from the best plan, rounding node LPs every node_heur
 *    nodes.  The plan is decoded and checked with our own replay
 *    (lib/remat_check.h) before it is returned.
 * 3. The stage shape (each node at most once between two first runs, in
 *    increasing position) is narrower than DESIGN 6's plans, so its optimum
 *    is only an optimum within that shape.  `optimal` needs the duration
 *    floor, or the relaxation RM_BOUND that holds for every plan without
 *    copies (proof=1) solved to a bound that meets the plan; otherwise
 *    `feasible` with the note "optimal within Checkmate's stage shape".
 *    With a host link (bandwidth > 0) the models have no copies: no claim
 *    beyond the floor.
 * 4. `infeasible` only from the floor or when RM_BOUND is infeasible
 *    (bandwidth 0); an infeasible stage MILP alone is "no plan within the
 *    stage shape".
 * 5. `timeout` (with the plan, if any) whenever the time limit stopped a
 *    phase whose outcome the answer depends on: the stage MILP, the proof
 *    (also after the stage MILP proved its optimum or its infeasibility:
 *    more time could have made it `optimal` or `infeasible`) or the LP
 *    bound.  GLPK is also stopped from its callbacks once the deadline has
 *    passed (its own tm_lim keeps a reserve and usually stops it first).
 * Size caps: max_nodes stages and max_cols columns (refused, not a claim).
 * More stages than `contract_above`: all of this on a contraction of the order
 * into `segments` segments (lib/remat_contract.h), the plan expanded and checked; its
 * claims are about the contraction and are dropped.  Then, when RM_BOUND on the
 * whole graph is within the caps (and bandwidth 0, proof=1), with the share
 * bound_share of a time limit kept for it: no plan, the proof on the whole
 * graph (`infeasible` when RM_BOUND is, `timeout` when the limit cut it); a
 * plan not at the floor, the LP bound on the whole graph (`optimal` when it
 * meets the plan, `timeout` when the limit cut it).
 * strict=1: no rerun reads a storage written in place since the node's
 * place in the file order, nor writes again (lib/remat_strict.h: caps on
 * the stages of reruns, on the contraction too); the proof and the bounds
 * use the model without the caps, so its claims hold for every plan.
 * --write-lp FILE writes Checkmate's explicit formulation (CPLEX LP), also
 * when step 1 answers, unless a size cap refuses (or would have). */
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

#define RILP_OPTIONS(X)                                                                     \
  X(max_nodes, INT, 400, 1, 1e6, "refuse graphs with more stages (non-input nodes) than this") \
  X(max_cols, INT, 3e6, 1000, 1e9, "refuse models with more columns than this (size cap)")  \
  X(contract_above, INT, 250, 0, 1e6, "more stages than this: solve on a contraction of the order (0: never)") \
  X(segments, INT, 50, 1, 1e6, "segments of that contraction (twice as many while it has no plan)") \
  X(greedy, INT, 1, 0, 1, "start from a greedy eviction plan of the stage shape (rs_greedy)") \
  X(rounds, INT, 40, 0, 1e6, "random roundings of the LP relaxation for the first incumbent") \
  X(node_heur, INT, 10, 0, 1e6, "round the node LP every this many B&B nodes (0: never)")   \
  X(proof, INT, 1, 0, 1, "solve the relaxation valid for every plan in the order to prove optimality")   \
  X(bound_share, REAL, 0.1, 0, 0.9, "share of a time limit kept for the LP bound valid for every plan in the order") \
  X(explicit, INT, 0, 0, 1, "Checkmate's explicit FREE/U rows instead of lazy rerun rows")  \
  X(cuts, INT, 0, 0, 1, "GLPK cutting planes (Gomory, MIR, cover, clique)")                 \
  X(branch, INT, 3, 0, 4, "GLPK branching: 0 first, 1 last, 2 most fractional, 3 Driebeck-Tomlin, 4 pseudocost") \
  X(backtrack, INT, 2, 0, 3, "GLPK node selection: 0 depth, 1 breadth, 2 best local, 3 best projection") \
  X(strict, INT, 0, 0, 1, "no stale rerun: rerun a node only where the in-place writes before it are those of the file order (fewer plans: bounds and claims come from the model without it)")
enum { RILP_OPTIONS(MP_OPT_ENUM) RILP_N_OPTS };
static const mp_option rilp_options[] = {RILP_OPTIONS(MP_OPT_ENTRY)};

/* What the search keeps between phases. */
typedef struct search {
  mp_ctx *c;
  const rs_model *m;
  const rs_model *full; /* m without strict's caps: RM_BOUND's model, so that its
                         * bounds and proofs hold for every plan (m itself when
                         * not strict) */
  rm_milp *x;
  rs_dec best;        /* the best decisions found, consistent, within budget */
  double best_cost;   /* their run cost (INFINITY: none) */
  double unit;        /* every cost is a multiple of it (0: costs not integral) */
  double bound;       /* best bound of the stage MILP seen */
  bool proved;        /* the stage MILP's optimum is proved */
  bool infeasible;    /* the stage MILP has no solution */
  bool cut;           /* the time limit stopped a phase (the stage MILP, the proof or
                       * the bound): another run could answer otherwise */
  double *col;        /* scratch, one per column (1-based) */
  mp_rng rng;
  int calls;
} search;

static const double thresholds[] = {0.5, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 0.999};

/* Round an LP solution (s->col); true when the best plan improved. */
static bool round_lp(search *s, int rounds) {
  const rs_model *m = s->m;
  size_t ns = ((size_t)m->n_pos + 2) * (size_t)m->nb;
  rm_frac f = {m->n_pos, m->nb, mp_xmalloc(sizeof(double) * (ns + 1))};
  for (int t = 0; t <= m->n_pos + 1; t++)
    for (int b = 0; b < m->nb; b++) f.s[(size_t)t * m->nb + b] = rm_s_value(s->x, s->col, t, b);
  double before = s->best_cost;
  int n_thr = sizeof thresholds / sizeof thresholds[0];
  rm_round(m, &f, thresholds, n_thr, rounds, &s->rng, s->c->budget, s->c, &s->best, &s->best_cost);
  free(f.s);
  return s->best_cost < before;
}

/* GLPK's incumbent, decoded, kept when it is the best. */
static void take_mip(search *s) {
  glp_prob *P = s->x->P;
  int n = glp_get_num_cols(P);
  for (int j = 1; j <= n; j++) s->col[j] = glp_mip_col_val(P, j);
  rs_dec d;
  rs_dec_init(s->m, &d);
  if (rm_decisions(s->x, s->col, &d) == 0) {
    int64_t peak = rm_peak(s->m, &d, s->c->start_order);
    double cost = rs_cost(s->m, &d);
    if (peak >= 0 && peak <= s->c->budget && cost < s->best_cost) {
      s->best_cost = cost;
      rs_dec_copy(&s->best, &d);
    }
  }
  rs_dec_destroy(&d);
}

/* Past c's deadline: GLPK is told to stop (its tm_lim keeps a reserve, so
 * this is the rare run that overshoots it) and the phase counts as cut. */
static bool stop_at_deadline(glp_tree *T, const mp_ctx *c, bool *cut) {
  if (!mp_time_up(c)) return false;
  *cut = true;
  glp_ios_terminate(T);
  return true;
}

static void callback(glp_tree *T, void *info) {
  search *s = info;
  int p = glp_ios_best_node(T);
  if (p && glp_ios_node_bound(T, p) > s->bound) s->bound = glp_ios_node_bound(T, p);
  rm_rowgen(T, s->x, s->col);
  if (stop_at_deadline(T, s->c, &s->cut) || glp_ios_reason(T) != GLP_IHEUR) return;
  int every = (int)s->c->opt[OPT_node_heur];
  bool fresh = false;
  if (s->calls++ == 0) {
    fresh = isfinite(s->best_cost);
  } else if (every > 0 && s->calls % every == 0) {
    int n = glp_get_num_cols(s->x->P);
    for (int j = 1; j <= n; j++) s->col[j] = glp_get_col_prim(s->x->P, j);
    fresh = round_lp(s, 2);
  }
  if (fresh) {
    rm_point(s->x, &s->best, s->col);
    glp_ios_heur_sol(T, s->col);
  }
}

static void set_tree_options(const mp_ctx *c, glp_iocp *ip) {
  static const int br[] = {GLP_BR_FFV, GLP_BR_LFV, GLP_BR_MFV, GLP_BR_DTH, GLP_BR_PCH};
  static const int bt[] = {GLP_BT_DFS, GLP_BT_BFS, GLP_BT_BLB, GLP_BT_BPH};
  ip->br_tech = br[(int)c->opt[OPT_branch]];
  ip->bt_tech = bt[(int)c->opt[OPT_backtrack]];
}

/* The LP relaxation with its rerun rows, rounding, then branch-and-cut. */
/* Depth-first until GLPK's first integer solution (which passed the lazy
 * rows), when rounding gave no incumbent: a plan early, before the
 * best-bound search. */
static void dive_callback(glp_tree *T, void *info) {
  search *s = info;
  rm_rowgen(T, s->x, s->col);
  if (!stop_at_deadline(T, s->c, &s->cut) && glp_ios_reason(T) == GLP_IBINGO) glp_ios_terminate(T);
}

static void dive(search *s) {
  mp_ctx *c = s->c;
  glp_iocp ip;
  glp_init_iocp(&ip);
  ip.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
  ip.presolve = GLP_OFF;
  ip.bt_tech = GLP_BT_DFS;
  ip.cb_func = dive_callback;
  ip.cb_info = s;
  ip.tm_lim = mp_glp_tm_lim_reserve(c, 0, s->x->build_s);
  int irc = glp_intopt(s->x->P, &ip);
  int st = glp_mip_status(s->x->P);
  if (st == GLP_OPT || st == GLP_FEAS) take_mip(s);
  if (irc == GLP_ETMLIM) s->cut = true;
  if (irc == 0 && st == GLP_NOFEAS) s->infeasible = s->proved = true; /* the dive searched it all */
}

/* Branch-and-cut from the incumbent, best bound first. */
static void branch_and_cut(search *s) {
  mp_ctx *c = s->c;
  glp_prob *P = s->x->P;
  glp_iocp ip;
  glp_init_iocp(&ip);
  ip.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
  ip.presolve = GLP_OFF;
  set_tree_options(c, &ip);
  if (c->opt[OPT_cuts] != 0) ip.gmi_cuts = ip.mir_cuts = ip.cov_cuts = ip.clq_cuts = GLP_ON;
  if (s->unit > 0 && isfinite(s->best_cost))
    ip.mip_gap = 0.999 * s->unit / (s->best_cost > s->unit ? s->best_cost : s->unit);
  ip.cb_func = callback;
  ip.cb_info = s;
  ip.tm_lim = mp_glp_tm_lim_reserve(c, 0, s->x->build_s);
  s->calls = 0;
  int irc = glp_intopt(P, &ip);
  int st = glp_mip_status(P);
  if (st == GLP_OPT || st == GLP_FEAS) take_mip(s);
  if (irc == GLP_ETMLIM) s->cut = true;
  if ((irc == 0 || irc == GLP_EMIPGAP) && (st == GLP_OPT || st == GLP_NOFEAS)) s->proved = true;
  if (irc == 0 && st == GLP_NOFEAS && !isfinite(s->best_cost)) s->infeasible = true;
}

/* The stage LP with its rerun rows; false when it has no optimum (the
 * time limit, no solution: the stage MILP has none either, as the rows
 * hold for every plan of the stage shape, or GLPK failed). */
static bool stage_lp(search *s) {
  int lp = rm_solve_lp(s->x, s->c, s->col);
  if (lp == RM_LP_TIME) s->cut = true;
  if (lp == RM_LP_INFEASIBLE) s->infeasible = s->proved = true;
  return lp == RM_LP_OPT;
}

/* The LP relaxation with its rerun rows, rounding, a dive when rounding
 * found nothing, then branch-and-cut. */
static void run_stage(void *arg) {
  search *s = arg;
  mp_ctx *c = s->c;
  if (!stage_lp(s)) return;
  s->bound = glp_get_obj_val(s->x->P);
  round_lp(s, (int)c->opt[OPT_rounds]);
  if (!isfinite(s->best_cost) && !rm_no_time(c, s->x, 1)) {
    dive(s);
    if (s->infeasible || s->cut || !stage_lp(s)) return; /* the root again */
  }
  if (rm_no_time(c, s->x, 1)) {
    s->cut = true;
    return;
  }
  branch_and_cut(s);
}

/* ---- the proof: RM_BOUND holds for every plan without copies ---- */

typedef struct proof {
  search *s;
  rm_milp x;
  double target; /* the plan's cost: stop once the bound meets it */
  double bound;  /* best bound proved (every plan) */
  bool infeasible;
  bool cut;      /* the time limit stopped it */
  double *col;   /* scratch */
  double *point; /* the plan as a point of the model, or NULL */
  bool given;
} proof;

static bool meets(const search *s, double bound, double cost) {
  double slack = s->unit > 0 ? 0.999 * s->unit : 1e-9 * fmax(1.0, fabs(cost));
  return bound >= cost - slack;
}

static void proof_callback(glp_tree *T, void *info) {
  proof *pf = info;
  int p = glp_ios_best_node(T);
  if (p) {
    double b = glp_ios_node_bound(T, p);
    if (b > pf->bound) pf->bound = b;
    if (meets(pf->s, pf->bound, pf->target)) {
      glp_ios_terminate(T);
      return;
    }
  }
  rm_rowgen(T, &pf->x, pf->col);
  if (stop_at_deadline(T, pf->s->c, &pf->cut)) return;
  if (glp_ios_reason(T) == GLP_IHEUR && !pf->given && pf->point) {
    pf->given = true;
    glp_ios_heur_sol(T, pf->point);
  }
}

static void run_proof(void *arg) {
  proof *pf = arg;
  mp_ctx *c = pf->s->c;
  glp_prob *P = pf->x.P;
  int lp = rm_solve_lp(&pf->x, c, pf->col);
  if (lp == RM_LP_INFEASIBLE) pf->infeasible = true;
  if (lp == RM_LP_TIME) pf->cut = true;
  if (lp != RM_LP_OPT) return;
  pf->bound = glp_get_obj_val(P);
  if (meets(pf->s, pf->bound, pf->target)) return;
  if (rm_no_time(c, &pf->x, 1)) {
    pf->cut = true;
    return;
  }
  glp_iocp ip;
  glp_init_iocp(&ip);
  ip.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
  ip.presolve = GLP_OFF;
  set_tree_options(c, &ip);
  ip.cb_func = proof_callback;
  ip.cb_info = pf;
  ip.tm_lim = mp_glp_tm_lim_reserve(c, 0, pf->x.build_s);
  int irc = glp_intopt(P, &ip);
  int st = glp_mip_status(P);
  if ((irc == 0 || irc == GLP_EMIPGAP) && st == GLP_OPT && glp_mip_obj_val(P) > pf->bound)
    pf->bound = glp_mip_obj_val(P); /* the search ended: its optimum bounds every plan */
  if (irc == 0 && st == GLP_NOFEAS) pf->infeasible = true;
  if (irc == GLP_ETMLIM) pf->cut = true;
}

enum { PROOF_NONE, PROOF_INFEASIBLE, PROOF_CUT };

/* Solve RM_BOUND until its bound meets `target` (INFINITY: decide
 * feasibility) or the time runs out.  Raises duration_bound.  Returns
 * PROOF_INFEASIBLE when it proves that no plan without copies fits,
 * PROOF_CUT when the time limit stopped it first, else PROOF_NONE (it
 * ended, or cannot be built: a size cap, not the clock). */
static int prove(search *s, double target, const rs_dec *plan) {
  mp_ctx *c = s->c;
  mp_error err;
  proof pf = {.s = s, .target = target, .bound = -INFINITY};
  bool lazy = c->opt[OPT_explicit] == 0;
  int built = rm_build(&pf.x, s->full, RM_BOUND, c->budget, true, lazy, (long)c->opt[OPT_max_cols],
                       c->deadline, &err);
  if (built) return built == RM_BUILD_TIME ? PROOF_CUT : PROOF_NONE;
  if (pf.x.empty_row_fails) {
    rm_destroy(&pf.x);
    return PROOF_INFEASIBLE;
  }
  int ncols = glp_get_num_cols(pf.x.P);
  pf.col = mp_xcalloc((size_t)ncols + 1, sizeof(double));
  if (plan) {
    pf.point = mp_xcalloc((size_t)ncols + 1, sizeof(double));
    rm_point(&pf.x, plan, pf.point);
  }
  if (mp_glp_guarded(run_proof, &pf)) {
    pf.x.P = NULL; /* GLPK failed: its objects are gone, no bound */
    pf.bound = -INFINITY;
    pf.infeasible = pf.cut = false;
  }
  double b = rs_bound_up(pf.bound, s->unit);
  if (isfinite(target) && b > target) b = target;
  if (b > c->duration_bound) c->duration_bound = b;
  free(pf.col);
  free(pf.point);
  rm_destroy(&pf.x);
  return pf.infeasible ? PROOF_INFEASIBLE : pf.cut ? PROOF_CUT : PROOF_NONE;
}

/* The LP of RM_BOUND alone: a duration bound valid for every plan without
 * copies, when the stage MILP did not end (its own bound holds for the
 * stage shape only). */
typedef struct lp_bound {
  search *s;
  double value;
  bool cut; /* the time limit stopped it */
} lp_bound;

static void run_lp_bound(void *arg) {
  lp_bound *lb = arg;
  mp_ctx *c = lb->s->c;
  rm_milp x;
  mp_error err;
  int built = rm_build(&x, lb->s->full, RM_BOUND, c->budget, false, true, (long)c->opt[OPT_max_cols],
                       c->deadline, &err);
  if (built) {
    lb->cut = built == RM_BUILD_TIME;
    return;
  }
  double *col = mp_xcalloc((size_t)glp_get_num_cols(x.P) + 1, sizeof(double));
  int lp = x.empty_row_fails ? RM_LP_INFEASIBLE : rm_solve_lp(&x, c, col);
  if (lp == RM_LP_OPT) lb->value = glp_get_obj_val(x.P);
  lb->cut = lp == RM_LP_TIME;
  free(col);
  rm_destroy(&x);
}

static void bound_by_lp(search *s) {
  lp_bound lb = {s, -INFINITY, false};
  if (mp_time_up(s->c)) { /* the bound is the clock's to give */
    s->cut = true;
    return;
  }
  if (mp_glp_guarded(run_lp_bound, &lb)) return;
  if (lb.cut) s->cut = true;
  double b = rs_bound_up(lb.value, s->unit);
  if (isfinite(s->best_cost) && b > s->best_cost) b = s->best_cost;
  if (b > s->c->duration_bound) s->c->duration_bound = b;
}

/* ---- the solver ---- */

/* The answer: a plan and what it is proved to be, or why there is none. */
static int answer(search *s, bool infeasible) {
  mp_ctx *c = s->c;
  if (infeasible) {
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg,
             "no plan without copies whose first runs follow the order fits: the relaxation valid for "
             "every such plan is infeasible");
    return 0;
  }
  const char *shape = s->m != s->full ? "the strict stage shape" : "Checkmate's stage shape";
  if (!isfinite(s->best_cost)) {
    snprintf(c->msg, sizeof c->msg, "no plan within budget %lld %s%s%s", (long long)c->budget,
             !s->infeasible ? (s->cut ? "found before the time limit" : "found") : "in ",
             s->infeasible ? shape : "",
             !s->infeasible ? ""
             : s->cut ? " (its MILP is infeasible); the time limit ended the proof for every plan"
                      : " (its MILP is infeasible)");
    if (s->cut) c->status = MP_TIMEOUT; /* the limit ended it: more time, another answer */
    return -1;
  }
  if (rs_decode_checked(s->m, &s->best, c)) return -1;
  if (meets(s, c->duration_bound, s->best_cost)) {
    c->status = MP_OPTIMAL;
    c->duration_bound = s->best_cost;
  } else {
    c->status = s->cut ? MP_TIMEOUT : MP_FEASIBLE;
    snprintf(c->msg, sizeof c->msg, "%s%s%s%s; every plan takes at least %.6g",
             s->proved ? "optimal within " : "stage MILP not solved to the end", s->proved ? shape : "",
             s->proved && s->cut ? ", the time limit cut the bound for every plan" : "",
             c->bandwidth > 0 ? " (copies not modelled)" : "", c->duration_bound);
  }
  return 0;
}

/* --write-lp: Checkmate's explicit formulation, complete without a callback. */
static int write_model(mp_ctx *c, const rs_model *m) {
  rm_milp x;
  mp_error err;
  int rc = rm_build(&x, m, RM_STAGE, c->budget, true, false, 0, 0, &err);
  if (rc == 0 && mp_glp_write_lp(x.P, c->write_lp) != 0) rc = -1;
  if (rc) snprintf(c->msg, sizeof c->msg, "cannot write the LP model to %s", c->write_lp);
  if (rc == 0 || x.P) rm_destroy(&x);
  return rc;
}

/* The plan handed in by a chain (`dtr,remat-ilp`: c->start_events) as an
 * incumbent, when it has no copies, its first runs follow the order, and
 * its projection on the stage shape (rs_project) decodes within the
 * budget and costs less than the incumbent so far. */
static void take_start(search *s) {
  mp_ctx *c = s->c;
  if (!c->start_events || c->start_events->n == 0) return;
  rs_dec d;
  rs_dec_init(s->m, &d);
  int64_t peak;
  if (rs_project(s->m, c->start_events, &d) == 0 &&
      (peak = rm_peak(s->m, &d, c->start_order)) >= 0 && peak <= c->budget) {
    double cost = rs_cost(s->m, &d);
    if (cost < s->best_cost) {
      rs_dec_copy(&s->best, &d);
      s->best_cost = cost;
    }
  }
  if (c->verbose) fprintf(stderr, "remat-ilp: after the chain's plan, cost %.6g\n", s->best_cost);
  rs_dec_destroy(&d);
}

/* Without a host link (the models have no copies) and with the proof on:
 * RM_BOUND may make claims beyond the floor. */
static bool claims_beyond_floor(const mp_ctx *c) {
  return c->bandwidth <= 0 && c->opt[OPT_proof] != 0;
}

/* Keep a share of a time limit (bound_share) for a bound valid for every
 * plan: c's deadline moved earlier; returns the one to restore. */
static double keep_bound_share(mp_ctx *c) {
  double deadline = c->deadline;
  if (deadline > 0) c->deadline = mp_now() + (1 - c->opt[OPT_bound_share]) * (deadline - mp_now());
  return deadline;
}

/* Greedy, the stage MILP, the proof.  Returns true when RM_BOUND proved
 * that no plan without copies fits. */
static bool phases(search *s, double t0) {
  mp_ctx *c = s->c;
  const rs_model *m = s->m;
  if (c->opt[OPT_greedy] != 0 && rs_greedy(m, c->budget, c, &s->best) == 0 &&
      rm_peak(m, &s->best, c->start_order) >= 0)
    s->best_cost = rs_cost(m, &s->best);
  if (c->verbose) fprintf(stderr, "remat-ilp: greedy %.2f s, cost %.6g\n", mp_now() - t0, s->best_cost);
  take_start(s);
  bool exact = claims_beyond_floor(c);
  double deadline = exact ? keep_bound_share(c) : c->deadline;
  if (s->x->empty_row_fails)
    s->infeasible = s->proved = true;
  else if (mp_glp_guarded(run_stage, s))
    s->x->P = NULL; /* GLPK failed: the heuristic plan, if any, stands */
  c->deadline = deadline;
  if (c->verbose)
    fprintf(stderr, "remat-ilp: stage MILP %.2f s, %s, cost %.6g, bound %.6g, %ld lazy rows\n",
            mp_now() - t0, s->proved ? "proved" : "not proved", s->best_cost, s->bound, s->x->cuts);
  int proof = PROOF_NONE;
  if (exact && isfinite(s->best_cost) && s->proved && !meets(s, c->duration_bound, s->best_cost))
    proof = prove(s, s->best_cost, &s->best);
  else if (exact && !isfinite(s->best_cost) && s->infeasible)
    proof = prove(s, INFINITY, NULL);
  else if (exact && !s->proved)
    bound_by_lp(s);
  if (proof == PROOF_CUT) s->cut = true;
  if (c->verbose)
    fprintf(stderr, "remat-ilp: total %.2f s, duration bound %.6g\n", mp_now() - t0, c->duration_bound);
  return proof == PROOF_INFEASIBLE;
}

/* The time limit ended the stage MILP's build: the greedy plan, if any
 * (rs_greedy stops at the deadline itself), as a timeout. */
static int greedy_only(mp_ctx *c, const rs_model *m, const rs_model *full) {
  search s = {.c = c, .m = m, .full = full, .best_cost = INFINITY, .unit = rs_cost_unit(m), .bound = -INFINITY,
              .cut = true};
  rs_dec_init(m, &s.best);
  if (c->opt[OPT_greedy] != 0 && rs_greedy(m, c->budget, c, &s.best) == 0 &&
      rm_peak(m, &s.best, c->start_order) >= 0)
    s.best_cost = rs_cost(m, &s.best);
  take_start(&s);
  int rc = answer(&s, false);
  rs_dec_destroy(&s.best);
  return rc;
}

/* The stage MILP and the proof, on a model within the caps. */
static int solve_stages(mp_ctx *c, const rs_model *m, const rs_model *full, double t0) {
  rm_milp x;
  mp_error err;
  bool lazy = c->opt[OPT_explicit] == 0;
  int built = rm_build(&x, m, RM_STAGE, c->budget, true, lazy, (long)c->opt[OPT_max_cols],
                       c->deadline, &err);
  if (built == RM_BUILD_TIME) return greedy_only(c, m, full);
  if (built) {
    snprintf(c->msg, sizeof c->msg, "refused: %.200s", err.msg);
    c->status = MP_REFUSED;
    return -1;
  }
  search s = {.c = c, .m = m, .full = full, .x = &x, .best_cost = INFINITY, .unit = rs_cost_unit(m), .bound = -INFINITY};
  rs_dec_init(m, &s.best);
  s.col = mp_xcalloc((size_t)glp_get_num_cols(x.P) + 1, sizeof(double));
  mp_rng_seed(&s.rng, c->seed);
  int rc = answer(&s, phases(&s, t0));
  free(s.col);
  rs_dec_destroy(&s.best);
  rm_destroy(&x);
  return rc;
}

/* The size caps, checked before any model is built (a refusal writes no
 * model): max_nodes stages, max_cols columns of the model of that kind.
 * 0, or -1 with the reason in why. */
static int over_cap(const mp_ctx *c, const rs_model *m, rm_kind kind, char *why, size_t len) {
  mp_error err;
  if (m->n_pos > c->opt[OPT_max_nodes]) {
    snprintf(why, len, "%d stages exceed max_nodes=%.0f (the MILP has ~N^2 binaries)", m->n_pos,
             c->opt[OPT_max_nodes]);
    return -1;
  }
  if (rm_size_cap(m, kind, c->opt[OPT_explicit] == 0, (long)c->opt[OPT_max_cols], &err)) {
    snprintf(why, len, "refused: %.200s", err.msg);
    return -1;
  }
  return 0;
}

/* Build the stage model of c's order, its reruns limited by cap (NULL:
 * none), and solve it (and, with --write-lp, write it first); a size cap
 * refuses, unless the answer was settled. */
static int solve_model(mp_ctx *c, bool settled, const int *cap) {
  double t0 = mp_now();
  rs_model m, full;
  rs_model_init_capped(&m, c->g, c->start_order, cap);
  if (cap) rs_model_init(&full, c->g, c->start_order);
  char why[sizeof c->msg];
  int rc = over_cap(c, &m, RM_STAGE, why, sizeof why);
  if (rc == 0) {
    mp_glp_term(c);
    if (c->write_lp) rc = write_model(c, &m);
    if (rc == 0 && !settled) rc = solve_stages(c, &m, cap ? &full : &m, t0);
  } else if (settled) {
    rc = 0;
  } else {
    snprintf(c->msg, sizeof c->msg, "%s", why);
    c->status = MP_REFUSED;
  }
  rs_model_destroy(&m);
  if (cap) rs_model_destroy(&full);
  return rc;
}

/* On a contracted graph (rc_solve): a bound proved there holds for it alone. */
static int solve_contracted(mp_ctx *c, const int *cap) {
  c->opt[OPT_proof] = 0;
  return solve_model(c, false, cap);
}

/* The contraction gave no plan: RM_BOUND on the whole graph decides
 * whether any plan without copies fits (prove).  rc: the contraction's. */
static int whole_without_plan(search *s, int rc) {
  mp_ctx *c = s->c;
  int proof = prove(s, INFINITY, NULL);
  if (proof == PROOF_INFEASIBLE) return answer(s, true);
  if (proof == PROOF_CUT) { /* more time could have proved it */
    c->status = MP_TIMEOUT;
    ri_note_first(c, "the time limit ended the proof on the whole graph");
  }
  return rc;
}

/* The contraction's plan (c->events) is not proved optimal: the LP of
 * RM_BOUND on the whole graph bounds every plan without copies
 * (bound_by_lp); `optimal` when it meets the plan. */
static void whole_with_plan(search *s) {
  mp_ctx *c = s->c;
  double before = c->duration_bound;
  s->best_cost = ri_runs_cost(c->g, c->events);
  bound_by_lp(s);
  char note[128];
  snprintf(note, sizeof note, "the whole graph's relaxation: every plan without copies takes at least %.6g",
           c->duration_bound);
  if (meets(s, c->duration_bound, s->best_cost)) {
    c->status = MP_OPTIMAL;
    c->duration_bound = s->best_cost;
    ri_note_first(c, "optimal: the whole graph's relaxation meets the plan");
    return;
  }
  if (s->cut) c->status = MP_TIMEOUT; /* the limit cut the bound: more time, another answer */
  if (c->duration_bound > before) ri_note_first(c, note);
}

/* On a contraction of the order (rc_solve), less a share of a time limit
 * kept for RM_BOUND on the whole graph when it is within the caps: only
 * the whole graph's relaxation may claim beyond the floor. */
static int solve_by_contraction(mp_ctx *c) {
  rs_model m;
  rs_model_init(&m, c->g, c->start_order);
  char why[sizeof c->msg];
  bool whole = claims_beyond_floor(c) && over_cap(c, &m, RM_BOUND, why, sizeof why) == 0;
  double deadline = whole ? keep_bound_share(c) : c->deadline;
  int rc = rc_solve(c, (int)c->opt[OPT_segments], c->opt[OPT_strict] != 0, solve_contracted);
  c->deadline = deadline;
  search s = {.c = c, .m = &m, .full = &m, .best_cost = INFINITY, .unit = rs_cost_unit(&m), .bound = -INFINITY};
  if (whole && rc != 0) rc = whole_without_plan(&s, rc);
  else if (whole && c->status != MP_OPTIMAL) whole_with_plan(&s);
  rs_model_destroy(&m);
  return rc;
}

/* Settled at once (mp_remat_settled), the answer stands; with --write-lp
 * the model is still written, unless a size cap would have refused it. */
static int remat_ilp_solve(mp_ctx *c) {
  mp_events_clear(c->events);
  if (!c->g) {
    snprintf(c->msg, sizeof c->msg, "remat-ilp plans graphs, not fixed-lifetime problems");
    return -1;
  }
  bool settled = mp_remat_settled(c);
  if (settled && !c->write_lp) return 0;
  int rc;
  if (!c->write_lp && rc_wanted(c->g, c->opt[OPT_contract_above])) {
    rc = solve_by_contraction(c);
  } else if (c->opt[OPT_strict] != 0) {
    int *cap = mp_xmalloc(sizeof(int) * ((size_t)c->g->n + 1));
    rs_strict_caps(c->g, c->start_order, cap);
    rc = solve_model(c, settled, cap);
    free(cap);
  } else {
    rc = solve_model(c, settled, NULL);
  }
  return rc;
}

const mp_solver solver_remat_ilp = {
    .name = "remat-ilp",
    .summary = "Checkmate's MILP (R, S, FREE, U) on GLPK over the order's stages; optimal when a "
               "relaxation valid for every plan whose first runs follow the order meets it",
    .decides = MP_DECIDES_EVENTS,
    .roles = MP_ROLE_WRITES_LP,
    .options = MP_OPTIONS(rilp_options),
    .quick = "rounds=4",
    .solve = remat_ilp_solve,
};
