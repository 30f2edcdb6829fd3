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

int mp_verify_offsets(const mp_problem *p, const int64_t *off, mp_error *err) {
  char a[64], b[64];
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    item_name(p, i, a, sizeof a);
    if (off[i] < 0) return mp_errorf(err, "buffer %s: no offset (or negative offset %lld)", a, (long long)off[i]);
    /* offsets beyond 2^62 would overflow offset + size below */
    if (off[i] > ((int64_t)1 << 62) || it->size > ((int64_t)1 << 62))
      return mp_errorf(err, "buffer %s: offset %lld is out of range (at most 2^62)", a,
                       (long long)off[i]);
    int64_t al = it->align < 1 ? 1 : it->align;
    if (off[i] % al != 0)
      return mp_errorf(err, "buffer %s: offset %lld is not a multiple of its alignment %lld", a,
                       (long long)off[i], (long long)al);
    if (it->fixed >= 0 && off[i] != it->fixed)
      return mp_errorf(err, "buffer %s: pinned at %lld but placed at %lld", a, (long long)it->fixed,
                       (long long)off[i]);
  }
  /* pairs with intersecting lifetimes, by the literal test of DESIGN 1.4
   * (a.lo < b.hi && b.lo < a.hi): an empty lifetime [t, t) still conflicts
   * with a buffer live strictly across t.  Sort by start, scan forward while
   * the next start is before this end. */
  by_lo *s = mp_xmalloc(sizeof(by_lo) * (size_t)(p->n ? p->n : 1));
  int m = 0;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].size > 0) s[m++] = (by_lo){p->items[i].lo, i};
  qsort(s, (size_t)m, sizeof *s, cmp_by_lo);
  for (int x = 0; x < m; x++) {
    const mp_item *ix = &p->items[s[x].i];
    for (int y = x + 1; y < m && s[y].lo < ix->hi; y++) {
      int i = s[x].i, j = s[y].i;
      const mp_item *iy = &p->items[j];
      if (!(ix->lo < iy->hi && iy->lo < ix->hi)) continue;
      if (off[i] < off[j] + iy->size && off[j] < off[i] + ix->size) {
        item_name(p, i, a, sizeof a);
        item_name(p, j, b, sizeof b);
        free(s);
        return mp_errorf(err,
                         "buffers %s [%lld, %lld) at [%lld, %lld) and %s [%lld, %lld) at "
                         "[%lld, %lld) are live together and overlap in memory",
                         a, (long long)ix->lo, (long long)ix->hi, (long long)off[i],
                         (long long)(off[i] + ix->size), b, (long long)iy->lo,
                         (long long)iy->hi, (long long)off[j], (long long)(off[j] + iy->size));
      }
    }
  }
  free(s);
  return 0;
}

int64_t mp_arena(const mp_problem *p, const int64_t *off) {
  int64_t arena = 0;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].size > 0 && off[i] + p->items[i].size > arena) arena = off[i] + p->items[i].size;
  return arena;
}

void mp_evaluate(const mp_problem *p, const int64_t *off, int64_t lower_bound,
                 int64_t given_arena, mp_figures *f) {
  memset(f, 0, sizeof *f);
  f->live_peak = mp_live_peak(p);
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
