/* test_props.c - property tests.
 *
 * 1. The model against the independent oracle (tests/oracle.c, written from
 *    DESIGN 1.2/1.3 alone) on hundreds of random graphs with every feature,
 *    under the given order and random topological orders: buffers, alias
 *    roots, readers, graph outputs, data and in-place edges, intervals of
 *    every buffer, live profile, peak, std-dev, sum, node lower bound, the
 *    schedulers' simulator, the order checker and the offset verifier (on
 *    random, often invalid, placements).  Also on "wild" graphs (shuffled
 *    ids, late inputs with inputs of their own, output nodes anywhere,
 *    zero-output and size-0 outputs, views of views, in-place writes
 *    through views, --toposort on shuffled files).
 * 2. Every registered solver (iterated from mp_registry, so solvers added
 *    later are picked up without edits), with its `quick` options, on a
 *    fixed list of random graphs and of random fixed-lifetime problems
 *    (empty lifetimes, sizes 0, per-buffer alignment, pinned offsets): the
 *    plan verifies, arena >= live peak >= lower bound, every figure
 *    recomputes (evaluator again and the oracle), the same seed gives the
 *    same plan, order solvers never beat the brute-force optimum and claim
 *    optimal only when they reach it, bounds are honest (an order bound
 *    never exceeds the brute-force optimum nor the peak of any simple
 *    order; a placer's bound or proven optimum never exceeds what the
 *    greedy placers reach), plan files round-trip through `verify`.  Then
 *    the same on larger inputs (tests/props_big.c: graphs of 60-400 nodes,
 *    fixed problems of 60-2000 items, a short time limit, size caps at
 *    their defaults), where the greedy placers must also give the offsets
 *    of the packer's item-by-item definition.  The checks of one run are
 *    tests/props_check.c, a trial and its references tests/props_trial.c.
 *    Every solver runs every trial: nothing is skipped for time.  A refusal is accepted only from a solver whose
 *    descriptor documents a size cap (and counts as no pass); each solver
 *    must pass a quarter of the trials at least.  The output gives, per
 *    solver, the trials it passed, and one summary line (also written to
 *    MP_PROPS_SUMMARY, which `make test` prints last).  MP_TEST_SOLVER=name
 *    (`make test SOLVER=name`) runs the trials of that solver alone.  A
 *    watchdog turns a hung solver run into a failure naming the solver and
 *    the input. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/sim.h"
#include "props_big.h"
#include "props_trial.h"

#define FEQ(a, b) PC_FEQ(a, b)

/* ------------------------------------------------------------------ */
/* 1. model vs oracle                                                   */
/* ------------------------------------------------------------------ */

static bool model_edge(const mp_graph *g, int u, int v) {
  for (int i = 0; i < g->n_succ[u]; i++)
    if (g->succ[u][i] == v) return true;
  return false;
}

/* Reachability (u reaches v by one or more edges) of the model's edges
 * (g) or of a relation matrix (prec), by Warshall's algorithm. */
static bool *closure(int n, const mp_graph *g, const bool *prec) {
  bool *r = calloc((size_t)n * (size_t)n + 1, sizeof(bool));
  for (int u = 0; u < n; u++)
    for (int v = 0; v < n; v++) r[u * n + v] = g ? model_edge(g, u, v) : prec[u * n + v];
  for (int k = 0; k < n; k++)
    for (int u = 0; u < n; u++)
      if (r[u * n + k])
        for (int v = 0; v < n; v++) r[u * n + v] |= r[k * n + v];
  return r;
}

/* Compare the static structure: buffers, readers, graph outputs, edges. */
static void compare_structure(const mp_graph *g, const or_model *om, const char *js) {
  ck_assert_msg(g->n_buf == om->nb, "buffers: model %d, oracle %d\n%s", g->n_buf, om->nb, js);
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    int o = or_find(om, bb->owner, bb->out, bb->kind == MP_BUF_WORKSPACE);
    ck_assert_msg(o >= 0, "model buffer %d (node %d out %d) unknown to the oracle\n%s", b, bb->owner,
                  bb->out, js);
    const or_buf *ob = &om->b[o];
    ck_assert_msg(bb->size == ob->size, "buffer %d size\n%s", b, js);
    if (bb->kind == MP_BUF_TENSOR) {
      ck_assert_msg(bb->born_at_start == ob->input, "buffer %d born_at_start\n%s", b, js);
      ck_assert_msg(bb->graph_output == ob->graph_output,
                    "buffer %d (node %d out %d) graph_output: model %d oracle %d\n%s", b, bb->owner,
                    bb->out, bb->graph_output, ob->graph_output, js);
      int nr = 0;
      for (int w = 0; w < om->n; w++) nr += ob->reader[w];
      ck_assert_msg(bb->n_readers == nr, "buffer %d: %d readers, oracle %d\n%s", b, bb->n_readers, nr, js);
      for (int i = 0; i < bb->n_readers; i++)
        ck_assert_msg(ob->reader[bb->readers[i]], "buffer %d: reader %d unknown to oracle\n%s", b,
                      bb->readers[i], js);
    }
  }
  /* the model keeps some of the literal edges (the transitive reduction
   * of each storage's in-place pairs), with the same ancestors */
  int n = g->n, ne = 0;
  for (int u = 0; u < n; u++)
    for (int v = 0; v < n; v++) {
      bool a = model_edge(g, u, v), o = om->prec[u * n + v];
      ck_assert_msg(!a || o, "edge %d -> %d: in the model, not in the oracle\n%s", u, v, js);
      ne += a;
    }
  bool *ra = closure(n, g, NULL), *ro = closure(n, NULL, om->prec);
  for (int u = 0; u < n; u++)
    for (int v = 0; v < n; v++)
      ck_assert_msg(ra[u * n + v] == ro[u * n + v], "%d reaches %d: model %d, oracle %d\n%s", u, v,
                    ra[u * n + v], ro[u * n + v], js);
  free(ra);
  free(ro);
  ck_assert_msg(g->n_data_edges == om->n_data, "data edges %d vs %d\n%s", g->n_data_edges, om->n_data, js);
  ck_assert_msg(g->n_inplace_edges == om->n_inplace, "in-place edges %lld vs %d\n%s",
                (long long)g->n_inplace_edges, om->n_inplace, js);
  ck_assert_msg(mp_node_lower_bound(g) == om->lb, "node lower bound: model %lld, oracle %lld\n%s",
                (long long)mp_node_lower_bound(g), (long long)om->lb, js);
  /* igraph finds the relation acyclic too, with the same edge count */
  int ig_edges = 0;
  ck_assert_msg(tl_igraph_is_dag(g, &ig_edges), "igraph finds a cycle");
  ck_assert_int_eq(ig_edges, ne);
}

/* How often the random placements were accepted / rejected (both must
 * happen, or the verifier comparison proves nothing). */
static long verifier_verdicts[2];

/* Compare everything that depends on an order. */
static void compare_order(const mp_graph *g, or_model *om, const int *order, const char *js) {
  ck_assert_msg(mp_order_check(g, order, NULL) < 0, "valid order rejected by the model\n%s", js);
  ck_assert(or_order_ok(om, order));
  or_lifetimes(om, order);
  for (int A = 1; A <= 64; A *= 64) {
    mp_problem p;
    mp_problem_from_order(g, order, A, &p);
    ck_assert_int_eq(p.n, om->nb);
    ck_assert_int_eq(p.t_begin, 0);
    ck_assert_int_eq(p.t_end, g->n);
    for (int b = 0; b < p.n; b++) {
      const mp_buffer *bb = &g->bufs[b];
      const or_buf *ob = &om->b[or_find(om, bb->owner, bb->out, bb->kind == MP_BUF_WORKSPACE)];
      ck_assert_msg(p.items[b].lo == ob->birth && p.items[b].hi == ob->death + 1,
                    "buffer %d (node %d out %d): model [%lld, %lld), oracle [%d, %d]\n%s", b, bb->owner,
                    bb->out, (long long)p.items[b].lo, (long long)p.items[b].hi, ob->birth, ob->death, js);
      ck_assert_int_eq(p.items[b].size, ob->size);
      ck_assert_int_eq(p.items[b].align, A);
      ck_assert_int_eq(p.items[b].fixed, -1);
    }
    int64_t peak = or_peak(om);
    ck_assert_msg(mp_live_peak(&p) == peak, "peak: model %lld, oracle %lld\n%s",
                  (long long)mp_live_peak(&p), (long long)peak, js);
    ck_assert_int_eq(mp_order_peak(g, order), peak);
    ck_assert_int_eq(mp_sum_sizes(&p), or_sum(om));
    ck_assert_msg(FEQ(mp_profile_std(&p), or_std(om)), "std %g vs %g\n%s", mp_profile_std(&p),
                  or_std(om), js);
    int64_t *prof = mp_profile(&p);
    for (int t = 0; t < g->n; t++)
      ck_assert_msg(prof[t] == or_live_at(om, t), "M(%d): model %lld, oracle %lld\n%s", t,
                    (long long)prof[t], (long long)or_live_at(om, t), js);
    free(prof);
    ck_assert_msg(om->lb <= peak, "lower bound %lld above the peak %lld of an order\n%s",
                  (long long)om->lb, (long long)peak, js);
    mp_problem_destroy(&p);
  }
  /* the verifier against the oracle's pairwise check, on random offsets
   * drawn from a few multiples of 32 so that collisions and misalignment
   * are frequent (at align 64) */
  {
    mp_problem p;
    mp_problem_from_order(g, order, 64, &p);
    int64_t *off = malloc(sizeof(int64_t) * (size_t)(p.n + 1));
    int64_t *ooff = malloc(sizeof(int64_t) * (size_t)(p.n + 1));
    uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(p.n + 1);
    for (int trial = 0; trial < 8; trial++) {
      for (int b = 0; b < p.n; b++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        off[b] = (int64_t)((x >> 33) % 8) * (trial < 4 ? 64 : 32) * (trial % 2 ? 64 : 1);
        const mp_buffer *bb = &g->bufs[b];
        ooff[or_find(om, bb->owner, bb->out, bb->kind == MP_BUF_WORKSPACE)] = off[b];
      }
      mp_error e;
      bool model_ok = mp_verify_offsets(&p, off, &e) == 0;
      const char *why = or_check_offsets(om, ooff, 64);
      ck_assert_msg(model_ok == (why == NULL), "verifier: model %s, oracle %s\n%s",
                    model_ok ? "accepts" : e.msg, why ? why : "accepts", js);
      ck_assert_int_eq(mp_arena(&p, off), or_arena(om, ooff));
      verifier_verdicts[model_ok]++;
    }
    free(off);
    free(ooff);
    mp_problem_destroy(&p);
  }
  /* the schedulers' simulator walks the same order */
  mp_sim s;
  mp_sim_init(&s, g);
  for (int t = 0; t < g->n; t++) {
    int v = order[t];
    ck_assert_msg(mp_sim_ready(&s, v), "sim: node %d not ready at step %d\n%s", v, t, js);
    int64_t after, during = mp_sim_cost(&s, v, &after);
    ck_assert_msg(during == or_live_at(om, t), "sim: M(%d) %lld, oracle %lld\n%s", t,
                  (long long)during, (long long)or_live_at(om, t), js);
    if (t < g->n - 1)
      ck_assert_msg(after == or_live_after(om, t), "sim: after step %d %lld, oracle %lld\n%s", t,
                    (long long)after, (long long)or_live_after(om, t), js);
    mp_sim_run(&s, v);
  }
  ck_assert_int_eq(s.peak, or_peak(om));
  mp_sim_destroy(&s);
}

/* Odder graphs than tl_random_json makes: ids shuffled (the file order is
 * not the id order), graph inputs anywhere in the file (with inputs or a
 * workspace of their own), `output` nodes anywhere, multi-output nodes
 * with zero or size-0 outputs, views of views, `[j, k]` aliases, in-place
 * writes through views, alias -1 with inplace, repeated inputs. */
static char *wild_json(mp_rng *r, int n) {
  size_t cap = 256 + (size_t)n * 256;
  char *s = malloc(cap);
  int len = snprintf(s, cap, "{\"name\":\"wild\",\"nodes\":[");
  int *id = malloc(sizeof(int) * (size_t)(n + 1)), *nout = calloc((size_t)n + 1, sizeof(int));
  bool *view = calloc((size_t)n + 1, sizeof(bool));
  for (int p = 0; p < n; p++) id[p] = p;
  for (int p = n - 1; p > 0; p--) {
    int j = (int)mp_rng_below(r, (uint64_t)p + 1), t = id[p];
    id[p] = id[j];
    id[j] = t;
  }
#define W(...) len += snprintf(s + len, cap - (size_t)len, __VA_ARGS__)
  for (int p = 0; p < n; p++) {
    uint64_t kind = mp_rng_below(r, 100);
    const char *op = kind < 12 ? "input" : kind < 20 ? "output" : "op";
    W("%s{\"id\":%d,\"op\":\"%s\"", p ? "," : "", id[p], op);
    if (mp_rng_below(r, 5) == 0) {
      nout[p] = (int)mp_rng_below(r, 4);
      W(",\"outputs\":[");
      for (int k = 0; k < nout[p]; k++)
        W("%s%d", k ? "," : "", mp_rng_below(r, 4) ? 1 + (int)mp_rng_below(r, 999) : 0);
      W("]");
    } else {
      nout[p] = 1;
      W(",\"size\":%d", mp_rng_below(r, 8) ? 1 + (int)mp_rng_below(r, 999) : 0);
    }
    int nin = p ? (int)mp_rng_below(r, 4) : 0;
    int jj[3], kk[3];
    W(",\"inputs\":[");
    for (int i = 0; i < nin; i++) {
      jj[i] = (int)mp_rng_below(r, (uint64_t)p);
      if (i > 0 && mp_rng_below(r, 6) == 0) jj[i] = jj[0]; /* the same tensor twice */
      kk[i] = nout[jj[i]] > 0 && mp_rng_below(r, 2) ? (int)mp_rng_below(r, (uint64_t)nout[jj[i]]) : -1;
      if (kk[i] >= 0)
        W("%s[%d,%d]", i ? "," : "", id[jj[i]], kk[i]);
      else
        W("%s%d", i ? "," : "", id[jj[i]]);
    }
    W("]");
    uint64_t al = mp_rng_below(r, 100);
    if (nin > 0 && al < 35) {
      int j = jj[0], k = kk[0];
      if (k >= 0)
        W(",\"alias\":[%d,%d]", id[j], k);
      else if (nout[j] <= 1 || view[j])
        W(",\"alias\":%d", id[j]);
      else
        W(",\"alias\":[%d,0]", id[j]);
      view[p] = true;
      if (mp_rng_below(r, 2)) W(",\"inplace\":true");
    } else if (al < 42) {
      view[p] = true;
      W(",\"alias\":-1%s", mp_rng_below(r, 3) ? "" : ",\"inplace\":true");
    }
    if (mp_rng_below(r, 5) == 0) W(",\"workspace\":%d", 1 + (int)mp_rng_below(r, 500));
    W("}");
  }
  W("]}\n");
#undef W
  free(id);
  free(nout);
  free(view);
  return s;
}

/* The same graph with its node list shuffled (usually no longer in a
 * topological file order): for --toposort. */
static char *shuffle_nodes(const char *js, mp_rng *r) {
  json_t *root = json_loads(js, 0, NULL);
  ck_assert(root != NULL);
  json_t *nodes = json_object_get(root, "nodes");
  size_t n = json_array_size(nodes);
  for (size_t k = n > 0 ? n - 1 : 0; k > 0; k--) {
    size_t j = (size_t)mp_rng_below(r, (uint64_t)k + 1);
    json_t *a = json_incref(json_array_get(nodes, k)), *b = json_incref(json_array_get(nodes, j));
    json_array_set_new(nodes, k, b);
    json_array_set_new(nodes, j, a);
  }
  char *out = json_dumps(root, JSON_COMPACT);
  json_decref(root);
  return out;
}

START_TEST(model_vs_oracle_wild) {
  mp_rng r;
  mp_rng_seed(&r, 99);
  int trials = tl_trials(600), loaded = 0;
  for (int i = 0; i < trials; i++) {
    int n = i % 13;
    char *js = wild_json(&r, n);
    bool topo = i % 4 == 3;
    if (topo) {
      char *sh = shuffle_nodes(js, &r);
      free(js);
      js = sh;
    }
    mp_error err;
    mp_graph *g = tl_graph_try(js, topo, &err);
    if (!g) {
      /* the only thing the generator may get wrong: an alias `j` naming a
       * node with several outputs, which DESIGN 1.1 rejects */
      ck_assert_msg(strstr(err.msg, "alias"), "wild graph rejected: %s\n%s", err.msg, js);
      free(js);
      continue;
    }
    loaded++;
    or_model om;
    ck_assert_int_eq(or_build(g, &om), 0);
    /* the (sorted) given order is a permutation that respects every data
     * edge; in-place edges follow it */
    {
      int *pos = malloc(sizeof(int) * (size_t)(n + 1));
      for (int k = 0; k < n; k++) pos[k] = -1;
      for (int k = 0; k < n; k++) {
        ck_assert(g->given[k] >= 0 && g->given[k] < n && pos[g->given[k]] < 0);
        pos[g->given[k]] = k;
      }
      for (int u = 0; u < n; u++)
        for (int v = 0; v < n; v++)
          if (om.data[u * n + v]) ck_assert_msg(pos[u] < pos[v], "sorted order breaks %d -> %d\n%s", u, v, js);
      free(pos);
    }
    compare_structure(g, &om, js);
    compare_order(g, &om, g->given, js);
    int *order = malloc(sizeof(int) * (size_t)(n + 1));
    for (int k = 0; k < 3; k++) {
      or_random_order(&om, &r, order);
      compare_order(g, &om, order, js);
    }
    free(order);
    /* the node bound is a bound: never above the optimum */
    if (n <= 7) {
      int64_t opt = tl_brute_force_peak(g, 20000, NULL);
      if (opt >= 0)
        ck_assert_msg(mp_node_lower_bound(g) <= opt, "node bound %lld above the optimum %lld\n%s",
                      (long long)mp_node_lower_bound(g), (long long)opt, js);
    }
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  ck_assert_msg(loaded > trials * 3 / 4, "only %d of %d wild graphs loaded", loaded, trials);
  tl_cleanup();
}
END_TEST

START_TEST(model_vs_oracle) {
  mp_rng r;
  mp_rng_seed(&r, 20260101);
  int trials = tl_trials(600);
  for (int i = 0; i < trials; i++) {
    int n = (i % 13);
    int flags = i % 7 == 6 ? (int)(i % TL_ALL) : TL_ALL; /* mostly everything, some subsets */
    char *js = tl_random_json(&r, n, flags);
    mp_error err;
    mp_graph *g = tl_graph_try(js, false, &err);
    ck_assert_msg(g != NULL, "random graph rejected: %s\n%s", g ? "" : err.msg, js);
    or_model om;
    ck_assert_int_eq(or_build(g, &om), 0);
    compare_structure(g, &om, js);
    compare_order(g, &om, g->given, js);
    int *order = malloc(sizeof(int) * (size_t)(n + 1));
    for (int k = 0; k < 3; k++) {
      or_random_order(&om, &r, order);
      compare_order(g, &om, order, js);
    }
    /* a random permutation: model and oracle agree on validity */
    for (int k = 0; k < n; k++) order[k] = k;
    for (int k = n - 1; k > 0; k--) {
      int j = (int)mp_rng_below(&r, (uint64_t)k + 1), t = order[k];
      order[k] = order[j];
      order[j] = t;
    }
    mp_error e;
    bool model_ok = mp_order_check(g, order, &e) < 0;
    ck_assert_msg(model_ok == or_order_ok(&om, order), "order validity disagrees (%s)\n%s",
                  model_ok ? "model accepts" : e.msg, js);
    free(order);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  ck_assert_msg(verifier_verdicts[0] > 100 && verifier_verdicts[1] > 100,
                "random placements: %ld rejected, %ld accepted", verifier_verdicts[0],
                verifier_verdicts[1]);
  tl_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 2. every solver                                                      */
/* ------------------------------------------------------------------ */


/* The small trials' inputs: a random graph of n nodes; a random fixed
 * problem of n items (alignments on trial i % 3 == 1, pins on i % 4 == 2). */
static void small_graph_trial(graph_trial *T, mp_rng *r, int n) {
  char *js = tl_random_json(r, n, TL_ALL);
  mp_error err;
  mp_graph *g = tl_graph_try(js, false, &err);
  ck_assert_msg(g != NULL, "%s", err.msg);
  graph_trial_init(T, g, js, false);
}

static void small_fixed_trial(fixed_trial *T, tl_fixed *f, mp_rng *r, int i, int n) {
  char *csv = tl_random_fixed(r, f, n, i % 3 == 1, i % 4 == 2);
  pc_fixed view = {f->n, f->lo, f->hi, f->size, f->align, f->pin};
  fixed_trial_init(T, &view, csv, NULL, false);
}

/* The fixed trial lists: graphs of 1-12 nodes (those of 9-12 one in
 * three), fixed problems of 0-16 items (those of 11-16 one in three). */
static bool graph_trial_used(int i) { return 1 + i % 12 <= 8 || i % 3 == 0; }
static bool fixed_trial_used(int i) { return i % 17 <= 10 || i % 3 == 0; }

static void run_graph_trials(int trials, solver_stats *st) {
  mp_rng r;
  mp_rng_seed(&r, 777);
  for (int i = 0; i < trials; i++) {
    if (!graph_trial_used(i)) continue;
    graph_trial T;
    small_graph_trial(&T, &r, 1 + i % 12);
    for (int k = 0; k < mp_registry_size; k++) {
      const mp_solver *s = mp_registry[k];
      if (!pc_selected(s)) continue;
      double t0 = mp_now();
      st[k].graph_ok += solver_on_graph(s, &T, i, &st[k]);
      st[k].secs += mp_now() - t0;
    }
    graph_trial_destroy(&T);
  }
}

static void run_fixed_trials(int trials, solver_stats *st) {
  mp_rng r;
  mp_rng_seed(&r, 4242);
  for (int i = 0; i < trials; i++) {
    if (!fixed_trial_used(i)) continue;
    fixed_trial T;
    tl_fixed f;
    small_fixed_trial(&T, &f, &r, i, i % 17);
    for (int k = 0; k < mp_registry_size; k++) {
      const mp_solver *s = mp_registry[k];
      if (!pc_selected(s) || s->decides != MP_DECIDES_OFFSETS) continue;
      double t0 = mp_now();
      st[k].fixed_ok += placer_on_fixed(s, &T, i, &st[k]);
      st[k].secs += mp_now() - t0;
    }
    fixed_trial_destroy(&T);
  }
}

/* One line per solver, and the summary line `make test` ends with (written
 * to MP_PROPS_SUMMARY when set). */
static void report(const solver_stats *st, int tested) {
  size_t cap = 160 + (size_t)mp_registry_size * 80, len = 0;
  char *line = malloc(cap);
  len += (size_t)snprintf(line, cap,
                          "props: %d solver%s passed their trials (graphs/fixed problems of up to 12 nodes/16 "
                          "items + of %d/%d larger ones, 60-400 nodes/60-2000 items):",
                          tested, tested == 1 ? "" : "s", props_big_graph_count(), props_big_fixed_count());
  for (int k = 0; k < mp_registry_size; k++) {
    const mp_solver *s = mp_registry[k];
    if (!pc_selected(s)) continue;
    if (tl_verbose()) /* make test V=1 */
      printf("props: %-10s %4d graph trials, %4d fixed-problem trials passed, %3d refused (size cap), %.1f s; "
             "larger: %d graphs, %d fixed problems passed, %d refused, %d equal to the packer's definition, "
             "%.1f s\n",
             s->name, st[k].graph_ok, st[k].fixed_ok, st[k].refusals - st[k].big_refusals, st[k].secs,
             st[k].big_graph_ok, st[k].big_fixed_ok, st[k].big_refusals, st[k].same_as_direct, st[k].big_secs);
    len += (size_t)snprintf(line + len, cap - len, " %s %d/%d+%d/%d", s->name, st[k].graph_ok, st[k].fixed_ok,
                            st[k].big_graph_ok, st[k].big_fixed_ok);
  }
  const char *path = getenv("MP_PROPS_SUMMARY");
  FILE *f = path && *path ? fopen(path, "w") : NULL;
  if (!f || tl_verbose()) printf("%s\n", line); /* else `make test` prints it last */
  if (f) {
    fprintf(f, "%s\n", line);
    fclose(f);
  }
  free(line);
}

START_TEST(every_solver) {
  const char *o = pc_only_solver();
  ck_assert_msg(!o || mp_solver_find(o),
                "MP_TEST_SOLVER=%s: no such solver (SOLVER= takes the name memplan solvers lists: the "
                "file solvers/foo_bar.c is the solver foo-bar)", o);
  ck_assert_msg(!o || mp_solver_find(o)->decides != MP_DECIDES_EVENTS,
                "MP_TEST_SOLVER=%s: an events stage; its tests are the remat_props and remat_big suites", o);
  int ns = mp_registry_size, graph_trials = tl_trials(300), fixed_trials = tl_trials(300);
  solver_stats *st = calloc((size_t)ns + 1, sizeof *st);
  run_graph_trials(graph_trials, st);
  run_fixed_trials(fixed_trials, st);
  /* the larger inputs: a refusal there is accepted under a documented size
   * cap alone (pc_accept_refusal), any other failure fails */
  props_big_graph_trials(st);
  props_big_fixed_trials(st);
  /* every solver passes a fixed share of the trials: a skip is a failure
   * unless it is a refusal under the documented cap */
  int n_graph = 0, n_fixed = 0, tested = 0;
  for (int i = 0; i < graph_trials; i++) n_graph += graph_trial_used(i);
  for (int i = 0; i < fixed_trials; i++) n_fixed += fixed_trial_used(i);
  for (int k = 0; k < ns; k++) {
    const mp_solver *s = mp_registry[k];
    if (!pc_selected(s)) continue;
    tested++;
    ck_assert_msg(st[k].graph_ok >= n_graph / 4, "solver %s passed only %d of %d graph trials", s->name,
                  st[k].graph_ok, n_graph);
    if (s->decides == MP_DECIDES_OFFSETS)
      ck_assert_msg(st[k].fixed_ok >= n_fixed / 4, "placer %s passed only %d of %d fixed-problem trials",
                    s->name, st[k].fixed_ok, n_fixed);
    ck_assert_msg(st[k].small_refusals <= (st[k].graph_ok + st[k].fixed_ok) / 4,
                  "solver %s refuses inputs of at most 4 nodes or items (%d times)", s->name,
                  st[k].small_refusals);
  }
  report(st, tested);
  free(st);
  tl_cleanup();
}
END_TEST

Suite *suite_props(void) {
  Suite *s = suite_create("props");
  struct { const char *name; const TTest *t; } cases[] = {
      {"oracle", model_vs_oracle}, {"wild", model_vs_oracle_wild}, {"solvers", every_solver}};
  for (int i = 0; i < 3; i++) {
    /* `make test SOLVER=name`: that solver's trials alone */
    if (pc_only_solver() && i < 2) continue;
    TCase *tc = tcase_create(cases[i].name);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, cases[i].t);
    suite_add_tcase(s, tc);
  }
  return s;
}