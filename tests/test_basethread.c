/* test_basethread.c - the baseline of reduction_vs_given beside the stages
 * (src/run_baseline.c): a second thread exactly when the evaluation would
 * compute the baseline, the same results as on one thread, and stage CPU
 * times that leave the baseline's work out. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run_state.h" /* MP_BASELINE_THREAD */
#include "testlib.h"

/* The baseline's threads of this process now (/proc/self/task, by name:
 * a sanitizer's own threads do not count). */
static int threads_now(void) {
  DIR *d = opendir("/proc/self/task");
  ck_assert_msg(d != NULL, "/proc/self/task cannot be read");
  int n = 0;
  char path[300], name[32];
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/self/task/%.200s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue; /* gone meanwhile */
    if (fgets(name, sizeof name, f) && !strncmp(name, MP_BASELINE_THREAD "\n", sizeof name)) n++;
    fclose(f);
  }
  closedir(d);
  return n;
}

static int threads_before; /* the baseline's threads before the run */
static int threads_at_entry; /* what watch_given saw */

/* The given order, after counting the baseline's threads at its entry;
 * then it waits (asleep: no CPU of its own) until such a thread is gone,
 * so that all of the baseline's work falls within this stage's timing. */
static int watch_given(mp_ctx *c) {
  memcpy(c->order, c->g->given, sizeof(int) * (size_t)c->g->n);
  threads_at_entry = threads_now();
  struct timespec ms = {0, 1000000};
  for (int i = 0; i < 60000 && threads_now() > threads_before; i++) nanosleep(&ms, NULL);
  c->status = MP_FEASIBLE;
  return 0;
}

static const mp_solver s_watch = {.name = "watch-given", .summary = "test", .decides = MP_DECIDES_ORDER,
                                  .solve = watch_given};
static const mp_solver *const extra[] = {&s_watch};

static void run_watched_on(const mp_instance *in, mp_run_spec *spec, mp_result *r, const char *place) {
  spec->order = "watch-given";
  spec->place = place;
  spec->n_extra = 1;
  spec->extra = extra;
  threads_before = threads_now();
  ck_assert_int_eq(mp_run(in, spec, r), MP_OK);
  ck_assert_int_eq(threads_now(), threads_before); /* joined before mp_run returns */
}

static void run_watched(const mp_instance *in, mp_run_spec *spec, mp_result *r) {
  run_watched_on(in, spec, r, "noreuse");
}

/* A thread beside the stages exactly when the baseline is needed and not
 * at hand: not with --no-baseline, one thread, a time limit (the run's or
 * a stage's own), or the cache's entry. */
START_TEST(baseline_thread_only_when_needed) {
  mp_graph *g = tl_gen("layered", 30000, 1, false);
  mp_instance in = {g, NULL};
  mp_result r, one;
  mp_run_spec spec = {.seed = 1};
  unsigned ended = mp_busy_threads_ended();
  run_watched(&in, &spec, &r);
  ck_assert_msg(threads_at_entry == threads_before + 1, "the stage saw %d threads, %d before the run",
                threads_at_entry, threads_before);
  ck_assert(r.has_baseline);
  /* the packer's pace hears that the baseline's thread ended, once */
  ck_assert_uint_eq(mp_busy_threads_ended(), ended + 1);
  mp_run_spec s1 = {.seed = 1, .threads = 1};
  run_watched(&in, &s1, &one);
  ck_assert_int_eq(threads_at_entry, threads_before);
  ck_assert_uint_eq(mp_busy_threads_ended(), ended + 1);
  ck_assert(one.has_baseline && one.fig.given_arena == r.fig.given_arena);
  ck_assert(one.fig.reduction_vs_given == r.fig.reduction_vs_given);
  mp_result_destroy(&one);
  mp_run_spec sn = {.seed = 1, .no_baseline = true};
  run_watched(&in, &sn, &one);
  ck_assert_int_eq(threads_at_entry, threads_before);
  ck_assert(!one.has_baseline);
  mp_result_destroy(&one);
  /* under a time limit what the clock cuts must not depend on a thread */
  mp_run_spec st = {.seed = 1, .time_limit = 100};
  run_watched(&in, &st, &one);
  ck_assert_int_eq(threads_at_entry, threads_before);
  ck_assert(one.has_baseline && one.fig.given_arena == r.fig.given_arena);
  mp_result_destroy(&one);
  /* nor under a stage's own time limit (an option of kind SECONDS): the
   * watcher's run with ilp-place after noreuse (it refuses 30000 items) */
  static const char *const own_clock[] = {"ilp-place.time=5"};
  mp_run_spec so = {.seed = 1, .n_sets = 1, .sets = own_clock};
  run_watched_on(&in, &so, &one, "noreuse,ilp-place");
  ck_assert_int_eq(threads_at_entry, threads_before);
  ck_assert(one.has_baseline && one.fig.given_arena == r.fig.given_arena);
  mp_result_destroy(&one);
  so.n_sets = 0; /* the same chain without it: a thread */
  run_watched_on(&in, &so, &one, "noreuse,ilp-place");
  ck_assert_int_eq(threads_at_entry, threads_before + 1);
  mp_result_destroy(&one);
  /* cached at 64: no thread; at 1 (another alignment): one, then cached */
  mp_baselines cache = {.n = 1, .b = {{64, r.fig.given_arena}}};
  mp_run_spec sc = {.seed = 1, .baselines = &cache};
  run_watched(&in, &sc, &one);
  ck_assert_int_eq(threads_at_entry, threads_before);
  ck_assert_int_eq(one.fig.given_arena, r.fig.given_arena);
  mp_result_destroy(&one);
  sc.align = 1;
  run_watched(&in, &sc, &one);
  ck_assert_int_eq(threads_at_entry, threads_before + 1);
  ck_assert_int_eq(cache.n, 2);
  mp_result_destroy(&one);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
}
END_TEST

/* A stage's cpu_ms is its own thread's: the watcher stage, asleep while
 * the whole baseline runs beside it, reports far less than the baseline's
 * CPU time (with the process's clock it reported at least all of it). */
START_TEST(stage_cpu_leaves_the_baseline_out) {
  mp_graph *g = tl_gen("layered", 30000, 1, false);
  mp_instance in = {g, NULL};
  mp_baseline b;
  mp_error e;
  double c0 = mp_thread_cpu_now();
  ck_assert_int_eq(mp_baseline_compute(&in, 64, 0, 1, &b, &e), MP_OK);
  double base_ms = (mp_thread_cpu_now() - c0) * 1e3;
  ck_assert_msg(base_ms > 20, "the baseline took %.1f ms of CPU: too little to tell", base_ms);
  mp_result r;
  mp_run_spec spec = {.seed = 1};
  run_watched(&in, &spec, &r);
  ck_assert_int_eq(threads_at_entry, threads_before + 1);
  ck_assert_int_eq(r.fig.given_arena, b.arena);
  ck_assert_msg(r.stages[0].cpu_ms < base_ms / 2, "the watcher's stage: %.1f ms of CPU, the baseline's "
                "%.1f ms", r.stages[0].cpu_ms, base_ms);
  ck_assert(r.order_cpu_ms == r.stages[0].cpu_ms);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
}
END_TEST

static void same_result(const mp_result *a, const mp_result *b, mp_err ea, mp_err eb, const char *what) {
  ck_assert_msg(ea == eb && a->status == b->status && a->order_status == b->order_status &&
                    a->place_status == b->place_status && a->has_figures == b->has_figures &&
                    a->has_baseline == b->has_baseline && !strcmp(a->msg, b->msg),
                "%s: rc %d/%d, %s/%s, msg '%s' / '%s'", what, ea, eb, mp_status_name(a->status),
                mp_status_name(b->status), a->msg, b->msg);
  const mp_figures *x = &a->fig, *y = &b->fig;
  ck_assert_msg(x->arena == y->arena && x->lower_bound == y->lower_bound && x->given_arena == y->given_arena &&
                    x->reduction_vs_given == y->reduction_vs_given && x->live_peak == y->live_peak,
                "%s: arena %lld/%lld, given %lld/%lld", what, (long long)x->arena, (long long)y->arena,
                (long long)x->given_arena, (long long)y->given_arena);
  if (a->has_figures)
    ck_assert_msg(!memcmp(a->offsets, b->offsets, sizeof(int64_t) * (size_t)a->prob.n), "%s: offsets", what);
}

/* The same figures, statuses and messages with the baseline beside the
 * stages as after them: chains that need it, the baseline's own run, no
 * plan within a capacity, a fixed-lifetime problem, other alignments. */
START_TEST(same_results_on_one_thread_or_two) {
  static const char *const chains[][2] = {{"greedy", "bysize"}, {"given", "bysize"}, {"given", "firstfit"},
                                          {"dfs", "noreuse"},   {"greedy", "bysize,firstfit"}};
  static const char *const fam[] = {"layered", "randwire", "chain", "sp"};
  char what[160];
  for (int f = 0; f < 4; f++) {
    mp_graph *g = tl_gen(fam[f], 400 + 300 * f, (uint64_t)f + 1, f % 2);
    mp_instance in = {g, NULL};
    for (int k = 0; k < 5; k++)
      for (int v = 0; v < 3; v++) {
        mp_run_spec s2 = {.order = chains[k][0], .place = chains[k][1], .seed = 1,
                          .align = v == 1 ? 256 : 0, .capacity = v == 2 ? 1000 : 0};
        mp_run_spec s1 = s2;
        s1.threads = 1;
        mp_result a, b;
        mp_err ea = mp_run(&in, &s1, &a), eb = mp_run(&in, &s2, &b);
        snprintf(what, sizeof what, "%s, %s + %s, variant %d", fam[f], chains[k][0], chains[k][1], v);
        same_result(&a, &b, ea, eb, what);
        mp_result_destroy(&a);
        mp_result_destroy(&b);
      }
    mp_graph_destroy(g);
  }
  mp_problem p = {.n = 3, .t_end = 4};
  p.items = mp_xcalloc(3, sizeof(mp_item));
  int64_t lo[] = {0, 1, 2}, hi[] = {2, 3, 4}, sz[] = {100, 60, 40};
  for (int i = 0; i < 3; i++) p.items[i] = (mp_item){.lo = lo[i], .hi = hi[i], .size = sz[i], .align = 1, .fixed = -1};
  mp_instance in = {NULL, &p};
  for (int k = 0; k < 3; k++) {
    mp_run_spec s2 = {.place = chains[k][1], .seed = 1}, s1 = s2;
    s1.threads = 1;
    mp_result a, b;
    mp_err ea = mp_run(&in, &s1, &a), eb = mp_run(&in, &s2, &b);
    same_result(&a, &b, ea, eb, chains[k][1]);
    ck_assert(a.has_baseline);
    mp_result_destroy(&a);
    mp_result_destroy(&b);
  }
  mp_problem_destroy(&p);
}
END_TEST

/* A run that ends without a plan drops the baseline beside its stages:
 * cancelled (run_baseline_drop), it says so and has no figure, instead of
 * packing to the end for a figure nobody prints.  The baseline's run
 * checks the flag before each stage (and its packer every 64 buffers:
 * test_pack.c); with the flag clear it is the baseline as before.  A run
 * that fails has no baseline figure, and its thread is gone. */
START_TEST(dropped_baseline_is_cancelled) {
  mp_graph *big = tl_gen("layered", 100000, 1, false), *g = tl_gen("layered", 30000, 1, false);
  mp_instance in = {g, NULL}, in_big = {big, NULL};
  mp_chain ch;
  mp_error err;
  mp_chain_request req = {.is_graph = true, .chains = {[MP_STAGE_PLACE] = "noreuse"}};
  ck_assert_int_eq(mp_chain_resolve(&req, &ch, &err), MP_OK);
  mp_run_spec spec = {.seed = 1};
  mp_result r;
  memset(&r, 0, sizeof r);
  r.align = 64;
  run_state s;
  memset(&s, 0, sizeof s);
  s.in = &in_big, s.spec = &spec, s.ch = &ch, s.r = &r;
  threads_before = threads_now();
  run_baseline_start(&s);
  ck_assert(s.base.started);
  run_baseline_drop(&s); /* at once: long before its run (half a second of CPU) could end */
  ck_assert(!s.base.started && atomic_load(&s.base.cancel) && s.base.rc == MP_ESOLVER);
  ck_assert_msg(strstr(s.base.err.msg, "cancelled"), "%s", s.base.err.msg);
  ck_assert_int_eq(threads_now(), threads_before);
  /* the flag set before: no stage runs; clear: the baseline */
  atomic_int flag;
  atomic_init(&flag, 1);
  mp_baseline b, b0;
  ck_assert_int_eq(mp_baseline_compute_cancel(&in, 64, 0, 1, &flag, &b, &err), MP_ESOLVER);
  ck_assert_msg(strstr(err.msg, "cancelled before given"), "%s", err.msg);
  atomic_store(&flag, 0);
  ck_assert_int_eq(mp_baseline_compute_cancel(&in, 64, 0, 1, &flag, &b, &err), MP_OK);
  ck_assert_int_eq(mp_baseline_compute(&in, 64, 0, 1, &b0, &err), MP_OK);
  ck_assert(b.arena == b0.arena && b.align == b0.align);
  /* a stage that refuses (30000 items over ilp-place's cap): no figure */
  mp_run_spec sf = {.seed = 1, .place = "ilp-place"};
  ck_assert_int_eq(mp_run(&in, &sf, &r), MP_ESOLVER);
  ck_assert(!r.has_figures && !r.has_baseline);
  ck_assert_int_eq(threads_now(), threads_before);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  mp_graph_destroy(big);
}
END_TEST

Suite *suite_basethread(void) {
  Suite *s = suite_create("basethread");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, baseline_thread_only_when_needed);
  tcase_add_test(tc, stage_cpu_leaves_the_baseline_out);
  tcase_add_test(tc, same_results_on_one_thread_or_two);
  tcase_add_test(tc, dropped_baseline_is_cancelled);
  suite_add_tcase(s, tc);
  return s;
}
