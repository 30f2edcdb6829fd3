/* test_remat_seed.c - starting a search from a plan: the genome of an
 * event plan (solvers/lib/remat_map.h), Chen's seed plan (remat_seed.c),
 * and the chains `dtr,remat-sa` / `dtr,remat-ga` / `dtr,remat-ilp` (mp_ctx.start_events):
 * keep-all maps to keep-all, the heuristics' plans map to genomes whose
 * plans fit the same budget, a chain never ends longer than the plan it
 * starts from, and is deterministic for a seed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "events.h"
#include "lib/remat_map.h"
#include "lib/remat_milp.h"
#include "oracle.h"
#include "registry.h"
#include "testlib.h"

static int rnd(mp_rng *r, int lo, int hi) { return lo + (int)mp_rng_below(r, (uint64_t)(hi - lo + 1)); }

/* A training step of k forward nodes (x = 0, f_i = i, some reading a skip
 * from two back), the loss k + 1 and a backward node per forward one that
 * reads the gradient, f_i's output and sometimes its input; random sizes
 * and costs, phases given. */
static mp_graph *training_graph(mp_rng *r, int k) {
  size_t cap = 16384;
  char *js = malloc(cap);
  int len = snprintf(js, cap, "{\"name\":\"train\",\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":%d,"
                     "\"inputs\":[],\"phase\":\"fwd\"}", rnd(r, 1, 3));
  for (int i = 1; i <= k; i++) {
    len += snprintf(js + len, cap - (size_t)len,
                    ",{\"id\":%d,\"size\":%d,\"cost\":%d,\"phase\":\"fwd\",\"inputs\":[%d", i,
                    rnd(r, 1, 5), rnd(r, 1, 5), i - 1);
    if (i >= 3 && mp_rng_below(r, 3) == 0) len += snprintf(js + len, cap - (size_t)len, ",%d", i - 2);
    len += snprintf(js + len, cap - (size_t)len, "]}");
  }
  len += snprintf(js + len, cap - (size_t)len,
                  ",{\"id\":%d,\"size\":1,\"cost\":1,\"phase\":\"bwd\",\"inputs\":[%d]}", k + 1, k);
  for (int i = k; i >= 1; i--) {
    int id = 2 * k + 2 - i;
    len += snprintf(js + len, cap - (size_t)len,
                    ",{\"id\":%d,\"size\":%d,\"cost\":%d,\"phase\":\"bwd\",\"inputs\":[%d,%d", id,
                    rnd(r, 1, 5), rnd(r, 1, 8), id - 1, i);
    if (mp_rng_below(r, 2)) len += snprintf(js + len, cap - (size_t)len, ",%d", i - 1);
    len += snprintf(js + len, cap - (size_t)len, "]}");
  }
  snprintf(js + len, cap - (size_t)len, "]}");
  mp_graph *g = tl_graph(js);
  free(js);
  return g;
}

static int run(const char *name, const mp_graph *g, int64_t budget, double bw, uint64_t seed,
               const mp_events *start, mp_events *ev, mp_ctx *c) {
  const mp_solver *s = mp_solver_find(name);
  ck_assert_msg(s != NULL, "no solver %s", name);
  memset(c, 0, sizeof *c);
  const char *sets[MP_MAX_OPTS + 1];
  int ns = 0;
  for (const char *const *q = tl_quick_sets(s); *q; q++) sets[ns++] = *q;
  mp_error err;
  ck_assert_int_eq(mp_solver_options(s, ns, sets, c->opt, &err), MP_OK);
  mp_events_clear(ev);
  c->g = g;
  c->start_order = g->given;
  c->budget = budget;
  c->bandwidth = bw;
  c->seed = seed;
  c->start_events = start;
  c->events = ev;
  c->status = MP_FEASIBLE;
  return s->solve(c);
}

/* A plan that the judge accepts within the budget: its duration. */
static double judged(const mp_graph *g, const mp_events *p, double bw, int64_t budget, const char *who) {
  mp_error err;
  ck_assert_msg(mp_events_verify(g, p, bw, NULL, &err) == 0, "%s: %s", who, err.msg);
  mp_ev_figures f;
  mp_events_evaluate(g, p, bw, budget, &f);
  ck_assert_msg(f.live_peak <= budget, "%s: peak %lld over %lld", who, (long long)f.live_peak,
                (long long)budget);
  return f.duration;
}

static bool same_plan(const mp_events *a, const mp_events *b) {
  if (a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->ev[i].kind != b->ev[i].kind || a->ev[i].id != b->ev[i].id) return false;
  return true;
}

/* The plan of an order (each node once, frees after the last reader) maps
 * to the genome that keeps everything, whose plan is that one's figures. */
START_TEST(keep_all_maps_to_keep_all) {
  mp_rng r;
  mp_rng_seed(&r, 77);
  int trials = tl_trials(400);
  for (int t = 0; t < trials; t++) {
    int n = 1 + t % 14;
    char *js = tl_random_json(&r, n, TL_ALL);
    mp_graph *g = tl_graph(js);
    or_model om;
    ck_assert_int_eq(or_build(g, &om), 0);
    int *order = malloc(sizeof(int) * (size_t)n);
    or_random_order(&om, &r, order);
    double bw = t % 2 ? (double)(1 + mp_rng_below(&r, 3000)) : 0;
    mp_events p;
    mp_events_init(&p);
    mp_events_from_order(g, order, &p);
    mp_rdec d;
    mp_rdec_init(&d, g, bw);
    mp_rdec_set_order(&d, order);
    mp_rgene *genes = malloc(sizeof(mp_rgene) * (size_t)(d.n_slots + 1));
    ck_assert_int_eq(mp_rgenes_from_events(&d, &p, genes), 0);
    for (int s = 0; s < d.n_slots; s++)
      ck_assert_msg(genes[s].kind == MP_RK_KEEP, "slot %d of buffer %d not kept\n%s", s, d.slot_buf[s], js);
    mp_rfig f;
    ck_assert_int_eq(mp_rdec_decode(&d, genes, INT64_MAX, &f), 0);
    ck_assert_int_eq(f.peak, mp_order_peak(g, order));
    ck_assert(f.reruns == 0 && f.ins == 0 && f.outs == 0);
    free(genes);
    mp_rdec_destroy(&d);
    mp_events_destroy(&p);
    free(order);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  tl_cleanup();
}
END_TEST

static void print_plan(const mp_graph *g, const mp_events *p, const char *what) {
  fprintf(stderr, "%s:", what);
  for (int i = 0; i < p->n; i++) {
    char lab[64];
    mp_event_label(g, p->ev[i], lab, sizeof lab);
    fprintf(stderr, " [%s]", lab);
  }
  fprintf(stderr, "\n");
  mp_ev_figures f;
  mp_events_evaluate(g, p, 0, INT64_MAX, &f);
  fprintf(stderr, "  peak %lld duration %g\n", (long long)f.live_peak, f.duration);
}

static const char *const heuristics[] = {"dtr", "chen-greedy", "chen-sqrt", "swap-greedy"};

/* The heuristics' plans on training graphs, budgets from the keep-all peak
 * down to the floor: each maps to a genome that decodes within the same
 * budget. */
START_TEST(heuristic_plans_map_within_budget) {
  mp_rng r;
  mp_rng_seed(&r, 78);
  int trials = tl_trials(40), mapped = 0, dropping = 0;
  mp_events p;
  mp_events_init(&p);
  for (int t = 0; t < trials; t++) {
    mp_graph *g = training_graph(&r, 3 + t % 10);
    double bw = t % 2 ? (double)rnd(&r, 1, 8) : 0;
    int64_t keep = mp_order_peak(g, g->given), floor = mp_events_floor(g);
    mp_rdec d;
    mp_rdec_init(&d, g, bw);
    mp_rdec_set_order(&d, g->given);
    mp_rgene *genes = malloc(sizeof(mp_rgene) * (size_t)(d.n_slots + 1));
    for (int64_t b = keep; b >= floor; b -= 1 + (keep - floor) / 6)
      for (size_t h = 0; h < sizeof heuristics / sizeof *heuristics; h++) {
        mp_ctx c;
        if (run(heuristics[h], g, b, bw, 1, NULL, &p, &c) || c.status == MP_INFEASIBLE) continue;
        judged(g, &p, bw, b, heuristics[h]);
        mp_rstart st;
        mp_rstart_map(&d, &p, b, 0, &st, genes);
        ck_assert_msg(st.has_plan && st.has_genes, "%s at %lld: its genome does not decode",
                      heuristics[h], (long long)b);
        if (st.fig.peak > b) {
          print_plan(g, &p, "source");
          print_plan(g, &d.plan, "genome");
        }
        ck_assert_msg(st.fig.peak <= b, "%s at %lld (keep-all %lld): its genome peaks at %lld",
                      heuristics[h], (long long)b, (long long)keep, (long long)st.fig.peak);
        mapped++;
        dropping += st.fig.reruns + st.fig.ins > 0;
      }
    free(genes);
    mp_rdec_destroy(&d);
    mp_graph_destroy(g);
  }
  mp_events_destroy(&p);
  ck_assert_msg(mapped > 4 * trials && dropping > trials, "mapped %d, recomputing %d", mapped, dropping);
  tl_cleanup();
}
END_TEST

/* dtr,remat-sa and dtr,remat-ga never end longer than dtr; remat-sa and
 * remat-ga alone never longer than Chen's seed plan; a chain is the same
 * for the same seed. */
START_TEST(chains_never_longer) {
  static const char *const searchers[] = {"remat-sa", "remat-ga"};
  mp_rng r;
  mp_rng_seed(&r, 79);
  int trials = tl_trials(16), chained = 0, shorter = 0;
  mp_events p, a, b, seedp;
  mp_events_init(&p);
  mp_events_init(&a);
  mp_events_init(&b);
  mp_events_init(&seedp);
  for (int t = 0; t < trials; t++) {
    mp_graph *g = training_graph(&r, 4 + t % 9);
    double bw = t % 3 == 2 ? (double)rnd(&r, 1, 8) : 0;
    int64_t keep = mp_order_peak(g, g->given), floor = mp_events_floor(g);
    int64_t budget = floor + (keep - floor) * (int64_t)rnd(&r, 1, 6) / 10;
    mp_ctx c;
    bool found = false; /* dtr's plan: halfway to keep-all until it finds one */
    for (int up = 0; up < 4 && !found; up++) {
      found = run("dtr", g, budget, bw, 1, NULL, &p, &c) == 0 && c.status != MP_INFEASIBLE;
      if (!found) budget += (keep - budget) / 2;
    }
    if (found) {
      double base = judged(g, &p, bw, budget, "dtr");
      for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(run(searchers[k], g, budget, bw, 5, &p, &a, &c), 0);
        double x = judged(g, &a, bw, budget, searchers[k]);
        ck_assert_msg(x <= base * (1 + 1e-12), "dtr,%s: %.17g, dtr alone %.17g", searchers[k], x, base);
        ck_assert_int_eq(run(searchers[k], g, budget, bw, 5, &p, &b, &c), 0);
        ck_assert_msg(same_plan(&a, &b), "dtr,%s: two runs of seed 5 differ", searchers[k]);
        chained++;
        shorter += x < base * (1 - 1e-9);
      }
    }
    if (mp_rseed_chen(g, g->given, budget, 0, &seedp) == 0) {
      double base = judged(g, &seedp, bw, budget, "Chen's seed");
      for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(run(searchers[k], g, budget, bw, 5, NULL, &a, &c), 0);
        double x = judged(g, &a, bw, budget, searchers[k]);
        ck_assert_msg(x <= base * (1 + 1e-12), "%s: %.17g, its Chen seed %.17g", searchers[k], x, base);
      }
    }
    mp_graph_destroy(g);
  }
  mp_events_destroy(&p);
  mp_events_destroy(&a);
  mp_events_destroy(&b);
  mp_events_destroy(&seedp);
  ck_assert_msg(chained >= trials, "only %d chains ran in %d trials (%d shorter than dtr)", chained,
                trials, shorter);
  tl_cleanup();
}
END_TEST

/* dtr,remat-ilp: when dtr's plan (no copies) projects on Checkmate's stage
 * shape within the budget, remat-ilp starts from it: even with its own
 * incumbents off (greedy=0 rounds=0) and no time left for the MILP it
 * returns a plan, never longer than the projection. */
START_TEST(ilp_chain_starts_from_the_plan_before) {
  mp_rng r;
  mp_rng_seed(&r, 80);
  int trials = tl_trials(30), projected = 0;
  const mp_solver *ilp = mp_solver_find("remat-ilp");
  const char *sets[] = {"greedy=0", "rounds=0", "node_heur=0", "proof=0"};
  mp_events p, a;
  mp_events_init(&p);
  mp_events_init(&a);
  for (int t = 0; t < trials; t++) {
    mp_graph *g = training_graph(&r, 3 + t % 8);
    int64_t keep = mp_order_peak(g, g->given), floor = mp_events_floor(g);
    int64_t budget = floor + (keep - floor) * (int64_t)rnd(&r, 2, 8) / 10;
    mp_ctx c;
    if (run("dtr", g, budget, 0, 1, NULL, &p, &c) || c.status == MP_INFEASIBLE) {
      mp_graph_destroy(g);
      continue;
    }
    rs_model m;
    rs_model_init(&m, g, g->given);
    rs_dec d;
    rs_dec_init(&m, &d);
    int64_t peak;
    if (rs_project(&m, &p, &d) == 0 && (peak = rm_peak(&m, &d, g->given)) >= 0 && peak <= budget) {
      double cost = rs_cost(&m, &d);
      memset(&c, 0, sizeof c);
      mp_error err;
      ck_assert_int_eq(mp_solver_options(ilp, 4, sets, c.opt, &err), MP_OK);
      c.g = g;
      c.start_order = g->given;
      c.budget = budget;
      c.seed = 1;
      c.start_events = &p;
      c.events = &a;
      c.status = MP_FEASIBLE;
      c.deadline = mp_now() - 1; /* no time left */
      ck_assert_msg(ilp->solve(&c) == 0, "dtr,remat-ilp at %lld: %s", (long long)budget, c.msg);
      double x = judged(g, &a, 0, budget, "dtr,remat-ilp");
      ck_assert_msg(x <= cost * (1 + 1e-12), "dtr,remat-ilp: %.17g, the projection %.17g", x, cost);
      projected++;
    }
    rs_dec_destroy(&d);
    rs_model_destroy(&m);
    mp_graph_destroy(g);
  }
  mp_events_destroy(&p);
  mp_events_destroy(&a);
  ck_assert_msg(projected * 3 >= trials, "only %d of %d dtr plans projected", projected, trials);
  tl_cleanup();
}
END_TEST

Suite *suite_remat_seed(void) {
  Suite *s = suite_create("remat_seed");
  TCase *tc = tcase_create("remat_seed");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, keep_all_maps_to_keep_all);
  tcase_add_test(tc, heuristic_plans_map_within_budget);
  tcase_add_test(tc, chains_never_longer);
  tcase_add_test(tc, ilp_chain_starts_from_the_plan_before);
  suite_add_tcase(s, tc);
  return s;
}
