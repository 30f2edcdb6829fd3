/* test_exact.c - the exact placer on MiniMalloc's 11 challenging instances
 * (graphs/minimalloc/challenging) within node budgets, so the outcome does
 * not depend on the clock: each fits in 1048576 (the harness verifies the
 * plan), with status optimal exactly where max-live is 1048576; minimising
 * C proves its max-live bound 1039360; the single total/width/area lane
 * with re-ranking at time-line cuts solves I in a few thousand nodes; the
 * alignment bound makes a packing optimal at once.  Completeness: empty
 * lifetimes are placed by the search itself (issue 11.6), and the failed-
 * subproblem memo compares full keys, so two keys with one hash stay
 * apart (issue 11.7). */
#include <stdlib.h>
#include <string.h>

#include "exact/exact.h"
#include "testlib.h"

#define CHALLENGING "../graphs/minimalloc/challenging/"

static void read_instance(char letter, mp_problem *p) {
  char path[256];
  snprintf(path, sizeof path, CHALLENGING "%c.1048576.csv", letter);
  mp_error err;
  ck_assert_msg(mp_csv_read(path, p, &err) == 0, "%s", err.msg);
}

START_TEST(challenging_fit) {
  const char *sets[] = {"exact.nodes=400000", NULL};
  for (char x = 'A'; x <= 'K'; x++) {
    mp_problem p;
    read_instance(x, &p);
    mp_result a;
    ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 300.0, 1048576, sets, &a), 0);
    ck_assert_msg(a.status == MP_OPTIMAL || a.status == MP_FEASIBLE, "%c: status %s (%s)", x,
                  mp_status_name(a.status), a.msg);
    ck_assert_int_le(a.fig.arena, 1048576);
    /* optimal exactly where the max-live bound is the capacity */
    ck_assert_msg((a.status == MP_OPTIMAL) == (a.fig.live_peak == 1048576),
                  "%c: status %s, max-live %lld", x, mp_status_name(a.status),
                  (long long)a.fig.live_peak);
    mp_result_destroy(&a);
    mp_problem_destroy(&p);
  }
}
END_TEST

START_TEST(minimise_c) {
  mp_problem p;
  read_instance('C', &p);
  const char *sets[] = {"exact.nodes=400000", NULL};
  mp_result a;
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 300.0, 0, sets, &a), 0);
  ck_assert_int_eq(a.status, MP_OPTIMAL);
  ck_assert_int_eq(a.fig.arena, 1039360);
  ck_assert_int_eq(a.fig.live_peak, 1039360);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
}
END_TEST

/* One lane, no restarts: total/width/area, lowest offset first.  The
 * re-ranking where the time line is cut is what makes I easy (without it
 * this lane does not solve I within millions of nodes). */
START_TEST(single_lane_solves_i) {
  mp_problem p;
  read_instance('I', &p);
  const char *sets[] = {"exact.nodes=20000", "exact.restarts=0", "exact.rank=4",
                        "exact.by_offset=1", NULL};
  mp_result a;
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 300.0, 1048576, sets, &a), 0);
  ck_assert_msg(a.status == MP_OPTIMAL, "status %s (%s)", mp_status_name(a.status), a.msg);
  ck_assert_int_eq(a.fig.arena, 1048576);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
}
END_TEST

/* Two 3-byte buffers live together, both 8-aligned: max-live is 6, but the
 * upper one starts at 8 at the lowest, so 11 is optimal and proven at once. */
START_TEST(alignment_bound) {
  mp_problem p;
  memset(&p, 0, sizeof p);
  p.n = 2;
  p.items = mp_xcalloc(2, sizeof(mp_item));
  p.t_begin = 0;
  p.t_end = 2;
  for (int i = 0; i < 2; i++) {
    p.items[i].lo = 0;
    p.items[i].hi = 2;
    p.items[i].size = 3;
    p.items[i].align = 8;
    p.items[i].fixed = -1;
  }
  const char *sets[] = {"exact.nodes=1", NULL};
  mp_result a;
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 10.0, 11, sets, &a), 0);
  ck_assert_int_eq(a.status, MP_OPTIMAL);
  ck_assert_int_eq(a.fig.arena, 11);
  mp_result_destroy(&a);
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 10.0, 10, sets, &a), 0);
  ck_assert_int_eq(a.status, MP_INFEASIBLE);
  mp_result_destroy(&a);
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 10.0, 0, sets, &a), 0);
  ck_assert_int_eq(a.status, MP_OPTIMAL);
  ck_assert_int_eq(a.fig.arena, 11);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
}
END_TEST

/* Issue 11.6: id,lower,upper,size,alignment 0,2,4,5,2 / 1,1,1,3,2 /
 * 2,3,3,2,2 / 3,0,0,1,8.  Item 2's empty lifetime at 3 meets item 0
 * ([2, 4)): 2 at 0 and 0 at 2 fit in 7 (0 at 0 pushes 2 to 6: 8). */
START_TEST(empty_lifetimes_are_searched) {
  char *path = tl_write_temp("id,lower,upper,size,alignment\n0,2,4,5,2\n1,1,1,3,2\n2,3,3,2,2\n3,0,0,1,8\n", ".csv");
  mp_problem p;
  mp_error err;
  ck_assert_msg(mp_csv_read(path, &p, &err) == 0, "%s", err.msg);
  mp_result a;
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 10.0, 7, NULL, &a), 0);
  ck_assert_msg(a.status == MP_OPTIMAL || a.status == MP_FEASIBLE, "capacity 7: %s (%s)",
                mp_status_name(a.status), a.msg);
  ck_assert_int_le(a.fig.arena, 7);
  mp_result_destroy(&a);
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 10.0, 6, NULL, &a), 0);
  ck_assert_int_eq(a.status, MP_INFEASIBLE);
  mp_result_destroy(&a);
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 10.0, 0, NULL, &a), 0);
  ck_assert_int_eq(a.status, MP_OPTIMAL);
  ck_assert_int_eq(a.fig.arena, 7);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
  free(path);
  tl_cleanup();
}
END_TEST

/* Issue 11.7: the memo answers by the whole key.  Two different keys
 * stored and looked up under the same hash (a forced collision) stay
 * apart; so do rank contexts; a full table starts over, never answers
 * wrongly. */
START_TEST(memo_compares_full_keys) {
  ex_memo M;
  ex_memo_init(&M, 8);
  uint64_t a[5] = {1, 2, 3, 4, 5}, b[5] = {1, 2, 3, 4, 6}, h = 12345;
  ck_assert(!ex_memo_has(&M, a, 5, h));
  ex_memo_add(&M, a, 5, h);
  ck_assert(ex_memo_has(&M, a, 5, h));
  ck_assert_msg(!ex_memo_has(&M, b, 5, h), "a key with the same hash as a failed one was taken for it");
  ck_assert(!ex_memo_has(&M, a, 4, h)); /* a prefix is another key */
  ex_memo_add(&M, b, 5, h);
  ck_assert(ex_memo_has(&M, a, 5, h) && ex_memo_has(&M, b, 5, h));
  /* fill it past its size: it starts over, and what it holds is exact */
  for (uint64_t k = 0; k < 1000; k++) {
    uint64_t key[5] = {k, k + 1, k + 2, k + 3, k + 4};
    ex_memo_add(&M, key, 5, ex_memo_hash(key, 5));
    ck_assert(ex_memo_has(&M, key, 5, ex_memo_hash(key, 5)));
    uint64_t other[5] = {k, k + 1, k + 2, k + 3, k + 5};
    ck_assert(!ex_memo_has(&M, other, 5, ex_memo_hash(key, 5)));
  }
  ex_memo_destroy(&M);
  ex_memo C;
  ex_memo_init(&C, 8);
  uint64_t ia = ex_memo_intern(&C, a, 5), ib = ex_memo_intern(&C, b, 5);
  ck_assert(ia != ib);
  ck_assert(ex_memo_intern(&C, a, 5) == ia && ex_memo_intern(&C, b, 5) == ib);
  for (uint64_t k = 0; k < 1000; k++) { /* ids are never handed out twice */
    uint64_t key[2] = {k, ~k};
    ck_assert(ex_memo_intern(&C, key, 2) > ib);
  }
  ex_memo_destroy(&C);
  /* a key is not the prefix of a longer one met on its probe: 200 keys
   * {7, 8, ..., 14, j} fill two fifths of the slots (not the "full" or
   * "start over" paths), then each prefix {7}, {7, 8}, ... gets a new id */
  ex_memo_init(&C, 9);
  uint64_t last = 0;
  for (uint64_t j = 0; j < 200; j++) {
    uint64_t key[9] = {7, 8, 9, 10, 11, 12, 13, 14, 100 + j};
    last = ex_memo_intern(&C, key, 9);
  }
  uint64_t prefix[8] = {7, 8, 9, 10, 11, 12, 13, 14};
  for (size_t len = 1; len <= 8; len++) {
    uint64_t id = ex_memo_intern(&C, prefix, len);
    ck_assert_msg(id > last, "the prefix of %zu words took id %llu of a longer key", len,
                  (unsigned long long)id);
    last = id;
  }
  ex_memo_destroy(&C);
}
END_TEST

/* The twins found by sorting are the definition's: for each item, the
 * nearest earlier item in rank order with the same size, raw lifetime and
 * alignment (the quadratic scan the set-up used to do).  Random problems
 * with many twins (few distinct items), none (distinct sizes) and ties in
 * the rank keys (one size and width, other starts: equal keys, different
 * items), empty lifetimes and pinned buffers among them; every static rank,
 * one part or split parts, and a random order as well. */
static void quadratic_twins(const ex_part *P, const int *rank, int *twin) {
  int *ord = mp_xmalloc(sizeof(int) * (size_t)(P->n ? P->n : 1));
  for (int i = 0; i < P->n; i++) ord[rank[i]] = i;
  for (int r = 0; r < P->n; r++) {
    int i = ord[r];
    twin[i] = -1;
    for (int q = r - 1; q >= 0 && twin[i] < 0; q--) {
      int j = ord[q];
      if (P->size[i] == P->size[j] && P->ilo[i] == P->ilo[j] && P->ihi[i] == P->ihi[j] &&
          P->al[i] == P->al[j])
        twin[i] = j;
    }
  }
  free(ord);
}

static void random_items(mp_problem *p, int n, int family, mp_rng *g) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)n, sizeof(mp_item));
  for (int i = 0; i < n; i++) {
    mp_item *it = &p->items[i];
    int64_t w = (int64_t)mp_rng_below(g, 4);                        /* 0: an empty lifetime */
    it->lo = (int64_t)mp_rng_below(g, family == 0 ? 4 : 40);
    it->size = family == 0 ? 8 << mp_rng_below(g, 2) : family == 1 ? i + 1 : 16;
    if (family == 2) w = 2;
    it->hi = it->lo + w;
    it->align = family == 2 ? 1 : (int64_t)1 << mp_rng_below(g, 2);
    it->fixed = mp_rng_below(g, 10) == 0 ? (int64_t)mp_rng_below(g, 64) : -1;
  }
  p->t_end = 48;
}

static int check_twins(const ex_part *P, const int *rank, int *got, int *want) {
  ex_part_twins(P, rank, got);
  quadratic_twins(P, rank, want);
  int twins = 0;
  for (int i = 0; i < P->n; i++) {
    ck_assert_msg(got[i] == want[i], "item %d: twin %d, the definition says %d", i, got[i], want[i]);
    twins += want[i] >= 0;
  }
  return twins;
}

START_TEST(twins_match_definition) {
  mp_rng g;
  mp_rng_seed(&g, 7);
  int twins[3] = {0};
  for (int round = 0; round < 60; round++) {
    int family = round % 3, n = 1 + (int)mp_rng_below(&g, 300);
    mp_problem p;
    random_items(&p, n, family, &g);
    ex_pins pins;
    ex_pins_init(&pins, &p);
    int *members = mp_xmalloc(sizeof(int) * (size_t)n), *starts = mp_xmalloc(sizeof(int) * ((size_t)n + 1));
    int64_t *vlo = mp_xmalloc(sizeof(int64_t) * (size_t)n), *vhi = mp_xmalloc(sizeof(int64_t) * (size_t)n);
    int m = 0;
    for (int i = 0; i < n; i++)
      if (p.items[i].size > 0) members[m++] = i;
    mp_sweep_times(&p, members, m, vlo, vhi);
    int np = mp_sweep_parts(members, vlo, vhi, m, round % 2, starts);
    int *got = mp_xmalloc(sizeof(int) * (size_t)n), *want = mp_xmalloc(sizeof(int) * (size_t)n);
    int *perm = mp_xmalloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < np; k++) {
      ex_part B;
      ex_part_init(&B, &p, &pins, members + starts[k], vlo + starts[k], vhi + starts[k],
                   starts[k + 1] - starts[k]);
      ex_part_totals(&B);
      for (int r = 0; r < EX_N_RANKS; r++) {
        ex_part P;
        ex_part_ranked(&P, &B, r);
        twins[family] += check_twins(&P, P.rank, got, want);
        ck_assert(memcmp(got, P.twin, sizeof(int) * (size_t)P.n) == 0);
        ex_part_destroy(&P);
      }
      for (int i = 0; i < B.n; i++) perm[i] = i; /* any order, not only ranks */
      for (int i = B.n - 1; i > 0; i--) {
        int j = (int)mp_rng_below(&g, (uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
      }
      check_twins(&B, perm, got, want);
      ex_part_destroy(&B);
    }
    free(got);
    free(want);
    free(perm);
    free(members);
    free(starts);
    free(vlo);
    free(vhi);
    ex_pins_destroy(&pins);
    mp_problem_destroy(&p);
  }
  /* the families are what they say: many twins, none, some */
  ck_assert_int_gt(twins[0], 1000);
  ck_assert_int_eq(twins[1], 0);
  ck_assert_int_gt(twins[2], 0);
}
END_TEST

/* The memory cap refuses before the set-up, naming its estimate and the
 * cap; under a cap the run fits in, A is solved as in challenging_fit. */
START_TEST(memory_cap_refuses) {
  mp_problem p;
  read_instance('A', &p);
  const char *low[] = {"exact.nodes=400000", "exact.max_mb=1", NULL};
  mp_result a;
  ck_assert_int_ne(tl_run_fixed(&p, "exact", 1, 300.0, 1048576, low, &a), 0);
  ck_assert_msg(a.status == MP_REFUSED, "status %s (%s)", mp_status_name(a.status), a.msg);
  ck_assert_msg(strstr(a.msg, "MiB") && strstr(a.msg, "above max_mb=1:"), "%s", a.msg);
  mp_result_destroy(&a);
  const char *high[] = {"exact.nodes=400000", "exact.max_mb=64", NULL};
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 300.0, 1048576, high, &a), 0);
  ck_assert_msg(a.status == MP_FEASIBLE || a.status == MP_OPTIMAL, "status %s (%s)",
                mp_status_name(a.status), a.msg);
  ck_assert_int_le(a.fig.arena, 1048576);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
}
END_TEST

/* The estimate of a refusal counts the largest part's searches: a part of
 * 20,000 items, then two items later in time (a second part) give the
 * estimate of the large part alone, not the small one's. */
static double refused_mib(int extra) {
  mp_rng r;
  mp_rng_seed(&r, 71);
  mp_problem p;
  memset(&p, 0, sizeof p);
  p.n = 20000 + extra;
  p.items = mp_xcalloc((size_t)p.n, sizeof(mp_item));
  p.t_end = 30;
  for (int i = 0; i < p.n; i++) {
    int64_t lo = i < 20000 ? (int64_t)mp_rng_below(&r, 10) : 20 + i % 2;
    p.items[i] = (mp_item){1 + (int64_t)mp_rng_below(&r, 100), lo, lo + 1 + (int64_t)mp_rng_below(&r, 5), 1, -1};
  }
  const char *sets[] = {"exact.max_mb=1", "exact.memo_log2=8", NULL};
  mp_result a;
  ck_assert_int_ne(tl_run_fixed(&p, "exact", 1, 60.0, 0, sets, &a), 0);
  double mib = 0;
  const char *at = strstr(a.msg, "about ");
  ck_assert_msg(a.status == MP_REFUSED && at && sscanf(at, "about %lf MiB", &mib) == 1, "%s: %s",
                mp_status_name(a.status), a.msg);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
  return mib;
}

START_TEST(estimate_counts_the_largest_part) {
  double alone = refused_mib(0), with_small = refused_mib(2);
  ck_assert_msg(alone >= 2 && with_small >= alone, "estimate %g MiB, %g MiB with a small part after it",
                alone, with_small);
}
END_TEST

/* A deadline already past when the set-up begins: the run stops there
 * with status timeout and the incumbent's plan (which the harness
 * verifies), minimising or deciding a capacity. */
START_TEST(deadline_in_setup) {
  mp_problem p;
  read_instance('B', &p);
  mp_result a;
  ck_assert_int_eq(tl_run_fixed(&p, "exact", 1, 1e-9, 0, NULL, &a), 0);
  ck_assert_msg(a.status == MP_TIMEOUT, "status %s (%s)", mp_status_name(a.status), a.msg);
  ck_assert_int_gt(a.fig.arena, 1048576); /* the incumbent, not a search's plan */
  mp_result_destroy(&a);
  int rc = tl_run_fixed(&p, "exact", 1, 1e-9, 1048576, NULL, &a);
  ck_assert_msg(a.status == MP_TIMEOUT, "rc %d status %s (%s)", rc, mp_status_name(a.status), a.msg);
  mp_result_destroy(&a);
  mp_problem_destroy(&p);
}
END_TEST

Suite *suite_exact(void) {
  Suite *s = suite_create("exact");
  TCase *tc = tcase_create("exact");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, challenging_fit);
  tcase_add_test(tc, minimise_c);
  tcase_add_test(tc, single_lane_solves_i);
  tcase_add_test(tc, alignment_bound);
  tcase_add_test(tc, empty_lifetimes_are_searched);
  tcase_add_test(tc, memo_compares_full_keys);
  tcase_add_test(tc, twins_match_definition);
  tcase_add_test(tc, memory_cap_refuses);
  tcase_add_test(tc, deadline_in_setup);
  tcase_add_test(tc, estimate_counts_the_largest_part);
  suite_add_tcase(s, tc);
  return s;
}
