/* remat_brute.c - see remat_brute.h.  States live in one array, found by
 * an open-addressing hash on (ran, resident); the frontier is a binary
 * heap with lazy deletion. */
#include <stdlib.h>
#include <string.h>

#include "remat_brute.h"

typedef struct state {
  uint32_t ran;  /* non-input nodes run at least once */
  uint64_t res;  /* resident tensor buffers */
  double dist;
  int parent;
  int node;      /* the run that led here, or -1 for a free */
  int buf;       /* the buffer freed, for a free */
  bool done;
} state;

typedef struct item {
  double d;
  int s;
} item;

typedef struct bf {
  const mp_graph *g;
  int64_t budget;
  int n_in;          /* non-input nodes, in order when an order is given */
  int *nonin;        /* the first-run order of the non-input nodes, or NULL */
  rb_masks m;
  state *st;
  int n_st, cap_st;
  int *table;        /* hash slots: state index or -1 */
  size_t cap_tab;
  item *heap;
  int n_heap, cap_heap;
} bf;

static uint64_t hash2(uint32_t a, uint64_t b) {
  uint64_t h = b * 0x9E3779B97F4A7C15ull ^ ((uint64_t)a * 0xC2B2AE3D27D4EB4Full);
  h ^= h >> 29;
  return h * 0xBF58476D1CE4E5B9ull;
}

static void rehash(bf *s) {
  size_t cap = s->cap_tab ? 2 * s->cap_tab : 1024;
  int *t = mp_xmalloc(sizeof(int) * cap);
  for (size_t i = 0; i < cap; i++) t[i] = -1;
  for (int k = 0; k < s->n_st; k++) {
    size_t h = hash2(s->st[k].ran, s->st[k].res) & (cap - 1);
    while (t[h] >= 0) h = (h + 1) & (cap - 1);
    t[h] = k;
  }
  free(s->table);
  s->table = t;
  s->cap_tab = cap;
}

/* The state (ran, res), created if new. */
static int find(bf *s, uint32_t ran, uint64_t res) {
  if ((size_t)(s->n_st + 1) * 2 > s->cap_tab) rehash(s);
  size_t h = hash2(ran, res) & (s->cap_tab - 1);
  for (; s->table[h] >= 0; h = (h + 1) & (s->cap_tab - 1))
    if (s->st[s->table[h]].ran == ran && s->st[s->table[h]].res == res) return s->table[h];
  if (s->n_st == s->cap_st) {
    s->cap_st = s->cap_st ? 2 * s->cap_st : 1024;
    s->st = mp_xrealloc(s->st, sizeof(state) * (size_t)s->cap_st);
  }
  s->st[s->n_st] = (state){ran, res, -1, -1, -1, -1, false};
  s->table[h] = s->n_st;
  return s->n_st++;
}

static void push(bf *s, double d, int k) {
  if (s->n_heap == s->cap_heap) {
    s->cap_heap = s->cap_heap ? 2 * s->cap_heap : 1024;
    s->heap = mp_xrealloc(s->heap, sizeof(item) * (size_t)s->cap_heap);
  }
  int i = s->n_heap++;
  while (i > 0 && s->heap[(i - 1) / 2].d > d) {
    s->heap[i] = s->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  s->heap[i] = (item){d, k};
}

static item pop(bf *s) {
  item top = s->heap[0], last = s->heap[--s->n_heap];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= s->n_heap) break;
    if (c + 1 < s->n_heap && s->heap[c + 1].d < s->heap[c].d) c++;
    if (s->heap[c].d >= last.d) break;
    s->heap[i] = s->heap[c];
    i = c;
  }
  if (s->n_heap) s->heap[i] = last;
  return top;
}

static void relax(bf *s, int from, uint32_t ran, uint64_t res, double d, int node, int buf) {
  int k = find(s, ran, res);
  state *x = &s->st[k];
  if (x->done || (x->dist >= 0 && x->dist <= d)) return;
  x->dist = d;
  x->parent = from;
  x->node = node;
  x->buf = buf;
  push(s, d, k);
}

int64_t rb_live(const mp_graph *g, uint64_t res) {
  int64_t sum = 0;
  for (int b = 0; res; b++, res >>= 1)
    if (res & 1) sum += g->bufs[b].size;
  return sum;
}

static void expand(bf *s, int k) {
  const mp_graph *g = s->g;
  const rb_masks *m = &s->m;
  uint32_t ran = s->st[k].ran;
  uint64_t res = s->st[k].res;
  double d = s->st[k].dist;
  int64_t now = rb_live(g, res);
  int next = s->nonin ? s->nonin[__builtin_popcount(ran)] : -1;
  for (int v = 0; v < g->n; v++) {
    if (g->nodes[v].is_input) continue;
    bool first = !(ran >> v & 1);
    if (first ? (s->nonin ? v != next : (m->predm[v] & ~ran) != 0) : m->inset[v]) continue;
    if ((m->readm[v] & ~res) || (m->ownm[v] & res) || now + m->need[v] > s->budget) continue;
    relax(s, k, ran | 1u << v, (res | m->ownm[v]) & ~m->deadm[v], d + g->nodes[v].cost, v, -1);
  }
  for (int b = 0; b < 64; b++)
    if ((res >> b & 1) && !(m->inplace[b] && (m->readersm[b] & ~ran)))
      relax(s, k, ran, res & ~(1ull << b), d, -1, b);
}

int rb_masks_init(const mp_graph *g, rb_masks *m) {
  memset(m, 0, sizeof *m);
  for (int b = 0; b < g->n_buf; b++) m->tensors += g->bufs[b].kind == MP_BUF_TENSOR;
  if (g->n > 31 || m->tensors > 64) return -1;
  size_t n = (size_t)(g->n ? g->n : 1);
  m->n = g->n;
  m->readm = mp_xcalloc(n, sizeof(uint64_t));
  m->ownm = mp_xcalloc(n, sizeof(uint64_t));
  m->deadm = mp_xcalloc(n, sizeof(uint64_t));
  m->predm = mp_xcalloc(n, sizeof(uint32_t));
  m->need = mp_xcalloc(n, sizeof(int64_t));
  m->inset = mp_xcalloc(n, sizeof(bool));
  for (int v = 0; v < g->n; v++) {
    const mp_node *nd = &g->nodes[v];
    if (!nd->is_input) m->all_ran |= 1u << v;
    for (int i = 0; i < g->n_reads[v]; i++) m->readm[v] |= 1ull << g->reads[v][i];
    for (int i = 0; i < g->n_pred[v]; i++)
      if (!g->nodes[g->pred[v][i]].is_input) m->predm[v] |= 1u << g->pred[v][i];
    m->need[v] = g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0;
    for (int k = 0; k < nd->n_out && !nd->has_alias; k++) {
      int b = g->root_of[v][k];
      if (b < 0) continue;
      m->ownm[v] |= 1ull << b;
      m->need[v] += g->bufs[b].size;
      if (g->bufs[b].n_readers == 0 && !g->bufs[b].graph_output) m->deadm[v] |= 1ull << b;
    }
    /* in-place storage: what a node writes in place */
    if (nd->inplace && nd->has_alias && nd->alias.node != MP_PARAM_ALIAS &&
        g->nodes[nd->alias.node].n_out > 0) {
      int b = g->root_of[nd->alias.node][nd->alias.out == MP_ALL_OUTPUTS ? 0 : nd->alias.out];
      if (b >= 0) m->inplace[b] = true;
    }
  }
  for (int b = 0; b < m->tensors; b++) {
    for (int i = 0; i < g->bufs[b].n_readers; i++) m->readersm[b] |= 1u << g->bufs[b].readers[i];
    if (g->bufs[b].graph_output) m->outputs |= 1ull << b;
    if (g->bufs[b].born_at_start) m->inputs |= 1ull << b;
  }
  /* the alias set of an in-place storage: its owner and its views */
  for (int v = 0; v < g->n; v++) {
    const mp_node *nd = &g->nodes[v];
    for (int k = 0; k < nd->n_out; k++) {
      int b = g->root_of[v][k];
      if (b >= 0 && b < 64 && m->inplace[b]) m->inset[v] = true;
    }
    if (nd->has_alias && nd->alias.node != MP_PARAM_ALIAS && g->nodes[nd->alias.node].n_out > 0) {
      int b = g->root_of[nd->alias.node][nd->alias.out == MP_ALL_OUTPUTS ? 0 : nd->alias.out];
      if (b >= 0 && m->inplace[b]) m->inset[v] = true;
    }
  }
  return 0;
}

void rb_masks_destroy(rb_masks *m) {
  free(m->readm);
  free(m->ownm);
  free(m->deadm);
  free(m->predm);
  free(m->need);
  free(m->inset);
  memset(m, 0, sizeof *m);
}

static void rebuild(const bf *s, int k, mp_events *plan) {
  int len = 0;
  for (int x = k; s->st[x].parent >= 0; x = s->st[x].parent) len++;
  int *path = mp_xmalloc(sizeof(int) * (size_t)(len ? len : 1));
  for (int x = k, i = len; s->st[x].parent >= 0; x = s->st[x].parent) path[--i] = x;
  mp_events_clear(plan);
  for (int i = 0; i < len; i++) {
    const state *x = &s->st[path[i]];
    if (x->node < 0) {
      mp_events_push(plan, MP_EV_FREE, x->buf);
      continue;
    }
    mp_events_push(plan, MP_EV_RUN, x->node);
    for (int b = 0; b < 64; b++)
      if (s->m.deadm[x->node] >> b & 1) mp_events_push(plan, MP_EV_FREE, b);
  }
  free(path);
}

static int search(bf *s, long max_states, double *duration, mp_events *plan) {
  if (rb_live(s->g, s->m.inputs) > s->budget) return RB_INFEASIBLE;
  relax(s, -1, 0, s->m.inputs, 0, -1, -1);
  while (s->n_heap) {
    item it = pop(s);
    state *x = &s->st[it.s];
    if (x->done || it.d > x->dist) continue;
    x->done = true;
    if (x->ran == s->m.all_ran && (x->res & s->m.outputs) == s->m.outputs) {
      *duration = x->dist;
      if (plan) rebuild(s, it.s, plan);
      return RB_FOUND;
    }
    if (s->n_st > max_states) return RB_TOO_BIG;
    expand(s, it.s);
  }
  return RB_INFEASIBLE;
}

int rb_optimum(const mp_graph *g, int64_t budget, const int *order, long max_states,
               double *duration, mp_events *plan) {
  bf s = {.g = g, .budget = budget};
  if (rb_masks_init(g, &s.m)) return RB_TOO_BIG;
  if (order) {
    s.nonin = mp_xcalloc((size_t)g->n + 1, sizeof(int));
    for (int i = 0; i < g->n; i++)
      if (!g->nodes[order[i]].is_input) s.nonin[s.n_in++] = order[i];
  }
  int rc = search(&s, max_states, duration, plan);
  rb_masks_destroy(&s.m);
  free(s.nonin);
  free(s.st);
  free(s.table);
  free(s.heap);
  return rc;
}
