/* interfere.c - see interfere.h.
 *
 * The sweep visits vertices by birth (ties: index) and keeps the set of
 * those born earlier and still alive.  A vertex b born at t meets an
 * earlier-born a exactly when hi_a > t: lo_a <= t < hi_b holds already,
 * lifetimes being non-empty.  So every active vertex is an edge with b (the
 * work is the output), and each pair is met once, at its later birth.
 * Vertices die in order of hi; one with hi <= t was born strictly before t,
 * so a pointer over the deaths retires it from the active set in O(1). */
#include <stdlib.h>
#include <string.h>

#include "lib/interfere.h"

/* A deadline check every this many steps of work (edges met, vertices). */
#define CHECK_EVERY (1 << 16)

int64_t mp_interfere_pinned_base(const mp_problem *p, int64_t *off) {
  int64_t base = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    off[i] = it->fixed >= 0 ? it->fixed : 0;
    if (it->fixed >= 0 && it->size > 0 && it->fixed + it->size > base) base = it->fixed + it->size;
  }
  return base;
}

int mp_interfere_vertices(const mp_problem *p, int *vid, int *item_of) {
  int nv = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    vid[i] = -1;
    if (it->fixed >= 0 || it->size <= 0 || it->hi <= it->lo) continue;
    vid[i] = nv;
    item_of[nv++] = i;
  }
  return nv;
}

typedef struct key {
  int64_t t;
  int v;
} key;

static int cmp_key(const void *a, const void *b) {
  const key *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return (x->v > y->v) - (x->v < y->v);
}

/* The vertices by birth and by death (ties: index). */
typedef struct sweep {
  int nv;
  key *by_lo, *by_hi;
} sweep;

static void sweep_init(sweep *S, const mp_problem *p, const int *item_of, int nv) {
  size_t nz = (size_t)(nv ? nv : 1);
  S->nv = nv;
  S->by_lo = mp_xmalloc(sizeof(key) * nz);
  S->by_hi = mp_xmalloc(sizeof(key) * nz);
  for (int v = 0; v < nv; v++) {
    S->by_lo[v] = (key){p->items[item_of[v]].lo, v};
    S->by_hi[v] = (key){p->items[item_of[v]].hi, v};
  }
  qsort(S->by_lo, (size_t)nv, sizeof(key), cmp_key);
  qsort(S->by_hi, (size_t)nv, sizeof(key), cmp_key);
}

static void sweep_destroy(sweep *S) {
  free(S->by_lo);
  free(S->by_hi);
}

/* The k-th vertex born meets the k born before it, less those dead by its
 * birth (hi <= lo: all born before it). */
int64_t mp_interfere_count(const mp_problem *p, const int *item_of, int nv) {
  sweep S;
  sweep_init(&S, p, item_of, nv);
  int64_t m = 0;
  int dead = 0;
  for (int k = 0; k < nv; k++) {
    while (dead < nv && S.by_hi[dead].t <= S.by_lo[k].t) dead++;
    m += k - dead;
  }
  sweep_destroy(&S);
  return m;
}

/* One pass of the sweep over every edge {u < v}.  Without `lower`: count
 * each vertex's edges to higher (n_up[u]) and lower (n_down[v]) vertices.
 * With it: write u at lower[at[v]++], so that lower[] lists each vertex's
 * lower neighbours, vertex after vertex.  False when the deadline passed. */
static bool sweep_edges(const sweep *S, const mp_ctx *c, int *n_up, int *n_down, int *lower,
                        int64_t *at) {
  int nv = S->nv;
  int *act = mp_xmalloc(sizeof(int) * (size_t)(nv ? nv : 1));
  int *pos = mp_xmalloc(sizeof(int) * (size_t)(nv ? nv : 1));
  int na = 0, dead = 0;
  int64_t work = 0;
  bool done = true;
  for (int k = 0; k < nv && done; k++) {
    int b = S->by_lo[k].v;
    for (; dead < nv && S->by_hi[dead].t <= S->by_lo[k].t; dead++) {
      int a = S->by_hi[dead].v, last = act[--na];
      act[pos[a]] = last;
      pos[last] = pos[a];
    }
    for (int j = 0; j < na; j++) {
      int a = act[j], u = a < b ? a : b, v = a < b ? b : a;
      if (lower) {
        lower[at[v]++] = u;
      } else {
        n_up[u]++;
        n_down[v]++;
      }
    }
    pos[b] = na;
    act[na++] = b;
    work += na;
    if (work >= CHECK_EVERY) {
      work = 0;
      done = !mp_time_up(c);
    }
  }
  free(act);
  free(pos);
  return done;
}

/* Rows by the lower end u, each row's v ascending: the lower neighbours
 * of v = 0, 1, ... are dealt to their rows in that order. */
static void deal_rows(int nv, const int *n_up, const int64_t *down_start, const int *lower,
                      igraph_integer_t *e) {
  int64_t *row = mp_xmalloc(sizeof(int64_t) * (size_t)(nv ? nv : 1));
  int64_t r = 0;
  for (int u = 0; u < nv; u++) {
    row[u] = r;
    r += n_up[u];
  }
  for (int v = 0; v < nv; v++)
    for (int64_t k = down_start[v]; k < down_start[v + 1]; k++) {
      int u = lower[k];
      int64_t at = row[u]++;
      e[2 * at] = u;
      e[2 * at + 1] = v;
    }
  free(row);
}

bool mp_interfere_edges(const mp_problem *p, const int *item_of, int nv, const mp_ctx *c,
                        igraph_integer_t **edges, int64_t *m) {
  static const mp_ctx no_deadline;
  if (!c) c = &no_deadline;
  *edges = NULL;
  *m = 0;
  sweep S;
  sweep_init(&S, p, item_of, nv);
  int *n_up = mp_xcalloc((size_t)nv + 1, sizeof(int));
  int *n_down = mp_xcalloc((size_t)nv + 1, sizeof(int));
  int64_t *down_start = mp_xmalloc(sizeof(int64_t) * ((size_t)nv + 1));
  int *lower = NULL;
  bool done = sweep_edges(&S, c, n_up, n_down, NULL, NULL);
  if (done) {
    down_start[0] = 0;
    for (int v = 0; v < nv; v++) down_start[v + 1] = down_start[v] + n_down[v];
    int64_t *at = mp_xmalloc(sizeof(int64_t) * ((size_t)nv + 1));
    memcpy(at, down_start, sizeof(int64_t) * ((size_t)nv + 1));
    lower = mp_xmalloc(sizeof(int) * (size_t)(down_start[nv] ? down_start[nv] : 1));
    done = sweep_edges(&S, c, NULL, NULL, lower, at);
    free(at);
  }
  if (done) {
    *m = down_start[nv];
    *edges = mp_xmalloc(sizeof(igraph_integer_t) * (size_t)(*m ? 2 * *m : 1));
    deal_rows(nv, n_up, down_start, lower, *edges);
  }
  free(lower);
  free(down_start);
  free(n_up);
  free(n_down);
  sweep_destroy(&S);
  return done;
}
