/* io_graphml.c - GraphML through igraph's reader.  Vertex attributes: size
 * (bytes), op, name, alias (-1 for a parameter view), inplace, workspace;
 * an optional edge attribute `output` selects output k of a multi-output
 * source.  Vertex order in the file is the given order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "util.h"

/* Attribute type of a vertex / edge attribute, or -1 when absent. */
static int attr_type(const igraph_strvector_t *names, const igraph_vector_int_t *types,
                     const char *name) {
  for (igraph_integer_t i = 0; i < igraph_strvector_size(names); i++)
    if (!strcmp(igraph_strvector_get(names, i), name)) return (int)VECTOR(*types)[i];
  return -1;
}

/* Numeric value of a vertex attribute (numbers, numeric strings, booleans);
 * NAN when absent or empty. */
static double vnum(const igraph_t *G, int type, const char *name, igraph_integer_t v, bool *bad) {
  if (type == IGRAPH_ATTRIBUTE_NUMERIC) return VAN(G, name, v);
  if (type == IGRAPH_ATTRIBUTE_BOOLEAN) return VAB(G, name, v) ? 1 : 0;
  if (type == IGRAPH_ATTRIBUTE_STRING) {
    const char *s = VAS(G, name, v);
    if (!s || !*s) return NAN;
    char *end;
    double d = strtod(s, &end);
    if (*end) {
      if (!strcmp(s, "true") || !strcmp(s, "True")) return 1;
      if (!strcmp(s, "false") || !strcmp(s, "False")) return 0;
      *bad = true;
    }
    return d;
  }
  return NAN;
}

mp_graph *mp_graph_read_graphml(const char *path, bool toposort, mp_error *err) {
  igraph_set_error_handler(igraph_error_handler_ignore);
  igraph_set_warning_handler(igraph_warning_handler_ignore);
  igraph_set_attribute_table(&igraph_cattribute_table);
  FILE *fp = fopen(path, "r");
  if (!fp) {
    mp_errorf(err, "%s: cannot open", path);
    return NULL;
  }
  igraph_t G;
  igraph_error_t e = igraph_read_graph_graphml(&G, fp, 0);
  fclose(fp);
  if (e != IGRAPH_SUCCESS) {
    mp_errorf(err, "%s: not a readable GraphML file (%s)", path, igraph_strerror(e));
    return NULL;
  }
  igraph_strvector_t gn, vn, en;
  igraph_vector_int_t gt, vt, et;
  igraph_strvector_init(&gn, 0);
  igraph_strvector_init(&vn, 0);
  igraph_strvector_init(&en, 0);
  igraph_vector_int_init(&gt, 0);
  igraph_vector_int_init(&vt, 0);
  igraph_vector_int_init(&et, 0);
  igraph_cattribute_list(&G, &gn, &gt, &vn, &vt, &en, &et);
  int t_size = attr_type(&vn, &vt, "size"), t_op = attr_type(&vn, &vt, "op");
  int t_name = attr_type(&vn, &vt, "name"), t_alias = attr_type(&vn, &vt, "alias");
  int t_inpl = attr_type(&vn, &vt, "inplace"), t_ws = attr_type(&vn, &vt, "workspace");
  int t_out = attr_type(&en, &et, "output");

  mp_graph *g = mp_xcalloc(1, sizeof *g);
  g->file = mp_xstrdup(path);
  const char *b = strrchr(path, '/');
  g->name = mp_xstrdup(b ? b + 1 : path);
  g->n = (int)igraph_vcount(&G);
  g->nodes = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(mp_node));
  g->given = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(int));
  int rc = 0;
  for (int v = 0; v < g->n && !rc; v++) {
    mp_node *nd = &g->nodes[v];
    bool bad = false;
    nd->id = v;
    g->given[v] = v;
    nd->name = mp_xstrdup(t_name == IGRAPH_ATTRIBUTE_STRING ? VAS(&G, "name", v) : "");
    nd->op = mp_xstrdup(t_op == IGRAPH_ATTRIBUTE_STRING ? VAS(&G, "op", v) : "");
    nd->is_input = !strcmp(nd->op, "input");
    nd->is_output = !strcmp(nd->op, "output");
    nd->n_out = 1;
    nd->out_size = mp_xcalloc(1, sizeof(int64_t));
    double sz = vnum(&G, t_size, "size", v, &bad);
    double ws = vnum(&G, t_ws, "workspace", v, &bad);
    double al = vnum(&G, t_alias, "alias", v, &bad);
    double ip = vnum(&G, t_inpl, "inplace", v, &bad);
    if (bad) {
      rc = mp_errorf(err, "%s: node %d: a non-numeric size, workspace, alias or inplace", path, v);
      break;
    }
    if (!isnan(sz)) {
      if (sz < 0) rc = mp_errorf(err, "%s: node %d: negative size %g", path, v, sz);
      else if (sz != floor(sz)) rc = mp_errorf(err, "%s: node %d: fractional size %g", path, v, sz);
      else if (sz > 72057594037927936.0) rc = mp_errorf(err, "%s: node %d: size %g overflows", path, v, sz);
      else nd->out_size[0] = (int64_t)sz;
    }
    if (!rc && !isnan(ws)) {
      if (ws < 0 || ws != floor(ws) || ws > 72057594037927936.0)
        rc = mp_errorf(err, "%s: node %d: bad workspace %g", path, v, ws);
      else nd->workspace = (int64_t)ws;
    }
    if (!rc && !isnan(al)) {
      nd->has_alias = true;
      nd->alias.node = al == -1 ? MP_PARAM_ALIAS : (int)al;
      nd->alias.out = MP_ALL_OUTPUTS;
      if (al != -1 && (al < 0 || al != floor(al) || al >= g->n))
        rc = mp_errorf(err, "%s: node %d: alias %g is out of range", path, v, al);
    }
    if (!rc && !isnan(ip)) nd->inplace = ip != 0;
    if (!rc && nd->inplace && !nd->has_alias)
      rc = mp_errorf(err, "%s: node %d: inplace without alias", path, v);
  }
  if (!rc) {
    /* inputs in edge order */
    igraph_integer_t ne = igraph_ecount(&G);
    for (igraph_integer_t eid = 0; eid < ne; eid++) {
      int to = (int)IGRAPH_TO(&G, eid);
      g->nodes[to].n_in++;
    }
    for (int v = 0; v < g->n; v++) {
      g->nodes[v].in = mp_xcalloc((size_t)(g->nodes[v].n_in ? g->nodes[v].n_in : 1), sizeof(mp_ref));
      g->nodes[v].n_in = 0;
    }
    for (igraph_integer_t eid = 0; eid < ne; eid++) {
      int from = (int)IGRAPH_FROM(&G, eid), to = (int)IGRAPH_TO(&G, eid);
      mp_node *nd = &g->nodes[to];
      mp_ref r = {from, MP_ALL_OUTPUTS};
      if (t_out == IGRAPH_ATTRIBUTE_NUMERIC) {
        double k = EAN(&G, "output", eid);
        if (!isnan(k)) r.out = (int)k;
      }
      nd->in[nd->n_in++] = r;
    }
  }
  igraph_strvector_destroy(&gn);
  igraph_strvector_destroy(&vn);
  igraph_strvector_destroy(&en);
  igraph_vector_int_destroy(&gt);
  igraph_vector_int_destroy(&vt);
  igraph_vector_int_destroy(&et);
  igraph_destroy(&G);
  if (!rc) rc = mp_graph_finish(g, toposort, err);
  if (rc) {
    mp_graph_free(g);
    return NULL;
  }
  return g;
}
