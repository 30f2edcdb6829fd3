/* oracle_remat.c - see oracle_remat.h.  Every question is answered by a
 * scan: what is resident is a flag per buffer summed again at each sample,
 * when an event may start is found by looking back over the plan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle_remat.h"

static void *zalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz ? sz : 1);
  if (!p) abort();
  return p;
}

double ox_cost(const mp_graph *g, int v) {
  const mp_node *nd = &g->nodes[v];
  if (nd->has_cost) return nd->cost;
  bool input = nd->op && !strcmp(nd->op, "input"), output = nd->op && !strcmp(nd->op, "output");
  return input || output || nd->has_alias ? 0.0 : 1.0;
}

typedef struct ox {
  const mp_graph *g;
  const or_model *m;
  const ox_event *ev;
  int n;
  int *buf;        /* per event: oracle buffer, or -1 (a run) */
  bool *inplace;   /* per buffer: some other node writes it in place */
  bool *inset;     /* per node: in the alias set of such a storage */
  int *rank;       /* per buffer: position in DESIGN 1.5 naming order */
  ox_result *r;
} ox;

static bool is_input(const mp_graph *g, int v) {
  return g->nodes[v].op && !strcmp(g->nodes[v].op, "input");
}

/* Buffers in the order memplan numbers them: owners in the file order,
 * then the output index; workspaces after every tensor. */
static void rank_buffers(ox *o) {
  const or_model *m = o->m;
  int *pos = zalloc((size_t)o->g->n, sizeof(int));
  for (int i = 0; i < o->g->n; i++) pos[o->g->given[i]] = i;
  for (int i = 0; i < m->nb; i++)
    o->rank[i] = (m->b[i].ws ? 1 << 28 : 0) + pos[m->b[i].owner] * 1024 + (m->b[i].ws ? 0 : m->b[i].out);
  free(pos);
}

static void prepare(ox *o) {
  const or_model *m = o->m;
  const mp_graph *g = o->g;
  for (int i = 0; i < m->nb; i++)
    for (int w = 0; w < g->n; w++)
      if (g->nodes[w].inplace && m->b[i].alias_set[w] && w != m->b[i].owner) o->inplace[i] = true;
  for (int v = 0; v < g->n; v++)
    for (int i = 0; i < m->nb; i++)
      if (o->inplace[i] && m->b[i].alias_set[v]) o->inset[v] = true;
  rank_buffers(o);
  for (int k = 0; k < o->n; k++) {
    const ox_event *e = &o->ev[k];
    o->buf[k] = e->kind == OX_RUN ? -1 : or_find(m, e->node, e->out, e->out < 0);
  }
}

static void violation(ox *o, int k, const char *rule, int node, int b) {
  ox_result *r = o->r;
  r->valid = false;
  r->bad_event = k;
  r->rule = rule;
  r->bad_node = node;
  r->bad_owner = b >= 0 ? o->m->b[b].owner : -1;
  r->bad_out = b >= 0 ? o->m->b[b].out : -1;
}

/* Of the buffers with flag[i], the first in naming order, or -1. */
static int first_flagged(const ox *o, const bool *flag) {
  int best = -1;
  for (int i = 0; i < o->m->nb; i++)
    if (flag[i] && (best < 0 || o->rank[i] < o->rank[best])) best = i;
  return best;
}

/* Replay the rules of DESIGN 6.2 in the order events.h states. */
static bool validate(ox *o, double bw) {
  const or_model *m = o->m;
  const mp_graph *g = o->g;
  int nb = m->nb, n = g->n;
  bool *res = zalloc((size_t)nb, sizeof(bool)), *host = zalloc((size_t)nb, sizeof(bool));
  bool *flag = zalloc((size_t)nb, sizeof(bool));
  int *runs = zalloc((size_t)n, sizeof(int));
  for (int i = 0; i < nb; i++) res[i] = m->b[i].input && !m->b[i].ws;
  bool ok = true;
  for (int k = 0; k < o->n && ok; k++) {
    const ox_event *e = &o->ev[k];
    int b = o->buf[k];
    if (e->kind == OX_RUN) {
      int v = e->node;
      if (is_input(g, v)) { violation(o, k, "input nodes never run", v, -1); ok = false; break; }
      if (runs[v] == 0) {
        for (int u = 0; u < n && ok; u++)
          if (m->prec[u * n + v] && !is_input(g, u) && runs[u] == 0) {
            violation(o, k, "first runs keep the order", v, -1);
            ok = false;
          }
        if (!ok) break;
      } else if (o->inset[v]) {
        violation(o, k, "in-place storage is not recomputed", v, -1);
        ok = false;
        break;
      }
      for (int i = 0; i < nb; i++) flag[i] = m->b[i].reader[v] && !res[i];
      int miss = first_flagged(o, flag);
      if (miss >= 0) { violation(o, k, "reads are resident", v, miss); ok = false; break; }
      for (int i = 0; i < nb; i++) flag[i] = !m->b[i].ws && m->b[i].owner == v && res[i];
      int dup = first_flagged(o, flag);
      if (dup >= 0) { violation(o, k, "never made resident while resident", v, dup); ok = false; break; }
      runs[v]++;
      for (int i = 0; i < nb; i++)
        if (!m->b[i].ws && m->b[i].owner == v) res[i] = true;
      continue;
    }
    if (b < 0 || m->b[b].ws) { violation(o, k, "events name nodes and tensor buffers", -1, -1); ok = false; break; }
    if (e->kind != OX_FREE && !(bw > 0)) { violation(o, k, "copies need a host link", -1, b); ok = false; break; }
    if (e->kind == OX_FREE) {
      if (!res[b]) { violation(o, k, "free and out need the buffer resident", -1, b); ok = false; break; }
      for (int w = 0; w < n && ok && o->inplace[b]; w++)
        if (m->b[b].reader[w] && runs[w] == 0) {
          violation(o, k, "in-place storage is freed after its last reader", w, b);
          ok = false;
        }
      res[b] = false;
    } else if (e->kind == OX_OUT) {
      if (o->inplace[b]) { violation(o, k, "in-place storage is not offloaded", -1, b); ok = false; break; }
      if (!res[b]) { violation(o, k, "free and out need the buffer resident", -1, b); ok = false; break; }
      host[b] = true;
    } else {
      if (!host[b]) { violation(o, k, "in needs a host copy", -1, b); ok = false; break; }
      if (res[b]) { violation(o, k, "never made resident while resident", -1, b); ok = false; break; }
      res[b] = true;
    }
  }
  for (int v = 0; v < n && ok; v++)
    if (!is_input(g, v) && runs[v] == 0) {
      violation(o, o->n, "every node runs", v, -1);
      ok = false;
    }
  if (ok) {
    for (int i = 0; i < nb; i++) flag[i] = m->b[i].graph_output && !res[i];
    int miss = first_flagged(o, flag);
    if (miss >= 0) { violation(o, o->n, "outputs end on the device", -1, miss); ok = false; }
  }
  free(res);
  free(host);
  free(flag);
  free(runs);
  return ok;
}

/* Memory: the sum of the resident buffers, recomputed at every sample. */
static void memory(ox *o) {
  const or_model *m = o->m;
  ox_result *r = o->r;
  bool *res = zalloc((size_t)m->nb, sizeof(bool));
  for (int i = 0; i < m->nb; i++) res[i] = m->b[i].input && !m->b[i].ws;
  r->samples = zalloc((size_t)o->n + 1, sizeof(int64_t));
  /* the start is a sample only when the graph has an input node (section 1
   * then has an input step; without one, DESIGN 6.2's keep-all plan has
   * exactly section 1's profile only if the start is left out) */
  bool start = false;
  for (int v = 0; v < o->g->n; v++) start |= is_input(o->g, v);
  for (int k = start ? -1 : 0; k < o->n; k++) {
    int64_t extra = 0;
    if (k >= 0) {
      const ox_event *e = &o->ev[k];
      if (e->kind == OX_FREE) res[o->buf[k]] = false;
      if (e->kind == OX_FREE || e->kind == OX_OUT) continue;
      if (e->kind == OX_IN) res[o->buf[k]] = true;
      for (int i = 0; e->kind == OX_RUN && i < m->nb; i++)
        if (m->b[i].owner == e->node) {
          if (m->b[i].ws) extra += m->b[i].size;
          else res[i] = true;
        }
    }
    int64_t s = extra;
    for (int i = 0; i < m->nb; i++)
      if (res[i]) s += m->b[i].size;
    r->samples[r->n_samples++] = s;
    if (s > r->peak) r->peak = s;
  }
  free(res);
}

/* Does event j read or copy out buffer b (a use a free waits for)? */
static bool uses(const ox *o, int j, int b) {
  const ox_event *e = &o->ev[j];
  if (e->kind == OX_RUN) return o->m->b[b].reader[e->node];
  return e->kind == OX_OUT && o->buf[j] == b;
}

/* Did event j make buffer b resident (the run of its owner, or an in)? */
static bool makes(const ox *o, int j, int b) {
  const ox_event *e = &o->ev[j];
  if (e->kind == OX_RUN) return !o->m->b[b].ws && o->m->b[b].owner == e->node;
  return e->kind == OX_IN && o->buf[j] == b;
}

static double latest_end(const ox *o, int before, int kind, int b, bool (*pred)(const ox *, int, int)) {
  for (int j = before - 1; j >= 0; j--)
    if ((kind < 0 || o->ev[j].kind == kind) && (!pred || pred(o, j, b))) return o->r->end[j];
  return 0;
}

static bool is_out_of(const ox *o, int j, int b) { return o->ev[j].kind == OX_OUT && o->buf[j] == b; }

static void timing(ox *o, double bw) {
  ox_result *r = o->r;
  const or_model *m = o->m;
  r->issue = zalloc((size_t)o->n, sizeof(double));
  r->start = zalloc((size_t)o->n, sizeof(double));
  r->end = zalloc((size_t)o->n, sizeof(double));
  for (int k = 0; k < o->n; k++) {
    const ox_event *e = &o->ev[k];
    double issue = k ? r->issue[k - 1] : 0;
    for (int f = 0; f < k; f++) /* every earlier free holds the issue back */
      if (o->ev[f].kind == OX_FREE)
        for (int j = 0; j < f; j++)
          if (uses(o, j, o->buf[f]) && r->end[j] > issue) issue = r->end[j];
    double start = issue;
    if (e->kind == OX_RUN) {
      start = fmax(start, latest_end(o, k, OX_RUN, -1, NULL));
      for (int i = 0; i < m->nb; i++)
        if (m->b[i].reader[e->node]) start = fmax(start, latest_end(o, k, -1, i, makes));
    } else if (e->kind == OX_OUT) {
      start = fmax(fmax(start, latest_end(o, k, OX_OUT, -1, NULL)), latest_end(o, k, -1, o->buf[k], makes));
    } else if (e->kind == OX_IN) {
      start = fmax(fmax(start, latest_end(o, k, OX_IN, -1, NULL)), latest_end(o, k, -1, o->buf[k], is_out_of));
    }
    double len = e->kind == OX_RUN ? ox_cost(o->g, e->node)
                 : e->kind == OX_FREE ? 0 : (double)m->b[o->buf[k]].size / bw;
    r->issue[k] = issue;
    r->start[k] = start;
    r->end[k] = start + len;
    if (r->end[k] > r->duration) r->duration = r->end[k];
  }
}

static void figures(ox *o) {
  ox_result *r = o->r;
  const mp_graph *g = o->g;
  for (int v = 0; v < g->n; v++) r->base_time += ox_cost(g, v);
  /* DESIGN 1.1: a graph with no nodes has every figure 0 */
  r->overhead = r->base_time > 0 ? r->duration / r->base_time - 1 : g->n == 0 ? 0 : NAN;
  double runs = 0;
  for (int k = 0; k < o->n; k++) {
    const ox_event *e = &o->ev[k];
    if (e->kind == OX_RUN) {
      runs += ox_cost(g, e->node);
      bool before = false;
      for (int j = 0; j < k; j++) before |= o->ev[j].kind == OX_RUN && o->ev[j].node == e->node;
      if (before) {
        r->recomputed++;
        r->recompute_time += ox_cost(g, e->node);
      }
    } else if (e->kind != OX_FREE) {
      r->transferred += o->m->b[o->buf[k]].size;
    }
  }
  r->stall_time = r->duration - runs;
}

/* Residencies on sample times: t counts the samples so far. */
static void residencies(ox *o) {
  const or_model *m = o->m;
  ox_result *r = o->r;
  r->res = zalloc((size_t)(m->nb + 2 * o->n + 1), sizeof(ox_res));
  int *open = zalloc((size_t)m->nb, sizeof(int));
  for (int i = 0; i < m->nb; i++) open[i] = -1;
#define OPEN(i, t) (r->res[r->n_res] = (ox_res){m->b[i].owner, m->b[i].ws ? -1 : m->b[i].out, \
                                                m->b[i].size, (t), -1}, r->n_res++)
  for (int i = 0; i < m->nb; i++)
    if (m->b[i].input && !m->b[i].ws) open[i] = OPEN(i, 0);
  int64_t t = 0;
  for (int k = 0; k < o->n; k++) {
    const ox_event *e = &o->ev[k];
    if (e->kind == OX_RUN) {
      t++;
      for (int i = 0; i < m->nb; i++) {
        if (m->b[i].owner != e->node) continue;
        int x = OPEN(i, t);
        if (m->b[i].ws) r->res[x].hi = t + 1;
        else open[i] = x;
      }
    } else if (e->kind == OX_IN) {
      t++;
      open[o->buf[k]] = OPEN(o->buf[k], t);
    } else if (e->kind == OX_FREE) {
      r->res[open[o->buf[k]]].hi = t + 1;
      open[o->buf[k]] = -1;
    }
  }
#undef OPEN
  for (int i = 0; i < m->nb; i++)
    if (open[i] >= 0) r->res[open[i]].hi = t + 1;
  free(open);
}

void ox_check(const mp_graph *g, const or_model *m, const ox_event *ev, int n, double bw,
              ox_result *r) {
  memset(r, 0, sizeof *r);
  r->valid = true;
  r->bad_event = -1;
  r->bad_node = r->bad_owner = r->bad_out = -1;
  r->rule = "valid";
  ox o = {g, m, ev, n, NULL, NULL, NULL, NULL, r};
  o.buf = zalloc((size_t)n, sizeof(int));
  o.inplace = zalloc((size_t)m->nb, sizeof(bool));
  o.inset = zalloc((size_t)g->n, sizeof(bool));
  o.rank = zalloc((size_t)m->nb, sizeof(int));
  prepare(&o);
  if (validate(&o, bw)) {
    memory(&o);
    timing(&o, bw);
    figures(&o);
    residencies(&o);
  }
  free(o.buf);
  free(o.inplace);
  free(o.inset);
  free(o.rank);
}

void ox_result_destroy(ox_result *r) {
  free(r->samples);
  free(r->issue);
  free(r->start);
  free(r->end);
  free(r->res);
  memset(r, 0, sizeof *r);
}
