/* registry.h - the table of every solver, generated at build time from the
 * file names in solvers/ (build/registry.c).  The harness uses this; solvers
 * never include it. */
#ifndef MP_REGISTRY_H
#define MP_REGISTRY_H

#include "solver.h"

extern const mp_solver *const mp_registry[];
extern const int mp_registry_size;

const mp_solver *mp_solver_find(const char *name);
/* The first solver deciding exactly `decides` that has one of the MP_ROLE_*
 * flags in `role`, or NULL. */
const mp_solver *mp_solver_with_role(unsigned role, int decides);

#endif
