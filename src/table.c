/* table.c - tables generated from results rows (markdown, LaTeX, CSV).
 *
 * Rows are grouped by graph and solver (order chain + placer chain, plus
 * the time limit when a results set has several, plus the options).  Over
 * the seeds of a group, a figure is the lower median of the runs that gave
 * a plan (a value that was observed), or with --agg best every figure of
 * the run with the smallest arena.  Output is sorted and printed with fixed
 * precision so that the same rows always give the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "run.h"
#include "util.h"

/* ------------------------------------------------------------ aggregate */

static int cmp_row_ptr(const void *a, const void *b) {
  const mp_row *x = *(const mp_row *const *)a, *y = *(const mp_row *const *)b;
  int c = strcmp(x->graph ? x->graph : "", y->graph ? y->graph : "");
  if (c) return c;
  if ((c = strcmp(x->path, y->path))) return c;
  if ((c = strcmp(x->order, y->order))) return c;
  if ((c = strcmp(x->place, y->place))) return c;
  if (x->time_limit != y->time_limit) return x->time_limit < y->time_limit ? -1 : 1;
  if ((c = strcmp(x->options, y->options))) return c;
  return x->seed < y->seed ? -1 : x->seed > y->seed;
}

static bool same_group(const mp_row *x, const mp_row *y) {
  return !strcmp(x->path, y->path) && !strcmp(x->order, y->order) && !strcmp(x->place, y->place) &&
         x->time_limit == y->time_limit && !strcmp(x->options, y->options);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}
static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int64_t med_i64(int64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_i64);
  return v[(n - 1) / 2];
}
static double med_dbl(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_dbl);
  return v[(n - 1) / 2];
}

static bool is_fixed(const mp_row *r) { return r->nodes == 0 && r->buffers > 0; }

int mp_aggregate(const mp_row *rows, int n, bool best_of_seeds, mp_agg **out, int *n_out) {
  const mp_row **p = mp_xmalloc(sizeof(*p) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) p[i] = &rows[i];
  qsort(p, (size_t)n, sizeof(*p), cmp_row_ptr);
  /* label: add the time limit when the rows hold several */
  bool multi_tl = false;
  for (int i = 1; i < n; i++)
    if (rows[i].time_limit != rows[0].time_limit) multi_tl = true;
  mp_agg *a = mp_xcalloc((size_t)(n ? n : 1), sizeof(mp_agg));
  int na = 0;
  int64_t *iv = mp_xmalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  double *dv = mp_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && same_group(p[i], p[j])) j++;
    mp_agg *g = &a[na++];
    const mp_row *r0 = p[i];
    g->graph = r0->graph ? r0->graph : r0->path;
    g->path = r0->path;
    g->order = r0->order;
    g->place = r0->place;
    g->options = r0->options;
    g->time_limit = r0->time_limit;
    g->fixed = is_fixed(r0);
    int l = snprintf(g->label, sizeof g->label, "%s+%s", r0->order, r0->place);
    if (multi_tl) {
      char t[32];
      mp_fmt_seconds(r0->time_limit, t, sizeof t);
      l += snprintf(g->label + l, sizeof g->label - (size_t)l, " @%ss", t);
    }
    if (r0->options[0]) snprintf(g->label + l, sizeof g->label - (size_t)l, " [%s]", r0->options);
    g->runs = j - i;
    const mp_row *ok[4096];
    int k = 0;
    for (int q = i; q < j; q++)
      if (p[q]->has_fig && k < 4096) ok[k++] = p[q];
    g->ok = k;
    if (k > 0) {
      if (best_of_seeds) {
        const mp_row *b = ok[0];
        for (int q = 1; q < k; q++)
          if (ok[q]->arena < b->arena || (ok[q]->arena == b->arena && ok[q]->plan_ms < b->plan_ms))
            b = ok[q];
        g->live_peak = b->live_peak;
        g->arena = b->arena;
        g->red_given = b->reduction_vs_given;
        g->red_noreuse = b->reduction_vs_noreuse;
        g->plan_ms = b->plan_ms;
        g->frag = b->fragmentation;
        g->std = b->profile_std;
      } else {
#define MEDI(field, src)                                  \
  for (int q = 0; q < k; q++) iv[q] = ok[q]->src;         \
  g->field = med_i64(iv, k);
#define MEDD(field, src)                                  \
  for (int q = 0; q < k; q++) dv[q] = ok[q]->src;         \
  g->field = med_dbl(dv, k);
        MEDI(live_peak, live_peak)
        MEDI(arena, arena)
        MEDD(red_given, reduction_vs_given)
        MEDD(red_noreuse, reduction_vs_noreuse)
        MEDD(plan_ms, plan_ms)
        MEDD(frag, fragmentation)
        MEDD(std, profile_std)
#undef MEDI
#undef MEDD
      }
    }
    i = j;
  }
  /* the best bound known per graph: a proven optimum (a run with status
   * optimal whose order was searched, or any optimal run of a fixed-lifetime
   * problem), else the largest lower bound any run reported */
  for (int s = 0; s < na;) {
    int e = s;
    while (e < na && !strcmp(a[e].path, a[s].path)) e++;
    int64_t lb = 0, opt = -1;
    for (int q = 0; q < n; q++) {
      const mp_row *r = &rows[q];
      if (strcmp(r->path, a[s].path) || !r->has_fig) continue;
      if (r->lower_bound > lb) lb = r->lower_bound;
      if (!strcmp(r->status, "optimal") && (is_fixed(r) || !mp_chain_is_file_order(r->order)))
        if (opt < 0 || r->arena < opt) opt = r->arena;
    }
    int64_t bound = opt >= lb ? opt : lb;
    for (int q = s; q < e; q++) {
      a[q].bound = bound;
      a[q].gap = a[q].ok && bound > 0 ? (double)a[q].arena / (double)bound - 1.0 : 0;
    }
    s = e;
  }
  free(iv);
  free(dv);
  free(p);
  *out = a;
  *n_out = na;
  return 0;
}

/* ------------------------------------------------------------ formatting */

typedef struct fmt {
  bool md, latex, csv;
} fmt;

static double unit_of(int64_t max, const char **name) {
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

/* Fixed precision without "-0.0". */
static void fnum(char *out, size_t cap, double x, int prec) {
  double r = pow(10, prec);
  double v = round(x * r) / r;
  if (v == 0) v = 0;
  snprintf(out, cap, "%.*f", prec, v);
}

static void fms(char *out, size_t cap, double ms) {
  fnum(out, cap, ms, ms < 10 ? 2 : ms < 1000 ? 1 : 0);
}

static void esc(FILE *o, const fmt *f, const char *s) {
  for (; *s; s++) {
    if (f->latex && strchr("_%&#$", *s)) fputc('\\', o);
    if (f->md && *s == '|') fputc('\\', o);
    fputc(*s, o);
  }
}

/* One cell: text, bold when best. */
static void cell(FILE *o, const fmt *f, const char *text, const char *unit, bool best, bool first) {
  if (!first) fputs(f->latex ? " & " : " | ", o);
  if (best) fputs(f->latex ? "\\textbf{" : "**", o);
  esc(o, f, text);
  if (unit && unit[0]) {
    fputs(f->latex ? "\\," : " ", o);
    esc(o, f, unit);
  }
  if (best) fputs(f->latex ? "}" : "**", o);
}

static void row_end(FILE *o, const fmt *f) { fputs(f->latex ? " \\\\\n" : " |\n", o); }
static void row_begin(FILE *o, const fmt *f) {
  if (f->md) fputs("| ", o);
}

static void header(FILE *o, const fmt *f, const char *const *h, const char *align, int nc) {
  if (f->latex) {
    fprintf(o, "\\begin{tabular}{%s}\n\\toprule\n", align);
    for (int i = 0; i < nc; i++) fprintf(o, "%s%s", i ? " & " : "", h[i]);
    fputs(" \\\\\n\\midrule\n", o);
    return;
  }
  fputs("|", o);
  for (int i = 0; i < nc; i++) fprintf(o, " %s |", h[i]);
  fputs("\n|", o);
  for (int i = 0; i < nc; i++) fputs(align[i] == 'l' ? "---|" : "---:|", o);
  fputc('\n', o);
}

static void footer(FILE *o, const fmt *f) {
  if (f->latex) fputs("\\bottomrule\n\\end{tabular}\n", o);
}

/* ------------------------------------------------------------ per graph */

enum { K_PEAK, K_ARENA, K_RGIVEN, K_RNOREUSE, K_GAP, K_MS, K_FRAG, K_STD, NK };

static void graph_cells(const mp_agg *g, double ud, const char *un, char txt[NK][48]) {
  fnum(txt[K_PEAK], 48, (double)g->live_peak / ud, un[0] == 'B' ? 0 : 2);
  fnum(txt[K_ARENA], 48, (double)g->arena / ud, un[0] == 'B' ? 0 : 2);
  fnum(txt[K_RGIVEN], 48, 100 * g->red_given, 1);
  fnum(txt[K_RNOREUSE], 48, 100 * g->red_noreuse, 1);
  fnum(txt[K_GAP], 48, 100 * g->gap, 1);
  fms(txt[K_MS], 48, g->plan_ms);
  fnum(txt[K_FRAG], 48, 100 * g->frag, 1);
  fnum(txt[K_STD], 48, g->std / ud, un[0] == 'B' ? 0 : 2);
}

static void write_graphs(FILE *o, const fmt *f, const mp_agg *a, int na, const mp_table_opts *opt) {
  if (f->md)
    fprintf(o, "Per graph and solver: %s over seeds of the runs with a plan. Gap: arena over the "
               "best bound known for the graph (a proven optimum where a run proved one, else the "
               "largest lower bound), minus 1. Reductions: against the given order placed by "
               "bysize, and against no reuse. Bold: best in the graph.\n\n",
            opt->best_of_seeds ? "best run (smallest arena)" : "lower median");
  if (f->latex)
    fprintf(o, "%% memplan table (needs \\usepackage{booktabs}): %s over seeds; gap to the best "
               "bound known; bold = best in the graph\n",
            opt->best_of_seeds ? "best run" : "lower median");
  char h[11][64];
  const char *hp[11];
  const char *names[] = {"graph", "solver", "live peak", "arena", "vs given", "vs no reuse",
                         "gap", "plan ms", "frag.", "profile std", "ok/runs"};
  for (int i = 0; i < 11; i++) {
    snprintf(h[i], sizeof h[i], "%s%s", names[i],
             (i >= 4 && i <= 6) || i == 8 ? (f->latex ? " (\\%)" : " (%)") : "");
    hp[i] = h[i];
  }
  header(o, f, hp, "llrrrrrrrrr", 11);
  for (int s = 0; s < na;) {
    int e = s;
    while (e < na && !strcmp(a[e].path, a[s].path)) e++;
    int64_t mx = a[s].bound;
    for (int q = s; q < e; q++)
      if (a[q].ok && a[q].arena > mx) mx = a[q].arena;
    const char *un;
    double ud = unit_of(mx, &un);
    /* best per column, on the printed values */
    double best[NK];
    bool have = false;
    for (int q = s; q < e; q++) {
      if (!a[q].ok) continue;
      char t[NK][48];
      graph_cells(&a[q], ud, un, t);
      for (int k = 0; k < NK; k++) {
        double v = strtod(t[k], NULL);
        bool maxk = k == K_RGIVEN || k == K_RNOREUSE;
        if (!have || (maxk ? v > best[k] : v < best[k])) best[k] = v;
      }
      have = true;
    }
    if (f->latex && s > 0) fputs("\\midrule\n", o);
    for (int q = s; q < e; q++) {
      row_begin(o, f);
      char gname[300];
      snprintf(gname, sizeof gname, "%s", q == s ? a[q].graph : "");
      cell(o, f, gname, NULL, false, true);
      cell(o, f, a[q].label, NULL, false, false);
      char t[NK][48];
      graph_cells(&a[q], ud, un, t);
      for (int k = 0; k < NK; k++) {
        bool b = a[q].ok && k != K_STD && strtod(t[k], NULL) == best[k];
        const char *u = k == K_PEAK || k == K_ARENA || k == K_STD ? un : NULL;
        cell(o, f, a[q].ok ? t[k] : "-", a[q].ok ? u : NULL, b, false);
      }
      char okr[32];
      snprintf(okr, sizeof okr, "%d/%d", a[q].ok, a[q].runs);
      cell(o, f, okr, NULL, false, false);
      row_end(o, f);
    }
    s = e;
  }
  footer(o, f);
}

/* ------------------------------------------------------------ suite */

typedef struct suite_row {
  const char *label;
  int graphs, wins, failed_runs, runs;
  double gm_bound, gm_given, gm_ms;
} suite_row;

static int cmp_suite(const void *x, const void *y) {
  const suite_row *a = x, *b = y;
  if (a->graphs != b->graphs) return a->graphs > b->graphs ? -1 : 1;
  if (a->gm_bound != b->gm_bound) return a->gm_bound < b->gm_bound ? -1 : 1;
  return strcmp(a->label, b->label);
}

static void write_suite(FILE *o, const fmt *f, const mp_agg *a, int na, const char *what) {
  /* distinct labels */
  suite_row *s = mp_xcalloc((size_t)(na ? na : 1), sizeof(suite_row));
  int ns = 0, n_graphs = 0;
  for (int i = 0; i < na; i++) {
    if (i == 0 || strcmp(a[i].path, a[i - 1].path)) n_graphs++;
    int k = 0;
    while (k < ns && strcmp(s[k].label, a[i].label)) k++;
    if (k == ns) s[ns++].label = a[i].label;
  }
  for (int k = 0; k < ns; k++) {
    double lb = 0, lg = 0, lm = 0;
    for (int i = 0; i < na; i++) {
      if (strcmp(a[i].label, s[k].label)) continue;
      s[k].runs += a[i].runs;
      s[k].failed_runs += a[i].runs - a[i].ok;
      if (!a[i].ok) continue;
      s[k].graphs++;
      /* best aggregated arena on this graph */
      int64_t best = -1;
      for (int q = 0; q < na; q++)
        if (!strcmp(a[q].path, a[i].path) && a[q].ok && (best < 0 || a[q].arena < best))
          best = a[q].arena;
      if (a[i].arena == best) s[k].wins++;
      lb += a[i].bound > 0 ? log((double)a[i].arena / (double)a[i].bound) : 0;
      lg += log(fmax(1e-9, 1.0 - a[i].red_given));
      lm += log(fmax(1e-3, a[i].plan_ms));
    }
    if (s[k].graphs) {
      s[k].gm_bound = exp(lb / s[k].graphs);
      s[k].gm_given = exp(lg / s[k].graphs);
      s[k].gm_ms = exp(lm / s[k].graphs);
    }
  }
  qsort(s, (size_t)ns, sizeof *s, cmp_suite);
  if (f->md)
    fprintf(o, "Across the suite, %s (%d): wins = instances where the solver has the smallest "
               "arena (ties count for each); geometric means over the instances the solver "
               "planned of arena / best bound known, arena / (given order + bysize), and planning "
               "time. Bold: best.\n\n",
            what, n_graphs);
  if (f->latex)
    fprintf(o, "%% memplan table: across the suite, %s (%d), geometric means\n", what, n_graphs);
  const char *h[] = {"solver", "instances", "wins", "arena / bound", "arena / given", "plan ms",
                     "failed runs"};
  header(o, f, h, "lrrrrrr", 7);
  char t[7][48];
  double best[7] = {0};
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < ns; k++) {
      snprintf(t[1], 48, "%d", s[k].graphs);
      snprintf(t[2], 48, "%d", s[k].wins);
      fnum(t[3], 48, s[k].gm_bound, 3);
      fnum(t[4], 48, s[k].gm_given, 3);
      fms(t[5], 48, s[k].gm_ms);
      snprintf(t[6], 48, "%d", s[k].failed_runs);
      if (pass == 0) {
        for (int c = 1; c < 7; c++) {
          double v = strtod(t[c], NULL);
          bool maxc = c == 1 || c == 2;
          if (!s[k].graphs && c >= 3 && c <= 5) continue;
          if (k == 0 || (maxc ? v > best[c] : v < best[c])) best[c] = v;
        }
        continue;
      }
      row_begin(o, f);
      cell(o, f, s[k].label, NULL, false, true);
      for (int c = 1; c < 7; c++) {
        bool have = s[k].graphs || c < 3 || c > 5;
        bool mark = have && c >= 2 && c <= 5 && strtod(t[c], NULL) == best[c];
        cell(o, f, have ? t[c] : "-", NULL, mark, false);
      }
      row_end(o, f);
    }
  }
  footer(o, f);
  free(s);
}

static void csv_field(FILE *o, const char *s) {
  if (!strpbrk(s, ",\"\n")) {
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
  fputs("graph,path,solver,order_solver,place_solver,time_limit,options,runs,ok,live_peak,arena,"
        "best_bound,reduction_vs_given,reduction_vs_noreuse,gap,plan_ms,fragmentation,"
        "profile_std,best\n",
        o);
  for (int i = 0; i < na; i++) {
    const mp_agg *g = &a[i];
    int64_t best = -1;
    for (int q = 0; q < na; q++)
      if (!strcmp(a[q].path, g->path) && a[q].ok && (best < 0 || a[q].arena < best)) best = a[q].arena;
    char t[64];
    csv_field(o, g->graph);
    fputc(',', o);
    csv_field(o, g->path);
    fputc(',', o);
    csv_field(o, g->label);
    fputc(',', o);
    csv_field(o, g->order);
    fputc(',', o);
    csv_field(o, g->place);
    mp_fmt_seconds(g->time_limit, t, sizeof t);
    fprintf(o, ",%s,", t);
    csv_field(o, g->options);
    fprintf(o, ",%d,%d,", g->runs, g->ok);
    if (!g->ok) {
      fprintf(o, ",,%lld,,,,,,,0\n", (long long)g->bound);
      continue;
    }
    char v[6][48];
    fnum(v[0], 48, g->red_given, 6);
    fnum(v[1], 48, g->red_noreuse, 6);
    fnum(v[2], 48, g->gap, 6);
    fnum(v[3], 48, g->plan_ms, 3);
    fnum(v[4], 48, g->frag, 6);
    fnum(v[5], 48, g->std, 1);
    fprintf(o, "%lld,%lld,%lld,%s,%s,%s,%s,%s,%s,%d\n", (long long)g->live_peak,
            (long long)g->arena, (long long)g->bound, v[0], v[1], v[2], v[3], v[4], v[5],
            g->arena == best);
  }
}

int mp_table_write(FILE *out, const mp_row *rows, int n, const mp_table_opts *o, char *msg,
                   size_t cap) {
  fmt f = {0};
  const char *fm = o->format ? o->format : "md";
  if (!strcmp(fm, "md"))
    f.md = true;
  else if (!strcmp(fm, "latex"))
    f.latex = true;
  else if (!strcmp(fm, "csv"))
    f.csv = true;
  else {
    snprintf(msg, cap, "unknown format '%s' (md, latex, csv)", fm);
    return -1;
  }
  const char *view = o->view ? o->view : f.csv ? "graphs" : "both";
  bool vg = !strcmp(view, "graphs") || !strcmp(view, "both");
  bool vs = !strcmp(view, "suite") || !strcmp(view, "both");
  if (!vg && !vs) {
    snprintf(msg, cap, "unknown view '%s' (graphs, suite, both)", view);
    return -1;
  }
  if (f.csv && vs && vg) {
    snprintf(msg, cap, "csv holds one table: --view graphs or --view suite");
    return -1;
  }
  mp_agg *a;
  int na;
  mp_aggregate(rows, n, o->best_of_seeds, &a, &na);
  if (f.csv) {
    if (vg) {
      write_csv(out, a, na);
    } else {
      snprintf(msg, cap, "--view suite is available in md and latex");
      free(a);
      return -1;
    }
  } else {
    if (vs) {
      /* graphs and fixed-lifetime problems apart: different solvers apply */
      mp_agg *sub = mp_xmalloc(sizeof(mp_agg) * (size_t)(na ? na : 1));
      int parts = 0;
      for (int fixed = 0; fixed < 2; fixed++) {
        int ns = 0;
        for (int i = 0; i < na; i++)
          if (a[i].fixed == (fixed == 1)) sub[ns++] = a[i];
        if (!ns) continue;
        if (parts++) fputc('\n', out);
        write_suite(out, &f, sub, ns, fixed ? "fixed-lifetime problems" : "graphs");
      }
      free(sub);
    }
    if (vs && vg) fputc('\n', out);
    if (vg) write_graphs(out, &f, a, na, o);
  }
  free(a);
  return 0;
}
