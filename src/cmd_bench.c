/* cmd_bench.c - `memplan bench`, `memplan merge`, `memplan export`,
 * `memplan table`: parse the arguments, run them through the public API
 * (memplan.h), choose the exit code. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_args.h"
#include "memplan.h"

static const char bench_help[] =
    "usage: memplan bench EXPERIMENT.json [options]\n"
    "       memplan bench --graphs TAGS|PATHS [options]     (no experiment file)\n"
    "\n"
    "Run the matrix graphs x order chains x placer chains x seeds x time limits, one child\n"
    "process per cell (`memplan solve --format json`), one row per finished cell in the\n"
    "results file.  Cells already in the results file are skipped: rerun to resume.  Rows of\n"
    "a solver rebuilt since (its source fingerprint changed) or of a changed graph file are\n"
    "stale and run again.  Several bench processes may share one results file: each cell is\n"
    "claimed before it runs.  SIGINT or SIGTERM (scancel) stops the run: no row for the cells\n"
    "in flight, exit 130 or 143, rerun to resume; so does a solver dying of SIGTERM, SIGINT\n"
    "or SIGHUP (bench never sends them: a stop request, not a solver failure).  A TMPDIR\n"
    "that cannot take the children's output (full) stops the run with that error, no row.\n"
    "Experiment files: scripts/experiments/README.md.\n"
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
    "  --remat CHAIN           a recomputation/offload (events) solver or chain between the\n"
    "                          order and the placer; repeatable ('all': every one; 'none':\n"
    "                          cells without one); needs --budgets (or the file's)\n"
    "  --budgets LIST          budgets of the remat cells, comma separated: 0.8x (a fraction\n"
    "                          of the live peak of the order handed to the stage) or bytes\n"
    "  --bandwidth LIST        host link of the remat cells, bytes per cost unit (0: no\n"
    "                          offload; graph: the graph's host_bandwidth, the default)\n"
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
    "  --memplan PROGRAM       program run for each cell (default: this memplan); another one\n"
    "                          is asked for its plan (--out) and its figures must be those\n"
    "                          memplan's verifier recomputes from that plan\n"
    "  --shared-fs             the results file is shared by several machines: SQLite's\n"
    "                          rollback journal instead of WAL (which needs one host)\n"
    "  --progress-every S      without a terminal, a progress line every S seconds (30)\n"
    "  --quiet                 no per-failure lines, no progress\n";

static int usage_err(const char *what) {
  fprintf(stderr, "memplan bench: %s\n(memplan bench --help)\n", what);
  return MP_EXIT_USAGE;
}

/* A number in [lo, hi], read exactly. */
static int parse_real(const char *s, double lo, double hi, double *out) {
  double v;
  if (memplan_parse_real(s, &v, NULL) || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

typedef struct bench_cli {
  memplan_bench_opts o;
  double progress_every;
  bool list, order_set, place_set, remat_set;
  bool graphs_given, budgets_given; /* typed here (adhoc_check) */
  const char *remat_chain;           /* the first --remat other than none, typed here */
  const char **sets;        /* --set values typed here (each must reach a cell) */
  int n_sets;
  mp_seen seen;             /* the single-valued options given */
  char msg[1024];
} bench_cli;

/* The options of the run itself (not of the experiment): 1 when `a` is not
 * one of them, else 0 or -1 (a bad value). */
static int run_option(const char *a, const char *v, bench_cli *c) {
  double x;
  if (!strcmp(a, "--results")) c->o.results = v;
  else if (!strcmp(a, "--memplan")) c->o.memplan = v;
  else if (!strcmp(a, "--progress-every")) return parse_real(v, 0.01, 1e6, &c->progress_every);
  else if (!strcmp(a, "--jobs")) {
    if (parse_real(v, 1, MEMPLAN_MAX_JOBS, &x) || x != (int)x) return -1;
    c->o.jobs = (int)x;
  } else
    return 1;
  return 0;
}

/* Change a setting of the experiment: the first --order, --place or --remat
 * replaces the experiment's chains, later ones add to them. */
static int experiment_option(const char *a, const char *v, memplan_experiment *e, bench_cli *c) {
  bool *seen = !strcmp(a, "--order") ? &c->order_set
               : !strcmp(a, "--place") ? &c->place_set
               : !strcmp(a, "--remat") ? &c->remat_set : NULL;
  memplan_error err;
  if (memplan_experiment_set(e, a + 2, v, seen && *seen, &err)) return usage_err(err.msg);
  if (seen) *seen = true;
  if (!strcmp(a, "--set")) c->sets[c->n_sets++] = v;
  if (!strcmp(a, "--graphs")) c->graphs_given = true;
  if (!strcmp(a, "--remat") && strcmp(v, "none") && !c->remat_chain) c->remat_chain = v;
  if (!strcmp(a, "--budgets") || !strcmp(a, "--bandwidth")) c->budgets_given = true;
  return 0;
}

/* Without an experiment file every setting is the command line's: what is
 * missing or does not fit is a usage error, said in the options' names
 * (the matrix builder says it in the file's keys, as bad input). */
static int adhoc_check(const bench_cli *c) {
  char msg[256];
  if (!c->graphs_given) return usage_err("no experiment file and no --graphs: give one");
  if (c->remat_chain && !c->budgets_given) {
    snprintf(msg, sizeof msg, "--remat %.200s needs --budgets (0.8x or bytes)", c->remat_chain);
    return usage_err(msg);
  }
  if (c->budgets_given && !c->remat_chain)
    return usage_err("--budgets and --bandwidth need --remat CHAIN (events solvers)");
  return MP_EXIT_OK;
}

/* One option at argv[*i] (value after '=' or at argv[*i + 1]); 0, or an
 * exit code. */
static int bench_option(int argc, char **argv, int *i, memplan_experiment *e, bench_cli *c) {
  mp_opt opt;
  mp_opt_read(argc, argv, *i, &opt);
  const char *a = opt.name, *v = opt.value;
  static const char *const flags[] = {"--retry-failed", "--list", "--quiet", "--shared-fs", NULL};
  bool is_flag = false;
  for (int k = 0; flags[k]; k++) is_flag |= !strcmp(a, flags[k]);
  if (is_flag) {
    if (mp_opt_flag("bench", &opt)) return MP_EXIT_USAGE;
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
  static const char *const valued[] = {
      "--results", "--jobs", "--shard", "--graphs", "--manifest", "--order", "--place",
      "--remat", "--budgets", "--bandwidth", "--seeds", "--time-limit", "--repeat", "--mem-limit",
      "--grace", "--set", "--align", "--capacity", "--memplan", "--progress-every", NULL};
  int known = -1;
  for (int k = 0; valued[k]; k++)
    if (!strcmp(a, valued[k])) known = k;
  if (known < 0) { /* not "needs a value": the name is what is wrong */
    snprintf(c->msg, sizeof c->msg, "unknown option '%s'", a);
    return usage_err(c->msg);
  }
  if (!v) {
    snprintf(c->msg, sizeof c->msg, "%s needs a value", a);
    return usage_err(c->msg);
  }
  mp_opt_take(&opt, i);
  if (mp_opt_once("bench", &c->seen, " --order --place --remat --set ", valued[known], v))
    return MP_EXIT_USAGE;
  int r = run_option(a, v, c);
  if (r > 0) return experiment_option(a, v, e, c);
  if (r < 0) {
    snprintf(c->msg, sizeof c->msg, "bad value '%s' for %s", v, a);
    return usage_err(c->msg);
  }
  return 0;
}

/* A --set typed on the command line must reach some cell. */
static int sets_reach_cells(const bench_cli *c, const memplan_matrix *m, int n, char *msg,
                            size_t cap) {
  for (int i = 0; i < c->n_sets; i++) {
    bool used = false;
    size_t l = strlen(c->sets[i]);
    for (int k = 0; k < n && !used; k++) {
      memplan_cell cell;
      memplan_matrix_cell(m, k, &cell);
      const char *o = cell.options;
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

/* One line per cell: path, order, place, seed, time limit, options; a
 * remat cell adds its chain, budget and bandwidth. */
static void print_cells(const memplan_matrix *m, int n) {
  for (int i = 0; i < n; i++) {
    memplan_cell c;
    memplan_matrix_cell(m, i, &c);
    printf("%s\t%s\t%s\t%llu\t%.6g\t%s", c.path, c.order, c.place,
           (unsigned long long)c.seed, c.time_limit, c.options);
    if (c.remat[0]) printf("\t%s\t%s\t%s", c.remat, c.budget, c.bandwidth);
    putchar('\n');
  }
}

static void print_summary(const char *name, const memplan_matrix_info *mi,
                          const memplan_bench_stats *st, const char *results) {
  if (mi->shards > 1)
    printf("bench %s shard %d/%d: %d of %d cells", name, mi->shard, mi->shards, mi->cells,
           mi->total);
  else
    printf("bench %s: %d cells", name, mi->cells);
  printf(" (%d skipped by the rules), %d already done, %d run: %d ok, %d failed (%d at the time "
         "limit), %d refused",
         mi->skipped, st->done_before, st->run, st->ok, st->failed, st->timeouts, st->refused);
  if (st->stale) printf("; %d stale rows rerun", st->stale);
  if (st->taken) printf("; %d left to another bench process", st->taken);
  if (st->handled) printf("; %d stored meanwhile by another process", st->handled);
  if (st->bounds) printf("; %d graph bounds", st->bounds);
  printf("; %.1f s; results in %s\n", st->wall_s, results);
  fflush(stdout);
}

/* Run the bench; the summary only once the run began. */
static int run_bench(const memplan_experiment *e, const memplan_matrix *m, bench_cli *c) {
  char defres[1024];
  if (!c->o.results) {
    mkdir("results", 0755);
    snprintf(defres, sizeof defres, "results/%s.sqlite", memplan_experiment_name(e));
    c->o.results = defres;
  }
  c->o.progress = !c->o.quiet && isatty(2);
  c->o.log_every_s =
      !c->o.quiet && !c->o.progress ? (c->progress_every > 0 ? c->progress_every : 30) : 0;
  memplan_bench_stats st;
  memplan_error err;
  memplan_err r = memplan_bench_run(e, m, &c->o, &st, &err);
  memplan_matrix_info mi;
  memplan_matrix_info_get(m, &mi);
  if (st.started) print_summary(memplan_experiment_name(e), &mi, &st, c->o.results);
  if (!r) return MP_EXIT_OK;
  fprintf(stderr, "memplan bench: %s\n", err.msg);
  return st.interrupted ? 128 + st.interrupted : r == MEMPLAN_EUSAGE ? MP_EXIT_USAGE : MP_EXIT_INPUT;
}

static int graph_bound_child(int argc, char **argv) {
  if (argc != 3 && argc != 4) return usage_err("--graph-bound FILE [BASELINE_SECONDS]");
  double limit = 0; /* the baseline's allowance; 0: none */
  if (argc == 4 && mp_arg_real("bench", "--graph-bound", argv[3], 0, 1e9, &limit))
    return MP_EXIT_USAGE;
  memplan_error err;
  if (memplan_bench_graph_bound(argv[2], limit, stdout, &err)) {
    fprintf(stderr, "memplan bench: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  return fflush(stdout) ? MP_EXIT_INPUT : MP_EXIT_OK;
}

/* The experiment with the command line's changes, its matrix, then the
 * list or the run. */
static int bench(int argc, char **argv, memplan_experiment *e, bench_cli *c) {
  int first = argc > 1 && argv[1][0] != '-' ? 2 : 1, rc = MP_EXIT_OK;
  for (int i = first; i < argc && !rc; i++) rc = bench_option(argc, argv, &i, e, c);
  if (!rc && first == 1) rc = adhoc_check(c);
  if (rc) return rc;
  memplan_matrix *m;
  memplan_error err;
  memplan_err me = memplan_matrix_build(&m, e, &err);
  if (me == MEMPLAN_EUSAGE) return usage_err(err.msg);
  if (me) {
    fprintf(stderr, "memplan bench: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  memplan_matrix_info mi;
  memplan_matrix_info_get(m, &mi);
  if (sets_reach_cells(c, m, mi.cells, c->msg, sizeof c->msg))
    rc = usage_err(c->msg);
  else if (c->list)
    print_cells(m, mi.cells);
  else
    rc = run_bench(e, m, c);
  memplan_matrix_destroy(m);
  return rc;
}

int mp_cmd_bench(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(bench_help, stdout);
      return MP_EXIT_OK;
    }
  if (argc > 1 && !strcmp(argv[1], "--graph-bound")) return graph_bound_child(argc, argv);
  memplan_experiment *e;
  memplan_error err;
  if (memplan_experiment_load(&e, argc > 1 && argv[1][0] != '-' ? argv[1] : NULL, &err)) {
    fprintf(stderr, "memplan bench: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  bench_cli c;
  memset(&c, 0, sizeof c);
  memplan_bench_opts_init(&c.o);
  c.sets = malloc(sizeof(char *) * (size_t)argc);
  int rc = c.sets ? bench(argc, argv, e, &c) : MP_EXIT_INPUT;
  free(c.sets);
  memplan_experiment_destroy(e);
  return rc;
}

int mp_cmd_merge(int argc, char **argv) {
  bool help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
  if (argc < 3 || help) {
    fputs("usage: memplan merge OUT.sqlite IN.sqlite...\n"
          "Add the rows (and graph bounds) of every IN to OUT (created if needed).  One row per\n"
          "cell: an IN's row goes in when OUT has none for its cell, or when it supersedes OUT's\n"
          "by the rule bench reruns a cell by: a row of this build's solvers over a stale one (of\n"
          "other solver sources), an answer (a plan, refused, infeasible) over a failure (error,\n"
          "timeout: what --retry-failed reruns), more timed runs (--repeat) over fewer; else the\n"
          "later run (started_at), else a fixed order of the columns.  So resubmitted shards\n"
          "repair OUT, and merging again, or in another order, gives the same OUT.  Every IN is\n"
          "checked first (a memplan results file that passes PRAGMA quick_check); all rows go in\n"
          "one transaction.  A new OUT is built beside it and put in place only if OUT is still\n"
          "absent (else the merge goes into the OUT that appeared): a failure leaves no OUT and\n"
          "never changes an existing one.  Concurrent merges and bench runs on OUT are safe.\n",
          help ? stdout : stderr);
    return help ? MP_EXIT_OK : MP_EXIT_USAGE;
  }
  for (int i = 1; i < argc; i++) /* "merge --out F IN" made a file named --out */
    if (!strncmp(argv[i], "--", 2)) {
      fprintf(stderr, "memplan merge: unknown option '%s' (memplan merge OUT.sqlite IN.sqlite...)\n",
              argv[i]);
      return MP_EXIT_USAGE;
    }
  if (mp_arg_out_place("merge", "OUT", argv[1])) return MP_EXIT_USAGE;
  memplan_error err;
  int added;
  if (memplan_results_merge(argv[1], (const char *const *)argv + 2, argc - 2, &added, &err)) {
    fprintf(stderr, "memplan merge: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  printf("merged %d files into %s: %d new rows (new cells, or superseding OUT's row)\n", argc - 2,
         argv[1], added);
  return MP_EXIT_OK;
}

int mp_cmd_export(int argc, char **argv) {
  const char *in = NULL, *out = "-";
  mp_seen seen = {.n = 0};
  for (int i = 1; i < argc; i++) {
    mp_opt o;
    mp_opt_read(argc, argv, i, &o);
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      puts("usage: memplan export RESULTS.sqlite [--format csv] [--out FILE]\n"
           "Every row and column of a results file as CSV, sorted by the cell key.");
      return MP_EXIT_OK;
    } else if (!strcmp(o.name, "--format") && o.value) {
      if (mp_opt_once("export", &seen, NULL, "--format", o.value)) return MP_EXIT_USAGE;
      if (strcmp(mp_opt_take(&o, &i), "csv")) {
        fprintf(stderr, "memplan export: only --format csv\n");
        return MP_EXIT_USAGE;
      }
    } else if (!strcmp(o.name, "--out") && o.value) {
      if (mp_opt_once("export", &seen, NULL, "--out", o.value)) return MP_EXIT_USAGE;
      out = mp_opt_take(&o, &i);
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
  if (mp_arg_out("export", out, &in, 1) || mp_arg_out_place("export", "--out", out))
    return MP_EXIT_USAGE;
  memplan_error err;
  if (memplan_results_export(in, out, &err)) {
    fprintf(stderr, "memplan export: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  return MP_EXIT_OK;
}

static const char table_help[] =
    "usage: memplan table RESULTS... [--format md|latex|csv]\n"
    "                    [--view graphs|suite|both|pivot|remat|remat-summary]\n"
    "                    [--max-overhead PCT]\n"
    "                    [--agg median|best] [--graph NAME] [--out FILE]\n"
    "                    [--solver LABEL]... [--baseline LABEL]... [--common]\n"
    "                    [--bound raised|graph] [--metric peak|arena|time|status|wall|frag]\n"
    "                    [--within PCT] [--brief]\n"
    "Tables from results files (SQLite, or the CSV of memplan export): per graph and solver\n"
    "the live peak, arena, reductions against the given order + the baseline placer and\n"
    "against no reuse, gap to the graph's bound, planning time (median, and its range over\n"
    "repeats and seeds), fragmentation and profile std-dev (graphs view); wins and geometric\n"
    "means across the suite (suite view); graphs x solvers, one metric (pivot view).\n"
    "Cells with a recomputation stage (bench --remat) have their own tables (remat view,\n"
    "also part of both): per solver the geometric mean overhead at each budget and the\n"
    "smallest budget within --max-overhead; per graph the smallest budget within it; per\n"
    "graph, budget and solver the duration, overhead, recomputed runs, bytes transferred\n"
    "and stall time of the event plan (remat-summary: the first two only).\n"
    "Over seeds every figure but the time is one run's: the lower-median run by arena\n"
    "(by duration with recomputation; ties: the smaller live peak, then seed), or with\n"
    "--agg best the best run; times are medians.  Bold marks the best entry;\n"
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
    "  --within PCT       pivot summary: solvers within PCT % of the bound (default 1; above 0)\n"
    "  --max-overhead PCT recomputation: the overhead threshold of the summaries (default 20;\n"
    "                     above 0)\n"
    "  --brief            no explanatory notes above the tables (a report says them once)\n"
    "Exit 1 when results contradict a bound (an optimum claimed below it): the tables list them.\n";

typedef struct table_cli {
  memplan_table_opts o;
  const char *out;
  const char **in, **solvers, **baselines; /* each up to argc entries */
  int nin;
  mp_seen seen; /* the single-valued options given */
} table_cli;

/* What a value of --agg, --bound, --within, --max-overhead may be. */
static const char *value_hint(const char *a) {
  if (!strcmp(a, "--within")) return " (a percentage above 0, at most 1000)";
  if (!strcmp(a, "--max-overhead")) return " (a percentage above 0, at most 1e6)";
  return !strcmp(a, "--agg") ? " (median or best)" : !strcmp(a, "--bound") ? " (raised or graph)" : "";
}

/* --agg, --bound, --within, --max-overhead: 0, or -1 for a bad value. */
static int table_value(const char *a, const char *v, memplan_table_opts *o) {
  double x;
  if (!strcmp(a, "--agg") && (!strcmp(v, "median") || !strcmp(v, "best")))
    o->best_of_seeds = !strcmp(v, "best");
  else if (!strcmp(a, "--bound") && (!strcmp(v, "graph") || !strcmp(v, "raised")))
    o->graph_bound_only = !strcmp(v, "graph");
  else if (!strcmp(a, "--within") && !parse_real(v, 0.001, 1000, &x)) /* 0 is the default */
    o->within = x / 100;
  else if (!strcmp(a, "--max-overhead") && !parse_real(v, 0.001, 1e6, &x))
    o->max_overhead = x / 100;
  else
    return -1;
  return 0;
}

static int table_option(int argc, char **argv, int *i, table_cli *c) {
  mp_opt opt;
  mp_opt_read(argc, argv, *i, &opt);
  const char *a = opt.name, *v = opt.value;
  memplan_table_opts *o = &c->o;
  if (!strcmp(a, "--common") || !strcmp(a, "--brief")) {
    if (mp_opt_flag("table", &opt)) return MP_EXIT_USAGE;
    o->common |= !strcmp(a, "--common");
    o->brief |= !strcmp(a, "--brief");
    return 0;
  }
  if (a[0] != '-') {
    c->in[c->nin++] = a;
    return 0;
  }
  static const char *const with_value[] = {"--format", "--view", "--agg", "--graph", "--out",
                                           "--solver", "--baseline", "--bound", "--metric",
                                           "--within", "--max-overhead", NULL};
  int k = 0;
  while (with_value[k] && strcmp(with_value[k], a)) k++;
  if (!with_value[k] || !v) {
    fprintf(stderr, "memplan table: %s '%s'\n(memplan table --help)\n",
            with_value[k] ? "a value is needed after" : "bad option", a);
    return MP_EXIT_USAGE;
  }
  mp_opt_take(&opt, i);
  if (mp_opt_once("table", &c->seen, " --solver --baseline ", with_value[k], v)) return MP_EXIT_USAGE;
  if (!strcmp(a, "--format")) o->format = v;
  else if (!strcmp(a, "--view")) o->view = v;
  else if (!strcmp(a, "--metric")) o->metric = v;
  else if (!strcmp(a, "--graph")) o->graph = v;
  else if (!strcmp(a, "--out")) c->out = v;
  else if (!strcmp(a, "--solver")) c->solvers[o->n_solvers++] = v;
  else if (!strcmp(a, "--baseline")) c->baselines[o->n_baselines++] = v;
  else if (table_value(a, v, o)) {
    fprintf(stderr, "memplan table: bad value '%s' for %s%s\n", v, a, value_hint(a));
    return MP_EXIT_USAGE;
  }
  return 0;
}

static int table(int argc, char **argv, table_cli *c) {
  for (int i = 1; i < argc; i++) {
    int rc = table_option(argc, argv, &i, c);
    if (rc) return rc;
  }
  if (!c->nin) {
    fputs(table_help, stderr);
    return MP_EXIT_USAGE;
  }
  if (mp_arg_out("table", c->out, c->in, c->nin) || mp_arg_out_place("table", "--out", c->out))
    return MP_EXIT_USAGE;
  memplan_error err;
  memplan_err e = memplan_table_write(c->in, c->nin, &c->o, c->out, &err);
  if (e) fprintf(stderr, "memplan table: %s\n", err.msg);
  return e == MEMPLAN_EUSAGE ? MP_EXIT_USAGE : e ? MP_EXIT_INPUT : MP_EXIT_OK;
}

int mp_cmd_table(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(table_help, stdout);
      return MP_EXIT_OK;
    }
  table_cli c = {.out = "-"};
  memplan_table_opts_init(&c.o);
  c.in = malloc(sizeof(char *) * (size_t)argc);
  c.solvers = malloc(sizeof(char *) * (size_t)argc);
  c.baselines = malloc(sizeof(char *) * (size_t)argc);
  c.o.solvers = c.solvers;
  c.o.baselines = c.baselines;
  int rc = c.in && c.solvers && c.baselines ? table(argc, argv, &c) : MP_EXIT_INPUT;
  free(c.in);
  free(c.solvers);
  free(c.baselines);
  return rc;
}
