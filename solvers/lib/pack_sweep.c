/* pack_sweep.c - see pack_sweep.h.  The live items never overlap (each was
 * placed clear of those live with it), so their free space below the top is
 * a set of gaps: [0, lowest) and the space between neighbours.  A gap of
 * length 0 never fits anything and is not kept. */
#include <stdlib.h>

#include "lib/pack_sweep.h"
#include "lib/oset.h"
#include "util.h"

/* Each gap is in by_start[c] under key (start, length) and, for best fit,
 * in by_len[c] under (length, start), once per alignment class c (the
 * distinct alignments of the items, al[c]); its value there is what an
 * item of alignment al[c] can use of it: the end less the start rounded up
 * to al[c].  So the first gap in key order with value >= size is the
 * answer, without passing over the gaps that only alignment rules out (16-
 * byte items 64-aligned leave 48-byte gaps that fit none of them: visiting
 * each of those made the sweep quadratic).  Beyond MAX_CLASSES alignments
 * one class of alignment 1 (the value is the length, a bound on what any
 * item can use) stands for all, and each gap found is checked. */
enum { MAX_CLASSES = 16 };

typedef struct live_gaps {
  int nal;
  int64_t al[MAX_CLASSES];
  mp_oset by_start[MAX_CLASSES];
  mp_oset by_len[MAX_CLASSES]; /* best fit only */
  bool best;
  int64_t top;                  /* end of the highest live item, 0 when none */
} live_gaps;

static void gap_add(live_gaps *g, int64_t lo, int64_t hi) {
  if (hi <= lo) return;
  for (int c = 0; c < g->nal; c++) {
    int64_t use = hi - mp_align_up(lo, g->al[c]);
    mp_oset_insert(&g->by_start[c], (mp_oset_key){lo, hi - lo}, use);
    if (g->best) mp_oset_insert(&g->by_len[c], (mp_oset_key){hi - lo, lo}, use);
  }
}

static void gap_del(live_gaps *g, int64_t lo, int64_t hi) {
  for (int c = 0; c < g->nal; c++) {
    mp_oset_erase(&g->by_start[c], (mp_oset_key){lo, hi - lo});
    if (g->best) mp_oset_erase(&g->by_len[c], (mp_oset_key){hi - lo, lo});
  }
}

/* The gap holding [a, b), which must lie in one, or below the top. */
static void occupy(live_gaps *g, int64_t a, int64_t b) {
  if (a >= g->top) {
    gap_add(g, g->top, a); /* alignment may leave room under a new top */
    g->top = b;
    return;
  }
  mp_oset_entry x;
  mp_oset_below(&g->by_start[0], (mp_oset_key){a, INT64_MAX}, &x);
  int64_t lo = x.key.a, hi = lo + x.key.b;
  gap_del(g, lo, hi);
  gap_add(g, lo, a);
  gap_add(g, b, hi);
}

/* The live item at [a, b) dies: it and the gaps touching it become one gap,
 * or, if it was the highest, free space above the new top. */
static void release(live_gaps *g, int64_t a, int64_t b) {
  int64_t lo = a, hi = b;
  mp_oset_entry x;
  if (mp_oset_below(&g->by_start[0], (mp_oset_key){a, 0}, &x) && x.key.a + x.key.b == a) {
    lo = x.key.a;
    gap_del(g, lo, a);
  }
  if (b == g->top) {
    g->top = lo;
    return;
  }
  if (mp_oset_ceil(&g->by_start[0], (mp_oset_key){b, 0}, &x) && x.key.a == b) {
    hi = b + x.key.b;
    gap_del(g, b, hi);
  }
  gap_add(g, lo, hi);
}

static bool fits(int64_t lo, int64_t hi, int64_t size, int64_t al) {
  return mp_align_up(lo, al) + size <= hi;
}

/* The lowest gap whose aligned start fits, or the smallest such gap (ties:
 * the lowest); else the aligned top.  c: the item's class. */
static int64_t choose(const live_gaps *g, int c, int64_t size, int64_t al, enum mp_fit fit) {
  bool ff = fit == MP_FIRST_FIT;
  const mp_oset *t = ff ? &g->by_start[c] : &g->by_len[c];
  mp_oset_key from = ff ? (mp_oset_key){INT64_MIN, 0} : (mp_oset_key){size, INT64_MIN};
  mp_oset_entry x;
  /* best fit: the shortest gap long enough mostly fits, and a plain lower
   * bound finds it with fewer steps than a search by value */
  bool got = ff ? mp_oset_ceil_val(t, from, size, &x) : mp_oset_ceil(t, from, &x);
  for (; got; got = mp_oset_ceil_val(t, from, size, &x)) {
    int64_t lo = ff ? x.key.a : x.key.b, len = ff ? x.key.b : x.key.a;
    if (fits(lo, lo + len, size, al)) return mp_align_up(lo, al);
    from = ff ? (mp_oset_key){lo + 1, 0} : (mp_oset_key){len, lo + 1};
  }
  return mp_align_up(g->top, al);
}

static int class_of(const live_gaps *g, int64_t a) {
  for (int c = 0; c < g->nal; c++)
    if (g->al[c] == a) return c;
  return -1;
}

/* The classes: the distinct alignments of the items of positive size, or
 * the single class 1 beyond MAX_CLASSES. */
static void classes(live_gaps *g, const mp_problem *p) {
  g->nal = 0;
  for (int i = 0; i < p->n && g->nal >= 0; i++) {
    int64_t a = p->items[i].align < 1 ? 1 : p->items[i].align;
    if (p->items[i].size <= 0 || class_of(g, a) >= 0) continue;
    if (g->nal == MAX_CLASSES) g->nal = -1;
    else g->al[g->nal++] = a;
  }
  if (g->nal <= 0) g->nal = 1, g->al[0] = 1;
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

/* The items of seq[0..m) of positive size by death (ties: the index), into
 * order[]; returns their number.  An item dead at another's birth was born
 * before it, and so comes before it in a sequence the sweep takes: the
 * sweep releases a prefix of this list before each item, in the order a
 * heap of the live items by death would (a sort, not a heap: its pops
 * missed the cache at 10^6 items). */
static int by_death(const mp_problem *p, const int *seq, int m, uint32_t *order) {
  unsigned char *in = mp_xcalloc((size_t)p->n, 1);
  for (int k = 0; k < m; k++) in[seq[k]] = p->items[seq[k]].size > 0;
  uint64_t *key = mp_xmalloc(sizeof(uint64_t) * (size_t)m);
  int c = 0;
  for (int i = 0; i < p->n; i++) /* by index: the sort is stable */
    if (in[i]) key[c] = mp_radix_key(p->items[i].hi), order[c++] = (uint32_t)i;
  mp_radix_sort(key, order, (size_t)c);
  free(key);
  free(in);
  return c;
}

void mp_pack_sweep(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off) {
  live_gaps g;
  g.best = fit == MP_BEST_FIT;
  g.top = 0;
  classes(&g, p);
  for (int c = 0; c < g.nal; c++) {
    mp_oset_init(&g.by_start[c]);
    mp_oset_init(&g.by_len[c]);
  }
  uint32_t *dying = mp_xmalloc(sizeof(uint32_t) * (size_t)m);
  int n_dying = by_death(p, seq, m, dying), dead = 0;
  for (int k = 0; k < m; k++) {
    int i = seq[k];
    const mp_item *it = &p->items[i];
    if (off[i] >= 0) continue;
    if (it->size <= 0) {
      off[i] = 0;
      continue;
    }
    for (; dead < n_dying && p->items[dying[dead]].hi <= it->lo; dead++)
      release(&g, off[dying[dead]], off[dying[dead]] + p->items[dying[dead]].size);
    int64_t al = it->align < 1 ? 1 : it->align;
    int c = class_of(&g, al);
    off[i] = choose(&g, c < 0 ? 0 : c, it->size, al, fit); /* < 0: the single class 1 */
    occupy(&g, off[i], off[i] + it->size);
  }
  free(dying);
  for (int c = 0; c < g.nal; c++) {
    mp_oset_destroy(&g.by_start[c]);
    mp_oset_destroy(&g.by_len[c]);
  }
}
