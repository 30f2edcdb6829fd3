/* dag_igraph.c - why graph.c checks acyclicity and the order with its own
 * Kahn pass instead of an igraph DAG (issue 10): the same edge list through
 * (a) a deduplicated adjacency and Kahn's algorithm, as graph.c does, and
 * (b) igraph_create + igraph_is_dag + igraph_topological_sorting.
 *   make && cc -O2 -std=c11 -D_GNU_SOURCE -Isrc $(pkg-config --cflags igraph jansson) \
 *     scripts/dag_igraph.c build/libmemplan.a -o /tmp/dag_igraph \
 *     $(pkg-config --libs igraph jansson cairo libxml-2.0) -lglpk -lsqlite3 -lm
 *   /tmp/dag_igraph graphs/real/densenet121_train_sgd_b32.json 200
 *   bin/memplan gen layered -n 100000 --seed 1 --out /tmp/l100k.json && /tmp/dag_igraph /tmp/l100k.json 10 */
#include <igraph.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph.h"
#include "util.h"

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* graph.c's way: successor lists, sorted and deduplicated, then Kahn. */
static long kahn(int n, int m, const int *from, const int *to) {
  int *cnt = calloc((size_t)n + 1, sizeof(int)), *adj = malloc(sizeof(int) * (size_t)(m ? m : 1));
  int *fill = calloc((size_t)n + 1, sizeof(int)), *indeg = calloc((size_t)n + 1, sizeof(int));
  int *q = malloc(sizeof(int) * (size_t)(n ? n : 1)), qh = 0, qt = 0;
  for (int i = 0; i < m; i++) cnt[from[i] + 1]++;
  for (int v = 0; v < n; v++) cnt[v + 1] += cnt[v];
  for (int i = 0; i < m; i++) adj[cnt[from[i]] + fill[from[i]]++] = to[i];
  for (int v = 0; v < n; v++) {
    int *l = adj + cnt[v], k = cnt[v + 1] - cnt[v];
    qsort(l, (size_t)k, sizeof(int), cmp);
    for (int i = 0; i < k; i++)
      if (!i || l[i] != l[i - 1]) indeg[l[i]]++;
      else l[i] = -1;
  }
  for (int v = 0; v < n; v++)
    if (!indeg[v]) q[qt++] = v;
  while (qh < qt) {
    int v = q[qh++];
    for (int i = cnt[v]; i < cnt[v + 1]; i++)
      if (adj[i] >= 0 && --indeg[adj[i]] == 0) q[qt++] = adj[i];
  }
  long check = qt;
  free(cnt), free(adj), free(fill), free(indeg), free(q);
  return check;
}

static long with_igraph(int n, int m, const int *from, const int *to, bool sort) {
  igraph_vector_int_t ev, ord;
  igraph_vector_int_init(&ev, 2 * (igraph_integer_t)m);
  for (int i = 0; i < m; i++) VECTOR(ev)[2 * i] = from[i], VECTOR(ev)[2 * i + 1] = to[i];
  igraph_t G;
  igraph_create(&G, &ev, n, IGRAPH_DIRECTED);
  long check = 0;
  if (sort) {
    igraph_bool_t dag;
    igraph_is_dag(&G, &dag);
    igraph_vector_int_init(&ord, 0);
    igraph_topological_sorting(&G, &ord, IGRAPH_OUT);
    check = dag ? (long)igraph_vector_int_size(&ord) : -1;
    igraph_vector_int_destroy(&ord);
  }
  igraph_vector_int_destroy(&ev);
  igraph_destroy(&G);
  return check;
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: dag_igraph GRAPH.json REPEATS\n"), 2;
  mp_error err;
  mp_graph *g = mp_graph_read_json(argv[1], false, &err);
  if (!g) return fprintf(stderr, "%s\n", err.msg), 1;
  int reps = atoi(argv[2]), n = g->n, m = 0;
  for (int v = 0; v < n; v++) m += g->nodes[v].n_in;
  int *from = malloc(sizeof(int) * (size_t)(m ? m : 1)), *to = malloc(sizeof(int) * (size_t)(m ? m : 1));
  m = 0;
  for (int v = 0; v < n; v++)
    for (int i = 0; i < g->nodes[v].n_in; i++) from[m] = g->nodes[v].in[i].node, to[m++] = v;
  double t0 = mp_now();
  long a = 0, b = 0;
  for (int r = 0; r < reps; r++) a += kahn(n, m, from, to);
  double t1 = mp_now();
  for (int r = 0; r < reps; r++) b += with_igraph(n, m, from, to, true);
  double t2 = mp_now();
  for (int r = 0; r < reps; r++) with_igraph(n, m, from, to, false);
  double t3 = mp_now();
  printf("%s: %d nodes, %d edges: Kahn %.3f ms; igraph create+is_dag+topological_sorting %.3f ms "
         "(%.1fx); igraph_create alone %.3f ms%s\n", g->name, n, m, (t1 - t0) * 1e3 / reps,
         (t2 - t1) * 1e3 / reps, (t2 - t1) / (t1 - t0), (t3 - t2) * 1e3 / reps,
         a == b ? "" : " (the two disagree!)");
  free(from), free(to);
  mp_graph_destroy(g);
  return 0;
}
