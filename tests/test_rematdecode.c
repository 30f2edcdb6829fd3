/* test_rematdecode.c - what a gene of the recomputation genome means
 * (solvers/lib/remat_decode.h), by hand on one small graph: where a DROP
 * is recomputed (`back`, clamped to the gap), where an OFFLOAD is copied
 * out, freed (`delay`, before its return) and brought in, the order of the
 * returns at one step (ins, then recomputations) and of the just-in-time
 * ones (E's reads' order); and which kinds each slot allows.  The decoder
 * against the judge on random genomes is in test_remat_search.c; here the
 * plans are valid either way, only the genes' meaning is at stake. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "lib/remat_decode.h"
#include "testlib.h"

/* x (input, read to the end) -> A, A2 (2 each); B reads A and A2; C, D a
 * chain after B; E reads D, A2, A and x.  Steps: x 0, A 1, A2 2, B 3, C 4,
 * D 5, E 6.  The gaps of A and A2 that end at E run from B's step (3) to
 * E's (6): length 3. */
static const char *const graph_json =
    "{\"name\":\"genes\",\"nodes\":["
    "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
    "{\"id\":1,\"size\":2,\"inputs\":[0]},"
    "{\"id\":2,\"size\":2,\"inputs\":[0]},"
    "{\"id\":3,\"size\":1,\"inputs\":[1,2]},"
    "{\"id\":4,\"size\":1,\"inputs\":[3]},"
    "{\"id\":5,\"size\":1,\"inputs\":[4]},"
    "{\"id\":6,\"size\":1,\"inputs\":[5,1,2,0]}]}";

enum { NODE_A = 1, NODE_A2 = 2, NODE_E = 6 };

/* The slot of buffer b's gap that ends at reader w. */
static int slot_of(const mp_rdec *d, int b, int w) {
  const mp_buffer *bb = &d->g->bufs[b];
  for (int k = 0; k < bb->n_readers; k++)
    if (bb->readers[k] == w) return d->slot0[b] + k;
  ck_abort_msg("buffer %d has no reader %d", b, w);
  return -1;
}

/* Where the nth (0-based) event (kind, id) of the plan is: the number of
 * first runs before it or at it (an event between the runs of steps t and
 * t + 1 is at t); its index into *at (may be NULL).  -1: no such event. */
static int step_of(const mp_graph *g, const mp_events *p, mp_event_kind kind, int id, int nth, int *at) {
  bool *ran = calloc((size_t)g->n + 1, sizeof(bool));
  int firsts = 0, found = -1;
  for (int i = 0; i < p->n && found < 0; i++) {
    if (p->ev[i].kind == MP_EV_RUN && !ran[p->ev[i].id]) ran[p->ev[i].id] = true, firsts++;
    if (p->ev[i].kind == kind && p->ev[i].id == id && nth-- == 0) {
      found = firsts;
      if (at) *at = i;
    }
  }
  free(ran);
  return found;
}

typedef struct genes_case {
  mp_graph *g;
  mp_rdec d;
  mp_rgene *genes;
  int a, a2; /* the buffers of A and A2 */
} genes_case;

static void case_init(genes_case *c, double bw) {
  c->g = tl_graph(graph_json);
  mp_rdec_init(&c->d, c->g, bw);
  mp_rdec_set_order(&c->d, c->g->given);
  c->genes = malloc(sizeof(mp_rgene) * (size_t)(c->d.n_slots + 1));
  mp_rgenes_keep_all(&c->d, c->genes);
  c->a = c->g->root_of[NODE_A][0];
  c->a2 = c->g->root_of[NODE_A2][0];
  ck_assert_int_eq(mp_rdec_gap_len(&c->d, slot_of(&c->d, c->a, NODE_E)), 3);
}

/* Decode, check the plan with the verifier. */
static void case_decode(genes_case *c, double bw) {
  mp_rfig f;
  ck_assert_int_eq(mp_rdec_decode(&c->d, c->genes, INT64_MAX, &f), 0);
  mp_error err;
  ck_assert_msg(mp_events_verify(c->g, &c->d.plan, bw, NULL, &err) == 0, "%s", err.msg);
}

static void case_destroy(genes_case *c) {
  free(c->genes);
  mp_rdec_destroy(&c->d);
  mp_graph_destroy(c->g);
  tl_cleanup();
}

/* The touch stamps near INT_MAX (remat-sa with fill decodes for as long as
 * its time limit): the same plan, no signed overflow (UBSan). */
START_TEST(stamps_wrap_without_overflow) {
  genes_case c;
  case_init(&c, 0);
  mp_rfig f, g;
  ck_assert_int_eq(mp_rdec_decode(&c.d, c.genes, INT64_MAX, &f), 0);
  c.d.cur_stamp = INT_MAX - 3;
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(mp_rdec_decode(&c.d, c.genes, INT64_MAX, &g), 0);
    ck_assert(g.duration == f.duration && g.peak == f.peak);
  }
  ck_assert(c.d.cur_stamp > 0 && c.d.cur_stamp < 100);
  case_destroy(&c);
}
END_TEST

/* DROP on A's gap to E: freed right after B (step 3), run again `back`
 * steps before E (0: by E itself), a back beyond the gap meaning its
 * earliest return, right after the start (step 4): the buffer is dropped
 * whatever back says. */
START_TEST(drop_returns_back_steps_before_the_end) {
  for (int back = 0; back <= 4; back++) {
    genes_case c;
    case_init(&c, 0);
    c.genes[slot_of(&c.d, c.a, NODE_E)] = (mp_rgene){MP_RK_DROP, back, 0};
    case_decode(&c, 0);
    int r = 6 - (back < 2 ? back : 2); /* the step it returns at */
    int freed = step_of(c.g, &c.d.plan, MP_EV_FREE, c.a, 0, NULL);
    int again = step_of(c.g, &c.d.plan, MP_EV_RUN, NODE_A, 1, NULL);
    ck_assert_msg(freed == 3 && again == r - 1, "back %d: A freed at %d, run again at %d (want 3, %d)", back,
                  freed, again, r - 1);
    case_destroy(&c);
  }
}
END_TEST

/* OFFLOAD on A's gap to E: copied out at its start (after B, step 3),
 * freed `delay` steps later but before its return, brought in `back`
 * steps before E (0: by E itself). */
START_TEST(offload_frees_after_delay_before_return) {
  static const struct { int delay, back, freed, in; } want[] = {
      {0, 0, 3, 5}, {1, 0, 4, 5}, {2, 0, 5, 5}, {9, 0, 5, 5}, {0, 1, 3, 4}, {1, 1, 4, 4}, {5, 1, 4, 4},
      {1, 2, 3, 3}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    genes_case c;
    case_init(&c, 1);
    c.genes[slot_of(&c.d, c.a, NODE_E)] = (mp_rgene){MP_RK_OFFLOAD, want[i].back, want[i].delay};
    case_decode(&c, 1);
    int out = step_of(c.g, &c.d.plan, MP_EV_OUT, c.a, 0, NULL), fr = -1, in = -1;
    int freed = step_of(c.g, &c.d.plan, MP_EV_FREE, c.a, 0, &fr);
    int back_in = step_of(c.g, &c.d.plan, MP_EV_IN, c.a, 0, &in);
    ck_assert_msg(out == 3 && freed == want[i].freed && back_in == want[i].in && fr < in,
                  "delay %d, back %d: out at %d, freed at %d, in at %d (want 3, %d, %d)", want[i].delay,
                  want[i].back, out, freed, back_in, want[i].freed, want[i].in);
    case_destroy(&c);
  }
}
END_TEST

/* Two returns at one step (5): A2's copy in goes before A's
 * recomputation (its copy then overlaps the run), whatever the slots'
 * order. */
START_TEST(ins_before_recomputations) {
  genes_case c;
  case_init(&c, 1);
  c.genes[slot_of(&c.d, c.a, NODE_E)] = (mp_rgene){MP_RK_DROP, 1, 0};
  c.genes[slot_of(&c.d, c.a2, NODE_E)] = (mp_rgene){MP_RK_OFFLOAD, 1, 0};
  case_decode(&c, 1);
  int in = -1, again = -1;
  ck_assert_int_eq(step_of(c.g, &c.d.plan, MP_EV_IN, c.a2, 0, &in), 4);
  ck_assert_int_eq(step_of(c.g, &c.d.plan, MP_EV_RUN, NODE_A, 1, &again), 4);
  ck_assert_msg(in < again, "A2 comes in at event %d, after A's rerun at %d", in, again);
  case_destroy(&c);
}
END_TEST

/* Just in time (back 0), the buffers come back with E's reads, in their
 * order (g->reads: by buffer): A run again, then A2 copied in, unlike
 * returns at an earlier step (ins first). */
START_TEST(just_in_time_in_read_order) {
  genes_case c;
  case_init(&c, 1);
  ck_assert_int_lt(c.a, c.a2);
  c.genes[slot_of(&c.d, c.a, NODE_E)] = (mp_rgene){MP_RK_DROP, 0, 0};
  c.genes[slot_of(&c.d, c.a2, NODE_E)] = (mp_rgene){MP_RK_OFFLOAD, 0, 0};
  case_decode(&c, 1);
  int again = -1, in = -1;
  ck_assert_int_eq(step_of(c.g, &c.d.plan, MP_EV_RUN, NODE_A, 1, &again), 5);
  ck_assert_int_eq(step_of(c.g, &c.d.plan, MP_EV_IN, c.a2, 0, &in), 5);
  ck_assert_msg(again < in, "A runs again at event %d, after A2 comes in at %d", again, in);
  case_destroy(&c);
}
END_TEST

/* The in-place floor by hand: x (1) -> A (4); R writes A in place; B (10)
 * reads R's view of A; C (1) reads x; D reads B and C.  A is resident
 * from its step (1) to B's (3), where B's run needs A (counted once) and
 * B: 14.  The other steps need less: A's 1 + 4, R's 4, C's 1 + 1 (A gone
 * after B), D's 10 + 1 + 1. */
START_TEST(inplace_floor_by_hand) {
  mp_graph *g = tl_graph("{\"name\":\"inplace_floor\",\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
                         "{\"id\":1,\"size\":4,\"inputs\":[0]},"
                         "{\"id\":2,\"op\":\"relu_\",\"inputs\":[1],\"alias\":1,\"inplace\":true},"
                         "{\"id\":3,\"size\":10,\"inputs\":[2]},"
                         "{\"id\":4,\"size\":1,\"inputs\":[0]},"
                         "{\"id\":5,\"size\":1,\"inputs\":[3,4]}]}");
  mp_rdec d;
  mp_rdec_init(&d, g, 0);
  mp_rdec_set_order(&d, g->given);
  int at;
  int64_t floor = mp_rdec_inplace_floor(&d, &at);
  ck_assert_msg(floor == 14 && at == 3, "in-place floor %lld at step %d (want 14 at 3)", (long long)floor, at);
  mp_rdec_destroy(&d);
  mp_graph_destroy(g);
  /* An input between A's step and its last reader's runs nowhere and may
   * be offloaded: it adds no step.  X (10) there, read by C only: the
   * floor is C's need, 10 + 1, not A's 4 + X's 10. */
  g = tl_graph("{\"name\":\"inplace_floor_input\",\"nodes\":["
               "{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
               "{\"id\":1,\"size\":4,\"inputs\":[0]},"
               "{\"id\":2,\"op\":\"relu_\",\"inputs\":[1],\"alias\":1,\"inplace\":true},"
               "{\"id\":3,\"op\":\"input\",\"size\":10,\"inputs\":[]},"
               "{\"id\":4,\"size\":1,\"inputs\":[2]},"
               "{\"id\":5,\"size\":1,\"inputs\":[3]},"
               "{\"id\":6,\"size\":1,\"inputs\":[4,5]}]}");
  mp_rdec_init(&d, g, 1);
  mp_rdec_set_order(&d, g->given);
  floor = mp_rdec_inplace_floor(&d, &at);
  ck_assert_msg(floor == 11 && at == 5, "in-place floor %lld at step %d (want 11 at 5)", (long long)floor, at);
  mp_rdec_destroy(&d);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* The kinds each slot allows: a reader's slot any kind (OFFLOAD with a
 * link only), the tail slot KEEP or DROP only, an input's buffer KEEP (or
 * OFFLOAD) only. */
START_TEST(slot_kinds) {
  for (int link = 0; link < 2; link++) {
    genes_case c;
    case_init(&c, link);
    int s = slot_of(&c.d, c.a, NODE_E), tail = c.d.slot0[c.a + 1] - 1;
    ck_assert_int_eq(c.d.slot_reader[tail], MP_RSLOT_TAIL);
    for (int k = 0; k < MP_RK_N; k++) {
      ck_assert_int_eq(mp_rdec_allows(&c.d, s, k), k != MP_RK_OFFLOAD || link);
      ck_assert_int_eq(mp_rdec_allows(&c.d, tail, k), k == MP_RK_KEEP || k == MP_RK_DROP);
      int xs = slot_of(&c.d, c.g->root_of[0][0], NODE_E);
      ck_assert_int_eq(mp_rdec_allows(&c.d, xs, k), k == MP_RK_KEEP || (k == MP_RK_OFFLOAD && link));
    }
    case_destroy(&c);
  }
}
END_TEST

Suite *suite_rematdecode(void) {
  Suite *s = suite_create("rematdecode");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, stamps_wrap_without_overflow);
  tcase_add_test(tc, drop_returns_back_steps_before_the_end);
  tcase_add_test(tc, offload_frees_after_delay_before_return);
  tcase_add_test(tc, ins_before_recomputations);
  tcase_add_test(tc, just_in_time_in_read_order);
  tcase_add_test(tc, slot_kinds);
  tcase_add_test(tc, inplace_floor_by_hand);
  suite_add_tcase(s, tc);
  return s;
}
