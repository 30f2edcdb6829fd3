/* outfile.c - see outfile.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
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
 * A directory is refused.  The temporary file is made without a name in
 * the destination's folder (O_TMPFILE) and only linked as `path.tmp.PID`
 * (mp_temp_name) just before the rename: a SIGKILL while writing leaves nothing.  A file
 * system without O_TMPFILE gets the named file from the start. */
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

/* A special file (a pipe, a device) is written where it is, never
 * replaced. */
static int open_special(mp_outfile *o, const char *path, mp_error *err) {
  o->fp = fopen(path, "w");
  if (!o->fp) return mp_errorf(err, "%s: cannot write: %s", path, strerror(errno));
  o->path = mp_xstrdup(path);
  return 0;
}

/* A nameless file in the folder of o->path, or NULL (then o->anon is false). */
static FILE *open_anon(mp_outfile *o) {
  const char *slash = strrchr(o->path, '/');
  size_t len = slash ? (size_t)(slash - o->path) : 0;
  char *dir = mp_xmalloc(len + 2);
  if (!slash) strcpy(dir, ".");
  else if (len == 0) strcpy(dir, "/");
  else memcpy(dir, o->path, len), dir[len] = 0;
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  free(dir);
  if (fd < 0) return NULL;
  FILE *fp = fdopen(fd, "w");
  if (!fp) {
    close(fd);
    return NULL;
  }
  o->anon = true;
  snprintf(o->proc, sizeof o->proc, "/proc/self/fd/%d", fd);
  return fp;
}

/* Give the nameless file its temporary name (a stale file of that name, left
 * by an earlier process of the same PID, is replaced, as fopen would). */
static int link_anon(mp_outfile *o) {
  for (int attempt = 0; attempt < 2; attempt++) {
    if (linkat(AT_FDCWD, o->proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno != EEXIST) /* no /proc: the same link by descriptor (needs privilege) */
      if (linkat(fileno(o->fp), "", AT_FDCWD, o->tmp, AT_EMPTY_PATH) == 0) return 0;
    if (errno != EEXIST || unlink(o->tmp)) return -1;
  }
  return -1;
}

const char *mp_out_tmp_path(const mp_outfile *o) { return o->anon ? o->proc : o->tmp; }

/* Every temporary name of path begins `path.tmp.` or `path.tmp.TAG.`, the
 * process id follows.  A file name within a few bytes of NAME_MAX (less
 * `reserve`, the room a SQLite file needs for "-journal") has no room for
 * that (a 250-byte name could not be written at all), so it is cut to make
 * room for the longest such name, and *cut is set: the name is then
 * numbered too, so that two cut names of one process (plot's several
 * --out) stay apart.  malloc'ed. */
char *mp_temp_prefix(const char *path, const char *tag, size_t reserve, bool *cut) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  char mid[80];
  snprintf(mid, sizeof mid, ".tmp.%.40s%s", tag ? tag : "", tag ? "." : "");
  size_t longest = strlen(mid) + 20 + 11 + reserve; /* a pid, ".N" */
  size_t keep = strlen(base);
  *cut = keep + longest > NAME_MAX;
  if (*cut) keep = NAME_MAX > longest ? NAME_MAX - longest : 1;
  size_t dir = (size_t)(base - path);
  char *t = mp_xmalloc(dir + keep + strlen(mid) + 1);
  memcpy(t, path, dir + keep);
  strcpy(t + dir + keep, mid);
  return t;
}

char *mp_temp_name(const char *path, const char *tag, size_t reserve) {
  static unsigned cut_names;
  bool cut;
  char *prefix = mp_temp_prefix(path, tag, reserve, &cut);
  size_t n = strlen(prefix) + 40;
  char *t = mp_xmalloc(n);
  if (cut)
    snprintf(t, n, "%s%ld.%u", prefix, (long)getpid(), cut_names++);
  else
    snprintf(t, n, "%s%ld", prefix, (long)getpid());
  free(prefix);
  return t;
}

int mp_out_open(mp_outfile *o, const char *path, mp_error *err) {
  memset(o, 0, sizeof *o);
  if (!path || !strcmp(path, "-")) {
    o->fp = stdout;
    return 0;
  }
  struct stat st;
  /* a pipe, a device or a socket, through any links (/dev/stdout into a
   * pipe ends at "pipe:[N]", which names nothing link_target could follow) */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return open_special(o, path, err);
  char *target = link_target(path);
  const char *dst = target ? target : path;
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
    return open_special(o, path, err);
  }
  size_t n = strlen(dst) + 32;
  o->path = mp_xmalloc(n);
  snprintf(o->path, n, "%s", dst);
  free(target);
  o->tmp = mp_temp_name(o->path, NULL, 0);
  o->fp = open_anon(o);
  if (!o->fp) o->fp = fopen(o->tmp, "w");
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
    if (!rc) return 0;
    clearerr(stdout); /* said here, with its reason: main's last check of stdout would say it again */
    return mp_errorf(err, "standard output: write error: %s", strerror(e ? e : EIO));
  }
  if (!rc && o->tmp && fsync(fileno(o->fp))) rc = -1, e = errno;
  bool named = !o->anon; /* does o->tmp exist now? */
  if (!rc && o->anon) {
    if (link_anon(o)) rc = -1, e = errno;
    else named = true;
  }
  if (fclose(o->fp) && !rc) rc = -1, e = errno;
  o->fp = NULL;
  if (!rc && o->tmp && rename(o->tmp, o->path)) rc = -1, e = errno;
  if (rc) {
    mp_errorf(err, "%s: cannot write: %s", o->path, strerror(e ? e : EIO));
    if (o->tmp && named) unlink(o->tmp);
  }
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
  return rc;
}

void mp_out_abort(mp_outfile *o) {
  /* stdout's write error is the caller's to say, with its reason: main's
   * last check of stdout would say it again (flushing what is left) */
  if (o->fp == stdout) __fpurge(stdout), clearerr(stdout);
  if (o->fp && o->fp != stdout) fclose(o->fp); /* an anonymous file goes with it */
  if (o->tmp && !o->anon) unlink(o->tmp);
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
}
