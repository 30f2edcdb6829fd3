/* remat_info.h - what the recomputation heuristics know of a graph under a
 * first-run order (DESIGN 6): positions, the uses of every buffer, which
 * buffers may be dropped and brought back (by a rerun of their producer or
 * from a host copy), the turn between forward and backward, and the
 * forward frontier (the buffers that cross each point of the forward).
 *
 * Positions: the non-input nodes of the order, numbered 0 .. m-1 in order
 * (an input never runs).  A buffer's events are its production position
 * (-1 for an input buffer, resident at the start) followed by the distinct
 * positions of the nodes that read it, ascending; an event index e of
 * buffer b lies in [ev_start[b], ev_start[b + 1]).
 *
 * Decisions (also in the README's semantics list, under the solvers):
 * - A node is rerun only when it is not an input, not part of an in-place
 *   storage's alias set (DESIGN 6.2), owns a buffer, and no in-place write
 *   into a storage it reads comes after its first run: a rerun would read
 *   overwritten data (the verifier allows it; a real run would be wrong).
 * - A buffer may be dropped and recomputed (RI_DROP) when its producer may
 *   rerun and every buffer a chain of reruns could need is still there at
 *   its last use: its anchor (the earliest last use among the buffers that
 *   cannot be recomputed, reached through the producer's reads and through
 *   droppable buffers) is not before its own last use.
 * - A buffer may be offloaded (RI_SWAP) unless it is an in-place storage.
 * - The turn: with phases in the graph, the first position of a node that
 *   is not `fwd`.  Without, the position after the graph output made first
 *   (a training step's loss), when the keep-all plan holds at least half
 *   its peak there; else the first position before which the keep-all plan
 *   holds the most bytes.  The forward is [0, turn). */
#ifndef MP_REMAT_INFO_H
#define MP_REMAT_INFO_H

#include "solver.h"

enum {
  RI_PINNED = 1, /* an in-place storage: made once, freed after its last reader */
  RI_DROP = 2,   /* may be freed early and recomputed */
  RI_SWAP = 4,   /* may be offloaded */
  RI_OUTPUT = 8, /* a graph output: resident at the end */
  RI_INPUT = 16, /* resident at the start, never recomputed */
  RI_TENSOR = 32, /* a tensor buffer (not a workspace) */
  RI_HOLD = 64,   /* an input that only forward nodes read, which a driver may
                     keep past its last reader (ri_init_hold) */
  RI_FWD = 128    /* made in the forward (ri_fwd_buf) */
};

typedef struct ri_info {
  const mp_graph *g;
  int n, nb, m;          /* nodes, buffers, positions */
  int *seq;              /* seq[p]: the node at position p */
  int *pos;              /* pos[v]: its position, -1 for an input */
  int *own_start, *own;  /* per node: the tensor buffers it makes (CSR) */
  int *rd_start, *rd;    /* per node: the buffers it reads, g->reads as one
                            array (CSR): every pass stays in cache */
  int *ev_start, *ev;    /* per buffer: production, then uses (CSR) */
  int *last_use;         /* last event position; m for a graph output */
  int *anchor;           /* see RI_DROP; m when nothing limits it */
  int64_t *size;         /* bytes */
  double *cost;          /* per node */
  uint8_t *flags;        /* per buffer: RI_* */
  int *owner;            /* per buffer: the node that makes it (g->bufs[b].owner,
                            kept here: the builder's loops stay in cache) */
  bool *rerun;           /* per node: may run again */
  int turn;
  /* forward frontier: after position i < turn, the buffers made at or
   * before i (no input) that a forward node after i reads */
  int *front_count;      /* per position in [0, turn) */
  int64_t *front_bytes;
  int *front_one;        /* the buffer when front_count is 1, else -1 */
  int64_t ws_max;        /* largest workspace */
} ri_info;

/* order: a topological order of all n nodes (inputs anywhere). */
void ri_init(ri_info *ri, const mp_graph *g, const int *order);
/* The same for a driver that keeps inputs past their last reader when it
 * needs them (rotor's chain holds its input as a checkpoint): an input
 * that only forward nodes read is RI_HOLD, and it limits no anchor, so
 * what is computed from it may be dropped (RI_DROP) as long as the driver
 * keeps the input (rx_exec.keep).  ri_init's flags are unchanged. */
void ri_init_hold(ri_info *ri, const mp_graph *g, const int *order);
void ri_destroy(ri_info *ri);

static inline int ri_nreads(const ri_info *ri, int v) { return ri->rd_start[v + 1] - ri->rd_start[v]; }
static inline int ri_read(const ri_info *ri, int v, int k) { return ri->rd[ri->rd_start[v] + k]; }
static inline int ri_owner(const ri_info *ri, int b) { return ri->owner[b]; }
static inline int ri_prod(const ri_info *ri, int b) { return ri->ev[ri->ev_start[b]]; }
static inline int64_t ri_ws(const ri_info *ri, int v) {
  int w = ri->g->ws_buf[v];
  return w >= 0 ? ri->g->bufs[w].size : 0;
}
/* Bytes v's run adds: its tensors and its workspace. */
int64_t ri_run_bytes(const ri_info *ri, int v);
/* Is position p's node a forward node, is buffer b made in the forward? */
static inline bool ri_fwd_buf(const ri_info *ri, int b) { return ri->flags[b] & RI_FWD; }

/* The keep-all plan's bytes resident just before each position
 * (out[m]: at the end); out has m + 1 entries. */
void ri_keepall_before(const ri_info *ri, int64_t *out);

/* The storage node v writes in place or views (its alias), or -1 (a
 * parameter, or no alias). */
int ri_alias_root(const mp_graph *g, int v);
/* The start every events solver shares: c->events cleared, duration_bound
 * set; when the budget is below mp_events_floor (a proof that no plan
 * fits) the status is infeasible and the function returns 1; a stage
 * without a graph fails (-1 with c->msg); else 0. */
int ri_begin(mp_ctx *c, const char *who);
/* The claim at the end: optimal when the plan's own duration meets
 * duration_bound (every node once, no stall); else timeout once the
 * stage's deadline has passed (the clock may have cut the search, and the
 * same seed need not give the same plan), else feasible. */
void ri_claim(mp_ctx *c, double duration);
/* Does a plan of that duration meet c->duration_bound (less rounding)? */
bool ri_meets(const mp_ctx *c, double duration);
/* c->msg after `note` (a claim on the whole graph first: what was there
 * may be cut short). */
void ri_note_first(mp_ctx *c, const char *note);
/* The end without a plan (c->msg says why): -1, with status timeout when
 * the stage's deadline has passed (the limit stopped the search before a
 * plan, which proves nothing either way), else the harness's error. */
int ri_no_plan(mp_ctx *c);
/* A plan's duration without a host link (no copies, no stall): the sum of
 * its runs' costs; the solver's own figure, not the judge's. */
double ri_runs_cost(const mp_graph *g, const mp_events *p);

#endif
