/* table_agg.c - results rows grouped for the tables and plots.
 *
 * A group is one solver (order chain + placer chain, time limit, options)
 * on one graph; over its seeds every plan figure (live peak, arena,
 * reductions, gaps, fragmentation, std-dev) is one run's, the
 * representative: of the runs that gave a plan, the lower median by arena
 * (ties: the smaller live peak, then the smaller seed), or with
 * best_of_seeds the run with the smallest arena.  Planning time is the
 * median over the runs with a plan (each row's own time is already the
 * median of its repeats; best_of_seeds: the best run's own) with its
 * spread: the smallest and largest time of any repeat of any seed.
 *
 * Bounds are per graph and independent of the solvers that ran: the
 * graph's own bound from the results file (the min-cut bound for a graph,
 * max-live for a fixed-lifetime problem; files written before it existed
 * fall back to the largest bound a run reported, and say so).  A proven
 * optimum raises it only after it is checked: an optimum below the
 * independent bound, or above a value some run achieved, is reported as an
 * issue and ignored.  Rows from several results files that hold the same
 * cell are kept apart (the label names the file).  Rows of cells with a
 * recomputation stage are left out (table_remat_agg.c groups them): their
 * live peak may legitimately be below every order's bound. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "run.h"
#include "util.h"

void mp_rows_ms_range(const mp_row *const *ok, int k, double fallback, double *lo, double *hi) {
  *lo = INFINITY;
  *hi = -INFINITY;
  for (int q = 0; q < k; q++) {
    const mp_row *r = ok[q];
    bool rep = r->repeats != MP_NA && r->repeats >= 1 && !isnan(r->plan_ms_min);
    double a = rep ? r->plan_ms_min : r->plan_ms, b = rep ? r->plan_ms_max : r->plan_ms;
    if (!isnan(a) && a < *lo) *lo = a;
    if (!isnan(b) && b > *hi) *hi = b;
  }
  if (!isfinite(*lo)) *lo = *hi = fallback;
}

bool mp_rows_cell_in_two_files(const mp_row *const *p, int n,
                               bool (*same_cell)(const mp_row *, const mp_row *)) {
  for (int i = 1, first = 0; i < n; i++) {
    if (!same_cell(p[first], p[i]))
      first = i;
    else if (strcmp(p[first]->source ? p[first]->source : "", p[i]->source ? p[i]->source : ""))
      return true;
  }
  return false;
}

/* ------------------------------------------------------------ grouping */

typedef struct actx {
  bool split;               /* group by source too */
} actx;

static int cmp_row_ptr_r(const void *a, const void *b, void *vctx) {
  const actx *ctx = vctx;
  const mp_row *x = *(const mp_row *const *)a, *y = *(const mp_row *const *)b;
  int c = strcmp(x->graph ? x->graph : "", y->graph ? y->graph : "");
  if (c) return c;
  if ((c = strcmp(x->path, y->path))) return c;
  if ((c = strcmp(x->order, y->order))) return c;
  if ((c = strcmp(x->place, y->place))) return c;
  if (x->time_limit != y->time_limit) return x->time_limit < y->time_limit ? -1 : 1;
  if ((c = strcmp(x->options, y->options))) return c;
  if (ctx->split && (c = strcmp(x->source ? x->source : "", y->source ? y->source : ""))) return c;
  return x->seed < y->seed ? -1 : x->seed > y->seed;
}

static bool same_group(const mp_row *x, const mp_row *y, bool split) {
  return !strcmp(x->path, y->path) && !strcmp(x->order, y->order) && !strcmp(x->place, y->place) &&
         x->time_limit == y->time_limit && !strcmp(x->options, y->options) &&
         (!split || !strcmp(x->source ? x->source : "", y->source ? y->source : ""));
}

static bool is_fixed(const mp_row *r) { return r->nodes == 0 && r->buffers > 0; }

static bool same_cell(const mp_row *x, const mp_row *y) {
  return same_group(x, y, false) && x->seed == y->seed;
}

/* Does some cell (same key and seed) appear in two different results files?
 * Sorted with the files aside, the rows of one cell are adjacent. */
static bool cell_in_two_files(const mp_row **p, int n) {
  actx ctx = {false};
  qsort_r(p, (size_t)n, sizeof(*p), cmp_row_ptr_r, &ctx);
  return mp_rows_cell_in_two_files(p, n, same_cell);
}

static void note_sources(const mp_row *rows, int n, mp_aggset *s) {
  for (int i = 0; i < n; i++) {
    const char *src = rows[i].source ? rows[i].source : "";
    int k = 0;
    while (k < s->n_sources && strcmp(s->sources[k], src)) k++;
    if (k == s->n_sources) {
      s->sources = mp_xrealloc(s->sources, sizeof(char *) * (size_t)(k + 1));
      s->source_rows = mp_xrealloc(s->source_rows, sizeof(int) * (size_t)(k + 1));
      s->sources[k] = mp_xstrdup(src);
      s->source_rows[k] = 0;
      s->n_sources++;
    }
    s->source_rows[k]++;
  }
}

/* The label, as long as its parts (options have no length limit). */
static char *label_of(const mp_row *r0, bool multi_tl, bool split) {
  char *l = NULL;
  mp_xappendf(&l, "%s+%s", r0->order, r0->place);
  if (multi_tl) {
    char t[32];
    mp_fmt_seconds(r0->time_limit, t, sizeof t);
    mp_xappendf(&l, " @%ss", t);
  }
  if (r0->options[0]) mp_xappendf(&l, " [%s]", r0->options);
  if (split && r0->source) {
    const char *b = strrchr(r0->source, '/');
    mp_xappendf(&l, " {%s}", b ? b + 1 : r0->source);
  }
  return l;
}

static void add_status(mp_agg *g, const char *st) {
  if (!st) st = "?";
  char item[40];
  snprintf(item, sizeof item, "/%s/", st);
  char wrapped[80];
  snprintf(wrapped, sizeof wrapped, "/%s/", g->statuses);
  if (strstr(wrapped, item)) return;
  size_t l = strlen(g->statuses);
  snprintf(g->statuses + l, sizeof g->statuses - l, "%s%s", l ? "/" : "", st);
}

/* Times of a group: median, spread over repeats and seeds, longest wall. */
static void group_times(mp_agg *g, const mp_row *const *ok, int k, const mp_row *const *all,
                        int n_all, double *dv) {
  for (int q = 0; q < k; q++) dv[q] = ok[q]->plan_ms;
  if (!isnan(g->plan_ms)) { /* best run: its own times */
  } else {
    g->plan_ms = mp_median_present(dv, k);
  }
  mp_rows_ms_range(ok, k, g->plan_ms, &g->ms_lo, &g->ms_hi);
  g->wall_max = 0;
  for (int q = 0; q < n_all; q++)
    if (!isnan(all[q]->wall_s) && all[q]->wall_s > g->wall_max) g->wall_max = all[q]->wall_s;
}

/* Runs in the order of the representative: arena, then live peak, then seed. */
static int cmp_run(const void *a, const void *b) {
  const mp_row *x = *(const mp_row *const *)a, *y = *(const mp_row *const *)b;
  if (x->arena != y->arena) return x->arena < y->arena ? -1 : 1;
  if (x->live_peak != y->live_peak) return x->live_peak < y->live_peak ? -1 : 1;
  return x->seed < y->seed ? -1 : x->seed > y->seed;
}

/* Every plan figure of a group comes from one run, so that a row's arena,
 * reductions, gap and fragmentation agree (medians taken one by one pick
 * different runs when the count is even): the lower-median run in cmp_run's
 * order, or with best the smallest arena (ties: the fastest), whose own
 * time it keeps. */
static void group_figures(mp_agg *g, const mp_row **ok, int k, bool best) {
  g->plan_ms = NAN;
  qsort(ok, (size_t)k, sizeof *ok, cmp_run);
  const mp_row *b = ok[(k - 1) / 2];
  if (best) {
    b = ok[0];
    for (int q = 1; q < k && ok[q]->arena == ok[0]->arena; q++)
      if (ok[q]->plan_ms < b->plan_ms) b = ok[q];
    g->plan_ms = b->plan_ms;
  }
  g->live_peak = b->live_peak;
  g->arena = b->arena;
  g->red_given = b->reduction_vs_given;
  g->red_noreuse = b->reduction_vs_noreuse;
  g->frag = b->fragmentation;
  g->std = b->profile_std;
}

/* One group from rows p[i..j). */
static void make_group(mp_aggset *s, const mp_row **p, int i, int j, const mp_agg_opts *o,
                       bool multi_tl, double *dv, const mp_row **ok) {
  mp_agg *g = &s->a[s->n++];
  bool split = s->split_sources;
  const mp_row *r0 = p[i];
  g->graph = r0->graph ? r0->graph : r0->path;
  g->path = r0->path;
  g->order = r0->order;
  g->place = r0->place;
  g->options = r0->options;
  g->source = split ? r0->source : NULL;
  g->time_limit = r0->time_limit;
  g->fixed = is_fixed(r0);
  g->nodes = r0->nodes;
  s->labels = mp_xrealloc(s->labels, sizeof(char *) * (size_t)(s->n_labels + 1));
  g->label = s->labels[s->n_labels++] = label_of(r0, multi_tl, split);
  g->runs = j - i;
  g->row0 = i;
  g->nrows = j - i;
  int k = 0;
  for (int q = i; q < j; q++) {
    add_status(g, p[q]->status);
    if (p[q]->has_fig) ok[k++] = p[q];
    if (p[q]->status && !strcmp(p[q]->status, "refused")) g->refused++;
  }
  g->ok = k;
  g->plan_ms = NAN;
  if (k > 0) {
    group_figures(g, ok, k, o->best_of_seeds);
    group_times(g, ok, k, p + i, j - i, dv);
  }
}

/* ------------------------------------------------------------ bounds */

/* Did this run prove its arena / its live peak optimal over every plan? */
static bool claims_arena_optimum(const mp_row *r) {
  return r->has_fig && r->status && !strcmp(r->status, "optimal") &&
         (is_fixed(r) || !mp_chain_is_file_order(r->order));
}
/* A searched order's reported bound holds for every order (a file order's
 * may be about that order alone, and the graph's own bound covers it). */
static int64_t reported_bound(const mp_row *r) {
  if (!r->has_fig || is_fixed(r) || mp_chain_is_file_order(r->order) || r->lower_bound == MP_NA)
    return 0;
  return r->lower_bound;
}

/* ... its live peak: a searched order's stage says so, or the run's own
 * proven bound meets its live peak. */
static bool claims_peak_optimum(const mp_row *r) {
  if (!r->has_fig || is_fixed(r) || mp_chain_is_file_order(r->order)) return false;
  if (r->order_status && !strcmp(r->order_status, "optimal")) return true;
  if (reported_bound(r) > 0 && reported_bound(r) == r->live_peak) return true;
  return claims_arena_optimum(r);
}

typedef struct gbound {
  int64_t g;                /* the independent bound (0 when the file has none) */
  const char *kind;         /* its kind, or "reported" when the file has none */
  int64_t min_arena, min_peak; /* smallest values achieved */
} gbound;

static gbound independent_bound(const mp_row *rows, int n, const char *path) {
  gbound b = {0, NULL, -1, -1};
  for (int q = 0; q < n; q++) {
    const mp_row *r = &rows[q];
    if (strcmp(r->path, path) || mp_row_is_remat(r)) continue;
    if (r->graph_bound != MP_NA && r->graph_bound > b.g) {
      b.g = r->graph_bound;
      b.kind = r->bound_kind ? r->bound_kind : "independent";
    }
    if (!r->has_fig) continue;
    if (b.min_arena < 0 || r->arena < b.min_arena) b.min_arena = r->arena;
    if (b.min_peak < 0 || r->live_peak < b.min_peak) b.min_peak = r->live_peak;
  }
  if (!b.kind) b.kind = "reported";
  return b;
}

static const char *who(const mp_row *r, char *buf, size_t cap) {
  snprintf(buf, cap, "%s %s+%s seed %llu", r->graph ? r->graph : r->path, r->order, r->place,
           (unsigned long long)r->seed);
  return buf;
}

enum { VALID_ARENA = 1, VALID_PEAK = 2 };

/* The checked bounds of one graph; issues for what contradicts them;
 * valid[q] says which claims of row q hold up. */
static void graph_bounds(const mp_row *rows, int n, const char *path, const mp_agg_opts *o,
                         mp_aggset *s, unsigned char *valid, int64_t *arena_b, int64_t *peak_b,
                         const char **kind) {
  gbound b = independent_bound(rows, n, path);
  int64_t ab = b.g, pb = b.g;
  char w[400];
  bool indep = strcmp(b.kind, "reported") != 0;
  for (int q = 0; q < n; q++) {
    const mp_row *r = &rows[q];
    if (strcmp(r->path, path) || !r->has_fig || mp_row_is_remat(r)) continue;
    if (indep && r->live_peak < b.g) {
      mp_strlist_addf(&s->issues, &s->n_issues,
                      "%s: live peak %lld is below the %s bound %lld of the graph",
                      who(r, w, sizeof w), (long long)r->live_peak, b.kind, (long long)b.g);
      continue;
    }
    bool ca = claims_arena_optimum(r), cp = claims_peak_optimum(r);
    if ((ca && r->arena < b.g) || (cp && r->live_peak < b.g)) {
      mp_strlist_addf(&s->issues, &s->n_issues,
                      "%s: claims an optimum (%lld) below the %s bound %lld: an error, not a bound",
                      who(r, w, sizeof w), (long long)(ca ? r->arena : r->live_peak), b.kind,
                      (long long)b.g);
      continue;
    }
    if (ca && r->arena > b.min_arena) {
      mp_strlist_addf(&s->issues, &s->n_issues,
                      "%s: claims arena %lld optimal, but a run reached %lld", who(r, w, sizeof w),
                      (long long)r->arena, (long long)b.min_arena);
      continue;
    }
    if (cp && r->live_peak > b.min_peak) {
      mp_strlist_addf(&s->issues, &s->n_issues,
                      "%s: claims live peak %lld optimal, but a run reached %lld",
                      who(r, w, sizeof w), (long long)r->live_peak, (long long)b.min_peak);
      continue;
    }
    /* a run's reported bound holds for every order: never above a peak reached */
    int64_t lb = reported_bound(r);
    if (lb > b.min_peak) {
      mp_strlist_addf(&s->issues, &s->n_issues,
                      "%s: reports a lower bound %lld above the live peak %lld a run reached",
                      who(r, w, sizeof w), (long long)lb, (long long)b.min_peak);
      continue;
    }
    valid[q] = (unsigned char)((ca ? VALID_ARENA : 0) | (cp ? VALID_PEAK : 0));
    if (!indep && lb > pb) pb = lb; /* no independent bound: the best reported one */
    if (!indep && lb > ab) ab = lb;
    if (o->graph_bound_only) continue;
    if (lb > pb) pb = lb;
    if (lb > ab) ab = lb;
    if (ca && r->arena > ab) ab = r->arena;
    if (cp && r->live_peak > pb) pb = r->live_peak;
    if (cp && r->live_peak > ab) ab = r->live_peak; /* arena >= live peak >= its optimum */
  }
  *arena_b = ab;
  *peak_b = pb;
  *kind = b.kind;
}

static void set_bounds(const mp_row *rows, int n, const mp_row **p, const mp_agg_opts *o,
                       mp_aggset *s) {
  mp_agg *a = s->a;
  unsigned char *valid = mp_xcalloc((size_t)(n ? n : 1), 1);
  for (int st = 0; st < s->n;) {
    int e = st;
    while (e < s->n && !strcmp(a[e].path, a[st].path)) e++;
    int64_t ab, pb;
    const char *kind;
    graph_bounds(rows, n, a[st].path, o, s, valid, &ab, &pb, &kind);
    int64_t indep = independent_bound(rows, n, a[st].path).g;
    for (int q = st; q < e; q++) {
      mp_agg *g = &a[q];
      g->bound = ab;
      g->peak_bound = pb;
      g->bound_kind = kind;
      g->graph_bound = strcmp(kind, "reported") ? indep : 0;
      g->bound_proven = strcmp(kind, "reported") && ab > indep;
      g->gap = g->ok && ab > 0 ? (double)g->arena / (double)ab - 1.0 : NAN;
      g->peak_gap = g->ok && pb > 0 ? (double)g->live_peak / (double)pb - 1.0 : NAN;
      g->optimal = g->ok && ab > 0 && g->arena == ab;
      g->order_optimal = g->ok && pb > 0 && g->live_peak == pb;
      for (int k = g->row0; k < g->row0 + g->nrows; k++) {
        unsigned char v = valid[p[k] - rows];
        g->proved |= (v & VALID_ARENA) != 0;
        g->order_proved |= (v & VALID_PEAK) != 0;
      }
    }
    st = e;
  }
  free(valid);
}

/* ------------------------------------------------------------ entry */

void mp_aggregate(const mp_row *rows, int n, const mp_agg_opts *o, mp_aggset *s) {
  memset(s, 0, sizeof *s);
  mp_agg_opts def = {0};
  if (!o) o = &def;
  const mp_row **p = mp_xmalloc(sizeof(*p) * (size_t)(n ? n : 1));
  int all = n;
  n = 0;
  for (int i = 0; i < all; i++)
    if (!mp_row_is_remat(&rows[i])) p[n++] = &rows[i];
  note_sources(rows, all, s);
  s->split_sources = s->n_sources > 1 && cell_in_two_files(p, n);
  actx ctx = {s->split_sources};
  qsort_r(p, (size_t)n, sizeof(*p), cmp_row_ptr_r, &ctx);
  bool multi_tl = false;
  for (int i = 1; i < n; i++)
    if (p[i]->time_limit != p[0]->time_limit) multi_tl = true;
  s->a = mp_xcalloc((size_t)(n ? n : 1), sizeof(mp_agg));
  double *dv = mp_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
  const mp_row **ok = mp_xmalloc(sizeof(*ok) * (size_t)(n ? n : 1));
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && same_group(p[i], p[j], s->split_sources)) j++;
    make_group(s, p, i, j, o, multi_tl, dv, ok);
    i = j;
  }
  set_bounds(rows, all, p, o, s);
  free(ok);
  free(dv);
  free(p);
}

void mp_aggset_destroy(mp_aggset *s) {
  for (int i = 0; i < s->n_issues; i++) free(s->issues[i]);
  for (int i = 0; i < s->n_sources; i++) free(s->sources[i]);
  mp_list_free(s->labels, s->n_labels);
  free(s->issues);
  free(s->sources);
  free(s->source_rows);
  free(s->a);
  memset(s, 0, sizeof *s);
}

bool mp_label_joins(const char *want, const char *const *parts, int n) {
  for (int i = 0; i < n; i++) {
    size_t l = strlen(parts[i]);
    if (strncmp(want, parts[i], l) || want[l] != (i + 1 < n ? '+' : 0)) return false;
    want += l + 1;
  }
  return true;
}

bool mp_agg_matches(const mp_agg *g, const char *want) {
  const char *parts[] = {g->order, g->place};
  return !strcmp(g->label, want) || mp_label_joins(want, parts, 2);
}
