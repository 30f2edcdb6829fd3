/* interfere.h - the interference graph of a placement problem, as slot
 * placers (coloring) build it: one vertex per item that takes a slot
 * (unpinned, size > 0, a non-empty lifetime lo < hi), one edge per pair of
 * vertices live together by the literal test mp_live_together.
 *
 * At scale the edges, not the vertices, are the cost (80 million on the
 * 10^5-node layered graph), so they are counted first in O(n log n), which
 * lets a placer refuse a graph it could not hold, and then listed by a
 * sweep over the lifetimes in O(n log n + E), in the order of the pairwise
 * definition: (a, b) with a < b, lexicographic. */
#ifndef MP_LIB_INTERFERE_H
#define MP_LIB_INTERFERE_H

#include <igraph.h>

#include "lifetime.h"
#include "solver.h"

/* The vertices, in item order: vid[i] is item i's vertex (-1: none) and
 * item_of[v] vertex v's item.  Returns their count. */
int mp_interfere_vertices(const mp_problem *p, int *vid, int *item_of);
/* The slot planners' start: pinned items where they stand, the rest at 0
 * in off[] for now; returns the highest pinned end, above which the slots
 * go. */
int64_t mp_interfere_pinned_base(const mp_problem *p, int64_t *off);

/* Pairs of vertices live together (items item_of[0..nv), every lifetime
 * non-empty), without listing them: O(nv log nv). */
int64_t mp_interfere_count(const mp_problem *p, const int *item_of, int nv);

/* List the edges into *edges (malloc'ed: 2 *m vertex ids, *m edges, the
 * count of mp_interfere_count): (a, b), a < b, lexicographic.  Checks
 * mp_time_up(c) as it goes (c may be NULL: no deadline); false when the
 * deadline passed (*edges NULL), else true.  Takes 4 bytes per edge
 * besides the 16 of the list, and none once it returns. */
bool mp_interfere_edges(const mp_problem *p, const int *item_of, int nv, const mp_ctx *c,
                        igraph_integer_t **edges, int64_t *m);

#endif
