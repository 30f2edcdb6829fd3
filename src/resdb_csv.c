/* resdb_csv.c - results rows as CSV: what `memplan export` writes (every
 * column, each graph's bound beside its rows) and what `memplan table`
 * reads back.  An empty field is an absent value. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "resdb_schema.h"
#include "util.h"

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

static void set_field(mp_row *r, int i, const char *text) {
  void *p = (char *)r + mp_cols[i].off;
  switch (mp_cols[i].type) {
  case C_TEXT: *(char **)p = mp_xstrdup(text); break;
  case C_INT: *(int64_t *)p = strtoll(text, NULL, 10); break;
  case C_U64: *(uint64_t *)p = strtoull(text, NULL, 10); break;
  case C_REAL: *(double *)p = strtod(text, NULL); break;
  }
}

static void read_record(mp_row *r, char **fld, int nf, const int *map, int nh, const char *path) {
  mp_row_init(r);
  for (int i = 0; i < nf && i < nh && i < 256; i++) {
    if (map[i] < 0) continue;
    /* an empty field is absent; an empty key text is the empty string */
    if (!fld[i][0] && !(mp_cols[map[i]].type == C_TEXT && (mp_cols[map[i]].flags & CF_KEY)))
      continue;
    set_field(r, map[i], fld[i]);
  }
  if (!r->options) r->options = mp_xstrdup("");
  if (!r->path) r->path = mp_xstrdup("");
  if (!r->order) r->order = mp_xstrdup("");
  if (!r->place) r->place = mp_xstrdup("");
  r->has_fig = r->arena != MP_NA;
  r->source = mp_xstrdup(path);
}

int mp_csv_rows_load(const char *path, mp_row **rows, int *n, char *msg, size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(msg, cap, "%s: cannot open", path);
    return -1;
  }
  char **fld = NULL, *buf = NULL;
  int capf = 0, map[256];
  size_t capb = 0;
  int nh = csv_record(f, &fld, &capf, &buf, &capb), rc = 0;
  bool seen_status = false;
  for (int i = 0; i < nh && i < 256; i++) {
    map[i] = -1;
    for (int k = 0; k < mp_ncols; k++)
      if (!strcmp(fld[i], mp_cols[k].name)) map[i] = k;
    if (!strcmp(fld[i], "status")) seen_status = true;
  }
  if (nh <= 0) {
    snprintf(msg, cap, "%s: empty", path);
    rc = -1;
  } else if (!seen_status) {
    snprintf(msg, cap, "%s: not a memplan results CSV (no status column)", path);
    rc = -1;
  }
  int nf;
  while (!rc && (nf = csv_record(f, &fld, &capf, &buf, &capb)) >= 0) {
    if (nf == 1 && !fld[0][0]) continue;
    *rows = mp_xrealloc(*rows, sizeof(mp_row) * (size_t)(*n + 1));
    read_record(&(*rows)[(*n)++], fld, nf, map, nh, path);
  }
  free(fld);
  free(buf);
  fclose(f);
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
