/* bench_set.c - one setting of an experiment changed by name, as `memplan
 * bench --SETTING VALUE` changes it (mp_experiment_set in bench.h): the
 * values are read exactly, lists replace the experiment's, chains are
 * replaced or appended, option overrides replace the same option. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "chain.h"
#include "util.h"

/* Numbers read as solve reads them (mp_parse_real, mp_parse_int64): the
 * whole text, no blanks, no hexadecimal, finite, in range. */
static int parse_real(const char *s, double lo, double hi, double *out) {
  double v;
  if (mp_parse_real(s, &v, NULL) || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

/* A non-negative integer within 64 signed bits (solve's --seed range). */
static int parse_u64(const char *s, uint64_t *out) {
  int64_t v;
  if (mp_parse_int64(s, &v, NULL) || v < 0) return -1;
  *out = (uint64_t)v;
  return 0;
}

/* An integer count in [lo, hi]. */
static int parse_count(const char *s, int lo, int hi, int *out) {
  double x;
  if (parse_real(s, lo, hi, &x) || x != (int)x) return -1;
  *out = (int)x;
  return 0;
}

/* A byte count in [1, hi]. */
static int parse_bytes(const char *s, uint64_t hi, int64_t *out) {
  uint64_t u;
  if (parse_u64(s, &u) || u < 1 || u > hi) return -1;
  *out = (int64_t)u;
  return 0;
}

static void free_strings(char **l, int n) {
  for (int i = 0; i < n; i++) free(l[i]);
  free(l);
}

static int parse_doubles(const char *what, const char *s, double **out, int *n, char *msg,
                         size_t cap) {
  char **l = NULL;
  int k = 0, bad = 0;
  if (mp_split_list(what, s, &l, &k, msg, cap)) return -1;
  double *v = mp_xmalloc(sizeof(double) * (size_t)k);
  for (int i = 0; i < k; i++) {
    bad |= parse_real(l[i], 0, 1e9, &v[i]);
    if (!bad && v[i] == 0) v[i] = 0; /* -0 is 0 */
  }
  free_strings(l, k);
  if (bad) {
    free(v);
    return -1;
  }
  free(*out);
  *out = v;
  *n = k;
  return 0;
}

static int parse_seeds(const char *s, mp_experiment *e, char *msg, size_t cap) {
  char **l = NULL;
  int k = 0, bad = 0;
  if (mp_split_list("--seeds", s, &l, &k, msg, cap)) return -1;
  uint64_t *v = mp_xmalloc(sizeof(uint64_t) * (size_t)k);
  for (int i = 0; i < k; i++) bad |= parse_u64(l[i], &v[i]);
  free_strings(l, k);
  if (bad) {
    free(v);
    return -1;
  }
  free(e->seeds);
  e->seeds = v;
  e->n_seeds = k;
  return 0;
}

/* budgets / bandwidth: a comma list of canonical texts, replacing *l. */
static int parse_axis(const char *v, bool budgets, char ***l, int *n, char *msg, size_t cap) {
  char **in = NULL, **out = NULL;
  int k = 0, m = 0, bad = mp_split_list(budgets ? "--budgets" : "--bandwidth", v, &in, &k, msg, cap);
  for (int i = 0; i < k && !bad; i++) {
    char c[64];
    bad = budgets ? mp_budget_arg_canon(in[i], c, sizeof c, msg, cap)
                  : mp_bandwidth_arg_canon(in[i], c, sizeof c, msg, cap);
    if (!bad) mp_list_push(&out, &m, c);
  }
  free_strings(in, k);
  if (bad) {
    free_strings(out, m);
    return -1;
  }
  free_strings(*l, *n);
  *l = out;
  *n = m;
  return 0;
}

/* A chain is one value ("greedy,sa"), never split into cells; its names
 * are separated by single commas (mp_list_split), no blanks. */
static int chain_ok(const char *s, const char *v, char *msg, size_t cap) {
  char what[32], **names;
  int n;
  mp_error err;
  snprintf(what, sizeof what, "--%s", s);
  if (mp_list_split(what, v, &names, &n, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return 0;
  }
  mp_list_free(names, n);
  if (strchr(v, ':') || strchr(v, ' ') || strchr(v, '\t')) return 0;
  if (!strcmp(v, "all") || (!strcmp(s, "remat") && !strcmp(v, "none"))) return 1;
  /* an unknown name on the command line is bad usage (exit 2), as in solve */
  mp_stage_kind kind = !strcmp(s, "order")   ? MP_STAGE_ORDER
                       : !strcmp(s, "place") ? MP_STAGE_PLACE
                                             : MP_STAGE_EVENTS;
  snprintf(what, sizeof what, "--%s chain", s);
  if (mp_chain_check(what, v, kind, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return 0;
  }
  return 1;
}

static void set_chain(const char *v, bool add, char ***l, int *n) {
  if (!add) {
    free_strings(*l, *n);
    *l = NULL;
    *n = 0;
  }
  mp_list_push(l, n, v);
}

/* An option override replaces the experiment's value of the same option. */
static void set_option(mp_experiment *e, const char *v) {
  size_t nl = strcspn(v, "=");
  for (int k = 0; k < e->n_sets; k++)
    if (strlen(e->sets[k]) > nl && !strncmp(e->sets[k], v, nl) && e->sets[k][nl] == '=') {
      free(e->sets[k]);
      e->sets[k--] = e->sets[--e->n_sets];
    }
  mp_list_push(&e->sets, &e->n_sets, v);
}

/* The settings whose value is a list, a chain or a text. */
static int set_text(mp_experiment *e, const char *s, const char *v, bool add, char *msg,
                    size_t cap) {
  if (!strcmp(s, "graphs")) {
    free(e->graphs_base); /* paths given here: from the working directory */
    e->graphs_base = NULL;
    return mp_split_list("--graphs", v, &e->graphs, &e->n_graphs, msg, cap);
  }
  if (!strcmp(s, "manifest")) {
    free(e->manifest);
    e->manifest = mp_xstrdup(v);
    return 0;
  }
  if (!strcmp(s, "order") || !strcmp(s, "place") || !strcmp(s, "remat")) {
    if (!chain_ok(s, v, msg, cap)) return -1;
    if (!strcmp(s, "order")) set_chain(v, add, &e->order, &e->n_order);
    if (!strcmp(s, "place")) set_chain(v, add, &e->place, &e->n_place);
    if (!strcmp(s, "remat")) mp_experiment_add_remat(e, v, !add);
    return 0;
  }
  if (!strcmp(s, "set")) {
    set_option(e, v);
    return 0;
  }
  if (!strcmp(s, "seeds")) return parse_seeds(v, e, msg, cap);
  if (!strcmp(s, "time-limit"))
    return parse_doubles("--time-limit", v, &e->time_limits, &e->n_time_limits, msg, cap);
  return 1;
}

/* The settings whose value is one number. */
static int set_number(mp_experiment *e, const char *s, const char *v) {
  if (!strcmp(s, "mem-limit")) return parse_real(v, 0, 1e12, &e->mem_limit_mb);
  if (!strcmp(s, "grace")) return parse_real(v, 0, 1e9, &e->grace_s);
  if (!strcmp(s, "repeat")) return parse_count(v, 1, 1000, &e->repeat);
  if (!strcmp(s, "capacity")) return parse_bytes(v, (uint64_t)MP_MAX_TOTAL, &e->capacity);
  if (!strcmp(s, "align")) return parse_bytes(v, (uint64_t)MP_MAX_ALIGN, &e->align);
  return 1;
}

int mp_experiment_set(mp_experiment *e, const char *setting, const char *value, bool add,
                      char *msg, size_t cap) {
  const char *s = setting, *v = value;
  msg[0] = 0; /* a list's own complaint (an empty item) is kept below */
  if (!strcmp(s, "budgets") || !strcmp(s, "bandwidth")) {
    bool b = !strcmp(s, "budgets");
    return parse_axis(v, b, b ? &e->budgets : &e->bandwidths, b ? &e->n_budgets : &e->n_bandwidths,
                      msg, cap);
  }
  int rc = set_text(e, s, v, add, msg, cap);
  if (rc > 0) rc = set_number(e, s, v);
  if (rc > 0) {
    mp_msgf(msg, cap, "unknown option '--%s'", s);
    return -1;
  }
  if (rc == 0 || msg[0]) return rc ? -1 : 0;
  if (!strcmp(s, "order") || !strcmp(s, "place") || !strcmp(s, "remat"))
    mp_msgf(msg, cap, "bad value '%s' for --%s (one chain per option, written greedy,sa; "
             "repeat --%s for several)", v, s, s);
  else
    mp_msgf(msg, cap, "bad value '%s' for --%s", v, s);
  return -1;
}
