/* remat_contract.c - see remat_contract.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_check.h"
#include "lib/remat_contract.h"
#include "lib/remat_strict.h"
#include "solver.h"

/* ---- what the cuts need to know about the order ---- */

typedef struct facts {
  const mp_graph *g;
  int N;          /* non-input positions */
  int nb;         /* tensor buffers */
  int *pos;       /* per node: its position, -1 for an input */
  int *node;      /* per position: the node */
  int *last;      /* per tensor buffer: last position that needs it (N: a graph output;
                     its owner's position when nothing reads it) */
  int64_t *cross; /* per position p: bytes made before p (inputs aside) needed at p or later */
  bool *fixed;    /* per position: a node of an in-place storage's alias set */
  bool *locked;   /* per position: an output node, a segment of its own */
} facts;

static void facts_init(facts *f, const mp_graph *g, const int *order) {
  int n = g->n;
  memset(f, 0, sizeof *f);
  f->g = g;
  for (int b = 0; b < g->n_buf; b++) f->nb += g->bufs[b].kind == MP_BUF_TENSOR;
  f->pos = mp_xmalloc(sizeof(int) * (size_t)(n + 1));
  f->node = mp_xmalloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    int v = order[i];
    f->pos[v] = g->nodes[v].is_input ? -1 : f->N;
    if (!g->nodes[v].is_input) f->node[f->N++] = v;
  }
  bool *inplace_buf = mp_xcalloc((size_t)g->n_buf + 1, sizeof(bool));
  bool *inplace_node = mp_xcalloc((size_t)n + 1, sizeof(bool));
  mp_remat_inplace(g, inplace_buf, inplace_node);
  f->fixed = mp_xcalloc((size_t)f->N + 1, sizeof(bool));
  f->locked = mp_xcalloc((size_t)f->N + 1, sizeof(bool));
  for (int p = 0; p < f->N; p++) {
    f->fixed[p] = inplace_node[f->node[p]];
    f->locked[p] = g->nodes[f->node[p]].is_output;
  }
  free(inplace_buf);
  free(inplace_node);
  f->last = mp_xmalloc(sizeof(int) * (size_t)(f->nb + 1));
  int64_t *diff = mp_xcalloc((size_t)f->N + 2, sizeof(int64_t));
  for (int b = 0; b < f->nb; b++) {
    const mp_buffer *bb = &g->bufs[b];
    int own = bb->born_at_start ? -1 : f->pos[bb->owner], L = own;
    for (int i = 0; i < bb->n_readers; i++)
      if (f->pos[bb->readers[i]] > L) L = f->pos[bb->readers[i]];
    if (bb->graph_output) L = f->N;
    f->last[b] = L;
    if (own >= 0 && L > own) {
      diff[own + 1] += bb->size;
      diff[L + 1] -= bb->size;
    }
  }
  f->cross = mp_xcalloc((size_t)f->N + 1, sizeof(int64_t));
  int64_t run = 0;
  for (int p = 0; p <= f->N; p++) f->cross[p] = run += diff[p];
  free(diff);
}

static void facts_destroy(facts *f) {
  free(f->pos);
  free(f->node);
  free(f->last);
  free(f->cross);
  free(f->fixed);
  free(f->locked);
}

/* The tensor buffers node v owns: *n of them in out (room for n_out). */
static int owned(const mp_graph *g, int v, int *out) {
  int n = 0;
  if (g->nodes[v].has_alias) return 0;
  for (int k = 0; k < g->nodes[v].n_out; k++)
    if (g->root_of[v][k] >= 0) out[n++] = g->root_of[v][k];
  return n;
}

/* ---- the cuts: adjacent segments merge, cheapest first ---- */

typedef struct cuts {
  const facts *f;
  int64_t budget;
  double window;    /* N / segments: the length a segment should have */
  int64_t maxcross;
  int64_t maxlived; /* the largest lived of one position (at least 1) */
  int *end;         /* per segment start: its end (exclusive) */
  int *prev;        /* per segment start: the previous segment's start, -1 */
  bool *fixed;      /* per segment start */
  int64_t *lived;   /* per segment start: bytes it makes that a node a window past its end
                       reads (graph outputs aside: a rerun would not free them for long) */
  double *score;    /* per segment start: the cost of merging it with the next */
  int64_t *pinned;  /* per position: bytes live there that nothing can make again
                       (made by an input or a fixed segment), an over-estimate */
  int *own;         /* per tensor buffer: its owner's position, -1 for an input's */
  int *dies_start, *dies; /* per position: the buffers whose last position it is (CSR) */
  int *seen, stamp; /* per tensor buffer: counted in the need being summed */
  int *buf;         /* scratch: a node's owned buffers */
} cuts;

static int64_t long_lived(const cuts *c, int a) {
  const facts *f = c->f;
  int e = c->end[a];
  int64_t s = 0;
  for (int p = a; p < e; p++) {
    int n = owned(f->g, f->node[p], c->buf);
    for (int i = 0; i < n; i++)
      if (f->last[c->buf[i]] >= e + c->window && !f->g->bufs[c->buf[i]].graph_output)
        s += f->g->bufs[c->buf[i]].size;
  }
  return s;
}

/* What a segment of positions [a, e) needs when it runs in the contracted
 * graph: what it reads from outside, plus the larger of its crossing
 * outputs and what its nodes hold at their worst step (its workspace then). */
static int64_t range_need(cuts *c, int a, int e) {
  const facts *f = c->f;
  const mp_graph *g = f->g;
  int64_t ext = 0, out = 0, live = 0, worst = 0;
  c->stamp++;
  for (int p = a; p < e; p++) {
    int v = f->node[p];
    for (int i = 0; i < g->n_reads[v]; i++) {
      int x = g->reads[v][i];
      if (c->own[x] < a && c->seen[x] != c->stamp) {
        c->seen[x] = c->stamp;
        ext += g->bufs[x].size;
      }
    }
    int n = owned(g, v, c->buf);
    for (int i = 0; i < n; i++) {
      live += g->bufs[c->buf[i]].size;
      if (f->last[c->buf[i]] >= e) out += g->bufs[c->buf[i]].size;
    }
    int64_t held = live + (g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0);
    if (held > worst) worst = held;
    for (int i = c->dies_start[p]; i < c->dies_start[p + 1]; i++)
      if (c->own[c->dies[i]] >= a) live -= g->bufs[c->dies[i]].size;
  }
  return ext + (out > worst ? out : worst);
}

/* Pin the buffers positions [a, e) make that live past e: add them to the
 * pinned profile (add > 0) or take them out (add < 0); with add == 0 only
 * the largest pinned bytes they would make, over their ranges. */
static int64_t pin_range(cuts *c, int a, int e, int add) {
  const facts *f = c->f;
  int64_t top = 0;
  for (int p = a; p < e; p++) {
    int n = owned(f->g, f->node[p], c->buf);
    for (int i = 0; i < n; i++) {
      int x = c->buf[i], L = f->last[x] < f->N ? f->last[x] : f->N - 1;
      if (L < e) continue;
      int64_t sz = f->g->bufs[x].size;
      for (int q = p; q <= L; q++) {
        if (add) c->pinned[q] += add * sz;
        else if (c->pinned[q] + sz > top) top = c->pinned[q] + sz;
      }
    }
  }
  return top;
}

/* Merging segment a with the next: the length made (in windows), plus what
 * crosses the cut removed (a cut where little crosses is kept: 1 - share),
 * plus, when a rerunnable segment would be pinned with a fixed one, 0.5 and
 * up to 6 more by the bytes it makes that are read a window later.  Last
 * (LAST_RESORT more) when the segment would need more than half the budget
 * and more than either part (what else is resident then counts too), or
 * pinned bytes would pass 0.9 x the budget somewhere; never (INFINITY) when
 * it would need more than the budget. */
enum { LAST_RESORT = 1000 };
static double merge_score(cuts *c, int a) {
  const facts *f = c->f;
  int b = c->end[a];
  if (b >= f->N || f->locked[a] || f->locked[b]) return INFINITY;
  int64_t need = range_need(c, a, c->end[b]);
  if (need > c->budget) return INFINITY;
  double s = (double)(c->end[b] - a) / c->window;
  s += c->maxcross > 0 ? 1.0 - (double)f->cross[b] / (double)c->maxcross : 1.0;
  if (need > c->budget / 2 && need > range_need(c, a, b) && need > range_need(c, b, c->end[b]))
    s += LAST_RESORT;
  if (c->fixed[a] != c->fixed[b]) {
    int loose = c->fixed[a] ? b : a;
    if (pin_range(c, loose, c->end[loose], 0) > 0.9 * (double)c->budget) s += LAST_RESORT;
    s += 0.5 + 6.0 * (double)c->lived[loose] / (double)c->maxlived;
  }
  return s;
}

static void cuts_init(cuts *c, const facts *f, int segments, int64_t budget) {
  const mp_graph *g = f->g;
  int N = f->N;
  memset(c, 0, sizeof *c);
  c->f = f;
  c->budget = budget;
  c->window = (double)N / (segments > 0 ? segments : 1);
  if (c->window < 1) c->window = 1;
  c->end = mp_xmalloc(sizeof(int) * (size_t)(N + 1));
  c->prev = mp_xmalloc(sizeof(int) * (size_t)(N + 1));
  c->fixed = mp_xmalloc(sizeof(bool) * (size_t)(N + 1));
  c->lived = mp_xmalloc(sizeof(int64_t) * (size_t)(N + 1));
  c->score = mp_xmalloc(sizeof(double) * (size_t)(N + 1));
  c->pinned = mp_xcalloc((size_t)N + 1, sizeof(int64_t));
  c->own = mp_xmalloc(sizeof(int) * (size_t)(f->nb + 1));
  c->seen = mp_xcalloc((size_t)f->nb + 1, sizeof(int));
  c->dies_start = mp_xcalloc((size_t)N + 2, sizeof(int));
  c->dies = mp_xmalloc(sizeof(int) * (size_t)(f->nb + 1));
  int maxout = 1;
  for (int v = 0; v < g->n; v++)
    if (g->nodes[v].n_out > maxout) maxout = g->nodes[v].n_out;
  c->buf = mp_xmalloc(sizeof(int) * (size_t)maxout);
  for (int x = 0; x < f->nb; x++) {
    c->own[x] = g->bufs[x].born_at_start ? -1 : f->pos[g->bufs[x].owner];
    if (f->last[x] >= 0 && f->last[x] < N) c->dies_start[f->last[x] + 1]++;
  }
  for (int p = 0; p < N; p++) c->dies_start[p + 1] += c->dies_start[p];
  int *fill = mp_xcalloc((size_t)N + 1, sizeof(int));
  for (int x = 0; x < f->nb; x++)
    if (f->last[x] >= 0 && f->last[x] < N) c->dies[c->dies_start[f->last[x]] + fill[f->last[x]]++] = x;
  free(fill);
  for (int x = 0; x < f->nb; x++) /* an input's buffers stay until their last reader */
    if (c->own[x] < 0)
      for (int q = 0; q <= f->last[x] && q < N; q++) c->pinned[q] += g->bufs[x].size;
  for (int p = 0; p <= N; p++)
    if (f->cross[p] > c->maxcross) c->maxcross = f->cross[p];
  c->maxlived = 1;
  for (int p = 0; p < N; p++) {
    c->end[p] = p + 1;
    c->prev[p] = p - 1;
    c->fixed[p] = f->fixed[p];
    if ((c->lived[p] = long_lived(c, p)) > c->maxlived) c->maxlived = c->lived[p];
    if (c->fixed[p]) pin_range(c, p, p + 1, 1);
  }
  for (int p = 0; p < N; p++) c->score[p] = merge_score(c, p);
}

static void cuts_destroy(cuts *c) {
  free(c->end);
  free(c->prev);
  free(c->fixed);
  free(c->lived);
  free(c->score);
  free(c->pinned);
  free(c->own);
  free(c->seen);
  free(c->dies_start);
  free(c->dies);
  free(c->buf);
}

/* The cheapest merge; a mixed one's score is computed again first (the
 * pinned profile only grows, so a stale score is too low).  -1: none. */
static int cheapest(cuts *c) {
  for (;;) {
    int best = -1;
    for (int a = 0; a < c->f->N; a = c->end[a])
      if (isfinite(c->score[a]) && (best < 0 || c->score[a] < c->score[best])) best = a;
    if (best < 0 || c->fixed[best] == c->fixed[c->end[best]]) return best;
    double now = merge_score(c, best);
    if (now == c->score[best]) return best;
    c->score[best] = now;
  }
}

static void merge(cuts *c, int a) {
  int b = c->end[a], N = c->f->N;
  if (c->fixed[a] != c->fixed[b]) { /* the rerunnable side is pinned now */
    int loose = c->fixed[a] ? b : a;
    pin_range(c, loose, c->end[loose], 1);
  }
  c->end[a] = c->end[b];
  c->fixed[a] = c->fixed[a] || c->fixed[b];
  if (c->end[a] < N) c->prev[c->end[a]] = a;
  c->lived[a] = long_lived(c, a);
  c->score[a] = merge_score(c, a);
  if (c->prev[a] >= 0) c->score[c->prev[a]] = merge_score(c, c->prev[a]);
}

/* seg_start[0..k] of at most `segments` segments (more when output nodes,
 * the budget or the pinned bytes forbid merges); k. */
static int choose_cuts(const facts *f, int segments, int64_t budget, int *seg_start) {
  cuts c;
  cuts_init(&c, f, segments, budget);
  int count = f->N, best;
  while (count > segments && (best = cheapest(&c)) >= 0) {
    merge(&c, best);
    count--;
  }
  int k = 0;
  for (int a = 0; a < f->N; a = c.end[a]) seg_start[k++] = a;
  seg_start[k] = f->N;
  cuts_destroy(&c);
  return k;
}

/* ---- the contracted graph ---- */

typedef struct builder {
  const facts *f;
  rc_contract *r;
  mp_graph *cg;
  int *seg_pos;   /* per position: its segment */
  int *seg_buf;   /* per tensor buffer: its owner's segment, -1 for an input's */
  bool *crossing; /* per tensor buffer: made by an input, or needed outside its segment */
  mp_ref *at;     /* per crossing tensor buffer: the contracted output that holds it */
  int *scratch;   /* buffers, one per tensor buffer */
} builder;

static mp_node *new_node(builder *b, const char *op, const char *name, double cost) {
  mp_graph *cg = b->cg;
  int v = cg->n++;
  mp_node *nd = &cg->nodes[v];
  memset(nd, 0, sizeof *nd);
  nd->id = v;
  cg->given[v] = v;
  nd->name = mp_bump_strdup(&cg->mem, name);
  nd->op = mp_bump_intern(&cg->mem, op);
  nd->is_input = !strcmp(op, "input");
  nd->is_output = !strcmp(op, "output");
  nd->cost = cost;
  nd->has_cost = true;
  b->r->seg_of[v] = -1;
  return nd;
}

/* A node's inputs: one reference per contracted buffer in bufs. */
static void set_inputs(builder *b, mp_node *nd, const int *bufs, int n) {
  nd->n_in = n;
  nd->in = mp_bump_array(&b->cg->mem, (size_t)(n ? n : 1), sizeof(mp_ref));
  for (int i = 0; i < n; i++) nd->in[i] = b->at[bufs[i]];
}

static void set_outputs(builder *b, mp_node *nd, const int64_t *size, int n) {
  nd->n_out = n;
  nd->out_size = mp_bump_array(&b->cg->mem, (size_t)(n ? n : 1), sizeof(int64_t));
  for (int i = 0; i < n; i++) nd->out_size[i] = size[i];
}

static void add_inputs(builder *b, const int *order) {
  const mp_graph *g = b->f->g;
  for (int i = 0; i < g->n; i++) {
    int u = order[i];
    const mp_node *o = &g->nodes[u];
    if (!o->is_input) continue;
    mp_node *nd = new_node(b, "input", o->name, o->cost);
    set_outputs(b, nd, o->out_size, o->n_out);
    for (int k = 0; k < o->n_out; k++)
      if (g->root_of[u][k] >= 0) b->at[g->root_of[u][k]] = (mp_ref){nd->id, k};
  }
}

static int cmp_int(const void *x, const void *y) {
  int a = *(const int *)x, c = *(const int *)y;
  return (a > c) - (a < c);
}

/* The distinct buffers segment s reads that are made outside it, sorted. */
static int external_reads(builder *b, int s, int *out) {
  const facts *f = b->f;
  const mp_graph *g = f->g;
  int n = 0;
  for (int p = b->r->seg_start[s]; p < b->r->seg_start[s + 1]; p++) {
    int v = f->node[p];
    for (int i = 0; i < g->n_reads[v]; i++) {
      int x = g->reads[v][i];
      if (b->seg_buf[x] != s) out[n++] = x;
    }
  }
  qsort(out, (size_t)n, sizeof(int), cmp_int);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (m == 0 || out[m - 1] != out[i]) out[m++] = out[i];
  return m;
}

/* What the segment's nodes hold at their worst step beyond its crossing
 * outputs: buffers made inside and live, plus the node's workspace. */
static int64_t segment_workspace(const builder *b, int s, int64_t crossing_out) {
  const facts *f = b->f;
  const mp_graph *g = f->g;
  const rc_contract *r = b->r;
  int64_t live = 0, worst = 0;
  for (int p = r->seg_start[s]; p < r->seg_start[s + 1]; p++) {
    int v = f->node[p];
    int n = owned(g, v, b->scratch);
    for (int i = 0; i < n; i++) live += g->bufs[b->scratch[i]].size;
    int64_t held = live + (g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0);
    if (held > worst) worst = held;
    for (int i = r->free_start[p]; i < r->free_start[p + 1]; i++) live -= g->bufs[r->free_buf[i]].size;
  }
  return worst > crossing_out ? worst - crossing_out : 0;
}

static bool segment_fixed(const builder *b, int s) {
  for (int p = b->r->seg_start[s]; p < b->r->seg_start[s + 1]; p++)
    if (b->f->fixed[p]) return true;
  return false;
}

static void add_segment(builder *b, int s) {
  const facts *f = b->f;
  const mp_graph *g = f->g;
  rc_contract *r = b->r;
  int a = r->seg_start[s], e = r->seg_start[s + 1];
  int n_in = external_reads(b, s, b->scratch);
  if (e - a == 1 && g->nodes[f->node[a]].is_output) {
    const mp_node *o = &g->nodes[f->node[a]];
    mp_node *nd = new_node(b, "output", o->name, o->cost);
    set_inputs(b, nd, b->scratch, n_in);
    r->seg_of[nd->id] = s;
    return;
  }
  double cost = 0;
  for (int p = a; p < e; p++) cost += g->nodes[f->node[p]].cost;
  char name[64];
  snprintf(name, sizeof name, "seg%d[%d..%d]", s, a, e - 1);
  mp_node *nd = new_node(b, "segment", name, cost);
  r->seg_of[nd->id] = s;
  set_inputs(b, nd, b->scratch, n_in);
  int n_out = 0;
  for (int p = a; p < e; p++) {
    int *mine = b->scratch + n_out, k = owned(g, f->node[p], mine), kept = 0;
    for (int i = 0; i < k; i++)
      if (b->crossing[mine[i]]) mine[kept++] = mine[i];
    n_out += kept;
  }
  qsort(b->scratch, (size_t)n_out, sizeof(int), cmp_int);
  int64_t *size = mp_xmalloc(sizeof(int64_t) * (size_t)(n_out + 1)), total = 0;
  for (int i = 0; i < n_out; i++) {
    size[i] = g->bufs[b->scratch[i]].size;
    total += size[i];
    b->at[b->scratch[i]] = (mp_ref){nd->id, i};
  }
  set_outputs(b, nd, size, n_out);
  nd->workspace = segment_workspace(b, s, total);
  free(size);
  if (n_out > 0 && segment_fixed(b, s)) { /* runs exactly once, as its nodes must */
    int id = nd->id;
    mp_node *pin = new_node(b, "pin", "pin", 0);
    pin->has_alias = pin->inplace = true;
    pin->alias = (mp_ref){id, 0};
    pin->n_in = 1;
    pin->in = mp_bump_array(&b->cg->mem, 1, sizeof(mp_ref));
    pin->in[0] = pin->alias;
    set_outputs(b, pin, b->cg->nodes[id].out_size, 1);
    r->n_pin++;
  }
}

/* Without an output node, the graph outputs are the sinks' outputs, which a
 * segment may hide: an output node names them.  Even none: a graph whose
 * sinks own no buffer (a last in-place update of a parameter) has no graph
 * output, while its contraction's sinks would make some. */
static void add_output_node(builder *b) {
  const mp_graph *g = b->f->g;
  for (int v = 0; v < g->n; v++)
    if (g->nodes[v].is_output) return;
  int n = 0;
  for (int x = 0; x < b->f->nb; x++)
    if (g->bufs[x].graph_output) b->scratch[n++] = x;
  mp_node *nd = new_node(b, "output", "outputs", 0);
  set_inputs(b, nd, b->scratch, n);
}

/* Per position, the internal buffers freed after its run (CSR), and which
 * buffers cross. */
static void classify(builder *b) {
  const facts *f = b->f;
  const mp_graph *g = f->g;
  rc_contract *r = b->r;
  int *count = mp_xcalloc((size_t)f->N + 1, sizeof(int));
  for (int x = 0; x < f->nb; x++) {
    const mp_buffer *bb = &g->bufs[x];
    b->seg_buf[x] = bb->born_at_start ? -1 : b->seg_pos[f->pos[bb->owner]];
    bool cross = bb->born_at_start || bb->graph_output;
    for (int i = 0; i < bb->n_readers && !cross; i++) { /* an input never runs: no read */
      int q = f->pos[bb->readers[i]];
      cross = q >= 0 && b->seg_pos[q] != b->seg_buf[x];
    }
    b->crossing[x] = cross;
    if (!cross) count[f->last[x]]++;
  }
  r->free_start = mp_xcalloc((size_t)f->N + 1, sizeof(int));
  for (int p = 0; p < f->N; p++) r->free_start[p + 1] = r->free_start[p] + count[p];
  r->free_buf = mp_xmalloc(sizeof(int) * (size_t)(r->free_start[f->N] + 1));
  memset(count, 0, sizeof(int) * (size_t)(f->N + 1));
  for (int x = 0; x < f->nb; x++) /* increasing id: each list sorted */
    if (!b->crossing[x]) r->free_buf[r->free_start[f->last[x]] + count[f->last[x]]++] = x;
  free(count);
}

/* Every contracted tensor buffer names the original one it holds, and a
 * graph output of one is a graph output of the other. */
static int map_buffers(builder *b, mp_error *err) {
  const mp_graph *g = b->f->g, *cg = b->cg;
  int cnb = 0;
  for (int x = 0; x < cg->n_buf; x++) cnb += cg->bufs[x].kind == MP_BUF_TENSOR;
  b->r->orig_buf = mp_xmalloc(sizeof(int) * (size_t)(cnb + 1));
  for (int x = 0; x < cnb; x++) b->r->orig_buf[x] = -1;
  for (int x = 0; x < b->f->nb; x++) {
    if (!b->crossing[x]) continue;
    int cx = cg->root_of[b->at[x].node][b->at[x].out];
    if (cx < 0 || cx >= cnb || cg->bufs[cx].graph_output != g->bufs[x].graph_output)
      return mp_errorf(err, "contraction: buffer %d does not map", x);
    b->r->orig_buf[cx] = x;
  }
  for (int x = 0; x < cnb; x++)
    if (b->r->orig_buf[x] < 0) return mp_errorf(err, "contraction: buffer %d has no original", x);
  return 0;
}

static void build_graph(builder *b, const int *order) {
  const mp_graph *g = b->f->g;
  rc_contract *r = b->r;
  int cap = g->n + 2 * r->n_seg + 2;
  mp_graph *cg = b->cg = r->cg = mp_xcalloc(1, sizeof(mp_graph));
  cg->name = mp_xstrdup("contracted");
  cg->file = mp_xstrdup("contracted");
  cg->nodes = mp_xcalloc((size_t)cap, sizeof(mp_node));
  cg->given = mp_xmalloc(sizeof(int) * (size_t)cap);
  cg->param_bytes = g->param_bytes;
  cg->host_bandwidth = g->host_bandwidth;
  r->seg_of = mp_xmalloc(sizeof(int) * (size_t)cap);
  add_inputs(b, order);
  for (int s = 0; s < r->n_seg; s++) add_segment(b, s);
  add_output_node(b);
  r->corder = mp_xmalloc(sizeof(int) * (size_t)(cg->n + 1));
  for (int v = 0; v < cg->n; v++) r->corder[v] = v;
}

int rc_build(rc_contract *r, const mp_graph *g, const int *order, int segments, int64_t budget,
             mp_error *err) {
  memset(r, 0, sizeof *r);
  r->g = g;
  facts f;
  facts_init(&f, g, order);
  r->seg_start = mp_xmalloc(sizeof(int) * (size_t)(f.N + 2));
  r->n_seg = choose_cuts(&f, segments, budget, r->seg_start);
  r->node = mp_xmalloc(sizeof(int) * (size_t)(f.N + 1));
  memcpy(r->node, f.node, sizeof(int) * (size_t)f.N);
  builder b = {.f = &f, .r = r};
  b.seg_pos = mp_xmalloc(sizeof(int) * (size_t)(f.N + 1));
  for (int s = 0; s < r->n_seg; s++)
    for (int p = r->seg_start[s]; p < r->seg_start[s + 1]; p++) b.seg_pos[p] = s;
  b.seg_buf = mp_xmalloc(sizeof(int) * (size_t)(f.nb + 1));
  b.crossing = mp_xcalloc((size_t)f.nb + 1, sizeof(bool));
  b.at = mp_xcalloc((size_t)f.nb + 1, sizeof(mp_ref));
  int scratch = f.nb + 1;
  for (int v = 0; v < g->n; v++) scratch += g->n_reads[v] + g->nodes[v].n_out;
  b.scratch = mp_xmalloc(sizeof(int) * (size_t)scratch);
  classify(&b);
  build_graph(&b, order);
  int rc = mp_graph_finish(r->cg, false, err);
  if (rc == 0) rc = map_buffers(&b, err);
  free(b.seg_pos);
  free(b.seg_buf);
  free(b.crossing);
  free(b.at);
  free(b.scratch);
  facts_destroy(&f);
  if (rc) rc_destroy(r);
  return rc;
}

void rc_destroy(rc_contract *r) {
  mp_graph_destroy(r->cg);
  free(r->corder);
  free(r->seg_start);
  free(r->node);
  free(r->seg_of);
  free(r->orig_buf);
  free(r->free_start);
  free(r->free_buf);
  free(r->inert);
  memset(r, 0, sizeof *r);
}

void rc_expand(const rc_contract *r, const mp_events *cp, mp_events *out) {
  mp_events_clear(out);
  uint8_t *ran = mp_xcalloc((size_t)r->n_seg + 1, 1);
  for (int i = 0; i < cp->n; i++) {
    mp_event e = cp->ev[i];
    if (e.kind != MP_EV_RUN) {
      mp_events_push(out, e.kind, r->orig_buf[e.id]);
      continue;
    }
    int s = r->seg_of[e.id];
    if (s < 0) continue; /* a pin or the added output node */
    bool again = ran[s] != 0;
    ran[s] = 1;
    for (int p = r->seg_start[s]; p < r->seg_start[s + 1]; p++) {
      if (!again || !r->inert || !r->inert[p]) /* (rc_strict_inert) */
        mp_events_push(out, MP_EV_RUN, r->node[p]);
      for (int j = r->free_start[p]; j < r->free_start[p + 1]; j++)
        mp_events_push(out, MP_EV_FREE, r->free_buf[j]);
    }
  }
  free(ran);
}

/* ---- solving on the contraction ---- */

int rc_stages(const mp_graph *g) {
  int stages = 0;
  for (int v = 0; v < g->n; v++) stages += !g->nodes[v].is_input;
  return stages;
}

bool rc_wanted(const mp_graph *g, double above) { return above > 0 && rc_stages(g) > above; }

/* Does any node run twice? */
static bool reruns(const mp_graph *g, const mp_events *p) {
  uint8_t *ran = mp_xcalloc((size_t)g->n + 1, 1);
  bool again = false;
  for (int i = 0; i < p->n && !again; i++)
    if (p->ev[i].kind == MP_EV_RUN) again = ran[p->ev[i].id]++ > 0;
  free(ran);
  return again;
}

/* The contracted plan expanded into c->events, checked and held to the
 * budget, with its status; 0, or -1 (the plan discarded). */
static int take_plan(mp_ctx *c, const rc_contract *r, const mp_ctx *sub, const char *what) {
  rc_expand(r, sub->events, c->events);
  int64_t peak = 0;
  mp_error err;
  bool valid = mp_remat_check(c->g, c->start_order, c->events, false, &peak, &err) == 0;
  if (!valid || peak > c->budget) {
    if (valid) snprintf(err.msg, sizeof err.msg, "peak %lld over the budget", (long long)peak);
    mp_events_clear(c->events);
    snprintf(c->msg, sizeof c->msg, "the plan of %s failed its own check: %.150s", what, err.msg);
    return -1;
  }
  if (!reruns(c->g, c->events)) {
    c->status = MP_OPTIMAL; /* every node once: the duration floor */
    return 0;
  }
  c->status = sub->status == MP_TIMEOUT ? MP_TIMEOUT : MP_FEASIBLE;
  snprintf(c->msg, sizeof c->msg, "plan of %s, expanded; every plan takes at least %.6g (on the "
           "contraction: %.100s)", what, c->duration_bound, sub->msg);
  return 0;
}

/* One contraction into `segments` segments, solved and expanded: 0, or -1
 * with *finer set when a finer contraction may find a plan (the one tried
 * has none, the time limit and the size caps aside). */
static int solve_once(mp_ctx *c, int segments, const int *orig_cap, rc_inner inner, int *n_seg,
                      bool *finer) {
  rc_contract r;
  mp_error err;
  *finer = false;
  mp_events_clear(c->events);
  if (rc_build(&r, c->g, c->start_order, segments, c->budget, &err)) {
    snprintf(c->msg, sizeof c->msg, "%.200s", err.msg);
    return -1;
  }
  *n_seg = r.n_seg;
  mp_events cev;
  mp_events_init(&cev);
  mp_ctx sub = *c;
  sub.g = r.cg;
  sub.start_order = r.corder;
  sub.events = &cev;
  sub.start_events = NULL; /* a plan of the original graph, no plan of this one */
  sub.write_lp = NULL;
  sub.msg[0] = 0;
  sub.duration_bound = c->duration_bound; /* the duration floor: the same sum of costs */
  char what[64];
  snprintf(what, sizeof what, "a %d-segment contraction of the order", r.n_seg);
  int *ccap = NULL;
  r.inert = rc_strict_inert(&r); /* strict or not: a writer run twice writes twice */
  if (orig_cap) {
    ccap = mp_xmalloc(sizeof(int) * ((size_t)r.cg->n + 1));
    rc_strict_caps(&r, orig_cap, ccap);
  }
  int rc = inner(&sub, ccap);
  free(ccap);
  if (rc == 0 && sub.status == MP_INFEASIBLE) { /* a claim about the contraction alone */
    rc = -1;
    sub.status = c->status;
  }
  if (rc == 0) {
    rc = take_plan(c, &r, &sub, what);
  } else {
    *finer = sub.status != MP_REFUSED && sub.status != MP_TIMEOUT;
    if (!*finer) c->status = sub.status;
    snprintf(c->msg, sizeof c->msg, "no plan from %s: %.150s", what, sub.msg);
  }
  mp_events_destroy(&cev);
  rc_destroy(&r);
  return rc;
}

int rc_solve(mp_ctx *c, int segments, bool strict, rc_inner inner) {
  int stages = rc_stages(c->g), n_seg = 0, rc;
  int *cap = NULL;
  if (strict) {
    cap = mp_xmalloc(sizeof(int) * ((size_t)stages + 1));
    rs_strict_caps(c->g, c->start_order, cap);
  }
  bool finer;
  while ((rc = solve_once(c, segments, cap, inner, &n_seg, &finer)) != 0 && finer && !mp_time_up(c) &&
         n_seg < stages && segments < stages)
    segments *= 2; /* too coarse for the budget: twice as many segments */
  free(cap);
  if (rc != 0 && finer && mp_time_up(c)) c->status = MP_TIMEOUT; /* no time for a finer one */
  return rc;
}
