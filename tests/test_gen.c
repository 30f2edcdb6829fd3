/* test_gen.c - the synthetic generators (`memplan gen`) and the graph
 * writers (`memplan convert`): determinism for a seed, the documented
 * shapes, parameter errors, and json -> nodelink -> json round trips that
 * keep every figure. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "graph_write.h"
#include "gen.h"
#include "igraph_util.h"
#include "testlib.h"

static mp_graph *gen(const char *family, uint64_t seed, void (*tweak)(mp_gen_opts *)) {
  mp_gen_opts o;
  mp_gen_defaults(&o);
  o.family = family;
  o.seed = seed;
  if (tweak) tweak(&o);
  mp_error err;
  mp_graph *g = mp_gen(&o, NULL, &err);
  ck_assert_msg(g != NULL, "gen %s: %s", family, g ? "" : err.msg);
  return g;
}

/* The generated file as a malloc'ed string. */
static char *gen_text(const mp_gen_opts *o) {
  mp_error err;
  char *source;
  mp_graph *g = mp_gen(o, &source, &err);
  ck_assert_msg(g != NULL, "gen %s: %s", o->family, g ? "" : err.msg);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(mp_graph_dump_json(g, f, source), 0);
  fclose(f);
  mp_graph_destroy(g);
  free(source);
  return buf;
}

static void with_options(mp_gen_opts *o) {
  o->ws_prob = 0.3;
  o->inplace_prob = 0.5;
}

static const char *const families[] = {"randwire", "nas", "layered", "tree", "sp", "chain"};
#define N_FAM ((int)(sizeof families / sizeof *families))

START_TEST(deterministic) {
  const char *models[] = {"ws", "er", "ba"};
  for (int f = 0; f < N_FAM + 2; f++) {
    for (int opt = 0; opt < 2; opt++) {
      mp_gen_opts o;
      mp_gen_defaults(&o);
      o.family = families[f < N_FAM ? f : 0];
      if (f >= N_FAM) o.model = models[f - N_FAM + 1]; /* er, ba */
      if (opt) with_options(&o);
      o.seed = 7;
      char *a = gen_text(&o), *b = gen_text(&o);
      ck_assert_msg(strcmp(a, b) == 0, "%s %s: same seed, different output", o.family, o.model);
      o.seed = 8;
      char *c = gen_text(&o);
      ck_assert_msg(strcmp(a, c) != 0, "%s %s: seeds 7 and 8 give the same graph", o.family,
                    o.model);
      free(a);
      free(b);
      free(c);
    }
  }
}
END_TEST

static int count_op(const mp_graph *g, const char *op) {
  int c = 0;
  for (int v = 0; v < g->n; v++) c += !strcmp(g->nodes[v].op, op);
  return c;
}

/* Distinct nodes reading v (data edges only). */
static int data_succ(const mp_graph *g, int v) {
  int c = 0;
  for (int w = 0; w < g->n; w++) {
    bool r = false;
    for (int i = 0; i < g->nodes[w].n_in; i++) r |= g->nodes[w].in[i].node == v;
    c += r;
  }
  return c;
}

static void check_dag(const mp_graph *g) {
  ck_assert_msg(tl_igraph_is_dag(g, NULL), "%s: not acyclic", g->name);
  mp_error err;
  ck_assert_msg(mp_order_check(g, g->given, &err) == -1, "%s: file order: %s", g->name, err.msg);
}

static const char *cur_model;
static int cur_n, cur_nodes_ba;
static void set_model(mp_gen_opts *o) {
  o->model = cur_model;
  o->n = cur_n;
}

START_TEST(randwire_shape) {
  const char *models[] = {"ws", "er", "ba"};
  int sizes[] = {8, 32};
  for (int m = 0; m < 3; m++)
    for (int s = 0; s < 2; s++)
      for (uint64_t seed = 1; seed <= 4; seed++) {
        cur_model = models[m];
        cur_n = sizes[s];
        mp_graph *g = gen("randwire", seed, set_model);
        int n = cur_n;
        check_dag(g);
        int sources = 0, sinks = 0, sinknode = -1;
        for (int v = 0; v < g->n; v++) {
          if (g->n_pred[v] == 0) sources++;
          if (g->n_succ[v] == 0) sinks++, sinknode = v;
        }
        ck_assert_int_eq(sources, 1);
        ck_assert_int_eq(sinks, 1);
        ck_assert_int_eq(count_op(g, "input"), 1);
        ck_assert(g->nodes[0].is_input);
        ck_assert_str_eq(g->nodes[sinknode].name, "output");
        /* every RandWire node is relu -> dw -> pw -> bn, plus a sum when it
         * has several inputs */
        ck_assert_int_eq(count_op(g, "relu"), n);
        ck_assert_int_eq(count_op(g, "conv2d_depthwise"), n);
        ck_assert_int_eq(count_op(g, "conv2d"), n);
        ck_assert_int_eq(count_op(g, "batch_norm"), n);
        int sums = count_op(g, "weighted_sum");
        ck_assert_int_eq(g->n, 2 + 4 * n + sums);
        /* edges between RandWire nodes: inputs of sums and relus that come
         * from a batch norm; WS has exactly n k / 2 of them */
        int wired = 0;
        for (int v = 0; v < g->n; v++) {
          const mp_node *nd = &g->nodes[v];
          if (!strcmp(nd->op, "weighted_sum")) ck_assert_int_ge(nd->n_in, 2);
          if (strcmp(nd->op, "weighted_sum") && strcmp(nd->op, "relu")) continue;
          for (int i = 0; i < nd->n_in; i++)
            wired += !strcmp(g->nodes[nd->in[i].node].op, "batch_norm");
        }
        if (m == 0) ck_assert_int_eq(wired, n * 4 / 2);
        /* every tensor is channels x resolution^2 x batch x 4 bytes */
        for (int b = 0; b < g->n_buf; b++) ck_assert_int_eq(g->bufs[b].size, 78 * 56 * 56 * 4);
        mp_graph_destroy(g);
      }
}
END_TEST

static void inplace_ws_all(mp_gen_opts *o) {
  o->inplace_prob = 1;
  o->ws_prob = 1;
}

START_TEST(randwire_inplace_workspace) {
  mp_graph *g = gen("randwire", 3, inplace_ws_all);
  check_dag(g);
  int inplace = 0;
  for (int v = 0; v < g->n; v++) {
    const mp_node *nd = &g->nodes[v];
    if (nd->inplace) {
      inplace++;
      ck_assert_str_eq(nd->op, "relu");
      ck_assert_int_eq(data_succ(g, nd->alias.node), 1); /* nothing else reads it */
    }
    if (!strcmp(nd->op, "relu") && !nd->inplace) /* read by others, or a graph input */
      ck_assert(data_succ(g, nd->in[0].node) > 1 || g->nodes[nd->in[0].node].is_input);
    if (!strncmp(nd->op, "conv2d", 6)) {
      ck_assert_int_ge(nd->workspace, nd->out_size[0] / 4);
      ck_assert_int_le(nd->workspace, 2 * nd->out_size[0] + 4);
      ck_assert_int_eq(nd->workspace % 4, 0);
    } else {
      ck_assert_int_eq(nd->workspace, 0);
    }
  }
  ck_assert_int_gt(inplace, 0);
  ck_assert_int_eq(g->n_inplace_edges, 0);
  mp_graph_destroy(g);
}
END_TEST

/* The RandWire DAG of a randwire graph: per RandWire node v (< n) its
 * predecessors as a bitmask (n <= 64), from the names n%d.sum / n%d.relu /
 * n%d.bn.  Returns the edge count. */
static int rw_preds(const mp_graph *g, int n, uint64_t *pred) {
  int *rw = mp_xmalloc(sizeof(int) * (size_t)g->n); /* node id -> RandWire node of its bn */
  for (int v = 0; v < g->n; v++) {
    int x;
    char tail[8];
    rw[v] = sscanf(g->nodes[v].name, "n%d.%3s", &x, tail) == 2 && !strcmp(tail, "bn") ? x : -1;
  }
  int edges = 0;
  for (int v = 0; v < n; v++) {
    char want[32];
    int first = -1, sum = -1;
    snprintf(want, sizeof want, "n%d.sum", v);
    for (int u = 0; u < g->n; u++) sum = !strcmp(g->nodes[u].name, want) ? u : sum;
    snprintf(want, sizeof want, "n%d.relu", v);
    for (int u = 0; u < g->n; u++) first = !strcmp(g->nodes[u].name, want) ? u : first;
    ck_assert_int_ge(first, 0);
    const mp_node *nd = &g->nodes[sum >= 0 ? sum : first];
    pred[v] = 0;
    for (int i = 0; i < nd->n_in; i++)
      if (rw[nd->in[i].node] >= 0) {
        pred[v] |= (uint64_t)1 << rw[nd->in[i].node];
        edges++;
      }
  }
  free(rw);
  return edges;
}

static int cur_m;
static void set_ba(mp_gen_opts *o) {
  o->model = "ba";
  o->n = cur_nodes_ba;
  o->m = cur_m;
}

/* BA is Xie et al.'s model: m nodes without edges, node m linked to all of
 * them, every later node to m distinct earlier nodes drawn by degree, so
 * exactly m (n - m) edges and m sources.  (igraph's BA, used before, began
 * from one node: on n 32 m 5, 145 edges, nodes 0-5 a clique, one source.) */
START_TEST(ba_paper_model) {
  int cases[][2] = {{32, 5}, {10, 2}, {8, 7}, {50, 1}, {64, 20}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      int n = cur_nodes_ba = cases[c][0], m = cur_m = cases[c][1];
      mp_graph *g = gen("randwire", seed, set_ba);
      uint64_t pred[64];
      ck_assert_int_eq(rw_preds(g, n, pred), m * (n - m));
      for (int v = 0; v < n; v++) {
        if (v < m) ck_assert_msg(pred[v] == 0, "n %d m %d: node %d has a predecessor", n, m, v);
        if (v == m) ck_assert(pred[v] == ((uint64_t)1 << m) - 1);
        if (v >= m) {
          ck_assert_int_eq(__builtin_popcountll(pred[v]), m);
          ck_assert(pred[v] >> v == 0); /* earlier nodes only */
        }
      }
      mp_graph_destroy(g);
    }
  /* the law: on n 4 m 2, node 3 draws two of 0, 1, 2 (degrees 1, 1, 2)
   * without repeats: {0,1} with probability 1/6, {0,2} and {1,2} 5/12 each */
  int count[8] = {0}, N = 3000;
  cur_nodes_ba = 4;
  cur_m = 2;
  for (uint64_t seed = 1; seed <= (uint64_t)N; seed++) {
    mp_graph *g = gen("randwire", seed, set_ba);
    uint64_t pred[4];
    rw_preds(g, 4, pred);
    count[pred[3]]++;
    mp_graph_destroy(g);
  }
  /* within 4 standard deviations (20 and 27) */
  ck_assert_msg(abs(count[3] - N / 6) < 82, "{0,1}: %d of %d", count[3], N);
  ck_assert_msg(abs(count[5] - 5 * N / 12) < 108, "{0,2}: %d of %d", count[5], N);
  ck_assert_msg(abs(count[6] - 5 * N / 12) < 108, "{1,2}: %d of %d", count[6], N);
}
END_TEST

/* igraph's failures come back as error codes with igraph's reason (its
 * default handler aborted the process before the caller's check). */
START_TEST(igraph_errors_return) {
  mp_igraph_init();
  igraph_t g;
  igraph_error_t ie = igraph_erdos_renyi_game_gnp(&g, 10, 2.0, false, false);
  ck_assert_int_eq(ie, IGRAPH_EINVAL);
  const char *msg = mp_igraph_error(ie);
  ck_assert_msg(strstr(msg, "robabilit") != NULL, "message: %s", msg);
}
END_TEST

/* No in-place ReLU writes into a graph input (randwire, nas: as the other
 * families), whatever the seed. */
static void inplace_all(mp_gen_opts *o) {
  o->inplace_prob = 1;
  o->n = cur_nodes_ba;
  o->k = 2;
}

START_TEST(inplace_never_over_input) {
  const char *fams[] = {"randwire", "nas", "layered", "tree", "sp", "chain"};
  int inplace = 0;
  for (int f = 0; f < 6; f++)
    for (uint64_t seed = 1; seed <= 8; seed++) {
      cur_nodes_ba = !strcmp(fams[f], "randwire") ? 4 : !strcmp(fams[f], "nas") ? 0 : 20;
      mp_graph *g = gen(fams[f], seed, inplace_all);
      for (int v = 0; v < g->n; v++)
        if (g->nodes[v].has_alias) {
          inplace++;
          ck_assert_msg(!g->nodes[g->nodes[v].alias.node].is_input, "%s seed %d: %s writes into %s",
                        fams[f], (int)seed, g->nodes[v].name, g->nodes[g->nodes[v].alias.node].name);
        }
      mp_graph_destroy(g);
    }
  ck_assert_int_gt(inplace, 0);
}
END_TEST

/* The source line quotes --name for the shell when it must, at any length. */
START_TEST(source_quotes_name) {
  static char long_name[700];
  memset(long_name, 'x', 600);
  const char *names[][2] = {{"plain_name-1.2", " --name plain_name-1.2"},
                            {"my graph", " --name 'my graph'"},
                            {"it's", " --name 'it'\\''s'"},
                            {"", " --name ''"},
                            {long_name, long_name}};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    mp_gen_opts o;
    mp_gen_defaults(&o);
    o.family = "chain";
    o.name = names[i][0];
    char *src;
    mp_error err;
    mp_graph *g = mp_gen(&o, &src, &err);
    ck_assert_ptr_nonnull(g);
    size_t ls = strlen(src), lw = strlen(names[i][1]);
    ck_assert_msg(ls >= lw && !strcmp(src + ls - lw, names[i][1]), "name '%s': %s", names[i][0], src);
    mp_graph_destroy(g);
    free(src);
  }
}
END_TEST

static void nas3(mp_gen_opts *o) {
  o->cells = 3;
  o->blocks = 5;
}

START_TEST(nas_shape) {
  for (uint64_t seed = 1; seed <= 6; seed++) {
    mp_graph *g = gen("nas", seed, nas3);
    check_dag(g);
    ck_assert_int_eq(count_op(g, "input"), 2);
    ck_assert_int_eq(count_op(g, "add"), 15);
    ck_assert_int_eq(count_op(g, "cat"), 3);
    int sinks = 0;
    for (int v = 0; v < g->n; v++)
      if (g->n_succ[v] == 0) {
        sinks++;
        ck_assert_str_eq(g->nodes[v].op, "cat");
        ck_assert_str_eq(g->nodes[v].name, "c2.concat");
      }
    ck_assert_int_eq(sinks, 1);
    /* a concat of m states is m tensors big */
    int64_t T = 78 * 56 * 56 * 4;
    for (int v = 0; v < g->n; v++)
      if (!strcmp(g->nodes[v].op, "cat"))
        ck_assert_int_eq(g->nodes[v].out_size[0], g->nodes[v].n_in * T);
    mp_graph_destroy(g);
  }
}
END_TEST

static int cur_nodes;
static void set_n(mp_gen_opts *o) {
  o->n = cur_nodes;
  o->ws_prob = 0.2;
  o->inplace_prob = 0.3;
}

static void check_sizes(const mp_graph *g) {
  for (int v = 0; v < g->n; v++) {
    const mp_node *nd = &g->nodes[v];
    ck_assert_int_ge(nd->out_size[0], 4096);
    ck_assert_int_le(nd->out_size[0], 4194304);
    ck_assert_int_eq(nd->out_size[0] % 4, 0);
  }
}

START_TEST(layered_shape) {
  int ns[] = {3, 16, 100, 300, 1000};
  for (int i = 0; i < 5; i++) {
    cur_nodes = ns[i];
    mp_graph *g = gen("layered", (uint64_t)i + 1, set_n);
    ck_assert_int_eq(g->n, ns[i]);
    check_dag(g);
    check_sizes(g);
    ck_assert_int_eq(count_op(g, "input"), 1);
    int sinks = 0;
    for (int v = 0; v < g->n; v++) {
      sinks += data_succ(g, v) == 0;
      for (int k = 0; k < g->nodes[v].n_in; k++) ck_assert_int_lt(g->nodes[v].in[k].node, v);
    }
    ck_assert_int_eq(sinks, 1); /* only the output node: no dead values */
    ck_assert_str_eq(g->nodes[g->n - 1].name, "output");
    mp_graph_destroy(g);
  }
}
END_TEST

START_TEST(tree_shape) {
  int ns[] = {1, 2, 15, 100, 1000};
  for (int i = 0; i < 5; i++) {
    cur_nodes = ns[i];
    mp_graph *g = gen("tree", (uint64_t)i + 1, set_n);
    ck_assert_int_eq(g->n, ns[i]);
    check_dag(g);
    check_sizes(g);
    for (int v = 0; v < g->n; v++) {
      int succ = data_succ(g, v);
      ck_assert_int_eq(succ, v == g->n - 1 ? 0 : 1); /* an in-tree */
      ck_assert_int_le(g->nodes[v].n_in, 3);
      if (g->nodes[v].n_in == 0) ck_assert(!strcmp(g->nodes[v].op, "producer"));
    }
    mp_graph_destroy(g);
  }
}
END_TEST

static void tree_inputs(mp_gen_opts *o) {
  o->n = 200;
  o->input_prob = 1;
}

START_TEST(tree_leaves_inputs) {
  mp_graph *g = gen("tree", 5, tree_inputs);
  int leaves = 0;
  for (int v = 0; v < g->n; v++)
    if (g->nodes[v].n_in == 0) {
      leaves++;
      ck_assert(g->nodes[v].is_input);
    }
  ck_assert_int_eq(count_op(g, "input"), leaves);
  mp_graph_destroy(g);
}
END_TEST

START_TEST(sp_chain_shape) {
  int ns[] = {2, 3, 12, 100, 1000};
  for (int i = 0; i < 5; i++) {
    cur_nodes = ns[i];
    mp_graph *g = gen("sp", (uint64_t)i + 1, set_n);
    ck_assert_int_eq(g->n, ns[i]);
    check_dag(g);
    int sources = 0, sinks = 0;
    for (int v = 0; v < g->n; v++) {
      sources += g->nodes[v].n_in == 0;
      sinks += data_succ(g, v) == 0;
      ck_assert_int_le(g->nodes[v].n_in, 2);
      if (g->nodes[v].n_in == 2) ck_assert_str_eq(g->nodes[v].op, "add");
    }
    ck_assert_int_eq(sources, 1); /* two-terminal */
    ck_assert_int_eq(sinks, 1);
    mp_graph_destroy(g);
    g = gen("chain", (uint64_t)i + 1, set_n);
    ck_assert_int_eq(g->n, ns[i]);
    check_dag(g);
    for (int v = 1; v < g->n; v++) {
      ck_assert_int_eq(g->nodes[v].n_in, 1);
      ck_assert_int_eq(g->nodes[v].in[0].node, v - 1);
    }
    mp_graph_destroy(g);
  }
}
END_TEST

/* --backward: the forward as without it, then the loss, one grad node per
 * forward operator (its output's size, reading its readers' gradients, its
 * output and its inputs), the output node; phases fwd then bwd. */
static void backward_on(mp_gen_opts *o) {
  o->backward = true;
  o->inplace_prob = 0.3;
  o->ws_prob = 0.2;
}

static void backward_off(mp_gen_opts *o) {
  o->inplace_prob = 0.3;
  o->ws_prob = 0.2;
}

static int find_node(const mp_graph *g, const char *name) {
  for (int v = 0; v < g->n; v++)
    if (!strcmp(g->nodes[v].name, name)) return v;
  return -1;
}

static bool reads(const mp_graph *g, int w, int v) {
  for (int i = 0; i < g->nodes[w].n_in; i++)
    if (g->nodes[w].in[i].node == v) return true;
  return false;
}

START_TEST(backward_shape) {
  for (int f = 0; f < N_FAM; f++) {
    mp_graph *fw = gen(families[f], 3, backward_off), *g = gen(families[f], 3, backward_on);
    int F = fw->n, ops = 0;
    check_dag(g);
    for (int v = 0; v < F; v++) { /* the forward is unchanged */
      ck_assert_str_eq(g->nodes[v].name, fw->nodes[v].name);
      ck_assert_int_eq(g->nodes[v].out_size[0], fw->nodes[v].out_size[0]);
      ck_assert_int_eq(g->nodes[v].workspace, fw->nodes[v].workspace);
      ck_assert_int_eq(g->nodes[v].phase, MP_PHASE_FWD);
      ops += !fw->nodes[v].is_input;
    }
    ck_assert_int_eq(g->n, F + 1 + ops + 1);
    ck_assert_str_eq(g->nodes[F].op, "loss");
    ck_assert_int_eq(g->nodes[F].phase, MP_PHASE_FWD);
    ck_assert(g->nodes[g->n - 1].is_output);
    ck_assert(reads(g, g->n - 1, F)); /* the loss is a graph output */
    for (int v = 0; v < F; v++) {
      if (fw->nodes[v].is_input) continue;
      char nm[160];
      snprintf(nm, sizeof nm, "%s.grad", fw->nodes[v].name);
      int d = find_node(g, nm);
      ck_assert_msg(d > F, "%s: no %s", families[f], nm);
      ck_assert_int_eq(g->nodes[d].phase, MP_PHASE_BWD);
      ck_assert_int_eq(g->nodes[d].out_size[0], g->nodes[v].out_size[0]);
      ck_assert(reads(g, d, v));
      for (int i = 0; i < g->nodes[v].n_in; i++) ck_assert(reads(g, d, g->nodes[v].in[i].node));
      bool sink = true;
      for (int w = 0; w < F; w++) /* the gradients of v's readers flow into v's */
        if (reads(fw, w, v)) {
          char wn[160];
          snprintf(wn, sizeof wn, "%s.grad", fw->nodes[w].name);
          ck_assert(reads(g, d, find_node(g, wn)));
          sink = false;
        }
      if (sink) ck_assert(reads(g, d, F));
    }
    mp_graph_destroy(fw);
    mp_graph_destroy(g);
  }
}
END_TEST

START_TEST(bad_parameters) {
  struct {
    const char *family, *model;
    int n, k, m;
    double p;
  } bad[] = {
      {"nosuch", "ws", 0, 4, 5, -1}, {"randwire", "ws", 32, 3, 5, -1},
      {"randwire", "ws", 4, 4, 5, -1}, {"randwire", "ba", 5, 4, 5, -1},
      {"randwire", "xx", 32, 4, 5, -1}, {"randwire", "er", 32, 4, 5, 1.5},
      {"layered", "ws", 2, 4, 5, -1},  {"sp", "ws", 1, 4, 5, -1},
      /* over the edge cap (igraph aborted the process), too dense to rewire */
      {"randwire", "er", 100000, 4, 5, 1}, {"randwire", "ws", 100000, 99998, 5, -1},
      {"randwire", "ba", 100000, 4, 50000, -1}, {"randwire", "ws", 2000, 1998, 5, 1},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    mp_gen_opts o;
    mp_gen_defaults(&o);
    o.family = bad[i].family;
    o.model = bad[i].model;
    o.n = bad[i].n;
    o.k = bad[i].k;
    o.m = bad[i].m;
    o.p = bad[i].p;
    mp_error err = {{0}};
    mp_graph *g = mp_gen(&o, NULL, &err);
    ck_assert_msg(g == NULL, "case %zu accepted", i);
    ck_assert(err.msg[0] != 0);
  }
  mp_gen_opts o;
  mp_gen_defaults(&o);
  o.family = "chain";
  o.ws_prob = 2;
  mp_error err;
  ck_assert_ptr_null(mp_gen(&o, NULL, &err));
  /* sizes are multiples of 4 in [min, max]: [5, 7] holds none (every size
   * used to be 4, below the minimum) */
  mp_gen_defaults(&o);
  o.family = "chain";
  o.min_size = 5;
  o.max_size = 7;
  ck_assert_ptr_null(mp_gen(&o, NULL, &err));
  ck_assert_msg(strstr(err.msg, "no multiple of 4") != NULL, "%s", err.msg);
  o.max_size = 8;
  mp_graph *g = mp_gen(&o, NULL, &err);
  ck_assert_ptr_nonnull(g);
  for (int v = 0; v < g->n; v++) ck_assert_int_eq(g->nodes[v].out_size[0], 8);
  mp_graph_destroy(g);
}
END_TEST

/* ---------------- convert: json -> nodelink -> json ---------------- */

static char *dump_to_file(const mp_graph *g, bool nodelink) {
  char *path = tl_write_temp("", nodelink ? ".nl.json" : ".json");
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(nodelink ? mp_graph_dump_nodelink(g, f) : mp_graph_dump_json(g, f, NULL), 0);
  fclose(f);
  return path;
}

static void same_figures(const mp_graph *a, const mp_graph *b) {
  ck_assert_int_eq(a->n, b->n);
  ck_assert_int_eq(a->n_buf, b->n_buf);
  ck_assert_int_eq(a->n_data_edges, b->n_data_edges);
  ck_assert_int_eq(a->n_inplace_edges, b->n_inplace_edges);
  ck_assert_int_eq(a->param_bytes, b->param_bytes);
  ck_assert_int_eq(mp_node_lower_bound(a), mp_node_lower_bound(b));
  mp_problem pa, pb;
  mp_problem_from_order(a, a->given, 1, &pa);
  mp_problem_from_order(b, b->given, 1, &pb);
  ck_assert_int_eq(mp_sum_sizes(&pa), mp_sum_sizes(&pb));
  ck_assert_int_eq(mp_live_peak(&pa), mp_live_peak(&pb));
  ck_assert_int_eq(pa.n, pb.n);
  for (int i = 0; i < pa.n; i++) {
    ck_assert_int_eq(pa.items[i].size, pb.items[i].size);
    ck_assert_int_eq(pa.items[i].lo, pb.items[i].lo);
    ck_assert_int_eq(pa.items[i].hi, pb.items[i].hi);
  }
  int oa = 0, ob = 0;
  for (int i = 0; i < a->n_buf; i++) oa += a->bufs[i].graph_output;
  for (int i = 0; i < b->n_buf; i++) ob += b->bufs[i].graph_output;
  ck_assert_int_eq(oa, ob);
  mp_problem_destroy(&pa);
  mp_problem_destroy(&pb);
}

static void round_trip(const mp_graph *g) {
  mp_error err;
  char *nl = dump_to_file(g, true);
  mp_graph *h = mp_graph_read_nodelink(nl, "size", NULL, false, &err);
  ck_assert_msg(h != NULL, "%s", h ? "" : err.msg);
  same_figures(g, h);
  char *js = dump_to_file(h, false);
  mp_graph *k = mp_graph_read_json(js, false, &err);
  ck_assert_msg(k != NULL, "%s", k ? "" : err.msg);
  same_figures(g, k);
  mp_graph_destroy(h);
  mp_graph_destroy(k);
  free(nl);
  free(js);
}

START_TEST(convert_round_trip) {
  /* DESIGN 1.1's example plus an explicit output node, a parameter view, a
   * tensor read twice and an [j, k] input */
  mp_graph *g = tl_graph(
      "{\"name\": \"ex\", \"param_bytes\": 1000, \"nodes\": ["
      "{\"id\": 0, \"op\": \"input\", \"size\": 602112, \"inputs\": []},"
      "{\"id\": 1, \"size\": 3211264, \"inputs\": [0]},"
      "{\"id\": 2, \"size\": 3211264, \"inputs\": [1]},"
      "{\"id\": 3, \"size\": 3211264, \"inputs\": [2], \"inplace\": true, \"alias\": 2},"
      "{\"id\": 4, \"outputs\": [802816, 1605632], \"inputs\": [3], \"workspace\": 4096},"
      "{\"id\": 5, \"size\": 802816, \"inputs\": [[4, 0]], \"alias\": [4, 0]},"
      "{\"id\": 9, \"size\": 802816, \"inputs\": [5, 5]},"
      "{\"id\": 7, \"size\": 0, \"inputs\": [9], \"alias\": -1},"
      "{\"id\": 8, \"op\": \"output\", \"outputs\": [], \"inputs\": [9, [4, 1]]},"
      "{\"id\": 6, \"size\": 100, \"inputs\": [2]}]}");
  round_trip(g);
  mp_graph_destroy(g);
  /* generated graphs with in-place nodes (and in-place edges) and workspaces */
  for (int f = 0; f < N_FAM; f++) {
    g = gen(families[f], 11, with_options);
    round_trip(g);
    mp_graph_destroy(g);
  }
  tl_cleanup();
}
END_TEST

/* `memplan gen ... --out F` writes exactly what mp_gen + the writer give. */
START_TEST(cli_gen_writes_file) {
  mkdir("tmp", 0755);
  char out[64];
  snprintf(out, sizeof out, "tmp/gen_cli_%ld.json", (long)getpid());
  char *argv[] = {"gen", "randwire", "--model", "er", "-n", "16", "--seed", "5", "--out", out, NULL};
  ck_assert_int_eq(mp_cmd_gen(10, argv), 0);
  mp_error err;
  mp_graph *g = mp_graph_read_json(out, false, &err);
  ck_assert_msg(g != NULL, "%s", g ? "" : err.msg);
  ck_assert_str_eq(g->name, "randwire_er_n16_s5");
  mp_graph_destroy(g);
  unlink(out);
}
END_TEST

/* `memplan convert` both ways on a generated file keeps every figure. */
START_TEST(cli_convert_round_trip) {
  mkdir("tmp", 0755);
  char src[64], nl[64], back[64];
  long pid = (long)getpid();
  snprintf(src, sizeof src, "tmp/conv_src_%ld.json", pid);
  snprintf(nl, sizeof nl, "tmp/conv_nl_%ld.json", pid);
  snprintf(back, sizeof back, "tmp/conv_back_%ld.json", pid);
  char *g_argv[] = {"gen", "layered", "-n", "60", "--ws-prob", "0.3", "--inplace-prob", "0.4",
                    "--out", src, NULL};
  ck_assert_int_eq(mp_cmd_gen(10, g_argv), 0);
  char *c1[] = {"convert", src, "--to", "nodelink", "--out", nl, NULL};
  ck_assert_int_eq(mp_cmd_convert(6, c1), 0);
  char *c2[] = {"convert", nl, "--input-format", "nodelink", "--to", "json", "--out", back, NULL};
  ck_assert_int_eq(mp_cmd_convert(8, c2), 0);
  mp_error err;
  mp_graph *a = mp_graph_read_json(src, false, &err);
  ck_assert_msg(a != NULL, "%s", a ? "" : err.msg);
  mp_graph *b = mp_graph_read_json(back, false, &err);
  ck_assert_msg(b != NULL, "%s", b ? "" : err.msg);
  ck_assert_int_gt(a->n_inplace_edges + a->n_buf - a->n, 0); /* the options did something */
  same_figures(a, b);
  mp_graph_destroy(a);
  mp_graph_destroy(b);
  /* a fixed-lifetime CSV is not a graph: refused, nothing written */
  char *c3[] = {"convert", "../graphs/minimalloc/examples/input.12.csv", "--to", "json", "--out",
                back, NULL};
  unlink(back);
  tl_stderr cap;
  tl_stderr_begin(&cap);
  int rc3 = mp_cmd_convert(6, c3);
  char *msg = tl_stderr_end(&cap);
  ck_assert_int_eq(rc3, MP_EXIT_INPUT);
  ck_assert_msg(strstr(msg, "fixed-lifetime"), "convert said: %s", msg);
  free(msg);
  ck_assert_int_ne(access(back, F_OK), 0);
  unlink(src);
  unlink(nl);
}
END_TEST

/* Is `word` one of the space-separated words of `line`? */
static bool line_has_word(const char *line, const char *word) {
  size_t n = strlen(word);
  for (const char *s = line; (s = strstr(s, word)) != NULL; s += n)
    if ((s == line || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0')) return true;
  return false;
}

/* The options a family takes (gen_family.c) are exactly the ones its
 * canonical command line (the file's "source") spells out, but --out and
 * --inplace-relu (which is --inplace-prob 1): the table cannot claim an
 * option the generator ignores, nor miss one it reads. */
START_TEST(family_options_match_source) {
  const char *cases[][2] = {{"randwire", "ws"}, {"randwire", "er"}, {"randwire", "ba"},
                            {"nas", NULL},      {"layered", NULL},  {"tree", NULL},
                            {"sp", NULL},       {"chain", NULL}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    mp_gen_opts o;
    mp_gen_defaults(&o);
    o.family = cases[i][0];
    if (cases[i][1]) o.model = cases[i][1];
    o.backward = true;
    o.name = "x";
    char *src, words[1024], takes[512];
    mp_error err;
    mp_graph *g = mp_gen(&o, &src, &err);
    ck_assert_msg(g != NULL, "%s: %s", o.family, g ? "" : err.msg);
    mp_graph_destroy(g);
    snprintf(words, sizeof words, "%s", src);
    for (char *t = strtok(words, " "); t; t = strtok(NULL, " "))
      if (t[0] == '-' && (t[1] < '0' || t[1] > '9'))
        ck_assert_msg(mp_gen_takes(o.family, o.model, t), "%s %s: source has %s", o.family,
                      o.model, t);
    mp_gen_flags(o.family, o.model, takes, sizeof takes);
    for (char *t = strtok(takes, ", "); t; t = strtok(NULL, ", "))
      if (strcmp(t, "--out") && strcmp(t, "--inplace-relu"))
        ck_assert_msg(line_has_word(src, t), "%s %s takes %s, its source lacks it: %s",
                      o.family, o.model, t, src);
    free(src);
  }
  ck_assert(!mp_gen_takes("chain", NULL, "--cells") && !mp_gen_takes("nas", NULL, "-n"));
  ck_assert(!mp_gen_takes("randwire", "ba", "-k") && mp_gen_takes("randwire", "ba", "-m"));
  ck_assert(!mp_gen_takes("nosuch", NULL, "--seed") && mp_gen_family_known("sp"));
}
END_TEST

Suite *suite_gen(void) {
  Suite *s = suite_create("gen");
  TCase *tc = tcase_create("gen");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, deterministic);
  tcase_add_test(tc, randwire_shape);
  tcase_add_test(tc, randwire_inplace_workspace);
  tcase_add_test(tc, ba_paper_model);
  tcase_add_test(tc, igraph_errors_return);
  tcase_add_test(tc, inplace_never_over_input);
  tcase_add_test(tc, source_quotes_name);
  tcase_add_test(tc, nas_shape);
  tcase_add_test(tc, layered_shape);
  tcase_add_test(tc, tree_shape);
  tcase_add_test(tc, tree_leaves_inputs);
  tcase_add_test(tc, sp_chain_shape);
  tcase_add_test(tc, backward_shape);
  tcase_add_test(tc, bad_parameters);
  tcase_add_test(tc, family_options_match_source);
  tcase_add_test(tc, convert_round_trip);
  tcase_add_test(tc, cli_gen_writes_file);
  tcase_add_test(tc, cli_convert_round_trip);
  suite_add_tcase(s, tc);
  return s;
}
