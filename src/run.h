/* run.h - the harness: run a chain of stages (order solvers, then
 * recomputation/offload solvers when asked for, then placers), time the
 * solver calls alone, check every output and every claimed bound, let the
 * judge (plan.h, events.h) compute the figures, and decide the statuses
 * from what the harness itself can check. */
#ifndef MP_RUN_H
#define MP_RUN_H

#include <stdatomic.h>

#include "chain.h"
#include "io.h"
#include "verify.h"

/* The baseline of reduction_vs_given: the given order (or the fixed
 * lifetimes) placed by the MP_ROLE_BASELINE placer, at one alignment. */
typedef struct mp_baseline {
  int64_t align;
  int64_t arena;
} mp_baseline;

/* Baselines already computed for one instance, so that runs on it compute
 * each at most once (a caller-owned cache, one entry per alignment). */
#define MP_BASELINE_CACHE 4
typedef struct mp_baselines {
  int n;
  mp_baseline b[MP_BASELINE_CACHE];
} mp_baselines;

typedef struct mp_run_spec {
  const char *order;      /* an order solver or a chain "a,b"; NULL: the default */
  const char *place;      /* a placer or a chain; NULL: the default */
  int64_t align;          /* 0: default (64 for graphs, 1 for CSV) */
  double time_limit;      /* seconds for the whole solve; <= 0: none */
  uint64_t seed;
  int64_t capacity;       /* 0: minimise */
  const char *write_lp;
  int n_sets;             /* option overrides "name=value" / "solver.name=value" */
  const char *const *sets;
  int verbose;
  bool no_baseline;       /* skip the baseline: reduction_vs_given is absent */
  mp_baselines *baselines; /* this instance's cache, or NULL; either way the
                              baseline is used only for a run with figures */
  int threads;            /* the threads the run may use (0: the default,
                             MP_DEFAULT_THREADS).  1: the baseline is
                             computed after the stages, on the caller's
                             thread, and each stage runs on it alone; else
                             the baseline runs on a second thread beside
                             them (run_baseline.c) when the run will need it
                             and no clock cuts it, and a stage no clock cuts
                             may use this many (mp_ctx.threads); the figures
                             are the same */
  /* NULL, or a flag another thread sets once this run's answer is no
   * longer wanted: each stage sees it (mp_ctx.cancel), and one that polls
   * it stops without a plan (the baseline beside the stages of a run that
   * ended without one: run_baseline.c) */
  const atomic_int *cancel;
  int n_extra;            /* solvers outside the registry the chains may name */
  const mp_solver *const *extra;
  /* Recomputation and offload (DESIGN 6): a chain of MP_DECIDES_EVENTS
   * solvers between the order and the placement; NULL: none (nothing
   * changes).  It needs exactly one budget: `budget` bytes (has_budget),
   * or `budget_frac`, the decimal text of a fraction of the live peak of
   * the order handed to the chain (mp_budget_frac).  has_bandwidth:
   * `bandwidth` (bytes per cost unit, 0: no offload) replaces the graph's
   * host_bandwidth. */
  const char *remat;
  bool has_budget;
  int64_t budget;
  const char *budget_frac;
  bool has_bandwidth;
  double bandwidth;
} mp_run_spec;

typedef struct mp_stage_result {
  const mp_solver *solver;
  mp_stage_kind kind;
  mp_status status;       /* what the solver claimed (error: it failed; refused;
                             timeout with no plan: the limit stopped it first) */
  bool no_plan;           /* the solver returned no plan (-1) */
  double wall_ms, cpu_ms;
  int64_t bound;          /* the bound it reported, checked against what it returned */
  double duration_bound;  /* an events stage's bound on the duration (0: none) */
  char msg[256];
} mp_stage_result;

/* What a recomputation stage (MP_STAGE_EVENTS) left in a result. */
typedef struct mp_remat_result {
  mp_status status;       /* the event plan: optimal only when its duration
                             meets a bound the harness checked (the
                             duration floor, or a stage's duration_bound);
                             infeasible only below mp_events_floor or from
                             a stage's exhausted exact search */
  bool known;             /* the chain was entered: the next four are set */
  int64_t order_peak;     /* section-1 live peak of the order handed to it */
  int64_t budget;
  char frac[48];          /* the --budget-frac text it came from, or "" */
  double bandwidth;       /* 0: no host link */
  double base_time;       /* DESIGN 6.1, known without a plan */
  bool has_plan;          /* events holds a verified plan within the budget */
  mp_events events;
  mp_residency *res;      /* one per item of mp_result.prob (has_plan) */
  mp_ev_figures fig;      /* the judge's figures of events (has_plan) */
  double ms, cpu_ms;      /* its stages' solver calls */
  char name[160];         /* the chain, "a,b" */
} mp_remat_result;

typedef struct mp_result {
  /* The whole plan, against every plan the command could have chosen:
   * optimal / infeasible only with a bound the harness checked; error (or
   * timeout) when no plan was found. */
  mp_status status;
  mp_status order_status; /* MP_FIXED when no order was searched */
  mp_status place_status; /* the placement, for the final order's lifetimes */
  bool has_figures;       /* fig holds the figures of a verified plan */
  bool has_baseline;      /* fig.given_arena and reduction_vs_given are known */
  bool has_remat;         /* the request had a recomputation stage: remat */
  mp_remat_result remat;
  int n;                  /* nodes (0 for fixed-lifetime problems) */
  int *order;             /* NULL for fixed-lifetime problems; with remat the
                             order handed to the recomputation stage */
  mp_problem prob;        /* lifetimes under the final order, or the
                             residencies of the event plan (prob.g NULL) */
  int64_t *offsets;
  int64_t align;
  uint64_t seed;
  mp_figures fig;         /* lower_bound is set even without a plan */
  double order_ms, place_ms, order_cpu_ms, place_cpu_ms;
  char order_name[160], place_name[160];
  int n_stages;
  mp_stage_result stages[MP_MAX_STAGES];
  char msg[512];          /* why, when there is no plan; a note otherwise */
} mp_result;

/* Run the request.  MP_OK: r holds a verified plan (has_figures) or a
 * checked proof of infeasibility (status infeasible).  MP_EUSAGE: unknown
 * solver or option, a solver of the wrong kind, a budget missing, doubled
 * or without --remat.  MP_ESOLVER: a stage failed or refused, returned
 * something invalid (an event plan over the budget, say) or a bound above
 * what it achieved, or no plan meets the capacity (status error or
 * timeout).  r->msg says why; r must be destroyed in every case. */
/* The threads of a run whose spec says 0. */
enum { MP_DEFAULT_THREADS = 2 };

mp_err mp_run(const mp_instance *in, const mp_run_spec *spec, mp_result *r);
void mp_result_destroy(mp_result *r);

/* Compute the baseline once for an instance (the harness runs the
 * baseline placer like any other solver, on the given order), within
 * `time_limit` seconds (<= 0: none) on up to `threads` threads (a run's
 * `threads`): a baseline that the limit cut (status timeout: its plan is
 * not the baseline placer's) is an error, and the figure is then absent. */
mp_err mp_baseline_compute(const mp_instance *in, int64_t align, double time_limit, int threads,
                           mp_baseline *b, mp_error *err);
/* The same, stopped early once *cancel (not NULL) is set by another
 * thread: then an error (MP_ESOLVER) whose message says it was cancelled. */
mp_err mp_baseline_compute_cancel(const mp_instance *in, int64_t align, double time_limit, int threads,
                                  const atomic_int *cancel, mp_baseline *b, mp_error *err);

/* Figures and plan as text / JSON (report.c).  Absent figures print as
 * JSON null, and not at all in text. */
void mp_result_print_text(FILE *out, const mp_instance *in, const mp_result *r);
void mp_result_print_json(FILE *out, const mp_instance *in, const mp_result *r);
/* The plan file of DESIGN 1.5 (graph) or the CSV with offsets (fixed).
 * MP_EUSAGE for a result without a plan, MP_EIO when writing fails. */
mp_err mp_plan_write(FILE *out, const mp_instance *in, const mp_result *r);
/* The result as a jansson object (what mp_result_print_json prints). */
struct json_t *mp_result_json(const mp_instance *in, const mp_result *r);

#endif
