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
 * of steps a move rearranges is recomputed) live in src/ordls.c, shared
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
 * so T reaches T0 * t_end at the end of each restart.
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

#include "lib/listsched.h"
#include "lib/ordls.h"
#include "schedbound.h"
#include "solver.h"

#define SA_OPTIONS(X)                                                                           \
  X(iters, 200000, 1, 1e10, "moves per restart")                                                \
  X(restarts, 4, 1, 10000, "restarts (the budget without time limit; the minimum with fill)")   \
  X(t_end, 1e-4, 1e-9, 1, "final temperature as a fraction of the initial")                    \
  X(energy, 1, 0, 1, "1: bytes x steps above a target just under the best peak; 0: peak + soft-max") \
  X(margin, 0.02, 0, 0.5, "energy 1: target = best peak * (1 - margin) - 1 byte")               \
  X(smooth, 0.5, 0, 10, "energy 0: weight of the soft-max term")                                \
  X(power, 8, 1, 32, "energy 0: exponent k of the soft-max term (1: mean live memory)")         \
  X(heat, 1, 1e-3, 1e6, "initial temperature factor (1: mean sampled uphill accepted at 1/2)") \
  X(drag, 0.3, 0, 1, "probability of a drag move (a node with its ancestors or descendants)")   \
  X(reach, 64, 2, 1e9, "drag moves: the farthest step a node is dragged to")                    \
  X(diversify, 1, 0, 1, "1: restarts cycle best / kicked elite / best / randomised greedy; 0: best only") \
  X(elite, 4, 1, 64, "distinct local optima kept for kicked restarts")                          \
  X(fill, 1, 0, 1, "1: with --time-limit, keep restarting until it expires (restarts is then a minimum)") \
  X(stop, 1, 0, 1, "1: stop, proven optimal, once the peak meets the min-cut lower bound of schedbound.h")
enum { SA_OPTIONS(MP_OPT_ENUM) SA_N_OPTS };
static const mp_option sa_options[] = {SA_OPTIONS(MP_OPT_ENTRY)};

static double energy(const mp_ols *s, mp_ols_eval ev, double smooth) {
  if (s->mode == 1) return (double)ev.xs;
  return (double)ev.peak + smooth * s->scale * ev.sum / (double)s->n;
}

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

static int sa_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  memcpy(c->order, c->start_order, sizeof(int) * (size_t)n);
  c->status = MP_FEASIBLE;
  if (n < 2) return 0;
  mp_ols s;
  mp_ols_init(&s, g, (int)c->opt[OPT_energy], (int)c->opt[OPT_power]);
  double margin = c->opt[OPT_margin];
  mp_ols_load(&s, c->start_order);
  mp_ols_set_scale(&s, (double)mp_ols_peak(&s));
  mp_ols_target_below(&s, mp_ols_peak(&s), margin);

  double smooth = c->opt[OPT_smooth], pdrag = c->opt[OPT_drag];
  int reach = c->opt[OPT_reach] < n ? (int)c->opt[OPT_reach] : n;
  int64_t best_peak = mp_ols_peak(&s);
  double best_e = energy(&s, mp_ols_current(&s), smooth);
  int *best = mp_xmalloc(sizeof(int) * (size_t)n);
  memcpy(best, s.ord, sizeof(int) * (size_t)n);
  /* a peak at the min-cut bound cannot be beaten: stop there, proven */
  int64_t lb = c->opt[OPT_stop] > 0 ? mp_sched_lower_bound(g, NULL) : 0;
  c->bound = lb;
  bool proved = best_peak <= lb;
  elite_pool ep = {(int)c->opt[OPT_elite], 0, n, NULL, NULL, NULL};
  ep.ord = mp_xmalloc(sizeof(int *) * (size_t)ep.cap);
  for (int k = 0; k < ep.cap; k++) ep.ord[k] = mp_xmalloc(sizeof(int) * (size_t)n);
  ep.peak = mp_xmalloc(sizeof(int64_t) * (size_t)ep.cap);
  ep.e = mp_xmalloc(sizeof(double) * (size_t)ep.cap);
  int *tmp = mp_xmalloc(sizeof(int) * (size_t)n);

  mp_rng r;
  mp_rng_seed(&r, c->seed);
  long iters = (long)c->opt[OPT_iters];
  int restarts = (int)c->opt[OPT_restarts];
  bool diversify = c->opt[OPT_diversify] > 0;
  double alpha = pow(c->opt[OPT_t_end], 1.0 / (double)iters);
  bool cut = false;
  bool fill = c->opt[OPT_fill] > 0 && c->deadline > 0;
  int rs = 0;
  for (; (rs < restarts || fill) && !cut && !proved; rs++) {
    if (rs > 0) {
      int kind = diversify ? rs % 4 : 0; /* 0, 2: best; 1: kicked elite; 3: random greedy */
      if (kind == 3) {
        mp_ls_order_random_greedy(g, &r, 0.3 * mp_rng_unit(&r), tmp);
        mp_ols_load(&s, tmp);
      } else if (kind == 1 && ep.size > 0) {
        mp_ols_load(&s, ep.ord[mp_rng_below(&r, (uint64_t)ep.size)]);
        int kicks = n / 8 > 1 ? n / 8 : 1;
        for (int k = 0; k < kicks; k++)
          if (mp_ols_move(&s, &r, pdrag, reach)) mp_ols_commit(&s, mp_ols_eval_move(&s));
      } else {
        mp_ols_load(&s, best);
      }
    }
    double e = energy(&s, mp_ols_current(&s), smooth);
    /* initial temperature from sampled moves that raise the energy */
    double up = 0;
    int nup = 0;
    for (int k = 0; k < 200; k++) {
      if (!mp_ols_move(&s, &r, pdrag, reach)) continue;
      mp_ols_eval ev = mp_ols_eval_move(&s);
      mp_ols_revert(&s);
      double de = energy(&s, ev, smooth) - e;
      /* energy 0: only the moves that raise the peak count (moves that
       * only change the soft term are much smaller) */
      if (de > 0 && (s.mode == 1 || ev.peak > mp_ols_peak(&s))) {
        up += de;
        nup++;
      }
    }
    double T0 = (nup ? up / nup / log(2.0) : 1.0) * c->opt[OPT_heat], T = T0;
    for (long it = 0; it < iters && !proved; it++, T *= alpha) {
      if ((it & 255) == 0 && mp_time_up(c)) {
        cut = true;
        break;
      }
      if (!mp_ols_move(&s, &r, pdrag, reach)) continue;
      mp_ols_eval ev = mp_ols_eval_move(&s);
      double ne = energy(&s, ev, smooth), de = ne - e;
      if (de <= 0 || mp_rng_unit(&r) < exp(-de / T)) {
        mp_ols_commit(&s, ev);
        e = ne;
        if (ev.peak < best_peak || (ev.peak == best_peak && ne < best_e)) {
          if (s.mode == 1 && ev.peak < best_peak) {
            mp_ols_target_below(&s, ev.peak, margin);
            e = ne = (double)s.xs;
          }
          best_peak = ev.peak;
          best_e = ne;
          memcpy(best, s.ord, sizeof(int) * (size_t)n);
          proved = best_peak <= lb;
        }
      } else {
        mp_ols_revert(&s);
      }
    }
    /* the restart's local optimum: its final order */
    elite_add(&ep, s.ord, mp_ols_peak(&s), e);
  }
  memcpy(c->order, best, sizeof(int) * (size_t)n);
  if (proved)
    c->status = MP_OPTIMAL;
  else if (cut && rs <= restarts)
    c->status = MP_TIMEOUT; /* cut before the minimum */
  for (int k = 0; k < ep.cap; k++) free(ep.ord[k]);
  free(ep.ord);
  free(ep.peak);
  free(ep.e);
  free(tmp);
  free(best);
  mp_ols_free(&s);
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
