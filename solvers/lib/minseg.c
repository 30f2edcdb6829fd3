/* minseg.c - see minseg.h.  Bottom-up segment tree: node x has children
 * 2x and 2x + 1, leaves at size .. 2 size - 1. */
#include <stdlib.h>

#include "lib/minseg.h"
#include "util.h"

static const mp_mskey EMPTY = {{INT64_MAX, INT64_MAX, INT64_MAX}, -1};

bool mp_minseg_empty(mp_mskey k) { return k.v < 0; }

static bool less(mp_mskey a, mp_mskey b) {
  if (a.v < 0) return false;
  if (b.v < 0) return true;
  for (int i = 0; i < 3; i++)
    if (a.k[i] != b.k[i]) return a.k[i] < b.k[i];
  return false;
}

void mp_minseg_init(mp_minseg *s, int n) {
  s->size = 1;
  while (s->size < n) s->size *= 2;
  s->t = mp_xmalloc(sizeof(mp_mskey) * 2 * (size_t)s->size);
  for (int i = 0; i < 2 * s->size; i++) s->t[i] = EMPTY;
}

void mp_minseg_destroy(mp_minseg *s) {
  free(s->t);
  s->t = NULL;
  s->size = 0;
}

void mp_minseg_set(mp_minseg *s, int pos, mp_mskey key) {
  int x = pos + s->size;
  s->t[x] = key;
  for (x /= 2; x >= 1; x /= 2) {
    mp_mskey m = less(s->t[2 * x + 1], s->t[2 * x]) ? s->t[2 * x + 1] : s->t[2 * x];
    if (m.v == s->t[x].v && !less(m, s->t[x]) && !less(s->t[x], m)) break; /* unchanged above */
    s->t[x] = m;
  }
}

void mp_minseg_clear(mp_minseg *s, int pos) { mp_minseg_set(s, pos, EMPTY); }

mp_mskey mp_minseg_min(const mp_minseg *s, int l, int r) {
  mp_mskey best = EMPTY;
  for (l += s->size, r += s->size; l < r; l /= 2, r /= 2) {
    if (l & 1 && less(s->t[l], best)) best = s->t[l];
    if (l & 1) l++;
    if (r & 1 && less(s->t[r - 1], best)) best = s->t[r - 1];
  }
  return best;
}

int mp_minseg_first(const mp_minseg *s) {
  if (s->t[1].v < 0) return -1;
  int x = 1;
  while (x < s->size) x = s->t[2 * x].v >= 0 ? 2 * x : 2 * x + 1;
  return x - s->size;
}
