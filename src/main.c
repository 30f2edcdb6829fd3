/* main.c - memplan's entry point: pick the subcommand and dispatch; then
 * make sure what went to standard output was written (a full disk or a
 * closed pipe is an error, not a silent success). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "memplan.h"

static const mp_command commands[] = {
    {"solve", "plan a graph or a fixed-lifetime problem with chosen solvers", mp_cmd_solve},
    {"verify", "re-check a plan file against its graph", mp_cmd_verify},
    {"info", "describe a graph: nodes, buffers, edges, given-order peak, bound", mp_cmd_info},
    {"solvers", "list the registered solvers and their options", mp_cmd_solvers},
    {"gen", "write a synthetic graph (randwire, nas, layered, tree, sp, chain)", mp_cmd_gen},
    {"convert", "rewrite a graph as node-link JSON or graph JSON", mp_cmd_convert},
    {"bench", "run an experiment matrix in child processes into a results file", mp_cmd_bench},
    {"merge", "merge results files (shards) into one, without duplicates", mp_cmd_merge},
    {"export", "write a results file as CSV", mp_cmd_export},
    {"table", "tables (md, LaTeX, CSV) from results files", mp_cmd_table},
    {"plot", "pictures (SVG, PNG, PDF): memory profile, placement, Pareto front", mp_cmd_plot},
};

static void usage(FILE *out) {
  fprintf(out, "usage: memplan COMMAND [ARGS]   (memplan COMMAND --help for details)\n"
               "       memplan --version\n\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return MP_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return MP_EXIT_OK;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("memplan %s (%s)\n", MEMPLAN_VERSION, memplan_commit());
    return MP_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "memplan: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return MP_EXIT_USAGE;
}

int main(int argc, char **argv) {
  int rc = dispatch(argc, argv);
  /* stdout is checked once, here, for every command: the error flag of an
   * earlier write, the last flush, and the close */
  errno = 0;
  bool bad = fflush(stdout) != 0 || ferror(stdout);
  int e = errno;
  if (close(STDOUT_FILENO) && errno != EBADF && !bad) bad = true, e = errno;
  if (bad) {
    fprintf(stderr, "memplan: standard output: write error%s%s\n", e ? ": " : "", e ? strerror(e) : "");
    if (rc == MP_EXIT_OK) rc = MP_EXIT_INPUT;
  }
  return rc;
}
