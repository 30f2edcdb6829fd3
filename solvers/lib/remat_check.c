/* remat_check.c - see remat_check.h.  Written from DESIGN 6.2/6.3, not from
 * the judge's code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_check.h"
#include "solver.h"
#include "storage.h"

void mp_remat_inplace(const mp_graph *g, bool *buf, bool *node) {
  for (int v = 0; v < g->n; v++) {
    const mp_node *nd = &g->nodes[v];
    int b = nd->inplace ? mp_view_storage(g, v) : MP_NO_BUFFER;
    if (b >= 0) buf[b] = true;
  }
  for (int v = 0; v < g->n; v++) {
    int b = mp_view_storage(g, v); /* a view of it, even with `outputs: []` */
    if (b >= 0 && buf[b]) node[v] = true;
    for (int k = 0; k < g->nodes[v].n_out; k++) {
      b = g->root_of[v][k];
      if (b >= 0 && buf[b]) node[v] = true; /* its owner */
    }
  }
}

void mp_remat_once(const mp_graph *g, bool *node) {
  bool *buf = mp_xcalloc((size_t)g->n_buf + 1, sizeof(bool));
  mp_remat_inplace(g, buf, node);
  free(buf);
  mp_storages st; /* a parameter written in place: its alias set runs once */
  mp_storages_build(g, &st);
  for (int v = 0; v < g->n; v++)
    if (g->nodes[v].inplace || mp_in_written_param(&st, v)) node[v] = true;
  mp_storages_free(&st);
}

typedef struct replay {
  const mp_graph *g;
  bool *res, *host, *inplace_buf, *once;
  int *runs;
  int next_first; /* position in the order of the next first run */
  int64_t live, peak;
  mp_error *err;
} replay;

static int bad(replay *r, int i, const char *what, int id) {
  return mp_errorf(r->err, "own check: event %d (%s %d) breaks a rule", i, what, id);
}

static int run(replay *r, int i, int v, const int *order) {
  const mp_graph *g = r->g;
  if (v < 0 || v >= g->n || g->nodes[v].is_input) return bad(r, i, "run", v);
  if (r->runs[v] == 0) {
    for (int k = 0; k < g->n_pred[v]; k++)
      if (!g->nodes[g->pred[v][k]].is_input && r->runs[g->pred[v][k]] == 0) return bad(r, i, "run", v);
    if (order) {
      while (r->next_first < g->n && g->nodes[order[r->next_first]].is_input) r->next_first++;
      if (r->next_first >= g->n || order[r->next_first] != v) return bad(r, i, "run", v);
      r->next_first++;
    }
  } else if (r->once[v]) {
    return bad(r, i, "run", v);
  }
  for (int k = 0; k < g->n_reads[v]; k++)
    if (!r->res[g->reads[v][k]]) return bad(r, i, "run", v);
  if (!g->nodes[v].has_alias)
    for (int k = 0; k < g->nodes[v].n_out; k++) {
      int b = g->root_of[v][k];
      if (b < 0) continue;
      if (r->res[b]) return bad(r, i, "run", v);
      r->res[b] = true;
      r->live += g->bufs[b].size;
    }
  int64_t ws = g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0;
  if (r->live + ws > r->peak) r->peak = r->live + ws;
  r->runs[v]++;
  return 0;
}

static int buffer_event(replay *r, int i, mp_event e, bool copies) {
  const mp_graph *g = r->g;
  int b = e.id;
  const char *what = mp_event_kind_name(e.kind);
  if (b < 0 || b >= g->n_buf || g->bufs[b].kind != MP_BUF_TENSOR) return bad(r, i, what, b);
  if (e.kind != MP_EV_FREE && !copies) return bad(r, i, what, b);
  if (e.kind == MP_EV_FREE) {
    if (!r->res[b]) return bad(r, i, what, b);
    if (r->inplace_buf[b])
      for (int k = 0; k < g->bufs[b].n_readers; k++)
        if (r->runs[g->bufs[b].readers[k]] == 0) return bad(r, i, what, b);
    r->res[b] = false;
    r->live -= g->bufs[b].size;
  } else if (e.kind == MP_EV_OUT) {
    if (!r->res[b] || r->inplace_buf[b]) return bad(r, i, what, b);
    r->host[b] = true;
  } else {
    if (r->res[b] || !r->host[b]) return bad(r, i, what, b);
    r->res[b] = true;
    r->live += g->bufs[b].size;
    if (r->live > r->peak) r->peak = r->live;
  }
  return 0;
}

static int at_end(replay *r, int n_ev) {
  const mp_graph *g = r->g;
  for (int v = 0; v < g->n; v++)
    if (!g->nodes[v].is_input && r->runs[v] == 0) return bad(r, n_ev, "end: never runs", v);
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].graph_output && !r->res[b]) return bad(r, n_ev, "end: output absent", b);
  return 0;
}

int mp_remat_check(const mp_graph *g, const int *order, const mp_events *p, bool copies,
                   int64_t *peak, mp_error *err) {
  size_t nb = (size_t)g->n_buf + 1, n = (size_t)g->n + 1;
  replay r = {.g = g, .err = err};
  r.res = mp_xcalloc(nb, sizeof(bool));
  r.host = mp_xcalloc(nb, sizeof(bool));
  r.inplace_buf = mp_xcalloc(nb, sizeof(bool));
  r.once = mp_xcalloc(n, sizeof(bool));
  r.runs = mp_xcalloc(n, sizeof(int));
  bool *inplace_node = mp_xcalloc(n, sizeof(bool));
  mp_remat_inplace(g, r.inplace_buf, inplace_node);
  free(inplace_node);
  mp_remat_once(g, r.once);
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start) {
      r.res[b] = true;
      r.live += g->bufs[b].size;
    }
  r.peak = r.live;
  int rc = 0;
  for (int i = 0; i < p->n && rc == 0; i++)
    rc = p->ev[i].kind == MP_EV_RUN ? run(&r, i, p->ev[i].id, order)
                                    : buffer_event(&r, i, p->ev[i], copies);
  if (rc == 0) rc = at_end(&r, p->n);
  if (rc == 0 && peak) *peak = r.peak;
  free(r.res);
  free(r.host);
  free(r.inplace_buf);
  free(r.once);
  free(r.runs);
  return rc;
}

bool mp_remat_settled(mp_ctx *c) {
  const mp_graph *g = c->g;
  mp_events_clear(c->events);
  c->duration_bound = mp_events_duration_floor(g);
  int64_t floor = mp_events_floor(g);
  if (floor > c->budget) {
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg, "budget %lld is below %lld, the floor no plan goes under",
             (long long)c->budget, (long long)floor);
    return true;
  }
  mp_events_from_order(g, c->start_order, c->events);
  int64_t peak;
  if (mp_remat_check(g, c->start_order, c->events, false, &peak, NULL) == 0 && peak <= c->budget) {
    c->status = MP_OPTIMAL; /* every run once: the duration floor */
    return true;
  }
  mp_events_clear(c->events);
  return false;
}
