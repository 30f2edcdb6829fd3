/* cmd_plot.c - `memplan plot`: parse the arguments, draw the picture
 * (memplan_plot), choose the exit code. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_args.h"
#include "memplan.h"

static const char plot_help[] =
    "usage: memplan plot profile GRAPH [--order CHAIN]... [--plan PLAN]... --out F.svg|.png|.pdf\n"
    "                    [--seed N] [--time-limit S] [--set OPT=V] [--align A]\n"
    "       memplan plot placement FILE [--plan PLAN | --order X --place Y] --out F.svg\n"
    "                    [--seed N] [--time-limit S] [--set OPT=V] [--align A]\n"
    "       memplan plot pareto RESULTS... --graph NAME --out F.svg [--agg median|best]\n"
    "       memplan plot overhead RESULTS... [--graph NAME] --out F.svg [--agg median|best]\n"
    "                    [--max-overhead PCT]\n"
    "       (--out may be repeated: the same picture in several files, solvers run once;\n"
    "       every file is written, or on any failure none is changed)\n"
    "\n"
    "profile:   live memory over the steps of each order solver or chain (--order repeated;\n"
    "           a chain is greedy,sa as in solve), the graph's min-cut lower bound dashed.\n"
    "           With --plan (plan files of solve --remat ... --out PLAN, repeatable) the x\n"
    "           axis is the memory sample (the start, then each run or copy in), the orders\n"
    "           are drawn as their keep-all plans, the events floor is dotted, and the first\n"
    "           plan's memory is split into bytes from a first run, recomputed bytes and\n"
    "           bytes brought back from the host, each in its own colour.  A curve of more\n"
    "           than 4 values per half-pixel column is drawn as each column's first, lowest,\n"
    "           highest and last value (every extreme shown; kilobytes at 10^6 steps).\n"
    "placement: one rectangle per buffer (x = lifetime, y = address), buffers live at the\n"
    "           peak moment highlighted, M(t) and the arena drawn; for a plan with events one\n"
    "           rectangle per residency, coloured by origin (first run, recomputed, brought\n"
    "           back from host).  Above 20000 rectangles those under 2 points wide or\n"
    "           high are not outlined, and an SVG or PDF holds them all as one embedded\n"
    "           bitmap at twice the picture's resolution.\n"
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
  memplan_plot_opts o;
  const char **outs, **orders, **plans, **pos, **sets; /* each up to argc entries */
  int npos;
  mp_seen seen; /* the single-valued options given */
} plot_cli;

/* The options each picture reads; another plot option given to it would be
 * dropped unseen, so it is a usage error (an unknown kind is memplan_plot's). */
static const char *const kind_options[][2] = {
    {"profile", " --out --order --plan --seed --time-limit --set --align "},
    {"placement", " --out --plan --order --place --seed --time-limit --set --align "},
    {"pareto", " --out --graph --agg "},
    {"overhead", " --out --graph --agg --max-overhead "},
};

static int check_applies(const char *kind, const char *a) {
  char key[64];
  snprintf(key, sizeof key, " %.60s ", a);
  const char *own = NULL;
  bool known = false; /* a plot option: some picture reads it (else plot_option says so) */
  for (size_t k = 0; k < sizeof kind_options / sizeof *kind_options; k++) {
    known |= strstr(kind_options[k][1], key) != NULL;
    if (!strcmp(kind, kind_options[k][0])) own = kind_options[k][1];
  }
  if (!known || !own || strstr(own, key)) return 0;
  fprintf(stderr, "memplan plot %s: %s does not apply to this picture (it reads%.*s)\n", kind, a,
          (int)strlen(own) - 1, own);
  return -1;
}

/* One option at argv[*i]; 0, or -1 (a usage error, said on stderr). */
static int plot_option(int argc, char **argv, int *i, plot_cli *c) {
  mp_opt opt;
  mp_opt_read(argc, argv, *i, &opt);
  const char *a = opt.name, *v = opt.value;
  memplan_plot_opts *o = &c->o;
  memplan_request *r = &o->request;
  if (a[0] != '-') {
    c->pos[c->npos++] = argv[*i];
    return 0;
  }
  if (!v) {
    fprintf(stderr, "memplan plot: bad option '%s'\n%s", a, plot_help);
    return -1;
  }
  if (check_applies(argv[1], a)) return -1;
  mp_opt_take(&opt, i);
  /* --place twice has its own message below: one chain */
  if (mp_opt_once("plot", &c->seen, " --out --plan --order --place --set ", a, v)) return -1;
  if (!strcmp(a, "--out")) c->outs[o->n_outs++] = v;
  else if (!strcmp(a, "--plan")) c->plans[o->n_plans++] = v;
  else if (!strcmp(a, "--graph")) o->graph = v;
  else if (!strcmp(a, "--order")) r->order = c->orders[o->n_orders++] = v;
  else if (!strcmp(a, "--place")) {
    if (r->place) { /* the second would replace the first: a placer lost unseen */
      fprintf(stderr, "memplan plot: --place given twice ('%s', '%s'): one placer chain, "
              "written %s,%s\n", r->place, v, r->place, v);
      return -1;
    }
    r->place = v;
  } else if (!strcmp(a, "--seed")) return mp_arg_seed("plot", a, v, &r->seed);
  else if (!strcmp(a, "--time-limit")) return mp_arg_real("plot", a, v, 0, 1e9, &r->time_limit);
  else if (!strcmp(a, "--align")) return mp_arg_align("plot", a, v, &r->align);
  else if (!strcmp(a, "--set")) c->sets[r->n_sets++] = v;
  else if (!strcmp(a, "--agg")) { /* --agg median|best */
    if (mp_arg_choice("plot", a, v, "median|best")) return -1;
    o->best_of_seeds = strcmp(v, "median") != 0;
  } else if (!strcmp(a, "--max-overhead")) {
    if (mp_arg_real("plot", a, v, 0.001, 1e6, &o->max_overhead)) return -1; /* 0: the default */
    o->max_overhead /= 100;
  } else {
    fprintf(stderr, "memplan plot: bad option '%s'\n%s", a, plot_help);
    return -1;
  }
  return 0;
}

static int parse(int argc, char **argv, plot_cli *c) {
  for (int i = 2; i < argc; i++)
    if (plot_option(argc, argv, &i, c)) return MP_EXIT_USAGE;
  if (!c->o.n_outs) {
    fprintf(stderr, "memplan plot: --out FILE is required\n");
    return MP_EXIT_USAGE;
  }
  const memplan_plot_opts *o = &c->o; /* placement: --order sets request.order, the last wins */
  if (!strcmp(argv[1], "placement") &&
      (o->n_orders > 1 || (o->n_plans && (o->n_orders || o->request.place)))) {
    fprintf(stderr, "memplan plot: placement draws one plan or one --order chain placed by "
            "--place, not two chains nor a plan with them\n");
    return MP_EXIT_USAGE;
  }
  for (int k = 0; k < c->o.n_outs; k++) /* before any solver runs */
    if (mp_arg_out_place("plot", "--out", c->outs[k])) return MP_EXIT_USAGE;
  return MP_EXIT_OK;
}

int mp_cmd_plot(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(plot_help, argc < 2 ? stderr : stdout);
    return argc < 2 ? MP_EXIT_USAGE : MP_EXIT_OK;
  }
  plot_cli c = {0};
  memplan_plot_opts_init(&c.o);
  const char ***lists[] = {&c.outs, &c.orders, &c.plans, &c.pos, &c.sets};
  int rc = MP_EXIT_OK;
  for (size_t k = 0; k < sizeof lists / sizeof *lists; k++)
    if (!(*lists[k] = malloc(sizeof(char *) * (size_t)argc))) rc = MP_EXIT_INPUT;
  if (rc) fprintf(stderr, "memplan plot: out of memory\n");
  c.o.outs = c.outs;
  c.o.orders = c.orders;
  c.o.plans = c.plans;
  c.o.request.sets = c.sets;
  if (!rc) rc = parse(argc, argv, &c);
  memplan_error err;
  memplan_err e = rc ? MEMPLAN_OK : memplan_plot(argv[1], c.pos, c.npos, &c.o, &err);
  if (e == MEMPLAN_EUSAGE) {
    fprintf(stderr, "memplan plot: %s\n(memplan plot --help)\n", err.msg);
    rc = MP_EXIT_USAGE;
  } else if (e) {
    fprintf(stderr, "memplan plot: %s\n", err.msg);
    rc = MP_EXIT_INPUT;
  }
  for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) free(*lists[k]);
  return rc;
}
