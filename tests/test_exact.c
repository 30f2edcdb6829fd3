/* test_exact.c - the exact placer on MiniMalloc's 11 challenging instances
 * (graphs/minimalloc/challenging) within node budgets, so the outcome does
 * not depend on the clock: each fits in 1048576 (the harness verifies the
 * plan), with status optimal exactly where max-live is 1048576; minimising
 * C proves its max-live bound 1039360; the single total/width/area lane
 * with re-ranking at time-line cuts solves I in a few thousand nodes; the
 * alignment bound makes a packing optimal at once. */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define CHALLENGING "../graphs/minimalloc/challenging/"

static void read_instance(char letter, mp_problem *p) {
  char path[256];
  snprintf(path, sizeof path, CHALLENGING "%c.1048576.csv", letter);
  mp_error err;
  ck_assert_msg(mp_csv_read(path, p, &err) == 0, "%s", err.msg);
}

START_TEST(challenging_fit) {
  const char *sets[] = {"exact.nodes=400000", NULL};
  for (char x = 'A'; x <= 'K'; x++) {
    mp_problem p;
    read_instance(x, &p);
    mp_result a;
    ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 300.0, 1048576, sets, &a), 0);
    ck_assert_msg(a.status == MP_OPTIMAL || a.status == MP_FEASIBLE, "%c: status %s (%s)", x,
                  mp_status_name(a.status), a.msg);
    ck_assert_int_le(a.fig.arena, 1048576);
    /* optimal exactly where the max-live bound is the capacity */
    ck_assert_msg((a.status == MP_OPTIMAL) == (a.fig.live_peak == 1048576),
                  "%c: status %s, max-live %lld", x, mp_status_name(a.status),
                  (long long)a.fig.live_peak);
    mp_result_destroy(&a);
    mp_problem_destroy(&p);
  }
}
END_TEST

START_TEST(minimise_c) {
  mp_problem p;
  read_instance('C', &p);
  const char *sets[] = {"exact.nodes=400000", NULL};
  mp_result a;
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 300.0, 0, sets, &a), 0);
  ck_assert_int_eq(a.status, MP_OPTIMAL);
  ck_assert_int_eq(a.fig.arena, 1039360);
  ck_assert_int_eq(a.fig.live_peak, 1039360);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
}
END_TEST

/* One lane, no restarts: total/width/area, lowest offset first.  The
 * re-ranking where the time line is cut is what makes I easy (without it
 * this lane does not solve I within millions of nodes). */
START_TEST(single_lane_solves_i) {
  mp_problem p;
  read_instance('I', &p);
  const char *sets[] = {"exact.nodes=20000", "exact.restarts=0", "exact.rank=4",
                        "exact.by_offset=1", NULL};
  mp_result a;
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 300.0, 1048576, sets, &a), 0);
  ck_assert_msg(a.status == MP_OPTIMAL, "status %s (%s)", mp_status_name(a.status), a.msg);
  ck_assert_int_eq(a.fig.arena, 1048576);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
}
END_TEST

/* Two 3-byte buffers live together, both 8-aligned: max-live is 6, but the
 * upper one starts at 8 at the lowest, so 11 is optimal and proven at once. */
START_TEST(alignment_bound) {
  mp_problem p;
  memset(&p, 0, sizeof p);
  p.n = 2;
  p.items = mp_xcalloc(2, sizeof(mp_item));
  p.t_begin = 0;
  p.t_end = 2;
  for (int i = 0; i < 2; i++) {
    p.items[i].lo = 0;
    p.items[i].hi = 2;
    p.items[i].size = 3;
    p.items[i].align = 8;
    p.items[i].fixed = -1;
  }
  const char *sets[] = {"exact.nodes=1", NULL};
  mp_result a;
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 10.0, 11, sets, &a), 0);
  ck_assert_int_eq(a.status, MP_OPTIMAL);
  ck_assert_int_eq(a.fig.arena, 11);
  mp_result_destroy(&a);
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 10.0, 10, sets, &a), 0);
  ck_assert_int_eq(a.status, MP_INFEASIBLE);
  mp_result_destroy(&a);
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 10.0, 0, sets, &a), 0);
  ck_assert_int_eq(a.status, MP_OPTIMAL);
  ck_assert_int_eq(a.fig.arena, 11);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
}
END_TEST

Suite *suite_exact(void) {
  Suite *s = suite_create("exact");
  TCase *tc = tcase_create("exact");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, challenging_fit);
  tcase_add_test(tc, minimise_c);
  tcase_add_test(tc, single_lane_solves_i);
  tcase_add_test(tc, alignment_bound);
  suite_add_tcase(s, tc);
  return s;
}
