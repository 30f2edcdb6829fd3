/* gen.c - synthetic benchmark graphs (see gen.h).
 *
 * Determinism: every random choice comes from one mp_rng seeded with the
 * seed, and the igraph generators (WS/ER) use igraph's default RNG, seeded
 * with the same seed right before the call.  Same parameters and seed:
 * byte-identical file.
 *
 * RandWire's graph models (Xie et al., "Exploring Randomly Wired Neural
 * Networks", ICCV 2019, section 3.2), each an undirected graph on nodes
 * 0..n-1 whose edges are then oriented from the lower to the higher id:
 * - ER: igraph_erdos_renyi_game_gnp, each pair an edge with probability p;
 * - WS: igraph_watts_strogatz_game, a ring where every node links to its k/2
 *   neighbours on each side, each edge rewired with probability p (no loops,
 *   no multi-edges);
 * - BA: our own (ba_preds), the paper's model: "the model begins with M
 *   nodes (no edges); new nodes are added sequentially with M new edges
 *   each; a new node is connected to an existing node v with probability
 *   proportional to v's degree; edges are added without duplicates until
 *   the node has M edges" -- as networkx's barabasi_albert_graph, which the
 *   authors used: node M links to all M initial nodes, every later node to
 *   M distinct earlier ones.  Exactly M (N - M) edges; nodes 0..M-1 have no
 *   earlier neighbour (M sources, each fed by the cell input).
 * Caps (refused up front, MP_GEN_MAX_RW_EDGES): the expected edge count
 * (WS n k / 2, ER p n (n-1) / 2, BA m (n - m)) and, for WS, the expected
 * draws of igraph's rewiring, which redraws a new endpoint until it is no
 * neighbour: about p (n k / 2) (n-1) / (n-1-k).  Beyond them igraph runs out
 * of memory (ER n = 10^5 p = 1: 5 x 10^9 edges) or for minutes (WS n = 2000
 * k = 1998 p = 1: profiled, the time is igraph_rewire_edges and its RNG).
 *
 * Sizes.
 * - randwire, nas: real tensor sizes.  Every activation of a cell is
 *   channels x resolution^2 x batch x dtype_bytes ("T"); a NAS concat of m
 *   states is m*T; the input tensors are T.
 * - layered, tree, sp, chain: each output size is drawn log-uniformly in
 *   [min_size, max_size] (default 4 KiB .. 4 MiB) and rounded up to a
 *   multiple of 4 bytes (float32 elements).  The default range covers the
 *   activations of torchvision models at batch 1 (a 1000-class logits vector
 *   is 4 KB, the 64x112x112 stem activation of resnet is 3.2 MB), and a
 *   log-uniform law matches their spread over three orders of magnitude.
 * - workspaces (--ws-prob q): each compute node (randwire/nas: each
 *   convolution) gets, with probability q, a workspace of its output size
 *   times a factor drawn log-uniformly in [1/4, 2], rounded up to 4 bytes
 *   (im2col/cuDNN-style scratch is of the order of the output).
 * - in-place (--inplace-prob q): each eligible node becomes, with
 *   probability q, an in-place op (alias of its input, inplace: true, no
 *   allocation).  randwire/nas: eligible = ReLU nodes whose input tensor has
 *   no other reader (as a real network may only use ReLU(inplace=True)
 *   there).  layered/tree/sp/chain: eligible = single-input compute nodes;
 *   the input may have other readers, and then DESIGN 1.2's in-place edges
 *   fix their order relative to the writer.  Every family: a node whose
 *   input is a graph input is never in-place (it would overwrite the
 *   caller's tensor), nor is a node that drew a workspace (the generator's
 *   in-place op is an elementwise op without scratch; DESIGN allows both),
 *   so --inplace-prob 1 --ws-prob 1 makes no workspace node in-place.
 *
 * Costs (DESIGN 6.1), one model for every family, drawing no random number
 * (so the rest of a file is what it was before costs existed): a node's
 * cost is the bytes it moves -- the distinct buffers it reads, the tensors
 * it writes (an in-place op writes the storage it aliases) and its
 * workspace -- in MiB (2^20 bytes), rounded to 1/1000.  That is the time in
 * microseconds of a memory-bound operator on a reference device streaming
 * 1 MiB per microsecond (about 1 TB/s).  Graph inputs cost 0.
 */
#include <igraph.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "igraph_util.h"
#include "util.h"

#define MAX_NODES 2000000

/* ------------------------------------------------------------------ */
/* Graph builder                                                       */

typedef struct gb {
  mp_graph *g;
  int cap;
  mp_rng rng;
  const mp_gen_opts *o;
  char *eligible; /* per node: may become in-place (set by the family) */
  int elig_cap;
} gb;

static void gb_init(gb *b, const mp_gen_opts *o) {
  memset(b, 0, sizeof *b);
  b->o = o;
  mp_rng_seed(&b->rng, o->seed);
  b->g = mp_xcalloc(1, sizeof *b->g);
}

static void gb_destroy(gb *b) {
  mp_graph_destroy(b->g);
  free(b->eligible);
  memset(b, 0, sizeof *b);
}

/* Append a node with one output of `size` bytes reading `in` (n_in node
 * ids, every output).  Returns its id. */
static int gb_add(gb *b, const char *op, int64_t size, const int *in, int n_in,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int gb_add(gb *b, const char *op, int64_t size, const int *in, int n_in,
                  const char *fmt, ...) {
  mp_graph *g = b->g;
  if (g->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 64;
    g->nodes = mp_xrealloc(g->nodes, sizeof(mp_node) * (size_t)b->cap);
    g->given = mp_xrealloc(g->given, sizeof(int) * (size_t)b->cap);
    b->eligible = mp_xrealloc(b->eligible, (size_t)b->cap);
  }
  int v = g->n++;
  mp_node *nd = &g->nodes[v];
  memset(nd, 0, sizeof *nd);
  nd->id = v;
  g->given[v] = v;
  b->eligible[v] = 0;
  char name[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  nd->name = mp_bump_strdup(&g->mem, name);
  nd->op = mp_bump_intern(&g->mem, op);
  nd->is_input = !strcmp(op, "input");
  nd->is_output = !strcmp(op, "output");
  nd->n_out = 1;
  nd->out_size = mp_bump_array(&g->mem, 1, sizeof(int64_t));
  nd->out_size[0] = size;
  nd->n_in = n_in;
  nd->in = mp_bump_array(&g->mem, (size_t)n_in, sizeof(mp_ref));
  for (int i = 0; i < n_in; i++) nd->in[i] = (mp_ref){in[i], MP_ALL_OUTPUTS};
  return v;
}

static int gb_add1(gb *b, const char *op, int64_t size, int in, const char *name) {
  return gb_add(b, op, size, &in, 1, "%s", name);
}

static int64_t round4(double x) {
  int64_t v = (int64_t)ceil(x);
  if (v < 4) v = 4;
  return (v + 3) / 4 * 4;
}

/* log-uniform in [lo, hi], rounded up to a multiple of 4 */
static int64_t draw_size(gb *b) {
  double lo = log((double)b->o->min_size), hi = log((double)b->o->max_size);
  double x = exp(lo + (hi - lo) * mp_rng_unit(&b->rng));
  int64_t s = round4(x);
  if (s > b->o->max_size) s = b->o->max_size / 4 * 4;
  return s;
}

/* With probability ws_prob give v a workspace of its output size times a
 * log-uniform factor in [1/4, 2].  Draws one number always (so the other
 * choices do not depend on ws_prob == 0 or not), two when it hits. */
static void maybe_workspace(gb *b, int v) {
  double u = mp_rng_unit(&b->rng);
  if (u < b->o->ws_prob) {
    double f = exp(log(0.25) + (log(2.0) - log(0.25)) * mp_rng_unit(&b->rng));
    b->g->nodes[v].workspace = round4((double)b->g->nodes[v].out_size[0] * f);
  }
}

/* Distinct nodes reading each node (for the randwire/nas in-place rule). */
static int *reader_counts(const mp_graph *g) {
  int *cnt = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(int));
  int *last = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  for (int v = 0; v < g->n; v++) last[v] = -1;
  for (int v = 0; v < g->n; v++)
    for (int i = 0; i < g->nodes[v].n_in; i++) {
      int u = g->nodes[v].in[i].node;
      if (last[u] != v) {
        last[u] = v;
        cnt[u]++;
      }
    }
  free(last);
  return cnt;
}

/* Post pass: each eligible node becomes in-place with probability
 * inplace_prob (one draw per eligible node, in id order, whether or not it
 * can be: the other choices do not depend on the rules below).  Never over
 * a graph input, never with a workspace; `sole` demands that the input has
 * no other reader. */
static void apply_inplace(gb *b, bool sole) {
  mp_graph *g = b->g;
  int *cnt = sole ? reader_counts(g) : NULL;
  for (int v = 0; v < g->n; v++) {
    if (!b->eligible[v]) continue;
    double u = mp_rng_unit(&b->rng);
    mp_node *nd = &g->nodes[v];
    if (nd->n_in != 1 || nd->workspace > 0) continue;
    int src = nd->in[0].node;
    if (g->nodes[src].is_input || (cnt && cnt[src] != 1)) continue;
    if (!(u < b->o->inplace_prob)) continue;
    nd->has_alias = true;
    nd->alias = (mp_ref){src, MP_ALL_OUTPUTS};
    nd->inplace = true;
    nd->out_size[0] = g->nodes[src].out_size[0];
  }
  free(cnt);
}

/* ------------------------------------------------------------------ */
/* randwire                                                            */

typedef struct intlist {
  int n, cap;
  int *a;
} intlist;

static void il_push(intlist *l, int x) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4;
    l->a = mp_xrealloc(l->a, sizeof(int) * (size_t)l->cap);
  }
  l->a[l->n++] = x;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int64_t tensor_bytes(const mp_gen_opts *o) {
  return (int64_t)o->channels * o->resolution * o->resolution * o->batch * o->dtype_bytes;
}

/* One RandWire node (or NAS separable half): relu -> dw kxk -> pw 1x1 -> bn.
 * `x` is the tensor it transforms.  Returns the bn node. */
static int relu_sepconv_bn(gb *b, int x, int64_t T, const char *pfx, int kernel, bool dil) {
  char nm[96];
  snprintf(nm, sizeof nm, "%s.relu", pfx);
  int r = gb_add1(b, "relu", T, x, nm);
  b->eligible[r] = 1;
  snprintf(nm, sizeof nm, "%s.dw%dx%d%s", pfx, kernel, kernel, dil ? "_dil2" : "");
  int d = gb_add1(b, "conv2d_depthwise", T, r, nm);
  maybe_workspace(b, d);
  snprintf(nm, sizeof nm, "%s.pw1x1", pfx);
  int p = gb_add1(b, "conv2d", T, d, nm);
  maybe_workspace(b, p);
  snprintf(nm, sizeof nm, "%s.bn", pfx);
  return gb_add1(b, "batch_norm", T, p, nm);
}

/* The undirected WS or ER graph, drawn by igraph's default RNG seeded with
 * the seed right before the call.  0, or -1 with err set. */
static int randwire_igraph(const mp_gen_opts *o, igraph_t *ug, mp_error *err) {
  bool ws = !strcmp(o->model, "ws");
  mp_igraph_init();
  igraph_error_t ie = igraph_rng_seed(igraph_rng_default(), (igraph_uint_t)o->seed);
  if (ie == IGRAPH_SUCCESS)
    ie = ws ? igraph_watts_strogatz_game(ug, 1, o->n, o->k / 2, o->p, false, false)
            : igraph_erdos_renyi_game_gnp(ug, o->n, o->p, false, false);
  if (ie != IGRAPH_SUCCESS)
    return mp_errorf(err, "gen randwire: igraph's %s generator failed: %s", ws ? "WS" : "ER",
                     mp_igraph_error(ie));
  return 0;
}

/* Orient ug's edges lower -> higher id (ug is destroyed): per node its
 * predecessors. */
static void randwire_orient(igraph_t *ug, intlist *pred) {
  igraph_integer_t ne = igraph_ecount(ug);
  for (igraph_integer_t e = 0; e < ne; e++) {
    int a = (int)IGRAPH_FROM(ug, e), c = (int)IGRAPH_TO(ug, e);
    if (a == c) continue;
    int lo = a < c ? a : c, hi = a < c ? c : a;
    il_push(&pred[hi], lo);
  }
  igraph_destroy(ug);
}

/* A Fenwick tree over node weights (the BA degrees): add and draw a node
 * with probability proportional to its weight, O(log n) each. */
typedef struct fenwick {
  int n, top; /* top: the highest power of 2 <= n */
  int64_t *t, total;
} fenwick;

static void fw_init(fenwick *f, int n) {
  f->n = n;
  f->t = mp_xcalloc((size_t)n + 1, sizeof(int64_t));
  f->total = 0;
  for (f->top = 1; 2 * f->top <= n; f->top *= 2) {
  }
}

static void fw_add(fenwick *f, int v, int64_t w) {
  f->total += w;
  for (int i = v + 1; i <= f->n; i += i & -i) f->t[i] += w;
}

/* The node whose weight interval holds a uniform draw in [0, total). */
static int fw_draw(fenwick *f, mp_rng *rng) {
  int64_t u = (int64_t)mp_rng_below(rng, (uint64_t)f->total);
  int pos = 0;
  for (int step = f->top; step; step /= 2)
    if (pos + step <= f->n && f->t[pos + step] <= u) {
      pos += step;
      u -= f->t[pos];
    }
  return pos; /* nodes 0..pos-1 weigh <= the draw: node pos holds it */
}

/* BA as the paper defines it (header comment), drawn by the family's RNG:
 * node m reads nodes 0..m-1; every later node s draws m distinct earlier
 * nodes, one at a time, each with probability proportional to its degree
 * among those not drawn yet for s (the law of networkx's draws from the
 * degree-weighted list with repeats discarded, in O(m log n)). */
static void ba_preds(gb *b, int n, int m, intlist *pred) {
  fenwick f;
  fw_init(&f, n);
  int64_t *deg = mp_xcalloc((size_t)n, sizeof(int64_t));
  for (int v = 0; v < m; v++) il_push(&pred[m], v);
  for (int s = m; s < n; s++) {
    if (s > m)
      for (int j = 0; j < m; j++) {
        int v = fw_draw(&f, &b->rng);
        il_push(&pred[s], v);
        fw_add(&f, v, -deg[v]); /* no duplicates: out of the draw until s is done */
      }
    for (int j = 0; j < m; j++) {
      int v = pred[s].a[j];
      fw_add(&f, v, (s > m ? deg[v] : 0) + 1);
      deg[v]++;
    }
    fw_add(&f, s, m);
    deg[s] = m;
  }
  free(deg);
  free(f.t);
}

/* Per node its sorted, deduplicated predecessors; per node its out-degree. */
static void randwire_finish_preds(int n, intlist *pred, int *outdeg) {
  for (int v = 0; v < n; v++) {
    if (pred[v].n > 1) {
      qsort(pred[v].a, (size_t)pred[v].n, sizeof(int), cmp_int);
      int m = 1;
      for (int i = 1; i < pred[v].n; i++)
        if (pred[v].a[i] != pred[v].a[m - 1]) pred[v].a[m++] = pred[v].a[i];
      pred[v].n = m;
    }
    for (int i = 0; i < pred[v].n; i++) outdeg[pred[v].a[i]]++;
  }
}

/* The operators: one input, per DAG node a weighted sum of its
 * predecessors (when several) and a relu-sepconv-bn, one output averaging
 * the sinks. */
static void randwire_nodes(gb *b, int n, const intlist *pred, const int *outdeg) {
  int64_t T = tensor_bytes(b->o);
  int input = gb_add(b, "input", T, NULL, 0, "input");
  int *out = mp_xmalloc(sizeof(int) * (size_t)n);
  int *ins = mp_xmalloc(sizeof(int) * (size_t)(n + 1));
  char pfx[32];
  for (int v = 0; v < n; v++) {
    int nin = 0;
    if (pred[v].n == 0)
      ins[nin++] = input;
    else
      for (int i = 0; i < pred[v].n; i++) ins[nin++] = out[pred[v].a[i]];
    snprintf(pfx, sizeof pfx, "n%d", v);
    int x = nin > 1 ? gb_add(b, "weighted_sum", T, ins, nin, "n%d.sum", v) : ins[0];
    out[v] = relu_sepconv_bn(b, x, T, pfx, 3, false);
  }
  int nsink = 0;
  for (int v = 0; v < n; v++)
    if (outdeg[v] == 0) ins[nsink++] = out[v];
  gb_add(b, "mean", T, ins, nsink, "output");
  free(ins);
  free(out);
}

static int gen_randwire(gb *b, mp_error *err) {
  int n = b->o->n;
  intlist *pred = mp_xcalloc((size_t)n, sizeof(intlist));
  if (!strcmp(b->o->model, "ba")) {
    ba_preds(b, n, b->o->m, pred);
  } else {
    igraph_t ug;
    mp_igraph_lock(); /* the default RNG too: seeded, then drawn from */
    if (randwire_igraph(b->o, &ug, err)) {
      mp_igraph_unlock();
      free(pred);
      return -1;
    }
    randwire_orient(&ug, pred);
    mp_igraph_unlock();
  }
  int *outdeg = mp_xcalloc((size_t)n, sizeof(int));
  randwire_finish_preds(n, pred, outdeg);
  randwire_nodes(b, n, pred, outdeg);
  for (int v = 0; v < n; v++) free(pred[v].a);
  free(pred);
  free(outdeg);
  apply_inplace(b, true);
  return 0;
}

/* ------------------------------------------------------------------ */
/* nas: NASNet/DARTS-style cells                                       */

enum { NAS_SEP3, NAS_SEP5, NAS_DIL3, NAS_DIL5, NAS_MAX, NAS_AVG, NAS_SKIP, NAS_NOPS };
static const char *const nas_op_names[NAS_NOPS] = {"sep3", "sep5", "dil3", "dil5",
                                                   "maxpool", "avgpool", "skip"};

/* Apply one DARTS primitive to tensor x; returns the result tensor. */
static int nas_op(gb *b, int op, int x, int64_t T, const char *pfx) {
  char nm[96];
  switch (op) {
  case NAS_SEP3:
  case NAS_SEP5: {
    /* DARTS SepConv: (relu, dw, pw, bn) twice */
    int k = op == NAS_SEP3 ? 3 : 5;
    snprintf(nm, sizeof nm, "%s.a", pfx);
    int y = relu_sepconv_bn(b, x, T, nm, k, false);
    snprintf(nm, sizeof nm, "%s.b", pfx);
    return relu_sepconv_bn(b, y, T, nm, k, false);
  }
  case NAS_DIL3:
  case NAS_DIL5:
    return relu_sepconv_bn(b, x, T, pfx, op == NAS_DIL3 ? 3 : 5, true);
  case NAS_MAX:
    snprintf(nm, sizeof nm, "%s.maxpool3x3", pfx);
    return gb_add1(b, "max_pool2d", T, x, nm);
  case NAS_AVG:
    snprintf(nm, sizeof nm, "%s.avgpool3x3", pfx);
    return gb_add1(b, "avg_pool2d", T, x, nm);
  default:
    return x; /* skip_connect: identity, no operator */
  }
}

/* A cell's preprocessing of its two inputs: relu -> conv1x1 -> bn (back to
 * C channels) each; the results in pre[0..1]. */
static void nas_preprocess(gb *b, int c, const int src[2], int64_t T, int pre[2]) {
  for (int s = 0; s < 2; s++) {
    char nm[64];
    snprintf(nm, sizeof nm, "c%d.pre%d.relu", c, s);
    int r = gb_add1(b, "relu", b->g->nodes[src[s]].out_size[0], src[s], nm);
    b->eligible[r] = 1;
    snprintf(nm, sizeof nm, "c%d.pre%d.conv1x1", c, s);
    int cv = gb_add1(b, "conv2d", T, r, nm);
    maybe_workspace(b, cv);
    snprintf(nm, sizeof nm, "c%d.pre%d.bn", c, s);
    pre[s] = gb_add1(b, "batch_norm", T, cv, nm);
  }
}

/* Cell c on inputs prev2, prev1: B blocks, each adding two primitives of
 * two distinct earlier states, and the concat of the unused block states.
 * state, used and cat are scratch of B+2 entries.  Returns the concat. */
static int nas_cell(gb *b, int c, int prev2, int prev1, int64_t T, int *state, char *used,
                    int *cat) {
  int B = b->o->blocks;
  char pfx[64];
  int pre[2], src[2] = {prev2, prev1};
  nas_preprocess(b, c, src, T, pre);
  state[0] = pre[0];
  state[1] = pre[1];
  memset(used, 0, (size_t)(B + 2));
  for (int i = 0; i < B; i++) {
    int avail = i + 2;
    int a = (int)mp_rng_below(&b->rng, (uint64_t)avail);
    int bb = (int)mp_rng_below(&b->rng, (uint64_t)(avail - 1));
    if (bb >= a) bb++; /* two distinct earlier states */
    int opa = (int)mp_rng_below(&b->rng, NAS_NOPS);
    int opb = (int)mp_rng_below(&b->rng, NAS_NOPS);
    used[a] = used[bb] = 1;
    snprintf(pfx, sizeof pfx, "c%d.b%d.x_%s", c, i, nas_op_names[opa]);
    int ya = nas_op(b, opa, state[a], T, pfx);
    snprintf(pfx, sizeof pfx, "c%d.b%d.y_%s", c, i, nas_op_names[opb]);
    int yb = nas_op(b, opb, state[bb], T, pfx);
    int ab[2] = {ya, yb};
    state[i + 2] = gb_add(b, "add", T, ab, 2, "c%d.b%d.add", c, i);
  }
  int m = 0;
  for (int i = 2; i < B + 2; i++)
    if (!used[i]) cat[m++] = state[i];
  return gb_add(b, "cat", (int64_t)m * T, cat, m, "c%d.concat", c);
}

static int gen_nas(gb *b, mp_error *err) {
  (void)err;
  const mp_gen_opts *o = b->o;
  int64_t T = tensor_bytes(o);
  int prev2 = gb_add(b, "input", T, NULL, 0, "input0");
  int prev1 = gb_add(b, "input", T, NULL, 0, "input1");
  int B = o->blocks;
  int *state = mp_xmalloc(sizeof(int) * (size_t)(B + 2));
  char *used = mp_xmalloc((size_t)(B + 2));
  int *cat = mp_xmalloc(sizeof(int) * (size_t)(B + 2));
  for (int c = 0; c < o->cells; c++) {
    int out = nas_cell(b, c, prev2, prev1, T, state, used, cat);
    prev2 = prev1;
    prev1 = out;
  }
  free(state);
  free(used);
  free(cat);
  apply_inplace(b, true);
  return 0;
}

/* ------------------------------------------------------------------ */
/* layered: L layers, forward edges only                               */

/* Predecessors of the inner nodes of layers 1..L-1 (layer l holds inner
 * nodes [start[l], start[l+1])): 1..fan_in distinct ones within `span`
 * layers back, the first from the previous layer (so depth is L). */
static void layered_preds(gb *b, const int *start, int L, intlist *pred) {
  const mp_gen_opts *o = b->o;
  for (int l = 1; l < L; l++) {
    int lo = start[l - o->span < 0 ? 0 : l - o->span], prev = start[l - 1], hi = start[l];
    for (int v = start[l]; v < start[l + 1]; v++) {
      int d = 1 + (int)mp_rng_below(&b->rng, (uint64_t)o->fan_in);
      int u = prev + (int)mp_rng_below(&b->rng, (uint64_t)(hi - prev));
      il_push(&pred[v], u);
      for (int t = 1; t < d && pred[v].n < hi - lo; t++) {
        int w;
        bool dup;
        do { /* distinct predecessors within the span */
          w = lo + (int)mp_rng_below(&b->rng, (uint64_t)(hi - lo));
          dup = false;
          for (int i = 0; i < pred[v].n; i++) dup |= pred[v].a[i] == w;
        } while (dup);
        il_push(&pred[v], w);
      }
    }
  }
}

/* Out-degrees, and no dead values: a node of layer l < L-1 nobody reads
 * feeds a random node of layer l+1. */
static void layered_no_dead(gb *b, const int *start, int L, int inner, intlist *pred, int *outdeg) {
  for (int v = 0; v < inner; v++)
    for (int i = 0; i < pred[v].n; i++) outdeg[pred[v].a[i]]++;
  for (int l = 0; l + 1 < L; l++)
    for (int v = start[l]; v < start[l + 1]; v++)
      if (!outdeg[v]) {
        int w = start[l + 1] + (int)mp_rng_below(&b->rng, (uint64_t)(start[l + 2] - start[l + 1]));
        il_push(&pred[w], v);
        outdeg[v]++;
      }
}

/* The operators: the input (node 0), the inner nodes layer by layer (inner
 * node v is node v+1), an output summing the last layer's unread nodes. */
static void layered_nodes(gb *b, const int *start, int L, int inner, const intlist *pred,
                          const int *outdeg) {
  int input = gb_add(b, "input", draw_size(b), NULL, 0, "input");
  int maxin = 1;
  for (int v = 0; v < inner; v++) maxin = pred[v].n > maxin ? pred[v].n : maxin;
  int *ins = mp_xmalloc(sizeof(int) * (size_t)(maxin > inner ? maxin : inner));
  for (int l = 0; l < L; l++)
    for (int v = start[l]; v < start[l + 1]; v++) {
      int nin = 0;
      if (l == 0)
        ins[nin++] = input;
      else
        for (int i = 0; i < pred[v].n; i++) ins[nin++] = pred[v].a[i] + 1;
      qsort(ins, (size_t)nin, sizeof(int), cmp_int);
      int id = gb_add(b, nin > 1 ? "add" : "op", draw_size(b), ins, nin, "L%d.%d", l,
                      v - start[l]);
      maybe_workspace(b, id);
      b->eligible[id] = nin == 1 && l > 0;
    }
  int nlast = 0;
  for (int v = start[L - 1]; v < start[L]; v++)
    if (!outdeg[v]) ins[nlast++] = v + 1;
  gb_add(b, "sum", draw_size(b), ins, nlast, "output");
  free(ins);
}

static int gen_layered(gb *b, mp_error *err) {
  const mp_gen_opts *o = b->o;
  int n = o->n, inner = n - 2;
  int L = o->layers;
  if (L < 1 || L > inner) /* L + 2 would wrap for L = INT_MAX */
    return mp_errorf(err, "gen layered: --layers %d outside 1..%d (n - 2; 0: the default)", L, inner);
  /* layer l holds inner nodes [start[l], start[l+1]) (ids offset by 1) */
  int *start = mp_xmalloc(sizeof(int) * (size_t)(L + 1));
  for (int l = 0; l <= L; l++) start[l] = (int)((int64_t)inner * l / L);
  intlist *pred = mp_xcalloc((size_t)inner, sizeof(intlist));
  int *outdeg = mp_xcalloc((size_t)inner, sizeof(int));
  layered_preds(b, start, L, pred);
  layered_no_dead(b, start, L, inner, pred, outdeg);
  layered_nodes(b, start, L, inner, pred, outdeg);
  for (int v = 0; v < inner; v++) free(pred[v].a);
  free(pred);
  free(outdeg);
  free(start);
  apply_inplace(b, false);
  return 0;
}

/* ------------------------------------------------------------------ */
/* tree: in-tree, node n-1 is the root; children have smaller ids       */

static int gen_tree(gb *b, mp_error *err) {
  (void)err;
  const mp_gen_opts *o = b->o;
  int n = o->n;
  int *parent = mp_xmalloc(sizeof(int) * (size_t)n);
  int *nchild = mp_xcalloc((size_t)n, sizeof(int));
  int *open = mp_xmalloc(sizeof(int) * (size_t)n); /* later nodes with room */
  int nopen = 0;
  parent[n - 1] = -1;
  open[nopen++] = n - 1;
  for (int v = n - 2; v >= 0; v--) {
    int i = (int)mp_rng_below(&b->rng, (uint64_t)nopen);
    int p = open[i];
    parent[v] = p;
    if (++nchild[p] == o->fan_in) open[i] = open[--nopen];
    open[nopen++] = v;
  }
  /* children lists in id order */
  int **child = mp_xcalloc((size_t)n, sizeof(int *));
  int *fill = mp_xcalloc((size_t)n, sizeof(int));
  for (int v = 0; v < n; v++) child[v] = mp_xmalloc(sizeof(int) * (size_t)(nchild[v] ? nchild[v] : 1));
  for (int v = 0; v < n - 1; v++) child[parent[v]][fill[parent[v]]++] = v;
  for (int v = 0; v < n; v++) {
    int id;
    if (nchild[v] == 0) {
      bool inp = mp_rng_unit(&b->rng) < o->input_prob;
      id = gb_add(b, inp ? "input" : "producer", draw_size(b), NULL, 0, "leaf%d", v);
      if (!inp) maybe_workspace(b, id);
    } else {
      id = gb_add(b, nchild[v] > 1 ? "add" : "op", draw_size(b), child[v], nchild[v],
                  v == n - 1 ? "root" : "t%d", v);
      maybe_workspace(b, id);
      b->eligible[id] = nchild[v] == 1 && !b->g->nodes[child[v][0]].is_input;
    }
  }
  for (int v = 0; v < n; v++) free(child[v]);
  free(child);
  free(fill);
  free(parent);
  free(nchild);
  free(open);
  apply_inplace(b, false);
  return 0;
}

/* ------------------------------------------------------------------ */
/* sp: series-parallel composition with an exact node budget            */

/* One pending composition: `budget` nodes fed by node `in`.  The
 * composition recurses as deep as the budget, so it runs on an explicit
 * stack of these frames (a 2M-node series chain must not overflow the C
 * stack); the draws and node ids come in the order of the recursive form. */
typedef struct sp_frame {
  int budget, in, n1, first;
  enum { SP_ENTER, SP_SERIES_1, SP_SERIES_2, SP_PAR_1, SP_PAR_2 } state;
} sp_frame;

static int sp_leaf(gb *b, int in, int *counter) {
  int id = gb_add(b, "op", draw_size(b), &in, 1, "s%d", (*counter)++);
  maybe_workspace(b, id);
  b->eligible[id] = !b->g->nodes[in].is_input;
  return id;
}

static int sp_build(gb *b, int budget, int in, int *counter) {
  int cap = 64, top = 0, ret = -1;
  sp_frame *st = mp_xmalloc(sizeof *st * (size_t)cap);
  st[top++] = (sp_frame){budget, in, 0, 0, SP_ENTER};
  while (top > 0) {
    sp_frame *f = &st[top - 1];
    int child_budget = 0, child_in = 0;
    switch (f->state) {
    case SP_ENTER:
      if (f->budget == 1) {
        ret = sp_leaf(b, f->in, counter);
        top--;
        continue;
      }
      if (f->budget >= 3 && mp_rng_unit(&b->rng) < b->o->par_prob) {
        f->n1 = 1 + (int)mp_rng_below(&b->rng, (uint64_t)(f->budget - 2));
        f->state = SP_PAR_1;
      } else {
        f->n1 = 1 + (int)mp_rng_below(&b->rng, (uint64_t)(f->budget - 1));
        f->state = SP_SERIES_1;
      }
      child_budget = f->n1;
      child_in = f->in;
      break;
    case SP_SERIES_1: /* the first part returned: the second reads it */
      f->state = SP_SERIES_2;
      child_budget = f->budget - f->n1;
      child_in = ret;
      break;
    case SP_SERIES_2:
      top--;
      continue;
    case SP_PAR_1: /* both branches read the same input */
      f->first = ret;
      f->state = SP_PAR_2;
      child_budget = f->budget - 1 - f->n1;
      child_in = f->in;
      break;
    case SP_PAR_2: {
      int x[2] = {f->first, ret};
      ret = gb_add(b, "add", draw_size(b), x, 2, "j%d", (*counter)++);
      maybe_workspace(b, ret);
      top--;
      continue;
    }
    }
    if (top == cap) st = mp_xrealloc(st, sizeof *st * (size_t)(cap *= 2));
    st[top++] = (sp_frame){child_budget, child_in, 0, 0, SP_ENTER};
  }
  free(st);
  return ret;
}

static int gen_sp(gb *b, mp_error *err) {
  (void)err;
  int counter = 0;
  int in = gb_add(b, "input", draw_size(b), NULL, 0, "input");
  sp_build(b, b->o->n - 1, in, &counter);
  apply_inplace(b, false);
  return 0;
}

static int gen_chain(gb *b, mp_error *err) {
  (void)err;
  int x = gb_add(b, "input", draw_size(b), NULL, 0, "input");
  for (int i = 1; i < b->o->n; i++) {
    x = gb_add(b, "op", draw_size(b), &x, 1, "c%d", i);
    maybe_workspace(b, x);
    b->eligible[x] = i > 1;
  }
  apply_inplace(b, false);
  return 0;
}

/* ------------------------------------------------------------------ */
/* backward: a training step over any family's forward (--backward)     */

/* Reverse-mode differentiation, one gradient node per forward operator,
 * drawing no random number (the forward part of the file is the same as
 * without --backward):
 * - `loss` (4 bytes, forward) reads every forward sink: the scalar a
 *   training step differentiates;
 * - then, for each forward operator v in reverse order, `v.grad` (op
 *   `grad`, the size of v's output) reads the gradients of v's readers (the
 *   loss for a sink) and what v's backward saves: v's output and v's
 *   inputs, as autograd saves activations;
 * - `output` reads the loss and the gradients of the operators that read a
 *   graph input (the input gradients).
 * Every forward node is phase `fwd`, every other `bwd`. */
/* The forward's readers for the backward pass: per forward node v, the
 * distinct nodes that read it (CSR rd[rstart[v] .. rstart[v + 1]),
 * ascending), and room for the inputs of any node added. */
typedef struct bw_readers {
  int F, *rstart, *rd, *ins;
} bw_readers;

static void readers_init(bw_readers *r, mp_graph *g) {
  int F = r->F = g->n;
  r->rstart = mp_xcalloc((size_t)F + 1, sizeof(int));
  for (int w = 0; w < F; w++)
    for (int i = 0; i < g->nodes[w].n_in; i++)
      if (i == 0 || g->nodes[w].in[i].node != g->nodes[w].in[i - 1].node) r->rstart[g->nodes[w].in[i].node + 1]++;
  for (int v = 0; v < F; v++) r->rstart[v + 1] += r->rstart[v];
  r->rd = mp_xmalloc(sizeof(int) * (size_t)(r->rstart[F] + 1));
  int *fill = mp_xmalloc(sizeof(int) * (size_t)(F + 1));
  memcpy(fill, r->rstart, sizeof(int) * (size_t)F);
  for (int w = 0; w < F; w++) {
    g->nodes[w].phase = MP_PHASE_FWD;
    for (int i = 0; i < g->nodes[w].n_in; i++)
      if (i == 0 || g->nodes[w].in[i].node != g->nodes[w].in[i - 1].node) r->rd[fill[g->nodes[w].in[i].node]++] = w;
  }
  free(fill);
  int maxdeg = 1;
  for (int v = 0; v < F; v++) {
    int deg = r->rstart[v + 1] - r->rstart[v] + g->nodes[v].n_in + 1;
    maxdeg = deg > maxdeg ? deg : maxdeg;
  }
  r->ins = mp_xmalloc(sizeof(int) * (size_t)(F + 2 > maxdeg ? F + 2 : maxdeg));
}

static void readers_destroy(bw_readers *r) {
  free(r->rstart);
  free(r->rd);
  free(r->ins);
}

/* The loss reads every forward node that nothing reads (but the inputs). */
static int add_loss(gb *b, bw_readers *r) {
  const mp_graph *g = b->g;
  int k = 0;
  for (int v = 0; v < r->F; v++)
    if (!g->nodes[v].is_input && r->rstart[v + 1] == r->rstart[v]) r->ins[k++] = v;
  int loss = gb_add(b, "loss", 4, r->ins, k, "loss");
  b->g->nodes[loss].phase = MP_PHASE_FWD;
  return loss;
}

/* One gradient node per forward operator, last first: it reads its readers'
 * gradients (or the loss), the node's output and the node's inputs. */
static void add_grads(gb *b, bw_readers *r, int loss, int *grad) {
  mp_graph *g = b->g;
  for (int v = r->F - 1; v >= 0; v--) {
    grad[v] = -1;
    if (g->nodes[v].is_input) continue;
    int k = 0;
    for (int i = r->rstart[v]; i < r->rstart[v + 1]; i++) r->ins[k++] = grad[r->rd[i]];
    if (k == 0) r->ins[k++] = loss;
    r->ins[k++] = v;
    for (int i = 0; i < g->nodes[v].n_in; i++) r->ins[k++] = g->nodes[v].in[i].node;
    grad[v] = gb_add(b, "grad", g->nodes[v].out_size[0], r->ins, k, "%s.grad", g->nodes[v].name);
    g->nodes[grad[v]].phase = MP_PHASE_BWD;
  }
}

/* The output reads the loss and the gradients of the inputs' readers. */
static void add_output(gb *b, bw_readers *r, int loss, const int *grad) {
  const mp_graph *g = b->g;
  int k = 0;
  r->ins[k++] = loss;
  for (int v = 0; v < r->F; v++) {
    if (!g->nodes[v].is_input) continue;
    for (int i = r->rstart[v]; i < r->rstart[v + 1]; i++)
      if (grad[r->rd[i]] >= 0) r->ins[k++] = grad[r->rd[i]];
  }
  qsort(r->ins + 1, (size_t)(k - 1), sizeof(int), cmp_int);
  int m = 1;
  for (int i = 1; i < k; i++)
    if (r->ins[i] != r->ins[m - 1]) r->ins[m++] = r->ins[i];
  int out = gb_add(b, "output", 0, r->ins, m, "output");
  b->g->nodes[out].phase = MP_PHASE_BWD;
}

static int add_backward(gb *b, mp_error *err) {
  int F = b->g->n;
  if ((int64_t)2 * F + 2 > MAX_NODES)
    return mp_errorf(err, "gen %s --backward: %d forward nodes make more than %d", b->o->family,
                     F, MAX_NODES);
  bw_readers r;
  readers_init(&r, b->g);
  int *grad = mp_xmalloc(sizeof(int) * (size_t)(F + 1));
  int loss = add_loss(b, &r);
  add_grads(b, &r, loss, grad);
  add_output(b, &r, loss, grad);
  free(grad);
  readers_destroy(&r);
  return 0;
}

/* ------------------------------------------------------------------ */
/* costs: bytes moved, in MiB (see the header comment)                  */

static void set_costs(mp_graph *g) {
  for (int v = 0; v < g->n; v++) {
    mp_node *nd = &g->nodes[v];
    double bytes = (double)nd->workspace;
    for (int i = 0; i < g->n_reads[v]; i++) bytes += (double)g->bufs[g->reads[v][i]].size;
    for (int k = 0; k < nd->n_out; k++) bytes += (double)nd->out_size[k];
    nd->cost = nd->is_input || nd->is_output ? 0.0 : round(bytes / 1048.576) / 1000.0;
    nd->has_cost = true;
  }
}

/* ------------------------------------------------------------------ */

void mp_gen_defaults(mp_gen_opts *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  o->n = 0;
  o->model = "ws";
  o->k = 4;
  o->p = -1;
  o->m = 5;
  o->channels = 78;
  o->resolution = 56;
  o->batch = 1;
  o->dtype_bytes = 4;
  o->cells = 1;
  o->blocks = 5;
  o->layers = 0;
  o->fan_in = 0;
  o->span = 3;
  o->input_prob = 0.0;
  o->par_prob = 0.5;
  o->min_size = 4096;
  o->max_size = 4194304;
  o->ws_prob = 0.0;
  o->inplace_prob = 0.0;
}

/* %g without trailing noise, for names and the source line */
static void fmt_num(char *buf, size_t cap, double x) { snprintf(buf, cap, "%.10g", x); }

/* The family's defaults for what the caller left at 0 (or -1). */
static void gen_complete(mp_gen_opts *o) {
  const char *f = o->family;
  bool rw = !strcmp(f, "randwire");
  if (o->n == 0)
    o->n = rw ? 32 : !strcmp(f, "layered") ? 300 : !strcmp(f, "chain") ? 50 : 100;
  if (o->fan_in == 0) o->fan_in = 3;
  if (!strcmp(f, "layered") && o->layers == 0 && o->n >= 3)
    o->layers = (int)lround(sqrt((double)(o->n - 2)));
  if (rw && o->p < 0) o->p = !strcmp(o->model, "er") ? 0.2 : 0.75;
}

/* The ranges every family shares, or false with the reason in err. */
static bool gen_valid_common(const mp_gen_opts *o, mp_error *err) {
  const char *f = o->family;
  if (o->n < 1 || o->n > MAX_NODES) {
    mp_errorf(err, "gen %s: -n must be in 1..%d", f, MAX_NODES);
    return false;
  }
  /* written so that NaN, which no comparison holds for, is refused too */
  if (!(o->ws_prob >= 0 && o->ws_prob <= 1) || !(o->inplace_prob >= 0 && o->inplace_prob <= 1) ||
      !(o->input_prob >= 0 && o->input_prob <= 1) || !(o->par_prob >= 0 && o->par_prob <= 1)) {
    mp_errorf(err, "gen %s: probabilities must be in [0, 1]", f);
    return false;
  }
  if (o->min_size < 4 || o->max_size < o->min_size || o->max_size > ((int64_t)1 << 40)) {
    mp_errorf(err, "gen %s: need 4 <= --min-size <= --max-size <= 2^40", f);
    return false;
  }
  if ((o->min_size + 3) / 4 * 4 > o->max_size) { /* draw_size would go below --min-size */
    mp_errorf(err, "gen %s: [--min-size, --max-size] = [%lld, %lld] holds no multiple of 4 (every "
              "size is a whole number of 4-byte elements)", f, (long long)o->min_size,
              (long long)o->max_size);
    return false;
  }
  double bytes = (double)o->channels * o->resolution * o->resolution * o->batch *
                 o->dtype_bytes * ((double)o->blocks + 2); /* blocks is not checked yet */
  if (o->channels < 1 || o->resolution < 1 || o->batch < 1 || o->dtype_bytes < 1) {
    mp_errorf(err, "gen %s: channels, resolution, batch and dtype bytes must be >= 1", f);
    return false;
  }
  if (bytes > (double)((int64_t)1 << 50)) { /* say which figure, not "sane" */
    mp_errorf(err, "gen %s: --channels x --resolution^2 x --batch x --dtype-bytes x %lld "
              "= %.3g bytes, over 2^50", f, (long long)o->blocks + 2, bytes);
    return false;
  }
  if (o->fan_in < 1 || o->span < 1) {
    mp_errorf(err, "gen %s: --fan-in and --span must be >= 1", f);
    return false;
  }
  return true;
}

/* The expected edge count of randwire's graph, and for WS the expected
 * draws of igraph's rewiring (header comment), within MP_GEN_MAX_RW_EDGES;
 * or false with the reason in err. */
static bool randwire_within_caps(const mp_gen_opts *o, mp_error *err) {
  double n = o->n, edges, draws = 0;
  const char *what;
  if (!strcmp(o->model, "ws")) {
    edges = n * o->k / 2;
    what = "n k / 2";
    /* a complete lattice (k = n - 1) has nothing to rewire to */
    if (o->k < o->n - 1) draws = o->p * edges * (n - 1) / (n - 1 - o->k);
  } else if (!strcmp(o->model, "er")) {
    edges = o->p * n * (n - 1) / 2;
    what = "p n (n - 1) / 2";
  } else {
    edges = (double)o->m * (n - o->m);
    what = "m (n - m)";
  }
  if (edges > MP_GEN_MAX_RW_EDGES) {
    mp_errorf(err, "gen randwire --model %s: %.0f expected edges (%s) is over the cap of %d",
              o->model, edges, what, MP_GEN_MAX_RW_EDGES);
    return false;
  }
  if (draws > MP_GEN_MAX_RW_EDGES) {
    mp_errorf(err, "gen randwire --model ws: k = %d of n = %d is too dense to rewire: igraph "
              "redraws each rewired endpoint until it is no neighbour, about %.0f draws, over "
              "the cap of %d (p (n k / 2) (n - 1) / (n - 1 - k)); lower k or p",
              o->k, o->n, draws, MP_GEN_MAX_RW_EDGES);
    return false;
  }
  return true;
}

/* randwire's model and its parameters, or false with the reason in err. */
static bool gen_valid_randwire(const mp_gen_opts *o, mp_error *err) {
  if (strcmp(o->model, "ws") && strcmp(o->model, "er") && strcmp(o->model, "ba")) {
    mp_errorf(err, "gen randwire: --model takes ws, er or ba");
    return false;
  }
  if (o->n < 2 || o->n > 100000) {
    mp_errorf(err, "gen randwire: -n must be in 2..100000");
    return false;
  }
  if (!strcmp(o->model, "ws") && (o->k < 2 || o->k % 2 || o->k >= o->n)) {
    mp_errorf(err, "gen randwire: WS needs an even -k with 2 <= k < n");
    return false;
  }
  if (!strcmp(o->model, "ba") && (o->m < 1 || o->m >= o->n)) {
    mp_errorf(err, "gen randwire: BA needs 1 <= -m < n");
    return false;
  }
  if (!(o->p >= 0 && o->p <= 1)) { /* NaN too */
    mp_errorf(err, "gen randwire: -p must be in [0, 1]");
    return false;
  }
  /* igraph_rewire_edges skips to the next rewired edge by a geometric draw
   * of mean 1/p cast to an integer: beyond 2^63 it wraps (a crash at 1e-20)
   * or never returns (1e-300).  1e-9 keeps the draw far below that. */
  if (!strcmp(o->model, "ws") && o->p > 0 && o->p < 1e-9) {
    mp_errorf(err, "gen randwire --model ws: -p %g is below 1e-9: igraph's rewiring cannot "
              "draw so rare an event (use -p 0 for none)", o->p);
    return false;
  }
  return randwire_within_caps(o, err);
}

/* Every parameter in range, or false with the reason in err. */
static bool gen_valid(const mp_gen_opts *o, mp_error *err) {
  const char *f = o->family;
  if (!gen_valid_common(o, err)) return false;
  if (!strcmp(f, "randwire") && !gen_valid_randwire(o, err)) return false;
  if (!strcmp(f, "nas") && (o->cells < 1 || o->cells > 1000 || o->blocks < 1 || o->blocks > 100)) {
    mp_errorf(err, "gen nas: --cells in 1..1000, --blocks in 1..100");
    return false;
  }
  if (!strcmp(f, "layered") && o->n < 3) {
    mp_errorf(err, "gen layered: -n must be >= 3");
    return false;
  }
  if ((!strcmp(f, "sp") || !strcmp(f, "chain")) && o->n < 2) {
    mp_errorf(err, "gen %s: -n must be >= 2", f);
    return false;
  }
  return true;
}

/* The canonical command line that makes the graph again (src) and the
 * graph's default name (nm). */
static void gen_describe(const mp_gen_opts *o, char *src, size_t src_cap, char *nm, size_t nm_cap) {
  const char *f = o->family;
  bool rw = !strcmp(f, "randwire");
  char pbuf[32], q1[32], q2[32];
  fmt_num(q1, sizeof q1, o->ws_prob);
  fmt_num(q2, sizeof q2, o->inplace_prob);
  char common[160];
  snprintf(common, sizeof common, "--ws-prob %s --inplace-prob %s --seed %llu", q1, q2,
           (unsigned long long)o->seed);
  char sizes[96];
  snprintf(sizes, sizeof sizes, "--min-size %lld --max-size %lld", (long long)o->min_size,
           (long long)o->max_size);
  if (rw) {
    fmt_num(pbuf, sizeof pbuf, o->p);
    char extra[80] = "";
    if (!strcmp(o->model, "ws")) snprintf(extra, sizeof extra, " -k %d -p %s", o->k, pbuf);
    if (!strcmp(o->model, "er")) snprintf(extra, sizeof extra, " -p %s", pbuf);
    if (!strcmp(o->model, "ba")) snprintf(extra, sizeof extra, " -m %d", o->m);
    snprintf(src, src_cap,
             "memplan gen randwire --model %s -n %d%s --channels %d --resolution %d --batch %d "
             "--dtype-bytes %d %s",
             o->model, o->n, extra, o->channels, o->resolution, o->batch, o->dtype_bytes, common);
    snprintf(nm, nm_cap, "randwire_%s_n%d_s%llu", o->model, o->n, (unsigned long long)o->seed);
  } else if (!strcmp(f, "nas")) {
    snprintf(src, src_cap,
             "memplan gen nas --cells %d --blocks %d --channels %d --resolution %d --batch %d "
             "--dtype-bytes %d %s",
             o->cells, o->blocks, o->channels, o->resolution, o->batch, o->dtype_bytes, common);
    snprintf(nm, nm_cap, "nas_c%d_b%d_s%llu", o->cells, o->blocks, (unsigned long long)o->seed);
  } else if (!strcmp(f, "layered")) {
    snprintf(src, src_cap, "memplan gen layered -n %d --layers %d --fan-in %d --span %d %s %s",
             o->n, o->layers, o->fan_in, o->span, sizes, common);
    snprintf(nm, nm_cap, "layered_n%d_s%llu", o->n, (unsigned long long)o->seed);
  } else if (!strcmp(f, "tree")) {
    fmt_num(pbuf, sizeof pbuf, o->input_prob);
    snprintf(src, src_cap, "memplan gen tree -n %d --fan-in %d --input-prob %s %s %s", o->n,
             o->fan_in, pbuf, sizes, common);
    snprintf(nm, nm_cap, "tree_n%d_s%llu", o->n, (unsigned long long)o->seed);
  } else if (!strcmp(f, "sp")) {
    fmt_num(pbuf, sizeof pbuf, o->par_prob);
    snprintf(src, src_cap, "memplan gen sp -n %d --par-prob %s %s %s", o->n, pbuf, sizes, common);
    snprintf(nm, nm_cap, "sp_n%d_s%llu", o->n, (unsigned long long)o->seed);
  } else {
    snprintf(src, src_cap, "memplan gen chain -n %d %s %s", o->n, sizes, common);
    snprintf(nm, nm_cap, "chain_n%d_s%llu", o->n, (unsigned long long)o->seed);
  }
}

/* Is `s` one shell word as it stands (no quoting needed)? */
static bool shell_plain(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:/+=@%", *s))
      return false;
  return true;
}

/* src plus " --name NAME" (name NULL: src alone), NAME in single quotes
 * (each ' as '\'') unless it is a plain shell word; malloc'ed. */
static char *with_name(const char *src, const char *name) {
  if (!name) return mp_xstrdup(src);
  size_t len = strlen(src) + strlen(" --name ''") + 1;
  for (const char *c = name; *c; c++) len += *c == '\'' ? 4 : 1;
  char *out = mp_xmalloc(len), *w = out + sprintf(out, "%s --name ", src);
  if (shell_plain(name)) {
    strcpy(w, name);
    return out;
  }
  *w++ = '\'';
  for (const char *c = name; *c; c++)
    if (*c == '\'') {
      memcpy(w, "'\\''", 4);
      w += 4;
    } else {
      *w++ = *c;
    }
  strcpy(w, "'");
  return out;
}

mp_graph *mp_gen(const mp_gen_opts *in, char **source, mp_error *err) {
  mp_gen_opts o = *in;
  const char *f = o.family;
  if (!mp_gen_family_known(f)) {
    mp_errorf(err, "gen: unknown family '%s' (randwire, nas, layered, tree, sp, chain)",
              f ? f : "(none)");
    return NULL;
  }
  gen_complete(&o);
  if (!gen_valid(&o, err)) return NULL;
  char src[512], nm[160];
  gen_describe(&o, src, sizeof src, nm, sizeof nm);
  if (o.backward) {
    size_t ls = strlen(src), ln = strlen(nm);
    snprintf(src + ls, sizeof src - ls, " --backward");
    snprintf(nm + ln, sizeof nm - ln, "_train");
  }
  if (source) *source = NULL;
  bool rw = !strcmp(f, "randwire");
  gb b;
  gb_init(&b, &o);
  b.g->name = mp_xstrdup(o.name ? o.name : nm);
  b.g->file = mp_xstrdup(b.g->name);
  int rc;
  if (rw) rc = gen_randwire(&b, err);
  else if (!strcmp(f, "nas")) rc = gen_nas(&b, err);
  else if (!strcmp(f, "layered")) rc = gen_layered(&b, err);
  else if (!strcmp(f, "tree")) rc = gen_tree(&b, err);
  else if (!strcmp(f, "sp")) rc = gen_sp(&b, err);
  else rc = gen_chain(&b, err);
  if (!rc && o.backward) rc = add_backward(&b, err);
  if (!rc) rc = mp_graph_finish(b.g, false, err);
  if (!rc) set_costs(b.g);
  if (rc) {
    gb_destroy(&b);
    return NULL;
  }
  mp_graph *g = b.g;
  b.g = NULL;
  gb_destroy(&b);
  if (source) *source = with_name(src, o.name);
  return g;
}
