/* remat_seed.c - a cheap plan for a search to start from when it is handed
 * none (remat_map.h): Chen's checkpointed plan (lib/remat_chen.h) with
 * every j-th articulation point of the forward as a checkpoint, j over a
 * short geometric grid, and once without checkpoints; the shortest plan
 * within the budget. */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_chen.h"
#include "lib/remat_map.h"

/* Every stride-th cut (stride 0: none) into ckpt; returns how many. */
static int every(const int *cuts, int n_cuts, int stride, int *ckpt) {
  int n = 0;
  for (int i = stride - 1; stride > 0 && i < n_cuts; i += stride) ckpt[n++] = cuts[i];
  return n;
}

int mp_rseed_chen(const mp_graph *g, const int *order, int64_t budget, double deadline, mp_events *out) {
  ri_info ri;
  ri_init(&ri, g, order);
  int *cuts = mp_xmalloc(sizeof(int) * (size_t)(ri.turn + 1));
  int *ckpt = mp_xmalloc(sizeof(int) * (size_t)(ri.turn + 1));
  int n_cuts = rc_cuts(&ri, cuts), best = -1;
  double best_duration = 0;
  char msg[160];
  rc_meter meter;
  rc_meter_init(&meter, &ri, deadline);
  for (int stride = 0, step = 1; stride <= n_cuts; stride += step) {
    if (deadline > 0 && mp_now() >= deadline) break;
    rc_result res;
    int nck = every(cuts, n_cuts, stride, ckpt);
    if (rc_meter_run(&meter, ckpt, nck, &res, msg, sizeof msg) == 0 && res.peak <= budget &&
        (best < 0 || res.duration < best_duration)) {
      best = stride;
      best_duration = res.duration;
    }
    if (stride >= 4) step = stride / 2; /* 1 2 3 4 6 9 13 ... */
  }
  rc_meter_destroy(&meter);
  int rc = -1;
  if (best >= 0) {
    rc_result res;
    mp_events_clear(out);
    rc = rc_run(&ri, ckpt, every(cuts, n_cuts, best, ckpt), out, deadline, &res, msg, sizeof msg);
    if (rc == 0 && res.peak > budget) rc = -1;
  }
  free(cuts);
  free(ckpt);
  ri_destroy(&ri);
  return rc;
}
