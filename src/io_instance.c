/* io_instance.c - load any supported file as an instance (the format from
 * --input-format, else from the extension and the content). */
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

/* DESIGN 1.1 JSON or node-link, told apart by the content (mp_json_is_nodelink),
 * or named by --input-format.  Named json, a file that reads as node-link
 * is refused when its edges would be lost: a non-empty links array. */
static mp_graph *load_json_graph(const char *path, const mp_load_opts *o, bool nodelink_only,
                                 mp_error *err) {
  mp_jdoc *root = mp_jdoc_open(path, mp_graph_stream_keys, err);
  if (!root) return NULL;
  mp_graph *g = NULL;
  bool json_only = o && o->format && !nodelink_only;
  bool nodelink = nodelink_only || mp_json_is_nodelink(root);
  const char *lk = mp_json_links_key(root);
  if (json_only && nodelink && mp_jdoc_is_array(root, lk) && mp_jdoc_count(root, lk) > 0)
    mp_errorf(err, "%s: node-link data (edges in \"%s\", and no node has \"inputs\"), not graph "
              "JSON: read it with --input-format nodelink, or without --input-format", path, lk);
  else if (nodelink && !json_only)
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
