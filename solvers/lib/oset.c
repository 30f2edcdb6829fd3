/* oset.c - see oset.h.  Leaves hold up to CAP entries in key order and are
 * linked both ways; an inner node holds up to CAP children, each with a low
 * key and the largest value under it.  Invariant, for i >= 1: every key
 * under child i is >= low[i], and every key under child i - 1 is below it
 * (a low is a bound, not always the smallest key: erasing the smallest
 * leaves it).  A search never reads low[0]: child 0 takes every key below
 * low[1].  A node's low[0] equals its parent's low for it unless the node
 * is its parent's first child (a split or an evening-out copies it up, and
 * only keys >= it are routed to a later child), so when siblings merge or
 * even out, the lows that move up are bounds of this kind.  A
 * node may hold CAP + 1 entries between an insert and its split; a node
 * other than the root holds at least MIN_FILL after an erase's repair, so
 * no leaf but the root is empty. */
#include <stdlib.h>
#include <string.h>

#include "lib/oset.h"
#include "util.h"

enum { CAP = 32, MIN_FILL = CAP / 4, MERGE_MAX = 3 * CAP / 4, MAX_DEPTH = 48 };

typedef struct mp_oset_leaf {
  int n, prev, next;
  mp_oset_key key[CAP + 1];
  int64_t val[CAP + 1];
} leaf;

typedef struct mp_oset_inner {
  int n;
  int child[CAP + 1];
  mp_oset_key low[CAP + 1];
  int64_t max[CAP + 1];
} inner;

static int key_cmp(mp_oset_key x, mp_oset_key y) {
  if (x.a != y.a) return x.a < y.a ? -1 : 1;
  return (x.b > y.b) - (x.b < y.b);
}

void mp_oset_init(mp_oset *t) { memset(t, 0, sizeof *t), t->root = t->free_leaf = t->free_inner = -1; }

void mp_oset_destroy(mp_oset *t) {
  free(t->leaf);
  free(t->inner);
  mp_oset_init(t);
}

/* ---- node pools (a new node may move the pool: take pointers after) ---- */

static int new_leaf(mp_oset *t) {
  int x = t->free_leaf;
  if (x >= 0) {
    t->free_leaf = t->leaf[x].next;
  } else {
    if (t->n_leaf == t->cap_leaf) {
      t->cap_leaf = t->cap_leaf ? 2 * t->cap_leaf : 4;
      t->leaf = mp_xrealloc(t->leaf, sizeof(leaf) * (size_t)t->cap_leaf);
    }
    x = t->n_leaf++;
  }
  t->leaf[x].n = 0;
  t->leaf[x].prev = t->leaf[x].next = -1;
  return x;
}

static int new_inner(mp_oset *t) {
  int x = t->free_inner;
  if (x >= 0) {
    t->free_inner = t->inner[x].child[0];
  } else {
    if (t->n_inner == t->cap_inner) {
      t->cap_inner = t->cap_inner ? 2 * t->cap_inner : 4;
      t->inner = mp_xrealloc(t->inner, sizeof(inner) * (size_t)t->cap_inner);
    }
    x = t->n_inner++;
  }
  t->inner[x].n = 0;
  return x;
}

static void free_node(mp_oset *t, int h, int x) {
  if (h == 0) t->leaf[x].next = t->free_leaf, t->free_leaf = x;
  else t->inner[x].child[0] = t->free_inner, t->free_inner = x;
}

/* ---- what a parent keeps of a child at height h ---- */

static int node_n(const mp_oset *t, int h, int x) { return h == 0 ? t->leaf[x].n : t->inner[x].n; }

static mp_oset_key node_low(const mp_oset *t, int h, int x) {
  return h == 0 ? t->leaf[x].key[0] : t->inner[x].low[0];
}

static int64_t node_max(const mp_oset *t, int h, int x) {
  int n = node_n(t, h, x);
  const int64_t *v = h == 0 ? t->leaf[x].val : t->inner[x].max;
  int64_t m = INT64_MIN;
  for (int i = 0; i < n; i++)
    if (v[i] > m) m = v[i];
  return m;
}

/* ---- searching within a node ---- */

/* The first entry of the leaf whose key is >= key (n if none). */
static int leaf_lower(const leaf *L, mp_oset_key key) {
  int lo = 0, hi = L->n;
  while (lo < hi) {
    int m = (lo + hi) / 2;
    if (key_cmp(L->key[m], key) < 0) lo = m + 1; else hi = m;
  }
  return lo;
}

/* The child to descend into for key: the last whose low is <= key (or <
 * key when `strict`), child 0 if none. */
static int route(const inner *I, mp_oset_key key, bool strict) {
  int lo = 1, hi = I->n; /* first i >= 1 whose low is past key */
  while (lo < hi) {
    int m = (lo + hi) / 2;
    int c = key_cmp(I->low[m], key);
    if (c < 0 || (c == 0 && !strict)) lo = m + 1; else hi = m;
  }
  return lo - 1;
}

static bool put(mp_oset_entry *out, const leaf *L, int p) {
  out->key = L->key[p];
  out->val = L->val[p];
  return true;
}

/* ---- queries ---- */

static const leaf *descend(const mp_oset *t, mp_oset_key key, bool strict) {
  int x = t->root;
  for (int h = t->height; h > 0; h--) x = t->inner[x].child[route(&t->inner[x], key, strict)];
  return &t->leaf[x];
}

bool mp_oset_ceil(const mp_oset *t, mp_oset_key key, mp_oset_entry *out) {
  if (t->size == 0) return false;
  const leaf *L = descend(t, key, false);
  int p = leaf_lower(L, key);
  if (p < L->n) return put(out, L, p);
  return L->next >= 0 && put(out, &t->leaf[L->next], 0); /* every key there is above */
}

bool mp_oset_below(const mp_oset *t, mp_oset_key key, mp_oset_entry *out) {
  if (t->size == 0) return false;
  const leaf *L = descend(t, key, true);
  int p = leaf_lower(L, key) - 1;
  if (p >= 0) return put(out, L, p);
  if (L->prev < 0) return false;
  const leaf *P = &t->leaf[L->prev]; /* every key there is below */
  return put(out, P, P->n - 1);
}

/* Under node x of height h: the first entry whose key is >= *from (no
 * bound when from is NULL) and whose value is >= v.  Past the child that
 * holds *from, every key is above it, so only that child needs the bound
 * and the first later child whose max is >= v holds the answer. */
static bool ceil_val_in(const mp_oset *t, int h, int x, const mp_oset_key *from, int64_t v,
                        mp_oset_entry *out) {
  if (h == 0) {
    const leaf *L = &t->leaf[x];
    for (int p = from ? leaf_lower(L, *from) : 0; p < L->n; p++)
      if (L->val[p] >= v) return put(out, L, p);
    return false;
  }
  const inner *I = &t->inner[x];
  int i = from ? route(I, *from, false) : 0;
  for (int j = i; j < I->n; j++)
    if (I->max[j] >= v && ceil_val_in(t, h - 1, I->child[j], j == i ? from : NULL, v, out)) return true;
  return false;
}

bool mp_oset_ceil_val(const mp_oset *t, mp_oset_key key, int64_t v, mp_oset_entry *out) {
  return t->size > 0 && ceil_val_in(t, t->height, t->root, &key, v, out);
}

/* ---- insert ---- */

/* Copy k entries of node src (height h) from position sp to node dst at
 * position dp; the two ranges may overlap. */
static void move_entries(mp_oset *t, int h, int dst, int dp, int src, int sp, int k) {
  if (k <= 0) return;
  if (h == 0) {
    leaf *D = &t->leaf[dst], *S = &t->leaf[src];
    memmove(D->key + dp, S->key + sp, sizeof *D->key * (size_t)k);
    memmove(D->val + dp, S->val + sp, sizeof *D->val * (size_t)k);
  } else {
    inner *D = &t->inner[dst], *S = &t->inner[src];
    memmove(D->child + dp, S->child + sp, sizeof *D->child * (size_t)k);
    memmove(D->low + dp, S->low + sp, sizeof *D->low * (size_t)k);
    memmove(D->max + dp, S->max + sp, sizeof *D->max * (size_t)k);
  }
}

static void set_n(mp_oset *t, int h, int x, int n) {
  if (h == 0) t->leaf[x].n = n;
  else t->inner[x].n = n;
}

/* Move the upper half of node x (height h) into a new node after it; the
 * new node's index. */
static int split(mp_oset *t, int h, int x) {
  int y = h == 0 ? new_leaf(t) : new_inner(t);
  int n = node_n(t, h, x), keep = n / 2;
  move_entries(t, h, y, 0, x, keep, n - keep);
  set_n(t, h, y, n - keep);
  set_n(t, h, x, keep);
  if (h == 0) { /* link y after x */
    leaf *L = &t->leaf[x], *R = &t->leaf[y];
    R->prev = x, R->next = L->next;
    if (L->next >= 0) t->leaf[L->next].prev = y;
    L->next = y;
  }
  return y;
}

/* Put child c (height h - 1) at position i of inner node x. */
static void inner_put(mp_oset *t, int h, int x, int i, int c) {
  mp_oset_key low = node_low(t, h - 1, c);
  int64_t max = node_max(t, h - 1, c);
  move_entries(t, h, x, i + 1, x, i, t->inner[x].n - i);
  inner *I = &t->inner[x];
  I->child[i] = c, I->low[i] = low, I->max[i] = max;
  I->n++;
}

void mp_oset_insert(mp_oset *t, mp_oset_key key, int64_t val) {
  if (t->root < 0) t->root = new_leaf(t), t->height = 0;
  int path[MAX_DEPTH], slot[MAX_DEPTH], x = t->root;
  for (int h = t->height; h > 0; h--) {
    inner *I = &t->inner[x];
    int i = route(I, key, false);
    if (val > I->max[i]) I->max[i] = val;
    path[h] = x, slot[h] = i, x = I->child[i];
  }
  leaf *L = &t->leaf[x];
  int p = leaf_lower(L, key);
  move_entries(t, 0, x, p + 1, x, p, L->n - p);
  L->key[p] = key, L->val[p] = val;
  L->n++;
  t->size++;
  /* split what overflowed, from the leaf up */
  int h = 0;
  for (; h < t->height && node_n(t, h, x) > CAP; h++) {
    int y = split(t, h, x), up = path[h + 1], i = slot[h + 1];
    t->inner[up].max[i] = node_max(t, h, x);
    inner_put(t, h + 1, up, i + 1, y);
    x = up;
  }
  if (h == t->height && node_n(t, h, x) > CAP) { /* the root splits: a new root above */
    int y = split(t, h, x), r = new_inner(t);
    inner_put(t, h + 1, r, 0, x);
    inner_put(t, h + 1, r, 1, y);
    t->root = r, t->height++;
  }
}

/* ---- erase ---- */

/* Append node y's entries to node x's (both height h, siblings, x first). */
static void append(mp_oset *t, int h, int x, int y) {
  int nx = node_n(t, h, x), ny = node_n(t, h, y);
  move_entries(t, h, x, nx, y, 0, ny);
  set_n(t, h, x, nx + ny);
  if (h == 0) { /* unlink y */
    t->leaf[x].next = t->leaf[y].next;
    if (t->leaf[y].next >= 0) t->leaf[t->leaf[y].next].prev = x;
  }
}

/* Move entries between siblings x and y (height h, x first) so each holds
 * half: the moved ones keep their order, so x's last key stays below y's
 * first. */
static void even_out(mp_oset *t, int h, int x, int y) {
  int nx = node_n(t, h, x), ny = node_n(t, h, y), want = (nx + ny) / 2;
  if (nx > want) { /* x's tail to y's front */
    int k = nx - want;
    move_entries(t, h, y, k, y, 0, ny);
    move_entries(t, h, y, 0, x, want, k);
  } else { /* y's front to x's tail */
    int k = want - nx;
    move_entries(t, h, x, nx, y, 0, k);
    move_entries(t, h, y, 0, y, k, ny - k);
  }
  set_n(t, h, x, want);
  set_n(t, h, y, nx + ny - want);
}

/* Child i of inner node x (height h) holds too few: merge it with a
 * sibling, or even the two out. */
static void repair(mp_oset *t, int h, int x, int i) {
  inner *I = &t->inner[x];
  int l = i + 1 < I->n ? i : i - 1, cl = I->child[l], cr = I->child[l + 1];
  if (node_n(t, h - 1, cl) + node_n(t, h - 1, cr) <= MERGE_MAX) {
    append(t, h - 1, cl, cr);
    free_node(t, h - 1, cr);
    move_entries(t, h, x, l + 1, x, l + 2, I->n - (l + 2));
    I->n--;
  } else {
    even_out(t, h - 1, cl, cr);
    I->low[l + 1] = node_low(t, h - 1, cr);
    I->max[l + 1] = node_max(t, h - 1, cr);
  }
  I->max[l] = node_max(t, h - 1, cl);
}

bool mp_oset_erase(mp_oset *t, mp_oset_key key) {
  if (t->size == 0) return false;
  int path[MAX_DEPTH], slot[MAX_DEPTH], x = t->root;
  for (int h = t->height; h > 0; h--) {
    int i = route(&t->inner[x], key, false);
    path[h] = x, slot[h] = i, x = t->inner[x].child[i];
  }
  leaf *L = &t->leaf[x];
  int p = leaf_lower(L, key);
  if (p == L->n || key_cmp(L->key[p], key) != 0) return false;
  int64_t gone = L->val[p];
  move_entries(t, 0, x, p, x, p + 1, L->n - p - 1);
  L->n--;
  t->size--;
  /* from the leaf up: a child gone thin merged or evened out (its max and
   * its sibling's taken again), else its max, which only the value gone can
   * have lowered: a value below the max leaves it standing (lower levels'
   * repairs only move entries within the child) */
  for (int h = 1; h <= t->height; h++) {
    int up = path[h], i = slot[h];
    if (node_n(t, h - 1, t->inner[up].child[i]) < MIN_FILL) repair(t, h, up, i);
    else if (gone >= t->inner[up].max[i]) t->inner[up].max[i] = node_max(t, h - 1, t->inner[up].child[i]);
  }
  while (t->height > 0 && t->inner[t->root].n == 1) { /* a root of one child steps down */
    int r = t->root;
    t->root = t->inner[r].child[0];
    free_node(t, t->height, r);
    t->height--;
  }
  return true;
}

/* The largest value under node x (height h), checking each inner node's
 * maxes on the way; *ok turns false at the first that differs. */
static int64_t checked_max(const mp_oset *t, int h, int x, bool *ok) {
  if (h == 0) return node_max(t, 0, x);
  const inner *I = &t->inner[x];
  int64_t m = INT64_MIN;
  for (int i = 0; i < I->n; i++) {
    int64_t c = checked_max(t, h - 1, I->child[i], ok);
    *ok = *ok && c == I->max[i];
    m = c > m ? c : m;
  }
  return m;
}

bool mp_oset_maxes_exact(const mp_oset *t) {
  bool ok = true;
  if (t->root >= 0 && t->size > 0) checked_max(t, t->height, t->root, &ok);
  return ok;
}
