/* table.c - tables generated from results rows (markdown, LaTeX, CSV):
 * per graph and solver, across the suite, and (table_pivot.c) graphs x
 * solvers.  The figures are the evaluator's; this file groups them
 * (table_agg.c), relates them to each graph's bound and to a baseline, and
 * prints them with fixed precision, so that the same rows always give the
 * same bytes. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table_fmt.h"
#include "util.h"

/* ------------------------------------------------------------ formatting */

double mp_tab_unit(int64_t max, const char **name) {
  static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double d = 1;
  int i = 0;
  while (i < 4 && (double)max >= 1024.0 * d) {
    d *= 1024;
    i++;
  }
  *name = u[i];
  return d;
}

void mp_tab_num(char *out, size_t cap, double x, int prec) {
  if (isnan(x)) {
    out[0] = 0;
    return;
  }
  double r = pow(10, prec);
  double v = round(x * r) / r;
  if (v == 0) v = 0;
  snprintf(out, cap, "%.*f", prec, v);
}

void mp_tab_ms(char *out, size_t cap, double ms) {
  mp_tab_num(out, cap, ms, ms < 10 ? 2 : ms < 1000 ? 1 : 0);
}

void mp_tab_ms_spread(const mp_fmt *f, char *out, size_t cap, const mp_agg *g) {
  char m[48], lo[48], hi[48];
  mp_tab_ms(m, sizeof m, g->plan_ms);
  mp_tab_ms(lo, sizeof lo, g->ms_lo);
  mp_tab_ms(hi, sizeof hi, g->ms_hi);
  if (!strcmp(lo, hi) || f->csv)
    snprintf(out, cap, "%s", m);
  else
    snprintf(out, cap, "%s (%s%s%s)", m, lo, f->latex ? "--" : "-", hi);
}

void mp_tab_pct(const mp_fmt *f, char *out, size_t cap, double frac) {
  if (isnan(frac)) {
    out[0] = 0;
    return;
  }
  char n[48];
  mp_tab_num(n, sizeof n, 100 * frac, 1);
  (void)f; /* the cell escapes '%' for LaTeX */
  snprintf(out, cap, "%s%s%%", n[0] != '-' && strcmp(n, "0.0") ? "+" : "", n);
}

/* A control character (a newline in a graph name) ends a Markdown row or
 * a LaTeX comment, and two newlines end a paragraph inside a tabular. */
static bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

void mp_tab_plain(FILE *o, const char *s) {
  for (; *s; s++) fputc(is_control((unsigned char)*s) ? ' ' : *s, o);
}

/* LaTeX's special characters in text mode, escaped ('|', '<', '>' print
 * other glyphs in the default font encoding); false for any other. */
static bool latex_special(FILE *o, char c) {
  static const char *const word[][2] = {{"\\", "\\textbackslash{}"}, {"^", "\\textasciicircum{}"},
                                        {"~", "\\textasciitilde{}"},  {"|", "\\textbar{}"},
                                        {"<", "\\textless{}"},        {">", "\\textgreater{}"}};
  for (size_t i = 0; i < sizeof word / sizeof word[0]; i++)
    if (c == word[i][0][0]) {
      fputs(word[i][1], o);
      return true;
    }
  if (!strchr("_%&#${}", c)) return false;
  fprintf(o, "\\%c", c);
  return true;
}

void mp_tab_text(FILE *o, const mp_fmt *f, const char *s) {
  for (; *s; s++) {
    if (!f->csv && is_control((unsigned char)*s)) {
      fputc(' ', o);
      continue;
    }
    if (f->latex && latex_special(o, *s)) continue;
    if (f->md && *s == '|') fputc('\\', o);
    fputc(*s, o);
  }
}

void mp_tab_cell(FILE *o, const mp_fmt *f, const char *text, const char *unit, bool best,
                 bool first) {
  if (!first) fputs(f->latex ? " & " : " | ", o);
  bool mark = best && text[0];
  if (mark) fputs(f->latex ? "\\textbf{" : "**", o);
  mp_tab_text(o, f, text);
  if (unit && unit[0] && text[0]) {
    fputs(f->latex ? "\\," : " ", o);
    mp_tab_text(o, f, unit);
  }
  if (mark) fputs(f->latex ? "}" : "**", o);
}

void mp_tab_row_end(FILE *o, const mp_fmt *f) { fputs(f->latex ? " \\\\\n" : " |\n", o); }
void mp_tab_row_begin(FILE *o, const mp_fmt *f) {
  if (f->md) fputs("| ", o);
}

void mp_tab_header(FILE *o, const mp_fmt *f, const char *const *h, const char *align, int nc) {
  if (f->latex) {
    fprintf(o, "\\begin{tabular}{%s}\n\\toprule\n", align);
    for (int i = 0; i < nc; i++) {
      if (i) fputs(" & ", o);
      mp_tab_text(o, f, h[i]);
    }
    fputs(" \\\\\n\\midrule\n", o);
    return;
  }
  fputs("|", o);
  for (int i = 0; i < nc; i++) {
    fputc(' ', o);
    mp_tab_text(o, f, h[i]);
    fputs(" |", o);
  }
  fputs("\n|", o);
  for (int i = 0; i < nc; i++) fputs(align[i] == 'l' ? "---|" : "---:|", o);
  fputc('\n', o);
}

void mp_tab_footer(FILE *o, const mp_fmt *f) {
  if (f->latex) fputs("\\bottomrule\n\\end{tabular}\n", o);
}

void mp_gmean_add(mp_gmean *m, double x, double floor) {
  if (isnan(x)) return;
  m->log_sum += log(fmax(floor, x));
  m->n++;
}

double mp_gmean_value(const mp_gmean *m) { return m->n ? exp(m->log_sum / m->n) : NAN; }

bool mp_tab_time_tie(const mp_agg *a, const mp_agg *b) {
  return a->ms_lo <= b->ms_hi && b->ms_lo <= a->ms_hi;
}

/* ------------------------------------------------------------ filters */

static bool listed(const mp_agg *g, const char *const *l, int n) {
  for (int i = 0; i < n; i++)
    if (mp_agg_matches(g, l[i])) return true;
  return false;
}

/* A label that name matches, and a second one (several: ambiguous). */
static void note_match(const char *label, const char **first, const char **other) {
  if (!*first)
    *first = label;
  else if (strcmp(*first, label) && !*other)
    *other = label;
}

/* Each name must answer to groups of one label (of the order and placement
 * groups, or of the recomputation groups). */
static int check_names(const mp_aggset *s, const mp_raggset *rs, const char *const *l, int n,
                       const char *opt, char *msg, size_t cap) {
  for (int i = 0; i < n; i++) {
    const char *first = NULL, *other = NULL;
    for (int k = 0; k < s->n; k++)
      if (mp_agg_matches(&s->a[k], l[i])) note_match(s->a[k].label, &first, &other);
    for (int k = 0; k < rs->n; k++)
      if (mp_ragg_matches(&rs->a[k], l[i])) note_match(rs->a[k].label, &first, &other);
    if (other) {
      mp_msgf(msg, cap, "%s '%s' names several solvers ('%s', '%s'): give the full label", opt,
               l[i], first, other);
      return -1;
    }
    if (!first) {
      mp_msgf(msg, cap, "%s '%s': no such solver in the results (labels are ORDER+PLACE, or "
               "ORDER+REMAT+PLACE, as in the tables)", opt, l[i]);
      return -1;
    }
  }
  return 0;
}

static void keep_groups(mp_aggset *s, const bool *keep) {
  int w = 0;
  for (int i = 0; i < s->n; i++)
    if (keep[i]) s->a[w++] = s->a[i];
  s->n = w;
}

/* --common: within graphs and within fixed-lifetime problems, only the
 * instances every remaining solver planned.  Returns instances dropped. */
static int keep_common(mp_aggset *s, int *kept) {
  bool *keep = mp_xcalloc((size_t)(s->n ? s->n : 1), sizeof(bool));
  int dropped = 0;
  *kept = 0;
  for (int st = 0; st < s->n;) {
    int e = st;
    while (e < s->n && !strcmp(s->a[e].path, s->a[st].path)) e++;
    bool all = true;
    for (int k = 0; k < s->n && all; k++) { /* every label of the section ... */
      if (s->a[k].fixed != s->a[st].fixed) continue;
      bool here = false; /* ... planned this instance */
      for (int q = st; q < e && !here; q++) here = s->a[q].ok > 0 && !strcmp(s->a[q].label, s->a[k].label);
      all = here;
    }
    for (int q = st; q < e; q++) keep[q] = all;
    if (all)
      (*kept)++;
    else
      dropped++;
    st = e;
  }
  keep_groups(s, keep);
  free(keep);
  return dropped;
}

/* --solver on the recomputation groups. */
static void keep_remat_solvers(mp_raggset *s, const mp_table_opts *o) {
  int w = 0;
  for (int i = 0; i < s->n; i++) {
    bool keep = false;
    for (int k = 0; k < o->n_solvers && !keep; k++) keep = mp_ragg_matches(&s->a[i], o->solvers[k]);
    if (keep) s->a[w++] = s->a[i];
  }
  s->n = w;
}

/* --common on the recomputation groups: the (graph, budget) instances
 * every solver planned.  Returns instances dropped. */
static int keep_remat_common(mp_raggset *s, int *kept) {
  bool *keep = mp_xcalloc((size_t)(s->n ? s->n : 1), sizeof(bool));
  int dropped = 0;
  *kept = 0;
  for (int i = 0; i < s->n; i++) {
    bool first = true, all = true;
    for (int j = 0; j < i && first; j++)
      first = strcmp(s->a[j].path, s->a[i].path) || strcmp(s->a[j].budget_arg, s->a[i].budget_arg);
    if (!first) continue; /* the instance was decided at its first group */
    for (int k = 0; k < s->n && all; k++) { /* every label ... */
      bool here = false; /* ... planned this instance */
      for (int q = 0; q < s->n && !here; q++)
        here = s->a[q].ok && !strcmp(s->a[q].label, s->a[k].label) &&
               !strcmp(s->a[q].path, s->a[i].path) && !strcmp(s->a[q].budget_arg, s->a[i].budget_arg);
      all = here;
    }
    for (int q = i; q < s->n; q++)
      if (!strcmp(s->a[q].path, s->a[i].path) && !strcmp(s->a[q].budget_arg, s->a[i].budget_arg))
        keep[q] = all;
    all ? (*kept)++ : dropped++;
  }
  int w = 0;
  for (int i = 0; i < s->n; i++)
    if (keep[i]) s->a[w++] = s->a[i];
  s->n = w;
  free(keep);
  return dropped;
}

static int apply_filters(mp_aggset *s, mp_raggset *rs, const mp_table_opts *o, char *note,
                         size_t ncap, char *msg, size_t cap) {
  note[0] = 0;
  if (check_names(s, rs, o->solvers, o->n_solvers, "--solver", msg, cap) ||
      check_names(s, rs, o->baselines, o->n_baselines, "--baseline", msg, cap))
    return -1;
  if (o->n_solvers) keep_remat_solvers(rs, o);
  if (o->common && rs->n) {
    int kept, dropped = keep_remat_common(rs, &kept);
    snprintf(note, ncap, "Recomputation instances (graph, budget) every listed solver planned "
             "(--common): %d kept, %d left out.", kept, dropped);
  }
  if (o->n_solvers) {
    bool *keep = mp_xcalloc((size_t)(s->n ? s->n : 1), sizeof(bool));
    for (int i = 0; i < s->n; i++)
      keep[i] = listed(&s->a[i], o->solvers, o->n_solvers) ||
                listed(&s->a[i], o->baselines, o->n_baselines);
    keep_groups(s, keep);
    free(keep);
  }
  if (o->common && s->n) {
    int kept, dropped = keep_common(s, &kept);
    size_t l = strlen(note);
    snprintf(note + l, ncap - l, "%sInstances every listed solver planned (--common): %d kept, %d "
             "left out.", l ? " " : "", kept, dropped);
  }
  return 0;
}

/* ------------------------------------------------------------ notes */

static void bound_note(FILE *o, const mp_fmt *f, const mp_aggset *s, const mp_table_opts *opt) {
  bool reported = false;
  for (int i = 0; i < s->n; i++) reported |= !strcmp(s->a[i].bound_kind, "reported");
  fprintf(o, "%sBound: each graph's own lower bound, computed once per graph whatever solvers "
          "ran: the min-cut bound for a graph (valid for every order), max-live for a "
          "fixed-lifetime problem%s.%s\n",
          f->latex ? "% " : "",
          opt->graph_bound_only ? "; never raised (--bound graph)"
                                : "; raised (bound marked *) to a proven optimum or a proven "
                                  "lower bound a run reported, once it checks against the "
                                  "bound and against every value reached",
          reported ? " Graphs whose bound is marked ^ have none in the results file (written "
                     "before memplan stored one): the largest bound a run reported."
                   : "");
}

static void sources_note(FILE *o, const mp_fmt *f, const mp_aggset *s) {
  if (s->n_sources < 2) return;
  fprintf(o, "%sRows from %d results files:", f->latex ? "% " : "", s->n_sources);
  for (int i = 0; i < s->n_sources; i++) {
    fputs(i ? ", " : " ", o);
    mp_tab_plain(o, s->sources[i]);
    fprintf(o, " (%d rows)", s->source_rows[i]);
  }
  fprintf(o, ".%s\n", s->split_sources ? " The same cells appear in several files: they are kept "
                                          "apart, and the label names the file in braces."
                                        : "");
}

static void issues_note(FILE *o, const mp_fmt *f, const mp_aggset *s, const mp_raggset *rs) {
  if (!s->n_issues && !rs->n_issues) return;
  const char *c = f->latex ? "% " : "";
  fprintf(o, "%s%sResults that contradict a bound, a budget or a proof (an error in a solver or "
          "a bound, not a bound; left out of the bounds):%s\n",
          c, f->md ? "**" : "", f->md ? "**" : "");
  for (int i = 0; i < s->n_issues + rs->n_issues; i++) {
    fprintf(o, "%s- ", c);
    mp_tab_plain(o, i < s->n_issues ? s->issues[i] : rs->issues[i - s->n_issues]);
    fputc('\n', o);
  }
}

/* The bandwidths of the recomputation cells, when every label hides it. */
static void remat_note(FILE *o, const mp_fmt *f, const mp_raggset *rs) {
  if (!rs->n || strstr(rs->a[0].label, " bw=")) return;
  const char *bw = rs->a[0].bandwidth_arg;
  fprintf(o, "%sRecomputation cells: host link %s%s.\n", f->latex ? "% " : "",
          bw[0] ? bw : "the graph's own (host_bandwidth)", bw[0] ? " bytes per cost unit" : "");
}

/* ------------------------------------------------------------ per graph */

enum { K_PEAK, K_ARENA, K_RGIVEN, K_RNOREUSE, K_GAP, K_MS, K_FRAG, K_STD, NK };

static void graph_cells(const mp_fmt *f, const mp_agg *g, double ud, const char *un,
                        char txt[NK][64]) {
  mp_tab_num(txt[K_PEAK], 64, (double)g->live_peak / ud, un[0] == 'B' ? 0 : 2);
  mp_tab_num(txt[K_ARENA], 64, (double)g->arena / ud, un[0] == 'B' ? 0 : 2);
  mp_tab_num(txt[K_RGIVEN], 64, 100 * g->red_given, 1);
  mp_tab_num(txt[K_RNOREUSE], 64, 100 * g->red_noreuse, 1);
  mp_tab_num(txt[K_GAP], 64, 100 * g->gap, 1);
  mp_tab_ms_spread(f, txt[K_MS], 64, g);
  mp_tab_num(txt[K_FRAG], 64, 100 * g->frag, 1);
  mp_tab_num(txt[K_STD], 64, g->std / ud, un[0] == 'B' ? 0 : 2);
}

/* Best per column on the printed values; time: the fastest median. */
static void graph_best(const mp_fmt *f, const mp_agg *a, int s, int e, double ud, const char *un,
                       double best[NK], int *fastest) {
  bool have = false;
  *fastest = -1;
  for (int q = s; q < e; q++) {
    if (!a[q].ok) continue;
    char t[NK][64];
    graph_cells(f, &a[q], ud, un, t);
    for (int k = 0; k < NK; k++) {
      double v = strtod(t[k], NULL);
      bool maxk = k == K_RGIVEN || k == K_RNOREUSE;
      if (!have || (maxk ? v > best[k] : v < best[k])) best[k] = v;
    }
    if (*fastest < 0 || a[q].plan_ms < a[*fastest].plan_ms) *fastest = q;
    have = true;
  }
}

static void graph_rows(FILE *o, const mp_fmt *f, const mp_agg *a, int s, int e) {
  int64_t mx = a[s].bound;
  for (int q = s; q < e; q++)
    if (a[q].ok && a[q].arena > mx) mx = a[q].arena;
  const char *un;
  double ud = mp_tab_unit(mx, &un), best[NK];
  int fastest;
  graph_best(f, a, s, e, ud, un, best, &fastest);
  char bound[96] = "", v[64];
  if (a[s].bound > 0) {
    mp_tab_num(v, sizeof v, (double)a[s].bound / ud, un[0] == 'B' ? 0 : 2);
    snprintf(bound, sizeof bound, "%s %s%s%s", v, un, a[s].bound_proven ? "*" : "",
             !strcmp(a[s].bound_kind, "reported") ? "^" : "");
  }
  for (int q = s; q < e; q++) {
    mp_tab_row_begin(o, f);
    mp_tab_cell(o, f, q == s ? a[q].graph : "", NULL, false, true);
    mp_tab_cell(o, f, q == s ? bound : "", NULL, false, false);
    mp_tab_cell(o, f, a[q].label, NULL, false, false);
    char t[NK][64];
    graph_cells(f, &a[q], ud, un, t);
    for (int k = 0; k < NK; k++) {
      bool b = a[q].ok && k != K_STD && strtod(t[k], NULL) == best[k];
      if (k == K_MS) b = a[q].ok && mp_tab_time_tie(&a[q], &a[fastest]);
      const char *u = k == K_PEAK || k == K_ARENA || k == K_STD ? un : NULL;
      mp_tab_cell(o, f, a[q].ok ? t[k] : "", a[q].ok ? u : NULL, b, false);
    }
    char okr[48];
    snprintf(okr, sizeof okr, "%d/%d%s", a[q].ok, a[q].runs, a[q].refused ? " (refused)" : "");
    mp_tab_cell(o, f, okr, NULL, false, false);
    mp_tab_row_end(o, f);
  }
}

/* Every figure of a row is one run's (the representative, table_agg.c):
 * the caption says which run, and how ties are broken. */
static void graphs_caption(FILE *o, const mp_fmt *f, bool best) {
  const char *run = best ? "every figure is one run's: of the runs with a plan over seeds, the "
                           "one with the smallest arena (ties: the fastest); plan ms is its "
                           "median over repeats"
                         : "every figure but the time is one run's: of the runs with a plan over "
                           "seeds, the lower-median run by arena (ties: the smaller live peak, "
                           "then seed); plan ms is the median over seeds and repeats";
  if (f->md)
    fprintf(o, "Per graph and solver: %s, with the range of every timed run when it varies. "
            "Gap: arena / bound - 1. Reductions: against the given order placed by the baseline "
            "placer, and against no reuse. Bold: best in the graph; for times, every solver whose "
            "range meets the fastest one's (a tie). An empty cell: no plan.\n\n", run);
  if (f->latex)
    fprintf(o, "%% memplan table (needs \\usepackage{booktabs}): figures of the %s run by arena "
            "over seeds%s; gap to the graph's bound; bold = best in the graph (times: ranges that "
            "meet the fastest)\n",
            best ? "smallest" : "lower-median", best ? "" : " (ties: live peak, then seed)");
}

static void write_graphs(FILE *o, const mp_fmt *f, const mp_agg *a, int na,
                         const mp_table_opts *opt) {
  graphs_caption(o, f, opt->best_of_seeds);
  const char *h[] = {"graph", "bound", "solver", "live peak", "arena", "vs given (%)",
                     "vs no reuse (%)", "gap (%)", "plan ms", "frag. (%)", "profile std",
                     "ok/runs"};
  mp_tab_header(o, f, h, "lrlrrrrrrrrr", 12);
  for (int s = 0; s < na;) {
    int e = s;
    while (e < na && !strcmp(a[e].path, a[s].path)) e++;
    if (f->latex && s > 0) fputs("\\midrule\n", o);
    graph_rows(o, f, a, s, e);
    s = e;
  }
  mp_tab_footer(o, f);
}

/* ------------------------------------------------------------ suite */

typedef struct suite_row {
  const char *label;
  int graphs, wins, failed_runs, refused_runs, runs;
  int aw, at, al, tw, tt, tl; /* against the baseline: arena, time */
  bool is_base;
  mp_gmean bound, given, ms; /* over the instances planned that have the figure */
} suite_row;

/* NaN (no instance had the figure) after every number. */
static int cmp_mean(double x, double y) {
  if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
  return x < y ? -1 : x > y;
}

static int cmp_suite(const void *x, const void *y) {
  const suite_row *a = x, *b = y;
  if (a->graphs != b->graphs) return a->graphs > b->graphs ? -1 : 1;
  int c = cmp_mean(mp_gmean_value(&a->bound), mp_gmean_value(&b->bound));
  return c ? c : strcmp(a->label, b->label);
}

/* The baseline on the instance a[s..e): smallest arena, fastest time. */
static void baseline_of(const mp_agg *a, int s, int e, const mp_table_opts *o, const mp_agg **ba,
                        const mp_agg **bt) {
  *ba = *bt = NULL;
  for (int q = s; q < e; q++) {
    if (!a[q].ok || !listed(&a[q], o->baselines, o->n_baselines)) continue;
    if (!*ba || a[q].arena < (*ba)->arena) *ba = &a[q];
    if (!*bt || a[q].plan_ms < (*bt)->plan_ms) *bt = &a[q];
  }
}

static void suite_instance(suite_row *r, const mp_agg *a, int s, int e, int i,
                           const mp_table_opts *o) {
  const mp_agg *g = &a[i];
  r->graphs++;
  int64_t best = -1;
  for (int q = s; q < e; q++)
    if (a[q].ok && (best < 0 || a[q].arena < best)) best = a[q].arena;
  if (g->arena == best) r->wins++;
  mp_gmean_add(&r->bound, g->bound > 0 ? (double)g->arena / (double)g->bound : NAN, 1e-9);
  mp_gmean_add(&r->given, 1.0 - g->red_given, 1e-9);
  mp_gmean_add(&r->ms, g->plan_ms, 1e-3);
  const mp_agg *ba, *bt;
  baseline_of(a, s, e, o, &ba, &bt);
  if (!ba) return;
  r->aw += g->arena < ba->arena;
  r->at += g->arena == ba->arena;
  r->al += g->arena > ba->arena;
  bool tie = mp_tab_time_tie(g, bt);
  r->tw += !tie && g->plan_ms < bt->plan_ms;
  r->tt += tie;
  r->tl += !tie && g->plan_ms > bt->plan_ms;
}

static int suite_rows(const mp_agg *a, int na, const mp_table_opts *o, suite_row *s) {
  int ns = 0;
  for (int i = 0; i < na; i++) {
    int k = 0;
    while (k < ns && strcmp(s[k].label, a[i].label)) k++;
    if (k == ns) {
      s[ns].label = a[i].label;
      s[ns++].is_base = listed(&a[i], o->baselines, o->n_baselines);
    }
  }
  for (int k = 0; k < ns; k++) {
    for (int st = 0; st < na;) {
      int e = st;
      while (e < na && !strcmp(a[e].path, a[st].path)) e++;
      for (int i = st; i < e; i++) {
        if (strcmp(a[i].label, s[k].label)) continue;
        s[k].runs += a[i].runs;
        s[k].refused_runs += a[i].refused;
        s[k].failed_runs += a[i].runs - a[i].ok - a[i].refused;
        if (a[i].ok) suite_instance(&s[k], a, st, e, i, o);
      }
      st = e;
    }
  }
  qsort(s, (size_t)ns, sizeof *s, cmp_suite);
  return ns;
}

/* A mean's text: "0.839", or "0.839 (6/7)" when it is over fewer instances
 * than the solver planned (the others lack the figure). */
static void mean_text(char *out, size_t cap, const mp_gmean *m, int graphs, bool ms) {
  double v = mp_gmean_value(m);
  ms ? mp_tab_ms(out, cap, v) : mp_tab_num(out, cap, v, 3);
  if (m->n && m->n < graphs) {
    size_t l = strlen(out);
    snprintf(out + l, cap - l, " (%d/%d)", m->n, graphs);
  }
}

static bool partial_means(const suite_row *r, int ns) {
  for (int k = 0; k < ns; k++)
    if (r[k].bound.n < r[k].graphs || r[k].given.n < r[k].graphs || r[k].ms.n < r[k].graphs)
      return true;
  return false;
}

static void suite_text(const suite_row *r, bool base, char t[10][48]) {
  snprintf(t[1], 48, "%d", r->graphs);
  snprintf(t[2], 48, "%d", r->wins);
  mean_text(t[3], 48, &r->bound, r->graphs, false);
  mean_text(t[4], 48, &r->given, r->graphs, false);
  mean_text(t[5], 48, &r->ms, r->graphs, true);
  snprintf(t[6], 48, "%d", r->failed_runs);
  snprintf(t[7], 48, "%d", r->refused_runs);
  if (!base) return;
  if (r->is_base) {
    snprintf(t[8], 48, "baseline");
    snprintf(t[9], 48, "baseline");
  } else {
    snprintf(t[8], 48, "%d/%d/%d", r->aw, r->at, r->al);
    snprintf(t[9], 48, "%d/%d/%d", r->tw, r->tt, r->tl);
  }
}

static void suite_caption(FILE *o, const mp_fmt *f, const char *what, int n_graphs, bool base,
                          bool partial) {
  const char *part = partial ? " k/n after a mean: over the k of the n instances it planned that "
                               "have the figure (a graph without a bound, or without a baseline "
                               "when it was cut, is left out of that mean)."
                             : "";
  if (f->md)
    fprintf(o, "Across the suite, %s (%d): wins = instances where the solver has the smallest "
            "arena (ties count for each); geometric means over the instances the solver planned "
            "of arena / bound, arena / (given order + baseline placer), and planning time "
            "(medians).%s Refused: runs the solver declined under its size cap (not failures).%s "
            "Bold: best.\n\n",
            what, n_graphs, part,
            base ? " Against the baseline (the best of the --baseline solvers on each instance): "
                   "wins/ties/losses on arena, and on planning time, where ranges that meet are "
                   "a tie."
                 : "");
  if (f->latex)
    fprintf(o, "%% memplan table: across the suite, %s (%d), geometric means%s\n", what, n_graphs,
            partial ? "; k/n: over the k of n instances planned that have the figure" : "");
}

static void write_suite(FILE *o, const mp_fmt *f, const mp_agg *a, int na, const char *what,
                        const mp_table_opts *opt) {
  suite_row *s = mp_xcalloc((size_t)(na ? na : 1), sizeof(suite_row));
  int ns = suite_rows(a, na, opt, s), n_graphs = 0;
  for (int i = 0; i < na; i++) n_graphs += i == 0 || strcmp(a[i].path, a[i - 1].path);
  bool base = opt->n_baselines > 0;
  suite_caption(o, f, what, n_graphs, base, partial_means(s, ns));
  const char *h[] = {"solver", "instances", "wins", "arena / bound", "arena / given", "plan ms",
                     "failed runs", "refused", "vs baseline: arena W/T/L", "time W/T/L"};
  int nc = base ? 10 : 8;
  mp_tab_header(o, f, h, base ? "lrrrrrrrrr" : "lrrrrrrr", nc);
  double best[10] = {0};
  bool have[10] = {false}; /* a best of 0 (0.00 ms) is a best too */
  char t[10][48];
  for (int k = 0; k < ns; k++) {
    suite_text(&s[k], base, t);
    for (int c = 2; c <= 5; c++) {
      double v = strtod(t[c], NULL);
      if (!t[c][0]) continue;
      if (!have[c] || (c == 2 ? v > best[c] : v < best[c])) best[c] = v;
      have[c] = true;
    }
  }
  for (int k = 0; k < ns; k++) {
    suite_text(&s[k], base, t);
    mp_tab_row_begin(o, f);
    mp_tab_cell(o, f, s[k].label, NULL, false, true);
    for (int c = 1; c < nc; c++)
      mp_tab_cell(o, f, t[c], NULL, c >= 2 && c <= 5 && t[c][0] && strtod(t[c], NULL) == best[c],
                  false);
    mp_tab_row_end(o, f);
  }
  mp_tab_footer(o, f);
  free(s);
}

/* ------------------------------------------------------------ csv */

void mp_tab_csv_field(FILE *o, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, o);
    return;
  }
  fputc('"', o);
  for (; *s; s++) {
    if (*s == '"') fputc('"', o);
    fputc(*s, o);
  }
  fputc('"', o);
}

static void write_csv(FILE *o, const mp_agg *a, int na) {
  mp_fmt f = {.csv = true};
  fputs("graph,path,solver,order_solver,place_solver,time_limit,options,source,runs,ok,refused,"
        "live_peak,arena,bound,bound_kind,bound_proven,peak_bound,reduction_vs_given,"
        "reduction_vs_noreuse,gap,peak_gap,plan_ms,plan_ms_min,plan_ms_max,fragmentation,"
        "profile_std,optimal,best\n",
        o);
  for (int i = 0; i < na; i++) {
    const mp_agg *g = &a[i];
    int64_t best = -1;
    for (int q = 0; q < na; q++)
      if (!strcmp(a[q].path, g->path) && a[q].ok && (best < 0 || a[q].arena < best)) best = a[q].arena;
    char t[64];
    const char *text[] = {g->graph, g->path, g->label, g->order, g->place};
    for (int k = 0; k < 5; k++) {
      mp_tab_csv_field(o, text[k]);
      fputc(',', o);
    }
    mp_fmt_seconds(g->time_limit, t, sizeof t);
    fprintf(o, "%s,", t);
    mp_tab_csv_field(o, g->options);
    fputc(',', o);
    mp_tab_csv_field(o, g->source ? g->source : "");
    fprintf(o, ",%d,%d,%d,", g->runs, g->ok, g->refused);
    char v[12][48];
    mp_tab_num(v[0], 48, g->red_given, 6);
    mp_tab_num(v[1], 48, g->red_noreuse, 6);
    mp_tab_num(v[2], 48, g->gap, 6);
    mp_tab_num(v[3], 48, g->peak_gap, 6);
    mp_tab_num(v[4], 48, g->plan_ms, 3);
    mp_tab_num(v[5], 48, g->ms_lo, 3);
    mp_tab_num(v[6], 48, g->ms_hi, 3);
    mp_tab_num(v[7], 48, g->frag, 6);
    mp_tab_num(v[8], 48, g->std, 1);
    if (g->ok)
      fprintf(o, "%lld,%lld,", (long long)g->live_peak, (long long)g->arena);
    else
      fputs(",,", o);
    fprintf(o, "%lld,%s,%d,%lld,", (long long)g->bound, g->bound_kind, g->bound_proven,
            (long long)g->peak_bound);
    if (!g->ok) {
      fputs(",,,,,,,,,0,0\n", o);
      continue;
    }
    (void)f;
    fprintf(o, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%d\n", v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
            v[8], g->optimal, g->arena == best);
  }
}

/* ------------------------------------------------------------ entry */

static void write_suites(FILE *out, const mp_fmt *f, const mp_aggset *s, const mp_table_opts *o) {
  /* graphs and fixed-lifetime problems apart: different solvers apply */
  mp_agg *sub = mp_xmalloc(sizeof(mp_agg) * (size_t)(s->n ? s->n : 1));
  int parts = 0;
  for (int fixed = 0; fixed < 2; fixed++) {
    int ns = 0;
    for (int i = 0; i < s->n; i++)
      if (s->a[i].fixed == (fixed == 1)) sub[ns++] = s->a[i];
    if (!ns) continue;
    if (parts++) fputc('\n', out);
    write_suite(out, f, sub, ns, fixed ? "fixed-lifetime problems" : "graphs", o);
  }
  free(sub);
}

/* The view: default both (csv: graphs, or remat when every row is a remat
 * cell's). */
static int parse_format(const mp_table_opts *o, bool only_remat, mp_fmt *f, const char **view,
                        char *msg, size_t cap) {
  memset(f, 0, sizeof *f);
  const char *fm = o->format ? o->format : "md";
  if (!strcmp(fm, "md"))
    f->md = true;
  else if (!strcmp(fm, "latex"))
    f->latex = true;
  else if (!strcmp(fm, "csv"))
    f->csv = true;
  else {
    mp_msgf(msg, cap, "unknown format '%s' (md, latex, csv)", fm);
    return -1;
  }
  *view = o->view ? o->view : !f->csv ? "both" : only_remat ? "remat" : "graphs";
  if (strcmp(*view, "graphs") && strcmp(*view, "suite") && strcmp(*view, "both") &&
      strcmp(*view, "pivot") && strcmp(*view, "remat") && strcmp(*view, "remat-summary")) {
    mp_msgf(msg, cap, "unknown view '%s' (graphs, suite, both, pivot, remat, remat-summary)",
             *view);
    return -1;
  }
  if (o->metric && mp_pivot_metric(o->metric) < 0) { /* checked whatever the view */
    mp_msgf(msg, cap, "unknown --metric '%s' (peak, arena, time, status, wall, frag)", o->metric);
    return -1;
  }
  if (f->csv && strcmp(*view, "graphs") && strcmp(*view, "remat")) {
    mp_msgf(msg, cap, "csv holds one per-graph table: --view graphs, or --view remat");
    return -1;
  }
  return 0;
}

/* The markdown or LaTeX tables of the view. */
static int write_view(FILE *out, const mp_fmt *f, const char *view, const mp_aggset *s,
                      const mp_raggset *rs, const mp_table_opts *o, char *msg, size_t cap) {
  /* order and placement rows (or nothing at all) */
  bool plain = (s->n > 0 || rs->n == 0) && strncmp(view, "remat", 5);
  if (!strcmp(view, "pivot")) return mp_table_pivot(out, f, s, o, msg, cap);
  if (plain && (!strcmp(view, "suite") || !strcmp(view, "both"))) write_suites(out, f, s, o);
  if (plain && !strcmp(view, "both")) fputc('\n', out);
  if (plain && (!strcmp(view, "graphs") || !strcmp(view, "both"))) write_graphs(out, f, s->a, s->n, o);
  bool summary = !strcmp(view, "remat-summary");
  bool remat = !strncmp(view, "remat", 5) || (!strcmp(view, "both") && rs->n > 0);
  if (remat && plain && strncmp(view, "remat", 5)) fputc('\n', out);
  if (remat) mp_table_remat(out, f, rs, o, summary);
  return 0;
}

int mp_table_write(FILE *out, const mp_row *rows, int n, const mp_table_opts *o, char *msg,
                   size_t cap) {
  bool only_remat = n > 0;
  for (int i = 0; i < n; i++) only_remat &= mp_row_is_remat(&rows[i]);
  mp_fmt f;
  const char *view;
  if (parse_format(o, only_remat, &f, &view, msg, cap)) return -1;
  mp_aggset s;
  mp_raggset rs;
  mp_agg_opts ao = {o->best_of_seeds, o->graph_bound_only};
  mp_aggregate(rows, n, &ao, &s);
  mp_remat_aggregate(rows, n, o->best_of_seeds, &rs);
  char note[512];
  int rc = apply_filters(&s, &rs, o, note, sizeof note, msg, cap) ? -1 : 0;
  if (!rc && f.csv) {
    if (!strcmp(view, "remat"))
      mp_table_remat_csv(out, &rs);
    else
      write_csv(out, s.a, s.n);
  } else if (!rc) {
    if (!o->brief && (s.n || !rs.n)) bound_note(out, &f, &s, o);
    if (!o->brief) remat_note(out, &f, &rs);
    sources_note(out, &f, &s);
    if (note[0]) fprintf(out, "%s%s\n", f.latex ? "% " : "", note);
    issues_note(out, &f, &s, &rs);
    if (!o->brief || note[0] || s.n_issues || rs.n_issues || s.n_sources > 1) fputc('\n', out);
    rc = write_view(out, &f, view, &s, &rs, o, msg, cap);
  }
  int n_issues = s.n_issues + rs.n_issues;
  if (!rc && n_issues) {
    mp_msgf(msg, cap, "%s%s", s.n_issues ? s.issues[0] : rs.issues[0],
             n_issues > 1 ? " (and more: see the table)" : "");
    rc = 1;
  }
  mp_aggset_destroy(&s);
  mp_raggset_destroy(&rs);
  return rc;
}
