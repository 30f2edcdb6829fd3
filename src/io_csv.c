/* io_csv.c - MiniMalloc's fixed-lifetime CSV (DESIGN 1.4): read, and write
 * back with an offset column. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "util.h"

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
    s[--n] = 0;
  return s;
}

/* Split in place on commas; returns the field count (at most cap). */
static int split(char *line, char **f, int cap) {
  int n = 0;
  char *s = line;
  for (;;) {
    char *c = strchr(s, ',');
    if (n < cap) f[n] = trim(s);
    n++;
    if (!c) break;
    *c = 0;
    s = c + 1;
  }
  return n;
}

static int parse_i64(const char *s, int64_t *out) {
  if (!*s) return -1;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*end || errno) return -1;
  *out = v;
  return 0;
}

enum { C_ID, C_LO, C_HI, C_SIZE, C_ALIGN, C_OFFSET, C_N };

int mp_csv_read(const char *path, mp_problem *p, mp_error *err) {
  memset(p, 0, sizeof *p);
  FILE *fp = fopen(path, "r");
  if (!fp) return mp_errorf(err, "%s: cannot open: %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int lineno = 0, col[C_N], ncols = 0, room = 0;
  bool end_inclusive = false, have_header = false;
  for (int i = 0; i < C_N; i++) col[i] = -1;
  char *fields[64];
  int rc = 0;
  while ((len = getline(&line, &cap, fp)) >= 0) {
    lineno++;
    char *s = trim(line);
    if (!*s) continue;
    if (!have_header) {
      ncols = split(s, fields, 64);
      if (ncols > 64) {
        rc = mp_errorf(err, "%s:%d: too many columns", path, lineno);
        break;
      }
      for (int i = 0; i < ncols; i++) {
        char *h = fields[i];
        for (char *c = h; *c; c++) *c = (char)tolower((unsigned char)*c);
        if (!strcmp(h, "id") || !strcmp(h, "buffer") || !strcmp(h, "buffer_id")) col[C_ID] = i;
        else if (!strcmp(h, "lower") || !strcmp(h, "start")) col[C_LO] = i;
        else if (!strcmp(h, "upper")) col[C_HI] = i;
        else if (!strcmp(h, "end")) { col[C_HI] = i; end_inclusive = true; }
        else if (!strcmp(h, "size")) col[C_SIZE] = i;
        else if (!strcmp(h, "alignment")) col[C_ALIGN] = i;
        else if (!strcmp(h, "offset")) col[C_OFFSET] = i;
      }
      const char *names[] = {"id", "lower", "upper", "size"};
      for (int c = 0; c < 4; c++)
        if (col[c] < 0) {
          rc = mp_errorf(err, "%s:%d: missing column '%s' in the header", path, lineno, names[c]);
          break;
        }
      if (rc) break;
      have_header = true;
      p->has_alignment_col = col[C_ALIGN] >= 0;
      continue;
    }
    int nf = split(s, fields, 64);
    if (nf != ncols) {
      rc = mp_errorf(err, "%s:%d: %d fields, the header has %d", path, lineno, nf, ncols);
      break;
    }
    if (p->n == room) {
      room = room ? 2 * room : 256;
      p->items = mp_xrealloc(p->items, sizeof(mp_item) * (size_t)room);
      p->ids = mp_xrealloc(p->ids, sizeof(char *) * (size_t)room);
    }
    mp_item *it = &p->items[p->n];
    int64_t v[C_N] = {0, 0, 0, 0, 1, -1};
    const char *cname[] = {"id", "lower", "upper", "size", "alignment", "offset"};
    for (int c = C_LO; c < C_N; c++) {
      if (col[c] < 0) continue;
      const char *f = fields[col[c]];
      if ((c == C_OFFSET || c == C_ALIGN) && !*f) continue; /* empty: not set */
      if (parse_i64(f, &v[c])) {
        rc = mp_errorf(err, "%s:%d: field '%s' is not an integer: '%s'", path, lineno, cname[c], f);
        break;
      }
    }
    if (rc) break;
    if (end_inclusive) v[C_HI] += 1;
    if (v[C_LO] < 0) rc = mp_errorf(err, "%s:%d: negative lower %lld", path, lineno, (long long)v[C_LO]);
    else if (v[C_LO] > v[C_HI])
      rc = mp_errorf(err, "%s:%d: lower %lld > upper %lld", path, lineno, (long long)v[C_LO],
                     (long long)v[C_HI]);
    else if (v[C_SIZE] < 0)
      rc = mp_errorf(err, "%s:%d: negative size %lld", path, lineno, (long long)v[C_SIZE]);
    else if (v[C_SIZE] > ((int64_t)1 << 56))
      rc = mp_errorf(err, "%s:%d: size %lld overflows (at most 2^56)", path, lineno, (long long)v[C_SIZE]);
    else if (v[C_ALIGN] < 1)
      rc = mp_errorf(err, "%s:%d: alignment must be at least 1", path, lineno);
    else if (col[C_OFFSET] >= 0 && v[C_OFFSET] < -1)
      rc = mp_errorf(err, "%s:%d: negative offset", path, lineno);
    if (rc) break;
    it->lo = v[C_LO];
    it->hi = v[C_HI];
    it->size = v[C_SIZE];
    it->align = v[C_ALIGN];
    it->fixed = v[C_OFFSET];
    p->ids[p->n] = mp_xstrdup(fields[col[C_ID]]);
    p->n++;
  }
  free(line);
  fclose(fp);
  if (!rc && !have_header) rc = mp_errorf(err, "%s: empty file: no header line", path);
  if (rc) {
    mp_problem_destroy(p);
    return -1;
  }
  p->file = mp_xstrdup(path);
  const char *b = strrchr(path, '/');
  p->name = mp_xstrdup(b ? b + 1 : path);
  char *dot = strstr(p->name, ".csv");
  if (dot && dot[4] == 0) *dot = 0;
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
