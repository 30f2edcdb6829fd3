/* exact.h - remat-exact's search (private to solvers/remat_exact/).
 *
 * A best-first (A*) search over labels: a state (nodes run at least once,
 * resident buffers, buffers with a host copy) and the clocks of DESIGN
 * 6.3's simulation that later events can still see.  Without copies the
 * duration is the sum of the runs' costs, a function of the path's length
 * alone, so one clock (the compute stream) is the label.  With copies it is
 * not: a free holds the issue of later events until the readers of its
 * buffer end, an out waits for its buffer to be ready, an in for its out,
 * so two paths to one state can leave different clocks, and neither need be
 * better.  The search then keeps, per state, every clock vector no other
 * dominates (the issue floor, the three streams, the latest end, and per
 * resident buffer its ready time, its last reader's end and its last out's
 * end; clocks below the floor count as the floor, which changes no later
 * time since every later event starts at or after the floor).  Every later
 * time is a max of these clocks plus durations, so a label whose clocks are
 * all no later than another's, in the same state, is never worse.
 *
 * Exactness: the first goal label taken from the queue is optimal, since
 * its key (a lower bound on every completion: the latest end so far, and
 * the compute stream plus the costs of every node that must still run) is
 * admissible.  The search only skips plans another plan it keeps is at least
 * as good as:
 * - an `out` right before a run or an `in` (they commute: other streams,
 *   and an out changes no memory), an `in b` right before a run that does
 *   not read b (the run moved before it samples less memory, same times),
 *   frees in a row out of buffer-id order (they commute);
 * - a second `out` of a buffer with a host copy (it only delays), copies of
 *   a buffer no later run needs, reruns of a node no later run needs
 *   (removing a run or a copy delays nothing and samples less);
 * - without copies: a buffer nothing needs any more is freed at once, and
 *   frees sit right before a run (no sample between, no time in frees);
 * - a dead value (nobody reads it) is freed right after the run that makes
 *   it (its free waits for nothing);
 * - states where a buffer still needed is gone for good (no host copy, and
 *   its owner cannot run again).
 * When the queue runs dry, no plan within the budget exists (`infeasible`,
 * a proof). */
#ifndef MP_REMAT_EXACT_H
#define MP_REMAT_EXACT_H

#include "events.h"
#include "lib/iheap.h"
#include "solver.h"

#define RX_MAX 64 /* nodes and tensor buffers: one bit each */

/* What the search knows of the graph, as bit masks. */
typedef struct rx_graph {
  int n, nb;
  uint64_t *readm, *ownm, *deadm; /* per node: buffers read / made / made and never read */
  uint64_t *anc;                   /* per node: its ancestors (data and in-place edges) */
  int64_t *adds, *ws;              /* per node: bytes its run makes resident, workspace */
  double *cost;
  bool *rerun;                     /* per node: may run again */
  int *nonin;                      /* the non-input nodes in first-run order */
  int n_nonin;
  uint64_t readersm[RX_MAX];       /* per buffer: nodes that read it */
  int owner[RX_MAX];
  int64_t size[RX_MAX];
  bool inplace[RX_MAX];            /* per buffer: written in place */
  uint64_t outputs, inputs, all_ran;
  double bw;                       /* bytes per cost unit; 0: no copies */
} rx_graph;

/* Clock slots of a label: the fixed ones, then 3 per resident buffer in
 * increasing id (ready, last reader's end, last out's end). */
enum { RX_FLOOR = 0, RX_COMPUTE, RX_TO_HOST, RX_FROM_HOST, RX_END, RX_FIXED };

/* The event that led to a label, and what it forbids next (canonical
 * order). */
typedef struct rx_label {
  uint64_t ran, res, host;
  double key;          /* lower bound on the duration of every completion */
  int64_t clk;         /* offset of its clocks in the pool */
  int parent;
  int8_t kind;         /* MP_EV_*, -1 at the start */
  int8_t id;           /* node (run) or buffer */
  bool dead, expanded;
} rx_label;

typedef struct rx_search {
  const rx_graph *G;
  int64_t budget;
  rx_label *l;
  int n_l, cap_l;
  double *pool;        /* clocks */
  int64_t n_pool, cap_pool;
  /* per state: the labels of that state (bucket[i][0] = count) */
  int **bucket;
  uint64_t *key_ran, *key_res, *key_host;
  size_t cap_tab;
  mp_iheap queue;      /* labels by key (pops_first) */
  long max_labels;
  size_t max_bytes;
  bool full;           /* a size cap was hit */
} rx_search;

/* labels.c */
void rx_search_init(rx_search *s, const rx_graph *G, int64_t budget, long max_labels, size_t max_bytes);
void rx_search_destroy(rx_search *s);
int rx_nclocks(const rx_graph *G, uint64_t res);
/* Queue a new label (clocks in clk, key filled) unless a label of its state
 * with the same or a weaker restriction on what follows dominates it. */
void rx_offer(rx_search *s, const rx_label *x, const double *clk);
int rx_pop(rx_search *s); /* -1 when empty */

/* expand.c */
void rx_expand(rx_search *s, int k);
double rx_key(const rx_graph *G, uint64_t ran, uint64_t res, uint64_t host, const double *clk);
bool rx_goal(const rx_graph *G, const rx_label *x);
/* Buffers some later run (or the end) needs in this state. */
uint64_t rx_needed(const rx_graph *G, uint64_t ran, uint64_t res);

#endif
