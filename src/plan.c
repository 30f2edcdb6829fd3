/* plan.c - the verifier and the evaluator.  Independent of every solver:
 * they look only at the problem and the offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "util.h"

static const char *const status_names[MP_N_STATUS] = {
    "optimal", "feasible", "infeasible", "timeout", "error", "refused", "fixed"};

const char *mp_status_name(mp_status s) {
  return (unsigned)s < MP_N_STATUS ? status_names[s] : "error";
}

int mp_status_parse(const char *s, mp_status *out) {
  for (int i = 0; i < MP_N_STATUS; i++)
    if (strcmp(s, status_names[i]) == 0) {
      *out = (mp_status)i;
      return 0;
    }
  return -1;
}

static void item_name(const mp_problem *p, int i, char *buf, size_t cap) {
  if (p->g)
    mp_buffer_key(p->g, i, buf, cap);
  else if (p->ids && p->ids[i])
    snprintf(buf, cap, "%s", p->ids[i]);
  else
    snprintf(buf, cap, "#%d", i);
}

typedef struct by_lo {
  int64_t lo;
  int i;
} by_lo;

static int cmp_by_lo(const void *a, const void *b) {
  const by_lo *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

static bool overlap(const mp_problem *p, const int64_t *off, int i, int j) {
  return off[i] < off[j] + p->items[j].size && off[j] < off[i] + p->items[i].size;
}

/* The direct search: sort by start, scan forward while the next start is
 * before this end.  It names the first overlapping pair in that order, the
 * one every message has named; the sweep below only says whether there is
 * one.  -1, or 0 with the pair in *a, *b. */
static int first_overlap(const mp_problem *p, const int64_t *off, int *a, int *b) {
  by_lo *s = mp_xmalloc(sizeof(by_lo) * (size_t)(p->n ? p->n : 1));
  int m = 0, rc = -1;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].size > 0) s[m++] = (by_lo){p->items[i].lo, i};
  qsort(s, (size_t)m, sizeof *s, cmp_by_lo);
  for (int x = 0; x < m && rc < 0; x++) {
    const mp_item *ix = &p->items[s[x].i];
    for (int y = x + 1; y < m && s[y].lo < ix->hi; y++) {
      const mp_item *iy = &p->items[s[y].i];
      if (ix->lo < iy->hi && iy->lo < ix->hi && overlap(p, off, s[x].i, s[y].i)) {
        *a = s[x].i;
        *b = s[y].i;
        rc = 0;
        break;
      }
    }
  }
  free(s);
  return rc;
}

/* A set of ranks 0..n-1 as a 64-ary tree of bit words: insert, erase, the
 * next member below or above a rank, each O(log64 n). */
typedef struct rank_set {
  int levels;
  uint64_t *w[12]; /* w[0] the ranks, w[k + 1] the non-empty words of w[k] */
} rank_set;

static void rs_init(rank_set *r, int n) {
  size_t len = (size_t)(n ? n : 1);
  r->levels = 0;
  do {
    len = (len + 63) / 64;
    r->w[r->levels++] = mp_xcalloc(len, sizeof(uint64_t));
  } while (len > 1);
}

static void rs_destroy(rank_set *r) {
  for (int k = 0; k < r->levels; k++) free(r->w[k]);
}

static void rs_set(rank_set *r, int x, bool on) {
  for (int k = 0; k < r->levels; k++, x >>= 6) {
    uint64_t *word = &r->w[k][x >> 6], bit = 1ull << (x & 63);
    bool was_empty = *word == 0;
    *word = on ? *word | bit : *word & ~bit;
    if (on ? !was_empty : *word != 0) break; /* the levels above do not change */
  }
}

/* The largest member < x, or -1. */
static int rs_below(const rank_set *r, int x) {
  int k = 0;
  for (; k < r->levels; k++, x >>= 6) {
    uint64_t m = r->w[k][x >> 6] & ((1ull << (x & 63)) - 1);
    if (m) {
      x = (x & ~63) | (63 - __builtin_clzll(m));
      break;
    }
  }
  if (k == r->levels) return -1;
  for (; k > 0; k--) x = x * 64 + 63 - __builtin_clzll(r->w[k - 1][x]);
  return x;
}

/* The smallest member > x, or -1. */
static int rs_above(const rank_set *r, int x) {
  int k = 0;
  for (; k < r->levels; k++, x >>= 6) {
    uint64_t m = (x & 63) == 63 ? 0 : r->w[k][x >> 6] & (~0ull << ((x & 63) + 1));
    if (m) {
      x = (x & ~63) | __builtin_ctzll(m);
      break;
    }
  }
  if (k == r->levels) return -1;
  for (; k > 0; k--) x = x * 64 + __builtin_ctzll(r->w[k - 1][x]);
  return x;
}

typedef struct event {
  int64_t t;
  int kind; /* at equal times: 0 an end, 1 an empty lifetime's check, 2 a start */
  int i;
} event;

/* The sweep's events in order of (time, kind, buffer): kind[k] and the
 * buffer's rank r[k] of the k-th. */
typedef struct event_seq {
  uint64_t *key; /* (time - first time) * 4 + kind, or the kind alone */
  uint32_t *r;
  int n;
} event_seq;

static void put_event(event_seq *s, uint64_t key, int r) {
  s->key[s->n] = key;
  s->r[s->n++] = (uint32_t)r;
}

/* Each sized buffer's events (its start and end, or one check when its
 * lifetime is empty), in buffer order, keyed (time - t0) * 4 + kind (in
 * unsigned arithmetic: the key is only used when the times span less than
 * 2^61 from t0, their least). */
static void make_events(const mp_problem *p, const int *rank, int64_t t0, event_seq *s) {
  s->n = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->size <= 0) continue;
    uint64_t lo = ((uint64_t)it->lo - (uint64_t)t0) << 2, hi = ((uint64_t)it->hi - (uint64_t)t0) << 2;
    if (it->lo == it->hi) {
      put_event(s, lo | 1, rank[i]);
    } else {
      put_event(s, lo | 2, rank[i]);
      put_event(s, hi, rank[i]);
    }
  }
}

/* The events of times spanning 2^61 or more (never a graph's steps): as
 * records, stable sorts by kind, then by time. */
static uint64_t event_key(const void *rec, int pass) {
  const event *e = rec;
  return pass == 0 ? (uint64_t)e->kind : mp_radix_key(e->t);
}

static void sort_wide_events(const mp_problem *p, const int *by_off, event_seq *s) {
  event *ev = mp_xmalloc(sizeof(event) * ((size_t)s->n ? (size_t)s->n : 1));
  for (int k = 0; k < s->n; k++) { /* make_events' events, their times again */
    int kind = (int)(s->key[k] & 3), r = (int)s->r[k];
    const mp_item *it = &p->items[by_off[r]];
    ev[k] = (event){kind == 0 ? it->hi : it->lo, kind, r};
  }
  mp_radix_sort_records(ev, sizeof *ev, (size_t)s->n, 2, event_key);
  for (int k = 0; k < s->n; k++) s->key[k] = (uint64_t)ev[k].kind, s->r[k] = (uint32_t)ev[k].i;
  free(ev);
}

/* The events sorted: one stable radix sort of the keys, carrying the ranks,
 * when the times span less than 2^61 (always for a graph's steps; no event
 * records to gather after the sort), else sort_wide_events. */
static void sort_events(const mp_problem *p, const int *rank, const int *by_off, event_seq *s) {
  int64_t tmin = INT64_MAX, tmax = INT64_MIN;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->size <= 0) continue;
    tmin = it->lo < tmin ? it->lo : tmin; /* lo <= hi: the sweep sees no inverted lifetime */
    tmax = it->hi > tmax ? it->hi : tmax;
  }
  make_events(p, rank, tmin, s);
  if (s->n < 2) return;
  if ((uint64_t)tmax - (uint64_t)tmin < (uint64_t)1 << 61) mp_radix_sort(s->key, s->r, (size_t)s->n);
  else sort_wide_events(p, by_off, s);
}

/* by_off[0..m) (buffer indices, ascending) sorted by (offset, index), the
 * offsets checked non-negative. */
static void sort_by_offset(int *by_off, int m, const int64_t *off) {
  size_t nz = (size_t)(m ? m : 1);
  uint64_t *key = mp_xmalloc(sizeof(uint64_t) * nz);
  uint32_t *idx = mp_xmalloc(sizeof(uint32_t) * nz);
  for (int k = 0; k < m; k++) key[k] = mp_radix_key(off[by_off[k]]), idx[k] = (uint32_t)by_off[k];
  mp_radix_sort(key, idx, (size_t)m);
  for (int k = 0; k < m; k++) by_off[k] = (int)idx[k];
  free(key);
  free(idx);
}

typedef struct addr_range {
  int64_t beg, end;
} addr_range;

/* Whether two buffers live together overlap, in O(n log n): a sweep over
 * lifetime events keeps the live buffers in address order (ranks by
 * offset); they never overlap, so a newcomer need only be compared with its
 * two neighbours.  An empty lifetime [t, t) is checked after the ends at t
 * and before the starts at t: it meets exactly the buffers live across t. */
static bool any_overlap(const mp_problem *p, const int64_t *off, int *a, int *b) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  int *by_off = mp_xmalloc(sizeof(int) * nz), *rank = mp_xmalloc(sizeof(int) * nz), m = 0;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].size > 0) by_off[m++] = i;
  sort_by_offset(by_off, m, off);
  /* the sweep reads each buffer's addresses at its rank: a neighbour in
   * address order is then near in memory too, and both ends in one line */
  addr_range *at = mp_xmalloc(sizeof(addr_range) * nz);
  for (int k = 0; k < m; k++) {
    rank[by_off[k]] = k;
    at[k].beg = off[by_off[k]];
    at[k].end = at[k].beg + p->items[by_off[k]].size;
  }
  event_seq ev = {mp_xmalloc(sizeof(uint64_t) * 2 * nz), mp_xmalloc(sizeof(uint32_t) * 2 * nz), 0};
  sort_events(p, rank, by_off, &ev);
  rank_set live;
  rs_init(&live, m);
  bool found = false;
  for (int k = 0; k < ev.n && !found; k++) {
    int r = (int)ev.r[k], kind = (int)(ev.key[k] & 3);
    if (kind == 0) {
      rs_set(&live, r, false);
      continue;
    }
    int lo = rs_below(&live, r), hi = rs_above(&live, r);
    if (lo >= 0 && at[r].beg < at[lo].end && at[lo].beg < at[r].end) found = true, *b = by_off[lo];
    else if (hi >= 0 && at[r].beg < at[hi].end && at[hi].beg < at[r].end) found = true, *b = by_off[hi];
    if (found) *a = by_off[r]; /* only then: by_off[r] is a miss per event at 10^6 */
    if (kind == 2) rs_set(&live, r, true);
  }
  rs_destroy(&live);
  free(ev.key);
  free(ev.r);
  free(at);
  free(by_off);
  free(rank);
  return found;
}

/* The per-buffer checks; a buffer's name is formatted only for a message
 * (a name per buffer cost 10^6 snprintf calls on every verify). */
static int verify_each(const mp_problem *p, const int64_t *off, bool *inverted, mp_error *err) {
  char a[64];
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    int64_t al = it->align < 1 ? 1 : it->align;
    bool neg = off[i] < 0, range = !neg && (off[i] > MP_MAX_ARENA || it->size > MP_MAX_ARENA - off[i]);
    bool misaligned = !neg && !range && off[i] % al != 0;
    bool moved = !neg && !range && !misaligned && it->fixed >= 0 && off[i] != it->fixed;
    if (neg || range || misaligned || moved) item_name(p, i, a, sizeof a);
    if (neg) return mp_errorf(err, "buffer %s: no offset (or negative offset %lld)", a, (long long)off[i]);
    /* an end beyond 2^62 could overflow the sums below */
    if (range)
      return mp_errorf(err, "buffer %s: offset %lld is out of range (offset + size at most 2^62)",
                       a, (long long)off[i]);
    if (misaligned)
      return mp_errorf(err, "buffer %s: offset %lld is not a multiple of its alignment %lld", a,
                       (long long)off[i], (long long)al);
    if (moved)
      return mp_errorf(err, "buffer %s: pinned at %lld but placed at %lld", a, (long long)it->fixed,
                       (long long)off[i]);
    *inverted |= it->size > 0 && it->hi < it->lo;
  }
  return 0;
}

int mp_verify_offsets(const mp_problem *p, const int64_t *off, mp_error *err) {
  char a[64], b[64];
  bool inverted = false;
  if (verify_each(p, off, &inverted, err)) return -1;
  /* pairs with intersecting lifetimes, by the literal test of DESIGN 1.4
   * (a.lo < b.hi && b.lo < a.hi): an empty lifetime [t, t) still conflicts
   * with a buffer live strictly across t.  The sweep does not model an
   * inverted lifetime (hi < lo); the direct search handles anything, and
   * names the pair when the sweep found one. */
  int i = -1, j = -1;
  bool bad = inverted ? first_overlap(p, off, &i, &j) == 0 : any_overlap(p, off, &i, &j);
  if (bad && !inverted) first_overlap(p, off, &i, &j);
  if (bad) {
    const mp_item *ix = &p->items[i], *iy = &p->items[j];
    item_name(p, i, a, sizeof a);
    item_name(p, j, b, sizeof b);
    return mp_errorf(err,
                     "buffers %s [%lld, %lld) at [%lld, %lld) and %s [%lld, %lld) at "
                     "[%lld, %lld) are live together and overlap in memory",
                     a, (long long)ix->lo, (long long)ix->hi, (long long)off[i],
                     (long long)(off[i] + ix->size), b, (long long)iy->lo, (long long)iy->hi,
                     (long long)off[j], (long long)(off[j] + iy->size));
  }
  return 0;
}

/* DESIGN 1.3: max over buffers of (offset + size), a buffer of size 0
 * included (the placers put such a buffer at 0 unless it is pinned). */
int64_t mp_arena(const mp_problem *p, const int64_t *off) {
  int64_t arena = 0;
  for (int i = 0; i < p->n; i++)
    if (off[i] + p->items[i].size > arena) arena = off[i] + p->items[i].size;
  return arena;
}

void mp_evaluate(const mp_problem *p, const int64_t *off, int64_t lower_bound,
                 int64_t given_arena, mp_figures *f) {
  mp_evaluate_at(p, off, mp_live_peak(p), lower_bound, given_arena, f);
}

void mp_evaluate_at(const mp_problem *p, const int64_t *off, int64_t live_peak,
                    int64_t lower_bound, int64_t given_arena, mp_figures *f) {
  memset(f, 0, sizeof *f);
  f->live_peak = live_peak;
  f->arena = mp_arena(p, off);
  f->sum_sizes = mp_sum_sizes(p);
  f->lower_bound = lower_bound;
  f->given_arena = given_arena;
  f->profile_std = mp_profile_std(p);
  if (f->arena > 0) {
    f->fragmentation = (double)(f->arena - f->live_peak) / (double)f->arena;
    f->reuse_ratio = (double)f->sum_sizes / (double)f->arena;
  }
  if (f->sum_sizes > 0) f->reduction_vs_noreuse = 1.0 - (double)f->arena / (double)f->sum_sizes;
  if (given_arena > 0) f->reduction_vs_given = 1.0 - (double)f->arena / (double)given_arena;
}
