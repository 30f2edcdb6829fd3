/* hillclimb.c - placement by local search over buffer priorities, decoded
 * bottom-up on a skyline (after TVM USMP's hill climbing, with
 * simulated-annealing acceptance and restarts).
 *
 * Decoder.  Time is cut into sections at every birth and death.  The
 * skyline H(s) is the height already used in section s.  Repeatedly take
 * the lowest valley (the leftmost maximal run of sections at the minimum
 * height) and put there, at that height (aligned up), one unplaced buffer
 * whose lifetime lies inside the valley; if none does, raise the valley to
 * its lower neighbour (that space is lost).  Among the buffers that fit, a
 * class rule decides first (cls=2: class 0 spans the whole valley, or
 * touches one side and its new top meets that side's height, so the
 * skyline gets no new step; class 1 touches one side; class 2 lies
 * strictly inside), the priority list second.  Buffers are thus placed in
 * non-decreasing offset order, each at the lowest offset the buffers below
 * it allow: MiniMalloc's canonical form.  The class rule is what makes the
 * zero-slack instances reachable: with priorities alone (cls=0) the
 * search stays 5-15% above max-live on MiniMalloc's challenging set.
 * Valleys with the same height do not interact, so the decode does not
 * depend on which of them is taken first (decoding backwards in time gives
 * the same packing).
 *
 * Search.  A solution is the priority list; the start is the better of two
 * static rules (larger area size x sections first; longer life first).  A
 * move takes a buffer x, with probability peak_bias one whose top is the
 * arena, and with probability `target` moves it just before the buffer
 * chosen at a random earlier step where x fitted with the same class (so
 * x is placed there instead); otherwise it swaps x with a random buffer,
 * moves it to a random earlier place or to any place.  Only the decode from
 * the first step whose choice can change (x fits there and now outranks
 * the pick) is redone, from a skyline snapshot and the recorded trace.
 * Cost = arena (+ smooth x the mean height above a reference level: off by
 * default, it did not help).  Acceptance: annealing, T from temp x arena
 * falling geometrically to 1/1000 of that over each restart of `iters`
 * decodes; each restart begins from the best list of its run.  After
 * `patience` restarts without progress a fresh run starts: from the best
 * list so far (probability kick) or a static rule, its ranks perturbed by
 * noise x (number of buffers) uniform positions.  Work budget: restarts x
 * iters decodes or `work` units (decoder steps, placements and raises,
 * weighted by the size of the skyline), whichever ends first, so that a run
 * without a time limit takes a few seconds at most; with fill=1 and a time
 * limit the search goes on until the limit.  It stops as soon as the arena
 * reaches the placement lower bound of lib/sweep.h (max-live, empty
 * lifetimes, pinned tops, alignment: a proof of optimality), or with
 * --capacity as soon as it fits (a capacity below that bound is reported
 * infeasible at once).
 *
 * Output: the best decode's buffers re-packed first fit in their offset
 * order (never higher than the decode when nothing is pinned; pinned
 * buffers where they stand, empty lifetimes last), or lib/pack.h's greedy
 * incumbent (which holds bysize's packing and the chain's previous
 * placement), whichever is lowest: never worse than bysize.  The search
 * itself ignores pinned buffers.  Deterministic for a seed unless the time
 * limit cuts the run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "lib/sweep.h"
#include "solver.h"

#define HC_OPTIONS(X)                                                                          \
  X(iters, INT, 2000, 1, 1e9, "decodes per restart (work budget: restarts x iters)")           \
  X(restarts, INT, 10, 1, 1e6, "restarts (a minimum with fill)")                               \
  X(work, REAL, 3e8, 0, 1e15, "also stop after this much work: decoder steps x (sections/16 + 8), " \
                        "about 1e8 a second (0: no cap; not with fill)")                       \
  X(temp, REAL, 0.004, 0, 1, "initial temperature of each restart, fraction of its arena")     \
  X(peak_bias, REAL, 0.75, 0, 1, "probability of moving a buffer that touches the top")        \
  X(target, REAL, 0.7, 0, 1, "probability of a targeted move (x placed where it could have gone)") \
  X(patience, INT, 2, 0, 1e6, "restarts without progress before a fresh run (0: never)")       \
  X(kick, REAL, 0.5, 0, 1, "probability that a fresh run starts from the best list, not a static rule") \
  X(noise, REAL, 0.1, 0, 10, "rank perturbation of a fresh run's list, fraction of its length") \
  X(cls, INT, 2, 0, 3, "decoder rule: 0 priority only, 1 prefer buffers touching a valley side, " \
                  "2 also prefer those meeting its height, 3 alternate 2 and 1 between runs")  \
  X(smooth, REAL, 0, 0, 1000, "weight of the mean height above the reference level in the cost") \
  X(band, REAL, 0, 0, 1, "reference level: arena - band x max-live (0: max-live)")             \
  X(fill, INT, 1, 0, 1, "1: with --time-limit, keep restarting until it expires (unless the target is met)")

enum { HC_OPTIONS(MP_OPT_ENUM) HC_N_OPTS };
static const mp_option hc_options[] = {HC_OPTIONS(MP_OPT_ENTRY)};

#define BS 16   /* sections per block of the skyline's block minima */

/* One decode: its trace, skyline snapshots and offsets. */
typedef struct dec {
  int nst;         /* steps */
  int *va, *vb;    /* valley [a, b) of each step */
  int *pick;       /* buffer placed at the step, or -1 (valley raised) */
  int *pcl;        /* class of the pick */
  int64_t *lvl, *hl, *hr; /* valley height, its neighbours' (-1: none) */
  int64_t *val;    /* offset placed at, or the raised height */
  int64_t *snap;   /* skyline before step snap*j, S values each */
  int64_t *off;    /* per buffer */
  int *pstep;      /* per buffer: step that placed it */
  int64_t arena;
  double over;
} dec;

typedef struct hc {
  int m;            /* regular buffers (size > 0, non-empty life, not pinned) */
  int *id;          /* -> problem index */
  int *slo, *shi;   /* section range [slo, shi) */
  int64_t *size, *al;
  int S;            /* sections */
  int64_t *w;       /* section widths */
  int64_t L;        /* max-live bound */
  int64_t band;     /* the cost counts the height above arena - band */
  int cls;
  int maxst;        /* bound on decode steps */
  int snap;         /* skyline snapshot every snap steps */
  long ndec;        /* decodes so far */
  double work;      /* work so far: decoder steps x (skyline blocks + 8) */
  int64_t *H;       /* working skyline */
  int64_t *bm;      /* min of H over each block of BS sections */
  int nb;
  int *rk;          /* rank in the list being decoded */
  /* groups: buffers with one life [slo, shi), numbered by (slo, shi); the
   * groups starting at s are sg[s] .. sg[s+1]-1; each group's unplaced
   * buffers gitem[gstart[g] .. gfill[g]) in priority order */
  int G, *grp, *gshi, *sg, *gstart, *gfill, *gitem;
  int *sgl, *sgn;   /* non-empty groups starting at s: sgl[sg[s] .. sgn[s]) */
  int *gslo;        /* first section of each group */
  int *eg, *ego;    /* groups ending at e: ego[eg[e] .. eg[e+1]), by slo descending */
  int *egl, *egn;   /* the non-empty ones: egl[eg[e] .. egn[e]) */
  uint64_t *live;   /* bit s: some group starting at s is non-empty */
  char *done;
  double deadline;  /* the stage's (0: none): a decode of a large problem
                       takes seconds, so it looks at the clock itself */
} hc;

static void dec_init(dec *d, const hc *h) {
  size_t st = (size_t)h->maxst, mz = (size_t)h->m + 1;
  d->va = mp_xmalloc(sizeof(int) * st);
  d->vb = mp_xmalloc(sizeof(int) * st);
  d->pick = mp_xmalloc(sizeof(int) * st);
  d->pcl = mp_xmalloc(sizeof(int) * st);
  d->lvl = mp_xmalloc(sizeof(int64_t) * st);
  d->hl = mp_xmalloc(sizeof(int64_t) * st);
  d->hr = mp_xmalloc(sizeof(int64_t) * st);
  d->val = mp_xmalloc(sizeof(int64_t) * st);
  d->snap = mp_xmalloc(sizeof(int64_t) * (st / (size_t)h->snap + 1) * (size_t)h->S);
  d->off = mp_xmalloc(sizeof(int64_t) * mz);
  d->pstep = mp_xmalloc(sizeof(int) * mz);
  d->nst = 0;
  d->arena = 0;
  d->over = 0;
}

static void dec_destroy(dec *d) {
  free(d->va);
  free(d->vb);
  free(d->pick);
  free(d->pcl);
  free(d->lvl);
  free(d->hl);
  free(d->hr);
  free(d->val);
  free(d->snap);
  free(d->off);
  free(d->pstep);
}

/* bm[j] = the least height of block j */
static void block_min(hc *h, int j) {
  int lo = j * BS, hi = lo + BS < h->S ? lo + BS : h->S;
  int64_t v = h->H[lo];
  for (int s = lo + 1; s < hi; s++)
    if (h->H[s] < v) v = h->H[s];
  h->bm[j] = v;
}

/* The pick so far: buffer, class, rank. */
typedef struct sel {
  int pick, pc, prk;
} sel;

/* Offer group g's buffers for valley [a, b) at height lvl: the pick is the
 * least (class, rank). */
static inline void try_group(const hc *h, int g, int a, int b, int64_t lvl, sel *q) {
  int s = h->gslo[g], e = h->gfill[g];
  int cl0 = h->cls ? 2 - (s == a) - (h->gshi[g] == b) : 0;
  bool merge = h->cls == 2 && cl0 == 1; /* its size decides 0 or 1 */
  if (!merge && cl0 > q->pc) return;
  for (int k = h->gstart[g]; k < e; k++) {
    int i = h->gitem[k];
    if (q->pc == 0 && h->rk[i] > q->prk) break;
    int cl = cl0;
    if (merge) {
      int64_t top = mp_align_up(lvl, h->al[i]) + h->size[i];
      if (s == a ? (a > 0 && h->H[a - 1] == top) : (b < h->S && h->H[b] == top)) cl = 0;
    }
    if (cl < q->pc || (cl == q->pc && h->rk[i] < q->prk)) {
      q->pc = cl;
      q->pick = i;
      q->prk = h->rk[i];
    }
    if (!merge || cl == 0) break; /* the rest of the group ranks lower */
  }
}

/* H[lo, hi) = v */
static inline void set_range(hc *h, int lo, int hi, int64_t v) {
  for (int s = lo; s < hi; s++) h->H[s] = v;
  int j0 = lo / BS, j1 = (hi - 1) / BS;
  block_min(h, j0);
  for (int j = j0 + 1; j < j1; j++) h->bm[j] = v; /* covered whole */
  if (j1 > j0) block_min(h, j1);
}

/* leftmost section of least height */
static inline int lowest(const hc *h) {
  int j = 0;
  for (int q = 1; q < h->nb; q++)
    if (h->bm[q] < h->bm[j]) j = q;
  int s = j * BS;
  while (h->H[s] != h->bm[j]) s++;
  return s;
}


/* The skyline at step t0 of decode src (nearest snapshot, then replay),
 * and src's first t0 steps copied into dst. */
static void resume(hc *h, const dec *src, dec *dst, int t0) {
  int S = h->S, SNAP = h->snap, j = t0 / SNAP;
  int64_t *H = h->H;
  if (t0 == 0) {
    memset(H, 0, sizeof(int64_t) * (size_t)S);
    return;
  }
  memcpy(H, src->snap + (size_t)j * (size_t)S, sizeof(int64_t) * (size_t)S);
  for (int t = j * SNAP; t < t0; t++) {
    int i = src->pick[t];
    if (i >= 0) {
      for (int s = h->slo[i]; s < h->shi[i]; s++) H[s] = src->val[t] + h->size[i];
    } else {
      for (int s = src->va[t]; s < src->vb[t]; s++) H[s] = src->val[t];
    }
  }
  if (src == dst) return;
  size_t t = (size_t)t0;
  memcpy(dst->va, src->va, sizeof(int) * t);
  memcpy(dst->vb, src->vb, sizeof(int) * t);
  memcpy(dst->pick, src->pick, sizeof(int) * t);
  memcpy(dst->pcl, src->pcl, sizeof(int) * t);
  memcpy(dst->lvl, src->lvl, sizeof(int64_t) * t);
  memcpy(dst->hl, src->hl, sizeof(int64_t) * t);
  memcpy(dst->hr, src->hr, sizeof(int64_t) * t);
  memcpy(dst->val, src->val, sizeof(int64_t) * t);
  memcpy(dst->snap, src->snap, sizeof(int64_t) * (size_t)(j + 1) * (size_t)S);
}

/* done = placed before t0; the others in their groups' buckets, each in
 * priority order; the non-empty groups by first and by last section.
 * Returns how many are placed. */
static int fill_buckets(hc *h, const int *pr, const dec *src, dec *dst, int t0) {
  int m = h->m, S = h->S, placed = 0;
  for (int k = 0; k < m; k++) h->done[k] = 0;
  for (int t = 0; t < t0; t++) {
    int i = dst->pick[t];
    if (i >= 0) {
      h->done[i] = 1;
      dst->off[i] = src->off[i];
      dst->pstep[i] = t;
      placed++;
    }
  }
  memcpy(h->gfill, h->gstart, sizeof(int) * (size_t)h->G);
  for (int k = 0; k < m; k++) {
    int i = pr[k];
    h->rk[i] = k;
    if (!h->done[i]) h->gitem[h->gfill[h->grp[i]]++] = i;
  }
  for (int s = 0; s < S; s++) {
    int k = h->sg[s];
    for (int g = h->sg[s]; g < h->sg[s + 1]; g++)
      if (h->gfill[g] > h->gstart[g]) h->sgl[k++] = g;
    h->sgn[s] = k;
  }
  for (int e = 0; e <= S; e++) {
    int k = h->eg[e];
    for (int gi = h->eg[e]; gi < h->eg[e + 1]; gi++)
      if (h->gfill[h->ego[gi]] > h->gstart[h->ego[gi]]) h->egl[k++] = h->ego[gi];
    h->egn[e] = k;
  }
  memset(h->live, 0, sizeof(uint64_t) * (size_t)((S + 63) / 64));
  for (int s = 0; s < S; s++)
    if (h->sgn[s] > h->sg[s]) h->live[s >> 6] |= 1ull << (s & 63);
  for (int q = 0; q < h->nb; q++) block_min(h, q);
  return placed;
}

/* Offer the groups starting in [from, b) and ending at or before b (up_to_b)
 * or before it (class 2: strictly inside), skipping empty words of the live
 * bitmap. */
static void try_inside(const hc *h, int from, int a, int b, int64_t lvl, bool up_to_b, sel *q) {
  for (int s = from; s < b; s++) {
    uint64_t wd = h->live[s >> 6] >> (s & 63);
    if (!wd) { /* no group starts in the rest of this word */
      s |= 63;
      continue;
    }
    s += __builtin_ctzll(wd);
    if (s >= b) break;
    for (int gi = h->sg[s]; gi < h->sgn[s] && (up_to_b ? h->gshi[h->sgl[gi]] <= b : h->gshi[h->sgl[gi]] < b); gi++)
      try_group(h, h->sgl[gi], a, b, lvl, q);
  }
}

/* The pick for valley [a, b) at height lvl. */
static sel choose(const hc *h, int a, int b, int64_t lvl) {
  sel q = {-1, 9, 0};
  if (h->cls == 0) { /* every group that fits */
    try_inside(h, a, a, b, lvl, true, &q);
    return q;
  }
  /* classes 0 and 1 touch a side: the groups starting at a, then those
   * ending at b; strictly inside (class 2) only when none fits */
  for (int gi = h->sg[a]; gi < h->sgn[a] && h->gshi[h->sgl[gi]] <= b; gi++)
    try_group(h, h->sgl[gi], a, b, lvl, &q);
  for (int gi = h->eg[b]; gi < h->egn[b] && h->gslo[h->egl[gi]] > a; gi++)
    try_group(h, h->egl[gi], a, b, lvl, &q);
  if (q.pick < 0) try_inside(h, a + 1, a, b, lvl, false, &q);
  return q;
}

/* Buffer `pick` leaves its group's bucket (and the group the lists of
 * non-empty groups when it was the last). */
static void unbucket(hc *h, int pick) {
  int g = h->grp[pick], q = h->gstart[g];
  while (h->gitem[q] != pick) q++;
  memmove(h->gitem + q, h->gitem + q + 1, sizeof(int) * (size_t)(h->gfill[g] - q - 1));
  if (--h->gfill[g] > h->gstart[g]) return;
  int s0 = h->slo[pick], k = h->sg[s0];
  while (h->sgl[k] != g) k++;
  memmove(h->sgl + k, h->sgl + k + 1, sizeof(int) * (size_t)(h->sgn[s0] - k - 1));
  if (--h->sgn[s0] == h->sg[s0]) h->live[s0 >> 6] &= ~(1ull << (s0 & 63));
  int e0 = h->gshi[g];
  k = h->eg[e0];
  while (h->egl[k] != g) k++;
  memmove(h->egl + k, h->egl + k + 1, sizeof(int) * (size_t)(h->egn[e0] - k - 1));
  h->egn[e0]--;
}

/* Step t: the lowest valley gets its pick, or rises to its lower
 * neighbour.  Returns 1 when a buffer was placed. */
static int step(hc *h, dec *dst, int t) {
  int S = h->S;
  int64_t *H = h->H;
  int a = lowest(h);
  int64_t lvl = H[a];
  int b = a + 1;
  while (b < S && H[b] == lvl) b++;
  sel q = choose(h, a, b, lvl);
  int pick = q.pick;
  dst->va[t] = a;
  dst->vb[t] = b;
  dst->pick[t] = pick;
  dst->pcl[t] = q.pc;
  dst->lvl[t] = lvl;
  dst->hl[t] = a > 0 ? H[a - 1] : -1;
  dst->hr[t] = b < S ? H[b] : -1;
  if (pick < 0) {
    int64_t up = INT64_MAX;
    if (a > 0) up = H[a - 1];
    if (b < S && H[b] < up) up = H[b];
    set_range(h, a, b, up);
    dst->val[t] = up;
    return 0;
  }
  int64_t o = mp_align_up(lvl, h->al[pick]);
  dst->val[t] = o;
  dst->off[pick] = o;
  dst->pstep[pick] = t;
  h->done[pick] = 1;
  unbucket(h, pick);
  set_range(h, h->slo[pick], h->shi[pick], o + h->size[pick]);
  return 1;
}

/* Decode priority list pr into dst, reusing the first t0 steps of src
 * (which must be a decode of a list that differs from pr only in the
 * relative order of buffers that cannot be chosen before step t0).
 * False when the deadline passed first: dst is then unfinished and must
 * not be used (nor the search go on). */
static bool decode(hc *h, const int *pr, const dec *src, dec *dst, int t0) {
  h->ndec++;
  int m = h->m, S = h->S, SNAP = h->snap;
  int64_t *H = h->H;
  if (!src || t0 < 0) t0 = 0;
  if (src && t0 > src->nst) t0 = src->nst;
  resume(h, src, dst, t0);
  int placed = fill_buckets(h, pr, src, dst, t0), t = t0;
  for (; placed < m; t++) {
    if ((t & 1023) == 1023 && h->deadline > 0 && mp_now() >= h->deadline) return false;
    if (t % SNAP == 0) memcpy(dst->snap + (size_t)(t / SNAP) * (size_t)S, H, sizeof(int64_t) * (size_t)S);
    placed += step(h, dst, t);
  }
  if (t % SNAP == 0) memcpy(dst->snap + (size_t)(t / SNAP) * (size_t)S, H, sizeof(int64_t) * (size_t)S);
  h->work += (double)(t - t0 + 1) * (h->nb + 8); /* ~ the cost of the steps */
  dst->nst = t;
  int64_t arena = 0;
  double ov = 0;
  for (int s = 0; s < S; s++)
    if (H[s] > arena) arena = H[s];
  int64_t ref = arena - h->band > h->L ? arena - h->band : h->L;
  for (int s = 0; s < S; s++)
    if (H[s] > ref) ov += (double)(H[s] - ref) * (double)h->w[s];
  dst->arena = arena;
  dst->over = ov;
  return true;
}

/* Class of buffer i in the valley of step t of d (its life inside it). */
static inline int cls_at(const hc *h, const dec *d, int t, int i) {
  if (!h->cls) return 0;
  int a = d->va[t], b = d->vb[t];
  int cl = 2 - (h->slo[i] == a) - (h->shi[i] == b);
  if (h->cls == 2 && cl == 1) {
    int64_t top = mp_align_up(d->lvl[t], h->al[i]) + h->size[i];
    if (h->slo[i] == a ? d->hl[t] == top : d->hr[t] == top) cl = 0;
  }
  return cl;
}

/* First step of d whose choice may change when buffer i takes position
 * npos[i] in the list (every other buffer keeping its relative order):
 * one where i fits and now beats the pick, or the step that placed i if
 * i moved later.  Steps before it decode alike. */
static int first_change(const hc *h, const dec *d, int i, const int *npos, bool later) {
  int lo = h->slo[i], hi = h->shi[i], e = d->pstep[i];
  for (int t = 0; t < e; t++) {
    if (d->pick[t] < 0 || d->va[t] > lo || hi > d->vb[t]) continue;
    int cl = cls_at(h, d, t, i);
    if (cl < d->pcl[t] || (cl == d->pcl[t] && npos[i] < npos[d->pick[t]])) return t;
  }
  return later ? e : d->nst;
}

/* ---- orders of the priority list (qsort_r contexts, no file-scope state) ---- */

typedef struct prio_ctx {
  const hc *h;
  int rule;
} prio_ctx;

static int cmp_prio(const void *pa, const void *pb, void *arg) {
  const prio_ctx *pc = arg;
  const hc *h = pc->h;
  int x = *(const int *)pa, y = *(const int *)pb;
  int64_t lx = h->shi[x] - h->slo[x], ly = h->shi[y] - h->slo[y];
  int64_t kx, ky;
  if (pc->rule == 0) { /* larger area (size x sections) first */
    kx = h->size[x] * lx;
    ky = h->size[y] * ly;
  } else { /* longer lifetime first, then larger */
    if (lx != ly) return lx > ly ? -1 : 1;
    kx = h->size[x];
    ky = h->size[y];
  }
  if (kx != ky) return kx > ky ? -1 : 1;
  return x - y;
}

/* list[0..m) sorted by static rule `rule` (0 area, 1 lifetime) */
static void static_list(const hc *h, int rule, int *list) {
  for (int k = 0; k < h->m; k++) list[k] = k;
  prio_ctx pc = {h, rule};
  qsort_r(list, (size_t)h->m, sizeof(int), cmp_prio, &pc);
}

/* by a key per buffer, ascending, ties by index */
static int cmp_key(const void *a, const void *b, void *arg) {
  const double *key = arg;
  int x = *(const int *)a, y = *(const int *)b;
  if (key[x] != key[y]) return key[x] < key[y] ? -1 : 1;
  return x - y;
}

static int cmp_life(const void *pa, const void *pb, void *arg) {
  const hc *h = arg;
  int x = *(const int *)pa, y = *(const int *)pb;
  if (h->slo[x] != h->slo[y]) return h->slo[x] - h->slo[y];
  if (h->shi[x] != h->shi[y]) return h->shi[x] - h->shi[y];
  return x - y;
}

/* Groups of equal lives, from slo/shi. */
static void build_groups(hc *h) {
  int m = h->m;
  int *byl = mp_xmalloc(sizeof(int) * ((size_t)m + 1));
  for (int k = 0; k < m; k++) byl[k] = k;
  qsort_r(byl, (size_t)m, sizeof(int), cmp_life, h);
  memset(h->sg, 0, sizeof(int) * ((size_t)h->S + 1));
  h->G = 0;
  for (int k = 0; k < m; k++) {
    int i = byl[k];
    if (k == 0 || h->slo[i] != h->slo[byl[k - 1]] || h->shi[i] != h->shi[byl[k - 1]]) {
      h->gshi[h->G] = h->shi[i];
      h->gstart[h->G] = k;
      h->sg[h->slo[i] + 1]++;
      h->G++;
    }
    h->grp[i] = h->G - 1;
  }
  h->gstart[h->G] = m;
  for (int s = 0; s < h->S; s++) h->sg[s + 1] += h->sg[s];
  memset(h->eg, 0, sizeof(int) * ((size_t)h->S + 2));
  for (int g = 0; g < h->G; g++) {
    h->gslo[g] = h->slo[byl[h->gstart[g]]];
    h->eg[h->gshi[g] + 1]++;
  }
  for (int e = 0; e <= h->S; e++) h->eg[e + 1] += h->eg[e];
  memcpy(h->egn, h->eg, sizeof(int) * ((size_t)h->S + 1));
  for (int g = h->G - 1; g >= 0; g--) h->ego[h->egn[h->gshi[g]]++] = g;
  free(byl);
}

static int cmp_off(const void *a, const void *b, void *arg) {
  const int64_t *off = arg;
  int x = *(const int *)a, y = *(const int *)b;
  if (off[x] != off[y]) return off[x] < off[y] ? -1 : 1;
  return x - y;
}

/* Offsets of the whole problem from decode d: its buffers first fit in
 * offset order (pinned ones where they stand), then the degenerate ones. */
static int64_t realise(const mp_problem *p, const hc *h, const dec *d, int *seq, int64_t *off) {
  for (int k = 0; k < h->m; k++) seq[k] = k;
  qsort_r(seq, (size_t)h->m, sizeof(int), cmp_off, d->off);
  for (int k = 0; k < h->m; k++) seq[k] = h->id[seq[k]];
  mp_pack(p, seq, h->m, MP_FIRST_FIT, off);
  for (int i = 0; i < p->n; i++)
    if (off[i] < 0) off[i] = 0;
  mp_pack_degenerate(p, off);
  return mp_place_arena(p, off);
}

/* ---- the skyline model: regular buffers, sections, groups ---- */

/* The sections of the regular buffers' lifetimes (real lifetimes only:
 * sections of the real time line): their widths, the skyline and its block
 * minima, and per buffer its section range, size and alignment. */
static void hc_sections(hc *h, const mp_problem *p) {
  int m = h->m;
  size_t mz = (size_t)m + 1;
  int64_t *lo = mp_xmalloc(sizeof(int64_t) * mz), *hi = mp_xmalloc(sizeof(int64_t) * mz);
  for (int k = 0; k < m; k++) {
    lo[k] = p->items[h->id[k]].lo;
    hi[k] = p->items[h->id[k]].hi;
  }
  mp_sections sec;
  mp_sections_init(&sec, lo, hi, m);
  free(lo);
  free(hi);
  h->S = sec.ns;
  h->w = mp_xmalloc(sizeof(int64_t) * (size_t)h->S);
  for (int s = 0; s < h->S; s++) h->w[s] = m > 0 ? sec.t[s + 1] - sec.t[s] : 1;
  h->H = mp_xmalloc(sizeof(int64_t) * (size_t)h->S);
  h->nb = (h->S + BS - 1) / BS;
  h->bm = mp_xmalloc(sizeof(int64_t) * (size_t)h->nb);
  h->slo = mp_xmalloc(sizeof(int) * mz);
  h->shi = mp_xmalloc(sizeof(int) * mz);
  h->size = mp_xmalloc(sizeof(int64_t) * mz);
  h->al = mp_xmalloc(sizeof(int64_t) * mz);
  for (int k = 0; k < m; k++) {
    const mp_item *it = &p->items[h->id[k]];
    h->slo[k] = sec.s0[k];
    h->shi[k] = sec.s1[k];
    h->size[k] = it->size;
    h->al[k] = it->align < 1 ? 1 : it->align;
  }
  mp_sections_destroy(&sec);
}

/* Room for the groups and their per-section lists (build_groups and each
 * decode fill them), the ranks and the placed marks. */
static void hc_alloc_scratch(hc *h) {
  size_t mz = (size_t)h->m + 1;
  h->grp = mp_xmalloc(sizeof(int) * mz);
  h->gshi = mp_xmalloc(sizeof(int) * mz);
  h->gstart = mp_xmalloc(sizeof(int) * (mz + 1));
  h->gfill = mp_xmalloc(sizeof(int) * (mz + 1));
  h->gitem = mp_xmalloc(sizeof(int) * mz);
  h->sg = mp_xcalloc((size_t)h->S + 1, sizeof(int));
  h->sgl = mp_xmalloc(sizeof(int) * mz);
  h->sgn = mp_xmalloc(sizeof(int) * ((size_t)h->S + 1));
  h->gslo = mp_xmalloc(sizeof(int) * mz);
  h->eg = mp_xmalloc(sizeof(int) * ((size_t)h->S + 2));
  h->ego = mp_xmalloc(sizeof(int) * mz);
  h->egl = mp_xmalloc(sizeof(int) * mz);
  h->egn = mp_xmalloc(sizeof(int) * ((size_t)h->S + 2));
  h->live = mp_xmalloc(sizeof(uint64_t) * (size_t)((h->S + 63) / 64));
  h->rk = mp_xmalloc(sizeof(int) * mz);
  h->done = mp_xmalloc(mz);
}

static void hc_init(hc *h, const mp_ctx *c, const mp_problem *p, int64_t L) {
  int n = p->n;
  memset(h, 0, sizeof *h);
  h->L = L;
  h->deadline = c->deadline;
  h->band = c->opt[OPT_band] > 0 ? (int64_t)(c->opt[OPT_band] * (double)L) : INT64_MAX / 4;
  h->cls = c->opt[OPT_cls] == 3 ? 2 : (int)c->opt[OPT_cls];
  h->id = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    const mp_item *it = &p->items[i];
    if (it->size > 0 && it->lo < it->hi && it->fixed < 0) h->id[h->m++] = i;
  }
  int m = h->m;
  hc_sections(h, p);
  /* each step places a buffer or raises a valley, merging it with a
   * neighbour: fewer than S + 2m raises in all */
  h->maxst = 3 * m + h->S + 2;
  /* snapshots: at most ~2^20 values per decode (8 MB), every 16 steps or more */
  h->snap = (int)(((double)h->maxst * h->S) / (1 << 20)) + 1;
  if (h->snap < 16) h->snap = 16;
  hc_alloc_scratch(h);
  build_groups(h);
}

static void hc_destroy(hc *h) {
  free(h->id), free(h->w), free(h->H), free(h->bm), free(h->slo), free(h->shi);
  free(h->size), free(h->al), free(h->grp), free(h->gshi), free(h->gstart), free(h->gfill);
  free(h->gitem), free(h->sg), free(h->sgl), free(h->sgn), free(h->gslo), free(h->eg);
  free(h->ego), free(h->egl), free(h->egn), free(h->live), free(h->rk), free(h->done);
}

/* ---- the search ---- */

typedef struct hc_run {
  const mp_ctx *c;
  hc h;
  dec D[3];
  dec *cur, *cand, *bst;   /* current, candidate, best of this run */
  int *pr, *npr, *bpr;     /* their priority lists */
  int *top, *npos, *csteps;
  int64_t *goff;           /* best decode so far (skyline offsets) */
  int *gpr;                /* and its list */
  double *key;
  double sm;               /* weight of the smooth term */
  mp_rng rng;
  int64_t garena, target;
  long rs, stall, epoch;
  bool cut, spent;         /* the clock / the work cap ended the run */
  bool sky;                /* goff holds a finished decode */
} hc_run;

#define COST(R, d) ((double)(d)->arena + (R)->sm * (d)->over)

static void run_init(hc_run *R, const mp_ctx *c, const mp_problem *p, int64_t target) {
  memset(R, 0, sizeof *R);
  R->c = c;
  R->target = target;
  hc_init(&R->h, c, p, mp_live_peak(p));
  hc *h = &R->h;
  for (int k = 0; k < 3; k++) dec_init(&R->D[k], h);
  R->cur = &R->D[0], R->cand = &R->D[1], R->bst = &R->D[2];
  size_t mz = (size_t)h->m + 1;
  R->pr = mp_xmalloc(sizeof(int) * mz), R->npr = mp_xmalloc(sizeof(int) * mz);
  R->bpr = mp_xmalloc(sizeof(int) * mz), R->top = mp_xmalloc(sizeof(int) * mz);
  R->npos = mp_xmalloc(sizeof(int) * mz), R->csteps = mp_xmalloc(sizeof(int) * (size_t)h->maxst);
  R->goff = mp_xmalloc(sizeof(int64_t) * mz);
  R->key = mp_xmalloc(sizeof(double) * mz);
  R->gpr = mp_xmalloc(sizeof(int) * mz);
  double span = 0;
  for (int s = 0; s < h->S; s++) span += (double)h->w[s];
  R->sm = c->opt[OPT_smooth] / (span > 0 ? span : 1);
  mp_rng_seed(&R->rng, c->seed);
}

static void run_destroy(hc_run *R) {
  for (int k = 0; k < 3; k++) dec_destroy(&R->D[k]);
  free(R->pr), free(R->npr), free(R->bpr), free(R->top), free(R->npos), free(R->csteps);
  free(R->goff), free(R->gpr), free(R->key);
  hc_destroy(&R->h);
}

static void swap_dec(dec **a, dec **b) {
  dec *t = *a;
  *a = *b;
  *b = t;
}

/* The start: the better of the two static rules (none if the clock cuts
 * one of their decodes). */
static void static_start(hc_run *R) {
  hc *h = &R->h;
  int m = h->m;
  for (int r = 0; r < 2; r++) {
    static_list(h, r, R->npr);
    if (!decode(h, R->npr, NULL, R->cand, 0)) {
      R->cut = true;
      return;
    }
    if (r == 0 || COST(R, R->cand) < COST(R, R->cur)) {
      swap_dec(&R->cur, &R->cand);
      memcpy(R->pr, R->npr, sizeof(int) * (size_t)m);
    }
  }
  if (!decode(h, R->pr, NULL, R->bst, 0)) {
    R->cut = true;
    return;
  }
  R->sky = true;
  memcpy(R->bpr, R->pr, sizeof(int) * (size_t)m);
  R->garena = R->bst->arena;
  memcpy(R->goff, R->bst->off, sizeof(int64_t) * (size_t)m);
  memcpy(R->gpr, R->bpr, sizeof(int) * (size_t)m);
}

/* A fresh run: the best list or a static rule, its ranks perturbed. */
static void fresh_run(hc_run *R) {
  const mp_ctx *c = R->c;
  hc *h = &R->h;
  int m = h->m;
  R->epoch++;
  R->stall = 0;
  if (c->opt[OPT_cls] == 3) h->cls = R->epoch % 2 ? 1 : 2;
  if (mp_rng_unit(&R->rng) < c->opt[OPT_kick])
    memcpy(R->bpr, R->gpr, sizeof(int) * (size_t)m);
  else
    static_list(h, (int)(R->epoch % 2), R->bpr);
  for (int k = 0; k < m; k++) R->key[R->bpr[k]] = k + c->opt[OPT_noise] * m * mp_rng_unit(&R->rng);
  qsort_r(R->bpr, (size_t)m, sizeof(int), cmp_key, R->key);
  if (!decode(h, R->bpr, NULL, R->bst, 0)) R->cut = true;
}

/* The buffer to move: with probability peak_bias one at the top. */
static int pick_buffer(hc_run *R) {
  const hc *h = &R->h;
  int m = h->m;
  if (mp_rng_unit(&R->rng) < R->c->opt[OPT_peak_bias]) {
    int nt = 0;
    for (int k = 0; k < m; k++)
      if (R->cur->off[k] + h->size[k] >= R->cur->arena) R->top[nt++] = k;
    return nt ? R->top[mp_rng_below(&R->rng, (uint64_t)nt)] : (int)mp_rng_below(&R->rng, (uint64_t)m);
  }
  return (int)mp_rng_below(&R->rng, (uint64_t)m);
}

/* A neighbour of the current list in npr: x moves (and y, swapped with it,
 * or -1); false when the draw gives no change. */
static bool propose(hc_run *R, int *xp, int *yp, int *k1p, int *k2p) {
  const hc *h = &R->h;
  const dec *cur = R->cur;
  int m = h->m, *pr = R->pr, *npr = R->npr;
  int x = pick_buffer(R), k1 = 0;
  while (pr[k1] != x) k1++;
  memcpy(npr, pr, sizeof(int) * (size_t)m);
  double u2 = mp_rng_unit(&R->rng);
  int y = -1, k2, nc = 0;
  if (mp_rng_unit(&R->rng) < R->c->opt[OPT_target]) {
    /* the steps before x's where x could be chosen instead */
    int lo = h->slo[x], hi = h->shi[x], e = cur->pstep[x];
    for (int t = 0; t < e; t++)
      if (cur->pick[t] >= 0 && cur->va[t] <= lo && hi <= cur->vb[t] && cls_at(h, cur, t, x) == cur->pcl[t])
        R->csteps[nc++] = t;
  }
  if (nc > 0) { /* x goes just before the buffer chosen at one of them */
    int z = cur->pick[R->csteps[mp_rng_below(&R->rng, (uint64_t)nc)]];
    k2 = 0;
    while (pr[k2] != z) k2++;
    if (k2 > k1) return false; /* cannot happen: x would have won there */
    memmove(npr + k2 + 1, npr + k2, sizeof(int) * (size_t)(k1 - k2));
    npr[k2] = x;
  } else if (u2 < 0.4) { /* swap with a random buffer */
    k2 = (int)mp_rng_below(&R->rng, (uint64_t)m);
    if (k2 == k1) return false;
    y = npr[k2];
    npr[k1] = y;
    npr[k2] = x;
  } else { /* move earlier (mostly) or anywhere */
    if (u2 < 0.8) {
      if (k1 == 0) return false;
      k2 = (int)mp_rng_below(&R->rng, (uint64_t)k1);
    } else {
      k2 = (int)mp_rng_below(&R->rng, (uint64_t)m);
      if (k2 == k1) return false;
    }
    if (k2 < k1)
      memmove(npr + k2 + 1, npr + k2, sizeof(int) * (size_t)(k1 - k2));
    else
      memmove(npr + k1, npr + k1 + 1, sizeof(int) * (size_t)(k2 - k1));
    npr[k2] = x;
  }
  *xp = x, *yp = y, *k1p = k1, *k2p = k2;
  return true;
}

/* An accepted list became current: keep it as this run's best (and the
 * global best) if it is. */
static void note_best(hc_run *R, double ncost) {
  hc *h = &R->h;
  int m = h->m;
  if (!(R->cur->arena < R->bst->arena || (R->cur->arena == R->bst->arena && ncost < COST(R, R->bst))))
    return;
  memcpy(R->bpr, R->pr, sizeof(int) * (size_t)m);
  if (!decode(h, R->bpr, R->cur, R->bst, R->cur->nst)) {
    R->cut = true;
    return;
  }
  if (R->bst->arena < R->garena) {
    R->garena = R->bst->arena;
    memcpy(R->goff, R->bst->off, sizeof(int64_t) * (size_t)m);
    memcpy(R->gpr, R->bpr, sizeof(int) * (size_t)m);
    if (R->c->verbose)
      fprintf(stderr, "hillclimb: arena %lld (restart %ld, fresh start %ld, %ld decodes)\n",
              (long long)R->garena, R->rs, R->epoch, h->ndec);
  }
}

/* One restart: `iters` annealing moves from the current list. */
static void anneal(hc_run *R, long iters, double cool, bool fill) {
  const mp_ctx *c = R->c;
  hc *h = &R->h;
  int m = h->m;
  double wcap = c->opt[OPT_work];
  double T = c->opt[OPT_temp] * (double)R->cur->arena, cost = COST(R, R->cur);
  for (long it = 0; it < iters && R->garena > R->target && !R->spent && !R->cut; it++, T *= cool) {
    if (wcap > 0 && !fill && h->work >= wcap) {
      R->spent = true;
      break;
    }
    if ((it & 7) == 0 && mp_time_up(c)) {
      R->cut = true;
      break;
    }
    int x, y, k1, k2;
    if (!propose(R, &x, &y, &k1, &k2)) continue;
    /* only pairs involving x (and y) changed relative order: decode
     * again from the first step where that can change the choice */
    for (int k = 0; k < m; k++) R->npos[R->npr[k]] = k;
    int t0 = first_change(h, R->cur, x, R->npos, R->npos[x] > k1);
    if (y >= 0) {
      int t1 = first_change(h, R->cur, y, R->npos, R->npos[y] > k2);
      if (t1 < t0) t0 = t1;
    }
    if (!decode(h, R->npr, R->cur, R->cand, t0)) {
      R->cut = true;
      break;
    }
    double ncost = COST(R, R->cand), d = ncost - cost;
    if (d <= 0 || (T > 0 && mp_rng_unit(&R->rng) < exp(-d / T))) {
      swap_dec(&R->cur, &R->cand);
      int *tp = R->pr;
      R->pr = R->npr;
      R->npr = tp;
      cost = ncost;
      note_best(R, ncost);
    }
  }
}

/* Restarts until the budget, the clock or the target ends them; the best
 * skyline offsets end in R->goff. */
static void search(hc_run *R, int64_t incumbent) {
  const mp_ctx *c = R->c;
  hc *h = &R->h;
  int m = h->m;
  long iters = (long)c->opt[OPT_iters], restarts = (long)c->opt[OPT_restarts];
  long patience = (long)c->opt[OPT_patience];
  bool fill = c->opt[OPT_fill] > 0 && c->deadline > 0;
  double cool = pow(1e-3, 1.0 / (double)iters);
  for (; m > 1 && (R->rs < restarts || fill) && !R->cut && !R->spent && R->garena > R->target &&
         incumbent > R->target;
       R->rs++) {
    if (R->rs > 0) {
      if (patience > 0 && R->stall >= patience) fresh_run(R);
      memcpy(R->pr, R->bpr, sizeof(int) * (size_t)m);
      if (R->cut || !decode(h, R->pr, NULL, R->cur, 0)) {
        R->cut = true;
        break;
      }
    }
    double before = COST(R, R->bst);
    anneal(R, iters, cool, fill);
    R->stall = COST(R, R->bst) < before ? 0 : R->stall + 1;
  }
  if (c->verbose)
    fprintf(stderr, "hillclimb: %ld restarts, %ld fresh starts, %ld decodes, skyline arena %lld\n", R->rs,
            R->epoch, h->ndec, (long long)R->garena);
}

static int hc_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  int64_t bound = mp_place_lower_bound(p);
  c->bound = bound;
  /* incumbent: the library's greedy packings, or the chain's previous placement */
  int64_t *best_off = mp_xmalloc(sizeof(int64_t) * nz);
  int64_t best = mp_place_incumbent(c, p, best_off);
  memcpy(c->offsets, best_off, sizeof(int64_t) * nz);
  if (c->capacity > 0 && bound > c->capacity) {
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg, "the lower bound %lld exceeds the capacity %lld", (long long)bound,
             (long long)c->capacity);
    free(best_off);
    return 0;
  }
  /* stop at the capacity, or at a proven bound */
  hc_run R;
  run_init(&R, c, p, c->capacity > 0 ? c->capacity : bound);
  if (R.h.m > 0) { /* the incumbent's packings may have used the time (they stop at it) */
    if (mp_time_up(c))
      R.cut = true;
    else
      static_start(&R);
  }
  if (R.sky) {
    search(&R, best);
    int *seq = mp_xmalloc(sizeof(int) * nz);
    int64_t *off = mp_xmalloc(sizeof(int64_t) * nz);
    memcpy(R.bst->off, R.goff, sizeof(int64_t) * (size_t)R.h.m);
    int64_t a = realise(p, &R.h, R.bst, seq, off);
    if (a < best) {
      best = a;
      memcpy(c->offsets, off, sizeof(int64_t) * nz);
    }
    free(seq);
    free(off);
  }
  if (best == bound)
    c->status = MP_OPTIMAL;
  else if (R.cut && R.rs <= (long)c->opt[OPT_restarts])
    c->status = MP_TIMEOUT;
  else
    c->status = MP_FEASIBLE;
  run_destroy(&R);
  free(best_off);
  return 0;
}

const mp_solver solver_hillclimb = {
    .name = "hillclimb",
    .summary = "annealing over buffer priorities decoded on a skyline, restarts (TVM-style hill climbing)",
    .decides = MP_DECIDES_OFFSETS,
    .options = MP_OPTIONS(hc_options),
    .quick = "iters=50,restarts=2,fill=0",
    .solve = hc_solve,
};
