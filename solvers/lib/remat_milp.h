/* remat_milp.h - Checkmate's MILP over the stage shape of remat_stage.h, in
 * memplan's model, on GLPK; and a relaxation of it that holds for every
 * plan.  remat-ilp solves the first as a MILP (and the second for its
 * proof), remat-lp the first's LP relaxation, then rounds S.
 *
 * Decisions (N stages, t = 0..N-1):
 *   R[t,k] in {0,1} (LP: [0,1])  position k runs in stage t; R[t,t] = 1;
 *   S[t,b] in [0,1]               b resident when stage t starts.
 * Rows of both models:
 *   reads      R[t,k] <= S[t,b] + R[t,owner(b)]       b read by k
 *   keeping    S[t+1,b] <= S[t,b] + R[t,owner(b)]
 *   last run   sum_{b not read or made by t} size(b) S[t+1,b] + need(t) <= B
 * (need(k): what k reads, makes and its workspace).  The last run of stage
 * t is the first run of t: then everything kept into t+1 is resident with
 * what t reads and makes, and nothing else (the rest was freed after its
 * last use); so the row is exact.
 *
 * RM_STAGE, the plans of the stage shape, adds
 *   no double  S[t,b] + R[t,owner(b)] <= 1   (a run needs its outputs absent)
 * and the memory at the other runs of a stage.  At the run of k < t in stage
 * t, an untouched buffer b is resident exactly when it is present (kept
 * into the stage, S[t,b], or made earlier in it, R[t,o] with o < k: at most
 * one of the two) and still needed (a later user u <= t runs, or it is kept
 * into t+1).  So for every choice N_b among R[t,u] (k < u <= t) and
 * S[t+1,b], term_b = S[t,b] + R[t,o] + N_b - 1 is at most b's residency,
 * and
 *   rerun      need(k) R[t,k] + sum_{b in C} size(b) term_b <= B
 * holds for every subset C of untouched buffers (with R[t,k] = 0 the terms
 * count bytes resident between two samples, below the sample before them or,
 * before the first run, below the first).  At an integral point the best
 * choices make the row exact, so these rows (generated lazily, rm_separate)
 * give exactly the stage shape's plans.
 *
 * RM_BOUND, every plan without copies whose first runs follow the order:
 * R[t,k] means "runs at least once in stage t".  At a run j of stage t other
 * than its last, a buffer kept into the stage, not made again in it and
 * needed at its end (kept, or read by t) is resident throughout:
 *   keep_b = S[t,b] - R[t,o] + S[t+1,b] - 1   (or S[t,b] - R[t,o] when t reads b)
 *   rerun      need(j) R[t,j] + sum_{b in C} size(b) keep_b <= B
 * Its optimum bounds the duration of every such plan from below, and its
 * infeasibility proves that none fits.  (Reruns are limited to nodes whose
 * outputs can still be read, views and output-less nodes to one run, S to
 * where a buffer can be read: removing such a run or keeping lowers no
 * sample and no cost, so no plan's optimum is lost.)
 *
 * Only R needs integrality: at integral R the rows on S form an interval
 * system whose rounding down stays feasible and only lowers memory.  B is
 * raised by half the gcd of the sizes: memory is a multiple of it, so a
 * solution within GLPK's tolerance still fits the true budget.
 *
 * `explicit` builds Checkmate's own formulation of the stage memory instead
 * of the lazy rerun rows: FREE[t,b,k], F0[t,b] (b freed after k's run / at
 * the stage start) bounded by the events that forbid them, and U[t,k] =
 * U[t,k-] - sum size(b) FREE[t,b,k-] + adds(k) R[t,k] <= B - ws(k) R[t,k]
 * (for RM_BOUND: Keep[t,b] >= keep_b and K[t] = sum size(b) Keep[t,b]).
 * Larger, complete without a callback: what --write-lp writes. */
#ifndef MP_LIB_REMAT_MILP_H
#define MP_LIB_REMAT_MILP_H

#include <glpk.h>

#include "lib/glpk_util.h"
#include "lib/remat_stage.h"
#include "solver.h"

typedef enum rm_kind { RM_STAGE = 0, RM_BOUND = 1 } rm_kind;

#define RM_ZERO 0    /* a decision fixed at 0 (no column) */
#define RM_ONE (-1)  /* a decision fixed at 1 */

/* Columns of the explicit formulation beside R and S, by stage. */
typedef enum rm_aux_kind { RM_F0, RM_FREE, RM_U, RM_KEEP, RM_K } rm_aux_kind;
typedef struct rm_aux {
  rm_aux_kind kind;
  int col, t, b, k; /* b: the buffer (F0, FREE, KEEP); k: the position (FREE, U) */
} rm_aux;

typedef struct rm_milp {
  const rs_model *m;
  rm_kind kind;
  bool lazy;          /* rerun rows come from rm_separate */
  glp_prob *P;
  int *rcol;          /* (N+1) x N: column of R[t,k], or RM_ZERO / RM_ONE */
  int *scol;          /* (N+2) x nb: column of S[t,b], or RM_ZERO / RM_ONE */
  rm_aux *aux;        /* explicit: F0, FREE, U (RM_STAGE), Keep, K (RM_BOUND) */
  int n_aux, cap_aux;
  double scale;       /* bytes per model unit of memory */
  double budget;      /* B in model units (with the half unit of slack) */
  double obj_const;   /* cost of the first runs */
  bool empty_row_fails; /* a row without columns is violated: the model is infeasible */
  long cuts;          /* rerun rows added by rm_separate */
  double build_s;     /* wall seconds rm_build took: what GLPK's scaling and each
                       * simplex run's setup outside its clock cost, about */
} rm_milp;

/* Less than `times` build times left before c's deadline: GLPK copies the
 * model in and out outside its tm_lim clock (about a build time each), so
 * no GLPK run starts then. */
static inline bool rm_no_time(const mp_ctx *c, const rm_milp *x, double times) {
  return c->deadline > 0 && c->deadline - mp_now() < times * x->build_s;
}

static inline int rm_rcol(const rm_milp *x, int t, int k) {
  return x->rcol[(size_t)t * x->m->n_pos + k];
}
static inline int rm_scol(const rm_milp *x, int t, int b) {
  return x->scol[(size_t)t * x->m->nb + b];
}

/* The widest span of nonzero sizes (largest : smallest) an RM_BOUND model
 * is built for: beyond it the LP's tolerances swallow the small buffers
 * and its value is no proof. */
#define RM_BOUND_RANGE 4294967296.0

/* Build a model for `budget` bytes; integer: R binary (else all
 * continuous); lazy: the rerun rows are left to rm_separate (else the
 * explicit formulation).  Returns 0, or -1 with err (beyond max_cols
 * columns, or an RM_BOUND model beyond RM_BOUND_RANGE: size caps, not
 * claims), or RM_BUILD_TIME once mp_now() passes `deadline` (> 0; 0: none)
 * during the build (nothing left to destroy). */
#define RM_BUILD_TIME 1
int rm_build(rm_milp *x, const rs_model *m, rm_kind kind, int64_t budget, bool integer, bool lazy,
             long max_cols, double deadline, mp_error *err);
/* rm_build's column cap alone, before anything is built: 0, or -1 with err. */
int rm_size_cap(const rs_model *m, rm_kind kind, bool lazy, long max_cols, mp_error *err);
void rm_destroy(rm_milp *x);

/* Rerun rows the point col (1-based column values) violates, added to x->P
 * (up to max_rows of the most violated; in a GLP_IROWGEN callback they join
 * the current subproblem).  When R is integral the point is first rounded
 * down in S, and every run whose sample is over the budget gets its exact
 * row, so an integral point that survives is a plan within budget.
 * Returns the number of rows added. */
int rm_separate(rm_milp *x, const double *col, int max_rows);

/* The value of every column at consistent decisions d within the budget
 * (col[1..ncols]), for GLPK's glp_ios_heur_sol: a point of either model. */
void rm_point(const rm_milp *x, const rs_dec *d, double *col);
/* Decisions from column values (R > 1/2, S > 1 - 1e-6), made consistent by
 * rs_complete.  Returns its code. */
int rm_decisions(const rm_milp *x, const double *col, rs_dec *d);
/* S[t,b] of column values (a constant when fixed). */
double rm_s_value(const rm_milp *x, const double *col, int t, int b);

/* ---- solving (GLPK) ---- */

/* The LP relaxation with rounds of violated rerun rows (lazy models), dual
 * simplex warm from the last basis, until no row is violated or c's
 * deadline.  col (1-based, one per column; its length grows with nothing:
 * rows only) receives the solution.  The deadline covers GLPK's work
 * outside its tm_lim clock too: no scaling when less than twice the build
 * time is left, no further simplex run with less than one build time, and
 * each run's tm_lim keeps one build time back (mp_glp_tm_lim_reserve).  Returns RM_LP_OPT (solved, nothing
 * violated), RM_LP_INFEASIBLE, RM_LP_TIME or RM_LP_FAIL. */
enum { RM_LP_OPT = 0, RM_LP_INFEASIBLE, RM_LP_TIME, RM_LP_FAIL };
int rm_solve_lp(rm_milp *x, const mp_ctx *c, double *col);

/* In a branch-and-cut callback (GLP_IROWGEN): the rerun rows the current
 * subproblem's LP solution violates (all of them when R is integral, so no
 * integral solution over the budget is ever accepted).  col: scratch. */
void rm_rowgen(glp_tree *T, rm_milp *x, double *col);

/* ---- rounding (remat_round.c) ---- */

/* An LP relaxation's S values for rounding: (N+2) x nb. */
typedef struct rm_frac {
  int n_pos, nb;
  double *s;
} rm_frac;

/* Checkmate's rounding: for each threshold in `thr` (n_thr of them) S >= thr,
 * then `rounds` random roundings (S = 1 with probability S), each completed
 * (rs_complete) and decoded; the cheapest plan within `budget` replaces
 * *best (and its cost *best_cost) when cheaper.  Stops at the deadline of c
 * (may be NULL).  Returns how many roundings fit the budget. */
int rm_round(const rs_model *m, const rm_frac *f, const double *thr, int n_thr, int rounds,
             mp_rng *rng, int64_t budget, const mp_ctx *c, rs_dec *best, double *best_cost);

/* The peak of the decoded plan of consistent decisions (own check); -1 when
 * the decoded plan is not valid. */
int64_t rm_peak(const rs_model *m, const rs_dec *d, const int *order);

#endif
