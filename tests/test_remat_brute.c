/* test_remat_brute.c - the brute-force optimum of DESIGN 6.3's problem
 * (tests/remat_brute.c) and the keepall baseline: known optima on chains,
 * plans that verify and stay within budget, agreement with every random
 * valid plan (none beats the optimum at its own peak), and keepall's
 * claims (optimal within budget, infeasible only below the floor). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "oracle.h"
#include "remat_brute.h"
#include "remat_randplan.h"
#include "testlib.h"

/* x -> a1 -> ... -> ak -> gk -> ... -> g1: gi reads g(i+1) (gk reads ak)
 * and ai's input a(i-1) (a0 = x): the activations saved for a backward
 * pass.  Sizes 1, costs 1 (the default). */
static mp_graph *training_chain(int k) {
  char js[4096];
  int len = snprintf(js, sizeof js, "{\"name\":\"chain%d\",\"nodes\":[{\"id\":0,\"op\":\"input\","
                     "\"size\":1,\"inputs\":[]}", k);
  for (int i = 1; i <= k; i++)
    len += snprintf(js + len, sizeof js - (size_t)len, ",{\"id\":%d,\"size\":1,\"inputs\":[%d]}", i, i - 1);
  len += snprintf(js + len, sizeof js - (size_t)len, ",{\"id\":%d,\"size\":1,\"inputs\":[%d]}", k + 1, k);
  for (int i = k - 1; i >= 1; i--) /* g_i = node 2k + 1 - i reads g_(i+1) and a_i */
    len += snprintf(js + len, sizeof js - (size_t)len, ",{\"id\":%d,\"size\":1,\"inputs\":[%d,%d]}",
                    2 * k + 1 - i, 2 * k - i, i);
  snprintf(js + len, sizeof js - (size_t)len, "]}");
  return tl_graph(js);
}

static void check_plan(const mp_graph *g, const mp_events *p, int64_t budget, double duration,
                       const int *order) {
  mp_error err;
  ck_assert_msg(mp_events_verify(g, p, 0, NULL, &err) == 0, "brute plan invalid: %s", err.msg);
  mp_ev_figures f;
  mp_events_evaluate(g, p, 0, budget, &f);
  ck_assert_msg(f.live_peak <= budget, "brute plan peaks at %lld > %lld", (long long)f.live_peak,
                (long long)budget);
  ck_assert_msg(fabs(f.duration - duration) <= 1e-9 * fmax(1, duration), "duration %g, brute says %g",
                f.duration, duration);
  if (order) ck_assert(mp_events_follow(g, p, order));
}

START_TEST(chains_known_optima) {
  /* 3 layers: keep-all peaks at 4 (a1 a2 a3 g3 at g3); 3 bytes cannot keep
   * what g2 and g1 need (a1, or x to recompute it) */
  struct { int k; int64_t budget; int rc; double duration; } t[] = {
      {3, 4, RB_FOUND, 6}, {3, 3, RB_INFEASIBLE, 0}, {3, 2, RB_INFEASIBLE, 0},
      /* 4 layers: keep-all peaks at 5; at 4 keep a1, drop a2 and run it
       * again from a1 before g2: one rerun */
      {4, 5, RB_FOUND, 8}, {4, 4, RB_FOUND, 9}, {4, 3, RB_INFEASIBLE, 0},
      /* 5 layers at 4: keep a1; a2, a3 again before g3, a2 once more
       * before g2: three reruns */
      {5, 6, RB_FOUND, 10}, {5, 4, RB_FOUND, 13}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    mp_graph *g = training_chain(t[i].k);
    mp_events p;
    mp_events_init(&p);
    double d = -1;
    int rc = rb_optimum(g, t[i].budget, NULL, 1000000, &d, &p);
    ck_assert_msg(rc == t[i].rc && (rc != RB_FOUND || d == t[i].duration),
                  "chain %d at %lld: rc %d duration %g, want rc %d duration %g", t[i].k,
                  (long long)t[i].budget, rc, d, t[i].rc, t[i].duration);
    if (rc == RB_FOUND) check_plan(g, &p, t[i].budget, d, g->given);
    /* the keep-all plan of the file order peaks where the table says */
    mp_events_from_order(g, g->given, &p);
    if (t[i].duration == 2 * t[i].k && rc == RB_FOUND)
      ck_assert_int_eq(mp_events_memory(g, &p, NULL), t[i].budget);
    mp_events_destroy(&p);
    mp_graph_destroy(g);
  }
  /* the 4-layer optimum at 4 bytes: only a2 runs twice */
  mp_graph *g = training_chain(4);
  mp_events p;
  mp_events_init(&p);
  double d;
  ck_assert_int_eq(rb_optimum(g, 4, NULL, 1000000, &d, &p), RB_FOUND);
  mp_ev_figures f;
  mp_events_evaluate(g, &p, 0, 4, &f);
  ck_assert(f.recomputed == 1 && f.recompute_time == 1);
  int runs_a2 = 0;
  for (int i = 0; i < p.n; i++) runs_a2 += p.ev[i].kind == MP_EV_RUN && p.ev[i].id == 2;
  ck_assert_int_eq(runs_a2, 2);
  mp_events_destroy(&p);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* The brute force against every random valid plan: none is shorter at its
 * own peak; and its own plans verify, within budget, monotone in it. */
START_TEST(brute_random_graphs) {
  mp_rng r;
  mp_rng_seed(&r, 6301);
  int trials = tl_trials(120), recomputing = 0;
  for (int t = 0; t < trials; t++) {
    int n = 2 + t % 7;
    char *js = tl_random_json(&r, n, TL_ALL);
    mp_graph *g = tl_graph(js);
    or_model om;
    or_build(g, &om);
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, g->given);
    mp_events p;
    mp_events_init(&p);
    double d;
    ck_assert_msg(rb_optimum(g, floor - 1, NULL, 200000, &d, NULL) == RB_INFEASIBLE,
                  "a plan below the floor\n%s", js);
    ck_assert_int_eq(rb_optimum(g, keep, g->given, 200000, &d, &p), RB_FOUND);
    ck_assert_msg(d == mp_events_duration_floor(g), "keep-all budget, duration %g\n%s", d, js);
    double last = -1;
    for (int64_t b = keep; b >= floor; b -= 1 + (keep - floor) / 4) {
      double dr, da;
      int rr = rb_optimum(g, b, g->given, 200000, &dr, &p);
      if (rr == RB_FOUND) check_plan(g, &p, b, dr, g->given);
      int ra = rb_optimum(g, b, NULL, 200000, &da, &p);
      if (ra == RB_FOUND) check_plan(g, &p, b, da, NULL);
      ck_assert_msg(ra != RB_TOO_BIG && rr != RB_TOO_BIG, "state cap on %d nodes\n%s", n, js);
      ck_assert_msg(rr != RB_FOUND || (ra == RB_FOUND && da <= dr + 1e-9),
                    "any order worse than the given one\n%s", js);
      if (rr == RB_FOUND) {
        ck_assert_msg(last < 0 || dr >= last - 1e-9, "less budget, shorter plan\n%s", js);
        last = dr;
        recomputing += dr > mp_events_duration_floor(g);
      }
    }
    /* random plans without copies: none shorter than the optimum at its peak */
    for (int k = 0; k < 3; k++) {
      ox_event *ox;
      int m = rp_random_plan(g, &om, &r, false, &ox);
      mp_events_clear(&p);
      for (int i = 0; i < m; i++) {
        int id = ox[i].node;
        if (ox[i].kind != OX_RUN)
          for (int b = 0; b < g->n_buf; b++)
            if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].owner == ox[i].node &&
                g->bufs[b].out == ox[i].out)
              id = b;
        mp_events_push(&p, (mp_event_kind)ox[i].kind, id);
      }
      mp_ev_figures f;
      mp_events_evaluate(g, &p, 0, 0, &f);
      ck_assert_int_eq(rb_optimum(g, f.live_peak, NULL, 200000, &d, NULL), RB_FOUND);
      ck_assert_msg(d <= f.duration + 1e-9, "a random plan (%g) beats the optimum (%g) at %lld\n%s",
                    f.duration, d, (long long)f.live_peak, js);
      free(ox);
    }
    mp_events_destroy(&p);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  ck_assert_msg(recomputing > 0, "no budget forced a recomputation");
  mp_graph *big = training_chain(20);
  double d;
  ck_assert_int_eq(rb_optimum(big, 100, NULL, 1000, &d, NULL), RB_TOO_BIG);
  mp_graph_destroy(big);
  tl_cleanup();
}
END_TEST

/* ---- with copies ---- */

static void check_copy_plan(const mp_graph *g, const mp_events *p, int64_t budget, double bw,
                            double duration, const int *order) {
  mp_error err;
  ck_assert_msg(mp_events_verify(g, p, bw, NULL, &err) == 0, "brute plan invalid: %s", err.msg);
  mp_ev_figures f;
  mp_events_evaluate(g, p, bw, budget, &f);
  ck_assert_msg(f.live_peak <= budget, "brute plan peaks at %lld > %lld", (long long)f.live_peak,
                (long long)budget);
  ck_assert_msg(fabs(f.duration - duration) <= 1e-9 * fmax(1, duration),
                "simulated duration %.17g, the search says %.17g", f.duration, duration);
  if (order) ck_assert(mp_events_follow(g, p, order));
}

START_TEST(copies_on_a_chain) {
  /* 3 layers in 3 bytes: impossible by recomputation alone; offloading a1
   * and a2 and bringing them back for g1 and g2 fits */
  mp_graph *g = training_chain(3);
  mp_events p;
  mp_events_init(&p);
  double d, slow, fast;
  ck_assert_int_eq(rb_optimum(g, 3, NULL, 100000, &d, NULL), RB_INFEASIBLE);
  ck_assert_int_eq(rb_optimum_copies(g, 3, NULL, 1e6, 1000000, &fast, &p), RB_FOUND);
  check_copy_plan(g, &p, 3, 1e6, fast, NULL);
  ck_assert_msg(fast >= 6 && fast < 6.0001, "fast link: %g", fast);
  mp_ev_figures f;
  mp_events_evaluate(g, &p, 1e6, 3, &f);
  ck_assert(f.transferred > 0 && f.recomputed == 0);
  /* a slow link (a copy takes 2): the copies stall the runs */
  ck_assert_int_eq(rb_optimum_copies(g, 3, NULL, 0.5, 1000000, &slow, &p), RB_FOUND);
  check_copy_plan(g, &p, 3, 0.5, slow, NULL);
  ck_assert_msg(slow > fast, "slow link %g, fast %g", slow, fast);
  /* 2 bytes: g2 alone needs 3 */
  ck_assert_int_eq(rb_optimum_copies(g, 2, NULL, 1e6, 1000000, &d, NULL), RB_INFEASIBLE);
  /* enough memory: the keep-all duration, no copy */
  ck_assert_int_eq(rb_optimum_copies(g, 4, NULL, 1, 1000000, &d, &p), RB_FOUND);
  ck_assert(d == 6);
  mp_events_destroy(&p);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

static void to_model(const mp_graph *g, const ox_event *ox, int m, mp_events *p) {
  mp_events_clear(p);
  for (int i = 0; i < m; i++) {
    int id = ox[i].node;
    if (ox[i].kind != OX_RUN)
      for (int b = 0; b < g->n_buf; b++)
        if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].owner == ox[i].node &&
            g->bufs[b].out == ox[i].out)
          id = b;
    mp_events_push(p, (mp_event_kind)ox[i].kind, id);
  }
}

/* With copies: never worse than without, and no random valid plan (with
 * copies, at the same bandwidth) is shorter at its own peak. */
START_TEST(copies_random_graphs) {
  mp_rng r;
  mp_rng_seed(&r, 6303);
  int trials = tl_trials(60), solved = 0, offloading = 0;
  for (int t = 0; t < trials; t++) {
    int n = 2 + t % 5;
    char *js = tl_random_json(&r, n, TL_ALL);
    mp_graph *g = tl_graph(js);
    or_model om;
    or_build(g, &om);
    double bw = (double)(200 + mp_rng_below(&r, 4000));
    mp_events p;
    mp_events_init(&p);
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, g->given);
    for (int64_t b = keep; b >= floor; b -= 1 + (keep - floor) / 3) {
      double dc, dn;
      int rc = rb_optimum_copies(g, b, g->given, bw, 300000, &dc, &p);
      if (rc == RB_TOO_BIG) continue;
      solved++;
      int rn = rb_optimum(g, b, g->given, 300000, &dn, NULL);
      if (rn == RB_FOUND) ck_assert_msg(rc == RB_FOUND && dc <= dn + 1e-9, "copies worse\n%s", js);
      if (rc == RB_FOUND) {
        check_copy_plan(g, &p, b, bw, dc, g->given);
        offloading += rn != RB_FOUND || dc < dn - 1e-9;
      }
    }
    for (int k = 0; k < 4; k++) {
      ox_event *ox;
      int m = rp_random_plan(g, &om, &r, true, &ox);
      to_model(g, ox, m, &p);
      mp_ev_figures f;
      mp_events_evaluate(g, &p, bw, 0, &f);
      double d;
      int rc = rb_optimum_copies(g, f.live_peak, NULL, bw, 300000, &d, NULL);
      if (rc != RB_TOO_BIG) {
        ck_assert_int_eq(rc, RB_FOUND);
        ck_assert_msg(d <= f.duration + 1e-9, "a random plan (%.17g) beats the optimum (%.17g)\n%s",
                      f.duration, d, js);
      }
      free(ox);
    }
    mp_events_destroy(&p);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  ck_assert_msg(solved > trials && offloading > 0, "solved %d, offload helped %d", solved, offloading);
  tl_cleanup();
}
END_TEST

/* ---- keepall ---- */

static int keepall(const mp_graph *g, const int *order, int64_t budget, mp_ctx *c, mp_events *ev) {
  const mp_solver *s = mp_solver_find("keepall");
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(s->decides, MP_DECIDES_EVENTS);
  memset(c, 0, sizeof *c);
  c->g = g;
  c->start_order = order;
  c->budget = budget;
  c->events = ev;
  c->status = MP_FEASIBLE;
  return s->solve(c);
}

START_TEST(keepall_claims) {
  mp_rng r;
  mp_rng_seed(&r, 6302);
  int over = 0;
  for (int t = 0; t < tl_trials(200); t++) {
    char *js = tl_random_json(&r, 1 + t % 12, TL_ALL);
    mp_graph *g = tl_graph(js);
    or_model om;
    or_build(g, &om);
    int *order = malloc(sizeof(int) * (size_t)g->n);
    or_random_order(&om, &r, order);
    int64_t peak = mp_order_peak(g, order), floor = mp_events_floor(g);
    ck_assert_int_le(floor, peak);
    mp_events ev;
    mp_events_init(&ev);
    mp_ctx c;
    /* within budget: the plan of the order, optimal, duration = its bound */
    ck_assert_int_eq(keepall(g, order, peak, &c, &ev), 0);
    ck_assert_int_eq(c.status, MP_OPTIMAL);
    mp_error err;
    ck_assert_msg(mp_events_verify(g, &ev, 0, NULL, &err) == 0, "%s", err.msg);
    ck_assert(mp_events_follow(g, &ev, order));
    mp_ev_figures f;
    mp_events_evaluate(g, &ev, 0, peak, &f);
    ck_assert(f.live_peak == peak && f.duration == c.duration_bound);
    /* below the floor: infeasible, a proof */
    ck_assert_int_eq(keepall(g, order, floor - 1, &c, &ev), 0);
    ck_assert(c.status == MP_INFEASIBLE && ev.n == 0 && strstr(c.msg, "floor"));
    /* between: no plan, and no claim */
    if (floor < peak) {
      over++;
      ck_assert_int_eq(keepall(g, order, peak - 1, &c, &ev), -1);
      ck_assert(ev.n == 0 && strstr(c.msg, "no plan within budget"));
    }
    mp_events_destroy(&ev);
    free(order);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  ck_assert_int_gt(over, 10);
  tl_cleanup();
}
END_TEST

Suite *suite_remat_brute(void) {
  Suite *s = suite_create("remat_brute");
  TCase *tc = tcase_create("remat_brute");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, chains_known_optima);
  tcase_add_test(tc, brute_random_graphs);
  tcase_add_test(tc, copies_on_a_chain);
  tcase_add_test(tc, copies_random_graphs);
  tcase_add_test(tc, keepall_claims);
  suite_add_tcase(s, tc);
  return s;
}
