/* sim.c - the live bytes of an order being built, step by step, for list
 * schedulers and searches (see sim.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/sim.h"

/* The bytes node v's own tensors allocate (*a) and of those nobody reads
 * (*dead): its outputs that are roots of buffers it owns, not born at the
 * start. */
static void own_bytes(const mp_graph *g, int v, int64_t *a, int64_t *dead) {
  const mp_node *nd = &g->nodes[v];
  *a = *dead = 0;
  for (int k = 0; k < nd->n_out; k++) {
    int b = g->root_of[v][k];
    if (b < 0) continue;
    const mp_buffer *bb = &g->bufs[b];
    if (bb->owner != v || bb->out != k || bb->kind != MP_BUF_TENSOR || bb->born_at_start) continue;
    *a += bb->size;
    if (bb->n_readers == 0 && !bb->graph_output) *dead += bb->size;
  }
}

void mp_sim_init(mp_sim *s, const mp_graph *g) {
  memset(s, 0, sizeof *s);
  s->g = g;
  size_t nz = (size_t)(g->n ? g->n : 1);
  s->remaining = mp_xmalloc(sizeof(int) * (size_t)(g->n_buf ? g->n_buf : 1));
  s->missing = mp_xmalloc(sizeof(int) * nz);
  s->done = mp_xcalloc(nz, sizeof(bool));
  s->own = mp_xmalloc(sizeof(int64_t) * nz);
  s->own_dead = mp_xmalloc(sizeof(int64_t) * nz);
  s->ws = mp_xmalloc(sizeof(int64_t) * nz);
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    s->remaining[b] = bb->n_readers;
    if (bb->kind == MP_BUF_TENSOR && bb->born_at_start) {
      s->live += bb->size; /* graph inputs exist before the first step */
      if (bb->n_readers == 0 && !bb->graph_output) s->dead_inputs += bb->size;
    }
  }
  for (int v = 0; v < g->n; v++) {
    s->missing[v] = g->n_pred[v];
    own_bytes(g, v, &s->own[v], &s->own_dead[v]);
    s->ws[v] = g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0;
  }
}

void mp_sim_destroy(mp_sim *s) {
  free(s->remaining);
  free(s->missing);
  free(s->done);
  free(s->own);
  free(s->own_dead);
  free(s->ws);
  memset(s, 0, sizeof *s);
}

/* Bytes a step of v allocates (its own new tensors and workspace) and frees
 * after it (last reads, dead values, dead inputs after the first step). */
static void step_delta(const mp_sim *s, int v, int64_t *alloc, int64_t *ws, int64_t *freed) {
  const mp_graph *g = s->g;
  int64_t f = s->own_dead[v];
  for (int i = 0; i < g->n_reads[v]; i++) {
    int b = g->reads[v][i];
    if (s->remaining[b] == 1 && !g->bufs[b].graph_output) f += g->bufs[b].size;
  }
  if (s->steps == 0) f += s->dead_inputs;
  *alloc = s->own[v];
  *ws = s->ws[v];
  *freed = f;
}

int64_t mp_sim_cost(const mp_sim *s, int v, int64_t *after) {
  int64_t a, w, f;
  step_delta(s, v, &a, &w, &f);
  int64_t during = s->live + a + w;
  if (after) *after = during - w - f;
  return during;
}

/* v runs, needing `during` bytes and leaving `after` live. */
static void advance(mp_sim *s, int v, int64_t during, int64_t after) {
  const mp_graph *g = s->g;
  if (during > s->peak) s->peak = during;
  s->live = after;
  for (int i = 0; i < g->n_reads[v]; i++) s->remaining[g->reads[v][i]]--;
  s->done[v] = true;
  s->steps++;
  for (int i = 0; i < g->n_succ[v]; i++) s->missing[g->succ[v][i]]--;
}

void mp_sim_run(mp_sim *s, int v) {
  int64_t after, during = mp_sim_cost(s, v, &after);
  advance(s, v, during, after);
}

void mp_sim_run_freeing(mp_sim *s, int v, int64_t freed) {
  int64_t during = s->live + s->own[v] + s->ws[v];
  if (s->steps == 0) freed += s->dead_inputs;
  advance(s, v, during, during - s->ws[v] - freed);
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
