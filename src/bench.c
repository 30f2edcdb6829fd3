/* bench.c - experiment files, the matrix of cells, shards. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "bench_remat.h"
#include "io_util.h"
#include "registry.h"
#include "run.h"

static void free_list(char **l, int n) {
  for (int i = 0; i < n; i++) free(l[i]);
  free(l);
}

void mp_list_push(char ***l, int *n, const char *s) {
  *l = mp_xrealloc(*l, sizeof(char *) * (size_t)(*n + 1));
  (*l)[(*n)++] = mp_xstrdup(s);
}
#define push mp_list_push

void mp_experiment_defaults(mp_experiment *e) {
  memset(e, 0, sizeof *e);
  e->name = mp_xstrdup("adhoc");
  e->manifest = mp_xstrdup("graphs/SUITE.tsv");
  const mp_solver *o = mp_solver_with_role(MP_ROLE_DEFAULT, MP_DECIDES_ORDER);
  const mp_solver *p = mp_solver_with_role(MP_ROLE_DEFAULT, MP_DECIDES_OFFSETS);
  if (o) push(&e->order, &e->n_order, o->name);
  if (p) push(&e->place, &e->n_place, p->name);
  e->seeds = mp_xmalloc(sizeof(uint64_t));
  e->seeds[0] = 1;
  e->n_seeds = 1;
  e->time_limits = mp_xmalloc(sizeof(double));
  e->time_limits[0] = 10;
  e->n_time_limits = 1;
  e->mem_limit_mb = 4096;
  e->grace_s = 5;
  e->max_wall_s = 600;
  e->repeat = 1;
}

void mp_experiment_destroy(mp_experiment *e) {
  free(e->name);
  free(e->file);
  free(e->manifest);
  free(e->graphs_base);
  free_list(e->graphs, e->n_graphs);
  free_list(e->order, e->n_order);
  free_list(e->place, e->n_place);
  free_list(e->pairs, e->n_pairs);
  free_list(e->exclude, e->n_exclude);
  free_list(e->sets, e->n_sets);
  free(e->seeds);
  free(e->time_limits);
  mp_experiment_free_remat(e);
  memset(e, 0, sizeof *e);
}

int mp_split_list(const char *what, const char *s, char ***out, int *n, char *msg, size_t cap) {
  char **l;
  int k;
  mp_error err;
  if (mp_list_split(what, s, &l, &k, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return -1;
  }
  free_list(*out, *n);
  *out = l;
  *n = k;
  return 0;
}

/* A JSON list of strings (or one string) into a string list. */
static int json_strings(json_t *v, const char *key, char ***out, int *n, char *msg, size_t cap) {
  if (!v) return 0;
  json_t *arr = v;
  if (json_is_string(v)) {
    arr = json_array();
    json_array_append(arr, v);
  } else if (!json_is_array(v)) {
    mp_msgf(msg, cap, "\"%s\" must be a list of strings", key);
    return -1;
  } else {
    json_incref(arr);
  }
  char **l = NULL;
  int k = 0;
  size_t i;
  json_t *x;
  json_array_foreach(arr, i, x) {
    if (!json_is_string(x) || !json_string_value(x)[0]) {
      mp_msgf(msg, cap, "\"%s\"[%zu] must be a non-empty string", key, i);
      free_list(l, k);
      json_decref(arr);
      return -1;
    }
    push(&l, &k, json_string_value(x));
  }
  json_decref(arr);
  free_list(*out, *n);
  *out = l;
  *n = k;
  return 0;
}

static int json_num(json_t *o, const char *key, double lo, double *out, char *msg, size_t cap) {
  json_t *v = json_object_get(o, key);
  if (!v) return 0;
  if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < lo) {
    mp_msgf(msg, cap, "\"%s\" must be a number >= %g", key, lo);
    return -1;
  }
  *out = json_number_value(v);
  return 0;
}

/* The directory of a file ("." for a bare name). */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return mp_xstrdup(".");
  if (slash == path) return mp_xstrdup("/");
  char *d = mp_xstrdup(path);
  d[slash - path] = 0;
  return d;
}

/* p relative to dir (absolute paths and dir "." unchanged). */
static char *beside(const char *dir, const char *p) {
  if (p[0] == '/' || !dir || !strcmp(dir, ".")) return mp_xstrdup(p);
  size_t n = strlen(dir) + strlen(p) + 2;
  char *out = mp_xmalloc(n);
  snprintf(out, n, "%s/%s", dir, p);
  return out;
}

/* A chain is written "greedy,sa" everywhere; older files' "greedy:sa" is
 * refused with that advice rather than read another way. */
static int check_chains(char **l, int n, const char *key, char *msg, size_t cap) {
  for (int i = 0; i < n; i++)
    if (strchr(l[i], ':')) {
      mp_msgf(msg, cap, "\"%s\": '%s': write a chain with commas (\"greedy,sa\"), as in "
               "memplan solve", key, l[i]);
      return -1;
    }
  return 0;
}

static int check_keys(json_t *o, char *sub, size_t cap) {
  static const char *known[] = {"name", "description", "manifest", "graphs", "order", "place",
                                "pairs", "exclude", "seeds", "time_limits", "options", "align",
                                "mem_limit_mb", "grace_s", "max_wall_s", "repeat", "capacity",
                                "remat", "budgets", "bandwidth", NULL};
  if (!json_is_object(o)) {
    snprintf(sub, cap, "the experiment must be a JSON object");
    return -1;
  }
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    int i = 0;
    while (known[i] && strcmp(known[i], k)) i++;
    if (!known[i] && k[0] != '_') {
      snprintf(sub, cap, "unknown key \"%s\" (see scripts/experiments/README.md)", k);
      return -1;
    }
  }
  return 0;
}

/* name (default: the file name), manifest (relative to the file), lists. */
static int load_strings(json_t *o, const char *path, mp_experiment *e, char *sub, size_t cap) {
  json_t *v = json_object_get(o, "name");
  if (v && !json_is_string(v)) {
    snprintf(sub, cap, "\"name\" must be a string");
    return -1;
  }
  if (v) {
    e->name = mp_xstrdup(json_string_value(v));
  } else {
    const char *b = strrchr(path, '/');
    e->name = mp_xstrdup(b ? b + 1 : path);
    char *dot = strrchr(e->name, '.');
    if (dot && dot != e->name) *dot = 0;
  }
  v = json_object_get(o, "manifest");
  if (v && !json_is_string(v)) {
    snprintf(sub, cap, "\"manifest\" must be a string");
    return -1;
  }
  if (v) {
    free(e->manifest);
    e->manifest = beside(e->graphs_base, json_string_value(v));
  }
  return json_strings(json_object_get(o, "graphs"), "graphs", &e->graphs, &e->n_graphs, sub, cap) ||
         json_strings(json_object_get(o, "order"), "order", &e->order, &e->n_order, sub, cap) ||
         json_strings(json_object_get(o, "place"), "place", &e->place, &e->n_place, sub, cap) ||
         json_strings(json_object_get(o, "exclude"), "exclude", &e->exclude, &e->n_exclude, sub,
                      cap) ||
         json_strings(json_object_get(o, "options"), "options", &e->sets, &e->n_sets, sub, cap) ||
         check_chains(e->order, e->n_order, "order", sub, cap) ||
         check_chains(e->place, e->n_place, "place", sub, cap)
             ? -1
             : 0;
}

static int load_pairs(json_t *v, mp_experiment *e, char *sub, size_t cap) {
  if (!v) return 0;
  size_t i;
  json_t *p;
  if (!json_is_array(v)) {
    snprintf(sub, cap, "\"pairs\" must be a list of [ORDER, PLACE]");
    return -1;
  }
  json_array_foreach(v, i, p) {
    if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_string(json_array_get(p, 0)) ||
        !json_is_string(json_array_get(p, 1))) {
      snprintf(sub, cap, "\"pairs\"[%zu] must be [ORDER, PLACE]", i);
      return -1;
    }
    /* sized to fit: a fixed buffer cut a long chain (a placer and 600
     * blanks and "junk" read as the placer) */
    const char *a = json_string_value(json_array_get(p, 0)), *b = json_string_value(json_array_get(p, 1));
    size_t n = strlen(a) + strlen(b) + 2;
    char *buf = mp_xmalloc(n);
    snprintf(buf, n, "%s\t%s", a, b);
    if (strchr(buf, ':')) {
      free(buf);
      snprintf(sub, cap, "\"pairs\"[%zu]: write a chain with commas (\"greedy,sa\")", i);
      return -1;
    }
    push(&e->pairs, &e->n_pairs, buf);
    free(buf);
  }
  return 0;
}

static int load_seeds(json_t *v, mp_experiment *e, char *sub, size_t cap) {
  if (!v) return 0;
  size_t i;
  json_t *x;
  if (!json_is_array(v) || json_array_size(v) == 0) {
    snprintf(sub, cap, "\"seeds\" must be a non-empty list of integers");
    return -1;
  }
  e->n_seeds = (int)json_array_size(v);
  e->seeds = mp_xrealloc(e->seeds, sizeof(uint64_t) * (size_t)e->n_seeds);
  json_array_foreach(v, i, x) {
    if (!json_is_integer(x) || json_integer_value(x) < 0) {
      snprintf(sub, cap, "\"seeds\"[%zu] must be an integer >= 0", i);
      return -1;
    }
    e->seeds[i] = (uint64_t)json_integer_value(x);
  }
  return 0;
}

static int load_time_limits(json_t *v, mp_experiment *e, char *sub, size_t cap) {
  if (!v) return 0;
  size_t i;
  json_t *x;
  if (!json_is_array(v) || json_array_size(v) == 0) {
    snprintf(sub, cap, "\"time_limits\" must be a non-empty list of seconds");
    return -1;
  }
  e->n_time_limits = (int)json_array_size(v);
  e->time_limits = mp_xrealloc(e->time_limits, sizeof(double) * (size_t)e->n_time_limits);
  json_array_foreach(v, i, x) {
    double t = json_is_number(x) ? json_number_value(x) : -1;
    if (!isfinite(t) || t < 0 || t > 1e9) {
      snprintf(sub, cap, "\"time_limits\"[%zu] must be a number of seconds in [0, 1e9]", i);
      return -1;
    }
    e->time_limits[i] = t == 0 ? 0.0 : t; /* -0 is 0 */
  }
  return 0;
}

/* A number key in [lo, hi], as the matching bench option takes it (absent:
 * *out unchanged): a value beyond it would overflow where it is used (the
 * memory limit in bytes is an rlim_t). */
static int json_num_in(json_t *o, const char *key, double lo, double hi, double *out, char *sub,
                       size_t cap) {
  double v = *out;
  if (json_num(o, key, lo, &v, sub, cap)) return -1;
  if (v > hi) {
    snprintf(sub, cap, "\"%s\" must be a number in [%g, %g]", key, lo, hi);
    return -1;
  }
  *out = v;
  return 0;
}

/* An integer key in [lo, hi] (absent: *out unchanged).  A JSON integer is
 * taken exactly: as a double, 2^60 - 1 would read as 2^60. */
static int json_int_in(json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *out, char *sub,
                       size_t cap) {
  json_t *x = json_object_get(o, key);
  if (!x) return 0;
  double v = json_is_integer(x) ? 0 : json_number_value(x);
  bool ok = json_is_integer(x) ? json_integer_value(x) >= lo && json_integer_value(x) <= hi
                               : json_is_real(x) && v == floor(v) && v >= (double)lo && v <= (double)hi;
  if (!ok) {
    snprintf(sub, cap, "\"%s\" must be an integer in [%lld, %lld]", key, (long long)lo,
             (long long)hi);
    return -1;
  }
  *out = json_is_integer(x) ? json_integer_value(x) : (int64_t)v;
  return 0;
}

static int load_numbers(json_t *o, mp_experiment *e, char *sub, size_t cap) {
  int64_t repeat = e->repeat;
  /* the limits of solve --align and --capacity (util.h): a value beyond them
   * would fail every cell */
  if (json_int_in(o, "align", 0, MP_MAX_ALIGN, &e->align, sub, cap) ||
      json_int_in(o, "capacity", 0, MP_MAX_TOTAL, &e->capacity, sub, cap) ||
      json_int_in(o, "repeat", 1, 1000, &repeat, sub, cap) ||
      json_num_in(o, "mem_limit_mb", 0, 1e12, &e->mem_limit_mb, sub, cap) ||
      json_num_in(o, "grace_s", 0, 1e9, &e->grace_s, sub, cap) ||
      json_num(o, "max_wall_s", 0, &e->max_wall_s, sub, cap))
    return -1;
  e->repeat = (int)repeat;
  return 0;
}

int mp_experiment_load(const char *path, mp_experiment *e, char *msg, size_t cap) {
  mp_experiment_defaults(e);
  free(e->name);
  e->name = NULL;
  e->file = mp_xstrdup(path);
  e->graphs_base = dir_of(path);
  mp_error ce; /* missing or a directory: said as the graph readers say it (no line -1) */
  if (mp_check_input(path, &ce)) {
    mp_msgf(msg, cap, "%s", ce.msg);
    return -1;
  }
  json_error_t je;
  /* as the graph readers: a key given twice is an error, not "the last wins" */
  json_t *o = mp_json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  if (!o) {
    mp_msgf(msg, cap, "%s:%d: %s", path, je.line, je.text);
    return -1;
  }
  char sub[400];
  int rc = check_keys(o, sub, sizeof sub) || load_strings(o, path, e, sub, sizeof sub) ||
                   load_pairs(json_object_get(o, "pairs"), e, sub, sizeof sub) ||
                   load_seeds(json_object_get(o, "seeds"), e, sub, sizeof sub) ||
                   load_time_limits(json_object_get(o, "time_limits"), e, sub, sizeof sub) ||
                   load_numbers(o, e, sub, sizeof sub) ||
                   mp_experiment_load_remat(o, e, sub, sizeof sub)
               ? -1
               : 0;
  if (rc) mp_msgf(msg, cap, "%s: %s", path, sub);
  if (!e->name) e->name = mp_xstrdup("experiment");
  json_decref(o);
  return rc;
}

/* One override against the registry: a solver that exists, an option it
 * has, a finite value in the option's range. */
static int check_one_set(const char *set, char *msg, size_t cap) {
  const char *eq = strchr(set, '=');
  if (!eq || eq == set) {
    mp_msgf(msg, cap, "option '%s': expected NAME=VALUE or SOLVER.NAME=VALUE", set);
    return -1;
  }
  char *end;
  double v = strtod(eq + 1, &end);
  if (end == eq + 1 || *end || !isfinite(v)) {
    mp_msgf(msg, cap, "option '%s': '%s' is not a finite number", set, eq + 1);
    return -1;
  }
  size_t nl = (size_t)(eq - set);
  const char *dot = memchr(set, '.', nl);
  const char *oname = dot ? dot + 1 : set;
  size_t ol = (size_t)(eq - oname);
  bool solver_seen = false;
  int matched = 0;
  for (int k = 0; k < mp_registry_size; k++) {
    const mp_solver *s = mp_registry[k];
    if (dot && (strlen(s->name) != (size_t)(dot - set) || strncmp(s->name, set, (size_t)(dot - set))))
      continue;
    solver_seen = true;
    for (int i = 0; i < s->n_options; i++) {
      if (strlen(s->options[i].name) != ol || strncmp(s->options[i].name, oname, ol)) continue;
      double vals[MP_MAX_OPTS];
      const char *one[1] = {set};
      mp_error err;
      if (mp_solver_options(s, 1, one, vals, &err)) {
        mp_msgf(msg, cap, "%s", err.msg);
        return -1;
      }
      matched++;
    }
  }
  if (dot && !solver_seen) {
    mp_msgf(msg, cap, "option '%s': no solver is named '%.*s' (memplan solvers lists them)", set,
             (int)(dot - set), set);
    return -1;
  }
  if (!matched) {
    if (dot)
      mp_msgf(msg, cap, "option '%s': %.*s has no option '%.*s' (memplan solvers lists them)",
               set, (int)(dot - set), set, (int)ol, oname);
    else
      mp_msgf(msg, cap, "option '%s': no solver has an option '%.*s' (memplan solvers lists them)",
               set, (int)ol, oname);
    return -1;
  }
  return 0;
}

int mp_experiment_check_options(const mp_experiment *e, char *msg, size_t cap) {
  for (int i = 0; i < e->n_sets; i++)
    if (check_one_set(e->sets[i], msg, cap)) return -1;
  /* one option set twice ("sa.iters=10", "iters=20") would fail every cell
   * of that solver: refused here, before anything runs */
  for (int k = 0; k < mp_registry_size; k++) {
    mp_error err;
    if (mp_solver_sets_once(mp_registry[k], e->n_sets, (const char *const *)e->sets, &err)) {
      mp_msgf(msg, cap, "%s", err.msg);
      return -1;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- matrix */

void mp_fmt_seconds(double s, char *out, size_t cap) {
  snprintf(out, cap, "%.6g", s == 0 ? 0.0 : s); /* -0 is 0: one cell key, one text */
}

static bool file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static bool looks_like_path(const char *s) {
  return strchr(s, '/') || ends_with(s, ".json") || ends_with(s, ".csv") ||
         ends_with(s, ".graphml") || ends_with(s, ".xml");
}

typedef struct gsel {
  char *path, *file;
  char digest[17];
} gsel;

/* Resolve a manifest path: beside the manifest, else beside the manifest's
 * directory (manifest in graphs/, paths from the repository root), else
 * from the working directory. */
static char *resolve(const char *manifest, const char *p) {
  if (p[0] == '/') return file_exists(p) ? mp_xstrdup(p) : NULL;
  char *d1 = dir_of(manifest), *d2 = dir_of(d1);
  char *cand[3] = {beside(d1, p), beside(d2, p), mp_xstrdup(p)};
  char *found = NULL;
  for (int i = 0; i < 3; i++) {
    if (!found && file_exists(cand[i]))
      found = cand[i];
    else
      free(cand[i]);
  }
  free(d1);
  free(d2);
  return found;
}

static int split_tsv(char *line, char **f, int max) {
  int n = 0;
  f[n++] = line;
  for (char *c = line; *c && n < max; c++)
    if (*c == '\t') {
      *c = 0;
      f[n++] = c + 1;
    }
  return n;
}

static bool has_tag(const char *tags, const char *tag) {
  size_t tl = strlen(tag);
  const char *p = tags;
  while (*p) {
    while (*p == ',' || *p == ' ') p++;
    size_t l = strcspn(p, ", ");
    if (l == tl && strncmp(p, tag, l) == 0) return true;
    p += l;
  }
  return false;
}

/* The manifest's rows: path and tags (read on first use). */
typedef struct manifest {
  char **path, **tags;
  int n;
  bool read;
  char err[512];  /* why it could not be read ("" when it was) */
} manifest;

static void manifest_destroy(manifest *m) {
  free_list(m->path, m->n);
  free_list(m->tags, m->n);
  memset(m, 0, sizeof *m);
}

static int manifest_read(const char *file, manifest *m, char *msg, size_t cap) {
  if (m->read) {
    if (m->err[0]) mp_msgf(msg, cap, "%s", m->err);
    return m->err[0] ? -1 : 0;
  }
  m->read = true;
  FILE *f = fopen(file, "r");
  if (!f) {
    snprintf(m->err, sizeof m->err, "cannot read the manifest %s (graphs are selected by tag)",
             file);
    mp_msgf(msg, cap, "%s", m->err);
    return -1;
  }
  char line[8192];
  int c_path = -1, c_tags = -1, n_path = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0] || line[0] == '#') continue;
    char *fld[32];
    int nf = split_tsv(line, fld, 32);
    if (c_path < 0) { /* the header */
      for (int i = 0; i < nf; i++) {
        if (!strcmp(fld[i], "path")) c_path = i;
        if (!strcmp(fld[i], "tags")) c_tags = i;
      }
      if (c_path < 0 || c_tags < 0) {
        snprintf(m->err, sizeof m->err, "%s: the header needs columns path and tags", file);
        mp_msgf(msg, cap, "%s", m->err);
        fclose(f);
        return -1;
      }
      continue;
    }
    if (nf <= c_path || nf <= c_tags) continue;
    push(&m->path, &n_path, fld[c_path]);
    push(&m->tags, &m->n, fld[c_tags]);
  }
  fclose(f);
  return 0;
}

static void add_sel(gsel **sel, int *n, const char *path, char *file) {
  *sel = mp_xrealloc(*sel, sizeof(gsel) * (size_t)(*n + 1));
  (*sel)[*n].path = mp_xstrdup(path);
  (*sel)[*n].file = file;
  (*n)++;
}

/* A graph named by its path: the key as written, the file relative to the
 * experiment file; else a manifest row with exactly that path (found as the
 * manifest's graphs are). */
static int add_path(const mp_experiment *e, manifest *m, const char *want, gsel **sel, int *n,
                    char *msg, size_t cap) {
  char *file = e->graphs_base && want[0] != '/' && strcmp(e->graphs_base, ".")
                   ? beside(e->graphs_base, want)
                   : mp_xstrdup(want);
  if (file_exists(file)) {
    add_sel(sel, n, want, file);
    return 0;
  }
  char sub[600];
  if (!manifest_read(e->manifest, m, sub, sizeof sub))
    for (int r = 0; r < m->n; r++) {
      char *found = strcmp(m->path[r], want) ? NULL : resolve(e->manifest, m->path[r]);
      if (found) {
        free(file);
        add_sel(sel, n, want, found);
        return 0;
      }
    }
  struct stat st;
  int why = stat(file, &st) ? errno : 0; /* too long a name, no permission: not "does not exist" */
  if (why && why != ENOENT)
    mp_msgf(msg, cap, "graph file %s: %s", file, strerror(why));
  else
    mp_msgf(msg, cap, "graph file %s %s", file, why ? "does not exist" : "is not a regular file");
  free(file);
  return -1;
}

/* Every manifest graph with the tag ("all": every one). */
static int add_tag(const mp_experiment *e, const manifest *m, const char *tag, gsel **sel, int *n,
                   char *msg, size_t cap) {
  int found = 0;
  for (int r = 0; r < m->n; r++) {
    if (strcmp(tag, "all") && !has_tag(m->tags[r], tag)) continue;
    found++;
    char *file = resolve(e->manifest, m->path[r]);
    if (!file) {
      mp_msgf(msg, cap, "%s: graph %s (tag %s) not found", e->manifest, m->path[r], tag);
      return -1;
    }
    add_sel(sel, n, m->path[r], file);
  }
  if (!found) {
    mp_msgf(msg, cap, "%s: no graph is tagged '%s'", e->manifest, tag);
    return -1;
  }
  return 0;
}

/* "!TAG": leave out the selected manifest graphs that have the tag. */
static void drop_tag(const manifest *m, const char *tag, gsel *sel, int *n) {
  int w = 0;
  for (int i = 0; i < *n; i++) {
    bool drop = false;
    for (int r = 0; r < m->n && !drop; r++)
      drop = !strcmp(m->path[r], sel[i].path) && has_tag(m->tags[r], tag);
    if (drop) {
      free(sel[i].path);
      free(sel[i].file);
    } else {
      sel[w++] = sel[i];
    }
  }
  *n = w;
}

/* The graphs of an experiment: manifest tags (TAG, tag:TAG, all, !TAG to
 * leave a tag out) or paths; then each file's digest. */
static int select_graphs(const mp_experiment *e, gsel **out, int *n_out, char *msg, size_t cap) {
  gsel *sel = NULL;
  int n = 0, rc = 0;
  manifest m = {0};
  for (int pass = 0; pass < 2 && !rc; pass++) /* selections, then exclusions */
    for (int gi = 0; gi < e->n_graphs && !rc; gi++) {
      const char *want = e->graphs[gi];
      bool drop = want[0] == '!', is_tag = !strncmp(want, "tag:", 4);
      if (drop != (pass == 1)) continue;
      if (!drop && !is_tag && looks_like_path(want)) {
        rc = add_path(e, &m, want, &sel, &n, msg, cap);
        continue;
      }
      if ((rc = manifest_read(e->manifest, &m, msg, cap))) break;
      if (drop)
        drop_tag(&m, want + 1, sel, &n);
      else
        rc = add_tag(e, &m, is_tag ? want + 4 : want, &sel, &n, msg, cap);
    }
  if (!rc && !n) {
    mp_msgf(msg, cap, "no graph is left in the selection");
    rc = -1;
  }
  for (int i = 0; i < n && !rc; i++)
    if (mp_file_digest(sel[i].file, sel[i].digest)) {
      mp_msgf(msg, cap, "%s: cannot read", sel[i].file);
      rc = -1;
    }
  manifest_destroy(&m);
  if (rc) {
    for (int i = 0; i < n; i++) {
      free(sel[i].path);
      free(sel[i].file);
    }
    free(sel);
    return -1;
  }
  *out = sel;
  *n_out = n;
  return 0;
}

static bool excluded(const mp_experiment *e, const char *name) {
  for (int i = 0; i < e->n_exclude; i++)
    if (!strcmp(e->exclude[i], name)) return true;
  return false;
}

/* items[0..n) joined by sep, in a new string. */
static char *join(char **items, int n, char sep) {
  size_t len = 1;
  for (int i = 0; i < n; i++) len += strlen(items[i]) + 1;
  char *s = mp_xmalloc(len), *w = s;
  for (int i = 0; i < n; i++) {
    if (i) *w++ = sep;
    size_t l = strlen(items[i]);
    memcpy(w, items[i], l);
    w += l;
  }
  *w = 0;
  return s;
}

/* A checked chain as its cells name it: the names joined by bare commas.
 * "greedy, sa" was a cell of its own, and " sa" named no solver when the
 * cell's options were picked: sa.iters=5 silently left out. */
static char *canon_chain(const char *chain) {
  char **items;
  int k;
  mp_error err;
  if (mp_list_split("chain", chain, &items, &k, &err)) return mp_xstrdup(chain);
  char *s = join(items, k, ',');
  mp_list_free(items, k);
  return s;
}

/* Expand "all" and check every chain: each name registered and deciding
 * the right thing.  Result: chains (strings), canonical. */
static int expand_chains(const mp_experiment *e, char **in, int n_in, bool order, char ***out,
                         int *n_out, char *msg, size_t cap) {
  char **l = NULL;
  int n = 0;
  for (int i = 0; i < n_in; i++) {
    if (!strcmp(in[i], "all")) {
      for (int k = 0; k < mp_registry_size; k++) {
        const mp_solver *s = mp_registry[k];
        bool fits = order ? s->decides == MP_DECIDES_ORDER : (s->decides & MP_DECIDES_OFFSETS) != 0;
        if (fits && !excluded(e, s->name)) push(&l, &n, s->name);
      }
      continue;
    }
    mp_error err;
    if (mp_chain_check(order ? "\"order\" chain" : "\"place\" chain", in[i],
                       order ? MP_STAGE_ORDER : MP_STAGE_PLACE, &err)) {
      mp_msgf(msg, cap, "%s", err.msg);
      free_list(l, n);
      return -1;
    }
    char *c = canon_chain(in[i]);
    push(&l, &n, c);
    free(c);
  }
  /* dedupe, keeping first occurrence */
  int w = 0;
  for (int i = 0; i < n; i++) {
    bool dup = false;
    for (int j = 0; j < w && !dup; j++) dup = !strcmp(l[j], l[i]);
    if (dup)
      free(l[i]);
    else
      l[w++] = l[i];
  }
  *out = l;
  *n_out = w;
  return 0;
}

static bool chain_decides_both(const char *chain) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", chain);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const mp_solver *s = mp_solver_find(t);
    if (s && s->decides == MP_DECIDES_BOTH) return true;
  }
  return false;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *mp_cell_option(const char *options, const char *key) {
  size_t kl = strlen(key);
  for (const char *t = options; t && *t; t = strchr(t, ' ') ? strchr(t, ' ') + 1 : NULL)
    if (!strncmp(t, key, kl) && t[kl] == '=') return t + kl + 1;
  return NULL;
}

/* The overrides that apply to a cell's solvers, sorted: "a.x=1 y=2". */
static char *cell_options(const mp_experiment *e, const char *order, const char *remat,
                          const char *place) {
  char **app = NULL;
  int n = 0;
  char buf[1200];
  if (e->align > 0) {
    snprintf(buf, sizeof buf, "align=%lld", (long long)e->align);
    push(&app, &n, buf);
  }
  if (e->capacity > 0) {
    snprintf(buf, sizeof buf, "capacity=%lld", (long long)e->capacity);
    push(&app, &n, buf);
  }
  int fixed = n; /* align and capacity first, then the sorted overrides */
  char chains[1100];
  snprintf(chains, sizeof chains, "%s,%s%s%s", order, place, remat[0] ? "," : "", remat);
  for (int i = 0; i < e->n_sets; i++) {
    const char *set = e->sets[i];
    const char *eq = strchr(set, '=');
    size_t nl = eq ? (size_t)(eq - set) : strlen(set);
    const char *dot = memchr(set, '.', nl);
    bool applies = false;
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s", chains);
    for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t && !applies;
         t = strtok_r(NULL, ",", &save)) {
      const mp_solver *s = mp_solver_find(t);
      if (!s) continue;
      const char *oname = set;
      size_t ol = nl;
      if (dot) {
        if (strlen(s->name) != (size_t)(dot - set) || strncmp(s->name, set, (size_t)(dot - set)))
          continue;
        oname = dot + 1;
        ol = (size_t)(set + nl - oname);
      }
      for (int k = 0; k < s->n_options && !applies; k++)
        applies = strlen(s->options[k].name) == ol && !strncmp(s->options[k].name, oname, ol);
    }
    if (applies) push(&app, &n, set);
  }
  if (n - fixed > 1) qsort(app + fixed, (size_t)(n - fixed), sizeof(char *), cmp_str);
  char *s = join(app, n, ' ');
  free_list(app, n);
  return s;
}

/* The key of a cell without recomputation is what it was before remat
 * cells existed (results files and claims of older versions still match);
 * a remat cell appends its chain, budget and bandwidth. */
static char *make_key(const char *path, const char *order, const char *place, uint64_t seed,
                      double tl, const char *options, const char *remat, const char *budget,
                      const char *bw) {
  char t[64];
  mp_fmt_seconds(tl, t, sizeof t);
  size_t len = strlen(path) + strlen(order) + strlen(place) + strlen(options) + strlen(remat) +
               strlen(budget) + strlen(bw) + 128;
  char *k = mp_xmalloc(len);
  int l = snprintf(k, len, "%s\x1f%s\x1f%s\x1f%020llu\x1f%s\x1f%s", path, order, place,
                   (unsigned long long)seed, t, options);
  if (remat[0]) snprintf(k + l, len - (size_t)l, "\x1f%s\x1f%s\x1f%s", remat, budget, bw);
  return k;
}

#define NZ(s) ((s) ? (s) : "")
char *mp_row_key(const mp_row *r) {
  return make_key(NZ(r->path), NZ(r->order), NZ(r->place), r->seed, r->time_limit, NZ(r->options),
                  NZ(r->remat), NZ(r->budget_arg), NZ(r->bandwidth_arg));
}

static void add_cell(mp_matrix *m, int *cap, const gsel *g, const char *order, const char *place,
                     const mp_remat_setting *rs, uint64_t seed, double tl,
                     const mp_experiment *e) {
  char *opts = cell_options(e, order, rs->chain, place);
  char *key = make_key(g->path, order, place, seed, tl, opts, rs->chain, rs->budget, rs->bandwidth);
  if (m->n == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    m->cells = mp_xrealloc(m->cells, sizeof(mp_cell) * (size_t)*cap);
  }
  mp_cell *c = &m->cells[m->n++];
  c->path = mp_xstrdup(g->path);
  c->file = mp_xstrdup(g->file);
  c->order = mp_xstrdup(order);
  c->place = mp_xstrdup(place);
  c->seed = seed;
  c->time_limit = tl;
  c->options = opts;
  c->remat = mp_xstrdup(rs->chain);
  c->budget = mp_xstrdup(rs->budget);
  c->bandwidth = mp_xstrdup(rs->bandwidth);
  c->key = key;
  c->digest = mp_xstrdup(g->digest);
  c->fingerprint = mp_cell_fingerprint(g->digest, order, rs->chain, place);
}

static void cell_destroy(mp_cell *c);

static int cmp_cell(const void *a, const void *b) {
  return strcmp(((const mp_cell *)a)->key, ((const mp_cell *)b)->key);
}

/* The (order, place) pairs of an experiment. */
typedef struct pairlist {
  char **o, **p;
  bool *explicit_; /* from "pairs": exempt from the joint-solver rule */
  int n;
} pairlist;

static void pair_add(pairlist *l, const char *o, const char *p, bool ex) {
  l->o = mp_xrealloc(l->o, sizeof(char *) * (size_t)(l->n + 1));
  l->p = mp_xrealloc(l->p, sizeof(char *) * (size_t)(l->n + 1));
  l->explicit_ = mp_xrealloc(l->explicit_, sizeof(bool) * (size_t)(l->n + 1));
  l->o[l->n] = mp_xstrdup(o);
  l->p[l->n] = mp_xstrdup(p);
  l->explicit_[l->n++] = ex;
}

static void pairs_destroy(pairlist *l) {
  free_list(l->o, l->n);
  free_list(l->p, l->n);
  free(l->explicit_);
  memset(l, 0, sizeof *l);
}

/* Every order x every placer ("all" expanded), then the explicit pairs. */
static int build_pairs(const mp_experiment *e, pairlist *l, char *msg, size_t cap) {
  char **ord = NULL, **plc = NULL;
  int no = 0, np = 0, rc = 0;
  if (expand_chains(e, e->order, e->n_order, true, &ord, &no, msg, cap) ||
      expand_chains(e, e->place, e->n_place, false, &plc, &np, msg, cap))
    rc = -1;
  for (int pi = 0; pi < np && !rc; pi++)
    for (int oi = 0; oi < no; oi++) pair_add(l, ord[oi], plc[pi], false);
  free_list(ord, no);
  free_list(plc, np);
  for (int i = 0; i < e->n_pairs && !rc; i++) {
    char *buf = mp_xstrdup(e->pairs[i]); /* "ORDER\tPLACE" (load_pairs) */
    char *tab = strchr(buf, '\t');
    *tab = 0;
    char *o1[1] = {buf}, *p1[1] = {tab + 1};
    ord = plc = NULL;
    no = np = 0;
    if (expand_chains(e, o1, 1, true, &ord, &no, msg, cap) ||
        expand_chains(e, p1, 1, false, &plc, &np, msg, cap))
      rc = -1;
    for (int x = 0; x < no && !rc; x++)
      for (int y = 0; y < np; y++) pair_add(l, ord[x], plc[y], true);
    free_list(ord, no);
    free_list(plc, np);
    free(buf);
  }
  return rc;
}

/* The cells of one graph.  Rules: a fixed-lifetime problem has no order to
 * choose (its cells run with the file order only; joint solvers need a
 * graph) and no nodes to recompute (no remat cells); a joint solver decides
 * the order itself, so the cross product pairs it with the file order only,
 * and it places no residencies of an event plan (no remat cells). */
static void graph_cells(const mp_experiment *e, const gsel *g, const pairlist *l,
                        const mp_remat_settings *rs, mp_matrix *m, int *ccap) {
  bool fixed = ends_with(g->file, ".csv");
  for (int k = 0; k < l->n; k++) {
    bool both = chain_decides_both(l->p[k]), file_order = mp_chain_is_file_order(l->o[k]);
    if ((fixed && (!file_order || both)) || (!l->explicit_[k] && both && !file_order)) {
      m->n_skipped += rs->n;
      continue;
    }
    for (int r = 0; r < rs->n; r++) {
      if (rs->s[r].chain[0] && (fixed || both)) {
        m->n_skipped++;
        continue;
      }
      for (int si = 0; si < e->n_seeds; si++)
        for (int ti = 0; ti < e->n_time_limits; ti++)
          add_cell(m, ccap, g, l->o[k], l->p[k], &rs->s[r], e->seeds[si], e->time_limits[ti], e);
    }
  }
}

/* Sorted by key; the same cell named twice (two tags, a pair repeating the
 * product) once. */
static void sort_unique(mp_matrix *m) {
  if (m->n > 1) qsort(m->cells, (size_t)m->n, sizeof(mp_cell), cmp_cell);
  int w = 0;
  for (int i = 0; i < m->n; i++) {
    if (w > 0 && !strcmp(m->cells[w - 1].key, m->cells[i].key)) {
      cell_destroy(&m->cells[i]);
      continue;
    }
    m->cells[w++] = m->cells[i];
  }
  m->n = w;
}

int mp_matrix_build(const mp_experiment *e, mp_matrix *m, char *msg, size_t cap) {
  memset(m, 0, sizeof *m);
  if (e->n_graphs == 0) {
    mp_msgf(msg, cap, "no graphs: give \"graphs\" in the experiment or --graphs");
    return -1;
  }
  mp_remat_settings rs;
  if (mp_remat_settings_build(e, &rs, msg, cap)) return -1;
  gsel *gs = NULL;
  int ng = 0, ccap = 0;
  if (select_graphs(e, &gs, &ng, msg, cap)) {
    mp_remat_settings_destroy(&rs);
    return -1;
  }
  pairlist l = {0};
  int rc = build_pairs(e, &l, msg, cap);
  for (int gi = 0; gi < ng && !rc; gi++) graph_cells(e, &gs[gi], &l, &rs, m, &ccap);
  if (!rc) sort_unique(m);
  pairs_destroy(&l);
  mp_remat_settings_destroy(&rs);
  for (int i = 0; i < ng; i++) {
    free(gs[i].path);
    free(gs[i].file);
  }
  free(gs);
  if (rc) mp_matrix_destroy(m);
  return rc;
}

static void cell_destroy(mp_cell *c) {
  free(c->path);
  free(c->file);
  free(c->order);
  free(c->place);
  free(c->options);
  free(c->remat);
  free(c->budget);
  free(c->bandwidth);
  free(c->key);
  free(c->digest);
  free(c->fingerprint);
}

void mp_matrix_destroy(mp_matrix *m) {
  for (int i = 0; i < m->n; i++) cell_destroy(&m->cells[i]);
  free(m->cells);
  memset(m, 0, sizeof *m);
}

void mp_matrix_shard(mp_matrix *m, int i, int n) {
  if (n <= 1) return;
  int w = 0;
  for (int k = 0; k < m->n; k++) {
    if (k % n == i)
      m->cells[w++] = m->cells[k];
    else
      cell_destroy(&m->cells[k]);
  }
  m->n = w;
}

int mp_parse_shard(const char *s, int *i, int *n) {
  const char *slash = strchr(s, '/');
  char head[32];
  int64_t a, b; /* each side read exactly (strtol took " 0/ 2" and "+0/2") */
  if (!slash || slash - s >= (ptrdiff_t)sizeof head) return -1;
  snprintf(head, sizeof head, "%.*s", (int)(slash - s), s);
  if (mp_parse_int64(head, &a, NULL) || mp_parse_int64(slash + 1, &b, NULL)) return -1;
  if (b < 1 || a < 0 || a >= b || b > 1000000) return -1;
  *i = (int)a;
  *n = (int)b;
  return 0;
}
