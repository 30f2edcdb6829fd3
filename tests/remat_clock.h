/* remat_clock.h - an events solver whose deadline passes at a chosen
 * reading of the clock (tl_clock_start), whatever the machine's speed.  A
 * run the clock cut must say `timeout` (with its plan if it has one), or
 * say exactly what the run it never cut says: the status is a claim, and
 * the time limit is no answer. */
#ifndef MP_REMAT_CLOCK_H
#define MP_REMAT_CLOCK_H

#include "remat_check.h"

/* The deadline of every clocked run, and how far short of it the clock
 * stands still in rc_near_everywhere (a few hundred ulps at 1100 s). */
#define RC_DEADLINE (TL_CLOCK_T0 + 100)
#define RC_NEAR 1e-10

typedef struct rc_answer {
  int rc;
  mp_status status;
  double duration_bound;
  double duration; /* the plan's, evaluated; -1 without a plan */
  mp_events ev;
  char msg[256];
  long reads;      /* clock readings the run made */
} rc_answer;

/* s with `sets` (NULL-terminated "name=value" list; NULL: its quick
 * options) on g from `order`, a deadline 100 s ahead of the test's clock
 * that passes at reading `jump` (-1: never).  Fails the test on an invalid
 * answer: a plan that does not verify or exceeds the budget, no plan with
 * events or without a message. */
void rc_run_clocked(const mp_solver *s, const char *const *sets, const mp_graph *g, const int *order,
                    int64_t budget, double bw, long jump, rc_answer *a);
void rc_answer_destroy(rc_answer *a);

/* Does b say what a says: a proof (optimal at the same duration,
 * infeasible) the same proof, any other answer the same rc, status, events,
 * duration bound and message? */
bool rc_same_answer(const rc_answer *a, const rc_answer *b);

/* The run never cut (which must not say timeout), then the run cut at each
 * of its readings (about max_cuts of them, evenly spaced): each says
 * `timeout` or the same answer, else the test fails naming `what`.
 * Returns how many cuts said timeout. */
int rc_cut_everywhere(const mp_solver *s, const char *const *sets, const mp_graph *g, const int *order,
                      int64_t budget, double bw, long max_cuts, const char *what);

/* rc_cut_everywhere, but from each cut on the clock stands still RC_NEAR
 * short of the deadline: it never passes, yet an estimate of the time a
 * step needs (remat_milp.h's build time, GLPK's tm_lim less a reserve)
 * says that too little is left.  A search given up on such an estimate is
 * cut as surely as one the clock ended: `timeout` or the uncut answer. */
int rc_near_everywhere(const mp_solver *s, const char *const *sets, const mp_graph *g, const int *order,
                       int64_t budget, double bw, long max_cuts, const char *what);

#endif
