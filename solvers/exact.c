/* exact.c - complete branch-and-bound placement (MiniMalloc's ideas and more).
 *
 * Decision search "does everything fit below capacity C?":
 *  - time is cut into sections (intervals between consecutive lifetime
 *    boundaries); each item spans a range of sections;
 *  - independent time partitions (no lifetime crosses a cut) are solved
 *    apart, and during the search the unplaced items are split again into
 *    independent components wherever no unplaced item crosses a section
 *    boundary (a failure in one component then needs no backtracking into
 *    the others; every component is checked before any is searched);
 *  - items are placed in non-decreasing offset order (ties by rank), each
 *    at its lowest feasible offset (aligned, clear of pinned buffers, above
 *    the floor = highest top of the placed items in every section it
 *    spans).  Every solution has a gravity normal form (no buffer can move
 *    down) that this enumeration reaches, so the search is complete;
 *  - normal form (option normal): an item whose floors lie below the last
 *    placed offset (the waterline) would float there; it waits until
 *    something is placed under it (and must have some unplaced item in one
 *    of its sections to rest on).  The free form places it at the waterline
 *    (also complete, a different tree);
 *  - restart where the time line is cut (as MiniMalloc's dynamic
 *    decomposition does): when a placement leaves no unplaced item across
 *    a boundary inside its span, the items left form independent problems
 *    above the placed ones; after checking them at the current waterline,
 *    each is searched with the waterline back at 0 and with ranks
 *    recomputed from its own unplaced bytes per section (option rerank).
 *    Measured on MiniMalloc's challenging set (capacity 1048576, 10 s),
 *    without the restart H and I time out, and so they do with the restart
 *    but without the re-ranking; with both they take 10k and 8k nodes;
 *  - inference: every unplaced item must fit; in every section, the
 *    lowest offset of its unplaced items plus their bytes must fit in C
 *    (MiniMalloc's cross-section rule); the next offset becomes the
 *    waterline, so it may not exceed C - unplaced bytes of any section.
 *    Option thresholds adds, for every threshold x, x + the bytes of the
 *    section's items whose lowest offset is >= x <= C: on the challenging
 *    set it saves under 4% of the nodes and doubles the time, so it is off
 *    by default;
 *  - dominance: an item b may come next only if l(b) < l(c) + size(c) for
 *    every unplaced c, l(c) its own lowest offset even below the waterline
 *    (else c could drop to l(c) under every later item, contradicting the
 *    normal form); identical items (size, lifetime, alignment) keep their
 *    input order; items at the same offset come in rank order;
 *  - failed subproblems are remembered in a bounded hash table keyed by what
 *    determines the subtree: (component's unplaced set, floors of its live
 *    sections, waterline, last rank, the item set the ranks come from);
 *  - portfolio (default): MiniMalloc-style round robin over three static
 *    ranks (total/width/area, total/area/width, width/area/total; "total"
 *    = the most bytes live in a section the item spans), node limits
 *    doubling from 2n every round, each lane keeping its failure table so
 *    that a rerun resumes.  portfolio 0: every rank x form x value order
 *    with Luby limits and seeded perturbations of the value order.  An
 *    optional incomplete phase (min-first: only items at the lowest
 *    offset) may find solutions; its failures prove nothing.
 *    Only a complete run that fails proves infeasibility.
 * Minimisation: incumbent = the best of several greedy packings (or the
 * previous placer's offsets in a chain); proven bound = max(max-live,
 * largest buffer, pinned tops); rounds of decisions with a node limit per
 * decision (x4 every round), each round trying the bound first and then
 * bisecting upwards past undecided capacities; an infeasible decision
 * raises the bound.  A node budget caps the whole run; the deadline is
 * checked every 256 nodes (every node on big parts).  Results depend on
 * the clock only when the time limit cuts the run. */
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "solver.h"

#define EXACT_OPTIONS(X)                                                                 \
  X(nodes, 5e7, 1, 1e12, "node budget of the whole run (all decision searches)")         \
  X(memo, 1, 0, 1, "remember failed subproblems (1) or not (0)")                         \
  X(memo_log2, 18, 8, 26, "log2 of the failed-subproblem table's slots")                 \
  X(rank, 0, 0, 4, "rank: 0 total/area/width, 1 width/area/total, 2 area, 3 size, 4 total/width/area (portfolio 1: rotates its lanes)")   \
  X(restarts, 1, 0, 1, "portfolio of ranks and value orders with Luby restarts (1)")    \
  X(by_offset, 0, 0, 1, "try candidates lowest offset first (1) or in rank order (0)") \
  X(thresholds, 0, 0, 1, "per-section threshold inference (1) or the plain one (0; same nodes within 4% on the challenging set, half the time)") \
  X(minfirst, 0, 0, 2, "lowest-offset-first phase: 0 off, 1 in the portfolio, 2 only (incomplete)") \
  X(normal, 1, 0, 1, "place only items resting on something (gravity normal form)")   \
  X(portfolio, 1, 0, 1, "restart portfolio: 1 round robin of three ranks, doubling limits; 0 all configurations, Luby limits") \
  X(components, 1, 0, 1, "split the unplaced items into independent components on the fly") \
  X(decompose, 1, 0, 1, "solve independent time partitions apart (1) or together (0)")       \
  X(reset, 1, 0, 1, "restart the offset order in the parts left when a placement cuts the time line") \
  X(twins, 1, 0, 1, "identical items are placed in input order (symmetry breaking)") \
  X(rerank, 1, 0, 1, "recompute the ranks (with the unplaced bytes as totals) where the time line is cut") \
  X(rawdom, 1, 0, 1, "dominance against the unplaced items' own lowest offsets (1) or raised ones (0)")

enum { EXACT_OPTIONS(MP_OPT_ENUM) EXACT_N_OPTS };
static const mp_option exact_options[] = {EXACT_OPTIONS(MP_OPT_ENTRY)};

/* ---- one independent part ---- */
typedef struct part {
  int n;            /* items to search */
  int *gid;         /* local -> global item index */
  int64_t *size, *al;
  int *s0, *s1;     /* section span [s0, s1) */
  int *rank;        /* static order, 0 = first */
  int rank_mode;
  int *twin;        /* previous identical item (lower rank) or -1 */
  int *by_s0;       /* items sorted by first section */
  int *sec_start, *sec_items; /* CSR: items spanning each section */
  int64_t maxlive;  /* largest section total of the (unpinned) items */
  int64_t alignlb;  /* arena bound from alignment (valid without pinned items) */
  int *first;       /* first[s]: index in by_s0 of the first item starting at >= s */
  int ns;           /* sections */
  int np;           /* pinned obstacles intersecting this part */
  int64_t *poff, *psz;
  int64_t *plo, *phi; /* pinned obstacles: every pinned buffer of the problem,
                        with raw times (the half-open test also catches
                        empty lifetimes) */
  int64_t *ilo, *ihi;  /* raw times of the items */
} part;

typedef struct memo_ent {
  uint64_t k1, k2;
} memo_ent;

typedef struct search {
  const part *P;
  const mp_ctx *ctx;
  int64_t C;
  int64_t *floor, *rem, *off;
  int64_t *lb;      /* lowest offsets of the current node (scratch) */
  struct cand *cs;  /* candidate stack: each open node's candidates */
  size_t ncs, cap_cs;
  int64_t *lows;    /* per section scratch */
  uint64_t *zob, *zsec;
  int64_t *save;    /* floors saved along the path */
  int *cross;       /* per boundary s|s+1: unplaced items spanning both */
  int *trail;       /* placed items in order */
  int nt;
  size_t sp;
  uint64_t zset;
  memo_ent *memo;
  uint64_t memo_mask;
  int use_memo;
  uint64_t nodes, budget;
  int aborted;      /* 1 budget, 2 deadline */
  int maxdepth;
  int thresholds;
  int normal;
  int components;
  int reset, rawdom, twins;
  char *wait;
  int minfirst;     /* incomplete phase: only items at the lowest offset */
  int64_t *tbuf;
  int *rank;        /* current rank: static, recomputed where the time line is cut */
  int *noise;       /* value order of this run = rank + noise (0, or seeded on restarts) */
  int *rstack;      /* saved (item, rank) pairs of the re-rankings on the path */
  size_t rsp, rcap;
  double *rkey;
  int *rord;
  uint64_t rctx;    /* hash of the item set the current ranks were computed on */
  int rerank;
  int by_offset;
  int64_t best_fail_bound;
} search;

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/* lowest feasible offset of local item i above `base` */
static int64_t lowest(const search *S, int i, int64_t wl) {
  const part *P = S->P;
  int64_t o = wl;
  for (int s = P->s0[i]; s < P->s1[i]; s++)
    if (S->floor[s] > o) o = S->floor[s];
  o = mp_align_up(o, P->al[i]);
  if (P->np) {
    for (bool moved = true; moved;) {
      moved = false;
      for (int k = 0; k < P->np; k++)
        if (P->plo[k] < P->ihi[i] && P->ilo[i] < P->phi[k] && o < P->poff[k] + P->psz[k] &&
            P->poff[k] < o + P->size[i]) {
          o = mp_align_up(P->poff[k] + P->psz[k], P->al[i]);
          moved = true;
        }
    }
  }
  return o;
}



static void place(search *S, int i, int64_t o) {
  const part *P = S->P;
  int a = P->s0[i], b = P->s1[i];
  int64_t *sv = S->save + S->sp;
  S->sp += (size_t)(b - a);
  for (int s = a; s < b; s++) {
    sv[s - a] = S->floor[s];
    S->floor[s] = o + P->size[i];
    S->rem[s] -= P->size[i];
  }
  for (int s = a; s < b - 1; s++) S->cross[s]--;
  S->off[i] = o;
  S->trail[S->nt++] = i;
}

static void undo_to(search *S, int mark) {
  const part *P = S->P;
  while (S->nt > mark) {
    int i = S->trail[--S->nt];
    int a = P->s0[i], b = P->s1[i];
    S->sp -= (size_t)(b - a);
    int64_t *sv = S->save + S->sp;
    for (int s = a; s < b; s++) {
      S->floor[s] = sv[s - a];
      S->rem[s] += P->size[i];
    }
    for (int s = a; s < b - 1; s++) S->cross[s]++;
    S->off[i] = -1;
  }
}

static int solve_range(search *S, int sa, int sb, int64_t wl, int lastrank, bool cut);
typedef struct cand {
  int i, r; /* item, value-order rank */
  int64_t l;
} cand;
static int cmp_by_offset;
static int cmp_cand(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (cmp_by_offset && x->l != y->l) return x->l < y->l ? -1 : 1;
  return x->r - y->r;
}

/* Lowest offsets (lb, waiting flags) of the unplaced items of sections
 * [sa, sb) at waterline wl, and the inference: 0 when the node is dead.
 * Sets the dominance bound U (a candidate must lie below it), omax (the
 * highest offset the next item may take) and the items' hash. */
static int infer(search *S, int sa, int sb, int64_t wl, int64_t *Up, int64_t *omaxp,
                 uint64_t *zsetp) {
  const part *P = S->P;
  int64_t C = S->C;
  int64_t *lb = S->lb;
  int64_t *lows = S->lows;
  for (int s = sa; s < sb; s++) lows[s] = INT64_MAX;
  int64_t U = INT64_MAX;
  uint64_t zset = 0;
  int i0 = P->first[sa], i1 = P->first[sb];
  for (int q = i0; q < i1; q++) {
    int i = P->by_s0[q];
    if (S->off[i] >= 0) continue;
    /* normal form: an item rests on 0, a pinned buffer or a conflicting
     * item; below the waterline it would float, so it waits (its bytes
     * still count, at the waterline, in the inference) */
    int64_t l = lowest(S, i, 0);
    if (S->rawdom && S->normal && l + P->size[i] < U) U = l + P->size[i];
    S->wait[i] = l < wl;
    if (l < wl) {
      l = lowest(S, i, wl);
      if (S->normal) { /* it needs another unplaced item under it */
        bool support = false;
        for (int t = P->s0[i]; t < P->s1[i] && !support; t++) support = S->rem[t] > P->size[i];
        if (!support) return 0;
      }
    }
    if (l + P->size[i] > C) return 0;
    lb[i] = l;
    zset ^= S->zob[i];
    if (l + P->size[i] < U) U = l + P->size[i];
    for (int s = P->s0[i]; s < P->s1[i]; s++)
      if (l < lows[s]) lows[s] = l;
  }
  /* omax: the next offset becomes the waterline, under which no section
   * with unplaced bytes may sink: o + rem[s] <= C for every such s. */
  int64_t omax = INT64_MAX;
  for (int s = sa; s < sb; s++)
    if (S->rem[s] > 0) {
      if (lows[s] + S->rem[s] > C) return 0;
      if (C - S->rem[s] < omax) omax = C - S->rem[s];
    }
  /* threshold inference: in every section, the unplaced items whose
   * lowest offset is >= x all lie above x: x + their bytes <= C. */
  if (S->thresholds)
    for (int s = sa; s < sb; s++) {
      if (S->rem[s] <= 0) continue;
      int m = 0;
      int64_t *buf = S->tbuf;
      for (int q = P->sec_start[s]; q < P->sec_start[s + 1]; q++) {
        int i = P->sec_items[q];
        if (S->off[i] >= 0) continue;
        /* insertion by l descending: (l, size) pairs */
        int64_t l = lb[i], z = P->size[i];
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
        if (buf[2 * k] + acc > C) return 0;
      }
    }
  *Up = U;
  *omaxp = omax;
  *zsetp = zset;
  return 1;
}

/* One connected component: sections [sa, sb), every unplaced item whose
 * span starts there lies inside.  1 found, 0 infeasible, -1 aborted. */
static int branch(search *S, int sa, int sb, int64_t wl, int lastrank) {
  const part *P = S->P;
  int n = P->n, depth = S->nt;
  if (depth > S->maxdepth) S->maxdepth = depth;
  int64_t *lb = S->lb;
  int i0 = P->first[sa], i1 = P->first[sb];
  int64_t U, omax;
  uint64_t zset;
  if (!infer(S, sa, sb, wl, &U, &omax, &zset)) return 0;
  uint64_t k1 = 0, k2 = 0;
  if (S->use_memo) {
    k1 = zset ^ mix64((uint64_t)wl * 0x9e3779b97f4a7c15ULL + (uint64_t)lastrank) ^ S->rctx;
    k2 = mix64(k1 ^ 0x5bd1e995u ^ ((uint64_t)sa << 32) ^ (uint64_t)sb);
    for (int s = sa; s < sb; s++)
      if (S->rem[s] > 0) {
        /* normal form: what waits depends on the real floors */
        int64_t e = S->normal || S->floor[s] > wl ? S->floor[s] : wl;
        uint64_t h = mix64(S->zsec[s] + (uint64_t)e);
        k1 += h;
        k2 ^= mix64(h + (uint64_t)s);
      }
    memo_ent *m = &S->memo[k1 & S->memo_mask];
    if (m->k1 == k1 && m->k2 == k2) return 0;
  }
  size_t base = S->ncs;
  int64_t L = INT64_MAX;
  if (S->minfirst)
    for (int q = i0; q < i1; q++)
      if (S->off[P->by_s0[q]] < 0 && lb[P->by_s0[q]] < L) L = lb[P->by_s0[q]];
  for (int q = i0; q < i1; q++) {
    int i = P->by_s0[q];
    if (S->off[i] >= 0 || lb[i] >= U || lb[i] > omax) continue;
    if (S->wait[i] && S->normal) continue;
    if (S->minfirst && lb[i] != L) continue;
    if (lb[i] == wl && S->rank[i] < lastrank) continue;
    if (S->twins && P->twin[i] >= 0 && S->off[P->twin[i]] < 0) continue;
    if (S->ncs == S->cap_cs) {
      S->cap_cs = S->cap_cs ? 2 * S->cap_cs : 1024;
      S->cs = mp_xrealloc(S->cs, sizeof(cand) * S->cap_cs);
    }
    S->cs[S->ncs++] = (cand){i, S->rank[i] + S->noise[i], lb[i]};
  }
  size_t nc = S->ncs - base;
  (void)n;
  cmp_by_offset = S->by_offset;
  qsort(S->cs + base, nc, sizeof(cand), cmp_cand);
  for (size_t k = 0; k < nc; k++) {
    cand cd = S->cs[base + k];
    place(S, cd.i, cd.l);
    bool cut = false;
    for (int t = P->s0[cd.i]; t < P->s1[cd.i] - 1 && !cut; t++) cut = S->cross[t] == 0;
    int r = solve_range(S, sa, sb, cd.l, S->rank[cd.i], cut);
    if (r == 1) return 1;
    undo_to(S, depth);
    if (r < 0) return -1;
  }
  S->ncs = base;
  if (S->use_memo) {
    memo_ent *m = &S->memo[k1 & S->memo_mask];
    m->k1 = k1;
    m->k2 = k2;
  }
  return 0;
}

static int cmp_dkey(const void *a, const void *b);
static const double *sort_dkey;
static const int *sort_gid;
static void rank_key(int mode, double t, double w, double size, int i, double *k3);
/* New ranks for the unplaced items of sections [sa, sb), with the section
 * totals of their unplaced bytes (the old ones go on a stack). */
static void rerank(search *S, int sa, int sb) {
  const part *P = S->P;
  int m = 0;
  uint64_t h = mix64((uint64_t)sa * 0x9e3779b97f4a7c15ULL + (uint64_t)sb);
  for (int q = P->first[sa]; q < P->first[sb]; q++) {
    int i = P->by_s0[q];
    if (S->off[i] >= 0) continue;
    int64_t t = 0;
    for (int s = P->s0[i]; s < P->s1[i]; s++)
      if (S->rem[s] > t) t = S->rem[s];
    rank_key(P->rank_mode, (double)t, (double)(P->ihi[i] - P->ilo[i]), (double)P->size[i], i,
             S->rkey + 3 * i);
    S->rord[m++] = i;
    h ^= S->zob[i];
  }
  sort_dkey = S->rkey;
  sort_gid = P->gid;
  qsort(S->rord, (size_t)m, sizeof(int), cmp_dkey);
  if (S->rsp + 2 * (size_t)m > S->rcap) {
    S->rcap = 2 * (S->rsp + 2 * (size_t)m);
    S->rstack = mp_xrealloc(S->rstack, sizeof(int) * S->rcap);
  }
  for (int k = 0; k < m; k++) {
    int i = S->rord[k];
    S->rstack[S->rsp++] = i;
    S->rstack[S->rsp++] = S->rank[i];
    S->rank[i] = k;
  }
  S->rctx = mix64(h);
}

/* Sections [sa, sb) hold whole components.  Split them where no unplaced
 * item crosses a boundary and solve each apart: a failure in one needs no
 * backtracking into the others. */
static int solve_range(search *S, int sa, int sb, int64_t wl, int lastrank, bool cut) {
  if ((++S->nodes & 255) == 0 && S->nodes >= S->budget) {
    S->aborted = 1;
    return -1;
  }
  /* the clock every 256 nodes, every node on big parts (slow nodes) */
  if (((S->nodes & 255) == 0 || S->P->n > 200) && mp_time_up(S->ctx)) {
    S->aborted = 2;
    return -1;
  }
  int mark = S->nt;
  int s = sa;
  int ncomp = 0, ca = -1, cb = -1;
  /* count the components; when there are several, or the offset order is
   * about to restart, check every one at the current waterline first (a
   * dead one must not wait until the others are solved) */
  bool precheck = (cut && S->reset) || S->components;
  while (s < sb) {
    if (S->rem[s] == 0) {
      s++;
      continue;
    }
    int e = s;
    while (e + 1 < sb && S->cross[e] > 0) e++;
    if (ncomp == 0) {
      ca = s;
      cb = e + 1;
    }
    ncomp++;
    s = e + 1;
  }
  if (ncomp == 0) return 1;
  if (precheck && (ncomp > 1 || (cut && S->reset))) {
    int64_t U, omax;
    uint64_t z;
    for (s = sa; s < sb;) {
      if (S->rem[s] == 0) {
        s++;
        continue;
      }
      int e = s;
      while (e + 1 < sb && S->cross[e] > 0) e++;
      if (!infer(S, s, e + 1, wl, &U, &omax, &z)) return 0;
      s = e + 1;
    }
  }
  /* a placement that leaves no unplaced item across some boundary inside
   * its span makes every part left an independent problem above the placed
   * items: each may start its own offset order (any placement of it
   * completes the prefix, so a failure there is a real one).  The check
   * above used the waterline: completions in offset order are all the
   * search needs, and none exists if it fails. */
  size_t rmark = S->rsp;
  uint64_t rctx = S->rctx;
  if (cut && S->reset) {
    wl = 0;
    lastrank = -1;
    if (S->rerank) rerank(S, sa, sb);
  }
  int r = 1;
  if (ncomp == 1) {
    r = branch(S, ca, cb, wl, lastrank);
  } else if (!S->components) { /* one search over the whole range */
    while (S->rem[sa] == 0) sa++;
    while (S->rem[sb - 1] == 0) sb--;
    r = branch(S, sa, sb, wl, lastrank);
  } else {
    for (s = sa; s < sb && r == 1;) {
      if (S->rem[s] == 0) {
        s++;
        continue;
      }
      int e = s;
      while (e + 1 < sb && S->cross[e] > 0) e++;
      r = branch(S, s, e + 1, wl, lastrank);
      if (r == 0) undo_to(S, mark);
      s = e + 1;
    }
  }
  while (S->rsp > rmark) {
    S->rsp -= 2;
    S->rank[S->rstack[S->rsp]] = S->rstack[S->rsp + 1];
  }
  S->rctx = rctx;
  return r;
}


/* ---- building parts ---- */
/* The lexicographic rank keys of an item (largest first): "total" t = the
 * most bytes live in a section the item spans, width w = its lifetime,
 * area = w x size. */
static void rank_key(int mode, double t, double w, double size, int i, double *k3) {
  double a = w * size;
  switch (mode) {
  case 0: k3[0] = t; k3[1] = a; k3[2] = w; break;
  case 1: k3[0] = w; k3[1] = a; k3[2] = t; break;
  case 2: k3[0] = a; k3[1] = t; k3[2] = w; break;
  case 3: k3[0] = size; k3[1] = w; k3[2] = t; break;
  case 4: k3[0] = t; k3[1] = w; k3[2] = a; break;
  default: k3[0] = -i; k3[1] = 0; k3[2] = 0; break;
  }
}

static const mp_problem *sort_prob;
static int cmp_lo(const void *a, const void *b) {
  const mp_item *x = &sort_prob->items[*(const int *)a], *y = &sort_prob->items[*(const int *)b];
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return *(const int *)a - *(const int *)b;
}
static int64_t *sort_key;
static int cmp_key(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  if (sort_key[x] != sort_key[y]) return sort_key[x] > sort_key[y] ? -1 : 1;
  return x - y;
}
static int cmp_dkey(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  for (int k = 0; k < 3; k++) {
    double u = sort_dkey[3 * x + k], v = sort_dkey[3 * y + k];
    if (u != v) return u > v ? -1 : 1;
  }
  return sort_gid[x] - sort_gid[y]; /* ties: input order */
}
static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static bool active(const mp_item *it) { return it->size > 0 && it->hi > it->lo; }

static void part_free(part *P) {
  free(P->gid);
  free(P->size);
  free(P->al);
  free(P->s0);
  free(P->s1);
  free(P->rank);
  free(P->twin);
  free(P->by_s0);
  free(P->sec_start);
  free(P->sec_items);
  free(P->first);
  free(P->poff);
  free(P->psz);
  free(P->plo);
  free(P->phi);
  free(P->ilo);
  free(P->ihi);
}

/* Build a part from the global items members[0..m) (pinned ones become
 * obstacles).  rank_mode: see options. */
static void part_build(const mp_problem *p, const int *members, int m, int rank_mode, part *P) {
  memset(P, 0, sizeof *P);
  int64_t *tb = mp_xmalloc(sizeof(int64_t) * (size_t)(2 * m + 1));
  int nt = 0;
  for (int k = 0; k < m; k++) {
    tb[nt++] = p->items[members[k]].lo;
    tb[nt++] = p->items[members[k]].hi;
  }
  qsort(tb, (size_t)nt, sizeof *tb, cmp_i64);
  int u = 0;
  for (int k = 0; k < nt; k++)
    if (u == 0 || tb[k] != tb[u - 1]) tb[u++] = tb[k];
  P->ns = u > 1 ? u - 1 : 1;
  int nf = 0, npin = 0;
  for (int k = 0; k < m; k++)
    if (p->items[members[k]].fixed < 0) nf++;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].size > 0) npin++;
  P->n = nf;
  P->np = npin;
  size_t sz = (size_t)(nf ? nf : 1), pz = (size_t)(npin ? npin : 1);
  P->gid = mp_xmalloc(sizeof(int) * sz);
  P->size = mp_xmalloc(sizeof(int64_t) * sz);
  P->al = mp_xmalloc(sizeof(int64_t) * sz);
  P->s0 = mp_xmalloc(sizeof(int) * sz);
  P->s1 = mp_xmalloc(sizeof(int) * sz);
  P->rank = mp_xmalloc(sizeof(int) * sz);
  P->twin = mp_xmalloc(sizeof(int) * sz);
  P->poff = mp_xmalloc(sizeof(int64_t) * pz);
  P->psz = mp_xmalloc(sizeof(int64_t) * pz);
  P->plo = mp_xmalloc(sizeof(int64_t) * pz);
  P->phi = mp_xmalloc(sizeof(int64_t) * pz);
  P->ilo = mp_xmalloc(sizeof(int64_t) * sz);
  P->ihi = mp_xmalloc(sizeof(int64_t) * sz);
  for (int i = 0, b = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].size > 0) {
      P->poff[b] = p->items[i].fixed;
      P->psz[b] = p->items[i].size;
      P->plo[b] = p->items[i].lo;
      P->phi[b++] = p->items[i].hi;
    }
  int a = 0;
  for (int k = 0; k < m; k++) {
    const mp_item *it = &p->items[members[k]];
    int s0 = (int)((int64_t *)bsearch(&it->lo, tb, (size_t)u, sizeof *tb, cmp_i64) - tb);
    int s1 = (int)((int64_t *)bsearch(&it->hi, tb, (size_t)u, sizeof *tb, cmp_i64) - tb);
    if (it->fixed < 0) {
      P->ilo[a] = it->lo;
      P->ihi[a] = it->hi;
      P->gid[a] = members[k];
      P->size[a] = it->size;
      P->al[a] = it->align < 1 ? 1 : it->align;
      P->s0[a] = s0;
      P->s1[a++] = s1;
    }
  }
  free(tb);

  /* items by first section */
  P->by_s0 = mp_xmalloc(sizeof(int) * sz);
  P->first = mp_xcalloc((size_t)P->ns + 2, sizeof(int));
  for (int i = 0; i < nf; i++) P->first[P->s0[i] + 1]++;
  for (int t = 0; t <= P->ns; t++) P->first[t + 1] += P->first[t];
  {
    int *fill = mp_xmalloc(sizeof(int) * ((size_t)P->ns + 1));
    memcpy(fill, P->first, sizeof(int) * ((size_t)P->ns + 1));
    for (int i = 0; i < nf; i++) P->by_s0[fill[P->s0[i]]++] = i;
    free(fill);
  }
  P->sec_start = mp_xcalloc((size_t)P->ns + 1, sizeof(int));
  for (int i = 0; i < nf; i++)
    for (int t = P->s0[i]; t < P->s1[i]; t++) P->sec_start[t + 1]++;
  for (int t = 0; t < P->ns; t++) P->sec_start[t + 1] += P->sec_start[t];
  P->sec_items = mp_xmalloc(sizeof(int) * ((size_t)P->sec_start[P->ns] + 1));
  {
    int *fill = mp_xmalloc(sizeof(int) * ((size_t)P->ns + 1));
    memcpy(fill, P->sec_start, sizeof(int) * ((size_t)P->ns + 1));
    for (int i = 0; i < nf; i++)
      for (int t = P->s0[i]; t < P->s1[i]; t++) P->sec_items[fill[t]++] = i;
    free(fill);
  }
  /* static rank: lexicographic keys, largest first.  "total" = the most
   * bytes live in any section the item spans (items in the busiest
   * sections first), area = size x lifetime, width = lifetime. */
  int *ord = mp_xmalloc(sizeof(int) * sz);
  double *key = mp_xmalloc(sizeof(double) * 3 * sz);
  double *tot = mp_xcalloc((size_t)P->ns, sizeof(double));
  for (int i = 0; i < nf; i++)
    for (int s = P->s0[i]; s < P->s1[i]; s++) tot[s] += (double)P->size[i];
  P->rank_mode = rank_mode;
  for (int i = 0; i < nf; i++) {
    const mp_item *it = &p->items[P->gid[i]];
    double t = 0;
    for (int s = P->s0[i]; s < P->s1[i]; s++)
      if (tot[s] > t) t = tot[s];
    ord[i] = i;
    rank_key(rank_mode, t, (double)(it->hi - it->lo), (double)it->size, i, key + 3 * i);
  }
  P->maxlive = 0;
  for (int t = 0; t < P->ns; t++)
    if ((int64_t)tot[t] > P->maxlive) P->maxlive = (int64_t)tot[t];
  free(tot);
  /* alignment bound: in a section with live bytes L, the topmost item t
   * lies above all the others, so at an offset >= L - size(t) that is a
   * multiple of its alignment: arena >= min over t of
   * align_up(L - size(t), align(t)) + size(t) */
  {
    int64_t *L = mp_xcalloc((size_t)P->ns, sizeof(int64_t));
    for (int i = 0; i < nf; i++)
      for (int t = P->s0[i]; t < P->s1[i]; t++) L[t] += P->size[i];
    P->alignlb = 0;
    for (int t = 0; t < P->ns; t++) {
      int64_t lo = INT64_MAX;
      for (int q = P->sec_start[t]; q < P->sec_start[t + 1]; q++) {
        int i = P->sec_items[q];
        int64_t v = mp_align_up(L[t] - P->size[i], P->al[i]) + P->size[i];
        if (v < lo) lo = v;
      }
      if (lo != INT64_MAX && lo > P->alignlb) P->alignlb = lo;
    }
    free(L);
  }
  sort_dkey = key;
  sort_gid = P->gid;
  qsort(ord, (size_t)nf, sizeof *ord, cmp_dkey);
  for (int r = 0; r < nf; r++) P->rank[ord[r]] = r;
  /* twins: identical items, chained in rank order */
  for (int r = 0; r < nf; r++) {
    int i = ord[r];
    P->twin[i] = -1;
    const mp_item *x = &p->items[P->gid[i]];
    for (int q = r - 1; q >= 0; q--) {
      const mp_item *y = &p->items[P->gid[ord[q]]];
      if (x->size == y->size && x->lo == y->lo && x->hi == y->hi && P->al[i] == P->al[ord[q]]) {
        P->twin[i] = ord[q];
        break;
      }
    }
  }
  free(ord);
  free(key);
}

/* Partition the active items into independent time parts. Returns count;
 * members and starts (count + 1 entries) describe them. */
static int partition(const mp_problem *p, bool split, int *members, int *starts) {
  int m = 0;
  for (int i = 0; i < p->n; i++)
    if (active(&p->items[i])) members[m++] = i;
  sort_prob = p;
  qsort(members, (size_t)m, sizeof *members, cmp_lo);
  int np = 0;
  int64_t reach = INT64_MIN;
  for (int k = 0; k < m; k++) {
    const mp_item *it = &p->items[members[k]];
    if (k == 0 || (split && it->lo >= reach)) starts[np++] = k;
    if (it->hi > reach) reach = it->hi;
  }
  starts[np] = m;
  return np;
}

static void search_init(search *S, const mp_ctx *c, const part *P, int64_t C, int use_memo,
                        int memo_log2) {
  memset(S, 0, sizeof *S);
  S->P = P;
  S->ctx = c;
  S->C = C;
  int n = P->n, ns = P->ns;
  size_t nz = (size_t)(n ? n : 1);
  S->floor = mp_xcalloc((size_t)ns, sizeof(int64_t));
  S->rem = mp_xcalloc((size_t)ns, sizeof(int64_t));
  S->lows = mp_xmalloc(sizeof(int64_t) * (size_t)ns);
  S->off = mp_xmalloc(sizeof(int64_t) * nz);
  S->lb = mp_xmalloc(sizeof(int64_t) * nz);
  S->zob = mp_xmalloc(sizeof(uint64_t) * nz);
  S->zsec = mp_xmalloc(sizeof(uint64_t) * (size_t)ns);
  S->rank = mp_xmalloc(sizeof(int) * nz);
  S->noise = mp_xcalloc(nz, sizeof(int));
  S->rkey = mp_xmalloc(sizeof(double) * 3 * nz);
  S->rord = mp_xmalloc(sizeof(int) * nz);
  S->rerank = c->opt[OPT_rerank] > 0;
  S->tbuf = mp_xmalloc(sizeof(int64_t) * 2 * nz);
  S->wait = mp_xcalloc(nz, 1);
  S->normal = c->opt[OPT_normal] > 0;
  S->components = c->opt[OPT_components] > 0;
  S->thresholds = c->opt[OPT_thresholds] > 0;
  S->reset = c->opt[OPT_reset] > 0;
  S->rawdom = c->opt[OPT_rawdom] > 0;
  S->twins = c->opt[OPT_twins] > 0;
  S->trail = mp_xmalloc(sizeof(int) * nz);
  S->cross = mp_xcalloc((size_t)ns, sizeof(int));
  for (int i = 0; i < n; i++) S->zob[i] = mix64((uint64_t)i * 0x9e3779b97f4a7c15ULL + 17);
  size_t span = 0;
  for (int i = 0; i < n; i++) span += (size_t)(P->s1[i] - P->s0[i]);
  S->save = mp_xmalloc(sizeof(int64_t) * (span + 1));
  for (int s = 0; s < ns; s++) S->zsec[s] = mix64((uint64_t)s * 0xda942042e4dd58b5ULL + 3);
  S->use_memo = use_memo;
  if (use_memo) {
    S->memo_mask = (1ULL << memo_log2) - 1;
    S->memo = mp_xcalloc((size_t)1 << memo_log2, sizeof(memo_ent));
  }
}

static void search_free(search *S) {
  free(S->floor);
  free(S->rem);
  free(S->lows);
  free(S->off);
  free(S->lb);
  free(S->cs);
  free(S->zob);
  free(S->zsec);
  free(S->memo);
  free(S->save);
  free(S->rank);
  free(S->noise);
  free(S->rkey);
  free(S->rord);
  free(S->rstack);
  free(S->tbuf);
  free(S->wait);
  free(S->trail);
  free(S->cross);
}

/* One run from the root with a node limit. */
static int search_run(search *S, uint64_t limit) {
  const part *P = S->P;
  for (int i = 0; i < P->n; i++) S->off[i] = -1;
  memset(S->rem, 0, sizeof(int64_t) * (size_t)P->ns);
  memset(S->floor, 0, sizeof(int64_t) * (size_t)P->ns);
  for (int i = 0; i < P->n; i++)
    for (int s = P->s0[i]; s < P->s1[i]; s++) S->rem[s] += P->size[i];
  memset(S->cross, 0, sizeof(int) * (size_t)P->ns);
  for (int i = 0; i < P->n; i++)
    for (int s = P->s0[i]; s < P->s1[i] - 1; s++) S->cross[s]++;
  S->nt = 0;
  S->sp = 0;
  memcpy(S->rank, P->rank, sizeof(int) * (size_t)P->n);
  S->rsp = 0;
  S->rctx = 0;
  S->ncs = 0;
  S->aborted = 0;
  S->budget = S->nodes + limit;
  return solve_range(S, 0, P->ns, 0, -1, false);
}

static uint64_t luby(uint64_t i) { /* 1 1 2 1 1 2 4 1 1 2 ... (i >= 1) */
  for (;;) {
    uint64_t k = 1;
    while ((1ULL << k) - 1 < i) k++;
    if (i == (1ULL << k) - 1) return 1ULL << (k - 1);
    i -= (1ULL << (k - 1)) - 1;
  }
}

#define N_RANKS 5
/* Decide one part at capacity C.  portfolio 1 (default): MiniMalloc-style
 * round robin over three static ranks (total/width/area, total/area/width,
 * width/area/total), normal form, lowest offset first, with node limits
 * doubling every round (from 2n); each lane keeps its table of failed
 * subproblems, so a longer rerun resumes rather than repeats.  Measured on
 * the challenging set, total/width/area alone solves A, D-G, I-K within
 * 60k nodes and total/area/width B, C and H within 36k.  portfolio 0: every
 * (rank, form, value order) configuration in turn with Luby node limits
 * and seeded perturbations of the value order.
 * 1 found (offsets into goff), 0 proven infeasible, -1 out of budget/time. */
static int decide_part(const mp_ctx *c, part *const *PM, int k, int64_t C, uint64_t *nodes_left,
                       int memo_log2, int use_memo, int restarts, int first_rank, int minfirst,
                       int portfolio, int64_t *goff) {
  if (PM[0][k].n == 0) return 1;
  /* one search (own memo) per rank, form and phase: failures of a
   * min-first search prove nothing */
  search S[4 * N_RANKS];
  bool init[4 * N_RANKS] = {false};
  mp_rng rng;
  mp_rng_seed(&rng, c->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)k);
  /* lanes (rank, kind): kinds 0..3 waterline {normal, free} x value order
   * {rank, offset}, 4 min-first (incomplete) */
  int cr[64], ck[64], ncfg = 0;
  bool doubling = false;
  if (minfirst == 2) {
    cr[ncfg] = first_rank;
    ck[ncfg++] = 4;
  } else if (!restarts) {
    cr[ncfg] = first_rank;
    ck[ncfg++] = (c->opt[OPT_normal] > 0 ? 0 : 2) + (cmp_by_offset ? 1 : 0);
  } else if (portfolio == 1) {
    static const int lr[] = {4, 0, 1};
    for (int q = 0; q < 3; q++) {
      cr[ncfg] = lr[(q + first_rank) % 3];
      ck[ncfg++] = 1;
    }
    if (minfirst == 1) {
      cr[ncfg] = 4;
      ck[ncfg++] = 4;
    }
    doubling = true;
  } else {
    for (int m = 0; m < N_RANKS; m++)
      for (int q = 0; q < (minfirst == 1 ? 5 : 4); q++) {
        cr[ncfg] = (first_rank + m) % N_RANKS;
        ck[ncfg++] = q;
      }
  }
  int r = -1;
  uint64_t base = doubling ? 2 * (uint64_t)PM[0][k].n : 1000;
  if (base < 256) base = 256;
  for (uint64_t run = 0;; run++) {
    int cfg = (int)(run % (uint64_t)ncfg);
    int m = cr[cfg], kind = ck[cfg];
    uint64_t round = run / (uint64_t)ncfg;
    bool mf = kind == 4;
    int normal = kind < 2 || kind == 4;
    const part *P = &PM[m][k];
    int slot = m * 4 + (mf ? 2 : 0) + normal;
    if (!init[slot]) {
      search_init(&S[slot], c, P, C, use_memo, memo_log2);
      init[slot] = true;
    }
    search *X = &S[slot];
    X->minfirst = mf;
    X->normal = normal;
    X->by_offset = mf ? 1 : kind < 4 ? kind % 2 : 0;
    for (int i = 0; i < P->n; i++)
      X->noise[i] = doubling || round % 4 == 0 ? 0
                                                : (int)mp_rng_below(&rng, (uint64_t)(P->n / 4 + 2));
    uint64_t limit = !restarts ? *nodes_left
                   : doubling  ? base << (round < 40 ? round : 40)
                               : base * luby(round + 1);
    if (limit > *nodes_left) limit = *nodes_left;
    uint64_t before = X->nodes;
    r = search_run(X, limit);
    uint64_t used = X->nodes - before;
    *nodes_left = used >= *nodes_left ? 0 : *nodes_left - used;
    if (getenv("MP_EXACT_DEBUG"))
      fprintf(stderr, "exact: part %d n=%d C=%lld rank %d normal %d by_offset %d minfirst %d limit %llu -> %d, %llu nodes, depth %d\n",
              k, P->n, (long long)C, m, X->normal, X->by_offset, mf, (unsigned long long)limit, r,
              (unsigned long long)used, X->maxdepth);
    if (r == 1)
      for (int i = 0; i < P->n; i++) goff[P->gid[i]] = X->off[i];
    if (r == 0 && mf) { /* not a proof */
      r = -1;
      if (minfirst == 2 || !restarts) break;
      continue;
    }
    if (r >= 0 || X->aborted == 2 || *nodes_left == 0 || !restarts) break;
  }
  for (int m = 0; m < 4 * N_RANKS; m++)
    if (init[m]) search_free(&S[m]);
  return r >= 0 ? r : -1;
}

/* Greedy incumbent: best of several sequences packed best-fit and first-fit. */
static int64_t heuristic(const mp_ctx *c, const mp_problem *p, int64_t *best) {
  int n = p->n;
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  int64_t *key = mp_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  int64_t bestA = -1;
  for (int mode = 0; mode < 4; mode++) {
    for (int i = 0; i < n; i++) {
      const mp_item *it = &p->items[i];
      seq[i] = i;
      int64_t len = it->hi - it->lo;
      key[i] = mode == 0 ? it->size
             : mode == 1 ? (int64_t)((double)len * (double)it->size / 1024.0)
             : mode == 2 ? len * 4096 + (it->size > 4095 ? 4095 : it->size)
                         : -it->lo;
    }
    sort_key = key;
    qsort(seq, (size_t)n, sizeof *seq, cmp_key);
    for (int fit = 0; fit < 2; fit++) {
      if (bestA >= 0 && mp_time_up(c)) break; /* one packing at least */
      int64_t a = mp_pack(p, seq, n, fit ? MP_BEST_FIT : MP_FIRST_FIT, off);
      for (int i = 0; i < n; i++)
        if (off[i] < 0) off[i] = 0;
      if (bestA < 0 || a < bestA) {
        bestA = a;
        memcpy(best, off, sizeof(int64_t) * (size_t)n);
      }
    }
  }
  free(seq);
  free(off);
  free(key);
  return bestA;
}

static int exact_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  int *members = mp_xmalloc(sizeof(int) * nz);
  int *starts = mp_xmalloc(sizeof(int) * (nz + 1));
  int rank_mode = (int)c->opt[OPT_rank];
  cmp_by_offset = c->opt[OPT_by_offset] > 0;
  int np = partition(p, c->opt[OPT_decompose] > 0, members, starts);
  /* offsets of inactive items: pinned or 0 */
  int64_t *cur = mp_xmalloc(sizeof(int64_t) * nz);
  for (int i = 0; i < n; i++) cur[i] = p->items[i].fixed >= 0 ? p->items[i].fixed : 0;
  int64_t *plb = mp_xcalloc((size_t)(np ? np : 1), sizeof(int64_t));
  int64_t live = mp_live_peak(p), pin_top = 0;
  for (int i = 0; i < n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].fixed + p->items[i].size > pin_top)
      pin_top = p->items[i].fixed + p->items[i].size;
  int64_t bound = live > pin_top ? live : pin_top;
  for (int i = 0; i < n; i++) /* every buffer counts in the arena, live or not */
    if (p->items[i].size > bound) bound = p->items[i].size;
  part *PM[N_RANKS];
  for (int m = 0; m < N_RANKS; m++) {
    PM[m] = mp_xcalloc((size_t)(np ? np : 1), sizeof(part));
    for (int k = 0; k < np; k++)
      part_build(p, members + starts[k], starts[k + 1] - starts[k], m, &PM[m][k]);
  }
  if (pin_top == 0) /* no pinned buffer: the alignment bound of every part */
    for (int k = 0; k < np; k++)
      if (PM[0][k].alignlb > bound) bound = PM[0][k].alignlb;
  int restarts = c->opt[OPT_restarts] > 0;
  int minfirst = (int)c->opt[OPT_minfirst];
  int portfolio = (int)c->opt[OPT_portfolio];
  uint64_t nodes_left = (uint64_t)c->opt[OPT_nodes];
  int use_memo = c->opt[OPT_memo] > 0, ml2 = (int)c->opt[OPT_memo_log2];

  /* incumbent */
  int64_t *best = mp_xmalloc(sizeof(int64_t) * nz);
  int64_t bestA = heuristic(c, p, best);
  if (c->start_offsets && mp_verify_offsets(p, c->start_offsets, NULL) == 0) {
    int64_t a = mp_arena(p, c->start_offsets);
    if (a < bestA) {
      bestA = a;
      memcpy(best, c->start_offsets, sizeof(int64_t) * nz);
    }
  }
  bool aborted = false;
  int64_t *trial = mp_xmalloc(sizeof(int64_t) * nz);
  /* decide all parts at C: 1 fits (trial filled), 0 infeasible, -1 aborted
   * (node limit dec_limit for this decision, or the budget, or the clock) */
  uint64_t dec_limit = UINT64_MAX;
#define DECIDE(CAP, RES)                                                                 \
  do {                                                                                   \
    memcpy(trial, cur, sizeof(int64_t) * nz);                                            \
    RES = 1;                                                                             \
    uint64_t dl_ = dec_limit < nodes_left ? dec_limit : nodes_left, d0_ = dl_;           \
    for (int k = 0; k < np && RES == 1; k++) {                                           \
      int r_ = decide_part(c, PM, k, CAP, &dl_, ml2, use_memo, restarts, rank_mode,      \
                           minfirst, portfolio, trial);                                  \
      if (r_ != 1) RES = r_;                                                             \
    }                                                                                    \
    nodes_left -= d0_ - dl_;                                                             \
    if (RES == 1) mp_pack_degenerate(p, trial);                                            \
  } while (0)
  if (c->capacity > 0) {
    int64_t C = c->capacity;
    if (bestA <= C) {
      memcpy(c->offsets, best, sizeof(int64_t) * nz);
      c->status = bestA <= bound ? MP_OPTIMAL : MP_FEASIBLE;
    } else if (bound > C) {
      c->status = MP_INFEASIBLE;
      snprintf(c->msg, sizeof c->msg, "lower bound %lld exceeds the capacity %lld",
               (long long)bound, (long long)C);
      memcpy(c->offsets, best, sizeof(int64_t) * nz);
    } else {
      int res;
      DECIDE(C, res);
      if (res == 1) {
        memcpy(c->offsets, trial, sizeof(int64_t) * nz);
        c->status = mp_arena(p, trial) <= bound ? MP_OPTIMAL : MP_FEASIBLE;
      } else if (res == 0) {
        c->status = MP_INFEASIBLE;
        bound = C + 1;
        snprintf(c->msg, sizeof c->msg, "proved: no placement fits in %lld bytes", (long long)C);
        memcpy(c->offsets, best, sizeof(int64_t) * nz);
      } else {
        memcpy(c->offsets, best, sizeof(int64_t) * nz);
        c->status = MP_TIMEOUT;
        snprintf(c->msg, sizeof c->msg, "%s ran out before deciding capacity %lld (best arena %lld)",
                 mp_time_up(c) ? "time limit" : "node budget", (long long)C, (long long)bestA);
      }
    }
  } else {
    /* minimise: lo = proven bound, bestA = incumbent.  Rounds of
     * decisions with a node limit per decision (x4 every round): each
     * round tries the bound first, then bisects [a, bestA) where a rises
     * past every capacity left undecided at this limit (an easier one may
     * still improve the incumbent), so one hard capacity near the bound
     * cannot eat the whole budget. */
    int64_t lo = bound;
    uint64_t L = 50000;
    while (lo < bestA && !aborted) {
      dec_limit = L;
      int64_t a = lo, mid = lo;
      bool undecided = false;
      while (lo < bestA) {
        int res;
        DECIDE(mid, res);
        if (res == 1) {
          int64_t ar = mp_arena(p, trial);
          if (ar < bestA) {
            bestA = ar;
            memcpy(best, trial, sizeof(int64_t) * nz);
          } else { /* buffers with empty lifetimes packed above mid */
            a = mid + 1;
          }
        } else if (res == 0) {
          lo = mid + 1;
          if (a < lo) a = lo;
        } else {
          if (nodes_left == 0 || mp_time_up(c)) {
            aborted = true;
            break;
          }
          a = mid + 1;
          undecided = true;
        }
        if (a >= bestA) break;
        mid = a + (bestA - 1 - a) / 2;
      }
      if (!undecided) break; /* a larger limit would decide nothing new */
      L = L > UINT64_MAX / 4 ? UINT64_MAX : 4 * L;
    }
    memcpy(c->offsets, best, sizeof(int64_t) * nz);
    bound = lo;
    if (bestA <= bound)
      c->status = MP_OPTIMAL;
    else
      c->status = mp_time_up(c) ? MP_TIMEOUT : MP_FEASIBLE;
    if (aborted)
      snprintf(c->msg, sizeof c->msg, "%s ran out: arena %lld, proven bound %lld",
               mp_time_up(c) ? "time limit" : "node budget", (long long)bestA, (long long)bound);
  }
#undef DECIDE
  c->bound = bound;
  for (int m = 0; m < N_RANKS; m++) {
    for (int k = 0; k < np; k++) part_free(&PM[m][k]);
    free(PM[m]);
  }
  free(plb);
  free(trial);
  free(best);
  free(cur);
  free(members);
  free(starts);
  return 0;
}

const mp_solver solver_exact = {
    .name = "exact",
    .summary = "complete branch-and-bound placement (canonical offsets, section inference, memo)",
    .decides = MP_DECIDES_OFFSETS,
    .options = MP_OPTIONS(exact_options),
    .quick = "nodes=5000",
    .solve = exact_solve,
};
