/* test_bump.c - the model's allocators.  The bump allocator (src/bump.h):
 * pieces come zeroed, aligned and apart from each other, big ones
 * included; interning gives one copy per distinct string; freeing leaves
 * an empty allocator.  mp_xmalloc and mp_xcalloc (src/util.h): with
 * mp_alloc_prefault on, a big block comes with every page resident, and
 * with mp_alloc_huge_pages on too, advised for huge pages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bump.h"
#include "testlib.h"
#include "util.h"

#define PIECES 3000

/* Sizes from 1 byte to past the largest chunk, small ones most often. */
static size_t size_of(int i) {
  return i % 97 == 0 ? (size_t)(i + 1) << 8 : (size_t)(i % 41) + 1;
}

/* Do the n bytes at p all equal c? */
static bool all_equal(const unsigned char *p, size_t n, unsigned char c) {
  for (size_t k = 0; k < n; k++)
    if (p[k] != c) return false;
  return true;
}

START_TEST(pieces_are_zeroed_aligned_and_apart) {
  static unsigned char *p[PIECES];
  mp_bump b = {0};
  for (int i = 0; i < PIECES; i++) {
    size_t n = size_of(i);
    p[i] = mp_bump_array(&b, n, 1);
    ck_assert((uintptr_t)p[i] % 8 == 0);
    ck_assert(all_equal(p[i], n, 0));
    memset(p[i], i & 0xff, n); /* a piece overlapping another would change it */
  }
  for (int i = 0; i < PIECES; i++)
    ck_assert(all_equal(p[i], size_of(i), i & 0xff));
  mp_bump_free(&b);
  ck_assert(b.head == NULL && b.used == 0 && b.set == NULL);
}
END_TEST

START_TEST(arrays_have_at_least_one_item) {
  mp_bump b = {0};
  int64_t *a = mp_bump_array(&b, 0, sizeof *a), *c = mp_bump_array(&b, 3, sizeof *c);
  ck_assert(a[0] == 0 && a + 1 <= c);
  ck_assert(mp_bump_strdup(&b, NULL) == NULL && mp_bump_intern(&b, NULL) == NULL);
  ck_assert_str_eq(mp_bump_strdup(&b, "conv"), "conv");
  mp_bump_free(&b);
}
END_TEST

START_TEST(interning_keeps_one_copy_per_string) {
  mp_bump b = {0};
  char name[32];
  static char *first[500];
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 500; i++) {
      snprintf(name, sizeof name, "op%d", i);
      char *s = mp_bump_intern(&b, name);
      ck_assert_str_eq(s, name);
      if (round == 0) first[i] = s;
      ck_assert(s == first[i]);
      ck_assert(s != name);
    }
  ck_assert(b.set_n == 500);
  mp_bump_free(&b);
}
END_TEST

/* Are all the whole pages of [p, p + n) resident? */
static bool all_resident(const void *p, size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uintptr_t lo = ((uintptr_t)p + page - 1) / page * page, hi = ((uintptr_t)p + n) / page * page;
  size_t pages = (hi - lo) / page;
  unsigned char *vec = mp_xmalloc(pages);
  ck_assert_int_eq(mincore((void *)lo, hi - lo, vec), 0);
  bool all = true;
  for (size_t k = 0; k < pages; k++) all = all && (vec[k] & 1);
  free(vec);
  return all;
}

/* 64 MiB: past glibc's largest mmap threshold (and ASan's), so each block
 * is a fresh mapping that nothing has touched: resident only if the
 * allocation backed it. */
START_TEST(prefault_backs_big_blocks) {
  size_t n = (size_t)64 << 20;
  mp_alloc_prefault((size_t)1 << 20);
  unsigned char *m = mp_xmalloc(n), *c = mp_xcalloc(n / 8, 8);
  mp_alloc_prefault(0);
  ck_assert(all_resident(m, n));
  ck_assert(all_resident(c, n));
  ck_assert(all_equal(c, n, 0)); /* calloc's zeros kept */
  free(m);
  free(c);
}
END_TEST

/* Does /proc/self/smaps mark the mapping that holds a for transparent huge
 * pages (VmFlags "hg", what madvise(MADV_HUGEPAGE) sets)? */
static bool advised_huge(const void *a) {
  FILE *f = fopen("/proc/self/smaps", "r");
  ck_assert(f != NULL);
  char line[1024];
  bool in = false, hg = false;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
      in = (uintptr_t)a >= lo && (uintptr_t)a < hi;
    } else if (in && !strncmp(line, "VmFlags:", 8)) {
      hg = strstr(line, " hg") != NULL;
      break;
    }
  }
  fclose(f);
  return hg;
}

/* With huge pages asked for, a big block's whole 2 MiB pages are advised
 * for them (where the kernel has them: /sys/kernel/mm/transparent_hugepage)
 * and still resident and zeroed; without, its mapping is not advised. */
START_TEST(huge_pages_back_big_blocks) {
  size_t n = (size_t)64 << 20;
  bool thp = access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0;
  mp_alloc_prefault((size_t)1 << 20);
  unsigned char *plain = mp_xmalloc(n);
  mp_alloc_huge_pages(true);
  unsigned char *m = mp_xmalloc(n), *c = mp_xcalloc(n / 8, 8);
  mp_alloc_huge_pages(false);
  mp_alloc_prefault(0);
  ck_assert(!advised_huge(plain + (4 << 20)));
  ck_assert(advised_huge(m + (4 << 20)) == thp);
  ck_assert(advised_huge(c + (4 << 20)) == thp);
  ck_assert(all_resident(m, n) && all_resident(c, n));
  ck_assert(all_equal(c, n, 0));
  free(plain);
  free(m);
  free(c);
}
END_TEST

Suite *suite_bump(void) {
  Suite *s = suite_create("bump");
  TCase *tc = tcase_create("bump");
  tcase_add_test(tc, pieces_are_zeroed_aligned_and_apart);
  tcase_add_test(tc, arrays_have_at_least_one_item);
  tcase_add_test(tc, interning_keeps_one_copy_per_string);
  suite_add_tcase(s, tc);
  TCase *pf = tcase_create("prefault");
  tcase_add_test(pf, prefault_backs_big_blocks);
  tcase_add_test(pf, huge_pages_back_big_blocks);
  suite_add_tcase(s, pf);
  return s;
}
