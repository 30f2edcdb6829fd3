/* test_swapindex.c - swap-greedy's shortcuts without a link (option
 * index): the candidates kept in lib/remat_dropq.h's index as the run
 * moves on, and the run patched for a drop no step in its gap looked at
 * (remat_ckpt.h's rk_patch_free), give the plan of the rounds that list
 * every resident buffer and measure again from a snapshot (index=0):
 * index=2 (both), index=1 (the index alone: every round goes back to a
 * snapshot, the index follows the run back) and index=0 write the same
 * events, status and message on generated training graphs (series-
 * parallel, layered, chains, RandWire, with workspaces and in-place
 * writes) and on random small graphs (multi-output nodes, views), at
 * budgets from the floor to the keep-all peak, without and with a link
 * (where the recomputing-alone run takes the shortcuts, and the run with
 * copies stops at the largest hidden swaps that cover an overflow: a
 * wrong order of those fails it). */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "gen.h"
#include "lib/remat_dropq.h"
#include "registry.h"
#include "testlib.h"

static int verbose; /* of the solves below */

static int solve(const mp_graph *g, int64_t budget, double bw, int index, mp_ctx *c, mp_events *ev) {
  const mp_solver *s = mp_solver_find("swap-greedy");
  ck_assert(s != NULL);
  memset(c, 0, sizeof *c);
  char set[32];
  snprintf(set, sizeof set, "index=%d", index);
  const char *sets[] = {set};
  mp_error err;
  ck_assert_int_eq(mp_solver_options(s, 1, sets, c->opt, &err), MP_OK);
  c->g = g;
  c->start_order = g->given;
  c->budget = budget;
  c->bandwidth = bw;
  c->seed = 1;
  c->events = ev;
  c->status = MP_FEASIBLE;
  c->verbose = verbose;
  return s->solve(c);
}

static bool same_events(const mp_events *a, const mp_events *b) {
  if (a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->ev[i].kind != b->ev[i].kind || a->ev[i].id != b->ev[i].id) return false;
  return true;
}

/* index 2, 1 and 0 at `budget`: the same answer.  Returns whether a plan
 * recomputes (the rounds ran). */
static bool compare(const mp_graph *g, int64_t budget, double bw, const char *what) {
  mp_ctx c[3];
  mp_events ev[3];
  int rc[3];
  for (int i = 0; i < 3; i++) {
    mp_events_init(&ev[i]);
    rc[i] = solve(g, budget, bw, 2 - i, &c[i], &ev[i]);
  }
  for (int i = 1; i < 3; i++) {
    ck_assert_msg(rc[i] == rc[0] && c[i].status == c[0].status, "%s, budget %lld, bw %g: index=%d answers %d/%d, "
                  "index=2 %d/%d", what, (long long)budget, bw, 2 - i, rc[i], c[i].status, rc[0], c[0].status);
    ck_assert_msg(same_events(&ev[i], &ev[0]), "%s, budget %lld, bw %g: index=%d writes another plan", what,
                  (long long)budget, bw, 2 - i);
    ck_assert_msg(strcmp(c[i].msg, c[0].msg) == 0, "%s, budget %lld, bw %g: index=%d says '%s', index=2 '%s'", what, (long long)budget, bw, 2 - i, c[i].msg, c[0].msg);
  }
  int runs = 0, nodes = 0;
  for (int k = 0; k < ev[0].n; k++) runs += ev[0].ev[k].kind == MP_EV_RUN;
  for (int v = 0; v < g->n; v++) nodes += !g->nodes[v].is_input;
  for (int i = 0; i < 3; i++) mp_events_destroy(&ev[i]);
  return rc[0] == 0 && runs > nodes; /* a plan with reruns: the rounds ran */
}

/* Budgets from the floor to the keep-all peak. */
static int sweep(const mp_graph *g, double bw, const char *what) {
  int64_t lo = mp_events_floor(g), hi = mp_order_peak(g, g->given);
  int plans = 0;
  for (int k = 0; k <= 6; k++) plans += compare(g, lo + (hi - lo) * k / 6, bw, what);
  return plans;
}

START_TEST(generated_training_graphs) {
  static const char *const families[] = {"sp", "layered", "chain", "randwire"};
  int plans = 0;
  for (int f = 0; f < 4; f++)
    for (uint64_t seed = 1; seed <= (uint64_t)tl_trials(4); seed++) {
      mp_graph *g = tl_gen(families[f], 60 + 40 * (int)seed, seed, true);
      char what[64];
      snprintf(what, sizeof what, "%s seed %llu", families[f], (unsigned long long)seed);
      plans += sweep(g, 0, what);
      plans += sweep(g, 1e5, what);
      mp_graph_destroy(g);
    }
  ck_assert_msg(plans > tl_trials(20), "only %d budgets needed recomputation", plans);
}
END_TEST

START_TEST(random_graphs) {
  mp_rng r;
  mp_rng_seed(&r, 1414);
  int plans = 0;
  for (int t = 0; t < tl_trials(150); t++) {
    mp_graph *g = tl_random_graph(&r, 4 + t % 12, TL_ALL);
    char what[32];
    snprintf(what, sizeof what, "random graph %d", t);
    plans += sweep(g, 0, what);
    mp_graph_destroy(g);
  }
  ck_assert_msg(plans > tl_trials(20), "only %d budgets needed recomputation", plans);
}
END_TEST

/* `gen layered -n 35 --backward --seed 22` at 0.6: a settle's dependents
 * put back on the index's work list buffers it had taken off, past nb
 * entries (a heap overflow, an abort of the CLI, ASan's report). */
START_TEST(work_list_outgrows_buffers) {
  mp_gen_opts o;
  mp_gen_defaults(&o);
  o.family = "layered";
  o.n = 35;
  o.seed = 22;
  o.backward = true;
  mp_error err;
  mp_graph *g = mp_gen(&o, NULL, &err);
  ck_assert(g != NULL);
  int64_t budget;
  ck_assert_int_eq(mp_budget_frac("0.6", mp_order_peak(g, g->given), &budget, &err), MP_OK);
  compare(g, budget, 0, "layered 35 seed 22");
  compare(g, budget, 3e4, "layered 35 seed 22");
  mp_graph_destroy(g);
}
END_TEST

/* The index (lib/remat_dropq.h) alone against a list, with the residency
 * held (no dependents come back): after each settle the candidates are
 * those whose callback last said so and that were not popped since, popped
 * largest key first, ties the lower id, and `valid` counts the entries of
 * the heap whose version holds. */
typedef struct dq_table {
  double key[64];
  bool cand[64];
} dq_table;

static bool table_key(void *ctx, int b, double *key) {
  const dq_table *t = ctx;
  *key = t->key[b];
  return t->cand[b];
}

START_TEST(dropq_equals_list) {
  mp_rng r;
  mp_rng_seed(&r, 515);
  for (int t = 0; t < tl_trials(40); t++) {
    mp_graph *g = tl_random_graph(&r, 4 + t % 20, TL_ALL);
    ri_info ri;
    ri_init(&ri, g, g->given);
    int nb = ri.nb < 64 ? ri.nb : 64;
    uint8_t *res = mp_xcalloc((size_t)ri.nb + 1, 1);
    dq_table tab;
    bool in[64] = {false};
    dq_queue q;
    dq_init(&q, &ri, res, table_key, &tab);
    for (int step = 0; step < 60; step++) {
      if (step == 30 || step == 0) { /* a new state for every buffer */
        for (int b = 0; b < nb; b++) {
          tab.key[b] = (double)mp_rng_below(&r, 4);
          in[b] = tab.cand[b] = mp_rng_below(&r, 3) > 0;
        }
        for (int b = nb; b < ri.nb; b++) tab.cand[b] = false; /* past the table: never */
        dq_touch_all(&q);
      }
      for (int k = 0; k < 3 && nb > 0; k++) { /* a few buffers change, touched twice at times */
        int b = (int)mp_rng_below(&r, (uint64_t)nb);
        tab.key[b] = (double)mp_rng_below(&r, 4);
        in[b] = tab.cand[b] = mp_rng_below(&r, 3) > 0;
        dq_touch(&q, b);
      }
      dq_settle(&q);
      int current = 0, want_valid = 0;
      for (int i = 0; i < q.n; i++) current += q.ver[q.heap[i].b] == q.heap[i].ver;
      for (int b = 0; b < nb; b++) want_valid += in[b];
      ck_assert_int_eq(q.valid, current);
      ck_assert_int_eq(q.valid, want_valid);
      for (int k = (int)mp_rng_below(&r, 4); k > 0; k--) {
        int want = -1;
        for (int b = 0; b < nb; b++)
          if (in[b] && (want < 0 || tab.key[b] > tab.key[want])) want = b;
        double key = -1;
        int got = dq_pop(&q, &key);
        ck_assert_msg(got == want, "trial %d step %d: popped %d, want %d", t, step, got, want);
        if (want < 0) break;
        ck_assert(key == tab.key[want]);
        in[want] = false;
      }
    }
    dq_destroy(&q);
    free(res);
    ri_destroy(&ri);
    mp_graph_destroy(g);
  }
}
END_TEST

/* Quiet unless asked: the rounds (every way, with and without a link) write
 * nothing to stderr at verbose 0, buffers of megabytes among them; at
 * verbose 1 the rounds without a link say how many patched the run. */
START_TEST(quiet_without_verbose) {
  mp_graph *g = tl_gen("layered", 100, 1, true);
  int64_t big = 0;
  for (int b = 0; b < g->n_buf; b++) big += g->bufs[b].size > 1000000;
  ck_assert_int_gt(big, 0);
  tl_stderr cap;
  tl_stderr_begin(&cap);
  int plans = sweep(g, 0, "layered 100") + sweep(g, 1e5, "layered 100");
  char *err = tl_stderr_end(&cap);
  ck_assert_msg(err[0] == 0, "quiet, yet: %.200s", err);
  ck_assert_int_gt(plans, 0);
  free(err);
  /* verbose: the rounds without a link say how they went */
  mp_graph_destroy(g);
  g = tl_gen("chain", 12, 1, true); /* a short report: stderr is read up to 4 KiB */
  verbose = 1;
  tl_stderr_begin(&cap);
  bool rounds = compare(g, (mp_events_floor(g) + mp_order_peak(g, g->given)) / 2, 0, "chain 12");
  err = tl_stderr_end(&cap);
  verbose = 0;
  ck_assert(rounds);
  ck_assert_msg(strstr(err, "rounds patched the run") != NULL, "verbose, yet: %.200s", err);
  free(err);
  mp_graph_destroy(g);
}
END_TEST

Suite *suite_swapindex(void) {
  Suite *s = suite_create("swapindex");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, generated_training_graphs);
  tcase_add_test(tc, random_graphs);
  tcase_add_test(tc, work_list_outgrows_buffers);
  tcase_add_test(tc, dropq_equals_list);
  tcase_add_test(tc, quiet_without_verbose);
  suite_add_tcase(s, tc);
  return s;
}
