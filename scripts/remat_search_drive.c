/* remat_search_drive.c - run one recomputation solver (an events stage,
 * DESIGN 6) on a graph through the registry, check its plan with the judge
 * and print the figures as one tab-separated line, until `memplan solve
 * --remat` exists.  Built and used by scripts/remat_search_bench.sh:
 *
 *   remat_search_drive GRAPH SOLVER FRAC [LIMIT [SEED [BANDWIDTH [OPT=VAL...]]]]
 *
 * FRAC is a budget fraction of the given order's live peak (mp_budget_frac)
 * or =BYTES; LIMIT seconds (0: none).  Output columns: graph, solver, frac,
 * peak P, budget, floor, live_peak, duration, base_time, overhead (%),
 * recomputed, transferred, stall_time, status, ms, note. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "graph.h"
#include "registry.h"
#include "run.h"

static int fail(const char *what, const char *msg) {
  fprintf(stderr, "remat_search_drive: %s: %s\n", what, msg);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 4) return fail("usage", "GRAPH SOLVER FRAC [LIMIT [SEED [BANDWIDTH [OPT=VAL...]]]]");
  mp_error err;
  mp_graph *g = mp_graph_read(argv[1], false, &err);
  if (!g) return fail(argv[1], err.msg);
  const mp_solver *s = mp_solver_find(argv[2]);
  if (!s || s->decides != MP_DECIDES_EVENTS) return fail(argv[2], "not a recomputation solver");
  int64_t P = mp_order_peak(g, g->given), B;
  if (argv[3][0] == '=')
    B = strtoll(argv[3] + 1, NULL, 10);
  else if (mp_budget_frac(argv[3], P, &B, &err))
    return fail(argv[3], err.msg);
  double limit = argc > 4 ? atof(argv[4]) : 0, bw = argc > 6 ? atof(argv[6]) : 0;
  mp_ctx c;
  memset(&c, 0, sizeof c);
  int n_sets = argc > 7 ? argc - 7 : 0;
  if (mp_solver_options(s, n_sets, (const char *const *)(argv + 7), c.opt, &err) != MP_OK)
    return fail(argv[2], err.msg);
  mp_events ev;
  mp_events_init(&ev);
  c.g = g;
  c.start_order = g->given;
  c.budget = B;
  c.bandwidth = bw;
  c.events = &ev;
  c.seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 1;
  c.status = MP_FEASIBLE;
  c.time_limit = limit;
  double t0 = mp_now();
  if (limit > 0) c.deadline = t0 + limit;
  int rc = s->solve(&c);
  double ms = (mp_now() - t0) * 1000;
  printf("%s\t%s\t%s\t%lld\t%lld\t%lld\t", g->name, s->name, argv[3], (long long)P, (long long)B,
         (long long)mp_events_floor(g));
  if (rc != 0 || c.status == MP_INFEASIBLE) {
    printf("\t\t%.0f\t\t\t\t\t%s\t%.0f\t%s\n", mp_base_time(g), rc ? "no plan" : "infeasible", ms,
           c.msg);
    return 0;
  }
  if (mp_events_verify(g, &ev, bw, NULL, &err)) return fail("the judge refuses the plan", err.msg);
  mp_ev_figures f;
  mp_events_evaluate(g, &ev, bw, B, &f);
  if (f.live_peak > B) return fail("the judge", "the plan is over the budget");
  printf("%lld\t%.17g\t%.17g\t%.3f\t%lld\t%lld\t%.6g\t%s\t%.0f\t%s\n", (long long)f.live_peak,
         f.duration, f.base_time, 100 * f.overhead, (long long)f.recomputed,
         (long long)f.transferred, f.stall_time, mp_status_name(c.status), ms, c.msg);
  mp_events_destroy(&ev);
  mp_graph_free(g);
  return 0;
}
