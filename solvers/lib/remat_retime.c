/* remat_retime.c - copies in as late as a FIFO stream lets them end in
 * time (remat_retime.h). */
#include <stdlib.h>

#include "lib/remat_ckpt.h"
#include "lib/remat_retime.h"

/* The copy needed last first; ties: the later gap, then the larger buffer
 * (the reverse of the builder's issue order within a position). */
static int need_later(const void *pa, const void *pb) {
  const rt_copy *a = pa, *b = pb;
  if (a->q != b->q) return a->q > b->q ? -1 : 1;
  if (a->b != b->b) return a->b > b->b ? -1 : 1;
  return a->e > b->e ? -1 : a->e < b->e;
}

/* The latest position in [lo, q] whose run starts by t (pos_start never
 * decreases); lo when none does. */
static int latest_by(const double *pos_start, int lo, int q, double t) {
  if (pos_start[lo] > t) return lo;
  while (lo < q) {
    int mid = lo + (q - lo + 1) / 2;
    if (pos_start[mid] <= t) lo = mid; else q = mid - 1;
  }
  return lo;
}

static int collect(const ri_info *ri, const uint8_t *gap, double bw, rt_copy *copies) {
  int n = 0;
  for (int b = 0; b < ri->nb; b++)
    for (int e = ri->ev_start[b]; e + 1 < ri->ev_start[b + 1]; e++) {
      if (gap[e] != RX_SWAP) continue;
      int q = ri->ev[e + 1], lo = ri->ev[e] + 1;
      copies[n++] = (rt_copy){.e = e, .b = b, .lo = lo < q ? lo : q, .q = q,
                              .len = (double)ri->size[b] / bw};
    }
  return n;
}

int rt_retime(const ri_info *ri, const uint8_t *gap, int *prefetch, const double *pos_start,
              double bandwidth, rt_copy *copies) {
  int n = collect(ri, gap, bandwidth, copies), first = ri->m;
  qsort(copies, (size_t)n, sizeof *copies, need_later);
  double next_start = 1e300; /* the latest start of the copy needed after */
  for (int i = 0; i < n; i++) {
    rt_copy *k = &copies[i];
    double end = pos_start[k->q] < next_start ? pos_start[k->q] : next_start;
    double start = end - k->len;
    int r = latest_by(pos_start, k->lo, k->q, start);
    next_start = start;
    if (prefetch[k->e] == r) continue;
    int step = rk_first_step(ri, k->b, k->e, RX_SWAP, RX_SWAP, prefetch[k->e], r);
    if (step < first) first = step;
    prefetch[k->e] = r;
  }
  return first;
}
