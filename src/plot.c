/* plot.c - `memplan plot`: pictures drawn with cairo (SVG, PNG or PDF by
 * the extension of --out).
 *   profile GRAPH --solvers given,greedy,...   M(t) of several orders, bound marked
 *   placement FILE [--plan PLAN | --order X --place Y]  time x address, peak marked
 *   pareto RESULTS... --graph NAME             arena against planning time, front marked */
#define _POSIX_C_SOURCE 200809L
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "schedbound.h"
#include "cli.h"
#include "run.h"

/* ------------------------------------------------------------ canvas */

typedef struct canvas {
  cairo_surface_t *surf;
  cairo_t *cr;
  char *path, *tmp;
  bool png;
  double w, h;
  /* plot area */
  double x0, y0, x1, y1;   /* device: left, top, right, bottom */
  double dx0, dx1, dy0, dy1; /* data ranges */
  bool xlog;
} canvas;

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static int canvas_open(canvas *c, const char *path, double w, double h, char *msg, size_t cap) {
  memset(c, 0, sizeof *c);
  c->w = w;
  c->h = h;
  c->path = strdup(path);
  c->tmp = malloc(strlen(path) + 32);
  sprintf(c->tmp, "%s.tmp%ld", path, (long)getpid());
  if (ends_with(path, ".png")) {
    c->png = true;
    c->surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h);
  } else if (ends_with(path, ".pdf")) {
    c->surf = cairo_pdf_surface_create(c->tmp, w, h);
  } else if (ends_with(path, ".svg")) {
    c->surf = cairo_svg_surface_create(c->tmp, w, h);
  } else {
    snprintf(msg, cap, "%s: the extension must be .svg, .png or .pdf", path);
    free(c->path);
    free(c->tmp);
    return -1;
  }
  if (cairo_surface_status(c->surf) != CAIRO_STATUS_SUCCESS) {
    snprintf(msg, cap, "%s: %s", path, cairo_status_to_string(cairo_surface_status(c->surf)));
    cairo_surface_destroy(c->surf);
    free(c->path);
    free(c->tmp);
    return -1;
  }
  c->cr = cairo_create(c->surf);
  cairo_set_source_rgb(c->cr, 1, 1, 1);
  cairo_paint(c->cr);
  cairo_select_font_face(c->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  return 0;
}

static int canvas_close(canvas *c, char *msg, size_t cap) {
  int rc = 0;
  cairo_destroy(c->cr);
  if (c->png) {
    if (cairo_surface_write_to_png(c->surf, c->tmp) != CAIRO_STATUS_SUCCESS) rc = -1;
    cairo_surface_destroy(c->surf);
  } else {
    cairo_surface_finish(c->surf);
    if (cairo_surface_status(c->surf) != CAIRO_STATUS_SUCCESS) rc = -1;
    cairo_surface_destroy(c->surf);
  }
  if (rc || rename(c->tmp, c->path)) {
    snprintf(msg, cap, "%s: cannot write", c->path);
    unlink(c->tmp);
    rc = -1;
  }
  free(c->path);
  free(c->tmp);
  return rc;
}

/* --out may name several files ("a.svg,a.png"): the same picture in each. */
static int n_outs(const char *list) {
  int n = 1;
  for (const char *c = list; *c; c++) n += *c == ',';
  return n;
}
static void nth_out(const char *list, int i, char *buf, size_t cap) {
  const char *p = list;
  for (int k = 0; k < i; k++) p = strchr(p, ',') + 1;
  size_t l = strcspn(p, ",");
  snprintf(buf, cap, "%.*s", (int)(l < cap ? l : cap - 1), p);
}

static double X(const canvas *c, double x) {
  if (c->xlog) {
    double a = log10(c->dx0), b = log10(c->dx1);
    return c->x0 + (log10(x) - a) / (b - a) * (c->x1 - c->x0);
  }
  return c->x0 + (x - c->dx0) / (c->dx1 - c->dx0) * (c->x1 - c->x0);
}
static double Y(const canvas *c, double y) {
  return c->y1 - (y - c->dy0) / (c->dy1 - c->dy0) * (c->y1 - c->y0);
}

static void text(canvas *c, double x, double y, double size, const char *s, double ha, double va,
                 bool bold) {
  cairo_select_font_face(c->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(c->cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(c->cr, s, &e);
  cairo_move_to(c->cr, x - ha * e.width - e.x_bearing, y + va * e.height - (e.height + e.y_bearing));
  cairo_show_text(c->cr, s);
}

static void vtext(canvas *c, double x, double y, double size, const char *s) {
  cairo_save(c->cr);
  cairo_translate(c->cr, x, y);
  cairo_rotate(c->cr, -M_PI / 2);
  cairo_set_source_rgb(c->cr, 0, 0, 0);
  text(c, 0, 0, size, s, 0.5, 0.5, false);
  cairo_restore(c->cr);
}

static double nice_step(double range, int target) {
  double raw = range / target, p = pow(10, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

static const char *unit_name(double max, double *div) {
  static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  *div = 1;
  while (i < 4 && max >= 1024 * *div) {
    *div *= 1024;
    i++;
  }
  return u[i];
}

static void fmt_tick(double v, double step, char *out, size_t cap) {
  int prec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
  if (prec > 6) prec = 6;
  snprintf(out, cap, "%.*f", prec, fabs(v) < 1e-12 ? 0.0 : v);
}

/* Axes, grid and labels.  y values are bytes shown in ydiv units. */
static void axes(canvas *c, const char *title, const char *xlabel, const char *ylabel, double ydiv) {
  cairo_t *cr = c->cr;
  cairo_set_line_width(cr, 1);
  /* y grid */
  double ys = nice_step((c->dy1 - c->dy0) / ydiv, 6) * ydiv;
  char buf[64];
  for (double v = ceil(c->dy0 / ys) * ys; v <= c->dy1 + 1e-9 * ys; v += ys) {
    double y = Y(c, v);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, c->x0, y);
    cairo_line_to(cr, c->x1, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    fmt_tick(v / ydiv, ys / ydiv, buf, sizeof buf);
    text(c, c->x0 - 6, y, 11, buf, 1, 0.5, false);
  }
  /* x grid */
  if (c->xlog) {
    for (double d = pow(10, floor(log10(c->dx0))); d <= c->dx1 * 1.0001; d *= 10) {
      if (d < c->dx0 * 0.9999) continue;
      double x = X(c, d);
      cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
      cairo_move_to(cr, x, c->y0);
      cairo_line_to(cr, x, c->y1);
      cairo_stroke(cr);
      cairo_set_source_rgb(cr, 0, 0, 0);
      snprintf(buf, sizeof buf, "%g", d);
      text(c, x, c->y1 + 6, 11, buf, 0.5, 1, false);
    }
  } else {
    double xs = nice_step(c->dx1 - c->dx0, 8);
    for (double v = ceil(c->dx0 / xs) * xs; v <= c->dx1 + 1e-9 * xs; v += xs) {
      double x = X(c, v);
      cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
      cairo_move_to(cr, x, c->y0);
      cairo_line_to(cr, x, c->y1);
      cairo_stroke(cr);
      cairo_set_source_rgb(cr, 0, 0, 0);
      fmt_tick(v, xs, buf, sizeof buf);
      text(c, x, c->y1 + 6, 11, buf, 0.5, 1, false);
    }
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, c->x0, c->y0, c->x1 - c->x0, c->y1 - c->y0);
  cairo_stroke(cr);
  text(c, (c->x0 + c->x1) / 2, 16, 15, title, 0.5, 0.5, true);
  text(c, (c->x0 + c->x1) / 2, c->h - 16, 12, xlabel, 0.5, 0.5, false);
  vtext(c, 18, (c->y0 + c->y1) / 2, 12, ylabel);
}

static const double palette[][3] = {
    {0.12, 0.47, 0.71}, {1.00, 0.50, 0.05}, {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16},
    {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50},
    {0.74, 0.74, 0.13}, {0.09, 0.75, 0.81}};
#define NPAL ((int)(sizeof palette / sizeof palette[0]))

static void legend(canvas *c, int i, const char *label, bool dashed, bool box) {
  double x = c->x1 + 14, y = c->y0 + 10 + 20 * i;
  cairo_t *cr = c->cr;
  if (box) {
    cairo_rectangle(cr, x, y - 6, 22, 12);
    cairo_fill(cr);
  } else {
    cairo_set_line_width(cr, 2.5);
    if (dashed) {
      double d[] = {6, 4};
      cairo_set_dash(cr, d, 2, 0);
    }
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x + 22, y);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  text(c, x + 28, y, 11, label, 0, 0.5, false);
}

static void human(double b, char *out, size_t cap) {
  double d;
  const char *u = unit_name(b, &d);
  snprintf(out, cap, d == 1 ? "%.0f %s" : "%.2f %s", b / d, u);
}

/* ------------------------------------------------------------ profile */

static int plot_profile(const char *file, char **solvers, int ns, const mp_run_spec *base,
                        const char *out, char *msg, size_t cap) {
  mp_instance in;
  mp_error err;
  if (mp_instance_load(file, NULL, &in, &err)) {
    snprintf(msg, cap, "%s", err.msg);
    return -1;
  }
  if (!in.g) {
    snprintf(msg, cap, "%s: a profile over steps needs a graph (this is a fixed-lifetime file)", file);
    mp_instance_destroy(&in);
    return -1;
  }
  int64_t **prof = mp_xcalloc((size_t)ns, sizeof(int64_t *));
  int64_t *peak = mp_xcalloc((size_t)ns, sizeof(int64_t));
  int steps = in.g->n, rc = 0, n_ok = 0;
  /* the graph's independent bound, as the tables use it */
  int64_t bound = mp_sched_lower_bound(in.g, NULL), ymax = 1;
  for (int i = 0; i < ns && !rc; i++) {
    mp_run_spec spec = *base;
    spec.order = solvers[i];
    spec.place = NULL; /* the profile depends on the order alone */
    spec.no_baseline = true;
    mp_result r;
    mp_err e = mp_run(&in, &spec, &r);
    if (e == MP_EUSAGE) {
      snprintf(msg, cap, "%s: %s", solvers[i], r.msg);
      rc = -1;
    } else if (e || !r.has_figures) {
      /* a refusal (size cap) or a failure: leave this solver out */
      fprintf(stderr, "memplan plot: %s left out: %s\n", solvers[i], r.msg);
    } else {
      n_ok++;
      prof[i] = mp_profile(&r.prob);
      peak[i] = r.fig.live_peak;
      if (peak[i] > ymax) ymax = peak[i];
    }
    mp_result_destroy(&r);
  }
  if (!rc && steps == 0) {
    snprintf(msg, cap, "%s: an empty graph has no profile", file);
    rc = -1;
  }
  if (!rc && n_ok == 0) {
    snprintf(msg, cap, "%s: no solver gave an order", file);
    rc = -1;
  }
  for (int oi = 0; !rc && oi < n_outs(out); oi++) {
    char o1[1024];
    nth_out(out, oi, o1, sizeof o1);
    canvas c;
    if ((rc = canvas_open(&c, o1, 1000, 560, msg, cap))) break;
    c.x0 = 90;
    c.x1 = c.w - 260;
    c.y0 = 40;
    c.y1 = c.h - 55;
    c.dx0 = 0;
    c.dx1 = steps;
    c.dy0 = 0;
    c.dy1 = (double)ymax * 1.08;
    double div;
    const char *un = unit_name((double)ymax, &div);
    char title[300], yl[64];
    snprintf(title, sizeof title, "Live memory M(t): %s (%d nodes)", mp_instance_name(&in), steps);
    snprintf(yl, sizeof yl, "live bytes (%s)", un);
    axes(&c, title, "step t (position in the order)", yl, div);
    cairo_t *cr = c.cr;
    cairo_save(cr);
    cairo_rectangle(cr, c.x0, c.y0, c.x1 - c.x0, c.y1 - c.y0);
    cairo_clip(cr);
    for (int i = 0; i < ns; i++) {
      if (!prof[i]) continue;
      const double *col = palette[i % NPAL];
      cairo_set_source_rgb(cr, col[0], col[1], col[2]);
      cairo_set_line_width(cr, 1.8);
      cairo_move_to(cr, X(&c, 0), Y(&c, (double)prof[i][0]));
      for (int t = 0; t < steps; t++) {
        cairo_line_to(cr, X(&c, t), Y(&c, (double)prof[i][t]));
        cairo_line_to(cr, X(&c, t + 1), Y(&c, (double)prof[i][t]));
      }
      cairo_stroke(cr);
      /* the peak */
      for (int t = 0; t < steps; t++)
        if (prof[i][t] == peak[i]) {
          cairo_arc(cr, X(&c, t + 0.5), Y(&c, (double)peak[i]), 4, 0, 2 * M_PI);
          cairo_fill(cr);
          break;
        }
    }
    /* lower bound */
    double d[] = {7, 4};
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1.5);
    cairo_set_dash(cr, d, 2, 0);
    cairo_move_to(cr, c.x0, Y(&c, (double)bound));
    cairo_line_to(cr, c.x1, Y(&c, (double)bound));
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_restore(cr);
    char lab[300], hb[64];
    int li = 0;
    for (int i = 0; i < ns; i++) {
      if (!prof[i]) continue;
      const double *col = palette[i % NPAL];
      cairo_set_source_rgb(cr, col[0], col[1], col[2]);
      human((double)peak[i], hb, sizeof hb);
      snprintf(lab, sizeof lab, "%s: peak %s", solvers[i], hb);
      legend(&c, li++, lab, false, false);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    human((double)bound, hb, sizeof hb);
    snprintf(lab, sizeof lab, "min-cut lower bound %s", hb);
    legend(&c, li, lab, true, false);
    text(&c, c.x1 + 14, c.y0 + 20 * (li + 1) + 14, 10, "dots: where each peak occurs", 0, 0.5,
         false);
    rc = canvas_close(&c, msg, cap);
  }
  for (int i = 0; i < ns; i++) free(prof[i]);
  free(prof);
  free(peak);
  mp_instance_destroy(&in);
  return rc;
}

/* ------------------------------------------------------------ placement */

/* Read a plan file into (problem, offsets): DESIGN 1.5 JSON for graphs,
 * MiniMalloc CSV with offsets for fixed-lifetime problems. */
static int load_plan(const mp_instance *in, const char *plan, mp_problem *p, int64_t **off,
                     char *msg, size_t cap) {
  mp_error err;
  if (mp_plan_verify(in, plan, 0, &err)) {
    snprintf(msg, cap, "%s", err.msg);
    return -1;
  }
  if (!in->g) {
    if (mp_csv_read(plan, p, &err)) {
      snprintf(msg, cap, "%s", err.msg);
      return -1;
    }
    *off = mp_xmalloc(sizeof(int64_t) * (size_t)(p->n ? p->n : 1));
    for (int i = 0; i < p->n; i++) (*off)[i] = p->items[i].fixed;
    return 0;
  }
  const mp_graph *g = in->g;
  json_t *o = json_load_file(plan, 0, NULL);
  json_t *jo = json_object_get(o, "order"), *joff = json_object_get(o, "offsets");
  int *order = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  for (int i = 0; i < g->n; i++) order[i] = (int)json_integer_value(json_array_get(jo, (size_t)i));
  int64_t align = json_is_integer(json_object_get(o, "align"))
                      ? json_integer_value(json_object_get(o, "align"))
                      : 64;
  mp_problem_from_order(g, order, align, p);
  *off = mp_xmalloc(sizeof(int64_t) * (size_t)(g->n_buf ? g->n_buf : 1));
  char key[48];
  for (int b = 0; b < g->n_buf; b++) {
    mp_buffer_key(g, b, key, sizeof key);
    json_t *x = json_object_get(joff, key);
    if (!x) {
      snprintf(key + strlen(key), sizeof key - strlen(key), ":0");
      x = json_object_get(joff, key);
    }
    (*off)[b] = json_integer_value(x);
  }
  free(order);
  json_decref(o);
  return 0;
}

static int plot_placement(const char *file, const char *plan, const mp_run_spec *spec,
                          const char *out, char *msg, size_t cap) {
  mp_instance in;
  mp_error err;
  if (mp_instance_load(file, NULL, &in, &err)) {
    snprintf(msg, cap, "%s", err.msg);
    return -1;
  }
  mp_problem p;
  memset(&p, 0, sizeof p);
  int64_t *off = NULL;
  mp_result r;
  memset(&r, 0, sizeof r);
  bool from_run = !plan;
  char sub[400];
  int rc = 0;
  if (plan) {
    rc = load_plan(&in, plan, &p, &off, msg, cap);
    snprintf(sub, sizeof sub, "plan %.300s", plan);
  } else {
    if (mp_run(&in, spec, &r) || !r.has_figures) {
      snprintf(msg, cap, "%s", r.msg);
      rc = -1;
    } else {
      p = r.prob;
      off = r.offsets;
      snprintf(sub, sizeof sub, "%s + %s", r.order_name, r.place_name);
    }
  }
  if (!rc && p.n == 0) {
    snprintf(msg, cap, "%s: no buffers to draw", file);
    rc = -1;
  }
  for (int oi = 0; !rc && oi < n_outs(out); oi++) {
    char o1[1024];
    nth_out(out, oi, o1, sizeof o1);
    canvas c;
    if ((rc = canvas_open(&c, o1, 1100, 620, msg, cap))) break;
    int64_t arena = mp_arena(&p, off), peak = mp_live_peak(&p);
    int64_t *prof = mp_profile(&p);
    int64_t tb = p.t_begin, te = p.t_end, tpeak = tb;
    for (int64_t t = tb; t < te; t++)
      if (prof[t - tb] == peak) {
        tpeak = t;
        break;
      }
    c.x0 = 90;
    c.x1 = c.w - 250;
    c.y0 = 40;
    c.y1 = c.h - 55;
    c.dx0 = (double)tb;
    c.dx1 = (double)(te > tb ? te : tb + 1);
    c.dy0 = 0;
    c.dy1 = (double)(arena > 0 ? arena : 1) * 1.05;
    double div;
    const char *un = unit_name((double)arena, &div);
    char title[600], yl[64];
    snprintf(title, sizeof title, "Placement: %.150s (%s)", mp_instance_name(&in), sub);
    snprintf(yl, sizeof yl, "address (%s)", un);
    axes(&c, title, in.g ? "step t" : "time", yl, div);
    cairo_t *cr = c.cr;
    cairo_save(cr);
    cairo_rectangle(cr, c.x0, c.y0, c.x1 - c.x0, c.y1 - c.y0);
    cairo_clip(cr);
    /* buffers alive at the peak are saturated, the others pale */
    for (int i = 0; i < p.n; i++) {
      const mp_item *it = &p.items[i];
      if (it->size == 0 || it->hi <= it->lo) continue;
      bool at_peak = it->lo <= tpeak && tpeak < it->hi;
      const double *col = palette[i % NPAL];
      double k = at_peak ? 1.0 : 0.35;
      cairo_set_source_rgb(cr, 1 - k * (1 - col[0]), 1 - k * (1 - col[1]), 1 - k * (1 - col[2]));
      double x = X(&c, (double)it->lo), w = X(&c, (double)it->hi) - x;
      double y = Y(&c, (double)(off[i] + it->size)), h = Y(&c, (double)off[i]) - y;
      cairo_rectangle(cr, x, y, w, h);
      cairo_fill_preserve(cr);
      cairo_set_source_rgba(cr, 0, 0, 0, at_peak ? 0.9 : 0.35);
      cairo_set_line_width(cr, at_peak ? 1.0 : 0.5);
      cairo_stroke(cr);
    }
    /* live profile, arena, the peak moment */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1.5);
    cairo_move_to(cr, X(&c, (double)tb), Y(&c, (double)prof[0]));
    for (int64_t t = tb; t < te; t++) {
      cairo_line_to(cr, X(&c, (double)t), Y(&c, (double)prof[t - tb]));
      cairo_line_to(cr, X(&c, (double)(t + 1)), Y(&c, (double)prof[t - tb]));
    }
    cairo_stroke(cr);
    double d[] = {7, 4};
    cairo_set_dash(cr, d, 2, 0);
    cairo_set_source_rgb(cr, 0.8, 0, 0);
    cairo_move_to(cr, c.x0, Y(&c, (double)arena));
    cairo_line_to(cr, c.x1, Y(&c, (double)arena));
    cairo_stroke(cr);
    double d2[] = {2, 3};
    cairo_set_dash(cr, d2, 2, 0);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_move_to(cr, X(&c, (double)tpeak + 0.5), c.y0);
    cairo_line_to(cr, X(&c, (double)tpeak + 0.5), c.y1);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_restore(cr);
    char lab[200], hb[64];
    cairo_set_source_rgb(cr, palette[0][0], palette[0][1], palette[0][2]);
    legend(&c, 0, "buffer live at the peak", false, true);
    cairo_set_source_rgb(cr, 0.77, 0.86, 0.92);
    legend(&c, 1, "other buffer", false, true);
    cairo_set_source_rgb(cr, 0, 0, 0);
    human((double)peak, hb, sizeof hb);
    snprintf(lab, sizeof lab, "live M(t), peak %s", hb);
    legend(&c, 2, lab, false, false);
    cairo_set_source_rgb(cr, 0.8, 0, 0);
    human((double)arena, hb, sizeof hb);
    snprintf(lab, sizeof lab, "arena %s", hb);
    legend(&c, 3, lab, true, false);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    snprintf(lab, sizeof lab, "peak moment t = %lld", (long long)tpeak);
    legend(&c, 4, lab, true, false);
    int n_at = 0;
    for (int i = 0; i < p.n; i++) n_at += p.items[i].lo <= tpeak && tpeak < p.items[i].hi;
    snprintf(lab, sizeof lab, "%d buffers, %d live at the peak", p.n, n_at);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(&c, c.x1 + 14, c.y0 + 10 + 20 * 5 + 6, 10, lab, 0, 0.5, false);
    free(prof);
    rc = canvas_close(&c, msg, cap);
  }
  if (from_run) {
    mp_result_destroy(&r);
  } else {
    free(off);
    mp_problem_destroy(&p);
  }
  mp_instance_destroy(&in);
  return rc;
}

/* ------------------------------------------------------------ pareto */

static int cmp_time(const void *a, const void *b) {
  const mp_agg *x = *(const mp_agg *const *)a, *y = *(const mp_agg *const *)b;
  if (x->plan_ms != y->plan_ms) return x->plan_ms < y->plan_ms ? -1 : 1;
  if (x->arena != y->arena) return x->arena < y->arena ? -1 : 1;
  return strcmp(x->label, y->label);
}

static int plot_pareto(char **in, int nin, const char *graph, bool best, const char *out, char *msg,
                       size_t cap) {
  mp_row *rows = NULL;
  int n = 0, rc = 0;
  for (int i = 0; i < nin && !rc; i++) rc = mp_rows_load(in[i], &rows, &n, msg, cap);
  if (rc) {
    mp_rows_free(rows, n);
    return -1;
  }
  int w = 0;
  for (int i = 0; i < n; i++) {
    if ((rows[i].graph && !strcmp(rows[i].graph, graph)) || !strcmp(rows[i].path, graph))
      rows[w++] = rows[i];
    else
      mp_row_free(&rows[i]);
  }
  n = w;
  mp_aggset set;
  mp_agg_opts ao = {best, false};
  mp_aggregate(rows, n, &ao, &set);
  mp_agg *a = set.a;
  int na = set.n;
  const mp_agg **pt = mp_xmalloc(sizeof(*pt) * (size_t)(na ? na : 1));
  int np = 0;
  /* a placement that shares nothing (no reuse at all: reduction_vs_noreuse
   * is 0) would squash the axis */
  int n_base = 0;
  for (int i = 0; i < na; i++) {
    if (!a[i].ok) continue;
    if (a[i].red_noreuse <= 0) {
      n_base++;
      continue;
    }
    pt[np++] = &a[i];
  }
  if (!np) {
    snprintf(msg, cap, "no planned runs of graph '%s' in the results", graph);
    rc = -1;
  }
  for (int oi = 0; !rc && oi < n_outs(out); oi++) {
    char o1[1024];
    nth_out(out, oi, o1, sizeof o1);
    canvas c;
    if ((rc = canvas_open(&c, o1, 1000, 600, msg, cap))) break;
    qsort(pt, (size_t)np, sizeof(*pt), cmp_time);
    bool *front = mp_xcalloc((size_t)np, sizeof(bool));
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
    c.x0 = 90;
    c.x1 = c.w - 40;
    c.y0 = 40;
    c.y1 = c.h - 55;
    c.xlog = true;
    c.dx0 = pow(10, floor(log10(tmin)));
    c.dx1 = pow(10, ceil(log10(tmax * 1.01)));
    if (c.dx1 <= c.dx0) c.dx1 = c.dx0 * 10;
    double span = (double)(amax - amin);
    if (span <= 0) span = fmax(1, (double)amax * 0.1);
    c.dy0 = fmax(0, (double)amin - 0.08 * span);
    c.dy1 = (double)amax + 0.12 * span;
    double div;
    const char *un = unit_name((double)amax, &div);
    char title[300], yl[64];
    snprintf(title, sizeof title, "Arena vs planning time: %s (%s over seeds)", graph,
             best ? "best" : "median");
    snprintf(yl, sizeof yl, "arena (%s)", un);
    axes(&c, title, "planning time (ms, log scale)", yl, div);
    cairo_t *cr = c.cr;
    if (bound > 0) {
      double d[] = {7, 4};
      cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
      cairo_set_dash(cr, d, 2, 0);
      cairo_move_to(cr, c.x0, Y(&c, (double)bound));
      cairo_line_to(cr, c.x1, Y(&c, (double)bound));
      cairo_stroke(cr);
      cairo_set_dash(cr, NULL, 0, 0);
      char hb[64], lab[200];
      human((double)bound, hb, sizeof hb);
      snprintf(lab, sizeof lab, "bound %s (%s%s)", hb, pt[0]->bound_kind,
               pt[0]->bound_proven ? ", raised to a proven optimum" : "");
      text(&c, c.x1 - 6, Y(&c, (double)bound) - 4, 10, lab, 1, 0, false);
    }
    /* the front as a staircase */
    cairo_set_source_rgb(cr, 0.84, 0.15, 0.16);
    cairo_set_line_width(cr, 2);
    bool started = false;
    double px = 0, py = 0;
    for (int i = 0; i < np; i++) {
      if (!front[i]) continue;
      double x = X(&c, fmax(pt[i]->plan_ms, 1e-3)), y = Y(&c, (double)pt[i]->arena);
      if (!started) {
        cairo_move_to(cr, x, y);
        started = true;
      } else {
        cairo_line_to(cr, x, py);
        cairo_line_to(cr, x, y);
      }
      px = x;
      py = y;
    }
    (void)px;
    cairo_line_to(cr, c.x1, py);
    cairo_stroke(cr);
    for (int i = 0; i < np; i++) {
      double x = X(&c, fmax(pt[i]->plan_ms, 1e-3)), y = Y(&c, (double)pt[i]->arena);
      if (front[i])
        cairo_set_source_rgb(cr, 0.84, 0.15, 0.16);
      else
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
      cairo_arc(cr, x, y, front[i] ? 5 : 3.5, 0, 2 * M_PI);
      cairo_fill(cr);
      if (!front[i]) continue;
      cairo_set_source_rgb(cr, 0, 0, 0);
      text(&c, x + 7, y - 8, 10, pt[i]->label, 0, 0.5, true);
    }
    char note[200];
    int nf = 0;
    for (int i = 0; i < np; i++) nf += front[i];
    snprintf(note, sizeof note,
             "red, labelled: Pareto front (no other solver is both faster and smaller); "
             "gray: %d dominated solvers%s",
             np - nf, n_base ? "; placements that share nothing left out" : "");
    text(&c, c.x0 + 8, c.y0 + 12, 10, note, 0, 0.5, false);
    free(front);
    rc = canvas_close(&c, msg, cap);
  }
  free(pt);
  mp_aggset_free(&set);
  mp_rows_free(rows, n);
  return rc;
}

/* ------------------------------------------------------------ command */

static const char plot_help[] =
    "usage: memplan plot profile GRAPH --order CHAIN... --out F.svg|.png|.pdf [--seed N]\n"
    "       (--out may be repeated: the same picture in several files, solvers run once)\n"
    "                    [--time-limit S] [--set OPT=V]\n"
    "       memplan plot placement FILE [--plan PLAN | --order X --place Y] --out F.svg\n"
    "       memplan plot pareto RESULTS... --graph NAME --out F.svg [--agg median|best]\n"
    "\n"
    "profile:   live memory M(t) over the steps of each order solver or chain (--order\n"
    "           repeated; a chain is greedy,sa as in solve), with the graph's min-cut lower\n"
    "           bound dashed.\n"
    "placement: one rectangle per buffer (x = lifetime, y = address), buffers live at the\n"
    "           peak moment highlighted, M(t) and the arena drawn.\n"
    "pareto:    arena against planning time of every solver on one graph (results files),\n"
    "           the Pareto front in red.\n";

int mp_cmd_plot(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(plot_help, argc < 2 ? stderr : stdout);
    return argc < 2 ? MP_EXIT_USAGE : MP_EXIT_OK;
  }
  char *outs = NULL;
  const char *kind = argv[1], *out = NULL, *plan = NULL, *graph = NULL;
  char **orders = NULL;
  int n_orders = 0;
  mp_run_spec spec = {0};
  spec.seed = 1;
  bool best = false;
  char **pos = mp_xmalloc(sizeof(char *) * (size_t)argc);
  const char **sets = mp_xmalloc(sizeof(char *) * (size_t)argc);
  int npos = 0, nsets = 0, rc = MP_EXIT_OK;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--out") && v) {
      size_t l = outs ? strlen(outs) : 0;
      outs = mp_xrealloc(outs, l + strlen(v) + 2);
      sprintf(outs + l, "%s%s", l ? "," : "", v);
      out = outs;
      i++;
    }
    else if (!strcmp(a, "--plan") && v) plan = argv[++i];
    else if (!strcmp(a, "--graph") && v) graph = argv[++i];
    else if (!strcmp(a, "--order") && v) {
      spec.order = argv[++i];
      mp_list_push(&orders, &n_orders, spec.order);
    }
    else if (!strcmp(a, "--place") && v) spec.place = argv[++i];
    else if (!strcmp(a, "--seed") && v) spec.seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--time-limit") && v) spec.time_limit = atof(argv[++i]);
    else if (!strcmp(a, "--align") && v) spec.align = atoll(argv[++i]);
    else if (!strcmp(a, "--set") && v) sets[nsets++] = argv[++i];
    else if (!strcmp(a, "--agg") && v) best = !strcmp(argv[++i], "best");
    else if (a[0] == '-') {
      fprintf(stderr, "memplan plot: bad option '%s'\n%s", a, plot_help);
      rc = MP_EXIT_USAGE;
      goto done;
    } else
      pos[npos++] = argv[i];
  }
  spec.sets = sets;
  spec.n_sets = nsets;
  if (!out) {
    fprintf(stderr, "memplan plot: --out FILE is required\n");
    rc = MP_EXIT_USAGE;
    goto done;
  }
  char msg[1024];
  int r;
  if (!strcmp(kind, "profile")) {
    if (npos != 1) {
      fputs(plot_help, stderr);
      rc = MP_EXIT_USAGE;
      goto done;
    }
    const mp_solver *def = mp_solver_with_role(MP_ROLE_DEFAULT, MP_DECIDES_ORDER);
    if (!n_orders && def) mp_list_push(&orders, &n_orders, def->name);
    r = plot_profile(pos[0], orders, n_orders, &spec, out, msg, sizeof msg);
  } else if (!strcmp(kind, "placement")) {
    if (npos != 1) {
      fputs(plot_help, stderr);
      rc = MP_EXIT_USAGE;
      goto done;
    }
    r = plot_placement(pos[0], plan, &spec, out, msg, sizeof msg);
  } else if (!strcmp(kind, "pareto")) {
    if (npos < 1 || !graph) {
      fprintf(stderr, "memplan plot pareto: RESULTS... and --graph NAME\n");
      rc = MP_EXIT_USAGE;
      goto done;
    }
    r = plot_pareto(pos, npos, graph, best, out, msg, sizeof msg);
  } else {
    fprintf(stderr, "memplan plot: unknown plot '%s' (profile, placement, pareto)\n", kind);
    rc = MP_EXIT_USAGE;
    goto done;
  }
  if (r) {
    fprintf(stderr, "memplan plot: %s\n", msg);
    rc = MP_EXIT_INPUT;
  }
done:
  for (int i = 0; i < n_orders; i++) free(orders[i]);
  free(orders);
  free(outs);
  free(pos);
  free(sets);
  return rc;
}
