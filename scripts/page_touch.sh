#!/bin/sh
# page_touch.sh [MIB] [RUNS] - how fast this machine backs fresh memory:
# maps MIB MiB (default 512) of anonymous memory, with MADV_HUGEPAGE and
# without, touches one byte a page and prints GB/s, RUNS times (default 3)
# each, in turn.  The figures behind README's "Huge pages" paragraph (why
# MEMPLAN_HUGE_PAGES is opt-in): on this virtual machine the first touch
# of fresh huge pages often waits on the host.
set -eu
MIB=${1:-512} RUNS=${2:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat > "$T/touch.c" <<'C'
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char **argv) {
  size_t n = (size_t)atol(argv[1]) << 20;
  int huge = atoi(argv[2]);
  char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  if (huge) madvise(p, n, MADV_HUGEPAGE);
  double t = now();
  for (size_t i = 0; i < n; i += 4096) p[i] = 1;
  t = now() - t;
  printf("%s pages: %zu MiB touched in %.3f s (%.2f GB/s)\n", huge ? "huge " : "small", n >> 20, t,
         (double)n / 1e9 / t);
  return 0;
}
C
${CC:-cc} -O2 -o "$T/touch" "$T/touch.c"
i=0
while [ "$i" -lt "$RUNS" ]; do
  i=$((i + 1))
  "$T/touch" "$MIB" 1
  "$T/touch" "$MIB" 0
done
