/* remat_decode.c - the decoder's first pass (remat_decode.h): one walk over
 * the first-run order emits runs, ins and outs and records every residency
 * (made by which event, last used by which, left when); remat_measure.c
 * then places the frees and measures the plan. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_decode.h"

/* ---- the raw events and the residencies ---- */

static int emit(mp_rdec *d, mp_event_kind kind, int id, int step) {
  if (d->raw.n == d->raw_cap) {
    d->raw_cap = d->raw_cap ? 2 * d->raw_cap : 256;
    d->raw_step = mp_xrealloc(d->raw_step, sizeof(int) * (size_t)d->raw_cap);
  }
  d->raw_step[d->raw.n] = step;
  mp_events_push(&d->raw, kind, id);
  return d->raw.n - 1;
}

static void touch(mp_rdec *d, int b) {
  if (d->stamp[b] == d->cur_stamp) return;
  d->stamp[b] = d->cur_stamp;
  d->touched[d->n_touched++] = b;
}

static void res_open(mp_rdec *d, int b, int make) {
  if (d->n_res == d->cap_res) {
    d->cap_res = d->cap_res ? 2 * d->cap_res : 256;
    d->res = mp_xrealloc(d->res, sizeof(mp_rres) * (size_t)d->cap_res);
  }
  d->res[d->n_res] = (mp_rres){b, make, -1, -2};
  d->res_of[b] = d->n_res++;
  d->resident[b] = true;
  touch(d, b);
}

static void res_use(mp_rdec *d, int b, int ev) { d->res[d->res_of[b]].last = ev; }

/* end: -1 to free right after the last use, else after raw event `end`. */
static void res_close(mp_rdec *d, int b, int end) {
  d->res[d->res_of[b]].end = end;
  d->res_of[b] = -1;
  d->resident[b] = false;
}

/* ---- what a gene says ---- */

/* The step a dropped or offloaded buffer returns at, and an offload's free. */
static int return_step(const mp_rdec *d, int s) {
  int back = d->genes[s].back, len = d->ge[s] - d->gs[s];
  if (back < 0) back = 0;
  if (back > len - 1) back = len - 1;
  return d->ge[s] - back;
}

static int free_step(const mp_rdec *d, int s, int r) {
  int64_t f = (int64_t)d->gs[s] + (d->genes[s].delay > 0 ? d->genes[s].delay : 0);
  return f < r - 1 ? (int)f : r - 1;
}

enum { V_KEEP, V_DROP, V_OFFLOAD, V_HOLD_DROP };

/* What resident buffer b does after step t: stays, leaves or goes to the
 * host, by the gene of the gap it is in (*slot; -1 past every gap: the end
 * of the plan, or a dead value). */
static int verdict(mp_rdec *d, int b, int t, int *slot) {
  int first = d->gap0[b], m = d->gap0[b + 1] - first;
  while (d->cursor[b] < m && d->ge[d->gaps[first + d->cursor[b]]] <= t) d->cursor[b]++;
  *slot = -1;
  if (d->cursor[b] == m) return d->g->bufs[b].graph_output || d->pinned[b] ? V_KEEP : V_DROP;
  int s = *slot = d->gaps[first + d->cursor[b]], kind = d->genes[s].kind;
  if (kind == MP_RK_KEEP || !mp_rdec_allows(d, s, kind) || t >= return_step(d, s)) return V_KEEP;
  return kind == MP_RK_DROP ? V_DROP : kind == MP_RK_OFFLOAD ? V_OFFLOAD : V_HOLD_DROP;
}

/* ---- the forward pass ---- */

static int remat(mp_rdec *d, int b, int t);

/* Can b be made again at step t? */
static bool can_remat(const mp_rdec *d, int b, int t) {
  return d->host[b] || (d->remat_ok[b] && t < d->rerun_until[d->g->bufs[b].owner]);
}

/* Run v at step t (a first run or again): its missing inputs first. */
static int run_node(mp_rdec *d, int v, int t) {
  const mp_graph *g = d->g;
  if (d->raw.n > d->max_events) return -1; /* a plan this long is not worth finishing */
  for (int k = 0; k < g->n_reads[v]; k++) {
    int q = g->reads[v][k];
    if (!d->resident[q] && remat(d, q, t)) return -1;
  }
  const mp_node *nd = &g->nodes[v];
  if (!nd->has_alias) /* running again: its outputs go first */
    for (int k = 0; k < nd->n_out; k++)
      if (g->root_of[v][k] >= 0 && d->resident[g->root_of[v][k]]) res_close(d, g->root_of[v][k], -1);
  int e = emit(d, MP_EV_RUN, v, t);
  for (int k = 0; k < g->n_reads[v]; k++) {
    res_use(d, g->reads[v][k], e);
    touch(d, g->reads[v][k]);
  }
  if (!nd->has_alias)
    for (int k = 0; k < nd->n_out; k++)
      if (g->root_of[v][k] >= 0) res_open(d, g->root_of[v][k], e);
  return 0;
}

/* Bring b back at step t: in from its host copy, else its owner again. */
static int remat(mp_rdec *d, int b, int t) {
  if (d->host[b]) {
    res_open(d, b, emit(d, MP_EV_IN, b, t));
    return 0;
  }
  if (!can_remat(d, b, t)) {
    d->fail_slot = d->drop_slot[b];
    return -1;
  }
  return run_node(d, d->g->bufs[b].owner, t);
}

static void schedule(mp_rdec *d, int b, int step) {
  if (d->n_sched == d->cap_sched) {
    d->cap_sched = d->cap_sched ? 2 * d->cap_sched : 64;
    d->sched_next = mp_xrealloc(d->sched_next, sizeof(int) * (size_t)d->cap_sched);
    d->sched_buf = mp_xrealloc(d->sched_buf, sizeof(int) * (size_t)d->cap_sched);
  }
  d->sched_buf[d->n_sched] = b;
  d->sched_next[d->n_sched] = d->sched_head[step];
  d->sched_head[step] = d->n_sched++;
}

/* After step t: resident buffer b follows its verdict.  An offload copies
 * out at once and frees at the gene's step (a later step: scheduled), a
 * held drop frees there. */
static void decide(mp_rdec *d, int b, int t) {
  if (!d->resident[b]) return;
  int s, v = verdict(d, b, t, &s);
  if (v == V_KEEP) return;
  if (v == V_HOLD_DROP) {
    int f = free_step(d, s, return_step(d, s));
    if (t < f) {
      schedule(d, b, f);
      return;
    }
    v = V_DROP;
  }
  if (v == V_OFFLOAD) {
    if (!d->host[b]) {
      res_use(d, b, emit(d, MP_EV_OUT, b, t));
      d->host[b] = true;
    }
    int f = free_step(d, s, return_step(d, s));
    if (t < f) {
      schedule(d, b, f);
      return;
    }
  }
  d->drop_slot[b] = s;
  res_close(d, b, v == V_OFFLOAD ? d->raw.n - 1 : -1);
}

static void after_step(mp_rdec *d, int t) {
  for (int i = 0; i < d->n_touched; i++) decide(d, d->touched[i], t);
  if (t < d->n)
    for (int x = d->sched_head[t]; x >= 0; x = d->sched_next[x]) decide(d, d->sched_buf[x], t);
}

/* The buffers whose gaps bring them back at step t: ins first (their copies
 * overlap the runs), then recomputations. */
static int bring_back(mp_rdec *d, int t) {
  for (int pass = 0; pass < 2; pass++)
    for (int s = d->bucket_head[t]; s >= 0; s = d->bucket_next[s]) {
      int b = d->slot_buf[s];
      if (d->resident[b] || d->host[b] != (pass == 0)) continue;
      if (remat(d, b, t)) return -1;
    }
  return 0;
}

/* A fresh stamp for touch().  remat-sa with fill=1 decodes until its time
 * limit: after 2^31 steps the stamp wrapped (signed overflow); the marks
 * restart from 0 instead. */
static void new_stamp(mp_rdec *d) {
  if (d->cur_stamp == INT_MAX) {
    memset(d->stamp, 0, sizeof(int) * (size_t)d->nb);
    d->cur_stamp = 0;
  }
  d->cur_stamp++;
  d->n_touched = 0;
}

static void reset(mp_rdec *d, const mp_rgene *genes) {
  const mp_graph *g = d->g;
  d->genes = genes;
  d->fail_slot = -1;
  mp_events_clear(&d->raw);
  d->n_res = d->n_sched = 0;
  for (int b = 0; b < d->nb; b++) {
    d->resident[b] = d->host[b] = false;
    d->res_of[b] = d->drop_slot[b] = -1;
    d->cursor[b] = 0;
  }
  for (int t = 0; t <= d->n; t++) d->bucket_head[t] = d->sched_head[t] = -1;
  for (int s = d->n_slots - 1; s >= 0; s--) {
    if (genes[s].kind == MP_RK_KEEP || !mp_rdec_allows(d, s, genes[s].kind)) continue;
    int r = return_step(d, s);
    if (r >= d->ge[s]) continue; /* just in time: the run that needs it */
    d->bucket_next[s] = d->bucket_head[r];
    d->bucket_head[r] = s;
  }
  new_stamp(d);
  for (int b = 0; b < d->nb; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start) res_open(d, b, -1);
}

static int forward(mp_rdec *d) {
  const mp_graph *g = d->g;
  for (int t = 0; t < d->n; t++) {
    int v = d->order[t];
    new_stamp(d);
    if (bring_back(d, t)) return -1;
    if (g->nodes[v].is_input) {
      for (int k = 0; k < g->nodes[v].n_out; k++)
        if (g->root_of[v][k] >= 0) touch(d, g->root_of[v][k]);
    } else if (run_node(d, v, t)) {
      return -1;
    }
    after_step(d, t);
  }
  new_stamp(d);
  for (int b = 0; b < d->nb; b++) /* the outputs end resident */
    if (g->bufs[b].graph_output && !d->resident[b] && remat(d, b, d->n)) return -1;
  after_step(d, d->n);
  return 0;
}

int mp_rdec_decode(mp_rdec *d, const mp_rgene *genes, int64_t budget, mp_rfig *f) {
  memset(f, 0, sizeof *f);
  reset(d, genes);
  if (forward(d)) {
    f->fail_slot = d->fail_slot;
    return -1;
  }
  f->fail_slot = -1;
  mp_rdec_measure(d, budget, f);
  return 0;
}
