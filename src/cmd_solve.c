/* cmd_solve.c - `memplan solve`: parse the flags, plan through the public
 * API (memplan.h), print the figures, write the plan atomically.  The exit
 * codes are chosen here, from the API's error codes and the status. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_args.h"
#include "memplan.h"

static const char solve_help[] =
    "usage: memplan solve FILE [options]\n"
    "\n"
    "Plan FILE (graph JSON, GraphML, node-link JSON, or MiniMalloc CSV) and print its figures.\n"
    "\n"
    "  --order NAME[,NAME...]  order solver chain (default given); each feeds the next\n"
    "  --remat NAME[,NAME...]  recomputation/offload chain (default none): an event plan of the\n"
    "                          order within the budget, its residencies placed by --place\n"
    "  --budget B              with --remat: the live peak allowed, in bytes\n"
    "  --budget-frac F         with --remat: F x the live peak of the order handed to it\n"
    "  --bandwidth BW          with --remat: host link, bytes per cost unit (default: the graph's\n"
    "                          host_bandwidth; 0: no offload)\n"
    "  --place NAME[,NAME...]  placer chain (default bysize)\n"
    "  --align A               offset alignment in bytes (default 64 for graphs, 1 for CSV)\n"
    "  --time-limit S          seconds for the whole solve (default: none)\n"
    "  --seed N                random seed (default 1)\n"
    "  --capacity C            ask the placer for a fit in C bytes\n"
    "  --set [SOLVER.]OPT=VAL  set a solver option (repeatable; see memplan solvers)\n"
    "  --write-lp FILE         ILP solvers: write the model in CPLEX LP format (one such\n"
    "                          stage per chain; not the input, not --out)\n"
    "  --no-baseline           skip the given-order baseline (reduction_vs_given absent)\n"
    "  --threads N             threads the solve may use (default $MEMPLAN_THREADS, else 2:\n"
    "                          without a time limit, the baseline beside the solvers,\n"
    "                          bysize's packer on N threads and best's lpmf order beside\n"
    "                          its others; 1: all on one; the same figures and plan)\n"
    "  --verbose               the solvers' progress on stderr (GLPK's log, search steps,\n"
    "                          the packer's counts); twice for more\n"
    "  --format text|json      output format (default text)\n"
    "  --out PLAN              write the plan (DESIGN 1.5 JSON, or CSV with offsets)\n"
    "  --toposort              accept a non-topological file order by sorting it\n"
    "  --input-format F        json, graphml, nodelink or csv (default: by extension)\n"
    "  --size-attr NAME        node-link/GraphML attribute with output bytes (default size)\n"
    "  --cost-attr NAME        node-link/GraphML attribute with node times (default cost)\n"
    "\n"
    "Exit: 0 plan found, 1 bad input, 2 bad usage, 3 solver failed / no plan (or infeasible).\n";

enum { O_ORDER = 256, O_PLACE, O_ALIGN, O_TL, O_SEED, O_CAP, O_SET, O_LP, O_FMT, O_OUT, O_TOPO,
       O_IFMT, O_SATTR, O_HELP, O_NOBASE, O_REMAT, O_BUDGET, O_BFRAC, O_BW, O_CATTR, O_VERBOSE,
       O_THREADS };

static const struct option solve_opts[] = {
    {"order", required_argument, 0, O_ORDER},   {"place", required_argument, 0, O_PLACE},
    {"align", required_argument, 0, O_ALIGN},   {"time-limit", required_argument, 0, O_TL},
    {"seed", required_argument, 0, O_SEED},     {"capacity", required_argument, 0, O_CAP},
    {"set", required_argument, 0, O_SET},       {"write-lp", required_argument, 0, O_LP},
    {"format", required_argument, 0, O_FMT},    {"out", required_argument, 0, O_OUT},
    {"toposort", no_argument, 0, O_TOPO},       {"input-format", required_argument, 0, O_IFMT},
    {"size-attr", required_argument, 0, O_SATTR}, {"help", no_argument, 0, O_HELP},
    {"no-baseline", no_argument, 0, O_NOBASE},  {"remat", required_argument, 0, O_REMAT},
    {"budget", required_argument, 0, O_BUDGET}, {"budget-frac", required_argument, 0, O_BFRAC},
    {"bandwidth", required_argument, 0, O_BW},  {"cost-attr", required_argument, 0, O_CATTR},
    {"verbose", no_argument, 0, O_VERBOSE},    {"threads", required_argument, 0, O_THREADS},
    {0, 0, 0, 0}};

static int exit_code_of(memplan_err e) {
  switch (e) {
  case MEMPLAN_OK: return MP_EXIT_OK;
  case MEMPLAN_EUSAGE: return MP_EXIT_USAGE;
  case MEMPLAN_ESOLVER: return MP_EXIT_SOLVER;
  default: return MP_EXIT_INPUT;
  }
}

/* The figures on stdout, flushed (they come before any message): 0, or
 * MP_EXIT_INPUT once a failed write is said with its reason (the flush
 * inside the print consumed it: main's last check of stdout saw the error
 * flag alone and said it without one). */
static int print_figures(const memplan_result *res, const char *fmt) {
  errno = 0;
  if (memplan_result_print(res, stdout, fmt) != MEMPLAN_EIO) return MP_EXIT_OK;
  int why = errno ? errno : EIO;
  fprintf(stderr, "memplan: standard output: write error: %s\n", strerror(why));
  __fpurge(stdout); /* said: main's last check must not say it again */
  clearerr(stdout);
  return MP_EXIT_INPUT;
}

/* Plan, print, write: the part of `solve` after the flags. */
static int solve_file(const char *path, const memplan_load_opts *lo, const memplan_request *req,
                      const char *fmt, const char *out) {
  memplan_instance *in;
  memplan_result *res;
  memplan_error err;
  memplan_err e = memplan_instance_load(&in, path, lo, &err);
  if (e) {
    fprintf(stderr, "memplan: %s\n", err.msg);
    return exit_code_of(e);
  }
  e = memplan_solve(in, req, &res, &err);
  if (e == MEMPLAN_EUSAGE) {
    fprintf(stderr, "memplan solve: %s\n", err.msg);
    memplan_instance_destroy(in);
    return MP_EXIT_USAGE;
  }
  int printed = print_figures(res, fmt);
  if (e == MEMPLAN_OK && memplan_result_status(res) == MEMPLAN_INFEASIBLE) e = MEMPLAN_ESOLVER;
  if (e) {
    if (memplan_result_message(res)[0]) fprintf(stderr, "memplan solve: %s\n", memplan_result_message(res));
  } else if (out && (e = memplan_result_write_plan(res, out, &err))) {
    fprintf(stderr, "memplan: %s\n", err.msg);
  }
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
  int rc = exit_code_of(e);
  return rc == MP_EXIT_OK ? printed : rc;
}

/* What the flags set. */
typedef struct solve_flags {
  memplan_request req;
  memplan_load_opts lo;
  const char *fmt, *out;
  const char **sets;
  int nsets;
} solve_flags;

/* --order, --place or --remat (flag c) a second time: true after a message.
 * The second used to replace the first: meant as a chain, a solver was lost. */
static bool chain_given_twice(int c, const memplan_request *req) {
  if (c != O_ORDER && c != O_PLACE && c != O_REMAT) return false;
  const char *flag = c == O_ORDER ? "--order" : c == O_PLACE ? "--place" : "--remat";
  const char *chain = c == O_ORDER ? req->order : c == O_PLACE ? req->place : req->remat;
  if (!chain) return false;
  fprintf(stderr, "memplan solve: %s given twice ('%s', '%s'): one chain per stage, written "
          "%s,%s to run one after the other\n", flag, chain, optarg, chain, optarg);
  return true;
}

/* One flag c (its value in optarg): 0, or the exit code to leave with. */
static int solve_flag(int c, solve_flags *f, char **argv) {
  memplan_request *req = &f->req;
  int64_t v;
  if (chain_given_twice(c, req)) return MP_EXIT_USAGE;
  switch (c) {
  case O_ORDER: req->order = optarg; return 0;
  case O_PLACE: req->place = optarg; return 0;
  case O_ALIGN:
    if (mp_arg_align("solve", "--align", optarg, &v)) return MP_EXIT_USAGE;
    req->align = v;
    return 0;
  case O_TL: return mp_arg_real("solve", "--time-limit", optarg, 0, 1e9, &req->time_limit) ? MP_EXIT_USAGE : 0;
  case O_SEED: return mp_arg_seed("solve", "--seed", optarg, &req->seed) ? MP_EXIT_USAGE : 0;
  case O_CAP:
    if (mp_arg_capacity("solve", "--capacity", optarg, &v)) return MP_EXIT_USAGE;
    req->capacity = v;
    return 0;
  case O_SET: f->sets[f->nsets++] = optarg; return 0;
  case O_LP: req->write_lp = optarg; return 0;
  case O_FMT:
    f->fmt = optarg;
    if (strcmp(f->fmt, "text") && strcmp(f->fmt, "json")) {
      fprintf(stderr, "memplan solve: bad value '%s' for --format\n", optarg);
      return MP_EXIT_USAGE;
    }
    return 0;
  case O_OUT: f->out = optarg; return 0;
  case O_TOPO: f->lo.toposort = true; return 0;
  case O_IFMT:
    if (mp_arg_choice("solve", "--input-format", optarg, MP_INPUT_FORMATS)) return MP_EXIT_USAGE;
    f->lo.format = optarg;
    return 0;
  case O_SATTR: f->lo.size_attr = optarg; return 0;
  case O_CATTR: f->lo.cost_attr = optarg; return 0;
  case O_NOBASE: req->no_baseline = true; return 0;
  case O_VERBOSE: req->verbose++; return 0;
  case O_THREADS:
    if (mp_arg_int("solve", "--threads", optarg, 1, 1024, &v)) return MP_EXIT_USAGE;
    req->threads = (int)v;
    return 0;
  case O_REMAT: req->remat = optarg; return 0;
  case O_BUDGET:
    if (mp_arg_int("solve", "--budget", optarg, 0, (int64_t)1 << 62, &v)) return MP_EXIT_USAGE;
    req->has_budget = true;
    req->budget = v;
    return 0;
  case O_BFRAC: req->budget_frac = optarg; return 0; /* checked exactly by the API */
  case O_BW:
    if (mp_arg_real("solve", "--bandwidth", optarg, 0, 1e300, &req->bandwidth)) return MP_EXIT_USAGE;
    req->has_bandwidth = true;
    return 0;
  case O_HELP:
    fputs(solve_help, stdout);
    return -1; /* exit 0 */
  default:
    fprintf(stderr, "memplan solve: unknown or incomplete option '%s'\n%s", argv[optind - 1], solve_help);
    return MP_EXIT_USAGE;
  }
}

/* --out and --write-lp: neither is the input, they are not one file, the
 * model's file is no directory, --out can be written (mp_arg_out_place).  0, or -1 after a message. */
static int solve_outputs_ok(const solve_flags *f, const char *input) {
  const char *lp = f->req.write_lp;
  if (mp_arg_out("solve", f->out, &input, 1) || mp_arg_out_as("solve", "--write-lp", lp, &input, 1) ||
      mp_arg_outs_apart("solve", "--out", f->out, "--write-lp", lp) ||
      mp_arg_not_dir("solve", "--write-lp", lp) || mp_arg_out_place("solve", "--out", f->out))
    return -1;
  return 0;
}

/* The default of --threads: $MEMPLAN_THREADS (`bench` sets 1 for its
 * cells, and an older memplan it runs ignores it), else the API's.  0, or
 * the exit code after a message. */
static int threads_from_env(memplan_request *req) {
  const char *t = getenv("MEMPLAN_THREADS");
  int64_t v;
  if (!t) return 0;
  if (mp_arg_int("solve", "MEMPLAN_THREADS", t, 1, 1024, &v)) return MP_EXIT_USAGE;
  req->threads = (int)v;
  return 0;
}

int mp_cmd_solve(int argc, char **argv) {
  solve_flags f = {.fmt = "text", .out = NULL, .nsets = 0};
  memplan_request_init(&f.req);
  memplan_load_opts_init(&f.lo);
  f.sets = calloc((size_t)argc + 1, sizeof(char *));
  int rc = -2, c;
  optind = 1;
  opterr = 0;
  if (mp_args_exact("solve", argc, argv, solve_opts, " set order place remat ")) rc = MP_EXIT_USAGE;
  if (rc == -2 && threads_from_env(&f.req)) rc = MP_EXIT_USAGE;
  while (rc == -2 && (c = getopt_long(argc, argv, "", solve_opts, NULL)) != -1) {
    int e = solve_flag(c, &f, argv);
    if (e) rc = e < 0 ? MP_EXIT_OK : e;
  }
  if (rc == -2 && optind != argc - 1) {
    fprintf(stderr, "memplan solve: expected exactly one FILE\n%s", solve_help);
    rc = MP_EXIT_USAGE;
  }
  if (rc == -2 && solve_outputs_ok(&f, argv[optind])) rc = MP_EXIT_USAGE;
  if (rc == -2) {
    f.req.sets = f.sets;
    f.req.n_sets = f.nsets;
    rc = solve_file(argv[optind], &f.lo, &f.req, f.fmt, f.out);
  }
  free(f.sets);
  return rc;
}
