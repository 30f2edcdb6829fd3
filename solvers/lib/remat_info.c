/* remat_info.c - positions, buffer events, droppable buffers, the turn and
 * the forward frontier (remat_info.h).  Linear in the graph's size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_info.h"

int ri_alias_root(const mp_graph *g, int v) {
  int b = mp_view_storage(g, v);
  return b >= 0 ? b : -1;
}

static void set_positions(ri_info *ri, const int *order) {
  const mp_graph *g = ri->g;
  ri->seq = mp_xmalloc(sizeof(int) * (size_t)(ri->n + 1));
  ri->pos = mp_xmalloc(sizeof(int) * (size_t)(ri->n + 1));
  ri->m = 0;
  for (int i = 0; i < ri->n; i++) {
    int v = order[i];
    ri->pos[v] = -1;
    if (!g->nodes[v].is_input) {
      ri->pos[v] = ri->m;
      ri->seq[ri->m++] = v;
    }
  }
}

static void set_reads(ri_info *ri) {
  const mp_graph *g = ri->g;
  ri->rd_start = mp_xmalloc(sizeof(int) * (size_t)(ri->n + 1));
  ri->rd_start[0] = 0;
  for (int v = 0; v < ri->n; v++) ri->rd_start[v + 1] = ri->rd_start[v] + g->n_reads[v];
  ri->rd = mp_xmalloc(sizeof(int) * (size_t)(ri->rd_start[ri->n] + 1));
  for (int v = 0; v < ri->n; v++)
    memcpy(ri->rd + ri->rd_start[v], g->reads[v], sizeof(int) * (size_t)g->n_reads[v]);
}

static void set_owned(ri_info *ri) {
  const mp_graph *g = ri->g;
  ri->own_start = mp_xcalloc((size_t)ri->n + 1, sizeof(int));
  for (int v = 0; v < ri->n; v++) {
    ri->own_start[v + 1] = ri->own_start[v];
    if (!g->nodes[v].has_alias)
      for (int k = 0; k < g->nodes[v].n_out; k++) ri->own_start[v + 1] += g->root_of[v][k] >= 0;
  }
  ri->own = mp_xmalloc(sizeof(int) * (size_t)(ri->own_start[ri->n] + 1));
  for (int v = 0, i = 0; v < ri->n; v++)
    if (!g->nodes[v].has_alias)
      for (int k = 0; k < g->nodes[v].n_out; k++)
        if (g->root_of[v][k] >= 0) ri->own[i++] = g->root_of[v][k];
}

/* Events: production, then the positions of the readers (ascending,
 * distinct: g->reads[v] lists each buffer once). */
static void set_events(ri_info *ri) {
  const mp_graph *g = ri->g;
  int nb = ri->nb;
  ri->ev_start = mp_xcalloc((size_t)nb + 1, sizeof(int));
  for (int b = 0; b < nb; b++) ri->ev_start[b + 1] = 1;
  for (int p = 0; p < ri->m; p++) {
    int v = ri->seq[p];
    for (int k = 0; k < ri_nreads(ri, v); k++) ri->ev_start[ri_read(ri, v, k) + 1]++;
  }
  for (int b = 0; b < nb; b++) ri->ev_start[b + 1] += ri->ev_start[b];
  ri->ev = mp_xmalloc(sizeof(int) * (size_t)(ri->ev_start[nb] + 1));
  int *fill = mp_xmalloc(sizeof(int) * (size_t)(nb + 1));
  for (int b = 0; b < nb; b++) {
    int owner = g->bufs[b].owner;
    ri->ev[ri->ev_start[b]] = g->bufs[b].born_at_start ? -1 : ri->pos[owner];
    fill[b] = ri->ev_start[b] + 1;
  }
  for (int p = 0; p < ri->m; p++) {
    int v = ri->seq[p];
    for (int k = 0; k < ri_nreads(ri, v); k++) ri->ev[fill[ri_read(ri, v, k)]++] = p;
  }
  free(fill);
  ri->last_use = mp_xmalloc(sizeof(int) * (size_t)(nb + 1));
  for (int b = 0; b < nb; b++)
    ri->last_use[b] = (ri->flags[b] & RI_OUTPUT) ? ri->m : ri->ev[ri->ev_start[b + 1] - 1];
}

static void set_flags(ri_info *ri, bool *inplace_node) {
  const mp_graph *g = ri->g;
  for (int b = 0; b < ri->nb; b++) {
    const mp_buffer *bb = &g->bufs[b];
    ri->size[b] = bb->size;
    if (bb->kind != MP_BUF_TENSOR) continue;
    ri->flags[b] = RI_TENSOR | RI_SWAP;
    if (bb->born_at_start) ri->flags[b] |= RI_INPUT;
    if (bb->graph_output) ri->flags[b] |= RI_OUTPUT;
  }
  for (int w = 0; w < ri->n; w++) {
    int b = ri_alias_root(g, w);
    if (g->nodes[w].inplace && b >= 0) ri->flags[b] = (uint8_t)((ri->flags[b] | RI_PINNED) & ~RI_SWAP);
  }
  for (int v = 0; v < ri->n; v++) {
    int b = ri_alias_root(g, v);
    if (b >= 0 && (ri->flags[b] & RI_PINNED)) inplace_node[v] = true;
    for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++)
      if (ri->flags[ri->own[i]] & RI_PINNED) inplace_node[v] = true;
  }
}

/* Which nodes may rerun, then which buffers may be dropped (in position
 * order: a producer's reads are made before it).  A held input (RI_HOLD)
 * limits no anchor: the driver keeps it while it is needed. */
static void set_rerun_and_drop(ri_info *ri, const bool *inplace_node) {
  const mp_graph *g = ri->g;
  int *last_write = mp_xmalloc(sizeof(int) * (size_t)(ri->nb + 1));
  for (int b = 0; b < ri->nb; b++) last_write[b] = -1;
  for (int p = 0; p < ri->m; p++) {
    int w = ri->seq[p], b = ri_alias_root(g, w);
    if (g->nodes[w].inplace && b >= 0) last_write[b] = p;
  }
  for (int v = 0; v < ri->n; v++) {
    bool ok = !g->nodes[v].is_input && !inplace_node[v] && ri->own_start[v + 1] > ri->own_start[v];
    for (int k = 0; ok && k < ri_nreads(ri, v); k++) ok = last_write[ri_read(ri, v, k)] < ri->pos[v];
    ri->rerun[v] = ok;
  }
  free(last_write);
  for (int b = 0; b < ri->nb; b++) ri->anchor[b] = ri->m;
  for (int p = 0; p < ri->m; p++) {
    int v = ri->seq[p], a = ri->m;
    for (int k = 0; k < ri_nreads(ri, v); k++) {
      int r = ri_read(ri, v, k);
      int lim = (ri->flags[r] & RI_DROP) ? ri->anchor[r] : (ri->flags[r] & RI_HOLD) ? ri->m : ri->last_use[r];
      if (lim < a) a = lim;
    }
    for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) {
      int b = ri->own[i];
      ri->anchor[b] = a;
      if (ri->rerun[v] && !(ri->flags[b] & RI_PINNED) && a >= ri->last_use[b]) ri->flags[b] |= RI_DROP;
    }
  }
}

int64_t ri_run_bytes(const ri_info *ri, int v) {
  int64_t s = ri_ws(ri, v);
  for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) s += ri->size[ri->own[i]];
  return s;
}

void ri_keepall_before(const ri_info *ri, int64_t *out) {
  int m = ri->m;
  memset(out, 0, sizeof(int64_t) * (size_t)(m + 2));
  /* buffer b is resident before p for prod < p <= last_use (inputs from 0) */
  for (int b = 0; b < ri->nb; b++) {
    if (!(ri->flags[b] & RI_TENSOR)) continue;
    int lo = ri_prod(ri, b) + 1, hi = ri->last_use[b];
    if (lo > hi) continue;
    out[lo] += ri->size[b];
    out[hi + 1] -= ri->size[b];
  }
  for (int p = 1; p <= m; p++) out[p] += out[p - 1];
}

/* The turn without phases.  A training step's loss is the graph output
 * made first, and the forward is what comes up to it: the turn follows the
 * earliest-made graph output, when the keep-all plan then holds at least
 * half its peak (a real turn holds the saved activations).  Else (no
 * backward in sight) the first position before which the keep-all plan
 * holds the most. */
static int structural_turn(const ri_info *ri) {
  int64_t *before = mp_xmalloc(sizeof(int64_t) * (size_t)(ri->m + 2));
  ri_keepall_before(ri, before);
  int best = 0, first_out = ri->m;
  for (int p = 1; p < ri->m; p++)
    if (before[p] > before[best]) best = p;
  for (int b = 0; b < ri->nb; b++)
    if ((ri->flags[b] & RI_OUTPUT) && !(ri->flags[b] & RI_INPUT) && ri_prod(ri, b) < first_out)
      first_out = ri_prod(ri, b);
  int turn = best;
  if (first_out + 1 < ri->m && 2 * before[first_out + 1] >= before[best]) turn = first_out + 1;
  free(before);
  return ri->m ? turn : 0;
}

static void set_turn(ri_info *ri) {
  const mp_graph *g = ri->g;
  bool phases = false;
  for (int v = 0; v < ri->n && !phases; v++) phases = g->nodes[v].phase != MP_PHASE_NONE;
  if (!phases) {
    ri->turn = structural_turn(ri);
    return;
  }
  ri->turn = ri->m;
  for (int p = 0; p < ri->m; p++)
    if (g->nodes[ri->seq[p]].phase != MP_PHASE_FWD) {
      ri->turn = p;
      break;
    }
}

/* Difference arrays over the boundaries i in [0, turn - 1): buffer b is in
 * the frontier for prod <= i < its last forward use. */
static void set_frontier(ri_info *ri) {
  int T = ri->turn;
  ri->front_count = mp_xcalloc((size_t)T + 2, sizeof(int));
  ri->front_bytes = mp_xcalloc((size_t)T + 2, sizeof(int64_t));
  ri->front_one = mp_xmalloc(sizeof(int) * (size_t)(T + 2));
  int64_t *idsum = mp_xcalloc((size_t)T + 2, sizeof(int64_t));
  for (int b = 0; b < ri->nb; b++) {
    int p = ri_prod(ri, b);
    if (!(ri->flags[b] & RI_TENSOR) || p < 0 || p >= T) continue;
    int lf = p;
    for (int e = ri->ev_start[b] + 1; e < ri->ev_start[b + 1] && ri->ev[e] < T; e++) lf = ri->ev[e];
    if (lf <= p) continue;
    ri->front_count[p]++, ri->front_count[lf]--;
    ri->front_bytes[p] += ri->size[b], ri->front_bytes[lf] -= ri->size[b];
    idsum[p] += b, idsum[lf] -= b;
  }
  for (int i = 0; i < T; i++) {
    if (i > 0) {
      ri->front_count[i] += ri->front_count[i - 1];
      ri->front_bytes[i] += ri->front_bytes[i - 1];
      idsum[i] += idsum[i - 1];
    }
    ri->front_one[i] = ri->front_count[i] == 1 ? (int)idsum[i] : -1;
  }
  free(idsum);
}

/* Inputs that no node at or after the turn reads, and no graph output. */
static void set_holdable(ri_info *ri) {
  for (int b = 0; b < ri->nb; b++)
    if ((ri->flags[b] & RI_INPUT) && !(ri->flags[b] & RI_OUTPUT) && ri->last_use[b] < ri->turn)
      ri->flags[b] |= RI_HOLD;
}

static void init(ri_info *ri, const mp_graph *g, const int *order, bool hold_inputs) {
  memset(ri, 0, sizeof *ri);
  ri->g = g;
  ri->n = g->n;
  ri->nb = g->n_buf;
  size_t nb1 = (size_t)ri->nb + 1, n1 = (size_t)ri->n + 1;
  set_positions(ri, order);
  set_reads(ri);
  set_owned(ri);
  ri->size = mp_xcalloc(nb1, sizeof(int64_t));
  ri->flags = mp_xcalloc(nb1, sizeof(uint8_t));
  ri->anchor = mp_xcalloc(nb1, sizeof(int));
  ri->rerun = mp_xcalloc(n1, sizeof(bool));
  ri->cost = mp_xmalloc(sizeof(double) * n1);
  for (int v = 0; v < ri->n; v++) ri->cost[v] = g->nodes[v].cost;
  bool *inplace_node = mp_xcalloc(n1, sizeof(bool));
  set_flags(ri, inplace_node);
  set_events(ri);
  set_turn(ri); /* uses no drop flag */
  ri->owner = mp_xmalloc(sizeof(int) * nb1);
  for (int b = 0; b < ri->nb; b++) {
    int p = ri_prod(ri, b);
    if (p >= 0 && p < ri->turn) ri->flags[b] |= RI_FWD;
    ri->owner[b] = g->bufs[b].owner;
  }
  if (hold_inputs) set_holdable(ri);
  set_rerun_and_drop(ri, inplace_node);
  free(inplace_node);
  for (int v = 0; v < ri->n; v++)
    if (ri_ws(ri, v) > ri->ws_max) ri->ws_max = ri_ws(ri, v);
  set_frontier(ri);
}

void ri_init(ri_info *ri, const mp_graph *g, const int *order) { init(ri, g, order, false); }

void ri_init_hold(ri_info *ri, const mp_graph *g, const int *order) { init(ri, g, order, true); }

void ri_destroy(ri_info *ri) {
  free(ri->seq);
  free(ri->pos);
  free(ri->own_start);
  free(ri->own);
  free(ri->rd_start);
  free(ri->rd);
  free(ri->ev_start);
  free(ri->ev);
  free(ri->last_use);
  free(ri->owner);
  free(ri->anchor);
  free(ri->size);
  free(ri->cost);
  free(ri->flags);
  free(ri->rerun);
  free(ri->front_count);
  free(ri->front_bytes);
  free(ri->front_one);
  memset(ri, 0, sizeof *ri);
}

int ri_begin(mp_ctx *c, const char *who) {
  mp_events_clear(c->events);
  if (!c->g) {
    snprintf(c->msg, sizeof c->msg, "%s plans graphs, not fixed-lifetime problems", who);
    return -1;
  }
  c->duration_bound = mp_events_duration_floor(c->g);
  int64_t floor = mp_events_floor(c->g);
  if (floor <= c->budget) return 0;
  c->status = MP_INFEASIBLE;
  snprintf(c->msg, sizeof c->msg,
           "budget %lld is below %lld, the floor no plan goes under (inputs, outputs, or one "
           "node's reads + outputs + workspace)",
           (long long)c->budget, (long long)floor);
  return 1;
}

bool ri_meets(const mp_ctx *c, double duration) {
  /* the floor is a sum of costs, the duration a sum of the same costs in
   * another order: allow for rounding */
  double eps = 1e-9 * (c->duration_bound > 1 ? c->duration_bound : 1);
  return duration <= c->duration_bound + eps;
}

void ri_claim(mp_ctx *c, double duration) {
  if (ri_meets(c, duration)) c->status = MP_OPTIMAL;
  else c->status = mp_time_up(c) ? MP_TIMEOUT : MP_FEASIBLE; /* the clock may have cut the search */
}

int ri_no_plan(mp_ctx *c) {
  if (mp_time_up(c)) c->status = MP_TIMEOUT;
  return -1;
}

double ri_runs_cost(const mp_graph *g, const mp_events *p) {
  double sum = 0;
  for (int i = 0; i < p->n; i++)
    if (p->ev[i].kind == MP_EV_RUN) sum += g->nodes[p->ev[i].id].cost;
  return sum;
}

void ri_note_first(mp_ctx *c, const char *note) {
  char was[sizeof c->msg];
  memcpy(was, c->msg, sizeof was);
  int k = snprintf(c->msg, sizeof c->msg, "%s; ", note);
  if (k <= 0 || (size_t)k >= sizeof c->msg) return;
  size_t room = sizeof c->msg - (size_t)k;
  snprintf(c->msg + k, room, "%.*s", (int)room - 1, was);
}
