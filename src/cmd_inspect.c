/* cmd_inspect.c - `memplan verify`, `memplan info`, `memplan solvers`,
 * through the public API (memplan.h). */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_args.h"
#include "memplan.h"

static bool want_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
  return false;
}

/* Shared flags of verify/info: --toposort, --input-format F, --size-attr N,
 * --cost-attr N, --align A, --format F.  Positional arguments (at most 8)
 * are collected in pos. */
static int parse_common(int argc, char **argv, const char *cmd, memplan_load_opts *lo,
                        const char **fmt, int64_t *align, const char **pos, int *npos) {
  *npos = 0;
  mp_seen seen = {.n = 0};
  for (int i = 1; i < argc; i++) {
    mp_opt o;
    mp_opt_read(argc, argv, i, &o);
    const char *a = o.name;
    bool has_val = o.value != NULL;
    bool valued = has_val && a[0] == '-' && a[1] && strcmp(a, "--toposort"); /* each one once */
    if (valued && mp_opt_once(cmd, &seen, NULL, a, o.value)) return -1;
    if (!strcmp(a, "--toposort")) {
      if (mp_opt_flag(cmd, &o)) return -1;
      lo->toposort = true;
    } else if (!strcmp(a, "--input-format") && has_val) {
      lo->format = mp_opt_take(&o, &i);
      if (mp_arg_choice(cmd, a, lo->format, MP_INPUT_FORMATS)) return -1;
    } else if (!strcmp(a, "--size-attr") && has_val) lo->size_attr = mp_opt_take(&o, &i);
    else if (!strcmp(a, "--cost-attr") && has_val) lo->cost_attr = mp_opt_take(&o, &i);
    else if (!strcmp(a, "--format") && has_val && fmt) {
      *fmt = mp_opt_take(&o, &i);
      if (mp_arg_choice(cmd, a, *fmt, "text|json")) return -1;
    } else if (!strcmp(a, "--align") && has_val && align) {
      if (mp_arg_align(cmd, a, mp_opt_take(&o, &i), align)) return -1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "memplan %s: unknown or incomplete option '%s'\n", cmd, a);
      return -1;
    } else if (*npos == 8) {
      fprintf(stderr, "memplan %s: too many arguments\n", cmd);
      return -1;
    } else {
      pos[(*npos)++] = a;
    }
  }
  return 0;
}

int mp_cmd_verify(int argc, char **argv) {
  static const char help[] =
      "usage: memplan verify FILE PLAN [--align A] [--toposort] [--input-format F]\n"
      "                      [--size-attr NAME] [--cost-attr NAME]\n"
      "Re-check PLAN against FILE: the order is a topological permutation (data and in-place\n"
      "edges), offsets are aligned, no two live buffers overlap, and the figures recompute.\n"
      "Exit 0 when valid; otherwise 1 with the first violation.\n";
  if (want_help(argc, argv)) {
    fputs(help, stdout);
    return MP_EXIT_OK;
  }
  memplan_load_opts lo;
  memplan_load_opts_init(&lo);
  int64_t align = 0;
  const char *pos[8];
  int npos;
  if (parse_common(argc, argv, "verify", &lo, NULL, &align, pos, &npos) || npos != 2) {
    fputs(help, stderr);
    return MP_EXIT_USAGE;
  }
  memplan_instance *in;
  memplan_error err;
  if (memplan_instance_load(&in, pos[0], &lo, &err)) {
    fprintf(stderr, "memplan: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  memplan_err rc = memplan_verify_file(in, pos[1], align, &err);
  if (rc)
    fprintf(stderr, "memplan verify: %s\n", err.msg);
  else
    printf("valid: %s\n", pos[1]);
  memplan_instance_destroy(in);
  return rc ? MP_EXIT_INPUT : MP_EXIT_OK;
}

/* The figures of `info`, in the order they print. */
static json_t *info_json(const memplan_instance_info *i) {
  json_t *o = json_object();
  json_object_set_new(o, "graph", json_string(i->name));
  if (i->is_graph) {
    json_object_set_new(o, "nodes", json_integer(i->nodes));
    json_object_set_new(o, "buffers", json_integer(i->buffers));
    json_object_set_new(o, "data_edges", json_integer(i->data_edges));
    json_object_set_new(o, "inplace_edges", json_integer(i->inplace_edges));
    json_object_set_new(o, "inputs", json_integer(i->inputs));
    json_object_set_new(o, "graph_outputs", json_integer(i->graph_outputs));
    json_object_set_new(o, "views", json_integer(i->views));
    json_object_set_new(o, "inplace_nodes", json_integer(i->inplace_nodes));
    json_object_set_new(o, "workspaces", json_integer(i->workspaces));
    json_object_set_new(o, "sum_sizes", json_integer(i->sum_sizes));
    json_object_set_new(o, "live_peak", json_integer(i->live_peak));
    json_object_set_new(o, "lower_bound", json_integer(i->lower_bound));
    json_object_set_new(o, "param_bytes", json_integer(i->param_bytes));
  } else {
    json_object_set_new(o, "nodes", json_integer(0));
    json_object_set_new(o, "buffers", json_integer(i->buffers));
    json_object_set_new(o, "time_begin", json_integer(i->time_begin));
    json_object_set_new(o, "time_end", json_integer(i->time_end));
    json_object_set_new(o, "sum_sizes", json_integer(i->sum_sizes));
    json_object_set_new(o, "live_peak", json_integer(i->live_peak));
    json_object_set_new(o, "lower_bound", json_integer(i->lower_bound));
  }
  return o;
}

int mp_cmd_info(int argc, char **argv) {
  static const char help[] =
      "usage: memplan info FILE [--format text|json] [--toposort] [--input-format F]\n"
      "                    [--size-attr NAME] [--cost-attr NAME]\n"
      "Nodes, buffers, data edges, in-place edges added, sum of sizes, the given order's live\n"
      "peak and the scheduling lower bound.\n";
  if (want_help(argc, argv)) {
    fputs(help, stdout);
    return MP_EXIT_OK;
  }
  memplan_load_opts lo;
  memplan_load_opts_init(&lo);
  const char *fmt = "text", *pos[8];
  int npos;
  if (parse_common(argc, argv, "info", &lo, &fmt, NULL, pos, &npos) || npos != 1) {
    fputs(help, stderr);
    return MP_EXIT_USAGE;
  }
  memplan_instance *in;
  memplan_error err;
  if (memplan_instance_load(&in, pos[0], &lo, &err)) {
    fprintf(stderr, "memplan: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  memplan_instance_info info;
  memplan_instance_info_get(in, &info);
  json_t *o = info_json(&info);
  if (!strcmp(fmt, "json")) {
    json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
  } else {
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
      if (json_is_string(v))
        printf("%-14s %s\n", key, json_string_value(v));
      else
        printf("%-14s %lld\n", key, (long long)json_integer_value(v));
    }
  }
  json_decref(o);
  memplan_instance_destroy(in);
  return MP_EXIT_OK;
}

static const char *decides_name(int d) {
  return d == MEMPLAN_DECIDES_ORDER     ? "order"
         : d == MEMPLAN_DECIDES_OFFSETS ? "offsets"
         : d == MEMPLAN_DECIDES_EVENTS  ? "events"
                                        : "both";
}

/* An option value exactly: integers as JSON integers. */
static json_t *number_json(double x) {
  if (x > -9007199254740992.0 && x < 9007199254740992.0 && x == floor(x))
    return json_integer((json_int_t)x);
  return json_real(x);
}

static json_t *solver_json(int i, const memplan_solver_info *s) {
  json_t *o = json_pack("{s:s, s:s, s:s}", "name", s->name, "decides", decides_name(s->decides),
                        "summary", s->summary);
  json_t *opts = json_array();
  for (int k = 0; k < s->n_options; k++) {
    memplan_option_info op;
    memplan_solver_option(i, k, &op);
    json_array_append_new(opts, json_pack("{s:s, s:o, s:o, s:o, s:b, s:s}", "name", op.name,
                                          "default", number_json(op.def), "min", number_json(op.lo),
                                          "max", number_json(op.hi), "integer", op.integer,
                                          "help", op.help));
  }
  json_object_set_new(o, "options", opts);
  return o;
}

static void solver_text(int i, const memplan_solver_info *s) {
  printf("%-10s %-7s %s\n", s->name, decides_name(s->decides), s->summary);
  for (int k = 0; k < s->n_options; k++) {
    memplan_option_info op;
    memplan_solver_option(i, k, &op);
    char def[32], lo[32], hi[32];
    memplan_format_number(op.def, def, sizeof def);
    memplan_format_number(op.lo, lo, sizeof lo);
    memplan_format_number(op.hi, hi, sizeof hi);
    printf("    %-14s default %-8s range [%s, %s] %s  %s\n", op.name, def, lo, hi,
           op.integer ? "integer" : "real", op.help);
  }
}

int mp_cmd_solvers(int argc, char **argv) {
  if (want_help(argc, argv)) {
    puts("usage: memplan solvers [--format text|json]\nList every registered solver, what it "
         "decides, and its options (name, default, range, kind: integer or real, help).");
    return MP_EXIT_OK;
  }
  const char *fmt = argc == 1 ? "text" : NULL; /* one --format F (or --format=F), or none */
  mp_opt o;
  int i = 1;
  if (argc > 1) mp_opt_read(argc, argv, i, &o);
  if (argc > 1 && !strcmp(o.name, "--format") && o.value) fmt = mp_opt_take(&o, &i);
  if (!fmt || i + 1 < argc || mp_arg_choice("solvers", "--format", fmt, "text|json")) {
    fputs("usage: memplan solvers [--format text|json]\n", stderr);
    return MP_EXIT_USAGE;
  }
  bool json = !strcmp(fmt, "json");
  json_t *arr = json_array();
  for (int i = 0; i < memplan_solver_count(); i++) {
    memplan_solver_info s;
    memplan_solver_get(i, &s);
    if (json)
      json_array_append_new(arr, solver_json(i, &s));
    else
      solver_text(i, &s);
  }
  if (json) {
    json_dumpf(arr, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
  }
  json_decref(arr);
  return MP_EXIT_OK;
}
