/* minseg.h - keys over fixed positions 0..n-1: set or clear a position, the
 * smallest key over a range, the first non-empty position.  The list
 * schedulers keep their ready nodes in one, keyed by their rule, so a step
 * costs O(degree x log n) instead of a scan of every ready node.
 * Positions come in blocks of 64 with a bit per position; a segment tree
 * keeps the smallest key of each block.  The tree is n / 64 leaves, so it
 * stays in cache at 10^6 nodes and an update touches one block of keys
 * (a tree over every position missed the cache at most of its 20 levels). */
#ifndef MP_LIB_MINSEG_H
#define MP_LIB_MINSEG_H

#include <stdbool.h>
#include <stdint.h>

/* Ordered by k[0], k[1], k[2]; `v` rides along (the node it stands for).
 * The keys of a set are distinct (the schedulers end them with the file
 * position); among equal keys any one may be returned. */
typedef struct mp_mskey {
  int64_t k[3];
  int v;
} mp_mskey;

typedef struct mp_minseg {
  int n;
  int size;      /* tree leaves: a power of two >= the blocks */
  mp_mskey *key; /* per position (meaningful where its bit is set) */
  uint64_t *bit; /* per block of 64 positions: the occupied ones */
  mp_mskey *t;   /* the tree: t[1] the smallest key of all, leaf size + b block b's */
} mp_minseg;

void mp_minseg_init(mp_minseg *s, int n);
void mp_minseg_destroy(mp_minseg *s);
void mp_minseg_set(mp_minseg *s, int pos, mp_mskey key);
void mp_minseg_clear(mp_minseg *s, int pos);
/* The smallest key among positions [l, r); empty (mp_minseg_empty) if none. */
mp_mskey mp_minseg_min(const mp_minseg *s, int l, int r);
/* The first non-empty position, or -1. */
int mp_minseg_first(const mp_minseg *s);
bool mp_minseg_empty(mp_mskey k);
/* The smallest key of all (empty if none). */
static inline mp_mskey mp_minseg_top(const mp_minseg *s) { return s->t[1]; }

#endif
