/* remat_strict.h - reruns that read no stale storage, for the stage shape
 * of remat_stage.h (remat-ilp's and remat-lp's option `strict`).
 *
 * The evaluator counts a run of a node after its first as stale when a
 * storage it accesses (storage.h: reads the data of, or writes) has had a
 * number of in-place writes so far that differs from the number of its
 * writers before the node in the file order (mp_events_stale_reruns).  In
 * the stage shape only first runs write when no writer runs again, and a
 * rerun in stage t comes before the first run of position t: the writes
 * done then are those of the writers at positions < t.  So a rerun of the
 * node at position p is not stale exactly at the stages t where, for every
 * storage b it accesses, the writers of b at positions < t are as many as
 * its writers before the node in the file order.  That count only grows
 * with t, so the allowed stages after p form an interval starting at p + 1
 * (when allowed there at all): a cap on the last stage a rerun may be in.
 * A writer never runs again (its rerun would write once more). */
#ifndef MP_LIB_REMAT_STRICT_H
#define MP_LIB_REMAT_STRICT_H

#include <stdint.h>

#include "graph.h"

struct rc_contract;

/* cap[p] for each position p (the order's non-input nodes, 0..N-1): the
 * last stage (N: the tail) up to which a rerun of the node at p is not
 * stale in every stage after p; p when its first rerun would already be. */
void rs_strict_caps(const mp_graph *g, const int *order, int *cap);

/* Per position of a contraction, the nodes a rerun of their segment
 * skips: those that run at most once (mp_remat_once) and own no buffer (a
 * view: an in-place writer, a parameter's step counter or optimizer step,
 * a view of a parameter written in place).  The segment's crossing outputs
 * and its other nodes' reads never need them, and running one again would
 * write once more.  Skipping a run only removes a memory sample and its
 * cost (the frees after it stay). */
uint8_t *rc_strict_inert(const struct rc_contract *r);

/* The caps of a contraction's positions (its graph cg under corder), from
 * the caps of the original positions: a segment reruns all its nodes, after
 * the first runs of the original positions before the stage (its inert
 * nodes aside, r->inert); pins and an added output node never run again. */
void rc_strict_caps(const struct rc_contract *r, const int *orig_cap, int *ccap);

#endif
