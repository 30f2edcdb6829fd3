/* plot.c - `memplan plot pareto`: the arena of every solver on one graph
 * against its planning time (medians over seeds, or the best run), the
 * Pareto front marked.  The other pictures: plot_profile.c,
 * plot_placement.c, plot_overhead.c; the command line: cmd_plot.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "plot.h"

/* ------------------------------------------------------------ pareto */

static int cmp_time(const void *a, const void *b) {
  const mp_agg *x = *(const mp_agg *const *)a, *y = *(const mp_agg *const *)b;
  if (x->plan_ms != y->plan_ms) return x->plan_ms < y->plan_ms ? -1 : 1;
  if (x->arena != y->arena) return x->arena < y->arena ? -1 : 1;
  return strcmp(x->label, y->label);
}

/* The rows of one graph (by name or path) from the results files. */
static int graph_rows(const char *const *in, int nin, const char *graph, mp_row **rows_out, int *n_out,
                      char *msg, size_t cap) {
  mp_row *rows = NULL;
  int n = 0, rc = 0;
  for (int i = 0; i < nin && !rc; i++) rc = mp_rows_load(in[i], &rows, &n, msg, cap);
  if (rc) {
    mp_rows_destroy(rows, n);
    return -1;
  }
  int w = 0;
  for (int i = 0; i < n; i++) {
    if ((rows[i].graph && !strcmp(rows[i].graph, graph)) || !strcmp(rows[i].path, graph))
      rows[w++] = rows[i];
    else
      mp_row_destroy(&rows[i]);
  }
  *rows_out = rows;
  *n_out = w;
  return 0;
}

/* Sorted by time, front[i] marks the points no faster one beats on arena;
 * the axes span every point and the bound. */
static void pareto_front_and_axes(mp_canvas *c, const mp_agg **pt, int np, bool *front) {
  qsort(pt, (size_t)np, sizeof(*pt), cmp_time);
  int64_t best_arena = -1;
  double tmin = 1e300, tmax = 0;
  int64_t amin = pt[0]->arena, amax = pt[0]->arena;
  for (int i = 0; i < np; i++) {
    if (best_arena < 0 || pt[i]->arena < best_arena) {
      front[i] = true;
      best_arena = pt[i]->arena;
    }
    double t = fmax(pt[i]->plan_ms, 1e-3);
    tmin = fmin(tmin, t);
    tmax = fmax(tmax, t);
    if (pt[i]->arena < amin) amin = pt[i]->arena;
    if (pt[i]->arena > amax) amax = pt[i]->arena;
  }
  int64_t bound = pt[0]->bound;
  if (bound > 0 && bound < amin) amin = bound;
  c->x0 = 90;
  c->x1 = c->w - 40;
  c->y0 = 40;
  c->y1 = c->h - 55;
  c->xlog = true;
  c->dx0 = pow(10, floor(log10(tmin)));
  c->dx1 = pow(10, ceil(log10(tmax * 1.01)));
  if (c->dx1 <= c->dx0) c->dx1 = c->dx0 * 10;
  double span = (double)(amax - amin);
  if (span <= 0) span = fmax(1, (double)amax * 0.1);
  c->dy0 = fmax(0, (double)amin - 0.08 * span);
  c->dy1 = (double)amax + 0.12 * span;
}

/* The lower bound as a dashed line, labelled with its kind. */
static void draw_bound(mp_canvas *c, const mp_agg *p) {
  cairo_t *cr = c->cr;
  int64_t bound = p->bound;
  double d[] = {7, 4};
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  cairo_set_dash(cr, d, 2, 0);
  cairo_move_to(cr, c->x0, mp_cy(c, (double)bound));
  cairo_line_to(cr, c->x1, mp_cy(c, (double)bound));
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  char hb[64], lab[200];
  mp_plot_human((double)bound, hb, sizeof hb);
  snprintf(lab, sizeof lab, "bound %s (%s%s)", hb, p->bound_kind,
           p->bound_proven ? ", raised to a proven optimum" : "");
  /* under the line: no point is below the bound, and front labels sit above their points */
  mp_canvas_text(c, c->x1 - 6, mp_cy(c, (double)bound) + 7, 10, lab, 1, 1, false);
}

/* The front as a staircase, then every point (the front's labelled). */
static void draw_points(mp_canvas *c, const mp_agg *const *pt, int np, const bool *front) {
  cairo_t *cr = c->cr;
  cairo_set_source_rgb(cr, 0.84, 0.15, 0.16);
  cairo_set_line_width(cr, 2);
  bool started = false;
  double py = 0;
  for (int i = 0; i < np; i++) {
    if (!front[i]) continue;
    double x = mp_cx(c, fmax(pt[i]->plan_ms, 1e-3)), y = mp_cy(c, (double)pt[i]->arena);
    if (!started) {
      cairo_move_to(cr, x, y);
      started = true;
    } else {
      cairo_line_to(cr, x, py);
      cairo_line_to(cr, x, y);
    }
    py = y;
  }
  cairo_line_to(cr, c->x1, py);
  cairo_stroke(cr);
  for (int i = 0; i < np; i++) {
    double x = mp_cx(c, fmax(pt[i]->plan_ms, 1e-3)), y = mp_cy(c, (double)pt[i]->arena);
    if (front[i])
      cairo_set_source_rgb(cr, 0.84, 0.15, 0.16);
    else
      cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
    cairo_arc(cr, x, y, front[i] ? 5 : 3.5, 0, 2 * M_PI);
    cairo_fill(cr);
    if (!front[i]) continue;
    cairo_set_source_rgb(cr, 0, 0, 0);
    mp_canvas_text(c, x + 7, y - 8, 10, pt[i]->label, 0, 0.5, true);
  }
}

/* What a pareto picture shows. */
typedef struct pareto_pic {
  const mp_agg **pt;
  int np, n_base;
  const char *graph;
  bool best;
} pareto_pic;

/* One picture of the points into file o1 (open as fp). */
static int pareto_picture(void *ctx, const char *o1, FILE *fp, char *msg, size_t cap) {
  const pareto_pic *q = ctx;
  const mp_agg **pt = q->pt;
  int np = q->np, n_base = q->n_base;
  const char *graph = q->graph;
  bool best = q->best;
  mp_canvas c;
  int rc = mp_canvas_open(&c, o1, fp, 1000, 600, msg, cap);
  if (rc) return rc;
  bool *front = mp_xcalloc((size_t)np, sizeof(bool));
  pareto_front_and_axes(&c, pt, np, front);
  int64_t amax = pt[0]->arena;
  for (int i = 0; i < np; i++)
    if (pt[i]->arena > amax) amax = pt[i]->arena;
  double div;
  const char *un = mp_plot_unit((double)amax, &div);
  char title[300], yl[64];
  snprintf(title, sizeof title, "Arena vs planning time: %s (%s over seeds)", graph,
           best ? "best" : "median");
  snprintf(yl, sizeof yl, "arena (%s)", un);
  mp_canvas_axes(&c, title, "planning time (ms, log scale)", yl, div);
  if (pt[0]->bound > 0) draw_bound(&c, pt[0]);
  draw_points(&c, pt, np, front);
  char note[200];
  int nf = 0;
  for (int i = 0; i < np; i++) nf += front[i];
  snprintf(note, sizeof note,
           "red, labelled: Pareto front (no other solver is both faster and smaller); "
           "gray: %d dominated solvers%s",
           np - nf, n_base ? "; placements that share nothing left out" : "");
  mp_canvas_text(&c, c.x0 + 8, c.y0 + 12, 10, note, 0, 0.5, false);
  free(front);
  return mp_canvas_close(&c, msg, cap);
}

int mp_plot_pareto(const char *const *in, int nin, const char *graph, bool best,
                   const char *out, char *msg, size_t cap) {
  mp_row *rows = NULL;
  int n = 0;
  if (graph_rows(in, nin, graph, &rows, &n, msg, cap)) return -1;
  mp_aggset set;
  mp_agg_opts ao = {best, false};
  mp_aggregate(rows, n, &ao, &set);
  const mp_agg **pt = mp_xmalloc(sizeof(*pt) * (size_t)(set.n ? set.n : 1));
  int np = 0;
  /* a placement that shares nothing (no reuse at all: reduction_vs_noreuse
   * is 0) would squash the axis */
  int n_base = 0;
  for (int i = 0; i < set.n; i++) {
    if (!set.a[i].ok) continue;
    if (set.a[i].red_noreuse <= 0) {
      n_base++;
      continue;
    }
    pt[np++] = &set.a[i];
  }
  int rc = 0;
  if (!np) {
    mp_msgf(msg, cap, "no planned runs of graph '%s' in the results", graph);
    rc = -1;
  }
  pareto_pic q = {pt, np, n_base, graph, best};
  if (!rc) rc = mp_plot_each_out(out, pareto_picture, &q, msg, cap);
  free(pt);
  mp_aggset_destroy(&set);
  mp_rows_destroy(rows, n);
  return rc;
}
