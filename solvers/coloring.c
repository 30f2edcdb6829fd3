/* coloring.c - the classic slot planner of the seed documents.
 * Build the lifetime interference graph (igraph: one vertex per buffer, an
 * edge when two lifetimes intersect), colour it, give every colour one slot
 * as large as its largest member, and stack the slots (each slot aligned to
 * the least common multiple of its members' alignments).  Two colourings
 * are tried and the smaller arena kept:
 *   - igraph_vertex_coloring_greedy (most coloured neighbours first);
 *   - size-aware: buffers by size descending (ties: longer lifetime, index),
 *     each into the smallest existing slot none of whose members it
 *     interferes with (best fit; every existing slot is already at least as
 *     large), else a new slot.
 * Slots are stacked largest first, above any pinned buffer.  The method
 * wastes whatever a slot's smaller members leave unused: the tables show
 * that cost against offset placers.
 *
 * At scale the graph is the cost: one edge per pair of buffers live
 * together (80 million on the 10^5-node layered graph), which igraph holds
 * at about 57 bytes per edge while building it.  The edges are counted
 * first (lib/interfere.h, O(n log n)) and a graph over max_edges is refused;
 * then a sweep over the lifetimes lists them in O(n log n + E).  The time
 * limit is checked while listing, between the two colourings and inside
 * the size-aware one: cut before any colouring is done, no plan (timeout);
 * cut in the size-aware one, igraph's plan with status timeout.  igraph's
 * own calls (building, greedy colouring) run to their end. */
#include <igraph.h>
#include <stdlib.h>
#include <string.h>

#include "lib/interfere.h"
#include "lib/pack.h"
#include "solver.h"

/* Peak bytes per edge while igraph builds the graph: the slope of peak RSS
 * over edges of `memplan solve layered_N.json --order greedy --place
 * coloring` at N = 10^4 ... 4 x 10^4 (2.5 to 20 million edges), 57.0-57.5
 * (the edge list handed over 16, igraph's four index vectors 32, its sort
 * the rest).  Only the refusal message uses it. */
#define IGRAPH_BYTES_PER_EDGE 57

#define COLORING_OPTIONS(X)                                                                      \
  X(max_edges, 17.5e6, 0, 1e12,                                                                 \
    "refuse interference graphs with more edges than this (size cap: igraph holds about 57 "    \
    "bytes per edge while building the graph, 1 GB at the default)")
enum { COLORING_OPTIONS(MP_OPT_ENUM) COLORING_N_OPTS };
static const mp_option coloring_options[] = {COLORING_OPTIONS(MP_OPT_ENTRY)};

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

typedef struct slot {
  int64_t size, align;
  int idx;
} slot;

static int cmp_slot(const void *a, const void *b) {
  const slot *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return x->idx - y->idx;
}

/* Lay out colours col[] (for active items; -1 otherwise) into off[]. */
static int64_t layout(const mp_problem *p, const int *col, int ncol, int64_t base, int64_t *off) {
  slot *sl = mp_xcalloc((size_t)(ncol ? ncol : 1), sizeof(slot));
  for (int k = 0; k < ncol; k++) {
    sl[k].idx = k;
    sl[k].align = 1;
  }
  for (int i = 0; i < p->n; i++) {
    if (col[i] < 0) continue;
    slot *s = &sl[col[i]];
    if (p->items[i].size > s->size) s->size = p->items[i].size;
    int64_t a = p->items[i].align < 1 ? 1 : p->items[i].align;
    s->align = s->align / gcd64(s->align, a) * a;
  }
  qsort(sl, (size_t)ncol, sizeof *sl, cmp_slot);
  int64_t *start = mp_xmalloc(sizeof(int64_t) * (size_t)(ncol ? ncol : 1));
  int64_t cur = base;
  for (int k = 0; k < ncol; k++) {
    cur = mp_align_up(cur, sl[k].align);
    start[sl[k].idx] = cur;
    cur += sl[k].size;
  }
  int64_t arena = 0;
  for (int i = 0; i < p->n; i++) {
    if (col[i] < 0) continue;
    off[i] = start[col[i]];
    if (off[i] + p->items[i].size > arena) arena = off[i] + p->items[i].size;
  }
  free(sl);
  free(start);
  return arena;
}


static int cmp_size(const void *a, const void *b, void *arg) {
  const mp_problem *p = arg;
  const mp_item *x = &p->items[*(const int *)a], *y = &p->items[*(const int *)b];
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  int64_t lx = x->hi - x->lo, ly = y->hi - y->lo;
  if (lx != ly) return lx > ly ? -1 : 1;
  return *(const int *)a - *(const int *)b;
}

/* The active items (unpinned, bytes, a real lifetime) as vertices. */
typedef struct cgraph {
  int nv;
  int *vid, *item_of; /* item -> vertex (-1: none), vertex -> item */
  int64_t base;       /* slots go above every pinned buffer */
  igraph_t ig;        /* interference graph */
} cgraph;

/* Refuse a graph over the edge cap: -1 with the status and message set. */
static int refuse_edges(mp_ctx *c, int64_t m) {
  c->status = MP_REFUSED;
  snprintf(c->msg, sizeof c->msg,
           "the interference graph has %lld edges, over the size cap max_edges=%.0f (igraph would "
           "hold about %.1f GB at %d bytes per edge); raise coloring.max_edges or use an offset "
           "placer (bysize, bestfit)",
           (long long)m, c->opt[OPT_max_edges], (double)m * IGRAPH_BYTES_PER_EDGE / 1e9,
           IGRAPH_BYTES_PER_EDGE);
  return -1;
}

/* No plan: the deadline passed before a colouring was complete. */
static int no_plan_in_time(mp_ctx *c, const char *where, int64_t m) {
  c->status = MP_TIMEOUT;
  snprintf(c->msg, sizeof c->msg, "no plan before the time limit: cut while %s (%lld edges)", where,
           (long long)m);
  return -1;
}

/* The vertices, the pinned top and the graph (edges listed by a sweep over
 * the lifetimes).  -1 with c's status and message when the graph is over
 * the cap or the deadline passes first (nothing to destroy then). */
static int cgraph_init(cgraph *G, const mp_problem *p, mp_ctx *c) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  G->vid = mp_xmalloc(sizeof(int) * nz);
  G->item_of = mp_xmalloc(sizeof(int) * nz);
  G->nv = mp_interfere_vertices(p, G->vid, G->item_of);
  G->base = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    c->offsets[i] = it->fixed >= 0 ? it->fixed : 0;
    if (it->fixed >= 0 && it->size > 0 && it->fixed + it->size > G->base) G->base = it->fixed + it->size;
  }
  int64_t m = mp_interfere_count(p, G->item_of, G->nv);
  igraph_integer_t *e = NULL;
  int rc = 0;
  if ((double)m > c->opt[OPT_max_edges]) rc = refuse_edges(c, m);
  else if (!mp_interfere_edges(p, G->item_of, G->nv, c, &e, &m))
    rc = no_plan_in_time(c, "listing the interference graph", m);
  if (rc == 0) {
    igraph_vector_int_t edges;
    igraph_vector_int_view(&edges, e, 2 * m);
    if (igraph_create(&G->ig, &edges, G->nv, IGRAPH_UNDIRECTED) != IGRAPH_SUCCESS) {
      snprintf(c->msg, sizeof c->msg, "igraph could not build the interference graph (%lld edges)",
               (long long)m);
      rc = -1;
    }
    free(e);
  }
  if (rc) {
    free(G->vid);
    free(G->item_of);
  }
  return rc;
}

static void cgraph_destroy(cgraph *G) {
  igraph_destroy(&G->ig);
  free(G->vid);
  free(G->item_of);
}

/* igraph's greedy colouring into col[] (per item, -1: none); the number of
 * colours, or -1 when igraph fails. */
static int igraph_colours(const cgraph *G, const mp_problem *p, int *col) {
  igraph_vector_int_t colors;
  igraph_vector_int_init(&colors, G->nv);
  int ncol = -1;
  if (igraph_vertex_coloring_greedy(&G->ig, &colors, IGRAPH_COLORING_GREEDY_COLORED_NEIGHBORS) ==
      IGRAPH_SUCCESS) {
    ncol = 0;
    for (int i = 0; i < p->n; i++) {
      col[i] = G->vid[i] >= 0 ? (int)VECTOR(colors)[G->vid[i]] : -1;
      if (col[i] + 1 > ncol) ncol = col[i] + 1;
    }
  }
  igraph_vector_int_destroy(&colors);
  return ncol;
}

/* The smallest slot not marked k (ties: the lowest index).  Slots open in
 * order of size, largest first (ssize[] is non-increasing), so it is the
 * first unmarked one of the size group (first[s]: where s's group starts)
 * of the last unmarked slot: both scans pass marked slots only, at most
 * one per neighbour, where a scan of every slot took O(colours). */
static int smallest_free(const int *mark, const int *first, int ncol, int k) {
  int s = ncol - 1;
  while (s >= 0 && mark[s] == k) s--;
  if (s < 0) return -1;
  int t = first[s];
  while (mark[t] == k) t++;
  return t;
}

/* Size-aware best fit: buffers by size descending, each into the smallest
 * slot holding nothing it interferes with, else a new slot.  -1 when the
 * deadline passes first. */
static int size_aware_colours(const cgraph *G, const mp_problem *p, const mp_ctx *c, int *col) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  int *seq = mp_xmalloc(sizeof(int) * nz), *mark = mp_xmalloc(sizeof(int) * nz);
  int *first = mp_xmalloc(sizeof(int) * nz);
  int64_t *ssize = mp_xmalloc(sizeof(int64_t) * nz);
  igraph_vector_int_t nb;
  igraph_vector_int_init(&nb, 0);
  for (int v = 0; v < G->nv; v++) seq[v] = G->item_of[v];
  qsort_r(seq, (size_t)G->nv, sizeof *seq, cmp_size, (void *)p);
  for (int k = 0; k < G->nv; k++) mark[k] = -1;
  int ncol = 0;
  for (int i = 0; i < p->n; i++) col[i] = -1;
  for (int k = 0; k < G->nv && ncol >= 0; k++) {
    int i = seq[k];
    igraph_neighbors(&G->ig, &nb, G->vid[i], IGRAPH_ALL);
    for (igraph_integer_t e = 0; e < igraph_vector_int_size(&nb); e++) {
      int w = G->item_of[VECTOR(nb)[e]];
      if (col[w] >= 0) mark[col[w]] = k;
    }
    int pick = smallest_free(mark, first, ncol, k);
    if (pick < 0) {
      pick = ncol++;
      ssize[pick] = p->items[i].size;
      first[pick] = pick > 0 && ssize[pick - 1] == ssize[pick] ? first[pick - 1] : pick;
    }
    col[i] = pick;
    if (k % 1024 == 1023 && mp_time_up(c)) ncol = -1;
  }
  igraph_vector_int_destroy(&nb);
  free(seq);
  free(ssize);
  free(first);
  free(mark);
  return ncol;
}

/* The plan of colouring col[] (ncol colours) into off[], from the pinned
 * offsets in c->offsets; its arena. */
static int64_t colour_plan(const mp_ctx *c, const cgraph *G, const int *col, int ncol, int64_t *off) {
  memcpy(off, c->offsets, sizeof(int64_t) * (size_t)(c->prob->n ? c->prob->n : 1));
  return layout(c->prob, col, ncol, G->base, off);
}

/* igraph's colouring, then the size-aware one unless the deadline has
 * passed; the smaller arena into c->offsets.  -1 when neither finished. */
static int colour_both(mp_ctx *c, const cgraph *G, int *col, int64_t *off) {
  const mp_problem *p = c->prob;
  size_t nz = (size_t)(p->n ? p->n : 1);
  int64_t best = -1;
  const char *which = "";
  int ncol = G->nv > 0 ? igraph_colours(G, p, col) : -1;
  if (ncol >= 0) {
    best = colour_plan(c, G, col, ncol, off);
    memcpy(c->offsets, off, sizeof(int64_t) * nz);
    which = "igraph greedy colouring";
  }
  bool cut = best >= 0 && mp_time_up(c);
  ncol = cut ? -1 : size_aware_colours(G, p, c, col);
  if (ncol >= 0) {
    if (colour_plan(c, G, col, ncol, off) < best || best < 0) {
      memcpy(c->offsets, off, sizeof(int64_t) * nz);
      which = "size-aware best-fit colouring";
    }
  } else if (best < 0) {
    return no_plan_in_time(c, "colouring by size", igraph_ecount(&G->ig));
  } else {
    c->status = MP_TIMEOUT;
  }
  if (G->nv > 0)
    snprintf(c->msg, sizeof c->msg, "kept the %s%s", which,
             ncol < 0 ? " (the size-aware one cut by the time limit)" : "");
  return 0;
}

static int coloring_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  size_t nz = (size_t)(p->n ? p->n : 1);
  cgraph G;
  if (cgraph_init(&G, p, c)) return -1;
  int *col = mp_xmalloc(sizeof(int) * nz);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * nz);
  c->status = MP_FEASIBLE;
  int rc = colour_both(c, &G, col, off);
  if (rc == 0) mp_pack_degenerate(p, c->offsets);
  cgraph_destroy(&G);
  free(col);
  free(off);
  return rc;
}

const mp_solver solver_coloring = {
    .name = "coloring",
    .summary = "interference-graph colouring (igraph greedy and size-aware), one slot per colour",
    .decides = MP_DECIDES_OFFSETS,
    .options = MP_OPTIONS(coloring_options),
    .solve = coloring_solve,
};
