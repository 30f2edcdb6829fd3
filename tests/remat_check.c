/* remat_check.c - see remat_check.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "remat_check.h"

void rc_random_costs(mp_graph *g, mp_rng *r) {
  for (int v = 0; v < g->n; v++)
    if (mp_rng_below(r, 2)) {
      g->nodes[v].cost = (double)mp_rng_below(r, 50) / 10.0;
      g->nodes[v].has_cost = true;
    }
}

static bool contains(const char *s, const char *w) { return s && strstr(s, w); }

bool rc_may_refuse(const mp_solver *s) {
  const char *words[] = {"cap", "refus", "max_", "limit"};
  for (int w = 0; w < 4; w++) {
    if (contains(s->summary, words[w]) || contains(s->quick, words[w])) return true;
    for (int i = 0; i < s->n_options; i++)
      if (contains(s->options[i].name, words[w]) || contains(s->options[i].help, words[w])) return true;
  }
  return false;
}

ox_event *rc_to_oracle(const mp_graph *g, const mp_events *p) {
  ox_event *ox = malloc(sizeof(ox_event) * (size_t)(p->n + 1));
  for (int i = 0; i < p->n; i++) {
    mp_event e = p->ev[i];
    ox[i] = e.kind == MP_EV_RUN ? (ox_event){OX_RUN, e.id, 0}
                                : (ox_event){(int)e.kind, g->bufs[e.id].owner, g->bufs[e.id].out};
  }
  return ox;
}

const mp_stage_result *rc_events_stage(const mp_result *r) {
  for (int i = 0; i < r->n_stages; i++)
    if (r->stages[i].kind == MP_STAGE_EVENTS) return &r->stages[i];
  return NULL;
}

bool rc_same_events(const mp_events *a, const mp_events *b) {
  if (a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->ev[i].kind != b->ev[i].kind || a->ev[i].id != b->ev[i].id) return false;
  return true;
}

char *rc_plan_bytes(mp_graph *g, const mp_result *r) {
  mp_instance in = {g, NULL};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert(f != NULL);
  ck_assert_int_eq(mp_plan_write(f, &in, r), 0);
  fclose(f);
  return buf;
}

int *rc_order_for(const mp_graph *g, mp_rng *r, int t) {
  int *order = malloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  if (t % 2) {
    memcpy(order, g->given, sizeof(int) * (size_t)g->n);
  } else {
    or_model om;
    or_build(g, &om);
    or_random_order(&om, r, order);
    or_destroy(&om);
  }
  return order;
}
