/* memo.c - the failed-subproblem memo: full keys, never a hash alone.
 * Open addressing with linear probing over 2^k slots; keys live in a pool
 * that grows to 8 words a slot; the table starts over empty when half the
 * slots or the whole pool are used. */
#include <stdlib.h>
#include <string.h>

#include "exact/exact.h"

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t ex_memo_hash(const uint64_t *key, size_t len) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
  for (size_t i = 0; i < len; i++) {
    h ^= key[i];
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
  }
  return mix64(h) | 1; /* never 0 */
}

void ex_memo_init(ex_memo *M, int log2_slots) {
  memset(M, 0, sizeof *M);
  size_t slots = (size_t)1 << log2_slots;
  M->mask = slots - 1;
  M->slot = mp_xcalloc(slots, sizeof(ex_slot));
  M->cap_max = slots * 8;
  M->cap = 1024;
  M->pool = mp_xmalloc(sizeof(uint64_t) * M->cap);
}

void ex_memo_destroy(ex_memo *M) {
  free(M->slot);
  free(M->pool);
  memset(M, 0, sizeof *M);
}

static void memo_clear(ex_memo *M) {
  memset(M->slot, 0, sizeof(ex_slot) * (M->mask + 1));
  M->used = 0;
  M->count = 0;
}

/* the slot holding key, or the empty slot where it would go */
static size_t memo_find(const ex_memo *M, const uint64_t *key, size_t len, uint64_t h) {
  for (size_t i = (size_t)(h & M->mask);; i = (i + 1) & M->mask) {
    if (M->slot[i].at == 0) return i;
    if (M->slot[i].hash != h) continue;
    const uint64_t *e = M->pool + M->slot[i].at - 1;
    if (e[0] == len && memcmp(e + 1, key, sizeof(uint64_t) * len) == 0) return i;
  }
}

bool ex_memo_has(const ex_memo *M, const uint64_t *key, size_t len, uint64_t h) {
  return M->slot[memo_find(M, key, len, h)].at != 0;
}

/* store key in slot i (empty); false when the table is full */
static bool memo_store(ex_memo *M, size_t i, const uint64_t *key, size_t len, uint64_t h) {
  if (2 * (M->count + 1) > M->mask + 1 || M->used + len + 1 > M->cap_max) return false;
  if (M->used + len + 1 > M->cap) {
    while (M->used + len + 1 > M->cap) M->cap *= 2;
    if (M->cap > M->cap_max) M->cap = M->cap_max;
    M->pool = mp_xrealloc(M->pool, sizeof(uint64_t) * M->cap);
  }
  M->pool[M->used] = len;
  memcpy(M->pool + M->used + 1, key, sizeof(uint64_t) * len);
  M->slot[i].hash = h;
  M->slot[i].at = M->used + 1;
  M->used += len + 1;
  M->count++;
  return true;
}

void ex_memo_add(ex_memo *M, const uint64_t *key, size_t len, uint64_t h) {
  size_t i = memo_find(M, key, len, h);
  if (M->slot[i].at) return;
  if (!memo_store(M, i, key, len, h)) {
    memo_clear(M); /* forgetting is safe; the newest failure is kept */
    memo_store(M, memo_find(M, key, len, h), key, len, h);
  }
}

uint64_t ex_memo_intern(ex_memo *M, const uint64_t *key, size_t len) {
  /* the entry is the key followed by its id */
  uint64_t h = ex_memo_hash(key, len);
  for (size_t i = (size_t)(h & M->mask); M->slot[i].at; i = (i + 1) & M->mask) {
    const uint64_t *e = M->pool + M->slot[i].at - 1;
    if (M->slot[i].hash == h && e[0] == len + 1 && memcmp(e + 1, key, sizeof(uint64_t) * len) == 0)
      return e[1 + len];
  }
  uint64_t id = ++M->next_id;
  uint64_t *tmp = mp_xmalloc(sizeof(uint64_t) * (len + 1));
  memcpy(tmp, key, sizeof(uint64_t) * len);
  tmp[len] = id;
  /* stored under the hash of the key alone; an empty slot by construction */
  size_t i = (size_t)(h & M->mask);
  while (M->slot[i].at) i = (i + 1) & M->mask;
  if (!memo_store(M, i, tmp, len + 1, h)) {
    memo_clear(M);
    i = (size_t)(h & M->mask);
    memo_store(M, i, tmp, len + 1, h);
  }
  free(tmp);
  return id;
}
