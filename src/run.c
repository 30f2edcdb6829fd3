/* run.c - the harness: run the stages of a chain, check what each stage
 * returns and every bound it claims, and decide the statuses from what the
 * harness itself can check.  Solvers come from the chain (chain.c) and the
 * registry's roles; none is known by name here.
 *
 * Stages run kind by kind (chain.h): each kind has an `enter` step that
 * prepares what its stages work on and a `run` step per stage.  A new kind
 * (recomputation between order and placement) adds one entry to kind_ops. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "schedbound.h"

/* What the stages have established so far. */
typedef struct run_state {
  const mp_instance *in;
  const mp_run_spec *spec;
  const mp_chain *ch;
  mp_result *r;
  double t0;              /* the time limit counts from here */
  int64_t order_bound;    /* every order's live peak is at least this */
  int64_t joint_bound;    /* every plan's arena, from stages deciding both */
  int64_t place_bound;    /* every placement of the current lifetimes */
  char order_bound_src[96], place_bound_src[96];
  bool order_searched;    /* some stage chose the order (not the file order) */
  bool timed_out[MP_N_STAGE_KINDS];
  bool placed;            /* a placer has run: its offsets start the next */
  bool plan_valid;        /* r->offsets verified against r->prob */
  const mp_stage_result *claim; /* a placer said nothing fits: the chain stops */
  const mp_solver *failed;      /* the stage that failed */
  mp_stage_kind failed_kind;
  mp_status failed_status;      /* error, or refused (a size cap) */
} run_state;

static mp_err fail(run_state *s, const mp_stage_spec *st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A stage failed or returned something the harness rejects: the run ends
 * with status error (refused for a refusal under a size cap), naming the
 * solver in the message. */
static mp_err fail(run_state *s, const mp_stage_spec *st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->r->msg, sizeof s->r->msg, fmt, ap);
  va_end(ap);
  s->failed = st->solver;
  s->failed_kind = st->kind;
  if (s->failed_status != MP_REFUSED) s->failed_status = MP_ERROR;
  return MP_ESOLVER;
}

/* The solver itself failed or refused. */
static bool stage_failed(const mp_stage_result *sr) {
  return sr->status == MP_ERROR || sr->status == MP_REFUSED;
}

static mp_err solver_failed(run_state *s, const mp_stage_spec *st, const mp_stage_result *sr) {
  s->failed_status = sr->status;
  return fail(s, st, "%s: %.400s", st->solver->name, sr->msg[0] ? sr->msg : "failed");
}

static void *dup_array(const void *src, size_t n, size_t size) {
  void *p = mp_xmalloc(size * (n ? n : 1));
  if (n) memcpy(p, src, size * n);
  return p;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ---------------------------------------------------------------- stages */

static void ctx_init(const run_state *s, const mp_stage_spec *st, mp_ctx *c) {
  memset(c, 0, sizeof *c);
  c->g = s->in->g;
  memcpy(c->opt, st->opt, sizeof c->opt);
  c->seed = s->spec->seed;
  c->align = s->r->align;
  c->write_lp = s->spec->write_lp;
  c->verbose = s->spec->verbose;
}

/* Call the solver with what is left of the time limit; time the call
 * alone.  Its status is a claim the harness checks afterwards. */
static void call_solver(run_state *s, const mp_stage_spec *st, mp_ctx *c, mp_stage_result *sr) {
  double limit = s->spec->time_limit;
  c->deadline = limit > 0 ? s->t0 + limit : 0;
  c->time_limit = limit > 0 ? c->deadline - mp_now() : 0;
  if (limit > 0 && c->time_limit < 0.001) c->time_limit = 0.001;
  c->status = MP_FEASIBLE;
  c->bound = 0;
  c->msg[0] = 0;
  double w0 = mp_now(), c0 = mp_cpu_now();
  int rc = st->solver->solve(c);
  sr->wall_ms = (mp_now() - w0) * 1e3;
  sr->cpu_ms = (mp_cpu_now() - c0) * 1e3;
  sr->solver = st->solver;
  sr->kind = st->kind;
  /* a refusal under a size cap is -1 with status MP_REFUSED: kept apart
   * from failures (bench does not count or retry it as one) */
  sr->status = rc ? (c->status == MP_REFUSED ? MP_REFUSED : MP_ERROR) : c->status;
  sr->bound = c->bound;
  snprintf(sr->msg, sizeof sr->msg, "%s", c->msg);
  if (sr->status == MP_TIMEOUT) s->timed_out[st->kind] = true;
}

/* A returned order must be valid; an order stage's bound (valid for every
 * order, it says) must not exceed the live peak of the order it returned. */
static mp_err check_order(run_state *s, const mp_stage_spec *st, const mp_stage_result *sr) {
  const mp_graph *g = s->in->g;
  mp_error e;
  if (mp_order_check(g, s->r->order, &e) >= 0)
    return fail(s, st, "%s returned an invalid order: %.400s", st->solver->name, e.msg);
  if (st->kind != MP_STAGE_ORDER || sr->bound <= s->order_bound) return MP_OK;
  int64_t peak = mp_order_peak(g, s->r->order);
  if (sr->bound > peak)
    return fail(s, st, "%s reports a lower bound %lld above the live peak %lld of the order it returned",
                st->solver->name, (long long)sr->bound, (long long)peak);
  s->order_bound = sr->bound;
  snprintf(s->order_bound_src, sizeof s->order_bound_src, "the bound of %s", st->solver->name);
  return MP_OK;
}

static bool order_enter(run_state *s) {
  const mp_graph *g = s->in->g;
  if (!g) return false; /* a fixed-lifetime problem: nothing to order */
  s->r->n = g->n;
  s->r->order = dup_array(g->given, (size_t)g->n, sizeof(int));
  s->order_bound = mp_node_lower_bound(g);
  snprintf(s->order_bound_src, sizeof s->order_bound_src, "the per-node bound");
  return true;
}

static mp_err order_stage(run_state *s, const mp_stage_spec *st, mp_stage_result *sr) {
  mp_result *r = s->r;
  size_t n = (size_t)r->n;
  int *start = dup_array(r->order, n, sizeof(int));
  mp_ctx c;
  ctx_init(s, st, &c);
  c.start_order = start;
  c.order = r->order;
  call_solver(s, st, &c, sr);
  r->order_ms += sr->wall_ms;
  r->order_cpu_ms += sr->cpu_ms;
  if (!(st->solver->roles & MP_ROLE_FILE_ORDER)) s->order_searched = true;
  mp_err e;
  if (stage_failed(sr)) {
    memcpy(r->order, start, sizeof(int) * n);
    e = solver_failed(s, st, sr);
  } else {
    e = check_order(s, st, sr);
  }
  free(start);
  return e;
}

/* The lifetimes placers work on: the graph under the order, or the
 * fixed-lifetime problem (with --align where the file has no column). */
static bool place_enter(run_state *s) {
  mp_result *r = s->r;
  if (s->in->g) {
    mp_problem_from_order(s->in->g, r->order, r->align, &r->prob);
  } else {
    mp_problem_copy(s->in->fixed, &r->prob);
    if (!r->prob.has_alignment_col && s->spec->align > 0)
      for (int i = 0; i < r->prob.n; i++) r->prob.items[i].align = s->spec->align;
  }
  r->offsets = mp_xcalloc((size_t)(r->prob.n ? r->prob.n : 1), sizeof(int64_t));
  return true;
}

/* A placement must verify and come with a bound no higher than its arena.
 * A placer that says nothing fits may return no placement: its claim then
 * proves nothing by itself (the verdict decides). */
static mp_err check_placement(run_state *s, const mp_stage_spec *st, const mp_stage_result *sr) {
  mp_result *r = s->r;
  const char *name = st->solver->name;
  bool says_infeasible = sr->status == MP_INFEASIBLE;
  mp_error e;
  s->plan_valid = mp_verify_offsets(&r->prob, r->offsets, &e) == 0;
  if (says_infeasible) s->claim = sr;
  if (!s->plan_valid)
    return says_infeasible ? MP_OK
                           : fail(s, st, "%s returned an invalid placement: %.300s", name, e.msg);
  int64_t arena = mp_arena(&r->prob, r->offsets), cap = s->spec->capacity;
  if (sr->bound > arena)
    return fail(s, st, "%s reports a lower bound %lld above the arena %lld it returned", name,
                (long long)sr->bound, (long long)arena);
  if (says_infeasible && cap > 0 && arena <= cap)
    return fail(s, st, "%s says nothing fits in %lld bytes, yet returned a placement of %lld", name,
                (long long)cap, (long long)arena);
  if (sr->bound > s->place_bound) {
    s->place_bound = sr->bound;
    snprintf(s->place_bound_src, sizeof s->place_bound_src, "%s", name);
  }
  if (st->solver->decides == MP_DECIDES_BOTH && sr->bound > s->joint_bound) s->joint_bound = sr->bound;
  return MP_OK;
}

/* A stage deciding both returned an order too: check it and place the
 * lifetimes of that order from now on. */
static mp_err adopt_joint_order(run_state *s, const mp_stage_spec *st, const mp_stage_result *sr) {
  mp_result *r = s->r;
  s->order_searched = true;
  if (sr->status == MP_TIMEOUT) s->timed_out[MP_STAGE_ORDER] = true;
  mp_err e = check_order(s, st, sr);
  if (e) return e;
  mp_problem_destroy(&r->prob);
  mp_problem_from_order(s->in->g, r->order, r->align, &r->prob);
  s->place_bound = 0; /* bounds on the old lifetimes say nothing about these */
  return MP_OK;
}

static mp_err place_stage(run_state *s, const mp_stage_spec *st, mp_stage_result *sr) {
  mp_result *r = s->r;
  bool joint = st->solver->decides == MP_DECIDES_BOTH;
  int64_t *prev = s->placed ? dup_array(r->offsets, (size_t)r->prob.n, sizeof(int64_t)) : NULL;
  int *start = r->order ? dup_array(r->order, (size_t)r->n, sizeof(int)) : NULL;
  mp_ctx c;
  ctx_init(s, st, &c);
  c.prob = &r->prob;
  c.start_offsets = prev;
  c.offsets = r->offsets;
  c.start_order = start;
  if (joint) c.order = r->order;
  c.capacity = s->spec->capacity;
  call_solver(s, st, &c, sr);
  r->place_ms += sr->wall_ms;
  r->place_cpu_ms += sr->cpu_ms;
  s->placed = true;
  mp_err e = MP_OK;
  if (stage_failed(sr)) {
    if (joint) memcpy(r->order, start, sizeof(int) * (size_t)r->n);
    e = solver_failed(s, st, sr);
  } else if (joint) {
    e = adopt_joint_order(s, st, sr);
  }
  if (!e) e = check_placement(s, st, sr);
  free(prev);
  free(start);
  return e;
}

typedef struct stage_kind_ops {
  bool (*enter)(run_state *s); /* prepare what the stages work on; false: skip them */
  mp_err (*run)(run_state *s, const mp_stage_spec *st, mp_stage_result *sr);
} stage_kind_ops;

static const stage_kind_ops kind_ops[MP_N_STAGE_KINDS] = {
    [MP_STAGE_ORDER] = {order_enter, order_stage},
    [MP_STAGE_PLACE] = {place_enter, place_stage},
};

static mp_err run_stages(run_state *s) {
  for (int k = 0; k < MP_N_STAGE_KINDS; k++) {
    if (!kind_ops[k].enter(s)) continue;
    for (int i = 0; i < s->ch->n && !s->claim; i++) {
      const mp_stage_spec *st = &s->ch->st[i];
      if (st->kind != (mp_stage_kind)k) continue;
      mp_err e = kind_ops[k].run(s, st, &s->r->stages[s->r->n_stages++]);
      if (e) return e;
    }
  }
  return MP_OK;
}

/* --------------------------------------------------------------- verdict */

static mp_status order_status(const run_state *s, int64_t live) {
  if (!s->order_searched) return MP_FIXED;
  if (live <= s->order_bound) return MP_OPTIMAL;
  return s->timed_out[MP_STAGE_ORDER] ? MP_TIMEOUT : MP_FEASIBLE;
}

static bool any_timeout(const run_state *s) {
  for (int k = 0; k < MP_N_STAGE_KINDS; k++)
    if (s->timed_out[k]) return true;
  return false;
}

/* The baseline at the result's alignment: from the caller's cache, or
 * computed (and cached).  False when it cannot be computed. */
static bool baseline_for(const run_state *s, mp_baseline *out) {
  mp_baselines *cache = s->spec->baselines;
  int64_t align = s->r->align;
  for (int i = 0; cache && i < cache->n; i++)
    if (cache->b[i].align == align) return (*out = cache->b[i]), true;
  mp_error e;
  if (mp_baseline_compute(s->in, align, out, &e)) return false;
  if (cache) cache->b[cache->n < MP_BASELINE_CACHE ? cache->n++ : MP_BASELINE_CACHE - 1] = *out;
  return true;
}

/* The figures of the verified plan, against the baseline when asked. */
static void evaluate(run_state *s) {
  mp_result *r = s->r;
  mp_baseline b = {0, 0};
  bool has_b = !s->spec->no_baseline && baseline_for(s, &b);
  mp_evaluate(&r->prob, r->offsets, r->fig.lower_bound, has_b ? b.arena : 0, &r->fig);
  r->has_figures = true;
  r->has_baseline = has_b;
}

/* No plan meets the request.  Infeasible when a bound the harness checked
 * rules out every plan the command could have chosen: with a fixed order,
 * the order's live peak or a placer's bound backed by its placement; with
 * a searched order, a bound valid for every order (per-node, min-cut, an
 * order stage's, a joint stage's).  Otherwise the solvers found no plan. */
static mp_err no_plan(run_state *s, int64_t live, int64_t place_lb) {
  mp_result *r = s->r;
  int64_t cap = s->spec->capacity;
  const mp_graph *g = s->in->g;
  if (!s->order_searched && cap > 0 && place_lb > cap) {
    r->status = MP_INFEASIBLE;
    if (live >= place_lb)
      snprintf(r->msg, sizeof r->msg, "the live peak %lld of the %s exceeds the capacity %lld",
               (long long)live, g ? "order (not searched)" : "lifetimes", (long long)cap);
    else
      snprintf(r->msg, sizeof r->msg, "%s proved a lower bound %lld above the capacity %lld",
               s->place_bound_src, (long long)place_lb, (long long)cap);
    return MP_OK;
  }
  if (s->order_searched && cap > 0) {
    if (max64(s->order_bound, s->joint_bound) <= cap) {
      int64_t mc = mp_sched_lower_bound(g, NULL);
      if (mc > s->order_bound) {
        s->order_bound = mc;
        snprintf(s->order_bound_src, sizeof s->order_bound_src, "the min-cut bound");
      }
      r->fig.lower_bound = s->order_bound;
    }
    int64_t lb = max64(s->order_bound, s->joint_bound);
    if (lb > cap) {
      r->status = MP_INFEASIBLE;
      snprintf(r->msg, sizeof r->msg, "every order needs at least %lld bytes (%s), above the capacity %lld",
               (long long)lb, s->joint_bound > s->order_bound ? "a joint stage's bound" : s->order_bound_src,
               (long long)cap);
      return MP_OK;
    }
  }
  r->status = any_timeout(s) ? MP_TIMEOUT : MP_ERROR;
  char what[320];
  if (s->claim)
    snprintf(what, sizeof what, "%s says nothing fits in %lld bytes (%.200s)", s->claim->solver->name,
             (long long)cap, s->claim->msg);
  else
    snprintf(what, sizeof what, "%s found no placement within capacity %lld (best arena %lld)",
             r->place_name, (long long)cap, (long long)mp_arena(&r->prob, r->offsets));
  if (s->order_searched)
    snprintf(r->msg, sizeof r->msg, "%s, for the order it was given; no proven bound rules out every order (best %lld, %s)",
             what, (long long)max64(s->order_bound, s->joint_bound), s->order_bound_src);
  else
    snprintf(r->msg, sizeof r->msg, "%s; no bound the harness can check proves it (best %lld, %s)", what,
             (long long)place_lb, place_lb > live ? s->place_bound_src : "the live peak");
  return MP_ESOLVER;
}

/* Statuses from what the harness checked, never from a solver's word. */
static mp_err verdict(run_state *s) {
  mp_result *r = s->r;
  int64_t cap = s->spec->capacity, live = mp_live_peak(&r->prob);
  int64_t arena = s->plan_valid ? mp_arena(&r->prob, r->offsets) : -1;
  int64_t place_lb = max64(live, s->place_bound); /* every placement of these lifetimes */
  bool fits = s->plan_valid && (cap == 0 || arena <= cap);
  r->fig.lower_bound = s->in->g ? s->order_bound : live;
  r->order_status = order_status(s, live);
  if (fits)
    r->place_status = arena <= place_lb ? MP_OPTIMAL : s->timed_out[MP_STAGE_PLACE] ? MP_TIMEOUT : MP_FEASIBLE;
  else
    r->place_status = cap > 0 && place_lb > cap ? MP_INFEASIBLE
                      : s->timed_out[MP_STAGE_PLACE] ? MP_TIMEOUT : MP_ERROR;
  if (!fits) return no_plan(s, live, place_lb);
  evaluate(s);
  int64_t plan_lb = s->order_searched ? max64(s->order_bound, s->joint_bound) : place_lb;
  r->status = arena <= plan_lb ? MP_OPTIMAL : any_timeout(s) ? MP_TIMEOUT : MP_FEASIBLE;
  return MP_OK;
}

/* A stage failed (or refused): no plan, no figures; the kinds before it
 * keep their status, the kinds from it on take its status. */
static void failed_statuses(run_state *s) {
  mp_result *r = s->r;
  r->status = r->place_status = s->failed_status;
  bool order_failed = s->failed_kind == MP_STAGE_ORDER || s->failed->decides == MP_DECIDES_BOTH;
  if (order_failed) {
    r->order_status = s->failed_status;
    r->fig.lower_bound = s->order_bound;
  } else {
    int64_t live = mp_live_peak(&r->prob);
    r->order_status = order_status(s, live);
    r->fig.lower_bound = s->in->g ? s->order_bound : live;
  }
}

mp_err mp_run(const mp_instance *in, const mp_run_spec *spec, mp_result *r) {
  memset(r, 0, sizeof *r);
  r->seed = spec->seed;
  r->align = spec->align > 0 ? spec->align : (in->g ? 64 : 1);
  mp_chain ch;
  mp_error err;
  mp_chain_request req = {.is_graph = in->g != NULL, .chains = {spec->order, spec->place},
                          .n_sets = spec->n_sets, .sets = spec->sets,
                          .n_extra = spec->n_extra, .extra = spec->extra};
  mp_err e = mp_chain_resolve(&req, &ch, &err);
  if (e) {
    snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    r->status = r->order_status = r->place_status = MP_ERROR;
    return e;
  }
  snprintf(r->order_name, sizeof r->order_name, "%s", ch.names[MP_STAGE_ORDER]);
  snprintf(r->place_name, sizeof r->place_name, "%s", ch.names[MP_STAGE_PLACE]);
  run_state s;
  memset(&s, 0, sizeof s);
  s.in = in;
  s.spec = spec;
  s.ch = &ch;
  s.r = r;
  s.t0 = mp_now();
  e = run_stages(&s);
  if (e) {
    failed_statuses(&s);
    return e;
  }
  return verdict(&s);
}

void mp_result_destroy(mp_result *r) {
  free(r->order);
  free(r->offsets);
  mp_problem_destroy(&r->prob);
  memset(r, 0, sizeof *r);
}

mp_err mp_baseline_compute(const mp_instance *in, int64_t align, mp_baseline *b, mp_error *err) {
  const mp_solver *order = mp_solver_with_role(MP_ROLE_FILE_ORDER, MP_DECIDES_ORDER);
  const mp_solver *place = mp_solver_with_role(MP_ROLE_BASELINE, MP_DECIDES_OFFSETS);
  if (!order || !place) {
    mp_errorf(err, "the registry has no file-order solver or no baseline placer");
    return MP_EUSAGE;
  }
  mp_run_spec spec = {.order = order->name, .place = place->name, .align = align, .no_baseline = true};
  mp_result r;
  mp_err e = mp_run(in, &spec, &r);
  if (e == MP_OK && !r.has_figures) e = MP_ESOLVER;
  if (e)
    mp_errorf(err, "the baseline (%s + %s): %s", order->name, place->name, r.msg);
  else
    *b = (mp_baseline){r.align, r.fig.arena};
  mp_result_destroy(&r);
  return e;
}
