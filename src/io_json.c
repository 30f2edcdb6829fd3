/* io_json.c - the graph file of DESIGN 1.1, read and written with jansson. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "util.h"

/* Largest size accepted: the sums of all sizes must stay far from overflow. */
#define MP_MAX_BYTES ((int64_t)1 << 56)

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* A non-negative byte count. */
static int get_bytes(json_t *v, const char *file, int id, const char *what, int64_t *out,
                     mp_error *err) {
  if (json_is_integer(v)) {
    json_int_t x = json_integer_value(v);
    if (x < 0) return mp_errorf(err, "%s: node %d: negative %s %lld", file, id, what, (long long)x);
    if (x > MP_MAX_BYTES)
      return mp_errorf(err, "%s: node %d: %s %lld overflows (at most 2^56 bytes)", file, id, what,
                       (long long)x);
    *out = x;
    return 0;
  }
  if (json_is_real(v)) {
    double d = json_real_value(v);
    if (d != floor(d)) return mp_errorf(err, "%s: node %d: fractional %s %g", file, id, what, d);
    if (d < 0) return mp_errorf(err, "%s: node %d: negative %s %g", file, id, what, d);
    if (d > (double)MP_MAX_BYTES)
      return mp_errorf(err, "%s: node %d: %s %g overflows (at most 2^56 bytes)", file, id, what, d);
    *out = (int64_t)d;
    return 0;
  }
  return mp_errorf(err, "%s: node %d: %s is not a number", file, id, what);
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

/* `j` or `[j, k]` */
static int get_ref(json_t *v, const char *file, int id, const char *what, mp_ref *r,
                   mp_error *err) {
  if (json_is_integer(v)) {
    r->node = (int)json_integer_value(v);
    if ((json_int_t)r->node != json_integer_value(v)) r->node = -2;
    r->out = MP_ALL_OUTPUTS;
    return 0;
  }
  if (json_is_array(v) && json_array_size(v) == 2 && json_is_integer(json_array_get(v, 0)) &&
      json_is_integer(json_array_get(v, 1))) {
    json_int_t a = json_integer_value(json_array_get(v, 0));
    json_int_t b = json_integer_value(json_array_get(v, 1));
    r->node = (a < -2 || a > INT32_MAX) ? -2 : (int)a;
    r->out = (b < 0 || b > INT32_MAX) ? -2 : (int)b;
    if (r->out == -2)
      return mp_errorf(err, "%s: node %d: %s [%lld, %lld] has a bad output index", file, id, what,
                       (long long)a, (long long)b);
    return 0;
  }
  return mp_errorf(err, "%s: node %d: %s must be a node id or [id, output]", file, id, what);
}

static int parse_node(json_t *o, int idx, const char *file, mp_graph *g, char *seen,
                      mp_error *err) {
  if (!json_is_object(o))
    return mp_errorf(err, "%s: nodes[%d]: not an object", file, idx);
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
  json_t *x;
  x = json_object_get(o, "name");
  if (x && !json_is_string(x)) return mp_errorf(err, "%s: node %d: name is not a string", file, v);
  nd->name = mp_xstrdup(x ? json_string_value(x) : "");
  x = json_object_get(o, "op");
  if (x && !json_is_string(x)) return mp_errorf(err, "%s: node %d: op is not a string", file, v);
  nd->op = mp_xstrdup(x ? json_string_value(x) : "");
  nd->is_input = strcmp(nd->op, "input") == 0;
  nd->is_output = strcmp(nd->op, "output") == 0;

  json_t *size = json_object_get(o, "size"), *outs = json_object_get(o, "outputs");
  if (size && outs)
    return mp_errorf(err, "%s: node %d: has both size and outputs", file, v);
  if (outs) {
    if (!json_is_array(outs))
      return mp_errorf(err, "%s: node %d: outputs is not an array", file, v);
    nd->n_out = (int)json_array_size(outs);
    nd->out_size = mp_xcalloc((size_t)(nd->n_out ? nd->n_out : 1), sizeof(int64_t));
    for (int k = 0; k < nd->n_out; k++)
      if (get_bytes(json_array_get(outs, (size_t)k), file, v, "output size", &nd->out_size[k], err))
        return -1;
  } else {
    nd->n_out = 1;
    nd->out_size = mp_xcalloc(1, sizeof(int64_t));
    if (size && get_bytes(size, file, v, "size", &nd->out_size[0], err)) return -1;
  }

  json_t *ins = json_object_get(o, "inputs");
  if (ins && !json_is_array(ins))
    return mp_errorf(err, "%s: node %d: inputs is not an array", file, v);
  nd->n_in = ins ? (int)json_array_size(ins) : 0;
  nd->in = mp_xcalloc((size_t)(nd->n_in ? nd->n_in : 1), sizeof(mp_ref));
  for (int i = 0; i < nd->n_in; i++)
    if (get_ref(json_array_get(ins, (size_t)i), file, v, "input", &nd->in[i], err)) return -1;

  x = json_object_get(o, "alias");
  if (x && !json_is_null(x)) {
    nd->has_alias = true;
    if (json_is_integer(x) && json_integer_value(x) == -1) {
      nd->alias.node = MP_PARAM_ALIAS;
      nd->alias.out = MP_ALL_OUTPUTS;
    } else if (get_ref(x, file, v, "alias", &nd->alias, err)) {
      return -1;
    } else if (nd->alias.node < 0) {
      return mp_errorf(err, "%s: node %d: alias %d is out of range", file, v, nd->alias.node);
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
  x = json_object_get(o, "workspace");
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

mp_graph *mp_graph_read_json(const char *path, bool toposort, mp_error *err) {
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je);
  if (!root) {
    if (strstr(je.text, "too big"))
      mp_errorf(err, "%s:%d: a number overflows (%s)", path, je.line, je.text);
    else if (je.line <= 0 && je.position == 0 && strstr(je.text, "unable to open"))
      mp_errorf(err, "%s: cannot read: %s", path, je.text);
    else
      mp_errorf(err, "%s:%d:%d: not valid JSON: %s", path, je.line, je.column, je.text);
    return NULL;
  }
  if (!json_is_object(root)) {
    json_decref(root);
    mp_errorf(err, "%s: the top level is not a JSON object", path);
    return NULL;
  }
  json_t *nodes = json_object_get(root, "nodes");
  if (!nodes || !json_is_array(nodes)) {
    json_decref(root);
    mp_errorf(err, "%s: no \"nodes\" array", path);
    return NULL;
  }
  if (json_object_get(root, "links")) {
    json_decref(root);
    mp_errorf(err, "%s: this looks like networkx node-link JSON; read it with --format nodelink",
              path);
    return NULL;
  }
  mp_graph *g = mp_xcalloc(1, sizeof *g);
  g->file = mp_xstrdup(path);
  json_t *nm = json_object_get(root, "name");
  g->name = mp_xstrdup(json_is_string(nm) ? json_string_value(nm) : base_name(path));
  if (!json_is_string(nm)) { /* the file stem, as for CSV problems */
    size_t len = strlen(g->name);
    if (len > 5 && !strcmp(g->name + len - 5, ".json")) g->name[len - 5] = 0;
  }
  json_t *pb = json_object_get(root, "param_bytes");
  if (json_is_integer(pb)) g->param_bytes = json_integer_value(pb);
  json_t *bw = json_object_get(root, "host_bandwidth");
  if (bw && !json_is_null(bw) && get_time(bw, path, -1, "host_bandwidth", &g->host_bandwidth, err)) {
    json_decref(root);
    mp_graph_free(g);
    return NULL;
  }
  g->n = (int)json_array_size(nodes);
  g->nodes = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(mp_node));
  g->given = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(int));
  char *seen = mp_xcalloc((size_t)(g->n ? g->n : 1), 1);
  int rc = 0;
  for (int i = 0; i < g->n && rc == 0; i++)
    rc = parse_node(json_array_get(nodes, (size_t)i), i, path, g, seen, err);
  free(seen);
  json_decref(root);
  if (rc == 0) rc = mp_graph_finish(g, toposort, err);
  if (rc) {
    /* nodes never parsed have NULL fields: free is safe */
    mp_graph_free(g);
    return NULL;
  }
  return g;
}
