/* test_judge.c - the judge's sweeps against their definitions: the
 * verifier's overlap sweep accepts and rejects exactly what a check of
 * every pair does (empty and inverted lifetimes, touching buffers, near
 * misses), and the live peak and profile std-dev equal those of the
 * materialised profile. */
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
    int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    int *seq = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
    mp_seq_by_size(&p, seq);
    mp_pack(&p, seq, n, MP_BEST_FIT, off);
    for (int i = 0; i < n; i++)
      if (off[i] < 0) off[i] = 0;
    /* nudge a few offsets: overlaps by one byte, touching, or far away */
    int moves = (int)mp_rng_below(&r, 3);
    for (int k = 0; k < moves && n > 0; k++) {
      int i = (int)mp_rng_below(&r, (uint64_t)n);
      int64_t d = (int64_t)mp_rng_below(&r, 5) - 2;
      off[i] = off[i] + d < 0 ? 0 : off[i] + d;
      if (mp_rng_below(&r, 4) == 0) off[i] = (int64_t)mp_rng_below(&r, 200);
    }
    mp_error e;
    bool want = pair_overlaps(&p, off), got = mp_verify_offsets(&p, off, &e) != 0;
    ck_assert_msg(want == got, "trial %d: pairs say %d, verifier %d (%s)", t, want, got, got ? e.msg : "");
    if (got) ck_assert_msg(strstr(e.msg, "overlap"), "trial %d: %s", t, e.msg);
    rejected += got;
    free(off);
    free(seq);
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

Suite *suite_judge(void) {
  Suite *s = suite_create("judge");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, verify_equals_pairs);
  tcase_add_test(tc, peak_and_std_equal_profile);
  suite_add_tcase(s, tc);
  return s;
}
