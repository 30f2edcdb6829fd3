/* events_verify.c - the verifier of DESIGN 6.2: replays an event plan on
 * the residency state (resident, host copy, runs so far) and names the
 * first violation.  Model code only. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "storage.h"
#include "util.h"

static const char *const rule_names[MP_EVR_N] = {
    [MP_EVR_OK] = "valid",
    [MP_EVR_BAD_ID] = "events name nodes and tensor buffers",
    [MP_EVR_INPUT_RUNS] = "input nodes never run",
    [MP_EVR_NO_LINK] = "copies need a host link",
    [MP_EVR_FIRST_ORDER] = "first runs keep the order",
    [MP_EVR_INPLACE_RERUN] = "in-place storage is not recomputed",
    [MP_EVR_INPLACE_OUT] = "in-place storage is not offloaded",
    [MP_EVR_READ_ABSENT] = "reads are resident",
    [MP_EVR_ALREADY] = "never made resident while resident",
    [MP_EVR_NOT_RESIDENT] = "free and out need the buffer resident",
    [MP_EVR_INPLACE_FREE] = "in-place storage is freed after its last reader",
    [MP_EVR_NO_HOST_COPY] = "in needs a host copy",
    [MP_EVR_NOT_RUN] = "every node runs",
    [MP_EVR_OUTPUT_ABSENT] = "outputs end on the device",
};

const char *mp_ev_rule_name(mp_ev_rule r) {
  return (unsigned)r < MP_EVR_N ? rule_names[r] : "?";
}

/* The storage node v aliases (its alias root), or -1. */
static int alias_root(const mp_graph *g, int v) {
  int b = mp_view_storage(g, v);
  return b >= 0 ? b : -1;
}

typedef struct vstate {
  const mp_graph *g;
  const mp_events *p;
  bool *resident, *host;
  bool *inplace_buf;  /* a storage some node writes in place */
  bool *inplace_node; /* a node of such a storage's alias set */
  int *runs;
  mp_ev_violation *v;
  mp_error *err;
} vstate;

/* Record violation `rule` at event i; returns -1. */
static int fail(vstate *s, int i, mp_ev_rule rule, int node, int buf, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int fail(vstate *s, int i, mp_ev_rule rule, int node, int buf, const char *fmt, ...) {
  if (s->v) *s->v = (mp_ev_violation){i, rule, node, buf};
  if (!s->err) return -1;
  char what[160], head[200];
  if (i < s->p->n) {
    mp_event_label(s->g, s->p->ev[i], what, sizeof what);
    snprintf(head, sizeof head, "event %d (%s)", i, what);
  } else {
    snprintf(head, sizeof head, "end of plan (after %d events)", s->p->n);
  }
  char body[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  mp_errorf(s->err, "%s: %s [rule: %s]", head, body, mp_ev_rule_name(rule));
  return -1;
}

/* A parameter (an `alias: -1` node with its views, storage.h) written in
 * place is a storage written in place too: DESIGN 6.2 runs the nodes of its
 * alias set exactly once, as 1.2 orders its readers around the writes. */
static void mark_inplace_params(vstate *s) {
  mp_storages st;
  mp_storages_build(s->g, &st);
  for (int v = 0; v < s->g->n; v++)
    if (mp_in_written_param(&st, v)) s->inplace_node[v] = true;
  mp_storages_free(&st);
}

static void mark_inplace(vstate *s) {
  const mp_graph *g = s->g;
  mark_inplace_params(s);
  for (int w = 0; w < g->n; w++) {
    int b = alias_root(g, w);
    if (g->nodes[w].inplace && b >= 0) s->inplace_buf[b] = true;
  }
  for (int v = 0; v < g->n; v++) {
    int b = alias_root(g, v);
    if (b >= 0 && s->inplace_buf[b]) s->inplace_node[v] = true;
    if (!g->nodes[v].has_alias)
      for (int k = 0; k < g->nodes[v].n_out; k++)
        if (g->root_of[v][k] >= 0 && s->inplace_buf[g->root_of[v][k]]) s->inplace_node[v] = true;
  }
}

/* Is the edge u -> v a data edge (else an in-place edge)? */
static bool data_edge(const mp_graph *g, int u, int v) {
  for (int j = 0; j < g->nodes[v].n_in; j++)
    if (g->nodes[v].in[j].node == u) return true;
  return false;
}

static int check_run(vstate *s, int i, int v) {
  const mp_graph *g = s->g;
  char key[48];
  if (v < 0 || v >= g->n) return fail(s, i, MP_EVR_BAD_ID, -1, -1, "%d is not a node id", v);
  if (g->nodes[v].is_input)
    return fail(s, i, MP_EVR_INPUT_RUNS, v, -1,
                "node %d is an input: its outputs are resident at the start", v);
  if (s->runs[v] == 0) {
    for (int k = 0; k < g->n_pred[v]; k++) {
      int u = g->pred[v][k];
      if (s->runs[u] == 0 && !g->nodes[u].is_input)
        return fail(s, i, MP_EVR_FIRST_ORDER, v, -1,
                    "first run of node %d before the first run of node %d, which it must "
                    "follow (%s edge)",
                    v, u, data_edge(g, u, v) ? "data" : "in-place");
    }
  } else if (s->inplace_node[v]) {
    return fail(s, i, MP_EVR_INPLACE_RERUN, v, -1,
                "node %d runs again, but it belongs to a storage written in place, whose "
                "nodes run exactly once", v);
  }
  for (int k = 0; k < g->n_reads[v]; k++) {
    int b = g->reads[v][k];
    if (s->resident[b]) continue;
    mp_buffer_key(g, b, key, sizeof key);
    return fail(s, i, MP_EVR_READ_ABSENT, v, b, "node %d reads buffer %s, which is not resident",
                v, key);
  }
  if (!g->nodes[v].has_alias)
    for (int k = 0; k < g->nodes[v].n_out; k++) {
      int b = g->root_of[v][k];
      if (b < 0 || !s->resident[b]) continue;
      mp_buffer_key(g, b, key, sizeof key);
      return fail(s, i, MP_EVR_ALREADY, v, b,
                  "its output %s is still resident (free it before running node %d again)",
                  key, v);
    }
  s->runs[v]++;
  if (!g->nodes[v].has_alias)
    for (int k = 0; k < g->nodes[v].n_out; k++)
      if (g->root_of[v][k] >= 0) s->resident[g->root_of[v][k]] = true;
  return 0;
}

static int check_buffer_event(vstate *s, int i, mp_event e, double bandwidth) {
  const mp_graph *g = s->g;
  int b = e.id;
  char key[48];
  if ((unsigned)e.kind > MP_EV_IN)
    return fail(s, i, MP_EVR_BAD_ID, -1, -1, "unknown event kind %d", (int)e.kind);
  if (b < 0 || b >= g->n_buf)
    return fail(s, i, MP_EVR_BAD_ID, -1, -1, "%d is not a buffer id", b);
  mp_buffer_key(g, b, key, sizeof key);
  if (g->bufs[b].kind != MP_BUF_TENSOR)
    return fail(s, i, MP_EVR_BAD_ID, g->bufs[b].owner, b,
                "%s is a workspace: it lives during its run only", key);
  if (e.kind != MP_EV_FREE && !(bandwidth > 0))
    return fail(s, i, MP_EVR_NO_LINK, -1, b, "no host link (bandwidth 0): nothing is copied");
  switch (e.kind) {
  case MP_EV_FREE:
    if (!s->resident[b])
      return fail(s, i, MP_EVR_NOT_RESIDENT, -1, b, "buffer %s is not resident", key);
    if (s->inplace_buf[b])
      for (int k = 0; k < g->bufs[b].n_readers; k++) {
        int w = g->bufs[b].readers[k];
        if (s->runs[w] == 0)
          return fail(s, i, MP_EVR_INPLACE_FREE, w, b,
                      "storage %s is written in place and node %d, which reads it, has not run",
                      key, w);
      }
    s->resident[b] = false;
    return 0;
  case MP_EV_OUT:
    if (s->inplace_buf[b])
      return fail(s, i, MP_EVR_INPLACE_OUT, -1, b, "storage %s is written in place", key);
    if (!s->resident[b])
      return fail(s, i, MP_EVR_NOT_RESIDENT, -1, b, "buffer %s is not resident", key);
    s->host[b] = true;
    return 0;
  default: /* MP_EV_IN */
    if (!s->host[b])
      return fail(s, i, MP_EVR_NO_HOST_COPY, -1, b, "buffer %s has no host copy (no earlier out)",
                  key);
    if (s->resident[b])
      return fail(s, i, MP_EVR_ALREADY, -1, b, "buffer %s is already resident", key);
    s->resident[b] = true;
    return 0;
  }
}

static int check_end(vstate *s) {
  const mp_graph *g = s->g;
  int end = s->p->n;
  char key[48];
  for (int v = 0; v < g->n; v++)
    if (!g->nodes[v].is_input && s->runs[v] == 0)
      return fail(s, end, MP_EVR_NOT_RUN, v, -1, "node %d%s%s%s never runs", v,
                  g->nodes[v].name && g->nodes[v].name[0] ? " (" : "",
                  g->nodes[v].name ? g->nodes[v].name : "",
                  g->nodes[v].name && g->nodes[v].name[0] ? ")" : "");
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].graph_output && !s->resident[b]) {
      mp_buffer_key(g, b, key, sizeof key);
      return fail(s, end, MP_EVR_OUTPUT_ABSENT, -1, b, "graph output %s is not resident", key);
    }
  return 0;
}

int mp_events_verify(const mp_graph *g, const mp_events *p, double bandwidth, mp_ev_violation *v,
                     mp_error *err) {
  size_t nb = (size_t)(g->n_buf ? g->n_buf : 1), nn = (size_t)(g->n ? g->n : 1);
  vstate s = {.g = g, .p = p, .v = v, .err = err};
  s.resident = mp_xcalloc(nb, sizeof(bool));
  s.host = mp_xcalloc(nb, sizeof(bool));
  s.inplace_buf = mp_xcalloc(nb, sizeof(bool));
  s.inplace_node = mp_xcalloc(nn, sizeof(bool));
  s.runs = mp_xcalloc(nn, sizeof(int));
  mark_inplace(&s);
  for (int b = 0; b < g->n_buf; b++)
    s.resident[b] = g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start;
  int rc = 0;
  for (int i = 0; i < p->n && rc == 0; i++)
    rc = p->ev[i].kind == MP_EV_RUN ? check_run(&s, i, p->ev[i].id)
                                    : check_buffer_event(&s, i, p->ev[i], bandwidth);
  if (rc == 0) rc = check_end(&s);
  if (rc == 0 && v) *v = (mp_ev_violation){-1, MP_EVR_OK, -1, -1};
  free(s.resident);
  free(s.host);
  free(s.inplace_buf);
  free(s.inplace_node);
  free(s.runs);
  return rc;
}
