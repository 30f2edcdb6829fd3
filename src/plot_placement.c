/* plot_placement.c - `memplan plot placement`: one rectangle per buffer
 * (x = its lifetime, y = its addresses), the live profile, the arena and
 * the moment of the peak.  The placement comes from a run (--order,
 * --place), a plan file of DESIGN 1.5 (or a CSV with offsets), or a plan
 * file with events (DESIGN 6): then each rectangle is a residency on the
 * memory-sample axis, coloured by where it came from: a first run, a
 * recomputation, a copy back from the host. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"
#include "plot.h"

/* Read a plan file into (problem, offsets): DESIGN 1.5 JSON for graphs,
 * MiniMalloc CSV with offsets for fixed-lifetime problems. */
static int load_order_plan(const mp_instance *in, const char *plan, mp_problem *p, int64_t **off,
                           char *msg, size_t cap) {
  mp_error err;
  if (mp_plan_verify(in, plan, 0, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return -1;
  }
  if (!in->g) {
    if (mp_csv_read(plan, p, &err)) {
      mp_msgf(msg, cap, "%s", err.msg);
      return -1;
    }
    *off = mp_xmalloc(sizeof(int64_t) * (size_t)(p->n ? p->n : 1));
    for (int i = 0; i < p->n; i++) (*off)[i] = p->items[i].fixed;
    return 0;
  }
  const mp_graph *g = in->g;
  json_t *o = mp_json_load_file(plan, 0, NULL);
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

/* ------------------------------------------------------------ the chart */

typedef struct chart {
  const mp_problem *p;
  const int64_t *off;
  const mp_residency *res; /* an event plan's residencies, or NULL */
  const char *name;
  char sub[400];
  bool graph;
  int64_t arena, peak, tpeak, *prof;
} chart;

static void frame(mp_canvas *c, const chart *h) {
  const mp_problem *p = h->p;
  c->x0 = 90, c->x1 = c->w - 270, c->y0 = 40, c->y1 = c->h - 55;
  c->dx0 = (double)p->t_begin;
  c->dx1 = (double)(p->t_end > p->t_begin ? p->t_end : p->t_begin + 1);
  c->dy0 = 0;
  c->dy1 = (double)(h->arena > 0 ? h->arena : 1) * 1.05;
  double div;
  const char *un = mp_plot_unit((double)h->arena, &div);
  char title[600], yl[64];
  snprintf(title, sizeof title, "Placement: %.150s (%s)", h->name, h->sub);
  snprintf(yl, sizeof yl, "address (%s)", un);
  mp_canvas_axes(c, title,
                 h->res ? "memory sample (the start, then each run or copy in)"
                 : h->graph ? "step t"
                            : "time",
                 yl, div);
}

/* An item's colour: the palette in turn, or its origin (a first run in
 * three shades of blue, so that neighbours differ). */
static void item_colour(const chart *h, int i, double out[3]) {
  if (!h->res) {
    memcpy(out, mp_palette[i % MP_NPAL], sizeof(double) * 3);
    return;
  }
  const double *col = mp_origin_colour[h->res[i].origin];
  double shade = mp_origin_part(h->res[i].origin) == 0 ? 0.75 + 0.125 * (i % 3) : 1.0;
  for (int k = 0; k < 3; k++) out[k] = col[k] * shade;
}

/* Above this many rectangles a chart is crowded: a rectangle under 2 units
 * wide or high is not outlined (the outlines of 10^5 of them made the chart
 * black), and an SVG or PDF gets them all as one embedded bitmap at twice
 * the resolution (as vectors 10^5 of them made a 39 MB SVG). */
enum { CROWDED_ITEMS = 20000 };

/* Items live at the peak saturated, the others pale, on cr. */
static void draw_items_on(cairo_t *cr, const mp_canvas *c, const chart *h) {
  bool crowded = h->p->n > CROWDED_ITEMS;
  for (int i = 0; i < h->p->n; i++) {
    const mp_item *it = &h->p->items[i];
    if (it->size == 0 || it->hi <= it->lo) continue;
    bool at_peak = it->lo <= h->tpeak && h->tpeak < it->hi;
    double col[3], k = at_peak ? 1.0 : 0.35;
    item_colour(h, i, col);
    cairo_set_source_rgb(cr, 1 - k * (1 - col[0]), 1 - k * (1 - col[1]), 1 - k * (1 - col[2]));
    double x = mp_cx(c, (double)it->lo), w = mp_cx(c, (double)it->hi) - x;
    double y = mp_cy(c, (double)(h->off[i] + it->size)), ht = mp_cy(c, (double)h->off[i]) - y;
    cairo_rectangle(cr, x, y, w, ht);
    if (crowded && (w < 2 || ht < 2)) { /* an outline would hide its colour */
      cairo_fill(cr);
      continue;
    }
    cairo_fill_preserve(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, at_peak ? 0.9 : 0.35);
    cairo_set_line_width(cr, at_peak ? 1.0 : 0.5);
    cairo_stroke(cr);
  }
}

static void draw_items(mp_canvas *c, const chart *h) {
  if (c->png || h->p->n <= CROWDED_ITEMS) {
    draw_items_on(c->cr, c, h);
    return;
  }
  const double sc = 2;
  int w = (int)ceil((c->x1 - c->x0) * sc), ht = (int)ceil((c->y1 - c->y0) * sc);
  cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, ht);
  cairo_t *ic = cairo_create(img);
  cairo_scale(ic, sc, sc);
  cairo_translate(ic, -c->x0, -c->y0);
  draw_items_on(ic, c, h);
  cairo_destroy(ic);
  cairo_save(c->cr);
  cairo_translate(c->cr, c->x0, c->y0);
  cairo_scale(c->cr, 1 / sc, 1 / sc);
  cairo_set_source_surface(c->cr, img, 0, 0);
  cairo_paint(c->cr);
  cairo_restore(c->cr);
  cairo_surface_destroy(img);
}

/* The live profile, the arena, the peak moment. */
static void draw_marks(mp_canvas *c, const chart *h) {
  cairo_t *cr = c->cr;
  int64_t tb = h->p->t_begin, te = h->p->t_end;
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1.5);
  mp_canvas_step_path(c, h->prof, te - tb, (double)tb);
  cairo_stroke(cr);
  double d[] = {7, 4}, d2[] = {2, 3};
  cairo_set_dash(cr, d, 2, 0);
  cairo_set_source_rgb(cr, 0.8, 0, 0);
  cairo_move_to(cr, c->x0, mp_cy(c, (double)h->arena));
  cairo_line_to(cr, c->x1, mp_cy(c, (double)h->arena));
  cairo_stroke(cr);
  cairo_set_dash(cr, d2, 2, 0);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_move_to(cr, mp_cx(c, (double)h->tpeak + 0.5), c->y0);
  cairo_line_to(cr, mp_cx(c, (double)h->tpeak + 0.5), c->y1);
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
}

/* Boxes: what the colours mean; returns the next legend line. */
static int colour_legend(mp_canvas *c, const chart *h) {
  cairo_t *cr = c->cr;
  if (!h->res) {
    cairo_set_source_rgb(cr, mp_palette[0][0], mp_palette[0][1], mp_palette[0][2]);
    mp_canvas_legend(c, 0, "buffer live at the peak", false, true);
    cairo_set_source_rgb(cr, 0.77, 0.86, 0.92);
    mp_canvas_legend(c, 1, "other buffer", false, true);
    return 2;
  }
  static const char *const what[] = {"from a first run (or the start)", "recomputed (run again)",
                                     "brought back from host"};
  static const mp_res_origin origin[] = {MP_RES_RUN, MP_RES_RERUN, MP_RES_IN};
  int n[3] = {0, 0, 0};
  for (int i = 0; i < h->p->n; i++) n[mp_origin_part(h->res[i].origin)]++;
  char lab[120];
  for (int k = 0; k < 3; k++) {
    const double *col = mp_origin_colour[origin[k]];
    cairo_set_source_rgb(cr, col[0], col[1], col[2]);
    snprintf(lab, sizeof lab, "%s: %d", what[k], n[k]);
    mp_canvas_legend(c, k, lab, false, true);
  }
  cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
  mp_canvas_legend(c, 3, "pale: not live at the peak", false, true);
  return 4;
}

static void draw_legend(mp_canvas *c, const chart *h) {
  cairo_t *cr = c->cr;
  int li = colour_legend(c, h);
  char lab[200], hb[64];
  cairo_set_source_rgb(cr, 0, 0, 0);
  mp_plot_human((double)h->peak, hb, sizeof hb);
  snprintf(lab, sizeof lab, "live M(t), peak %s", hb);
  mp_canvas_legend(c, li++, lab, false, false);
  cairo_set_source_rgb(cr, 0.8, 0, 0);
  mp_plot_human((double)h->arena, hb, sizeof hb);
  snprintf(lab, sizeof lab, "arena %s", hb);
  mp_canvas_legend(c, li++, lab, true, false);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  snprintf(lab, sizeof lab, "peak moment t = %lld", (long long)h->tpeak);
  mp_canvas_legend(c, li++, lab, true, false);
  int n_at = 0;
  for (int i = 0; i < h->p->n; i++)
    n_at += h->p->items[i].lo <= h->tpeak && h->tpeak < h->p->items[i].hi;
  snprintf(lab, sizeof lab, "%d %s, %d live at the peak", h->p->n,
           h->res ? "residencies" : "buffers", n_at);
  cairo_set_source_rgb(cr, 0, 0, 0);
  mp_canvas_text(c, c->x1 + 14, c->y0 + 10 + 20 * li + 6, 10, lab, 0, 0.5, false);
}

static int draw(void *ctx, const char *path, FILE *fp, char *msg, size_t cap) {
  chart *h = ctx;
  mp_canvas c;
  if (mp_canvas_open(&c, path, fp, 1120, 620, msg, cap)) return -1;
  frame(&c, h);
  cairo_save(c.cr);
  cairo_rectangle(c.cr, c.x0, c.y0, c.x1 - c.x0, c.y1 - c.y0);
  cairo_clip(c.cr);
  draw_items(&c, h);
  draw_marks(&c, h);
  cairo_restore(c.cr);
  draw_legend(&c, h);
  return mp_canvas_close(&c, msg, cap);
}

/* ------------------------------------------------------------ entry */

typedef struct source {
  mp_result r;            /* a run */
  bool from_run;
  mp_event_plan ep;       /* a plan with events */
  bool events;
  mp_problem p;           /* a plan without */
  int64_t *off;
} source;

static int obtain(const mp_instance *in, const char *plan, const mp_run_spec *spec, source *s,
                  chart *h, char *msg, size_t cap) {
  memset(s, 0, sizeof *s);
  if (!plan) {
    s->from_run = true;
    mp_run_spec run = *spec;
    run.no_baseline = true; /* the chart shows no reduction; the baseline is quadratic at scale */
    if (mp_run(in, &run, &s->r) || !s->r.has_figures) {
      mp_msgf(msg, cap, "%s", s->r.msg);
      return -1;
    }
    h->p = &s->r.prob, h->off = s->r.offsets;
    snprintf(h->sub, sizeof h->sub, "%s + %s", s->r.order_name, s->r.place_name);
    return 0;
  }
  snprintf(h->sub, sizeof h->sub, "plan %.300s", plan);
  if (in->g && mp_plan_file_has_events(plan)) {
    if (mp_event_plan_load(in->g, plan, true, &s->ep, msg, cap)) return -1;
    s->events = true;
    h->p = &s->ep.prob, h->off = s->ep.offsets, h->res = s->ep.res;
    snprintf(h->sub, sizeof h->sub, "%s", s->ep.label);
    return 0;
  }
  if (load_order_plan(in, plan, &s->p, &s->off, msg, cap)) return -1;
  h->p = &s->p, h->off = s->off;
  return 0;
}

static void release(source *s) {
  if (s->from_run) mp_result_destroy(&s->r);
  if (s->events) mp_event_plan_destroy(&s->ep);
  if (s->p.items) mp_problem_destroy(&s->p);
  free(s->off);
}

int mp_plot_placement(const char *file, const char *plan, const mp_run_spec *spec,
                      const char *out, char *msg, size_t cap) {
  mp_instance in;
  mp_error err;
  if (mp_instance_load(file, NULL, &in, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return -1;
  }
  source s;
  chart h = {.name = mp_instance_name(&in), .graph = in.g != NULL};
  int rc = obtain(&in, plan, spec, &s, &h, msg, cap);
  if (!rc && h.p->n == 0) {
    mp_msgf(msg, cap, "%s: no buffers to draw", file);
    rc = -1;
  }
  if (!rc) {
    h.arena = mp_arena(h.p, h.off);
    h.peak = mp_live_peak(h.p);
    h.prof = mp_profile(h.p);
    h.tpeak = h.p->t_begin;
    for (int64_t t = h.p->t_begin; t < h.p->t_end; t++)
      if (h.prof[t - h.p->t_begin] == h.peak) {
        h.tpeak = t;
        break;
      }
  }
  if (!rc) rc = mp_plot_each_out(out, draw, &h, msg, cap);
  free(h.prof);
  release(&s);
  mp_instance_destroy(&in);
  return rc;
}
