/* plot_canvas.c - the drawing helpers of `memplan plot` (cairo): a canvas
 * written atomically to SVG, PNG or PDF, data-to-device mapping, axes with a
 * grid, legends, text, byte units and the palette. */
#define _POSIX_C_SOURCE 200809L
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"
#include "plot.h"
/* ------------------------------------------------------------ mp_canvas */


static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

const char *mp_plot_format_error(const char *path) {
  if (ends_with(path, ".svg") || ends_with(path, ".png") || ends_with(path, ".pdf")) return NULL;
  return "the extension must be .svg, .png or .pdf";
}

/* cairo's writer into an open file. */
static cairo_status_t write_fp(void *fp, const unsigned char *data, unsigned int len) {
  return fwrite(data, 1, len, fp) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int mp_canvas_open(mp_canvas *c, const char *path, FILE *fp, double w, double h, char *msg,
                   size_t cap) {
  memset(c, 0, sizeof *c);
  c->w = w;
  c->h = h;
  c->path = path;
  c->fp = fp;
  const char *why = mp_plot_format_error(path);
  if (why) {
    mp_msgf(msg, cap, "%s: %s", path, why);
    return -1;
  }
  c->png = ends_with(path, ".png");
  if (c->png) c->surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h);
  else if (ends_with(path, ".pdf")) c->surf = cairo_pdf_surface_create_for_stream(write_fp, fp, w, h);
  else c->surf = cairo_svg_surface_create_for_stream(write_fp, fp, w, h);
  if (cairo_surface_status(c->surf) != CAIRO_STATUS_SUCCESS) {
    mp_msgf(msg, cap, "%s: %s", path, cairo_status_to_string(cairo_surface_status(c->surf)));
    cairo_surface_destroy(c->surf);
    return -1;
  }
  c->cr = cairo_create(c->surf);
  cairo_set_source_rgb(c->cr, 1, 1, 1);
  cairo_paint(c->cr);
  cairo_select_font_face(c->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  return 0;
}

int mp_canvas_close(mp_canvas *c, char *msg, size_t cap) {
  cairo_status_t st;
  cairo_destroy(c->cr);
  if (c->png) {
    st = cairo_surface_write_to_png_stream(c->surf, write_fp, c->fp);
  } else {
    cairo_surface_finish(c->surf);
    st = cairo_surface_status(c->surf);
  }
  cairo_surface_destroy(c->surf);
  if (st == CAIRO_STATUS_SUCCESS) return 0;
  int e = errno;
  if (st == CAIRO_STATUS_WRITE_ERROR && e) mp_msgf(msg, cap, "%s: cannot write: %s", c->path, strerror(e));
  else mp_msgf(msg, cap, "%s: cannot write: %s", c->path, cairo_status_to_string(st));
  return -1;
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

/* Every file is opened (a temporary beside it, outfile.h) before any is
 * drawn, and all are committed only when every one was drawn: a failed run
 * leaves each file as it was.  -2 when a file could not be opened or put in
 * place (the API's MEMPLAN_EIO). */
int mp_plot_each_out(const char *outs, mp_plot_draw_fn draw, void *ctx, char *msg,
                     size_t cap) {
  int n = n_outs(outs), opened = 0, rc = 0;
  mp_outfile *of = mp_xcalloc((size_t)n, sizeof *of);
  char (*name)[1024] = mp_xcalloc((size_t)n, sizeof *name);
  for (int i = 0; i < n && !rc; i++) {
    nth_out(outs, i, name[i], sizeof name[i]);
    mp_error err; /* a bad format fails in mp_canvas_open, before any commit */
    if (mp_out_open(&of[i], name[i], &err)) rc = -2, mp_msgf(msg, cap, "%s", err.msg);
    else opened++;
  }
  for (int i = 0; i < opened && !rc; i++) rc = draw(ctx, name[i], of[i].fp, msg, cap);
  for (int i = 0; i < opened; i++) {
    mp_error err;
    if (rc) mp_out_abort(&of[i]);
    else if (mp_out_commit(&of[i], &err)) rc = -2, mp_msgf(msg, cap, "%s", err.msg);
  }
  free(of);
  free(name);
  return rc;
}

double mp_cx(const mp_canvas *c, double x) {
  if (c->xlog) {
    double a = log10(c->dx0), b = log10(c->dx1);
    return c->x0 + (log10(x) - a) / (b - a) * (c->x1 - c->x0);
  }
  return c->x0 + (x - c->dx0) / (c->dx1 - c->dx0) * (c->x1 - c->x0);
}
double mp_cy(const mp_canvas *c, double y) {
  return c->y1 - (y - c->dy0) / (c->dy1 - c->dy0) * (c->y1 - c->y0);
}

int mp_canvas_columns(const mp_canvas *c) { return 2 * (int)(c->x1 - c->x0) + 1; }

int64_t mp_canvas_columns_for(const mp_canvas *c, int64_t n) {
  int cols = mp_canvas_columns(c);
  return n > 4 * (int64_t)cols ? cols : n;
}

int64_t mp_canvas_column_lo(int64_t j, int64_t n, int cols) { return j * n / cols; }

/* Column [t0, t1) of a reduced step curve: its first value, its lowest and
 * highest in the order they occur, its last. */
static void column_path(mp_canvas *c, const int64_t *y, int64_t t0, int64_t t1, double x0) {
  int64_t lo = t0, hi = t0;
  for (int64_t t = t0; t < t1; t++) {
    if (y[t] < y[lo]) lo = t;
    if (y[t] > y[hi]) hi = t;
  }
  int64_t a = lo < hi ? lo : hi, b = lo < hi ? hi : lo;
  cairo_line_to(c->cr, mp_cx(c, x0 + (double)t0), mp_cy(c, (double)y[t0]));
  cairo_line_to(c->cr, mp_cx(c, x0 + (double)a + 0.5), mp_cy(c, (double)y[a]));
  cairo_line_to(c->cr, mp_cx(c, x0 + (double)b + 0.5), mp_cy(c, (double)y[b]));
  cairo_line_to(c->cr, mp_cx(c, x0 + (double)t1), mp_cy(c, (double)y[t1 - 1]));
}

void mp_canvas_step_path(mp_canvas *c, const int64_t *y, int64_t n, double x0) {
  if (n <= 0) return;
  cairo_move_to(c->cr, mp_cx(c, x0), mp_cy(c, (double)y[0]));
  int64_t cols = mp_canvas_columns_for(c, n);
  if (cols < n) {
    for (int64_t j = 0; j < cols; j++)
      column_path(c, y, mp_canvas_column_lo(j, n, (int)cols), mp_canvas_column_lo(j + 1, n, (int)cols), x0);
    return;
  }
  for (int64_t t = 0; t < n; t++) {
    cairo_line_to(c->cr, mp_cx(c, x0 + (double)t), mp_cy(c, (double)y[t]));
    cairo_line_to(c->cr, mp_cx(c, x0 + (double)(t + 1)), mp_cy(c, (double)y[t]));
  }
}

void mp_canvas_text(mp_canvas *c, double x, double y, double size, const char *s, double ha, double va,
                 bool bold) {
  cairo_select_font_face(c->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(c->cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(c->cr, s, &e);
  cairo_move_to(c->cr, x - ha * e.width - e.x_bearing, y + va * e.height - (e.height + e.y_bearing));
  cairo_show_text(c->cr, s);
}

void mp_canvas_vtext(mp_canvas *c, double x, double y, double size, const char *s) {
  cairo_save(c->cr);
  cairo_translate(c->cr, x, y);
  cairo_rotate(c->cr, -M_PI / 2);
  cairo_set_source_rgb(c->cr, 0, 0, 0);
  mp_canvas_text(c, 0, 0, size, s, 0.5, 0.5, false);
  cairo_restore(c->cr);
}

static double nice_step(double range, int target) {
  double raw = range / target, p = pow(10, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

const char *mp_plot_unit(double max, double *div) {
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
void mp_canvas_axes(mp_canvas *c, const char *title, const char *xlabel, const char *ylabel, double ydiv) {
  cairo_t *cr = c->cr;
  cairo_set_line_width(cr, 1);
  /* y grid */
  double ys = nice_step((c->dy1 - c->dy0) / ydiv, 6) * ydiv;
  char buf[64];
  for (double v = ceil(c->dy0 / ys) * ys; v <= c->dy1 + 1e-9 * ys; v += ys) {
    double y = mp_cy(c, v);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, c->x0, y);
    cairo_line_to(cr, c->x1, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    fmt_tick(v / ydiv, ys / ydiv, buf, sizeof buf);
    mp_canvas_text(c, c->x0 - 6, y, 11, buf, 1, 0.5, false);
  }
  /* x grid */
  if (c->xlog) {
    for (double d = pow(10, floor(log10(c->dx0))); d <= c->dx1 * 1.0001; d *= 10) {
      if (d < c->dx0 * 0.9999) continue;
      double x = mp_cx(c, d);
      cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
      cairo_move_to(cr, x, c->y0);
      cairo_line_to(cr, x, c->y1);
      cairo_stroke(cr);
      cairo_set_source_rgb(cr, 0, 0, 0);
      snprintf(buf, sizeof buf, "%g", d);
      mp_canvas_text(c, x, c->y1 + 6, 11, buf, 0.5, 1, false);
    }
  } else {
    double xs = nice_step(c->dx1 - c->dx0, 8);
    for (double v = ceil(c->dx0 / xs) * xs; v <= c->dx1 + 1e-9 * xs; v += xs) {
      double x = mp_cx(c, v);
      cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
      cairo_move_to(cr, x, c->y0);
      cairo_line_to(cr, x, c->y1);
      cairo_stroke(cr);
      cairo_set_source_rgb(cr, 0, 0, 0);
      fmt_tick(v, xs, buf, sizeof buf);
      mp_canvas_text(c, x, c->y1 + 6, 11, buf, 0.5, 1, false);
    }
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, c->x0, c->y0, c->x1 - c->x0, c->y1 - c->y0);
  cairo_stroke(cr);
  mp_canvas_text(c, (c->x0 + c->x1) / 2, 16, 15, title, 0.5, 0.5, true);
  mp_canvas_text(c, (c->x0 + c->x1) / 2, c->h - 16, 12, xlabel, 0.5, 0.5, false);
  mp_canvas_vtext(c, 18, (c->y0 + c->y1) / 2, 12, ylabel);
}

const double mp_palette[MP_NPAL][3] = {
    {0.12, 0.47, 0.71}, {1.00, 0.50, 0.05}, {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16},
    {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50},
    {0.74, 0.74, 0.13}, {0.09, 0.75, 0.81}};

void mp_canvas_legend(mp_canvas *c, int i, const char *label, bool dashed, bool box) {
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
  mp_canvas_text(c, x + 28, y, 11, label, 0, 0.5, false);
}

void mp_plot_human(double b, char *out, size_t cap) {
  double d;
  const char *u = mp_plot_unit(b, &d);
  snprintf(out, cap, d == 1 ? "%.0f %s" : "%.2f %s", b / d, u);
}