/* props_check.c - see props_check.h. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "props_check.h"

/* Watchdog: a solver run that hangs (ignoring its time limit) fails the
 * test at once with the solver and the input named, instead of stalling
 * the whole suite until Check's timeout. */
#define WATCHDOG_S 15
static char watchdog_msg[8192];

static void watchdog_fire(int sig) {
  (void)sig;
  static const char head[] = "\nprops: WATCHDOG: a solver run exceeded 15 s: ";
  if (write(2, head, sizeof head - 1) < 0) _exit(3);
  if (write(2, watchdog_msg, strlen(watchdog_msg)) < 0) _exit(3);
  _exit(3);
}

void pc_watchdog_arm(const char *what, const char *input, double limit) {
  snprintf(watchdog_msg, sizeof watchdog_msg, "%s (its time limit was %g s)\ninput:\n%s\n", what, limit,
           input);
  signal(SIGALRM, watchdog_fire);
  alarm(WATCHDOG_S);
}

void pc_watchdog_disarm(void) { alarm(0); }


static bool contains(const char *s, const char *w) { return s && strstr(s, w); }

/* A solver may refuse an input only under a size cap its descriptor
 * documents: its summary or one of its options says "size cap". */
static bool documents_cap(const mp_solver *s) {
  if (contains(s->summary, "size cap")) return true;
  for (int i = 0; i < s->n_options; i++)
    if (contains(s->options[i].help, "size cap")) return true;
  return false;
}

/* The stage that refused: status refused, or (while the harness reports a
 * failed stage as an error) an error whose message names the size cap. */
static const mp_stage_result *refusal(const mp_result *r) {
  for (int i = 0; i < r->n_stages; i++)
    if (r->stages[i].status == MP_REFUSED ||
        (r->stages[i].status == MP_ERROR && contains(r->stages[i].msg, "size cap")))
      return &r->stages[i];
  return NULL;
}

/* The solvers under test: every registered order solver and placer, or the
 * one named by MP_TEST_SOLVER (`make test SOLVER=name`).  Events stages
 * (recomputation and offload) have their own tests: tests/test_remat.c. */
const char *pc_only_solver(void) {
  const char *o = getenv("MP_TEST_SOLVER");
  return o && *o ? o : NULL;
}

bool pc_selected(const mp_solver *s) {
  const char *o = pc_only_solver();
  return s->decides != MP_DECIDES_EVENTS && (!o || strcmp(o, s->name) == 0);
}

/* Every check of a graph result, against the oracle. */
void pc_check_graph_result(const mp_graph *g, or_model *om, const mp_result *r,
                               int64_t given_arena, const char *what, const char *js) {
  ck_assert_msg(r->status != MP_ERROR && r->status != MP_INFEASIBLE, "%s: status %s", what,
                mp_status_name(r->status));
  ck_assert_msg(or_order_ok(om, r->order), "%s: invalid order\n%s", what, js);
  or_lifetimes(om, r->order);
  ck_assert_int_eq(r->prob.n, om->nb);
  int64_t *off = malloc(sizeof(int64_t) * (size_t)(om->nb + 1));
  for (int b = 0; b < r->prob.n; b++) {
    const mp_buffer *bb = &g->bufs[b];
    int o = or_find(om, bb->owner, bb->out, bb->kind == MP_BUF_WORKSPACE);
    ck_assert(o >= 0);
    off[o] = r->offsets[b];
    ck_assert_msg(r->prob.items[b].lo == om->b[o].birth && r->prob.items[b].hi == om->b[o].death + 1,
                  "%s: interval of buffer %d\n%s", what, b, js);
  }
  const char *bad = or_check_offsets(om, off, r->align);
  ck_assert_msg(bad == NULL, "%s: oracle rejects the placement: %s\n%s", what, bad, js);
  int64_t peak = or_peak(om), arena = or_arena(om, off), sum = or_sum(om);
  free(off);
  const mp_figures *f = &r->fig;
  ck_assert_msg(f->live_peak == peak, "%s: live_peak %lld, oracle %lld\n%s", what,
                (long long)f->live_peak, (long long)peak, js);
  ck_assert_msg(f->arena == arena, "%s: arena %lld, oracle %lld", what, (long long)f->arena,
                (long long)arena);
  ck_assert_int_eq(f->sum_sizes, sum);
  ck_assert_msg(arena >= peak, "%s: arena below live peak", what);
  ck_assert_msg(f->lower_bound >= om->lb && f->lower_bound <= peak,
                "%s: lower_bound %lld outside [node bound %lld, peak %lld]", what,
                (long long)f->lower_bound, (long long)om->lb, (long long)peak);
  ck_assert(PC_FEQ(f->fragmentation, arena ? (double)(arena - peak) / (double)arena : 0.0));
  ck_assert(PC_FEQ(f->reuse_ratio, arena ? (double)sum / (double)arena : 0.0));
  ck_assert(PC_FEQ(f->reduction_vs_noreuse, sum ? 1.0 - (double)arena / (double)sum : 0.0));
  ck_assert_msg(f->given_arena == given_arena, "%s: given baseline %lld, expected %lld", what,
                (long long)f->given_arena, (long long)given_arena);
  ck_assert(PC_FEQ(f->reduction_vs_given, given_arena ? 1.0 - (double)arena / (double)given_arena : 0.0));
  ck_assert_msg(PC_FEQ(f->profile_std, or_std(om)), "%s: profile_std %g, oracle %g", what,
                f->profile_std, or_std(om));
  /* the evaluator again gives the same figures */
  mp_figures f2;
  mp_evaluate(&r->prob, r->offsets, f->lower_bound, f->given_arena, &f2);
  ck_assert(memcmp(&f2, f, sizeof f2) == 0);
  ck_assert(mp_verify_offsets(&r->prob, r->offsets, NULL) == 0);
}

bool pc_same_plan(const mp_result *a, const mp_result *b) {
  if (a->prob.n != b->prob.n || a->n != b->n) return false;
  if (a->n && memcmp(a->order, b->order, sizeof(int) * (size_t)a->n)) return false;
  return a->prob.n == 0 || memcmp(a->offsets, b->offsets, sizeof(int64_t) * (size_t)a->prob.n) == 0;
}

/* A refusal: allowed only under a documented size cap, with a message;
 * counted (a solver that refuses graphs of four nodes or fewer fails). */
bool pc_accept_refusal(const mp_solver *s, const mp_result *a, int size, solver_stats *st,
                           const char *what, const char *input) {
  const mp_stage_result *sr = refusal(a);
  if (!sr) return false;
  ck_assert_msg(documents_cap(s), "%s refused (%s) but documents no size cap\n%s", what, sr->msg, input);
  ck_assert_msg(sr->msg[0], "%s refused without a message", what);
  st->refusals++;
  if (size <= 4) st->small_refusals++;
  return true;
}

/* An order stage's bound is below the optimum, so below the peak of its
 * own order and of any other; it claims optimal only at or below them. */
static void check_order_bound(const mp_stage_result *sr, const mp_result *a, int64_t peak_ub,
                              const char *what, const char *js) {
  ck_assert_msg(sr->bound <= a->fig.live_peak, "%s: bound %lld above the peak %lld of its order\n%s", what,
                (long long)sr->bound, (long long)a->fig.live_peak, js);
  if (peak_ub < 0) return;
  ck_assert_msg(sr->bound <= peak_ub, "%s: bound %lld above the peak %lld of another order\n%s", what,
                (long long)sr->bound, (long long)peak_ub, js);
  if (sr->status == MP_OPTIMAL)
    ck_assert_msg(a->fig.live_peak <= peak_ub, "%s claims optimal at %lld; another order reaches %lld\n%s",
                  what, (long long)a->fig.live_peak, (long long)peak_ub, js);
}

void pc_check_graph_bounds(const mp_solver *s, const mp_result *a, int64_t opt, int64_t peak_ub,
                           const int64_t ref[2], const char *order, const char *what, const char *js) {
  for (int q = 0; q < a->n_stages; q++) {
    const mp_stage_result *sr = &a->stages[q];
    if (sr->solver->decides == MP_DECIDES_ORDER && strcmp(sr->solver->name, s->name) == 0) {
      check_order_bound(sr, a, peak_ub, what, js);
      if (opt < 0) continue;
      ck_assert_msg(sr->bound <= opt, "%s: bound %lld above the optimum %lld\n%s", what,
                    (long long)sr->bound, (long long)opt, js);
      if (sr->status == MP_OPTIMAL)
        ck_assert_msg(a->fig.live_peak == opt, "%s claims optimal at %lld, optimum %lld\n%s", what,
                      (long long)a->fig.live_peak, (long long)opt, js);
    } else if (sr->solver == s) {
      ck_assert_msg(sr->bound <= a->fig.arena, "%s: bound %lld above its arena %lld", what,
                    (long long)sr->bound, (long long)a->fig.arena);
      /* a proven optimum is no worse than what greedy placers reach: under
       * the same order for a placer, under either order for a solver
       * deciding both */
      int64_t cap = s->decides == MP_DECIDES_BOTH ? (ref[0] < ref[1] ? ref[0] : ref[1])
                                                  : ref[strcmp(order, "greedy") == 0];
      if (cap < 0) continue;
      if (sr->status == MP_OPTIMAL)
        ck_assert_msg(a->fig.arena <= cap, "%s claims optimal at arena %lld; a greedy placer reaches %lld\n%s",
                      what, (long long)a->fig.arena, (long long)cap, js);
      ck_assert_msg(sr->bound <= cap, "%s: bound %lld above an arena %lld a greedy placer reaches\n%s",
                    what, (long long)sr->bound, (long long)cap, js);
    }
  }
  if (opt >= 0) {
    ck_assert_msg(a->fig.live_peak >= opt, "%s: peak %lld below the brute-force optimum %lld\n%s", what,
                  (long long)a->fig.live_peak, (long long)opt, js);
    if (a->status == MP_OPTIMAL && strcmp(a->order_name, "given") != 0)
      ck_assert_msg(a->fig.live_peak == opt, "%s: status optimal at peak %lld, optimum %lld\n%s", what,
                    (long long)a->fig.live_peak, (long long)opt, js);
  }
}

/* The plan file of a result round-trips through `verify`. */
void pc_check_plan_file(const mp_instance *in, const mp_result *a, const char *suffix, const char *what) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(mp_plan_write(f, in, a), 0);
  fclose(f);
  if (in->g) tl_check_plan_bytes(buf);
  char *pp = tl_write_temp(buf, suffix);
  mp_error e;
  ck_assert_msg(mp_plan_verify(in, pp, 0, &e) == 0, "%s: its plan file does not verify: %s\n%s", what,
                e.msg, buf);
  free(pp);
  free(buf);
}

/* Independent check of a fixed-lifetime result (half-open lifetimes). */
void pc_check_fixed_result(const pc_fixed *p, const mp_result *r, int64_t given_arena,
                               const char *what, const char *csv) {
  ck_assert_int_eq(r->prob.n, p->n);
  const int64_t *off = r->offsets;
  int64_t arena = 0, sum = 0, tb = 0, te = 0;
  for (int i = 0; i < p->n; i++) {
    if (off[i] < 0 || off[i] % p->align[i] != 0)
      ck_abort_msg("%s: item %d offset %lld (align %lld)\n%s", what, i, (long long)off[i],
                   (long long)p->align[i], csv);
    if (p->pin[i] >= 0 && off[i] != p->pin[i]) ck_abort_msg("%s: pinned item %d moved\n%s", what, i, csv);
    if (p->size[i] > 0 && off[i] + p->size[i] > arena) arena = off[i] + p->size[i];
    sum += p->size[i];
    if (i == 0 || p->lo[i] < tb) tb = p->lo[i];
    if (i == 0 || p->hi[i] > te) te = p->hi[i];
    for (int j = 0; j < i; j++) {
      /* half-open lifetimes; an empty one [t, t) meets nothing */
      bool time = p->lo[i] < p->hi[i] && p->lo[j] < p->hi[j] && p->lo[i] < p->hi[j] && p->lo[j] < p->hi[i];
      bool space = off[i] < off[j] + p->size[j] && off[j] < off[i] + p->size[i];
      /* (Check records every assertion: ask only on a failure, this loop is
       * quadratic) */
      if (time && space && p->size[i] && p->size[j])
        ck_abort_msg("%s: items %d and %d overlap\n%s", what, j, i, csv);
    }
  }
  int64_t peak = 0;
  double s1 = 0, s2 = 0;
  for (int64_t t = tb; t < te; t++) {
    int64_t m = 0;
    for (int i = 0; i < p->n; i++)
      if (p->lo[i] <= t && t < p->hi[i]) m += p->size[i];
    if (m > peak) peak = m;
    s1 += (double)m;
    s2 += (double)m * (double)m;
  }
  double std = 0;
  if (te > tb) {
    double mean = s1 / (double)(te - tb);
    double var = s2 / (double)(te - tb) - mean * mean;
    std = var > 0 ? sqrt(var) : 0;
  }
  const mp_figures *f = &r->fig;
  ck_assert_msg(f->live_peak == peak, "%s: peak %lld vs %lld\n%s", what, (long long)f->live_peak,
                (long long)peak, csv);
  ck_assert_int_eq(f->arena, arena);
  ck_assert_int_eq(f->sum_sizes, sum);
  ck_assert_int_eq(f->lower_bound, peak);
  ck_assert_msg(arena >= peak, "%s: arena %lld below the max-live %lld", what, (long long)arena,
                (long long)peak);
  ck_assert_msg(fabs(f->profile_std - std) <= 1e-6 * fmax(1.0, std), "%s: std %g vs %g\n%s", what,
                f->profile_std, std, csv);
  ck_assert(PC_FEQ(f->fragmentation, arena ? (double)(arena - peak) / (double)arena : 0.0));
  ck_assert(PC_FEQ(f->reuse_ratio, arena ? (double)sum / (double)arena : 0.0));
  ck_assert(PC_FEQ(f->reduction_vs_noreuse, sum ? 1.0 - (double)arena / (double)sum : 0.0));
  ck_assert_int_eq(f->given_arena, given_arena);
  ck_assert(PC_FEQ(f->reduction_vs_given, given_arena ? 1.0 - (double)arena / (double)given_arena : 0.0));
}

