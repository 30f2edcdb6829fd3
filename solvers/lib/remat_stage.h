/* remat_stage.h - Checkmate's stage shape (Jain et al., MLSys'20) in
 * memplan's event model (DESIGN 6), shared by remat-ilp and remat-lp.
 *
 * The non-input nodes of the first-run order handed in stand at positions
 * 0..N-1.  Stage t < N ends with the first run of the node at position t;
 * before it the stage may run again nodes of earlier positions, each at
 * most once and in increasing position (Checkmate's shape; a plan in
 * general may rerun in any order and any number of times).  Stage N, the
 * tail, has no first run: it may run nodes again after the last first run,
 * to make graph outputs that were freed on the way (Checkmate has no tail).
 * The decisions:
 *   R[t][k]  the node at position k runs in stage t (k <= t, k < N;
 *            R[t][t] = 1 for t < N);
 *   S[t][b]  tensor buffer b is resident when stage t starts (t = 0..N+1;
 *            S[0] holds the inputs, S[N+1] is the end of the plan).
 * The frees follow from them: a buffer not kept into the next stage is freed
 * right after its last use in the stage (the run that makes it or its last
 * reader), or when the stage starts if the stage does not use it.  That is
 * the plan rs_decode writes and the memory remat_milp.h counts.
 *
 * What may run again: a node that owns a buffer, is no input, is outside
 * every in-place storage's alias set (DESIGN 6.2), and only in stages where
 * its outputs can still be read (last_stage); a view or a node without
 * outputs never needs a second run. */
#ifndef MP_LIB_REMAT_STAGE_H
#define MP_LIB_REMAT_STAGE_H

#include "events.h"

typedef struct rs_model {
  const mp_graph *g;
  int n_pos;        /* N: non-input nodes; stages 0..N (N: the tail) */
  int *node;        /* node at position p */
  int *pos;         /* position of node v; -1 for an input */
  int *order;       /* the first-run order handed in (all n nodes) */
  int nb;           /* tensor buffers: ids 0..nb-1 of g->bufs */
  int *own_pos;     /* per buffer: its owner's position; -1 for an input's */
  int *first_s;     /* per buffer: first stage it can be resident at the start of */
  int *last_s;      /* per buffer: last such stage it is useful at (N + 1: a graph
                       output; first_s - 1 when never) */
  bool *fixed_buf;  /* per buffer: cannot be made again (an input, in-place storage) */
  int *last_stage;  /* per position: last stage a run of it can help (its own when
                       it never runs again) */
  int64_t *size;    /* per buffer */
  int64_t *adds;    /* per position: bytes its run makes resident */
  int64_t *ws;      /* per position: its workspace */
  double *cost;     /* per position */
  /* per position, in increasing buffer id: what it reads, what it makes */
  int *rd_start, *rd;
  int *mk_start, *mk;
  /* per buffer: the positions of its readers, increasing */
  int *us_start, *us;
} rs_model;

void rs_model_init(rs_model *m, const mp_graph *g, const int *order);
/* The same, with reruns limited: position p runs again in no stage after
 * cap[p] (NULL: no limit; remat_strict.h's caps).  Every decision of the
 * model (R's columns, rs_complete, rs_greedy) goes through last_stage. */
void rs_model_init_capped(rs_model *m, const mp_graph *g, const int *order, const int *cap);
void rs_model_destroy(rs_model *m);

/* May the node at position k run in stage t? */
static inline bool rs_may_run(const rs_model *m, int t, int k) {
  return (k == t && t < m->n_pos) || (k < t && t <= m->last_stage[k]);
}
/* Is S[t][b] a decision (not a constant 0)? */
static inline bool rs_may_keep(const rs_model *m, int t, int b) {
  return t >= m->first_s[b] && t <= m->last_s[b];
}

/* Bytes a run of position k holds at its sample: what it reads, what it
 * makes, its workspace. */
int64_t rs_need(const rs_model *m, int k);
/* Does position k read or make buffer b?  Does it read b? */
bool rs_touches(const rs_model *m, int k, int b);
bool rs_reads(const rs_model *m, int k, int b);

/* Dense 0/1 decisions: R is (N+1) x N (row t), S is (N+2) x nb (row t). */
typedef struct rs_dec {
  int n_pos, nb;
  uint8_t *R, *S;
} rs_dec;

void rs_dec_init(const rs_model *m, rs_dec *d);
void rs_dec_destroy(rs_dec *d);
void rs_dec_copy(rs_dec *dst, const rs_dec *src); /* same model */
static inline uint8_t *rs_R(const rs_dec *d, int t, int k) { return &d->R[(size_t)t * d->n_pos + k]; }
static inline uint8_t *rs_S(const rs_dec *d, int t, int b) { return &d->S[(size_t)t * d->nb + b]; }

/* Turn S (what to keep at each stage start, a wish) into consistent
 * decisions, Checkmate's "R from S" made memplan's: S is cut to where it can
 * matter, buffers that cannot be made again are kept over their useful
 * range, a kept buffer not resident before is made in the stage before, every
 * run's reads are resident or made earlier in the stage (closure), and a
 * buffer whose owner runs in a stage is not also kept into it.  Returns 0,
 * or -1 when no consistent R exists (a wish the stage shape cannot meet). */
int rs_complete(const rs_model *m, rs_dec *d);

/* The decisions of a plan's stages: S[t] = the buffers resident when stage t
 * starts (after the first run of position t-1 and the frees behind it), R
 * from rs_complete.  A way to encode any plan without copies as a start for
 * the search (its memory in the stage shape may differ).  Returns 0 or -1. */
int rs_project(const rs_model *m, const mp_events *p, rs_dec *d);

/* The event plan of consistent decisions (see the header comment). */
void rs_decode(const rs_model *m, const rs_dec *d, mp_events *out);

/* rs_decode into c->events, the plan then checked (mp_remat_check, no
 * copies) and held to c->budget: 0, or -1 with c->events cleared and the
 * reason in c->msg. */
struct mp_ctx;
int rs_decode_checked(const rs_model *m, const rs_dec *d, struct mp_ctx *c);

/* The largest memory sample of each stage of the decoded plan of
 * consistent decisions (peak[0..N]; the start sample is in peak[0]), and
 * the position of that sample (at[t], -1 for the start).  The plan's
 * live_peak is their maximum. */
void rs_stage_peaks(const rs_model *m, const rs_dec *d, int64_t *peak, int *at);

/* A stage-shaped plan within `budget` by greedy eviction: start from the
 * keep-all decisions; while a sample is over the budget, at the first such
 * stage drop from its worst sample the kept buffer whose recomputation
 * (with its closure, rs_complete) costs least per byte it frees there, among
 * those that make progress (the first stage over budget moves later, or its
 * worst sample drops).  Stops at c's deadline (c may be NULL).  Returns 0
 * with d consistent and within budget, or -1. */
struct mp_ctx;
int rs_greedy(const rs_model *m, int64_t budget, const struct mp_ctx *c, rs_dec *d);

/* The run cost of the decisions: sum of cost over R. */
double rs_cost(const rs_model *m, const rs_dec *d);

/* The unit every cost is a multiple of (integral costs: their gcd), or 0.
 * Without copies a plan's duration is a sum of costs, so a multiple of it. */
double rs_cost_unit(const rs_model *m);
/* A bound v from a solver's floating point, made safe to state: rounded up
 * to the next multiple of unit when unit > 0 (less a tolerance), else
 * lowered by a relative 1e-9. */
double rs_bound_up(double v, double unit);

#endif
