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
 * that cost against offset placers. */
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "solver.h"

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

static void cgraph_init(cgraph *G, const mp_problem *p, int64_t *offsets) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  G->vid = mp_xmalloc(sizeof(int) * nz);
  G->item_of = mp_xmalloc(sizeof(int) * nz);
  G->nv = 0;
  G->base = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    G->vid[i] = -1;
    offsets[i] = it->fixed >= 0 ? it->fixed : 0;
    if (it->fixed >= 0) {
      if (it->size > 0 && it->fixed + it->size > G->base) G->base = it->fixed + it->size;
      continue;
    }
    if (it->size <= 0 || it->hi <= it->lo) continue;
    G->vid[i] = G->nv;
    G->item_of[G->nv++] = i;
  }
  igraph_vector_int_t edges;
  igraph_vector_int_init(&edges, 0);
  for (int a = 0; a < G->nv; a++)
    for (int b = a + 1; b < G->nv; b++)
      if (mp_live_together(&p->items[G->item_of[a]], &p->items[G->item_of[b]])) {
        igraph_vector_int_push_back(&edges, a);
        igraph_vector_int_push_back(&edges, b);
      }
  igraph_create(&G->ig, &edges, G->nv, IGRAPH_UNDIRECTED);
  igraph_vector_int_destroy(&edges);
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

/* Size-aware best fit: buffers by size descending, each into the smallest
 * slot holding nothing it interferes with, else a new slot. */
static int size_aware_colours(const cgraph *G, const mp_problem *p, int *col) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  igraph_adjlist_t adj;
  igraph_adjlist_init(&G->ig, &adj, IGRAPH_ALL, IGRAPH_NO_LOOPS, IGRAPH_NO_MULTIPLE);
  int *seq = mp_xmalloc(sizeof(int) * nz), *mark = mp_xmalloc(sizeof(int) * nz);
  int64_t *ssize = mp_xmalloc(sizeof(int64_t) * nz);
  for (int v = 0; v < G->nv; v++) seq[v] = G->item_of[v];
  qsort_r(seq, (size_t)G->nv, sizeof *seq, cmp_size, (void *)p);
  for (int k = 0; k < G->nv; k++) mark[k] = -1;
  int ncol = 0;
  for (int i = 0; i < p->n; i++) col[i] = -1;
  for (int k = 0; k < G->nv; k++) {
    int i = seq[k];
    igraph_vector_int_t *nb = igraph_adjlist_get(&adj, G->vid[i]);
    for (igraph_integer_t e = 0; e < igraph_vector_int_size(nb); e++) {
      int w = G->item_of[VECTOR(*nb)[e]];
      if (col[w] >= 0) mark[col[w]] = k;
    }
    int pick = -1;
    for (int s = 0; s < ncol; s++)
      if (mark[s] != k && (pick < 0 || ssize[s] < ssize[pick])) pick = s;
    if (pick < 0) {
      pick = ncol++;
      ssize[pick] = p->items[i].size;
    }
    col[i] = pick;
  }
  free(seq);
  free(ssize);
  free(mark);
  igraph_adjlist_destroy(&adj);
  return ncol;
}

static int coloring_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  cgraph G;
  cgraph_init(&G, p, c->offsets);
  int *col = mp_xmalloc(sizeof(int) * nz);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * nz);
  int64_t best = -1;
  const char *which = "";
  int ncol = G.nv > 0 ? igraph_colours(&G, p, col) : -1;
  if (ncol >= 0) {
    memcpy(off, c->offsets, sizeof(int64_t) * nz);
    best = layout(p, col, ncol, G.base, off);
    memcpy(c->offsets, off, sizeof(int64_t) * nz);
    which = "igraph greedy colouring";
  }
  ncol = size_aware_colours(&G, p, col);
  memcpy(off, c->offsets, sizeof(int64_t) * nz);
  for (int i = 0; i < n; i++)
    if (p->items[i].fixed >= 0) off[i] = p->items[i].fixed;
  int64_t a = layout(p, col, ncol, G.base, off);
  if (best < 0 || a < best) {
    memcpy(c->offsets, off, sizeof(int64_t) * nz);
    which = "size-aware best-fit colouring";
  }
  mp_pack_degenerate(p, c->offsets);
  if (G.nv > 0) snprintf(c->msg, sizeof c->msg, "kept the %s", which);
  cgraph_destroy(&G);
  free(col);
  free(off);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_coloring = {
    .name = "coloring",
    .summary = "interference-graph colouring (igraph greedy and size-aware), one slot per colour",
    .decides = MP_DECIDES_OFFSETS,
    .solve = coloring_solve,
};
