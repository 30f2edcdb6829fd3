/* remat_check.h - a recomputation solver's own check of the plan it is about
 * to return: the rules of DESIGN 6.2 replayed on the residency state and the
 * memory of DESIGN 6.3 counted in plan order.  The judge (src/events_*.c)
 * shares no code with the solvers it judges, so a solver that wants to be
 * sure of its decoding before it answers checks with this. */
#ifndef MP_LIB_REMAT_CHECK_H
#define MP_LIB_REMAT_CHECK_H

#include "events.h"

/* The buffers some node writes in place (buf, one per g->bufs entry) and
 * the nodes of their alias sets (node, one per node): DESIGN 6.2 runs those
 * exactly once and never offloads or remakes their storage. */
void mp_remat_inplace(const mp_graph *g, bool *buf, bool *node);
/* The nodes every solver runs at most once (node, one per node): those of
 * mp_remat_inplace, every in-place writer (a parameter's too: `alias: -1,
 * inplace`, an optimizer step), and the alias set of every parameter some
 * node writes in place (the judge's rule too: a parameter written in place
 * is a storage written in place).  None of the nodes it adds owns a
 * buffer: a rerun of one never remakes anything a plan needs. */
void mp_remat_once(const mp_graph *g, bool *node);

/* Is p a valid plan whose first runs follow `order` (NULL: any topological
 * order), with copies only when `copies`, and no node of mp_remat_once
 * running twice?  Returns 0 and its live peak in *peak (may be NULL), or -1
 * with a message in err (may be NULL). */
int mp_remat_check(const mp_graph *g, const int *order, const mp_events *p, bool copies,
                   int64_t *peak, mp_error *err);

/* What every recomputation solver answers before it searches: a budget
 * below mp_events_floor is infeasible (a proof; c->status set, no plan),
 * and when the keep-all plan of c->start_order fits, that plan is optimal
 * (every node runs once: the duration floor).  Sets c->duration_bound to
 * the duration floor.  Returns true when c is answered. */
struct mp_ctx;
bool mp_remat_settled(struct mp_ctx *c);

#endif
