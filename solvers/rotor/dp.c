/* dp.c - rotor's dynamic program on the chain (rotor.h) and the schedule
 * it yields.
 *
 * M(s, t, h): the least cost of the forward runs that bring the backward
 * through stages t, t-1, .., s, given that the input frontier a[s-1] is
 * resident and the enclosing schedule holds h slots (a[s-1] included).
 * Either
 *   F_all: run stage s keeping everything its backward reads, solve
 *          (s+1, t) holding that too, then backward s; or
 *   checkpoint: keep a[s-1], run stages s .. s'-1 keeping only their
 *          frontier, solve (s', t) holding a[s'-1] too, then solve
 *          (s, s'-1) again from a[s-1].
 * A step fits when h plus what it needs stays under budget - background at
 * its time: the forward runs of (s, L) are the first forward pass, stage k
 * at its own place (capS[k]); those of (s, t < L) are reruns just before
 * backward group t (capF[t]); backward s runs during group s (capB[s]:
 * the group's need, what it reads included, is known in bytes).  Sizes are rounded up and
 * capacities down, so the table never accepts a step the chain's account
 * rejects.  O(L^3 x slots) time, O(L^2 x slots) memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rotor/rotor.h"

static int slots_up(int64_t bytes, int64_t slot) { return (int)((bytes + slot - 1) / slot); }

static int slots_down(int64_t bytes, int64_t slot, int S) {
  if (bytes < 0) return -1;
  int64_t x = bytes / slot;
  return x > S ? S : (int)x;
}

static double *cell(const rt_dp *d, int s, int t) {
  return d->val + (size_t)(d->row[s] + t - s) * (size_t)(d->S + 1);
}

static double fsum(const rt_dp *d, int s, int t) { return d->F[t] - d->F[s - 1]; } /* f[s..t] */

/* The room for a forward run of stage k within (s, t). */
static int cap_for(const rt_dp *d, int k, int t) { return t == d->L ? d->capS[k] : d->capF[t]; }

/* F_all of stage s within (s, t): the largest h it allows (or -1). */
static int all_limit(const rt_dp *d, int s, int t) {
  int fwd = cap_for(d, s, t) - d->P[s] - d->SV[s], bwd = d->capB[s];
  return fwd < bwd ? fwd : bwd;
}

static double c_all(const rt_dp *d, int s, int t, int h) {
  if (h > all_limit(d, s, t)) return INFINITY;
  if (s == t) return fsum(d, s, s);
  int sub = h + d->SV[s] + d->A[s];
  return sub > d->S ? INFINITY : fsum(d, s, s) + cell(d, s + 1, t)[sub];
}

/* The sweep of stages s .. s2-1 keeping a[s-1] (in h): the largest h it
 * allows, updated as s2 grows. */
static int sweep_next(const rt_dp *d, int s, int s2, int t, int prev) {
  int k = s2 - 1, lim = cap_for(d, k, t) - (k > s ? d->A[k - 1] : 0) - d->P[k];
  return lim < prev ? lim : prev;
}

static double c_ckpt(const rt_dp *d, int s, int t, int s2, int h, int sweep) {
  int sub = h + d->A[s2 - 1];
  if (h > sweep || sub > d->S) return INFINITY;
  return fsum(d, s, s2 - 1) + cell(d, s2, t)[sub] + cell(d, s, s2 - 1)[h];
}

static void fill_cell(rt_dp *d, int s, int t) {
  double *v = cell(d, s, t);
  for (int h = 0; h <= d->S; h++) v[h] = c_all(d, s, t, h);
  int sweep = d->S;
  for (int s2 = s + 1; s2 <= t; s2++) {
    sweep = sweep_next(d, s, s2, t, sweep);
    int a = d->A[s2 - 1], top = sweep;
    if (top > d->S - a) top = d->S - a;
    const double *x = cell(d, s2, t) + a, *y = cell(d, s, s2 - 1);
    double fs = fsum(d, s, s2 - 1);
    for (int h = 0; h <= top; h++) { /* a tight loop: the DP's inner work */
      double c = fs + x[h] + y[h];
      v[h] = c < v[h] ? c : v[h];
    }
  }
}

static void sizes(rt_dp *d, const rt_chain *ch, int64_t budget) {
  int L = d->L;
  d->A = mp_xcalloc((size_t)L + 2, sizeof(int));
  d->SV = mp_xcalloc((size_t)L + 2, sizeof(int));
  d->P = mp_xcalloc((size_t)L + 2, sizeof(int));
  d->AB = mp_xcalloc((size_t)L + 2, sizeof(int));
  d->capS = mp_xcalloc((size_t)L + 2, sizeof(int));
  d->capF = mp_xcalloc((size_t)L + 2, sizeof(int));
  d->capB = mp_xcalloc((size_t)L + 2, sizeof(int));
  d->F = mp_xcalloc((size_t)L + 2, sizeof(double));
  for (int k = 0; k <= L; k++) {
    d->A[k] = slots_up(ch->a[k], d->slot);
    d->SV[k] = slots_up(ch->sv[k], d->slot);
    d->P[k] = slots_up(ch->pk[k], d->slot);
    d->AB[k] = slots_up(ch->ab[k], d->slot);
    if (k > 0) {
      d->F[k] = d->F[k - 1] + ch->f[k];
      d->capS[k] = slots_down(budget - ch->bgS[k], d->slot, d->S);
      d->capF[k] = slots_down(budget - ch->bgF[k], d->slot, d->S);
      d->capB[k] = slots_down(budget - ch->bneed[k], d->slot, d->S);
    }
  }
}

int rt_dp_init(rt_dp *d, const rt_chain *ch, int64_t budget, int slots, double deadline) {
  memset(d, 0, sizeof *d);
  int L = d->L = ch->L;
  d->ch = ch;
  d->S = slots;
  d->slot = budget / slots + 1;
  sizes(d, ch, budget);
  d->row = mp_xcalloc((size_t)L + 2, sizeof(int));
  for (int s = 1, r = 0; s <= L; s++) d->row[s] = r, r += L - s + 1;
  size_t cells = (size_t)L * (size_t)(L + 1) / 2;
  d->val = mp_xmalloc(sizeof(double) * (cells ? cells : 1) * (size_t)(slots + 1));
  for (int len = 0; len < L; len++) {
    if (deadline > 0 && mp_now() >= deadline) return -1;
    for (int s = 1; s + len <= L; s++) fill_cell(d, s, s + len);
  }
  return 0;
}

void rt_dp_destroy(rt_dp *d) {
  free(d->A);
  free(d->SV);
  free(d->P);
  free(d->AB);
  free(d->capS);
  free(d->capF);
  free(d->capB);
  free(d->F);
  free(d->val);
  free(d->row);
  memset(d, 0, sizeof *d);
}

double rt_dp_value(const rt_dp *d) { return d->L == 0 ? 0 : cell(d, 1, d->L)[0]; }

static void put(rt_op **ops, int *n, int *cap, char op, int k) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    *ops = mp_xrealloc(*ops, sizeof(rt_op) * (size_t)*cap);
  }
  (*ops)[(*n)++] = (rt_op){op, k};
}

/* The schedule of M(s, t, h): the choice that attains the table's value
 * (F_all on ties, then the nearest s'); the same arithmetic as the fill,
 * so the comparison is exact. */
static void emit(const rt_dp *d, int s, int t, int h, rt_op **ops, int *n, int *cap) {
  double want = cell(d, s, t)[h];
  if (c_all(d, s, t, h) == want) {
    put(ops, n, cap, 'A', s);
    if (s < t) emit(d, s + 1, t, h + d->SV[s] + d->A[s], ops, n, cap);
    put(ops, n, cap, 'r', s); /* what group s does not read goes before it runs */
    put(ops, n, cap, 'B', s);
    put(ops, n, cap, 's', s);
    return;
  }
  int sweep = d->S;
  for (int s2 = s + 1; s2 <= t; s2++) {
    sweep = sweep_next(d, s, s2, t, sweep);
    if (c_ckpt(d, s, t, s2, h, sweep) != want) continue;
    for (int k = s; k < s2; k++) {
      put(ops, n, cap, 'N', k);
      if (k > s) put(ops, n, cap, 'r', k - 1);
    }
    emit(d, s2, t, h + d->A[s2 - 1], ops, n, cap);
    put(ops, n, cap, 'r', s2 - 1);
    emit(d, s, s2 - 1, h, ops, n, cap);
    return;
  }
}

int rt_dp_program(const rt_dp *d, rt_op **ops, int *cap) {
  int n = 0;
  if (d->L > 0 && isfinite(cell(d, 1, d->L)[0])) emit(d, 1, d->L, 0, ops, &n, cap);
  return n;
}
