/* dp.c - rotor's dynamic program on the chain (rotor.h) and the schedule
 * it yields.
 *
 * V(s, t, h): the least time of the runs that bring the backward through
 * groups t, t-1, .., s, given that X_{s-1} is resident and the enclosing
 * schedule holds h slots, X_{s-1} included.  Variants (RT_V_* bits):
 *   star  the enclosing schedule no longer needs X_{s-1}: it goes after its
 *         last use inside (the paper's input released by its last F);
 *   top   X_t is resident too, kept from the sub-chain above (counted in
 *         h), and released inside;
 *   def   group s runs its head only: its tail (from its first read of
 *         X_{s-1}) is left to the caller, with its carry held (implies
 *         star: the head does not read X_{s-1});
 *   pend  the tail of group t+1 is waiting: it runs right after stage t's
 *         forward, before group t (its carry and the background before it
 *         held meanwhile).
 * Choices, as in Beaumont et al.:
 *   F_all   run stage s keeping X_s and T_s (x-bar^s), solve (s+1, t) with
 *           X_s as its input (kept when group s reads X_s, else released
 *           inside), then group s;
 *   F_ck    run stages s .. s'-1 keeping only their frontier (a sweep, X_{s-1}
 *           kept), solve (s', t) from X_{s'-1}, then (s, s'-1): X_{s'-1}
 *           released inside the first (then recomputed), kept into the
 *           second (top), or released with group s' 's tail deferred into
 *           the second (def, then pend);
 *   top     release X_t and solve the interval as if it were absent;
 *   direct  s = t, stage t has no tape: group t at once when X_t is
 *           resident (top) or not read;
 *   tail    (pend) the sweep s .. t, the waiting tail, then (s, t) with X_t
 *           on top.
 * A step fits when the slots held plus what it needs stay within the
 * budget at its time: the first forward pass (intervals ending at L) runs
 * stage k at its own place (needS); reruns of an interval ending at t < L
 * run just before group t (needR + bgF[t], or + bgT[t+1] + carry[t+1]
 * while a tail waits); groups and tails need gneed, ghead, gtail.  With
 * one byte per slot a schedule that fits the table fits the chain.  A
 * rerun sweep starts after the last frontier with no chain buffer (fix):
 * what lies before it is never needed again.
 * With a host link (bandwidth > 0) two more choices, the offload of
 * Beaumont, Eyraud-Dubois and Shilova (2021): F_ck may copy X_{s-1} out
 * while (s', t) runs and bring it back for (s, s'-1); F_all may copy T_s
 * out while (s+1, t) runs and bring it back for group s.  Memory is
 * counted as the plan counts it (DESIGN 6.3): a buffer copied out is
 * resident until its free, which waits for the copy, and one copied back
 * from its `in`.  So X_{s-1} is copied out during the sweep (which holds
 * it anyway) and freed after it, T_s freed right after its copy out or
 * held through stage s+1's run (checked with it; the plan frees it as soon
 * as its copy has ended), and either is copied back before the
 * sub-interval's last group, which must fit with it.  The copies are
 * priced at copy_weight x their time on the link (the copies of nested
 * intervals share its two streams, so the weight prices that capacity; the
 * driver tries a few and keeps the shortest plan by the plan's own clock),
 * plus the stalls where a copy outlasts the runs it overlaps (of stage s,
 * those after it makes its first tape buffer).
 * O(L^3 x slots) time, O(L^2 x slots) memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rotor/rotor.h"
#include "util.h" /* MP_CLONES_OK */

/* The inner loops are also built for AVX2 where the compiler can pick at
 * run time (the same sums and comparisons, four at a time). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && MP_CLONES_OK
#define RELAX_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define RELAX_CLONES
#endif

enum { HOW_ALL = 0, HOW_TOP = 1, HOW_DIRECT = 2, HOW_TAIL = 3, HOW_CK = 4 };
#define HOW(code, off) ((int32_t)((code) * 4 + (off)))

/* The valid variants (def implies star; pend excludes top), numbered. */
static const int8_t var_index[16] = {0, 1, 2, 3, -1, 4, -1, 5, 6, 7, -1, -1, -1, 8, -1, -1};

/* Sizes and capacities in slots, rounded to the nearest: with one byte per
 * slot (budgets up to the slot count) the table is exact; with more, the
 * errors of the checkpoints held do not all add up the same way, and the
 * driver corrects the budget it hands the program. */
static int slots_of(int64_t bytes, int64_t slot) { return (int)((bytes + slot / 2) / slot); }

static int slots_cap(int64_t bytes, int64_t slot, int S) {
  if (bytes < 0) return -1;
  int64_t x = (bytes + slot / 2) / slot;
  return x > S ? S : (int)x;
}

static bool has_tail(const rt_chain *ch, int k) { return ch->ts[k] < ch->gend[k]; }

/* ---- the slots held: the union of the frontiers held ----
 * X_{s-1} (when held) and X_t (top) are in h; a frontier between them
 * adds its size less what it shares with its neighbours (-1: none). */
static int ov(const rt_dp *d, int i, int j) {
  return i < 0 || j < 0 || i >= j ? 0 : d->OV[i * (d->L + 1) + j];
}

static int ins(const rt_dp *d, int i, int j, int u) {
  return d->A[j] - ov(d, i, j) - ov(d, j, u) + ov(d, i, u);
}

static int up(int var, int t) { return var & RT_V_TOP ? t : -1; }

/* Outside group s: h less X_t (top, released inside) and X_{s-1} (star:
 * counted by the group's need or released). */
static int h_outside(const rt_dp *d, int var, int s, int t, int h) {
  int x = h;
  if (var & RT_V_TOP) x -= d->A[t] - ov(d, s - 1, t);
  if (var & RT_V_STAR) x -= d->A[s - 1];
  return x;
}

/* F_all at s: the slots held after the run (X_{s-1} released first when
 * rel), before the tape (TB[s]) is added. */
static int all_h1(const rt_dp *d, int var, int s, int t, int h, bool rel) {
  if (!rel) return h + ins(d, s - 1, s, up(var, t));
  return h - ins(d, -1, s - 1, up(var, t)) + ins(d, -1, s, up(var, t));
}

/* F_ck at s2 (pass 0 released inside, 1 kept, 2 deferred tail): what the
 * first sub-interval holds more than h (X_{s-1} offloaded when off), and
 * the second. */
static int ck_d1(const rt_dp *d, int var, int s, int t, int s2, bool off) {
  return ins(d, s - 1, s2 - 1, up(var, t)) - (off ? d->A[s - 1] - ov(d, s - 1, s2 - 1) : 0);
}

static int ck_d2(const rt_dp *d, int var, int s, int t, int s2, int pass) {
  int top = var & RT_V_TOP;
  if (pass == 1) return ins(d, s - 1, s2 - 1, up(var, t)) - (top ? d->A[t] - ov(d, s2 - 1, t) : 0);
  return top ? -(d->A[t] - ov(d, s - 1, t)) : 0;
}

/* Is the variant meaningful for (s, t)? */
static bool var_ok(const rt_dp *d, int var, int s, int t) {
  if (var_index[var] < 0) return false;
  if ((var & RT_V_TOP) && t == d->L) return false;
  if ((var & RT_V_DEF) && !has_tail(d->ch, s)) return false;
  if ((var & RT_V_PEND) && (t == d->L || !has_tail(d->ch, t + 1))) return false;
  return true;
}

static size_t at(const rt_dp *d, int var, int s, int t) {
  return (size_t)var_index[var] * d->cells + (size_t)(d->row[s] + t - s);
}

/* A sub-problem's row: the first and last h of its finite values (first >
 * last when none is), and those values (vals(r)[h - r->first]). */
static const rt_ref *ref_of(const rt_dp *d, int var, int s, int t) { return &d->ref[at(d, var, s, t)]; }

static const double *vals(const rt_dp *d, const rt_ref *r) { return d->rows->pool + r->off; }

/* The value of a row at h (INFINITY outside its finite range). */
static double value_at(const rt_dp *d, const rt_ref *r, int h) {
  return h >= r->first && h <= r->last ? vals(d, r)[h - r->first] : INFINITY;
}

/* The value of a sub-problem at h slots (INFINITY beyond the table). */
static double sub(const rt_dp *d, int var, int s, int t, int h) {
  if (!var_ok(d, var, s, t)) return INFINITY;
  return value_at(d, ref_of(d, var, s, t), h);
}

/* The most slots held that a forward run of stage k (mode m) inside an
 * interval ending at t allows (pend: a tail of group t+1 waits). */
static int cap_fwd(const rt_dp *d, int k, int t, int m, bool pend) {
  const rt_chain *ch = d->ch;
  int64_t need = t == d->L ? ch->needS[m][k]
                           : (pend ? ch->bgT[t + 1] + ch->carry[t + 1] : ch->bgF[t]) + ch->needR[m][k];
  return slots_cap(d->budget - need, d->slot, d->S);
}

/* The most slots held outside group s (its head only with def) with which
 * it fits (X_{s-1} counted outside only when the enclosing schedule keeps
 * it: not star). */
static int group_room(const rt_dp *d, int s, int var) {
  if (var & RT_V_DEF) return d->SB - d->GH[s];
  if ((var & RT_V_STAR) && d->ch->kin[s]) return d->SB - d->GX[s];
  int shared = !(var & RT_V_STAR) && d->ch->kx[s] ? ov(d, s - 1, s) : 0; /* X_{s-1} is in h_out */
  return d->SB - d->G[s] + shared;
}

static bool group_fits(const rt_dp *d, int s, int h_out, int var) { return h_out <= group_room(d, s, var); }

/* The time of group s's runs (its head only with def). */
static double group_time(const rt_chain *ch, int s, int var) { return var & RT_V_DEF ? ch->hcost[s] : ch->gcost[s]; }

/* Does the variant release X_{s-1} right after stage s's last run? */
static bool releases_input(const rt_dp *d, int var, int s) {
  return (var & RT_V_STAR) && ((var & RT_V_DEF) || !d->ch->kin[s]);
}

/* The tail of group t+1, right after stage t ran, with h_base slots held
 * besides X_t (which adds xt): X_t stays for group t when it reads it. */
static bool tail_fits(const rt_dp *d, int t, int h_base, int xt) {
  if (d->ch->kx[t]) return h_base + xt + d->GT[t + 1] <= d->SB;
  return h_base + d->GTX[t + 1] <= d->SB;
}

/* The price of an offload of `bytes`: its link time out and back,
 * weighted (the copies of nested intervals share one stream each way; the
 * weight is the driver's Lagrange multiplier on that capacity), and the
 * stalls where a copy outlasts the runs it overlaps: the copy out the runs
 * before its free (out_runs; the free waits for it), the copy back the
 * group it is issued before (in_runs). */
static double offload_cost(const rt_dp *d, int64_t bytes, double out_runs, double in_runs) {
  double c = (double)bytes / d->bandwidth;
  return d->copy_weight * 2.0 * c + fmax(0, c - out_runs) + fmax(0, c - in_runs);
}

/* A sweep of stages lo .. hi (mode 0) inside an interval ending at t: the
 * stages' first runs when t is the last stage (every node runs then,
 * whatever the mode keeps), reruns of what X_k needs otherwise. */
static double sweep_cost(const rt_dp *d, int lo, int hi, int t) {
  const double *fc = t == d->L ? d->FF : d->FC[0];
  return fc[hi] - fc[lo - 1];
}

/* A cell being filled: its values, and its choices when they are wanted
 * (how NULL while the table is filled: the schedule recomputes the
 * choices of the cells it visits, with the same offers in the same order). */
typedef struct cellctx {
  const rt_dp *d;
  int var, s, t;
  double *v;
  int32_t *how;
} cellctx;

static void offer(cellctx *c, int h, double x, int32_t how) {
  if (x < c->v[h]) {
    c->v[h] = x;
    if (c->how) c->how[h] = how;
  }
}

/* F_all at s (with T_s offloaded during (s+1, t) when off: copied out
 * after stage s; copied back before the sub-interval's last group, s+1,
 * which must fit with it).  Its free waits for the copy, so it stalls the
 * compute stream while the copy outlasts the runs before it: freed at once
 * (off == RT_OFF_T), or held through the sub-interval's first forward
 * step, stage s+1, which must fit with it (late: RT_OFF_LATE; the schedule
 * frees it there when that step is stage s+1's run, else at once). */
static void branch_all(cellctx *c, int off) {
  const rt_dp *d = c->d;
  const rt_chain *ch = d->ch;
  int s = c->s, t = c->t, var = c->var, top = var & RT_V_TOP, pend = var & RT_V_PEND;
  if (top && s == t) return;
  if (off && (s == t || ch->tb[s] == 0)) return;
  int lim = cap_fwd(d, s, t, 1, pend), sv = (top | pend) | (ch->kx[s] ? 0 : RT_V_STAR);
  bool rel = releases_input(d, var, s);
  double f = (t == d->L ? ch->first_cost[s] : ch->fr_cost[1][s]) + ch->gcost[s];
  int xt = rel ? ins(d, -1, s, up(var, t)) : ins(d, s - 1, s, up(var, t));
  /* h_outside and all_h1 are h plus a constant; the sub-problem's row */
  int out0 = h_outside(d, var, s, t, 0), h10 = all_h1(d, var, s, t, 0, rel);
  const rt_ref *inner = s < t && var_ok(d, sv, s + 1, t) ? ref_of(d, sv, s + 1, t) : NULL;
  /* the copy back: beside group s+1 (what it holds outside is h1 + in0) */
  int in0 = off ? h_outside(d, sv, s + 1, t, 0) + d->TB[s] : 0, room = off ? group_room(d, s + 1, sv) : 0;
  double runs = ch->tape_after[t == d->L ? 0 : 1][s]; /* what the copy out overlaps */
  int late = -1; /* the most h1 with which T_s fits through stage s+1's run (either mode) */
  if (off == RT_OFF_LATE && s < t) {
    int c0 = cap_fwd(d, s + 1, t, 0, pend), c1 = cap_fwd(d, s + 1, t, 1, pend);
    late = (c0 < c1 ? c0 : c1) - d->TB[s];
    runs += t == d->L ? ch->first_cost[s + 1] : ch->fr_cost[0][s + 1];
  }
  double price = off ? offload_cost(d, ch->tb[s], runs, group_time(ch, s + 1, sv)) : 0;
  for (int h = 0; h <= lim && h <= d->S; h++) {
    if (!group_fits(d, s, h + out0, var)) continue;
    int h1 = h + h10; /* X_s in, X_{s-1} out when rel */
    double x = f;
    if (s < t) {
      if (off && h1 + in0 > room) continue;
      if (off == RT_OFF_LATE && h1 > late) continue;
      int hi = h1 + (off ? 0 : d->TB[s]);
      double in = inner ? value_at(d, inner, hi) : INFINITY;
      if (!isfinite(in)) continue;
      x += in + price;
    } else if (pend && !tail_fits(d, t, h1 - xt + d->TB[t], xt)) {
      continue;
    }
    offer(c, h, x, HOW(HOW_ALL, off));
  }
}

/* Release X_t and solve the interval as if it were absent. */
static void branch_top(cellctx *c) {
  const rt_dp *d = c->d;
  int rm = d->A[c->t] - ov(d, c->s - 1, c->t), v2 = c->var & ~RT_V_TOP;
  if (!var_ok(d, v2, c->s, c->t)) return; /* every offer would be infinite */
  const rt_ref *r = ref_of(d, v2, c->s, c->t); /* an infinite offer changes nothing */
  const double *x = vals(d, r);
  int lo = rm > 0 ? rm : 0, hi = d->S;
  if (r->first + rm > lo) lo = r->first + rm;
  if (r->last + rm < hi) hi = r->last + rm;
  for (int h = lo; h <= hi; h++) offer(c, h, x[h - rm - r->first], HOW(HOW_TOP, 0));
}

/* Group t at once (s = t): stage t has no tape beyond X_t, and X_t is
 * resident (top) or not read by the group; not for the last stage, whose
 * first run is still to come. */
static void branch_direct(cellctx *c) {
  const rt_dp *d = c->d;
  const rt_chain *ch = d->ch;
  int t = c->t, var = c->var, a_t = var & RT_V_TOP ? d->A[t] : 0;
  if ((var & RT_V_PEND) || ch->t_start[t + 1] != ch->t_start[t] || (!(var & RT_V_TOP) && ch->kx[t])) return;
  if (t == d->L) return; /* the last stage has not run yet: F_all runs it (charged, checked) */
  int out0 = h_outside(d, var, t, t, 0); /* h plus a constant */
  for (int h = a_t; h <= d->S; h++)
    if (group_fits(d, t, h + out0, var)) offer(c, h, ch->gcost[t], HOW(HOW_DIRECT, 0));
}

/* F_ck: the sweep s .. s2-1, then (s2, t) and (s, s2-1).  How X_{s2-1}
 * passes between them: 0 released inside the first, 1 kept into the
 * second, 2 released with group s2's tail deferred into the second.
 * X_{s-1} offloaded during the first when off (what X_{s2-1} shares
 * stays): copied out during the sweep, which holds it anyway, freed after
 * it (the free waits for the copy), copied back before the first's last
 * group, s2, which must fit with it. */
/* The DP's inner loop: v[i] = min(v[i], sweep + a[i] + b[i] + copy) for i
 * in [0, n) (copy: the offload's price, 0 without: adding 0 changes no
 * sum of these non-negative values), noting `how` where it improves;
 * written without branches and with restrict so that the compiler
 * vectorises it (the same sums, in the same order, as one comparison per
 * h). */
__attribute__((optimize("O3"))) RELAX_CLONES
static void relax(double *restrict v, int32_t *restrict hw, const double *restrict a,
                  const double *restrict b, int n, double sweep, double copy, int32_t how) {
  for (int h = 0; h < n; h++) {
    double x = sweep + a[h] + b[h] + copy, old = v[h];
    int32_t oh = hw[h];
    bool lt = __builtin_isless(x, old); /* quiet: no trap, so no branch */
    v[h] = lt ? x : old;
    hw[h] = lt ? how : oh;
  }
}

/* relax without the choices (the table's fill). */
__attribute__((optimize("O3"))) RELAX_CLONES
static void relax_min(double *restrict v, const double *restrict a, const double *restrict b,
                      int n, double sweep, double copy) {
  for (int h = 0; h < n; h++) {
    double x = sweep + a[h] + b[h] + copy, old = v[h];
    v[h] = __builtin_isless(x, old) ? x : old;
  }
}

static void branch_ck(cellctx *c, int s2, int lo, int lim, bool off) {
  const rt_dp *d = c->d;
  int s = c->s, t = c->t, var = c->var, top = var & RT_V_TOP;
  double sweep = sweep_cost(d, lo, s2 - 1, t);
  int64_t moved = off ? d->ch->a[s - 1] - d->ch->ov[(s - 1) * (d->L + 1) + s2 - 1] : 0;
  int xoff = d->A[s - 1] - ov(d, s - 1, s2 - 1); /* its slots: ck_d1's */
  if (off && moved <= 0) return;
  for (int pass = 0; pass < 3; pass++) {
    int v1 = (top | (var & RT_V_PEND)) | (pass == 1 ? 0 : RT_V_STAR) | (pass == 2 ? RT_V_DEF : 0);
    int v2 = (pass == 1 ? RT_V_TOP : 0) | (pass == 2 ? RT_V_PEND : 0) | (var & (RT_V_STAR | RT_V_DEF));
    if (!var_ok(d, v1, s2, t) || !var_ok(d, v2, s, s2 - 1)) continue;
    int32_t how = HOW(HOW_CK + 3 * (s2 - s - 1) + pass, off ? RT_OFF_X : 0);
    const rt_ref *f1 = ref_of(d, v1, s2, t), *f2 = ref_of(d, v2, s, s2 - 1);
    /* h1 = h + d1 into the first, h2 = h + d2 into the second, both within
     * their finite range (elsewhere the sum is infinite: no offer) */
    int d1 = ck_d1(d, var, s, t, s2, off), d2 = ck_d2(d, var, s, t, s2, pass);
    int lo_h = 0, hi_h = lim < d->S ? lim : d->S;
    if (f1->first - d1 > lo_h) lo_h = f1->first - d1;
    if (f2->first - d2 > lo_h) lo_h = f2->first - d2;
    if (f1->last - d1 < hi_h) hi_h = f1->last - d1;
    if (f2->last - d2 < hi_h) hi_h = f2->last - d2;
    if (off) { /* group s2 with X_{s-1} back: h + d1 + h_outside(v1, 0) + xoff within its room */
      int most = group_room(d, s2, v1) - h_outside(d, v1, s2, t, 0) - d1 - xoff;
      if (most < hi_h) hi_h = most;
    }
    if (lo_h > hi_h) continue;
    const double *x1 = vals(d, f1) + (lo_h + d1 - f1->first), *x2 = vals(d, f2) + (lo_h + d2 - f2->first);
    double copy = off ? offload_cost(d, moved, sweep, group_time(d->ch, s2, v1)) : 0;
    if (c->how)
      relax(c->v + lo_h, c->how + lo_h, x1, x2, hi_h - lo_h + 1, sweep, copy, how);
    else
      relax_min(c->v + lo_h, x1, x2, hi_h - lo_h + 1, sweep, copy);
  }
}

/* With a tail of group t+1 waiting: the sweep s .. t (X_{s-1} kept), the
 * tail at once, then the interval with X_t on top. */
static void branch_tail_first(cellctx *c, int lo, int lim) {
  const rt_dp *d = c->d;
  int s = c->s, t = c->t, v2 = (c->var & ~RT_V_PEND) | RT_V_TOP, a = ins(d, s - 1, t, -1);
  if (!var_ok(d, v2, s, t)) return;
  double sweep = sweep_cost(d, lo, t, t);
  const rt_ref *r = ref_of(d, v2, s, t); /* an infinite offer changes nothing */
  const double *x2 = vals(d, r);
  int h0 = r->first - a > 0 ? r->first - a : 0;
  for (int h = h0; h <= lim && h + a <= r->last; h++)
    if (h + a + d->GT[t + 1] <= d->SB) offer(c, h, sweep + x2[h + a - r->first], HOW(HOW_TAIL, 0));
}

/* The values of cell (var, s, t) into v, its choices into how (or NULL). */
static void fill_cell(const rt_dp *d, int var, int s, int t, double *v, int32_t *how) {
  cellctx c = {d, var, s, t, v, how};
  for (int h = 0; h <= d->S; h++) c.v[h] = INFINITY;
  for (int h = 0; how && h <= d->S; h++) c.how[h] = -1;
  bool off = d->bandwidth > 0, pend = var & RT_V_PEND;
  branch_all(&c, 0);
  if (off) branch_all(&c, RT_OFF_T), branch_all(&c, RT_OFF_LATE);
  if (var & RT_V_TOP) branch_top(&c);
  if (s == t) branch_direct(&c);
  int lim = d->S, lo = s;
  for (int s2 = s + 1; s2 <= t + (pend ? 1 : 0); s2++) {
    int k = s2 - 1; /* the stage the sweep adds */
    if (t < d->L && d->ch->a[k] == 0) {
      lo = s2, lim = d->S; /* X_k holds nothing: nothing before it reruns */
    } else {
      int l = cap_fwd(d, k, t, 0, pend) - (k > lo ? ins(d, s - 1, k - 1, up(var, t)) : 0);
      if (l < lim) lim = l;
    }
    if (lim < 0) continue;
    if (s2 == t + 1) {
      branch_tail_first(&c, lo, lim);
      continue;
    }
    branch_ck(&c, s2, lo, lim, false);
    if (off) branch_ck(&c, s2, lo, lim, true);
  }
}

/* A cell of the table: its values, their finite range stored once.
 * Returns whether its row changed (identical rows share one place, so an
 * unchanged row keeps its offset unless the rows were compacted). */
static bool fill_table_cell(rt_dp *d, int var, int s, int t) {
  double *v = d->scratch;
  fill_cell(d, var, s, t, v, NULL);
  int first = 0, last = d->S;
  while (first <= d->S && !isfinite(v[first])) first++;
  while (last >= first && !isfinite(v[last])) last--;
  rt_ref *r = &d->ref[at(d, var, s, t)], old = *r;
  *r = (rt_ref){0, 1, 0}; /* its old row is not kept for it */
  bool moved = false;
  if (first <= last && !rt_rows_room(d->rows, last - first + 1)) {
    rt_rows_compact(d->rows);
    moved = true;
  }
  *r = (rt_ref){0, first, last};
  if (first <= last) r->off = rt_rows_put(d->rows, v + first, last - first + 1);
  if (old.first > old.last && first > last) return false;
  return moved || old.first != first || old.last != last || old.off != r->off;
}

/* ---- a table from the last one ----
 * The integer inputs of a table (the sizes in slots, the budget in slots
 * and the forward caps) are its key.  The next table keeps the rows of the
 * cells none of whose inputs changed and none of whose sub-problems' rows
 * changed: exactly the rows a fill would compute. */
static size_t key_len(int L) {
  return 3 + 7 * (size_t)(L + 2) + (size_t)(L + 1) * (size_t)(L + 1) + 2 * (size_t)L * (size_t)(L + 1);
}

static int *stage_key(int *k, const rt_dp *d) {
  for (int i = 0; i <= d->L + 1; i++) {
    int x[7] = {d->A[i], d->TB[i], d->G[i], d->GX[i], d->GH[i], d->GT[i], d->GTX[i]};
    memcpy(k, x, sizeof x);
    k += 7;
  }
  return k;
}

static void table_key(const rt_dp *d, int *k) {
  int L = d->L;
  *k++ = L, *k++ = d->S, *k++ = d->SB;
  k = stage_key(k, d);
  for (int i = 0; i < (L + 1) * (L + 1); i++) *k++ = d->OV[i];
  for (int t = 1; t <= L; t++)
    for (int s = 1; s <= t; s++)
      for (int mp = 0; mp < 4; mp++) *k++ = cap_fwd(d, s, t, mp & 1, mp >> 1);
}

/* What changed from the last table's key: prefix counts per stage, over
 * the overlaps (2-D) and over each t's caps. */
typedef struct delta {
  bool all;              /* no last table (or another shape): every cell */
  int L, *stage, *ov, *cap;
  bool *changed;         /* per (s, t): a row of the cell changed */
} delta;

static void delta_init(delta *x, const rt_dp *d, const int *old, const int *now, bool all) {
  int L = x->L = d->L, n = L + 2;
  x->all = all;
  x->stage = mp_xcalloc((size_t)n + 1, sizeof(int));
  x->ov = mp_xcalloc((size_t)(n + 1) * (size_t)(n + 1), sizeof(int));
  x->cap = mp_xcalloc((size_t)(n + 1) * (size_t)(n + 1), sizeof(int));
  x->changed = mp_xcalloc((size_t)n * (size_t)n, sizeof(bool));
  if (all) return;
  const int *o = old + 3, *w = now + 3;
  for (int i = 0; i < n; i++, o += 7, w += 7) x->stage[i + 1] = x->stage[i] + (memcmp(o, w, 7 * sizeof(int)) != 0);
  for (int i = 0; i <= L; i++)
    for (int j = 0; j <= L; j++, o++, w++)
      x->ov[(i + 1) * (n + 1) + j + 1] = x->ov[i * (n + 1) + j + 1] + x->ov[(i + 1) * (n + 1) + j] -
                                        x->ov[i * (n + 1) + j] + (*o != *w);
  for (int t = 1; t <= L; t++)
    for (int s = 1; s <= t; s++, o += 4, w += 4)
      x->cap[t * (n + 1) + s + 1] = x->cap[t * (n + 1) + s] + (memcmp(o, w, 4 * sizeof(int)) != 0);
}

static void delta_destroy(delta *x) {
  free(x->stage);
  free(x->ov);
  free(x->cap);
  free(x->changed);
}

/* Must cell (s, t) be filled again? */
static bool dirty(const delta *x, int s, int t) {
  if (x->all) return true;
  int n = x->L + 2, hi = t + 2 < n ? t + 2 : n; /* stages s-1 .. t+1 */
  if (x->stage[hi] - x->stage[s - 1]) return true;
  const int *P = x->ov; /* overlaps (i, j), s-1 <= i, j <= t */
  if (P[(t + 1) * (n + 1) + t + 1] - P[(s - 1) * (n + 1) + t + 1] - P[(t + 1) * (n + 1) + s - 1] +
      P[(s - 1) * (n + 1) + s - 1])
    return true;
  if (x->cap[t * (n + 1) + t + 1] - x->cap[t * (n + 1) + s]) return true; /* caps (k, t), s <= k <= t */
  for (int s2 = s + 1; s2 <= t; s2++)
    if (x->changed[s2 * n + t] || x->changed[s * n + s2 - 1]) return true;
  return false;
}

/* The cells by length; in a cell the variants without top or pend first
 * (top releases into them), then top, then pend (its tail may come first). */
static int fill_table(rt_dp *d, delta *x, double deadline) {
  int L = d->L, n2 = L + 2;
  for (int n = 0; n < L; n++) {
    if (deadline > 0 && mp_now() >= deadline) return -1;
    for (int s = 1; s + n <= L; s++) {
      if (!dirty(x, s, s + n)) continue;
      for (int pass = 0; pass < 3; pass++)
        for (int var = 0; var < 16; var++) {
          int kind = var & RT_V_TOP ? 1 : var & RT_V_PEND ? 2 : 0;
          if (kind == pass && var_ok(d, var, s, s + n) && fill_table_cell(d, var, s, s + n))
            x->changed[s * n2 + s + n] = true;
        }
    }
  }
  return 0;
}

static int *slots_array(const rt_dp *d, const int64_t *bytes) {
  int *x = mp_xcalloc((size_t)d->L + 2, sizeof(int));
  for (int k = 0; k <= d->L; k++) x[k] = slots_of(bytes[k], d->slot);
  return x;
}

static void sizes(rt_dp *d, const rt_chain *ch) {
  d->A = slots_array(d, ch->a);
  d->TB = slots_array(d, ch->tb);
  d->G = slots_array(d, ch->gneed);
  d->GX = slots_array(d, ch->gneedx);
  d->GH = slots_array(d, ch->ghead);
  d->GT = slots_array(d, ch->gtail);
  d->GTX = slots_array(d, ch->gtailx);
  d->SB = slots_cap(d->budget, d->slot, 1 << 30);
  size_t n = (size_t)(d->L + 1) * (size_t)(d->L + 1);
  d->OV = mp_xcalloc(n ? n : 1, sizeof(int));
  for (size_t i = 0; i < n; i++) d->OV[i] = slots_of(ch->ov[i], d->slot);
  for (int m = 0; m < 2; m++) {
    d->FC[m] = mp_xcalloc((size_t)d->L + 2, sizeof(double));
    for (int k = 1; k <= d->L; k++) d->FC[m][k] = d->FC[m][k - 1] + ch->fr_cost[m][k];
  }
  d->FF = mp_xcalloc((size_t)d->L + 2, sizeof(double));
  for (int k = 1; k <= d->L; k++) d->FF[k] = d->FF[k - 1] + ch->first_cost[k];
}

size_t rt_dp_rows(int L) { return (size_t)L * (size_t)(L + 1) / 2 * RT_NV; }

size_t rt_dp_entries(int L, int slots) { return rt_dp_rows(L) * (size_t)(slots + 1); }

int rt_dp_init(rt_dp *d, const rt_chain *ch, int64_t budget, int slots, double bandwidth,
               double copy_weight, double deadline, rt_rows *rows) {
  memset(d, 0, sizeof *d);
  d->copy_weight = copy_weight;
  int L = d->L = ch->L;
  d->ch = ch;
  d->S = slots;
  d->budget = budget;
  d->bandwidth = bandwidth;
  d->slot = budget > 0 ? (budget + slots - 1) / slots : 1;
  if (d->slot < 1) d->slot = 1;
  sizes(d, ch);
  d->row = mp_xcalloc((size_t)L + 2, sizeof(int));
  for (int s = 1, r = 0; s <= L; s++) d->row[s] = r, r += L - s + 1;
  d->cells = (size_t)L * (size_t)(L + 1) / 2;
  d->own_rows = rows == NULL;
  if (d->own_rows) {
    rows = mp_xmalloc(sizeof *rows);
    rt_rows_init(rows, rt_dp_entries(L, slots), rt_dp_rows(L));
  }
  d->rows = rows;
  d->ref = rows->ref;
  d->scratch = mp_xmalloc(sizeof(double) * (size_t)(slots + 1));
  size_t nkey = key_len(L);
  int *key = mp_xmalloc(sizeof(int) * nkey);
  table_key(d, key);
  bool again = rows->valid && rows->nkey == nkey && memcmp(rows->key, key, 3 * sizeof(int)) == 0 &&
               rows->key_bw == bandwidth && rows->key_weight == copy_weight;
  if (!again) rt_rows_clear(rows);
  delta x;
  delta_init(&x, d, rows->key, key, !again);
  free(rows->key);
  rows->key = key, rows->nkey = nkey, rows->key_bw = bandwidth, rows->key_weight = copy_weight;
  rows->valid = false; /* until the table is whole */
  int rc = fill_table(d, &x, deadline);
  rows->valid = rc == 0;
  delta_destroy(&x);
  return rc;
}

void rt_dp_destroy(rt_dp *d) {
  free(d->A);
  free(d->TB);
  free(d->G);
  free(d->GX);
  free(d->GH);
  free(d->GT);
  free(d->GTX);
  free(d->OV);
  for (int m = 0; m < 2; m++) free(d->FC[m]);
  free(d->FF);
  if (d->own_rows && d->rows) rt_rows_destroy(d->rows), free(d->rows);
  for (size_t i = 0; d->how_cache && i < d->cells * RT_NV; i++) free(d->how_cache[i]);
  free(d->how_cache);
  free(d->scratch);
  free(d->row);
  memset(d, 0, sizeof *d);
}

double rt_dp_value(const rt_dp *d, int h) {
  if (d->L == 0) return 0;
  return sub(d, RT_V_STAR, 1, d->L, d->A[0] + h);
}

/* ---- the schedule ---- */

typedef struct emitter {
  rt_dp *d;
  rt_op **ops;
  int *n, *cap;
} emitter;

/* The choices of sub-problem (var, s, t), recomputed once per table (the
 * schedules of one table visit many of the same cells). */
static const int32_t *choices(rt_dp *d, int var, int s, int t) {
  size_t i = (size_t)var_index[var] * d->cells + (size_t)(d->row[s] + t - s);
  if (!d->how_cache) d->how_cache = mp_xcalloc(d->cells * RT_NV, sizeof(int32_t *));
  if (!d->how_cache[i]) {
    double *v = mp_xmalloc(sizeof(double) * (size_t)(d->S + 1));
    d->how_cache[i] = mp_xmalloc(sizeof(int32_t) * (size_t)(d->S + 1));
    fill_cell(d, var, s, t, v, d->how_cache[i]);
    free(v);
  }
  return d->how_cache[i];
}

static void put(emitter *e, char op, int k, int arg) {
  if (*e->n == *e->cap) {
    *e->cap = *e->cap ? 2 * *e->cap : 64;
    *e->ops = mp_xrealloc(*e->ops, sizeof(rt_op) * (size_t)*e->cap);
  }
  (*e->ops)[(*e->n)++] = (rt_op){op, k, arg, 0};
}

static void emit(emitter *e, int var, int s, int t, int h);

static void put_x(emitter *e, char op, int k, int what, int upto) {
  put(e, op, k, what);
  (*e->ops)[*e->n - 1].upto = upto;
}

/* Move the op just appended to position at. */
static void move_last(emitter *e, int at) {
  rt_op op = (*e->ops)[*e->n - 1];
  memmove(*e->ops + at + 1, *e->ops + at, sizeof(rt_op) * (size_t)(*e->n - 1 - at));
  (*e->ops)[at] = op;
}

/* The copy back of what was offloaded during ops [from, n): issued before
 * their last group (the sub-interval's first stage's), which the program
 * checked with it resident, so that the copy overlaps that group's runs.
 * The program checked that group without X_k when it does not read it:
 * a group that releases X_k unread releases it before the copy back (else
 * the copy back is sampled with it, over the budget). */
static void prefetch(emitter *e, int from, int k, int what, int upto) {
  int at = *e->n;
  while (at > from && (*e->ops)[at - 1].op != RT_GROUP) at--;
  if (at > from) {
    at--; /* before the group */
    rt_op *g = &(*e->ops)[at];
    if ((g->arg & RT_G_TOP) && !e->d->ch->kx[g->k]) {
      g->arg &= ~RT_G_TOP;
      put(e, RT_REL, g->k, 0);
      move_last(e, at++);
    }
  } else {
    at = *e->n;
  }
  put_x(e, RT_IN, k, what, upto);
  move_last(e, at);
}

/* The flags of group s's op. */
static int group_flags(const rt_dp *d, int var, int s, bool top) {
  bool star_in = (var & RT_V_STAR) && !(var & RT_V_DEF) && d->ch->kin[s];
  return (top ? RT_G_TOP : 0) | (star_in ? RT_G_INPUT : 0) | (var & RT_V_DEF ? RT_G_HEAD : 0);
}

/* The free of T_s held through the sub-schedule from `from` on: after
 * its first run, when that is stage s+1's (only releases and copies out
 * before it: what the program checked), else before it. */
static void free_late(emitter *e, int from, int s) {
  int at = from;
  while (at < *e->n && ((*e->ops)[at].op == RT_REL || (*e->ops)[at].op == RT_OUT)) at++;
  if (at < *e->n && (*e->ops)[at].op == RT_F && (*e->ops)[at].k == s + 1) at++;
  else at = from;
  put(e, RT_FREE, s, RT_OFF_T);
  move_last(e, at);
}

static void emit_all(emitter *e, int var, int s, int t, int h, int off) {
  const rt_dp *d = e->d;
  const rt_chain *ch = d->ch;
  int top = var & RT_V_TOP, pend = var & RT_V_PEND;
  bool rel = releases_input(d, var, s);
  put(e, RT_F, s, 1);
  if (rel) put(e, RT_REL, s - 1, 0);
  int h1 = all_h1(d, var, s, t, h, rel);
  if (s < t) {
    if (off) put(e, RT_OUT, s, RT_OFF_T | (off == RT_OFF_LATE ? RT_OFF_POLL : 0));
    if (off == RT_OFF_T) put(e, RT_FREE, s, RT_OFF_T);
    int from = *e->n;
    emit(e, (top | pend) | (ch->kx[s] ? 0 : RT_V_STAR), s + 1, t, h1 + (off ? 0 : d->TB[s]));
    if (off == RT_OFF_LATE) free_late(e, from, s);
    if (off) prefetch(e, from, s, RT_OFF_T, 0);
  } else if (pend) {
    put(e, RT_TAIL, t + 1, 0);
  }
  put(e, RT_GROUP, s, group_flags(d, var, s, s == t || ch->kx[s]));
}

static void emit_ck(emitter *e, int var, int s, int t, int h, int s2, int pass, bool off) {
  const rt_dp *d = e->d;
  int top = var & RT_V_TOP, lo = s;
  if (t < d->L)
    for (int k = s; k < s2; k++)
      if (d->ch->a[k] == 0) lo = k + 1;
  if (off) put_x(e, RT_OUT, s - 1, RT_OFF_X, s2);
  for (int j = lo; j < s2; j++) {
    put(e, RT_F, j, 0);
    if (j - 1 >= lo) put(e, RT_REL, j - 1, 0);
  }
  if (off) put_x(e, RT_FREE, s - 1, RT_OFF_X, s2);
  int v1 = (top | (var & RT_V_PEND)) | (pass == 1 ? 0 : RT_V_STAR) | (pass == 2 ? RT_V_DEF : 0);
  int v2 = (pass == 1 ? RT_V_TOP : 0) | (pass == 2 ? RT_V_PEND : 0) | (var & (RT_V_STAR | RT_V_DEF));
  int from = *e->n;
  emit(e, v1, s2, t, h + ck_d1(d, var, s, t, s2, off));
  if (off) prefetch(e, from, s - 1, RT_OFF_X, s2);
  emit(e, v2, s, s2 - 1, h + ck_d2(d, var, s, t, s2, pass));
}

/* The choice the table recorded for (var, s, t, h). */
static void emit(emitter *e, int var, int s, int t, int h) {
  rt_dp *d = e->d;
  int32_t how = choices(d, var, s, t)[h];
  if (how < 0) return; /* not reached: the caller checked the value */
  int code = how / 4, off = how % 4;
  if (code == HOW_ALL) {
    emit_all(e, var, s, t, h, off);
  } else if (code == HOW_TOP) {
    put(e, RT_REL, t, 0);
    emit(e, var & ~RT_V_TOP, s, t, h - (d->A[t] - ov(d, s - 1, t)));
  } else if (code == HOW_TAIL) {
    int lo = s;
    for (int k = s; k <= t; k++)
      if (d->ch->a[k] == 0) lo = k + 1;
    for (int j = lo; j <= t; j++) {
      put(e, RT_F, j, 0);
      if (j - 1 >= lo) put(e, RT_REL, j - 1, 0);
    }
    put(e, RT_TAIL, t + 1, 0);
    emit(e, (var & ~RT_V_PEND) | RT_V_TOP, s, t, h + ins(d, s - 1, t, -1));
  } else if (code == HOW_DIRECT) {
    if (releases_input(d, var, t)) put(e, RT_REL, t - 1, 0);
    put(e, RT_GROUP, t, group_flags(d, var, t, var & RT_V_TOP));
  } else {
    int c = code - HOW_CK;
    emit_ck(e, var, s, t, h, s + 1 + c / 3, c % 3, off != 0);
  }
}

int rt_dp_program(rt_dp *d, int h, rt_op **ops, int *cap) {
  int n = 0;
  emitter e = {d, ops, &n, cap};
  if (d->L > 0 && isfinite(rt_dp_value(d, h))) emit(&e, RT_V_STAR, 1, d->L, d->A[0] + h);
  return n;
}
