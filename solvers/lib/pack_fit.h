/* pack_fit.h - the gap choice of first fit and best fit: given the address
 * spans of the placed items live with an item (in any order, possibly
 * overlapping), the offset it gets.  The gaps are those of the spans' union
 * below its top; first fit takes the lowest whose aligned start fits, best
 * fit the shortest such gap (ties: the lowest), and either, when none fits,
 * the aligned top.  When the union's top is at most MP_HEAD_BUCKETS k item
 * sizes above 0 (k spans), no sort: two passes keep each size-wide bucket's
 * lowest start and highest end (pack_fit.c says why that is exact); else
 * the spans are sorted by a bucket sort on their offsets (O(k) expected,
 * O(k log k) at worst). */
#ifndef MP_LIB_PACK_FIT_H
#define MP_LIB_PACK_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/pack.h"

typedef struct mp_span {
  int64_t lo, hi; /* address range [lo, hi) */
} mp_span;

/* A span whose ends fit 32 bits. */
typedef struct mp_span32 {
  uint32_t lo, hi;
} mp_span32;

/* Buckets per span in the sort of pack_fit.c; size-wide buckets per span (at
 * most) and in all when the gap choice needs no sort. */
enum { MP_SPAN_BUCKETS = 4, MP_HEAD_BUCKETS = 512, MP_HEAD_MAX = 1 << 20 };

/* Spans collected for one item, and scratch reused from item to item. */
typedef struct mp_spanbuf {
  mp_span *span, *sorted;
  mp_span32 *span32; /* the spans instead of `span` while `narrow` */
  bool narrow;       /* set by the adder that knows every end fits 32 bits */
  int n, cap;
  int *bucket;     /* bucket starts, MP_SPAN_BUCKETS cap + 1 */
  int *crowded;    /* buckets of more than 32 spans, then their starts */
  int *head_of;    /* in the fit without a sort, each span's size-wide bucket */
  uint64_t *head_used; /* the size-wide buckets a call touched (all 0 between
                          calls but for those of a bucketed query; head_cap
                          bits, a multiple of 64) */
  int *head_rank;      /* per word of head_used: the used buckets before it */
  int head_cap;
  /* while spans are added for an item of size bucket_size (> 1, else 0):
   * each span's bucket is noted in head_of and head_used as it comes (with
   * step bucket_step), so the fit need not read the spans an extra time */
  int64_t bucket_size;
  uint64_t bucket_step;
  bool sorted_ok;  /* `sorted` (or `span`, up to 32) holds the spans in order */
  int64_t headed;  /* calls of mp_fit_spans that needed no sort */
  int64_t top;     /* the largest hi, kept by mp_spanbuf_add */
} mp_spanbuf;

/* The size-wide buckets of an item of size s (> 1): bucket(x) = floor(x
 * step / 2^64) with step = ceil(2^64 / s), so two addresses in one bucket
 * are less than s apart (pack_fit.c). */
static inline uint64_t mp_head_step(int64_t s) {
  return (uint64_t)((((unsigned __int128)1 << 64) + (uint64_t)s - 1) / (uint64_t)s);
}
static inline int64_t mp_head_bucket(uint64_t step, int64_t x) {
  return (int64_t)(((unsigned __int128)(uint64_t)x * step) >> 64);
}

void mp_spanbuf_init(mp_spanbuf *b);
void mp_spanbuf_destroy(mp_spanbuf *b);
/* Forget the buckets noted since mp_spanbuf_bucket_as_added. */
void mp_spanbuf_unbucket(mp_spanbuf *b);
static inline void mp_spanbuf_clear(mp_spanbuf *b) {
  if (b->bucket_size) mp_spanbuf_unbucket(b);
  b->n = 0;
  b->narrow = false;
  b->top = 0;
  b->sorted_ok = false;
}
void mp_spanbuf_grow(mp_spanbuf *b, int need);
/* Note the buckets of an item of `size` for the spans added from now on,
 * until mp_fit_spans or mp_spanbuf_clear, every one starting below `below`
 * (the bitmap is grown to its bucket, so that the lifetime index's copy
 * needs no bound check; mp_spanbuf_add cuts a later bucket to the bitmap's
 * last, and the fit then takes them all again).  False (nothing to note)
 * when b holds spans already, size < 2, or below is MP_HEAD_MAX buckets or
 * more. */
bool mp_spanbuf_bucket_as_added(mp_spanbuf *b, int64_t size, int64_t below);
static inline void mp_spanbuf_note(mp_spanbuf *b, int i, int64_t lo) {
  int64_t k = mp_head_bucket(b->bucket_step, lo), cut = b->head_cap - 1;
  k = k < cut ? k : cut;
  b->head_of[i] = (int)k;
  b->head_used[k >> 6] |= 1ull << (k & 63);
}
/* Empty b's spans are kept in 32 bits from now on (every end added until
 * the next clear must fit). */
static inline void mp_spanbuf_narrow(mp_spanbuf *b) {
  if (b->n == 0) b->narrow = true;
}
static inline void mp_spanbuf_add(mp_spanbuf *b, int64_t lo, int64_t hi) {
  if (b->n == b->cap) mp_spanbuf_grow(b, b->n + 1);
  if (b->bucket_size) mp_spanbuf_note(b, b->n, lo);
  if (b->narrow) b->span32[b->n++] = (mp_span32){(uint32_t)lo, (uint32_t)hi};
  else b->span[b->n++] = (mp_span){lo, hi};
  if (hi > b->top) b->top = hi;
}

/* The offset for an item of `size` (> 0) and alignment `align` among the
 * spans of b (b's order is not kept); the buckets noted for another size
 * are dropped. */
int64_t mp_fit_spans(mp_spanbuf *b, int64_t size, int64_t align, enum mp_fit fit);

/* After mp_fit_spans: b's spans in address order (sorted now if that call
 * did not need to). */
const mp_span *mp_spanbuf_sorted(mp_spanbuf *b);

/* The gaps below the top of the union of n spans in address order: their
 * number, added to *gaps, and how many are at least `size` long, added to
 * *fitting. */
void mp_count_gaps(const mp_span *a, int n, int64_t size, int64_t *gaps, int64_t *fitting);

#endif
