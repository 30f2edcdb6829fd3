/* plot_profile.c - `memplan plot profile`: the live memory of several
 * orders (each order solver or chain run here) and of event plans with
 * recomputation or offload (plan files), on one picture.
 *
 * Without plans the x axis is the step of the order, as DESIGN 1.3 counts
 * memory.  With plans it is the memory sample of DESIGN 6.3 (the start, then
 * each run or copy in), and each order is drawn as its keep-all event plan
 * (mp_events_from_order: the same peak).  The first plan's memory is split
 * by where its bytes came from: a first run, a recomputation, a copy back
 * from the host, each in its own colour. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "registry.h"
#include "schedbound.h"

typedef struct curve {
  char label[240];
  int64_t *y;       /* n values; value t covers [t, t + 1) */
  int n;
  int64_t peak;
} curve;

typedef struct profile {
  const mp_graph *g;
  const char *name;
  curve *c;
  int nc;
  bool samples;     /* x = memory samples (plans given), else steps */
  int64_t bound;    /* the min-cut bound: every order, no recomputation */
  int64_t floor;    /* the events floor: every plan (with plans) */
  int64_t *parts[3];/* the first plan's bytes by origin, or NULL */
  int n_parts;
} profile;

/* Curve colours: the palette, past the three origin colours (blue, orange,
 * green) when the first plan's memory is split by origin. */
static const double *curve_colour(const profile *P, int i) {
  return mp_palette[(i + (P->n_parts ? 3 : 0)) % MP_NPAL];
}

static void set_peak(curve *c) {
  c->peak = 0;
  for (int t = 0; t < c->n; t++)
    if (c->y[t] > c->peak) c->peak = c->y[t];
}

/* The curve of an order solver.  0, 1 when it gave no order (left out,
 * with a line on stderr), -1 on a usage error. */
static int order_curve(const mp_instance *in, const mp_run_spec *base, const char *order,
                       bool samples, curve *c, char *msg, size_t cap) {
  mp_run_spec spec = *base;
  spec.order = order;
  /* the profile depends on the order alone: a one-pass placer completes
   * the run (the default placer took 30 s on a 10^5-node training step) */
  const mp_solver *quick = mp_solver_with_role(MP_ROLE_QUICK_PLACE, MP_DECIDES_OFFSETS);
  spec.place = quick ? quick->name : NULL;
  spec.no_baseline = true;
  mp_result r;
  mp_err e = mp_run(in, &spec, &r);
  int rc = 0;
  if (e == MP_EUSAGE) {
    mp_msgf(msg, cap, "%s: %s", order, r.msg);
    rc = -1;
  } else if (e || !r.has_figures) { /* a refusal (size cap) or a failure */
    fprintf(stderr, "memplan plot: %s left out: %s\n", order, r.msg);
    rc = 1;
  } else if (samples) {
    mp_events ev;
    mp_events_init(&ev);
    mp_events_from_order(in->g, r.order, &ev);
    c->y = mp_events_samples(in->g, &ev, &c->n);
    mp_events_destroy(&ev);
  } else {
    c->y = mp_profile(&r.prob);
    c->n = in->g->n;
  }
  if (!rc) {
    snprintf(c->label, sizeof c->label, "%s", order);
    set_peak(c);
  }
  mp_result_destroy(&r);
  return rc;
}

/* The curve of a plan file (the first plan's parts kept). */
static int plan_curve(profile *P, const char *path, bool first, curve *c, char *msg, size_t cap) {
  mp_event_plan p;
  if (mp_event_plan_load(P->g, path, false, &p, msg, cap)) return -1;
  c->y = mp_events_samples(P->g, &p.ev, &c->n);
  snprintf(c->label, sizeof c->label, "%s", p.label);
  set_peak(c);
  if (first) {
    mp_event_plan_parts(&p, c->n, P->parts);
    P->n_parts = c->n;
  }
  mp_event_plan_destroy(&p);
  return 0;
}

static int collect(profile *P, const mp_instance *in, const char *const *orders, int no,
                   const char *const *plans, int np, const mp_run_spec *base, char *msg,
                   size_t cap) {
  P->c = mp_xcalloc((size_t)(no + np + 1), sizeof(curve));
  for (int i = 0; i < no; i++) {
    int r = order_curve(in, base, orders[i], P->samples, &P->c[P->nc], msg, cap);
    if (r < 0) return -1;
    if (r == 0) P->nc++;
  }
  for (int i = 0; i < np; i++)
    if (plan_curve(P, plans[i], i == 0, &P->c[P->nc++], msg, cap)) return -1;
  if (!P->nc) {
    mp_msgf(msg, cap, "%s: no solver gave an order", P->name);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ drawing */

static void frame(mp_canvas *c, const profile *P) {
  int64_t ymax = 1;
  int xmax = 1;
  for (int i = 0; i < P->nc; i++) {
    if (P->c[i].peak > ymax) ymax = P->c[i].peak;
    if (P->c[i].n > xmax) xmax = P->c[i].n;
  }
  c->x0 = 90, c->x1 = c->w - 380, c->y0 = 40, c->y1 = c->h - 55;
  c->dx0 = 0, c->dx1 = xmax, c->dy0 = 0, c->dy1 = (double)ymax * 1.08;
  double div;
  const char *un = mp_plot_unit((double)ymax, &div);
  char title[300], yl[64];
  snprintf(title, sizeof title, "Live memory: %s (%d nodes)", P->name, P->g->n);
  snprintf(yl, sizeof yl, "live bytes (%s)", un);
  mp_canvas_axes(c, title,
                 P->samples ? "memory sample (the start, then each run or copy in)"
                            : "step t (position in the order)",
                 yl, div);
}

/* The first plan's memory, stacked by origin, pale.  With more samples
 * than 4 per half-pixel column (mp_canvas_step_path), a column shows the
 * stack of its sample of most memory. */
static void draw_parts(mp_canvas *c, const profile *P) {
  cairo_t *cr = c->cr;
  int n = P->n_parts, cols = (int)mp_canvas_columns_for(c, n);
  for (int k = 2; k >= 0; k--) { /* each layer from the bottom to its top */
    const double *col = mp_origin_colour[k == 0 ? MP_RES_RUN : k == 1 ? MP_RES_RERUN : MP_RES_IN];
    cairo_set_source_rgba(cr, col[0], col[1], col[2], 0.28);
    for (int j = 0; j < cols; j++) {
      int t0 = (int)mp_canvas_column_lo(j, n, cols), t1 = (int)mp_canvas_column_lo(j + 1, n, cols), t = t0;
      double most = -1;
      for (int u = t0; u < t1; u++) {
        double sum = (double)P->parts[0][u] + (double)P->parts[1][u] + (double)P->parts[2][u];
        if (sum > most) most = sum, t = u;
      }
      double top = 0;
      for (int q = 0; q <= k; q++) top += (double)P->parts[q][t];
      double bottom = top - (double)P->parts[k][t];
      if (top <= bottom) continue;
      cairo_rectangle(cr, mp_cx(c, t0), mp_cy(c, top), mp_cx(c, t1) - mp_cx(c, t0),
                      mp_cy(c, bottom) - mp_cy(c, top));
    }
    cairo_fill(cr);
  }
}

static void draw_curve(mp_canvas *c, const curve *v, const double *col) {
  cairo_t *cr = c->cr;
  cairo_set_source_rgb(cr, col[0], col[1], col[2]);
  cairo_set_line_width(cr, 1.8);
  mp_canvas_step_path(c, v->y, v->n, 0);
  cairo_stroke(cr);
  for (int t = 0; t < v->n; t++) /* the peak */
    if (v->y[t] == v->peak) {
      cairo_arc(cr, mp_cx(c, t + 0.5), mp_cy(c, (double)v->peak), 4, 0, 2 * M_PI);
      cairo_fill(cr);
      break;
    }
}

static void hline(mp_canvas *c, int64_t y, const double *dash, double gray) {
  cairo_set_source_rgb(c->cr, gray, gray, gray);
  cairo_set_line_width(c->cr, 1.5);
  cairo_set_dash(c->cr, dash, 2, 0);
  cairo_move_to(c->cr, c->x0, mp_cy(c, (double)y));
  cairo_line_to(c->cr, c->x1, mp_cy(c, (double)y));
  cairo_stroke(c->cr);
  cairo_set_dash(c->cr, NULL, 0, 0);
}

static const double dash_bound[] = {7, 4}, dash_floor[] = {2, 3};

void mp_plot_bound_legend(char *out, size_t cap, int64_t bound, bool samples, double ytop) {
  char hb[64];
  mp_plot_human((double)bound, hb, sizeof hb);
  snprintf(out, cap, "min-cut bound %s%s%s", hb, samples ? " (orders)" : "",
           (double)bound > ytop ? ", above the chart" : "");
}

static void draw_legend(mp_canvas *c, const profile *P) {
  cairo_t *cr = c->cr;
  char lab[300], hb[64];
  int li = 0;
  for (int i = 0; i < P->nc; i++) {
    const double *col = curve_colour(P, i);
    cairo_set_source_rgb(cr, col[0], col[1], col[2]);
    mp_plot_human((double)P->c[i].peak, hb, sizeof hb);
    snprintf(lab, sizeof lab, "%.200s: peak %s", P->c[i].label, hb);
    mp_canvas_legend(c, li++, lab, false, false);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  mp_plot_bound_legend(lab, sizeof lab, P->bound, P->samples, c->dy1);
  mp_canvas_legend(c, li++, lab, true, false);
  if (P->samples) {
    cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
    mp_plot_human((double)P->floor, hb, sizeof hb);
    snprintf(lab, sizeof lab, "events floor %s (every plan)", hb);
    mp_canvas_legend(c, li++, lab, true, false);
  }
  static const char *const part[3] = {"first plan: from a first run", "first plan: recomputed",
                                      "first plan: brought back from host"};
  for (int k = 0; P->n_parts && k < 3; k++) {
    const double *col = mp_origin_colour[k == 0 ? MP_RES_RUN : k == 1 ? MP_RES_RERUN : MP_RES_IN];
    cairo_set_source_rgba(cr, col[0], col[1], col[2], 0.45);
    mp_canvas_legend(c, li++, part[k], false, true);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  mp_canvas_text(c, c->x1 + 14, c->y0 + 20 * li + 14, 10, "dots: where each peak occurs", 0, 0.5,
                 false);
}

static int draw(void *ctx, const char *path, FILE *fp, char *msg, size_t cap) {
  const profile *P = ctx;
  mp_canvas c;
  if (mp_canvas_open(&c, path, fp, 1140, 560, msg, cap)) return -1;
  frame(&c, P);
  cairo_save(c.cr);
  cairo_rectangle(c.cr, c.x0, c.y0, c.x1 - c.x0, c.y1 - c.y0);
  cairo_clip(c.cr);
  if (P->n_parts) draw_parts(&c, P);
  for (int i = 0; i < P->nc; i++) draw_curve(&c, &P->c[i], curve_colour(P, i));
  hline(&c, P->bound, dash_bound, 0);
  if (P->samples) hline(&c, P->floor, dash_floor, 0.45);
  cairo_restore(c.cr);
  draw_legend(&c, P);
  return mp_canvas_close(&c, msg, cap);
}

int mp_plot_profile(const char *file, const char *const *orders, int n_orders,
                    const char *const *plans, int n_plans, const mp_run_spec *base,
                    const char *out, char *msg, size_t cap) {
  mp_instance in;
  mp_error err;
  if (mp_instance_load(file, NULL, &in, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return -1;
  }
  int rc = 0;
  if (!in.g || in.g->n == 0) {
    mp_msgf(msg, cap, "%s: %s", file,
             in.g ? "an empty graph has no profile"
                  : "a profile over steps needs a graph (this is a fixed-lifetime file)");
    rc = -1;
  }
  profile P = {.g = in.g, .name = mp_instance_name(&in), .samples = n_plans > 0};
  if (!rc) {
    P.bound = mp_sched_lower_bound(in.g, NULL); /* the graph's, as the tables use it */
    P.floor = mp_events_floor(in.g);
    rc = collect(&P, &in, orders, n_orders, plans, n_plans, base, msg, cap);
  }
  if (!rc) rc = mp_plot_each_out(out, draw, &P, msg, cap);
  for (int i = 0; i < P.nc; i++) free(P.c[i].y);
  free(P.c);
  for (int k = 0; k < 3; k++) free(P.parts[k]);
  mp_instance_destroy(&in);
  return rc;
}
