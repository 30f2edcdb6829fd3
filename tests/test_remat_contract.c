/* test_remat_contract.c - remat-ilp and remat-lp on a contraction of the
 * order (solvers/lib/remat_contract.h), forced on tiny graphs with a small
 * `segments`: the contracted graph is valid, its plans expand to valid plans
 * of the original that follow the order, hold no more memory than the
 * contracted plan and take as long; the solvers' plans verify, stay within
 * the budget, never beat the brute-force optimum (tests/remat_brute.h), claim
 * `optimal` only at it and `infeasible` never where a plan fits; the same
 * seed gives the same plan.  And one segment's workspace and need by hand,
 * merged up to the budget and no further. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "lib/remat_contract.h"
#include "oracle.h"
#include "registry.h"
#include "remat_brute.h"
#include "remat_check.h"
#include "remat_clock.h"
#include "testlib.h"

static const char *const solvers[] = {"remat-ilp", "remat-lp"};

/* Run an events solver on a contraction into `segments` segments (0: none,
 * the graph itself); -1 when it gave no plan. */
static int solve(const char *name, const mp_graph *g, const int *order, int64_t budget, int segments,
                 mp_ctx *c, mp_events *ev) {
  char set[32];
  snprintf(set, sizeof set, "segments=%d", segments > 0 ? segments : 1);
  const char *sets[] = {set, segments > 0 ? "contract_above=1" : "contract_above=0", NULL};
  return tl_solve_events(name, g, order, budget, 0, sets, 1, c, ev);
}

/* The judge's figures of a plan that must verify and follow the order. */
static void judged(const mp_graph *g, const mp_events *ev, const int *order, int64_t budget,
                   const char *who, const char *js, mp_ev_figures *f) {
  mp_error err;
  ck_assert_msg(mp_events_verify(g, ev, 0, NULL, &err) == 0, "%s: invalid plan: %s\n%s", who,
                err.msg, js);
  ck_assert_msg(mp_events_follow(g, ev, order), "%s: first runs leave the order\n%s", who, js);
  mp_events_evaluate(g, ev, 0, budget, f);
}


static int stages(const mp_graph *g) {
  int n = 0;
  for (int v = 0; v < g->n; v++) n += !g->nodes[v].is_input;
  return n;
}

/* Plans of the contracted graph (remat-ilp on it, at budgets from its
 * keep-all peak down to its floor) expand to valid plans of g that follow
 * the order, with a peak no higher and the same duration.  Returns how
 * many of them recompute. */
static int expand_plans(const mp_graph *g, const int *order, int segments, const char *js) {
  rc_contract r;
  mp_error err;
  ck_assert_msg(rc_build(&r, g, order, segments, INT64_MAX, &err) == 0, "%s\n%s", err.msg, js);
  ck_assert_int_le(r.n_seg, stages(g));
  int64_t keep = mp_order_peak(r.cg, r.corder), floor = mp_events_floor(r.cg);
  ck_assert_int_le(mp_order_peak(g, order), keep);
  mp_events cp, ep;
  mp_events_init(&cp);
  mp_events_init(&ep);
  int recomputing = 0;
  for (int64_t b = keep; b >= floor; b -= 1 + (keep - floor) / 6) {
    mp_ctx c;
    if (solve("remat-ilp", r.cg, r.corder, b, 0, &c, &cp) != 0 || c.status == MP_INFEASIBLE) continue;
    mp_ev_figures fc, fe;
    judged(r.cg, &cp, r.corder, b, "contracted", js, &fc);
    rc_expand(&r, &cp, &ep);
    judged(g, &ep, order, b, "expanded", js, &fe);
    ck_assert_msg(fe.live_peak <= fc.live_peak, "expanded peak %lld over the contracted %lld\n%s",
                  (long long)fe.live_peak, (long long)fc.live_peak, js);
    ck_assert_msg(fabs(fe.duration - fc.duration) <= 1e-9 * fmax(1, fc.duration),
                  "durations %g and %g\n%s", fe.duration, fc.duration, js);
    recomputing += fe.recomputed > 0;
  }
  mp_events_destroy(&cp);
  mp_events_destroy(&ep);
  rc_destroy(&r);
  return recomputing;
}

START_TEST(contracted_plans_expand) {
  mp_rng r;
  mp_rng_seed(&r, 8101);
  int trials = tl_trials(150), recomputing = 0;
  for (int t = 0; t < trials; t++) {
    char *js = tl_random_json(&r, 4 + t % 9, TL_ALL);
    mp_graph *g = tl_graph(js);
    int *order = rc_order_for(g, &r, t);
    int segments = 2 + (int)mp_rng_below(&r, 4);
    recomputing += expand_plans(g, order, segments, js);
    free(order);
    mp_graph_destroy(g);
    free(js);
  }
  if (tl_verbose()) fprintf(stderr, "contracted_plans_expand: %d recompute\n", recomputing);
  ck_assert_msg(recomputing > trials / 10, "%d plans recompute", recomputing);
  tl_cleanup();
}
END_TEST

/* Training graphs of the generator: alias sets, views and workspaces over
 * many segments. */
START_TEST(generated_training_graphs_expand) {
  int recomputing = 0;
  for (uint64_t seed = 1; seed <= 6; seed++) {
    mp_graph *g = tl_gen(seed % 2 ? "layered" : "chain", 14, seed, true);
    recomputing += expand_plans(g, g->given, 3 + (int)seed, g->name);
    mp_graph_destroy(g);
  }
  if (tl_verbose()) fprintf(stderr, "generated_training_graphs_expand: %d recompute\n", recomputing);
  ck_assert_int_gt(recomputing, 2);
  tl_cleanup();
}
END_TEST

typedef struct tally {
  int plans, optimal, recomputing;
} tally;

/* One solver at one budget against the brute-force optimum. */
static void check_one(const char *name, const mp_graph *g, const int *order, int64_t b, int segments,
                      const char *js, tally *ty) {
  double best = -1;
  int rb = rb_optimum(g, b, order, 400000, &best, NULL);
  ck_assert_msg(rb != RB_TOO_BIG, "brute force too big\n%s", js);
  mp_events ev;
  mp_events_init(&ev);
  mp_ctx c;
  int rc = solve(name, g, order, b, segments, &c, &ev);
  if (c.status == MP_INFEASIBLE)
    ck_assert_msg(rb == RB_INFEASIBLE, "%s: infeasible where %g fits\n%s", name, best, js);
  if (rb == RB_FOUND)
    ck_assert_msg(c.duration_bound <= best + 1e-6, "%s: bound %g above the optimum %g\n%s", name,
                  c.duration_bound, best, js);
  if (rc != 0) {
    ck_assert_msg(ev.n == 0, "%s: no plan but events\n%s", name, js);
  } else if (c.status != MP_INFEASIBLE) {
    mp_ev_figures f;
    judged(g, &ev, order, b, name, js, &f);
    ck_assert_msg(f.live_peak <= b, "%s: peak %lld over budget %lld\n%s", name,
                  (long long)f.live_peak, (long long)b, js);
    ck_assert_msg(rb == RB_FOUND && f.duration >= best - 1e-9, "%s: %g beats the optimum %g\n%s",
                  name, f.duration, best, js);
    if (c.status == MP_OPTIMAL)
      ck_assert_msg(fabs(f.duration - best) <= 1e-6 * fmax(1, best), "%s optimal at %g, not %g\n%s",
                    name, f.duration, best, js);
    ty->plans++;
    ty->optimal += c.status == MP_OPTIMAL;
    ty->recomputing += f.recomputed > 0;
  }
  mp_events_destroy(&ev);
}

START_TEST(solvers_against_brute_force) {
  mp_rng r;
  mp_rng_seed(&r, 8102);
  int trials = tl_trials(120);
  tally ty[2] = {{0}};
  for (int t = 0; t < trials; t++) {
    char *js = tl_random_json(&r, 4 + t % 8, TL_ALL);
    mp_graph *g = tl_graph(js);
    int *order = rc_order_for(g, &r, t);
    int segments = 1 + (int)mp_rng_below(&r, 3);
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
    for (int64_t b = keep; b >= floor - 1; b -= 1 + (keep - floor) / 4)
      for (int s = 0; s < 2; s++) check_one(solvers[s], g, order, b, segments, js, &ty[s]);
    free(order);
    mp_graph_destroy(g);
    free(js);
  }
  for (int s = 0; s < 2; s++) {
    if (tl_verbose())
      fprintf(stderr, "%s: %d plans, %d optimal, %d recompute\n", solvers[s], ty[s].plans,
              ty[s].optimal, ty[s].recomputing);
    ck_assert_msg(ty[s].plans > trials && ty[s].recomputing > trials / 10,
                  "%s: %d plans, %d recompute", solvers[s], ty[s].plans, ty[s].recomputing);
  }
  tl_cleanup();
}
END_TEST

/* The same seed, the same plan; the message names the contraction. */
START_TEST(deterministic_for_a_seed) {
  mp_graph *g = tl_gen("layered", 16, 5, true);
  int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, g->given);
  int64_t b = floor + (keep - floor) / 2;
  for (int s = 0; s < 2; s++) {
    mp_events a, c2;
    mp_events_init(&a);
    mp_events_init(&c2);
    mp_ctx c;
    int r1 = solve(solvers[s], g, g->given, b, 6, &c, &a);
    ck_assert_msg(r1 != 0 || strstr(c.msg, "-segment contraction") || c.status == MP_OPTIMAL, "%s: %s",
                  solvers[s], c.msg);
    int r2 = solve(solvers[s], g, g->given, b, 6, &c, &c2);
    ck_assert_int_eq(r1, r2);
    ck_assert_msg(a.n == c2.n && !memcmp(a.ev, c2.ev, sizeof(mp_event) * (size_t)a.n),
                  "%s: two runs, two plans", solvers[s]);
    mp_events_destroy(&a);
    mp_events_destroy(&c2);
  }
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* remat-ilp and remat-lp forced onto a contraction: at a budget above the
 * floor where the solver without a contraction says `infeasible` (remat-ilp:
 * RM_BOUND's MILP, remat-lp: its LP relaxation has no solution), the
 * contraction has no plan and only the whole graph's relaxation can say so;
 * it must, and the brute force must agree.  Before, every claim was
 * dropped with the contraction: "no plan" (status error).  Returns how
 * many such budgets. */
static int whole_graph_proofs(const char *name, const mp_graph *g, const int *order, const char *js) {
  int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
  int proofs = 0;
  mp_events ev;
  mp_events_init(&ev);
  for (int64_t b = floor; b < keep; b += 1 + (keep - floor) / 8) {
    mp_ctx whole, con;
    solve(name, g, order, b, 0, &whole, &ev);
    if (whole.status != MP_INFEASIBLE) continue;
    double best;
    ck_assert_msg(rb_optimum(g, b, order, 400000, &best, NULL) == RB_INFEASIBLE,
                  "%s: infeasible at %lld where %g fits\n%s", name, (long long)b, best, js);
    int rc = solve(name, g, order, b, 2, &con, &ev);
    ck_assert_msg(rc == 0 && con.status == MP_INFEASIBLE,
                  "%s contracted at %lld (floor %lld): rc %d, %s (%s); the whole graph: infeasible\n%s",
                  name, (long long)b, (long long)floor, rc, mp_status_name(con.status), con.msg, js);
    proofs++;
  }
  mp_events_destroy(&ev);
  return proofs;
}

START_TEST(whole_graph_proves_infeasible) {
  mp_rng r;
  mp_rng_seed(&r, 8103);
  int trials = tl_trials(60), proofs[2] = {0, 0};
  for (int t = 0; t < trials; t++) {
    char *js = tl_random_json(&r, 4 + t % 8, TL_ALL);
    mp_graph *g = tl_graph(js);
    int *order = rc_order_for(g, &r, t);
    for (int s = 0; s < 2; s++) proofs[s] += whole_graph_proofs(solvers[s], g, order, js);
    free(order);
    mp_graph_destroy(g);
    free(js);
  }
  if (tl_verbose())
    fprintf(stderr, "whole_graph_proves_infeasible: %d (remat-ilp), %d (remat-lp) proofs above the floor\n",
            proofs[0], proofs[1]);
  ck_assert_msg(proofs[0] > trials / 10 && proofs[1] > 0, "%d (remat-ilp), %d (remat-lp) proofs above the floor",
                proofs[0], proofs[1]);
  tl_cleanup();
}
END_TEST

/* The time limit is no answer on the contracted path either: remat-ilp
 * forced onto a contraction, its deadline passed at every reading of the
 * clock (tests/remat_clock.h), says `timeout` or what the uncut run says,
 * including the whole graph's proofs that no plan fits above the floor. */
START_TEST(contracted_deadline_at_every_reading) {
  static const char *const sets[] = {"rounds=4", "contract_above=1", "segments=2", NULL};
  const mp_solver *s = mp_solver_find("remat-ilp");
  mp_rng r;
  mp_rng_seed(&r, 8104);
  int proofs = 0, timeouts = 0, trials = tl_trials(10) > 4 ? tl_trials(10) : 4;
  for (int t = 0; t < trials; t++) {
    mp_graph *g = tl_random_graph(&r, 5 + t % 5, TL_ALL);
    rc_random_costs(g, &r);
    int64_t keep = mp_order_peak(g, g->given), floor = mp_events_floor(g);
    char what[64];
    snprintf(what, sizeof what, "trial %d (%d nodes), contracted", t, g->n);
    for (int i = 0; i < 3; i++) {
      int64_t b = floor + (keep - floor) * i / 4;
      rc_answer a;
      rc_run_clocked(s, sets, g, g->given, b, 0, -1, &a);
      proofs += a.status == MP_INFEASIBLE;
      rc_answer_destroy(&a);
      timeouts += rc_cut_everywhere(s, sets, g, g->given, b, 0, 300, what);
    }
    mp_graph_destroy(g);
  }
  if (tl_verbose())
    fprintf(stderr, "contracted clock cuts: %d infeasible above the floor, %d timeouts\n", proofs, timeouts);
  ck_assert_msg(proofs > 0 && timeouts > 0, "infeasible %d, timeouts %d", proofs, timeouts);
  tl_cleanup();
}
END_TEST

/* A segment's figures by hand: the chain x (1) -> A (4) -> B (2) -> C (3)
 * -> D (1, the graph output) as one segment reads x and makes D; at B's
 * step A and B are live (6), A is freed after B, C's step holds B and C
 * (5), D's C and D (4): its workspace is 6 - 1 = 5 beyond D, its need 1 +
 * 1 + 5 = 7.  At budget 7 the merges go all the way; at 6 the segments
 * are more, each within the budget. */
START_TEST(segment_by_hand) {
  mp_graph *g = tl_graph("{\"name\":\"seg\",\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
                         "{\"id\":1,\"size\":4,\"inputs\":[0]},"
                         "{\"id\":2,\"size\":2,\"inputs\":[1]},"
                         "{\"id\":3,\"size\":3,\"inputs\":[2]},"
                         "{\"id\":4,\"size\":1,\"inputs\":[3]}]}");
  for (int64_t budget = 7; budget >= 6; budget--) {
    rc_contract r;
    mp_error err;
    ck_assert_int_eq(rc_build(&r, g, g->given, 1, budget, &err), 0);
    int segs = 0;
    for (int v = 0; v < r.cg->n; v++) {
      if (r.seg_of[v] < 0) continue;
      segs++;
      int64_t need = mp_node_need(r.cg, v);
      ck_assert_msg(need <= budget, "budget %lld: segment %d needs %lld", (long long)budget, r.seg_of[v],
                    (long long)need);
      if (budget == 7)
        ck_assert_msg(r.cg->nodes[v].workspace == 5 && need == 7, "workspace %lld, need %lld (want 5, 7)",
                      (long long)r.cg->nodes[v].workspace, (long long)need);
    }
    ck_assert_msg(budget == 7 ? segs == 1 : segs > 1, "budget %lld: %d segments", (long long)budget, segs);
    rc_destroy(&r);
  }
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* A graph without graph outputs: its sinks own no buffer (the last node
 * updates a parameter in place, alias -1).  Its contraction has none
 * either (an output node that reads nothing), not the sinks' outputs of
 * the contracted graph; its plans expand. */
START_TEST(no_graph_output_contracts) {
  const char *js = "{\"name\":\"noout\",\"nodes\":["
                   "{\"id\":0,\"op\":\"input\",\"size\":100,\"inputs\":[]},"
                   "{\"id\":1,\"op\":\"add_\",\"size\":8,\"inputs\":[],\"alias\":-1,\"inplace\":true},"
                   "{\"id\":2,\"size\":300,\"inputs\":[0,0]},"
                   "{\"id\":3,\"op\":\"clone\",\"size\":300,\"inputs\":[2]},"
                   "{\"id\":4,\"op\":\"relu_\",\"size\":300,\"inputs\":[2],\"alias\":2,\"inplace\":true},"
                   "{\"id\":5,\"size\":200,\"inputs\":[4]},"
                   "{\"id\":6,\"size\":4,\"inputs\":[5]},"
                   "{\"id\":7,\"size\":50,\"inputs\":[6,3,5,0]},"
                   "{\"id\":8,\"op\":\"add_\",\"size\":50,\"inputs\":[7],\"alias\":-1,\"inplace\":true}]}";
  mp_graph *g = tl_graph(js);
  for (int x = 0; x < g->n_buf; x++) ck_assert(!g->bufs[x].graph_output);
  for (int segments = 1; segments <= 4; segments++) {
    rc_contract r;
    mp_error err;
    ck_assert_msg(rc_build(&r, g, g->given, segments, INT64_MAX, &err) == 0, "%d segments: %s", segments,
                  err.msg);
    for (int x = 0; x < r.cg->n_buf; x++) ck_assert(!r.cg->bufs[x].graph_output);
    rc_destroy(&r);
    expand_plans(g, g->given, segments, js);
  }
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

Suite *suite_remat_contract(void) {
  Suite *s = suite_create("remat_contract");
  TCase *tc = tcase_create("remat_contract");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, contracted_plans_expand);
  tcase_add_test(tc, generated_training_graphs_expand);
  tcase_add_test(tc, solvers_against_brute_force);
  tcase_add_test(tc, deterministic_for_a_seed);
  tcase_add_test(tc, whole_graph_proves_infeasible);
  tcase_add_test(tc, contracted_deadline_at_every_reading);
  tcase_add_test(tc, segment_by_hand);
  tcase_add_test(tc, no_graph_output_contracts);
  suite_add_tcase(s, tc);
  return s;
}
