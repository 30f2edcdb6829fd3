/* bench_scratch.h - the runner's scratch folder ($TMPDIR/memplan-bench-*),
 * where each child's output goes (bench_scratch.c); used by bench_run.c. */
#ifndef MP_BENCH_SCRATCH_H
#define MP_BENCH_SCRATCH_H

#include <stddef.h>

/* Make this run's folder in $TMPDIR (default /tmp), after removing the
 * folders of runs of this host that are gone (a kill -9 cannot clean up),
 * and prove that files can be written there (mp_scratch_probe).  0 (dir
 * set), or -1 with msg. */
int mp_scratch_open(char *dir, size_t cap, char *msg, size_t mcap);
/* Can a child's output still be written in dir?  A write of more than a
 * cell's output, removed again: 0, or -1 with msg naming the folder and
 * the error (a full or failing disk, a file-size limit). */
int mp_scratch_probe(const char *dir, char *msg, size_t cap);
/* Remove the folder and the files the runner made in it. */
void mp_scratch_remove(const char *dir);

#endif
