/* remat_genome.c - the slots of a recomputation genome (remat_decode.h):
 * which buffer and reader each slot stands for, which kinds it may take,
 * and under a first-run order the gap of every slot, the steps before
 * which a node may run again, and the buffers that are never dropped. */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_decode.h"
#include "lib/remat_info.h"

/* Storages written in place, and the nodes of their alias sets (which run
 * exactly once: DESIGN 6.2). */
static void mark_inplace(mp_rdec *d) {
  const mp_graph *g = d->g;
  for (int v = 0; v < g->n; v++) {
    int b = ri_alias_root(g, v);
    if (g->nodes[v].inplace && b >= 0) d->inplace_buf[b] = true;
  }
  for (int v = 0; v < g->n; v++) {
    int b = ri_alias_root(g, v);
    if (b >= 0 && d->inplace_buf[b]) d->inplace_node[v] = true;
    if (g->nodes[v].has_alias) continue;
    for (int k = 0; k < g->nodes[v].n_out; k++)
      if (g->root_of[v][k] >= 0 && d->inplace_buf[g->root_of[v][k]]) d->inplace_node[v] = true;
  }
}

static void make_slots(mp_rdec *d) {
  const mp_graph *g = d->g;
  d->slot0 = mp_xmalloc(sizeof(int) * (size_t)(d->nb + 1));
  int m = 0;
  for (int b = 0; b < d->nb; b++) {
    d->slot0[b] = m;
    if (g->bufs[b].kind == MP_BUF_TENSOR)
      m += g->bufs[b].n_readers + (g->bufs[b].graph_output || g->bufs[b].n_readers > 0);
  }
  d->slot0[d->nb] = d->n_slots = m;
  size_t ms = (size_t)(m ? m : 1);
  d->slot_buf = mp_xmalloc(sizeof(int) * ms);
  d->slot_reader = mp_xmalloc(sizeof(int) * ms);
  d->allow = mp_xmalloc(ms);
  for (int b = 0; b < d->nb; b++) {
    const mp_buffer *bb = &g->bufs[b];
    d->remat_ok[b] = bb->kind == MP_BUF_TENSOR && !bb->born_at_start && !d->inplace_node[bb->owner];
    uint8_t allow = 1 << MP_RK_KEEP;
    if (d->remat_ok[b]) allow |= 1 << MP_RK_DROP | 1 << MP_RK_HOLD_DROP;
    if (d->bw > 0 && !d->inplace_buf[b]) allow |= 1 << MP_RK_OFFLOAD;
    for (int s = d->slot0[b]; s < d->slot0[b + 1]; s++) {
      int k = s - d->slot0[b];
      d->slot_buf[s] = b;
      d->slot_reader[s] = k < bb->n_readers ? bb->readers[k] : bb->graph_output ? MP_RSLOT_END
                                                                               : MP_RSLOT_TAIL;
      d->allow[s] = d->slot_reader[s] == MP_RSLOT_TAIL ? allow & (1 << MP_RK_DROP | 1) : allow;
    }
  }
}

void mp_rdec_init(mp_rdec *d, const mp_graph *g, double bandwidth) {
  memset(d, 0, sizeof *d);
  d->g = g;
  d->bw = bandwidth > 0 ? bandwidth : 0;
  d->n = g->n;
  d->nb = g->n_buf;
  size_t nn = (size_t)(g->n ? g->n : 1) + 1, nb = (size_t)(g->n_buf ? g->n_buf : 1) + 1;
  d->inplace_buf = mp_xcalloc(nb, sizeof(bool));
  d->inplace_node = mp_xcalloc(nn, sizeof(bool));
  d->remat_ok = mp_xcalloc(nb, sizeof(bool));
  mark_inplace(d);
  make_slots(d);
  size_t ms = (size_t)(d->n_slots ? d->n_slots : 1);
  d->order = mp_xmalloc(sizeof(int) * nn);
  d->pos = mp_xmalloc(sizeof(int) * nn);
  d->gs = mp_xmalloc(sizeof(int) * ms);
  d->ge = mp_xmalloc(sizeof(int) * ms);
  d->gap0 = mp_xmalloc(sizeof(int) * nb);
  d->gaps = mp_xmalloc(sizeof(int) * ms);
  d->rerun_until = mp_xmalloc(sizeof(int) * nn);
  d->pinned = mp_xcalloc(nb, sizeof(bool));
  d->next_write = mp_xmalloc(sizeof(int) * nb);
  d->resident = mp_xcalloc(nb, sizeof(bool));
  d->host = mp_xcalloc(nb, sizeof(bool));
  d->res_of = mp_xmalloc(sizeof(int) * nb);
  d->cursor = mp_xmalloc(sizeof(int) * nb);
  d->drop_slot = mp_xmalloc(sizeof(int) * nb);
  d->stamp = mp_xcalloc(nb, sizeof(int));
  d->touched = mp_xmalloc(sizeof(int) * nb);
  d->bucket_head = mp_xmalloc(sizeof(int) * nn);
  d->bucket_next = mp_xmalloc(sizeof(int) * ms);
  d->sched_head = mp_xmalloc(sizeof(int) * nn);
  d->clock = mp_xmalloc(sizeof(double) * 3 * nb);
  d->strict = true;
  d->max_events = g->n < (INT32_MAX - 4096) / 128 ? 64 * (g->n + 1) + 4096 : INT32_MAX / 2;
  mp_events_init(&d->raw);
  mp_events_init(&d->plan);
}

void mp_rdec_destroy(mp_rdec *d) {
  void *arrays[] = {d->inplace_buf, d->inplace_node, d->remat_ok, d->slot0, d->slot_buf,
                    d->slot_reader, d->allow, d->order, d->pos, d->gs, d->ge, d->gap0, d->gaps,
                    d->rerun_until, d->pinned, d->next_write, d->resident, d->host, d->res_of, d->cursor,
                    d->drop_slot, d->stamp, d->touched, d->bucket_head, d->bucket_next,
                    d->sched_head, d->sched_next, d->sched_buf, d->raw_step, d->res,
                    d->free_head, d->free_next, d->clock};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) free(arrays[i]);
  mp_events_destroy(&d->raw);
  mp_events_destroy(&d->plan);
  memset(d, 0, sizeof *d);
}

/* Sort a buffer's slots by the end of their gaps (insertion sort: few
 * readers each; a long list falls back on qsort_r). */
static int by_end(const void *a, const void *b, void *ctx) {
  const int *ge = ctx;
  return (ge[*(const int *)a] > ge[*(const int *)b]) - (ge[*(const int *)a] < ge[*(const int *)b]);
}

static void sort_gaps(int *s, int m, int *ge) {
  if (m > 24) {
    qsort_r(s, (size_t)m, sizeof(int), by_end, ge);
    return;
  }
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0 && ge[s[j - 1]] > ge[s[j]]; j--) {
      int x = s[j];
      s[j] = s[j - 1];
      s[j - 1] = x;
    }
}

/* Each slot's gap: from the previous use of its buffer (or its owner's
 * step) to its reader's step (n for the end slot). */
static void set_gaps(mp_rdec *d) {
  const mp_graph *g = d->g;
  for (int b = 0; b < d->nb; b++) {
    int first = d->slot0[b], m = d->slot0[b + 1] - first;
    d->gap0[b] = first;
    for (int s = first; s < first + m; s++) {
      d->ge[s] = d->slot_reader[s] >= 0 ? d->pos[d->slot_reader[s]] : d->n; /* end, tail: n */
      d->gaps[s] = s;
    }
    sort_gaps(d->gaps + first, m, d->ge);
    int prev = g->bufs[b].kind == MP_BUF_TENSOR ? d->pos[g->bufs[b].owner] : 0;
    for (int i = 0; i < m; i++) {
      int s = d->gaps[first + i];
      d->gs[s] = prev;
      prev = d->ge[s];
    }
  }
  d->gap0[d->nb] = d->n_slots;
}

/* A node that reads storage written in place may run again only up to the
 * step of the next in-place write to that storage after its own (strict;
 * without it, whenever the verifier allows).  One sweep back over the
 * order with the step of each storage's next write: a long in-place chain
 * has every node read its root, and a scan of the readers per writer
 * would be quadratic. */
static void set_rerun_limits(mp_rdec *d) {
  const mp_graph *g = d->g;
  int n = d->n;
  for (int v = 0; v < n; v++) d->rerun_until[v] = n + 1;
  for (int b = 0; b < d->nb; b++) d->next_write[b] = n; /* none */
  for (int t = n - 1; t >= 0 && d->strict; t--) {
    int v = d->order[t];
    /* writes at v's own step or before it do not count */
    for (int k = 0; k < g->n_reads[v]; k++) {
      int w = d->next_write[g->reads[v][k]];
      if (w < n && w + 1 < d->rerun_until[v]) d->rerun_until[v] = w + 1;
    }
    int q = ri_alias_root(g, v);
    if (g->nodes[v].inplace && q >= 0) d->next_write[q] = t;
  }
  for (int b = 0; b < d->nb; b++) {
    const mp_buffer *bb = &g->bufs[b];
    d->pinned[b] = bb->kind == MP_BUF_TENSOR &&
                   (!d->remat_ok[b] || d->rerun_until[bb->owner] <= n);
  }
}

void mp_rdec_set_order(mp_rdec *d, const int *order) {
  memcpy(d->order, order, sizeof(int) * (size_t)d->n);
  for (int i = 0; i < d->n; i++) d->pos[order[i]] = i;
  set_gaps(d);
  set_rerun_limits(d);
}

void mp_rgenes_keep_all(const mp_rdec *d, mp_rgene *genes) {
  for (int s = 0; s < d->n_slots; s++) genes[s] = (mp_rgene){MP_RK_KEEP, 0, 0};
}

/* Storage written in place is never recomputed nor offloaded and is freed
 * only after its readers' first runs (DESIGN 6.2): from its owner's step to
 * its last reader's it is resident in every plan whose first runs follow
 * the order, and the run at each step adds what it reads and makes. */
int64_t mp_rdec_inplace_floor(const mp_rdec *d, int *at) {
  const mp_graph *g = d->g;
  int n = d->n;
  int64_t *delta = mp_xcalloc((size_t)n + 2, sizeof(int64_t)), best = 0, live = 0;
  int *last = mp_xmalloc(sizeof(int) * (size_t)(d->nb ? d->nb : 1));
  for (int b = 0; b < d->nb; b++) {
    last[b] = -1;
    if (!d->inplace_buf[b]) continue;
    int from = d->pos[g->bufs[b].owner];
    last[b] = from;
    for (int k = 0; k < g->bufs[b].n_readers; k++)
      if (d->pos[g->bufs[b].readers[k]] > last[b]) last[b] = d->pos[g->bufs[b].readers[k]];
    delta[from] += g->bufs[b].size;
    delta[last[b] + 1] -= g->bufs[b].size;
  }
  *at = -1;
  for (int t = 0; t < n; t++) {
    live += delta[t];
    int v = d->order[t];
    if (g->nodes[v].is_input) continue;
    int64_t x = live + mp_node_need(g, v);
    for (int k = 0; k < g->n_reads[v]; k++) /* counted in live already */
      if (d->inplace_buf[g->reads[v][k]] && last[g->reads[v][k]] >= t) x -= g->bufs[g->reads[v][k]].size;
    if (!g->nodes[v].has_alias)
      for (int k = 0; k < g->nodes[v].n_out; k++) {
        int b = g->root_of[v][k];
        if (b >= 0 && d->inplace_buf[b]) x -= g->bufs[b].size;
      }
    if (x > best) {
      best = x;
      *at = t;
    }
  }
  free(delta);
  free(last);
  return best;
}
