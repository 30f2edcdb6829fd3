/* remat_ckpt.h - a run of the plan builder (remat_exec.h) that can go
 * back: copies of its state on a grid of positions, so that a driver that
 * changes its gaps or prefetch positions, and knows the first step the
 * change can alter, resumes from the last copy before that step instead of
 * running the plan again from its start (swap-greedy's measure-and-free
 * rounds).  The run writes no events and enforces no budget; it records
 * the largest sample of every position (rx_exec.pos_peak).
 *
 * Positions: the state "at p" is the one before step p (after rx_start);
 * at m every step has run, rx_finish not yet.  Step -1 is rx_start. */
#ifndef MP_REMAT_CKPT_H
#define MP_REMAT_CKPT_H

#include "lib/remat_exec.h"

typedef struct rk_run {
  rx_exec x;            /* the run; its policy is set with rk_set_gaps */
  int64_t *pos_peak;    /* m + 1 entries, valid for the positions run */
  rx_exec *snap;        /* snap[i]: the state at i * every (made on first use) */
  bool *made;
  int slots, nsnap;     /* snapshots: slots at most, the first nsnap valid */
  int every;            /* the grid */
  int snap_to;          /* no snapshot past this position (rk_snapshots_to) */
  bool fresh;           /* x is at a state of the current policy, before finish */
  const uint8_t *gap;
  const int *prefetch;
  double deadline;
  int *rerun_seen;      /* the run's rx_exec.rerun_seen (-1: never); a value
                           from before a resume may be too late, never too early */
} rk_run;

/* A run of ri's plan with the given link, with at most `slots` snapshots
 * (>= 1): fewer is less memory, more is less stepping on a resume. */
void rk_init(rk_run *k, const ri_info *ri, double bandwidth, int slots, double deadline);
void rk_destroy(rk_run *k);
/* The gaps and prefetch positions (the caller's arrays, rx_set_gaps):
 * call once before the first step, again after a change of prefetch, and
 * tell rk_changed which step the change reaches first. */
void rk_set_gaps(rk_run *k, const uint8_t *gap, const int *prefetch);
/* Buffer b's prefetch position at event e changed from `was` (the lists
 * updated in place: rx_prefetch_changed); tell rk_changed too. */
void rk_prefetch_changed(rk_run *k, int b, int e, int was);
/* The first step that can see buffer b's gap e change from mode `was` to
 * `now` and its prefetch position from `was_pre` to `now_pre` (-1: none),
 * by the builder's rules: a gap's mode is read once its event has passed;
 * whether b has a swap at all, once b is made (its copy out then); a
 * prefetch position p, at step p - 1 (whose settling sees it come).  -1:
 * rx_start (b is an input, or a position 0); m: no step (nothing
 * changed). */
int rk_first_step(const ri_info *ri, int b, int e, int was, int now, int was_pre, int now_pre);
/* The policy changed; steps before `step` cannot see it (their states are
 * kept), it or a later one may (-1: rx_start may). */
void rk_changed(rk_run *k, int step);
/* Buffer b's gap that begins at position `from` now frees it there, and
 * the driver knows that no step after `from` up to the run's position
 * looks at b (its reruns leave it alone: rerun_seen[b] <= from): those
 * steps run as before with b's bytes less, so the run's state and the
 * snapshots after `from` are patched (b freed) instead of run again. */
void rk_patch_free(rk_run *k, int b, int from);
/* The run at the state at p (0 <= p <= m): from the current state when it
 * is valid and not past p, else from the last valid snapshot at or before
 * p, else from the start.  0, or -1 with x.msg. */
int rk_seek(rk_run *k, int p);
/* The run at the latest valid state it can reach without stepping. */
int rk_resume(rk_run *k);
/* Snapshots only at positions <= p from now on (m at rk_init): a driver
 * that will resume no later than p spares the copies past it. */
void rk_snapshots_to(rk_run *k, int p);
/* Step x.p (< m): its pos_peak entry rewritten, a snapshot taken first
 * when x.p is on the grid, not past rk_snapshots_to, and the next one
 * due.  0, or -1 with x.msg. */
int rk_step(rk_run *k);
/* rx_finish after the last step (x.p == m): pos_peak[m] rewritten; the
 * state is then past every position (a seek goes back). */
int rk_finish(rk_run *k);

#endif
