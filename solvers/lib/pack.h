/* pack.h - the packing primitive that offset placers share: put items, in a
 * sequence the placer chooses, at the first or the best-fitting aligned gap
 * among the already placed items whose lifetimes intersect theirs.  Part of
 * the model's toolkit, not of any one solver; the verifier never uses it. */
#ifndef MP_PACK_H
#define MP_PACK_H

#include "lifetime.h"

enum mp_fit { MP_FIRST_FIT = 0, MP_BEST_FIT = 1 };

/* Place items seq[0..m) in that order.  Items pinned in the problem
 * (fixed >= 0) are placed first where they stand, whatever seq says.
 * Returns the arena. off[] receives every offset (unplaced items: -1).
 * A sequence in order of birth takes O(n log n) (a sweep over time); any
 * other O(n log n + the sum over items of the placed items live with them). */
int64_t mp_pack(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off);

/* Lowest / best aligned offset for item i given the offsets in off[] of the
 * items listed in `placed` (only those whose lifetimes intersect i count).
 * The definition, item by item, in O(np log np): mp_pack gives the offsets
 * of calling it for every item in turn (the tests check that). */
int64_t mp_pack_one(const mp_problem *p, int i, const int *placed, int np, const int64_t *off,
                    enum mp_fit fit);

/* Buffers with an empty lifetime [t, t) still conflict, by the literal test
 * a.lo < b.hi && b.lo < a.hi, with every buffer live strictly across t.
 * Placers that handle only real lifetimes call this last: it puts every
 * unpinned empty-lifetime buffer first fit against everything else. */
void mp_pack_degenerate(const mp_problem *p, int64_t *off);

/* Sequences the classic placers use (ties always broken by item index):
 * by birth (lo asc), by size (size desc, lo asc). */
void mp_seq_by_birth(const mp_problem *p, int *seq);
void mp_seq_by_size(const mp_problem *p, int *seq);

#endif
