/* remat_decode.h - a genome of recomputation and offload decisions and its
 * decoder into an event plan (DESIGN 6), for the search solvers remat-sa
 * and remat-ga.  Solver library: the decoder is the searchers' own code and
 * shares nothing with the judge (src/events_verify.c, events_eval.c).
 *
 * Genome.  A gene per *slot*: for every tensor buffer b, one slot per reader
 * w of b (g->bufs[b].readers, in that order) and one more: for a graph
 * output the *end* slot (to the end of the plan), for any other buffer
 * that is read the *tail* slot (after its last use).  Under a first-run
 * order pi the slot of reader w is the *gap* of b that ends at w's step: it
 * starts at the step of b's previous use (or of its owner), it ends at
 * pos(w); the end and tail slots' gaps end after the last step.  Slots name readers, not positions, so a
 * genome keeps its meaning when remat-ga changes the order.  A gene says
 * how b crosses its gap:
 *   KEEP     resident all along;
 *   DROP     freed after the gap's start, recomputed `back` steps before its
 *            end (0: just in time, by the run that needs it);
 *   OFFLOAD  copied out at the gap's start (unless a host copy exists),
 *            freed `delay` steps later (so that the copy can end first),
 *            brought in `back` steps before the end (a prefetch).
 *   HOLD_DROP DROP, but held `delay` steps after the gap's start for the
 *            recomputations that read it there (freed after the last of
 *            them by then); the search moves never make it, a plan mapped
 *            to a genome does (remat_map.h: the plan freed it later).
 * The tail slot takes KEEP or DROP only: KEEP holds b after its last use
 * for the recomputations that read it (freed after the last of them), DROP
 * frees it after its last use (recomputations then make it again), and
 * with back > 0 makes it again `back` steps before the end and holds it.
 *
 * Decoding (one pass over pi, then one over the events):
 *   - at step t, first the buffers whose gaps bring them back at t (ins,
 *     then recomputations), then every buffer v = pi[t] reads that is not
 *     resident: in from its host copy, else its owner runs again, after its
 *     own missing inputs, recursively (a temporary);
 *   - run v; then every buffer the step touched follows the gene of the gap
 *     it is in: kept, dropped, or copied out (and dropped at `delay`);
 *   - a buffer that cannot be recomputed (an input's, a storage written in
 *     place, the outputs of a node of such a storage's alias set, or of a
 *     node that reads a storage a later in-place write changes) is never
 *     dropped but by an offload: it stays until its last use;
 *   - the outputs end resident (recomputed or brought in when not);
 *   - every residency but an offload's ends right after its last use (the
 *     free goes right behind the last run that reads it), an offload's at
 *     the step the gene says.
 * A node that reads storage written in place runs again only up to the
 * step of the next in-place write to it: the verifier does not check this
 * (it checks first runs only), but a rerun after the write would read
 * changed data.  With strict = false the decoder allows what the verifier
 * allows (to compare with solvers that do).
 * Decoding fails when a dropped buffer must come back where it cannot (its
 * owner may not run again there): the slot responsible is reported; or
 * when the plan grows beyond 64 events per node (chains of recomputations
 * at every use): no slot.
 *
 * Figures: the memory samples of DESIGN 6.3 (the start, every run with its
 * workspace, every in), their peak, the excess (sum over samples of bytes
 * above the budget) and the duration (the sum of the runs' costs without a
 * host link; with one, DESIGN 6.3's simulation in this file's own code). */
#ifndef MP_REMAT_DECODE_H
#define MP_REMAT_DECODE_H

#include "events.h"
#include "graph.h"

enum { MP_RK_KEEP = 0, MP_RK_DROP = 1, MP_RK_OFFLOAD = 2, MP_RK_HOLD_DROP = 3, MP_RK_N = 4 };
/* slot_reader of the end and tail slots */
enum { MP_RSLOT_END = -1, MP_RSLOT_TAIL = -2 };

typedef struct mp_rgene {
  uint8_t kind;  /* MP_RK_* */
  int32_t back;  /* DROP, OFFLOAD, HOLD_DROP: steps before the gap's end the buffer returns */
  int32_t delay; /* OFFLOAD, HOLD_DROP: steps after the gap's start it is freed */
} mp_rgene;

typedef struct mp_rfig {
  double duration;
  int64_t peak;
  double excess;   /* sum over the samples of the bytes above the budget */
  int hot_step;    /* the step of the first sample at the peak (n: the end) */
  int over_steps;  /* how many samples exceed the budget */
  int reruns, ins, outs;
  int fail_slot;   /* decode failed: the slot whose drop cannot be undone, or -1 */
} mp_rfig;

/* A residency of the plan under construction. */
typedef struct mp_rres {
  int buf, make, last; /* event indices (raw events); -1: the start / no use */
  int end;             /* -2: open (to the end), -1: free after max(make, last), else after `end` */
} mp_rres;

typedef struct mp_rdec {
  const mp_graph *g;
  double bw;
  int n, nb, n_slots;
  /* per graph */
  int *slot0;          /* per buffer: its first slot (nb + 1 entries) */
  int *slot_buf;       /* per slot: its buffer */
  int *slot_reader;    /* per slot: its reader, or MP_RSLOT_END / MP_RSLOT_TAIL */
  uint8_t *allow;      /* per slot: 1 << kind for each kind it may take */
  bool *remat_ok;      /* per buffer: its owner may run again */
  bool *inplace_buf, *inplace_node;
  /* per order */
  int *order, *pos;
  int *gs, *ge;        /* per slot: its gap [gs, ge) in steps (ge = n: the end) */
  int *gap0, *gaps;    /* per buffer: its slots by gap end (gap0: nb + 1 offsets) */
  int *rerun_until;    /* per node: it may run again at steps below this */
  bool *pinned;        /* per buffer: never dropped but by an offload */
  int *next_write;     /* per buffer: scratch of the rerun limits */
  /* decode state */
  bool *resident, *host;
  int *res_of, *cursor, *drop_slot, *stamp, cur_stamp;
  int *touched, n_touched;
  int *bucket_head, *bucket_next; /* per step: slots that bring a buffer back */
  int *sched_head, *sched_next, *sched_buf, n_sched, cap_sched;
  mp_events raw;       /* runs, ins, outs */
  int *raw_step, raw_cap; /* per raw event: its step */
  int max_events;      /* a decode that emits more gives up (fail_slot -1) */
  bool strict;         /* no rerun reads storage an in-place write changed since
                          (default; set before mp_rdec_set_order) */
  mp_rres *res;
  int n_res, cap_res;
  int *free_head, *free_next, free_cap;
  mp_events plan;      /* the last decoded plan */
  double *clock;       /* time simulation: per buffer ready, last read, last out */
  const mp_rgene *genes;
  int fail_slot;
} mp_rdec;

/* Set up for g; bandwidth 0: no host link (OFFLOAD is then never allowed). */
void mp_rdec_init(mp_rdec *d, const mp_graph *g, double bandwidth);
void mp_rdec_destroy(mp_rdec *d);
/* The first-run order (a topological order of all n nodes). */
void mp_rdec_set_order(mp_rdec *d, const int *order);

static inline bool mp_rdec_allows(const mp_rdec *d, int slot, int kind) {
  return (d->allow[slot] >> kind) & 1;
}
/* Gap length in steps (>= 1). */
static inline int mp_rdec_gap_len(const mp_rdec *d, int slot) { return d->ge[slot] - d->gs[slot]; }

/* Decode genes (n_slots of them) under the current order.  Returns 0 with
 * the figures, the plan in d->plan; or -1 (f->fail_slot set) when a dropped
 * buffer cannot come back. */
int mp_rdec_decode(mp_rdec *d, const mp_rgene *genes, int64_t budget, mp_rfig *f);

/* The second pass (remat_measure.c): frees, samples, duration. */
void mp_rdec_measure(mp_rdec *d, int64_t budget, mp_rfig *f);

/* A floor on the live peak of every plan whose first runs follow the
 * current order: the storage written in place that must be resident at a
 * step, plus what the run at that step reads and makes (*at: that step, or
 * -1).  Not a proof of infeasibility by the solver contract (solver.h), a
 * reason to stop searching. */
int64_t mp_rdec_inplace_floor(const mp_rdec *d, int *at);

/* The genome that keeps everything (its plan is the equivalence rule's). */
void mp_rgenes_keep_all(const mp_rdec *d, mp_rgene *genes);

#endif
