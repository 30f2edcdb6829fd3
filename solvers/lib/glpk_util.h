/* glpk_util.h - what the GLPK solvers (ilp, ilp-place, joint-ilp) share:
 * column ranges GLPK accepts, one time-limit computation, the MIP run of
 * ilp-place and joint-ilp, and a guard that turns a GLPK internal error into
 * an error return instead of an abort. */
#ifndef MP_LIB_GLPK_UTIL_H
#define MP_LIB_GLPK_UTIL_H

#include <glpk.h>

#include "solver.h"

/* Bound column j to [lo, hi].  GLPK rejects a double-bounded column whose
 * bounds coincide (glp_intopt returns GLP_EBOUND), which happens whenever a
 * capacity or an offset range leaves a single value: fix it instead.  An
 * empty range (lo > hi) stays empty: only a model written and not solved
 * has one (--write-lp when a lower bound already exceeds the capacity),
 * and it must say that nothing fits. */
static inline void mp_glp_col_range(glp_prob *lp, int j, double lo, double hi) {
  glp_set_col_bnds(lp, j, lo == hi ? GLP_FX : GLP_DB, lo, hi);
}

/* GLPK's tm_lim (milliseconds) for a call made now: what is left until the
 * stage's deadline, capped by `own` seconds (a solver option; <= 0: none),
 * at least 1 ms and at most INT_MAX.  INT_MAX (GLPK's "no limit") when
 * neither limits the call. */
int mp_glp_tm_lim(const mp_ctx *c, double own);

/* The same with `reserve` seconds kept back before the deadline: GLPK's
 * clock starts after a simplex or branch-and-cut run has copied the
 * problem into its working form and stops before the solution is copied
 * back, work that grows with the model (remat-lp, remat-ilp: as long as
 * building the model); tm_lim = what is left minus the reserve, at least
 * 1 ms. */
int mp_glp_tm_lim_reserve(const mp_ctx *c, double own, double reserve);

/* glp_write_lp to `path` as memplan writes every output: a temporary file
 * renamed into place once whole (a device or a pipe written in place).  0,
 * or -1 when the model could not be written (nothing left behind). */
int mp_glp_write_lp(glp_prob *lp, const char *path);

/* The MIP run of ilp-place and joint-ilp on a built model: the model
 * written to c->write_lp first when that is set (-1 when it could not be:
 * nothing solved, *rc and *st untouched); without `solve` (the answer came
 * without the model) that is all, 0; else glp_intopt with presolve on,
 * GLPK's messages under --verbose and tm_lim mp_glp_tm_lim(c, own).  Sets
 * *rc (glp_intopt's return code) and *st (glp_mip_status); returns 1 when
 * there is a solution to read (GLP_OPT or GLP_FEAS, the run ended normally
 * or at the time limit), else 0.  The problem stays the caller's (to read,
 * then delete).  big_m: the largest coefficient of the model's disjunctions
 * (M z); GLPK calls z integral within its tolerance (1e-5 by default),
 * which lets M z relax a row by up to M x 1e-5 bytes (71 bytes at M = 7e6:
 * its "optimal" offsets then overlap), so the tolerance is made 0.25 / M
 * (at most 1e-5) when that is at least 1e-9 (M up to 2.5e8): a z that GLPK
 * accepts moves a row by less than a byte, and offsets rounded to integers
 * keep every row.  Above, GLPK's default stays (a smaller tolerance made it
 * call a feasible model infeasible); the solvers' own checks refuse what
 * overlaps. */
int mp_glp_run_mip(glp_prob *lp, const mp_ctx *c, double own, double big_m, bool solve, int *rc,
                   int *st);

/* May a big-M placement MIP's GLP_OPT or GLP_NOFEAS stand as a proof?  Only
 * while GLPK's relative tolerances (1e-7, on the objective among others)
 * times M stay under a byte: M <= 2^23.  Above, GLPK pruned the optimum by
 * a few bytes (arenas of 5e7-1.4e8: "optimal" 3-6 bytes above exact's) and
 * called a model whose optimum fits the capacity infeasible. */
static inline bool mp_glp_proves(double big_m) { return big_m <= 8388608.0; }

/* glp_intopt's answer that no integer point exists: the search ran out
 * (rc 0), or the presolver found the LP relaxation itself infeasible
 * (GLP_ENOPFS), which holds for every integer point too. */
static inline bool mp_glp_no_integer_point(int rc, int st) {
  return st == GLP_NOFEAS && (rc == 0 || rc == GLP_ENOPFS);
}

/* GLPK's terminal output for a solve: on stderr under --verbose (stdout
 * carries the figures), else off. */
void mp_glp_term(const mp_ctx *c);

/* Run fn(arg) with GLPK's error hook set.  GLPK reports an internal error
 * (a failed numerical assertion, say) by calling the hook and then
 * aborting; the guard jumps back instead and frees the whole GLPK
 * environment, every problem object included.  Returns 0 when fn returned,
 * -1 after an internal error (fn's GLPK objects are then gone: it must not
 * delete them again).  The jump buffer lives on the guard's stack frame. */
int mp_glp_guarded(void (*fn)(void *arg), void *arg);

#endif
