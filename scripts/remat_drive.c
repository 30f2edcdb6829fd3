/* remat_drive.c - run one recomputation/offload solver (MP_DECIDES_EVENTS)
 * on a graph through the registry, and measure its plan with the judge
 * (mp_events_verify, mp_events_evaluate): a stand-in for `memplan solve
 * --remat` until the CLI has it.  Built and used by
 * scripts/bench.d/remat_exact.sh.
 *
 *   remat_drive GRAPH SOLVER (--budget B | --budget-frac F) [--order-file]
 *               [--order IDS] [--bandwidth BW] [--time-limit S] [--seed N] [--set k=v]...
 *
 * Prints one tab-separated line: graph solver budget status duration
 * overhead live_peak recomputed stall transferred duration_bound wall_s msg.
 * The first-run order is the file order, or --order's comma-separated ids. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "graph.h"
#include "registry.h"
#include "run.h"
#include "solver.h"

static void usage(void) {
  fprintf(stderr, "usage: remat_drive GRAPH SOLVER (--budget B | --budget-frac F) [--bandwidth BW] "
                  "[--time-limit S] [--seed N] [--set name=value]...\n");
  exit(2);
}

int main(int argc, char **argv) {
  if (argc < 3) usage();
  const char *path = argv[1], *name = argv[2], *frac = NULL, *sets[64];
  int64_t budget = -1;
  double bw = 0, limit = 0;
  uint64_t seed = 1;
  int n_sets = 0, verbose = 0;
  const char *write_lp = NULL, *order_text = NULL;
  for (int i = 3; i < argc; i++) {
    if (i + 1 >= argc) usage();
    if (!strcmp(argv[i], "--budget")) budget = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--budget-frac")) frac = argv[++i];
    else if (!strcmp(argv[i], "--bandwidth")) bw = atof(argv[++i]);
    else if (!strcmp(argv[i], "--time-limit")) limit = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--set") && n_sets < 64) sets[n_sets++] = argv[++i];
    else if (!strcmp(argv[i], "--verbose")) verbose = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--write-lp")) write_lp = argv[++i];
    else if (!strcmp(argv[i], "--order")) order_text = argv[++i];
    else usage();
  }
  mp_error err;
  mp_graph *g = mp_graph_read(path, false, &err);
  if (!g) {
    fprintf(stderr, "remat_drive: %s\n", err.msg);
    return 1;
  }
  const mp_solver *s = mp_solver_find(name);
  if (!s || s->decides != MP_DECIDES_EVENTS) {
    fprintf(stderr, "remat_drive: %s is not a recomputation solver\n", name);
    return 1;
  }
  if (frac && mp_budget_frac(frac, mp_order_peak(g, g->given), &budget, &err)) {
    fprintf(stderr, "remat_drive: %s\n", err.msg);
    return 1;
  }
  if (budget < 0) usage();
  mp_events ev;
  mp_events_init(&ev);
  mp_ctx c;
  memset(&c, 0, sizeof c);
  char msg[256];
  if (mp_solver_options(s, n_sets, sets, c.opt, msg, sizeof msg)) {
    fprintf(stderr, "remat_drive: %s\n", msg);
    return 1;
  }
  int *order = g->given;
  if (order_text) { /* node ids, comma-separated */
    order = malloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
    const char *p = order_text;
    for (int i = 0; i < g->n; i++) {
      order[i] = (int)strtol(p, (char **)&p, 10);
      if (*p == ',') p++;
    }
    if (mp_order_check(g, order, &err) >= 0) {
      fprintf(stderr, "remat_drive: --order: %s\n", err.msg);
      return 1;
    }
  }
  c.g = g;
  c.start_order = order;
  c.budget = budget;
  c.bandwidth = bw;
  c.events = &ev;
  c.seed = seed;
  c.time_limit = limit;
  c.status = MP_FEASIBLE;
  c.verbose = verbose;
  c.write_lp = write_lp;
  double t0 = mp_now();
  if (limit > 0) c.deadline = t0 + limit;
  int rc = s->solve(&c);
  double wall = mp_now() - t0;
  const char *status = rc ? "none" : mp_status_name(c.status);
  mp_ev_figures f;
  memset(&f, 0, sizeof f);
  if (rc == 0 && ev.n > 0) {
    mp_ev_violation v;
    if (mp_events_verify(g, &ev, bw, &v, &err)) {
      fprintf(stderr, "remat_drive: %s: invalid plan: %s\n", name, err.msg);
      return 1;
    }
    mp_events_evaluate(g, &ev, bw, budget, &f);
    if (f.live_peak > budget) {
      fprintf(stderr, "remat_drive: %s: plan over budget\n", name);
      return 1;
    }
  }
  printf("%s\t%s\t%lld\t%s\t%.6g\t%.6f\t%lld\t%lld\t%.6g\t%lld\t%.6g\t%.2f\t%s\n", g->name, name,
         (long long)budget, status, f.duration, f.overhead, (long long)f.live_peak,
         (long long)f.recomputed, f.stall_time, (long long)f.transferred, c.duration_bound, wall,
         c.msg);
  mp_events_destroy(&ev);
  mp_graph_free(g);
  return 0;
}
