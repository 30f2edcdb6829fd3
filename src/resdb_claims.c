/* resdb_claims.c - the claims and graphs tables of a results file.
 *
 * Claims let several bench processes (or shards on one shared file) run
 * one experiment together: a process claims a cell in the file before it
 * runs it, and the row and the end of the claim are one transaction.  A
 * claim left by a process that died (kill -9, a lost node) is stale and is
 * taken over: on the same host when its process is gone (pid, the pid's
 * start time and the boot id tell), elsewhere when its heartbeat is older
 * than MP_CLAIM_STALE_S. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "owner.h"
#include "resdb_schema.h"
#include "util.h"

/* ------------------------------------------------------------ identity */

static double wall_now(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

static const char *col_text(sqlite3_stmt *st, int k) {
  const unsigned char *s = sqlite3_column_text(st, k);
  return s ? (const char *)s : "";
}

/* Is the owner of a claim row (owner, host, pid, pid_start, boot_id,
 * heartbeat) still there? */
static bool claim_live(sqlite3_stmt *st) {
  if (strcmp(col_text(st, 1), mp_owner_me()->host))
    return wall_now() - sqlite3_column_double(st, 5) < MP_CLAIM_STALE_S;
  return !mp_owner_gone((long)sqlite3_column_int64(st, 2), col_text(st, 3), col_text(st, 4));
}

/* ------------------------------------------------------------ claims */

static int64_t current_rowid(sqlite3 *db, const mp_row *c, int *err) {
  sqlite3_stmt *st;
  const char *sql = "SELECT rowid FROM results WHERE path = ? AND order_solver = ? AND "
                    "place_solver = ? AND seed = ? AND time_limit = ? AND options = ? AND "
                    "remat_solver = ? AND budget_arg = ? AND bandwidth_arg = ?";
  *err = sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK;
  if (*err) return 0;
  sqlite3_bind_text(st, 1, c->path, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, c->order, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, c->place, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 4, (sqlite3_int64)c->seed);
  sqlite3_bind_double(st, 5, c->time_limit);
  sqlite3_bind_text(st, 6, c->options ? c->options : "", -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 7, c->remat ? c->remat : "", -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 8, c->budget_arg ? c->budget_arg : "", -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 9, c->bandwidth_arg ? c->bandwidth_arg : "", -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  *err = rc != SQLITE_ROW && rc != SQLITE_DONE;
  sqlite3_finalize(st);
  return id;
}

/* MP_CLAIM_TAKEN when another live process holds the claim on key. */
static int held_elsewhere(sqlite3 *db, const char *key, int *err) {
  sqlite3_stmt *st;
  *err = sqlite3_prepare_v2(db,
                            "SELECT owner, host, pid, pid_start, boot_id, heartbeat FROM claims "
                            "WHERE key = ?",
                            -1, &st, NULL) != SQLITE_OK;
  if (*err) return 0;
  sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st), taken = 0;
  if (rc == SQLITE_ROW) taken = strcmp(col_text(st, 0), mp_owner_me()->id) && claim_live(st);
  *err = rc != SQLITE_ROW && rc != SQLITE_DONE;
  sqlite3_finalize(st);
  return taken;
}

static int put_claim(sqlite3 *db, const char *key) {
  const mp_owner *m = mp_owner_me();
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "INSERT OR REPLACE INTO claims (key, owner, host, pid, pid_start, "
                         "boot_id, heartbeat, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  char when[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, m->id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, m->host, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 4, m->pid);
  sqlite3_bind_text(st, 5, m->start, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 6, m->boot, -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(st, 7, wall_now());
  sqlite3_bind_text(st, 8, when, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  return rc;
}

/* Claim key in one transaction: MP_CLAIM_HANDLED when done() finds the
 * work stored meanwhile by another process, MP_CLAIM_TAKEN when a live
 * process holds the claim, else MP_CLAIMED; -1 on error. */
static int claim_key(mp_db *db, const char *key, bool (*done)(mp_db *, const void *, int *),
                     const void *what, char *msg, size_t cap) {
  char sub[512];
  if (mp_db_exec(db, "BEGIN IMMEDIATE", sub, sizeof sub)) {
    mp_msgf(msg, cap, "claim: %s", sub);
    return -1;
  }
  int err = 0, result = MP_CLAIMED;
  if (done(db, what, &err))
    result = MP_CLAIM_HANDLED;
  else if (!err && held_elsewhere(db, key, &err))
    result = MP_CLAIM_TAKEN;
  else if (!err && put_claim(db, key))
    err = 1;
  if (err || mp_db_exec(db, "COMMIT", sub, sizeof sub)) {
    mp_msgf(msg, cap, "claim: %s", sqlite3_errmsg(db));
    mp_db_exec(db, "ROLLBACK", sub, sizeof sub);
    return -1;
  }
  return result;
}

typedef struct cell_claim {
  const mp_row *cell;
  int64_t expect_rowid;
} cell_claim;

/* A row written since the run began: some other process stored it (a
 * bench, a merge); a row deleted since leaves the cell to run here. */
static bool cell_done(mp_db *db, const void *what, int *err) {
  const cell_claim *c = what;
  int64_t now_id = current_rowid(db, c->cell, err);
  return !*err && now_id != c->expect_rowid && now_id != 0;
}

int mp_db_claim(mp_db *db, const mp_row *cell, int64_t expect_rowid, char *msg, size_t cap) {
  char *key = mp_row_key(cell);
  cell_claim c = {cell, expect_rowid};
  int rc = claim_key(db, key, cell_done, &c, msg, cap);
  free(key);
  return rc;
}

/* A graph's claim: a key no cell's can be (those hold \x1f separators). */
static char *graph_key(const char *path) {
  char *k = mp_xmalloc(strlen(path) + 8);
  sprintf(k, "graph\x1e%s", path);
  return k;
}

typedef struct graph_claim {
  const char *path, *digest, *given_fp;
  bool retry_cut;
} graph_claim;

static bool graph_done(mp_db *db, const void *what, int *err) {
  const graph_claim *g = what;
  (void)err;
  return mp_db_graph_current(db, g->path, g->digest, g->given_fp, g->retry_cut);
}

int mp_db_claim_graph(mp_db *db, const char *path, const char *digest, const char *given_fp,
                      bool retry_cut, char *msg, size_t cap) {
  char *key = graph_key(path);
  graph_claim g = {path, digest, given_fp, retry_cut};
  int rc = claim_key(db, key, graph_done, &g, msg, cap);
  free(key);
  return rc;
}

int mp_db_drop_claim(sqlite3 *db, const char *key, char *msg, size_t cap) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "DELETE FROM claims WHERE key = ? AND owner = ?", -1, &st, NULL) !=
      SQLITE_OK) {
    mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, mp_owner_me()->id, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  if (rc) mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

static int owner_stmt(mp_db *db, const char *sql, bool with_time, char *msg, size_t cap) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
    return -1;
  }
  int k = 1;
  if (with_time) sqlite3_bind_double(st, k++, wall_now());
  sqlite3_bind_text(st, k, mp_owner_me()->id, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  if (rc) mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

int mp_db_heartbeat(mp_db *db, char *msg, size_t cap) {
  return owner_stmt(db, "UPDATE claims SET heartbeat = ? WHERE owner = ?", true, msg, cap);
}

/* On a full disk the delete may not fit in the WAL: a checkpoint that
 * moves the WAL into the file (whose pages exist) and truncates it makes
 * room for it. */
int mp_db_unclaim_all(mp_db *db, char *msg, size_t cap) {
  static const char sql[] = "DELETE FROM claims WHERE owner = ?";
  if (!owner_stmt(db, sql, false, msg, cap)) return 0;
  sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
  return owner_stmt(db, sql, false, msg, cap);
}

/* ------------------------------------------------------------ graphs */

const char *const mp_graphs_later[MP_GRAPHS_LATER_COLS][2] = {
    {"given_arena", "INTEGER"}, {"given_align", "INTEGER"}, {"given_fingerprint", "TEXT"}};

bool mp_db_graph_current(mp_db *db, const char *path, const char *digest, const char *given_fp,
                         bool retry_cut) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT digest, given_fingerprint, given_arena IS NOT NULL FROM graphs "
                         "WHERE path = ? AND bound IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
    return false;
  sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
  bool current = false;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *d = (const char *)sqlite3_column_text(st, 0);
    const char *fp = (const char *)sqlite3_column_text(st, 1);
    bool has_given = sqlite3_column_int(st, 2) != 0;
    current = d && fp && !strcmp(d, digest) && !strcmp(fp, given_fp) && (has_given || !retry_cut);
  }
  sqlite3_finalize(st);
  return current;
}

static void bind_opt_text(sqlite3_stmt *st, int k, const char *s) {
  if (s)
    sqlite3_bind_text(st, k, s, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(st, k);
}

static void bind_opt_int(sqlite3_stmt *st, int k, int64_t v) {
  if (v == MP_NA)
    sqlite3_bind_null(st, k);
  else
    sqlite3_bind_int64(st, k, v);
}

static int graph_insert(mp_db *db, const mp_graphrow *g, char *msg, size_t cap) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "INSERT OR REPLACE INTO graphs (path, graph, nodes, buffers, digest, "
                         "bound, bound_kind, message, computed_at, version, given_arena, "
                         "given_align, given_fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                         "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?, ?, ?, ?)",
                         -1, &st, NULL) != SQLITE_OK) {
    mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_text(st, 1, g->path, -1, SQLITE_TRANSIENT);
  bind_opt_text(st, 2, g->graph);
  bind_opt_int(st, 3, g->nodes);
  bind_opt_int(st, 4, g->buffers);
  bind_opt_text(st, 5, g->digest);
  bind_opt_int(st, 6, g->bound);
  bind_opt_text(st, 7, g->bound_kind);
  bind_opt_text(st, 8, g->message);
  bind_opt_text(st, 9, mp_version_string());
  bind_opt_int(st, 10, g->given_arena);
  bind_opt_int(st, 11, g->given_align);
  bind_opt_text(st, 12, g->given_fingerprint);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  if (rc) mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

int mp_db_graph_store(mp_db *db, const mp_graphrow *g, char *msg, size_t cap) {
  char sub[512], *key = graph_key(g->path);
  int rc = mp_db_exec(db, "BEGIN IMMEDIATE", msg, cap) || graph_insert(db, g, msg, cap) ||
                   mp_db_drop_claim(db, key, msg, cap) || mp_db_exec(db, "COMMIT", msg, cap)
               ? -1
               : 0;
  if (rc && !sqlite3_get_autocommit(db)) mp_db_exec(db, "ROLLBACK", sub, sizeof sub);
  free(key);
  return rc;
}

void mp_graphrow_destroy(mp_graphrow *g) {
  free(g->path);
  free(g->graph);
  free(g->digest);
  free(g->bound_kind);
  free(g->message);
  free(g->given_fingerprint);
  memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------ merge */

/* One path has one graphs row, and the rows of results reach it by path
 * alone, so a merge meeting the same path twice keeps one row, ranked:
 * first the row of the graph version dst's results were run on (a result's
 * fingerprint names its graph's digest: a baseline of another version would
 * give those rows wrong figures), then a row with a baseline over one whose
 * baseline was cut or failed, then a baseline by this build's solvers (the
 * one a bench would keep) over another build's.  On a tie the row met first
 * stays, so merging a file again changes nothing. */
static int graph_rank(sqlite3 *dst, const char *path, const char *digest, bool has_given,
                      const char *given_fp, const char *this_fp) {
  sqlite3_stmt *st;
  int serves = 0;
  if (digest &&
      sqlite3_prepare_v2(dst, "SELECT EXISTS (SELECT 1 FROM results WHERE path = ?1 AND "
                         "substr(fingerprint, 1, length(?2) + 7) = 'graph=' || ?2 || ' ')",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, digest, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) serves = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
  }
  bool this_build = has_given && given_fp && !strcmp(given_fp, this_fp);
  return 4 * (serves != 0) + 2 * has_given + this_build;
}

/* The rank of dst's row for path; -1 when dst has none. */
static int kept_rank(sqlite3 *dst, const char *path, const char *this_fp) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(dst, "SELECT digest, given_arena IS NOT NULL, given_fingerprint FROM "
                         "graphs WHERE path = ?", -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
  int rank = -1;
  if (sqlite3_step(st) == SQLITE_ROW)
    rank = graph_rank(dst, path, (const char *)sqlite3_column_text(st, 0),
                      sqlite3_column_int(st, 1) != 0, (const char *)sqlite3_column_text(st, 2),
                      this_fp);
  sqlite3_finalize(st);
  return rank;
}

/* Does src's current row (columns: path, ..., digest at 4, given_arena at
 * k_arena and given_fingerprint at k_fp, -1 when src lacks them) go into
 * dst, in place of dst's row for its path if there is one? */
static bool graph_wins(sqlite3 *dst, sqlite3_stmt *in, int k_arena, int k_fp, const char *this_fp) {
  const char *path = (const char *)sqlite3_column_text(in, 0);
  if (!path) return false;
  int kept = kept_rank(dst, path, this_fp);
  if (kept < 0) return true;
  bool has_given = k_arena >= 0 && sqlite3_column_type(in, k_arena) != SQLITE_NULL;
  const char *fp = k_fp >= 0 ? (const char *)sqlite3_column_text(in, k_fp) : NULL;
  return graph_rank(dst, path, (const char *)sqlite3_column_text(in, 4), has_given, fp, this_fp) >
         kept;
}

/* The graphs of src into dst (merge; after src's results), with the later
 * columns src has: a path dst lacks, or a better row for one it has. */
int mp_db_copy_graphs(sqlite3 *src, sqlite3 *dst, char *msg, size_t cap) {
  char cols[512] = "path, graph, nodes, buffers, digest, bound, bound_kind, message, "
                   "computed_at, version";
  int n = 10, k_arena = -1, k_fp = -1;
  for (int i = 0; i < MP_GRAPHS_LATER_COLS; i++)
    if (mp_db_has_column(src, "graphs", mp_graphs_later[i][0])) {
      size_t l = strlen(cols);
      snprintf(cols + l, sizeof cols - l, ", %s", mp_graphs_later[i][0]);
      if (!strcmp(mp_graphs_later[i][0], "given_arena")) k_arena = n;
      if (!strcmp(mp_graphs_later[i][0], "given_fingerprint")) k_fp = n;
      n++;
    }
  sqlite3_stmt *in, *out;
  char sql[1024];
  snprintf(sql, sizeof sql, "SELECT %s FROM graphs", cols);
  if (sqlite3_prepare_v2(src, sql, -1, &in, NULL) != SQLITE_OK) return 0; /* an older file */
  int l = snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO graphs (%s) VALUES (?", cols);
  for (int k = 1; k < n; k++) l += snprintf(sql + l, sizeof sql - (size_t)l, ",?");
  snprintf(sql + l, sizeof sql - (size_t)l, ")");
  if (sqlite3_prepare_v2(dst, sql, -1, &out, NULL) != SQLITE_OK) {
    mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(dst));
    sqlite3_finalize(in);
    return -1;
  }
  char *this_fp = mp_baseline_fingerprint();
  int rc = 0;
  while (!rc && sqlite3_step(in) == SQLITE_ROW) {
    if (!graph_wins(dst, in, k_arena, k_fp, this_fp)) continue;
    sqlite3_reset(out);
    for (int k = 0; k < n; k++) sqlite3_bind_value(out, k + 1, sqlite3_column_value(in, k));
    if (sqlite3_step(out) != SQLITE_DONE) {
      mp_msgf(msg, cap, "sqlite: %s", sqlite3_errmsg(dst));
      rc = -1;
    }
  }
  free(this_fp);
  sqlite3_finalize(in);
  sqlite3_finalize(out);
  return rc;
}
