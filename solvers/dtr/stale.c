/* stale.c - DTR's bucketed staleness index (stale.h). */
#include <math.h>
#include <stdlib.h>

#include "dtr/stale.h"
#include "util.h"

/* Buckets: SUB per octave of a, so that a bucket's bound is within
 * 2^(1/SUB) of its members' own; the bucket index is floor(SUB x log2 a),
 * shifted to >= 0, and slot NSLOTS holds the unbounded bucket. */
#define SUB 8
#define SHIFT (1100 * SUB)
#define NSLOTS (2200 * SUB)

/* The upper end of bucket slot i: 2^((i - SHIFT + 1) / SUB). */
static double slot_upper(int i) {
  int j = i - SHIFT + 1, e = j >= 0 ? j / SUB : -((-j + SUB - 1) / SUB);
  return ldexp(exp2((double)(j - e * SUB) / SUB), e);
}

/* The bucket slot of a = size / cost (a < slot_upper), or NSLOTS when a has
 * no finite bound (a cost of 0). */
static int slot_of(int64_t size, double cost) {
  double a = (double)size / cost;
  if (!(cost > 0) || !isfinite(a)) return NSLOTS;
  int i = (int)floor(log2(a) * SUB) + SHIFT;
  if (i < 0) i = 0;
  if (i >= NSLOTS) return NSLOTS;
  while (i + 1 < NSLOTS && a >= slot_upper(i)) i++; /* log2's rounding */
  return i;
}

void dtr_stale_init(dtr_stale *s, int nb, const bool *indexed, const int64_t *size,
                    const double *owner_cost) {
  size_t n = (size_t)nb + 1;
  s->nb = nb;
  s->bucket = mp_xmalloc(sizeof(int) * n);
  s->prev = mp_xmalloc(sizeof(int) * n);
  s->next = mp_xmalloc(sizeof(int) * n);
  s->in = mp_xcalloc(n, sizeof(bool));
  int *id = mp_xmalloc(sizeof(int) * (NSLOTS + 1)); /* slot -> bucket */
  for (int i = 0; i <= NSLOTS; i++) id[i] = -1;
  s->nk = 0;
  for (int b = 0; b < nb; b++) {
    s->bucket[b] = -1;
    if (!indexed[b]) continue;
    int slot = slot_of(size[b], owner_cost[b]);
    if (id[slot] < 0) id[slot] = s->nk++;
    s->bucket[b] = id[slot];
  }
  size_t k = (size_t)s->nk + 1;
  s->head = mp_xmalloc(sizeof(int) * k);
  s->tail = mp_xmalloc(sizeof(int) * k);
  s->upper = mp_xcalloc(k, sizeof(double));
  s->order = mp_xmalloc(sizeof(int) * k);
  s->key = mp_xmalloc(sizeof(double) * k);
  for (int i = 0; i < s->nk; i++) s->head[i] = s->tail[i] = -1;
  for (int slot = 0; slot < NSLOTS; slot++)
    if (id[slot] >= 0) s->upper[id[slot]] = slot_upper(slot);
  free(id);
}

void dtr_stale_destroy(dtr_stale *s) {
  free(s->bucket);
  free(s->prev);
  free(s->next);
  free(s->in);
  free(s->head);
  free(s->tail);
  free(s->upper);
  free(s->order);
  free(s->key);
}

void dtr_stale_remove(dtr_stale *s, int b) {
  if (!s->in[b]) return;
  int k = s->bucket[b], p = s->prev[b], q = s->next[b];
  if (p >= 0) s->next[p] = q; else s->head[k] = q;
  if (q >= 0) s->prev[q] = p; else s->tail[k] = p;
  s->in[b] = false;
}

void dtr_stale_touch(dtr_stale *s, int b) {
  int k = s->bucket[b];
  if (k < 0) return;
  dtr_stale_remove(s, b);
  s->prev[b] = s->tail[k];
  s->next[b] = -1;
  if (s->tail[k] >= 0) s->next[s->tail[k]] = b; else s->head[k] = b;
  s->tail[k] = b;
  s->in[b] = true;
}

/* The lower bound of h in bucket k for a buffer this stale (infinite when
 * it is not stale: its h is DBL_MAX), or 0 for the unbounded bucket. */
static double bound(const dtr_stale *s, int k, double stale) {
  if (s->upper[k] == 0) return 0;
  return stale > 0 ? 1.0 / (s->upper[k] * stale) : INFINITY;
}

/* A margin far above the rounding of h and of its bound (a few ulps): a
 * buffer is passed over only when even its bound is clearly above the best. */
static bool beyond(double lb, double best) { return lb * (1 - 1e-9) > best; }

void dtr_stale_walk(dtr_stale *s, dtr_stale_fn stale_of, dtr_visit_fn visit, const double *best_h,
                    void *ctx) {
  int n = 0;
  for (int k = 0; k < s->nk; k++) {
    if (s->head[k] < 0) continue;
    double key = bound(s, k, stale_of(s->head[k], ctx));
    int i = n++;
    for (; i > 0 && s->key[i - 1] > key; i--) s->key[i] = s->key[i - 1], s->order[i] = s->order[i - 1];
    s->key[i] = key, s->order[i] = k;
  }
  for (int i = 0; i < n; i++) {
    int k = s->order[i];
    if (beyond(s->key[i], *best_h)) break; /* this bucket and every later one */
    for (int b = s->head[k]; b >= 0; b = s->next[b]) {
      if (beyond(bound(s, k, stale_of(b, ctx)), *best_h)) break;
      visit(b, ctx);
    }
  }
}
