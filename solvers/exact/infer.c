/* infer.c - what every node of the exact search computes first: each
 * unplaced item's lowest feasible offset, and the inference that proves a
 * node dead before any child is tried. */
#include <string.h>

#include "exact/exact.h"

/* The lowest aligned offset >= o (aligned) where item i meets no pinned
 * buffer live with it: step above each one it would overlap until none. */
static int64_t clear_of_pinned(const ex_part *P, int i, int64_t o) {
  for (bool moved = P->np > 0; moved;) {
    moved = false;
    for (int k = 0; k < P->np; k++)
      if (P->plo[k] < P->ihi[i] && P->ilo[i] < P->phi[k] && o < P->poff[k] + P->psz[k] &&
          P->poff[k] < o + P->size[i]) {
        o = mp_align_up(P->poff[k] + P->psz[k], P->al[i]);
        moved = true;
      }
  }
  return o;
}

/* lowest feasible offset of local item i at or above wl: above the floors
 * of its sections, aligned, clear of the pinned buffers live with it */
static int64_t lowest(const ex_search *S, int i, int64_t wl) {
  const ex_part *P = S->P;
  int64_t o = wl;
  for (int s = P->s0[i]; s < P->s1[i]; s++)
    if (S->floor[s] > o) o = S->floor[s];
  return clear_of_pinned(P, i, mp_align_up(o, P->al[i]));
}

/* lowest(i, wl) for an item whose lowest offset l0 = lowest(i, 0) lies
 * below wl: its floors do too, so only the waterline, the alignment and
 * the pinned buffers matter */
static int64_t lowest_above(const ex_search *S, int i, int64_t wl) {
  return clear_of_pinned(S->P, i, mp_align_up(wl, S->P->al[i]));
}

/* Lowest offsets of the component's unplaced items (lb, wait flags), the
 * dominance bound U and, when `bits`, the bitset of the unplaced items
 * among by_s0[i0 .. i1) (S->ubits, for the memo key); 0 when one of them
 * cannot fit. */
static int lowest_offsets(ex_search *S, int sa, int sb, int64_t wl, bool bits, int64_t *Up) {
  const ex_part *P = S->P;
  int rawdom = S->cf->rawdom && S->normal;
  int64_t *lows = S->lows;
  for (int s = sa; s < sb; s++) lows[s] = INT64_MAX;
  int64_t U = INT64_MAX;
  int i0 = P->first[sa], i1 = P->first[sb];
  if (bits) memset(S->ubits, 0, sizeof(uint64_t) * (size_t)((i1 - i0 + 63) / 64));
  for (int q = i0; q < i1; q++) {
    int i = P->by_s0[q];
    if (S->off[i] >= 0) continue;
    if (bits) S->ubits[(q - i0) >> 6] |= 1ull << ((q - i0) & 63);
    /* normal form: an item rests on 0, a pinned buffer or a conflicting
     * item; below the waterline it would float, so it waits (its bytes
     * still count, at the waterline, in the inference) */
    int64_t l = lowest(S, i, 0);
    if (rawdom && l + P->size[i] < U) U = l + P->size[i];
    S->wait[i] = l < wl;
    if (l < wl) {
      l = lowest_above(S, i, wl);
      if (S->normal) { /* it needs another unplaced item under it */
        bool support = false;
        for (int t = P->s0[i]; t < P->s1[i] && !support; t++) support = S->rem[t] > P->size[i];
        if (!support) return 0;
      }
    }
    if (l + P->size[i] > S->C) return 0;
    S->lb[i] = l;
    if (l + P->size[i] < U) U = l + P->size[i];
    for (int s = P->s0[i]; s < P->s1[i]; s++)
      if (l < lows[s]) lows[s] = l;
  }
  *Up = U;
  return 1;
}

/* Threshold inference: in every section, the unplaced items whose lowest
 * offset is >= x all lie above x, so x + their bytes <= C. */
static int thresholds(ex_search *S, int sa, int sb) {
  const ex_part *P = S->P;
  for (int s = sa; s < sb; s++) {
    if (S->rem[s] <= 0) continue;
    int m = 0;
    int64_t *buf = S->tbuf;
    for (int q = P->sec_start[s]; q < P->sec_start[s + 1]; q++) {
      int i = P->sec_items[q];
      if (S->off[i] >= 0) continue;
      /* insertion by l descending: (l, size) pairs */
      int64_t l = S->lb[i], z = P->size[i];
      int k = m++;
      while (k > 0 && buf[2 * (k - 1)] < l) {
        buf[2 * k] = buf[2 * (k - 1)];
        buf[2 * k + 1] = buf[2 * (k - 1) + 1];
        k--;
      }
      buf[2 * k] = l;
      buf[2 * k + 1] = z;
    }
    int64_t acc = 0;
    for (int k = 0; k < m; k++) {
      acc += buf[2 * k + 1];
      if (buf[2 * k] + acc > S->C) return 0;
    }
  }
  return 1;
}

int ex_infer_range(ex_search *S, int sa, int sb, int64_t wl, bool bits, ex_infer *out) {
  if (!lowest_offsets(S, sa, sb, wl, bits, &out->U)) return 0;
  /* MiniMalloc's cross-section rule: in every section the lowest offset of
   * its unplaced items plus their bytes fits.  The next offset becomes the
   * waterline, under which no section with unplaced bytes may sink:
   * o + rem[s] <= C for every such s. */
  int64_t omax = INT64_MAX;
  for (int s = sa; s < sb; s++)
    if (S->rem[s] > 0) {
      if (S->lows[s] + S->rem[s] > S->C) return 0;
      if (S->C - S->rem[s] < omax) omax = S->C - S->rem[s];
    }
  if (S->cf->thresholds && !thresholds(S, sa, sb)) return 0;
  out->omax = omax;
  return 1;
}
