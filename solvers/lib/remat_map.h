/* remat_map.h - from an event plan to a recomputation genome
 * (remat_decode.h), so that a search can start from the plan of another
 * solver (a chain `--remat dtr,remat-sa`: mp_ctx.start_events) or of a
 * library heuristic.
 *
 * For every slot of buffer b with gap [gs, ge) under the decoder's order:
 *   KEEP     when the plan never frees b between the first run at step gs
 *            and the first run at step ge;
 *   DROP     when it frees b there and the last return before step ge is a
 *            run of b's owner: back = ge - the step that return precedes;
 *            HOLD_DROP with delay = the step of the first free - gs when
 *            that is after the gap's start (recomputations in the gap may
 *            read b before the plan frees it);
 *   OFFLOAD  when that return is an `in`: back as for DROP, delay = the step
 *            of the first free in the gap - gs.
 * The tail slot is DROP when the plan frees b after its last first-run use
 * and makes it again later, else KEEP (a free after the last use is what
 * KEEP decodes to when no recomputation reads b there).  A kind the slot does not allow
 * becomes KEEP.  Events between the first runs at steps p and q (q the next
 * non-input step) count as frees after step p and returns at step q.
 *
 * The decoder has its own rules (a free right behind the last use, returns
 * of missing inputs just in time, recursively), so the decoded plan is
 * close to the plan mapped, not equal: the keep-all plan maps to the
 * keep-all genome; measured on the training graphs in the
 * README. */
#ifndef MP_REMAT_MAP_H
#define MP_REMAT_MAP_H

#include "lib/remat_decode.h"

/* Map plan p, whose first runs follow the decoder's order
 * (mp_events_follow), to genes (n_slots of them).  Returns 0, or -1 when p
 * does not follow the order (genes are then keep-all). */
int mp_rgenes_from_events(const mp_rdec *d, const mp_events *p, mp_rgene *genes);

/* Make genes decode: every slot the decoder reports as failing is kept
 * (keep-all when the plan grows too long).  Returns 0, or -1 when nothing
 * decodes within deadline (mp_now(); 0: none). */
int mp_rgenes_repair(mp_rdec *d, mp_rgene *genes, double deadline);


/* A start plan handed to a search (mp_ctx.start_events): its genome at the
 * decoder's order (mapped, then repaired) and its own figures, by the
 * model's evaluator, so that the search returns it when it finds nothing
 * shorter within the budget. */
typedef struct mp_rstart {
  bool has_plan;    /* a plan within the budget whose first runs follow the order */
  double duration;  /* its duration (mp_events_evaluate) */
  int64_t peak;     /* its live peak */
  bool has_genes;   /* its genome decodes */
  mp_rfig fig;      /* the decoded genome's figures */
} mp_rstart;

/* Fill st from plan p (NULL: none) for decoder d (its order set); genes
 * gets the mapped, repaired genome when st->has_genes (never once deadline,
 * mp_now(), > 0, has passed). */
void mp_rstart_map(mp_rdec *d, const mp_events *p, int64_t budget, double deadline, mp_rstart *st,
                   mp_rgene *genes);
/* Should the search return the start plan rather than its own best
 * (has_best, best_duration)? */
static inline bool mp_rstart_wins(const mp_rstart *st, bool has_best, double best_duration) {
  return st->has_plan && (!has_best || st->duration < best_duration);
}

/* A plan of one's own to start from (remat_seed.c): Chen's checkpointing
 * at every j-th articulation point of the forward, j over a short grid,
 * the shortest plan within the budget, in out.  0, or -1 when none fits. */
int mp_rseed_chen(const mp_graph *g, const int *order, int64_t budget, double deadline, mp_events *out);

#endif
