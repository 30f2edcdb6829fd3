/* drive.c - run one recomputation/offload stage (DESIGN 6) through the
 * registry until the CLI has --remat: read a graph, take the file order
 * (or --order-file), set the budget, call the solver, verify the plan with
 * the judge and print one tab-separated row of its figures.
 *
 *   drive GRAPH SOLVER[,SOLVER..] (--budget B | --frac F[,F..]) [--bandwidth BW]
 *         [--time-limit S] [--seed N] [--set name=value]... [--verbose N] [--header]
 *   drive GRAPH --analyze
 *
 * One row per (fraction, solver).  Columns: graph solver budget keepall
 * floor bandwidth status peak duration base overhead recomputed
 * transferred stall solve_ms note.  Exit 4 when a plan is invalid or over
 * its budget.  Built by scripts/remat/build.sh against the objects of
 * `make`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "registry.h"
#include "chain.h"
#include "run.h"
#include "solver.h"
#include "lib/remat_info.h"

static void usage(void) {
  fprintf(stderr, "usage: drive GRAPH SOLVER[,SOLVER..] (--budget B | --frac F[,F..]) "
                  "[--bandwidth BW] [--time-limit S] [--seed N] [--set name=value]... "
                  "[--verbose N] [--header]\n       drive GRAPH --analyze\n");
  exit(2);
}

/* What recomputation alone cannot remove, under the file order: before
 * each position, the bytes of resident buffers that may not be dropped,
 * plus what the run itself needs.  Its largest value is a floor for every
 * recompute-only heuristic built on lib/remat_exec.h. */
static int analyze(const char *path) {
  mp_error err;
  mp_graph *g = mp_graph_read_json(path, false, &err);
  if (!g) {
    fprintf(stderr, "drive: %s\n", err.msg);
    return 1;
  }
  ri_info ri;
  ri_init(&ri, g, g->given);
  int m = ri.m;
  int64_t *fixed = calloc((size_t)m + 2, sizeof(int64_t));
  int64_t pinned_bytes = 0, drop_bytes = 0, other_bytes = 0;
  for (int b = 0; b < ri.nb; b++) {
    if (!(ri.flags[b] & RI_TENSOR)) continue;
    if (ri.flags[b] & RI_PINNED) pinned_bytes += ri.size[b];
    else if (ri.flags[b] & RI_DROP) drop_bytes += ri.size[b];
    else other_bytes += ri.size[b];
    if (ri.flags[b] & RI_DROP) continue;
    int lo = ri.ev[ri.ev_start[b]] + 1, hi = ri.last_use[b];
    if (lo > hi) continue;
    fixed[lo] += ri.size[b];
    fixed[hi + 1] -= ri.size[b];
  }
  int64_t worst = 0;
  int at = 0;
  for (int p = 0; p < m; p++) {
    if (p) fixed[p] += fixed[p - 1];
    int v = ri.seq[p];
    int64_t x = fixed[p] + ri_run_bytes(&ri, v);
    for (int k = 0; k < g->n_reads[v]; k++)
      if (ri.flags[g->reads[v][k]] & RI_DROP) x += ri.size[g->reads[v][k]];
    if (x > worst) worst = x, at = p;
  }
  int ncut = 0;
  for (int i = 0; i + 1 < ri.turn; i++) ncut += ri.front_count[i] == 1;
  printf("%s: nodes %d positions %d turn %d cuts %d keepall %lld floor %lld fixed_floor %lld "
         "(at %d, node %d %s) bytes pinned %lld droppable %lld other %lld\n",
         path, g->n, m, ri.turn, ncut, (long long)mp_order_peak(g, g->given),
         (long long)mp_events_floor(g), (long long)worst, at, ri.seq[at],
         g->nodes[ri.seq[at]].op, (long long)pinned_bytes, (long long)drop_bytes,
         (long long)other_bytes);
  free(fixed);
  ri_destroy(&ri);
  mp_graph_destroy(g);
  return 0;
}

/* One stage run, one row. */
static int run_one(const mp_graph *g, const char *base, const char *name, int64_t budget,
                   int64_t keep, double bw, double limit, uint64_t seed, int ns,
                   const char *const *sets, int verbose) {
  const mp_solver *s = mp_solver_find(name);
  if (!s || s->decides != MP_DECIDES_EVENTS) {
    fprintf(stderr, "drive: %s is not a recomputation solver\n", name);
    return 2;
  }
  mp_ctx c;
  memset(&c, 0, sizeof c);
  mp_error oerr;
  if (mp_solver_options(s, ns, sets, c.opt, &oerr) != MP_OK) {
    fprintf(stderr, "drive: %s\n", oerr.msg);
    return 2;
  }
  mp_events ev;
  mp_events_init(&ev);
  c.g = g;
  c.start_order = g->given;
  c.budget = budget;
  c.bandwidth = bw;
  c.seed = seed;
  c.time_limit = limit;
  c.align = 64;
  c.verbose = verbose;
  c.events = &ev;
  c.status = MP_FEASIBLE;
  double t0 = mp_now();
  c.deadline = limit > 0 ? t0 + limit : 0;
  int rc = s->solve(&c);
  double ms = (mp_now() - t0) * 1e3;
  printf("%s\t%s\t%lld\t%lld\t%lld\t%g\t", base, name, (long long)budget, (long long)keep,
         (long long)mp_events_floor(g), bw);
  mp_error err;
  int out = 0;
  if (rc != 0 || c.status == MP_INFEASIBLE) {
    printf("%s\t\t\t\t\t\t\t\t%.1f\t%s\n", rc ? "no_plan" : "infeasible", ms, c.msg);
    out = rc ? 3 : 0;
  } else if (mp_events_verify(g, &ev, bw, NULL, &err)) {
    printf("INVALID\t\t\t\t\t\t\t\t%.1f\t%s\n", ms, err.msg);
    out = 4;
  } else {
    mp_ev_figures f;
    mp_events_evaluate(g, &ev, bw, budget, &f);
    bool over = f.live_peak > budget;
    printf("%s\t%lld\t%.6g\t%.6g\t%.4f\t%lld\t%lld\t%.6g\t%.1f\t%s\n",
           over ? "OVER_BUDGET" : mp_status_name(c.status), (long long)f.live_peak, f.duration,
           f.base_time, f.overhead, (long long)f.recomputed, (long long)f.transferred, f.stall_time,
           ms, c.msg);
    out = over ? 4 : 0;
  }
  fflush(stdout);
  mp_events_destroy(&ev);
  return out;
}

/* "a,b,c" split in place into at most cap pieces. */
static int split(char *s, char **out, int cap) {
  int n = 0;
  for (char *t = strtok(s, ","); t && n < cap; t = strtok(NULL, ",")) out[n++] = t;
  return n;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[2], "--analyze")) return analyze(argv[1]);
  if (argc < 3) usage();
  const char *path = argv[1], *sets[32];
  char *solvers[32], *fracs[64];
  int n_solvers = split(argv[2], solvers, 32), n_fracs = 0, ns = 0, verbose = 0;
  int64_t budget = -1;
  double bw = -1, limit = 0;
  uint64_t seed = 1;
  for (int i = 3; i < argc; i++) {
    if (!strcmp(argv[i], "--header")) {
      printf("graph\tsolver\tbudget\tkeepall\tfloor\tbandwidth\tstatus\tpeak\tduration\tbase\t"
             "overhead\trecomputed\ttransferred\tstall\tsolve_ms\tnote\n");
      continue;
    }
    if (i + 1 >= argc) usage();
    if (!strcmp(argv[i], "--budget")) budget = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--frac")) n_fracs = split(argv[++i], fracs, 64);
    else if (!strcmp(argv[i], "--bandwidth")) bw = atof(argv[++i]);
    else if (!strcmp(argv[i], "--time-limit")) limit = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--set") && ns < 32) sets[ns++] = argv[++i];
    else if (!strcmp(argv[i], "--verbose")) verbose = atoi(argv[++i]);
    else usage();
  }
  if (budget < 0 && n_fracs == 0) usage();
  mp_error err;
  mp_graph *g = mp_graph_read_json(path, false, &err);
  if (!g) {
    fprintf(stderr, "drive: %s\n", err.msg);
    return 1;
  }
  if (bw < 0) bw = g->host_bandwidth;
  int64_t keep = mp_order_peak(g, g->given);
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  int worst = 0;
  for (int f = 0; f < (n_fracs ? n_fracs : 1); f++) {
    int64_t b = budget;
    if (n_fracs && mp_budget_frac(fracs[f], keep, &b, &err)) {
      fprintf(stderr, "drive: %s\n", err.msg);
      return 2;
    }
    for (int k = 0; k < n_solvers; k++) {
      int rc = run_one(g, base, solvers[k], b, keep, bw, limit, seed, ns, sets, verbose);
      if (rc == 2 || rc == 4) worst = rc;
      else if (rc && !worst) worst = rc;
    }
  }
  mp_graph_destroy(g);
  return worst;
}
