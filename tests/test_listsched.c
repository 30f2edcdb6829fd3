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
    if (t % 2) /* sizes of a few bytes: ties everywhere, and fits at the boundary; every
                  fourth graph with empty buffers too */
      for (int b = 0; b < g->n_buf; b++)
        g->bufs[b].size = (t % 4 == 1 ? 0 : 1) + (int64_t)mp_rng_below(&r, 3);
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

/* mp_ls_best as defined: the first of the lowest live peak among the start
 * order and the rules' orders, in that order; on 1 thread and on 2 (lpmf
 * beside the others from 10,000 nodes on) the same order, peak and name. */
static void check_best(mp_graph *g, const int *start, int threads) {
  size_t n = (size_t)g->n;
  int *want = mp_xmalloc(sizeof(int) * (n ? n : 1)), *cand = mp_xmalloc(sizeof(int) * (n ? n : 1));
  int *got = mp_xmalloc(sizeof(int) * (n ? n : 1));
  int64_t best = -1;
  const char *want_name = "start";
  if (start) memcpy(want, start, sizeof(int) * n), best = mp_order_peak(g, start);
  for (int r = 0; r < MP_LS_N_RULES; r++) {
    mp_ls_order(g, (mp_ls_rule)r, cand);
    int64_t p = mp_order_peak(g, cand);
    if (best < 0 || p < best) {
      best = p;
      want_name = mp_ls_rule_name((mp_ls_rule)r);
      memcpy(want, cand, sizeof(int) * n);
    }
  }
  const char *name = NULL;
  double cpu = -1;
  ck_assert_int_eq(mp_ls_best_threads(g, start, got, &name, threads, &cpu), best);
  ck_assert_str_eq(name, want_name);
  ck_assert(memcmp(got, want, sizeof(int) * n) == 0);
  /* a thread beside, and its CPU time reported, only when asked and worth it */
  ck_assert(threads >= 2 && g->n >= 10000 ? cpu > 0 : cpu == 0);
  free(want);
  free(cand);
  free(got);
}

START_TEST(best_is_first_lowest) {
  mp_rng r;
  mp_rng_seed(&r, 77);
  for (int t = 0; t < tl_trials(60); t++) {
    mp_graph *g = tl_random_graph(&r, 1 + (int)mp_rng_below(&r, 60), TL_ALL);
    if (t % 2) /* few sizes: ties between the candidates */
      for (int b = 0; b < g->n_buf; b++) g->bufs[b].size = 1 + (int64_t)mp_rng_below(&r, 2);
    int *dfs = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
    mp_ls_order(g, MP_LS_DFS, dfs);
    check_best(g, t % 3 ? NULL : dfs, 1 + t % 2);
    free(dfs);
    mp_graph_destroy(g);
  }
  mp_graph *g = tl_random_graph(&r, 12000, TL_ALL);
  ck_assert_int_ge(g->n, 10000);
  check_best(g, NULL, 1);
  check_best(g, NULL, 2);
  check_best(g, g->given, 2);
  mp_graph_destroy(g);
}
END_TEST

/* Priority list scheduling as defined (listsched.h): at every step the
 * ready node of highest prio, ties earlier in the file; prios from a few
 * values so that ties are common. */
START_TEST(prio_order_equals_scan) {
  mp_rng r;
  mp_rng_seed(&r, 31);
  for (int t = 0; t < tl_trials(100); t++) {
    mp_graph *g = tl_random_graph(&r, 1 + (int)mp_rng_below(&r, 80), TL_ALL);
    int n = g->n;
    double *prio = mp_xmalloc(sizeof(double) * (size_t)n);
    int *got = mp_xmalloc(sizeof(int) * (size_t)n), *missing = mp_xmalloc(sizeof(int) * (size_t)n);
    for (int v = 0; v < n; v++) {
      prio[v] = (double)mp_rng_below(&r, t % 2 ? 3 : 1000);
      missing[v] = g->n_pred[v];
    }
    mp_ls_order_prio(g, prio, got);
    for (int step = 0; step < n; step++) {
      int want = -1; /* the scan in file order: the first of the highest prio */
      for (int i = 0; i < n; i++) {
        int v = g->given[i];
        if (missing[v] == 0 && (want < 0 || prio[v] > prio[want])) want = v;
      }
      ck_assert_msg(got[step] == want, "trial %d: step %d runs %d, the scan runs %d", t, step,
                    got[step], want);
      missing[want] = -1;
      for (int i = 0; i < g->n_succ[want]; i++) missing[g->succ[want][i]]--;
    }
    free(prio);
    free(got);
    free(missing);
    mp_graph_destroy(g);
  }
}
END_TEST

/* Two independent nodes with workspaces alone (no output tensor), so the
 * first node's workspace is buffer 0: greedy and lpmf both run the node that
 * needs less while it runs (10 bytes) first. */
START_TEST(workspace_as_buffer_zero) {
  mp_graph *g = tl_graph("{\"nodes\":[{\"id\":0,\"size\":0,\"workspace\":100,\"inputs\":[]},"
                         "{\"id\":1,\"size\":0,\"workspace\":10,\"inputs\":[]}]}");
  ck_assert_int_eq(g->ws_buf[0], 0);
  for (int rule = MP_LS_GREEDY; rule <= MP_LS_LPMF; rule++) {
    int order[2];
    mp_ls_order(g, (mp_ls_rule)rule, order);
    ck_assert_msg(order[0] == 1 && order[1] == 0, "%s runs %d first",
                  mp_ls_rule_name((mp_ls_rule)rule), order[0]);
  }
  mp_graph_destroy(g);
}
END_TEST

/* The randomised greedy: with eps 0 it is greedy's order when no two ready
 * nodes tie on (after, during) (nodes 0 and 1 tie on after alone: node 0,
 * without the workspace, goes first); with eps 1 every step takes a random
 * ready node, so some seed leaves greedy's order (8! orders of independent
 * nodes). */
START_TEST(random_greedy_eps) {
  mp_graph *g = tl_graph("{\"nodes\":[{\"id\":0,\"size\":10,\"inputs\":[]},"
                         "{\"id\":1,\"size\":10,\"workspace\":50,\"inputs\":[]},{\"id\":2,\"size\":70,\"inputs\":[]},"
                         "{\"id\":3,\"size\":20,\"inputs\":[]},{\"id\":4,\"size\":60,\"inputs\":[]},"
                         "{\"id\":5,\"size\":30,\"inputs\":[]},{\"id\":6,\"size\":50,\"inputs\":[]},"
                         "{\"id\":7,\"size\":40,\"inputs\":[]}]}");
  int greedy[8], o[8], differ = 0;
  mp_ls_order(g, MP_LS_GREEDY, greedy);
  ck_assert_int_eq(greedy[0], 0);
  for (uint64_t seed = 1; seed <= 10; seed++) {
    mp_rng r;
    mp_rng_seed(&r, seed);
    ck_assert(mp_ls_order_random_greedy(g, &r, 0.0, o, 0));
    ck_assert(memcmp(o, greedy, sizeof o) == 0);
    mp_rng_seed(&r, seed);
    ck_assert(mp_ls_order_random_greedy(g, &r, 1.0, o, 0));
    differ += memcmp(o, greedy, sizeof o) != 0;
  }
  ck_assert_int_ge(differ, 5);
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
  tcase_add_test(tc, prio_order_equals_scan);
  tcase_add_test(tc, workspace_as_buffer_zero);
  tcase_add_test(tc, random_greedy_eps);
  tcase_add_test(tc, best_is_first_lowest);
  suite_add_tcase(s, tc);
  return s;
}
