/* test_interfere.c - the interference graph of lib/interfere.h against its
 * definition, and coloring's size cap and time limit:
 * - on random problems (empty and inverted lifetimes, size 0, pins, many
 *   equal ends, long lifetimes) the vertices are the unpinned items with
 *   bytes and a non-empty lifetime, the count is the number of pairs
 *   mp_live_together, and the sweep lists exactly those pairs in the
 *   pairwise order ((a, b), a < b, lexicographic): a dropped, added or
 *   moved edge fails;
 * - a deadline already past cuts the sweep (given enough edges to check);
 * - coloring's size-aware colouring (made without the graph, kept alone
 *   when the deadline has passed) gives the plan of its pairwise definition
 *   (random problems with pins, alignments, equal sizes);
 * - coloring refuses a graph over coloring.max_edges (status refused, the
 *   count and the cap in the message) and, with a deadline already past,
 *   keeps the size-aware plan with status timeout. */
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

/* Is item i a vertex of the interference graph (unpinned, bytes, a real
 * lifetime)? */
static bool is_vertex(const mp_item *it) { return it->fixed < 0 && it->size > 0 && it->lo < it->hi; }

static void check_problem(const mp_problem *p, const char *what) {
  size_t nz = (size_t)(p->n ? p->n : 1);
  int *vid = mp_xmalloc(sizeof(int) * nz), *item_of = mp_xmalloc(sizeof(int) * nz);
  int nv = mp_interfere_vertices(p, vid, item_of);
  for (int i = 0, v = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    bool vertex = is_vertex(it);
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

START_TEST(sweep_cut_by_deadline) {
  mp_problem p;
  tl_clique(800, &p);
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

/* coloring called directly with `deadline` (0: none) and max_edges (< 0:
 * the default). */
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

static int cmp_by_size(const void *a, const void *b, void *arg) {
  const mp_item *x = &((const mp_problem *)arg)->items[*(const int *)a];
  const mp_item *y = &((const mp_problem *)arg)->items[*(const int *)b];
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->hi - x->lo != y->hi - y->lo) return x->hi - x->lo > y->hi - y->lo ? -1 : 1;
  return *(const int *)a - *(const int *)b;
}

static int64_t lcm(int64_t a, int64_t b) {
  int64_t x = a, y = b;
  while (y) {
    int64_t t = x % y;
    x = y;
    y = t;
  }
  return a / x * b;
}

/* Stack the colours col[] (-1: none) as coloring defined it: one slot per
 * colour as large as its largest member, slots by size descending (ties:
 * index) above the pins, each aligned to its members' lcm; the arena. */
static int64_t stack_slots(const mp_problem *p, const int *col, int ncol, int64_t *off) {
  int n = p->n;
  int64_t *ssz = mp_xcalloc((size_t)ncol + 1, sizeof(int64_t)), *sal = mp_xcalloc((size_t)ncol + 1, sizeof(int64_t));
  int64_t *start = mp_xcalloc((size_t)ncol + 1, sizeof(int64_t)), at = 0, arena = 0;
  for (int s = 0; s < ncol; s++) sal[s] = 1;
  for (int i = 0; i < n; i++) {
    const mp_item *it = &p->items[i];
    off[i] = it->fixed >= 0 ? it->fixed : 0;
    if (it->fixed >= 0 && it->size > 0 && it->fixed + it->size > at) at = it->fixed + it->size;
    if (col[i] < 0) continue;
    if (it->size > ssz[col[i]]) ssz[col[i]] = it->size;
    sal[col[i]] = lcm(sal[col[i]], it->align);
  }
  for (int64_t size = INT64_MAX; ncol > 0;) { /* slots by size descending, ties by index */
    int64_t next = -1;
    for (int s = 0; s < ncol; s++)
      if (ssz[s] < size && ssz[s] > next) next = ssz[s];
    if (next < 0) break;
    for (int s = 0; s < ncol; s++)
      if (ssz[s] == next) {
        at = mp_align_up(at, sal[s]);
        start[s] = at;
        at += ssz[s];
      }
    size = next;
  }
  for (int i = 0; i < n; i++) {
    if (col[i] >= 0) off[i] = start[col[i]];
    if (col[i] >= 0 && off[i] + p->items[i].size > arena) arena = off[i] + p->items[i].size;
  }
  mp_pack_degenerate(p, off);
  free(start);
  free(ssz);
  free(sal);
  return arena;
}

/* The size-aware colouring as coloring defined it over the pairwise graph:
 * buffers by size descending, each into the smallest slot (ties: lowest
 * index) without a member live with it; the number of colours. */
static int size_aware_colours(const mp_problem *p, int *col) {
  int n = p->n, nv = 0, ncol = 0;
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(n + 1));
  int64_t *ssz = mp_xcalloc((size_t)n + 1, sizeof(int64_t));
  for (int i = 0; i < n; i++) {
    col[i] = -1;
    if (is_vertex(&p->items[i])) seq[nv++] = i;
  }
  qsort_r(seq, (size_t)nv, sizeof(int), cmp_by_size, (void *)p);
  for (int k = 0; k < nv; k++) {
    int i = seq[k], pick = -1;
    for (int s = 0; s < ncol; s++) {
      bool taken = false;
      for (int j = 0; j < n && !taken; j++)
        taken = col[j] == s && mp_live_together(&p->items[i], &p->items[j]);
      if (!taken && (pick < 0 || ssz[s] < ssz[pick])) pick = s;
    }
    if (pick < 0) {
      pick = ncol++;
      ssz[pick] = p->items[i].size;
    }
    col[i] = pick;
  }
  free(seq);
  free(ssz);
  return ncol;
}

/* The size-aware plan: its colouring stacked. */
static void size_aware_plan(const mp_problem *p, int64_t *off) {
  int *col = mp_xmalloc(sizeof(int) * (size_t)(p->n + 1));
  stack_slots(p, col, size_aware_colours(p, col), off);
  free(col);
}

/* igraph's greedy colouring (most coloured neighbours first) of the
 * pairwise graph, vertices the items in order: the number of colours. */
static int igraph_greedy_colours(const mp_problem *p, int *col) {
  int n = p->n, nv = 0, ncol = 0;
  int *vid = mp_xmalloc(sizeof(int) * (size_t)(n + 1)), *item_of = mp_xmalloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    vid[i] = is_vertex(&p->items[i]) ? nv : -1;
    if (vid[i] >= 0) item_of[nv++] = i;
  }
  int64_t m = pairwise_edges(p, item_of, nv, NULL);
  int64_t *pairs = mp_xmalloc(sizeof(int64_t) * (size_t)(2 * m + 1));
  pairwise_edges(p, item_of, nv, pairs);
  igraph_vector_int_t edges, colors;
  igraph_t g;
  ck_assert(igraph_vector_int_init(&edges, 2 * m) == IGRAPH_SUCCESS);
  for (int64_t k = 0; k < 2 * m; k++) VECTOR(edges)[k] = pairs[k];
  ck_assert(igraph_create(&g, &edges, nv, IGRAPH_UNDIRECTED) == IGRAPH_SUCCESS);
  ck_assert(igraph_vector_int_init(&colors, nv) == IGRAPH_SUCCESS);
  ck_assert(igraph_vertex_coloring_greedy(&g, &colors, IGRAPH_COLORING_GREEDY_COLORED_NEIGHBORS) == IGRAPH_SUCCESS);
  for (int i = 0; i < n; i++) {
    col[i] = vid[i] >= 0 ? (int)VECTOR(colors)[vid[i]] : -1;
    if (col[i] + 1 > ncol) ncol = col[i] + 1;
  }
  igraph_vector_int_destroy(&colors);
  igraph_vector_int_destroy(&edges);
  igraph_destroy(&g);
  free(pairs);
  free(vid);
  free(item_of);
  return ncol;
}

/* A deadline already past: coloring keeps its size-aware colouring (made
 * first, without the graph) with status timeout; its plan is the pairwise
 * definition's, offset for offset. */
START_TEST(size_aware_equals_pairwise) {
  mp_rng r;
  mp_rng_seed(&r, 1502);
  int trials = tl_trials(300);
  for (int t = 0; t < trials; t++) {
    mp_problem p;
    rand_items(&r, 1 + (int)mp_rng_below(&r, 70), t % 4, &p);
    static const int64_t al[4] = {1, 1, 8, 64};
    for (int i = 0; i < p.n; i++) {
      p.items[i].align = al[mp_rng_below(&r, 4)];
      if (t % 3 == 0) p.items[i].size = 1 + (int64_t)mp_rng_below(&r, 4); /* many equal sizes */
      if (p.items[i].fixed >= 0) p.items[i].fixed *= p.items[i].align;
    }
    int64_t *got = mp_xmalloc(sizeof(int64_t) * (size_t)p.n), *want = mp_xmalloc(sizeof(int64_t) * (size_t)p.n);
    mp_ctx c;
    ck_assert_int_eq(run_coloring(&p, mp_now() - 1, -1, &c, got), 0);
    size_aware_plan(&p, want);
    for (int i = 0; i < p.n; i++)
      ck_assert_msg(got[i] == want[i], "trial %d: item %d at %lld, the definition says %lld", t, i,
                    (long long)got[i], (long long)want[i]);
    bool any = false;
    for (int i = 0; i < p.n; i++) any |= is_vertex(&p.items[i]);
    ck_assert_int_eq(c.status, any ? MP_TIMEOUT : MP_FEASIBLE);
    free(got);
    free(want);
    mp_problem_destroy(&p);
  }
}
END_TEST

/* Without a deadline coloring makes both colourings and keeps the one
 * whose stack is lower (igraph's on a tie), offset for offset; its message
 * names it.  Random problems as above; the size-aware colouring wins on
 * some and igraph's on others (both required). */
START_TEST(coloring_keeps_the_lower_stack) {
  mp_rng r;
  mp_rng_seed(&r, 1503);
  int trials = tl_trials(300), wins[2] = {0, 0};
  for (int t = 0; t < trials; t++) {
    mp_problem p;
    rand_items(&r, 1 + (int)mp_rng_below(&r, 50), t % 4, &p);
    static const int64_t al[4] = {1, 1, 8, 64};
    for (int i = 0; i < p.n; i++) {
      p.items[i].align = al[mp_rng_below(&r, 4)];
      if (t % 3 == 0) p.items[i].size = 1 + (int64_t)mp_rng_below(&r, 4);
      if (p.items[i].fixed >= 0) p.items[i].fixed *= p.items[i].align;
    }
    size_t nz = (size_t)p.n + 1;
    int64_t *got = mp_xmalloc(sizeof(int64_t) * nz), *sa = mp_xmalloc(sizeof(int64_t) * nz);
    int64_t *ig = mp_xmalloc(sizeof(int64_t) * nz);
    int *col = mp_xmalloc(sizeof(int) * nz);
    int64_t a_sa = stack_slots(&p, col, size_aware_colours(&p, col), sa);
    int64_t a_ig = stack_slots(&p, col, igraph_greedy_colours(&p, col), ig);
    bool igraph_kept = a_ig <= a_sa, any = false;
    for (int i = 0; i < p.n; i++) any |= is_vertex(&p.items[i]);
    mp_ctx c;
    ck_assert_int_eq(run_coloring(&p, 0, -1, &c, got), 0);
    ck_assert_int_eq(c.status, MP_FEASIBLE);
    if (any) {
      ck_assert_msg(strstr(c.msg, igraph_kept ? "kept the igraph greedy" : "kept the size-aware") &&
                        !strstr(c.msg, "cut"),
                    "trial %d: %s (stacks: size-aware %lld, igraph %lld)", t, c.msg, (long long)a_sa,
                    (long long)a_ig);
      wins[igraph_kept && a_ig < a_sa] += a_ig != a_sa;
    }
    for (int i = 0; i < p.n; i++)
      ck_assert_msg(got[i] == (igraph_kept ? ig : sa)[i], "trial %d: item %d at %lld, the %s plan says %lld",
                    t, i, (long long)got[i], igraph_kept ? "igraph" : "size-aware",
                    (long long)(igraph_kept ? ig : sa)[i]);
    free(got);
    free(sa);
    free(ig);
    free(col);
    mp_problem_destroy(&p);
  }
  ck_assert_msg(wins[0] > 0 && wins[1] > 0, "size-aware lower %d times, igraph lower %d", wins[0], wins[1]);
}
END_TEST

START_TEST(coloring_cap_and_deadline) {
  mp_problem p;
  tl_clique(800, &p);
  int64_t *off = mp_xmalloc(sizeof(int64_t) * 800);
  mp_ctx c;
  mp_error e;
  /* over the cap: refused, with the count, the cap and what to do */
  ck_assert_int_eq(run_coloring(&p, 0, 319599, &c, off), -1);
  ck_assert_int_eq(c.status, MP_REFUSED);
  ck_assert_msg(strstr(c.msg, "319600 edges") && strstr(c.msg, "max_edges=319599") &&
                    strstr(c.msg, "coloring.max_edges"),
                "%s", c.msg);
  /* at the cap, no limit: both colourings, whatever the clock */
  ck_assert_int_eq(run_coloring(&p, 0, 319600, &c, off), 0);
  ck_assert_int_eq(c.status, MP_FEASIBLE);
  ck_assert_msg(!strstr(c.msg, "cut"), "%s", c.msg);
  ck_assert_msg(mp_verify_offsets(&p, off, &e) == 0, "%s", e.msg);
  /* the deadline past: the size-aware plan, igraph's colouring cut */
  ck_assert_int_eq(run_coloring(&p, mp_now() - 1, -1, &c, off), 0);
  ck_assert_int_eq(c.status, MP_TIMEOUT);
  ck_assert_msg(strstr(c.msg, "kept the size-aware") && strstr(c.msg, "cut by the time limit"), "%s", c.msg);
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
  tcase_add_test(tc, size_aware_equals_pairwise);
  tcase_add_test(tc, coloring_keeps_the_lower_stack);
  tcase_add_test(tc, coloring_cap_and_deadline);
  suite_add_tcase(s, tc);
  return s;
}
