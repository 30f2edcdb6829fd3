/* solver.h - the one interface every solver in solvers/ implements.
 *
 * A solver file declares its options once as an X-macro list, derives the
 * option table and an index enum from it, and ends with one
 *   const mp_solver solver_<file name> = { ... };
 * at the start of a line (`const struct mp_solver` is accepted too; a
 * folder solvers/<name>/ defines solver_<name> in one of its files).
 * The build generates the registry from the file names (see registry.h), so
 * adding a solver means adding its file and nothing else.
 *
 *   #define MY_OPTIONS(X)                                               \
 *     X(restarts, INT, 4, 1, 1000, "independent restarts")              \
 *     X(cooling, REAL, 0.995, 0.5, 0.999999, "geometric cooling factor")
 *   enum { MY_OPTIONS(MP_OPT_ENUM) MY_N_OPTS };
 *   static const mp_option my_options[] = { MY_OPTIONS(MP_OPT_ENTRY) };
 *   ... ctx->opt[OPT_restarts] ...
 * The kind is INT (counts, sizes, caps, indices, 0/1 switches: a value with
 * a fraction is refused where options are read), REAL, or SECONDS (a real:
 * a time limit of the solver's own, > 0 when set; the harness then keeps
 * every thread of its own out of the run, as under --time-limit). */
#ifndef MP_SOLVER_H
#define MP_SOLVER_H

#include <stdatomic.h>
#include <stdio.h>
#include "events.h"
#include "plan.h"
#include "util.h"

#define MP_MAX_OPTS 32

enum { MP_OPT_REAL = 0, MP_OPT_INT = 1, MP_OPT_SECONDS = 2 };
#define MP_OPT_ENUM(name, kind, def, lo, hi, help) OPT_##name,
#define MP_OPT_ENTRY(name, kind, def, lo, hi, help) {#name, def, lo, hi, help, MP_OPT_##kind},
/* `.options = MP_OPTIONS(table)` fills both fields; a table longer than
 * MP_MAX_OPTS does not compile. */
#define MP_N_OPTIONS(tab) (sizeof(tab) / sizeof((tab)[0]))
#define MP_OPTIONS(tab)                                                        \
  (tab), (int)(MP_N_OPTIONS(tab) +                                              \
               0 * sizeof(struct {                                              \
                 _Static_assert(MP_N_OPTIONS(tab) <= MP_MAX_OPTS,               \
                                "a solver has at most MP_MAX_OPTS options");    \
                 int unused;                                                    \
               }))

typedef struct mp_option {
  const char *name;
  double def, lo, hi;
  const char *help;
  int kind; /* MP_OPT_INT, MP_OPT_REAL or MP_OPT_SECONDS */
} mp_option;

/* What a solver decides.  MP_DECIDES_EVENTS: a recomputation/offload stage
 * (DESIGN 6) between the order and the placement; it turns the order it is
 * handed into an event plan within a byte budget. */
enum { MP_DECIDES_ORDER = 1, MP_DECIDES_OFFSETS = 2, MP_DECIDES_BOTH = 3, MP_DECIDES_EVENTS = 4 };

/* Roles the harness needs, so that it never names a solver:
 * MP_ROLE_DEFAULT   the solver used when the user names none of its kind
 *                   (the file order; the baseline placer);
 * MP_ROLE_BASELINE  the placer of the `reduction_vs_given` baseline; its plan
 *                   must depend on the problem alone (no seed, no clock): a
 *                   run that is the baseline's own is not placed twice;
 * MP_ROLE_FILE_ORDER an order solver that returns the file order whatever
 *                   it starts from (a chain of such solvers searches no order);
 * MP_ROLE_QUICK_PLACE a placer of one linear pass that always completes: the
 *                   placement of a run whose figures of interest depend on
 *                   the order alone (plot profile);
 * MP_ROLE_WRITES_LP a solver that writes its model to ctx->write_lp (a
 *                   --write-lp with no such stage in the chain is refused). */
enum {
  MP_ROLE_DEFAULT = 1,
  MP_ROLE_BASELINE = 2,
  MP_ROLE_FILE_ORDER = 4,
  MP_ROLE_QUICK_PLACE = 8,
  MP_ROLE_WRITES_LP = 16
};

/* The events stage's contract (MP_DECIDES_EVENTS; DESIGN 6, events.h):
 * - read c->g, c->start_order, c->budget, c->bandwidth; write c->events,
 *   a plan that mp_events_verify accepts with live_peak <= budget;
 * - status MP_OPTIMAL only with a proof that no valid plan within the
 *   budget is shorter.  The scope is every valid plan whose first runs
 *   follow start_order (mp_events_follow), unless the solver says in its
 *   summary that it searches all first-run orders;
 * - duration_bound: a proven lower bound on the duration over that scope;
 * - MP_INFEASIBLE only with a proof: mp_events_floor(g) > budget, or an
 *   exhausted exact search (c->events is then empty);
 * - finding no plan within the budget without such a proof: return -1 with
 *   c->msg saying so and c->events empty (mp_events_clear).  Never a plan
 *   over the budget.
 * The harness verifies and evaluates the plan and places its residencies
 * (mp_events_problem); the solver reports no figure. */
typedef struct mp_ctx {
  /* ---- inputs ---- */
  const mp_graph *g;        /* NULL for a fixed-lifetime problem */
  const mp_problem *prob;   /* placement stage: the lifetimes to place
                               (NULL in an order stage) */
  const int *start_order;   /* order stage: the previous stage's order (the
                               given order for the first stage) */
  const int64_t *start_offsets; /* place stage: previous placer's offsets
                                   in a chain, else NULL */
  double opt[MP_MAX_OPTS];  /* option values, indexed like the solver's table */
  double time_limit;        /* seconds for this stage (<= 0: none) */
  double deadline;          /* absolute mp_now() deadline, or 0 */
  uint64_t seed;
  int64_t align;            /* default alignment (graphs) */
  int64_t capacity;         /* placement: fit in this many bytes (0: minimise) */
  const char *write_lp;     /* ILP solvers: write the model here if set */
  int verbose;
  /* The threads the stage may use at once, its caller's included (the
   * run's `threads`; 1 under a time limit: what a clock cuts must not
   * depend on a thread beside it; 0, as in a ctx zeroed by hand: 1).  A
   * solver that starts threads joins them before it returns and reports
   * their CPU time in `threads_cpu_s`. */
  int threads;
  /* NULL, or a flag another thread sets once the run's answer is no
   * longer wanted (mp_run_spec.cancel).  A solver may poll it
   * (mp_cancelled) and then stop: return -1 with msg saying so. */
  const atomic_int *cancel;
  /* events stage (MP_DECIDES_EVENTS) inputs: start_order is the first-run
   * order handed in (a topological order of all nodes); the plan's
   * live_peak (events.h) must not exceed `budget` bytes (INT64_MAX: no
   * budget); `bandwidth` is bytes per cost unit on the host link (0: no
   * offload, every out/in is invalid). */
  int64_t budget;
  double bandwidth;
  /* events stage in a chain (`--remat a,b`): the chain's last plan, which
   * the harness verified and found within the budget; NULL for the first
   * stage, or when no stage before found one.  A search may start from it
   * (as an order stage starts from start_order); start_order stays the
   * order handed to the chain. */
  const mp_events *start_events;
  /* ---- outputs ---- */
  int *order;               /* order stage: n node ids (preset to start_order) */
  int64_t *offsets;         /* place stage: one per item */
  mp_events *events;        /* events stage: the plan (initialised, empty) */
  mp_status status;         /* optimal only when proven */
  int64_t bound;            /* a proven lower bound on the objective, or 0 */
  double duration_bound;    /* events stage: a proven lower bound on the
                               duration of every valid plan within the
                               budget (at least mp_events_duration_floor), or 0 */
  char msg[256];            /* why it failed / a note for the user */
  double threads_cpu_s;     /* CPU seconds of the threads the solver started
                               (its own thread's the harness measures
                               itself, CLOCK_THREAD_CPUTIME_ID): the stage's
                               cpu_ms counts both */
} mp_ctx;

typedef struct mp_solver {
  const char *name;
  const char *summary;
  int decides;
  unsigned roles;           /* MP_ROLE_* flags, usually 0 */
  const mp_option *options;
  int n_options;
  /* Option overrides ("name=value,name=value") that keep a run short and
   * independent of the clock, for the property tests over every solver.
   * NULL when the defaults are already quick on graphs of a dozen nodes. */
  const char *quick;
  /* Returns 0 when ctx holds a plan (any status but error), else -1 with
   * ctx->msg set.  A refusal under the solver's documented size cap is -1
   * with ctx->status = MP_REFUSED and a clear message: the harness reports
   * status `refused`, which bench keeps apart from failures.  A search the
   * time limit ends before any plan is -1 with ctx->status = MP_TIMEOUT.
   * Any -1 proves nothing: in a chain the next stage starts from the
   * chain's last result. */
  int (*solve)(mp_ctx *ctx);
} mp_solver;

/* True once the stage's deadline has passed. */
static inline bool mp_time_up(const mp_ctx *c) {
  return c->deadline > 0 && mp_now() >= c->deadline;
}

/* True once the run's answer is no longer wanted (c->cancel set). */
static inline bool mp_cancelled(const mp_ctx *c) {
  return c->cancel && atomic_load_explicit(c->cancel, memory_order_relaxed);
}

#endif
