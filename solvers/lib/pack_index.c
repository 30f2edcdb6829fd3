/* pack_index.c - see pack_index.h. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/pack_index.h"
#include "util.h"

typedef struct rec {
  int node, idx;
  int64_t key;
} rec;

/* Records by (node, key ascending, idx) and (node, key descending, idx),
 * radix sorted (the least significant key first): qsort's comparisons
 * were most of the index's set-up. */
static uint64_t rec_key_asc(const void *r, int pass) {
  const rec *x = r;
  return pass == 0 ? (uint64_t)x->idx : pass == 1 ? mp_radix_key(x->key) : (uint64_t)x->node;
}

static uint64_t rec_key_desc(const void *r, int pass) {
  const rec *x = r;
  return pass == 1 ? ~mp_radix_key(x->key) : rec_key_asc(r, pass);
}

static uint64_t i64_key(const void *r, int pass) {
  (void)pass;
  return mp_radix_key(*(const int64_t *)r);
}

/* First position in a[0..n) whose value is >= v (a ascending); branch-free
 * halving, as the queries' searches are unpredictable. */
static int lower_bound(const int64_t *a, int n, int64_t v) {
  const int64_t *base = a;
  while (n > 1) {
    int half = n / 2;
    base = base[half - 1] < v ? base + half : base;
    n -= half;
  }
  return (int)(base - a) + (n == 1 && *base < v);
}

/* First position in a[0..n) whose value is < v (a descending). */
static int first_below(const int64_t *a, int n, int64_t v) {
  const int64_t *base = a;
  while (n > 1) {
    int half = n / 2;
    base = base[half - 1] >= v ? base + half : base;
    n -= half;
  }
  return (int)(base - a) + (n == 1 && *base >= v);
}

/* Items on the stabbing tree: a lifetime that spans at least one step
 * boundary, t - 1 to t for t in [lo + 1, hi - 1]. */
static bool on_tree(const mp_item *it) { return it->size > 0 && it->lo < it->hi && it->lo + 1 < it->hi; }

/* The node holding [l, h]: the first node from the root whose endpoint
 * position lies between the positions of l and h. */
static int node_of(const mp_lifeindex *x, int64_t l, int64_t h) {
  int pl = lower_bound(x->end, x->n_end, l), ph = lower_bound(x->end, x->n_end, h);
  int lo = 0, hi = x->n_end - 1;
  for (;;) {
    int mid = lo + (hi - lo) / 2;
    if (ph < mid) hi = mid - 1;
    else if (pl > mid) lo = mid + 1;
    else return mid;
  }
}

/* One sorted copy of the tree items (by l ascending or h descending within
 * each node): order[], key[] and each item's position. */
static void tree_order(mp_lifeindex *x, rec *r, int m, bool by_h, int *order, int64_t *key,
                       int *pos) {
  const mp_item *items = x->p->items;
  for (int k = 0; k < m; k++) r[k].key = by_h ? items[r[k].idx].hi - 1 : items[r[k].idx].lo + 1;
  mp_radix_sort_records(r, sizeof *r, (size_t)m, 3, by_h ? rec_key_desc : rec_key_asc);
  for (int k = 0; k < m; k++) {
    order[k] = r[k].idx;
    key[k] = r[k].key;
    pos[r[k].idx] = k;
  }
}

/* Returns the number of items on the tree. */
static int build_tree(mp_lifeindex *x) {
  const mp_problem *p = x->p;
  int m = 0;
  for (int i = 0; i < p->n; i++) m += on_tree(&p->items[i]);
  size_t mz = (size_t)(m ? m : 1);
  x->end = mp_xmalloc(sizeof(int64_t) * 2 * mz);
  int ne = 0;
  for (int i = 0; i < p->n; i++)
    if (on_tree(&p->items[i])) {
      x->end[ne++] = p->items[i].lo + 1;
      x->end[ne++] = p->items[i].hi - 1;
    }
  mp_radix_sort_records(x->end, sizeof(int64_t), (size_t)ne, 1, i64_key);
  int u = 0;
  for (int k = 0; k < ne; k++)
    if (u == 0 || x->end[k] != x->end[u - 1]) x->end[u++] = x->end[k];
  x->n_end = u;
  rec *r = mp_xmalloc(sizeof(rec) * mz);
  m = 0;
  for (int i = 0; i < p->n; i++)
    if (on_tree(&p->items[i])) r[m++] = (rec){node_of(x, p->items[i].lo + 1, p->items[i].hi - 1), i, 0};
  x->node_start = mp_xcalloc((size_t)u + 1, sizeof(int));
  for (int k = 0; k < m; k++) x->node_start[r[k].node + 1]++;
  for (int k = 0; k < u; k++) x->node_start[k + 1] += x->node_start[k];
  x->by_l = mp_xmalloc(sizeof(int) * mz);
  x->by_h = mp_xmalloc(sizeof(int) * mz);
  x->l_key = mp_xmalloc(sizeof(int64_t) * mz);
  x->h_key = mp_xmalloc(sizeof(int64_t) * mz);
  tree_order(x, r, m, false, x->by_l, x->l_key, x->pos_l);
  tree_order(x, r, m, true, x->by_h, x->h_key, x->pos_h);
  free(r);
  return m;
}

/* The indexed items with a lifetime lo < hi (odd == false) or hi <= lo,
 * by (lo, index). */
static int sorted_by_lo(const mp_problem *p, bool odd, int **order, int64_t **key, int *pos) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  rec *r = mp_xmalloc(sizeof(rec) * nz);
  int m = 0;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].size > 0 && (p->items[i].hi <= p->items[i].lo) == odd) r[m++] = (rec){0, i, p->items[i].lo};
  mp_radix_sort_records(r, sizeof *r, (size_t)m, 3, rec_key_asc);
  size_t mz = (size_t)(m ? m : 1);
  *order = mp_xmalloc(sizeof(int) * mz);
  *key = mp_xmalloc(sizeof(int64_t) * mz);
  for (int k = 0; k < m; k++) {
    (*order)[k] = r[k].idx;
    (*key)[k] = r[k].key;
    pos[r[k].idx] = k;
  }
  free(r);
  return m;
}

static uint64_t *marks(int m) { return mp_xcalloc((size_t)m / 64 + 1, sizeof(uint64_t)); }
static mp_spanstore spans(int m) {
  return (mp_spanstore){mp_xmalloc(sizeof(mp_span32) * (size_t)(m ? m : 1)), NULL, m};
}

/* The marked spans of s at 64 bits from now on (a marked end passed 2^32). */
static void widen(mp_spanstore *s, const uint64_t *mark) {
  s->wide = mp_xmalloc(sizeof(mp_span) * (size_t)(s->n ? s->n : 1));
  for (int w = 0; w <= (s->n - 1) >> 6 && s->n > 0; w++)
    for (uint64_t bits = mark[w]; bits; bits &= bits - 1) {
      int pos = w * 64 + __builtin_ctzll(bits);
      s->wide[pos] = (mp_span){s->narrow[pos].lo, s->narrow[pos].hi};
    }
  free(s->narrow);
  s->narrow = NULL;
}

static inline mp_span span_at(const mp_spanstore *s, int pos) {
  if (s->wide) return s->wide[pos];
  return (mp_span){s->narrow[pos].lo, s->narrow[pos].hi};
}

void mp_lifeindex_init(mp_lifeindex *x, const mp_problem *p) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  x->p = p;
  x->pos_l = mp_xmalloc(sizeof(int) * nz);
  x->pos_h = mp_xmalloc(sizeof(int) * nz);
  x->pos_lo = mp_xmalloc(sizeof(int) * nz);
  x->pos_odd = mp_xmalloc(sizeof(int) * nz);
  for (int i = 0; i < p->n; i++) x->pos_l[i] = x->pos_h[i] = x->pos_lo[i] = x->pos_odd[i] = -1;
  int m = build_tree(x);
  x->mark_l = marks(m);
  x->mark_h = marks(m);
  x->span_l = spans(m);
  x->span_h = spans(m);
  x->n_lo = sorted_by_lo(p, false, &x->by_lo, &x->lo_key, x->pos_lo);
  x->n_odd = sorted_by_lo(p, true, &x->by_odd, &x->odd_key, x->pos_odd);
  x->mark_lo = marks(x->n_lo);
  x->mark_odd = marks(x->n_odd);
  x->span_lo = spans(x->n_lo);
  x->span_odd = spans(x->n_odd);
  x->marked_top = 0;
  x->cut = NULL;
  x->n_cut = 0;
  x->cut_first = x->lo_from = x->lo_to = NULL;
  x->cut_n = NULL;
}

void mp_lifeindex_destroy(mp_lifeindex *x) {
  void *owned[] = {x->end,    x->node_start, x->by_l,    x->by_h,    x->l_key,   x->h_key,
                   x->pos_l,  x->pos_h,      x->by_lo,   x->by_odd,  x->lo_key,  x->odd_key,
                   x->pos_lo, x->pos_odd,    x->mark_l,  x->mark_h,  x->mark_lo, x->mark_odd,
                   x->span_l.narrow, x->span_h.narrow, x->span_lo.narrow, x->span_odd.narrow,
                   x->span_l.wide, x->span_h.wide, x->span_lo.wide, x->span_odd.wide, x->cut,
                   x->cut_first, x->lo_from, x->lo_to, x->cut_n};
  for (size_t k = 0; k < sizeof owned / sizeof owned[0]; k++) free(owned[k]);
}

static inline void set_mark(uint64_t *m, mp_spanstore *sp, int pos, mp_span v) {
  if (pos < 0) return;
  m[pos >> 6] |= 1ull << (pos & 63);
  if (sp->wide) sp->wide[pos] = v;
  else sp->narrow[pos] = (mp_span32){(uint32_t)v.lo, (uint32_t)v.hi};
}

void mp_lifeindex_mark(mp_lifeindex *x, int i, int64_t lo, int64_t hi) {
  mp_span v = {lo, hi};
  if (hi > UINT32_MAX && !x->span_l.wide) { /* every store at once: lo < hi */
    widen(&x->span_l, x->mark_l);
    widen(&x->span_h, x->mark_h);
    widen(&x->span_lo, x->mark_lo);
    widen(&x->span_odd, x->mark_odd);
  }
  if (hi > x->marked_top) x->marked_top = hi;
  set_mark(x->mark_l, &x->span_l, x->pos_l[i], v);
  set_mark(x->mark_h, &x->span_h, x->pos_h[i], v);
  set_mark(x->mark_lo, &x->span_lo, x->pos_lo[i], v);
  set_mark(x->mark_odd, &x->span_odd, x->pos_odd[i], v);
}

/* Calls BODY(pos) for every marked position in [from, to). */
#define FOR_MARKED(mark, from, to, pos, BODY)                                  \
  do {                                                                         \
    if ((from) >= (to)) break;                                                 \
    for (int w_ = (from) >> 6; w_ <= ((to) - 1) >> 6; w_++) {                  \
      uint64_t bits_ = (mark)[w_];                                             \
      if (w_ == (from) >> 6) bits_ &= ~0ull << ((from) & 63);                  \
      if (w_ == ((to) - 1) >> 6 && ((to) & 63)) bits_ &= ~(~0ull << ((to) & 63)); \
      while (bits_) {                                                          \
        int pos = w_ * 64 + __builtin_ctzll(bits_);                            \
        bits_ &= bits_ - 1;                                                    \
        BODY;                                                                  \
      }                                                                        \
    }                                                                          \
  } while (0)

/* The marked spans of positions [from, to), each bucket noted as it is
 * copied when b notes them (mp_spanbuf_note, in locals here and without
 * its bound check: every marked span ends at most at marked_top, which
 * mp_lifeindex_query gave mp_spanbuf_bucket_as_added).  Inlined for each
 * width read (`wide` or `narrow` NULL) and written (to_narrow: b's 32-bit
 * spans), so each loop has one of each. */
static inline __attribute__((always_inline)) void
emit_spans(const uint64_t *mark, const mp_span *wide, const mp_span32 *narrow, bool to_narrow,
           int from, int to, mp_spanbuf *b) {
#define SPAN_AT(pos) (wide ? wide[pos] : (mp_span){narrow[pos].lo, narrow[pos].hi})
#define PUT(s) (to_narrow ? (void)(out32[n++] = (mp_span32){(uint32_t)(s).lo, (uint32_t)(s).hi}) : (void)(out[n++] = (s)))
  mp_spanbuf_grow(b, b->n + (to - from));
  mp_span *out = b->span;
  mp_span32 *out32 = b->span32;
  int n = b->n;
  int64_t top = b->top;
  if (b->bucket_size) {
    uint64_t step = b->bucket_step, *used = b->head_used;
    int *head_of = b->head_of;
    FOR_MARKED(mark, from, to, pos, {
      mp_span s = SPAN_AT(pos);
      uint64_t k = (uint64_t)mp_head_bucket(step, s.lo);
      head_of[n] = (int)k;
      used[k >> 6] |= 1ull << (k & 63);
      PUT(s);
      top = s.hi > top ? s.hi : top;
    });
  } else {
    FOR_MARKED(mark, from, to, pos, {
      mp_span s = SPAN_AT(pos);
      PUT(s);
      top = s.hi > top ? s.hi : top;
    });
  }
#undef SPAN_AT
#undef PUT
  b->n = n;
  b->top = top;
}

static void emit_all(const uint64_t *mark, const mp_spanstore *sp, int from, int to, mp_spanbuf *b) {
  if (sp->wide) emit_spans(mark, sp->wide, NULL, false, from, to, b);
  else if (b->narrow) emit_spans(mark, NULL, sp->narrow, true, from, to, b);
  else emit_spans(mark, NULL, sp->narrow, false, from, to, b);
}

/* The marked spans of positions [from, to); with `lo_below` set (an
 * inverted query, rare), only the items j with j.lo < lo_below. */
static void emit(const mp_lifeindex *x, const uint64_t *mark, const mp_spanstore *sp, const int *order,
                 int from, int to, const int64_t *lo_below, mp_spanbuf *b) {
  if (from >= to) return;
  if (!lo_below) {
    emit_all(mark, sp, from, to, b);
    return;
  }
  FOR_MARKED(mark, from, to, pos, {
    if (x->p->items[order[pos]].lo < *lo_below) {
      mp_span v = span_at(sp, pos);
      mp_spanbuf_add(b, v.lo, v.hi);
    }
  });
}

/* Items with l <= y <= h: walk from the root towards y. */
static void stab(const mp_lifeindex *x, int64_t y, const int64_t *lo_below, mp_spanbuf *b) {
  int lo = 0, hi = x->n_end - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, a = x->node_start[mid], e = x->node_start[mid + 1];
    int64_t c = x->end[mid];
    if (y < c) { /* l <= y: a prefix of the ascending l */
      int k = lower_bound(x->l_key + a, e - a, y + 1) + a;
      emit(x, x->mark_l, &x->span_l, x->by_l, a, k, lo_below, b);
      hi = mid - 1;
    } else if (y > c) { /* h >= y: a prefix of the descending h */
      int k = a + first_below(x->h_key + a, e - a, y);
      emit(x, x->mark_h, &x->span_h, x->by_h, a, k, lo_below, b);
      lo = mid + 1;
    } else {
      emit(x, x->mark_l, &x->span_l, x->by_l, a, e, lo_below, b);
      break;
    }
  }
}

/* ---- the plan: every query's ranges, swept in order of lo ---- */

typedef struct cursors {
  int *l, *h; /* per node: the end of its l <= y prefix, of its h >= y prefix */
  int lo;     /* the first by_lo position with lo >= y */
  bool fill;  /* second sweep: write the cuts (the first only counts them) */
} cursors;

static void put_cut(mp_lifeindex *x, cursors *k, int i, int from, int to) {
  if (k->fill) x->cut[x->cut_first[i] + x->cut_n[i]] = (mp_lifecut){from, to};
  x->cut_n[i]++;
}

/* stab's walk for y, the cursors standing in for its searches: the nodes
 * see their queries' y in ascending order, so an l prefix only grows and
 * an h prefix only shrinks.  Only the ranges emit would not skip. */
static void plan_stab(mp_lifeindex *x, cursors *k, int i, int64_t y) {
  int lo = 0, hi = x->n_end - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, a = x->node_start[mid], e = x->node_start[mid + 1];
    int64_t c = x->end[mid];
    if (y < c) {
      while (k->l[mid] < e && x->l_key[k->l[mid]] <= y) k->l[mid]++;
      if (a < k->l[mid]) put_cut(x, k, i, a, k->l[mid]);
      hi = mid - 1;
    } else if (y > c) {
      while (k->h[mid] > a && x->h_key[k->h[mid] - 1] < y) k->h[mid]--;
      if (a < k->h[mid]) put_cut(x, k, i, ~a, k->h[mid]);
      lo = mid + 1;
    } else {
      if (a < e) put_cut(x, k, i, a, e);
      break;
    }
  }
}

static void plan_item(mp_lifeindex *x, cursors *k, int i) {
  const mp_item *it = &x->p->items[i];
  int64_t y = it->lo;
  x->cut_n[i] = 0;
  plan_stab(x, k, i, y);
  if (!k->fill) return;
  while (k->lo < x->n_lo && x->lo_key[k->lo] < y) k->lo++;
  x->lo_from[i] = k->lo;
  x->lo_to[i] = it->hi > y ? lower_bound(x->lo_key, x->n_lo, it->hi) : k->lo;
}

/* One sweep over every indexed item, by lo (by_lo and by_odd merged). */
static void plan_sweep(mp_lifeindex *x, cursors *k) {
  for (int v = 0; v < x->n_end; v++) {
    k->l[v] = x->node_start[v];
    k->h[v] = x->node_start[v + 1];
  }
  k->lo = 0;
  for (int q = 0, r = 0; q < x->n_lo || r < x->n_odd;) {
    bool from_lo = r >= x->n_odd || (q < x->n_lo && x->lo_key[q] <= x->odd_key[r]);
    plan_item(x, k, from_lo ? x->by_lo[q++] : x->by_odd[r++]);
  }
}

/* Item i's cuts go next, unless placed already. */
static void claim(mp_lifeindex *x, int i, int64_t *total) {
  if (x->p->items[i].size <= 0 || x->cut_first[i] >= 0) return;
  x->cut_first[i] = (int)*total;
  *total += x->cut_n[i];
}

/* The cuts' places: the items of seq first, in its order (the queries then
 * read the cuts in order of memory), then the other indexed items; the
 * total. */
static int64_t place_cuts(mp_lifeindex *x, const int *seq, int m) {
  int64_t total = 0;
  for (int i = 0; i < x->p->n; i++) x->cut_first[i] = -1;
  for (int q = 0; q < m; q++) claim(x, seq[q], &total);
  for (int i = 0; i < x->p->n; i++) claim(x, i, &total);
  return total;
}

void mp_lifeindex_plan(mp_lifeindex *x, const int *seq, int m) {
  const mp_problem *p = x->p;
  /* a cut per tree level at most (< 32): their count must fit an int, else
   * the queries search as before */
  if ((int64_t)(x->n_lo + x->n_odd) * 32 > INT_MAX) return;
  size_t nz = (size_t)(p->n ? p->n : 1), ne = (size_t)(x->n_end ? x->n_end : 1);
  cursors k = {mp_xmalloc(sizeof(int) * ne), mp_xmalloc(sizeof(int) * ne), 0, false};
  x->cut_first = mp_xmalloc(sizeof(int) * nz);
  x->lo_from = mp_xmalloc(sizeof(int) * nz);
  x->lo_to = mp_xmalloc(sizeof(int) * nz);
  x->cut_n = mp_xmalloc(nz);
  plan_sweep(x, &k); /* counts */
  int64_t total = place_cuts(x, seq, m);
  x->n_cut = (int)total;
  x->cut = mp_xmalloc(sizeof(mp_lifecut) * (size_t)(total ? total : 1));
  k.fill = true;
  plan_sweep(x, &k);
  free(k.l);
  free(k.h);
}

/* The query from the plan: the same ranges in the same order as stab's. */
static void query_planned(const mp_lifeindex *x, int i, const int64_t *lo_below, mp_spanbuf *b) {
  const mp_lifecut *c = x->cut + x->cut_first[i];
  for (int q = 0; q < x->cut_n[i]; q++) {
    if (c[q].from >= 0) emit(x, x->mark_l, &x->span_l, x->by_l, c[q].from, c[q].to, lo_below, b);
    else emit(x, x->mark_h, &x->span_h, x->by_h, ~c[q].from, c[q].to, lo_below, b);
  }
}

void mp_lifeindex_query(const mp_lifeindex *x, int i, mp_spanbuf *b) {
  const mp_item *it = &x->p->items[i];
  int64_t y = it->lo;
  mp_spanbuf_bucket_as_added(b, it->size, x->marked_top);
  if (!x->span_l.wide) mp_spanbuf_narrow(b); /* every end below 2^32 */
  /* lo < y < hi: all of them meet i, unless i's lifetime is inverted
   * (hi < lo), when j.lo < i.hi must hold too; then y <= lo < i.hi */
  if (x->cut) {
    query_planned(x, i, it->hi < y ? &it->hi : NULL, b);
    if (it->hi <= y) return;
    emit(x, x->mark_lo, &x->span_lo, x->by_lo, x->lo_from[i], x->lo_to[i], NULL, b);
  } else {
    stab(x, y, it->hi < y ? &it->hi : NULL, b);
    if (it->hi <= y) return;
    emit(x, x->mark_lo, &x->span_lo, x->by_lo, lower_bound(x->lo_key, x->n_lo, y),
         lower_bound(x->lo_key, x->n_lo, it->hi), NULL, b);
  }
  /* y <= lo < i.hi, from the odd items: only those with hi > y */
  int a = lower_bound(x->odd_key, x->n_odd, y), e = lower_bound(x->odd_key, x->n_odd, it->hi);
  FOR_MARKED(x->mark_odd, a, e, pos, {
    if (x->p->items[x->by_odd[pos]].hi > y) {
      mp_span v = span_at(&x->span_odd, pos);
      mp_spanbuf_add(b, v.lo, v.hi);
    }
  });
}
