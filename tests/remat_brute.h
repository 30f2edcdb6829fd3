/* remat_brute.h - the exact optimum of DESIGN 6.3's problem on tiny graphs,
 * without copies: a shortest path (Dijkstra on the run costs) over states
 * (nodes run at least once, resident buffers).  Edges: run a node (a first
 * run when its predecessors have run, or a rerun; its reads resident, its
 * outputs not, the sample within the budget) or free a resident buffer
 * (in-place storage only after its readers ran).  A buffer nobody reads is
 * freed right after the run that makes it, which never hurts.  Without
 * copies a plan's duration is the sum of its runs' costs, so the path
 * length is the duration.  The reference the exact recomputation solvers
 * (remat-ilp) are checked against. */
#ifndef MP_REMAT_BRUTE_H
#define MP_REMAT_BRUTE_H

#include "events.h"

enum { RB_FOUND = 1, RB_INFEASIBLE = 0, RB_TOO_BIG = -1 };

/* What both searches know of a graph, as bit masks (node v: bit v; tensor
 * buffer b: bit b). */
typedef struct rb_masks {
  int n;
  uint64_t *readm, *ownm, *deadm; /* per node: buffers read, made, made and read by nobody */
  uint32_t *predm;                 /* per node: non-input predecessors */
  uint32_t readersm[64];           /* per buffer: nodes that read it */
  int64_t *need;                   /* per node: bytes its run adds (outputs + workspace) */
  bool *inset;                     /* per node: in the alias set of an in-place storage */
  bool inplace[64];                /* per buffer: written in place */
  uint32_t all_ran;                /* every non-input node */
  uint64_t inputs, outputs;        /* buffers resident at the start / at the end */
  int tensors;
} rb_masks;

/* 0, or -1 when the graph is beyond 31 nodes or 64 tensor buffers. */
int rb_masks_init(const mp_graph *g, rb_masks *m);
void rb_masks_destroy(rb_masks *m);
int64_t rb_live(const mp_graph *g, uint64_t res);

/* The least duration of a valid plan with live_peak <= budget and no
 * copies.  order: NULL for any first-run order, else the first runs follow
 * it (the scope of a solver handed that order).  RB_FOUND with *duration
 * and an optimal plan (plan may be NULL); RB_INFEASIBLE when no plan
 * exists (every state explored); RB_TOO_BIG beyond 31 nodes, 64 tensor
 * buffers or max_states states. */
int rb_optimum(const mp_graph *g, int64_t budget, const int *order, long max_states,
               double *duration, mp_events *plan);

/* The same with copies (tests/remat_brute_copies.c): bandwidth > 0 bytes
 * per cost unit.  The duration is no longer a sum, so the search keeps, for
 * each state (nodes run, resident buffers, host copies), every vector of
 * clocks no other dominates (the issue floor, the three streams, per
 * resident buffer: ready, last reader's end, last out's end; clocks below
 * the floor count as the floor, which changes no later time) and expands
 * the one with the least lower bound (its latest end, or the compute
 * stream plus the costs of the nodes not yet run).  A second out of a
 * buffer with a host copy is never tried: it only delays.  Limits: 31
 * nodes, 16 tensor buffers, max_labels labels. */
int rb_optimum_copies(const mp_graph *g, int64_t budget, const int *order, double bandwidth,
                      long max_labels, double *duration, mp_events *plan);

#endif
