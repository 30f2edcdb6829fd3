/* rotor.h - the rotor solver's pieces (Beaumont et al., "Optimal
 * checkpointing for heterogeneous chains", 2019/2021): the chain a graph is
 * cut into (chain.c), the dynamic program over it and the schedule it
 * yields (dp.c), and the driver that plays the schedule on the shared plan
 * builder and searches the program's memory for the real budget (rotor.c).
 *
 * The chain.  The forward [0, turn) is cut into L stages at boundaries
 * whose frontier is small: articulation points (a one-buffer frontier)
 * first; where they are too sparse for L stages, the positions with the
 * fewest frontier bytes (option frontier=1).  Per stage k (1-based):
 *   a[k]   bytes of the droppable frontier after stage k (what a checkpoint
 *          of boundary k keeps; a[0] = 0: the inputs stay anyway),
 *   sv[k]  bytes of droppable buffers made in stage k that the backward
 *          reads (outside a[k]): what F_all keeps,
 *   pk[k]  the peak of the droppable bytes stage k's forward makes,
 *   ab[k]  the bytes of a[k] that backward group k reads (the rest of the
 *          frontier is released before it); ain[k] those of a[k-1],
 *   bneed[k] the most backward group k takes at one of its positions: the
 *          background there plus what it still reads of sv[k] and ab[k]
 *          (each freed after its last use),
 *   f[k]   the cost of rerunning stage k (nodes that make droppable buffers).
 * Everything else (buffers that may not be dropped, the backward's own
 * buffers) is a background that changes with time: bgS[k] is its largest
 * sample during stage k's first forward, bgB[k] during backward group k,
 * bgF[k] its sample just before group k starts (when the schedule's
 * forward reruns for group k happen).  The program fits the chain's buffers under
 * budget - background at each step (a time-varying memory limit, where the
 * paper has a constant one); the driver corrects the budget it gives the
 * program until the real plan fits.
 * Backward positions [turn, m) are split into groups L .. 1 in order: a
 * backward node belongs to the lowest stage whose buffers it reads (a
 * running minimum, so the groups are contiguous and descending). */
#ifndef MP_ROTOR_H
#define MP_ROTOR_H

#include "lib/remat_exec.h"

typedef struct rt_chain {
  int L;
  int *start;           /* start[k], k = 1..L+1: first position of stage k; start[L+1] = turn */
  int64_t *a, *sv, *pk, *ab, *ain, *bneed; /* k = 0..L */
  double *f;
  int *fr_start, *fr;   /* frontier buffers after stage k (k = 0..L), CSR */
  int *sv_start, *svb;  /* saved buffers of stage k, CSR */
  int *mk_start, *mk;   /* droppable buffers made in stage k, CSR */
  int *gstart, *gend;   /* backward group k: positions [gstart[k], gend[k]) */
  int64_t *bgS, *bgF, *bgB; /* background bytes (k = 1..L) */
  int64_t *at;          /* the background's sample at each position */
} rt_chain;

/* max_stages >= 1; frontier: 0 articulation points only, 1 also the
 * smallest multi-buffer frontiers. */
void rt_chain_init(rt_chain *ch, const ri_info *ri, int max_stages, int frontier);
void rt_chain_destroy(rt_chain *ch);

/* The program: F_all(k) 'A', F_n(k) 'N', backward group k 'B', release the
 * hold on frontier k 'r', release the hold on saved k 's'. */
typedef struct rt_op {
  char op;
  int k;
} rt_op;

typedef struct rt_dp {
  const rt_chain *ch;
  int L, S;             /* stages, memory slots */
  int64_t slot;         /* bytes per slot */
  int *A, *SV, *P, *AB; /* sizes in slots (rounded up) */
  bool *keep_in;        /* backward group k reads its input frontier */
  int *capS, *capF, *capB; /* budget - background, in slots (rounded down) */
  double *F;            /* prefix sums of f */
  double *val, *valx;   /* M(s, t, h) and M*(s, t, h), triangular in (s, t) */
  int *row;             /* offset of (s, s) */
} rt_dp;

/* Fill the table for a budget in bytes, with `slots` slots of budget /
 * slots bytes (0, or -1 when the deadline passed first). */
int rt_dp_init(rt_dp *d, const rt_chain *ch, int64_t budget, int slots, double deadline);
void rt_dp_destroy(rt_dp *d);
double rt_dp_value(const rt_dp *d); /* M(1, L, 0); INFINITY when none */
/* The schedule (when rt_dp_value is finite): ops appended to *ops (grown
 * with *cap); returns how many. */
int rt_dp_program(const rt_dp *d, rt_op **ops, int *cap);

#endif
