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
 *    never exceeds the brute-force optimum; a placer's bound or proven
 *    optimum never exceeds what the greedy placers reach), plan files
 *    round-trip through `verify`.  Every solver runs every trial: nothing is
 *    skipped for time.  A refusal is accepted only from a solver whose
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
#include <signal.h>
#include <unistd.h>

#include "oracle.h"
#include "lib/sim.h"
#include "testlib.h"

/* Watchdog: a solver run that hangs (ignoring its time limit) fails the
 * test at once with the solver and the input named, instead of stalling
 * the whole suite until Check's timeout. */
#define WATCHDOG_S 15
static char watchdog_msg[8192];

static void watchdog_fire(int sig) {
  (void)sig;
  static const char head[] = "\nprops: WATCHDOG: a solver run exceeded 15 s (its time limit was 5 s): ";
  if (write(2, head, sizeof head - 1) < 0) _exit(3);
  if (write(2, watchdog_msg, strlen(watchdog_msg)) < 0) _exit(3);
  _exit(3);
}

static void watchdog_arm(const char *what, const char *input) {
  snprintf(watchdog_msg, sizeof watchdog_msg, "%s\ninput:\n%s\n", what, input);
  signal(SIGALRM, watchdog_fire);
  alarm(WATCHDOG_S);
}

static void watchdog_disarm(void) { alarm(0); }

#define FEQ(a, b) (fabs((a) - (b)) <= 1e-9 * fmax(1.0, fabs(b)))

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

static bool contains(const char *s, const char *w) { return s && strstr(s, w); }

/* A solver may refuse an input only under a size cap its descriptor
 * documents: its summary or one of its options says "size cap". */
static bool documents_cap(const mp_solver *s) {
  if (contains(s->summary, "size cap")) return true;
  for (int i = 0; i < s->n_options; i++)
    if (contains(s->options[i].help, "size cap")) return true;
  return false;
}

/* The stage that refused: status refused, or (while the harness reports a
 * failed stage as an error) an error whose message names the size cap. */
static const mp_stage_result *refusal(const mp_result *r) {
  for (int i = 0; i < r->n_stages; i++)
    if (r->stages[i].status == MP_REFUSED ||
        (r->stages[i].status == MP_ERROR && contains(r->stages[i].msg, "size cap")))
      return &r->stages[i];
  return NULL;
}

/* The solvers under test: every registered order solver and placer, or the
 * one named by MP_TEST_SOLVER (`make test SOLVER=name`).  Events stages
 * (recomputation and offload) have their own tests: tests/test_remat.c. */
static const char *only_solver(void) {
  const char *o = getenv("MP_TEST_SOLVER");
  return o && *o ? o : NULL;
}

static bool selected(const mp_solver *s) {
  const char *o = only_solver();
  return s->decides != MP_DECIDES_EVENTS && (!o || strcmp(o, s->name) == 0);
}

/* Trials each solver ran and passed; a solver must pass min_checked of
 * each kind that applies to it (refusals under its cap do not count). */
typedef struct solver_stats {
  int graph_ok, fixed_ok, refusals, small_refusals;
  double secs;
} solver_stats;

/* Every check of a graph result, against the oracle. */
static void check_graph_result(const mp_graph *g, or_model *om, const mp_result *r,
                               int64_t given_arena, const char *what, const char *js) {
  ck_assert_msg(r->status != MP_ERROR && r->status != MP_INFEASIBLE, "%s: status %s", what,
                mp_status_name(r->status));
  ck_assert_msg(or_order_ok(om, r->order), "%s: invalid order\n%s", what, js);
  or_lifetimes(om, r->order);
  ck_assert_int_eq(r->prob.n, om->nb);
  int64_t *off = malloc(sizeof(int64_t) * (size_t)(om->nb + 1));
  for (int b = 0; b < r->prob.n; b++) {
    const mp_buffer *bb = &g->bufs[b];
    int o = or_find(om, bb->owner, bb->out, bb->kind == MP_BUF_WORKSPACE);
    ck_assert(o >= 0);
    off[o] = r->offsets[b];
    ck_assert_msg(r->prob.items[b].lo == om->b[o].birth && r->prob.items[b].hi == om->b[o].death + 1,
                  "%s: interval of buffer %d\n%s", what, b, js);
  }
  const char *bad = or_check_offsets(om, off, r->align);
  ck_assert_msg(bad == NULL, "%s: oracle rejects the placement: %s\n%s", what, bad, js);
  int64_t peak = or_peak(om), arena = or_arena(om, off), sum = or_sum(om);
  free(off);
  const mp_figures *f = &r->fig;
  ck_assert_msg(f->live_peak == peak, "%s: live_peak %lld, oracle %lld\n%s", what,
                (long long)f->live_peak, (long long)peak, js);
  ck_assert_msg(f->arena == arena, "%s: arena %lld, oracle %lld", what, (long long)f->arena,
                (long long)arena);
  ck_assert_int_eq(f->sum_sizes, sum);
  ck_assert_msg(arena >= peak, "%s: arena below live peak", what);
  ck_assert_msg(f->lower_bound >= om->lb && f->lower_bound <= peak,
                "%s: lower_bound %lld outside [node bound %lld, peak %lld]", what,
                (long long)f->lower_bound, (long long)om->lb, (long long)peak);
  ck_assert(FEQ(f->fragmentation, arena ? (double)(arena - peak) / (double)arena : 0.0));
  ck_assert(FEQ(f->reuse_ratio, arena ? (double)sum / (double)arena : 0.0));
  ck_assert(FEQ(f->reduction_vs_noreuse, sum ? 1.0 - (double)arena / (double)sum : 0.0));
  ck_assert_msg(f->given_arena == given_arena, "%s: given baseline %lld, expected %lld", what,
                (long long)f->given_arena, (long long)given_arena);
  ck_assert(FEQ(f->reduction_vs_given, given_arena ? 1.0 - (double)arena / (double)given_arena : 0.0));
  ck_assert_msg(FEQ(f->profile_std, or_std(om)), "%s: profile_std %g, oracle %g", what,
                f->profile_std, or_std(om));
  /* the evaluator again gives the same figures */
  mp_figures f2;
  mp_evaluate(&r->prob, r->offsets, f->lower_bound, f->given_arena, &f2);
  ck_assert(memcmp(&f2, f, sizeof f2) == 0);
  ck_assert(mp_verify_offsets(&r->prob, r->offsets, NULL) == 0);
}

static bool same_plan(const mp_result *a, const mp_result *b) {
  if (a->prob.n != b->prob.n || a->n != b->n) return false;
  if (a->n && memcmp(a->order, b->order, sizeof(int) * (size_t)a->n)) return false;
  return a->prob.n == 0 || memcmp(a->offsets, b->offsets, sizeof(int64_t) * (size_t)a->prob.n) == 0;
}

/* A refusal: allowed only under a documented size cap, with a message;
 * counted (a solver that refuses graphs of four nodes or fewer fails). */
static bool accept_refusal(const mp_solver *s, const mp_result *a, int size, solver_stats *st,
                           const char *what, const char *input) {
  const mp_stage_result *sr = refusal(a);
  if (!sr) return false;
  ck_assert_msg(documents_cap(s), "%s refused (%s) but documents no size cap\n%s", what, sr->msg, input);
  ck_assert_msg(sr->msg[0], "%s refused without a message", what);
  st->refusals++;
  if (size <= 4) st->small_refusals++;
  return true;
}

/* Honest bounds and optimality claims of a graph result: an order bound
 * never exceeds the brute-force optimum, optimal only there; a placer's
 * bound never exceeds its arena nor what a greedy placer reaches. */
static void check_graph_bounds(const mp_solver *s, const mp_result *a, int64_t opt, const int64_t ref[2],
                               const char *order, const char *what, const char *js) {
  for (int q = 0; q < a->n_stages; q++) {
    const mp_stage_result *sr = &a->stages[q];
    if (sr->solver->decides == MP_DECIDES_ORDER && strcmp(sr->solver->name, s->name) == 0) {
      if (opt < 0) continue;
      ck_assert_msg(sr->bound <= opt, "%s: bound %lld above the optimum %lld\n%s", what,
                    (long long)sr->bound, (long long)opt, js);
      if (sr->status == MP_OPTIMAL)
        ck_assert_msg(a->fig.live_peak == opt, "%s claims optimal at %lld, optimum %lld\n%s", what,
                      (long long)a->fig.live_peak, (long long)opt, js);
    } else if (sr->solver == s) {
      ck_assert_msg(sr->bound <= a->fig.arena, "%s: bound %lld above its arena %lld", what,
                    (long long)sr->bound, (long long)a->fig.arena);
      /* a proven optimum is no worse than what greedy placers reach: under
       * the same order for a placer, under either order for a solver
       * deciding both */
      int64_t cap = s->decides == MP_DECIDES_BOTH ? (ref[0] < ref[1] ? ref[0] : ref[1])
                                                  : ref[strcmp(order, "greedy") == 0];
      if (cap < 0) continue;
      if (sr->status == MP_OPTIMAL)
        ck_assert_msg(a->fig.arena <= cap, "%s claims optimal at arena %lld; a greedy placer reaches %lld\n%s",
                      what, (long long)a->fig.arena, (long long)cap, js);
      ck_assert_msg(sr->bound <= cap, "%s: bound %lld above an arena %lld a greedy placer reaches\n%s",
                    what, (long long)sr->bound, (long long)cap, js);
    }
  }
  if (opt >= 0) {
    ck_assert_msg(a->fig.live_peak >= opt, "%s: peak %lld below the brute-force optimum %lld\n%s", what,
                  (long long)a->fig.live_peak, (long long)opt, js);
    if (a->status == MP_OPTIMAL && strcmp(a->order_name, "given") != 0)
      ck_assert_msg(a->fig.live_peak == opt, "%s: status optimal at peak %lld, optimum %lld\n%s", what,
                    (long long)a->fig.live_peak, (long long)opt, js);
  }
}

/* The plan file of a result round-trips through `verify`. */
static void check_plan_file(const mp_instance *in, const mp_result *a, const char *suffix, const char *what) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(mp_plan_write(f, in, a), 0);
  fclose(f);
  if (in->g) tl_check_plan_bytes(buf);
  char *pp = tl_write_temp(buf, suffix);
  mp_error e;
  ck_assert_msg(mp_plan_verify(in, pp, 0, &e) == 0, "%s: its plan file does not verify: %s\n%s", what,
                e.msg, buf);
  free(pp);
  free(buf);
}

/* A graph of a trial with what every solver's result is checked against. */
typedef struct graph_trial {
  mp_graph *g;
  or_model om;
  char *js;
  int n;
  int64_t opt;          /* brute-force optimum peak, or -1 */
  int64_t given_arena;  /* the baseline: given order + bysize */
  int64_t ref[2];       /* best greedy placer's arena under given / greedy */
} graph_trial;

static void graph_trial_init(graph_trial *T, mp_rng *r, int n) {
  T->n = n;
  T->js = tl_random_json(r, n, TL_ALL);
  mp_error err;
  T->g = tl_graph_try(T->js, false, &err);
  ck_assert_msg(T->g != NULL, "%s", err.msg);
  ck_assert_int_eq(or_build(T->g, &T->om), 0);
  T->opt = n <= 8 ? tl_brute_force_peak(T->g, 50000, NULL) : -1;
  mp_result base;
  ck_assert_int_eq(tl_run(T->g, "given", "bysize", 1, 0, NULL, &base), 0);
  T->given_arena = base.fig.arena;
  mp_result_destroy(&base);
  /* an upper bound on any optimum */
  T->ref[0] = T->ref[1] = -1;
  for (int o = 0; o < 2; o++)
    for (int c = 0; c < 4; c++) {
      const char *cl[] = {"bysize", "bysize-ff", "firstfit", "bestfit"};
      if (!mp_solver_find(cl[c])) continue;
      ck_assert_int_eq(tl_run(T->g, o ? "greedy" : "given", cl[c], 1, 0, NULL, &base), 0);
      if (T->ref[o] < 0 || base.fig.arena < T->ref[o]) T->ref[o] = base.fig.arena;
      mp_result_destroy(&base);
    }
}

static void graph_trial_destroy(graph_trial *T) {
  or_destroy(&T->om);
  mp_graph_destroy(T->g);
  free(T->js);
}

/* Solver s on trial i's graph: every check; returns whether it counted
 * (false: refused under its cap). */
static bool solver_on_graph(const mp_solver *s, graph_trial *T, int i, solver_stats *st) {
  const char *order = "given", *place = s->name;
  if (s->decides == MP_DECIDES_ORDER) {
    order = s->name;
    place = "bysize";
  } else if (s->decides == MP_DECIDES_OFFSETS) {
    order = i % 2 ? "greedy" : "given";
  }
  uint64_t seed = 1000 + (uint64_t)i;
  char what[160];
  snprintf(what, sizeof what, "solver %s (trial %d, n %d, --order %s --place %s)", s->name, i, T->n,
           order, place);
  mp_result a, b;
  watchdog_arm(what, T->js);
  int rc = tl_run(T->g, order, place, seed, 5.0, tl_quick_sets(s), &a);
  watchdog_disarm();
  if (rc == 3 && accept_refusal(s, &a, T->n, st, what, T->js)) {
    mp_result_destroy(&a);
    return false;
  }
  ck_assert_msg(rc == 0, "%s: rc %d: %s\n%s", what, rc, a.msg, T->js);
  check_graph_result(T->g, &T->om, &a, T->given_arena, what, T->js);
  check_graph_bounds(s, &a, T->opt, T->ref, order, what, T->js);
  if (i % 5 == 0) {
    mp_instance in = {T->g, NULL};
    check_plan_file(&in, &a, ".plan.json", what);
  }
  /* the same seed gives the same plan */
  watchdog_arm(what, T->js);
  int rc2 = tl_run(T->g, order, place, seed, 5.0, tl_quick_sets(s), &b);
  watchdog_disarm();
  ck_assert_int_eq(rc2, 0);
  if (a.status != MP_TIMEOUT && b.status != MP_TIMEOUT)
    ck_assert_msg(same_plan(&a, &b), "%s: the same seed gave a different plan\n%s", what, T->js);
  mp_result_destroy(&a);
  mp_result_destroy(&b);
  return true;
}

/* ---- fixed-lifetime problems ---- */

/* Independent check of a fixed-lifetime result (half-open lifetimes). */
static void check_fixed_result(const tl_fixed *p, const mp_result *r, int64_t given_arena,
                               const char *what, const char *csv) {
  ck_assert_int_eq(r->prob.n, p->n);
  const int64_t *off = r->offsets;
  int64_t arena = 0, sum = 0, tb = 0, te = 0;
  for (int i = 0; i < p->n; i++) {
    ck_assert_msg(off[i] >= 0 && off[i] % p->align[i] == 0, "%s: item %d offset %lld (align %lld)\n%s",
                  what, i, (long long)off[i], (long long)p->align[i], csv);
    if (p->pin[i] >= 0) ck_assert_msg(off[i] == p->pin[i], "%s: pinned item %d moved\n%s", what, i, csv);
    if (p->size[i] > 0 && off[i] + p->size[i] > arena) arena = off[i] + p->size[i];
    sum += p->size[i];
    if (i == 0 || p->lo[i] < tb) tb = p->lo[i];
    if (i == 0 || p->hi[i] > te) te = p->hi[i];
    for (int j = 0; j < i; j++) {
      /* half-open lifetimes; an empty one [t, t) meets nothing */
      bool time = p->lo[i] < p->hi[i] && p->lo[j] < p->hi[j] && p->lo[i] < p->hi[j] && p->lo[j] < p->hi[i];
      bool space = off[i] < off[j] + p->size[j] && off[j] < off[i] + p->size[i];
      ck_assert_msg(!(time && space && p->size[i] && p->size[j]), "%s: items %d and %d overlap\n%s",
                    what, j, i, csv);
    }
  }
  int64_t peak = 0;
  double s1 = 0, s2 = 0;
  for (int64_t t = tb; t < te; t++) {
    int64_t m = 0;
    for (int i = 0; i < p->n; i++)
      if (p->lo[i] <= t && t < p->hi[i]) m += p->size[i];
    if (m > peak) peak = m;
    s1 += (double)m;
    s2 += (double)m * (double)m;
  }
  double std = 0;
  if (te > tb) {
    double mean = s1 / (double)(te - tb);
    double var = s2 / (double)(te - tb) - mean * mean;
    std = var > 0 ? sqrt(var) : 0;
  }
  const mp_figures *f = &r->fig;
  ck_assert_msg(f->live_peak == peak, "%s: peak %lld vs %lld\n%s", what, (long long)f->live_peak,
                (long long)peak, csv);
  ck_assert_int_eq(f->arena, arena);
  ck_assert_int_eq(f->sum_sizes, sum);
  ck_assert_int_eq(f->lower_bound, peak);
  ck_assert_msg(arena >= peak, "%s: arena %lld below the max-live %lld", what, (long long)arena,
                (long long)peak);
  ck_assert_msg(fabs(f->profile_std - std) <= 1e-6 * fmax(1.0, std), "%s: std %g vs %g\n%s", what,
                f->profile_std, std, csv);
  ck_assert(FEQ(f->fragmentation, arena ? (double)(arena - peak) / (double)arena : 0.0));
  ck_assert(FEQ(f->reuse_ratio, arena ? (double)sum / (double)arena : 0.0));
  ck_assert(FEQ(f->reduction_vs_noreuse, sum ? 1.0 - (double)arena / (double)sum : 0.0));
  ck_assert_int_eq(f->given_arena, given_arena);
  ck_assert(FEQ(f->reduction_vs_given, given_arena ? 1.0 - (double)arena / (double)given_arena : 0.0));
}

/* A fixed problem of a trial with what every placer is checked against. */
typedef struct fixed_trial {
  tl_fixed p;
  char *csv, *path;
  mp_problem prob;
  int64_t given_arena, ref; /* bysize's arena; the best greedy placer's */
} fixed_trial;

static void fixed_trial_init(fixed_trial *T, mp_rng *r, int i, int n) {
  T->csv = tl_random_fixed(r, &T->p, n, i % 3 == 1, i % 4 == 2);
  T->path = tl_write_temp(T->csv, ".csv");
  mp_error err;
  ck_assert_msg(mp_csv_read(T->path, &T->prob, &err) == 0, "%s\n%s", err.msg, T->csv);
  mp_result base;
  ck_assert_int_eq(tl_run_fixed(&T->prob, "bysize", 1, 0, 0, NULL, &base), 0);
  T->given_arena = base.fig.arena;
  mp_result_destroy(&base);
  T->ref = -1;
  for (int c = 0; c < 4; c++) {
    const char *cl[] = {"bysize", "bysize-ff", "firstfit", "bestfit"};
    if (!mp_solver_find(cl[c])) continue;
    ck_assert_int_eq(tl_run_fixed(&T->prob, cl[c], 1, 0, 0, NULL, &base), 0);
    if (T->ref < 0 || base.fig.arena < T->ref) T->ref = base.fig.arena;
    mp_result_destroy(&base);
  }
}

static void fixed_trial_destroy(fixed_trial *T) {
  mp_problem_destroy(&T->prob);
  free(T->path);
  free(T->csv);
}

/* Placer s on trial i's problem: every check; false when refused. */
static bool placer_on_fixed(const mp_solver *s, fixed_trial *T, int i, solver_stats *st) {
  char what[160];
  snprintf(what, sizeof what, "placer %s on a fixed problem (trial %d, %d items)", s->name, i, T->p.n);
  mp_result a, b;
  uint64_t seed = 5 + (uint64_t)i;
  watchdog_arm(what, T->csv);
  int rc = tl_run_fixed(&T->prob, s->name, seed, 5.0, 0, tl_quick_sets(s), &a);
  watchdog_disarm();
  if (rc == 3 && accept_refusal(s, &a, T->p.n, st, what, T->csv)) {
    mp_result_destroy(&a);
    return false;
  }
  ck_assert_msg(rc == 0, "%s: rc %d: %s\n%s", what, rc, a.msg, T->csv);
  check_fixed_result(&T->p, &a, T->given_arena, what, T->csv);
  if (i % 5 == 0) {
    mp_instance in = {NULL, &T->prob};
    check_plan_file(&in, &a, ".plan.csv", what);
  }
  for (int q = 0; q < a.n_stages; q++) {
    ck_assert_msg(a.stages[q].bound <= a.fig.arena, "%s: bound above the arena", what);
    if (T->ref < 0) continue;
    ck_assert_msg(a.stages[q].bound <= T->ref, "%s: bound %lld above the arena %lld a greedy placer reaches\n%s",
                  what, (long long)a.stages[q].bound, (long long)T->ref, T->csv);
    if (a.stages[q].status == MP_OPTIMAL)
      ck_assert_msg(a.fig.arena <= T->ref, "%s claims optimal at %lld; a greedy placer reaches %lld\n%s",
                    what, (long long)a.fig.arena, (long long)T->ref, T->csv);
  }
  watchdog_arm(what, T->csv);
  int rc2 = tl_run_fixed(&T->prob, s->name, seed, 5.0, 0, tl_quick_sets(s), &b);
  watchdog_disarm();
  ck_assert_int_eq(rc2, 0);
  if (a.status != MP_TIMEOUT && b.status != MP_TIMEOUT)
    ck_assert_msg(same_plan(&a, &b), "%s: the same seed gave different offsets\n%s", what, T->csv);
  mp_result_destroy(&a);
  mp_result_destroy(&b);
  return true;
}

/* ---- every solver, a fixed list of trials each ---- */

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
    graph_trial_init(&T, &r, 1 + i % 12);
    for (int k = 0; k < mp_registry_size; k++) {
      const mp_solver *s = mp_registry[k];
      if (!selected(s)) continue;
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
    fixed_trial_init(&T, &r, i, i % 17);
    for (int k = 0; k < mp_registry_size; k++) {
      const mp_solver *s = mp_registry[k];
      if (!selected(s) || s->decides != MP_DECIDES_OFFSETS) continue;
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
  size_t cap = 64 + (size_t)mp_registry_size * 64, len = 0;
  char *line = malloc(cap);
  len += (size_t)snprintf(line, cap, "props: %d solver%s passed their trials (graphs/fixed problems):", tested,
                          tested == 1 ? "" : "s");
  for (int k = 0; k < mp_registry_size; k++) {
    const mp_solver *s = mp_registry[k];
    if (!selected(s)) continue;
    if (tl_verbose()) /* make test V=1 */
      printf("props: %-10s %4d graph trials, %4d fixed-problem trials passed, %3d refused (size cap), %.1f s\n",
             s->name, st[k].graph_ok, st[k].fixed_ok, st[k].refusals, st[k].secs);
    len += (size_t)snprintf(line + len, cap - len, " %s %d/%d", s->name, st[k].graph_ok, st[k].fixed_ok);
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
  const char *o = only_solver();
  ck_assert_msg(!o || mp_solver_find(o), "MP_TEST_SOLVER=%s: no such solver", o);
  ck_assert_msg(!o || mp_solver_find(o)->decides != MP_DECIDES_EVENTS,
                "MP_TEST_SOLVER=%s: an events stage; its tests are the remat suite", o);
  int ns = mp_registry_size, graph_trials = tl_trials(300), fixed_trials = tl_trials(300);
  solver_stats *st = calloc((size_t)ns + 1, sizeof *st);
  run_graph_trials(graph_trials, st);
  run_fixed_trials(fixed_trials, st);
  /* every solver passes a fixed share of the trials: a skip is a failure
   * unless it is a refusal under the documented cap */
  int n_graph = 0, n_fixed = 0, tested = 0;
  for (int i = 0; i < graph_trials; i++) n_graph += graph_trial_used(i);
  for (int i = 0; i < fixed_trials; i++) n_fixed += fixed_trial_used(i);
  for (int k = 0; k < ns; k++) {
    const mp_solver *s = mp_registry[k];
    if (!selected(s)) continue;
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
    if (only_solver() && i < 2) continue;
    TCase *tc = tcase_create(cases[i].name);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, cases[i].t);
    suite_add_tcase(s, tc);
  }
  return s;
}
