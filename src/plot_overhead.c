/* plot_overhead.c - `memplan plot overhead`: the picture of the trade-off
 * recomputation and offload make, overhead (duration / base_time - 1)
 * against the memory budget, one curve per solver (order + remat + place).
 *
 * On one graph (--graph) each point is a group of table_remat_agg.c (the
 * median over seeds, or the best run); the x axis is the budget as a
 * fraction of the order's live peak when every budget is written "0.8x",
 * else the budget in bytes.  Over the suite each point is the geometric
 * mean of 1 + overhead over the graphs the solver planned at that budget
 * (fractions only), hollow when it did not plan every graph it ran on.  A
 * budget with no plan has no point. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "plot.h"

typedef struct point {
  double x, y;              /* budget (fraction or bytes), overhead in % */
  bool hollow;
} point;

typedef struct series {
  const char *label;
  point *p;
  int n;
} series;

typedef struct opic {
  series *s;
  int ns;
  bool bytes;               /* x in bytes (one graph, budgets in bytes) */
  double limit;             /* threshold, fraction */
  char title[300];
} opic;

static series *series_of(opic *P, const char *label) {
  for (int i = 0; i < P->ns; i++)
    if (!strcmp(P->s[i].label, label)) return &P->s[i];
  series *s = &P->s[P->ns++];
  s->label = label;
  return s;
}

static void add_point(series *s, double x, double y, bool hollow) {
  s->p = mp_xrealloc(s->p, sizeof(point) * (size_t)(s->n + 1));
  s->p[s->n++] = (point){x, y, hollow};
}

static bool plotted(const mp_ragg *g) { return g->ok && !isnan(g->overhead); }

/* One graph: a point per planned group. */
static void graph_points(opic *P, const mp_raggset *set) {
  P->bytes = false;
  for (int i = 0; i < set->n; i++) P->bytes |= isnan(set->a[i].frac);
  for (int i = 0; i < set->n; i++) {
    const mp_ragg *g = &set->a[i];
    double x = P->bytes ? (double)g->budget : g->frac;
    if (plotted(g) && !(P->bytes && g->budget == MP_NA))
      add_point(series_of(P, g->label), x, 100 * g->overhead, false);
  }
}

/* The suite: per label and fraction, the geometric mean over graphs. */
static void suite_points(opic *P, const mp_raggset *set) {
  for (int i = 0; i < set->n; i++) {
    const mp_ragg *g = &set->a[i];
    if (isnan(g->frac)) continue;
    series *s = series_of(P, g->label);
    bool seen = false;
    for (int k = 0; k < s->n && !seen; k++) seen = s->p[k].x == g->frac;
    if (seen) continue;
    double lg = 0;
    int k = 0, n = 0;
    for (int j = 0; j < set->n; j++) {
      const mp_ragg *h = &set->a[j];
      if (strcmp(h->label, g->label) || h->frac != g->frac) continue;
      n++;
      if (plotted(h) && 1 + h->overhead > 0) lg += log(1 + h->overhead), k++;
    }
    if (k) add_point(s, g->frac, 100 * (exp(lg / k) - 1), k < n);
  }
}

static int cmp_point(const void *a, const void *b) {
  double x = ((const point *)a)->x, y = ((const point *)b)->x;
  return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------ drawing */

static void frame(mp_canvas *c, const opic *P) {
  double x0 = INFINITY, x1 = -INFINITY, y0 = 0, y1 = 100 * P->limit;
  for (int i = 0; i < P->ns; i++)
    for (int k = 0; k < P->s[i].n; k++) {
      const point *p = &P->s[i].p[k];
      x0 = fmin(x0, p->x), x1 = fmax(x1, p->x), y0 = fmin(y0, p->y), y1 = fmax(y1, p->y);
    }
  double pad = x1 > x0 ? 0.05 * (x1 - x0) : fmax(0.05, 0.05 * fabs(x0));
  double div = 1;
  const char *un = P->bytes ? mp_plot_unit(x1, &div) : NULL;
  c->x0 = 90, c->x1 = c->w - 340, c->y0 = 40, c->y1 = c->h - 55;
  c->dx0 = (x0 - pad) / div, c->dx1 = (x1 + pad) / div;
  c->dy0 = y0, c->dy1 = y1 * 1.1 + 1;
  char xl[96];
  if (P->bytes)
    snprintf(xl, sizeof xl, "budget (%s)", un);
  else
    snprintf(xl, sizeof xl, "budget (fraction of the order's live peak)");
  mp_canvas_axes(c, P->title, xl, "overhead (%): duration / base time - 1", 1);
}

static void draw_series(mp_canvas *c, const opic *P, const series *s, const double *col) {
  cairo_t *cr = c->cr;
  double div = 1;
  if (P->bytes) {
    double mx = 0;
    for (int i = 0; i < P->ns; i++)
      for (int k = 0; k < P->s[i].n; k++) mx = fmax(mx, P->s[i].p[k].x);
    mp_plot_unit(mx, &div);
  }
  cairo_set_source_rgb(cr, col[0], col[1], col[2]);
  cairo_set_line_width(cr, 2);
  for (int k = 0; k < s->n; k++) {
    double x = mp_cx(c, s->p[k].x / div), y = mp_cy(c, s->p[k].y);
    if (k == 0)
      cairo_move_to(cr, x, y);
    else
      cairo_line_to(cr, x, y);
  }
  cairo_stroke(cr);
  for (int k = 0; k < s->n; k++) {
    cairo_arc(cr, mp_cx(c, s->p[k].x / div), mp_cy(c, s->p[k].y), 4.5, 0, 2 * M_PI);
    if (s->p[k].hollow) {
      cairo_set_source_rgb(cr, 1, 1, 1);
      cairo_fill_preserve(cr);
      cairo_set_source_rgb(cr, col[0], col[1], col[2]);
      cairo_stroke(cr);
    } else {
      cairo_fill(cr);
    }
  }
}

static int draw(void *ctx, const char *path, FILE *fp, char *msg, size_t cap) {
  const opic *P = ctx;
  mp_canvas c;
  if (mp_canvas_open(&c, path, fp, 1140, 600, msg, cap)) return -1;
  frame(&c, P);
  cairo_t *cr = c.cr;
  double d[] = {7, 4};
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  cairo_set_line_width(cr, 1.5);
  cairo_set_dash(cr, d, 2, 0);
  cairo_move_to(cr, c.x0, mp_cy(&c, 100 * P->limit));
  cairo_line_to(cr, c.x1, mp_cy(&c, 100 * P->limit));
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  for (int i = 0; i < P->ns; i++) {
    const double *col = mp_palette[i % MP_NPAL];
    draw_series(&c, P, &P->s[i], col);
    cairo_set_source_rgb(cr, col[0], col[1], col[2]);
    mp_canvas_legend(&c, i, P->s[i].label, i >= MP_NPAL, false);
  }
  char lab[120];
  snprintf(lab, sizeof lab, "overhead %g%%", 100 * P->limit);
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  mp_canvas_legend(&c, P->ns, lab, true, false);
  if (!P->bytes && strstr(P->title, "geometric")) {
    cairo_set_source_rgb(cr, 0, 0, 0);
    mp_canvas_text(&c, c.x1 + 14, c.y0 + 20 * (P->ns + 1) + 14, 10,
                   "hollow: not every graph planned", 0, 0.5, false);
  }
  return mp_canvas_close(&c, msg, cap);
}

/* ------------------------------------------------------------ entry */

static void keep_graph(mp_row *rows, int *n, const char *graph) {
  int w = 0;
  for (int i = 0; i < *n; i++) {
    if ((rows[i].graph && !strcmp(rows[i].graph, graph)) || !strcmp(rows[i].path, graph))
      rows[w++] = rows[i];
    else
      mp_row_destroy(&rows[i]);
  }
  *n = w;
}

int mp_plot_overhead(const char *const *in, int nin, const char *graph, bool best,
                     double limit, const char *out, char *msg, size_t cap) {
  mp_row *rows = NULL;
  int n = 0, rc = 0;
  for (int i = 0; i < nin && !rc; i++) rc = mp_rows_load(in[i], &rows, &n, msg, cap);
  if (!rc && graph) keep_graph(rows, &n, graph);
  mp_raggset set;
  mp_remat_aggregate(rows, rc ? 0 : n, best, &set);
  opic P = {mp_xcalloc((size_t)(set.n ? set.n : 1), sizeof(series)), 0, false, limit, ""};
  int graphs = 0;
  for (int i = 0; i < set.n; i++) graphs += i == 0 || strcmp(set.a[i].path, set.a[i - 1].path);
  if (graph) {
    graph_points(&P, &set);
    snprintf(P.title, sizeof P.title, "Overhead against budget: %.200s (%s over seeds)", graph,
             best ? "best" : "median");
  } else {
    suite_points(&P, &set);
    snprintf(P.title, sizeof P.title, "Overhead against budget: %d graphs (geometric mean over "
             "the graphs planned)", graphs);
  }
  int points = 0;
  for (int i = 0; i < P.ns; i++) {
    if (P.s[i].n > 1) qsort(P.s[i].p, (size_t)P.s[i].n, sizeof(point), cmp_point);
    points += P.s[i].n;
  }
  if (!rc && !points) {
    mp_msgf(msg, cap, "no planned recomputation runs%s%s in the results", graph ? " of " : "",
             graph ? graph : "");
    rc = -1;
  }
  if (!rc) rc = mp_plot_each_out(out, draw, &P, msg, cap);
  for (int i = 0; i < P.ns; i++) free(P.s[i].p);
  free(P.s);
  mp_raggset_destroy(&set);
  mp_rows_destroy(rows, n);
  return rc;
}
