/* cmd_gen.c - `memplan gen FAMILY [parameters] --seed N [--out FILE]`:
 * write a synthetic graph (DESIGN 1.1 JSON), atomically. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_args.h"
#include "memplan.h"

static const char gen_help[] =
    "usage: memplan gen FAMILY [parameters] [--seed N] [--out FILE] [--name NAME]\n"
    "\n"
    "Write a synthetic graph (DESIGN 1.1 JSON) to FILE (default stdout); the same\n"
    "parameters and seed give a byte-identical file.  Families:\n"
    "  randwire  RandWire cell: --model ws|er|ba (ws), -n RandWire nodes (32), -k (4, WS),\n"
    "            -p (WS rewiring 0.75 / ER edge probability 0.2), -m (5, BA); every node\n"
    "            is [weighted_sum] -> relu -> depthwise 3x3 -> pointwise 1x1 -> batch_norm.\n"
    "            WS, ER: igraph's generators.  BA as Xie et al. 2019 define it: m nodes\n"
    "            without edges, then each new node links to m distinct earlier nodes drawn\n"
    "            by degree (the first one to all m): exactly m(n-m) edges, m sources.\n"
    "            Refused (exit 2): over 4,000,000 expected edges (WS nk/2, ER pn(n-1)/2,\n"
    "            BA m(n-m)), or a WS lattice too dense to rewire (p(nk/2)(n-1)/(n-1-k)\n"
    "            over 4,000,000: igraph redraws an endpoint until it is no neighbour),\n"
    "            or a WS -p in (0, 1e-9) (igraph's rewiring skip overflows)\n"
    "  nas       NASNet/DARTS cells: --cells (1), --blocks (5) of two ops each, summed;\n"
    "            ops from sep3/5, dil3/5, max/avg pool, skip; concat of unused states\n"
    "  layered   random layered DAG: -n total nodes (300), --layers (round(sqrt(n-2))),\n"
    "            --fan-in max drawn in-degree (3), --span earlier layers a node reads (3)\n"
    "  tree      in-tree: -n (100), --fan-in max children (3), --input-prob (0): the\n"
    "            probability that a leaf is a graph input rather than a producer op\n"
    "  sp        random series-parallel: -n (100), --par-prob (0.5)\n"
    "  chain     -n (50)\n"
    "Sizes: randwire/nas tensors are channels x resolution^2 x batch x dtype bytes\n"
    "  (--channels 78 --resolution 56 --batch 1 --dtype-bytes 4); the other families\n"
    "  draw each output log-uniformly in [--min-size, --max-size] (4096, 4194304),\n"
    "  rounded up to a multiple of 4 bytes (the range must hold one; at most --max-size).\n"
    "  --ws-prob Q      a compute node (randwire/nas: a convolution) has a workspace of\n"
    "                   its output size x U_log[1/4, 2] with probability Q (0)\n"
    "  --inplace-prob Q an eligible node is in-place with probability Q (0); randwire/nas:\n"
    "                   ReLUs whose input has no other reader; others: single-input ops.\n"
    "                   Never a node reading a graph input, nor one that drew a\n"
    "                   workspace (layered/tree/sp/chain with --ws-prob 1: none in-place)\n"
    "  --inplace-relu   randwire/nas: same as --inplace-prob 1\n"
    "  --backward       any family: a training step, the forward above, then a 4-byte\n"
    "                   loss reading its sinks and one `grad` node per forward operator\n"
    "                   (its output's size), reading its readers' gradients, its output\n"
    "                   and its inputs (the saved activations); the output node reads the\n"
    "                   loss and the input gradients; phases fwd/bwd; about 2n+2 nodes\n"
    "  --seed N         random seed (1)\n"
    "  --name NAME      the graph's name (default from the parameters); the file's source\n"
    "                   line records it, single-quoted for the shell when it needs to be\n"
    "Flags: the one-letter parameters of the literature (n, k, p, m) take one dash (-n 32,\n"
    "  also --nodes 32), every other flag two.  Each family takes the options listed\n"
    "  with it above (randwire: -k for ws, -p for ws and er, -m for ba), the size options\n"
    "  of its kind, and --ws-prob, --inplace-prob, --backward, --seed, --name, --out;\n"
    "  any other option is refused (exit 2), as it would not change the graph.\n";

enum { G_MODEL = 256, G_CH, G_RES, G_BATCH, G_DT, G_CELLS, G_BLOCKS, G_LAYERS, G_FANIN,
       G_SPAN, G_INPROB, G_PARPROB, G_MINS, G_MAXS, G_WS, G_IP, G_IPRELU, G_BACKWARD, G_SEED, G_OUT, G_NAME,
       G_HELP };

static const struct option gen_opts[] = {
    {"model", required_argument, 0, G_MODEL},
    {"channels", required_argument, 0, G_CH},        {"resolution", required_argument, 0, G_RES},
    {"batch", required_argument, 0, G_BATCH},        {"dtype-bytes", required_argument, 0, G_DT},
    {"cells", required_argument, 0, G_CELLS},        {"blocks", required_argument, 0, G_BLOCKS},
    {"layers", required_argument, 0, G_LAYERS},      {"fan-in", required_argument, 0, G_FANIN},
    {"span", required_argument, 0, G_SPAN},          {"input-prob", required_argument, 0, G_INPROB},
    {"par-prob", required_argument, 0, G_PARPROB},   {"min-size", required_argument, 0, G_MINS},
    {"max-size", required_argument, 0, G_MAXS},      {"ws-prob", required_argument, 0, G_WS},
    {"inplace-prob", required_argument, 0, G_IP},    {"inplace-relu", no_argument, 0, G_IPRELU},
    {"backward", no_argument, 0, G_BACKWARD},        {"seed", required_argument, 0, G_SEED},
    {"out", required_argument, 0, G_OUT},            {"name", required_argument, 0, G_NAME},
    {"nodes", required_argument, 0, 'n'},            {"help", no_argument, 0, G_HELP},
    {0, 0, 0, 0}};

/* The option code c as `gen --help` spells it ("-n" also for --nodes). */
static const char *code_name(int c, char *buf, size_t cap) {
  snprintf(buf, cap, "-%c", c < 256 ? c : '?');
  for (size_t i = 0; c >= 256 && gen_opts[i].name; i++)
    if (gen_opts[i].val == c) snprintf(buf, cap, "--%s", gen_opts[i].name);
  return buf;
}

/* The options given, each once, in the order first given. */
typedef struct seen_flags {
  int n, code[G_HELP + 1];
} seen_flags;

static void note_flag(seen_flags *s, int c) {
  for (int i = 0; i < s->n; i++)
    if (s->code[i] == c) return;
  if (s->n < G_HELP + 1) s->code[s->n++] = c;
}

/* Set what option c says.  0, or -1 after a message. */
static int set_option(int c, const char *arg, memplan_gen_opts *o, const char **out) {
  int64_t v;
  double d;
  char fl[40];
#define INT_ARG(lo, hi) if (mp_arg_int("gen", code_name(c, fl, sizeof fl), arg, lo, hi, &v)) return -1
#define REAL_ARG(lo, hi) if (mp_arg_real("gen", code_name(c, fl, sizeof fl), arg, lo, hi, &d)) return -1
  switch (c) {
  case 'n': INT_ARG(1, 2000000); o->n = (int)v; break;
  case 'k': INT_ARG(1, 1000000); o->k = (int)v; break;
  case 'p': REAL_ARG(0, 1); o->p = d; break;
  case 'm': INT_ARG(1, 1000000); o->m = (int)v; break;
  case G_MODEL:
    if (mp_arg_choice("gen", "--model", arg, "ws|er|ba")) return -1;
    o->model = arg;
    break;
  case G_CH: INT_ARG(1, 1 << 20); o->channels = (int)v; break;
  case G_RES: INT_ARG(1, 1 << 16); o->resolution = (int)v; break;
  case G_BATCH: INT_ARG(1, 1 << 16); o->batch = (int)v; break;
  case G_DT: INT_ARG(1, 64); o->dtype_bytes = (int)v; break;
  case G_CELLS: INT_ARG(1, 1000); o->cells = (int)v; break;
  case G_BLOCKS: INT_ARG(1, 100); o->blocks = (int)v; break;
  case G_LAYERS: INT_ARG(1, 2000000); o->layers = (int)v; break;
  case G_FANIN: INT_ARG(1, 1000000); o->fan_in = (int)v; break;
  case G_SPAN: INT_ARG(1, 2000000); o->span = (int)v; break;
  case G_INPROB: REAL_ARG(0, 1); o->input_prob = d; break;
  case G_PARPROB: REAL_ARG(0, 1); o->par_prob = d; break;
  case G_MINS: INT_ARG(4, (int64_t)1 << 40); o->min_size = v; break;
  case G_MAXS: INT_ARG(4, (int64_t)1 << 40); o->max_size = v; break;
  case G_WS: REAL_ARG(0, 1); o->ws_prob = d; break;
  case G_IP: REAL_ARG(0, 1); o->inplace_prob = d; break;
  case G_IPRELU: o->inplace_prob = 1; break;
  case G_BACKWARD: o->backward = true; break;
  case G_SEED: return mp_arg_seed("gen", "--seed", arg, &o->seed);
  case G_OUT: *out = arg; break;
  case G_NAME: o->name = arg; break;
  }
#undef INT_ARG
#undef REAL_ARG
  return 0;
}

/* Read the options into o, out and seen.  0, 1 after --help, -1 after a
 * message. */
static int parse_gen(int argc, char **argv, memplan_gen_opts *o, const char **out,
                     seen_flags *seen) {
  int c, li = 0;
  optind = 1;
  opterr = 0;
  if (mp_args_exact("gen", argc, argv, gen_opts, NULL)) return -1;
  while ((c = getopt_long(argc, argv, "n:k:p:m:", gen_opts, &li)) != -1) {
    if (c == G_HELP) {
      fputs(gen_help, stdout);
      return 1;
    }
    if (c == '?' || c == ':') {
      fprintf(stderr, "memplan gen: unknown or incomplete option '%s'\n%s", argv[optind - 1],
              gen_help);
      return -1;
    }
    if (set_option(c, optarg, o, out)) return -1;
    note_flag(seen, c);
  }
  return 0;
}

/* An option the family does not read would change nothing: refuse the
 * first such one, naming what the family takes.  0, or -1 after a message. */
static int refuse_foreign(const seen_flags *seen, const char *family, const char *model) {
  for (int i = 0; i < seen->n; i++) {
    char fl[40], takes[512], who[64];
    code_name(seen->code[i], fl, sizeof fl);
    if (memplan_gen_takes(family, model, fl)) continue;
    memplan_gen_flags(family, model, takes, sizeof takes);
    if (!strcmp(family, "randwire"))
      snprintf(who, sizeof who, "randwire --model %s", model ? model : "ws");
    else
      snprintf(who, sizeof who, "%s", family);
    fprintf(stderr, "memplan gen: %s does not take %s (it takes: %s)\n", who, fl, takes);
    return -1;
  }
  return 0;
}

int mp_cmd_gen(int argc, char **argv) {
  memplan_gen_opts o;
  memplan_gen_opts_init(&o);
  const char *out = NULL;
  seen_flags seen = {0};
  int rc = parse_gen(argc, argv, &o, &out, &seen);
  if (rc) return rc > 0 ? MP_EXIT_OK : MP_EXIT_USAGE;
  if (optind != argc - 1) {
    fprintf(stderr, "memplan gen: expected exactly one FAMILY\n%s", gen_help);
    return MP_EXIT_USAGE;
  }
  o.family = argv[optind];
  if (!memplan_gen_family_known(o.family)) {
    fprintf(stderr, "memplan gen: unknown family '%s'\n%s", o.family, gen_help);
    return MP_EXIT_USAGE;
  }
  if (refuse_foreign(&seen, o.family, o.model)) return MP_EXIT_USAGE;
  if (mp_arg_out_place("gen", "--out", out)) return MP_EXIT_USAGE; /* before generating */
  memplan_error err;
  memplan_instance *g;
  if (memplan_gen(&g, &o, &err)) {
    fprintf(stderr, "memplan %s\n", err.msg);
    return MP_EXIT_USAGE;
  }
  memplan_err e = memplan_instance_write(g, out, "json", &err);
  memplan_instance_destroy(g);
  if (e) {
    fprintf(stderr, "memplan gen: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  return MP_EXIT_OK;
}
