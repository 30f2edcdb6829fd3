/* test_hillclimb.c - the skyline local-search placer: it reaches the
 * max-live bound on zero-slack packings (rectangles cut into pieces) within
 * its default work budget, honours --capacity (stops as soon as the arena
 * fits, infeasible at once below max-live), terminates without a time
 * limit, is deterministic for a seed and never worse than greedy by size,
 * and gives the incumbent at once when its time limit is already spent. */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

START_TEST(hillclimb_zero_slack) {
  mp_rng r;
  mp_rng_seed(&r, 71);
  int trials = tl_trials(40);
  for (int t = 0; t < trials; t++) {
    int64_t W = 64 + (int64_t)mp_rng_below(&r, 1024), T = 8 + (int64_t)mp_rng_below(&r, 60);
    mp_problem p;
    tl_cut_problem(&r, W, T, 8 + t % 33, &p);
    ck_assert_int_eq(mp_live_peak(&p), W);
    mp_result a;
    /* default budget, no time limit */
    ck_assert_int_eq(tl_run_fixed(&p, "hillclimb", (uint64_t)t + 1, 0, 0, NULL, &a), 0);
    ck_assert_msg(a.fig.arena == W, "trial %d: hillclimb arena %lld, zero-slack packing in %lld (%d pieces)", t,
                  (long long)a.fig.arena, (long long)W, p.n);
    ck_assert_int_eq(a.status, MP_OPTIMAL);
    mp_result_destroy(&a);
    mp_problem_destroy(&p);
  }
}
END_TEST

START_TEST(hillclimb_capacity) {
  mp_rng r;
  mp_rng_seed(&r, 72);
  int trials = tl_trials(10);
  for (int t = 0; t < trials; t++) {
    int64_t W = 256 + (int64_t)mp_rng_below(&r, 1024), T = 16 + (int64_t)mp_rng_below(&r, 40);
    mp_problem p;
    tl_cut_problem(&r, W, T, 30 + t, &p);
    mp_result a, b;
    ck_assert_int_eq(tl_run_fixed(&p, "bysize", 1, 0, 0, NULL, &b), 0);
    /* a capacity greedy by size already meets: met at once */
    ck_assert_int_eq(tl_run_fixed(&p, "hillclimb", 1, 0, b.fig.arena, NULL, &a), 0);
    ck_assert_int_le(a.fig.arena, b.fig.arena);
    ck_assert_int_ne(a.status, MP_INFEASIBLE);
    mp_result_destroy(&a);
    /* a capacity between max-live and bysize: the search meets it */
    int64_t C = W + (b.fig.arena - W) / 2;
    ck_assert_int_eq(tl_run_fixed(&p, "hillclimb", 1, 0, C, NULL, &a), 0);
    ck_assert_msg(a.fig.arena <= C, "trial %d: arena %lld above capacity %lld", t, (long long)a.fig.arena,
                  (long long)C);
    mp_result_destroy(&a);
    /* below max-live: infeasible, proven at once */
    const char *sets[] = {"hillclimb.iters=1000000000", NULL};
    double t0 = mp_now();
    tl_run_fixed(&p, "hillclimb", 1, 0, W - 1, sets, &a);
    ck_assert_int_eq(a.status, MP_INFEASIBLE);
    ck_assert(mp_now() - t0 < 1.0);
    mp_result_destroy(&a);
    mp_result_destroy(&b);
    mp_problem_destroy(&p);
  }
}
END_TEST

/* Without a time limit the default budget ends the run; the same seed gives
 * the same plan; the result is never worse than greedy by size, also with
 * alignment and pinned buffers (which the search leaves to the re-pack). */
START_TEST(hillclimb_budget_and_determinism) {
  mp_rng r;
  mp_rng_seed(&r, 73);
  int reps = tl_trials(3);
  for (int t = 0; t < reps; t++) {
    int n = 200;
    mp_problem p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.items = mp_xcalloc((size_t)n, sizeof(mp_item));
    p.t_end = 200;
    for (int i = 0; i < n; i++) {
      mp_item *it = &p.items[i];
      it->lo = (int64_t)mp_rng_below(&r, 199);
      it->hi = it->lo + 1 + (int64_t)mp_rng_below(&r, (uint64_t)(t == 2 ? 20 : 200 - it->lo));
      if (it->hi > 200) it->hi = 200;
      it->size = 1 + (int64_t)mp_rng_below(&r, 5000);
      it->align = t == 1 ? 64 : 1;
      it->fixed = -1;
    }
    if (t == 2) p.items[0].fixed = 1000, p.items[0].align = 1;
    mp_result a, b, c;
    double t0 = mp_now();
    ck_assert_int_eq(tl_run_fixed(&p, "hillclimb", 5, 0, 0, NULL, &a), 0);
    ck_assert_msg(mp_now() - t0 < 30.0, "default budget took %.1f s", mp_now() - t0);
    ck_assert_int_eq(tl_run_fixed(&p, "hillclimb", 5, 0, 0, NULL, &b), 0);
    ck_assert(memcmp(a.offsets, b.offsets, sizeof(int64_t) * (size_t)n) == 0);
    ck_assert_int_eq(tl_run_fixed(&p, "bysize", 1, 0, 0, NULL, &c), 0);
    ck_assert_int_le(a.fig.arena, c.fig.arena);
    if (t == 2) ck_assert_int_eq(a.offsets[0], 1000);
    mp_result_destroy(&a);
    mp_result_destroy(&b);
    mp_result_destroy(&c);
    mp_problem_destroy(&p);
  }
}
END_TEST

/* A limit spent before the search starts (the incumbent's packings check
 * the clock, then no decode runs): a verified plan, status timeout (or
 * optimal), the same in two runs, so independent of the clock; without the
 * limit the search does at least as well.  That the plan is the
 * incumbent's birth-order first fit is test_pack's deadline_cuts_packings. */
START_TEST(hillclimb_limit_spent_at_once) {
  mp_rng r;
  mp_rng_seed(&r, 74);
  for (int t = 0; t < 3; t++) {
    mp_problem p;
    tl_cut_problem(&r, 512 + (int64_t)mp_rng_below(&r, 512), 40, 300 + 50 * t, &p);
    mp_result a, b, f;
    ck_assert_int_eq(tl_run_fixed(&p, "hillclimb", 1, 1e-9, 0, NULL, &a), 0);
    ck_assert_msg(a.status == MP_TIMEOUT || a.status == MP_OPTIMAL, "status %s", mp_status_name(a.status));
    ck_assert_int_eq(tl_run_fixed(&p, "hillclimb", 1, 1e-9, 0, NULL, &b), 0);
    ck_assert(memcmp(a.offsets, b.offsets, sizeof(int64_t) * (size_t)p.n) == 0);
    ck_assert_int_eq(tl_run_fixed(&p, "hillclimb", 1, 0, 0, NULL, &f), 0);
    ck_assert_int_le(f.fig.arena, a.fig.arena);
    mp_result_destroy(&a);
    mp_result_destroy(&b);
    mp_result_destroy(&f);
    mp_problem_destroy(&p);
  }
}
END_TEST

/* It stops at a proven bound, not only at max-live (issue 12): two 3-byte
 * buffers aligned to 8 live together have max-live 6, but the upper one
 * starts at 8 at the lowest: the alignment bound 11 is met at once, and the
 * search does not chase the gap to max-live until its time limit. */
START_TEST(hillclimb_stops_at_the_alignment_bound) {
  mp_problem p;
  memset(&p, 0, sizeof p);
  p.n = 3;
  p.items = mp_xcalloc(3, sizeof(mp_item));
  p.t_end = 4;
  p.items[0] = (mp_item){3, 0, 2, 8, -1};
  p.items[1] = (mp_item){3, 0, 2, 8, -1};
  p.items[2] = (mp_item){4, 2, 4, 1, -1};
  mp_result a;
  ck_assert_int_eq(tl_run_fixed(&p, "hillclimb", 1, 3.0, 0, NULL, &a), 0);
  ck_assert_int_eq(a.fig.live_peak, 6);
  ck_assert_int_eq(a.fig.arena, 11);
  ck_assert_msg(a.status == MP_OPTIMAL, "status %s", mp_status_name(a.status));
  ck_assert_int_eq(a.stages[0].bound, 11);
  ck_assert_msg(a.place_cpu_ms < 1000, "hillclimb used %.0f ms of CPU of its 3 s limit at a proven optimum",
                a.place_cpu_ms);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
}
END_TEST

Suite *suite_hillclimb(void) {
  Suite *s = suite_create("hillclimb");
  TCase *tc = tcase_create("hillclimb");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, hillclimb_zero_slack);
  tcase_add_test(tc, hillclimb_capacity);
  tcase_add_test(tc, hillclimb_budget_and_determinism);
  tcase_add_test(tc, hillclimb_stops_at_the_alignment_bound);
  tcase_add_test(tc, hillclimb_limit_spent_at_once);
  suite_add_tcase(s, tc);
  return s;
}
