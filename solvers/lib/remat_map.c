/* remat_map.c - an event plan as a recomputation genome (remat_map.h): one
 * walk over the plan lists each buffer's frees and returns with their
 * steps, one sweep per buffer over its gaps reads the genes off them. */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_map.h"

enum { M_FREE, M_RUN, M_IN };

typedef struct mark {
  int ev;   /* event index */
  int step; /* a free: the step it follows; a return: the step it precedes */
  int kind; /* M_* */
} mark;

typedef struct plan_marks {
  int *start; /* per buffer: its marks (nb + 1 offsets) */
  mark *m;
  int *first_ev; /* per step: the event of its first run (an input's step: the one before, or -1) */
} plan_marks;

/* Count (pass 0) or list (pass 1) the frees, ins and rerun outputs of p per
 * buffer; pass 1 also notes each step's first run. */
static void walk(const mp_rdec *d, const mp_events *p, const int *next_run, plan_marks *pm, int pass) {
  const mp_graph *g = d->g;
  bool *seen = mp_xcalloc((size_t)d->n + 1, sizeof(bool));
  int *fill = pass ? mp_xmalloc(sizeof(int) * (size_t)(d->nb + 1)) : NULL;
  if (fill) memcpy(fill, pm->start, sizeof(int) * (size_t)(d->nb + 1));
  int at = -1; /* the step of the last first run */
  for (int i = 0; i < p->n; i++) {
    mp_event e = p->ev[i];
    int q = at + 1 < d->n ? next_run[at + 1] : d->n;
    if (e.kind == MP_EV_RUN && !seen[e.id]) {
      seen[e.id] = true;
      at = d->pos[e.id];
      if (pass) pm->first_ev[at] = i;
      continue;
    }
    if (e.kind == MP_EV_OUT) continue;
    int outs = e.kind == MP_EV_RUN ? (g->nodes[e.id].has_alias ? 0 : g->nodes[e.id].n_out) : 1;
    for (int k = 0; k < outs; k++) {
      int b = e.kind == MP_EV_RUN ? g->root_of[e.id][k] : e.id;
      if (b < 0) continue;
      if (!pass) {
        pm->start[b + 1]++;
        continue;
      }
      int kind = e.kind == MP_EV_FREE ? M_FREE : e.kind == MP_EV_IN ? M_IN : M_RUN;
      pm->m[fill[b]++] = (mark){i, kind == M_FREE ? at : q, kind};
    }
  }
  free(seen);
  free(fill);
}

static void marks_init(const mp_rdec *d, const mp_events *p, plan_marks *pm) {
  int *next_run = mp_xmalloc(sizeof(int) * ((size_t)d->n + 1));
  next_run[d->n] = d->n;
  for (int t = d->n - 1; t >= 0; t--) next_run[t] = d->g->nodes[d->order[t]].is_input ? next_run[t + 1] : t;
  pm->start = mp_xcalloc((size_t)d->nb + 2, sizeof(int));
  pm->first_ev = mp_xmalloc(sizeof(int) * ((size_t)d->n + 1));
  for (int t = 0; t <= d->n; t++) pm->first_ev[t] = -1;
  walk(d, p, next_run, pm, 0);
  for (int b = 0; b < d->nb; b++) pm->start[b + 1] += pm->start[b];
  pm->m = mp_xmalloc(sizeof(mark) * (size_t)(pm->start[d->nb] + 1));
  walk(d, p, next_run, pm, 1);
  for (int t = 1; t < d->n; t++) /* an input's step: the first run before it */
    if (d->g->nodes[d->order[t]].is_input) pm->first_ev[t] = pm->first_ev[t - 1];
  pm->first_ev[d->n] = p->n; /* the end */
  free(next_run);
}

static void marks_destroy(plan_marks *pm) {
  free(pm->start);
  free(pm->m);
  free(pm->first_ev);
}

static int32_t clamp(int64_t x, int len) { return (int32_t)(x < 0 ? 0 : x > len - 1 ? len - 1 : x); }

/* The gene of slot s from the marks m[*i ..] before the first run at its
 * gap's end (*i advances past them). */
static mp_rgene gene_of(const mp_rdec *d, int s, const mark *m, int *i, int end, int end_ev) {
  int first_free = -1, ret = -1;
  bool made_again = false; /* a return after the first free */
  for (; *i < end && m[*i].ev < end_ev; (*i)++) {
    if (m[*i].kind == M_FREE) {
      if (first_free < 0) first_free = m[*i].step;
      ret = -1;
    } else {
      ret = *i;
      made_again = made_again || first_free >= 0;
    }
  }
  int len = mp_rdec_gap_len(d, s);
  mp_rgene keep = {MP_RK_KEEP, 0, 0};
  if (first_free < 0) return keep;
  if (d->slot_reader[s] == MP_RSLOT_TAIL) /* freed after its last use: the same under KEEP */
    return made_again && mp_rdec_allows(d, s, MP_RK_DROP) ? (mp_rgene){MP_RK_DROP, 0, 0} : keep;
  if (ret < 0) return keep; /* not back by the gap's end: the plan is not valid here */
  int32_t back = clamp((int64_t)d->ge[s] - m[ret].step, len);
  int32_t delay = clamp((int64_t)first_free - d->gs[s], len);
  if (m[ret].kind == M_RUN) /* held while the plan holds it: recomputations may read it */
    return mp_rdec_allows(d, s, MP_RK_HOLD_DROP)
               ? (mp_rgene){delay > 0 ? MP_RK_HOLD_DROP : MP_RK_DROP, back, delay}
               : keep;
  return mp_rdec_allows(d, s, MP_RK_OFFLOAD) ? (mp_rgene){MP_RK_OFFLOAD, back, delay} : keep;
}

int mp_rgenes_from_events(const mp_rdec *d, const mp_events *p, mp_rgene *genes) {
  mp_rgenes_keep_all(d, genes);
  if (!mp_events_follow(d->g, p, d->order)) return -1;
  plan_marks pm;
  marks_init(d, p, &pm);
  for (int b = 0; b < d->nb; b++) {
    int i = pm.start[b], end = pm.start[b + 1];
    if (i == end) continue; /* never freed nor made again: kept */
    int first = d->gap0[b], m = d->gap0[b + 1] - first;
    for (int k = 0; k < m; k++) {
      int s = d->gaps[first + k];
      int end_ev = d->ge[s] >= d->n ? INT32_MAX : pm.first_ev[d->ge[s]];
      if (d->slot_reader[s] == MP_RSLOT_TAIL || d->slot_reader[s] == MP_RSLOT_END) end_ev = INT32_MAX;
      genes[s] = gene_of(d, s, pm.m, &i, end, end_ev);
    }
  }
  marks_destroy(&pm);
  return 0;
}

int mp_rgenes_repair(mp_rdec *d, mp_rgene *genes, double deadline) {
  mp_rfig f;
  for (int round = 0; round <= d->n_slots; round++) {
    if (mp_rdec_decode(d, genes, INT64_MAX, &f) == 0) return 0;
    if (deadline > 0 && mp_now() >= deadline) return -1;
    if (f.fail_slot < 0)
      mp_rgenes_keep_all(d, genes);
    else
      genes[f.fail_slot] = (mp_rgene){MP_RK_KEEP, 0, 0};
  }
  return -1;
}

void mp_rstart_map(mp_rdec *d, const mp_events *p, int64_t budget, double deadline, mp_rstart *st,
                   mp_rgene *genes) {
  memset(st, 0, sizeof *st);
  if (!p || !mp_events_follow(d->g, p, d->order)) return;
  mp_ev_figures f;
  mp_events_evaluate(d->g, p, d->bw, budget, &f);
  st->has_plan = f.live_peak <= budget;
  st->duration = f.duration;
  st->peak = f.live_peak;
  /* with the limit spent no search follows: the plan itself is the answer,
   * and its genome's decode would cost a second at 10^6 nodes */
  if (deadline > 0 && mp_now() >= deadline) return;
  if (mp_rgenes_from_events(d, p, genes) || mp_rgenes_repair(d, genes, deadline)) return;
  st->has_genes = mp_rdec_decode(d, genes, budget, &st->fig) == 0;
}
