/* pack_batch.h - the indexed packer on several threads, with the offsets and
 * counts of the sequential one.
 *
 * Item k's offset depends only on the offsets of the earlier items live
 * together with it (the index lists exactly the marked ones).  The packer
 * goes in rounds over a window: the first items of the sequence not yet
 * placed.  An item of the window live together with an earlier item of the
 * window waits for a later round; every other one queries the index as it
 * stands (nobody marks meanwhile), the threads sharing them out; then one
 * thread marks them all.  Exact: an item placed in a round has every
 * earlier item live with it placed before the round (the window holds all
 * the earlier unplaced items in order, none of them live with it), so it
 * lists what it lists in the sequential packer; and the first item of a
 * window never waits.  The rounds depend on the lifetimes alone; the
 * window doubles or halves with the share of its items that wait. */
#ifndef MP_LIB_PACK_BATCH_H
#define MP_LIB_PACK_BATCH_H

#include "lib/pack.h"
#include "lib/pack_index.h"

/* Threads at most (the calling one included). */
enum { MP_PACK_THREADS_MAX = 8 };

/* Item i's offset from the index as it stands (i unmarked), counted into
 * *cnt when not NULL: the step of every indexed packing. */
int64_t mp_pack_fit_item(const mp_lifeindex *x, int i, enum mp_fit fit, mp_spanbuf *sb,
                         mp_pack_counts *cnt);

/* Place seq[0..m) like pack.c's indexed packer (x indexes p with the pinned
 * items marked; off holds the pins, -1 elsewhere) on up to `threads`
 * threads, in rounds over windows of `window` items (0: sized by their
 * conflicts).  Adds to *cnt (when not NULL; `unsorted` included) and to
 * *cpu_s the CPU seconds of the threads it started.  False, with nothing
 * placed, when no thread could start: the caller packs alone; false too
 * when `cancel` (not NULL, looked at every round) was set, the items of
 * the rounds before placed and marked: the caller's sequential loop skips
 * them and stops at its first look at the flag. */
bool mp_pack_batched(mp_lifeindex *x, const int *seq, int m, enum mp_fit fit, int64_t *off,
                     mp_pack_counts *cnt, int threads, int window, const atomic_int *cancel,
                     double *cpu_s);

#endif
