/* listsched.h - topological orders built by simple rules (list scheduling),
 * shared by the single-rule order solvers (given, greedy, lpmf, bfs, dfs),
 * the `best` meta solver and the search solvers that need a start or an
 * upper bound (dp, ilp, sa, ga).  Model level: knows graphs, no solver. */
#ifndef MP_LISTSCHED_H
#define MP_LISTSCHED_H

#include "lifetime.h"
#include "lib/sim.h"
#include "solver.h"

typedef enum mp_ls_rule {
  MP_LS_GIVEN = 0, /* the file order */
  MP_LS_GREEDY,    /* least live memory after the step; ties: least during, file order */
  MP_LS_LPMF,      /* Inductor: fits under the current peak and leaves least, else needs least */
  MP_LS_BFS,       /* Kahn with a FIFO; siblings in file order */
  MP_LS_DFS,       /* finish a branch first; siblings in file order */
  MP_LS_N_RULES
} mp_ls_rule;

/* Registry-style name of a rule ("given", "greedy", "lpmf", "bfs", "dfs"). */
const char *mp_ls_rule_name(mp_ls_rule r);

/* Build the order of rule r into order[0..n-1]. */
void mp_ls_order(const mp_graph *g, mp_ls_rule r, int *order);
/* The same for a search solver's start: false when `deadline` (> 0; 0:
 * none) passed first, and order is then unfinished.  Without the cut the
 * order is mp_ls_order's. */
bool mp_ls_order_until(const mp_graph *g, mp_ls_rule r, int *order, double deadline);

/* The greedy rule randomised (start orders for the search solvers): ties
 * at random instead of in file order, and at every step with probability
 * eps a random ready node instead.  A valid order, unless `deadline` (> 0;
 * 0: none) passed first: false, order unfinished.  O(n x ready nodes):
 * seconds at 10^6 nodes. */
bool mp_ls_order_random_greedy(const mp_graph *g, mp_rng *r, double eps, int *order,
                               double deadline);

/* Priority list scheduling: at every step run the ready node of highest
 * prio[v] (ties: earlier in the file).  Any prio vector decodes to a valid
 * order (used by the genetic algorithm).  O(n log n + edges). */
void mp_ls_order_prio(const mp_graph *g, const double *prio, int *order);

/* The lowest live peak (mp_order_peak) among the rules' orders and, when
 * start != NULL, the order `start`: writes it to order and returns its peak.
 * Ties keep the earlier candidate: start, then given, greedy, lpmf, bfs, dfs.
 * *which (if not NULL) gets the winner's name ("start" for start). */
int64_t mp_ls_best(const mp_graph *g, const int *start, int *order, const char **which);
/* The same on up to `threads` threads, the caller's included: with 2 or
 * more (and 10,000 nodes or more) lpmf's order, the longest to build, is
 * built on a thread beside the others.  The same answer; *cpu_s (if not
 * NULL) gets the CPU seconds of that thread (0 without it). */
int64_t mp_ls_best_threads(const mp_graph *g, const int *start, int *order, const char **which,
                           int threads, double *cpu_s);

#endif
