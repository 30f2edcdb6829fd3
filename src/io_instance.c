/* io_instance.c - load any supported file as an instance; atomic output. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "util.h"

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

int mp_instance_load(const char *path, const mp_load_opts *o, mp_instance *in, mp_error *err) {
  memset(in, 0, sizeof *in);
  const char *fmt = o && o->format ? o->format : NULL;
  bool topo = o && o->toposort;
  if (!fmt) {
    if (ends_with(path, ".csv"))
      fmt = "csv";
    else if (ends_with(path, ".graphml") || ends_with(path, ".xml"))
      fmt = "graphml";
    else
      fmt = "json";
  }
  if (!strcmp(fmt, "csv")) {
    in->fixed = mp_xcalloc(1, sizeof *in->fixed);
    if (mp_csv_read(path, in->fixed, err)) {
      free(in->fixed);
      in->fixed = NULL;
      return -1;
    }
    return 0;
  }
  if (!strcmp(fmt, "graphml"))
    in->g = mp_graph_read_graphml(path, topo, err);
  else if (!strcmp(fmt, "nodelink"))
    in->g = mp_graph_read_nodelink(path, o && o->size_attr ? o->size_attr : "size", topo, err);
  else if (!strcmp(fmt, "json"))
    in->g = mp_graph_read_json(path, topo, err);
  else
    return mp_errorf(err, "unknown input format '%s' (json, graphml, nodelink, csv)", fmt);
  return in->g ? 0 : -1;
}

void mp_instance_destroy(mp_instance *in) {
  if (in->g) mp_graph_free(in->g);
  if (in->fixed) {
    mp_problem_destroy(in->fixed);
    free(in->fixed);
  }
  memset(in, 0, sizeof *in);
}

int mp_out_open(mp_outfile *o, const char *path, mp_error *err) {
  memset(o, 0, sizeof *o);
  if (!path || !strcmp(path, "-")) {
    o->fp = stdout;
    return 0;
  }
  size_t n = strlen(path) + 32;
  o->path = mp_xmalloc(n);
  snprintf(o->path, n, "%s", path);
  o->tmp = mp_xmalloc(n);
  snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
  o->fp = fopen(o->tmp, "w");
  if (!o->fp) {
    int e = errno;
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return mp_errorf(err, "%s: cannot write: %s", path, strerror(e));
  }
  return 0;
}

int mp_out_commit(mp_outfile *o, mp_error *err) {
  if (!o->tmp) {
    fflush(stdout);
    return 0;
  }
  int rc = 0;
  if (fflush(o->fp) || ferror(o->fp) || fsync(fileno(o->fp))) rc = -1;
  if (fclose(o->fp)) rc = -1;
  o->fp = NULL;
  if (!rc && rename(o->tmp, o->path)) rc = -1;
  if (rc) {
    mp_errorf(err, "%s: cannot write: %s", o->path, strerror(errno));
    unlink(o->tmp);
  }
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
  return rc;
}

void mp_out_abort(mp_outfile *o) {
  if (o->tmp) {
    if (o->fp) fclose(o->fp);
    unlink(o->tmp);
  }
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
}
