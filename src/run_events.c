/* run_events.c - the recomputation/offload kind of the harness (DESIGN 6):
 * the chain of MP_DECIDES_EVENTS stages between the order and the
 * placement.  Every stage is handed the same order and the budget; its
 * plan is verified (mp_events_verify) and measured (mp_events_evaluate) by
 * the judge, so the solver's word counts for nothing: a plan over the
 * budget, an invalid plan or a duration bound above a duration the chain
 * reached is an error naming the solver.  Proofs the harness accepts:
 * - optimal: the plan's duration meets the duration floor (every non-input
 *   node once, valid for every plan) or a stage's duration_bound that
 *   checked out (valid for the plans whose first runs follow the order);
 * - infeasible: the budget below mp_events_floor (checked here: no stage
 *   runs), or a stage's own MP_INFEASIBLE, the solver's statement that its
 *   exact search was exhausted, accepted when it returned no plan and no
 *   plan of the chain that follows the same order contradicts it. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_state.h"

bool run_meets(double duration, double bound) {
  return duration <= bound + 1e-9 * fmax(1.0, fabs(bound));
}

mp_err run_remat_request(const mp_run_spec *spec, mp_error *err) {
  if (!spec->remat) {
    if (spec->has_budget || spec->budget_frac)
      return mp_errorf(err, "a budget (--budget, --budget-frac) needs a recomputation stage (--remat)"),
             MP_EUSAGE;
    if (spec->has_bandwidth)
      return mp_errorf(err, "--bandwidth needs a recomputation stage (--remat)"), MP_EUSAGE;
    return MP_OK;
  }
  if (spec->has_budget == (spec->budget_frac != NULL))
    return mp_errorf(err, "--remat needs one budget: --budget BYTES or --budget-frac F"), MP_EUSAGE;
  if (spec->has_budget && spec->budget < 0)
    return mp_errorf(err, "budget %lld is negative", (long long)spec->budget), MP_EUSAGE;
  int64_t unused;
  if (spec->budget_frac && mp_budget_frac(spec->budget_frac, 0, &unused, err)) return MP_EUSAGE;
  if (spec->has_bandwidth && !(spec->bandwidth >= 0 && isfinite(spec->bandwidth)))
    return mp_errorf(err, "bandwidth %g: a finite number of bytes per cost unit, >= 0 (0: no offload)",
                     spec->bandwidth), MP_EUSAGE;
  return MP_OK;
}

/* The order handed to the chain, the budget (a fraction of that order's
 * live peak), the bandwidth; the floor's proof when the budget is below
 * it. */
mp_err run_events_enter(run_state *s, bool *run) {
  mp_result *r = s->r;
  const mp_graph *g = s->in->g;
  const mp_run_spec *spec = s->spec;
  mp_remat_result *m = &r->remat;
  *run = r->has_remat;
  if (!*run) return MP_OK;
  m->order_peak = mp_order_peak(g, r->order);
  m->bandwidth = spec->has_bandwidth ? spec->bandwidth : g->host_bandwidth;
  m->base_time = mp_base_time(g);
  m->budget = spec->budget;
  mp_error err;
  if (!spec->has_budget && mp_budget_frac(spec->budget_frac, m->order_peak, &m->budget, &err)) {
    snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    return MP_EUSAGE;
  }
  snprintf(m->frac, sizeof m->frac, "%s", spec->has_budget ? "" : spec->budget_frac);
  m->known = true;
  s->remat_order = run_dup(r->order, (size_t)g->n, sizeof(int));
  s->remat_bound = mp_events_duration_floor(g);
  snprintf(s->remat_bound_src, sizeof s->remat_bound_src, "the duration floor");
  s->best_in_scope = INFINITY;
  if (mp_events_floor(g) > m->budget) {
    s->below_floor = s->stop = true; /* a proof: no stage needs to run */
    *run = false;
  }
  return MP_OK;
}

/* A stage says no plan fits: a claim of an exhausted exact search over the
 * plans that follow the order.  It stands when it returned no plan and no
 * plan of the chain that follows the order contradicts it; an earlier plan
 * outside its scope (another first-run order) is kept. */
static mp_err check_claim(run_state *s, const mp_stage_spec *st, const mp_stage_result *sr,
                          const mp_events *prev) {
  mp_remat_result *m = &s->r->remat;
  const char *name = st->solver->name;
  if (m->events.n > 0)
    return run_fail(s, st, "%s says no plan fits the budget %lld, yet returned one", name,
                    (long long)m->budget);
  if (isfinite(s->best_in_scope))
    return run_fail(s, st, "%s says no plan fits the budget %lld, but an earlier stage's plan that "
                           "follows the same order does (duration %.12g)",
                    name, (long long)m->budget, s->best_in_scope);
  s->remat_claim = sr;
  if (prev) {
    mp_events_copy(&m->events, prev);
  } else {
    m->has_plan = false;
    s->stop = true;
  }
  return MP_OK;
}

/* The duration bound a stage reports is checked against what the chain
 * reached: its own plan, and every plan of the chain that follows the
 * order (the bound's scope). */
static mp_err check_duration_bound(run_state *s, const mp_stage_spec *st, double b, double duration) {
  const char *name = st->solver->name;
  if (!(b >= 0) || !isfinite(b))
    return run_fail(s, st, "%s reports a duration bound %g, not a finite number >= 0", name, b);
  if (!run_meets(b, duration))
    return run_fail(s, st, "%s reports a duration bound %.12g above the duration %.12g of the plan it "
                           "returned", name, b, duration);
  if (!run_meets(b, s->best_in_scope))
    return run_fail(s, st, "%s reports a duration bound %.12g above the duration %.12g of an earlier "
                           "plan that follows the same order", name, b, s->best_in_scope);
  if (b > s->remat_bound) {
    s->remat_bound = b;
    snprintf(s->remat_bound_src, sizeof s->remat_bound_src, "the bound of %s", name);
  }
  return MP_OK;
}

/* The judge verifies the plan and measures it; over the budget is an
 * error, whatever the solver said. */
static mp_err check_plan(run_state *s, const mp_stage_spec *st, const mp_stage_result *sr) {
  const mp_graph *g = s->in->g;
  mp_remat_result *m = &s->r->remat;
  const char *name = st->solver->name;
  mp_error e;
  m->has_plan = false;
  if (mp_events_verify(g, &m->events, m->bandwidth, NULL, &e))
    return run_fail(s, st, "%s returned an invalid event plan: %.400s", name, e.msg);
  mp_ev_figures f;
  mp_events_evaluate(g, &m->events, m->bandwidth, m->budget, &f);
  if (f.live_peak > m->budget)
    return run_fail(s, st, "%s returned a plan over the budget: its live peak %lld exceeds %lld", name,
                    (long long)f.live_peak, (long long)m->budget);
  mp_err err = check_duration_bound(s, st, sr->duration_bound, f.duration);
  if (err) return err;
  m->fig = f;
  m->has_plan = true;
  if (f.duration < s->best_in_scope && mp_events_follow(g, &m->events, s->remat_order))
    s->best_in_scope = f.duration;
  return MP_OK;
}

mp_err run_events_stage(run_state *s, const mp_stage_spec *st, mp_stage_result *sr) {
  mp_remat_result *m = &s->r->remat;
  mp_events prev;
  mp_events_init(&prev);
  bool had = m->has_plan;
  if (had) mp_events_copy(&prev, &m->events);
  mp_events_clear(&m->events);
  mp_ctx c;
  run_ctx_init(s, st, &c);
  c.start_order = s->remat_order;
  c.budget = m->budget;
  c.bandwidth = m->bandwidth;
  c.start_events = had ? &prev : NULL;
  c.events = &m->events;
  run_call_solver(s, st, &c, sr);
  m->ms += sr->wall_ms;
  m->cpu_ms += sr->cpu_ms;
  mp_err e;
  if (run_stage_failed(sr)) { /* the chain keeps its last verified plan */
    m->has_plan = had;
    if (had) mp_events_copy(&m->events, &prev);
    e = run_no_result(s, st, sr, had);
  } else if (sr->status == MP_INFEASIBLE) {
    e = check_claim(s, st, sr, had ? &prev : NULL);
  } else {
    e = check_plan(s, st, sr);
  }
  mp_events_destroy(&prev);
  return e;
}

mp_status run_remat_status(const run_state *s) {
  const mp_remat_result *m = &s->r->remat;
  if (!m->has_plan) return MP_INFEASIBLE; /* only asked after a proof (run_remat_no_plan) */
  if (run_meets(m->fig.duration, s->remat_bound)) return MP_OPTIMAL;
  return s->timed_out[MP_STAGE_EVENTS] ? MP_TIMEOUT : MP_FEASIBLE;
}
