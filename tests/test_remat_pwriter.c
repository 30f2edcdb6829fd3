/* test_remat_pwriter.c - no events solver runs an in-place writer twice.
 * DESIGN 6.2 runs the alias set of a storage written in place exactly once;
 * the verifier applies it to arena buffers, and lets a plan run a node that
 * writes a *parameter* in place (`alias: -1, inplace: true`, an optimizer
 * step or a step counter) again.  Read strictly ("every in-place writer
 * runs once", a parameter being a storage too), such a plan is invalid, so
 * every solver keeps clear of it: in no plan does a node with `inplace`, or
 * a node of the alias set of a storage (a buffer or a parameter) that some
 * node writes in place, run more than once.
 *
 * The solvers come from mp_registry (every MP_DECIDES_EVENTS one, so a new
 * solver is covered), with their `quick` options, strict=0 and 1 where they
 * have `strict`, and a contraction (contract_above=3) where they have
 * `contract_above`; chains that hand a heuristic's plan to a MILP too.  The
 * graphs tempt them: training steps (hand-built, and memplan's generators
 * with --backward) with parameter writers inserted, of cost 0 (a rerun
 * costs nothing) and more, with no inputs or reading a producer's output,
 * between a producer and its consumers, read before and after; budgets
 * from the keep-all peak down to the floor, with and without a host link.
 * Two more cases hold the parts to it without the solvers around them: the
 * contraction's expansion (a segment's rerun skips those nodes, keeps its
 * frees and its memory bound), and the solvers' own check (mp_remat_check
 * refuses such a rerun, which the judge accepts). */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_write.h"
#include "lib/remat_check.h"
#include "lib/remat_contract.h"
#include "lib/remat_milp.h"
#include "lib/remat_stage.h"
#include "lib/remat_strict.h"
#include "registry.h"
#include "remat_check.h"
#include "storage.h"

/* ---- graphs ---- */

static json_t *node_new(int id, const char *op, int64_t size) {
  return json_pack("{s:i, s:s, s:I, s:[]}", "id", id, "op", op, "size", (json_int_t)size, "inputs");
}

/* A training step of L layers with parameters as nodes (alias -1 views):
 * a_i = f(a_{i-1}, P_i), a loss, then g_i = f(g_{i+1}, a_{i-1}, P_i), P_i's
 * gradient w_i = f(g_{i+1}, a_{i-1}) and its update (an alias -1 in-place
 * writer, w_i's last reader), and an output node reading the loss. */
static json_t *training_step(mp_rng *r, int L) {
  json_t *nodes = json_array();
  int id = 0, a[16], P[16];
  json_array_append_new(nodes, node_new(id, "input", 1 + (int64_t)mp_rng_below(r, 2000)));
  a[0] = id++;
  for (int i = 1; i <= L; i++) {
    json_t *p = node_new(id, "param", 8);
    json_object_set_new(p, "alias", json_integer(-1));
    json_array_append_new(nodes, p);
    P[i] = id++;
    json_t *x = node_new(id, "f", 1 + (int64_t)mp_rng_below(r, 4000));
    json_array_append_new(json_object_get(x, "inputs"), json_integer(a[i - 1]));
    json_array_append_new(json_object_get(x, "inputs"), json_integer(P[i]));
    json_array_append_new(nodes, x);
    a[i] = id++;
  }
  json_t *loss = node_new(id, "loss", 1 + (int64_t)mp_rng_below(r, 50));
  json_array_append_new(json_object_get(loss, "inputs"), json_integer(a[L]));
  json_array_append_new(nodes, loss);
  int gi = id++, lossid = gi;
  for (int i = L; i >= 1; i--) {
    json_t *x = node_new(id, "f", 1 + (int64_t)mp_rng_below(r, 3000));
    json_t *in = json_object_get(x, "inputs");
    json_array_append_new(in, json_integer(gi));
    json_array_append_new(in, json_integer(a[i - 1]));
    json_array_append_new(in, json_integer(P[i]));
    json_array_append_new(nodes, x);
    int gx = id++;
    json_t *gw = node_new(id, "f", 1 + (int64_t)mp_rng_below(r, 1000)); /* P's gradient */
    json_array_append_new(json_object_get(gw, "inputs"), json_integer(gi));
    json_array_append_new(json_object_get(gw, "inputs"), json_integer(a[i - 1]));
    json_array_append_new(nodes, gw);
    json_t *u = node_new(id + 1, "add_", 8); /* its update: the gradient's last reader */
    json_array_append_new(json_object_get(u, "inputs"), json_integer(id));
    json_object_set_new(u, "alias", json_integer(-1));
    json_object_set_new(u, "inplace", json_true());
    json_object_set_new(u, "cost", json_real(mp_rng_below(r, 2) ? 0.0 : 1.5));
    json_array_append_new(nodes, u);
    id += 2;
    gi = gx;
  }
  json_t *out = node_new(id, "output", 0);
  json_array_append_new(json_object_get(out, "inputs"), json_integer(lossid));
  json_array_append_new(nodes, out);
  return json_pack("{s:s, s:o}", "name", "train", "nodes", nodes);
}

/* memplan's generator with --backward, as DESIGN 1.1 JSON. */
static json_t *generated_step(const char *family, int n, uint64_t seed) {
  mp_graph *g = tl_gen(family, n, seed, true);
  char *text = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&text, &len);
  ck_assert_int_eq(mp_graph_dump_json(g, fp, NULL), 0);
  fclose(fp);
  mp_graph_destroy(g);
  json_error_t e;
  json_t *doc = json_loads(text, 0, &e);
  ck_assert_msg(doc != NULL, "%s", e.text);
  free(text);
  return doc;
}

/* May node `nd` be read as a whole (`j`): one output, not an output node? */
static bool readable(json_t *nd) {
  return json_object_get(nd, "size") && strcmp(json_string_value(json_object_get(nd, "op")), "output");
}

static bool is_input(json_t *nd) { return !strcmp(json_string_value(json_object_get(nd, "op")), "input"); }

/* A readable node at an array index in [lo, hi), or -1. */
static int pick_readable(mp_rng *r, json_t *nodes, int lo, int hi) {
  for (int tries = 0; hi > lo && tries < 16; tries++) {
    int i = lo + (int)mp_rng_below(r, (uint64_t)(hi - lo));
    if (readable(json_array_get(nodes, (size_t)i))) return i;
  }
  return -1;
}

static int node_id(json_t *nodes, int i) {
  return (int)json_integer_value(json_object_get(json_array_get(nodes, (size_t)i), "id"));
}

/* Give the node at index i another input (not an input node: those read
 * nothing). */
static void add_input(json_t *nodes, int i, int id) {
  json_t *nd = json_array_get(nodes, (size_t)i);
  if (!is_input(nd)) json_array_append_new(json_object_get(nd, "inputs"), json_integer(id));
}

/* Insert a parameter writer before array index at (>= 1): `alias -1,
 * inplace` (a step counter when it reads nothing), or an in-place write
 * of a parameter view P inserted earlier (read by nodes between the two);
 * it may read a producer's output, and up to two later nodes read it.
 * `tempt`: cost 0 and no input, right after a producer, read by that
 * producer's next reader. */
static void insert_writer(mp_rng *r, json_t *nodes, int at, int *next_id, bool tempt) {
  int n = (int)json_array_size(nodes);
  int wid = (*next_id)++;
  json_t *w = node_new(wid, "add_", mp_rng_below(r, 3) ? 8 : 0);
  json_object_set_new(w, "inplace", json_true());
  json_object_set_new(w, "cost", json_real(tempt || mp_rng_below(r, 2) ? 0.0 : 0.5 + 0.5 * (double)mp_rng_below(r, 6)));
  bool through_view = !tempt && at >= 2 && mp_rng_below(r, 3) == 0;
  if (through_view) {
    int pat = 1 + (int)mp_rng_below(r, (uint64_t)(at - 1));
    int pid = (*next_id)++;
    json_t *p = node_new(pid, "param", 16);
    json_object_set_new(p, "alias", json_integer(-1));
    json_array_insert_new(nodes, (size_t)pat, p);
    at++, n++;
    for (int k = 0; k < 2; k++) /* readers of P before its write */
      if (pat + 1 < at) add_input(nodes, pat + 1 + (int)mp_rng_below(r, (uint64_t)(at - pat - 1)), pid);
    json_array_append_new(json_object_get(w, "inputs"), json_integer(pid));
    json_object_set_new(w, "alias", json_integer(pid));
  } else {
    json_object_set_new(w, "alias", json_integer(-1));
  }
  int src = tempt ? -1 : mp_rng_below(r, 2) ? pick_readable(r, nodes, 0, at) : -1;
  if (src >= 0) json_array_append_new(json_object_get(w, "inputs"), json_integer(node_id(nodes, src)));
  json_array_insert_new(nodes, (size_t)at, w);
  n++;
  int readers = tempt ? 1 : (int)mp_rng_below(r, 3);
  for (int k = 0; k < readers && at + 1 < n; k++) /* readers after the write */
    add_input(nodes, at + 1 + (int)mp_rng_below(r, (uint64_t)(n - at - 1)), wid);
}

/* Writers inserted at random places, and one tempting one after the
 * largest producer. */
static char *with_writers(mp_rng *r, json_t *doc, int k) {
  json_t *nodes = json_object_get(doc, "nodes");
  int next_id = (int)json_array_size(nodes);
  int big = -1;
  json_int_t most = -1;
  for (size_t i = 0; i + 2 < json_array_size(nodes); i++) {
    json_t *nd = json_array_get(nodes, i);
    if (readable(nd) && !is_input(nd) && json_integer_value(json_object_get(nd, "size")) > most)
      most = json_integer_value(json_object_get(nd, "size")), big = (int)i;
  }
  if (big >= 0) insert_writer(r, nodes, big + 1, &next_id, true);
  for (int i = 0; i < k; i++)
    insert_writer(r, nodes, 1 + (int)mp_rng_below(r, json_array_size(nodes)), &next_id, false);
  char *js = json_dumps(doc, JSON_COMPACT);
  json_decref(doc);
  return js;
}

/* ---- the check ---- */

/* Nodes that run once: every in-place writer, and every node of the
 * alias set of a storage written in place (storage ids of storage.h:
 * buffers, then parameters in given order). */
static bool *run_once_nodes(const mp_graph *g) {
  mp_storages s;
  mp_storages_build(g, &s);
  int *param = malloc(sizeof(int) * ((size_t)g->n + 1));
  int n_param = g->n_buf;
  for (int i = 0; i < g->n; i++) {
    int v = g->given[i];
    const mp_node *nd = &g->nodes[v];
    param[v] = !nd->has_alias ? -1 : nd->alias.node == MP_PARAM_ALIAS ? n_param++ : param[nd->alias.node];
  }
  bool *once = calloc((size_t)g->n + 1, sizeof(bool));
  for (int v = 0; v < g->n; v++) {
    const mp_node *nd = &g->nodes[v];
    int view = mp_view_storage(g, v);
    int st = view >= 0 ? view : param[v];
    once[v] = nd->inplace || (st >= 0 && s.n_writers[st] > 0);
    for (int k = 0; !nd->has_alias && k < nd->n_out; k++)
      if (g->root_of[v][k] >= 0 && s.n_writers[g->root_of[v][k]] > 0) once[v] = true;
  }
  free(param);
  mp_storages_free(&s);
  return once;
}

typedef struct trial {
  char *json;
  mp_graph *g;
  bool *once;
  int64_t budget, floor, peak;
  double bw;
  const char *order;
} trial;

typedef struct tally {
  int runs, plans, recomputing;
  double secs;
} tally;

/* One run; fails when its plan runs a run-once node twice. */
static void check_run(const trial *t, const char *remat, const char *const *sets, int n_sets, tally *ta) {
  mp_instance in = {t->g, NULL};
  mp_run_spec spec = {.order = t->order, .remat = remat, .place = "firstfit", .seed = 7, .time_limit = 5,
                      .sets = sets, .n_sets = n_sets, .has_budget = true, .budget = t->budget,
                      .has_bandwidth = true, .bandwidth = t->bw, .no_baseline = true};
  mp_result a;
  mp_run(&in, &spec, &a);
  ta->runs++;
  if (a.has_figures) {
    const mp_events *p = &a.remat.events;
    int *runs = calloc((size_t)t->g->n + 1, sizeof(int));
    ta->plans++;
    ta->recomputing += a.remat.fig.recomputed > 0;
    for (int i = 0; i < p->n; i++) {
      if (p->ev[i].kind != MP_EV_RUN) continue;
      int v = p->ev[i].id;
      if (++runs[v] > 1 && t->once[v]) {
        char opts[512] = "";
        for (int k = 0; k < n_sets; k++) snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " %s", sets[k]);
        ck_abort_msg("%s%s runs node %d (%s%s) again (event %d; %s order, budget %lld of floor %lld / "
                     "peak %lld, bandwidth %g)\n%s",
                     remat, opts, v, t->g->nodes[v].op, t->g->nodes[v].inplace ? ", in place" : ", alias set",
                     i, t->order, (long long)t->budget, (long long)t->floor, (long long)t->peak, t->bw,
                     t->json);
      }
    }
    free(runs);
  }
  mp_result_destroy(&a);
}

static bool has_option(const mp_solver *s, const char *name) {
  for (int i = 0; i < s->n_options; i++)
    if (!strcmp(s->options[i].name, name)) return true;
  return false;
}

/* Solver s on t: its quick options, then strict 0 / 1 and a contraction
 * where it has them. */
static void check_solver(const trial *t, const mp_solver *s, tally *ta) {
  const char *sets[72];
  char own[4][96];
  int n = 0;
  for (const char *const *q = tl_quick_sets(s); q && *q && n < 64; q++) sets[n++] = *q;
  if (has_option(s, "max_labels")) /* an exact search: a smaller cap keeps the suite short */
    snprintf(own[3], sizeof own[3], "%s.max_labels=20000", s->name), sets[n++] = own[3];
  bool strict = has_option(s, "strict"), contract = has_option(s, "contract_above");
  for (int st = 0; st < (strict ? 2 : 1); st++)
    for (int ct = 0; ct < (contract ? 2 : 1); ct++) {
      int m = n;
      if (strict) snprintf(own[0], sizeof own[0], "%s.strict=%d", s->name, st), sets[m++] = own[0];
      if (ct) {
        snprintf(own[1], sizeof own[1], "%s.contract_above=3", s->name), sets[m++] = own[1];
        snprintf(own[2], sizeof own[2], "%s.segments=2", s->name), sets[m++] = own[2];
      }
      sets[m] = NULL;
      check_run(t, s->name, sets, m, ta);
    }
}

/* Chains that hand a heuristic's plan to a MILP (a seed it may keep). */
static void check_chains(const trial *t, tally *ta) {
  static const char *const chains[] = {"dtr,remat-ilp", "swap-greedy,remat-lp", "dtr,remat-ilp"};
  static const char *const sets[][4] = {{"remat-ilp.strict=0", "remat-ilp.rounds=4", NULL},
                                        {"remat-lp.strict=0", "remat-lp.rounds=10", NULL},
                                        {"remat-ilp.contract_above=3", "remat-ilp.segments=2", "remat-ilp.strict=0", NULL}};
  for (size_t k = 0; k < sizeof chains / sizeof *chains; k++) {
    int m = 0;
    while (sets[k][m]) m++;
    check_run(t, chains[k], sets[k], m, ta);
  }
}

static char *trial_json(mp_rng *r, int i, int layers) {
  static const char *const families[] = {"chain", "layered", "sp", "tree"};
  json_t *doc = i % 2 == 0 ? training_step(r, 2 + i / 2 % (layers - 1))
                           : generated_step(families[(i / 2) % 4], 8 + (int)mp_rng_below(r, 6), 40 + (uint64_t)i);
  return with_writers(r, doc, 1 + (int)mp_rng_below(r, 3));
}

/* Trial i: its graph (a training step of 2 .. `layers` layers, or a
 * generated one) with random costs (the inserted writers keep theirs), the
 * order, the keep-all peak of that order and the floor. */
static void trial_make(trial *t, mp_rng *r, int i, int layers) {
  memset(t, 0, sizeof *t);
  t->json = trial_json(r, i, layers);
  t->order = i % 3 == 2 ? "greedy" : "given";
  mp_error err;
  t->g = tl_graph_try(t->json, false, &err);
  ck_assert_msg(t->g != NULL, "%s\n%s", t->g ? "" : err.msg, t->json);
  double *given_cost = malloc(sizeof(double) * ((size_t)t->g->n + 1));
  for (int v = 0; v < t->g->n; v++) given_cost[v] = t->g->nodes[v].cost;
  rc_random_costs(t->g, r);
  for (int v = 0; v < t->g->n; v++)
    if (!strcmp(t->g->nodes[v].op, "add_")) t->g->nodes[v].cost = given_cost[v];
  free(given_cost);
  t->once = run_once_nodes(t->g);
  mp_result o;
  ck_assert_int_eq(tl_run(t->g, t->order, "firstfit", 1, 0, NULL, &o), MP_OK);
  t->peak = mp_order_peak(t->g, o.order);
  mp_result_destroy(&o);
  t->floor = mp_events_floor(t->g);
}

static void trial_destroy(trial *t) {
  free(t->once);
  mp_graph_destroy(t->g);
  free(t->json);
}

START_TEST(no_writer_runs_twice) {
  const mp_solver *solvers[64];
  int ns = 0;
  for (int k = 0; k < mp_registry_size && ns < 64; k++)
    if (mp_registry[k]->decides == MP_DECIDES_EVENTS) solvers[ns++] = mp_registry[k];
  ck_assert_msg(ns > 0, "no events solver registered");
  bool chains = mp_solver_find("dtr") && mp_solver_find("swap-greedy");
  tally *ta = calloc((size_t)ns + 1, sizeof *ta);
  mp_rng r;
  mp_rng_seed(&r, 61);
  int trials = tl_trials(8);
  for (int i = 0; i < trials; i++) {
    trial t;
    trial_make(&t, &r, i, 3); /* small graphs: the MILP solves them quickly */
    for (int b = 3; b >= 0; b--) /* the keep-all peak .. the floor */
      for (int link = 0; link < 2; link++) {
        t.budget = t.floor + (t.peak - t.floor) * b / 3;
        t.bw = link ? 400.0 : 0.0;
        for (int k = 0; k <= ns; k++) {
          double t0 = mp_now();
          if (k < ns) check_solver(&t, solvers[k], &ta[k]);
          else if (chains && (b + link + i) % 2 == 0) check_chains(&t, &ta[ns]); /* half the cells */
          ta[k].secs += mp_now() - t0;
        }
      }
    trial_destroy(&t);
  }
  for (int k = 0; k <= ns; k++) {
    const char *name = k < ns ? solvers[k]->name : "chains";
    if (tl_verbose())
      printf("remat_pwriter: %-12s %d runs, %d plans, %d recomputing, %.2f s\n", name, ta[k].runs,
             ta[k].plans, ta[k].recomputing, ta[k].secs);
    ck_assert_msg(ta[k].plans > 0 || (k == ns && !chains), "%s never returned a plan", name);
  }
  free(ta);
  tl_cleanup();
}
END_TEST

/* The mechanism behind the contraction's plans, without the solvers' own
 * check that would discard a plan rerunning a writer: random decisions on
 * contractions of the same graphs, expanded (rc_expand with the inert
 * nodes of rc_strict_inert), verify, need no more memory than the
 * contracted plan and run no run-once node twice, while segments holding
 * one do run again. */
START_TEST(contraction_reruns_skip_writers) {
  mp_rng r;
  mp_rng_seed(&r, 67);
  int trials = tl_trials(40), skipped = 0;
  for (int i = 0; i < trials; i++) {
    trial t;
    trial_make(&t, &r, i, 5);
    rc_contract rc;
    mp_error err;
    if (rc_build(&rc, t.g, t.g->given, 2 + i % 3, INT64_MAX, &err)) { /* the solvers skip it too */
      trial_destroy(&t);
      continue;
    }
    rc.inert = rc_strict_inert(&rc);
    rs_model m;
    rs_model_init(&m, rc.cg, rc.corder);
    rs_dec d;
    rs_dec_init(&m, &d);
    mp_events cev, ev;
    mp_events_init(&cev);
    mp_events_init(&ev);
    for (int k = 0; k < 8; k++) {
      for (int s = 0; s <= m.n_pos + 1; s++)
        for (int b = 0; b < m.nb; b++) *rs_S(&d, s, b) = (uint8_t)mp_rng_below(&r, 2);
      if (rs_complete(&m, &d) || rm_peak(&m, &d, m.order) < 0) continue;
      rs_decode(&m, &d, &cev);
      rc_expand(&rc, &cev, &ev);
      ck_assert_msg(mp_events_verify(t.g, &ev, 0, NULL, &err) == 0, "%s\n%s", err.msg, t.json);
      /* a segment's run bounds its expansion's memory (remat_contract.h) */
      ck_assert_int_le(mp_events_memory(t.g, &ev, NULL), mp_events_memory(rc.cg, &cev, NULL));
      int *runs = calloc((size_t)t.g->n + 1, sizeof(int));
      for (int e = 0; e < ev.n; e++)
        if (ev.ev[e].kind == MP_EV_RUN) {
          int v = ev.ev[e].id;
          ck_assert_msg(++runs[v] == 1 || !t.once[v], "node %d (%s) runs again\n%s", v, t.g->nodes[v].op, t.json);
        }
      int *seg_runs = calloc((size_t)rc.n_seg + 1, sizeof(int));
      for (int e = 0; e < cev.n; e++)
        if (cev.ev[e].kind == MP_EV_RUN && rc.seg_of[cev.ev[e].id] >= 0) seg_runs[rc.seg_of[cev.ev[e].id]]++;
      for (int sg = 0; sg < rc.n_seg; sg++) /* run-once nodes in segments that run again */
        for (int p = rc.seg_start[sg]; seg_runs[sg] > 1 && p < rc.seg_start[sg + 1]; p++) skipped += t.once[rc.node[p]];
      free(seg_runs);
      free(runs);
    }
    mp_events_destroy(&cev);
    mp_events_destroy(&ev);
    rs_dec_destroy(&d);
    rs_model_destroy(&m);
    rc_destroy(&rc);
    trial_destroy(&t);
  }
  if (tl_verbose()) printf("remat_pwriter: %d skipped runs in segment reruns\n", skipped);
  ck_assert_msg(skipped > 0 || trials < 20, "no segment holding a run-once node ran again");
  tl_cleanup();
}
END_TEST

/* The solvers' own check (mp_remat_check) refuses a second run of a
 * parameter's writer or of a view of a written parameter, as the judge
 * does (a parameter written in place is a storage, DESIGN 6.2). */
START_TEST(own_check_refuses_a_writer_rerun) {
  mp_graph *g = tl_graph("{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":10,\"inputs\":[]},"
                         "{\"id\":1,\"op\":\"param\",\"size\":8,\"inputs\":[],\"alias\":-1},"
                         "{\"id\":2,\"op\":\"f\",\"size\":20,\"inputs\":[0,1]},"
                         "{\"id\":3,\"op\":\"sgd_\",\"size\":8,\"inputs\":[1,2],\"alias\":1,\"inplace\":true},"
                         "{\"id\":4,\"op\":\"add_\",\"size\":8,\"inputs\":[],\"alias\":-1,\"inplace\":true}]}");
  static const int plans[][8] = {{1, 2, 3, 4, 4, -1}, {1, 2, 3, 4, 3, -1}, {1, 2, 3, 4, 1, -1}, {1, 2, 3, 4, -1}};
  for (int k = 0; k < 4; k++) {
    mp_events p;
    mp_events_init(&p);
    for (int i = 0; plans[k][i] >= 0; i++) mp_events_push(&p, MP_EV_RUN, plans[k][i]);
    ck_assert_msg(mp_events_verify(g, &p, 0, NULL, NULL) == (k < 3 ? -1 : 0), "plan %d", k);
    ck_assert_int_eq(mp_remat_check(g, g->given, &p, false, NULL, NULL), (k < 3 ? -1 : 0));
    mp_events_destroy(&p);
  }
  mp_graph_destroy(g);
}
END_TEST

Suite *suite_remat_pwriter(void) {
  Suite *s = suite_create("remat_pwriter");
  TCase *tc = tcase_create("remat_pwriter");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, no_writer_runs_twice);
  tcase_add_test(tc, contraction_reruns_skip_writers);
  tcase_add_test(tc, own_check_refuses_a_writer_rerun);
  suite_add_tcase(s, tc);
  return s;
}
