/* test_api.c - the public API (memplan.h) as a client sees it: only the
 * public header's names, no internal type.  tests/install.sh builds
 * tests/install/embed.c against the installed library the same way. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memplan.h"

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
    }
    memplan_option_info o;
    ck_assert_int_eq(memplan_solver_option(i, s.n_options, &o), MEMPLAN_EUSAGE);
  }
  memplan_solver_info s;
  ck_assert_int_eq(memplan_solver_get(n, &s), MEMPLAN_EUSAGE);
  ck_assert_int_eq(memplan_solver_index("no-such-solver"), -1);
}
END_TEST

START_TEST(load_errors_name_the_file) {
  memplan_instance *in = (memplan_instance *)1;
  memplan_error err;
  ck_assert_int_eq(memplan_instance_load(&in, "no/such/file.json", NULL, &err), MEMPLAN_EINPUT);
  ck_assert(in == NULL);
  ck_assert_msg(strstr(err.msg, "no/such/file.json"), "%s", err.msg);
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
  ck_assert_int_eq(memplan_result_write_plan(res, "tmp/api.plan.json", &err), MEMPLAN_OK);
  ck_assert_msg(memplan_verify_file(in, "tmp/api.plan.json", 0, &err) == MEMPLAN_OK, "%s", err.msg);
  unlink("tmp/api.plan.json");
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
  ck_assert_int_eq(memplan_result_write_plan(res, "tmp/never.plan.json", &err), MEMPLAN_EUSAGE);
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
  ck_assert_int_eq(memplan_result_write_plan(res, "tmp/api.remat.json", &err), MEMPLAN_OK);
  ck_assert_msg(memplan_verify_file(in, "tmp/api.remat.json", 0, &err) == MEMPLAN_OK, "%s", err.msg);
  unlink("tmp/api.remat.json");
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

Suite *suite_api(void) {
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("api");
  tcase_add_test(tc, solvers_and_options);
  tcase_add_test(tc, load_errors_name_the_file);
  tcase_add_test(tc, solve_read_verify_write);
  tcase_add_test(tc, usage_and_solver_errors);
  tcase_add_test(tc, lifetimes_from_arrays);
  tcase_add_test(tc, remat_solve_events_verify);
  suite_add_tcase(s, tc);
  return s;
}
