/* rotor.c - rotor (Beaumont, Eyraud-Dubois, Herrmann, Joly, Shilova,
 * "Optimal checkpointing for heterogeneous chains: how to train deep neural
 * networks with limited memory", 2019/2021): the optimal persistent
 * checkpointing schedule of a chain by dynamic programming (dp.c), applied
 * to a graph that is not a chain through the sequence of its forward's
 * segments (chain.c: cut at articulation points, and at the smallest
 * frontiers where those are sparse).
 *
 * The program's schedule is played on the shared plan builder: F_all and
 * F_n run a stage (its first runs the first time, then the reruns that
 * bring back its frontier, and for F_all its saved buffers) and hold what
 * the schedule keeps; a backward group runs its first runs; releases free
 * what is no longer held.  Anything the schedule did not foresee (a
 * backward node reading another stage, a buffer the chain does not model)
 * is brought back on demand, so the plan is always valid.  The program
 * sees the chain and an estimate of the background at each step: the
 * driver corrects the budget it hands the program (over: the excess off;
 * under: the slack on; then bisection) and keeps the plan whose own
 * measured peak fits with the least duration.  Without phases in the graph
 * the forward ends after the loss (lib/remat_info.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rotor/rotor.h"
#include "solver.h"

#define ROTOR_OPTIONS(X)                                                                    \
  X(stages, 64, 1, 2000, "stages of the chain, at most")                                   \
  X(slots, 200, 8, 100000, "memory slots of the dynamic program")                          \
  X(tries, 8, 1, 1000, "program budgets tried (each a table and a plan)")                  \
  X(frontier, 1, 0, 1, "stage boundaries: 0 articulation points only, 1 also the smallest " \
                       "multi-buffer frontiers")
enum { ROTOR_OPTIONS(MP_OPT_ENUM) ROTOR_N_OPTS };
static const mp_option rotor_options[] = {ROTOR_OPTIONS(MP_OPT_ENTRY)};

typedef struct rt_result {
  int64_t peak;
  double duration;
  int64_t reruns;
  bool ok;
} rt_result;

static void hold(rx_exec *x, const int *start, const int *list, int k, int delta) {
  for (int i = start[k]; i < start[k + 1]; i++) x->hold[list[i]] += delta;
}

static void settle(rx_exec *x, const int *start, const int *list, int k) {
  for (int i = start[k]; i < start[k + 1]; i++) rx_settle(x, list[i]);
}

static int materialize(rx_exec *x, const int *start, const int *list, int k) {
  for (int i = start[k]; i < start[k + 1]; i++)
    if (rx_materialize(x, list[i])) return -1;
  return 0;
}

/* F_all (all = true) or F_n of stage k. */
static int forward(rx_exec *x, const rt_chain *ch, int k, bool all, int *first_done) {
  hold(x, ch->fr_start, ch->fr, k, +1);
  if (all) hold(x, ch->sv_start, ch->svb, k, +1);
  x->horizon = ch->start[k + 1];
  if (k > *first_done) {
    while (x->p < ch->start[k + 1])
      if (rx_step(x)) return -1;
    *first_done = k;
  } else if (materialize(x, ch->fr_start, ch->fr, k) ||
             (all && materialize(x, ch->sv_start, ch->svb, k))) {
    return -1;
  }
  settle(x, ch->mk_start, ch->mk, k);
  return 0;
}

/* A release frees what no longer is held, except what the next backward
 * group reads (a node reading two stages sits in the lower one's group). */
static int release_horizon(const rx_exec *x, const rt_chain *ch, int last_b) {
  return last_b > 1 ? ch->gend[last_b - 1] : last_b == 0 && x->p >= ch->gstart[ch->L] ? ch->gend[ch->L] : x->p;
}

static int play_op(rx_exec *x, const rt_chain *ch, rt_op op, int *first_done, int *last_b) {
  switch (op.op) {
  case 'A':
  case 'N':
    return forward(x, ch, op.k, op.op == 'A', first_done);
  case 'B':
    x->horizon = ch->gend[op.k];
    while (x->p < ch->gend[op.k])
      if (rx_step(x)) return -1;
    *last_b = op.k;
    return 0;
  case 'r':
    hold(x, ch->fr_start, ch->fr, op.k, -1);
    x->horizon = release_horizon(x, ch, *last_b);
    settle(x, ch->fr_start, ch->fr, op.k);
    return 0;
  default: /* 's' */
    hold(x, ch->sv_start, ch->svb, op.k, -1);
    x->horizon = release_horizon(x, ch, *last_b);
    settle(x, ch->sv_start, ch->svb, op.k);
    return 0;
  }
}

static rt_result play(const ri_info *ri, const rt_chain *ch, const rt_op *ops, int nops,
                      mp_events *out, double deadline, char *msg, size_t cap) {
  rx_exec x;
  rx_init(&x, ri, out, INT64_MAX, 0);
  x.deadline = deadline;
  int first_done = 0, last_b = 0, rc = rx_start(&x);
  for (int i = 0; rc == 0 && i < nops; i++) rc = play_op(&x, ch, ops[i], &first_done, &last_b);
  if (rc == 0) rc = rx_finish(&x);
  rt_result r = {x.peak, x.duration, x.n_reruns, rc == 0};
  if (rc && msg) snprintf(msg, cap, "%s", x.msg);
  rx_destroy(&x);
  return r;
}

/* The driver's search: the budget handed to the program (the chain's
 * account) is corrected until the real plan fits the real budget with the
 * least duration.  lo: the largest program budget whose plan fit; hi: the
 * smallest whose plan did not (or had none). */
typedef struct search {
  const ri_info *ri;
  const rt_chain *ch;
  mp_ctx *c;
  int slots;
  rt_op *ops;
  int cap;
  int64_t best_b;   /* program budget of the best plan within budget, or -1 */
  rt_result best;
  int64_t least_peak;
  int tries;
} search;

/* One program budget: fill the table, play its schedule (measure only). */
static rt_result try_budget(search *s, int64_t pb, bool *none) {
  rt_result r = {0};
  rt_dp dp;
  *none = true;
  if (rt_dp_init(&dp, s->ch, pb, s->slots, s->c->deadline) == 0 && isfinite(rt_dp_value(&dp))) {
    int n = rt_dp_program(&dp, &s->ops, &s->cap);
    r = play(s->ri, s->ch, s->ops, n, NULL, s->c->deadline, NULL, 0);
    *none = false;
  }
  rt_dp_destroy(&dp);
  s->tries++;
  if (r.ok && r.peak < s->least_peak) s->least_peak = r.peak;
  if (r.ok && r.peak <= s->c->budget &&
      (s->best_b < 0 || r.duration < s->best.duration ||
       (r.duration == s->best.duration && r.peak < s->best.peak)))
    s->best_b = pb, s->best = r;
  return r;
}

/* lo: the largest program budget whose plan fit; hi: the smallest whose
 * plan did not; none: the largest that had no schedule at all.  Start at
 * the budget; over: take the excess off; no schedule: raise; fits: add the
 * slack; once bracketed, bisect. */
static void search_budget(search *s, int tries) {
  int64_t B = s->c->budget, pb = B, lo = -1, hi = -1, none_at = -1;
  for (int i = 0; i < tries && !mp_time_up(s->c); i++) {
    bool none;
    rt_result r = try_budget(s, pb, &none);
    bool fits = !none && r.ok && r.peak <= B;
    if (s->c->verbose)
      fprintf(stderr, "rotor: program budget %lld: %s peak %lld duration %g\n", (long long)pb,
              none ? "no schedule" : r.ok ? "plan" : "failed", (long long)r.peak, r.duration);
    if (fits && r.duration <= s->c->duration_bound * (1 + 1e-12)) break; /* nothing shorter exists */
    if (none || !r.ok) none_at = pb;
    else if (fits) lo = pb;
    else hi = pb;
    int64_t floor = lo > none_at ? lo : none_at, next;
    if (floor >= 0 && hi >= 0) next = floor + (hi - floor) / 2;
    else if (hi >= 0) next = pb - (r.peak - B) - B / 256;
    else if (fits) next = pb + (B - r.peak) + B / 256;
    else next = pb + B / 8;
    if (next <= 0 || next == pb || (hi >= 0 && hi - floor <= B / 512) || (fits && B - r.peak < B / 512))
      break;
    pb = next;
  }
}

static int rotor_solve(mp_ctx *c) {
  int rc = ri_begin(c, "rotor");
  if (rc) return rc > 0 ? 0 : -1;
  ri_info ri;
  ri_init(&ri, c->g, c->start_order);
  rt_chain ch;
  rt_chain_init(&ch, &ri, (int)c->opt[OPT_stages], (int)c->opt[OPT_frontier]);
  search s = {.ri = &ri, .ch = &ch, .c = c, .slots = (int)c->opt[OPT_slots], .best_b = -1,
              .least_peak = INT64_MAX};
  search_budget(&s, (int)c->opt[OPT_tries]);
  rc = -1;
  if (s.best_b >= 0) {
    rt_dp dp;
    rt_dp_init(&dp, &ch, s.best_b, s.slots, 0);
    int n = rt_dp_program(&dp, &s.ops, &s.cap);
    rt_result r = play(&ri, &ch, s.ops, n, c->events, 0, c->msg, sizeof c->msg);
    rt_dp_destroy(&dp);
    if (r.ok && r.peak <= c->budget) {
      rc = 0;
      ri_claim(c, r.duration);
      snprintf(c->msg, sizeof c->msg,
               "a chain of %d forward segments (cut at articulation points, then at the smallest "
               "frontiers), program budget %lld bytes (%d tries), %lld reruns",
               ch.L, (long long)s.best_b, s.tries, (long long)r.reruns);
    }
  } else if (s.least_peak < INT64_MAX) {
    snprintf(c->msg, sizeof c->msg,
             "no plan within budget %lld: rotor's least peak over %d tries on its %d-stage chain "
             "is %lld", (long long)c->budget, s.tries, ch.L, (long long)s.least_peak);
  } else {
    snprintf(c->msg, sizeof c->msg, "rotor found no plan within budget %lld%s",
             (long long)c->budget, mp_time_up(c) ? " before the time limit" : "");
  }
  if (rc) mp_events_clear(c->events);
  free(s.ops);
  rt_chain_destroy(&ch);
  ri_destroy(&ri);
  return rc;
}

const mp_solver solver_rotor = {
    .name = "rotor",
    .summary = "rotor (Beaumont et al.): optimal checkpointing of a chain by dynamic programming, "
               "on the chain of the forward's segments",
    .decides = MP_DECIDES_EVENTS,
    .options = MP_OPTIONS(rotor_options),
    .quick = "slots=64,tries=4",
    .solve = rotor_solve,
};
