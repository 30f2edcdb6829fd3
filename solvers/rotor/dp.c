/* dp.c - rotor's dynamic program on the chain (rotor.h) and the schedule
 * it yields.
 *
 * M(s, t, h): the least cost of the forward runs that bring the backward
 * through stages t, t-1, .., s, given that the input frontier a[s-1] is
 * resident and the enclosing schedule holds h slots (a[s-1] included),
 * and keeps holding a[s-1] to the end.  Either
 *   F_all: run stage s keeping everything its backward reads, solve
 *          (s+1, t) holding that too, then backward s; or
 *   checkpoint: keep a[s-1], run stages s .. s'-1 keeping only their
 *          frontier, solve (s', t) holding a[s'-1] too, then solve
 *          (s, s'-1) again from a[s-1].
 * M*(s, t, h): the same when the enclosing schedule lets a[s-1] go once
 * stage s has run (it recomputes from an earlier checkpoint afterwards):
 * only F_all, and a[s-1] is released after it unless backward s reads it.
 * A sub-problem may be of the second kind when its input is released after
 * it anyway: the first sub-problem of a checkpoint, and the one after F_all
 * when backward s does not read a[s].  (The paper's chains always read the
 * input in the backward; here a stage's backward may not, and keeping the
 * input through the rest of the chain would waste it.)
 * A step fits when h plus what it needs stays under budget - background at
 * its time: the forward runs of (s, L) are the first forward pass, stage k
 * at its own place (capS[k]); those of (s, t < L) are reruns just before
 * backward group t (capF[t]); backward s runs during group s (capB[s]:
 * the group's need, what it reads included, is known in bytes).  Sizes
 * are rounded up and capacities down.  O(L^3 x slots) time, O(L^2 x slots)
 * memory. */
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

static double *cell(const rt_dp *d, const double *tab, int s, int t) {
  return (double *)tab + (size_t)(d->row[s] + t - s) * (size_t)(d->S + 1);
}

static double fsum(const rt_dp *d, int s, int t) { return d->F[t] - d->F[s - 1]; } /* f[s..t] */

/* The better of M and (when allowed) M* for (s, t) at h. */
static double sub_best(const rt_dp *d, int s, int t, int h, bool may_release, bool *released) {
  if (h > d->S) return INFINITY;
  double m = cell(d, d->val, s, t)[h], x = may_release ? cell(d, d->valx, s, t)[h] : INFINITY;
  if (released) *released = x < m;
  return x < m ? x : m;
}

/* The room for a forward run of stage k within (s, t). */
static int cap_for(const rt_dp *d, int k, int t) { return t == d->L ? d->capS[k] : d->capF[t]; }

/* F_all of stage s in M (keep_input) or M*: the value at h, or INFINITY. */
static double c_all(const rt_dp *d, int s, int t, int h, bool keep_input, bool *released) {
  if (h + d->P[s] + d->SV[s] > cap_for(d, s, t)) return INFINITY;
  int drop = keep_input || d->keep_in[s] ? 0 : d->A[s - 1];
  if (!keep_input && d->keep_in[s]) return INFINITY; /* M* needs a stage that lets its input go */
  if (h - drop > d->capB[s]) return INFINITY;
  if (s == t) return fsum(d, s, s);
  return fsum(d, s, s) + sub_best(d, s + 1, t, h - drop + d->SV[s] + d->A[s], d->AB[s] == 0, released);
}

/* The sweep of stages s .. s2-1 keeping a[s-1] (in h): the largest h it
 * allows, updated as s2 grows. */
static int sweep_next(const rt_dp *d, int s, int s2, int t, int prev) {
  int k = s2 - 1, lim = cap_for(d, k, t) - (k > s ? d->A[k - 1] : 0) - d->P[k];
  return lim < prev ? lim : prev;
}

static double c_ckpt(const rt_dp *d, int s, int t, int s2, int h, int sweep, bool *released) {
  if (h > sweep) return INFINITY;
  return fsum(d, s, s2 - 1) + sub_best(d, s2, t, h + d->A[s2 - 1], true, released) +
         cell(d, d->val, s, s2 - 1)[h];
}

static void fill_cell(rt_dp *d, int s, int t) {
  double *v = cell(d, d->val, s, t), *vx = cell(d, d->valx, s, t);
  for (int h = 0; h <= d->S; h++) {
    v[h] = c_all(d, s, t, h, true, NULL);
    vx[h] = c_all(d, s, t, h, false, NULL);
  }
  int sweep = d->S;
  double *best = mp_xmalloc(sizeof(double) * (size_t)(d->S + 1));
  for (int s2 = s + 1; s2 <= t; s2++) {
    sweep = sweep_next(d, s, s2, t, sweep);
    int a = d->A[s2 - 1], top = sweep;
    if (top > d->S - a) top = d->S - a;
    const double *x = cell(d, d->val, s2, t) + a, *xx = cell(d, d->valx, s2, t) + a;
    const double *y = cell(d, d->val, s, s2 - 1);
    double fs = fsum(d, s, s2 - 1);
    for (int h = 0; h <= top; h++) best[h] = xx[h] < x[h] ? xx[h] : x[h];
    for (int h = 0; h <= top; h++) { /* the DP's inner loop */
      double c = fs + best[h] + y[h];
      v[h] = c < v[h] ? c : v[h];
    }
  }
  free(best);
}

static void sizes(rt_dp *d, const rt_chain *ch, int64_t budget) {
  int L = d->L;
  size_t n = (size_t)L + 2;
  d->A = mp_xcalloc(n, sizeof(int));
  d->SV = mp_xcalloc(n, sizeof(int));
  d->P = mp_xcalloc(n, sizeof(int));
  d->AB = mp_xcalloc(n, sizeof(int));
  d->keep_in = mp_xcalloc(n, sizeof(bool));
  d->capS = mp_xcalloc(n, sizeof(int));
  d->capF = mp_xcalloc(n, sizeof(int));
  d->capB = mp_xcalloc(n, sizeof(int));
  d->F = mp_xcalloc(n, sizeof(double));
  for (int k = 0; k <= L; k++) {
    d->A[k] = slots_up(ch->a[k], d->slot);
    d->SV[k] = slots_up(ch->sv[k], d->slot);
    d->P[k] = slots_up(ch->pk[k], d->slot);
    d->AB[k] = slots_up(ch->ab[k], d->slot);
    if (k > 0) {
      d->keep_in[k] = ch->ain[k] > 0;
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
  size_t cells = (size_t)L * (size_t)(L + 1) / 2, len = (cells ? cells : 1) * (size_t)(slots + 1);
  d->val = mp_xmalloc(sizeof(double) * len);
  d->valx = mp_xmalloc(sizeof(double) * len);
  for (int n = 0; n < L; n++) {
    if (deadline > 0 && mp_now() >= deadline) return -1;
    for (int s = 1; s + n <= L; s++) fill_cell(d, s, s + n);
  }
  return 0;
}

void rt_dp_destroy(rt_dp *d) {
  free(d->A);
  free(d->SV);
  free(d->P);
  free(d->AB);
  free(d->keep_in);
  free(d->capS);
  free(d->capF);
  free(d->capB);
  free(d->F);
  free(d->val);
  free(d->valx);
  free(d->row);
  memset(d, 0, sizeof *d);
}

double rt_dp_value(const rt_dp *d) { return d->L == 0 ? 0 : cell(d, d->val, 1, d->L)[0]; }

static void put(rt_op **ops, int *n, int *cap, char op, int k) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    *ops = mp_xrealloc(*ops, sizeof(rt_op) * (size_t)*cap);
  }
  (*ops)[(*n)++] = (rt_op){op, k};
}

typedef struct emitter {
  const rt_dp *d;
  rt_op **ops;
  int *n, *cap;
} emitter;

static void emit(emitter *e, int s, int t, int h, bool keep_input);

/* F_all of stage s (in M or M*), the rest of the chain, backward s. */
static void emit_all(emitter *e, int s, int t, int h, bool keep_input) {
  const rt_dp *d = e->d;
  int drop = keep_input || d->keep_in[s] ? 0 : d->A[s - 1];
  put(e->ops, e->n, e->cap, 'A', s);
  if (!keep_input) put(e->ops, e->n, e->cap, 'r', s - 1); /* M*: the input goes */
  bool released = false;
  if (s < t) {
    int sub = h - drop + d->SV[s] + d->A[s];
    sub_best(d, s + 1, t, sub, d->AB[s] == 0, &released);
    emit(e, s + 1, t, sub, !released);
  }
  if (!released) put(e->ops, e->n, e->cap, 'r', s); /* what group s does not read goes first */
  put(e->ops, e->n, e->cap, 'B', s);
  put(e->ops, e->n, e->cap, 's', s);
}

/* The choice that attains the table's value (F_all on ties, then the
 * nearest s'); the same arithmetic as the fill, so equality is exact. */
static void emit(emitter *e, int s, int t, int h, bool keep_input) {
  const rt_dp *d = e->d;
  double want = cell(d, keep_input ? d->val : d->valx, s, t)[h];
  if (!keep_input || c_all(d, s, t, h, true, NULL) == want) {
    emit_all(e, s, t, h, keep_input);
    return;
  }
  int sweep = d->S;
  for (int s2 = s + 1; s2 <= t; s2++) {
    sweep = sweep_next(d, s, s2, t, sweep);
    bool released = false;
    if (c_ckpt(d, s, t, s2, h, sweep, &released) != want) continue;
    for (int k = s; k < s2; k++) {
      put(e->ops, e->n, e->cap, 'N', k);
      if (k > s) put(e->ops, e->n, e->cap, 'r', k - 1);
    }
    emit(e, s2, t, h + d->A[s2 - 1], !released);
    if (!released) put(e->ops, e->n, e->cap, 'r', s2 - 1);
    emit(e, s, s2 - 1, h, true);
    return;
  }
}

int rt_dp_program(const rt_dp *d, rt_op **ops, int *cap) {
  int n = 0;
  emitter e = {d, ops, &n, cap};
  if (d->L > 0 && isfinite(cell(d, d->val, 1, d->L)[0])) emit(&e, 1, d->L, 0, true);
  return n;
}
