/* iheap.h - the solvers' priority queue: a binary min-heap of int ids
 * under the caller's order less(ctx, a, b).  With a strict total order
 * (ties broken by id) the ids come out in one order, whatever the heap's
 * shape: a solver's result does not depend on how it was pushed.
 * Header-only so that a constant comparator is inlined into the loops. */
#ifndef MP_LIB_IHEAP_H
#define MP_LIB_IHEAP_H

#include <stdbool.h>
#include <stdlib.h>

#include "util.h"

typedef bool (*mp_iheap_less)(const void *ctx, int a, int b);

typedef struct mp_iheap {
  int *a;
  int n, cap;
  mp_iheap_less less;
  const void *ctx;
} mp_iheap;

static inline void mp_iheap_init(mp_iheap *h, mp_iheap_less less, const void *ctx) {
  *h = (mp_iheap){NULL, 0, 0, less, ctx};
}

static inline void mp_iheap_destroy(mp_iheap *h) {
  free(h->a);
  h->a = NULL;
  h->n = h->cap = 0;
}

/* Room for `cap` ids without growing (growth doubles, from 1024). */
static inline void mp_iheap_reserve(mp_iheap *h, int cap) {
  if (cap <= h->cap) return;
  h->cap = cap;
  h->a = mp_xrealloc(h->a, sizeof(int) * (size_t)cap);
}

static inline void mp_iheap_push(mp_iheap *h, int x) {
  if (h->n == h->cap) mp_iheap_reserve(h, h->cap ? 2 * h->cap : 1024);
  int i = h->n++;
  while (i > 0 && h->less(h->ctx, x, h->a[(i - 1) / 2])) {
    h->a[i] = h->a[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->a[i] = x;
}

/* Put x at position i (the hole) or below, from the ids after it. */
static inline void mp_iheap_sift_down(mp_iheap *h, int i, int x) {
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->less(h->ctx, h->a[c + 1], h->a[c])) c++;
    if (!h->less(h->ctx, h->a[c], x)) break;
    h->a[i] = h->a[c];
    i = c;
  }
  h->a[i] = x;
}

/* The least id, removed (h->n > 0). */
static inline int mp_iheap_pop(mp_iheap *h) {
  int top = h->a[0], last = h->a[--h->n];
  if (h->n > 0) mp_iheap_sift_down(h, 0, last);
  return top;
}

/* The heap of ids[0..n) (ids NULL: of 0 .. n-1) in O(n); what it held is
 * dropped. */
static inline void mp_iheap_build(mp_iheap *h, const int *ids, int n) {
  mp_iheap_reserve(h, n);
  for (int i = 0; i < n; i++) h->a[i] = ids ? ids[i] : i;
  h->n = n;
  for (int i = n / 2 - 1; i >= 0; i--) mp_iheap_sift_down(h, i, h->a[i]);
}

#endif
