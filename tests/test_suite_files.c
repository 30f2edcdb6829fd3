/* test_suite_files.c - the committed benchmark suite: every graph listed in
 * graphs/SUITE.tsv loads, is acyclic, its file order is topological, and its
 * node and buffer counts match the manifest; every file under graphs/real,
 * graphs/synthetic and graphs/minimalloc is listed; tags come from the
 * documented set; and every synthetic graph is exactly what its recorded
 * `memplan gen` command writes.  Tests run in tests/: paths are ../. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "testlib.h"

#define MANIFEST "../graphs/SUITE.tsv"
#define MAX_ROWS 4096

typedef struct row {
  char *path, *family, *tags, *source;
  long nodes, buffers;
} row;

static row rows[MAX_ROWS];
static int n_rows;

static void free_rows(void) {
  for (int i = 0; i < n_rows; i++) {
    free(rows[i].path);
    free(rows[i].family);
    free(rows[i].tags);
    free(rows[i].source);
  }
  n_rows = 0;
}

static char *dup_str(const char *s) {
  char *d = malloc(strlen(s) + 1);
  strcpy(d, s);
  return d;
}

static void read_manifest(void) {
  free_rows();
  FILE *f = fopen(MANIFEST, "r");
  ck_assert_msg(f != NULL, "cannot open %s", MANIFEST);
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  ck_assert_int_gt(getline(&line, &cap, f), 0);
  ck_assert_str_eq(line, "path\tfamily\tnodes\tbuffers\ttags\tsource\n");
  int lineno = 1;
  while ((len = getline(&line, &cap, f)) > 0) {
    lineno++;
    if (line[len - 1] == '\n') line[len - 1] = 0;
    char *field[6];
    int nf = 0;
    char *p = line;
    while (nf < 6) {
      field[nf++] = p;
      char *t = strchr(p, '\t');
      if (!t) break;
      *t = 0;
      p = t + 1;
    }
    ck_assert_msg(nf == 6, "%s:%d: %d fields, want 6", MANIFEST, lineno, nf);
    ck_assert_msg(n_rows < MAX_ROWS, "too many rows");
    row *r = &rows[n_rows++];
    char full[1024];
    snprintf(full, sizeof full, "../%s", field[0]);
    r->path = dup_str(full);
    r->family = dup_str(field[1]);
    r->nodes = strtol(field[2], NULL, 10);
    r->buffers = strtol(field[3], NULL, 10);
    r->tags = dup_str(field[4]);
    r->source = dup_str(field[5]);
  }
  free(line);
  fclose(f);
  ck_assert_int_gt(n_rows, 0);
}

static bool has_tag(const row *r, const char *tag) {
  size_t n = strlen(tag);
  for (const char *p = r->tags; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, tag, n)) return true;
    if (!e) break;
    p = e + 1;
  }
  return false;
}

START_TEST(manifest_graphs_load) {
  read_manifest();
  for (int i = 0; i < n_rows; i++) {
    row *r = &rows[i];
    mp_instance in;
    mp_error err;
    ck_assert_msg(mp_instance_load(r->path, NULL, &in, &err) == 0, "%s", err.msg);
    if (in.g) {
      const mp_graph *g = in.g;
      ck_assert_msg(tl_igraph_is_dag(g, NULL), "%s: not acyclic", r->path);
      ck_assert_msg(mp_order_check(g, g->given, &err) == -1, "%s: file order: %s", r->path,
                    err.msg);
      ck_assert_msg(r->nodes == g->n && r->buffers == g->n_buf,
                    "%s: manifest says %ld nodes %ld buffers, file has %d and %d", r->path,
                    r->nodes, r->buffers, g->n, g->n_buf);
      ck_assert_msg(!has_tag(r, "fixed-lifetime"), "%s: a graph tagged fixed-lifetime", r->path);
      if (has_tag(r, "tiny")) ck_assert_int_le(g->n, 20);
    } else {
      ck_assert_msg(has_tag(r, "fixed-lifetime"), "%s: CSV not tagged fixed-lifetime", r->path);
      ck_assert_int_eq(r->buffers, in.fixed->n);
    }
    mp_instance_destroy(&in);
  }
  free_rows();
}
END_TEST

static const char *const known_tags[] = {"tiny",    "real",  "train",    "synthetic",
                                         "fixed-lifetime", "default", "randwire", "nas",
                                         "layered", "tree",  "sp",       "chain",
                                         "minimalloc", "torchvision", "transformer",
                                         "large"};

START_TEST(manifest_tags) {
  read_manifest();
  int n_default = 0, n_tiny = 0, kinds = 0;
  bool def_real = false, def_syn = false, def_fixed = false;
  for (int i = 0; i < n_rows; i++) {
    row *r = &rows[i];
    char *tags = dup_str(r->tags), *save = NULL;
    for (char *t = strtok_r(tags, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      bool ok = false;
      for (size_t k = 0; k < sizeof known_tags / sizeof *known_tags; k++)
        ok |= !strcmp(t, known_tags[k]);
      ck_assert_msg(ok, "%s: unknown tag '%s'", r->path, t);
    }
    free(tags);
    ck_assert_msg(has_tag(r, r->family), "%s: family %s is not among its tags", r->path,
                  r->family);
    kinds = has_tag(r, "real") + has_tag(r, "synthetic") + has_tag(r, "fixed-lifetime");
    ck_assert_msg(kinds == 1, "%s: exactly one of real/synthetic/fixed-lifetime", r->path);
    if (has_tag(r, "default")) {
      n_default++;
      def_real |= has_tag(r, "real");
      def_syn |= has_tag(r, "synthetic");
      def_fixed |= has_tag(r, "fixed-lifetime");
    }
    n_tiny += has_tag(r, "tiny");
    ck_assert_msg(access(r->path, R_OK) == 0, "%s is listed but missing", r->path);
    for (int j = 0; j < i; j++) ck_assert_msg(strcmp(rows[j].path, r->path), "%s twice", r->path);
  }
  ck_assert_int_ge(n_default, 5);
  ck_assert_int_le(n_default, 15);
  ck_assert(def_syn && def_fixed);
  (void)def_real; /* real graphs join the default set once exported */
  ck_assert_int_ge(n_tiny, 5);
  free_rows();
}
END_TEST

/* Every graph file under the suite's folders is in the manifest. */
static void check_listed(const char *dir, const char *ext) {
  DIR *d = opendir(dir);
  if (!d) return; /* graphs/real may not exist yet */
  struct dirent *e;
  char missing[1024] = "";
  while ((e = readdir(d)) && !missing[0]) {
    size_t n = strlen(e->d_name), m = strlen(ext);
    if (n < m || strcmp(e->d_name + n - m, ext)) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    bool found = false;
    for (int i = 0; i < n_rows && !found; i++) found = !strcmp(rows[i].path, path);
    if (!found) snprintf(missing, sizeof missing, "%s", path);
  }
  closedir(d);
  ck_assert_msg(!missing[0], "%s is not in %s (run scripts/make_manifest.sh)", missing, MANIFEST);
}

START_TEST(every_file_listed) {
  read_manifest();
  check_listed("../graphs/real", ".json");
  check_listed("../graphs/synthetic", ".json");
  check_listed("../graphs/minimalloc/challenging", ".csv");
  check_listed("../graphs/minimalloc/examples", ".csv");
  free_rows();
}
END_TEST

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot read %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* The committed synthetic graphs are exactly what their recorded command
 * writes today: the generators have not drifted since `make graphs`. */
START_TEST(synthetic_regenerate) {
  read_manifest();
  mkdir("tmp", 0755);
  char out[64];
  snprintf(out, sizeof out, "tmp/regen_%ld.json", (long)getpid());
  int checked = 0;
  for (int i = 0; i < n_rows; i++) {
    row *r = &rows[i];
    if (!has_tag(r, "synthetic")) continue;
    ck_assert_msg(!strncmp(r->source, "memplan gen ", 12), "%s: source is not a gen command",
                  r->path);
    char *cmd = dup_str(r->source + 8), *save = NULL; /* from "gen ..." */
    char *argv[64];
    int argc = 0;
    for (char *t = strtok_r(cmd, " ", &save); t && argc < 60; t = strtok_r(NULL, " ", &save))
      argv[argc++] = t;
    argv[argc++] = "--out";
    argv[argc++] = out;
    argv[argc] = NULL;
    ck_assert_msg(mp_cmd_gen(argc, argv) == 0, "%s: its command fails", r->path);
    size_t la, lb;
    char *a = slurp(r->path, &la), *b = slurp(out, &lb);
    ck_assert_msg(la == lb && !memcmp(a, b, la), "%s differs from what `%s` writes now",
                  r->path, r->source);
    free(a);
    free(b);
    free(cmd);
    checked++;
  }
  unlink(out);
  ck_assert_int_gt(checked, 0);
  free_rows();
}
END_TEST

Suite *suite_suite_files(void) {
  Suite *s = suite_create("suite_files");
  TCase *tc = tcase_create("suite_files");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, manifest_graphs_load);
  tcase_add_test(tc, manifest_tags);
  tcase_add_test(tc, every_file_listed);
  tcase_add_test(tc, synthetic_regenerate);
  suite_add_tcase(s, tc);
  return s;
}
