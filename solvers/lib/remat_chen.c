/* remat_chen.c - Chen's checkpointed plan on the shared plan builder
 * (remat_chen.h). */
#include <stdio.h>
#include <string.h>

#include "lib/remat_chen.h"

int rc_cuts(const ri_info *ri, int *cuts) {
  int n = 0;
  for (int i = 0; i + 1 < ri->turn; i++)
    if (ri->front_count[i] == 1) cuts[n++] = i;
  return n;
}

int rc_run(const ri_info *ri, const int *ckpt, int nck, mp_events *out, double deadline,
           rc_result *res, char *msg, size_t msg_cap) {
  rx_exec x;
  rx_init(&x, ri, out, INT64_MAX, 0);
  x.deadline = deadline;
  for (int i = 0; i < nck; i++) x.hold[ri->front_one[ckpt[i]]]++;
  /* forward: a buffer the backward reads is freed after its last forward use */
  x.horizon = ri->turn;
  int rc = rx_start(&x);
  while (rc == 0 && x.p < ri->turn) rc = rx_step(&x);
  /* backward: what comes back stays until its last use */
  if (rc == 0) rc = rx_finish(&x);
  if (rc == 0) {
    res->peak = x.peak;
    res->duration = x.duration;
    res->reruns = x.n_reruns;
  } else {
    snprintf(msg, msg_cap, "%s", x.msg);
  }
  rx_destroy(&x);
  return rc;
}
