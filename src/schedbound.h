/* schedbound.h - lower bounds on the live peak of every topological order
 * (scheduling bounds), stronger than the per-node bound of lifetime.h, and
 * the reachability they rest on (also used by the exact order solvers). */
#ifndef MP_SCHEDBOUND_H
#define MP_SCHEDBOUND_H

#include "lifetime.h"

/* Reachability of the precedence relation (data and in-place edges): for
 * every node v, its ancestors and its descendants as bitsets, each holding
 * v itself.  Built by one pass in file order and one backwards, OR-ing the
 * neighbours' rows: O(edges x n / 64) time, n^2 / 4 bytes.  (igraph's
 * per-node BFS, igraph_subcomponent, gives the same sets about 75x slower
 * on a 1631-node training graph, efficientnet_b0_train_b32: measured by
 * scripts/reach_igraph.c, the command in its header.) */
typedef struct mp_reach {
  int n;
  size_t words;   /* 64-bit words per row */
  uint64_t *anc;  /* row v: v and its ancestors */
  uint64_t *des;  /* row v: v and its descendants */
} mp_reach;

void mp_reach_init(mp_reach *R, const mp_graph *g);
/* The same, given up (false, nothing held) once deadline (mp_now() scale,
 * 0: none) has passed. */
bool mp_reach_init_until(mp_reach *R, const mp_graph *g, double deadline);
void mp_reach_destroy(mp_reach *R);
static inline const uint64_t *mp_reach_anc(const mp_reach *R, int v) {
  return R->anc + (size_t)v * R->words;
}
static inline const uint64_t *mp_reach_des(const mp_reach *R, int v) {
  return R->des + (size_t)v * R->words;
}
static inline bool mp_bit(const uint64_t *row, int x) { return row[x >> 6] >> (x & 63) & 1; }
/* Strict ancestors / descendants of v (v itself not counted). */
int mp_reach_n_anc(const mp_reach *R, int v);
int mp_reach_n_des(const mp_reach *R, int v);

/* Graphs above this many nodes get the per-node bound from the functions
 * below: their reachability would take more than 200 MB. */
#define MP_SCHEDBOUND_MAX_NODES 28000

/* Cut bound: when node v runs, every buffer made by v or one of its
 * ancestors (or present from the start) that v or one of its descendants
 * still reads, or that is a graph output, is live; so is v's workspace, and
 * at the first step so are the graph inputs nobody reads.  The largest such
 * sum over v bounds every order's peak from below.  It contains the
 * per-node bound (v's inputs and outputs) and, on a training graph, the
 * activations the forward pass saves for the backward pass (live across the
 * loss).  O(n^2/64 + n x sum of readers) time, O(n^2/8) bytes; never below
 * mp_node_lower_bound.  If v_out is not NULL it receives the node that
 * attains the bound (-1: the first step, or the per-node bound). */
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

/* The same, interruptible: once mp_now() passes `deadline` (> 0; 0: none)
 * it returns the best bound proven so far, at least the per-node bound
 * (the cut bound's partial sums and the max flows already done are each a
 * bound).  *complete (if not NULL) says whether every node was examined. */
int64_t mp_sched_lower_bound_until(const mp_graph *g, double deadline, int *v_out, bool *complete);

#endif
