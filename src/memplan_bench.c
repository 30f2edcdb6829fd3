/* memplan_bench.c - the public API (memplan.h) of experiments, results
 * files and tables: opaque handles over bench.h's experiment and matrix,
 * option structs copied into the harness's, error codes from its -1s. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "memplan_int.h"

struct memplan_experiment {
  mp_experiment e;
  int shard, shards;  /* the cells this process runs: k mod shards = shard */
};

struct memplan_matrix {
  mp_matrix m;
  int total;          /* cells of every shard */
  int shard, shards;
};

/* ---------------------------------------------------------- experiments */

memplan_err memplan_experiment_load(memplan_experiment **out, const char *path,
                                    memplan_error *err) {
  memplan_experiment *h = mp_xcalloc(1, sizeof *h);
  char msg[sizeof err->msg];
  *out = NULL;
  h->shards = 1;
  if (!path) {
    mp_experiment_defaults(&h->e);
  } else if (mp_experiment_load(path, &h->e, msg, sizeof msg)) {
    mp_api_error(err, msg);
    memplan_experiment_destroy(h);
    return MEMPLAN_EINPUT;
  }
  *out = h;
  return MEMPLAN_OK;
}

void memplan_experiment_destroy(memplan_experiment *e) {
  if (!e) return;
  mp_experiment_destroy(&e->e);
  free(e);
}

const char *memplan_experiment_name(const memplan_experiment *e) { return e->e.name; }

memplan_err memplan_experiment_set(memplan_experiment *e, const char *setting, const char *value,
                                   bool add, memplan_error *err) {
  char msg[sizeof err->msg];
  if (!setting || !value) return mp_api_fail(err, MEMPLAN_EUSAGE, "a setting needs a value");
  if (!strcmp(setting, "shard")) {
    if (mp_parse_shard(value, &e->shard, &e->shards))
      return mp_api_fail(err, MEMPLAN_EUSAGE, "--shard takes i/N with 0 <= i < N");
    return MEMPLAN_OK;
  }
  if (mp_experiment_set(&e->e, setting, value, add, msg, sizeof msg) == 0) return MEMPLAN_OK;
  mp_api_error(err, msg);
  return MEMPLAN_EUSAGE;
}

/* --------------------------------------------------------------- matrix */

memplan_err memplan_matrix_build(memplan_matrix **out, const memplan_experiment *e,
                                 memplan_error *err) {
  char msg[sizeof err->msg];
  *out = NULL;
  if (mp_experiment_check_options(&e->e, msg, sizeof msg)) {
    mp_api_error(err, msg);
    return MEMPLAN_EUSAGE;
  }
  memplan_matrix *h = mp_xcalloc(1, sizeof *h);
  if (mp_matrix_build(&e->e, &h->m, msg, sizeof msg)) {
    mp_api_error(err, msg);
    memplan_matrix_destroy(h);
    return MEMPLAN_EINPUT;
  }
  h->total = h->m.n;
  h->shard = e->shard;
  h->shards = e->shards;
  mp_matrix_shard(&h->m, e->shard, e->shards);
  *out = h;
  return MEMPLAN_OK;
}

void memplan_matrix_destroy(memplan_matrix *m) {
  if (!m) return;
  mp_matrix_destroy(&m->m);
  free(m);
}

void memplan_matrix_info_get(const memplan_matrix *m, memplan_matrix_info *out) {
  *out = (memplan_matrix_info){.cells = m->m.n, .total = m->total, .skipped = m->m.n_skipped,
                               .shard = m->shard, .shards = m->shards};
}

memplan_err memplan_matrix_cell(const memplan_matrix *m, int i, memplan_cell *out) {
  if (i < 0 || i >= m->m.n) return MEMPLAN_EUSAGE;
  const mp_cell *c = &m->m.cells[i];
  *out = (memplan_cell){.path = c->path, .order = c->order, .place = c->place, .seed = c->seed,
                        .time_limit = c->time_limit, .options = c->options, .remat = c->remat,
                        .budget = c->budget, .bandwidth = c->bandwidth};
  return MEMPLAN_OK;
}

/* ---------------------------------------------------------------- runs */

void memplan_bench_opts_init(memplan_bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->version = MEMPLAN_API_VERSION;
  o->jobs = 1;
}

memplan_err memplan_bench_run(const memplan_experiment *e, const memplan_matrix *m,
                              const memplan_bench_opts *o, memplan_bench_stats *st,
                              memplan_error *err) {
  memset(st, 0, sizeof *st);
  if (!e || !m || !o)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "bench: no experiment, matrix or options (NULL)");
  if (mp_api_version_check(o->version, "memplan_bench_opts", err)) return MEMPLAN_EUSAGE;
  if (!o->results || !o->results[0])
    return mp_api_fail(err, MEMPLAN_EUSAGE, "bench: no results file");
  if (o->jobs < 1 || o->jobs > MEMPLAN_MAX_JOBS)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "bench: jobs %d outside 1..%d", o->jobs,
                       MEMPLAN_MAX_JOBS);
  mp_bench_opts bo = {.jobs = o->jobs, .results = o->results, .memplan = o->memplan,
                      .retry_failed = o->retry_failed, .progress = o->progress,
                      .log_every_s = o->log_every_s, .quiet = o->quiet, .shared_fs = o->shared_fs};
  mp_bench_stats s;
  char msg[sizeof err->msg];
  int rc = mp_bench_run(&e->e, &m->m, &bo, &s, msg, sizeof msg);
  *st = (memplan_bench_stats){
      .total = s.total, .done_before = s.done_before, .stale = s.stale, .run = s.run,
      .ok = s.ok, .failed = s.failed, .timeouts = s.timeouts, .refused = s.refused,
      .taken = s.taken, .handled = s.handled, .bounds = s.bounds, .interrupted = s.interrupted,
      .started = s.started, .wall_s = s.wall_s};
  if (!rc) return MEMPLAN_OK;
  mp_api_error(err, msg);
  return MEMPLAN_EINPUT;
}

memplan_err memplan_bench_graph_bound(const char *path, double baseline_limit_s, FILE *out,
                                      memplan_error *err) {
  char msg[sizeof err->msg];
  if (!path || !out)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "graph bound: no %s (NULL)", path ? "output" : "path");
  if (isnan(baseline_limit_s))
    return mp_api_fail(err, MEMPLAN_EUSAGE, "graph bound: the baseline's time allowance is NaN "
                                            "(<= 0: none)");
  int rc = mp_bench_print_graph_bound(path, baseline_limit_s, out, msg, sizeof msg);
  if (rc == 0) return MEMPLAN_OK;
  mp_api_error(err, msg);
  return rc == -2 ? MEMPLAN_EIO : MEMPLAN_EINPUT;
}

/* -------------------------------------------------------- results files */

memplan_err memplan_results_merge(const char *out, const char *const *in, int n_in, int *added,
                                  memplan_error *err) {
  char msg[sizeof err->msg];
  int dummy;
  if (!added) added = &dummy;
  *added = 0;
  if (!out || !mp_api_strings_ok(in, n_in))
    return mp_api_fail(err, MEMPLAN_EUSAGE,
                       "merge: no output, or n_in %d with inputs missing or NULL", n_in);
  for (int i = 0; i < n_in; i++)
    if (access(in[i], R_OK))
      return mp_api_fail(err, MEMPLAN_EINPUT, "%s: cannot read: %s", in[i], strerror(errno));
  if (mp_db_merge(out, in, n_in, added, msg, sizeof msg) == 0) return MEMPLAN_OK;
  mp_api_error(err, msg);
  return MEMPLAN_EINPUT;
}

memplan_err memplan_results_export(const char *results, const char *path, memplan_error *err) {
  mp_outfile of;
  mp_error e;
  if (!results) return mp_api_fail(err, MEMPLAN_EUSAGE, "export: no results file (NULL)");
  if (mp_out_open(&of, path ? path : "-", &e)) {
    mp_api_error(err, e.msg);
    return MEMPLAN_EIO;
  }
  char msg[sizeof err->msg];
  if (mp_db_export_csv(results, of.fp, msg, sizeof msg)) {
    mp_out_abort(&of);
    mp_api_error(err, msg);
    return MEMPLAN_EINPUT;
  }
  if (mp_out_commit(&of, &e)) {
    mp_api_error(err, e.msg);
    return MEMPLAN_EIO;
  }
  return MEMPLAN_OK;
}

/* --------------------------------------------------------------- tables */

void memplan_table_opts_init(memplan_table_opts *o) {
  memset(o, 0, sizeof *o);
  o->version = MEMPLAN_API_VERSION;
}

/* Keep the rows of one graph (by name or path). */
static void keep_graph(mp_row *rows, int *n, const char *only) {
  int w = 0;
  for (int i = 0; i < *n; i++) {
    if ((rows[i].graph && !strcmp(rows[i].graph, only)) || !strcmp(rows[i].path, only))
      rows[w++] = rows[i];
    else
      mp_row_destroy(&rows[i]);
  }
  *n = w;
}

/* Write the tables atomically; results that contradict a bound still
 * write them. */
static memplan_err write_tables(const mp_row *rows, int n, const mp_table_opts *to,
                                const char *path, memplan_error *err) {
  mp_outfile of;
  mp_error e;
  char msg[sizeof err->msg];
  if (mp_out_open(&of, path ? path : "-", &e)) {
    mp_api_error(err, e.msg);
    return MEMPLAN_EIO;
  }
  int r = mp_table_write(of.fp, rows, n, to, msg, sizeof msg);
  if (r < 0) {
    mp_out_abort(&of);
    mp_api_error(err, msg);
    return MEMPLAN_EUSAGE;
  }
  if (mp_out_commit(&of, &e)) {
    mp_api_error(err, e.msg);
    return MEMPLAN_EIO;
  }
  if (r > 0) return mp_api_fail(err, MEMPLAN_EINPUT, "results contradict a bound: %s", msg);
  return MEMPLAN_OK;
}

memplan_err memplan_table_write(const char *const *results, int n, const memplan_table_opts *o,
                                const char *path, memplan_error *err) {
  if (!o) return mp_api_fail(err, MEMPLAN_EUSAGE, "table: no options (NULL)");
  if (mp_api_version_check(o->version, "memplan_table_opts", err)) return MEMPLAN_EUSAGE;
  if (n < 1 || !mp_api_strings_ok(results, n))
    return mp_api_fail(err, MEMPLAN_EUSAGE, "table: no results file (or a NULL one)");
  if (!mp_api_strings_ok(o->solvers, o->n_solvers) || !mp_api_strings_ok(o->baselines, o->n_baselines))
    return mp_api_fail(err, MEMPLAN_EUSAGE,
                       "table: n_solvers or n_baselines with labels missing or NULL");
  if (isnan(o->within) || isnan(o->max_overhead) || o->within < 0 || o->max_overhead < 0)
    return mp_api_fail(err, MEMPLAN_EUSAGE,
                       "table: within or max_overhead is NaN or negative (0: the default)");
  mp_table_opts to = {.format = o->format, .view = o->view, .metric = o->metric,
                      .best_of_seeds = o->best_of_seeds, .graph_bound_only = o->graph_bound_only,
                      .common = o->common, .solvers = o->solvers, .n_solvers = o->n_solvers,
                      .baselines = o->baselines, .n_baselines = o->n_baselines,
                      .within = o->within, .brief = o->brief, .max_overhead = o->max_overhead};
  mp_row *rows = NULL;
  int nr = 0;
  char msg[sizeof err->msg];
  memplan_err rc = MEMPLAN_OK;
  for (int i = 0; i < n && !rc; i++)
    if (mp_rows_load(results[i], &rows, &nr, msg, sizeof msg)) {
      mp_api_error(err, msg);
      rc = MEMPLAN_EINPUT;
    }
  if (!rc && o->graph) keep_graph(rows, &nr, o->graph);
  if (!rc && o->graph && !nr) /* as --solver with no match: a usage error, not an empty table */
    rc = mp_api_fail(err, MEMPLAN_EUSAGE, "--graph '%s': no such graph in the results (a graph's "
                     "name, or its path as in the results)", o->graph);
  if (!rc) rc = write_tables(rows, nr, &to, path, err);
  mp_rows_destroy(rows, nr);
  return rc;
}
