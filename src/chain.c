/* chain.c - from a request (chains of solver names and option overrides)
 * to the stages the harness runs, with every usage error caught before any
 * solver starts. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"

static const char *const kind_flag[MP_N_STAGE_KINDS] = {"order", "remat", "place"};

/* "solver.name=value" or "name=value": does it address solver s, and which
 * option name (name, *nlen) does it set? */
static bool set_addresses(const char *set, const mp_solver *s, const char **name, size_t *nlen) {
  const char *eq = strchr(set, '=');
  size_t len = eq ? (size_t)(eq - set) : strlen(set);
  const char *dot = memchr(set, '.', len);
  *name = set;
  *nlen = len;
  if (!dot) return true;
  size_t slen = (size_t)(dot - set);
  if (strlen(s->name) != slen || strncmp(s->name, set, slen) != 0) return false;
  *name = dot + 1;
  *nlen = (size_t)(set + len - *name);
  return true;
}

static int option_index(const mp_solver *s, const char *name, size_t nlen) {
  for (int i = 0; i < s->n_options; i++)
    if (strlen(s->options[i].name) == nlen && strncmp(s->options[i].name, name, nlen) == 0) return i;
  return -1;
}

mp_err mp_solver_sets_once(const mp_solver *s, int n_sets, const char *const *sets,
                           mp_error *err) {
  int set_by[MP_MAX_OPTS]; /* the override that sets option i, or -1 */
  for (int i = 0; i < MP_MAX_OPTS; i++) set_by[i] = -1;
  for (int k = 0; k < n_sets; k++) {
    const char *name;
    size_t nlen;
    if (!strchr(sets[k], '=') || !set_addresses(sets[k], s, &name, &nlen)) continue;
    int i = option_index(s, name, nlen);
    if (i < 0 || i >= MP_MAX_OPTS) continue;
    if (set_by[i] >= 0) {
      mp_errorf(err, "option %s.%s given twice ('%s', '%s'): give it once", s->name,
                s->options[i].name, sets[set_by[i]], sets[k]);
      return MP_EUSAGE;
    }
    set_by[i] = k;
  }
  return MP_OK;
}

mp_err mp_solver_options(const mp_solver *s, int n_sets, const char *const *sets, double *vals,
                         mp_error *err) {
  for (int i = 0; i < s->n_options && i < MP_MAX_OPTS; i++) vals[i] = s->options[i].def;
  for (int k = 0; k < n_sets; k++) {
    const char *eq = strchr(sets[k], '='), *name;
    size_t nlen;
    if (!eq) {
      mp_errorf(err, "option '%s': expected NAME=VALUE or SOLVER.NAME=VALUE", sets[k]);
      return MP_EUSAGE;
    }
    if (!set_addresses(sets[k], s, &name, &nlen)) continue;
    int i = option_index(s, name, nlen);
    if (i < 0) continue;
    double v;
    const char *why;
    if (mp_parse_real(eq + 1, &v, &why)) { /* NaN passes no range check: refused here */
      mp_errorf(err, "option %s.%s: '%s' is %s", s->name, s->options[i].name, eq + 1, why);
      return MP_EUSAGE;
    }
    if (s->options[i].kind == MP_OPT_INT && v != floor(v)) { /* a solver would truncate it */
      mp_errorf(err, "option %s.%s: '%s' is not an integer (the option takes integers only)",
                s->name, s->options[i].name, eq + 1);
      return MP_EUSAGE;
    }
    if (v < s->options[i].lo || v > s->options[i].hi) {
      char lo[32], hi[32];
      mp_format_number(s->options[i].lo, lo, sizeof lo);
      mp_format_number(s->options[i].hi, hi, sizeof hi);
      mp_errorf(err, "option %s.%s: %s is outside [%s, %s]", s->name, s->options[i].name, eq + 1,
                lo, hi);
      return MP_EUSAGE;
    }
    vals[i] = v;
  }
  return MP_OK;
}

/* Every override must be NAME=VALUE (its form first: "sa.iters" alone was
 * said to belong to no solver) and name an option of some stage. */
static mp_err check_sets(const mp_chain *ch, int n_sets, const char *const *sets, mp_error *err) {
  for (int k = 0; k < n_sets; k++) {
    if (!strchr(sets[k], '=')) {
      mp_errorf(err, "option '%s': expected NAME=VALUE or SOLVER.NAME=VALUE", sets[k]);
      return MP_EUSAGE;
    }
    bool found = false;
    for (int s = 0; s < ch->n && !found; s++) {
      const char *name;
      size_t nlen;
      found = set_addresses(sets[k], ch->st[s].solver, &name, &nlen) &&
              option_index(ch->st[s].solver, name, nlen) >= 0;
    }
    if (!found) {
      const char *eq = strchr(sets[k], '=');
      mp_errorf(err, "option '%.*s' belongs to none of the chosen solvers (see memplan solvers)",
                (int)(eq ? eq - sets[k] : (long)strlen(sets[k])), sets[k]);
      return MP_EUSAGE;
    }
  }
  return MP_OK;
}

/* The fields of a descriptor the build cannot check (gen_registry.sh checks
 * its name; these are values): what it decides, its solve function, its
 * option table and each option's kind, range and default. */
static mp_err descriptor_error(const mp_solver *s, const char *why, mp_error *err) {
  char unit[64];
  snprintf(unit, sizeof unit, "%s", s->name);
  for (char *p = unit; *p; p++)
    if (*p == '-') *p = '_';
  mp_errorf(err, "solver '%s' is defined wrongly (its descriptor, solver_%s in solvers/): %s", s->name,
            unit, why);
  return MP_EUSAGE;
}

static bool whole(double x) { return x == floor(x); }

static mp_err check_option(const mp_solver *s, int i, mp_error *err) {
  const mp_option *o = &s->options[i];
  char why[320], def[32], lo[32], hi[32];
  if (!o->name || !o->name[0]) return descriptor_error(s, "an option has no name", err);
  bool twice = false;
  for (int j = 0; j < i; j++) twice |= s->options[j].name && strcmp(s->options[j].name, o->name) == 0;
  mp_format_number(o->def, def, sizeof def);
  mp_format_number(o->lo, lo, sizeof lo);
  mp_format_number(o->hi, hi, sizeof hi);
  if (twice)
    snprintf(why, sizeof why, "option '%.60s' is listed twice", o->name);
  else if (o->kind != MP_OPT_INT && o->kind != MP_OPT_REAL && o->kind != MP_OPT_SECONDS)
    snprintf(why, sizeof why, "option '%.60s': kind %d is not INT, REAL or SECONDS", o->name, o->kind);
  else if (!(o->lo <= o->hi)) /* NaN too */
    snprintf(why, sizeof why, "option '%.60s': min %s is above max %s (X(name, kind, default, min, "
             "max, help))", o->name, lo, hi);
  else if (!(o->lo <= o->def && o->def <= o->hi))
    snprintf(why, sizeof why, "option '%.60s': default %s is outside [%s, %s]", o->name, def, lo, hi);
  else if (o->kind == MP_OPT_INT && !(whole(o->def) && whole(o->lo) && whole(o->hi)))
    snprintf(why, sizeof why, "option '%.60s' is INT, but its default and range [%s, %s] are not all "
             "whole numbers (default %s): make it REAL, or whole", o->name, lo, hi, def);
  else
    return MP_OK;
  return descriptor_error(s, why, err);
}

/* .quick ("name=value,..."): each name one of the solver's options, each
 * value one that --set would take. */
static mp_err check_quick(const mp_solver *s, mp_error *err) {
  char **items = NULL, why[200];
  int n = 0;
  mp_error sub;
  double vals[MP_MAX_OPTS];
  mp_err e = mp_list_split(".quick", s->quick, &items, &n, &sub) ? MP_EUSAGE : MP_OK;
  for (int k = 0; k < n && !e; k++) {
    const char *eq = strchr(items[k], '=');
    size_t nlen = eq ? (size_t)(eq - items[k]) : strlen(items[k]);
    if (option_index(s, items[k], nlen) < 0) {
      snprintf(sub.msg, sizeof sub.msg, "'%.*s' is not one of its options", (int)nlen, items[k]);
      e = MP_EUSAGE;
    } else {
      e = mp_solver_options(s, 1, (const char *const *)&items[k], vals, &sub);
    }
  }
  mp_list_free(items, n);
  if (!e) return MP_OK;
  snprintf(why, sizeof why, ".quick \"%.60s\": %.120s", s->quick, sub.msg);
  return descriptor_error(s, why, err);
}

mp_err mp_solver_check(const mp_solver *s, mp_error *err) {
  char why[200];
  int d = s->decides;
  if (d != MP_DECIDES_ORDER && d != MP_DECIDES_OFFSETS && d != MP_DECIDES_BOTH && d != MP_DECIDES_EVENTS) {
    snprintf(why, sizeof why, ".decides is %d: set it to MP_DECIDES_ORDER, MP_DECIDES_OFFSETS, "
             "MP_DECIDES_BOTH or MP_DECIDES_EVENTS", d);
    return descriptor_error(s, why, err);
  }
  if (!s->solve) return descriptor_error(s, "no .solve function", err);
  if (s->n_options < 0 || s->n_options > MP_MAX_OPTS || (s->n_options > 0 && !s->options)) {
    snprintf(why, sizeof why, ".n_options is %d with %s .options (0 to %d: write .options = "
             "MP_OPTIONS(table), which sets both)", s->n_options, s->options ? "an" : "no", MP_MAX_OPTS);
    return descriptor_error(s, why, err);
  }
  for (int i = 0; i < s->n_options; i++) {
    mp_err e = check_option(s, i, err);
    if (e) return e;
  }
  return s->quick ? check_quick(s, err) : MP_OK;
}

static const mp_solver *find_solver(const mp_chain_request *req, const char *name) {
  for (int i = 0; i < req->n_extra; i++)
    if (strcmp(req->extra[i]->name, name) == 0) return req->extra[i];
  return mp_solver_find(name);
}

/* Split "a,b,c", look each name up, append the stages of one kind. */
static mp_err parse_chain(const mp_chain_request *req, const char *chain, mp_stage_kind kind,
                          mp_chain *ch, mp_error *err) {
  char what[32], **names;
  int n;
  snprintf(what, sizeof what, "--%s", kind_flag[kind]);
  if (mp_list_split(what, chain, &names, &n, err)) return MP_EUSAGE;
  mp_err e = MP_OK;
  for (int i = 0; i < n && !e; i++) {
    const mp_solver *s = find_solver(req, names[i]);
    if (!s)
      e = MP_EUSAGE, mp_errorf(err, "unknown solver '%s' (memplan solvers lists them)", names[i]);
    else if ((e = mp_solver_check(s, err)))
      ;
    else if (i == MP_MAX_CHAIN)
      e = MP_EUSAGE,
      mp_errorf(err, "chain '%s' is too long (at most %d solvers)", chain, MP_MAX_CHAIN);
    else
      ch->st[ch->n++] = (mp_stage_spec){.solver = s, .kind = kind};
  }
  mp_list_free(names, n);
  return e;
}

/* `--order X` alone, X deciding both: X is the placer, the order is the
 * default one when nothing else is left in the order chain. */
static void move_joint_to_place(mp_chain *ch, bool place_given, const mp_solver *def_order) {
  int last_order = -1, n_order = 0;
  for (int i = 0; i < ch->n; i++)
    if (ch->st[i].kind == MP_STAGE_ORDER) last_order = i, n_order++;
  if (place_given || last_order < 0 || ch->st[last_order].solver->decides != MP_DECIDES_BOTH ||
      mp_chain_has(ch, MP_STAGE_EVENTS))
    return; /* with --remat the order comes first: check_stage says so */
  /* the chain is [order stages][place stages]: the last order stage
   * becomes the only placer */
  ch->n = last_order + 1;
  ch->st[last_order].kind = MP_STAGE_PLACE;
  if (n_order == 1) {
    ch->st[1] = ch->st[0];
    ch->st[0] = (mp_stage_spec){.solver = def_order, .kind = MP_STAGE_ORDER};
    ch->n = 2;
  }
}

static const char *decides_what(int d) {
  switch (d) {
  case MP_DECIDES_ORDER: return "an order";
  case MP_DECIDES_OFFSETS: return "offsets";
  case MP_DECIDES_BOTH: return "an order and offsets";
  default: return "an event plan (recomputation, offload)";
  }
}

/* The flag that takes a solver deciding d. */
static const char *flag_for(int d) {
  return d == MP_DECIDES_ORDER ? "--order" : d == MP_DECIDES_EVENTS ? "--remat" : "--place";
}

/* A stage decides what its kind asks for, on this kind of instance; a
 * solver under the wrong flag is told the right one. */
static mp_err check_stage(const mp_stage_spec *st, bool is_graph, bool remat, mp_error *err) {
  const mp_solver *s = st->solver;
  int d = s->decides;
  switch (st->kind) {
  case MP_STAGE_ORDER:
    if (d == MP_DECIDES_BOTH) /* move_joint_to_place took it when it could */
      return mp_errorf(err, remat ? "'%s' decides the order and the offsets together, but --remat "
                       "needs the order before its stage: order it with an order solver"
                       : "'%s' decides the order and the offsets together: give it once (--order "
                       "%s or --place %s), with no other placer", s->name, s->name, s->name),
             MP_EUSAGE;
    if (d != MP_DECIDES_ORDER)
      return mp_errorf(err, "'%s' decides %s, not an order; use it with %s", s->name, decides_what(d),
                       flag_for(d)), MP_EUSAGE;
    if (!is_graph && !(s->roles & MP_ROLE_FILE_ORDER))
      return mp_errorf(err, "a fixed-lifetime problem has no order to choose (--order)"), MP_EUSAGE;
    return MP_OK;
  case MP_STAGE_EVENTS:
    if (d != MP_DECIDES_EVENTS)
      return mp_errorf(err, "'%s' decides %s, not an event plan; use it with %s", s->name,
                       decides_what(d), flag_for(d)), MP_EUSAGE;
    if (!is_graph)
      return mp_errorf(err, "--remat needs a graph: a fixed-lifetime problem has no nodes to run again"),
             MP_EUSAGE;
    return MP_OK;
  default:
    if (d == MP_DECIDES_ORDER)
      return mp_errorf(err, "'%s' decides an order, not offsets; use it with --order", s->name), MP_EUSAGE;
    if (!(d & MP_DECIDES_OFFSETS))
      return mp_errorf(err, "'%s' decides %s, not offsets; use it with %s", s->name, decides_what(d),
                       flag_for(d)), MP_EUSAGE;
    if (!is_graph && d == MP_DECIDES_BOTH)
      return mp_errorf(err, "'%s' needs a graph, not a fixed-lifetime problem", s->name), MP_EUSAGE;
    if (remat && d == MP_DECIDES_BOTH)
      return mp_errorf(err, "'%s' decides the order too, which --remat fixes before the recomputation "
                            "stage: use a placer", s->name), MP_EUSAGE;
    return MP_OK;
  }
}

static mp_err check_kinds(const mp_chain *ch, bool is_graph, mp_error *err) {
  bool remat = mp_chain_has(ch, MP_STAGE_EVENTS);
  for (int i = 0; i < ch->n; i++) {
    mp_err e = check_stage(&ch->st[i], is_graph, remat, err);
    if (e) return e;
  }
  return MP_OK;
}

bool mp_chain_has(const mp_chain *ch, mp_stage_kind k) {
  for (int i = 0; i < ch->n; i++)
    if (ch->st[i].kind == k) return true;
  return false;
}

static void join_names(mp_chain *ch) {
  for (int k = 0; k < MP_N_STAGE_KINDS; k++) ch->names[k][0] = 0;
  for (int i = 0; i < ch->n; i++) {
    char *out = ch->names[ch->st[i].kind];
    size_t l = strlen(out);
    snprintf(out + l, sizeof ch->names[0] - l, "%s%s", l ? "," : "", ch->st[i].solver->name);
  }
}

mp_err mp_chain_resolve(const mp_chain_request *req, mp_chain *ch, mp_error *err) {
  /* what the default solver of each kind decides (0: no default, no stage) */
  static const int decides[MP_N_STAGE_KINDS] = {MP_DECIDES_ORDER, 0, MP_DECIDES_OFFSETS};
  memset(ch, 0, sizeof *ch);
  const mp_solver *def[MP_N_STAGE_KINDS] = {0};
  for (int k = 0; k < MP_N_STAGE_KINDS; k++) {
    if (!decides[k] && !req->chains[k]) continue;
    def[k] = decides[k] ? mp_solver_with_role(MP_ROLE_DEFAULT, decides[k]) : NULL;
    if (decides[k] && !def[k]) {
      mp_errorf(err, "the registry has no default solver for --%s", kind_flag[k]);
      return MP_EUSAGE;
    }
    const char *chain = req->chains[k] ? req->chains[k] : def[k]->name;
    mp_err e = parse_chain(req, chain, (mp_stage_kind)k, ch, err);
    if (e) return e;
  }
  move_joint_to_place(ch, req->chains[MP_STAGE_PLACE] != NULL, def[MP_STAGE_ORDER]);
  mp_err e = check_kinds(ch, req->is_graph, err);
  if (!e) e = check_sets(ch, req->n_sets, req->sets, err);
  for (int i = 0; i < ch->n && !e; i++)
    e = mp_solver_options(ch->st[i].solver, req->n_sets, req->sets, ch->st[i].opt, err);
  join_names(ch);
  return e;
}

mp_err mp_chain_check(const char *what, const char *chain, mp_stage_kind kind, mp_error *err) {
  char **names;
  int n;
  if (mp_list_split(what, chain, &names, &n, err)) return MP_EUSAGE; /* named as the caller's */
  mp_list_free(names, n);
  mp_chain_request req = {.is_graph = true};
  mp_chain ch;
  memset(&ch, 0, sizeof ch);
  mp_error why;
  mp_err e = parse_chain(&req, chain, kind, &ch, &why);
  for (int i = 0; i < ch.n && !e; i++) e = check_stage(&ch.st[i], true, false, &why);
  if (e) mp_errorf(err, "%s '%s': %s", what, chain, why.msg);
  return e;
}

bool mp_chain_is_file_order(const char *chain) {
  char **names;
  int n;
  mp_error err;
  if (mp_list_split("chain", chain, &names, &n, &err)) return false;
  bool all = n > 0;
  for (int i = 0; i < n && all; i++) {
    const mp_solver *s = mp_solver_find(names[i]);
    all = s && (s->roles & MP_ROLE_FILE_ORDER);
  }
  mp_list_free(names, n);
  return all;
}
