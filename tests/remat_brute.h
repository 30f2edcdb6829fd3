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

/* The least duration of a valid plan with live_peak <= budget and no
 * copies.  order: NULL for any first-run order, else the first runs follow
 * it (the scope of a solver handed that order).  RB_FOUND with *duration
 * and an optimal plan (plan may be NULL); RB_INFEASIBLE when no plan
 * exists (every state explored); RB_TOO_BIG beyond 31 nodes, 64 tensor
 * buffers or max_states states. */
int rb_optimum(const mp_graph *g, int64_t budget, const int *order, long max_states,
               double *duration, mp_events *plan);

#endif
