/* test_byconflicts.c - the placer byconflicts (greedy by conflicts, first
 * fit): hand-worked instances (an arena unlike bysize-ff's either way, the
 * tie-breaks, alignment, a pinned buffer counted as a conflict, size-0
 * buffers neither counted nor given bytes), and its offsets against a plain
 * reference of the same rule (conflicts by pairs, first fit over the
 * sorted spans) on random problems with empty and inverted lifetimes,
 * pins, size 0 and alignments; under a time limit it keeps the same plan,
 * or birth-order first fit when the clock cut it. */
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "registry.h"
#include "testlib.h"

typedef struct it4 {
  int64_t lo, hi, size, align, fixed;
} it4;

static void make(mp_problem *p, const it4 *v, int n) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)(n ? n : 1), sizeof(mp_item));
  p->t_end = 1;
  for (int i = 0; i < n; i++) {
    p->items[i] = (mp_item){v[i].size, v[i].lo, v[i].hi, v[i].align ? v[i].align : 1, v[i].fixed};
    if (v[i].hi > p->t_end) p->t_end = v[i].hi;
  }
}

/* The placer's own call, without the harness: status in *st. */
static void solve(const mp_problem *p, int threads, double deadline, int64_t *off, mp_ctx *c) {
  memset(c, 0, sizeof *c);
  c->prob = p;
  c->offsets = off;
  c->threads = threads;
  c->deadline = deadline;
  const mp_solver *s = mp_solver_find("byconflicts");
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(s->solve(c), 0);
}

/* Through the harness (verified): the offsets of `place` must be want[]. */
static void expect(const it4 *v, int n, const char *place, const int64_t *want, int64_t arena) {
  mp_problem p;
  make(&p, v, n);
  mp_result r;
  ck_assert_msg(tl_run_fixed(&p, place, 1, 0, 0, NULL, &r) == 0, "%s: %s", place, r.msg);
  for (int i = 0; i < n; i++)
    ck_assert_msg(r.offsets[i] == want[i], "%s: item %d at %lld, want %lld", place, i,
                  (long long)r.offsets[i], (long long)want[i]);
  ck_assert_int_eq(r.fig.arena, arena);
  mp_result_destroy(&r);
  mp_problem_destroy(&p);
}

/* Items [lo, hi) size: 0 [3,4) 2, 1 [1,4) 2, 2 [0,2) 3, 3 [2,4) 2.
 * Conflicts: 0 {1,3} 2, 1 {0,2,3} 3, 2 {1} 1, 3 {0,1} 2.
 * byconflicts: 1, then 3 (2 conflicts, size 2, born 2) before 0 (born 3),
 * then 2.  1 at 0 [0,2); 3 above 1 at 2; 0 above 1 and 3 at 4; 2 meets 1
 * only: [0,2) is taken, 2.  Arena 6 (= max-live at step 3).
 * bysize-ff: 2 (size 3) at 0; 1 above 2 at 3; 3 misses 2: 0; 0 meets 1
 * [3,5) and 3 [0,2): the gap [2,3) is too small, 5.  Arena 7. */
START_TEST(hand_worked_beats_bysize_ff) {
  const it4 v[] = {{3, 4, 2, 1, -1}, {1, 4, 2, 1, -1}, {0, 2, 3, 1, -1}, {2, 4, 2, 1, -1}};
  expect(v, 4, "byconflicts", (const int64_t[]){4, 0, 2, 2}, 6);
  expect(v, 4, "bysize-ff", (const int64_t[]){5, 3, 0, 0}, 7);
}
END_TEST

/* Items: 0 [1,3) 1, 1 [2,4) 1, 2 [1,2) 1, 3 [3,4) 2.  Conflicts: 0 {1,2},
 * 1 {0,3}, 2 {0}, 3 {1}.  byconflicts: 0 (born 1), 1, 3 (size 2), 2.  0 at
 * 0; 1 above 0 at 1; 3 meets 1 [1,2): [0,1) is too small, 2; 2 meets 0: 1.
 * Arena 4.  bysize-ff: 3 at 0; 0 misses 3: 0; 2 above 0: 1; 1 meets 0
 * [0,1) and 3 [0,2): 2.  Arena 3. */
START_TEST(hand_worked_loses_to_bysize_ff) {
  const it4 v[] = {{1, 3, 1, 1, -1}, {2, 4, 1, 1, -1}, {1, 2, 1, 1, -1}, {3, 4, 2, 1, -1}};
  expect(v, 4, "byconflicts", (const int64_t[]){0, 1, 1, 2}, 4);
  expect(v, 4, "bysize-ff", (const int64_t[]){0, 2, 1, 0}, 3);
}
END_TEST

/* Ties: equal conflicts go larger first; then earlier birth; then index. */
START_TEST(ties) {
  /* 0 [0,2) 2 and 1 [0,2) 5, one conflict each: 1 (larger) at 0, 0 at 5 */
  expect((const it4[]){{0, 2, 2, 1, -1}, {0, 2, 5, 1, -1}}, 2, "byconflicts",
         (const int64_t[]){5, 0}, 7);
  /* 0 [1,3) 4 and 1 [0,2) 4: 1 is born first, at 0; 0 at 4 */
  expect((const it4[]){{1, 3, 4, 1, -1}, {0, 2, 4, 1, -1}}, 2, "byconflicts",
         (const int64_t[]){4, 0}, 8);
  /* three equal [0,2) 3: by index, 0, 3, 6 */
  expect((const it4[]){{0, 2, 3, 1, -1}, {0, 2, 3, 1, -1}, {0, 2, 3, 1, -1}}, 3, "byconflicts",
         (const int64_t[]){0, 3, 6}, 9);
}
END_TEST

/* 0 [0,3) 5 meets 1 and 2 (2 conflicts): at 0.  1 [0,1) 4 (1 conflict,
 * larger than 2) above 0 at 5; 2 [2,3) 2, alignment 4: 5 rounds up to 8. */
START_TEST(alignment) {
  expect((const it4[]){{0, 3, 5, 1, -1}, {0, 1, 4, 1, -1}, {2, 3, 2, 4, -1}}, 3, "byconflicts",
         (const int64_t[]){0, 5, 8}, 10);
  /* conflicts: 0 {1,2,3} 3; 1 {0,3} 2; 3 {0,1} 2; 2 {0} 1.  Order 0, 1
   * (size 4), 3, 2: 0 at 0, 1 at 5, 3 above [0,9): 16 (alignment 8), 2 at
   * 8 (alignment 4, clear of 0's [0,5)) */
  expect((const it4[]){{0, 3, 5, 1, -1}, {0, 1, 4, 1, -1}, {2, 3, 2, 4, -1}, {0, 1, 1, 8, -1}}, 4,
         "byconflicts", (const int64_t[]){0, 5, 8, 16}, 17);
}
END_TEST

/* A pinned buffer holds its bytes and counts as a conflict.  0 pinned at 0,
 * [0,1) 1; 1 [0,2) 1 meets 0 and 2 (2 conflicts); 2 [1,2) 3 meets 1 only.
 * 1 first: above 0, at 1; 2 meets 1 [1,2): at 2.  (Not counting the pin,
 * 1 and 2 would tie at one conflict and 2, larger, would take 0, 1 then 3.) */
START_TEST(pinned) {
  expect((const it4[]){{0, 1, 1, 1, 0}, {0, 2, 1, 1, -1}, {1, 2, 3, 1, -1}}, 3, "byconflicts",
         (const int64_t[]){0, 1, 2}, 5);
  /* conflicts: 3 {0,1,2,4} 4, 1 {0,2,3,4} 4 (3 is larger: first), 2
   * {1,3,4} 3.  3 [0,2) 8 meets the pins [0,1) and 4 [10,14): at 1, in the
   * gap; 1 meets [0,1), [1,9), [10,14): at 9; 2 meets [1,9), [9,10),
   * [10,14) (not the pin 0, which dies at 1): at 14 */
  expect((const it4[]){{0, 1, 1, 1, 0}, {0, 2, 1, 1, -1}, {1, 2, 3, 1, -1}, {0, 2, 8, 1, -1},
                       {0, 2, 4, 1, 10}},
         5, "byconflicts", (const int64_t[]){0, 9, 14, 1, 10}, 17);
}
END_TEST

/* Size 0: no bytes, no conflicts.  0 [0,2) 1 meets 1 [1,3) 4 and three
 * empty buffers [0,1); counted, they would put 0 first (at 0, 1 at 1).
 * Not counted, 0 and 1 tie at one conflict: 1 (larger) at 0, 0 at 4; the
 * empty ones at 0. */
START_TEST(size_zero) {
  expect((const it4[]){{0, 2, 1, 1, -1}, {1, 3, 4, 1, -1}, {0, 1, 0, 1, -1}, {0, 1, 0, 8, -1},
                       {0, 1, 0, 1, -1}},
         5, "byconflicts", (const int64_t[]){4, 0, 0, 0, 0}, 5);
}
END_TEST

/* ---- the reference: the rule written out plainly, O(n^2 log n) ---- */

typedef struct ref_key {
  const mp_problem *p;
  const int64_t *deg;
} ref_key;

static int ref_cmp(const void *a, const void *b, void *arg) {
  const ref_key *k = arg;
  int x = *(const int *)a, y = *(const int *)b;
  const mp_item *ix = &k->p->items[x], *iy = &k->p->items[y];
  if (k->deg[x] != k->deg[y]) return k->deg[x] > k->deg[y] ? -1 : 1;
  if (ix->size != iy->size) return ix->size > iy->size ? -1 : 1;
  if (ix->lo != iy->lo) return ix->lo < iy->lo ? -1 : 1;
  return (x > y) - (x < y);
}

static int span_cmp(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Lowest offset (multiple of al) where size bytes clear every span. */
static int64_t first_fit(int64_t (*sp)[2], int m, int64_t size, int64_t al) {
  qsort(sp, (size_t)m, sizeof *sp, span_cmp);
  int64_t cur = 0;
  for (int k = 0; k < m; k++) {
    if (mp_align_up(cur, al) + size <= sp[k][0]) break;
    if (sp[k][1] > cur) cur = sp[k][1];
  }
  return mp_align_up(cur, al);
}

static bool meets(const mp_item *a, const mp_item *b) { return a->lo < b->hi && b->lo < a->hi; }

static void reference(const mp_problem *p, int64_t *off) {
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  int64_t *deg = mp_xcalloc(nz, sizeof(int64_t)), (*sp)[2] = mp_xmalloc(sizeof *sp * nz);
  int *seq = mp_xmalloc(sizeof(int) * nz);
  for (int i = 0; i < n; i++) {
    seq[i] = i;
    off[i] = p->items[i].fixed; /* pinned where they stand, the rest -1 */
    for (int j = 0; j < n; j++)
      deg[i] += j != i && p->items[j].size > 0 && meets(&p->items[i], &p->items[j]);
  }
  ref_key k = {p, deg};
  qsort_r(seq, (size_t)n, sizeof *seq, ref_cmp, &k);
  for (int q = 0; q < n; q++) {
    int i = seq[q], m = 0;
    const mp_item *it = &p->items[i];
    if (off[i] >= 0) continue;
    for (int j = 0; j < n; j++)
      if (j != i && off[j] >= 0 && p->items[j].size > 0 && meets(it, &p->items[j]))
        sp[m][0] = off[j], sp[m][1] = off[j] + p->items[j].size, m++;
    off[i] = it->size > 0 ? first_fit(sp, m, it->size, it->align) : 0;
  }
  free(deg);
  free(sp);
  free(seq);
}

/* n random items in T steps: shape 0 plain, 1 empty and inverted
 * lifetimes, sizes 0 and pins (which may overlap) too.  Sizes from a
 * short list, so that conflicts and sizes often tie. */
static void rand_problem(mp_rng *r, int n, int64_t T, int shape, mp_problem *p) {
  it4 *v = mp_xcalloc((size_t)(n ? n : 1), sizeof(it4));
  static const int64_t sizes[] = {1, 2, 3, 8, 8, 64, 100, 300}, al[] = {1, 1, 4, 16, 64};
  for (int i = 0; i < n; i++) {
    v[i].lo = (int64_t)mp_rng_below(r, (uint64_t)T);
    v[i].hi = v[i].lo + 1 + (int64_t)mp_rng_below(r, (uint64_t)(T / 2 + 1));
    v[i].size = sizes[mp_rng_below(r, 8)];
    v[i].align = al[mp_rng_below(r, 5)];
    v[i].fixed = -1;
    if (shape == 1 && mp_rng_below(r, 8) == 0) v[i].hi = v[i].lo - (int64_t)mp_rng_below(r, 3);
    if (shape == 1 && mp_rng_below(r, 10) == 0) v[i].size = 0;
    if (shape == 1 && mp_rng_below(r, 10) == 0) v[i].fixed = v[i].align * (int64_t)mp_rng_below(r, 20);
  }
  make(p, v, n);
  free(v);
}

static void same_as_reference(const mp_problem *p, int threads, const char *what) {
  int n = p->n;
  int64_t *want = mp_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  int64_t *got = mp_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  mp_ctx c;
  reference(p, want);
  solve(p, threads, 0, got, &c);
  ck_assert_int_eq(c.status, MP_FEASIBLE);
  for (int i = 0; i < n; i++)
    ck_assert_msg(got[i] == want[i], "%s (n %d): item %d at %lld, the reference %lld", what, n, i,
                  (long long)got[i], (long long)want[i]);
  free(want);
  free(got);
}

START_TEST(random_against_reference) {
  mp_rng r;
  mp_rng_seed(&r, 2026);
  int trials = tl_trials(400);
  for (int t = 0; t < trials; t++) {
    mp_problem p;
    rand_problem(&r, 1 + (int)mp_rng_below(&r, 40), 2 + (int64_t)mp_rng_below(&r, 30), t % 2, &p);
    same_as_reference(&p, 1, t % 2 ? "odd lifetimes, pins, size 0" : "plain");
    if (t % 2 == 0) { /* a model problem: the harness verifies the plan */
      mp_result res;
      ck_assert_msg(tl_run_fixed(&p, "byconflicts", 1, 0, 0, NULL, &res) == 0, "%s", res.msg);
      mp_result_destroy(&res);
    }
    mp_problem_destroy(&p);
  }
}
END_TEST

/* Past MP_PACK_THREADED_MIN items two threads pack it: the same offsets. */
START_TEST(large_against_reference) {
  mp_rng r;
  mp_rng_seed(&r, 7);
  for (int t = 0; t < 2; t++) {
    mp_problem p;
    rand_problem(&r, MP_PACK_THREADED_MIN + 500, 3000, t, &p);
    same_as_reference(&p, 2, t ? "large, odd" : "large");
    mp_problem_destroy(&p);
  }
}
END_TEST

/* Under a time limit, with more than MP_INCUMBENT_PAIRS pairs: the same plan
 * when the clock allows, birth-order first fit (timeout) when it cut. */
START_TEST(time_limit) {
  mp_rng r;
  mp_rng_seed(&r, 11);
  mp_problem p;
  rand_problem(&r, 2500, 40, 0, &p); /* long lifetimes: about 10^6 pairs */
  ck_assert(mp_live_pairs(&p) > MP_INCUMBENT_PAIRS);
  int n = p.n;
  int64_t *want = mp_xmalloc(sizeof(int64_t) * (size_t)n), *got = mp_xmalloc(sizeof(int64_t) * (size_t)n);
  mp_ctx c;
  solve(&p, 1, 0, want, &c);
  solve(&p, 1, mp_now() + 1e6, got, &c);
  ck_assert(c.status == MP_FEASIBLE && memcmp(want, got, sizeof(int64_t) * (size_t)n) == 0);
  const mp_solver *s = mp_solver_find("byconflicts");
  memset(&c, 0, sizeof c);
  c.prob = &p;
  c.offsets = got;
  c.deadline = mp_now() - 1;
  /* the slack of 0.5 s after the first fit may let it finish: either way */
  ck_assert_int_eq(s->solve(&c), 0);
  if (c.status == MP_TIMEOUT) {
    ck_assert_msg(strstr(c.msg, "cut greedy by conflicts"), "%s", c.msg);
    tl_birth_first_fit(&p, want);
  }
  ck_assert(memcmp(want, got, sizeof(int64_t) * (size_t)n) == 0);
  free(want);
  free(got);
  mp_problem_destroy(&p);
}
END_TEST

Suite *suite_byconflicts(void) {
  Suite *s = suite_create("byconflicts");
  TCase *tc = tcase_create("byconflicts");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, hand_worked_beats_bysize_ff);
  tcase_add_test(tc, hand_worked_loses_to_bysize_ff);
  tcase_add_test(tc, ties);
  tcase_add_test(tc, alignment);
  tcase_add_test(tc, pinned);
  tcase_add_test(tc, size_zero);
  tcase_add_test(tc, random_against_reference);
  tcase_add_test(tc, large_against_reference);
  tcase_add_test(tc, time_limit);
  suite_add_tcase(s, tc);
  return s;
}
