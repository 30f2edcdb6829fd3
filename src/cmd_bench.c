/* cmd_bench.c - `memplan bench`, `memplan merge`, `memplan export`. */
#define _POSIX_C_SOURCE 200809L
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
    "results file.  Cells already in the results file are skipped: rerun to resume.\n"
    "Experiment files: scripts/experiments/README.md.\n"
    "\n"
    "  --results FILE.sqlite   results file (default results/EXPERIMENT.sqlite)\n"
    "  --jobs N                cells in parallel (default 1)\n"
    "  --shard i/N             run only shard i (0-based) of N: cell k of the sorted matrix\n"
    "                          belongs to shard k mod N\n"
    "  --graphs LIST           manifest tags or graph paths (comma separated)\n"
    "  --manifest FILE         graph manifest (default graphs/SUITE.tsv)\n"
    "  --order LIST            order chains, comma separated; write a chain as greedy:sa\n"
    "  --place LIST            placer chains, comma separated ('all': every placer)\n"
    "  --seeds LIST            seeds, comma separated\n"
    "  --time-limit LIST       seconds per cell, comma separated (0: none)\n"
    "  --mem-limit MB          address-space cap of each cell (0: none)\n"
    "  --grace S               kill a cell at time limit + S seconds (default 5)\n"
    "  --set [SOLVER.]OPT=VAL  solver option for the cells whose solvers have it (repeatable)\n"
    "  --align A               offset alignment\n"
    "  --retry-failed          rerun cells whose row says error or timeout\n"
    "  --list                  print the cells (after --shard) and exit\n"
    "  --memplan PROGRAM       program run for each cell (default: this memplan)\n"
    "  --quiet                 no per-failure lines, no progress\n";

static int usage_err(const char *what) {
  fprintf(stderr, "memplan bench: %s\n(memplan bench --help)\n", what);
  return MP_EXIT_USAGE;
}

static int parse_doubles(const char *s, double **out, int *n) {
  char **l = NULL;
  int k = 0;
  if (mp_split_list(s, false, &l, &k)) return -1;
  double *v = mp_xmalloc(sizeof(double) * (size_t)k);
  int bad = 0;
  for (int i = 0; i < k; i++) {
    if (mp_parse_real(l[i], &v[i], NULL) || v[i] < 0 || v[i] > 1e9) bad = 1;
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

int mp_cmd_bench(int argc, char **argv) {
  mp_experiment e;
  char msg[1024];
  int first = 1;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(bench_help, stdout);
      return MP_EXIT_OK;
    }
  if (argc > 1 && argv[1][0] != '-') {
    if (mp_experiment_load(argv[1], &e, msg, sizeof msg)) {
      fprintf(stderr, "memplan bench: %s\n", msg);
      mp_experiment_free(&e);
      return MP_EXIT_INPUT;
    }
    first = 2;
  } else {
    mp_experiment_defaults(&e);
  }
  mp_bench_opts o = {0};
  o.jobs = 1;
  const char *results = NULL, *shard = NULL;
  bool list = false;
  int rc = MP_EXIT_OK;
  char **sets_cli = NULL;
  int n_sets_cli = 0;
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV                                                        \
  if (!v) {                                                          \
    rc = usage_err("option needs a value");                          \
    goto out;                                                        \
  }                                                                  \
  i++;
    if (!strcmp(a, "--results")) {
      NEEDV results = v;
    } else if (!strcmp(a, "--jobs")) {
      NEEDV int64_t jobs;
      if (mp_parse_int64(v, &jobs, NULL) || jobs < 1 || jobs > 1024) {
        rc = usage_err("--jobs takes 1..1024");
        goto out;
      }
      o.jobs = (int)jobs;
    } else if (!strcmp(a, "--shard")) {
      NEEDV shard = v;
    } else if (!strcmp(a, "--graphs")) {
      NEEDV if (mp_split_list(v, false, &e.graphs, &e.n_graphs)) goto bad;
    } else if (!strcmp(a, "--manifest")) {
      NEEDV free(e.manifest);
      e.manifest = strdup(v);
    } else if (!strcmp(a, "--order")) {
      NEEDV if (mp_split_list(v, true, &e.order, &e.n_order)) goto bad;
    } else if (!strcmp(a, "--place")) {
      NEEDV if (mp_split_list(v, true, &e.place, &e.n_place)) goto bad;
    } else if (!strcmp(a, "--seeds")) {
      NEEDV char **l = NULL;
      int k = 0;
      if (mp_split_list(v, false, &l, &k)) goto bad;
      uint64_t *s = mp_xmalloc(sizeof(uint64_t) * (size_t)k);
      bool badv = false;
      for (int q = 0; q < k; q++) {
        int64_t x = 0;
        if (mp_parse_int64(l[q], &x, NULL) || x < 0) badv = true;
        s[q] = (uint64_t)x;
        free(l[q]);
      }
      free(l);
      if (badv) {
        free(s);
        goto bad;
      }
      free(e.seeds);
      e.seeds = s;
      e.n_seeds = k;
    } else if (!strcmp(a, "--time-limit")) {
      NEEDV if (parse_doubles(v, &e.time_limits, &e.n_time_limits)) goto bad;
    } else if (!strcmp(a, "--mem-limit")) {
      NEEDV if (mp_parse_real(v, &e.mem_limit_mb, NULL) || e.mem_limit_mb < 0 ||
                e.mem_limit_mb > 1e9) goto bad;
    } else if (!strcmp(a, "--grace")) {
      NEEDV if (mp_parse_real(v, &e.grace_s, NULL) || e.grace_s < 0 || e.grace_s > 1e6) goto bad;
    } else if (!strcmp(a, "--align")) {
      NEEDV int64_t al;
      if (mp_parse_int64(v, &al, NULL) || al < 1 || al > MP_MAX_ALIGN) goto bad;
      e.align = al;
    } else if (!strcmp(a, "--set")) {
      NEEDV sets_cli = mp_xrealloc(sets_cli, sizeof(char *) * (size_t)(n_sets_cli + 1));
      sets_cli[n_sets_cli++] = strdup(v);
    } else if (!strcmp(a, "--memplan")) {
      NEEDV o.memplan = v;
    } else if (!strcmp(a, "--retry-failed")) {
      o.retry_failed = true;
    } else if (!strcmp(a, "--list")) {
      list = true;
    } else if (!strcmp(a, "--quiet")) {
      o.quiet = true;
    } else {
      snprintf(msg, sizeof msg, "unknown option or extra argument '%s'", a);
      rc = usage_err(msg);
      goto out;
    }
    continue;
  bad:
    snprintf(msg, sizeof msg, "bad value '%s' for %s", v, a);
    rc = usage_err(msg);
    goto out;
#undef NEEDV
  }
  if (n_sets_cli) {
    /* CLI overrides replace the experiment's value of the same option */
    for (int i = 0; i < n_sets_cli; i++) {
      size_t nl = strcspn(sets_cli[i], "=");
      for (int k = 0; k < e.n_sets; k++)
        if (strlen(e.sets[k]) > nl && !strncmp(e.sets[k], sets_cli[i], nl) && e.sets[k][nl] == '=') {
          free(e.sets[k]);
          e.sets[k] = e.sets[--e.n_sets];
          k--;
        }
      e.sets = mp_xrealloc(e.sets, sizeof(char *) * (size_t)(e.n_sets + 1));
      e.sets[e.n_sets++] = sets_cli[i];
      sets_cli[i] = NULL;
    }
  }
  int si = 0, sn = 1;
  if (shard && mp_parse_shard(shard, &si, &sn)) {
    rc = usage_err("--shard takes i/N with 0 <= i < N");
    goto out;
  }
  mp_matrix m;
  if (mp_matrix_build(&e, &m, msg, sizeof msg)) {
    fprintf(stderr, "memplan bench: %s\n", msg);
    rc = MP_EXIT_INPUT;
    goto out;
  }
  int total = m.n;
  mp_matrix_shard(&m, si, sn);
  if (list) {
    char t[64];
    for (int i = 0; i < m.n; i++) {
      mp_fmt_seconds(m.cells[i].time_limit, t, sizeof t);
      printf("%s\t%s\t%s\t%llu\t%s\t%s\n", m.cells[i].path, m.cells[i].order, m.cells[i].place,
             (unsigned long long)m.cells[i].seed, t, m.cells[i].options);
    }
    mp_matrix_free(&m);
    goto out;
  }
  char defres[1024];
  if (!results) {
    mkdir("results", 0755);
    snprintf(defres, sizeof defres, "results/%s.sqlite", e.name);
    results = defres;
  }
  o.results = results;
  o.progress = !o.quiet && isatty(2);
  mp_bench_stats st;
  int r = mp_bench_run(&e, &m, &o, &st, msg, sizeof msg);
  if (sn > 1)
    printf("bench %s shard %d/%d: %d of %d cells", e.name, si, sn, m.n, total);
  else
    printf("bench %s: %d cells", e.name, m.n);
  printf(" (%d skipped by the rules), %d already done, %d run: %d ok, %d failed (%d killed at the time limit); "
         "%.1f s; results in %s\n",
         m.n_skipped, st.done_before, st.run, st.ok, st.failed, st.timeouts, st.wall_s, results);
  mp_matrix_free(&m);
  if (r) {
    fprintf(stderr, "memplan bench: %s\n", msg);
    rc = MP_EXIT_INPUT;
  }
out:
  for (int i = 0; i < n_sets_cli; i++) free(sets_cli[i]);
  free(sets_cli);
  mp_experiment_free(&e);
  return rc;
}

int mp_cmd_merge(int argc, char **argv) {
  bool help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
  if (argc < 3 || help) {
    fputs("usage: memplan merge OUT.sqlite IN.sqlite...\n"
          "Add the rows of every IN to OUT (created if needed).  Idempotent: a cell already in\n"
          "OUT keeps its row, so merging twice adds nothing and no cell appears twice.\n",
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

int mp_cmd_table(int argc, char **argv) {
  static const char help[] =
      "usage: memplan table RESULTS... [--format md|latex|csv] [--view graphs|suite|both]\n"
      "                    [--agg median|best] [--graph NAME] [--out FILE]\n"
      "Tables from results files (SQLite, or the CSV of memplan export): per graph and solver\n"
      "the live peak, arena, reductions against the given order + bysize and against no\n"
      "reuse, gap to the best bound known, planning time, fragmentation and profile std-dev\n"
      "(graphs view); wins and geometric means across the suite (suite view).  Over seeds:\n"
      "the lower median (default) or the best run.  Bold marks the best entry.\n";
  mp_table_opts o = {0};
  const char *out = "-", *only = NULL;
  const char **in = mp_xmalloc(sizeof(char *) * (size_t)argc);
  int nin = 0, rc = MP_EXIT_OK;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(help, stdout);
      free(in);
      return MP_EXIT_OK;
    } else if (!strcmp(a, "--format") && v) {
      o.format = v;
      i++;
    } else if (!strcmp(a, "--view") && v) {
      o.view = v;
      i++;
    } else if (!strcmp(a, "--agg") && v) {
      if (strcmp(v, "median") && strcmp(v, "best")) {
        fprintf(stderr, "memplan table: --agg takes median or best\n");
        free(in);
        return MP_EXIT_USAGE;
      }
      o.best_of_seeds = !strcmp(v, "best");
      i++;
    } else if (!strcmp(a, "--graph") && v) {
      only = v;
      i++;
    } else if (!strcmp(a, "--out") && v) {
      out = v;
      i++;
    } else if (a[0] == '-') {
      fprintf(stderr, "memplan table: bad option '%s'\n%s", a, help);
      free(in);
      return MP_EXIT_USAGE;
    } else {
      in[nin++] = a;
    }
  }
  if (!nin) {
    fputs(help, stderr);
    free(in);
    return MP_EXIT_USAGE;
  }
  mp_row *rows = NULL;
  int n = 0;
  char msg[1024];
  for (int i = 0; i < nin; i++)
    if (mp_rows_load(in[i], &rows, &n, msg, sizeof msg)) {
      fprintf(stderr, "memplan table: %s\n", msg);
      rc = MP_EXIT_INPUT;
      goto done;
    }
  if (only) {
    int w = 0;
    for (int i = 0; i < n; i++) {
      if ((rows[i].graph && !strcmp(rows[i].graph, only)) || !strcmp(rows[i].path, only))
        rows[w++] = rows[i];
      else
        mp_row_free(&rows[i]);
    }
    n = w;
  }
  mp_outfile of;
  mp_error err;
  if (mp_out_open(&of, out, &err)) {
    fprintf(stderr, "memplan table: %s\n", err.msg);
    rc = MP_EXIT_INPUT;
    goto done;
  }
  if (mp_table_write(of.fp, rows, n, &o, msg, sizeof msg)) {
    mp_out_abort(&of);
    fprintf(stderr, "memplan table: %s\n", msg);
    rc = MP_EXIT_USAGE;
    goto done;
  }
  if (mp_out_commit(&of, &err)) {
    fprintf(stderr, "memplan table: %s\n", err.msg);
    rc = MP_EXIT_INPUT;
  }
done:
  mp_rows_free(rows, n);
  free(in);
  return rc;
}
