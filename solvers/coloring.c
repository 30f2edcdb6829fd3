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
#include <igraph.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "solver.h"

static bool live_together(const mp_item *a, const mp_item *b) {
  return a->lo < b->hi && b->lo < a->hi;
}

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


static const mp_problem *sort_p;
static int cmp_size(const void *a, const void *b) {
  const mp_item *x = &sort_p->items[*(const int *)a], *y = &sort_p->items[*(const int *)b];
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  int64_t lx = x->hi - x->lo, ly = y->hi - y->lo;
  if (lx != ly) return lx > ly ? -1 : 1;
  return *(const int *)a - *(const int *)b;
}

static int coloring_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  /* active items get a vertex; pinned ones stay where they are */
  int *vid = mp_xmalloc(sizeof(int) * nz), *item_of = mp_xmalloc(sizeof(int) * nz);
  int nv = 0;
  int64_t base = 0;
  for (int i = 0; i < n; i++) {
    const mp_item *it = &p->items[i];
    vid[i] = -1;
    c->offsets[i] = it->fixed >= 0 ? it->fixed : 0;
    if (it->fixed >= 0) {
      if (it->size > 0 && it->fixed + it->size > base) base = it->fixed + it->size;
      continue;
    }
    if (it->size <= 0 || it->hi <= it->lo) continue;
    vid[i] = nv;
    item_of[nv++] = i;
  }
  /* interference edges: sweep by start */
  int *byl = mp_xmalloc(sizeof(int) * nz);
  for (int v = 0; v < nv; v++) byl[v] = item_of[v];
  sort_p = p;
  igraph_vector_int_t edges;
  igraph_vector_int_init(&edges, 0);
  for (int a = 0; a < nv; a++)
    for (int b = a + 1; b < nv; b++)
      if (live_together(&p->items[item_of[a]], &p->items[item_of[b]])) {
        igraph_vector_int_push_back(&edges, a);
        igraph_vector_int_push_back(&edges, b);
      }
  igraph_t ig;
  igraph_create(&ig, &edges, nv, IGRAPH_UNDIRECTED);
  igraph_vector_int_destroy(&edges);

  int *col = mp_xmalloc(sizeof(int) * nz);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * nz);
  int64_t best = -1;
  const char *which = "";
  /* 1. igraph's greedy colouring */
  igraph_vector_int_t colors;
  igraph_vector_int_init(&colors, nv);
  if (nv > 0 && igraph_vertex_coloring_greedy(&ig, &colors, IGRAPH_COLORING_GREEDY_COLORED_NEIGHBORS) ==
                    IGRAPH_SUCCESS) {
    int ncol = 0;
    for (int i = 0; i < n; i++) {
      col[i] = vid[i] >= 0 ? (int)VECTOR(colors)[vid[i]] : -1;
      if (col[i] + 1 > ncol) ncol = col[i] + 1;
    }
    memcpy(off, c->offsets, sizeof(int64_t) * nz);
    best = layout(p, col, ncol, base, off);
    memcpy(c->offsets, off, sizeof(int64_t) * nz);
    which = "igraph greedy colouring";
  }
  igraph_vector_int_destroy(&colors);
  /* 2. size-aware best-fit colouring, using the same interference graph */
  {
    igraph_adjlist_t adj;
    igraph_adjlist_init(&ig, &adj, IGRAPH_ALL, IGRAPH_NO_LOOPS, IGRAPH_NO_MULTIPLE);
    int *seq = mp_xmalloc(sizeof(int) * nz);
    for (int v = 0; v < nv; v++) seq[v] = item_of[v];
    qsort(seq, (size_t)nv, sizeof *seq, cmp_size);
    int64_t *ssize = mp_xmalloc(sizeof(int64_t) * nz);
    int *mark = mp_xmalloc(sizeof(int) * nz);
    for (int k = 0; k < nv; k++) mark[k] = -1;
    int ncol = 0;
    for (int i = 0; i < n; i++) col[i] = -1;
    for (int k = 0; k < nv; k++) {
      int i = seq[k], v = vid[i];
      igraph_vector_int_t *nb = igraph_adjlist_get(&adj, v);
      for (igraph_integer_t e = 0; e < igraph_vector_int_size(nb); e++) {
        int w = item_of[VECTOR(*nb)[e]];
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
    memcpy(off, c->offsets, sizeof(int64_t) * nz);
    for (int i = 0; i < n; i++)
      if (p->items[i].fixed >= 0) off[i] = p->items[i].fixed;
    int64_t a = layout(p, col, ncol, base, off);
    if (best < 0 || a < best) {
      best = a;
      memcpy(c->offsets, off, sizeof(int64_t) * nz);
      which = "size-aware best-fit colouring";
    }
    free(seq);
    free(ssize);
    free(mark);
    igraph_adjlist_destroy(&adj);
  }
  igraph_destroy(&ig);
  mp_pack_degenerate(p, c->offsets);
  if (nv > 0) snprintf(c->msg, sizeof c->msg, "kept the %s", which);
  free(col);
  free(off);
  free(byl);
  free(vid);
  free(item_of);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_coloring = {
    .name = "coloring",
    .summary = "interference-graph colouring (igraph greedy and size-aware), one slot per colour",
    .decides = MP_DECIDES_OFFSETS,
    .solve = coloring_solve,
};
