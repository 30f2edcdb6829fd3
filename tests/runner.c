/* runner.c - runs every Check suite.  Suites are found like solvers: each
 * tests/test_NAME.c defines `Suite *suite_NAME(void)` and the build lists
 * them (build/test_suites.c).  MP_QUICK=1 shrinks the random trials (used
 * under the sanitizers). */
#include <check.h>
#include <stdlib.h>

typedef Suite *(*suite_fn)(void);
extern const suite_fn mp_test_suites[];

int main(void) {
  SRunner *sr = srunner_create(NULL);
  for (int i = 0; mp_test_suites[i]; i++) srunner_add_suite(sr, mp_test_suites[i]());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
