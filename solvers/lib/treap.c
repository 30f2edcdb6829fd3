/* treap.c - see treap.h.  Split and merge, each O(log n) expected. */
#include <stdlib.h>

#include "lib/treap.h"
#include "util.h"

void mp_treap_init(mp_treap *t) {
  t->nodes = NULL;
  t->cap = t->used = t->size = 0;
  t->free_list = -1;
  t->root = -1;
  t->rng = 0x9e3779b9u;
}

void mp_treap_destroy(mp_treap *t) {
  free(t->nodes);
  mp_treap_init(t);
}

static int key_cmp(mp_treap_key x, mp_treap_key y) {
  if (x.a != y.a) return x.a < y.a ? -1 : 1;
  return (x.b > y.b) - (x.b < y.b);
}

static int64_t max_of(const mp_treap *t, int n) { return n < 0 ? INT64_MIN : t->nodes[n].max_val; }

static void pull(mp_treap *t, int n) {
  mp_treap_node *x = &t->nodes[n];
  int64_t m = x->val, l = max_of(t, x->left), r = max_of(t, x->right);
  x->max_val = m > l ? (m > r ? m : r) : (l > r ? l : r);
}

/* Split the subtree n into keys < key (or <= key when `incl`) and the rest. */
static void split(mp_treap *t, int n, mp_treap_key key, bool incl, int *l, int *r) {
  if (n < 0) {
    *l = *r = -1;
    return;
  }
  int c = key_cmp(t->nodes[n].key, key);
  if (c < 0 || (incl && c == 0)) {
    split(t, t->nodes[n].right, key, incl, &t->nodes[n].right, r);
    *l = n;
  } else {
    split(t, t->nodes[n].left, key, incl, l, &t->nodes[n].left);
    *r = n;
  }
  pull(t, n);
}

/* Every key of l is below every key of r. */
static int merge(mp_treap *t, int l, int r) {
  if (l < 0) return r;
  if (r < 0) return l;
  if (t->nodes[l].prio > t->nodes[r].prio) {
    t->nodes[l].right = merge(t, t->nodes[l].right, r);
    pull(t, l);
    return l;
  }
  t->nodes[r].left = merge(t, l, t->nodes[r].left);
  pull(t, r);
  return r;
}

static int new_node(mp_treap *t, mp_treap_key key, int64_t val) {
  int n;
  if (t->free_list >= 0) {
    n = t->free_list;
    t->free_list = t->nodes[n].left;
  } else {
    if (t->used == t->cap) {
      t->cap = t->cap ? 2 * t->cap : 64;
      t->nodes = mp_xrealloc(t->nodes, sizeof(mp_treap_node) * (size_t)t->cap);
    }
    n = t->used++;
  }
  /* xorshift32: the shape depends on it, the contents never do */
  t->rng ^= t->rng << 13;
  t->rng ^= t->rng >> 17;
  t->rng ^= t->rng << 5;
  t->nodes[n] = (mp_treap_node){key, val, val, t->rng, -1, -1};
  return n;
}

/* Insert node x under n: down to where its priority belongs, then the
 * subtree there is split around it. */
static int insert_at(mp_treap *t, int n, int x) {
  if (n < 0) return x;
  if (t->nodes[x].prio > t->nodes[n].prio) {
    split(t, n, t->nodes[x].key, false, &t->nodes[x].left, &t->nodes[x].right);
    pull(t, x);
    return x;
  }
  if (key_cmp(t->nodes[x].key, t->nodes[n].key) < 0)
    t->nodes[n].left = insert_at(t, t->nodes[n].left, x);
  else
    t->nodes[n].right = insert_at(t, t->nodes[n].right, x);
  pull(t, n);
  return n;
}

void mp_treap_insert(mp_treap *t, mp_treap_key key, int64_t val) {
  int x = new_node(t, key, val);
  t->root = insert_at(t, t->root, x);
  t->size++;
}

/* Remove key from under n (the node's children merge in its place);
 * *found tells whether it was there. */
static int erase_at(mp_treap *t, int n, mp_treap_key key, bool *found) {
  if (n < 0) return -1;
  int c = key_cmp(key, t->nodes[n].key);
  if (c == 0) {
    int m = merge(t, t->nodes[n].left, t->nodes[n].right);
    t->nodes[n].left = t->free_list;
    t->free_list = n;
    *found = true;
    return m;
  }
  if (c < 0)
    t->nodes[n].left = erase_at(t, t->nodes[n].left, key, found);
  else
    t->nodes[n].right = erase_at(t, t->nodes[n].right, key, found);
  if (*found) pull(t, n);
  return n;
}

bool mp_treap_erase(mp_treap *t, mp_treap_key key) {
  bool found = false;
  t->root = erase_at(t, t->root, key, &found);
  if (found) t->size--;
  return found;
}

int mp_treap_ceil(const mp_treap *t, mp_treap_key key) {
  int n = t->root, best = -1;
  while (n >= 0) {
    if (key_cmp(t->nodes[n].key, key) >= 0) {
      best = n;
      n = t->nodes[n].left;
    } else {
      n = t->nodes[n].right;
    }
  }
  return best;
}

int mp_treap_below(const mp_treap *t, mp_treap_key key) {
  int n = t->root, best = -1;
  while (n >= 0) {
    if (key_cmp(t->nodes[n].key, key) < 0) {
      best = n;
      n = t->nodes[n].right;
    } else {
      n = t->nodes[n].left;
    }
  }
  return best;
}

static int ceil_val(const mp_treap *t, int n, mp_treap_key key, int64_t v) {
  while (n >= 0 && t->nodes[n].max_val >= v) {
    const mp_treap_node *x = &t->nodes[n];
    if (key_cmp(x->key, key) < 0) {
      n = x->right;
      continue;
    }
    int in_left = ceil_val(t, x->left, key, v);
    if (in_left >= 0) return in_left;
    if (x->val >= v) return n;
    n = x->right;
  }
  return -1;
}

int mp_treap_ceil_val(const mp_treap *t, mp_treap_key key, int64_t v) {
  return ceil_val(t, t->root, key, v);
}
