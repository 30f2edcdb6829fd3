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

/* Min-cut bound, never below the cut bound (it returns the larger).  When
 * node v runs, the nodes already run form a set S closed under
 * predecessors that holds v and its ancestors and none of v's strict
 * descendants; every buffer made in S (or present from the start) and still
 * read by a node outside S or by v, every graph output made in S, v's
 * outputs and v's workspace are live.  The cheapest such S is a minimum
 * closure, i.e. a minimum s-t cut (max flow) in a network of the nodes
 * incomparable to v and one node per undecided buffer; the largest cheapest
 * cut over v bounds every order's peak from below.  Unlike the cut bound
 * it sees the buffers of chains that run beside v (a training graph's
 * recomputable backward chains: sigmoid -> mul -> add -> mul from a saved
 * activation, one of whose same-size links must be live at v whatever the
 * order).  One small max flow per node (skipped when the cut of S = v and
 * its ancestors cannot beat the best so far); v_out as above. */
int64_t mp_sched_lower_bound(const mp_graph *g, int *v_out);

#endif
