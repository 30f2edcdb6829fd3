/* test_rematwait.c - the waiting list of the plan builder
 * (lib/remat_wait.h), two ways:
 * - the structure against a plain array kept here: random adds, removals
 *   (the last one into the gap), touches and visits; each visit must give
 *   exactly the listed buffers whose key has passed or that were touched,
 *   in the plain array's order, and the lists must stay equal;
 * - the builder (lib/remat_exec.h) with random swap gaps and a random
 *   driver that offloads, fetches, polls and changes gaps (told with
 *   rx_set_gaps), against the same run that touches every waiting buffer
 *   before each step and poll: the walk of the whole list the builder made
 *   before it had the heap.  Both must write the same events and end in
 *   the same state. */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_exec.h"
#include "testlib.h"

/* ---- the structure against a plain array ---- */

typedef struct plain {
  int *a, n;
  bool *touched;
} plain;

static int plain_find(const plain *p, int b) {
  for (int i = 0; i < p->n; i++)
    if (p->a[i] == b) return i;
  return -1;
}

/* One random operation on both; a visit compares the buffers visited. */
static void random_op(rx_wait *w, plain *p, const double *key, int nb, mp_rng *r, double *now) {
  int b = (int)mp_rng_below(r, (uint64_t)nb), op = (int)mp_rng_below(r, 10);
  int at = plain_find(p, b);
  if (op < 4 && at < 0) {
    rxw_add(w, b);
    p->a[p->n++] = b;
  } else if (op < 5 && at >= 0) {
    rxw_remove(w, b);
    p->a[at] = p->a[--p->n];
  } else if (op < 7) {
    rxw_touch(w, b);
    p->touched[b] = true;
  } else {
    *now += mp_rng_unit(r) * 3;
    int n = rxw_visits(w, *now), k = 0;
    int *want = malloc(sizeof(int) * ((size_t)p->n + 1));
    for (int i = 0; i < p->n; i++)
      if (key[p->a[i]] <= *now || p->touched[p->a[i]]) want[k++] = p->a[i];
    memset(p->touched, 0, sizeof(bool) * (size_t)nb);
    ck_assert_msg(n == k && !memcmp(w->due, want, sizeof(int) * (size_t)n), "a visit of %d buffers, %d wanted", n, k);
    /* a visit keeps a buffer whose copy has not ended, or drops it */
    for (int i = 0; i < n; i++) {
      bool keep = key[want[i]] > *now && mp_rng_below(r, 2);
      rxw_visited(w, want[i], keep);
      if (!keep) {
        int j = plain_find(p, want[i]);
        memmove(p->a + j, p->a + j + 1, sizeof(int) * (size_t)(p->n - j - 1));
        p->n--;
      }
    }
    free(want);
  }
  int *got = malloc(sizeof(int) * ((size_t)nb + 1));
  int n = rxw_listed(w, got);
  bool same = n == p->n && w->n == p->n && !memcmp(got, p->a, sizeof(int) * (size_t)n);
  free(got);
  ck_assert_msg(same, "the list differs from the plain one (%d / %d buffers)", n, p->n);
}

START_TEST(visits_equal_a_walk_of_the_list) {
  mp_rng r;
  mp_rng_seed(&r, 3);
  for (int trial = 0; trial < tl_trials(20); trial++) {
    int nb = 2 + (int)mp_rng_below(&r, 60);
    double *key = malloc(sizeof(double) * (size_t)nb);
    for (int b = 0; b < nb; b++) key[b] = mp_rng_unit(&r) * 100; /* fixed per buffer */
    rx_wait w, copy;
    rxw_init(&w, nb, key);
    rxw_init(&copy, nb, key);
    plain p = {malloc(sizeof(int) * (size_t)nb), 0, calloc((size_t)nb, sizeof(bool))};
    double now = 0;
    for (int i = 0; i < 400; i++) {
      random_op(&w, &p, key, nb, &r, &now);
      if (i == 200) { /* a copy goes on like the original */
        rxw_copy(&copy, &w);
        rxw_destroy(&w);
        rxw_init(&w, nb, key);
        rxw_copy(&w, &copy);
      }
    }
    rxw_clear(&w);
    ck_assert_int_eq(rxw_listed(&w, p.a), 0);
    for (int b = 0; b < nb; b++) ck_assert_msg(w.slot[b] == 0 && w.mark[b] == 0, "buffer %d left marked", b);
    rxw_destroy(&w);
    rxw_destroy(&copy);
    free(p.a);
    free(p.touched);
    free(key);
  }
}
END_TEST

/* ---- the builder against the walk of every waiting buffer ---- */

/* Random gaps: drop, or swap brought back at a random position. */
static void random_gaps(const ri_info *ri, mp_rng *r, uint8_t *gap, int *pre) {
  for (int b = 0; b < ri->nb; b++)
    for (int e = ri->ev_start[b]; e < ri->ev_start[b + 1]; e++) {
      int pick = (int)mp_rng_below(r, 3);
      gap[e] = RX_KEEP, pre[e] = -1;
      if (pick == 1 && (ri->flags[b] & RI_DROP)) gap[e] = RX_DROP;
      if (pick == 2 && (ri->flags[b] & RI_SWAP)) gap[e] = RX_SWAP, pre[e] = (int)mp_rng_below(r, (uint64_t)ri->m + 1) - 1;
    }
}

/* The two runs in the same state: events, memory, residency, the waiting
 * buffers and their order. */
static void same_state(const rx_exec *a, const rx_exec *b, const mp_events *ea, const mp_events *eb,
                       int *la, int *lb) {
  const ri_info *ri = a->ri;
  /* plain tests first: a passing ck_assert costs a write */
  bool same = ea->n == eb->n && !memcmp(ea->ev, eb->ev, sizeof(mp_event) * (size_t)ea->n);
  ck_assert_msg(same, "the events differ at position %d (%d / %d events)", a->p, ea->n, eb->n);
  same = a->peak == b->peak && a->live == b->live && a->duration == b->duration && a->nres == b->nres &&
         !memcmp(a->rlist, b->rlist, sizeof(int) * (size_t)a->nres);
  ck_assert_msg(same, "memory or residency differ at position %d", a->p);
  for (int bf = 0; bf < ri->nb; bf++)
    if (a->pending[bf] != b->pending[bf] || a->res[bf] != b->res[bf])
      ck_abort_msg("buffer %d at %d: pending %d / %d", bf, a->p, a->pending[bf], b->pending[bf]);
  int na = rxw_listed(&a->wait, la), nb = rxw_listed(&b->wait, lb);
  ck_assert_msg(na == nb && !memcmp(la, lb, sizeof(int) * (size_t)na), "the waiting lists differ at %d", a->p);
}

/* A random new mode for a random gap of b (one it allows), told to the
 * builder with rx_set_gaps (x->gap is the run's own array). */
static void change_gap(rx_exec *x, mp_rng *r, int b) {
  const ri_info *ri = x->ri;
  int n = ri->ev_start[b + 1] - ri->ev_start[b], pick = (int)mp_rng_below(r, 3);
  if (n == 0) return;
  uint8_t *gap = (uint8_t *)x->gap;
  int e = ri->ev_start[b] + (int)mp_rng_below(r, (uint64_t)n);
  gap[e] = RX_KEEP;
  if (pick == 1 && (ri->flags[b] & RI_DROP)) gap[e] = RX_DROP;
  if (pick == 2 && (ri->flags[b] & RI_SWAP)) gap[e] = RX_SWAP;
  rx_set_gaps(x, x->gap, x->prefetch);
}

/* One driver step on x: offloads, fetches and polls of random buffers,
 * gaps changed, then the next position (walk: every waiting buffer
 * touched before each poll and step, the old walk of the whole list). */
static int drive(rx_exec *x, mp_rng *r, bool walk) {
  const ri_info *ri = x->ri;
  int rc = 0, ops = (int)mp_rng_below(r, 4);
  for (int i = 0; rc == 0 && i < ops; i++) {
    int b = (int)mp_rng_below(r, (uint64_t)ri->nb), what = (int)mp_rng_below(r, 4);
    if (what == 0) rx_offload(x, b);
    else if (what == 1 && x->pending[b] == 2) rc = rx_fetch(x, b);
    else if (what == 3) change_gap(x, r, b);
    else {
      if (walk) rxw_touch_all(&x->wait);
      rx_poll(x);
    }
  }
  if (walk) rxw_touch_all(&x->wait);
  if (rc == 0) rc = x->p < ri->m ? rx_step(x) : rx_finish(x);
  return rc;
}

/* The run and its walking twin in lockstep, compared after each step.
 * Returns the number of copies out. */
static int lockstep(const ri_info *ri, double bw, uint64_t seed) {
  int ne = ri->ev_start[ri->nb];
  uint8_t *gap = malloc((size_t)ne + 1), *gap_b = malloc((size_t)ne + 1); /* each run changes its own */
  int *pre = malloc(sizeof(int) * ((size_t)ne + 1));
  int *la = malloc(sizeof(int) * ((size_t)ri->nb + 1)), *lb = malloc(sizeof(int) * ((size_t)ri->nb + 1));
  mp_rng gr, ra, rb;
  mp_rng_seed(&gr, seed);
  random_gaps(ri, &gr, gap, pre);
  memcpy(gap_b, gap, (size_t)ne + 1);
  mp_events ea, eb;
  mp_events_init(&ea);
  mp_events_init(&eb);
  rx_exec a, b;
  rx_init(&a, ri, &ea, INT64_MAX, bw);
  rx_init(&b, ri, &eb, INT64_MAX, bw);
  rx_set_gaps(&a, gap, pre);
  rx_set_gaps(&b, gap_b, pre);
  mp_rng_seed(&ra, seed + 1000);
  mp_rng_seed(&rb, seed + 1000);
  int rc_a = rx_start(&a), rc_b = rx_start(&b);
  while (rc_a == 0 && rc_b == 0 && a.p <= ri->m) {
    bool last = a.p == ri->m;
    rc_a = drive(&a, &ra, false);
    rc_b = drive(&b, &rb, true);
    same_state(&a, &b, &ea, &eb, la, lb);
    if (last) break;
  }
  ck_assert_msg(rc_a == rc_b, "%d (%s) / %d (%s)", rc_a, a.msg, rc_b, b.msg);
  int outs = 0;
  for (int k = 0; k < ea.n; k++) outs += ea.ev[k].kind == MP_EV_OUT;
  rx_destroy(&a);
  rx_destroy(&b);
  mp_events_destroy(&ea);
  mp_events_destroy(&eb);
  free(gap);
  free(gap_b);
  free(pre);
  free(la);
  free(lb);
  return outs;
}

START_TEST(builder_frees_as_the_walk_of_every_waiting_buffer) {
  int outs = 0;
  for (uint64_t seed = 1; seed <= (uint64_t)tl_trials(6); seed++) {
    mp_graph *g = tl_gen("sp", 30 + 25 * (int)seed, seed, true);
    ri_info ri;
    ri_init(&ri, g, g->given);
    double size = 0, cost = 0;
    for (int b = 0; b < ri.nb; b++) size += (double)ri.size[b];
    for (int v = 0; v < ri.n; v++) cost += ri.cost[v];
    double link = cost > 0 ? size / cost : 1; /* a copy as long as a run, on average */
    static const double scale[] = {0.05, 0.5, 5};
    for (int i = 0; i < 3; i++) outs += lockstep(&ri, link * scale[i], seed);
    ri_destroy(&ri);
    mp_graph_destroy(g);
  }
  ck_assert_int_gt(outs, 50); /* the runs copy out */
}
END_TEST

Suite *suite_rematwait(void) {
  Suite *s = suite_create("rematwait");
  TCase *list = tcase_create("list"), *builder = tcase_create("builder");
  tcase_add_test(list, visits_equal_a_walk_of_the_list);
  tcase_add_test(builder, builder_frees_as_the_walk_of_every_waiting_buffer);
  suite_add_tcase(s, list);
  suite_add_tcase(s, builder);
  return s;
}
