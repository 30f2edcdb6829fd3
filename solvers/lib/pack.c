/* pack.c - first-fit / best-fit packing of items into one arena.  A
 * sequence in order of birth goes to the sweep of pack_sweep.c; any other
 * to the lifetime index of pack_index.c.  mp_pack_one is the direct
 * definition (every placed item looked at), kept as the reference the tests
 * compare both with. */
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "lib/pack_fit.h"
#include "lib/pack_index.h"
#include "lib/pack_sweep.h"
#include "solver.h"

typedef struct span {
  int64_t lo, hi; /* address range [lo, hi) */
} span;

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (x->hi > y->hi) - (x->hi < y->hi);
}

static inline bool live_together(const mp_item *a, const mp_item *b) {
  return a->lo < b->hi && b->lo < a->hi;
}

int64_t mp_pack_one(const mp_problem *p, int i, const int *placed, int np, const int64_t *off,
                    enum mp_fit fit) {
  const mp_item *it = &p->items[i];
  int64_t al = it->align < 1 ? 1 : it->align;
  span *sp = mp_xmalloc(sizeof(span) * (size_t)(np ? np : 1));
  int m = 0;
  for (int k = 0; k < np; k++) {
    int j = placed[k];
    const mp_item *jt = &p->items[j];
    if (j == i || off[j] < 0 || jt->size <= 0 || !live_together(it, jt)) continue;
    sp[m++] = (span){off[j], off[j] + jt->size};
  }
  qsort(sp, (size_t)m, sizeof *sp, cmp_span);
  int64_t cur = 0, best = -1, best_gap = 0;
  for (int k = 0; k < m; k++) {
    if (sp[k].lo > cur) {
      int64_t cand = mp_align_up(cur, al);
      if (cand + it->size <= sp[k].lo) {
        int64_t gap = sp[k].lo - cur;
        if (fit == MP_FIRST_FIT) {
          free(sp);
          return cand;
        }
        if (best < 0 || gap < best_gap) {
          best = cand;
          best_gap = gap;
        }
      }
    }
    if (sp[k].hi > cur) cur = sp[k].hi;
  }
  free(sp);
  return best >= 0 ? best : mp_align_up(cur, al);
}

static void place(mp_lifeindex *x, const mp_problem *p, const int64_t *off, int i) {
  mp_lifeindex_mark(x, i, off[i], off[i] + p->items[i].size);
}

/* The general packer: the index lists the placed items live with each item,
 * and pack_fit chooses among their spans.  O(n log n + the sum over items of
 * the placed items live with them). */
static void pack_indexed(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off) {
  mp_lifeindex x;
  mp_lifeindex_init(&x, p);
  mp_spanbuf sb;
  mp_spanbuf_init(&sb);
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].size > 0) place(&x, p, off, i);
  for (int k = 0; k < m; k++) {
    int i = seq[k];
    const mp_item *it = &p->items[i];
    if (off[i] >= 0) continue;
    if (it->size <= 0) {
      off[i] = 0;
      continue;
    }
    mp_spanbuf_clear(&sb);
    mp_lifeindex_query(&x, i, &sb);
    off[i] = mp_fit_spans(&sb, it->size, it->align, fit);
    place(&x, p, off, i);
  }
  mp_spanbuf_destroy(&sb);
  mp_lifeindex_destroy(&x);
}

int64_t mp_pack(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off) {
  for (int i = 0; i < p->n; i++) off[i] = p->items[i].fixed >= 0 ? p->items[i].fixed : -1;
  if (mp_pack_sweep_applies(p, seq, m))
    mp_pack_sweep(p, seq, m, fit, off);
  else
    pack_indexed(p, seq, m, fit, off);
  int64_t arena = 0;
  for (int i = 0; i < p->n; i++)
    if (off[i] >= 0 && off[i] + p->items[i].size > arena) arena = off[i] + p->items[i].size;
  return arena;
}

static bool degenerate(const mp_item *it) { return it->fixed < 0 && it->size > 0 && it->hi <= it->lo; }

void mp_pack_degenerate(const mp_problem *p, int64_t *off) {
  bool any = false;
  for (int i = 0; i < p->n && !any; i++) any = degenerate(&p->items[i]);
  if (!any) return;
  mp_lifeindex x;
  mp_lifeindex_init(&x, p);
  mp_spanbuf sb;
  mp_spanbuf_init(&sb);
  for (int i = 0; i < p->n; i++)
    if (!degenerate(&p->items[i]) && p->items[i].size > 0 && off[i] >= 0 &&
        (p->items[i].fixed >= 0 || p->items[i].hi > p->items[i].lo))
      place(&x, p, off, i);
  for (int i = 0; i < p->n; i++) {
    if (!degenerate(&p->items[i])) continue;
    mp_spanbuf_clear(&sb);
    mp_lifeindex_query(&x, i, &sb);
    off[i] = mp_fit_spans(&sb, p->items[i].size, p->items[i].align, MP_FIRST_FIT);
    place(&x, p, off, i);
  }
  mp_spanbuf_destroy(&sb);
  mp_lifeindex_destroy(&x);
}

static const mp_problem *sort_p;

static int cmp_birth(const void *a, const void *b) {
  const mp_item *x = &sort_p->items[*(const int *)a], *y = &sort_p->items[*(const int *)b];
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static int cmp_size(const void *a, const void *b) {
  const mp_item *x = &sort_p->items[*(const int *)a], *y = &sort_p->items[*(const int *)b];
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return cmp_birth(a, b);
}

void mp_seq_by_birth(const mp_problem *p, int *seq) {
  for (int i = 0; i < p->n; i++) seq[i] = i;
  sort_p = p;
  qsort(seq, (size_t)p->n, sizeof *seq, cmp_birth);
}

void mp_seq_by_size(const mp_problem *p, int *seq) {
  for (int i = 0; i < p->n; i++) seq[i] = i;
  sort_p = p;
  qsort(seq, (size_t)p->n, sizeof *seq, cmp_size);
}
