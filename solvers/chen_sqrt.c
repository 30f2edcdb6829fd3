/* chen_sqrt.c - Chen et al. 2016's sqrt(n) checkpointing, as Checkmate runs
 * it (checkmate/core/solvers/strategy_chen.py, solve_chen_sqrtn): of the k
 * articulation points of the forward graph, every floor(sqrt(k))-th is a
 * checkpoint; the other forward buffers the backward reads are freed after
 * their forward use and recomputed segment by segment (lib/remat_chen.h).
 *
 * One plan, whatever the budget: it is returned when its peak fits, else
 * the stage fails with the peak it reached.  With no articulation point
 * every forward buffer is recomputed from the inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/remat_chen.h"
#include "solver.h"

static int chen_sqrt_solve(mp_ctx *c) {
  int rc = ri_begin(c, "chen-sqrt");
  if (rc) return rc > 0 ? 0 : -1;
  ri_info ri;
  ri_init(&ri, c->g, c->start_order);
  int *cuts = mp_xmalloc(sizeof(int) * (size_t)(ri.turn + 1));
  int nc = rc_cuts(&ri, cuts), nck = rc_sqrt_checkpoints(&ri, cuts);
  rc_result res;
  rc = rc_run(&ri, cuts, nck, c->events, c->deadline, &res, c->msg, sizeof c->msg);
  if (rc) rc = ri_no_plan(c); /* timeout when the limit cut the run */
  if (rc == 0 && res.peak > c->budget) {
    snprintf(c->msg, sizeof c->msg,
             "no plan within budget %lld: chen-sqrt's plan (%d checkpoints of %d articulation "
             "points) peaks at %lld",
             (long long)c->budget, nck, nc, (long long)res.peak);
    rc = -1;
  }
  if (rc == 0) {
    ri_claim(c, res.duration);
    snprintf(c->msg, sizeof c->msg, "%d checkpoints of %d articulation points, %lld reruns", nck,
             nc, (long long)res.reruns);
  } else {
    mp_events_clear(c->events);
  }
  free(cuts);
  ri_destroy(&ri);
  return rc;
}

const mp_solver solver_chen_sqrt = {
    .name = "chen-sqrt",
    .summary = "Chen et al. 2016: every sqrt(k)-th of the k articulation points is a checkpoint, "
               "the rest recomputed per segment (Checkmate's variant)",
    .decides = MP_DECIDES_EVENTS,
    .solve = chen_sqrt_solve,
};
