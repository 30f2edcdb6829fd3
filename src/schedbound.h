/* schedbound.h - lower bounds on the live peak of every topological order
 * (scheduling bounds), stronger than the per-node bound of lifetime.h. */
#ifndef MP_SCHEDBOUND_H
#define MP_SCHEDBOUND_H

#include "lifetime.h"

/* Cut bound: when node v runs, every buffer made by v or one of its
 * ancestors (or present from the start) that v or one of its descendants
 * still reads, or that is a graph output, is live; so is v's workspace, and
 * at the first step so are the graph inputs nobody reads.  The largest such
 * sum over v bounds every order's peak from below.  It contains the
 * per-node bound (v's inputs and outputs) and, on a training graph, the
 * activations the forward pass saves for the backward pass (live across the
 * loss).  O(n^2/64 + n x sum of readers) time, O(n^2/8) bytes.
 * If v_out is not NULL it receives the node that attains the bound. */
int64_t mp_cut_lower_bound(const mp_graph *g, int *v_out);

#endif
