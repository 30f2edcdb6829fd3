/* run.c - the harness: chains of solvers, timing, verification, figures.
 * It finds solvers through the registry and knows none of them by name:
 * the defaults and the baseline of DESIGN 1.3 are roles in the descriptors. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"

int mp_solver_options(const mp_solver *s, int n_sets, const char *const *sets, double *vals,
                      char *msg, size_t cap) {
  for (int i = 0; i < s->n_options && i < MP_MAX_OPTS; i++) vals[i] = s->options[i].def;
  for (int k = 0; k < n_sets; k++) {
    const char *set = sets[k];
    const char *eq = strchr(set, '=');
    if (!eq) {
      snprintf(msg, cap, "option '%s': expected NAME=VALUE or SOLVER.NAME=VALUE", set);
      return -1;
    }
    const char *name = set;
    size_t nlen = (size_t)(eq - set);
    const char *dot = memchr(set, '.', nlen);
    if (dot) {
      size_t slen = (size_t)(dot - set);
      if (strlen(s->name) != slen || strncmp(s->name, set, slen) != 0) continue;
      name = dot + 1;
      nlen = (size_t)(eq - name);
    }
    for (int i = 0; i < s->n_options; i++) {
      if (strlen(s->options[i].name) != nlen || strncmp(s->options[i].name, name, nlen)) continue;
      char *end;
      double v = strtod(eq + 1, &end);
      if (end == eq + 1 || *end) {
        snprintf(msg, cap, "option %s.%s: '%s' is not a number", s->name, s->options[i].name, eq + 1);
        return -1;
      }
      if (v < s->options[i].lo || v > s->options[i].hi) {
        snprintf(msg, cap, "option %s.%s: %g is outside [%g, %g]", s->name, s->options[i].name, v,
                 s->options[i].lo, s->options[i].hi);
        return -1;
      }
      vals[i] = v;
    }
  }
  return 0;
}

/* Every override must name an option of some stage. */
static int check_sets(const mp_solver *const *stages, int ns, const mp_run_spec *spec, char *msg,
                      size_t cap) {
  for (int k = 0; k < spec->n_sets; k++) {
    const char *set = spec->sets[k];
    const char *eq = strchr(set, '=');
    size_t nlen = eq ? (size_t)(eq - set) : strlen(set);
    const char *dot = memchr(set, '.', nlen);
    bool found = false;
    for (int s = 0; s < ns && !found; s++) {
      const char *name = set;
      size_t len = nlen;
      if (dot) {
        size_t slen = (size_t)(dot - set);
        if (strlen(stages[s]->name) != slen || strncmp(stages[s]->name, set, slen)) continue;
        name = dot + 1;
        len = (size_t)(set + nlen - name);
      }
      for (int i = 0; i < stages[s]->n_options && !found; i++)
        found = strlen(stages[s]->options[i].name) == len &&
                strncmp(stages[s]->options[i].name, name, len) == 0;
    }
    if (!found) {
      snprintf(msg, cap, "option '%.*s' belongs to none of the chosen solvers (see memplan solvers)",
               (int)nlen, set);
      return -1;
    }
  }
  return 0;
}

/* Split "a,b,c" and look each name up. */
static int parse_chain(const char *chain, const mp_solver **out, int *n, char *msg, size_t cap) {
  *n = 0;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", chain);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    const mp_solver *s = mp_solver_find(tok);
    if (!s) {
      snprintf(msg, cap, "unknown solver '%s' (memplan solvers lists them)", tok);
      return -1;
    }
    if (*n == MP_MAX_STAGES / 2) {
      snprintf(msg, cap, "chain '%s' is too long", chain);
      return -1;
    }
    out[(*n)++] = s;
  }
  if (*n == 0) {
    snprintf(msg, cap, "empty solver chain");
    return -1;
  }
  return 0;
}

bool mp_chain_is_file_order(const char *chain) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", chain);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const mp_solver *s = mp_solver_find(t);
    if (!s || !(s->roles & MP_ROLE_FILE_ORDER)) return false;
  }
  return true;
}

static void join_names(const mp_solver *const *s, int n, char *out, size_t cap) {
  out[0] = 0;
  for (int i = 0; i < n; i++) {
    size_t l = strlen(out);
    snprintf(out + l, cap - l, "%s%s", i ? "," : "", s[i]->name);
  }
}

int64_t mp_given_baseline(const mp_instance *in, int64_t align) {
  const mp_solver *bys = mp_solver_with_role(MP_ROLE_BASELINE, MP_DECIDES_OFFSETS);
  if (!bys) return 0;
  mp_problem p;
  if (in->g) {
    mp_problem_from_order(in->g, in->g->given, align, &p);
  } else {
    mp_problem_copy(in->fixed, &p);
    /* the same alignment as the plan it is compared with (mp_run applies
     * --align to CSV files without an alignment column) */
    if (!p.has_alignment_col && align > 0)
      for (int i = 0; i < p.n; i++) p.items[i].align = align;
  }
  mp_ctx c;
  memset(&c, 0, sizeof c);
  c.g = in->g;
  c.prob = &p;
  c.align = align;
  for (int i = 0; i < bys->n_options && i < MP_MAX_OPTS; i++) c.opt[i] = bys->options[i].def;
  c.offsets = mp_xcalloc((size_t)(p.n ? p.n : 1), sizeof(int64_t));
  int64_t arena = 0;
  if (bys->solve(&c) == 0 && mp_verify_offsets(&p, c.offsets, NULL) == 0) arena = mp_arena(&p, c.offsets);
  free(c.offsets);
  if (in->g) {
    free(p.items);
  } else {
    mp_problem_free(&p);
  }
  return arena;
}

void mp_result_free(mp_result *r) {
  free(r->order);
  free(r->offsets);
  if (r->prob.g) {
    free(r->prob.items); /* graph problems own only their items */
  } else {
    mp_problem_free(&r->prob);
  }
  memset(r, 0, sizeof *r);
}

static void run_stage(const mp_solver *s, mp_ctx *c, const mp_run_spec *spec, double t0,
                      mp_stage_result *sr) {
  c->deadline = spec->time_limit > 0 ? t0 + spec->time_limit : 0;
  c->time_limit = spec->time_limit > 0 ? c->deadline - mp_now() : 0;
  if (spec->time_limit > 0 && c->time_limit < 0.001) c->time_limit = 0.001;
  c->status = MP_FEASIBLE;
  c->bound = 0;
  c->msg[0] = 0;
  double w0 = mp_now(), c0 = mp_cpu_now();
  int rc = s->solve(c);
  sr->wall_ms = (mp_now() - w0) * 1e3;
  sr->cpu_ms = (mp_cpu_now() - c0) * 1e3;
  sr->solver = s;
  /* a refusal under a size cap is -1 with status MP_REFUSED: kept apart
   * from failures (bench does not count or retry it as one) */
  sr->status = rc ? (c->status == MP_REFUSED ? MP_REFUSED : MP_ERROR) : c->status;
  sr->bound = c->bound;
  snprintf(sr->msg, sizeof sr->msg, "%s", c->msg);
}

int mp_run(const mp_instance *in, const mp_run_spec *spec, mp_result *r) {
  memset(r, 0, sizeof *r);
  const mp_solver *ord[MP_MAX_STAGES], *plc[MP_MAX_STAGES];
  int no = 0, np = 0;
  const mp_graph *g = in->g;
  const mp_solver *def_order = mp_solver_with_role(MP_ROLE_DEFAULT, MP_DECIDES_ORDER);
  const mp_solver *def_place = mp_solver_with_role(MP_ROLE_DEFAULT, MP_DECIDES_OFFSETS);
  if (!def_order || !def_place) {
    snprintf(r->msg, sizeof r->msg, "the registry has no default order solver or placer");
    return 1;
  }
  if (parse_chain(spec->order ? spec->order : def_order->name, ord, &no, r->msg, sizeof r->msg) ||
      parse_chain(spec->place ? spec->place : def_place->name, plc, &np, r->msg, sizeof r->msg))
    return 1;
  for (int i = 0; !g && i < no; i++)
    if (!(ord[i]->roles & MP_ROLE_FILE_ORDER)) {
      snprintf(r->msg, sizeof r->msg, "a fixed-lifetime problem has no order to choose (--order)");
      return 1;
    }
  /* a solver deciding both runs in the placement position; `--order X`
   * alone with such an X means `--place X` */
  if (ord[no - 1]->decides == MP_DECIDES_BOTH && !spec->place) {
    plc[0] = ord[no - 1];
    np = 1;
    if (--no == 0) ord[no++] = def_order;
  }
  for (int i = 0; i < no; i++)
    if (!(ord[i]->decides & MP_DECIDES_ORDER) || ord[i]->decides == MP_DECIDES_BOTH) {
      snprintf(r->msg, sizeof r->msg, "'%s' does not decide an order alone; use it with --%s",
               ord[i]->name, ord[i]->decides == MP_DECIDES_BOTH ? "place" : "place");
      return 1;
    }
  for (int i = 0; i < np; i++)
    if (!(plc[i]->decides & MP_DECIDES_OFFSETS)) {
      snprintf(r->msg, sizeof r->msg, "'%s' decides an order, not offsets; use it with --order",
               plc[i]->name);
      return 1;
    }
  if (!g)
    for (int i = 0; i < np; i++)
      if (plc[i]->decides == MP_DECIDES_BOTH) {
        snprintf(r->msg, sizeof r->msg, "'%s' needs a graph, not a fixed-lifetime problem",
                 plc[i]->name);
        return 1;
      }
  const mp_solver *all[2 * MP_MAX_STAGES];
  memcpy(all, ord, sizeof(*ord) * (size_t)no);
  memcpy(all + no, plc, sizeof(*plc) * (size_t)np);
  if (check_sets(all, no + np, spec, r->msg, sizeof r->msg)) return 1;
  double vals[2 * MP_MAX_STAGES][MP_MAX_OPTS];
  for (int i = 0; i < no + np; i++)
    if (mp_solver_options(all[i], spec->n_sets, spec->sets, vals[i], r->msg, sizeof r->msg))
      return 1;
  join_names(ord, no, r->order_name, sizeof r->order_name);
  join_names(plc, np, r->place_name, sizeof r->place_name);

  int64_t align = spec->align > 0 ? spec->align : (g ? 64 : 1);
  r->align = align;
  r->seed = spec->seed;
  double t0 = mp_now();
  int n = g ? g->n : 0;
  bool order_fixed = true;
  int64_t order_bound = g ? mp_node_lower_bound(g) : 0;

  /* ---- order stages ---- */
  if (g) {
    r->n = n;
    r->order = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
    memcpy(r->order, g->given, sizeof(int) * (size_t)n);
    for (int i = 0; i < no; i++) {
      mp_ctx c;
      memset(&c, 0, sizeof c);
      c.g = g;
      int *start = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
      memcpy(start, r->order, sizeof(int) * (size_t)n);
      c.start_order = start;
      c.order = r->order;
      memcpy(c.opt, vals[i], sizeof c.opt);
      c.seed = spec->seed;
      c.align = align;
      c.write_lp = spec->write_lp;
      c.verbose = spec->verbose;
      mp_stage_result *sr = &r->stages[r->n_stages++];
      run_stage(ord[i], &c, spec, t0, sr);
      r->order_ms += sr->wall_ms;
      r->order_cpu_ms += sr->cpu_ms;
      if (!(ord[i]->roles & MP_ROLE_FILE_ORDER)) order_fixed = false;
      mp_error e;
      if (sr->status == MP_ERROR || sr->status == MP_REFUSED) {
        memcpy(r->order, start, sizeof(int) * (size_t)n);
        free(start);
        r->status = sr->status;
        snprintf(r->msg, sizeof r->msg, "%s: %.400s", ord[i]->name, sr->msg[0] ? sr->msg : "failed");
        return 3;
      }
      free(start);
      if (mp_order_check(g, r->order, &e) >= 0) {
        r->status = MP_ERROR;
        snprintf(r->msg, sizeof r->msg, "%s returned an invalid order: %.400s", ord[i]->name, e.msg);
        return 3;
      }
      if (sr->bound > order_bound) order_bound = sr->bound;
    }
    mp_problem_from_order(g, r->order, align, &r->prob);
    r->prob.name = NULL;
  } else {
    mp_problem_copy(in->fixed, &r->prob);
    for (int i = 0; i < r->prob.n; i++)
      if (!in->fixed->has_alignment_col && spec->align > 0) r->prob.items[i].align = spec->align;
  }

  /* ---- placement stages ---- */
  r->offsets = mp_xcalloc((size_t)(r->prob.n ? r->prob.n : 1), sizeof(int64_t));
  int64_t place_bound = 0;
  bool place_optimal_claim = false, timed_out = false, joint = false;
  for (int i = 0; i < np; i++) {
    mp_ctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.prob = &r->prob;
    int64_t *prev = NULL;
    if (i > 0) {
      prev = mp_xmalloc(sizeof(int64_t) * (size_t)(r->prob.n ? r->prob.n : 1));
      memcpy(prev, r->offsets, sizeof(int64_t) * (size_t)r->prob.n);
    }
    c.start_offsets = prev;
    c.offsets = r->offsets;
    int *start = NULL;
    if (g) {
      start = mp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
      memcpy(start, r->order, sizeof(int) * (size_t)n);
      c.start_order = start;
      if (plc[i]->decides == MP_DECIDES_BOTH) c.order = r->order;
    }
    memcpy(c.opt, vals[no + i], sizeof c.opt);
    c.seed = spec->seed;
    c.align = align;
    c.capacity = spec->capacity;
    c.write_lp = spec->write_lp;
    c.verbose = spec->verbose;
    mp_stage_result *sr = &r->stages[r->n_stages++];
    run_stage(plc[i], &c, spec, t0, sr);
    r->place_ms += sr->wall_ms;
    r->place_cpu_ms += sr->cpu_ms;
    free(prev);
    if (sr->status == MP_ERROR || sr->status == MP_REFUSED) {
      free(start);
      r->status = sr->status;
      snprintf(r->msg, sizeof r->msg, "%s: %.400s", plc[i]->name, sr->msg[0] ? sr->msg : "failed");
      return 3;
    }
    if (plc[i]->decides == MP_DECIDES_BOTH) {
      joint = true;
      order_fixed = false;
      mp_error e;
      if (mp_order_check(g, r->order, &e) >= 0) {
        free(start);
        r->status = MP_ERROR;
        snprintf(r->msg, sizeof r->msg, "%s returned an invalid order: %.400s", plc[i]->name, e.msg);
        return 3;
      }
      free(r->prob.items);
      mp_problem_from_order(g, r->order, align, &r->prob);
    }
    free(start);
    if (sr->status == MP_INFEASIBLE) {
      r->status = MP_INFEASIBLE;
      snprintf(r->msg, sizeof r->msg, "%s: %.400s", plc[i]->name,
               sr->msg[0] ? sr->msg : "no placement fits the capacity");
      r->fig.live_peak = mp_live_peak(&r->prob);
      r->fig.sum_sizes = mp_sum_sizes(&r->prob);
      r->fig.lower_bound = g ? order_bound : r->fig.live_peak;
      return 0;
    }
    if (sr->status == MP_TIMEOUT) timed_out = true;
    place_optimal_claim = sr->status == MP_OPTIMAL;
    place_bound = sr->bound > place_bound ? sr->bound : place_bound;
  }
  for (int i = 0; i < no; i++)
    if (r->stages[i].status == MP_TIMEOUT) timed_out = true;

  /* ---- verify and evaluate: the solver's word counts for nothing here ---- */
  mp_error e;
  if (mp_verify_offsets(&r->prob, r->offsets, &e)) {
    r->status = MP_ERROR;
    snprintf(r->msg, sizeof r->msg, "%s returned an invalid placement: %.300s", r->place_name, e.msg);
    return 3;
  }
  int64_t live_peak = mp_live_peak(&r->prob);
  int64_t lb = g ? order_bound : live_peak;
  if (lb > live_peak && g) lb = live_peak; /* cannot happen with honest bounds */
  mp_evaluate(&r->prob, r->offsets, lb, mp_given_baseline(in, align), &r->fig);

  /* status: optimal only when a bound proves it */
  bool place_tight = r->fig.arena <= live_peak || (place_bound > 0 && r->fig.arena <= place_bound);
  bool order_tight = order_fixed || live_peak <= order_bound;
  if (joint && place_optimal_claim && place_bound >= r->fig.arena)
    r->status = MP_OPTIMAL;
  else if (place_tight && order_tight && (order_fixed || r->fig.arena <= live_peak))
    r->status = MP_OPTIMAL;
  else
    r->status = timed_out ? MP_TIMEOUT : MP_FEASIBLE;
  if (spec->capacity > 0 && r->fig.arena > spec->capacity) {
    if ((order_fixed && live_peak > spec->capacity) || order_bound > spec->capacity) {
      r->status = MP_INFEASIBLE;
      snprintf(r->msg, sizeof r->msg, "the live peak lower bound %lld exceeds the capacity %lld",
               (long long)(order_fixed ? live_peak : order_bound), (long long)spec->capacity);
      return 0;
    }
    r->status = timed_out ? MP_TIMEOUT : MP_ERROR;
    snprintf(r->msg, sizeof r->msg, "%s found no placement within capacity %lld (best arena %lld)",
             r->place_name, (long long)spec->capacity, (long long)r->fig.arena);
    return 3;
  }
  return 0;
}
