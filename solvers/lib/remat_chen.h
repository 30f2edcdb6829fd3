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

typedef struct rc_result {
  int64_t peak;
  double duration;
  int64_t reruns;
} rc_result;

/* Run Chen's plan with the buffers of the positions ckpt[0..nck) as
 * checkpoints.  out may be NULL (measure only).  0, or -1 with msg. */
int rc_run(const ri_info *ri, const int *ckpt, int nck, mp_events *out, double deadline,
           rc_result *res, char *msg, size_t msg_cap);

#endif
