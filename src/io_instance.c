/* io_instance.c - load any supported file as an instance (the format from
 * --input-format, else from the extension and the content); atomic output. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "io_util.h"
#include "util.h"

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

int mp_check_input(const char *path, mp_error *err) {
  struct stat st;
  if (stat(path, &st)) return mp_errorf(err, "%s: cannot open: %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode)) return mp_errorf(err, "%s: is a directory, not a file", path);
  return 0;
}

char *mp_file_stem(const char *path, const char *suffix) {
  const char *b = strrchr(path, '/');
  char *s = mp_xstrdup(b ? b + 1 : path);
  if (suffix && ends_with(s, suffix) && strlen(s) > strlen(suffix)) s[strlen(s) - strlen(suffix)] = 0;
  return s;
}

/* DESIGN 1.1 JSON or node-link, told apart by the content. */
static mp_graph *load_json_graph(const char *path, const mp_load_opts *o, bool nodelink_only,
                                 mp_error *err) {
  mp_jdoc *root = mp_jdoc_open(path, mp_graph_stream_keys, err);
  if (!root) return NULL;
  mp_graph *g = NULL;
  bool nodelink = nodelink_only || (!(o && o->format) && mp_json_is_nodelink(root));
  if (!nodelink && mp_json_is_nodelink(root))
    mp_errorf(err, "%s: node-link data (a \"links\" array), not graph JSON: read it with "
              "--input-format nodelink, or without --input-format", path);
  else if (nodelink)
    g = mp_graph_from_nodelink(root, path, o ? o->size_attr : NULL, o ? o->cost_attr : NULL, err);
  else if (o && (o->size_attr || o->cost_attr))
    mp_errorf(err, "%s: --size-attr and --cost-attr apply to node-link and GraphML files; this is "
              "a graph JSON file (DESIGN 1.1: keys size, outputs, cost)", path);
  else
    g = mp_graph_from_json(root, path, err);
  return mp_graph_json_done(root, g, o && o->toposort, err);
}

int mp_instance_load(const char *path, const mp_load_opts *o, mp_instance *in, mp_error *err) {
  memset(in, 0, sizeof *in);
  const char *fmt = o && o->format ? o->format : NULL;
  if (!fmt) {
    if (ends_with(path, ".csv"))
      fmt = "csv";
    else if (ends_with(path, ".graphml") || ends_with(path, ".xml"))
      fmt = "graphml";
  }
  if (fmt && !strcmp(fmt, "csv")) {
    if (o && (o->size_attr || o->cost_attr))
      return mp_errorf(err, "%s: --size-attr and --cost-attr apply to graphs, not to a "
                       "fixed-lifetime CSV", path);
    in->fixed = mp_xcalloc(1, sizeof *in->fixed);
    if (mp_csv_read(path, in->fixed, err)) {
      free(in->fixed);
      in->fixed = NULL;
      return -1;
    }
    return 0;
  }
  if (fmt && !strcmp(fmt, "graphml"))
    in->g = mp_graph_read_graphml(path, o ? o->size_attr : NULL, o ? o->cost_attr : NULL,
                                  o && o->toposort, err);
  else if (!fmt || !strcmp(fmt, "json") || !strcmp(fmt, "nodelink"))
    in->g = load_json_graph(path, o, fmt && !strcmp(fmt, "nodelink"), err);
  else
    return mp_errorf(err, "unknown input format '%s' (json, graphml, nodelink, csv)", fmt);
  return in->g ? 0 : -1;
}

void mp_instance_destroy(mp_instance *in) {
  if (in->g) mp_graph_destroy(in->g);
  if (in->fixed) {
    mp_problem_destroy(in->fixed);
    free(in->fixed);
  }
  memset(in, 0, sizeof *in);
}

/* Output files.  A regular file (or a new one) is written to a temporary
 * file beside it and renamed into place, so no partial file is ever left; a
 * symbolic link keeps pointing where it did (its target is replaced).
 * Anything else that exists (a device such as /dev/null or /dev/full, a
 * pipe) is never replaced: it is written directly and its errors reported.
 * A directory is refused. */
/* Where a chain of symbolic links ends (it may not exist yet), malloc'ed;
 * NULL when path is no link. */
static char *link_target(const char *path) {
  struct stat lst;
  char *cur = NULL;
  for (int depth = 0; depth < 40 && lstat(cur ? cur : path, &lst) == 0 && S_ISLNK(lst.st_mode);
       depth++) {
    const char *at = cur ? cur : path;
    char buf[PATH_MAX];
    ssize_t n = readlink(at, buf, sizeof buf - 1);
    if (n <= 0) break;
    buf[n] = 0;
    const char *slash = strrchr(at, '/');
    size_t dir = buf[0] == '/' || !slash ? 0 : (size_t)(slash - at) + 1; /* relative: from the link's folder */
    char *next = mp_xmalloc(dir + (size_t)n + 1);
    memcpy(next, at, dir);
    memcpy(next + dir, buf, (size_t)n + 1);
    free(cur);
    cur = next;
  }
  return cur;
}

int mp_out_open(mp_outfile *o, const char *path, mp_error *err) {
  memset(o, 0, sizeof *o);
  if (!path || !strcmp(path, "-")) {
    o->fp = stdout;
    return 0;
  }
  char *target = link_target(path);
  const char *dst = target ? target : path;
  struct stat st;
  bool exists = stat(dst, &st) == 0;
  if (!exists && errno == ELOOP) { /* renaming onto dst would replace a link of the loop */
    free(target);
    return mp_errorf(err, "%s: cannot write: %s", path, strerror(ELOOP));
  }
  if (exists && S_ISDIR(st.st_mode)) {
    free(target);
    return mp_errorf(err, "%s: is a directory", path);
  }
  if (exists && !S_ISREG(st.st_mode)) {
    free(target);
    o->fp = fopen(path, "w");
    if (!o->fp) return mp_errorf(err, "%s: cannot write: %s", path, strerror(errno));
    o->path = mp_xstrdup(path);
    return 0;
  }
  size_t n = strlen(dst) + 32;
  o->path = mp_xmalloc(n);
  snprintf(o->path, n, "%s", dst);
  free(target);
  o->tmp = mp_xmalloc(n);
  snprintf(o->tmp, n, "%s.tmp.%ld", o->path, (long)getpid());
  o->fp = fopen(o->tmp, "w");
  if (!o->fp) {
    int e = errno;
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return mp_errorf(err, "%s: cannot write: %s", path, strerror(e));
  }
  if (exists) fchmod(fileno(o->fp), st.st_mode & 07777); /* the file it replaces keeps its mode */
  return 0;
}

int mp_out_commit(mp_outfile *o, mp_error *err) {
  int rc = 0, e = 0;
  if (fflush(o->fp) || ferror(o->fp)) rc = -1, e = errno;
  if (o->fp == stdout) {
    memset(o, 0, sizeof *o);
    return rc ? mp_errorf(err, "standard output: write error: %s", strerror(e ? e : EIO)) : 0;
  }
  if (!rc && o->tmp && fsync(fileno(o->fp))) rc = -1, e = errno;
  if (fclose(o->fp) && !rc) rc = -1, e = errno;
  o->fp = NULL;
  if (!rc && o->tmp && rename(o->tmp, o->path)) rc = -1, e = errno;
  if (rc) {
    mp_errorf(err, "%s: cannot write: %s", o->path, strerror(e ? e : EIO));
    if (o->tmp) unlink(o->tmp);
  }
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
  return rc;
}

void mp_out_abort(mp_outfile *o) {
  if (o->fp && o->fp != stdout) fclose(o->fp);
  if (o->tmp) unlink(o->tmp);
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
}
