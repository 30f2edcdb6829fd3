/* remat_chen.h - Chen et al. 2016 ("Training deep nets with sublinear
 * memory cost") as Checkmate runs it: checkpoints among the articulation
 * points of the forward graph; every other forward buffer that the
 * backward reads is freed after its last forward use and recomputed, from
 * the checkpoint before it, when the backward first needs it; what a
 * recomputation brings back stays until its last use (the segment is
 * recomputed once).
 *
 * Articulation points, as Checkmate computes them (the cut vertices of the
 * undirected forward graph with a source before the first node and a sink
 * after the last), are here the forward positions i whose frontier is one
 * buffer: of everything made up to i, only that buffer is read by a later
 * forward node (inputs aside: they stay resident).  A linear sweep
 * (remat_info.c). */
#ifndef MP_REMAT_CHEN_H
#define MP_REMAT_CHEN_H

#include "lib/remat_exec.h"

/* The articulation points as positions (ascending); returns how many.
 * cuts has room for ri->turn entries. */
int rc_cuts(const ri_info *ri, int *cuts);

/* Checkmate's sqrt(n) checkpoints (solve_chen_sqrtn): of the k articulation
 * points, every floor(sqrt(k))-th, into ckpt (room for ri->turn entries);
 * returns how many. */
int rc_sqrt_checkpoints(const ri_info *ri, int *ckpt);

typedef struct rc_result {
  int64_t peak;
  double duration;
  int64_t reruns;
} rc_result;

/* Run Chen's plan with the buffers of the positions ckpt[0..nck) as
 * checkpoints.  out may be NULL (measure only).  0, or -1 with msg. */
int rc_run(const ri_info *ri, const int *ckpt, int nck, mp_events *out, double deadline,
           rc_result *res, char *msg, size_t msg_cap);

/* Chen's plans of many checkpoint sets, measured (no events) with the
 * forward run once.  Until the turn the plans differ only in what the
 * checkpoints keep: the forward never reruns (every buffer it reads is
 * resident: one whose next use is in the backward goes only after its
 * last forward use), and a checkpoint only stops the free of a buffer
 * whose next use is in the backward.  So the forward is run once without
 * checkpoints, noting when each buffer goes and each position's largest
 * sample; a plan's forward peak is then each sample plus the checkpoints
 * already kept past their free, and its backward runs from that state
 * with the checkpoints resident (from the turn on, holding a buffer
 * changes nothing: the backward frees only what no use remains for). */
typedef struct rc_meter {
  const ri_info *ri;
  rx_exec base;     /* the state at the turn, without checkpoints */
  rx_exec run;      /* a plan continued from it */
  int64_t *sample;  /* per forward position: its largest sample */
  int *gone;        /* per buffer: the forward position after which it went, or -1 */
  int *mark, stamp; /* per buffer: a checkpoint of the plan being measured */
  int *kept;        /* the checkpoints kept past their free */
  int64_t *add;     /* per forward position: their bytes from there on */
  int64_t init_peak; /* the peak before the first run (the inputs) */
  bool ok;          /* the forward ran (else rc_meter_run uses rc_run) */
  double deadline;
} rc_meter;

void rc_meter_init(rc_meter *mt, const ri_info *ri, double deadline);
void rc_meter_destroy(rc_meter *mt);
/* rc_run(ri, ckpt, nck, NULL, deadline, res, msg, msg_cap), the same
 * result, without the forward. */
int rc_meter_run(rc_meter *mt, const int *ckpt, int nck, rc_result *res, char *msg, size_t msg_cap);

#endif
