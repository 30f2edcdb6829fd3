/* plot_events.c - event plans (DESIGN 6) read back for the pictures: the
 * plan file that `memplan solve --remat ... --out PLAN` writes ("events",
 * and one offset per residency under the residency's id), checked with the
 * model alone (the events verifier, the residencies, the placement check),
 * and the memory of each sample split by where its bytes came from: a first
 * run (or the start), a recomputation, a copy back from the host. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"
#include "plot.h"

/* first run or start: blue; recomputed: orange; brought back: green */
const double mp_origin_colour[MP_N_ORIGINS][3] = {
    {0.12, 0.47, 0.71}, {0.12, 0.47, 0.71}, {0.90, 0.38, 0.00}, {0.10, 0.62, 0.28}};

int mp_origin_part(mp_res_origin o) { return o == MP_RES_RERUN ? 1 : o == MP_RES_IN ? 2 : 0; }

bool mp_plan_file_has_events(const char *path) {
  json_t *o = mp_json_load_file(path, 0, NULL);
  bool has = json_is_object(o) && json_is_array(json_object_get(o, "events"));
  json_decref(o);
  return has;
}

/* "given+rotor+bysize, budget 41688 B": what the plan's header says. */
static void plan_label(json_t *o, const char *path, char *out, size_t cap) {
  json_t *r = json_object_get(o, "remat_solver"), *b = json_object_get(o, "budget");
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (!json_is_string(r)) {
    snprintf(out, cap, "%s", base);
    return;
  }
  int l = snprintf(out, cap, "%s", json_string_value(r));
  if (json_is_integer(b)) {
    char h[48];
    mp_plot_human((double)json_integer_value(b), h, sizeof h);
    snprintf(out + l, cap - (size_t)l, ", budget %s", h);
  }
}

/* The offsets of the residencies, by id; -1 naming the first missing one. */
static int read_offsets(json_t *o, mp_event_plan *p, char *msg, size_t cap) {
  json_t *offs = json_object_get(o, "offsets");
  p->offsets = mp_xmalloc(sizeof(int64_t) * (size_t)(p->prob.n ? p->prob.n : 1));
  for (int i = 0; i < p->prob.n; i++) {
    json_t *x = json_is_object(offs) ? json_object_get(offs, p->prob.ids[i]) : NULL;
    if (!json_is_integer(x)) {
      mp_msgf(msg, cap, "the plan has no offset for residency '%s'", p->prob.ids[i]);
      return -1;
    }
    p->offsets[i] = json_integer_value(x);
  }
  mp_error err;
  if (mp_verify_offsets(&p->prob, p->offsets, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return -1;
  }
  return 0;
}

/* The plan proper: events that verify, their residencies. */
static int read_events(const mp_graph *g, json_t *o, mp_event_plan *p, char *msg, size_t cap) {
  mp_error err;
  if (mp_events_from_json(g, json_object_get(o, "events"), &p->ev, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return -1;
  }
  json_t *bw = json_object_get(o, "bandwidth"), *al = json_object_get(o, "align");
  p->bandwidth = json_is_number(bw) ? json_number_value(bw) : g->host_bandwidth;
  p->align = json_is_integer(al) && json_integer_value(al) > 0 ? json_integer_value(al) : 64;
  if (mp_events_verify(g, &p->ev, p->bandwidth, NULL, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return -1;
  }
  mp_events_problem(g, &p->ev, p->align, &p->prob, &p->res);
  return 0;
}

int mp_event_plan_load(const mp_graph *g, const char *path, bool need_offsets, mp_event_plan *p,
                       char *msg, size_t cap) {
  memset(p, 0, sizeof *p);
  mp_events_init(&p->ev);
  json_error_t je;
  json_t *o = mp_json_load_file(path, 0, &je);
  char sub[600];
  int rc = 0;
  if (!json_is_object(o)) {
    snprintf(sub, sizeof sub, "not a plan file (%s)", o ? "not a JSON object" : je.text);
    rc = -1;
  }
  if (!rc) rc = read_events(g, o, p, sub, sizeof sub);
  if (!rc && need_offsets) rc = read_offsets(o, p, sub, sizeof sub);
  if (!rc) plan_label(o, path, p->label, sizeof p->label);
  if (rc) {
    mp_msgf(msg, cap, "%s: %s", path, sub);
    mp_event_plan_destroy(p);
  }
  json_decref(o);
  return rc;
}

void mp_event_plan_destroy(mp_event_plan *p) {
  mp_events_destroy(&p->ev);
  if (p->prob.items) mp_problem_destroy(&p->prob);
  free(p->res);
  free(p->offsets);
  memset(p, 0, sizeof *p);
}

int64_t *mp_events_samples(const mp_graph *g, const mp_events *ev, int *n) {
  int k = 1;
  for (int i = 0; i < ev->n; i++) k += ev->ev[i].kind == MP_EV_RUN || ev->ev[i].kind == MP_EV_IN;
  /* one value per residency time (events_problem.c), time 0 the start:
   * nothing is resident there when the graph has no input node, and the
   * start is then no sample of 6.3 (events.h) */
  int64_t *s = mp_xcalloc((size_t)k, sizeof(int64_t));
  mp_events_memory(g, ev, mp_events_start_sampled(g) ? s : s + 1);
  *n = k;
  return s;
}

void mp_event_plan_parts(const mp_event_plan *p, int n, int64_t *parts[3]) {
  for (int k = 0; k < 3; k++) parts[k] = mp_xcalloc((size_t)(n ? n : 1), sizeof(int64_t));
  for (int i = 0; i < p->prob.n; i++) {
    const mp_item *it = &p->prob.items[i];
    int k = mp_origin_part(p->res[i].origin);
    for (int64_t t = it->lo; t < it->hi && t < n; t++)
      if (t >= 0) parts[k][t] += it->size;
  }
}
