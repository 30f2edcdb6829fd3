/* glpk_util.h - small GLPK helpers shared by the ILP solvers. */
#ifndef MP_LIB_GLPK_UTIL_H
#define MP_LIB_GLPK_UTIL_H

#include <glpk.h>

/* Bound column j to [lo, hi].  GLPK rejects a double-bounded column whose
 * bounds coincide (glp_intopt returns GLP_EBOUND), which happens whenever a
 * capacity or an offset range leaves a single value: fix it instead. */
static inline void mp_glp_col_range(glp_prob *lp, int j, double lo, double hi) {
  glp_set_col_bnds(lp, j, lo < hi ? GLP_DB : GLP_FX, lo, lo < hi ? hi : lo);
}

#endif
