/* io.h - files in and out: instances (graph or fixed-lifetime CSV), plans,
 * and the atomic-write rule (no partial output file, ever). */
#ifndef MP_IO_H
#define MP_IO_H

#include <stdio.h>
#include "outfile.h"
#include "plan.h"

/* A problem instance: a graph, or a fixed-lifetime placement problem. */
typedef struct mp_instance {
  mp_graph *g;       /* set for graphs */
  mp_problem *fixed; /* set for CSV files */
} mp_instance;

typedef struct mp_load_opts {
  bool toposort;          /* sort a non-topological file order */
  const char *format;     /* NULL (by extension), json, graphml, nodelink, csv */
  const char *size_attr;  /* node-link / GraphML attribute with output bytes */
  const char *cost_attr;  /* node-link attribute with node times (DESIGN 6.1) */
} mp_load_opts;

int mp_instance_load(const char *path, const mp_load_opts *o, mp_instance *in, mp_error *err);
void mp_instance_destroy(mp_instance *in);
const char *mp_instance_name(const mp_instance *in);

int mp_csv_read(const char *path, mp_problem *p, mp_error *err);
int mp_csv_write(FILE *out, const mp_problem *p, const int64_t *offsets);


#endif
