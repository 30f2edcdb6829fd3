/* minseg.h - a segment tree of keys over fixed positions 0..n-1: set or
 * clear a position, the smallest key over a range, the first non-empty
 * position; each O(log n).  The list schedulers keep their ready nodes in
 * one, keyed by their rule, so a step costs O(degree x log n) instead of a
 * scan of every ready node. */
#ifndef MP_LIB_MINSEG_H
#define MP_LIB_MINSEG_H

#include <stdbool.h>
#include <stdint.h>

/* Ordered by k[0], k[1], k[2]; `v` rides along (the node it stands for). */
typedef struct mp_mskey {
  int64_t k[3];
  int v;
} mp_mskey;

typedef struct mp_minseg {
  int size; /* leaves: a power of two >= n */
  mp_mskey *t;
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

#endif
