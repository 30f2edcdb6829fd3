/* before_rename.c - an LD_PRELOAD shim for the merge tests (test_bench_batch.c):
 * runs the shell command $SHIM_BEFORE_RENAME once, just before the process
 * renames or links a file onto $SHIM_TARGET, the moment a merge puts a new
 * OUT in place.  So "OUT appeared meanwhile" or "killed just before" happen
 * at a known point, in any build of memplan, without a hook in it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void before(const char *to) {
  const char *cmd = getenv("SHIM_BEFORE_RENAME"), *target = getenv("SHIM_TARGET");
  if (!cmd || !target || strcmp(to, target)) return;
  char *c = strdup(cmd);
  unsetenv("SHIM_BEFORE_RENAME"); /* once, and not in the command's processes */
  if (c && system(c) == -1) perror("system");
  free(c);
}

int rename(const char *from, const char *to) {
  before(to);
  int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  return real(from, to);
}

int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags) {
  before(to);
  int (*real)(int, const char *, int, const char *, unsigned) =
      (int (*)(int, const char *, int, const char *, unsigned))dlsym(RTLD_NEXT, "renameat2");
  return real(fd1, from, fd2, to, flags);
}

int link(const char *from, const char *to) {
  before(to);
  int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
  return real(from, to);
}
