/* test_table.c - tables from a fixed results file (tests/data/bench_results.csv,
 * a real `memplan bench` run made by tests/data/make_bench_fixture.sh: small
 * graphs with dp/exact proving optima, sa with a tiny budget, 3 seeds x 3
 * repeats, a fixed-lifetime problem and a broken graph) match their expected
 * text byte for byte; the same rows through SQLite give the same tables;
 * aggregation, bounds, time ties, baselines, --common, pooled files and the
 * pivot by hand. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>

#include "bench.h"
#include "events.h"
#include "io.h"
#include "plot.h"
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
  ck_assert_int_eq(n, 102);
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
      mp_row_destroy(&rows[i]);
  }
  t = table_text(rows, w, "md", "graphs", true);
  expect(t, "data/table_expected_best_g2.md");
  free(t);
  mp_rows_destroy(rows, w);
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
  mp_rows_destroy(rows, n);
}
END_TEST

/* The fixture written again with edits: its header line, then blank
 * lines where asked (`blank`: after the header and between the first two
 * rows), its rows, the first two rows again when asked (repeat 1: in
 * order, 2: the second first), blank lines at the end; "status" renamed in
 * the header when asked. */
static void write_variant(const char *path, bool blank, int repeat, bool no_status) {
  char *all = read_all(FIXTURE);
  char *row1 = strchr(all, '\n') + 1, *row2 = strchr(row1, '\n') + 1;
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  char *st = strstr(all, ",status,");
  ck_assert(st && st < row1);
  fprintf(f, "%.*s%s%.*s%s", (int)(st - all), all, no_status ? ",statue," : ",status,",
          (int)(row1 - st - 8), st + 8, blank ? "\n" : "");
  fprintf(f, "%.*s%s%s", (int)(row2 - row1), row1, blank ? "\n\n" : "", row2);
  char *row3 = strchr(row2, '\n') + 1;
  if (repeat == 1) fprintf(f, "%.*s%.*s", (int)(row2 - row1), row1, (int)(row3 - row2), row2);
  if (repeat == 2) fprintf(f, "%.*s%.*s", (int)(row3 - row2), row2, (int)(row2 - row1), row1);
  if (blank) fputs("\n\n", f);
  fclose(f);
  free(all);
}

/* A results CSV's layout: blank lines skipped (the same rows, keys in the
 * same order), a repeated cell refused naming both lines (the repeat first
 * in the file, whatever the order of the keys), a file without the status
 * column refused. */
START_TEST(results_csv_layouts) {
  mp_row *want, *got;
  int n, m;
  load(FIXTURE, &want, &n);
  char path[] = "/tmp/memplan-rcsv-XXXXXX.csv", msg[512];
  int fd = mkstemps(path, 4);
  ck_assert_int_ge(fd, 0);
  close(fd);
  write_variant(path, true, 0, false);
  load(path, &got, &m);
  ck_assert_int_eq(m, n);
  for (int i = 0; i < n; i++) {
    char *a = mp_row_key(&want[i]), *b = mp_row_key(&got[i]);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
  }
  mp_rows_destroy(got, m);
  for (int repeat = 1; repeat <= 2; repeat++) { /* the repeat first in the file is named */
    write_variant(path, true, repeat, false);
    got = NULL, m = 0;
    ck_assert_int_eq(mp_rows_load(path, &got, &m, msg, sizeof msg), -1);
    /* lines: header, blank, row 1, two blanks, row 2 (6), ..., the repeats 107 and 108 */
    ck_assert_msg(strstr(msg, repeat == 1 ? ".csv:107: the same cell as line 3 " : ".csv:107: the same cell as line 6 "),
                  "%s", msg);
    mp_rows_destroy(got, m);
  }
  write_variant(path, false, 0, true);
  got = NULL, m = 0;
  ck_assert_int_eq(mp_rows_load(path, &got, &m, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "no status column"), "%s", msg);
  mp_rows_destroy(got, m);
  unlink(path);
  mp_rows_destroy(want, n);
}
END_TEST

static void unlink_db(const char *db) {
  char side[200];
  unlink(db);
  snprintf(side, sizeof side, "%s-wal", db);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", db);
  unlink(side);
}

/* A claim sees what became of the cell's row since the run began: a row
 * stored meanwhile is left (HANDLED); a row deleted meanwhile leaves the
 * cell to run here (CLAIMED), not credited to another process. */
START_TEST(claim_after_row_changes) {
  mp_row *rows;
  int n;
  load(FIXTURE, &rows, &n);
  mkdir("tmp", 0755);
  char db[128], msg[512];
  snprintf(db, sizeof db, "tmp/claim_%ld.sqlite", (long)getpid());
  unlink_db(db);
  mp_db *h = mp_db_open(db, msg, sizeof msg);
  ck_assert_msg(h != NULL, "%s", msg);
  ck_assert_int_eq(mp_db_store(h, &rows[0], false, msg, sizeof msg), 0);
  ck_assert_int_eq(mp_db_claim(h, &rows[0], 0, msg, sizeof msg), MP_CLAIM_HANDLED);
  ck_assert_int_eq(mp_db_claim(h, &rows[0], 1, msg, sizeof msg), MP_CLAIMED);
  ck_assert_int_eq(sqlite3_exec(h, "DELETE FROM results", NULL, NULL, NULL), SQLITE_OK);
  ck_assert_int_eq(mp_db_claim(h, &rows[0], 1, msg, sizeof msg), MP_CLAIMED);
  mp_db_close(h);
  mp_rows_destroy(rows, n);
  unlink_db(db);
}
END_TEST

/* The same rows stored in SQLite (rows and graph bounds) and read back give
 * the same tables; export reproduces the fixture byte for byte. */
START_TEST(sqlite_round_trip) {
  mp_row *rows;
  int n;
  load(FIXTURE, &rows, &n);
  mkdir("tmp", 0755);
  char db[128], msg[512];
  snprintf(db, sizeof db, "tmp/table_%ld.sqlite", (long)getpid());
  unlink_db(db);
  mp_db *h = mp_db_open(db, msg, sizeof msg);
  ck_assert_msg(h != NULL, "%s", msg);
  for (int i = 0; i < n; i++) {
    ck_assert_int_eq(mp_db_store(h, &rows[i], false, msg, sizeof msg), 0);
    if (rows[i].graph_bound == MP_NA) continue;
    mp_graphrow g = {.path = rows[i].path, .graph = rows[i].graph, .bound = rows[i].graph_bound,
                     .bound_kind = rows[i].bound_kind, .nodes = rows[i].nodes,
                     .buffers = rows[i].buffers, .given_arena = MP_NA, .given_align = MP_NA};
    ck_assert_msg(mp_db_graph_store(h, &g, msg, sizeof msg) == 0, "%s", msg);
  }
  /* storing again without replace adds nothing: the cell key is unique */
  for (int i = 0; i < n; i++) ck_assert_int_eq(mp_db_store(h, &rows[i], false, msg, sizeof msg), 0);
  mp_db_close(h);
  mp_row *back;
  int nb;
  load(db, &back, &nb);
  ck_assert_int_eq(nb, n);
  char *a = table_text(rows, n, "md", NULL, false), *b = table_text(back, nb, "md", NULL, false);
  ck_assert_str_eq(a, b);
  free(a);
  free(b);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(mp_db_export_csv(db, f, msg, sizeof msg), 0);
  fclose(f);
  char *fx = read_all(FIXTURE);
  ck_assert_str_eq(buf, fx);
  free(fx);
  free(buf);
  mp_rows_destroy(back, nb);
  mp_rows_destroy(rows, n);
  unlink_db(db);
}
END_TEST

/* A row by hand: graph x, solver order+place, seed, arena; live peak
 * arena - 10 unless set after. */
static void mk(mp_row *r, const char *graph, const char *order, const char *place, uint64_t seed,
               const char *status, int64_t arena) {
  mp_row_init(r);
  char path[64];
  snprintf(path, sizeof path, "%s.json", graph);
  r->path = strdup(path);
  r->graph = strdup(graph);
  r->order = strdup(order);
  r->place = strdup(place);
  r->options = strdup("");
  r->status = strdup(status);
  r->seed = seed;
  r->nodes = 5;
  r->buffers = 5;
  r->has_fig = arena > 0;
  if (arena > 0) {
    r->arena = arena;
    r->live_peak = arena - 10;
    r->lower_bound = 50;
    r->plan_ms = 1;
    r->reduction_vs_given = r->reduction_vs_noreuse = 0;
  }
  r->graph_bound = 150;
  r->bound_kind = strdup("min-cut");
}

static void agg(const mp_row *r, int n, bool best, bool graph_only, mp_aggset *s) {
  mp_agg_opts o = {best, graph_only};
  mp_aggregate(r, n, &o, s);
}

static const mp_agg *find(const mp_aggset *s, const char *graph, const char *label) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->a[i].graph, graph) && !strcmp(s->a[i].label, label)) return &s->a[i];
  ck_abort_msg("no group %s %s", graph, label);
  return NULL;
}

/* Aggregation: lower median, best run; the bound is the graph's own, raised
 * only by an optimum that checks. */
START_TEST(aggregation_rules) {
  mp_row r[4];
  static const int64_t arenas[4] = {400, 160, 300, 200};
  for (int i = 0; i < 4; i++)
    mk(&r[i], "x", i < 3 ? "sa" : "dp", i < 3 ? "bysize" : "exact", (uint64_t)i,
       i < 3 ? "feasible" : "optimal", arenas[i]);
  for (int i = 0; i < 4; i++) r[i].plan_ms = (double)(10 - i);
  mp_aggset s;
  agg(r, 4, false, false, &s);
  ck_assert_int_eq(s.n, 2);
  ck_assert_str_eq(s.a[0].label, "dp+exact"); /* sorted by label */
  const mp_agg *sa = find(&s, "x", "sa+bysize");
  ck_assert_int_eq(sa->arena, 300); /* lower median of 160, 300, 400 */
  ck_assert_int_eq(sa->runs, 3);
  /* dp's optimum 200 is above a value sa reached (160): not a bound */
  ck_assert_int_eq(s.n_issues, 1);
  ck_assert_msg(strstr(s.issues[0], "claims arena 200 optimal, but a run reached 160"), "%s",
                s.issues[0]);
  ck_assert_int_eq(sa->bound, 150);
  ck_assert_str_eq(sa->bound_kind, "min-cut");
  mp_aggset_destroy(&s);
  /* with a consistent optimum (160 is dp's): the bound rises to it */
  r[3].arena = 150 + 5;
  r[3].live_peak = 150;
  agg(r, 4, false, false, &s);
  ck_assert_int_eq(s.n_issues, 0);
  sa = find(&s, "x", "sa+bysize");
  ck_assert_int_eq(sa->bound, 155);
  ck_assert(sa->bound_proven);
  ck_assert_double_eq_tol(sa->gap, 300.0 / 155 - 1, 1e-12);
  ck_assert(find(&s, "x", "dp+exact")->proved);
  mp_aggset_destroy(&s);
  /* --bound graph: the independent bound alone, whoever ran */
  agg(r, 4, false, true, &s);
  ck_assert_int_eq(find(&s, "x", "sa+bysize")->bound, 150);
  ck_assert_double_eq_tol(find(&s, "x", "sa+bysize")->gap, 1.0, 1e-12);
  mp_aggset_destroy(&s);
  /* best run */
  agg(r, 4, true, false, &s);
  sa = find(&s, "x", "sa+bysize");
  ck_assert_int_eq(sa->arena, 160);
  ck_assert_int_eq(sa->live_peak, 150);
  ck_assert_double_eq_tol(sa->plan_ms, 9, 1e-12);
  mp_aggset_destroy(&s);
  /* an optimum below the independent bound is an error, not a bound */
  r[3].arena = 120;
  r[3].live_peak = 110;
  agg(r, 4, false, false, &s);
  ck_assert_int_ge(s.n_issues, 1);
  ck_assert_msg(strstr(s.issues[0], "below the min-cut bound 150"), "%s", s.issues[0]);
  ck_assert_int_eq(find(&s, "x", "sa+bysize")->bound, 150);
  ck_assert(!find(&s, "x", "dp+exact")->proved);
  mp_aggset_destroy(&s);
  /* an optimal run of the given order proves nothing about other orders */
  r[3].arena = 155;
  r[3].live_peak = 150;
  r[3].lower_bound = 50;
  free(r[3].order);
  r[3].order = strdup("given");
  agg(r, 4, false, false, &s);
  ck_assert_int_eq(s.n_issues, 0);
  for (int i = 0; i < s.n; i++) ck_assert_int_eq(s.a[i].bound, 150);
  mp_aggset_destroy(&s);
  /* nor does its reported bound (it may be about that order alone) */
  r[3].lower_bound = r[3].live_peak = 390;
  r[3].arena = 400;
  agg(r, 4, false, false, &s);
  ck_assert_int_eq(s.n_issues, 0);
  ck_assert_int_eq(find(&s, "x", "given+exact")->bound, 150);
  ck_assert(!find(&s, "x", "given+exact")->order_proved);
  mp_aggset_destroy(&s);
  /* a searched order's reported bound above a peak some run reached is an error */
  free(r[3].order);
  r[3].order = strdup("dp");
  free(r[3].status);
  r[3].status = strdup("feasible");
  r[3].lower_bound = 380;
  agg(r, 4, false, false, &s);
  ck_assert_int_eq(s.n_issues, 1);
  ck_assert_msg(strstr(s.issues[0], "reports a lower bound 380 above the live peak 150"), "%s",
                s.issues[0]);
  mp_aggset_destroy(&s);
  for (int i = 0; i < 4; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* Times: median with its range; a difference inside the ranges is a tie. */
START_TEST(time_spread_ties) {
  mp_row r[3];
  mk(&r[0], "x", "greedy", "bysize", 1, "feasible", 300);
  mk(&r[1], "x", "dfs", "bysize", 1, "feasible", 300);
  mk(&r[2], "x", "bfs", "bysize", 1, "feasible", 300);
  double med[3] = {1.0, 1.3, 5.0}, lo[3] = {0.8, 1.1, 4.0}, hi[3] = {1.5, 2.0, 6.0};
  for (int i = 0; i < 3; i++) {
    r[i].repeats = 5;
    r[i].plan_ms = med[i];
    r[i].plan_ms_min = lo[i];
    r[i].plan_ms_max = hi[i];
  }
  char *t = table_text(r, 3, "md", "graphs", false);
  ck_assert_msg(strstr(t, "| **1.00 (0.80-1.50)** |"), "%s", t);
  ck_assert_msg(strstr(t, "| **1.30 (1.10-2.00)** |"), "%s", t); /* a tie with the fastest */
  ck_assert_msg(strstr(t, "| 5.00 (4.00-6.00) |"), "%s", t);     /* not a tie */
  free(t);
  mp_aggset s;
  agg(r, 3, false, false, &s);
  const mp_agg *g = find(&s, "x", "dfs+bysize");
  ck_assert_double_eq(g->ms_lo, 1.1);
  ck_assert_double_eq(g->ms_hi, 2.0);
  mp_aggset_destroy(&s);
  for (int i = 0; i < 3; i++) mp_row_destroy(&r[i]);
}
END_TEST

static char *table_opts(const mp_row *rows, int n, const mp_table_opts *o, int want_rc) {
  char *buf = NULL, msg[512] = "";
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  int rc = mp_table_write(f, rows, n, o, msg, sizeof msg);
  fclose(f);
  ck_assert_msg(rc == want_rc, "rc %d: %s", rc, msg);
  if (rc < 0) {
    free(buf);
    return strdup(msg);
  }
  return buf;
}

/* --baseline gives win/tie/loss, --common keeps the instances every
 * listed solver planned, --solver picks and orders. */
START_TEST(baseline_and_common) {
  mp_row r[6];
  mk(&r[0], "a", "given", "bysize", 1, "feasible", 300);
  mk(&r[1], "a", "greedy", "bysize", 1, "feasible", 250);
  mk(&r[2], "a", "dfs", "bysize", 1, "feasible", 300);
  mk(&r[3], "b", "given", "bysize", 1, "feasible", 300);
  mk(&r[4], "b", "greedy", "bysize", 1, "feasible", 350);
  mk(&r[5], "b", "dfs", "bysize", 1, "error", 0);
  r[1].plan_ms = 10; /* slower than the baseline beyond any spread */
  const char *base[] = {"given+bysize"};
  mp_table_opts o = {.format = "md", .view = "suite", .baselines = base, .n_baselines = 1};
  char *t = table_opts(r, 6, &o, 0);
  /* greedy: a win (250 < 300) and a loss (350 > 300); slower on a, tie on b */
  ck_assert_msg(strstr(t, "| greedy+bysize | 2 | **1** |"), "%s", t);
  ck_assert_msg(strstr(t, "| 1/0/1 | 0/1/1 |"), "%s", t);
  ck_assert_msg(strstr(t, "| dfs+bysize | 1 | 0 |"), "%s", t);
  ck_assert_msg(strstr(t, "| 0/1/0 | 0/1/0 |"), "%s", t);
  ck_assert_msg(strstr(t, "| baseline | baseline |"), "%s", t);
  free(t);
  /* --common: b is left out (dfs has no plan there) */
  o.common = true;
  t = table_opts(r, 6, &o, 0);
  ck_assert_msg(strstr(t, "--common): 1 kept, 1 left out"), "%s", t);
  ck_assert_msg(strstr(t, "| greedy+bysize | 1 | **1** |"), "%s", t);
  free(t);
  /* --solver greedy+bysize with --common keeps both graphs */
  const char *only[] = {"greedy+bysize"};
  o.solvers = only;
  o.n_solvers = 1;
  t = table_opts(r, 6, &o, 0);
  ck_assert_msg(strstr(t, "2 kept, 0 left out"), "%s", t);
  ck_assert_msg(!strstr(t, "dfs+bysize"), "%s", t);
  free(t);
  /* an unknown baseline is a usage error */
  const char *nosuch[] = {"nosuch+bysize"};
  o.baselines = nosuch;
  t = table_opts(r, 6, &o, -1);
  ck_assert_msg(strstr(t, "no such solver"), "%s", t);
  free(t);
  for (int i = 0; i < 6; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* Rows pooled from several files keep their file: the same cell from two
 * files is two solvers, not two seeds. */
START_TEST(pooled_sources) {
  mp_row r[3];
  mk(&r[0], "a", "greedy", "bysize", 1, "feasible", 300);
  mk(&r[1], "a", "greedy", "bysize", 1, "feasible", 280);
  mk(&r[2], "a", "dfs", "bysize", 1, "feasible", 320);
  r[0].source = strdup("old.sqlite");
  r[1].source = strdup("new.sqlite");
  r[2].source = strdup("new.sqlite");
  mp_aggset s;
  agg(r, 3, false, false, &s);
  ck_assert(s.split_sources);
  ck_assert_int_eq(s.n_sources, 2);
  ck_assert_int_eq(find(&s, "a", "greedy+bysize {old.sqlite}")->arena, 300);
  ck_assert_int_eq(find(&s, "a", "greedy+bysize {new.sqlite}")->arena, 280);
  mp_aggset_destroy(&s);
  char *t = table_text(r, 3, "md", "graphs", false);
  ck_assert_msg(strstr(t, "Rows from 2 results files: old.sqlite (1 rows), new.sqlite (2 rows)."),
                "%s", t);
  free(t);
  /* distinct cells (shards): pooled, no file in the label */
  free(r[0].source);
  r[0].source = strdup("new.sqlite");
  free(r[1].source);
  r[1].source = strdup("shard1.sqlite");
  r[1].seed = 2;
  agg(r, 3, false, false, &s);
  ck_assert(!s.split_sources);
  ck_assert_int_eq(find(&s, "a", "greedy+bysize")->runs, 2);
  mp_aggset_destroy(&s);
  for (int i = 0; i < 3; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* A graph without a baseline (cut) or a time is left out of that geometric
 * mean, and the mean says over how many instances it is (NaN was clamped
 * to 1e-9 / 1e-3 before: fmax ignores NaN). */
START_TEST(suite_means_skip_absent) {
  mp_row r[4];
  mk(&r[0], "a", "greedy", "bysize", 1, "feasible", 300);
  mk(&r[1], "b", "greedy", "bysize", 1, "feasible", 300);
  mk(&r[2], "a", "dfs", "bysize", 1, "feasible", 300);
  mk(&r[3], "b", "dfs", "bysize", 1, "feasible", 300);
  for (int i = 0; i < 4; i++) r[i].reduction_vs_given = i % 2 ? NAN : 0.5; /* b: cut */
  r[3].plan_ms = NAN;
  mp_table_opts o = {.format = "md", .view = "suite"};
  char *t = table_opts(r, 4, &o, 0);
  ck_assert_msg(strstr(t, "| greedy+bysize | 2 | **2** | **2.000** | **0.500 (1/2)** | **1.00** |"),
                "%s", t);
  ck_assert_msg(strstr(t, "| dfs+bysize | 2 | **2** | **2.000** | **0.500 (1/2)** | **1.00 (1/2)** |"),
                "%s", t);
  ck_assert_msg(strstr(t, "k/n after a mean"), "%s", t);
  free(t);
  o = (mp_table_opts){.format = "md", .view = "pivot", .metric = "time"};
  t = table_opts(r, 4, &o, 0);
  ck_assert_msg(strstr(t, "| geometric mean (ms) |  |  | 1.00 | 1.00 |"), "%s", t);
  free(t);
  for (int i = 0; i < 4; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* Names with LaTeX specials, a newline and a pipe: every LaTeX special
 * escaped (the "no bound stored" marker ^ and a {file} label too), control
 * characters as spaces in Markdown and LaTeX, the CSV quoted. */
START_TEST(names_escaped) {
  mp_row r[2];
  mk(&r[0], "a\\b{c}d^e~f|g<h>", "greedy", "bysize", 1, "feasible", 300);
  mk(&r[1], "n\nl|x\ry", "greedy", "bysize", 1, "feasible", 300);
  r[0].graph_bound = MP_NA; /* no bound in the file: marked ^ */
  r[0].lower_bound = 200;
  r[0].source = strdup("A.sqlite");
  r[1].source = strdup("B.sqlite");
  mp_table_opts o = {.format = "latex", .view = "graphs"};
  char *t = table_opts(r, 2, &o, 0);
  ck_assert_msg(strstr(t, "\na\\textbackslash{}b\\{c\\}d\\textasciicircum{}e\\textasciitilde{}f"
                          "\\textbar{}g\\textless{}h\\textgreater{} & 200 B\\textasciicircum{} & "),
                "%s", t);
  ck_assert_msg(strstr(t, "\nn l\\textbar{}x y & "), "%s", t);
  free(t);
  /* the same cell from two files: the label's braces escaped */
  free(r[1].graph);
  r[1].graph = strdup(r[0].graph);
  r[1].graph_bound = MP_NA;
  free(r[1].path);
  r[1].path = strdup(r[0].path);
  t = table_opts(r, 2, &o, 0);
  ck_assert_msg(strstr(t, "greedy+bysize \\{A.sqlite\\}"), "%s", t);
  free(t);
  mp_row_destroy(&r[1]);
  mk(&r[1], "n\nl|x\ry", "greedy", "bysize", 1, "feasible", 300);
  o.format = "md";
  t = table_opts(r, 2, &o, 0);
  ck_assert_msg(strstr(t, "\n| n l\\|x y | 150 B | greedy+bysize |"), "%s", t);
  free(t);
  o.format = "csv";
  t = table_opts(r, 2, &o, 0);
  ck_assert_msg(strstr(t, "\n\"n\nl|x\ry\",\"n\nl|x\ry.json\",greedy+bysize,"), "%s", t);
  free(t);
  for (int i = 0; i < 2; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* The suite's bold: a fastest mean that prints as 0.00 is the best (a best
 * of 0 was taken for "none yet" and the next row replaced it). */
START_TEST(suite_bold_zero) {
  mp_row r[2];
  mk(&r[0], "a", "given", "bysize", 1, "feasible", 300);
  mk(&r[1], "a", "greedy", "bysize", 1, "feasible", 300);
  r[0].plan_ms = 0.001;
  r[1].plan_ms = 5;
  mp_table_opts o = {.format = "md", .view = "suite"};
  char *t = table_opts(r, 2, &o, 0);
  ck_assert_msg(strstr(t, "| given+bysize | 1 | **1** | **2.000** | **1.000** | **0.00** |"), "%s", t);
  ck_assert_msg(strstr(t, "| greedy+bysize | 1 | **1** | **2.000** | **1.000** | 5.00 |"), "%s", t);
  free(t);
  for (int i = 0; i < 2; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* The pivot: graphs x solvers, change vs the baseline / gap to the bound,
 * and the summary under it. */
START_TEST(pivot_view) {
  mp_row r[4];
  mk(&r[0], "a", "given", "noreuse", 1, "feasible", 310);
  mk(&r[1], "a", "dp", "noreuse", 1, "feasible", 160);
  mk(&r[2], "a", "greedy", "noreuse", 1, "feasible", 170);
  mk(&r[3], "a", "ilp", "noreuse", 1, "refused", 0);
  r[1].lower_bound = r[1].live_peak; /* dp proved its order optimal: 150 */
  const char *base[] = {"given+noreuse"};
  const char *cols[] = {"dp+noreuse", "greedy+noreuse", "ilp+noreuse"};
  mp_table_opts o = {.format = "md", .view = "pivot", .metric = "peak", .baselines = base,
                     .n_baselines = 1, .solvers = cols, .n_solvers = 3};
  char *t = table_opts(r, 4, &o, 0);
  ck_assert_msg(strstr(t, "| graph | nodes | peak bound | baseline | dp+noreuse | greedy+noreuse | "
                          "ilp+noreuse | given+noreuse |"),
                "%s", t);
  /* bound raised from 150 (min-cut) to dp's proof... which is 150: not raised */
  ck_assert_msg(strstr(t, "| a | 5 | 150 B | 300 B | -50.0% / 0.0%* | -46.7% / +6.7% | refused | "
                          "0.0% / +100.0% |"),
                "%s", t);
  ck_assert_msg(strstr(t, "| within 1% of the bound |  |  |  | 1/1 | 0/1 | 0/0 | 0/1 |"), "%s", t);
  ck_assert_msg(strstr(t, "| proved optimal (max, median ms) |  |  |  | 1/1 (1.00, 1.00) | 0/1 |"),
                "%s", t);
  free(t);
  /* fragmentation is DESIGN 1.3's (arena - live peak) / arena, and the caption says so */
  r[1].fragmentation = 10.0 / 160;
  o.metric = "frag";
  t = table_opts(r, 4, &o, 0);
  ck_assert_msg(strstr(t, "Cells: fragmentation in % ((arena - live peak) / arena, DESIGN 1.3)"), "%s",
                t);
  ck_assert_msg(strstr(t, "| a | 5 | 150 B | 6.2500 |"), "%s", t);
  free(t);
  for (int i = 0; i < 4; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* ------------------------------------------------------------ recomputation */

/* A remat row by hand: graph, remat solver, budget arg and bytes, seed;
 * a plan when duration > 0 (live peak budget - 10, base_time 100). */
static void mkr(mp_row *r, const char *graph, const char *remat, const char *budget_arg,
                int64_t budget, uint64_t seed, const char *status, double duration) {
  mk(r, graph, "given", "bysize", seed, status, duration > 0 ? budget : 0);
  r->remat = strdup(remat);
  r->budget_arg = strdup(budget_arg);
  r->bandwidth_arg = strdup("0");
  r->remat_status = strdup(status);
  r->time_limit = 10;
  r->budget = budget;
  r->bandwidth = 0;
  r->base_time = 100;
  r->graph_bound = 10000; /* the min-cut bound of orders: recomputation goes below it */
  if (duration > 0) {
    r->duration = duration;
    r->overhead = duration / 100 - 1;
    r->recompute_time = duration - 100;
    r->recomputed = 1;
    r->stale_reruns = !strcmp(remat, "rotor"); /* a column of its own */
    r->stall_time = 0;
    r->transferred = 0;
    r->remat_ms = 1;
    r->plan_ms = 2;
  }
}

/* rotor and dtr on graphs x and y at 1x (1000 B) and 0.5x (500 B); rotor
 * three seeds on x, no plan at 0.5x on y. */
static int remat_rows(mp_row *r) {
  int n = 0;
  const double rotor_x1[3] = {100, 110, 105}, rotor_x5[3] = {130, 120, 150};
  for (int k = 0; k < 3; k++) {
    mkr(&r[n++], "x", "rotor", "1x", 1000, (uint64_t)k + 1, "feasible", rotor_x1[k]);
    mkr(&r[n++], "x", "rotor", "0.5x", 500, (uint64_t)k + 1, "feasible", rotor_x5[k]);
  }
  mkr(&r[n++], "x", "dtr", "1x", 1000, 1, "optimal", 100);
  mkr(&r[n++], "x", "dtr", "0.5x", 500, 1, "feasible", 115);
  mkr(&r[n++], "y", "rotor", "1x", 1000, 1, "optimal", 100);
  mkr(&r[n++], "y", "rotor", "0.5x", 500, 1, "error", 0);
  mkr(&r[n++], "y", "dtr", "1x", 1000, 1, "optimal", 100);
  mkr(&r[n++], "y", "dtr", "0.5x", 500, 1, "feasible", 118);
  return n;
}

static const mp_ragg *rfind(const mp_raggset *s, const char *graph, const char *label,
                            const char *budget) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->a[i].graph, graph) && !strcmp(s->a[i].label, label) &&
        !strcmp(s->a[i].budget_arg, budget))
      return &s->a[i];
  ck_abort_msg("no group %s %s %s", graph, label, budget);
  return NULL;
}

/* Remat rows: grouped per solver and budget (medians over seeds), the
 * geometric mean overhead per budget, the smallest budget within 20%. */
START_TEST(remat_tables) {
  mp_row r[16];
  int n = remat_rows(r);
  mk(&r[n++], "x", "greedy", "bysize", 1, "feasible", 12000); /* an order and placement row */
  mp_raggset rs;
  mp_remat_aggregate(r, n, false, &rs);
  ck_assert_int_eq(rs.n, 8);
  ck_assert_int_eq(rs.n_issues, 0);
  const mp_ragg *g = rfind(&rs, "x", "given+rotor+bysize", "0.5x");
  ck_assert_int_eq(g->runs, 3);
  ck_assert_int_eq(g->ok, 3);
  ck_assert_double_eq(g->duration, 130); /* lower median of 120, 130, 150 */
  ck_assert_double_eq_tol(g->overhead, 0.3, 1e-12);
  ck_assert_double_eq(g->frac, 0.5);
  ck_assert_int_eq(g->budget, 500);
  ck_assert_int_eq(rfind(&rs, "y", "given+rotor+bysize", "0.5x")->ok, 0);
  mp_raggset_destroy(&rs);
  /* the best run instead of the median */
  mp_remat_aggregate(r, n, true, &rs);
  ck_assert_double_eq(rfind(&rs, "x", "given+rotor+bysize", "0.5x")->duration, 120);
  mp_raggset_destroy(&rs);
  /* the order and placement tables see the other row only: no issue about
   * remat peaks below the graph's min-cut bound */
  mp_aggset s;
  agg(r, n, false, false, &s);
  ck_assert_int_eq(s.n, 1);
  ck_assert_int_eq(s.n_issues, 0);
  mp_aggset_destroy(&s);
  mp_table_opts o = {.format = "md", .view = "remat"};
  char *t = table_opts(r, n, &o, 0);
  ck_assert_msg(strstr(t, "| solver | 1x | 0.5x | within 20% (median) | infeasible | remat ms |"),
                "%s", t);
  ck_assert_msg(strstr(t, "| given+dtr+bysize | **0.0%** | **+16.5%** | 0.5x (2/2) | 0 | 1.00 |"),
                "%s", t);
  ck_assert_msg(strstr(t, "| given+rotor+bysize | +2.5% | +30.0% (1/2) | 1x (2/2) | 0 | 1.00 |"),
                "%s", t);
  ck_assert_msg(strstr(t, "| x | **0.5x (+15.0%)** | 1x (+5.0%) |"), "%s", t);
  ck_assert_msg(strstr(t, "| x (floor 50 B) | 1x = 1000 B | given+dtr+bysize | optimal | 990 B | "
                          "1000 B | **100.0** | **0.0** | **0.00** | 1 | 0 | 0 B | 0.000 | 1.00 | 1/1 |"),
                "%s", t);
  ck_assert_msg(strstr(t, "|  |  | given+rotor+bysize | feasible | 990 B | 1000 B | 105.0 | 5.0 | "
                          "5.00 | 1 | 1 | 0 B | 0.000 | 1.00 | 3/3 |"),
                "%s", t);
  ck_assert_msg(!strstr(t, "greedy+bysize"), "an order row in the remat view: %s", t);
  free(t);
  /* --max-overhead 10: dtr's 15% and 18% no longer count */
  o.max_overhead = 0.10;
  o.view = "remat-summary";
  t = table_opts(r, n, &o, 0);
  ck_assert_msg(strstr(t, "| given+dtr+bysize | **0.0%** | **+16.5%** | 1x (2/2) |"), "%s", t);
  ck_assert_msg(!strstr(t, "| x (floor"), "the per-graph table in the summary: %s", t);
  free(t);
  /* the default view has both kinds; csv --view remat one line per group */
  o = (mp_table_opts){.format = "md"};
  t = table_opts(r, n, &o, 0);
  ck_assert_msg(strstr(t, "| greedy+bysize |") && strstr(t, "| given+rotor+bysize |"), "%s", t);
  free(t);
  o = (mp_table_opts){.format = "csv", .view = "remat"};
  t = table_opts(r, n, &o, 0);
  ck_assert_msg(!strncmp(t, "graph,path,solver,order_solver,remat_solver,place_solver,", 57), "%s", t);
  ck_assert_msg(strstr(t, "\nx,x.json,given+rotor+bysize,given,rotor,bysize,0,,,0.5x,10,0.500000,500,"
                          "3,3,0,0,feasible,feasible,490,500,50,130.000000,100.000000,0.300000,"),
                "%s", t);
  /* a group without a plan has no time: every time column empty (were 0.000) */
  ck_assert_msg(strstr(t, "\ny,y.json,given+rotor+bysize,given,rotor,bysize,0,,,0.5x,10,0.500000,500,"
                          "1,0,0,0,error,error,,,,,100.000000,,,,,,,,,,,,0\n"),
                "%s", t);
  free(t);
  /* --solver selects remat labels too */
  const char *only[] = {"given+rotor+bysize"};
  o = (mp_table_opts){.format = "md", .view = "remat", .solvers = only, .n_solvers = 1};
  t = table_opts(r, n, &o, 0);
  ck_assert_msg(!strstr(t, "given+dtr+bysize"), "%s", t);
  free(t);
  for (int i = 0; i < n; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* The same cells (two seeds) from two files: two solvers, not four seeds;
 * in the recomputation groups too. */
START_TEST(pooled_sources_seeds) {
  mp_row r[8];
  for (int i = 0; i < 4; i++) {
    mk(&r[i], "a", "greedy", "bysize", (uint64_t)(i % 2), "feasible", 300 + i);
    r[i].source = strdup(i < 2 ? "A.sqlite" : "B.sqlite");
    mkr(&r[4 + i], "a", "rotor", "0.5x", 500, (uint64_t)(i % 2), "infeasible", 0);
    r[4 + i].source = strdup(i < 2 ? "A.sqlite" : "B.sqlite");
  }
  mp_aggset s;
  agg(r, 4, false, false, &s);
  ck_assert(s.split_sources);
  ck_assert_int_eq(find(&s, "a", "greedy+bysize {A.sqlite}")->runs, 2);
  ck_assert_int_eq(find(&s, "a", "greedy+bysize {B.sqlite}")->runs, 2);
  mp_aggset_destroy(&s);
  mp_raggset rs;
  mp_remat_aggregate(r, 8, false, &rs);
  ck_assert_int_eq(rs.n, 2);
  ck_assert_int_eq(rfind(&rs, "a", "given+rotor+bysize {A.sqlite}", "0.5x")->infeasible, 2);
  mp_raggset_destroy(&rs);
  for (int i = 0; i < 8; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* With an even count (two seeds) every plan figure of a row is one run's,
 * the lower-median run by arena (ties: live peak, then seed); the time keeps
 * its own median.  Taken one by one, the live peak came from the other run. */
START_TEST(representative_run) {
  mp_row r[4];
  mk(&r[0], "x", "sa", "bysize", 1, "feasible", 200);
  mk(&r[1], "x", "sa", "bysize", 2, "feasible", 300);
  r[0].live_peak = 190, r[0].reduction_vs_given = 0.6, r[0].fragmentation = 0.05;
  r[1].live_peak = 150, r[1].reduction_vs_given = 0.4, r[1].fragmentation = 0.5;
  r[0].profile_std = 7, r[1].profile_std = 3;
  r[0].plan_ms = 9, r[1].plan_ms = 4;
  mp_aggset s;
  agg(r, 2, false, false, &s);
  const mp_agg *g = find(&s, "x", "sa+bysize");
  ck_assert_int_eq(g->arena, 200);
  ck_assert_int_eq(g->live_peak, 190);
  ck_assert_double_eq(g->red_given, 0.6);
  ck_assert_double_eq(g->frag, 0.05);
  ck_assert_double_eq(g->std, 7);
  ck_assert_double_eq(g->plan_ms, 4); /* the lower median of the times */
  mp_aggset_destroy(&s);
  r[1].arena = 200; /* a tie in arena: the smaller live peak */
  agg(r, 2, false, false, &s);
  ck_assert_int_eq(find(&s, "x", "sa+bysize")->live_peak, 150);
  ck_assert_double_eq(find(&s, "x", "sa+bysize")->std, 3);
  mp_aggset_destroy(&s);
  r[1].live_peak = 190; /* and in live peak: the smaller seed */
  agg(r, 2, false, false, &s);
  ck_assert_double_eq(find(&s, "x", "sa+bysize")->std, 7);
  mp_aggset_destroy(&s);
  /* recomputation: the lower-median run by duration */
  mkr(&r[2], "x", "rotor", "0.5x", 500, 1, "feasible", 120);
  mkr(&r[3], "x", "rotor", "0.5x", 500, 2, "feasible", 130);
  r[2].live_peak = 400, r[2].recomputed = 3, r[2].remat_ms = 8;
  r[3].live_peak = 300, r[3].recomputed = 1, r[3].remat_ms = 2;
  mp_raggset rs;
  mp_remat_aggregate(r + 2, 2, false, &rs);
  const mp_ragg *h = rfind(&rs, "x", "given+rotor+bysize", "0.5x");
  ck_assert_double_eq(h->duration, 120);
  ck_assert_int_eq(h->live_peak, 400);
  ck_assert_int_eq(h->recomputed, 3);
  ck_assert_double_eq(h->remat_ms, 2);
  mp_raggset_destroy(&rs);
  for (int i = 0; i < 4; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* Labels are as long as their option strings: two that differ past 320
 * bytes are two solvers (they were cut there and pooled as one). */
START_TEST(long_labels) {
  char opts[2][600];
  mp_row r[4];
  for (int i = 0; i < 2; i++) {
    int l = 0;
    for (int k = 0; k < 60; k++) l += snprintf(opts[i] + l, sizeof opts[i] - (size_t)l, "sa.o%02d=%d ", k, k);
    snprintf(opts[i] + l, sizeof opts[i] - (size_t)l, "sa.last=%d", i);
    mk(&r[i], "x", "sa", "bysize", 1, "feasible", 300 + i);
    free(r[i].options);
    r[i].options = strdup(opts[i]);
    mkr(&r[2 + i], "x", "rotor", "0.5x", 500, 1, "feasible", 120 + i);
    free(r[2 + i].options);
    r[2 + i].options = strdup(opts[i]);
  }
  mp_aggset s;
  agg(r, 2, false, false, &s);
  ck_assert_int_eq(s.n, 2);
  ck_assert_int_gt((int)strlen(s.a[1].label), 400);
  ck_assert_msg(strstr(s.a[1].label, "sa.last=1]"), "%s", s.a[1].label);
  ck_assert(mp_agg_matches(&s.a[0], "sa+bysize") && !mp_agg_matches(&s.a[0], "sa+bysizes"));
  mp_aggset_destroy(&s);
  mp_raggset rs;
  mp_remat_aggregate(r, 4, false, &rs);
  ck_assert_int_eq(rs.n, 2);
  ck_assert_msg(strstr(rs.a[1].label, "sa.last=1]"), "%s", rs.a[1].label);
  ck_assert(mp_ragg_matches(&rs.a[0], "given+rotor+bysize"));
  ck_assert(!mp_ragg_matches(&rs.a[0], "given+rotor"));
  mp_raggset_destroy(&rs);
  for (int i = 0; i < 4; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* A plan over its budget, and an infeasibility claim at a budget another
 * plan of the graph met, contradict the results: reported, exit 1. */
START_TEST(remat_contradictions) {
  mp_row r[16];
  int n = remat_rows(r);
  r[1].live_peak = 600; /* rotor on x at 0.5x (500 B) */
  mkr(&r[n++], "y", "chen-sqrt", "0.5x", 500, 1, "infeasible", 0);
  mp_raggset rs;
  mp_remat_aggregate(r, n, false, &rs);
  ck_assert_int_eq(rs.n_issues, 2);
  ck_assert_msg(strstr(rs.issues[0], "live peak 600 is over its budget 500"), "%s", rs.issues[0]);
  ck_assert_msg(strstr(rs.issues[1], "claims no plan fits 500 bytes, but given+dtr+bysize planned 490"),
                "%s", rs.issues[1]);
  mp_raggset_destroy(&rs);
  mp_table_opts o = {.format = "md"};
  char *t = table_opts(r, n, &o, 1);
  ck_assert_msg(strstr(t, "over its budget 500"), "%s", t);
  free(t);
  for (int i = 0; i < n; i++) mp_row_destroy(&r[i]);
}
END_TEST

/* Remat rows through SQLite and back: the same tables. */
START_TEST(remat_sqlite_round_trip) {
  mp_row r[16];
  int n = remat_rows(r);
  mkdir("tmp", 0755);
  char db[128], msg[512];
  snprintf(db, sizeof db, "tmp/remat_%ld.sqlite", (long)getpid());
  unlink_db(db);
  mp_db *h = mp_db_open(db, msg, sizeof msg);
  ck_assert_msg(h != NULL, "%s", msg);
  for (int i = 0; i < n; i++) ck_assert_int_eq(mp_db_store(h, &r[i], false, msg, sizeof msg), 0);
  mp_db_close(h);
  mp_row *back;
  int nb;
  load(db, &back, &nb);
  ck_assert_int_eq(nb, n);
  mp_table_opts o = {.format = "md", .view = "remat"};
  char *a = table_opts(r, n, &o, 0), *b = table_opts(back, nb, &o, 0);
  ck_assert_str_eq(a, b);
  free(a);
  free(b);
  /* the overhead picture from that file: the first curve's colour in the plot area */
  char png[160];
  snprintf(png, sizeof png, "tmp/overhead_%ld.png", (long)getpid());
  const char *in[1] = {db};
  ck_assert_msg(mp_plot_overhead(in, 1, NULL, false, 0.2, png, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_msg(mp_plot_overhead(in, 1, "x", false, 0.2, png, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_msg(mp_plot_overhead(in, 1, "nosuchgraph", false, 0.2, png, msg, sizeof msg) == -1 &&
                    strstr(msg, "no planned recomputation runs of nosuchgraph"),
                "%s", msg);
  unlink(png);
  cairo_debug_reset_static_data();
  mp_rows_destroy(back, nb);
  for (int i = 0; i < n; i++) mp_row_destroy(&r[i]);
  unlink_db(db);
}
END_TEST

/* ------------------------------------------------------------ pictures of event plans */


/* in -> a -> b -> c, c also reads a: a can be recomputed or offloaded
 * between b and c. */
static const char rr_graph[] =
    "{\"name\": \"rr\", \"host_bandwidth\": 1000, \"nodes\": [\n"
    " {\"id\": 0, \"name\": \"in\", \"op\": \"input\", \"size\": 1000, \"inputs\": []},\n"
    " {\"id\": 1, \"name\": \"a\", \"op\": \"op\", \"size\": 4000, \"inputs\": [0]},\n"
    " {\"id\": 2, \"name\": \"b\", \"op\": \"op\", \"size\": 3000, \"inputs\": [1]},\n"
    " {\"id\": 3, \"name\": \"c\", \"op\": \"op\", \"size\": 2000, \"inputs\": [2, 1]}]}\n";

/* Write a plan file of the events (ev, bw), its residencies stacked (a
 * placement without reuse: valid). */
static void write_event_plan(const mp_graph *g, const mp_events *ev, double bw, const char *path) {
  mp_error err;
  ck_assert_msg(mp_events_verify(g, ev, bw, NULL, &err) == 0, "%s", err.msg);
  mp_problem p;
  mp_events_problem(g, ev, 64, &p, NULL);
  json_t *o = json_object(), *offs = json_object();
  int64_t at = 0;
  for (int i = 0; i < p.n; i++) {
    json_object_set_new(offs, p.ids[i], json_integer(at));
    at += (p.items[i].size + 63) / 64 * 64;
  }
  json_object_set_new(o, "remat_solver", json_string("by hand"));
  json_object_set_new(o, "budget", json_integer(at));
  json_object_set_new(o, "align", json_integer(64));
  json_object_set_new(o, "bandwidth", json_real(bw));
  json_object_set_new(o, "events", mp_events_to_json(g, ev));
  json_object_set_new(o, "offsets", offs);
  ck_assert_int_eq(json_dump_file(o, path, 0), 0);
  json_decref(o);
  mp_problem_destroy(&p);
}

/* Pixels in the plot area (x < xmax) within 3 of the colour col blended
 * with white at alpha a. */
static int pixels_of(const char *png, int xmax, const double *col, double a) {
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  ck_assert_int_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  int stride = cairo_image_surface_get_stride(s), hits = 0;
  const unsigned char *d = cairo_image_surface_get_data(s);
  int want[3];
  for (int k = 0; k < 3; k++) want[k] = (int)lround(255 * (1 - a * (1 - col[k])));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w && x < xmax; x++) {
      uint32_t px = *(const uint32_t *)(d + y * stride + 4 * x);
      int rgb[3] = {(int)(px >> 16 & 255), (int)(px >> 8 & 255), (int)(px & 255)};
      hits += abs(rgb[0] - want[0]) <= 3 && abs(rgb[1] - want[1]) <= 3 && abs(rgb[2] - want[2]) <= 3;
    }
  cairo_surface_destroy(s);
  return hits;
}

/* Placement and profile of plans with a recomputation and with an offload:
 * the residencies in their own colours; a plan that breaks a rule is
 * refused, naming the event. */
START_TEST(event_plan_pictures) {
  mkdir("tmp", 0755);
  char gpath[128], pa[128], pb[128], pc[128], png[128], msg[600];
  long pid = (long)getpid();
  snprintf(gpath, sizeof gpath, "tmp/rr_%ld.json", pid);
  snprintf(pa, sizeof pa, "tmp/rr_rerun_%ld.json", pid);
  snprintf(pb, sizeof pb, "tmp/rr_offload_%ld.json", pid);
  snprintf(pc, sizeof pc, "tmp/rr_bad_%ld.json", pid);
  snprintf(png, sizeof png, "tmp/rr_%ld.png", pid);
  FILE *f = fopen(gpath, "w");
  fputs(rr_graph, f);
  fclose(f);
  mp_instance in;
  mp_error err;
  ck_assert_msg(mp_instance_load(gpath, NULL, &in, &err) == 0, "%s", err.msg);
  const mp_graph *g = in.g;
  int a = g->root_of[1][0], b = g->root_of[2][0];
  mp_events ev;
  mp_events_init(&ev);
  /* recompute a: run a, b, free a, run a again, c */
  const int rerun[][2] = {{MP_EV_RUN, 1}, {MP_EV_RUN, 2}, {MP_EV_FREE, a}, {MP_EV_RUN, 1},
                          {MP_EV_RUN, 3}, {MP_EV_FREE, a}, {MP_EV_FREE, b}};
  for (int i = 0; i < 7; i++) mp_events_push(&ev, rerun[i][0], rerun[i][1]);
  write_event_plan(g, &ev, 0, pa);
  /* offload a: out after b, free, in before c */
  mp_events_clear(&ev);
  const int off[][2] = {{MP_EV_RUN, 1}, {MP_EV_OUT, a}, {MP_EV_RUN, 2}, {MP_EV_FREE, a},
                        {MP_EV_IN, a}, {MP_EV_RUN, 3}, {MP_EV_FREE, a}, {MP_EV_FREE, b}};
  for (int i = 0; i < 8; i++) mp_events_push(&ev, off[i][0], off[i][1]);
  write_event_plan(g, &ev, 1000, pb);
  const double *orange = mp_origin_colour[MP_RES_RERUN], *green = mp_origin_colour[MP_RES_IN];
  ck_assert_msg(mp_plot_placement(gpath, pa, NULL, png, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_int_gt(pixels_of(png, 840, orange, 1) + pixels_of(png, 840, orange, 0.35), 1000);
  ck_assert_int_eq(pixels_of(png, 840, green, 1) + pixels_of(png, 840, green, 0.35), 0);
  ck_assert_msg(mp_plot_placement(gpath, pb, NULL, png, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_int_gt(pixels_of(png, 840, green, 1) + pixels_of(png, 840, green, 0.35), 1000);
  ck_assert_int_eq(pixels_of(png, 840, orange, 1) + pixels_of(png, 840, orange, 0.35), 0);
  /* the profile: the first plan's recomputed bytes filled pale orange */
  const char *orders[1] = {"given"}, *plans[2] = {pa, pb};
  mp_run_spec spec = {.seed = 1};
  ck_assert_msg(mp_plot_profile(gpath, orders, 1, plans, 2, &spec, png, msg, sizeof msg) == 0, "%s",
                msg);
  ck_assert_int_gt(pixels_of(png, 760, orange, 0.28), 500);
  /* c before b: the first runs break the order */
  mp_events_clear(&ev);
  const int bad[][2] = {{MP_EV_RUN, 1}, {MP_EV_RUN, 3}, {MP_EV_RUN, 2}};
  for (int i = 0; i < 3; i++) mp_events_push(&ev, bad[i][0], bad[i][1]);
  json_t *o = json_pack("{s:o, s:{}}", "events", mp_events_to_json(g, &ev), "offsets");
  json_dump_file(o, pc, 0);
  json_decref(o);
  ck_assert_int_eq(mp_plot_placement(gpath, pc, NULL, png, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, pc) && strstr(msg, "event 1"), "%s", msg);
  mp_events_destroy(&ev);
  mp_instance_destroy(&in);
  unlink(gpath), unlink(pa), unlink(pb), unlink(pc), unlink(png);
  cairo_debug_reset_static_data(); /* cairo's caches: not leaks of ours (LeakSanitizer) */
}
END_TEST

/* Cairo keeps path coordinates in 24.8 fixed point; values 1 apart are
 * 0.066 units apart on the canvas below. */
static bool near(double a, double b) { return fabs(a - b) < 0.01; }

/* The device points of the path on c's context. */
static int path_points(mp_canvas *c, double *px, double *py, int cap) {
  cairo_path_t *path = cairo_copy_path_flat(c->cr);
  int n = 0;
  for (int i = 0; i < path->num_data; i += path->data[i].header.length)
    if (path->data[i].header.type != CAIRO_PATH_CLOSE_PATH && n < cap) {
      px[n] = path->data[i + 1].point.x;
      py[n++] = path->data[i + 1].point.y;
    }
  cairo_path_destroy(path);
  return n;
}

/* mp_canvas_step_path: a short curve exactly (two points a value), a long
 * one reduced to at most 4 points a column, with every column's highest
 * and lowest value among them, at the column's x. */
START_TEST(step_path_keeps_extremes) {
  cairo_surface_t *rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
  mp_canvas c = {.cr = cairo_create(rec), .x0 = 60, .x1 = 760, .y0 = 40, .y1 = 500};
  int cols = mp_canvas_columns(&c), cap = 8 * cols + 8; /* 2n + 1 points drawn whole, 4 a column else */
  double *px = mp_xmalloc(sizeof(double) * (size_t)cap), *py = mp_xmalloc(sizeof(double) * (size_t)cap);
  mp_rng r;
  mp_rng_seed(&r, 9);
  int sizes[] = {1, 37, 4 * cols, 4 * cols + 1, 100003, 1000000};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    int n = sizes[k];
    int64_t *y = mp_xmalloc(sizeof(int64_t) * (size_t)n);
    for (int t = 0; t < n; t++) y[t] = (int64_t)mp_rng_below(&r, 1000) + (t % 5000 == 17 ? 5000 : 0);
    c.dx0 = 0, c.dx1 = n, c.dy0 = 0, c.dy1 = 7000;
    cairo_new_path(c.cr);
    mp_canvas_step_path(&c, y, n, 0);
    int m = path_points(&c, px, py, cap);
    if (n <= 4 * cols) { /* each value's step ends at (t + 1, y[t]) (cairo merges equal ones) */
      ck_assert_int_le(m, 2 * n + 1);
      for (int t = 0, q = 0; t < n; t++) {
        if (t + 1 < n && y[t + 1] == y[t]) continue;
        while (q < m && !(near(px[q], mp_cx(&c, t + 1.0)) && near(py[q], mp_cy(&c, (double)y[t]))))
          q++;
        ck_assert_msg(q < m, "n %d: the step of value %d is missing", n, t);
      }
    } else {
      ck_assert_int_le(m, 4 * cols + 1);
      for (int j = 0; j < cols; j++) {
        int64_t t0 = mp_canvas_column_lo(j, n, cols), t1 = mp_canvas_column_lo(j + 1, n, cols);
        int64_t lo = y[t0], hi = y[t0];
        for (int64_t t = t0; t < t1; t++) lo = y[t] < lo ? y[t] : lo, hi = y[t] > hi ? y[t] : hi;
        bool got_lo = false, got_hi = false;
        for (int q = 0; q < m; q++) {
          if (px[q] < mp_cx(&c, (double)t0) - 0.01 || px[q] > mp_cx(&c, (double)t1) + 0.01) continue;
          got_lo |= near(py[q], mp_cy(&c, (double)lo));
          got_hi |= near(py[q], mp_cy(&c, (double)hi));
        }
        ck_assert_msg(got_lo && got_hi, "n %d, column %d: lowest %d highest %d", n, j, got_lo, got_hi);
      }
    }
    free(y);
  }
  free(px);
  free(py);
  cairo_destroy(c.cr);
  cairo_surface_destroy(rec);
  cairo_debug_reset_static_data();
}
END_TEST

/* The profile of an event plan has one value per residency time, time 0
 * the start: 0 bytes when the graph has no input node (the start is then no
 * sample, and the samples are one fewer), the input buffers otherwise. */
START_TEST(event_samples_by_time) {
  const char *js[] = {
      "{\"nodes\":[{\"id\":0,\"op\":\"zeros\",\"size\":10,\"inputs\":[]},"
      "{\"id\":1,\"op\":\"f\",\"size\":20,\"inputs\":[0]}]}",
      "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":10,\"inputs\":[]},"
      "{\"id\":1,\"op\":\"f\",\"size\":20,\"inputs\":[0]}]}"};
  const int64_t want[2][3] = {{0, 10, 30}, {10, 30, 30}};
  for (int k = 0; k < 2; k++) {
    mp_graph *g = tl_graph(js[k]);
    mp_events p;
    mp_events_init(&p);
    mp_events_from_order(g, g->given, &p);
    int n = 0;
    int64_t *s = mp_events_samples(g, &p, &n);
    ck_assert_int_eq(n, k == 0 ? 3 : 2);
    for (int t = 0; t < n; t++) ck_assert_int_eq(s[t], want[k][t]);
    free(s);
    mp_events_destroy(&p);
    mp_graph_destroy(g);
  }
  tl_cleanup();
}
END_TEST

/* The profile's legend says when the min-cut bound is above the chart
 * (event plans peak below it, and its line is not drawn). */
START_TEST(bound_legend_off_chart) {
  char lab[200];
  mp_plot_bound_legend(lab, sizeof lab, 2048, true, 1000);
  ck_assert_str_eq(lab, "min-cut bound 2.00 KiB (orders), above the chart");
  mp_plot_bound_legend(lab, sizeof lab, 900, false, 1000);
  ck_assert_str_eq(lab, "min-cut bound 900 B");
}
END_TEST

Suite *suite_table(void) {
  Suite *s = suite_create("table");
  TCase *tc = tcase_create("table");
  tcase_add_test(tc, tables_match_expected_text);
  tcase_add_test(tc, tables_do_not_depend_on_row_order);
  tcase_add_test(tc, results_csv_layouts);
  tcase_add_test(tc, sqlite_round_trip);
  tcase_add_test(tc, aggregation_rules);
  tcase_add_test(tc, time_spread_ties);
  tcase_add_test(tc, baseline_and_common);
  tcase_add_test(tc, pooled_sources);
  tcase_add_test(tc, pooled_sources_seeds);
  tcase_add_test(tc, suite_means_skip_absent);
  tcase_add_test(tc, representative_run);
  tcase_add_test(tc, names_escaped);
  tcase_add_test(tc, long_labels);
  tcase_add_test(tc, suite_bold_zero);
  tcase_add_test(tc, bound_legend_off_chart);
  tcase_add_test(tc, pivot_view);
  tcase_add_test(tc, remat_tables);
  tcase_add_test(tc, remat_contradictions);
  tcase_add_test(tc, remat_sqlite_round_trip);
  tcase_add_test(tc, claim_after_row_changes);
  tcase_add_test(tc, event_plan_pictures);
  tcase_add_test(tc, step_path_keeps_extremes);
  tcase_add_test(tc, event_samples_by_time);
  suite_add_tcase(s, tc);
  return s;
}
