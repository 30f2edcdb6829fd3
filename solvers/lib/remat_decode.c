/* remat_decode.c - the decoder of remat_decode.h: genes -> event plan, its
 * memory samples and its duration.  One pass over the first-run order
 * emits runs, ins and outs and records each residency; a second pass puts
 * every free right behind the residency's last use (an offload's where its
 * gene says) and measures the plan. */
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

/* ---- the forward pass ---- */

static int remat(mp_rdec *d, int b, int t);

/* Run v at step t (a first run or again): its missing inputs first. */
static int run_node(mp_rdec *d, int v, int t) {
  const mp_graph *g = d->g;
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
  int v = d->g->bufs[b].owner;
  if (!d->remat_ok[b] || t >= d->rerun_until[v]) {
    d->fail_slot = d->drop_slot[b];
    return -1;
  }
  return run_node(d, v, t);
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

/* After step t: resident buffer b follows the gene of the gap it is in. */
static void decide(mp_rdec *d, int b, int t) {
  if (!d->resident[b]) return;
  int first = d->gap0[b], m = d->gap0[b + 1] - first;
  while (d->cursor[b] < m && d->ge[d->gaps[first + d->cursor[b]]] <= t) d->cursor[b]++;
  if (d->cursor[b] == m) { /* past its last gap: the end of the plan (outputs) or a dead value */
    if (!d->g->bufs[b].graph_output && !d->pinned[b]) res_close(d, b, -1);
    return;
  }
  int s = d->gaps[first + d->cursor[b]];
  int kind = d->genes[s].kind;
  if (kind == MP_RK_KEEP || !mp_rdec_allows(d, s, kind) || t < d->gs[s]) return;
  int r = return_step(d, s);
  if (t >= r) return; /* back for the end of the gap */
  if (kind == MP_RK_DROP) {
    d->drop_slot[b] = s;
    res_close(d, b, -1);
    return;
  }
  if (!d->host[b]) {
    res_use(d, b, emit(d, MP_EV_OUT, b, t));
    d->host[b] = true;
  }
  int f = free_step(d, s, r);
  if (t < f) {
    schedule(d, b, f);
    return;
  }
  d->drop_slot[b] = s;
  res_close(d, b, d->raw.n - 1);
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
  d->cur_stamp++;
  d->n_touched = 0;
  for (int b = 0; b < d->nb; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start) res_open(d, b, -1);
}

static int forward(mp_rdec *d) {
  const mp_graph *g = d->g;
  for (int t = 0; t < d->n; t++) {
    int v = d->order[t];
    d->cur_stamp++;
    d->n_touched = 0;
    if (bring_back(d, t)) return -1;
    if (g->nodes[v].is_input) {
      for (int k = 0; k < g->nodes[v].n_out; k++)
        if (g->root_of[v][k] >= 0) touch(d, g->root_of[v][k]);
    } else if (run_node(d, v, t)) {
      return -1;
    }
    after_step(d, t);
  }
  d->cur_stamp++;
  d->n_touched = 0;
  for (int b = 0; b < d->nb; b++)
    if (g->bufs[b].graph_output && !d->resident[b] && remat(d, b, d->n)) return -1;
  after_step(d, d->n);
  return 0;
}

/* ---- the second pass: frees, memory, duration ---- */

static void place_frees(mp_rdec *d) {
  int m = d->raw.n;
  if (m + 1 > d->free_cap) {
    d->free_cap = 2 * (m + 1);
    d->free_head = mp_xrealloc(d->free_head, sizeof(int) * (size_t)d->free_cap);
  }
  d->free_next = mp_xrealloc(d->free_next, sizeof(int) * (size_t)(d->n_res ? d->n_res : 1));
  for (int i = 0; i <= m; i++) d->free_head[i] = -1;
  for (int i = d->n_res - 1; i >= 0; i--) {
    mp_rres *x = &d->res[i];
    if (d->res_of[x->buf] == i) { /* still open at the end */
      if (d->g->bufs[x->buf].graph_output) continue;
      x->end = -1;
    }
    int after = x->end >= 0 ? x->end : (x->make > x->last ? x->make : x->last);
    d->free_next[i] = d->free_head[after + 1];
    d->free_head[after + 1] = i;
  }
}

static int64_t run_bytes(const mp_graph *g, int v) {
  int64_t s = 0;
  if (!g->nodes[v].has_alias)
    for (int k = 0; k < g->nodes[v].n_out; k++)
      if (g->root_of[v][k] >= 0) s += g->bufs[g->root_of[v][k]].size;
  return s;
}

/* Build d->plan from the raw events and the frees, sampling memory. */
static void build_plan(mp_rdec *d, int64_t budget, mp_rfig *f) {
  const mp_graph *g = d->g;
  int64_t live = 0;
  for (int b = 0; b < d->nb; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start) live += g->bufs[b].size;
  f->peak = live;
  f->hot_step = 0;
  f->excess = live > budget ? (double)(live - budget) : 0;
  f->over_steps = live > budget;
  mp_events_clear(&d->plan);
  for (int i = -1; i < d->raw.n; i++) {
    if (i >= 0) {
      mp_event e = d->raw.ev[i];
      mp_events_push(&d->plan, e.kind, e.id);
      int64_t sample = -1;
      if (e.kind == MP_EV_RUN) {
        live += run_bytes(g, e.id);
        int ws = g->ws_buf[e.id];
        sample = live + (ws >= 0 ? g->bufs[ws].size : 0);
      } else if (e.kind == MP_EV_IN) {
        sample = live += g->bufs[e.id].size;
      }
      if (sample >= 0) {
        if (sample > f->peak) {
          f->peak = sample;
          f->hot_step = d->raw_step[i];
        }
        if (sample > budget) {
          f->excess += (double)(sample - budget);
          f->over_steps++;
        }
      }
    }
    for (int x = d->free_head[i + 1]; x >= 0; x = d->free_next[x]) {
      mp_events_push(&d->plan, MP_EV_FREE, d->res[x].buf);
      live -= g->bufs[d->res[x].buf].size;
    }
  }
}

static double max2(double a, double b) { return a > b ? a : b; }

/* DESIGN 6.3's simulation: issue in plan order at the floor a free raises;
 * one compute stream, one stream per copy direction. */
static double simulate(mp_rdec *d) {
  const mp_graph *g = d->g;
  double *ready = d->clock, *last_read = d->clock + d->nb, *last_out = d->clock + 2 * d->nb;
  for (int i = 0; i < 3 * d->nb; i++) d->clock[i] = 0;
  double floor = 0, compute = 0, to_host = 0, from_host = 0, end = 0;
  for (int i = 0; i < d->plan.n; i++) {
    mp_event e = d->plan.ev[i];
    int b = e.id;
    if (e.kind == MP_EV_RUN) {
      double t0 = max2(floor, compute);
      for (int k = 0; k < g->n_reads[b]; k++) t0 = max2(t0, ready[g->reads[b][k]]);
      compute = t0 + g->nodes[b].cost;
      for (int k = 0; k < g->n_reads[b]; k++) last_read[g->reads[b][k]] = compute;
      if (!g->nodes[b].has_alias)
        for (int k = 0; k < g->nodes[b].n_out; k++)
          if (g->root_of[b][k] >= 0) ready[g->root_of[b][k]] = compute;
      end = max2(end, compute);
    } else if (e.kind == MP_EV_FREE) {
      floor = max2(floor, max2(last_read[b], last_out[b]));
    } else if (e.kind == MP_EV_OUT) {
      to_host = max2(max2(floor, to_host), ready[b]) + (double)g->bufs[b].size / d->bw;
      last_out[b] = to_host;
      end = max2(end, to_host);
    } else {
      from_host = max2(max2(floor, from_host), last_out[b]) + (double)g->bufs[b].size / d->bw;
      ready[b] = from_host;
      end = max2(end, from_host);
    }
  }
  return end;
}

static void count(mp_rdec *d, mp_rfig *f) {
  const mp_graph *g = d->g;
  double runs = 0;
  int n_runs = 0, first = 0;
  for (int v = 0; v < d->n; v++) first += !g->nodes[v].is_input;
  for (int i = 0; i < d->raw.n; i++) {
    mp_event e = d->raw.ev[i];
    if (e.kind == MP_EV_RUN) {
      runs += g->nodes[e.id].cost;
      n_runs++;
    }
    f->ins += e.kind == MP_EV_IN;
    f->outs += e.kind == MP_EV_OUT;
  }
  f->reruns = n_runs - first;
  f->duration = d->bw > 0 ? simulate(d) : runs;
}

int mp_rdec_decode(mp_rdec *d, const mp_rgene *genes, int64_t budget, mp_rfig *f) {
  memset(f, 0, sizeof *f);
  reset(d, genes);
  if (forward(d)) {
    f->fail_slot = d->fail_slot;
    return -1;
  }
  f->fail_slot = -1;
  place_frees(d);
  build_plan(d, budget, f);
  count(d, f);
  return 0;
}
