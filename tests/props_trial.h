/* props_trial.h - one trial of the solver property tests: a graph or a
 * fixed-lifetime problem with the references every solver's result is
 * checked against (the given baseline, the greedy placers' arenas, the
 * peaks of the simple orders, the brute-force optimum of a small graph),
 * and one solver run on it with every check of props_check.h, twice: the
 * same seed gives the same plan.
 *
 * A small trial runs each solver with its `quick` options and a 5 s time
 * limit.  A larger one (`big`) runs it with a short time limit, with the
 * quick options except the size caps (those stay at their documented
 * defaults, so an exact solver meets inputs up to its real cap and must
 * still report an honest status), and checks every plan file. */
#ifndef MP_PROPS_TRIAL_H
#define MP_PROPS_TRIAL_H

#include "props_check.h"

/* The time limit of each solver run on a larger trial (seconds). */
#define PC_BIG_LIMIT 0.25

typedef struct graph_trial {
  mp_graph *g;
  or_model om;
  char *js;            /* for messages: the graph's JSON, or how it was made */
  int n;
  int64_t opt;         /* brute-force optimum peak, or -1 */
  int64_t peak_ub;     /* least peak of the simple orders (given, greedy, ...) */
  int64_t given_arena; /* the baseline: given order + bysize */
  int64_t ref[2];      /* best greedy placer's arena under given / greedy */
  bool big;
} graph_trial;

/* Takes g and js (malloc'ed); the brute-force optimum when g has at most
 * 8 nodes. */
void graph_trial_init(graph_trial *T, mp_graph *g, char *js, bool big);
void graph_trial_destroy(graph_trial *T);
/* Solver s on trial i: every check; false when refused under its cap. */
bool solver_on_graph(const mp_solver *s, graph_trial *T, int i, solver_stats *st);

typedef struct fixed_trial {
  pc_fixed p;          /* as generated (the caller keeps its arrays) */
  char *csv, *path;    /* the MiniMalloc CSV text and its file */
  const char *label;   /* for messages: the CSV, or how it was made */
  mp_problem prob;     /* as the CSV reader reads it */
  int64_t given_arena; /* bysize's arena */
  int64_t ref;         /* the best greedy placer's arena */
  int64_t opt;         /* the least arena when known by construction, or -1 */
  bool big;
} fixed_trial;

/* Takes csv (malloc'ed); label NULL: the CSV itself.  opt: -1 (set it
 * after the call when the problem's optimum is known). */
void fixed_trial_init(fixed_trial *T, const pc_fixed *p, char *csv, const char *label, bool big);
void fixed_trial_destroy(fixed_trial *T);
/* Placer s on trial i: every check; false when refused under its cap. */
bool placer_on_fixed(const mp_solver *s, fixed_trial *T, int i, solver_stats *st);

#endif
