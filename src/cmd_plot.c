/* cmd_plot.c - `memplan plot`: parse the arguments, draw the picture
 * (plot.h), choose the exit code. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "cli_args.h"
#include "plot.h"

static const char plot_help[] =
    "usage: memplan plot profile GRAPH [--order CHAIN]... [--plan PLAN]... --out F.svg|.png|.pdf\n"
    "                    [--seed N] [--time-limit S] [--set OPT=V]\n"
    "       memplan plot placement FILE [--plan PLAN | --order X --place Y] --out F.svg\n"
    "       memplan plot pareto RESULTS... --graph NAME --out F.svg [--agg median|best]\n"
    "       memplan plot overhead RESULTS... [--graph NAME] --out F.svg [--agg median|best]\n"
    "                    [--max-overhead PCT]\n"
    "       (--out may be repeated: the same picture in several files, solvers run once)\n"
    "\n"
    "profile:   live memory over the steps of each order solver or chain (--order repeated;\n"
    "           a chain is greedy,sa as in solve), the graph's min-cut lower bound dashed.\n"
    "           With --plan (plan files of solve --remat ... --out PLAN, repeatable) the x\n"
    "           axis is the memory sample (the start, then each run or copy in), the orders\n"
    "           are drawn as their keep-all plans, the events floor is dotted, and the first\n"
    "           plan's memory is split into bytes from a first run, recomputed bytes and\n"
    "           bytes brought back from the host, each in its own colour.\n"
    "placement: one rectangle per buffer (x = lifetime, y = address), buffers live at the\n"
    "           peak moment highlighted, M(t) and the arena drawn; for a plan with events one\n"
    "           rectangle per residency, coloured by origin (first run, recomputed, brought\n"
    "           back from host).\n"
    "pareto:    arena against planning time of every solver on one graph (results files),\n"
    "           the Pareto front in red.\n"
    "overhead:  recomputation cells (bench --remat): overhead against budget, one curve per\n"
    "           solver, on one graph (--graph) or as the geometric mean over the graphs each\n"
    "           solver planned (hollow: not every graph); the --max-overhead line dashed.\n";

/* fontconfig (behind cairo's text) keeps a few allocations for the life of
 * the process; LeakSanitizer (make test-asan) reads this hook and leaves
 * those out.  Only sanitizer builds look it up. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig\n"; }

typedef struct plot_cli {
  const char *kind, *graph, *plan;
  char *outs;               /* --out values, comma-joined */
  char **orders, **plans, **pos;
  int n_orders, n_plans, npos;
  const char **sets;
  int nsets;
  mp_run_spec spec;
  bool best;
  double max_overhead;
} plot_cli;

static void add_out(plot_cli *c, const char *v) {
  size_t l = c->outs ? strlen(c->outs) : 0;
  c->outs = mp_xrealloc(c->outs, l + strlen(v) + 2);
  sprintf(c->outs + l, "%s%s", l ? "," : "", v);
}

/* One option at argv[*i]; 0, or -1 (a usage error, said on stderr). */
static int plot_option(int argc, char **argv, int *i, plot_cli *c) {
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  if (a[0] != '-') {
    c->pos[c->npos++] = argv[*i];
    return 0;
  }
  if (!v) {
    fprintf(stderr, "memplan plot: bad option '%s'\n%s", a, plot_help);
    return -1;
  }
  (*i)++;
  if (!strcmp(a, "--out")) add_out(c, v);
  else if (!strcmp(a, "--plan")) mp_list_push(&c->plans, &c->n_plans, v);
  else if (!strcmp(a, "--graph")) c->graph = v;
  else if (!strcmp(a, "--order")) {
    c->spec.order = v;
    mp_list_push(&c->orders, &c->n_orders, v);
  } else if (!strcmp(a, "--place")) c->spec.place = v;
  else if (!strcmp(a, "--seed")) return mp_arg_seed("plot", a, v, &c->spec.seed);
  else if (!strcmp(a, "--time-limit")) return mp_arg_real("plot", a, v, 0, 1e9, &c->spec.time_limit);
  else if (!strcmp(a, "--align")) return mp_arg_align("plot", a, v, &c->spec.align);
  else if (!strcmp(a, "--set")) c->sets[c->nsets++] = v;
  else if (!strcmp(a, "--agg")) { /* --agg median|best */
    if (mp_arg_choice("plot", a, v, "median|best")) return -1;
    c->best = strcmp(v, "median") != 0;
  } else if (!strcmp(a, "--max-overhead")) {
    if (mp_arg_real("plot", a, v, 0, 1e6, &c->max_overhead)) return -1;
    c->max_overhead /= 100;
  } else {
    fprintf(stderr, "memplan plot: bad option '%s'\n%s", a, plot_help);
    return -1;
  }
  return 0;
}

static int need(bool ok, const char *what) {
  if (!ok) fprintf(stderr, "memplan plot %s\n(memplan plot --help)\n", what);
  return ok ? 0 : -1;
}

/* Draw the picture; -1 with msg, or -2 for a usage error (said). */
static int draw(plot_cli *c, char *msg, size_t cap) {
  const char *k = c->kind;
  if (!strcmp(k, "profile")) {
    if (need(c->npos == 1, "profile: one GRAPH")) return -2;
    const mp_solver *def = mp_solver_with_role(MP_ROLE_DEFAULT, MP_DECIDES_ORDER);
    if (!c->n_orders && !c->n_plans && def) mp_list_push(&c->orders, &c->n_orders, def->name);
    return mp_plot_profile(c->pos[0], c->orders, c->n_orders, c->plans, c->n_plans, &c->spec,
                           c->outs, msg, cap);
  }
  if (!strcmp(k, "placement")) {
    if (need(c->npos == 1 && c->n_plans <= 1, "placement: one FILE, at most one --plan")) return -2;
    return mp_plot_placement(c->pos[0], c->n_plans ? c->plans[0] : NULL, &c->spec, c->outs, msg,
                             cap);
  }
  if (!strcmp(k, "pareto")) {
    if (need(c->npos >= 1 && c->graph, "pareto: RESULTS... and --graph NAME")) return -2;
    return mp_plot_pareto(c->pos, c->npos, c->graph, c->best, c->outs, msg, cap);
  }
  if (!strcmp(k, "overhead")) {
    if (need(c->npos >= 1, "overhead: RESULTS...")) return -2;
    return mp_plot_overhead(c->pos, c->npos, c->graph, c->best,
                            c->max_overhead > 0 ? c->max_overhead : 0.2, c->outs, msg, cap);
  }
  fprintf(stderr, "memplan plot: unknown plot '%s' (profile, placement, pareto, overhead)\n", k);
  return -2;
}

int mp_cmd_plot(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(plot_help, argc < 2 ? stderr : stdout);
    return argc < 2 ? MP_EXIT_USAGE : MP_EXIT_OK;
  }
  plot_cli c;
  memset(&c, 0, sizeof c);
  c.kind = argv[1];
  c.spec.seed = 1;
  c.pos = mp_xmalloc(sizeof(char *) * (size_t)argc);
  c.sets = mp_xmalloc(sizeof(char *) * (size_t)argc);
  int rc = MP_EXIT_OK;
  for (int i = 2; i < argc && !rc; i++)
    if (plot_option(argc, argv, &i, &c)) rc = MP_EXIT_USAGE;
  c.spec.sets = c.sets;
  c.spec.n_sets = c.nsets;
  if (!rc && !c.outs) {
    fprintf(stderr, "memplan plot: --out FILE is required\n");
    rc = MP_EXIT_USAGE;
  }
  char msg[1024];
  int r = rc ? 0 : draw(&c, msg, sizeof msg);
  if (r == -2) rc = MP_EXIT_USAGE;
  if (r == -1) {
    fprintf(stderr, "memplan plot: %s\n", msg);
    rc = MP_EXIT_INPUT;
  }
  for (int i = 0; i < c.n_orders; i++) free(c.orders[i]);
  for (int i = 0; i < c.n_plans; i++) free(c.plans[i]);
  free(c.orders);
  free(c.plans);
  free(c.outs);
  free(c.pos);
  free(c.sets);
  return rc;
}
