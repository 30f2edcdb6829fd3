/* test_rematexec.c - the plan builder's own account (lib/remat_exec.h)
 * against the judge: random graphs and first-run orders, random policies
 * (gaps dropped or swapped with random prefetch positions, holds, keeps
 * released later, a random horizon) and a random driver (offloads,
 * fetches, copies out, frees, polls), with and without a link, with and
 * without an eviction callback under a budget.  Every plan the builder
 * writes must verify and keep the order, and the builder's peak,
 * duration, reruns, copies in and runs per node must be the evaluator's
 * figures for it (src/events.c, which shares no code with the builder).
 * A run continued from another's state (rx_copy_state) ends as the run
 * done in one go.  And swapped gaps by hand: the copy out as soon as the
 * buffer is made, a buffer whose prefetch position comes while it waits
 * for its copy, the copies in of one position in the order of use. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "lib/remat_exec.h"
#include "oracle.h"
#include "testlib.h"

static bool near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)); }

/* Can b go now and come back later (a rerun or its host copy)? */
static bool may_go(const rx_exec *x, int b) {
  return x->res[b] && x->lock[b] == 0 && x->hold[b] == 0 && (!x->keep || x->keep[b] == 0) &&
         ((x->ri->flags[b] & RI_DROP) || (x->host[b] && x->bandwidth > 0));
}

/* The eviction callback: a random buffer that may go, else -1. */
static int random_victim(rx_exec *x, int64_t need, void *ctx) {
  (void)need;
  mp_rng *r = ctx;
  int nb = x->ri->nb, at = (int)mp_rng_below(r, (uint64_t)nb);
  for (int i = 0; i < nb; i++)
    if (may_go(x, (at + i) % nb)) return (at + i) % nb;
  return -1;
}

static void random_policy(rx_exec *x, mp_rng *r, uint8_t *gap, int *pre, int *keep) {
  const ri_info *ri = x->ri;
  for (int b = 0; b < ri->nb; b++) {
    for (int e = ri->ev_start[b]; e < ri->ev_start[b + 1]; e++) {
      int pick = (int)mp_rng_below(r, 3);
      gap[e] = RX_KEEP, pre[e] = -1;
      if (pick == 1 && (ri->flags[b] & RI_DROP)) gap[e] = RX_DROP;
      if (pick == 2 && (ri->flags[b] & RI_SWAP))
        gap[e] = RX_SWAP, pre[e] = (int)mp_rng_below(r, (uint64_t)ri->m + 1) - 1;
    }
    x->hold[b] = mp_rng_below(r, 8) == 0;
    keep[b] = mp_rng_below(r, 8) == 0;
  }
  x->keep = keep;
  x->horizon = (int)mp_rng_below(r, (uint64_t)ri->m + 3);
  rx_set_gaps(x, gap, pre);
}

/* Random driver calls before the next position. */
static int drive(rx_exec *x, mp_rng *r) {
  int nb = x->ri->nb, rc = 0, ops = (int)mp_rng_below(r, 4);
  for (int i = 0; rc == 0 && i < ops && nb > 0; i++) {
    int b = (int)mp_rng_below(r, (uint64_t)nb);
    bool swap = (x->ri->flags[b] & RI_SWAP) != 0; /* a driver offloads only these */
    switch (mp_rng_below(r, 6)) {
    case 0: if (swap) rx_offload(x, b); break;
    case 1: if (x->pending[b] == 2) rc = rx_fetch(x, b); break;
    case 2: if (swap) rx_copy_out(x, b); break;
    case 3: if (may_go(x, b)) rx_free(x, b); break;
    case 4: if (x->keep[b] > 0) rx_release(x, b); break;
    default: rx_poll(x);
    }
  }
  return rc;
}

/* One builder run on g in `order`; returns 1 when it wrote a plan, after
 * checking it against the judge. */
static int one_run(const mp_graph *g, const int *order, mp_rng *r, double bw, bool evict,
                   const char *js) {
  ri_info ri;
  ri_init(&ri, g, order);
  int ne = ri.ev_start[ri.nb];
  uint8_t *gap = malloc((size_t)ne + 1);
  int *pre = malloc(sizeof(int) * ((size_t)ne + 1)), *keep = calloc((size_t)ri.nb + 1, sizeof(int));
  mp_events ev;
  mp_events_init(&ev);
  int64_t floor = mp_events_floor(g), plain = mp_order_peak(g, order);
  int64_t budget = evict ? floor + (int64_t)mp_rng_below(r, (uint64_t)(plain - floor) + 1) : INT64_MAX;
  rx_exec x;
  rx_init(&x, &ri, &ev, budget, bw);
  random_policy(&x, r, gap, pre, keep);
  if (evict) x.victim = random_victim, x.ctx = r;
  int rc = rx_start(&x);
  while (rc == 0 && x.p < ri.m) {
    rc = drive(&x, r);
    if (rc == 0) rc = rx_step(&x);
  }
  if (rc == 0) rc = rx_finish(&x);
  int wrote = 0;
  if (rc == 0) {
    mp_error err;
    ck_assert_msg(mp_events_verify(g, &ev, bw, NULL, &err) == 0, "%s\n%s", err.msg, js);
    ck_assert_msg(mp_events_follow(g, &ev, order), "first runs leave the order\n%s", js);
    mp_ev_figures f;
    mp_events_evaluate(g, &ev, bw, budget, &f);
    ck_assert_msg(x.peak == f.live_peak && near(x.duration, f.duration),
                  "builder: peak %lld, duration %.17g; the judge: %lld, %.17g (bw %g)\n%s", (long long)x.peak,
                  x.duration, (long long)f.live_peak, f.duration, bw, js);
    ck_assert_msg(x.n_reruns == f.recomputed && x.n_ins == f.n_ins,
                  "builder: %lld reruns, %lld ins; the judge: %lld, %d\n%s", (long long)x.n_reruns,
                  (long long)x.n_ins, (long long)f.recomputed, f.n_ins, js);
    ck_assert_msg(x.peak <= budget, "peak %lld over the budget %lld with eviction\n%s", (long long)x.peak,
                  (long long)budget, js);
    for (int v = 0; v < g->n; v++) {
      int runs = 0;
      for (int i = 0; i < ev.n; i++) runs += ev.ev[i].kind == MP_EV_RUN && ev.ev[i].id == v;
      ck_assert_msg(runs == x.runs[v], "node %d: %d runs in the plan, %d counted\n%s", v, runs, x.runs[v], js);
    }
    wrote = 1;
  }
  rx_destroy(&x);
  mp_events_destroy(&ev);
  free(gap);
  free(pre);
  free(keep);
  ri_destroy(&ri);
  return wrote;
}

START_TEST(account_is_the_judges) {
  mp_rng r;
  mp_rng_seed(&r, 2701);
  int trials = tl_trials(400), wrote = 0, evicted = 0;
  for (int t = 0; t < trials; t++) {
    int n = 2 + t % 14;
    char *js = tl_random_json(&r, n, TL_ALL);
    mp_graph *g = tl_graph(js);
    for (int v = 0; v < g->n; v++)
      if (mp_rng_below(&r, 2)) {
        g->nodes[v].cost = (double)mp_rng_below(&r, 40) / 10.0;
        g->nodes[v].has_cost = true;
      }
    or_model om;
    ck_assert_int_eq(or_build(g, &om), 0);
    int *order = malloc(sizeof(int) * (size_t)n);
    or_random_order(&om, &r, order);
    double bw = t % 3 ? (double)(1 + mp_rng_below(&r, 300)) / 10.0 : 0;
    wrote += one_run(g, order, &r, bw, false, js);
    evicted += one_run(g, order, &r, bw, true, js);
    free(order);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  if (tl_verbose()) fprintf(stderr, "rematexec: %d of %d plans, %d with eviction\n", wrote, trials, evicted);
  ck_assert_int_ge(wrote, trials / 2);
  ck_assert_int_ge(evicted, trials / 4);
}
END_TEST

/* The builder run from the start (first), to the end, or to position
 * `upto` and then continued in x, a fresh builder that took its state
 * with rx_copy_state (upto -1: x unused).  The same rng state gives the
 * same policy and driver calls.  Returns rc; *ended: the builder that ran
 * last.  The caller destroys first, and x when upto >= 0. */
static int run_to(const ri_info *ri, mp_rng r, double bw, int upto, rx_exec *x, rx_exec *first,
                  rx_exec **ended, uint8_t *gap, int *pre, int *keep) {
  rx_init(first, ri, NULL, INT64_MAX, bw);
  if (upto >= 0) rx_init(x, ri, NULL, INT64_MAX, bw);
  random_policy(first, &r, gap, pre, keep);
  rx_exec *at = first;
  int rc = rx_start(at);
  for (;;) {
    if (rc == 0 && at == first && at->p == upto) {
      rx_set_gaps(x, gap, pre);
      x->keep = keep;
      rx_copy_state(x, first);
      at = x;
    }
    if (rc || at->p == ri->m) break;
    rc = drive(at, &r);
    if (rc == 0) rc = rx_step(at);
  }
  if (rc == 0) rc = rx_finish(at);
  *ended = at;
  return rc;
}

/* A run continued from another's state at a random position ends as the
 * run done in one go: the same figures and the same time at each
 * position (those before the copy are the first builder's). */
START_TEST(copied_state_continues_the_run) {
  mp_rng r;
  mp_rng_seed(&r, 2702);
  int trials = tl_trials(150), compared = 0;
  for (int t = 0; t < trials; t++) {
    mp_graph *g = tl_gen(t % 2 ? "sp" : "layered", 12 + t % 20, (uint64_t)t + 1, true);
    ri_info ri;
    ri_init(&ri, g, g->given);
    int ne = ri.ev_start[ri.nb], upto = (int)mp_rng_below(&r, (uint64_t)ri.m + 1);
    double bw = t % 3 ? (double)(1 + mp_rng_below(&r, 300)) : 0;
    if (bw > 0) { /* a copy as long as a run, on average, times 0.1 .. 30 */
      double size = 0, cost = 0;
      for (int b = 0; b < ri.nb; b++) size += (double)ri.size[b];
      for (int v = 0; v < ri.n; v++) cost += ri.cost[v];
      bw = (cost > 0 ? size / cost : 1) * bw / 100;
    }
    uint8_t *gap[2] = {malloc((size_t)ne + 1), malloc((size_t)ne + 1)};
    int *pre[2] = {malloc(sizeof(int) * ((size_t)ne + 1)), malloc(sizeof(int) * ((size_t)ne + 1))};
    int *keep[2] = {calloc((size_t)ri.nb + 1, sizeof(int)), calloc((size_t)ri.nb + 1, sizeof(int))};
    rx_exec a0, b0, b1, *a, *b;
    int ra = run_to(&ri, r, bw, -1, NULL, &a0, &a, gap[0], pre[0], keep[0]);
    int rb = run_to(&ri, r, bw, upto, &b1, &b0, &b, gap[1], pre[1], keep[1]);
    ck_assert_msg(ra == rb, "%s, copied at %d: rc %d (%s) / %d (%s)", g->name, upto, ra, a->msg, rb, b->msg);
    if (ra == 0) {
      ck_assert_msg(b == &b1, "the run ended before the copy");
      ck_assert_msg(a->peak == b->peak && a->duration == b->duration && a->n_reruns == b->n_reruns &&
                        a->n_ins == b->n_ins,
                    "%s, copied at %d: peak %lld / %lld, duration %.17g / %.17g", g->name, upto,
                    (long long)a->peak, (long long)b->peak, a->duration, b->duration);
      for (int p = 0; p < ri.m; p++)
        ck_assert_msg(a->pos_start[p] == b->pos_start[p] && a->pos_tout[p] == b->pos_tout[p] &&
                          a->pos_tin[p] == b->pos_tin[p] && a->pos_work[p] == b->pos_work[p],
                      "%s, copied at %d: position %d starts at %.17g / %.17g", g->name, upto, p,
                      a->pos_start[p], b->pos_start[p]);
      compared++;
    }
    rx_destroy(&a0);
    rx_destroy(&b0);
    rx_destroy(&b1);
    for (int i = 0; i < 2; i++) free(gap[i]), free(pre[i]), free(keep[i]);
    ri_destroy(&ri);
    mp_graph_destroy(g);
  }
  ck_assert_int_ge(compared, trials / 2);
}
END_TEST

/* Gaps all kept, no prefetch, for the events of ri (freed by the caller). */
static void kept_gaps(const ri_info *ri, uint8_t **gap, int **pre) {
  int ne = ri->ev_start[ri->nb];
  *gap = calloc((size_t)ne + 1, 1);
  *pre = malloc(sizeof(int) * ((size_t)ne + 1));
  for (int e = 0; e < ne; e++) (*pre)[e] = -1;
}

/* The position of node v in ri's order, or -1. */
static int position_of(const ri_info *ri, int v) {
  for (int p = 0; p < ri->m; p++)
    if (ri->seq[p] == v) return p;
  return -1;
}

/* Build ri's plan with these gaps at bandwidth bw, without a budget: the
 * judge's figures in f, the builder's own peak and duration in *peak and
 * *duration. */
static void build_and_judge(const mp_graph *g, ri_info *ri, uint8_t *gap, int *pre, double bw,
                            mp_ev_figures *f, int64_t *peak, double *duration) {
  mp_events ev;
  mp_events_init(&ev);
  rx_exec x;
  rx_init(&x, ri, &ev, INT64_MAX, bw);
  rx_set_gaps(&x, gap, pre);
  ck_assert_int_eq(rx_start(&x), 0);
  ck_assert_int_eq(rx_finish(&x), 0);
  mp_events_evaluate(g, &ev, bw, INT64_MAX, f);
  *peak = x.peak;
  *duration = x.duration;
  rx_destroy(&x);
  mp_events_destroy(&ev);
}

/* A swapped gap by hand: x (1) -> A (4, cost 1); B (2) reads x and A; C
 * (4, cost 10) reads B; D (1) reads A and C.  A keeps its gap to B's read
 * and is swapped (no prefetch) between B's and D's.  The builder copies A
 * out as soon as it is made (1 -> 1 + 4 / bw), so that at B's run, after
 * x is freed (the floor then 2), the copy has ended and A goes at once:
 * C runs at 2 + 4 = 6 bytes; B's free then waits for C's end (12), A's
 * copy in starts there and D runs at 4 + 4 + 1 = 9 bytes.  Peak 9,
 * duration 12 + 4 / bw + 1.  At bw
 * 4 the copy ends exactly when B does (2): freed then, not a step later.
 * Copied out only once A's swapped gap begins, the copy would start at the
 * floor (2) and A would still be resident at C's run: 4 + 2 + 4 = 10. */
START_TEST(swap_copied_out_when_made) {
  mp_graph *g = tl_graph("{\"name\":\"swap_early\",\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
                         "{\"id\":1,\"size\":4,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":2,\"size\":2,\"inputs\":[0,1],\"cost\":1},"
                         "{\"id\":3,\"size\":4,\"inputs\":[2],\"cost\":10},"
                         "{\"id\":4,\"size\":1,\"inputs\":[1,3],\"cost\":1}]}");
  static const double bws[] = {8, 4};
  for (int i = 0; i < 2; i++) {
    ri_info ri;
    ri_init(&ri, g, g->given);
    int a = g->root_of[1][0];
    uint8_t *gap;
    int *pre;
    kept_gaps(&ri, &gap, &pre);
    ck_assert_int_eq(ri.ev_start[a + 1] - ri.ev_start[a], 3); /* made, read by B, read by D */
    gap[ri.ev_start[a] + 1] = RX_SWAP;
    mp_ev_figures f;
    int64_t peak;
    double duration, want = 13 + 4 / bws[i];
    build_and_judge(g, &ri, gap, pre, bws[i], &f, &peak, &duration);
    ck_assert_msg(f.live_peak == 9 && near(f.duration, want) && f.n_outs == 1 && f.n_ins == 1,
                  "bw %g: peak %lld, duration %g (want 9, %g), %d outs, %d ins", bws[i], (long long)f.live_peak,
                  f.duration, want, f.n_outs, f.n_ins);
    ck_assert(peak == 9 && near(duration, want));
    free(gap);
    free(pre);
    ri_destroy(&ri);
  }
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* A swapped gap whose prefetch position comes while the buffer is still
 * resident, waiting for its slow copy out: x (1) -> A (4, cost 1); B (1)
 * reads x, C (1, cost 10) reads B, D (1) reads A and C; A swapped from its
 * making to D's read, prefetched at C's position; bw 1, so A's copy runs
 * from 1 to 5.  A has not left when C's position comes, so it stays until
 * D: nothing comes in, duration 13, peak 6.  Freed at D's step, when its
 * copy has ended, it would come back then: 4 more (17). */
START_TEST(swap_prefetched_while_resident) {
  mp_graph *g = tl_graph("{\"name\":\"swap_stay\",\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
                         "{\"id\":1,\"size\":4,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":2,\"size\":1,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":3,\"size\":1,\"inputs\":[2],\"cost\":10},"
                         "{\"id\":4,\"size\":1,\"inputs\":[1,3],\"cost\":1}]}");
  ri_info ri;
  ri_init(&ri, g, g->given);
  int a = g->root_of[1][0], pc = position_of(&ri, 3);
  uint8_t *gap;
  int *pre;
  kept_gaps(&ri, &gap, &pre);
  ck_assert_int_eq(ri.ev_start[a + 1] - ri.ev_start[a], 2); /* made, read by D */
  gap[ri.ev_start[a]] = RX_SWAP, pre[ri.ev_start[a]] = pc;
  mp_ev_figures f;
  int64_t peak;
  double duration;
  build_and_judge(g, &ri, gap, pre, 1, &f, &peak, &duration);
  ck_assert_msg(f.live_peak == 6 && near(f.duration, 13) && f.n_outs == 1 && f.n_ins == 0,
                "peak %lld, duration %g (want 6, 13), %d outs, %d ins", (long long)f.live_peak, f.duration,
                f.n_outs, f.n_ins);
  free(gap);
  free(pre);
  ri_destroy(&ri);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* Two copies in at one position go in the order of their buffers' next
 * use.  x (1) -> A, B (4 each, cost 1); P (1) reads x; Q (1, cost 10)
 * reads x last; C reads Q; D reads B, E reads A, F reads C, D, E and P (1
 * each, cost 1 but Q's).  A and B are swapped from their making to their
 * reads, both prefetched at C's position; bw 4 (a copy takes 1).  Their
 * copies out end at 2 and 3, so they leave at P's and Q's steps.  At C's
 * both wait behind x's free (the floor 13, Q's end): B (needed first, by
 * D) comes in 13 -> 14 and A 14 -> 15; C 13 -> 14, D 14 -> 15, E 15 -> 16,
 * F 16 -> 17.  A first would delay D to B's arrival at 15, the end to 18. */
START_TEST(copies_in_by_next_use) {
  mp_graph *g = tl_graph("{\"name\":\"prefetch_order\",\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
                         "{\"id\":1,\"size\":4,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":2,\"size\":4,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":3,\"size\":1,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":4,\"size\":1,\"inputs\":[0],\"cost\":10},"
                         "{\"id\":5,\"size\":1,\"inputs\":[4],\"cost\":1},"
                         "{\"id\":6,\"size\":1,\"inputs\":[2],\"cost\":1},"
                         "{\"id\":7,\"size\":1,\"inputs\":[1],\"cost\":1},"
                         "{\"id\":8,\"size\":1,\"inputs\":[5,6,7,3],\"cost\":1}]}");
  ri_info ri;
  ri_init(&ri, g, g->given);
  int pc = position_of(&ri, 5);
  uint8_t *gap;
  int *pre;
  kept_gaps(&ri, &gap, &pre);
  for (int v = 1; v <= 2; v++) {
    int b = g->root_of[v][0];
    ck_assert_int_eq(ri.ev_start[b + 1] - ri.ev_start[b], 2); /* made, read once */
    gap[ri.ev_start[b]] = RX_SWAP, pre[ri.ev_start[b]] = pc;
  }
  mp_ev_figures f;
  int64_t peak;
  double duration;
  build_and_judge(g, &ri, gap, pre, 4, &f, &peak, &duration);
  ck_assert_msg(near(f.duration, 17) && f.n_ins == 2 && f.n_outs == 2, "duration %g (want 17), %d ins, %d outs",
                f.duration, f.n_ins, f.n_outs);
  free(gap);
  free(pre);
  ri_destroy(&ri);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

Suite *suite_rematexec(void) {
  Suite *s = suite_create("rematexec");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, account_is_the_judges);
  tcase_add_test(tc, copied_state_continues_the_run);
  tcase_add_test(tc, swap_copied_out_when_made);
  tcase_add_test(tc, swap_prefetched_while_resident);
  tcase_add_test(tc, copies_in_by_next_use);
  suite_add_tcase(s, tc);
  return s;
}
