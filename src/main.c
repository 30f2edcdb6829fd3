/* main.c - memplan's entry point: ask the C library for huge pages when
 * told to (MEMPLAN_HUGE_PAGES=1) and to keep freed memory for reuse, have
 * big blocks backed at once (MEMPLAN_PREFAULT) on huge pages (unless
 * MEMPLAN_HUGE_PAGES=0), pick
 * the subcommand and dispatch; then
 * make sure what went to standard output was written (a full disk or a
 * closed pipe is an error, not a silent success). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    {"plot", "pictures (SVG, PNG, PDF): memory profile, placement, Pareto front, overhead against budget",
     mp_cmd_plot},
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
    if (argc > 2) {
      fprintf(stderr, "memplan: --version takes no argument (got '%s')\n", argv[2]);
      return MP_EXIT_USAGE;
    }
    printf("memplan %s (%s)\n", MEMPLAN_VERSION, memplan_commit());
    return MP_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "memplan: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return MP_EXIT_USAGE;
}

/* glibc's malloc puts its whole heap on transparent huge pages when the
 * tunable glibc.malloc.hugetlb=1 is set, which it reads only when a process
 * starts: with MEMPLAN_HUGE_PAGES=1, memplan starts itself again once with
 * it added.  Off by default (the big blocks alone go on huge pages,
 * prefault_big_blocks): on this project's (virtual) machine the first touch
 * of fresh huge pages sometimes waits on the host, and on 2026-12-06 the
 * rows at 10^6 nodes ran as fast or faster without it (README, "Huge
 * pages", has the side-by-side times).  Only for an input file of 4 MiB or more (a second start
 * costs about 10 ms); skipped when the tunable is there already (also the
 * second start) or under valgrind (whose preload would not follow); if the
 * new start fails, this one goes on. */
static bool big_input(char **argv) {
  struct stat st;
  for (int i = 1; argv[i]; i++)
    if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)4 << 20) return true;
  return false;
}

static void use_huge_pages(char **argv) {
  const char *t = getenv("GLIBC_TUNABLES"), *pre = getenv("LD_PRELOAD");
  const char *on = getenv("MEMPLAN_HUGE_PAGES");
  if (!on || strcmp(on, "1") || (t && strstr(t, "glibc.malloc.hugetlb")) ||
      (pre && strstr(pre, "vgpreload")) || !big_input(argv))
    return;
  char v[4096];
  int n = snprintf(v, sizeof v, "%s%sglibc.malloc.hugetlb=1", t ? t : "", t && *t ? ":" : "");
  if (n < 0 || (size_t)n >= sizeof v || setenv("GLIBC_TUNABLES", v, 1)) return;
  execv("/proc/self/exe", argv);
}

/* A freed block stays in the process for the next one: glibc maps every
 * block over its threshold (32 MiB at most once it adapts) afresh and gives
 * it back when freed, so each array of 10^6 items the stages allocate in
 * turn faulted in and zeroed new pages (README, "Freed memory", has the
 * side-by-side times).  Up to 64 MiB of free memory at the heap's top stays
 * too; keeping all of it raised swap-greedy's peak RSS by a seventh (its
 * rounds' snapshots then fragment the heap). */
static void keep_freed_memory(void) {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

/* Blocks of 1 MiB or more come backed with memory (memplan_set_prefault):
 * on this project's virtual machine a page fault costs several
 * microseconds (README, "Memory backed at once", has the side-by-side
 * times and the peak RSS it adds: the unused ends of arrays sized for the
 * worst case; 64 KiB added more, swap-greedy's blocks of each round), and
 * on huge pages where whole ones fit (memplan_set_huge_pages: the first
 * write of a 4 KiB page still cost about 5 us there once populated; README,
 * "Huge pages").  MEMPLAN_PREFAULT=0 and MEMPLAN_HUGE_PAGES=0 leave them
 * off (to compare). */
static void prefault_big_blocks(void) {
  const char *v = getenv("MEMPLAN_PREFAULT"), *h = getenv("MEMPLAN_HUGE_PAGES");
  if (!v || strcmp(v, "0")) memplan_set_prefault((size_t)1 << 20);
  if (!h || strcmp(h, "0")) memplan_set_huge_pages(true);
}

int main(int argc, char **argv) {
  use_huge_pages(argv);
  keep_freed_memory();
  prefault_big_blocks();
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
