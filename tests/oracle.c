/* oracle.c - see oracle.h.  Written from DESIGN.md 1.2/1.3 alone; every
 * structure here is a plain array or an n x n matrix, on purpose. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

static void *zalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz ? sz : 1);
  if (!p) abort();
  return p;
}

/* Storage root of output k of node v: follow alias links to the tensor
 * that owns storage.  own[t] is the buffer a non-view tensor owns. */
static int root_of_ref(const mp_graph *g, const int *tbase, const int *own, int v, int k,
                       int depth);

/* Root of the tensor an alias reference names. */
static int root_of_alias(const mp_graph *g, const int *tbase, const int *own, mp_ref a, int depth) {
  if (depth > g->n + 1) return -3; /* alias cycle */
  if (a.node == MP_PARAM_ALIAS) return OR_PARAM;
  const mp_node *j = &g->nodes[a.node];
  int k = a.out;
  if (k == MP_ALL_OUTPUTS) {
    /* `j` alone: j's only output, or j is itself a view (all its outputs
     * share one storage) */
    if (j->n_out == 0) /* no tensor of its own: what it views, if a view */
      return j->has_alias ? root_of_alias(g, tbase, own, j->alias, depth + 1) : OR_NONE;
    k = 0;
  }
  return root_of_ref(g, tbase, own, a.node, k, depth + 1);
}

static int root_of_ref(const mp_graph *g, const int *tbase, const int *own, int v, int k,
                       int depth) {
  const mp_node *nd = &g->nodes[v];
  if (!nd->has_alias) return own[tbase[v] + k];
  return root_of_alias(g, tbase, own, nd->alias, depth);
}

static bool any_reader(const or_model *m, const or_buf *b) {
  for (int w = 0; w < m->n; w++)
    if (b->reader[w]) return true;
  return false;
}

/* Buffers: every output of a node without alias with size > 0, then every
 * workspace; own[t] gets the buffer tensor t owns (OR_NONE: none). */
static void build_buffers(const mp_graph *g, or_model *m, int *own) {
  int n = g->n;
  for (int v = 0; v < n; v++) {
    const mp_node *nd = &g->nodes[v];
    for (int k = 0; k < nd->n_out; k++) {
      own[m->tbase[v] + k] = OR_NONE;
      if (nd->has_alias || nd->out_size[k] <= 0) continue;
      or_buf *b = &m->b[m->nb];
      b->owner = v;
      b->out = k;
      b->size = nd->out_size[k];
      b->input = nd->op && strcmp(nd->op, "input") == 0;
      own[m->tbase[v] + k] = m->nb++;
    }
  }
  for (int v = 0; v < n; v++)
    if (g->nodes[v].workspace > 0) {
      or_buf *b = &m->b[m->nb++];
      b->owner = v;
      b->out = -1;
      b->ws = true;
      b->size = g->nodes[v].workspace;
    }
}

/* The storage root of every tensor; -1 on an alias cycle. */
static int build_roots(const mp_graph *g, or_model *m, const int *own) {
  int rc = 0;
  for (int v = 0; v < g->n; v++)
    for (int k = 0; k < g->nodes[v].n_out; k++) {
      int r = root_of_ref(g, m->tbase, own, v, k, 0);
      if (r == -3) rc = -1;
      m->root[m->tbase[v] + k] = r;
    }
  return rc;
}

/* The storage a view j with `outputs: []` views (OR_PARAM, or OR_NONE
 * when j is no view): its alias chain up to a node with outputs. */
static int empty_view_root(const mp_graph *g, const or_model *m, int j) {
  for (int d = 0; d <= g->n; d++) {
    const mp_node *nd = &g->nodes[j];
    if (nd->n_out > 0) return m->root[m->tbase[j]];
    if (!nd->has_alias) return OR_NONE;
    if (nd->alias.node == MP_PARAM_ALIAS) return OR_PARAM;
    if (nd->alias.out != MP_ALL_OUTPUTS) return m->root[m->tbase[nd->alias.node] + nd->alias.out];
    j = nd->alias.node;
  }
  return OR_NONE;
}

/* The root buffers of the tensors `in` names (`j`: all of j's outputs; a
 * view with `outputs: []`: the storage it views): read by node w (reader),
 * else graph outputs. */
static void mark_roots_of_input(const mp_graph *g, or_model *m, const mp_ref *in, int w,
                                bool reader) {
  int j = in->node, k = in->out;
  int lo = k == MP_ALL_OUTPUTS ? 0 : k, hi = k == MP_ALL_OUTPUTS ? g->nodes[j].n_out : k + 1;
  for (int kk = lo; kk <= hi; kk++) {
    int r = kk < hi ? m->root[m->tbase[j] + kk] : lo == hi ? empty_view_root(g, m, j) : -1;
    if (r < 0) continue;
    if (reader)
      m->b[r].reader[w] = true;
    else
      m->b[r].graph_output = true;
  }
}

/* Readers: a node reads every tensor it names, through whatever alias
 * chain, i.e. it reads the roots; data edges; alias sets.  is_read[j]: some
 * node names j. */
static void build_readers(const mp_graph *g, or_model *m, const int *own, bool aliases_ok,
                          bool *is_read) {
  int n = g->n;
  for (int i = 0; i < m->nb; i++) {
    m->b[i].reader = zalloc((size_t)n, sizeof(bool));
    m->b[i].alias_set = zalloc((size_t)n, sizeof(bool));
    if (!m->b[i].ws) m->b[i].alias_set[m->b[i].owner] = true;
  }
  for (int w = 0; w < n; w++) {
    const mp_node *nd = &g->nodes[w];
    for (int i = 0; i < nd->n_in; i++) {
      m->data[nd->in[i].node * n + w] = true;
      is_read[nd->in[i].node] = true;
      mark_roots_of_input(g, m, &nd->in[i], w, true);
    }
    if (nd->has_alias && aliases_ok) {
      int r = root_of_alias(g, m->tbase, own, nd->alias, 0);
      if (r >= 0) m->b[r].alias_set[w] = true;
    }
  }
}

/* Graph outputs: what `output` nodes read, or, without any, the outputs of
 * the nodes nobody reads. */
static void build_outputs(const mp_graph *g, or_model *m, const bool *is_read) {
  bool any_output_node = false;
  for (int v = 0; v < g->n; v++) any_output_node |= g->nodes[v].op && !strcmp(g->nodes[v].op, "output");
  for (int v = 0; v < g->n; v++) {
    const mp_node *nd = &g->nodes[v];
    if (any_output_node) {
      if (!nd->op || strcmp(nd->op, "output")) continue;
      for (int i = 0; i < nd->n_in; i++) mark_roots_of_input(g, m, &nd->in[i], v, false);
    } else if (!is_read[v]) {
      for (int k = 0; k < nd->n_out; k++) {
        int r = m->root[m->tbase[v] + k];
        if (r >= 0) m->b[r].graph_output = true;
      }
    }
  }
}

/* The node with `alias: -1` that v's alias chain ends at, or -1. */
static int param_root(const mp_graph *g, int v) {
  for (int d = 0; d <= g->n && g->nodes[v].has_alias; d++) {
    if (g->nodes[v].alias.node == MP_PARAM_ALIAS) return v;
    v = g->nodes[v].alias.node;
  }
  return -1;
}

/* The parameter node v writes in place (its own storage when it is the
 * `alias: -1` node itself), or -1. */
static int param_written(const mp_graph *g, const or_model *m, const int *own, int v) {
  const mp_node *nd = &g->nodes[v];
  if (!nd->inplace || !nd->has_alias) return -1;
  if (root_of_alias(g, m->tbase, own, nd->alias, 0) != OR_PARAM) return -1;
  return nd->alias.node == MP_PARAM_ALIAS ? v : param_root(g, nd->alias.node);
}

/* Does w touch the data of parameter p: write it in place, or (not being a
 * pure view) read a tensor whose root is p? */
static bool param_access(const mp_graph *g, const or_model *m, const int *own, int w, int p) {
  const mp_node *wn = &g->nodes[w];
  if (param_written(g, m, own, w) == p) return true;
  if (wn->has_alias && !wn->inplace) return false;
  for (int i = 0; i < wn->n_in; i++) {
    int j = wn->in[i].node, k = wn->in[i].out;
    int lo = k == MP_ALL_OUTPUTS ? 0 : k, hi = k == MP_ALL_OUTPUTS ? g->nodes[j].n_out : k + 1;
    for (int kk = lo; kk < hi; kk++)
      if (m->root[m->tbase[j] + kk] == OR_PARAM && param_root(g, j) == p) return true;
    if (lo == hi && empty_view_root(g, m, j) == OR_PARAM && param_root(g, j) == p) return true;
  }
  return false;
}

/* Precedence: data edges, plus for every in-place writer v of storage b an
 * edge between v and every other reader w of b that is not a pure view, in
 * file order (with an alias cycle, the data edges only).  A parameter (an
 * `alias: -1` node with every view of it) is such a storage too: it owns no
 * buffer, but its readers must not see an optimizer's in-place update. */
static void build_precedence(const mp_graph *g, or_model *m, const int *own, bool aliases_ok) {
  int n = g->n;
  int *pos = zalloc((size_t)n, sizeof(int));
  for (int i = 0; i < n; i++) pos[g->given[i]] = i;
  for (int u = 0; u < n * n; u++) {
    m->prec[u] = m->data[u];
    m->n_data += m->data[u];
  }
  for (int v = 0; v < n && aliases_ok; v++) {
    const mp_node *nd = &g->nodes[v];
    if (!nd->inplace || !nd->has_alias) continue;
    int b = root_of_alias(g, m->tbase, own, nd->alias, 0);
    if (b == OR_PARAM) {
      int p = param_written(g, m, own, v);
      for (int w = 0; w < n; w++) {
        if (w == v || !param_access(g, m, own, w, p)) continue;
        if (pos[w] < pos[v])
          m->prec[w * n + v] = true;
        else
          m->prec[v * n + w] = true;
      }
      continue;
    }
    if (b < 0) continue;
    for (int w = 0; w < n; w++) {
      if (w == v || !m->b[b].reader[w]) continue;
      const mp_node *wn = &g->nodes[w];
      if (wn->has_alias && !wn->inplace) continue;
      if (pos[w] < pos[v])
        m->prec[w * n + v] = true;
      else
        m->prec[v * n + w] = true;
    }
  }
  int total = 0;
  for (int u = 0; u < n * n; u++) total += m->prec[u];
  m->n_inplace = total - m->n_data;
  free(pos);
}

/* Per-node bound: distinct buffers read + buffers owned + workspace. */
static void build_node_bound(or_model *m) {
  for (int v = 0; v < m->n; v++) {
    int64_t s = 0, dead = 0;
    for (int i = 0; i < m->nb; i++) {
      const or_buf *b = &m->b[i];
      /* a graph input nobody reads lives at step 0 alone (DESIGN 1.2): it
       * and what v holds at its own step are never live together unless v
       * runs first, so the term is the larger of the two */
      bool dead_input = b->input && !b->graph_output && !any_reader(m, b);
      if (b->owner == v && dead_input)
        dead += b->size;
      else if (b->reader[v] || b->owner == v)
        s += b->size;
    }
    if (s > m->lb) m->lb = s;
    if (dead > m->lb) m->lb = dead;
  }
}

int or_build(const mp_graph *g, or_model *m) {
  memset(m, 0, sizeof *m);
  int n = g->n;
  m->n = n;
  m->tbase = zalloc((size_t)n + 1, sizeof(int));
  int nt = 0;
  for (int v = 0; v < n; v++) {
    m->tbase[v] = nt;
    nt += g->nodes[v].n_out;
  }
  m->tbase[n] = nt;
  m->b = zalloc((size_t)nt + (size_t)n, sizeof(or_buf));
  int *own = zalloc((size_t)nt, sizeof(int));
  build_buffers(g, m, own);
  m->root = zalloc((size_t)nt, sizeof(int));
  int rc = build_roots(g, m, own);
  m->data = zalloc((size_t)n * (size_t)n, sizeof(bool));
  m->prec = zalloc((size_t)n * (size_t)n, sizeof(bool));
  bool *is_read = zalloc((size_t)n, sizeof(bool));
  build_readers(g, m, own, rc == 0, is_read);
  build_outputs(g, m, is_read);
  free(is_read);
  build_precedence(g, m, own, rc == 0);
  build_node_bound(m);
  free(own);
  return rc;
}

void or_destroy(or_model *m) {
  for (int i = 0; i < m->nb; i++) {
    free(m->b[i].reader);
    free(m->b[i].alias_set);
  }
  free(m->b);
  free(m->tbase);
  free(m->root);
  free(m->data);
  free(m->prec);
  memset(m, 0, sizeof *m);
}

int or_find(const or_model *m, int owner, int out, bool ws) {
  for (int i = 0; i < m->nb; i++)
    if (m->b[i].owner == owner && m->b[i].ws == ws && (ws || m->b[i].out == out)) return i;
  return -1;
}

void or_lifetimes(or_model *m, const int *order) {
  int n = m->n;
  int *step = zalloc((size_t)n, sizeof(int));
  for (int i = 0; i < n; i++) step[order[i]] = i;
  for (int i = 0; i < m->nb; i++) {
    or_buf *b = &m->b[i];
    if (b->ws) {
      b->birth = b->death = step[b->owner];
      continue;
    }
    b->birth = b->input ? 0 : step[b->owner];
    bool read = false;
    for (int w = 0; w < n; w++) read |= b->reader[w];
    if (b->graph_output) {
      b->death = n - 1;
    } else if (!read) {
      b->death = b->birth; /* a dead value */
    } else {
      b->death = b->birth;
      for (int w = 0; w < n; w++)
        if ((b->reader[w] || b->alias_set[w]) && step[w] > b->death) b->death = step[w];
    }
  }
  free(step);
}

int64_t or_live_at(const or_model *m, int t) {
  int64_t s = 0;
  for (int i = 0; i < m->nb; i++)
    if (m->b[i].birth <= t && t <= m->b[i].death) s += m->b[i].size;
  return s;
}

int64_t or_live_after(const or_model *m, int t) {
  int64_t s = 0;
  for (int i = 0; i < m->nb; i++)
    if (!m->b[i].ws && m->b[i].birth <= t && t < m->b[i].death) s += m->b[i].size;
  return s;
}

int64_t or_peak(const or_model *m) {
  int64_t p = 0;
  for (int t = 0; t < m->n; t++) {
    int64_t x = or_live_at(m, t);
    if (x > p) p = x;
  }
  return p;
}

double or_std(const or_model *m) {
  if (m->n == 0) return 0;
  double mean = 0, var = 0;
  for (int t = 0; t < m->n; t++) mean += (double)or_live_at(m, t);
  mean /= m->n;
  for (int t = 0; t < m->n; t++) {
    double d = (double)or_live_at(m, t) - mean;
    var += d * d;
  }
  return sqrt(var / m->n);
}

int64_t or_sum(const or_model *m) {
  int64_t s = 0;
  for (int i = 0; i < m->nb; i++) s += m->b[i].size;
  return s;
}

bool or_order_ok(const or_model *m, const int *order) {
  int n = m->n;
  int *step = zalloc((size_t)n, sizeof(int));
  for (int v = 0; v < n; v++) step[v] = -1;
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    if (order[i] < 0 || order[i] >= n || step[order[i]] >= 0) ok = false;
    else step[order[i]] = i;
  }
  for (int u = 0; u < n && ok; u++)
    for (int v = 0; v < n && ok; v++)
      if (m->prec[u * n + v] && step[u] > step[v]) ok = false;
  free(step);
  return ok;
}

void or_random_order(const or_model *m, mp_rng *r, int *order) {
  int n = m->n;
  bool *done = zalloc((size_t)n, sizeof(bool));
  int *ready = zalloc((size_t)n, sizeof(int));
  for (int s = 0; s < n; s++) {
    int nr = 0;
    for (int v = 0; v < n; v++) {
      if (done[v]) continue;
      bool ok = true;
      for (int u = 0; u < n && ok; u++)
        if (m->prec[u * n + v] && !done[u]) ok = false;
      if (ok) ready[nr++] = v;
    }
    int v = ready[mp_rng_below(r, (uint64_t)nr)];
    order[s] = v;
    done[v] = true;
  }
  free(done);
  free(ready);
}

const char *or_check_offsets(const or_model *m, const int64_t *off, int64_t align) {
  for (int i = 0; i < m->nb; i++) {
    if (off[i] < 0) return "negative offset";
    if (off[i] % align) return "unaligned offset";
  }
  for (int i = 0; i < m->nb; i++)
    for (int j = i + 1; j < m->nb; j++) {
      const or_buf *a = &m->b[i], *b = &m->b[j];
      bool time = a->birth <= b->death && b->birth <= a->death;
      bool space = off[i] < off[j] + b->size && off[j] < off[i] + a->size;
      if (time && space) return "two live buffers overlap";
    }
  return NULL;
}

int64_t or_arena(const or_model *m, const int64_t *off) {
  int64_t a = 0;
  for (int i = 0; i < m->nb; i++)
    if (off[i] + m->b[i].size > a) a = off[i] + m->b[i].size;
  return a;
}
