/* sweep.c - see sweep.h. */
#include <stdlib.h>
#include <string.h>

#include "lib/sweep.h"

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* sorted distinct values of v[0..n) in place; returns their count */
static int unique_sorted(int64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_i64);
  int u = 0;
  for (int k = 0; k < n; k++)
    if (u == 0 || v[k] != v[u - 1]) v[u++] = v[k];
  return u;
}

static int64_t rank_of(const int64_t *t, int u, int64_t x) {
  const int64_t *q = bsearch(&x, t, (size_t)u, sizeof *t, cmp_i64);
  return (int64_t)(q - t);
}

/* Ranks r of the real ends; with K = 1 + the most empty lifetimes at one
 * time, a real [lo, hi) becomes [K r(lo) + K - 1, K r(hi)) and the j-th
 * empty lifetime at t becomes [K r(t) + j, K r(t) + j + 1): two real ones
 * meet iff r(lo_a) < r(hi_b) and r(lo_b) < r(hi_a) as before; an empty one
 * at t meets a real one iff r(lo) < r(t) < r(hi); empty ones never meet. */
void mp_sweep_times(const mp_problem *p, const int *members, int m, int64_t *vlo, int64_t *vhi) {
  int64_t *t = mp_xmalloc(sizeof(int64_t) * (size_t)(2 * m + 1));
  for (int k = 0; k < m; k++) {
    t[2 * k] = p->items[members[k]].lo;
    t[2 * k + 1] = p->items[members[k]].hi;
  }
  int u = unique_sorted(t, 2 * m);
  int *empties = mp_xcalloc((size_t)u + 1, sizeof(int));
  int most = 0;
  for (int k = 0; k < m; k++) {
    const mp_item *it = &p->items[members[k]];
    if (it->hi > it->lo) continue;
    int r = (int)rank_of(t, u, it->lo);
    if (++empties[r] > most) most = empties[r];
  }
  int64_t K = (int64_t)most + 1;
  memset(empties, 0, sizeof(int) * ((size_t)u + 1));
  for (int k = 0; k < m; k++) {
    const mp_item *it = &p->items[members[k]];
    int64_t rl = rank_of(t, u, it->lo);
    if (it->hi > it->lo) {
      vlo[k] = K * rl + K - 1;
      vhi[k] = K * rank_of(t, u, it->hi);
    } else {
      vlo[k] = K * rl + empties[rl]++;
      vhi[k] = vlo[k] + 1;
    }
  }
  free(empties);
  free(t);
}

typedef struct part_ctx {
  const int *members;
  const int64_t *vlo;
} part_ctx;

static int cmp_start(const void *a, const void *b, void *arg) {
  const part_ctx *pc = arg;
  int x = *(const int *)a, y = *(const int *)b;
  if (pc->vlo[x] != pc->vlo[y]) return pc->vlo[x] < pc->vlo[y] ? -1 : 1;
  return (pc->members[x] > pc->members[y]) - (pc->members[x] < pc->members[y]);
}

int mp_sweep_parts(int *members, int64_t *vlo, int64_t *vhi, int m, bool split, int *starts) {
  size_t mz = (size_t)(m ? m : 1);
  int *idx = mp_xmalloc(sizeof(int) * mz);
  for (int k = 0; k < m; k++) idx[k] = k;
  part_ctx pc = {members, vlo};
  qsort_r(idx, (size_t)m, sizeof *idx, cmp_start, &pc);
  int *mem = mp_xmalloc(sizeof(int) * mz);
  int64_t *lo = mp_xmalloc(sizeof(int64_t) * mz), *hi = mp_xmalloc(sizeof(int64_t) * mz);
  for (int k = 0; k < m; k++) {
    mem[k] = members[idx[k]];
    lo[k] = vlo[idx[k]];
    hi[k] = vhi[idx[k]];
  }
  memcpy(members, mem, sizeof(int) * (size_t)m);
  memcpy(vlo, lo, sizeof(int64_t) * (size_t)m);
  memcpy(vhi, hi, sizeof(int64_t) * (size_t)m);
  free(idx);
  free(mem);
  free(lo);
  free(hi);
  int np = 0;
  int64_t reach = INT64_MIN;
  for (int k = 0; k < m; k++) {
    if (k == 0 || (split && vlo[k] >= reach)) starts[np++] = k;
    if (vhi[k] > reach) reach = vhi[k];
  }
  starts[np] = m;
  return np;
}

void mp_sections_init(mp_sections *S, const int64_t *lo, const int64_t *hi, int m) {
  memset(S, 0, sizeof *S);
  S->t = mp_xmalloc(sizeof(int64_t) * (size_t)(2 * m + 2));
  for (int k = 0; k < m; k++) {
    S->t[2 * k] = lo[k];
    S->t[2 * k + 1] = hi[k];
  }
  int u = unique_sorted(S->t, 2 * m);
  if (u < 2) { /* no interval: one empty section */
    S->t[0] = u ? S->t[0] : 0;
    S->t[1] = S->t[0] + 1;
    u = 2;
  }
  S->ns = u - 1;
  S->s0 = mp_xmalloc(sizeof(int) * (size_t)(m ? m : 1));
  S->s1 = mp_xmalloc(sizeof(int) * (size_t)(m ? m : 1));
  for (int k = 0; k < m; k++) {
    S->s0[k] = (int)rank_of(S->t, u, lo[k]);
    S->s1[k] = (int)rank_of(S->t, u, hi[k]);
  }
}

void mp_sections_destroy(mp_sections *S) {
  free(S->t);
  free(S->s0);
  free(S->s1);
  memset(S, 0, sizeof *S);
}

/* ---- the placement lower bound ---- */

static int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  return mp_add_ok(a, b, &r) ? r : INT64_MAX;
}

/* the alignment bound's candidate for item it topmost in a section of L
 * bytes: -1 when it cannot be topmost, INT64_MAX when it saturates */
static int64_t top_candidate(const mp_item *it, int64_t L) {
  if (it->fixed >= 0) {
    int64_t top = sat_add(it->fixed, it->size);
    return top >= L ? top : -1;
  }
  int64_t at;
  if (!mp_align_up_ok(L - it->size, it->align < 1 ? 1 : it->align, &at)) return INT64_MAX;
  return sat_add(at, it->size);
}

/* The alignment bound over the sections that can raise `best` (L > best -
 * maxal + 1: near the peak, usually few), each item visiting only those
 * within its sections: O(m + sections + their items), not the sum of the
 * lifetimes (quadratic on a training graph: 170 s at 10^6). */
static int64_t alignment_bound(const mp_problem *p, const int *mem, int m, const mp_sections *S,
                               const int64_t *L, int64_t best, int64_t maxal) {
  /* hot[h]: the h-th such section; first[s]: the first h with hot[h] >= s */
  int *hot = mp_xmalloc(sizeof(int) * (size_t)S->ns), *first = mp_xmalloc(sizeof(int) * (size_t)(S->ns + 1));
  int nh = 0;
  for (int s = 0; s < S->ns; s++) {
    first[s] = nh;
    if (L[s] > best - maxal + 1) hot[nh++] = s;
  }
  first[S->ns] = nh;
  int64_t *low = mp_xmalloc(sizeof(int64_t) * (size_t)(nh ? nh : 1));
  for (int h = 0; h < nh; h++) low[h] = -1; /* no candidate yet */
  for (int k = 0; k < m; k++)
    for (int h = first[S->s0[k]]; h < first[S->s1[k]]; h++) {
      int64_t cand = top_candidate(&p->items[mem[k]], L[hot[h]]);
      if (cand >= 0 && (low[h] < 0 || cand < low[h])) low[h] = cand;
    }
  for (int h = 0; h < nh; h++)
    if (low[h] > best) best = low[h];
  free(hot);
  free(first);
  free(low);
  return best;
}

int64_t mp_place_lower_bound(const mp_problem *p) {
  int n = p->n, m = 0;
  int64_t best = 0, maxal = 1;
  int *mem = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    const mp_item *it = &p->items[i];
    if (it->fixed >= 0) { /* its top is in the arena even with no bytes (mp_arena) */
      int64_t top = sat_add(it->fixed, it->size);
      if (top > best) best = top;
    }
    if (it->size <= 0) continue;
    mem[m++] = i;
    if (it->size > best) best = it->size;
    if (it->fixed < 0 && it->align > maxal) maxal = it->align;
  }
  int64_t *vlo = mp_xmalloc(sizeof(int64_t) * (size_t)(m ? m : 1));
  int64_t *vhi = mp_xmalloc(sizeof(int64_t) * (size_t)(m ? m : 1));
  mp_sweep_times(p, mem, m, vlo, vhi);
  mp_sections S;
  mp_sections_init(&S, vlo, vhi, m);
  /* bytes per section, by a difference array (128-bit: a section holding
   * more than INT64_MAX bytes saturates the bound, nothing wraps) */
  __int128 *D = mp_xcalloc((size_t)S.ns + 1, sizeof(__int128));
  for (int k = 0; k < m; k++) {
    D[S.s0[k]] += p->items[mem[k]].size;
    D[S.s1[k]] -= p->items[mem[k]].size;
  }
  int64_t *L = mp_xmalloc(sizeof(int64_t) * (size_t)S.ns);
  __int128 run = 0;
  for (int s = 0; s < S.ns; s++) {
    run += D[s];
    L[s] = run > (__int128)INT64_MAX ? INT64_MAX : (int64_t)run;
    if (L[s] > best) best = L[s];
  }
  free(D);
  /* the alignment bound: an unpinned candidate is at most L + maxal - 1
   * and a pinned one at most its top (already in best), so only sections
   * with L + maxal - 1 > best can raise it */
  if (maxal > 1 && best < INT64_MAX) best = alignment_bound(p, mem, m, &S, L, best, maxal);
  free(L);
  mp_sections_destroy(&S);
  free(vlo);
  free(vhi);
  free(mem);
  return best;
}
