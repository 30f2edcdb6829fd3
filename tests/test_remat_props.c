/* test_remat_props.c - property tests over every registered recomputation
 * and offload solver (MP_DECIDES_EVENTS, iterated from mp_registry: a new
 * solver file is picked up at the next build without editing a list), with
 * its `quick` options, through the harness, on one fixed list of trials:
 * random graphs with every feature of DESIGN 1.1 and random costs, the
 * order of given / greedy / dfs, budgets from below the floor to above the
 * keep-all peak, bandwidth 0 (no offload) or a link a tensor crosses in
 * about one node's time.  For each solver and trial:
 *  - a plan verifies (the judge, and the independent oracle of
 *    tests/oracle_remat.c for its memory and time), stays within the
 *    budget, and its residencies' placement verifies;
 *  - no plan beats the brute-force optimum of tests/remat_brute.h (with
 *    copies when the link allows them) over every first-run order;
 *  - statuses are honest, the stage's claims and the harness's verdict
 *    alike: optimal only at the optimum over the plans that follow the
 *    order handed in, a duration bound never above it, infeasible only
 *    where no such plan exists (or below the floor);
 *  - a run without a plan where the keep-all plan of the order fits is
 *    counted and printed (a weakness, not a broken contract);
 *  - the same seed gives the same plan; a plan file verifies;
 *  - no plan: a message; a refusal only from a solver whose descriptor
 *    mentions a size cap.
 * Every solver runs every trial: no clock budget, no skip but a documented
 * refusal, which is counted and printed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "remat_brute.h"
#include "remat_check.h"

enum { TRIALS = 48, BRUTE_STATES = 200000, BRUTE_LABELS = 200000 };

/* One trial: the graph, the order handed to the stage, the budget, the link,
 * and the optima the brute force found (NAN: too big to know; INFINITY: no
 * plan exists). */
typedef struct trial {
  int index;
  char *json;
  mp_graph *g;
  or_model om;
  const char *order_chain;
  int *order;
  int64_t peak, floor, budget;
  double bw;
  double opt_all, opt_scope;
  uint64_t seed;
} trial;

static bool near_le(double a, double b) { return a <= b + 1e-9 * fmax(1.0, fabs(b)); }

/* The optimum, INFINITY when there is none, NAN when too big to tell. */
static double brute(const mp_graph *g, int64_t budget, const int *order, double bw) {
  double d;
  int rc = bw > 0 ? rb_optimum_copies(g, budget, order, bw, BRUTE_LABELS, &d, NULL)
                  : rb_optimum(g, budget, order, BRUTE_STATES, &d, NULL);
  return rc == RB_FOUND ? d : rc == RB_INFEASIBLE ? INFINITY : NAN;
}

/* Budgets: at the floor, at the keep-all peak, between, below, above. */
static int64_t pick_budget(mp_rng *r, int i, int64_t floor, int64_t peak) {
  switch (i % 6) {
  case 0: return floor;
  case 1: return peak;
  case 2: return floor > 0 ? floor - 1 : 0;
  case 3: return peak + 1 + (int64_t)mp_rng_below(r, 100);
  default: return floor + (int64_t)mp_rng_below(r, (uint64_t)(peak - floor + 1));
  }
}

/* A training step of k layers: x -> a1 .. ak -> loss, then gk(ak, loss),
 * g(i)(a(i), g(i+1)): the activations a backward pass reads, which is where
 * recomputation and offload pay.  Random sizes. */
static char *training_json(mp_rng *r, int k) {
  size_t cap = 4096;
  char *js = malloc(cap);
  int len = snprintf(js, cap, "{\"name\":\"train%d\",\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":%d,"
                     "\"inputs\":[]}", k, 1 + (int)mp_rng_below(r, 4000));
  for (int i = 1; i <= k + 1; i++) /* a1 .. ak, then the loss */
    len += snprintf(js + len, cap - (size_t)len, ",{\"id\":%d,\"size\":%d,\"inputs\":[%d]}", i,
                    1 + (int)mp_rng_below(r, 4000), i - 1);
  for (int i = k; i >= 1; i--) /* g_i = node 2k + 2 - i reads a_i and the gradient after it */
    len += snprintf(js + len, cap - (size_t)len, ",{\"id\":%d,\"size\":%d,\"inputs\":[%d,%d]}",
                    2 * k + 2 - i, 1 + (int)mp_rng_below(r, 4000), i, 2 * k + 1 - i);
  snprintf(js + len, cap - (size_t)len, "]}");
  return js;
}

static void trial_make(trial *t, int i, mp_rng *r) {
  static const char *const orders[] = {"given", "greedy", "dfs"};
  memset(t, 0, sizeof *t);
  t->index = i;
  t->seed = 500 + (uint64_t)i;
  int n = 2 + i % 6;
  t->json = i % 3 == 2 ? training_json(r, 2 + (i / 3) % 4) : tl_random_json(r, n, TL_ALL);
  mp_error err;
  t->g = tl_graph_try(t->json, false, &err);
  ck_assert_msg(t->g != NULL, "%s", err.msg);
  rc_random_costs(t->g, r);
  ck_assert_int_eq(or_build(t->g, &t->om), 0);
  t->order_chain = orders[i % 3];
  mp_result a;
  ck_assert_int_eq(tl_run(t->g, t->order_chain, "bysize", t->seed, 0, NULL, &a), MP_OK);
  t->order = malloc(sizeof(int) * (size_t)t->g->n);
  memcpy(t->order, a.order, sizeof(int) * (size_t)t->g->n);
  mp_result_destroy(&a);
  t->peak = mp_order_peak(t->g, t->order);
  t->floor = mp_events_floor(t->g);
  t->budget = pick_budget(r, i / 2, t->floor, t->peak);
  t->bw = i % 2 ? 0 : (double)(500u << (2 * mp_rng_below(r, 3)));
  t->opt_all = brute(t->g, t->budget, NULL, t->bw);
  t->opt_scope = brute(t->g, t->budget, t->order, t->bw);
}

static void trial_destroy(trial *t) {
  or_destroy(&t->om);
  mp_graph_destroy(t->g);
  free(t->order);
  free(t->json);
}

static mp_err run_solver(const trial *t, const mp_solver *s, mp_result *r) {
  mp_instance in = {t->g, NULL};
  const char *const *sets = tl_quick_sets(s);
  int n_sets = 0;
  while (sets && sets[n_sets]) n_sets++;
  mp_run_spec spec = {.order = t->order_chain, .remat = s->name, .place = "bysize", .seed = t->seed,
                      .time_limit = 5, .sets = sets, .n_sets = n_sets, .has_budget = true,
                      .budget = t->budget, .has_bandwidth = true, .bandwidth = t->bw};
  return mp_run(&in, &spec, r);
}

#define FAILF(t, what, ...)                                                                          \
  ck_abort_msg("%s (trial %d, %s order, budget %lld of floor %lld / peak %lld, bandwidth %g): " what \
               "\n%s", s->name, (t)->index, (t)->order_chain, (long long)(t)->budget,                \
               (long long)(t)->floor, (long long)(t)->peak, (t)->bw, __VA_ARGS__, (t)->json)

/* The plan, checked again by the judge and by the independent oracle. */
static void check_plan(const trial *t, const mp_solver *s, const mp_result *r) {
  const mp_events *p = &r->remat.events;
  mp_error err;
  if (mp_events_verify(t->g, p, t->bw, NULL, &err)) FAILF(t, "invalid plan: %s", err.msg);
  if (r->remat.fig.live_peak > t->budget || r->fig.live_peak != r->remat.fig.live_peak)
    FAILF(t, "live peak %lld (residencies %lld)", (long long)r->remat.fig.live_peak,
          (long long)r->fig.live_peak);
  if (mp_verify_offsets(&r->prob, r->offsets, &err)) FAILF(t, "placement: %s", err.msg);
  ox_event *ox = rc_to_oracle(t->g, p);
  ox_result o;
  ox_check(t->g, &t->om, ox, p->n, t->bw, &o);
  if (!o.valid) FAILF(t, "the oracle refuses the plan at event %d: %s", o.bad_event, o.rule);
  if (o.peak != r->remat.fig.live_peak || fabs(o.duration - r->remat.fig.duration) > 1e-9 * fmax(1, o.duration))
    FAILF(t, "oracle peak %lld duration %.17g, judge %lld %.17g", (long long)o.peak, o.duration,
          (long long)r->remat.fig.live_peak, r->remat.fig.duration);
  ox_result_destroy(&o);
  free(ox);
}

/* Claims and verdicts against the brute force. */
static void check_honesty(const trial *t, const mp_solver *s, const mp_result *r, bool *brute_checked) {
  const mp_stage_result *sr = rc_events_stage(r);
  bool plan = r->has_figures;
  double d = plan ? r->remat.fig.duration : NAN;
  *brute_checked = !isnan(t->opt_all) && !isnan(t->opt_scope);
  if (plan && !isnan(t->opt_all) && !near_le(t->opt_all, d))
    FAILF(t, "duration %.17g beats the optimum %.17g", d, t->opt_all);
  if (isnan(t->opt_scope) || !sr) return;
  if (sr->status == MP_OPTIMAL && plan && !near_le(d, t->opt_scope))
    FAILF(t, "claims optimal at %.17g, the optimum is %.17g", d, t->opt_scope);
  if (!near_le(sr->duration_bound, t->opt_scope))
    FAILF(t, "duration bound %.17g above the optimum %.17g", sr->duration_bound, t->opt_scope);
  if (sr->status == MP_INFEASIBLE && isfinite(t->opt_scope))
    FAILF(t, "claims infeasible, but a plan of duration %.17g exists", t->opt_scope);
  if (r->remat.status == MP_OPTIMAL && plan && !near_le(d, t->opt_scope))
    FAILF(t, "remat_status optimal at %.17g, the optimum is %.17g", d, t->opt_scope);
  if (r->remat.status == MP_INFEASIBLE && isfinite(t->opt_scope))
    FAILF(t, "remat_status infeasible, but a plan of duration %.17g exists", t->opt_scope);
}

static void check_file(const trial *t, const mp_solver *s, const mp_result *r) {
  mp_instance in = {t->g, NULL};
  char *buf = rc_plan_bytes(t->g, r);
  tl_check_plan_bytes(buf);
  char *path = tl_write_temp(buf, ".plan.json");
  mp_error err;
  if (mp_plan_verify(&in, path, 0, &err)) FAILF(t, "its plan file does not verify: %s", err.msg);
  free(path);
  free(buf);
}

typedef struct stats {
  int trials, plans, no_plan, infeasible, refused, brute, recomputing, offloading, below_keepall;
} stats;

/* What a run may end with: a plan; a proof that none fits (the floor, or
 * the stage's exhausted search, an error overall when the order was
 * searched); the solver giving up by itself (its stage failed, with its
 * own message).  A plan the harness rejected is a failure of the test. */
static void check_outcome(const trial *t, const mp_solver *s, mp_err rc, const mp_result *a,
                          const mp_stage_result *sr) {
  bool gave_up = rc == MP_ESOLVER && sr && sr->status == MP_ERROR && a->remat.status == MP_ERROR;
  bool proof = a->remat.status == MP_INFEASIBLE && (rc == MP_OK || a->status == MP_ERROR);
  if (!(rc == MP_OK || gave_up || proof))
    FAILF(t, "rc %d, status %s, remat %s: %s", rc, mp_status_name(a->status),
          mp_status_name(a->remat.status), a->msg);
}

/* One solver on one trial. */
static void check_one(const trial *t, const mp_solver *s, stats *st) {
  mp_result a, b;
  mp_err rc = run_solver(t, s, &a);
  const mp_stage_result *sr = rc_events_stage(&a);
  st->trials++;
  if (rc == MP_ESOLVER && sr && sr->status == MP_REFUSED) {
    if (!rc_may_refuse(s) || !sr->msg[0]) FAILF(t, "refused without a documented cap: %s", a.msg);
    st->refused++;
    mp_result_destroy(&a);
    return;
  }
  check_outcome(t, s, rc, &a, sr);
  bool brute_checked;
  check_honesty(t, s, &a, &brute_checked);
  st->brute += brute_checked;
  if (a.has_figures) {
    st->plans++;
    st->recomputing += a.remat.fig.recomputed > 0;
    st->offloading += a.remat.fig.transferred > 0;
    check_plan(t, s, &a);
    if (t->index % 4 == 0) check_file(t, s, &a);
  } else if (a.remat.status == MP_INFEASIBLE) {
    st->infeasible++;
    if (t->budget >= t->floor && !(sr && sr->status == MP_INFEASIBLE))
      FAILF(t, "infeasible without a proof: %s", a.msg);
  } else {
    st->no_plan++;
    if (!sr || !sr->msg[0]) FAILF(t, "no plan and no message: %s", a.msg);
    st->below_keepall += t->budget >= t->peak;
  }
  mp_err rc2 = run_solver(t, s, &b);
  bool timed = a.remat.status == MP_TIMEOUT || b.remat.status == MP_TIMEOUT;
  if (!timed && (rc2 != rc || a.has_figures != b.has_figures ||
                 (a.has_figures && !rc_same_events(&a.remat.events, &b.remat.events))))
    FAILF(t, "the same seed gave another result (rc %d, then %d)", rc, rc2);
  mp_result_destroy(&a);
  mp_result_destroy(&b);
}

START_TEST(every_events_solver) {
  const mp_solver *solvers[64];
  int ns = 0;
  for (int k = 0; k < mp_registry_size && ns < 64; k++)
    if (mp_registry[k]->decides == MP_DECIDES_EVENTS) solvers[ns++] = mp_registry[k];
  ck_assert_msg(ns > 0, "no events solver registered");
  stats *st = calloc((size_t)ns, sizeof *st);
  mp_rng r;
  mp_rng_seed(&r, 13013);
  int trials = tl_trials(TRIALS);
  for (int i = 0; i < trials; i++) {
    trial t;
    trial_make(&t, i, &r);
    for (int k = 0; k < ns; k++) check_one(&t, solvers[k], &st[k]);
    trial_destroy(&t);
  }
  for (int k = 0; k < ns; k++) {
    if (tl_verbose()) /* make test V=1 */
      printf("remat_props: %-12s %d trials: %d plans (%d recompute, %d offload), %d without a plan, %d "
             "infeasible, %d refused; %d against the brute force\n",
             solvers[k]->name, st[k].trials, st[k].plans, st[k].recomputing, st[k].offloading,
             st[k].no_plan, st[k].infeasible, st[k].refused, st[k].brute);
    if (st[k].below_keepall && tl_verbose())
      printf("remat_props: note: %s returned no plan on %d trials where the keep-all plan fits\n",
             solvers[k]->name, st[k].below_keepall);
    ck_assert_msg(st[k].plans > 0, "%s never returned a plan", solvers[k]->name);
    ck_assert_msg(st[k].brute * 2 > st[k].trials, "%s: only %d of %d trials checked against the brute force",
                  solvers[k]->name, st[k].brute, st[k].trials);
  }
  free(st);
  tl_cleanup();
}
END_TEST

Suite *suite_remat_props(void) {
  Suite *s = suite_create("remat_props");
  TCase *tc = tcase_create("remat_props");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, every_events_solver);
  suite_add_tcase(s, tc);
  return s;
}
