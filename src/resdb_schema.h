/* resdb_schema.h - the results file's tables and columns, shared by the
 * files of the results store (resdb.c, resdb_claims.c, resdb_csv.c); not
 * part of the bench interface. */
#ifndef MP_RESDB_SCHEMA_H
#define MP_RESDB_SCHEMA_H

#include <sqlite3.h>
#include "bench.h"

/* PRAGMA application_id of a memplan results file ("mpln"), and the schema
 * version (user_version) this build writes. */
#define MP_APP_ID 0x6d706c6e
#define MP_SCHEMA_VERSION 3

enum { C_TEXT, C_INT, C_U64, C_REAL };
enum {
  CF_FIG = 1,    /* a figure: NULL unless the row has a plan */
  CF_KEY = 2,    /* part of the cell key (NOT NULL) */
  CF_JOINED = 4, /* not a column of results: joined from graphs */
  CF_LATER = 8,  /* a key column added later: "" in older rows */
  CF_ALWAYS = 16 /* in every results CSV export ever wrote: required on read */
};

typedef struct mp_col {
  const char *name;
  int type;
  size_t off;    /* in mp_row */
  unsigned flags;
} mp_col;

extern const mp_col mp_cols[];
extern const int mp_ncols;
extern const char mp_key_cols[];
/* The words column i may hold when it is a status (", " between them), or
 * NULL; does text fit the column's words (any text for another column)? */
const char *mp_col_statuses(int i);
bool mp_col_value_ok(int i, const char *text);

#define MP_GRAPHS_SQL                                                                     \
  "CREATE TABLE IF NOT EXISTS graphs (path TEXT PRIMARY KEY NOT NULL, graph TEXT, "       \
  "nodes INTEGER, buffers INTEGER, digest TEXT, bound INTEGER, bound_kind TEXT, "         \
  "message TEXT, computed_at TEXT, version TEXT, given_arena INTEGER, given_align INTEGER, " \
  "given_fingerprint TEXT);"
/* Columns of graphs added later (older files gain them, NULL: the baseline
 * is computed again); merge copies the ones its input has. */
#define MP_GRAPHS_LATER_COLS 3
extern const char *const mp_graphs_later[MP_GRAPHS_LATER_COLS][2]; /* name, SQL type */
#define MP_CLAIMS_SQL                                                                     \
  "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL, " \
  "host TEXT, pid INTEGER, pid_start TEXT, boot_id TEXT, heartbeat REAL, started_at TEXT);"

int mp_db_exec(sqlite3 *db, const char *sql, char *msg, size_t cap);
bool mp_db_has_column(sqlite3 *db, const char *table, const char *column);
/* What a bench learns as it opens its results file: did this connection
 * make the file's tables (it found none), and the file's PRAGMA
 * data_version then (another connection's commit changes it: with a
 * rollback journal the one sign that another process uses the file, as
 * every process writes the tables when it opens it). */
typedef struct mp_db_birth {
  bool made;
  int64_t version;
} mp_db_birth;
/* mp_db_open with wal (false: a rollback journal, --shared-fs); birth, when
 * not NULL, is set on success. */
mp_db *mp_db_open_mode(const char *path, bool wal, mp_db_birth *birth, char *msg, size_t cap);
/* SQLite keeps the file's name + "-journal" (or "-wal", "-shm") beside a
 * results file: a name with no room for that cannot be written (SQLite
 * says only "unable to open database file").  0, or -1 + msg. */
int mp_db_name_fits(const char *path, char *msg, size_t cap);
/* The files SQLite keeps beside a database, by what follows its name: the
 * write-ahead log, its shared memory, the rollback journal.  One list for
 * the results store (removal, merge's sweep of killed builds); the CLI, a
 * client of memplan.h alone, keeps its own (cli_args.c, sqlite_companion). */
#define MP_DB_SIDE_FILES 3
extern const char *const mp_db_side_suffix[MP_DB_SIDE_FILES];
/* Is s one of them? */
bool mp_db_is_side_suffix(const char *s);
/* Remove the results file at path with its -wal, -shm and -journal. */
void mp_db_remove_files(const char *path);
/* Remove it only when it holds nothing (no row, claim or graph's bound)
 * and no other process has it open (with a rollback journal, wal false:
 * when no process made a table in it): what a bench that made it left on
 * failing before its first row (a full disk left an empty file, its -wal
 * and -shm). */
void mp_db_discard_unused(const char *path, bool wal);
/* A bench that failed closes its results file db with this: when it made
 * the file (birth->made) and wrote no row (results, graphs) to it, the
 * file goes with its side files, unless another process uses it: with a
 * WAL, mp_db_discard_unused; with a rollback journal, when no other
 * connection committed to it since birth (checked and removed under an
 * exclusive lock; a process that opened it just before gets SQLite's
 * refusal to write an unlinked file, and mp_db_open_mode opens it again by
 * its name).  db is closed in every case. */
void mp_db_discard_made(mp_db *db, const char *path, bool wal, const mp_db_birth *birth);
/* Open an existing results file for reading, checked as mp_db_check does. */
sqlite3 *mp_db_open_checked(const char *path, char *msg, size_t cap);

/* rows */
sqlite3_stmt *mp_db_insert_stmt(sqlite3 *db, bool replace, char *msg, size_t cap);
int mp_db_insert_row(sqlite3 *db, sqlite3_stmt *st, const mp_row *r, char *msg, size_t cap);
/* A row read from a file: key texts never NULL ("" where an older file has
 * none), has_fig, source. */
void mp_row_finish_loaded(mp_row *r, const char *source);
int mp_db_load_rows(sqlite3 *db, const char *source, mp_row **rows, int *n, char *msg, size_t cap);

/* claims and graphs (resdb_claims.c) */
int mp_db_drop_claim(sqlite3 *db, const char *key, char *msg, size_t cap);
/* merge: src's graphs rows into dst, one per path (the rule: resdb_claims.c) */
int mp_db_copy_graphs(sqlite3 *src, sqlite3 *dst, char *msg, size_t cap);

/* CSV (resdb_csv.c) */
int mp_csv_rows_load(const char *path, mp_row **rows, int *n, char *msg, size_t cap);
void mp_csv_rows_write(FILE *out, const mp_row *rows, int n);

#endif
