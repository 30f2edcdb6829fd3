/* mp_batch.c - memplan's CLI commands, many per process, for the audit
 * (tests/py/audit.py --batch): starting bin/memplan costs ~20 ms of shared
 * library loading, a fork of this process ~1 ms.  Each command runs the
 * very function main.c dispatches to, in a child of its own, with stdout and
 * stderr sent to files, so exit codes, outputs and plan files are those of
 * `memplan COMMAND ARGS`.
 *
 * Protocol, one command per line on stdin, fields separated by tabs:
 *   OUT_PATH <tab> ERR_PATH <tab> COMMAND <tab> ARG ...
 * and one line per command on stdout: its exit code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static const mp_command commands[] = {
    {"solve", "", mp_cmd_solve},
    {"verify", "", mp_cmd_verify},
    {"info", "", mp_cmd_info},
};

/* Splits line at tabs in place; returns the number of fields. */
static int split_tabs(char *line, char **field, int max) {
  int n = 0;
  char *s = line;
  while (n < max) {
    field[n++] = s;
    char *t = strchr(s, '\t');
    if (!t) break;
    *t = '\0';
    s = t + 1;
  }
  return n;
}

static int run_child(char **field, int n) {
  if (!freopen(field[0], "w", stdout) || !freopen(field[1], "w", stderr)) _exit(125);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(field[2], commands[i].name)) {
      int rc = commands[i].run(n - 2, field + 2);
      fflush(stdout);
      fflush(stderr);
      _exit(rc);
    }
  fprintf(stderr, "mp_batch: unknown command '%s'\n", field[2]);
  fflush(stderr);
  _exit(MP_EXIT_USAGE);
}

int main(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  char *field[256];
  while ((len = getline(&line, &cap, stdin)) > 0) {
    if (line[len - 1] == '\n') line[len - 1] = '\0';
    int n = split_tabs(line, field, 255);
    int rc = 124;
    if (n >= 3) {
      field[n] = NULL;
      fflush(stdout);
      pid_t pid = fork();
      if (pid == 0) run_child(field, n);
      int st = 0;
      if (pid > 0 && waitpid(pid, &st, 0) == pid)
        rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    printf("%d\n", rc);
    fflush(stdout);
  }
  free(line);
  return 0;
}
