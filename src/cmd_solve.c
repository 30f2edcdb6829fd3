/* cmd_solve.c - `memplan solve`: parse the flags, run the harness, print the
 * figures, write the plan atomically. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_args.h"
#include "run.h"

static const char solve_help[] =
    "usage: memplan solve FILE [options]\n"
    "\n"
    "Plan FILE (graph JSON, GraphML, node-link JSON, or MiniMalloc CSV) and print its figures.\n"
    "\n"
    "  --order NAME[,NAME...]  order solver chain (default given); each feeds the next\n"
    "  --place NAME[,NAME...]  placer chain (default bysize)\n"
    "  --align A               offset alignment in bytes (default 64 for graphs, 1 for CSV)\n"
    "  --time-limit S          seconds for the whole solve (default: none)\n"
    "  --seed N                random seed (default 1)\n"
    "  --capacity C            ask the placer for a fit in C bytes\n"
    "  --set [SOLVER.]OPT=VAL  set a solver option (repeatable; see memplan solvers)\n"
    "  --write-lp FILE         ILP solvers: write the model in CPLEX LP format\n"
    "  --format text|json      output format (default text)\n"
    "  --out PLAN              write the plan (DESIGN 1.5 JSON, or CSV with offsets)\n"
    "  --toposort              accept a non-topological file order by sorting it\n"
    "  --input-format F        json, graphml, nodelink or csv (default: by extension)\n"
    "  --size-attr NAME        node-link/GraphML attribute with output bytes (default size)\n"
    "  --cost-attr NAME        node-link attribute with node times (default cost)\n"
    "\n"
    "Exit: 0 plan found, 1 bad input, 2 bad usage, 3 solver failed / no plan.\n";

enum { O_ORDER = 256, O_PLACE, O_ALIGN, O_TL, O_SEED, O_CAP, O_SET, O_LP, O_FMT, O_OUT, O_TOPO,
       O_IFMT, O_SATTR, O_CATTR, O_HELP };

static const struct option solve_opts[] = {
    {"order", required_argument, 0, O_ORDER},   {"place", required_argument, 0, O_PLACE},
    {"align", required_argument, 0, O_ALIGN},   {"time-limit", required_argument, 0, O_TL},
    {"seed", required_argument, 0, O_SEED},     {"capacity", required_argument, 0, O_CAP},
    {"set", required_argument, 0, O_SET},       {"write-lp", required_argument, 0, O_LP},
    {"format", required_argument, 0, O_FMT},    {"out", required_argument, 0, O_OUT},
    {"toposort", no_argument, 0, O_TOPO},       {"input-format", required_argument, 0, O_IFMT},
    {"size-attr", required_argument, 0, O_SATTR}, {"cost-attr", required_argument, 0, O_CATTR},
    {"help", no_argument, 0, O_HELP},
    {0, 0, 0, 0}};

int mp_cmd_solve(int argc, char **argv) {
  mp_run_spec spec = {0};
  spec.seed = 1;
  mp_load_opts lo = {0};
  const char *fmt = "text", *out = NULL;
  const char **sets = calloc((size_t)argc + 1, sizeof(char *));
  int nsets = 0, c;
  optind = 1;
  opterr = 0;
  if (mp_args_exact("solve", argc, argv, solve_opts)) {
    free(sets);
    return MP_EXIT_USAGE;
  }
  while ((c = getopt_long(argc, argv, "", solve_opts, NULL)) != -1) {
    int64_t v;
    switch (c) {
    case O_ORDER: spec.order = optarg; break;
    case O_PLACE: spec.place = optarg; break;
    case O_ALIGN:
      if (mp_arg_int("solve", "--align", optarg, 1, MP_MAX_ALIGN, &v)) goto bad_usage;
      spec.align = v;
      break;
    case O_TL:
      if (mp_arg_real("solve", "--time-limit", optarg, 0, 1e9, &spec.time_limit)) goto bad_usage;
      break;
    case O_SEED:
      if (mp_arg_seed("solve", "--seed", optarg, &spec.seed)) goto bad_usage;
      break;
    case O_CAP:
      if (mp_arg_int("solve", "--capacity", optarg, 1, MP_MAX_OFFSET, &v)) goto bad_usage;
      spec.capacity = v;
      break;
    case O_SET: sets[nsets++] = optarg; break;
    case O_LP: spec.write_lp = optarg; break;
    case O_FMT:
      fmt = optarg;
      if (strcmp(fmt, "text") && strcmp(fmt, "json")) goto bad_value;
      break;
    case O_OUT: out = optarg; break;
    case O_TOPO: lo.toposort = true; break;
    case O_IFMT:
      if (mp_arg_choice("solve", "--input-format", optarg, MP_INPUT_FORMATS)) goto bad_usage;
      lo.format = optarg;
      break;
    case O_SATTR: lo.size_attr = optarg; break;
    case O_CATTR: lo.cost_attr = optarg; break;
    case O_HELP:
      fputs(solve_help, stdout);
      free(sets);
      return MP_EXIT_OK;
    default:
      fprintf(stderr, "memplan solve: unknown or incomplete option '%s'\n%s", argv[optind - 1],
              solve_help);
      free(sets);
      return MP_EXIT_USAGE;
    bad_value:
      fprintf(stderr, "memplan solve: bad value '%s' for --%s\n", optarg,
              solve_opts[c - O_ORDER].name);
    bad_usage:
      free(sets);
      return MP_EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "memplan solve: expected exactly one FILE\n%s", solve_help);
    free(sets);
    return MP_EXIT_USAGE;
  }
  spec.sets = sets;
  spec.n_sets = nsets;
  mp_instance in;
  mp_error err;
  if (mp_instance_load(argv[optind], &lo, &in, &err)) {
    fprintf(stderr, "memplan: %s\n", err.msg);
    free(sets);
    return MP_EXIT_INPUT;
  }
  mp_result r;
  int rc = mp_run(&in, &spec, &r);
  int exit_code = MP_EXIT_OK;
  if (rc == 1) {
    fprintf(stderr, "memplan solve: %s\n", r.msg);
    exit_code = MP_EXIT_USAGE;
  } else {
    if (!strcmp(fmt, "json"))
      mp_result_print_json(stdout, &in, &r);
    else
      mp_result_print_text(stdout, &in, &r);
    fflush(stdout);
    if (rc != 0 || r.status == MP_INFEASIBLE || r.status == MP_ERROR) {
      if (r.msg[0]) fprintf(stderr, "memplan solve: %s\n", r.msg);
      exit_code = MP_EXIT_SOLVER;
    } else if (out) {
      mp_outfile of;
      if (mp_out_open(&of, out, &err) == 0) {
        if (mp_plan_write(of.fp, &in, &r)) {
          mp_out_abort(&of);
          fprintf(stderr, "memplan: %s: cannot write the plan\n", out);
          exit_code = MP_EXIT_INPUT;
        } else if (mp_out_commit(&of, &err)) {
          fprintf(stderr, "memplan: %s\n", err.msg);
          exit_code = MP_EXIT_INPUT;
        }
      } else {
        fprintf(stderr, "memplan: %s\n", err.msg);
        exit_code = MP_EXIT_INPUT;
      }
    }
  }
  mp_result_free(&r);
  mp_instance_free(&in);
  free(sets);
  return exit_code;
}
