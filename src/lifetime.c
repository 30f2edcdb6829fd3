/* lifetime.c - intervals under an order, the live profile, bounds, and the
 * incremental simulator schedulers build orders with (DESIGN 1.2, 1.3). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifetime.h"
#include "util.h"

/* The readers keep every sum of sizes below 2^60 (util.h); a problem built
 * otherwise still never wraps: the sums stop at INT64_MAX. */
static int64_t sat_add(int64_t a, int64_t b) {
  int64_t s;
  return mp_add_ok(a, b, &s) ? s : (b > 0 ? INT64_MAX : INT64_MIN);
}

int mp_problem_from_order(const mp_graph *g, const int *order, int64_t align, mp_problem *p) {
  int n = g->n;
  memset(p, 0, sizeof *p);
  p->g = g;
  p->n = g->n_buf;
  p->items = mp_xcalloc((size_t)(p->n ? p->n : 1), sizeof(mp_item));
  p->t_begin = 0;
  p->t_end = n;
  int *step = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) step[order[i]] = i;
  for (int b = 0; b < g->n_buf; b++) {
    const mp_buffer *bb = &g->bufs[b];
    mp_item *it = &p->items[b];
    int64_t birth, death;
    if (bb->kind == MP_BUF_WORKSPACE) {
      birth = death = step[bb->owner];
    } else {
      birth = bb->born_at_start ? 0 : step[bb->owner];
      if (bb->graph_output) {
        death = n - 1;
      } else if (bb->n_readers == 0) {
        death = birth; /* a dead value dies at once */
      } else {
        death = birth;
        for (int i = 0; i < bb->n_readers; i++)
          if (step[bb->readers[i]] > death) death = step[bb->readers[i]];
      }
    }
    it->size = bb->size;
    it->lo = birth;
    it->hi = death + 1;
    it->align = align < 1 ? 1 : align;
    it->fixed = -1;
  }
  free(step);
  return 0;
}

void mp_problem_destroy(mp_problem *p) {
  if (!p) return;
  if (p->ids)
    for (int i = 0; i < p->n; i++) free(p->ids[i]);
  free(p->ids);
  free(p->items);
  free(p->name);
  free(p->file);
  memset(p, 0, sizeof *p);
}

void mp_problem_copy(const mp_problem *src, mp_problem *dst) {
  *dst = *src;
  dst->items = mp_xmalloc(sizeof(mp_item) * (size_t)(src->n ? src->n : 1));
  if (src->n) memcpy(dst->items, src->items, sizeof(mp_item) * (size_t)src->n); /* items may be NULL */
  dst->name = mp_xstrdup(src->name);
  dst->file = mp_xstrdup(src->file);
  if (src->ids) {
    dst->ids = mp_xmalloc(sizeof(char *) * (size_t)(src->n ? src->n : 1));
    for (int i = 0; i < src->n; i++) dst->ids[i] = mp_xstrdup(src->ids[i]);
  }
}

/* Events of the sweep: +size at lo, -size at hi. */
typedef struct event {
  int64_t t;
  int64_t delta;
} event;

/* Sorted by time, ends (negative) before starts at equal times: [lo, hi)
 * half-open.  Radix sorts (by sign, then stably by time), not a comparison
 * sort: the sweeps run on every solve and verify.  Events of one time and
 * sign may come in any order: their saturating sum is the same in every
 * order (they all move it one way), the peak among them is reached at the
 * last, and the sweeps read the live bytes only between times. */
static uint64_t event_key(const void *rec, int pass) {
  const event *e = rec;
  return pass == 0 ? (uint64_t)(e->delta > 0) : mp_radix_key(e->t);
}

static event *make_events(const mp_problem *p, int *ne) {
  size_t cap = 2 * (size_t)p->n + 1;
  event *ev = mp_xmalloc(sizeof(event) * cap);
  int m = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->size <= 0 || it->hi <= it->lo) continue;
    ev[m++] = (event){it->lo, it->size};
    ev[m++] = (event){it->hi, -it->size};
  }
  mp_radix_sort_records(ev, sizeof *ev, (size_t)m, 2, event_key);
  *ne = m;
  return ev;
}

/* M(t) for t in [begin, end) (end > begin), lifetimes clipped to it: a
 * difference array and its running sum, saturating. */
static int64_t *live_by_step(const mp_problem *p, int64_t begin, int64_t end) {
  int64_t len = end - begin;
  int64_t *d = mp_xcalloc((size_t)len + 1, sizeof(int64_t));
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    int64_t lo = it->lo < begin ? begin : it->lo;
    int64_t hi = it->hi > end ? end : it->hi;
    if (it->size <= 0 || hi <= lo) continue;
    d[lo - begin] = sat_add(d[lo - begin], it->size);
    d[hi - begin] = sat_add(d[hi - begin], -it->size);
  }
  int64_t run = 0;
  for (int64_t t = 0; t < len; t++) {
    run = sat_add(run, d[t]);
    d[t] = run;
  }
  return d;
}

/* max_t M(t) by a difference array over the items' time span, where that
 * is exact and small: the sizes sum without overflow (so no partial sum
 * saturates and the order of the events within one time cannot matter)
 * and the span is at most 4 n + 64 steps (a graph's is n).  Within one
 * time the ends come first, so the peak is reached at the end of a time.
 * false: use the events. */
static bool dense_peak(const mp_problem *p, int64_t *peak) {
  int64_t first = INT64_MAX, last = INT64_MIN, total = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->size <= 0 || it->hi <= it->lo) continue;
    if (!mp_add_ok(total, it->size, &total)) return false;
    if (it->lo < first) first = it->lo;
    if (it->hi > last) last = it->hi;
  }
  *peak = 0;
  if (first > last) return true; /* nothing live */
  uint64_t span = (uint64_t)last - (uint64_t)first;
  if (span > 4 * (uint64_t)p->n + 64) return false;
  int64_t *live = live_by_step(p, first, last);
  for (uint64_t t = 0; t < span; t++)
    if (live[t] > *peak) *peak = live[t];
  free(live);
  return true;
}

int64_t mp_live_peak(const mp_problem *p) {
  int64_t dense;
  if (dense_peak(p, &dense)) return dense;
  int m;
  event *ev = make_events(p, &m);
  int64_t live = 0, peak = 0;
  for (int i = 0; i < m; i++) {
    live = sat_add(live, ev[i].delta);
    if (live > peak) peak = live;
  }
  free(ev);
  return peak;
}

int64_t *mp_profile(const mp_problem *p) {
  if (p->t_end <= p->t_begin) return NULL;
  return live_by_step(p, p->t_begin, p->t_end);
}

/* Sum over [t_begin, t_end) of (M(t) - center)^power, power 1 or 2, by a
 * sweep over the events (M is constant between consecutive event times, so
 * long fixed-lifetime ranges cost nothing extra). */
static long double profile_moment(const mp_problem *p, const event *ev, int m, int64_t base,
                                  long double center, int power) {
  long double s = 0;
  int64_t live = 0, t = p->t_begin;
  for (int i = 0; i <= m; i++) {
    int64_t next = i < m ? ev[i].t : p->t_end;
    if (next > p->t_end) next = p->t_end;
    if (next > t) {
      long double d = (long double)(live - base) - center;
      s += (long double)(next - t) * (power == 1 ? d : d * d);
      t = next;
    }
    if (i < m) live = sat_add(live, ev[i].delta);
  }
  return s;
}

/* The profile over [t_begin, t_end) as the sweep sees it, in a dense
 * array: live0 the bytes live at t_begin, d[k] the change at t_begin + k
 * (0 < k < len), mark bit k set when some event falls at that time (a
 * boundary of the sweep's constant pieces even when its changes cancel).
 * Only where exact and small: the sizes sum without overflow (no partial
 * sum saturates, so every piece's value is the sweep's) and len is at most
 * 4 n + 64.  false: use the events. */
typedef struct dense_profile {
  int64_t live0, len;
  int64_t *d;
  uint64_t *mark;
} dense_profile;

static bool dense_profile_make(const mp_problem *p, dense_profile *dp) {
  int64_t total = 0;
  if (p->t_end - p->t_begin > 4 * (int64_t)p->n + 64) return false;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].size > 0 && p->items[i].hi > p->items[i].lo && !mp_add_ok(total, p->items[i].size, &total))
      return false;
  dp->len = p->t_end - p->t_begin;
  dp->live0 = 0;
  dp->d = mp_xcalloc((size_t)dp->len + 1, sizeof(int64_t));
  dp->mark = mp_xcalloc((size_t)dp->len / 64 + 1, sizeof(uint64_t));
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->size <= 0 || it->hi <= it->lo) continue;
    int64_t at[2] = {it->lo, it->hi}, by[2] = {it->size, -it->size};
    for (int e = 0; e < 2; e++) {
      if (at[e] >= p->t_end) continue; /* after the last piece */
      if (at[e] <= p->t_begin) {
        dp->live0 += by[e];
        continue;
      }
      int64_t k = at[e] - p->t_begin;
      dp->d[k] += by[e];
      dp->mark[k >> 6] |= 1ull << (k & 63);
    }
  }
  return true;
}

/* profile_moment over the dense array: the same pieces, in the same order,
 * the same arithmetic, so the same long double to the last bit. */
static long double dense_moment(const dense_profile *dp, int64_t base, long double center, int power) {
  long double s = 0;
  int64_t live = dp->live0, from = 0;
  for (int64_t k = 1; k <= dp->len; k++) {
    if (k < dp->len && !(dp->mark[k >> 6] >> (k & 63) & 1)) continue;
    long double d = (long double)(live - base) - center;
    s += (long double)(k - from) * (power == 1 ? d : d * d);
    from = k;
    if (k < dp->len) live += dp->d[k];
  }
  return s;
}

/* Two passes, the mean then the squared deviations from it: the one-pass
 * E[M^2] - E[M]^2 cancels catastrophically when the deviations are small
 * against the bytes (an error in the 9th digit on a profile of ~64 KiB
 * with a std-dev of 0.25 bytes, found by tests/py/audit.py).  The
 * deviations are taken in integers from a whole byte count near the mean
 * (the std-dev does not move with a shift): above 2^54 bytes a long
 * double mean is off by ~2^-9, which moved a 0.49-byte std-dev in its 7th
 * digit. */
static double std_of_moments(long double (*moment)(const void *, int64_t, long double, int),
                             const void *src, int64_t len) {
  int64_t base = (int64_t)llroundl(moment(src, 0, 0, 1) / (long double)len);
  long double mean = moment(src, base, 0, 1) / (long double)len;
  long double var = moment(src, base, mean, 2) / (long double)len;
  return (double)sqrtl(var < 0 ? 0 : var);
}

typedef struct sweep_src {
  const mp_problem *p;
  const event *ev;
  int m;
} sweep_src;

static long double sweep_moment_of(const void *src, int64_t base, long double center, int power) {
  const sweep_src *s = src;
  return profile_moment(s->p, s->ev, s->m, base, center, power);
}

static long double dense_moment_of(const void *src, int64_t base, long double center, int power) {
  return dense_moment(src, base, center, power);
}

double mp_profile_std_sweep(const mp_problem *p) {
  int64_t len = p->t_end - p->t_begin;
  if (len <= 0) return 0.0;
  sweep_src s = {p, NULL, 0};
  event *ev = make_events(p, &s.m);
  s.ev = ev;
  double sd = std_of_moments(sweep_moment_of, &s, len);
  free(ev);
  return sd;
}

/* The dense array where it is exact (about 10x faster at 10^6 buffers:
 * no event sort), else the sweep over the events; both give the same
 * double, bit for bit. */
double mp_profile_std(const mp_problem *p) {
  int64_t len = p->t_end - p->t_begin;
  if (len <= 0) return 0.0;
  dense_profile dp;
  if (!dense_profile_make(p, &dp)) return mp_profile_std_sweep(p);
  double sd = std_of_moments(dense_moment_of, &dp, len);
  free(dp.d);
  free(dp.mark);
  return sd;
}

int64_t mp_sum_sizes(const mp_problem *p) {
  int64_t s = 0;
  for (int i = 0; i < p->n; i++) s = sat_add(s, p->items[i].size);
  return s;
}

int64_t mp_node_footprint(const mp_graph *g, int v) {
  int64_t s = 0, dead = 0;
  for (int i = 0; i < g->n_reads[v]; i++) s = sat_add(s, g->bufs[g->reads[v][i]].size);
  const mp_node *nd = &g->nodes[v];
  for (int k = 0; k < nd->n_out; k++) {
    int b = g->root_of[v][k];
    if (b < 0 || g->bufs[b].owner != v || g->bufs[b].kind != MP_BUF_TENSOR || g->bufs[b].out != k)
      continue;
    /* a graph input nobody reads is a dead value born and dead at step 0:
     * live at step 0 in every order, but not while v runs (unless v runs
     * first), so it counts apart from what v holds at its own step */
    const mp_buffer *bb = &g->bufs[b];
    if (bb->born_at_start && bb->n_readers == 0 && !bb->graph_output)
      dead = sat_add(dead, bb->size);
    else
      s = sat_add(s, bb->size);
  }
  if (g->ws_buf[v] >= 0) s = sat_add(s, g->bufs[g->ws_buf[v]].size);
  return s > dead ? s : dead;
}

int64_t mp_node_lower_bound(const mp_graph *g) {
  int64_t lb = 0;
  for (int v = 0; v < g->n; v++) {
    int64_t f = mp_node_footprint(g, v);
    if (f > lb) lb = f;
  }
  return lb;
}

int64_t mp_order_peak(const mp_graph *g, const int *order) {
  mp_problem p;
  mp_problem_from_order(g, order, 1, &p);
  int64_t peak = mp_live_peak(&p);
  mp_problem_destroy(&p);
  return peak;
}
