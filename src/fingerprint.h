/* fingerprint.h - a hash of each solver's sources, generated at build time
 * (scripts/gen_fingerprints.sh -> build/fingerprints.c): the solver's own
 * file(s), the solvers/ headers it includes and the solvers/lib sources
 * behind them.  A results row records the fingerprints of its solvers, so
 * that rows of a rebuilt solver are known to be stale. */
#ifndef MP_FINGERPRINT_H
#define MP_FINGERPRINT_H

#include "solver.h"

/* 16 hex digits, or "unknown" for a solver the table does not list. */
const char *mp_solver_fingerprint(const mp_solver *s);

#endif
