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
      decoded++;
      reruns += h.reruns > 0;
      copies += h.outs > 0;
    }
    free(genes);
    mp_rdec_free(&d);
    free(order);
    or_free(&om);
    mp_graph_free(g);
    free(js);
  }
  fprintf(stderr, "decoded %d failed %d reruns %d copies %d\n", decoded, failed, reruns, copies);
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
  char msg[256];
  ck_assert_int_eq(mp_solver_options(s, ns, sets, c->opt, msg, sizeof msg), 0);
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
static void judge_run(const char *name, const mp_graph *g, const int *order, bool follow,
                      int64_t budget, double bw, int brc, double opt, bool excused, tally *t,
                      const char *js) {
  mp_ctx c;
  mp_events ev;
  mp_events_init(&ev);
  int rc = run_solver(name, g, order, budget, bw, 7, NULL, &c, &ev);
  t->cases++;
  if (rc != 0) {
    ck_assert_msg(ev.n == 0 && strstr(c.msg, "no plan within budget"), "%s: %s", name, c.msg);
    t->none++;
    t->missed += brc == RB_FOUND;
    if (brc == RB_FOUND && getenv("MP_SHOW")) {
      fprintf(stderr, "missed at %lld (opt %g)\n%s\n", (long long)budget, opt, js);
      mp_events bp;
      mp_events_init(&bp);
      double o2;
      rb_optimum(g, budget, follow ? order : NULL, 400000, &o2, &bp);
      for (int i = 0; i < bp.n; i++) {
        char lab[96];
        mp_event_label(g, bp.ev[i], lab, sizeof lab);
        fprintf(stderr, "  %s\n", lab);
      }
      mp_events_destroy(&bp);
    }
    ck_assert_msg(brc != RB_FOUND || excused, "%s: no plan at %lld, the optimum is %g\n%s", name,
                  (long long)budget, opt, js);
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
    t->excused += excused;
    if (getenv("MP_SHOW") && f.duration > opt + 1e-9 * fmax(1, opt)) fprintf(stderr, "subopt %g vs %g at %lld excused %d\n%s\n", f.duration, opt, (long long)budget, excused, js);
  }
  mp_events_destroy(&ev);
}

/* Budgets from the keep-all peak of the order down to the floor, without
 * copies: every solver run is judged against rb_optimum. */
static void against_brute(const char *name, bool follow, uint64_t seed, int trials, tally *t) {
  mp_rng r;
  mp_rng_seed(&r, seed);
  for (int k = 0; k < trials; k++) {
    int n = 3 + k % 8;
    char *js = tl_random_json(&r, n, TL_ALL);
    mp_graph *g = tl_graph(js);
    random_costs(g, &r);
    int64_t floor = mp_events_floor(g), keep = mp_order_peak(g, g->given);
    for (int64_t b = keep - 1; b >= floor - 1; b -= 1 + (keep - floor) / 3) {
      double opt = -1;
      mp_events bp;
      mp_events_init(&bp);
      int brc = rb_optimum(g, b, follow ? g->given : NULL, 400000, &opt, &bp);
      if (brc != RB_TOO_BIG)
        judge_run(name, g, g->given, follow, b, 0, brc, opt, brc == RB_FOUND && rereads_written(g, &bp),
                  t, js);
      mp_events_destroy(&bp);
    }
    mp_graph_free(g);
    free(js);
  }
}

START_TEST(sa_against_brute) {
  tally t = {0};
  against_brute("remat-sa", true, 1302, tl_trials(150), &t);
  fprintf(stderr, "remat-sa: %d cases, %d plans, %d at the optimum, %d without plan (%d missed), %d infeasible\n",
          t.cases, t.found, t.reached, t.none, t.missed, t.infeasible);
  ck_assert_msg(t.reached * 10 >= t.found * 8, "remat-sa reached the optimum in %d of %d", t.reached,
                t.found);
  tl_cleanup();
}
END_TEST

Suite *suite_remat_search(void) {
  Suite *s = suite_create("remat_search");
  TCase *tc = tcase_create("remat_search");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, decoder_against_judge);
  tcase_add_test(tc, sa_against_brute);
  suite_add_tcase(s, tc);
  return s;
}
