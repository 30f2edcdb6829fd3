/* sim.h - incremental simulation of an order being built, for schedulers:
 * the state after a prefix of the order (which nodes ran, the live bytes,
 * how many readers of each buffer are still to run), in O(degree) a step.
 * The evaluator does not use it: it recomputes lifetimes from the order. */
#ifndef MP_LIB_SIM_H
#define MP_LIB_SIM_H

#include "lifetime.h"

typedef struct mp_sim {
  const mp_graph *g;
  int steps;            /* nodes run so far */
  int64_t live;         /* bytes live after the last step */
  int64_t peak;         /* max M(t) so far */
  int64_t dead_inputs;  /* input buffers nobody reads: freed after step 0 */
  /* per node, from the graph once (read-only): the bytes of the tensors it
   * makes (not the inputs born at the start), of those nobody reads, and
   * its workspace.  A step reads these instead of the node's record, its
   * outputs' roots and their buffers: at 10^6 nodes those dependent loads
   * missed the cache on almost every step (mp_sim_cost 25x its time at
   * 10^5 in greedy's profile). */
  int64_t *own, *own_dead, *ws;
  int *remaining;       /* per buffer: readers not yet run */
  int *missing;         /* per node: predecessors not yet run */
  bool *done;           /* per node */
} mp_sim;

void mp_sim_init(mp_sim *s, const mp_graph *g);
void mp_sim_destroy(mp_sim *s);
/* M(t) if v ran next (returned) and the live bytes after it (*after). */
int64_t mp_sim_cost(const mp_sim *s, int v, int64_t *after);
/* Run v (must be ready). */
void mp_sim_run(mp_sim *s, int v);
/* The same when the caller keeps what v's step frees: `freed`, the bytes
 * mp_sim_cost would count (v's dead outputs and the buffers it reads last)
 * but the dead graph inputs, which this adds at the first step. */
void mp_sim_run_freeing(mp_sim *s, int v, int64_t freed);
/* A scheduler's own check of an order (independent of the verifier): a
 * permutation of the nodes in which every node comes after its
 * predecessors (data and in-place edges).  *peak (if not NULL) gets its
 * live peak when it is valid. */
bool mp_sim_order_ok(const mp_graph *g, const int *order, int64_t *peak);
static inline bool mp_sim_ready(const mp_sim *s, int v) {
  return !s->done[v] && s->missing[v] == 0;
}

#endif
