/* stale.h - DTR's candidates indexed so that an eviction looks at a few of
 * them, not at every resident buffer, and still picks the very buffer a
 * full scan would.
 *
 * DTR evicts the smallest h(b) = C(b) / (size(b) x stale(b)).  The index
 * keeps, per buffer, a cost L(b) <= C(b): the cost of b's producer alone
 * (c0, C's floor) until the caller raises it to a C it has computed.  Then
 * h(b) >= 1 / f_b(now) with f_b(x) = a(b) x (x - last access(b)) and a(b) =
 * size(b) / L(b): a line in the clock.  A kinetic tournament tree over the
 * buffers keeps, in each node, the buffer of its subtree whose line is
 * highest now, with the clock at which a lower line would overtake it (the
 * node's certificate, taken early by far more than the rounding); when the
 * clock passes a certificate the node is compared again.  A walk descends
 * from the root into the nodes whose best bound is not above the best h
 * found, so it visits the buffers that can win or tie and few others.
 * Buffers with L = 0 (no bound) sit in a list that is always walked whole.
 *
 * The raised costs stay valid while C only grows: the caller resets them
 * to c0 (dtr_stale_reset) whenever a cost can fall.  Once raised, a
 * buffer's bound is its h, and the walk passes it over until it can win. */
#ifndef MP_DTR_STALE_H
#define MP_DTR_STALE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct dtr_raise {
  int b;
  double cost;
} dtr_raise;

typedef struct dtr_stale {
  int nb, leaves; /* buffers; leaves of the tree, a power of two >= nb */
  double now;     /* the latest clock seen */
  int64_t *size;
  double *c0;    /* per buffer: its producer's cost */
  double *cost;  /* per buffer: L, c0 <= L <= C */
  double *slope; /* per buffer: size / L (infinite for L = 0) */
  double *last;  /* per buffer: its last access */
  bool *indexed, *listed; /* a candidate at all; resident now */
  int *win;               /* per node: the highest line of its subtree now, -1 none */
  double *fail, *minfail; /* per node: its certificate; the least of its subtree's */
  int *free_b, n_free, *free_pos; /* listed buffers with L = 0 */
  int *raised, n_raised;          /* buffers whose L is above c0 */
  bool *is_raised;
  dtr_raise *pending; /* raises asked for during a walk, applied after it */
  int n_pending, cap_pending;
  int walks_since_reset;
  int *stack; /* scratch: the walk */
} dtr_stale;

/* Index the buffers with indexed[b] true; L starts at the producer cost. */
void dtr_stale_init(dtr_stale *s, int nb, const bool *indexed, const int64_t *size,
                    const double *owner_cost);
void dtr_stale_destroy(dtr_stale *s);
/* b was made resident or read at time `when` (the clock only grows). */
void dtr_stale_touch(dtr_stale *s, int b, double when);
/* b stopped being resident. */
void dtr_stale_remove(dtr_stale *s, int b);
/* Some C may have fallen: every L back to its producer's cost. */
void dtr_stale_reset(dtr_stale *s);

/* The candidate walk at clock `now`: the caller evaluates each buffer
 * `visit` hands it, keeps its best h in *best_h, and returns the C it
 * computed (below 0: none); that C becomes the buffer's L once the walk is
 * over.  A buffer's staleness is now - its last access (the caller's h must
 * use the same expression). */
typedef double (*dtr_visit_fn)(int b, void *ctx);
void dtr_stale_walk(dtr_stale *s, double now, dtr_visit_fn visit, const double *best_h, void *ctx);

#endif
