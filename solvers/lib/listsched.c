/* listsched.c - see listsched.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/listsched.h"
#include "lib/minseg.h"
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

/* True unless `deadline` (> 0) has passed, looked at every 256 steps: an
 * order takes seconds at 10^6 nodes. */
static bool step_in_time(int step, double deadline) {
  return (step & 255) != 255 || deadline <= 0 || mp_now() < deadline;
}

/* A ready node's key under greedy or lpmf, smaller first. */
static void scan_key(const mp_sim *s, mp_ls_rule rule, int v, int64_t cur_peak, int64_t *k1, int64_t *k2) {
  int64_t after, during = mp_sim_cost(s, v, &after);
  if (rule == MP_LS_GREEDY) {
    /* least memory after the step, then least during it */
    *k1 = after;
    *k2 = during;
  } else {
    /* Inductor's lpmf key: (max(memory while v runs, peak so far),
     * memory v adds net): all nodes that fit under the current peak tie
     * on the first component and the one leaving least wins; if none
     * fits, the one needing least while it runs */
    *k1 = during > cur_peak ? during : cur_peak;
    *k2 = after - s->live;
  }
}

/* The position in ready[0..nr) of the next node: the smallest key, ties
 * in file order (pos), or with r at random among them, and with
 * probability eps a random ready node. */
static int scan_pick(const mp_sim *s, mp_ls_rule rule, mp_rng *r, double eps, const int *ready, int nr,
                     const int *pos) {
  int bi = -1, ties = 0, scan = nr;
  int64_t bk1 = 0, bk2 = 0, cur_peak = s->peak > s->live ? s->peak : s->live;
  if (r && mp_rng_unit(r) < eps) {
    bi = (int)mp_rng_below(r, (uint64_t)nr);
    scan = 0;
  }
  for (int k = 0; k < scan; k++) {
    int v = ready[k];
    int64_t k1, k2;
    scan_key(s, rule, v, cur_peak, &k1, &k2);
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
  return bi;
}

/* Greedy and lpmf: scan the ready list, keep the node of smallest key.
 * With r: ties at random instead of in file order, and with probability
 * eps a random ready node (the randomised greedy).  False when the deadline
 * cut it. */
static bool rule_scan(const mp_graph *g, mp_ls_rule rule, mp_rng *r, double eps, int *order,
                      double deadline) {
  int n = g->n;
  int *pos = file_pos(g);
  int *ready = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  int nr = 0;
  mp_sim s;
  mp_sim_init(&s, g);
  for (int v = 0; v < n; v++)
    if (s.missing[v] == 0) ready[nr++] = v;
  int step = 0;
  for (; step < n && step_in_time(step, deadline); step++) {
    int bi = scan_pick(&s, rule, r, eps, ready, nr, pos), v = ready[bi];
    ready[bi] = ready[--nr];
    mp_sim_run(&s, v);
    order[step] = v;
    for (int i = 0; i < g->n_succ[v]; i++)
      if (s.missing[g->succ[v][i]] == 0) ready[nr++] = g->succ[v][i];
  }
  mp_sim_destroy(&s);
  free(ready);
  free(pos);
  return step == n;
}

/* Per buffer, what a step that leaves one reader to run needs: the bytes
 * that reader will free (0 for a graph output) and the XOR of the readers
 * not yet run, which is that reader (one load where walking the buffer's
 * readers for the one not done missed the cache at 10^6 nodes). */
typedef struct last_read {
  int64_t bytes;
  int rest;
} last_read;

/* The deterministic greedy and lpmf rules without the scan.  A ready node's
 * key depends on the state only through f(v), the bytes its step frees, and
 * on live and the peak, which are the same for every candidate:
 *   a = its new tensors, w = its workspace (fixed: the sim's own and ws), f = its dead outputs
 *   (fixed) + the buffers it reads as their last reader (grows as readers
 *   run; the dead graph inputs freed after step 0 add the same to all);
 *   greedy: after = live + a - f, during = live + a + w: key (a - f, a + w,
 *   file position);
 *   lpmf: during <= P (= max(peak, live)) iff a + w <= P - live; the nodes
 *   that fit tie and go by (a - f, position), else the smallest a + w first.
 * So greedy keeps its ready nodes in a min-tree by key; lpmf keeps them in
 * a min-tree by (a - f, position) over the nodes sorted by (a + w,
 * position), and takes the minimum of the prefix that fits, or of the
 * smallest a + w present. */
typedef struct rule_state {
  const mp_graph *g;
  mp_ls_rule rule;
  mp_sim s;
  last_read *last; /* per buffer */
  int *pos;      /* file position */
  int64_t *f;    /* s.own_dead, plus the reads each node now frees as their last reader */
  int *slot;     /* leaf of each node in the tree */
  int64_t *aw;   /* lpmf: a + w of the node at each leaf */
  int64_t *aw64; /* lpmf: aw of every 64th leaf (a small index into aw) */
  mp_minseg t;
} rule_state;

static void rs_put(rule_state *st, int v) {
  int64_t af = st->s.own[v] - st->f[v];
  mp_mskey k = st->rule == MP_LS_GREEDY ? (mp_mskey){{af, st->s.own[v] + st->s.ws[v], st->pos[v]}, v}
                                        : (mp_mskey){{af, st->pos[v], 0}, v};
  mp_minseg_set(&st->t, st->slot[v], k);
}

static void rs_init(rule_state *st, const mp_graph *g, mp_ls_rule rule) {
  int n = g->n;
  size_t nz = (size_t)(n ? n : 1);
  st->g = g;
  st->rule = rule;
  mp_sim_init(&st->s, g);
  st->pos = file_pos(g);
  st->f = mp_xmalloc(sizeof(int64_t) * nz);
  st->slot = mp_xmalloc(sizeof(int) * nz);
  st->aw = mp_xmalloc(sizeof(int64_t) * nz);
  st->aw64 = mp_xmalloc(sizeof(int64_t) * (nz / 64 + 1));
  memcpy(st->f, st->s.own_dead, sizeof(int64_t) * nz);
  for (int v = 0; v < n; v++) st->slot[v] = v;
  st->last = mp_xmalloc(sizeof(last_read) * (size_t)(g->n_buf ? g->n_buf : 1));
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    st->last[b].bytes = bb->graph_output ? 0 : bb->size;
    st->last[b].rest = 0;
    for (int k = 0; k < bb->n_readers; k++) st->last[b].rest ^= bb->readers[k];
    if (bb->n_readers == 1) st->f[bb->readers[0]] += st->last[b].bytes; /* its only reader frees it */
  }
  /* leaves: greedy by file position, lpmf by (a + w, file position) */
  uint32_t *by = mp_xmalloc(sizeof(uint32_t) * nz);
  uint64_t *key = mp_xmalloc(sizeof(uint64_t) * nz);
  for (int k = 0; k < n; k++) {
    by[k] = (uint32_t)g->given[k];
    key[k] = mp_radix_key(st->s.own[by[k]] + st->s.ws[by[k]]);
  }
  if (rule != MP_LS_GREEDY) mp_radix_sort(key, by, (size_t)n);
  for (int k = 0; k < n; k++) {
    st->slot[by[k]] = k;
    st->aw[k] = st->s.own[by[k]] + st->s.ws[by[k]];
    if (k % 64 == 0) st->aw64[k / 64] = st->aw[k];
  }
  free(by);
  free(key);
  mp_minseg_init(&st->t, n);
  for (int v = 0; v < n; v++)
    if (st->s.missing[v] == 0) rs_put(st, v);
}

static void rs_destroy(rule_state *st) {
  mp_sim_destroy(&st->s);
  mp_minseg_destroy(&st->t);
  void *owned[] = {st->pos, st->f, st->slot, st->aw, st->aw64, st->last};
  for (size_t k = 0; k < sizeof owned / sizeof owned[0]; k++) free(owned[k]);
}

/* First leaf in [lo, hi) whose a + w exceeds x, or hi (leaves sorted by
 * a + w). */
static int first_above(const int64_t *aw, int lo, int hi, int64_t x) {
  while (lo < hi) {
    int m = lo + (hi - lo) / 2;
    if (aw[m] <= x) lo = m + 1; else hi = m;
  }
  return lo;
}

/* First leaf whose a + w exceeds x: the block from every 64th leaf (an
 * index that stays in cache), then the leaf within it. */
static int aw_upper(const rule_state *st, int64_t x) {
  int n = st->g->n, blocks = (n + 63) / 64;
  int b = first_above(st->aw64, 0, blocks, x); /* leaves before 64 b are <= x ... */
  if (b == 0) return 0;
  int end = 64 * b < n ? 64 * b : n;           /* ... and leaf 64 b, if any, is above */
  return first_above(st->aw, 64 * (b - 1), end, x);
}

static int rs_pick(const rule_state *st) {
  if (st->rule == MP_LS_GREEDY) return mp_minseg_top(&st->t).v;
  int first = mp_minseg_first(&st->t);
  int64_t live = st->s.live, peak = st->s.peak > live ? st->s.peak : live;
  int64_t aw = st->aw[first];
  int end = aw <= peak - live ? aw_upper(st, peak - live) : aw_upper(st, aw);
  return mp_minseg_min(&st->t, first, end).v;
}

/* Run v: the buffers whose last reader is now known free that much more
 * (a buffer of 0 bytes changes no key). */
static void rs_run(rule_state *st, int v) {
  const mp_graph *g = st->g;
  mp_minseg_clear(&st->t, st->slot[v]);
  mp_sim_run_freeing(&st->s, v, st->f[v]);
  for (int i = 0; i < g->n_reads[v]; i++) {
    int b = g->reads[v][i];
    last_read *l = &st->last[b];
    l->rest ^= v;
    if (st->s.remaining[b] != 1 || l->bytes == 0) continue;
    st->f[l->rest] += l->bytes;
    if (st->s.missing[l->rest] == 0) rs_put(st, l->rest);
  }
  for (int i = 0; i < g->n_succ[v]; i++)
    if (st->s.missing[g->succ[v][i]] == 0) rs_put(st, g->succ[v][i]);
}

static bool rule_tree(const mp_graph *g, mp_ls_rule rule, int *order, double deadline) {
  rule_state st;
  rs_init(&st, g, rule);
  int step = 0;
  for (; step < g->n && step_in_time(step, deadline); step++) {
    int v = rs_pick(&st);
    order[step] = v;
    rs_run(&st, v);
  }
  rs_destroy(&st);
  return step == g->n;
}

static int cmp_pos_asc(const void *x, const void *y, void *ctx) {
  const int *pos = ctx;
  int a = pos[*(const int *)x], b = pos[*(const int *)y];
  return (a > b) - (a < b);
}

static int cmp_pos_desc(const void *x, const void *y, void *ctx) { return cmp_pos_asc(y, x, ctx); }

/* Nodes made ready together, by file position (ascending or descending):
 * short runs by insertion, long ones (a node with many successors) by
 * qsort. */
static void sort_by_pos(int *a, int n, const int *pos, bool desc) {
  if (n > 16) {
    qsort_r(a, (size_t)n, sizeof(int), desc ? cmp_pos_desc : cmp_pos_asc, (void *)pos);
    return;
  }
  for (int i = 1; i < n; i++) {
    int x = a[i], j = i - 1;
    while (j >= 0 && (desc ? pos[a[j]] < pos[x] : pos[a[j]] > pos[x])) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
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
    sort_by_pos(q + base, tail - base, pos, false); /* file order among siblings */
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
    /* newly ready: descending file position, so the earliest pops first */
    sort_by_pos(stack + base, sp - base, pos, true);
  }
  free(missing);
  free(pos);
  free(stack);
}

bool mp_ls_order_random_greedy(const mp_graph *g, mp_rng *r, double eps, int *order,
                               double deadline) {
  return rule_scan(g, MP_LS_GREEDY, r, eps, order, deadline);
}

void mp_ls_order(const mp_graph *g, mp_ls_rule r, int *order) { mp_ls_order_until(g, r, order, 0); }

bool mp_ls_order_until(const mp_graph *g, mp_ls_rule r, int *order, double deadline) {
  switch (r) {
  case MP_LS_GREEDY:
  case MP_LS_LPMF:
    return rule_tree(g, r, order, deadline);
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
  return true; /* bfs and dfs are linear: 0.05 s at 10^6 nodes */
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

/* One candidate of mp_ls_best: a rule's order and its live peak. */
typedef struct cand_job {
  const mp_graph *g;
  mp_ls_rule rule;
  int *order;
  int64_t peak;
  double cpu_s; /* on a thread of its own: that thread's CPU seconds */
} cand_job;

static void cand_run(cand_job *j) {
  mp_ls_order(j->g, j->rule, j->order);
  j->peak = mp_order_peak(j->g, j->order);
}

static void *cand_thread(void *arg) {
  cand_job *j = arg;
  double c0 = mp_thread_cpu_now();
  cand_run(j);
  j->cpu_s = mp_thread_cpu_now() - c0;
  return NULL;
}

/* Below this many nodes lpmf stays on the caller's thread (a thread costs
 * more than the order). */
enum { BESIDE_MIN = 10000 };

int64_t mp_ls_best(const mp_graph *g, const int *start, int *order, const char **which) {
  return mp_ls_best_threads(g, start, order, which, 1, NULL);
}

int64_t mp_ls_best_threads(const mp_graph *g, const int *start, int *order, const char **which,
                           int threads, double *cpu_s) {
  size_t nz = (size_t)(g->n ? g->n : 1);
  cand_job job[MP_LS_N_RULES];
  for (int r = 0; r < MP_LS_N_RULES; r++)
    job[r] = (cand_job){g, (mp_ls_rule)r, mp_xmalloc(sizeof(int) * nz), 0, 0};
  pthread_t side;
  bool beside = threads >= 2 && g->n >= BESIDE_MIN &&
                pthread_create(&side, NULL, cand_thread, &job[MP_LS_LPMF]) == 0;
  for (int r = 0; r < MP_LS_N_RULES; r++)
    if (!(beside && r == MP_LS_LPMF)) cand_run(&job[r]);
  if (beside) pthread_join(side, NULL);
  if (cpu_s) *cpu_s = beside ? job[MP_LS_LPMF].cpu_s : 0;
  /* in the candidates' order, the first of the lowest peak */
  int64_t best = start ? mp_order_peak(g, start) : -1;
  const int *won = start;
  const char *w = "start";
  for (int r = 0; r < MP_LS_N_RULES; r++)
    if (best < 0 || job[r].peak < best) best = job[r].peak, won = job[r].order, w = rule_names[r];
  memmove(order, won, sizeof(int) * (size_t)g->n);
  for (int r = 0; r < MP_LS_N_RULES; r++) free(job[r].order);
  if (which) *which = w;
  return best < 0 ? 0 : best;
}
