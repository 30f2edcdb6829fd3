/* test_rematretime.c - the retiming of copies in (lib/remat_retime.h) on
 * generated graphs with random swapped gaps, random stall-free times and
 * random link speeds:
 * - each copy stays inside its gap, and a position's copies go in the
 *   order of their need, so the stream from the host (plan order) takes
 *   them by need: a copy needed earlier is issued after one needed later
 *   only when its gap begins after that one's position;
 * - on that stream every copy ends by its reader's start, unless a copy
 *   at or before it in the stream could not be issued earlier than its
 *   gap's first position (nothing can hide it then);
 * - each copy is as late as that allows: one position later, it or the
 *   copy after it on the stream would end late;
 * - retiming again with the same times changes nothing (and says so). */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_ckpt.h"
#include "lib/remat_retime.h"
#include "testlib.h"

typedef struct issued {
  int r, q, b, lo;
  double len;
} issued;

/* The builder's issue order: by position, then by need, then buffer. */
static int by_issue(const void *pa, const void *pb) {
  const issued *a = pa, *b = pb;
  if (a->r != b->r) return a->r < b->r ? -1 : 1;
  if (a->q != b->q) return a->q < b->q ? -1 : 1;
  return a->b < b->b ? -1 : a->b > b->b;
}

/* The stream from the host over the copies in issue order: when each
 * ends, into end. */
static void stream(const issued *c, int n, const double *t, double *end) {
  double free_at = 0;
  for (int i = 0; i < n; i++) {
    double start = t[c[i].r] > free_at ? t[c[i].r] : free_at;
    end[i] = free_at = start + c[i].len;
  }
}

static bool on_time(const issued *c, int n, const double *t, double *end) {
  stream(c, n, t, end);
  for (int i = 0; i < n; i++)
    if (end[i] > t[c[i].q] + 1e-9) return false;
  return true;
}

static void check(const ri_info *ri, const uint8_t *gap, const int *pre, const double *t, double bw) {
  int n = 0;
  issued *c = malloc(sizeof(issued) * ((size_t)ri->ev_start[ri->nb] + 1));
  for (int b = 0; b < ri->nb; b++)
    for (int e = ri->ev_start[b]; e + 1 < ri->ev_start[b + 1]; e++) {
      if (gap[e] != RX_SWAP) continue;
      int q = ri->ev[e + 1], lo = ri->ev[e] + 1 < q ? ri->ev[e] + 1 : q;
      ck_assert_msg(pre[e] >= lo && pre[e] <= q, "buffer %d: copy in at %d, gap [%d, %d]", b, pre[e], lo, q);
      c[n++] = (issued){pre[e], q, b, lo, (double)ri->size[b] / bw};
    }
  qsort(c, (size_t)n, sizeof *c, by_issue);
  double *end = malloc(sizeof(double) * ((size_t)n + 1));
  stream(c, n, t, end);
  bool clamped = false;
  for (int i = 0; i < n; i++) {
    ck_assert_msg(i == 0 || c[i - 1].q <= c[i].q || c[i].r == c[i].lo,
                  "a copy needed at %d goes after one needed at %d", c[i].q, c[i - 1].q);
    clamped |= c[i].r == c[i].lo && t[c[i].lo] + c[i].len > t[c[i].q] + 1e-9;
    clamped |= c[i].r == c[i].lo && i > 0 && end[i - 1] > t[c[i].r];
    ck_assert_msg(clamped || end[i] <= t[c[i].q] + 1e-9, "buffer %d ends at %g, needed at %g", c[i].b, end[i],
                  t[c[i].q]);
  }
  /* as late as possible: one position later breaks a deadline */
  for (int i = 0; i < n && !clamped; i++) {
    if (c[i].r == c[i].q || (i + 1 < n && c[i + 1].r == c[i].r && c[i + 1].q > c[i].q)) continue;
    issued *moved = malloc(sizeof(issued) * ((size_t)n + 1));
    memcpy(moved, c, sizeof(issued) * (size_t)n);
    moved[i].r++;
    qsort(moved, (size_t)n, sizeof *moved, by_issue);
    ck_assert_msg(!on_time(moved, n, t, end) || t[c[i].r + 1] == t[c[i].r],
                  "buffer %d could come at %d instead of %d", c[i].b, c[i].r + 1, c[i].r);
    free(moved);
  }
  free(end);
  free(c);
}

START_TEST(copies_in_by_need_on_time_and_late) {
  mp_rng r;
  mp_rng_seed(&r, 77);
  for (int trial = 0; trial < tl_trials(60); trial++) {
    mp_graph *g = tl_random_graph(&r, 10 + (int)mp_rng_below(&r, 50), TL_ALL);
    ri_info ri;
    ri_init(&ri, g, g->given);
    int ne = ri.ev_start[ri.nb];
    uint8_t *gap = calloc((size_t)ne + 1, 1);
    int *pre = malloc(sizeof(int) * ((size_t)ne + 1));
    rt_copy *scratch = malloc(sizeof(rt_copy) * ((size_t)ne + 1));
    double *t = malloc(sizeof(double) * ((size_t)ri.m + 1));
    for (int p = 0; p <= ri.m; p++) /* stall-free starts: views take no time */
      t[p] = p == 0 ? 0 : t[p - 1] + (mp_rng_below(&r, 4) ? mp_rng_unit(&r) * 10 : 0);
    for (int b = 0; b < ri.nb; b++)
      for (int e = ri.ev_start[b]; e < ri.ev_start[b + 1]; e++) {
        pre[e] = -1;
        if ((ri.flags[b] & RI_SWAP) && mp_rng_below(&r, 2)) gap[e] = RX_SWAP, pre[e] = (int)mp_rng_below(&r, (uint64_t)ri.m);
      }
    double bw = 1e3 * (0.01 + mp_rng_unit(&r) * 10);
    rt_retime(&ri, gap, pre, t, bw, scratch);
    check(&ri, gap, pre, t, bw);
    int *again = malloc(sizeof(int) * ((size_t)ne + 1));
    memcpy(again, pre, sizeof(int) * (size_t)ne);
    ck_assert_int_eq(rt_retime(&ri, gap, again, t, bw, scratch), ri.m);
    ck_assert(memcmp(again, pre, sizeof(int) * (size_t)ne) == 0);
    free(again);
    free(t);
    free(scratch);
    free(pre);
    free(gap);
    ri_destroy(&ri);
    mp_graph_destroy(g);
  }
  tl_cleanup();
}
END_TEST

Suite *suite_rematretime(void) {
  Suite *s = suite_create("rematretime");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, copies_in_by_need_on_time_and_late);
  suite_add_tcase(s, tc);
  return s;
}
