/* outfile.h - atomic output, shared by the formats, the CLI's library
 * calls and the solvers that write a file of their own (--write-lp): open a
 * temporary file beside `path`; commit renames it into place, abort removes
 * it.  "-" means stdout (commit just flushes).  The temporary file has no
 * name until commit (O_TMPFILE) where the file system allows it, so a
 * process killed while writing leaves nothing behind; elsewhere it is
 * `path.tmp.PID` from the start. */
#ifndef MP_OUTFILE_H
#define MP_OUTFILE_H

#include <stdio.h>

#include "util.h"

typedef struct mp_outfile {
  FILE *fp;
  char *path;
  char *tmp;      /* the temporary name (linked at commit when anonymous) */
  bool anon;      /* the temporary file has no name yet */
  char proc[48];  /* anonymous: /proc/self/fd/N, a name that opens it */
} mp_outfile;
int mp_out_open(mp_outfile *o, const char *path, mp_error *err);
/* A path that opens the temporary file (for a library that writes by
 * name); NULL for stdout or a file written in place. */
const char *mp_out_tmp_path(const mp_outfile *o);
int mp_out_commit(mp_outfile *o, mp_error *err);
/* The temporary name of path for this process, malloc'ed: `path.tmp.PID`,
 * or `path.tmp.TAG.PID` (tag NULL: none), its file name cut to leave
 * `reserve` bytes of NAME_MAX free (then numbered: `.N` follows).
 * mp_temp_prefix is what every such name begins with (*cut: it was cut),
 * for a sweep of the names left by killed processes. */
char *mp_temp_name(const char *path, const char *tag, size_t reserve);
char *mp_temp_prefix(const char *path, const char *tag, size_t reserve, bool *cut);
void mp_out_abort(mp_outfile *o);

#endif
