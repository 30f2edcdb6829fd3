/* test_bench.c - batch experiments end to end: a tiny matrix through
 * `memplan bench` (child processes, SQLite rows), failures as rows, resume
 * after kill -9, shards that partition the matrix, merge without
 * duplicates.  Runs ../bin/memplan from tests/. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <limits.h>

#include <errno.h>
#include <sys/resource.h>

#include "bench.h"
#include "bench_row.h"
#include "bench_scratch.h"
#include "resdb_schema.h"
#include "io.h"
#include "schedbound.h"
#include "testlib.h"

#include "bench_fixture.h"

static const char *MATRIX = "--graphs small --order given --order greedy --order dfs "
                            "--place bysize --place firstfit --seeds 1,2 --time-limit 2";
/* 2 graphs x 3 orders x 2 placers x 2 seeds + the CSV: given x 2 x 2 */
enum { MATRIX_CELLS = 2 * 3 * 2 * 2 + 2 * 2 };

START_TEST(tiny_experiment_end_to_end) {
  setup();
  static char out[1 << 16];
  char db[600];
  snprintf(db, sizeof db, "%s/r.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s/SUITE.tsv %s --jobs 2 --results %s", dir,
                      MATRIX, db),
                   0);
  slurp("out.txt", out, sizeof out);
  ck_assert_msg(strstr(out, "28 cells (4 skipped by the rules), 0 already done, 28 run: 28 ok"),
                "%s", out);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), MATRIX_CELLS);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM (SELECT DISTINCT path, order_solver, "
                          "place_solver, seed, time_limit, options FROM results)"),
                   MATRIX_CELLS);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE status NOT IN ('optimal','feasible')"),
                   0);
  /* the figures are the evaluator's: consistent with each other */
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE arena < live_peak OR "
                          "live_peak < lower_bound OR sum_sizes < arena OR "
                          "abs(fragmentation - (arena - live_peak) * 1.0 / arena) > 1e-9 OR "
                          "abs(reduction_vs_noreuse - (1 - arena * 1.0 / sum_sizes)) > 1e-9 OR "
                          "abs(plan_ms - order_ms - place_ms) > 1e-6"),
                   0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE path = 'p.csv' AND "
                          "nodes = 0 AND order_solver = 'given'"),
                   4);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE version IS NULL OR machine IS NULL "
                          "OR cpu IS NULL OR started_at NOT LIKE '20%Z'"),
                   0);
  /* one cell against a direct solve */
  ck_assert_int_eq(sh(MEMPLAN " solve %s/g1.json --order greedy --place firstfit --seed 2 "
                      "--format json",
                      dir),
                   0);
  slurp("out.txt", out, sizeof out);
  /* every byte figure of the row is the solve's */
  json_t *js = json_loads(out, 0, NULL);
  ck_assert_ptr_nonnull(js);
  static const char *const figs[] = {"live_peak", "arena", "sum_sizes", "lower_bound"};
  for (int k = 0; k < 4; k++) {
    json_t *v = json_object_get(js, figs[k]);
    ck_assert_msg(json_is_integer(v), "%s", figs[k]);
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM results WHERE path = 'g1.json' AND order_solver = 'greedy' AND "
             "place_solver = 'firstfit' AND seed = 2 AND %s = %lld",
             figs[k], (long long)json_integer_value(v));
    ck_assert_msg(q1(db, sql) == 1, "%s: the row's is not the solve's %lld", figs[k],
                  (long long)json_integer_value(v));
  }
  json_decref(js);
  /* rerun: everything is done already */
  ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s/SUITE.tsv %s --results %s", dir, MATRIX, db), 0);
  slurp("out.txt", out, sizeof out);
  ck_assert_msg(strstr(out, "28 already done, 0 run"), "%s", out);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), MATRIX_CELLS);
  /* export: a header and one line per row */
  ck_assert_int_eq(sh(MEMPLAN " export %s --format csv", db), 0);
  slurp("out.txt", out, sizeof out);
  int lines = 0;
  for (const char *c = out; *c; c++) lines += *c == '\n';
  ck_assert_int_eq(lines, MATRIX_CELLS + 1);
  ck_assert_msg(!strncmp(out, "path,graph,nodes,buffers,align,order_solver,place_solver,seed,", 62),
                "%s", out);
  teardown();
}
END_TEST

START_TEST(failures_are_rows) {
  setup();
  char db[600], out[4096], err[4096], script[600];
  snprintf(db, sizeof db, "%s/f.sqlite", dir);
  /* a malformed graph: exit 1 with the reader's message */
  ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s/SUITE.tsv --graphs broken --results %s", dir,
                      db),
                   0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE status = 'error' AND "
                          "message LIKE 'exit 1:%' AND arena IS NULL"),
                   1);
  /* a runaway solver: killed at time limit + grace */
  snprintf(script, sizeof script, "%s/slow.sh", dir);
  FILE *f = fopen(script, "w");
  fputs("#!/bin/sh\necho still thinking >&2\nexec sleep 30\n", f);
  fclose(f);
  chmod(script, 0755);
  double t0 = mp_now();
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --time-limit 0.2 --grace 0.3 "
                      "--results %s --memplan %s --seeds 1,2 --jobs 2",
                      dir, db, script),
                   0);
  ck_assert_double_lt(mp_now() - t0, 5);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE status = 'timeout' AND "
                          "message LIKE 'killed after%still thinking'"),
                   2);
  /* a crash */
  snprintf(script, sizeof script, "%s/crash.sh", dir);
  f = fopen(script, "w");
  fputs("#!/bin/sh\nkill -SEGV $$\n", f);
  fclose(f);
  chmod(script, 0755);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g1.json --results %s --memplan %s", dir, db,
                      script),
                   0);
  slurp("err.txt", err, sizeof err);
  ck_assert_msg(strstr(err, "signal 11"), "%s", err);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE status = 'error' AND "
                          "message LIKE 'killed by signal 11%'"),
                   1);
  /* a memory cap too small to even start */
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g1.json --seeds 5 --mem-limit 1 --results %s",
                      dir, db),
                   0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE seed = 5 AND status = 'error'"), 1);
  /* --retry-failed reruns them (here with the real program: they succeed) */
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g1.json --results %s --retry-failed", dir, db), 0);
  slurp("out.txt", out, sizeof out);
  ck_assert_msg(strstr(out, "1 run: 1 ok"), "%s", out);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE path LIKE '%g1.json' AND seed = 1"),
                   1);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE path LIKE '%g1.json' AND seed = 1 "
                          "AND status IN ('feasible', 'optimal')"),
                   1);
  teardown();
}
END_TEST

START_TEST(kill9_and_resume) {
  setup();
  char db[600], out[4096];
  snprintf(db, sizeof db, "%s/k.sqlite", dir);
  /* with recomputation cells beside the others, through another program
   * (its plans re-judged; at 1x every cell has a plan) */
  const char *matrix = "--graphs small --order given --order greedy --order dfs --order bfs "
                       "--place bysize --place firstfit --place bestfit --seeds 1,2,3,4 "
                       "--time-limit 2 --remat none --remat dtr --budgets 1x --memplan $FAKE";
  /* 2 graphs x 4 x 3 x 4 x (none, dtr) + CSV 3 x 4 (no remat cells) */
  int total = 2 * 4 * 3 * 4 * 2 + 3 * 4;
  char manifest[600], cmd[2048];
  snprintf(manifest, sizeof manifest, "%s/SUITE.tsv", dir);
  snprintf(cmd, sizeof cmd, "%s exec " MEMPLAN " bench --manifest %s %s --results %s --quiet "
           ">/dev/null", fake_env_for(NULL), manifest, matrix, db);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  /* wait for a few rows, then kill -9 in the middle of the run */
  long long rows = 0;
  double t0 = mp_now();
  struct stat st;
  while (mp_now() - t0 < 20) {
    if (stat(db, &st) == 0) {
      sqlite3 *h;
      if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(h, "SELECT count(*) FROM results", -1, &s, NULL) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW)
          rows = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
      }
      sqlite3_close(h);
      if (rows >= 5) break;
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  kill(pid, SIGKILL);
  int ws;
  waitpid(pid, &ws, 0);
  ck_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
  long long after_kill = q1(db, "SELECT count(*) FROM results");
  ck_assert_int_ge(after_kill, 5);
  ck_assert_int_lt(after_kill, total);
  /* no half rows: every row is a whole cell with its figures */
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE status IS NULL OR arena IS NULL OR "
                          "live_peak IS NULL OR plan_ms IS NULL OR version IS NULL OR "
                          "(remat_solver != '' AND (duration IS NULL OR budget IS NULL))"),
                   0);
  /* resume */
  ck_assert_int_eq(sh("%s " MEMPLAN " bench --manifest %s %s --results %s --jobs 2",
                      fake_env_for(NULL), manifest, matrix, db),
                   0);
  slurp("out.txt", out, sizeof out);
  char want[128];
  long long before = 0;
  const char *p = strstr(out, "already done");
  ck_assert_ptr_nonnull(p);
  while (p > out && p[-1] == ' ') p--;
  while (p > out && p[-1] >= '0' && p[-1] <= '9') p--;
  before = atoll(p);
  ck_assert_int_ge(before, after_kill);
  snprintf(want, sizeof want, "%lld run: %lld ok", total - before, total - before);
  ck_assert_msg(strstr(out, want), "want '%s' in: %s", want, out);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), total);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM (SELECT DISTINCT path, order_solver, "
                          "place_solver, seed, time_limit, options, remat_solver, budget_arg, "
                          "bandwidth_arg FROM results)"),
                   total);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE remat_solver = 'dtr'"), 2 * 4 * 3 * 4);
  ck_assert_int_eq(q1(db, "PRAGMA integrity_check") == -1, 0);
  teardown();
}
END_TEST

/* In-process: shards of one matrix partition it exactly. */
START_TEST(shards_partition_the_matrix) {
  setup();
  mp_experiment e;
  mp_experiment_defaults(&e);
  char manifest[600], msg[512];
  snprintf(manifest, sizeof manifest, "%s/SUITE.tsv", dir);
  free(e.manifest);
  e.manifest = strdup(manifest);
  ck_assert_int_eq(mp_split_list("--graphs", "small", &e.graphs, &e.n_graphs, msg, sizeof msg), 0);
  for (int i = 0; i < e.n_order; i++) free(e.order[i]);
  free(e.order);
  e.order = NULL;
  e.n_order = 0;
  mp_list_push(&e.order, &e.n_order, "given");
  mp_list_push(&e.order, &e.n_order, "greedy");
  mp_list_push(&e.order, &e.n_order, "dfs,greedy");
  ck_assert_int_eq(mp_split_list("--place", "bysize,,firstfit", &e.place, &e.n_place, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "--place 'bysize,,firstfit': item 2 is empty"), "%s", msg);
  ck_assert_int_eq(mp_split_list("--place", "bysize,firstfit", &e.place, &e.n_place, msg, sizeof msg), 0);
  mp_matrix full;
  ck_assert_msg(mp_matrix_build(&e, &full, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_int_eq(full.n, 2 * 3 * 2 + 2);
  for (int i = 1; i < full.n; i++) ck_assert_int_lt(strcmp(full.cells[i - 1].key, full.cells[i].key), 0);
  for (int n = 1; n <= 7; n++) {
    int *owner = calloc((size_t)full.n, sizeof(int));
    for (int i = 0; i < n; i++) {
      mp_matrix m;
      ck_assert_int_eq(mp_matrix_build(&e, &m, msg, sizeof msg), 0);
      mp_matrix_shard(&m, i, n);
      for (int k = 0; k < m.n; k++) {
        int j = 0;
        while (j < full.n && strcmp(full.cells[j].key, m.cells[k].key)) j++;
        ck_assert_int_lt(j, full.n);
        owner[j]++;
      }
      mp_matrix_destroy(&m);
    }
    for (int j = 0; j < full.n; j++) ck_assert_int_eq(owner[j], 1); /* union = all, disjoint */
    free(owner);
  }
  int si, sn;
  ck_assert_int_eq(mp_parse_shard("2/5", &si, &sn), 0);
  ck_assert(si == 2 && sn == 5);
  ck_assert_int_eq(mp_parse_shard("5/5", &si, &sn), -1);
  ck_assert_int_eq(mp_parse_shard("1/0", &si, &sn), -1);
  ck_assert_int_eq(mp_parse_shard("x", &si, &sn), -1);
  mp_matrix_destroy(&full);
  mp_experiment_destroy(&e);
  teardown();
}
END_TEST

/* Through the CLI: three shards into three files, merged (twice). */
START_TEST(shards_merge_to_one_row_per_cell) {
  setup();
  char out[4096];
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s/SUITE.tsv %s --shard %d/3 --results %s/s%d.sqlite",
                        dir, MATRIX, i, dir, i),
                     0);
  char db[600];
  snprintf(db, sizeof db, "%s/all.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s/s0.sqlite %s/s1.sqlite %s/s2.sqlite", db, dir, dir, dir),
                   0);
  slurp("out.txt", out, sizeof out);
  ck_assert_msg(strstr(out, "28 new rows"), "%s", out);
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s/s0.sqlite %s/s1.sqlite %s/s2.sqlite", db, dir, dir, dir),
                   0);
  slurp("out.txt", out, sizeof out);
  ck_assert_msg(strstr(out, ": 0 new rows"), "%s", out);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), MATRIX_CELLS);
  /* the merged file is complete: the whole matrix is done */
  ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s/SUITE.tsv %s --results %s", dir, MATRIX, db), 0);
  slurp("out.txt", out, sizeof out);
  ck_assert_msg(strstr(out, "28 already done, 0 run"), "%s", out);
  teardown();
}
END_TEST

/* ------------------------------------------------------------ recomputation */

#define REMAT_TINY "../scripts/experiments/remat_tiny.json"

/* Every row of results file a has its equal in b (the cell's key, its
 * statuses, message and every figure; not the times or the provenance),
 * and b has no other: how many rows of a have none (0: the same rows). */
static long long rows_unlike(const char *a, const char *b) {
  static const char *const cols[] = {
      "path", "order_solver", "place_solver", "seed", "time_limit", "options", "remat_solver",
      "budget_arg", "bandwidth_arg", "graph", "status", "order_status", "place_status",
      "remat_status", "message", "fingerprint", "nodes", "buffers", "align", "live_peak", "arena",
      "sum_sizes", "lower_bound", "fragmentation", "reuse_ratio", "profile_std",
      "reduction_vs_given", "reduction_vs_noreuse", "budget", "bandwidth", "base_time",
      "duration", "overhead", "recompute_time", "stall_time", "recomputed", "transferred",
      "residencies", "stale_reruns", NULL};
  char sql[4096];
  int n = snprintf(sql, sizeof sql, "SELECT count(*) FROM results x WHERE NOT EXISTS (SELECT 1 "
                   "FROM b.results y WHERE 1");
  for (int i = 0; cols[i]; i++) n += snprintf(sql + n, sizeof sql - (size_t)n, " AND x.%s IS y.%s", cols[i], cols[i]);
  snprintf(sql + n, sizeof sql - (size_t)n, ") OR (SELECT count(*) FROM results) != "
           "(SELECT count(*) FROM b.results)");
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open_v2(a, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  char attach[1400];
  snprintf(attach, sizeof attach, "ATTACH '%s' AS b", b);
  ck_assert_msg(sqlite3_exec(h, attach, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
  sqlite3_stmt *st;
  ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
  long long v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

/* remat_tiny.json through the bench with another program (a wrapper of
 * this memplan, whose plans bench re-judges): the cells (3 graphs x 6
 * remat settings x 3 budgets), the arguments each child gets, the rows
 * (the request as the solve resolved it, the event plan's figures,
 * infeasible kept apart from failures: all as this memplan's own run
 * stores them), the resume. */
START_TEST(remat_cells_end_to_end) {
  setup();
  char db[600], log[600];
  snprintf(db, sizeof db, "%s/r.sqlite", dir);
  snprintf(log, sizeof log, "%s/calls.log", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench " REMAT_TINY " --list"), 0);
  ck_assert_int_eq(system("test $(" MEMPLAN " bench " REMAT_TINY " --list | awk -F'\t' "
                          "'NF == 9' | wc -l) -eq 54"), 0);
  ck_assert_msg(file_has("out.txt", "\tswap-greedy\t0.8x\t1048576\n"), "a remat cell listed");
  ck_assert_int_eq(sh("%s " MEMPLAN " bench " REMAT_TINY " --results %s --jobs 2 --memplan $FAKE",
                      fake_env_for(log), db),
                   0);
  ck_assert_msg(file_has("out.txt", "54 cells (0 skipped by the rules), 0 already done, 54 run: "),
                "summary");
  ck_assert_msg(!file_has("err.txt", "refused by bench"), "an honest wrapper's answer refused");
  char own[600];
  snprintf(own, sizeof own, "%s/own.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench " REMAT_TINY " --results %s --jobs 2", own), 0);
  ck_assert_int_eq(rows_unlike(db, own), 0);
  /* the arguments: a fraction as --budget-frac, the link as --bandwidth */
  ck_assert_msg(file_has("calls.log", "--remat swap-greedy --budget-frac 0.6 --bandwidth 1048576\n"),
                "arguments");
  ck_assert_msg(file_has("calls.log", "--remat keepall --budget-frac 1 --bandwidth 0\n"), "1x");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE remat_solver = 'swap-greedy' AND "
                          "budget_arg = '1x' AND bandwidth_arg = '1048576' AND budget > 0 AND "
                          "bandwidth = 1048576 AND duration > 0 AND residencies > 0 AND "
                          "remat_ms >= 0 AND status = 'feasible' AND base_time > 0"),
                   3);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE remat_solver = '' OR "
                          "(duration IS NULL AND status = 'feasible')"),
                   0);
  ck_assert_int_eq(sh(MEMPLAN " bench " REMAT_TINY " --results %s --memplan /bin/false", db), 0);
  ck_assert_msg(file_has("out.txt", "54 already done, 0 run"), "resume");
  /* bytes, a cell without remat, an infeasible budget (a proof: not a failure) */
  ck_assert_int_eq(sh("%s " MEMPLAN " bench --graphs %s/g0.json --remat none --remat dtr "
                      "--budgets 700,0.25x --results %s --memplan $FAKE",
                      fake_env_for(log), dir, db),
                   0);
  ck_assert_msg(file_has("out.txt", "3 run: 3 ok, 0 failed"), "summary");
  ck_assert_msg(file_has("calls.log", "--remat dtr --budget 700\n"), "bytes");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE path LIKE '%g0.json' AND "
                          "remat_solver = '' AND budget_arg = '' AND arena IS NOT NULL AND "
                          "duration IS NULL AND budget IS NULL"),
                   1);
  /* both below the events floor of g0 (12318 bytes) */
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE budget_arg IN ('0.25x', '700') AND "
                          "status = 'infeasible' AND remat_status = 'infeasible' AND budget > 0 "
                          "AND budget < 12318 AND arena IS NULL AND duration IS NULL"),
                   2);
  teardown();
}
END_TEST

/* Budgets and bandwidths: one canonical text per value (one cell), and
 * usage errors for what cannot be read one way. */
START_TEST(remat_axes_are_canonical) {
  setup();
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --remat dtr --budgets 0.80x,.8x,0.8x,"
                      "00500,1.0x --bandwidth 0,0.0,graph,2.5e4 --list", dir),
                   0);
  static char out[1 << 14];
  slurp("out.txt", out, sizeof out);
  int lines = 0;
  for (const char *c = out; *c; c++) lines += *c == '\n';
  ck_assert_int_eq(lines, 3 * 3); /* 0.8x, 500, 1x x 0, graph, 25000 */
  ck_assert_msg(strstr(out, "\tdtr\t0.8x\t0\n") && strstr(out, "\tdtr\t500\t25000\n") &&
                    strstr(out, "\tdtr\t1x\t\n"),
                "%s", out);
  const char *bad[] = {"--remat dtr --budgets 0.8", "--remat dtr --budgets -5",
                       "--remat dtr --budgets 0x", "--remat dtr --budgets 1e3x",
                       "--remat dtr --budgets 0.8x --bandwidth -1", "--remat dtr --budgets 2000x",
                       NULL};
  for (int i = 0; bad[i]; i++)
    ck_assert_msg(sh(MEMPLAN " bench --graphs %s/g0.json %s --list", dir, bad[i]) == 2,
                  "%s: not a usage error", bad[i]);
  /* in a file: a real number is not a budget; a chain needs budgets;
   * budgets need a chain; a remat solver must be an events solver; a
   * chain has at most 4 solvers */
  const char *files[][2] = {
      {"{\"graphs\": [\"g0.json\"], \"remat\": [\"dtr\"], \"budgets\": [0.8]}",
       "a fraction written as a string (\"0.8x\")"},
      {"{\"graphs\": [\"g0.json\"], \"remat\": [\"dtr\"]}", "'dtr' needs budgets"},
      {"{\"graphs\": [\"g0.json\"], \"budgets\": [\"0.8x\"]}", "give \"remat\""},
      {"{\"graphs\": [\"g0.json\"], \"remat\": [\"greedy\"], \"budgets\": [\"1x\"]}",
       "'greedy' decides an order, not an event plan"},
      {"{\"graphs\": [\"g0.json\"], \"order\": [\"greedy,greedy,greedy,greedy,greedy\"]}",
       "is too long (at most 4 solvers)"},
      {"{\"graphs\": [\"g0.json\"], \"remat\": [{\"chain\": \"dtr\", \"budget\": [\"1x\"]}]}",
       "unknown key \"budget\""},
      {NULL, NULL}};
  for (int i = 0; files[i][0]; i++) {
    write_file("e.json", files[i][0], 0);
    ck_assert_msg(sh(MEMPLAN " bench %s/e.json --list", dir) == 1, "%s", files[i][0]);
    ck_assert_msg(file_has("err.txt", files[i][1]), "%s: want '%s'", files[i][0], files[i][1]);
  }
  /* an entry with its own budgets and bandwidths; remat cells skip the
   * fixed-lifetime problem */
  write_file("e.json", "{\"graphs\": [\"g0.json\", \"p.csv\"], \"remat\": [\"none\", {\"chain\": "
             "\"keepall\", \"budgets\": [\"1x\"]}, \"dtr\"], \"budgets\": [\"0.8x\", \"0.6x\"], "
             "\"bandwidth\": 0}", 0);
  ck_assert_int_eq(sh(MEMPLAN " bench %s/e.json --list", dir), 0);
  slurp("out.txt", out, sizeof out);
  ck_assert_msg(strstr(out, "\tkeepall\t1x\t0\n") && !strstr(out, "keepall\t0.8x") &&
                    strstr(out, "\tdtr\t0.6x\t0\n") && strstr(out, "p.csv\tgiven\tbysize\t1\t10\t\n"),
                "%s", out);
  teardown();
}
END_TEST

/* The CREATE TABLE of results files written before remat cells (schema 2). */
static const char old_schema[] =
    "CREATE TABLE results (path TEXT NOT NULL, graph TEXT, nodes INTEGER, buffers INTEGER, align "
    "INTEGER, order_solver TEXT NOT NULL, place_solver TEXT NOT NULL, seed INTEGER NOT NULL, "
    "time_limit REAL NOT NULL, options TEXT NOT NULL, status TEXT, live_peak INTEGER, arena "
    "INTEGER, fragmentation REAL, reuse_ratio REAL, sum_sizes INTEGER, lower_bound INTEGER, "
    "profile_std REAL, reduction_vs_given REAL, reduction_vs_noreuse REAL, order_ms REAL, place_ms "
    "REAL, plan_ms REAL, order_cpu_ms REAL, place_cpu_ms REAL, wall_s REAL, message TEXT, version "
    "TEXT, machine TEXT, cpu TEXT, started_at TEXT, experiment TEXT, order_status TEXT, "
    "place_status TEXT, fingerprint TEXT, repeats INTEGER, plan_ms_min REAL, plan_ms_max REAL, "
    "plan_cpu_ms REAL, plan_cpu_ms_min REAL, UNIQUE (path, order_solver, place_solver, seed, "
    "time_limit, options));";

/* A results file of the previous schema resumes: its cells keep their keys
 * (done before), the table gains the remat columns and key, remat cells
 * that differ by budget alone get a row each. */
START_TEST(old_results_files_resume) {
  setup();
  char db[600], old[600], sql[4096];
  snprintf(db, sizeof db, "%s/new.sqlite", dir);
  snprintf(old, sizeof old, "%s/old.sqlite", dir);
  const char *cells = "--graphs %s/g0.json,%s/g1.json --order given --order greedy --results %s";
  char cmd[1600];
  snprintf(cmd, sizeof cmd, cells, dir, dir, db);
  ck_assert_int_eq(sh(MEMPLAN " bench %s", cmd), 0);
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(old, &h), SQLITE_OK);
  snprintf(sql, sizeof sql, "PRAGMA application_id = 1836084334; PRAGMA user_version = 2; %s "
           "ATTACH '%s' AS n; INSERT INTO results SELECT path, graph, nodes, buffers, align, "
           "order_solver, place_solver, seed, time_limit, options, status, live_peak, arena, "
           "fragmentation, reuse_ratio, sum_sizes, lower_bound, profile_std, reduction_vs_given, "
           "reduction_vs_noreuse, order_ms, place_ms, plan_ms, order_cpu_ms, place_cpu_ms, wall_s, "
           "message, version, machine, cpu, started_at, experiment, order_status, place_status, "
           "fingerprint, repeats, plan_ms_min, plan_ms_max, plan_cpu_ms, plan_cpu_ms_min FROM "
           "n.results; CREATE TABLE graphs AS SELECT * FROM n.graphs; DETACH n;",
           old_schema, db);
  ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
  sqlite3_close(h);
  ck_assert_int_eq(q1(old, "SELECT count(*) FROM results"), 4);
  snprintf(cmd, sizeof cmd, cells, dir, dir, old);
  ck_assert_int_eq(sh("%s " MEMPLAN " bench %s --remat none --remat dtr --budgets 1x,0.9x "
                      "--memplan $FAKE",
                      fake_env_for(NULL), cmd),
                   0);
  ck_assert_msg(file_has("out.txt", "12 cells (0 skipped by the rules), 4 already done, 8 run: "),
                "the old cells resume");
  ck_assert_int_eq(q1(old, "PRAGMA user_version"), 3);
  ck_assert_int_eq(q1(old, "SELECT count(*) FROM results"), 12);
  ck_assert_int_eq(q1(old, "SELECT count(*) FROM results WHERE remat_solver = 'dtr'"), 8);
  ck_assert_int_eq(q1(old, "SELECT count(*) FROM results WHERE remat_solver = '' AND "
                          "budget_arg = '' AND bandwidth_arg = '' AND arena IS NOT NULL"),
                   4);
  ck_assert_int_eq(q1(old, "PRAGMA integrity_check") == -1, 0);
  /* the tables read it, old rows and new */
  ck_assert_int_eq(sh(MEMPLAN " table %s", old), 0);
  ck_assert_msg(file_has("out.txt", "| given+dtr+bysize | **0.0%** |"), "remat table");
  ck_assert_msg(file_has("out.txt", "| greedy+bysize |"), "order table");
  teardown();
}
END_TEST

/* ------------------------------------------------------------ refusals */

/* A size-cap refusal is its own status: not failed, not an error line, not
 * rerun by --retry-failed. */
START_TEST(refusals_are_not_failures) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/r.sqlite", dir);
  write_file("refuse.sh",
             "#!/bin/sh\necho '{\"graph\": \"g0\", \"nodes\": 10, \"buffers\": 10, \"status\": "
             "\"refused\", \"message\": \"fake: 10 nodes above its size cap 5\"}'\n"
             "echo 'memplan solve: fake: 10 nodes above its size cap 5' >&2\nexit 3\n",
             0755);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2 --results %s --memplan "
                      "%s/refuse.sh",
                      dir, db, dir),
                   0);
  ck_assert_msg(file_has("out.txt", "2 run: 0 ok, 0 failed (0 at the time limit), 2 refused"),
                "summary");
  ck_assert_msg(!file_has("err.txt", "refused:"), "a refusal printed as a failure");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE status = 'refused' AND arena IS NULL "
                          "AND message LIKE 'exit 3: fake: 10 nodes%'"),
                   2);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2 --results %s --memplan "
                      "%s/refuse.sh --retry-failed",
                      dir, db, dir),
                   0);
  ck_assert_msg(file_has("out.txt", "2 already done, 0 run"), "--retry-failed reran a refusal");
  teardown();
}
END_TEST

/* A solve the time limit stopped before any plan (status timeout, no
 * figures, exit 3) is a timeout row, not an error: counted at the time
 * limit and rerun by --retry-failed. */
START_TEST(timeout_without_plan_is_a_timeout) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/t.sqlite", dir);
  write_file("late.sh",
             "#!/bin/sh\necho '{\"graph\": \"g0\", \"nodes\": 10, \"buffers\": 10, \"status\": "
             "\"timeout\", \"has_figures\": false, \"message\": \"fake: no plan before the time "
             "limit\"}'\necho 'memplan solve: fake: no plan before the time limit' >&2\nexit 3\n",
             0755);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s --memplan %s/late.sh", dir, db, dir), 0);
  ck_assert_msg(file_has("out.txt", "1 run: 0 ok, 1 failed (1 at the time limit), 0 refused"), "summary");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE status = 'timeout' AND arena IS NULL "
                          "AND message LIKE 'exit 3: fake: no plan%'"),
                   1);
  teardown();
}
END_TEST

/* Another program's answer (--memplan PROGRAM) is judged before it is
 * stored: a status that is not memplan's, figures that contradict each
 * other, a claim of optimality or infeasibility that no bound bench
 * computes backs, each make a failed cell (status error, the reason in the
 * message, none of the answer stored); a backed claim is kept. */
static void judged(const char *script, const char *extra, const char *status, const char *words) {
  char db[600], name[64], sql[1200];
  static int k;
  snprintf(name, sizeof name, "liar%d.sh", ++k);
  snprintf(db, sizeof db, "%s/%s.sqlite", dir, name);
  write_file(name, script, 0755);
  ck_assert_int_eq(sh("%s " MEMPLAN " bench --graphs %s/g0.json --results %s --memplan %s/%s %s",
                      fake_env_for(NULL), dir, db, dir, name, extra), 0);
  snprintf(sql, sizeof sql, "SELECT count(*) FROM results WHERE status = '%s' AND %s", status,
           words[0] ? "" : "1");
  if (words[0])
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "message LIKE '%%%s%%' AND arena IS NULL "
             "AND place_status IS NULL", words);
  long long got = q1(db, sql);
  if (got != 1) {
    char msg[2000];
    slurp("err.txt", msg, sizeof msg);
    ck_abort_msg("%s: want status %s with '%s'; bench said: %s", name, status, words, msg);
  }
}

#define FIGS "\"has_figures\": true, \"live_peak\": 100, \"sum_sizes\": 400, \"lower_bound\": 10, " \
             "\"profile_std\": 1"

/* A cell's capacity and alignment are whole tokens of its options: an
 * override whose name ends in "capacity" or "align" is not them (bench's
 * judge and its command line once found them with strstr). */
START_TEST(cell_options_are_tokens) {
  const char *o = "align=64 capacity=4096 x.align=8 y.capacity=7";
  ck_assert_str_eq(mp_cell_option(o, "align"), "64 capacity=4096 x.align=8 y.capacity=7");
  ck_assert_int_eq(strtoll(mp_cell_option(o, "capacity"), NULL, 10), 4096);
  ck_assert_ptr_null(mp_cell_option("x.capacity=7", "capacity"));
  ck_assert_ptr_null(mp_cell_option("y.align=8 ", "align"));
  ck_assert_ptr_null(mp_cell_option("", "align"));
  ck_assert_ptr_null(mp_cell_option("capacityx=3", "capacity"));
  ck_assert_int_eq(strtoll(mp_cell_option("z.capacity=7 capacity=9", "capacity"), NULL, 10), 9);
}
END_TEST

START_TEST(foreign_answers_are_judged) {
  setup();
  /* status words */
  judged("#!/bin/sh\necho '{\"status\": \"great\", \"arena\": 100}'\n", "", "error",
         "answer refused by bench: status ''great'' is not one of optimal, feasible");
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", \"place_status\": \"superb\", " FIGS
         ", \"arena\": 100, \"fragmentation\": 0, \"reuse_ratio\": 4, \"reduction_vs_noreuse\": 0.75}'\n",
         "", "error", "place_status superb is not one of");
  judged("#!/bin/sh\necho '{\"status\": 7}'\nexit 3\n", "", "error", "status is not a string");
  /* figures that contradict each other */
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", " FIGS ", \"arena\": 50, "
         "\"fragmentation\": 0, \"reuse_ratio\": 8, \"reduction_vs_noreuse\": 0.875}'\n",
         "", "error", "arena 50 is below the live peak 100");
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", \"has_figures\": true, \"arena\": 100, "
         "\"sum_sizes\": 400}'\n", "", "error", "a plan without live_peak");
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", " FIGS ", \"arena\": -100}'\n", "", "error",
         "arena is not a non-negative integer");
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", " FIGS ", \"arena\": 100.5}'\n", "", "error",
         "arena is not a non-negative integer");
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", " FIGS ", \"arena\": 200, "
         "\"fragmentation\": \"NaN\", \"reuse_ratio\": 2, \"reduction_vs_noreuse\": 0.5}'\n",
         "", "error", "fragmentation is not a finite number");
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", " FIGS ", \"arena\": 200, "
         "\"fragmentation\": 0.5, \"reuse_ratio\": 3, \"reduction_vs_noreuse\": 0.5}'\n",
         "", "error", "reuse_ratio 3, but the figures give 2");
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", " FIGS ", \"arena\": 200, "
         "\"reuse_ratio\": 2, \"reduction_vs_noreuse\": 0.5}'\n", "", "error", "fragmentation is missing");
  /* a count the row stores, even without a plan: the row's reader cut 12.5 to 12 */
  judged("#!/bin/sh\necho '{\"status\": \"error\", \"nodes\": 12.5}'\nexit 2\n", "", "error",
         "nodes is not a non-negative integer");
  /* claims: the real solve's answer with its status turned into a claim */
  judged("#!/bin/sh\n\"$MEMPLAN_REAL\" \"$@\" | sed 's/\"status\": \"feasible\"/\"status\": \"optimal\"/'\n",
         "--place noreuse", "error", "it claims an optimum (arena");
  judged("#!/bin/sh\n\"$MEMPLAN_REAL\" \"$@\" | sed 's/\"status\": \"feasible\"/\"status\": \"infeasible\"/'"
         "\nexit 3\n", "--place noreuse", "error", "it claims no plan fits, though no capacity was asked");
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", " FIGS ", \"arena\": 200, "
         "\"fragmentation\": 0.5, \"reuse_ratio\": 2, \"reduction_vs_noreuse\": 0.5}'\n",
         "", "error", "live peak 100, but the file order (a file-order chain) peaks at");
  judged("#!/bin/sh\n\"$MEMPLAN_REAL\" \"$@\" | sed 's/\"status\": \"feasible\"/\"status\": \"infeasible\"/'"
         "\nexit 3\n", "--place noreuse --capacity 1000000000000", "error",
         "it claims no plan fits the capacity 1000000000000, but bench");
  judged("#!/bin/sh\necho '{\"status\": \"feasible\", \"has_figures\": true, \"live_peak\": 1000000000000, "
         "\"arena\": 1000000000000, \"sum_sizes\": 1000000000000, \"lower_bound\": 999999999999, "
         "\"fragmentation\": 0, \"reuse_ratio\": 1, \"reduction_vs_noreuse\": 0}'\n",
         "--order greedy", "error", "lower_bound 999999999999 is above bench");
  /* remat-exact's optimum with a rerun (duration 7 where every node once
   * takes 6), from another program: bench's duration floor cannot back it */
  judged("#!/bin/sh\n\"$MEMPLAN_REAL\" \"$@\"\n", "--remat remat-exact --budgets 0.85x", "error",
         "remat_status optimal (duration 7), but bench");
  /* an answer without has_figures (an older memplan): a timeout's figures are kept */
  char old_db[600];
  snprintf(old_db, sizeof old_db, "%s/old.sqlite", dir);
  write_file("old.sh", "#!/bin/sh\n\"$MEMPLAN_REAL\" \"$@\" | sed 's/\"has_figures\": true,//; "
             "s/\"status\": \"feasible\"/\"status\": \"timeout\"/; "
             "s/\"place_status\": \"feasible\"/\"place_status\": \"timeout\"/'\n", 0755);
  ck_assert_int_eq(sh("%s " MEMPLAN " bench --graphs %s/g0.json --results %s --memplan %s/old.sh",
                      fake_env_for(NULL), dir, old_db, dir),
                   0);
  ck_assert_int_eq(q1(old_db, "SELECT count(*) FROM results WHERE status = 'timeout' AND arena > 0"), 1);
  /* a claim bench can check stays: no plan fits a budget below the floor;
   * the real memplan's own claims are its harness's */
  judged("#!/bin/sh\nexec \"$FAKE\" \"$@\"\n", "--remat dtr --budgets 1", "infeasible", "");
  char db[600];
  snprintf(db, sizeof db, "%s/own.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s --capacity 1", dir, db), 0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE status = 'infeasible'"), 1);
  teardown();
}
END_TEST

/* Another program's plan (asked with --out) is verified by memplan's own
 * judge and its printed figures must be the judge's: a plan with an
 * overlap, figures of another plan, no plan at all, each a failed cell;
 * an honest wrapper's rows are this memplan's own, and it was asked for
 * its plan. */
#define PLAN_OF_ARGS "plan=; prev=; for a in \"$@\"; do [ \"$prev\" = --out ] && plan=$a; prev=$a; done\n"
/* a loop that keeps the arguments but --out PATH (and --place P as noreuse) */
#define ARGS_WITHOUT_OUT "prev=\nfor a in \"$@\"; do shift; [ \"$prev\" = --place ] && [ -n \"$NOREUSE\" ] && a=noreuse\n" \
                         "  [ \"$prev\" = --out ] || [ \"$a\" = --out ] || set -- \"$@\" \"$a\"; prev=$a; done\n"

/* correct figures, a plan with every offset 0: buffers live together overlap */
START_TEST(foreign_plan_with_an_overlap) {
  setup();
  judged("#!/bin/sh\n" PLAN_OF_ARGS "\"$MEMPLAN_REAL\" \"$@\" || exit $?\n"
         "[ -z \"$plan\" ] || sed -i 's/^  \\(\"[^\"]*\"\\): [0-9][0-9]*/  \\1: 0/' \"$plan\"\n",
         "", "error", "its plan does not verify (memplan''s verifier): buffers");
  teardown();
}
END_TEST

/* the plan of bysize, the figures of noreuse (each consistent) */
START_TEST(foreign_figures_of_another_plan) {
  setup();
  judged("#!/bin/sh\n\"$MEMPLAN_REAL\" \"$@\" >/dev/null || exit $?\nNOREUSE=1\n" ARGS_WITHOUT_OUT
         "exec \"$MEMPLAN_REAL\" \"$@\"\n",
         "", "error", "arena %, but its plan gives");
  teardown();
}
END_TEST

/* correct figures, --out dropped: no plan */
START_TEST(foreign_answer_without_a_plan) {
  setup();
  judged("#!/bin/sh\n" ARGS_WITHOUT_OUT "exec \"$MEMPLAN_REAL\" \"$@\"\n", "", "error",
         "wrote no plan file");
  teardown();
}
END_TEST

START_TEST(honest_wrapper_rows_are_own) {
  setup();
  /* an honest wrapper, with an alignment and a capacity of the cells' own
   * and a fixed-lifetime problem: this memplan's rows */
  write_file("honest.sh", "#!/bin/sh\necho \"$*\" >>\"$HONEST_LOG\"\nexec \"$MEMPLAN_REAL\" \"$@\"\n", 0755);
  const char *runs[] = {"", "--align 128 --capacity 1000000000", NULL};
  for (int i = 0; runs[i]; i++) {
    char db[600], own[600];
    snprintf(db, sizeof db, "%s/honest%d.sqlite", dir, i);
    snprintf(own, sizeof own, "%s/own%d.sqlite", dir, i);
    const char *cells = "--manifest %s/SUITE.tsv --graphs small --order given --order greedy "
                        "--place bysize --place firstfit --seeds 1,2";
    char m[1000];
    snprintf(m, sizeof m, cells, dir);
    ck_assert_int_eq(sh("%s export HONEST_LOG=%s/honest.log; " MEMPLAN " bench %s %s --results %s "
                        "--jobs 2 --memplan %s/honest.sh", fake_env_for(NULL), dir, m, runs[i], db, dir),
                     0);
    ck_assert_msg(!file_has("err.txt", "refused by bench"), "an honest wrapper's answer refused");
    ck_assert_int_eq(sh(MEMPLAN " bench %s %s --results %s --jobs 2", m, runs[i], own), 0);
    ck_assert_int_eq(rows_unlike(db, own), 0);
    ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE arena IS NULL"), 0);
  }
  /* asked for its plan each time; the scratch folders (in TMPDIR) gone */
  char cmd[2400];
  snprintf(cmd, sizeof cmd, "test $(grep -c -- ' --out [^ ]*/memplan-bench-[^ ]*/[0-9]*[.]plan' "
           "%s/honest.log) -eq $(wc -l < %s/honest.log) && test $(wc -l < %s/honest.log) -gt 0 && "
           "test -z \"$(ls -d %s/memplan-bench-* 2>/dev/null)\"", dir, dir, dir, dir);
  ck_assert_msg(system(cmd) == 0, "a call without --out, or a scratch folder left (%s)", dir);
  teardown();
}
END_TEST

/* The re-judging itself (bench_rejudge.c) on one answer and plan of this
 * memplan, changed one way at a time. */
START_TEST(rejudge_compares_with_the_judge) {
  setup();
  char plan[600], graph[600];
  snprintf(plan, sizeof plan, "%s/plan.json", dir);
  snprintf(graph, sizeof graph, "%s/g0.json", dir);
  ck_assert_int_eq(sh(MEMPLAN " solve %s --format json --no-baseline --out %s", graph, plan), 0);
  char text[1 << 14];
  slurp("out.txt", text, sizeof text);
  mp_cell c = {.path = graph, .file = graph, .order = "given", .place = "bysize", .options = "",
               .remat = "", .budget = "", .bandwidth = ""};
  mp_graph_facts cache;
  memset(&cache, 0, sizeof cache);
  struct {
    const char *options, *remat, *key; /* the cell's; a figure to change (+64) */
    const char *want;                  /* in the refusal ("": none) */
  } cases[] = {
      {"", "", NULL, ""},
      {"", "", "arena", "arena "},
      {"", "", "sum_sizes", "sum_sizes "},
      {"", "", "buffers", "buffers "},
      {"align=128", "", NULL, "not a multiple of its alignment 128"},
      {"capacity=64", "", NULL, "above the capacity 64 asked"},
      {"", "dtr", NULL, "its plan has no events"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    mp_cellrun run;
    memset(&run, 0, sizeof run);
    run.out = json_loads(text, 0, NULL);
    ck_assert_ptr_nonnull(run.out);
    if (cases[i].key) {
      json_t *v = json_object_get(run.out, cases[i].key);
      json_object_set_new(run.out, cases[i].key, json_integer(json_integer_value(v) + 64));
    }
    c.options = (char *)cases[i].options;
    c.remat = (char *)cases[i].remat;
    c.budget = cases[i].remat[0] ? "1x" : "";
    mp_cellrun_rejudge(&run, &c, plan, &cache);
    if (!cases[i].want[0])
      ck_assert_msg(!run.refused[0], "case %zu refused: %s", i, run.refused);
    else
      ck_assert_msg(strstr(run.refused, cases[i].want), "case %zu: want '%s', got '%s'", i,
                    cases[i].want, run.refused);
    json_decref(run.out);
  }
  /* no plan file */
  mp_cellrun run;
  memset(&run, 0, sizeof run);
  run.out = json_loads(text, 0, NULL);
  c.options = c.remat = c.budget = "";
  unlink(plan);
  mp_cellrun_rejudge(&run, &c, plan, &cache);
  ck_assert_msg(strstr(run.refused, "wrote no plan file"), "%s", run.refused);
  json_decref(run.out);
  mp_graph_facts_destroy(&cache);
  teardown();
}
END_TEST

/* ------------------------------------------------------------ stale rows */

/* Rows of another solver build, of a changed graph file, or with fewer
 * timed repeats than asked rerun; the others stay. */
START_TEST(stale_rows_rerun) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/s.sqlite", dir);
  const char *m = "--graphs %s/g0.json,%s/g1.json --order given --order greedy --results %s";
  char cmd[2400];
  snprintf(cmd, sizeof cmd, m, dir, dir, db);
  ck_assert_int_eq(sh(MEMPLAN " bench %s", cmd), 0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE fingerprint LIKE 'graph=% given=% "
                          "bysize=%'"),
                   2);
  ck_assert_int_eq(sh(MEMPLAN " bench %s", cmd), 0);
  ck_assert_msg(file_has("out.txt", "4 already done, 0 run"), "fresh rows rerun");
  /* a rebuilt solver: its rows carry another fingerprint */
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "UPDATE results SET fingerprint = replace(fingerprint, "
                                   "'greedy=', 'greedy=0') WHERE order_solver = 'greedy'",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  ck_assert_int_eq(sh(MEMPLAN " bench %s", cmd), 0);
  ck_assert_msg(file_has("out.txt", "2 already done, 2 run: 2 ok"), "stale solver rows");
  ck_assert_msg(file_has("out.txt", "2 stale rows rerun"), "stale count");
  /* a changed graph file: its rows and its bound */
  char p[600];
  snprintf(p, sizeof p, "%s/g0.json", dir);
  FILE *f = fopen(p, "a");
  fputs("\n", f);
  fclose(f);
  ck_assert_int_eq(sh(MEMPLAN " bench %s", cmd), 0);
  ck_assert_msg(file_has("out.txt", "2 already done, 2 run: 2 ok"), "changed graph");
  ck_assert_msg(file_has("out.txt", "1 graph bounds"), "bound recomputed");
  /* more repeats than the rows hold */
  ck_assert_int_eq(sh(MEMPLAN " bench %s --repeat 3", cmd), 0);
  ck_assert_msg(file_has("out.txt", "0 already done, 4 run: 4 ok"), "repeat");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE repeats = 3 AND plan_ms_min <= "
                          "plan_ms AND plan_ms <= plan_ms_max AND plan_cpu_ms_min <= plan_cpu_ms"),
                   4);
  ck_assert_int_eq(sh(MEMPLAN " bench %s --repeat 2", cmd), 0);
  ck_assert_msg(file_has("out.txt", "4 already done, 0 run"), "fewer repeats asked");
  teardown();
}
END_TEST

/* Each graph's bound is stored once, whatever solvers ran: the min-cut
 * bound of schedbound.h, max-live for a fixed-lifetime problem. */
START_TEST(graph_bounds_are_stored) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/b.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s/SUITE.tsv --graphs small,broken --results %s",
                      dir, db),
                   0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM graphs"), 4);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM graphs WHERE path = 'p.csv' AND bound_kind = "
                          "'max-live' AND bound = 158"),
                   1);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM graphs WHERE path = 'broken.json' AND bound IS NULL "
                          "AND message LIKE '%negative size%'"),
                   1);
  for (int k = 0; k < 2; k++) {
    char p[600], sql[300];
    snprintf(p, sizeof p, "%s/g%d.json", dir, k);
    mp_graph *g = NULL;
    mp_instance in;
    mp_error err;
    ck_assert_int_eq(mp_instance_load(p, NULL, &in, &err), 0);
    g = in.g;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM graphs WHERE path = 'g%d.json' AND bound_kind = "
             "'min-cut' AND bound = %lld", k, (long long)mp_sched_lower_bound(g, NULL));
    ck_assert_int_eq(q1(db, sql), 1);
    mp_instance_destroy(&in);
  }
  /* the export carries the bound beside each row */
  ck_assert_int_eq(sh(MEMPLAN " export %s", db), 0);
  ck_assert_msg(file_has("out.txt", ",graph_bound,bound_kind,given_arena,given_align\n"),
                "export header");
  ck_assert_msg(file_has("out.txt", ",158,max-live,"), "export bound");
  teardown();
}
END_TEST

/* reduction_vs_given of a direct solve of the row's cell (NAN: absent). */
static double solve_reduction(const mp_row *r) {
  static char out[1 << 16];
  ck_assert_int_eq(sh(MEMPLAN " solve %s/%s --order %s --place %s --seed %llu --format json", dir,
                      r->path, r->order, r->place, (unsigned long long)r->seed),
                   0);
  slurp("out.txt", out, sizeof out);
  json_t *o = json_loads(out, 0, NULL);
  ck_assert_ptr_nonnull(o);
  json_t *v = json_object_get(o, "reduction_vs_given");
  double d = json_is_number(v) ? json_number_value(v) : NAN;
  json_decref(o);
  return d;
}

/* The baseline of reduction_vs_given is each graph's, computed once by the
 * graph's own job at the default alignment: the cells run with
 * --no-baseline (their rows hold no figure of their own), and every reader
 * gets the figure the solve prints, to the last bit; a cell with --align
 * keeps its own. */
START_TEST(baseline_is_the_graphs) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/b.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s/SUITE.tsv --graphs small --order given --order "
                      "greedy --place bysize --place firstfit --results %s",
                      dir, db),
                   0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), 10);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE arena IS NULL OR "
                          "reduction_vs_given IS NOT NULL"),
                   0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM graphs WHERE given_arena > 0 AND given_fingerprint "
                          "LIKE 'given=% bysize=%' AND given_align = (CASE path WHEN 'p.csv' THEN 1 "
                          "ELSE 64 END)"),
                   3);
  mp_row *rows = NULL;
  int n = 0;
  char msg[512];
  ck_assert_int_eq(mp_rows_load(db, &rows, &n, msg, sizeof msg), 0);
  ck_assert_int_eq(n, 10);
  for (int i = 0; i < n; i++) {
    double want = solve_reduction(&rows[i]);
    ck_assert_msg(!isnan(want) && rows[i].reduction_vs_given == want, "%s %s+%s: %.17g, solve %.17g",
                  rows[i].path, rows[i].order, rows[i].place, rows[i].reduction_vs_given, want);
  }
  mp_rows_destroy(rows, n);
  /* the tables and the export show it */
  ck_assert_int_eq(sh(MEMPLAN " table %s --format csv", db), 0);
  ck_assert_msg(file_has("out.txt", ",reduction_vs_given,") && file_has("out.txt", ",0.000000,"),
                "table");
  ck_assert_int_eq(sh(MEMPLAN " export %s | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "
                      "\"reduction_vs_given\") c = i; next } $c != \"\" { n++ } END { print n }'",
                      db),
                   0);
  ck_assert_msg(file_has("out.txt", "10\n"), "export: every row has the figure");
  /* --align: the cell computes its own baseline at its alignment */
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --order greedy --align 128 --results %s",
                      dir, db),
                   0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE options = 'align=128' AND align = 128 "
                          "AND reduction_vs_given IS NOT NULL"),
                   1);
  teardown();
}
END_TEST

/* A baseline from other solvers (their sources changed) is computed again,
 * with the bound, and the rows stay; so is a baseline the file lacks. */
START_TEST(stale_baseline_recomputed) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/s.sqlite", dir);
  const char *m = MEMPLAN " bench --graphs %s/g0.json,%s/g1.json --order greedy --results %s";
  ck_assert_int_eq(sh(m, dir, dir, db), 0);
  long long g0 = q1(db, "SELECT given_arena FROM graphs WHERE path LIKE '%g0.json'");
  ck_assert_int_gt(g0, 0);
  ck_assert_int_eq(sh(m, dir, dir, db), 0);
  ck_assert_msg(file_has("out.txt", "2 already done, 0 run") && !file_has("out.txt", "graph bounds"),
                "a current baseline recomputed");
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  /* a stale fingerprint marked by an 'x', which no hex digest holds (a
   * '0' was taken for stale when bysize's digest began with one) */
  ck_assert_int_eq(sqlite3_exec(h, "UPDATE graphs SET given_arena = 1, given_fingerprint = "
                                   "replace(given_fingerprint, 'bysize=', 'bysize=x') WHERE path "
                                   "LIKE '%g0.json'; UPDATE graphs SET given_arena = NULL, "
                                   "given_align = NULL, given_fingerprint = NULL WHERE path LIKE "
                                   "'%g1.json'",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  ck_assert_int_eq(sh(m, dir, dir, db), 0);
  ck_assert_msg(file_has("out.txt", "2 already done, 0 run") && file_has("out.txt", "; 2 graph bounds"),
                "stale baselines");
  char sql[300];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM graphs WHERE given_arena > 0 AND given_align = 64 "
           "AND given_fingerprint NOT LIKE '%%bysize=x%%' AND (path NOT LIKE '%%g0.json' OR "
           "given_arena = %lld)", g0);
  ck_assert_int_eq(q1(db, sql), 2);
  teardown();
}
END_TEST

/* A file made before the graphs table had the baseline: read as it is (its
 * rows keep their own reduction_vs_given), merged, and a bench adds the
 * columns and the baselines. */
START_TEST(older_graphs_table_loads) {
  setup();
  char db[600], old[600], merged[600], sql[2048];
  snprintf(db, sizeof db, "%s/new.sqlite", dir);
  snprintf(old, sizeof old, "%s/old.sqlite", dir);
  snprintf(merged, sizeof merged, "%s/merged.sqlite", dir);
  const char *m = MEMPLAN " bench --graphs %s/g0.json --order greedy --results %s";
  ck_assert_int_eq(sh(m, dir, db), 0);
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(old, &h), SQLITE_OK);
  snprintf(sql, sizeof sql,
           "ATTACH '%s' AS n; PRAGMA application_id = 1836084334; CREATE TABLE results AS SELECT * "
           "FROM n.results; UPDATE results SET reduction_vs_given = 0.25; CREATE TABLE graphs AS "
           "SELECT path, graph, nodes, buffers, digest, bound, bound_kind, message, computed_at, "
           "version FROM n.graphs; DETACH n;",
           db);
  ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
  sqlite3_close(h);
  ck_assert_int_eq(sh(MEMPLAN " export %s", old), 0);
  ck_assert_msg(file_has("out.txt", ",graph_bound,bound_kind,given_arena,given_align\n") &&
                    file_has("out.txt", ",0.25,"),
                "export of the older file");
  ck_assert_int_eq(sh(MEMPLAN " table %s --format csv", old), 0);
  ck_assert_msg(file_has("out.txt", ",0.250000,"), "table of the older file");
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s", merged, old), 0);
  ck_assert_int_eq(q1(merged, "SELECT count(*) FROM graphs WHERE bound > 0 AND given_arena IS NULL"), 1);
  ck_assert_int_eq(sh(m, dir, old), 0);
  ck_assert_msg(file_has("out.txt", "1 already done, 0 run") && file_has("out.txt", "; 1 graph bounds"),
                "the older file gains the baseline");
  ck_assert_int_eq(q1(old, "SELECT count(*) FROM graphs WHERE given_arena > 0 AND given_align = 64"), 1);
  teardown();
}
END_TEST

/* A baseline its allowance (half of max_wall_s) cuts: the graph keeps its
 * bound, the baseline is absent with a message, and the rows (whose cells
 * ran in milliseconds) have figures but reduction_vs_given absent, not 0. */
START_TEST(cut_baseline_keeps_the_bound) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/c.sqlite", dir);
  /* the 10^5-node training step: its baseline (greedy by size on the file
   * order) takes 28 s on the 2-core machine, reading it and its bound 1 s */
  ck_assert_int_eq(sh(MEMPLAN " gen sp -n 50000 --par-prob 0.2 --backward --seed 1 --out %s/train.json",
                      dir),
                   0);
  write_file("cut.json", "{\"graphs\": [\"train.json\"], \"order\": [\"given\"], \"place\": "
             "[\"firstfit\"], \"max_wall_s\": 6}", 0);
  ck_assert_int_eq(sh(MEMPLAN " bench %s/cut.json --results %s", dir, db), 0);
  ck_assert_msg(file_has("out.txt", "1 run: 1 ok"), "the cell");
  ck_assert_msg(file_has("err.txt", "train.json: no baseline: "), "the message on stderr");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM graphs WHERE bound > 0 AND nodes = 100001 AND "
                          "given_arena IS NULL AND given_fingerprint IS NOT NULL AND "
                          "message LIKE 'no baseline: %'"),
                   1);
  mp_row *rows = NULL;
  int n = 0;
  char msg[512];
  ck_assert_int_eq(mp_rows_load(db, &rows, &n, msg, sizeof msg), 0);
  ck_assert_int_eq(n, 1);
  ck_assert(rows[0].has_fig && rows[0].arena > 0 && isnan(rows[0].reduction_vs_given));
  ck_assert_int_eq(rows[0].graph_bound, q1(db, "SELECT bound FROM graphs"));
  mp_rows_destroy(rows, n);
  /* resumed: the cut baseline is not tried again, unless asked */
  ck_assert_int_eq(sh(MEMPLAN " bench %s/cut.json --results %s", dir, db), 0);
  ck_assert_msg(file_has("out.txt", "1 already done, 0 run") && !file_has("out.txt", "graph bounds"),
                "resume");
  teardown();
}
END_TEST

/* SQL on a results file: what a cut, another build or another version of
 * the graph would have left there. */
static void db_run(const char *db, const char *sql) {
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
                sqlite3_errmsg(h));
  sqlite3_close(h);
}

/* A copy of a results file (the WAL's rows included). */
static void db_copy(const char *from, const char *to) {
  char sql[700];
  snprintf(sql, sizeof sql, "VACUUM INTO '%s'", to);
  db_run(from, sql);
}

/* The rows of a and of b: the same cells, each with the same
 * reduction_vs_given, to the last bit (want_absent: all absent in a). */
static void same_reductions(const char *a, const char *b, int cells, bool want_absent) {
  mp_row *ra = NULL, *rb = NULL;
  int na = 0, nb = 0;
  char msg[512];
  ck_assert_int_eq(mp_rows_load(a, &ra, &na, msg, sizeof msg), 0);
  ck_assert_int_eq(mp_rows_load(b, &rb, &nb, msg, sizeof msg), 0);
  ck_assert_int_eq(na, cells);
  ck_assert_int_eq(nb, cells);
  for (int i = 0; i < na; i++) {
    char *ka = mp_row_key(&ra[i]), *kb = mp_row_key(&rb[i]);
    ck_assert_str_eq(ka, kb);
    ck_assert_msg(ra[i].has_fig && !isnan(rb[i].reduction_vs_given), "%s: no figure", kb);
    if (want_absent)
      ck_assert_msg(isnan(ra[i].reduction_vs_given), "%s: %.17g from %s", ka,
                    ra[i].reduction_vs_given, a);
    else
      ck_assert_msg(ra[i].reduction_vs_given == rb[i].reduction_vs_given,
                    "%s: %.17g, unmerged %.17g", ka, ra[i].reduction_vs_given,
                    rb[i].reduction_vs_given);
    free(ka);
    free(kb);
  }
  mp_rows_destroy(ra, na);
  mp_rows_destroy(rb, nb);
}

/* Every row of results file a has no graph bound (a graphs row of another
 * version of the graph must not lend its bound). */
static void no_graph_bounds(const char *a) {
  mp_row *r = NULL;
  int n = 0;
  char msg[512];
  ck_assert_int_eq(mp_rows_load(a, &r, &n, msg, sizeof msg), 0);
  ck_assert_int_gt(n, 0);
  for (int i = 0; i < n; i++) ck_assert_msg(r[i].graph_bound == MP_NA, "row %d: bound %lld", i, (long long)r[i].graph_bound);
  mp_rows_destroy(r, n);
}

#define CUT_SQL                                                                               \
  "UPDATE graphs SET given_arena = NULL, given_align = NULL, message = 'no baseline: killed at " \
  "the time limit'"

/* Two shards, one whose baseline was cut: merged in either order, or one
 * after the other into the same OUT, the graph has the other's baseline
 * and every row the very reduction_vs_given of the unsharded bench. */
START_TEST(merge_keeps_the_baseline) {
  setup();
  char full[600], s[2][600], out[600];
  const char *m = MEMPLAN " bench --graphs %s/g0.json --order given --order greedy --place firstfit "
                  "--place bysize %s --results %s";
  snprintf(full, sizeof full, "%s/full.sqlite", dir);
  ck_assert_int_eq(sh(m, dir, "", full), 0);
  for (int i = 0; i < 2; i++) {
    char shard[32];
    snprintf(s[i], sizeof s[i], "%s/s%d.sqlite", dir, i);
    snprintf(shard, sizeof shard, "--shard %d/2", i);
    ck_assert_int_eq(sh(m, dir, shard, s[i]), 0);
    ck_assert_int_eq(q1(s[i], "SELECT count(*) FROM results"), 2);
  }
  db_run(s[0], CUT_SQL);
  long long given = q1(full, "SELECT given_arena FROM graphs");
  ck_assert_int_gt(given, 0);
  for (int first = 0; first < 2; first++) {
    snprintf(out, sizeof out, "%s/m%d.sqlite", dir, first);
    ck_assert_int_eq(sh(MEMPLAN " merge %s %s %s", out, s[first], s[1 - first]), 0);
    ck_assert_int_eq(q1(out, "SELECT given_arena FROM graphs WHERE given_align = 64 AND message "
                             "IS NULL"),
                     given);
    same_reductions(out, full, 4, false);
  }
  snprintf(out, sizeof out, "%s/grown.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s", out, s[0]), 0);
  ck_assert_int_eq(q1(out, "SELECT count(*) FROM graphs WHERE given_arena IS NULL"), 1);
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s", out, s[1]), 0);
  ck_assert_int_eq(q1(out, "SELECT given_arena FROM graphs"), given);
  same_reductions(out, full, 4, false);
  teardown();
}
END_TEST

/* Between graphs rows that both have a baseline, the merge keeps the one
 * of the graph version the rows ran on, then the one of this build's
 * solvers; a baseline of another version of the graph gives no row a
 * figure, in a merged file or not. */
START_TEST(merge_prefers_the_rows_graph_version) {
  setup();
  char full[600], other[600], old[600], out[600];
  snprintf(full, sizeof full, "%s/full.sqlite", dir);
  snprintf(other, sizeof other, "%s/other.sqlite", dir);
  snprintf(old, sizeof old, "%s/old.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --order given --order greedy --place "
                      "firstfit --results %s", dir, full),
                   0);
  long long given = q1(full, "SELECT given_arena FROM graphs");
  db_copy(full, other);
  db_run(other, "UPDATE graphs SET digest = '0123456789abcdef', given_arena = 1");
  same_reductions(other, full, 2, true);
  no_graph_bounds(other);
  db_copy(full, old);
  db_run(old, "UPDATE graphs SET given_arena = given_arena * 2, given_fingerprint = "
              "'given=x bysize=x'");
  const char *firsts[2] = {other, old};
  for (int k = 0; k < 2; k++) {
    snprintf(out, sizeof out, "%s/m%d.sqlite", dir, k);
    ck_assert_int_eq(sh(MEMPLAN " merge %s %s %s", out, firsts[k], full), 0);
    ck_assert_int_eq(q1(out, "SELECT given_arena FROM graphs WHERE digest NOT LIKE '0123%' AND "
                             "given_fingerprint NOT LIKE '%=x%'"),
                     given);
    same_reductions(out, full, 2, false);
  }
  teardown();
}
END_TEST

/* --retry-failed runs the graph's job again when its baseline was cut (the
 * file as a cut leaves it: the bound, no baseline, a message) and fills
 * given_arena, so the rows get reduction_vs_given back; a plain resume
 * leaves the cut alone. */
START_TEST(retry_failed_redoes_a_cut_baseline) {
  setup();
  char db[600], before[600];
  snprintf(db, sizeof db, "%s/r.sqlite", dir);
  snprintf(before, sizeof before, "%s/before.sqlite", dir);
  const char *m = MEMPLAN " bench --graphs %s/g0.json --order greedy --place firstfit --place "
                  "bysize%s --results %s";
  ck_assert_int_eq(sh(m, dir, "", db), 0);
  long long given = q1(db, "SELECT given_arena FROM graphs");
  ck_assert_int_gt(given, 0);
  db_copy(db, before);
  db_run(db, CUT_SQL);
  same_reductions(db, before, 2, true);
  ck_assert_int_eq(sh(m, dir, "", db), 0);
  ck_assert_msg(file_has("out.txt", "2 already done, 0 run") && !file_has("out.txt", "graph bounds"),
                "resume");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM graphs WHERE given_arena IS NULL"), 1);
  ck_assert_int_eq(sh(m, dir, " --retry-failed", db), 0);
  ck_assert_msg(file_has("out.txt", "2 already done, 0 run") && file_has("out.txt", "; 1 graph bounds"),
                "retry");
  ck_assert_int_eq(q1(db, "SELECT given_arena FROM graphs WHERE given_align = 64 AND message IS NULL "
                          "AND bound > 0"),
                   given);
  same_reductions(db, before, 2, false);
  teardown();
}
END_TEST

/* ------------------------------------------------------------ sharing */

/* Two bench processes on one results file: every cell runs once, remat
 * cells (a stand-in solve) among them. */
START_TEST(two_benches_share_one_file) {
  setup();
  char db[600], log[600];
  snprintf(db, sizeof db, "%s/shared.sqlite", dir);
  snprintf(log, sizeof log, "%s/calls.log", dir);
  char script[sizeof fake_env + 64];
  snprintf(script, sizeof script, "#!/bin/sh\nsleep 0.05\n%s\nexec \"$FAKE\" \"$@\"\n",
           fake_env_for(log));
  write_file("logged.sh", script, 0755);
  const char *remat = "--remat none --remat rotor --budgets 1x";
  enum { CELLS = MATRIX_CELLS + 2 * 3 * 2 * 2 }; /* the graph cells again, with rotor */
  pid_t a = start("a", MEMPLAN " bench --manifest %s/SUITE.tsv %s %s --jobs 2 --results %s "
                       "--memplan %s/logged.sh", dir, MATRIX, remat, db, dir);
  pid_t b = start("b", MEMPLAN " bench --manifest %s/SUITE.tsv %s %s --jobs 2 --results %s "
                       "--memplan %s/logged.sh", dir, MATRIX, remat, db, dir);
  ck_assert_int_eq(finish(a), 0);
  ck_assert_int_eq(finish(b), 0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), CELLS);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE remat_solver = 'rotor' AND "
                          "status = 'feasible' AND duration > 0"),
                   CELLS - MATRIX_CELLS);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 0);
  /* each cell ran exactly once: one line per cell in the log, all distinct */
  char cmd[1500];
  snprintf(cmd, sizeof cmd, "test $(wc -l < %s) -eq %d && test $(sort -u %s | wc -l) -eq %d", log,
           CELLS, log, CELLS);
  ck_assert_msg(system(cmd) == 0, "a cell ran twice or not at all (%s)", log);
  /* and the two summaries add up */
  static char oa[4096], ob[4096];
  slurp("a.out", oa, sizeof oa);
  slurp("b.out", ob, sizeof ob);
  const char *ra = strstr(oa, " run: "), *rb = strstr(ob, " run: ");
  ck_assert_ptr_nonnull(ra);
  ck_assert_ptr_nonnull(rb);
  while (ra > oa && ra[-1] != ' ') ra--;
  while (rb > ob && rb[-1] != ' ') rb--;
  ck_assert_int_eq(atoi(ra) + atoi(rb), CELLS);
  teardown();
}
END_TEST

/* Cells that differ only in their options are distinct cells, in the
 * rows and in the claims: a second run with --set into the same file runs
 * every cell again (a claim without the options would find the first
 * run's row and skip them). */
START_TEST(options_tell_cells_apart) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/opts.sqlite", dir);
  static const char *cells = "--graphs small --order given --place exact --seeds 1 --time-limit 5";
  ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s/SUITE.tsv %s --results %s", dir, cells, db), 0);
  int n = (int)q1(db, "SELECT count(*) FROM results");
  ck_assert_int_ge(n, 3);
  ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s/SUITE.tsv %s --set exact.twins=0 --jobs 2 --results %s",
                      dir, cells, db),
                   0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), 2 * n);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE options LIKE '%twins=0%'"), n);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 0);
  teardown();
}
END_TEST

/* A claim left by a killed bench does not block a resume. */
START_TEST(stale_claims_are_retaken) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/c.sqlite", dir);
  write_file("slow.sh", "#!/bin/sh\nexec sleep 30\n", 0755);
  pid_t p = start("k", MEMPLAN " bench --graphs %s/g0.json --results %s --memplan %s/slow.sh "
                       "--time-limit 0", dir, db, dir);
  double t0 = mp_now(); /* a minute: under ASan on a loaded machine 10 s once fell short */
  while (mp_now() - t0 < 60) {
    struct stat st;
    if (stat(db, &st) == 0 && q1_try(db, "SELECT count(*) FROM claims") == 1) break;
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
  }
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 1);
  kill(p, SIGKILL);
  finish(p);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 1); /* left behind */
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s --time-limit 0", dir, db), 0);
  ck_assert_msg(file_has("out.txt", "0 already done, 1 run: 1 ok"), "the claim blocked the resume");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 0);
  teardown();
}
END_TEST

/* SIGINT: the "rerun to resume" message, exit 130, claims dropped. */
START_TEST(sigint_exits_130) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/i.sqlite", dir);
  write_file("slow.sh", "#!/bin/sh\nexec sleep 30\n", 0755);
  pid_t p = start("i", MEMPLAN " bench --graphs %s/g0.json,%s/g1.json --results %s --memplan "
                       "%s/slow.sh --time-limit 0 --jobs 2", dir, dir, db, dir);
  double t0 = mp_now();
  struct stat st;
  while (mp_now() - t0 < 10 && !(stat(db, &st) == 0 && q1_try(db, "SELECT count(*) FROM claims") == 2)) {
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
  }
  kill(p, SIGINT);
  ck_assert_int_eq(finish(p), 130);
  ck_assert_msg(file_has("i.err", "interrupted by signal 2"), "message");
  ck_assert_msg(file_has("i.err", "rerun to resume"), "message");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), 0);
  teardown();
}
END_TEST

/* ------------------------------------------------------------ files */

/* Results files memplan did not make, or that are damaged, are refused
 * before anything runs; so is a results path that cannot be written, and
 * no summary line is printed. */
START_TEST(bad_results_files_are_refused) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/foreign.sqlite", dir);
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "CREATE TABLE payroll (name TEXT, salary INTEGER)", NULL, NULL,
                                NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s", dir, db), 1);
  ck_assert_msg(file_has("err.txt", "table 'payroll' that memplan did not make"), "foreign");
  ck_assert_msg(!file_has("out.txt", "bench "), "a summary was printed");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM sqlite_master"), 1); /* untouched */
  ck_assert_int_eq(sh(MEMPLAN " table %s", db), 1);
  /* a damaged index: PRAGMA quick_check fails */
  snprintf(db, sizeof db, "%s/damaged.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2,3 --results %s", dir, db), 0);
  long long root = q1(db, "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_results_1'");
  long long psize = q1(db, "PRAGMA page_size");
  FILE *f = fopen(db, "r+b");
  ck_assert_ptr_nonnull(f);
  fseek(f, (long)((root - 1) * psize + 8), SEEK_SET);
  for (int i = 0; i < 64; i++) fputc('X', f);
  fclose(f);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 4 --results %s", dir, db), 1);
  ck_assert_msg(file_has("err.txt", "fails PRAGMA quick_check"), "damaged");
  ck_assert_msg(!file_has("out.txt", "bench "), "a summary was printed");
  ck_assert_int_eq(sh(MEMPLAN " table %s", db), 1);
  /* not a database at all */
  write_file("text.sqlite", "hello, world\n", 0);
  snprintf(db, sizeof db, "%s/text.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s", dir, db), 1);
  ck_assert_msg(file_has("err.txt", "not a SQLite database"), "text file");
  /* a path that cannot be written: no summary */
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s/nodir/r.sqlite", dir, dir), 1);
  ck_assert_msg(file_has("err.txt", "cannot open for writing"), "no directory");
  ck_assert_msg(!file_has("out.txt", "bench "), "a summary was printed");
  /* a read-only results file (as another user when run as root) */
  snprintf(db, sizeof db, "%s/ro.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s", dir, db), 0);
  chmod(db, 0444);
  chmod(dir, 0755);
  char g[PATH_MAX], real[PATH_MAX];
  abs_memplan(real, sizeof real);
  snprintf(g, sizeof g, "%s/g1.json", dir);
  char *ag = realpath(g, NULL), *adb = realpath(db, NULL);
  const char *as = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  /* TMPDIR=/tmp: the scratch folder is made before the results file is
   * opened, and the fixture's TMPDIR is not the other user's to write */
  ck_assert_int_eq(sh("cd / && TMPDIR=/tmp %s%s bench --graphs %s --results %s", as, real, ag, adb), 1);
  ck_assert_msg(file_has("err.txt", "read-only"), "read-only");
  ck_assert_msg(!file_has("out.txt", "bench "), "a summary was printed");
  free(ag);
  free(adb);
  teardown();
}
END_TEST

/* merge OUT corrupt.sqlite: no OUT; an existing OUT unchanged. */
START_TEST(merge_never_harms_out) {
  setup();
  char good[600], out[600];
  snprintf(good, sizeof good, "%s/good.sqlite", dir);
  snprintf(out, sizeof out, "%s/out.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s", dir, good), 0);
  write_file("bad.sqlite", "this is not a results file\n", 0);
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s %s/bad.sqlite", out, good, dir), 1);
  struct stat st;
  ck_assert_int_ne(stat(out, &st), 0);
  char ls[700];
  snprintf(ls, sizeof ls, "ls %s/out.sqlite* >/dev/null 2>&1", dir);
  ck_assert_msg(system(ls) != 0, "a temporary file left");
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s", out, good), 0);
  ck_assert_int_eq(q1(out, "SELECT count(*) FROM results"), 1);
  ck_assert_int_eq(q1(out, "SELECT count(*) FROM graphs"), 1);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g1.json --results %s/more.sqlite", dir, dir), 0);
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s/more.sqlite %s/bad.sqlite", out, dir, dir), 1);
  ck_assert_int_eq(q1(out, "SELECT count(*) FROM results"), 1); /* nothing of more.sqlite */
  ck_assert_int_eq(q1(out, "PRAGMA quick_check") == -1, 0);
  teardown();
}
END_TEST

/* A value of another kind stored by hand in a results file (SQLite keeps
 * 'abc' in an INTEGER column) is refused when the rows are read, naming the
 * row and the column: it was read as 0 (-1 in seed as 2^64 - 1, 1.5 in
 * arena as 1); a status column holding no status was taken as it was. */
START_TEST(hand_edited_values_are_refused) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/h.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s", dir, db), 0);
  const char *edits[][2] = {{"live_peak = 'abc'", "column live_peak holds 'abc', not an integer"},
                            {"seed = -1", "column seed holds '-1', not a non-negative integer"},
                            {"arena = 1.5", "column arena holds '1.5', not an integer"},
                            {"time_limit = 'x'", "column time_limit holds 'x', not a number"},
                            {"status = 'bogus'", "column status holds 'bogus', not a status (optimal, "},
                            {"status = 'fixed'", "column status holds 'fixed', not a status"},
                            {"place_status = 'Optimal'", "column place_status holds 'Optimal', not a status"}};
  for (size_t e = 0; e < sizeof edits / sizeof *edits; e++) {
    sqlite3 *h;
    char sql[200];
    snprintf(sql, sizeof sql, "UPDATE results SET %s", edits[e][0]);
    ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    mp_row *rows = NULL;
    int n = 0;
    char msg[512] = "";
    ck_assert_int_eq(mp_rows_load(db, &rows, &n, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "results row 1: ") && strstr(msg, edits[e][1]), "%s", msg);
    mp_rows_destroy(rows, n);
    ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK); /* a fresh row for the next edit */
    ck_assert_int_eq(sqlite3_exec(h, "DELETE FROM results", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s", dir, db), 0);
    ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), 1);
  }
  teardown();
}
END_TEST

static bool exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

/* What a bench that made its results file and failed before its first row
 * removes: the file only when it holds nothing and no other connection has
 * it open (another bench process may be about to write it); a file with a
 * row stays. */
START_TEST(discard_only_an_unused_results_file) {
  setup();
  char db[600], side[640], msg[512];
  snprintf(db, sizeof db, "%s/d.sqlite", dir);
  mp_db *h = mp_db_open(db, msg, sizeof msg);
  ck_assert_msg(h != NULL, "%s", msg);
  mp_db *other = mp_db_open(db, msg, sizeof msg); /* another process's connection */
  ck_assert_msg(other != NULL, "%s", msg);
  mp_db_close(h);
  mp_db_discard_unused(db, true);
  ck_assert(exists(db)); /* still open elsewhere */
  mp_db_close(other);
  mp_db_discard_unused(db, true);
  ck_assert(!exists(db));
  snprintf(side, sizeof side, "%s-wal", db);
  ck_assert(!exists(side));
  snprintf(side, sizeof side, "%s-shm", db);
  ck_assert(!exists(side));
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s", dir, db), 0);
  mp_db_discard_unused(db, true);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), 1);
  teardown();
}
END_TEST

/* Every connection's sqlite3_busy_timeout passes here (the one a results
 * file's opening sets right after sqlite3_open_v2): when a test sets
 * discard_on_open, the next call first discards that test's file, as a
 * failing bench that made it would while another process opens it. */
static struct {
  mp_db *db;
  mp_db_birth birth;
  const char *path;
} discard_on_open;

int sqlite3_busy_timeout(sqlite3 *db, int ms) {
  static int (*real)(sqlite3 *, int);
  if (!real) real = (int (*)(sqlite3 *, int))dlsym(RTLD_NEXT, "sqlite3_busy_timeout");
  if (discard_on_open.db) {
    mp_db *made = discard_on_open.db;
    discard_on_open.db = NULL;
    mp_db_discard_made(made, discard_on_open.path, false, &discard_on_open.birth);
  }
  return real(db, ms);
}

/* A process that opened the file just before its maker removed it: SQLite
 * refuses to write the unlinked file, and mp_db_open_mode opens the path
 * again (it said "cannot be written (attempt to write a readonly
 * database)"); it then makes the file anew. */
START_TEST(a_shared_file_removed_while_opening_is_opened_again) {
  setup();
  char db[600], msg[512];
  snprintf(db, sizeof db, "%s/o.sqlite", dir);
  mp_db_birth ob;
  discard_on_open.db = mp_db_open_mode(db, false, &discard_on_open.birth, msg, sizeof msg);
  ck_assert_msg(discard_on_open.db && discard_on_open.birth.made, "%s", msg);
  discard_on_open.path = db;
  mp_db *h = mp_db_open_mode(db, false, &ob, msg, sizeof msg);
  ck_assert_ptr_null(discard_on_open.db); /* the removal happened within that opening */
  ck_assert_msg(h != NULL, "%s", msg);
  ck_assert(ob.made && exists(db));
  ck_assert_int_eq(sqlite3_exec(h, "INSERT INTO graphs (path) VALUES ('g')", NULL, NULL, NULL), SQLITE_OK);
  mp_db_close(h);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM graphs"), 1);
  teardown();
}
END_TEST

/* --shared-fs (a rollback journal, where no lock tells that another
 * process has the file open): a bench that made its results file and
 * failed removes it when it wrote no row and no other connection committed
 * to it since it made it (every process writes the tables as it opens the
 * file); it left the file with its empty tables.  A file it did not make,
 * or one with a graph's row, stays; a connection opened just before the
 * removal cannot write the unlinked file (SQLite refuses: the reason
 * mp_db_open_mode opens it again by its name). */
START_TEST(discard_a_shared_results_file_only_when_unused) {
  setup();
  char db[600], side[640], msg[512];
  snprintf(db, sizeof db, "%s/s.sqlite", dir);
  snprintf(side, sizeof side, "%s-journal", db);
  mp_db_birth b, ob;
  mp_db *h = mp_db_open_mode(db, false, &b, msg, sizeof msg);
  ck_assert_msg(h != NULL, "%s", msg);
  ck_assert(b.made);
  sqlite3 *early = NULL; /* opened, nothing read or written yet */
  ck_assert_int_eq(sqlite3_open_v2(db, &early, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
  mp_db_discard_made(h, db, false, &b);
  ck_assert(!exists(db));
  ck_assert(!exists(side));
  ck_assert_int_ne(sqlite3_exec(early, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_extended_errcode(early), SQLITE_READONLY_DBMOVED);
  sqlite3_close(early);
  ck_assert(!exists(db));
  /* another process opened it (and may be about to claim a cell): it stays */
  h = mp_db_open_mode(db, false, &b, msg, sizeof msg);
  mp_db *other = mp_db_open_mode(db, false, &ob, msg, sizeof msg);
  ck_assert(b.made && !ob.made);
  mp_db_close(other);
  mp_db_discard_made(h, db, false, &b);
  ck_assert(exists(db));
  /* not made by this connection: it stays, whatever it holds */
  h = mp_db_open_mode(db, false, &ob, msg, sizeof msg);
  ck_assert(!ob.made);
  mp_db_discard_made(h, db, false, &ob);
  ck_assert(exists(db));
  unlink(db);
  /* a graph's row of its own: it stays */
  h = mp_db_open_mode(db, false, &b, msg, sizeof msg);
  ck_assert_int_eq(sqlite3_exec(h, "INSERT INTO graphs (path) VALUES ('g')", NULL, NULL, NULL), SQLITE_OK);
  mp_db_discard_made(h, db, false, &b);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM graphs"), 1);
  teardown();
}
END_TEST

/* The scratch probe names what stops it: on a nearly full TMPDIR its write
 * came back short, with the errno of an earlier call ("Inappropriate ioctl
 * for device").  A file size limit makes the same short write. */
START_TEST(scratch_probe_names_the_real_error) {
  char dir[] = "/tmp/mp_probe_XXXXXX", msg[512] = "";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  struct rlimit old, lim;
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
  lim = old;
  lim.rlim_cur = 10000;
  void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  errno = ENOTTY;
  int rc = mp_scratch_probe(dir, msg, sizeof msg);
  setrlimit(RLIMIT_FSIZE, &old); /* CK_FORK=no runs every test in this process */
  signal(SIGXFSZ, was);
  rmdir(dir);
  ck_assert_int_eq(rc, -1);
  ck_assert_msg(strstr(msg, strerror(EFBIG)) && !strstr(msg, strerror(ENOTTY)), "%s", msg);
}
END_TEST

/* ------------------------------------------------------------ options */

/* Mistyped solver options, NaN limits and the old chain syntax are usage
 * errors (exit 2) before anything runs; a chain is "greedy,sa". */
START_TEST(bench_usage_errors) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/u.sqlite", dir);
  const char *bad[] = {"--set hillclimb.iterz=5", "--set nosuchsolver.a=5", "--set iterz=5",
                       "--set sa.iters=nan", "--set sa.iters=-4", "--time-limit nan",
                       "--time-limit 1,inf", "--mem-limit nan", "--grace nan", "--order greedy:sa",
                       "--seeds 18446744073709551616", "--jobs 2x", "--repeat 0",
                       "--set sa.iters=5 --order greedy", NULL};
  for (int i = 0; bad[i]; i++) {
    ck_assert_msg(sh(MEMPLAN " bench --graphs %s/g0.json --results %s %s", dir, db, bad[i]) == 2,
                  "%s: not a usage error", bad[i]);
    struct stat st;
    ck_assert_msg(stat(db, &st) != 0, "%s: the results file was created", bad[i]);
  }
  write_file("typo.json", "{\"graphs\": [\"g0.json\"], \"options\": [\"hillclimb.iterz=5\"]}", 0);
  ck_assert_int_eq(sh(MEMPLAN " bench %s/typo.json --results %s", dir, db), 2);
  ck_assert_msg(file_has("err.txt", "hillclimb has no option 'iterz'"), "message");
  write_file("colon.json", "{\"graphs\": [\"g0.json\"], \"order\": [\"greedy:sa\"]}", 0);
  ck_assert_int_eq(sh(MEMPLAN " bench %s/colon.json --results %s", dir, db), 1);
  ck_assert_msg(file_has("err.txt", "write a chain with commas"), "message");
  /* a chain is one order: greedy then sa */
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --order greedy,sa --order dfs --list", dir),
                   0);
  ck_assert_msg(file_has("out.txt", "\tgreedy,sa\tbysize\t"), "chain");
  ck_assert_msg(file_has("out.txt", "\tdfs\tbysize\t"), "second order");
  teardown();
}
END_TEST

/* Paths in an experiment file are relative to the file. */
START_TEST(experiment_paths_are_relative_to_the_file) {
  setup();
  write_file("e1.json", "{\"name\": \"rel\", \"graphs\": [\"g0.json\", \"small\"], \"manifest\": "
                        "\"SUITE.tsv\", \"seeds\": [1]}", 0);
  char e[600], db[600];
  snprintf(e, sizeof e, "%s/e1.json", dir);
  snprintf(db, sizeof db, "%s/rel.sqlite", dir);
  char real[PATH_MAX];
  abs_memplan(real, sizeof real);
  ck_assert_int_eq(sh("cd / && %s bench %s --results %s", real, e, db), 0);
  ck_assert_msg(file_has("out.txt", "bench rel: 3 cells"), "cells");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results WHERE path IN ('g0.json', 'g1.json', "
                          "'p.csv') AND status IN ('optimal', 'feasible')"),
                   3);
  teardown();
}
END_TEST

/* Without a terminal: a start line and progress lines, for logs. */
START_TEST(progress_without_a_terminal) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/p.sqlite", dir);
  write_file("nap.sh", "#!/bin/sh\nsleep 0.3\necho '{\"status\": \"error\"}'\nexit 3\n", 0755);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2,3 --results %s --memplan "
                      "%s/nap.sh --progress-every 0.2",
                      dir, db, dir),
                   0);
  ck_assert_msg(file_has("err.txt", "bench adhoc: 3 cells, 3 to run"), "start line");
  ck_assert_msg(file_has("err.txt", "] 1/3 cells done (0 before)") ||
                    file_has("err.txt", "] 2/3 cells done (0 before)"),
                "progress line");
  /* with a cell done, an estimate from the time per cell (--:-- before) */
  static char err[1 << 14];
  slurp("err.txt", err, sizeof err);
  const char *line = strstr(err, "] 1/3 cells done");
  if (!line) line = strstr(err, "] 2/3 cells done");
  const char *eta = line ? strstr(line, "ETA ") : NULL, *eol = line ? strchr(line, '\n') : NULL;
  ck_assert_msg(eta && eol && eta < eol && eta[4] >= '0' && eta[4] <= '9', "progress line without an estimate: %s",
                err);
  ck_assert_msg(!file_has("err.txt", "\r"), "terminal control characters in a log");
  teardown();
}
END_TEST

/* An experiment file at the edges of its numbers (found by reading the
 * parser beside the fuzzer): each value is refused with its key named, or
 * read exactly; none reaches the runner to overflow there. */
static int load_text(const char *text, mp_experiment *e, char *msg, size_t cap) {
  char path[] = "/tmp/memplan-exp-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  int rc = mp_experiment_load(path, e, msg, cap);
  unlink(path);
  return rc;
}

START_TEST(experiment_numbers_at_their_edges) {
  char msg[1024];
  mp_experiment e;
  /* the memory limit in bytes is an rlim_t: 1e308 MB overflowed it */
  const char *bad[][2] = {
      {"{\"mem_limit_mb\": 1e308}", "\"mem_limit_mb\" must be a number in [0, 1e+12]"},
      {"{\"mem_limit_mb\": 2e13}", "\"mem_limit_mb\" must be a number in [0, 1e+12]"},
      {"{\"grace_s\": 1e10}", "\"grace_s\" must be a number in [0, 1e+09]"},
      {"{\"capacity\": 1152921504606846977}", "\"capacity\" must be an integer in"},
      {"{\"align\": 9223372036854775807}", "\"align\" must be an integer in"},
      {"{\"repeat\": -9223372036854775808}", "\"repeat\" must be an integer in"},
      /* cut to 63 characters, this read as 1 */
      {"{\"bandwidth\": \"1.00000000000000000000000000000000000000000000000000000000000000junk\"}",
       "a bandwidth of 68 characters"},
      {"{\"budgets\": [\"0.8000000000000000000000000000000000000000000000000000000000000000x\"]}",
       "a budget of 67 characters"},
      {NULL, NULL}};
  for (int i = 0; bad[i][0]; i++) {
    ck_assert_msg(load_text(bad[i][0], &e, msg, sizeof msg) != 0, "%s: loaded", bad[i][0]);
    ck_assert_msg(strstr(msg, bad[i][1]), "%s: '%s', want '%s'", bad[i][0], msg, bad[i][1]);
    mp_experiment_destroy(&e);
  }
  /* exact below 2^60, beyond a double's 2^53 */
  ck_assert_int_eq(load_text("{\"capacity\": 1152921504606846975, \"mem_limit_mb\": 1e12, "
                             "\"align\": 64.0}", &e, msg, sizeof msg), 0);
  ck_assert_int_eq(e.capacity, 1152921504606846975LL);
  ck_assert_int_eq(e.align, 64);
  ck_assert(e.mem_limit_mb == 1e12);
  mp_experiment_destroy(&e);
}
END_TEST

Suite *suite_bench(void) {
  Suite *s = suite_create("bench");
  TCase *tc = tcase_create("bench");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, tiny_experiment_end_to_end);
  tcase_add_test(tc, failures_are_rows);
  tcase_add_test(tc, kill9_and_resume);
  tcase_add_test(tc, shards_partition_the_matrix);
  tcase_add_test(tc, shards_merge_to_one_row_per_cell);
  tcase_add_test(tc, remat_cells_end_to_end);
  tcase_add_test(tc, remat_axes_are_canonical);
  tcase_add_test(tc, old_results_files_resume);
  tcase_add_test(tc, refusals_are_not_failures);
  tcase_add_test(tc, timeout_without_plan_is_a_timeout);
  tcase_add_test(tc, foreign_answers_are_judged);
  tcase_add_test(tc, foreign_plan_with_an_overlap);
  tcase_add_test(tc, foreign_figures_of_another_plan);
  tcase_add_test(tc, foreign_answer_without_a_plan);
  tcase_add_test(tc, honest_wrapper_rows_are_own);
  tcase_add_test(tc, rejudge_compares_with_the_judge);
  tcase_add_test(tc, cell_options_are_tokens);
  tcase_add_test(tc, stale_rows_rerun);
  tcase_add_test(tc, graph_bounds_are_stored);
  tcase_add_test(tc, baseline_is_the_graphs);
  tcase_add_test(tc, stale_baseline_recomputed);
  tcase_add_test(tc, older_graphs_table_loads);
  tcase_add_test(tc, cut_baseline_keeps_the_bound);
  tcase_add_test(tc, merge_keeps_the_baseline);
  tcase_add_test(tc, merge_prefers_the_rows_graph_version);
  tcase_add_test(tc, retry_failed_redoes_a_cut_baseline);
  tcase_add_test(tc, two_benches_share_one_file);
  tcase_add_test(tc, options_tell_cells_apart);
  tcase_add_test(tc, stale_claims_are_retaken);
  tcase_add_test(tc, sigint_exits_130);
  tcase_add_test(tc, bad_results_files_are_refused);
  tcase_add_test(tc, merge_never_harms_out);
  tcase_add_test(tc, bench_usage_errors);
  tcase_add_test(tc, hand_edited_values_are_refused);
  tcase_add_test(tc, discard_only_an_unused_results_file);
  tcase_add_test(tc, discard_a_shared_results_file_only_when_unused);
  tcase_add_test(tc, a_shared_file_removed_while_opening_is_opened_again);
  tcase_add_test(tc, scratch_probe_names_the_real_error);
  tcase_add_test(tc, experiment_numbers_at_their_edges);
  tcase_add_test(tc, experiment_paths_are_relative_to_the_file);
  tcase_add_test(tc, progress_without_a_terminal);
  suite_add_tcase(s, tc);
  return s;
}
