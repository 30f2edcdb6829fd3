/* cli_args.c - exact option names and values (see cli_args.h), with the
 * library's own number reading (memplan.h): the CLI's parsing layer. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_args.h"
#include "memplan.h"

void mp_opt_read(int argc, char **argv, int i, mp_opt *o) {
  const char *a = argv[i], *eq = strchr(a, '=');
  size_t len = eq ? (size_t)(eq - a) : 0;
  o->name = a;
  o->glued = a[0] == '-' && a[1] == '-' && eq && len < sizeof o->buf;
  o->value = i + 1 < argc ? argv[i + 1] : NULL;
  if (!o->glued) return; /* a name too long for buf is no option's: left whole */
  memcpy(o->buf, a, len);
  o->buf[len] = 0;
  o->name = o->buf;
  o->value = eq + 1;
}

const char *mp_opt_take(const mp_opt *o, int *i) {
  if (!o->glued) (*i)++;
  return o->value;
}

int mp_opt_flag(const char *cmd, const mp_opt *o) {
  if (!o->glued) return 0;
  fprintf(stderr, "memplan %s: option '%s' doesn't allow an argument (given '%s')\n", cmd,
          o->name, o->value);
  return -1;
}

bool mp_opt_listed(const char *names, const char *name) {
  size_t len = strlen(name);
  for (const char *p = names && len ? strstr(names, name) : NULL; p; p = strstr(p + 1, name))
    if (p > names && p[-1] == ' ' && p[len] == ' ') return true;
  return false;
}

int mp_opt_once(const char *cmd, mp_seen *seen, const char *repeatable, const char *name,
                const char *value) {
  if (mp_opt_listed(repeatable, name)) return 0;
  for (int k = 0; k < seen->n; k++)
    if (!strcmp(seen->name[k], name)) {
      fprintf(stderr, "memplan %s: %s%s given twice ('%s', '%s'): give it once (the second "
              "would replace the first)\n", cmd, name[0] == '-' ? "" : "--", name,
              seen->value[k], value ? value : "");
      return -1;
    }
  if (seen->n < (int)(sizeof seen->name / sizeof *seen->name)) {
    snprintf(seen->name[seen->n], sizeof seen->name[0], "%s", name);
    seen->value[seen->n++] = value ? value : "";
  }
  return 0;
}

int mp_args_exact(const char *cmd, int argc, char **argv, const struct option *opts,
                  const char *repeatable) {
  mp_seen seen = {.n = 0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) break; /* the rest are operands */
    if (strncmp(argv[i], "--", 2)) continue;
    mp_opt a;
    mp_opt_read(argc, argv, i, &a);
    const struct option *o = opts;
    while (o->name && strcmp(o->name, a.name + 2)) o++;
    if (!o->name) {
      fprintf(stderr, "memplan %s: unknown option '%s' (memplan %s --help)\n", cmd, a.name, cmd);
      return -1;
    }
    if (o->has_arg == no_argument && mp_opt_flag(cmd, &a)) return -1;
    if (o->has_arg != required_argument) continue;
    const char *v = mp_opt_take(&a, &i); /* past its value */
    if (mp_opt_once(cmd, &seen, repeatable, o->name, v)) return -1;
  }
  return 0;
}

static int refuse(const char *cmd, const char *opt, const char *val, const char *why) {
  fprintf(stderr, "memplan %s: bad value '%s' for %s: %s\n", cmd, val ? val : "", opt, why);
  return -1;
}

int mp_arg_int(const char *cmd, const char *opt, const char *val, int64_t lo, int64_t hi,
               int64_t *out) {
  const char *why;
  int64_t v;
  if (memplan_parse_int64(val, &v, &why)) return refuse(cmd, opt, val, why);
  if (v < lo || v > hi) {
    char w[96];
    snprintf(w, sizeof w, "outside [%" PRId64 ", %" PRId64 "]", lo, hi);
    return refuse(cmd, opt, val, w);
  }
  *out = v;
  return 0;
}

int mp_arg_seed(const char *cmd, const char *opt, const char *val, uint64_t *out) {
  int64_t v;
  if (mp_arg_int(cmd, opt, val, 0, INT64_MAX, &v)) return -1;
  *out = (uint64_t)v;
  return 0;
}

int mp_arg_real(const char *cmd, const char *opt, const char *val, double lo, double hi,
                double *out) {
  const char *why;
  double v;
  if (memplan_parse_real(val, &v, &why)) return refuse(cmd, opt, val, why);
  if (v < lo || v > hi) {
    char a[32], b[32], w[96];
    memplan_format_number(lo, a, sizeof a);
    memplan_format_number(hi, b, sizeof b);
    snprintf(w, sizeof w, "outside [%s, %s]", a, b);
    return refuse(cmd, opt, val, w);
  }
  *out = v;
  return 0;
}

int mp_arg_choice(const char *cmd, const char *opt, const char *val, const char *choices) {
  size_t n = strlen(val);
  for (const char *c = choices; *c;) {
    size_t len = strcspn(c, "|");
    if (len == n && !strncmp(c, val, n)) return 0;
    c += len + (c[len] == '|');
  }
  char w[160];
  snprintf(w, sizeof w, "takes %s", choices);
  return refuse(cmd, opt, val, w);
}

int mp_arg_align(const char *cmd, const char *opt, const char *val, int64_t *out) {
  return mp_arg_int(cmd, opt, val, 1, MEMPLAN_MAX_ALIGN, out);
}

int mp_arg_capacity(const char *cmd, const char *opt, const char *val, int64_t *out) {
  return mp_arg_int(cmd, opt, val, 1, MEMPLAN_MAX_TOTAL, out);
}

static bool same_output(const char *a, const char *b);

/* Is path a SQLite database (its 16-byte header)? */
static bool is_sqlite(const char *path) {
  char head[16] = {0};
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  size_t got = fread(head, 1, sizeof head, f);
  fclose(f);
  return got == sizeof head && !memcmp(head, "SQLite format 3", sizeof head);
}

/* Does out name one of the files SQLite keeps beside the database `in`
 * (its write-ahead log, shared memory, rollback journal)?  Writing there
 * while a bench runs on `in` would lose the rows not yet in the file. */
static const char *sqlite_companion(const char *out, const char *in) {
  /* the list of mp_db_side_suffix (src/resdb_schema.h, the results store's
   * own), which the CLI cannot include: change both together */
  static const char *const suffix[] = {"-wal", "-shm", "-journal"};
  char comp[4200];
  if (!is_sqlite(in)) return NULL;
  for (size_t k = 0; k < sizeof suffix / sizeof *suffix; k++) {
    snprintf(comp, sizeof comp, "%.4000s%s", in, suffix[k]);
    if (same_output(out, comp)) return suffix[k];
  }
  return NULL;
}

int mp_arg_out_as(const char *cmd, const char *opt, const char *out, const char *const *inputs,
                  int n) {
  struct stat so, si;
  for (int k = 0; out && strcmp(out, "-") && k < n; k++) {
    const char *sfx = inputs[k] ? sqlite_companion(out, inputs[k]) : NULL;
    if (sfx) {
      fprintf(stderr, "memplan %s: %s %s is the %s file SQLite keeps beside the input %s: writing "
              "it could lose results\n", cmd, opt, out, sfx, inputs[k]);
      return -1;
    }
  }
  if (!out || !strcmp(out, "-") || stat(out, &so) || !S_ISREG(so.st_mode)) return 0;
  for (int k = 0; k < n; k++)
    if (inputs[k] && !stat(inputs[k], &si) && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
      fprintf(stderr, "memplan %s: %s %s is the input %s: writing it would replace what is read\n",
              cmd, opt, out, inputs[k]);
      return -1;
    }
  return 0;
}

int mp_arg_out(const char *cmd, const char *out, const char *const *inputs, int n) {
  return mp_arg_out_as(cmd, "--out", out, inputs, n);
}

/* The folder part of path ("." when none), and where its last name starts. */
static void split_path(const char *path, char *dir, size_t cap, const char **base) {
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
  if (!slash) snprintf(dir, cap, ".");
  else if (slash == path) snprintf(dir, cap, "/");
  else snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

/* Do a and b name one file: the same existing file, or the same name in
 * the same folder (a file neither run has made yet)? */
static bool same_output(const char *a, const char *b) {
  struct stat sa, sb;
  bool ea = !stat(a, &sa), eb = !stat(b, &sb);
  if (ea || eb) return ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char da[4096], db[4096];
  const char *ba, *bb;
  split_path(a, da, sizeof da, &ba);
  split_path(b, db, sizeof db, &bb);
  return !strcmp(ba, bb) && !stat(da, &sa) && !stat(db, &sb) && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

int mp_arg_outs_apart(const char *cmd, const char *opt_a, const char *a, const char *opt_b,
                      const char *b) {
  if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-") || !same_output(a, b)) return 0;
  fprintf(stderr, "memplan %s: %s %s and %s %s name the same file: one would replace the other\n",
          cmd, opt_a, a, opt_b, b);
  return -1;
}

int mp_arg_not_dir(const char *cmd, const char *opt, const char *path) {
  struct stat st;
  if (!path || stat(path, &st) || !S_ISDIR(st.st_mode)) return 0;
  fprintf(stderr, "memplan %s: %s %s is a directory (give a file name)\n", cmd, opt, path);
  return -1;
}

int mp_arg_out_place(const char *cmd, const char *opt, const char *path) {
  if (!path) return 0;
  if (!path[0]) {
    fprintf(stderr, "memplan %s: %s '': an empty file name\n", cmd, opt);
    return -1;
  }
  if (strlen(path) >= PATH_MAX) { /* its folder is no "missing" folder */
    fprintf(stderr, "memplan %s: %s %.100s...: a path of %zu bytes, longer than the system allows "
            "(PATH_MAX %d)\n", cmd, opt, path, strlen(path), PATH_MAX);
    return -1;
  }
  if (mp_arg_not_dir(cmd, opt, path)) return -1;
  char dir[4096];
  const char *base;
  struct stat st;
  split_path(path, dir, sizeof dir, &base);
  if (!base[0] || stat(dir, &st) || !S_ISDIR(st.st_mode)) { /* "x/": a folder's name */
    if (!base[0])
      fprintf(stderr, "memplan %s: %s %s names a folder (give a file name)\n", cmd, opt, path);
    else
      fprintf(stderr, "memplan %s: %s %s: its folder %s is missing or not a folder\n", cmd, opt,
              path, dir);
    return -1;
  }
  return 0;
}
