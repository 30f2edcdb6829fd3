/* dp.c - exact scheduling: the lowest live peak over all topological orders.
 *
 * The live memory after a prefix depends only on the set of nodes that ran,
 * so the search runs over executed sets, which are exactly the downward-
 * closed sets of the precedence DAG (a set is identified by its frontier,
 * Serenity's signature; here by its bitset, of any width).  Instead of
 * tabulating dp[set] for every set (up to 10^8 on a RandWire cell), it
 * answers budget questions, as Serenity does:
 *
 *   feasible(B): is there an order with live peak <= B?
 *
 * by a depth-first search over executed sets that
 *   - never takes a step whose memory exceeds B,
 *   - runs at once, without branching, any ready node whose step fits B and
 *     frees at least what it allocates (dominance: moving such a node to the
 *     front of any order within B keeps every later step within B, because
 *     from then on the live set only shrinks by its net),
 *   - remembers the sets it has proved hopeless (no completion within B) in
 *     a hash table keyed by the bitset.  A set hopeless for B is hopeless for
 *     every smaller budget, so the table survives the decreasing budgets.
 * Budgets decrease from U - 1, U the best heuristic order's peak (the start
 * order and the given/greedy/lpmf/bfs/dfs orders, listsched.c): each success
 * yields an order with peak P and the next budget is P - 1; the first
 * failure proves the last order optimal.  Children are tried by increasing
 * memory left after the step, so a success comes quickly when one exists.
 *
 * Splitting (option split): nodes without predecessors that allocate nothing
 * and have no workspace (graph inputs) run first.  Among the others, a node
 * comparable with every node (ancestor or descendant of each) has the same
 * step in every order: it cuts the graph into segments that run one after
 * the other in every order.  Buffers that cross a cut are treated as live to
 * the end of the segment that makes them and as present at the start of the
 * segments that read them, which is exact, so the peak of an order is the
 * maximum over segments and each segment is solved alone (module-level CNNs
 * fall apart into many small pieces).  Segments are solved largest heuristic
 * peak first; a segment whose heuristic order is already below the best
 * bound proved so far needs no search.
 *
 * Size cap: graphs above max_nodes (28000, where schedbound.h's min-cut
 * bound stops too) are refused: the split's reachability matrix takes
 * n^2/4 bytes (196 MB at the cap) and n^2 steps, and every search state
 * scans its segment.  The search keeps its levels, forced moves and
 * candidates on heap stacks (s_dfs), so its depth, up to the segment's
 * node count, never reaches the thread's stack.
 *
 * Caps: max_states (set expansions) and mem_mb (hash table) stop the search
 * cleanly; so does the time limit.  Then the best order found is returned
 * with status feasible (cap) or timeout (clock) and ctx->bound = the best
 * proven lower bound (per-node bounds, the min-cut bound of schedbound.h,
 * proven segment optima).  Status is
 * optimal only when the returned peak equals the proven bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/budget.h"
#include "lib/listsched.h"
#include "lib/sim.h"
#include "schedbound.h"
#include "solver.h"

#define DP_OPTIONS(X)                                                                  \
  X(split, INT, 1, 0, 1, "solve the segments between cut nodes independently (0: whole graph)") \
  X(cutbound, INT, 1, 0, 1, "use the min-cut lower bound of schedbound.h (0: per-node bounds only; ablation, tests)") \
  X(max_states, INT, 5e7, 1, 1e12, "stop after this many set expansions (cap)")        \
  X(mem_mb, REAL, 1024, 1, 1e6, "stop when the memo of hopeless sets would exceed this (MB)") \
  X(max_nodes, INT, MP_SCHEDBOUND_MAX_NODES, 1, 1e7, "refuse graphs with more nodes than this (size cap: the split's reachability matrix takes n^2/4 bytes, every search state scans its segment)")
enum { DP_OPTIONS(MP_OPT_ENUM) DP_N_OPTS };
static const mp_option dp_options[] = {DP_OPTIONS(MP_OPT_ENTRY)};

/* ---- a segment: the scheduling model restricted to some nodes ---- */
typedef struct seg {
  int m;                /* nodes */
  int *gid;             /* local -> global node id */
  int *ps, *pl;         /* predecessors (CSR over local ids) */
  int *ss, *sl;         /* successors */
  int *rs, *rl;         /* buffers each node reads (local buffer ids) */
  int64_t *alloc;       /* bytes of the node's own buffers */
  int64_t *dead_own;    /* own buffers nobody reads (die at once) */
  int64_t *ws;          /* workspace */
  int nb;
  int64_t *bsize;
  int *breaders;        /* readers inside the segment */
  bool *bpinned;        /* live to the end of the segment */
  int64_t base;         /* live at the segment's start */
  int64_t dead_pre;     /* freed after the segment's first step */
  int64_t lb;           /* per-node lower bound inside the segment */
} seg;

static void seg_destroy(seg *s) {
  free(s->gid);
  free(s->ps);
  free(s->pl);
  free(s->ss);
  free(s->sl);
  free(s->rs);
  free(s->rl);
  free(s->alloc);
  free(s->dead_own);
  free(s->ws);
  free(s->bsize);
  free(s->breaders);
  free(s->bpinned);
}

/* The segment's nodes in the given order: gl[v] = local id or -1. */
static void seg_nodes(const mp_graph *g, const int *segof, int k, int *gl, seg *s) {
  int n = g->n;
  int m = 0;
  for (int i = 0; i < n; i++) {
    int v = g->given[i];
    if (segof[v] == k) gl[v] = m++;
    else gl[v] = -1;
  }
  s->m = m;
  s->gid = mp_xmalloc(sizeof(int) * (size_t)(m ? m : 1));
  for (int v = 0; v < n; v++)
    if (gl[v] >= 0) s->gid[gl[v]] = v;
}

/* The segment's buffers (bl[b] = local id or -1): made here, or present at
 * the start and read here; the others alive across it go into base. */
static void seg_buffers(const mp_graph *g, const int *segof, int k, const int *bbirth, const int *blast,
                        const int64_t *bsz, int *bl, seg *s) {
  int nb = 0;
  for (int b = 0; b < g->n_buf; b++) {
    bl[b] = -1;
    if (bsz[b] <= 0 || g->bufs[b].kind != MP_BUF_TENSOR) continue;
    if (bbirth[b] > k || blast[b] < k) continue;
    if (bbirth[b] < k) {
      /* present at the start: local only if some node here reads it */
      bool read_here = false;
      for (int i = 0; i < g->bufs[b].n_readers && !read_here; i++)
        read_here = segof[g->bufs[b].readers[i]] == k;
      if (!read_here) {
        if (blast[b] > k) s->base += bsz[b]; /* passes through */
        continue;
      }
    }
    bl[b] = nb++;
  }
  s->nb = nb;
  s->bsize = mp_xcalloc((size_t)(nb ? nb : 1), sizeof(int64_t));
  s->breaders = mp_xcalloc((size_t)(nb ? nb : 1), sizeof(int));
  s->bpinned = mp_xcalloc((size_t)(nb ? nb : 1), sizeof(bool));
  for (int b = 0; b < g->n_buf; b++) {
    int x = bl[b];
    if (x < 0) continue;
    s->bsize[x] = bsz[b];
    s->bpinned[x] = blast[b] > k;
    for (int i = 0; i < g->bufs[b].n_readers; i++) s->breaders[x] += segof[g->bufs[b].readers[i]] == k;
    if (bbirth[b] < k) s->base += bsz[b];
  }
}

/* Local predecessors, successors and reads (CSR: ps/pl, ss/sl, rs/rl) and
 * each node's workspace. */
static void seg_adjacency(const mp_graph *g, const int *gl, const int *bl, seg *s) {
  int m = s->m;
  s->ws = mp_xcalloc((size_t)(m ? m : 1), sizeof(int64_t));
  s->ps = mp_xcalloc((size_t)m + 1, sizeof(int));
  s->ss = mp_xcalloc((size_t)m + 1, sizeof(int));
  s->rs = mp_xcalloc((size_t)m + 1, sizeof(int));
  for (int i = 0; i < m; i++) {
    int v = s->gid[i];
    int np = 0, ns = 0, nr = 0;
    for (int j = 0; j < g->n_pred[v]; j++) np += gl[g->pred[v][j]] >= 0;
    for (int j = 0; j < g->n_succ[v]; j++) ns += gl[g->succ[v][j]] >= 0;
    for (int j = 0; j < g->n_reads[v]; j++) nr += bl[g->reads[v][j]] >= 0;
    s->ps[i + 1] = s->ps[i] + np;
    s->ss[i + 1] = s->ss[i] + ns;
    s->rs[i + 1] = s->rs[i] + nr;
    if (g->ws_buf[v] >= 0) s->ws[i] = g->bufs[g->ws_buf[v]].size;
  }
  s->pl = mp_xmalloc(sizeof(int) * (size_t)(s->ps[m] + 1));
  s->sl = mp_xmalloc(sizeof(int) * (size_t)(s->ss[m] + 1));
  s->rl = mp_xmalloc(sizeof(int) * (size_t)(s->rs[m] + 1));
  for (int i = 0; i < m; i++) {
    int v = s->gid[i];
    int *p = s->pl + s->ps[i], *q = s->sl + s->ss[i], *r = s->rl + s->rs[i];
    for (int j = 0; j < g->n_pred[v]; j++)
      if (gl[g->pred[v][j]] >= 0) *p++ = gl[g->pred[v][j]];
    for (int j = 0; j < g->n_succ[v]; j++)
      if (gl[g->succ[v][j]] >= 0) *q++ = gl[g->succ[v][j]];
    for (int j = 0; j < g->n_reads[v]; j++)
      if (bl[g->reads[v][j]] >= 0) *r++ = bl[g->reads[v][j]];
  }
}

/* What each node allocates, and of it what dies at once (no reader here,
 * not pinned). */
static void seg_owned(const mp_graph *g, int k, const int *bbirth, const int64_t *bsz, const int *gl,
                      const int *bl, seg *s) {
  s->alloc = mp_xcalloc((size_t)(s->m ? s->m : 1), sizeof(int64_t));
  s->dead_own = mp_xcalloc((size_t)(s->m ? s->m : 1), sizeof(int64_t));
  for (int b = 0; b < g->n_buf; b++) {
    int x = bl[b];
    if (x < 0 || bbirth[b] < k) continue;
    int o = gl[g->bufs[b].owner];
    s->alloc[o] += bsz[b];
    if (s->breaders[x] == 0 && !s->bpinned[x]) s->dead_own[o] += bsz[b];
  }
}

/* per-node bound: what passes through, the buffers present from the start
 * that stay to the end, and what the node itself touches */
static void seg_bound(const mp_graph *g, int k, const int *bbirth, const int *blast, const int64_t *bsz,
                      int64_t dead_pre, const int *bl, seg *s) {
  s->dead_pre = dead_pre; /* dead inputs: live at the first step only */
  s->base += dead_pre;
  int64_t keep = s->base - dead_pre;
  bool *pre_keep = mp_xcalloc((size_t)(s->nb ? s->nb : 1), sizeof(bool));
  for (int b = 0; b < g->n_buf; b++) {
    int x = bl[b];
    if (x < 0 || bbirth[b] >= k) continue;
    if (blast[b] > k) {
      pre_keep[x] = true;
    } else {
      keep -= bsz[b]; /* may be freed before a given node runs */
    }
  }
  s->lb = 0;
  for (int i = 0; i < s->m; i++) {
    int64_t f = keep + s->alloc[i] + s->ws[i];
    for (int j = s->rs[i]; j < s->rs[i + 1]; j++)
      if (!pre_keep[s->rl[j]]) f += s->bsize[s->rl[j]];
    if (f > s->lb) s->lb = f;
  }
  free(pre_keep);
}

/* Build segment of the nodes with segment id k (segof[v] == k).  Buffers:
 * bseg_birth[b] = segment of the owner (-1: present before segment 0),
 * bseg_last[b] = last segment that reads it, INT_MAX-like when pinned. */
#define SEG_FOREVER 0x3fffffff
static void seg_build(const mp_graph *g, const int *segof, int k, const int *bbirth,
                      const int *blast, const int64_t *bsz, int64_t dead_pre, int *gl, int *bl,
                      seg *s) {
  memset(s, 0, sizeof *s);
  seg_nodes(g, segof, k, gl, s);
  seg_buffers(g, segof, k, bbirth, blast, bsz, bl, s);
  seg_adjacency(g, gl, bl, s);
  seg_owned(g, k, bbirth, bsz, gl, bl, s);
  seg_bound(g, k, bbirth, blast, bsz, dead_pre, bl, s);
}

/* ---- hash set of bitsets ---- */
typedef struct hset {
  int words;
  size_t cap, n;   /* slots, entries */
  int64_t *slot;   /* index into pool, or -1 */
  uint64_t *pool;
  size_t pool_cap;
} hset;

static uint64_t hash_words(const uint64_t *k, int w) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < w; i++) {
    h ^= k[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  return h;
}

static void hs_init(hset *h, int words) {
  memset(h, 0, sizeof *h);
  h->words = words;
  h->cap = 1024;
  h->slot = mp_xmalloc(sizeof(int64_t) * h->cap);
  for (size_t i = 0; i < h->cap; i++) h->slot[i] = -1;
  h->pool_cap = 512;
  h->pool = mp_xmalloc(sizeof(uint64_t) * h->pool_cap * (size_t)words);
}

static void hs_destroy(hset *h) {
  free(h->slot);
  free(h->pool);
  memset(h, 0, sizeof *h);
}

static size_t hs_bytes(const hset *h) {
  return h->cap * sizeof(int64_t) + h->pool_cap * sizeof(uint64_t) * (size_t)h->words;
}

static bool hs_has(const hset *h, const uint64_t *k) {
  size_t mask = h->cap - 1, i = (size_t)hash_words(k, h->words) & mask;
  for (;; i = (i + 1) & mask) {
    int64_t e = h->slot[i];
    if (e < 0) return false;
    if (memcmp(h->pool + (size_t)e * (size_t)h->words, k, sizeof(uint64_t) * (size_t)h->words) == 0)
      return true;
  }
}

static void hs_put_slot(hset *h, int64_t e) {
  size_t mask = h->cap - 1;
  size_t i = (size_t)hash_words(h->pool + (size_t)e * (size_t)h->words, h->words) & mask;
  while (h->slot[i] >= 0) i = (i + 1) & mask;
  h->slot[i] = e;
}

static void hs_add(hset *h, const uint64_t *k) {
  if (h->n == h->pool_cap) {
    h->pool_cap *= 2;
    h->pool = mp_xrealloc(h->pool, sizeof(uint64_t) * h->pool_cap * (size_t)h->words);
  }
  memcpy(h->pool + h->n * (size_t)h->words, k, sizeof(uint64_t) * (size_t)h->words);
  int64_t e = (int64_t)h->n++;
  if (2 * h->n > h->cap) {
    free(h->slot);
    h->cap *= 2;
    h->slot = mp_xmalloc(sizeof(int64_t) * h->cap);
    for (size_t i = 0; i < h->cap; i++) h->slot[i] = -1;
    for (int64_t j = 0; j < e; j++) hs_put_slot(h, j);
  }
  hs_put_slot(h, e);
}

/* ---- the budgeted search on one segment ---- */
typedef struct search {
  const seg *s;
  mp_ctx *ctx;
  int64_t B;
  int64_t live;
  int steps;
  uint64_t *done;   /* bitset */
  int *remaining;   /* per local buffer: readers still to run */
  int *missing;     /* per node: predecessors still to run */
  int *path;        /* order being built */
  /* the depth-first search's own stacks (s_dfs): a level per branching
   * step, the bytes each forced move freed, the candidates of the open
   * levels; on the heap, since a search may go as deep as the segment has
   * nodes */
  struct dfs_level *lv;
  size_t nlv, cap_lv;
  int64_t *forced;
  size_t nforced, cap_forced;
  struct dfs_cand *cs;
  size_t ncs, cap_cs;
  hset memo;
  double *states;   /* shared counter across segments */
  double max_states;
  size_t mem_cap;
  int abort;        /* 1: cap, 2: time */
} search;

static inline int64_t s_freed(const search *q, int v) {
  const seg *s = q->s;
  int64_t f = s->dead_own[v];
  for (int j = s->rs[v]; j < s->rs[v + 1]; j++) {
    int x = s->rl[j];
    if (q->remaining[x] == 1 && !s->bpinned[x]) f += s->bsize[x];
  }
  return f;
}

static inline void s_run(search *q, int v, int64_t freed) {
  const seg *s = q->s;
  q->live += s->alloc[v] - freed - (q->steps == 0 ? s->dead_pre : 0);
  for (int j = s->rs[v]; j < s->rs[v + 1]; j++) q->remaining[s->rl[j]]--;
  for (int j = s->ss[v]; j < s->ss[v + 1]; j++) q->missing[s->sl[j]]--;
  q->done[v >> 6] |= 1ull << (v & 63);
  q->path[q->steps++] = v;
}

static inline void s_undo(search *q, int v, int64_t freed) {
  const seg *s = q->s;
  q->steps--;
  q->done[v >> 6] &= ~(1ull << (v & 63));
  for (int j = s->ss[v]; j < s->ss[v + 1]; j++) q->missing[s->sl[j]]++;
  for (int j = s->rs[v]; j < s->rs[v + 1]; j++) q->remaining[s->rl[j]]++;
  q->live -= s->alloc[v] - freed - (q->steps == 0 ? s->dead_pre : 0);
}

static inline bool is_ready(const search *q, int v) {
  return q->missing[v] == 0 && !(q->done[v >> 6] >> (v & 63) & 1);
}

/* A level of the search: the set reached after its forced moves, and its
 * candidates (cs[cbase, cbase + nc)), of which i have been tried. */
typedef struct dfs_level {
  size_t fbase, cbase;  /* its forced moves and candidates on their stacks */
  int nc, i;
  int v;                /* the candidate being tried, and the bytes it freed */
  int64_t f;
} dfs_level;

typedef struct dfs_cand {
  int v;
  int64_t after, during; /* memory after and during its step */
} dfs_cand;

#define GROW(arr, n, cap, first)                                   \
  do {                                                             \
    if ((n) == (cap)) {                                            \
      (cap) = (cap) ? 2 * (cap) : (first);                         \
      (arr) = mp_xrealloc((arr), sizeof(*(arr)) * (cap));          \
    }                                                              \
  } while (0)

/* Forced moves: run at once every ready node that fits and frees at least
 * what it allocates (dominance); their freed bytes go on the forced stack. */
static void s_forced(search *q) {
  const seg *s = q->s;
  int m = s->m;
  bool again = true;
  while (again && q->steps < m) {
    again = false;
    for (int v = 0; v < m; v++) {
      if (!is_ready(q, v)) continue;
      int64_t during = q->live + s->alloc[v] + s->ws[v];
      if (during > q->B) continue;
      int64_t f = s_freed(q, v);
      if (s->alloc[v] - f > 0) continue;
      GROW(q->forced, q->nforced, q->cap_forced, 256);
      q->forced[q->nforced++] = f;
      s_run(q, v, f);
      again = true;
    }
  }
}

/* The candidates of a level (ready nodes within the budget) on the
 * candidate stack, by (memory after the step, memory during it, local id). */
static int s_candidates(search *q) {
  const seg *s = q->s;
  size_t base = q->ncs;
  for (int v = 0; v < s->m; v++) {
    if (!is_ready(q, v)) continue;
    int64_t during = q->live + s->alloc[v] + s->ws[v];
    if (during > q->B) continue;
    dfs_cand c = {v, q->live + s->alloc[v] - s_freed(q, v), during};
    GROW(q->cs, q->ncs, q->cap_cs, 1024);
    size_t i = q->ncs++; /* insertion: equal keys keep the id order */
    while (i > base && (q->cs[i - 1].after > c.after ||
                        (q->cs[i - 1].after == c.after && q->cs[i - 1].during > c.during))) {
      q->cs[i] = q->cs[i - 1];
      i--;
    }
    q->cs[i] = c;
  }
  return (int)(q->ncs - base);
}

/* Open a level on the set reached: its forced moves, then 1 complete, 0
 * known hopeless, -1 aborted (caps, clock), or 2: its candidates are on the
 * stack and the search branches. */
static int s_open(search *q, dfs_level *L) {
  L->fbase = q->nforced;
  L->cbase = q->ncs;
  L->nc = L->i = 0;
  s_forced(q);
  if (q->steps == q->s->m) return 1;
  if (hs_has(&q->memo, q->done)) return 0;
  *q->states += 1;
  if (*q->states > q->max_states) {
    q->abort = 1;
    return -1;
  }
  if (((uint64_t)*q->states & 1023) == 0) {
    if (mp_time_up(q->ctx)) {
      q->abort = 2;
      return -1;
    }
    if (hs_bytes(&q->memo) > q->mem_cap) {
      q->abort = 1;
      return -1;
    }
  }
  L->nc = s_candidates(q);
  return 2;
}

/* Close a level with its result: unless a completion was found (the path
 * keeps it), undo its forced moves; its candidates leave the stack. */
static void s_close(search *q, dfs_level *L, int res) {
  if (res != 1)
    while (q->nforced > L->fbase) s_undo(q, q->path[q->steps - 1], q->forced[--q->nforced]);
  q->ncs = L->cbase;
  q->nlv--;
}

/* 1: found a completion within B (path holds it); 0: none; -1: aborted.
 * Depth first over executed sets, children by memory left after the step;
 * a set with no completion is remembered (hopeless for every smaller B). */
static int s_dfs(search *q) {
  q->nlv = q->nforced = q->ncs = 0;
  int res = 2; /* 2: the level on top was just pushed */
  GROW(q->lv, q->nlv, q->cap_lv, 256);
  q->nlv++;
  while (q->nlv > 0) {
    dfs_level *L = &q->lv[q->nlv - 1];
    if (res == 2) {
      res = s_open(q, L);
      if (res != 2) {
        s_close(q, L, res);
        continue;
      }
      res = 0;
    } else if (res == 1) { /* keep the path */
      s_close(q, L, 1);
      continue;
    } else {
      s_undo(q, L->v, L->f);
    }
    if (res == 0 && L->i < L->nc) {
      L->v = q->cs[L->cbase + (size_t)L->i++].v;
      L->f = s_freed(q, L->v);
      s_run(q, L->v, L->f);
      GROW(q->lv, q->nlv, q->cap_lv, 256);
      q->nlv++;
      res = 2;
      continue;
    }
    if (res == 0) hs_add(&q->memo, q->done);
    s_close(q, L, res);
  }
  return res;
}

/* Peak of a local order in the segment model. */
static int64_t seg_peak(const seg *s, const int *ord) {
  int *rem = mp_xmalloc(sizeof(int) * (size_t)(s->nb ? s->nb : 1));
  memcpy(rem, s->breaders, sizeof(int) * (size_t)s->nb);
  int64_t live = s->base, peak = 0;
  for (int t = 0; t < s->m; t++) {
    int v = ord[t];
    int64_t during = live + s->alloc[v] + s->ws[v];
    if (during > peak) peak = during;
    int64_t f = s->dead_own[v];
    for (int j = s->rs[v]; j < s->rs[v + 1]; j++) {
      int x = s->rl[j];
      if (--rem[x] == 0 && !s->bpinned[x]) f += s->bsize[x];
    }
    live = during - s->ws[v] - f - (t == 0 ? s->dead_pre : 0);
  }
  free(rem);
  return peak;
}

/* Solve one segment: improve ord (local ids, peak U) down to floor.
 * Returns 1 proven optimal (ord optimal), 0 stopped at the floor, -1 aborted. */
static int seg_solve(const seg *s, mp_ctx *ctx, int *ord, int64_t *U, int64_t floor,
                     double *states, double max_states, size_t mem_cap, int *abort) {
  int m = s->m;
  if (*U <= s->lb) return 1;
  search q;
  memset(&q, 0, sizeof q);
  q.s = s;
  q.ctx = ctx;
  int words = (m + 63) / 64;
  q.done = mp_xcalloc((size_t)words, sizeof(uint64_t));
  q.remaining = mp_xmalloc(sizeof(int) * (size_t)(s->nb ? s->nb : 1));
  q.missing = mp_xmalloc(sizeof(int) * (size_t)m);
  q.path = mp_xmalloc(sizeof(int) * (size_t)m);
  q.states = states;
  q.max_states = max_states;
  q.mem_cap = mem_cap;
  hs_init(&q.memo, words);
  int res = 0;
  for (;;) {
    if (*U - 1 < floor || *U <= s->lb) {
      res = *U <= s->lb ? 1 : 0;
      break;
    }
    q.B = *U - 1;
    q.live = s->base;
    q.steps = 0;
    memset(q.done, 0, sizeof(uint64_t) * (size_t)words);
    memcpy(q.remaining, s->breaders, sizeof(int) * (size_t)s->nb);
    for (int v = 0; v < m; v++) q.missing[v] = s->ps[v + 1] - s->ps[v];
    int r = s_dfs(&q);
    if (r == 1) {
      memcpy(ord, q.path, sizeof(int) * (size_t)m);
      int64_t p = seg_peak(s, ord);
      *U = p;
    } else if (r == 0) {
      res = 1;
      break;
    } else {
      res = -1;
      *abort = q.abort;
      break;
    }
  }
  hs_destroy(&q.memo);
  free(q.lv);
  free(q.forced);
  free(q.cs);
  free(q.done);
  free(q.remaining);
  free(q.missing);
  free(q.path);
  return res;
}

/* The whole problem cut into segments. */
typedef struct dp_plan {
  const mp_graph *g;
  int n;
  int *segof;          /* per node: its segment, or -1 (a free node) */
  int nfree, nseg;
  int64_t *bsz;        /* buffer sizes */
  int *bbirth, *blast; /* per buffer: segment of birth / of last use */
  int64_t init_live, dead_pre;
  seg *segs;
  int64_t *U;          /* per segment: the peak of its order */
  int **sord;          /* per segment: its order (local ids) */
} dp_plan;

/* Free nodes (no predecessors, allocate nothing, no workspace: graph
 * inputs) run first; they get segment -1. */
static void mark_free(dp_plan *D, bool split) {
  const mp_graph *g = D->g;
  for (int v = 0; v < D->n; v++) {
    D->segof[v] = 0;
    if (!split) continue;
    bool fr = g->n_pred[v] == 0 && (g->ws_buf[v] < 0 || D->bsz[g->ws_buf[v]] == 0);
    for (int k = 0; k < g->nodes[v].n_out && fr; k++) {
      int b = g->root_of[v][k];
      if (b >= 0 && g->bufs[b].owner == v && !g->bufs[b].born_at_start && D->bsz[b] > 0) fr = false;
    }
    if (fr) {
      D->segof[v] = -1;
      D->nfree++;
    }
  }
}

/* Cut nodes: comparable with every other non-free node (free nodes have no
 * predecessors, so they are never descendants, and no path runs through
 * one).  Segment of v = the number of cuts among its strict ancestors. */
static bool split_at_cuts(dp_plan *D, const mp_ctx *c) {
  const mp_graph *g = D->g;
  int n = D->n, r = n - D->nfree;
  D->nseg = 1;
  if (r <= 0) return true;
  mp_reach R;
  if (!mp_reach_init_until(&R, g, c->deadline)) return false;
  int *cuts = mp_xmalloc(sizeof(int) * (size_t)n);
  int nc = 0;
  for (int i = 0; i < n; i++) {
    int v = g->given[i];
    if ((i & 255) == 0 && mp_time_up(c)) { /* n^2 steps: 0.2 s at 15k nodes */
      free(cuts);
      mp_reach_destroy(&R);
      return false;
    }
    if (D->segof[v] < 0) continue;
    int cnt = mp_reach_n_des(&R, v);
    const uint64_t *a = mp_reach_anc(&R, v);
    for (int w = 0; w < n; w++)
      if (w != v && D->segof[w] >= 0 && mp_bit(a, w)) cnt++;
    if (cnt == r - 1) cuts[nc++] = v; /* the file order is topological: cuts sorted */
  }
  for (int v = 0; v < n; v++) {
    if (D->segof[v] < 0) continue;
    int k = 0;
    for (int j = 0; j < nc; j++) k += cuts[j] != v && mp_bit(mp_reach_anc(&R, v), cuts[j]);
    D->segof[v] = k;
  }
  D->nseg = nc + 1; /* segment nc: the nodes after the last cut (may be empty) */
  free(cuts);
  mp_reach_destroy(&R);
  return true;
}

/* Birth and last segment of every buffer. */
static void buffer_segments(dp_plan *D) {
  const mp_graph *g = D->g;
  size_t bz = (size_t)(g->n_buf ? g->n_buf : 1);
  D->bbirth = mp_xmalloc(sizeof(int) * bz);
  D->blast = mp_xmalloc(sizeof(int) * bz);
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    D->bbirth[b] = D->blast[b] = -2;
    if (bb->kind != MP_BUF_TENSOR || D->bsz[b] <= 0) continue;
    if (bb->born_at_start) {
      D->bbirth[b] = -1;
      D->init_live += D->bsz[b];
    } else {
      D->bbirth[b] = D->segof[bb->owner];
    }
    if (bb->graph_output) {
      D->blast[b] = SEG_FOREVER;
    } else if (bb->n_readers == 0) {
      if (bb->born_at_start) {
        D->dead_pre += D->bsz[b];
        D->bbirth[b] = D->blast[b] = -2; /* handled as dead_pre */
      } else {
        D->blast[b] = D->bbirth[b];
      }
    } else {
      int last = D->bbirth[b];
      for (int i = 0; i < bb->n_readers; i++)
        if (D->segof[bb->readers[i]] > last) last = D->segof[bb->readers[i]];
      D->blast[b] = last;
    }
  }
}

/* The segments, each with the start order restricted to it and its peak. */
static void build_segments(dp_plan *D, const int *order) {
  const mp_graph *g = D->g;
  int n = D->n;
  int *gl = mp_xmalloc(sizeof(int) * (size_t)n);
  int *bl = mp_xmalloc(sizeof(int) * (size_t)(g->n_buf ? g->n_buf : 1));
  D->segs = mp_xcalloc((size_t)D->nseg, sizeof(seg));
  D->U = mp_xcalloc((size_t)D->nseg, sizeof(int64_t));
  D->sord = mp_xcalloc((size_t)D->nseg, sizeof(int *));
  for (int k = 0; k < D->nseg; k++) {
    seg_build(g, D->segof, k, D->bbirth, D->blast, D->bsz, k == 0 && D->nfree == 0 ? D->dead_pre : 0,
              gl, bl, &D->segs[k]);
    seg *s = &D->segs[k];
    D->sord[k] = mp_xmalloc(sizeof(int) * (size_t)(s->m ? s->m : 1));
    int t = 0;
    for (int i = 0; i < n; i++)
      if (D->segof[order[i]] == k) D->sord[k][t++] = gl[order[i]];
    D->U[k] = seg_peak(s, D->sord[k]);
  }
  free(gl);
  free(bl);
}

/* False when the time limit passed first (no segment built: plan_destroy
 * frees what there is). */
static bool plan_init(dp_plan *D, const mp_graph *g, const int *order, bool split, const mp_ctx *c) {
  memset(D, 0, sizeof *D);
  D->g = g;
  D->n = g->n;
  D->segof = mp_xmalloc(sizeof(int) * (size_t)g->n);
  D->bsz = mp_xmalloc(sizeof(int64_t) * (size_t)(g->n_buf ? g->n_buf : 1));
  for (int b = 0; b < g->n_buf; b++) D->bsz[b] = g->bufs[b].size;
  mark_free(D, split);
  D->nseg = 1;
  if ((split && !split_at_cuts(D, c)) || mp_time_up(c)) {
    D->nseg = 0;
    return false;
  }
  buffer_segments(D);
  build_segments(D, order);
  return true;
}

static void plan_destroy(dp_plan *D) {
  for (int k = 0; k < D->nseg; k++) {
    seg_destroy(&D->segs[k]);
    free(D->sord[k]);
  }
  free(D->segs), free(D->sord), free(D->U), free(D->bbirth), free(D->blast), free(D->bsz);
  free(D->segof);
}

/* Solve the segments, largest heuristic peak first, raising the proven
 * bound with every segment proved.  Returns the abort reason (0 none,
 * 1 cap, 2 time); *states counts the expansions. */
static int solve_segments(dp_plan *D, mp_ctx *c, int64_t *bound, double *states) {
  int nseg = D->nseg, abort = 0;
  int *idx = mp_xmalloc(sizeof(int) * (size_t)nseg);
  for (int k = 0; k < nseg; k++) idx[k] = k;
  for (int a = 1; a < nseg; a++) {
    int x = idx[a], b = a - 1;
    while (b >= 0 && D->U[idx[b]] < D->U[x]) {
      idx[b + 1] = idx[b];
      b--;
    }
    idx[b + 1] = x;
  }
  size_t mem_cap = (size_t)(c->opt[OPT_mem_mb] * 1048576.0);
  for (int a = 0; a < nseg && !abort; a++) {
    int k = idx[a];
    if (D->U[k] <= *bound) continue; /* already as good as needed */
    int res = seg_solve(&D->segs[k], c, D->sord[k], &D->U[k], *bound, states, c->opt[OPT_max_states],
                        mem_cap, &abort);
    if (res == 1 && D->U[k] > *bound) *bound = D->U[k];
  }
  free(idx);
  return abort;
}

/* The proven lower bound: per-node bounds (global and per segment), the
 * min-cut bound (with half the time left under a limit: then the best it
 * proves in that time), the first free node's step. */
static int64_t proven_bound(const dp_plan *D, mp_ctx *c) {
  const mp_graph *g = D->g;
  int64_t bound = mp_node_lower_bound(g), cut = 0;
  if (c->opt[OPT_cutbound] != 0) cut = mp_sched_lower_bound_until(g, mp_deadline_share(c, 0.5), NULL, NULL);
  if (cut > bound) bound = cut;
  if (D->nfree > 0 && D->init_live > bound) bound = D->init_live; /* the first free node's step */
  for (int k = 0; k < D->nseg; k++)
    if (D->segs[k].lb > bound) bound = D->segs[k].lb;
  return bound;
}

/* The whole order: free nodes in file order, then the segments'; the
 * number of non-empty segments and the largest one's node count. */
static void assemble(const dp_plan *D, int *order, int *nonempty, int *largest) {
  const mp_graph *g = D->g;
  int t = 0;
  *nonempty = *largest = 0;
  for (int i = 0; i < g->n; i++)
    if (D->segof[g->given[i]] < 0) order[t++] = g->given[i];
  for (int k = 0; k < D->nseg; k++) {
    for (int i = 0; i < D->segs[k].m; i++) order[t++] = D->segs[k].gid[D->sord[k][i]];
    *nonempty += D->segs[k].m > 0;
    if (D->segs[k].m > *largest) *largest = D->segs[k].m;
  }
}

/* The limit passed before the search: the heuristic order, `timeout`
 * unless it meets the per-node bound (then that bound proves it optimal). */
static void give_unsearched(mp_ctx *c, const int *order) {
  const mp_graph *g = c->g;
  memcpy(c->order, order, sizeof(int) * (size_t)g->n);
  int64_t peak = 0;
  mp_sim_order_ok(g, c->order, &peak);
  c->bound = mp_node_lower_bound(g);
  c->status = peak == c->bound ? MP_OPTIMAL : MP_TIMEOUT;
  snprintf(c->msg, sizeof c->msg, "time limit reached while splitting the graph: the best "
           "heuristic order, unsearched");
}

static int dp_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  if (n == 0) {
    c->status = MP_OPTIMAL;
    return 0;
  }
  if (n > c->opt[OPT_max_nodes]) {
    c->status = MP_REFUSED;
    snprintf(c->msg, sizeof c->msg,
             "%d nodes exceed the size cap max_nodes=%.0f (the split's reachability matrix has "
             "n^2 bits); raise dp.max_nodes or use a heuristic (best, sa, ga)",
             n, c->opt[OPT_max_nodes]);
    return -1;
  }
  /* start: the best heuristic order (includes the chain's start order) */
  int *order = mp_xmalloc(sizeof(int) * (size_t)n);
  mp_ls_best(g, c->start_order, order, NULL);
  dp_plan D;
  if (!plan_init(&D, g, order, c->opt[OPT_split] != 0, c)) { /* DESIGN 4: stop within the limit */
    give_unsearched(c, order);
    plan_destroy(&D);
    free(order);
    return 0;
  }
  int64_t bound = proven_bound(&D, c);
  double states = 0;
  int abort = solve_segments(&D, c, &bound, &states);
  int nonempty, largest;
  assemble(&D, c->order, &nonempty, &largest);
  int64_t peak;
  if (!mp_sim_order_ok(g, c->order, &peak)) { /* its own check, not the verifier's */
    snprintf(c->msg, sizeof c->msg, "dp assembled an invalid order (a bug)");
    plan_destroy(&D);
    free(order);
    return -1;
  }
  /* every segment proved or below the bound: the peak is the optimum */
  if (!abort && peak > bound) bound = peak;
  c->bound = bound;
  c->status = peak == bound ? MP_OPTIMAL : abort == 2 ? MP_TIMEOUT : MP_FEASIBLE;
  snprintf(c->msg, sizeof c->msg, "%d segment%s (largest %d nodes), %.0f states%s", nonempty,
           nonempty == 1 ? "" : "s", largest, states,
           abort == 1 ? ", state/memory cap reached" : abort == 2 ? ", time limit reached" : "");
  plan_destroy(&D);
  free(order);
  return 0;
}

const mp_solver solver_dp = {
    .name = "dp",
    .summary = "exact: budgeted search over executed sets with dominance, memo and graph splitting, size cap max_nodes",
    .decides = MP_DECIDES_ORDER,
    .options = MP_OPTIONS(dp_options),
    .solve = dp_solve,
};
