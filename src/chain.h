/* chain.h - a request resolved into stages: which solver runs at each
 * stage, of which kind, with which option values.  The harness runs the
 * kinds in their enum order: every order stage, then every recomputation
 * stage (when asked for), then every placement stage.  It finds solvers
 * through the registry by name and role, and knows none of them. */
#ifndef MP_CHAIN_H
#define MP_CHAIN_H

#include "registry.h"

typedef enum mp_stage_kind {
  MP_STAGE_ORDER,  /* decides the order (graphs only) */
  MP_STAGE_EVENTS, /* decides an event plan within a budget (DESIGN 6:
                      recomputation, offload) from the order; none by default */
  MP_STAGE_PLACE,  /* decides the offsets of the lifetimes the earlier kinds
                      fixed (the buffers of the order, or the residencies of
                      the event plan); a solver deciding both runs here */
  MP_N_STAGE_KINDS
} mp_stage_kind;

#define MP_MAX_CHAIN 4 /* solvers of one kind */
#define MP_MAX_STAGES (MP_MAX_CHAIN * MP_N_STAGE_KINDS)

typedef struct mp_stage_spec {
  const mp_solver *solver;
  mp_stage_kind kind;
  double opt[MP_MAX_OPTS]; /* indexed like the solver's option table */
} mp_stage_spec;

typedef struct mp_chain {
  int n;
  mp_stage_spec st[MP_MAX_STAGES]; /* sorted by kind, chain order within */
  char names[MP_N_STAGE_KINDS][160]; /* each kind's chain, comma-separated */
} mp_chain;

typedef struct mp_chain_request {
  bool is_graph;                          /* else a fixed-lifetime problem */
  const char *chains[MP_N_STAGE_KINDS];   /* "a,b"; NULL: the default of the kind
                                             (for MP_STAGE_EVENTS: no such stage) */
  int n_sets;                             /* "name=value" / "solver.name=value" */
  const char *const *sets;
  int n_extra;                            /* solvers outside the registry that the */
  const mp_solver *const *extra;          /* chains may name (looked up first) */
} mp_chain_request;

/* Resolve the chain of each kind and the option overrides.  `--order X`
 * alone with an X that decides both means `--place X`.  Returns MP_OK, or
 * MP_EUSAGE with err naming what is wrong (a solver under the wrong flag is
 * told which flag takes it). */
mp_err mp_chain_resolve(const mp_chain_request *req, mp_chain *ch, mp_error *err);

/* Is the descriptor well formed (the fields the build cannot check:
 * .decides, .solve, the option table, each option's kind, range and
 * default)?  MP_OK, or MP_EUSAGE with err naming the field.  Every chain
 * checks the solvers it names. */
mp_err mp_solver_check(const mp_solver *s, mp_error *err);

/* Does the chain have a stage of kind k? */
bool mp_chain_has(const mp_chain *ch, mp_stage_kind k);

/* Option values of one solver: its defaults, then the overrides that name
 * one of its options (with or without its "solver." prefix).  Returns
 * MP_OK, or MP_EUSAGE for a malformed override or a value out of range. */
mp_err mp_solver_options(const mp_solver *s, int n_sets, const char *const *sets, double *vals,
                         mp_error *err);

/* Two overrides that set one option of s ("iters=10", "sa.iters=20"):
 * MP_EUSAGE naming both, else MP_OK.  mp_solver_options lets the last one
 * win (the test suite layers its quick settings under its own); the CLI
 * and bench refuse such a pair, which a user means as one value. */
mp_err mp_solver_sets_once(const mp_solver *s, int n_sets, const char *const *sets,
                           mp_error *err);

/* One kind's chain "a,b" checked as mp_chain_resolve checks its stages
 * (no empty item, at most MP_MAX_CHAIN names, each registered and of the
 * kind), without the other kinds or option overrides: what an experiment
 * checks of each of its chains before any cell runs.  `what` names the
 * chain in the message ("\"order\" chain").  MP_OK or MP_EUSAGE. */
mp_err mp_chain_check(const char *what, const char *chain, mp_stage_kind kind, mp_error *err);

/* Does every solver of the order chain "a,b" return the file order (a
 * chain that searches no order)?  False for an unknown name. */
bool mp_chain_is_file_order(const char *chain);

#endif
