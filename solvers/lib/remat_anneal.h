/* remat_anneal.h - local search over a recomputation genome (remat_decode.h)
 * at a fixed first-run order: the moves, the energy, the annealing loop and
 * the constructive starts.  Shared by remat-sa (the whole search) and
 * remat-ga (mutation and the memetic step).
 *
 * Energy: duration + lambda x excess, the excess being the bytes above the
 * budget summed over the memory samples, plus a fixed step (the mean node
 * cost) for any excess at all.  lambda adapts: it grows while the search
 * stays over the budget and shrinks slowly while it stays within it
 * (strategic oscillation), so the walk crosses the budget's border instead
 * of sticking on either side.
 *
 * Moves (each changes one or two genes, undone when rejected):
 *   drop    at the step of the peak sample, a gap that keeps its buffer
 *           across it is dropped or offloaded (the best of a few sampled by
 *           bytes per unit of recomputation time); half the time the
 *           buffers its recomputation reads are then dropped after their
 *           last use too (recomputed in turn) instead of held for it;
 *   undrop  a dropped or offloaded gap is kept again;
 *   swap    keep a dropped gap again and, when that goes over the budget,
 *           drop another at the new peak (trade one recomputation for
 *           another: two decodes);
 *   return  a dropped or offloaded gap returns at another step;
 *   delay   an offloaded gap is freed at another step;
 *   kind    drop <-> offload;
 *   random  any gap takes any kind it allows.
 * Every evaluated plan within the budget that is shorter than the best one
 * is kept (genes and plan), accepted or not. */
#ifndef MP_REMAT_ANNEAL_H
#define MP_REMAT_ANNEAL_H

#include "lib/anneal.h"
#include "lib/remat_decode.h"

/* The most genes one move changes. */
#define MP_RSA_UNDO 64

enum { MP_RM_DROP = 0, MP_RM_UNDROP, MP_RM_SWAP, MP_RM_RETURN, MP_RM_DELAY, MP_RM_KIND, MP_RM_RANDOM,
       MP_RM_N };

typedef struct mp_rsa {
  mp_rdec *d;
  int64_t budget;
  double lambda, lambda0, step_penalty;
  double pmove[MP_RM_N];    /* move probabilities (normalised) */
  mp_rgene *cur;            /* the current genome */
  mp_rfig fc;               /* its figures */
  int *active, *where, n_active; /* the slots that are not KEEP */
  int undo_slot[MP_RSA_UNDO], n_undo;
  mp_rgene undo_gene[MP_RSA_UNDO];
  int *cand;                /* scratch: candidate slots */
  /* the best plan within the budget */
  bool has_best;
  double best_duration;
  mp_rgene *best;
  mp_events best_plan;
  long evals;
} mp_rsa;

/* Set up on decoder d (its order set) for a budget; bandwidth decides
 * whether the offload moves are tried. */
void mp_rsa_init(mp_rsa *s, mp_rdec *d, int64_t budget);
void mp_rsa_destroy(mp_rsa *s);
/* Make genes the current genome.  Returns 0, or -1 when they do not decode
 * (the current genome is then unchanged). */
int mp_rsa_load(mp_rsa *s, const mp_rgene *genes);
double mp_rsa_energy(const mp_rsa *s, const mp_rfig *f);
static inline bool mp_rsa_fits(const mp_rsa *s, const mp_rfig *f) { return f->peak <= s->budget; }

/* Apply a random move to the current genome (undo recorded).  False when
 * none applies. */
bool mp_rsa_move(mp_rsa *s, mp_rng *r);
void mp_rsa_undo(mp_rsa *s);
/* Decode the moved genome: 0 with its figures (and the best plan updated),
 * or -1 when it does not decode. */
int mp_rsa_eval(mp_rsa *s, mp_rfig *f);
/* The initial temperature from `samples` random moves of the current genome
 * (fewer once mp_now() passes `deadline`, > 0; 0: none). */
double mp_rsa_sample_t0(mp_rsa *s, mp_rng *r, int samples, double heat, double deadline);
/* Anneal from the current genome for `moves` moves from t0 to t0 * t_end,
 * lambda adapting every 64 moves; stops early at the deadline (mp_now();
 * 0: none).  Returns false when cut by the deadline. */
bool mp_rsa_anneal(mp_rsa *s, mp_rng *r, long moves, double t0, double t_end, double deadline);

/* ---- constructive starts ---- */

/* From the current genome, drop (or offload) at the peak, one gap a round,
 * the one among the 16 with the most bytes per unit of recomputation time
 * (each with and without the tails of its inputs dropped) that brings the
 * plan closest under the budget, until the plan fits or no gap helps (at
 * most max_rounds rounds; deadline as above).  Returns true when the plan
 * fits. */
bool mp_rsa_greedy(mp_rsa *s, int max_rounds, double deadline);
/* Every gap that can be dropped is dropped (its buffer recomputed just in
 * time), repaired until it decodes.  Writes the genes. */
void mp_rgenes_drop_all(mp_rdec *d, mp_rgene *genes);

#endif
