/* solver.h - the one interface every solver in solvers/ implements.
 *
 * A solver file declares its options once as an X-macro list, derives the
 * option table and an index enum from it, and ends with one
 *   const struct mp_solver solver_<file name> = { ... };
 * The build generates the registry from the file names (see registry.h), so
 * adding a solver means adding its file and nothing else.
 *
 *   #define MY_OPTIONS(X)                                         \
 *     X(restarts, 4, 1, 1000, "independent restarts")             \
 *     X(cooling, 0.995, 0.5, 0.999999, "geometric cooling factor")
 *   enum { MY_OPTIONS(MP_OPT_ENUM) MY_N_OPTS };
 *   static const mp_option my_options[] = { MY_OPTIONS(MP_OPT_ENTRY) };
 *   ... ctx->opt[OPT_restarts] ...
 */
#ifndef MP_SOLVER_H
#define MP_SOLVER_H

#include <stdio.h>
#include "plan.h"

#define MP_OPT_ENUM(name, def, lo, hi, help) OPT_##name,
#define MP_OPT_ENTRY(name, def, lo, hi, help) {#name, def, lo, hi, help},
#define MP_OPTIONS(tab) (tab), (int)(sizeof(tab) / sizeof((tab)[0]))

typedef struct mp_option {
  const char *name;
  double def, lo, hi;
  const char *help;
} mp_option;

/* What a solver decides. */
enum { MP_DECIDES_ORDER = 1, MP_DECIDES_OFFSETS = 2, MP_DECIDES_BOTH = 3 };

#define MP_MAX_OPTS 32

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
  /* ---- outputs ---- */
  int *order;               /* order stage: n node ids (preset to start_order) */
  int64_t *offsets;         /* place stage: one per item */
  mp_status status;         /* optimal only when proven */
  int64_t bound;            /* a proven lower bound on the objective, or 0 */
  char msg[256];            /* why it failed / a note for the user */
} mp_ctx;

typedef struct mp_solver {
  const char *name;
  const char *summary;
  int decides;
  const mp_option *options;
  int n_options;
  /* Option overrides ("name=value,name=value") that keep a run short and
   * independent of the clock, for the property tests over every solver.
   * NULL when the defaults are already quick on graphs of a dozen nodes. */
  const char *quick;
  /* Returns 0 when ctx holds a plan (any status but error), else -1 with
   * ctx->msg set.  A refusal (size cap) is -1 with a clear message. */
  int (*solve)(mp_ctx *ctx);
} mp_solver;

/* ---- helpers every solver may use ---- */
double mp_now(void);       /* monotonic seconds */
static inline bool mp_time_up(const mp_ctx *c) {
  return c->deadline > 0 && mp_now() >= c->deadline;
}
/* splitmix64-seeded xoshiro256** generator: deterministic for a seed. */
typedef struct mp_rng {
  uint64_t s[4];
} mp_rng;
void mp_rng_seed(mp_rng *r, uint64_t seed);
uint64_t mp_rng_next(mp_rng *r);
double mp_rng_unit(mp_rng *r);                 /* [0, 1) */
uint64_t mp_rng_below(mp_rng *r, uint64_t n);  /* [0, n) */

static inline int64_t mp_align_up(int64_t x, int64_t a) {
  return a <= 1 ? x : (x + a - 1) / a * a;
}

void *mp_xmalloc(size_t n);
void *mp_xcalloc(size_t n, size_t sz);
void *mp_xrealloc(void *p, size_t n);
char *mp_xstrdup(const char *s); /* NULL stays NULL */

#endif
