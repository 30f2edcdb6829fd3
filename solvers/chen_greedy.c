/* chen_greedy.c - Chen et al. 2016's greedy checkpointing, as Checkmate runs
 * it (solve_chen_greedy): walking the forward in order, add each node's
 * output bytes to a running segment size; at an articulation point where
 * the segment exceeds the segment budget B, checkpoint it and start a new
 * segment.  Checkmate sweeps B from outside; here the stage sweeps it
 * itself: B over a geometric grid from the forward's total bytes (no
 * checkpoints) down to 0 (every articulation point), each plan built and
 * measured, then chen-sqrt's sqrt(n) checkpoints as one more candidate
 * (the grid's periods need not meet them); the one that fits the budget
 * with the least duration is kept (ties: the lower peak, then the earlier
 * candidate).  The plan of each candidate is lib/remat_chen.h's.  Before
 * all that: when keeping every tensor (no recomputation, the order's own
 * plan) fits the budget, that plan is the answer (optimal: the duration
 * floor), as Chen's scheme drops nothing while memory suffices. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_check.h"
#include "lib/remat_chen.h"
#include "solver.h"

#define CHEN_GREEDY_OPTIONS(X) \
  X(grid, INT, 48, 1, 100000, "segment budgets tried (a geometric grid from the forward's bytes down)")
enum { CHEN_GREEDY_OPTIONS(MP_OPT_ENUM) CHEN_GREEDY_N_OPTS };
static const mp_option chen_greedy_options[] = {CHEN_GREEDY_OPTIONS(MP_OPT_ENTRY)};

/* Checkmate's greedy rule for segment budget B; returns the checkpoints. */
static int greedy_checkpoints(const ri_info *ri, const bool *is_cut, double B, int *ckpt) {
  double temp = 0;
  int n = 0;
  for (int p = 0; p + 1 < ri->turn; p++) {
    int v = ri->seq[p];
    for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) temp += (double)ri->size[ri->own[i]];
    if (is_cut[p] && temp > B) {
      ckpt[n++] = p;
      temp = 0;
    }
  }
  return n;
}

typedef struct best_plan {
  bool found;
  rc_result res;
  double B;   /* the segment budget, or -1: the sqrt(n) checkpoints */
  int nck;
} best_plan;

/* The checkpoints of a candidate: greedy for segment budget B >= 0, else
 * the sqrt(n) ones. */
static int candidate(const ri_info *ri, const bool *is_cut, double B, int *ckpt) {
  return B >= 0 ? greedy_checkpoints(ri, is_cut, B, ckpt) : rc_sqrt_checkpoints(ri, ckpt);
}

static bool better(const rc_result *a, const best_plan *b) {
  if (!b->found) return true;
  if (a->duration != b->res.duration) return a->duration < b->res.duration;
  return a->peak < b->res.peak;
}

/* The sweep: B = total x 2^(-i/4) (4 points per halving), then B = 0
 * (every cut), until the time limit; each new set of checkpoints (in ckpt,
 * scratch) run and measured, the best plan within the budget in *best.
 * Returns the least peak met (INT64_MAX: none); the last failure's reason
 * in msg. */
static int64_t sweep_budgets(mp_ctx *c, const ri_info *ri, const bool *is_cut, double total,
                             int *ckpt, best_plan *best, char *msg, size_t msg_cap) {
  int grid = (int)c->opt[OPT_grid];
  int64_t least_peak = INT64_MAX;
  int *last = mp_xmalloc(sizeof(int) * (size_t)(ri->turn + 1));
  int last_n = -1;
  rc_meter meter;
  rc_meter_init(&meter, ri, c->deadline);
  for (int i = 0; i <= grid + 1 && !mp_time_up(c); i++) {
    double B = i == grid + 1 ? -1 : i == grid ? 0 : total * pow(2.0, -(double)i / 4.0);
    int nck = candidate(ri, is_cut, B, ckpt);
    if (nck == last_n && !memcmp(ckpt, last, sizeof(int) * (size_t)nck)) continue; /* same as before */
    last_n = nck;
    memcpy(last, ckpt, sizeof(int) * (size_t)nck);
    rc_result res;
    if (rc_meter_run(&meter, ckpt, nck, &res, msg, msg_cap)) continue;
    if (res.peak < least_peak) least_peak = res.peak;
    if (res.peak <= c->budget && better(&res, best)) *best = (best_plan){true, res, B, nck};
  }
  rc_meter_destroy(&meter);
  free(last);
  return least_peak;
}

/* The best plan's events in c->events with the claim and the message, or
 * why there is none; 0 or -1 (the events then cleared). */
static int conclude(mp_ctx *c, const ri_info *ri, const bool *is_cut, int *ckpt,
                    const best_plan *best, int64_t least_peak, const char *msg) {
  int rc = -1;
  if (best->found) {
    int nck = candidate(ri, is_cut, best->B, ckpt);
    rc_result res;
    /* the sweep's plan run again to write it: no deadline, as the sweep
     * may have ended at it (ri_claim then says timeout) */
    rc = rc_run(ri, ckpt, nck, c->events, 0, &res, c->msg, sizeof c->msg);
    if (rc == 0 && res.peak > c->budget) rc = -1; /* cannot happen: the same plan */
    if (rc == 0) {
      ri_claim(c, res.duration);
      if (best->B >= 0)
        snprintf(c->msg, sizeof c->msg, "segment budget %.0f bytes: %d checkpoints, %lld reruns",
                 best->B, nck, (long long)res.reruns);
      else
        snprintf(c->msg, sizeof c->msg, "sqrt(n) checkpoints: %d, %lld reruns", nck,
                 (long long)res.reruns);
    }
  } else if (least_peak < INT64_MAX) {
    snprintf(c->msg, sizeof c->msg,
             "no plan within budget %lld: the least peak over the segment budgets is %lld",
             (long long)c->budget, (long long)least_peak);
    rc = ri_no_plan(c); /* timeout when the limit cut the budgets tried */
  } else {
    snprintf(c->msg, sizeof c->msg, "found no plan%s%s", msg[0] ? ": " : "", msg);
    rc = ri_no_plan(c);
  }
  if (rc) mp_events_clear(c->events);
  return rc;
}

static int chen_greedy_solve(mp_ctx *c) {
  int rc = ri_begin(c, "chen-greedy");
  if (rc) return rc > 0 ? 0 : -1;
  if (mp_remat_settled(c)) { /* keeping everything fits: nothing dropped */
    snprintf(c->msg, sizeof c->msg, "keeping every tensor fits the budget: no recomputation");
    return 0;
  }
  ri_info ri;
  ri_init(&ri, c->g, c->start_order);
  bool *is_cut = mp_xcalloc((size_t)ri.turn + 1, sizeof(bool));
  int *ckpt = mp_xmalloc(sizeof(int) * (size_t)(ri.turn + 1));
  double total = 0;
  for (int p = 0; p < ri.turn; p++) {
    is_cut[p] = ri.front_count[p] == 1 && p + 1 < ri.turn;
    total += (double)ri_run_bytes(&ri, ri.seq[p]);
  }
  best_plan best = {0};
  char msg[200] = ""; /* room for the "found no plan: " prefix in c->msg */
  int64_t least_peak = sweep_budgets(c, &ri, is_cut, total, ckpt, &best, msg, sizeof msg);
  rc = conclude(c, &ri, is_cut, ckpt, &best, least_peak, msg);
  free(is_cut);
  free(ckpt);
  ri_destroy(&ri);
  return rc;
}

const mp_solver solver_chen_greedy = {
    .name = "chen-greedy",
    .summary = "Chen et al. 2016 greedy segments: checkpoints at articulation points once a "
               "segment exceeds B bytes, B swept for the shortest plan within the budget",
    .decides = MP_DECIDES_EVENTS,
    .options = MP_OPTIONS(chen_greedy_options),
    .quick = "grid=12",
    .solve = chen_greedy_solve,
};
