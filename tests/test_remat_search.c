/* test_remat_search.c - the search-based recomputation solvers and their
 * library: the genome decoder (solvers/lib/remat_decode.h) against the
 * judge on random graphs, orders and genomes; remat-sa and remat-ga against
 * the brute-force optimum on tiny graphs (never below it, reaching it in
 * most cases), their claims (optimal, infeasible), budgets, seeds and time
 * limits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "lib/remat_decode.h"
#include "oracle.h"
#include "registry.h"
#include "remat_brute.h"
#include "remat_clock.h"
#include "testlib.h"

static bool near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)); }

/* Random costs (tenths) on some nodes, as a file would give them. */
static void random_costs(mp_graph *g, mp_rng *r) {
  for (int v = 0; v < g->n; v++)
    if (mp_rng_below(r, 2)) {
      g->nodes[v].cost = (double)mp_rng_below(r, 50) / 10.0;
      g->nodes[v].has_cost = true;
    }
}

static void random_genes(const mp_rdec *d, mp_rng *r, mp_rgene *genes) {
  for (int s = 0; s < d->n_slots; s++) {
    int kind = (int)mp_rng_below(r, MP_RK_N);
    if (!mp_rdec_allows(d, s, kind)) kind = MP_RK_KEEP;
    int len = mp_rdec_gap_len(d, s);
    genes[s] = (mp_rgene){(uint8_t)kind, (int32_t)mp_rng_below(r, (uint64_t)len + 1),
                          (int32_t)mp_rng_below(r, (uint64_t)len + 1)};
  }
}

/* Does plan p run a node again after an in-place write changed storage it
 * reads (a write that came after its first run)?  The verifier allows it;
 * the search solvers never do it (it would read changed data). */
static bool rereads_written(const mp_graph *g, const mp_events *p) {
  int n = g->n;
  int *writes = calloc((size_t)g->n_buf + 1, sizeof(int)); /* in-place writes so far, per storage */
  int *seen = calloc((size_t)n * ((size_t)g->n_buf + 1), sizeof(int)); /* at each node's first run */
  bool *ran = calloc((size_t)n + 1, sizeof(bool)), bad = false;
  for (int i = 0; i < p->n && !bad; i++) {
    if (p->ev[i].kind != MP_EV_RUN) continue;
    int v = p->ev[i].id;
    for (int k = 0; k < g->n_reads[v]; k++) {
      int q = g->reads[v][k];
      if (!ran[v]) seen[v * (g->n_buf + 1) + q] = writes[q];
      else if (seen[v * (g->n_buf + 1) + q] != writes[q]) bad = true;
    }
    const mp_node *nd = &g->nodes[v];
    if (!ran[v] && nd->inplace && nd->has_alias && nd->alias.node >= 0) {
      int j = nd->alias.node, kk = nd->alias.out < 0 ? 0 : nd->alias.out;
      if (g->nodes[j].n_out > 0 && g->root_of[j][kk] >= 0) writes[g->root_of[j][kk]]++;
    }
    ran[v] = true;
  }
  free(writes);
  free(seen);
  free(ran);
  return bad;
}

/* The decoder's plan is valid, follows the order, and its figures are the
 * judge's. */
static void check_decoded(const mp_graph *g, mp_rdec *d, const int *order, double bw,
                          int64_t budget, const mp_rfig *f, const char *js) {
  mp_error err;
  ck_assert_msg(mp_events_verify(g, &d->plan, bw, NULL, &err) == 0, "%s\n%s", err.msg, js);
  ck_assert_msg(mp_events_follow(g, &d->plan, order), "first runs leave the order\n%s", js);
  mp_ev_figures ef;
  mp_events_evaluate(g, &d->plan, bw, budget, &ef);
  ck_assert_msg(ef.live_peak == f->peak, "peak %lld, the judge says %lld\n%s", (long long)f->peak,
                (long long)ef.live_peak, js);
  ck_assert_msg(near(ef.duration, f->duration), "duration %.17g, the judge says %.17g\n%s",
                f->duration, ef.duration, js);
  ck_assert_int_eq(ef.recomputed, f->reruns);
  ck_assert_int_eq(ef.n_ins, f->ins);
  ck_assert_int_eq(ef.n_outs, f->outs);
  if (d->strict)
    ck_assert_msg(!rereads_written(g, &d->plan), "a rerun reads storage written in place since\n%s", js);
  ck_assert_msg((f->excess > 0) == (f->peak > budget), "excess %g at peak %lld, budget %lld",
                f->excess, (long long)f->peak, (long long)budget);
}

START_TEST(decoder_against_judge) {
  mp_rng r;
  mp_rng_seed(&r, 1301);
  int trials = tl_trials(1500), decoded = 0, failed = 0, reruns = 0, copies = 0;
  for (int t = 0; t < trials; t++) {
    int n = 1 + t % 16;
    char *js = tl_random_json(&r, n, TL_ALL);
    mp_graph *g = tl_graph(js);
    if (t % 2) random_costs(g, &r);
    or_model om;
    ck_assert_int_eq(or_build(g, &om), 0);
    int *order = malloc(sizeof(int) * (size_t)n);
    or_random_order(&om, &r, order);
    double bw = t % 3 ? (double)(1 + mp_rng_below(&r, 3000)) : 0;
    mp_rdec d;
    mp_rdec_init(&d, g, bw);
    d.strict = t % 5 != 0;
    mp_rdec_set_order(&d, order);
    mp_rgene *genes = malloc(sizeof(mp_rgene) * (size_t)(d.n_slots + 1));
    /* keeping everything: the plan of the order, never a failure */
    mp_rgenes_keep_all(&d, genes);
    mp_rfig f;
    ck_assert_int_eq(mp_rdec_decode(&d, genes, INT64_MAX, &f), 0);
    check_decoded(g, &d, order, bw, INT64_MAX, &f, js);
    ck_assert_int_eq(f.peak, mp_order_peak(g, order));
    ck_assert(near(f.duration, mp_events_duration_floor(g)) && f.reruns == 0);
    for (int k = 0; k < 6; k++) {
      random_genes(&d, &r, genes);
      int64_t budget = f.peak - (int64_t)mp_rng_below(&r, (uint64_t)f.peak + 1);
      mp_rfig h;
      if (mp_rdec_decode(&d, genes, budget, &h)) {
        ck_assert(h.fail_slot >= -1 && h.fail_slot < d.n_slots);
        failed++;
        continue;
      }
      check_decoded(g, &d, order, bw, budget, &h, js);
      int at;
      ck_assert_msg(h.peak >= mp_rdec_inplace_floor(&d, &at), "a plan below the in-place floor\n%s", js);
      decoded++;
      reruns += h.reruns > 0;
      copies += h.outs > 0;
    }
    free(genes);
    mp_rdec_destroy(&d);
    free(order);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  ck_assert_msg(decoded > 4 * trials && reruns > trials && copies > trials / 2,
                "decoded %d (failed %d), with reruns %d, with copies %d", decoded, failed, reruns,
                copies);
  tl_cleanup();
}
END_TEST

/* ---- the solvers against the brute force ---- */

/* Run events solver `name` with its quick options (and `extra`, "name=value"
 * or NULL). */
static int run_solver(const char *name, const mp_graph *g, const int *order, int64_t budget,
                      double bw, uint64_t seed, const char *extra, mp_ctx *c, mp_events *ev) {
  const mp_solver *s = mp_solver_find(name);
  ck_assert_msg(s != NULL, "no solver %s", name);
  ck_assert_int_eq(s->decides, MP_DECIDES_EVENTS);
  memset(c, 0, sizeof *c);
  const char *sets[MP_MAX_OPTS + 2];
  int ns = 0;
  for (const char *const *q = tl_quick_sets(s); *q; q++) sets[ns++] = *q;
  if (extra) sets[ns++] = extra;
  mp_error err;
  ck_assert_int_eq(mp_solver_options(s, ns, sets, c->opt, &err), MP_OK);
  c->g = g;
  c->start_order = order;
  c->budget = budget;
  c->bandwidth = bw;
  c->events = ev;
  c->seed = seed;
  c->status = MP_FEASIBLE;
  return s->solve(c);
}

typedef struct tally {
  int cases, found, reached, none, missed, infeasible, excused;
} tally;

/* One solver run against the optimum (rc of rb_*: RB_FOUND with opt). */
static void judge_run(const char *name, const char *extra, const mp_graph *g, const int *order,
                      bool follow, int64_t budget, double bw, int brc, double opt, bool excused,
                      tally *t, const char *js) {
  mp_ctx c;
  mp_events ev;
  mp_events_init(&ev);
  int rc = run_solver(name, g, order, budget, bw, 7, extra, &c, &ev);
  t->cases++;
  if (rc != 0) {
    ck_assert_msg(ev.n == 0 && strstr(c.msg, "no plan within budget"), "%s: %s", name, c.msg);
    t->none++;
    t->missed += brc == RB_FOUND;
    ck_assert_msg(brc != RB_FOUND || excused || (extra && strstr(extra, "strict=0")),
                  "%s: no plan at %lld, the optimum is %g\n%s", name, (long long)budget, opt, js);
  } else if (c.status == MP_INFEASIBLE) {
    ck_assert_msg(budget < mp_events_floor(g), "%s: infeasible at %lld above the floor\n%s", name,
                  (long long)budget, js);
    ck_assert_int_eq(ev.n, 0);
    t->infeasible++;
  } else {
    mp_error err;
    ck_assert_msg(mp_events_verify(g, &ev, bw, NULL, &err) == 0, "%s: %s\n%s", name, err.msg, js);
    if (follow) ck_assert_msg(mp_events_follow(g, &ev, order), "%s leaves the order\n%s", name, js);
    mp_ev_figures f;
    mp_events_evaluate(g, &ev, bw, budget, &f);
    ck_assert_msg(f.live_peak <= budget, "%s: peak %lld over budget %lld\n%s", name,
                  (long long)f.live_peak, (long long)budget, js);
    ck_assert_msg(brc == RB_FOUND, "%s found a plan the brute force says cannot exist\n%s", name, js);
    ck_assert_msg(f.duration >= opt - 1e-9 * fmax(1, opt), "%s: %.17g below the optimum %.17g\n%s",
                  name, f.duration, opt, js);
    ck_assert_msg(c.duration_bound <= f.duration + 1e-9 && c.duration_bound <= opt + 1e-9,
                  "%s: duration bound %g above the optimum %g", name, c.duration_bound, opt);
    if (c.status == MP_OPTIMAL)
      ck_assert_msg(f.duration <= opt + 1e-9 * fmax(1, opt), "%s: optimal at %g, optimum %g\n%s",
                    name, f.duration, opt, js);
    t->found++;
    t->reached += f.duration <= opt + 1e-9 * fmax(1, opt);
    t->excused += excused && f.duration > opt + 1e-9 * fmax(1, opt);
  }
  mp_events_destroy(&ev);
}

/* Budgets from the keep-all peak of the given order down to just below the
 * floor, with copies when bw > 0: every run is judged against the exact
 * optimum (rb_optimum, rb_optimum_copies) over the plans that follow the
 * given order (follow) or over all. */
static void against_brute(const char *name, const char *extra, bool follow, double bw,
                          uint64_t seed, int trials, tally *t) {
  mp_rng r;
  mp_rng_seed(&r, seed);
  for (int k = 0; k < trials; k++) {
    int n = 3 + k % (bw > 0 ? 5 : 8);
    char *js = tl_random_json(&r, n, TL_ALL);
    mp_graph *g = tl_graph(js);
    random_costs(g, &r);
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, g->given);
    for (int64_t b = keep - 1; b >= floor - 1; b -= 1 + (keep - floor) / 3) {
      double opt = -1;
      mp_events bp;
      mp_events_init(&bp);
      const int *scope = follow ? g->given : NULL;
      int brc = bw > 0 ? rb_optimum_copies(g, b, scope, bw, 300000, &opt, &bp)
                       : rb_optimum(g, b, scope, 400000, &opt, &bp);
      if (brc == RB_FOUND && follow) { /* the in-place floor bounds every plan of the order */
        mp_rdec d;
        mp_rdec_init(&d, g, bw);
        mp_rdec_set_order(&d, g->given);
        int at;
        ck_assert_msg(mp_events_memory(g, &bp, NULL) >= mp_rdec_inplace_floor(&d, &at),
                      "the optimum peaks below the in-place floor\n%s", js);
        mp_rdec_destroy(&d);
      }
      if (brc != RB_TOO_BIG)
        judge_run(name, extra, g, g->given, follow, b, bw, brc, opt,
                  brc == RB_FOUND && rereads_written(g, &bp), t, js);
      mp_events_destroy(&bp);
    }
    mp_graph_destroy(g);
    free(js);
  }
}

/* The share of plans at the optimum is asserted on samples of 20 plans or
 * more (MP_QUICK runs fewer trials). */
static bool most(int reached, int found, int tenths) {
  return found < 20 || reached * 10 >= found * tenths;
}

static void report(const char *what, const tally *t) {
  if (!tl_verbose()) return; /* make test V=1 */
  fprintf(stderr,
          "%s: %d budgets: %d plans, %d at the optimum (of the %d above it, %d where the optimum "
          "reruns a reader after an in-place write); %d without a plan (%d where the optimum "
          "exists, all of them such); %d below the floor\n",
          what, t->cases, t->found, t->reached, t->found - t->reached, t->excused, t->none,
          t->missed, t->infeasible);
}

START_TEST(sa_against_brute) {
  tally t = {0};
  against_brute("remat-sa", NULL, true, 0, 1302, tl_trials(150), &t);
  report("remat-sa", &t);
  ck_assert_msg(most(t.reached, t.found, 9), "remat-sa reached the optimum in %d of %d", t.reached,
                t.found);
  tl_cleanup();
}
END_TEST

/* As the verifier allows (strict=0), the optimum is in reach everywhere. */
START_TEST(loose_against_brute) {
  tally t = {0};
  against_brute("remat-sa", "strict=0", true, 0, 1302, tl_trials(150), &t);
  report("remat-sa strict=0", &t);
  ck_assert_msg(t.missed == 0 && most(t.reached, t.found, 9),
                "remat-sa strict=0: %d of %d at the optimum, %d missed", t.reached, t.found, t.missed);
  tl_cleanup();
}
END_TEST

START_TEST(ga_against_brute) {
  tally t = {0}, u = {0};
  against_brute("remat-ga", NULL, false, 0, 1303, tl_trials(100), &t);
  report("remat-ga (any order)", &t);
  ck_assert_msg(most(t.reached, t.found, 9), "remat-ga reached the optimum in %d of %d", t.reached,
                t.found);
  against_brute("remat-ga", "reorder=0", true, 0, 1304, tl_trials(60), &u);
  report("remat-ga reorder=0", &u);
  ck_assert_msg(most(u.reached, u.found, 8), "remat-ga reorder=0 reached the optimum in %d of %d",
                u.reached, u.found);
  tl_cleanup();
}
END_TEST

START_TEST(copies_against_brute) {
  tally t = {0}, u = {0};
  against_brute("remat-sa", NULL, true, 700, 1305, tl_trials(60), &t);
  report("remat-sa with copies", &t);
  against_brute("remat-ga", "reorder=0", true, 700, 1306, tl_trials(40), &u);
  report("remat-ga reorder=0 with copies", &u);
  ck_assert_msg(most(t.reached, t.found, 7) && most(u.reached, u.found, 7),
                "with copies: remat-sa %d of %d, remat-ga %d of %d", t.reached, t.found, u.reached,
                u.found);
  tl_cleanup();
}
END_TEST

/* ---- claims, seeds, time limits ---- */

static const char *const searchers[] = {"remat-sa", "remat-ga"};

START_TEST(claims) {
  mp_rng r;
  mp_rng_seed(&r, 1307);
  for (int t = 0; t < tl_trials(120); t++) {
    char *js = tl_random_json(&r, 1 + t % 14, TL_ALL);
    mp_graph *g = tl_graph(js);
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, g->given);
    for (size_t k = 0; k < sizeof searchers / sizeof *searchers; k++) {
      mp_ctx c;
      mp_events ev;
      mp_events_init(&ev);
      /* keep-all fits: nothing runs twice, optimal at the duration floor */
      ck_assert_int_eq(run_solver(searchers[k], g, g->given, keep, 0, 3, NULL, &c, &ev), 0);
      ck_assert_msg(c.status == MP_OPTIMAL, "%s: %s at the keep-all peak", searchers[k],
                    mp_status_name(c.status));
      mp_ev_figures f;
      mp_events_evaluate(g, &ev, 0, keep, &f);
      ck_assert(f.duration == mp_events_duration_floor(g) && c.duration_bound == f.duration);
      ck_assert(f.live_peak <= keep && mp_events_follow(g, &ev, g->given));
      /* below the floor: infeasible, a proof, no plan */
      ck_assert_int_eq(run_solver(searchers[k], g, g->given, floor - 1, 0, 3, NULL, &c, &ev), 0);
      ck_assert(c.status == MP_INFEASIBLE && ev.n == 0 && strstr(c.msg, "floor"));
      mp_events_destroy(&ev);
    }
    mp_graph_destroy(g);
    free(js);
  }
  /* no nodes: the empty plan, optimal */
  mp_graph *e = tl_graph("{\"name\":\"empty\",\"nodes\":[]}");
  int order0 = 0;
  for (size_t k = 0; k < sizeof searchers / sizeof *searchers; k++) {
    mp_ctx c;
    mp_events ev;
    mp_events_init(&ev);
    ck_assert_int_eq(run_solver(searchers[k], e, &order0, 0, 0, 3, NULL, &c, &ev), 0);
    ck_assert(c.status == MP_OPTIMAL && ev.n == 0);
    mp_events_destroy(&ev);
  }
  mp_graph_destroy(e);
  tl_cleanup();
}
END_TEST

/* A layered graph of 300 nodes and its budget at 85% of the given order's
 * peak. */
static mp_graph *layered(int n, uint64_t seed) { return tl_gen("layered", n, seed, false); }

static bool same_plan(const mp_events *a, const mp_events *b) {
  if (a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->ev[i].kind != b->ev[i].kind || a->ev[i].id != b->ev[i].id) return false;
  return true;
}

START_TEST(seeds_and_limits) {
  mp_graph *g = layered(300, 5);
  int64_t budget = mp_order_peak(g, g->given) * 85 / 100;
  for (size_t k = 0; k < sizeof searchers / sizeof *searchers; k++) {
    mp_ctx c;
    mp_events a, b;
    mp_events_init(&a);
    mp_events_init(&b);
    /* deterministic for a seed without a limit */
    ck_assert_int_eq(run_solver(searchers[k], g, g->given, budget, 0, 11, NULL, &c, &a), 0);
    ck_assert_int_eq(run_solver(searchers[k], g, g->given, budget, 0, 11, NULL, &c, &b), 0);
    ck_assert_msg(same_plan(&a, &b), "%s: two runs of seed 11 differ", searchers[k]);
    mp_error err;
    ck_assert_msg(mp_events_verify(g, &a, 0, NULL, &err) == 0, "%s", err.msg);
    ck_assert(mp_events_memory(g, &a, NULL) <= budget);
    /* a time limit with fill: used, not overrun; without fill: not waited for */
    for (int fill = 0; fill < 2; fill++) {
      const mp_solver *s = mp_solver_find(searchers[k]);
      memset(&c, 0, sizeof c);
      const char *sets[] = {fill ? "fill=1" : "fill=0"};
      mp_error oerr;
      ck_assert_int_eq(mp_solver_options(s, 1, sets, c.opt, &oerr), MP_OK);
      c.g = g;
      c.start_order = g->given;
      c.budget = budget;
      c.events = &b;
      c.seed = 2;
      c.time_limit = 0.4;
      double t0 = mp_now();
      c.deadline = t0 + c.time_limit;
      int rc = s->solve(&c);
      double took = mp_now() - t0;
      ck_assert_msg(took < c.time_limit + 1.0, "%s fill=%d took %.2f s for a %.1f s limit",
                    searchers[k], fill, took, c.time_limit);
      if (fill) ck_assert_msg(took >= c.time_limit * 0.9 || c.status == MP_OPTIMAL, "%s: %.2f s", searchers[k], took);
      if (rc == 0) ck_assert(mp_events_memory(g, &b, NULL) <= budget);
    }
    mp_events_destroy(&a);
    mp_events_destroy(&b);
  }
  /* limits that cut remat-ga anywhere: in its first orders, its first
   * plans, a generation half made */
  mp_graph *h = layered(400, 9);
  budget = mp_order_peak(h, h->given) * 6 / 10;
  const mp_solver *ga = mp_solver_find("remat-ga");
  for (int k = 1; k <= 6; k++) {
    mp_ctx c;
    memset(&c, 0, sizeof c);
    mp_events ev;
    mp_events_init(&ev);
    const char *sets[] = {"population=6", "local=50", "order_moves=200"};
    mp_error oerr;
    ck_assert_int_eq(mp_solver_options(ga, 3, sets, c.opt, &oerr), MP_OK);
    c.g = h;
    c.start_order = h->given;
    c.budget = budget;
    c.events = &ev;
    c.seed = (uint64_t)k;
    c.time_limit = 0.03 * k;
    c.deadline = mp_now() + c.time_limit;
    if (ga->solve(&c) == 0 && c.status != MP_INFEASIBLE) {
      mp_error err;
      ck_assert_msg(mp_events_verify(h, &ev, 0, NULL, &err) == 0, "%s", err.msg);
      ck_assert(mp_events_memory(h, &ev, NULL) <= budget);
    }
    mp_events_destroy(&ev);
  }
  mp_graph_destroy(h);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* With fill=1 a search restarts until the time limit, which always ends
 * it: without a plan that is a timeout (the next restart might find one),
 * never a "no plan" the search concluded.  The deadline passes at readings
 * of the clock after its minimum of restarts (the reading count of the
 * fill=0 run, whose readings the fill=1 run repeats), at budgets where
 * the fill=0 run finds none.  remat-sa said "no plan" (status error) when
 * the clock cut a restart after the minimum. */
START_TEST(fill_without_a_plan) {
  mp_rng r;
  mp_rng_seed(&r, 1409);
  int cases = 0, cuts = 0;
  for (int t = 0; t < 12; t++) {
    mp_graph *g = tl_random_graph(&r, 8, TL_ALL);
    random_costs(g, &r);
    int64_t floor = mp_events_floor(g);
    for (size_t k = 0; k < sizeof searchers / sizeof *searchers; k++) {
      const mp_solver *s = mp_solver_find(searchers[k]);
      const char *const *quick = tl_quick_sets(s);
      const char *sets[16];
      char fill[64];
      snprintf(fill, sizeof fill, "%s.fill=1", s->name);
      int n = 0;
      for (; quick[n] && n < 14; n++) sets[n] = strstr(quick[n], ".fill=") ? fill : quick[n];
      sets[n] = NULL;
      rc_answer a, b;
      rc_run_clocked(s, NULL, g, g->given, floor, 0, -1, &a);
      if (a.rc == 0 || a.status == MP_REFUSED || a.reads == 0) { /* a plan, or no search */
        rc_answer_destroy(&a);
        continue;
      }
      ck_assert_msg(a.status != MP_TIMEOUT, "%s: timeout without a deadline: %s", s->name, a.msg);
      cases++;
      for (long j = a.reads; j < a.reads + 300; j += 6) {
        rc_run_clocked(s, sets, g, g->given, floor, 0, j, &b);
        ck_assert_msg(b.rc == 0 || b.status == MP_TIMEOUT, /* a later restart may find one */
                      "%s with fill=1 on trial %d at the floor %lld, deadline passed at clock reading %ld "
                      "(the minimum of restarts made %ld; this run %ld): rc %d, %s (%s)",
                      s->name, t, (long long)floor, j, a.reads, b.reads, b.rc, mp_status_name(b.status), b.msg);
        cuts += b.rc != 0;
        rc_answer_destroy(&b);
      }
      rc_answer_destroy(&a);
    }
    mp_graph_destroy(g);
  }
  ck_assert_msg(cases >= 4 && cuts >= 40 * cases, "%d cases without a plan, %d cuts without one", cases, cuts);
  tl_cleanup();
}
END_TEST

Suite *suite_remat_search(void) {
  Suite *s = suite_create("remat_search");
  TCase *tc = tcase_create("remat_search");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, decoder_against_judge);
  tcase_add_test(tc, sa_against_brute);
  tcase_add_test(tc, loose_against_brute);
  tcase_add_test(tc, ga_against_brute);
  tcase_add_test(tc, copies_against_brute);
  tcase_add_test(tc, claims);
  tcase_add_test(tc, seeds_and_limits);
  tcase_add_test(tc, fill_without_a_plan);
  suite_add_tcase(s, tc);
  return s;
}
