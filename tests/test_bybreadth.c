/* test_bybreadth.c - greedy by breadth (solvers/bybreadth.c):
 * - three instances worked by hand: breadth order against size order (and
 *   an enlarged slot), the tie-breaks, and alignment with a pin, size-0
 *   items and an empty lifetime; and the two of TFLite's own test;
 * - on a few hundred random small problems (pins, size 0, empty and
 *   inverted lifetimes, alignments, many equal sizes and times) the same
 *   offsets as a plain reference: TFLite's loop step by step over every
 *   time, the slots scanned in index order with its keep-or-replace test;
 * - the size cap (refused, with the count and what to do) and a deadline
 *   already past (birth-order first fit, status timeout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "testlib.h"

/* A problem of n items {size, lo, hi, align, fixed}. */
static void make(mp_problem *p, const mp_item *items, int n) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)(n ? n : 1), sizeof(mp_item));
  memcpy(p->items, items, sizeof(mp_item) * (size_t)n);
  for (int i = 0; i < n; i++)
    if (items[i].hi > p->t_end) p->t_end = items[i].hi;
}

/* bybreadth called directly with `deadline` (0: none), max_steps and
 * slack (< 0: the defaults). */
static int run_bybreadth(const mp_problem *p, double deadline, double max_steps, double slack,
                         mp_ctx *c, int64_t *off) {
  const mp_solver *s = mp_solver_find("bybreadth");
  ck_assert(s != NULL);
  memset(c, 0, sizeof *c);
  mp_error err;
  ck_assert_int_eq(mp_solver_options(s, 0, NULL, c->opt, &err), MP_OK);
  for (int k = 0; k < s->n_options; k++)
    if (!strcmp(s->options[k].name, "max_steps") && max_steps >= 0) c->opt[k] = max_steps;
    else if (!strcmp(s->options[k].name, "slack") && slack >= 0) c->opt[k] = slack;
  c->prob = p;
  c->offsets = off;
  c->deadline = deadline;
  c->time_limit = deadline ? 1e-9 : 0;
  c->status = MP_FEASIBLE;
  return s->solve(c);
}

/* Run it on items through the harness too; check offsets and arena. */
static void check_hand(const mp_item *items, int n, const int64_t *want, int64_t arena) {
  mp_problem p;
  make(&p, items, n);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)n);
  mp_ctx c;
  ck_assert_int_eq(run_bybreadth(&p, 0, -1, -1, &c, off), 0);
  ck_assert_int_eq(c.status, MP_FEASIBLE);
  for (int i = 0; i < n; i++)
    ck_assert_msg(off[i] == want[i], "item %d at %lld, by hand %lld", i, (long long)off[i],
                  (long long)want[i]);
  mp_result r;
  ck_assert_int_eq(tl_run_fixed(&p, "bybreadth", 1, 0, 0, NULL, &r), 0);
  ck_assert(r.has_figures);
  ck_assert_int_eq(r.fig.arena, arena);
  for (int i = 0; i < n; i++) ck_assert_int_eq(r.offsets[i], want[i]);
  mp_result_destroy(&r);
  free(off);
  mp_problem_destroy(&p);
}

/* Breadth order is not size order.  Items (size, [lo, hi)):
 *   0: 1 [1,3)   1: 3 [0,2)   2: 9 [2,3)   3: 4 [3,4)   4: 5 [3,4)
 * Breadths: t0 {1} 3, t1 {0,1} 4, t2 {0,2} 10, t3 {3,4} 9: steps t2, t3,
 * t1, t0.
 *   t2: 2 (9) -> new S0 = 9; 0 (1): S0 holds 2, live -> new S1 = 1.
 *   t3: 4 (5): S0 and S1 free, S0 the smallest of at least 5 -> S0;
 *       3 (4): S0 holds 4 -> S1 alone, too small: the largest free one,
 *       enlarged to 4.
 *   t1: 1 (3) [0,2): S1 holds 0 [1,3), live; S0 (2, 4 at [2,4)) free -> S0.
 * Slots S0 = 9 {2, 4, 1} at 0, S1 = 4 {0, 3} at 9: arena 13.  (By size,
 * 2 4 3 1 0, item 1 would take the smaller S1 = 4, leaving 0 a third slot:
 * 14.) */
START_TEST(hand_breadth_not_size) {
  const mp_item it[] = {{1, 1, 3, 1, -1}, {3, 0, 2, 1, -1}, {9, 2, 3, 1, -1}, {4, 3, 4, 1, -1},
                        {5, 3, 4, 1, -1}};
  const int64_t want[] = {9, 0, 0, 9, 0};
  check_hand(it, 5, want, 13);
}
END_TEST

/* Ties.  Items: 0: 5 [0,1)   1: 5 [2,4)   2: 4 [0,2)   3: 5 [1,3)
 * Breadths: t0 {0,2} 9, t1 {2,3} 9, t2 {1,3} 10, t3 {1} 5: t2, then the
 * tie t0 before t1 (the earlier step), then t3.
 *   t2: 1 and 3 both 5: the lower index first.  1 -> new S0 = 5; 3 [1,3)
 *       meets 1 [2,4) -> new S1 = 5.
 *   t0: 0 (5) [0,1): S0 and S1 both free and both 5: the lower index, S0;
 *       2 (4) [0,2): S0 holds 0, S1 holds 3, both live -> new S2 = 4.
 * Slots stacked largest first, ties by index: S0 at 0, S1 at 5, S2 at 10;
 * arena 14.  (Taking t1 before t0 would put 2 in S0 and 0 in S1: 10.) */
START_TEST(hand_ties) {
  const mp_item it[] = {{5, 0, 1, 1, -1}, {5, 2, 4, 1, -1}, {4, 0, 2, 1, -1}, {5, 1, 3, 1, -1}};
  const int64_t want[] = {0, 0, 10, 5};
  check_hand(it, 4, want, 14);
}
END_TEST

/* Alignment, a pin, size 0, an empty lifetime.  Items:
 *   0: 6 [0,1)   1: 6 [0,1)   2: 4 [1,2)   3: 8 [1,2)   4: 5 [2,3) align 16
 *   5: 10 [0,3) pinned at 0   6: 0 [0,3)   7: 3 [1,1) align 4
 * Slot items 0-4 only: breadths t0 12, t1 12, t2 5: t0, t1, t2.
 *   t0: 0 -> new S0 = 6; 1 -> new S1 = 6.
 *   t1: 3 (8): S0 and S1 free, neither 8: the largest, a tie, the lower
 *       index: S0 enlarged to 8; 2 (4): S1 (6).
 *   t2: 4 (5): S0 (8) and S1 (6) free: the smallest of at least 5, S1,
 *       whose alignment becomes 16.
 * Above the pin's end 10: S0 = 8 at 10, S1 = 6 at align_up(18, 16) = 32;
 * arena 38.  Item 6 (no bytes) at 0; item 7, live strictly inside the pin
 * only, first fit aligned to 4: 12. */
START_TEST(hand_align_pin_zero_empty) {
  const mp_item it[] = {{6, 0, 1, 1, -1}, {6, 0, 1, 1, -1}, {4, 1, 2, 1, -1}, {8, 1, 2, 1, -1},
                        {5, 2, 3, 16, -1}, {10, 0, 3, 1, 0}, {0, 0, 3, 1, -1}, {3, 1, 1, 4, -1}};
  const int64_t want[] = {10, 32, 32, 10, 32, 0, 0, 12};
  check_hand(it, 8, want, 38);
}
END_TEST

/* TFLite's own expectations for greedy by breadth (its GPU delegate's
 * memory_management_test.cc, ChainRecords and ComplexRecords; its records
 * [first, last] are [first, last + 1) here), as slots, then as offsets by
 * the stacking (largest first, ties index):
 *   chain:   objects (0, 1, 0, 1, 0), sizes (64, 32): 0 and 64, arena 96;
 *   complex: objects (0, 4, 2, 1, 3, 0, 2, 3, 1), sizes (64, 16, 8, 8, 32):
 *            O0 at 0, O4 at 64, O1 at 96, O2 at 112, O3 at 120; arena 128.
 * In the complex one steps 1 and 4 tie at breadth 64 and TFLite's sort
 * took step 1 first: the other order puts item 1 in O0. */
START_TEST(tflite_examples) {
  const mp_item chain[] = {{16, 0, 2, 1, -1}, {8, 1, 3, 1, -1}, {64, 2, 4, 1, -1}, {32, 3, 5, 1, -1},
                           {8, 4, 6, 1, -1}};
  const int64_t chain_off[] = {0, 64, 0, 64, 0};
  check_hand(chain, 5, chain_off, 96);
  const mp_item cx[] = {{32, 0, 2, 1, -1}, {32, 1, 5, 1, -1}, {8, 2, 6, 1, -1},
                        {16, 3, 6, 1, -1}, {8, 4, 6, 1, -1},  {64, 5, 8, 1, -1},
                        {8, 6, 9, 1, -1},  {8, 7, 9, 1, -1},  {16, 8, 10, 1, -1}};
  const int64_t cx_off[] = {0, 64, 112, 96, 120, 0, 112, 120, 96};
  check_hand(cx, 9, cx_off, 128);
}
END_TEST

/* ------------------------------------------------ the reference */

static bool slotted(const mp_item *it) { return it->fixed < 0 && it->size > 0 && it->lo < it->hi; }

/* The unassigned slot item live at t with the largest size (ties: the
 * lower index), or -1. */
static int next_at(const mp_problem *p, int64_t t, const int *col) {
  int best = -1;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (slotted(it) && col[i] < 0 && it->lo <= t && t < it->hi &&
        (best < 0 || it->size > p->items[best].size))
      best = i;
  }
  return best;
}

/* TFLite's scan: slots in index order, a free one replacing the best so
 * far when it is better by the rule (fits where the best does not, or
 * fits and is smaller, or neither fits and it is larger).  A slot whose
 * alignment would pass MP_MAX_ALIGN with the item's is not free. */
static int tflite_pick(const mp_problem *p, int i, const int *col, const int64_t *ssz,
                       const int64_t *sal, int ns) {
  int64_t size = p->items[i].size, a = p->items[i].align;
  int best = -1;
  for (int s = 0; s < ns; s++) {
    if (best >= 0) {
      if (ssz[best] < size ? ssz[s] <= ssz[best] : ssz[s] < size || ssz[s] >= ssz[best]) continue;
    }
    bool taken = (__int128)(sal[s] / mp_gcd(sal[s], a)) * a > MP_MAX_ALIGN;
    for (int j = 0; j < p->n && !taken; j++)
      taken = col[j] == s && mp_live_together(&p->items[i], &p->items[j]);
    if (!taken) best = s;
  }
  return best;
}

static int64_t breadth_at(const mp_problem *p, int64_t t) {
  int64_t b = 0;
  for (int i = 0; i < p->n; i++)
    if (slotted(&p->items[i]) && p->items[i].lo <= t && t < p->items[i].hi) b += p->items[i].size;
  return b;
}

/* Every step of [t0, t1) by breadth descending (ties: the earlier), its
 * items into slots: col[] and the slots' sizes and alignments. */
static int assign_steps(const mp_problem *p, int64_t t0, int64_t t1, int *col, int64_t *ssz, int64_t *sal) {
  int ns = 0;
  bool *done = mp_xcalloc((size_t)(t1 - t0 + 1), sizeof(bool));
  for (int64_t k = t0; k < t1; k++) {
    int64_t t = -1, bt = -1;
    for (int64_t u = t0; u < t1; u++)
      if (!done[u - t0] && breadth_at(p, u) > bt) bt = breadth_at(p, u), t = u;
    done[t - t0] = true;
    for (int i; (i = next_at(p, t, col)) >= 0;) {
      int s = tflite_pick(p, i, col, ssz, sal, ns);
      if (s < 0) s = ns++, ssz[s] = 0, sal[s] = 1;
      if (p->items[i].size > ssz[s]) ssz[s] = p->items[i].size;
      sal[s] = sal[s] / mp_gcd(sal[s], p->items[i].align) * p->items[i].align;
      col[i] = s;
    }
  }
  free(done);
  return ns;
}

/* The whole plan: slots stacked largest first (ties: index) above the
 * pins, each aligned to its lcm; no bytes at 0; empty lifetimes last. */
static void reference(const mp_problem *p, int64_t *off) {
  int n = p->n;
  int *col = mp_xmalloc(sizeof(int) * (size_t)(n + 1));
  int64_t *ssz = mp_xcalloc((size_t)n + 1, sizeof(int64_t)), *sal = mp_xcalloc((size_t)n + 1, sizeof(int64_t));
  int64_t base = 0, t0 = INT64_MAX, t1 = INT64_MIN;
  for (int i = 0; i < n; i++) {
    const mp_item *it = &p->items[i];
    col[i] = -1;
    off[i] = it->fixed >= 0 ? it->fixed : 0;
    if (it->fixed >= 0 && it->size > 0 && it->fixed + it->size > base) base = it->fixed + it->size;
    if (slotted(it) && it->lo < t0) t0 = it->lo;
    if (slotted(it) && it->hi > t1) t1 = it->hi;
  }
  int ns = t0 < t1 ? assign_steps(p, t0, t1, col, ssz, sal) : 0;
  int64_t *start = mp_xcalloc((size_t)ns + 1, sizeof(int64_t)), at = base;
  bool *laid = mp_xcalloc((size_t)ns + 1, sizeof(bool));
  for (int k = 0; k < ns; k++) {
    int s = -1;
    for (int u = 0; u < ns; u++)
      if (!laid[u] && (s < 0 || ssz[u] > ssz[s])) s = u;
    laid[s] = true;
    at = mp_align_up(at, sal[s]);
    start[s] = at;
    at += ssz[s];
  }
  for (int i = 0; i < n; i++)
    if (col[i] >= 0) off[i] = start[col[i]];
  mp_pack_degenerate(p, off);
  free(col);
  free(ssz);
  free(sal);
  free(start);
  free(laid);
}

/* shape 0 plain, 1 pins / size 0 / empty and inverted lifetimes, 2 long
 * lifetimes, 3 few distinct times; sizes from 1-3 (many ties) or 1-300;
 * times from 0 or from -40; alignments 1, 8, 64, rarely 3 or 7 x 2^27 (an
 * lcm with 3 or 8 past 2^30). */
static void rand_problem(mp_rng *r, int n, int shape, bool ties, mp_problem *p) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)(n ? n : 1), sizeof(mp_item));
  int64_t T = shape == 3 ? 2 + (int64_t)mp_rng_below(r, 4) : 4 + (int64_t)mp_rng_below(r, 40);
  int64_t from = mp_rng_below(r, 2) ? -40 : 0;
  /* rarely alignments that are not powers of two, some with an lcm past 2^30 */
  static const int64_t al[8] = {1, 1, 8, 64, 1, 8, 3, 939524096};
  for (int i = 0; i < n; i++) {
    mp_item *it = &p->items[i];
    it->lo = from + (int64_t)mp_rng_below(r, (uint64_t)T);
    it->hi = it->lo + 1 + (int64_t)mp_rng_below(r, shape == 2 ? (uint64_t)T : 5);
    it->size = 1 + (int64_t)mp_rng_below(r, ties ? 3 : 300);
    it->align = al[mp_rng_below(r, mp_rng_below(r, 5) ? 6 : 8)];
    it->fixed = -1;
    if (shape == 1 && mp_rng_below(r, 6) == 0) it->hi = it->lo - (int64_t)mp_rng_below(r, 3);
    if (shape == 1 && mp_rng_below(r, 10) == 0) it->size = 0;
    if (shape == 1 && mp_rng_below(r, 8) == 0) it->fixed = 2818572288 * (int64_t)i; /* apart, aligned */
  }
  p->t_begin = from;
  p->t_end = from + T + 40;
}

START_TEST(equals_reference) {
  mp_rng r;
  mp_rng_seed(&r, 4101);
  int trials = tl_trials(400), slots_used = 0;
  for (int t = 0; t < trials; t++) {
    mp_problem p;
    rand_problem(&r, t % 9 == 0 ? t % 3 : 1 + (int)mp_rng_below(&r, 40), t % 4, t % 3 == 0, &p);
    int64_t *got = mp_xmalloc(sizeof(int64_t) * (size_t)(p.n + 1));
    int64_t *want = mp_xmalloc(sizeof(int64_t) * (size_t)(p.n + 1));
    mp_ctx c;
    ck_assert_int_eq(run_bybreadth(&p, 0, -1, -1, &c, got), 0);
    reference(&p, want);
    for (int i = 0; i < p.n; i++)
      ck_assert_msg(got[i] == want[i], "trial %d (n %d): item %d at %lld, the reference says %lld",
                    t, p.n, i, (long long)got[i], (long long)want[i]);
    mp_error e;
    ck_assert_msg(mp_verify_offsets(&p, got, &e) == 0, "trial %d: %s", t, e.msg);
    int nb = 0, ns = 0;
    ck_assert_int_eq(sscanf(c.msg, "%d buffers in %d slots", &nb, &ns), 2);
    slots_used += ns >= 2;
    free(got);
    free(want);
    mp_problem_destroy(&p);
  }
  ck_assert_msg(slots_used > trials / 2, "only %d of %d trials used two slots or more", slots_used, trials);
}
END_TEST

START_TEST(cap_and_deadline) {
  mp_problem p;
  tl_clique(600, &p);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * 600);
  mp_ctx c;
  mp_error e;
  /* under the cap: one slot per item */
  ck_assert_int_eq(run_bybreadth(&p, 0, -1, -1, &c, off), 0);
  ck_assert_int_eq(c.status, MP_FEASIBLE);
  ck_assert_msg(strstr(c.msg, "600 buffers in 600 slots"), "%s", c.msg);
  ck_assert_msg(mp_verify_offsets(&p, off, &e) == 0, "%s", e.msg);
  /* over it: refused, with the count, the cap and what to do */
  ck_assert_int_eq(run_bybreadth(&p, 0, 1000, -1, &c, off), -1);
  ck_assert_int_eq(c.status, MP_REFUSED);
  ck_assert_msg(strstr(c.msg, "max_steps=1000") && strstr(c.msg, "bybreadth.max_steps") &&
                    strstr(c.msg, "of 600"),
                "%s", c.msg);
  /* the deadline past, within the slack (600 items take milliseconds):
   * greedy by breadth all the same */
  ck_assert_int_eq(run_bybreadth(&p, mp_now() - 1, -1, -1, &c, off), 0);
  ck_assert_int_eq(c.status, MP_FEASIBLE);
  ck_assert_msg(strstr(c.msg, "600 buffers in 600 slots"), "%s", c.msg);
  /* the deadline past, no slack: birth-order first fit, status timeout */
  ck_assert_int_eq(run_bybreadth(&p, mp_now() - 1, -1, 0, &c, off), 0);
  ck_assert_int_eq(c.status, MP_TIMEOUT);
  ck_assert_msg(strstr(c.msg, "after 63 of 600") && strstr(c.msg, "birth-order first fit"), "%s", c.msg);
  ck_assert_msg(mp_verify_offsets(&p, off, &e) == 0, "%s", e.msg);
  int64_t *ff = mp_xmalloc(sizeof(int64_t) * 600);
  tl_birth_first_fit(&p, ff);
  ck_assert(memcmp(ff, off, sizeof(int64_t) * 600) == 0);
  free(ff);
  free(off);
  mp_problem_destroy(&p);
}
END_TEST

Suite *suite_bybreadth(void) {
  Suite *s = suite_create("bybreadth");
  TCase *tc = tcase_create("bybreadth");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, hand_breadth_not_size);
  tcase_add_test(tc, hand_ties);
  tcase_add_test(tc, hand_align_pin_zero_empty);
  tcase_add_test(tc, tflite_examples);
  tcase_add_test(tc, equals_reference);
  tcase_add_test(tc, cap_and_deadline);
  suite_add_tcase(s, tc);
  return s;
}
