/* graph_write.c - graph writers: DESIGN 1.1 JSON and node-link JSON. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph_write.h"

/* Keys keep insertion order; ", " and ": " separators, no newlines.  Reals
 * (costs, the host bandwidth) get 15 significant digits: any decimal of up
 * to 15 digits reads back as the same double, without %.17g noise. */
#define DUMP_FLAGS (JSON_PRESERVE_ORDER | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15))

static json_t *ref_json(mp_ref r) {
  if (r.out == MP_ALL_OUTPUTS) return json_integer(r.node);
  return json_pack("[ii]", r.node, r.out);
}

/* Write `x` (consumed) followed by `tail`. */
static int put(FILE *fp, json_t *x, const char *tail) {
  int rc = json_dumpf(x, fp, DUMP_FLAGS);
  json_decref(x);
  if (fputs(tail, fp) < 0) rc = -1;
  return rc ? -1 : 0;
}

static json_t *node_common(const mp_node *nd) {
  json_t *o = json_object();
  json_object_set_new(o, "id", json_integer(nd->id));
  json_object_set_new(o, "name", json_string(nd->name ? nd->name : ""));
  json_object_set_new(o, "op", json_string(nd->op ? nd->op : ""));
  return o;
}

/* A number as an integer when it is one ("cost": 1 stays 1). */
static json_t *number_json(double x) {
  if (x > -9e15 && x < 9e15 && x == (double)(int64_t)x) return json_integer((json_int_t)x);
  return json_real(x);
}

/* DESIGN 6.1 keys: a cost the file gave (defaults are not written) and the
 * phase. */
static void node_time(json_t *o, const mp_node *nd) {
  if (nd->has_cost) json_object_set_new(o, "cost", number_json(nd->cost));
  if (mp_phase_name(nd->phase))
    json_object_set_new(o, "phase", json_string(mp_phase_name(nd->phase)));
}

int mp_graph_dump_json(const mp_graph *g, FILE *fp, const char *source) {
  int rc = 0;
  rc |= fputs("{\"name\": ", fp) < 0;
  rc |= put(fp, json_string(g->name ? g->name : ""), "");
  if (source) {
    rc |= fputs(", \"source\": ", fp) < 0;
    rc |= put(fp, json_string(source), "");
  }
  if (g->param_bytes) fprintf(fp, ", \"param_bytes\": %lld", (long long)g->param_bytes);
  if (g->host_bandwidth > 0) {
    rc |= fputs(", \"host_bandwidth\": ", fp) < 0;
    rc |= put(fp, number_json(g->host_bandwidth), "");
  }
  rc |= fputs(", \"nodes\": [\n", fp) < 0;
  for (int i = 0; i < g->n; i++) {
    const mp_node *nd = &g->nodes[g->given[i]];
    json_t *o = node_common(nd);
    if (nd->n_out == 1) {
      json_object_set_new(o, "size", json_integer(nd->out_size[0]));
    } else {
      json_t *outs = json_array();
      for (int k = 0; k < nd->n_out; k++) json_array_append_new(outs, json_integer(nd->out_size[k]));
      json_object_set_new(o, "outputs", outs);
    }
    json_t *ins = json_array();
    for (int k = 0; k < nd->n_in; k++) json_array_append_new(ins, ref_json(nd->in[k]));
    json_object_set_new(o, "inputs", ins);
    if (nd->has_alias)
      json_object_set_new(o, "alias", nd->alias.node == MP_PARAM_ALIAS ? json_integer(-1)
                                                                        : ref_json(nd->alias));
    if (nd->inplace) json_object_set_new(o, "inplace", json_true());
    if (nd->workspace) json_object_set_new(o, "workspace", json_integer(nd->workspace));
    node_time(o, nd);
    rc |= fputs(" ", fp) < 0;
    rc |= put(fp, o, i + 1 < g->n ? ",\n" : "\n");
  }
  rc |= fputs("]}\n", fp) < 0;
  return rc ? -1 : 0;
}

int mp_graph_dump_nodelink(const mp_graph *g, FILE *fp) {
  int rc = 0;
  json_t *gr = json_object();
  json_object_set_new(gr, "name", json_string(g->name ? g->name : ""));
  if (g->param_bytes) json_object_set_new(gr, "param_bytes", json_integer(g->param_bytes));
  if (g->host_bandwidth > 0) json_object_set_new(gr, "host_bandwidth", number_json(g->host_bandwidth));
  rc |= fputs("{\"directed\": true, \"multigraph\": true, \"graph\": ", fp) < 0;
  rc |= put(fp, gr, ",\n\"nodes\": [\n");
  for (int i = 0; i < g->n; i++) {
    const mp_node *nd = &g->nodes[g->given[i]];
    json_t *o = node_common(nd);
    int64_t total = 0;
    for (int k = 0; k < nd->n_out; k++) total += nd->out_size[k];
    json_object_set_new(o, "size", json_integer(total));
    if (nd->n_out != 1) {
      json_t *outs = json_array();
      for (int k = 0; k < nd->n_out; k++) json_array_append_new(outs, json_integer(nd->out_size[k]));
      json_object_set_new(o, "outputs", outs);
    }
    if (nd->workspace) json_object_set_new(o, "workspace", json_integer(nd->workspace));
    if (nd->has_alias) {
      json_object_set_new(o, "alias", json_integer(nd->alias.node));
      if (nd->alias.node != MP_PARAM_ALIAS && nd->alias.out != MP_ALL_OUTPUTS)
        json_object_set_new(o, "alias_output", json_integer(nd->alias.out));
    }
    if (nd->inplace) json_object_set_new(o, "inplace", json_true());
    node_time(o, nd);
    rc |= fputs(" ", fp) < 0;
    rc |= put(fp, o, i + 1 < g->n ? ",\n" : "\n");
  }
  rc |= fputs("],\n\"links\": [\n", fp) < 0;
  bool first = true;
  for (int i = 0; i < g->n; i++) {
    const mp_node *nd = &g->nodes[g->given[i]];
    for (int k = 0; k < nd->n_in; k++) {
      json_t *l = json_object();
      json_object_set_new(l, "source", json_integer(nd->in[k].node));
      json_object_set_new(l, "target", json_integer(nd->id));
      json_object_set_new(l, "key", json_integer(k));
      if (nd->in[k].out != MP_ALL_OUTPUTS)
        json_object_set_new(l, "output", json_integer(nd->in[k].out));
      rc |= fputs(first ? " " : ",\n ", fp) < 0;
      first = false;
      rc |= put(fp, l, "");
    }
  }
  rc |= fputs(first ? "]}\n" : "\n]}\n", fp) < 0;
  return rc ? -1 : 0;
}
