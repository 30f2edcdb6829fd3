/* remat_strict.c - see remat_strict.h. */
#include <stdlib.h>

#include "lib/remat_check.h"
#include "lib/remat_contract.h"
#include "lib/remat_strict.h"
#include "storage.h"
#include "util.h"

/* How many of the sorted a[0..n) are below x. */
static int count_below(const int *a, int n, int x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Per storage, its writers' positions in the order (-1 for an input) and
 * their file positions, each sorted: CSR over start. */
typedef struct writer_lists {
  int *start, *pos, *file;
} writer_lists;

static void writer_lists_build(const mp_graph *g, const mp_storages *s, const int *pos_of,
                               const int *file_of, writer_lists *w) {
  w->start = mp_xcalloc((size_t)s->n + 2, sizeof(int));
  for (int v = 0; v < g->n; v++)
    if (s->writes[v] >= 0) w->start[s->writes[v] + 1]++;
  for (int b = 0; b < s->n; b++) w->start[b + 1] += w->start[b];
  size_t m = (size_t)w->start[s->n] + 1;
  w->pos = mp_xmalloc(sizeof(int) * m);
  w->file = mp_xmalloc(sizeof(int) * m);
  int *fill = mp_xcalloc((size_t)s->n + 1, sizeof(int));
  for (int v = 0; v < g->n; v++) {
    int b = s->writes[v];
    if (b < 0) continue;
    w->pos[w->start[b] + fill[b]] = pos_of[v];
    w->file[w->start[b] + fill[b]++] = file_of[v];
  }
  for (int b = 0; b < s->n; b++) {
    int n = w->start[b + 1] - w->start[b];
    qsort(w->pos + w->start[b], (size_t)n, sizeof(int), cmp_int);
    qsort(w->file + w->start[b], (size_t)n, sizeof(int), cmp_int);
  }
  free(fill);
}

/* The cap of node v at position p (N positions): see rs_strict_caps. */
static int node_cap(const mp_storages *s, const writer_lists *w, int v, int p, int file_pos, int N) {
  if (s->writes[v] >= 0) return p;
  int cap = N;
  for (int i = 0; i < s->n_acc[v]; i++) {
    int b = s->acc[v][i], lo = w->start[b], n = w->start[b + 1] - lo;
    if (n == 0) continue;
    int want = count_below(w->file + lo, n, file_pos); /* writers before v in the file */
    int done = count_below(w->pos + lo, n, p + 1);     /* writers first run by stage p + 1 */
    if (done != want) return p;
    if (done < n && w->pos[lo + done] < cap) cap = w->pos[lo + done]; /* before that writer's run */
  }
  return cap;
}

void rs_strict_caps(const mp_graph *g, const int *order, int *cap) {
  size_t n = (size_t)(g->n ? g->n : 1);
  int *pos_of = mp_xmalloc(sizeof(int) * n), *file_of = mp_xmalloc(sizeof(int) * n);
  int N = 0;
  for (int i = 0; i < g->n; i++) {
    int v = order[i];
    pos_of[v] = g->nodes[v].is_input ? -1 : N++;
    file_of[g->given[i]] = i;
  }
  mp_storages s;
  mp_storages_build(g, &s);
  writer_lists w;
  writer_lists_build(g, &s, pos_of, file_of, &w);
  for (int i = 0; i < g->n; i++) {
    int v = order[i];
    if (pos_of[v] >= 0) cap[pos_of[v]] = node_cap(&s, &w, v, pos_of[v], file_of[v], N);
  }
  free(w.start);
  free(w.pos);
  free(w.file);
  mp_storages_free(&s);
  free(pos_of);
  free(file_of);
}

uint8_t *rc_strict_inert(const rc_contract *r) {
  const mp_graph *g = r->g;
  int N = r->seg_start[r->n_seg];
  bool *once = mp_xcalloc((size_t)g->n + 1, sizeof(bool));
  mp_remat_once(g, once);
  uint8_t *inert = mp_xcalloc((size_t)N + 1, 1);
  for (int p = 0; p < N; p++) inert[p] = once[r->node[p]] && g->nodes[r->node[p]].has_alias;
  free(once);
  return inert;
}

void rc_strict_caps(const rc_contract *r, const int *orig_cap, int *ccap) {
  const mp_graph *cg = r->cg;
  int Nc = 0;
  for (int i = 0; i < cg->n; i++) Nc += !cg->nodes[r->corder[i]].is_input;
  /* before[q]: original positions first run before contracted stage q */
  int *before = mp_xmalloc(sizeof(int) * ((size_t)Nc + 1)), *seg = mp_xmalloc(sizeof(int) * ((size_t)Nc + 1));
  int q = 0, done = 0;
  for (int i = 0; i < cg->n; i++) {
    int v = r->corder[i];
    if (cg->nodes[v].is_input) continue;
    seg[q] = r->seg_of[v];
    before[q] = seg[q] >= 0 ? r->seg_start[seg[q]] : done;
    if (seg[q] >= 0) done = r->seg_start[seg[q] + 1];
    q++;
  }
  before[Nc] = r->seg_start[r->n_seg]; /* the tail: every first run done */
  for (q = 0; q < Nc; q++) {
    int s = seg[q], H = -1; /* the last original stage every node of s may rerun in */
    for (int p = s >= 0 ? r->seg_start[s] : 0; s >= 0 && p < r->seg_start[s + 1]; p++)
      if (!r->inert || !r->inert[p]) H = H < 0 || orig_cap[p] < H ? orig_cap[p] : H;
    if (H < 0) H = s >= 0 ? r->seg_start[s] : -1; /* nothing to run again */
    int last = q;
    while (s >= 0 && last + 1 <= Nc && before[last + 1] <= H) last++;
    ccap[q] = last;
  }
  free(before);
  free(seg);
}
