/* bench_remat.c - the recomputation axes of an experiment (DESIGN 6):
 *
 *   "remat":     events solver chains ("all": every registered one; "none":
 *                cells without an events stage), or objects
 *                {"chain": C, "budgets": [...], "bandwidth": [...]} with
 *                their own lists
 *   "budgets":   "0.8x" (a fraction of the live peak of the order handed to
 *                the stage: solve --budget-frac 0.8) or an integer number of
 *                bytes (solve --budget B)
 *   "bandwidth": bytes per cost unit (0: no offload), or "graph" (the
 *                graph's own host_bandwidth: no --bandwidth); default graph
 *
 * Budgets and bandwidths are kept as canonical text: they are part of the
 * cell key, so "0.80x" and "0.8x" are one cell. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_remat.h"
#include "chain.h"
#include "util.h"

/* ------------------------------------------------------------ canonical text */

static bool all_digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

/* "0.80" -> "0.8", "00.5" -> "0.5", ".5" -> "0.5", "1.0" -> "1"; digits
 * (whole and fraction) in *nd.  -1 unless DIGITS[.DIGITS] or .DIGITS. */
static int canon_decimal(const char *s, size_t n, char *out, size_t cap, int *nd) {
  const char *dot = memchr(s, '.', n);
  size_t wi = dot ? (size_t)(dot - s) : n, fl = dot ? n - wi - 1 : 0;
  const char *fr = dot ? dot + 1 : "";
  if (!all_digits(s, wi) || !all_digits(fr, fl) || wi + fl == 0) return -1;
  while (wi > 1 && s[0] == '0') s++, wi--;
  while (fl > 0 && fr[fl - 1] == '0') fl--;
  *nd = (int)(wi + fl);
  if (wi == 0) s = "0", wi = 1;
  int l = snprintf(out, cap, "%.*s", (int)wi, s);
  if (fl) snprintf(out + l, cap - (size_t)l, ".%.*s", (int)fl, fr);
  return 0;
}

int mp_budget_arg_canon(const char *text, char *out, size_t cap, char *msg, size_t mcap) {
  size_t n = strlen(text);
  char num[64];
  int nd;
  bool frac = n > 1 && text[n - 1] == 'x';
  if (frac && n < sizeof num && !canon_decimal(text, n - 1, num, sizeof num, &nd)) {
    double v = strtod(num, NULL);
    if (v > 0 && v <= 1000 && nd <= 18) {
      snprintf(out, cap, "%sx", num);
      return 0;
    }
    snprintf(msg, mcap, "budget '%s': a fraction must be in (0, 1000] with at most 18 digits",
             text);
    return -1;
  }
  if (!frac && n > 0 && n <= 19 && all_digits(text, n)) {
    unsigned long long v = strtoull(text, NULL, 10);
    if (v >= 1 && v <= (1ULL << 62)) {
      snprintf(out, cap, "%llu", v);
      return 0;
    }
  }
  snprintf(msg, mcap, "budget '%s': write a fraction of the order's live peak as \"0.8x\", or "
           "a positive integer number of bytes", text);
  return -1;
}

bool mp_budget_arg_frac(const char *arg, double *frac) {
  size_t n = arg ? strlen(arg) : 0;
  if (n < 2 || arg[n - 1] != 'x') return false;
  if (frac) *frac = strtod(arg, NULL);
  return true;
}

int mp_bandwidth_arg_canon(const char *text, char *out, size_t cap, char *msg, size_t mcap) {
  if (!strcmp(text, "graph")) {
    snprintf(out, cap, "%s", "");
    return 0;
  }
  double v; /* read as solve --bandwidth reads it: no blanks, no hexadecimal */
  if (mp_parse_real(text, &v, NULL) || v < 0 || v > 1e300) {
    snprintf(msg, mcap, "bandwidth '%s': bytes per cost unit (a number >= 0; 0: no offload), or "
             "\"graph\" (the graph's host_bandwidth)", text);
    return -1;
  }
  if (v == 0) v = 0; /* -0 is 0: one cell, written "0" */
  if (v == floor(v) && v < 1e18) {
    snprintf(out, cap, "%.0f", v);
    return 0;
  }
  for (int prec = 1; prec <= 17; prec++) { /* the shortest text that reads back */
    snprintf(out, cap, "%.*g", prec, v);
    if (strtod(out, NULL) == v) break;
  }
  return 0;
}

/* ------------------------------------------------------------ experiment file */

static void free_list(char **l, int n) {
  for (int i = 0; i < n; i++) free(l[i]);
  free(l);
}

/* One budget of a JSON list: an integer (bytes) or a string. */
static int json_budget(json_t *x, const char *where, char *out, size_t cap, char *sub,
                       size_t scap) {
  char text[64];
  if (json_is_integer(x)) {
    snprintf(text, sizeof text, "%lld", (long long)json_integer_value(x));
  } else if (json_is_string(x) && json_string_length(x) < sizeof text) {
    snprintf(text, sizeof text, "%s", json_string_value(x));
  } else if (json_is_string(x)) { /* cut to fit, its end would go unread */
    snprintf(sub, scap, "%s: a budget of %zu characters (at most %zu)", where,
             json_string_length(x), sizeof text - 1);
    return -1;
  } else {
    snprintf(sub, scap, "%s: a budget is an integer number of bytes or a fraction written as a "
             "string (\"0.8x\")", where);
    return -1;
  }
  char m[200];
  if (mp_budget_arg_canon(text, out, cap, m, sizeof m)) {
    snprintf(sub, scap, "%s: %s", where, m);
    return -1;
  }
  return 0;
}

static int json_bandwidth(json_t *x, const char *where, char *out, size_t cap, char *sub,
                          size_t scap) {
  char text[64], m[200];
  if (json_is_number(x))
    snprintf(text, sizeof text, "%.17g", json_number_value(x));
  else if (json_is_string(x) && json_string_length(x) < sizeof text)
    snprintf(text, sizeof text, "%s", json_string_value(x));
  else if (json_is_string(x)) { /* cut to fit, "1.000...0junk" would read as 1 */
    snprintf(sub, scap, "%s: a bandwidth of %zu characters (at most %zu)", where,
             json_string_length(x), sizeof text - 1);
    return -1;
  } else
    snprintf(text, sizeof text, "?");
  if (mp_bandwidth_arg_canon(text, out, cap, m, sizeof m)) {
    snprintf(sub, scap, "%s: %s", where, m);
    return -1;
  }
  return 0;
}

/* A list (or one value) of budgets or bandwidths into canonical texts. */
static int json_axis(json_t *v, const char *key, bool budgets, char ***out, int *n, char *sub,
                     size_t cap) {
  if (!v) return 0;
  if (json_is_array(v) && json_array_size(v) == 0) {
    snprintf(sub, cap, "\"%s\" must not be empty", key);
    return -1;
  }
  json_t *arr = json_is_array(v) ? json_incref(v) : json_pack("[O]", v);
  size_t i;
  json_t *x;
  int rc = 0;
  json_array_foreach(arr, i, x) {
    char where[80], c[64];
    snprintf(where, sizeof where, "\"%s\"[%zu]", key, i);
    rc = budgets ? json_budget(x, where, c, sizeof c, sub, cap)
                 : json_bandwidth(x, where, c, sizeof c, sub, cap);
    if (rc) break;
    mp_list_push(out, n, c);
  }
  json_decref(arr);
  return rc;
}

static mp_remat_entry *new_entry(mp_experiment *e, const char *chain) {
  e->remat = mp_xrealloc(e->remat, sizeof(mp_remat_entry) * (size_t)(e->n_remat + 1));
  mp_remat_entry *r = &e->remat[e->n_remat++];
  memset(r, 0, sizeof *r);
  r->chain = mp_xstrdup(chain);
  return r;
}

static int check_chain_text(const char *chain, const char *where, char *sub, size_t cap) {
  if (!chain[0] || strchr(chain, ':') || strchr(chain, ' ')) {
    snprintf(sub, cap, "%s: '%s' is not a chain (write \"chen-sqrt\", or a chain with commas)",
             where, chain);
    return -1;
  }
  return 0;
}

/* {"chain": C, "budgets": [...], "bandwidth": [...]} */
static int json_remat_object(json_t *x, const char *where, mp_experiment *e, char *sub,
                             size_t cap) {
  const char *k;
  json_t *v;
  json_object_foreach(x, k, v) {
    if (strcmp(k, "chain") && strcmp(k, "budgets") && strcmp(k, "bandwidth") && k[0] != '_') {
      snprintf(sub, cap, "%s: unknown key \"%s\" (chain, budgets, bandwidth)", where, k);
      return -1;
    }
  }
  json_t *c = json_object_get(x, "chain");
  if (!json_is_string(c)) {
    snprintf(sub, cap, "%s: \"chain\" (a string) is required", where);
    return -1;
  }
  if (check_chain_text(json_string_value(c), where, sub, cap)) return -1;
  mp_remat_entry *r = new_entry(e, json_string_value(c));
  return json_axis(json_object_get(x, "budgets"), "budgets", true, &r->budgets, &r->n_budgets,
                   sub, cap) ||
                 json_axis(json_object_get(x, "bandwidth"), "bandwidth", false, &r->bandwidths,
                           &r->n_bandwidths, sub, cap)
             ? -1
             : 0;
}

int mp_experiment_load_remat(json_t *o, mp_experiment *e, char *sub, size_t cap) {
  if (json_axis(json_object_get(o, "budgets"), "budgets", true, &e->budgets, &e->n_budgets, sub,
                cap) ||
      json_axis(json_object_get(o, "bandwidth"), "bandwidth", false, &e->bandwidths,
                &e->n_bandwidths, sub, cap))
    return -1;
  json_t *v = json_object_get(o, "remat");
  if (!v) return 0;
  json_t *arr = json_is_array(v) ? json_incref(v) : json_pack("[O]", v);
  size_t i;
  json_t *x;
  int rc = 0;
  json_array_foreach(arr, i, x) {
    char where[64];
    snprintf(where, sizeof where, "\"remat\"[%zu]", i);
    if (json_is_string(x)) {
      rc = check_chain_text(json_string_value(x), where, sub, cap);
      if (!rc) new_entry(e, json_string_value(x));
    } else if (json_is_object(x)) {
      rc = json_remat_object(x, where, e, sub, cap);
    } else {
      snprintf(sub, cap, "%s: an events solver chain, \"all\", \"none\", or {\"chain\": ...}", where);
      rc = -1;
    }
    if (rc) break;
  }
  json_decref(arr);
  return rc;
}

void mp_experiment_free_remat(mp_experiment *e) {
  for (int i = 0; i < e->n_remat; i++) {
    free(e->remat[i].chain);
    free_list(e->remat[i].budgets, e->remat[i].n_budgets);
    free_list(e->remat[i].bandwidths, e->remat[i].n_bandwidths);
  }
  free(e->remat);
  free_list(e->budgets, e->n_budgets);
  free_list(e->bandwidths, e->n_bandwidths);
  e->remat = NULL;
  e->budgets = e->bandwidths = NULL;
  e->n_remat = e->n_budgets = e->n_bandwidths = 0;
}

void mp_experiment_add_remat(mp_experiment *e, const char *chain, bool replace) {
  if (replace) {
    char **b = e->budgets, **w = e->bandwidths; /* the experiment's lists stay */
    int nb = e->n_budgets, nw = e->n_bandwidths;
    e->budgets = e->bandwidths = NULL;
    e->n_budgets = e->n_bandwidths = 0;
    mp_experiment_free_remat(e);
    e->budgets = b, e->bandwidths = w, e->n_budgets = nb, e->n_bandwidths = nw;
  }
  new_entry(e, chain);
}

/* ------------------------------------------------------------ settings */

static void add_setting(mp_remat_settings *s, const char *chain, const char *budget,
                        const char *bw) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->s[i].chain, chain) && !strcmp(s->s[i].budget, budget) &&
        !strcmp(s->s[i].bandwidth, bw))
      return;
  s->s = mp_xrealloc(s->s, sizeof(mp_remat_setting) * (size_t)(s->n + 1));
  s->s[s->n++] = (mp_remat_setting){mp_xstrdup(chain), mp_xstrdup(budget), mp_xstrdup(bw)};
}

static bool excluded(const mp_experiment *e, const char *name) {
  for (int i = 0; i < e->n_exclude; i++)
    if (!strcmp(e->exclude[i], name)) return true;
  return false;
}

/* The chains of one entry: "all" expanded, every name checked. */
static int entry_chains(const mp_experiment *e, const char *chain, char ***out, int *n, char *msg,
                        size_t cap) {
  if (!strcmp(chain, "all")) {
    for (int k = 0; k < mp_registry_size; k++)
      if (mp_registry[k]->decides == MP_DECIDES_EVENTS && !excluded(e, mp_registry[k]->name))
        mp_list_push(out, n, mp_registry[k]->name);
    return 0;
  }
  mp_error err;
  if (mp_chain_check("\"remat\" chain", chain, MP_STAGE_EVENTS, &err)) {
    mp_msgf(msg, cap, "%s", err.msg);
    return -1;
  }
  mp_list_push(out, n, chain);
  return 0;
}

/* The settings of one entry (not "none"). */
static int entry_settings(const mp_experiment *e, const mp_remat_entry *r, mp_remat_settings *s,
                          char *msg, size_t cap) {
  char **ch = NULL;
  int nc = 0;
  if (entry_chains(e, r->chain, &ch, &nc, msg, cap)) {
    free_list(ch, nc);
    return -1;
  }
  char *const *b = r->n_budgets ? r->budgets : e->budgets;
  int nb = r->n_budgets ? r->n_budgets : e->n_budgets;
  static char *const graph_bw[] = {""};
  char *const *w = r->n_bandwidths ? r->bandwidths : e->n_bandwidths ? e->bandwidths : graph_bw;
  int nw = r->n_bandwidths ? r->n_bandwidths : e->n_bandwidths ? e->n_bandwidths : 1;
  if (!nb) {
    mp_msgf(msg, cap, "\"remat\": '%s' needs budgets (\"budgets\": [\"0.8x\", ...])", r->chain);
    free_list(ch, nc);
    return -1;
  }
  for (int c = 0; c < nc; c++)
    for (int i = 0; i < nb; i++)
      for (int k = 0; k < nw; k++) add_setting(s, ch[c], b[i], w[k]);
  free_list(ch, nc);
  return 0;
}

int mp_remat_settings_build(const mp_experiment *e, mp_remat_settings *out, char *msg,
                            size_t cap) {
  memset(out, 0, sizeof *out);
  bool chains = false;
  for (int i = 0; i < e->n_remat; i++) {
    const mp_remat_entry *r = &e->remat[i];
    if (!strcmp(r->chain, "none")) {
      if (r->n_budgets || r->n_bandwidths) {
        mp_msgf(msg, cap, "\"remat\": \"none\" takes no budgets or bandwidth");
        mp_remat_settings_destroy(out);
        return -1;
      }
      add_setting(out, "", "", "");
      continue;
    }
    chains = true;
    if (entry_settings(e, r, out, msg, cap)) {
      mp_remat_settings_destroy(out);
      return -1;
    }
  }
  if (!chains && (e->n_budgets || e->n_bandwidths)) {
    mp_msgf(msg, cap, "\"budgets\" and \"bandwidth\" apply to recomputation cells: give "
             "\"remat\" (events solvers)");
    mp_remat_settings_destroy(out);
    return -1;
  }
  if (e->n_remat == 0) add_setting(out, "", "", "");
  return 0;
}

void mp_remat_settings_destroy(mp_remat_settings *s) {
  for (int i = 0; i < s->n; i++) {
    free(s->s[i].chain);
    free(s->s[i].budget);
    free(s->s[i].bandwidth);
  }
  free(s->s);
  memset(s, 0, sizeof *s);
}
