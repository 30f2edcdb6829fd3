/* verify_events.c - the judge of an event plan file (DESIGN 6.2, 6.3): a
 * plan with "events".  The rules first (the verifier names the first
 * violation: event index, node or buffer, rule), then the first-run order
 * it states, its budget, the offsets of its residencies and every figure.
 * Model headers only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify_int.h"

/* The host link the plan was made for: its "bandwidth", else the graph's. */
static int plan_bandwidth(const mp_graph *g, mp_jdoc *plan, double *bw, mp_error *err) {
  json_t *v = mp_jdoc_get(plan, "bandwidth");
  *bw = g->host_bandwidth;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_number(v) || !(json_number_value(v) >= 0) || !isfinite(json_number_value(v)))
    return mp_errorf(err, "\"bandwidth\" is not a number >= 0");
  *bw = json_number_value(v);
  return 0;
}

/* "order", when stated, lists every node once, and its non-input nodes in
 * the order of their first runs.  Inputs never run (DESIGN 6.2) and section
 * 1 lets an order put them anywhere, so they may stand at any position
 * (memplan writes them first). */
static int check_first_order(const mp_graph *g, mp_jdoc *plan, const mp_events *p, mp_error *err) {
  if (!mp_jdoc_has(plan, "order") || json_is_null(mp_jdoc_get(plan, "order"))) return 0;
  if (!mp_jdoc_is_array(plan, "order") || mp_jdoc_count(plan, "order") != (size_t)g->n)
    return mp_errorf(err, "\"order\" must list all %d nodes", g->n);
  int n = g->n, k = 0;
  int *first = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  bool *seen = mp_xcalloc((size_t)(n ? n : 1), sizeof(bool));
  mp_events_first_order(g, p, first); /* complete: the plan verified; inputs first */
  while (k < n && g->nodes[first[k]].is_input) k++;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    json_t *x = mp_jdoc_elem(plan, "order", (size_t)i, err);
    json_int_t v = json_is_integer(x) ? json_integer_value(x) : -1;
    if (v < 0 || v >= n)
      rc = mp_errorf(err, "\"order\" position %d is not a node id", i);
    else if (seen[v])
      rc = mp_errorf(err, "\"order\" position %d names node %d again", i, (int)v);
    else if (!g->nodes[v].is_input && (k >= n || v != first[k]))
      rc = mp_errorf(err, "\"order\" position %d is not the first runs' order (node %d runs first there)",
                     i, k < n ? first[k] : (int)v);
    else if (!g->nodes[v].is_input)
      k++;
    if (!rc) seen[v] = true;
  }
  free(first);
  free(seen);
  return rc;
}

/* The residencies by id: an open-addressing table of their indices. */
typedef struct residency_index {
  const mp_graph *g;
  const mp_problem *p;
  int *slot; /* -1: empty */
  size_t mask;
  mp_vf_slots slots;
} residency_index;

static void residency_index_init(residency_index *x, const mp_graph *g, const mp_problem *p,
                                 int64_t *off) {
  size_t cap = 16;
  while (cap < 2 * (size_t)p->n) cap *= 2;
  x->g = g;
  x->p = p;
  x->mask = cap - 1;
  x->slot = mp_xmalloc(sizeof(int) * cap);
  memset(x->slot, 0xff, sizeof(int) * cap);
  for (int i = 0; i < p->n; i++) {
    size_t h = (size_t)mp_str_hash(p->ids[i]) & x->mask;
    while (x->slot[h] >= 0) h = (h + 1) & x->mask;
    x->slot[h] = i;
  }
  mp_vf_slots_init(&x->slots, p->n, off);
}

static void residency_index_destroy(residency_index *x) {
  free(x->slot);
  mp_vf_slots_destroy(&x->slots);
}

/* The residency ids equal to `id` take the value v as `which`; how many
 * (*clash: one of them already had a value under its other name). */
static int take_id(residency_index *x, const char *id, unsigned char which, json_t *v, bool *clash) {
  int found = 0;
  for (size_t h = (size_t)mp_str_hash(id) & x->mask; x->slot[h] >= 0; h = (h + 1) & x->mask)
    if (!strcmp(x->p->ids[x->slot[h]], id)) {
      if (mp_vf_slots_take(&x->slots, x->slot[h], which, v)) *clash = true;
      found++;
    }
  return found;
}

/* The main id ("J", "J@k") of `name` when it is the other name of a
 * residency of J's only output ("J:0", "J:0@k"), as "J:0" names "J" in a
 * plan of an order (verify.c); false otherwise.  Rebuilding the name from
 * the number parsed decides, so "01:0" or "1:00" name nothing. */
static bool main_id_of_alt(const mp_graph *g, const char *name, char *id, size_t cap) {
  if (*name < '0' || *name > '9') return false;
  char *end;
  long j = strtol(name, &end, 10);
  if (j >= g->n || strncmp(end, ":0", 2) || (end[2] && end[2] != '@')) return false;
  if (g->nodes[j].n_out != 1) return false;
  int b = g->root_of[j][0];
  if (b < 0 || g->bufs[b].owner != j || g->bufs[b].kind != MP_BUF_TENSOR) return false;
  char back[64];
  int len = snprintf(back, sizeof back, "%ld:0%s", j, end + 2);
  if (len < 0 || (size_t)len >= sizeof back || strcmp(back, name)) return false;
  len = snprintf(id, cap, "%ld%s", j, end + 2);
  return len >= 0 && (size_t)len < cap;
}

/* A member of "offsets": the offset of every residency of that id, or of
 * the id it is the other name of ("J:0" for "J"; both at once are an
 * error); a name of no residency is an error. */
static int take_residency_member(void *ctx, const char *name, json_t *v, mp_error *err) {
  residency_index *x = ctx;
  char id[64];
  bool clash = false;
  int found = take_id(x, name, MP_VF_MAIN, v, &clash);
  if (!found && main_id_of_alt(x->g, name, id, sizeof id)) found = take_id(x, id, MP_VF_ALT, v, &clash);
  if (clash)
    return mp_errorf(err, "offsets: key \"%.80s\" names a residency that another key (its other "
                          "name, \"J\" or \"J:0\") already placed", name);
  if (found) return 0;
  return mp_errorf(err, "offsets: key \"%.80s\" names no residency of this plan (ids are \"J\", "
                        "\"J:K\", \"ws:J\", and \"J@k\", \"ws:J@k\" for one made by event k)",
                   name);
}

/* "offsets": one integer per residency, under its id ("J", "J@k", "ws:J";
 * "J:0", "J:0@k" for J's only output); a name given twice counts with its
 * last value, as in a whole-file parse. */
static int read_offsets(const mp_graph *g, const mp_problem *p, mp_jdoc *plan, int64_t *off,
                        mp_error *err) {
  if (!mp_jdoc_is_object(plan, "offsets")) return mp_errorf(err, "no \"offsets\" object");
  residency_index x;
  residency_index_init(&x, g, p, off);
  int rc = mp_jdoc_each_member(plan, "offsets", take_residency_member, &x, err);
  for (int i = 0; i < p->n && !rc; i++)
    if (!(x.slots.state[i] & MP_VF_INT))
      rc = mp_errorf(err, "residency %s has no integer offset", p->ids[i]);
  residency_index_destroy(&x);
  return rc ? -1 : 0;
}

/* DESIGN 6.3's figures recompute; overhead is absent when base_time is 0. */
static int check_event_figures(mp_jdoc *plan, const mp_ev_figures *f, int residencies, mp_error *err) {
  int rc = mp_vf_figure(plan, "duration", f->duration, false, err);
  if (!rc) rc = mp_vf_figure(plan, "base_time", f->base_time, false, err);
  if (!rc) rc = mp_vf_figure(plan, "recompute_time", f->recompute_time, false, err);
  if (!rc) rc = mp_vf_figure(plan, "stall_time", f->stall_time, false, err);
  if (!rc) rc = mp_vf_count(plan, "recomputed", f->recomputed, err);
  if (!rc) rc = mp_vf_count(plan, "transferred", f->transferred, err);
  if (!rc) rc = mp_vf_count(plan, "stale_reruns", f->stale_reruns, err);
  if (!rc) rc = mp_vf_count(plan, "residencies", residencies, err);
  if (rc) return rc;
  json_t *ov = mp_jdoc_get(plan, "overhead");
  if (isnan(f->overhead) && ov && !json_is_null(ov))
    return mp_errorf(err, "figure overhead: the plan states one, but base_time is 0");
  return isnan(f->overhead) ? 0 : mp_vf_figure(plan, "overhead", f->overhead, false, err);
}

/* The residencies are placed as the plan says, and the figures of both
 * sections recompute. */
static int check_placement(const mp_graph *g, mp_jdoc *plan, const mp_events *p, int64_t align,
                           const mp_ev_figures *f, mp_plan_facts *out, mp_error *err) {
  mp_problem pr;
  mp_events_problem(g, p, align, &pr, NULL);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)(pr.n ? pr.n : 1));
  int rc = read_offsets(g, &pr, plan, off, err);
  if (!rc) rc = mp_verify_offsets(&pr, off, err);
  if (!rc) rc = mp_vf_figures(g, plan, &pr, off, mp_events_floor(g), out ? &out->fig : NULL, err);
  if (!rc) rc = check_event_figures(plan, f, pr.n, err);
  if (out) out->residencies = pr.n;
  free(off);
  mp_problem_destroy(&pr);
  return rc;
}

/* "events", one element at a time. */
static int read_events(const mp_graph *g, mp_jdoc *plan, mp_events *p, mp_error *err) {
  if (!mp_jdoc_is_array(plan, "events")) return mp_errorf(err, "\"events\" is not an array");
  size_t n = mp_jdoc_count(plan, "events");
  for (size_t i = 0; i < n; i++) {
    mp_event e;
    if (mp_event_from_json(g, mp_jdoc_elem(plan, "events", i, err), (int)i, &e, err)) return -1;
    mp_events_push(p, e.kind, e.id);
  }
  return 0;
}

int mp_vf_events_plan(const mp_graph *g, mp_jdoc *plan, int64_t align_override, mp_plan_facts *out,
                      mp_error *err) {
  mp_events p;
  mp_events_init(&p);
  double bw;
  int64_t budget;
  int rc = read_events(g, plan, &p, err);
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
  int64_t align;
  if (!rc) rc = mp_vf_align(plan, align_override, &align, err);
  if (!rc) rc = check_placement(g, plan, &p, align, &f, out, err);
  if (!rc && out) {
    out->events = true;
    out->align = align;
    out->bandwidth = bw;
    out->budget = budget;
    out->ev = f;
  }
  mp_events_destroy(&p);
  return rc ? -1 : 0;
}
