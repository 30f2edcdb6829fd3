/* test_remat_milp.c - the exact recomputation/offload solvers (remat-ilp,
 * remat-lp, remat-exact) against the brute force of tests/remat_brute.c on
 * random tiny graphs: plans verify (the judge), stay within budget, follow
 * the order, never beat the optimum; `optimal` means equal to it, the
 * duration bound is below it, `infeasible` only where nothing fits.  And the
 * pieces they share (solvers/lib/remat_stage.h, remat_milp.h): the stage
 * decisions of the keep-all plan decode to it, Checkmate's explicit
 * formulation and the lazy rows agree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "lib/remat_milp.h"
#include "lib/remat_stage.h"
#include "oracle.h"
#include "registry.h"
#include "remat_brute.h"
#include "remat_check.h"
#include "remat_clock.h"
#include "testlib.h"

/* Run an events solver; -1 when it gave no plan.  sets: "k=v" list or NULL. */
static bool near(double a, double b) { return fabs(a - b) <= 1e-6 * fmax(1.0, fabs(b)); }

/* The judge's view of a returned plan; its duration. */
static double judged(const mp_graph *g, const mp_events *ev, const int *order, int64_t budget,
                     double bw, const char *who, const char *js) {
  mp_error err;
  ck_assert_msg(mp_events_verify(g, ev, bw, NULL, &err) == 0, "%s: invalid plan: %s\n%s", who,
                err.msg, js);
  ck_assert_msg(mp_events_follow(g, ev, order), "%s: first runs leave the order\n%s", who, js);
  mp_ev_figures f;
  mp_events_evaluate(g, ev, bw, budget, &f);
  ck_assert_msg(f.live_peak <= budget, "%s: peak %lld over budget %lld\n%s", who,
                (long long)f.live_peak, (long long)budget, js);
  return f.duration;
}

/* The graph's text and the order, for failure messages (malloc'ed). */
static char *with_order(const char *js, const mp_graph *g, const int *order) {
  size_t len = strlen(js) + 16 + 12 * (size_t)g->n;
  char *s = malloc(len);
  int k = snprintf(s, len, "%s\norder:", js);
  for (int i = 0; i < g->n; i++) k += snprintf(s + k, len - (size_t)k, " %d", order[i]);
  return s;
}

/* One random trial: a graph of n nodes (tl_random_json's flags), a
 * first-run order for trial t, and the text failures print (both). */
typedef struct trial {
  char *js, *ctx;
  mp_graph *g;
  int *order;
} trial;

static trial trial_open(mp_rng *r, int n, int flags, int t) {
  trial T;
  T.js = tl_random_json(r, n, flags);
  T.g = tl_graph(T.js);
  T.order = rc_order_for(T.g, r, t);
  T.ctx = with_order(T.js, T.g, T.order);
  return T;
}

static void trial_close(trial *T) {
  free(T->ctx);
  free(T->order);
  mp_graph_destroy(T->g);
  free(T->js);
}

/* ---- the stage decisions ---- */

START_TEST(keepall_stages_decode) {
  mp_rng r;
  mp_rng_seed(&r, 7101);
  for (int t = 0; t < tl_trials(150); t++) {
    char *js = tl_random_json(&r, 1 + t % 12, TL_ALL);
    mp_graph *g = tl_graph(js);
    int *order = rc_order_for(g, &r, t);
    rs_model m;
    rs_model_init(&m, g, order);
    rs_dec d;
    rs_dec_init(&m, &d);
    mp_events keep, back;
    mp_events_init(&keep);
    mp_events_init(&back);
    mp_events_from_order(g, order, &keep);
    ck_assert_msg(rs_project(&m, &keep, &d) == 0, "keep-all plan has no stage decisions\n%s", js);
    ck_assert_msg(rs_cost(&m, &d) == mp_events_duration_floor(g), "reruns in keep-all\n%s", js);
    rs_decode(&m, &d, &back);
    mp_error err;
    ck_assert_msg(mp_events_verify(g, &back, 0, NULL, &err) == 0, "%s\n%s", err.msg, js);
    ck_assert_int_eq(mp_events_memory(g, &back, NULL), mp_events_memory(g, &keep, NULL));
    ck_assert_int_eq(rm_peak(&m, &d, order), mp_order_peak(g, order));
    mp_events_destroy(&keep);
    mp_events_destroy(&back);
    rs_dec_destroy(&d);
    rs_model_destroy(&m);
    free(order);
    mp_graph_destroy(g);
    free(js);
  }
  tl_cleanup();
}
END_TEST

/* The greedy incumbent: decisions that decode to valid plans within budget,
 * whose stage peaks say what the judge says. */
START_TEST(greedy_plans_fit) {
  mp_rng r;
  mp_rng_seed(&r, 7107);
  int found = 0, trials = tl_trials(150);
  for (int t = 0; t < trials; t++) {
    trial T = trial_open(&r, 2 + t % 10, TL_ALL, t);
    mp_graph *g = T.g;
    const int *order = T.order;
    const char *ctx = T.ctx;
    rs_model m;
    rs_model_init(&m, g, order);
    rs_dec d;
    rs_dec_init(&m, &d);
    mp_events ev;
    mp_events_init(&ev);
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
    int64_t *peak = malloc(sizeof(int64_t) * ((size_t)m.n_pos + 1));
    int *at = malloc(sizeof(int) * ((size_t)m.n_pos + 1));
    for (int64_t b = keep; b >= floor; b -= 1 + (keep - floor) / 4) {
      if (rs_greedy(&m, b, NULL, &d)) continue;
      rs_decode(&m, &d, &ev);
      judged(g, &ev, order, b, 0, "greedy", ctx);
      rs_stage_peaks(&m, &d, peak, at);
      int64_t top = 0;
      for (int s = 0; s <= m.n_pos; s++) top = peak[s] > top ? peak[s] : top;
      ck_assert_msg(top == mp_events_memory(g, &ev, NULL), "stage peaks %lld, judge %lld\n%s",
                    (long long)top, (long long)mp_events_memory(g, &ev, NULL), ctx);
      found++;
    }
    free(peak);
    free(at);
    mp_events_destroy(&ev);
    rs_dec_destroy(&d);
    rs_model_destroy(&m);
    trial_close(&T);
  }
  ck_assert_int_gt(found, trials);
  tl_cleanup();
}
END_TEST

/* rs_greedy on g in its given order at budget: its decisions consistent,
 * decoding to a judged plan within budget; the reruns (R[t][k], k < t) as
 * "t:k .." into out (positions: the non-input nodes in order); the cost. */
static double greedy_by_hand(mp_graph *g, int64_t budget, char *out, size_t cap) {
  rs_model m;
  rs_model_init(&m, g, g->given);
  rs_dec d;
  rs_dec_init(&m, &d);
  ck_assert_int_eq(rs_greedy(&m, budget, NULL, &d), 0);
  mp_events ev;
  mp_events_init(&ev);
  rs_decode(&m, &d, &ev);
  judged(g, &ev, g->given, budget, 0, "greedy", "by hand");
  size_t n = 0;
  out[0] = 0;
  for (int t = 0; t <= m.n_pos; t++)
    for (int k = 0; k < t && k < m.n_pos && n + 16 < cap; k++)
      if (*rs_R(&d, t, k)) n += (size_t)snprintf(out + n, cap - n, "%s%d:%d", n ? " " : "", t, k);
  double cost = rs_cost(&m, &d);
  mp_events_destroy(&ev);
  rs_dec_destroy(&d);
  rs_model_destroy(&m);
  return cost;
}

/* A tie on the rate keeps the first drop tried (lower buffer id): A and B
 * (2 bytes, cost 1, positions 0 and 1) read the input x; K (3 bytes,
 * position 2) reads x, G reads K, F reads A, B and x (a rerun in F's
 * stage reads x: the stage shape keeps an input only to its last reader's
 * first run).  Budget 6: keeping all takes x + A + B + K = 8 at K's stage.
 * Dropping A or B until F costs one rerun in F's stage (4) and brings K's
 * and G's stages to 6: the same rate (1 per 2 bytes) and the same progress
 * (no stage over budget), so A, tried first, is dropped and reruns in
 * stage 4. */
START_TEST(greedy_tie_keeps_the_first) {
  mp_graph *g = tl_graph("{\"name\":\"greedy_tie\",\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
                         "{\"id\":1,\"size\":2,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":2,\"size\":2,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":3,\"size\":3,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":4,\"size\":0,\"inputs\":[3],\"cost\":1},"
                         "{\"id\":5,\"size\":0,\"inputs\":[1,2,0],\"cost\":1}]}");
  char got[256];
  double cost = greedy_by_hand(g, 6, got, sizeof got);
  ck_assert_msg(!strcmp(got, "4:0") && near(cost, 6), "greedy: reruns %s, cost %g (want 4:0, 6)", got, cost);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* A drop starts after the last use at or before the stage it is tried
 * for: A (2 bytes, cost 0: a view-like op, position 0) and E (2, cost 1,
 * position 1) read x; D (1, position 2) reads A; K (3, position 3) reads
 * x; G reads K, F reads A, D, E and x.  Budget 7: keeping all takes x + A
 * + E + D + K = 9 at K's stage (3).  Dropped from the start of stage 3
 * (after D's read, its last use before stage 3), A reruns once, in F's
 * stage (5), for nothing: (0 + 1e-9) per 2 bytes, below E's 1 per 2 bytes
 * and D's 1 per byte.  Dropped instead from after its own run, A would
 * also rerun in D's stage (2) at the same cost: the same rate and the same
 * progress, so only the rule tells the two apart; the plan is one rerun,
 * in stage 5. */
START_TEST(greedy_drop_after_the_last_use) {
  mp_graph *g = tl_graph("{\"name\":\"greedy_last_use\",\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
                         "{\"id\":1,\"size\":2,\"inputs\":[0],\"cost\":0},"
                         "{\"id\":2,\"size\":2,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":3,\"size\":1,\"inputs\":[1],\"cost\":1},"
                         "{\"id\":4,\"size\":3,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":5,\"size\":0,\"inputs\":[4],\"cost\":1},"
                         "{\"id\":6,\"size\":0,\"inputs\":[1,3,2,0],\"cost\":1}]}");
  char got[256];
  double cost = greedy_by_hand(g, 7, got, sizeof got);
  ck_assert_msg(!strcmp(got, "5:0") && near(cost, 5), "greedy: reruns %s, cost %g (want 5:0, 5)", got, cost);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* Each round works at the *first* stage over the budget: A (2 bytes,
 * cost 3, position 0) is read by F at the end; C (1 byte, cost 1,
 * position 1) by H (4); D (1 byte, cost 1, position 5) by F (8); KE and
 * KL (3 bytes, positions 2 and 6) by GE (3) and GL (7).  Budget 5:
 * keeping all takes A + C + KE = 6 at stages 2-3 and A + D + KL = 6 at
 * 6-7.  Round 1 at stage 2: C, rerun for H in stage 4, frees the byte for
 * 1 per byte; A, rerun for F in stage 8, frees it at both places for 3.
 * Round 2 at stage 6: D, rerun in stage 8, for 1 per byte.  Reruns 4:1
 * and 8:5, cost 11 + 2.  Working from the last stage over the budget
 * instead, D alone would leave stage 3 over it (no progress by that
 * measure) and A would be dropped: 8:0, cost 11 + 3. */
START_TEST(greedy_first_stage_over_budget) {
  mp_graph *g = tl_graph("{\"name\":\"greedy_first_stage\",\"nodes\":["
                         "{\"id\":0,\"size\":2,\"inputs\":[],\"cost\":3},"
                         "{\"id\":1,\"size\":1,\"inputs\":[],\"cost\":1},"
                         "{\"id\":2,\"size\":3,\"inputs\":[],\"cost\":1},"
                         "{\"id\":3,\"size\":0,\"inputs\":[2],\"cost\":1},"
                         "{\"id\":4,\"size\":0,\"inputs\":[1],\"cost\":1},"
                         "{\"id\":5,\"size\":1,\"inputs\":[],\"cost\":1},"
                         "{\"id\":6,\"size\":3,\"inputs\":[],\"cost\":1},"
                         "{\"id\":7,\"size\":0,\"inputs\":[6],\"cost\":1},"
                         "{\"id\":8,\"size\":0,\"inputs\":[0,5],\"cost\":1}]}");
  char got[256];
  double cost = greedy_by_hand(g, 5, got, sizeof got);
  ck_assert_msg(!strcmp(got, "4:1 8:5") && near(cost, 13), "greedy: reruns %s, cost %g (want 4:1 8:5, 13)",
                got, cost);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* The undo pass keeps again only what costs less: A (2 bytes, cost 0,
 * position 0), B (3, cost 1) and C (1, cost 2) read x; K (3 bytes,
 * position 3) reads x, G reads K, F reads A, B, C and x.  Budget 7:
 * keeping all takes 10 at K's stage (3).  Round 1: A (0 + 1e-9 per 2
 * bytes) before B (1 per 3) and C (2 per byte): 8.  Round 2: B (1 per
 * byte) before C (2 per byte): 5, within budget.  Undo, latest first: B
 * kept again would take 8, over; A kept again fits (7 at stages 3 to 5)
 * but its rerun costs nothing, so the plan costs no less: A stays
 * dropped.  Reruns of A and B in F's stage (5), cost 6 + 1. */
START_TEST(greedy_undo_only_when_cheaper) {
  mp_graph *g = tl_graph("{\"name\":\"greedy_undo\",\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
                         "{\"id\":1,\"size\":2,\"inputs\":[0],\"cost\":0},"
                         "{\"id\":2,\"size\":3,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":3,\"size\":1,\"inputs\":[0],\"cost\":2},"
                         "{\"id\":4,\"size\":3,\"inputs\":[0],\"cost\":1},"
                         "{\"id\":5,\"size\":0,\"inputs\":[4],\"cost\":1},"
                         "{\"id\":6,\"size\":0,\"inputs\":[1,2,3,0],\"cost\":1}]}");
  char got[256];
  double cost = greedy_by_hand(g, 7, got, sizeof got);
  ck_assert_msg(!strcmp(got, "5:0 5:1") && near(cost, 7), "greedy: reruns %s, cost %g (want 5:0 5:1, 7)", got,
                cost);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- remat-ilp against the brute force ---- */

typedef struct tally {
  int runs, optimal, shape_only, infeasible, none, none_fits, recomputing;
} tally;

/* One budget: remat-ilp's claims against the optimum (rb). */
static void check_ilp(const mp_graph *g, const int *order, int64_t b, const char *const *sets,
                      const char *js, tally *ty) {
  mp_events ev;
  mp_events_init(&ev);
  mp_ctx c;
  double best = -1;
  int rb = rb_optimum(g, b, order, 400000, &best, NULL);
  ck_assert_msg(rb != RB_TOO_BIG, "brute force too big\n%s", js);
  int rc = tl_solve_events("remat-ilp", g, order, b, 0, sets, 1, &c, &ev);
  ty->runs++;
  if (rc != 0) {
    ck_assert_msg(ev.n == 0, "no plan but events\n%s", js);
    ty->none++;
    ty->none_fits += rb == RB_FOUND;
  } else if (c.status == MP_INFEASIBLE) {
    ck_assert_msg(rb == RB_INFEASIBLE, "infeasible at %lld, but the optimum is %g\n%s", (long long)b,
                  best, js);
    ty->infeasible++;
  } else {
    ck_assert_msg(rb == RB_FOUND, "a plan where none exists\n%s", js);
    double d = judged(g, &ev, order, b, 0, "remat-ilp", js);
    ck_assert_msg(d >= best - 1e-9, "remat-ilp %g beats the optimum %g\n%s", d, best, js);
    if (c.status == MP_OPTIMAL) {
      ck_assert_msg(near(d, best), "remat-ilp optimal at %g, the optimum is %g (budget %lld)\n%s", d,
                    best, (long long)b, js);
      ty->optimal++;
    } else {
      ty->shape_only += near(d, best) ? 0 : 1;
    }
    ty->recomputing += d > mp_events_duration_floor(g) + 1e-9;
  }
  if (rb == RB_FOUND)
    ck_assert_msg(c.duration_bound <= best + 1e-6, "duration bound %g above the optimum %g\n%s",
                  c.duration_bound, best, js);
  mp_events_destroy(&ev);
}

START_TEST(ilp_against_brute_force) {
  mp_rng r;
  mp_rng_seed(&r, 7102);
  tally ty = {0};
  int trials = tl_trials(200);
  for (int t = 0; t < trials; t++) {
    trial T = trial_open(&r, 2 + t % 8, TL_ALL, t);
    mp_graph *g = T.g;
    const int *order = T.order;
    const char *ctx = T.ctx;
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
    for (int64_t b = keep; b >= floor - 1; b -= 1 + (keep - floor) / 4) check_ilp(g, order, b, NULL, ctx, &ty);
    trial_close(&T);
  }
  if (tl_verbose())
    fprintf(stderr, "ilp: runs %d optimal %d shape_only %d infeasible %d none %d (fits %d) recomputing %d\n", ty.runs, ty.optimal, ty.shape_only, ty.infeasible, ty.none, ty.none_fits, ty.recomputing);
  ck_assert_msg(ty.optimal > ty.runs / 3 && ty.recomputing > trials / 10 && ty.infeasible > trials / 20,
                "runs %d optimal %d recomputing %d infeasible %d", ty.runs, ty.optimal,
                ty.recomputing, ty.infeasible);
  tl_cleanup();
}
END_TEST

/* The cost unit the solvers round their duration bounds up to: the gcd of
 * the integral costs (0 costs and the inputs aside), 0 once a cost is
 * fractional; and rs_bound_up rounds up to it, within a tolerance, or
 * lowers a little without one. */
static double unit_of(const char *costs) {
  char js[1024];
  int len = snprintf(js, sizeof js, "{\"name\":\"u\",\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":1,\"cost\":7,\"inputs\":[]}");
  char buf[256];
  snprintf(buf, sizeof buf, "%s", costs);
  int id = 1;
  for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "), id++)
    len += snprintf(js + len, sizeof js - (size_t)len, ",{\"id\":%d,\"size\":1,\"cost\":%s,\"inputs\":[%d]}", id, tok, id - 1);
  snprintf(js + len, sizeof js - (size_t)len, "]}");
  mp_graph *g = tl_graph(js);
  rs_model m;
  rs_model_init(&m, g, g->given);
  double u = rs_cost_unit(&m);
  rs_model_destroy(&m);
  mp_graph_destroy(g);
  return u;
}

START_TEST(cost_unit_and_bound_up) {
  ck_assert(unit_of("4 6 10") == 2);
  ck_assert(unit_of("12 0 18") == 6);
  ck_assert(unit_of("5") == 5);
  ck_assert(unit_of("4 1.5 6") == 0);
  ck_assert(unit_of("0 0") == 0);
  ck_assert(rs_bound_up(6.3, 2) == 8);
  ck_assert(rs_bound_up(6 + 1e-9, 2) == 6); /* solver noise above a multiple */
  ck_assert(rs_bound_up(6, 0) < 6 && rs_bound_up(6, 0) > 6 - 1e-6);
  ck_assert(isinf(rs_bound_up(INFINITY, 2)));
}
END_TEST

/* ---- remat-exact against both brute forces ---- */

static void check_exact(const mp_graph *g, const int *order, int64_t b, double bw, const char *js,
                        int *found, int *infeasible) {
  mp_events ev;
  mp_events_init(&ev);
  mp_ctx c;
  double best = -1;
  int rb = bw > 0 ? rb_optimum_copies(g, b, order, bw, 300000, &best, NULL)
                  : rb_optimum(g, b, order, 400000, &best, NULL);
  if (rb == RB_TOO_BIG) {
    mp_events_destroy(&ev);
    return;
  }
  int rc = tl_solve_events("remat-exact", g, order, b, bw, NULL, 1, &c, &ev);
  ck_assert_msg(rc == 0, "remat-exact gave no answer at %lld (bw %g): %s\n%s", (long long)b, bw,
                c.msg, js);
  if (rb == RB_INFEASIBLE) {
    ck_assert_msg(c.status == MP_INFEASIBLE, "remat-exact %s where nothing fits (%lld, bw %g)\n%s",
                  mp_status_name(c.status), (long long)b, bw, js);
    ++*infeasible;
  } else {
    ck_assert_msg(c.status == MP_OPTIMAL, "remat-exact %s (%s) where the optimum is %g\n%s",
                  mp_status_name(c.status), c.msg, best, js);
    double d = judged(g, &ev, order, b, bw, "remat-exact", js);
    ck_assert_msg(near(d, best), "remat-exact %.17g, the optimum %.17g (budget %lld, bw %g)\n%s", d,
                  best, (long long)b, bw, js);
    ck_assert_msg(near(c.duration_bound, best), "bound %g, optimum %g\n%s", c.duration_bound, best, js);
    ++*found;
  }
  mp_events_destroy(&ev);
}

START_TEST(exact_against_brute_force) {
  mp_rng r;
  mp_rng_seed(&r, 7103);
  int found = 0, infeasible = 0, trials = tl_trials(200);
  for (int t = 0; t < trials; t++) {
    /* every third graph of few-byte sizes, at every budget: states reached
     * by several event sequences, budgets one byte from a boundary */
    bool small = t % 3 == 2;
    trial T = trial_open(&r, 2 + t % 8, TL_ALL | (small ? TL_SMALL : 0), t);
    mp_graph *g = T.g;
    const int *order = T.order;
    const char *ctx = T.ctx;
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
    for (int64_t b = keep; b >= floor - 1; b -= small ? 1 : 1 + (keep - floor) / 4)
      check_exact(g, order, b, 0, ctx, &found, &infeasible);
    trial_close(&T);
  }
  ck_assert_msg(found > trials / 2 && infeasible > trials / 4, "found %d infeasible %d", found, infeasible);
  tl_cleanup();
}
END_TEST

START_TEST(exact_with_copies) {
  mp_rng r;
  mp_rng_seed(&r, 7104);
  int found = 0, infeasible = 0, trials = tl_trials(80);
  for (int t = 0; t < trials; t++) {
    trial T = trial_open(&r, 2 + t % 5, TL_ALL, t);
    mp_graph *g = T.g;
    const int *order = T.order;
    const char *ctx = T.ctx;
    double bw = (double)(200 + mp_rng_below(&r, 4000));
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
    for (int64_t b = keep; b >= floor - 1; b -= 1 + (keep - floor) / 3)
      check_exact(g, order, b, bw, ctx, &found, &infeasible);
    trial_close(&T);
  }
  ck_assert_msg(found > trials / 2 && infeasible > trials / 8, "found %d infeasible %d", found, infeasible);
  tl_cleanup();
}
END_TEST

/* ---- remat-lp, the explicit formulation, determinism ---- */

/* One remat-lp run against the brute-force optimum `best` (rb: its
 * outcome): its bound never above the optimum, its plan never below it,
 * `optimal` exactly at the optimum, `infeasible` only where nothing fits,
 * and a plan that meets its own bound called optimal.  1 when it gave a
 * plan. */
static int check_lp(const mp_graph *g, const int *order, int64_t b, double bw, const char *const *sets,
                    int rb, double best, const char *ctx) {
  mp_ctx c;
  mp_events ev;
  mp_events_init(&ev);
  int rc = tl_solve_events("remat-lp", g, order, b, bw, sets, 1, &c, &ev), plan = 0;
  const char *how = sets ? sets[0] : "whole";
  if (rb == RB_FOUND)
    ck_assert_msg(c.duration_bound <= best + 1e-6, "%s, bw %g: bound %g > optimum %g\n%s", how, bw,
                  c.duration_bound, best, ctx);
  if (rc == 0 && c.status == MP_INFEASIBLE) {
    ck_assert_msg(rb == RB_INFEASIBLE, "remat-lp (%s): infeasible where %g fits\n%s", how, best, ctx);
  } else if (rc == 0) {
    double d = judged(g, &ev, order, b, bw, "remat-lp", ctx);
    ck_assert_msg(rb == RB_FOUND && d >= best - 1e-9, "remat-lp (%s) %g beats the optimum %g\n%s", how,
                  d, best, ctx);
    if (c.status == MP_OPTIMAL)
      ck_assert_msg(near(d, best), "remat-lp (%s) optimal at %g, not %g\n%s", how, d, best, ctx);
    if (near(d, c.duration_bound) && c.status != MP_TIMEOUT)
      ck_assert_msg(c.status == MP_OPTIMAL, "remat-lp (%s) %s at its own bound %g\n%s", how,
                    mp_status_name(c.status), d, ctx);
    plan = 1;
  }
  mp_events_destroy(&ev);
  return plan;
}

/* remat-lp against brute force: on the whole graph, and on a contraction
 * into two segments (whose own bound holds for it alone: the bound it
 * reports must still hold for every plan of the graph); every third graph
 * of few-byte sizes; with a host link, its bound is not one of plans
 * without copies. */
START_TEST(lp_never_beats_the_optimum) {
  mp_rng r;
  mp_rng_seed(&r, 7105);
  static const char *const contracted[] = {"contract_above=1", "segments=2", NULL};
  int plans = 0, trials = tl_trials(120);
  for (int t = 0; t < trials; t++) {
    trial T = trial_open(&r, 2 + t % 8, TL_ALL | (t % 3 == 2 ? TL_SMALL : 0), t);
    mp_graph *g = T.g;
    const int *order = T.order;
    const char *ctx = T.ctx;
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
    for (int64_t b = keep; b >= floor - 1; b -= 1 + (keep - floor) / 4) {
      double best = -1;
      int rb = rb_optimum(g, b, order, 400000, &best, NULL);
      plans += check_lp(g, order, b, 0, NULL, rb, best, ctx);
      check_lp(g, order, b, 0, contracted, rb, best, ctx);
      if (t % 4 == 0 && g->n <= 6) {
        double bw = 500, copies = -1;
        int rbc = rb_optimum_copies(g, b, order, bw, 300000, &copies, NULL);
        if (rbc != RB_TOO_BIG) {
          check_lp(g, order, b, bw, NULL, rbc, copies, ctx);
          check_lp(g, order, b, bw, contracted, rbc, copies, ctx);
        }
      }
    }
    trial_close(&T);
  }
  ck_assert_int_gt(plans, trials * 3 / 4);
  tl_cleanup();
}
END_TEST

/* Checkmate's explicit FREE/U rows and the lazy rerun rows give the same
 * stage-shape optimum. */
START_TEST(explicit_and_lazy_agree) {
  static const char *const lazy[] = {"proof=0", NULL}, *const expl[] = {"proof=0", "explicit=1", NULL};
  mp_rng r;
  mp_rng_seed(&r, 7106);
  int compared = 0, trials = tl_trials(120);
  for (int t = 0; t < trials; t++) {
    trial T = trial_open(&r, 3 + t % 7, TL_ALL, t);
    mp_graph *g = T.g;
    const int *order = T.order;
    const char *ctx = T.ctx;
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
    mp_events e1, e2;
    mp_events_init(&e1);
    mp_events_init(&e2);
    for (int64_t b = keep - 1; b >= floor; b -= 1 + (keep - floor) / 3) {
      mp_ctx c1, c2;
      int r1 = tl_solve_events("remat-ilp", g, order, b, 0, lazy, 1, &c1, &e1);
      int r2 = tl_solve_events("remat-ilp", g, order, b, 0, expl, 1, &c2, &e2);
      bool p1 = r1 == 0 && (c1.status == MP_OPTIMAL || strstr(c1.msg, "within Checkmate's stage"));
      bool p2 = r2 == 0 && (c2.status == MP_OPTIMAL || strstr(c2.msg, "within Checkmate's stage"));
      ck_assert_msg(p1 == p2 || r1 != 0 || r2 != 0, "lazy %d/%s, explicit %d/%s\n%s", r1, c1.msg, r2,
                    c2.msg, ctx);
      if (!p1 || !p2) continue;
      double d1 = judged(g, &e1, order, b, 0, "lazy", ctx), d2 = judged(g, &e2, order, b, 0, "explicit", ctx);
      ck_assert_msg(near(d1, d2), "lazy %g, explicit %g at %lld\n%s", d1, d2, (long long)b, ctx);
      compared += d1 > mp_events_duration_floor(g);
    }
    mp_events_destroy(&e1);
    mp_events_destroy(&e2);
    trial_close(&T);
  }
  ck_assert_int_gt(compared, trials / 12);
  tl_cleanup();
}
END_TEST

/* A graph (found among 3,000 random ones) where the lazy rerun rows must
 * take only users after the run k as a buffer's later need: rows that took
 * one run before k too (a mutant of best_need in lib/remat_cuts.c) cut the
 * stage plan of duration 7 off and found 8; the explicit rows find 7. */
START_TEST(lazy_need_after_the_run) {
  static const char *const lazy[] = {"proof=0", NULL}, *const expl[] = {"proof=0", "explicit=1", NULL};
  mp_graph *g = tl_graph(
      "{\"name\":\"need\",\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":0,\"inputs\":[]},"
      "{\"id\":1,\"size\":2504,\"inputs\":[0],\"workspace\":255},{\"id\":2,\"size\":2147,\"inputs\":[1]},"
      "{\"id\":3,\"size\":1680,\"inputs\":[0,0,2]},"
      "{\"id\":4,\"op\":\"relu_\",\"size\":2449,\"inputs\":[1,1,2],\"alias\":1,\"inplace\":true},"
      "{\"id\":5,\"size\":1433,\"inputs\":[2,1]},"
      "{\"id\":6,\"size\":723,\"inputs\":[4,0,0],\"alias\":-1,\"workspace\":45},"
      "{\"id\":7,\"size\":3300,\"inputs\":[5]}]}");
  static const int order[] = {0, 1, 2, 3, 4, 5, 7, 6};
  mp_events e1, e2;
  mp_events_init(&e1);
  mp_events_init(&e2);
  mp_ctx c1, c2;
  ck_assert_int_eq(tl_solve_events("remat-ilp", g, order, 7971, 0, lazy, 1, &c1, &e1), 0);
  ck_assert_int_eq(tl_solve_events("remat-ilp", g, order, 7971, 0, expl, 1, &c2, &e2), 0);
  double d1 = judged(g, &e1, order, 7971, 0, "lazy", "need"), d2 = judged(g, &e2, order, 7971, 0, "explicit", "need");
  ck_assert_msg(near(d2, 7) && near(d1, d2), "lazy %g, explicit %g: %s", d1, d2, c1.msg);
  mp_events_destroy(&e1);
  mp_events_destroy(&e2);
  mp_graph_destroy(g);
}
END_TEST

/* The proof's model RM_BOUND (every plan without copies) with lazy rerun
 * rows and with Checkmate's explicit Keep/K rows: the same claims and the
 * same duration bound (the proof ends on these sizes; the bound is the
 * plan's duration when it meets it, else RM_BOUND's optimum), on graphs of
 * few-byte sizes too, at budgets down to one byte below the floor. */
START_TEST(bound_explicit_and_lazy_agree) {
  static const char *const lazy[] = {"proof=1", NULL}, *const expl[] = {"proof=1", "explicit=1", NULL};
  mp_rng r;
  mp_rng_seed(&r, 7108);
  int above_floor = 0, infeasible = 0, trials = tl_trials(100);
  for (int t = 0; t < trials; t++) {
    trial T = trial_open(&r, 3 + t % 6, TL_ALL | (t % 2 ? TL_SMALL : 0), t);
    mp_graph *g = T.g;
    const int *order = T.order;
    const char *ctx = T.ctx;
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
    double dfloor = mp_events_duration_floor(g);
    mp_events e1, e2;
    mp_events_init(&e1);
    mp_events_init(&e2);
    for (int64_t b = keep - 1; b >= floor - 1; b -= 1 + (keep - floor) / 4) {
      mp_ctx c1, c2;
      int r1 = tl_solve_events("remat-ilp", g, order, b, 0, lazy, 1, &c1, &e1);
      int r2 = tl_solve_events("remat-ilp", g, order, b, 0, expl, 1, &c2, &e2);
      ck_assert_msg((c1.status == MP_INFEASIBLE) == (c2.status == MP_INFEASIBLE),
                    "budget %lld: lazy %d/%s (%s), explicit %d/%s (%s)\n%s", (long long)b, r1,
                    mp_status_name(c1.status), c1.msg, r2, mp_status_name(c2.status), c2.msg, ctx);
      infeasible += c1.status == MP_INFEASIBLE;
      if (c1.status == MP_INFEASIBLE) continue;
      ck_assert_msg(near(c1.duration_bound, c2.duration_bound), "budget %lld: bound lazy %.17g, explicit %.17g\n%s",
                    (long long)b, c1.duration_bound, c2.duration_bound, ctx);
      above_floor += c1.duration_bound > dfloor + 1e-9;
    }
    mp_events_destroy(&e1);
    mp_events_destroy(&e2);
    trial_close(&T);
  }
  if (tl_verbose()) fprintf(stderr, "bound: above the floor %d, infeasible %d\n", above_floor, infeasible);
  ck_assert_msg(above_floor > trials / 10 && infeasible > trials / 20, "bounds above the floor %d, infeasible %d",
                above_floor, infeasible);
  tl_cleanup();
}
END_TEST

/* x -> a1 .. ak -> gk .. g1 (the activations saved for a backward pass),
 * sizes and costs 1: known optima. */
static mp_graph *training_chain(int k) {
  char js[4096];
  int len = snprintf(js, sizeof js, "{\"name\":\"chain\",\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]}");
  for (int i = 1; i <= k; i++)
    len += snprintf(js + len, sizeof js - (size_t)len, ",{\"id\":%d,\"size\":1,\"inputs\":[%d]}", i, i - 1);
  len += snprintf(js + len, sizeof js - (size_t)len, ",{\"id\":%d,\"size\":1,\"inputs\":[%d]}", k + 1, k);
  for (int i = k - 1; i >= 1; i--)
    len += snprintf(js + len, sizeof js - (size_t)len, ",{\"id\":%d,\"size\":1,\"inputs\":[%d,%d]}",
                    2 * k + 1 - i, 2 * k - i, i);
  snprintf(js + len, sizeof js - (size_t)len, "]}");
  return tl_graph(js);
}

START_TEST(chains_and_determinism) {
  static const char *const solvers[] = {"remat-ilp", "remat-lp", "remat-exact"};
  struct { int k; int64_t budget; double duration; } t[] = {{4, 4, 9}, {5, 4, 13}, {6, 5, 14}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    mp_graph *g = training_chain(t[i].k);
    for (size_t s = 0; s < 3; s++) {
      mp_events a, b;
      mp_events_init(&a);
      mp_events_init(&b);
      mp_ctx c;
      ck_assert_int_eq(tl_solve_events(solvers[s], g, g->given, t[i].budget, 0, NULL, 7, &c, &a), 0);
      double d = judged(g, &a, g->given, t[i].budget, 0, solvers[s], "chain");
      ck_assert_msg(d >= t[i].duration, "%s %g on chain %d", solvers[s], d, t[i].k);
      if (s != 1) ck_assert_msg(c.status == MP_OPTIMAL && d == t[i].duration, "%s: %s %g on chain %d (%s)",
                                solvers[s], mp_status_name(c.status), d, t[i].k, c.msg);
      ck_assert_int_eq(tl_solve_events(solvers[s], g, g->given, t[i].budget, 0, NULL, 7, &c, &b), 0);
      ck_assert_msg(a.n == b.n && !memcmp(a.ev, b.ev, sizeof(mp_event) * (size_t)a.n),
                    "%s: two runs, two plans", solvers[s]);
      mp_events_destroy(&a);
      mp_events_destroy(&b);
    }
    mp_graph_destroy(g);
  }
  tl_cleanup();
}
END_TEST

/* --write-lp writes Checkmate's explicit model, which GLPK reads back with
 * one binary per rerun decision. */
START_TEST(write_lp_round_trip) {
  mp_graph *g = training_chain(5);
  char *path = tl_write_temp("", ".lp");
  const mp_solver *s = mp_solver_find("remat-ilp");
  mp_events ev;
  mp_events_init(&ev);
  mp_ctx c;
  memset(&c, 0, sizeof c);
  mp_error err;
  ck_assert_int_eq(mp_solver_options(s, 0, NULL, c.opt, &err), 0);
  c.g = g;
  c.start_order = g->given;
  c.budget = 4;
  c.events = &ev;
  c.write_lp = path;
  ck_assert_int_eq(s->solve(&c), 0);
  glp_prob *P = glp_create_prob();
  glp_term_out(GLP_OFF);
  ck_assert_int_eq(glp_read_lp(P, NULL, path), 0);
  rs_model m;
  rs_model_init(&m, g, g->given);
  int reruns = 0;
  for (int t = 0; t <= m.n_pos; t++)
    for (int k = 0; k < t && k < m.n_pos; k++) reruns += rs_may_run(&m, t, k);
  ck_assert_int_eq(glp_get_num_bin(P), reruns);
  ck_assert_int_gt(glp_get_num_rows(P), reruns);
  rs_model_destroy(&m);
  glp_delete_prob(P);
  mp_events_destroy(&ev);
  free(path);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* Trial t of the clock tests: a random tiny graph, half its nodes with a
 * cost, its keep-all peak and events floor, a host link every third trial. */
static mp_graph *clock_trial(mp_rng *r, int t, int64_t *keep, int64_t *floor, double *bw,
                             char *what, size_t cap) {
  mp_graph *g = tl_random_graph(r, 5 + t % 5, TL_ALL);
  for (int v = 0; v < g->n; v++)
    if (mp_rng_below(r, 2) && !g->nodes[v].is_input) g->nodes[v].cost = (double)(1 + mp_rng_below(r, 30)) / 10;
  *keep = mp_order_peak(g, g->given);
  *floor = mp_events_floor(g);
  *bw = t % 3 == 2 ? 1500 : 0;
  snprintf(what, cap, "trial %d (%d nodes)", t, g->n);
  return g;
}

/* The time limit is no answer.  remat-ilp at 0.12 s on a 121-node chain
 * at its floor budget found its stage MILP infeasible, and the clock then
 * cut the proof that no plan fits: it said "no plan" (status error) in one
 * run and `infeasible` in the next; a stage-shape optimum whose bound for
 * every plan the clock cut said `feasible`.  remat-ilp and remat-lp with
 * their deadline passed at every reading of the clock (tests/remat_clock.h)
 * on random tiny graphs from the floor up, with and without a link, say
 * `timeout` or what the run never cut says; those uncut answers include
 * remat-ilp's proofs beyond the floor (no plan fits, an optimum) and plans
 * its proof does not meet. */
START_TEST(deadline_at_every_reading) {
  static const char *const solvers[] = {"remat-ilp", "remat-lp"};
  mp_rng r;
  mp_rng_seed(&r, 1519);
  int proofs = 0, optimal = 0, unproved = 0, timeouts = 0;
  int trials = tl_trials(16) > 6 ? tl_trials(16) : 6; /* 6: every kind of answer below */
  for (int t = 0; t < trials; t++) {
    int64_t keep, floor;
    double bw;
    char what[64];
    mp_graph *g = clock_trial(&r, t, &keep, &floor, &bw, what, sizeof what);
    for (int i = 0; i < 3; i++) {
      int64_t b = floor + (keep - floor) * i / 3;
      for (int k = 0; k < 2; k++) {
        const mp_solver *s = mp_solver_find(solvers[k]);
        rc_answer a;
        rc_run_clocked(s, NULL, g, g->given, b, bw, -1, &a);
        if (k == 0) {
          proofs += a.status == MP_INFEASIBLE && b >= floor;
          optimal += a.status == MP_OPTIMAL && a.duration > mp_events_duration_floor(g) + 1e-9;
          unproved += a.rc == 0 && a.status == MP_FEASIBLE;
        }
        rc_answer_destroy(&a);
        timeouts += rc_cut_everywhere(s, NULL, g, g->given, b, bw, 1000, what);
      }
    }
    mp_graph_destroy(g);
  }
  if (tl_verbose())
    printf("remat_milp clock cuts: %d infeasible, %d optimal above the floor, %d feasible; %d timeouts\n",
           proofs, optimal, unproved, timeouts);
  ck_assert_msg(proofs > 0 && optimal > 0 && unproved > 0 && timeouts > 0,
                "infeasible %d, optimal %d, feasible %d, timeouts %d", proofs, optimal, unproved, timeouts);
  tl_cleanup();
}
END_TEST

/* A search given up because the time left looked too short for it is cut,
 * though the clock has not run out.  remat-lp (07baf14) said "no plan"
 * (status error) when its bound's LP was given up so (rm_no_time, GLPK's
 * tm_lim less a reserve) after the stage LP under the budget had no
 * solution: the run never cut proves that no plan fits.  remat-ilp and
 * remat-lp with the clock standing still just short of their deadline
 * from every reading on (rc_near_everywhere), on random tiny graphs from
 * the floor up, with and without a link, say `timeout` or what the run
 * never cut says. */
START_TEST(deadline_near_at_every_reading) {
  static const char *const solvers[] = {"remat-ilp", "remat-lp"};
  /* quick, and on a contraction of the order (rc_solve, then the bound on
   * the whole graph) */
  static const char *const sets[2][2][4] = {{{"rounds=4", NULL}, {"rounds=4", "contract_above=3", "segments=2", NULL}},
                                            {{"rounds=10", NULL}, {"rounds=10", "contract_above=3", "segments=2", NULL}}};
  mp_rng r;
  mp_rng_seed(&r, 2207);
  int timeouts[2] = {0, 0};
  int trials = tl_trials(16) > 6 ? tl_trials(16) : 6;
  for (int t = 0; t < trials; t++) {
    int64_t keep, floor;
    double bw;
    char what[64];
    mp_graph *g = clock_trial(&r, t, &keep, &floor, &bw, what, sizeof what);
    for (int i = 0; i < 3; i++) {
      int64_t b = floor + (keep - floor) * i / 3;
      for (int k = 0; k < 2; k++)
        for (int v = 0; v < 2; v++)
          timeouts[k] += rc_near_everywhere(mp_solver_find(solvers[k]), sets[k][v], g, g->given, b, bw, 1000, what);
    }
    mp_graph_destroy(g);
  }
  if (tl_verbose()) printf("remat_milp near the deadline: %d, %d timeouts\n", timeouts[0], timeouts[1]);
  ck_assert_msg(timeouts[0] > 0 && timeouts[1] > 0, "timeouts: remat-ilp %d, remat-lp %d", timeouts[0], timeouts[1]);
  tl_cleanup();
}
END_TEST

Suite *suite_remat_milp(void) {
  Suite *s = suite_create("remat_milp");
  TCase *tc = tcase_create("remat_milp");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, keepall_stages_decode);
  tcase_add_test(tc, greedy_plans_fit);
  tcase_add_test(tc, ilp_against_brute_force);
  tcase_add_test(tc, exact_against_brute_force);
  tcase_add_test(tc, exact_with_copies);
  tcase_add_test(tc, lp_never_beats_the_optimum);
  tcase_add_test(tc, cost_unit_and_bound_up);
  tcase_add_test(tc, explicit_and_lazy_agree);
  tcase_add_test(tc, lazy_need_after_the_run);
  tcase_add_test(tc, bound_explicit_and_lazy_agree);
  tcase_add_test(tc, chains_and_determinism);
  tcase_add_test(tc, write_lp_round_trip);
  tcase_add_test(tc, deadline_at_every_reading);
  tcase_add_test(tc, deadline_near_at_every_reading);
  suite_add_tcase(s, tc);
  TCase *hand = tcase_create("remat_milp_hand"); /* rs_greedy's choices, by hand */
  tcase_add_test(hand, greedy_tie_keeps_the_first);
  tcase_add_test(hand, greedy_drop_after_the_last_use);
  tcase_add_test(hand, greedy_undo_only_when_cheaper);
  tcase_add_test(hand, greedy_first_stage_over_budget);
  suite_add_tcase(s, hand);
  return s;
}
