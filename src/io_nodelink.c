/* io_nodelink.c - networkx node-link JSON (node_link_data): `nodes` with an
 * id and attributes, `links` with source and target.  The attribute holding
 * output bytes is chosen by the caller (--size-attr); op, name, alias,
 * inplace and workspace are read when present.  Node order is the given
 * order; link order is input order.  What `memplan convert --to nodelink`
 * adds is read too: `outputs` (a list of bytes, for several outputs; it
 * takes precedence over the size attribute), `alias_output` (k of an
 * [j, k] alias), a link's `output` (k of an [j, k] input) and the graph's
 * `param_bytes`. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "util.h"

/* Index of the node whose "id" equals x (ids may be numbers or strings). */
static int find_id(json_t *nodes, json_t *x) {
  size_t i;
  json_t *o;
  json_array_foreach(nodes, i, o) {
    if (json_equal(json_object_get(o, "id"), x)) return (int)i;
  }
  return -1;
}

static int bytes_of(json_t *x, const char *path, int v, const char *what, int64_t *out,
                    mp_error *err) {
  if (!x || json_is_null(x)) return 0;
  if (!json_is_number(x)) return mp_errorf(err, "%s: node %d: %s is not a number", path, v, what);
  double d = json_number_value(x);
  if (d < 0) return mp_errorf(err, "%s: node %d: negative %s", path, v, what);
  if (d != floor(d)) return mp_errorf(err, "%s: node %d: fractional %s %g", path, v, what, d);
  if (d > 72057594037927936.0) return mp_errorf(err, "%s: node %d: %s overflows", path, v, what);
  *out = (int64_t)d;
  return 0;
}

mp_graph *mp_graph_read_nodelink(const char *path, const char *size_attr, bool toposort,
                                 mp_error *err) {
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je);
  if (!root) {
    mp_errorf(err, "%s:%d:%d: not valid JSON: %s", path, je.line, je.column, je.text);
    return NULL;
  }
  json_t *nodes = json_object_get(root, "nodes");
  json_t *links = json_object_get(root, "links");
  if (!links) links = json_object_get(root, "edges");
  if (!json_is_array(nodes) || !json_is_array(links)) {
    json_decref(root);
    mp_errorf(err, "%s: node-link JSON needs \"nodes\" and \"links\" arrays", path);
    return NULL;
  }
  mp_graph *g = mp_xcalloc(1, sizeof *g);
  g->file = mp_xstrdup(path);
  json_t *gr = json_object_get(root, "graph");
  json_t *nm = json_is_object(gr) ? json_object_get(gr, "name") : NULL;
  const char *b = strrchr(path, '/');
  g->name = mp_xstrdup(json_is_string(nm) ? json_string_value(nm) : (b ? b + 1 : path));
  json_t *pb = json_is_object(gr) ? json_object_get(gr, "param_bytes") : NULL;
  if (json_is_integer(pb)) g->param_bytes = json_integer_value(pb);
  g->n = (int)json_array_size(nodes);
  g->nodes = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(mp_node));
  g->given = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(int));
  int rc = 0;
  for (int v = 0; v < g->n && !rc; v++) {
    json_t *o = json_array_get(nodes, (size_t)v);
    mp_node *nd = &g->nodes[v];
    nd->id = v;
    g->given[v] = v;
    nd->n_out = 1;
    nd->out_size = mp_xcalloc(1, sizeof(int64_t));
    if (!json_is_object(o)) {
      rc = mp_errorf(err, "%s: nodes[%d] is not an object", path, v);
      break;
    }
    json_t *x = json_object_get(o, "name");
    nd->name = mp_xstrdup(json_is_string(x) ? json_string_value(x) : "");
    x = json_object_get(o, "op");
    nd->op = mp_xstrdup(json_is_string(x) ? json_string_value(x) : "");
    nd->is_input = !strcmp(nd->op, "input");
    nd->is_output = !strcmp(nd->op, "output");
    if (find_id(nodes, json_object_get(o, "id")) != v) {
      rc = mp_errorf(err, "%s: nodes[%d]: missing or duplicate id", path, v);
      break;
    }
    json_t *outs = json_object_get(o, "outputs"); /* several outputs (memplan's writer) */
    if (json_is_array(outs)) {
      nd->n_out = (int)json_array_size(outs);
      nd->out_size = mp_xrealloc(nd->out_size, sizeof(int64_t) * (size_t)(nd->n_out ? nd->n_out : 1));
      for (int k = 0; k < nd->n_out && !rc; k++) {
        nd->out_size[k] = 0;
        rc = bytes_of(json_array_get(outs, (size_t)k), path, v, "outputs", &nd->out_size[k], err);
      }
    } else {
      rc = bytes_of(json_object_get(o, size_attr), path, v, size_attr, &nd->out_size[0], err);
    }
    if (!rc) rc = bytes_of(json_object_get(o, "workspace"), path, v, "workspace", &nd->workspace, err);
    x = json_object_get(o, "alias");
    if (!rc && x && !json_is_null(x)) {
      nd->has_alias = true;
      nd->alias.out = MP_ALL_OUTPUTS;
      if (json_is_integer(x) && json_integer_value(x) == -1 && find_id(nodes, x) < 0) {
        nd->alias.node = MP_PARAM_ALIAS;
      } else {
        nd->alias.node = find_id(nodes, x);
        if (nd->alias.node < 0) rc = mp_errorf(err, "%s: node %d: alias names no node", path, v);
        json_t *ao = json_object_get(o, "alias_output");
        if (!rc && json_is_integer(ao)) nd->alias.out = (int)json_integer_value(ao);
      }
    }
    x = json_object_get(o, "inplace");
    if (!rc && json_is_true(x)) nd->inplace = true;
  }
  size_t li;
  json_t *l;
  if (!rc) {
    json_array_foreach(links, li, l) {
      int s = find_id(nodes, json_object_get(l, "source"));
      int t = find_id(nodes, json_object_get(l, "target"));
      if (s < 0 || t < 0) {
        rc = mp_errorf(err, "%s: links[%zu]: source or target names no node", path, li);
        break;
      }
      mp_node *nd = &g->nodes[t];
      nd->in = mp_xrealloc(nd->in, sizeof(mp_ref) * (size_t)(nd->n_in + 1));
      json_t *lo = json_object_get(l, "output"); /* [j, k] input (memplan's writer) */
      nd->in[nd->n_in++] = (mp_ref){s, json_is_integer(lo) ? (int)json_integer_value(lo)
                                                           : MP_ALL_OUTPUTS};
    }
  }
  for (int v = 0; v < g->n; v++)
    if (!g->nodes[v].in) g->nodes[v].in = mp_xcalloc(1, sizeof(mp_ref));
  json_decref(root);
  if (!rc) rc = mp_graph_finish(g, toposort, err);
  if (rc) {
    mp_graph_free(g);
    return NULL;
  }
  return g;
}

mp_graph *mp_graph_read(const char *path, bool toposort, mp_error *err) {
  size_t n = strlen(path);
  if (n > 8 && !strcmp(path + n - 8, ".graphml")) return mp_graph_read_graphml(path, toposort, err);
  return mp_graph_read_json(path, toposort, err);
}
