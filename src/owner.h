/* owner.h - who a process is, so that what it leaves in shared places (a
 * claim in a results file, a scratch folder) can be proven abandoned once
 * it is gone: host, pid, the pid's start time and the boot id. */
#ifndef MP_OWNER_H
#define MP_OWNER_H

#include <stdbool.h>

typedef struct mp_owner {
  char host[256], start[32], boot[64];
  char id[400];             /* "host:pid:start:boot" */
  long pid;
} mp_owner;

/* This process (computed once per pid). */
const mp_owner *mp_owner_me(void);
/* Is the process (pid, its start time, boot id) of this host gone: a boot
 * since, no such pid, or the pid reused by another process?  Only a process
 * of this host can be proven gone (the caller compares the host). */
bool mp_owner_gone(long pid, const char *start, const char *boot);

#endif
