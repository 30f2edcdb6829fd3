/* schedbound.c - see schedbound.h. */
#include <stdlib.h>

#include "schedbound.h"
#include "util.h"

/* Ancestor and descendant bitsets (`words` 64-bit words per node), each
 * including the node itself; malloc'ed, the caller frees them. */
static void closures(const mp_graph *g, size_t words, uint64_t **anc_out, uint64_t **des_out) {
  int n = g->n;
  uint64_t *anc = mp_xcalloc((size_t)n * words, sizeof(uint64_t));
  uint64_t *des = mp_xcalloc((size_t)n * words, sizeof(uint64_t));
  for (int i = 0; i < n; i++) {
    int v = g->given[i];
    uint64_t *a = anc + (size_t)v * words;
    a[v >> 6] |= 1ull << (v & 63);
    for (int j = 0; j < g->n_pred[v]; j++) {
      const uint64_t *p = anc + (size_t)g->pred[v][j] * words;
      for (size_t w = 0; w < words; w++) a[w] |= p[w];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    int v = g->given[i];
    uint64_t *d = des + (size_t)v * words;
    d[v >> 6] |= 1ull << (v & 63);
    for (int j = 0; j < g->n_succ[v]; j++) {
      const uint64_t *s = des + (size_t)g->succ[v][j] * words;
      for (size_t w = 0; w < words; w++) d[w] |= s[w];
    }
  }
  *anc_out = anc;
  *des_out = des;
}

int64_t mp_cut_lower_bound(const mp_graph *g, int *v_out) {
  int n = g->n;
  if (v_out) *v_out = -1;
  if (n == 0) return 0;
  size_t words = (size_t)(n + 63) / 64;
  uint64_t *anc, *des; /* anc[v] and des[v] include v itself */
  closures(g, words, &anc, &des);
#define HAS(set, x) ((set)[(x) >> 6] >> ((x) & 63) & 1)
  int64_t *sum = mp_xcalloc((size_t)n, sizeof(int64_t));
  int64_t dead_inputs = 0;
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    if (bb->size <= 0) continue;
    if (bb->kind == MP_BUF_WORKSPACE) {
      sum[bb->owner] += bb->size;
      continue;
    }
    if (bb->born_at_start && bb->n_readers == 0 && !bb->graph_output) {
      dead_inputs += bb->size;
      continue;
    }
    for (int v = 0; v < n; v++) {
      const uint64_t *a = anc + (size_t)v * words, *d = des + (size_t)v * words;
      if (!bb->born_at_start && !HAS(a, bb->owner)) continue; /* not made yet */
      bool live = bb->graph_output || (!bb->born_at_start && bb->owner == v);
      for (int i = 0; i < bb->n_readers && !live; i++) live = HAS(d, bb->readers[i]);
      if (live) sum[v] += bb->size;
    }
  }
#undef HAS
  int64_t best = 0;
  for (int v = 0; v < n; v++)
    if (sum[v] > best) {
      best = sum[v];
      if (v_out) *v_out = v;
    }
  /* the first step: every graph input, read or not, is live */
  int64_t first = dead_inputs;
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start && g->bufs[b].size > 0 &&
        !(g->bufs[b].n_readers == 0 && !g->bufs[b].graph_output))
      first += g->bufs[b].size;
  if (first > best) {
    best = first;
    if (v_out) *v_out = -1;
  }
  free(sum);
  free(anc);
  free(des);
  return best;
}

/* ---- min-cut bound (mp_sched_lower_bound) ----
 * Dinic's max flow on a small network rebuilt for each node v: the source
 * stands for "ran at or before v's step" (v and its ancestors), the sink
 * for "runs after" (v's strict descendants); only the nodes incomparable to
 * v, and the buffers whose status is not fixed, are free network nodes. */
typedef struct mf_net {
  int nv, ne, cap_e;
  int *head, *next, *to, *level, *it, *queue, *path;
  int64_t *cap;
} mf_net;

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

static bool mf_bfs(mf_net *f, int s, int t) {
  for (int i = 0; i < f->nv; i++) f->level[i] = -1;
  int qh = 0, qt = 0;
  f->level[s] = 0;
  f->queue[qt++] = s;
  while (qh < qt) {
    int a = f->queue[qh++];
    for (int e = f->head[a]; e >= 0; e = f->next[e])
      if (f->cap[e] > 0 && f->level[f->to[e]] < 0) {
        f->level[f->to[e]] = f->level[a] + 1;
        f->queue[qt++] = f->to[e];
      }
  }
  return f->level[t] >= 0;
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
    while (e >= 0 && (f->cap[e] <= 0 || f->level[f->to[e]] != f->level[a] + 1)) e = f->next[e];
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

int64_t mp_sched_lower_bound(const mp_graph *g, int *v_out) {
  int vcut = -1;
  int64_t best = mp_cut_lower_bound(g, &vcut);
  if (v_out) *v_out = vcut;
  int n = g->n;
  if (n == 0) return best;
  size_t words = (size_t)(n + 63) / 64;
  uint64_t *anc, *des; /* anc[v] and des[v] include v itself */
  closures(g, words, &anc, &des);
#define HAS(set, x) ((set)[(x) >> 6] >> ((x) & 63) & 1)
  int64_t inf = 1;
  long max_e = n;
  for (int v = 0; v < n; v++) max_e += g->n_pred[v];
  for (int b = 0; b < g->n_buf; b++) {
    inf += g->bufs[b].size;
    max_e += 2 + g->bufs[b].n_readers;
  }
  int max_v = n + g->n_buf + 2;
  mf_net f;
  f.cap_e = (int)(2 * max_e);
  f.head = mp_xmalloc((size_t)max_v * sizeof(int));
  f.level = mp_xmalloc((size_t)max_v * sizeof(int));
  f.it = mp_xmalloc((size_t)max_v * sizeof(int));
  f.queue = mp_xmalloc((size_t)max_v * sizeof(int));
  f.path = mp_xmalloc((size_t)max_v * sizeof(int));
  f.next = mp_xmalloc((size_t)f.cap_e * sizeof(int));
  f.to = mp_xmalloc((size_t)f.cap_e * sizeof(int));
  f.cap = mp_xmalloc((size_t)f.cap_e * sizeof(int64_t));
  int *map = mp_xmalloc((size_t)n * sizeof(int));
  enum { SRC = 0, SNK = 1 };
  for (int v = 0; v < n; v++) {
    const uint64_t *a = anc + (size_t)v * words, *d = des + (size_t)v * words;
    /* SRC: ran by v's step (v, its ancestors); SNK: runs after (strict
     * descendants); the rest are free network nodes 2.. */
    int nv = 2;
    for (int w = 0; w < n; w++) map[w] = HAS(a, w) ? SRC : (HAS(d, w) ? SNK : nv++);
    int64_t fixed = g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0;
    int64_t src_out = 0; /* the cut of S = {v and its ancestors}: >= min cut */
    mf_reset(&f, nv + g->n_buf);
    for (int w = 0; w < n; w++) /* w before v's step => its preds too */
      if (map[w] >= 2)
        for (int j = 0; j < g->n_pred[w]; j++)
          if (map[g->pred[w][j]] != SRC) mf_edge(&f, map[w], map[g->pred[w][j]], inf);
    for (int b = 0; b < g->n_buf; b++) {
      const mp_buffer *bb = &g->bufs[b];
      if (bb->size <= 0 || bb->kind != MP_BUF_TENSOR) continue;
      int o = bb->born_at_start ? SRC : map[bb->owner];
      if (o == SNK) continue; /* made after v's step */
      if (bb->graph_output) {   /* lives from birth to the end */
        if (o == SRC) fixed += bb->size;
        else mf_edge(&f, o, SNK, bb->size);
        continue;
      }
      if (!bb->born_at_start && bb->owner == v) { /* v's own output */
        fixed += bb->size;
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
        fixed += bb->size;
        continue;
      }
      if (!open) continue; /* every reader ran by v's step: dead */
      int x = nv + b;      /* live iff made (o in S) and a reader not in S */
      mf_edge(&f, o, x, bb->size);
      if (o == SRC) src_out += bb->size;
      for (int i = 0; i < bb->n_readers; i++)
        if (map[bb->readers[i]] != SRC) mf_edge(&f, x, map[bb->readers[i]], inf);
    }
    if (fixed + src_out <= best) continue; /* cannot beat the best */
    int64_t cut = mf_maxflow(&f, SRC, SNK, src_out);
    if (fixed + cut > best) {
      best = fixed + cut;
      if (v_out) *v_out = v;
    }
  }
#undef HAS
  free(map);
  free(f.head), free(f.level), free(f.it), free(f.queue), free(f.path), free(f.next), free(f.to), free(f.cap);
  free(anc);
  free(des);
  return best;
}
