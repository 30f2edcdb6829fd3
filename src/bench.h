/* bench.h - batch experiments: the experiment file, the matrix of cells,
 * shards, the child-process runner, and the results store (SQLite).
 *
 * Data flows one way: experiment (+ CLI overrides) -> cells (sorted by key)
 * -> shard -> child `memplan solve ... --format json` per cell -> one row
 * per finished cell in the results file -> tables and plots. */
#ifndef MP_BENCH_H
#define MP_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- matrix */

typedef struct mp_experiment {
  char *name;
  char *file;               /* where it was read from (NULL: none) */
  char *manifest;           /* graphs/SUITE.tsv by default */
  char **graphs;            /* manifest tags, "all", or graph paths */
  int n_graphs;
  char **order;             /* order chains ("greedy,sa"), "all" */
  int n_order;
  char **place;             /* placer chains, "all" */
  int n_place;
  char **pairs;             /* extra cells: "ORDER\tPLACE" */
  int n_pairs;
  char **exclude;           /* solver names removed from "all" */
  int n_exclude;
  uint64_t *seeds;
  int n_seeds;
  double *time_limits;      /* seconds, 0 = none */
  int n_time_limits;
  char **sets;              /* solver option overrides "solver.opt=value" */
  int n_sets;
  int64_t align;            /* 0: memplan's default */
  double mem_limit_mb;      /* RLIMIT_AS of each cell; 0 = none */
  double grace_s;           /* kill at time limit + grace */
  double max_wall_s;        /* kill cells without time limit after this */
} mp_experiment;

/* Read an experiment file (JSON, see scripts/experiments/README.md).
 * Returns 0, or -1 with msg. */
int mp_experiment_load(const char *path, mp_experiment *e, char *msg, size_t cap);
/* Defaults of every field (what an empty JSON object means). */
void mp_experiment_defaults(mp_experiment *e);
void mp_experiment_free(mp_experiment *e);
/* Split a CLI list "a,b,c" into e's string lists (replacing them).  In
 * order/place lists ':' writes a chain ("greedy:sa" = "greedy,sa"). */
int mp_split_list(const char *s, bool chains, char ***out, int *n);

typedef struct mp_cell {
  char *path;        /* the graph as named by the manifest or the user (key) */
  char *file;        /* where the file is, to run it */
  char *order;       /* order chain (the file order for fixed-lifetime problems) */
  char *place;       /* placer chain */
  uint64_t seed;
  double time_limit; /* seconds, 0 = none */
  char *options;     /* canonical applicable overrides, "" when none */
  char *key;         /* the sort key: every field above but file */
} mp_cell;

typedef struct mp_matrix {
  mp_cell *cells;
  int n;
  int n_skipped;     /* pairs dropped by the rules (order solver on a CSV ...) */
} mp_matrix;

/* Expand the experiment into its cells, sorted by key.  Unknown solvers,
 * tags that select nothing and missing files are errors (-1, msg). */
int mp_matrix_build(const mp_experiment *e, mp_matrix *m, char *msg, size_t cap);
void mp_matrix_free(mp_matrix *m);
/* Keep the cells of shard i of n: cell k (in key order) belongs to shard
 * k mod n.  The shards of one matrix partition it exactly. */
void mp_matrix_shard(mp_matrix *m, int i, int n);
/* Parse "i/N" (0 <= i < N).  Returns 0 or -1. */
int mp_parse_shard(const char *s, int *i, int *n);
/* Canonical text of a time limit (as used in keys and labels): "0", "2", "0.5". */
void mp_fmt_seconds(double s, char *out, size_t cap);

/* ---------------------------------------------------------------- results */

/* One results row: the cell, the DESIGN 1.3 figures and the provenance. */
typedef struct mp_row {
  char *path, *graph, *order, *place, *options, *status, *message;
  char *version, *machine, *cpu, *started_at, *experiment;
  int64_t nodes, buffers, align;
  uint64_t seed;
  double time_limit;
  bool has_fig;            /* figures valid (status optimal/feasible/timeout) */
  int64_t live_peak, arena, sum_sizes, lower_bound;
  double fragmentation, reuse_ratio, profile_std, reduction_vs_given, reduction_vs_noreuse;
  double order_ms, place_ms, plan_ms, order_cpu_ms, place_cpu_ms, wall_s;
} mp_row;

void mp_row_free(mp_row *r);

typedef struct sqlite3 mp_db;

/* Open (creating if needed) a results file: WAL, the results table with its
 * UNIQUE cell key.  Returns NULL with msg. */
mp_db *mp_db_open(const char *path, char *msg, size_t cap);
void mp_db_close(mp_db *db);
/* Append one row in one transaction.  replace: overwrite an existing row of
 * the same cell (retrying failures), else keep the first.  0 or -1 + msg. */
int mp_db_insert(mp_db *db, const mp_row *r, bool replace, char *msg, size_t cap);
/* The keys already present (sorted, for bsearch) and their status. */
typedef struct mp_keyset {
  char **keys;
  char **status;
  int n;
} mp_keyset;
int mp_db_keys(mp_db *db, mp_keyset *ks, char *msg, size_t cap);
const char *mp_keyset_find(const mp_keyset *ks, const char *key); /* status or NULL */
void mp_keyset_free(mp_keyset *ks);
/* The key of a row, identical to mp_cell.key for the same cell. */
char *mp_row_key(const mp_row *r);

/* Load every row of a results file: SQLite, or the CSV that export writes.
 * Appends to *rows.  Returns 0 or -1 with msg. */
int mp_rows_load(const char *path, mp_row **rows, int *n, char *msg, size_t cap);
void mp_rows_free(mp_row *rows, int n);

/* Merge results files into out (idempotent: INSERT OR IGNORE on the key). */
int mp_db_merge(const char *out, const char *const *in, int n_in, int *added, char *msg,
                size_t cap);
/* The results as CSV, sorted by key, every column. */
int mp_db_export_csv(const char *path, FILE *out, char *msg, size_t cap);

/* ---------------------------------------------------------------- runner */

typedef struct mp_bench_opts {
  int jobs;
  const char *results;      /* results file */
  const char *memplan;      /* program run for each cell (default: this one) */
  bool retry_failed;        /* rerun cells whose row says error/timeout */
  bool progress;            /* progress line on stderr */
  bool quiet;
} mp_bench_opts;

typedef struct mp_bench_stats {
  int total, done_before, run, ok, failed, timeouts;
  double wall_s;
} mp_bench_stats;

int mp_bench_run(const mp_experiment *e, const mp_matrix *m, const mp_bench_opts *o,
                 mp_bench_stats *st, char *msg, size_t cap);

/* Provenance recorded in every row. */
const char *mp_version_string(void);  /* git describe --always --dirty */
const char *mp_machine_host(void);
const char *mp_machine_cpu(void);

/* ---------------------------------------------------------------- tables */

typedef struct mp_table_opts {
  const char *format;       /* md, latex, csv */
  const char *view;         /* graphs, suite, both (default: both; csv: graphs) */
  bool best_of_seeds;       /* aggregate over seeds by the best run (else median) */
} mp_table_opts;

int mp_table_write(FILE *out, const mp_row *rows, int n, const mp_table_opts *o, char *msg,
                   size_t cap);

/* Aggregated results of one solver (order + place + limit + options) on one
 * graph, as the tables and the Pareto plot use them. */
typedef struct mp_agg {
  const char *graph;        /* graph name (points into rows) */
  const char *path;
  const char *order, *place, *options;
  double time_limit;
  char label[256];          /* "greedy+bysize" (+ " @2s" / " [opts]") */
  int runs, ok;
  bool fixed;               /* fixed-lifetime instance */
  int64_t live_peak, arena;
  double red_given, red_noreuse, gap, plan_ms, frag, std;
  int64_t bound;            /* best bound known for the graph */
} mp_agg;

/* Group rows by graph and solver; results sorted by graph then label. */
int mp_aggregate(const mp_row *rows, int n, bool best_of_seeds, mp_agg **out, int *n_out);

#endif
