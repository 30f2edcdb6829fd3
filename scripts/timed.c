/* timed.c - timed OUT CMD...: run CMD and write "WALL MAXRSS_KB USER SYS"
 * to OUT (scripts/bench_scale.sh's timer).
 *
 * WALL is monotonic seconds from start to exit; MAXRSS_KB, USER and SYS
 * come from wait4's rusage (CMD's waited-for children included) at
 * microsecond resolution.  GNU time's %U and %S truncate to hundredths: a
 * 0.07 s row read 0.04 s, enough to push a 10x growth ratio over 13x.  C,
 * not Python: a child keeps its parent's peak RSS across exec, so a
 * Python timer put a floor of about 14 MB under every row.
 *
 * CMD's standard streams are ours; SIGTERM and SIGINT (timeout(1)) are
 * passed on to it.  Exit status: CMD's, or 128 + the signal that killed it
 * (OUT then says "killed by signal N"); 127 when CMD cannot start. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child;

static void forward(int sig) {
  if (child > 0) kill(child, sig);
}

static double since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: timed OUT CMD...\n");
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = forward;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if (pid < 0) {
    perror("timed: fork");
    return 127;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    fprintf(stderr, "timed: %s: %s\n", argv[2], strerror(errno));
    _exit(127);
  }
  child = pid;
  int status;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0)
    if (errno != EINTR) {
      perror("timed: wait4");
      return 127;
    }
  double wall = since(&t0);
  FILE *f = fopen(argv[1], "w");
  if (!f) {
    fprintf(stderr, "timed: %s: %s\n", argv[1], strerror(errno));
    return 127;
  }
  int rc;
  if (WIFSIGNALED(status)) {
    fprintf(f, "killed by signal %d\n", WTERMSIG(status));
    rc = 128 + WTERMSIG(status);
  } else {
    fprintf(f, "%.3f %ld %.6f %.6f\n", wall, ru.ru_maxrss, seconds(ru.ru_utime), seconds(ru.ru_stime));
    rc = WEXITSTATUS(status);
  }
  return fclose(f) == 0 ? rc : 127;
}
