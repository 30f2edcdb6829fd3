/* owner.c - a process's identity, and the proof that one of this host is
 * gone (owner.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "owner.h"

/* Field 22 of /proc/PID/stat: the process's start time in clock ticks
 * since boot ("" when the process does not exist). */
static void proc_start(long pid, char *out, size_t cap) {
  char path[64], buf[1024];
  out[0] = 0;
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* the command name may hold spaces */
  if (!p) return;
  for (int field = 2; *p && field < 22; p++)
    if (*p == ' ') field++;
  size_t l = strcspn(p, " ");
  snprintf(out, cap, "%.*s", (int)l, p);
}

static void read_line(const char *path, char *out, size_t cap) {
  out[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f) return;
  if (fgets(out, (int)cap, f)) out[strcspn(out, "\r\n")] = 0;
  fclose(f);
}

const mp_owner *mp_owner_me(void) {
  static mp_owner o;
  if (o.pid == (long)getpid()) return &o;
  o.pid = (long)getpid();
  if (gethostname(o.host, sizeof o.host - 1)) snprintf(o.host, sizeof o.host, "unknown");
  proc_start(o.pid, o.start, sizeof o.start);
  read_line("/proc/sys/kernel/random/boot_id", o.boot, sizeof o.boot);
  snprintf(o.id, sizeof o.id, "%s:%ld:%s:%s", o.host, o.pid, o.start, o.boot);
  return &o;
}

bool mp_owner_gone(long pid, const char *start, const char *boot) {
  if (strcmp(boot, mp_owner_me()->boot)) return true; /* before a reboot */
  if (pid <= 0 || (kill((pid_t)pid, 0) && errno == ESRCH)) return true;
  char now[32];
  proc_start(pid, now, sizeof now);
  return strcmp(now, start) != 0; /* else the pid was reused */
}
