/* remat_dropq.c - the candidates of a run, kept as it moves on
 * (remat_dropq.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_dropq.h"

enum { DQ_RES = 1, DQ_WORK = 2, DQ_IN = 4 }; /* DQ_IN: b has a valid entry */

void dq_init(dq_queue *q, const ri_info *ri, const uint8_t *res, dq_key_fn key, void *ctx) {
  *q = (dq_queue){.ri = ri, .res = res, .key = key, .ctx = ctx};
  q->ver = mp_xcalloc((size_t)ri->nb + 1, sizeof(int));
  q->mark = mp_xcalloc((size_t)ri->nb + 1, 1);
  q->wcap = ri->nb + 1;
  q->work = mp_xmalloc(sizeof(int) * (size_t)q->wcap);
}

void dq_destroy(dq_queue *q) {
  free(q->ver);
  free(q->mark);
  free(q->work);
  free(q->heap);
  memset(q, 0, sizeof *q);
}

/* A buffer is on the list once at a time, yet dq_settle takes it off as it
 * goes, and a later buffer's dependents may put it back on: the list can
 * outgrow nb (a layered training step of 35 nodes did). */
void dq_touch(dq_queue *q, int b) {
  if (q->mark[b] & DQ_WORK) return;
  q->mark[b] |= DQ_WORK;
  if (q->nwork == q->wcap) {
    q->wcap *= 2;
    q->work = mp_xrealloc(q->work, sizeof(int) * (size_t)q->wcap);
  }
  q->work[q->nwork++] = b;
}

void dq_touch_all(dq_queue *q) {
  for (int b = 0; b < q->ri->nb; b++) {
    dq_touch(q, b);
    q->mark[b] &= (uint8_t)~DQ_IN;
  }
  q->n = q->valid = 0; /* every buffer comes back through the callback */
}

/* a before b in the heap: the larger key, then the lower id */
static bool above(const dq_entry *a, const dq_entry *b) {
  return a->key != b->key ? a->key > b->key : a->b < b->b;
}

static void sift_down(dq_queue *q, int i) {
  dq_entry x = q->heap[i];
  for (;;) {
    int c = 2 * i + 1;
    if (c >= q->n) break;
    if (c + 1 < q->n && above(&q->heap[c + 1], &q->heap[c])) c++;
    if (!above(&q->heap[c], &x)) break;
    q->heap[i] = q->heap[c];
    i = c;
  }
  q->heap[i] = x;
}

static void push(dq_queue *q, dq_entry x) {
  if (q->n == q->cap) {
    q->cap = q->cap ? 2 * q->cap : 1024;
    q->heap = mp_xrealloc(q->heap, sizeof(dq_entry) * (size_t)q->cap);
  }
  int i = q->n++;
  while (i > 0 && above(&x, &q->heap[(i - 1) / 2])) {
    q->heap[i] = q->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  q->heap[i] = x;
}

static bool current(const dq_queue *q, const dq_entry *x) { return q->ver[x->b] == x->ver; }

/* Drop the stale entries once they outnumber the valid ones. */
static void compact(dq_queue *q) {
  if (q->n < 1024 || q->n < 2 * q->valid) return;
  int k = 0;
  for (int i = 0; i < q->n; i++)
    if (current(q, &q->heap[i])) q->heap[k++] = q->heap[i];
  q->n = k;
  for (int i = k / 2 - 1; i >= 0; i--) sift_down(q, i);
}

/* The readers' outputs: their rerun cost reads b's residency. */
static void touch_dependents(dq_queue *q, int b) {
  const ri_info *ri = q->ri;
  for (int e = ri->ev_start[b] + 1; e < ri->ev_start[b + 1]; e++) {
    int w = ri->seq[ri->ev[e]];
    for (int i = ri->own_start[w]; i < ri->own_start[w + 1]; i++) dq_touch(q, ri->own[i]);
  }
}

void dq_settle(dq_queue *q) {
  for (int i = 0; i < q->nwork; i++) { /* the list grows as dependents come */
    int b = q->work[i];
    q->mark[b] &= (uint8_t)~DQ_WORK;
    uint8_t r = q->res[b] ? DQ_RES : 0;
    if ((q->mark[b] & DQ_RES) != r) {
      q->mark[b] ^= DQ_RES;
      touch_dependents(q, b);
    }
    if (q->mark[b] & DQ_IN) q->valid--;
    q->mark[b] &= (uint8_t)~DQ_IN;
    q->ver[b]++;
    double key;
    if (q->key(q->ctx, b, &key)) {
      push(q, (dq_entry){key, b, q->ver[b]});
      q->mark[b] |= DQ_IN;
      q->valid++;
    }
  }
  q->nwork = 0;
  compact(q);
}

int dq_pop(dq_queue *q, double *key) {
  while (q->n > 0) {
    dq_entry top = q->heap[0];
    q->heap[0] = q->heap[--q->n];
    if (q->n > 0) sift_down(q, 0);
    if (!current(q, &top)) continue;
    q->ver[top.b]++;
    q->mark[top.b] &= (uint8_t)~DQ_IN;
    q->valid--;
    *key = top.key;
    return top.b;
  }
  return -1;
}
