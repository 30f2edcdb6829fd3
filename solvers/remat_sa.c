/* remat_sa.c - simulated annealing over what to keep, recompute or offload
 * (DESIGN 6), with the first-run order handed in.
 *
 * Search space: a gene per gap of each buffer between two uses (see
 * solvers/lib/remat_decode.h): keep it, drop it and recompute it (just in
 * time or some steps earlier), or offload it (free it some steps after the
 * copy out, bring it in some steps before its use).  The decoder turns
 * genes into a valid plan whose first runs follow the order.
 *
 * Energy: duration + lambda x (bytes above the budget, summed over the
 * memory samples) + a step for any excess, lambda adapting so that the walk
 * crosses the budget's border (lib/remat_anneal.c).  Moves: drop or offload
 * a gap kept across the peak, keep a dropped one again, both at once, move
 * a return or an offload's free, switch drop and offload, a random gene.
 *
 * Starts: keep-all when it fits the budget (then optimal: nothing runs
 * twice, nothing stalls).  In a chain (`--remat dtr,remat-sa`), the plan
 * before (c->start_events) as a genome (lib/remat_map.h), greedy drops
 * added when its decoding does not fit.  Otherwise a greedy plan: the gaps
 * across the peak dropped one at a time by bytes per unit of
 * recomputation time while that lowers the excess; when it does not fit,
 * the plan that drops every gap it can, if that one fits; and Chen's plan
 * (lib/remat_seed.c) as a genome when that is shorter.  Restarts cycle: the best plan, the best plan after a
 * kick of random moves, the greedy start.  Each restart samples T0 (the
 * mean uphill of 100 moves accepted at 1/2, times heat) and cools
 * geometrically to T0 x t_end.
 *
 * Returns the shortest plan within the budget among every plan evaluated
 * and the start plan (the chain's, or Chen's): never longer than that one,
 * never one over the budget.  When the storage written in place alone (never
 * recomputed nor offloaded, freed only after its readers) exceeds the
 * budget at some step of the order, it says so at once ("no plan").  `infeasible` only below the floor of
 * mp_events_floor; finding no plan otherwise is an error ("no plan within
 * the budget"), not a claim.  `optimal` only when the plan's duration meets
 * the duration floor (the runs' costs), which bounds every plan.  Budget:
 * restarts x iters moves, or the time limit (status timeout when it cuts
 * the minimum); with fill=1 and a time limit, restarts go on until it
 * expires.  Deterministic for a seed when no limit cuts it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/remat_anneal.h"
#include "lib/remat_map.h"
#include "solver.h"

#define RSA_OPTIONS(X)                                                                           \
  X(iters, INT, 20000, 1, 1e10, "moves per restart")                                             \
  X(restarts, INT, 4, 1, 1e6, "restarts (the budget without time limit; the minimum with fill)") \
  X(t_end, REAL, 1e-3, 1e-9, 1, "final temperature as a fraction of the initial")                \
  X(heat, REAL, 1, 1e-4, 1e6, "initial temperature factor (1: mean sampled uphill accepted at 1/2)") \
  X(kick, REAL, 0.05, 0, 1, "restarts from a kicked best: random moves, as a fraction of the genes") \
  X(strict, INT, 1, 0, 1, "1: never rerun a reader of in-place storage after a later write (0: as the verifier allows)") \
  X(fill, INT, 1, 0, 1, "1: with --time-limit, keep restarting until it expires (restarts is then a minimum)")
enum { RSA_OPTIONS(MP_OPT_ENUM) RSA_N_OPTS };
static const mp_option rsa_options[] = {RSA_OPTIONS(MP_OPT_ENTRY)};

/* The floor and keep-all: a claim, or 1 to search on. */
static int settle_easy(mp_ctx *c, mp_rsa *s) {
  int64_t floor = mp_events_floor(c->g);
  if (floor > c->budget) {
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg,
             "budget %lld is below %lld, the floor no plan goes under (inputs, outputs, or one "
             "node's reads + outputs + workspace)",
             (long long)c->budget, (long long)floor);
    return 0;
  }
  mp_rgene *keep = mp_xmalloc(sizeof(mp_rgene) * (size_t)(s->d->n_slots + 1));
  mp_rgenes_keep_all(s->d, keep);
  int rc = mp_rsa_load(s, keep);
  free(keep);
  if (rc == 0 && mp_rsa_fits(s, &s->fc) && s->fc.duration <= c->duration_bound * (1 + 1e-12)) {
    mp_events_copy(c->events, &s->best_plan);
    c->status = MP_OPTIMAL; /* nothing runs twice: the duration floor */
    return 0;
  }
  return 1;
}

/* The start plan's genome (a chain's plan before, mapped), when it
 * decodes: as is when it fits, else after the greedy drops from it.  True
 * when the start is loaded and kept in seed. */
static bool start_from_plan(const mp_ctx *c, mp_rsa *s, const mp_rgene *mapped, mp_rgene *seed) {
  size_t bytes = sizeof(mp_rgene) * (size_t)s->d->n_slots;
  if (mp_rsa_load(s, mapped)) return false;
  if (!mp_rsa_fits(s, &s->fc) && !mp_rsa_greedy(s, s->d->n_slots, c->deadline)) return false;
  memcpy(seed, s->cur, bytes);
  return true;
}

/* The start: a chain's start plan's genome when it fits (above); else the
 * greedy start (from keep-all); when that does not fit, the drop-all start
 * if that one fits (its plans are long: recomputation chains at every
 * use).  With a seed plan of our own (own: Chen's), its genome when it is
 * shorter than that start.  The start is loaded and kept in seed. */
static void choose_start(mp_ctx *c, mp_rsa *s, const mp_rgene *mapped, bool own, mp_rgene *seed) {
  size_t bytes = sizeof(mp_rgene) * (size_t)s->d->n_slots;
  if (mapped && !own && start_from_plan(c, s, mapped, seed)) return;
  mp_rgenes_keep_all(s->d, seed);
  mp_rsa_load(s, seed);
  bool fits = mp_rsa_greedy(s, s->d->n_slots, c->deadline);
  memcpy(seed, s->cur, bytes);
  /* out of time: no search follows, and the plan returned is the best one
   * loaded so far or the start plan, so the other starts (a decode each,
   * about a second at 10^6 nodes) are not tried */
  if (mp_time_up(c)) return;
  if (!fits) {
    mp_rgene *all = mp_xmalloc(bytes + sizeof(mp_rgene));
    mp_rgenes_drop_all(s->d, all);
    if (mp_rsa_load(s, all) == 0 && mp_rsa_fits(s, &s->fc)) memcpy(seed, all, bytes);
    free(all);
    mp_rsa_load(s, seed);
  }
  mp_rfig was = s->fc;
  if (mapped && own && mp_rsa_load(s, mapped) == 0 && mp_rsa_fits(s, &s->fc) &&
      (!mp_rsa_fits(s, &was) || s->fc.duration < was.duration))
    memcpy(seed, mapped, bytes);
  mp_rsa_load(s, seed);
}

/* The start of restart rs: 0 the seed; then best, kicked best, seed. */
static void restart_from(mp_rsa *s, mp_rng *r, int rs, const mp_rgene *seed, double kick) {
  int kind = rs == 0 ? 0 : rs % 3;
  if (kind == 0 || !s->has_best) {
    mp_rsa_load(s, seed);
    return;
  }
  mp_rgene *best = mp_xmalloc(sizeof(mp_rgene) * (size_t)(s->d->n_slots + 1));
  memcpy(best, s->best, sizeof(mp_rgene) * (size_t)s->d->n_slots);
  mp_rsa_load(s, best);
  free(best);
  if (kind == 1) return;
  long kicks = (long)(kick * s->d->n_slots) + 1;
  for (long k = 0; k < kicks; k++) {
    mp_rfig f;
    if (!mp_rsa_move(s, r) || mp_rsa_eval(s, &f))
      mp_rsa_undo(s);
    else
      s->fc = f;
    s->n_undo = 0;
  }
}

/* How the time limit ended the restarts: not at all, after the minimum
 * number of restarts (fill), or before it. */
enum { CUT_NONE, CUT_FILL, CUT_EARLY };

static int anneal_restarts(mp_ctx *c, mp_rsa *s, const mp_rgene *seed, double t_start) {
  mp_rng r;
  mp_rng_seed(&r, c->seed);
  int restarts = (int)c->opt[OPT_restarts], rs = 0;
  bool fill = c->opt[OPT_fill] > 0 && c->deadline > 0, cut = false;
  double floor = c->duration_bound * (1 + 1e-12);
  for (; (rs < restarts || fill) && !cut && !(s->has_best && s->best_duration <= floor); rs++) {
    if (mp_time_up(c)) { /* the start used the time (a decode takes ms at 10^5 nodes) */
      cut = true;
      break;
    }
    restart_from(s, &r, rs, seed, c->opt[OPT_kick]);
    double t0 = mp_rsa_sample_t0(s, &r, 100, c->opt[OPT_heat], c->deadline);
    cut = !mp_rsa_anneal(s, &r, (long)c->opt[OPT_iters], t0, c->opt[OPT_t_end], c->deadline);
    if (c->verbose)
      fprintf(stderr, "remat-sa: restart %d: best %.6g, %ld plans decoded, %.3f s\n", rs,
              s->has_best ? s->best_duration : -1.0, s->evals, mp_now() - t_start);
  }
  return !cut ? CUT_NONE : rs <= restarts ? CUT_EARLY : CUT_FILL;
}

/* The best plan within the budget: the search's, or the start plan when
 * that is shorter; -1 when there is none (timeout when the time limit
 * ended the restarts, also those after the minimum: more might find one).
 * A plan is a timeout when the limit cut the minimum of restarts. */
static int finish(mp_ctx *c, mp_rsa *s, const mp_rstart *st, const mp_events *start, bool own,
                  int cut) {
  double floor = c->duration_bound * (1 + 1e-12), duration = s->best_duration;
  if (mp_rstart_wins(st, s->has_best, s->best_duration)) {
    mp_events_copy(c->events, start);
    duration = st->duration;
    snprintf(c->msg, sizeof c->msg, "no plan shorter than %s found (%ld plans tried)",
             own ? "its Chen start plan" : "the start plan", s->evals);
  } else if (s->has_best) {
    mp_events_copy(c->events, &s->best_plan);
  } else {
    snprintf(c->msg, sizeof c->msg,
             "no plan within budget %lld found (%ld plans tried; the floor is %lld)%s",
             (long long)c->budget, s->evals, (long long)mp_events_floor(c->g),
             cut != CUT_NONE ? " before the time limit" : "");
    if (cut != CUT_NONE) c->status = MP_TIMEOUT; /* the limit, not the search, ended it */
    return -1;
  }
  if (duration <= floor)
    c->status = MP_OPTIMAL;
  else if (cut == CUT_EARLY)
    c->status = MP_TIMEOUT; /* cut before the minimum */
  return 0;
}

/* From the start plan handed in (a chain), else from Chen's plan when one
 * fits, else from the greedy start; the best plan within the budget, or -1
 * when none was found. */
static int search(mp_ctx *c, mp_rsa *s) {
  size_t bytes = sizeof(mp_rgene) * (size_t)(s->d->n_slots + 1);
  mp_rgene *seed = mp_xmalloc(bytes), *mapped = mp_xmalloc(bytes);
  double t_start = mp_now();
  mp_events own_plan;
  mp_events_init(&own_plan);
  const mp_events *start = c->start_events;
  bool own = !start && mp_rseed_chen(c->g, c->start_order, c->budget, c->deadline, &own_plan) == 0;
  if (own) start = &own_plan;
  mp_rstart st;
  mp_rstart_map(s->d, start, c->budget, c->deadline, &st, mapped);
  if (c->verbose && st.has_plan)
    fprintf(stderr, "remat-sa: start plan duration %.6g, peak %lld; its genome %s duration %.6g, peak %lld\n",
            st.duration, (long long)st.peak, st.has_genes ? "decodes:" : "does not decode",
            st.fig.duration, (long long)st.fig.peak);
  choose_start(c, s, st.has_genes ? mapped : NULL, own, seed);
  free(mapped);
  if (c->verbose)
    fprintf(stderr, "remat-sa: start %s, duration %.6g, peak %lld, %ld plans decoded, %.3f s\n",
            mp_rsa_fits(s, &s->fc) ? "fits" : "over the budget", s->fc.duration,
            (long long)s->fc.peak, s->evals, mp_now() - t_start);
  int cut = anneal_restarts(c, s, seed, t_start);
  free(seed);
  int rc = finish(c, s, &st, start, own, cut);
  mp_events_destroy(&own_plan);
  return rc;
}

static int rsa_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  mp_events_clear(c->events);
  if (!g) {
    snprintf(c->msg, sizeof c->msg, "remat-sa plans graphs, not fixed-lifetime problems");
    return -1;
  }
  c->duration_bound = mp_events_duration_floor(g);
  c->status = MP_FEASIBLE;
  mp_rdec d;
  mp_rdec_init(&d, g, c->bandwidth);
  d.strict = c->opt[OPT_strict] > 0;
  mp_rdec_set_order(&d, c->start_order);
  mp_rsa s;
  mp_rsa_init(&s, &d, c->budget);
  int rc = 0, at;
  int64_t pinned = mp_rdec_inplace_floor(&d, &at);
  if (c->budget < pinned && mp_events_floor(g) <= c->budget) {
    snprintf(c->msg, sizeof c->msg,
             "no plan within budget %lld follows the order: storage written in place (never "
             "recomputed nor offloaded) and the run at step %d need %lld bytes",
             (long long)c->budget, at, (long long)pinned);
    rc = -1;
  } else if (settle_easy(c, &s)) {
    rc = search(c, &s);
  }
  mp_rsa_destroy(&s);
  mp_rdec_destroy(&d);
  return rc;
}

const mp_solver solver_remat_sa = {
    .name = "remat-sa",
    .summary = "simulated annealing over keep / recompute / offload per gap between uses, first "
               "runs in the order handed in",
    .decides = MP_DECIDES_EVENTS,
    .options = MP_OPTIONS(rsa_options),
    .quick = "iters=1000,restarts=3,fill=0",
    .solve = rsa_solve,
};
