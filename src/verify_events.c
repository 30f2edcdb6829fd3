/* verify_events.c - the judge of an event plan file (DESIGN 6.2, 6.3): a
 * plan with "events".  The rules first (the verifier names the first
 * violation: event index, node or buffer, rule), then the first-run order
 * it states, its budget, the offsets of its residencies and every figure.
 * Model headers only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verify_int.h"

/* The host link the plan was made for: its "bandwidth", else the graph's. */
static int plan_bandwidth(const mp_graph *g, json_t *plan, double *bw, mp_error *err) {
  json_t *v = json_object_get(plan, "bandwidth");
  *bw = g->host_bandwidth;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_number(v) || !(json_number_value(v) >= 0) || !isfinite(json_number_value(v)))
    return mp_errorf(err, "\"bandwidth\" is not a number >= 0");
  *bw = json_number_value(v);
  return 0;
}

/* "order", when stated, is the order of the first runs (inputs first). */
static int check_first_order(const mp_graph *g, json_t *plan, const mp_events *p, mp_error *err) {
  json_t *jo = json_object_get(plan, "order");
  if (!jo || json_is_null(jo)) return 0;
  if (!json_is_array(jo) || (int)json_array_size(jo) != g->n)
    return mp_errorf(err, "\"order\" must list all %d nodes", g->n);
  int *first = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  mp_events_first_order(g, p, first); /* complete: the plan verified */
  int rc = 0;
  for (int i = 0; i < g->n && !rc; i++) {
    json_t *x = json_array_get(jo, (size_t)i);
    if (!json_is_integer(x) || json_integer_value(x) != first[i])
      rc = mp_errorf(err, "\"order\" position %d is not the first runs' order (node %d runs first there)",
                     i, first[i]);
  }
  free(first);
  return rc;
}

/* "offsets": one integer per residency, under its id ("J", "J@k", "ws:J"). */
static int read_offsets(const mp_problem *p, json_t *plan, int64_t *off, mp_error *err) {
  json_t *joff = json_object_get(plan, "offsets");
  if (!json_is_object(joff)) return mp_errorf(err, "no \"offsets\" object");
  for (int i = 0; i < p->n; i++) {
    json_t *x = json_object_get(joff, p->ids[i]);
    if (!json_is_integer(x)) return mp_errorf(err, "residency %s has no integer offset", p->ids[i]);
    off[i] = json_integer_value(x);
  }
  return 0;
}

/* DESIGN 6.3's figures recompute; overhead is absent when base_time is 0. */
static int check_event_figures(json_t *plan, const mp_ev_figures *f, int residencies, mp_error *err) {
  int rc = mp_vf_figure(plan, "duration", f->duration, false, err);
  if (!rc) rc = mp_vf_figure(plan, "base_time", f->base_time, false, err);
  if (!rc) rc = mp_vf_figure(plan, "recompute_time", f->recompute_time, false, err);
  if (!rc) rc = mp_vf_figure(plan, "stall_time", f->stall_time, false, err);
  if (!rc) rc = mp_vf_count(plan, "recomputed", f->recomputed, err);
  if (!rc) rc = mp_vf_count(plan, "transferred", f->transferred, err);
  if (!rc) rc = mp_vf_count(plan, "residencies", residencies, err);
  if (rc) return rc;
  json_t *ov = json_object_get(plan, "overhead");
  if (isnan(f->overhead) && ov && !json_is_null(ov))
    return mp_errorf(err, "figure overhead: the plan states one, but base_time is 0");
  return isnan(f->overhead) ? 0 : mp_vf_figure(plan, "overhead", f->overhead, false, err);
}

/* The residencies are placed as the plan says, and the figures of both
 * sections recompute. */
static int check_placement(const mp_graph *g, json_t *plan, const mp_events *p, int64_t align,
                           const mp_ev_figures *f, mp_error *err) {
  mp_problem pr;
  mp_events_problem(g, p, align, &pr, NULL);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)(pr.n ? pr.n : 1));
  int rc = read_offsets(&pr, plan, off, err);
  if (!rc) rc = mp_verify_offsets(&pr, off, err);
  if (!rc) rc = mp_vf_figures(g, plan, &pr, off, mp_events_floor(g), err);
  if (!rc) rc = check_event_figures(plan, f, pr.n, err);
  free(off);
  mp_problem_destroy(&pr);
  return rc;
}

int mp_vf_events_plan(const mp_graph *g, json_t *plan, int64_t align_override, mp_error *err) {
  mp_events p;
  mp_events_init(&p);
  double bw;
  int64_t budget;
  int rc = mp_events_from_json(g, json_object_get(plan, "events"), &p, err);
  if (!rc) rc = plan_bandwidth(g, plan, &bw, err);
  if (!rc) rc = mp_vf_stated(plan, "budget", &budget, err);
  if (!rc) rc = mp_events_verify(g, &p, bw, NULL, err);
  if (!rc) rc = check_first_order(g, plan, &p, err);
  mp_ev_figures f;
  if (!rc) {
    mp_events_evaluate(g, &p, bw, budget, &f);
    if (budget >= 0 && f.live_peak > budget)
      rc = mp_errorf(err, "the plan is over its budget: live peak %lld > budget %lld",
                     (long long)f.live_peak, (long long)budget);
  }
  if (!rc) rc = check_placement(g, plan, &p, mp_vf_align(plan, align_override), &f, err);
  mp_events_destroy(&p);
  return rc ? -1 : 0;
}
