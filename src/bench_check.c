/* bench_check.c - a cell's answer judged before it is stored.
 *
 * What a cell's program prints is a claim, whoever wrote the program
 * (--memplan PROGRAM runs another one).  Bench refuses, as a failed cell
 * (status error, the reason in the row's message), an answer whose status
 * words are not memplan's (a results file holding one could no longer be
 * read) or whose figures contradict each other: a plan's live peak, arena
 * and sum of sizes must be non-negative integers with arena >= live peak
 * (>= nothing below the stated lower bound), the derived figures
 * (fragmentation, reuse ratio, reduction against no reuse, a recomputation
 * plan's overhead) must follow from them, a recomputation plan must keep
 * its budget.  A claim of optimality or infeasibility is memplan's
 * harness's verdict when the program is this memplan (it decides them from
 * verified plans and checked bounds); from another program it stands only
 * when a bound bench computes itself from the graph backs it (the file
 * order's live peak, the per-node bound, the events floor); otherwise the
 * cell fails.  Such a program's plan (asked with --out) is then verified by
 * memplan's own judge, and the figures it printed must be those the judge
 * recomputes (bench_rejudge.c): what is stored is the judge's.  This
 * memplan's own figures come from that judge already: its cells write no
 * plan. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench_row.h"
#include "chain.h"
#include "events.h"
#include "io.h"
#include "lifetime.h"
#include "plan.h"
#include "util.h"

/* One of memplan's status words (plan.c's list); "fixed" only where a
 * sub-status may say it. */
static bool known(const char *s, bool fixed_too) {
  mp_status st;
  return !mp_status_parse(s, &st) && (fixed_too || st != MP_FIXED);
}

void mp_cellrun_refuse(mp_cellrun *run, const char *fmt, ...) {
  if (run->refused[0]) return; /* the first reason */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(run->refused, sizeof run->refused, fmt, ap);
  va_end(ap);
}

#define refuse mp_cellrun_refuse

/* ---- what bench computes itself from a graph (one kept) ---- */

void mp_graph_facts_destroy(mp_graph_facts *f) {
  free(f->file);
  if (f->in) mp_instance_destroy(f->in);
  free(f->in);
  memset(f, 0, sizeof *f);
}

const mp_graph_facts *mp_graph_facts_of(mp_graph_facts *f, const char *file) {
  if (f->file && !strcmp(f->file, file)) return f;
  mp_graph_facts_destroy(f);
  f->file = mp_xstrdup(file);
  mp_instance *in = mp_xmalloc(sizeof *in);
  mp_error err;
  if (mp_instance_load(file, NULL, in, &err)) { /* ok false: nothing backs a claim */
    free(in);
    return f;
  }
  f->in = in;
  f->ok = true;
  f->fixed = !in->g;
  if (in->g) {
    f->file_order_peak = mp_order_peak(in->g, in->g->given);
    f->node_bound = mp_node_lower_bound(in->g);
    f->floor = mp_events_floor(in->g);
    f->duration_floor = mp_events_duration_floor(in->g);
  } else {
    f->file_order_peak = f->node_bound = f->floor = mp_live_peak(in->fixed);
  }
  return f;
}

/* ---- reading the answer ---- */

/* An integer figure: 1 read (>= 0), 0 absent (null or missing), -1 refused. */
static int int_fig(mp_cellrun *run, const char *k, int64_t *v) {
  json_t *x = json_object_get(run->out, k);
  if (!x || json_is_null(x)) return 0;
  if (!json_is_integer(x) || json_integer_value(x) < 0) {
    refuse(run, "%s is not a non-negative integer", k);
    return -1;
  }
  *v = json_integer_value(x);
  return 1;
}

static int real_fig(mp_cellrun *run, const char *k, double *v) {
  json_t *x = json_object_get(run->out, k);
  if (!x || json_is_null(x)) return 0;
  if (!json_is_number(x) || !isfinite(json_number_value(x))) {
    refuse(run, "%s is not a finite number", k);
    return -1;
  }
  *v = json_number_value(x);
  return 1;
}

/* printed with 12 significant digits: agreement to a few units in 1e-9 */
bool mp_bench_near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b))); }
#define near mp_bench_near

static void derived(mp_cellrun *run, const char *k, double want) {
  double v = NAN;
  int got = real_fig(run, k, &v);
  if (got == 0) refuse(run, "%s is missing", k);
  if (got == 1 && !near(v, want)) refuse(run, "%s %.12g, but the figures give %.12g", k, v, want);
}


/* Every status word memplan's own; a non-string where one stands refused. */
static void check_words(mp_cellrun *run) {
  static const char *const sub[] = {"order_status", "place_status", "remat_status", NULL};
  json_t *st = json_object_get(run->out, "status");
  if (!st) /* a failure: the row says so with the exit and the end of stderr (bench_row.c) */
    ;
  else if (!json_is_string(st))
    refuse(run, "status is not a string");
  else if (!known(json_string_value(st), false))
    refuse(run, "status '%.60s' is not one of optimal, feasible, infeasible, timeout, error, refused",
           json_string_value(st));
  for (int i = 0; sub[i]; i++) {
    json_t *x = json_object_get(run->out, sub[i]);
    if (x && !json_is_null(x) && (!json_is_string(x) || !known(json_string_value(x), true)))
      refuse(run, "%s %s is not one of optimal, feasible, infeasible, timeout, error, refused, fixed",
             sub[i], json_is_string(x) ? json_string_value(x) : "(not a string)");
  }
}

/* A plan's figures: present, non-negative, in agreement. */
static void check_figures(mp_cellrun *run, const mp_cell *c) {
  int64_t peak = 0, arena = 0, sum = 0, lb = 0;
  int p = int_fig(run, "live_peak", &peak), a = int_fig(run, "arena", &arena);
  int s = int_fig(run, "sum_sizes", &sum), l = int_fig(run, "lower_bound", &lb);
  if (p < 0 || a < 0 || s < 0 || l < 0) return;
  if (!p || !a || !s) {
    refuse(run, "a plan without %s", !p ? "live_peak" : !a ? "arena" : "sum_sizes");
    return;
  }
  if (arena < peak)
    refuse(run, "arena %lld is below the live peak %lld", (long long)arena, (long long)peak);
  if (l && lb > peak)
    refuse(run, "lower_bound %lld is above the live peak %lld", (long long)lb, (long long)peak);
  if (!c->remat[0] && sum < peak)
    refuse(run, "live peak %lld is above the sum of sizes %lld", (long long)peak, (long long)sum);
  if (arena > 0) derived(run, "fragmentation", (double)(arena - peak) / (double)arena);
  if (arena > 0 && sum > 0) {
    derived(run, "reuse_ratio", (double)sum / (double)arena);
    derived(run, "reduction_vs_noreuse", 1 - (double)arena / (double)sum);
  }
  double std = 0;
  if (real_fig(run, "profile_std", &std) == 1 && std < 0) refuse(run, "profile_std %g is negative", std);
}

/* A recomputation plan: within its budget, its overhead its duration's. */
static void check_remat_plan(mp_cellrun *run) {
  int64_t peak = 0, budget = 0, n = 0;
  double d = 0, base = 0;
  const char *counts[] = {"recomputed", "transferred", "residencies", "stale_reruns"};
  for (int i = 0; i < 4; i++) int_fig(run, counts[i], &n);
  if (int_fig(run, "live_peak", &peak) == 1 && int_fig(run, "budget", &budget) == 1 && peak > budget)
    refuse(run, "live peak %lld is over the budget %lld", (long long)peak, (long long)budget);
  int hd = real_fig(run, "duration", &d), hb = real_fig(run, "base_time", &base);
  if (hd == 0) refuse(run, "a recomputation plan without duration");
  if (hd == 1 && d < 0) refuse(run, "duration %g is negative", d);
  if (hd == 1 && hb == 1 && base > 0) derived(run, "overhead", d / base - 1);
}

/* ---- another program's answer against the graph ---- */

static const char *const HOW = "the program is not this memplan, whose harness decides claims "
                               "from proofs; bench stores another program's claim only when a "
                               "bound it computes backs it";

static bool is(const char *s, const char *word) { return s && !strcmp(s, word); }

/* The statuses and figures a claim is judged on. */
typedef struct answer {
  const char *st, *os, *ps, *rs;  /* status, order_status, place_status, remat_status */
  bool has_fig;
  int64_t peak, arena;
} answer;

/* A plan's live peak against bench's own figures: a file-order chain's
 * is determined, and none is below the per-node bound. */
static void check_peak(mp_cellrun *run, const mp_cell *c, const answer *a, const mp_graph_facts *f,
                       bool file_order) {
  if (!a->has_fig || c->remat[0]) return;
  if (file_order && a->peak != f->file_order_peak)
    refuse(run, "live peak %lld, but the file order (a file-order chain) peaks at %lld",
           (long long)a->peak, (long long)f->file_order_peak);
  if (a->peak < f->node_bound)
    refuse(run, "live peak %lld is below the per-node bound %lld", (long long)a->peak,
           (long long)f->node_bound);
}

/* A stated lower bound is a proof the tables use (a searched order's
 * raises the graph's bound): from another program, one above bench's own
 * (the per-node bound; with recomputation the events floor) is not taken.
 * A file-order chain's is that order's live peak, checked with it. */
static void check_lower_bound(mp_cellrun *run, const mp_cell *c, const mp_graph_facts *f,
                              bool file_order) {
  int64_t lb = 0, own = c->remat[0] ? f->floor : f->node_bound;
  if ((file_order && !c->remat[0]) || int_fig(run, "lower_bound", &lb) != 1 || lb <= own) return;
  refuse(run, "lower_bound %lld is above bench's %s %lld: %s", (long long)lb,
         c->remat[0] ? "events floor" : "per-node bound", (long long)own, HOW);
}

/* Order and placement: an optimum meets bench's bound on the live peak
 * (the file order's own, else the per-node bound); infeasibility is that
 * bound above the capacity asked. */
static void back_plain(mp_cellrun *run, const mp_cell *c, const answer *a, const mp_graph_facts *f,
                       bool file_order) {
  int64_t bound = file_order ? f->file_order_peak : f->node_bound, cap = 0;
  const char *what = file_order ? "the file order's live peak" : "per node";
  const char *capo = mp_cell_option(c->options, "capacity");
  if (capo) cap = strtoll(capo, NULL, 10);
  if (is(a->st, "optimal") && !(a->has_fig && a->arena == bound))
    refuse(run, "it claims an optimum (arena %lld), but bench's bound is %lld (%s): %s",
           (long long)a->arena, (long long)bound, what, HOW);
  if (is(a->os, "optimal") && !(a->has_fig && a->peak == f->node_bound))
    refuse(run, "order_status optimal (live peak %lld), but bench's per-node bound is %lld: %s",
           (long long)a->peak, (long long)f->node_bound, HOW);
  if (is(a->st, "infeasible") && cap <= 0)
    refuse(run, "it claims no plan fits, though no capacity was asked");
  else if (is(a->st, "infeasible") && bound <= cap)
    refuse(run, "it claims no plan fits the capacity %lld, but bench's bound is %lld (%s): %s",
           (long long)cap, (long long)bound, what, HOW);
}

int64_t mp_cell_budget(const mp_cell *c, const mp_graph_facts *f) {
  if (!mp_budget_arg_frac(c->budget, NULL)) return strtoll(c->budget, NULL, 10);
  if (!f->fixed && !mp_chain_is_file_order(c->order)) return -1;
  char frac[64];
  int64_t budget;
  mp_error err;
  snprintf(frac, sizeof frac, "%.*s", (int)strlen(c->budget) - 1, c->budget);
  return mp_budget_frac(frac, f->file_order_peak, &budget, &err) ? -1 : budget;
}

/* Recomputation: infeasibility is the events floor above the budget (a
 * fraction of the file order's peak, or bytes); an optimal plan lasts
 * bench's duration floor; the arena of an optimal placement is the plan's
 * live peak. */
static void back_remat(mp_cellrun *run, const mp_cell *c, const answer *a, const mp_graph_facts *f) {
  int64_t budget = mp_cell_budget(c, f);
  if ((is(a->st, "infeasible") || is(a->rs, "infeasible")) && !(budget >= 0 && f->floor > budget))
    refuse(run, "it claims no plan fits the budget %s, but bench's events floor %lld is not above "
           "it: %s", c->budget, (long long)f->floor, HOW);
  double d = NAN;
  if (a->has_fig) real_fig(run, "duration", &d);
  if (is(a->rs, "optimal") && !(a->has_fig && near(d, f->duration_floor)))
    refuse(run, "remat_status optimal (duration %g), but bench's duration floor is %g: %s", d,
           f->duration_floor, HOW);
  if (is(a->st, "optimal") && !(a->has_fig && a->arena == a->peak))
    refuse(run, "it claims an optimum (arena %lld), but the plan's live peak is %lld: %s",
           (long long)a->arena, (long long)a->peak, HOW);
  if (is(a->os, "optimal"))
    refuse(run, "order_status optimal, which bench cannot check beside recomputation: %s", HOW);
}

static void judge_foreign(mp_cellrun *run, const mp_cell *c, bool has_fig, mp_graph_facts *cache) {
  answer a = {mp_json_str(run->out, "status"), mp_json_str(run->out, "order_status"),
              mp_json_str(run->out, "place_status"), mp_json_str(run->out, "remat_status"), has_fig, 0, 0};
  bool claims = is(a.st, "optimal") || is(a.st, "infeasible") || is(a.os, "optimal") ||
                is(a.ps, "optimal") || is(a.rs, "optimal") || is(a.rs, "infeasible");
  if (!claims && !has_fig && !json_is_integer(json_object_get(run->out, "lower_bound"))) return;
  const mp_graph_facts *f = mp_graph_facts_of(cache, c->file);
  if (!f->ok) {
    if (claims)
      refuse(run, "it claims an optimum or infeasibility, and bench cannot read the graph to check it");
    return;
  }
  if (has_fig) {
    int_fig(run, "live_peak", &a.peak);
    int_fig(run, "arena", &a.arena);
  }
  bool file_order = f->fixed || mp_chain_is_file_order(c->order);
  check_peak(run, c, &a, f, file_order);
  check_lower_bound(run, c, f, file_order);
  if (is(a.ps, "optimal") && !(has_fig && a.arena == a.peak))
    refuse(run, "place_status optimal with arena %lld above the live peak %lld: %s",
           (long long)a.arena, (long long)a.peak, HOW);
  if (c->remat[0])
    back_remat(run, c, &a, f);
  else
    back_plain(run, c, &a, f, file_order);
}

/* The counts a row stores whatever the status: integers or absent (the
 * row's reader would cut 12.5 to 12). */
static void check_counts(mp_cellrun *run) {
  static const char *const counts[] = {"nodes", "buffers", "budget", NULL};
  int64_t v;
  for (int i = 0; counts[i]; i++) int_fig(run, counts[i], &v);
}

void mp_cellrun_judge(mp_cellrun *run, const mp_cell *c, const char *plan, mp_graph_facts *cache) {
  if (!run->out || run->killed || WIFSIGNALED(run->wstatus)) return;
  check_words(run);
  check_counts(run);
  const char *st = mp_json_str(run->out, "status");
  if (run->refused[0] || !st) return;
  bool has_fig = mp_cellrun_says_figures(run);
  bool exited_ok = WIFEXITED(run->wstatus) && WEXITSTATUS(run->wstatus) == 0;
  if (has_fig && exited_ok) {
    check_figures(run, c);
    if (c->remat[0] && !run->refused[0]) check_remat_plan(run);
  }
  if (plan && !run->refused[0]) judge_foreign(run, c, has_fig && exited_ok, cache);
  /* last: its refusals (no plan, another figure) must not hide a claim's */
  if (plan && !run->refused[0] && has_fig && exited_ok) mp_cellrun_rejudge(run, c, plan, cache);
}
