/* minseg.c - see minseg.h.  Bottom-up segment tree over the blocks: node x
 * has children 2x and 2x + 1, block b is leaf size + b. */
#include <stdlib.h>

#include "lib/minseg.h"
#include "util.h"

static const mp_mskey EMPTY = {{INT64_MAX, INT64_MAX, INT64_MAX}, -1};

bool mp_minseg_empty(mp_mskey k) { return k.v < 0; }

/* Keys by pointer: they are 32 bytes, and the tree compares on every level. */
static bool less(const mp_mskey *a, const mp_mskey *b) {
  if (a->v < 0) return false;
  if (b->v < 0) return true;
  for (int i = 0; i < 3; i++)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i];
  return false;
}

static bool same(const mp_mskey *a, const mp_mskey *b) {
  return a->v == b->v && a->k[0] == b->k[0] && a->k[1] == b->k[1] && a->k[2] == b->k[2];
}

void mp_minseg_init(mp_minseg *s, int n) {
  int blocks = (n + 63) / 64;
  s->n = n;
  s->size = 1;
  while (s->size < blocks) s->size *= 2;
  s->key = mp_xmalloc(sizeof(mp_mskey) * (size_t)(n ? n : 1));
  s->bit = mp_xcalloc((size_t)(blocks ? blocks : 1), sizeof(uint64_t));
  s->t = mp_xmalloc(sizeof(mp_mskey) * 2 * (size_t)s->size);
  for (int i = 0; i < 2 * s->size; i++) s->t[i] = EMPTY;
}

void mp_minseg_destroy(mp_minseg *s) {
  free(s->key);
  free(s->bit);
  free(s->t);
  s->key = s->t = NULL;
  s->bit = NULL;
  s->size = s->n = 0;
}

/* The smallest key of block b among the positions of mask. */
static mp_mskey block_min(const mp_minseg *s, int b, uint64_t mask) {
  mp_mskey best = EMPTY;
  for (; mask; mask &= mask - 1) {
    const mp_mskey *k = &s->key[64 * b + __builtin_ctzll(mask)];
    if (less(k, &best)) best = *k;
  }
  return best;
}

/* Block b's leaf now holds m: the tree above it follows. */
static void raise(mp_minseg *s, int b, mp_mskey m) {
  int x = s->size + b;
  s->t[x] = m;
  for (x /= 2; x >= 1; x /= 2) {
    const mp_mskey *up = less(&s->t[2 * x + 1], &s->t[2 * x]) ? &s->t[2 * x + 1] : &s->t[2 * x];
    if (same(up, &s->t[x])) break; /* unchanged above */
    s->t[x] = *up;
  }
}

void mp_minseg_set(mp_minseg *s, int pos, mp_mskey key) {
  int b = pos / 64;
  s->key[pos] = key;
  s->bit[b] |= 1ull << (pos % 64);
  /* a key below the block's smallest is the new smallest; else rescan */
  mp_mskey leaf = s->t[s->size + b];
  raise(s, b, less(&key, &leaf) ? key : block_min(s, b, s->bit[b]));
}

void mp_minseg_clear(mp_minseg *s, int pos) {
  int b = pos / 64;
  uint64_t was = s->bit[b];
  s->bit[b] &= ~(1ull << (pos % 64));
  if (was == s->bit[b]) return;
  /* clearing a position that does not hold the block's smallest key
   * changes nothing above it */
  if (same(&s->key[pos], &s->t[s->size + b])) raise(s, b, block_min(s, b, s->bit[b]));
}

/* Positions lo..hi (inclusive, both in block b) as a mask. */
static uint64_t span_mask(int lo, int hi) {
  uint64_t up = (hi % 64) == 63 ? ~0ull : (1ull << (hi % 64 + 1)) - 1;
  return up & (~0ull << (lo % 64));
}

mp_mskey mp_minseg_min(const mp_minseg *s, int l, int r) {
  if (l >= r) return EMPTY;
  int bl = l / 64, br = (r - 1) / 64;
  if (bl == br) return block_min(s, bl, s->bit[bl] & span_mask(l, r - 1));
  mp_mskey best = block_min(s, bl, s->bit[bl] & span_mask(l, 64 * bl + 63));
  mp_mskey last = block_min(s, br, s->bit[br] & span_mask(64 * br, r - 1));
  if (less(&last, &best)) best = last;
  for (int x = bl + 1 + s->size, y = br + s->size; x < y; x /= 2, y /= 2) {
    if (x & 1 && less(&s->t[x], &best)) best = s->t[x];
    if (x & 1) x++;
    if (y & 1 && less(&s->t[y - 1], &best)) best = s->t[y - 1];
  }
  return best;
}

int mp_minseg_first(const mp_minseg *s) {
  if (s->t[1].v < 0) return -1;
  int x = 1;
  while (x < s->size) x = s->t[2 * x].v >= 0 ? 2 * x : 2 * x + 1;
  int b = x - s->size;
  return 64 * b + __builtin_ctzll(s->bit[b]);
}
