/* props_trial.c - see props_trial.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "props_trial.h"

/* The greedy placers whose best arena caps any proven optimum, and the
 * simple orders whose least peak caps any order bound. */
static const char *const greedy_placers[] = {"bysize", "bysize-ff", "byconflicts", "firstfit", "bestfit"};
enum { N_GREEDY = sizeof greedy_placers / sizeof greedy_placers[0] };
static const char *const simple_orders[] = {"given", "greedy", "lpmf", "bfs", "dfs"};

static double run_limit(bool big) { return big ? PC_BIG_LIMIT : 5.0; }

/* Is `set` ("solver.name=value") one of s's size caps? */
static bool is_size_cap(const mp_solver *s, const char *set) {
  const char *name = strchr(set, '.'), *eq = strchr(set, '=');
  if (!name || !eq) return false;
  name++;
  for (int k = 0; k < s->n_options; k++) {
    const mp_option *o = &s->options[k];
    if (strlen(o->name) == (size_t)(eq - name) && strncmp(o->name, name, (size_t)(eq - name)) == 0)
      return o->help && strstr(o->help, "size cap");
  }
  return false;
}

/* s's quick options; on a larger trial without its size caps (static
 * storage, valid until the next call). */
static const char *const *run_sets(const mp_solver *s, bool big) {
  const char *const *q = tl_quick_sets(s);
  if (!big) return q;
  static const char *kept[64];
  int n = 0;
  for (int k = 0; q[k] && n < 63; k++)
    if (!is_size_cap(s, q[k])) kept[n++] = q[k];
  kept[n] = NULL;
  return kept;
}

/* A reference run on a trial's input (no time limit): it must succeed. */
static void reference_ok(int rc, const mp_result *r, const char *order, const char *place, const char *input) {
  if (rc != 0)
    ck_abort_msg("reference run --order %s --place %s: rc %d: %s\n%s", order ? order : "-", place, rc, r->msg,
                 input);
}

void graph_trial_init(graph_trial *T, mp_graph *g, char *js, bool big) {
  T->g = g;
  T->js = js;
  T->n = g->n;
  T->big = big;
  ck_assert_int_eq(or_build(T->g, &T->om), 0);
  T->opt = T->n <= 8 ? tl_brute_force_peak(T->g, 50000, NULL) : -1;
  mp_result base;
  reference_ok(tl_run(T->g, "given", "bysize", 1, 0, NULL, &base), &base, "given", "bysize", T->js);
  T->given_arena = base.fig.arena;
  mp_result_destroy(&base);
  T->ref[0] = T->ref[1] = -1;
  for (int o = 0; o < 2; o++)
    for (int c = 0; c < N_GREEDY; c++) {
      if (!mp_solver_find(greedy_placers[c])) continue;
      const char *order = o ? "greedy" : "given";
      reference_ok(tl_run(T->g, order, greedy_placers[c], 1, 0, NULL, &base), &base, order, greedy_placers[c], T->js);
      if (T->ref[o] < 0 || base.fig.arena < T->ref[o]) T->ref[o] = base.fig.arena;
      mp_result_destroy(&base);
    }
  T->peak_ub = -1;
  for (int k = 0; k < 5; k++) {
    if (!mp_solver_find(simple_orders[k])) continue;
    reference_ok(tl_run(T->g, simple_orders[k], "bysize", 1, 0, NULL, &base), &base, simple_orders[k], "bysize",
                 T->js);
    if (T->peak_ub < 0 || base.fig.live_peak < T->peak_ub) T->peak_ub = base.fig.live_peak;
    mp_result_destroy(&base);
  }
}

void graph_trial_destroy(graph_trial *T) {
  or_destroy(&T->om);
  mp_graph_destroy(T->g);
  free(T->js);
}

bool solver_on_graph(const mp_solver *s, graph_trial *T, int i, solver_stats *st) {
  const char *order = "given", *place = s->name;
  if (s->decides == MP_DECIDES_ORDER) {
    order = s->name;
    place = "bysize";
  } else if (s->decides == MP_DECIDES_OFFSETS) {
    order = i % 2 ? "greedy" : "given";
  }
  uint64_t seed = 1000 + (uint64_t)i;
  double limit = run_limit(T->big);
  char what[200];
  snprintf(what, sizeof what, "solver %s (%strial %d, n %d, --order %s --place %s)", s->name,
           T->big ? "larger " : "", i, T->n, order, place);
  mp_result a, b;
  pc_watchdog_arm(what, T->js, limit);
  int rc = tl_run(T->g, order, place, seed, limit, run_sets(s, T->big), &a);
  pc_watchdog_disarm();
  if (rc == 3 && pc_accept_refusal(s, &a, T->n, st, what, T->js)) {
    mp_result_destroy(&a);
    return false;
  }
  ck_assert_msg(rc == 0, "%s: rc %d: %s\n%s", what, rc, a.msg, T->js);
  pc_check_graph_result(T->g, &T->om, &a, T->given_arena, what, T->js);
  pc_check_graph_bounds(s, &a, T->opt, T->peak_ub, T->ref, order, what, T->js);
  if (T->big || i % 5 == 0) {
    mp_instance in = {T->g, NULL};
    pc_check_plan_file(&in, &a, ".plan.json", what);
  }
  /* the same seed gives the same plan (a run cut by the clock need not) */
  if (!(T->big && a.status == MP_TIMEOUT)) {
    pc_watchdog_arm(what, T->js, limit);
    int rc2 = tl_run(T->g, order, place, seed, limit, run_sets(s, T->big), &b);
    pc_watchdog_disarm();
    ck_assert_int_eq(rc2, 0);
    if (a.status != MP_TIMEOUT && b.status != MP_TIMEOUT)
      ck_assert_msg(pc_same_plan(&a, &b), "%s: the same seed gave a different plan\n%s", what, T->js);
    mp_result_destroy(&b);
  }
  mp_result_destroy(&a);
  return true;
}

void fixed_trial_init(fixed_trial *T, const pc_fixed *p, char *csv, const char *label, bool big) {
  T->p = *p;
  T->csv = csv;
  T->label = label ? label : csv;
  T->big = big;
  T->opt = -1;
  T->path = tl_write_temp(T->csv, ".csv");
  mp_error err;
  ck_assert_msg(mp_csv_read(T->path, &T->prob, &err) == 0, "%s\n%s", err.msg, T->label);
  mp_result base;
  reference_ok(tl_run_fixed(&T->prob, "bysize", 1, 0, 0, NULL, &base), &base, NULL, "bysize", T->label);
  T->given_arena = base.fig.arena;
  mp_result_destroy(&base);
  T->ref = -1;
  for (int c = 0; c < N_GREEDY; c++) {
    if (!mp_solver_find(greedy_placers[c])) continue;
    reference_ok(tl_run_fixed(&T->prob, greedy_placers[c], 1, 0, 0, NULL, &base), &base, NULL, greedy_placers[c],
                 T->label);
    if (T->ref < 0 || base.fig.arena < T->ref) T->ref = base.fig.arena;
    mp_result_destroy(&base);
  }
}

void fixed_trial_destroy(fixed_trial *T) {
  mp_problem_destroy(&T->prob);
  free(T->path);
  free(T->csv);
}

/* A placer's stage bounds never exceed its arena nor what a greedy placer
 * reaches, nor a known optimum; optimal only at or below the former, and
 * only at the latter. */
static void check_fixed_bounds(const fixed_trial *T, const mp_result *a, const char *what) {
  if (T->opt >= 0) {
    ck_assert_msg(a->fig.arena >= T->opt, "%s: arena %lld below the optimum %lld\n%s", what,
                  (long long)a->fig.arena, (long long)T->opt, T->label);
    if (a->status == MP_OPTIMAL)
      ck_assert_msg(a->fig.arena == T->opt, "%s: status optimal at %lld, optimum %lld\n%s", what,
                    (long long)a->fig.arena, (long long)T->opt, T->label);
  }
  for (int q = 0; q < a->n_stages; q++) {
    if (T->opt >= 0) {
      ck_assert_msg(a->stages[q].bound <= T->opt, "%s: bound %lld above the optimum %lld\n%s", what,
                    (long long)a->stages[q].bound, (long long)T->opt, T->label);
      if (a->stages[q].status == MP_OPTIMAL)
        ck_assert_msg(a->fig.arena == T->opt, "%s claims optimal at %lld, optimum %lld\n%s", what,
                      (long long)a->fig.arena, (long long)T->opt, T->label);
    }
    ck_assert_msg(a->stages[q].bound <= a->fig.arena, "%s: bound above the arena", what);
    if (T->ref < 0) continue;
    ck_assert_msg(a->stages[q].bound <= T->ref, "%s: bound %lld above the arena %lld a greedy placer reaches\n%s",
                  what, (long long)a->stages[q].bound, (long long)T->ref, T->label);
    if (a->stages[q].status == MP_OPTIMAL)
      ck_assert_msg(a->fig.arena <= T->ref, "%s claims optimal at %lld; a greedy placer reaches %lld\n%s",
                    what, (long long)a->fig.arena, (long long)T->ref, T->label);
  }
}

bool placer_on_fixed(const mp_solver *s, fixed_trial *T, int i, solver_stats *st) {
  char what[200];
  snprintf(what, sizeof what, "placer %s on a %sfixed problem (trial %d, %d items)", s->name,
           T->big ? "larger " : "", i, T->p.n);
  mp_result a, b;
  uint64_t seed = 5 + (uint64_t)i;
  double limit = run_limit(T->big);
  pc_watchdog_arm(what, T->label, limit);
  int rc = tl_run_fixed(&T->prob, s->name, seed, limit, 0, run_sets(s, T->big), &a);
  pc_watchdog_disarm();
  if (rc == 3 && pc_accept_refusal(s, &a, T->p.n, st, what, T->label)) {
    mp_result_destroy(&a);
    return false;
  }
  ck_assert_msg(rc == 0, "%s: rc %d: %s\n%s", what, rc, a.msg, T->label);
  pc_check_fixed_result(&T->p, &a, T->given_arena, what, T->label);
  if (T->big || i % 5 == 0) {
    mp_instance in = {NULL, &T->prob};
    pc_check_plan_file(&in, &a, ".plan.csv", what);
  }
  check_fixed_bounds(T, &a, what);
  if (!(T->big && a.status == MP_TIMEOUT)) {
    pc_watchdog_arm(what, T->label, limit);
    int rc2 = tl_run_fixed(&T->prob, s->name, seed, limit, 0, run_sets(s, T->big), &b);
    pc_watchdog_disarm();
    ck_assert_int_eq(rc2, 0);
    if (a.status != MP_TIMEOUT && b.status != MP_TIMEOUT)
      ck_assert_msg(pc_same_plan(&a, &b), "%s: the same seed gave different offsets\n%s", what, T->label);
    mp_result_destroy(&b);
  }
  mp_result_destroy(&a);
  return true;
}
