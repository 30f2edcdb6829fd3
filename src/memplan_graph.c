/* memplan_graph.c - the public API (memplan.h) of synthetic graphs and of
 * writing graphs, over gen.c and graph_write.c; and the small services a
 * client needs to read and print numbers as the library does. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gen.h"
#include "graph_write.h"
#include "memplan_int.h"

const char *memplan_commit(void) { return mp_build_commit(); }

void memplan_set_prefault(size_t min_bytes) { mp_alloc_prefault(min_bytes); }

void memplan_set_huge_pages(bool on) { mp_alloc_huge_pages(on); }

memplan_err memplan_parse_int64(const char *text, int64_t *out, const char **why) {
  const char *w = NULL;
  int rc = mp_parse_int64(text, out, &w);
  if (why) *why = w;
  return rc ? MEMPLAN_EUSAGE : MEMPLAN_OK;
}

memplan_err memplan_parse_real(const char *text, double *out, const char **why) {
  const char *w = NULL;
  int rc = mp_parse_real(text, out, &w);
  if (why) *why = w;
  return rc ? MEMPLAN_EUSAGE : MEMPLAN_OK;
}

void memplan_format_number(double x, char *out, size_t cap) {
  if (out && cap) mp_format_number(x, out, cap);
}

/* ------------------------------------------------------ synthetic graphs */

/* The public options and the generator's hold the same fields. */
static void gen_to_public(const mp_gen_opts *g, memplan_gen_opts *o) {
  *o = (memplan_gen_opts){
      .version = MEMPLAN_API_VERSION, .family = g->family, .seed = g->seed, .name = g->name,
      .n = g->n, .model = g->model, .k = g->k, .p = g->p, .m = g->m, .channels = g->channels,
      .resolution = g->resolution, .batch = g->batch, .dtype_bytes = g->dtype_bytes,
      .cells = g->cells, .blocks = g->blocks, .layers = g->layers, .fan_in = g->fan_in,
      .span = g->span, .input_prob = g->input_prob, .par_prob = g->par_prob,
      .min_size = g->min_size, .max_size = g->max_size, .ws_prob = g->ws_prob,
      .inplace_prob = g->inplace_prob, .backward = g->backward};
}

static void gen_from_public(const memplan_gen_opts *o, mp_gen_opts *g) {
  *g = (mp_gen_opts){
      .family = o->family, .seed = o->seed, .name = o->name, .n = o->n,
      .model = o->model ? o->model : "ws", .k = o->k, .p = o->p, .m = o->m, .channels = o->channels, .resolution = o->resolution,
      .batch = o->batch, .dtype_bytes = o->dtype_bytes, .cells = o->cells, .blocks = o->blocks,
      .layers = o->layers, .fan_in = o->fan_in, .span = o->span, .input_prob = o->input_prob,
      .par_prob = o->par_prob, .min_size = o->min_size, .max_size = o->max_size,
      .ws_prob = o->ws_prob, .inplace_prob = o->inplace_prob, .backward = o->backward};
}

void memplan_gen_opts_init(memplan_gen_opts *o) {
  mp_gen_opts g;
  mp_gen_defaults(&g);
  gen_to_public(&g, o);
}

bool memplan_gen_family_known(const char *family) { return mp_gen_family_known(family); }

bool memplan_gen_takes(const char *family, const char *model, const char *flag) {
  return mp_gen_takes(family, model, flag);
}

void memplan_gen_flags(const char *family, const char *model, char *out, size_t cap) {
  if (out && cap) mp_gen_flags(family, model, out, cap); /* as memplan_format_number */
}

memplan_err memplan_gen(memplan_instance **out, const memplan_gen_opts *o, memplan_error *err) {
  *out = NULL;
  if (!o) return mp_api_fail(err, MEMPLAN_EUSAGE, "gen: no options (NULL)");
  if (mp_api_version_check(o->version, "memplan_gen_opts", err)) return MEMPLAN_EUSAGE;
  mp_gen_opts g;
  gen_from_public(o, &g);
  char *source;
  mp_error e;
  mp_graph *graph = mp_gen(&g, &source, &e);
  if (!graph) {
    mp_api_error(err, e.msg);
    return MEMPLAN_EUSAGE;
  }
  memplan_instance *h = mp_xcalloc(1, sizeof *h);
  h->in.g = graph;
  h->source = source;
  *out = h;
  return MEMPLAN_OK;
}

/* -------------------------------------------------------- writing graphs */

memplan_err memplan_instance_write(const memplan_instance *in, const char *path,
                                   const char *format, memplan_error *err) {
  bool json = format && !strcmp(format, "json");
  if (!json && !(format && !strcmp(format, "nodelink")))
    return mp_api_fail(err, MEMPLAN_EUSAGE, "unknown graph format '%s' (json, nodelink)",
                       format ? format : "(none)");
  const mp_graph *g = in->in.g;
  if (!g)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "%s is a fixed-lifetime problem, not a graph",
                       mp_instance_name(&in->in));
  mp_outfile of;
  mp_error e;
  if (mp_out_open(&of, path ? path : "-", &e)) {
    mp_api_error(err, e.msg);
    return MEMPLAN_EIO;
  }
  errno = 0; /* a failed write sets it: the reason, not an older call's */
  if (json ? mp_graph_dump_json(g, of.fp, in->source) : mp_graph_dump_nodelink(g, of.fp)) {
    int why = errno;
    mp_out_abort(&of);
    return mp_api_fail(err, MEMPLAN_EIO, "%s: write error%s%s",
                       path && strcmp(path, "-") ? path : "standard output", why ? ": " : "",
                       why ? strerror(why) : "");
  }
  if (mp_out_commit(&of, &e)) {
    mp_api_error(err, e.msg);
    return MEMPLAN_EIO;
  }
  return MEMPLAN_OK;
}
