/* table_pivot.c - `memplan table --view pivot`: one row per graph, one
 * column per solver, one metric in the cells, and a summary per solver
 * under the table.  The benchmark reports (scripts/bench.d) are made of
 * these, so every percentage in them is computed here, from the
 * evaluator's figures:
 *
 *   peak, arena  "vs baseline / gap": the change against the baseline
 *                (--baseline, the best of them on each graph) and the gap
 *                to the graph's bound; "*" when a run of that solver proved
 *                the optimum and the claim checks
 *   time         median planning time (range over repeats and seeds)
 *   status       the statuses of the runs
 *   wall         the longest child process, seconds (limits that hold)
 *   frag         fragmentation, (arena - live peak) / arena (DESIGN 1.3), %
 *
 * Summary rows: how many graphs each solver planned within --within of
 * the bound, how many it proved optimal (and how long the proofs took:
 * max, median), and the geometric mean against the baseline. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table_fmt.h"
#include "util.h"

enum { M_PEAK, M_ARENA, M_TIME, M_STATUS, M_WALL, M_FRAG };

typedef struct pivot {
  const mp_fmt *f;
  const mp_aggset *s;
  const mp_table_opts *o;
  int metric;
  const char **labels;      /* the columns */
  int nl;
} pivot;

int mp_pivot_metric(const char *m) {
  static const char *const names[] = {"peak", "arena", "time", "status", "wall", "frag"};
  for (int i = 0; i < 6; i++)
    if (!strcmp(m, names[i])) return i;
  return -1;
}

static bool in_list(const char *const *l, int n, const char *x) {
  for (int i = 0; i < n; i++)
    if (!strcmp(l[i], x)) return true;
  return false;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Columns: the --solver order (then the baselines), else sorted labels. */
static void columns(pivot *P) {
  const mp_aggset *s = P->s;
  P->labels = mp_xmalloc(sizeof(char *) * (size_t)(s->n ? s->n : 1));
  const mp_table_opts *o = P->o;
  for (int w = 0; w < o->n_solvers + o->n_baselines; w++) {
    const char *want = w < o->n_solvers ? o->solvers[w] : o->baselines[w - o->n_solvers];
    for (int k = 0; k < s->n; k++)
      if (mp_agg_matches(&s->a[k], want) && !in_list(P->labels, P->nl, s->a[k].label)) {
        P->labels[P->nl++] = s->a[k].label;
        break;
      }
  }
  if (o->n_solvers) return;
  int fixed_n = P->nl;
  for (int k = 0; k < s->n; k++)
    if (!in_list(P->labels, P->nl, s->a[k].label)) P->labels[P->nl++] = s->a[k].label;
  qsort(P->labels + fixed_n, (size_t)(P->nl - fixed_n), sizeof(char *), cmp_str);
}

static const mp_agg *group(const mp_aggset *s, int st, int e, const char *label) {
  for (int q = st; q < e; q++)
    if (!strcmp(s->a[q].label, label)) return &s->a[q];
  return NULL;
}

static bool is_base(const pivot *P, const mp_agg *g) {
  for (int i = 0; i < P->o->n_baselines; i++)
    if (mp_agg_matches(g, P->o->baselines[i])) return true;
  return false;
}

static int64_t value(const pivot *P, const mp_agg *g) {
  return P->metric == M_PEAK ? g->live_peak : g->arena;
}

/* The baseline's value on an instance: the best of the baselines. */
static int64_t base_value(const pivot *P, int st, int e) {
  int64_t b = -1;
  for (int q = st; q < e; q++) {
    const mp_agg *g = &P->s->a[q];
    if (g->ok && is_base(P, g) && (b < 0 || value(P, g) < b)) b = value(P, g);
  }
  return b;
}

static void cell_text(const pivot *P, const mp_agg *g, int64_t base, char *out, size_t cap) {
  out[0] = 0;
  if (!g) return;
  if (P->metric == M_STATUS) {
    snprintf(out, cap, "%s", g->statuses);
    return;
  }
  if (P->metric == M_WALL) {
    mp_tab_num(out, cap, g->wall_max, 2);
    return;
  }
  if (P->metric == M_FRAG && g->ok) {
    mp_tab_num(out, cap, 100 * g->frag, 4);
    return;
  }
  if (!g->ok) {
    snprintf(out, cap, "%s", g->refused == g->runs ? "refused" : "");
    return;
  }
  if (P->metric == M_TIME) {
    mp_tab_ms_spread(P->f, out, cap, g);
    return;
  }
  char vb[48] = "", gap[48];
  double v = (double)value(P, g);
  if (base > 0) mp_tab_pct(P->f, vb, sizeof vb, v / (double)base - 1);
  mp_tab_pct(P->f, gap, sizeof gap, P->metric == M_PEAK ? g->peak_gap : g->gap);
  bool proved = P->metric == M_PEAK ? g->order_proved : g->proved;
  snprintf(out, cap, "%s%s%s%s", vb, vb[0] ? " / " : "", gap, proved ? "*" : "");
}

static void instance_row(const pivot *P, FILE *o, int st, int e) {
  const mp_aggset *s = P->s;
  const mp_agg *g0 = &s->a[st];
  int64_t base = P->metric <= M_ARENA ? base_value(P, st, e) : -1;
  int64_t bound = P->metric == M_PEAK ? g0->peak_bound : g0->bound;
  const char *un;
  double ud = mp_tab_unit(bound > base ? bound : base, &un);
  char t[160];
  mp_tab_row_begin(o, P->f);
  mp_tab_cell(o, P->f, g0->graph, NULL, false, true);
  if (g0->nodes != MP_NA && !g0->fixed)
    snprintf(t, sizeof t, "%lld", (long long)g0->nodes);
  else
    t[0] = 0;
  mp_tab_cell(o, P->f, t, NULL, false, false);
  t[0] = 0;
  if (bound > 0) {
    char v[64];
    mp_tab_num(v, sizeof v, (double)bound / ud, un[0] == 'B' ? 0 : 2);
    snprintf(t, sizeof t, "%s %s%s%s", v, un, g0->graph_bound > 0 && bound > g0->graph_bound ? "*" : "",
             !strcmp(g0->bound_kind, "reported") ? "^" : "");
  }
  mp_tab_cell(o, P->f, t, NULL, false, false);
  if (P->o->n_baselines && P->metric <= M_ARENA) {
    mp_tab_num(t, sizeof t, base >= 0 ? (double)base / ud : NAN, un[0] == 'B' ? 0 : 2);
    mp_tab_cell(o, P->f, t, un, false, false);
  }
  for (int c = 0; c < P->nl; c++) {
    cell_text(P, group(s, st, e, P->labels[c]), base, t, sizeof t);
    mp_tab_cell(o, P->f, t, NULL, false, false);
  }
  mp_tab_row_end(o, P->f);
}

/* ------------------------------------------------------------ summary */

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Slack of `wall`: a process may take its time limit plus this (start-up,
 * reading the graph, the evaluator). */
#define WALL_SLACK_S 0.5

typedef struct colsum {
  int planned, within, proved, instances, in_limit, limited;
  double frag_max;
  mp_gmean base;             /* value / baseline's, where there is a baseline */
  double *proof_ms;
  mp_gmean ms;
} colsum;

static void summarize(const pivot *P, const char *label, colsum *c) {
  const mp_aggset *s = P->s;
  double within = P->o->within > 0 ? P->o->within : 0.01;
  memset(c, 0, sizeof *c);
  c->proof_ms = mp_xmalloc(sizeof(double) * (size_t)(s->n ? s->n : 1));
  for (int st = 0; st < s->n;) {
    int e = st;
    while (e < s->n && !strcmp(s->a[e].path, s->a[st].path)) e++;
    const mp_agg *g = group(s, st, e, label);
    c->instances += g != NULL;
    if (g && g->time_limit > 0) {
      c->limited++;
      c->in_limit += g->wall_max <= g->time_limit + WALL_SLACK_S;
    }
    int64_t base = base_value(P, st, e);
    if (g && g->ok) {
      double gap = P->metric == M_PEAK ? g->peak_gap : g->gap;
      c->planned++;
      c->within += gap <= within + 1e-12;
      mp_gmean_add(&c->ms, g->plan_ms, 1e-3);
      if (g->frag > c->frag_max) c->frag_max = g->frag;
      if (P->metric == M_PEAK ? g->order_proved : g->proved) c->proof_ms[c->proved++] = g->plan_ms;
      if (base > 0) mp_gmean_add(&c->base, (double)value(P, g) / (double)base, 1e-9);
    }
    st = e;
  }
}

/* The number of summary rows under a table of P's metric. */
static int summary_row_count(const pivot *P) {
  if (P->metric <= M_ARENA) return P->o->n_baselines ? 3 : 2;
  return P->metric == M_TIME || P->metric == M_WALL || P->metric == M_FRAG ? 1 : 0;
}

/* The first cell of summary row r. */
static void summary_head(const pivot *P, int r, char *head, size_t size) {
  double within = P->o->within > 0 ? P->o->within : 0.01;
  if (P->metric == M_TIME)
    snprintf(head, size, "geometric mean (ms)");
  else if (P->metric == M_WALL)
    snprintf(head, size, "within the limit + %g s", WALL_SLACK_S);
  else if (P->metric == M_FRAG)
    snprintf(head, size, "largest");
  else if (r == 0)
    snprintf(head, size, "within %g%% of the bound", 100 * within);
  else if (r == 1)
    snprintf(head, size, "proved optimal (max, median ms)");
  else
    snprintf(head, size, "vs baseline (geometric mean)");
}

/* Column x's cell of summary row r ("" when it has nothing to say). */
static void summary_cell(const pivot *P, colsum *x, int r, char *t, size_t size) {
  t[0] = 0;
  if (P->metric == M_TIME) {
    mp_tab_ms(t, size, mp_gmean_value(&x->ms));
  } else if (P->metric == M_WALL) {
    if (x->limited) snprintf(t, size, "%d/%d", x->in_limit, x->limited);
  } else if (P->metric == M_FRAG) {
    if (x->planned) mp_tab_num(t, size, 100 * x->frag_max, 4);
  } else if (r == 0) {
    snprintf(t, size, "%d/%d", x->within, x->planned);
  } else if (r == 1) {
    int l = snprintf(t, size, "%d/%d", x->proved, x->instances);
    if (x->proved) {
      char mx[48], md[48];
      qsort(x->proof_ms, (size_t)x->proved, sizeof(double), cmp_dbl);
      mp_tab_ms(mx, sizeof mx, x->proof_ms[x->proved - 1]);
      mp_tab_ms(md, sizeof md, x->proof_ms[(x->proved - 1) / 2]);
      snprintf(t + l, size - (size_t)l, " (%s, %s)", mx, md);
    }
  } else {
    mp_tab_pct(P->f, t, size, mp_gmean_value(&x->base) - 1);
  }
}

static void summary_rows(const pivot *P, FILE *o, int lead) {
  colsum *c = mp_xcalloc((size_t)(P->nl ? P->nl : 1), sizeof(colsum));
  for (int k = 0; k < P->nl; k++) summarize(P, P->labels[k], &c[k]);
  char t[160], head[120];
  int rows = summary_row_count(P);
  for (int r = 0; r < rows; r++) {
    if (r == 0 && P->f->latex) fputs("\\midrule\n", o);
    mp_tab_row_begin(o, P->f);
    summary_head(P, r, head, sizeof head);
    mp_tab_cell(o, P->f, head, NULL, false, true);
    for (int i = 1; i < lead; i++) mp_tab_cell(o, P->f, "", NULL, false, false);
    for (int k = 0; k < P->nl; k++) {
      summary_cell(P, &c[k], r, t, sizeof t);
      mp_tab_cell(o, P->f, t, NULL, false, false);
    }
    mp_tab_row_end(o, P->f);
  }
  for (int k = 0; k < P->nl; k++) free(c[k].proof_ms);
  free(c);
}

/* Fragmentation: the best column on each graph, and the worst of those. */
static void best_per_graph_note(const pivot *P, FILE *o) {
  const mp_aggset *s = P->s;
  const mp_agg *worst = NULL;
  int graphs = 0;
  for (int st = 0; st < s->n;) {
    int e = st;
    while (e < s->n && !strcmp(s->a[e].path, s->a[st].path)) e++;
    const mp_agg *best = NULL;
    for (int c = 0; c < P->nl; c++) {
      const mp_agg *g = group(s, st, e, P->labels[c]);
      if (g && g->ok && (!best || g->frag < best->frag)) best = g;
    }
    if (best) {
      graphs++;
      if (!worst || best->frag > worst->frag) worst = best;
    }
    st = e;
  }
  if (!worst) return;
  char v[48];
  mp_tab_num(v, sizeof v, 100 * worst->frag, 4);
  fprintf(o, "\n%sBest solver per graph: the largest of its fragmentations is %s %% (",
          P->f->latex ? "% " : "", v);
  mp_tab_plain(o, worst->graph);
  fputs(", by ", o);
  mp_tab_plain(o, worst->label);
  fprintf(o, "), over %d graphs.\n", graphs);
}

/* ------------------------------------------------------------ entry */

static void intro(const pivot *P, FILE *o) {
  static const char *const what[] = {
      "live peak: change against the baseline / gap to the graph's live-peak bound; * = a run "
      "of that solver proved the optimum and the proof checks",
      "arena: change against the baseline / gap to the graph's bound; * = a run of that solver "
      "proved the optimum and the proof checks",
      "median planning time in ms (range over repeats and seeds when it varies)",
      "statuses of the runs", "longest child process (whole `memplan solve`), seconds",
      "fragmentation in % ((arena - live peak) / arena, DESIGN 1.3) of the lower-median run by "
      "arena over seeds"};
  if (P->f->md)
    fprintf(o, "Cells: %s. %s\n\n", what[P->metric],
            P->o->n_baselines ? "Baseline: the best of the --baseline solvers on each graph."
                              : "(No --baseline: the gap only.)");
  else
    fprintf(o, "%% cells: %s\n", what[P->metric]);
}

int mp_table_pivot(FILE *out, const mp_fmt *f, const mp_aggset *s, const mp_table_opts *o,
                   char *msg, size_t cap) {
  pivot P = {f, s, o, mp_pivot_metric(o->metric ? o->metric : "arena"), NULL, 0};
  if (P.metric < 0) {
    mp_msgf(msg, cap, "unknown --metric '%s' (peak, arena, time, status, wall, frag)", o->metric);
    return -1;
  }
  columns(&P);
  if (!o->brief) intro(&P, out);
  bool base = o->n_baselines && P.metric <= M_ARENA;
  int lead = base ? 4 : 3, nc = lead + P.nl;
  const char **h = mp_xmalloc(sizeof(char *) * (size_t)nc);
  char *align = mp_xmalloc((size_t)nc + 1);
  h[0] = "graph";
  h[1] = "nodes";
  h[2] = P.metric == M_PEAK ? "peak bound" : "bound";
  if (base) h[3] = "baseline";
  for (int k = 0; k < P.nl; k++) h[lead + k] = P.labels[k];
  for (int k = 0; k < nc; k++) align[k] = k == 0 ? 'l' : 'r';
  align[nc] = 0;
  mp_tab_header(out, f, h, align, nc);
  for (int st = 0; st < s->n;) {
    int e = st;
    while (e < s->n && !strcmp(s->a[e].path, s->a[st].path)) e++;
    instance_row(&P, out, st, e);
    st = e;
  }
  summary_rows(&P, out, lead);
  mp_tab_footer(out, f);
  if (P.metric == M_FRAG) best_per_graph_note(&P, out);
  free(h);
  free(align);
  free(P.labels);
  return 0;
}
