/* table_remat_agg.c - results rows of recomputation cells grouped for the
 * tables and the overhead plot.
 *
 * A group is one solver (order + remat + place chains, bandwidth, time
 * limit, options; the label) at one budget on one graph.  Over its seeds
 * every figure of the plan is one run's, the representative: of the runs
 * that gave a plan, the lower median by duration (ties: the smaller live
 * peak, then the smaller seed), or with best_of_seeds the shortest
 * duration; planning and remat times are their own medians over those runs
 * (best_of_seeds: the best run's own).  The
 * budget in bytes is what the runs resolved ("0.8x" of the live peak of the
 * order they were handed).
 *
 * Checks (a plan the harness verified cannot fail them; a results file from
 * elsewhere can): a plan whose live peak is over its budget, or below the
 * events floor its run reported (mp_events_floor, a bound on every plan);
 * and an `infeasible` at a budget that some plan of the same graph met:
 * infeasible is a claim about every plan of the graph (the floor, or an
 * exhausted exact search). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util.h"

bool mp_row_is_remat(const mp_row *r) { return r->remat && r->remat[0]; }

static const char *nz(const char *s) { return s ? s : ""; }

int mp_budget_arg_cmp(const char *a, const char *b) {
  double fa, fb;
  bool xa = mp_budget_arg_frac(a, &fa), xb = mp_budget_arg_frac(b, &fb);
  if (xa != xb) return xa ? -1 : 1;
  if (!xa) {
    fa = strtod(nz(a), NULL);
    fb = strtod(nz(b), NULL);
  }
  if (fa != fb) return fa > fb ? -1 : 1;
  return strcmp(nz(a), nz(b));
}

/* ------------------------------------------------------------ grouping */

typedef struct rctx {
  bool split;               /* rows from several files hold one cell: keep them apart */
} rctx;

/* The solver of a row, budget aside (the label's fields). */
static int cmp_solver(const mp_row *x, const mp_row *y, bool split) {
  int c;
  if ((c = strcmp(nz(x->order), nz(y->order))) || (c = strcmp(nz(x->remat), nz(y->remat))) ||
      (c = strcmp(nz(x->place), nz(y->place))) ||
      (c = strcmp(nz(x->bandwidth_arg), nz(y->bandwidth_arg))))
    return c;
  if (x->time_limit != y->time_limit) return x->time_limit < y->time_limit ? -1 : 1;
  if ((c = strcmp(nz(x->options), nz(y->options)))) return c;
  return split ? strcmp(nz(x->source), nz(y->source)) : 0;
}

static int cmp_rows_r(const void *a, const void *b, void *vctx) {
  const rctx *ctx = vctx;
  const mp_row *x = *(const mp_row *const *)a, *y = *(const mp_row *const *)b;
  int c;
  if ((c = strcmp(nz(x->graph), nz(y->graph))) || (c = strcmp(nz(x->path), nz(y->path))) ||
      (c = cmp_solver(x, y, ctx->split)) || (c = mp_budget_arg_cmp(x->budget_arg, y->budget_arg)))
    return c;
  return x->seed < y->seed ? -1 : x->seed > y->seed;
}

static bool same_group(const mp_row *x, const mp_row *y, bool split) {
  return !strcmp(nz(x->path), nz(y->path)) && !cmp_solver(x, y, split) &&
         !strcmp(nz(x->budget_arg), nz(y->budget_arg));
}

static bool same_cell(const mp_row *x, const mp_row *y) {
  return same_group(x, y, false) && x->seed == y->seed;
}

/* Does some cell (same key and seed) appear in two results files?  Sorted
 * with the files aside, the rows of one cell are adjacent. */
static bool cell_in_two_files(const mp_row **p, int n) {
  rctx ctx = {false};
  qsort_r(p, (size_t)n, sizeof(*p), cmp_rows_r, &ctx);
  return mp_rows_cell_in_two_files(p, n, same_cell);
}

/* "order+remat+place", then " bw=X" when the rows hold several bandwidths
 * (X "graph" for the graph's own), the time limit and options as in the
 * other tables, the file in braces when files are kept apart. */
static char *label_of(const mp_row *r, bool multi_bw, bool multi_tl, bool split) {
  char *l = NULL;
  mp_xappendf(&l, "%s+%s+%s", nz(r->order), r->remat, nz(r->place));
  if (multi_bw) mp_xappendf(&l, " bw=%s", nz(r->bandwidth_arg)[0] ? r->bandwidth_arg : "graph");
  if (multi_tl) {
    char t[32];
    mp_fmt_seconds(r->time_limit, t, sizeof t);
    mp_xappendf(&l, " @%ss", t);
  }
  if (nz(r->options)[0]) mp_xappendf(&l, " [%s]", r->options);
  if (split && r->source) {
    const char *b = strrchr(r->source, '/');
    mp_xappendf(&l, " {%s}", b ? b + 1 : r->source);
  }
  return l;
}

static void add_word(char *list, size_t cap, const char *w) {
  if (!w) w = "?";
  char item[48], wrapped[80];
  snprintf(item, sizeof item, "/%s/", w);
  snprintf(wrapped, sizeof wrapped, "/%s/", list);
  if (strstr(wrapped, item)) return;
  size_t l = strlen(list);
  snprintf(list + l, cap - l, "%s%s", l ? "/" : "", w);
}

/* ------------------------------------------------------------ figures */

static int64_t d2i(double x) { return isnan(x) ? MP_NA : (int64_t)x; }

/* The figures of one run. */
static void figures_of_run(mp_ragg *g, const mp_row *r) {
  g->live_peak = r->live_peak;
  g->arena = r->arena;
  g->recomputed = r->recomputed;
  g->stale_reruns = r->stale_reruns;
  g->transferred = r->transferred;
  g->floor = r->lower_bound;
  g->duration = r->duration;
  g->overhead = r->overhead;
  g->stall = r->stall_time;
  g->recompute_time = r->recompute_time;
  g->plan_ms = r->plan_ms;
  g->remat_ms = r->remat_ms;
}

/* Runs in the order of the representative: duration (absent last), then
 * live peak, then seed. */
static int cmp_run(const void *a, const void *b) {
  const mp_row *x = *(const mp_row *const *)a, *y = *(const mp_row *const *)b;
  if (isnan(x->duration) != isnan(y->duration)) return isnan(x->duration) ? 1 : -1;
  if (x->duration != y->duration && !isnan(x->duration))
    return x->duration < y->duration ? -1 : 1;
  if (x->live_peak != y->live_peak) return x->live_peak < y->live_peak ? -1 : 1;
  return x->seed < y->seed ? -1 : x->seed > y->seed;
}

/* The representative's figures (one run: a row's duration, overhead, peak
 * and transfers agree) and the median times of the k runs with a plan. */
static void figures_median(mp_ragg *g, const mp_row **ok, int k, double *v) {
  qsort(ok, (size_t)k, sizeof *ok, cmp_run);
  figures_of_run(g, ok[(k - 1) / 2]);
  for (int q = 0; q < k; q++) v[q] = ok[q]->plan_ms;
  g->plan_ms = mp_median_present(v, k);
  for (int q = 0; q < k; q++) v[q] = ok[q]->remat_ms;
  g->remat_ms = mp_median_present(v, k);
}

static void group_times(mp_ragg *g, const mp_row *const *ok, int k) {
  mp_rows_ms_range(ok, k, g->plan_ms, &g->ms_lo, &g->ms_hi);
}

typedef struct gctx {
  bool best, multi_bw, multi_tl, split;
  double *v;
  const mp_row **ok;
} gctx;

/* One group from rows p[i..j). */
static void make_group(mp_raggset *s, const mp_row **p, int i, int j, const gctx *c) {
  const mp_row *r0 = p[i];
  mp_ragg *g = &s->a[s->n++];
  memset(g, 0, sizeof *g);
  g->graph = r0->graph ? r0->graph : r0->path;
  g->path = nz(r0->path);
  g->order = nz(r0->order), g->remat = r0->remat, g->place = nz(r0->place);
  g->options = nz(r0->options);
  g->source = c->split ? r0->source : NULL;
  g->budget_arg = nz(r0->budget_arg);
  g->bandwidth_arg = nz(r0->bandwidth_arg);
  g->time_limit = r0->time_limit;
  s->labels = mp_xrealloc(s->labels, sizeof(char *) * (size_t)(s->n_labels + 1));
  g->label = s->labels[s->n_labels++] = label_of(r0, c->multi_bw, c->multi_tl, c->split);
  if (!mp_budget_arg_frac(g->budget_arg, &g->frac)) g->frac = NAN;
  g->runs = j - i;
  int k = 0;
  double b = NAN;
  for (int q = i; q < j; q++) {
    const mp_row *r = p[q];
    add_word(g->statuses, sizeof g->statuses, r->status);
    if (r->remat_status) add_word(g->remat_statuses, sizeof g->remat_statuses, r->remat_status);
    g->refused += r->status && !strcmp(r->status, "refused");
    g->infeasible += r->status && !strcmp(r->status, "infeasible");
    if (r->budget != MP_NA && (isnan(b) || (double)r->budget < b)) b = (double)r->budget;
    if (r->has_fig) c->ok[k++] = r;
  }
  g->budget = d2i(b);
  g->ok = k;
  g->live_peak = g->arena = g->recomputed = g->transferred = g->floor =
      g->stale_reruns = MP_NA;
  g->duration = g->overhead = g->stall = g->recompute_time = g->plan_ms = g->remat_ms = NAN;
  g->ms_lo = g->ms_hi = NAN; /* no plan, no time (not 0) */
  g->base_time = p[i]->base_time;
  if (!k) return;
  if (c->best) {
    const mp_row *bst = c->ok[0];
    for (int q = 1; q < k; q++)
      if (c->ok[q]->duration < bst->duration) bst = c->ok[q];
    figures_of_run(g, bst);
  } else {
    figures_median(g, c->ok, k, c->v);
  }
  group_times(g, c->ok, k);
}

/* ------------------------------------------------------------ checks */

static const char *who(const mp_row *r, char *buf, size_t cap) {
  snprintf(buf, cap, "%s %s+%s+%s budget %s seed %llu", nz(r->graph), nz(r->order), r->remat,
           nz(r->place), nz(r->budget_arg), (unsigned long long)r->seed);
  return buf;
}

/* p[i..j): the rows of one graph. */
static void check_graph(const mp_row **p, int i, int j, mp_raggset *s) {
  char w[500];
  for (int q = i; q < j; q++) {
    const mp_row *r = p[q];
    if (r->has_fig && r->budget != MP_NA && r->live_peak > r->budget)
      mp_strlist_addf(&s->issues, &s->n_issues, "%s: live peak %lld is over its budget %lld",
                      who(r, w, sizeof w), (long long)r->live_peak, (long long)r->budget);
    if (r->has_fig && r->lower_bound != MP_NA && r->live_peak < r->lower_bound)
      mp_strlist_addf(&s->issues, &s->n_issues,
                      "%s: live peak %lld is below the events floor %lld its run reported",
                      who(r, w, sizeof w), (long long)r->live_peak, (long long)r->lower_bound);
    if (!r->status || strcmp(r->status, "infeasible") || r->budget == MP_NA) continue;
    for (int k = i; k < j; k++)
      if (p[k]->has_fig && p[k]->live_peak <= r->budget) {
        mp_strlist_addf(&s->issues, &s->n_issues,
                        "%s: claims no plan fits %lld bytes, but %s+%s+%s planned %lld",
                        who(r, w, sizeof w), (long long)r->budget, nz(p[k]->order), p[k]->remat,
                        nz(p[k]->place), (long long)p[k]->live_peak);
        break;
      }
  }
}

/* ------------------------------------------------------------ entry */

void mp_remat_aggregate(const mp_row *rows, int n, bool best_of_seeds, mp_raggset *s) {
  memset(s, 0, sizeof *s);
  const mp_row **p = mp_xmalloc(sizeof(*p) * (size_t)(n ? n : 1));
  int m = 0;
  for (int i = 0; i < n; i++)
    if (mp_row_is_remat(&rows[i])) p[m++] = &rows[i];
  gctx c = {best_of_seeds, false, false, cell_in_two_files(p, m), NULL, NULL};
  for (int i = 1; i < m; i++) {
    c.multi_bw |= strcmp(nz(p[i]->bandwidth_arg), nz(p[0]->bandwidth_arg)) != 0;
    c.multi_tl |= p[i]->time_limit != p[0]->time_limit;
  }
  rctx ctx = {c.split};
  qsort_r(p, (size_t)m, sizeof(*p), cmp_rows_r, &ctx);
  c.v = mp_xmalloc(sizeof(double) * (size_t)(m ? m : 1));
  c.ok = mp_xmalloc(sizeof(*c.ok) * (size_t)(m ? m : 1));
  s->a = mp_xcalloc((size_t)(m ? m : 1), sizeof(mp_ragg));
  for (int i = 0; i < m;) {
    int j = i;
    while (j < m && same_group(p[i], p[j], c.split)) j++;
    make_group(s, p, i, j, &c);
    i = j;
  }
  for (int i = 0; i < m;) {
    int j = i;
    while (j < m && !strcmp(nz(p[i]->path), nz(p[j]->path))) j++;
    check_graph(p, i, j, s);
    i = j;
  }
  free(c.v);
  free(c.ok);
  free(p);
}

void mp_raggset_destroy(mp_raggset *s) {
  for (int i = 0; i < s->n_issues; i++) free(s->issues[i]);
  free(s->issues);
  mp_list_free(s->labels, s->n_labels);
  free(s->a);
  memset(s, 0, sizeof *s);
}

bool mp_ragg_matches(const mp_ragg *g, const char *want) {
  const char *parts[] = {g->order, g->remat, g->place};
  return !strcmp(g->label, want) || mp_label_joins(want, parts, 3);
}
