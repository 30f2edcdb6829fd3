/* pack.h - what offset placers share: put items, in a sequence the placer
 * chooses, at the first or the best-fitting aligned gap among the already
 * placed items whose lifetimes intersect theirs; the one greedy incumbent
 * (best of several such packings); and a placer's own check of a placement.
 * Solver library: the verifier (src/plan.c) never uses it, and solvers
 * never use the verifier to prove their own results. */
#ifndef MP_PACK_H
#define MP_PACK_H

#include <stdatomic.h>

#include "lifetime.h"
#include "solver.h"

enum mp_fit { MP_FIRST_FIT = 0, MP_BEST_FIT = 1 };

/* Do items a and b share a step?  The literal half-open test, also for
 * empty lifetimes [t, t) (which then meet every lifetime strictly across t). */
static inline bool mp_live_together(const mp_item *a, const mp_item *b) {
  return a->lo < b->hi && b->lo < a->hi;
}

/* Place items seq[0..m) in that order.  Items pinned in the problem
 * (fixed >= 0) are placed first where they stand, whatever seq says.
 * Returns the arena. off[] receives every offset (unplaced items: -1).
 * A sequence in order of birth takes O(n log n) (a sweep over time); any
 * other O(n log n + the sum over items of the placed items live with them). */
int64_t mp_pack(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off);

/* What mp_pack_counted saw (for --verbose): items placed through the
 * lifetime index, the placed items it listed as live with them, the gaps
 * below the top of each listing's union of spans, and those gaps at least
 * the item's size, and the items whose gap choice needed no sort (their
 * size-wide buckets were few); `swept`: the sequence went to the sweep
 * instead. */
typedef struct mp_pack_counts {
  bool swept;
  int64_t items, listed, gaps, fitting, unsorted;
} mp_pack_counts;

/* mp_pack, but -1 (off unfinished) once mp_now() passes `deadline` (> 0;
 * 0: none), looked at every 64 items of a sequence the sweep does not
 * take: a by-size packing of a training graph takes minutes at 10^5. */
int64_t mp_pack_until(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off,
                      double deadline);
/* mp_pack_until, counting into *cnt (zeroed first) when cnt is not NULL. */
int64_t mp_pack_counted(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off,
                        mp_pack_counts *cnt, double deadline);

/* How a packing may use threads (pack_batch.c); the offsets and counts are
 * those of one thread. */
typedef struct mp_pack_threads {
  int threads;   /* at most, the caller's included (<= 1: it alone) */
  /* NULL, or a flag another thread sets when the packing is no longer
   * wanted (mp_ctx.cancel): looked at every 64 items of the sequence (and
   * every round on several threads); once set the packing stops, -1 */
  const atomic_int *cancel;
  int window;    /* the window of a round (pack_batch.h); 0: sized by its conflicts */
  int min_items; /* a shorter sequence is packed alone; 0: MP_PACK_THREADED_MIN */
  double cpu_s;  /* out, added to: the CPU seconds of the threads it started */
} mp_pack_threads;
enum { MP_PACK_THREADED_MIN = 1 << 12 };

/* mp_pack_counted without a deadline, on th->threads threads when the
 * lifetime index places seq (not the sweep); -1 (off unfinished) when
 * th->cancel was set first. */
int64_t mp_pack_threaded(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off,
                         mp_pack_counts *cnt, mp_pack_threads *th);

/* "solver: ..." on stderr: cnt in words, with the averages per item. */
void mp_pack_counts_print(const char *solver, const mp_pack_counts *cnt);

/* Lowest / best aligned offset for item i given the offsets in off[] of the
 * items listed in `placed` (only those whose lifetimes intersect i count).
 * The definition, item by item, in O(np log np): mp_pack gives the offsets
 * of calling it for every item in turn (the tests check that). */
int64_t mp_pack_one(const mp_problem *p, int i, const int *placed, int np, const int64_t *off,
                    enum mp_fit fit);

/* Placers that handle only real lifetimes call this last: it puts every
 * unpinned buffer with an empty lifetime first fit against everything else. */
void mp_pack_degenerate(const mp_problem *p, int64_t *off);

/* Sequences the classic placers use (ties always broken by item index):
 * by birth (lo asc), by size (size desc, lo asc). */
void mp_seq_by_birth(const mp_problem *p, int *seq);
void mp_seq_by_size(const mp_problem *p, int *seq);

/* How many pairs of items live together (the interference graph's edges,
 * counted without listing them, O(n log n)): a by-size packing lists about
 * these. */
int64_t mp_live_pairs(const mp_problem *p);

/* The greedy incumbent every searching placer starts from: the lowest arena
 * among first- and best-fit packings of five sequences (size; area =
 * lifetime x size; lifetime then size; birth; and `bysize`'s own sequence,
 * so it is never worse than `bysize`), and the chain's previous placement
 * (c->start_offsets) when mp_place_ok accepts it.  When more than
 * MP_INCUMBENT_PAIRS pairs of items live together, once the deadline has
 * passed it stops after the first packing (under a time limit, birth-order
 * first fit, computed first as it is O(n log n)); up to it, every packing is
 * made whatever the clock (about 30 ms near the threshold).  Returns the arena; best[]
 * gets the offsets (every item placed). */
enum { MP_INCUMBENT_PAIRS = 1 << 18 };
int64_t mp_place_incumbent(const mp_ctx *c, const mp_problem *p, int64_t *best);

/* A placer's own check (independent of the verifier): every offset >= 0,
 * aligned, pinned items where they stand, no two items live together
 * overlap in address, no end wraps around. */
bool mp_place_ok(const mp_problem *p, const int64_t *off);

/* max over items of offset + size (0 for none); INT64_MAX if it wraps. */
int64_t mp_place_arena(const mp_problem *p, const int64_t *off);

#endif
