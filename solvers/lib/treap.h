/* treap.h - an ordered set of (a, b) int64 key pairs, each with an int64
 * value, kept as a treap in one node pool.  Every subtree knows the largest
 * value in it, so "the first key from here on whose value is at least v" is
 * a walk down one path.  The packer's birth-order sweep keeps its gaps in
 * two of these (by start, with the length as value; by length). */
#ifndef MP_LIB_TREAP_H
#define MP_LIB_TREAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct mp_treap_key {
  int64_t a, b; /* ordered by a, then b */
} mp_treap_key;

typedef struct mp_treap_node {
  mp_treap_key key;
  int64_t val, max_val; /* max_val: the largest val in the subtree */
  uint32_t prio;
  int left, right;      /* node indices, -1 for none */
} mp_treap_node;

typedef struct mp_treap {
  mp_treap_node *nodes;
  int cap, used;
  int free_list; /* reused nodes, linked through .left */
  int root;
  int size;
  uint32_t rng;
} mp_treap;

void mp_treap_init(mp_treap *t);
void mp_treap_destroy(mp_treap *t);
/* Insert key with value val; the key must not be present. */
void mp_treap_insert(mp_treap *t, mp_treap_key key, int64_t val);
/* Remove key; returns false if it was not present. */
bool mp_treap_erase(mp_treap *t, mp_treap_key key);
/* The node of the smallest key >= key (lower bound), or -1. */
int mp_treap_ceil(const mp_treap *t, mp_treap_key key);
/* The node of the largest key < key, or -1. */
int mp_treap_below(const mp_treap *t, mp_treap_key key);
/* The node of the smallest key >= key whose value is >= v, or -1. */
int mp_treap_ceil_val(const mp_treap *t, mp_treap_key key, int64_t v);

static inline const mp_treap_node *mp_treap_at(const mp_treap *t, int node) {
  return &t->nodes[node];
}

#endif
