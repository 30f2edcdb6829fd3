/* test_iheap.c - the solvers' priority queue (solvers/lib/iheap.h): pushes,
 * pops and builds interleaved at random give the ids in the order a sort
 * under the same comparator gives (keys with many ties, broken by id), and
 * a capacity that grows from 1024 by doubling. */
#include <stdlib.h>

#include "lib/iheap.h"
#include "testlib.h"

#define N 5000

static bool by_key(const void *ctx, int a, int b) {
  const int *key = ctx;
  if (key[a] != key[b]) return key[a] < key[b];
  return a < b;
}

static const int *sort_key;
static int cmp_ids(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return by_key(sort_key, a, b) ? -1 : by_key(sort_key, b, a) ? 1 : 0;
}

/* The least id of in[] (the ids pushed and not popped), removed. */
static int least(int *in, int *n, const int *key) {
  int k = 0;
  for (int i = 1; i < *n; i++)
    if (by_key(key, in[i], in[k])) k = i;
  int x = in[k];
  in[k] = in[--*n];
  return x;
}

START_TEST(pops_in_the_sorted_order) {
  static int key[N], in[N], ids[N];
  srand(7);
  for (int i = 0; i < N; i++) key[i] = rand() % 50; /* many ties */
  mp_iheap h;
  mp_iheap_init(&h, by_key, key);
  int n_in = 0, next = 0, most = 0;
  while (next < N || n_in > 0) {
    if (next < N && (n_in == 0 || rand() % 3)) {
      mp_iheap_push(&h, next);
      in[n_in++] = next++;
      if (n_in > most) most = n_in;
    } else {
      int want = least(in, &n_in, key);
      ck_assert_int_eq(mp_iheap_pop(&h), want);
    }
    ck_assert_int_eq(h.n, n_in);
  }
  int cap = 1024;
  while (cap < most) cap *= 2;
  ck_assert_int_eq(h.cap, cap);
  /* build: a whole sort's order */
  for (int i = 0; i < N; i++) ids[i] = N - 1 - i;
  mp_iheap_build(&h, ids, N);
  sort_key = key;
  qsort(ids, N, sizeof(int), cmp_ids);
  for (int i = 0; i < N; i++) ck_assert_int_eq(mp_iheap_pop(&h), ids[i]);
  key[0] = 5, key[1] = 5, key[2] = 4;
  mp_iheap_build(&h, NULL, 3);
  ck_assert_int_eq(mp_iheap_pop(&h), 2);
  ck_assert_int_eq(mp_iheap_pop(&h), 0);
  ck_assert_int_eq(mp_iheap_pop(&h), 1);
  ck_assert_int_eq(h.n, 0);
  mp_iheap_destroy(&h);
}
END_TEST

Suite *suite_iheap(void) {
  Suite *s = suite_create("iheap");
  TCase *tc = tcase_create("iheap");
  tcase_add_test(tc, pops_in_the_sorted_order);
  suite_add_tcase(s, tc);
  return s;
}
