/* stale.h - DTR's candidates indexed so that an eviction looks at a few of
 * them, not at every resident buffer, and still picks the very buffer a
 * full scan would.
 *
 * DTR evicts the smallest h(b) = C(b) / (size(b) x stale(b)), where C(b) >=
 * c0(b), the cost of b's producer alone.  So h(b) >= 1 / (a(b) x stale(b))
 * with a(b) = size(b) / c0(b), a per-buffer constant.  The buffers are put
 * in buckets by the binary exponent of a(b) (a(b) < 2^e in bucket e), and
 * each bucket keeps its resident buffers in order of their last access.
 * The clock only grows, so an access moves a buffer to its bucket's tail
 * and each bucket stays sorted by staleness, the stalest first: walking a
 * bucket from its head, the bound 1 / (2^e x stale) only grows, and once it
 * exceeds the best h found, nothing further in that bucket can win or tie.
 * Buffers whose producer costs nothing (a(b) infinite: no bound) sit in a
 * bucket that is always walked whole.  Every update is O(1); a query walks
 * the buckets (a few dozen) and the buffers whose bound is below the best. */
#ifndef MP_DTR_STALE_H
#define MP_DTR_STALE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct dtr_stale {
  int nb, nk;        /* buffers, buckets */
  int *bucket;       /* per buffer: its bucket, -1 for a buffer never indexed */
  int *prev, *next;  /* the bucket's list (-1 ends it) */
  bool *in;          /* listed now */
  int *head, *tail;  /* per bucket */
  double *upper;     /* per bucket: 2^e (a(b) < 2^e); 0 for the unbounded bucket */
  int *order;        /* scratch: buckets in query order */
  double *key;       /* scratch: per bucket, the bound at its head */
} dtr_stale;

/* Index the buffers with indexed[b] true; size and producer cost give a(b). */
void dtr_stale_init(dtr_stale *s, int nb, const bool *indexed, const int64_t *size,
                    const double *owner_cost);
void dtr_stale_destroy(dtr_stale *s);
/* b was made resident or read now (its last access is the current clock). */
void dtr_stale_touch(dtr_stale *s, int b);
/* b stopped being resident. */
void dtr_stale_remove(dtr_stale *s, int b);

/* The candidate walk: the caller evaluates each buffer `visit` hands it and
 * keeps its best h; the walk of a bucket stops at the first buffer whose
 * bound exceeds the best h so far.  stale_of(b) is the caller's staleness
 * (clock - last access, the same expression as its h). */
typedef double (*dtr_stale_fn)(int b, void *ctx);
typedef void (*dtr_visit_fn)(int b, void *ctx);
void dtr_stale_walk(dtr_stale *s, dtr_stale_fn stale_of, dtr_visit_fn visit, const double *best_h,
                    void *ctx);

#endif
