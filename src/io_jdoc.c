/* io_jdoc.c - a JSON file whose top level is an object, read without the
 * document tree of its big arrays (the graph's "nodes", node-link "links",
 * a plan's "events") and big objects (a plan's "offsets").
 *
 * A regular file is read into memory once.  A scan of the bytes finds the
 * top-level keys, the extent of every value and the element count of every
 * array; jansson then decodes the small values whole and the big arrays one
 * element at a time (json_loadb at the element, JSON_DISABLE_EOF_CHECK, the
 * bytes it used from error.position), so only one element's tree lives at a
 * time (an object: one member at a time).  Error messages stay those of
 * jansson on the whole file, in the words of the document's style (the
 * graph readers' or the plan verifier's): an error
 * inside an element has its line and column moved back to the file's (the
 * newlines before the element are counted only then); anything the scan
 * cannot vouch for (a top level that is no object, a truncated file, a
 * duplicate top-level key, extreme nesting, a NUL byte, a pipe or device) is read by
 * jansson whole, exactly as before.  A syntax error anywhere in the file
 * wins over a meaning error found earlier, as with a whole-file parse: the
 * readers call mp_jdoc_settle before reporting. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io_util.h"
#include "util.h"

/* element decodes: the whole-file parse's flags (d->style.flags) plus these */
#define JD_FLAGS (JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK)
/* jansson refuses nesting beyond 2048 values; deeper than this is left to it */
#define JD_MAX_DEPTH 2000

/* A streamed array, or a streamed object (its members are its elements). */
typedef struct jd_array {
  const char *key;  /* one of the caller's stream keys */
  bool object;      /* '{' ... '}' */
  size_t start;     /* offset of '[' or '{' */
  size_t end;       /* offset after its ']' or '}' */
  size_t count;     /* elements, as the scan counted them */
  size_t next_pos;  /* where the text of element next_idx starts */
  size_t next_idx;
  json_t *cur;      /* the element returned last (owned) */
  json_t *cur_name; /* an object's: the name of that member (owned) */
  bool done;        /* every element decoded and the ']' or '}' found */
} jd_array;

struct mp_jdoc {
  char *path;
  mp_jdoc_style style;
  char *buf;        /* the file (stream mode) */
  size_t len;
  size_t skip;      /* a UTF-8 byte order mark at the start: 3, else 0 */
  json_t *root;     /* the small values; in tree mode the whole document */
  bool tree;
  size_t taken;     /* elements their callers read from the text (mp_jdoc_took) */
  jd_array arr[4];
  int n_arr;
  bool failed;      /* a syntax error was found: */
  mp_error syntax;  /* ... its message, repeated by every later call */
};

/* ---- the scan: structure only; jansson judges the rest ---- */
static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static size_t skip_ws(const char *b, size_t len, size_t p) {
  while (p < len && is_ws(b[p])) p++;
  return p;
}

/* The scans jump to the next byte that matters with strcspn (b[len] is a
 * NUL, and a file with a NUL inside is not scanned): byte by byte, the
 * scan of a 10^5-node file was a fifth of `memplan info`. */

/* At '"': the offset after the closing quote, or 0. */
static size_t scan_string(const char *b, size_t len, size_t p) {
  for (p++; p < len; p++) {
    p += strcspn(b + p, "\\\"");
    if (p >= len) break;
    if (b[p] == '\\')
      p++;
    else
      return p + 1;
  }
  return 0;
}

/* At '[' or '{': the offset after its match, or 0; *commas counts the
 * commas directly inside it. */
static size_t scan_nested(const char *b, size_t len, size_t p, size_t *commas) {
  int depth = 0;
  *commas = 0;
  while (p < len) {
    p += strcspn(b + p, "\"[]{},");
    if (p >= len) break;
    char c = b[p];
    if (c == '"') {
      if (!(p = scan_string(b, len, p))) return 0;
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > JD_MAX_DEPTH) return 0;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return p + 1;
    } else if (c == ',' && depth == 1) {
      (*commas)++;
    }
    p++;
  }
  return 0;
}

/* The end of the value at p (after ws), or 0; *count: the elements of an
 * array, the members of an object. */
static size_t scan_value(const char *b, size_t len, size_t p, size_t *count) {
  *count = 0;
  if (p >= len) return 0;
  if (b[p] == '"') return scan_string(b, len, p);
  if (b[p] == '[' || b[p] == '{') {
    size_t commas, end = scan_nested(b, len, p, &commas);
    char close = b[p] == '[' ? ']' : '}';
    if (end) *count = b[skip_ws(b, len, p + 1)] == close ? 0 : commas + 1;
    return end;
  }
  size_t q = p;
  while (q < len && !is_ws(b[q]) && !strchr(",]}", b[q])) q++;
  return q > p ? q : 0;
}

/* ---- messages ---- */
/* The line of the first NUL byte of the file, or 0: jansson takes a NUL
 * for the end of the text ("end of file expected near end of file"). */
static int nul_line(const char *path) {
  FILE *f = fopen(path, "rb");
  int line = 1, c;
  while (f && (c = getc(f)) != EOF && c != 0) line += c == '\n';
  bool nul = f && c == 0;
  if (f) fclose(f);
  return nul ? line : 0;
}

static void report_je(const char *path, const json_error_t *je, int line, int column,
                      mp_error *err) {
  int at = strstr(je->text, "near end of file") ? nul_line(path) : 0;
  if (at)
    mp_errorf(err, "%s:%d: a NUL byte (not a text file?)", path, at);
  else if (strstr(je->text, "too big"))
    mp_errorf(err, "%s:%d: a number overflows (%s)", path, line, je->text);
  else
    mp_errorf(err, "%s:%d:%d: not valid JSON: %s", path, line, column, je->text);
}

/* ---- whole files, a byte order mark skipped ---- */
static const char utf8_bom[3] = {'\xEF', '\xBB', '\xBF'};

typedef struct bom_src {
  FILE *f;
  char head[3]; /* the first bytes, when they were no BOM: served first */
  size_t n_head, at;
} bom_src;

static size_t bom_read(void *buf, size_t cap, void *data) {
  bom_src *s = data;
  if (s->at < s->n_head) {
    size_t n = s->n_head - s->at < cap ? s->n_head - s->at : cap;
    memcpy(buf, s->head + s->at, n);
    s->at += n;
    return n;
  }
  size_t n = fread(buf, 1, cap, s->f);
  return n == 0 && ferror(s->f) ? (size_t)-1 : n;
}

json_t *mp_json_load_file(const char *path, size_t flags, json_error_t *je) {
  bom_src s = {.f = fopen(path, "rb")};
  if (!s.f) {
    if (!je) return NULL;
    memset(je, 0, sizeof *je);
    je->line = je->column = -1;
    snprintf(je->source, sizeof je->source, "%.*s", (int)sizeof je->source - 1, path);
    snprintf(je->text, sizeof je->text, "unable to open %.80s: %.50s", path, strerror(errno));
    return NULL;
  }
  s.n_head = fread(s.head, 1, sizeof s.head, s.f);
  if (s.n_head == sizeof s.head && !memcmp(s.head, utf8_bom, sizeof utf8_bom)) s.n_head = 0;
  json_t *v = json_load_callback(bom_read, &s, flags, je);
  fclose(s.f);
  return v;
}

json_t *mp_json_load(const char *path, mp_error *err) {
  if (mp_check_input(path, err)) return NULL;
  json_error_t je;
  json_t *root = mp_json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  if (root) return root;
  if (!strstr(je.text, "too big") && je.line <= 0 && je.position == 0 &&
      strstr(je.text, "unable to open"))
    mp_errorf(err, "%s: cannot read: %s", path, je.text);
  else
    report_je(path, &je, je.line, je.column, err);
  return NULL;
}

/* The graph readers' style: duplicate keys are errors, messages with line
 * and column. */
static void graph_report(const char *path, const json_error_t *je, mp_error *err) {
  report_je(path, je, je->line, je->column, err);
}

static json_t *graph_load(const char *path, mp_error *err) { return mp_json_load(path, err); }

const mp_jdoc_style mp_jdoc_graph_style = {JSON_REJECT_DUPLICATES, graph_load, graph_report};

/* jansson's message for the whole buffer: for errors the scan could not place. */
static void whole_file_error(mp_jdoc *d, mp_error *err) {
  json_error_t je;
  json_t *t = json_loadb(d->buf + d->skip, d->len - d->skip, d->style.flags, &je);
  if (t) {
    json_decref(t);
    mp_errorf(err, "%s: the JSON reader lost its place (please report this file)", d->path);
  } else {
    d->style.report(d->path, &je, err);
  }
  d->failed = true;
  d->syntax = *err;
}

/* An error of the element parse that began at `at`, in the file's terms:
 * jansson counts lines from 1 and columns as characters since the last
 * newline (UTF-8 continuation bytes are no characters). */
static void element_error(mp_jdoc *d, size_t at, const json_error_t *je, mp_error *err) {
  if (strstr(je->text, "depth")) {
    whole_file_error(d, err);
    return;
  }
  /* counted in int64: a file of 2^31 newlines would wrap jansson's int
   * (the message then says INT_MAX) */
  int64_t line = 1, column = 0;
  for (size_t i = d->skip; i < at; i++) { /* a BOM is no column */
    unsigned char c = (unsigned char)d->buf[i];
    if (c == '\n')
      line++, column = 0;
    else if (c < 0x80 || (c >= 0xC2 && c <= 0xF4))
      column++;
  }
  json_error_t at_file = *je;
  int64_t l = line + je->line - 1, col = je->line == 1 ? column + je->column : je->column;
  at_file.line = l < INT_MAX ? (int)l : INT_MAX;
  at_file.column = col < INT_MAX ? (int)col : INT_MAX;
  d->style.report(d->path, &at_file, err);
  d->failed = true;
  d->syntax = *err;
}

/* ---- opening ---- */
static bool is_stream_key(const char *k, const char *const *keys) {
  for (int i = 0; keys[i]; i++)
    if (!strcmp(k, keys[i])) return true;
  return false;
}

/* jansson's value at [p, end) with nothing left over, or NULL. */
static json_t *decode_exact(const mp_jdoc *d, size_t p, size_t end) {
  json_error_t je;
  json_t *v = json_loadb(d->buf + p, d->len - p, d->style.flags | JD_FLAGS, &je);
  if (v && (size_t)je.position != end - p) {
    json_decref(v);
    v = NULL;
  }
  return v;
}

/* One member of the top-level object at p; the offset after its value, or 0. */
static size_t open_member(mp_jdoc *d, size_t p, const char *const *stream_keys) {
  size_t kend = d->buf[p] == '"' ? scan_string(d->buf, d->len, p) : 0;
  json_t *key = kend ? decode_exact(d, p, kend) : NULL;
  size_t v = kend ? skip_ws(d->buf, d->len, kend) : 0, count, vend = 0;
  if (json_is_string(key) && v < d->len && d->buf[v] == ':' &&
      !json_object_get(d->root, json_string_value(key))) {
    v = skip_ws(d->buf, d->len, v + 1);
    vend = scan_value(d->buf, d->len, v, &count);
  }
  json_t *val = NULL;
  const char *k = json_string_value(key);
  /* a streamed object would have to find its duplicate members itself */
  bool object = vend && d->buf[v] == '{' && !(d->style.flags & JSON_REJECT_DUPLICATES);
  if (vend && (d->buf[v] == '[' || object) && is_stream_key(k, stream_keys) && d->n_arr < 4) {
    jd_array *a = &d->arr[d->n_arr++];
    *a = (jd_array){.object = object, .start = v, .end = vend, .count = count, .next_pos = v + 1};
    for (int i = 0; stream_keys[i]; i++)
      if (!strcmp(k, stream_keys[i])) a->key = stream_keys[i];
    val = object ? json_object() : json_array(); /* a marker: the key is taken */
  } else if (vend) {
    val = decode_exact(d, v, vend);
  }
  bool ok = val && json_object_set_new(d->root, k, val) == 0;
  json_decref(key);
  return ok ? vend : 0;
}

/* The scan and the small values; false: leave the file to jansson whole. */
static bool open_stream(mp_jdoc *d, const char *const *stream_keys) {
  /* jansson's reader may skip a NUL byte without counting it in
   * error.position: such files are left to it whole */
  if (memchr(d->buf, 0, d->len)) return false;
  if (d->len >= sizeof utf8_bom && !memcmp(d->buf, utf8_bom, sizeof utf8_bom)) d->skip = sizeof utf8_bom;
  size_t p = skip_ws(d->buf, d->len, d->skip);
  if (p >= d->len || d->buf[p] != '{') return false;
  d->root = json_object();
  p = skip_ws(d->buf, d->len, p + 1);
  if (p < d->len && d->buf[p] == '}') return skip_ws(d->buf, d->len, p + 1) == d->len;
  for (;;) {
    if (p >= d->len || !(p = open_member(d, p, stream_keys))) return false;
    p = skip_ws(d->buf, d->len, p);
    if (p >= d->len) return false;
    if (d->buf[p] == '}') return skip_ws(d->buf, d->len, p + 1) == d->len;
    if (d->buf[p] != ',') return false;
    p = skip_ws(d->buf, d->len, p + 1);
  }
}

static bool read_regular(mp_jdoc *d) {
  struct stat st;
  FILE *f = fopen(d->path, "rb");
  if (!f) return false;
  bool ok = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
  if (ok) {
    d->len = (size_t)st.st_size;
    d->buf = mp_xmalloc(d->len + 1);
    ok = fread(d->buf, 1, d->len, f) == d->len && fgetc(f) == EOF;
    d->buf[d->len] = 0; /* the scan may look one byte past a value */
  }
  fclose(f);
  return ok;
}

static void drop_stream(mp_jdoc *d) {
  free(d->buf);
  d->buf = NULL;
  d->len = d->skip = 0;
  json_decref(d->root);
  d->root = NULL;
  d->n_arr = 0;
}

mp_jdoc *mp_jdoc_open(const char *path, const char *const *stream_keys, mp_error *err) {
  if (mp_check_input(path, err)) return NULL;
  return mp_jdoc_open_as(path, stream_keys, &mp_jdoc_graph_style, err);
}

mp_jdoc *mp_jdoc_open_as(const char *path, const char *const *stream_keys,
                         const mp_jdoc_style *style, mp_error *err) {
  mp_jdoc *d = mp_xcalloc(1, sizeof *d);
  d->path = mp_xstrdup(path);
  d->style = *style;
  if (read_regular(d) && open_stream(d, stream_keys)) return d;
  drop_stream(d);
  d->tree = true;
  d->root = style->load(path, err);
  if (d->root) return d;
  mp_jdoc_destroy(d);
  return NULL;
}

void mp_jdoc_destroy(mp_jdoc *d) {
  if (!d) return;
  for (int i = 0; i < d->n_arr; i++) {
    json_decref(d->arr[i].cur);
    json_decref(d->arr[i].cur_name);
  }
  drop_stream(d);
  free(d->path);
  free(d);
}

/* ---- access ---- */
static jd_array *find_array(mp_jdoc *d, const char *key) {
  for (int i = 0; i < d->n_arr; i++)
    if (!strcmp(d->arr[i].key, key)) return &d->arr[i];
  return NULL;
}

json_t *mp_jdoc_root(const mp_jdoc *d) { return d->root; }

json_t *mp_jdoc_get(mp_jdoc *d, const char *key) {
  return d->tree || !find_array(d, key) ? json_object_get(d->root, key) : NULL;
}

bool mp_jdoc_has(mp_jdoc *d, const char *key) { return json_object_get(d->root, key) != NULL; }

bool mp_jdoc_is_array(mp_jdoc *d, const char *key) {
  jd_array *a = find_array(d, key);
  return a ? !a->object : json_is_array(json_object_get(d->root, key));
}

bool mp_jdoc_is_object(mp_jdoc *d, const char *key) {
  jd_array *a = find_array(d, key);
  return a ? a->object : json_is_object(json_object_get(d->root, key));
}

size_t mp_jdoc_count(mp_jdoc *d, const char *key) {
  jd_array *a = find_array(d, key);
  return a ? a->count : json_array_size(json_object_get(d->root, key));
}

static void settle_before(mp_jdoc *d, size_t start, mp_error *err);

/* ---- plain scalars, decoded without jansson: a plan's order and
 * offsets are 10^5 integers under 10^5 plain names, and a jansson parse
 * for each cost more than the rest of the verifier ---- */
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

size_t mp_plain_int_len(const char *b, bool minus_ok, long long *v) {
  size_t p = minus_ok && b[0] == '-', start = p;
  long long x = 0;
  for (; is_digit(b[p]); p++)
    if (p - start < 18) x = x * 10 + (b[p] - '0');
  size_t n = p - start;
  if (n == 0 || n > 18 || (n > 1 && b[start] == '0') || b[p] == '.' || b[p] == 'e' ||
      b[p] == 'E')
    return 0;
  *v = start ? -x : x;
  return p;
}

size_t mp_plain_str_len(const char *b) {
  if (b[0] != '"') return 0;
  size_t p = 1;
  while (b[p] != '"') {
    if (b[p] < 0x20 || b[p] > 0x7e || b[p] == '\\') return 0;
    p++;
  }
  return p + 1;
}

/* At an object member: its name (a->cur_name) and the offset of its value
 * after the ':', or 0 when the scan cannot vouch for them. */
static size_t decode_name(mp_jdoc *d, jd_array *a, size_t at) {
  at = skip_ws(d->buf, d->len, at);
  size_t plain = mp_plain_str_len(d->buf + at);
  size_t end = plain ? at + plain : d->buf[at] == '"' ? scan_string(d->buf, d->len, at) : 0;
  json_decref(a->cur_name);
  a->cur_name = plain ? json_stringn(d->buf + at + 1, plain - 2)
                : end ? decode_exact(d, at, end) : NULL;
  if (!json_is_string(a->cur_name)) return 0;
  size_t p = skip_ws(d->buf, d->len, end);
  return p < d->len && d->buf[p] == ':' ? p + 1 : 0;
}

/* A syntax error at the element that starts at `at` (0: one the
 * whole-file parse must place); an earlier one in the file wins. */
static void syntax_error(mp_jdoc *d, jd_array *a, size_t at, const json_error_t *je,
                         mp_error *err) {
  settle_before(d, a->start, err);
  if (d->failed) return;
  if (at)
    element_error(d, at, je, err);
  else
    whole_file_error(d, err);
}

/* Decode the next element of a; false with err on a syntax error. */
static bool advance(mp_jdoc *d, jd_array *a, mp_error *err) {
  json_error_t je;
  size_t at = a->next_pos;
  json_decref(a->cur);
  a->cur = NULL;
  if (a->object && !(at = decode_name(d, a, at))) {
    syntax_error(d, a, 0, NULL, err);
    return false;
  }
  size_t v = skip_ws(d->buf, d->len, at), used;
  long long x;
  size_t plain = mp_plain_int_len(d->buf + v, true, &x);
  if (plain) {
    a->cur = json_integer(x);
    used = v - at + plain;
  } else {
    a->cur = json_loadb(d->buf + at, d->len - at, d->style.flags | JD_FLAGS, &je);
    if (!a->cur) {
      syntax_error(d, a, at, &je, err);
      return false;
    }
    used = (size_t)je.position;
  }
  size_t p = skip_ws(d->buf, d->len, at + used);
  a->next_idx++;
  bool last = a->next_idx == a->count;
  if (p < d->len && d->buf[p] == (last ? (a->object ? '}' : ']') : ',')) {
    a->next_pos = p + 1;
    a->done = last;
    return true;
  }
  whole_file_error(d, err);
  return false;
}

static void rewind_array(jd_array *a) {
  json_decref(a->cur);
  a->cur = NULL;
  a->next_pos = a->start + 1;
  a->next_idx = 0;
  a->done = false;
}

json_t *mp_jdoc_elem(mp_jdoc *d, const char *key, size_t i, mp_error *err) {
  jd_array *a = find_array(d, key);
  if (!a) return json_array_get(json_object_get(d->root, key), i);
  if (d->failed) {
    *err = d->syntax;
    return NULL;
  }
  if (i >= a->count || a->object) return NULL;
  if (a->cur && i + 1 == a->next_idx) return a->cur;
  if (i < a->next_idx) rewind_array(a);
  while (a->next_idx <= i)
    if (!advance(d, a, err)) return NULL;
  return a->cur;
}

const char *mp_jdoc_next_text(mp_jdoc *d, const char *key, size_t i) {
  jd_array *a = find_array(d, key);
  if (!a || d->failed || a->object || i >= a->count) return NULL;
  if (i < a->next_idx) {
    if (a->cur && i + 1 == a->next_idx) return NULL;
    rewind_array(a);
  }
  return i == a->next_idx ? d->buf + a->next_pos : NULL;
}

bool mp_jdoc_took(mp_jdoc *d, const char *key, size_t used) {
  jd_array *a = find_array(d, key);
  size_t p = skip_ws(d->buf, d->len, a->next_pos + used);
  bool last = a->next_idx + 1 == a->count;
  if (p >= d->len || d->buf[p] != (last ? ']' : ',')) return false;
  json_decref(a->cur);
  a->cur = NULL;
  a->next_idx++;
  a->next_pos = p + 1;
  a->done = last;
  d->taken++;
  return true;
}

size_t mp_jdoc_taken(const mp_jdoc *d) { return d->taken; }

/* Can the text b[0, n) name the member `member` (ASCII)?  A name is written
 * "member", or with some of its characters as \\u00XX escapes: without
 * either, no object in the text has that member. */
static bool may_name(const char *b, size_t n, const char *member) {
  size_t mlen = strlen(member);
  char *quoted = mp_xmalloc(mlen + 3);
  quoted[0] = '"';
  memcpy(quoted + 1, member, mlen);
  quoted[mlen + 1] = '"';
  quoted[mlen + 2] = 0;
  bool maybe = memmem(b, n, quoted, mlen + 2) != NULL;
  free(quoted);
  for (const char *u = b, *end = b + n; !maybe && (u = memmem(u, (size_t)(end - u), "\\u", 2));
       u += 2) {
    unsigned c;
    if (end - u >= 6 && sscanf(u + 2, "%4x", &c) == 1 && c < 0x80 && c && strchr(member, (int)c))
      maybe = true;
  }
  return maybe;
}

bool mp_jdoc_some_elem_has(mp_jdoc *d, const char *key, const char *member) {
  jd_array *a = find_array(d, key);
  if (!a) {
    json_t *arr = json_object_get(d->root, key), *o;
    size_t i;
    json_array_foreach(arr, i, o) {
      if (json_object_get(o, member)) return true;
    }
    return false;
  }
  if (a->object || d->failed) return false;
  if (!may_name(d->buf + a->start, a->end - a->start, member)) return false;
  mp_error ignored; /* a syntax error: mp_jdoc_settle reports it */
  for (size_t i = 0; i < a->count; i++) {
    json_t *o = mp_jdoc_elem(d, key, i, &ignored);
    if (!o) return false;
    if (json_object_get(o, member)) return true;
  }
  return false;
}

int mp_jdoc_each_member(mp_jdoc *d, const char *key, mp_jdoc_member_fn *fn, void *ctx,
                        mp_error *err) {
  jd_array *a = find_array(d, key);
  if (!a) {
    const char *name;
    json_t *value;
    json_object_foreach(json_object_get(d->root, key), name, value) {
      if (fn(ctx, name, value, err)) return -1;
    }
    return 0;
  }
  if (d->failed || !a->object) {
    if (d->failed) *err = d->syntax;
    return -1;
  }
  if (a->next_idx) rewind_array(a);
  while (a->next_idx < a->count) {
    if (!advance(d, a, err)) return -1;
    if (fn(ctx, json_string_value(a->cur_name), a->cur, err)) return -1;
  }
  return 0;
}

/* Decode what is left of every array that starts before `start` (all
 * arrays: SIZE_MAX), in file order, stopping at the first syntax error. */
static void settle_before(mp_jdoc *d, size_t start, mp_error *err) {
  for (;;) {
    jd_array *first = NULL;
    for (int i = 0; i < d->n_arr; i++) {
      jd_array *a = &d->arr[i];
      if (!a->done && a->start < start && (!first || a->start < first->start)) first = a;
    }
    if (!first || d->failed) return;
    if (first->count == 0) {
      first->done = true;
      continue;
    }
    while (!first->done)
      if (!advance(d, first, err)) return;
  }
}

int mp_jdoc_settle(mp_jdoc *d, mp_error *err) {
  if (!d->failed) settle_before(d, SIZE_MAX, err);
  if (d->failed) *err = d->syntax;
  return d->failed ? -1 : 0;
}
