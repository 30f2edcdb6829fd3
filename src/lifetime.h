/* lifetime.h - from an order to intervals, the live profile and bounds
 * (DESIGN 1.2, 1.3), plus the fixed-lifetime problem of DESIGN 1.4.
 * A placement problem is a set of items with half-open lifetimes [lo, hi);
 * a graph under an order becomes one (closed [birth, death] = [lo, hi-1]). */
#ifndef MP_LIFETIME_H
#define MP_LIFETIME_H

#include "graph.h"

typedef struct mp_item {
  int64_t size;
  int64_t lo, hi;   /* live at t for lo <= t < hi */
  int64_t align;    /* offsets must be multiples of this (>= 1) */
  int64_t fixed;    /* pinned offset, or -1 */
} mp_item;

typedef struct mp_problem {
  char *name;
  char *file;
  int n;              /* items; for a graph, indexed by buffer id */
  mp_item *items;
  char **ids;         /* CSV ids (NULL for graphs) */
  char **extra_hdr;   /* CSV: unknown columns kept for the output (unused) */
  const mp_graph *g;  /* NULL for a fixed-lifetime problem */
  int64_t t_begin, t_end; /* time range the profile covers: [t_begin, t_end) */
  bool has_alignment_col;
} mp_problem;

/* Lifetimes of every buffer of g under `order` with alignment `align`.
 * Fills p (items allocated); returns 0. */
int mp_problem_from_order(const mp_graph *g, const int *order, int64_t align,
                          mp_problem *p);
void mp_problem_destroy(mp_problem *p);
/* Deep copy (items and ids). */
void mp_problem_copy(const mp_problem *src, mp_problem *dst);

/* Live profile over [t_begin, t_end): M(t).  For graphs one value per step.
 * Returns a malloc'ed array of t_end - t_begin values (NULL when empty). */
int64_t *mp_profile(const mp_problem *p);
/* max_t M(t) without materialising the profile (sweep over events). */
int64_t mp_live_peak(const mp_problem *p);
/* Population standard deviation of M(t) over [t_begin, t_end). */
double mp_profile_std(const mp_problem *p);
/* The same by the sweep over sorted events alone (mp_profile_std uses it
 * where its dense array would not be exact; the tests compare the two). */
double mp_profile_std_sweep(const mp_problem *p);
int64_t mp_sum_sizes(const mp_problem *p);

/* Scheduling lower bound: max over v of (distinct buffers v reads + buffers
 * v owns + v's workspace).  Valid for every order: the buffers of an input
 * that are dead values (live at step 0 alone) count on their own, as the
 * larger of them and the rest of v's term. */
int64_t mp_node_lower_bound(const mp_graph *g);
/* Bytes live while v runs, ignoring everything else (the term above; an
 * input's dead buffers, live at step 0 instead, as the larger part). */
int64_t mp_node_footprint(const mp_graph *g, int v);

/* Live peak of g under order (no alignment needed). */
int64_t mp_order_peak(const mp_graph *g, const int *order);

#endif
