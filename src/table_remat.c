/* table_remat.c - `memplan table` for cells with a recomputation stage
 * (DESIGN 6): the figures of the event plans (duration, overhead,
 * recomputed runs, bytes transferred, stall time) against the budget.
 *
 *   suite    per solver, the geometric mean overhead at each budget over
 *            the graphs it planned, and the smallest budget it reached
 *            within the overhead threshold (--max-overhead, default 20%),
 *            median over the graphs: the summary a researcher quotes
 *   within   graphs x solvers: the smallest budget within the threshold
 *   graphs   per graph, budget and solver every figure
 *   csv      one line per graph, budget and solver, every number
 *
 * Groups come from table_remat_agg.c; every figure is the evaluator's, this
 * file only relates and prints them with fixed precision. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table_fmt.h"
#include "util.h"

typedef struct rtab {
  const mp_fmt *f;
  const mp_raggset *s;
  const mp_table_opts *o;
  double limit;             /* overhead threshold (fraction) */
  const char **labels;      /* the solvers, sorted (or in --solver order) */
  int nl;
  const char **budgets;     /* the budget args, in table order */
  int nb;
} rtab;

static bool in_list(const char *const *l, int n, const char *x) {
  for (int i = 0; i < n; i++)
    if (!strcmp(l[i], x)) return true;
  return false;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}
static int cmp_budget(const void *a, const void *b) {
  return mp_budget_arg_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* Columns: labels (the --solver order first) and budgets. */
static void axes(rtab *T) {
  const mp_raggset *s = T->s;
  T->labels = mp_xmalloc(sizeof(char *) * (size_t)(s->n ? s->n : 1));
  T->budgets = mp_xmalloc(sizeof(char *) * (size_t)(s->n ? s->n : 1));
  for (int w = 0; w < T->o->n_solvers; w++)
    for (int k = 0; k < s->n; k++)
      if (mp_ragg_matches(&s->a[k], T->o->solvers[w]) && !in_list(T->labels, T->nl, s->a[k].label))
        T->labels[T->nl++] = s->a[k].label;
  int fixed = T->nl;
  for (int k = 0; k < s->n; k++) {
    if (!in_list(T->labels, T->nl, s->a[k].label)) T->labels[T->nl++] = s->a[k].label;
    if (!in_list(T->budgets, T->nb, s->a[k].budget_arg))
      T->budgets[T->nb++] = s->a[k].budget_arg;
  }
  qsort(T->labels + fixed, (size_t)(T->nl - fixed), sizeof(char *), cmp_str);
  qsort(T->budgets, (size_t)T->nb, sizeof(char *), cmp_budget);
}

/* The group of (graph rows a[st..e), label, budget), or NULL. */
static const mp_ragg *find(const mp_raggset *s, int st, int e, const char *label,
                           const char *budget) {
  for (int q = st; q < e; q++)
    if (!strcmp(s->a[q].label, label) && !strcmp(s->a[q].budget_arg, budget)) return &s->a[q];
  return NULL;
}

static int graph_end(const mp_raggset *s, int st) {
  int e = st;
  while (e < s->n && !strcmp(s->a[e].path, s->a[st].path)) e++;
  return e;
}

static bool within(const rtab *T, const mp_ragg *g) {
  return g && g->ok && !isnan(g->overhead) && g->overhead <= T->limit + 1e-12;
}

/* The smallest budget (in table order: the last) at which the label is
 * within the threshold on graph a[st..e); NULL when none. */
static const mp_ragg *smallest_within(const rtab *T, int st, int e, const char *label) {
  const mp_ragg *best = NULL;
  for (int b = 0; b < T->nb; b++) {
    const mp_ragg *g = find(T->s, st, e, label, T->budgets[b]);
    if (within(T, g)) best = g;
  }
  return best;
}

static void fmt_time(char *out, size_t cap, double x) {
  mp_tab_num(out, cap, x, fabs(x) >= 1000 ? 0 : fabs(x) >= 10 ? 1 : 3);
}

/* ------------------------------------------------------------ suite */

typedef struct rsum {
  int runs, infeasible;
  mp_gmean ms;
} rsum;

/* Per budget: geometric mean of 1 + overhead over the graphs planned, and
 * on how many of the graphs that ran it. */
static void budget_mean(const rtab *T, const char *label, const char *budget, double *gm, int *k,
                        int *n) {
  double lg = 0;
  *k = *n = 0;
  for (int st = 0; st < T->s->n;) {
    int e = graph_end(T->s, st);
    const mp_ragg *g = find(T->s, st, e, label, budget);
    if (g) {
      (*n)++;
      if (g->ok && !isnan(g->overhead) && 1 + g->overhead > 0) {
        (*k)++;
        lg += log(1 + g->overhead);
      }
    }
    st = e;
  }
  *gm = *k ? exp(lg / *k) - 1 : NAN;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median over graphs of the smallest fraction within the threshold
 * (none: above every budget); text "0.5x", "none", or "" with byte budgets. */
static void median_within(const rtab *T, const char *label, char *out, size_t cap) {
  double *v = mp_xmalloc(sizeof(double) * (size_t)(T->s->n ? T->s->n : 1));
  int n = 0, reached = 0;
  bool bytes = false;
  for (int st = 0; st < T->s->n;) {
    int e = graph_end(T->s, st);
    bool ran = false;
    for (int q = st; q < e; q++) ran |= !strcmp(T->s->a[q].label, label);
    const mp_ragg *g = ran ? smallest_within(T, st, e, label) : NULL;
    if (ran) {
      bytes |= g && isnan(g->frac);
      v[n++] = g ? g->frac : INFINITY;
      reached += g != NULL;
    }
    st = e;
  }
  out[0] = 0;
  if (n && !bytes) {
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    double m = v[(n - 1) / 2];
    if (isinf(m))
      snprintf(out, cap, "none (%d/%d)", reached, n);
    else
      snprintf(out, cap, "%gx (%d/%d)", m, reached, n);
  }
  free(v);
}

static void suite_sums(const rtab *T, const char *label, rsum *r) {
  memset(r, 0, sizeof *r);
  for (int q = 0; q < T->s->n; q++) {
    const mp_ragg *g = &T->s->a[q];
    if (strcmp(g->label, label)) continue;
    r->runs += g->runs;
    r->infeasible += g->infeasible;
    if (!g->ok) continue;
    mp_gmean_add(&r->ms, isnan(g->remat_ms) ? g->plan_ms : g->remat_ms, 1e-3);
  }
}

/* Bold at a budget: the smallest mean among the solvers that planned the
 * most graphs there. */
static void budget_best(const rtab *T, int b, double *best, int *most) {
  *best = INFINITY;
  *most = 0;
  for (int l = 0; l < T->nl; l++) {
    double gm;
    int k, n;
    budget_mean(T, T->labels[l], T->budgets[b], &gm, &k, &n);
    if (k > *most || (k == *most && gm < *best)) *best = gm, *most = k;
  }
}

static void suite_row(const rtab *T, FILE *o, int l, const double *best, const int *most) {
  const mp_fmt *f = T->f;
  char t[96], pct[48];
  mp_tab_row_begin(o, f);
  mp_tab_cell(o, f, T->labels[l], NULL, false, true);
  for (int b = 0; b < T->nb; b++) {
    double gm;
    int k, n;
    budget_mean(T, T->labels[l], T->budgets[b], &gm, &k, &n);
    mp_tab_pct(f, pct, sizeof pct, gm);
    if (n && k < n)
      snprintf(t, sizeof t, "%s%s(%d/%d)", pct, pct[0] ? " " : "", k, n);
    else
      snprintf(t, sizeof t, "%s", pct);
    mp_tab_cell(o, f, t, NULL, k && k == most[b] && gm == best[b], false);
  }
  median_within(T, T->labels[l], t, sizeof t);
  mp_tab_cell(o, f, t, NULL, false, false);
  rsum r;
  suite_sums(T, T->labels[l], &r);
  snprintf(t, sizeof t, "%d", r.infeasible);
  mp_tab_cell(o, f, t, NULL, false, false);
  mp_tab_ms(t, sizeof t, mp_gmean_value(&r.ms));
  mp_tab_cell(o, f, t, NULL, false, false);
  mp_tab_row_end(o, f);
}

static void write_suite(const rtab *T, FILE *o) {
  const mp_fmt *f = T->f;
  int n_graphs = 0;
  for (int st = 0; st < T->s->n; st = graph_end(T->s, st)) n_graphs++;
  const char *gr = n_graphs == 1 ? "graph" : "graphs";
  if (f->md && !T->o->brief)
    fprintf(o, "Recomputation across the suite (%d %s): per solver, the geometric mean of the "
            "overhead (duration / base_time - 1) at each budget over the graphs it planned (k/n: "
            "it planned k of the n graphs it ran on). Within %g%%: the smallest budget at which "
            "its overhead is at most %g%%, median over the graphs (none: more than half met no "
            "budget; k/n: graphs where some budget did). Infeasible: runs with a proof that no "
            "plan fits. Remat ms: geometric mean of the recomputation stage's time. Bold: the "
            "smallest mean at each budget among the solvers that planned the most graphs.\n\n",
            n_graphs, gr, 100 * T->limit, 100 * T->limit);
  if (f->latex)
    fprintf(o, "%% memplan table: recomputation across the suite (%d %s), geometric mean "
            "overhead per budget\n", n_graphs, gr);
  int nc = T->nb + 4;
  const char **h = mp_xmalloc(sizeof(char *) * (size_t)nc);
  char *align = mp_xcalloc((size_t)nc + 1, 1), within_h[48];
  snprintf(within_h, sizeof within_h, "within %g%% (median)", 100 * T->limit);
  h[0] = "solver";
  for (int b = 0; b < T->nb; b++) h[1 + b] = T->budgets[b];
  h[T->nb + 1] = within_h;
  h[T->nb + 2] = "infeasible";
  h[T->nb + 3] = "remat ms";
  for (int k = 0; k < nc; k++) align[k] = k ? 'r' : 'l';
  mp_tab_header(o, f, h, align, nc);
  double *best = mp_xmalloc(sizeof(double) * (size_t)(T->nb ? T->nb : 1));
  int *most = mp_xmalloc(sizeof(int) * (size_t)(T->nb ? T->nb : 1));
  for (int b = 0; b < T->nb; b++) budget_best(T, b, &best[b], &most[b]);
  for (int l = 0; l < T->nl; l++) suite_row(T, o, l, best, most);
  mp_tab_footer(o, f);
  free(best);
  free(most);
  free(h);
  free(align);
}

/* ------------------------------------------------------------ within */

static void write_within(const rtab *T, FILE *o) {
  const mp_fmt *f = T->f;
  if (f->md && !T->o->brief)
    fprintf(o, "Smallest budget within %g%% overhead, per graph and solver (the overhead there "
            "in parentheses; -: no budget met it). Bold: the smallest on the graph.\n\n",
            100 * T->limit);
  if (f->latex) fprintf(o, "%% smallest budget within %g%% overhead\n", 100 * T->limit);
  int nc = T->nl + 1;
  const char **h = mp_xmalloc(sizeof(char *) * (size_t)nc);
  char *align = mp_xcalloc((size_t)nc + 1, 1);
  h[0] = "graph";
  for (int l = 0; l < T->nl; l++) h[1 + l] = T->labels[l];
  for (int k = 0; k < nc; k++) align[k] = k ? 'r' : 'l';
  mp_tab_header(o, f, h, align, nc);
  for (int st = 0; st < T->s->n;) {
    int e = graph_end(T->s, st);
    int best = -1; /* index in budgets of the smallest */
    for (int l = 0; l < T->nl; l++) {
      const mp_ragg *g = smallest_within(T, st, e, T->labels[l]);
      for (int b = 0; g && b < T->nb; b++)
        if (!strcmp(T->budgets[b], g->budget_arg) && b > best) best = b;
    }
    mp_tab_row_begin(o, f);
    mp_tab_cell(o, f, T->s->a[st].graph, NULL, false, true);
    for (int l = 0; l < T->nl; l++) {
      bool ran = false;
      for (int q = st; q < e; q++) ran |= !strcmp(T->s->a[q].label, T->labels[l]);
      const mp_ragg *g = smallest_within(T, st, e, T->labels[l]);
      char t[96] = "", pct[48];
      if (g) {
        mp_tab_pct(f, pct, sizeof pct, g->overhead);
        snprintf(t, sizeof t, "%s (%s)", g->budget_arg, pct);
      } else if (ran) {
        snprintf(t, sizeof t, "-");
      }
      bool b = g && best >= 0 && !strcmp(g->budget_arg, T->budgets[best]);
      mp_tab_cell(o, f, t, NULL, b, false);
    }
    mp_tab_row_end(o, f);
    st = e;
  }
  mp_tab_footer(o, f);
  free(h);
  free(align);
}

/* ------------------------------------------------------------ per graph */

enum { G_PEAK, G_ARENA, G_DUR, G_OVER, G_VSBEST, G_RECOMP, G_STALE, G_XFER, G_STALL, G_MS, NG };

/* best: the shortest duration at the group's budget on its graph. */
static void group_cells(const mp_ragg *g, double best, double ud, const char *un,
                        char t[NG][64]) {
  int prec = un[0] == 'B' ? 0 : 2;
  mp_tab_num(t[G_PEAK], 64, g->live_peak == MP_NA ? NAN : (double)g->live_peak / ud, prec);
  mp_tab_num(t[G_ARENA], 64, g->arena == MP_NA ? NAN : (double)g->arena / ud, prec);
  fmt_time(t[G_DUR], 64, g->duration);
  mp_tab_num(t[G_OVER], 64, 100 * g->overhead, 1);
  mp_tab_num(t[G_VSBEST], 64, best > 0 ? 100 * (g->duration / best - 1) : NAN, 2);
  mp_tab_num(t[G_RECOMP], 64, g->recomputed == MP_NA ? NAN : (double)g->recomputed, 0);
  mp_tab_num(t[G_STALE], 64, g->stale_reruns == MP_NA ? NAN : (double)g->stale_reruns, 0);
  mp_tab_num(t[G_XFER], 64, g->transferred == MP_NA ? NAN : (double)g->transferred / ud, prec);
  fmt_time(t[G_STALL], 64, g->stall);
  mp_tab_ms(t[G_MS], 64, isnan(g->remat_ms) ? g->plan_ms : g->remat_ms);
}

/* The graph cell: its name and the events floor its plans reported. */
static void graph_cell(const rtab *T, int st, int e, double ud, const char *un, char *out,
                       size_t cap) {
  int64_t floor = MP_NA;
  for (int q = st; q < e; q++)
    if (T->s->a[q].floor != MP_NA && (floor == MP_NA || T->s->a[q].floor > floor))
      floor = T->s->a[q].floor;
  if (floor == MP_NA) {
    snprintf(out, cap, "%s", T->s->a[st].graph);
    return;
  }
  char v[64];
  mp_tab_num(v, sizeof v, (double)floor / ud, un[0] == 'B' ? 0 : 2);
  snprintf(out, cap, "%s (floor %s %s)", T->s->a[st].graph, v, un);
}

/* A budget where every solver proved that no plan fits: one row. */
static bool all_infeasible_row(const rtab *T, FILE *o, int st, int e, const char *budget,
                               const char *gcell, const char *bt) {
  int groups = 0, runs = 0;
  for (int q = st; q < e; q++) {
    const mp_ragg *g = &T->s->a[q];
    if (strcmp(g->budget_arg, budget)) continue;
    if (g->infeasible < g->runs) return false;
    groups++;
    runs += g->runs;
  }
  if (groups < 2) return false;
  char who[64], okr[48];
  snprintf(who, sizeof who, "every solver (%d)", groups);
  snprintf(okr, sizeof okr, "0/%d", runs);
  mp_tab_row_begin(o, T->f);
  mp_tab_cell(o, T->f, gcell, NULL, false, true);
  mp_tab_cell(o, T->f, bt, NULL, false, false);
  mp_tab_cell(o, T->f, who, NULL, false, false);
  mp_tab_cell(o, T->f, "infeasible", NULL, false, false);
  for (int k = 0; k < NG; k++) mp_tab_cell(o, T->f, "", NULL, false, false);
  mp_tab_cell(o, T->f, okr, NULL, false, false);
  mp_tab_row_end(o, T->f);
  return true;
}

/* The rows of one graph at one budget: a[st..e) filtered by budget. */
static void budget_rows(const rtab *T, FILE *o, int st, int e, const char *budget, bool first,
                        double ud, const char *un) {
  const mp_fmt *f = T->f;
  double best = INFINITY;
  int64_t bytes = MP_NA;
  for (int q = st; q < e; q++) {
    const mp_ragg *g = &T->s->a[q];
    if (strcmp(g->budget_arg, budget)) continue;
    if (g->ok && g->duration < best) best = g->duration;
    if (bytes == MP_NA) bytes = g->budget;
  }
  char gcell[300], bt[96], v[64];
  graph_cell(T, st, e, ud, un, gcell, sizeof gcell);
  if (bytes != MP_NA) {
    mp_tab_num(v, sizeof v, (double)bytes / ud, un[0] == 'B' ? 0 : 2);
    snprintf(bt, sizeof bt, "%s = %s %s", budget, v, un);
  } else {
    snprintf(bt, sizeof bt, "%s", budget);
  }
  if (all_infeasible_row(T, o, st, e, budget, first ? gcell : "", bt)) return;
  bool lead = true;
  for (int l = 0; l < T->nl; l++) {
    const mp_ragg *g = find(T->s, st, e, T->labels[l], budget);
    if (!g) continue;
    char t[NG][64], st_t[160], okr[48];
    group_cells(g, best, ud, un, t);
    snprintf(st_t, sizeof st_t, "%s", g->statuses);
    if (g->remat_statuses[0] && strcmp(g->remat_statuses, g->statuses))
      snprintf(st_t + strlen(st_t), sizeof st_t - strlen(st_t), " (remat %s)", g->remat_statuses);
    mp_tab_row_begin(o, f);
    mp_tab_cell(o, f, first && lead ? gcell : "", NULL, false, true);
    mp_tab_cell(o, f, lead ? bt : "", NULL, false, false);
    mp_tab_cell(o, f, g->label, NULL, false, false);
    mp_tab_cell(o, f, st_t, NULL, false, false);
    for (int k = 0; k < NG; k++) {
      bool b = g->ok && (k == G_DUR || k == G_OVER || k == G_VSBEST) && g->duration == best;
      const char *u = k == G_PEAK || k == G_ARENA || k == G_XFER ? un : NULL;
      mp_tab_cell(o, f, g->ok ? t[k] : "", g->ok ? u : NULL, b, false);
    }
    snprintf(okr, sizeof okr, "%d/%d", g->ok, g->runs);
    mp_tab_cell(o, f, okr, NULL, false, false);
    mp_tab_row_end(o, f);
    lead = first = false;
  }
}

static void write_graphs(const rtab *T, FILE *o) {
  const mp_fmt *f = T->f;
  if (f->md && !T->o->brief)
    fprintf(o, "Per graph, budget and solver (every figure but remat ms is one run's: of the runs "
            "with a plan over seeds, %s): the graph's "
            "events floor (no plan peaks lower: the inputs, the outputs, or one node's reads, "
            "outputs and workspace); the budget as asked and in bytes; live peak and arena of the event plan; duration in the "
            "graph's cost unit, overhead = duration / base_time - 1, and against the shortest "
            "duration any solver reached there; recomputed runs, and those of them that read "
            "a storage written in place since (stale: DESIGN 6.2 allows them); bytes "
            "copied to and from the host; stall time (waiting for copies); time of the "
            "recomputation stage. Bold: the shortest duration at the budget. An empty cell: no "
            "plan.\n\n",
            T->o->best_of_seeds
                ? "the run with the shortest duration"
                : "the lower-median run by duration (ties: the smaller live peak, then seed); "
                  "remat ms: the median");
  if (f->latex) fprintf(o, "%% memplan table: recomputation per graph, budget and solver\n");
  const char *h[] = {"graph", "budget", "solver", "status", "live peak", "arena", "duration",
                     "overhead (%)", "vs best (%)", "recomputed", "stale", "transferred",
                     "stall", "remat ms", "ok/runs"};
  mp_tab_header(o, f, h, "llllrrrrrrrrrrr", 15);
  for (int st = 0; st < T->s->n;) {
    int e = graph_end(T->s, st);
    int64_t mx = 1;
    for (int q = st; q < e; q++) {
      const mp_ragg *g = &T->s->a[q];
      if (g->budget != MP_NA && g->budget > mx) mx = g->budget;
      if (g->ok && g->arena > mx) mx = g->arena;
    }
    const char *un;
    double ud = mp_tab_unit(mx, &un);
    if (f->latex && st > 0) fputs("\\midrule\n", o);
    bool first = true;
    for (int b = 0; b < T->nb; b++) {
      bool here = false;
      for (int q = st; q < e; q++) here |= !strcmp(T->s->a[q].budget_arg, T->budgets[b]);
      if (!here) continue;
      budget_rows(T, o, st, e, T->budgets[b], first, ud, un);
      first = false;
    }
    st = e;
  }
  mp_tab_footer(o, f);
}

/* ------------------------------------------------------------ csv */

static void csv_int(FILE *o, int64_t x) {
  if (x != MP_NA) fprintf(o, "%lld", (long long)x);
  fputc(',', o);
}
static void csv_num(FILE *o, double x, int prec) {
  char t[64];
  mp_tab_num(t, sizeof t, x, prec);
  fprintf(o, "%s,", t);
}

static void csv_group(FILE *o, const mp_raggset *s, const mp_ragg *g) {
  double best = INFINITY;
  for (int q = 0; q < s->n; q++)
    if (!strcmp(s->a[q].path, g->path) && !strcmp(s->a[q].budget_arg, g->budget_arg) &&
        s->a[q].ok && s->a[q].duration < best)
      best = s->a[q].duration;
  const char *text[] = {g->graph, g->path, g->label, g->order, g->remat, g->place,
                        g->bandwidth_arg, g->options, g->source ? g->source : "", g->budget_arg};
  char t[64];
  for (int k = 0; k < 10; k++) {
    mp_tab_csv_field(o, text[k]);
    fputc(',', o);
  }
  mp_fmt_seconds(g->time_limit, t, sizeof t);
  fprintf(o, "%s,", t);
  csv_num(o, g->frac, 6);
  csv_int(o, g->budget);
  fprintf(o, "%d,%d,%d,%d,", g->runs, g->ok, g->refused, g->infeasible);
  mp_tab_csv_field(o, g->statuses);
  fputc(',', o);
  mp_tab_csv_field(o, g->remat_statuses);
  fputc(',', o);
  csv_int(o, g->live_peak);
  csv_int(o, g->arena);
  csv_int(o, g->floor);
  csv_num(o, g->duration, 6);
  csv_num(o, g->base_time, 6);
  csv_num(o, g->overhead, 6);
  csv_num(o, g->recompute_time, 6);
  csv_int(o, g->recomputed);
  csv_int(o, g->stale_reruns);
  csv_num(o, g->stall, 6);
  csv_int(o, g->transferred);
  csv_num(o, g->plan_ms, 3);
  csv_num(o, g->ms_lo, 3);
  csv_num(o, g->ms_hi, 3);
  csv_num(o, g->remat_ms, 3);
  csv_num(o, g->ok && best > 0 ? g->duration / best - 1 : NAN, 6);
  fprintf(o, "%d\n", g->ok && g->duration == best);
}

void mp_table_remat_csv(FILE *o, const mp_raggset *s) {
  fputs("graph,path,solver,order_solver,remat_solver,place_solver,bandwidth_arg,options,source,"
        "budget_arg,time_limit,budget_frac,budget,runs,ok,refused,infeasible,statuses,"
        "remat_statuses,live_peak,arena,floor,duration,base_time,overhead,recompute_time,"
        "recomputed,stale_reruns,stall_time,transferred,plan_ms,plan_ms_min,plan_ms_max,remat_ms,vs_best,best\n",
        o);
  for (int i = 0; i < s->n; i++) csv_group(o, s, &s->a[i]);
}

/* ------------------------------------------------------------ entry */

int mp_table_remat(FILE *out, const mp_fmt *f, const mp_raggset *s, const mp_table_opts *o,
                   bool summary) {
  rtab T = {f, s, o, o->max_overhead > 0 ? o->max_overhead : 0.2, NULL, 0, NULL, 0};
  axes(&T);
  write_suite(&T, out);
  fputc('\n', out);
  write_within(&T, out);
  if (!summary) {
    fputc('\n', out);
    write_graphs(&T, out);
  }
  free(T.labels);
  free(T.budgets);
  return 0;
}
