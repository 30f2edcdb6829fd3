/* bench_graph.c - what a results file knows about each graph, whatever
 * solvers an experiment holds: the file's digest and its independent lower
 * bound (min-cut for a graph, max-live for a fixed-lifetime problem), and
 * the fingerprint of a cell (graph digest + its solvers' source hashes). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "fingerprint.h"
#include "io.h"
#include "registry.h"
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

int mp_graph_bound(const char *file, mp_graphrow *g, char *msg, size_t cap) {
  mp_instance in;
  mp_error err;
  if (mp_instance_load(file, NULL, &in, &err)) {
    snprintf(msg, cap, "%s", err.msg);
    return -1;
  }
  g->graph = mp_xstrdup(mp_instance_name(&in));
  if (in.g) {
    g->nodes = in.g->n;
    g->buffers = in.g->n_buf;
    g->bound = mp_sched_lower_bound(in.g, NULL);
    g->bound_kind = mp_xstrdup("min-cut");
  } else {
    g->nodes = 0;
    g->buffers = in.fixed->n;
    g->bound = mp_live_peak(in.fixed);
    g->bound_kind = mp_xstrdup("max-live");
  }
  mp_instance_destroy(&in);
  return 0;
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

char *mp_cell_fingerprint(const char *digest, const char *order, const char *place) {
  char out[2048];
  snprintf(out, sizeof out, "graph=%s", digest ? digest : "unknown");
  add_chain(order, out, sizeof out);
  add_chain(place, out, sizeof out);
  return mp_xstrdup(out);
}
