/* ordls.h - local search over topological orders: an order with the live
 * profile of DESIGN 1.3 kept up to date under moves that rearrange one
 * window of steps, for the search order solvers (sa, ga).  Model level:
 * knows graphs and orders, no solver.
 *
 * State: the order, every buffer's birth/death step, the profile M(t) and
 * a max segment tree over it, and one energy figure kept incrementally:
 *   mode 1: the excess sum_t max(0, M(t) - U) over a target U (set by the
 *           caller, typically just under the best peak found);
 *   mode 0: the soft-max sum_t (M(t)/scale)^k.
 * Moves (each keeps the order valid; see ordls.c):
 *   - shift: a node, or the operator chain it heads, goes to a random step
 *     between its last predecessor and its first successor;
 *   - drag: a node goes up to `reach` steps earlier (later) together with
 *     its ancestors (descendants) in between.
 * A move is applied at once (mp_ols_move), evaluated on its window alone
 * (mp_ols_eval: cost the window plus the degrees of its nodes, the rest of
 * the profile from the tree), then kept (mp_ols_commit) or undone
 * (mp_ols_revert). */
#ifndef MP_ORDLS_H
#define MP_ORDLS_H

#include "lifetime.h"
#include "solver.h"

typedef struct mp_ols_eval {
  int64_t peak; /* live peak of the moved order */
  int64_t xs;   /* mode 1: excess over U */
  double sum;   /* mode 0: soft-max sum */
} mp_ols_eval;

typedef struct mp_ols {
  const mp_graph *g;
  int n;
  int *ord, *pos;
  int64_t *birth, *death; /* per buffer (size > 0 only are used) */
  int64_t *M;             /* profile */
  int64_t *tree;          /* max segment tree over M */
  int tn;                 /* leaves (power of two) */
  int mode;
  double scale;           /* mode 0 */
  int k;                  /* mode 0 */
  double sum;             /* mode 0 */
  int64_t U, xs;          /* mode 1 */
  /* the pending move: window [a, b], old contents in save */
  int a, b;
  /* scratch */
  int *stamp, cur;
  int *aff, naff;
  int64_t *nb, *nd;
  int64_t *diff, *Mw;
  int *save, *tmp;
  char *mark;
} mp_ols;

/* Set up for g with energy mode (0 or 1) and, for mode 0, exponent k. */
void mp_ols_init(mp_ols *s, const mp_graph *g, int mode, int k);
void mp_ols_destroy(mp_ols *s);
/* Load an order (full recomputation: O(n + buffers + readers)). */
void mp_ols_load(mp_ols *s, const int *order);
static inline int64_t mp_ols_peak(const mp_ols *s) { return s->tree[1]; }
static inline mp_ols_eval mp_ols_current(const mp_ols *s) {
  return (mp_ols_eval){s->tree[1], s->xs, s->sum};
}
/* Mode 1: a new target (recomputes the excess, O(n)). */
void mp_ols_set_target(mp_ols *s, int64_t U);
/* Mode 1: the target just under a peak, best x (1 - margin) - 1 byte (the
 * search solvers' choice: an order reaching it beats best). */
void mp_ols_target_below(mp_ols *s, int64_t best, double margin);
/* Mode 0: the scale of the soft-max (recomputes the sum, O(n)). */
void mp_ols_set_scale(mp_ols *s, double scale);

/* Apply a random move: a drag move with probability pdrag (window of at
 * most reach steps), else a shift move.  Returns false (nothing changed)
 * when the picked node cannot move. */
bool mp_ols_move(mp_ols *s, mp_rng *r, double pdrag, int reach);
/* Figures of the order with the pending move applied. */
mp_ols_eval mp_ols_eval_move(mp_ols *s);
void mp_ols_commit(mp_ols *s, mp_ols_eval ev);
void mp_ols_revert(mp_ols *s);

/* ---- annealing over these moves (sa, and ga's local search) ---- */

/* The energy an annealer minimises: mode 1 the excess over the target;
 * mode 0 the peak + smooth x scale x the mean soft-max term. */
double mp_ols_energy(const mp_ols *s, mp_ols_eval ev, double smooth);
/* Initial temperature: the mean energy rise of the uphill moves among
 * `samples` random moves from the current order (each undone), over ln 2,
 * so that the mean uphill move is accepted with probability 1/2 (mode 0
 * counts only the moves that raise the peak: those that change the soft
 * term alone are much smaller); 1 when no move rises. */
double mp_ols_sample_t0(mp_ols *s, mp_rng *r, double pdrag, int reach, double smooth, int samples);
/* One Metropolis step at temperature T > 0: a random move, kept when it
 * does not raise the energy or with probability exp(-rise / T), else
 * undone.  True when a move was kept (its figures in *ev). */
bool mp_ols_anneal_step(mp_ols *s, mp_rng *r, double pdrag, int reach, double T, double smooth,
                        mp_ols_eval *ev);

#endif
