/* run_verdict.c - the statuses of a run, decided from what the harness
 * itself checked (never from a solver's word), the figures of the
 * verified plan (against the baseline of reduction_vs_given,
 * run_baseline.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_state.h"
#include "schedbound.h"

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* mp_live_peak(&r->prob), computed once: the stages are over, so r->prob
 * no longer changes. */
static int64_t prob_live(run_state *s) {
  if (!s->prob_live_known) s->prob_live = mp_live_peak(&s->r->prob);
  s->prob_live_known = true;
  return s->prob_live;
}

static mp_status order_status(const run_state *s, int64_t live) {
  if (!s->order_searched) return MP_FIXED;
  if (live <= s->order_bound) return MP_OPTIMAL;
  return s->timed_out[MP_STAGE_ORDER] ? MP_TIMEOUT : MP_FEASIBLE;
}

/* The section-1 live peak of the order (the order_status's measure). */
static int64_t order_live(run_state *s) {
  const mp_result *r = s->r;
  if (r->remat.known) return r->remat.order_peak;
  return r->order && !r->remat.has_plan ? prob_live(s) : mp_order_peak(s->in->g, r->order);
}

/* A bound on the live peak of every plan the command could choose (DESIGN
 * 1.3): the lifetimes' own for a fixed-lifetime problem, the events floor
 * with recomputation (which can go below every order's peak), the order's
 * live peak when the order was not searched (the command could choose no
 * other; it is at least every scheduling bound), else the best scheduling
 * bound. */
static int64_t lower_bound(run_state *s) {
  if (!s->in->g) return prob_live(s);
  if (s->r->has_remat) return mp_events_floor(s->in->g);
  if (!s->order_searched && s->r->order) return mp_order_peak(s->in->g, s->r->order);
  return s->order_bound;
}

static bool any_timeout(const run_state *s) {
  for (int k = 0; k < MP_N_STAGE_KINDS; k++)
    if (s->timed_out[k]) return true;
  return false;
}

/* The figures of the verified plan, against the baseline when asked. */
static void evaluate(run_state *s) {
  mp_result *r = s->r;
  mp_baseline b = {0, 0};
  bool has_b = !s->spec->no_baseline && run_baseline_for(s, &b);
  mp_evaluate_at(&r->prob, r->offsets, prob_live(s), r->fig.lower_bound, has_b ? b.arena : 0, &r->fig);
  r->has_figures = true;
  r->has_baseline = has_b;
}

/* With recomputation no placement meets the capacity: infeasible only when
 * the events floor (every plan's live peak, so every arena) exceeds it. */
static mp_err remat_no_placement(run_state *s) {
  mp_result *r = s->r;
  int64_t cap = s->spec->capacity, floor = mp_events_floor(s->in->g);
  if (floor > cap) {
    r->status = MP_INFEASIBLE;
    snprintf(r->msg, sizeof r->msg,
             "every plan peaks at least at %lld bytes (the events floor), above the capacity %lld",
             (long long)floor, (long long)cap);
    return MP_OK;
  }
  r->status = any_timeout(s) ? MP_TIMEOUT : MP_ERROR;
  snprintf(r->msg, sizeof r->msg,
           "%s found no placement of the residencies within capacity %lld (best arena %lld); no bound "
           "the harness can check rules out every plan (the events floor is %lld)",
           s->claim ? s->claim->solver->name : r->place_name, (long long)cap,
           (long long)mp_arena(&r->prob, r->offsets), (long long)floor);
  return MP_ESOLVER;
}

/* A searched order missed the capacity: infeasible only when a bound valid
 * for every order exceeds it (the min-cut bound computed now if needed). */
static bool every_order_exceeds(run_state *s, int64_t cap) {
  mp_result *r = s->r;
  if (max64(s->order_bound, s->joint_bound) <= cap) {
    int64_t mc = mp_sched_lower_bound(s->in->g, NULL);
    if (mc > s->order_bound) {
      s->order_bound = mc;
      snprintf(s->order_bound_src, sizeof s->order_bound_src, "the min-cut bound");
    }
    r->fig.lower_bound = s->order_bound;
  }
  int64_t lb = max64(s->order_bound, s->joint_bound);
  if (lb <= cap) return false;
  r->status = MP_INFEASIBLE;
  snprintf(r->msg, sizeof r->msg, "every order needs at least %lld bytes (%s), above the capacity %lld",
           (long long)lb, s->joint_bound > s->order_bound ? "a joint stage's bound" : s->order_bound_src,
           (long long)cap);
  return true;
}

/* No plan meets the request.  Infeasible when a bound the harness checked
 * rules out every plan the command could have chosen: with a fixed order,
 * the order's live peak or a placer's bound backed by its placement; with
 * a searched order, a bound valid for every order (per-node, min-cut, an
 * order stage's, a joint stage's).  Otherwise the solvers found no plan. */
static mp_err no_plan(run_state *s, int64_t live, int64_t place_lb) {
  mp_result *r = s->r;
  int64_t cap = s->spec->capacity;
  if (r->has_remat) return remat_no_placement(s);
  if (!s->order_searched && cap > 0 && place_lb > cap) {
    r->status = MP_INFEASIBLE;
    if (live >= place_lb)
      snprintf(r->msg, sizeof r->msg, "the live peak %lld of the %s exceeds the capacity %lld",
               (long long)live, s->in->g ? "order (not searched)" : "lifetimes", (long long)cap);
    else
      snprintf(r->msg, sizeof r->msg, "%s proved a lower bound %lld above the capacity %lld",
               s->place_bound_src, (long long)place_lb, (long long)cap);
    return MP_OK;
  }
  if (s->order_searched && cap > 0 && every_order_exceeds(s, cap)) return MP_OK;
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

/* Is the plan proven best among every plan the command could have chosen?
 * With recomputation the objective is the duration (DESIGN 6.3), then the
 * arena of that plan's residencies: its duration must meet a checked bound
 * whose scope covers every such plan (a stage's bound when the order was
 * not searched, the duration floor otherwise) and its placement must be
 * optimal. */
static bool plan_proven(const run_state *s, int64_t arena, int64_t place_lb) {
  const mp_result *r = s->r;
  if (r->has_remat) {
    if (r->remat.status != MP_OPTIMAL) return false;
    if (s->order_searched && !run_meets(r->remat.fig.duration, mp_events_duration_floor(s->in->g)))
      return false;
    return arena <= place_lb;
  }
  int64_t plan_lb = s->order_searched ? max64(s->order_bound, s->joint_bound) : place_lb;
  return arena <= plan_lb;
}

/* Statuses from what the harness checked, never from a solver's word. */
mp_err run_verdict(run_state *s) {
  mp_result *r = s->r;
  int64_t cap = s->spec->capacity, live = prob_live(s);
  int64_t arena = s->plan_valid ? mp_arena(&r->prob, r->offsets) : -1;
  int64_t place_lb = max64(live, s->place_bound); /* every placement of these lifetimes */
  bool fits = s->plan_valid && (cap == 0 || arena <= cap);
  r->fig.lower_bound = lower_bound(s);
  r->order_status = s->in->g ? order_status(s, order_live(s)) : MP_FIXED;
  if (r->has_remat) r->remat.status = run_remat_status(s);
  if (fits)
    r->place_status = arena <= place_lb ? MP_OPTIMAL : s->timed_out[MP_STAGE_PLACE] ? MP_TIMEOUT : MP_FEASIBLE;
  else
    r->place_status = cap > 0 && place_lb > cap ? MP_INFEASIBLE
                      : s->timed_out[MP_STAGE_PLACE] ? MP_TIMEOUT : MP_ERROR;
  if (!fits) return no_plan(s, live, place_lb);
  evaluate(s);
  r->status = plan_proven(s, arena, place_lb) ? MP_OPTIMAL : any_timeout(s) ? MP_TIMEOUT : MP_FEASIBLE;
  return MP_OK;
}

/* The recomputation chain proved that no plan fits the budget: the floor
 * (checked here), or a stage's exhausted exact search over the plans that
 * follow the order it was handed, which covers every plan the command
 * could choose only when the order was not searched. */
mp_err run_remat_no_plan(run_state *s) {
  mp_result *r = s->r;
  mp_remat_result *m = &r->remat;
  int64_t floor = mp_events_floor(s->in->g);
  r->order_status = order_status(s, m->order_peak);
  r->fig.lower_bound = floor;
  m->status = r->place_status = MP_INFEASIBLE;
  if (s->below_floor) {
    r->status = MP_INFEASIBLE;
    snprintf(r->msg, sizeof r->msg,
             "the budget %lld is below %lld, the floor no plan goes under (the inputs, the graph "
             "outputs, or one node's reads + outputs + workspace)",
             (long long)m->budget, (long long)floor);
    return MP_OK;
  }
  const mp_stage_result *c = s->remat_claim;
  if (!s->order_searched) {
    r->status = MP_INFEASIBLE;
    snprintf(r->msg, sizeof r->msg, "%s proved that no plan within the budget %lld follows the order "
             "(its exact search was exhausted)%s%.200s", c->solver->name, (long long)m->budget,
             c->msg[0] ? ": " : "", c->msg);
    return MP_OK;
  }
  r->status = MP_ERROR;
  snprintf(r->msg, sizeof r->msg, "%s proved that no plan within the budget %lld follows the order "
           "it was given; no proven bound rules out every order (the events floor is %lld)",
           c->solver->name, (long long)m->budget, (long long)floor);
  return MP_ESOLVER;
}

/* A stage failed (or refused), or the request could not be entered: no
 * plan, no figures; the kinds before it keep their status, the kinds from
 * it on take its status. */
void run_failed_statuses(run_state *s) {
  mp_result *r = s->r;
  if (!s->failed) { /* the request itself (run_events_enter): r->msg says why */
    r->status = r->order_status = r->place_status = r->remat.status = MP_ERROR;
    return;
  }
  mp_stage_kind k = s->failed->decides == MP_DECIDES_BOTH ? MP_STAGE_ORDER : s->failed_kind;
  r->status = r->place_status = s->failed_status;
  r->fig.lower_bound = lower_bound(s);
  r->order_status = k == MP_STAGE_ORDER ? s->failed_status
                    : s->in->g          ? order_status(s, order_live(s))
                                        : MP_FIXED;
  if (r->has_remat) r->remat.status = k <= MP_STAGE_EVENTS ? s->failed_status : run_remat_status(s);
}
