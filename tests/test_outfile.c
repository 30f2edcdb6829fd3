/* test_outfile.c - atomic output (src/outfile.c): a commit puts the whole
 * file in place, an abort or a process killed while writing leaves the
 * folder as it was. */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"
#include "testlib.h"

/* Entries of folder d other than . and .. */
static int entries(const char *d) {
  DIR *dir = opendir(d);
  ck_assert_ptr_nonnull(dir);
  int n = 0;
  for (struct dirent *e; (e = readdir(dir));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(dir);
  return n;
}

static char *folder(void) {
  const char *t = getenv("TMPDIR");
  char d[4096];
  snprintf(d, sizeof d, "%s/memplan-outfile-XXXXXX", t && *t ? t : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(d));
  return mp_xstrdup(d);
}

static void drop_folder(char *d, const char *file) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", d, file);
  unlink(path);
  ck_assert_int_eq(rmdir(d), 0);
  free(d);
}

/* Write 4 MB into `path` (old content: "old\n") and die by SIGKILL before
 * the commit: the old file stays whole and nothing else appears. */
START_TEST(killed_writer_leaves_nothing) {
  char *d = folder(), path[256];
  snprintf(path, sizeof path, "%s/plan.json", d);
  FILE *f = fopen(path, "w");
  fputs("old\n", f);
  fclose(f);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    mp_outfile o;
    mp_error err;
    if (mp_out_open(&o, path, &err)) _exit(2);
    for (int i = 0; i < 4 << 10; i++) fprintf(o.fp, "%01023d\n", i);
    fflush(o.fp);
    raise(SIGKILL);
    _exit(3);
  }
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  ck_assert_int_eq(entries(d), 1); /* no plan.json.tmp.PID beside it */
  struct stat sb;
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert_int_eq(sb.st_size, 4);
  drop_folder(d, "plan.json");
}
END_TEST

START_TEST(commit_and_abort) {
  char *d = folder(), path[256];
  snprintf(path, sizeof path, "%s/out.txt", d);
  mp_outfile o;
  mp_error err;
  ck_assert_int_eq(mp_out_open(&o, path, &err), 0);
  fputs("half", o.fp);
  mp_out_abort(&o);
  ck_assert_int_eq(entries(d), 0);
  ck_assert_int_eq(mp_out_open(&o, path, &err), 0);
  /* a library that writes by name reaches the same temporary file */
  const char *tmp = mp_out_tmp_path(&o);
  ck_assert_ptr_nonnull(tmp);
  FILE *byname = fopen(tmp, "w");
  ck_assert_ptr_nonnull(byname);
  fputs("whole\n", byname);
  fclose(byname);
  ck_assert_int_eq(mp_out_commit(&o, &err), 0);
  ck_assert_int_eq(entries(d), 1);
  char buf[16] = {0};
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
  fclose(f);
  ck_assert_str_eq(buf, "whole\n");
  drop_folder(d, "out.txt");
}
END_TEST

Suite *suite_outfile(void) {
  Suite *s = suite_create("outfile");
  TCase *tc = tcase_create("outfile");
  tcase_add_test(tc, killed_writer_leaves_nothing);
  tcase_add_test(tc, commit_and_abort);
  suite_add_tcase(s, tc);
  return s;
}
