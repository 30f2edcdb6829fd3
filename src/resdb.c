/* resdb.c - the results store: one SQLite file made by memplan.
 *
 *   results  one row per finished cell, the cell key UNIQUE (this file)
 *   graphs   one row per graph: digest, independent lower bound, baseline
 *   claims   the cells some bench process is running now (resdb_claims.c)
 *
 * The columns of `results` are one table below (cols[]): adding a column
 * is adding a line there and a field to mp_row; older files get the new
 * columns (NULL) when a bench opens them.  Safety: WAL journal, each row in
 * its own transaction, so a kill at any moment leaves the file at the last
 * committed row.  A file memplan did not make (other tables, views or
 * triggers, another application id) or that fails PRAGMA quick_check is
 * refused before anything is written. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "resdb_schema.h"
#include "util.h"

#define F(n, t, field, flags) {n, t, offsetof(mp_row, field), flags}
const mp_col mp_cols[] = {
    F("path", C_TEXT, path, CF_KEY | CF_ALWAYS),
    F("graph", C_TEXT, graph, CF_ALWAYS),
    F("nodes", C_INT, nodes, CF_ALWAYS),
    F("buffers", C_INT, buffers, CF_ALWAYS),
    F("align", C_INT, align, CF_ALWAYS),
    F("order_solver", C_TEXT, order, CF_KEY | CF_ALWAYS),
    F("place_solver", C_TEXT, place, CF_KEY | CF_ALWAYS),
    F("seed", C_U64, seed, CF_KEY | CF_ALWAYS),
    F("time_limit", C_REAL, time_limit, CF_KEY | CF_ALWAYS),
    F("options", C_TEXT, options, CF_KEY | CF_ALWAYS),
    F("status", C_TEXT, status, CF_ALWAYS),
    F("live_peak", C_INT, live_peak, CF_FIG | CF_ALWAYS),
    F("arena", C_INT, arena, CF_FIG | CF_ALWAYS),
    F("fragmentation", C_REAL, fragmentation, CF_FIG | CF_ALWAYS),
    F("reuse_ratio", C_REAL, reuse_ratio, CF_FIG | CF_ALWAYS),
    F("sum_sizes", C_INT, sum_sizes, CF_FIG | CF_ALWAYS),
    F("lower_bound", C_INT, lower_bound, CF_FIG | CF_ALWAYS),
    F("profile_std", C_REAL, profile_std, CF_FIG | CF_ALWAYS),
    F("reduction_vs_given", C_REAL, reduction_vs_given, CF_FIG | CF_ALWAYS),
    F("reduction_vs_noreuse", C_REAL, reduction_vs_noreuse, CF_FIG | CF_ALWAYS),
    F("order_ms", C_REAL, order_ms, CF_ALWAYS),
    F("place_ms", C_REAL, place_ms, CF_ALWAYS),
    F("plan_ms", C_REAL, plan_ms, CF_ALWAYS),
    F("order_cpu_ms", C_REAL, order_cpu_ms, CF_ALWAYS),
    F("place_cpu_ms", C_REAL, place_cpu_ms, CF_ALWAYS),
    F("wall_s", C_REAL, wall_s, CF_ALWAYS),
    F("message", C_TEXT, message, CF_ALWAYS),
    F("version", C_TEXT, version, CF_ALWAYS),
    F("machine", C_TEXT, machine, CF_ALWAYS),
    F("cpu", C_TEXT, cpu, CF_ALWAYS),
    F("started_at", C_TEXT, started_at, CF_ALWAYS),
    F("experiment", C_TEXT, experiment, CF_ALWAYS),
    /* added later: appended, so that older files only gain columns */
    F("order_status", C_TEXT, order_status, 0),
    F("place_status", C_TEXT, place_status, 0),
    F("fingerprint", C_TEXT, fingerprint, 0),
    F("repeats", C_INT, repeats, 0),
    F("plan_ms_min", C_REAL, plan_ms_min, 0),
    F("plan_ms_max", C_REAL, plan_ms_max, 0),
    F("plan_cpu_ms", C_REAL, plan_cpu_ms, 0),
    F("plan_cpu_ms_min", C_REAL, plan_cpu_ms_min, 0),
    /* recomputation (DESIGN 6): the cell's events stage ("" without one),
     * the request as the solve resolved it, the event plan's figures */
    F("remat_solver", C_TEXT, remat, CF_KEY | CF_LATER),
    F("budget_arg", C_TEXT, budget_arg, CF_KEY | CF_LATER),
    F("bandwidth_arg", C_TEXT, bandwidth_arg, CF_KEY | CF_LATER),
    F("remat_status", C_TEXT, remat_status, 0),
    F("budget", C_INT, budget, 0),
    F("bandwidth", C_REAL, bandwidth, 0),
    F("base_time", C_REAL, base_time, 0),
    F("duration", C_REAL, duration, CF_FIG),
    F("overhead", C_REAL, overhead, CF_FIG),
    F("recompute_time", C_REAL, recompute_time, CF_FIG),
    F("recomputed", C_INT, recomputed, CF_FIG),
    F("stall_time", C_REAL, stall_time, CF_FIG),
    F("transferred", C_INT, transferred, CF_FIG),
    F("residencies", C_INT, residencies, CF_FIG),
    F("remat_ms", C_REAL, remat_ms, 0),
    F("remat_cpu_ms", C_REAL, remat_cpu_ms, 0),
    F("stale_reruns", C_INT, stale_reruns, CF_FIG),
    /* from the graphs table (export and load only) */
    F("graph_bound", C_INT, graph_bound, CF_JOINED),
    F("bound_kind", C_TEXT, bound_kind, CF_JOINED),
    F("given_arena", C_INT, given_arena, CF_JOINED),
    F("given_align", C_INT, given_align, CF_JOINED),
};
#undef F
const int mp_ncols = (int)(sizeof mp_cols / sizeof mp_cols[0]);

const char mp_key_cols[] =
    "path, order_solver, place_solver, seed, time_limit, options, remat_solver, budget_arg, "
    "bandwidth_arg";

/* Key columns added after the first files: older rows hold "" there. */
static bool later_key(const mp_col *c) { return (c->flags & CF_LATER) != 0; }

static const char *sql_type(int t) {
  return t == C_TEXT ? "TEXT" : t == C_REAL ? "REAL" : "INTEGER";
}

void mp_row_init(mp_row *r) {
  memset(r, 0, sizeof *r);
  for (int i = 0; i < mp_ncols; i++) {
    void *p = (char *)r + mp_cols[i].off;
    if (mp_cols[i].flags & CF_KEY) continue;
    if (mp_cols[i].type == C_INT) *(int64_t *)p = MP_NA;
    if (mp_cols[i].type == C_REAL) *(double *)p = NAN;
  }
}

void mp_row_destroy(mp_row *r) {
  for (int i = 0; i < mp_ncols; i++)
    if (mp_cols[i].type == C_TEXT) free(*(char **)((char *)r + mp_cols[i].off));
  free(r->source);
  memset(r, 0, sizeof *r);
}

void mp_rows_destroy(mp_row *rows, int n) {
  for (int i = 0; i < n; i++) mp_row_destroy(&rows[i]);
  free(rows);
}

int mp_db_exec(sqlite3 *db, const char *sql, char *msg, size_t cap) {
  char *e = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK) {
    mp_msgf(msg, cap, "sqlite: %s", e ? e : sqlite3_errmsg(db));
    sqlite3_free(e);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ schema */

static bool ours(const char *table) {
  return !strcmp(table, "results") || !strcmp(table, "graphs") || !strcmp(table, "claims") ||
         !strncmp(table, "sqlite_", 7);
}

static int64_t pragma_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Does table have column? */
bool mp_db_has_column(sqlite3 *db, const char *table, const char *column) {
  char sql[128];
  snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
  sqlite3_stmt *st;
  bool found = false;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return false;
  while (!found && sqlite3_step(st) == SQLITE_ROW)
    found = !strcmp((const char *)sqlite3_column_text(st, 1), column);
  sqlite3_finalize(st);
  return found;
}

/* SQLite's own check of the file: 0, or -1 with the reason in sub. */
static int quick_check(sqlite3 *db, char *sub, size_t cap) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL);
  if (rc != SQLITE_OK) {
    snprintf(sub, cap, "%s", rc == SQLITE_NOTADB ? "not a SQLite database" : sqlite3_errmsg(db));
    return -1;
  }
  rc = sqlite3_step(st);
  const char *first = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
  if (!first || strcmp(first, "ok")) {
    snprintf(sub, cap, "fails PRAGMA quick_check (%.200s): the file is damaged",
             first ? first : sqlite3_errmsg(db));
    for (char *c = sub; *c; c++)
      if (*c == '\n') *c = ' ';
    sqlite3_finalize(st);
    return -1;
  }
  sqlite3_finalize(st);
  return 0;
}

/* Every table and index is one memplan makes (their number in *objects;
 * *results: a results table among them): 0, or -1 naming the first that
 * is not in sub. */
static int own_objects(sqlite3 *db, char *sub, size_t cap, int *objects, bool *results) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name FROM sqlite_master", -1, &st, NULL) !=
      SQLITE_OK) {
    snprintf(sub, cap, "%s", sqlite3_errmsg(db));
    return -1;
  }
  int bad = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *type = (const char *)sqlite3_column_text(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    const char *tbl = (const char *)sqlite3_column_text(st, 2);
    (*objects)++;
    if (!strcmp(type, "table") && !strcmp(name, "results")) *results = true;
    bool fine = (!strcmp(type, "table") && ours(name)) || (!strcmp(type, "index") && ours(tbl));
    if (!fine && !bad++)
      snprintf(sub, cap, "holds a %s '%.100s' that memplan did not make: not a memplan results file",
               type, name);
  }
  sqlite3_finalize(st);
  return bad ? -1 : 0;
}

/* A memplan results file, sound: refuse anything else (sub: the reason). */
static int check_schema(sqlite3 *db, char *sub, size_t cap) {
  if (quick_check(db, sub, cap)) return -1;
  int64_t app = pragma_int(db, "PRAGMA application_id");
  if (app != 0 && app != MP_APP_ID) {
    snprintf(sub, cap, "not a memplan results file (application id %lld)", (long long)app);
    return -1;
  }
  int objects = 0;
  bool results = false;
  if (own_objects(db, sub, cap, &objects, &results)) return -1;
  if (objects && !results) {
    snprintf(sub, cap, "not a memplan results file (no results table)");
    return -1;
  }
  if (results) {
    static const char *const key[] = {"path", "order_solver", "place_solver", "seed", "time_limit",
                                      "options", "status"};
    for (int i = 0; i < 7; i++)
      if (!mp_db_has_column(db, "results", key[i])) {
        snprintf(sub, cap, "not a memplan results file (results has no column %s)", key[i]);
        return -1;
      }
  }
  return 0;
}

/* "CREATE TABLE IF NOT EXISTS name (every stored column, UNIQUE (key))" */
static void results_sql(const char *name, char *sql, size_t cap) {
  int l = snprintf(sql, cap, "CREATE TABLE IF NOT EXISTS %s (", name);
  for (int i = 0; i < mp_ncols; i++) {
    const mp_col *c = &mp_cols[i];
    if (c->flags & CF_JOINED) continue;
    l += snprintf(sql + l, cap - (size_t)l, "%s %s%s%s, ", c->name, sql_type(c->type),
                  c->flags & CF_KEY ? " NOT NULL" : "", later_key(c) ? " DEFAULT ''" : "");
  }
  snprintf(sql + l, cap - (size_t)l, "UNIQUE (%s));", mp_key_cols);
}

/* A results table of a file made before remat cells has a UNIQUE key
 * without the remat columns, which SQLite cannot alter: the table is
 * rebuilt with the current key, every row (and rowid) kept, the new key
 * columns "" (cells without recomputation keep their keys).  Inside the
 * caller's transaction: all or nothing. */
static int rebuild_for_remat_key(sqlite3 *db, char *sub, size_t cap) {
  char cols[4096] = "", sql[2 * sizeof cols + 256]; /* the statement names cols twice */
  results_sql("results_new", sql, sizeof sql);
  if (mp_db_exec(db, sql, sub, cap)) return -1;
  int l = 0;
  for (int i = 0; i < mp_ncols; i++)
    if (!(mp_cols[i].flags & CF_JOINED) && mp_db_has_column(db, "results", mp_cols[i].name))
      l += snprintf(cols + l, sizeof cols - (size_t)l, ", %s", mp_cols[i].name);
  snprintf(sql, sizeof sql,
           "INSERT INTO results_new (rowid%s) SELECT rowid%s FROM results; DROP TABLE results; "
           "ALTER TABLE results_new RENAME TO results;",
           cols, cols);
  return mp_db_exec(db, sql, sub, cap);
}

/* Create what is missing: tables, columns of older files, indexes. */
static int create_schema(sqlite3 *db, char *sub, size_t cap) {
  char sql[8192], pragma[96];
  snprintf(pragma, sizeof pragma, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
           MP_APP_ID, MP_SCHEMA_VERSION);
  bool old_key = pragma_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'results'") > 0 &&
                 !mp_db_has_column(db, "results", "remat_solver");
  results_sql("results", sql, sizeof sql);
  if (mp_db_exec(db, pragma, sub, cap) || (old_key && rebuild_for_remat_key(db, sub, cap)) ||
      mp_db_exec(db, sql, sub, cap) || mp_db_exec(db, MP_GRAPHS_SQL, sub, cap) ||
      mp_db_exec(db, MP_CLAIMS_SQL, sub, cap))
    return -1;
  for (int i = 0; i < mp_ncols; i++) {
    if ((mp_cols[i].flags & CF_JOINED) || mp_db_has_column(db, "results", mp_cols[i].name))
      continue;
    snprintf(sql, sizeof sql, "ALTER TABLE results ADD COLUMN %s %s%s", mp_cols[i].name,
             sql_type(mp_cols[i].type), later_key(&mp_cols[i]) ? " NOT NULL DEFAULT ''" : "");
    if (mp_db_exec(db, sql, sub, cap)) return -1;
  }
  for (int i = 0; i < MP_GRAPHS_LATER_COLS; i++) {
    if (mp_db_has_column(db, "graphs", mp_graphs_later[i][0])) continue;
    snprintf(sql, sizeof sql, "ALTER TABLE graphs ADD COLUMN %s %s", mp_graphs_later[i][0],
             mp_graphs_later[i][1]);
    if (mp_db_exec(db, sql, sub, cap)) return -1;
  }
  return mp_db_exec(db, "CREATE INDEX IF NOT EXISTS results_graph ON results(graph);", sub, cap);
}

/* The schema writes, which double as the probe that the file can be
 * written: 0, -1 with sub set, or 1 when another process held the file
 * (SQLITE_BUSY: SQLite returns it at once in some cases, such as a change
 * of journal mode racing another connection's, without the busy handler). */
static int write_probe(sqlite3 *db, bool wal, mp_db_birth *birth, char *sub, size_t cap) {
  int rc = mp_db_exec(db, wal ? "PRAGMA journal_mode=WAL;" : "PRAGMA journal_mode=DELETE;", sub, cap) ||
           mp_db_exec(db, "PRAGMA synchronous=NORMAL;", sub, cap) ||
           mp_db_exec(db, "BEGIN IMMEDIATE", sub, cap);
  /* inside the write lock: no other connection commits between the look
   * at the file, the tables made and the version read */
  mp_db_birth b = {.made = !rc && pragma_int(db, "SELECT count(*) FROM sqlite_master") == 0};
  rc = rc || create_schema(db, sub, cap);
  if (!rc) b.version = pragma_int(db, "PRAGMA data_version");
  rc = rc || mp_db_exec(db, "COMMIT", sub, cap);
  if (!rc) {
    if (birth) *birth = b;
    return 0;
  }
  int code = sqlite3_extended_errcode(db);
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  if (code == SQLITE_READONLY_DBMOVED) return 2;
  return (code & 0xff) == SQLITE_BUSY ? 1 : -1;
}

int mp_db_name_fits(const char *path, char *msg, size_t cap) {
  const char *slash = strrchr(path, '/');
  size_t len = strlen(slash ? slash + 1 : path), most = NAME_MAX - strlen("-journal");
  if (strlen(path) + strlen("-journal") >= PATH_MAX) {
    mp_msgf(msg, cap, "%s: a path of %zu bytes is too long for a results file: with the "
            "\"-journal\" SQLite keeps beside it, it must fit in %d bytes", path, strlen(path), PATH_MAX);
    return -1;
  }
  if (len <= most) return 0;
  mp_msgf(msg, cap, "%s: a file name of %zu bytes is too long for a results file: SQLite keeps "
           "the file's name + \"-journal\" (or \"-wal\") beside it, which must fit in %d bytes: "
           "at most %zu", path, len, NAME_MAX, most);
  return -1;
}

/* The file at path opened read-write and checked, or NULL with msg. */
static sqlite3 *open_write(const char *path, char *msg, size_t cap) {
  sqlite3 *db = NULL;
  char sub[512];
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    mp_msgf(msg, cap, "%s: cannot open for writing (%s)", path, db ? sqlite3_errmsg(db) : "?");
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 30000);
  if (sqlite3_db_readonly(db, "main") == 1) {
    mp_msgf(msg, cap, "%s: read-only: the results file must be writable", path);
    sqlite3_close(db);
    return NULL;
  }
  if (check_schema(db, sub, sizeof sub)) {
    mp_msgf(msg, cap, "%s: %s", path, sub);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

mp_db *mp_db_open_mode(const char *path, bool wal, mp_db_birth *birth, char *msg, size_t cap) {
  char sub[512];
  if (mp_db_name_fits(path, msg, cap)) return NULL;
  /* another process opening the same file may hold it for a moment: try
   * again for up to 30 s, as the busy handler would; a file its maker
   * removed (mp_db_discard_made) while this process opened it is opened
   * again by its name (SQLite refuses to write the unlinked one) */
  double give_up = mp_now() + 30;
  for (;;) {
    sqlite3 *db = open_write(path, msg, cap);
    if (!db) return NULL;
    int rc;
    while ((rc = write_probe(db, wal, birth, sub, sizeof sub)) == 1 && mp_now() < give_up) usleep(20000);
    if (!rc) return db;
    sqlite3_close(db);
    if (rc != 2 || mp_now() >= give_up) {
      mp_msgf(msg, cap, "%s: cannot be written (%s)", path, sub);
      return NULL;
    }
  }
}

mp_db *mp_db_open(const char *path, char *msg, size_t cap) {
  return mp_db_open_mode(path, true, NULL, msg, cap);
}

void mp_db_close(mp_db *db) { sqlite3_close(db); }

const char *const mp_db_side_suffix[MP_DB_SIDE_FILES] = {"-wal", "-shm", "-journal"};

bool mp_db_is_side_suffix(const char *s) {
  for (int i = 0; i < MP_DB_SIDE_FILES; i++)
    if (!strcmp(s, mp_db_side_suffix[i])) return true;
  return false;
}

void mp_db_remove_files(const char *path) {
  size_t n = strlen(path) + 16;
  char *p = mp_xmalloc(n);
  unlink(path);
  for (int i = 0; i < MP_DB_SIDE_FILES; i++) {
    snprintf(p, n, "%s%s", path, mp_db_side_suffix[i]);
    unlink(p);
  }
  free(p);
}

/* "file:PATH?immutable=1", PATH percent-escaped where a URI needs it. */
static char *immutable_uri(const char *path) {
  char *u = mp_xmalloc(3 * strlen(path) + 32), *o = u;
  o += sprintf(o, "file:");
  for (const unsigned char *c = (const unsigned char *)path; *c; c++)
    o += *c == '%' || *c == '?' || *c == '#' ? sprintf(o, "%%%02X", *c) : sprintf(o, "%c", *c);
  sprintf(o, "?immutable=1");
  return u;
}

static bool folder_writable(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return access(".", W_OK) == 0;
  char *dir = mp_xmalloc((size_t)(slash - path) + 2);
  memcpy(dir, path, (size_t)(slash - path) + 1);
  dir[slash == path ? 1 : slash - path] = 0;
  bool w = access(dir, W_OK) == 0;
  free(dir);
  return w;
}

/* Open for reading and check.  Where this process may write the file and
 * its folder the handle is read-write (no row is written through it; its
 * close may checkpoint committed WAL pages into the file, as any writer's
 * does): a read-only handle to a WAL file cannot remove the -wal and -shm
 * files it makes, and `table` left them beside every results file it read.  A WAL
 * file in a folder this process cannot write (a read-only mount, an
 * archive) cannot be opened the usual way: SQLite must create its -shm file
 * there.  No process can be writing it then (it would need the same files),
 * so it is read as immutable. */
static sqlite3 *open_read(const char *path, bool immutable, char *sub, size_t cap) {
  sqlite3 *db = NULL;
  char *uri = immutable ? immutable_uri(path) : NULL;
  bool rw = !immutable && access(path, W_OK) == 0 && folder_writable(path);
  int flags = (rw ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | (immutable ? SQLITE_OPEN_URI : 0);
  if (sqlite3_open_v2(uri ? uri : path, &db, flags, NULL) != SQLITE_OK) {
    snprintf(sub, cap, "%s", db ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_close(db);
    db = NULL;
  } else {
    sqlite3_busy_timeout(db, 30000);
    if (check_schema(db, sub, cap)) {
      sqlite3_close(db);
      db = NULL;
    }
  }
  free(uri);
  return db;
}

/* Open an existing file for reading and check it. */
sqlite3 *mp_db_open_checked(const char *path, char *msg, size_t cap) {
  struct stat st;
  int gone = stat(path, &st) ? errno : 0;
  if (gone || !S_ISREG(st.st_mode)) {
    if (gone)
      mp_msgf(msg, cap, "%s: cannot read: %s", path, strerror(gone));
    else
      mp_msgf(msg, cap, "%s: not a regular file", path);
    return NULL;
  }
  char sub[512];
  sqlite3 *db = open_read(path, false, sub, sizeof sub);
  if (!db && !folder_writable(path)) db = open_read(path, true, sub, sizeof sub);
  if (db && !mp_db_has_column(db, "results", "path")) { /* an empty file, say */
    snprintf(sub, sizeof sub, "not a memplan results file (no results table)");
    sqlite3_close(db);
    db = NULL;
  }
  if (!db) mp_msgf(msg, cap, "%s: %s", path, sub);
  return db;
}

int mp_db_check(const char *path, char *msg, size_t cap) {
  sqlite3 *db = mp_db_open_checked(path, msg, cap);
  if (!db) return -1;
  sqlite3_close(db);
  return 0;
}

/* The rows of table, 0 when the file has no such table, -1 when unread. */
static int64_t table_rows(sqlite3 *db, const char *table) {
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", table);
  int64_t has = pragma_int(db, sql);
  if (has != 1) return has;
  snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
  return pragma_int(db, sql);
}

/* Nothing in it: no row, no claim, no graph's bound. */
static bool no_rows(sqlite3 *db) {
  return table_rows(db, "results") == 0 && table_rows(db, "claims") == 0 &&
         table_rows(db, "graphs") == 0;
}

/* Is db held by this connection alone and empty: 1 (the exclusive lock
 * left held), 0, or -1 when that cannot be told (a full disk: SQLite cannot
 * grow its -shm file).  A WAL file leaves WAL only when no other connection
 * has it open, and then holds nothing that matters if it has no row; a
 * rollback journal gives no such sign (an idle connection holds no lock),
 * so there only a file no process has made a table in counts. */
static int alone_and_empty(sqlite3 *db, bool wal) {
  sqlite3_stmt *st = NULL;
  int rc = wal ? sqlite3_prepare_v2(db, "PRAGMA journal_mode=DELETE", -1, &st, NULL) : SQLITE_ROW;
  if (wal && rc == SQLITE_OK) rc = sqlite3_step(st);
  bool left_wal = !wal || (rc == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 0), "delete"));
  sqlite3_finalize(st);
  if (rc == SQLITE_ROW && !left_wal) return 0;
  if (rc != SQLITE_ROW || sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK)
    return (sqlite3_errcode(db) & 0xff) == SQLITE_BUSY ? 0 : -1;
  return wal ? no_rows(db) : pragma_int(db, "SELECT count(*) FROM sqlite_master") == 0;
}

/* The file as it is on disk, read without a lock or a -shm file: empty, or
 * (WAL) without a row and with an empty or absent -wal (no committed row
 * waits there). */
static bool empty_on_disk(const char *path, bool wal) {
  struct stat st;
  size_t n = strlen(path) + 8;
  char *log = mp_xmalloc(n);
  snprintf(log, n, "%s-wal", path);
  bool wal_empty = stat(log, &st) || st.st_size == 0;
  free(log);
  if (!wal_empty || stat(path, &st)) return false;
  if (st.st_size == 0 || !wal) return st.st_size == 0;
  sqlite3 *db = open_read(path, true, NULL, 0);
  bool empty = db && no_rows(db);
  sqlite3_close(db);
  return empty;
}

void mp_db_discard_unused(const char *path, bool wal) {
  sqlite3 *db = NULL;
  int alone = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK ? alone_and_empty(db, wal) : -1;
  if (alone == 1 || (alone < 0 && empty_on_disk(path, wal)))
    mp_db_remove_files(path); /* under the lock when there is one: no process starts writing it */
  if (db && !sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(db);
}

/* Did this process write no row (results, graphs) to the file it made, and
 * has no other connection committed anything to it since (birth->version:
 * with a rollback journal the one sign of another process, which wrote its
 * tables as it opened the file)?  Under db's exclusive lock, left held. */
static bool made_and_unused(sqlite3 *db, const mp_db_birth *birth) {
  return sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) == SQLITE_OK &&
         pragma_int(db, "PRAGMA data_version") == birth->version &&
         table_rows(db, "results") == 0 && table_rows(db, "graphs") == 0;
}

void mp_db_discard_made(mp_db *db, const char *path, bool wal, const mp_db_birth *birth) {
  if (wal || !birth->made) {
    sqlite3_close(db);
    if (wal && birth->made) mp_db_discard_unused(path, true);
    return;
  }
  if (made_and_unused(db, birth)) mp_db_remove_files(path); /* under the lock: no process writes it */
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(db);
}

/* ------------------------------------------------------------ rows in */

void mp_db_bind_col(sqlite3_stmt *st, int k, const mp_row *r, int i) {
  const mp_col *c = &mp_cols[i];
  const void *p = (const char *)r + c->off;
  if ((c->flags & CF_FIG) && !r->has_fig) {
    sqlite3_bind_null(st, k);
    return;
  }
  switch (c->type) {
  case C_TEXT: {
    const char *s = *(char *const *)p;
    if (s || (c->flags & CF_KEY))
      sqlite3_bind_text(st, k, s ? s : "", -1, SQLITE_TRANSIENT);
    else
      sqlite3_bind_null(st, k);
    break;
  }
  case C_INT:
    if (*(const int64_t *)p == MP_NA)
      sqlite3_bind_null(st, k);
    else
      sqlite3_bind_int64(st, k, *(const int64_t *)p);
    break;
  case C_U64: sqlite3_bind_int64(st, k, (sqlite3_int64) * (const uint64_t *)p); break;
  case C_REAL:
    if (isnan(*(const double *)p))
      sqlite3_bind_null(st, k);
    else
      sqlite3_bind_double(st, k, *(const double *)p);
    break;
  }
}

/* "INSERT OR x INTO results (every stored column) VALUES (?, ...)" */
sqlite3_stmt *mp_db_insert_stmt(sqlite3 *db, bool replace, char *msg, size_t cap) {
  char sql[4096];
  int l = snprintf(sql, sizeof sql, "INSERT OR %s INTO results (", replace ? "REPLACE" : "IGNORE");
  int n = 0;
  for (int i = 0; i < mp_ncols; i++)
    if (!(mp_cols[i].flags & CF_JOINED))
      l += snprintf(sql + l, sizeof sql - (size_t)l, "%s%s", n++ ? ", " : "", mp_cols[i].name);
  l += snprintf(sql + l, sizeof sql - (size_t)l, ") VALUES (");
  for (int i = 0; i < n; i++) l += snprintf(sql + l, sizeof sql - (size_t)l, "%s?", i ? "," : "");
  snprintf(sql + l, sizeof sql - (size_t)l, ")");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
    return NULL;
  }
  return st;
}

int mp_db_insert_row(sqlite3 *db, sqlite3_stmt *st, const mp_row *r, char *msg, size_t cap) {
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  int k = 1;
  for (int i = 0; i < mp_ncols; i++)
    if (!(mp_cols[i].flags & CF_JOINED)) mp_db_bind_col(st, k++, r, i);
  if (sqlite3_step(st) != SQLITE_DONE) {
    mp_msgf(msg, cap, "sqlite insert: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

int mp_db_store(mp_db *db, const mp_row *r, bool replace, char *msg, size_t cap) {
  char sub[512];
  sqlite3_stmt *st = mp_db_insert_stmt(db, replace, msg, cap);
  if (!st) return -1;
  if (mp_db_exec(db, "BEGIN IMMEDIATE", sub, sizeof sub)) {
    mp_msgf(msg, cap, "%s", sub);
    sqlite3_finalize(st);
    return -1;
  }
  char *key = mp_row_key(r);
  int rc = mp_db_insert_row(db, st, r, msg, cap);
  if (!rc) rc = mp_db_drop_claim(db, key, msg, cap);
  free(key);
  sqlite3_finalize(st);
  if (!rc && mp_db_exec(db, "COMMIT", sub, sizeof sub)) {
    mp_msgf(msg, cap, "%s", sub);
    rc = -1;
  }
  if (rc) mp_db_exec(db, "ROLLBACK", sub, sizeof sub);
  return rc;
}

/* ------------------------------------------------------------ cell states */

static char *dup_text(const unsigned char *s) {
  return s ? mp_xstrdup((const char *)s) : NULL;
}

static int cmp_state(const void *a, const void *b) {
  return strcmp(((const mp_cellstate *)a)->key, ((const mp_cellstate *)b)->key);
}

int mp_db_keys(mp_db *db, mp_keyset *ks, char *msg, size_t cap) {
  memset(ks, 0, sizeof *ks);
  sqlite3_stmt *st;
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT %s, status, fingerprint, repeats, rowid, arena IS NOT NULL FROM results",
           mp_key_cols);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
    return -1;
  }
  int capn = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    mp_row r;
    memset(&r, 0, sizeof r);
    r.path = (char *)sqlite3_column_text(st, 0);
    r.order = (char *)sqlite3_column_text(st, 1);
    r.place = (char *)sqlite3_column_text(st, 2);
    r.seed = (uint64_t)sqlite3_column_int64(st, 3);
    r.time_limit = sqlite3_column_double(st, 4);
    r.options = (char *)sqlite3_column_text(st, 5);
    r.remat = (char *)sqlite3_column_text(st, 6);
    r.budget_arg = (char *)sqlite3_column_text(st, 7);
    r.bandwidth_arg = (char *)sqlite3_column_text(st, 8);
    if (ks->n == capn) {
      capn = capn ? 2 * capn : 256;
      ks->c = mp_xrealloc(ks->c, sizeof(mp_cellstate) * (size_t)capn);
    }
    mp_cellstate *c = &ks->c[ks->n++];
    c->key = mp_row_key(&r);
    c->status = dup_text(sqlite3_column_text(st, 9));
    if (!c->status) c->status = mp_xstrdup("");
    c->fingerprint = dup_text(sqlite3_column_text(st, 10));
    c->repeats = sqlite3_column_type(st, 11) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 11);
    c->rowid = sqlite3_column_int64(st, 12);
    c->has_fig = sqlite3_column_int(st, 13) != 0;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
    mp_keyset_destroy(ks);
    return -1;
  }
  if (ks->n > 1) qsort(ks->c, (size_t)ks->n, sizeof(mp_cellstate), cmp_state);
  return 0;
}

const mp_cellstate *mp_keyset_find(const mp_keyset *ks, const char *key) {
  int lo = 0, hi = ks->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    int c = strcmp(ks->c[mid].key, key);
    if (c == 0) return &ks->c[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

void mp_keyset_destroy(mp_keyset *ks) {
  for (int i = 0; i < ks->n; i++) {
    free(ks->c[i].key);
    free(ks->c[i].status);
    free(ks->c[i].fingerprint);
  }
  free(ks->c);
  memset(ks, 0, sizeof *ks);
}

/* ------------------------------------------------------------ rows out */

/* SQLite keeps what a hand edit stores, whatever the column's type: 'abc'
 * in live_peak was read as 0, -1 in seed as 2^64 - 1, 1.5 in an integer
 * column as 1.  A value of another kind is refused, as the CSV reader
 * refuses it: 0, or -1 + msg naming the row and the column. */
static int check_sql_kind(int i, sqlite3_stmt *st, int k, long long rowid, const char *source,
                          char *msg, size_t cap) {
  int t = sqlite3_column_type(st, k), type = mp_cols[i].type;
  bool fits = t == SQLITE_NULL || (type == C_TEXT && t == SQLITE_TEXT) ||
              (type == C_REAL && (t == SQLITE_FLOAT || t == SQLITE_INTEGER)) ||
              (type == C_INT && t == SQLITE_INTEGER) ||
              (type == C_U64 && t == SQLITE_INTEGER && sqlite3_column_int64(st, k) >= 0);
  if (fits) return 0;
  const unsigned char *text = sqlite3_column_text(st, k);
  mp_msgf(msg, cap, "%s: results row %lld: column %s holds '%.60s', not %s", source, rowid,
           mp_cols[i].name, text ? (const char *)text : "",
           type == C_TEXT ? "text" : type == C_REAL ? "a number"
           : type == C_INT ? "an integer" : "a non-negative integer");
  return -1;
}

/* The words a status column may hold: a cell's status is DESIGN 1.3's or
 * refused (a size cap refused a stage); a stage's may also be fixed (no
 * order searched).  NULL: the column is not a status. */
const char *mp_col_statuses(int i) {
  const char *name = mp_cols[i].name;
  if (!strcmp(name, "status")) return "optimal, feasible, infeasible, timeout, error, refused";
  if (!strcmp(name, "order_status") || !strcmp(name, "place_status") || !strcmp(name, "remat_status"))
    return "optimal, feasible, infeasible, timeout, error, refused, fixed";
  return NULL;
}

bool mp_col_value_ok(int i, const char *text) {
  const char *words = mp_col_statuses(i);
  size_t n = strlen(text);
  for (const char *w = words; w && *w; w += strspn(w, ", ")) {
    size_t len = strcspn(w, ",");
    if (len == n && !strncmp(w, text, n)) return true;
    w += len;
  }
  return !words;
}

/* A status column holding another word (a hand edit): 0, or -1 + msg
 * naming the row and the column. */
static int check_sql_word(int i, sqlite3_stmt *st, int k, long long rowid, const char *source,
                          char *msg, size_t cap) {
  const unsigned char *text = sqlite3_column_text(st, k);
  if (sqlite3_column_type(st, k) != SQLITE_TEXT || mp_col_value_ok(i, (const char *)text)) return 0;
  mp_msgf(msg, cap, "%s: results row %lld: column %s holds '%.60s', not a status (%s)", source,
           rowid, mp_cols[i].name, (const char *)text, mp_col_statuses(i));
  return -1;
}

static void set_from_sql(mp_row *r, int i, sqlite3_stmt *st, int k) {
  void *p = (char *)r + mp_cols[i].off;
  if (sqlite3_column_type(st, k) == SQLITE_NULL) return; /* stays absent */
  switch (mp_cols[i].type) {
  case C_TEXT: *(char **)p = dup_text(sqlite3_column_text(st, k)); break;
  case C_INT: *(int64_t *)p = sqlite3_column_int64(st, k); break;
  case C_U64: *(uint64_t *)p = (uint64_t)sqlite3_column_int64(st, k); break;
  case C_REAL: *(double *)p = sqlite3_column_double(st, k); break;
  }
}

/* A row with figures but no reduction_vs_given of its own (its cell ran
 * with --no-baseline) takes it from its graph's baseline when that is at
 * the row's alignment: the formula of mp_evaluate (plan.c) on the same
 * integers, rounded as the solve's JSON rounds it, so the very double the
 * cell would have stored. */
static void given_from_graph(mp_row *r) {
  if (!r->has_fig || !isnan(r->reduction_vs_given) || r->given_arena == MP_NA ||
      r->given_arena <= 0 || r->align == MP_NA || r->given_align != r->align)
    return;
  r->reduction_vs_given = mp_round12(1.0 - (double)r->arena / (double)r->given_arena);
  r->given_from_graph = true;
}

void mp_row_finish_loaded(mp_row *r, const char *source) {
  char **key[] = {&r->options, &r->path, &r->order, &r->place, &r->remat, &r->budget_arg,
                  &r->bandwidth_arg};
  for (size_t i = 0; i < sizeof key / sizeof key[0]; i++)
    if (!*key[i]) *key[i] = mp_xstrdup(""); /* older files: "" (no recomputation) */
  r->has_fig = r->arena != MP_NA;
  r->source = mp_xstrdup(source);
  given_from_graph(r);
}

/* The results column a joined field is read from (graphs g). */
static const char *graphs_column(const char *field) {
  return !strcmp(field, "graph_bound") ? "bound" : field;
}

/* How a joined column is read: the bound and the baseline only by rows of
 * the graph version they were computed on (a row's fingerprint begins with
 * its graph's digest; a row without one, or a graphs row without a digest,
 * cannot tell and takes them), so that a graphs row of another version,
 * left by a merge or an interrupted bench, gives no figure rather than a
 * wrong one. */
static void joined_expr(const char *column, bool fingerprints, char *out, size_t cap) {
  if (fingerprints)
    snprintf(out, cap, "CASE WHEN r.fingerprint IS NULL OR g.digest IS NULL OR substr(r.fingerprint, 1, "
             "length(g.digest) + 7) = 'graph=' || g.digest || ' ' THEN g.%s END", column);
  else
    snprintf(out, cap, "g.%s", column);
}

int mp_db_load_rows(sqlite3 *db, const char *source, mp_row **rows, int *n, char *msg, size_t cap) {
  /* the columns this file has (older files lack the later ones) */
  bool graphs = pragma_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'graphs'") > 0;
  bool fingerprints = mp_db_has_column(db, "results", "fingerprint");
  char sql[4096], expr[256];
  int l = snprintf(sql, sizeof sql, "SELECT ");
  int *idx = mp_xmalloc(sizeof(int) * (size_t)mp_ncols), k = 0;
  for (int i = 0; i < mp_ncols; i++) {
    bool joined = mp_cols[i].flags & CF_JOINED;
    const char *name = joined ? graphs_column(mp_cols[i].name) : mp_cols[i].name;
    if (!mp_db_has_column(db, joined ? "graphs" : "results", name)) continue;
    if (joined)
      joined_expr(name, fingerprints, expr, sizeof expr);
    else
      snprintf(expr, sizeof expr, "r.%s", name);
    l += snprintf(sql + l, sizeof sql - (size_t)l, "%s%s", k ? ", " : "", expr);
    idx[k++] = i;
  }
  l += snprintf(sql + l, sizeof sql - (size_t)l, ", r.rowid"); /* column k: names a bad row */
  l += snprintf(sql + l, sizeof sql - (size_t)l, " FROM results r%s ORDER BY r.path, r.order_solver, "
                "r.place_solver, r.seed, r.time_limit, r.options%s",
                graphs ? " LEFT JOIN graphs g ON g.path = r.path" : "",
                mp_db_has_column(db, "results", "remat_solver")
                    ? ", r.remat_solver, r.budget_arg, r.bandwidth_arg"
                    : "");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    mp_msgf(msg, cap, "%s: %s", source, sqlite3_errmsg(db));
    free(idx);
    return -1;
  }
  int rc, bad = 0;
  while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    *rows = mp_xrealloc(*rows, sizeof(mp_row) * (size_t)(*n + 1));
    mp_row *r = &(*rows)[(*n)++];
    mp_row_init(r);
    for (int j = 0; j < k && !bad; j++)
      bad = check_sql_kind(idx[j], st, j, sqlite3_column_int64(st, k), source, msg, cap) ||
            check_sql_word(idx[j], st, j, sqlite3_column_int64(st, k), source, msg, cap);
    for (int j = 0; j < k && !bad; j++) set_from_sql(r, idx[j], st, j);
    mp_row_finish_loaded(r, source);
  }
  sqlite3_finalize(st);
  free(idx);
  if (bad) return -1;
  if (rc != SQLITE_DONE) {
    mp_msgf(msg, cap, "%s: read error (%s)", source, sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

static int load_sqlite(const char *path, mp_row **rows, int *n, char *msg, size_t cap) {
  sqlite3 *db = mp_db_open_checked(path, msg, cap);
  if (!db) return -1;
  int rc = mp_db_load_rows(db, path, rows, n, msg, cap);
  sqlite3_close(db);
  return rc;
}

int mp_rows_load(const char *path, mp_row **rows, int *n, char *msg, size_t cap) {
  size_t l = strlen(path);
  if (l >= 4 && !strcmp(path + l - 4, ".csv")) return mp_csv_rows_load(path, rows, n, msg, cap);
  return load_sqlite(path, rows, n, msg, cap);
}

/* ------------------------------------------------------------ export */

int mp_db_export_csv(const char *path, FILE *out, char *msg, size_t cap) {
  mp_row *rows = NULL;
  int n = 0;
  if (mp_rows_load(path, &rows, &n, msg, cap)) {
    mp_rows_destroy(rows, n);
    return -1;
  }
  mp_csv_rows_write(out, rows, n);
  mp_rows_destroy(rows, n);
  return 0;
}
