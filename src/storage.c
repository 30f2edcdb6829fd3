/* storage.c - see storage.h. */
#include <stdlib.h>
#include <string.h>

#include "storage.h"
#include "util.h"

bool mp_reads_data(const mp_graph *g, int w) {
  return !g->nodes[w].has_alias || g->nodes[w].inplace;
}

/* The storage of output k of node j, or -1 (no storage); param[] maps each
 * node to the parameter storage its alias chain ends at (or -1). */
static int tensor_storage(const mp_graph *g, const int *param, int j, int k) {
  int b = g->root_of[j][k];
  if (b == MP_PARAM_BUFFER) return param[j];
  return b >= 0 ? b : -1;
}

/* The storage view v views, a parameter's included (or -1). */
static int view_access(const mp_graph *g, const int *param, int v) {
  int b = mp_view_storage(g, v);
  return b == MP_PARAM_BUFFER ? param[v] : b >= 0 ? b : -1;
}

/* What node v writes in place, or -1: the storage it views, whether or not
 * it has an output of its own (`outputs: []` still writes); an alias -1
 * root that is in-place writes its own parameter. */
static int written_by(const mp_graph *g, const int *param, int v) {
  const mp_node *nd = &g->nodes[v];
  return nd->inplace && nd->has_alias ? view_access(g, param, v) : -1;
}

/* A growing list of storage ids (the accesses of every node, one after
 * another). */
typedef struct idlist {
  int *a;
  size_t m, room;
} idlist;

static void idlist_push(idlist *l, int b) {
  if (l->m + 1 >= l->room) l->a = mp_xrealloc(l->a, sizeof(int) * (l->room *= 2));
  l->a[l->m++] = b;
}

/* Append the storages node v reads data of and the one it writes, sorted
 * and without repeats; returns how many. */
static int node_accesses(const mp_graph *g, const int *param, int v, int writes, idlist *l) {
  const mp_node *nd = &g->nodes[v];
  size_t start = l->m;
  for (int i = 0; mp_reads_data(g, v) && i < nd->n_in; i++) {
    mp_ref in = nd->in[i];
    int lo = in.out == MP_ALL_OUTPUTS ? 0 : in.out;
    int hi = in.out == MP_ALL_OUTPUTS ? g->nodes[in.node].n_out : in.out + 1;
    if (lo == hi && view_access(g, param, in.node) >= 0) /* an empty view: its storage */
      idlist_push(l, view_access(g, param, in.node));
    for (int k = lo; k < hi; k++)
      if (tensor_storage(g, param, in.node, k) >= 0) idlist_push(l, tensor_storage(g, param, in.node, k));
  }
  if (writes >= 0) idlist_push(l, writes);
  int n = mp_sort_unique_ints(l->a + start, (int)(l->m - start));
  l->m = start + (size_t)n;
  return n;
}

/* users: per storage, the nodes with it among their accesses (CSR). */
static void index_users(mp_storages *s, int n, size_t m) {
  s->n_users = mp_xcalloc((size_t)(s->n ? s->n : 1), sizeof(int));
  s->users = mp_xmalloc(sizeof(int *) * (size_t)(s->n ? s->n : 1));
  s->ublock = mp_xmalloc(sizeof(int) * (m ? m : 1));
  int *p = s->block;
  for (int v = 0; v < n; v++) {
    s->acc[v] = p;
    for (int i = 0; i < s->n_acc[v]; i++) s->n_users[p[i]]++;
    p += s->n_acc[v];
  }
  int *u = s->ublock;
  for (int b = 0; b < s->n; b++) {
    s->users[b] = u;
    u += s->n_users[b];
    s->n_users[b] = 0;
  }
  for (int v = 0; v < n; v++)
    for (int i = 0; i < s->n_acc[v]; i++) {
      int b = s->acc[v][i];
      s->users[b][s->n_users[b]++] = v;
    }
}

void mp_storages_build(const mp_graph *g, mp_storages *s) {
  int n = g->n;
  size_t nz = (size_t)(n ? n : 1);
  int *param = s->param = mp_xmalloc(sizeof(int) * nz);
  s->n = g->n_buf;
  for (int i = 0; i < n; i++) { /* given order: an alias target comes first */
    int v = g->given[i];
    const mp_node *nd = &g->nodes[v];
    param[v] = !nd->has_alias ? -1 : nd->alias.node == MP_PARAM_ALIAS ? s->n++ : param[nd->alias.node];
  }
  s->writes = mp_xmalloc(sizeof(int) * nz);
  s->n_writers = mp_xcalloc((size_t)(s->n ? s->n : 1), sizeof(int));
  s->n_acc = mp_xcalloc(nz, sizeof(int));
  s->acc = mp_xmalloc(sizeof(int *) * nz);
  idlist l = {mp_xmalloc(sizeof(int) * ((size_t)n + 64)), 0, (size_t)n + 64};
  for (int v = 0; v < n; v++) {
    s->writes[v] = written_by(g, param, v);
    if (s->writes[v] >= 0) s->n_writers[s->writes[v]]++;
    s->n_acc[v] = node_accesses(g, param, v, s->writes[v], &l);
  }
  s->block = mp_xmalloc(sizeof(int) * (l.m ? l.m : 1));
  memcpy(s->block, l.a, sizeof(int) * l.m);
  free(l.a);
  index_users(s, n, l.m);
}

void mp_storages_free(mp_storages *s) {
  free(s->writes);
  free(s->param);
  free(s->n_writers);
  free(s->n_acc);
  free(s->acc);
  free(s->n_users);
  free(s->users);
  free(s->block);
  free(s->ublock);
}

bool mp_storage_accessed(const mp_storages *s, int v, int b) {
  int lo = 0, hi = s->n_acc[v];
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (s->acc[v][mid] < b) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->n_acc[v] && s->acc[v][lo] == b;
}

