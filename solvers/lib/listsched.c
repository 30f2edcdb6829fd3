/* listsched.c - see listsched.h. */
#include <stdlib.h>
#include <string.h>

#include "lib/listsched.h"
#include "solver.h"

static const char *const rule_names[MP_LS_N_RULES] = {"given", "greedy", "lpmf", "bfs", "dfs"};

const char *mp_ls_rule_name(mp_ls_rule r) {
  return r >= 0 && r < MP_LS_N_RULES ? rule_names[r] : "?";
}

static int *file_pos(const mp_graph *g) {
  int *pos = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  for (int i = 0; i < g->n; i++) pos[g->given[i]] = i;
  return pos;
}

/* Greedy and lpmf: scan the ready list, keep the node of smallest key.
 * With r: ties at random instead of in file order, and with probability
 * eps a random ready node (the randomised greedy). */
static void rule_scan(const mp_graph *g, mp_ls_rule rule, mp_rng *r, double eps, int *order) {
  int n = g->n;
  int *pos = file_pos(g);
  int *ready = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int nr = 0;
  mp_sim s;
  mp_sim_init(&s, g);
  for (int v = 0; v < n; v++)
    if (s.missing[v] == 0) ready[nr++] = v;
  for (int step = 0; step < n; step++) {
    int bi = -1, ties = 0;
    int64_t bk1 = 0, bk2 = 0;
    int64_t cur_peak = s.peak > s.live ? s.peak : s.live;
    int scan = nr;
    if (r && mp_rng_unit(r) < eps) {
      bi = (int)mp_rng_below(r, (uint64_t)nr);
      scan = 0;
    }
    for (int k = 0; k < scan; k++) {
      int v = ready[k];
      int64_t after, during = mp_sim_cost(&s, v, &after), k1, k2;
      if (rule == MP_LS_GREEDY) {
        /* least memory after the step, then least during it */
        k1 = after;
        k2 = during;
      } else {
        /* Inductor's lpmf key: (max(memory while v runs, peak so far),
         * memory v adds net): all nodes that fit under the current peak tie
         * on the first component and the one leaving least wins; if none
         * fits, the one needing least while it runs */
        k1 = during > cur_peak ? during : cur_peak;
        k2 = after - s.live;
      }
      if (r) {
        /* reservoir choice among the nodes of smallest key */
        if (ties == 0 || k1 < bk1 || (k1 == bk1 && k2 < bk2)) {
          bi = k;
          bk1 = k1;
          bk2 = k2;
          ties = 1;
        } else if (k1 == bk1 && k2 == bk2 && mp_rng_below(r, (uint64_t)++ties) == 0) {
          bi = k;
        }
      } else if (bi < 0 || k1 < bk1 || (k1 == bk1 && k2 < bk2) ||
                 (k1 == bk1 && k2 == bk2 && pos[v] < pos[ready[bi]])) {
        bi = k;
        bk1 = k1;
        bk2 = k2;
      }
    }
    int v = ready[bi];
    ready[bi] = ready[--nr];
    mp_sim_run(&s, v);
    order[step] = v;
    for (int i = 0; i < g->n_succ[v]; i++)
      if (s.missing[g->succ[v][i]] == 0) ready[nr++] = g->succ[v][i];
  }
  mp_sim_destroy(&s);
  free(ready);
  free(pos);
}

static void rule_bfs(const mp_graph *g, int *q) {
  int n = g->n;
  int *missing = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int *pos = file_pos(g);
  int head = 0, tail = 0;
  for (int v = 0; v < n; v++) missing[v] = g->n_pred[v];
  for (int i = 0; i < n; i++)
    if (missing[g->given[i]] == 0) q[tail++] = g->given[i];
  while (head < tail) {
    int v = q[head++], base = tail;
    for (int i = 0; i < g->n_succ[v]; i++)
      if (--missing[g->succ[v][i]] == 0) q[tail++] = g->succ[v][i];
    for (int a = base + 1; a < tail; a++) { /* file order among siblings */
      int x = q[a], b = a - 1;
      while (b >= base && pos[q[b]] > pos[x]) {
        q[b + 1] = q[b];
        b--;
      }
      q[b + 1] = x;
    }
  }
  free(missing);
  free(pos);
}

static void rule_dfs(const mp_graph *g, int *order) {
  int n = g->n;
  int *missing = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int *pos = file_pos(g);
  int *stack = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int sp = 0, step = 0;
  for (int v = 0; v < n; v++) missing[v] = g->n_pred[v];
  /* roots pushed in reverse file order so the first in the file pops first */
  for (int i = n - 1; i >= 0; i--)
    if (missing[g->given[i]] == 0) stack[sp++] = g->given[i];
  while (sp > 0) {
    int v = stack[--sp];
    order[step++] = v;
    int base = sp;
    for (int i = 0; i < g->n_succ[v]; i++) {
      int w = g->succ[v][i];
      if (--missing[w] == 0) stack[sp++] = w;
    }
    /* newly ready: sort descending by file position so the earliest pops first */
    for (int a = base + 1; a < sp; a++) {
      int x = stack[a], b = a - 1;
      while (b >= base && pos[stack[b]] < pos[x]) {
        stack[b + 1] = stack[b];
        b--;
      }
      stack[b + 1] = x;
    }
  }
  free(missing);
  free(pos);
  free(stack);
}

void mp_ls_order_random_greedy(const mp_graph *g, mp_rng *r, double eps, int *order) {
  rule_scan(g, MP_LS_GREEDY, r, eps, order);
}

void mp_ls_order(const mp_graph *g, mp_ls_rule r, int *order) {
  switch (r) {
  case MP_LS_GREEDY:
  case MP_LS_LPMF:
    rule_scan(g, r, NULL, 0, order);
    break;
  case MP_LS_BFS:
    rule_bfs(g, order);
    break;
  case MP_LS_DFS:
    rule_dfs(g, order);
    break;
  default:
    memcpy(order, g->given, sizeof(int) * (size_t)g->n);
    break;
  }
}

/* binary max-heap of ready nodes keyed by (prio desc, file position asc) */
typedef struct pheap {
  int *a, n;
  const double *prio;
  const int *pos;
} pheap;

static bool ph_before(const pheap *h, int x, int y) {
  if (h->prio[x] != h->prio[y]) return h->prio[x] > h->prio[y];
  return h->pos[x] < h->pos[y];
}

static void ph_push(pheap *h, int v) {
  int i = h->n++;
  h->a[i] = v;
  while (i > 0) {
    int p = (i - 1) / 2;
    if (!ph_before(h, h->a[i], h->a[p])) break;
    int t = h->a[i];
    h->a[i] = h->a[p];
    h->a[p] = t;
    i = p;
  }
}

static int ph_pop(pheap *h) {
  int top = h->a[0];
  h->a[0] = h->a[--h->n];
  int i = 0;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && ph_before(h, h->a[l], h->a[m])) m = l;
    if (r < h->n && ph_before(h, h->a[r], h->a[m])) m = r;
    if (m == i) break;
    int t = h->a[i];
    h->a[i] = h->a[m];
    h->a[m] = t;
    i = m;
  }
  return top;
}

void mp_ls_order_prio(const mp_graph *g, const double *prio, int *order) {
  int n = g->n;
  int *pos = file_pos(g);
  int *missing = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  pheap h = {mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1)), 0, prio, pos};
  for (int v = 0; v < n; v++) {
    missing[v] = g->n_pred[v];
    if (missing[v] == 0) ph_push(&h, v);
  }
  for (int step = 0; step < n; step++) {
    int v = ph_pop(&h);
    order[step] = v;
    for (int i = 0; i < g->n_succ[v]; i++)
      if (--missing[g->succ[v][i]] == 0) ph_push(&h, g->succ[v][i]);
  }
  free(h.a);
  free(missing);
  free(pos);
}

int64_t mp_ls_best(const mp_graph *g, const int *start, int *order, const char **which) {
  int n = g->n;
  int *cand = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int64_t best = -1;
  const char *w = "given";
  if (start) {
    memcpy(order, start, sizeof(int) * (size_t)n);
    best = mp_order_peak(g, order);
    w = "start";
  }
  for (int r = 0; r < MP_LS_N_RULES; r++) {
    mp_ls_order(g, (mp_ls_rule)r, cand);
    int64_t p = mp_order_peak(g, cand);
    if (best < 0 || p < best) {
      best = p;
      w = rule_names[r];
      memcpy(order, cand, sizeof(int) * (size_t)n);
    }
  }
  free(cand);
  if (which) *which = w;
  return best < 0 ? 0 : best;
}
