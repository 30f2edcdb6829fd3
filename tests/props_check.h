/* props_check.h - what the solver property tests (test_props.c) check of
 * one solver run, whatever the size of its input: which solvers are under
 * test, which refusals are accepted, a watchdog for hung runs, a graph
 * result against the independent oracle, a fixed-lifetime result against a
 * direct recomputation, honest bounds and optimality claims, plan files
 * that round-trip through `verify`. */
#ifndef MP_PROPS_CHECK_H
#define MP_PROPS_CHECK_H

#include "oracle.h"
#include "testlib.h"

#define PC_FEQ(a, b) (fabs((a) - (b)) <= 1e-9 * fmax(1.0, fabs(b)))

/* Trials each solver ran and passed, the small ones and the larger ones
 * (refusals under a documented cap do not count as passed). */
typedef struct solver_stats {
  int graph_ok, fixed_ok;         /* small trials */
  int big_graph_ok, big_fixed_ok; /* larger trials */
  int same_as_direct;             /* larger inputs packed as mp_pack_one would */
  int refusals, small_refusals, big_refusals;
  double secs, big_secs;
} solver_stats;

/* MP_TEST_SOLVER (`make test SOLVER=name`), or NULL. */
const char *pc_only_solver(void);
/* Under test: every order solver and placer, or the one named. */
bool pc_selected(const mp_solver *s);

/* Fail at once, naming `what` and `input`, when the run takes more than
 * 15 s (`limit`: its time limit, for the message). */
void pc_watchdog_arm(const char *what, const char *input, double limit);
void pc_watchdog_disarm(void);

/* A refusal of a, accepted (true) only under a size cap s documents, with
 * a message; counted in st (inputs of at most 4 nodes or items apart). */
bool pc_accept_refusal(const mp_solver *s, const mp_result *a, int size, solver_stats *st,
                       const char *what, const char *input);

/* Every check of a graph result against the oracle om (built from g). */
void pc_check_graph_result(const mp_graph *g, or_model *om, const mp_result *r, int64_t given_arena,
                           const char *what, const char *js);

/* Honest bounds and claims of a graph result: an order bound never exceeds
 * the optimum `opt` (-1: unknown) nor `peak_ub` (the least peak some order
 * reaches, -1: unknown), optimal only at them; a placer's bound never
 * exceeds its arena nor ref[order is greedy] (the best greedy placer's
 * arena), optimal only at or below it. */
void pc_check_graph_bounds(const mp_solver *s, const mp_result *a, int64_t opt, int64_t peak_ub,
                           const int64_t ref[2], const char *order, const char *what, const char *js);

/* The same plan (order and offsets)? */
bool pc_same_plan(const mp_result *a, const mp_result *b);

/* The plan file of a round-trips through `verify`. */
void pc_check_plan_file(const mp_instance *in, const mp_result *a, const char *suffix, const char *what);

/* A fixed-lifetime problem as generated (half-open lifetimes; pin: offset
 * or -1), independent of the CSV reader. */
typedef struct pc_fixed {
  int n;
  const int64_t *lo, *hi, *size, *align, *pin;
} pc_fixed;

/* Every check of a fixed-lifetime result, recomputed from p. */
void pc_check_fixed_result(const pc_fixed *p, const mp_result *r, int64_t given_arena, const char *what,
                           const char *csv);

#endif
