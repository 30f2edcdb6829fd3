/* run_state.h - what the harness's files share while one request runs
 * (run.c: the driver, the order and placement kinds; run_events.c: the
 * recomputation kind; run_verdict.c: the statuses).  Internal: nothing
 * outside the harness includes it. */
#ifndef MP_RUN_STATE_H
#define MP_RUN_STATE_H

#include <pthread.h>

#include "run.h"

/* The baseline computed beside the stages (run_baseline.c), on a thread
 * of this name. */
#define MP_BASELINE_THREAD "mp-baseline"
typedef struct run_baseline_job {
  bool started;           /* a thread computes it: join it before the run ends */
  pthread_t thread;
  const mp_instance *in;
  int64_t align;
  double time_limit;
  atomic_int cancel;      /* set when the run ends without a plan: the
                             baseline's packing stops at its next look */
  mp_err rc;              /* what mp_baseline_compute returned, with b or err */
  mp_baseline b;
  mp_error err;
} run_baseline_job;

/* What the stages have established so far. */
typedef struct run_state {
  const mp_instance *in;
  const mp_run_spec *spec;
  const mp_chain *ch;
  mp_result *r;
  double t0;              /* the time limit counts from here */
  int64_t order_bound;    /* every order's live peak is at least this */
  int64_t joint_bound;    /* every plan's arena, from stages deciding both */
  int64_t place_bound;    /* every placement of the current lifetimes */
  char order_bound_src[96], place_bound_src[96];
  bool order_searched;    /* some stage chose the order (not the file order) */
  bool ordered;           /* an order stage returned an order */
  bool timed_out[MP_N_STAGE_KINDS];
  bool placed;            /* a placer returned offsets: they start the next */
  bool plan_valid;        /* r->offsets verified against r->prob */
  /* the live peak of r->prob once the stages are over (the verdict reads
   * it up to three times: a sweep of 10^6 items each) */
  int64_t prob_live;
  bool prob_live_known;
  const mp_stage_result *claim; /* a placer said nothing fits: the chain stops */
  const mp_solver *failed;      /* the stage that failed */
  mp_stage_kind failed_kind;
  mp_status failed_status;      /* error, refused (a size cap), or timeout (no plan before the limit) */
  /* the recomputation kind (run_events.c) */
  int *remat_order;       /* the order handed to the recomputation chain */
  double remat_bound;     /* every plan following remat_order lasts at least this */
  char remat_bound_src[96];
  double best_in_scope;   /* the shortest plan of the chain that follows
                             remat_order (INFINITY: none yet) */
  const mp_stage_result *remat_claim; /* a stage proved that no plan fits */
  bool below_floor;       /* the budget is below mp_events_floor */
  bool stop;              /* no later kind runs: remat proved there is no plan */
  run_baseline_job base;
} run_state;

/* ---- run.c: stage plumbing ---- */
mp_err run_fail(run_state *s, const mp_stage_spec *st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool run_stage_failed(const mp_stage_result *sr);
/* A stage returned nothing (no plan within the budget, a size cap, the
 * time limit): no proof, so it does not end its chain.  The caller keeps
 * the chain's last result (chain_has_one) for the next stage; MP_OK unless
 * the chain has none and no later stage of its kind can give one, when the
 * run fails with the stage's message and status. */
mp_err run_no_result(run_state *s, const mp_stage_spec *st, const mp_stage_result *sr,
                     bool chain_has_one);
void run_ctx_init(const run_state *s, const mp_stage_spec *st, mp_ctx *c);
/* Does an option of the stage that is a time limit of its own
 * (MP_OPT_SECONDS) cut it? */
bool run_stage_has_clock(const mp_stage_spec *st);
void run_call_solver(run_state *s, const mp_stage_spec *st, mp_ctx *c, mp_stage_result *sr);
void *run_dup(const void *src, size_t n, size_t size);

/* ---- run_events.c: the recomputation kind ---- */
/* Validate the recomputation part of a request (budget, bandwidth) before
 * any stage runs.  MP_OK or MP_EUSAGE with err. */
mp_err run_remat_request(const mp_run_spec *spec, mp_error *err);
/* Prepare the chain: the order it is handed, the budget, the bandwidth;
 * *run false when there is no such chain, or when the floor proves that no
 * plan fits (s->stop). */
mp_err run_events_enter(run_state *s, bool *run);
mp_err run_events_stage(run_state *s, const mp_stage_spec *st, mp_stage_result *sr);
/* The status of the chain's plan, from the bounds the harness checked. */
mp_status run_remat_status(const run_state *s);
/* Does a duration meet a bound (relative tolerance 1e-9: durations are
 * sums of doubles added in different orders)? */
bool run_meets(double duration, double bound);

/* ---- run_verdict.c: statuses and figures ---- */
mp_err run_verdict(run_state *s);
mp_err run_remat_no_plan(run_state *s);
void run_failed_statuses(run_state *s);

/* ---- run_baseline.c: the baseline of reduction_vs_given ---- */
/* Start computing it on a second thread when the evaluation would need it
 * (after resolve, before any stage); run_baseline_drop joins a thread the
 * run no longer needs (every run calls it before returning). */
void run_baseline_start(run_state *s);
void run_baseline_drop(run_state *s);
/* The baseline at r->align (cache, the run's own plan, the thread, or
 * computed now); false with r->msg saying why (unless it held a note). */
bool run_baseline_for(run_state *s, mp_baseline *out);

#endif
