/* given.c - the order the file lists: what the framework would run. */
#include <string.h>

#include "solver.h"

static int given_solve(mp_ctx *c) {
  memcpy(c->order, c->g->given, sizeof(int) * (size_t)c->g->n);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_given = {
    .name = "given",
    .summary = "the file order (the framework's own order)",
    .decides = MP_DECIDES_ORDER,
    .roles = MP_ROLE_DEFAULT | MP_ROLE_FILE_ORDER,
    .solve = given_solve,
};
