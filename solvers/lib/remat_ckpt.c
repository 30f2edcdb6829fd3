/* remat_ckpt.c - a run of the plan builder that resumes from snapshots of
 * its own state (remat_ckpt.h).  A snapshot at position c stays valid as
 * long as every change of the policy reaches no step before c: the state
 * at c is a function of the steps before it only. */
#include <stdlib.h>

#include "lib/remat_ckpt.h"

void rk_init(rk_run *k, const ri_info *ri, double bandwidth, int slots, double deadline) {
  *k = (rk_run){.slots = slots > 0 ? slots : 1, .deadline = deadline};
  rx_init(&k->x, ri, NULL, INT64_MAX, bandwidth);
  k->rerun_seen = mp_xmalloc(sizeof(int) * ((size_t)ri->nb + 1));
  for (int b = 0; b <= ri->nb; b++) k->rerun_seen[b] = -1;
  k->x.rerun_seen = k->rerun_seen;
  k->pos_peak = mp_xcalloc((size_t)ri->m + 1, sizeof(int64_t));
  k->snap = mp_xcalloc((size_t)k->slots, sizeof(rx_exec));
  k->made = mp_xcalloc((size_t)k->slots, sizeof(bool));
  /* positions 0 .. m: the last slot covers m */
  k->every = (ri->m + 1 + k->slots - 1) / k->slots;
  if (k->every < 1) k->every = 1;
  k->snap_to = ri->m;
}

void rk_snapshots_to(rk_run *k, int p) { k->snap_to = p; }

void rk_destroy(rk_run *k) {
  for (int i = 0; i < k->slots; i++)
    if (k->made[i]) rx_destroy(&k->snap[i]);
  free(k->snap);
  free(k->made);
  free(k->pos_peak);
  free(k->rerun_seen);
  rx_destroy(&k->x);
}

void rk_set_gaps(rk_run *k, const uint8_t *gap, const int *prefetch) {
  k->gap = gap;
  k->prefetch = prefetch;
  rx_set_gaps(&k->x, gap, prefetch);
}

void rk_prefetch_changed(rk_run *k, int b, int e, int was) { rx_prefetch_changed(&k->x, b, e, was); }

int rk_first_step(const ri_info *ri, int b, int e, int was, int now, int was_pre, int now_pre) {
  int first = ri->m;
  if ((was == RX_SWAP) != (now == RX_SWAP)) first = ri_prod(ri, b);
  else if (was != now) first = ri->ev[e];
  int pre[2] = {was_pre, now_pre};
  /* the settling after step pre - 1 already sees the position come
   * (a buffer back by then stays, remat_exec.c's back_by_now) */
  for (int i = 0; i < 2 && was_pre != now_pre; i++)
    if (pre[i] >= 0 && pre[i] - 1 < first) first = pre[i] - 1;
  return first;
}

void rk_changed(rk_run *k, int step) {
  if (step < 0) {
    k->nsnap = 0;
    k->fresh = false;
    return;
  }
  int keep = step / k->every + 1; /* the snapshots at positions <= step */
  if (k->nsnap > keep) k->nsnap = keep;
  if (k->x.p > step) k->fresh = false;
}

void rk_patch_free(rk_run *k, int b, int from) {
  rx_free(&k->x, b);
  for (int i = 0; i < k->nsnap; i++)
    if (i * k->every > from) rx_free(&k->snap[i], b);
}

/* The state before rx_start, the policy set again (rx_restart unsets it). */
static int restart(rk_run *k) {
  rx_exec *x = &k->x;
  rx_restart(x, NULL, x->bandwidth);
  x->deadline = k->deadline;
  x->pos_peak = k->pos_peak;
  x->rerun_seen = k->rerun_seen;
  rx_set_gaps(x, k->gap, k->prefetch);
  k->fresh = true;
  return rx_start(x);
}

/* The run at the last valid snapshot at or before p, else at the start. */
static int restore(rk_run *k, int p) {
  int i = p / k->every;
  if (i > k->nsnap - 1) i = k->nsnap - 1;
  if (i < 0) return restart(k);
  rx_copy_state_untimed(&k->x, &k->snap[i]);
  k->fresh = true;
  return k->x.failed ? -1 : 0;
}

int rk_resume(rk_run *k) {
  return k->fresh ? 0 : restore(k, k->x.ri->m);
}

int rk_seek(rk_run *k, int p) {
  int rc = k->fresh && k->x.p <= p ? 0 : restore(k, p);
  while (rc == 0 && k->x.p < p) rc = rk_step(k);
  return rc;
}

int rk_step(rk_run *k) {
  rx_exec *x = &k->x;
  int p = x->p;
  if (p % k->every == 0 && p / k->every == k->nsnap && k->nsnap < k->slots && p <= k->snap_to) {
    rx_exec *s = &k->snap[k->nsnap];
    if (!k->made[k->nsnap]) rx_init_snapshot(s, x);
    k->made[k->nsnap] = true;
    rx_copy_state_untimed(s, x);
    k->nsnap++;
  }
  k->pos_peak[p] = 0;
  int rc = rx_step(x);
  if (rc) k->fresh = false;
  return rc;
}

int rk_finish(rk_run *k) {
  k->pos_peak[k->x.ri->m] = 0;
  k->fresh = false;
  return rx_finish(&k->x);
}
