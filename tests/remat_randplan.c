/* remat_randplan.c - see remat_randplan.h.
 *
 * The invariant that keeps a random plan completable: a buffer is freed only
 * if every buffer still needed afterwards (the reads of the nodes whose
 * first run is to come, and the graph outputs) can still be brought back,
 * by an `in` of a host copy or by running its producer again on buffers
 * that can themselves be brought back. */
#include <stdlib.h>
#include <string.h>

#include "remat_randplan.h"

typedef struct rp {
  const mp_graph *g;
  const or_model *m;
  mp_rng *r;
  bool copies;
  bool *res, *host, *inplace, *inset;
  int *runs;
  int *memo; /* restorable: -1 unknown, 0, 1 */
  ox_event *ev;
  int n, cap;
} rp;

static bool input_node(const mp_graph *g, int v) {
  return g->nodes[v].op && !strcmp(g->nodes[v].op, "input");
}

static void emit(rp *s, int kind, int node, int out) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->ev = realloc(s->ev, sizeof(ox_event) * (size_t)s->cap);
    if (!s->ev) abort();
  }
  s->ev[s->n++] = (ox_event){kind, node, out};
}

static bool tensor(const rp *s, int b) { return !s->m->b[b].ws; }

/* Can the producer of b run again (a recomputation)? */
static bool rerunnable(const rp *s, int v) {
  return !input_node(s->g, v) && !s->inset[v] && s->runs[v] > 0;
}

static bool restorable(rp *s, int b);

/* Can b be made again by running its producer (now or after bringing
 * back what the producer reads)? */
static bool recomputable(rp *s, int b) {
  int v = s->m->b[b].owner;
  bool ok = rerunnable(s, v);
  for (int i = 0; i < s->m->nb && ok; i++)
    if (s->m->b[i].reader[v]) ok = restorable(s, i);
  return ok;
}

static bool restorable(rp *s, int b) {
  if (s->res[b] || (s->copies && s->host[b])) return true;
  if (s->memo[b] < 0) s->memo[b] = recomputable(s, b);
  return s->memo[b];
}

static void forget(rp *s) {
  for (int i = 0; i < s->m->nb; i++) s->memo[i] = -1;
}

/* Is every buffer still needed restorable (or yet to be made by a first
 * run)? */
static bool needs_met(rp *s) {
  const or_model *m = s->m;
  forget(s);
  for (int i = 0; i < m->nb; i++) {
    if (!tensor(s, i)) continue;
    int owner = m->b[i].owner;
    if (!input_node(s->g, owner) && s->runs[owner] == 0) continue; /* its first run makes it */
    bool needed = m->b[i].graph_output;
    for (int w = 0; w < m->n && !needed; w++) needed = m->b[i].reader[w] && s->runs[w] == 0;
    if (needed && !restorable(s, i)) return false;
  }
  return true;
}

static bool can_free(rp *s, int b) {
  if (!s->res[b]) return false;
  if (s->inplace[b])
    for (int w = 0; w < s->m->n; w++)
      if (s->m->b[b].reader[w] && s->runs[w] == 0) return false;
  s->res[b] = false;
  bool ok = needs_met(s);
  s->res[b] = true;
  return ok;
}

static void run_node(rp *s, int v) {
  emit(s, OX_RUN, v, 0);
  s->runs[v]++;
  for (int i = 0; i < s->m->nb; i++)
    if (tensor(s, i) && s->m->b[i].owner == v) s->res[i] = true;
}

/* Make b resident: an in, or its producer again after its inputs. */
static void ensure(rp *s, int b) {
  if (s->res[b]) return;
  forget(s);
  int v = s->m->b[b].owner;
  bool can_rerun = recomputable(s, b);
  if (s->copies && s->host[b] && (!can_rerun || mp_rng_below(s->r, 2))) {
    emit(s, OX_IN, v, s->m->b[b].out);
    s->res[b] = true;
    return;
  }
  if (!can_rerun) abort(); /* the invariant guarantees one way back */
  for (int i = 0; i < s->m->nb; i++)
    if (s->m->b[i].reader[v]) ensure(s, i);
  for (int i = 0; i < s->m->nb; i++)
    if (tensor(s, i) && s->m->b[i].owner == v && s->res[i]) {
      emit(s, OX_FREE, v, s->m->b[i].out);
      s->res[i] = false;
    }
  run_node(s, v);
}

/* A random buffer index with pred true, or -1. */
static int pick(rp *s, bool (*pred)(rp *, int)) {
  int nb = s->m->nb, start = nb ? (int)mp_rng_below(s->r, (uint64_t)nb) : 0;
  for (int k = 0; k < nb; k++) {
    int i = (start + k) % nb;
    if (pred(s, i)) return i;
  }
  return -1;
}

static bool resident_tensor(rp *s, int i) { return tensor(s, i) && s->res[i]; }
static bool offloadable(rp *s, int i) { return resident_tensor(s, i) && !s->inplace[i]; }
static bool absent_restorable(rp *s, int i) {
  if (!tensor(s, i) || s->res[i]) return false;
  forget(s);
  return restorable(s, i);
}

static void random_actions(rp *s) {
  int k = (int)mp_rng_below(s->r, 4);
  while (k-- > 0) {
    uint64_t a = mp_rng_below(s->r, s->copies ? 3 : 2);
    int b;
    if (a == 0 && (b = pick(s, resident_tensor)) >= 0 && can_free(s, b)) {
      emit(s, OX_FREE, s->m->b[b].owner, s->m->b[b].out);
      s->res[b] = false;
    } else if (a == 1 && (b = pick(s, absent_restorable)) >= 0) {
      ensure(s, b);
    } else if (a == 2 && (b = pick(s, offloadable)) >= 0) {
      emit(s, OX_OUT, s->m->b[b].owner, s->m->b[b].out);
      s->host[b] = true;
    }
  }
}

int rp_random_plan(const mp_graph *g, const or_model *m, mp_rng *r, bool copies, ox_event **ev) {
  size_t nb = (size_t)(m->nb ? m->nb : 1), n = (size_t)(g->n ? g->n : 1);
  rp s = {.g = g, .m = m, .r = r, .copies = copies};
  s.res = calloc(nb, sizeof(bool));
  s.host = calloc(nb, sizeof(bool));
  s.inplace = calloc(nb, sizeof(bool));
  s.inset = calloc(n, sizeof(bool));
  s.runs = calloc(n, sizeof(int));
  s.memo = calloc(nb, sizeof(int));
  int *order = calloc(n, sizeof(int));
  if (!s.res || !s.host || !s.inplace || !s.inset || !s.runs || !s.memo || !order) abort();
  for (int i = 0; i < m->nb; i++) {
    s.res[i] = tensor(&s, i) && m->b[i].input;
    for (int w = 0; w < g->n; w++)
      if (g->nodes[w].inplace && m->b[i].alias_set[w] && w != m->b[i].owner) s.inplace[i] = true;
  }
  for (int v = 0; v < g->n; v++)
    for (int i = 0; i < m->nb; i++) s.inset[v] |= s.inplace[i] && m->b[i].alias_set[v];
  or_random_order(m, r, order);
  for (int t = 0; t < g->n; t++) {
    int v = order[t];
    if (input_node(g, v)) continue;
    random_actions(&s);
    for (int i = 0; i < m->nb; i++)
      if (m->b[i].reader[v]) ensure(&s, i);
    run_node(&s, v);
    random_actions(&s);
  }
  for (int i = 0; i < m->nb; i++)
    if (tensor(&s, i) && m->b[i].graph_output) ensure(&s, i);
  for (int i = 0; i < m->nb; i++) /* some last frees, outputs kept */
    if (tensor(&s, i) && !m->b[i].graph_output && mp_rng_below(r, 2) && can_free(&s, i)) {
      emit(&s, OX_FREE, m->b[i].owner, m->b[i].out);
      s.res[i] = false;
    }
  free(s.res);
  free(s.host);
  free(s.inplace);
  free(s.inset);
  free(s.runs);
  free(s.memo);
  free(order);
  *ev = s.ev;
  return s.n;
}
