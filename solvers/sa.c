/* sa.c - simulated annealing over topological orders.
 *
 * State: a valid order, the birth/death step of every buffer and the live
 * profile M(t), with a max segment tree over M.
 *
 * Moves (every one keeps the order valid):
 *   - shift: pick a node v (uniformly) at step i; it goes to a step j
 *     between its last predecessor and its first successor (j != i),
 *     uniformly; with j = i +- 1 this is the swap of two adjacent
 *     independent nodes.  Half the time v takes along the operator chain
 *     that follows it (each next node its only successor, having v's chain
 *     as its only predecessor: conv -> bn -> relu) and the chain moves as a
 *     block.
 *   - drag (probability `drag`): v goes to a random step j in a window of
 *     up to `reach` steps before (after) it and takes along every ancestor
 *     (descendant) of v that lies between j and i, in their order; the
 *     other nodes of the window keep their order behind (before) them.
 *     This moves a whole sub-branch that v alone needs earlier in one
 *     piece (or postpones a node with the consumers that it alone feeds),
 *     which a sequence of single-node moves could only do through a peak.
 * The state, the moves and their incremental evaluation (only the window
 * of steps a move rearranges is recomputed) live in lib/ordls.c, shared
 * with ga's local search.
 *
 * Energy (option energy):
 *   1 (default): the excess E = sum_t max(0, M(t) - U) over a target U just
 *     under the best peak found so far, U = best * (1 - margin) - 1: the
 *     bytes x steps above the band the search is trying to clear.  Steps at
 *     the peak count, steps well below it do not, so the search is free to
 *     fill the profile up to just under the peak (optimal orders of branchy
 *     cells often sit at the peak for a long plateau) and is driven only to
 *     empty the peak steps.  When a better peak is found, U drops with it.
 *   0: E = peak + smooth * P0 * mean_t (M(t)/P0)^k, P0 the start's peak, a
 *     soft maximum (the energy of earlier versions; smooth=0 anneals the
 *     peak alone, power=1 uses the mean).
 * The best order is kept by (peak, E), starting with the start order, so
 * the result is never worse than the start (`--order greedy,sa` refines
 * greedy).
 *
 * Schedule: at the beginning of each restart T0 is set so that the average
 * uphill move among 200 sampled moves from the restart's first order is
 * accepted with probability 1/2 (T0 = mean uphill / ln 2, times the option
 * heat); geometric cooling T <- T * alpha per move, alpha = t_end^(1/iters),
 * so T reaches T0 * t_end at the end of each restart.  The Metropolis step
 * and the T0 sampling are lib/ordls.c's, shared with ga.
 * Optimality: only a peak equal to the min-cut bound of schedbound.h (valid
 * for every order) proves it; under a time limit that bound gets half the
 * time left and is the best it proves by then.
 * Restarts (option diversify = 1): a cycle of four starts:
 *   the best order so far; a member of the elite (the best distinct local
 *   optima of earlier restarts, `elite` of them) after a kick of n/8 random
 *   moves; the best order again; a new order built by a randomised greedy
 *   list schedule (least memory after the step, a random fraction of the
 *   steps taking a random ready node instead).
 * Restart 0 starts from the start order.  diversify = 0 starts every restart
 * from the best order (intensification only).  Budget: restarts x iters
 * moves, or the time limit (status timeout), whichever first; with fill=1
 * and a time limit, restarts go on until the limit (status feasible once
 * the minimum restarts are done).  Deterministic for a seed when no limit
 * cuts it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/budget.h"
#include "lib/listsched.h"
#include "lib/ordls.h"
#include "schedbound.h"
#include "solver.h"

#define SA_OPTIONS(X)                                                                           \
  X(iters, INT, 200000, 1, 1e10, "moves per restart")                                           \
  X(restarts, INT, 4, 1, 10000, "restarts (the budget without time limit; the minimum with fill)") \
  X(t_end, REAL, 1e-4, 1e-9, 1, "final temperature as a fraction of the initial")               \
  X(energy, INT, 1, 0, 1, "1: bytes x steps above a target just under the best peak; 0: peak + soft-max") \
  X(margin, REAL, 0.02, 0, 0.5, "energy 1: target = best peak * (1 - margin) - 1 byte")         \
  X(smooth, REAL, 0.5, 0, 10, "energy 0: weight of the soft-max term")                          \
  X(power, INT, 8, 1, 32, "energy 0: exponent k of the soft-max term (1: mean live memory)")    \
  X(heat, REAL, 1, 1e-3, 1e6, "initial temperature factor (1: mean sampled uphill accepted at 1/2)") \
  X(drag, REAL, 0.3, 0, 1, "probability of a drag move (a node with its ancestors or descendants)") \
  X(reach, INT, 64, 2, 1e9, "drag moves: the farthest step a node is dragged to")               \
  X(diversify, INT, 1, 0, 1, "1: restarts cycle best / kicked elite / best / randomised greedy; 0: best only") \
  X(elite, INT, 4, 1, 64, "distinct local optima kept for kicked restarts")                     \
  X(fill, INT, 1, 0, 1, "1: with --time-limit, keep restarting until it expires (restarts is then a minimum)") \
  X(stop, INT, 1, 0, 1, "1: stop, proven optimal, once the peak meets the min-cut lower bound of schedbound.h")
enum { SA_OPTIONS(MP_OPT_ENUM) SA_N_OPTS };
static const mp_option sa_options[] = {SA_OPTIONS(MP_OPT_ENTRY)};

/* The elite: distinct local optima of the restarts, best first. */
typedef struct elite_pool {
  int cap, size, n;
  int **ord;
  int64_t *peak;
  double *e;
} elite_pool;

static void elite_add(elite_pool *ep, const int *ord, int64_t peak, double e) {
  for (int k = 0; k < ep->size; k++)
    if (ep->peak[k] == peak && memcmp(ep->ord[k], ord, sizeof(int) * (size_t)ep->n) == 0) return;
  int at = ep->size;
  while (at > 0 && (ep->peak[at - 1] > peak || (ep->peak[at - 1] == peak && ep->e[at - 1] > e))) at--;
  if (at >= ep->cap) return;
  int *slot = ep->size < ep->cap ? ep->ord[ep->size] : ep->ord[ep->cap - 1];
  int last = ep->size < ep->cap ? ep->size : ep->cap - 1;
  for (int k = last; k > at; k--) {
    ep->ord[k] = ep->ord[k - 1];
    ep->peak[k] = ep->peak[k - 1];
    ep->e[k] = ep->e[k - 1];
  }
  ep->ord[at] = slot;
  memcpy(slot, ord, sizeof(int) * (size_t)ep->n);
  ep->peak[at] = peak;
  ep->e[at] = e;
  if (ep->size < ep->cap) ep->size++;
}

/* The search state of one run. */
typedef struct sa_run {
  mp_ctx *c;
  const mp_graph *g;
  int n;
  mp_ols s;
  mp_rng r;
  elite_pool ep;
  double smooth, pdrag, margin;
  int reach;
  int64_t lb;          /* the min-cut bound: a peak equal to it is optimal */
  int64_t best_peak;
  double best_e;
  int *best, *tmp;
  bool cut, proved;
} sa_run;

static void run_init(sa_run *R, mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  memset(R, 0, sizeof *R);
  R->c = c;
  R->g = g;
  R->n = n;
  mp_ols_init(&R->s, g, (int)c->opt[OPT_energy], (int)c->opt[OPT_power]);
  R->margin = c->opt[OPT_margin];
  mp_ols_load(&R->s, c->start_order);
  mp_ols_set_scale(&R->s, (double)mp_ols_peak(&R->s));
  mp_ols_target_below(&R->s, mp_ols_peak(&R->s), R->margin);
  R->smooth = c->opt[OPT_smooth];
  R->pdrag = c->opt[OPT_drag];
  R->reach = c->opt[OPT_reach] < n ? (int)c->opt[OPT_reach] : n;
  R->best_peak = mp_ols_peak(&R->s);
  R->best_e = mp_ols_energy(&R->s, mp_ols_current(&R->s), R->smooth);
  R->best = mp_xmalloc(sizeof(int) * (size_t)n);
  memcpy(R->best, R->s.ord, sizeof(int) * (size_t)n);
  R->tmp = mp_xmalloc(sizeof(int) * (size_t)n);
  R->ep = (elite_pool){(int)c->opt[OPT_elite], 0, n, NULL, NULL, NULL};
  R->ep.ord = mp_xmalloc(sizeof(int *) * (size_t)R->ep.cap);
  for (int k = 0; k < R->ep.cap; k++) R->ep.ord[k] = mp_xmalloc(sizeof(int) * (size_t)n);
  R->ep.peak = mp_xmalloc(sizeof(int64_t) * (size_t)R->ep.cap);
  R->ep.e = mp_xmalloc(sizeof(double) * (size_t)R->ep.cap);
  mp_rng_seed(&R->r, c->seed);
}

static void run_destroy(sa_run *R) {
  for (int k = 0; k < R->ep.cap; k++) free(R->ep.ord[k]);
  free(R->ep.ord);
  free(R->ep.peak);
  free(R->ep.e);
  free(R->tmp);
  free(R->best);
  mp_ols_destroy(&R->s);
}

/* The start of restart rs > 0: a cycle of best / kicked elite / best /
 * randomised greedy (diversify), or the best order.  False when the time
 * limit cut the randomised greedy order (seconds at 10^6 nodes) or the
 * kicks. */
static bool restart_from(sa_run *R, int rs, bool diversify) {
  int kind = diversify ? rs % 4 : 0; /* 0, 2: best; 1: kicked elite; 3: random greedy */
  if (kind == 3) {
    if (!mp_ls_order_random_greedy(R->g, &R->r, 0.3 * mp_rng_unit(&R->r), R->tmp, R->c->deadline))
      return false;
    mp_ols_load(&R->s, R->tmp);
  } else if (kind == 1 && R->ep.size > 0) {
    mp_ols_load(&R->s, R->ep.ord[mp_rng_below(&R->r, (uint64_t)R->ep.size)]);
    int kicks = R->n / 8 > 1 ? R->n / 8 : 1;
    for (int k = 0; k < kicks; k++) {
      if ((k & 15) == 15 && mp_time_up(R->c)) return false; /* n / 8 moves of up to ms each */
      if (mp_ols_move(&R->s, &R->r, R->pdrag, R->reach)) mp_ols_commit(&R->s, mp_ols_eval_move(&R->s));
    }
  } else {
    mp_ols_load(&R->s, R->best);
  }
  return true;
}

/* One restart: iters moves, geometric cooling from a sampled T0. */
static void anneal(sa_run *R, long iters, double alpha) {
  mp_ols *s = &R->s;
  double T = mp_ols_sample_t0(s, &R->r, R->pdrag, R->reach, R->smooth, 200) * R->c->opt[OPT_heat];
  for (long it = 0; it < iters && !R->proved; it++, T *= alpha) {
    if ((it & 255) == 0 && mp_time_up(R->c)) {
      R->cut = true;
      break;
    }
    mp_ols_eval ev;
    if (!mp_ols_anneal_step(s, &R->r, R->pdrag, R->reach, T, R->smooth, &ev)) continue;
    double ne = mp_ols_energy(s, ev, R->smooth);
    if (ev.peak < R->best_peak || (ev.peak == R->best_peak && ne < R->best_e)) {
      if (s->mode == 1 && ev.peak < R->best_peak) {
        mp_ols_target_below(s, ev.peak, R->margin);
        ne = (double)s->xs;
      }
      R->best_peak = ev.peak;
      R->best_e = ne;
      memcpy(R->best, s->ord, sizeof(int) * (size_t)R->n);
      R->proved = R->best_peak == R->lb;
    }
  }
  /* the restart's local optimum: its final order */
  elite_add(&R->ep, s->ord, mp_ols_peak(s), mp_ols_energy(s, mp_ols_current(s), R->smooth));
}

static int sa_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  memcpy(c->order, c->start_order, sizeof(int) * (size_t)n);
  c->status = MP_FEASIBLE;
  if (n < 2) return 0;
  sa_run R;
  run_init(&R, c);
  /* only a peak equal to a bound valid for every order proves it optimal
   * (under a time limit the bound gets half the time left, the search the
   * rest: the bound is then the best proven by its share) */
  R.lb = c->opt[OPT_stop] > 0 ? mp_sched_lower_bound_until(g, mp_deadline_share(c, 0.5), NULL, NULL) : 0;
  c->bound = R.lb;
  R.proved = R.best_peak == R.lb;
  long iters = (long)c->opt[OPT_iters];
  int restarts = (int)c->opt[OPT_restarts];
  bool diversify = c->opt[OPT_diversify] > 0;
  double alpha = pow(c->opt[OPT_t_end], 1.0 / (double)iters);
  bool fill = c->opt[OPT_fill] > 0 && c->deadline > 0;
  int rs = 0;
  for (; (rs < restarts || fill) && !R.cut && !R.proved; rs++) {
    if (rs > 0 && !restart_from(&R, rs, diversify)) {
      R.cut = true;
      break;
    }
    anneal(&R, iters, alpha);
  }
  memcpy(c->order, R.best, sizeof(int) * (size_t)n);
  if (R.proved)
    c->status = MP_OPTIMAL;
  else if (R.cut && rs <= restarts)
    c->status = MP_TIMEOUT; /* cut before the minimum */
  run_destroy(&R);
  return 0;
}

const mp_solver solver_sa = {
    .name = "sa",
    .summary = "simulated annealing over valid orders (shift and drag moves, incremental profile, diversified restarts), refines its start",
    .decides = MP_DECIDES_ORDER,
    .options = MP_OPTIONS(sa_options),
    .quick = "iters=2000,restarts=2,fill=0",
    .solve = sa_solve,
};
