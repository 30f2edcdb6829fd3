/* graph_write.h - writing a loaded graph back out: DESIGN 1.1 JSON (one node per
 * line, so generated files diff well) and networkx node-link JSON. */
#ifndef MP_GRAPH_WRITE_H
#define MP_GRAPH_WRITE_H

#include <stdio.h>

#include "graph.h"

/* DESIGN 1.1 JSON, nodes in the given order.  `source` (may be NULL) is
 * written as the file's "source" field.  The keys of DESIGN 6.1 (cost,
 * phase, host_bandwidth) are written when the file gave them.  0, or -1 on
 * a write error. */
int mp_graph_dump_json(const mp_graph *g, FILE *fp, const char *source);

/* networkx node-link JSON (what networkx.node_link_data writes for a
 * MultiDiGraph): "directed", "multigraph", "graph" {name, param_bytes},
 * "nodes" (in the given order) with id, name, op, size (bytes of the only
 * output, or the sum of all), outputs (when not exactly one), workspace,
 * alias, alias_output (k of an [j, k] alias), inplace, cost and phase (when
 * the file gave them; host_bandwidth under "graph"); "links" with source,
 * target, key (the input position) and output (k of an [j, k] input).
 * memplan's node-link reader reads all of these back: a round trip keeps
 * every figure.  0, or -1 on a write error. */
int mp_graph_dump_nodelink(const mp_graph *g, FILE *fp);

#endif
