/* pack_fit.c - see pack_fit.h. */
#include <stdbool.h>
#include <stdlib.h>

#include "lib/pack_fit.h"
#include "util.h"

void mp_spanbuf_init(mp_spanbuf *b) {
  b->span = b->sorted = NULL;
  b->bucket = NULL;
  b->n = b->cap = 0;
  b->top = 0;
}

void mp_spanbuf_destroy(mp_spanbuf *b) {
  free(b->span);
  free(b->sorted);
  free(b->bucket);
  mp_spanbuf_init(b);
}

void mp_spanbuf_grow(mp_spanbuf *b, int need) {
  if (need <= b->cap) return;
  int cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  b->span = mp_xrealloc(b->span, sizeof(mp_span) * (size_t)cap);
  b->sorted = mp_xrealloc(b->sorted, sizeof(mp_span) * (size_t)cap);
  b->bucket = mp_xrealloc(b->bucket, sizeof(int) * ((size_t)cap + 1));
  b->cap = cap;
}

static int cmp_span_lo(const void *x, const void *y) {
  int64_t a = ((const mp_span *)x)->lo, c = ((const mp_span *)y)->lo;
  return (a > c) - (a < c);
}

/* By lo; the order of equal lo does not change the union's gaps. */
static void sort_spans(mp_span *a, int n) {
  if (n > 32) {
    qsort(a, (size_t)n, sizeof *a, cmp_span_lo);
    return;
  }
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

/* The scan of the union in address order: cur is the end of the union so
 * far; a span starting above cur closes the gap [cur, span.lo). */
typedef struct fit_scan {
  int64_t size, align, cur, best, best_gap;
  enum mp_fit fit;
} fit_scan;

/* Feed one span; true when the answer (s->best) can no longer change. */
static bool scan_span(fit_scan *s, mp_span sp) {
  if (sp.lo > s->cur) {
    int64_t cand = mp_align_up(s->cur, s->align);
    if (cand + s->size <= sp.lo) {
      int64_t gap = sp.lo - s->cur;
      /* no later gap beats the first fit, nor an exact fit (ties keep the lowest) */
      if (s->fit == MP_FIRST_FIT || gap == s->size) {
        s->best = cand;
        return true;
      }
      if (s->best < 0 || gap < s->best_gap) {
        s->best = cand;
        s->best_gap = gap;
      }
    }
  }
  if (sp.hi > s->cur) s->cur = sp.hi;
  return false;
}

static bool scan_run(fit_scan *s, const mp_span *a, int n) {
  for (int i = 0; i < n; i++)
    if (scan_span(s, a[i])) return true;
  return false;
}

/* Bucket sort by the high bits of lo (every lo is below top), each bucket
 * sorted and scanned in turn so that first fit stops early. */
static void scan_bucketed(mp_spanbuf *b, fit_scan *s) {
  int k = b->n, shift = 0;
  while (((uint64_t)(b->top - 1) >> shift) >= (uint64_t)k) shift++;
  int nb = (int)((uint64_t)(b->top - 1) >> shift) + 1; /* <= k */
  int *start = b->bucket;
  for (int i = 0; i <= nb; i++) start[i] = 0;
  for (int i = 0; i < k; i++) start[(b->span[i].lo >> shift) + 1]++;
  for (int i = 0; i < nb; i++) start[i + 1] += start[i];
  for (int i = 0; i < k; i++) b->sorted[start[b->span[i].lo >> shift]++] = b->span[i];
  /* start[bk] is now the end of bucket bk */
  int from = 0;
  for (int bk = 0; bk < nb; bk++) {
    int to = start[bk];
    sort_spans(b->sorted + from, to - from);
    if (scan_run(s, b->sorted + from, to - from)) return;
    from = to;
  }
}

int64_t mp_fit_spans(mp_spanbuf *b, int64_t size, int64_t align, enum mp_fit fit) {
  fit_scan s = {size, align < 1 ? 1 : align, 0, -1, 0, fit};
  if (b->n <= 32) {
    sort_spans(b->span, b->n);
    scan_run(&s, b->span, b->n);
  } else {
    scan_bucketed(b, &s);
  }
  return s.best >= 0 ? s.best : mp_align_up(s.cur, s.align);
}
