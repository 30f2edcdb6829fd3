/* plot.h - `memplan plot` inside the harness: the pictures (plot.c:
 * profile, placement, pareto; plot_events.c: event plans read back;
 * plot_overhead.c: overhead against budget) and the drawing helpers they
 * share (plot_canvas.c).  The command line is cmd_plot.c. */
#ifndef MP_PLOT_H
#define MP_PLOT_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "events.h"
#include "run.h"

/* ---- canvas (plot_canvas.c) ---- */

typedef struct mp_canvas {
  cairo_surface_t *surf;
  cairo_t *cr;
  const char *path; /* the file's name, for messages and its format */
  FILE *fp;         /* where the picture goes */
  bool png;
  double w, h;
  /* plot area */
  double x0, y0, x1, y1;   /* device: left, top, right, bottom */
  double dx0, dx1, dy0, dy1; /* data ranges */
  bool xlog;
} mp_canvas;

/* NULL when path names a picture format (.svg, .png, .pdf), else why not. */
const char *mp_plot_format_error(const char *path);
/* A canvas for path (.svg, .png or .pdf: its format), w x h points, white;
 * the picture is written into fp. */
int mp_canvas_open(mp_canvas *c, const char *path, FILE *fp, double w, double h, char *msg,
                   size_t cap);
/* Write it into fp and free it. */
int mp_canvas_close(mp_canvas *c, char *msg, size_t cap);
/* One picture of ctx drawn into the file `path` (open as fp); 0, or -1 with msg. */
typedef int (*mp_plot_draw_fn)(void *ctx, const char *path, FILE *fp, char *msg, size_t cap);
/* --out may name several files ("a.svg,a.png"): draw into each; every file
 * is written, or (on any failure) none is changed.  0; -1 with msg; -2 with
 * msg when a file could not be opened or put in place. */
int mp_plot_each_out(const char *outs, mp_plot_draw_fn draw, void *ctx, char *msg,
                     size_t cap);
/* Data to device coordinates. */
double mp_cx(const mp_canvas *c, double x);
double mp_cy(const mp_canvas *c, double y);
/* A step curve as one path, not stroked: y[t] over [x0 + t, x0 + t + 1) in
 * data x, t < n.  A curve of more than 4 values per half-pixel column of
 * the plot is reduced column by column to its first value, its extremes in
 * the order they occur and its last (the M4 reduction of Jugel et al.,
 * VLDB 2014): the picture keeps every extreme, and a 10^6-step curve is a
 * file of kilobytes.  Columns: mp_canvas_columns(c); column j holds
 * values [mp_canvas_column_lo(j, n, cols), mp_canvas_column_lo(j + 1, n, cols)). */
void mp_canvas_step_path(mp_canvas *c, const int64_t *y, int64_t n, double x0);
int mp_canvas_columns(const mp_canvas *c);
/* The columns n values are drawn in: n when they are drawn whole, else
 * mp_canvas_columns(c). */
int64_t mp_canvas_columns_for(const mp_canvas *c, int64_t n);
int64_t mp_canvas_column_lo(int64_t j, int64_t n, int cols);
/* Text anchored at (x, y): ha, va in [0, 1] (0 = left / top). */
void mp_canvas_text(mp_canvas *c, double x, double y, double size, const char *s, double ha,
                    double va, bool bold);
void mp_canvas_vtext(mp_canvas *c, double x, double y, double size, const char *s);
/* Axes, grid and labels; y values are shown divided by ydiv. */
void mp_canvas_axes(mp_canvas *c, const char *title, const char *xlabel, const char *ylabel,
                    double ydiv);
/* Legend entry i at the right of the plot area in the current colour: a
 * line (dashed or not) or a box. */
void mp_canvas_legend(mp_canvas *c, int i, const char *label, bool dashed, bool box);
/* A byte unit for values up to max (its divisor in *div), and a byte count
 * as text ("12.00 MiB"). */
const char *mp_plot_unit(double max, double *div);
void mp_plot_human(double b, char *out, size_t cap);

#define MP_NPAL 10
extern const double mp_palette[MP_NPAL][3];

/* ---- event plans read back (plot_events.c) ---- */

typedef struct mp_event_plan {
  mp_events ev;
  double bandwidth;         /* the plan's, else the graph's host_bandwidth */
  int64_t align;
  mp_problem prob;          /* the residencies (mp_events_problem) */
  mp_residency *res;        /* where each began */
  int64_t *offsets;         /* one per residency (NULL unless asked for) */
  char label[200];          /* "rotor, budget 12.00 MiB" from the plan's header */
} mp_event_plan;

/* Does the plan file hold an "events" array (a plan with recomputation)? */
bool mp_plan_file_has_events(const char *path);
/* Read a plan file with events and check it with the model: the events
 * verify (DESIGN 6.2), and with need_offsets every residency has an offset
 * (by its id) and the placement verifies.  0, or -1 with msg naming the
 * file. */
int mp_event_plan_load(const mp_graph *g, const char *path, bool need_offsets, mp_event_plan *p,
                       char *msg, size_t cap);
void mp_event_plan_destroy(mp_event_plan *p);
/* The memory of an event plan at each residency time: the start, then
 * each run or in (1 + runs + ins; malloc'ed, *n).  Without an input node
 * the start is no sample of DESIGN 6.3 and holds 0. */
int64_t *mp_events_samples(const mp_graph *g, const mp_events *ev, int *n);
/* The bytes of each of the n samples by origin: parts[0] first runs and
 * the start, parts[1] recomputations, parts[2] copies back (malloc'ed). */
void mp_event_plan_parts(const mp_event_plan *p, int n, int64_t *parts[3]);

/* Colours of the residencies by origin (indexed by mp_res_origin), and the
 * part of the profile an origin counts in (0, 1, 2). */
#define MP_N_ORIGINS 4
extern const double mp_origin_colour[MP_N_ORIGINS][3];
int mp_origin_part(mp_res_origin o);

/* ---- the pictures ---- */

/* Each returns 0, or with msg -1 (an input, a request, nothing to draw) or
 * -2 (an output not created or put in place: mp_plot_each_out). */

/* The profile's legend entry of the min-cut bound (over memory samples:
 * "(orders)"); above ytop, the top of the chart, it says so: the line is
 * not drawn (event plans peak below the bound of every order). */
void mp_plot_bound_legend(char *out, size_t cap, int64_t bound, bool samples, double ytop);
/* Memory profile of each order (over steps; over memory samples when
 * plans are given, the orders then drawn as their keep-all event plans)
 * and of each event plan; the first plan's memory split by origin. */
int mp_plot_profile(const char *file, const char *const *orders, int n_orders,
                    const char *const *plans, int n_plans, const mp_run_spec *base,
                    const char *out, char *msg, size_t cap);
/* Placement chart of a plan file (with or without events) or of a run. */
int mp_plot_placement(const char *file, const char *plan, const mp_run_spec *spec,
                      const char *out, char *msg, size_t cap);
/* Arena against planning time, Pareto front marked. */
int mp_plot_pareto(const char *const *in, int nin, const char *graph, bool best,
                   const char *out, char *msg, size_t cap);
/* Overhead against budget, one curve per solver (plot_overhead.c): one
 * graph, or (graph NULL) the geometric mean over the graphs planned. */
int mp_plot_overhead(const char *const *in, int nin, const char *graph, bool best,
                     double limit, const char *out, char *msg, size_t cap);

#endif
