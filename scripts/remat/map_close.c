/* map_close.c - how close is the genome of a plan (solvers/lib/remat_map.h)
 * to the plan?  For each graph, fraction of the keep-all peak and source
 * solver: the source's plan (file order), then its genome mapped, repaired
 * and decoded; one row of both plans' figures.
 *
 *   map_close SOLVER[,SOLVER..] FRAC[,FRAC..] GRAPH...
 *
 * Built like drive.c (scripts/remat/build.sh builds both). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "events.h"
#include "registry.h"
#include "solver.h"
#include "lib/remat_map.h"

static int split(char *s, char **out, int cap) {
  int n = 0;
  for (char *t = strtok(s, ","); t && n < cap; t = strtok(NULL, ",")) out[n++] = t;
  return n;
}

static void row(const mp_graph *g, const char *base, const char *name, const char *frac, int64_t budget) {
  const mp_solver *s = mp_solver_find(name);
  mp_ctx c;
  memset(&c, 0, sizeof c);
  mp_error err;
  if (!s || mp_solver_options(s, 0, NULL, c.opt, &err) != MP_OK) return;
  mp_events ev;
  mp_events_init(&ev);
  c.g = g;
  c.start_order = g->given;
  c.budget = budget;
  c.bandwidth = g->host_bandwidth;
  c.seed = 1;
  c.align = 64;
  c.events = &ev;
  c.status = MP_FEASIBLE;
  printf("%s\t%s\t%s\t", base, frac, name);
  if (s->solve(&c) || c.status == MP_INFEASIBLE) {
    printf("no_plan\n");
    mp_events_destroy(&ev);
    return;
  }
  mp_ev_figures f;
  mp_events_evaluate(g, &ev, c.bandwidth, budget, &f);
  mp_rdec d;
  mp_rdec_init(&d, g, c.bandwidth);
  mp_rdec_set_order(&d, g->given);
  mp_rgene *genes = mp_xmalloc(sizeof(mp_rgene) * (size_t)(d.n_slots + 1));
  double t0 = mp_now();
  mp_rstart st;
  mp_rstart_map(&d, &ev, budget, 0, &st, genes);
  double ms = (mp_now() - t0) * 1e3;
  int moved = 0;
  for (int k = 0; k < d.n_slots; k++) moved += genes[k].kind != MP_RK_KEEP;
  printf("%.6g\t%.4f\t%lld\t", f.duration, f.overhead, (long long)f.live_peak);
  if (st.has_genes)
    printf("%.6g\t%.4f\t%lld\t%s\t%d\t%.1f\n", st.fig.duration, st.fig.duration / f.base_time - 1,
           (long long)st.fig.peak, st.fig.peak <= budget ? "fits" : "over", moved, ms);
  else
    printf("no_decode\n");
  free(genes);
  mp_rdec_destroy(&d);
  mp_events_destroy(&ev);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: map_close SOLVER[,SOLVER..] FRAC[,FRAC..] GRAPH...\n");
    return 2;
  }
  char *solvers[32], *fracs[32];
  int ns = split(argv[1], solvers, 32), nf = split(argv[2], fracs, 32);
  printf("graph\tfrac\tsolver\tduration\toverhead\tpeak\tgenome_duration\tgenome_overhead\t"
         "genome_peak\tbudget\tgenes_not_kept\tmap_ms\n");
  for (int i = 3; i < argc; i++) {
    mp_error err;
    mp_graph *g = mp_graph_read_json(argv[i], false, &err);
    if (!g) {
      fprintf(stderr, "map_close: %s\n", err.msg);
      return 1;
    }
    const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    int64_t keep = mp_order_peak(g, g->given);
    for (int f = 0; f < nf; f++) {
      int64_t budget;
      if (mp_budget_frac(fracs[f], keep, &budget, &err)) return 2;
      for (int k = 0; k < ns; k++) row(g, base, solvers[k], fracs[f], budget);
    }
    mp_graph_destroy(g);
  }
  return 0;
}
