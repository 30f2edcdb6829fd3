/* resdb_csv.c - results rows as CSV: what `memplan export` writes (every
 * column, each graph's bound beside its rows) and what `memplan table`
 * reads back.  An empty field is an absent value.  Reading is strict: a
 * column export has always written that is missing, a value that does not
 * parse, a row of another width or one cut short is an error naming the
 * file (and the line and column); the columns added later are optional. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "resdb_schema.h"
#include "util.h"

/* The reader's state: the file, its name, the line a record starts on, and
 * the buffers of the last record. */
typedef struct csv_in {
  FILE *f;
  const char *path;
  int line, next_line; /* a quoted field may span lines */
  bool ended;          /* the record ended in a newline (not cut by EOF) */
  bool open_quote;     /* EOF inside a quoted field */
  char **fld, *buf;
  int capf;
  size_t capb;
} csv_in;

/* One CSV record (RFC 4180 quoting); returns the number of fields, -1 at EOF. */
static int csv_record(csv_in *in) {
  int c = fgetc(in->f);
  if (c == EOF) return -1;
  size_t len = 0, starts[256];
  int nf = 0;
  bool quoted = false;
  starts[nf++] = 0;
  in->line = in->next_line;
  in->ended = in->open_quote = false;
  for (;; c = fgetc(in->f)) {
    if (len + 2 >= in->capb) {
      in->capb = in->capb ? 2 * in->capb : 1024;
      in->buf = mp_xrealloc(in->buf, in->capb);
    }
    if (c == EOF) break;
    if (c == '\n') in->next_line++;
    if (quoted) {
      if (c == '"') {
        int d = fgetc(in->f);
        if (d == '"') {
          in->buf[len++] = '"';
        } else {
          quoted = false;
          if (d != EOF) ungetc(d, in->f);
        }
      } else {
        in->buf[len++] = (char)c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      in->buf[len++] = 0;
      if (nf < 256) starts[nf++] = len;
    } else if (c == '\n') {
      in->ended = true;
      break;
    } else if (c != '\r') {
      in->buf[len++] = (char)c;
    }
  }
  in->open_quote = quoted;
  in->buf[len] = 0;
  if (nf > in->capf) {
    in->capf = nf;
    in->fld = mp_xrealloc(in->fld, sizeof(char *) * (size_t)nf);
  }
  for (int i = 0; i < nf; i++) in->fld[i] = in->buf + starts[i];
  return nf;
}

/* A number as export writes it, the whole field (strtoll and strtod alone
 * read "abc" as 0 and "12x" as 12): 0, or -1. */
static int parse_value(int type, const char *text, void *p) {
  char *end;
  errno = 0;
  switch (type) {
  case C_INT: *(int64_t *)p = strtoll(text, &end, 10); break;
  case C_U64:
    if (*text == '-') return -1;
    *(uint64_t *)p = strtoull(text, &end, 10);
    break;
  case C_REAL: *(double *)p = strtod(text, &end); break;
  default: *(char **)p = mp_xstrdup(text); return 0;
  }
  bool blank = isspace((unsigned char)*text);
  return end == text || *end || errno == ERANGE || blank ? -1 : 0;
}

static const char *type_name(int type) {
  return type == C_INT ? "an integer" : type == C_U64 ? "a non-negative integer" : "a number";
}

static int read_record(csv_in *in, mp_row *r, int nf, const int *map, int nh, char *msg,
                       size_t cap) {
  mp_row_init(r);
  if (!in->ended)
    return mp_msgf(msg, cap, "%s:%d: the row is cut short (%s)", in->path, in->line,
                    in->open_quote ? "a quoted field never closes" : "no end of line"), -1;
  if (nf != nh)
    return mp_msgf(msg, cap, "%s:%d: %d fields, the header has %d", in->path, in->line, nf, nh), -1;
  for (int i = 0; i < nf && i < 256; i++) {
    if (map[i] < 0) continue;
    const mp_col *c = &mp_cols[map[i]];
    /* an empty field is absent; an empty key text is the empty string */
    if (!in->fld[i][0] && !(c->type == C_TEXT && (c->flags & CF_KEY))) continue;
    if (parse_value(c->type, in->fld[i], (char *)r + c->off))
      return mp_msgf(msg, cap, "%s:%d: column %s: '%.60s' is not %s", in->path, in->line, c->name,
                      in->fld[i], type_name(c->type)), -1;
    if (!mp_col_value_ok(map[i], in->fld[i]))
      return mp_msgf(msg, cap, "%s:%d: column %s: '%.60s' is not a status (%s)", in->path,
                      in->line, c->name, in->fld[i], mp_col_statuses(map[i])), -1;
  }
  return 0;
}

/* The header: each column at most once, and every column that export has
 * always written (CF_ALWAYS) present; later ones are optional (absent:
 * no value, "" for a later key).  map[i]: the column of field i, or -1
 * for a column memplan does not know (ignored). */
static int read_header(csv_in *in, int nh, int *map, char *msg, size_t cap) {
  if (nh <= 0) return mp_msgf(msg, cap, "%s: empty", in->path), -1;
  if (!in->ended)
    return mp_msgf(msg, cap, "%s:1: the header is cut short (no end of line)", in->path), -1;
  if (nh > 256) return mp_msgf(msg, cap, "%s:1: more than 256 columns", in->path), -1;
  bool seen[256] = {false};
  for (int i = 0; i < nh; i++) {
    map[i] = -1;
    for (int k = 0; k < mp_ncols; k++)
      if (!strcmp(in->fld[i], mp_cols[k].name)) map[i] = k;
    if (map[i] < 0) continue;
    if (seen[map[i]])
      return mp_msgf(msg, cap, "%s:1: column %s appears twice", in->path, in->fld[i]), -1;
    seen[map[i]] = true;
  }
  int status = -1;
  for (int k = 0; k < mp_ncols; k++)
    if (!strcmp(mp_cols[k].name, "status")) status = k;
  if (!seen[status])
    return mp_msgf(msg, cap, "%s: not a memplan results CSV (no status column)", in->path), -1;
  for (int k = 0; k < mp_ncols; k++)
    if ((mp_cols[k].flags & CF_ALWAYS) && !seen[k])
      return mp_msgf(msg, cap, "%s:1: no column %s (every results CSV has it)", in->path,
                      mp_cols[k].name), -1;
  return 0;
}

/* A cell's key and the line its row starts on. */
typedef struct keyed_line {
  char *key;
  int line;
} keyed_line;

static int by_key_then_line(const void *a, const void *b) {
  const keyed_line *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* A results file holds one row per cell (bench stores a cell once): a row
 * repeated by hand would count twice in every median and win count, so the
 * second row of a cell is refused, naming both lines.  0, or -1 + msg. */
static int refuse_repeated_cells(const char *path, const mp_row *rows, const int *lines, int n,
                                 char *msg, size_t cap) {
  keyed_line *k = mp_xmalloc(sizeof *k * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) k[i] = (keyed_line){mp_row_key(&rows[i]), lines[i]};
  qsort(k, (size_t)n, sizeof *k, by_key_then_line);
  int rc = 0, worst = -1; /* the repeat found first in the file */
  for (int i = 1; i < n; i++)
    if (!strcmp(k[i].key, k[i - 1].key) && (worst < 0 || k[i].line < k[worst].line)) worst = i;
  if (worst >= 0) {
    int first = worst; /* the cell's first line: the start of its run of equal keys */
    while (first > 0 && !strcmp(k[first - 1].key, k[worst].key)) first--;
    rc = -1;
    mp_msgf(msg, cap, "%s:%d: the same cell as line %d (path, solvers, seed, time limit, "
             "options and recomputation setting): a results file holds one row per cell",
             path, k[worst].line, k[first].line);
  }
  for (int i = 0; i < n; i++) free(k[i].key);
  free(k);
  return rc;
}

int mp_csv_rows_load(const char *path, mp_row **rows, int *n, char *msg, size_t cap) {
  struct stat st;
  if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
    mp_msgf(msg, cap, "%s: is a directory, not a file", path);
    return -1;
  }
  csv_in in = {.path = path, .next_line = 1};
  in.f = fopen(path, "r");
  if (!in.f) {
    mp_msgf(msg, cap, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  int map[256], nh = csv_record(&in), nf, first = *n, *lines = NULL;
  int rc = read_header(&in, nh, map, msg, cap);
  while (!rc && (nf = csv_record(&in)) >= 0) {
    if (nf == 1 && !in.fld[0][0] && !in.open_quote) continue; /* a blank line */
    *rows = mp_xrealloc(*rows, sizeof(mp_row) * (size_t)(*n + 1));
    lines = mp_xrealloc(lines, sizeof(int) * (size_t)(*n - first + 1));
    lines[*n - first] = in.line;
    mp_row *r = &(*rows)[(*n)++];
    rc = read_record(&in, r, nf, map, nh, msg, cap);
    mp_row_finish_loaded(r, path);
  }
  if (!rc && ferror(in.f)) rc = -1, mp_msgf(msg, cap, "%s: read error", path);
  if (!rc) rc = refuse_repeated_cells(path, *rows + first, lines, *n - first, msg, cap);
  free(lines);
  free(in.fld);
  free(in.buf);
  fclose(in.f);
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

static void write_value(FILE *out, const mp_row *row, int i) {
  const mp_col *c = &mp_cols[i];
  const void *p = (const char *)row + c->off;
  if ((c->flags & CF_FIG) && !row->has_fig) return;
  switch (c->type) {
  case C_TEXT:
    if (*(char *const *)p) csv_text(out, *(char *const *)p);
    break;
  case C_INT:
    if (*(const int64_t *)p != MP_NA) fprintf(out, "%lld", (long long)*(const int64_t *)p);
    break;
  case C_U64: fprintf(out, "%llu", (unsigned long long)*(const uint64_t *)p); break;
  case C_REAL:
    if (!isnan(*(const double *)p)) fprintf(out, "%.12g", *(const double *)p);
    break;
  }
}

void mp_csv_rows_write(FILE *out, const mp_row *rows, int n) {
  for (int i = 0; i < mp_ncols; i++) fprintf(out, "%s%s", i ? "," : "", mp_cols[i].name);
  fputc('\n', out);
  for (int r = 0; r < n; r++) {
    for (int i = 0; i < mp_ncols; i++) {
      if (i) fputc(',', out);
      write_value(out, &rows[r], i);
    }
    fputc('\n', out);
  }
}
