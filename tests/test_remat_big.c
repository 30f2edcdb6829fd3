/* test_remat_big.c - the larger property trials of every registered
 * recomputation and offload solver (MP_DECIDES_EVENTS, iterated from
 * mp_registry), with its `quick` options and a short time limit, on
 * generated training graphs of 29-382 nodes (`memplan gen FAMILY --backward`
 * with workspaces and in-place writes, random costs) at 1.0, 0.8, 0.6 and
 * 0.5 of the keep-all peak of the order handed in and at the floor of
 * DESIGN 6.3, about half of them with a host link that moves a mean tensor
 * in the mean cost of a node.  For each run:
 *  - a plan verifies (the judge, and the independent oracle of
 *    tests/oracle_remat.c), stays within the budget (ceil(F x peak),
 *    recomputed here), and every figure the harness reports recomputes
 *    exactly from the oracle's plan: live peak, duration, base time,
 *    overhead, recompute time and count, stall, bytes moved; its
 *    residencies are the oracle's, their offsets are aligned and disjoint
 *    by a pairwise check, the arena and the placement figures recompute;
 *  - no plan: a message; a refusal only under a documented cap;
 *    `infeasible` only below the floor (recomputed here) or as the stage's
 *    own claim, which the cross-check below tests;
 *  - claims against every plan of every solver on the same graph whose
 *    first runs follow the order (a plan is a plan for every budget above
 *    its peak, and at any bandwidth when it copies nothing): no duration
 *    bound above one of them, `optimal` never slower than one, `infeasible`
 *    never where one fits.  The exact solvers (remat-ilp, remat-exact, and
 *    whatever proves bounds) meet each other so on graphs the brute force
 *    of test_remat_props.c cannot reach;
 *  - the same seed gives the same plan file, byte for byte apart from the
 *    timings (runs the time limit cut are counted and not compared);
 *  - the first plan of each solver on each graph round-trips through
 *    `verify`.
 * A failure names the solver, the trial and a command that reproduces it
 * (the graph, with its costs, written to /tmp). */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_write.h"
#include "props_check.h"
#include "remat_check.h"

/* Each run's time limit (s): the searches stop by their quick options
 * well before it on most trials, the exact and LP solvers are cut by it. */
#define LIMIT 0.25

typedef struct big_graph {
  const char *family;
  int n;
  const char *order;
} big_graph;

/* (MP_QUICK runs the first alone) */
static const big_graph graphs[] = {
    {"sp", 30, "given"},        /* 61 nodes */
    {"sp", 14, "given"},        /* 29: where remat-exact's search ends, the exact solvers meet */
    {"chain", 60, "given"},     /* 121: a chain of articulation points */
    {"randwire", 12, "greedy"}, /* 115 */
    {"layered", 80, "given"},   /* 161 */
    {"tree", 190, "given"},     /* 382 */
};
enum { N_GRAPHS = sizeof graphs / sizeof graphs[0] };

/* Budgets as fractions of the keep-all peak: num / den, and as text; den
 * 0: the floor itself, in bytes (where proofs that nothing fits and tight
 * plans meet). */
typedef struct frac {
  int64_t num, den;
  const char *text;
} frac;
static const frac fracs[] = {{1, 1, "1.0"}, {4, 5, "0.8"}, {3, 5, "0.6"}, {1, 2, "0.5"}, {0, 0, "floor"}};
enum { N_FRACS = sizeof fracs / sizeof fracs[0] };

/* A plan whose first runs follow the order: a plan for every budget from
 * its peak up, at its bandwidth, and at any when it copies nothing. */
typedef struct pooled {
  const mp_solver *s;
  int64_t peak;
  double duration, bw;
  bool copies;
} pooled;

/* What a run claimed for (budget, bw) over the plans that follow the
 * order: a duration bound, optimality at a duration, or that none fits. */
typedef struct claim {
  const mp_solver *s;
  const frac *f;
  int64_t budget;
  double bw, bound, duration;
  bool optimal, infeasible;
} claim;

typedef struct trial {
  int index;
  mp_graph *g;
  or_model om;
  char label[160], path[96];
  const char *order_chain;
  int *order;
  int64_t peak, floor, given_arena;
  double link, dur_floor;
  mp_baselines cache;
  pooled *pool;
  claim *claims;
  int n_pool, n_claims, cap;
} trial;

typedef struct cfg {
  const frac *f;
  double bw;
  uint64_t seed;
} cfg;

typedef struct stats {
  int trials, plans, recomputing, offloading, no_plan, infeasible, refused, same_seed, timed, claims,
      below_keepall, optimal, proofs;
  double secs;
} stats;

static bool near_le(double a, double b) { return a <= b + 1e-9 * fmax(1.0, fabs(b)); }

/* The budget of a run, and as the command line gives it. */
static int64_t budget_of(const trial *t, const cfg *c) {
  if (!c->f->den) return t->floor;
  return (t->peak * c->f->num + c->f->den - 1) / c->f->den;
}

static const char *budget_text(const trial *t, const cfg *c) {
  static char buf[64];
  if (c->f->den) snprintf(buf, sizeof buf, "--budget-frac %s", c->f->text);
  else snprintf(buf, sizeof buf, "--budget %lld", (long long)t->floor);
  return buf;
}

/* ---- failures with a reproducer ---- */

static void dump_graph(trial *t) {
  snprintf(t->path, sizeof t->path, "/tmp/memplan_remat_big_%d.json", t->index);
  FILE *f = fopen(t->path, "w");
  if (f) {
    mp_graph_dump_json(t->g, f, t->label);
    fclose(f);
  }
}

/* ` --set s.k=v` for each quick option of s (static storage). */
static const char *sets_text(const mp_solver *s) {
  static char buf[512];
  const char *const *q = tl_quick_sets(s);
  int len = 0;
  buf[0] = 0;
  for (int k = 0; q && q[k] && len < (int)sizeof buf - 64; k++)
    len += snprintf(buf + len, sizeof buf - (size_t)len, " --set %s", q[k]);
  return buf;
}

#define FAILF(t, s, c, what, ...)                                                                         \
  do {                                                                                                  \
    dump_graph(t);                                                                                      \
    ck_abort_msg("%s on larger remat trial %d (%s, random costs; budget %s x %lld, bandwidth %g): " what \
                 "\nreproduce: memplan solve %s --order %s --remat %s %s --bandwidth %.17g "          \
                 "--seed %llu --time-limit %g%s",                                                       \
                 (s)->name, (t)->index, (t)->label, (c)->f->text, (long long)(t)->peak, (c)->bw,        \
                 __VA_ARGS__, (t)->path, (t)->order_chain, (s)->name, budget_text(t, c), (c)->bw,      \
                 (unsigned long long)(c)->seed, LIMIT, sets_text(s));                                   \
  } while (0)

/* ---- the trial ---- */

/* The floor of DESIGN 6.3 from the oracle's buffers: the inputs, the
 * graph outputs, one node's needs (the oracle's node bound). */
static int64_t oracle_floor(const or_model *m) {
  int64_t in = 0, out = 0;
  for (int i = 0; i < m->nb; i++) {
    if (m->b[i].ws) continue;
    if (m->b[i].input) in += m->b[i].size;
    if (m->b[i].graph_output) out += m->b[i].size;
  }
  int64_t f = in > out ? in : out;
  return m->lb > f ? m->lb : f;
}

/* A link that moves a mean tensor in the mean cost of a node. */
static double mean_link(const or_model *m, const mp_graph *g) {
  double bytes = 0, cost = 0;
  int tensors = 0;
  for (int i = 0; i < m->nb; i++)
    if (!m->b[i].ws) bytes += (double)m->b[i].size, tensors++;
  for (int v = 0; v < g->n; v++) cost += ox_cost(g, v);
  return tensors && cost > 0 ? (bytes / tensors) / (cost / g->n) : 1.0;
}

static void trial_make(trial *t, int i, mp_rng *r) {
  const big_graph *b = &graphs[i];
  memset(t, 0, sizeof *t);
  t->index = i;
  uint64_t seed = 71 + (uint64_t)i;
  t->g = tl_gen(b->family, b->n, seed, true);
  rc_random_costs(t->g, r);
  snprintf(t->label, sizeof t->label, "memplan gen %s -n %d --seed %llu --backward --ws-prob 0.2 --inplace-prob 0.2, %d nodes",
           b->family, b->n, (unsigned long long)seed, t->g->n);
  ck_assert_int_eq(or_build(t->g, &t->om), 0);
  t->order_chain = b->order;
  mp_result a;
  ck_assert_int_eq(tl_run(t->g, t->order_chain, "bysize", 1, 0, NULL, &a), MP_OK);
  t->order = malloc(sizeof(int) * (size_t)t->g->n);
  memcpy(t->order, a.order, sizeof(int) * (size_t)t->g->n);
  mp_result_destroy(&a);
  ck_assert_int_eq(tl_run(t->g, "given", "bysize", 1, 0, NULL, &a), MP_OK);
  t->given_arena = a.fig.arena;
  mp_result_destroy(&a);
  or_lifetimes(&t->om, t->order);
  t->peak = or_peak(&t->om);
  t->floor = oracle_floor(&t->om);
  t->link = mean_link(&t->om, t->g);
  for (int v = 0; v < t->g->n; v++)
    if (!t->g->nodes[v].op || strcmp(t->g->nodes[v].op, "input")) t->dur_floor += ox_cost(t->g, v);
  t->cap = 16 * N_FRACS * mp_registry_size;
  t->pool = malloc(sizeof(pooled) * (size_t)t->cap);
  t->claims = malloc(sizeof(claim) * (size_t)t->cap);
}

static void trial_destroy(trial *t) {
  or_destroy(&t->om);
  mp_graph_destroy(t->g);
  free(t->order);
  free(t->pool);
  free(t->claims);
}

static mp_err run_solver(trial *t, const mp_solver *s, const cfg *c, mp_result *r) {
  const char *const *sets = tl_quick_sets(s);
  int n_sets = 0;
  while (sets && sets[n_sets]) n_sets++;
  mp_instance in = {t->g, NULL};
  mp_run_spec spec = {.order = t->order_chain, .remat = s->name, .place = "bysize", .seed = c->seed,
                      .time_limit = LIMIT, .sets = sets, .n_sets = n_sets, .has_bandwidth = true,
                      .bandwidth = c->bw, .baselines = &t->cache};
  if (c->f->den) spec.budget_frac = c->f->text;
  else spec.has_budget = true, spec.budget = t->floor;
  char what[160];
  snprintf(what, sizeof what, "%s, budget %s, bandwidth %g", s->name, c->f->text, c->bw);
  pc_watchdog_arm(what, t->label, LIMIT);
  mp_err rc = mp_run(&in, &spec, r);
  pc_watchdog_disarm();
  return rc;
}

/* ---- one plan against the oracle ---- */


/* The figures of DESIGN 6.3, as the harness reports them, from the
 * oracle's evaluation of the same events. */
static void check_figures(trial *t, const mp_solver *s, const cfg *c, const mp_result *r, const ox_result *o) {
  const mp_ev_figures *f = &r->remat.fig;
  int64_t budget = budget_of(t, c);
  if (r->remat.budget != budget || f->budget != budget || r->remat.order_peak != t->peak)
    FAILF(t, s, c, "budget %lld (figures %lld), order peak %lld; expected %lld of peak %lld",
          (long long)r->remat.budget, (long long)f->budget, (long long)r->remat.order_peak,
          (long long)budget, (long long)t->peak);
  if (memcmp(r->order, t->order, sizeof(int) * (size_t)t->g->n))
    FAILF(t, s, c, "%s", "the order handed in is not the order of the trial");
  if (o->peak > budget) FAILF(t, s, c, "live peak %lld over the budget %lld", (long long)o->peak, (long long)budget);
  if (o->peak < t->floor) FAILF(t, s, c, "live peak %lld below the floor %lld", (long long)o->peak, (long long)t->floor);
  if (!near_le(t->dur_floor, o->duration))
    FAILF(t, s, c, "duration %.17g below the sum of the costs %.17g", o->duration, t->dur_floor);
  bool over = isnan(o->overhead) ? isnan(f->overhead) : f->overhead == o->overhead;
  if (f->live_peak != o->peak || f->duration != o->duration || f->base_time != o->base_time || !over ||
      f->recompute_time != o->recompute_time || f->recomputed != o->recomputed ||
      f->stall_time != o->stall_time || f->transferred != o->transferred || f->n_samples != o->n_samples)
    FAILF(t, s, c,
          "figures differ from the oracle's: peak %lld/%lld duration %.17g/%.17g base %.17g/%.17g "
          "overhead %.17g/%.17g recompute %.17g/%.17g x%lld/%lld stall %.17g/%.17g moved %lld/%lld",
          (long long)f->live_peak, (long long)o->peak, f->duration, o->duration, f->base_time, o->base_time,
          f->overhead, o->overhead, f->recompute_time, o->recompute_time, (long long)f->recomputed,
          (long long)o->recomputed, f->stall_time, o->stall_time, (long long)f->transferred,
          (long long)o->transferred);
}

/* Item i of the residency problem is oracle residency j? */
static bool same_residency(const mp_graph *g, const mp_result *r, int i, const ox_res *x) {
  const mp_buffer *bb = &g->bufs[r->remat.res[i].buf];
  int out = bb->kind == MP_BUF_TENSOR ? bb->out : -1;
  const mp_item *it = &r->prob.items[i];
  return x->owner == bb->owner && x->out == out && x->size == it->size && x->lo == it->lo && x->hi == it->hi;
}

/* The residencies are the oracle's (as a multiset). */
static void check_residencies(trial *t, const mp_solver *s, const cfg *c, const mp_result *r, const ox_result *o) {
  if (r->prob.n != o->n_res) FAILF(t, s, c, "%d residencies, the oracle has %d", r->prob.n, o->n_res);
  bool *used = calloc((size_t)o->n_res + 1, sizeof(bool));
  for (int i = 0; i < r->prob.n; i++) {
    int j = 0;
    while (j < o->n_res && (used[j] || !same_residency(t->g, r, i, &o->res[j]))) j++;
    if (j == o->n_res)
      FAILF(t, s, c, "residency %s [%lld, %lld) unknown to the oracle", r->prob.ids[i],
            (long long)r->prob.items[i].lo, (long long)r->prob.items[i].hi);
    used[j] = true;
  }
  free(used);
}

/* Population standard deviation of the oracle's memory samples. */
static double samples_std(const ox_result *o) {
  double s1 = 0, s2 = 0;
  for (int i = 0; i < o->n_samples; i++) s1 += (double)o->samples[i], s2 += (double)o->samples[i] * (double)o->samples[i];
  if (!o->n_samples) return 0;
  double mean = s1 / o->n_samples, var = s2 / o->n_samples - mean * mean;
  return var > 0 ? sqrt(var) : 0;
}

/* Offsets aligned and disjoint for residencies alive together (a pairwise
 * check of its own), and the figures of 1.3 recomputed from them. */
static void check_placement(trial *t, const mp_solver *s, const cfg *c, const mp_result *r, const ox_result *o) {
  const mp_item *it = r->prob.items;
  const int64_t *off = r->offsets;
  int64_t arena = 0, sum = 0;
  for (int i = 0; i < r->prob.n; i++) {
    if (off[i] < 0 || off[i] % r->align)
      FAILF(t, s, c, "residency %s at %lld (align %lld)", r->prob.ids[i], (long long)off[i], (long long)r->align);
    sum += it[i].size;
    if (it[i].size && off[i] + it[i].size > arena) arena = off[i] + it[i].size;
    for (int j = 0; j < i; j++) {
      bool time = it[i].lo < it[j].hi && it[j].lo < it[i].hi;
      bool space = off[i] < off[j] + it[j].size && off[j] < off[i] + it[i].size;
      if (time && space && it[i].size && it[j].size)
        FAILF(t, s, c, "residencies %s and %s overlap", r->prob.ids[j], r->prob.ids[i]);
    }
  }
  const mp_figures *f = &r->fig;
  double std = samples_std(o);
  if (f->live_peak != o->peak || f->arena != arena || f->sum_sizes != sum || f->given_arena != t->given_arena ||
      !PC_FEQ(f->fragmentation, arena ? (double)(arena - o->peak) / (double)arena : 0.0) ||
      !PC_FEQ(f->reuse_ratio, arena ? (double)sum / (double)arena : 0.0) ||
      !PC_FEQ(f->reduction_vs_given, 1.0 - (double)arena / (double)t->given_arena) ||
      fabs(f->profile_std - std) > 1e-6 * fmax(1.0, std))
    FAILF(t, s, c, "placement figures: peak %lld/%lld arena %lld/%lld sum %lld/%lld given %lld/%lld std %.17g/%.17g",
          (long long)f->live_peak, (long long)o->peak, (long long)f->arena, (long long)arena,
          (long long)f->sum_sizes, (long long)sum, (long long)f->given_arena, (long long)t->given_arena,
          f->profile_std, std);
}

/* Do the first runs follow the trial's order?  (Positions, by hand.) */
static bool follows(const trial *t, const mp_events *p) {
  int n = t->g->n, *pos = malloc(sizeof(int) * (size_t)n), *first = malloc(sizeof(int) * (size_t)n);
  for (int k = 0; k < n; k++) pos[t->order[k]] = k, first[k] = -1;
  int runs = 0;
  for (int i = 0; i < p->n; i++)
    if (p->ev[i].kind == MP_EV_RUN && first[p->ev[i].id] < 0) first[p->ev[i].id] = runs++;
  bool ok = true;
  for (int u = 0; u < n && ok; u++)
    for (int v = 0; v < n && ok; v++)
      if (first[u] >= 0 && first[v] >= 0 && pos[u] < pos[v]) ok = first[u] < first[v];
  free(pos);
  free(first);
  return ok;
}

static void check_plan(trial *t, const mp_solver *s, const cfg *c, const mp_result *r) {
  const mp_events *p = &r->remat.events;
  mp_error err;
  if (mp_events_verify(t->g, p, c->bw, NULL, &err)) FAILF(t, s, c, "invalid plan: %s", err.msg);
  ox_event *ox = rc_to_oracle(t->g, p);
  ox_result o;
  ox_check(t->g, &t->om, ox, p->n, c->bw, &o);
  free(ox);
  if (!o.valid) FAILF(t, s, c, "the oracle refuses the plan at event %d: %s", o.bad_event, o.rule);
  check_figures(t, s, c, r, &o);
  check_residencies(t, s, c, r, &o);
  check_placement(t, s, c, r, &o);
  if (follows(t, p)) t->pool[t->n_pool++] = (pooled){s, o.peak, o.duration, c->bw, o.transferred > 0};
  ox_result_destroy(&o);
}

/* ---- outcomes, claims, seeds ---- */

/* A plan; a refusal under a documented cap; no plan with a message (the
 * solver gave up or the clock cut it); infeasible below the floor or as
 * the stage's own claim.  Anything else fails. */
static void check_outcome(trial *t, const mp_solver *s, const cfg *c, mp_err rc, const mp_result *a, stats *st) {
  const mp_stage_result *sr = rc_events_stage(a);
  bool stage_no_plan = sr && (sr->status == MP_ERROR || sr->status == MP_TIMEOUT);
  if (a->has_figures) {
    if (rc != MP_OK) FAILF(t, s, c, "a plan and rc %d: %s", rc, a->msg);
    st->plans++;
    st->recomputing += a->remat.fig.recomputed > 0;
    st->offloading += a->remat.fig.transferred > 0;
  } else if (rc == MP_ESOLVER && sr && sr->status == MP_REFUSED) {
    if (!rc_may_refuse(s) || !sr->msg[0]) FAILF(t, s, c, "refused without a documented cap: %s", a->msg);
    st->refused++;
  } else if (rc == MP_OK && a->remat.status == MP_INFEASIBLE) {
    st->infeasible++;
    if (budget_of(t, c) >= t->floor && !(sr && sr->status == MP_INFEASIBLE))
      FAILF(t, s, c, "infeasible at or above the floor %lld without the stage's claim: %s", (long long)t->floor, a->msg);
  } else if (rc == MP_ESOLVER && stage_no_plan && (sr->msg[0] || a->msg[0])) {
    st->no_plan++;
    st->below_keepall += c->f->den && c->f->num == c->f->den;
  } else {
    FAILF(t, s, c, "rc %d, status %s, remat %s: %s", rc, mp_status_name(a->status),
          mp_status_name(a->remat.status), a->msg);
  }
}

static void note_claim(trial *t, const mp_solver *s, const cfg *c, const mp_result *a, stats *st) {
  const mp_stage_result *sr = rc_events_stage(a);
  claim k = {s, c->f, budget_of(t, c), c->bw, sr ? sr->duration_bound : 0, 0, false, false};
  k.optimal = a->has_figures && a->remat.status == MP_OPTIMAL;
  k.duration = a->has_figures ? a->remat.fig.duration : NAN;
  k.infeasible = sr && sr->status == MP_INFEASIBLE;
  if (k.bound > 0 || k.optimal || k.infeasible) t->claims[t->n_claims++] = k;
  st->optimal += k.optimal;
  st->proofs += k.infeasible;
}

/* Every claim against every plan of the graph that it covers. */
static void check_claims(trial *t, stats *st) {
  for (int i = 0; i < t->n_claims; i++) {
    const claim *k = &t->claims[i];
    cfg c = {k->f, k->bw, 0};
    for (int j = 0; j < t->n_pool; j++) {
      const pooled *p = &t->pool[j];
      if (p->peak > k->budget || (p->copies && p->bw != k->bw)) continue;
      st[0].claims++;
      if (k->infeasible)
        FAILF(t, k->s, &c, "claims no plan follows the order, but %s's does (peak %lld, duration %.17g)",
              p->s->name, (long long)p->peak, p->duration);
      if (!near_le(k->bound, p->duration))
        FAILF(t, k->s, &c, "duration bound %.17g above %s's plan (peak %lld, duration %.17g)", k->bound,
              p->s->name, (long long)p->peak, p->duration);
      if (k->optimal && !near_le(k->duration, p->duration))
        FAILF(t, k->s, &c, "optimal at %.17g, %s's plan takes %.17g (peak %lld)", k->duration, p->s->name,
              p->duration, (long long)p->peak);
    }
  }
}

/* The plan file without its timings, keys sorted (malloc'ed). */
static char *plan_text(const trial *t, const mp_result *r) {
  char *buf = rc_plan_bytes(t->g, r);
  json_t *j = json_loads(buf, 0, NULL);
  ck_assert(j != NULL);
  free(buf);
  const char *key;
  json_t *v, *stage;
  void *tmp;
  size_t k;
  json_object_foreach_safe(j, tmp, key, v) if (strstr(key, "_ms")) json_object_del(j, key);
  json_array_foreach(json_object_get(j, "stages"), k, stage) {
    json_object_del(stage, "wall_ms");
    json_object_del(stage, "cpu_ms");
  }
  char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
  json_decref(j);
  return s;
}

static bool timed_out(const mp_result *r) {
  const mp_stage_result *sr = rc_events_stage(r);
  return r->remat.status == MP_TIMEOUT || r->status == MP_TIMEOUT || (sr && sr->status == MP_TIMEOUT);
}

static void check_same_seed(trial *t, const mp_solver *s, const cfg *c, mp_err rc, const mp_result *a, stats *st) {
  if (timed_out(a)) {
    st->timed++;
    return;
  }
  mp_result b;
  mp_err rc2 = run_solver(t, s, c, &b);
  if (timed_out(&b)) {
    st->timed++;
  } else {
    st->same_seed++;
    if (rc2 != rc || a->has_figures != b.has_figures)
      FAILF(t, s, c, "the same seed gave another outcome (rc %d, then %d)", rc, rc2);
    if (a->has_figures) {
      char *x = plan_text(t, a), *y = plan_text(t, &b);
      if (strcmp(x, y)) FAILF(t, s, c, "%s", "the same seed gave another plan file");
      free(x);
      free(y);
    }
  }
  mp_result_destroy(&b);
}

static void check_file(trial *t, const mp_solver *s, const cfg *c, const mp_result *a) {
  mp_instance in = {t->g, NULL};
  char *buf = rc_plan_bytes(t->g, a);
  char *path = tl_write_temp(buf, ".plan.json");
  mp_error err;
  if (mp_plan_verify(&in, path, 0, &err)) FAILF(t, s, c, "its plan file does not verify: %s", err.msg);
  free(path);
  free(buf);
}

/* One solver on one budget and link of a trial. */
static void check_one(trial *t, const mp_solver *s, const cfg *c, bool *filed, stats *st) {
  double t0 = mp_now();
  mp_result a;
  mp_err rc = run_solver(t, s, c, &a);
  st->trials++;
  check_outcome(t, s, c, rc, &a, st);
  if (a.has_figures) {
    check_plan(t, s, c, &a);
    if (!*filed) check_file(t, s, c, &a), *filed = true;
  }
  note_claim(t, s, c, &a, st);
  check_same_seed(t, s, c, rc, &a, st);
  mp_result_destroy(&a);
  st->secs += mp_now() - t0;
}

/* Every solver at every budget of trial i, half of them with the link. */
static void run_trial(int i, mp_rng *r, const mp_solver *const *solvers, int ns, stats *st, stats *total) {
  trial t;
  trial_make(&t, i, r);
  for (int k = 0; k < ns; k++) {
    bool filed = false;
    for (int f = 0; f < N_FRACS; f++) {
      cfg c = {&fracs[f], (f + i) % 2 ? t.link : 0, 900 + (uint64_t)(i * N_FRACS + f)};
      check_one(&t, solvers[k], &c, &filed, &st[k]);
    }
  }
  check_claims(&t, total);
  trial_destroy(&t);
}

static void report(const mp_solver *const *solvers, int ns, const stats *st, const stats *total, int graphs) {
  for (int k = 0; k < ns; k++) {
    if (tl_verbose()) /* make test V=1 */
      printf("remat_big: %-12s %d trials on %d graphs: %d plans (%d recompute, %d offload, %d optimal), %d "
             "without a plan (%d at the keep-all peak), %d infeasible (%d by the stage's proof), %d refused; same "
             "seed compared %d, %d cut by the clock; %.1f s\n",
             solvers[k]->name, st[k].trials, graphs, st[k].plans, st[k].recomputing, st[k].offloading,
             st[k].optimal, st[k].no_plan, st[k].below_keepall, st[k].infeasible, st[k].proofs, st[k].refused,
             st[k].same_seed, st[k].timed, st[k].secs);
    ck_assert_msg(st[k].plans + st[k].infeasible > 0 || st[k].refused == st[k].trials,
                  "%s returned no plan on any larger trial", solvers[k]->name);
  }
  if (tl_verbose()) printf("remat_big: %d claims checked against other solvers' plans\n", total->claims);
}

START_TEST(every_events_solver_big) {
  const mp_solver *solvers[64];
  int ns = 0;
  for (int k = 0; k < mp_registry_size && ns < 64; k++)
    if (mp_registry[k]->decides == MP_DECIDES_EVENTS) solvers[ns++] = mp_registry[k];
  ck_assert_msg(ns > 0, "no events solver registered");
  stats *st = calloc((size_t)ns, sizeof *st), total = {0};
  mp_rng r;
  mp_rng_seed(&r, 4711);
  int graphs_run = tl_trials(5 * N_GRAPHS) / 5;
  for (int i = 0; i < graphs_run; i++) run_trial(i, &r, solvers, ns, st, &total);
  report(solvers, ns, st, &total, graphs_run);
  free(st);
  tl_cleanup();
}
END_TEST

Suite *suite_remat_big(void) {
  Suite *s = suite_create("remat_big");
  TCase *tc = tcase_create("remat_big");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, every_events_solver_big);
  suite_add_tcase(s, tc);
  return s;
}
