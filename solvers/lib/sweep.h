/* sweep.h - the time line of a placement problem as placers see it: every
 * item gets a virtual half-open interval such that two intervals intersect
 * exactly when the items are live together by the literal test of DESIGN
 * 1.4 (a.lo < b.hi && b.lo < a.hi); the time line then splits into
 * independent parts (no interval crosses a cut) and into sections (between
 * consecutive interval ends).  An empty lifetime [t, t) meets every
 * lifetime strictly across t and nothing else, not even another empty one
 * at t: it gets a unit interval of its own just inside t.  Without empty
 * lifetimes the virtual times are the ranks of the real ones, so parts and
 * sections are those of the real time line.  Shared by exact, hillclimb and
 * the placement lower bound. */
#ifndef MP_LIB_SWEEP_H
#define MP_LIB_SWEEP_H

#include "lifetime.h"

/* Virtual intervals [vlo[k], vhi[k]) of items members[0..m) (any items,
 * empty lifetimes included; items of size 0 too, though they conflict with
 * nothing that matters).  Values are below 2 m (m + 1). */
void mp_sweep_times(const mp_problem *p, const int *members, int m, int64_t *vlo, int64_t *vhi);

/* Sort members[0..m) (with their vlo/vhi) by virtual start, ties by item
 * index, and cut them into independent parts where no interval crosses
 * (split = false: one part).  starts[0..count] delimit the parts; returns
 * their count (0 when m == 0). */
int mp_sweep_parts(int *members, int64_t *vlo, int64_t *vhi, int m, bool split, int *starts);

/* Sections of intervals [lo[k], hi[k]) (k < m, lo < hi): the gaps between
 * consecutive distinct ends.  s0[k], s1[k]: the span of interval k, in
 * sections [s0, s1).  t[0..ns] are the ends (t[s] starts section s). */
typedef struct mp_sections {
  int ns;        /* sections (at least 1) */
  int64_t *t;    /* ns + 1 ends */
  int *s0, *s1;  /* per interval */
} mp_sections;

void mp_sections_init(mp_sections *S, const int64_t *lo, const int64_t *hi, int m);
void mp_sections_destroy(mp_sections *S);

/* A proven lower bound on the arena of every placement of p, the strongest
 * the library knows: the largest of the largest item (every buffer counts
 * in the arena, live or not), the top of every pinned item, the max-live
 * bound over the virtual sections (so empty lifetimes count where they
 * meet), and the alignment bound: in a section whose items hold L bytes,
 * the topmost item t lies above all the others, so the arena is at least
 * min over t of (align_up(L - size(t), align(t)) + size(t)) (a pinned t:
 * its own top, if it can be topmost at all).  Saturates at INT64_MAX. */
int64_t mp_place_lower_bound(const mp_problem *p);

#endif
