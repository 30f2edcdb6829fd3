/* pack_fit.c - see pack_fit.h. */
#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pack_fit.h"
#include "util.h"

void mp_spanbuf_init(mp_spanbuf *b) {
  b->span = b->sorted = NULL;
  b->span32 = NULL;
  b->narrow = false;
  b->bucket = b->crowded = NULL;
  b->head_of = NULL;
  b->head_used = NULL;
  b->head_rank = NULL;
  b->head_cap = 0;
  b->bucket_size = 0;
  b->bucket_step = 0;
  b->n = b->cap = 0;
  b->sorted_ok = false;
  b->headed = 0;
  b->top = 0;
}

void mp_spanbuf_destroy(mp_spanbuf *b) {
  free(b->span);
  free(b->span32);
  free(b->sorted);
  free(b->bucket);
  free(b->crowded);
  free(b->head_of);
  free(b->head_used);
  free(b->head_rank);
  mp_spanbuf_init(b);
}

void mp_spanbuf_grow(mp_spanbuf *b, int need) {
  if (need <= b->cap) return;
  int cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  b->span = mp_xrealloc(b->span, sizeof(mp_span) * (size_t)cap);
  b->span32 = mp_xrealloc(b->span32, sizeof(mp_span32) * (size_t)cap);
  b->sorted = mp_xrealloc(b->sorted, sizeof(mp_span) * (size_t)cap);
  b->bucket = mp_xrealloc(b->bucket, sizeof(int) * (MP_SPAN_BUCKETS * (size_t)cap + 1));
  b->crowded = mp_xrealloc(b->crowded, sizeof(int) * (size_t)cap);
  b->head_of = mp_xrealloc(b->head_of, sizeof(int) * (size_t)cap);
  b->cap = cap;
}

static int cmp_span_lo(const void *x, const void *y) {
  int64_t a = ((const mp_span *)x)->lo, c = ((const mp_span *)y)->lo;
  return (a > c) - (a < c);
}

/* By lo; the order of equal lo does not change the union's gaps.  Fast
 * when the spans are nearly in order. */
static void insertion_sort(mp_span *a, int n) {
  for (int i = 1; i < n; i++) {
    mp_span x = a[i];
    int j = i - 1;
    while (j >= 0 && a[j].lo > x.lo) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

/* x rounded up to a multiple of al; a mask when al is a power of two (the
 * usual case), as a division on every candidate gap is slow. */
static inline int64_t round_up(int64_t x, int64_t al, int64_t mask) {
  return mask >= 0 ? (x + mask) & ~mask : mp_align_up(x, al);
}

/* The scans of the union in address order: cur is the end of the union so
 * far; a span starting above cur closes the gap [cur, span.lo).  They
 * return the offset chosen.  First fit: the lowest gap that fits; a branch
 * on each span, taken about once (the state in locals, the running end a
 * max without a branch). */
static int64_t scan_first(const mp_span *a, int n, int64_t size, int64_t al, int64_t mask) {
  int64_t cur = 0;
  for (int i = 0; i < n; i++) {
    int64_t lo = a[i].lo, hi = a[i].hi;
    if (lo - cur >= size) { /* else the gap is too short, aligned or not */
      int64_t cand = round_up(cur, al, mask);
      if (cand + size <= lo) return cand;
    }
    cur = hi > cur ? hi : cur;
  }
  return round_up(cur, al, mask);
}

/* Best fit: the shortest gap that fits, ties the lowest.  A chunk of spans
 * at a time, the gaps at least `size` long are listed without a branch,
 * then those are tried: a branch on each span mispredicted at every such
 * gap (one span in ten or so, at random); at 10^5 nodes of gen layered the
 * scan then takes 0.83x the cycles (rdtsc, both scans on the same heads).
 * First fit stops at its gap and is better off with the branch (a chunk
 * made its scan 1.8x slower). */
enum { SCAN_CHUNK = 256 };
static int64_t scan_best(const mp_span *a, int n, int64_t size, int64_t al, int64_t mask) {
  int64_t cur = 0, best = -1, best_gap = INT64_MAX;
  int64_t from[SCAN_CHUNK], to[SCAN_CHUNK]; /* [cur, lo) of each long gap */
  for (int c = 0; c < n; c += SCAN_CHUNK) {
    int end = n - c < SCAN_CHUNK ? n : c + SCAN_CHUNK;
    ptrdiff_t m = 0;
    for (int i = c; i < end; i++) {
      int64_t lo = a[i].lo, hi = a[i].hi;
      from[m] = cur;
      to[m] = lo;
      m += lo - cur >= size; /* else the gap is too short, aligned or not */
      cur = hi > cur ? hi : cur;
    }
    for (ptrdiff_t q = 0; q < m; q++) {
      int64_t cand = round_up(from[q], al, mask), len = to[q] - from[q];
      if (cand + size > to[q] || len >= best_gap) continue;
      if (len == size) return cand; /* no later gap beats an exact fit */
      best = cand;
      best_gap = len;
    }
  }
  return best >= 0 ? best : round_up(cur, al, mask);
}

static int64_t scan_spans(const mp_span *a, int n, int64_t size, int64_t al, enum mp_fit fit) {
  int64_t mask = (al & (al - 1)) == 0 ? al - 1 : -1;
  return fit == MP_FIRST_FIT ? scan_first(a, n, size, al, mask) : scan_best(a, n, size, al, mask);
}

/* Bucket sort by lo scaled to [0, 4k) (every lo is below top): scatter, sort
 * the rare crowded buckets with qsort, then one insertion sort over
 * everything (a span only moves within its bucket).  4k buckets, not 2k:
 * greedy + bysize on gen layered then takes 0.94-0.95x the CPU time at 10^5
 * and 10^6 nodes (side by side; 8k is no better, k and fewer are slower). */
static void sort_bucketed(mp_spanbuf *b) {
  int k = b->n, nb = MP_SPAN_BUCKETS * k;
  /* bucket(lo) = floor(lo * nb / top) as one multiply: lo * m >> 64 */
  uint64_t m = (uint64_t)(((unsigned __int128)nb << 64) / (uint64_t)b->top);
#define BUCKET(lo) ((int)(((unsigned __int128)(uint64_t)(lo) * m) >> 64))
  int *start = b->bucket, n_crowded = 0;
  for (int i = 0; i <= nb; i++) start[i] = 0;
  for (int i = 0; i < k; i++) {
    int bk = BUCKET(b->span[i].lo);
    if (++start[bk + 1] == 33) b->crowded[n_crowded++] = bk;
  }
  for (int i = 0; i < nb; i++) start[i + 1] += start[i];
  for (int c = 0; c < n_crowded; c++) /* remember where they begin */
    b->crowded[c + n_crowded] = start[b->crowded[c]];
  for (int i = 0; i < k; i++) b->sorted[start[BUCKET(b->span[i].lo)]++] = b->span[i];
#undef BUCKET
  /* start[bk] is now the end of bucket bk */
  for (int c = 0; c < n_crowded; c++) {
    int from = b->crowded[c + n_crowded], to = start[b->crowded[c]];
    qsort(b->sorted + from, (size_t)(to - from), sizeof(mp_span), cmp_span_lo);
  }
  insertion_sort(b->sorted, k);
}

/* popcount as one instruction where the processor has it (a resolver picks
 * the clone when the program starts); elsewhere the compiler's fallback. */
#if defined(__x86_64__) && defined(__GNUC__) && MP_CLONES_OK
#define MP_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define MP_POPCNT_CLONES
#endif

/* The used buckets' bitmap `used` (words of it) turned into ranks: rank[w]
 * = used buckets before word w; returns their number. */
static inline int rank_words(const uint64_t *used, int words, int *rank) {
  int u = 0;
  for (int w = 0; w < words; w++) {
    rank[w] = u;
    u += __builtin_popcountll(used[w]);
  }
  return u;
}

/* head_used grown to `bits` buckets at least (a multiple of 64), the new
 * words 0. */
static void grow_used(mp_spanbuf *b, int bits) {
  if (bits <= b->head_cap) return;
  int cap = b->head_cap ? b->head_cap : 1024;
  while (cap < bits) cap *= 2;
  b->head_used = mp_xrealloc(b->head_used, sizeof(uint64_t) * (size_t)(cap / 64));
  b->head_rank = mp_xrealloc(b->head_rank, sizeof(int) * (size_t)(cap / 64));
  for (int w = b->head_cap / 64; w < cap / 64; w++) b->head_used[w] = 0;
  b->head_cap = cap;
}

bool mp_spanbuf_bucket_as_added(mp_spanbuf *b, int64_t size, int64_t below) {
  if (b->bucket_size) mp_spanbuf_unbucket(b);
  if (b->n > 0 || size < 2) return false;
  uint64_t step = mp_head_step(size);
  int64_t last = mp_head_bucket(step, below);
  if (last >= MP_HEAD_MAX) return false;
  grow_used(b, (int)last + 1);
  b->bucket_size = size;
  b->bucket_step = step;
  return true;
}

/* Each span's bucket's word emptied: only the words touched, as the
 * bitmap may be far larger than the spans are many. */
void mp_spanbuf_unbucket(mp_spanbuf *b) {
  for (int i = 0; i < b->n; i++) b->head_used[b->head_of[i] >> 6] = 0;
  b->bucket_size = 0;
}

/* Each bucket's lowest start and highest end, at the bucket's rank among
 * the used ones; inlined twice, with `wide` or `narrow` NULL, so each loop
 * reads one width. */
static inline __attribute__((always_inline)) void
heads_of(const uint64_t *used, const int *rank, const int *restrict bucket, const mp_span *wide,
         const mp_span32 *narrow, int n, mp_span *restrict head) {
  for (int i = 0; i < n; i++) {
    unsigned k = (unsigned)bucket[i]; /* unsigned and size_t: no sign extensions */
    size_t w = k >> 6, r = (size_t)rank[w] + (size_t)__builtin_popcountll(used[w] & ((1ull << (k & 63)) - 1));
    mp_span *x = &head[r];
    int64_t lo = wide ? wide[i].lo : narrow[i].lo, hi = wide ? wide[i].hi : narrow[i].hi;
    x->lo = lo < x->lo ? lo : x->lo;
    x->hi = hi > x->hi ? hi : x->hi;
  }
}

/* The fit without a sort, when the union's top lies in bucket < MP_HEAD_BUCKETS
 * per span (and < MP_HEAD_MAX), bucket(x) = floor(x m / 2^64) with m =
 * ceil(2^64 / size): two starts in one bucket are less than `size` apart.  A
 * gap of the union ends at a span's start L; if another span of L's bucket
 * started below L, that span ends above the bucket's first address and at
 * most at the gap's start, so the gap is shorter than `size` and fits
 * nothing.  So the gaps that fit end at the buckets' lowest starts, and the
 * union below such a start is the highest end in the buckets before:
 * scan_spans over the buckets' (lowest lo, highest hi) in bucket order
 * chooses what it chooses over the sorted spans.  False (nothing done) when
 * the buckets would be too many.
 * The heads are kept densely, at the rank of their bucket among the used
 * ones (a bitmap of the used buckets, then popcounts), not in an array of
 * every bucket: that array (16 bytes a bucket, about 18 buckets a span)
 * missed the cache on most spans; the dense one stays in it.  Greedy by
 * size at 10^5 then places in about 0.85x the time (in-process A/B).
 * The buckets come noted by the query when it knew the size (one pass
 * over the spans less), else from a first pass here. */
MP_POPCNT_CLONES
static bool fit_by_heads(mp_spanbuf *b, int64_t size, int64_t al, enum mp_fit fit, int64_t *out) {
  if (size < 2 || b->top <= 0) return false;
  uint64_t m = mp_head_step(size);
  int64_t last = mp_head_bucket(m, b->top);
  if (last >= (int64_t)MP_HEAD_BUCKETS * b->n || last >= MP_HEAD_MAX) return false;
  int nb = (int)last + 1, words = (nb + 63) / 64, n = b->n;
  int *restrict bucket = b->head_of;
  if (b->bucket_size != size || nb > b->head_cap) { /* not noted, or cut */
    if (b->bucket_size) mp_spanbuf_unbucket(b);
    grow_used(b, nb);
    for (int i = 0; i < n; i++) {
      int64_t lo = b->narrow ? b->span32[i].lo : b->span[i].lo;
      int k = (int)mp_head_bucket(m, lo); /* <= last < MP_HEAD_MAX */
      bucket[i] = k;
      b->head_used[k >> 6] |= 1ull << (k & 63);
    }
  }
  b->bucket_size = 0;
  uint64_t *used = b->head_used;
  mp_span *restrict head = b->sorted;
  int *restrict rank = b->head_rank;
  int u = rank_words(used, words, rank);
  for (int r = 0; r < u; r++) head[r] = (mp_span){INT64_MAX, 0};
  if (b->narrow) heads_of(used, rank, bucket, NULL, b->span32, n, head);
  else heads_of(used, rank, bucket, b->span, NULL, n, head);
  for (int w = 0; w < words; w++) used[w] = 0; /* left empty for the next call */
  *out = scan_spans(head, u, size, al, fit);
  b->headed++;
  return true;
}

/* b's spans at 64 bits again. */
static void widen(mp_spanbuf *b) {
  for (int i = 0; i < b->n; i++) b->span[i] = (mp_span){b->span32[i].lo, b->span32[i].hi};
  b->narrow = false;
}

static void sort_spans(mp_spanbuf *b) {
  if (b->narrow) widen(b);
  if (b->n <= 32) {
    insertion_sort(b->span, b->n);
  } else if (b->n <= INT_MAX / MP_SPAN_BUCKETS) {
    sort_bucketed(b);
  } else { /* the bucket count would not fit an int */
    memcpy(b->sorted, b->span, sizeof(mp_span) * (size_t)b->n);
    qsort(b->sorted, (size_t)b->n, sizeof(mp_span), cmp_span_lo);
  }
  b->sorted_ok = true;
}

const mp_span *mp_spanbuf_sorted(mp_spanbuf *b) {
  if (!b->sorted_ok) sort_spans(b);
  return b->n <= 32 ? b->span : b->sorted;
}

int64_t mp_fit_spans(mp_spanbuf *b, int64_t size, int64_t align, enum mp_fit fit) {
  int64_t al = align < 1 ? 1 : align, off;
  b->sorted_ok = false;
  bool headed = b->n > 32 && fit_by_heads(b, size, al, fit, &off);
  if (b->bucket_size) mp_spanbuf_unbucket(b); /* noted, not used */
  if (headed) return off;
  sort_spans(b);
  return scan_spans(mp_spanbuf_sorted(b), b->n, size, al, fit);
}

void mp_count_gaps(const mp_span *a, int n, int64_t size, int64_t *gaps, int64_t *fitting) {
  int64_t cur = 0;
  for (int i = 0; i < n; i++) {
    if (a[i].lo > cur) {
      ++*gaps;
      *fitting += a[i].lo - cur >= size;
    }
    if (a[i].hi > cur) cur = a[i].hi;
  }
}
