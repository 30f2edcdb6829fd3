/* resdb_merge.c - `memplan merge OUT IN...`: the rows and graphs of results
 * files into one.
 *
 * One row per cell: an input's row goes in when OUT has none for its cell,
 * or when it supersedes OUT's row by bench's own rule for rerunning a cell
 * (mp_cellstate_verdict): a row of this build's solvers over a stale one,
 * an answer over a failure, more timed runs over fewer; between rows alike
 * in that, the later run (started_at), and between runs started in the
 * same second a fixed order of their columns.  That order is total, so the
 * merged file is the same whatever the order of the inputs and however
 * often they are merged.
 *
 * All of it is one transaction on OUT.  A new OUT is built beside it
 * (OUT.tmp.HOST.PID) and put in place only if OUT is still absent (a rename
 * that never replaces): a merge, a bench or anything else that made OUT
 * meanwhile keeps its file, and the merge goes into it like into any
 * existing OUT.  A failure leaves OUT as it was (absent, for a new one);
 * the builds of merges killed on this host are removed by the next one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "owner.h"
#include "resdb_schema.h"
#include "util.h"

/* ------------------------------------------------------------ which row */

/* The verdict bench would give row r against this build's solvers (the
 * graph version its own fingerprint names: merge cannot read the graph),
 * asked for `repeat` timed runs. */
static mp_row_verdict verdict(const mp_row *r, int64_t repeat) {
  char digest[64] = "unknown";
  if (r->fingerprint && !strncmp(r->fingerprint, "graph=", 6))
    snprintf(digest, sizeof digest, "%.*s", (int)strcspn(r->fingerprint + 6, " "), r->fingerprint + 6);
  char *now = mp_cell_fingerprint(digest, r->order, r->remat, r->place);
  mp_cellstate cs = {.status = r->status ? r->status : "", .fingerprint = r->fingerprint,
                     .repeats = r->repeats == MP_NA ? 0 : r->repeats, .has_fig = r->has_fig};
  mp_row_verdict v = mp_cellstate_verdict(&cs, now, (int)(repeat > INT32_MAX ? INT32_MAX : repeat));
  free(now);
  return v;
}

static int cmp_num(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) - isnan(b) ? (isnan(a) ? -1 : 1) : 0;
  return a < b ? -1 : a > b;
}

/* A fixed order of two rows of one cell by their stored columns. */
static int cmp_columns(const mp_row *a, const mp_row *b) {
  int c = 0;
  for (int i = 0; i < mp_ncols && !c; i++) {
    const mp_col *k = &mp_cols[i];
    if (k->flags & (CF_JOINED | CF_KEY)) continue;
    const char *pa = (const char *)a + k->off, *pb = (const char *)b + k->off;
    if (k->type == C_TEXT) {
      const char *x = *(char *const *)pa, *y = *(char *const *)pb;
      c = !x || !y ? (x != NULL) - (y != NULL) : strcmp(x, y);
    } else if (k->type == C_REAL) {
      c = cmp_num(*(const double *)pa, *(const double *)pb);
    } else {
      int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
      c = x < y ? -1 : x > y;
    }
  }
  return c;
}

static int64_t timed_runs(const mp_row *r) { return r->has_fig && r->repeats != MP_NA ? r->repeats : 0; }

/* Does row `in` take the place of `out`, OUT's row of the same cell? */
static bool supersedes(const mp_row *in, const mp_row *out) {
  mp_row_verdict vi = verdict(in, timed_runs(out)), vo = verdict(out, timed_runs(in));
  if (vi != vo) return vi > vo;
  int c = strcmp(in->started_at ? in->started_at : "", out->started_at ? out->started_at : "");
  return c ? c > 0 : cmp_columns(in, out) > 0;
}

/* ------------------------------------------------------------ OUT's rows */

typedef struct kept {
  char *key;
  mp_row row;
} kept;

typedef struct keptset {
  kept *k;
  int n;
} keptset;

static int cmp_kept(const void *a, const void *b) { return strcmp(((const kept *)a)->key, ((const kept *)b)->key); }

/* A row as stored: reduction_vs_given that the reading joined from the
 * graph's baseline is the graph's, not the row's. */
static void as_stored(mp_row *r) {
  if (r->given_from_graph) r->reduction_vs_given = NAN;
}

static void keep_rows(keptset *ks, mp_row *rows, int n) {
  ks->k = mp_xrealloc(ks->k, sizeof(kept) * (size_t)(ks->n + n + 1));
  for (int i = 0; i < n; i++) {
    as_stored(&rows[i]);
    ks->k[ks->n].key = mp_row_key(&rows[i]);
    ks->k[ks->n++].row = rows[i];
  }
  qsort(ks->k, (size_t)ks->n, sizeof(kept), cmp_kept);
}

static kept *find_kept(const keptset *ks, const char *key) {
  kept probe = {.key = (char *)key};
  return ks->n ? bsearch(&probe, ks->k, (size_t)ks->n, sizeof(kept), cmp_kept) : NULL;
}

static void keptset_destroy(keptset *ks) {
  for (int i = 0; i < ks->n; i++) {
    free(ks->k[i].key);
    mp_row_destroy(&ks->k[i].row);
  }
  free(ks->k);
}

/* ------------------------------------------------------------ merging */

/* The rows of one input that OUT lacks or that supersede OUT's (which
 * they replace, in the file and in ks), then its graphs. */
static int merge_one(sqlite3 *db, sqlite3_stmt *ins, keptset *ks, const char *in, int *added,
                     char *msg, size_t cap) {
  sqlite3 *src = mp_db_open_checked(in, msg, cap);
  if (!src) return -1;
  mp_row *rows = NULL, *fresh = NULL;
  int n = 0, n_fresh = 0, rc = mp_db_load_rows(src, in, &rows, &n, msg, cap);
  for (int i = 0; i < n && !rc; i++) {
    as_stored(&rows[i]);
    char *key = mp_row_key(&rows[i]);
    kept *k = find_kept(ks, key);
    free(key);
    if (k && !supersedes(&rows[i], &k->row)) continue;
    if ((rc = mp_db_insert_row(db, ins, &rows[i], msg, cap))) break;
    (*added)++;
    if (k) { /* the new row is OUT's row of the cell from now on */
      mp_row_destroy(&k->row);
      k->row = rows[i];
    } else {
      fresh = mp_xrealloc(fresh, sizeof(mp_row) * (size_t)(n_fresh + 1));
      fresh[n_fresh++] = rows[i];
    }
    memset(&rows[i], 0, sizeof rows[i]);
  }
  mp_rows_destroy(rows, n);
  keep_rows(ks, fresh, n_fresh);
  free(fresh);
  if (!rc) rc = mp_db_copy_graphs(src, db, msg, cap);
  sqlite3_close(src);
  return rc;
}

/* Every input into the results file at path (made if absent), in one
 * transaction: 0, or -1 with nothing changed. */
static int merge_into(const char *path, const char *const *in, int n_in, int *added, char *msg,
                      size_t cap) {
  sqlite3 *db = mp_db_open(path, msg, cap);
  if (!db) return -1;
  char sub[512];
  keptset ks = {NULL, 0};
  mp_row *rows = NULL;
  int n = 0;
  sqlite3_stmt *ins = mp_db_insert_stmt(db, true, msg, cap);
  int rc = ins ? mp_db_exec(db, "BEGIN IMMEDIATE", msg, cap) : -1;
  if (!rc && (rc = mp_db_load_rows(db, path, &rows, &n, msg, cap)))
    mp_rows_destroy(rows, n);
  else
    keep_rows(&ks, rows, n), free(rows);
  for (int i = 0; i < n_in && !rc; i++) rc = merge_one(db, ins, &ks, in[i], added, msg, cap);
  sqlite3_finalize(ins);
  keptset_destroy(&ks);
  if (!rc && mp_db_exec(db, "COMMIT", sub, sizeof sub)) {
    mp_msgf(msg, cap, "%s: %s", path, sub);
    rc = -1;
  }
  if (rc && !sqlite3_get_autocommit(db)) mp_db_exec(db, "ROLLBACK", sub, sizeof sub);
  if (sqlite3_close(db) != SQLITE_OK && !rc) {
    mp_msgf(msg, cap, "%s: cannot close", path);
    rc = -1;
  }
  return rc;
}

/* ------------------------------------------------------------ a new OUT */

/* The build of a new OUT by this process: OUT.tmp.HOST.PID, cut as output
 * files' temporary names are (mp_temp_name), with room left for the
 * "-journal" SQLite keeps beside it. */
static char *build_path(const char *out) {
  return mp_temp_name(out, mp_owner_me()->host, strlen("-journal"));
}

/* Is name, after a build's prefix, a pid (and a number when cut) and one
 * of the files of a SQLite database?  The pid, or 0. */
static long build_pid(const char *name, bool cut) {
  char *end;
  long pid = strtol(name, &end, 10);
  if (cut && *end == '.') strtoul(end + 1, &end, 10);
  bool side = !*end || mp_db_is_side_suffix(end);
  return side && pid > 0 ? pid : 0;
}

/* Remove the builds (and their -wal, -shm, -journal) that merges into OUT
 * on this host left when they were killed: their pid is gone. */
static void sweep_builds(const char *out) {
  bool cut;
  char *prefix = mp_temp_prefix(out, mp_owner_me()->host, strlen("-journal"), &cut);
  char *slash = strrchr(prefix, '/');
  const char *base = slash ? slash + 1 : prefix;
  if (slash) *slash = 0;
  DIR *d = opendir(!slash ? "." : slash == prefix ? "/" : prefix);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, base, strlen(base))) continue;
    long pid = build_pid(e->d_name + strlen(base), cut);
    if (!pid || !(kill((pid_t)pid, 0) && errno == ESRCH)) continue;
    size_t n = strlen(prefix) + strlen(e->d_name) + 3;
    char *p = mp_xmalloc(n);
    snprintf(p, n, "%s/%s", slash ? prefix : ".", e->d_name);
    unlink(p);
    free(p);
  }
  if (d) closedir(d);
  free(prefix);
}

/* Put the build in place as OUT unless OUT exists: 0, 1 when OUT exists
 * (the build is left), -1 with msg.  A rename that never replaces, or on a
 * file system without it a hard link (which never replaces either). */
static int publish(const char *tmp, const char *out, char *msg, size_t cap) {
  if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_NOREPLACE)) return 0;
  if (errno == EEXIST) return 1;
  if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
    if (!link(tmp, out)) {
      unlink(tmp);
      return 0;
    }
    if (errno == EEXIST) return 1;
  }
  mp_msgf(msg, cap, "%s: cannot put %s in place: %s", out, tmp, strerror(errno));
  return -1;
}

/* Merge into a new OUT: 0, 1 when OUT appeared meanwhile (nothing done),
 * -1 with msg (no OUT). */
static int merge_new(const char *out, const char *const *in, int n_in, int *added, char *msg,
                     size_t cap) {
  char *tmp = build_path(out);
  mp_db_remove_files(tmp);
  int rc = merge_into(tmp, in, n_in, added, msg, cap);
  if (!rc) rc = publish(tmp, out, msg, cap);
  if (rc) mp_db_remove_files(tmp);
  free(tmp);
  return rc;
}

int mp_db_merge(const char *out, const char *const *in, int n_in, int *added, char *msg,
                size_t cap) {
  *added = 0;
  if (mp_db_name_fits(out, msg, cap)) return -1;
  for (int i = 0; i < n_in; i++)
    if (mp_db_check(in[i], msg, cap)) return -1;
  sweep_builds(out);
  struct stat st;
  int rc = 1;
  if (stat(out, &st) && errno == ENOENT) rc = merge_new(out, in, n_in, added, msg, cap);
  if (rc == 1) {
    *added = 0;
    rc = merge_into(out, in, n_in, added, msg, cap);
  }
  if (rc) *added = 0;
  return rc;
}
