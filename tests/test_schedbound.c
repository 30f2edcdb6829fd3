/* test_schedbound.c - the scheduling lower bounds of schedbound.h: the
 * min-cut bound never exceeds the optimum found by brute force over every
 * topological order, never falls below the cut bound, and sees the
 * side-chain buffers the cut bound misses. */
#include <stdio.h>
#include <stdlib.h>

#include "schedbound.h"
#include "testlib.h"

/* A saved activation A (node 1) feeds a forward step (2 -> 3, the big
 * tensor) and a chain 5 that depends on A alone and is needed only after
 * the loss (6).  At the big step either A or its chain's result B is live,
 * whatever the order: the optimum is 10 + 1 + 100 = 111.  The cut bound sees
 * neither A (its readers 2 and 5 are not descendants of 3) nor B (5 is not
 * an ancestor of 3): 101. */
static const char side_chain[] =
    "{\"nodes\": ["
    "{\"id\": 0, \"op\": \"input\", \"size\": 1, \"inputs\": []},"
    "{\"id\": 1, \"op\": \"a\", \"size\": 10, \"inputs\": [0]},"
    "{\"id\": 2, \"op\": \"p\", \"size\": 1, \"inputs\": [1]},"
    "{\"id\": 3, \"op\": \"big\", \"size\": 100, \"inputs\": [2]},"
    "{\"id\": 4, \"op\": \"loss\", \"size\": 1, \"inputs\": [3]},"
    "{\"id\": 5, \"op\": \"chain\", \"size\": 10, \"inputs\": [1]},"
    "{\"id\": 6, \"op\": \"grad\", \"size\": 1, \"inputs\": [4, 5]}]}";

START_TEST(side_chain_counted) {
  mp_graph *g = tl_graph(side_chain);
  int v = -2;
  ck_assert_int_eq(mp_cut_lower_bound(g, NULL), 101);
  ck_assert_int_eq(mp_sched_lower_bound(g, &v), 111);
  ck_assert_int_eq(v, 3);
  ck_assert_int_eq(tl_brute_force_peak(g, 100000, NULL), 111);
  mp_graph_destroy(g);
}
END_TEST

START_TEST(empty_graph) {
  mp_graph *g = tl_graph("{\"nodes\": []}");
  int v = 7;
  ck_assert_int_eq(mp_sched_lower_bound(g, &v), 0);
  ck_assert_int_eq(v, -1);
  mp_graph_destroy(g);
}
END_TEST

START_TEST(below_brute_force) {
  mp_rng rng;
  mp_rng_seed(&rng, 5150);
  int trials = tl_trials(300), checked = 0, stronger = 0, tight = 0, tight_cut = 0;
  for (int i = 0; i < trials; i++) {
    int n = 2 + (int)mp_rng_below(&rng, 11);
    mp_graph *g = tl_random_graph(&rng, n, TL_ALL);
    int64_t opt = tl_brute_force_peak(g, 300000, NULL);
    int64_t cut = mp_cut_lower_bound(g, NULL);
    int v = -2;
    int64_t mc = mp_sched_lower_bound(g, &v);
    ck_assert_msg(mc >= cut, "graph %d: min-cut bound %lld below cut bound %lld", i, (long long)mc,
                  (long long)cut);
    ck_assert_msg(v >= -1 && v < g->n, "graph %d: v_out %d", i, v);
    if (opt >= 0) {
      checked++;
      ck_assert_msg(mc <= opt, "graph %d (n=%d): min-cut bound %lld above the optimum %lld", i, n,
                    (long long)mc, (long long)opt);
      tight += mc == opt;
      tight_cut += cut == opt;
    }
    stronger += mc > cut;
    mp_graph_destroy(g);
  }
  if (tl_verbose())
    fprintf(stderr,
          "schedbound: %d graphs, %d brute-forced; min-cut > cut on %d; tight (= optimum): "
          "min-cut %d, cut %d\n",
          trials, checked, stronger, tight, tight_cut);
  ck_assert_int_ge(checked, trials * 9 / 10);
}
END_TEST

Suite *suite_schedbound(void) {
  Suite *s = suite_create("schedbound");
  TCase *tc = tcase_create("schedbound");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, side_chain_counted);
  tcase_add_test(tc, empty_graph);
  tcase_add_test(tc, below_brute_force);
  suite_add_tcase(s, tc);
  return s;
}
