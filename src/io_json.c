/* io_json.c - the graph file of DESIGN 1.1, read with jansson; JSON loading
 * shared with the node-link reader.  A file with a "links" (or "edges") key
 * beside "nodes" is networkx node-link data and is read as such, unless a
 * node has "inputs": node-link nodes have none, and graph JSON ignores the
 * keys it does not know (DESIGN 1.1). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "io_util.h"
#include "util.h"

const char *const mp_graph_stream_keys[] = {"nodes", "links", "edges", NULL};

const char *mp_json_links_key(mp_jdoc *d) {
  return mp_jdoc_has(d, "links") ? "links" : mp_jdoc_has(d, "edges") ? "edges" : NULL;
}

bool mp_json_is_nodelink(mp_jdoc *d) {
  return json_is_object(mp_jdoc_root(d)) && mp_jdoc_is_array(d, "nodes") && mp_json_links_key(d) &&
         !mp_jdoc_some_elem_has(d, "nodes", "inputs");
}

int mp_json_exact_int(json_t *v, int64_t *out, const char **why) {
  if (json_is_integer(v)) {
    *out = json_integer_value(v);
    return 0;
  }
  if (!json_is_real(v)) return (*why = "not a number"), -1;
  double d = json_real_value(v);
  if (d != floor(d)) return (*why = "fractional"), -1;
  if (fabs(d) >= 9007199254740992.0) return (*why = "not exact as a real (write it as an integer)"), -1;
  *out = (int64_t)d;
  return 0;
}

/* A non-negative byte count of at most MP_MAX_SIZE. */
static int get_bytes(json_t *v, const char *file, int id, const char *what, int64_t *out,
                     mp_error *err) {
  const char *why;
  int64_t x;
  if (json_is_real(v) && fabs(json_real_value(v)) > (double)MP_MAX_SIZE)
    return mp_errorf(err, "%s: node %d: %s %g overflows (at most 2^56 bytes)", file, id, what,
                     json_real_value(v));
  if (mp_json_exact_int(v, &x, &why)) {
    if (json_is_real(v) && !strcmp(why, "fractional"))
      return mp_errorf(err, "%s: node %d: fractional %s %g", file, id, what, json_real_value(v));
    return mp_errorf(err, "%s: node %d: %s is %s", file, id, what, why);
  }
  if (x < 0) return mp_errorf(err, "%s: node %d: negative %s %lld", file, id, what, (long long)x);
  if (x > MP_MAX_SIZE)
    return mp_errorf(err, "%s: node %d: %s %lld overflows (at most 2^56 bytes)", file, id, what,
                     (long long)x);
  *out = x;
  return 0;
}

/* A finite non-negative number: a cost or a bandwidth (DESIGN 6.1). */
static int get_time(json_t *v, const char *file, int id, const char *what, double *out,
                    mp_error *err) {
  char where[48] = "";
  if (id >= 0) snprintf(where, sizeof where, " node %d:", id);
  if (!json_is_number(v)) return mp_errorf(err, "%s:%s %s is not a number", file, where, what);
  double d = json_number_value(v);
  if (!isfinite(d) || d < 0)
    return mp_errorf(err, "%s:%s %s %g is not a finite non-negative number", file, where, what, d);
  *out = d;
  return 0;
}

/* `j` or `[j, k]`; node ids outside 0..n-1 and output indices beyond int
 * are reported as written. */
static int get_ref(json_t *v, const char *file, int id, int n, const char *what, mp_ref *r,
                   mp_error *err) {
  json_int_t a, b = MP_ALL_OUTPUTS;
  if (json_is_integer(v)) {
    a = json_integer_value(v);
  } else if (json_is_array(v) && json_array_size(v) == 2 &&
             json_is_integer(json_array_get(v, 0)) && json_is_integer(json_array_get(v, 1))) {
    a = json_integer_value(json_array_get(v, 0));
    b = json_integer_value(json_array_get(v, 1));
    if (b < 0 || b > INT32_MAX)
      return mp_errorf(err, "%s: node %d: %s [%lld, %lld] has a bad output index", file, id, what,
                       (long long)a, (long long)b);
  } else {
    return mp_errorf(err, "%s: node %d: %s must be a node id or [id, output]", file, id, what);
  }
  if (a < 0 || a >= n)
    return mp_errorf(err, "%s: node %d: %s %lld is out of range (ids are 0..%d)", file, id, what,
                     (long long)a, n - 1);
  r->node = (int)a;
  r->out = (int)b;
  return 0;
}

static int get_string(json_t *o, const char *key, const char *file, int v, const char **out,
                      mp_error *err) {
  json_t *x = json_object_get(o, key);
  if (x && !json_is_string(x)) return mp_errorf(err, "%s: node %d: %s is not a string", file, v, key);
  *out = x ? json_string_value(x) : "";
  return 0;
}

static int parse_outputs(json_t *o, const char *file, int v, mp_node *nd, mp_bump *mem,
                         mp_error *err) {
  json_t *size = json_object_get(o, "size"), *outs = json_object_get(o, "outputs");
  if (size && outs) return mp_errorf(err, "%s: node %d: has both size and outputs", file, v);
  if (!outs) {
    nd->n_out = 1;
    nd->out_size = mp_bump_array(mem, 1, sizeof(int64_t));
    return size ? get_bytes(size, file, v, "size", &nd->out_size[0], err) : 0;
  }
  if (!json_is_array(outs)) return mp_errorf(err, "%s: node %d: outputs is not an array", file, v);
  if (json_array_size(outs) > INT32_MAX)
    return mp_errorf(err, "%s: node %d: too many outputs", file, v);
  nd->n_out = (int)json_array_size(outs);
  nd->out_size = mp_bump_array(mem, (size_t)nd->n_out, sizeof(int64_t));
  for (int k = 0; k < nd->n_out; k++)
    if (get_bytes(json_array_get(outs, (size_t)k), file, v, "output size", &nd->out_size[k], err))
      return -1;
  return 0;
}

static int parse_inputs(json_t *o, const char *file, int v, int n, mp_node *nd, mp_bump *mem,
                        mp_error *err) {
  json_t *ins = json_object_get(o, "inputs");
  if (ins && !json_is_array(ins)) return mp_errorf(err, "%s: node %d: inputs is not an array", file, v);
  if (ins && json_array_size(ins) > INT32_MAX)
    return mp_errorf(err, "%s: node %d: too many inputs", file, v);
  nd->n_in = ins ? (int)json_array_size(ins) : 0;
  nd->in = mp_bump_array(mem, (size_t)nd->n_in, sizeof(mp_ref));
  for (int i = 0; i < nd->n_in; i++)
    if (get_ref(json_array_get(ins, (size_t)i), file, v, n, "input", &nd->in[i], err)) return -1;
  return 0;
}

static int parse_alias(json_t *o, const char *file, int v, int n, mp_node *nd, mp_error *err) {
  json_t *x = json_object_get(o, "alias");
  if (x && !json_is_null(x)) {
    nd->has_alias = true;
    if (json_is_integer(x) && json_integer_value(x) == -1) {
      nd->alias.node = MP_PARAM_ALIAS;
      nd->alias.out = MP_ALL_OUTPUTS;
    } else if (get_ref(x, file, v, n, "alias", &nd->alias, err)) {
      return -1;
    }
  }
  x = json_object_get(o, "inplace");
  if (x && !json_is_null(x)) {
    if (!json_is_boolean(x)) return mp_errorf(err, "%s: node %d: inplace is not a boolean", file, v);
    nd->inplace = json_is_true(x);
    if (nd->inplace && !nd->has_alias)
      return mp_errorf(err, "%s: node %d: inplace without alias (which storage does it write?)",
                       file, v);
  }
  return 0;
}

static int parse_node(json_t *o, int idx, const char *file, mp_graph *g, char *seen,
                      mp_error *err) {
  if (!json_is_object(o)) return mp_errorf(err, "%s: nodes[%d]: not an object", file, idx);
  json_t *jid = json_object_get(o, "id");
  if (!jid) return mp_errorf(err, "%s: nodes[%d]: missing id", file, idx);
  if (!json_is_integer(jid)) return mp_errorf(err, "%s: nodes[%d]: id is not an integer", file, idx);
  json_int_t id = json_integer_value(jid);
  if (id < 0 || id >= g->n)
    return mp_errorf(err, "%s: nodes[%d]: id %lld is out of range (ids are 0..%d)", file, idx,
                     (long long)id, g->n - 1);
  if (seen[id]) return mp_errorf(err, "%s: node %lld: duplicate id", file, (long long)id);
  seen[id] = 1;
  int v = (int)id;
  g->given[idx] = v;
  mp_node *nd = &g->nodes[v];
  nd->id = v;
  const char *name = NULL, *op = NULL;
  if (get_string(o, "name", file, v, &name, err) || get_string(o, "op", file, v, &op, err))
    return -1;
  nd->name = mp_bump_strdup(&g->mem, name);
  nd->op = mp_bump_intern(&g->mem, op);
  nd->is_input = strcmp(nd->op, "input") == 0;
  nd->is_output = strcmp(nd->op, "output") == 0;
  if (parse_outputs(o, file, v, nd, &g->mem, err) ||
      parse_inputs(o, file, v, g->n, nd, &g->mem, err) ||
      parse_alias(o, file, v, g->n, nd, err))
    return -1;
  json_t *x = json_object_get(o, "workspace");
  if (x && !json_is_null(x) && get_bytes(x, file, v, "workspace", &nd->workspace, err)) return -1;
  x = json_object_get(o, "cost");
  if (x && !json_is_null(x)) {
    if (get_time(x, file, v, "cost", &nd->cost, err)) return -1;
    nd->has_cost = true;
  }
  x = json_object_get(o, "phase");
  if (x && !json_is_null(x) &&
      (!json_is_string(x) || (nd->phase = mp_phase_parse(json_string_value(x))) < 0))
    return mp_errorf(err, "%s: node %d: phase must be \"fwd\", \"bwd\" or \"opt\"", file, v);
  return 0;
}

/* Top-level values other than the nodes: 0, or -1 with err set. */
static int parse_top(mp_jdoc *d, const char *path, mp_graph *g, mp_error *err) {
  json_t *nm = mp_jdoc_get(d, "name");
  /* without a name: the file stem, as for CSV problems */
  g->name = json_is_string(nm) ? mp_xstrdup(json_string_value(nm)) : mp_file_stem(path, ".json");
  json_t *pb = mp_jdoc_get(d, "param_bytes");
  if (json_is_integer(pb)) g->param_bytes = json_integer_value(pb);
  json_t *bw = mp_jdoc_get(d, "host_bandwidth");
  if (bw && !json_is_null(bw) && get_time(bw, path, -1, "host_bandwidth", &g->host_bandwidth, err))
    return -1;
  return 0;
}

/* The nodes, one element at a time. */
static int parse_nodes(mp_jdoc *d, const char *path, mp_graph *g, mp_error *err) {
  g->nodes = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(mp_node));
  g->given = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(int));
  char *seen = mp_xcalloc((size_t)(g->n ? g->n : 1), 1);
  int rc = 0;
  for (int i = 0; i < g->n && rc == 0; i++) {
    if (mp_json_plain_node(d, i, g, seen)) continue;
    json_t *o = mp_jdoc_elem(d, "nodes", (size_t)i, err);
    rc = o ? parse_node(o, i, path, g, seen, err) : -1;
  }
  free(seen);
  return rc;
}

mp_graph *mp_graph_from_json(mp_jdoc *d, const char *path, mp_error *err) {
  if (!json_is_object(mp_jdoc_root(d))) {
    mp_errorf(err, "%s: the top level is not a JSON object", path);
    return NULL;
  }
  if (!mp_jdoc_is_array(d, "nodes")) {
    mp_errorf(err, "%s: no \"nodes\" array", path);
    return NULL;
  }
  if (mp_jdoc_count(d, "nodes") > MP_MAX_NODES) {
    mp_errorf(err, "%s: %zu nodes: more than memplan's limit of 2^28", path, mp_jdoc_count(d, "nodes"));
    return NULL;
  }
  mp_graph *g = mp_xcalloc(1, sizeof *g);
  g->file = mp_xstrdup(path);
  int rc = parse_top(d, path, g, err);
  if (rc == 0) {
    g->n = (int)mp_jdoc_count(d, "nodes");
    rc = parse_nodes(d, path, g, err);
  }
  if (rc) {
    mp_graph_destroy(g);
    return NULL;
  }
  return g;
}

mp_graph *mp_graph_read_json(const char *path, bool toposort, mp_error *err) {
  mp_jdoc *d = mp_jdoc_open(path, mp_graph_stream_keys, err);
  if (!d) return NULL;
  mp_graph *g = mp_json_is_nodelink(d) ? mp_graph_from_nodelink(d, path, NULL, NULL, err)
                                       : mp_graph_from_json(d, path, err);
  return mp_graph_json_done(d, g, toposort, err);
}

mp_graph *mp_graph_json_done(mp_jdoc *d, mp_graph *g, bool toposort, mp_error *err) {
  if (mp_jdoc_settle(d, err) && g) {
    mp_graph_destroy(g);
    g = NULL;
  }
  mp_jdoc_destroy(d);
  if (g && mp_graph_finish(g, toposort, err)) {
    mp_graph_destroy(g);
    g = NULL;
  }
  return g;
}
