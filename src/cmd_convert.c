/* cmd_convert.c - `memplan convert FILE --to nodelink|json [--out F]`:
 * rewrite a graph in another format (atomically). */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_args.h"
#include "memplan.h"

static const char convert_help[] =
    "usage: memplan convert FILE --to nodelink|json [--out F] [--input-format F]\n"
    "                       [--size-attr NAME] [--cost-attr NAME] [--toposort]\n"
    "\n"
    "Read a graph (JSON, GraphML or node-link JSON) and write it as networkx node-link JSON\n"
    "or as DESIGN 1.1 JSON.  In Python, networkx.node_link_graph(json.load(f),\n"
    "edges=\"links\") (networkx >= 3.4; older versions read \"links\" by default) gives a\n"
    "MultiDiGraph: node attributes name, op, size (total bytes), outputs (when not one),\n"
    "workspace, alias, alias_output, inplace; link attributes key (input position) and\n"
    "output (k of an [j, k] input).  Nodes keep the given order; memplan reads both back\n"
    "with the same figures.  Default output: stdout.\n";

enum { C_TO = 256, C_OUT, C_IFMT, C_SATTR, C_CATTR, C_TOPO, C_HELP };
static const struct option convert_opts[] = {
    {"to", required_argument, 0, C_TO},          {"out", required_argument, 0, C_OUT},
    {"input-format", required_argument, 0, C_IFMT}, {"size-attr", required_argument, 0, C_SATTR},
    {"cost-attr", required_argument, 0, C_CATTR}, {"toposort", no_argument, 0, C_TOPO},
    {"help", no_argument, 0, C_HELP},
    {0, 0, 0, 0}};

int mp_cmd_convert(int argc, char **argv) {
  const char *to = NULL, *out = NULL;
  memplan_load_opts lo;
  memplan_load_opts_init(&lo);
  int c;
  optind = 1;
  opterr = 0;
  if (mp_args_exact("convert", argc, argv, convert_opts, NULL)) return MP_EXIT_USAGE;
  while ((c = getopt_long(argc, argv, "", convert_opts, NULL)) != -1) {
    switch (c) {
    case C_TO:
      if (mp_arg_choice("convert", "--to", optarg, "nodelink|json")) return MP_EXIT_USAGE;
      to = optarg;
      break;
    case C_OUT: out = optarg; break;
    case C_IFMT:
      if (mp_arg_choice("convert", "--input-format", optarg, MP_INPUT_FORMATS)) return MP_EXIT_USAGE;
      lo.format = optarg;
      break;
    case C_SATTR: lo.size_attr = optarg; break;
    case C_CATTR: lo.cost_attr = optarg; break;
    case C_TOPO: lo.toposort = true; break;
    case C_HELP: fputs(convert_help, stdout); return MP_EXIT_OK;
    default:
      fprintf(stderr, "memplan convert: unknown or incomplete option '%s'\n%s", argv[optind - 1],
              convert_help);
      return MP_EXIT_USAGE;
    }
  }
  if (optind != argc - 1 || !to || (strcmp(to, "nodelink") && strcmp(to, "json"))) {
    fprintf(stderr, "memplan convert: need one FILE and --to nodelink|json\n%s", convert_help);
    return MP_EXIT_USAGE;
  }
  if (mp_arg_out("convert", out, (const char *const *)&argv[optind], 1) ||
      mp_arg_out_place("convert", "--out", out))
    return MP_EXIT_USAGE;
  memplan_instance *in;
  memplan_error err;
  if (memplan_instance_load(&in, argv[optind], &lo, &err)) {
    fprintf(stderr, "memplan: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  if (!memplan_instance_is_graph(in)) {
    fprintf(stderr, "memplan convert: %s is a fixed-lifetime problem, not a graph\n",
            argv[optind]);
    memplan_instance_destroy(in);
    return MP_EXIT_INPUT;
  }
  memplan_err e = memplan_instance_write(in, out, to, &err);
  memplan_instance_destroy(in);
  if (e) {
    fprintf(stderr, "memplan convert: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  return MP_EXIT_OK;
}
