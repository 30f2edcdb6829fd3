/* graph.c - derived structure of a graph: buffers and alias roots, readers,
 * graph outputs, data and in-place edges, validation (DESIGN 1.1, 1.2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "storage.h"
#include "util.h"

static const char *node_label(const mp_graph *g, int v, char *buf, size_t cap) {
  const mp_node *nd = &g->nodes[v];
  if (nd->name && *nd->name)
    snprintf(buf, cap, "node %d (%s)", v, nd->name);
  else
    snprintf(buf, cap, "node %d", v);
  return buf;
}

/* Does input reference `in` name the tensor the alias `al` names? */
static bool ref_covers(const mp_graph *g, mp_ref in, mp_ref al) {
  if (in.node != al.node) return false;
  if (in.out == al.out) return true;
  if (in.out == MP_ALL_OUTPUTS) return true; /* `j` reads every output */
  /* alias `j` on a single-output node equals `[j, 0]` */
  return al.out == MP_ALL_OUTPUTS && g->nodes[al.node].n_out <= 1 && in.out == 0;
}

/* Node j has `outputs: []`: the tensor it views, following views with
 * `outputs: []` on ({node, out} with out resolved to a number), or
 * {MP_PARAM_ALIAS, the view of a parameter}, or {-2, 0}: no view.  Naming
 * j reads that storage (DESIGN 1.2: a buffer is read through any node of its
 * alias set), though it names no tensor.  Alias cycles are refused before. */
static mp_ref through_empty_views(const mp_graph *g, int j) {
  while (g->nodes[j].n_out == 0) {
    const mp_node *e = &g->nodes[j];
    if (!e->has_alias) return (mp_ref){-2, 0};
    if (e->alias.node == MP_PARAM_ALIAS) return (mp_ref){MP_PARAM_ALIAS, j};
    if (g->nodes[e->alias.node].n_out > 0)
      return (mp_ref){e->alias.node, e->alias.out == MP_ALL_OUTPUTS ? 0 : e->alias.out};
    j = e->alias.node;
  }
  return (mp_ref){j, 0};
}

/* Resolve the storage root of output k of v (memoised in root_of): follow
 * the alias links to the tensor that owns storage.  A loop, not recursion:
 * a chain of a million views must not overflow the stack.  pv/pk hold the
 * path (at most n nodes: alias cycles are rejected before). */
static int resolve_root(mp_graph *g, int v, int k, int *pv, int *pk) {
  int len = 0, r;
  for (;;) {
    if (g->root_of[v][k] != -3) {
      r = g->root_of[v][k];
      break;
    }
    const mp_node *nd = &g->nodes[v];
    pv[len] = v;
    pk[len] = k;
    if (++len > g->n || nd->alias.node == MP_PARAM_ALIAS) {
      r = nd->alias.node == MP_PARAM_ALIAS ? MP_PARAM_BUFFER : MP_NO_BUFFER;
      break;
    }
    mp_ref a = {nd->alias.node, nd->alias.out == MP_ALL_OUTPUTS ? 0 : nd->alias.out};
    /* a view with `outputs: []` has no slot: the chain goes on through it */
    if (g->nodes[a.node].n_out == 0) a = through_empty_views(g, a.node);
    if (a.node < 0) {
      r = a.node == MP_PARAM_ALIAS ? MP_PARAM_BUFFER : MP_NO_BUFFER;
      break;
    }
    v = a.node;
    k = a.out;
  }
  while (len > 0) {
    len--;
    g->root_of[pv[len]][pk[len]] = r;
  }
  return r;
}

void mp_graph_destroy(mp_graph *g) {
  if (!g) return;
  free(g->nodes);
  free(g->given);
  free(g->bufs);
  free(g->root_of);
  free(g->ws_buf);
  free(g->n_reads);
  free(g->reads);
  free(g->n_succ);
  free(g->succ);
  free(g->n_pred);
  free(g->pred);
  mp_bump_free(&g->mem);
  free(g->name);
  free(g->file);
  free(g);
}

/* Edge list helper */
typedef struct edges {
  int n, cap;
  int *from, *to;
} edges;

static void edge_add(edges *e, int a, int b) {
  if (e->n == e->cap) {
    e->cap = e->cap ? 2 * e->cap : 64;
    e->from = mp_xrealloc(e->from, sizeof(int) * (size_t)e->cap);
    e->to = mp_xrealloc(e->to, sizeof(int) * (size_t)e->cap);
  }
  e->from[e->n] = a;
  e->to[e->n] = b;
  e->n++;
}

/* Room for cap edges at once: the lists of 10^5 nodes grown by doubling
 * were copied a dozen times and faulted in afresh each time. */
static void edges_reserve(edges *e, int64_t cap) {
  if (cap <= e->cap) return;
  e->cap = (int)(cap < 64 ? 64 : cap);
  e->from = mp_xrealloc(e->from, sizeof(int) * (size_t)e->cap);
  e->to = mp_xrealloc(e->to, sizeof(int) * (size_t)e->cap);
}

/* Per-node lists from an edge list, deduplicated, one after another in a
 * single block of mem. */
static void build_adj(int n, const edges *e, int **cnt, int ***lists, bool succ, mp_bump *mem) {
  int *c = mp_xcalloc((size_t)n, sizeof(int));
  for (int i = 0; i < e->n; i++) c[succ ? e->from[i] : e->to[i]]++;
  int **l = mp_xcalloc((size_t)n, sizeof(int *));
  int *raw = mp_xmalloc(sizeof(int) * (size_t)(e->n ? e->n : 1)); /* duplicates included */
  for (int v = 0, at = 0; v < n; at += c[v++]) l[v] = raw + at;
  int *fill = mp_xcalloc((size_t)n, sizeof(int));
  for (int i = 0; i < e->n; i++) {
    int a = succ ? e->from[i] : e->to[i], b = succ ? e->to[i] : e->from[i];
    l[a][fill[a]++] = b;
  }
  size_t total = 0;
  for (int v = 0; v < n; v++) total += (size_t)(c[v] = mp_sort_unique_ints(l[v], fill[v]));
  int *block = mp_bump_array(mem, total, sizeof(int));
  for (int v = 0, at = 0; v < n; at += c[v++]) {
    memcpy(block + at, l[v], sizeof(int) * (size_t)c[v]);
    l[v] = block + at;
  }
  free(raw);
  free(fill);
  *cnt = c;
  *lists = l;
}

/* Find a node on a cycle among nodes Kahn's algorithm could not remove. */
static int node_on_cycle(const mp_graph *g, const int *indeg_left, int **pred,
                         const int *n_pred) {
  int start = -1;
  for (int v = 0; v < g->n && start < 0; v++)
    if (indeg_left[v] > 0) start = v;
  if (start < 0) return -1;
  /* walk backwards through unremoved predecessors until a node repeats */
  char *seen = mp_xcalloc((size_t)g->n, 1);
  int v = start;
  while (!seen[v]) {
    seen[v] = 1;
    int next = -1;
    for (int i = 0; i < n_pred[v]; i++)
      if (indeg_left[pred[v][i]] > 0) {
        next = pred[v][i];
        break;
      }
    if (next < 0) break;
    v = next;
  }
  free(seen);
  return v;
}

static const char *const phase_names[] = {NULL, "fwd", "bwd", "opt"};

const char *mp_phase_name(int phase) {
  return phase > MP_PHASE_NONE && phase <= MP_PHASE_OPT ? phase_names[phase] : NULL;
}

int mp_phase_parse(const char *s) {
  for (int p = MP_PHASE_FWD; p <= MP_PHASE_OPT; p++)
    if (s && strcmp(s, phase_names[p]) == 0) return p;
  return -1;
}

/* ---- phase 1: references in range, aliases among the inputs ---- */
static int check_refs(const mp_graph *g, const char *file, mp_error *err) {
  char lab[160];
  int n = g->n;
  for (int v = 0; v < n; v++) {
    const mp_node *nd = &g->nodes[v];
    for (int i = 0; i < nd->n_in; i++) {
      mp_ref r = nd->in[i];
      if (r.node < 0 || r.node >= n)
        return mp_errorf(err, "%s: %s: input %d is out of range (ids are 0..%d)", file,
                         node_label(g, v, lab, sizeof lab), r.node, n - 1);
      if (r.out != MP_ALL_OUTPUTS && (r.out < 0 || r.out >= g->nodes[r.node].n_out))
        return mp_errorf(err, "%s: %s: input [%d, %d] names output %d, but node %d has %d output%s",
                         file, node_label(g, v, lab, sizeof lab), r.node, r.out, r.out,
                         r.node, g->nodes[r.node].n_out, g->nodes[r.node].n_out == 1 ? "" : "s");
      if (r.node == v)
        return mp_errorf(err, "%s: %s: reads its own output (a cycle)", file,
                         node_label(g, v, lab, sizeof lab));
    }
    if (nd->inplace && !nd->has_alias)
      return mp_errorf(err, "%s: %s: inplace without alias (which storage does it write?)", file,
                       node_label(g, v, lab, sizeof lab));
    if (!nd->has_alias || nd->alias.node == MP_PARAM_ALIAS) continue;
    mp_ref a = nd->alias;
    if (a.node < 0 || a.node >= n)
      return mp_errorf(err, "%s: %s: alias %d is out of range", file,
                       node_label(g, v, lab, sizeof lab), a.node);
    if (a.out != MP_ALL_OUTPUTS && (a.out < 0 || a.out >= g->nodes[a.node].n_out))
      return mp_errorf(err, "%s: %s: alias [%d, %d] names an output node %d does not have",
                       file, node_label(g, v, lab, sizeof lab), a.node, a.out, a.node);
    /* DESIGN 1.1: `j` alone only when j has one output or is a view */
    if (a.out == MP_ALL_OUTPUTS && g->nodes[a.node].n_out != 1 && !g->nodes[a.node].has_alias)
      return mp_errorf(err, "%s: %s: alias %d names a node with %d outputs%s", file,
                       node_label(g, v, lab, sizeof lab), a.node, g->nodes[a.node].n_out,
                       g->nodes[a.node].n_out ? "; use [j, k]" : " (nothing to view)");
    bool found = false;
    for (int i = 0; i < nd->n_in && !found; i++) found = ref_covers(g, nd->in[i], a);
    if (!found)
      return mp_errorf(err, "%s: %s: alias %d is not among its inputs", file,
                       node_label(g, v, lab, sizeof lab), a.node);
  }
  return 0;
}

/* ---- phase 2: alias cycles, by a colouring walk along the alias links ---- */
static int alias_next(const mp_graph *g, int v) {
  const mp_node *nd = &g->nodes[v];
  return nd->has_alias && nd->alias.node != MP_PARAM_ALIAS ? nd->alias.node : -1;
}

static int check_alias_cycles(const mp_graph *g, const char *file, mp_error *err) {
  char lab[160];
  char *state = mp_xcalloc((size_t)(g->n ? g->n : 1), 1); /* 0 new, 1 on path, 2 done */
  int rc = 0;
  for (int s = 0; s < g->n && !rc; s++) {
    int v = s;
    while (v >= 0 && state[v] == 0) {
      state[v] = 1;
      v = alias_next(g, v);
    }
    if (v >= 0 && state[v] == 1)
      rc = mp_errorf(err, "%s: %s: alias cycle (the alias links loop back to it)", file,
                     node_label(g, v, lab, sizeof lab));
    for (v = s; v >= 0 && state[v] == 1; v = alias_next(g, v)) state[v] = 2;
  }
  free(state);
  return rc;
}

/* ---- phase 3: data edges, acyclicity, a topological given order ---- */
typedef struct adjacency {
  int *n_succ, **succ, *n_pred, **pred;
  mp_bump mem; /* the lists */
} adjacency;

static void adjacency_destroy(adjacency *a) {
  free(a->succ);
  free(a->pred);
  free(a->n_succ);
  free(a->n_pred);
  mp_bump_free(&a->mem);
  memset(a, 0, sizeof *a);
}

/* Kahn's algorithm: 0 when acyclic, else a node on a cycle. */
static int find_cycle(const mp_graph *g, const adjacency *d, int *bad) {
  int n = g->n;
  int *indeg = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int *queue = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int qh = 0, qt = 0;
  for (int v = 0; v < n; v++) {
    indeg[v] = d->n_pred[v];
    if (!indeg[v]) queue[qt++] = v;
  }
  while (qh < qt) {
    int v = queue[qh++];
    for (int i = 0; i < d->n_succ[v]; i++)
      if (--indeg[d->succ[v][i]] == 0) queue[qt++] = d->succ[v][i];
  }
  *bad = qt < n ? node_on_cycle(g, indeg, d->pred, d->n_pred) : -1;
  free(indeg);
  free(queue);
  return *bad >= 0;
}

/* Kahn again, always taking the ready node that comes first in the file,
 * so the sorted order stays as close to the file as it can. */
static void sort_given(mp_graph *g, const adjacency *d, const int *pos) {
  int n = g->n;
  int *deg = mp_xmalloc(sizeof(int) * (size_t)n);
  char *ready = mp_xcalloc((size_t)n, 1);
  for (int v = 0; v < n; v++) {
    deg[v] = d->n_pred[v];
    if (!deg[v]) ready[pos[v]] = 1;
  }
  int *order = mp_xmalloc(sizeof(int) * (size_t)n);
  int cursor = 0;
  for (int s = 0; s < n; s++) {
    while (!ready[cursor]) cursor++;
    int p = cursor, v = g->given[p];
    ready[p] = 0;
    order[s] = v;
    for (int i = 0; i < d->n_succ[v]; i++) {
      int w = d->succ[v][i];
      if (--deg[w] == 0) {
        ready[pos[w]] = 1;
        if (pos[w] < cursor) cursor = pos[w];
      }
    }
  }
  memcpy(g->given, order, sizeof(int) * (size_t)n);
  free(order);
  free(ready);
  free(deg);
}

/* On success the data edges' adjacency is left in *out (add_inplace_edges
 * may keep it); on an error it is freed. */
static int check_order(mp_graph *g, const edges *data, bool toposort, adjacency *out,
                       const char *file, mp_error *err) {
  char lab[160], lab2[160];
  int n = g->n;
  adjacency d = {0};
  build_adj(n, data, &d.n_succ, &d.succ, true, &d.mem);
  build_adj(n, data, &d.n_pred, &d.pred, false, &d.mem);
  g->n_data_edges = 0;
  for (int v = 0; v < n; v++) g->n_data_edges += d.n_succ[v];
  int bad, rc = 0;
  if (find_cycle(g, &d, &bad)) {
    rc = mp_errorf(err, "%s: %s is on a cycle of inputs", file, node_label(g, bad, lab, sizeof lab));
    adjacency_destroy(&d);
    return rc;
  }
  int *pos = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) pos[g->given[i]] = i;
  int bad_v = -1, bad_u = -1;
  for (int i = 0; i < n && bad_v < 0; i++) {
    int v = g->given[i];
    for (int k = 0; k < d.n_pred[v] && bad_v < 0; k++)
      if (pos[d.pred[v][k]] > i) {
        bad_v = v;
        bad_u = d.pred[v][k];
      }
  }
  if (bad_v >= 0 && !toposort)
    rc = mp_errorf(err,
                   "%s: %s reads %s, which comes later in the file: the file order is not "
                   "topological (use --toposort to sort it)",
                   file, node_label(g, bad_v, lab, sizeof lab),
                   node_label(g, bad_u, lab2, sizeof lab2));
  else if (bad_v >= 0)
    sort_given(g, &d, pos);
  free(pos);
  if (rc)
    adjacency_destroy(&d);
  else
    *out = d;
  return rc;
}

/* ---- phase 4: buffers (tensors in given order, then workspaces), roots ---- */
static mp_buffer *new_buffer(mp_graph *g, int owner, int out, enum mp_buf_kind kind,
                             int64_t size) {
  mp_buffer *b = &g->bufs[g->n_buf];
  b->owner = owner;
  b->out = out;
  b->kind = kind;
  b->size = size;
  return b;
}

/* Every figure is a sum of buffer sizes: their total must stay within
 * MP_MAX_TOTAL (util.h) or the figures could not be represented. */
static int add_total(const mp_graph *g, int64_t *total, int64_t size, int v, const char *what,
                     const char *file, mp_error *err) {
  char lab[160];
  if (mp_add_ok(*total, size, total) && *total <= MP_MAX_TOTAL) return 0;
  return mp_errorf(err, "%s: %s: %s %lld brings the sum of all sizes beyond 2^60 bytes (the "
                   "figures could not be represented)", file, node_label(g, v, lab, sizeof lab),
                   what, (long long)size);
}

static int make_buffers(mp_graph *g, const char *file, mp_error *err) {
  int n = g->n;
  size_t cap = 0;
  for (int v = 0; v < n; v++) cap += (size_t)g->nodes[v].n_out + 1;
  if (cap > (size_t)2 * MP_MAX_NODES)
    return mp_errorf(err, "%s: more than 2^29 outputs and workspaces", file);
  g->bufs = mp_xcalloc(cap ? cap : 1, sizeof(mp_buffer));
  g->root_of = mp_xcalloc((size_t)(n ? n : 1), sizeof(int *));
  g->ws_buf = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  g->n_buf = 0;
  int *roots = mp_bump_array(&g->mem, cap - (size_t)n, sizeof(int)); /* every output */
  for (int v = 0; v < n; v++) {
    int k = g->nodes[v].n_out;
    g->root_of[v] = roots;
    for (int i = 0; i < k; i++) roots[i] = -3; /* not resolved yet */
    roots += k;
  }
  int64_t total = 0;
  for (int i = 0; i < n; i++) {
    int v = g->given[i];
    const mp_node *nd = &g->nodes[v];
    if (nd->has_alias) continue; /* a view allocates nothing */
    for (int k = 0; k < nd->n_out; k++) {
      if (nd->out_size[k] <= 0) {
        g->root_of[v][k] = MP_NO_BUFFER;
        continue;
      }
      if (add_total(g, &total, nd->out_size[k], v, "size", file, err)) return -1;
      new_buffer(g, v, k, MP_BUF_TENSOR, nd->out_size[k])->born_at_start = nd->is_input;
      g->root_of[v][k] = g->n_buf++;
    }
  }
  int *pv = mp_xmalloc(sizeof(int) * (size_t)(n + 1)), *pk = mp_xmalloc(sizeof(int) * (size_t)(n + 1));
  for (int v = 0; v < n; v++)
    for (int k = 0; k < g->nodes[v].n_out; k++) resolve_root(g, v, k, pv, pk);
  free(pv);
  free(pk);
  for (int i = 0; i < n; i++) {
    int v = g->given[i];
    g->ws_buf[v] = -1;
    if (g->nodes[v].workspace <= 0) continue;
    if (add_total(g, &total, g->nodes[v].workspace, v, "workspace", file, err)) return -1;
    new_buffer(g, v, -1, MP_BUF_WORKSPACE, g->nodes[v].workspace);
    g->ws_buf[v] = g->n_buf++;
  }
  /* room was kept for a workspace per node: few nodes have one */
  g->bufs = mp_xrealloc(g->bufs, sizeof(mp_buffer) * (size_t)(g->n_buf ? g->n_buf : 1));
  return 0;
}

/* ---- phase 5: what each node reads, and each buffer's readers ---- */

int mp_view_storage(const mp_graph *g, int v) {
  const mp_node *nd = &g->nodes[v];
  if (!nd->has_alias) return MP_NO_BUFFER;
  if (nd->alias.node == MP_PARAM_ALIAS) return MP_PARAM_BUFFER;
  mp_ref a = {nd->alias.node, nd->alias.out == MP_ALL_OUTPUTS ? 0 : nd->alias.out};
  if (g->nodes[a.node].n_out == 0) a = through_empty_views(g, a.node);
  if (a.node < 0) return a.node == MP_PARAM_ALIAS ? MP_PARAM_BUFFER : MP_NO_BUFFER;
  return g->root_of[a.node][a.out];
}

/* The arena buffer naming j reads when j has `outputs: []`, or < 0. */
static int empty_view_storage(const mp_graph *g, int j) {
  int b = mp_view_storage(g, j);
  return b >= 0 ? b : -1;
}

/* The distinct buffers v reads, sorted, appended to *all at *m (room
 * grows); returns how many. */
static int node_reads(const mp_graph *g, int v, int **all, size_t *m, size_t *room) {
  const mp_node *nd = &g->nodes[v];
  size_t start = *m;
  for (int i = 0; i < nd->n_in; i++) {
    mp_ref in = nd->in[i];
    int lo = in.out == MP_ALL_OUTPUTS ? 0 : in.out;
    int hi = in.out == MP_ALL_OUTPUTS ? g->nodes[in.node].n_out : in.out + 1;
    if (lo == hi) { /* an empty view: its storage */
      int b = empty_view_storage(g, in.node);
      if (b >= 0) {
        if (*m == *room) *all = mp_xrealloc(*all, sizeof(int) * (*room *= 2));
        (*all)[(*m)++] = b;
      }
    }
    for (int k = lo; k < hi; k++) {
      int b = g->root_of[in.node][k];
      if (b < 0) continue;
      if (*m == *room) *all = mp_xrealloc(*all, sizeof(int) * (*room *= 2));
      (*all)[(*m)++] = b;
    }
  }
  int len = mp_sort_unique_ints(*all + start, (int)(*m - start));
  *m = start + (size_t)len;
  return len;
}

/* Each buffer's readers, in one block: v ascending, so sorted. */
static void buffer_readers(mp_graph *g) {
  size_t total = 0;
  for (int v = 0; v < g->n; v++) total += (size_t)g->n_reads[v];
  int *block = mp_bump_array(&g->mem, total, sizeof(int));
  for (int v = 0; v < g->n; v++)
    for (int i = 0; i < g->n_reads[v]; i++) g->bufs[g->reads[v][i]].n_readers++;
  for (int b = 0; b < g->n_buf; b++) {
    g->bufs[b].readers = block;
    block += g->bufs[b].n_readers;
    g->bufs[b].n_readers = 0;
  }
  for (int v = 0; v < g->n; v++)
    for (int i = 0; i < g->n_reads[v]; i++) {
      mp_buffer *b = &g->bufs[g->reads[v][i]];
      b->readers[b->n_readers++] = v;
    }
}

static void make_readers(mp_graph *g) {
  int n = g->n;
  g->n_reads = mp_xcalloc((size_t)(n ? n : 1), sizeof(int));
  g->reads = mp_xcalloc((size_t)(n ? n : 1), sizeof(int *));
  size_t m = 0, room = (size_t)n + 64;
  int *all = mp_xmalloc(sizeof(int) * room); /* the lists, before their exact block */
  for (int v = 0; v < n; v++) g->n_reads[v] = node_reads(g, v, &all, &m, &room);
  int *block = mp_bump_array(&g->mem, m, sizeof(int));
  memcpy(block, all, sizeof(int) * m);
  free(all);
  for (int v = 0; v < n; v++) {
    g->reads[v] = block;
    block += g->n_reads[v];
  }
  buffer_readers(g);
}

/* ---- phase 6: graph outputs: read by an `output` node, or else the
 * outputs of sinks ---- */
static void mark_outputs(mp_graph *g, const edges *data) {
  int n = g->n;
  bool has_output_node = false;
  for (int v = 0; v < n; v++) has_output_node |= g->nodes[v].is_output;
  if (has_output_node) {
    for (int v = 0; v < n; v++)
      if (g->nodes[v].is_output)
        for (int i = 0; i < g->n_reads[v]; i++) g->bufs[g->reads[v][i]].graph_output = true;
    return;
  }
  char *read = mp_xcalloc((size_t)(n ? n : 1), 1);
  for (int i = 0; i < data->n; i++) read[data->from[i]] = 1;
  for (int v = 0; v < n; v++)
    if (!read[v])
      for (int k = 0; k < g->nodes[v].n_out; k++)
        if (g->root_of[v][k] >= 0) g->bufs[g->root_of[v][k]].graph_output = true;
  free(read);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* ---- phase 7: in-place edges: every other reader of a storage keeps its
 * file-order relation to each node that writes that storage in place ----
 * Taken literally that is a pair per writer and reader: 3.7 x 10^9 pairs
 * for 50,000 writes of one storage, each after a reader (a residual stream).  The
 * adjacency gets the transitive reduction instead, with the same ancestors
 * for every node, so the same orders are valid and a node is ready at the
 * same moment of any order: per storage, the accesses in file order, each
 * reader after the writer before it and before the writer after it, each
 * writer after the one before (a writer reads what it writes).  The count
 * reported (n_inplace_edges) is still that of the literal pairs.
 *
 * The storages are the buffers (ids 0 .. n_buf-1) and the parameters: each
 * alias -1 root with its alias set (ids n_buf ...).  A parameter owns no
 * arena memory, but an optimizer that updates it in place must still come
 * after the forward ops that read it. */

typedef struct buf_access {
  int pos, v; /* a node that reads (or writes) the storage and its position */
} buf_access;

static int cmp_access(const void *a, const void *b) {
  return ((const buf_access *)a)->pos - ((const buf_access *)b)->pos;
}

/* The reduced edges of storage b's accesses (its data readers and its
 * writers), into e. */
static void storage_edges(const mp_storages *s, int b, const int *pos, buf_access *acc, edges *e) {
  int m = s->n_users[b];
  for (int i = 0; i < m; i++) acc[i] = (buf_access){pos[s->users[b][i]], s->users[b][i]};
  qsort(acc, (size_t)m, sizeof *acc, cmp_access);
  int prev = -1, since = 0; /* the last writer; the first reader after it */
  for (int i = 0; i < m; i++) {
    int x = acc[i].v;
    if (prev >= 0) edge_add(e, prev, x);
    if (s->writes[x] != b) continue;
    for (int k = since; k < i; k++) edge_add(e, acc[k].v, x);
    prev = x, since = i + 1;
  }
}

/* How many of the sorted keys a[0..n) equal v. */
static int count_key(const int64_t *a, int n, int64_t v) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  int k = lo;
  while (k < n && a[k] == v) k++;
  return k - lo;
}

/* Pairs in two storages' counts: v writes b and reads b', w writes b' and
 * reads b.  cnt(b, b') = the writers of b that read b'; each such pair of
 * storages shares cnt(b, b') x cnt(b', b) pairs. */
static int64_t shared_pairs(const mp_storages *s, int n) {
  edges pr = {0};
  for (int v = 0; v < n; v++)
    for (int i = 0; s->writes[v] >= 0 && i < s->n_acc[v]; i++)
      if (s->acc[v][i] != s->writes[v] && s->n_writers[s->acc[v][i]])
        edge_add(&pr, s->writes[v], s->acc[v][i]);
  int64_t *key = mp_xmalloc(sizeof(int64_t) * (size_t)(pr.n ? pr.n : 1)), shared = 0;
  for (int i = 0; i < pr.n; i++) key[i] = (int64_t)pr.from[i] << 32 | pr.to[i];
  qsort(key, (size_t)pr.n, sizeof *key, cmp_i64);
  for (int i = 0, j; i < pr.n; i = j) {
    for (j = i; j < pr.n && key[j] == key[i]; j++) {}
    int64_t b = key[i] >> 32, b2 = key[i] & 0xffffffff, rev = b2 << 32 | b;
    if (b < b2) shared += (int64_t)(j - i) * count_key(key, pr.n, rev); /* each pair once */
  }
  free(key);
  free(pr.from);
  free(pr.to);
  return shared;
}

/* The distinct data edges that are also pairs (a node may read a tensor
 * twice: the raw list repeats an edge). */
static int64_t data_pairs(const mp_storages *s, const edges *data) {
  int64_t *lit = mp_xmalloc(sizeof(int64_t) * (size_t)(data->n ? data->n : 1)), n = 0;
  int nl = 0;
  for (int i = 0; i < data->n; i++) {
    int u = data->from[i], x = data->to[i];
    if ((s->writes[u] >= 0 && mp_storage_accessed(s, x, s->writes[u])) ||
        (s->writes[x] >= 0 && mp_storage_accessed(s, u, s->writes[x])))
      lit[nl++] = (int64_t)u << 32 | x;
  }
  qsort(lit, (size_t)nl, sizeof *lit, cmp_i64);
  for (int i = 0; i < nl; i++) n += i == 0 || lit[i] != lit[i - 1];
  free(lit);
  return n;
}

/* The literal pairs that are not data edges: per storage, each writer with
 * each other data reader (writers are readers; a pair of writers once),
 * less the pairs two storages share, less the data edges among them. */
static int64_t literal_count(const mp_graph *g, const mp_storages *s, const edges *data) {
  int64_t total = 0;
  for (int b = 0; b < s->n; b++) {
    if (!s->n_writers[b]) continue;
    int64_t r = s->n_users[b], w = s->n_writers[b];
    total += w * (r - w) + w * (w - 1) / 2;
  }
  return total - shared_pairs(s, g->n) - data_pairs(s, data);
}

/* d's lists become the graph's (no in-place edge was added: the same
 * lists build_adj would make again). */
static void keep_adjacency(mp_graph *g, adjacency *d) {
  g->n_succ = d->n_succ;
  g->succ = d->succ;
  g->n_pred = d->n_pred;
  g->pred = d->pred;
  mp_bump_adopt(&g->mem, &d->mem);
  memset(d, 0, sizeof *d);
}

static void add_inplace_edges(mp_graph *g, const edges *data, adjacency *d) {
  int n = g->n;
  size_t nz = (size_t)(n ? n : 1);
  mp_storages s;
  mp_storages_build(g, &s);
  int *pos = mp_xmalloc(sizeof(int) * nz);
  for (int i = 0; i < n; i++) pos[g->given[i]] = i;
  edges all = {0};
  edges_reserve(&all, (int64_t)data->n + 64);
  if (data->n) { /* an empty graph's lists are NULL */
    memcpy(all.from, data->from, sizeof(int) * (size_t)data->n);
    memcpy(all.to, data->to, sizeof(int) * (size_t)data->n);
  }
  all.n = data->n;
  buf_access *acc = mp_xmalloc(sizeof(buf_access) * nz);
  for (int b = 0; b < s.n; b++)
    if (s.n_writers[b]) storage_edges(&s, b, pos, acc, &all);
  free(acc);
  if (all.n == data->n) {
    keep_adjacency(g, d);
  } else {
    build_adj(n, &all, &g->n_succ, &g->succ, true, &g->mem);
    build_adj(n, &all, &g->n_pred, &g->pred, false, &g->mem);
  }
  g->n_inplace_edges = literal_count(g, &s, data);
  free(all.from);
  free(all.to);
  free(pos);
  mp_storages_free(&s);
}

/* DESIGN 6.1: a node without a cost takes 1, or 0 when it is an input, an
 * output or a view (it does no work of its own). */
static void default_costs(mp_graph *g) {
  for (int v = 0; v < g->n; v++) {
    mp_node *nd = &g->nodes[v];
    if (!nd->has_cost) nd->cost = (nd->is_input || nd->is_output || nd->has_alias) ? 0.0 : 1.0;
  }
}

/* Each cost is finite, but durations add them up (a node once per run):
 * their total must stay within MP_MAX_COST_TOTAL (util.h) or a duration
 * could reach infinity.  Checked in file order, naming the node that
 * passes the cap, as add_total does for sizes. */
static int check_cost_total(const mp_graph *g, const char *file, mp_error *err) {
  double total = 0;
  char lab[160];
  for (int i = 0; i < g->n; i++) {
    int v = g->given[i];
    total += g->nodes[v].cost;
    if (total > MP_MAX_COST_TOTAL)
      return mp_errorf(err, "%s: %s: cost %g brings the sum of all costs beyond 2^60 (durations "
                       "could not be represented)", file, node_label(g, v, lab, sizeof lab),
                       g->nodes[v].cost);
  }
  return 0;
}

/* The edge lists count in int, and the in-place edges add to the inputs:
 * at most 2^28 inputs in all keeps every count far from wrapping (a node
 * may read INT32_MAX tensors; many such nodes may not). */
#define MAX_INPUTS_IN_ALL ((int64_t)1 << 28)

static int check_input_total(const mp_graph *g, const char *file, mp_error *err) {
  int64_t total = 0;
  for (int v = 0; v < g->n; v++) total += g->nodes[v].n_in;
  if (total > MAX_INPUTS_IN_ALL)
    return mp_errorf(err, "%s: %lld inputs in all: more than memplan's limit of 2^28", file,
                     (long long)total);
  return 0;
}

int mp_graph_finish(mp_graph *g, bool toposort, mp_error *err) {
  const char *file = g->file ? g->file : "<graph>";
  default_costs(g);
  if (check_cost_total(g, file, err)) return -1;
  if (check_refs(g, file, err) || check_alias_cycles(g, file, err)) return -1;
  if (check_input_total(g, file, err)) return -1;
  edges data = {0};
  int64_t inputs = 0;
  for (int v = 0; v < g->n; v++) inputs += g->nodes[v].n_in;
  edges_reserve(&data, inputs);
  for (int v = 0; v < g->n; v++)
    for (int i = 0; i < g->nodes[v].n_in; i++) edge_add(&data, g->nodes[v].in[i].node, v);
  adjacency d = {0};
  int rc = check_order(g, &data, toposort, &d, file, err);
  if (!rc) rc = make_buffers(g, file, err);
  if (!rc) {
    make_readers(g);
    mark_outputs(g, &data);
    add_inplace_edges(g, &data, &d);
  }
  adjacency_destroy(&d);
  free(data.from);
  free(data.to);
  return rc;
}

int mp_order_check(const mp_graph *g, const int *order, mp_error *err) {
  int n = g->n;
  int *pos = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int v = 0; v < n; v++) pos[v] = -1;
  for (int i = 0; i < n; i++) {
    int v = order[i];
    if (v < 0 || v >= n) {
      free(pos);
      mp_errorf(err, "order position %d: %d is not a node id", i, v);
      return i;
    }
    if (pos[v] >= 0) {
      free(pos);
      mp_errorf(err, "order position %d: node %d appears twice", i, v);
      return i;
    }
    pos[v] = i;
  }
  for (int i = 0; i < n; i++) {
    int v = order[i];
    for (int k = 0; k < g->n_pred[v]; k++) {
      int u = g->pred[v][k];
      if (pos[u] > i) {
        bool data = false;
        for (int j = 0; j < g->nodes[v].n_in; j++) data |= g->nodes[v].in[j].node == u;
        mp_errorf(err, "order position %d: node %d runs before node %d, which it must follow (%s edge)",
                  i, v, u, data ? "data" : "in-place");
        free(pos);
        return i;
      }
    }
  }
  free(pos);
  return -1;
}

void mp_buffer_key(const mp_graph *g, int b, char *out, size_t cap) {
  const mp_buffer *bb = &g->bufs[b];
  char k[48], *p = k; /* at most "ws:" or "N:" and two ints: 26 chars */
  if (bb->kind == MP_BUF_WORKSPACE) {
    memcpy(p, "ws:", 3);
    p = mp_put_decimal(p + 3, bb->owner);
  } else {
    p = mp_put_decimal(p, bb->owner);
    if (g->nodes[bb->owner].n_out > 1) {
      *p++ = ':';
      p = mp_put_decimal(p, bb->out);
    }
  }
  size_t n = (size_t)(p - k);
  if (cap == 0) return;
  if (n >= cap) n = cap - 1; /* cut as snprintf would; callers give 48 */
  memcpy(out, k, n);
  out[n] = 0;
}
