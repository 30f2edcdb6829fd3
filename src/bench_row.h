/* bench_row.h - from the finished child processes of one cell to its
 * results row (bench_row.c); used by the runner (bench_run.c). */
#ifndef MP_BENCH_ROW_H
#define MP_BENCH_ROW_H

#include <jansson.h>
#include "bench.h"

/* One finished `memplan solve --format json` of a cell. */
typedef struct mp_cellrun {
  json_t *out;          /* its output, or NULL (none, or not JSON) */
  int wstatus;          /* from waitpid */
  bool killed;          /* by the runner, at time limit + grace */
  double wall_s;        /* the whole process */
  char errtail[320];    /* the end of its stderr, on one line */
  char refused[480];    /* why bench refuses its answer (mp_cellrun_judge), or "" */
} mp_cellrun;

/* Read a finished child's output files into run (out_path: stdout, err_path:
 * stderr). */
void mp_cellrun_read(mp_cellrun *run, const char *out_path, const char *err_path, int wstatus,
                     bool killed, double wall_s);
void mp_cellrun_destroy(mp_cellrun *run);
/* What bench computes itself from a cell's graph to back another
 * program's claim (bench_check.c); loaded when first needed, one graph
 * kept, with the instance itself (to verify the program's plan).  Zeroed
 * to start; mp_graph_facts_destroy at the end. */
struct mp_instance;
typedef struct mp_graph_facts {
  char *file;               /* the graph these are of (NULL: none yet) */
  struct mp_instance *in;   /* the graph read (NULL when it cannot be) */
  bool ok, fixed;           /* read; a fixed-lifetime problem */
  int64_t file_order_peak;  /* the live peak of the file order (max-live for lifetimes) */
  int64_t node_bound;       /* the per-node bound on every order's live peak */
  int64_t floor;            /* the events floor (DESIGN 6.3) */
  double duration_floor;    /* no plan lasts less (mp_events_duration_floor) */
} mp_graph_facts;
void mp_graph_facts_destroy(mp_graph_facts *f);
/* The facts of `file`: the cache's when they are of it, else read now. */
/* Do two printed reals agree (12 significant digits: a few units in 1e-9)? */
bool mp_bench_near(double a, double b);
/* The budget a recomputation cell resolves to: bytes, or a fraction of the
 * file order's live peak (as solve resolves it) for a file-order chain or a
 * fixed-lifetime problem; -1 when only the solve knows it. */
int64_t mp_cell_budget(const mp_cell *c, const mp_graph_facts *f);
const mp_graph_facts *mp_graph_facts_of(mp_graph_facts *cache, const char *file);

/* Refuse a run's answer for the reason given (printf-style); the first
 * reason stands. */
void mp_cellrun_refuse(mp_cellrun *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Judge a finished run's answer (bench_check.c): sets run->refused when
 * its status words are not memplan's, its figures disagree with each
 * other, or (plan not NULL: the program is not this memplan, and was asked
 * to write its plan there) it claims an optimum or infeasibility no bound
 * bench computes backs, or its plan does not verify or its figures are not
 * those the judge recomputes from it (mp_cellrun_rejudge).  A refused run
 * is a failure (status error, the reason in the message) and none of its
 * output is stored. */
void mp_cellrun_judge(mp_cellrun *run, const mp_cell *c, const char *plan, mp_graph_facts *cache);
/* Another program's plan file (bench_rejudge.c), for a run whose answer
 * states figures: verified against the cell's graph by memplan's judge at
 * the cell's alignment (with recomputation: its bandwidth, within its
 * budget; with a capacity: within it), and every figure the answer states
 * equal to the one the judge recomputes.  Otherwise the run is refused. */
void mp_cellrun_rejudge(mp_cellrun *run, const mp_cell *c, const char *plan, mp_graph_facts *cache);

/* The string at key k of o, or NULL (o NULL, k absent or not a string). */
const char *mp_json_str(json_t *o, const char *k);
/* The answer's own word on whether it has figures: `has_figures` when it
 * says so, else its status (a plan: optimal, feasible, timeout). */
bool mp_cellrun_says_figures(const mp_cellrun *run);
/* Did the run give a plan with figures (so that a repeat makes sense)? */
bool mp_cellrun_ok(const mp_cellrun *run);

/* Did a child (a cell's solver or a graph's job) end by a request to stop
 * rather than by its own doing?  The signal (0: no), given its wait status,
 * whether the runner killed it at its time limit and the signal that told
 * the runner to stop (0: none yet).  Such a child is no result: its cell
 * runs again on resume. */
int mp_run_stop_signal(int wstatus, bool killed, int stopping);

/* The row of a cell from its n runs: figures from the first, times from
 * the successful ones (median-time run, min, max), a failure from the last
 * run if it failed.  started: UTC time of the first run. */
void mp_row_from_runs(const mp_experiment *e, const mp_cell *c, const mp_cellrun *runs, int n,
                      const char *started, mp_row *r);

#endif
