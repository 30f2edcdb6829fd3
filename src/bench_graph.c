/* bench_graph.c - what a results file knows about each graph, whatever
 * solvers an experiment holds: the file's digest, its independent lower
 * bound (min-cut for a graph, max-live for a fixed-lifetime problem) and
 * the baseline of reduction_vs_given (computed by the graph's own child,
 * once per results file, not in every cell), and the fingerprints of a
 * cell and of the baseline (graph digest, solvers' source hashes). */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "fingerprint.h"
#include "io.h"
#include "registry.h"
#include "run.h"
#include "schedbound.h"

int mp_file_digest(const char *path, char out[17]) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  uint64_t h = 1469598103934665603ULL; /* FNV-1a 64 */
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    for (size_t i = 0; i < n; i++) {
      h ^= buf[i];
      h *= 1099511628211ULL;
    }
  int bad = ferror(f);
  fclose(f);
  if (bad) return -1;
  snprintf(out, 17, "%016llx", (unsigned long long)h);
  return 0;
}

/* The independent bound: min-cut for a graph, max-live for lifetimes. */
static void graph_bound(const mp_instance *in, json_t *o) {
  const char *name = mp_instance_name(in);
  json_object_set_new(o, "graph", json_string(name ? name : ""));
  json_object_set_new(o, "nodes", json_integer(in->g ? in->g->n : 0));
  json_object_set_new(o, "buffers", json_integer(in->g ? in->g->n_buf : in->fixed->n));
  json_object_set_new(o, "bound", json_integer(in->g ? mp_sched_lower_bound(in->g, NULL)
                                                     : mp_live_peak(in->fixed)));
  json_object_set_new(o, "bound_kind", json_string(in->g ? "min-cut" : "max-live"));
}

/* The baseline at the default alignment (what `solve` uses without
 * --align), or why there is none. */
static void graph_baseline(const mp_instance *in, double limit_s, json_t *o) {
  mp_baseline b;
  mp_error err;
  if (mp_baseline_compute(in, 0, limit_s, 1, &b, &err)) {
    json_object_set_new(o, "given_message", json_string(err.msg));
    return;
  }
  json_object_set_new(o, "given_arena", json_integer(b.arena));
  json_object_set_new(o, "given_align", json_integer(b.align));
}

static int print_line(json_t *o, FILE *out) {
  int rc = json_dumpf(o, out, JSON_PRESERVE_ORDER | JSON_COMPACT);
  json_decref(o);
  if (rc || fputc('\n', out) == EOF || fflush(out)) return -1;
  return 0;
}

int mp_bench_print_graph_bound(const char *file, double baseline_limit_s, FILE *out, char *msg,
                               size_t cap) {
  mp_instance in;
  mp_error err;
  if (mp_instance_load(file, NULL, &in, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return -1;
  }
  json_t *bound = json_object(), *base = json_object();
  graph_bound(&in, bound);
  int rc = print_line(bound, out); /* kept even if the baseline is killed */
  if (!rc) {
    graph_baseline(&in, baseline_limit_s, base);
    rc = print_line(base, out);
  } else {
    json_decref(base);
  }
  mp_instance_destroy(&in);
  if (rc) mp_msgf(msg, cap, "cannot write the bound");
  return rc ? -2 : 0;
}

/* Append "name=hash" for every solver of a chain not listed yet. */
static void add_chain(const char *chain, char *out, size_t cap) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", chain);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const mp_solver *s = mp_solver_find(t);
    char item[160];
    snprintf(item, sizeof item, " %s=%s", t, s ? mp_solver_fingerprint(s) : "unknown");
    if (strstr(out, item)) continue;
    size_t l = strlen(out);
    snprintf(out + l, cap - l, "%s", item);
  }
}

char *mp_baseline_fingerprint(void) {
  const mp_solver *order = mp_solver_with_role(MP_ROLE_FILE_ORDER, MP_DECIDES_ORDER);
  const mp_solver *place = mp_solver_with_role(MP_ROLE_BASELINE, MP_DECIDES_OFFSETS);
  char out[512] = "";
  add_chain(order ? order->name : "none", out, sizeof out);
  add_chain(place ? place->name : "none", out, sizeof out);
  return mp_xstrdup(out[0] == ' ' ? out + 1 : out);
}

char *mp_cell_fingerprint(const char *digest, const char *order, const char *remat,
                          const char *place) {
  char out[2048];
  snprintf(out, sizeof out, "graph=%s", digest ? digest : "unknown");
  add_chain(order, out, sizeof out);
  if (remat) add_chain(remat, out, sizeof out); /* "" adds nothing: older rows stay fresh */
  add_chain(place, out, sizeof out);
  return mp_xstrdup(out);
}
