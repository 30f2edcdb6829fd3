/* hillclimb.c - improve the placement order of greedy-by-size (TVM USMP
 * hill climbing, with simulated-annealing acceptance).
 * A solution is a sequence of the buffers; packing it best-fit gives the
 * offsets.  The start is the better of greedy by size and, in a chain, the
 * previous placer's offsets read as a sequence (by offset, then size).  A
 * move takes a buffer that touches the arena top (offset + size = arena;
 * with probability 1/4 any buffer) and moves it to a random earlier
 * position, or swaps it with a random other buffer; only the suffix from
 * the first changed position is re-packed.  Moves that do not grow the arena
 * are kept; worse ones with probability exp(-delta / T), T falling
 * geometrically from temp x arena to ~0 over the iteration budget.  The best
 * placement seen is returned, so the result is never worse than the start.
 * Deterministic for a seed unless the time limit cuts the run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"
#include "solver.h"

#define HC_OPTIONS(X)                                                              \
  X(iters, 20000, 0, 1e9, "moves to try (the work budget)")                        \
  X(temp, 0.002, 0, 1, "initial temperature as a fraction of the start arena")    \
  X(peak_bias, 0.75, 0, 1, "probability of moving a buffer that touches the top")   \
  X(fit, 1, 0, 1, "packing of a sequence: 0 first fit (reaches every optimum), 1 best fit")

enum { HC_OPTIONS(MP_OPT_ENUM) HC_N_OPTS };
static const mp_option hc_options[] = {HC_OPTIONS(MP_OPT_ENTRY)};

typedef struct hc {
  const mp_problem *p;
  int n;
  int *seq;
  int64_t *off;
  int *placed; /* pinned first, then seq prefix */
  int npin;
  enum mp_fit fit;
} hc;

/* Re-pack seq[from..) given the prefix; returns the arena. */
static int64_t repack(hc *h, int from) {
  const mp_problem *p = h->p;
  int np = h->npin + from;
  for (int k = from; k < h->n; k++) {
    int i = h->seq[k];
    h->off[i] = p->items[i].size > 0 ? mp_pack_one(p, i, h->placed, np, h->off, h->fit) : 0;
    h->placed[np++] = i;
  }
  int64_t a = 0;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].size > 0 && h->off[i] + p->items[i].size > a) a = h->off[i] + p->items[i].size;
  return a;
}

static const int64_t *sort_off;
static const mp_problem *sort_p;
static int cmp_off(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  if (sort_off[x] != sort_off[y]) return sort_off[x] < sort_off[y] ? -1 : 1;
  if (sort_p->items[x].size != sort_p->items[y].size)
    return sort_p->items[x].size > sort_p->items[y].size ? -1 : 1;
  return x - y;
}

static int hc_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  hc h = {p, 0, NULL, NULL, NULL, 0, c->opt[OPT_fit] > 0 ? MP_BEST_FIT : MP_FIRST_FIT};
  int *all = mp_xmalloc(sizeof(int) * nz);
  mp_seq_by_size(p, all);
  h.seq = mp_xmalloc(sizeof(int) * nz);
  h.off = mp_xmalloc(sizeof(int64_t) * nz);
  h.placed = mp_xmalloc(sizeof(int) * nz);
  for (int i = 0; i < n; i++) {
    h.off[i] = p->items[i].fixed >= 0 ? p->items[i].fixed : -1;
    if (p->items[i].fixed >= 0) h.placed[h.npin++] = i;
  }
  for (int k = 0; k < n; k++)
    if (p->items[all[k]].fixed < 0) h.seq[h.n++] = all[k];
  int m = h.n;
  int64_t cur = repack(&h, 0);
  /* a chain's previous placement, as a sequence, if it packs better */
  if (c->start_offsets) {
    int *s2 = mp_xmalloc(sizeof(int) * nz);
    memcpy(s2, h.seq, sizeof(int) * (size_t)m);
    sort_off = c->start_offsets;
    sort_p = p;
    qsort(h.seq, (size_t)m, sizeof(int), cmp_off);
    int64_t a = repack(&h, 0);
    if (a < cur) {
      cur = a;
    } else {
      memcpy(h.seq, s2, sizeof(int) * (size_t)m);
      repack(&h, 0);
    }
    free(s2);
  }
  int *best_seq = mp_xmalloc(sizeof(int) * nz), *old = mp_xmalloc(sizeof(int) * nz);
  int64_t *best_off = mp_xmalloc(sizeof(int64_t) * nz);
  memcpy(best_seq, h.seq, sizeof(int) * (size_t)m);
  memcpy(best_off, h.off, sizeof(int64_t) * nz);
  int64_t best = cur, lb = mp_live_peak(p);
  mp_rng rng;
  mp_rng_seed(&rng, c->seed);
  long iters = (long)c->opt[OPT_iters];
  double T0 = c->opt[OPT_temp] * (double)cur, T = T0;
  double cool = iters > 0 ? pow(1e-3, 1.0 / (double)iters) : 1;
  int *pos = mp_xmalloc(sizeof(int) * nz);
  int *top = mp_xmalloc(sizeof(int) * nz);
  bool cut = false;
  for (long it = 0; it < iters && m > 1 && best > lb; it++) {
    if ((it & 15) == 0 && mp_time_up(c)) {
      cut = true;
      break;
    }
    for (int k = 0; k < m; k++) pos[h.seq[k]] = k;
    int k1;
    if (mp_rng_unit(&rng) < c->opt[OPT_peak_bias]) {
      int nt = 0;
      for (int k = 0; k < m; k++) {
        int i = h.seq[k];
        if (h.off[i] + p->items[i].size == cur) top[nt++] = k;
      }
      k1 = nt ? top[mp_rng_below(&rng, (uint64_t)nt)] : (int)mp_rng_below(&rng, (uint64_t)m);
    } else {
      k1 = (int)mp_rng_below(&rng, (uint64_t)m);
    }
    memcpy(old, h.seq, sizeof(int) * (size_t)m);
    int from;
    if (mp_rng_unit(&rng) < 0.5) {
      int k2 = (int)mp_rng_below(&rng, (uint64_t)m);
      if (k2 == k1) continue;
      int t = h.seq[k1];
      h.seq[k1] = h.seq[k2];
      h.seq[k2] = t;
      from = k1 < k2 ? k1 : k2;
    } else {
      if (k1 == 0) continue;
      int k2 = (int)mp_rng_below(&rng, (uint64_t)k1);
      int t = h.seq[k1];
      memmove(h.seq + k2 + 1, h.seq + k2, sizeof(int) * (size_t)(k1 - k2));
      h.seq[k2] = t;
      from = k2;
    }
    int64_t a = repack(&h, from);
    double d = (double)(a - cur);
    if (a <= cur || (T > 0 && mp_rng_unit(&rng) < exp(-d / T))) {
      cur = a;
      if (a < best) {
        best = a;
        memcpy(best_seq, h.seq, sizeof(int) * (size_t)m);
        memcpy(best_off, h.off, sizeof(int64_t) * nz);
      }
    } else {
      memcpy(h.seq, old, sizeof(int) * (size_t)m);
      repack(&h, from);
    }
    T *= cool;

  }
  for (int i = 0; i < n; i++) c->offsets[i] = best_off[i] < 0 ? 0 : best_off[i];
  c->status = best <= lb ? MP_OPTIMAL : cut ? MP_TIMEOUT : MP_FEASIBLE;
  c->bound = lb;
  free(all);
  free(h.seq);
  free(h.off);
  free(h.placed);
  free(best_seq);
  free(best_off);
  free(old);
  free(pos);
  free(top);
  return 0;
}

const mp_solver solver_hillclimb = {
    .name = "hillclimb",
    .summary = "improve the greedy-by-size order by moves on the buffers at the top (annealing)",
    .decides = MP_DECIDES_OFFSETS,
    .options = hc_options,
    .n_options = HC_N_OPTS,
    .quick = "iters=200",
    .solve = hc_solve,
};
