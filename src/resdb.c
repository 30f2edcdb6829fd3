/* resdb.c - the results store: one SQLite table, one row per finished cell.
 *
 * Safety: WAL journal, each row inserted in its own transaction (a single
 * INSERT statement), the cell key UNIQUE.  A kill at any moment leaves the
 * file at the last committed row: SQLite's journal guarantees no half row.
 * Only the bench's parent process writes; parallel shards write their own
 * files and `memplan merge` combines them (INSERT OR IGNORE on the key). */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util.h"

enum { C_TEXT, C_INT, C_U64, C_REAL };

typedef struct col {
  const char *name;
  int type;
  size_t off;
  bool fig;     /* a figure: NULL unless the row has a plan */
  bool key;     /* part of the cell key (NOT NULL) */
} col;

#define F(n, t, field, fig, key) {n, t, offsetof(mp_row, field), fig, key}
static const col cols[] = {
    F("path", C_TEXT, path, 0, 1),
    F("graph", C_TEXT, graph, 0, 0),
    F("nodes", C_INT, nodes, 0, 0),
    F("buffers", C_INT, buffers, 0, 0),
    F("align", C_INT, align, 0, 0),
    F("order_solver", C_TEXT, order, 0, 1),
    F("place_solver", C_TEXT, place, 0, 1),
    F("seed", C_U64, seed, 0, 1),
    F("time_limit", C_REAL, time_limit, 0, 1),
    F("options", C_TEXT, options, 0, 1),
    F("status", C_TEXT, status, 0, 0),
    F("live_peak", C_INT, live_peak, 1, 0),
    F("arena", C_INT, arena, 1, 0),
    F("fragmentation", C_REAL, fragmentation, 1, 0),
    F("reuse_ratio", C_REAL, reuse_ratio, 1, 0),
    F("sum_sizes", C_INT, sum_sizes, 1, 0),
    F("lower_bound", C_INT, lower_bound, 1, 0),
    F("profile_std", C_REAL, profile_std, 1, 0),
    F("reduction_vs_given", C_REAL, reduction_vs_given, 1, 0),
    F("reduction_vs_noreuse", C_REAL, reduction_vs_noreuse, 1, 0),
    F("order_ms", C_REAL, order_ms, 0, 0),
    F("place_ms", C_REAL, place_ms, 0, 0),
    F("plan_ms", C_REAL, plan_ms, 0, 0),
    F("order_cpu_ms", C_REAL, order_cpu_ms, 0, 0),
    F("place_cpu_ms", C_REAL, place_cpu_ms, 0, 0),
    F("wall_s", C_REAL, wall_s, 0, 0),
    F("message", C_TEXT, message, 0, 0),
    F("version", C_TEXT, version, 0, 0),
    F("machine", C_TEXT, machine, 0, 0),
    F("cpu", C_TEXT, cpu, 0, 0),
    F("started_at", C_TEXT, started_at, 0, 0),
    F("experiment", C_TEXT, experiment, 0, 0),
};
#undef F
#define NCOLS ((int)(sizeof cols / sizeof cols[0]))

static const char key_cols[] = "path, order_solver, place_solver, seed, time_limit, options";

static void col_list(char *out, size_t cap, const char *prefix) {
  out[0] = 0;
  for (int i = 0; i < NCOLS; i++) {
    size_t l = strlen(out);
    snprintf(out + l, cap - l, "%s%s%s", i ? ", " : "", prefix, cols[i].name);
  }
}

static const char *sql_type(int t) {
  return t == C_TEXT ? "TEXT" : t == C_REAL ? "REAL" : "INTEGER";
}

void mp_row_free(mp_row *r) {
  for (int i = 0; i < NCOLS; i++)
    if (cols[i].type == C_TEXT) free(*(char **)((char *)r + cols[i].off));
  memset(r, 0, sizeof *r);
}

void mp_rows_free(mp_row *rows, int n) {
  for (int i = 0; i < n; i++) mp_row_free(&rows[i]);
  free(rows);
}

static int exec(sqlite3 *db, const char *sql, char *msg, size_t cap) {
  char *e = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK) {
    snprintf(msg, cap, "sqlite: %s", e ? e : sqlite3_errmsg(db));
    sqlite3_free(e);
    return -1;
  }
  return 0;
}

mp_db *mp_db_open(const char *path, char *msg, size_t cap) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    snprintf(msg, cap, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 30000);
  char sql[4096];
  int l = snprintf(sql, sizeof sql, "CREATE TABLE IF NOT EXISTS results (");
  for (int i = 0; i < NCOLS; i++)
    l += snprintf(sql + l, sizeof sql - (size_t)l, "%s %s%s, ", cols[i].name,
                  sql_type(cols[i].type), cols[i].key ? " NOT NULL" : "");
  snprintf(sql + l, sizeof sql - (size_t)l, "UNIQUE (%s));", key_cols);
  char sub[512];
  if (exec(db, "PRAGMA journal_mode=WAL;", sub, sizeof sub) ||
      exec(db, "PRAGMA synchronous=NORMAL;", sub, sizeof sub) || exec(db, sql, sub, sizeof sub) ||
      exec(db, "CREATE INDEX IF NOT EXISTS results_graph ON results(graph);", sub, sizeof sub)) {
    snprintf(msg, cap, "%s: %s", path, sub);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

void mp_db_close(mp_db *db) { sqlite3_close(db); }

int mp_db_insert(mp_db *db, const mp_row *r, bool replace, char *msg, size_t cap) {
  char names[2048], sql[4096];
  col_list(names, sizeof names, "");
  int l = snprintf(sql, sizeof sql, "INSERT OR %s INTO results (%s) VALUES (",
                   replace ? "REPLACE" : "IGNORE", names);
  for (int i = 0; i < NCOLS; i++) l += snprintf(sql + l, sizeof sql - (size_t)l, "%s?", i ? "," : "");
  snprintf(sql + l, sizeof sql - (size_t)l, ")");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    snprintf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
    return -1;
  }
  for (int i = 0; i < NCOLS; i++) {
    const void *p = (const char *)r + cols[i].off;
    int k = i + 1;
    if (cols[i].fig && !r->has_fig) {
      sqlite3_bind_null(st, k);
      continue;
    }
    switch (cols[i].type) {
    case C_TEXT: {
      const char *s = *(char *const *)p;
      if (s || cols[i].key)
        sqlite3_bind_text(st, k, s ? s : "", -1, SQLITE_TRANSIENT);
      else
        sqlite3_bind_null(st, k);
      break;
    }
    case C_INT: sqlite3_bind_int64(st, k, *(const int64_t *)p); break;
    case C_U64: sqlite3_bind_int64(st, k, (sqlite3_int64) * (const uint64_t *)p); break;
    case C_REAL: sqlite3_bind_double(st, k, *(const double *)p); break;
    }
  }
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    snprintf(msg, cap, "sqlite insert: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

static char *dup_text(const unsigned char *s) {
  if (!s) return NULL;
  size_t n = strlen((const char *)s) + 1;
  char *d = mp_xmalloc(n);
  memcpy(d, s, n);
  return d;
}

typedef struct kv {
  char *key, *status;
} kv;

static int cmp_kv(const void *a, const void *b) {
  return strcmp(((const kv *)a)->key, ((const kv *)b)->key);
}

int mp_db_keys(mp_db *db, mp_keyset *ks, char *msg, size_t cap) {
  memset(ks, 0, sizeof *ks);
  sqlite3_stmt *st;
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT %s, status FROM results", key_cols);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    snprintf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
    return -1;
  }
  kv *a = NULL;
  int n = 0, capn = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    mp_row r;
    memset(&r, 0, sizeof r);
    r.path = (char *)sqlite3_column_text(st, 0);
    r.order = (char *)sqlite3_column_text(st, 1);
    r.place = (char *)sqlite3_column_text(st, 2);
    r.seed = (uint64_t)sqlite3_column_int64(st, 3);
    r.time_limit = sqlite3_column_double(st, 4);
    r.options = (char *)sqlite3_column_text(st, 5);
    if (n == capn) {
      capn = capn ? 2 * capn : 256;
      a = mp_xrealloc(a, sizeof(kv) * (size_t)capn);
    }
    a[n].key = mp_row_key(&r);
    a[n].status = dup_text(sqlite3_column_text(st, 6));
    if (!a[n].status) a[n].status = dup_text((const unsigned char *)"");
    n++;
  }
  sqlite3_finalize(st);
  if (n > 1) qsort(a, (size_t)n, sizeof(kv), cmp_kv);
  ks->n = n;
  ks->keys = mp_xmalloc(sizeof(char *) * (size_t)(n ? n : 1));
  ks->status = mp_xmalloc(sizeof(char *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    ks->keys[i] = a[i].key;
    ks->status[i] = a[i].status;
  }
  free(a);
  return 0;
}

const char *mp_keyset_find(const mp_keyset *ks, const char *key) {
  int lo = 0, hi = ks->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    int c = strcmp(ks->keys[mid], key);
    if (c == 0) return ks->status[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

void mp_keyset_free(mp_keyset *ks) {
  for (int i = 0; i < ks->n; i++) {
    free(ks->keys[i]);
    free(ks->status[i]);
  }
  free(ks->keys);
  free(ks->status);
  memset(ks, 0, sizeof *ks);
}

/* ------------------------------------------------------------ load rows */

static bool row_has_fig(const mp_row *r) {
  return r->status && (!strcmp(r->status, "optimal") || !strcmp(r->status, "feasible") ||
                       !strcmp(r->status, "timeout"));
}

static void set_field(mp_row *r, int i, const char *text) {
  void *p = (char *)r + cols[i].off;
  switch (cols[i].type) {
  case C_TEXT: *(char **)p = dup_text((const unsigned char *)text); break;
  case C_INT: *(int64_t *)p = strtoll(text, NULL, 10); break;
  case C_U64: *(uint64_t *)p = strtoull(text, NULL, 10); break;
  case C_REAL: *(double *)p = strtod(text, NULL); break;
  }
}

static int load_sqlite(const char *path, mp_row **rows, int *n, char *msg, size_t cap) {
  sqlite3 *db;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    snprintf(msg, cap, "%s: %s", path, sqlite3_errmsg(db));
    sqlite3_close(db);
    return -1;
  }
  sqlite3_busy_timeout(db, 30000);
  char names[2048], sql[2400];
  col_list(names, sizeof names, "");
  snprintf(sql, sizeof sql, "SELECT %s FROM results ORDER BY %s", names, key_cols);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    snprintf(msg, cap, "%s: not a memplan results file (%s)", path, sqlite3_errmsg(db));
    sqlite3_close(db);
    return -1;
  }
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    *rows = mp_xrealloc(*rows, sizeof(mp_row) * (size_t)(*n + 1));
    mp_row *r = &(*rows)[(*n)++];
    memset(r, 0, sizeof *r);
    for (int i = 0; i < NCOLS; i++) {
      if (sqlite3_column_type(st, i) == SQLITE_NULL) continue;
      void *p = (char *)r + cols[i].off;
      switch (cols[i].type) {
      case C_TEXT: *(char **)p = dup_text(sqlite3_column_text(st, i)); break;
      case C_INT: *(int64_t *)p = sqlite3_column_int64(st, i); break;
      case C_U64: *(uint64_t *)p = (uint64_t)sqlite3_column_int64(st, i); break;
      case C_REAL: *(double *)p = sqlite3_column_double(st, i); break;
      }
    }
    r->has_fig = row_has_fig(r) && sqlite3_column_type(st, 12) != SQLITE_NULL;
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  if (rc != SQLITE_DONE) {
    snprintf(msg, cap, "%s: read error", path);
    return -1;
  }
  return 0;
}

/* One CSV record (RFC 4180 quoting); returns the number of fields, -1 at EOF. */
static int csv_record(FILE *f, char ***fields, int *capf, char **buf, size_t *capb) {
  int c = fgetc(f);
  if (c == EOF) return -1;
  size_t len = 0;
  int nf = 0;
  size_t starts[256];
  bool quoted = false;
  starts[nf++] = 0;
  for (;; c = fgetc(f)) {
    if (len + 2 >= *capb) {
      *capb = *capb ? 2 * *capb : 1024;
      *buf = mp_xrealloc(*buf, *capb);
    }
    if (c == EOF) break;
    if (quoted) {
      if (c == '"') {
        int d = fgetc(f);
        if (d == '"') {
          (*buf)[len++] = '"';
        } else {
          quoted = false;
          if (d != EOF) ungetc(d, f);
        }
      } else {
        (*buf)[len++] = (char)c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      (*buf)[len++] = 0;
      if (nf < 256) starts[nf++] = len;
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      (*buf)[len++] = (char)c;
    }
  }
  (*buf)[len] = 0;
  if (nf > *capf) {
    *capf = nf;
    *fields = mp_xrealloc(*fields, sizeof(char *) * (size_t)nf);
  }
  for (int i = 0; i < nf; i++) (*fields)[i] = *buf + starts[i];
  return nf;
}

static int load_csv(const char *path, mp_row **rows, int *n, char *msg, size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(msg, cap, "%s: cannot open", path);
    return -1;
  }
  char **fld = NULL, *buf = NULL;
  int capf = 0;
  size_t capb = 0;
  int map[256];
  int nh = csv_record(f, &fld, &capf, &buf, &capb);
  int rc = 0;
  if (nh <= 0) {
    snprintf(msg, cap, "%s: empty", path);
    rc = -1;
  }
  bool seen_status = false;
  for (int i = 0; i < nh && i < 256; i++) {
    map[i] = -1;
    for (int k = 0; k < NCOLS; k++)
      if (!strcmp(fld[i], cols[k].name)) map[i] = k;
    if (!strcmp(fld[i], "status")) seen_status = true;
  }
  if (!rc && !seen_status) {
    snprintf(msg, cap, "%s: not a memplan results CSV (no status column)", path);
    rc = -1;
  }
  int nf;
  while (!rc && (nf = csv_record(f, &fld, &capf, &buf, &capb)) >= 0) {
    if (nf == 1 && !fld[0][0]) continue;
    *rows = mp_xrealloc(*rows, sizeof(mp_row) * (size_t)(*n + 1));
    mp_row *r = &(*rows)[(*n)++];
    memset(r, 0, sizeof *r);
    bool arena = false;
    for (int i = 0; i < nf && i < nh && i < 256; i++) {
      if (map[i] < 0 || (!fld[i][0] && cols[map[i]].type != C_TEXT)) continue;
      if (!fld[i][0] && !cols[map[i]].key && cols[map[i]].type == C_TEXT) continue;
      set_field(r, map[i], fld[i]);
      if (!strcmp(cols[map[i]].name, "arena")) arena = true;
    }
    if (!r->options) r->options = dup_text((const unsigned char *)"");
    r->has_fig = row_has_fig(r) && arena;
  }
  free(fld);
  free(buf);
  fclose(f);
  return rc;
}

int mp_rows_load(const char *path, mp_row **rows, int *n, char *msg, size_t cap) {
  size_t l = strlen(path);
  if (l >= 4 && !strcmp(path + l - 4, ".csv")) return load_csv(path, rows, n, msg, cap);
  return load_sqlite(path, rows, n, msg, cap);
}

/* ------------------------------------------------------------ merge, export */

int mp_db_merge(const char *out, const char *const *in, int n_in, int *added, char *msg,
                size_t cap) {
  *added = 0;
  sqlite3 *db = mp_db_open(out, msg, cap);
  if (!db) return -1;
  char names[2048];
  col_list(names, sizeof names, "");
  int rc = 0;
  for (int i = 0; i < n_in && !rc; i++) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS src", -1, &st, NULL) != SQLITE_OK) {
      snprintf(msg, cap, "sqlite: %s", sqlite3_errmsg(db));
      rc = -1;
      break;
    }
    sqlite3_bind_text(st, 1, in[i], -1, SQLITE_TRANSIENT);
    int s = sqlite3_step(st);
    sqlite3_finalize(st);
    if (s != SQLITE_DONE) {
      snprintf(msg, cap, "%s: %s", in[i], sqlite3_errmsg(db));
      rc = -1;
      break;
    }
    char *sql = sqlite3_mprintf("INSERT OR IGNORE INTO main.results (%s) SELECT %s FROM src.results",
                                names, names);
    char sub[600];
    if (exec(db, "BEGIN IMMEDIATE", sub, sizeof sub) || exec(db, sql, sub, sizeof sub)) {
      snprintf(msg, cap, "%s: %s", in[i], sub);
      exec(db, "ROLLBACK", sub, sizeof sub);
      rc = -1;
    } else {
      *added += sqlite3_changes(db);
      if (exec(db, "COMMIT", sub, sizeof sub)) {
        snprintf(msg, cap, "%s: %s", out, sub);
        rc = -1;
      }
    }
    sqlite3_free(sql);
    exec(db, "DETACH DATABASE src", msg, cap);
  }
  sqlite3_close(db);
  return rc;
}

static void csv_text(FILE *out, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

int mp_db_export_csv(const char *path, FILE *out, char *msg, size_t cap) {
  mp_row *rows = NULL;
  int n = 0;
  if (mp_rows_load(path, &rows, &n, msg, cap)) {
    mp_rows_free(rows, n);
    return -1;
  }
  for (int i = 0; i < NCOLS; i++) fprintf(out, "%s%s", i ? "," : "", cols[i].name);
  fputc('\n', out);
  for (int r = 0; r < n; r++) {
    const mp_row *row = &rows[r];
    for (int i = 0; i < NCOLS; i++) {
      if (i) fputc(',', out);
      if (cols[i].fig && !row->has_fig) continue;
      const void *p = (const char *)row + cols[i].off;
      switch (cols[i].type) {
      case C_TEXT:
        if (*(char *const *)p) csv_text(out, *(char *const *)p);
        break;
      case C_INT: fprintf(out, "%lld", (long long)*(const int64_t *)p); break;
      case C_U64: fprintf(out, "%llu", (unsigned long long)*(const uint64_t *)p); break;
      case C_REAL: fprintf(out, "%.12g", *(const double *)p); break;
      }
    }
    fputc('\n', out);
  }
  mp_rows_free(rows, n);
  return 0;
}
