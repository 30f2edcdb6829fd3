/* byconflicts.c - greedy by conflicts (TVM USMP's greedy_by_conflicts).
 * A buffer's conflicts are the other buffers of size > 0 live together with
 * it by the literal test (DESIGN 1.4), pinned ones included: they hold
 * their addresses too.  Most conflicts first; ties: larger size, then
 * earlier birth, then index (TVM breaks its last tie by name, which
 * memplan's buffers lack).  Each buffer then goes first fit: the lowest
 * aligned offset clear of the placed buffers live with it.  That is the
 * rule of bysize-ff; TVM itself stacks a buffer on its highest placed
 * conflict, never reusing a gap below it.  Pinned buffers stand where they
 * are pinned, size-0 ones at 0 (they hold no bytes), as in every lib/pack
 * packing.  The counts take O(n log n) (sorted births and deaths, no
 * pairs); the packing is lib/pack's lifetime index, with the threads,
 * cancel and time-limit fallback of bysize (lib/by_size.h). */
#include <stdlib.h>

#include "lib/by_size.h"
#include "solver.h"

/* How many of the sorted keys k[0..m) are below x. */
static size_t below(const uint64_t *k, size_t m, uint64_t x) {
  size_t a = 0, b = m;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (k[mid] < x) a = mid + 1;
    else b = mid;
  }
  return a;
}

/* How many of them are at most x. */
static size_t upto(const uint64_t *k, size_t m, uint64_t x) {
  size_t a = 0, b = m;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (k[mid] <= x) a = mid + 1;
    else b = mid;
  }
  return a;
}

/* The births (hi: the deaths) of the items of size > 0 as sorted radix
 * keys into k, each item's index riding along in who; their count. */
static size_t sorted_ends(const mp_problem *p, bool hi, uint64_t *k, uint32_t *who) {
  size_t m = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->size <= 0) continue;
    k[m] = mp_radix_key(hi ? it->hi : it->lo);
    who[m++] = (uint32_t)i;
  }
  mp_radix_sort(k, who, m);
  return m;
}

static bool any_odd(const mp_problem *p) {
  for (int i = 0; i < p->n; i++)
    if (p->items[i].hi <= p->items[i].lo) return true;
  return false;
}

/* Add to deg[i] the items j (size > 0) with hi_j <= lo_i and lo_j >= hi_i:
 * the count below subtracts them once too often.  Only an empty or
 * inverted lifetime (hi <= lo) takes part in such a pair.  A sweep over
 * the items by birth (by_lo, every item) puts each j with hi_j <= lo_i, by
 * death (H, who_h), in a Fenwick tree over the ranks of lo in L. */
static void odd_pairs(const mp_problem *p, const int *by_lo, const uint64_t *L, const uint64_t *H,
                      const uint32_t *who_h, size_t m, int64_t *deg) {
  int *fw = mp_xcalloc(m + 1, sizeof(int));
  size_t in = 0;
  for (int q = 0; q < p->n; q++) {
    const mp_item *it = &p->items[by_lo[q]];
    for (; in < m && H[in] <= mp_radix_key(it->lo); in++)
      for (size_t r = below(L, m, mp_radix_key(p->items[who_h[in]].lo)) + 1; r <= m; r += r & -r)
        fw[r]++;
    int64_t early = 0; /* inserted items with lo_j < hi_i */
    for (size_t r = below(L, m, mp_radix_key(it->hi)); r > 0; r -= r & -r) early += fw[r];
    deg[by_lo[q]] += (int64_t)in - early;
  }
  free(fw);
}

/* deg[i] = the conflicts of item i: #{lo_j < hi_i} - #{hi_j <= lo_i}, plus
 * the pairs odd_pairs finds, less i itself when it meets itself. */
static void conflict_counts(const mp_problem *p, const int *by_lo, int64_t *deg) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  uint64_t *L = mp_xmalloc(sizeof(uint64_t) * nz), *H = mp_xmalloc(sizeof(uint64_t) * nz);
  uint32_t *who_l = mp_xmalloc(sizeof(uint32_t) * nz), *who_h = mp_xmalloc(sizeof(uint32_t) * nz);
  size_t m = sorted_ends(p, false, L, who_l);
  sorted_ends(p, true, H, who_h);
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    size_t born = below(L, m, mp_radix_key(it->hi));
    size_t dead = upto(H, m, mp_radix_key(it->lo));
    deg[i] = (int64_t)born - (int64_t)dead - (it->size > 0 && it->lo < it->hi);
  }
  if (any_odd(p)) odd_pairs(p, by_lo, L, H, who_h, m, deg);
  free(L);
  free(H);
  free(who_l);
  free(who_h);
}

/* Stable radix passes, the last key first: index, birth, size, conflicts. */
static void seq_by_conflicts(const mp_problem *p, int *seq) {
  size_t n = (size_t)p->n, nz = n ? n : 1;
  uint64_t *k = mp_xmalloc(sizeof(uint64_t) * nz);
  int64_t *deg = mp_xmalloc(sizeof(int64_t) * nz);
  for (int i = 0; i < p->n; i++) seq[i] = i;
  for (size_t q = 0; q < n; q++) k[q] = mp_radix_key(p->items[seq[q]].lo);
  mp_radix_sort(k, (uint32_t *)seq, n);
  conflict_counts(p, seq, deg);
  for (size_t q = 0; q < n; q++) k[q] = ~mp_radix_key(p->items[seq[q]].size); /* descending */
  mp_radix_sort(k, (uint32_t *)seq, n);
  for (size_t q = 0; q < n; q++) k[q] = ~mp_radix_key(deg[seq[q]]);
  mp_radix_sort(k, (uint32_t *)seq, n);
  free(k);
  free(deg);
}

static int byconflicts_solve(mp_ctx *c) {
  return mp_place_greedy_within(c, seq_by_conflicts, "greedy by conflicts", MP_FIRST_FIT,
                                "byconflicts", MP_BY_SIZE_SLACK);
}

const mp_solver solver_byconflicts = {
    .name = "byconflicts",
    .summary = "greedy by conflicts, first fit (TVM USMP)",
    .decides = MP_DECIDES_OFFSETS,
    .solve = byconflicts_solve,
};
