/* reach_igraph.c - why schedbound.c builds reachability as bitset rows
 * instead of asking igraph (the comment in src/schedbound.h): the same
 * ancestor and descendant sets through
 *   (a) mp_reach_init: one pass forwards and one backwards, OR-ing rows;
 *   (b) igraph_subcomponent(IGRAPH_IN) and (IGRAPH_OUT) for every node,
 *       on the graph's precedence edges (data and in-place, g->pred).
 * Both counts are compared (sum of ancestors + descendants).
 *   make && cc -O2 -std=c11 -D_GNU_SOURCE -Isrc $(pkg-config --cflags igraph jansson) \
 *     scripts/reach_igraph.c build/libmemplan.a -o /tmp/reach_igraph \
 *     $(pkg-config --libs igraph jansson cairo libxml-2.0) -lglpk -lsqlite3 -lm
 *   /tmp/reach_igraph graphs/real/efficientnet_b0_train_b32.json 3 */
#include <igraph.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph.h"
#include "schedbound.h"
#include "util.h"

static long with_bitsets(const mp_graph *g) {
  mp_reach R;
  mp_reach_init(&R, g);
  long total = 0;
  for (int v = 0; v < g->n; v++) total += mp_reach_n_anc(&R, v) + mp_reach_n_des(&R, v);
  mp_reach_destroy(&R);
  return total;
}

static long with_igraph(const mp_graph *g) {
  int m = 0;
  for (int v = 0; v < g->n; v++) m += g->n_pred[v];
  igraph_vector_int_t ev, set;
  igraph_vector_int_init(&ev, 2 * (igraph_integer_t)m);
  m = 0;
  for (int v = 0; v < g->n; v++)
    for (int j = 0; j < g->n_pred[v]; j++, m++)
      VECTOR(ev)[2 * m] = g->pred[v][j], VECTOR(ev)[2 * m + 1] = v;
  igraph_t G;
  igraph_create(&G, &ev, g->n, IGRAPH_DIRECTED);
  igraph_vector_int_init(&set, 0);
  long total = 0;
  for (int v = 0; v < g->n; v++) {
    igraph_subcomponent(&G, &set, v, IGRAPH_IN);
    total += (long)igraph_vector_int_size(&set) - 1;
    igraph_subcomponent(&G, &set, v, IGRAPH_OUT);
    total += (long)igraph_vector_int_size(&set) - 1;
  }
  igraph_vector_int_destroy(&set);
  igraph_vector_int_destroy(&ev);
  igraph_destroy(&G);
  return total;
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: reach_igraph GRAPH.json REPEATS\n"), 2;
  mp_error err;
  mp_graph *g = mp_graph_read_json(argv[1], false, &err);
  if (!g) return fprintf(stderr, "%s\n", err.msg), 1;
  int reps = atoi(argv[2]);
  long a = 0, b = 0;
  double t0 = mp_now();
  for (int r = 0; r < reps; r++) a = with_bitsets(g);
  double t1 = mp_now();
  for (int r = 0; r < reps; r++) b = with_igraph(g);
  double t2 = mp_now();
  printf("%s: %d nodes: bitset rows %.3f ms; igraph_subcomponent per node %.3f ms (%.1fx)%s\n",
         g->name, g->n, (t1 - t0) * 1e3 / reps, (t2 - t1) * 1e3 / reps, (t2 - t1) / (t1 - t0),
         a == b ? "" : " (the two disagree!)");
  mp_graph_destroy(g);
  return 0;
}
