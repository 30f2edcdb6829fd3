/* test_packbatch.c - the indexed packer on several threads (pack_batch.c)
 * gives the offsets, arena and verbose counts of the sequential one on
 * random problems (many overlapping lifetimes, pins, size 0, empty and
 * inverted lifetimes, alignments, repeated items, both fits, rounds of one
 * item to the whole problem); the harness hands a stage its threads and
 * adds the CPU time of the threads a solver started to the stage's
 * cpu_ms. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "lib/pack_batch.h"
#include "testlib.h"

/* n random items over T steps: lifetimes of up to `span` steps (long ones
 * overlap a lot), a few empty or inverted, of size 0, pinned. */
static void rand_problem(mp_rng *r, int n, int64_t T, int64_t span, mp_problem *p) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)n, sizeof(mp_item));
  static const int64_t al[4] = {1, 1, 8, 64};
  for (int i = 0; i < n; i++) {
    mp_item *it = &p->items[i];
    it->lo = (int64_t)mp_rng_below(r, (uint64_t)T);
    it->hi = it->lo + 1 + (int64_t)mp_rng_below(r, (uint64_t)span);
    if (mp_rng_below(r, 12) == 0) it->hi = it->lo - (int64_t)mp_rng_below(r, 3); /* empty, inverted */
    it->size = 1 + (int64_t)mp_rng_below(r, mp_rng_below(r, 2) ? 16 : 500);
    if (mp_rng_below(r, 20) == 0) it->size = 0;
    it->align = al[mp_rng_below(r, 4)];
    it->fixed = mp_rng_below(r, 25) == 0 ? it->align * (int64_t)mp_rng_below(r, 50) : -1;
  }
  p->t_begin = 0;
  p->t_end = T + span;
}

/* 0: by size; 1: a random order; 2: a random order with repeats, cut short. */
static int rand_seq(mp_rng *r, const mp_problem *p, int kind, int *seq) {
  int n = p->n;
  if (kind == 0) {
    mp_seq_by_size(p, seq);
    return n;
  }
  for (int i = 0; i < n; i++) seq[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)mp_rng_below(r, (uint64_t)i + 1), t = seq[i];
    seq[i] = seq[j];
    seq[j] = t;
  }
  if (kind == 1) return n;
  int m = n / 2 + (int)mp_rng_below(r, (uint64_t)n / 2);
  for (int k = 0; k < m / 4; k++) seq[mp_rng_below(r, (uint64_t)m)] = seq[mp_rng_below(r, (uint64_t)m)];
  return m;
}

static void same_counts(const mp_pack_counts *a, const mp_pack_counts *b, const char *what) {
  ck_assert_msg(!a->swept && !b->swept, "%s: swept", what);
  ck_assert_msg(a->items == b->items && a->listed == b->listed && a->gaps == b->gaps &&
                    a->fitting == b->fitting && a->unsorted == b->unsorted,
                "%s: counts %lld %lld %lld %lld %lld, on one thread %lld %lld %lld %lld %lld", what,
                (long long)a->items, (long long)a->listed, (long long)a->gaps, (long long)a->fitting,
                (long long)a->unsorted, (long long)b->items, (long long)b->listed, (long long)b->gaps,
                (long long)b->fitting, (long long)b->unsorted);
}

/* Windows from one item to the whole problem, and sized by their
 * conflicts (0); two threads, and more than this machine's cores. */
START_TEST(threads_give_the_sequential_packing) {
  static const int window[] = {1, 2, 3, 7, 64, 0, 1 << 20};
  mp_rng r;
  mp_rng_seed(&r, 9001);
  int trials = tl_trials(300);
  for (int t = 0; t < trials; t++) {
    mp_problem p;
    int n = 100 + (int)mp_rng_below(&r, 500);
    int64_t T = 20 + (int64_t)mp_rng_below(&r, 400);
    rand_problem(&r, n, T, t % 2 ? T : 8, &p);
    for (int i = 0; i < n && t % 6 == 5; i++) { /* ends past 2^32: the index widens mid-run */
      p.items[i].size <<= 24;
      if (p.items[i].fixed >= 0) p.items[i].fixed <<= 24;
    }
    int *seq = mp_xmalloc(sizeof(int) * (size_t)n);
    int64_t *a = mp_xmalloc(sizeof(int64_t) * (size_t)n), *b = mp_xmalloc(sizeof(int64_t) * (size_t)n);
    int kind = t % 3, m = rand_seq(&r, &p, kind, seq);
    enum mp_fit fit = t % 4 < 2 ? MP_BEST_FIT : MP_FIRST_FIT;
    mp_pack_counts ca, cb;
    int64_t arena_b = mp_pack_counted(&p, seq, m, fit, b, &cb, 0);
    mp_pack_threads th = {.threads = t % 5 == 4 ? 3 : 2, .window = window[t % 7], .min_items = 1};
    int64_t arena_a = mp_pack_threaded(&p, seq, m, fit, a, &ca, &th);
    char what[96];
    snprintf(what, sizeof what, "trial %d (n %d, seq %d, fit %d, window %d, threads %d)", t, n, kind, fit,
             th.window, th.threads);
    ck_assert_msg(arena_a == arena_b, "%s: arena %lld, on one thread %lld", what, (long long)arena_a,
                  (long long)arena_b);
    for (int i = 0; i < n; i++)
      ck_assert_msg(a[i] == b[i], "%s: item %d at %lld, on one thread %lld", what, i, (long long)a[i],
                    (long long)b[i]);
    same_counts(&ca, &cb, what);
    ck_assert_msg(th.cpu_s > 0, "%s: no worker's CPU time", what);
    free(seq);
    free(a);
    free(b);
    mp_problem_destroy(&p);
  }
}
END_TEST

/* Without counts, and a short sequence packed alone (min_items): the same
 * offsets; one thread asked: no worker. */
START_TEST(threads_without_counts_or_below_the_minimum) {
  mp_rng r;
  mp_rng_seed(&r, 17);
  mp_problem p;
  rand_problem(&r, 400, 60, 60, &p);
  int seq[400];
  int64_t a[400], b[400];
  mp_seq_by_size(&p, seq);
  int64_t arena = mp_pack(&p, seq, p.n, MP_BEST_FIT, b);
  mp_pack_threads th = {.threads = 2, .min_items = 1};
  ck_assert_int_eq(mp_pack_threaded(&p, seq, p.n, MP_BEST_FIT, a, NULL, &th), arena);
  ck_assert(!memcmp(a, b, sizeof a) && th.cpu_s > 0);
  mp_pack_threads big = {.threads = 2, .min_items = 401}, one = {.threads = 1, .min_items = 1};
  ck_assert_int_eq(mp_pack_threaded(&p, seq, p.n, MP_BEST_FIT, a, NULL, &big), arena);
  ck_assert_int_eq(mp_pack_threaded(&p, seq, p.n, MP_BEST_FIT, a, NULL, &one), arena);
  ck_assert(!memcmp(a, b, sizeof a) && big.cpu_s == 0 && one.cpu_s == 0);
  mp_problem_destroy(&p);
}
END_TEST

/* ---- the harness: a stage's threads and their CPU time ---- */

static int threads_seen; /* what the burner's ctx said */

/* About `ms` milliseconds of CPU on this thread. */
static void *burn(void *arg) {
  double *cpu = arg, c0 = mp_thread_cpu_now();
  volatile uint64_t x = 1;
  while (mp_thread_cpu_now() - c0 < 0.08)
    for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ull + 1;
  *cpu = mp_thread_cpu_now() - c0;
  return NULL;
}

/* A placer that burns 80 ms of CPU on a thread of its own, reports it, and
 * stacks the items (never two at one address). */
static int burner(mp_ctx *c) {
  threads_seen = c->threads;
  pthread_t t;
  double cpu = 0;
  ck_assert_int_eq(pthread_create(&t, NULL, burn, &cpu), 0);
  pthread_join(t, NULL);
  c->threads_cpu_s = cpu;
  int64_t top = 0;
  for (int i = 0; i < c->prob->n; i++) {
    const mp_item *it = &c->prob->items[i];
    c->offsets[i] = it->fixed >= 0 ? it->fixed : mp_align_up(top, it->align < 1 ? 1 : it->align);
    top = c->offsets[i] + it->size > top ? c->offsets[i] + it->size : top;
  }
  c->status = MP_FEASIBLE;
  return 0;
}

static const mp_solver s_burner = {.name = "burner", .summary = "test", .decides = MP_DECIDES_OFFSETS,
                                   .solve = burner};
static const mp_solver *const extra[] = {&s_burner};

START_TEST(harness_counts_the_threads_cpu) {
  mp_graph *g = tl_gen("layered", 50, 1, false);
  mp_instance in = {g, NULL};
  mp_run_spec spec = {.order = "given", .place = "burner", .seed = 1, .no_baseline = true, .n_extra = 1,
                      .extra = extra};
  mp_result r;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert_int_eq(threads_seen, MP_DEFAULT_THREADS);
  const mp_stage_result *sr = &r.stages[r.n_stages - 1];
  ck_assert_msg(sr->cpu_ms >= 80 && r.place_cpu_ms == sr->cpu_ms, "the stage's CPU %.1f ms, place %.1f ms",
                sr->cpu_ms, r.place_cpu_ms);
  ck_assert_msg(sr->wall_ms >= 80, "the stage took %.1f ms", sr->wall_ms);
  mp_result_destroy(&r);
  /* the threads a stage may use: the run's; one under a time limit */
  spec.threads = 1;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert_int_eq(threads_seen, 1);
  mp_result_destroy(&r);
  spec.threads = 5;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert_int_eq(threads_seen, 5);
  mp_result_destroy(&r);
  spec.time_limit = 100;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert_int_eq(threads_seen, 1);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
}
END_TEST

Suite *suite_packbatch(void) {
  Suite *s = suite_create("packbatch");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, threads_give_the_sequential_packing);
  tcase_add_test(tc, threads_without_counts_or_below_the_minimum);
  tcase_add_test(tc, harness_counts_the_threads_cpu);
  suite_add_tcase(s, tc);
  return s;
}
