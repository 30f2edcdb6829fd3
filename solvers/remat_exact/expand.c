/* expand.c - remat-exact's transitions: the events that may follow a
 * label, their clocks (DESIGN 6.3's simulation, step by step) and the key. */
#include <math.h>
#include <string.h>

#include "exact.h"

/* Every clock of a label, one slot per buffer. */
typedef struct full {
  double fix[RX_FIXED];
  double ready[RX_MAX], lread[RX_MAX], lout[RX_MAX];
} full;

static void unpack(const rx_graph *G, uint64_t res, const double *c, full *f) {
  memcpy(f->fix, c, sizeof f->fix);
  int i = RX_FIXED;
  for (int b = 0; b < G->nb; b++) {
    bool r = res >> b & 1;
    f->ready[b] = r ? c[i] : c[RX_FLOOR];
    f->lread[b] = r ? c[i + 1] : c[RX_FLOOR];
    f->lout[b] = r ? c[i + 2] : c[RX_FLOOR];
    i += r ? 3 : 0;
  }
}

/* Clocks below the floor count as the floor; buffers not resident keep
 * none (their readers and out ended before the free that dropped them). */
static void pack(const rx_graph *G, uint64_t res, const full *f, double *c) {
  double fl = f->fix[RX_FLOOR];
  c[RX_FLOOR] = fl;
  for (int k = RX_COMPUTE; k < RX_END; k++) c[k] = fmax(f->fix[k], fl);
  c[RX_END] = f->fix[RX_END];
  int i = RX_FIXED;
  for (int b = 0; b < G->nb; b++)
    if (res >> b & 1) {
      c[i++] = fmax(f->ready[b], fl);
      c[i++] = fmax(f->lread[b], fl);
      c[i++] = fmax(f->lout[b], fl);
    }
}

static int64_t live_of(const rx_graph *G, uint64_t res) {
  int64_t s = 0;
  for (; res; res &= res - 1) s += G->size[__builtin_ctzll(res)];
  return s;
}

/* Nodes a later run may still need to run again: ancestors of the nodes
 * not run yet, and the owners of graph outputs with their ancestors (an
 * output may be freed and made again). */
static uint64_t useful(const rx_graph *G, uint64_t ran) {
  uint64_t u = 0, todo = G->all_ran & ~ran;
  for (uint64_t t = todo; t; t &= t - 1) u |= G->anc[__builtin_ctzll(t)];
  for (uint64_t o = G->outputs; o; o &= o - 1) {
    int w = G->owner[__builtin_ctzll(o)];
    if (w >= 0) u |= G->anc[w] | 1ull << w;
  }
  return u;
}

uint64_t rx_needed(const rx_graph *G, uint64_t ran, uint64_t res) {
  (void)res;
  uint64_t users = (G->all_ran & ~ran) | useful(G, ran), need = G->outputs;
  for (int b = 0; b < G->nb; b++)
    if (G->readersm[b] & users) need |= 1ull << b;
  return need;
}

double rx_key(const rx_graph *G, uint64_t ran, uint64_t res, uint64_t host, const double *clk) {
  uint64_t todo = G->all_ran & ~ran, rerun = 0;
  double rest = 0;
  for (uint64_t t = todo; t; t &= t - 1) rest += G->cost[__builtin_ctzll(t)];
  for (int b = 0; b < G->nb; b++) {
    bool must = (G->outputs >> b & 1) || (G->readersm[b] & todo);
    if (!must || (res >> b & 1) || (host >> b & 1)) continue;
    int o = G->owner[b];
    if (o < 0 || !(ran >> o & 1)) {
      if (o < 0) return INFINITY; /* an input gone for good */
      continue;                   /* not made yet */
    }
    if (!G->rerun[o]) return INFINITY; /* gone for good */
    rerun |= 1ull << o;
  }
  for (uint64_t r = rerun; r; r &= r - 1) rest += G->cost[__builtin_ctzll(r)];
  double comp = G->bw > 0 ? clk[RX_COMPUTE] : clk[0], end = G->bw > 0 ? clk[RX_END] : clk[0];
  return fmax(end, comp + rest);
}

bool rx_goal(const rx_graph *G, const rx_label *x) {
  return (x->ran & G->all_ran) == G->all_ran && (x->res & G->outputs) == G->outputs;
}

/* ---- transitions ---- */

typedef struct ctx {
  rx_search *s;
  int k;            /* the label expanded */
  rx_label x;       /* a copy (the store may move) */
  double clk[RX_FIXED + 3 * RX_MAX];
  uint64_t need;
  int64_t live;
} ctx;

static void offer(ctx *e, rx_label *y, double *clk) {
  y->parent = e->k;
  y->key = rx_key(e->s->G, y->ran, y->res, y->host, clk);
  if (isfinite(y->key)) rx_offer(e->s, y, clk);
}

static void run(ctx *e, int v) {
  const rx_graph *G = e->s->G;
  const rx_label *x = &e->x;
  bool first = !(x->ran >> v & 1);
  if (first ? G->nonin[__builtin_popcountll(x->ran & G->all_ran)] != v
            : !G->rerun[v] || !(useful(G, x->ran) >> v & 1))
    return;
  if ((G->readm[v] & ~x->res) || (G->ownm[v] & x->res) ||
      e->live + G->adds[v] + G->ws[v] > e->s->budget)
    return;
  if (x->kind == MP_EV_OUT || (x->kind == MP_EV_IN && !(G->readm[v] >> x->id & 1))) return;
  rx_label y = *x;
  y.kind = MP_EV_RUN;
  y.id = (int8_t)v;
  y.ran |= 1ull << v;
  y.res = (x->res | G->ownm[v]) & ~G->deadm[v]; /* a dead value goes at once */
  double clk[RX_FIXED + 3 * RX_MAX];
  if (G->bw <= 0) {
    clk[0] = e->clk[0] + G->cost[v];
    y.res &= rx_needed(G, y.ran, y.res); /* without copies, what nothing needs goes at once */
    offer(e, &y, clk);
    return;
  }
  full f;
  unpack(G, x->res, e->clk, &f);
  double start = fmax(f.fix[RX_FLOOR], f.fix[RX_COMPUTE]);
  for (uint64_t r = G->readm[v]; r; r &= r - 1) start = fmax(start, f.ready[__builtin_ctzll(r)]);
  double end = start + G->cost[v];
  f.fix[RX_COMPUTE] = end;
  f.fix[RX_END] = fmax(f.fix[RX_END], end);
  for (uint64_t r = G->readm[v]; r; r &= r - 1) f.lread[__builtin_ctzll(r)] = end;
  for (uint64_t r = G->ownm[v]; r; r &= r - 1) {
    int b = __builtin_ctzll(r);
    f.ready[b] = end;
    f.lread[b] = f.lout[b] = f.fix[RX_FLOOR];
  }
  pack(G, y.res, &f, clk);
  offer(e, &y, clk);
}

static void buffer_event(ctx *e, int kind, int b) {
  const rx_graph *G = e->s->G;
  const rx_label *x = &e->x;
  bool res = x->res >> b & 1, host = x->host >> b & 1, need = e->need >> b & 1;
  if (kind == MP_EV_FREE) {
    if (!res || (G->inplace[b] && (G->readersm[b] & G->all_ran & ~x->ran))) return;
    if (x->kind == MP_EV_FREE && x->id >= b) return; /* frees in a row: increasing ids */
  } else {
    if (G->bw <= 0 || !need) return;
    if (kind == MP_EV_OUT && (!res || host || G->inplace[b])) return;
    if (kind == MP_EV_IN && (res || !host || x->kind == MP_EV_OUT || e->live + G->size[b] > e->s->budget))
      return;
  }
  rx_label y = *x;
  y.kind = (int8_t)kind;
  y.id = (int8_t)b;
  double clk[RX_FIXED + 3 * RX_MAX];
  if (G->bw <= 0) { /* a free: no time */
    y.res &= ~(1ull << b);
    clk[0] = e->clk[0];
    offer(e, &y, clk);
    return;
  }
  full f;
  unpack(G, x->res, e->clk, &f);
  double len = (double)G->size[b] / G->bw;
  if (kind == MP_EV_FREE) {
    f.fix[RX_FLOOR] = fmax(f.fix[RX_FLOOR], fmax(f.lread[b], f.lout[b]));
    y.res &= ~(1ull << b);
  } else if (kind == MP_EV_OUT) {
    double end = fmax(fmax(f.fix[RX_FLOOR], f.fix[RX_TO_HOST]), f.ready[b]) + len;
    f.fix[RX_TO_HOST] = f.lout[b] = end;
    f.fix[RX_END] = fmax(f.fix[RX_END], end);
    y.host |= 1ull << b;
  } else {
    double end = fmax(fmax(f.fix[RX_FLOOR], f.fix[RX_FROM_HOST]), f.lout[b]) + len;
    f.fix[RX_FROM_HOST] = f.ready[b] = end;
    f.lread[b] = f.fix[RX_FLOOR];
    f.fix[RX_END] = fmax(f.fix[RX_END], end);
    y.res |= 1ull << b;
  }
  pack(G, y.res, &f, clk);
  offer(e, &y, clk);
}

void rx_expand(rx_search *s, int k) {
  const rx_graph *G = s->G;
  ctx e = {.s = s, .k = k, .x = s->l[k]};
  memcpy(e.clk, &s->pool[e.x.clk], sizeof(double) * (size_t)rx_nclocks(G, e.x.res));
  e.need = rx_needed(G, e.x.ran, e.x.res);
  e.live = live_of(G, e.x.res);
  s->l[k].expanded = true;
  for (int v = 0; v < G->n; v++)
    if (G->all_ran >> v & 1) run(&e, v);
  for (int b = 0; b < G->nb; b++)
    for (int kind = MP_EV_FREE; kind <= MP_EV_IN; kind++) buffer_event(&e, kind, b);
}
