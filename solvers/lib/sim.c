/* sim.c - the live bytes of an order being built, step by step, for list
 * schedulers and searches (see sim.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/sim.h"

void mp_sim_init(mp_sim *s, const mp_graph *g) {
  memset(s, 0, sizeof *s);
  s->g = g;
  s->remaining = mp_xmalloc(sizeof(int) * (size_t)(g->n_buf ? g->n_buf : 1));
  s->missing = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  s->done = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(bool));
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    s->remaining[b] = bb->n_readers;
    if (bb->kind == MP_BUF_TENSOR && bb->born_at_start) {
      s->live += bb->size; /* graph inputs exist before the first step */
      if (bb->n_readers == 0 && !bb->graph_output) s->dead_inputs += bb->size;
    }
  }
  for (int v = 0; v < g->n; v++) s->missing[v] = g->n_pred[v];
}

void mp_sim_destroy(mp_sim *s) {
  free(s->remaining);
  free(s->missing);
  free(s->done);
  memset(s, 0, sizeof *s);
}

void mp_sim_copy(mp_sim *dst, const mp_sim *src) {
  const mp_graph *g = src->g;
  int *r = dst->remaining, *m = dst->missing;
  bool *d = dst->done;
  *dst = *src;
  dst->remaining = r;
  dst->missing = m;
  dst->done = d;
  memcpy(r, src->remaining, sizeof(int) * (size_t)g->n_buf);
  memcpy(m, src->missing, sizeof(int) * (size_t)g->n);
  memcpy(d, src->done, sizeof(bool) * (size_t)g->n);
}

/* Bytes a step of v allocates (its own new tensors and workspace) and frees
 * after it (last reads, dead values, dead inputs after the first step). */
static void step_delta(const mp_sim *s, int v, int64_t *alloc, int64_t *ws, int64_t *freed) {
  const mp_graph *g = s->g;
  const mp_node *nd = &g->nodes[v];
  int64_t a = 0, f = 0;
  for (int k = 0; k < nd->n_out; k++) {
    int b = g->root_of[v][k];
    if (b < 0) continue;
    const mp_buffer *bb = &g->bufs[b];
    if (bb->owner != v || bb->out != k || bb->kind != MP_BUF_TENSOR) continue;
    if (!bb->born_at_start) {
      a += bb->size;
      if (bb->n_readers == 0 && !bb->graph_output) f += bb->size; /* dead value */
    }
  }
  for (int i = 0; i < g->n_reads[v]; i++) {
    int b = g->reads[v][i];
    if (s->remaining[b] == 1 && !g->bufs[b].graph_output) f += g->bufs[b].size;
  }
  if (s->steps == 0) f += s->dead_inputs;
  *alloc = a;
  *ws = g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0;
  *freed = f;
}

int64_t mp_sim_cost(const mp_sim *s, int v, int64_t *after) {
  int64_t a, w, f;
  step_delta(s, v, &a, &w, &f);
  int64_t during = s->live + a + w;
  if (after) *after = during - w - f;
  return during;
}

void mp_sim_run(mp_sim *s, int v) {
  const mp_graph *g = s->g;
  int64_t after, during = mp_sim_cost(s, v, &after);
  if (during > s->peak) s->peak = during;
  s->live = after;
  for (int i = 0; i < g->n_reads[v]; i++) s->remaining[g->reads[v][i]]--;
  s->done[v] = true;
  s->steps++;
  for (int i = 0; i < g->n_succ[v]; i++) s->missing[g->succ[v][i]]--;
}

bool mp_sim_order_ok(const mp_graph *g, const int *order, int64_t *peak) {
  mp_sim s;
  mp_sim_init(&s, g);
  bool ok = true;
  for (int t = 0; t < g->n && ok; t++) {
    int v = order[t];
    ok = v >= 0 && v < g->n && mp_sim_ready(&s, v);
    if (ok) mp_sim_run(&s, v);
  }
  if (ok && peak) *peak = s.peak;
  mp_sim_destroy(&s);
  return ok;
}
