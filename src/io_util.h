/* io_util.h - what the readers in src/io_*.c share (not a public header):
 * opening an input, loading JSON, exact numbers, and the JSON-based graph
 * readers behind mp_graph_read_json / mp_graph_read_nodelink. */
#ifndef MP_IO_UTIL_H
#define MP_IO_UTIL_H

#include <jansson.h>

#include "graph.h"

/* Can `path` be read as an input?  Regular files, pipes and devices are
 * (read as streams); a directory or a missing file is an error naming it.
 * 0, or -1 with err set. */
int mp_check_input(const char *path, mp_error *err);

/* A JSON document, or NULL with a message naming the file, line and column. */
json_t *mp_json_load(const char *path, mp_error *err);

/* networkx node-link data: "nodes" beside "links" (or "edges"). */
bool mp_json_is_nodelink(json_t *root);

/* Graphs from a loaded document (root is borrowed). */
mp_graph *mp_graph_from_json(json_t *root, const char *path, bool toposort, mp_error *err);
mp_graph *mp_graph_from_nodelink(json_t *root, const char *path, const char *size_attr,
                                 const char *cost_attr, bool toposort, mp_error *err);

/* A JSON value holding an integer exactly: a JSON integer, or a real with no
 * fraction below 2^53 (4.0; 2^53 and beyond a double may already have
 * rounded).  0, or -1 with *why ("not a number", "fractional", "not exact"). */
int mp_json_exact_int(json_t *v, int64_t *out, const char **why);

/* The file name without its directory and, when it ends so, `suffix`
 * (malloc'ed). */
char *mp_file_stem(const char *path, const char *suffix);

#endif
