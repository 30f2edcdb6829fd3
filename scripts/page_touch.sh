#!/bin/sh
# page_touch.sh [MIB] [RUNS] - how fast this machine backs fresh memory:
# maps MIB MiB (default 512) of anonymous memory, with MADV_HUGEPAGE and
# without, touches one byte a page and prints GB/s; then the same with the
# pages populated first (MADV_POPULATE_WRITE, as memplan backs its big
# blocks) and one byte of every 64 written, the two steps timed apart;
# RUNS times (default 3) each, in turn.  The figures behind README's "Huge
# pages" paragraph: on this virtual machine the first touch of fresh huge
# pages sometimes waits on the host, and a small page populated at once
# still costs microseconds to write first.
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
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
int main(int argc, char **argv) {
  size_t n = (size_t)atol(argv[1]) << 20;
  int huge = atoi(argv[2]), populate = argc > 3 && atoi(argv[3]);
  char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  if (huge) madvise(p, n, MADV_HUGEPAGE);
  const char *kind = huge ? "huge " : "small";
  double t = now();
  if (populate) {
    if (madvise(p, n, MADV_POPULATE_WRITE)) {
      printf("%s pages, populated: this kernel cannot (MADV_POPULATE_WRITE, Linux 5.14)\n", kind);
      return 0;
    }
    double w = now();
    for (size_t i = 0; i < n; i += 64) p[i] = 1;
    w = now() - w, t = now() - t - w;
    printf("%s pages, populated: %zu MiB in %.3f s, then written in %.3f s (%.2f GB/s in all)\n", kind,
           n >> 20, t, w, (double)n / 1e9 / (t + w));
    return 0;
  }
  for (size_t i = 0; i < n; i += 4096) p[i] = 1;
  t = now() - t;
  printf("%s pages: %zu MiB touched in %.3f s (%.2f GB/s)\n", kind, n >> 20, t, (double)n / 1e9 / t);
  return 0;
}
C
${CC:-cc} -O2 -o "$T/touch" "$T/touch.c"
i=0
while [ "$i" -lt "$RUNS" ]; do
  i=$((i + 1))
  "$T/touch" "$MIB" 1
  "$T/touch" "$MIB" 0
  "$T/touch" "$MIB" 1 1
  "$T/touch" "$MIB" 0 1
done
