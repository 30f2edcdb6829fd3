/* noreuse.c - the no-sharing baseline: every buffer gets its own space,
 * one after another in buffer order. */
#include "solver.h"

static int noreuse_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int64_t top = 0;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0) {
      int64_t e = p->items[i].fixed + p->items[i].size;
      if (e > top) top = e;
    }
  for (int i = 0; i < p->n; i++) {
    if (p->items[i].fixed >= 0) {
      c->offsets[i] = p->items[i].fixed;
      continue;
    }
    if (p->items[i].size == 0) { /* takes no space: at 0, not above the rest */
      c->offsets[i] = 0;
      continue;
    }
    c->offsets[i] = mp_align_up(top, p->items[i].align);
    top = c->offsets[i] + p->items[i].size;
  }
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_noreuse = {
    .name = "noreuse",
    .summary = "no sharing at all: every buffer its own space (the baseline)",
    .decides = MP_DECIDES_OFFSETS,
    .roles = MP_ROLE_QUICK_PLACE,
    .solve = noreuse_solve,
};
