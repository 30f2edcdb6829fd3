/* test_remat_strict.c - remat-ilp's and remat-lp's option `strict`
 * (solvers/lib/remat_strict.h): no rerun reads a storage whose in-place
 * writes so far differ from those before the node in the file order, as
 * the evaluator counts them (mp_events_stale_reruns).  The stage model with
 * the caps gives only such plans, whatever the decisions; the solvers'
 * plans verify and have none, on the whole graph and on a contraction;
 * their claims hold for every plan (the brute force of remat_brute.h,
 * which allows stale reruns). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "lib/remat_contract.h"
#include "lib/remat_milp.h"
#include "lib/remat_stage.h"
#include "lib/remat_strict.h"
#include "registry.h"
#include "remat_brute.h"
#include "remat_check.h"
#include "testlib.h"

/* ---- the model with the caps ---- */

/* A training step of L layers as an exporter writes it: per layer a
 * parameter P, a = f(h, P), a clone s of a saved for the backward, relu_
 * over a in place, e = f(a) the next h, and a step counter add_ (a
 * parameter written in place, no inputs); a loss; per layer backward
 * g = f(g', s, e, P), then sgd_ over P in place; an output node reading
 * the loss.  Rerunning s after the
 * relu_, or f(h, P) after the sgd_, reads overwritten data. */
static char *training_json(mp_rng *r, int L, bool param_nodes) {
  char *js = malloc(16384);
  int k = 0, id = 0, h, P[8], s[8], e[8];
  k += snprintf(js + k, 16384 - (size_t)k, "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":%d,\"inputs\":[]}",
                1 + (int)mp_rng_below(r, 500));
  h = id++;
#define NODE(...) (k += snprintf(js + k, 16384 - (size_t)k, __VA_ARGS__), id++)
  for (int i = 0; i < L; i++) {
    if (param_nodes)
      P[i] = NODE(",{\"id\":%d,\"op\":\"param\",\"size\":%d,\"inputs\":[],\"alias\":-1}", id,
                  1 + (int)mp_rng_below(r, 300));
    else
      P[i] = h; /* no parameter node: read the input again */
    NODE(",{\"id\":%d,\"op\":\"add_\",\"size\":8,\"inputs\":[],\"alias\":-1,\"inplace\":true}", id);
    int sa = 1 + (int)mp_rng_below(r, 1000);
    int a = NODE(",{\"id\":%d,\"op\":\"f\",\"size\":%d,\"inputs\":[%d,%d]}", id, sa, h, P[i]);
    s[i] = NODE(",{\"id\":%d,\"op\":\"clone\",\"size\":%d,\"inputs\":[%d]}", id,
                1 + (int)mp_rng_below(r, 1000), a);
    int rl = NODE(",{\"id\":%d,\"op\":\"relu_\",\"size\":%d,\"inputs\":[%d],\"alias\":%d,\"inplace\":true}",
                  id, sa, a, a);
    h = e[i] = NODE(",{\"id\":%d,\"op\":\"f\",\"size\":%d,\"inputs\":[%d]}", id,
                    1 + (int)mp_rng_below(r, 1000), rl);
  }
  int loss = NODE(",{\"id\":%d,\"op\":\"loss\",\"size\":%d,\"inputs\":[%d]}", id, 1 + (int)mp_rng_below(r, 50), h);
  int g = loss;
  for (int i = L - 1; i >= 0; i--) {
    g = NODE(",{\"id\":%d,\"op\":\"f\",\"size\":%d,\"inputs\":[%d,%d,%d,%d]}", id,
             1 + (int)mp_rng_below(r, 300), g, s[i], e[i], P[i]);
    if (param_nodes)
      NODE(",{\"id\":%d,\"op\":\"sgd_\",\"size\":1,\"inputs\":[%d,%d],\"alias\":%d,\"inplace\":true}", id,
           P[i], g, P[i]);
    else /* as torch exports write it: an update of a parameter no node reads */
      NODE(",{\"id\":%d,\"op\":\"add_\",\"size\":1,\"inputs\":[%d],\"alias\":-1,\"inplace\":true}", id, g);
  }
  NODE(",{\"id\":%d,\"op\":\"output\",\"size\":0,\"inputs\":[%d]}", id, loss);
#undef NODE
  snprintf(js + k, 16384 - (size_t)k, "]}");
  return js;
}

/* A random graph (TL_ALL) for every other trial, else a training step
 * (param_nodes: parameters as nodes that their update writes in place,
 * else in every fourth trial). */
static char *graph_for(mp_rng *r, int t, int n, bool param_nodes) {
  return t % 2 == 0 ? tl_random_json(r, n, TL_ALL) : training_json(r, 1 + t / 2 % 3, param_nodes || t % 4 == 1);
}

/* Decisions from a random wish (S), completed; the decoded plan when it is
 * consistent and valid: 0, else -1. */
static int random_plan(const rs_model *m, mp_rng *r, rs_dec *d, mp_events *ev) {
  for (int t = 0; t <= m->n_pos + 1; t++)
    for (int b = 0; b < m->nb; b++) *rs_S(d, t, b) = (uint8_t)mp_rng_below(r, 2);
  if (rs_complete(m, d) || rm_peak(m, d, m->order) < 0) return -1;
  rs_decode(m, d, ev);
  return 0;
}

/* Stale reruns of the decoded plans of random wishes and greedy eviction,
 * on the model with caps (cap) or without (NULL); *reruns counts the plans
 * that run a node again. */
static int64_t stale_of_model(const mp_graph *g, const int *order, const int *cap, mp_rng *r,
                              const char *js, int *reruns) {
  rs_model m;
  rs_model_init_capped(&m, g, order, cap);
  rs_dec d;
  rs_dec_init(&m, &d);
  mp_events ev;
  mp_events_init(&ev);
  int64_t stale = 0, floor = mp_events_floor(g), keep = mp_order_peak(g, order);
  for (int k = 0; k < 12; k++) {
    int64_t b = floor + (keep - floor) * (k % 4) / 4;
    if (k < 8 ? random_plan(&m, r, &d, &ev) : rs_greedy(&m, b, NULL, &d)) continue;
    if (k >= 8) rs_decode(&m, &d, &ev);
    mp_error err;
    ck_assert_msg(mp_events_verify(g, &ev, 0, NULL, &err) == 0, "%s\n%s", err.msg, js);
    stale += mp_events_stale_reruns(g, &ev);
    *reruns += rs_cost(&m, &d) > mp_events_duration_floor(g) + 1e-9;
  }
  mp_events_destroy(&ev);
  rs_dec_destroy(&d);
  rs_model_destroy(&m);
  return stale;
}

START_TEST(caps_keep_stage_plans_fresh) {
  mp_rng r;
  mp_rng_seed(&r, 9301);
  int trials = tl_trials(300), reruns = 0, loose_reruns = 0;
  int64_t loose_stale = 0;
  for (int t = 0; t < trials; t++) {
    char *js = graph_for(&r, t, 3 + t % 12, true);
    mp_graph *g = tl_graph(js);
    int *order = rc_order_for(g, &r, t);
    int *cap = malloc(sizeof(int) * ((size_t)g->n + 1));
    rs_strict_caps(g, order, cap);
    int64_t stale = stale_of_model(g, order, cap, &r, js, &reruns);
    ck_assert_msg(stale == 0, "%lld stale reruns with the caps\n%s", (long long)stale, js);
    loose_stale += stale_of_model(g, order, NULL, &r, js, &loose_reruns);
    free(cap);
    free(order);
    mp_graph_destroy(g);
    free(js);
  }
  if (tl_verbose())
    fprintf(stderr, "strict model: %d plans rerun with caps; without: %d, %lld stale reruns\n", reruns,
            loose_reruns, (long long)loose_stale);
  /* the graphs exercise it: without the caps the same decisions are stale */
  ck_assert_msg(reruns > trials / 3 && loose_stale > trials / 10, "reruns %d, stale without caps %lld",
                reruns, (long long)loose_stale);
  tl_cleanup();
}
END_TEST

/* The same on contractions (remat_contract.h): the caps of the segments
 * and the inert nodes their reruns skip, through the expansion. */
START_TEST(contracted_caps_keep_plans_fresh) {
  mp_rng r;
  mp_rng_seed(&r, 9303);
  int trials = tl_trials(150), reruns = 0, built = 0;
  for (int t = 0; t < trials; t++) {
    char *js = graph_for(&r, t, 4 + t % 12, false);
    mp_graph *g = tl_graph(js);
    int *order = rc_order_for(g, &r, t), *cap = malloc(sizeof(int) * ((size_t)g->n + 1));
    rs_strict_caps(g, order, cap);
    rc_contract rc;
    mp_error err;
    if (rc_build(&rc, g, order, 2 + t % 4, INT64_MAX, &err)) { /* no contraction: the solvers skip it too */
      if (tl_verbose()) fprintf(stderr, "t %d: %s\n", t, err.msg);
      free(cap);
      free(order);
      mp_graph_destroy(g);
      free(js);
      continue;
    }
    built++;
    rc.inert = rc_strict_inert(&rc);
    int *ccap = malloc(sizeof(int) * ((size_t)rc.cg->n + 1));
    rc_strict_caps(&rc, cap, ccap);
    rs_model m;
    rs_model_init_capped(&m, rc.cg, rc.corder, ccap);
    rs_dec d;
    rs_dec_init(&m, &d);
    mp_events cev, ev;
    mp_events_init(&cev);
    mp_events_init(&ev);
    for (int k = 0; k < 8; k++) {
      if (random_plan(&m, &r, &d, &cev)) continue;
      rc_expand(&rc, &cev, &ev);
      ck_assert_msg(mp_events_verify(g, &ev, 0, NULL, &err) == 0, "%s\n%s", err.msg, js);
      int64_t stale = mp_events_stale_reruns(g, &ev);
      ck_assert_msg(stale == 0, "%lld stale reruns through a contraction\n%s", (long long)stale, js);
      reruns += rs_cost(&m, &d) > mp_events_duration_floor(rc.cg) + 1e-9;
    }
    mp_events_destroy(&cev);
    mp_events_destroy(&ev);
    rs_dec_destroy(&d);
    rs_model_destroy(&m);
    free(ccap);
    rc_destroy(&rc);
    free(cap);
    free(order);
    mp_graph_destroy(g);
    free(js);
  }
  if (tl_verbose()) fprintf(stderr, "contracted strict model: %d built, %d plans rerun\n", built, reruns);
  ck_assert_msg(built > trials / 2 && reruns > trials / 3, "built %d, reruns %d", built, reruns);
  tl_cleanup();
}
END_TEST

/* ---- the solvers ---- */

typedef struct tally {
  int plans, recomputing, optimal, infeasible, stale_loose, differ;
} tally;

/* One solver run with strict=1 (and the same with strict=0 for the
 * contrast): the plan verifies, fits, follows the order, has no stale
 * rerun; its claims hold against the optimum over every plan (rb, best). */
static void check_strict(const char *name, const char *const *sets, const char *const *loose,
                         const mp_graph *g, const int *order, int64_t b, int rb, double best,
                         const char *js, tally *ty) {
  mp_ctx c;
  mp_events ev, ev0;
  mp_events_init(&ev);
  mp_events_init(&ev0);
  int rc = tl_solve_events(name, g, order, b, 0, sets, 1, &c, &ev);
  ck_assert_msg(c.status != MP_ERROR, "%s strict: %s\n%s", name, c.msg, js);
  if (rb == RB_FOUND)
    ck_assert_msg(c.duration_bound <= best + 1e-6, "%s strict: bound %g above the optimum %g\n%s", name,
                  c.duration_bound, best, js);
  if (rc == 0 && c.status == MP_INFEASIBLE) {
    ck_assert_msg(rb == RB_INFEASIBLE, "%s strict: infeasible where %g fits\n%s", name, best, js);
    ty->infeasible++;
  } else if (rc == 0) {
    mp_error err;
    ck_assert_msg(mp_events_verify(g, &ev, 0, NULL, &err) == 0, "%s strict: %s\n%s", name, err.msg, js);
    ck_assert_msg(mp_events_follow(g, &ev, order), "%s strict: first runs leave the order\n%s", name, js);
    mp_ev_figures f;
    mp_events_evaluate(g, &ev, 0, b, &f);
    ck_assert_msg(f.live_peak <= b, "%s strict: over budget\n%s", name, js);
    ck_assert_msg(f.stale_reruns == 0, "%s strict: %lld stale reruns\n%s", name,
                  (long long)f.stale_reruns, js);
    ck_assert_msg(rb == RB_FOUND && f.duration >= best - 1e-9, "%s strict beats the optimum\n%s", name, js);
    if (c.status == MP_OPTIMAL) {
      ck_assert_msg(fabs(f.duration - best) <= 1e-6 * fmax(1, best),
                    "%s strict: optimal at %g, the optimum over every plan is %g\n%s", name, f.duration,
                    best, js);
      ty->optimal++;
    }
    ty->plans++;
    ty->recomputing += f.recomputed > 0;
  }
  if (tl_solve_events(name, g, order, b, 0, loose, 1, &c, &ev0) == 0 &&
      mp_events_stale_reruns(g, &ev0) > 0) {
    ty->stale_loose++;
    ty->differ += rc == 0; /* strict found another plan */
  }
  mp_events_destroy(&ev);
  mp_events_destroy(&ev0);
}

START_TEST(strict_solvers_against_brute_force) {
  static const char *const ilp[] = {"rounds=4", "strict=1", NULL};
  static const char *const ilp0[] = {"rounds=4", NULL};
  static const char *const ilpc[] = {"rounds=4", "strict=1", "contract_above=3", "segments=2", NULL};
  static const char *const ilpc0[] = {"rounds=4", "contract_above=3", "segments=2", NULL};
  static const char *const lp[] = {"rounds=10", "strict=1", NULL};
  static const char *const lp0[] = {"rounds=10", NULL};
  static const char *const lpc[] = {"rounds=10", "strict=1", "contract_above=3", "segments=2", NULL};
  static const char *const lpc0[] = {"rounds=10", "contract_above=3", "segments=2", NULL};
  struct { const char *name; const char *const *sets, *const *loose; } runs[] = {
      {"remat-ilp", ilp, ilp0}, {"remat-ilp", ilpc, ilpc0}, {"remat-lp", lp, lp0}, {"remat-lp", lpc, lpc0}};
  tally ty[4] = {{0}};
  int replaced = 0;
  mp_rng r;
  mp_rng_seed(&r, 9302);
  int trials = tl_trials(60);
  for (int t = 0; t < trials; t++) {
    char *js = graph_for(&r, t, 4 + t % 6, false);
    mp_graph *g = tl_graph(js);
    int *order = rc_order_for(g, &r, t);
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, order);
    for (int64_t b = keep; b >= floor - 1; b -= 1 + (keep - floor) / 3) {
      double best = -1;
      int rb = rb_optimum(g, b, order, 400000, &best, NULL);
      if (rb == RB_TOO_BIG) continue;
      for (int k = 0; k < 4; k++) check_strict(runs[k].name, runs[k].sets, runs[k].loose, g, order, b, rb, best, js, &ty[k]);
    }
    free(order);
    mp_graph_destroy(g);
    free(js);
  }
  for (int k = 0; k < 4; k++) {
    if (tl_verbose())
      fprintf(stderr, "%s strict%s: plans %d recomputing %d optimal %d infeasible %d; strict=0 stale %d, "
              "strict another plan %d\n", runs[k].name, k % 2 ? " contracted" : "", ty[k].plans,
              ty[k].recomputing, ty[k].optimal, ty[k].infeasible, ty[k].stale_loose, ty[k].differ);
    ck_assert_msg(ty[k].recomputing > trials / 10, "%s: recomputing %d", runs[k].name, ty[k].recomputing);
    replaced += ty[k].differ;
  }
  /* where strict=0 reruns stale, strict=1 finds other plans (by hand below
   * too: few trials under MP_QUICK) */
  ck_assert_msg(replaced > 0 || trials < 60, "stale plans replaced %d", replaced);
  tl_cleanup();
}
END_TEST

/* A training step of two layers (training_json's, found by the loop
 * above) on a contraction into two segments.  At budget 2566 both solvers'
 * strict=0 plans reran the step counters (add_ nodes 2 and 8) with their
 * segment: a segment's rerun now skips them (rc_strict_inert), strict or
 * not, and the plans have no stale rerun; at 2440 they rerun the clone of
 * layer 2 after its relu_ (stale), where strict=1 finds no plan and claims
 * nothing.  strict=1 at 2566: plans without stale reruns.  Also under
 * MP_QUICK, where that loop is short. */
START_TEST(strict_replaces_a_stale_plan) {
  mp_graph *g = tl_graph(
      "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":260,\"inputs\":[]},"
      "{\"id\":1,\"op\":\"param\",\"size\":209,\"inputs\":[],\"alias\":-1},"
      "{\"id\":2,\"op\":\"add_\",\"size\":8,\"inputs\":[],\"alias\":-1,\"inplace\":true},"
      "{\"id\":3,\"op\":\"f\",\"size\":56,\"inputs\":[0,1]},"
      "{\"id\":4,\"op\":\"clone\",\"size\":490,\"inputs\":[3]},"
      "{\"id\":5,\"op\":\"relu_\",\"size\":56,\"inputs\":[3],\"alias\":3,\"inplace\":true},"
      "{\"id\":6,\"op\":\"f\",\"size\":507,\"inputs\":[5]},"
      "{\"id\":7,\"op\":\"param\",\"size\":291,\"inputs\":[],\"alias\":-1},"
      "{\"id\":8,\"op\":\"add_\",\"size\":8,\"inputs\":[],\"alias\":-1,\"inplace\":true},"
      "{\"id\":9,\"op\":\"f\",\"size\":257,\"inputs\":[6,7]},"
      "{\"id\":10,\"op\":\"clone\",\"size\":967,\"inputs\":[9]},"
      "{\"id\":11,\"op\":\"relu_\",\"size\":257,\"inputs\":[9],\"alias\":9,\"inplace\":true},"
      "{\"id\":12,\"op\":\"f\",\"size\":690,\"inputs\":[11]},"
      "{\"id\":13,\"op\":\"loss\",\"size\":46,\"inputs\":[12]},"
      "{\"id\":14,\"op\":\"f\",\"size\":176,\"inputs\":[13,10,12,7]},"
      "{\"id\":15,\"op\":\"sgd_\",\"size\":1,\"inputs\":[7,14],\"alias\":7,\"inplace\":true},"
      "{\"id\":16,\"op\":\"f\",\"size\":162,\"inputs\":[14,4,6,1]},"
      "{\"id\":17,\"op\":\"sgd_\",\"size\":1,\"inputs\":[1,16],\"alias\":1,\"inplace\":true},"
      "{\"id\":18,\"op\":\"output\",\"size\":0,\"inputs\":[13]}]}");
  /* on a contraction into two segments, as the loop found it */
  static const char *const loose[2][4] = {{"rounds=4", "contract_above=3", "segments=2", NULL},
                                          {"rounds=10", "contract_above=3", "segments=2", NULL}};
  static const char *const strict[2][5] = {{"rounds=4", "contract_above=3", "segments=2", "strict=1", NULL},
                                           {"rounds=10", "contract_above=3", "segments=2", "strict=1", NULL}};
  const char *names[] = {"remat-ilp", "remat-lp"};
  for (int k = 0; k < 2; k++) {
    mp_ctx c;
    mp_events ev0, ev1;
    mp_events_init(&ev0);
    mp_events_init(&ev1);
    ck_assert_int_eq(tl_solve_events(names[k], g, g->given, 2566, 0, loose[k], 1, &c, &ev0), 0);
    ck_assert_msg(mp_events_stale_reruns(g, &ev0) == 0, "%s strict=0 at 2566: a stale rerun", names[k]);
    ck_assert_int_eq(tl_solve_events(names[k], g, g->given, 2440, 0, loose[k], 1, &c, &ev0), 0);
    ck_assert_msg(mp_events_stale_reruns(g, &ev0) > 0, "%s strict=0 at 2440: no stale rerun", names[k]);
    ck_assert_int_ne(tl_solve_events(names[k], g, g->given, 2440, 0, strict[k], 1, &c, &ev1), 0);
    ck_assert_msg(c.status != MP_INFEASIBLE, "%s strict=1 at 2440: infeasible where a plan fits", names[k]);
    ck_assert_msg(tl_solve_events(names[k], g, g->given, 2566, 0, strict[k], 1, &c, &ev1) == 0, "%s: %s",
                  names[k], c.msg);
    mp_error err;
    ck_assert_msg(mp_events_verify(g, &ev1, 0, NULL, &err) == 0, "%s", err.msg);
    ck_assert_int_le(mp_events_memory(g, &ev1, NULL), 2566);
    ck_assert_int_eq(mp_events_stale_reruns(g, &ev1), 0);
    ck_assert_msg(c.status == MP_FEASIBLE || c.status == MP_OPTIMAL, "%s: %s", names[k], mp_status_name(c.status));
    mp_events_destroy(&ev0);
    mp_events_destroy(&ev1);
  }
  mp_graph_destroy(g);
  /* three layers, updates as torch writes them: remat-ilp on the whole
   * graph reruns the clone of layer 2 after its relu_ at strict=0 */
  g = tl_graph(
      "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
      "{\"id\":1,\"op\":\"add_\",\"size\":8,\"inputs\":[],\"alias\":-1,\"inplace\":true},"
      "{\"id\":2,\"op\":\"f\",\"size\":393,\"inputs\":[0,0]},"
      "{\"id\":3,\"op\":\"clone\",\"size\":30,\"inputs\":[2]},"
      "{\"id\":4,\"op\":\"relu_\",\"size\":393,\"inputs\":[2],\"alias\":2,\"inplace\":true},"
      "{\"id\":5,\"op\":\"f\",\"size\":957,\"inputs\":[4]},"
      "{\"id\":6,\"op\":\"add_\",\"size\":8,\"inputs\":[],\"alias\":-1,\"inplace\":true},"
      "{\"id\":7,\"op\":\"f\",\"size\":2,\"inputs\":[5,5]},"
      "{\"id\":8,\"op\":\"clone\",\"size\":794,\"inputs\":[7]},"
      "{\"id\":9,\"op\":\"relu_\",\"size\":2,\"inputs\":[7],\"alias\":7,\"inplace\":true},"
      "{\"id\":10,\"op\":\"f\",\"size\":397,\"inputs\":[9]},"
      "{\"id\":11,\"op\":\"add_\",\"size\":8,\"inputs\":[],\"alias\":-1,\"inplace\":true},"
      "{\"id\":12,\"op\":\"f\",\"size\":578,\"inputs\":[10,10]},"
      "{\"id\":13,\"op\":\"clone\",\"size\":39,\"inputs\":[12]},"
      "{\"id\":14,\"op\":\"relu_\",\"size\":578,\"inputs\":[12],\"alias\":12,\"inplace\":true},"
      "{\"id\":15,\"op\":\"f\",\"size\":337,\"inputs\":[14]},"
      "{\"id\":16,\"op\":\"loss\",\"size\":35,\"inputs\":[15]},"
      "{\"id\":17,\"op\":\"f\",\"size\":256,\"inputs\":[16,13,15,10]},"
      "{\"id\":18,\"op\":\"add_\",\"size\":1,\"inputs\":[17],\"alias\":-1,\"inplace\":true},"
      "{\"id\":19,\"op\":\"f\",\"size\":243,\"inputs\":[17,8,10,5]},"
      "{\"id\":20,\"op\":\"add_\",\"size\":1,\"inputs\":[19],\"alias\":-1,\"inplace\":true},"
      "{\"id\":21,\"op\":\"f\",\"size\":251,\"inputs\":[19,3,5,0]},"
      "{\"id\":22,\"op\":\"add_\",\"size\":1,\"inputs\":[21],\"alias\":-1,\"inplace\":true},"
      "{\"id\":23,\"op\":\"output\",\"size\":0,\"inputs\":[16]}]}");
  static const char *const ilp0[] = {"rounds=4", NULL}, *const ilp1[] = {"rounds=4", "strict=1", NULL};
  mp_ctx c;
  mp_events ev0, ev1;
  mp_events_init(&ev0);
  mp_events_init(&ev1);
  ck_assert_int_eq(tl_solve_events("remat-ilp", g, g->given, 2807, 0, ilp0, 1, &c, &ev0), 0);
  ck_assert_int_gt(mp_events_stale_reruns(g, &ev0), 0);
  ck_assert_msg(tl_solve_events("remat-ilp", g, g->given, 2807, 0, ilp1, 1, &c, &ev1) == 0, "%s", c.msg);
  mp_error err;
  ck_assert_msg(mp_events_verify(g, &ev1, 0, NULL, &err) == 0, "%s", err.msg);
  ck_assert_int_le(mp_events_memory(g, &ev1, NULL), 2807);
  ck_assert_int_eq(mp_events_stale_reruns(g, &ev1), 0);
  mp_events_destroy(&ev0);
  mp_events_destroy(&ev1);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

Suite *suite_remat_strict(void) {
  Suite *s = suite_create("remat_strict");
  TCase *tc = tcase_create("remat_strict");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, caps_keep_stage_plans_fresh);
  tcase_add_test(tc, contracted_caps_keep_plans_fresh);
  tcase_add_test(tc, strict_solvers_against_brute_force);
  tcase_add_test(tc, strict_replaces_a_stale_plan);
  suite_add_tcase(s, tc);
  return s;
}
