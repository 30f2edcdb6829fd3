/* test_listsched.c - the greedy and lpmf rules kept in a min-tree give the
 * orders of their definition (scan every ready node, smallest key, ties in
 * file order) on random graphs with every feature; the min-tree against an
 * array. */
#include <stdlib.h>
#include <string.h>

#include "lib/listsched.h"
#include "lib/minseg.h"
#include "testlib.h"

/* The rule as defined: a scan of the ready nodes with mp_sim_cost. */
static void scan_order(const mp_graph *g, mp_ls_rule rule, int *order) {
  int n = g->n, *pos = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) pos[g->given[i]] = i;
  mp_sim s;
  mp_sim_init(&s, g);
  for (int step = 0; step < n; step++) {
    int best = -1;
    int64_t b1 = 0, b2 = 0, cur_peak = s.peak > s.live ? s.peak : s.live;
    for (int v = 0; v < n; v++) {
      if (!mp_sim_ready(&s, v)) continue;
      int64_t after, during = mp_sim_cost(&s, v, &after), k1, k2;
      if (rule == MP_LS_GREEDY) {
        k1 = after;
        k2 = during;
      } else {
        k1 = during > cur_peak ? during : cur_peak;
        k2 = after - s.live;
      }
      if (best < 0 || k1 < b1 || (k1 == b1 && (k2 < b2 || (k2 == b2 && pos[v] < pos[best])))) {
        best = v;
        b1 = k1;
        b2 = k2;
      }
    }
    order[step] = best;
    mp_sim_run(&s, best);
  }
  mp_sim_destroy(&s);
  free(pos);
}

START_TEST(rules_equal_scan) {
  mp_rng r;
  mp_rng_seed(&r, 2024);
  int trials = tl_trials(300);
  for (int t = 0; t < trials; t++) {
    /* every tenth graph up to 400 nodes: several blocks of 64 leaves */
    mp_graph *g = tl_random_graph(&r, 1 + (int)mp_rng_below(&r, t % 10 == 9 ? 400 : 60), TL_ALL);
    if (t % 2) /* sizes of a few bytes: ties everywhere, and fits at the boundary */
      for (int b = 0; b < g->n_buf; b++) g->bufs[b].size = 1 + (int64_t)mp_rng_below(&r, 3);
    int *a = mp_xmalloc(sizeof(int) * (size_t)g->n), *b = mp_xmalloc(sizeof(int) * (size_t)g->n);
    for (int rule = MP_LS_GREEDY; rule <= MP_LS_LPMF; rule++) {
      mp_ls_order(g, (mp_ls_rule)rule, a);
      scan_order(g, (mp_ls_rule)rule, b);
      for (int i = 0; i < g->n; i++)
        ck_assert_msg(a[i] == b[i], "trial %d, %s: step %d runs %d, the scan runs %d", t,
                      mp_ls_rule_name((mp_ls_rule)rule), i, a[i], b[i]);
    }
    free(a);
    free(b);
    mp_graph_destroy(g);
  }
}
END_TEST

START_TEST(minseg_equals_array) {
  mp_rng r;
  mp_rng_seed(&r, 17);
  for (int t = 0; t < tl_trials(50); t++) {
    /* up to 100 positions, and every fifth trial up to 1000 (blocks of 64
     * and the tree above them) */
    int n = 1 + (int)mp_rng_below(&r, t % 5 == 4 ? 1000 : 100);
    mp_minseg s;
    mp_minseg_init(&s, n);
    mp_mskey *arr = mp_xmalloc(sizeof(mp_mskey) * (size_t)n);
    for (int i = 0; i < n; i++) arr[i].v = -1;
    for (int step = 0; step < 500; step++) {
      int i = (int)mp_rng_below(&r, (uint64_t)n);
      if (mp_rng_below(&r, 3) == 0) {
        mp_minseg_clear(&s, i);
        arr[i].v = -1;
      } else {
        mp_mskey k = {{(int64_t)mp_rng_below(&r, 5), (int64_t)mp_rng_below(&r, 5), i}, i};
        mp_minseg_set(&s, i, k);
        arr[i] = k;
      }
      int l = (int)mp_rng_below(&r, (uint64_t)n + 1), h = (int)mp_rng_below(&r, (uint64_t)n + 1);
      if (l > h) {
        int x = l;
        l = h;
        h = x;
      }
      int want = -1, first = -1;
      for (int k = 0; k < n; k++) {
        if (arr[k].v < 0) continue;
        if (first < 0) first = k;
        if (k < l || k >= h) continue;
        /* k[2] = k: among equal (k[0], k[1]) the first position wins */
        if (want < 0 || arr[k].k[0] < arr[want].k[0] ||
            (arr[k].k[0] == arr[want].k[0] && arr[k].k[1] < arr[want].k[1]))
          want = k;
      }
      mp_mskey got = mp_minseg_min(&s, l, h);
      ck_assert_int_eq(got.v, want);
      ck_assert_int_eq(mp_minseg_first(&s), first);
    }
    free(arr);
    mp_minseg_destroy(&s);
  }
}
END_TEST

/* The start orders of the search solvers under a deadline: one that has
 * passed cuts the greedy, lpmf and randomised greedy orders (looked at every
 * 256 steps), none changes an order it lets finish, and bfs, dfs and the
 * file order always finish. */
START_TEST(orders_stop_at_deadline) {
  mp_rng r;
  mp_rng_seed(&r, 88);
  mp_graph *g = tl_random_graph(&r, 600, TL_ALL);
  int *a = mp_xmalloc(sizeof(int) * (size_t)g->n), *b = mp_xmalloc(sizeof(int) * (size_t)g->n);
  double past = mp_now() - 1, future = mp_now() + 3600;
  for (int rule = 0; rule < MP_LS_N_RULES; rule++) {
    bool cut = rule == MP_LS_GREEDY || rule == MP_LS_LPMF;
    ck_assert_int_eq(mp_ls_order_until(g, (mp_ls_rule)rule, a, past), !cut);
    mp_ls_order(g, (mp_ls_rule)rule, a);
    ck_assert(mp_ls_order_until(g, (mp_ls_rule)rule, b, future));
    ck_assert(memcmp(a, b, sizeof(int) * (size_t)g->n) == 0);
  }
  mp_rng r1, r2;
  mp_rng_seed(&r1, 5);
  mp_rng_seed(&r2, 5);
  ck_assert(!mp_ls_order_random_greedy(g, &r1, 0.3, a, past));
  mp_rng_seed(&r1, 5);
  ck_assert(mp_ls_order_random_greedy(g, &r1, 0.3, a, 0));
  ck_assert(mp_ls_order_random_greedy(g, &r2, 0.3, b, future));
  ck_assert(memcmp(a, b, sizeof(int) * (size_t)g->n) == 0);
  free(a);
  free(b);
  mp_graph_destroy(g);
}
END_TEST

Suite *suite_listsched(void) {
  Suite *s = suite_create("listsched");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, rules_equal_scan);
  tcase_add_test(tc, minseg_equals_array);
  tcase_add_test(tc, orders_stop_at_deadline);
  suite_add_tcase(s, tc);
  return s;
}
