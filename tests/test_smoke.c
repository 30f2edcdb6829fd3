/* test_smoke.c - the seed documents' example, end to end through the
 * harness (the full hand-computed cases live in test_model.c). */
#include "testlib.h"

START_TEST(seed_example) {
  /* A 4 MB made at step 0, read at step 2; B 8 MB made at step 1, read at
   * step 3; C 4 MB made at step 2 (a sink: a graph output, lives to 3).
   * Closed intervals: at step 2 A, B and C are all live: 16 MB. */
  mp_graph *g = tl_graph(
      "{\"nodes\":[{\"id\":0,\"size\":4194304,\"inputs\":[]},"
      "{\"id\":1,\"size\":8388608,\"inputs\":[]},"
      "{\"id\":2,\"size\":4194304,\"inputs\":[0]},"
      "{\"id\":3,\"size\":0,\"inputs\":[1]}]}");
  mp_result r;
  ck_assert_int_eq(tl_run(g, "given", "bysize", 1, 0, NULL, &r), 0);
  ck_assert_int_eq(r.fig.live_peak, 16777216);
  ck_assert_int_eq(r.fig.arena, 16777216);
  mp_result_destroy(&r);
  /* running C before B frees A first: peak 12 MB */
  ck_assert_int_eq(tl_run(g, "greedy", "bysize", 1, 0, NULL, &r), 0);
  ck_assert_int_eq(r.fig.live_peak, 12582912);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

Suite *suite_smoke(void) {
  Suite *s = suite_create("smoke");
  TCase *tc = tcase_create("smoke");
  tcase_add_test(tc, seed_example);
  suite_add_tcase(s, tc);
  return s;
}
