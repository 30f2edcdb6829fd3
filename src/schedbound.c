/* schedbound.c - see schedbound.h. */
#include <stdlib.h>
#include <string.h>

#include "schedbound.h"
#include "util.h"

/* ---- reachability ---- */

static bool past(double deadline) { return deadline > 0 && mp_now() >= deadline; }

/* Every 256 rows the deadline is looked at: on 15k nodes the two matrices
 * (54 MB, written row by row) take 0.2 s. */
bool mp_reach_init_until(mp_reach *R, const mp_graph *g, double deadline) {
  int n = g->n;
  size_t words = (size_t)(n + 63) / 64;
  R->n = n;
  R->words = words;
  R->anc = mp_xcalloc((size_t)(n ? n : 1) * (words ? words : 1), sizeof(uint64_t));
  R->des = mp_xcalloc((size_t)(n ? n : 1) * (words ? words : 1), sizeof(uint64_t));
  for (int i = 0; i < n; i++) { /* the file order is topological */
    if ((i & 255) == 255 && past(deadline)) return mp_reach_destroy(R), false;
    int v = g->given[i];
    uint64_t *a = R->anc + (size_t)v * words;
    a[v >> 6] |= 1ull << (v & 63);
    for (int j = 0; j < g->n_pred[v]; j++) {
      const uint64_t *p = R->anc + (size_t)g->pred[v][j] * words;
      for (size_t w = 0; w < words; w++) a[w] |= p[w];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    if ((i & 255) == 0 && past(deadline)) return mp_reach_destroy(R), false;
    int v = g->given[i];
    uint64_t *d = R->des + (size_t)v * words;
    d[v >> 6] |= 1ull << (v & 63);
    for (int j = 0; j < g->n_succ[v]; j++) {
      const uint64_t *s = R->des + (size_t)g->succ[v][j] * words;
      for (size_t w = 0; w < words; w++) d[w] |= s[w];
    }
  }
  return true;
}

void mp_reach_init(mp_reach *R, const mp_graph *g) { mp_reach_init_until(R, g, 0); }

void mp_reach_destroy(mp_reach *R) {
  free(R->anc);
  free(R->des);
  memset(R, 0, sizeof *R);
}

static int popcount_row(const uint64_t *row, size_t words) {
  int c = 0;
  for (size_t w = 0; w < words; w++) c += __builtin_popcountll(row[w]);
  return c;
}

int mp_reach_n_anc(const mp_reach *R, int v) { return popcount_row(mp_reach_anc(R, v), R->words) - 1; }
int mp_reach_n_des(const mp_reach *R, int v) { return popcount_row(mp_reach_des(R, v), R->words) - 1; }

static int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  return mp_add_ok(a, b, &r) ? r : INT64_MAX;
}

/* ---- cut bound ---- */

/* The graph inputs at the first step: every one is live, read or not. */
static int64_t first_step(const mp_graph *g) {
  int64_t first = 0;
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start && g->bufs[b].size > 0)
      first = sat_add(first, g->bufs[b].size);
  return first;
}

/* sum[v] += size of every buffer surely live when v runs; stops early (the
 * partial sums are still bounds) once the deadline passes */
static bool cut_sums(const mp_graph *g, const mp_reach *R, double deadline, int64_t *sum) {
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    if ((b & 63) == 0 && past(deadline)) return false;
    if (bb->size <= 0) continue;
    if (bb->kind == MP_BUF_WORKSPACE) {
      sum[bb->owner] = sat_add(sum[bb->owner], bb->size);
      continue;
    }
    if (bb->born_at_start && bb->n_readers == 0 && !bb->graph_output) continue; /* first step only */
    for (int v = 0; v < g->n; v++) {
      if (!bb->born_at_start && !mp_bit(mp_reach_anc(R, v), bb->owner)) continue; /* not made yet */
      bool live = bb->graph_output || (!bb->born_at_start && bb->owner == v);
      for (int i = 0; i < bb->n_readers && !live; i++) live = mp_bit(mp_reach_des(R, v), bb->readers[i]);
      if (live) sum[v] = sat_add(sum[v], bb->size);
    }
  }
  return true;
}

static int64_t cut_bound(const mp_graph *g, const mp_reach *R, double deadline, int *v_out,
                         bool *complete) {
  int n = g->n;
  int64_t *sum = mp_xcalloc((size_t)(n ? n : 1), sizeof(int64_t));
  *complete = cut_sums(g, R, deadline, sum);
  int64_t best = 0;
  if (v_out) *v_out = -1;
  for (int v = 0; v < n; v++)
    if (sum[v] > best) {
      best = sum[v];
      if (v_out) *v_out = v;
    }
  int64_t first = first_step(g);
  if (first > best) {
    best = first;
    if (v_out) *v_out = -1;
  }
  free(sum);
  /* complete sums contain every node's own footprint; partial ones may not */
  int64_t node = mp_node_lower_bound(g);
  if (node > best) {
    best = node;
    if (v_out) *v_out = -1;
  }
  return best;
}

int64_t mp_cut_lower_bound(const mp_graph *g, int *v_out) {
  if (v_out) *v_out = -1;
  if (g->n == 0) return 0;
  if (g->n > MP_SCHEDBOUND_MAX_NODES) return mp_node_lower_bound(g);
  mp_reach R;
  mp_reach_init(&R, g);
  bool complete;
  int64_t best = cut_bound(g, &R, 0, v_out, &complete);
  mp_reach_destroy(&R);
  return best;
}

/* ---- min-cut bound ----
 * Dinic's max flow on a small network rebuilt for each node v: the source
 * stands for "ran at or before v's step" (v and its ancestors), the sink
 * for "runs after" (v's strict descendants); only the nodes incomparable to
 * v, and the buffers whose status is not fixed, are free network nodes. */
typedef struct mf_net {
  int nv, ne, cap_e, tlev;
  int *head, *next, *to, *level, *it, *queue, *path;
  int64_t *cap;
} mf_net;

/* never cut: above every finite cut, and a residual inf + flow still fits */
#define MF_INF (INT64_MAX / 4)

static void mf_init(mf_net *f, int max_v, long max_e) {
  memset(f, 0, sizeof *f);
  f->cap_e = (int)(2 * max_e);
  f->head = mp_xmalloc((size_t)max_v * sizeof(int));
  f->level = mp_xmalloc((size_t)max_v * sizeof(int));
  f->it = mp_xmalloc((size_t)max_v * sizeof(int));
  f->queue = mp_xmalloc((size_t)max_v * sizeof(int));
  f->path = mp_xmalloc((size_t)max_v * sizeof(int));
  f->next = mp_xmalloc((size_t)f->cap_e * sizeof(int));
  f->to = mp_xmalloc((size_t)f->cap_e * sizeof(int));
  f->cap = mp_xmalloc((size_t)f->cap_e * sizeof(int64_t));
}

static void mf_destroy(mf_net *f) {
  free(f->head), free(f->level), free(f->it), free(f->queue), free(f->path);
  free(f->next), free(f->to), free(f->cap);
}

static void mf_reset(mf_net *f, int nv) {
  f->nv = nv;
  f->ne = 0;
  for (int i = 0; i < nv; i++) f->head[i] = -1;
}

static void mf_edge(mf_net *f, int a, int b, int64_t c) {
  if (a == b || c <= 0) return;
  f->to[f->ne] = b, f->cap[f->ne] = c, f->next[f->ne] = f->head[a], f->head[a] = f->ne++;
  f->to[f->ne] = a, f->cap[f->ne] = 0, f->next[f->ne] = f->head[b], f->head[b] = f->ne++;
}

/* Levels from s, stopping at t's level: nodes at or beyond it (other than
 * t) cannot be on a shortest augmenting path. */
static bool mf_bfs(mf_net *f, int s, int t) {
  for (int i = 0; i < f->nv; i++) f->level[i] = -1;
  int qh = 0, qt = 0;
  f->level[s] = 0;
  f->queue[qt++] = s;
  f->tlev = f->nv;
  while (qh < qt) {
    int a = f->queue[qh++];
    if (f->level[a] + 1 >= f->tlev) break;
    for (int e = f->head[a]; e >= 0; e = f->next[e])
      if (f->cap[e] > 0 && f->level[f->to[e]] < 0) {
        f->level[f->to[e]] = f->level[a] + 1;
        if (f->to[e] == t) f->tlev = f->level[t];
        f->queue[qt++] = f->to[e];
      }
  }
  return f->level[t] >= 0;
}

static inline bool mf_forward(const mf_net *f, int a, int e, int t) {
  int b = f->to[e];
  return f->cap[e] > 0 && f->level[b] == f->level[a] + 1 && (b == t || f->level[b] < f->tlev);
}

/* One blocking-flow phase of Dinic's algorithm, iterative (no recursion, so
 * no stack limit on long chains): advance along level edges with current-arc
 * pointers, augment at the sink, retreat from dead ends (and block them). */
static int64_t mf_phase(mf_net *f, int s, int t, int64_t limit) {
  int64_t total = 0;
  int depth = 0, a = s;
  for (int i = 0; i < f->nv; i++) f->it[i] = f->head[i];
  while (total < limit) {
    if (a == t) {
      int64_t push = limit - total;
      for (int i = 0; i < depth; i++)
        if (f->cap[f->path[i]] < push) push = f->cap[f->path[i]];
      for (int i = 0; i < depth; i++) f->cap[f->path[i]] -= push, f->cap[f->path[i] ^ 1] += push;
      total += push;
      depth = 0, a = s;
      continue;
    }
    int e = f->it[a];
    while (e >= 0 && !mf_forward(f, a, e, t)) e = f->next[e];
    f->it[a] = e;
    if (e >= 0) {
      f->path[depth++] = e;
      a = f->to[e];
    } else if (a == s) {
      break;
    } else { /* dead end: block a, step back */
      f->level[a] = -1;
      a = f->to[f->path[--depth] ^ 1];
    }
  }
  return total;
}

/* max flow s -> t, stopping once it reaches `limit` (callers pass an upper
 * bound of the min cut, so the result is the exact max flow) */
static int64_t mf_maxflow(mf_net *f, int s, int t, int64_t limit) {
  int64_t flow = 0;
  while (flow < limit && mf_bfs(f, s, t)) flow += mf_phase(f, s, t, limit - flow);
  return flow;
}

enum { SRC = 0, SNK = 1 };

/* The network of node v: map[w] = SRC (v, its ancestors), SNK (strict
 * descendants) or a free network node; buffer b is network node nv + b.
 * Returns the bytes live whatever S is (`fixed`); *src_out gets the cut of
 * S = {v and its ancestors}, an upper bound of the min cut. */
static int64_t build_network(const mp_graph *g, const mp_reach *R, int v, mf_net *f, int *map,
                             int64_t *src_out) {
  int n = g->n, nv = 2;
  const uint64_t *a = mp_reach_anc(R, v), *d = mp_reach_des(R, v);
  for (int w = 0; w < n; w++) map[w] = mp_bit(a, w) ? SRC : (mp_bit(d, w) ? SNK : nv++);
  int64_t fixed = g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0;
  *src_out = 0;
  mf_reset(f, nv + g->n_buf);
  for (int w = 0; w < n; w++) /* w before v's step => its preds too */
    if (map[w] >= 2)
      for (int j = 0; j < g->n_pred[w]; j++)
        if (map[g->pred[w][j]] != SRC) mf_edge(f, map[w], map[g->pred[w][j]], MF_INF);
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    if (bb->size <= 0 || bb->kind != MP_BUF_TENSOR) continue;
    int o = bb->born_at_start ? SRC : map[bb->owner];
    if (o == SNK) continue; /* made after v's step */
    if (bb->graph_output) {  /* lives from birth to the end */
      if (o == SRC) fixed = sat_add(fixed, bb->size);
      else mf_edge(f, o, SNK, bb->size);
      continue;
    }
    if (!bb->born_at_start && bb->owner == v) { /* v's own output */
      fixed = sat_add(fixed, bb->size);
      continue;
    }
    if (bb->n_readers == 0) continue; /* dead value, live at birth only */
    bool forced = false, open = false;
    for (int i = 0; i < bb->n_readers; i++) {
      int r = bb->readers[i];
      if (r == v || map[r] == SNK) forced = true;
      if (map[r] != SRC) open = true;
    }
    if (o == SRC && forced) { /* made by v's step, read at or after it */
      fixed = sat_add(fixed, bb->size);
      continue;
    }
    if (!open) continue; /* every reader ran by v's step: dead */
    int x = nv + b;      /* live iff made (o in S) and a reader not in S */
    mf_edge(f, o, x, bb->size);
    if (o == SRC) *src_out = sat_add(*src_out, bb->size);
    for (int i = 0; i < bb->n_readers; i++)
      if (map[bb->readers[i]] != SRC) mf_edge(f, x, map[bb->readers[i]], MF_INF);
  }
  if (*src_out > MF_INF / 2) *src_out = MF_INF / 2; /* min(flow, limit) is still a bound */
  return fixed;
}

int64_t mp_sched_lower_bound_until(const mp_graph *g, double deadline, int *v_out, bool *complete) {
  int n = g->n;
  if (v_out) *v_out = -1;
  if (complete) *complete = true;
  if (n == 0) return 0;
  if (n > MP_SCHEDBOUND_MAX_NODES) {
    if (complete) *complete = false;
    return mp_node_lower_bound(g);
  }
  mp_reach R;
  if (!mp_reach_init_until(&R, g, deadline)) { /* the per-node bound, which needs no matrix */
    if (complete) *complete = false;
    return mp_node_lower_bound(g);
  }
  bool done;
  int64_t best = cut_bound(g, &R, deadline, v_out, &done);
  long max_e = n;
  for (int v = 0; v < n; v++) max_e += g->n_pred[v];
  for (int b = 0; b < g->n_buf; b++) max_e += 2 + g->bufs[b].n_readers;
  mf_net f;
  mf_init(&f, n + g->n_buf + 2, max_e);
  int *map = mp_xmalloc((size_t)n * sizeof(int));
  for (int v = 0; v < n && done; v++) {
    if (past(deadline)) {
      done = false;
      break;
    }
    int64_t src_out, fixed = build_network(g, &R, v, &f, map, &src_out);
    if (sat_add(fixed, src_out) <= best) continue; /* cannot beat the best */
    int64_t cut = sat_add(fixed, mf_maxflow(&f, SRC, SNK, src_out));
    if (cut > best) {
      best = cut;
      if (v_out) *v_out = v;
    }
  }
  free(map);
  mf_destroy(&f);
  mp_reach_destroy(&R);
  if (complete) *complete = done;
  return best;
}

int64_t mp_sched_lower_bound(const mp_graph *g, int *v_out) {
  return mp_sched_lower_bound_until(g, 0, v_out, NULL);
}
