/* remat_clock.c - see remat_clock.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "remat_clock.h"

/* The answer's plan (or its absence) is valid; its duration. */
static void check_valid(const mp_solver *s, const mp_graph *g, int64_t budget, double bw, const mp_ctx *c,
                        rc_answer *a) {
  a->duration = -1;
  if (a->rc != 0) {
    ck_assert_msg(a->ev.n == 0, "%s: returned -1 (no plan) but left %d events in c->events (clear them: "
                  "mp_events_clear)", s->name, a->ev.n);
    ck_assert_msg(c->msg[0], "%s: returned -1 (no plan) without a message in c->msg", s->name);
    return;
  }
  if (c->status == MP_INFEASIBLE) return;
  mp_error err;
  ck_assert_msg(mp_events_verify(g, &a->ev, bw, NULL, &err) == 0, "%s: %s", s->name, err.msg);
  mp_ev_figures f;
  mp_events_evaluate(g, &a->ev, bw, budget, &f);
  ck_assert_msg(f.live_peak <= budget, "%s: peak %lld over %lld", s->name, (long long)f.live_peak,
                (long long)budget);
  a->duration = f.duration;
}

/* rc_run_clocked with the clock from reading `jump` on at `at`. */
static void run_clocked_at(const mp_solver *s, const char *const *sets, const mp_graph *g, const int *order,
                           int64_t budget, double bw, long jump, double at, rc_answer *a) {
  mp_ctx c;
  memset(&c, 0, sizeof c);
  if (!sets) sets = tl_quick_sets(s);
  int ns = 0;
  while (sets[ns]) ns++;
  mp_error err;
  ck_assert_int_eq(mp_solver_options(s, ns, sets, c.opt, &err), MP_OK);
  mp_events_init(&a->ev);
  c.g = g;
  c.start_order = order;
  c.budget = budget;
  c.bandwidth = bw;
  c.seed = 5;
  c.events = &a->ev;
  c.status = MP_FEASIBLE;
  c.time_limit = 100;
  c.deadline = RC_DEADLINE;
  tl_clock_start_at(jump, at);
  a->rc = s->solve(&c);
  a->reads = tl_clock_stop();
  a->status = c.status;
  a->duration_bound = c.duration_bound;
  snprintf(a->msg, sizeof a->msg, "%s", c.msg);
  check_valid(s, g, budget, bw, &c, a);
}

void rc_run_clocked(const mp_solver *s, const char *const *sets, const mp_graph *g, const int *order,
                    int64_t budget, double bw, long jump, rc_answer *a) {
  run_clocked_at(s, sets, g, order, budget, bw, jump, TL_CLOCK_PAST, a);
}

void rc_answer_destroy(rc_answer *a) { mp_events_destroy(&a->ev); }

bool rc_same_answer(const rc_answer *a, const rc_answer *b) {
  if (a->rc != b->rc || a->status != b->status) return false;
  if (a->status == MP_INFEASIBLE) return true;
  if (a->status == MP_OPTIMAL) return fabs(a->duration - b->duration) <= 1e-9 * fmax(1.0, a->duration);
  return rc_same_events(&a->ev, &b->ev) && a->duration_bound == b->duration_bound && !strcmp(a->msg, b->msg);
}

/* rc_cut_everywhere with the clock from each cut on at `at`. */
static int cut_everywhere_at(const mp_solver *s, const char *const *sets, const mp_graph *g, const int *order,
                             int64_t budget, double bw, long max_cuts, const char *what, double at) {
  rc_answer a, b;
  rc_run_clocked(s, sets, g, order, budget, bw, -1, &a);
  ck_assert_msg(a.status != MP_TIMEOUT, "%s on %s: timeout though the clock never passed: %s", s->name,
                what, a.msg);
  long step = a.reads > max_cuts ? a.reads / max_cuts : 1;
  int timeouts = 0;
  for (long j = 0; j < a.reads; j += step) {
    run_clocked_at(s, sets, g, order, budget, bw, j, at, &b);
    ck_assert_msg(b.status == MP_TIMEOUT || rc_same_answer(&a, &b),
                  "%s on %s, budget %lld, bandwidth %g, deadline %s at clock reading %ld of %ld: "
                  "rc %d, %s (%s); the uncut run: rc %d, %s (%s)",
                  s->name, what, (long long)budget, bw, at >= RC_DEADLINE ? "passed" : "all but reached", j,
                  a.reads, b.rc, mp_status_name(b.status), b.msg,
                  a.rc, mp_status_name(a.status), a.msg);
    timeouts += b.status == MP_TIMEOUT;
    rc_answer_destroy(&b);
  }
  rc_answer_destroy(&a);
  return timeouts;
}

int rc_cut_everywhere(const mp_solver *s, const char *const *sets, const mp_graph *g, const int *order,
                      int64_t budget, double bw, long max_cuts, const char *what) {
  return cut_everywhere_at(s, sets, g, order, budget, bw, max_cuts, what, TL_CLOCK_PAST);
}

int rc_near_everywhere(const mp_solver *s, const char *const *sets, const mp_graph *g, const int *order,
                       int64_t budget, double bw, long max_cuts, const char *what) {
  return cut_everywhere_at(s, sets, g, order, budget, bw, max_cuts, what, RC_DEADLINE - RC_NEAR);
}
