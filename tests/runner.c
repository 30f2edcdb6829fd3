/* runner.c - runs every Check suite.  Suites are found like solvers: each
 * tests/test_NAME.c defines `Suite *suite_NAME(void)` and the build lists
 * them (build/test_suites.c).  MP_QUICK=1 shrinks the random trials (used
 * under the sanitizers).  Quiet by default: one summary line, and each
 * failure with its place; CK_VERBOSITY=normal (make test V=1) lists the
 * suites as Check does. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Suite *(*suite_fn)(void);
extern const suite_fn mp_test_suites[];

int main(void) {
  SRunner *sr = srunner_create(NULL);
  int n_suites = 0;
  for (int i = 0; mp_test_suites[i]; i++, n_suites++) srunner_add_suite(sr, mp_test_suites[i]());
  const char *v = getenv("CK_VERBOSITY");
  bool quiet = !v || !strcmp(v, "minimal") || !strcmp(v, "silent");
  srunner_run_all(sr, quiet ? CK_SILENT : CK_ENV);
  int failed = srunner_ntests_failed(sr), run = srunner_ntests_run(sr);
  if (quiet) {
    TestResult **tr = srunner_failures(sr);
    for (int i = 0; i < failed; i++)
      printf("%s:%d: %s: %s\n", tr_lfile(tr[i]), tr_lno(tr[i]), tr_tcname(tr[i]), tr_msg(tr[i]));
    free(tr);
    printf("unit tests: %d suites, %d checks, %d failed\n", n_suites, run, failed);
  }
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
