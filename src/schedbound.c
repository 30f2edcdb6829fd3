/* schedbound.c - see schedbound.h. */
#include <stdlib.h>

#include "schedbound.h"
#include "solver.h"

int64_t mp_cut_lower_bound(const mp_graph *g, int *v_out) {
  int n = g->n;
  if (v_out) *v_out = -1;
  if (n == 0) return 0;
  size_t words = (size_t)(n + 63) / 64;
  /* anc[v] and des[v] include v itself */
  uint64_t *anc = mp_xcalloc((size_t)n * words, sizeof(uint64_t));
  uint64_t *des = mp_xcalloc((size_t)n * words, sizeof(uint64_t));
  for (int i = 0; i < n; i++) {
    int v = g->given[i];
    uint64_t *a = anc + (size_t)v * words;
    a[v >> 6] |= 1ull << (v & 63);
    for (int j = 0; j < g->n_pred[v]; j++) {
      const uint64_t *p = anc + (size_t)g->pred[v][j] * words;
      for (size_t w = 0; w < words; w++) a[w] |= p[w];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    int v = g->given[i];
    uint64_t *d = des + (size_t)v * words;
    d[v >> 6] |= 1ull << (v & 63);
    for (int j = 0; j < g->n_succ[v]; j++) {
      const uint64_t *s = des + (size_t)g->succ[v][j] * words;
      for (size_t w = 0; w < words; w++) d[w] |= s[w];
    }
  }
#define HAS(set, x) ((set)[(x) >> 6] >> ((x) & 63) & 1)
  int64_t *sum = mp_xcalloc((size_t)n, sizeof(int64_t));
  int64_t dead_inputs = 0;
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    if (bb->size <= 0) continue;
    if (bb->kind == MP_BUF_WORKSPACE) {
      sum[bb->owner] += bb->size;
      continue;
    }
    if (bb->born_at_start && bb->n_readers == 0 && !bb->graph_output) {
      dead_inputs += bb->size;
      continue;
    }
    for (int v = 0; v < n; v++) {
      const uint64_t *a = anc + (size_t)v * words, *d = des + (size_t)v * words;
      if (!bb->born_at_start && !HAS(a, bb->owner)) continue; /* not made yet */
      bool live = bb->graph_output || (!bb->born_at_start && bb->owner == v);
      for (int i = 0; i < bb->n_readers && !live; i++) live = HAS(d, bb->readers[i]);
      if (live) sum[v] += bb->size;
    }
  }
#undef HAS
  int64_t best = 0;
  for (int v = 0; v < n; v++)
    if (sum[v] > best) {
      best = sum[v];
      if (v_out) *v_out = v;
    }
  /* the first step: every graph input, read or not, is live */
  int64_t first = dead_inputs;
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start && g->bufs[b].size > 0 &&
        !(g->bufs[b].n_readers == 0 && !g->bufs[b].graph_output))
      first += g->bufs[b].size;
  if (first > best) {
    best = first;
    if (v_out) *v_out = -1;
  }
  free(sum);
  free(anc);
  free(des);
  return best;
}
