/* test_table.c - tables from a fixed results file (tests/data/bench_results.csv,
 * a real `memplan bench` run on small graphs with dp/exact proving optima,
 * sa with a tiny budget varying over seeds, a fixed-lifetime problem and a
 * broken graph) match their expected text byte for byte; the same rows
 * through SQLite give the same tables; aggregation by hand. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "testlib.h"

#define FIXTURE "data/bench_results.csv"

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot read %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  ck_assert_int_eq(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = 0;
  fclose(f);
  return s;
}

static char *table_text(const mp_row *rows, int n, const char *fmt, const char *view, bool best) {
  char *buf = NULL, msg[256];
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  mp_table_opts o = {.format = fmt, .view = view, .best_of_seeds = best};
  ck_assert_msg(mp_table_write(f, rows, n, &o, msg, sizeof msg) == 0, "%s", msg);
  fclose(f);
  return buf;
}

static void load(const char *path, mp_row **rows, int *n) {
  char msg[512];
  *rows = NULL;
  *n = 0;
  ck_assert_msg(mp_rows_load(path, rows, n, msg, sizeof msg) == 0, "%s", msg);
}

static void expect(const char *got, const char *file) {
  char *want = read_all(file);
  if (strcmp(got, want)) {
    /* show the first differing line */
    const char *a = got, *b = want;
    int line = 1;
    while (*a && *a == *b) {
      if (*a == '\n') line++;
      a++;
      b++;
    }
    ck_abort_msg("%s differs at line %d:\n got: %.120s\nwant: %.120s", file, line, a, b);
  }
  free(want);
}

START_TEST(tables_match_expected_text) {
  mp_row *rows;
  int n;
  load(FIXTURE, &rows, &n);
  ck_assert_int_eq(n, 81);
  char *t = table_text(rows, n, "md", NULL, false);
  expect(t, "data/table_expected.md");
  free(t);
  t = table_text(rows, n, "latex", NULL, false);
  expect(t, "data/table_expected.tex");
  free(t);
  t = table_text(rows, n, "csv", NULL, false);
  expect(t, "data/table_expected.csv");
  free(t);
  /* best of seeds on one graph */
  int w = 0;
  for (int i = 0; i < n; i++) {
    if (!strcmp(rows[i].graph, "g2"))
      rows[w++] = rows[i];
    else
      mp_row_free(&rows[i]);
  }
  t = table_text(rows, w, "md", "graphs", true);
  expect(t, "data/table_expected_best_g2.md");
  free(t);
  mp_rows_free(rows, w);
}
END_TEST

/* Stable: the order of the input rows does not matter. */
START_TEST(tables_do_not_depend_on_row_order) {
  mp_row *rows;
  int n;
  load(FIXTURE, &rows, &n);
  char *a = table_text(rows, n, "md", NULL, false);
  for (int i = 0; i < n / 2; i++) {
    mp_row tmp = rows[i];
    rows[i] = rows[n - 1 - i];
    rows[n - 1 - i] = tmp;
  }
  char *b = table_text(rows, n, "md", NULL, false);
  ck_assert_str_eq(a, b);
  free(a);
  free(b);
  mp_rows_free(rows, n);
}
END_TEST

/* The same rows stored in SQLite and read back give the same tables. */
START_TEST(sqlite_round_trip) {
  mp_row *rows;
  int n;
  load(FIXTURE, &rows, &n);
  mkdir("tmp", 0755);
  char db[128], msg[512];
  snprintf(db, sizeof db, "tmp/table_%ld.sqlite", (long)getpid());
  unlink(db);
  mp_db *h = mp_db_open(db, msg, sizeof msg);
  ck_assert_msg(h != NULL, "%s", msg);
  for (int i = 0; i < n; i++) ck_assert_int_eq(mp_db_insert(h, &rows[i], false, msg, sizeof msg), 0);
  /* inserting again adds nothing: the cell key is unique */
  for (int i = 0; i < n; i++) ck_assert_int_eq(mp_db_insert(h, &rows[i], false, msg, sizeof msg), 0);
  mp_db_close(h);
  mp_row *back;
  int nb;
  load(db, &back, &nb);
  ck_assert_int_eq(nb, n);
  char *a = table_text(rows, n, "md", NULL, false), *b = table_text(back, nb, "md", NULL, false);
  ck_assert_str_eq(a, b);
  free(a);
  free(b);
  /* export reproduces the fixture byte for byte (it was written by export) */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(mp_db_export_csv(db, f, msg, sizeof msg), 0);
  fclose(f);
  char *fx = read_all(FIXTURE);
  ck_assert_str_eq(buf, fx);
  free(fx);
  free(buf);
  mp_rows_free(back, nb);
  mp_rows_free(rows, n);
  char side[160];
  unlink(db);
  snprintf(side, sizeof side, "%s-wal", db);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", db);
  unlink(side);
}
END_TEST

/* Aggregation by hand: lower median, best run, bound from a proven optimum. */
START_TEST(aggregation_rules) {
  mp_row r[4];
  memset(r, 0, sizeof r);
  static const int64_t arenas[4] = {400, 100, 300, 200};
  for (int i = 0; i < 4; i++) {
    r[i].path = strdup("x.json");
    r[i].graph = strdup("x");
    r[i].order = strdup(i < 3 ? "sa" : "dp");
    r[i].place = strdup(i < 3 ? "bysize" : "exact");
    r[i].options = strdup("");
    r[i].status = strdup(i < 3 ? "feasible" : "optimal");
    r[i].seed = (uint64_t)i;
    r[i].nodes = 5;
    r[i].buffers = 5;
    r[i].has_fig = true;
    r[i].arena = arenas[i];
    r[i].live_peak = arenas[i] - 10;
    r[i].lower_bound = 50;
    r[i].plan_ms = (double)(10 - i);
  }
  mp_agg *a;
  int na;
  mp_aggregate(r, 4, false, &a, &na);
  ck_assert_int_eq(na, 2);
  /* sorted by label: dp+exact, sa+bysize */
  ck_assert_str_eq(a[0].label, "dp+exact");
  ck_assert_str_eq(a[1].label, "sa+bysize");
  ck_assert_int_eq(a[1].arena, 300); /* lower median of 100, 300, 400 */
  ck_assert_int_eq(a[1].runs, 3);
  ck_assert_int_eq(a[0].bound, 200); /* the proven optimum beats the lower bound 50 */
  ck_assert_double_eq_tol(a[1].gap, 0.5, 1e-12);
  free(a);
  mp_aggregate(r, 4, true, &a, &na);
  ck_assert_int_eq(a[1].arena, 100); /* best run */
  ck_assert_int_eq(a[1].live_peak, 90);
  ck_assert_double_eq_tol(a[1].plan_ms, 9, 1e-12);
  free(a);
  /* an optimal run of the given order proves nothing about other orders */
  free(r[3].order);
  r[3].order = strdup("given");
  mp_aggregate(r, 4, false, &a, &na);
  for (int i = 0; i < na; i++) ck_assert_int_eq(a[i].bound, 50);
  free(a);
  for (int i = 0; i < 4; i++) mp_row_free(&r[i]);
}
END_TEST

Suite *suite_table(void) {
  Suite *s = suite_create("table");
  TCase *tc = tcase_create("table");
  tcase_add_test(tc, tables_match_expected_text);
  tcase_add_test(tc, tables_do_not_depend_on_row_order);
  tcase_add_test(tc, sqlite_round_trip);
  tcase_add_test(tc, aggregation_rules);
  suite_add_tcase(s, tc);
  return s;
}
