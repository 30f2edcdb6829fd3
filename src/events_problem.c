/* events_problem.c - the residencies of an event plan as a fixed-lifetime
 * problem (DESIGN 6.3): one item per stretch of time a buffer is resident,
 * on sample times (events.h), so that every placer places them and the
 * arena is measured as for an order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "util.h"

typedef struct span {
  mp_residency r;
  int64_t lo, hi;
} span;

typedef struct spans {
  int n, cap;
  span *a;
} spans;

static int open_span(spans *s, int buf, int made, mp_res_origin how, int64_t lo) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->a = mp_xrealloc(s->a, sizeof(span) * (size_t)s->cap);
  }
  s->a[s->n] = (span){{buf, made, -1, how}, lo, -1};
  return s->n++;
}

static int cmp_span(const void *x, const void *y) {
  const span *a = x, *b = y;
  if (a->r.buf != b->r.buf) return a->r.buf < b->r.buf ? -1 : 1;
  return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Walk the plan: time t counts the samples so far (0: the start). */
static int64_t collect(const mp_graph *g, const mp_events *p, spans *s) {
  int *open = mp_xmalloc(sizeof(int) * (size_t)(g->n_buf ? g->n_buf : 1));
  bool *ran = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(bool));
  for (int b = 0; b < g->n_buf; b++) {
    open[b] = -1;
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].born_at_start)
      open[b] = open_span(s, b, -1, MP_RES_START, 0);
  }
  int64_t t = 0;
  for (int i = 0; i < p->n; i++) {
    int id = p->ev[i].id;
    switch (p->ev[i].kind) {
    case MP_EV_RUN: {
      t++;
      const mp_node *nd = &g->nodes[id];
      mp_res_origin how = ran[id] ? MP_RES_RERUN : MP_RES_RUN;
      ran[id] = true;
      for (int k = 0; k < nd->n_out && !nd->has_alias; k++) {
        int b = g->root_of[id][k];
        if (b >= 0) open[b] = open_span(s, b, i, how, t);
      }
      if (g->ws_buf[id] >= 0) {
        int w = open_span(s, g->ws_buf[id], i, how, t);
        s->a[w].r.freed = i;
        s->a[w].hi = t + 1;
      }
      break;
    }
    case MP_EV_IN:
      t++;
      open[id] = open_span(s, id, i, MP_RES_IN, t);
      break;
    case MP_EV_FREE:
      if (open[id] < 0) break; /* not resident: the verifier refuses such a plan */
      s->a[open[id]].r.freed = i;
      s->a[open[id]].hi = t + 1; /* resident at the last sample, gone by the next */
      open[id] = -1;
      break;
    default:
      break;
    }
  }
  for (int b = 0; b < g->n_buf; b++)
    if (open[b] >= 0) s->a[open[b]].hi = t + 1;
  free(open);
  free(ran);
  return t;
}

void mp_events_problem(const mp_graph *g, const mp_events *p, int64_t align, mp_problem *prob,
                       mp_residency **res) {
  spans s = {0};
  int64_t last = collect(g, p, &s);
  if (s.n) qsort(s.a, (size_t)s.n, sizeof(span), cmp_span);
  memset(prob, 0, sizeof *prob);
  prob->name = mp_xstrdup(g->name);
  prob->n = s.n;
  prob->items = mp_xcalloc((size_t)(s.n ? s.n : 1), sizeof(mp_item));
  prob->ids = mp_xcalloc((size_t)(s.n ? s.n : 1), sizeof(char *));
  /* sample times are kept (time 0 is the start); the profile covers the
   * start only when it is a sample */
  prob->t_begin = mp_events_start_sampled(g) ? 0 : 1;
  prob->t_end = last + 1;
  char key[48], id[80];
  for (int i = 0; i < s.n; i++) {
    const span *x = &s.a[i];
    prob->items[i] = (mp_item){g->bufs[x->r.buf].size, x->lo, x->hi, align < 1 ? 1 : align, -1};
    mp_buffer_key(g, x->r.buf, key, sizeof key);
    size_t n = strlen(key); /* "key" or "key@made" (below 80 bytes) */
    memcpy(id, key, n);
    if (i > 0 && s.a[i - 1].r.buf == x->r.buf) {
      id[n] = '@';
      n = (size_t)(mp_put_decimal(id + n + 1, x->r.made) - id);
    }
    id[n] = 0;
    prob->ids[i] = mp_xstrdup(id);
  }
  if (res) {
    *res = mp_xmalloc(sizeof(mp_residency) * (size_t)(s.n ? s.n : 1));
    for (int i = 0; i < s.n; i++) (*res)[i] = s.a[i].r;
  }
  free(s.a);
}
