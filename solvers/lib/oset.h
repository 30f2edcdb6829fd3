/* oset.h - an ordered set of (a, b) int64 key pairs, each with an int64
 * value, kept as a B+ tree.  Every inner node knows the largest value under
 * each child, so "the first key from here on whose value is at least v" is
 * a walk down a path or two.  The packer's birth-order sweep keeps its gaps
 * in these (by start, with the usable length as value; by length); the
 * colouring placers keep their slots' members in one.  Wide nodes: a lookup
 * at 10^6 keys reads four or five of them where a binary tree missed the
 * cache at most of its 20-odd levels. */
#ifndef MP_LIB_OSET_H
#define MP_LIB_OSET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct mp_oset_key {
  int64_t a, b; /* ordered by a, then b */
} mp_oset_key;

typedef struct mp_oset_entry {
  mp_oset_key key;
  int64_t val;
} mp_oset_entry;

struct mp_oset_leaf;
struct mp_oset_inner;

typedef struct mp_oset {
  struct mp_oset_leaf *leaf;   /* node pools; freed nodes are reused */
  struct mp_oset_inner *inner;
  int n_leaf, cap_leaf, free_leaf;
  int n_inner, cap_inner, free_inner;
  int root;   /* a leaf when height is 0, else an inner node; -1 when never used */
  int height; /* inner levels above the leaves */
  int size;   /* keys held */
} mp_oset;

void mp_oset_init(mp_oset *t);
void mp_oset_destroy(mp_oset *t);
/* Insert key with value val; the key must not be present. */
void mp_oset_insert(mp_oset *t, mp_oset_key key, int64_t val);
/* Remove key; false if it was not present. */
bool mp_oset_erase(mp_oset *t, mp_oset_key key);
/* The entry of the smallest key >= key (lower bound); false if none. */
bool mp_oset_ceil(const mp_oset *t, mp_oset_key key, mp_oset_entry *out);
/* The entry of the largest key < key; false if none. */
bool mp_oset_below(const mp_oset *t, mp_oset_key key, mp_oset_entry *out);
/* The entry of the smallest key >= key whose value is >= v; false if none. */
bool mp_oset_ceil_val(const mp_oset *t, mp_oset_key key, int64_t v, mp_oset_entry *out);
/* For tests: whether every inner node's max for each child is the largest
 * value under it (a larger one would only slow mp_oset_ceil_val). */
bool mp_oset_maxes_exact(const mp_oset *t);

#endif
