/* pack_index.h - the packer's lifetime index: which placed items are live
 * together with a given item, by the literal test of DESIGN 1.4
 * (a.lo < b.hi && b.lo < a.hi, so an empty lifetime [t, t) meets every
 * lifetime live strictly across t).
 *
 * The lifetimes are known before any offset, so the index is built once,
 * for every item of positive size, and items are only marked as placed.
 * An item i with Y = i.lo meets
 *   - the items with lo < Y < hi (they span the step from Y - 1 to Y):
 *     a stabbing query on a centred interval tree over [lo + 1, hi - 1];
 *   - the items with Y <= lo < i.hi and hi > Y: a range of the items
 *     sorted by lo.
 * Unplaced items in the scanned ranges are skipped 64 at a time with
 * bitmaps, and a placed item's address span is stored at its positions
 * (mp_spanstore), so
 * a query reads memory in order and costs O(log^2 n + its answers +
 * scanned / 64); O(log n + ...) once mp_lifeindex_plan found every item's
 * ranges in one sweep. */
#ifndef MP_LIB_PACK_INDEX_H
#define MP_LIB_PACK_INDEX_H

#include <stdint.h>

#include "lib/pack_fit.h"
#include "lifetime.h"

/* One range of positions a query scans on the tree: [from, to) of by_l, or
 * of by_h when from < 0 (then ~from is the start). */
typedef struct mp_lifecut {
  int from, to;
} mp_lifecut;

/* The placed spans at the positions of one sorted list: 32-bit ends while
 * every marked end fits, else (from the mark that passes 2^32 - 1 on, all
 * four lists at once) 64-bit.  A query streams through the spans of its
 * ranges, placed or not: at 10^6 items that read is most of the packing,
 * and half the bytes made greedy + bysize on gen layered take about 0.85x
 * the CPU time (one thread, side by side). */
typedef struct mp_spanstore {
  mp_span32 *narrow; /* while `wide` is NULL */
  mp_span *wide;
  int n;
} mp_spanstore;

typedef struct mp_lifeindex {
  const mp_problem *p;
  /* centred interval tree over the edge ranges [lo + 1, hi - 1]: node =
   * position in the sorted distinct endpoints `end` (an implicit balanced
   * tree); its items are node_start[x] .. node_start[x + 1] in both
   * by_l (ascending l) and by_h (descending h) */
  int n_end;
  int64_t *end;
  int *node_start;
  int *by_l, *by_h;
  int64_t *l_key, *h_key; /* l of by_l[k], h of by_h[k] */
  int *pos_l, *pos_h;     /* item -> position in by_l / by_h, or -1 */
  /* the indexed items by (lo, index): those with lo < hi, and apart the
   * few with an empty or inverted lifetime (hi <= lo) */
  int n_lo, n_odd;
  int *by_lo, *by_odd;
  int64_t *lo_key, *odd_key;
  int *pos_lo, *pos_odd;
  /* placed marks and address spans at the positions of by_l, by_h, by_lo,
   * by_odd */
  uint64_t *mark_l, *mark_h, *mark_lo, *mark_odd;
  mp_spanstore span_l, span_h, span_lo, span_odd;
  int64_t marked_top; /* the highest end of a marked span: the queries' bound */
  /* after mp_lifeindex_plan: each item's ranges, found once for all items
   * in order of lo; NULL before */
  mp_lifecut *cut;
  int n_cut;
  int *cut_first, *lo_from, *lo_to; /* per item: first cut; its range of by_lo */
  unsigned char *cut_n;             /* per item: its cuts, one per tree level at most */
} mp_lifeindex;

/* Index every item of p with size > 0 (none marked). */
void mp_lifeindex_init(mp_lifeindex *x, const mp_problem *p);
void mp_lifeindex_destroy(mp_lifeindex *x);
/* Find the ranges of every item's query at once, sweeping the items in
 * order of lo with a cursor per tree node instead of a binary search per
 * node and query (the searches' cache misses were half a query's time);
 * later queries read them, laid out in the order of seq[0..m) (the order
 * the queries will come in: read in order of memory at 10^6 items).  The
 * listings do not change. */
void mp_lifeindex_plan(mp_lifeindex *x, const int *seq, int m);
/* Item i (size > 0) is placed at the address span [lo, hi) from now on. */
void mp_lifeindex_mark(mp_lifeindex *x, int i, int64_t lo, int64_t hi);
/* Append to b the spans of the marked items live together with item i. */
void mp_lifeindex_query(const mp_lifeindex *x, int i, mp_spanbuf *b);

#endif
