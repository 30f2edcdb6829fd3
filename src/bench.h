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
  char *graphs_base;        /* directory the graph paths are relative to (the
                               experiment file's; NULL: the working directory) */
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
  int64_t capacity;         /* --capacity of every cell (0: minimise) */
  double mem_limit_mb;      /* RLIMIT_AS of each cell; 0 = none */
  double grace_s;           /* kill at time limit + grace */
  double max_wall_s;        /* kill cells without time limit after this */
  int repeat;               /* timed runs per cell (min and median recorded) */
  /* recomputation (DESIGN 6): cells with an events stage between the order
   * and the placement.  No entry: every cell is without one ("none"). */
  struct mp_remat_entry *remat;
  int n_remat;
  char **budgets;           /* canonical budget args: "0.8x" (a fraction) or "41688" (bytes) */
  int n_budgets;
  char **bandwidths;        /* canonical: "" (the graph's host_bandwidth) or a number */
  int n_bandwidths;
} mp_experiment;

/* One entry of "remat": an events solver chain ("none": cells without a
 * recomputation stage; "all": every registered events solver), with its own
 * budgets and bandwidths, or the experiment's (NULL lists). */
typedef struct mp_remat_entry {
  char *chain;
  char **budgets;
  int n_budgets;            /* 0: the experiment's */
  char **bandwidths;
  int n_bandwidths;         /* 0: the experiment's */
} mp_remat_entry;

/* Canonical text of a budget written in an experiment or on the command
 * line: "0.8x" (a fraction of the live peak of the order handed to the
 * stage, 0 < F <= 1000; "0.80x" and ".8x" are "0.8x") or a positive integer
 * number of bytes.  Returns 0, or -1 with msg. */
int mp_budget_arg_canon(const char *text, char *out, size_t cap, char *msg, size_t mcap);
/* Is a canonical budget arg a fraction ("0.8x")?  Its value in *frac
 * (may be NULL). */
bool mp_budget_arg_frac(const char *arg, double *frac);
/* Canonical text of a bandwidth: "" for "graph" (the graph's own
 * host_bandwidth), else the shortest decimal text of a finite number >= 0
 * that reads back exactly.  Returns 0, or -1 with msg. */
int mp_bandwidth_arg_canon(const char *text, char *out, size_t cap, char *msg, size_t mcap);
/* Replace the experiment's remat entries by one chain (the first --remat)
 * or add one (later ones). */
void mp_experiment_add_remat(mp_experiment *e, const char *chain, bool replace);
/* Change one setting by its `memplan bench` option name without the dashes
 * (bench_set.c): graphs, manifest, order, place, remat, budgets, bandwidth,
 * seeds, time-limit, mem-limit, grace, repeat, capacity, align, set.  Lists
 * replace the experiment's; a chain replaces the experiment's chains, or
 * with `add` is appended; set ("[SOLVER.]OPT=V") replaces that option's
 * value.  0, or -1 with msg (a usage error). */
int mp_experiment_set(mp_experiment *e, const char *setting, const char *value, bool add,
                      char *msg, size_t cap);

/* Read an experiment file (JSON, see scripts/experiments/README.md); paths
 * in it are relative to its directory.  Returns 0, or -1 with msg. */
int mp_experiment_load(const char *path, mp_experiment *e, char *msg, size_t cap);
/* Every solver option override names a registered solver's option ("sa.iters")
 * or some solver's option ("iters"), with a finite value in its range.
 * Returns 0, or -1 with msg (a usage error: nothing has run). */
int mp_experiment_check_options(const mp_experiment *e, char *msg, size_t cap);
/* Defaults of every field (what an empty JSON object means). */
void mp_experiment_defaults(mp_experiment *e);
void mp_experiment_destroy(mp_experiment *e);
/* Split a CLI list "a,b,c" (graphs, seeds, time limits) into a string
 * list, replacing *out; an empty item is refused (mp_list_split: -1 with a
 * message naming `what`, the option).  Solver chains are never split:
 * "greedy,sa" is one chain, as in `memplan solve`. */
int mp_split_list(const char *what, const char *s, char ***out, int *n, char *msg, size_t cap);
/* Append one string to a list. */
void mp_list_push(char ***l, int *n, const char *s);

/* The value of the token "KEY=VALUE" in a cell's canonical options (tokens
 * separated by single spaces), or NULL: a whole token, so that a solver
 * override such as "x.capacity=1" is not read as the cell's capacity. */
const char *mp_cell_option(const char *options, const char *key);

typedef struct mp_cell {
  char *path;        /* the graph as named by the manifest or the user (key) */
  char *file;        /* where the file is, to run it */
  char *order;       /* order chain (the file order for fixed-lifetime problems) */
  char *place;       /* placer chain */
  uint64_t seed;
  double time_limit; /* seconds, 0 = none */
  char *options;     /* canonical applicable overrides, "" when none */
  char *remat;       /* events solver chain, "" without a recomputation stage */
  char *budget;      /* budget arg ("0.8x" or bytes), "" without remat */
  char *bandwidth;   /* bandwidth arg, "" = the graph's (or without remat) */
  char *key;         /* the sort key: every field above but file */
  char *digest;      /* of the graph file (mp_file_digest) */
  char *fingerprint; /* mp_cell_fingerprint: rows with another one are stale */
} mp_cell;

typedef struct mp_matrix {
  mp_cell *cells;
  int n;
  int n_skipped;     /* pairs dropped by the rules (order solver on a CSV ...) */
} mp_matrix;

/* Expand the experiment into its cells, sorted by key.  Unknown solvers,
 * tags that select nothing and missing files are errors (-1, msg). */
int mp_matrix_build(const mp_experiment *e, mp_matrix *m, char *msg, size_t cap);
void mp_matrix_destroy(mp_matrix *m);
/* Keep the cells of shard i of n: cell k (in key order) belongs to shard
 * k mod n.  The shards of one matrix partition it exactly. */
void mp_matrix_shard(mp_matrix *m, int i, int n);
/* Parse "i/N" (0 <= i < N).  Returns 0 or -1. */
int mp_parse_shard(const char *s, int *i, int *n);
/* Canonical text of a time limit (as used in keys and labels): "0", "2", "0.5". */
void mp_fmt_seconds(double s, char *out, size_t cap);

/* ---------------------------------------------------------------- results */

/* A missing value of an integer column (SQL NULL); doubles use NAN. */
#define MP_NA INT64_MIN

/* One results row: the cell, the DESIGN 1.3 figures and the provenance.
 * Figures are absent (NULL) unless has_fig; any other number is absent when
 * it is MP_NA or NAN (mp_row_init sets every number so). */
typedef struct mp_row {
  char *path, *graph, *order, *place, *options, *status, *message;
  char *order_status, *place_status;   /* per stage, when the solve says */
  char *fingerprint;                   /* graph digest and solver source hashes */
  /* recomputation (key): "" without an events stage */
  char *remat, *budget_arg, *bandwidth_arg;
  char *remat_status;                  /* the events stage's status, when there is one */
  char *version, *machine, *cpu, *started_at, *experiment;
  int64_t nodes, buffers, align;
  uint64_t seed;
  double time_limit;
  bool has_fig;
  int64_t live_peak, arena, sum_sizes, lower_bound;
  double fragmentation, reuse_ratio, profile_std, reduction_vs_given, reduction_vs_noreuse;
  /* timing of the run with the median planning time (of `repeats` runs) */
  double order_ms, place_ms, plan_ms, order_cpu_ms, place_cpu_ms, wall_s;
  int64_t repeats;                     /* timed runs behind the times */
  double plan_ms_min, plan_ms_max;     /* wall-clock planning time over the repeats */
  double plan_cpu_ms, plan_cpu_ms_min; /* CPU planning time: median, min */
  /* recomputation: the request (known without a plan) and DESIGN 6.3's
   * figures of the event plan (absent without a plan) */
  int64_t budget;                      /* bytes, as the solve resolved the budget arg */
  double bandwidth, base_time;         /* the link used (0: none); every node's cost once */
  double duration, overhead, recompute_time, stall_time;
  int64_t recomputed, transferred, residencies;
  double remat_ms, remat_cpu_ms;       /* the events stage's own time (of the median run) */
  int64_t stale_reruns;                /* reruns reading a storage written in place since */
  /* not stored in the results table: */
  int64_t graph_bound;                 /* the graph's independent bound (graphs table) */
  char *bound_kind;                    /* "min-cut" or "max-live" */
  int64_t given_arena, given_align;    /* the graph's baseline (graphs table), at given_align */
  bool given_from_graph;               /* reduction_vs_given was derived from given_arena */
  char *source;                        /* the results file the row was read from */
} mp_row;

void mp_row_init(mp_row *r);  /* empty row: NULL strings, absent numbers */
/* Does a row answer its cell (a plan, a refusal, a proven infeasibility)?
 * Else it is a failure (error, timeout), which --retry-failed reruns. */
bool mp_row_answered(const char *status, bool has_fig);
void mp_row_destroy(mp_row *r);

typedef struct sqlite3 mp_db;

/* Open (creating if needed) a results file for writing: WAL, the memplan
 * tables, older files' missing columns added.  Refused: a file that is not
 * memplan's (foreign tables, views or triggers, another application id),
 * one that fails PRAGMA quick_check, one that cannot be written.  Returns
 * NULL with msg. */
mp_db *mp_db_open(const char *path, char *msg, size_t cap);
void mp_db_close(mp_db *db);
/* Check a results file without writing it (the same refusals). */
int mp_db_check(const char *path, char *msg, size_t cap);
/* Store one row and drop this process's claim on its cell, in one
 * transaction.  replace: overwrite the cell's earlier row, else keep it.
 * 0 or -1 + msg. */
int mp_db_store(mp_db *db, const mp_row *r, bool replace, char *msg, size_t cap);
/* The key of a row, identical to mp_cell.key for the same cell. */
char *mp_row_key(const mp_row *r);

/* What the results file holds for a cell. */
typedef struct mp_cellstate {
  char *key;
  char *status, *fingerprint;
  int64_t rowid, repeats;
  bool has_fig;
} mp_cellstate;
typedef struct mp_keyset {
  mp_cellstate *c;   /* sorted by key */
  int n;
} mp_keyset;
int mp_db_keys(mp_db *db, mp_keyset *ks, char *msg, size_t cap);
/* What bench makes of the row a file holds for a cell, whose fingerprint
 * now is `fingerprint` and which is to be timed `repeat` times: stale (of
 * other solvers or another graph version, or a plan timed fewer times:
 * rerun), failed (rerun by --retry-failed) or current (kept).  Ordered:
 * a rerun's row supersedes a stale one, an answer a failure (merge). */
typedef enum { MP_ROW_STALE, MP_ROW_FAILED, MP_ROW_CURRENT } mp_row_verdict;
mp_row_verdict mp_cellstate_verdict(const mp_cellstate *cs, const char *fingerprint, int repeat);
const mp_cellstate *mp_keyset_find(const mp_keyset *ks, const char *key);
void mp_keyset_destroy(mp_keyset *ks);

/* ---- claims: several bench processes on one results file share its cells.
 * A claim names its owner (host, pid, the pid's start time, boot id); a
 * claim whose owner is gone (same host: no such process; another host: no
 * heartbeat for MP_CLAIM_STALE_S) is stale and is taken over. */
#define MP_CLAIM_STALE_S 300.0
typedef enum { MP_CLAIMED, MP_CLAIM_TAKEN, MP_CLAIM_HANDLED } mp_claim_result;
/* Claim the cell `key` (whose row had rowid expect_rowid, 0: none, when the
 * run started).  MP_CLAIM_HANDLED: another row was written since (by another
 * bench or a merge; a row deleted since is claimed); MP_CLAIM_TAKEN: a live
 * claim of another process.  -1 on error. */
int mp_db_claim(mp_db *db, const mp_row *cell, int64_t expect_rowid, char *msg, size_t cap);
/* Refresh the heartbeat of this process's claims; drop them all. */
int mp_db_heartbeat(mp_db *db, char *msg, size_t cap);
int mp_db_unclaim_all(mp_db *db, char *msg, size_t cap);

/* ---- graphs: one row per graph path, its independent lower bound and the
 * baseline of reduction_vs_given (the given order placed by the baseline
 * placer at the default alignment), with the fingerprint of the solvers
 * that computed it. */
typedef struct mp_graphrow {
  char *path, *graph, *digest, *bound_kind, *message;
  int64_t nodes, buffers, bound;   /* bound MP_NA when it could not be computed */
  int64_t given_arena, given_align; /* MP_NA when the baseline was cut or failed */
  char *given_fingerprint;         /* mp_baseline_fingerprint() of the attempt */
} mp_graphrow;
/* Is the graphs row of path current: the bound computed for this digest,
 * the baseline tried by solvers of this fingerprint (and, with retry_cut,
 * not cut)?  Otherwise the graph's job runs (again). */
bool mp_db_graph_current(mp_db *db, const char *path, const char *digest, const char *given_fp,
                         bool retry_cut);
/* Claim a graph's job as a cell is claimed (MP_CLAIMED, MP_CLAIM_TAKEN,
 * MP_CLAIM_HANDLED: its graphs row became current meanwhile; -1 on error),
 * so that several bench processes on one file compute it once. */
int mp_db_claim_graph(mp_db *db, const char *path, const char *digest, const char *given_fp,
                      bool retry_cut, char *msg, size_t cap);
/* Store a graphs row and drop this process's claim on the graph, in one
 * transaction. */
int mp_db_graph_store(mp_db *db, const mp_graphrow *g, char *msg, size_t cap);
void mp_graphrow_destroy(mp_graphrow *g);

/* Load every row of a results file: SQLite (with each graph's bound), or
 * the CSV that export writes.  Appends to *rows; each row's source is the
 * file name.  Returns 0 or -1 with msg. */
int mp_rows_load(const char *path, mp_row **rows, int *n, char *msg, size_t cap);
void mp_rows_destroy(mp_row *rows, int n);

/* Merge results files into out (resdb_merge.c): one row per cell, an
 * input's row replacing out's when it supersedes it by bench's rerun rule
 * (mp_cellstate_verdict), else the later run, else a fixed order: the same
 * out in any order, merged any number of times; a graph keeps the best of
 * its graphs rows (mp_db_copy_graphs).  Every input is checked first; all
 * rows go in one transaction; a new out is built beside it and put in
 * place only if out is still absent, so a failure leaves no out, never
 * changes an existing one, and nothing that appeared meanwhile is lost.
 * *added: rows written (new cells, or superseding out's row). */
int mp_db_merge(const char *out, const char *const *in, int n_in, int *added, char *msg,
                size_t cap);
/* The results as CSV, sorted by key, every column (and each graph's bound and baseline). */
int mp_db_export_csv(const char *path, FILE *out, char *msg, size_t cap);

/* ---------------------------------------------------------------- graphs */

/* A file's content digest (FNV-1a 64, 16 hex digits); -1 if unreadable. */
int mp_file_digest(const char *path, char out[17]);
/* The fingerprint of the baseline's solvers (file order, baseline placer):
 * "name=hash name=hash" (malloc'ed). */
char *mp_baseline_fingerprint(void);
/* The fingerprint of a cell's solvers ("name=hash ...", sources hashed at
 * build time; order, remat (may be "") and placer chains) preceded by the
 * graph digest ("graph=DIGEST"). */
char *mp_cell_fingerprint(const char *digest, const char *order, const char *remat,
                          const char *place);

/* ---------------------------------------------------------------- runner */

typedef struct mp_bench_opts {
  int jobs;
  const char *results;      /* results file */
  const char *memplan;      /* program run for each cell (default: this one) */
  bool retry_failed;        /* rerun cells whose row says error/timeout (not refused) */
  bool progress;            /* progress line on stderr, redrawn (a terminal) */
  double log_every_s;       /* else a progress line every this many seconds (0: none) */
  bool quiet;
  bool shared_fs;           /* rollback journal instead of WAL (several hosts) */
} mp_bench_opts;

typedef struct mp_bench_stats {
  int total, done_before, stale, run, ok, failed, timeouts, refused;
  int taken;                /* claimed by another bench process, left to it */
  int handled;              /* row written by another process after this one started */
  int bounds;               /* graph bounds computed */
  int interrupted;          /* the signal that stopped the run, or 0 */
  bool started;             /* the run began (the results file opened) */
  double wall_s;
} mp_bench_stats;

int mp_bench_run(const mp_experiment *e, const mp_matrix *m, const mp_bench_opts *o,
                 mp_bench_stats *st, char *msg, size_t cap);
/* `memplan bench --graph-bound FILE [SECONDS]`: the child that computes a
 * graph's facts for the graphs table prints two JSON lines: first the
 * independent bound (min-cut for a graph, max-live for a fixed-lifetime
 * file: {graph, nodes, buffers, bound, bound_kind}), flushed, so that a
 * kill later keeps it; then the baseline at the file's default alignment
 * ({given_arena, given_align}, or {given_message} when baseline_limit_s
 * (> 0) cut it or it failed).  0; -1 with msg when the file cannot be
 * read, -2 when out cannot be written. */
int mp_bench_print_graph_bound(const char *file, double baseline_limit_s, FILE *out, char *msg,
                               size_t cap);

/* The commit the build was made from: `git describe --always` of the source
 * tree, "-dirty" when a file outside results/ differed, "unknown" without
 * git (recorded at build time: build/commit.c, scripts/gen_commit.sh). */
const char *mp_build_commit(void);

/* Provenance recorded in every row. */
const char *mp_version_string(void);  /* $MEMPLAN_VERSION, else mp_build_commit() */
const char *mp_machine_host(void);
const char *mp_machine_cpu(void);

/* ---------------------------------------------------------------- tables */

typedef struct mp_table_opts {
  const char *format;       /* md, latex, csv */
  const char *view;         /* graphs, suite, both (default; csv: graphs), pivot */
  const char *metric;       /* pivot cells: peak, arena, time, status, wall */
  bool best_of_seeds;       /* over seeds the best run (else the lower-median run) */
  bool graph_bound_only;    /* --bound graph: the independent bound, never tightened */
  bool common;              /* only instances every listed solver planned */
  const char *const *solvers;   /* --solver LABEL: these only, in this order */
  int n_solvers;
  const char *const *baselines; /* --baseline LABEL: win/tie/loss against (the best of) them */
  int n_baselines;
  double within;            /* pivot summary: gap threshold (fraction; 0: 1%) */
  bool brief;               /* no explanatory notes (a report explains once) */
  double max_overhead;      /* recomputation: overhead threshold (fraction; 0: 20%) */
} mp_table_opts;

/* Write the tables.  0; 1 when the results contradict a bound (an
 * "optimal" row below the independent bound, a row below a proven
 * optimum): the tables say so and msg names the first; -1 on a usage
 * error (msg). */
int mp_table_write(FILE *out, const mp_row *rows, int n, const mp_table_opts *o, char *msg,
                   size_t cap);

/* Aggregated results of one solver (order + place + limit + options) on one
 * graph, as the tables and the Pareto plot use them. */
typedef struct mp_agg {
  const char *graph;        /* graph name (points into rows) */
  const char *path;
  const char *order, *place, *options;
  const char *source;       /* the results file, when a cell came from several */
  double time_limit;
  const char *label;        /* "greedy+bysize" (+ " @2s" / " [opts]" / " {file}"; owned by the set) */
  int runs, ok, refused;
  bool fixed;               /* fixed-lifetime instance */
  int64_t nodes;            /* of the graph (0: fixed-lifetime; MP_NA: unknown) */
  bool optimal;             /* its arena meets the (checked) arena bound */
  bool order_optimal;       /* its live peak meets the (checked) live-peak bound */
  bool proved, order_proved;/* a run of it claimed that optimum, and the claim checks */
  int64_t live_peak, arena;
  double red_given, red_noreuse, gap, peak_gap, plan_ms, frag, std;
  double ms_lo, ms_hi;      /* planning-time spread: min and max over repeats and seeds */
  double wall_max;          /* the longest child process */
  char statuses[64];        /* the statuses of the runs, '/'-joined */
  int64_t bound;            /* the arena bound the gap uses */
  int64_t peak_bound;       /* the live-peak bound peak_gap uses */
  int64_t graph_bound;      /* the independent bound of the graph (0: none stored) */
  const char *bound_kind;   /* "min-cut", "max-live", or "reported" */
  bool bound_proven;        /* raised above the independent bound by a proven optimum */
  int row0, nrows;          /* (internal) its rows in the aggregation's order */
} mp_agg;

typedef struct mp_agg_opts {
  bool best_of_seeds;
  bool graph_bound_only;
} mp_agg_opts;

typedef struct mp_aggset {
  mp_agg *a;                /* sorted by graph, path, label */
  int n;
  char **issues;            /* results that contradict a bound */
  int n_issues;
  char **sources;           /* the results files, in order of appearance */
  int *source_rows;
  int n_sources;
  bool split_sources;       /* a cell came from several files: kept apart */
  char **labels;            /* the groups' labels (any length) */
  int n_labels;
} mp_aggset;

/* Group rows by graph and solver, compute each graph's bounds and check
 * every claimed optimum against them. */
void mp_aggregate(const mp_row *rows, int n, const mp_agg_opts *o, mp_aggset *out);
/* The planning-time spread of rows ok[0..k): the smallest and largest time
 * of any repeat (a row's own time when it has none); both `fallback` when no
 * row has a time. */
void mp_rows_ms_range(const mp_row *const *ok, int k, double fallback, double *lo, double *hi);
/* Rows p[0..n) sorted so that the rows of one cell (same_cell: its key and
 * seed, the file aside) are adjacent: does some cell come from two files? */
bool mp_rows_cell_in_two_files(const mp_row *const *p, int n,
                               bool (*same_cell)(const mp_row *, const mp_row *));
void mp_aggset_destroy(mp_aggset *s);
/* Is want exactly parts[0] + "+" + parts[1] ... (any lengths)? */
bool mp_label_joins(const char *want, const char *const *parts, int n);
/* Does group g answer to the solver label `want` ("order+place", or the
 * full label with its suffixes)? */
bool mp_agg_matches(const mp_agg *g, const char *want);

/* ---- recomputation tables (table_remat_agg.c) ----
 * Rows of remat cells (an events stage) are grouped apart from the order
 * and placement rows: their live peak may be below every order's (the
 * graph's bound does not apply) and the figures that matter are the event
 * plan's (DESIGN 6.3).  A group is one solver (order + remat + place chains,
 * bandwidth, time limit, options) at one budget on one graph. */

/* Does the row come from a cell with a recomputation stage? */
bool mp_row_is_remat(const mp_row *r);

typedef struct mp_ragg {
  const char *graph, *path, *order, *remat, *place, *options, *source;
  const char *budget_arg, *bandwidth_arg;
  double time_limit;
  const char *label;        /* "given+rotor+bysize" (+ " bw=0" / " @2s" / " [opts]" / " {file}";
                               owned by the set) */
  double frac;              /* the budget as a fraction ("0.8x"), NAN for bytes */
  int runs, ok, refused, infeasible;
  int64_t budget;           /* bytes, the smallest the runs resolved (MP_NA: unknown) */
  int64_t live_peak, arena, recomputed, transferred, floor, stale_reruns;
  double duration, base_time, overhead, stall, recompute_time, plan_ms, remat_ms;
  double ms_lo, ms_hi;      /* planning-time spread over repeats and seeds */
  char statuses[64];        /* the runs' statuses, '/'-joined */
  char remat_statuses[64];  /* the events stage's statuses */
} mp_ragg;

typedef struct mp_raggset {
  mp_ragg *a;               /* sorted by graph, path, label, budget (largest first) */
  int n;
  char **issues;            /* results that contradict a budget or a proof */
  int n_issues;
  char **labels;            /* the groups' labels (any length) */
  int n_labels;
} mp_raggset;

/* Group the remat rows (the others are left out): over seeds every figure
 * of one run with a plan, the lower median by duration (ties: live peak,
 * then seed), or (best_of_seeds) the shortest; times their own medians.
 * Checks: a plan over its budget or below the events floor its run
 * reported, an `infeasible` at a budget some plan of the graph met. */
void mp_remat_aggregate(const mp_row *rows, int n, bool best_of_seeds, mp_raggset *out);
void mp_raggset_destroy(mp_raggset *s);
/* Does group g answer to `want` (the label, or "order+remat+place")? */
bool mp_ragg_matches(const mp_ragg *g, const char *want);
/* Budgets in table order: fractions from the largest, then bytes from the
 * largest (a negative number: a before b). */
int mp_budget_arg_cmp(const char *a, const char *b);

#endif
