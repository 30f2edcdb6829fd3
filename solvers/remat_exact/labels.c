/* labels.c - remat-exact's label store: labels and their clocks, one bucket
 * of labels per state (open addressing on the state), per-state dominance,
 * and the priority queue on the key. */
#include <stdlib.h>
#include <string.h>

#include "exact.h"

/* The queue's order: the least key, then the deeper label, then the
 * older one. */
static bool pops_first(const void *ctx, int a, int b) {
  const rx_search *s = ctx;
  const rx_label *x = &s->l[a], *y = &s->l[b];
  if (x->key != y->key) return x->key < y->key;
  int px = __builtin_popcountll(x->ran), py = __builtin_popcountll(y->ran);
  if (px != py) return px > py; /* deeper first among equals */
  return a < b;
}

void rx_search_init(rx_search *s, const rx_graph *G, int64_t budget, long max_labels, size_t max_bytes) {
  memset(s, 0, sizeof *s);
  s->G = G;
  s->budget = budget;
  s->max_labels = max_labels;
  s->max_bytes = max_bytes;
  mp_iheap_init(&s->queue, pops_first, s);
}

void rx_search_destroy(rx_search *s) {
  for (size_t i = 0; i < s->cap_tab; i++) free(s->bucket[i]);
  free(s->bucket);
  free(s->key_ran);
  free(s->key_res);
  free(s->key_host);
  free(s->l);
  free(s->pool);
  mp_iheap_destroy(&s->queue);
  memset(s, 0, sizeof *s);
}

int rx_nclocks(const rx_graph *G, uint64_t res) {
  return G->bw > 0 ? RX_FIXED + 3 * __builtin_popcountll(res) : 1;
}

static size_t hash3(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  h ^= c * 0x165667B19E3779F9ull;
  h ^= h >> 31;
  return (size_t)(h * 0xBF58476D1CE4E5B9ull);
}

static size_t slot_of(const rx_search *s, uint64_t ran, uint64_t res, uint64_t host) {
  size_t h = hash3(ran, res, host) & (s->cap_tab - 1);
  while (s->bucket[h] && !(s->key_ran[h] == ran && s->key_res[h] == res && s->key_host[h] == host))
    h = (h + 1) & (s->cap_tab - 1);
  return h;
}

static void grow_table(rx_search *s) {
  size_t old = s->cap_tab;
  int **ob = s->bucket;
  uint64_t *o1 = s->key_ran, *o2 = s->key_res, *o3 = s->key_host;
  s->cap_tab = old ? 2 * old : 1024;
  s->bucket = mp_xcalloc(s->cap_tab, sizeof(int *));
  s->key_ran = mp_xcalloc(s->cap_tab, sizeof(uint64_t));
  s->key_res = mp_xcalloc(s->cap_tab, sizeof(uint64_t));
  s->key_host = mp_xcalloc(s->cap_tab, sizeof(uint64_t));
  for (size_t i = 0; i < old; i++)
    if (ob[i]) {
      size_t j = slot_of(s, o1[i], o2[i], o3[i]);
      s->bucket[j] = ob[i];
      s->key_ran[j] = o1[i];
      s->key_res[j] = o2[i];
      s->key_host[j] = o3[i];
    }
  free(ob);
  free(o1);
  free(o2);
  free(o3);
}

/* Does a allow every event x allows next (the canonical-order rules)? */
static bool allows_more(const rx_label *a, const rx_label *x) {
  if (a->kind < 0 || a->kind == MP_EV_RUN) return true;
  if (a->kind != x->kind) return false;
  return a->kind == MP_EV_FREE ? a->id <= x->id : a->id == x->id;
}

static bool clocks_le(const double *a, const double *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i] > b[i]) return false;
  return true;
}

int rx_pop(rx_search *s) {
  while (s->queue.n) {
    int top = mp_iheap_pop(&s->queue);
    if (!s->l[top].dead && !s->l[top].expanded) return top;
  }
  return -1;
}

static size_t bytes_used(const rx_search *s) {
  return (size_t)s->cap_l * sizeof(rx_label) + (size_t)s->cap_pool * sizeof(double) +
         s->cap_tab * (sizeof(int *) + 3 * sizeof(uint64_t)) + (size_t)s->queue.cap * sizeof(int) +
         (size_t)s->n_l * 2 * sizeof(int);
}

void rx_offer(rx_search *s, const rx_label *x, const double *clk) {
  int nc = rx_nclocks(s->G, x->res);
  if ((size_t)(s->n_l + 1) * 2 > s->cap_tab) grow_table(s);
  size_t h = slot_of(s, x->ran, x->res, x->host);
  int *b = s->bucket[h];
  for (int i = 1; b && i <= b[0]; i++) {
    const rx_label *y = &s->l[b[i]];
    if (!y->dead && allows_more(y, x) && clocks_le(&s->pool[y->clk], clk, nc)) return;
  }
  for (int i = 1; b && i <= b[0]; i++) {
    rx_label *y = &s->l[b[i]];
    if (!y->dead && !y->expanded && allows_more(x, y) && clocks_le(clk, &s->pool[y->clk], nc))
      y->dead = true;
  }
  if (s->n_l >= s->max_labels || bytes_used(s) > s->max_bytes) {
    s->full = true;
    return;
  }
  if (s->n_l == s->cap_l) {
    s->cap_l = s->cap_l ? 2 * s->cap_l : 1024;
    s->l = mp_xrealloc(s->l, sizeof(rx_label) * (size_t)s->cap_l);
  }
  if (s->n_pool + nc > s->cap_pool) {
    while (s->n_pool + nc > s->cap_pool) s->cap_pool = s->cap_pool ? 2 * s->cap_pool : 4096;
    s->pool = mp_xrealloc(s->pool, sizeof(double) * (size_t)s->cap_pool);
  }
  rx_label *y = &s->l[s->n_l];
  *y = *x;
  y->clk = s->n_pool;
  y->dead = y->expanded = false;
  memcpy(&s->pool[s->n_pool], clk, sizeof(double) * (size_t)nc);
  s->n_pool += nc;
  int count = b ? b[0] : 0;
  b = mp_xrealloc(b, sizeof(int) * (size_t)(count + 2));
  b[0] = count + 1;
  b[count + 1] = s->n_l;
  s->bucket[h] = b;
  s->key_ran[h] = x->ran;
  s->key_res[h] = x->res;
  s->key_host[h] = x->host;
  mp_iheap_push(&s->queue, s->n_l++);
}
