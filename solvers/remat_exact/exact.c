/* exact.c - remat-exact: the optimal recompute-plus-offload plan on small
 * graphs, by best-first search (see exact.h for why it is exact).  The
 * scope is every valid plan whose first runs follow the order handed in,
 * with copies when the stage has a host link (bandwidth > 0).
 *
 * Answers: `optimal` with the plan of the first goal taken from the queue;
 * `infeasible` when the queue runs dry (an exhausted search; or below the
 * floor); no plan and no claim when a size cap (max_nodes, tensor buffers
 * beyond 64, max_labels, max_mb) or the time limit stops it first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact.h"
#include "lib/remat_check.h"

#define RX_OPTIONS(X)                                                                   \
  X(max_nodes, INT, 40, 1, 64, "refuse graphs with more nodes than this (size cap)")    \
  X(max_labels, INT, 4e6, 1000, 1e9, "stop the search (no claim) beyond this many labels") \
  X(max_mb, REAL, 2048, 16, 1e6, "stop the search (no claim) beyond this much memory (MiB)")
enum { RX_OPTIONS(MP_OPT_ENUM) RX_N_OPTS };
static const mp_option rx_options[] = {RX_OPTIONS(MP_OPT_ENTRY)};

/* ---- the graph as masks ---- */

static void node_masks(const mp_graph *g, rx_graph *G, const bool *fixed_node) {
  for (int v = 0; v < g->n; v++) {
    const mp_node *nd = &g->nodes[v];
    if (!nd->is_input) G->all_ran |= 1ull << v;
    for (int i = 0; i < g->n_reads[v]; i++) G->readm[v] |= 1ull << g->reads[v][i];
    G->ws[v] = g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0;
    G->cost[v] = nd->cost;
    for (int k = 0; k < nd->n_out && !nd->has_alias; k++) {
      int b = g->root_of[v][k];
      if (b < 0) continue;
      G->ownm[v] |= 1ull << b;
      G->adds[v] += g->bufs[b].size;
      if (g->bufs[b].n_readers == 0 && !g->bufs[b].graph_output) G->deadm[v] |= 1ull << b;
    }
    G->rerun[v] = !nd->is_input && !fixed_node[v] && G->ownm[v] != 0;
  }
}

/* Ancestors by a pass in a topological order (the given one). */
static void ancestors(const mp_graph *g, rx_graph *G) {
  for (int i = 0; i < g->n; i++) {
    int v = g->given[i];
    for (int k = 0; k < g->n_pred[v]; k++) {
      int u = g->pred[v][k];
      G->anc[v] |= G->anc[u] | 1ull << u;
    }
  }
}

/* Returns 0, or -1 (beyond 64 nodes or tensor buffers). */
static int build(const mp_graph *g, const int *order, double bw, rx_graph *G) {
  memset(G, 0, sizeof *G);
  for (int b = 0; b < g->n_buf; b++) G->nb += g->bufs[b].kind == MP_BUF_TENSOR;
  if (g->n > RX_MAX || G->nb > RX_MAX) return -1;
  G->n = g->n;
  G->bw = bw;
  size_t n = (size_t)(g->n ? g->n : 1);
  G->readm = mp_xcalloc(n, sizeof(uint64_t));
  G->ownm = mp_xcalloc(n, sizeof(uint64_t));
  G->deadm = mp_xcalloc(n, sizeof(uint64_t));
  G->anc = mp_xcalloc(n, sizeof(uint64_t));
  G->adds = mp_xcalloc(n, sizeof(int64_t));
  G->ws = mp_xcalloc(n, sizeof(int64_t));
  G->cost = mp_xcalloc(n, sizeof(double));
  G->rerun = mp_xcalloc(n, sizeof(bool));
  G->nonin = mp_xcalloc(n + 1, sizeof(int));
  bool *fixed_buf = mp_xcalloc((size_t)g->n_buf + 1, sizeof(bool)), *fixed_node = mp_xcalloc(n, sizeof(bool));
  mp_remat_inplace(g, fixed_buf, fixed_node);
  node_masks(g, G, fixed_node);
  ancestors(g, G);
  for (int i = 0; i < g->n; i++)
    if (!g->nodes[order[i]].is_input) G->nonin[G->n_nonin++] = order[i];
  for (int b = 0; b < G->nb; b++) {
    const mp_buffer *bb = &g->bufs[b];
    for (int i = 0; i < bb->n_readers; i++) G->readersm[b] |= 1ull << bb->readers[i];
    G->owner[b] = bb->born_at_start ? -1 : bb->owner;
    G->size[b] = bb->size;
    G->inplace[b] = fixed_buf[b];
    if (bb->graph_output) G->outputs |= 1ull << b;
    if (bb->born_at_start) G->inputs |= 1ull << b;
  }
  free(fixed_buf);
  free(fixed_node);
  return 0;
}

static void release(rx_graph *G) {
  free(G->readm);
  free(G->ownm);
  free(G->deadm);
  free(G->anc);
  free(G->adds);
  free(G->ws);
  free(G->cost);
  free(G->rerun);
  free(G->nonin);
}

/* ---- the plan of a goal label ---- */

static void push_frees(mp_events *p, uint64_t gone) {
  for (; gone; gone &= gone - 1) mp_events_push(p, MP_EV_FREE, __builtin_ctzll(gone));
}

static void rebuild(const rx_search *s, int k, mp_events *p) {
  int len = 0;
  for (int x = k; x >= 0; x = s->l[x].parent) len++;
  int *path = mp_xmalloc(sizeof(int) * (size_t)len);
  for (int x = k, i = len; x >= 0; x = s->l[x].parent) path[--i] = x;
  mp_events_clear(p);
  push_frees(p, s->G->inputs & ~s->l[path[0]].res); /* dropped at the start */
  for (int i = 1; i < len; i++) {
    const rx_label *x = &s->l[path[i]], *prev = &s->l[path[i - 1]];
    mp_events_push(p, (mp_event_kind)x->kind, x->id);
    if (x->kind == MP_EV_RUN) push_frees(p, (prev->res | s->G->ownm[x->id]) & ~x->res);
  }
  free(path);
}

/* ---- the search ---- */

enum { RX_FOUND, RX_NONE, RX_FULL, RX_TIME };

static int search(rx_search *s, const mp_ctx *c, int *goal) {
  const rx_graph *G = s->G;
  rx_label start = {.res = G->inputs, .parent = -1, .kind = -1, .id = -1};
  double clk[RX_FIXED + 3 * RX_MAX] = {0};
  if (G->bw <= 0) start.res &= rx_needed(G, 0, start.res); /* nothing needs it: dropped at once */
  start.key = rx_key(G, 0, start.res, 0, clk);
  if (!isfinite(start.key)) return RX_NONE;
  rx_offer(s, &start, clk);
  for (long it = 0;; it++) {
    int k = rx_pop(s);
    if (k < 0) return s->full ? RX_FULL : RX_NONE;
    if (rx_goal(G, &s->l[k])) {
      *goal = k;
      return RX_FOUND;
    }
    if ((it & 1023) == 0 && mp_time_up(c)) return RX_TIME;
    rx_expand(s, k);
  }
}

static int remat_exact_solve(mp_ctx *c) {
  if (!c->g) {
    snprintf(c->msg, sizeof c->msg, "remat-exact plans graphs, not fixed-lifetime problems");
    return -1;
  }
  if (mp_remat_settled(c)) return 0;
  if (c->g->n > c->opt[OPT_max_nodes]) {
    snprintf(c->msg, sizeof c->msg, "%d nodes exceed max_nodes=%.0f (an exact search)", c->g->n,
             c->opt[OPT_max_nodes]);
    c->status = MP_REFUSED;
    return -1;
  }
  rx_graph G;
  if (build(c->g, c->start_order, c->bandwidth > 0 ? c->bandwidth : 0, &G)) {
    snprintf(c->msg, sizeof c->msg, "more than %d nodes or tensor buffers (an exact search)", RX_MAX);
    c->status = MP_REFUSED;
    return -1;
  }
  rx_search s;
  rx_search_init(&s, &G, c->budget, (long)c->opt[OPT_max_labels],
                 (size_t)(c->opt[OPT_max_mb] * 1048576.0));
  int goal = -1, rc = search(&s, c, &goal), ret = 0;
  if (rc == RX_FOUND) {
    rebuild(&s, goal, c->events);
    int64_t peak;
    mp_error err;
    if (mp_remat_check(c->g, c->start_order, c->events, G.bw > 0, &peak, &err) || peak > c->budget) {
      mp_events_clear(c->events);
      snprintf(c->msg, sizeof c->msg, "the plan failed its own check: %.200s", err.msg);
      ret = -1;
    } else {
      c->status = MP_OPTIMAL;
      c->duration_bound = s.l[goal].key;
      snprintf(c->msg, sizeof c->msg, "%d labels", s.n_l);
    }
  } else if (rc == RX_NONE) {
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg, "no plan within budget %lld%s: the exact search is exhausted",
             (long long)c->budget, G.bw > 0 ? " (copies included)" : " without copies");
  } else {
    snprintf(c->msg, sizeof c->msg, "stopped by %s after %d labels: no plan, no claim",
             rc == RX_FULL ? "its memory cap (max_labels, max_mb)" : "the time limit", s.n_l);
    c->status = rc == RX_FULL ? MP_REFUSED : MP_TIMEOUT;
    ret = -1;
  }
  rx_search_destroy(&s);
  release(&G);
  return ret;
}

const mp_solver solver_remat_exact = {
    .name = "remat-exact",
    .summary = "exact recompute + offload on small graphs: best-first search over (runs, resident, "
               "host copies, clocks) with dominance; size caps",
    .decides = MP_DECIDES_EVENTS,
    .options = MP_OPTIONS(rx_options),
    .quick = "max_labels=200000",
    .solve = remat_exact_solve,
};
