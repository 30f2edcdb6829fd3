/* remat_check.h - what the property tests of the recomputation/offload
 * solvers (test_remat_props.c on small graphs, test_remat_big.c on larger
 * ones) share: random node costs, which refusals a descriptor documents,
 * an event plan in the independent oracle's terms, the events stage of a
 * result, plan equality. */
#ifndef MP_REMAT_CHECK_H
#define MP_REMAT_CHECK_H

#include "oracle_remat.h"
#include "testlib.h"

/* Half the nodes get a cost in tenths from 0 to 4.9 (as a file would give
 * them); the others keep the default of DESIGN 6.1. */
void rc_random_costs(mp_graph *g, mp_rng *r);

/* May s refuse an input?  Only when its descriptor mentions a size cap or
 * a limit (summary, quick options, option names or help). */
bool rc_may_refuse(const mp_solver *s);

/* The plan as the oracle's events (malloc'ed, p->n + 1 entries). */
ox_event *rc_to_oracle(const mp_graph *g, const mp_events *p);

/* The first events stage of r, or NULL. */
const mp_stage_result *rc_events_stage(const mp_result *r);

/* The plan file mp_plan_write gives for r on g (malloc'ed text). */
char *rc_plan_bytes(mp_graph *g, const mp_result *r);

/* A first-run order for trial t: the given one (t odd) or a random
 * topological one (malloc'ed). */
int *rc_order_for(const mp_graph *g, mp_rng *r, int t);

/* The same events, one by one? */
bool rc_same_events(const mp_events *a, const mp_events *b);

#endif
