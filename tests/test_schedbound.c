/* test_schedbound.c - the scheduling lower bounds of schedbound.h: the
 * min-cut bound never exceeds the optimum found by brute force over every
 * topological order, never falls below the cut bound, and sees the
 * side-chain buffers the cut bound misses; both bounds equal their
 * definitions taken literally over every topological order of small
 * random graphs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

typedef int64_t (*bound_fn)(const mp_graph *g);
static int64_t node_of(const mp_graph *g) { return mp_node_lower_bound(g); }
static int64_t cut_of(const mp_graph *g) { return mp_cut_lower_bound(g, NULL); }
static int64_t min_cut_of(const mp_graph *g) { return mp_sched_lower_bound(g, NULL); }

/* On 400 random graphs of 1 to 8 nodes (flags of tl_random_graph), `bound`
 * equals `literal` wherever that counts every order (-1: too many), and
 * beats the weaker `below` on at least 1 in `share` of them (it, not only
 * `below`, decides). */
static void bound_is_literal(uint64_t seed, int flags, bound_fn bound, bound_fn literal, bound_fn below,
                             int share) {
  mp_rng rng;
  mp_rng_seed(&rng, seed);
  int trials = tl_trials(400), checked = 0, above = 0;
  for (int i = 0; i < trials; i++) {
    int n = 1 + (int)mp_rng_below(&rng, 8);
    mp_graph *g = tl_random_graph(&rng, n, flags);
    int64_t want = literal(g);
    if (want >= 0) {
      checked++;
      int64_t got = bound(g);
      ck_assert_msg(got == want, "graph %d (n=%d): bound %lld, by every order %lld", i, n,
                    (long long)got, (long long)want);
      above += got > below(g);
    }
    mp_graph_destroy(g);
  }
  ck_assert_int_ge(checked, trials * 9 / 10);
  ck_assert_int_ge(above, checked / share);
}

/* The cut bound is what schedbound.h defines: the largest sum, over nodes
 * v, of the buffers live at v's step in every order (made by an ancestor
 * of v, or by v, or a graph input; read by v or a descendant, or a graph
 * output), the graph inputs all live at the first step, or the per-node
 * bound.  Here "live in every order" is taken literally: every
 * topological order's lifetimes (mp_problem_from_order), intersected.
 * Without views and in-place writes (their alias sets and edges are the
 * min-cut bound's business). */
typedef struct always_live {
  const mp_graph *g;
  bool *live; /* [v * n_buf + b]: b live at v's step in every order so far */
} always_live;

static void note_live(const int *order, void *ctx) {
  always_live *a = ctx;
  const mp_graph *g = a->g;
  mp_problem p;
  ck_assert_int_eq(mp_problem_from_order(g, order, 1, &p), 0);
  for (int t = 0; t < g->n; t++)
    for (int b = 0; b < g->n_buf; b++)
      if (!(p.items[b].lo <= t && t < p.items[b].hi)) a->live[(size_t)order[t] * (size_t)g->n_buf + b] = false;
  mp_problem_destroy(&p);
}

/* The bound by that definition, from every order of g (-1: too many). */
static int64_t always_live_bound(const mp_graph *g) {
  size_t cells = (size_t)(g->n ? g->n : 1) * (size_t)(g->n_buf ? g->n_buf : 1);
  always_live a = {g, malloc(cells)};
  memset(a.live, 1, cells);
  int64_t best = -1;
  if (tl_each_order(g, 20000, note_live, &a) >= 0) {
    best = mp_node_lower_bound(g);
    int64_t first = 0;
    for (int b = 0; b < g->n_buf; b++)
      if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start) first += g->bufs[b].size;
    best = first > best ? first : best;
    for (int v = 0; v < g->n; v++) {
      int64_t sum = 0;
      for (int b = 0; b < g->n_buf; b++) sum += a.live[(size_t)v * (size_t)g->n_buf + b] ? g->bufs[b].size : 0;
      best = sum > best ? sum : best;
    }
  }
  free(a.live);
  return best;
}

START_TEST(cut_bound_is_always_live) {
  bound_is_literal(6160, TL_MULTI | TL_WS | TL_OUTNODE, cut_of, always_live_bound, node_of, 10);
}
END_TEST

/* The min-cut bound is what schedbound.h defines: the largest, over nodes
 * v, of the fewest bytes live at v's step in any order (the set run by
 * then ranges over every set closed under predecessors that holds v and
 * none of its descendants: the orders' prefixes), or the cut bound.  The
 * graph inputs nobody reads, live at the first step only, are the cut
 * bound's (its first step): the network leaves them out, and so does this
 * count.  Taken literally over every topological order. */
typedef struct fewest_live {
  const mp_graph *g;
  int64_t dead_inputs; /* graph inputs nobody reads, not outputs */
  int64_t *fewest;     /* per node: the fewest bytes at its step so far (-1: none yet) */
} fewest_live;

static void note_fewest(const int *order, void *ctx) {
  fewest_live *a = ctx;
  const mp_graph *g = a->g;
  mp_problem p;
  ck_assert_int_eq(mp_problem_from_order(g, order, 1, &p), 0);
  int64_t *m = mp_profile(&p);
  for (int t = 0; t < g->n; t++) {
    int64_t live = m[t] - (t == 0 ? a->dead_inputs : 0);
    int v = order[t];
    if (a->fewest[v] < 0 || live < a->fewest[v]) a->fewest[v] = live;
  }
  free(m);
  mp_problem_destroy(&p);
}

static int64_t fewest_live_bound(const mp_graph *g) {
  fewest_live a = {g, 0, malloc(sizeof(int64_t) * (size_t)(g->n ? g->n : 1))};
  for (int v = 0; v < g->n; v++) a.fewest[v] = -1;
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    if (bb->kind == MP_BUF_TENSOR && bb->born_at_start && bb->n_readers == 0 && !bb->graph_output)
      a.dead_inputs += bb->size;
  }
  int64_t best = -1;
  if (tl_each_order(g, 20000, note_fewest, &a) >= 0) {
    best = mp_cut_lower_bound(g, NULL);
    for (int v = 0; v < g->n; v++) best = a.fewest[v] > best ? a.fewest[v] : best;
  }
  free(a.fewest);
  return best;
}

START_TEST(min_cut_bound_is_fewest_live) {
  bound_is_literal(6161, TL_ALL, min_cut_of, fewest_live_bound, cut_of, 20);
}
END_TEST

Suite *suite_schedbound(void) {
  Suite *s = suite_create("schedbound");
  TCase *tc = tcase_create("schedbound");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, side_chain_counted);
  tcase_add_test(tc, empty_graph);
  tcase_add_test(tc, below_brute_force);
  tcase_add_test(tc, cut_bound_is_always_live);
  tcase_add_test(tc, min_cut_bound_is_fewest_live);
  suite_add_tcase(s, tc);
  return s;
}
