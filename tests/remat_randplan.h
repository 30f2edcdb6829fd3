/* remat_randplan.h - random valid event plans (DESIGN 6.2) for the tests:
 * first runs in a random topological order, with random frees, random
 * recomputations (a freed buffer brought back by running its producer
 * again, recursively), and, when copies are allowed, random out/in pairs
 * and redundant outs.  Built on the oracle's model (tests/oracle.c) and the
 * raw node records only: it shares no code with src/events*.c.  Every plan
 * it returns is valid by the rules of DESIGN 6.2 (the tests check that
 * against both the oracle and the verifier). */
#ifndef MP_REMAT_RANDPLAN_H
#define MP_REMAT_RANDPLAN_H

#include "oracle_remat.h"

/* A random valid plan; *ev is malloc'ed, returns its length.  copies:
 * whether out/in events may appear. */
int rp_random_plan(const mp_graph *g, const or_model *m, mp_rng *r, bool copies, ox_event **ev);

#endif
