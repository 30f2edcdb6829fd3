/* memplan_events.c - the public API's event plans (memplan.h): the events
 * of a result, and the judge of an event plan held in memory. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "memplan_int.h"

_Static_assert((int)MEMPLAN_EV_RUN == (int)MP_EV_RUN && (int)MEMPLAN_EV_FREE == (int)MP_EV_FREE &&
                   (int)MEMPLAN_EV_OUT == (int)MP_EV_OUT && (int)MEMPLAN_EV_IN == (int)MP_EV_IN,
               "memplan_event_kind mirrors mp_event_kind");

int memplan_result_event_count(const memplan_result *r) {
  const mp_result *x = &r->r;
  return x->has_figures && x->has_remat && x->remat.has_plan ? x->remat.events.n : 0;
}

memplan_err memplan_result_event(const memplan_result *r, int i, memplan_event *out) {
  if (i < 0 || i >= memplan_result_event_count(r)) return MEMPLAN_EUSAGE;
  const mp_graph *g = r->owner->in.g;
  mp_event e = r->r.remat.events.ev[i];
  memset(out, 0, sizeof *out);
  out->kind = (memplan_event_kind)e.kind;
  if (e.kind == MP_EV_RUN) {
    out->node = e.id;
    out->output = -1;
  } else {
    out->node = g->bufs[e.id].owner;
    out->output = g->bufs[e.id].out;
    mp_buffer_key(g, e.id, out->key, sizeof out->key);
  }
  return MEMPLAN_OK;
}

/* The public events as the model's: a node id, or the tensor buffer that
 * output `output` of `node` owns.  0, or -1 with a message. */
static int to_model(const mp_graph *g, int n, const memplan_event *ev, mp_events *p, mp_error *err) {
  for (int i = 0; i < n; i++) {
    const memplan_event *e = &ev[i];
    int v = e->node;
    if ((unsigned)e->kind > MEMPLAN_EV_IN) return mp_errorf(err, "event %d: unknown kind %d", i, (int)e->kind);
    if (v < 0 || v >= g->n) return mp_errorf(err, "event %d: %d is not a node id", i, v);
    if (e->kind == MEMPLAN_EV_RUN) {
      mp_events_push(p, MP_EV_RUN, v);
      continue;
    }
    int b = e->output >= 0 && e->output < g->nodes[v].n_out && !g->nodes[v].has_alias
                ? g->root_of[v][e->output]
                : -1;
    if (b < 0) return mp_errorf(err, "event %d: output %d of node %d owns no tensor buffer", i, e->output, v);
    mp_events_push(p, (mp_event_kind)e->kind, b);
  }
  return 0;
}

/* The rules, the budget, the residencies' offsets. */
static int judge(const mp_graph *g, const mp_events *p, double bw, int64_t budget,
                 const int64_t *offsets, int64_t align, mp_error *err) {
  if (mp_events_verify(g, p, bw, NULL, err)) return -1;
  int64_t peak = mp_events_memory(g, p, NULL);
  if (budget >= 0 && peak > budget)
    return mp_errorf(err, "the plan's live peak %lld exceeds the budget %lld", (long long)peak,
                     (long long)budget);
  if (!offsets) return 0;
  mp_problem pr;
  mp_events_problem(g, p, align > 0 ? align : 64, &pr, NULL);
  int rc = mp_verify_offsets(&pr, offsets, err);
  mp_problem_destroy(&pr);
  return rc;
}

memplan_err memplan_verify_events(const memplan_instance *in, int n, const memplan_event *events,
                                  double bandwidth, int64_t budget, const int64_t *offsets,
                                  int64_t align, memplan_error *err) {
  const mp_graph *g = in->in.g;
  if (!g || n < 0 || (n > 0 && !events)) {
    mp_api_error(err, g ? "memplan_verify_events: n < 0, or a NULL array"
                        : "an event plan needs a graph, not a fixed-lifetime problem");
    return MEMPLAN_EUSAGE;
  }
  if (mp_api_align_check(align, "memplan_verify_events", err)) return MEMPLAN_EUSAGE;
  if (isnan(bandwidth) || isinf(bandwidth)) /* as memplan_request.bandwidth */
    return mp_api_fail(err, MEMPLAN_EUSAGE,
                       "memplan_verify_events: bandwidth %g is not finite (< 0: the graph's)",
                       bandwidth);
  mp_events p;
  mp_events_init(&p);
  mp_error e;
  int rc = to_model(g, n, events, &p, &e);
  if (rc == 0) rc = judge(g, &p, bandwidth < 0 ? g->host_bandwidth : bandwidth, budget, offsets, align, &e);
  mp_events_destroy(&p);
  if (rc == 0) return MEMPLAN_OK;
  mp_api_error(err, e.msg);
  return MEMPLAN_EINPUT;
}
