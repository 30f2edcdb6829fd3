/* run.h - the harness: run a chain of order solvers, then a chain of
 * placers, time the solver calls alone, verify and evaluate the result. */
#ifndef MP_RUN_H
#define MP_RUN_H

#include "io.h"
#include "registry.h"

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
} mp_run_spec;

typedef struct mp_stage_result {
  const mp_solver *solver;
  mp_status status;
  double wall_ms, cpu_ms;
  int64_t bound;
  char msg[256];
} mp_stage_result;

#define MP_MAX_STAGES 8

typedef struct mp_result {
  mp_status status;
  int n;                  /* nodes (0 for fixed-lifetime problems) */
  int *order;             /* NULL for fixed-lifetime problems */
  mp_problem prob;        /* lifetimes under the final order */
  int64_t *offsets;
  int64_t align;
  uint64_t seed;
  mp_figures fig;
  double order_ms, place_ms, order_cpu_ms, place_cpu_ms;
  char order_name[160], place_name[160];
  int n_stages;
  mp_stage_result stages[MP_MAX_STAGES];
  char msg[512];          /* error text when status == error */
} mp_result;

/* Returns 0 with a verified, evaluated plan; 1 bad usage (unknown solver or
 * option); 3 solver failure.  msg says why. */
int mp_run(const mp_instance *in, const mp_run_spec *spec, mp_result *r);
void mp_result_free(mp_result *r);

/* The baseline every reduction is measured against: the given order placed
 * by `bysize` at alignment align.  Returns the arena. */
int64_t mp_given_baseline(const mp_instance *in, int64_t align);

/* Does every solver of the order chain "a,b" return the file order (a chain
 * that searches no order)?  False for an unknown name. */
bool mp_chain_is_file_order(const char *chain);

/* Parse option overrides for one solver into values (defaults first).
 * Returns 0, or -1 with msg for an unknown option or an out-of-range value. */
int mp_solver_options(const mp_solver *s, int n_sets, const char *const *sets, double *vals,
                      char *msg, size_t cap);

/* Figures and plan as JSON / text */
void mp_result_print_text(FILE *out, const mp_instance *in, const mp_result *r);
void mp_result_print_json(FILE *out, const mp_instance *in, const mp_result *r);
/* The plan file of DESIGN 1.5 (graph) or the CSV with offsets (fixed). */
int mp_plan_write(FILE *out, const mp_instance *in, const mp_result *r);
/* Re-check a plan file against an instance; 0 valid, else -1 with err. */
int mp_plan_verify(const mp_instance *in, const char *plan_path, int64_t align_override,
                   mp_error *err);

#endif
