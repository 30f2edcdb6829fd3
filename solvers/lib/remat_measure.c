/* remat_measure.c - the decoder's second pass (remat_decode.h): every
 * free goes right behind its residency's last use (an offload's where its
 * gene put it), then the plan is measured in this file's own code: the
 * memory samples of DESIGN 6.3, their peak and excess over the budget, and
 * the duration (the runs' costs, or with a host link the simulation of one
 * compute stream and two copy streams). */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_decode.h"

static int64_t run_bytes(const mp_graph *g, int v) {
  int64_t s = 0;
  if (!g->nodes[v].has_alias)
    for (int k = 0; k < g->nodes[v].n_out; k++)
      if (g->root_of[v][k] >= 0) s += g->bufs[g->root_of[v][k]].size;
  return s;
}

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
        sample = live + (g->ws_buf[e.id] >= 0 ? g->bufs[g->ws_buf[e.id]].size : 0);
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

void mp_rdec_measure(mp_rdec *d, int64_t budget, mp_rfig *f) {
  place_frees(d);
  build_plan(d, budget, f);
  count(d, f);
}
