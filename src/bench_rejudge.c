/* bench_rejudge.c - another program's plan re-judged by memplan's own
 * verifier before its answer is stored.
 *
 * A program that is not this memplan (--memplan PROGRAM) is asked for its
 * plan file (--out, a file in the scratch folder: bench_run.c), and the
 * figures it prints are a claim about that plan.  The plan is verified
 * against the cell's graph by the judge memplan's own figures come from
 * (verify.c; with recomputation the event plan verifier, verify_events.c),
 * at the cell's alignment (memplan's default when the cell sets none, not
 * the one the plan states), and every figure the answer states must be the
 * one the judge recomputes: what the row stores is then the judge's.  With
 * recomputation the plan must be an event plan over the cell's host link
 * within the cell's budget; with a capacity its arena must fit it.  No
 * plan, one that does not verify, or a figure that differs: refused. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_row.h"
#include "chain.h"
#include "util.h"
#include "verify.h"

#define refuse mp_cellrun_refuse

static const char *const JUDGE = "memplan's verifier";

#define near mp_bench_near

static bool stated(mp_cellrun *run, const char *k) {
  json_t *x = json_object_get(run->out, k);
  return x && !json_is_null(x);
}

/* An integer the answer states (absent: nothing to compare) is the judge's. */
static void same_int(mp_cellrun *run, const char *k, int64_t want) {
  json_t *x = json_object_get(run->out, k);
  if (!stated(run, k) || (json_is_integer(x) && json_integer_value(x) == want)) return;
  if (json_is_integer(x))
    refuse(run, "%s %lld, but its plan gives %lld (%s)", k, (long long)json_integer_value(x),
           (long long)want, JUDGE);
  else
    refuse(run, "%s is not the integer %lld its plan gives (%s)", k, (long long)want, JUDGE);
}

/* A real the answer states is the judge's (NAN: the judge has none). */
static void same_real(mp_cellrun *run, const char *k, double want) {
  json_t *x = json_object_get(run->out, k);
  if (!stated(run, k)) return;
  if (isnan(want))
    refuse(run, "%s stated, but its plan gives none (%s)", k, JUDGE);
  else if (!json_is_number(x) || !near(json_number_value(x), want))
    refuse(run, "%s %.12g, but its plan gives %.12g (%s)", k,
           json_is_number(x) ? json_number_value(x) : NAN, want, JUDGE);
}

/* The alignment the cell asks for: its own, else solve's default (64 for a
 * graph; a CSV's own column or 1: no override). */
static int64_t cell_align(const mp_cell *c, bool graph) {
  const char *a = mp_cell_option(c->options, "align");
  return a ? strtoll(a, NULL, 10) : graph ? 64 : 0;
}

/* Figures of every plan: the placement's (DESIGN 1.3), the counts. */
static void same_figures(mp_cellrun *run, const mp_plan_facts *p) {
  same_int(run, "live_peak", p->fig.live_peak);
  same_int(run, "arena", p->fig.arena);
  same_int(run, "sum_sizes", p->fig.sum_sizes);
  same_int(run, "buffers", p->buffers);
  if (p->nodes >= 0) same_int(run, "nodes", p->nodes);
  if (p->align > 0) same_int(run, "align", p->align);
  same_real(run, "fragmentation", p->fig.fragmentation);
  same_real(run, "reuse_ratio", p->fig.reuse_ratio);
  same_real(run, "reduction_vs_noreuse", p->fig.reduction_vs_noreuse);
  same_real(run, "profile_std", p->fig.profile_std);
}

/* An event plan's (DESIGN 6.3), at the cell's link and within its budget. */
static void same_event_figures(mp_cellrun *run, const mp_cell *c, const mp_graph_facts *f,
                               const mp_plan_facts *p) {
  double bw = c->bandwidth[0] ? strtod(c->bandwidth, NULL) : f->in->g->host_bandwidth;
  if (!near(p->bandwidth, bw))
    refuse(run, "its plan is for the host link %.12g, the cell's is %.12g", p->bandwidth, bw);
  same_real(run, "bandwidth", p->bandwidth);
  int64_t budget = mp_cell_budget(c, f);
  if (budget >= 0) same_int(run, "budget", budget);
  if (p->budget >= 0) same_int(run, "budget", p->budget);
  if (budget >= 0 && p->fig.live_peak > budget)
    refuse(run, "its plan peaks at %lld, over the cell's budget %lld (%s)",
           (long long)p->fig.live_peak, (long long)budget, JUDGE);
  same_real(run, "duration", p->ev.duration);
  same_real(run, "base_time", p->ev.base_time);
  same_real(run, "recompute_time", p->ev.recompute_time);
  same_real(run, "stall_time", p->ev.stall_time);
  same_real(run, "overhead", p->ev.overhead);
  same_int(run, "recomputed", p->ev.recomputed);
  same_int(run, "transferred", p->ev.transferred);
  same_int(run, "residencies", p->residencies);
  same_int(run, "stale_reruns", p->ev.stale_reruns);
}

/* The verifier's message without the plan's path (a scratch file). */
static const char *without_path(const char *msg, const char *plan) {
  size_t l = strlen(plan);
  return !strncmp(msg, plan, l) && !strncmp(msg + l, ": ", 2) ? msg + l + 2 : msg;
}

void mp_cellrun_rejudge(mp_cellrun *run, const mp_cell *c, const char *plan, mp_graph_facts *cache) {
  const mp_graph_facts *f = mp_graph_facts_of(cache, c->file);
  if (!f->ok) {
    refuse(run, "bench cannot read the graph to verify the plan of the figures it states");
    return;
  }
  if (access(plan, F_OK)) {
    refuse(run, "it states figures but wrote no plan file (asked with --out): nothing shows them");
    return;
  }
  mp_plan_facts p;
  mp_error err;
  if (mp_plan_verify_facts(f->in, plan, cell_align(c, !f->fixed), &p, &err)) {
    refuse(run, "its plan does not verify (%s): %s", JUDGE, without_path(err.msg, plan));
    return;
  }
  if (p.events != (c->remat[0] != 0)) {
    refuse(run, p.events ? "its plan is an event plan, but the cell has no recomputation stage"
                         : "its plan has no events, but the cell has a recomputation stage");
    return;
  }
  same_figures(run, &p);
  if (p.events) same_event_figures(run, c, f, &p);
  const char *cap = mp_cell_option(c->options, "capacity");
  if (cap && p.fig.arena > strtoll(cap, NULL, 10))
    refuse(run, "its plan's arena %lld is above the capacity %lld asked", (long long)p.fig.arena,
           strtoll(cap, NULL, 10));
}
