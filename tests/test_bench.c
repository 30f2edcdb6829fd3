/* test_bench.c - batch experiments end to end: a tiny matrix through
 * `memplan bench` (child processes, SQLite rows), failures as rows, resume
 * after kill -9, shards that partition the matrix, merge without
 * duplicates.  Runs ../bin/memplan from tests/. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
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

#include "bench.h"
#include "testlib.h"

#define MEMPLAN "../bin/memplan"

static char dir[256];

/* A scratch directory with 2 random graphs, 1 fixed-lifetime CSV, a broken
 * graph and a manifest tagging them. */
static void setup(void) {
  mkdir("tmp", 0755);
  snprintf(dir, sizeof dir, "tmp/bench-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  mp_rng r;
  mp_rng_seed(&r, 7);
  char path[512];
  for (int k = 0; k < 2; k++) {
    char *js = tl_random_json(&r, 10 + 4 * k, TL_ALL);
    snprintf(path, sizeof path, "%s/g%d.json", dir, k);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(js, f);
    fclose(f);
    free(js);
  }
  snprintf(path, sizeof path, "%s/p.csv", dir);
  FILE *f = fopen(path, "w");
  fputs("id,lower,upper,size\n0,0,3,100\n1,1,4,50\n2,3,6,70\n3,4,7,30\n4,0,7,8\n", f);
  fclose(f);
  snprintf(path, sizeof path, "%s/broken.json", dir);
  f = fopen(path, "w");
  fputs("{\"name\": \"broken\", \"nodes\": [{\"id\": 0, \"size\": -5, \"inputs\": []}]}\n", f);
  fclose(f);
  snprintf(path, sizeof path, "%s/SUITE.tsv", dir);
  f = fopen(path, "w");
  fputs("path\tfamily\tnodes\tbuffers\ttags\tsource\n"
        "g0.json\trandom\t10\t0\tsmall,default\ttest\n"
        "g1.json\trandom\t14\t0\tsmall\ttest\n"
        "p.csv\tfixed\t0\t5\tsmall,fixed\ttest\n"
        "broken.json\trandom\t1\t1\tbroken\ttest\n",
        f);
  fclose(f);
}

static void teardown(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "cannot remove %s\n", dir);
}

/* Run a shell command (stdout to dir/out.txt); returns the exit code. */
static int sh(const char *fmt, ...) {
  char cmd[4096], full[5000];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  snprintf(full, sizeof full, "%s > %s/out.txt 2> %s/err.txt", cmd, dir, dir);
  int st = system(full);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void slurp(const char *name, char *buf, size_t cap) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "r");
  buf[0] = 0;
  if (!f) return;
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
  fclose(f);
}

static long long q1(const char *db, const char *sql) {
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_busy_timeout(h, 5000);
  sqlite3_stmt *st;
  ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
                sqlite3_errmsg(h));
  long long v = -1;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

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
  const char *a = strstr(out, "\"arena\": ");
  ck_assert_ptr_nonnull(a);
  char sql[300];
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM results WHERE path = 'g1.json' AND order_solver = 'greedy' AND "
           "place_solver = 'firstfit' AND seed = 2 AND arena = %lld",
           atoll(a + 9));
  ck_assert_int_eq(q1(db, sql), 1);
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
  const char *matrix = "--graphs small --order given --order greedy --order dfs --order bfs "
                       "--place bysize --place firstfit --place bestfit --seeds 1,2,3,4 "
                       "--time-limit 2";
  /* 2 graphs x 4 x 3 x 4 + CSV 3 x 4 */
  int total = 2 * 4 * 3 * 4 + 3 * 4;
  char manifest[600], cmd[2048];
  snprintf(manifest, sizeof manifest, "%s/SUITE.tsv", dir);
  snprintf(cmd, sizeof cmd, "exec " MEMPLAN " bench --manifest %s %s --results %s --quiet >/dev/null",
           manifest, matrix, db);
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
                          "live_peak IS NULL OR plan_ms IS NULL OR version IS NULL"),
                   0);
  /* resume */
  ck_assert_int_eq(sh(MEMPLAN " bench --manifest %s %s --results %s --jobs 2", manifest, matrix, db),
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
                          "place_solver, seed, time_limit, options FROM results)"),
                   total);
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
  ck_assert_int_eq(mp_split_list("small", &e.graphs, &e.n_graphs), 0);
  for (int i = 0; i < e.n_order; i++) free(e.order[i]);
  free(e.order);
  e.order = NULL;
  e.n_order = 0;
  mp_list_push(&e.order, &e.n_order, "given");
  mp_list_push(&e.order, &e.n_order, "greedy");
  mp_list_push(&e.order, &e.n_order, "dfs,greedy");
  ck_assert_int_eq(mp_split_list("bysize,firstfit", &e.place, &e.n_place), 0);
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
      mp_matrix_free(&m);
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
  mp_matrix_free(&full);
  mp_experiment_free(&e);
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

Suite *suite_bench(void) {
  Suite *s = suite_create("bench");
  TCase *tc = tcase_create("bench");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, tiny_experiment_end_to_end);
  tcase_add_test(tc, failures_are_rows);
  tcase_add_test(tc, kill9_and_resume);
  tcase_add_test(tc, shards_partition_the_matrix);
  tcase_add_test(tc, shards_merge_to_one_row_per_cell);
  suite_add_tcase(s, tc);
  return s;
}
