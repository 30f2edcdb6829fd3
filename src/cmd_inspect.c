/* cmd_inspect.c - `memplan verify`, `memplan info`, `memplan solvers`. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run.h"

static bool want_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
  return false;
}

/* Shared flags of verify/info: --toposort, --input-format F, --size-attr N,
 * --align A, --format F.  Positional arguments are collected in pos. */
static int parse_common(int argc, char **argv, const char *cmd, mp_load_opts *lo,
                        const char **fmt, int64_t *align, const char **pos, int *npos) {
  *npos = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_val = i + 1 < argc;
    if (!strcmp(a, "--toposort")) lo->toposort = true;
    else if (!strcmp(a, "--input-format") && has_val) lo->format = argv[++i];
    else if (!strcmp(a, "--size-attr") && has_val) lo->size_attr = argv[++i];
    else if (!strcmp(a, "--format") && has_val && fmt) {
      *fmt = argv[++i];
      if (strcmp(*fmt, "text") && strcmp(*fmt, "json")) {
        fprintf(stderr, "memplan %s: --format takes text or json\n", cmd);
        return -1;
      }
    } else if (!strcmp(a, "--align") && has_val && align) {
      char *end;
      long long v = strtoll(argv[++i], &end, 10);
      if (*end || v < 1) {
        fprintf(stderr, "memplan %s: bad --align\n", cmd);
        return -1;
      }
      *align = v;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "memplan %s: unknown or incomplete option '%s'\n", cmd, a);
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
      "Re-check PLAN against FILE: the order is a topological permutation (data and in-place\n"
      "edges), offsets are aligned, no two live buffers overlap, and the figures recompute.\n"
      "Exit 0 when valid; otherwise 1 with the first violation.\n";
  if (want_help(argc, argv)) {
    fputs(help, stdout);
    return MP_EXIT_OK;
  }
  mp_load_opts lo = {0};
  int64_t align = 0;
  const char *pos[8];
  int npos;
  if (argc > 9 || parse_common(argc, argv, "verify", &lo, NULL, &align, pos, &npos) || npos != 2) {
    fputs(help, stderr);
    return MP_EXIT_USAGE;
  }
  mp_instance in;
  mp_error err;
  if (mp_instance_load(pos[0], &lo, &in, &err)) {
    fprintf(stderr, "memplan: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  int rc = mp_plan_verify(&in, pos[1], align, &err);
  if (rc)
    fprintf(stderr, "memplan verify: %s\n", err.msg);
  else
    printf("valid: %s\n", pos[1]);
  mp_instance_free(&in);
  return rc ? MP_EXIT_INPUT : MP_EXIT_OK;
}

int mp_cmd_info(int argc, char **argv) {
  static const char help[] =
      "usage: memplan info FILE [--format text|json] [--toposort] [--input-format F]\n"
      "Nodes, buffers, data edges, in-place edges added, sum of sizes, the given order's live\n"
      "peak and the scheduling lower bound.\n";
  if (want_help(argc, argv)) {
    fputs(help, stdout);
    return MP_EXIT_OK;
  }
  mp_load_opts lo = {0};
  const char *fmt = "text", *pos[8];
  int npos;
  if (argc > 9 || parse_common(argc, argv, "info", &lo, &fmt, NULL, pos, &npos) || npos != 1) {
    fputs(help, stderr);
    return MP_EXIT_USAGE;
  }
  mp_instance in;
  mp_error err;
  if (mp_instance_load(pos[0], &lo, &in, &err)) {
    fprintf(stderr, "memplan: %s\n", err.msg);
    return MP_EXIT_INPUT;
  }
  json_t *o = json_object();
  json_object_set_new(o, "graph", json_string(mp_instance_name(&in)));
  if (in.g) {
    const mp_graph *g = in.g;
    mp_problem p;
    mp_problem_from_order(g, g->given, 1, &p);
    int n_inputs = 0, n_outputs = 0, n_views = 0, n_inplace = 0, n_ws = 0;
    for (int v = 0; v < g->n; v++) {
      n_inputs += g->nodes[v].is_input;
      n_views += g->nodes[v].has_alias;
      n_inplace += g->nodes[v].inplace;
      n_ws += g->nodes[v].workspace > 0;
    }
    for (int b = 0; b < g->n_buf; b++) n_outputs += g->bufs[b].graph_output;
    json_object_set_new(o, "nodes", json_integer(g->n));
    json_object_set_new(o, "buffers", json_integer(g->n_buf));
    json_object_set_new(o, "data_edges", json_integer(g->n_data_edges));
    json_object_set_new(o, "inplace_edges", json_integer(g->n_inplace_edges));
    json_object_set_new(o, "inputs", json_integer(n_inputs));
    json_object_set_new(o, "graph_outputs", json_integer(n_outputs));
    json_object_set_new(o, "views", json_integer(n_views));
    json_object_set_new(o, "inplace_nodes", json_integer(n_inplace));
    json_object_set_new(o, "workspaces", json_integer(n_ws));
    json_object_set_new(o, "sum_sizes", json_integer(mp_sum_sizes(&p)));
    json_object_set_new(o, "live_peak", json_integer(mp_live_peak(&p)));
    json_object_set_new(o, "lower_bound", json_integer(mp_node_lower_bound(g)));
    json_object_set_new(o, "param_bytes", json_integer(g->param_bytes));
    free(p.items);
  } else {
    const mp_problem *p = in.fixed;
    json_object_set_new(o, "nodes", json_integer(0));
    json_object_set_new(o, "buffers", json_integer(p->n));
    json_object_set_new(o, "time_begin", json_integer(p->t_begin));
    json_object_set_new(o, "time_end", json_integer(p->t_end));
    json_object_set_new(o, "sum_sizes", json_integer(mp_sum_sizes(p)));
    json_object_set_new(o, "live_peak", json_integer(mp_live_peak(p)));
    json_object_set_new(o, "lower_bound", json_integer(mp_live_peak(p)));
  }
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
  mp_instance_free(&in);
  return MP_EXIT_OK;
}

static const char *decides_name(int d) {
  return d == MP_DECIDES_ORDER     ? "order"
         : d == MP_DECIDES_OFFSETS ? "offsets"
         : d == MP_DECIDES_EVENTS  ? "events"
                                   : "both";
}

int mp_cmd_solvers(int argc, char **argv) {
  if (want_help(argc, argv)) {
    puts("usage: memplan solvers [--format text|json]\nList every registered solver, what it "
         "decides, and its options (name, default, range, help).");
    return MP_EXIT_OK;
  }
  bool json = argc >= 3 && !strcmp(argv[1], "--format") && !strcmp(argv[2], "json");
  json_t *arr = json_array();
  for (int i = 0; i < mp_registry_size; i++) {
    const mp_solver *s = mp_registry[i];
    if (json) {
      json_t *o = json_pack("{s:s, s:s, s:s}", "name", s->name, "decides", decides_name(s->decides),
                            "summary", s->summary);
      json_t *opts = json_array();
      for (int k = 0; k < s->n_options; k++)
        json_array_append_new(opts, json_pack("{s:s, s:f, s:f, s:f, s:s}", "name", s->options[k].name,
                                              "default", s->options[k].def, "min", s->options[k].lo,
                                              "max", s->options[k].hi, "help", s->options[k].help));
      json_object_set_new(o, "options", opts);
      json_array_append_new(arr, o);
      continue;
    }
    printf("%-10s %-7s %s\n", s->name, decides_name(s->decides), s->summary);
    for (int k = 0; k < s->n_options; k++)
      printf("    %-14s default %-8g range [%g, %g]  %s\n", s->options[k].name, s->options[k].def,
             s->options[k].lo, s->options[k].hi, s->options[k].help);
  }
  if (json) {
    json_dumpf(arr, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
  }
  json_decref(arr);
  return MP_EXIT_OK;
}
