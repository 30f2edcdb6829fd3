/* remat_brute_copies.c - the exact optimum with recomputation and copies
 * on tiny graphs (see remat_brute.h): a best-first search over labels
 * (state, clocks), keeping per state only the clock vectors no other
 * dominates.  Every later time is a max of these clocks plus costs, so a
 * label with clocks no later than another's is never worse; clocks below
 * the issue floor are raised to it (everything later is issued at or
 * after the floor, so they only ever meet it through a max). */
#include <stdlib.h>
#include <string.h>

#include "remat_brute.h"

#define CB_MAXB 16

typedef struct clocks {
  double floor, compute, to_host, from_host, last_end;
  double ready[CB_MAXB], last_read[CB_MAXB], last_out[CB_MAXB];
} clocks;

typedef struct label {
  uint32_t ran;
  uint16_t res, host;
  clocks c;
  double f;       /* lower bound on the duration of every completion */
  int parent;
  int kind, id;   /* the event that led here */
  bool dead;      /* dominated since it was queued: never expanded */
  bool expanded;
} label;

typedef struct cs {
  const mp_graph *g;
  rb_masks m;
  int64_t budget;
  double bw;
  int *nonin;      /* first-run order of the non-input nodes, or NULL */
  label *l;
  int n_l, cap_l;
  int **bucket;    /* per state slot: label indices (bucket[i][0] = count) */
  uint64_t *keys;
  size_t cap_tab;
  int *heap, n_heap, cap_heap;
} cs;

static uint64_t key_of(const label *x) {
  return (uint64_t)x->ran << 32 | (uint64_t)x->res << 16 | x->host;
}

static size_t slot_of(cs *s, uint64_t key);

static void grow_table(cs *s) {
  size_t old = s->cap_tab;
  int **ob = s->bucket;
  uint64_t *ok = s->keys;
  s->cap_tab = old ? 2 * old : 1024;
  s->bucket = mp_xcalloc(s->cap_tab, sizeof(int *));
  s->keys = mp_xcalloc(s->cap_tab, sizeof(uint64_t));
  for (size_t i = 0; i < old; i++)
    if (ob[i]) {
      size_t j = slot_of(s, ok[i]);
      s->bucket[j] = ob[i];
      s->keys[j] = ok[i];
    }
  free(ob);
  free(ok);
}

/* The slot of a state: its own, or the empty one it would take. */
static size_t slot_of(cs *s, uint64_t key) {
  size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (s->cap_tab - 1);
  while (s->bucket[h] && s->keys[h] != key) h = (h + 1) & (s->cap_tab - 1);
  return h;
}

static bool dominates(const clocks *a, const clocks *b, int nb) {
  if (a->floor > b->floor || a->compute > b->compute || a->to_host > b->to_host ||
      a->from_host > b->from_host || a->last_end > b->last_end)
    return false;
  for (int i = 0; i < nb; i++)
    if (a->ready[i] > b->ready[i] || a->last_read[i] > b->last_read[i] || a->last_out[i] > b->last_out[i])
      return false;
  return true;
}

static bool heap_less(const cs *s, int a, int b) { return s->l[a].f < s->l[b].f; }

static void heap_push(cs *s, int x) {
  if (s->n_heap == s->cap_heap) {
    s->cap_heap = s->cap_heap ? 2 * s->cap_heap : 1024;
    s->heap = mp_xrealloc(s->heap, sizeof(int) * (size_t)s->cap_heap);
  }
  int i = s->n_heap++;
  while (i > 0 && heap_less(s, x, s->heap[(i - 1) / 2])) {
    s->heap[i] = s->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  s->heap[i] = x;
}

static int heap_pop(cs *s) {
  int top = s->heap[0], last = s->heap[--s->n_heap], i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= s->n_heap) break;
    if (c + 1 < s->n_heap && heap_less(s, s->heap[c + 1], s->heap[c])) c++;
    if (!heap_less(s, s->heap[c], last)) break;
    s->heap[i] = s->heap[c];
    i = c;
  }
  if (s->n_heap) s->heap[i] = last;
  return top;
}

/* Clocks of buffers not resident say nothing any more (their readers and
 * outs ended before the free that dropped them raised the floor); every
 * clock below the floor counts as the floor. */
static void normalise(clocks *c, uint16_t res, int nb) {
  double f = c->floor;
  c->compute = c->compute > f ? c->compute : f;
  c->to_host = c->to_host > f ? c->to_host : f;
  c->from_host = c->from_host > f ? c->from_host : f;
  for (int i = 0; i < nb; i++) {
    bool r = res >> i & 1;
    c->ready[i] = r && c->ready[i] > f ? c->ready[i] : f;
    c->last_read[i] = r && c->last_read[i] > f ? c->last_read[i] : f;
    c->last_out[i] = r && c->last_out[i] > f ? c->last_out[i] : f;
  }
}

static double bound(const cs *s, const label *x) {
  double rest = x->c.compute;
  for (int v = 0; v < s->g->n; v++)
    if ((s->m.all_ran >> v & 1) && !(x->ran >> v & 1)) rest += s->g->nodes[v].cost;
  return rest > x->c.last_end ? rest : x->c.last_end;
}

/* Queue label x (already filled) unless a label of its state dominates it. */
static void offer(cs *s, label x) {
  int nb = s->m.tensors;
  normalise(&x.c, x.res, nb);
  x.f = bound(s, &x);
  x.dead = x.expanded = false;
  if ((size_t)(s->n_l + 1) * 2 > s->cap_tab) grow_table(s);
  uint64_t key = key_of(&x);
  size_t h = slot_of(s, key);
  int *b = s->bucket[h];
  for (int i = 1; b && i <= b[0]; i++)
    if (!s->l[b[i]].dead && dominates(&s->l[b[i]].c, &x.c, nb)) return;
  for (int i = 1; b && i <= b[0]; i++)
    if (dominates(&x.c, &s->l[b[i]].c, nb)) s->l[b[i]].dead = true;
  if (s->n_l == s->cap_l) {
    s->cap_l = s->cap_l ? 2 * s->cap_l : 1024;
    s->l = mp_xrealloc(s->l, sizeof(label) * (size_t)s->cap_l);
  }
  s->l[s->n_l] = x;
  int count = b ? b[0] : 0;
  b = mp_xrealloc(b, sizeof(int) * (size_t)(count + 2));
  b[0] = count + 1;
  b[count + 1] = s->n_l;
  s->bucket[h] = b;
  s->keys[h] = key;
  heap_push(s, s->n_l++);
}

static void try_run(cs *s, int k, int v) {
  const label *x = &s->l[k];
  const rb_masks *m = &s->m;
  const mp_graph *g = s->g;
  bool first = !(x->ran >> v & 1);
  int next = s->nonin ? s->nonin[__builtin_popcount(x->ran)] : -1;
  if (first ? (s->nonin ? v != next : (m->predm[v] & ~x->ran) != 0) : m->inset[v]) return;
  if ((m->readm[v] & ~(uint64_t)x->res) || (m->ownm[v] & x->res) ||
      rb_live(g, x->res) + m->need[v] > s->budget)
    return;
  label y = *x;
  y.parent = k, y.kind = MP_EV_RUN, y.id = v;
  double start = y.c.compute;
  for (int b = 0; b < m->tensors; b++)
    if (m->readm[v] >> b & 1 && y.c.ready[b] > start) start = y.c.ready[b];
  double end = start + g->nodes[v].cost;
  y.c.compute = end;
  y.c.last_end = end > y.c.last_end ? end : y.c.last_end;
  for (int b = 0; b < m->tensors; b++) {
    if (m->readm[v] >> b & 1) y.c.last_read[b] = end;
    if (m->ownm[v] >> b & 1) y.c.ready[b] = end;
  }
  y.ran |= 1u << v;
  y.res = (uint16_t)((y.res | m->ownm[v]) & ~m->deadm[v]); /* a dead value goes at once */
  offer(s, y);
}

static void try_buffer(cs *s, int k, int kind, int b) {
  const label *x = &s->l[k];
  const rb_masks *m = &s->m;
  bool res = x->res >> b & 1, host = x->host >> b & 1;
  label y = *x;
  y.parent = k, y.kind = kind, y.id = b;
  double len = (double)s->g->bufs[b].size / s->bw, end = 0;
  switch (kind) {
  case MP_EV_FREE:
    if (!res || (m->inplace[b] && (m->readersm[b] & ~x->ran))) return;
    if (y.c.last_read[b] > y.c.floor) y.c.floor = y.c.last_read[b];
    if (y.c.last_out[b] > y.c.floor) y.c.floor = y.c.last_out[b];
    y.res &= (uint16_t)~(1u << b);
    break;
  case MP_EV_OUT: /* a second out only delays: never tried */
    if (!res || host || m->inplace[b]) return;
    end = (y.c.to_host > y.c.ready[b] ? y.c.to_host : y.c.ready[b]) + len;
    y.c.to_host = y.c.last_out[b] = end;
    y.host |= (uint16_t)(1u << b);
    break;
  default: /* MP_EV_IN: the out ended before the free (the floor) */
    if (res || !host || rb_live(s->g, x->res) + s->g->bufs[b].size > s->budget) return;
    end = y.c.from_host + len;
    y.c.from_host = y.c.ready[b] = end;
    y.res |= (uint16_t)(1u << b);
    break;
  }
  if (end > y.c.last_end) y.c.last_end = end;
  offer(s, y);
}

static void rebuild(const cs *s, int k, mp_events *plan) {
  int len = 0;
  for (int x = k; s->l[x].parent >= 0; x = s->l[x].parent) len++;
  int *path = mp_xmalloc(sizeof(int) * (size_t)(len ? len : 1));
  for (int x = k, i = len; s->l[x].parent >= 0; x = s->l[x].parent) path[--i] = x;
  mp_events_clear(plan);
  for (int i = 0; i < len; i++) {
    const label *x = &s->l[path[i]];
    mp_events_push(plan, (mp_event_kind)x->kind, x->id);
    if (x->kind == MP_EV_RUN)
      for (int b = 0; b < s->m.tensors; b++)
        if (s->m.deadm[x->id] >> b & 1) mp_events_push(plan, MP_EV_FREE, b);
  }
  free(path);
}

static int search(cs *s, long max_labels, double *duration, mp_events *plan) {
  if (rb_live(s->g, s->m.inputs) > s->budget) return RB_INFEASIBLE;
  label start;
  memset(&start, 0, sizeof start);
  start.res = (uint16_t)s->m.inputs;
  start.parent = -1;
  offer(s, start);
  while (s->n_heap) {
    int k = heap_pop(s);
    if (s->l[k].dead || s->l[k].expanded) continue;
    if (s->l[k].ran == s->m.all_ran && (s->l[k].res & s->m.outputs) == s->m.outputs) {
      *duration = s->l[k].c.last_end;
      if (plan) rebuild(s, k, plan);
      return RB_FOUND;
    }
    if (s->n_l > max_labels) return RB_TOO_BIG;
    s->l[k].expanded = true;
    for (int v = 0; v < s->g->n; v++)
      if (!s->g->nodes[v].is_input) try_run(s, k, v);
    for (int b = 0; b < s->m.tensors; b++)
      for (int kind = MP_EV_FREE; kind <= MP_EV_IN; kind++) try_buffer(s, k, kind, b);
  }
  return RB_INFEASIBLE;
}

int rb_optimum_copies(const mp_graph *g, int64_t budget, const int *order, double bandwidth,
                      long max_labels, double *duration, mp_events *plan) {
  cs s = {.g = g, .budget = budget, .bw = bandwidth};
  if (!(bandwidth > 0) || rb_masks_init(g, &s.m)) return RB_TOO_BIG;
  if (s.m.tensors > CB_MAXB) {
    rb_masks_destroy(&s.m);
    return RB_TOO_BIG;
  }
  if (order) {
    s.nonin = mp_xcalloc((size_t)g->n + 1, sizeof(int));
    for (int i = 0, j = 0; i < g->n; i++)
      if (!g->nodes[order[i]].is_input) s.nonin[j++] = order[i];
  }
  int rc = search(&s, max_labels, duration, plan);
  for (size_t i = 0; i < s.cap_tab; i++) free(s.bucket[i]);
  free(s.bucket);
  free(s.keys);
  free(s.l);
  free(s.heap);
  free(s.nonin);
  rb_masks_destroy(&s.m);
  return rc;
}
