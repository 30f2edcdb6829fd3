/* test_sched.c - the scheduling solvers (issue 5): exact solvers against
 * brute force over every topological order, heuristics never below the
 * optimum, honest statuses and bounds, determinism, chains never worse
 * than their start, and the solver-specific features (dp's splitting and
 * state cap, ilp's LP export). */
#define _POSIX_C_SOURCE 200809L
#include <glpk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedbound.h"
#include "testlib.h"

/* the order stage's status and bound (stage 0 of a one-stage order chain,
 * the last order stage of a chain) */
static const mp_stage_result *order_stage(const mp_result *r, int n_order) {
  return &r->stages[n_order - 1];
}

static int64_t peak_of(const mp_graph *g, const char *order, uint64_t seed, const char *const *sets,
                       mp_result *r) {
  int rc = tl_run(g, order, "bysize", seed, 0, sets, r);
  ck_assert_msg(rc == 0, "%s: rc %d: %s", order, rc, r->msg);
  return r->fig.live_peak;
}

/* Heuristic and search order solvers with their quick options. */
static const char *const heuristics[] = {"given", "greedy", "lpmf", "bfs", "dfs", "best",
                                         "sa",    "ga",     "greedy,sa", "greedy,ga"};
#define N_HEUR (int)(sizeof heuristics / sizeof heuristics[0])

/* The quick options of the last solver of a chain ("greedy,sa" -> sa's). */
static const char *const *quick_sets(const char *chain) {
  const char *last = strrchr(chain, ',');
  last = last ? last + 1 : chain;
  const mp_solver *s = mp_solver_find(last);
  ck_assert_msg(s != NULL, "no solver %s", last);
  return tl_quick_sets(s);
}

START_TEST(exact_equal_brute_force) {
  mp_rng rng;
  mp_rng_seed(&rng, 20261130);
  int trials = tl_trials(300), checked = 0;
  for (int i = 0; i < trials; i++) {
    int n = 1 + (int)mp_rng_below(&rng, 12);
    /* every other graph with sizes of a few bytes: there the heuristic
     * order is often one byte above the optimum, the search's last budget */
    mp_graph *g = tl_random_graph(&rng, n, TL_ALL | (i % 2 ? TL_SMALL : 0));
    int64_t opt = tl_brute_force_peak(g, 300000, NULL);
    mp_result r;
    int64_t dp = peak_of(g, "dp", 1, NULL, &r);
    const mp_stage_result *st = order_stage(&r, 1);
    ck_assert_msg(st->status == MP_OPTIMAL, "dp did not prove graph %d (n=%d): %s", i, n, st->msg);
    ck_assert_msg(st->bound == dp, "dp bound %lld != peak %lld", (long long)st->bound, (long long)dp);
    mp_result_destroy(&r);
    int64_t ref = opt >= 0 ? opt : dp;
    if (opt >= 0) {
      checked++;
      ck_assert_msg(dp == opt, "graph %d (n=%d): dp %lld, brute force %lld", i, n, (long long)dp,
                    (long long)opt);
    }
    /* without splitting: the same optimum */
    const char *nosplit[] = {"dp.split=0", "dp.cutbound=0", NULL};
    ck_assert_int_eq(peak_of(g, "dp", 1, nosplit, &r), ref);
    ck_assert_int_eq(order_stage(&r, 1)->status, MP_OPTIMAL);
    mp_result_destroy(&r);
    /* the model alone (no incumbent, no cut bound), then warm-started */
    const char *cold[] = {"ilp.warm=0", NULL};
    int64_t ilp = peak_of(g, "ilp", 1, cold, &r);
    st = order_stage(&r, 1);
    ck_assert_msg(ilp == ref && st->status == MP_OPTIMAL && st->bound == ref,
                  "graph %d (n=%d): cold ilp %lld (%s, bound %lld), optimum %lld", i, n,
                  (long long)ilp, mp_status_name(st->status), (long long)st->bound, (long long)ref);
    mp_result_destroy(&r);
    ilp = peak_of(g, "ilp", 1, NULL, &r);
    st = order_stage(&r, 1);
    ck_assert_msg(ilp == ref && st->status == MP_OPTIMAL && st->bound == ref,
                  "graph %d (n=%d): ilp %lld (%s, bound %lld), optimum %lld", i, n, (long long)ilp,
                  mp_status_name(st->status), (long long)st->bound, (long long)ref);
    mp_result_destroy(&r);
    int64_t greedy = -1;
    for (int h = 0; h < N_HEUR; h++) {
      int64_t p = peak_of(g, heuristics[h], 7, quick_sets(heuristics[h]), &r);
      int ns = strchr(heuristics[h], ',') ? 2 : 1;
      st = order_stage(&r, ns);
      ck_assert_msg(p >= ref, "%s: peak %lld below the optimum %lld", heuristics[h], (long long)p,
                    (long long)ref);
      ck_assert_msg(st->status != MP_OPTIMAL || p == ref, "%s claims optimal at %lld > %lld",
                    heuristics[h], (long long)p, (long long)ref);
      ck_assert_msg(st->bound <= ref, "%s: bound %lld above the optimum %lld", heuristics[h],
                    (long long)st->bound, (long long)ref);
      if (strcmp(heuristics[h], "greedy") == 0) greedy = p;
      if (strncmp(heuristics[h], "greedy,", 7) == 0)
        ck_assert_msg(p <= greedy, "%s worse than greedy: %lld > %lld", heuristics[h],
                      (long long)p, (long long)greedy);
      mp_result_destroy(&r);
    }
    mp_graph_destroy(g);
  }
  ck_assert_msg(checked >= trials * 9 / 10, "brute force finished only %d of %d", checked, trials);
  tl_cleanup();
}
END_TEST

/* The same seed gives the same order; search solvers start from their
 * start order and never return worse. */
START_TEST(deterministic_and_monotone) {
  mp_rng rng;
  mp_rng_seed(&rng, 4242);
  const char *const names[] = {"sa", "ga", "dp", "ilp", "lpmf", "best", "greedy,sa", "greedy,ga"};
  int trials = tl_trials(20);
  for (int i = 0; i < trials; i++) {
    mp_graph *g = tl_random_graph(&rng, 10 + i % 15, TL_ALL);
    for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++) {
      if (strcmp(names[k], "ilp") == 0 && g->n > 14) continue;
      mp_result a, b;
      peak_of(g, names[k], 99, quick_sets(names[k]), &a);
      peak_of(g, names[k], 99, quick_sets(names[k]), &b);
      ck_assert_msg(memcmp(a.order, b.order, sizeof(int) * (size_t)g->n) == 0,
                    "%s: two runs with seed 99 differ", names[k]);
      mp_result_destroy(&a);
      mp_result_destroy(&b);
    }
    /* sa and ga never return worse than their start */
    mp_result r;
    int64_t greedy = peak_of(g, "greedy", 1, NULL, &r);
    mp_result_destroy(&r);
    int64_t given = peak_of(g, "given", 1, NULL, &r);
    mp_result_destroy(&r);
    ck_assert(peak_of(g, "sa", 3, quick_sets("sa"), &r) <= given);
    mp_result_destroy(&r);
    ck_assert(peak_of(g, "ga", 3, quick_sets("ga"), &r) <= given);
    mp_result_destroy(&r);
    ck_assert(peak_of(g, "greedy,sa", 3, quick_sets("greedy,sa"), &r) <= greedy);
    mp_result_destroy(&r);
    ck_assert(peak_of(g, "greedy,ga", 3, quick_sets("greedy,ga"), &r) <= greedy);
    mp_result_destroy(&r);
    mp_graph_destroy(g);
  }
  tl_cleanup();
}
END_TEST

/* A chain of diamonds: many cut nodes.  Splitting must give the same
 * optimum as the whole-graph search, on graphs too large for brute force. */
static char *diamond_chain(mp_rng *r, int blocks) {
  size_t cap = 256 + (size_t)blocks * 400;
  char *s = malloc(cap);
  size_t k = 0;
  k += (size_t)snprintf(s + k, cap - k, "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":%d,\"inputs\":[]}",
                        1 + (int)mp_rng_below(r, 1000));
  int id = 1, last = 0;
  for (int b = 0; b < blocks; b++) {
    int w = 2 + (int)mp_rng_below(r, 2), first = id;
    for (int j = 0; j < w; j++, id++)
      k += (size_t)snprintf(s + k, cap - k, ",{\"id\":%d,\"size\":%d,\"inputs\":[%d]%s}", id,
                            1 + (int)mp_rng_below(r, 1000), last,
                            mp_rng_below(r, 4) == 0 ? ",\"workspace\":300" : "");
    k += (size_t)snprintf(s + k, cap - k, ",{\"id\":%d,\"size\":%d,\"inputs\":[", id,
                          1 + (int)mp_rng_below(r, 1000));
    for (int j = 0; j < w; j++) k += (size_t)snprintf(s + k, cap - k, "%s%d", j ? "," : "", first + j);
    k += (size_t)snprintf(s + k, cap - k, "%s]}", b > 0 && mp_rng_below(r, 3) == 0 ? ",0" : "");
    last = id++;
  }
  snprintf(s + k, cap - k, "]}");
  return s;
}

START_TEST(dp_split_same_optimum) {
  mp_rng rng;
  mp_rng_seed(&rng, 31337);
  int trials = tl_trials(40);
  for (int i = 0; i < trials; i++) {
    char *js = diamond_chain(&rng, 3 + i % 4);
    mp_graph *g = tl_graph(js);
    free(js);
    mp_result a, b;
    const char *nosplit[] = {"dp.split=0", NULL};
    int64_t pa = peak_of(g, "dp", 1, NULL, &a), pb = peak_of(g, "dp", 1, nosplit, &b);
    ck_assert_int_eq(order_stage(&a, 1)->status, MP_OPTIMAL);
    ck_assert_int_eq(order_stage(&b, 1)->status, MP_OPTIMAL);
    ck_assert_msg(pa == pb, "split %lld, whole graph %lld", (long long)pa, (long long)pb);
    ck_assert_msg(strstr(order_stage(&a, 1)->msg, "1 segment ") == NULL, "no split found: %s",
                  order_stage(&a, 1)->msg);
    if (g->n <= 13) ck_assert_int_eq(tl_brute_force_peak(g, 2000000, NULL), pa);
    mp_result_destroy(&a);
    mp_result_destroy(&b);
    mp_graph_destroy(g);
  }
  /* random graphs with inputs and aliases: both agree */
  for (int i = 0; i < trials; i++) {
    mp_graph *g = tl_random_graph(&rng, 14 + i % 8, TL_ALL);
    mp_result a, b;
    const char *nosplit[] = {"dp.split=0", NULL};
    ck_assert_int_eq(peak_of(g, "dp", 1, NULL, &a), peak_of(g, "dp", 1, nosplit, &b));
    mp_result_destroy(&a);
    mp_result_destroy(&b);
    mp_graph_destroy(g);
  }
  tl_cleanup();
}
END_TEST

/* Capped with its split and min-cut bound on, dp still reports at least
 * the bounds it proves before searching: the per-node and min-cut bounds. */
static void capped_bound_holds(const mp_graph *g, int64_t opt) {
  mp_result r;
  const char *sets[] = {"dp.max_states=1", NULL};
  peak_of(g, "dp", 1, sets, &r);
  int64_t b = order_stage(&r, 1)->bound, node = mp_node_lower_bound(g), cut = mp_sched_lower_bound(g, NULL);
  ck_assert_msg(b >= node && b >= cut && b <= opt, "capped bound %lld: per-node %lld, min-cut %lld, "
                "optimum %lld", (long long)b, (long long)node, (long long)cut, (long long)opt);
  mp_result_destroy(&r);
}

/* With a state cap of 1, dp stops cleanly: a valid plan, not optimal unless
 * its start was, a bound no higher than the optimum. */
START_TEST(dp_state_cap) {
  mp_rng rng;
  mp_rng_seed(&rng, 99);
  int stopped = 0;
  for (int i = 0; i < tl_trials(60); i++) {
    mp_graph *g = tl_random_graph(&rng, 12, TL_ALL);
    mp_result full, cap;
    int64_t opt = peak_of(g, "dp", 1, NULL, &full);
    const char *sets[] = {"dp.max_states=1", "dp.split=0", "dp.cutbound=0", NULL};
    int64_t p = peak_of(g, "dp", 1, sets, &cap);
    const mp_stage_result *st = order_stage(&cap, 1);
    ck_assert(p >= opt);
    ck_assert_msg(st->bound <= opt, "capped bound %lld above the optimum %lld", (long long)st->bound,
                  (long long)opt);
    capped_bound_holds(g, opt);
    if (st->status == MP_OPTIMAL) {
      ck_assert_int_eq(p, opt);
    } else {
      ck_assert_int_eq(st->status, MP_FEASIBLE);
      ck_assert(strstr(st->msg, "cap") != NULL);
      stopped++;
    }
    mp_result_destroy(&full);
    mp_result_destroy(&cap);
    mp_graph_destroy(g);
  }
  ck_assert_msg(stopped > 0, "the state cap never stopped dp");
  tl_cleanup();
}
END_TEST

/* ilp: the LP export reads back into GLPK with the model's size; the size
 * cap refuses with a message. */
START_TEST(ilp_write_lp_and_cap) {
  mp_rng rng;
  mp_rng_seed(&rng, 5);
  mp_graph *g = tl_random_graph(&rng, 9, TL_ALL);
  char *path = tl_write_temp("", ".lp");
  mp_instance in = {g, NULL};
  mp_run_spec spec = {0};
  spec.order = "ilp";
  spec.write_lp = path;
  mp_result r;
  ck_assert_int_eq(mp_run(&in, &spec, &r), 0);
  glp_term_out(GLP_OFF);
  glp_prob *P = glp_create_prob();
  ck_assert_msg(glp_read_lp(P, NULL, path) == 0, "GLPK cannot read %s back", path);
  ck_assert_int_gt(glp_get_num_cols(P), g->n);
  ck_assert_int_gt(glp_get_num_int(P), 0);
  glp_delete_prob(P);
  mp_result_destroy(&r);
  /* the cap: refusal with a clear message */
  const char *sets[] = {"ilp.max_nodes=5", NULL};
  ck_assert_int_eq(tl_run(g, "ilp", "bysize", 1, 0, sets, &r), 3);
  ck_assert(strstr(r.msg, "max_nodes") != NULL);
  mp_result_destroy(&r);
  free(path);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* Limits that hold (issue 12): on a 3000-node layered graph every search
 * returns within its time limit (generous slack: the bounds and the
 * preprocessing are interruptible), with a valid order (the harness
 * verifies it) and a bound no weaker than the per-node one; ilp refuses
 * under its size cap at once. */
START_TEST(limits_hold_on_a_large_graph) {
  mp_graph *g = tl_gen("layered", 3000, 1, false);
  const double limit = 0.3;
  const char *names[] = {"dp", "sa", "ga", "best"};
  int64_t node = mp_node_lower_bound(g);
  for (int k = 0; k < 4; k++) {
    mp_result r;
    int rc = tl_run(g, names[k], "bysize", 1, limit, NULL, &r);
    ck_assert_msg(rc == 0, "%s: %s", names[k], r.msg);
    const mp_stage_result *st = order_stage(&r, 1);
    /* CPU, not wall, time: load stretches the wall clock, not the CPU a kept limit allows */
    ck_assert_msg(st->cpu_ms < 1000 * (limit + 1.5), "%s used %.0f ms of CPU under --time-limit %.1f", names[k],
                  st->cpu_ms, limit);
    ck_assert_msg(st->bound >= node && st->bound <= r.fig.live_peak, "%s: bound %lld (node bound %lld, peak %lld)",
                  names[k], (long long)st->bound, (long long)node, (long long)r.fig.live_peak);
    mp_result_destroy(&r);
  }
  /* ga without its local search, which held its only look at the clock:
   * with fill (the default under a limit) it never stopped */
  const char *no_local[] = {"ga.local=0", NULL};
  mp_result r;
  ck_assert_int_eq(tl_run(g, "ga", "bysize", 1, limit, no_local, &r), 0);
  ck_assert_msg(order_stage(&r, 1)->cpu_ms < 1000 * (limit + 1.5),
                "ga local=0 used %.0f ms of CPU under --time-limit %.1f", order_stage(&r, 1)->cpu_ms, limit);
  mp_result_destroy(&r);
  ck_assert_int_eq(tl_run(g, "ilp", "bysize", 1, limit, NULL, &r), 3);
  ck_assert_msg(strstr(r.msg, "size cap") != NULL, "ilp: %s", r.msg);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
}
END_TEST

/* dp with the deadline passed at each reading of the clock (tl_clock_start:
 * whatever the machine's speed): `timeout` or the uncut run's answer.  On
 * graphs of a few hundred nodes the split's reachability matrices (n^2 bits
 * each, 0.2 s at 15k nodes) look at the clock every 256 rows: before, no
 * reading came before the search, and a limit of 0.1 s took 0.45 s on
 * gpt2_48l (14,689 nodes). */
START_TEST(dp_cut_at_every_reading) {
  static const char *const fam[] = {"sp", "chain", "chain"}; /* dp proves each in ms */
  int timeouts = 0;
  for (int t = 0; t < 3; t++) {
    mp_graph *g = tl_gen(fam[t], t == 2 ? 300 : 600, t == 2 ? 3 : 2, t == 2); /* ~600 nodes */
    mp_result a, b;
    tl_clock_start(-1);
    int rc_a = tl_run(g, "dp", "bysize", 1, 100, NULL, &a);
    long reads = tl_clock_stop();
    ck_assert_msg(rc_a == 0 && a.status != MP_TIMEOUT, "dp on %s: rc %d, %s", fam[t], rc_a, a.msg);
    int in_split = 0; /* reading 0 sets the deadline: the jump must come after it */
    for (long j = 1; j < reads; j += reads > 80 ? reads / 80 : 1) {
      tl_clock_start(j);
      int rc_b = tl_run(g, "dp", "bysize", 1, 100, NULL, &b);
      tl_clock_stop();
      bool same = rc_a == rc_b && b.status == a.status && b.fig.live_peak == a.fig.live_peak &&
                  !memcmp(a.order, b.order, sizeof(int) * (size_t)g->n);
      ck_assert_msg(b.status == MP_TIMEOUT || same, "dp on %s (%d nodes), deadline passed at reading %ld "
                    "of %ld: %s (%s)", fam[t], g->n, j, reads, mp_status_name(b.status), b.msg);
      timeouts += b.status == MP_TIMEOUT;
      in_split += strstr(order_stage(&b, 1)->msg, "while splitting the graph") != NULL;
      mp_result_destroy(&b);
    }
    ck_assert_msg(in_split > 0, "dp on %s: no cut run stopped while splitting the graph", fam[t]);
    mp_result_destroy(&a);
    mp_graph_destroy(g);
  }
  ck_assert_int_gt(timeouts, 0);
  tl_cleanup();
}
END_TEST

/* A node with no predecessors and a workspace is not a graph input that dp
 * may run first: input I (100) is read by A (makes a, 1 byte); F reads
 * nothing and has a workspace of 100; G reads a and F.  F first holds
 * I + 100 = 200 at its step; after A, a + 100 = 101, the optimum. */
START_TEST(dp_sourceless_workspace_waits) {
  mp_graph *g = tl_graph("{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":100,\"inputs\":[]},"
                         "{\"id\":1,\"size\":1,\"inputs\":[0]},"
                         "{\"id\":2,\"size\":0,\"inputs\":[],\"workspace\":100},"
                         "{\"id\":3,\"size\":1,\"inputs\":[1,2]}]}");
  ck_assert_int_eq(tl_brute_force_peak(g, 100, NULL), 101);
  for (int split = 0; split < 2; split++) {
    mp_result r;
    const char *sets[] = {split ? "dp.split=1" : "dp.split=0", NULL};
    ck_assert_int_eq(peak_of(g, "dp", 1, sets, &r), 101);
    ck_assert_int_eq(order_stage(&r, 1)->status, MP_OPTIMAL);
    mp_result_destroy(&r);
  }
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* A search of more than 1024 states (where dp reads the clock and its memo's
 * size) runs to its proof when neither limit is reached: layered 60 unsplit
 * and without the min-cut bound takes about 6,000. */
START_TEST(dp_long_search_proves) {
  mp_graph *g = tl_gen("layered", 60, 1, false);
  mp_result r;
  const char *sets[] = {"dp.split=0", "dp.cutbound=0", NULL};
  ck_assert_int_eq(tl_run(g, "dp", "bysize", 1, 600, sets, &r), 0);
  const mp_stage_result *st = order_stage(&r, 1);
  double states = 0;
  const char *at = strstr(st->msg, "), ");
  ck_assert_msg(at && sscanf(at + 3, "%lf states", &states) == 1, "no state count: %s", st->msg);
  ck_assert_msg(states > 1024 && st->status == MP_OPTIMAL && strstr(st->msg, "limit") == NULL,
                "%s: %s", mp_status_name(st->status), st->msg);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* best's option bound_nodes is the largest graph given the min-cut bound:
 * a graph of exactly that many nodes gets it, one more node skips it. */
START_TEST(best_bound_nodes_is_inclusive) {
  mp_graph *g = tl_gen("layered", 40, 1, false);
  char set[64];
  for (int d = 0; d <= 1; d++) {
    snprintf(set, sizeof set, "best.bound_nodes=%d", g->n - d);
    const char *sets[] = {set, NULL};
    mp_result r;
    ck_assert_int_eq(tl_run(g, "best", "bysize", 1, 0, sets, &r), 0);
    const char *msg = order_stage(&r, 1)->msg;
    ck_assert_msg((strstr(msg, "bound skipped") != NULL) == (d == 1), "%s: %s", set, msg);
    mp_result_destroy(&r);
  }
  mp_graph_destroy(g);
}
END_TEST

Suite *suite_sched(void) {
  Suite *s = suite_create("sched");
  TCase *tc = tcase_create("sched");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, exact_equal_brute_force);
  tcase_add_test(tc, deterministic_and_monotone);
  tcase_add_test(tc, dp_split_same_optimum);
  tcase_add_test(tc, dp_state_cap);
  tcase_add_test(tc, ilp_write_lp_and_cap);
  tcase_add_test(tc, limits_hold_on_a_large_graph);
  tcase_add_test(tc, dp_cut_at_every_reading);
  tcase_add_test(tc, best_bound_nodes_is_inclusive);
  tcase_add_test(tc, dp_sourceless_workspace_waits);
  tcase_add_test(tc, dp_long_search_proves);
  suite_add_tcase(s, tc);
  return s;
}
