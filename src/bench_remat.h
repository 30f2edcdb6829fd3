/* bench_remat.h - the recomputation axes of an experiment (bench_remat.c):
 * "remat" (events solver chains), "budgets" and "bandwidth", read from the
 * experiment file, and expanded into the (chain, budget, bandwidth)
 * settings each (order, place) pair of the matrix gets.  Internal to the
 * bench files. */
#ifndef MP_BENCH_REMAT_H
#define MP_BENCH_REMAT_H

#include <jansson.h>

#include "bench.h"

/* Read "remat", "budgets" and "bandwidth" of an experiment object (absent:
 * no recomputation).  Returns 0, or -1 with sub. */
int mp_experiment_load_remat(json_t *o, mp_experiment *e, char *sub, size_t cap);
void mp_experiment_free_remat(mp_experiment *e);

/* One recomputation setting of a cell: chain "" is a cell without an
 * events stage (budget and bandwidth "" too). */
typedef struct mp_remat_setting {
  char *chain, *budget, *bandwidth;
} mp_remat_setting;

typedef struct mp_remat_settings {
  mp_remat_setting *s;
  int n;
} mp_remat_settings;

/* Every setting of the experiment, "all" expanded to the registered events
 * solvers (less "exclude"), duplicates once.  Errors: an unknown solver, one
 * that is not an events solver, a chain without budgets, budgets without a
 * chain.  Returns 0, or -1 with msg. */
int mp_remat_settings_build(const mp_experiment *e, mp_remat_settings *out, char *msg,
                            size_t cap);
void mp_remat_settings_destroy(mp_remat_settings *s);

#endif
