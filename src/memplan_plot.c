/* memplan_plot.c - the public API (memplan.h) of the pictures: checks what
 * each kind needs, then hands it to plot.h (plot*.c draw). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "memplan_int.h"
#include "plot.h"
#include "solver.h"

void memplan_plot_opts_init(memplan_plot_opts *o) {
  memset(o, 0, sizeof *o);
  o->version = MEMPLAN_API_VERSION;
  memplan_request_init(&o->request);
}

/* The harness takes the output files as one comma-separated list. */
static char *join_outs(const memplan_plot_opts *o, memplan_error *err) {
  size_t len = 1;
  for (int i = 0; i < o->n_outs; i++) {
    if (!o->outs[i] || !o->outs[i][0] || strchr(o->outs[i], ',')) {
      mp_api_fail(err, MEMPLAN_EUSAGE, "bad output file name '%s' (empty, or with a comma)",
                  o->outs[i] ? o->outs[i] : "");
      return NULL;
    }
    const char *why = mp_plot_format_error(o->outs[i]); /* before anything is drawn */
    if (why) {
      mp_api_fail(err, MEMPLAN_EUSAGE, "%s: %s", o->outs[i], why);
      return NULL;
    }
    len += strlen(o->outs[i]) + 1;
  }
  if (o->n_outs < 1) {
    mp_api_fail(err, MEMPLAN_EUSAGE, "no output file");
    return NULL;
  }
  char *s = mp_xmalloc(len);
  s[0] = 0;
  for (int i = 0; i < o->n_outs; i++) {
    if (i) strcat(s, ",");
    strcat(s, o->outs[i]);
  }
  return s;
}

/* Each chain the plot will run, resolved as solve resolves it (names,
 * kinds, option overrides) before any runs: a usage error, as in solve. */
static int chain_ok(const memplan_plot_opts *o, const char *order, memplan_error *err) {
  mp_chain_request req = {.is_graph = true, .n_sets = o->request.n_sets, .sets = o->request.sets};
  req.chains[MP_STAGE_ORDER] = order;
  req.chains[MP_STAGE_EVENTS] = o->request.remat;
  req.chains[MP_STAGE_PLACE] = o->request.place;
  mp_chain ch;
  mp_error e;
  if (mp_chain_resolve(&req, &ch, &e) == MP_OK) return 0;
  mp_api_fail(err, MEMPLAN_EUSAGE, "%s", e.msg);
  return -1;
}

static int chains_ok(const memplan_plot_opts *o, memplan_error *err) {
  for (int i = 0; i < o->n_orders; i++)
    if (chain_ok(o, o->orders[i], err)) return -1;
  return chain_ok(o, o->request.order, err);
}

/* What each kind needs; NULL when it has it, else the complaint. */
static const char *missing(const char *kind, int n_inputs, const memplan_plot_opts *o) {
  if (!strcmp(kind, "profile")) return n_inputs == 1 ? NULL : "profile needs one GRAPH";
  if (!strcmp(kind, "placement"))
    return n_inputs == 1 && o->n_plans <= 1 ? NULL : "placement needs one FILE and at most one plan";
  if (!strcmp(kind, "pareto"))
    return n_inputs >= 1 && o->graph ? NULL : "pareto needs RESULTS... and a graph";
  if (!strcmp(kind, "overhead")) return n_inputs >= 1 ? NULL : "overhead needs RESULTS...";
  return "";
}

/* Draw; 0, or -1 with msg. */
static int draw(const char *kind, const char *const *inputs, int n_inputs,
                const memplan_plot_opts *o, const char *outs, char *msg, size_t cap) {
  mp_run_spec spec;
  mp_api_spec(&o->request, NULL, &spec);
  if (!strcmp(kind, "profile")) {
    const char *const *orders = o->orders;
    int n_orders = o->n_orders;
    const mp_solver *def = mp_solver_with_role(MP_ROLE_DEFAULT, MP_DECIDES_ORDER);
    if (!n_orders && !o->n_plans && def) orders = &def->name, n_orders = 1;
    return mp_plot_profile(inputs[0], orders, n_orders, o->plans, o->n_plans, &spec, outs, msg,
                           cap);
  }
  if (!strcmp(kind, "placement"))
    return mp_plot_placement(inputs[0], o->n_plans ? o->plans[0] : NULL, &spec, outs, msg, cap);
  if (!strcmp(kind, "pareto"))
    return mp_plot_pareto(inputs, n_inputs, o->graph, o->best_of_seeds, outs, msg, cap);
  double limit = o->max_overhead > 0 ? o->max_overhead : 0.2;
  return mp_plot_overhead(inputs, n_inputs, o->graph, o->best_of_seeds, limit, outs, msg, cap);
}

memplan_err memplan_plot(const char *kind, const char *const *inputs, int n_inputs,
                         const memplan_plot_opts *o, memplan_error *err) {
  if (!o) return mp_api_fail(err, MEMPLAN_EUSAGE, "plot: no options (NULL)");
  if (mp_api_version_check(o->version, "memplan_plot_opts", err)) return MEMPLAN_EUSAGE;
  if (mp_api_request_check(&o->request, err)) return MEMPLAN_EUSAGE;
  /* n_inputs and n_outs below 1 keep the complaints of missing() and join_outs() */
  if (!mp_api_strings_ok(inputs, n_inputs > 0 ? n_inputs : 0) || (o->n_outs > 0 && !o->outs) ||
      !mp_api_strings_ok(o->orders, o->n_orders) || !mp_api_strings_ok(o->plans, o->n_plans))
    return mp_api_fail(err, MEMPLAN_EUSAGE, "plot: a count (inputs, outs, orders, plans) "
                                            "negative, or its array missing or holding NULL");
  const char *why = kind ? missing(kind, n_inputs, o) : "";
  if (why && !why[0])
    return mp_api_fail(err, MEMPLAN_EUSAGE,
                       "unknown plot '%s' (profile, placement, pareto, overhead)",
                       kind ? kind : "(none)");
  if (why) return mp_api_fail(err, MEMPLAN_EUSAGE, "%s", why);
  if (chains_ok(o, err)) return MEMPLAN_EUSAGE;
  char *outs = join_outs(o, err);
  if (!outs) return MEMPLAN_EUSAGE;
  char msg[sizeof err->msg];
  int rc = draw(kind, inputs, n_inputs, o, outs, msg, sizeof msg);
  free(outs);
  if (!rc) return MEMPLAN_OK;
  mp_api_error(err, msg);
  return rc == -2 ? MEMPLAN_EIO : MEMPLAN_EINPUT;
}
