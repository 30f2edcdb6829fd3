/* test_rematckpt.c - the resumable run (lib/remat_ckpt.h) against plain
 * runs of the plan builder: random gaps and prefetch positions on
 * generated training steps, changed a few at a time, each change told
 * where rk_first_step says it begins; after each change the run resumed
 * from its snapshots must give the plain run's figures (peak, duration,
 * reruns, copies in, every position's sample and start time), and its
 * state at a random position the plain run's state there; the prefetch
 * lists updated in place (rk_prefetch_changed) those the plain run
 * builds, and snapshots held back (rk_snapshots_to) the same figures. */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_ckpt.h"
#include "testlib.h"

/* A random mode for gap e of b (never one the buffer does not allow) and
 * a prefetch position for a swap, inside the gap or anywhere. */
static void random_gap(const ri_info *ri, mp_rng *r, double bw, int b, int e, uint8_t *mode, int *pre) {
  int pick = (int)mp_rng_below(r, 3);
  *mode = RX_KEEP;
  *pre = -1;
  if (pick == 1 && (ri->flags[b] & RI_DROP)) *mode = RX_DROP;
  if (pick == 2 && bw > 0 && (ri->flags[b] & RI_SWAP)) {
    *mode = RX_SWAP;
    *pre = (int)mp_rng_below(r, (uint64_t)ri->m + 1) - 1;
  }
  (void)e;
}

/* The plain run to position p, then finished or not, pos_peak into peaks. */
static int plain_run(const ri_info *ri, double bw, const uint8_t *gap, const int *pre, int p, bool finish,
                     int64_t *peaks, rx_exec *x) {
  rx_init(x, ri, NULL, INT64_MAX, bw);
  memset(peaks, 0, sizeof(int64_t) * ((size_t)ri->m + 1));
  x->pos_peak = peaks;
  rx_set_gaps(x, gap, pre);
  int rc = rx_start(x);
  while (rc == 0 && x->p < p) rc = rx_step(x);
  if (rc == 0 && finish) rc = rx_finish(x);
  return rc;
}

static void same_state(const rx_exec *a, const rx_exec *b, const char *what) {
  const ri_info *ri = a->ri;
  ck_assert_msg(a->p == b->p && a->live == b->live && a->peak == b->peak && a->nres == b->nres &&
                    a->wait.n == b->wait.n && a->n_reruns == b->n_reruns && a->n_ins == b->n_ins,
                "%s: p %d/%d live %lld/%lld peak %lld/%lld resident %d/%d waiting %d/%d reruns %lld/%lld "
                "copies in %lld/%lld", what, a->p, b->p, (long long)a->live, (long long)b->live,
                (long long)a->peak, (long long)b->peak, a->nres, b->nres, a->wait.n, b->wait.n,
                (long long)a->n_reruns, (long long)b->n_reruns, (long long)a->n_ins, (long long)b->n_ins);
  ck_assert_msg(a->duration == b->duration && a->t_comp == b->t_comp && a->t_out == b->t_out &&
                    a->t_in == b->t_in && a->floor == b->floor,
                "%s: duration %.17g / %.17g", what, a->duration, b->duration);
  for (int i = 0; i < a->nres; i++) ck_assert_int_eq(a->rlist[i], b->rlist[i]);
  int *wa = malloc(sizeof(int) * ((size_t)ri->nb + 1)), *wb = malloc(sizeof(int) * ((size_t)ri->nb + 1));
  int na = rxw_listed(&a->wait, wa), nb = rxw_listed(&b->wait, wb);
  ck_assert_int_eq(na, nb);
  for (int i = 0; i < na; i++) ck_assert_int_eq(wa[i], wb[i]);
  free(wa);
  free(wb);
  for (int v = 0; v < ri->n; v++) ck_assert_int_eq(a->runs[v], b->runs[v]);
  for (int bf = 0; bf < ri->nb; bf++)
    ck_assert_msg(a->res[bf] == b->res[bf] && a->host[bf] == b->host[bf] && a->cur[bf] == b->cur[bf] &&
                      a->pending[bf] == b->pending[bf] && a->hold[bf] == b->hold[bf],
                  "%s: buffer %d differs: res %d/%d host %d/%d cur %d/%d pending %d/%d hold %d/%d at p %d bw %g", what, bf,
                  a->res[bf], b->res[bf], a->host[bf], b->host[bf], a->cur[bf], b->cur[bf], a->pending[bf],
                  b->pending[bf], a->hold[bf], b->hold[bf], a->p, a->bandwidth);
  for (int p = 0; p < a->p; p++)
    ck_assert_msg(a->pos_start[p] == b->pos_start[p] && a->pos_tout[p] == b->pos_tout[p] &&
                      a->pos_tin[p] == b->pos_tin[p],
                  "%s: times of position %d differ", what, p);
}

/* The copies in of each position, as rx_step takes them: the same lists
 * (none and empty ones alike). */
static void same_prefetch_lists(const rx_exec *a, const rx_exec *b) {
  for (int p = 0; p < a->ri->m; p++) {
    int na = a->pre_start ? a->pre_start[p + 1] - a->pre_start[p] : 0;
    int nb = b->pre_start ? b->pre_start[p + 1] - b->pre_start[p] : 0;
    ck_assert_msg(na == nb, "position %d: %d copies in, rebuilt %d", p, na, nb);
    for (int i = 0; i < na; i++) ck_assert_int_eq(a->pre[a->pre_start[p] + i], b->pre[b->pre_start[p] + i]);
  }
}

/* Rounds of random changes; each compared with plain runs.  in_place: the
 * prefetch lists updated change by change (rk_prefetch_changed) and the
 * snapshots held to a random position (rk_snapshots_to), instead of the
 * lists built again (rk_set_gaps). */
static void rounds(const ri_info *ri, mp_rng *r, double bw, int slots, bool in_place, int *compared) {
  int ne = ri->ev_start[ri->nb], m = ri->m;
  uint8_t *gap = calloc((size_t)ne + 1, 1);
  int *pre = malloc(sizeof(int) * ((size_t)ne + 1));
  int64_t *peaks = malloc(sizeof(int64_t) * ((size_t)m + 1));
  for (int e = 0; e < ne; e++) pre[e] = -1;
  rk_run k;
  rk_init(&k, ri, bw, slots, 0);
  rk_set_gaps(&k, gap, pre);
  for (int round = 0; round < 10; round++) {
    int first = m, changes = 1 + (int)mp_rng_below(r, 3);
    for (int c = 0; c < changes && round > 0; c++) {
      int b = (int)mp_rng_below(r, (uint64_t)ri->nb);
      if (ri->ev_start[b + 1] - ri->ev_start[b] < 2) continue;
      int e = ri->ev_start[b] + (int)mp_rng_below(r, (uint64_t)(ri->ev_start[b + 1] - ri->ev_start[b] - 1));
      uint8_t mode;
      int p;
      random_gap(ri, r, bw, b, e, &mode, &p);
      int step = rk_first_step(ri, b, e, gap[e], mode, pre[e], p), was = pre[e];
      first = step < first ? step : first;
      gap[e] = mode;
      pre[e] = p;
      if (in_place) rk_prefetch_changed(&k, b, e, was);
    }
    if (!in_place) rk_set_gaps(&k, gap, pre);
    if (in_place) rk_snapshots_to(&k, (int)mp_rng_below(r, (uint64_t)m + 1));
    rk_changed(&k, first);
    /* the whole plan */
    rx_exec x;
    int rc = plain_run(ri, bw, gap, pre, m, true, peaks, &x), rk = rk_resume(&k);
    while (rk == 0 && k.x.p < m) rk = rk_step(&k);
    if (rk == 0) rk = rk_finish(&k);
    ck_assert_msg(rc == rk, "round %d: plain %d, resumed %d (%s / %s)", round, rc, rk, x.msg, k.x.msg);
    same_prefetch_lists(&k.x, &x);
    if (rc == 0) {
      same_state(&k.x, &x, "whole plan");
      for (int p = 0; p <= m; p++) ck_assert_int_eq(k.pos_peak[p], peaks[p]);
      (*compared)++;
    }
    rx_destroy(&x);
    /* a state halfway, as a round's choices read it */
    int at = (int)mp_rng_below(r, (uint64_t)m + 1);
    rc = plain_run(ri, bw, gap, pre, at, false, peaks, &x);
    rk = rk_seek(&k, at);
    ck_assert_int_eq(rc, rk);
    if (rc == 0) same_state(&k.x, &x, "state at a position");
    rx_destroy(&x);
  }
  rk_destroy(&k);
  free(gap);
  free(pre);
  free(peaks);
}

START_TEST(resumed_equals_plain_runs) {
  mp_rng r;
  mp_rng_seed(&r, 15);
  static const char *families[] = {"sp", "layered", "chain"};
  int compared = 0;
  for (int f = 0; f < 3; f++)
    for (uint64_t seed = 1; seed <= (uint64_t)tl_trials(4); seed++) {
      mp_graph *g = tl_gen(families[f], 20 + 13 * (int)seed, seed, true);
      ri_info ri;
      ri_init(&ri, g, g->given);
      double size = 0, cost = 0;
      for (int b = 0; b < ri.nb; b++) size += (double)ri.size[b];
      for (int v = 0; v < ri.n; v++) cost += ri.cost[v];
      double link = cost > 0 ? size / cost : 1; /* a copy as long as a run, on average */
      static const double scale[] = {0, 0.2, 5};
      for (int i = 0; i < 6; i++) rounds(&ri, &r, link * scale[i / 2], 1 + (int)(seed % 5), i % 2, &compared);
      ri_destroy(&ri);
      mp_graph_destroy(g);
    }
  ck_assert_int_ge(compared, 6 * 3 * tl_trials(4));
}
END_TEST

/* Many prefetch changes crowded on a few positions (ties of next use
 * and buffer): the lists kept in place are the ones rx_set_gaps builds. */
START_TEST(prefetch_lists_in_place) {
  mp_rng r;
  mp_rng_seed(&r, 16);
  for (uint64_t seed = 1; seed <= (uint64_t)tl_trials(4); seed++) {
    mp_graph *g = tl_gen(seed % 2 ? "sp" : "layered", 30 + 7 * (int)seed, seed, true);
    ri_info ri;
    ri_init(&ri, g, g->given);
    int ne = ri.ev_start[ri.nb];
    uint8_t *gap = calloc((size_t)ne + 1, 1);
    int *pre = malloc(sizeof(int) * ((size_t)ne + 1));
    for (int e = 0; e < ne; e++) pre[e] = -1;
    rx_exec kept, built;
    rx_init(&kept, &ri, NULL, INT64_MAX, 1);
    rx_init(&built, &ri, NULL, INT64_MAX, 1);
    rx_set_gaps(&kept, gap, pre);
    for (int c = 0; c < 300; c++) {
      int b = (int)mp_rng_below(&r, (uint64_t)ri.nb);
      int e = ri.ev_start[b] + (int)mp_rng_below(&r, (uint64_t)(ri.ev_start[b + 1] - ri.ev_start[b]));
      int was = pre[e];
      pre[e] = (int)mp_rng_below(&r, 4) * (ri.m / 3) - (c % 5 == 0); /* -1, m and a few others */
      rx_prefetch_changed(&kept, b, e, was);
      rx_set_gaps(&built, gap, pre);
      same_prefetch_lists(&kept, &built);
    }
    rx_destroy(&kept);
    rx_destroy(&built);
    free(gap);
    free(pre);
    ri_destroy(&ri);
    mp_graph_destroy(g);
  }
}
END_TEST

Suite *suite_rematckpt(void) {
  Suite *s = suite_create("rematckpt");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, resumed_equals_plain_runs);
  tcase_add_test(tc, prefetch_lists_in_place);
  suite_add_tcase(s, tc);
  return s;
}
