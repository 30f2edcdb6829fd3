/* remat_chen.c - Chen's checkpointed plan on the shared plan builder
 * (remat_chen.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_chen.h"

int rc_cuts(const ri_info *ri, int *cuts) {
  int n = 0;
  for (int i = 0; i + 1 < ri->turn; i++)
    if (ri->front_count[i] == 1) cuts[n++] = i;
  return n;
}

int rc_sqrt_checkpoints(const ri_info *ri, int *ckpt) {
  int nc = rc_cuts(ri, ckpt), k = (int)sqrt((double)nc), nck = 0;
  for (int i = 0; k > 0 && i < nc; i++)
    if ((i + 1) % k == 0) ckpt[nck++] = ckpt[i];
  return nck;
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

/* ---- many plans, the forward once ---- */

void rc_meter_init(rc_meter *mt, const ri_info *ri, double deadline) {
  memset(mt, 0, sizeof *mt);
  mt->ri = ri;
  mt->deadline = deadline;
  size_t nb = (size_t)ri->nb + 1, m = (size_t)ri->m + 1;
  mt->sample = mp_xmalloc(sizeof(int64_t) * m);
  mt->gone = mp_xmalloc(sizeof(int) * nb);
  mt->mark = mp_xcalloc(nb, sizeof(int));
  mt->kept = mp_xmalloc(sizeof(int) * nb);
  mt->add = mp_xmalloc(sizeof(int64_t) * (m + 1));
  for (size_t p = 0; p < m; p++) mt->sample[p] = INT64_MIN;
  for (size_t b = 0; b < nb; b++) mt->gone[b] = -1;
  rx_exec *x = &mt->base;
  rx_init(x, ri, NULL, INT64_MAX, 0);
  x->deadline = deadline;
  x->pos_peak = mt->sample;
  mt->init_peak = x->peak;
  x->horizon = ri->turn;
  int rc = rx_start(x);
  while (rc == 0 && x->p < ri->turn) {
    int p = x->p, v = ri->seq[p];
    rc = rx_step(x);
    for (int k = 0; rc == 0 && k < ri_nreads(ri, v); k++)
      if (!x->res[ri_read(ri, v, k)] && mt->gone[ri_read(ri, v, k)] < 0) mt->gone[ri_read(ri, v, k)] = p;
    for (int i = ri->own_start[v]; rc == 0 && i < ri->own_start[v + 1]; i++)
      if (!x->res[ri->own[i]] && mt->gone[ri->own[i]] < 0) mt->gone[ri->own[i]] = p;
  }
  x->pos_peak = NULL;
  mt->ok = rc == 0 && x->n_reruns == 0;
  rx_init(&mt->run, ri, NULL, INT64_MAX, 0);
}

void rc_meter_destroy(rc_meter *mt) {
  rx_destroy(&mt->base);
  rx_destroy(&mt->run);
  free(mt->sample);
  free(mt->gone);
  free(mt->mark);
  free(mt->kept);
  free(mt->add);
  memset(mt, 0, sizeof *mt);
}

/* The distinct checkpoint buffers the forward freed while some use
 * remained (the frees a hold stops) into mt->kept; returns how many. */
static int kept_past_free(rc_meter *mt, const int *ckpt, int nck) {
  const ri_info *ri = mt->ri;
  int n = 0;
  mt->stamp++;
  for (int i = 0; i < nck; i++) {
    int b = ri->front_one[ckpt[i]];
    if (mt->mark[b] == mt->stamp) continue;
    mt->mark[b] = mt->stamp;
    if (mt->gone[b] >= 0 && rx_next_use(&mt->base, b) <= ri->m) mt->kept[n++] = b;
  }
  return n;
}

/* The forward's peak with the kept buffers resident past their free. */
static int64_t forward_peak(rc_meter *mt, int nkept) {
  const ri_info *ri = mt->ri;
  int T = ri->turn;
  int64_t *add = mt->add, extra = 0, peak = mt->init_peak;
  memset(add, 0, sizeof(int64_t) * ((size_t)T + 1));
  for (int i = 0; i < nkept; i++) add[mt->gone[mt->kept[i]] + 1] += ri->size[mt->kept[i]];
  for (int p = 0; p < T; p++) {
    extra += add[p];
    if (mt->sample[p] != INT64_MIN && mt->sample[p] + extra > peak) peak = mt->sample[p] + extra;
  }
  return peak;
}

int rc_meter_run(rc_meter *mt, const int *ckpt, int nck, rc_result *res, char *msg, size_t msg_cap) {
  const ri_info *ri = mt->ri;
  if (!mt->ok) return rc_run(ri, ckpt, nck, NULL, mt->deadline, res, msg, msg_cap);
  rx_exec *x = &mt->run;
  rx_copy_state(x, &mt->base);
  x->deadline = mt->deadline;
  int nkept = kept_past_free(mt, ckpt, nck);
  x->peak = forward_peak(mt, nkept);
  for (int i = 0; i < nck; i++) x->hold[ri->front_one[ckpt[i]]]++;
  for (int i = 0; i < nkept; i++) rx_resident(x, mt->kept[i]);
  int rc = rx_finish(x);
  if (rc == 0) {
    res->peak = x->peak;
    res->duration = x->duration;
    res->reruns = x->n_reruns;
  } else {
    snprintf(msg, msg_cap, "%s", x->msg);
  }
  return rc;
}
