/* testlib.h - helpers shared by the Check suites: graphs from strings,
 * random graphs with every feature of DESIGN 1.1, exhaustive optima, and a
 * one-call way to run the harness. */
#ifndef MP_TESTLIB_H
#define MP_TESTLIB_H

#include <check.h>
#include "lib/pack.h"
#include "run.h"

/* MP_QUICK=1 in the environment (sanitizer runs): fewer random trials. */
int tl_trials(int normal);
/* MP_TEST_VERBOSE=1 (make test V=1): print notes and statistics. */
bool tl_verbose(void);

/* Send stderr to a temporary file until tl_stderr_end, which returns what
 * was written there (malloc'ed): messages a test expects stay out of the
 * test output and can be checked. */
typedef struct tl_stderr {
  int saved;
  char path[64];
} tl_stderr;
void tl_stderr_begin(tl_stderr *c);
char *tl_stderr_end(tl_stderr *c);

/* Write text to a fresh temporary file (suffix chooses the reader by
 * extension: ".json", ".csv", ".graphml"); returns a malloc'ed path.  The
 * files live under tests/tmp/ (created on demand) and are removed by
 * tl_cleanup(). */
char *tl_write_temp(const char *text, const char *suffix);
/* A plan file written by mp_plan_write (streamed) has exactly the bytes
 * jansson writes for the same document (plan_write.c's promise). */
void tl_check_plan_bytes(const char *plan);
void tl_cleanup(void);

/* Load a graph / instance from JSON text; fails the test on error. */
mp_graph *tl_graph(const char *json);
/* Same, but returns NULL and fills err instead of failing. */
mp_graph *tl_graph_try(const char *json, bool toposort, mp_error *err);
/* `memplan gen FAMILY -n N --seed SEED` (train: --backward, workspace and
 * in-place writes on a fifth of the nodes); fails the test on error. */
mp_graph *tl_gen(const char *family, int n, uint64_t seed, bool train);

/* Flags for tl_random_json. */
enum {
  TL_MULTI = 1,     /* multi-output nodes and [j, k] references */
  TL_VIEWS = 2,     /* pure views (alias, also alias -1) */
  TL_INPLACE = 4,   /* in-place writes */
  TL_WS = 8,        /* workspaces */
  TL_OUTNODE = 16,  /* sometimes an explicit `output` node */
  TL_ALL = 31,
  TL_SMALL = 32     /* sizes 1-6 bytes (workspaces 1-4): ties and one-byte margins */
};
/* A random valid graph of n nodes as DESIGN 1.1 JSON (malloc'ed text).
 * Deterministic for the rng state. */
char *tl_random_json(mp_rng *r, int n, int flags);
mp_graph *tl_random_graph(mp_rng *r, int n, int flags);

/* The optimum live peak over all topological orders (data + in-place
 * edges), by enumerating every order and measuring it with the evaluator.
 * Returns -1 when there are more than max_orders orders. */
int64_t tl_brute_force_peak(const mp_graph *g, long max_orders, int *best_order);
/* fn(order, ctx) for every topological order (data + in-place edges) of g;
 * how many, or -1 (fn called for the first max_orders) when more. */
long tl_each_order(const mp_graph *g, long max_orders, void (*fn)(const int *order, void *ctx),
                   void *ctx);

/* Run the harness on a graph: --order order --place place, seed, limit (0:
 * none), extra "name=value" overrides (NULL-terminated list or NULL).
 * Returns mp_run's code. */
int tl_run(const mp_graph *g, const char *order, const char *place, uint64_t seed, double limit,
           const char *const *sets, mp_result *r);
/* The same for a fixed-lifetime problem (takes ownership of nothing). */
int tl_run_fixed(mp_problem *p, const char *place, uint64_t seed, double limit, int64_t capacity,
                 const char *const *sets, mp_result *r);

/* Split a solver's `quick` string "a=1,b=2" into a NULL-terminated list
 * (static storage, valid until the next call). */
/* A W x T rectangle cut into about `pieces` buffers by random guillotine
 * cuts, listed in random order: a zero-slack packing in W bytes exists. */
void tl_cut_problem(mp_rng *r, int64_t W, int64_t T, int pieces, mp_problem *p);
/* n items all live over [0, 2) (half of them born at 1), sizes 1-7,
 * alignment 1: every pair live together. */
void tl_clique(int n, mp_problem *p);

const char *const *tl_quick_sets(const mp_solver *s);

/* Run events solver `name` directly (no harness) on g from `order` with the
 * options `sets` ("name=value", NULL-terminated; NULL: none): c is reset,
 * its plan goes to ev.  Returns the solver's return code. */
int tl_solve_events(const char *name, const mp_graph *g, const int *order, int64_t budget, double bw,
                    const char *const *sets, uint64_t seed, mp_ctx *c, mp_events *ev);

/* A clock the test drives (mp_now_override), so that a deadline passes at
 * a chosen reading whatever the machine's speed: reading k is TL_CLOCK_T0
 * + 1e-9 k until reading `jump` (-1: never), and past every deadline from
 * then on.  tl_clock_stop restores the real clock and returns how many
 * readings were made. */
#define TL_CLOCK_T0 1000.0
#define TL_CLOCK_PAST (TL_CLOCK_T0 + 1e9) /* past every deadline of a test */
void tl_clock_start(long jump);
/* The same, but from reading `jump` on the clock stands still at `at`
 * (a time short of a deadline: it never passes, yet little is left). */
void tl_clock_start_at(long jump, double at);
long tl_clock_stop(void);

/* Is the precedence relation of g (g->succ) acyclic, by igraph's own test
 * (independent of the graph's Kahn check)?  *edges receives its edge count
 * when not NULL. */
bool tl_igraph_is_dag(const mp_graph *g, int *edges);
/* A random fixed-lifetime problem of n <= 32 items with every valid shape
 * of DESIGN 1.4: empty lifetimes [t, t) (1 in 12), sizes 0 (1 in 15),
 * per-buffer alignment 1/4/8/64 (align_col), two pinned items that never
 * collide (pins).  Returns it as MiniMalloc CSV text (malloc'ed). */
typedef struct tl_fixed {
  int n;
  int64_t lo[32], hi[32], size[32], align[32], pin[32]; /* pin: offset or -1 */
} tl_fixed;
char *tl_random_fixed(mp_rng *r, tl_fixed *p, int n, bool align_col, bool pins);

/* The least arena of any placement of p, independent of every solver:
 * every order of its unpinned items, each at its lowest aligned offset clear
 * of the items before it and of the pinned ones (every compacted placement
 * arises so: an optimum does).  -1 when that is more than max_perms
 * orders. */
int64_t tl_brute_force_arena(const tl_fixed *p, long max_perms);

/* mp_pack as it is defined: the pinned items where they stand, then each
 * item of seq[0..m) with bytes at mp_pack_one's offset against every item
 * placed before it (sizes 0 at 0).  O(m^2 log m).  Returns the arena. */
int64_t tl_pack_direct(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off);
/* Birth-order first fit of every item (mp_pack): what a greedy placer cut by
 * its time limit keeps. */
void tl_birth_first_fit(const mp_problem *p, int64_t *off);

#endif
