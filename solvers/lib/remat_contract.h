/* remat_contract.h - Checkmate's MILP on large graphs: solve on a contracted
 * graph whose nodes are segments of consecutive positions of the first-run
 * order, then expand the plan back (used by remat-ilp and remat-lp).
 *
 * The contracted graph is a real mp_graph, so the stage model and the MILP
 * run on it unchanged:
 *   - each input node is copied (same outputs);
 *   - each segment is one node: it reads the buffers made outside it and read
 *     inside (external reads), it makes the buffers made inside and read
 *     outside or graph outputs (crossing outputs, in buffer-id order), its
 *     cost is the sum of its nodes' costs, and its workspace is what its
 *     nodes hold at their worst step beyond its crossing outputs (buffers
 *     made inside and still live, plus the node's workspace): the memory of
 *     a segment's run bounds the memory at every step of its expansion;
 *   - an `output` node is a segment of its own, copied as an output node;
 *     a graph without one gets an output node reading the graph outputs;
 *   - a segment holding a node of an in-place storage's alias set (DESIGN
 *     6.2: runs exactly once) is followed by a `pin`, a node that writes
 *     one of its crossing outputs in place, so the contracted graph runs that
 *     segment exactly once too.
 * Cuts: every position starts as its own segment; adjacent segments merge,
 * cheapest first, until `segments` remain.  A merge costs the length it
 * makes, less the bytes crossing the cut (cuts where little crosses are
 * kept), plus a penalty when it pins a rerunnable segment to a fixed one,
 * by the bytes it makes that are read much later.  Merges come last that
 * make a segment need more than half the budget and more than either part,
 * or make the bytes nothing can make again pass 0.9 x the budget somewhere;
 * a merge is never made when the segment would need more than the budget.
 * Expansion: a run of a segment is the runs of its nodes in order, each
 * buffer internal to the segment freed right after its last reader there
 * (a dead value right after its birth); a rerun skips the nodes that run
 * once and own no buffer (rc_strict_inert: in-place writers, parameters'
 * included); free/out/in of the contracted
 * buffers map one to one; pins and the added output node vanish.  The
 * duration is the contracted plan's. */
#ifndef MP_LIB_REMAT_CONTRACT_H
#define MP_LIB_REMAT_CONTRACT_H

#include "events.h"

struct mp_ctx;

typedef struct rc_contract {
  const mp_graph *g;  /* the original graph */
  mp_graph *cg;       /* the contracted graph */
  int *corder;        /* its first-run order: cg's node ids in order */
  int n_seg;          /* segments (output nodes included) */
  int n_pin;          /* pins added */
  int *seg_start;     /* positions of segment s: [seg_start[s], seg_start[s+1]) */
  int *node;          /* original non-input node at each position */
  int *seg_of;        /* per contracted node: its segment, or -1 (input, pin, added output) */
  int *orig_buf;      /* per contracted tensor buffer: the original buffer */
  int *free_start;    /* per position: internal buffers freed after its run, CSR */
  int *free_buf;
  uint8_t *inert;     /* per position, or NULL: a rerun of the segment skips the node
                       * there (rc_strict_inert) */
} rc_contract;

/* Contract g under the first-run order `order` into at most `segments`
 * segments; more when output nodes need their own, or when a merge would
 * make a segment need more than `budget` (INT64_MAX: none).  Returns 0, or
 * -1 with a message in err. */
int rc_build(rc_contract *r, const mp_graph *g, const int *order, int segments, int64_t budget,
             mp_error *err);
void rc_destroy(rc_contract *r);

/* The plan of the original graph from a plan of the contracted one; a
 * segment's runs after its first skip the inert positions (when set). */
void rc_expand(const rc_contract *r, const mp_events *cp, mp_events *out);

/* The stages of g: its non-input nodes. */
int rc_stages(const mp_graph *g);
/* Is a contraction wanted: above > 0 and the graph has more stages
 * (non-input nodes) than that? */
bool rc_wanted(const mp_graph *g, double above);

/* Solve c on a contraction into `segments` segments: `inner` answers a
 * context on the contracted graph (its own claims are about that graph and
 * are dropped), its plan is expanded, checked with mp_remat_check on the
 * original graph and held to the budget; a plan that fails is discarded.
 * When the contraction has no plan (not for the time limit or a size cap),
 * one with twice as many segments is tried, while time remains.
 * Status: optimal only when no node runs twice (the duration floor),
 * else feasible or timeout; never infeasible.  c->duration_bound must hold
 * a bound valid for the original graph (mp_remat_settled sets the floor).
 * strict: no rerun may be stale (remat_strict.h); `inner` then gets the
 * caps of the contraction's positions (rc_strict_caps; else NULL) for
 * rs_model_init_capped.
 * Returns 0 with c->events set, or -1 with the reason in c->msg. */
typedef int (*rc_inner)(struct mp_ctx *sub, const int *cap);
int rc_solve(struct mp_ctx *c, int segments, bool strict, rc_inner inner);

#endif
