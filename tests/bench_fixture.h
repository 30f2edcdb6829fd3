/* bench_fixture.h - the scratch folder and helpers of the bench tests
 * (test_bench.c, test_bench_batch.c): a folder with 2 random graphs, a
 * fixed-lifetime CSV, a broken graph and a manifest; shell commands run
 * with their output in files there; one-value SQL queries.  Static: each
 * test file has its own scratch folder. */
#ifndef MP_BENCH_FIXTURE_H
#define MP_BENCH_FIXTURE_H

#include <check.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

#define MEMPLAN "../bin/memplan"

static char dir[400];

/* A scratch directory with 2 random graphs, 1 fixed-lifetime CSV, a broken
 * graph and a manifest tagging them. */
static char old_tmpdir[PATH_MAX];
static bool had_tmpdir;

static void setup(void) {
  mkdir("tmp", 0755);
  char rel[64];
  snprintf(rel, sizeof rel, "tmp/bench-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(rel));
  char *abs = realpath(rel, NULL); /* absolute: some commands run from another directory */
  ck_assert_ptr_nonnull(abs);
  snprintf(dir, sizeof dir, "%s", abs);
  free(abs);
  /* bench's scratch directory goes under dir: a run the tests kill with
   * SIGKILL cannot remove its own */
  const char *t = getenv("TMPDIR");
  had_tmpdir = t != NULL;
  if (t) snprintf(old_tmpdir, sizeof old_tmpdir, "%s", t);
  setenv("TMPDIR", dir, 1);
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
  if (had_tmpdir) setenv("TMPDIR", old_tmpdir, 1);
  else unsetenv("TMPDIR");
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

/* The first value of a query, or -1 when it fails (the file is being made). */
static long long q1_try(const char *db, const char *sql) {
  sqlite3 *h;
  long long v = -1;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 5000);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return v;
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

/* ------------------------------------------------------------ helpers */

static void write_file(const char *name, const char *text, int mode) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  if (mode) chmod(p, (mode_t)mode);
}

static bool file_has(const char *name, const char *needle) {
  static char buf[1 << 16];
  slurp(name, buf, sizeof buf);
  return strstr(buf, needle) != NULL;
}

/* Start a shell command in the background (its own output files). */
static pid_t start(const char *tag, const char *fmt, ...) {
  char cmd[4096], full[5000];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  snprintf(full, sizeof full, "exec %s > %s/%s.out 2> %s/%s.err", cmd, dir, tag, dir, tag);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", full, (char *)NULL);
    _exit(127);
  }
  return pid;
}

static int finish(pid_t pid) {
  int ws;
  ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static void abs_memplan(char *out, size_t cap) {
  char *r = realpath(MEMPLAN, NULL);
  ck_assert_ptr_nonnull(r);
  snprintf(out, cap, "%s", r);
  free(r);
}

/* tests/data/remat_fake.sh stands in for `memplan solve` in remat cells
 * (the bench is under test, not the solvers; the figures follow from the
 * arguments, see the script) and runs the real memplan for the others.
 * fake_env_for: the shell words that set up its environment ($FAKE is the
 * script), for sh() and start(). */
static char fake_env[PATH_MAX * 3];
static const char *fake_env_for(const char *log) {
  char real[PATH_MAX], *script = realpath("data/remat_fake.sh", NULL);
  ck_assert_ptr_nonnull(script);
  abs_memplan(real, sizeof real);
  snprintf(fake_env, sizeof fake_env, "export MEMPLAN_REAL=%s FAKE_LOG=%s FAKE=%s;", real,
           log ? log : "", script);
  free(script);
  return fake_env;
}


#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif
