/* pack_sweep.c - see pack_sweep.h.  The live items never overlap (each was
 * placed clear of those live with it), so their free space below the top is
 * a set of gaps: [0, lowest) and the space between neighbours.  A gap of
 * length 0 never fits anything and is not kept. */
#include <stdlib.h>

#include "lib/iheap.h"
#include "lib/pack_sweep.h"
#include "lib/treap.h"
#include "util.h"

/* Each gap is in by_start under key (start, length) and, for best fit, in
 * by_len under (length, start); its value is what an item of the common
 * alignment `al` can use of it: end - start rounded up to al.  So the
 * first gap in key order with value >= size is the answer when the item
 * has that alignment, without passing over the gaps that only alignment
 * rules out (a sequence of 16-byte items 64-aligned leaves 48-byte gaps
 * that fit none of them: visiting each of those made the sweep quadratic).
 * Items of another alignment check each gap (al is then 1: the value is
 * the length, a bound on what they can use). */
typedef struct live_gaps {
  mp_treap by_start;
  mp_treap by_len;   /* best fit only */
  bool best;
  int64_t al;        /* the alignment every item shares, else 1 */
  int64_t top;       /* end of the highest live item, 0 when none */
} live_gaps;

static int64_t usable(const live_gaps *g, int64_t lo, int64_t hi) { return hi - mp_align_up(lo, g->al); }

static void gap_add(live_gaps *g, int64_t lo, int64_t hi) {
  if (hi <= lo) return;
  mp_treap_insert(&g->by_start, (mp_treap_key){lo, hi - lo}, usable(g, lo, hi));
  if (g->best) mp_treap_insert(&g->by_len, (mp_treap_key){hi - lo, lo}, usable(g, lo, hi));
}

static void gap_del(live_gaps *g, int64_t lo, int64_t hi) {
  mp_treap_erase(&g->by_start, (mp_treap_key){lo, hi - lo});
  if (g->best) mp_treap_erase(&g->by_len, (mp_treap_key){hi - lo, lo});
}

/* The gap holding [a, b), which must lie in one, or below the top. */
static void occupy(live_gaps *g, int64_t a, int64_t b) {
  if (a >= g->top) {
    gap_add(g, g->top, a); /* alignment may leave room under a new top */
    g->top = b;
    return;
  }
  const mp_treap_node *x =
      mp_treap_at(&g->by_start, mp_treap_below(&g->by_start, (mp_treap_key){a, INT64_MAX}));
  int64_t lo = x->key.a, hi = lo + x->key.b;
  gap_del(g, lo, hi);
  gap_add(g, lo, a);
  gap_add(g, b, hi);
}

/* The live item at [a, b) dies: it and the gaps touching it become one gap,
 * or, if it was the highest, free space above the new top. */
static void release(live_gaps *g, int64_t a, int64_t b) {
  int64_t lo = a, hi = b;
  int below = mp_treap_below(&g->by_start, (mp_treap_key){a, 0});
  if (below >= 0) {
    const mp_treap_node *x = mp_treap_at(&g->by_start, below);
    if (x->key.a + x->key.b == a) {
      lo = x->key.a;
      gap_del(g, lo, a);
    }
  }
  if (b == g->top) {
    g->top = lo;
    return;
  }
  int above = mp_treap_ceil(&g->by_start, (mp_treap_key){b, 0});
  if (above >= 0 && mp_treap_at(&g->by_start, above)->key.a == b) {
    hi = b + mp_treap_at(&g->by_start, above)->key.b;
    gap_del(g, b, hi);
  }
  gap_add(g, lo, hi);
}

static bool fits(int64_t lo, int64_t hi, int64_t size, int64_t al) {
  return mp_align_up(lo, al) + size <= hi;
}

/* The lowest gap whose aligned start fits, or the smallest such gap (ties:
 * the lowest); else the aligned top. */
static int64_t choose(const live_gaps *g, int64_t size, int64_t al, enum mp_fit fit) {
  if (fit == MP_FIRST_FIT) {
    mp_treap_key from = {INT64_MIN, 0};
    for (int n; (n = mp_treap_ceil_val(&g->by_start, from, size)) >= 0;) {
      const mp_treap_node *x = mp_treap_at(&g->by_start, n);
      if (fits(x->key.a, x->key.a + x->key.b, size, al)) return mp_align_up(x->key.a, al);
      from = (mp_treap_key){x->key.a + 1, 0};
    }
  } else {
    mp_treap_key from = {size, INT64_MIN};
    for (int n; (n = mp_treap_ceil_val(&g->by_len, from, size)) >= 0;) {
      const mp_treap_node *x = mp_treap_at(&g->by_len, n);
      if (fits(x->key.b, x->key.b + x->key.a, size, al)) return mp_align_up(x->key.b, al);
      from = (mp_treap_key){x->key.a, x->key.b + 1};
    }
  }
  return mp_align_up(g->top, al);
}

/* The alignment every item of positive size has, or 1. */
static int64_t common_align(const mp_problem *p) {
  int64_t al = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    int64_t a = it->align < 1 ? 1 : it->align;
    if (it->size <= 0) continue;
    if (al && a != al) return 1;
    al = a;
  }
  return al ? al : 1;
}

bool mp_pack_sweep_applies(const mp_problem *p, const int *seq, int m) {
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0) return false;
  int64_t last = INT64_MIN;
  for (int k = 0; k < m; k++) {
    const mp_item *it = &p->items[seq[k]];
    if (it->size <= 0) continue;
    if (it->hi <= it->lo || it->lo < last) return false;
    last = it->lo;
  }
  return true;
}

/* the live items by death (ties: the index) */
static bool dies_first(const void *ctx, int a, int b) {
  const mp_item *items = ctx;
  if (items[a].hi != items[b].hi) return items[a].hi < items[b].hi;
  return a < b;
}

void mp_pack_sweep(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off) {
  live_gaps g;
  mp_treap_init(&g.by_start);
  mp_treap_init(&g.by_len);
  g.best = fit == MP_BEST_FIT;
  g.al = common_align(p);
  g.top = 0;
  mp_iheap h;
  mp_iheap_init(&h, dies_first, p->items);
  mp_iheap_reserve(&h, m);
  for (int k = 0; k < m; k++) {
    int i = seq[k];
    const mp_item *it = &p->items[i];
    if (off[i] >= 0) continue;
    if (it->size <= 0) {
      off[i] = 0;
      continue;
    }
    while (h.n > 0 && p->items[h.a[0]].hi <= it->lo) {
      int j = mp_iheap_pop(&h);
      release(&g, off[j], off[j] + p->items[j].size);
    }
    off[i] = choose(&g, it->size, it->align < 1 ? 1 : it->align, fit);
    occupy(&g, off[i], off[i] + it->size);
    mp_iheap_push(&h, i);
  }
  mp_iheap_destroy(&h);
  mp_treap_destroy(&g.by_start);
  mp_treap_destroy(&g.by_len);
}
