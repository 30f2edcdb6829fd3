/* bench_scratch.c - the runner's scratch folder.
 *
 * Each child's stdout and stderr go to files there (N.out, N.err for slot
 * N), read when it ends; so does the plan of a program that is not this
 * memplan (N.plan), verified when it ends and removed.  A folder that cannot take them (a full TMPDIR)
 * would turn every cell into a solver failure "no output": the folder is
 * probed before the run, and again whenever a child left no output, and
 * such a cell is an error of the run, not a row.  The folder holds an
 * `owner` file (host, pid, start time, boot id): a run killed by SIGKILL
 * leaves its folder, and a later run on the same host removes it once that
 * owner is proven gone. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_scratch.h"
#include "util.h"
#include "owner.h"

#define PREFIX "memplan-bench-"
/* more than a cell's output (a solve's JSON is about 2 KB) */
#define PROBE_BYTES 65536

/* A file the runner makes in its folder: N.out, N.err, owner, probe; and
 * N.plan, another program's plan, with the name a writer killed before
 * its rename leaves (N.plan.tmp.PID: outfile.c). */
static bool ours(const char *name) {
  if (!strcmp(name, "owner") || !strcmp(name, "probe")) return true;
  size_t d = strspn(name, "0123456789");
  const char *rest = name + d;
  if (d == 0) return false;
  if (!strcmp(rest, ".out") || !strcmp(rest, ".err") || !strcmp(rest, ".plan")) return true;
  return !strncmp(rest, ".plan.tmp.", 10) && rest[10] && strspn(rest + 10, "0123456789") == strlen(rest + 10);
}

void mp_scratch_remove(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char p[4200];
  for (struct dirent *e; (e = readdir(d));)
    if (ours(e->d_name)) {
      snprintf(p, sizeof p, "%.3800s/%s", dir, e->d_name);
      unlink(p);
    }
  closedir(d);
  rmdir(dir); /* fails, leaving it, if it holds a file the runner did not make */
}

/* Write n bytes, going on after a short write, whose errno is that of an
 * earlier call (a full disk gave "Inappropriate ioctl for device"): the
 * next write says what is wrong.  0, or the errno. */
static int write_all(int fd, const char *buf, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : ENOSPC;
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

int mp_scratch_probe(const char *dir, char *msg, size_t cap) {
  char p[4200], buf[8192];
  snprintf(p, sizeof p, "%.4000s/probe", dir);
  memset(buf, 0, sizeof buf);
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600), err = fd < 0 ? errno : 0;
  for (int done = 0; !err && done < PROBE_BYTES; done += (int)sizeof buf)
    err = write_all(fd, buf, sizeof buf);
  if (fd >= 0 && close(fd) && !err) err = errno;
  unlink(p);
  if (!err) return 0;
  mp_msgf(msg, cap, "cannot write scratch files in %s: %s (bench needs TMPDIR writable, with room "
           "for each child's output)", dir, strerror(err));
  return -1;
}

static int write_owner(const char *dir, char *msg, size_t cap) {
  const mp_owner *o = mp_owner_me();
  char p[4200];
  snprintf(p, sizeof p, "%.4000s/owner", dir);
  FILE *f = fopen(p, "w");
  int bad = !f || fprintf(f, "%s\n%ld\n%s\n%s\n", o->host, o->pid, o->start, o->boot) < 0;
  if (f && fclose(f)) bad = 1;
  if (bad) mp_msgf(msg, cap, "cannot write scratch files in %s: %s", dir, strerror(errno));
  return bad ? -1 : 0;
}

/* Is the folder a run's of this host that is gone (its owner file says)? */
static bool abandoned(const char *dir) {
  char p[4200], host[256] = "", start[32] = "", boot[64] = "";
  long pid = 0;
  snprintf(p, sizeof p, "%.4000s/owner", dir);
  FILE *f = fopen(p, "r");
  if (!f) return false; /* not provably ours */
  int n = fscanf(f, "%255s %ld %31s %63s", host, &pid, start, boot);
  fclose(f);
  return n == 4 && !strcmp(host, mp_owner_me()->host) && mp_owner_gone(pid, start, boot);
}

static void sweep(const char *parent) {
  DIR *d = opendir(parent);
  if (!d) return;
  char p[4200];
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, PREFIX, strlen(PREFIX))) continue;
    snprintf(p, sizeof p, "%.3800s/%s", parent, e->d_name);
    if (abandoned(p)) mp_scratch_remove(p);
  }
  closedir(d);
}

int mp_scratch_open(char *dir, size_t cap, char *msg, size_t mcap) {
  const char *t = getenv("TMPDIR");
  const char *parent = t && t[0] ? t : "/tmp";
  sweep(parent);
  snprintf(dir, cap, "%.900s/" PREFIX "XXXXXX", parent); /* mkdtemp replaces the six X */
  if (!mkdtemp(dir)) {
    snprintf(msg, mcap, "cannot make a scratch folder in %s: %s", parent, strerror(errno));
    return -1;
  }
  if (write_owner(dir, msg, mcap) || mp_scratch_probe(dir, msg, mcap)) {
    mp_scratch_remove(dir);
    return -1;
  }
  return 0;
}
