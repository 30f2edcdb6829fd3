/* run.c - the harness: run the stages of a chain, check what each stage
 * returns and every bound it claims.  The recomputation kind lives in
 * run_events.c, the statuses and figures in run_verdict.c.  Solvers come
 * from the chain (chain.c) and the registry's roles; none is known by name
 * here.
 *
 * Stages run kind by kind (chain.h): each kind has an `enter` step that
 * prepares what its stages work on and a `run` step per stage. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "run_state.h"

/* A stage failed or returned something the harness rejects: the run ends
 * with status error (refused for a refusal under a size cap), naming the
 * solver in the message. */
mp_err run_fail(run_state *s, const mp_stage_spec *st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->r->msg, sizeof s->r->msg, fmt, ap);
  va_end(ap);
  s->failed = st->solver;
  s->failed_kind = st->kind;
  if (s->failed_status != MP_REFUSED && s->failed_status != MP_TIMEOUT) s->failed_status = MP_ERROR;
  return MP_ESOLVER;
}

/* The solver itself failed, refused or ran out of time: no plan. */
bool run_stage_failed(const mp_stage_result *sr) { return sr->no_plan; }

/* Is there a stage of st's kind after st in the chain? */
static bool later_stage(const run_state *s, const mp_stage_spec *st) {
  for (const mp_stage_spec *t = st + 1; t < s->ch->st + s->ch->n; t++)
    if (t->kind == st->kind) return true;
  return false;
}

mp_err run_no_result(run_state *s, const mp_stage_spec *st, const mp_stage_result *sr,
                     bool chain_has_one) {
  if (chain_has_one || later_stage(s, st)) return MP_OK;
  s->failed_status = sr->status;
  return run_fail(s, st, "%s: %.400s", st->solver->name, sr->msg[0] ? sr->msg : "failed");
}

void *run_dup(const void *src, size_t n, size_t size) {
  void *p = mp_xmalloc(size * (n ? n : 1));
  if (n) memcpy(p, src, size * n);
  return p;
}

/* ---------------------------------------------------------------- stages */

void run_ctx_init(const run_state *s, const mp_stage_spec *st, mp_ctx *c) {
  memset(c, 0, sizeof *c);
  c->g = s->in->g;
  memcpy(c->opt, st->opt, sizeof c->opt);
  c->seed = s->spec->seed;
  c->align = s->r->align;
  c->write_lp = s->spec->write_lp;
  c->verbose = s->spec->verbose;
  c->cancel = s->spec->cancel;
}

bool run_stage_has_clock(const mp_stage_spec *st) {
  for (int k = 0; k < st->solver->n_options; k++)
    if (st->solver->options[k].kind == MP_OPT_SECONDS && st->opt[k] > 0) return true;
  return false;
}

/* The threads a stage may use: the run's, one when a clock cuts it. */
static int stage_threads(const run_state *s, const mp_stage_spec *st, const mp_ctx *c) {
  if (c->deadline > 0 || run_stage_has_clock(st)) return 1;
  return s->spec->threads > 0 ? s->spec->threads : MP_DEFAULT_THREADS;
}

/* Call the solver with what is left of the time limit; time the call
 * alone (its thread's CPU, and that of the threads it started).  Its
 * status is a claim the harness checks afterwards. */
void run_call_solver(run_state *s, const mp_stage_spec *st, mp_ctx *c, mp_stage_result *sr) {
  double limit = s->spec->time_limit;
  c->deadline = limit > 0 ? s->t0 + limit : 0;
  c->time_limit = limit > 0 ? c->deadline - mp_now() : 0;
  if (limit > 0 && c->time_limit < 0.001) c->time_limit = 0.001;
  c->threads = stage_threads(s, st, c);
  c->threads_cpu_s = 0;
  c->status = MP_FEASIBLE;
  c->bound = 0;
  c->duration_bound = 0;
  c->msg[0] = 0;
  double w0 = mp_now(), c0 = mp_thread_cpu_now();
  int rc = st->solver->solve(c);
  sr->wall_ms = (mp_now() - w0) * 1e3;
  sr->cpu_ms = (mp_thread_cpu_now() - c0 + c->threads_cpu_s) * 1e3;
  sr->solver = st->solver;
  sr->kind = st->kind;
  /* a refusal under a size cap is -1 with status MP_REFUSED: kept apart
   * from failures (bench does not count or retry it as one); -1 with
   * MP_TIMEOUT is no plan before the time limit, no failure either */
  sr->no_plan = rc != 0;
  sr->status = rc && c->status != MP_REFUSED && c->status != MP_TIMEOUT ? MP_ERROR : c->status;
  sr->bound = c->bound;
  sr->duration_bound = c->duration_bound;
  snprintf(sr->msg, sizeof sr->msg, "%s", c->msg);
  if (sr->status == MP_TIMEOUT) s->timed_out[st->kind] = true;
}

/* ----------------------------------------------------------------- order */

/* A returned order must be valid; an order stage's bound (valid for every
 * order, it says) must not exceed the live peak of the order it returned. */
static mp_err check_order(run_state *s, const mp_stage_spec *st, const mp_stage_result *sr) {
  const mp_graph *g = s->in->g;
  mp_error e;
  if (mp_order_check(g, s->r->order, &e) >= 0)
    return run_fail(s, st, "%s returned an invalid order: %.400s", st->solver->name, e.msg);
  if (st->kind != MP_STAGE_ORDER || sr->bound <= s->order_bound) return MP_OK;
  int64_t peak = mp_order_peak(g, s->r->order);
  if (sr->bound > peak)
    return run_fail(s, st, "%s reports a lower bound %lld above the live peak %lld of the order it returned",
                    st->solver->name, (long long)sr->bound, (long long)peak);
  s->order_bound = sr->bound;
  snprintf(s->order_bound_src, sizeof s->order_bound_src, "the bound of %s", st->solver->name);
  return MP_OK;
}

static mp_err order_enter(run_state *s, bool *run) {
  const mp_graph *g = s->in->g;
  *run = g != NULL; /* a fixed-lifetime problem: nothing to order */
  if (!g) return MP_OK;
  s->r->n = g->n;
  s->r->order = run_dup(g->given, (size_t)g->n, sizeof(int));
  s->order_bound = mp_node_lower_bound(g);
  snprintf(s->order_bound_src, sizeof s->order_bound_src, "the per-node bound");
  return MP_OK;
}

static mp_err order_stage(run_state *s, const mp_stage_spec *st, mp_stage_result *sr) {
  mp_result *r = s->r;
  size_t n = (size_t)r->n;
  int *start = run_dup(r->order, n, sizeof(int));
  mp_ctx c;
  run_ctx_init(s, st, &c);
  c.start_order = start;
  c.order = r->order;
  run_call_solver(s, st, &c, sr);
  r->order_ms += sr->wall_ms;
  r->order_cpu_ms += sr->cpu_ms;
  mp_err e = MP_OK;
  if (run_stage_failed(sr)) {
    memcpy(r->order, start, sizeof(int) * n); /* the chain goes on from it */
    e = run_no_result(s, st, sr, s->ordered);
  } else {
    if (!(st->solver->roles & MP_ROLE_FILE_ORDER)) s->order_searched = true;
    s->ordered = true;
    e = check_order(s, st, sr);
  }
  free(start);
  return e;
}

/* ------------------------------------------------------------- placement */

/* The lifetimes placers work on: the residencies of the event plan, the
 * graph under the order, or the fixed-lifetime problem (with --align where
 * the file has no column). */
static mp_err place_enter(run_state *s, bool *run) {
  mp_result *r = s->r;
  if (r->remat.has_plan) {
    mp_events_problem(s->in->g, &r->remat.events, r->align, &r->prob, &r->remat.res);
  } else if (s->in->g) {
    mp_problem_from_order(s->in->g, r->order, r->align, &r->prob);
  } else {
    mp_problem_copy(s->in->fixed, &r->prob);
    if (!r->prob.has_alignment_col && s->spec->align > 0)
      for (int i = 0; i < r->prob.n; i++) r->prob.items[i].align = s->spec->align;
  }
  r->offsets = mp_xcalloc((size_t)(r->prob.n ? r->prob.n : 1), sizeof(int64_t));
  *run = true;
  return MP_OK;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

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
                           : run_fail(s, st, "%s returned an invalid placement: %.300s", name, e.msg);
  int64_t arena = mp_arena(&r->prob, r->offsets), cap = s->spec->capacity;
  if (sr->bound > arena)
    return run_fail(s, st, "%s reports a lower bound %lld above the arena %lld it returned", name,
                    (long long)sr->bound, (long long)arena);
  if (says_infeasible && cap > 0 && arena <= cap)
    return run_fail(s, st, "%s says nothing fits in %lld bytes, yet returned a placement of %lld", name,
                    (long long)cap, (long long)arena);
  if (sr->bound > s->place_bound) {
    s->place_bound = sr->bound;
    snprintf(s->place_bound_src, sizeof s->place_bound_src, "%s", name);
  }
  if (st->solver->decides == MP_DECIDES_BOTH) s->joint_bound = max64(s->joint_bound, sr->bound);
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
  int64_t *prev = s->placed ? run_dup(r->offsets, (size_t)r->prob.n, sizeof(int64_t)) : NULL;
  int *start = r->order ? run_dup(r->order, (size_t)r->n, sizeof(int)) : NULL;
  mp_ctx c;
  run_ctx_init(s, st, &c);
  if (r->remat.has_plan) c.g = NULL; /* residencies: a fixed-lifetime problem */
  c.prob = &r->prob;
  c.start_offsets = prev;
  c.offsets = r->offsets;
  c.start_order = start;
  if (joint) c.order = r->order;
  c.capacity = s->spec->capacity;
  run_call_solver(s, st, &c, sr);
  r->place_ms += sr->wall_ms;
  r->place_cpu_ms += sr->cpu_ms;
  mp_err e = MP_OK;
  if (run_stage_failed(sr)) {
    if (joint) memcpy(r->order, start, sizeof(int) * (size_t)r->n);
    if (prev) memcpy(r->offsets, prev, sizeof(int64_t) * (size_t)r->prob.n); /* goes on from it */
    e = run_no_result(s, st, sr, prev != NULL);
  } else {
    s->placed = true;
    if (joint) e = adopt_joint_order(s, st, sr);
    if (!e) e = check_placement(s, st, sr);
  }
  free(prev);
  free(start);
  return e;
}

/* ---------------------------------------------------------------- driver */

typedef struct stage_kind_ops {
  /* prepare what the stages work on; *run false: skip them */
  mp_err (*enter)(run_state *s, bool *run);
  mp_err (*run)(run_state *s, const mp_stage_spec *st, mp_stage_result *sr);
} stage_kind_ops;

static const stage_kind_ops kind_ops[MP_N_STAGE_KINDS] = {
    [MP_STAGE_ORDER] = {order_enter, order_stage},
    [MP_STAGE_EVENTS] = {run_events_enter, run_events_stage},
    [MP_STAGE_PLACE] = {place_enter, place_stage},
};

static mp_err run_stages(run_state *s) {
  for (int k = 0; k < MP_N_STAGE_KINDS && !s->stop; k++) {
    bool run;
    mp_err e = kind_ops[k].enter(s, &run);
    if (e || !run) {
      if (e) return e;
      continue;
    }
    for (int i = 0; i < s->ch->n; i++) {
      const mp_stage_spec *st = &s->ch->st[i];
      if (s->claim || (k == MP_STAGE_EVENTS && s->remat_claim)) break; /* a proof ends the chain */
      if (st->kind != (mp_stage_kind)k) continue;
      if (s->spec->cancel && atomic_load(s->spec->cancel))
        return run_fail(s, st, "cancelled before %s: the run's answer is no longer wanted",
                        st->solver->name);
      e = kind_ops[k].run(s, st, &s->r->stages[s->r->n_stages++]);
      if (e) return e;
    }
  }
  return MP_OK;
}

/* Resolve the chains and check the request before any solver runs. */
/* --align on a CSV without an alignment column must leave every pinned
 * offset aligned, or no placement exists: a usage error. */
static mp_err check_pins(const mp_instance *in, const mp_run_spec *spec, mp_error *err) {
  const mp_problem *p = in->fixed;
  if (!p || p->has_alignment_col || spec->align <= 1) return MP_OK;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].fixed % spec->align) {
      mp_errorf(err, "--align %lld: buffer %s is pinned at %lld, not a multiple",
                (long long)spec->align, p->ids ? p->ids[i] : "?", (long long)p->items[i].fixed);
      return MP_EUSAGE;
    }
  return MP_OK;
}

/* --write-lp promises one model file: exactly one stage must write it (a
 * second would silently replace the first's). */
static mp_err check_write_lp(const mp_run_spec *spec, const mp_chain *ch, mp_error *err) {
  if (!spec->write_lp) return MP_OK;
  char names[256] = "";
  int writers = 0;
  for (int i = 0; i < ch->n; i++)
    if (ch->st[i].solver->roles & MP_ROLE_WRITES_LP) {
      size_t l = strlen(names);
      snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", ch->st[i].solver->name);
      writers++;
    }
  if (writers == 1) return MP_OK;
  if (writers > 1) {
    mp_errorf(err, "--write-lp %s: %d stages of the chain write an LP model (%s), one file "
              "holds one: keep one of them, or run them apart", spec->write_lp, writers, names);
    return MP_EUSAGE;
  }
  for (int k = 0; k < mp_registry_size; k++)
    if (mp_registry[k]->roles & MP_ROLE_WRITES_LP) {
      size_t l = strlen(names);
      snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", mp_registry[k]->name);
    }
  mp_errorf(err, "--write-lp %s: no solver of the chain writes an LP model (those that do: %s)",
            spec->write_lp, names);
  return MP_EUSAGE;
}

static mp_err resolve(const mp_instance *in, const mp_run_spec *spec, mp_chain *ch, mp_result *r) {
  mp_error err;
  mp_chain_request req = {.is_graph = in->g != NULL,
                          .chains = {[MP_STAGE_ORDER] = spec->order, [MP_STAGE_EVENTS] = spec->remat,
                                     [MP_STAGE_PLACE] = spec->place},
                          .n_sets = spec->n_sets, .sets = spec->sets,
                          .n_extra = spec->n_extra, .extra = spec->extra};
  mp_err e = mp_chain_resolve(&req, ch, &err);
  if (!e) e = run_remat_request(spec, &err);
  if (!e) e = check_pins(in, spec, &err);
  if (!e) e = check_write_lp(spec, ch, &err);
  if (e) {
    snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    r->status = r->order_status = r->place_status = r->remat.status = MP_ERROR;
    return e;
  }
  snprintf(r->order_name, sizeof r->order_name, "%s", ch->names[MP_STAGE_ORDER]);
  snprintf(r->place_name, sizeof r->place_name, "%s", ch->names[MP_STAGE_PLACE]);
  snprintf(r->remat.name, sizeof r->remat.name, "%s", ch->names[MP_STAGE_EVENTS]);
  r->has_remat = mp_chain_has(ch, MP_STAGE_EVENTS);
  return MP_OK;
}

mp_err mp_run(const mp_instance *in, const mp_run_spec *spec, mp_result *r) {
  memset(r, 0, sizeof *r);
  r->seed = spec->seed;
  r->align = spec->align > 0 ? spec->align : (in->g ? 64 : 1);
  mp_chain ch;
  mp_err e = resolve(in, spec, &ch, r);
  if (e) return e;
  run_state s;
  memset(&s, 0, sizeof s);
  s.in = in;
  s.spec = spec;
  s.ch = &ch;
  s.r = r;
  run_baseline_start(&s);
  s.t0 = mp_now();
  e = run_stages(&s);
  if (e)
    run_failed_statuses(&s);
  else
    e = s.stop ? run_remat_no_plan(&s) : run_verdict(&s);
  run_baseline_drop(&s);
  free(s.remat_order);
  return e;
}

void mp_result_destroy(mp_result *r) {
  free(r->order);
  free(r->offsets);
  mp_problem_destroy(&r->prob);
  mp_events_destroy(&r->remat.events);
  free(r->remat.res);
  memset(r, 0, sizeof *r);
}
