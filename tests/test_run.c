/* test_run.c - the harness's own checks: statuses from bounds it can check
 * (infeasible for every plan the command could choose, or the solvers found
 * none), a stage's bound checked against what it returned, no figures
 * without a plan, the baseline computed once, verification without any
 * solver.  Misbehaving solvers are passed to mp_run as extra solvers, so
 * the registry never sees them. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedbound.h"
#include "testlib.h"

/* ---- solvers that lie, or fail, in one precise way ---- */

static int order_bound_too_high(mp_ctx *c) {
  c->bound = mp_order_peak(c->g, c->order) + 1; /* c->order holds the start order */
  return 0;
}

static int order_reversed(mp_ctx *c) {
  for (int i = 0; i < c->g->n; i++) c->order[i] = c->start_order[c->g->n - 1 - i];
  return 0;
}

/* every buffer its own space: a valid placement; returns the arena */
static int64_t stack(mp_ctx *c) {
  int64_t top = 0;
  for (int i = 0; i < c->prob->n; i++) {
    top = mp_align_up(top, c->prob->items[i].align);
    c->offsets[i] = top;
    top += c->prob->items[i].size;
  }
  return top;
}

static int place_bound_too_high(mp_ctx *c) {
  c->bound = stack(c) + 1;
  return 0;
}

static int place_bound_at_arena(mp_ctx *c) {
  c->bound = stack(c);
  return 0;
}

static int place_fits_says_infeasible(mp_ctx *c) {
  stack(c);
  c->status = MP_INFEASIBLE;
  return 0;
}

static int place_overlapping(mp_ctx *c) {
  for (int i = 0; i < c->prob->n; i++) c->offsets[i] = 0;
  return 0;
}

static int order_refuses(mp_ctx *c) {
  c->status = MP_REFUSED;
  snprintf(c->msg, sizeof c->msg, "above my size cap");
  return -1;
}

static int place_infeasible_no_proof(mp_ctx *c) {
  c->status = MP_INFEASIBLE; /* no placement, no bound */
  snprintf(c->msg, sizeof c->msg, "trust me");
  return 0;
}

#define LIAR(var, nm, dec, fn) \
  static const mp_solver var = {.name = nm, .summary = "test", .decides = dec, .solve = fn}
LIAR(s_order_high, "order-bound-too-high", MP_DECIDES_ORDER, order_bound_too_high);
LIAR(s_order_rev, "order-reversed", MP_DECIDES_ORDER, order_reversed);
LIAR(s_order_refuses, "order-refuses", MP_DECIDES_ORDER, order_refuses);
LIAR(s_place_high, "place-bound-too-high", MP_DECIDES_OFFSETS, place_bound_too_high);
LIAR(s_place_at, "place-bound-at-arena", MP_DECIDES_OFFSETS, place_bound_at_arena);
LIAR(s_place_fits, "place-fits-says-infeasible", MP_DECIDES_OFFSETS, place_fits_says_infeasible);
LIAR(s_place_overlap, "place-overlapping", MP_DECIDES_OFFSETS, place_overlapping);
LIAR(s_place_noproof, "place-infeasible-no-proof", MP_DECIDES_OFFSETS, place_infeasible_no_proof);
/* descriptors written wrongly in the ways the build does not see */
static const mp_option opt_low_default[] = {{"rounds", 0, 1, 1e6, "default below min", MP_OPT_INT}};
static const mp_option opt_empty_range[] = {{"frac", 0.5, 1, 0, "min above max", MP_OPT_REAL}};
static const mp_option opt_int_fraction[] = {{"half", 2.5, 0, 10, "fraction", MP_OPT_INT}};
static const mp_option opt_twice[] = {{"k", 1, 0, 2, "", MP_OPT_INT}, {"k", 1, 0, 2, "", MP_OPT_INT}};
#define BAD_OPTS(var, nm, tab)                                                                   \
  static const mp_solver var = {.name = nm, .summary = "test", .decides = MP_DECIDES_ORDER,      \
                                .options = MP_OPTIONS(tab), .solve = order_reversed}
BAD_OPTS(s_low_default, "bad-low-default", opt_low_default);
BAD_OPTS(s_empty_range, "bad-empty-range", opt_empty_range);
BAD_OPTS(s_int_fraction, "bad-int-fraction", opt_int_fraction);
BAD_OPTS(s_twice, "bad-twice", opt_twice);
static const mp_option opt_ok[] = {{"rounds", 10, 1, 1e6, "", MP_OPT_INT}};
static const mp_solver s_quick_typo = {.name = "bad-quick-typo", .summary = "test", .decides = MP_DECIDES_ORDER,
                                       .options = MP_OPTIONS(opt_ok), .quick = "round=2", .solve = order_reversed};
static const mp_solver s_quick_range = {.name = "bad-quick-range", .summary = "test", .decides = MP_DECIDES_ORDER,
                                        .options = MP_OPTIONS(opt_ok), .quick = "rounds=0", .solve = order_reversed};
static const mp_solver s_no_decides = {.name = "bad-no-decides", .summary = "test", .solve = order_reversed};
static const mp_solver s_no_solve = {.name = "bad-no-solve", .summary = "test", .decides = MP_DECIDES_OFFSETS};
static const mp_solver s_no_count = {.name = "bad-no-count", .summary = "test", .decides = MP_DECIDES_ORDER,
                                     .n_options = 1, .solve = order_reversed};
static const mp_solver *const extra[] = {&s_order_high,    &s_order_rev,     &s_order_refuses,
                                         &s_place_high,    &s_place_at,      &s_place_fits,
                                         &s_place_overlap, &s_place_noproof, &s_low_default,
                                         &s_empty_range,   &s_int_fraction,  &s_twice,
                                         &s_no_decides,    &s_no_solve,      &s_no_count,
                                         &s_quick_typo,    &s_quick_range};

static mp_err run(const mp_graph *g, const char *order, const char *place, int64_t cap, mp_result *r) {
  mp_instance in = {(mp_graph *)g, NULL};
  mp_run_spec spec = {.order = order, .place = place, .seed = 1, .capacity = cap,
                      .n_extra = (int)(sizeof extra / sizeof extra[0]), .extra = extra};
  return mp_run(&in, &spec, r);
}

/* a (1000) -> b (500) -> c (10): a and b live together at step 1 */
static const char *CHAIN = "{\"nodes\":[{\"id\":0,\"size\":1000,\"inputs\":[]},"
                           "{\"id\":1,\"size\":500,\"inputs\":[0]},"
                           "{\"id\":2,\"size\":10,\"inputs\":[1]}]}";

/* A training step in miniature: x -> f1 -> f2 -> f3 -> loss, then
 * b3(f3, loss) -> b2(f2, b3) -> b1(f1, b2).  Per-node bound 300 (a
 * backward node, its two inputs and its output); every order holds f1, f2,
 * f3, loss and b3 when b3 runs: the min-cut bound is 500. */
static const char *TRAIN =
    "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":100,\"inputs\":[]},"
    "{\"id\":1,\"size\":100,\"inputs\":[0]},{\"id\":2,\"size\":100,\"inputs\":[1]},"
    "{\"id\":3,\"size\":100,\"inputs\":[2]},{\"id\":4,\"size\":100,\"inputs\":[3]},"
    "{\"id\":5,\"size\":100,\"inputs\":[3,4]},{\"id\":6,\"size\":100,\"inputs\":[2,5]},"
    "{\"id\":7,\"size\":100,\"inputs\":[1,6]}]}";

static char *json_of(const mp_instance *in, const mp_result *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  mp_result_print_json(f, in, r);
  fclose(f);
  return buf;
}

static char *text_of(const mp_instance *in, const mp_result *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  mp_result_print_text(f, in, r);
  fclose(f);
  return buf;
}

/* ---- infeasible only for every plan the command could have chosen ---- */

START_TEST(searched_order_is_not_proven_infeasible) {
  /* issue 11 item 1: bfs's order does not fit 12 MiB, greedy's does */
  mp_instance in;
  mp_error err;
  mp_load_opts lo = {0};
  ck_assert_msg(mp_instance_load("../graphs/examples/seed_example.json", &lo, &in, &err) == 0, "%s", err.msg);
  const char *placers[] = {"exact", "hillclimb", "bysize"};
  for (int k = 0; k < 3; k++) {
    mp_run_spec spec = {.order = "bfs", .place = placers[k], .seed = 1, .capacity = 12582912};
    mp_result r;
    mp_err e = mp_run(&in, &spec, &r);
    ck_assert_msg(e == MP_ESOLVER && r.status == MP_ERROR, "%s: rc %d status %s: %s", placers[k], e,
                  mp_status_name(r.status), r.msg);
    ck_assert_msg(r.place_status == MP_INFEASIBLE, "%s: place status %s", placers[k],
                  mp_status_name(r.place_status));
    ck_assert_int_eq(r.order_status, MP_FEASIBLE);
    ck_assert(!r.has_figures);
    ck_assert_msg(strstr(r.msg, "every order"), "%s", r.msg);
    mp_result_destroy(&r);
    /* the order is not searched: its live peak proves infeasibility */
    spec.order = "given";
    ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
    ck_assert_int_eq(r.status, MP_INFEASIBLE);
    ck_assert_int_eq(r.order_status, MP_FIXED);
    ck_assert_int_eq(r.place_status, MP_INFEASIBLE);
    ck_assert(!r.has_figures);
    mp_result_destroy(&r);
    /* and greedy's order fits */
    spec.order = "greedy";
    ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
    ck_assert(r.has_figures && r.fig.arena <= 12582912);
    mp_result_destroy(&r);
  }
  mp_instance_destroy(&in);
}
END_TEST

START_TEST(min_cut_proves_every_order_infeasible) {
  mp_graph *g = tl_graph(TRAIN);
  int64_t node = mp_node_lower_bound(g), cut = mp_sched_lower_bound(g, NULL);
  ck_assert_int_eq(node, 300);
  ck_assert_int_eq(cut, 500);
  mp_result r;
  ck_assert_int_eq(run(g, "greedy", "bysize", 450, &r), MP_OK);
  ck_assert_msg(r.status == MP_INFEASIBLE, "status %s: %s", mp_status_name(r.status), r.msg);
  ck_assert_msg(strstr(r.msg, "min-cut"), "%s", r.msg);
  ck_assert_int_eq(r.fig.lower_bound, 500);
  mp_result_destroy(&r);
  /* at the bound itself, a plan exists (alignment 1 packs the 100s) */
  mp_instance in = {g, NULL};
  mp_run_spec spec = {.order = "greedy", .place = "exact", .align = 1, .seed = 1, .capacity = 500};
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert(r.has_figures && r.fig.arena == 500);
  /* the min-cut bound is computed only to decide a capacity that is not
   * met: here the proven bound stays the per-node one */
  ck_assert_int_eq(r.status, MP_FEASIBLE);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

START_TEST(unchecked_infeasibility_claim_is_no_proof) {
  mp_graph *g = tl_graph(CHAIN);
  mp_result r;
  /* live peak 1500 fits 2000: the claim has nothing behind it */
  ck_assert_int_eq(run(g, "given", "place-infeasible-no-proof", 2000, &r), MP_ESOLVER);
  ck_assert_int_eq(r.status, MP_ERROR);
  ck_assert_int_eq(r.place_status, MP_ERROR);
  ck_assert_msg(strstr(r.msg, "no bound the harness can check"), "%s", r.msg);
  mp_result_destroy(&r);
  /* below the live peak the harness proves it itself */
  ck_assert_int_eq(run(g, "given", "place-infeasible-no-proof", 1400, &r), MP_OK);
  ck_assert_int_eq(r.status, MP_INFEASIBLE);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

START_TEST(refusal_is_not_an_error) {
  mp_graph *g = tl_graph(CHAIN);
  mp_result r;
  ck_assert_int_eq(run(g, "order-refuses", "bysize", 0, &r), MP_ESOLVER);
  ck_assert_int_eq(r.status, MP_REFUSED);
  ck_assert_int_eq(r.order_status, MP_REFUSED);
  ck_assert_int_eq(r.stages[0].status, MP_REFUSED);
  ck_assert(!r.has_figures && strstr(r.msg, "order-refuses"));
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- a stage's bound is checked, never clamped ---- */

START_TEST(lying_stages_are_errors_naming_the_solver) {
  mp_graph *g = tl_graph(CHAIN);
  struct {
    const char *order, *place, *says;
    int64_t cap;
  } cases[] = {
      {"order-bound-too-high", "bysize", "above the live peak", 0},
      {"order-reversed", "bysize", "invalid order", 0},
      {"given", "place-bound-too-high", "above the arena", 0},
      {"given", "place-fits-says-infeasible", "yet returned a placement", 100000},
      {"given", "place-overlapping", "invalid placement", 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    mp_result r;
    mp_err e = run(g, cases[k].order, cases[k].place, cases[k].cap, &r);
    const char *who = strcmp(cases[k].order, "given") ? cases[k].order : cases[k].place;
    ck_assert_msg(e == MP_ESOLVER && r.status == MP_ERROR, "%s: rc %d status %s", who, e,
                  mp_status_name(r.status));
    ck_assert_msg(strstr(r.msg, who) && strstr(r.msg, cases[k].says), "%s: %s", who, r.msg);
    ck_assert(!r.has_figures);
    mp_result_destroy(&r);
  }
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* A descriptor's values (what it decides, its solve function, its
 * options' ranges) are checked when a chain names the solver: a usage
 * error naming the field, before anything runs, not a solver that is
 * listed as deciding both, or an option no --set can give. */
START_TEST(malformed_descriptors_are_refused_by_name) {
  mp_graph *g = tl_graph(CHAIN);
  struct {
    const char *order, *place, *says;
  } cases[] = {
      {"bad-low-default", "bysize", "option 'rounds': default 0 is outside [1, 1000000]"},
      {"bad-empty-range", "bysize", "option 'frac': min 1 is above max 0"},
      {"bad-int-fraction", "bysize", "option 'half' is INT"},
      {"bad-twice", "bysize", "option 'k' is listed twice"},
      {"bad-no-decides", "bysize", ".decides is 0: set it to MP_DECIDES_ORDER"},
      {"given", "bad-no-decides", ".decides is 0"},
      {"given", "bad-no-solve", "no .solve function"},
      {"bad-no-count", "bysize", ".n_options is 1 with no .options"},
      {"bad-quick-typo", "bysize", ".quick \"round=2\": 'round' is not one of its options"},
      {"bad-quick-range", "bysize", "0 is outside [1, 1000000]"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    mp_result r;
    mp_err e = run(g, cases[k].order, cases[k].place, 0, &r);
    const char *who = strcmp(cases[k].order, "given") ? cases[k].order : cases[k].place;
    ck_assert_msg(e == MP_EUSAGE, "%s: rc %d: %s", who, e, r.msg);
    ck_assert_msg(strstr(r.msg, who) && strstr(r.msg, "defined wrongly") && strstr(r.msg, cases[k].says),
                  "%s: %s", who, r.msg);
    mp_result_destroy(&r);
  }
  for (int k = 0; k < mp_registry_size; k++) {
    mp_error err;
    ck_assert_msg(mp_solver_check(mp_registry[k], &err) == MP_OK, "%s", err.msg);
  }
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

START_TEST(placer_bound_proves_only_its_order) {
  /* stack places 1000, 500, 10 at 0, 1024, 1536 (align 64): arena 1546
   * above the live peak 1500; its bound 1546 is consistent */
  mp_graph *g = tl_graph(CHAIN);
  mp_result r;
  ck_assert_int_eq(run(g, "given", "place-bound-at-arena", 0, &r), MP_OK);
  ck_assert_int_eq(r.fig.arena, 1546);
  ck_assert_int_eq(r.place_status, MP_OPTIMAL);
  ck_assert_int_eq(r.status, MP_OPTIMAL); /* the order is fixed: the bound covers every plan */
  mp_result_destroy(&r);
  ck_assert_int_eq(run(g, "greedy", "place-bound-at-arena", 0, &r), MP_OK);
  ck_assert_int_eq(r.place_status, MP_OPTIMAL);
  ck_assert_int_eq(r.status, MP_FEASIBLE); /* another order might place better */
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- figures only with a plan ---- */

START_TEST(failed_stage_has_no_figures) {
  mp_graph *g = tl_graph(CHAIN);
  mp_instance in = {g, NULL};
  const char *sets[] = {"ilp.max_nodes=2"};
  mp_run_spec spec = {.order = "ilp", .seed = 1, .n_sets = 1, .sets = sets};
  mp_result r;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_ESOLVER);
  ck_assert(r.status == MP_ERROR || r.status == MP_REFUSED);
  ck_assert_int_eq(r.order_status, r.status);
  ck_assert(!r.has_figures);
  char *js = json_of(&in, &r), *txt = text_of(&in, &r);
  ck_assert_msg(strstr(js, "\"live_peak\": null") && strstr(js, "\"arena\": null") &&
                    strstr(js, "\"reduction_vs_given\": null") && strstr(js, "\"fragmentation\": null"),
                "%s", js);
  ck_assert_msg(strstr(js, "\"lower_bound\": 1500"), "%s", js);
  ck_assert_msg(!strstr(txt, "live peak") && !strstr(txt, "arena") && !strstr(txt, "reuse ratio"),
                "%s", txt);
  free(js);
  free(txt);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

START_TEST(statuses_say_what_was_searched) {
  mp_graph *g = tl_graph(TRAIN);
  mp_instance in = {g, NULL};
  mp_result r;
  ck_assert_int_eq(tl_run(g, "given", "bysize", 1, 0, NULL, &r), MP_OK);
  ck_assert_int_eq(r.order_status, MP_FIXED);
  char *js = json_of(&in, &r);
  ck_assert_msg(strstr(js, "\"order_status\": \"fixed\"") && strstr(js, "\"place_status\": "), "%s", js);
  free(js);
  mp_result_destroy(&r);
  /* dp proves the order optimal (500 = min-cut) */
  ck_assert_int_eq(tl_run(g, "dp", "exact", 1, 0, NULL, &r), MP_OK);
  ck_assert_int_eq(r.order_status, MP_OPTIMAL);
  ck_assert_int_eq(r.fig.live_peak, 500);
  mp_result_destroy(&r);
  /* a usage error is told apart from a solver failure */
  ck_assert_int_eq(tl_run(g, "nosuch", "bysize", 1, 0, NULL, &r), MP_EUSAGE);
  mp_result_destroy(&r);
  ck_assert_int_eq(tl_run(g, "bysize", "bysize", 1, 0, NULL, &r), MP_EUSAGE);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- the baseline: once per instance, or not at all ---- */

START_TEST(baseline_cached_or_skipped) {
  mp_graph *g = tl_graph(CHAIN);
  mp_instance in = {g, NULL};
  mp_baselines cache = {0};
  mp_run_spec spec = {.order = "greedy", .seed = 1, .baselines = &cache};
  mp_result r;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert(r.has_baseline);
  ck_assert_int_eq(cache.n, 1);
  int64_t given = r.fig.given_arena;
  mp_result_destroy(&r);
  /* the second run takes the cached figure: a planted value shows it */
  cache.b[0].arena = given + 1000;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert_int_eq(r.fig.given_arena, given + 1000);
  ck_assert_int_eq(cache.n, 1);
  mp_result_destroy(&r);
  /* another alignment is another baseline */
  spec.align = 1;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert_int_eq(cache.n, 2);
  mp_result_destroy(&r);
  /* a full cache keeps its size: the newest alignment takes the last entry */
  for (int64_t a = 2; cache.n < MP_BASELINE_CACHE; a *= 2) cache.b[cache.n++] = (mp_baseline){a * 1024, 1};
  spec.align = 16;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert_int_eq(cache.n, MP_BASELINE_CACHE);
  ck_assert_int_eq(cache.b[MP_BASELINE_CACHE - 1].align, 16);
  mp_result_destroy(&r);
  /* --no-baseline: absent, not 0 */
  spec.no_baseline = true;
  ck_assert_int_eq(mp_run(&in, &spec, &r), MP_OK);
  ck_assert(r.has_figures && !r.has_baseline);
  char *js = json_of(&in, &r);
  ck_assert_msg(strstr(js, "\"reduction_vs_given\": null") && strstr(js, "\"given_arena\": null"), "%s", js);
  free(js);
  mp_result_destroy(&r);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- the judge checks reduction_vs_given against the stated baseline ---- */

static char *plan_file(const mp_instance *in, bool no_baseline, json_t **plan) {
  mp_run_spec spec = {.seed = 1, .no_baseline = no_baseline};
  mp_result r;
  ck_assert_int_eq(mp_run(in, &spec, &r), MP_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(mp_plan_write(f, in, &r), 0);
  fclose(f);
  if (in->g) tl_check_plan_bytes(buf);
  mp_result_destroy(&r);
  *plan = json_loads(buf, 0, NULL);
  char *path = tl_write_temp(buf, ".plan.json");
  free(buf);
  return path;
}

static int verify_edited(const mp_instance *in, json_t *plan, mp_error *err) {
  char *txt = json_dumps(plan, JSON_INDENT(1));
  char *p = tl_write_temp(txt, ".plan.json");
  int rc = mp_plan_verify(in, p, 0, err);
  free(txt);
  free(p);
  return rc;
}

START_TEST(verify_checks_the_stated_baseline) {
  mp_graph *g = tl_graph(CHAIN);
  mp_instance in = {g, NULL};
  mp_error err;
  json_t *plan;
  char *path = plan_file(&in, false, &plan);
  ck_assert_msg(mp_plan_verify(&in, path, 0, &err) == 0, "%s", err.msg);
  int64_t given = json_integer_value(json_object_get(plan, "given_arena"));
  json_object_set_new(plan, "given_arena", json_integer(given * 2));
  ck_assert(verify_edited(&in, plan, &err) != 0);
  ck_assert_msg(strstr(err.msg, "reduction_vs_given"), "%s", err.msg);
  json_object_del(plan, "given_arena");
  ck_assert(verify_edited(&in, plan, &err) != 0);
  ck_assert_msg(strstr(err.msg, "cannot be checked"), "%s", err.msg);
  json_decref(plan);
  free(path);
  /* a plan without the baseline verifies */
  path = plan_file(&in, true, &plan);
  ck_assert_msg(mp_plan_verify(&in, path, 0, &err) == 0, "%s", err.msg);
  json_decref(plan);
  free(path);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* The lower bound a run reports covers every plan the command could
 * choose (DESIGN 1.3): with a searched order, every order's (at most the
 * optimum, brute-forced), however far the order found is above it; with
 * the given order, that order's live peak. */
START_TEST(lower_bound_covers_every_order) {
  mp_rng rng;
  mp_rng_seed(&rng, 7070);
  const char *orders[] = {"dfs", "bfs", "greedy"};
  int above = 0, trials = tl_trials(200);
  for (int t = 0; t < trials; t++) {
    mp_graph *g = tl_random_graph(&rng, 2 + (int)mp_rng_below(&rng, 8), TL_ALL);
    int64_t opt = tl_brute_force_peak(g, 50000, NULL);
    for (int k = 0; k < 3 && opt >= 0; k++) {
      mp_result r;
      ck_assert_int_eq(tl_run(g, orders[k], "bysize", 1, 0, NULL, &r), MP_OK);
      ck_assert_msg(r.fig.lower_bound <= opt, "graph %d, %s: lower bound %lld above the optimum %lld", t,
                    orders[k], (long long)r.fig.lower_bound, (long long)opt);
      above += r.fig.live_peak > opt;
      mp_result_destroy(&r);
    }
    mp_result r;
    ck_assert_int_eq(tl_run(g, "given", "bysize", 1, 0, NULL, &r), MP_OK);
    ck_assert_int_eq(r.fig.lower_bound, mp_order_peak(g, g->given));
    mp_result_destroy(&r);
    mp_graph_destroy(g);
  }
  ck_assert_msg(above > 0, "no order above the optimum: the bound was never tested below a peak");
  tl_cleanup();
}
END_TEST

/* A capacity the lifetimes' live peak meets exactly is no proof of
 * infeasibility: A [0, 1) and B [0, 2) of 1 byte, C [1, 3) of 2: live peak
 * 3, yet first fit in birth order puts C at 2 (A's byte is too small a
 * gap): arena 4.  At capacity 3 first fit finds nothing and nothing proves
 * that nothing fits (exact fits, B at 2): an error, not infeasible; at
 * capacity 2 the live peak proves it. */
START_TEST(capacity_at_the_live_peak) {
  mp_item items[3] = {{1, 0, 1, 1, -1}, {1, 0, 2, 1, -1}, {2, 1, 3, 1, -1}};
  mp_problem p = {.n = 3, .items = items, .t_begin = 0, .t_end = 3};
  mp_result r;
  ck_assert_int_eq(tl_run_fixed(&p, "firstfit", 1, 0, 0, NULL, &r), MP_OK);
  ck_assert_int_eq(r.fig.arena, 4);
  ck_assert_int_eq(r.place_status, MP_FEASIBLE);
  mp_result_destroy(&r);
  ck_assert_int_eq(tl_run_fixed(&p, "firstfit", 1, 0, 3, NULL, &r), MP_ESOLVER);
  ck_assert_int_eq(r.status, MP_ERROR);
  ck_assert_msg(strstr(r.msg, "no bound the harness can check proves it (best 3, the live peak)"), "%s",
                r.msg);
  mp_result_destroy(&r);
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 0, 3, NULL, &r), MP_OK);
  ck_assert_int_eq(r.fig.arena, 3);
  ck_assert(r.status == MP_OPTIMAL && r.place_status == MP_OPTIMAL);
  mp_result_destroy(&r);
  ck_assert_int_eq(tl_run_fixed(&p, "firstfit", 1, 0, 2, NULL, &r), MP_OK);
  ck_assert_int_eq(r.status, MP_INFEASIBLE);
  ck_assert_msg(strstr(r.msg, "the live peak 3 of the lifetimes exceeds the capacity 2"), "%s", r.msg);
  mp_result_destroy(&r);
}
END_TEST

Suite *suite_run(void) {
  Suite *s = suite_create("run");
  TCase *tc = tcase_create("run");
  tcase_add_test(tc, searched_order_is_not_proven_infeasible);
  tcase_add_test(tc, min_cut_proves_every_order_infeasible);
  tcase_add_test(tc, unchecked_infeasibility_claim_is_no_proof);
  tcase_add_test(tc, refusal_is_not_an_error);
  tcase_add_test(tc, lying_stages_are_errors_naming_the_solver);
  tcase_add_test(tc, malformed_descriptors_are_refused_by_name);
  tcase_add_test(tc, placer_bound_proves_only_its_order);
  tcase_add_test(tc, failed_stage_has_no_figures);
  tcase_add_test(tc, statuses_say_what_was_searched);
  tcase_add_test(tc, lower_bound_covers_every_order);
  tcase_add_test(tc, capacity_at_the_live_peak);
  tcase_add_test(tc, baseline_cached_or_skipped);
  tcase_add_test(tc, verify_checks_the_stated_baseline);
  suite_add_tcase(s, tc);
  return s;
}
