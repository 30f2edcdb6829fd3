/* test_api.c - the public API (memplan.h) as a client sees it: only the
 * public header's names, no internal type.  tests/install.sh builds
 * tests/install/embed.c against the installed library the same way. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memplan.h"

/* A file in tests/tmp of this process alone (the unit run and the sanitizer
 * run may go side by side): "tmp/PID_name", from a ring of 8 buffers. */
static const char *tp(const char *name) {
  static char ring[8][256];
  static int next;
  mkdir("tmp", 0755);
  char *p = ring[next++ % 8];
  snprintf(p, sizeof ring[0], "tmp/%ld_%s", (long)getpid(), name);
  return p;
}

static const char *SEED = "../graphs/examples/seed_example.json";

static memplan_instance *load(const char *path) {
  memplan_instance *in;
  memplan_error err;
  ck_assert_msg(memplan_instance_load(&in, path, NULL, &err) == MEMPLAN_OK, "%s", err.msg);
  return in;
}

START_TEST(solvers_and_options) {
  int n = memplan_solver_count();
  ck_assert_int_gt(n, 0);
  for (int i = 0; i < n; i++) {
    memplan_solver_info s;
    ck_assert_int_eq(memplan_solver_get(i, &s), MEMPLAN_OK);
    ck_assert_int_eq(memplan_solver_index(s.name), i);
    ck_assert(s.decides >= MEMPLAN_DECIDES_ORDER && s.decides <= MEMPLAN_DECIDES_EVENTS);
    for (int k = 0; k < s.n_options; k++) {
      memplan_option_info o;
      ck_assert_int_eq(memplan_solver_option(i, k, &o), MEMPLAN_OK);
      ck_assert(o.lo <= o.def && o.def <= o.hi);
      /* an integer option's default and range are integers (so its range
       * holds them); 0.5 in a [0, 1] range is a real option's */
      if (o.integer)
        ck_assert_msg(o.def == floor(o.def) && o.lo == floor(o.lo) && o.hi == floor(o.hi),
                      "%s.%s: an integer option with a fraction in its default or range", s.name,
                      o.name);
    }
    memplan_option_info o;
    ck_assert_int_eq(memplan_solver_option(i, s.n_options, &o), MEMPLAN_EUSAGE);
  }
  memplan_solver_info s;
  ck_assert_int_eq(memplan_solver_get(n, &s), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_solver_index("no-such-solver"), -1);
}
END_TEST

static bool option_is_integer(const char *solver, const char *name) {
  int i = memplan_solver_index(solver);
  memplan_solver_info s;
  ck_assert_int_eq(memplan_solver_get(i, &s), MEMPLAN_OK);
  for (int k = 0; k < s.n_options; k++) {
    memplan_option_info o;
    memplan_solver_option(i, k, &o);
    if (!strcmp(o.name, name)) return o.integer;
  }
  ck_abort_msg("%s has no option %s", solver, name);
  return false;
}

/* Counts, caps and 0/1 switches take integers: a fraction is refused, not
 * truncated by the solver; a real option keeps its fraction; an integer
 * written with an exponent is an integer. */
START_TEST(integer_options_refuse_fractions) {
  ck_assert(option_is_integer("sa", "reach") && option_is_integer("sa", "fill"));
  ck_assert(option_is_integer("dp", "split") && option_is_integer("ilp", "backtrack"));
  ck_assert(!option_is_integer("sa", "t_end") && !option_is_integer("ga", "crossover"));
  memplan_instance *in = load(SEED);
  memplan_request req;
  memplan_request_init(&req);
  memplan_result *res = (memplan_result *)1;
  memplan_error err;
  const char *const bad[][2] = {{"sa", "sa.reach=3.5"}, {"sa", "reach=2.000001"},
                                {"dp", "dp.split=0.5"}, {"sa", "sa.iters=1e-1"}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    req.order = bad[k][0];
    req.sets = &bad[k][1];
    req.n_sets = 1;
    ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_EUSAGE);
    ck_assert(res == NULL);
    ck_assert_msg(strstr(err.msg, "is not an integer") && strstr(err.msg, bad[k][0]), "%s: %s",
                  bad[k][1], err.msg);
  }
  const char *const good[] = {"sa.reach=3e0", "sa.t_end=0.25", "sa.iters=2e2"};
  req.order = "sa";
  req.sets = good;
  req.n_sets = 3;
  ck_assert_msg(memplan_solve(in, &req, &res, &err) == MEMPLAN_OK, "%s", err.msg);
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
}
END_TEST

START_TEST(load_errors_name_the_file) {
  memplan_instance *in = (memplan_instance *)1;
  memplan_error err;
  ck_assert_int_eq(memplan_instance_load(&in, "no/such/file.json", NULL, &err), MEMPLAN_EINPUT);
  ck_assert(in == NULL);
  ck_assert_msg(strstr(err.msg, "no/such/file.json"), "%s", err.msg);
  /* an unknown format is a usage error, as the CLI's --input-format yaml */
  memplan_load_opts lo;
  memplan_load_opts_init(&lo);
  lo.format = "yaml";
  in = (memplan_instance *)1;
  ck_assert_int_eq(memplan_instance_load(&in, SEED, &lo, &err), MEMPLAN_EUSAGE);
  ck_assert(in == NULL);
  ck_assert_msg(strstr(err.msg, "unknown input format 'yaml'"), "%s", err.msg);
  lo.format = "csv";
  ck_assert_int_eq(memplan_instance_load(&in, "no/such/file.csv", &lo, &err), MEMPLAN_EINPUT);
  memplan_instance_destroy(NULL);
  memplan_result_destroy(NULL);
}
END_TEST

START_TEST(solve_read_verify_write) {
  memplan_instance *in = load(SEED);
  memplan_instance_info info;
  ck_assert_int_eq(memplan_instance_info_get(in, &info), MEMPLAN_OK);
  ck_assert(info.is_graph && info.nodes == 4 && info.buffers == 3);
  ck_assert_int_eq(info.live_peak, 16777216);
  memplan_request req;
  memplan_request_init(&req);
  req.order = "greedy";
  req.place = "bysize";
  memplan_result *res;
  memplan_error err;
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_result_order_status(res), MEMPLAN_FEASIBLE);
  ck_assert_int_eq(memplan_result_place_status(res), MEMPLAN_OPTIMAL);
  memplan_figures f;
  memplan_result_figures(res, &f);
  ck_assert(f.has_figures && f.has_baseline);
  ck_assert_int_eq(f.live_peak, 12582912);
  ck_assert_int_eq(f.arena, 12582912);
  ck_assert_int_eq(f.given_arena, 16777216);
  const int *order;
  const int64_t *off;
  ck_assert_int_eq(memplan_result_order(res, &order), 4);
  ck_assert_int_eq(memplan_result_offsets(res, &off), 3);
  int64_t top = 0;
  for (int b = 0; b < 3; b++) {
    memplan_buffer buf;
    ck_assert_int_eq(memplan_result_buffer(res, b, &buf), MEMPLAN_OK);
    ck_assert_int_eq(buf.offset, off[b]);
    ck_assert(buf.key[0] && buf.lo < buf.hi);
    if (buf.offset + buf.size > top) top = buf.offset + buf.size;
  }
  ck_assert_int_eq(top, f.arena);
  memplan_buffer none;
  ck_assert_int_eq(memplan_result_buffer(res, 3, &none), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_result_stage_count(res), 2);
  memplan_stage_info st;
  ck_assert_int_eq(memplan_result_stage(res, 0, &st), MEMPLAN_OK);
  ck_assert_str_eq(st.solver, "greedy");
  /* the judge accepts the plan in memory, and rejects it with an overlap */
  ck_assert_msg(memplan_verify_plan(in, order, off, 0, &err) == MEMPLAN_OK, "%s", err.msg);
  int64_t bad[3] = {0, 0, 0};
  ck_assert_int_eq(memplan_verify_plan(in, order, bad, 0, &err), MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "overlap"), "%s", err.msg);
  /* written atomically, re-checked from the file */
  mkdir("tmp", 0755);
  ck_assert_int_eq(memplan_result_write_plan(res, tp("api.plan.json"), &err), MEMPLAN_OK);
  ck_assert_msg(memplan_verify_file(in, tp("api.plan.json"), 0, &err) == MEMPLAN_OK, "%s", err.msg);
  unlink(tp("api.plan.json"));
  ck_assert_int_eq(memplan_result_print(res, stdout, "xml"), MEMPLAN_EUSAGE);
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
}
END_TEST

START_TEST(usage_and_solver_errors) {
  memplan_instance *in = load(SEED);
  memplan_request req;
  memplan_request_init(&req);
  memplan_result *res = (memplan_result *)1;
  memplan_error err;
  req.order = "no-such-solver";
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_EUSAGE);
  ck_assert(res == NULL);
  ck_assert_msg(strstr(err.msg, "no-such-solver"), "%s", err.msg);
  /* no plan: a result that says why, without figures or offsets */
  req.order = "bfs";
  req.place = "exact";
  req.capacity = 12582912;
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_ESOLVER);
  ck_assert_int_eq(memplan_result_status(res), MEMPLAN_ERROR);
  ck_assert(memplan_result_message(res)[0]);
  memplan_figures f;
  memplan_result_figures(res, &f);
  ck_assert(!f.has_figures && f.arena == 0 && f.lower_bound > 0);
  const int64_t *off;
  ck_assert_int_eq(memplan_result_offsets(res, &off), 0);
  ck_assert(off == NULL);
  ck_assert_int_eq(memplan_result_write_plan(res, tp("never.plan.json"), &err), MEMPLAN_EUSAGE);
  memplan_result_destroy(res);
  /* proven infeasible: MEMPLAN_OK, status infeasible, still no figures */
  req.order = NULL;
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_result_status(res), MEMPLAN_INFEASIBLE);
  ck_assert_int_eq(memplan_result_order_status(res), MEMPLAN_FIXED);
  memplan_result_figures(res, &f);
  ck_assert(!f.has_figures);
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
}
END_TEST

START_TEST(lifetimes_from_arrays) {
  const int64_t size[] = {100, 50, 100}, lo[] = {0, 0, 2}, hi[] = {2, 4, 4}, pin[] = {-1, 200, -1};
  memplan_instance *in;
  memplan_error err;
  const int64_t bad_hi[] = {2, 4, 1};
  ck_assert_int_eq(memplan_instance_from_lifetimes(&in, 3, size, lo, bad_hi, NULL, NULL, &err),
                   MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "buffer 2"), "%s", err.msg);
  ck_assert_int_eq(memplan_instance_from_lifetimes(&in, 3, size, lo, hi, NULL, NULL, &err), MEMPLAN_OK);
  memplan_request req;
  memplan_request_init(&req);
  req.place = "exact";
  memplan_result *res;
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_OK);
  memplan_figures f;
  memplan_result_figures(res, &f);
  ck_assert_int_eq(f.arena, 150);
  ck_assert_int_eq(memplan_result_status(res), MEMPLAN_OPTIMAL);
  ck_assert_int_eq(memplan_result_order_status(res), MEMPLAN_FIXED);
  const int *order;
  ck_assert_int_eq(memplan_result_order(res, &order), 0);
  const int64_t *off;
  ck_assert_int_eq(memplan_result_offsets(res, &off), 3);
  ck_assert_int_eq(memplan_verify_plan(in, NULL, off, 0, &err), MEMPLAN_OK);
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
  /* a pinned buffer stays where it is pinned */
  ck_assert_int_eq(memplan_instance_from_lifetimes(&in, 3, size, lo, hi, NULL, pin, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_OK);
  memplan_result_offsets(res, &off);
  ck_assert_int_eq(off[1], 200);
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
}
END_TEST

/* A recomputation stage through the API: the request, the figures, the
 * events, the judge in memory and on file. */
START_TEST(remat_solve_events_verify) {
  memplan_instance *in = load(SEED);
  memplan_request req;
  memplan_request_init(&req);
  memplan_result *res;
  memplan_error err;
  req.remat = "keepall";
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_EUSAGE); /* no budget */
  ck_assert_msg(strstr(err.msg, "budget"), "%s", err.msg);
  req.budget_frac = "1";
  ck_assert_msg(memplan_solve(in, &req, &res, &err) == MEMPLAN_OK, "%s", err.msg);
  ck_assert_int_eq(memplan_result_remat_status(res), MEMPLAN_OPTIMAL);
  memplan_figures f;
  memplan_result_figures(res, &f);
  ck_assert(f.has_figures && f.has_remat && f.has_budget);
  ck_assert_int_eq(f.budget, 16777216);
  ck_assert(f.duration == 4 && f.base_time == 4 && f.overhead == 0 && f.recomputed == 0);
  ck_assert(f.bandwidth == 0 && f.transferred == 0 && f.residencies == 3);
  ck_assert_int_eq(f.live_peak, 16777216);
  memplan_stage_info st;
  ck_assert_int_eq(memplan_result_stage(res, 1, &st), MEMPLAN_OK);
  ck_assert(st.decides == MEMPLAN_DECIDES_EVENTS && st.duration_bound == 4);
  /* the events: run 0, run 1, run 2, free "0", run 3, free "1" */
  int n = memplan_result_event_count(res);
  ck_assert_int_eq(n, 6);
  memplan_event ev[6];
  for (int i = 0; i < n; i++) ck_assert_int_eq(memplan_result_event(res, i, &ev[i]), MEMPLAN_OK);
  ck_assert(ev[0].kind == MEMPLAN_EV_RUN && ev[0].node == 0 && ev[0].output == -1);
  ck_assert(ev[3].kind == MEMPLAN_EV_FREE && ev[3].node == 0 && ev[3].output == 0);
  ck_assert_str_eq(ev[3].key, "0");
  memplan_event none;
  ck_assert_int_eq(memplan_result_event(res, n, &none), MEMPLAN_EUSAGE);
  /* the judge in memory: the plan, then tampered copies */
  const int64_t *off;
  int nb = memplan_result_offsets(res, &off);
  ck_assert_int_eq(nb, 3);
  ck_assert_msg(memplan_verify_events(in, n, ev, -1, f.budget, off, 0, &err) == MEMPLAN_OK, "%s", err.msg);
  ck_assert_int_eq(memplan_verify_events(in, n, ev, -1, f.budget - 1, NULL, 0, &err), MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "exceeds the budget"), "%s", err.msg);
  int64_t zero[3] = {0, 0, 0};
  ck_assert_int_eq(memplan_verify_events(in, n, ev, -1, -1, zero, 0, &err), MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "overlap"), "%s", err.msg);
  ev[3].kind = MEMPLAN_EV_OUT;
  ck_assert_int_eq(memplan_verify_events(in, n, ev, -1, -1, NULL, 0, &err), MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "event 3") && strstr(err.msg, "[rule: copies need a host link]"), "%s", err.msg);
  ev[3].output = 7;
  ck_assert_int_eq(memplan_verify_events(in, n, ev, -1, -1, NULL, 0, &err), MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "owns no tensor buffer"), "%s", err.msg);
  /* the plan file carries the events and verifies */
  mkdir("tmp", 0755);
  ck_assert_int_eq(memplan_result_write_plan(res, tp("api.remat.json"), &err), MEMPLAN_OK);
  ck_assert_msg(memplan_verify_file(in, tp("api.remat.json"), 0, &err) == MEMPLAN_OK, "%s", err.msg);
  unlink(tp("api.remat.json"));
  memplan_result_destroy(res);
  /* without a remat chain: nothing decided, no events */
  memplan_request_init(&req);
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_result_remat_status(res), MEMPLAN_FIXED);
  ck_assert_int_eq(memplan_result_event_count(res), 0);
  memplan_result_figures(res, &f);
  ck_assert(!f.has_remat && !f.has_budget && f.duration == 0);
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
  /* an event plan needs a graph */
  const int64_t size[] = {1}, lo[] = {0}, hi[] = {1};
  ck_assert_int_eq(memplan_instance_from_lifetimes(&in, 1, size, lo, hi, NULL, NULL, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_verify_events(in, 0, NULL, 0, -1, NULL, 0, &err), MEMPLAN_EUSAGE);
  memplan_instance_destroy(in);
}
END_TEST

/* ---- option structs: a version set by their _init ---- */

START_TEST(option_structs_need_their_init) {
  memplan_instance *in = load(SEED);
  memplan_error err;
  memplan_result *res = (memplan_result *)1;
  memplan_request req;
  memset(&req, 0, sizeof req);
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_EUSAGE);
  ck_assert(res == NULL);
  ck_assert_msg(strstr(err.msg, "memplan_request_init"), "%s", err.msg);
  memplan_load_opts lo = {0};
  memplan_instance *other = (memplan_instance *)1;
  ck_assert_int_eq(memplan_instance_load(&other, SEED, &lo, &err), MEMPLAN_EUSAGE);
  ck_assert(other == NULL);
  memplan_load_opts_init(&lo);
  ck_assert_int_eq(memplan_instance_load(&other, SEED, &lo, &err), MEMPLAN_OK);
  ck_assert(memplan_instance_is_graph(other));
  memplan_instance_destroy(other);
  memplan_table_opts to = {0};
  const char *files[] = {"data/bench_results.csv"};
  ck_assert_int_eq(memplan_table_write(files, 1, &to, tp("never.md"), &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(access(tp("never.md"), F_OK), -1);
  memplan_instance_destroy(in);
  ck_assert_int_eq(memplan_api_version(), MEMPLAN_API_VERSION);
  ck_assert(memplan_commit()[0]);
}
END_TEST

START_TEST(numbers_read_exactly) {
  int64_t v;
  double d;
  const char *why = NULL;
  ck_assert_int_eq(memplan_parse_int64("-42", &v, &why), MEMPLAN_OK);
  ck_assert_int_eq(v, -42);
  ck_assert_int_eq(memplan_parse_int64("9223372036854775808", &v, &why), MEMPLAN_EUSAGE);
  ck_assert(why && why[0]);
  ck_assert_int_eq(memplan_parse_int64("1e3", &v, NULL), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_parse_int64(" 1", &v, NULL), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_parse_real("0.25", &d, NULL), MEMPLAN_OK);
  ck_assert(d == 0.25);
  ck_assert_int_eq(memplan_parse_real("nan", &d, &why), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_parse_real("inf", &d, NULL), MEMPLAN_EUSAGE);
  char t[32];
  memplan_format_number(1e6, t, sizeof t);
  ck_assert_str_eq(t, "1000000");
  memplan_format_number(0.1, t, sizeof t);
  ck_assert_str_eq(t, "0.1");
}
END_TEST

/* ---- synthetic graphs, written and read back ---- */

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s", path);
  char *s = calloc(1 << 20, 1);
  size_t n = fread(s, 1, (1 << 20) - 1, f);
  fclose(f);
  s[n] = 0;
  return s;
}

static void same_figures(const memplan_instance *a, const char *path) {
  memplan_instance *b = load(path);
  memplan_instance_info x, y;
  memplan_instance_info_get(a, &x);
  memplan_instance_info_get(b, &y);
  ck_assert(x.nodes == y.nodes && x.buffers == y.buffers && x.data_edges == y.data_edges);
  ck_assert(x.sum_sizes == y.sum_sizes && x.live_peak == y.live_peak);
  ck_assert(x.lower_bound == y.lower_bound);
  memplan_instance_destroy(b);
}

START_TEST(gen_write_read_back) {
  memplan_gen_opts o;
  memplan_gen_opts_init(&o);
  o.family = "sp";
  o.n = 40;
  o.seed = 7;
  memplan_instance *g;
  memplan_error err;
  ck_assert_msg(memplan_gen(&g, &o, &err) == MEMPLAN_OK, "%s", err.msg);
  memplan_instance_info info;
  memplan_instance_info_get(g, &info);
  ck_assert(info.is_graph && info.nodes == 40 && info.live_peak > 0);
  mkdir("tmp", 0755);
  ck_assert_int_eq(memplan_instance_write(g, tp("api_gen.json"), "json", &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_instance_write(g, tp("api_gen.nl.json"), "nodelink", &err), MEMPLAN_OK);
  same_figures(g, tp("api_gen.json"));
  same_figures(g, tp("api_gen.nl.json"));
  /* the same options give the same bytes; the file says how to make it */
  memplan_instance *h;
  ck_assert_int_eq(memplan_gen(&h, &o, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_instance_write(h, tp("api_gen2.json"), "json", &err), MEMPLAN_OK);
  char *a = slurp(tp("api_gen.json")), *b = slurp(tp("api_gen2.json"));
  ck_assert_str_eq(a, b);
  ck_assert_msg(strstr(a, "memplan gen sp") && strstr(a, "--seed 7"), "%.300s", a);
  free(a);
  free(b);
  /* refusals: a format, a family, a bad parameter, a fixed-lifetime problem */
  ck_assert_int_eq(memplan_instance_write(g, tp("api_gen3.json"), "xml", &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(access(tp("api_gen3.json"), F_OK), -1);
  ck_assert_int_eq(memplan_instance_write(g, "tmp/no/such/dir/g.json", "json", &err), MEMPLAN_EIO);
  ck_assert(!memplan_gen_family_known("mesh") && memplan_gen_family_known("randwire"));
  memplan_instance *none = (memplan_instance *)1;
  o.family = "mesh";
  ck_assert_int_eq(memplan_gen(&none, &o, &err), MEMPLAN_EUSAGE);
  ck_assert(none == NULL);
  o.family = "randwire";
  o.k = 3; /* Watts-Strogatz needs an even k */
  ck_assert_int_eq(memplan_gen(&none, &o, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "-k"), "%s", err.msg);
  const int64_t size[] = {1}, lo[] = {0}, hi[] = {1};
  memplan_instance *fixed;
  ck_assert_int_eq(memplan_instance_from_lifetimes(&fixed, 1, size, lo, hi, NULL, NULL, &err), MEMPLAN_OK);
  ck_assert(!memplan_instance_is_graph(fixed));
  ck_assert_int_eq(memplan_instance_write(fixed, tp("api_gen3.json"), "json", &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "not a graph"), "%s", err.msg);
  memplan_instance_destroy(fixed);
  memplan_instance_destroy(h);
  memplan_instance_destroy(g);
  unlink(tp("api_gen.json"));
  unlink(tp("api_gen2.json"));
  unlink(tp("api_gen.nl.json"));
}
END_TEST

/* ---- experiments: settings, the matrix and its shards ---- */

START_TEST(experiment_matrix_shards) {
  memplan_experiment *e;
  memplan_error err;
  ck_assert_int_eq(memplan_experiment_load(&e, NULL, &err), MEMPLAN_OK);
  ck_assert_str_eq(memplan_experiment_name(e), "adhoc");
  ck_assert_int_eq(memplan_experiment_set(e, "graphs", SEED, false, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_experiment_set(e, "order", "greedy", false, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_experiment_set(e, "order", "dfs,sa", true, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_experiment_set(e, "place", "bysize", false, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_experiment_set(e, "seeds", "1,2", false, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_experiment_set(e, "time-limit", "0.5", false, &err), MEMPLAN_OK);
  /* refusals name the setting and the value */
  ck_assert_int_eq(memplan_experiment_set(e, "seeds", "1,x", false, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "'1,x'") && strstr(err.msg, "--seeds"), "%s", err.msg);
  ck_assert_int_eq(memplan_experiment_set(e, "budgets", "0.5", false, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_experiment_set(e, "order", "a b", false, &err), MEMPLAN_EUSAGE);
  /* a chain solve would refuse, refused here (the experiment keeps its chains) */
  ck_assert_int_eq(memplan_experiment_set(e, "order", "nosuch", true, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "unknown solver 'nosuch'"), "%s", err.msg);
  ck_assert_int_eq(memplan_experiment_set(e, "place", "bysize,sa", true, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_experiment_set(e, "remat", "greedy", true, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_experiment_set(e, "mem-limit", "nan", false, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_experiment_set(e, "shard", "2/2", false, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_experiment_set(e, "frob", "1", false, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "--frob"), "%s", err.msg);
  memplan_matrix *m;
  ck_assert_msg(memplan_matrix_build(&m, e, &err) == MEMPLAN_OK, "%s", err.msg);
  memplan_matrix_info mi;
  memplan_matrix_info_get(m, &mi);
  ck_assert(mi.cells == 4 && mi.total == 4 && mi.shards == 1);
  memplan_cell c;
  for (int i = 0; i < mi.cells; i++) {
    ck_assert_int_eq(memplan_matrix_cell(m, i, &c), MEMPLAN_OK);
    ck_assert_str_eq(c.path, SEED);
    ck_assert(c.time_limit == 0.5 && (c.seed == 1 || c.seed == 2) && !c.remat[0]);
  }
  ck_assert_int_eq(memplan_matrix_cell(m, mi.cells, &c), MEMPLAN_EUSAGE);
  memplan_matrix_destroy(m);
  /* shard 1 of 3 of the four cells: cells 1 */
  ck_assert_int_eq(memplan_experiment_set(e, "shard", "1/3", false, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_matrix_build(&m, e, &err), MEMPLAN_OK);
  memplan_matrix_info_get(m, &mi);
  ck_assert(mi.cells == 1 && mi.total == 4 && mi.shard == 1 && mi.shards == 3);
  memplan_matrix_destroy(m);
  /* an option no solver has: a usage error when the matrix is built */
  ck_assert_int_eq(memplan_experiment_set(e, "set", "sa.nosuch=1", false, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_matrix_build(&m, e, &err), MEMPLAN_EUSAGE);
  ck_assert(m == NULL);
  ck_assert_int_eq(memplan_experiment_set(e, "set", "sa.nosuch=2", false, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_experiment_set(e, "set", "sa.iters=100", false, &err), MEMPLAN_OK);
  memplan_experiment_destroy(e);
  ck_assert_int_eq(memplan_experiment_load(&e, "no/such/experiment.json", &err), MEMPLAN_EINPUT);
  ck_assert(e == NULL);
  ck_assert_msg(strstr(err.msg, "no/such/experiment.json"), "%s", err.msg);
  memplan_experiment_destroy(NULL);
  memplan_matrix_destroy(NULL);
}
END_TEST

/* ---- results: tables, export, merge; the graph bound of a bench child ---- */

START_TEST(results_tables_export) {
  mkdir("tmp", 0755);
  const char *files[] = {"data/bench_results.csv"};
  memplan_table_opts o;
  memplan_table_opts_init(&o);
  memplan_error err;
  ck_assert_msg(memplan_table_write(files, 1, &o, tp("api_table.md"), &err) == MEMPLAN_OK, "%s",
                err.msg);
  char *md = slurp(tp("api_table.md"));
  ck_assert_msg(strstr(md, "| ") && strstr(md, "greedy"), "%.300s", md);
  free(md);
  o.view = "remats"; /* a bad option writes nothing and keeps the old file */
  ck_assert_int_eq(memplan_table_write(files, 1, &o, tp("api_table.md"), &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(access(tp("api_table.md"), F_OK), 0);
  o.view = NULL;
  const char *missing[] = {"data/no_such_results.sqlite"};
  ck_assert_int_eq(memplan_table_write(missing, 1, &o, tp("api_table.md"), &err), MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "no_such_results"), "%s", err.msg);
  ck_assert_int_eq(memplan_results_export("data/bench_results.csv", tp("api_export.csv"), &err),
                   MEMPLAN_OK);
  char *csv = slurp(tp("api_export.csv"));
  ck_assert(!strncmp(csv, "path,", 5));
  free(csv);
  int added = -1;
  ck_assert_int_eq(memplan_results_merge(tp("api_merged.sqlite"), missing, 1, &added, &err),
                   MEMPLAN_EINPUT);
  ck_assert(added == 0 && access(tp("api_merged.sqlite"), F_OK) == -1);
  FILE *f = fopen(tp("api_bound.json"), "w");
  ck_assert_int_eq(memplan_bench_graph_bound(SEED, 0, f, &err), MEMPLAN_OK);
  fclose(f);
  char *b = slurp(tp("api_bound.json"));
  ck_assert_msg(strstr(b, "8388608"), "%s", b); /* the seed example's min-cut bound */
  free(b);
  unlink(tp("api_table.md"));
  unlink(tp("api_export.csv"));
  unlink(tp("api_bound.json"));
}
END_TEST

/* ---- pictures ---- */

START_TEST(plot_kinds_and_refusals) {
  mkdir("tmp", 0755);
  memplan_plot_opts o;
  memplan_plot_opts_init(&o);
  memplan_error err;
  const char *in[] = {SEED}, *outs[] = {tp("api_profile.svg"), tp("api_profile.png")};
  const char *orders[] = {"given", "greedy"};
  o.outs = outs;
  o.n_outs = 2;
  o.orders = orders;
  o.n_orders = 2;
  ck_assert_msg(memplan_plot("profile", in, 1, &o, &err) == MEMPLAN_OK, "%s", err.msg);
  ck_assert(access(outs[0], F_OK) == 0 && access(outs[1], F_OK) == 0);
  unlink(outs[0]);
  unlink(outs[1]);
  o.request.order = "greedy";
  o.n_outs = 1;
  ck_assert_msg(memplan_plot("placement", in, 1, &o, &err) == MEMPLAN_OK, "%s", err.msg);
  ck_assert(access(outs[0], F_OK) == 0);
  unlink(outs[0]);
  /* refusals, with no file left */
  ck_assert_int_eq(memplan_plot("pie", in, 1, &o, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_plot("profile", in, 0, &o, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_plot("pareto", in, 1, &o, &err), MEMPLAN_EUSAGE); /* no graph */
  const char *comma[] = {"tmp/a.svg,b.svg"};
  o.outs = comma;
  ck_assert_int_eq(memplan_plot("profile", in, 1, &o, &err), MEMPLAN_EUSAGE);
  o.outs = outs;
  o.n_outs = 0;
  ck_assert_int_eq(memplan_plot("profile", in, 1, &o, &err), MEMPLAN_EUSAGE);
  o.n_outs = 1;
  const char *results[] = {"data/bench_results.csv"};
  ck_assert_int_eq(memplan_plot("overhead", results, 1, &o, &err), MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "no planned recomputation runs"), "%s", err.msg);
  ck_assert_int_eq(access(outs[0], F_OK), -1);
  const char *nodir[] = {"tmp/no_such_dir/p.svg"}; /* an output it cannot create */
  o.outs = nodir;
  ck_assert_int_eq(memplan_plot("profile", in, 1, &o, &err), MEMPLAN_EIO);
  ck_assert_msg(strstr(err.msg, "no_such_dir"), "%s", err.msg);
  o.outs = outs;
  o.request.version = 0;
  ck_assert_int_eq(memplan_plot("profile", in, 1, &o, &err), MEMPLAN_EUSAGE);
}
END_TEST

/* ---- hostile arguments: what an embedding program can easily pass by
 * mistake is refused with MEMPLAN_EUSAGE (and a message when err is set),
 * never a crash, a hang or a silent success ---- */

START_TEST(hostile_requests_refused) {
  memplan_instance *in = load(SEED);
  memplan_request req;
  memplan_result *res = (memplan_result *)1;
  memplan_error err;
  memplan_request_init(&req);
  req.align = INT64_MAX; /* used to overflow in the placer */
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "align"), "%s", err.msg);
  ck_assert(res == NULL);
  memplan_request_init(&req);
  req.capacity = -1;
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "capacity"), "%s", err.msg);
  memplan_request_init(&req);
  req.time_limit = NAN;
  ck_assert_int_eq(memplan_solve(in, &req, &res, NULL), MEMPLAN_EUSAGE);
  memplan_request_init(&req);
  req.threads = -1;
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "threads"), "%s", err.msg);
  memplan_request_init(&req);
  req.n_sets = 2; /* sets left NULL */
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "n_sets"), "%s", err.msg);
  const char *const holes[] = {NULL};
  req.n_sets = 1;
  req.sets = holes;
  ck_assert_int_eq(memplan_solve(in, &req, &res, NULL), MEMPLAN_EUSAGE);
  memplan_request_init(&req);
  ck_assert_int_eq(memplan_solve(in, NULL, &res, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_solve(NULL, &req, &res, &err), MEMPLAN_EUSAGE); /* after a failed load */
  ck_assert_int_eq(memplan_solve(in, &req, NULL, NULL), MEMPLAN_EUSAGE);
  /* the plot's request is checked the same way */
  memplan_plot_opts po;
  memplan_plot_opts_init(&po);
  const char *outs[] = {tp("api_never.svg")}, *inputs[] = {SEED};
  po.outs = outs;
  po.n_outs = 1;
  po.request.align = -7;
  ck_assert_int_eq(memplan_plot("placement", inputs, 1, &po, &err), MEMPLAN_EUSAGE);
  po.request.align = 0;
  po.n_plans = -1; /* used to read plans[0] */
  ck_assert_int_eq(memplan_plot("placement", inputs, 1, &po, &err), MEMPLAN_EUSAGE);
  po.n_plans = 1;
  ck_assert_int_eq(memplan_plot("placement", inputs, 1, &po, NULL), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_plot("placement", inputs, 1, NULL, NULL), MEMPLAN_EUSAGE);
  ck_assert_int_eq(access(outs[0], F_OK), -1);
  memplan_instance_destroy(in);
}
END_TEST

START_TEST(hostile_lifetimes_refused) {
  memplan_instance *in = (memplan_instance *)1;
  memplan_error err;
  const int64_t size[] = {(int64_t)1 << 56}, lo[] = {0}, hi[] = {1};
  const int64_t far[] = {INT64_MAX - 5}, wide[] = {(int64_t)1 << 40}, late[] = {INT64_MAX};
  /* a pinned offset beyond the limits used to overflow when solved */
  ck_assert_int_eq(memplan_instance_from_lifetimes(&in, 1, size, lo, hi, NULL, far, &err),
                   MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "offset"), "%s", err.msg);
  ck_assert(in == NULL);
  ck_assert_int_eq(memplan_instance_from_lifetimes(&in, 1, size, lo, hi, wide, NULL, &err),
                   MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "alignment"), "%s", err.msg);
  ck_assert_int_eq(memplan_instance_from_lifetimes(&in, 1, size, lo, late, NULL, NULL, NULL),
                   MEMPLAN_EINPUT);
  int64_t many[20], l20[20], h20[20];
  for (int i = 0; i < 20; i++) many[i] = (int64_t)1 << 56, l20[i] = 0, h20[i] = 1;
  ck_assert_int_eq(memplan_instance_from_lifetimes(&in, 20, many, l20, h20, NULL, NULL, &err),
                   MEMPLAN_EINPUT);
  ck_assert_msg(strstr(err.msg, "2^60"), "%s", err.msg);
}
END_TEST

START_TEST(hostile_gen_and_numbers) {
  memplan_instance *g;
  memplan_error err;
  memplan_gen_opts o;
  memplan_gen_opts_init(&o);
  o.family = "sp";
  o.par_prob = NAN; /* used to be accepted */
  ck_assert_int_eq(memplan_gen(&g, &o, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "probabilities"), "%s", err.msg);
  memplan_gen_opts_init(&o);
  o.family = "randwire";
  o.p = NAN; /* used to hang */
  ck_assert_int_eq(memplan_gen(&g, &o, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "-p"), "%s", err.msg);
  ck_assert_int_eq(memplan_gen(&g, NULL, NULL), MEMPLAN_EUSAGE);
  /* counts near INT_MAX used to wrap (signed overflow: UBSan stops here) */
  memplan_gen_opts_init(&o);
  o.family = "layered";
  o.n = 10;
  o.layers = INT_MAX;
  ck_assert_int_eq(memplan_gen(&g, &o, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "--layers 2147483647 outside 1..8"), "%s", err.msg);
  o.layers = -1;
  ck_assert_int_eq(memplan_gen(&g, &o, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "--layers -1 outside"), "%s", err.msg);
  memplan_gen_opts_init(&o);
  o.family = "nas";
  o.blocks = INT_MAX;
  ck_assert_int_eq(memplan_gen(&g, &o, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "x 2147483649 = "), "%s", err.msg);
  memplan_format_number(1.5, NULL, 0); /* nothing to write into: nothing written */
  memplan_gen_flags("randwire", NULL, NULL, 64); /* used to write through NULL */
  char flags[4] = "xyz";
  memplan_gen_flags("randwire", NULL, flags, 0);
  ck_assert_str_eq(flags, "xyz");
}
END_TEST

START_TEST(hostile_outputs_and_plans) {
  memplan_instance *in = load(SEED);
  memplan_request req;
  memplan_request_init(&req);
  memplan_result *res;
  memplan_error err;
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_OK);
  /* a full disk shows only when the stream is flushed */
  FILE *full = fopen("/dev/full", "w");
  ck_assert(full);
  ck_assert_int_eq(memplan_result_print(res, full, "json"), MEMPLAN_EIO);
  fclose(full);
  FILE *ro = fopen(SEED, "r");
  ck_assert_int_eq(memplan_result_print(res, ro, "text"), MEMPLAN_EIO);
  fclose(ro);
  ck_assert_int_eq(memplan_result_print(res, NULL, "text"), MEMPLAN_EUSAGE);
  memplan_result_destroy(res);
  /* the offsets of a result without a plan are NULL: refused, not read */
  req.order = "bfs";
  req.place = "exact";
  req.capacity = 12582912;
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_ESOLVER);
  const int *order;
  const int64_t *off;
  const int good[] = {0, 1, 2, 3};
  ck_assert_int_eq(memplan_result_order(res, &order), 0);
  ck_assert_int_eq(memplan_result_offsets(res, &off), 0);
  ck_assert_int_eq(memplan_verify_plan(in, good, off, 0, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "offsets"), "%s", err.msg);
  memplan_result_destroy(res);
  const int64_t size[] = {8}, lo[] = {0}, hi[] = {1};
  memplan_instance *fixed;
  ck_assert_int_eq(memplan_instance_from_lifetimes(&fixed, 1, size, lo, hi, NULL, NULL, &err),
                   MEMPLAN_OK);
  ck_assert_int_eq(memplan_verify_plan(fixed, NULL, NULL, 0, NULL), MEMPLAN_EUSAGE);
  memplan_instance_destroy(fixed);
  /* NULL paths */
  memplan_instance *none = (memplan_instance *)1;
  ck_assert_int_eq(memplan_instance_load(&none, NULL, NULL, &err), MEMPLAN_EUSAGE);
  ck_assert(none == NULL);
  ck_assert_int_eq(memplan_instance_load(&none, NULL, NULL, NULL), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_verify_file(in, NULL, 0, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_bench_graph_bound(NULL, 0, stdout, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_bench_graph_bound(SEED, 0, NULL, NULL), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_bench_graph_bound(SEED, NAN, stdout, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "NaN"), "%s", err.msg);
  full = fopen("/dev/full", "w"); /* an output that cannot be written: EIO, not EINPUT */
  ck_assert(full);
  ck_assert_int_eq(memplan_bench_graph_bound(SEED, 0, full, &err), MEMPLAN_EIO);
  fclose(full);
  ck_assert_int_eq(memplan_results_export(NULL, tp("api_never.csv"), &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(access(tp("api_never.csv"), F_OK), -1);
  memplan_instance_destroy(in);
}
END_TEST

START_TEST(hostile_results_and_bench) {
  mkdir("tmp", 0755);
  memplan_error err;
  const char *const holes[] = {NULL}, *files[] = {"data/bench_results.csv"};
  ck_assert_int_eq(memplan_results_merge(tp("api_never.sqlite"), NULL, -1, NULL, &err),
                   MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_results_merge(tp("api_never.sqlite"), holes, 1, NULL, NULL),
                   MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_results_merge(NULL, files, 1, NULL, &err), MEMPLAN_EUSAGE);
  ck_assert_int_eq(access(tp("api_never.sqlite"), F_OK), -1);
  memplan_table_opts to;
  memplan_table_opts_init(&to);
  ck_assert_int_eq(memplan_table_write(holes, 1, &to, tp("api_never.md"), &err), MEMPLAN_EUSAGE);
  to.n_solvers = 2; /* solvers left NULL */
  ck_assert_int_eq(memplan_table_write(files, 1, &to, tp("api_never.md"), &err), MEMPLAN_EUSAGE);
  to.n_solvers = 0;
  to.within = NAN;
  ck_assert_int_eq(memplan_table_write(files, 1, &to, tp("api_never.md"), NULL), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_table_write(files, 1, NULL, tp("api_never.md"), NULL), MEMPLAN_EUSAGE);
  ck_assert_int_eq(access(tp("api_never.md"), F_OK), -1);
  memplan_experiment *e;
  memplan_matrix *m;
  ck_assert_int_eq(memplan_experiment_load(&e, NULL, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_experiment_set(e, "graphs", SEED, false, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_matrix_build(&m, e, &err), MEMPLAN_OK);
  memplan_bench_opts bo;
  memplan_bench_opts_init(&bo);
  memplan_bench_stats st;
  bo.results = tp("api_never.sqlite");
  bo.jobs = 1 << 30; /* used to allocate a slot per job and crash */
  ck_assert_int_eq(memplan_bench_run(e, m, &bo, &st, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "jobs"), "%s", err.msg);
  bo.jobs = 1;
  bo.results = ""; /* not a file */
  ck_assert_int_eq(memplan_bench_run(e, m, &bo, &st, NULL), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_bench_run(e, m, NULL, &st, NULL), MEMPLAN_EUSAGE);
  ck_assert(!st.started);
  ck_assert_int_eq(access(tp("api_never.sqlite"), F_OK), -1);
  memplan_matrix_destroy(m);
  memplan_experiment_destroy(e);
}
END_TEST

START_TEST(hostile_verify_arguments) {
  /* the judges took any align (negative: silently the default; beyond
   * 2^30, which every reader and option refuses: a verdict), a NaN
   * bandwidth (read as "no host link"), and an order for a fixed-lifetime
   * problem (ignored) */
  memplan_instance *in = load(SEED);
  memplan_request req;
  memplan_request_init(&req);
  req.remat = "keepall";
  req.budget_frac = "1";
  memplan_result *res;
  memplan_error err;
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_OK);
  const int *order;
  const int64_t *off;
  int n = memplan_result_order(res, &order);
  ck_assert_int_eq(n, 4);
  memplan_result_offsets(res, &off);
  memplan_event ev[8];
  int ne = memplan_result_event_count(res);
  ck_assert(ne <= 8);
  for (int i = 0; i < ne; i++) ck_assert_int_eq(memplan_result_event(res, i, &ev[i]), MEMPLAN_OK);
  ck_assert_int_eq(memplan_verify_events(in, ne, ev, -1, -1, off, 0, &err), MEMPLAN_OK);
  const int64_t bad_align[] = {-1, INT64_MIN, MEMPLAN_MAX_ALIGN + 1, INT64_MAX};
  for (int k = 0; k < 4; k++) {
    ck_assert_int_eq(memplan_verify_events(in, ne, ev, -1, -1, off, bad_align[k], &err), MEMPLAN_EUSAGE);
    ck_assert_msg(strstr(err.msg, "align"), "%s", err.msg);
  }
  ck_assert_int_eq(memplan_verify_events(in, ne, ev, NAN, -1, off, 0, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "bandwidth"), "%s", err.msg);
  ck_assert_int_eq(memplan_verify_events(in, ne, ev, INFINITY, -1, NULL, 0, NULL), MEMPLAN_EUSAGE);
  memplan_result_destroy(res);
  memplan_request_init(&req);
  ck_assert_int_eq(memplan_solve(in, &req, &res, &err), MEMPLAN_OK);
  memplan_result_order(res, &order);
  memplan_result_offsets(res, &off);
  ck_assert_int_eq(memplan_verify_plan(in, order, off, MEMPLAN_MAX_ALIGN, &err), MEMPLAN_EINPUT);
  mkdir("tmp", 0755);
  ck_assert_int_eq(memplan_result_write_plan(res, tp("api_align.json"), &err), MEMPLAN_OK);
  for (int k = 0; k < 4; k++) {
    ck_assert_int_eq(memplan_verify_plan(in, order, off, bad_align[k], &err), MEMPLAN_EUSAGE);
    ck_assert_msg(strstr(err.msg, "align"), "%s", err.msg);
    ck_assert_int_eq(memplan_verify_file(in, tp("api_align.json"), bad_align[k], &err), MEMPLAN_EUSAGE);
    ck_assert_msg(strstr(err.msg, "align"), "%s", err.msg);
  }
  unlink(tp("api_align.json"));
  /* the graph's plan handed to a fixed-lifetime problem of as many buffers */
  const int64_t size[] = {8, 8, 8}, lo[] = {0, 0, 0}, hi[] = {1, 1, 1};
  memplan_instance *fixed;
  ck_assert_int_eq(memplan_instance_from_lifetimes(&fixed, 3, size, lo, hi, NULL, NULL, &err), MEMPLAN_OK);
  ck_assert_int_eq(memplan_verify_plan(fixed, order, off, 0, &err), MEMPLAN_EUSAGE);
  ck_assert_msg(strstr(err.msg, "no order"), "%s", err.msg);
  ck_assert_int_eq(memplan_verify_plan(fixed, NULL, off, 0, &err), MEMPLAN_OK);
  memplan_instance_destroy(fixed);
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
}
END_TEST

/* ---- threads: calls on separate objects may run at once (memplan.h) ---- */

/* Place 20 overlapping buffers with coloring (igraph's colouring) again and
 * again, then generate randwire graphs (igraph's generator and RNG): the
 * arenas of seeds 1..3. */
static void *igraph_worker(void *arg) {
  int64_t *arena = arg;
  int64_t size[20], lo[20], hi[20];
  for (int i = 0; i < 20; i++) size[i] = 64 * (1 + i % 7), lo[i] = i % 3, hi[i] = 10 + i % 5;
  memplan_instance *in;
  memplan_result *res;
  memplan_request req;
  memplan_request_init(&req);
  req.place = "coloring";
  if (memplan_instance_from_lifetimes(&in, 20, size, lo, hi, NULL, NULL, NULL)) return NULL;
  for (int k = 0, n = getenv("MP_QUICK") ? 3000 : 12000; k < n; k++)
    if (memplan_solve(in, &req, &res, NULL) == MEMPLAN_OK) memplan_result_destroy(res);
  memplan_instance_destroy(in);
  req.order = "greedy";
  for (int k = 0; k < 3; k++) {
    memplan_gen_opts o;
    memplan_gen_opts_init(&o);
    o.family = "randwire";
    o.n = 24;
    o.seed = (uint64_t)k + 1;
    arena[k] = -1;
    if (memplan_gen(&in, &o, NULL)) continue;
    if (memplan_solve(in, &req, &res, NULL) == MEMPLAN_OK) {
      memplan_figures f;
      memplan_result_figures(res, &f);
      arena[k] = f.arena;
      memplan_result_destroy(res);
    }
    memplan_instance_destroy(in);
  }
  return NULL;
}

START_TEST(threads_on_separate_objects) {
  /* igraph is built without thread safety: two threads in it used to abort
   * the process ("Corrupt finally stack"), in 9 runs of 10 of this test */
  int64_t a[3], b[3], alone[3];
  pthread_t ta, tb;
  ck_assert_int_eq(pthread_create(&ta, NULL, igraph_worker, a), 0);
  ck_assert_int_eq(pthread_create(&tb, NULL, igraph_worker, b), 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  memplan_gen_opts o;
  memplan_gen_opts_init(&o);
  memplan_instance *in;
  memplan_request req;
  memplan_request_init(&req);
  req.order = "greedy";
  req.place = "coloring";
  o.family = "randwire";
  o.n = 24;
  for (int k = 0; k < 3; k++) { /* the same graph for the same seed */
    memplan_result *res;
    memplan_figures f;
    o.seed = (uint64_t)k + 1;
    ck_assert_int_eq(memplan_gen(&in, &o, NULL), MEMPLAN_OK);
    ck_assert_int_eq(memplan_solve(in, &req, &res, NULL), MEMPLAN_OK);
    memplan_result_figures(res, &f);
    alone[k] = f.arena;
    ck_assert(alone[k] > 0 && a[k] == alone[k] && b[k] == alone[k]);
    memplan_result_destroy(res);
    memplan_instance_destroy(in);
  }
}
END_TEST

Suite *suite_api(void) {
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("api");
  tcase_add_test(tc, solvers_and_options);
  tcase_add_test(tc, integer_options_refuse_fractions);
  tcase_add_test(tc, load_errors_name_the_file);
  tcase_add_test(tc, solve_read_verify_write);
  tcase_add_test(tc, usage_and_solver_errors);
  tcase_add_test(tc, lifetimes_from_arrays);
  tcase_add_test(tc, remat_solve_events_verify);
  tcase_add_test(tc, option_structs_need_their_init);
  tcase_add_test(tc, numbers_read_exactly);
  tcase_add_test(tc, gen_write_read_back);
  tcase_add_test(tc, experiment_matrix_shards);
  tcase_add_test(tc, results_tables_export);
  tcase_add_test(tc, plot_kinds_and_refusals);
  tcase_add_test(tc, hostile_requests_refused);
  tcase_add_test(tc, hostile_lifetimes_refused);
  tcase_add_test(tc, hostile_gen_and_numbers);
  tcase_add_test(tc, hostile_outputs_and_plans);
  tcase_add_test(tc, hostile_results_and_bench);
  tcase_add_test(tc, hostile_verify_arguments);
  tcase_add_test(tc, threads_on_separate_objects);
  suite_add_tcase(s, tc);
  return s;
}
