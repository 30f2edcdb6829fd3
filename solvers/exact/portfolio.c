/* portfolio.c - how one part is decided at one capacity: restarts over a
 * portfolio of lanes (a static rank x a waterline form x a value order),
 * each lane a search with its own failure memo, so that a longer rerun of
 * a lane resumes rather than repeats.
 *
 * portfolio 1 (default): MiniMalloc-style round robin over three static
 * ranks (total/width/area, total/area/width, width/area/total), normal
 * form, lowest offset first, node limits doubling every round from 2n.
 * Measured on the challenging set, total/width/area alone solves A, D-G,
 * I-K within 60k nodes and total/area/width B, C and H within 36k.
 * portfolio 0: every (rank, form, value order) configuration in turn with
 * Luby node limits and seeded perturbations of the value order.  A
 * min-first lane (only items at the lowest offset) is incomplete: its
 * failures prove nothing. */
#include <stdio.h>

#include "exact/exact.h"

static uint64_t luby(uint64_t i) { /* 1 1 2 1 1 2 4 1 1 2 ... (i >= 1) */
  for (;;) {
    uint64_t k = 1;
    while ((1ULL << k) - 1 < i) k++;
    if (i == (1ULL << k) - 1) return 1ULL << (k - 1);
    i -= (1ULL << (k - 1)) - 1;
  }
}

/* Lane kinds: 0..3 waterline {normal, free} x value order {rank, offset},
 * 4 min-first (incomplete). */
enum { KIND_MINFIRST = 4, MAX_LANES = 64 };

typedef struct lanes {
  int n;
  int rank[MAX_LANES], kind[MAX_LANES];
  bool doubling;  /* node limits doubling (portfolio 1) or Luby (0) */
} lanes;

static void lane(lanes *L, int rank, int kind) {
  L->rank[L->n] = rank;
  L->kind[L->n++] = kind;
}

static void lanes_init(lanes *L, const ex_config *cf) {
  L->n = 0;
  L->doubling = false;
  int first = cf->rank;
  if (cf->minfirst == 2) {
    lane(L, first, KIND_MINFIRST);
  } else if (!cf->restarts) {
    lane(L, first, (cf->normal ? 0 : 2) + (cf->by_offset ? 1 : 0));
  } else if (cf->portfolio == 1) {
    static const int lr[] = {4, 0, 1};
    for (int q = 0; q < 3; q++) lane(L, lr[(q + first) % 3], 1);
    if (cf->minfirst == 1) lane(L, 4, KIND_MINFIRST);
    L->doubling = true;
  } else {
    for (int m = 0; m < EX_N_RANKS; m++)
      for (int q = 0; q < (cf->minfirst == 1 ? 5 : 4); q++) lane(L, (first + m) % EX_N_RANKS, q);
  }
}

/* One search per (rank, normal form, min-first or not): the memo of a lane
 * is only valid for its form and phase. */
typedef struct searches {
  ex_search S[4 * EX_N_RANKS];
  bool init[4 * EX_N_RANKS];
} searches;

static int lane_slot(int m, int kind) {
  bool mf = kind == KIND_MINFIRST;
  return m * 4 + (mf ? 2 : 0) + (kind < 2 || mf);
}

void ex_lanes_need(const ex_config *cf, unsigned *ranks, int *searches) {
  lanes L;
  lanes_init(&L, cf);
  bool used[4 * EX_N_RANKS] = {0};
  *ranks = 0;
  *searches = 0;
  for (int q = 0; q < L.n; q++) {
    *ranks |= 1u << L.rank[q];
    int slot = lane_slot(L.rank[q], L.kind[q]);
    if (!used[slot]) ++*searches;
    used[slot] = true;
  }
}

static ex_search *lane_search(searches *Q, const mp_ctx *c, const ex_config *cf,
                              ex_part *const *PM, int k, int64_t C, int m, int kind) {
  bool mf = kind == KIND_MINFIRST;
  int normal = kind < 2 || mf;
  int slot = lane_slot(m, kind);
  if (!Q->init[slot]) {
    ex_search_init(&Q->S[slot], c, cf, &PM[m][k], C);
    Q->init[slot] = true;
  }
  ex_search *X = &Q->S[slot];
  X->minfirst = mf;
  X->normal = normal;
  X->by_offset = mf ? 1 : kind < 4 ? kind % 2 : 0;
  return X;
}

int ex_decide_part(const mp_ctx *c, const ex_config *cf, ex_part *const *PM, int k, int64_t C,
                   uint64_t *nodes_left, int64_t *goff) {
  searches Q = {0};
  lanes L;
  lanes_init(&L, cf);
  int n = PM[L.rank[0]][k].n; /* only the lanes' ranks are built */
  if (n == 0) return 1;
  mp_rng rng;
  mp_rng_seed(&rng, c->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)k);
  int r = -1;
  uint64_t base = L.doubling ? 2 * (uint64_t)n : 1000;
  if (base < 256) base = 256;
  for (uint64_t run = 0;; run++) {
    int cfg = (int)(run % (uint64_t)L.n), m = L.rank[cfg], kind = L.kind[cfg];
    uint64_t round = run / (uint64_t)L.n;
    ex_search *X = lane_search(&Q, c, cf, PM, k, C, m, kind);
    for (int i = 0; i < n; i++)
      X->noise[i] = L.doubling || round % 4 == 0 ? 0 : (int)mp_rng_below(&rng, (uint64_t)(n / 4 + 2));
    uint64_t limit = !cf->restarts ? *nodes_left
                   : L.doubling    ? base << (round < 40 ? round : 40)
                                   : base * luby(round + 1);
    if (limit > *nodes_left) limit = *nodes_left;
    uint64_t before = X->nodes;
    r = ex_search_run(X, limit);
    uint64_t used = X->nodes - before;
    *nodes_left = used >= *nodes_left ? 0 : *nodes_left - used;
    if (cf->trace)
      fprintf(stderr, "exact: part %d n=%d C=%lld rank %d normal %d by_offset %d minfirst %d limit %llu -> %d, %llu nodes, depth %d\n",
              k, n, (long long)C, m, X->normal, X->by_offset, X->minfirst, (unsigned long long)limit, r,
              (unsigned long long)used, X->maxdepth);
    if (r == 1)
      for (int i = 0; i < n; i++) goff[X->P->gid[i]] = X->off[i];
    if (r == 0 && X->minfirst) { /* not a proof */
      r = -1;
      if (cf->minfirst == 2 || !cf->restarts) break;
      continue;
    }
    if (r >= 0 || X->aborted == 2 || *nodes_left == 0 || !cf->restarts) break;
  }
  for (int m = 0; m < 4 * EX_N_RANKS; m++)
    if (Q.init[m]) ex_search_destroy(&Q.S[m]);
  return r >= 0 ? r : -1;
}
