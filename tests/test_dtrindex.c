/* test_dtrindex.c - dtr's staleness index (solvers/dtr/stale.h): the walk
 * prunes only buffers that cannot win, so the best of what it visits is the
 * argmin of (h, id) a scan of every resident buffer finds.  Random
 * residencies, accesses at a growing clock, and h = (c0 + extra) / (size x
 * stale) with extra >= 0 (dtr's neighbourhood cost) growing between
 * queries and, now and then, falling after a reset; every visit raises the
 * buffer's cost to what it computed.  Sizes and costs over many binades,
 * costs of 0, ties. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "dtr/stale.h"
#include "testlib.h"
#include "util.h"

#define NB 400

typedef struct world {
  dtr_stale ix;
  int64_t size[NB];
  double cost[NB], last[NB], extra[NB], clock;
  bool resident[NB], indexed[NB];
  int best;
  double best_h;
  long visits;
} world;

static double h_of(const world *w, int b) {
  double stale = w->clock - w->last[b];
  return stale > 0 ? (w->cost[b] + w->extra[b]) / ((double)w->size[b] * stale) : DBL_MAX;
}

static double visit(int b, void *ctx) {
  world *w = ctx;
  double h = h_of(w, b);
  w->visits++;
  ck_assert_msg(w->resident[b] && w->indexed[b], "visited buffer %d is not a candidate", b);
  if (w->best < 0 || h < w->best_h || (h == w->best_h && b < w->best)) w->best = b, w->best_h = h;
  return w->cost[b] + w->extra[b];
}

/* The neighbourhood costs between two queries: they grow, or (a buffer of
 * a class made again) some fall and the index is reset. */
static void move_extras(world *w, mp_rng *r) {
  bool fall = mp_rng_below(r, 5) == 0;
  for (int i = 0; i < NB; i++) {
    if (mp_rng_below(r, 2)) continue;
    double d = ldexp(mp_rng_unit(r), (int)mp_rng_below(r, 20) - 5);
    w->extra[i] = fall && mp_rng_below(r, 2) ? fmax(0, w->extra[i] - d) : w->extra[i] + d;
  }
  if (fall) dtr_stale_reset(&w->ix);
}

static void draw_world(world *w, mp_rng *r) {
  for (int b = 0; b < NB; b++) {
    w->size[b] = (int64_t)ldexp(1.0 + mp_rng_unit(r), (int)mp_rng_below(r, 40));
    double c = ldexp(1.0 + mp_rng_unit(r), (int)mp_rng_below(r, 30) - 15);
    uint64_t kind = mp_rng_below(r, 10);
    w->cost[b] = kind == 0 ? 0 : kind == 1 ? 1.0 : c; /* zero costs, and many equal ones */
    if (kind == 1) w->size[b] = 4096;
    w->indexed[b] = mp_rng_below(r, 8) != 0;
    w->resident[b] = false;
  }
}

START_TEST(walk_finds_the_scan_argmin) {
  mp_rng r;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    mp_rng_seed(&r, seed);
    world *w = calloc(1, sizeof *w);
    draw_world(w, &r);
    dtr_stale_init(&w->ix, NB, w->indexed, w->size, w->cost);
    long scanned = 0;
    for (int step = 0; step < 3000; step++) {
      int b = (int)mp_rng_below(&r, NB);
      if (mp_rng_below(&r, 3) == 0 && w->resident[b]) {
        w->resident[b] = false;
        dtr_stale_remove(&w->ix, b);
      } else {
        w->resident[b] = true;
        w->last[b] = w->clock;
        dtr_stale_touch(&w->ix, b, w->last[b]);
      }
      w->clock += mp_rng_below(&r, 4) == 0 ? 0 : 1e-6 + mp_rng_unit(&r); /* some accesses share a time */
      if (step % 7) continue;
      int want = -1;
      double want_h = DBL_MAX;
      move_extras(w, &r);
      for (int i = 0; i < NB; i++) {
        if (!w->resident[i] || !w->indexed[i]) continue;
        double h = h_of(w, i);
        if (want < 0 || h < want_h || (h == want_h && i < want)) want = i, want_h = h;
        scanned++;
      }
      w->best = -1, w->best_h = DBL_MAX;
      dtr_stale_walk(&w->ix, w->clock, visit, &w->best_h, w);
      if (want >= 0 && want_h < DBL_MAX)
        ck_assert_msg(w->best == want, "seed %llu step %d: walk chose %d (h %g), the scan %d (h %g)",
                      (unsigned long long)seed, step, w->best, w->best_h, want, want_h);
    }
    ck_assert_msg(w->visits < scanned, "the walk visited %ld of %ld candidates", w->visits, scanned);
    dtr_stale_destroy(&w->ix);
    free(w);
  }
}
END_TEST

Suite *suite_dtrindex(void) {
  Suite *s = suite_create("dtrindex");
  TCase *tc = tcase_create("dtrindex");
  tcase_add_test(tc, walk_finds_the_scan_argmin);
  suite_add_tcase(s, tc);
  return s;
}
