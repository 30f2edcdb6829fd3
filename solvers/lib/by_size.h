/* by_size.h - greedy by size (largest buffer first, ties: earlier birth,
 * then index), best or first fit: the placers bysize and bysize-ff.
 *
 * One pass, but Theta(pairs of buffers live together): minutes on a 10^5-node
 * training graph, whose activations all live across the middle step.  It
 * stops once it is still running MP_BY_SIZE_SLACK seconds past the stage's
 * deadline (so a chain whose search spent the limit still gets it on any
 * graph it packs within that slack), and the plan is then birth-order first
 * fit (a sweep, O(n log n)) with status timeout. */
#ifndef MP_LIB_BY_SIZE_H
#define MP_LIB_BY_SIZE_H

#include "lib/pack.h"
#include "solver.h"

#define MP_BY_SIZE_SLACK 0.5

/* Fill c->offsets and c->status; `name` labels the --verbose counts. */
int mp_place_by_size(mp_ctx *c, enum mp_fit fit, const char *name);

#endif
