/* run_baseline.c - the baseline of reduction_vs_given: the given order (or
 * the fixed lifetimes) placed by the baseline placer, at the result's
 * alignment.  It depends on the instance and the alignment alone, both
 * known before any stage runs (mp_run fixes r->align first), so a run that
 * will need it computes it on a second thread while its stages run and
 * joins it at evaluation: a whole second mp_run off the critical path.
 * The thread runs exactly the call the evaluation would make afterwards
 * (mp_baseline_compute, its time limit counted afresh from its start), so
 * figures, messages and statuses are the same either way; when the thread
 * cannot start, the evaluation computes it as before.
 *
 * What the baseline's run shares with the solve: the instance (read only:
 * no lazy field), the registry (const), the clock override (per thread,
 * util.c); its result, errors and messages are its own, it prints nothing
 * (verbose 0) and calls no igraph (given + the baseline placer).  The
 * caller's cache (spec->baselines) is read and written on the calling
 * thread only. */
#define _POSIX_C_SOURCE 200809L /* and _GNU_SOURCE (Makefile): pthread_setname_np */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "run_state.h"

/* Is this run the baseline's own: the file order (or a fixed-lifetime
 * problem), no events stage, and the baseline placer alone at its default
 * options?  Its plan is then the baseline's (the placer's plan depends on
 * the problem alone), so it need not be placed twice: the default `solve`
 * placed the same 10^5-node graph twice. */
static bool run_is_baseline(const run_state *s) {
  const mp_chain *ch = s->ch;
  if (s->r->has_remat || s->spec->n_extra) return false;
  if (s->in->g && !mp_chain_is_file_order(ch->names[MP_STAGE_ORDER])) return false;
  const mp_stage_spec *pl = NULL;
  for (int i = 0; i < ch->n; i++)
    if (ch->st[i].kind == MP_STAGE_PLACE) {
      if (pl) return false; /* a chain of placers */
      pl = &ch->st[i];
    }
  if (!pl || pl->solver->decides != MP_DECIDES_OFFSETS || !(pl->solver->roles & MP_ROLE_BASELINE))
    return false;
  double def[MP_MAX_OPTS];
  mp_error e;
  if (mp_solver_options(pl->solver, 0, NULL, def, &e)) return false;
  for (int k = 0; k < pl->solver->n_options; k++)
    if (def[k] != pl->opt[k]) return false;
  return true;
}

/* Does a clock cut some stage: --time-limit, or an option of a stage that
 * is a time limit of its own (MP_OPT_SECONDS)? */
static bool clock_cuts(const run_state *s) {
  if (s->spec->time_limit > 0) return true;
  for (int i = 0; i < s->ch->n; i++)
    if (run_stage_has_clock(&s->ch->st[i])) return true;
  return false;
}

static const mp_baseline *cached(const run_state *s, int64_t align) {
  const mp_baselines *cache = s->spec->baselines;
  for (int i = 0; cache && i < cache->n; i++)
    if (cache->b[i].align == align) return &cache->b[i];
  return NULL;
}

/* The threads of the baseline's placer beside the stages (which may use
 * two themselves). */
enum { BESIDE_THREADS = 1 };

static void *baseline_thread(void *arg) {
  run_baseline_job *j = arg;
  j->rc = mp_baseline_compute_cancel(j->in, j->align, j->time_limit, BESIDE_THREADS, &j->cancel,
                                     &j->b, &j->err);
  mp_busy_thread_ends(); /* its core is free for the stages' threads */
  return NULL;
}

/* Start the baseline beside the stages when the evaluation would compute
 * it: asked for, a second thread allowed, not in the cache, not the run's
 * own plan.  (The run that is its own baseline computes it only when its
 * placement was cut by the time limit, known only then: it stays after.)
 * Not when a clock cuts (clock_cuts): what it cuts (a stage, the baseline)
 * must not depend on a thread beside it, which slows both (one cache, two
 * cores: bysize at 10^5 took 0.63 s alone, 0.83 s beside the baseline,
 * and the baseline, cut 0.5 s after its first fit, was cut beside the
 * stages where alone it was not).  A run that ends without a plan drops
 * it (run_baseline_drop): cancelled, its packing stops at its next look
 * at the flag (every 64 buffers) instead of finishing (20 s at 10^6
 * nodes) for a figure nobody prints. */
void run_baseline_start(run_state *s) {
  const mp_run_spec *spec = s->spec;
  run_baseline_job *j = &s->base;
  if (spec->no_baseline || spec->threads == 1 || !mp_chain_has(s->ch, MP_STAGE_PLACE)) return;
  if (clock_cuts(s)) return;
  if (cached(s, s->r->align) || run_is_baseline(s)) return;
  j->in = s->in;
  j->align = s->r->align;
  j->time_limit = spec->time_limit;
  atomic_init(&j->cancel, 0);
  j->started = pthread_create(&j->thread, NULL, baseline_thread, j) == 0;
  if (j->started) pthread_setname_np(j->thread, MP_BASELINE_THREAD); /* top -H, tests */
}

static mp_err joined(run_state *s, mp_baseline *b, mp_error *err) {
  run_baseline_job *j = &s->base;
  pthread_join(j->thread, NULL);
  j->started = false;
  *b = j->b;
  *err = j->err;
  return j->rc;
}

void run_baseline_drop(run_state *s) {
  if (!s->base.started) return;
  atomic_store(&s->base.cancel, 1);
  pthread_join(s->base.thread, NULL); /* it reads the instance: never outlive the run */
  s->base.started = false;
}

/* The baseline at the result's alignment: from the caller's cache, the
 * run itself, or computed (and cached) within the run's own time limit,
 * counted afresh (beside the stages, or now).  False when it cannot be
 * computed; r->msg then says why unless it holds a note already. */
bool run_baseline_for(run_state *s, mp_baseline *out) {
  int64_t align = s->r->align;
  const mp_baseline *c = cached(s, align);
  if (c) return (*out = *c), true;
  mp_error e;
  if (run_is_baseline(s) && !s->timed_out[MP_STAGE_PLACE]) { /* a cut plan is not its own */
    *out = (mp_baseline){align, mp_arena(&s->r->prob, s->r->offsets)};
  } else if (s->base.started ? joined(s, out, &e)
                             : mp_baseline_compute(s->in, align, s->spec->time_limit,
                                                   s->spec->threads, out, &e)) {
    if (!s->r->msg[0]) snprintf(s->r->msg, sizeof s->r->msg, "no reduction_vs_given: %.400s", e.msg);
    return false;
  }
  mp_baselines *cache = s->spec->baselines;
  if (cache) cache->b[cache->n < MP_BASELINE_CACHE ? cache->n++ : MP_BASELINE_CACHE - 1] = *out;
  return true;
}

mp_err mp_baseline_compute(const mp_instance *in, int64_t align, double time_limit, int threads,
                           mp_baseline *b, mp_error *err) {
  return mp_baseline_compute_cancel(in, align, time_limit, threads, NULL, b, err);
}

mp_err mp_baseline_compute_cancel(const mp_instance *in, int64_t align, double time_limit, int threads,
                                  const atomic_int *cancel, mp_baseline *b, mp_error *err) {
  const mp_solver *order = mp_solver_with_role(MP_ROLE_FILE_ORDER, MP_DECIDES_ORDER);
  const mp_solver *place = mp_solver_with_role(MP_ROLE_BASELINE, MP_DECIDES_OFFSETS);
  if (!order || !place) {
    mp_errorf(err, "the registry has no file-order solver or no baseline placer");
    return MP_EUSAGE;
  }
  mp_run_spec spec = {.order = order->name, .place = place->name, .align = align,
                      .time_limit = time_limit, .no_baseline = true, .threads = threads,
                      .cancel = cancel};
  mp_result r;
  mp_err e = mp_run(in, &spec, &r);
  if (e == MP_OK && (!r.has_figures || r.status == MP_TIMEOUT)) e = MP_ESOLVER;
  /* a cut placement has no r.msg (it has a plan): its stage says why */
  const char *why = r.msg[0] || !r.n_stages ? r.msg : r.stages[r.n_stages - 1].msg;
  if (e) mp_errorf(err, "the baseline (%s + %s): %s", order->name, place->name, why);
  else
    *b = (mp_baseline){r.align, r.fig.arena};
  mp_result_destroy(&r);
  return e;
}
