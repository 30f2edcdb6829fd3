/* events.c - the event plan (DESIGN 6.2): storage, names, the plan of an
 * order (the equivalence rule), first-run orders, bounds and budgets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "util.h"

/* ---- storage ---- */

void mp_events_init(mp_events *p) { memset(p, 0, sizeof *p); }

void mp_events_destroy(mp_events *p) {
  free(p->ev);
  memset(p, 0, sizeof *p);
}

void mp_events_clear(mp_events *p) { p->n = 0; }

void mp_events_push(mp_events *p, mp_event_kind kind, int id) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    p->ev = mp_xrealloc(p->ev, sizeof(mp_event) * (size_t)p->cap);
  }
  p->ev[p->n++] = (mp_event){kind, id};
}

void mp_events_copy(mp_events *dst, const mp_events *src) {
  mp_events_clear(dst);
  for (int i = 0; i < src->n; i++) mp_events_push(dst, src->ev[i].kind, src->ev[i].id);
}

static const char *const kind_names[] = {"run", "free", "out", "in"};

const char *mp_event_kind_name(mp_event_kind k) {
  return (unsigned)k <= MP_EV_IN ? kind_names[k] : "?";
}

int mp_event_kind_parse(const char *s, mp_event_kind *out) {
  for (int k = MP_EV_RUN; k <= MP_EV_IN; k++)
    if (s && strcmp(s, kind_names[k]) == 0) {
      *out = (mp_event_kind)k;
      return 0;
    }
  return -1;
}

void mp_event_label(const mp_graph *g, mp_event e, char *out, size_t cap) {
  const char *kind = mp_event_kind_name(e.kind);
  if (e.kind == MP_EV_RUN) {
    if (e.id < 0 || e.id >= g->n)
      snprintf(out, cap, "run %d", e.id);
    else if (g->nodes[e.id].name && g->nodes[e.id].name[0])
      snprintf(out, cap, "run %d (%s)", e.id, g->nodes[e.id].name);
    else
      snprintf(out, cap, "run %d", e.id);
    return;
  }
  if (e.id < 0 || e.id >= g->n_buf) {
    snprintf(out, cap, "%s #%d", kind, e.id);
    return;
  }
  char key[48];
  mp_buffer_key(g, e.id, key, sizeof key);
  snprintf(out, cap, "%s %s", kind, key);
}

/* ---- the plan of an order ---- */

void mp_events_from_order(const mp_graph *g, const int *order, mp_events *out) {
  int n = g->n;
  mp_events_clear(out);
  mp_problem pr;
  mp_problem_from_order(g, order, 1, &pr);
  /* frees grouped by the step their buffer dies at, in buffer-id order */
  int *start = mp_xcalloc((size_t)n + 2, sizeof(int));
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && !g->bufs[b].graph_output) start[pr.items[b].hi]++;
  for (int t = 1; t <= n + 1; t++) start[t] += start[t - 1];
  int *dying = mp_xmalloc(sizeof(int) * (size_t)(g->n_buf ? g->n_buf : 1));
  int *fill = mp_xcalloc((size_t)n + 1, sizeof(int));
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && !g->bufs[b].graph_output) {
      int t = (int)pr.items[b].hi - 1; /* the death step */
      dying[start[t] + fill[t]++] = b;
    }
  for (int t = 0; t < n; t++) {
    int v = order[t];
    if (!g->nodes[v].is_input) mp_events_push(out, MP_EV_RUN, v);
    for (int i = start[t]; i < start[t + 1]; i++) mp_events_push(out, MP_EV_FREE, dying[i]);
  }
  free(fill);
  free(dying);
  free(start);
  mp_problem_destroy(&pr);
}

int mp_events_first_order(const mp_graph *g, const mp_events *p, int *order) {
  int n = g->n, m = 0;
  bool *seen = mp_xcalloc((size_t)(n ? n : 1), sizeof(bool));
  for (int i = 0; i < n; i++) {
    int v = g->given[i];
    if (g->nodes[v].is_input) {
      order[m++] = v;
      seen[v] = true;
    }
  }
  for (int i = 0; i < p->n; i++) {
    int v = p->ev[i].id;
    if (p->ev[i].kind != MP_EV_RUN || v < 0 || v >= n || seen[v]) continue;
    seen[v] = true;
    order[m++] = v;
  }
  free(seen);
  return m == n ? 0 : -1;
}

bool mp_events_follow(const mp_graph *g, const mp_events *p, const int *order) {
  int n = g->n;
  int *pos = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  bool *seen = mp_xcalloc((size_t)(n ? n : 1), sizeof(bool));
  for (int i = 0; i < n; i++) pos[order[i]] = i;
  int last = -1;
  bool ok = true;
  for (int i = 0; i < p->n && ok; i++) {
    int v = p->ev[i].id;
    if (p->ev[i].kind != MP_EV_RUN || v < 0 || v >= n || seen[v] || g->nodes[v].is_input) continue;
    seen[v] = true;
    ok = pos[v] > last;
    last = pos[v];
  }
  free(seen);
  free(pos);
  return ok;
}

/* ---- bounds ---- */

int64_t mp_node_need(const mp_graph *g, int v) {
  const mp_node *nd = &g->nodes[v];
  if (nd->is_input) return 0;
  int64_t s = nd->workspace;
  for (int i = 0; i < g->n_reads[v]; i++) s += g->bufs[g->reads[v][i]].size;
  if (!nd->has_alias)
    for (int k = 0; k < nd->n_out; k++)
      if (g->root_of[v][k] >= 0) s += g->bufs[g->root_of[v][k]].size;
  return s;
}

bool mp_events_start_sampled(const mp_graph *g) {
  for (int v = 0; v < g->n; v++)
    if (g->nodes[v].is_input) return true;
  return false;
}

int64_t mp_events_floor(const mp_graph *g) {
  int64_t in = 0, out = 0, need = 0;
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    if (bb->kind != MP_BUF_TENSOR) continue;
    if (bb->born_at_start) in += bb->size;
    if (bb->graph_output) out += bb->size;
  }
  for (int v = 0; v < g->n; v++) {
    int64_t x = mp_node_need(g, v);
    if (x > need) need = x;
  }
  int64_t f = in > out ? in : out;
  return f > need ? f : need;
}

double mp_base_time(const mp_graph *g) {
  double s = 0;
  for (int v = 0; v < g->n; v++) s += g->nodes[v].cost;
  return s;
}

double mp_events_duration_floor(const mp_graph *g) {
  double s = 0;
  for (int v = 0; v < g->n; v++)
    if (!g->nodes[v].is_input) s += g->nodes[v].cost;
  return s;
}

/* ---- --budget-frac ---- */

typedef unsigned __int128 u128;

static u128 pow10_u128(int e) {
  u128 x = 1;
  while (e-- > 0) x *= 10;
  return x;
}

/* F = mant x 10^exp10 from its decimal text; 0, or -1. */
static int parse_decimal(const char *s, uint64_t *mant, int *exp10) {
  uint64_t m = 0;
  int digits = 0, e = 0, seen = 0;
  const char *c = s;
  for (; *c >= '0' && *c <= '9'; c++, seen++) {
    if (m == 0 && *c == '0') continue; /* leading zeros */
    if (++digits > 18) return -1;
    m = m * 10 + (uint64_t)(*c - '0');
  }
  if (*c == '.')
    for (c++; *c >= '0' && *c <= '9'; c++, seen++) {
      e--;
      if (m == 0 && *c == '0') continue;
      if (++digits > 18) return -1;
      m = m * 10 + (uint64_t)(*c - '0');
    }
  if (!seen) return -1;
  if (*c == 'e' || *c == 'E') {
    c++;
    int sign = 1, x = 0, xd = 0;
    if (*c == '+' || *c == '-') sign = *c++ == '-' ? -1 : 1;
    for (; *c >= '0' && *c <= '9'; c++, xd++)
      if ((x = x * 10 + (*c - '0')) > 1000) return -1;
    if (!xd) return -1;
    e += sign * x;
  }
  if (*c) return -1;
  while (m && m % 10 == 0) {
    m /= 10;
    e++;
  }
  *mant = m;
  *exp10 = e;
  return 0;
}

int mp_budget_frac(const char *text, int64_t peak, int64_t *budget, mp_error *err) {
  uint64_t m;
  int e;
  if (text && text[0] == '-' && !parse_decimal(text + 1, &m, &e))
    return mp_errorf(err, "budget fraction '%s' is outside (0, 1000]", text);
  if (!text || parse_decimal(text, &m, &e))
    return mp_errorf(err, "budget fraction '%s' is not a decimal number (at most 18 digits)",
                     text ? text : "");
  /* 0 < F <= 1000 (m has at most 18 digits, so m * 10^e cannot wrap for e <= 3) */
  if (m == 0 || e > 3 ||
      (e >= 0 ? (u128)m * pow10_u128(e) > 1000 : e >= -30 && (u128)m > 1000 * pow10_u128(-e)))
    return mp_errorf(err, "budget fraction '%s' is outside (0, 1000]", text);
  /* at most 30 decimal places, so that 10^-exp10 fits in the division below */
  if (e < -30)
    return mp_errorf(err, "budget fraction '%s' has more than 30 decimal places (the finest "
                     "fraction taken is 1e-30)", text);
  if (peak < 0) return mp_errorf(err, "budget fraction: negative peak %lld", (long long)peak);
  u128 num = (u128)m * (u128)peak, den = 1;
  if (e >= 0)
    num *= pow10_u128(e);
  else
    den = pow10_u128(-e);
  u128 q = num / den + (num % den != 0);
  if (q > (u128)INT64_MAX)
    return mp_errorf(err, "budget fraction '%s' of %lld bytes overflows", text, (long long)peak);
  *budget = (int64_t)q;
  return 0;
}
