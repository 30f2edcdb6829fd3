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
} mp_cellrun;

/* Read a finished child's output files into run (out_path: stdout, err_path:
 * stderr). */
void mp_cellrun_read(mp_cellrun *run, const char *out_path, const char *err_path, int wstatus,
                     bool killed, double wall_s);
void mp_cellrun_destroy(mp_cellrun *run);
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
