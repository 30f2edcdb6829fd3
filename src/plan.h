/* plan.h - a plan (order + offsets), its status, the evaluator that computes
 * every figure of DESIGN 1.3 and the verifier of DESIGN 1.5.  The evaluator
 * and the verifier share no code with any solver. */
#ifndef MP_PLAN_H
#define MP_PLAN_H

#include "lifetime.h"

/* What a result claims.  MP_FIXED is the order status of a plan whose
 * order was not searched (a chain of file-order solvers, or a
 * fixed-lifetime problem): nothing was decided, so nothing is claimed. */
typedef enum mp_status {
  MP_OPTIMAL = 0,
  MP_FEASIBLE,
  MP_INFEASIBLE,
  MP_TIMEOUT,
  MP_ERROR,
  /* append only (results files store the names): */
  MP_REFUSED,    /* the solver declined under its documented size cap: not a failure */
  MP_FIXED,      /* the order status of a plan whose order was not searched */
  MP_N_STATUS
} mp_status;

const char *mp_status_name(mp_status s);
int mp_status_parse(const char *s, mp_status *out);

typedef struct mp_figures {
  int64_t live_peak;
  int64_t arena;
  int64_t sum_sizes;
  int64_t lower_bound;
  int64_t given_arena;        /* baseline: given order placed by bysize */
  double fragmentation;
  double reuse_ratio;
  double profile_std;
  double reduction_vs_given;
  double reduction_vs_noreuse;
} mp_figures;

/* Check a placement: every item has an offset, offsets aligned (and pinned
 * items where pinned), no two items with intersecting lifetimes intersect in
 * address.  Returns 0, or -1 with the first violation in err. */
int mp_verify_offsets(const mp_problem *p, const int64_t *offsets,
                      mp_error *err);

/* The figures of a placement (the offsets must verify).  lower_bound and
 * given_arena are inputs supplied by the caller (the harness knows them);
 * the ratios that depend on them are derived here. */
void mp_evaluate(const mp_problem *p, const int64_t *offsets,
                 int64_t lower_bound, int64_t given_arena, mp_figures *f);
/* The same with the live peak the caller computed (mp_live_peak(p)). */
void mp_evaluate_at(const mp_problem *p, const int64_t *offsets, int64_t live_peak,
                    int64_t lower_bound, int64_t given_arena, mp_figures *f);

int64_t mp_arena(const mp_problem *p, const int64_t *offsets);

#endif
