/* remat_exec.h - the plan builder the recomputation heuristics share: it
 * runs the first-run order position by position and writes a valid event
 * plan, bringing back every buffer a run needs (from its host copy, else by
 * rerunning its producer, recursively) and freeing buffers by a policy.
 *
 * It keeps its own account of the plan it writes (the solver checks itself
 * with its own code, never with the judge): memory in plan order (the
 * samples of DESIGN 6.3) and the time of one compute stream and two copy
 * streams with the blocking rule of `free`.
 *
 * Policies, combined:
 * - hold[b] > 0: the driver keeps b (a checkpoint); it is freed only when
 *   no use remains.
 * - keep (optional, NULL unless the driver sets it): keep[b] > 0 keeps b
 *   resident whatever its uses (a checkpoint the driver will rerun from,
 *   an input held past its last reader: remat_info's RI_HOLD); the driver
 *   frees it with rx_release.
 * - horizon: a forward buffer that may be dropped, not held, whose next use
 *   is at or after the horizon is freed as soon as it has been used
 *   (Chen's segments, the stages of rotor).
 * - gap[e] (optional, indexed like ri->ev): how buffer b spends the time
 *   between its event e and the next: RX_KEEP, RX_DROP (freed, recomputed
 *   on demand) or RX_SWAP (copied out after it is made, freed once the copy
 *   has ended by the plan's own clock, so that the free never stalls the
 *   compute stream; brought back at the position prefetch[e], or on
 *   demand; resident again from that position on, it stays until its
 *   next use).  The copies in of a position go in the order of their
 *   next use.
 * - an eviction callback (DTR): before memory would exceed the budget, it
 *   names a resident buffer to free (or -1: the run fails).
 * Without a callback the budget is not enforced: the driver reads `peak`.
 * A buffer no later run reads is freed at once (graph outputs stay).
 *
 * A buffer waiting for its copy out to end (pending) is looked at again
 * when that copy has ended, when the builder changes its state (residency,
 * locks, next event, rx_release) and after rx_set_gaps: a driver that
 * changes hold, keep or a gap of a waiting buffer otherwise calls
 * rx_set_gaps again before the next step. */
#ifndef MP_REMAT_EXEC_H
#define MP_REMAT_EXEC_H

#include "lib/remat_info.h"
#include "lib/remat_wait.h"

enum { RX_KEEP = 0, RX_DROP = 1, RX_SWAP = 2 };

typedef struct rx_exec rx_exec;
/* A victim to free so that `need` more bytes fit, or -1. */
typedef int (*rx_victim_fn)(rx_exec *x, int64_t need, void *ctx);
/* Told when buffer b is freed (dropped = it still has uses) or made
 * resident again (made), so that an eviction policy can keep its state;
 * also of every change of residency and of last_access: ACCESS when b is
 * made resident or read (last_access = clock), GONE when it is freed. */
typedef void (*rx_note_fn)(rx_exec *x, int b, int what, void *ctx);
enum { RX_NOTE_FREED = 1, RX_NOTE_MADE = 2, RX_NOTE_READ = 3, RX_NOTE_ACCESS = 4, RX_NOTE_GONE = 5 };

typedef struct rx_frame {
  int buf, k; /* the buffer to bring back, the next read of its producer to lock */
} rx_frame;

struct rx_exec {
  const ri_info *ri;
  const mp_graph *g;
  mp_events *out;       /* the plan written (may be NULL: measure only) */
  int64_t budget;       /* enforced through the victim callback only */
  double bandwidth;     /* 0: no copies */
  double deadline;      /* mp_now() deadline, 0: none */
  /* policy */
  int *hold;
  int *keep;            /* NULL, or per buffer (the driver's array) */
  int horizon;
  const uint8_t *gap;
  const int *prefetch;  /* per event index: position to bring it in at, or -1 */
  int *pre_start, *pre; /* prefetch lists per position (built by rx_set_gaps) */
  int *pre_ev, pre_cap; /* each entry's event; room in pre and pre_ev */
  int *rerun_seen;      /* NULL, or per buffer (the driver's array): the last
                           position whose reruns read or remade it (the steps
                           that looked at its residency besides its own events) */
  rx_victim_fn victim;
  rx_note_fn note;
  void *ctx;
  /* state */
  uint8_t *res, *host;
  int *lock, *cur;      /* cur[b]: index of b's next event not yet passed */
  int *nu;              /* nu[b]: rx_next_use(b), kept as cur moves */
  int *runs;            /* per node */
  int p;                /* the next position to run */
  int64_t live, peak;
  double clock;         /* the cost of every run so far (DTR's time) */
  double *last_access;  /* per buffer: clock at its last use or making (kept only
                           with a callback, note or victim) */
  int *rlist, *rpos, nres; /* the resident buffers (inputs included) */
  /* time (own simulation of DESIGN 6.3) */
  double floor, t_comp, t_out, t_in, duration;
  double *ready, *last_read, *last_out; /* floor and these: kept only with a link
                           (bandwidth > 0); without, no run can stall */
  double *pos_start;    /* per position: when its first run started */
  double *pos_tout, *pos_tin; /* per position: when each copy stream is free, then */
  double *pos_work;     /* per position: the runs' cost before its first run (the
                           clock): when it would start had nothing stalled */
  int64_t *pos_peak;    /* optional (caller's, m + 1 entries): the largest
                           sample while position p is prepared and run; p = m
                           is the end (outputs brought back) */
  int64_t n_reruns, n_ins;
  rx_frame *stack;
  int *touched, nt, tcap; /* buffers to settle once the caller's reads are locked */
  rx_wait wait;         /* swapped buffers waiting for their copy out to end */
  uint8_t *pending;     /* 1: settle once copied (gaps); 2: free once copied (rx_offload) */
  int failed;
  bool dirty_time, dirty_access; /* those accounts copied in (rx_copy_state) */
  char msg[256];
};

/* out may be NULL; budget INT64_MAX when there is no eviction. */
void rx_init(rx_exec *x, const ri_info *ri, mp_events *out, int64_t budget, double bandwidth);
void rx_destroy(rx_exec *x);
/* The state of rx_init again, the arrays kept (no allocation, no fresh
 * pages), the budget kept; every policy and callback unset. */
void rx_restart(rx_exec *x, mp_events *out, double bandwidth);
/* dst (rx_init'ed on the same ri, writing no events, no policy arrays
 * of its own) takes src's state: a plan continued from src's point
 * without redoing what led there.  hold is copied too; the accounts that
 * stay zero without callbacks (last_access) or without a link (ready,
 * last_read, last_out) are copied only when src or dst has them, and the
 * per-position times only for the positions src has run (dst's later
 * ones are rewritten as it runs them). */
void rx_copy_state(rx_exec *dst, const rx_exec *src);
/* rx_copy_state without the per-position times, for a run and its own
 * snapshots (remat_ckpt.h): the run keeps the times of the positions
 * before a valid snapshot's, and a snapshot never gives them back. */
void rx_copy_state_untimed(rx_exec *dst, const rx_exec *src);
/* x: a snapshot of `of` that only holds what rx_copy_state_untimed
 * copies between them (no per-position times, no scratch, the accounts of
 * last_access and of the link only when `of` keeps them); it never runs,
 * it is copied to and from. */
void rx_init_snapshot(rx_exec *x, const rx_exec *of);
/* b resident again as if it had never been freed: no event, no sample
 * (for a driver that rebuilds a state, rx_copy_state). */
void rx_resident(rx_exec *x, int b);
/* Gap modes and prefetch positions (arrays of ri->ev_start[nb] entries,
 * kept by the caller); call before rx_start. */
void rx_set_gaps(rx_exec *x, const uint8_t *gap, const int *prefetch);
/* Buffer b's prefetch position at its event e was `was` and is now the
 * prefetch array's: its lists updated in place, as rx_set_gaps would
 * build them (O(m), not O(events)). */
void rx_prefetch_changed(rx_exec *x, int b, int e, int was);
/* The start: input buffers nobody reads are freed, offloaded inputs copied. */
int rx_start(rx_exec *x);
/* The first run of the node at position x->p (materialising its reads),
 * then the frees the policy asks for.  0, or -1 with x->msg. */
int rx_step(rx_exec *x);
/* Make b resident (host copy, else reruns).  0, or -1 with x->msg. */
int rx_materialize(rx_exec *x, int b);
/* Free a resident buffer (the driver's explicit free; an rx_offload still
 * waiting for its copy is freed now, the free waiting for the copy). */
void rx_free(rx_exec *x, int b);
/* keep[b]--, then settle b (freed now when the policy says so). */
void rx_release(rx_exec *x, int b);
/* The driver's offload of a resident buffer: copied out (unless it has a
 * host copy), then freed at the first position whose run starts after the
 * copy has ended, so that the free never holds the compute stream back
 * (whatever keep says: the driver still counts on it, from the host). */
void rx_offload(rx_exec *x, int b);
/* The copy out of a resident buffer without a host copy, nothing more:
 * the driver frees it later with rx_free, whose free waits for the copy
 * (DESIGN 6.3), so that the memory is the plan's order, not the clock's. */
void rx_copy_out(rx_exec *x, int b);
/* Free the offloaded buffers whose copy out has ended by now (the plan's
 * clock); rx_step does it before each first run. */
void rx_poll(rx_exec *x);
/* Bring b back for the driver: a pending offload is cancelled, else b
 * comes from its host copy (or by reruns).  0, or -1 with x->msg. */
int rx_fetch(rx_exec *x, int b);
/* Every remaining position, then every graph output brought back. */
int rx_finish(rx_exec *x);
/* Next use position of b (ri->m + 1 when none remains; m for outputs). */
static inline int rx_next_use(const rx_exec *x, int b) { return x->nu[b]; }
static inline bool rx_time_up(const rx_exec *x) { return x->deadline > 0 && mp_now() >= x->deadline; }

#endif
