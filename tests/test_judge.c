/* test_judge.c - the judge's sweeps against their definitions: the
 * verifier's overlap sweep accepts and rejects exactly what a check of
 * every pair does (empty and inverted lifetimes, touching buffers, near
 * misses, hundreds of buffers live at once or a few, each alone in its
 * word of ranks), names the first overlapping pair, and bounds offsets at
 * 2^62; the live peak and profile std-dev equal those of the materialised
 * profile (also with times far from 0), and the radix sort the sweeps
 * order their events with equals a stable insertion sort. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "testlib.h"

static bool pair_overlaps(const mp_problem *p, const int64_t *off) {
  for (int i = 0; i < p->n; i++)
    for (int j = i + 1; j < p->n; j++) {
      const mp_item *a = &p->items[i], *b = &p->items[j];
      if (a->size <= 0 || b->size <= 0) continue;
      if (a->lo < b->hi && b->lo < a->hi && off[i] < off[j] + b->size && off[j] < off[i] + a->size)
        return true;
    }
  return false;
}

/* Greedy-by-size best-fit offsets of every item of p (0 for the few the
 * packer leaves unplaced), to be nudged into overlaps. */
static int64_t *by_size_offsets(const mp_problem *p) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * nz);
  int *seq = mp_xmalloc(sizeof(int) * nz);
  mp_seq_by_size(p, seq);
  mp_pack(p, seq, p->n, MP_BEST_FIT, off);
  for (int i = 0; i < p->n; i++)
    if (off[i] < 0) off[i] = 0;
  free(seq);
  return off;
}

/* The verifier refuses off exactly when a check of every pair finds an
 * overlap, and says so; whether it refused (trial t). */
static bool judged_as_pairs(const mp_problem *p, const int64_t *off, int t) {
  mp_error e;
  bool want = pair_overlaps(p, off), got = mp_verify_offsets(p, off, &e) != 0;
  ck_assert_msg(want == got, "trial %d (n %d): pairs say %d, verifier %d (%s)", t, p->n, want, got,
                got ? e.msg : "");
  if (got) ck_assert_msg(strstr(e.msg, "overlap"), "trial %d: %s", t, e.msg);
  return got;
}

/* odd: 0 none, 1 some empty lifetimes [t, t), 2 some inverted ones too. */
static void rand_lifetimes(mp_rng *r, int n, int odd, mp_problem *p) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)(n ? n : 1), sizeof(mp_item));
  p->t_begin = 0;
  p->t_end = 30;
  for (int i = 0; i < n; i++) {
    mp_item *it = &p->items[i];
    it->lo = (int64_t)mp_rng_below(r, 25);
    it->hi = it->lo + 1 + (int64_t)mp_rng_below(r, 6);
    if (odd && mp_rng_below(r, 5) == 0) it->hi = it->lo;
    if (odd == 2 && mp_rng_below(r, 20) == 0) it->hi = it->lo - 1;
    it->size = mp_rng_below(r, 12) == 0 ? 0 : 1 + (int64_t)mp_rng_below(r, 20);
    it->align = 1;
    it->fixed = -1;
  }
}

START_TEST(verify_equals_pairs) {
  mp_rng r;
  mp_rng_seed(&r, 31337);
  int trials = tl_trials(4000), rejected = 0;
  for (int t = 0; t < trials; t++) {
    mp_problem p;
    int n = (int)mp_rng_below(&r, 40);
    rand_lifetimes(&r, n, t % 3, &p);
    int64_t *off = by_size_offsets(&p);
    /* nudge a few offsets: overlaps by one byte, touching, or far away */
    int moves = (int)mp_rng_below(&r, 3);
    for (int k = 0; k < moves && n > 0; k++) {
      int i = (int)mp_rng_below(&r, (uint64_t)n);
      int64_t d = (int64_t)mp_rng_below(&r, 5) - 2;
      off[i] = off[i] + d < 0 ? 0 : off[i] + d;
      if (mp_rng_below(&r, 4) == 0) off[i] = (int64_t)mp_rng_below(&r, 200);
    }
    if (t % 7 == 0) /* times spanning 2^61 and more: the verifier's two-pass event sort */
      for (int i = 0; i < n; i++) p.items[i].lo *= (int64_t)1 << 58, p.items[i].hi *= (int64_t)1 << 58;
    if (t % 7 == 3) /* times below 0: keys counted from the least */
      for (int i = 0; i < n; i++) p.items[i].lo -= 1000, p.items[i].hi -= 1000;
    rejected += judged_as_pairs(&p, off, t);
    free(off);
    mp_problem_destroy(&p);
  }
  ck_assert_msg(rejected > trials / 10, "only %d of %d placements were rejected", rejected, trials);
}
END_TEST

START_TEST(peak_and_std_equal_profile) {
  mp_rng r;
  mp_rng_seed(&r, 5);
  for (int t = 0; t < tl_trials(500); t++) {
    mp_problem p;
    rand_lifetimes(&r, (int)mp_rng_below(&r, 40), 0, &p);
    int64_t *prof = mp_profile(&p), peak = 0;
    double s1 = 0, s2 = 0;
    int len = (int)(p.t_end - p.t_begin);
    for (int k = 0; k < len; k++) {
      if (prof[k] > peak) peak = prof[k];
      s1 += (double)prof[k];
      s2 += (double)prof[k] * (double)prof[k];
    }
    double mean = s1 / len, sd = sqrt(fmax(0, s2 / len - mean * mean));
    ck_assert_int_eq(mp_live_peak(&p), peak);
    ck_assert_msg(fabs(mp_profile_std(&p) - sd) <= 1e-9 * fmax(1, sd), "trial %d: std %g, profile %g", t,
                  mp_profile_std(&p), sd);
    free(prof);
    mp_problem_destroy(&p);
  }
}
END_TEST

/* Times shifted by the same amount (up to 2^40, the fixed-lifetime limit)
 * give the same peak and std-dev: the event sort looks at every byte; and
 * times stretched apart the same peak. */
START_TEST(peak_and_std_shift_free) {
  mp_rng r;
  mp_rng_seed(&r, 6);
  for (int t = 0; t < tl_trials(300); t++) {
    mp_problem p;
    rand_lifetimes(&r, (int)mp_rng_below(&r, 60), 1, &p);
    int64_t peak = mp_live_peak(&p);
    double sd = mp_profile_std(&p);
    int64_t shift = (int64_t)mp_rng_below(&r, (uint64_t)1 << 40);
    for (int i = 0; i < p.n; i++) p.items[i].lo += shift, p.items[i].hi += shift;
    p.t_begin += shift, p.t_end += shift;
    ck_assert_int_eq(mp_live_peak(&p), peak);
    ck_assert_msg(mp_profile_std(&p) == sd, "trial %d: std %g, unshifted %g", t, mp_profile_std(&p), sd);
    /* stretched far apart (the peak's sweep over events, not the dense array) */
    for (int i = 0; i < p.n; i++) p.items[i].lo *= 1000, p.items[i].hi *= 1000;
    ck_assert_int_eq(mp_live_peak(&p), peak);
    mp_problem_destroy(&p);
  }
}
END_TEST

/* mp_profile_std's dense array and the sweep over events give the same
 * double to the last bit: windows wider or narrower than the lifetimes
 * (events before t_begin, at and after t_end), starts and ends that cancel
 * at one time, empty and inverted lifetimes, sizes to 2^50; a window of at
 * most 4 n + 64 steps, so the dense array is the one compared (a few
 * trials' sizes overflow on purpose: both then sweep). */
START_TEST(std_dense_equals_sweep) {
  mp_rng r;
  mp_rng_seed(&r, 8);
  for (int t = 0; t < tl_trials(3000); t++) {
    mp_problem p;
    rand_lifetimes(&r, (int)mp_rng_below(&r, t % 2 ? 60 : 8), 2, &p); /* few: lone events */
    p.t_begin = (int64_t)mp_rng_below(&r, 12) - 4;
    p.t_end = p.t_begin + 1 + (int64_t)mp_rng_below(&r, 40);
    int big = (int)mp_rng_below(&r, 4);
    for (int i = 0; i < p.n; i++) {
      if (big == 1) p.items[i].size *= (int64_t)1 << 30;
      if (big == 2 && mp_rng_below(&r, 3) == 0) p.items[i].size = (int64_t)mp_rng_below(&r, (uint64_t)1 << 50);
      if (big == 3 && t % 50 == 0) p.items[i].size = INT64_MAX / 3;
      if (i > 0 && mp_rng_below(&r, 6) == 0) { /* a start and an end that cancel at one time */
        p.items[i].lo = p.items[i - 1].hi;
        p.items[i].size = p.items[i - 1].size;
      }
    }
    double dense = mp_profile_std(&p), sweep = mp_profile_std_sweep(&p);
    ck_assert_msg(memcmp(&dense, &sweep, sizeof dense) == 0, "trial %d: dense %.17g, sweep %.17g", t,
                  dense, sweep);
    mp_problem_destroy(&p);
  }
}
END_TEST

START_TEST(radix_sort_is_stable_sort) {
  mp_rng r;
  mp_rng_seed(&r, 7);
  for (int t = 0; t < tl_trials(300); t++) {
    size_t m = (size_t)mp_rng_below(&r, 300);
    uint64_t *key = mp_xmalloc(sizeof(uint64_t) * (m ? m : 1)), *want = mp_xmalloc(sizeof(uint64_t) * (m ? m : 1));
    uint32_t *val = mp_xmalloc(sizeof(uint32_t) * (m ? m : 1)), *wval = mp_xmalloc(sizeof(uint32_t) * (m ? m : 1));
    /* few distinct keys (ties), small ones, or any 64-bit signed values */
    int kind = t % 3;
    for (size_t k = 0; k < m; k++) {
      int64_t x = kind == 0 ? (int64_t)mp_rng_below(&r, 4)
                  : kind == 1 ? (int64_t)mp_rng_below(&r, 100000) - 50000 : (int64_t)mp_rng_next(&r);
      key[k] = mp_radix_key(x);
      val[k] = (uint32_t)k;
    }
    for (size_t k = 0; k < m; k++) { /* insertion sort, stable */
      size_t j = k;
      for (; j > 0 && want[j - 1] > key[k]; j--) want[j] = want[j - 1], wval[j] = wval[j - 1];
      want[j] = key[k], wval[j] = val[k];
    }
    mp_radix_sort(key, val, m);
    for (size_t k = 0; k < m; k++) {
      ck_assert_msg(key[k] == want[k] && val[k] == wval[k], "trial %d, position %zu", t, k);
      if (k > 0) /* the signed order */
        ck_assert((int64_t)(key[k - 1] ^ ((uint64_t)1 << 63)) <= (int64_t)(key[k] ^ ((uint64_t)1 << 63)));
    }
    free(key);
    free(want);
    free(val);
    free(wval);
  }
}
END_TEST

/* Hand cases of DESIGN 1.4/1.5 the random trials above cannot reach: an
 * offset of -1 at alignment 1 (no offset: it is not a multiple of any
 * alignment > 1, so only A = 1 tells), and a buffer pinned at 0 (a pin is
 * an offset >= 0; 0 is one) or at 8 and placed elsewhere.  Two buffers of 4
 * bytes, [0, 2) and [2, 4): never live together, so only these checks can
 * refuse. */
START_TEST(verify_offsets_hand_cases) {
  mp_item items[2] = {{4, 0, 2, 1, -1}, {4, 2, 4, 1, -1}};
  mp_problem p = {.n = 2, .items = items, .t_begin = 0, .t_end = 4};
  mp_error e;
  int64_t ok[2] = {0, 0}, neg[2] = {-1, 0};
  ck_assert_int_eq(mp_verify_offsets(&p, ok, &e), 0);
  ck_assert_int_ne(mp_verify_offsets(&p, neg, &e), 0);
  ck_assert_msg(strstr(e.msg, "negative offset -1"), "%s", e.msg);
  items[0].fixed = 0; /* pinned at 0: 0 passes, 4 does not */
  ck_assert_int_eq(mp_verify_offsets(&p, ok, &e), 0);
  int64_t moved[2] = {4, 0};
  ck_assert_int_ne(mp_verify_offsets(&p, moved, &e), 0);
  ck_assert_msg(strstr(e.msg, "pinned at 0 but placed at 4"), "%s", e.msg);
  items[0].fixed = 8;
  ck_assert_int_ne(mp_verify_offsets(&p, ok, &e), 0);
  ck_assert_msg(strstr(e.msg, "pinned at 8 but placed at 0"), "%s", e.msg);
}
END_TEST

/* DESIGN 1.3's ratios at the smallest arena, 1 byte: two 1-byte buffers
 * live at [0, 1) and [1, 2), both at offset 0.  live peak 1, arena 1, sum
 * of sizes 2: fragmentation (1 - 1) / 1 = 0, reuse ratio 2 / 1 = 2,
 * reduction vs no reuse 1 - 1/2 = 0.5, vs a given arena of 2: 0.5; M = 1,
 * 1: std-dev 0. */
START_TEST(evaluate_one_byte_arena) {
  mp_item items[2] = {{1, 0, 1, 1, -1}, {1, 1, 2, 1, -1}};
  mp_problem p = {.n = 2, .items = items, .t_begin = 0, .t_end = 2};
  int64_t off[2] = {0, 0};
  mp_figures f;
  mp_evaluate(&p, off, 1, 2, &f);
  ck_assert_int_eq(f.live_peak, 1);
  ck_assert_int_eq(f.arena, 1);
  ck_assert_int_eq(f.sum_sizes, 2);
  ck_assert(f.fragmentation == 0.0);
  ck_assert(f.reuse_ratio == 2.0);
  ck_assert(f.reduction_vs_noreuse == 0.5);
  ck_assert(f.reduction_vs_given == 0.5);
  ck_assert(f.profile_std == 0.0);
}
END_TEST

/* More buffers than one word of the sweep's rank set holds (64): its upper
 * levels find a newcomer's neighbours across words.  Up to 600 buffers
 * over 40 steps (hundreds live together), or over 4 n steps (a few live
 * together, each alone in its word of ranks); about half the placements
 * get one buffer moved onto another. */
START_TEST(verify_equals_pairs_wide) {
  mp_rng r;
  mp_rng_seed(&r, 4242);
  int trials = tl_trials(150), rejected = 0;
  for (int t = 0; t < trials; t++) {
    int n = 65 + (int)mp_rng_below(&r, 536);
    mp_problem p;
    rand_lifetimes(&r, n, 0, &p);
    bool sparse = t % 4 >= 2;
    p.t_end = sparse ? 4 * n + 16 : 40;
    for (int i = 0; i < n; i++) {
      if (sparse) p.items[i].lo = (int64_t)mp_rng_below(&r, 4 * (uint64_t)n);
      p.items[i].hi = p.items[i].lo + 1 + (int64_t)mp_rng_below(&r, 15);
    }
    int64_t *off = by_size_offsets(&p);
    if (t % 2) { /* one buffer onto another: overlapping unless their lifetimes miss */
      int i = (int)mp_rng_below(&r, (uint64_t)n), j = (int)mp_rng_below(&r, (uint64_t)n);
      for (int k = 0; sparse && k < 100 && !mp_live_together(&p.items[i], &p.items[j]); k++)
        j = (int)mp_rng_below(&r, (uint64_t)n); /* a j live with i, when sparse */
      off[i] = off[j] + (int64_t)mp_rng_below(&r, 3);
    }
    rejected += judged_as_pairs(&p, off, t);
    free(off);
    mp_problem_destroy(&p);
  }
  ck_assert_msg(rejected > trials / 4, "only %d of %d placements were rejected", rejected, trials);
}
END_TEST

/* The message names the first overlapping pair by (birth, index): #0 with
 * the first later-born buffer it overlaps, #2, not #3, which overlaps #0
 * too; and not the sweep's pair (#2 meets #0 as its neighbour first, and
 * would name itself first).  #1 lives beside them elsewhere. */
START_TEST(verify_names_first_pair) {
  mp_item items[4] = {{8, 0, 10, 1, -1}, {8, 1, 10, 1, -1}, {8, 2, 10, 1, -1}, {8, 3, 10, 1, -1}};
  mp_problem p = {.n = 4, .items = items, .t_begin = 0, .t_end = 10};
  int64_t off[4] = {0, 100, 4, 6};
  mp_error e;
  ck_assert_int_ne(mp_verify_offsets(&p, off, &e), 0);
  ck_assert_str_eq(e.msg, "buffers #0 [0, 10) at [0, 8) and #2 [2, 10) at [4, 12) are live "
                          "together and overlap in memory");
}
END_TEST

/* Offsets at the verifier's range, MP_MAX_ARENA = 2^62: an end exactly
 * there passes, one byte past it does not; a misaligned offset's message
 * names its buffer. */
START_TEST(verify_offsets_range_and_names) {
  mp_item items[2] = {{4, 0, 2, 1, -1}, {4, 2, 4, 8, -1}};
  mp_problem p = {.n = 2, .items = items, .t_begin = 0, .t_end = 4};
  mp_error e;
  int64_t top[2] = {MP_MAX_ARENA - 4, 0}, past[2] = {MP_MAX_ARENA - 3, 0}, odd[2] = {0, 4};
  ck_assert_msg(mp_verify_offsets(&p, top, &e) == 0, "%s", e.msg);
  ck_assert_int_ne(mp_verify_offsets(&p, past, &e), 0);
  ck_assert_msg(strstr(e.msg, "buffer #0: offset 4611686018427387901 is out of range"), "%s", e.msg);
  ck_assert_int_ne(mp_verify_offsets(&p, odd, &e), 0);
  ck_assert_str_eq(e.msg, "buffer #1: offset 4 is not a multiple of its alignment 8");
}
END_TEST

Suite *suite_judge(void) {
  Suite *s = suite_create("judge");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, verify_equals_pairs);
  tcase_add_test(tc, peak_and_std_equal_profile);
  tcase_add_test(tc, peak_and_std_shift_free);
  tcase_add_test(tc, std_dense_equals_sweep);
  tcase_add_test(tc, radix_sort_is_stable_sort);
  tcase_add_test(tc, verify_offsets_hand_cases);
  tcase_add_test(tc, evaluate_one_byte_arena);
  tcase_add_test(tc, verify_equals_pairs_wide);
  tcase_add_test(tc, verify_names_first_pair);
  tcase_add_test(tc, verify_offsets_range_and_names);
  suite_add_tcase(s, tc);
  return s;
}
