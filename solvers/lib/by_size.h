/* by_size.h - greedy by size (largest buffer first, ties: earlier birth,
 * then index), best or first fit: the placers bysize and bysize-ff; and the
 * same machinery for another one-pass sequence (byconflicts).
 *
 * One pass, but Theta(pairs of buffers live together): minutes on a 10^5-node
 * training graph, whose activations all live across the middle step.  Under
 * a time limit, a problem of more than MP_INCUMBENT_PAIRS such pairs first
 * packs birth-order first fit (a sweep, O(n log n)); the deadline, or
 * MP_BY_SIZE_SLACK seconds after that packing when later (a chain whose
 * search spent the limit), then cuts greedy by size, and the plan is the
 * first fit with status timeout.  Smaller problems (about 30 ms) always
 * finish. */
#ifndef MP_LIB_BY_SIZE_H
#define MP_LIB_BY_SIZE_H

#include "lib/pack.h"
#include "solver.h"

#define MP_BY_SIZE_SLACK 0.5

/* Fill c->offsets and c->status; `name` labels the --verbose counts.
 * Without a deadline the packing stops once c->cancel is set: -1 with
 * c->msg saying the run was cancelled. */
int mp_place_by_size(mp_ctx *c, enum mp_fit fit, const char *name);
/* The same with another slack (the tests cut it with 0). */
int mp_place_by_size_within(mp_ctx *c, enum mp_fit fit, const char *name, double slack);

/* A placer's sequence: seq[0..p->n) gets every item once. */
typedef void (*mp_seq_fn)(const mp_problem *p, int *seq);
/* mp_place_by_size_within with the sequence seq_of fills in place of the
 * by-size one; `what` names it in the time-limit message ("greedy by size"). */
int mp_place_greedy_within(mp_ctx *c, mp_seq_fn seq_of, const char *what, enum mp_fit fit,
                           const char *name, double slack);

#endif
