/* pack.c - first-fit / best-fit packing of items into one arena, the greedy
 * incumbent and a placer's own check of a placement.  mp_pack sends a
 * sequence in order of birth to the sweep of pack_sweep.c and any other to
 * the lifetime index of pack_index.c (on several threads: pack_batch.c);
 * mp_pack_one is the direct definition
 * (every placed item looked at), kept as the reference the tests compare
 * both with. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/interfere.h"
#include "lib/pack.h"
#include "lib/pack_batch.h"
#include "lib/pack_fit.h"
#include "lib/pack_index.h"
#include "lib/pack_sweep.h"

typedef struct span {
  int64_t lo, hi; /* address range [lo, hi) */
} span;

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (x->hi > y->hi) - (x->hi < y->hi);
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
    if (j == i || off[j] < 0 || jt->size <= 0 || !mp_live_together(it, jt)) continue;
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

/* Stop now: `deadline` (> 0) passed, or `cancel` (not NULL) was set. */
static bool must_stop(double deadline, const atomic_int *cancel) {
  return (deadline > 0 && mp_now() >= deadline) ||
         (cancel && atomic_load_explicit(cancel, memory_order_relaxed));
}

/* The sequential loop of the general packer; false when `deadline` (> 0)
 * passed or `cancel` was set first (off is then unfinished).  Items
 * already placed (by the threaded packer before a cancel) are skipped. */
static bool pack_in_order(mp_lifeindex *x, const int *seq, int m, enum mp_fit fit, int64_t *off,
                          mp_pack_counts *cnt, double deadline, const atomic_int *cancel) {
  const mp_problem *p = x->p;
  bool done = true;
  mp_spanbuf sb;
  mp_spanbuf_init(&sb);
  for (int k = 0; k < m; k++) {
    int i = seq[k];
    if ((k & 63) == 63 && must_stop(deadline, cancel)) {
      done = false;
      break;
    }
    if (off[i] >= 0) continue;
    if (p->items[i].size <= 0) {
      off[i] = 0;
      continue;
    }
    off[i] = mp_pack_fit_item(x, i, fit, &sb, cnt);
    place(x, p, off, i);
  }
  if (cnt) cnt->unsorted += sb.headed;
  mp_spanbuf_destroy(&sb);
  return done;
}

/* The general packer: the index lists the placed items live with each item,
 * and pack_fit chooses among their spans.  O(n log n + the sum over items of
 * the placed items live with them).  False when `deadline` (> 0) passed
 * or th->cancel was set first (off is then unfinished).  Without a deadline, on th's threads
 * (pack_batch.c) when th is not NULL. */
static bool pack_indexed(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off,
                         mp_pack_counts *cnt, double deadline, mp_pack_threads *th) {
  const atomic_int *cancel = th ? th->cancel : NULL;
  mp_lifeindex x;
  mp_lifeindex_init(&x, p);
  /* the plan speeds the queries up, at a pass of seconds at 10^6 items: not
   * for a packing cancelled meanwhile, which stops at its first look */
  if (!must_stop(0, cancel)) mp_lifeindex_plan(&x, seq, m);
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].size > 0) place(&x, p, off, i);
  int min_items = th && th->min_items > 0 ? th->min_items : MP_PACK_THREADED_MIN;
  bool done = deadline <= 0 && th && th->threads > 1 && m >= min_items &&
              mp_pack_batched(&x, seq, m, fit, off, cnt, th->threads, th->window, cancel, &th->cpu_s);
  if (!done) done = pack_in_order(&x, seq, m, fit, off, cnt, deadline, cancel);
  mp_lifeindex_destroy(&x);
  return done;
}

int64_t mp_pack(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off) {
  return mp_pack_counted(p, seq, m, fit, off, NULL, 0);
}

/* The packing, or -1 when `deadline` (> 0) passed first. */
static int64_t pack_until(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off,
                          mp_pack_counts *cnt, double deadline, mp_pack_threads *th) {
  if (cnt) *cnt = (mp_pack_counts){0};
  for (int i = 0; i < p->n; i++) off[i] = p->items[i].fixed >= 0 ? p->items[i].fixed : -1;
  if (mp_pack_sweep_applies(p, seq, m)) {
    mp_pack_sweep(p, seq, m, fit, off);
    if (cnt) cnt->swept = true;
  } else if (!pack_indexed(p, seq, m, fit, off, cnt, deadline, th)) {
    return -1;
  }
  int64_t arena = 0;
  for (int i = 0; i < p->n; i++)
    if (off[i] >= 0 && off[i] + p->items[i].size > arena) arena = off[i] + p->items[i].size;
  return arena;
}

int64_t mp_pack_counted(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off,
                        mp_pack_counts *cnt, double deadline) {
  return pack_until(p, seq, m, fit, off, cnt, deadline, NULL);
}

int64_t mp_pack_threaded(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off,
                         mp_pack_counts *cnt, mp_pack_threads *th) {
  return pack_until(p, seq, m, fit, off, cnt, 0, th);
}

int64_t mp_pack_until(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off,
                      double deadline) {
  return pack_until(p, seq, m, fit, off, NULL, deadline, NULL);
}

void mp_pack_counts_print(const char *solver, const mp_pack_counts *cnt) {
  if (cnt->swept) {
    fprintf(stderr, "%s: a sequence in order of birth, placed by the sweep\n", solver);
    return;
  }
  double k = cnt->items ? (double)cnt->items : 1.0;
  fprintf(stderr,
          "%s: %lld items placed through the lifetime index; it listed %lld placed items live "
          "with them (%.1f per item), whose spans leave %lld gaps below their top (%.1f per "
          "item), %lld of them at least the item's size (%.1f per item); %lld items chose their gap "
          "without sorting the spans\n",
          solver, (long long)cnt->items, (long long)cnt->listed, (double)cnt->listed / k,
          (long long)cnt->gaps, (double)cnt->gaps / k, (long long)cnt->fitting,
          (double)cnt->fitting / k, (long long)cnt->unsorted);
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

/* ---- sequences ---- */

/* Sort keys of the greedy sequences, compared with qsort_r (no file-scope
 * sort state). */
enum seq_key { KEY_BIRTH, KEY_BYSIZE, KEY_SIZE, KEY_AREA, KEY_LIFE, KEY_LO };

typedef struct seq_ctx {
  const mp_problem *p;
  enum seq_key key;
} seq_ctx;

static int by_index(int x, int y) { return (x > y) - (x < y); }

/* area = lifetime x size in KiB, truncated (the key the greedy incumbent
 * has always used: ties below a KiB x step go by index) */
static double area_kib(const mp_item *it) {
  return floor(((double)it->hi - (double)it->lo) * (double)it->size / 1024.0);
}

static int cmp_seq(const void *a, const void *b, void *arg) {
  const seq_ctx *sc = arg;
  int x = *(const int *)a, y = *(const int *)b;
  const mp_item *ix = &sc->p->items[x], *iy = &sc->p->items[y];
  switch (sc->key) {
  case KEY_BIRTH:
    if (ix->lo != iy->lo) return ix->lo < iy->lo ? -1 : 1;
    return by_index(x, y);
  case KEY_BYSIZE:
    if (ix->size != iy->size) return ix->size > iy->size ? -1 : 1;
    if (ix->lo != iy->lo) return ix->lo < iy->lo ? -1 : 1;
    return by_index(x, y);
  case KEY_SIZE:
    if (ix->size != iy->size) return ix->size > iy->size ? -1 : 1;
    return by_index(x, y);
  case KEY_AREA: {
    double u = area_kib(ix), v = area_kib(iy);
    if (u != v) return u > v ? -1 : 1;
    return by_index(x, y);
  }
  case KEY_LIFE: { /* longer life first, then size capped at 4095 */
    double u = (double)ix->hi - (double)ix->lo, v = (double)iy->hi - (double)iy->lo;
    if (u != v) return u > v ? -1 : 1;
    int64_t su = ix->size > 4095 ? 4095 : ix->size, sv = iy->size > 4095 ? 4095 : iy->size;
    if (su != sv) return su > sv ? -1 : 1;
    return by_index(x, y);
  }
  case KEY_LO: /* earliest birth first, ties by index */
    if (ix->lo != iy->lo) return ix->lo < iy->lo ? -1 : 1;
    return by_index(x, y);
  }
  return by_index(x, y);
}

/* seq (in index order) stably sorted by the key of pass 0, then 1, ...:
 * sequences on integer keys by radix, as qsort_r took a tenth of a by-size
 * packing's set-up at 10^5 items. */
static void seq_radix(const mp_problem *p, enum seq_key key, int *seq) {
  size_t n = (size_t)p->n;
  uint64_t *k = mp_xmalloc(sizeof(uint64_t) * (n ? n : 1));
  for (int pass = 0; pass < (key == KEY_BYSIZE ? 2 : 1); pass++) {
    for (size_t q = 0; q < n; q++) {
      const mp_item *it = &p->items[seq[q]];
      k[q] = pass == 0 ? mp_radix_key(it->lo) : ~mp_radix_key(it->size); /* size descending */
    }
    mp_radix_sort(k, (uint32_t *)seq, n);
  }
  free(k);
}

static void seq_sorted(const mp_problem *p, enum seq_key key, int *seq) {
  for (int i = 0; i < p->n; i++) seq[i] = i;
  if (key == KEY_BIRTH || key == KEY_LO || key == KEY_BYSIZE) {
    seq_radix(p, key, seq);
    return;
  }
  seq_ctx sc = {p, key};
  qsort_r(seq, (size_t)p->n, sizeof *seq, cmp_seq, &sc);
}

void mp_seq_by_birth(const mp_problem *p, int *seq) { seq_sorted(p, KEY_BIRTH, seq); }
void mp_seq_by_size(const mp_problem *p, int *seq) { seq_sorted(p, KEY_BYSIZE, seq); }

/* ---- the greedy incumbent ---- */

/* One greedy packing of sequence seq into off; its arena, or -1 when the
 * deadline (> 0) passed first. */
static int64_t pack_all(const mp_problem *p, const int *seq, enum mp_fit fit, int64_t *off,
                        double deadline) {
  int64_t a = mp_pack_until(p, seq, p->n, fit, off, deadline);
  if (a < 0) return a;
  for (int i = 0; i < p->n; i++)
    if (off[i] < 0) off[i] = 0;
  return a;
}

/* The incumbent's candidates, in the order that breaks ties between equal
 * arenas: the exact placer's four historical sequences, then bysize's,
 * each first fit (even index) then best fit. */
static const enum seq_key cand_key[] = {KEY_SIZE, KEY_AREA, KEY_LIFE, KEY_LO, KEY_BYSIZE};
enum { N_CAND = 2 * sizeof cand_key / sizeof cand_key[0], BIRTH_FIRST_FIT = 2 * 3 /* KEY_LO, first fit */ };

int64_t mp_live_pairs(const mp_problem *p) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  int *vid = mp_xmalloc(sizeof(int) * nz), *item_of = mp_xmalloc(sizeof(int) * nz);
  int nv = mp_interfere_vertices(p, vid, item_of);
  int64_t m = mp_interfere_count(p, item_of, nv);
  free(vid);
  free(item_of);
  return m;
}

int64_t mp_place_incumbent(const mp_ctx *c, const mp_problem *p, int64_t *best) {
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  int *seq = mp_xmalloc(sizeof(int) * nz);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * nz);
  /* Under a time limit, birth-order first fit is packed first: a sweep in
   * O(n log n), while a by-size packing is quadratic on a training graph;
   * the first packing always completes, the limit cuts the others.  A small
   * problem packs every candidate whatever the clock (about 30 ms near the threshold): a
   * placer entered after an order search spent the chain's limit must not
   * do worse than bysize alone. */
  double deadline = c->deadline > 0 && mp_live_pairs(p) > MP_INCUMBENT_PAIRS ? c->deadline : 0;
  int order[N_CAND], k = 0;
  if (deadline > 0) order[k++] = BIRTH_FIRST_FIT;
  for (int q = 0; q < N_CAND; q++)
    if (!(deadline > 0 && q == BIRTH_FIRST_FIT)) order[k++] = q;
  int64_t bestA = -1;
  int bestQ = N_CAND, sorted = -1;
  for (int j = 0; j < N_CAND && !(j > 0 && deadline > 0 && mp_time_up(c)); j++) {
    int q = order[j];
    if (q / 2 != sorted) seq_sorted(p, cand_key[sorted = q / 2], seq);
    int64_t a = pack_all(p, seq, q % 2 ? MP_BEST_FIT : MP_FIRST_FIT, off, j > 0 ? deadline : 0);
    if (a < 0) break; /* cut by the deadline: dropped */
    if (bestA < 0 || a < bestA || (a == bestA && q < bestQ)) {
      bestA = a;
      bestQ = q;
      memcpy(best, off, sizeof(int64_t) * (size_t)n);
    }
  }
  if (c->start_offsets && mp_place_ok(p, c->start_offsets)) {
    int64_t a = mp_place_arena(p, c->start_offsets);
    if (a < bestA) {
      bestA = a;
      memcpy(best, c->start_offsets, sizeof(int64_t) * (size_t)n);
    }
  }
  free(seq);
  free(off);
  return bestA < 0 ? 0 : bestA;
}

/* ---- a placer's own check ---- */

int64_t mp_place_arena(const mp_problem *p, const int64_t *off) {
  int64_t arena = 0, top;
  for (int i = 0; i < p->n; i++) { /* size 0 too: the judge's arena counts its offset */
    if (!mp_add_ok(off[i], p->items[i].size, &top)) return INT64_MAX;
    if (top > arena) arena = top;
  }
  return arena;
}

static int cmp_lo_r(const void *a, const void *b, void *arg) {
  const mp_problem *p = arg;
  int x = *(const int *)a, y = *(const int *)b;
  if (p->items[x].lo != p->items[y].lo) return p->items[x].lo < p->items[y].lo ? -1 : 1;
  return by_index(x, y);
}

bool mp_place_ok(const mp_problem *p, const int64_t *off) {
  int n = p->n;
  for (int i = 0; i < n; i++) {
    const mp_item *it = &p->items[i];
    int64_t al = it->align < 1 ? 1 : it->align, top;
    if (off[i] < 0 || off[i] % al != 0 || !mp_add_ok(off[i], it->size, &top)) return false;
    if (it->fixed >= 0 && off[i] != it->fixed) return false;
  }
  /* by birth; `act` holds the earlier items still live at this birth */
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int *act = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int m = 0, na = 0;
  for (int i = 0; i < n; i++)
    if (p->items[i].size > 0) seq[m++] = i;
  qsort_r(seq, (size_t)m, sizeof *seq, cmp_lo_r, (void *)p);
  bool ok = true;
  for (int k = 0; k < m && ok; k++) {
    int i = seq[k];
    const mp_item *it = &p->items[i];
    int keep = 0;
    for (int q = 0; q < na && ok; q++) {
      int j = act[q];
      const mp_item *jt = &p->items[j];
      if (jt->hi <= it->lo) continue; /* ended: meets nothing later */
      act[keep++] = j;
      if (mp_live_together(it, jt) && off[i] < off[j] + jt->size && off[j] < off[i] + it->size)
        ok = false;
    }
    na = keep;
    act[na++] = i;
  }
  free(seq);
  free(act);
  return ok;
}
