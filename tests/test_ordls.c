/* test_ordls.c - the local-search state of src/ordls.c that sa and ga use:
 * after every move (kept or undone) the order is a valid topological
 * order, and the incrementally kept profile, peak, excess over the target
 * and soft-max sum equal a recomputation from scratch (mp_problem_from_order
 * and mp_profile); the randomised greedy list schedule is always valid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/listsched.h"
#include "lib/ordls.h"
#include "testlib.h"

/* Compare the state against a full recomputation of its order. */
static void check_state(const mp_graph *g, const mp_ols *s, int trial, int step) {
  mp_error err;
  ck_assert_msg(mp_order_check(g, s->ord, &err) < 0, "trial %d step %d: invalid order: %s", trial,
                step, err.msg);
  for (int i = 0; i < g->n; i++)
    ck_assert_msg(s->pos[s->ord[i]] == i, "trial %d step %d: pos out of date", trial, step);
  mp_problem p;
  mp_problem_from_order(g, s->ord, 1, &p);
  int64_t *prof = mp_profile(&p), peak = 0, xs = 0;
  double sum = 0;
  for (int t = 0; t < g->n; t++) {
    ck_assert_msg(prof[t] == s->M[t], "trial %d step %d: M(%d) = %lld, recomputed %lld", trial,
                  step, t, (long long)s->M[t], (long long)prof[t]);
    if (prof[t] > peak) peak = prof[t];
    if (prof[t] > s->U) xs += prof[t] - s->U;
    sum += pow((double)prof[t] / s->scale, s->k);
  }
  ck_assert_int_eq(mp_ols_peak(s), peak);
  ck_assert_int_eq(mp_live_peak(&p), peak);
  if (s->mode == 1) ck_assert_msg(s->xs == xs, "trial %d step %d: excess %lld, recomputed %lld",
                                  trial, step, (long long)s->xs, (long long)xs);
  if (s->mode == 0)
    ck_assert_msg(fabs(s->sum - sum) <= 1e-6 * fmax(1.0, sum), "trial %d step %d: soft sum %g, recomputed %g",
                  trial, step, s->sum, sum);
  free(prof);
  mp_problem_destroy(&p);
}

START_TEST(incremental_equals_full) {
  mp_rng rng;
  mp_rng_seed(&rng, 777);
  int trials = tl_trials(120);
  for (int trial = 0; trial < trials; trial++) {
    int n = 2 + (int)mp_rng_below(&rng, 30);
    mp_graph *g = tl_random_graph(&rng, n, TL_ALL);
    int mode = trial % 2;
    mp_ols s;
    mp_ols_init(&s, g, mode, 1 + trial % 5);
    int *start = mp_xmalloc(sizeof(int) * (size_t)n);
    ck_assert(mp_ls_order_random_greedy(g, &rng, 0.5, start, 0));
    mp_error err;
    ck_assert_msg(mp_order_check(g, start, &err) < 0, "random greedy order invalid: %s", err.msg);
    mp_ols_load(&s, start);
    mp_ols_set_scale(&s, (double)mp_ols_peak(&s));
    mp_ols_set_target(&s, mp_ols_peak(&s) * 9 / 10);
    check_state(g, &s, trial, -1);
    for (int step = 0; step < 300; step++) {
      double pdrag = (step % 3) / 2.0;
      int reach = 2 + (int)mp_rng_below(&rng, (uint64_t)n);
      if (!mp_ols_move(&s, &rng, pdrag, reach)) continue;
      mp_ols_eval ev = mp_ols_eval_move(&s);
      if (mp_rng_below(&rng, 2)) {
        mp_ols_commit(&s, ev);
        ck_assert_int_eq(ev.peak, mp_ols_peak(&s));
      } else {
        mp_ols_revert(&s);
      }
      check_state(g, &s, trial, step);
      if (step % 50 == 49) {
        /* targets and reloads keep the state consistent */
        mp_ols_set_target(&s, mp_ols_peak(&s) - 1);
        memcpy(start, s.ord, sizeof(int) * (size_t)n);
        mp_ols_load(&s, start);
        check_state(g, &s, trial, step);
      }
    }
    free(start);
    mp_ols_destroy(&s);
    mp_graph_destroy(g);
  }
}
END_TEST

/* Every move that reports a change changes the order: on independent nodes
 * a shift puts its node at another step, and a drag takes its node (alone:
 * it has no ancestors or descendants) to the far end of its window; and
 * such moves are found (a drag that never moved anything survived). */
START_TEST(moves_move) {
  mp_rng rng;
  mp_rng_seed(&rng, 12);
  mp_graph *g = tl_graph("{\"nodes\":[{\"id\":0,\"size\":1,\"inputs\":[]},"
                         "{\"id\":1,\"size\":2,\"inputs\":[]},{\"id\":2,\"size\":3,\"inputs\":[]},"
                         "{\"id\":3,\"size\":4,\"inputs\":[]},{\"id\":4,\"size\":5,\"inputs\":[]}]}");
  mp_ols s;
  mp_ols_init(&s, g, 1, 1);
  mp_ols_load(&s, g->given);
  int before[5], moved[2] = {0, 0}; /* shifts, drags */
  for (int step = 0; step < 200; step++) {
    double pdrag = step % 2;
    memcpy(before, s.ord, sizeof before);
    if (!mp_ols_move(&s, &rng, pdrag, 5)) continue;
    moved[step % 2]++;
    ck_assert_msg(memcmp(before, s.ord, sizeof before) != 0, "step %d: a %s move left the order",
                  step, pdrag > 0 ? "drag" : "shift");
    if (mp_rng_below(&rng, 2)) mp_ols_commit(&s, mp_ols_eval_move(&s));
    else mp_ols_revert(&s);
  }
  /* a node alone can always shift, and drag unless it is at the end it
   * would leave: both kinds moved most of the time */
  ck_assert_msg(moved[0] >= 80 && moved[1] >= 50, "%d shifts, %d drags moved", moved[0], moved[1]);
  mp_ols_destroy(&s);
  mp_graph_destroy(g);
}
END_TEST

Suite *suite_ordls(void) {
  Suite *s = suite_create("ordls");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, incremental_equals_full);
  tcase_add_test(tc, moves_move);
  suite_add_tcase(s, tc);
  return s;
}
