/* storage.h - the storages of a graph (DESIGN 1.2): each tensor buffer, and
 * each parameter (an `alias: -1` root with its alias set, ids n_buf ...),
 * which owns no arena memory but can be written in place (an optimizer
 * step).  Per node, the storages it reads data of and the one it writes in
 * place; per storage, the nodes that access it.  Model code: graph.c's
 * in-place edges, the evaluator's stale reruns (events_eval.c) and the
 * verifier's run-once rule for parameters written in place use it. */
#ifndef MP_STORAGE_H
#define MP_STORAGE_H

#include <stdbool.h>

#include "graph.h"

typedef struct mp_storages {
  int n;                 /* buffers, then parameters */
  int *writes;           /* node -> the storage it writes in place, or -1 */
  int *param;            /* node -> the parameter storage its alias chain ends at, or -1 */
  int *n_writers;        /* per storage */
  int *n_acc, **acc;     /* per node: the storages it reads data of, and the one it
                            writes, sorted (nothing for a pure view) */
  int *n_users, **users; /* per storage: the nodes with it in acc, ascending */
  int *block, *ublock;
} mp_storages;

/* Build for a finished graph (root_of and the alias targets set). */
void mp_storages_build(const mp_graph *g, mp_storages *s);
void mp_storages_free(mp_storages *s);
/* Does node v read the data of (or write) storage b? */
bool mp_storage_accessed(const mp_storages *s, int v, int b);
/* A pure view (alias without inplace) reads no data: no in-place edge. */
bool mp_reads_data(const mp_graph *g, int w);
/* Is node v in the alias set of a parameter written in place?  DESIGN 6.2
 * then runs it exactly once (the verifier's rule, the solvers' check). */
static inline bool mp_in_written_param(const mp_storages *s, int v) {
  return s->param[v] >= 0 && s->n_writers[s->param[v]] > 0;
}

#endif
