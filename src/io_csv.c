/* io_csv.c - MiniMalloc's fixed-lifetime CSV (DESIGN 1.4): read, and write
 * back with an offset column.  Read exactly or refused: blanks around a
 * field, CRLF line ends, blank lines and a UTF-8 byte order mark are
 * accepted; a line longer than 1 MiB, a NUL byte, a duplicate id or column,
 * and a value outside the limits of util.h are errors naming the file, the
 * line and the field. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "io_util.h"
#include "util.h"

#define MAX_LINE (1 << 20)
#define MAX_COLS 64

/* One line without its end, in *buf (grown up to MAX_LINE).  1 for a line,
 * 0 at the end of the file, -1 when too long, -2 with a NUL byte. */
static int read_line(FILE *fp, char **buf, size_t *cap) {
  size_t n = 0;
  int c;
  while ((c = getc_unlocked(fp)) != EOF && c != '\n') { /* one thread reads fp */
    if (c == 0) return -2;
    if (n + 2 > *cap) {
      if (*cap >= MAX_LINE) return -1;
      *cap = *cap ? 2 * *cap : 256;
      *buf = mp_xrealloc(*buf, *cap);
    }
    (*buf)[n++] = (char)c;
  }
  if (c == EOF && n == 0) return 0;
  if (!*buf) *buf = mp_xmalloc(*cap = 256);
  (*buf)[n] = 0;
  return 1;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
  return s;
}

/* Split in place on commas, each field trimmed; returns the field count
 * (fields beyond cap are counted, not stored). */
static int split(char *line, char **f, int cap) {
  int n = 0;
  for (char *s = line;;) {
    char *c = strchr(s, ',');
    if (c) *c = 0;
    if (n < cap) f[n] = trim(s);
    n++;
    if (!c) break;
    s = c + 1;
  }
  return n;
}

enum { C_ID, C_LO, C_HI, C_SIZE, C_ALIGN, C_OFFSET, C_N };
static const char *const cname[] = {"id", "lower", "upper", "size", "alignment", "offset"};

typedef struct csv_state {
  const char *path;
  int lineno, ncols, col[C_N], room;
  char name[C_N][16]; /* each column's name as the header writes it */
  bool end_inclusive;
  int64_t total;     /* sum of sizes so far */
  /* ids seen: open addressing over the problem's ids */
  size_t id_cap;
  int *id_at;        /* item index + 1, 0 for empty */
  bool hashed;       /* id_at holds every id so far (else all were "0", "1", ..) */
} csv_state;

static int header(csv_state *st, char **fields, int nf, mp_problem *p, mp_error *err) {
  st->ncols = nf;
  if (nf > MAX_COLS) return mp_errorf(err, "%s:%d: more than %d columns", st->path, st->lineno, MAX_COLS);
  for (int i = 0; i < nf; i++) {
    char *h = fields[i];
    if (strchr(h, '\r')) /* the whole file read as one line */
      return mp_errorf(err, "%s:%d: a carriage return inside the header: lines must end in LF or CRLF",
                       st->path, st->lineno);
    for (char *c = h; *c; c++) *c = (char)tolower((unsigned char)*c);
    int c = -1;
    if (!strcmp(h, "id") || !strcmp(h, "buffer") || !strcmp(h, "buffer_id")) c = C_ID;
    else if (!strcmp(h, "lower") || !strcmp(h, "start")) c = C_LO;
    else if (!strcmp(h, "upper") || !strcmp(h, "end")) c = C_HI;
    else if (!strcmp(h, "size")) c = C_SIZE;
    else if (!strcmp(h, "alignment")) c = C_ALIGN;
    else if (!strcmp(h, "offset")) c = C_OFFSET;
    if (c < 0) continue; /* an unknown column: ignored */
    if (st->col[c] >= 0)
      return mp_errorf(err, "%s:%d: two columns give '%s'", st->path, st->lineno, cname[c]);
    st->col[c] = i;
    snprintf(st->name[c], sizeof st->name[c], "%s", h);
    if (!strcmp(h, "end")) st->end_inclusive = true;
  }
  for (int c = 0; c < 4; c++)
    if (st->col[c] < 0)
      return mp_errorf(err, "%s:%d: missing column '%s' in the header", st->path, st->lineno, cname[c]);
  p->has_alignment_col = st->col[C_ALIGN] >= 0;
  return 0;
}

/* A value in [lo, hi], else an error naming the line and the field. */
static int field(const csv_state *st, const char *f, int c, int64_t lo, int64_t hi, int64_t *out,
                 mp_error *err) {
  int rc = mp_parse_int64(f, out, NULL);
  if (rc) {
    if (rc == MP_PARSE_RANGE) /* an integer all the same: say which range */
      return mp_errorf(err, "%s:%d: field '%s' is %s, outside [%lld, %lld]", st->path, st->lineno,
                       st->name[c], f, (long long)lo, (long long)hi);
    return mp_errorf(err, "%s:%d: field '%s' is not an integer: '%s'", st->path, st->lineno,
                     st->name[c], f);
  }
  if (*out < 0 && lo >= 0)
    return mp_errorf(err, "%s:%d: negative %s %s", st->path, st->lineno, st->name[c], f);
  if (*out < lo || *out > hi)
    return mp_errorf(err, "%s:%d: field '%s' is %s, outside [%lld, %lld]", st->path, st->lineno,
                     st->name[c], f, (long long)lo, (long long)hi);
  return 0;
}

/* Whether id is the decimal of i, as MiniMalloc's files write them ("0",
 * "1", .., no sign, no leading zero). */
static bool is_index(const char *id, int i) {
  char buf[16];
  snprintf(buf, sizeof buf, "%d", i);
  return !strcmp(id, buf); /* not memcmp: id may be shorter than buf */
}

/* Record p->ids[i]; an error when the id was seen before.  While every id
 * is its row's index, none can repeat and no table is kept; the first
 * other id builds it from those before it. */
static int add_id(csv_state *st, mp_problem *p, int i, int *lines, mp_error *err) {
  if (!st->hashed) {
    if (is_index(p->ids[i], i)) return 0;
    st->hashed = true;
    st->id_cap = 0;
  }
  if (2 * (size_t)(i + 1) > st->id_cap) { /* grow and re-insert */
    free(st->id_at);
    st->id_cap = st->id_cap ? 2 * st->id_cap : 1024;
    while (2 * (size_t)(i + 1) > st->id_cap) st->id_cap *= 2;
    st->id_at = mp_xcalloc(st->id_cap, sizeof(int));
    for (int j = 0; j < i; j++) {
      size_t h = mp_str_hash(p->ids[j]) & (st->id_cap - 1);
      while (st->id_at[h]) h = (h + 1) & (st->id_cap - 1);
      st->id_at[h] = j + 1;
    }
  }
  size_t h = mp_str_hash(p->ids[i]) & (st->id_cap - 1);
  for (; st->id_at[h]; h = (h + 1) & (st->id_cap - 1))
    if (!strcmp(p->ids[st->id_at[h] - 1], p->ids[i]))
      return mp_errorf(err, "%s:%d: duplicate id '%s' (first on line %d)", st->path, st->lineno,
                       p->ids[i], lines[st->id_at[h] - 1]);
  st->id_at[h] = i + 1;
  return 0;
}

/* Does a field hold a double quote (a quoted comma splits it in two)?
 * Only the first MAX_COLS fields of a line are kept (split). */
static bool any_quote(char **fields, int nf) {
  for (int k = 0; k < nf && k < MAX_COLS; k++)
    if (strchr(fields[k], '"')) return true;
  return false;
}

static int row(csv_state *st, char **fields, int nf, mp_problem *p, int **lines, mp_error *err) {
  if (nf != st->ncols)
    return mp_errorf(err, "%s:%d: %d fields, the header has %d%s", st->path, st->lineno, nf,
                     st->ncols,
                     any_quote(fields, nf) ? " (quoted fields are not read: MiniMalloc's CSV has none)" : "");
  if (p->n == st->room) {
    if (st->room >= MP_MAX_NODES) return mp_errorf(err, "%s: more than 2^28 rows", st->path);
    st->room = st->room ? 2 * st->room : 256;
    p->items = mp_xrealloc(p->items, sizeof(mp_item) * (size_t)st->room);
    p->ids = mp_xrealloc(p->ids, sizeof(char *) * (size_t)st->room);
    *lines = mp_xrealloc(*lines, sizeof(int) * (size_t)st->room);
  }
  int64_t v[C_N] = {0, 0, 0, 0, 1, -1};
  int64_t hi_max = st->end_inclusive ? MP_MAX_TIME - 1 : MP_MAX_TIME;
  const int64_t lo[C_N] = {0, 0, 0, 0, 1, -1}, hi[C_N] = {0, MP_MAX_TIME, hi_max, MP_MAX_SIZE,
                                                          MP_MAX_ALIGN, MP_MAX_OFFSET};
  for (int c = C_LO; c < C_N; c++) {
    if (st->col[c] < 0) continue;
    const char *f = fields[st->col[c]];
    if ((c == C_OFFSET || c == C_ALIGN) && !*f) continue; /* empty: not set */
    if (field(st, f, c, lo[c], hi[c], &v[c], err)) return -1;
  }
  if (st->end_inclusive) v[C_HI] += 1; /* [start, end] is [start, end + 1) */
  if (v[C_LO] > v[C_HI])
    return mp_errorf(err, "%s:%d: lower %lld > upper %lld", st->path, st->lineno,
                     (long long)v[C_LO], (long long)v[C_HI]);
  if (!mp_add_ok(st->total, v[C_SIZE], &st->total) || st->total > MP_MAX_TOTAL)
    return mp_errorf(err, "%s:%d: field 'size': the sizes sum beyond 2^60 bytes (the figures "
                     "could not be represented)", st->path, st->lineno);
  mp_item *it = &p->items[p->n];
  it->lo = v[C_LO];
  it->hi = v[C_HI];
  it->size = v[C_SIZE];
  it->align = v[C_ALIGN];
  it->fixed = v[C_OFFSET];
  p->ids[p->n] = mp_xstrdup(fields[st->col[C_ID]]);
  (*lines)[p->n] = st->lineno;
  if (add_id(st, p, p->n, *lines, err)) {
    free(p->ids[p->n]);
    return -1;
  }
  p->n++;
  return 0;
}

static int read_rows(FILE *fp, csv_state *st, mp_problem *p, mp_error *err) {
  char *line = NULL, *fields[MAX_COLS];
  size_t cap = 0;
  int *lines = NULL, rc = 0, got;
  bool have_header = false;
  while (!rc && (got = read_line(fp, &line, &cap)) != 0) {
    if (st->lineno == INT_MAX) { /* blank lines count too: the int would wrap */
      rc = mp_errorf(err, "%s: more than %d lines", st->path, INT_MAX);
      break;
    }
    st->lineno++;
    if (got == -1) {
      rc = mp_errorf(err, "%s:%d: a line longer than 1 MiB", st->path, st->lineno);
      break;
    }
    if (got == -2) {
      rc = mp_errorf(err, "%s:%d: a NUL byte (not a text file?)", st->path, st->lineno);
      break;
    }
    char *s = line;
    if (st->lineno == 1 && !strncmp(s, "\xEF\xBB\xBF", 3)) s += 3; /* UTF-8 byte order mark */
    s = trim(s);
    if (!*s) continue;
    int nf = split(s, fields, MAX_COLS);
    if (!have_header) {
      rc = header(st, fields, nf, p, err);
      have_header = true;
    } else {
      rc = row(st, fields, nf, p, &lines, err);
    }
  }
  if (!rc && ferror(fp)) rc = mp_errorf(err, "%s: read error: %s", st->path, strerror(errno));
  if (!rc && !have_header) rc = mp_errorf(err, "%s: empty file: no header line", st->path);
  free(line);
  free(lines);
  return rc;
}

/* Pinned buffers must admit a placement: each pin a multiple of its
 * alignment, and no two pinned buffers live together overlapping.  The
 * verifier of plan.c checks exactly that on the pinned ones alone. */
static int check_pins(const mp_problem *p, const char *path, mp_error *err) {
  mp_problem pins = {0};
  pins.items = mp_xmalloc(sizeof(mp_item) * (size_t)(p->n ? p->n : 1));
  pins.ids = mp_xmalloc(sizeof(char *) * (size_t)(p->n ? p->n : 1));
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)(p->n ? p->n : 1));
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0) {
      pins.items[pins.n] = p->items[i];
      pins.ids[pins.n] = p->ids[i];
      off[pins.n++] = p->items[i].fixed;
    }
  mp_error e;
  int rc = mp_verify_offsets(&pins, off, &e)
               ? mp_errorf(err, "%s: the pinned offsets admit no placement: %s", path, e.msg)
               : 0;
  free(pins.items);
  free(pins.ids);
  free(off);
  return rc;
}

int mp_csv_read(const char *path, mp_problem *p, mp_error *err) {
  memset(p, 0, sizeof *p);
  if (mp_check_input(path, err)) return -1;
  FILE *fp = fopen(path, "r");
  if (!fp) return mp_errorf(err, "%s: cannot open: %s", path, strerror(errno));
  csv_state st = {.path = path};
  for (int i = 0; i < C_N; i++) st.col[i] = -1;
  int rc = read_rows(fp, &st, p, err);
  fclose(fp);
  if (!rc) rc = check_pins(p, path, err);
  free(st.id_at);
  if (rc) {
    mp_problem_destroy(p);
    return -1;
  }
  p->file = mp_xstrdup(path);
  p->name = mp_file_stem(path, ".csv");
  p->t_begin = p->t_end = 0;
  for (int i = 0; i < p->n; i++) {
    if (i == 0 || p->items[i].lo < p->t_begin) p->t_begin = p->items[i].lo;
    if (i == 0 || p->items[i].hi > p->t_end) p->t_end = p->items[i].hi;
  }
  return 0;
}

int mp_csv_write(FILE *out, const mp_problem *p, const int64_t *offsets) {
  fprintf(out, "id,lower,upper,size%s,offset\n", p->has_alignment_col ? ",alignment" : "");
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    fprintf(out, "%s,%lld,%lld,%lld", p->ids ? p->ids[i] : "", (long long)it->lo,
            (long long)it->hi, (long long)it->size);
    if (p->has_alignment_col) fprintf(out, ",%lld", (long long)it->align);
    fprintf(out, ",%lld\n", (long long)offsets[i]);
  }
  return ferror(out) ? -1 : 0;
}
