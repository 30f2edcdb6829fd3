/* outfile.h - atomic output, shared by the formats, the CLI's library
 * calls and the solvers that write a file of their own (--write-lp): open a
 * temporary file beside `path`; commit renames it into place, abort removes
 * it.  "-" means stdout (commit just flushes). */
#ifndef MP_OUTFILE_H
#define MP_OUTFILE_H

#include <stdio.h>

#include "util.h"

typedef struct mp_outfile {
  FILE *fp;
  char *path;
  char *tmp;
} mp_outfile;
int mp_out_open(mp_outfile *o, const char *path, mp_error *err);
int mp_out_commit(mp_outfile *o, mp_error *err);
void mp_out_abort(mp_outfile *o);

#endif
