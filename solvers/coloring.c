/* coloring.c - the classic slot planner of the seed documents.
 * Colour the lifetime interference graph (one vertex per buffer, an edge
 * when two lifetimes intersect), give every colour one slot as large as its
 * largest member, and stack the slots (each slot aligned to the least
 * common multiple of its members' alignments).  Two colourings are tried
 * and the smaller arena kept (igraph's on a tie):
 *   - size-aware: buffers by size descending (ties: longer lifetime, index),
 *     each into the smallest existing slot none of whose members it
 *     interferes with (best fit; every existing slot is already at least as
 *     large), else a new slot;
 *   - igraph_vertex_coloring_greedy (most coloured neighbours first) on the
 *     igraph interference graph.
 * Slots are stacked largest first, above any pinned buffer.  The method
 * wastes whatever a slot's smaller members leave unused: the tables show
 * that cost against offset placers.
 *
 * At scale the graph is the cost: one edge per pair of buffers live
 * together (80 million on the 10^5-node layered graph), which igraph holds
 * at about 57 bytes per edge while building it.  So the edges are counted
 * first (lib/interfere.h, O(n log n)) and a graph over max_edges is refused;
 * the size-aware colouring needs no graph (a slot's members are disjoint
 * lifetimes, kept in an ordered set); then a sweep over the lifetimes lists the
 * edges for igraph in O(n log n + E).  The size-aware plan is the one kept
 * when the time limit has passed (also on entry, after an order search
 * that used it all): the limit is checked while the edges are listed,
 * before igraph builds the graph and before it colours it, and a cut
 * leaves status timeout.  igraph's two calls themselves run to their end
 * (the cap bounds them). */
#include <igraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "igraph_util.h"
#include "lib/interfere.h"
#include "lib/pack.h"
#include "lib/oset.h"
#include "solver.h"

/* Peak bytes per edge while igraph builds the graph: the slope of peak RSS
 * over edges of `memplan solve layered_N.json --order greedy --place
 * coloring` at N = 10^4 ... 4 x 10^4 (2.5 to 20 million edges), 57.0-57.5
 * (the edge list handed over 16, igraph's four index vectors 32, its sort
 * the rest).  Only the refusal message uses it. */
#define IGRAPH_BYTES_PER_EDGE 57

#define COLORING_OPTIONS(X)                                                                     \
  X(max_edges, INT, 17.5e6, 0, 1e12,                                                            \
    "refuse interference graphs with more edges than this (size cap: igraph holds about 57 "    \
    "bytes per edge while building the graph, 1 GB at the default)")
enum { COLORING_OPTIONS(MP_OPT_ENUM) COLORING_N_OPTS };
static const mp_option coloring_options[] = {COLORING_OPTIONS(MP_OPT_ENTRY)};

typedef struct slot {
  int64_t size, align;
  int idx;
} slot;

static int cmp_slot(const void *a, const void *b) {
  const slot *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return x->idx - y->idx;
}

/* The slots' sizes and alignments (the members' lcm, 0 when it passes
 * MP_MAX_ALIGN), in layout order: the largest first, ties by index. */
static slot *slots_of(const mp_problem *p, const int *col, int ncol) {
  slot *sl = mp_xcalloc((size_t)(ncol ? ncol : 1), sizeof(slot));
  for (int k = 0; k < ncol; k++) {
    sl[k].idx = k;
    sl[k].align = 1;
  }
  for (int i = 0; i < p->n; i++) {
    if (col[i] < 0) continue;
    slot *s = &sl[col[i]];
    if (p->items[i].size > s->size) s->size = p->items[i].size;
    if (s->align) s->align = mp_align_lcm(s->align, p->items[i].align < 1 ? 1 : p->items[i].align);
  }
  qsort(sl, (size_t)ncol, sizeof *sl, cmp_slot);
  return sl;
}

/* Lay out colours col[] (for active items; -1 otherwise) into off[]: the
 * slots one above the other, each starting at a multiple of its lcm, where
 * every member sits.  A slot without one (lcm past MP_MAX_ALIGN) starts
 * where the one before ends and each member sits at its own next multiple
 * (members of a slot are never live together), the slot ending at the
 * highest member end. */
static int64_t layout(const mp_problem *p, const int *col, int ncol, int64_t base, int64_t *off) {
  slot *sl = slots_of(p, col, ncol);
  int *first = mp_xcalloc((size_t)ncol + 1, sizeof(int));
  int *member = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  for (int i = 0; i < p->n; i++)
    if (col[i] >= 0) first[col[i] + 1]++;
  for (int k = 0; k < ncol; k++) first[k + 1] += first[k];
  int *fill = mp_xcalloc((size_t)(ncol ? ncol : 1), sizeof(int));
  for (int i = 0; i < p->n; i++)
    if (col[i] >= 0) member[first[col[i]] + fill[col[i]]++] = i;
  int64_t cur = base, arena = 0;
  for (int k = 0; k < ncol; k++) {
    int c = sl[k].idx;
    int64_t start = sl[k].align ? mp_align_up(cur, sl[k].align) : cur, end = start + sl[k].size;
    for (int q = first[c]; q < first[c + 1]; q++) {
      const mp_item *it = &p->items[member[q]];
      off[member[q]] = sl[k].align ? start : mp_align_up(start, it->align < 1 ? 1 : it->align);
      if (off[member[q]] + it->size > end) end = off[member[q]] + it->size;
      if (off[member[q]] + it->size > arena) arena = off[member[q]] + it->size;
    }
    cur = end;
  }
  free(sl);
  free(first);
  free(fill);
  free(member);
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

/* The items to colour (unpinned, bytes, a real lifetime): the vertices. */
typedef struct cvert {
  int nv;
  int *vid, *item_of; /* item -> vertex (-1: none), vertex -> item */
  int64_t base;       /* slots go above every pinned buffer */
} cvert;

static void cvert_init(cvert *V, const mp_problem *p, int64_t *offsets) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  V->vid = mp_xmalloc(sizeof(int) * nz);
  V->item_of = mp_xmalloc(sizeof(int) * nz);
  V->nv = mp_interfere_vertices(p, V->vid, V->item_of);
  V->base = mp_interfere_pinned_base(p, offsets);
}

static void cvert_destroy(cvert *V) {
  free(V->vid);
  free(V->item_of);
}

/* ------------------------------------------------ size-aware best fit */

/* Is slot s free over [lo, hi)?  The members of a slot (keys (slot, lo),
 * value hi) are disjoint, so only the last one born before hi can meet
 * [lo, hi). */
static bool slot_free(const mp_oset *members, int s, int64_t lo, int64_t hi) {
  mp_oset_entry x;
  if (!mp_oset_below(members, (mp_oset_key){s, hi}, &x)) return true;
  return x.key.a != s || x.val <= lo;
}

/* The smallest free slot (ties: the lowest index), or -1.  Slots open in
 * order of size, largest first (ssize[] is non-increasing), so it is the
 * first free one of the size group (first[s]: where s's group starts) of
 * the last free slot.  Both scans pass taken slots only, each holding at
 * least one buffer live with [lo, hi): O(degree log n) per buffer where
 * marking every neighbour's slot and scanning all slots took
 * O(degree + colours) and the whole graph. */
static int smallest_free(const mp_oset *members, const int *first, int ncol, int64_t lo, int64_t hi) {
  int s = ncol - 1;
  while (s >= 0 && !slot_free(members, s, lo, hi)) s--;
  if (s < 0) return -1;
  int t = first[s];
  while (!slot_free(members, t, lo, hi)) t++;
  return t;
}

/* Buffers by size descending, each into the smallest slot holding nothing
 * live with it, else a new slot.  Needs no graph: a slot is free for a
 * buffer when none of its members meets the buffer's lifetime. */
static int size_aware_colours(const cvert *V, const mp_problem *p, int *col) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  int *seq = mp_xmalloc(sizeof(int) * nz), *first = mp_xmalloc(sizeof(int) * nz);
  int64_t *ssize = mp_xmalloc(sizeof(int64_t) * nz);
  mp_oset members;
  mp_oset_init(&members);
  for (int v = 0; v < V->nv; v++) seq[v] = V->item_of[v];
  qsort_r(seq, (size_t)V->nv, sizeof *seq, cmp_size, (void *)p);
  int ncol = 0;
  for (int i = 0; i < p->n; i++) col[i] = -1;
  for (int k = 0; k < V->nv; k++) {
    const mp_item *it = &p->items[seq[k]];
    int pick = smallest_free(&members, first, ncol, it->lo, it->hi);
    if (pick < 0) {
      pick = ncol++;
      ssize[pick] = it->size;
      first[pick] = pick > 0 && ssize[pick - 1] == ssize[pick] ? first[pick - 1] : pick;
    }
    col[seq[k]] = pick;
    mp_oset_insert(&members, (mp_oset_key){pick, it->lo}, it->hi);
  }
  mp_oset_destroy(&members);
  free(seq);
  free(ssize);
  free(first);
  return ncol;
}

/* ------------------------------------------------ igraph's colouring */

/* Refuse a graph over the edge cap: -1 with the status and message set. */
static int refuse_edges(mp_ctx *c, int64_t m) {
  double mb = (double)m * IGRAPH_BYTES_PER_EDGE / 1e6;
  c->status = MP_REFUSED;
  snprintf(c->msg, sizeof c->msg,
           "the interference graph has %lld edges, over the size cap max_edges=%.0f (igraph would "
           "hold about %.*f %s at %d bytes per edge); raise coloring.max_edges or use an offset "
           "placer (bysize, bestfit)",
           (long long)m, c->opt[OPT_max_edges], mb < 1e3 ? 0 : 1, mb < 1e3 ? mb : mb / 1e3,
           mb < 1e3 ? "MB" : "GB", IGRAPH_BYTES_PER_EDGE);
  return -1;
}

/* Note a failed igraph call in why (the caller's message): igraph's reason. */
static void igraph_failed(char *why, size_t cap, const char *call, igraph_error_t ie) {
  snprintf(why, cap, "%s failed: %s", call, mp_igraph_error(ie));
}

/* The interference graph, its edges listed by a sweep over the lifetimes;
 * false (nothing built) when the deadline passes first or igraph fails
 * (why set). */
static bool graph_init(igraph_t *ig, const cvert *V, const mp_problem *p, const mp_ctx *c,
                       char *why, size_t cap) {
  igraph_integer_t *e;
  int64_t m;
  if (!mp_interfere_edges(p, V->item_of, V->nv, c, &e, &m)) return false;
  bool made = false;
  if (!mp_time_up(c)) {
    igraph_vector_int_t edges;
    igraph_vector_int_view(&edges, e, 2 * m);
    igraph_error_t ie = igraph_create(ig, &edges, V->nv, IGRAPH_UNDIRECTED);
    made = ie == IGRAPH_SUCCESS;
    if (!made) igraph_failed(why, cap, "igraph_create", ie);
  }
  free(e);
  return made;
}

/* igraph's greedy colouring into col[] (per item, -1: none): the number of
 * colours, or -1 when the deadline passes first or igraph fails (why set). */
static int igraph_colours_locked(const cvert *V, const mp_problem *p, const mp_ctx *c, int *col,
                                 char *why, size_t cap) {
  igraph_t ig;
  mp_igraph_init();
  if (mp_time_up(c) || !graph_init(&ig, V, p, c, why, cap)) return -1;
  int ncol = -1;
  igraph_vector_int_t colors;
  igraph_error_t ie = igraph_vector_int_init(&colors, V->nv);
  if (ie != IGRAPH_SUCCESS) {
    igraph_failed(why, cap, "igraph_vector_int_init", ie);
    igraph_destroy(&ig);
    return -1;
  }
  if (!mp_time_up(c)) {
    ie = igraph_vertex_coloring_greedy(&ig, &colors, IGRAPH_COLORING_GREEDY_COLORED_NEIGHBORS);
    if (ie != IGRAPH_SUCCESS) igraph_failed(why, cap, "igraph_vertex_coloring_greedy", ie);
  }
  if (!mp_time_up(c) && ie == IGRAPH_SUCCESS) {
    ncol = 0;
    for (int i = 0; i < p->n; i++) {
      col[i] = V->vid[i] >= 0 ? (int)VECTOR(colors)[V->vid[i]] : -1;
      if (col[i] + 1 > ncol) ncol = col[i] + 1;
    }
  }
  igraph_vector_int_destroy(&colors);
  igraph_destroy(&ig);
  return ncol;
}

/* igraph is not thread-safe: one solve at a time in it (igraph_util.h). */
static int igraph_colours(const cvert *V, const mp_problem *p, const mp_ctx *c, int *col,
                          char *why, size_t cap) {
  mp_igraph_lock();
  int ncol = igraph_colours_locked(V, p, c, col, why, cap);
  mp_igraph_unlock();
  return ncol;
}

/* ------------------------------------------------------------- solve */

static int coloring_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  size_t nz = (size_t)(p->n ? p->n : 1);
  cvert V;
  cvert_init(&V, p, c->offsets);
  int64_t m = mp_interfere_count(p, V.item_of, V.nv);
  if ((double)m > c->opt[OPT_max_edges]) {
    cvert_destroy(&V);
    return refuse_edges(c, m);
  }
  int *col = mp_xmalloc(sizeof(int) * nz);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * nz);
  /* the size-aware colouring first: it needs no graph, and its plan is
   * the one kept when the time limit cuts igraph's */
  int ncol = size_aware_colours(&V, p, col);
  int64_t best = layout(p, col, ncol, V.base, c->offsets);
  const char *which = "size-aware best-fit colouring", *cut = "";
  char why[150] = "", failed[180] = "";
  c->status = MP_FEASIBLE;
  ncol = V.nv > 0 ? igraph_colours(&V, p, c, col, why, sizeof why) : -1;
  if (ncol >= 0) {
    memcpy(off, c->offsets, sizeof(int64_t) * nz);
    if (layout(p, col, ncol, V.base, off) <= best) { /* a tie keeps igraph's, as it always did */
      memcpy(c->offsets, off, sizeof(int64_t) * nz);
      which = "igraph greedy colouring";
    }
  } else if (V.nv > 0 && mp_time_up(c)) {
    c->status = MP_TIMEOUT;
    cut = " (igraph's colouring cut by the time limit)";
  } else if (why[0]) { /* igraph failed (out of memory): the size-aware plan stands */
    snprintf(failed, sizeof failed, " (igraph's colouring: %s)", why);
    cut = failed;
  }
  mp_pack_degenerate(p, c->offsets);
  if (V.nv > 0) snprintf(c->msg, sizeof c->msg, "kept the %s%s", which, cut);
  cvert_destroy(&V);
  free(col);
  free(off);
  return 0;
}

const mp_solver solver_coloring = {
    .name = "coloring",
    .summary = "interference-graph colouring (igraph greedy and size-aware), one slot per colour",
    .decides = MP_DECIDES_OFFSETS,
    .options = MP_OPTIONS(coloring_options),
    .solve = coloring_solve,
};
