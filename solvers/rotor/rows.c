/* rows.c - the rows of rotor's table stored once each (rotor.h: rt_rows).
 *
 * A row of the table is a sub-problem's values over h.  Most rows repeat
 * others (a variant with X_t on top is often its release shifted by X_t's
 * slots; star and not-star agree where the group does not read the input):
 * on a 64-stage chain of 200 slots about one row in six is distinct.  A row
 * is kept as its finite part only (outside it every value is infinite), and
 * an identical finite part, wherever it starts, is stored once: a hash over
 * the values' bits, then a comparison of the bits. */
#include <stdlib.h>
#include <string.h>

#include "rotor/rotor.h"

/* A row already stored: where, how long, its hash. */
struct rt_rec {
  size_t off;
  int len;
  uint64_t hash;
};

static uint64_t row_hash(const double *v, int n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
  for (int i = 0; i < n; i++) {
    uint64_t w;
    memcpy(&w, &v[i], sizeof w);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  return h;
}

void rt_rows_init(rt_rows *r, size_t entries, size_t rows) {
  memset(r, 0, sizeof *r);
  r->cap = entries ? entries : 1;
  r->pool = mp_xmalloc(sizeof(double) * r->cap); /* untouched pages stay free */
  r->rcap = rows ? rows : 1;
  r->rec = mp_xmalloc(sizeof(rt_rec) * r->rcap);
  r->nslot = 16;
  while (r->nslot < 2 * r->rcap) r->nslot *= 2;
  r->slot = mp_xmalloc(sizeof(int32_t) * r->nslot);
  r->ref = mp_xmalloc(sizeof(rt_ref) * r->rcap);
  rt_rows_clear(r);
}

void rt_rows_clear(rt_rows *r) {
  r->n = 0;
  r->nrec = 0;
  r->valid = false;
  memset(r->slot, 0xff, sizeof(int32_t) * r->nslot); /* -1: empty */
  for (size_t i = 0; i < r->rcap; i++) r->ref[i] = (rt_ref){0, 1, 0}; /* no row */
}

void rt_rows_destroy(rt_rows *r) {
  free(r->pool);
  free(r->rec);
  free(r->slot);
  free(r->ref);
  free(r->key);
  memset(r, 0, sizeof *r);
}

bool rt_rows_room(const rt_rows *r, int n) { return r->nrec < r->rcap && r->n + (size_t)n <= r->cap; }

static size_t slot_of(const rt_rows *r, uint64_t h, const double *v, int n) {
  size_t i = (size_t)h & (r->nslot - 1);
  for (; r->slot[i] >= 0; i = (i + 1) & (r->nslot - 1)) {
    const rt_rec *e = &r->rec[r->slot[i]];
    if (e->hash == h && e->len == n && memcmp(r->pool + e->off, v, sizeof(double) * (size_t)n) == 0) break;
  }
  return i;
}

size_t rt_rows_put(rt_rows *r, const double *v, int n) {
  uint64_t h = row_hash(v, n);
  size_t i = slot_of(r, h, v, n);
  if (r->slot[i] >= 0) return r->rec[r->slot[i]].off;
  if (r->nrec == r->rcap) abort(); /* not reached: the caller compacts first (rt_rows_room) */
  if (r->n + (size_t)n > r->cap) { /* not reached with the room of rt_dp_entries */
    r->cap = 2 * r->cap + (size_t)n;
    r->pool = mp_xrealloc(r->pool, sizeof(double) * r->cap);
  }
  size_t off = r->n;
  memcpy(r->pool + off, v, sizeof(double) * (size_t)n);
  r->n += (size_t)n;
  r->rec[r->nrec] = (rt_rec){off, n, h};
  r->slot[i] = (int32_t)r->nrec++;
  return off;
}

/* The index of the part stored at off (old: the parts' offsets, ascending). */
static size_t find(const size_t *old, size_t n, size_t off) {
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (old[mid] <= off) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Sliding compaction: the parts a ref names move down in offset order
 * (each to at most where it was, so memmove in that order is safe), then
 * the refs follow and the hash slots are rebuilt. */
void rt_rows_compact(rt_rows *r) {
  size_t n0 = r->nrec, *old = mp_xmalloc(sizeof(size_t) * (n0 + 1)), *to = mp_xmalloc(sizeof(size_t) * (n0 + 1));
  uint8_t *live = mp_xcalloc(n0 + 1, 1);
  for (size_t j = 0; j < n0; j++) old[j] = r->rec[j].off;
  for (size_t i = 0; i < r->rcap; i++)
    if (r->ref[i].first <= r->ref[i].last) live[find(old, n0, r->ref[i].off)] = 1;
  size_t n = 0;
  r->nrec = 0;
  for (size_t j = 0; j < n0; j++) {
    if (!live[j]) continue;
    rt_rec e = r->rec[j];
    memmove(r->pool + n, r->pool + e.off, sizeof(double) * (size_t)e.len);
    to[j] = n;
    r->rec[r->nrec++] = (rt_rec){n, e.len, e.hash};
    n += (size_t)e.len;
  }
  r->n = n;
  for (size_t i = 0; i < r->rcap; i++)
    if (r->ref[i].first <= r->ref[i].last) r->ref[i].off = to[find(old, n0, r->ref[i].off)];
  memset(r->slot, 0xff, sizeof(int32_t) * r->nslot);
  for (size_t j = 0; j < r->nrec; j++) { /* distinct parts: no comparison needed */
    size_t i = (size_t)r->rec[j].hash & (r->nslot - 1);
    while (r->slot[i] >= 0) i = (i + 1) & (r->nslot - 1);
    r->slot[i] = (int32_t)j;
  }
  r->compactions++;
  free(old);
  free(to);
  free(live);
}
