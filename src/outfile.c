/* outfile.c - see outfile.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* Output files.  A regular file (or a new one) is written to a temporary
 * file beside it and renamed into place, so no partial file is ever left; a
 * symbolic link keeps pointing where it did (its target is replaced).
 * Anything else that exists (a device such as /dev/null or /dev/full, a
 * pipe) is never replaced: it is written directly and its errors reported.
 * A directory is refused. */
/* Where a chain of symbolic links ends (it may not exist yet), malloc'ed;
 * NULL when path is no link. */
static char *link_target(const char *path) {
  struct stat lst;
  char *cur = NULL;
  for (int depth = 0; depth < 40 && lstat(cur ? cur : path, &lst) == 0 && S_ISLNK(lst.st_mode);
       depth++) {
    const char *at = cur ? cur : path;
    char buf[PATH_MAX];
    ssize_t n = readlink(at, buf, sizeof buf - 1);
    if (n <= 0) break;
    buf[n] = 0;
    const char *slash = strrchr(at, '/');
    size_t dir = buf[0] == '/' || !slash ? 0 : (size_t)(slash - at) + 1; /* relative: from the link's folder */
    char *next = mp_xmalloc(dir + (size_t)n + 1);
    memcpy(next, at, dir);
    memcpy(next + dir, buf, (size_t)n + 1);
    free(cur);
    cur = next;
  }
  return cur;
}

int mp_out_open(mp_outfile *o, const char *path, mp_error *err) {
  memset(o, 0, sizeof *o);
  if (!path || !strcmp(path, "-")) {
    o->fp = stdout;
    return 0;
  }
  char *target = link_target(path);
  const char *dst = target ? target : path;
  struct stat st;
  bool exists = stat(dst, &st) == 0;
  if (!exists && errno == ELOOP) { /* renaming onto dst would replace a link of the loop */
    free(target);
    return mp_errorf(err, "%s: cannot write: %s", path, strerror(ELOOP));
  }
  if (exists && S_ISDIR(st.st_mode)) {
    free(target);
    return mp_errorf(err, "%s: is a directory", path);
  }
  if (exists && !S_ISREG(st.st_mode)) {
    free(target);
    o->fp = fopen(path, "w");
    if (!o->fp) return mp_errorf(err, "%s: cannot write: %s", path, strerror(errno));
    o->path = mp_xstrdup(path);
    return 0;
  }
  size_t n = strlen(dst) + 32;
  o->path = mp_xmalloc(n);
  snprintf(o->path, n, "%s", dst);
  free(target);
  o->tmp = mp_xmalloc(n);
  snprintf(o->tmp, n, "%s.tmp.%ld", o->path, (long)getpid());
  o->fp = fopen(o->tmp, "w");
  if (!o->fp) {
    int e = errno;
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return mp_errorf(err, "%s: cannot write: %s", path, strerror(e));
  }
  if (exists) fchmod(fileno(o->fp), st.st_mode & 07777); /* the file it replaces keeps its mode */
  return 0;
}

int mp_out_commit(mp_outfile *o, mp_error *err) {
  int rc = 0, e = 0;
  if (fflush(o->fp) || ferror(o->fp)) rc = -1, e = errno;
  if (o->fp == stdout) {
    memset(o, 0, sizeof *o);
    return rc ? mp_errorf(err, "standard output: write error: %s", strerror(e ? e : EIO)) : 0;
  }
  if (!rc && o->tmp && fsync(fileno(o->fp))) rc = -1, e = errno;
  if (fclose(o->fp) && !rc) rc = -1, e = errno;
  o->fp = NULL;
  if (!rc && o->tmp && rename(o->tmp, o->path)) rc = -1, e = errno;
  if (rc) {
    mp_errorf(err, "%s: cannot write: %s", o->path, strerror(e ? e : EIO));
    if (o->tmp) unlink(o->tmp);
  }
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
  return rc;
}

void mp_out_abort(mp_outfile *o) {
  if (o->fp && o->fp != stdout) fclose(o->fp);
  if (o->tmp) unlink(o->tmp);
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
}
