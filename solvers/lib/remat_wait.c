/* remat_wait.c - the buffers waiting for their copy out (remat_wait.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_wait.h"

/* Earlier copy-out end first; ties by id (the order of visits is the
 * list's, not the heap's). */
static bool ends_first(const void *ctx, int a, int b) {
  const double *end = ctx;
  if (end[a] != end[b]) return end[a] < end[b];
  return a < b;
}

void rxw_init(rx_wait *w, int nb, const double *out_end) {
  memset(w, 0, sizeof *w);
  w->nb = nb;
  w->cap = 2 * (nb + 1);
  w->out_end = out_end;
  w->slot = mp_xcalloc((size_t)nb + 1, sizeof(int));
  w->mark = mp_xcalloc((size_t)nb + 1, 1);
  w->list = mp_xmalloc(sizeof(int) * (size_t)w->cap);
  w->touched = mp_xmalloc(sizeof(int) * ((size_t)nb + 1));
  w->due = mp_xmalloc(sizeof(int) * ((size_t)nb + 1));
  mp_iheap_init(&w->heap, ends_first, out_end);
  mp_iheap_reserve(&w->heap, nb + 1); /* each buffer once: never grows */
}

void rxw_destroy(rx_wait *w) {
  free(w->slot);
  free(w->mark);
  free(w->list);
  free(w->touched);
  free(w->due);
  mp_iheap_destroy(&w->heap);
  memset(w, 0, sizeof *w);
}

/* Every mark and slot is one of an entry of the list, heap or touched:
 * clearing those clears them all. */
void rxw_clear(rx_wait *w) {
  for (int i = 0; i < w->end; i++)
    if (w->list[i] >= 0) w->slot[w->list[i]] = 0;
  for (int i = 0; i < w->heap.n; i++) w->mark[w->heap.a[i]] = 0;
  for (int i = 0; i < w->nt; i++) w->mark[w->touched[i]] = 0;
  w->end = w->n = w->nt = w->heap.n = 0;
}

void rxw_copy(rx_wait *dst, const rx_wait *src) {
  rxw_clear(dst);
  memcpy(dst->list, src->list, sizeof(int) * (size_t)src->end);
  memcpy(dst->heap.a, src->heap.a, sizeof(int) * (size_t)src->heap.n);
  memcpy(dst->touched, src->touched, sizeof(int) * (size_t)src->nt);
  dst->end = src->end, dst->n = src->n, dst->heap.n = src->heap.n, dst->nt = src->nt;
  for (int i = 0; i < dst->end; i++)
    if (dst->list[i] >= 0) dst->slot[dst->list[i]] = i + 1;
  for (int i = 0; i < dst->heap.n; i++) dst->mark[dst->heap.a[i]] |= RXW_HEAP;
  for (int i = 0; i < dst->nt; i++) dst->mark[dst->touched[i]] |= RXW_TOUCHED;
}

/* The holes squeezed out, the order kept. */
static void compact(rx_wait *w) {
  int k = 0;
  for (int i = 0; i < w->end; i++) {
    int b = w->list[i];
    if (b < 0) continue;
    w->list[k] = b;
    w->slot[b] = ++k;
  }
  w->end = k;
}

/* The list ends at its last buffer. */
static void trim(rx_wait *w) {
  while (w->end > 0 && w->list[w->end - 1] < 0) w->end--;
}

void rxw_add(rx_wait *w, int b) {
  if (!w->slot[b]) {
    if (w->end == w->cap) compact(w);
    w->list[w->end++] = b;
    w->slot[b] = w->end;
    w->n++;
  }
  if (!(w->mark[b] & RXW_HEAP)) {
    w->mark[b] |= RXW_HEAP;
    mp_iheap_push(&w->heap, b);
  }
}

void rxw_remove(rx_wait *w, int b) {
  int i = w->slot[b] - 1, last = w->list[w->end - 1];
  w->list[i] = last;
  w->slot[last] = i + 1;
  w->list[--w->end] = -1;
  w->slot[b] = 0;
  w->n--;
  trim(w);
}

void rxw_touch_all(rx_wait *w) {
  for (int i = 0; i < w->end; i++)
    if (w->list[i] >= 0) rxw_touch(w, w->list[i]);
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* b's place into due, once. */
static void due(rx_wait *w, int b, int *n) {
  if (!w->slot[b] || (w->mark[b] & RXW_DUE)) return;
  w->mark[b] |= RXW_DUE;
  w->due[(*n)++] = w->slot[b] - 1;
}

int rxw_visits(rx_wait *w, double now) {
  int n = 0;
  while (w->heap.n > 0 && w->out_end[w->heap.a[0]] <= now) {
    int b = mp_iheap_pop(&w->heap);
    w->mark[b] &= (uint8_t)~RXW_HEAP;
    due(w, b, &n);
  }
  for (int i = 0; i < w->nt; i++) {
    int b = w->touched[i];
    w->mark[b] &= (uint8_t)~RXW_TOUCHED;
    due(w, b, &n);
  }
  w->nt = 0;
  qsort(w->due, (size_t)n, sizeof(int), cmp_int);
  for (int i = 0; i < n; i++) {
    int b = w->list[w->due[i]];
    w->mark[b] &= (uint8_t)~RXW_DUE;
    w->due[i] = b;
  }
  return n;
}

void rxw_visited(rx_wait *w, int b, bool listed) {
  if (listed) {
    rxw_add(w, b); /* keeps its place; back in the heap if it was popped */
    return;
  }
  w->list[w->slot[b] - 1] = -1;
  w->slot[b] = 0;
  w->n--;
  trim(w);
}

int rxw_listed(const rx_wait *w, int *out) {
  int k = 0;
  for (int i = 0; i < w->end; i++)
    if (w->list[i] >= 0) out[k++] = w->list[i];
  return k;
}
