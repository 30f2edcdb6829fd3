/* cmd_bench.c - `memplan bench`, `memplan merge`, `memplan export`. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "io.h"
#include "solver.h"

static const char bench_help[] =
    "usage: memplan bench EXPERIMENT.json [options]\n"
    "       memplan bench --graphs TAGS|PATHS [options]     (no experiment file)\n"
    "\n"
    "Run the matrix graphs x order chains x placer chains x seeds x time limits, one child\n"
    "process per cell (`memplan solve --format json`), one row per finished cell in the\n"
    "results file.  Cells already in the results file are skipped: rerun to resume.  Rows of\n"
    "a solver rebuilt since (its source fingerprint changed) or of a changed graph file are\n"
    "stale and run again.  Several bench processes may share one results file: each cell is\n"
    "claimed before it runs.  Experiment files: scripts/experiments/README.md.\n"
    "\n"
    "  --results FILE.sqlite   results file (default results/EXPERIMENT.sqlite)\n"
    "  --jobs N                cells in parallel (default 1)\n"
    "  --shard i/N             run only shard i (0-based) of N: cell k of the sorted matrix\n"
    "                          belongs to shard k mod N\n"
    "  --graphs LIST           manifest tags or graph paths (comma separated); !TAG leaves\n"
    "                          out the graphs with that tag\n"
    "  --manifest FILE         graph manifest (default graphs/SUITE.tsv)\n"
    "  --order CHAIN           an order solver or chain (greedy,sa: sa refines greedy's\n"
    "                          order); repeat the option for several ('all': every one)\n"
    "  --place CHAIN           a placer or chain; repeatable ('all': every placer)\n"
    "  --seeds LIST            seeds, comma separated\n"
    "  --time-limit LIST       seconds per cell, comma separated (0: none)\n"
    "  --repeat N              run each cell N times: median, min and max planning time\n"
    "  --mem-limit MB          address-space cap of each cell (0: none)\n"
    "  --grace S               kill a cell at time limit + S seconds (default 5)\n"
    "  --set [SOLVER.]OPT=VAL  solver option for the cells whose solvers have it (repeatable)\n"
    "  --align A               offset alignment\n"
    "  --capacity C            every cell asks for a fit in C bytes (solve --capacity)\n"
    "  --retry-failed          rerun cells whose row says error or timeout (not refused)\n"
    "  --list                  print the cells (after --shard) and exit\n"
    "  --memplan PROGRAM       program run for each cell (default: this memplan)\n"
    "  --shared-fs             the results file is shared by several machines: SQLite's\n"
    "                          rollback journal instead of WAL (which needs one host)\n"
    "  --progress-every S      without a terminal, a progress line every S seconds (30)\n"
    "  --quiet                 no per-failure lines, no progress\n";

static int usage_err(const char *what) {
  fprintf(stderr, "memplan bench: %s\n(memplan bench --help)\n", what);
  return MP_EXIT_USAGE;
}

/* Strict numbers: the whole text, finite, in range. */
static int parse_real(const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int parse_u64(const char *s, uint64_t *out) {
  if (!*s || !isdigit((unsigned char)*s)) return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno) return -1;
  *out = (uint64_t)v;
  return 0;
}

static int parse_doubles(const char *s, double **out, int *n) {
  char **l = NULL;
  int k = 0, bad = 0;
  if (mp_split_list(s, &l, &k)) return -1;
  double *v = mp_xmalloc(sizeof(double) * (size_t)k);
  for (int i = 0; i < k; i++) {
    if (parse_real(l[i], 0, 1e9, &v[i])) bad = 1;
    free(l[i]);
  }
  free(l);
  if (bad) {
    free(v);
    return -1;
  }
  free(*out);
  *out = v;
  *n = k;
  return 0;
}

static int parse_seeds(const char *s, mp_experiment *e) {
  char **l = NULL;
  int k = 0, bad = 0;
  if (mp_split_list(s, &l, &k)) return -1;
  uint64_t *v = mp_xmalloc(sizeof(uint64_t) * (size_t)k);
  for (int i = 0; i < k; i++) {
    if (parse_u64(l[i], &v[i])) bad = 1;
    free(l[i]);
  }
  free(l);
  if (bad) {
    free(v);
    return -1;
  }
  free(e->seeds);
  e->seeds = v;
  e->n_seeds = k;
  return 0;
}

/* --order/--place: the first use replaces the experiment's list, later ones
 * add to it; a chain is one value ("greedy,sa"). */
static int add_chain(const char *v, bool *replaced, char ***l, int *n) {
  if (!v[0] || strchr(v, ':') || strchr(v, ' ')) return -1;
  if (!*replaced) {
    for (int i = 0; i < *n; i++) free((*l)[i]);
    free(*l);
    *l = NULL;
    *n = 0;
    *replaced = true;
  }
  mp_list_push(l, n, v);
  return 0;
}

typedef struct bench_cli {
  mp_bench_opts o;
  double progress_every;
  const char *results, *shard;
  bool list, order_set, place_set;
  char **sets;              /* --set values, in order */
  int n_sets;
  char msg[1024];
} bench_cli;

/* One option at argv[*i] (value at argv[*i + 1]); 0, or an exit code. */
static int bench_option(int argc, char **argv, int *i, mp_experiment *e, bench_cli *c) {
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  static const char *const flags[] = {"--retry-failed", "--list", "--quiet", "--shared-fs", NULL};
  bool is_flag = false;
  for (int k = 0; flags[k]; k++) is_flag |= !strcmp(a, flags[k]);
  if (is_flag) {
    if (!strcmp(a, "--retry-failed")) c->o.retry_failed = true;
    if (!strcmp(a, "--list")) c->list = true;
    if (!strcmp(a, "--quiet")) c->o.quiet = true;
    if (!strcmp(a, "--shared-fs")) c->o.shared_fs = true;
    return 0;
  }
  if (a[0] != '-' || a[1] != '-') {
    snprintf(c->msg, sizeof c->msg, "unexpected argument '%s'", a);
    return usage_err(c->msg);
  }
  if (!v) {
    snprintf(c->msg, sizeof c->msg, "%s needs a value", a);
    return usage_err(c->msg);
  }
  (*i)++;
  double x;
  uint64_t u;
  int bad = 0;
  if (!strcmp(a, "--results")) c->results = v;
  else if (!strcmp(a, "--shard")) c->shard = v;
  else if (!strcmp(a, "--memplan")) c->o.memplan = v;
  else if (!strcmp(a, "--progress-every")) bad = parse_real(v, 0.01, 1e6, &c->progress_every);
  else if (!strcmp(a, "--jobs")) bad = parse_real(v, 1, 1024, &x) || x != (int)x || !(c->o.jobs = (int)x);
  else if (!strcmp(a, "--graphs")) {
    bad = mp_split_list(v, &e->graphs, &e->n_graphs);
    free(e->graphs_base); /* command-line paths: from the working directory */
    e->graphs_base = NULL;
  } else if (!strcmp(a, "--manifest")) {
    free(e->manifest);
    e->manifest = mp_xstrdup(v);
  } else if (!strcmp(a, "--order")) bad = add_chain(v, &c->order_set, &e->order, &e->n_order);
  else if (!strcmp(a, "--place")) bad = add_chain(v, &c->place_set, &e->place, &e->n_place);
  else if (!strcmp(a, "--seeds")) bad = parse_seeds(v, e);
  else if (!strcmp(a, "--time-limit")) bad = parse_doubles(v, &e->time_limits, &e->n_time_limits);
  else if (!strcmp(a, "--mem-limit")) bad = parse_real(v, 0, 1e12, &e->mem_limit_mb);
  else if (!strcmp(a, "--grace")) bad = parse_real(v, 0, 1e9, &e->grace_s);
  else if (!strcmp(a, "--repeat")) bad = parse_real(v, 1, 1000, &x) || x != (int)x || !(e->repeat = (int)x);
  else if (!strcmp(a, "--capacity")) bad = parse_u64(v, &u) || u < 1 || u > ((uint64_t)1 << 62) || !(e->capacity = (int64_t)u);
  else if (!strcmp(a, "--align")) bad = parse_u64(v, &u) || u < 1 || u > ((uint64_t)1 << 40) || !(e->align = (int64_t)u);
  else if (!strcmp(a, "--set")) {
    c->sets = mp_xrealloc(c->sets, sizeof(char *) * (size_t)(c->n_sets + 1));
    c->sets[c->n_sets++] = mp_xstrdup(v);
  } else {
    snprintf(c->msg, sizeof c->msg, "unknown option '%s'", a);
    return usage_err(c->msg);
  }
  if (bad) {
    if (!strcmp(a, "--order") || !strcmp(a, "--place"))
      snprintf(c->msg, sizeof c->msg, "bad value '%s' for %s (one chain per option, written "
               "greedy,sa; repeat %s for several)", v, a, a);
    else
      snprintf(c->msg, sizeof c->msg, "bad value '%s' for %s", v, a);
    return usage_err(c->msg);
  }
  return 0;
}

/* CLI overrides replace the experiment's value of the same option. */
static void apply_sets(mp_experiment *e, bench_cli *c) {
  for (int i = 0; i < c->n_sets; i++) {
    size_t nl = strcspn(c->sets[i], "=");
    for (int k = 0; k < e->n_sets; k++)
      if (strlen(e->sets[k]) > nl && !strncmp(e->sets[k], c->sets[i], nl) && e->sets[k][nl] == '=') {
        free(e->sets[k]);
        e->sets[k--] = e->sets[--e->n_sets];
      }
    mp_list_push(&e->sets, &e->n_sets, c->sets[i]);
  }
}

/* A --set typed on the command line must reach some cell. */
static int sets_reach_cells(const bench_cli *c, const mp_matrix *m, char *msg, size_t cap) {
  for (int i = 0; i < c->n_sets; i++) {
    bool used = false;
    for (int k = 0; k < m->n && !used; k++) {
      const char *o = m->cells[k].options;
      size_t l = strlen(c->sets[i]);
      for (const char *p = strstr(o, c->sets[i]); p && !used; p = strstr(p + 1, c->sets[i]))
        used = (p == o || p[-1] == ' ') && (p[l] == 0 || p[l] == ' ');
    }
    if (!used) {
      snprintf(msg, cap, "--set %s: no solver of this experiment has that option", c->sets[i]);
      return -1;
    }
  }
  return 0;
}

static void print_cells(const mp_matrix *m) {
  char t[64];
  for (int i = 0; i < m->n; i++) {
    mp_fmt_seconds(m->cells[i].time_limit, t, sizeof t);
    printf("%s\t%s\t%s\t%llu\t%s\t%s\n", m->cells[i].path, m->cells[i].order, m->cells[i].place,
           (unsigned long long)m->cells[i].seed, t, m->cells[i].options);
  }
}

static void print_summary(const mp_experiment *e, const mp_matrix *m, int total, int si, int sn,
                          const mp_bench_stats *st, const char *results) {
  if (sn > 1)
    printf("bench %s shard %d/%d: %d of %d cells", e->name, si, sn, m->n, total);
  else
    printf("bench %s: %d cells", e->name, m->n);
  printf(" (%d skipped by the rules), %d already done, %d run: %d ok, %d failed (%d killed at "
         "the time limit), %d refused",
         m->n_skipped, st->done_before, st->run, st->ok, st->failed, st->timeouts, st->refused);
  if (st->stale) printf("; %d stale rows rerun", st->stale);
  if (st->taken) printf("; %d left to another bench process", st->taken);
  if (st->handled) printf("; %d run by another bench process", st->handled);
  if (st->bounds) printf("; %d graph bounds", st->bounds);
  printf("; %.1f s; results in %s\n", st->wall_s, results);
  fflush(stdout);
}

/* Run the bench; the summary only once the run began. */
static int run_bench(mp_experiment *e, mp_matrix *m, bench_cli *c, int total, int si, int sn) {
  char defres[1024];
  if (!c->results) {
    mkdir("results", 0755);
    snprintf(defres, sizeof defres, "results/%s.sqlite", e->name);
    c->results = defres;
  }
  c->o.results = c->results;
  c->o.progress = !c->o.quiet && isatty(2);
  c->o.log_every_s = !c->o.quiet && !c->o.progress ? (c->progress_every > 0 ? c->progress_every : 30) : 0;
  mp_bench_stats st;
  int r = mp_bench_run(e, m, &c->o, &st, c->msg, sizeof c->msg);
  if (st.started) print_summary(e, m, total, si, sn, &st, c->results);
  if (!r) return MP_EXIT_OK;
  fprintf(stderr, "memplan bench: %s\n", c->msg);
  return st.interrupted ? 128 + st.interrupted : MP_EXIT_INPUT;
}

static int graph_bound_child(int argc, char **argv) {
  if (argc != 3) return usage_err("--graph-bound FILE");
  char msg[1024];
  if (mp_bench_print_graph_bound(argv[2], stdout, msg, sizeof msg)) {
    fprintf(stderr, "memplan bench: %s\n", msg);
    return MP_EXIT_INPUT;
  }
  return fflush(stdout) ? MP_EXIT_INPUT : MP_EXIT_OK;
}

int mp_cmd_bench(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(bench_help, stdout);
      return MP_EXIT_OK;
    }
  if (argc > 1 && !strcmp(argv[1], "--graph-bound")) return graph_bound_child(argc, argv);
  mp_experiment e;
  bench_cli c;
  memset(&c, 0, sizeof c);
  c.o.jobs = 1;
  int first = 1, rc = MP_EXIT_OK;
  if (argc > 1 && argv[1][0] != '-') {
    if (mp_experiment_load(argv[1], &e, c.msg, sizeof c.msg)) {
      fprintf(stderr, "memplan bench: %s\n", c.msg);
      mp_experiment_free(&e);
      return MP_EXIT_INPUT;
    }
    first = 2;
  } else {
    mp_experiment_defaults(&e);
  }
  for (int i = first; i < argc && !rc; i++) rc = bench_option(argc, argv, &i, &e, &c);
  int si = 0, sn = 1;
  if (!rc && c.shard && mp_parse_shard(c.shard, &si, &sn))
    rc = usage_err("--shard takes i/N with 0 <= i < N");
  if (!rc) {
    apply_sets(&e, &c);
    if (mp_experiment_check_options(&e, c.msg, sizeof c.msg)) rc = usage_err(c.msg);
  }
  mp_matrix m;
  memset(&m, 0, sizeof m);
  if (!rc && mp_matrix_build(&e, &m, c.msg, sizeof c.msg)) {
    fprintf(stderr, "memplan bench: %s\n", c.msg);
    rc = MP_EXIT_INPUT;
  }
  if (!rc && sets_reach_cells(&c, &m, c.msg, sizeof c.msg)) rc = usage_err(c.msg);
  if (!rc) {
    int total = m.n;
    mp_matrix_shard(&m, si, sn);
    if (c.list)
      print_cells(&m);
    else
      rc = run_bench(&e, &m, &c, total, si, sn);
  }
  mp_matrix_free(&m);
  for (int i = 0; i < c.n_sets; i++) free(c.sets[i]);
  free(c.sets);
  mp_experiment_free(&e);
  return rc;
}

int mp_cmd_merge(int argc, char **argv) {
  bool help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
  if (argc < 3 || help) {
    fputs("usage: memplan merge OUT.sqlite IN.sqlite...\n"
          "Add the rows (and graph bounds) of every IN to OUT (created if needed).  Idempotent:\n"
          "a cell already in OUT keeps its row, so merging twice adds nothing and no cell\n"
          "appears twice.  Every IN is checked first (a memplan results file that passes\n"
          "PRAGMA quick_check); all rows go in one transaction, and a new OUT is built beside\n"
          "it and renamed into place: a failure leaves no OUT and never changes an existing one.\n",
          help ? stdout : stderr);
    return help ? MP_EXIT_OK : MP_EXIT_USAGE;
  }
  char msg[1024];
  int added;
  for (int i = 2; i < argc; i++)
    if (access(argv[i], R_OK)) {
      fprintf(stderr, "memplan merge: %s: cannot read\n", argv[i]);
      return MP_EXIT_INPUT;
    }
  if (mp_db_merge(argv[1], (const char *const *)argv + 2, argc - 2, &added, msg, sizeof msg)) {
    fprintf(stderr, "memplan merge: %s\n", msg);
    return MP_EXIT_INPUT;
  }
  printf("merged %d files into %s: %d new rows\n", argc - 2, argv[1], added);
  return MP_EXIT_OK;
}

int mp_cmd_export(int argc, char **argv) {
  const char *in = NULL, *out = "-";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      puts("usage: memplan export RESULTS.sqlite [--format csv] [--out FILE]\n"
           "Every row and column of a results file as CSV, sorted by the cell key.");
      return MP_EXIT_OK;
    } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
      if (strcmp(argv[++i], "csv")) {
        fprintf(stderr, "memplan export: only --format csv\n");
        return MP_EXIT_USAGE;
      }
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      out = argv[++i];
    } else if (argv[i][0] != '-' && !in) {
      in = argv[i];
    } else {
      fprintf(stderr, "memplan export: bad argument '%s'\n", argv[i]);
      return MP_EXIT_USAGE;
    }
  }
  if (!in) {
    fprintf(stderr, "usage: memplan export RESULTS.sqlite [--format csv] [--out FILE]\n");
    return MP_EXIT_USAGE;
  }
  mp_outfile of;
  mp_error err;
  if (mp_out_open(&of, out, &err)) {
    fprintf(stderr, "memplan export: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  char msg[1024];
  if (mp_db_export_csv(in, of.fp, msg, sizeof msg)) {
    mp_out_abort(&of);
    fprintf(stderr, "memplan export: %s\n", msg);
    return MP_EXIT_INPUT;
  }
  if (mp_out_commit(&of, &err)) {
    fprintf(stderr, "memplan export: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  return MP_EXIT_OK;
}

static const char table_help[] =
    "usage: memplan table RESULTS... [--format md|latex|csv] [--view graphs|suite|both|pivot]\n"
    "                    [--agg median|best] [--graph NAME] [--out FILE]\n"
    "                    [--solver LABEL]... [--baseline LABEL]... [--common]\n"
    "                    [--bound raised|graph] [--metric peak|arena|time|status|wall|frag]\n"
    "                    [--within PCT] [--brief]\n"
    "Tables from results files (SQLite, or the CSV of memplan export): per graph and solver\n"
    "the live peak, arena, reductions against the given order + the baseline placer and\n"
    "against no reuse, gap to the graph's bound, planning time (median, and its range over\n"
    "repeats and seeds), fragmentation and profile std-dev (graphs view); wins and geometric\n"
    "means across the suite (suite view); graphs x solvers, one metric (pivot view).\n"
    "Over seeds: the lower median (default) or the best run.  Bold marks the best entry;\n"
    "times whose ranges meet the fastest one's are a tie.\n"
    "\n"
    "  --solver LABEL     only this solver (ORDER+PLACE as in the tables, or the full label);\n"
    "                     repeatable, and the pivot's columns follow this order\n"
    "  --baseline LABEL   win/tie/loss against it (suite view), change against it (pivot);\n"
    "                     repeated: against the best of them on each graph\n"
    "  --common           only the instances every listed solver planned\n"
    "  --bound graph      the gap uses each graph's independent bound only (min-cut;\n"
    "                     max-live for fixed-lifetime problems); default raised: raised to a\n"
    "                     proven optimum that checks against it\n"
    "  --metric M         pivot cells (default arena)\n"
    "  --within PCT       pivot summary: solvers within PCT %% of the bound (default 1)\n"
    "  --brief            no explanatory notes above the tables (a report says them once)\n"
    "Exit 1 when results contradict a bound (an optimum claimed below it): the tables list them.\n";

typedef struct table_cli {
  mp_table_opts o;
  const char *out, *only;
  const char **in, **solvers, **baselines;
  int nin;
} table_cli;

static int table_option(int argc, char **argv, int *i, table_cli *c) {
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  if (!strcmp(a, "--common") || !strcmp(a, "--brief")) {
    c->o.common |= !strcmp(a, "--common");
    c->o.brief |= !strcmp(a, "--brief");
    return 0;
  }
  if (a[0] != '-') {
    c->in[c->nin++] = a;
    return 0;
  }
  static const char *const with_value[] = {"--format", "--view", "--agg", "--graph", "--out",
                                           "--solver", "--baseline", "--bound", "--metric",
                                           "--within", NULL};
  int k = 0;
  while (with_value[k] && strcmp(with_value[k], a)) k++;
  if (!with_value[k] || !v) {
    fprintf(stderr, "memplan table: %s '%s'\n(memplan table --help)\n",
            with_value[k] ? "a value is needed after" : "bad option", a);
    return MP_EXIT_USAGE;
  }
  (*i)++;
  double x;
  if (!strcmp(a, "--format")) c->o.format = v;
  else if (!strcmp(a, "--view")) c->o.view = v;
  else if (!strcmp(a, "--metric")) c->o.metric = v;
  else if (!strcmp(a, "--graph")) c->only = v;
  else if (!strcmp(a, "--out")) c->out = v;
  else if (!strcmp(a, "--solver")) c->solvers[c->o.n_solvers++] = v;
  else if (!strcmp(a, "--baseline")) c->baselines[c->o.n_baselines++] = v;
  else if (!strcmp(a, "--agg") && (!strcmp(v, "median") || !strcmp(v, "best")))
    c->o.best_of_seeds = !strcmp(v, "best");
  else if (!strcmp(a, "--bound") && (!strcmp(v, "graph") || !strcmp(v, "raised")))
    c->o.graph_bound_only = !strcmp(v, "graph");
  else if (!strcmp(a, "--within") && !parse_real(v, 0, 1000, &x))
    c->o.within = x / 100;
  else {
    fprintf(stderr, "memplan table: bad value '%s' for %s\n", v, a);
    return MP_EXIT_USAGE;
  }
  return 0;
}

static void keep_graph(mp_row *rows, int *n, const char *only) {
  int w = 0;
  for (int i = 0; i < *n; i++) {
    if ((rows[i].graph && !strcmp(rows[i].graph, only)) || !strcmp(rows[i].path, only))
      rows[w++] = rows[i];
    else
      mp_row_free(&rows[i]);
  }
  *n = w;
}

/* Write the tables atomically; rc 1 (results that contradict a bound) still
 * writes them. */
static int table_output(table_cli *c, const mp_row *rows, int n) {
  mp_outfile of;
  mp_error err;
  char msg[1024];
  if (mp_out_open(&of, c->out, &err)) {
    fprintf(stderr, "memplan table: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  int r = mp_table_write(of.fp, rows, n, &c->o, msg, sizeof msg);
  if (r < 0) {
    mp_out_abort(&of);
    fprintf(stderr, "memplan table: %s\n", msg);
    return MP_EXIT_USAGE;
  }
  if (mp_out_commit(&of, &err)) {
    fprintf(stderr, "memplan table: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  if (r > 0) {
    fprintf(stderr, "memplan table: results contradict a bound: %s\n", msg);
    return MP_EXIT_INPUT;
  }
  return MP_EXIT_OK;
}

int mp_cmd_table(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(table_help, stdout);
      return MP_EXIT_OK;
    }
  table_cli c;
  memset(&c, 0, sizeof c);
  c.out = "-";
  c.in = mp_xmalloc(sizeof(char *) * (size_t)argc);
  c.solvers = mp_xmalloc(sizeof(char *) * (size_t)argc);
  c.baselines = mp_xmalloc(sizeof(char *) * (size_t)argc);
  int rc = MP_EXIT_OK;
  for (int i = 1; i < argc && !rc; i++) rc = table_option(argc, argv, &i, &c);
  c.o.solvers = c.solvers;
  c.o.baselines = c.baselines;
  if (!rc && !c.nin) {
    fputs(table_help, stderr);
    rc = MP_EXIT_USAGE;
  }
  mp_row *rows = NULL;
  int n = 0;
  char msg[1024];
  for (int i = 0; i < c.nin && !rc; i++)
    if (mp_rows_load(c.in[i], &rows, &n, msg, sizeof msg)) {
      fprintf(stderr, "memplan table: %s\n", msg);
      rc = MP_EXIT_INPUT;
    }
  if (!rc && c.only) keep_graph(rows, &n, c.only);
  if (!rc) rc = table_output(&c, rows, n);
  mp_rows_free(rows, n);
  free(c.in);
  free(c.solvers);
  free(c.baselines);
  return rc;
}
