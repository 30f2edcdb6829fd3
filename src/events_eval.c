/* events_eval.c - the evaluator of DESIGN 6.3 for a verified event plan:
 * memory counted in plan order, the deterministic time simulation (issue
 * order, one compute stream, two copy streams, ready times, the blocking
 * rule of free) and the figures.  Model code only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "storage.h"
#include "util.h"

/* The buffers v owns: output k of a node without alias, of size > 0. */
static int owned(const mp_graph *g, int v, int k) {
  return g->nodes[v].has_alias ? -1 : g->root_of[v][k];
}

int64_t mp_events_memory(const mp_graph *g, const mp_events *p, int64_t *samples) {
  int64_t live = 0, peak, m = 0;
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start) live += g->bufs[b].size;
  peak = live; /* 0 without inputs: the peak is the same either way */
  if (samples && mp_events_start_sampled(g)) samples[m++] = live;
  for (int i = 0; i < p->n; i++) {
    int id = p->ev[i].id;
    int64_t ws = 0;
    switch (p->ev[i].kind) {
    case MP_EV_RUN:
      for (int k = 0; k < g->nodes[id].n_out; k++)
        if (owned(g, id, k) >= 0) live += g->bufs[owned(g, id, k)].size;
      ws = g->ws_buf[id] >= 0 ? g->bufs[g->ws_buf[id]].size : 0;
      break;
    case MP_EV_IN:
      live += g->bufs[id].size;
      break;
    case MP_EV_FREE:
      live -= g->bufs[id].size;
      continue;
    default: /* out: no device memory */
      continue;
    }
    if (live + ws > peak) peak = live + ws;
    if (samples) samples[m++] = live + ws;
  }
  return peak;
}

/* Clocks of the simulation. */
typedef struct sim {
  double floor;                /* no event is issued before it */
  double compute, to_host, from_host; /* when each stream is free */
  double *ready;               /* per buffer: end of the run or in that made it resident */
  double *last_read;           /* per buffer: end of the latest run reading it */
  double *last_out;            /* per buffer: end of the latest out */
} sim;

static double max2(double a, double b) { return a > b ? a : b; }

static mp_ev_time sim_run(const mp_graph *g, sim *s, int v) {
  mp_ev_time t = {s->floor, 0, 0};
  double start = max2(t.issue, s->compute);
  for (int k = 0; k < g->n_reads[v]; k++) start = max2(start, s->ready[g->reads[v][k]]);
  t.start = start;
  t.end = start + g->nodes[v].cost;
  s->compute = t.end;
  for (int k = 0; k < g->n_reads[v]; k++) s->last_read[g->reads[v][k]] = t.end;
  for (int k = 0; k < g->nodes[v].n_out; k++)
    if (owned(g, v, k) >= 0) s->ready[owned(g, v, k)] = t.end;
  return t;
}

static mp_ev_time sim_copy(const mp_graph *g, sim *s, mp_event e, double bandwidth) {
  mp_ev_time t = {s->floor, 0, 0};
  int b = e.id;
  double len = (double)g->bufs[b].size / bandwidth;
  if (e.kind == MP_EV_OUT) {
    t.start = max2(max2(t.issue, s->to_host), s->ready[b]);
    t.end = t.start + len;
    s->to_host = s->last_out[b] = t.end;
  } else {
    t.start = max2(max2(t.issue, s->from_host), s->last_out[b]);
    t.end = t.start + len;
    s->from_host = s->ready[b] = t.end;
  }
  return t;
}

double mp_events_simulate(const mp_graph *g, const mp_events *p, double bandwidth, mp_ev_time *t) {
  size_t nb = (size_t)(g->n_buf ? g->n_buf : 1);
  sim s;
  memset(&s, 0, sizeof s);
  s.ready = mp_xcalloc(nb, sizeof(double));
  s.last_read = mp_xcalloc(nb, sizeof(double));
  s.last_out = mp_xcalloc(nb, sizeof(double));
  double duration = 0;
  for (int i = 0; i < p->n; i++) {
    mp_event e = p->ev[i];
    mp_ev_time x;
    if (e.kind == MP_EV_RUN) {
      x = sim_run(g, &s, e.id);
    } else if (e.kind == MP_EV_FREE) {
      /* issued at the floor, takes no time; later events wait for every
       * earlier use of the storage to end */
      x = (mp_ev_time){s.floor, s.floor, s.floor};
      s.floor = max2(s.floor, max2(s.last_read[e.id], s.last_out[e.id]));
    } else {
      x = sim_copy(g, &s, e, bandwidth);
    }
    duration = max2(duration, x.end);
    if (t) t[i] = x;
  }
  free(s.ready);
  free(s.last_read);
  free(s.last_out);
  return duration;
}

/* Per storage (storage.h: buffers and parameters), the given positions of
 * its in-place writers, ascending: pos[start[b] .. start[b + 1]). */
typedef struct writers {
  mp_storages s;
  int *start, *pos, *given_pos;
} writers;

static void writers_init(const mp_graph *g, writers *w) {
  mp_storages_build(g, &w->s);
  size_t ns = (size_t)w->s.n + 1, n = (size_t)(g->n ? g->n : 1);
  w->start = mp_xcalloc(ns + 1, sizeof(int));
  w->pos = mp_xmalloc(sizeof(int) * n);
  w->given_pos = mp_xmalloc(sizeof(int) * n);
  for (int v = 0; v < g->n; v++)
    if (w->s.writes[v] >= 0) w->start[w->s.writes[v] + 1]++;
  for (int b = 0; b < w->s.n; b++) w->start[b + 1] += w->start[b];
  int *fill = mp_xmalloc(sizeof(int) * ns);
  memcpy(fill, w->start, sizeof(int) * ns);
  for (int i = 0; i < g->n; i++) { /* in given order: each list ascends */
    int v = g->given[i];
    w->given_pos[v] = i;
    if (w->s.writes[v] >= 0) w->pos[fill[w->s.writes[v]]++] = i;
  }
  free(fill);
}

static void writers_destroy(writers *w) {
  mp_storages_free(&w->s);
  free(w->start);
  free(w->pos);
  free(w->given_pos);
}

/* The writers of storage b before given position gp (a binary search: one
 * storage may have 10^5 writers, a residual stream updated in place). */
static int writers_before(const writers *w, int b, int gp) {
  int lo = w->start[b], hi = w->start[b + 1];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (w->pos[mid] < gp) lo = mid + 1;
    else hi = mid;
  }
  return lo - w->start[b];
}

/* Does this run of v read a storage whose writes so far (written[b]) are
 * not those before v in the given order? */
static bool reads_stale(const writers *w, const int *written, int v) {
  for (int k = 0; k < w->s.n_acc[v]; k++) { /* empty for a pure view */
    int b = w->s.acc[v][k];
    if (w->start[b] < w->start[b + 1] && written[b] != writers_before(w, b, w->given_pos[v]))
      return true;
  }
  return false;
}

int64_t mp_events_stale_reruns(const mp_graph *g, const mp_events *p) {
  writers w;
  writers_init(g, &w);
  int *written = mp_xcalloc((size_t)w.s.n + 1, sizeof(int));
  bool *ran = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(bool));
  int64_t stale = 0;
  for (int i = 0; i < p->n; i++) {
    int v = p->ev[i].id;
    if (p->ev[i].kind != MP_EV_RUN) continue;
    if (ran[v]) stale += reads_stale(&w, written, v);
    ran[v] = true;
    if (w.s.writes[v] >= 0) written[w.s.writes[v]]++;
  }
  free(written);
  free(ran);
  writers_destroy(&w);
  return stale;
}

void mp_events_evaluate(const mp_graph *g, const mp_events *p, double bandwidth, int64_t budget,
                        mp_ev_figures *f) {
  memset(f, 0, sizeof *f);
  f->budget = budget;
  f->live_peak = mp_events_memory(g, p, NULL);
  f->duration = mp_events_simulate(g, p, bandwidth, NULL);
  f->base_time = mp_base_time(g);
  /* DESIGN 1.1: every figure of a graph with no nodes is 0 */
  f->overhead = f->base_time > 0 ? f->duration / f->base_time - 1.0 : g->n == 0 ? 0.0 : NAN;
  bool *ran = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(bool));
  double run_time = 0;
  for (int i = 0; i < p->n; i++) {
    mp_event e = p->ev[i];
    switch (e.kind) {
    case MP_EV_RUN:
      f->n_runs++;
      run_time += g->nodes[e.id].cost;
      if (ran[e.id]) {
        f->recomputed++;
        f->recompute_time += g->nodes[e.id].cost;
      }
      ran[e.id] = true;
      break;
    case MP_EV_FREE:
      break;
    case MP_EV_OUT:
      f->n_outs++;
      f->transferred += g->bufs[e.id].size;
      break;
    case MP_EV_IN:
      f->n_ins++;
      f->transferred += g->bufs[e.id].size;
      break;
    }
  }
  free(ran);
  f->stale_reruns = mp_events_stale_reruns(g, p);
  f->n_samples = (mp_events_start_sampled(g) ? 1 : 0) + (int64_t)f->n_runs + f->n_ins;
  f->stall_time = f->duration - run_time;
}
