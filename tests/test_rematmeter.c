/* test_rematmeter.c - Chen's plans measured with the forward run once
 * (lib/remat_chen.h's rc_meter) against the plain run (rc_run): the same
 * peak, duration and reruns, or the same failure, for random checkpoint
 * sets on generated training steps (series-parallel, layered and chains,
 * with workspaces and in-place nodes), and for every checkpoint set of a
 * chain whose peak is in its forward. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_chen.h"
#include "testlib.h"

/* Every articulation point with probability 1/2^k (k = 0: all). */
static int random_subset(mp_rng *r, const int *cuts, int n_cuts, int k, int *ckpt) {
  int n = 0;
  for (int i = 0; i < n_cuts; i++)
    if (mp_rng_below(r, (uint64_t)1 << k) == 0) ckpt[n++] = cuts[i];
  return n;
}

static void same_as_rc_run(const mp_graph *g, mp_rng *r, int *compared) {
  ri_info ri;
  ri_init(&ri, g, g->given);
  int *cuts = malloc(sizeof(int) * (size_t)(ri.turn + 1));
  int *ckpt = malloc(sizeof(int) * (size_t)(ri.turn + 1));
  int n_cuts = rc_cuts(&ri, cuts);
  rc_meter mt;
  rc_meter_init(&mt, &ri, 0);
  ck_assert_msg(mt.ok, "%s: the forward alone did not run", g->name);
  for (int trial = 0; trial < 12; trial++) { /* the meter's state is reused: trials in a row */
    int nck = trial == 0 ? 0 : random_subset(r, cuts, n_cuts, trial % 4, ckpt);
    rc_result a, b;
    char ma[256] = "", mb[256] = "";
    int ra = rc_run(&ri, ckpt, nck, NULL, 0, &a, ma, sizeof ma);
    int rb = rc_meter_run(&mt, ckpt, nck, &b, mb, sizeof mb);
    ck_assert_msg(ra == rb, "%s, %d checkpoints: rc_run %d, meter %d (%s / %s)", g->name, nck, ra, rb, ma, mb);
    if (ra) {
      ck_assert_str_eq(ma, mb);
      continue;
    }
    ck_assert_msg(a.peak == b.peak && a.duration == b.duration && a.reruns == b.reruns,
                  "%s, %d checkpoints: peak %lld / %lld, duration %.17g / %.17g, reruns %lld / %lld",
                  g->name, nck, (long long)a.peak, (long long)b.peak, a.duration, b.duration,
                  (long long)a.reruns, (long long)b.reruns);
    (*compared)++;
  }
  rc_meter_destroy(&mt);
  free(cuts);
  free(ckpt);
  ri_destroy(&ri);
}

START_TEST(meter_equals_plain_runs) {
  mp_rng r;
  mp_rng_seed(&r, 14);
  static const char *families[] = {"sp", "layered", "chain"};
  int compared = 0;
  for (int f = 0; f < 3; f++)
    for (uint64_t seed = 1; seed <= (uint64_t)tl_trials(6); seed++) {
      mp_graph *g = tl_gen(families[f], 20 + 17 * (int)seed, seed, true);
      same_as_rc_run(g, &r, &compared);
      mp_graph_destroy(g);
    }
  ck_assert_int_ge(compared, 3 * tl_trials(6)); /* at least the plan without checkpoints of each */
}
END_TEST

/* A chain training step whose forward peaks at a node with a large
 * workspace near its end: the peak is the forward's, and what the
 * checkpoints before that node keep is part of it. */
static mp_graph *chain_with_workspace(int k) {
  char js[8192];
  int len = snprintf(js, sizeof js, "{\"name\":\"wschain\",\"nodes\":[{\"id\":0,\"op\":\"input\","
                     "\"size\":10,\"inputs\":[],\"phase\":\"fwd\"}");
  for (int i = 1; i <= k; i++)
    len += snprintf(js + len, sizeof js - (size_t)len,
                    ",{\"id\":%d,\"size\":%d,\"cost\":%d,\"phase\":\"fwd\",\"inputs\":[%d]%s}", i,
                    10 + i, 1 + i % 3, i - 1, i == k - 1 ? ",\"workspace\":100000" : "");
  len += snprintf(js + len, sizeof js - (size_t)len,
                  ",{\"id\":%d,\"size\":1,\"cost\":1,\"phase\":\"bwd\",\"inputs\":[%d]}", k + 1, k);
  for (int i = k; i >= 1; i--)
    len += snprintf(js + len, sizeof js - (size_t)len,
                    ",{\"id\":%d,\"size\":2,\"cost\":2,\"phase\":\"bwd\",\"inputs\":[%d,%d]}",
                    2 * k + 2 - i, 2 * k + 1 - i, i);
  snprintf(js + len, sizeof js - (size_t)len, "]}");
  return tl_graph(js);
}

START_TEST(forward_peak_with_checkpoints) {
  mp_graph *g = chain_with_workspace(9);
  ri_info ri;
  ri_init(&ri, g, g->given);
  int cuts[16], ckpt[16], n_cuts = rc_cuts(&ri, cuts);
  ck_assert_int_ge(n_cuts, 6);
  rc_meter mt;
  rc_meter_init(&mt, &ri, 0);
  int64_t least = INT64_MAX, most = 0;
  for (int set = 0; set < 1 << n_cuts; set++) { /* every set of checkpoints */
    int nck = 0;
    for (int i = 0; i < n_cuts; i++)
      if (set >> i & 1) ckpt[nck++] = cuts[i];
    rc_result a, b;
    char ma[256], mb[256];
    ck_assert_int_eq(rc_run(&ri, ckpt, nck, NULL, 0, &a, ma, sizeof ma), 0);
    ck_assert_int_eq(rc_meter_run(&mt, ckpt, nck, &b, mb, sizeof mb), 0);
    ck_assert_msg(a.peak == b.peak && a.duration == b.duration && a.reruns == b.reruns,
                  "set %d: peak %lld / %lld, duration %g / %g, reruns %lld / %lld", set,
                  (long long)a.peak, (long long)b.peak, a.duration, b.duration, (long long)a.reruns,
                  (long long)b.reruns);
    least = a.peak < least ? a.peak : least;
    most = a.peak > most ? a.peak : most;
  }
  ck_assert_int_lt(least, most); /* the checkpoints move the forward's peak */
  rc_meter_destroy(&mt);
  ri_destroy(&ri);
  mp_graph_destroy(g);
}
END_TEST

/* A meter whose forward the deadline cut (it is looked at from position 0)
 * says so (ok false) and answers as rc_run does: the same failure. */
START_TEST(forward_cut_falls_back) {
  mp_graph *g = chain_with_workspace(9);
  ri_info ri;
  ri_init(&ri, g, g->given);
  int cuts[16], n_cuts = rc_cuts(&ri, cuts);
  rc_meter mt;
  double past = mp_now() - 1;
  rc_meter_init(&mt, &ri, past);
  ck_assert(!mt.ok);
  rc_result a, b;
  char ma[256] = "", mb[256] = "";
  int ra = rc_run(&ri, cuts, n_cuts, NULL, past, &a, ma, sizeof ma);
  int rb = rc_meter_run(&mt, cuts, n_cuts, &b, mb, sizeof mb);
  ck_assert_int_ne(ra, 0);
  ck_assert_int_eq(ra, rb);
  ck_assert_str_eq(ma, mb);
  rc_meter_destroy(&mt);
  ri_destroy(&ri);
  mp_graph_destroy(g);
}
END_TEST

Suite *suite_rematmeter(void) {
  Suite *s = suite_create("rematmeter");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, meter_equals_plain_runs);
  tcase_add_test(tc, forward_peak_with_checkpoints);
  tcase_add_test(tc, forward_cut_falls_back);
  suite_add_tcase(s, tc);
  return s;
}
