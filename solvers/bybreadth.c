/* bybreadth.c - greedy by breadth, the shared-object planner of TFLite's GPU
 * delegate (Pisarchyk & Lee, "Efficient Memory Management for Deep Neural
 * Net Inference", 2020), written from the paper and the rule alone.
 *
 * An operator is a time step t; the items live at it are those with
 * lo <= t < hi, and its breadth is the sum of their sizes.  Operators are
 * taken by breadth descending (ties: the earlier step), and within one its
 * items not yet assigned by size descending (ties: the lower index; TFLite
 * sorts both with std::sort, so its ties are unspecified).  Each item goes
 * into a slot (shared object) none of whose members is live with it: the
 * smallest free slot at least as large as the item (ties: the lowest slot
 * index), else the largest free one (ties: the lowest index), enlarged to
 * the item; a new slot when none is free.  Slots are then stacked largest
 * first (ties: index), each aligned to the lcm of its members' alignments,
 * so the arena is the sum of the slot sizes plus that padding; alignment
 * plays no part in the choice of slot, as in TFLite (which has none),
 * except that a slot whose lcm would pass MP_MAX_ALIGN (2^30: alignments
 * that are not powers of two) counts as taken.
 *
 * Like coloring (the other slot planner) only unpinned items with bytes and
 * a non-empty lifetime take slots; breadths count those alone, so a problem
 * with pins is planned as without them, shifted above the highest pinned
 * end.  Pinned items stay where they stand, size-0 items sit at 0, and an
 * empty lifetime [t, t) (live at no step, but conflicting by the literal
 * test with lifetimes strictly across t) is put last, first fit against
 * everything else (mp_pack_degenerate).
 *
 * Cost.  The live set changes only where some lifetime starts or ends, so
 * the steps are the at most 2n - 1 segments between those times; the
 * earliest step of a segment comes first among its equals, which gives the
 * same plan as taking every step.  Breadths are a sweep over the sorted
 * ends; an item's turn is the first-ranked segment it spans (a range
 * minimum), so the whole sequence is O(n log n).  Placing an item scans
 * an array of the slots by (size, index) from the item's size up, then
 * down; every slot it passes holds an item live with it.  A slot is tested
 * in O(1) from its span and member count, or else by a lookup in a tree of
 * all members, O(log n); a new or enlarged slot moves to its place in the
 * array.  So an item with d placed neighbours costs O(min(d, slots) log n
 * + slots), at worst O(n slots log n) in all: quadratic where many buffers
 * share a step (a training graph's saved activations, about a slot each).
 * The work is counted in steps (a slot passed or moved 1, a lookup
 * MP_LOOKUP_STEPS) and the plan refused past max_steps (4 x 10^9: 10-50 s).
 * `memplan gen layered -n 100000 --seed 1`, given order: 739 slots, 10^8
 * steps, 0.5 s; -n 10^6: 2.0 x 10^9 steps, 25 s; -n 50000 --backward (10^5
 * buffers): 50030 slots, 2.5 x 10^9 steps, 2.8 s.
 * Under a time limit the items are assigned until the deadline, or `slack`
 * seconds after the start when that is later (a chain whose order search
 * spent the limit still gets greedy by breadth where it is quick); a cut
 * leaves birth-order first fit (mp_pack's sweep) with status timeout, as
 * bysize does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/interfere.h"
#include "lib/pack.h"
#include "lib/oset.h"
#include "solver.h"

/* What a tree lookup in slot_free costs in steps of the slot search (one a
 * slot passed or moved, 1-3 ns): 30-300 ns, a cache miss per level. */
#define MP_LOOKUP_STEPS 32

#define BYBREADTH_OPTIONS(X)                                                                \
  X(max_steps, INT, 4e9, 0, 1e15,                                                           \
    "refuse once the slot search has taken more steps than this (size cap: a slot tested or " \
    "moved is 1, a tree lookup 32; 10-50 s at the default)")                                 \
  X(slack, REAL, 0.5, 0, 1e6,                                                               \
    "under a time limit, seconds the slot search may run past the stage's start when the "    \
    "deadline is earlier (a chain whose search spent the limit), as bysize's")
enum { BYBREADTH_OPTIONS(MP_OPT_ENUM) BYBREADTH_N_OPTS };
static const mp_option bybreadth_options[] = {BYBREADTH_OPTIONS(MP_OPT_ENTRY)};

/* ------------------------------------------------ the sequence */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The index of t in the sorted distinct times x[0..k). */
static int time_index(const int64_t *x, int k, int64_t t) {
  int lo = 0, hi = k - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (x[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Segment j is [x[j], x[j+1]); a and b of each item: its first segment and
 * the one past its last.  Returns k, the count of distinct times. */
static int segments(const mp_problem *p, const int *item, int nv, int64_t *x, int *a, int *b) {
  for (int v = 0; v < nv; v++) {
    x[2 * v] = p->items[item[v]].lo;
    x[2 * v + 1] = p->items[item[v]].hi;
  }
  qsort(x, (size_t)(2 * nv), sizeof *x, cmp_i64);
  int k = 0;
  for (int j = 0; j < 2 * nv; j++)
    if (k == 0 || x[j] != x[k - 1]) x[k++] = x[j];
  for (int v = 0; v < nv; v++) {
    a[v] = time_index(x, k, p->items[item[v]].lo);
    b[v] = time_index(x, k, p->items[item[v]].hi);
  }
  return k;
}

static int cmp_breadth(const void *pa, const void *pb, void *arg) {
  const int64_t *br = arg;
  int x = *(const int *)pa, y = *(const int *)pb;
  if (br[x] != br[y]) return br[x] > br[y] ? -1 : 1;
  return (x > y) - (x < y);
}

/* rank[j] of the m segments: their turn, by breadth descending (ties: the
 * earlier segment).  Breadths by a sweep: +size where an item starts,
 * -size where it ends. */
static void segment_ranks(const mp_problem *p, const int *item, int nv, const int *a, const int *b,
                          int m, int *rank) {
  size_t mz = (size_t)(m ? m : 1);
  int64_t *br = mp_xcalloc(mz + 1, sizeof *br);
  int *ord = mp_xmalloc(sizeof(int) * mz);
  for (int v = 0; v < nv; v++) {
    br[a[v]] += p->items[item[v]].size;
    br[b[v]] -= p->items[item[v]].size;
  }
  for (int j = 0; j < m; j++) {
    if (j > 0) br[j] += br[j - 1];
    ord[j] = j;
  }
  qsort_r(ord, (size_t)m, sizeof *ord, cmp_breadth, br);
  for (int r = 0; r < m; r++) rank[ord[r]] = r;
  free(br);
  free(ord);
}

/* turn[v] = the least rank over segments a[v] .. b[v]-1: a bottom-up
 * range-minimum tree over the m segments. */
static void item_turns(const int *rank, int m, const int *a, const int *b, int nv, int *turn) {
  int *t = mp_xmalloc(sizeof(int) * (size_t)(2 * m + 2));
  for (int j = 0; j < m; j++) t[m + j] = rank[j];
  for (int j = m - 1; j > 0; j--) t[j] = t[2 * j] < t[2 * j + 1] ? t[2 * j] : t[2 * j + 1];
  for (int v = 0; v < nv; v++) {
    int best = m;
    for (int l = a[v] + m, r = b[v] + m; l < r; l >>= 1, r >>= 1) {
      if (l & 1) best = t[l] < best ? t[l] : best, l++;
      if (r & 1) --r, best = t[r] < best ? t[r] : best;
    }
    turn[v] = best;
  }
  free(t);
}

typedef struct seq_key {
  int turn;
  int64_t size;
  int item;
} seq_key;

static int cmp_seq(const void *pa, const void *pb) {
  const seq_key *x = pa, *y = pb;
  if (x->turn != y->turn) return x->turn < y->turn ? -1 : 1;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return (x->item > y->item) - (x->item < y->item);
}

/* The items of item[0..nv) in the order greedy by breadth assigns them:
 * by the turn of the first operator that reaches them, then size
 * descending, then index. */
static void breadth_sequence(const mp_problem *p, const int *item, int nv, int *seq) {
  size_t nz = (size_t)(nv ? nv : 1);
  int64_t *x = mp_xmalloc(sizeof(int64_t) * 2 * nz);
  int *a = mp_xmalloc(sizeof(int) * nz), *b = mp_xmalloc(sizeof(int) * nz);
  int k = segments(p, item, nv, x, a, b), m = k > 0 ? k - 1 : 0; /* the last time starts none */
  int *rank = mp_xmalloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
  segment_ranks(p, item, nv, a, b, m, rank);
  int *turn = mp_xmalloc(sizeof(int) * nz);
  item_turns(rank, m, a, b, nv, turn);
  seq_key *key = mp_xmalloc(sizeof(seq_key) * nz);
  for (int v = 0; v < nv; v++) key[v] = (seq_key){turn[v], p->items[item[v]].size, item[v]};
  qsort(key, (size_t)nv, sizeof *key, cmp_seq);
  for (int v = 0; v < nv; v++) seq[v] = key[v].item;
  free(x);
  free(a);
  free(b);
  free(rank);
  free(turn);
  free(key);
}

/* ------------------------------------------------ the slots */

typedef struct slots {
  int n;
  int64_t *size, *align; /* per slot: its largest member, their alignments' lcm */
  int64_t *first, *last; /* per slot: its members' span [first, last) */
  int *count;            /* per slot: its members */
  int *ord;              /* the slots by (size, index) ascending */
  mp_oset members;       /* keys (slot, lo), value hi: disjoint per slot */
  int64_t steps;         /* slots tested or moved in ord: the work, against max_steps */
} slots;

static void slots_init(slots *S, int cap) {
  size_t cz = (size_t)(cap ? cap : 1);
  S->n = 0;
  S->steps = 0;
  S->size = mp_xmalloc(sizeof(int64_t) * cz);
  S->align = mp_xmalloc(sizeof(int64_t) * cz);
  S->first = mp_xmalloc(sizeof(int64_t) * cz);
  S->last = mp_xmalloc(sizeof(int64_t) * cz);
  S->ord = mp_xmalloc(sizeof(int) * cz);
  S->count = mp_xmalloc(sizeof(int) * cz);
  mp_oset_init(&S->members);
}

static void slots_destroy(slots *S) {
  free(S->size);
  free(S->align);
  free(S->first);
  free(S->last);
  free(S->ord);
  free(S->count);
  mp_oset_destroy(&S->members);
}

/* Does slot s hold nothing live over [lo, hi)?  Outside its span, yes;
 * inside, no if the span is its one member (without a tree lookup, which
 * dominates the cost), else, its members being disjoint, only the last
 * one born before hi can meet [lo, hi). */
static bool slot_free(slots *S, int s, int64_t lo, int64_t hi) {
  S->steps++;
  if (hi <= S->first[s] || lo >= S->last[s]) return true;
  if (S->count[s] == 1) return false;
  S->steps += MP_LOOKUP_STEPS - 1;
  mp_oset_entry x;
  mp_oset_below(&S->members, (mp_oset_key){s, hi}, &x);
  return x.val <= lo; /* s's, as first[s] < hi */
}

/* Can slot s take an item over [lo, hi) with alignment a? */
static bool slot_takes(slots *S, int s, int64_t lo, int64_t hi, int64_t a) {
  return slot_free(S, s, lo, hi) && mp_align_lcm(S->align[s], a) > 0;
}

static bool ord_before(const slots *S, int x, int y) {
  return S->size[x] < S->size[y] || (S->size[x] == S->size[y] && x < y);
}

/* The position in ord of the first slot of at least `size`. */
static int ord_lower(const slots *S, int64_t size) {
  int lo = 0, hi = S->n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (S->size[S->ord[mid]] < size) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Move the slot at ord[i], whose size changed or which is new, to its place. */
static void ord_sift(slots *S, int i) {
  int s = S->ord[i];
  for (; i > 0 && ord_before(S, s, S->ord[i - 1]); i--, S->steps++) S->ord[i] = S->ord[i - 1];
  for (; i + 1 < S->n && ord_before(S, S->ord[i + 1], s); i++, S->steps++) S->ord[i] = S->ord[i + 1];
  S->ord[i] = s;
}

/* TFLite's choice for an item of `size` and alignment a over [lo, hi):
 * the smallest free slot at least that large, else the largest free
 * smaller one; the lowest index among equal sizes; -1 when none is free.
 * Every slot the scans pass holds a live neighbour (or alignments whose
 * lcm would pass MP_MAX_ALIGN). */
static int choose_slot(slots *S, int64_t size, int64_t a, int64_t lo, int64_t hi) {
  int p0 = ord_lower(S, size);
  for (int i = p0; i < S->n; i++)
    if (slot_takes(S, S->ord[i], lo, hi, a)) return S->ord[i];
  int i = p0 - 1;
  while (i >= 0 && !slot_takes(S, S->ord[i], lo, hi, a)) i--;
  if (i < 0) return -1;
  for (int g = ord_lower(S, S->size[S->ord[i]]);; g++) /* the lowest index of that size */
    if (slot_takes(S, S->ord[g], lo, hi, a)) return S->ord[g];
}

/* Put item it into its slot (a new one when none is free). */
static int assign(slots *S, const mp_item *it) {
  int64_t a = it->align < 1 ? 1 : it->align;
  int s = choose_slot(S, it->size, a, it->lo, it->hi);
  if (s < 0) {
    s = S->n++;
    S->size[s] = it->size;
    S->align[s] = a;
    S->first[s] = it->lo;
    S->last[s] = it->hi;
    S->count[s] = 1;
    S->ord[s] = s;
    ord_sift(S, s);
  } else {
    if (it->size > S->size[s]) { /* enlarged: it moves up the size order */
      int at = ord_lower(S, S->size[s]);
      while (S->ord[at] != s) at++;
      S->size[s] = it->size;
      ord_sift(S, at);
    }
    S->align[s] = mp_align_lcm(S->align[s], a);
    if (it->lo < S->first[s]) S->first[s] = it->lo;
    if (it->hi > S->last[s]) S->last[s] = it->hi;
    S->count[s]++;
  }
  mp_oset_insert(&S->members, (mp_oset_key){s, it->lo}, it->hi);
  return s;
}

static int cmp_slot_size(const void *pa, const void *pb, void *arg) {
  const int64_t *size = arg;
  int x = *(const int *)pa, y = *(const int *)pb;
  if (size[x] != size[y]) return size[x] > size[y] ? -1 : 1;
  return (x > y) - (x < y);
}

/* Stack the slots above base, largest first (ties: index), each aligned
 * for all its members; start[s] gets slot s's offset. */
static void stack_slots(const slots *S, int64_t base, int64_t *start) {
  int *ord = mp_xmalloc(sizeof(int) * (size_t)(S->n ? S->n : 1));
  for (int s = 0; s < S->n; s++) ord[s] = s;
  qsort_r(ord, (size_t)S->n, sizeof *ord, cmp_slot_size, S->size);
  int64_t at = base;
  for (int k = 0; k < S->n; k++) {
    at = mp_align_up(at, S->align[ord[k]]);
    start[ord[k]] = at;
    at += S->size[ord[k]];
  }
  free(ord);
}

/* ------------------------------------------------------------- solve */

/* Assign seq[0..nv) to slots (slot_of[k]: seq[k]'s) until mp_now()
 * passes cut (> 0; 0: no limit).  0 when all are; else c->msg says why:
 * 1 the time limit (status timeout), -1 the cap on the slot search's steps
 * (status refused) or a cancelled run. */
static int assign_all(mp_ctx *c, double cut, slots *S, const int *seq, int nv, int *slot_of) {
  for (int k = 0; k < nv; k++) {
    if (S->steps > c->opt[OPT_max_steps]) {
      c->status = MP_REFUSED;
      snprintf(c->msg, sizeof c->msg,
               "the slot search took %lld steps by buffer %d of %d, over the size cap "
               "max_steps=%.0f (many buffers live together); raise bybreadth.max_steps or use "
               "bysize",
               (long long)S->steps, k, nv, c->opt[OPT_max_steps]);
      return -1;
    }
    if (k % 64 == 63 && mp_cancelled(c)) {
      snprintf(c->msg, sizeof c->msg, "cancelled: the run no longer wants a plan");
      return -1;
    }
    if (k % 64 == 63 && cut > 0 && mp_now() >= cut) {
      c->status = MP_TIMEOUT;
      snprintf(c->msg, sizeof c->msg, "the time limit cut greedy by breadth after %d of %d buffers",
               k, nv);
      return 1;
    }
    slot_of[k] = assign(S, &c->prob->items[seq[k]]);
  }
  return 0;
}

/* The items of seq[0..nv) at their slots' offsets, above the pins. */
static void lay_out(mp_ctx *c, const slots *S, const int *seq, int nv, const int *slot_of) {
  int64_t *start = mp_xmalloc(sizeof(int64_t) * (size_t)(S->n ? S->n : 1));
  stack_slots(S, mp_interfere_pinned_base(c->prob, c->offsets), start);
  for (int k = 0; k < nv; k++) c->offsets[seq[k]] = start[slot_of[k]];
  mp_pack_degenerate(c->prob, c->offsets);
  free(start);
}

static int bybreadth_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  double cut = c->deadline, least = mp_now() + c->opt[OPT_slack];
  if (cut > 0 && cut < least) cut = least;
  size_t nz = (size_t)(p->n ? p->n : 1);
  int *vid = mp_xmalloc(sizeof(int) * nz), *seq = mp_xmalloc(sizeof(int) * nz);
  int *item = mp_xmalloc(sizeof(int) * nz), *slot_of = mp_xmalloc(sizeof(int) * nz);
  int nv = mp_interfere_vertices(p, vid, item);
  breadth_sequence(p, item, nv, seq);
  slots S;
  slots_init(&S, nv);
  int rc = assign_all(c, cut, &S, seq, nv, slot_of);
  if (rc == 0) {
    lay_out(c, &S, seq, nv, slot_of);
    c->status = MP_FEASIBLE;
    snprintf(c->msg, sizeof c->msg, "%d buffers in %d slots (%lld steps of the slot search)", nv, S.n,
             (long long)S.steps);
  } else if (rc == 1) { /* a plan all the same, as bysize keeps one */
    mp_seq_by_birth(p, seq);
    mp_pack(p, seq, p->n, MP_FIRST_FIT, c->offsets);
    strncat(c->msg, "; the plan is birth-order first fit", sizeof c->msg - strlen(c->msg) - 1);
    rc = 0;
  }
  slots_destroy(&S);
  free(vid);
  free(seq);
  free(item);
  free(slot_of);
  return rc;
}

const mp_solver solver_bybreadth = {
    .name = "bybreadth",
    .summary = "greedy by breadth (TFLite GPU): operators by live bytes, their buffers into slots",
    .decides = MP_DECIDES_OFFSETS,
    .options = MP_OPTIONS(bybreadth_options),
    .solve = bybreadth_solve,
};
