/* pack_sweep.h - mp_pack for a sequence in order of birth (firstfit,
 * bestfit): an item then meets exactly the placed items still live at its
 * birth, so one sweep over time keeps their gaps in ordered sets and places
 * each item in O(log n).  Same offsets as the general packer. */
#ifndef MP_LIB_PACK_SWEEP_H
#define MP_LIB_PACK_SWEEP_H

#include <stdbool.h>

#include "lib/pack.h"

/* Whether the sweep applies: nothing pinned, and the items of seq with a
 * positive size have non-empty lifetimes with non-decreasing births. */
bool mp_pack_sweep_applies(const mp_problem *p, const int *seq, int m);

/* Place seq[0..m) (off[] preset to -1); the caller checked applicability. */
void mp_pack_sweep(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off);

#endif
