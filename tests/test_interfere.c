/* test_interfere.c - the interference graph of lib/interfere.h against its
 * definition, and coloring's size cap and time limit:
 * - on random problems (empty and inverted lifetimes, size 0, pins, many
 *   equal ends, long lifetimes) the vertices are the unpinned items with
 *   bytes and a non-empty lifetime, the count is the number of pairs
 *   mp_live_together, and the sweep lists exactly those pairs in the
 *   pairwise order ((a, b), a < b, lexicographic): a dropped, added or
 *   moved edge fails;
 * - a deadline already past cuts the sweep (given enough edges to check);
 * - coloring refuses a graph over coloring.max_edges (status refused, the
 *   count and the cap in the message), gives no plan when the deadline has
 *   passed before its graph is listed, and keeps igraph's colouring with
 *   status timeout when it passes after it. */
#include <stdlib.h>
#include <string.h>

#include "lib/interfere.h"
#include "lib/pack.h"
#include "testlib.h"

/* shape 0 plain, 1 empty / inverted / size 0 / pinned items too, 2 long
 * lifetimes (dense), 3 few distinct times (many equal ends). */
static void rand_items(mp_rng *r, int n, int shape, mp_problem *p) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)(n ? n : 1), sizeof(mp_item));
  int64_t T = shape == 3 ? 3 + (int64_t)mp_rng_below(r, 4) : 5 + (int64_t)mp_rng_below(r, 60);
  for (int i = 0; i < n; i++) {
    mp_item *it = &p->items[i];
    it->lo = (int64_t)mp_rng_below(r, (uint64_t)T);
    int64_t len = shape == 2 ? (int64_t)mp_rng_below(r, (uint64_t)T) : 1 + (int64_t)mp_rng_below(r, 6);
    it->hi = it->lo + (len ? len : 1);
    it->size = 1 + (int64_t)mp_rng_below(r, 300);
    it->align = 1;
    it->fixed = -1;
    if (shape == 1 && mp_rng_below(r, 6) == 0) it->hi = it->lo - (int64_t)mp_rng_below(r, 3);
    if (shape == 1 && mp_rng_below(r, 10) == 0) it->size = 0;
    if (shape == 1 && mp_rng_below(r, 8) == 0) it->fixed = 64 * (int64_t)mp_rng_below(r, 10);
  }
  p->t_begin = 0;
  p->t_end = T;
}

/* The pairwise definition coloring used before the sweep. */
static int64_t pairwise_edges(const mp_problem *p, const int *item_of, int nv, int64_t *out) {
  int64_t m = 0;
  for (int a = 0; a < nv; a++)
    for (int b = a + 1; b < nv; b++)
      if (mp_live_together(&p->items[item_of[a]], &p->items[item_of[b]])) {
        if (out) {
          out[2 * m] = a;
          out[2 * m + 1] = b;
        }
        m++;
      }
  return m;
}

static void check_problem(const mp_problem *p, const char *what) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  int *vid = mp_xmalloc(sizeof(int) * nz), *item_of = mp_xmalloc(sizeof(int) * nz);
  int nv = mp_interfere_vertices(p, vid, item_of);
  for (int i = 0, v = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    bool vertex = it->fixed < 0 && it->size > 0 && it->lo < it->hi;
    ck_assert_msg(vertex ? vid[i] == v && item_of[v] == i : vid[i] == -1, "%s: item %d's vertex", what, i);
    v += vertex;
  }
  int64_t m = pairwise_edges(p, item_of, nv, NULL);
  int64_t *want = mp_xmalloc(sizeof(int64_t) * (size_t)(2 * m + 1));
  pairwise_edges(p, item_of, nv, want);
  ck_assert_msg(mp_interfere_count(p, item_of, nv) == m, "%s: count %lld, pairs %lld", what,
                (long long)mp_interfere_count(p, item_of, nv), (long long)m);
  igraph_integer_t *e;
  int64_t me;
  ck_assert(mp_interfere_edges(p, item_of, nv, NULL, &e, &me));
  ck_assert_msg(me == m, "%s: %lld edges listed, %lld pairs", what, (long long)me, (long long)m);
  for (int64_t k = 0; k < 2 * m; k++)
    ck_assert_msg(e[k] == want[k], "%s: edge %lld is (%lld, %lld), the pairs say (%lld, %lld)", what,
                  (long long)(k / 2), (long long)e[k & ~(int64_t)1], (long long)e[k | 1],
                  (long long)want[k & ~(int64_t)1], (long long)want[k | 1]);
  free(e);
  free(want);
  free(vid);
  free(item_of);
}

START_TEST(sweep_equals_pairwise) {
  mp_rng r;
  mp_rng_seed(&r, 1501);
  int trials = tl_trials(400);
  for (int t = 0; t < trials; t++) {
    mp_problem p;
    rand_items(&r, t % 7 == 0 ? t % 3 : 1 + (int)mp_rng_below(&r, 90), t % 4, &p);
    char what[64];
    snprintf(what, sizeof what, "trial %d (n %d, shape %d)", t, p.n, t % 4);
    check_problem(&p, what);
    mp_problem_destroy(&p);
  }
  mp_problem p; /* large and dense: many deadline checks pass without a deadline */
  rand_items(&r, 1500, 2, &p);
  check_problem(&p, "1500 long lifetimes");
  mp_problem_destroy(&p);
}
END_TEST

/* n items all live over [0, 2): n (n - 1) / 2 edges. */
static void clique(int n, mp_problem *p) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)n, sizeof(mp_item));
  for (int i = 0; i < n; i++) p->items[i] = (mp_item){.size = 1 + i % 7, .lo = i % 2, .hi = 2, .align = 1, .fixed = -1};
  p->t_begin = 0;
  p->t_end = 2;
}

START_TEST(sweep_cut_by_deadline) {
  mp_problem p;
  clique(800, &p);
  int *vid = mp_xmalloc(sizeof(int) * 800), *item_of = mp_xmalloc(sizeof(int) * 800);
  int nv = mp_interfere_vertices(&p, vid, item_of);
  mp_ctx c;
  memset(&c, 0, sizeof c);
  c.deadline = mp_now() - 1;
  igraph_integer_t *e;
  int64_t m;
  ck_assert(!mp_interfere_edges(&p, item_of, nv, &c, &e, &m));
  ck_assert(e == NULL);
  c.deadline = 0; /* no limit: the whole list, whatever the clock */
  ck_assert(mp_interfere_edges(&p, item_of, nv, &c, &e, &m));
  ck_assert_int_eq(m, 800 * 799 / 2);
  free(e);
  free(vid);
  free(item_of);
  mp_problem_destroy(&p);
}
END_TEST

/* coloring called directly with `deadline` (0: none) and max_edges. */
static int run_coloring(const mp_problem *p, double deadline, double max_edges, mp_ctx *c, int64_t *off) {
  const mp_solver *s = mp_solver_find("coloring");
  ck_assert(s != NULL);
  memset(c, 0, sizeof *c);
  mp_error err;
  ck_assert_int_eq(mp_solver_options(s, 0, NULL, c->opt, &err), MP_OK);
  for (int k = 0; k < s->n_options; k++)
    if (!strcmp(s->options[k].name, "max_edges") && max_edges >= 0) c->opt[k] = max_edges;
  c->prob = p;
  c->offsets = off;
  c->deadline = deadline;
  c->time_limit = deadline ? 1e-9 : 0;
  c->status = MP_FEASIBLE;
  return s->solve(c);
}

START_TEST(coloring_cap_and_deadline) {
  mp_problem p;
  clique(800, &p);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * 800);
  mp_ctx c;
  /* over the cap: refused, with the count, the cap and what to do */
  ck_assert_int_eq(run_coloring(&p, 0, 1000, &c, off), -1);
  ck_assert_int_eq(c.status, MP_REFUSED);
  ck_assert_msg(strstr(c.msg, "319600 edges") && strstr(c.msg, "max_edges=1000") &&
                    strstr(c.msg, "coloring.max_edges"),
                "%s", c.msg);
  /* the deadline past before the graph is listed: no plan */
  ck_assert_int_eq(run_coloring(&p, mp_now() - 1, -1, &c, off), -1);
  ck_assert_int_eq(c.status, MP_TIMEOUT);
  ck_assert_msg(strstr(c.msg, "no plan before the time limit"), "%s", c.msg);
  /* no limit: a plan, one slot per buffer */
  ck_assert_int_eq(run_coloring(&p, 0, -1, &c, off), 0);
  ck_assert_int_eq(c.status, MP_FEASIBLE);
  mp_error e;
  ck_assert_msg(mp_verify_offsets(&p, off, &e) == 0, "%s", e.msg);
  mp_problem_destroy(&p);
  /* too few edges for the sweep to look at the clock: igraph's colouring
   * is kept, the size-aware one is cut, status timeout */
  clique(40, &p);
  ck_assert_int_eq(run_coloring(&p, mp_now() - 1, -1, &c, off), 0);
  ck_assert_int_eq(c.status, MP_TIMEOUT);
  ck_assert_msg(strstr(c.msg, "igraph greedy colouring") && strstr(c.msg, "cut by the time limit"), "%s",
                c.msg);
  ck_assert_msg(mp_verify_offsets(&p, off, &e) == 0, "%s", e.msg);
  mp_problem_destroy(&p);
  free(off);
}
END_TEST

Suite *suite_interfere(void) {
  Suite *s = suite_create("interfere");
  TCase *tc = tcase_create("interfere");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, sweep_equals_pairwise);
  tcase_add_test(tc, sweep_cut_by_deadline);
  tcase_add_test(tc, coloring_cap_and_deadline);
  suite_add_tcase(s, tc);
  return s;
}
