/* remat_exec.c - the shared plan builder of the recomputation heuristics
 * (remat_exec.h): events written with their own memory and time account,
 * buffers brought back on demand, frees by policy. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_exec.h"

static int fail(rx_exec *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(rx_exec *x, const char *fmt, ...) {
  if (!x->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->msg, sizeof x->msg, fmt, ap);
    va_end(ap);
  }
  x->failed = 1;
  return -1;
}

static double dmax(double a, double b) { return a > b ? a : b; }

/* ---- the events and their account ---- */

/* rx_next_use from the events (cached in x->nu whenever cur moves). */
static int next_use(const rx_exec *x, int b) {
  const ri_info *ri = x->ri;
  if (x->cur[b] < ri->ev_start[b + 1]) return ri->ev[x->cur[b]];
  return (ri->flags[b] & RI_OUTPUT) ? ri->m : ri->m + 1;
}

static void push(rx_exec *x, mp_event_kind k, int id) {
  if (x->out) mp_events_push(x->out, k, id);
}

/* b's state changed: when it waits for its copy out, look at it again. */
static inline void changed(rx_exec *x, int b) {
  if (x->pending[b]) rxw_touch(&x->wait, b);
}

static void lock_add(rx_exec *x, int b, int d) {
  x->lock[b] += d;
  changed(x, b);
}

static void rlist_add(rx_exec *x, int b) {
  x->rpos[b] = x->nres;
  x->rlist[x->nres++] = b;
}

static void rlist_del(rx_exec *x, int b) {
  int i = x->rpos[b], last = x->rlist[--x->nres];
  x->rlist[i] = last;
  x->rpos[last] = i;
  x->rpos[b] = -1;
}

static void sample(rx_exec *x, int64_t extra) {
  if (x->live + extra > x->peak) x->peak = x->live + extra;
  if (x->pos_peak && x->live + extra > x->pos_peak[x->p]) x->pos_peak[x->p] = x->live + extra;
}

/* Without copies (bandwidth 0) nothing can stall the compute stream: the
 * floor and every ready time are ends of earlier runs (costs are never
 * negative), so a run starts when the one before it ends, and the copy
 * streams' account (ready, last_read, floor) is not kept. */
static double run_start(rx_exec *x, int v) {
  const ri_info *ri = x->ri;
  if (x->bandwidth <= 0) return x->t_comp;
  double start = dmax(x->floor, x->t_comp);
  for (int k = 0; k < ri_nreads(ri, v); k++) start = dmax(start, x->ready[ri_read(ri, v, k)]);
  return start;
}

/* The callbacks' account: last_access, and the notes (DTR's). */
static bool noted(const rx_exec *x) { return x->note || x->victim; }

static void emit_run(rx_exec *x, int v) {
  const ri_info *ri = x->ri;
  push(x, MP_EV_RUN, v);
  double end = run_start(x, v) + ri->cost[v];
  x->t_comp = end;
  x->duration = dmax(x->duration, end);
  bool timed = x->bandwidth > 0, note = noted(x);
  for (int k = 0; (timed || note) && k < ri_nreads(ri, v); k++) {
    int r = ri_read(ri, v, k);
    x->last_read[r] = end;
    x->last_access[r] = x->clock;
    if (x->note) x->note(x, r, RX_NOTE_ACCESS, x->ctx);
  }
  for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) {
    int o = ri->own[i];
    x->res[o] = 1;
    changed(x, o);
    x->live += ri->size[o];
    if (timed) x->ready[o] = end;
    rlist_add(x, o);
    if (!note) continue;
    x->last_access[o] = x->clock;
    if (x->note) x->note(x, o, RX_NOTE_ACCESS, x->ctx);
  }
  sample(x, ri_ws(ri, v));
  /* a strictly increasing clock: views cost nothing, DTR's staleness needs order */
  x->clock += ri->cost[v] + 1e-6;
  x->runs[v]++;
}

static void emit_free(rx_exec *x, int b) {
  push(x, MP_EV_FREE, b);
  x->res[b] = 0;
  changed(x, b);
  x->live -= x->ri->size[b];
  if (x->bandwidth > 0) x->floor = dmax(x->floor, dmax(x->last_read[b], x->last_out[b]));
  rlist_del(x, b);
  if (x->note) x->note(x, b, RX_NOTE_GONE, x->ctx);
  if (x->note && rx_next_use(x, b) <= x->ri->m) x->note(x, b, RX_NOTE_FREED, x->ctx);
}

static void emit_out(rx_exec *x, int b) {
  push(x, MP_EV_OUT, b);
  x->host[b] = 1;
  double start = dmax(dmax(x->floor, x->t_out), x->ready[b]);
  double end = start + (double)x->ri->size[b] / x->bandwidth;
  x->t_out = x->last_out[b] = end;
  x->duration = dmax(x->duration, end);
}

static void emit_in(rx_exec *x, int b) {
  push(x, MP_EV_IN, b);
  x->res[b] = 1;
  changed(x, b);
  x->live += x->ri->size[b];
  sample(x, 0);
  double start = dmax(dmax(x->floor, x->t_in), x->last_out[b]);
  double end = start + (double)x->ri->size[b] / x->bandwidth;
  x->t_in = x->ready[b] = end;
  x->duration = dmax(x->duration, end);
  x->last_access[b] = x->clock;
  x->n_ins++;
  rlist_add(x, b);
  if (x->note) x->note(x, b, RX_NOTE_ACCESS, x->ctx);
  if (x->note) x->note(x, b, RX_NOTE_MADE, x->ctx);
}

/* Room for `need` more bytes: the victim callback frees buffers until they
 * fit.  Without one, nothing is enforced (the driver reads the peak). */
static int reserve(rx_exec *x, int64_t need) {
  if (!x->victim) return 0;
  while (x->live + need > x->budget) {
    int b = x->victim(x, need, x->ctx);
    if (b < 0)
      return fail(x, "%lld bytes resident that cannot be freed now, %lld more needed, budget %lld",
                  (long long)x->live, (long long)need, (long long)x->budget);
    emit_free(x, b);
  }
  return 0;
}

/* Room for v's run (its size is summed only when a callback enforces it). */
static int reserve_run(rx_exec *x, int v) {
  return x->victim ? reserve(x, ri_run_bytes(x->ri, v)) : 0;
}

/* ---- the policy ---- */

void rx_free(rx_exec *x, int b) {
  if (x->pending[b] == 2) { /* an offload waiting for its copy: freed now instead */
    x->pending[b] = 0;
    rxw_remove(&x->wait, b);
  }
  if (x->res[b]) emit_free(x, b);
}

static bool any_swap(const rx_exec *x, int b) {
  const ri_info *ri = x->ri;
  if (!x->gap) return false;
  for (int e = ri->ev_start[b]; e < ri->ev_start[b + 1] - 1; e++)
    if (x->gap[e] == RX_SWAP) return true;
  return false;
}

/* b waits for its copy out to end, then `why` (pending). */
static void wait_for_copy(rx_exec *x, int b, uint8_t why) {
  x->pending[b] = why;
  rxw_add(&x->wait, b);
}

/* A swapped gap whose prefetch position has come: the buffer, resident
 * now (brought back early, or for a rerun inside the gap), stays until
 * its next use instead of being freed and copied in again. */
static bool back_by_now(const rx_exec *x, int e) {
  return x->prefetch && x->prefetch[e] >= 0 && x->p >= x->prefetch[e];
}

/* settle() past its first test (settled() below). */
static void settle_resident(rx_exec *x, int b) {
  const ri_info *ri = x->ri;
  int nu = rx_next_use(x, b);
  if (nu > ri->m) { /* no use remains */
    emit_free(x, b);
    return;
  }
  if (x->gap && x->cur[b] == ri->ev_start[b] + 1 && !x->host[b] && x->bandwidth > 0 &&
      any_swap(x, b))
    emit_out(x, b); /* offloaded later: copy it out as soon as it is made */
  if (x->hold[b] > 0) return;
  int e = x->cur[b] - 1;
  if (x->gap && e >= ri->ev_start[b] && x->gap[e] != RX_KEEP) {
    if (x->gap[e] == RX_SWAP && back_by_now(x, e)) return; /* kept for its next use */
    if (x->gap[e] == RX_SWAP && !x->host[b] && x->bandwidth > 0) emit_out(x, b);
    if (x->gap[e] == RX_SWAP && x->host[b] && x->last_out[b] > x->t_comp) {
      if (!x->pending[b]) wait_for_copy(x, b, 1); /* free once copied */
      return;
    }
    if (x->gap[e] == RX_DROP ? (ri->flags[b] & RI_DROP) : x->host[b]) emit_free(x, b);
    return;
  }
  if ((ri->flags[b] & RI_DROP) && ri_fwd_buf(ri, b) && nu >= x->horizon) emit_free(x, b);
}

/* Nothing to do for a buffer that is gone, locked or kept: the common
 * case, tested inline. */
static inline bool settled(const rx_exec *x, int b) {
  return !x->res[b] || x->lock[b] > 0 || (x->keep && x->keep[b] > 0);
}

static inline void settle(rx_exec *x, int b) {
  if (!settled(x, b)) settle_resident(x, b);
}

void rx_release(rx_exec *x, int b) {
  x->keep[b]--;
  changed(x, b);
  settle(x, b);
}

/* ---- bringing buffers back ---- */

/* Buffers made or read by reruns, settled once the caller's own reads are
 * locked (a list that may repeat: settling twice is harmless). */
static void touch(rx_exec *x, int b) {
  if (x->nt == x->tcap) {
    x->tcap = x->tcap ? 2 * x->tcap : 64;
    x->touched = mp_xrealloc(x->touched, sizeof(int) * (size_t)x->tcap);
  }
  x->touched[x->nt++] = b;
}

static void flush(rx_exec *x) {
  for (int i = 0; i < x->nt; i++) settle(x, x->touched[i]);
  x->nt = 0;
}

/* rerun_seen: u's reads and outputs are looked at by this step. */
static void note_rerun(rx_exec *x, int u) {
  const ri_info *ri = x->ri;
  for (int k = 0; k < ri_nreads(ri, u); k++) x->rerun_seen[ri_read(ri, u, k)] = x->p;
  for (int i = ri->own_start[u]; i < ri->own_start[u + 1]; i++) x->rerun_seen[ri->own[i]] = x->p;
}

/* A frame whose producer may rerun: lock its resident reads in turn; push
 * the first missing one; once all are locked, rerun it.  Returns 1 when a
 * read was pushed, 0 when the rerun is done, -1 on failure. */
static int rerun_frame(rx_exec *x, rx_frame *f, int *sp, int b0) {
  const ri_info *ri = x->ri;
  int u = ri_owner(ri, f->buf);
  if (x->rerun_seen && f->k == 0) note_rerun(x, u);
  while (f->k < ri_nreads(ri, u) && x->res[ri_read(ri, u, f->k)]) lock_add(x, ri_read(ri, u, f->k++), 1);
  if (f->k < ri_nreads(ri, u)) {
    x->stack[(*sp)++] = (rx_frame){ri_read(ri, u, f->k), 0};
    return 1;
  }
  for (int i = ri->own_start[u]; i < ri->own_start[u + 1]; i++)
    if (x->res[ri->own[i]]) emit_free(x, ri->own[i]); /* a rerun remakes them all */
  if (reserve_run(x, u)) return -1;
  emit_run(x, u);
  x->n_reruns++;
  for (int k = 0; k < ri_nreads(ri, u); k++) {
    lock_add(x, ri_read(ri, u, k), -1);
    touch(x, ri_read(ri, u, k));
  }
  for (int i = ri->own_start[u]; i < ri->own_start[u + 1]; i++) {
    if (ri->own[i] != b0) touch(x, ri->own[i]);
    if (x->note) x->note(x, ri->own[i], RX_NOTE_MADE, x->ctx);
  }
  return 0;
}

/* Make b0 resident: from its host copy, else by rerunning its producer
 * after bringing back its reads (an explicit stack: chains can be long). */
static int bring(rx_exec *x, int b0) {
  const ri_info *ri = x->ri;
  const mp_graph *g = x->g;
  if (x->res[b0]) return 0;
  int sp = 0;
  x->stack[sp++] = (rx_frame){b0, 0};
  while (sp > 0) {
    rx_frame *f = &x->stack[sp - 1];
    int b = f->buf;
    if (x->res[b]) { /* made meanwhile by a sibling's rerun */
      for (int k = 0; k < f->k; k++) lock_add(x, ri_read(ri, ri_owner(ri, b), k), -1);
      sp--;
      continue;
    }
    if (x->host[b] && x->bandwidth > 0) {
      if (reserve(x, ri->size[b])) return -1;
      emit_in(x, b);
      sp--;
      continue;
    }
    if (!(ri->flags[b] & RI_DROP)) {
      char key[48];
      mp_buffer_key(g, b, key, sizeof key);
      return fail(x, "buffer %s is needed at position %d but is gone (no host copy, and its "
                  "producer cannot run again)", key, x->p);
    }
    int rc = rerun_frame(x, f, &sp, b0);
    if (rc < 0) return -1;
    if (rc == 0) sp--;
  }
  return 0;
}

int rx_materialize(rx_exec *x, int b) {
  int rc = bring(x, b);
  lock_add(x, b, 1);
  flush(x);
  lock_add(x, b, -1);
  return rc;
}

/* ---- positions ---- */

/* b's event at the position just run is passed. */
static void advance(rx_exec *x, int b) {
  x->cur[b]++;
  x->nu[b] = next_use(x, b);
  changed(x, b);
}

/* A waiting buffer looked at again (its copy out has ended, or its state
 * changed): freed, settled, or left waiting.  Left waiting only when its
 * copy has not ended and nothing changed for it since the last look is
 * the same as not looked at: rxw_visits leaves those out. */
static void look_again(rx_exec *x, int b) {
  uint8_t why = x->pending[b];
  x->pending[b] = 0;
  if (why == 2) { /* the driver's offload */
    if (!x->res[b]) return;
    if (x->last_out[b] > x->t_comp) x->pending[b] = 2;
    else emit_free(x, b);
    return;
  }
  settle(x, b);
}

/* Swapped buffers whose copy out has ended by now are freed, in the order
 * they began to wait (the list's). */
static void free_copied(rx_exec *x) {
  rx_wait *w = &x->wait;
  int n = rxw_visits(w, x->t_comp);
  for (int i = 0; i < n; i++) {
    int b = w->due[i];
    look_again(x, b);
    rxw_visited(w, b, x->pending[b] != 0);
  }
}

void rx_poll(rx_exec *x) {
  if (!rxw_idle(&x->wait, x->t_comp)) free_copied(x);
}

void rx_offload(rx_exec *x, int b) {
  if (!x->res[b] || x->bandwidth <= 0 || x->pending[b]) return;
  if (!x->host[b]) emit_out(x, b);
  wait_for_copy(x, b, 2);
}

void rx_copy_out(rx_exec *x, int b) {
  if (x->res[b] && !x->host[b] && x->bandwidth > 0) emit_out(x, b);
}

int rx_fetch(rx_exec *x, int b) {
  if (x->pending[b] == 2) {
    x->pending[b] = 0;
    rxw_remove(&x->wait, b);
  }
  return rx_materialize(x, b);
}

/* The buffers waiting for their copy out whose prefetch position has
 * just come (x->p): looked at again at the next poll, which keeps them
 * (back_by_now) as a look at every waiting buffer would. */
static void touch_coming_back(rx_exec *x) {
  if (!x->pre_start || x->p >= x->ri->m) return;
  for (int i = x->pre_start[x->p]; i < x->pre_start[x->p + 1]; i++)
    if (x->pending[x->pre[i]] == 1) rxw_touch(&x->wait, x->pre[i]);
}

int rx_step(rx_exec *x) {
  const ri_info *ri = x->ri;
  int p = x->p, v = ri->seq[p];
  rx_poll(x);
  if ((p & 255) == 0 && rx_time_up(x)) return fail(x, "time limit reached at position %d of %d", p, ri->m);
  if (x->pre_start)
    for (int i = x->pre_start[p]; i < x->pre_start[p + 1]; i++) {
      int b = x->pre[i];
      if (x->res[b] || !x->host[b] || rx_next_use(x, b) > ri->m) continue;
      if (reserve(x, ri->size[b])) return -1;
      emit_in(x, b);
    }
  for (int k = 0; k < ri_nreads(ri, v); k++) {
    int r = ri_read(ri, v, k);
    if (!x->res[r] && bring(x, r)) return -1;
    lock_add(x, r, 1);
  }
  flush(x);
  if (reserve_run(x, v)) return -1;
  x->pos_work[p] = x->clock;
  emit_run(x, v);
  x->pos_start[p] = x->t_comp - ri->cost[v];
  x->pos_tout[p] = x->t_out;
  x->pos_tin[p] = x->t_in;
  x->p++;
  touch_coming_back(x);
  for (int k = 0; k < ri_nreads(ri, v); k++) {
    int r = ri_read(ri, v, k);
    x->lock[r]--;
    advance(x, r); /* tells a waiting r of the lock too */
    if (x->note) x->note(x, r, RX_NOTE_READ, x->ctx);
  }
  for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) advance(x, ri->own[i]);
  for (int k = 0; k < ri_nreads(ri, v); k++) settle(x, ri_read(ri, v, k));
  for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) settle(x, ri->own[i]);
  return x->failed ? -1 : 0;
}

int rx_start(rx_exec *x) {
  const ri_info *ri = x->ri;
  for (int b = 0; b < ri->nb; b++)
    if (x->res[b]) settle(x, b);
  return x->failed ? -1 : 0;
}

int rx_finish(rx_exec *x) {
  const ri_info *ri = x->ri;
  x->horizon = ri->m + 2;
  while (x->p < ri->m)
    if (rx_step(x)) return -1;
  rx_poll(x);
  /* the outputs end resident: each one brought back is held, so that
   * bringing back the next cannot evict it */
  for (int b = 0; b < ri->nb; b++)
    if (ri->flags[b] & RI_OUTPUT) {
      if (!x->res[b] && rx_materialize(x, b)) return -1;
      x->hold[b]++;
      changed(x, b);
    }
  return x->failed ? -1 : 0;
}

/* ---- setup ---- */

/* The position of b's use after its event e (m: the end, for an output;
 * m + 1: none). */
static int use_after(const ri_info *ri, int b, int e) {
  if (e + 1 < ri->ev_start[b + 1]) return ri->ev[e + 1];
  return (ri->flags[b] & RI_OUTPUT) ? ri->m : ri->m + 1;
}

/* The copies in of each position in the order of their buffers' next use
 * (ties: the buffer): the stream from the host takes them in plan order,
 * so the one needed first goes first.  A counting sort by that use, then
 * a stable one by position (pre_start), O(events + m). */
static void fill_prefetch_lists(rx_exec *x, const int *prefetch) {
  const ri_info *ri = x->ri;
  int n = x->pre_start[ri->m];
  int *by_use = mp_xcalloc((size_t)ri->m + 3, sizeof(int));
  int *sorted = mp_xmalloc(sizeof(int) * (size_t)(n + 1));
  int *ev_of = mp_xmalloc(sizeof(int) * (size_t)(n + 1));
  for (int b = 0; b < ri->nb; b++)
    for (int e = ri->ev_start[b]; e < ri->ev_start[b + 1]; e++)
      if (prefetch[e] >= 0 && prefetch[e] < ri->m) by_use[use_after(ri, b, e) + 1]++;
  for (int p = 0; p <= ri->m + 1; p++) by_use[p + 1] += by_use[p];
  for (int b = 0; b < ri->nb; b++)
    for (int e = ri->ev_start[b]; e < ri->ev_start[b + 1]; e++)
      if (prefetch[e] >= 0 && prefetch[e] < ri->m) {
        int i = by_use[use_after(ri, b, e)]++;
        sorted[i] = b, ev_of[i] = e;
      }
  int *fill = mp_xmalloc(sizeof(int) * (size_t)(ri->m + 1));
  memcpy(fill, x->pre_start, sizeof(int) * (size_t)(ri->m + 1));
  for (int i = 0; i < n; i++) {
    int at = fill[prefetch[ev_of[i]]]++;
    x->pre[at] = sorted[i], x->pre_ev[at] = ev_of[i];
  }
  free(fill);
  free(ev_of);
  free(sorted);
  free(by_use);
}

void rx_set_gaps(rx_exec *x, const uint8_t *gap, const int *prefetch) {
  const ri_info *ri = x->ri;
  x->gap = gap;
  x->prefetch = prefetch;
  rxw_touch_all(&x->wait); /* the waiting buffers' gaps may have changed */
  free(x->pre_start);
  free(x->pre);
  free(x->pre_ev);
  x->pre_start = x->pre = x->pre_ev = NULL;
  if (!prefetch) return;
  int ne = ri->ev_start[ri->nb], any = 0;
  for (int e = 0; e < ne && !any; e++) any = prefetch[e] >= 0 && prefetch[e] < ri->m;
  if (!any) return; /* no list to build (a plan without copies in) */
  x->pre_start = mp_xcalloc((size_t)ri->m + 2, sizeof(int));
  for (int e = 0; e < ne; e++)
    if (prefetch[e] >= 0 && prefetch[e] < ri->m) x->pre_start[prefetch[e] + 1]++;
  for (int p = 0; p < ri->m; p++) x->pre_start[p + 1] += x->pre_start[p];
  x->pre_cap = x->pre_start[ri->m] + 1;
  x->pre = mp_xmalloc(sizeof(int) * (size_t)x->pre_cap);
  x->pre_ev = mp_xmalloc(sizeof(int) * (size_t)x->pre_cap);
  fill_prefetch_lists(x, prefetch);
}

/* Is entry (b1, e1) before (b2, e2) in a position's list: the next use
 * first, then the buffer, then the event (fill_prefetch_lists' order). */
static bool pre_before(const ri_info *ri, int b1, int e1, int b2, int e2) {
  int u1 = use_after(ri, b1, e1), u2 = use_after(ri, b2, e2);
  if (u1 != u2) return u1 < u2;
  return b1 != b2 ? b1 < b2 : e1 < e2;
}

/* Entry (b, e) into position p's list, in its place. */
static void pre_insert(rx_exec *x, int b, int e, int p) {
  const ri_info *ri = x->ri;
  int n = x->pre_start[ri->m];
  if (n + 1 > x->pre_cap) {
    x->pre_cap = 2 * (n + 1);
    x->pre = mp_xrealloc(x->pre, sizeof(int) * (size_t)x->pre_cap);
    x->pre_ev = mp_xrealloc(x->pre_ev, sizeof(int) * (size_t)x->pre_cap);
  }
  int at = x->pre_start[p];
  while (at < x->pre_start[p + 1] && pre_before(ri, x->pre[at], x->pre_ev[at], b, e)) at++;
  memmove(x->pre + at + 1, x->pre + at, sizeof(int) * (size_t)(n - at));
  memmove(x->pre_ev + at + 1, x->pre_ev + at, sizeof(int) * (size_t)(n - at));
  x->pre[at] = b, x->pre_ev[at] = e;
  for (int q = p + 1; q <= ri->m; q++) x->pre_start[q]++;
}

/* Event e's entry out of position p's list. */
static void pre_remove(rx_exec *x, int e, int p) {
  const ri_info *ri = x->ri;
  int n = x->pre_start[ri->m], at = x->pre_start[p];
  while (at < x->pre_start[p + 1] && x->pre_ev[at] != e) at++;
  if (at == x->pre_start[p + 1]) return;
  memmove(x->pre + at, x->pre + at + 1, sizeof(int) * (size_t)(n - at - 1));
  memmove(x->pre_ev + at, x->pre_ev + at + 1, sizeof(int) * (size_t)(n - at - 1));
  for (int q = p + 1; q <= ri->m; q++) x->pre_start[q]--;
}

void rx_prefetch_changed(rx_exec *x, int b, int e, int was) {
  const ri_info *ri = x->ri;
  int now = x->prefetch[e];
  rxw_touch_all(&x->wait); /* as rx_set_gaps: b may be waiting */
  if (now == was) return;
  if (!x->pre_start) {
    x->pre_start = mp_xcalloc((size_t)ri->m + 2, sizeof(int));
    x->pre_cap = 0;
  }
  if (was >= 0 && was < ri->m) pre_remove(x, e, was);
  if (now >= 0 && now < ri->m) pre_insert(x, b, e, now);
}

static void start(rx_exec *x);

/* The arrays a builder owns, listed once for init, restart, copy and
 * destroy: where the pointer is, an element's size, how many, and what a
 * restart and a copy do with it. */
enum rx_len { LEN_BUF, LEN_NODE, LEN_POS, LEN_STACK };
enum rx_use {
  USE_ZERO,   /* restart zeroes it, a copy takes it whole */
  USE_START,  /* start() sets it, a copy takes it whole */
  USE_ACCESS, /* last_access: zeroed and copied only when kept (callbacks) */
  USE_TIME,   /* the time accounts: zeroed and copied only with a link */
  USE_POS,    /* per position: zeroed; a copy takes the positions run */
  USE_RLIST,  /* a copy takes the nres resident */
  USE_SCRATCH /* neither */
};
typedef struct rx_array {
  size_t at, elem;
  enum rx_len len;
  enum rx_use use;
} rx_array;

#define ARR(f, len, use) {offsetof(rx_exec, f), sizeof *((rx_exec *)0)->f, len, use}
static const rx_array rx_arrays[] = {
    ARR(hold, LEN_BUF, USE_ZERO),          ARR(res, LEN_BUF, USE_ZERO),
    ARR(host, LEN_BUF, USE_ZERO),          ARR(lock, LEN_BUF, USE_ZERO),
    ARR(pending, LEN_BUF, USE_ZERO),       ARR(runs, LEN_NODE, USE_ZERO),
    ARR(cur, LEN_BUF, USE_START),          ARR(nu, LEN_BUF, USE_START),
    ARR(rpos, LEN_BUF, USE_START),         ARR(last_access, LEN_BUF, USE_ACCESS),
    ARR(ready, LEN_BUF, USE_TIME),         ARR(last_read, LEN_BUF, USE_TIME),
    ARR(last_out, LEN_BUF, USE_TIME),      ARR(pos_start, LEN_POS, USE_POS),
    ARR(pos_tout, LEN_POS, USE_POS),       ARR(pos_tin, LEN_POS, USE_POS),
    ARR(pos_work, LEN_POS, USE_POS),
    ARR(rlist, LEN_BUF, USE_RLIST),        ARR(stack, LEN_STACK, USE_SCRATCH),
};
#undef ARR
enum { RX_N_ARRAYS = sizeof rx_arrays / sizeof rx_arrays[0] };

static void **array_at(const rx_exec *x, const rx_array *a) { return (void **)((char *)x + a->at); }

static size_t array_len(const ri_info *ri, enum rx_len len) {
  switch (len) {
  case LEN_BUF: return (size_t)ri->nb + 1;
  case LEN_NODE: return (size_t)ri->n + 1;
  case LEN_POS: return (size_t)ri->m + 1;
  case LEN_STACK: return (size_t)ri->n + 2;
  }
  return 0;
}

/* Does a restart zero array use?  access / time: whether those accounts
 * were written (else their pages stay untouched).  At init every array a
 * restart may zero is allocated zeroed; the others are set before they are
 * read. */
static bool zeroed(enum rx_use use, bool access, bool time) {
  return use == USE_ZERO || use == USE_POS || (use == USE_ACCESS && access) || (use == USE_TIME && time);
}

void rx_init(rx_exec *x, const ri_info *ri, mp_events *out, int64_t budget, double bandwidth) {
  memset(x, 0, sizeof *x);
  x->ri = ri;
  x->g = ri->g;
  x->out = out;
  if (out) mp_events_clear(out);
  x->budget = budget;
  x->bandwidth = bandwidth;
  for (int k = 0; k < RX_N_ARRAYS; k++) {
    const rx_array *a = &rx_arrays[k];
    size_t n = array_len(ri, a->len);
    *array_at(x, a) = zeroed(a->use, true, true) ? mp_xcalloc(n, a->elem) : mp_xmalloc(a->elem * n);
  }
  rxw_init(&x->wait, ri->nb, x->last_out);
  start(x);
}

/* The arrays of the state before any run, the scalars already zero: the
 * inputs resident, every buffer at its first event. */
static void start(rx_exec *x) {
  const ri_info *ri = x->ri;
  x->horizon = ri->m + 2;
  for (int b = 0; b < ri->nb; b++) {
    x->rpos[b] = -1;
    x->cur[b] = ri->ev_start[b];
    if ((ri->flags[b] & RI_INPUT)) {
      x->res[b] = 1;
      x->live += ri->size[b];
      x->cur[b]++;
      rlist_add(x, b);
    }
    x->nu[b] = next_use(x, b);
  }
  x->peak = x->live;
}

void rx_init_snapshot(rx_exec *x, const rx_exec *of) {
  const ri_info *ri = of->ri;
  memset(x, 0, sizeof *x);
  x->ri = ri;
  x->g = ri->g;
  x->budget = of->budget;
  x->bandwidth = of->bandwidth;
  x->dirty_access = noted(of) || of->dirty_access;
  x->dirty_time = of->bandwidth > 0 || of->dirty_time;
  for (int k = 0; k < RX_N_ARRAYS; k++) {
    const rx_array *a = &rx_arrays[k];
    bool held = a->use != USE_POS && a->use != USE_SCRATCH && (a->use != USE_ACCESS || x->dirty_access) &&
                (a->use != USE_TIME || x->dirty_time);
    if (held) *array_at(x, a) = mp_xmalloc(a->elem * array_len(ri, a->len));
  }
  rxw_init(&x->wait, ri->nb, x->last_out);
}

void rx_restart(rx_exec *x, mp_events *out, double bandwidth) {
  /* the accounts written only with callbacks or a link */
  bool access = noted(x) || x->dirty_access, time = x->bandwidth > 0 || x->dirty_time;
  void *kept[RX_N_ARRAYS];
  for (int k = 0; k < RX_N_ARRAYS; k++) {
    const rx_array *a = &rx_arrays[k];
    kept[k] = *array_at(x, a);
    if (zeroed(a->use, access, time)) memset(kept[k], 0, a->elem * array_len(x->ri, a->len));
  }
  free(x->pre_start);
  free(x->pre);
  free(x->pre_ev);
  const ri_info *ri = x->ri;
  const mp_graph *g = x->g;
  int64_t budget = x->budget;
  int *touched = x->touched, tcap = x->tcap;
  rx_wait wait = x->wait;
  rxw_clear(&wait);
  memset(x, 0, sizeof *x);
  x->ri = ri, x->g = g, x->budget = budget, x->touched = touched, x->tcap = tcap, x->wait = wait;
  for (int k = 0; k < RX_N_ARRAYS; k++) *array_at(x, &rx_arrays[k]) = kept[k];
  x->out = out;
  if (out) mp_events_clear(out);
  x->bandwidth = bandwidth;
  start(x);
}

void rx_resident(rx_exec *x, int b) {
  if (x->res[b]) return;
  x->res[b] = 1;
  x->live += x->ri->size[b];
  rlist_add(x, b);
}

/* How many elements of array a rx_copy_state takes (0: none); positions:
 * whether the per-position times are taken. */
static size_t copied(const rx_exec *dst, const rx_exec *src, const rx_array *a, bool positions) {
  switch (a->use) {
  case USE_ZERO:
  case USE_START: return array_len(src->ri, a->len);
  case USE_ACCESS:
    return noted(src) || noted(dst) || src->dirty_access || dst->dirty_access ? array_len(src->ri, a->len) : 0;
  case USE_TIME:
    return src->bandwidth > 0 || dst->bandwidth > 0 || src->dirty_time || dst->dirty_time
               ? array_len(src->ri, a->len)
               : 0;
  case USE_POS: return positions ? (size_t)src->p : 0; /* the positions run */
  case USE_RLIST: return (size_t)src->nres;
  case USE_SCRATCH: return 0;
  }
  return 0;
}

static void copy_state(rx_exec *dst, const rx_exec *src, bool positions) {
  for (int k = 0; k < RX_N_ARRAYS; k++) {
    const rx_array *a = &rx_arrays[k];
    size_t n = copied(dst, src, a, positions);
    if (n) memcpy(*array_at(dst, a), *array_at(src, a), a->elem * n);
    if (n && a->use == USE_ACCESS) dst->dirty_access = true;
    if (n && a->use == USE_TIME) dst->dirty_time = true;
  }
  dst->horizon = src->horizon;
  dst->p = src->p, dst->live = src->live, dst->peak = src->peak, dst->clock = src->clock;
  dst->nres = src->nres;
  dst->floor = src->floor, dst->t_comp = src->t_comp, dst->t_out = src->t_out;
  dst->t_in = src->t_in, dst->duration = src->duration;
  dst->n_reruns = src->n_reruns, dst->n_ins = src->n_ins;
  dst->nt = 0;
  rxw_copy(&dst->wait, &src->wait);
  dst->failed = src->failed;
  memcpy(dst->msg, src->msg, sizeof dst->msg);
}

void rx_copy_state(rx_exec *dst, const rx_exec *src) { copy_state(dst, src, true); }

void rx_copy_state_untimed(rx_exec *dst, const rx_exec *src) { copy_state(dst, src, false); }

void rx_destroy(rx_exec *x) {
  for (int k = 0; k < RX_N_ARRAYS; k++) free(*array_at(x, &rx_arrays[k]));
  free(x->pre_start);
  free(x->pre);
  free(x->pre_ev);
  free(x->touched);
  rxw_destroy(&x->wait);
  memset(x, 0, sizeof *x);
}
