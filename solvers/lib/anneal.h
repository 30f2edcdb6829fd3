/* anneal.h - the annealing schedule of the search solvers, independent of
 * what they search: the initial temperature from sampled uphill moves (the
 * mean rise, accepted with probability 1/2), geometric cooling to a final
 * fraction of it over a number of moves, and the Metropolis rule.  Used by
 * the recomputation searches (lib/remat_anneal.c), whose state is not an
 * order; the order searches (sa, ga, remat-ga's first orders) use
 * lib/ordls.c's step, the same rule on their moves. */
#ifndef MP_LIB_ANNEAL_H
#define MP_LIB_ANNEAL_H

#include <math.h>
#include <stdbool.h>

#include "util.h"

typedef struct mp_anneal {
  double T;     /* the current temperature */
  double alpha; /* cooling factor per move */
} mp_anneal;

/* T0 such that the mean of n_up sampled rises (their sum `up`) is accepted
 * with probability 1/2, times heat; `heat` alone when no move rose. */
static inline double mp_anneal_t0(double up, int n_up, double heat) {
  return (n_up > 0 ? up / n_up / log(2.0) : 1.0) * heat;
}

/* Start at t0 and reach t0 * t_end after `moves` moves. */
static inline void mp_anneal_start(mp_anneal *a, double t0, double t_end, long moves) {
  a->T = t0 > 0 ? t0 : 1e-12;
  a->alpha = pow(t_end, 1.0 / (double)(moves > 0 ? moves : 1));
}

/* The Metropolis rule for an energy rise, then one step of cooling. */
static inline bool mp_anneal_accept(mp_anneal *a, mp_rng *r, double rise) {
  bool ok = rise <= 0 || mp_rng_unit(r) < exp(-rise / a->T);
  a->T *= a->alpha;
  return ok;
}

#endif
