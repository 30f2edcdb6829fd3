/* test_badinput.c - one test per class of bad input (DESIGN 1.1, 1.4): each
 * is rejected by the loader with a message naming the file and the node or
 * line and what is wrong; odd but valid input is accepted; the verifier
 * rejects tampered plans naming the violation.  Exit codes and "no output
 * file" are checked end to end in tests/cli.sh. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

/* Load `text` (written to a temp file with `suffix`); it must fail, and
 * the message must name the file and contain every `want` string. */
static void reject(const char *text, const char *suffix, bool toposort, const char *w1,
                   const char *w2) {
  char *path = tl_write_temp(text, suffix);
  mp_instance in;
  mp_error err;
  mp_load_opts lo = {0};
  lo.toposort = toposort;
  err.msg[0] = 0;
  int rc = mp_instance_load(path, &lo, &in, &err);
  ck_assert_msg(rc != 0, "accepted bad input:\n%s", text);
  ck_assert_msg(in.g == NULL && in.fixed == NULL, "a failed load left an instance behind");
  ck_assert_msg(strstr(err.msg, path), "message does not name the file %s: %s", path, err.msg);
  ck_assert_msg(!w1 || strstr(err.msg, w1), "message lacks '%s': %s", w1, err.msg);
  ck_assert_msg(!w2 || strstr(err.msg, w2), "message lacks '%s': %s", w2, err.msg);
  free(path);
}

static void accept(const char *text, const char *suffix, bool toposort, mp_instance *in) {
  char *path = tl_write_temp(text, suffix);
  mp_error err;
  mp_load_opts lo = {0};
  lo.toposort = toposort;
  ck_assert_msg(mp_instance_load(path, &lo, in, &err) == 0, "rejected: %s\n%s", err.msg, text);
  free(path);
}

#define NODE0 "{\"id\":0,\"size\":100,\"inputs\":[]}"

START_TEST(not_json) {
  reject("this is not json\n", ".json", false, "not valid JSON", NULL);
  reject("[1, 2, 3]\n", ".json", false, "not a JSON object", NULL);
  reject("{\"name\": \"x\"}\n", ".json", false, "nodes", NULL);
  reject("{\"nodes\": [5]}\n", ".json", false, "nodes[0]", "not an object");
  tl_cleanup();
}
END_TEST

START_TEST(truncated) {
  /* the parser names the line and column where the text stops */
  reject("{\"nodes\":[\n" NODE0 ",\n{\"id\":1,\"size\":1", ".json", false, "not valid JSON", ":3:");
  reject("", ".json", false, "not valid JSON", NULL);
  tl_cleanup();
}
END_TEST

START_TEST(duplicate_and_missing_id) {
  reject("{\"nodes\":[" NODE0 "," NODE0 "]}", ".json", false, "node 0", "duplicate id");
  reject("{\"nodes\":[" NODE0 ",{\"size\":5,\"inputs\":[0]}]}", ".json", false, "nodes[1]",
         "missing id");
  reject("{\"nodes\":[" NODE0 ",{\"id\":\"1\",\"size\":5}]}", ".json", false, "nodes[1]",
         "not an integer");
  /* ids must be 0..n-1 */
  reject("{\"nodes\":[" NODE0 ",{\"id\":5,\"size\":5}]}", ".json", false, "nodes[1]", "id 5");
  reject("{\"nodes\":[" NODE0 ",{\"id\":-1,\"size\":5}]}", ".json", false, "nodes[1]",
         "out of range");
  tl_cleanup();
}
END_TEST

START_TEST(input_out_of_range) {
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[7]}]}", ".json", false, "node 1",
         "out of range");
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[-1]}]}", ".json", false, "node 1",
         "out of range");
  /* the node count itself, and an output index past a tuple's two */
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[2]}]}", ".json", false, "node 1",
         "input 2 is out of range (ids are 0..1)");
  reject("{\"nodes\":[{\"id\":0,\"outputs\":[4,4],\"inputs\":[]},"
         "{\"id\":1,\"size\":4,\"inputs\":[[0,2]]}]}",
         ".json", false, "node 1", "names output 2, but node 0 has 2 outputs");
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[[9,0]]}]}", ".json", false,
         "node 1", "out of range");
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[\"0\"]}]}", ".json", false,
         "node 1", NULL);
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":0}]}", ".json", false, "node 1",
         "not an array");
  tl_cleanup();
}
END_TEST

START_TEST(output_index_out_of_range) {
  reject("{\"nodes\":[{\"id\":0,\"outputs\":[10,20],\"inputs\":[]},"
         "{\"id\":1,\"size\":5,\"inputs\":[[0,2]]}]}",
         ".json", false, "node 1", "output 2");
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[[0,1]]}]}", ".json", false,
         "node 1", "output 1");
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[[0,-1]]}]}", ".json", false,
         "node 1", "output");
  tl_cleanup();
}
END_TEST

START_TEST(bad_sizes) {
  reject("{\"nodes\":[{\"id\":0,\"size\":-1,\"inputs\":[]}]}", ".json", false, "node 0", "negative");
  reject("{\"nodes\":[{\"id\":0,\"size\":1.5,\"inputs\":[]}]}", ".json", false, "node 0",
         "fractional");
  reject("{\"nodes\":[{\"id\":0,\"size\":1e30,\"inputs\":[]}]}", ".json", false, "node 0",
         "overflows");
  /* too big for the JSON library's integers: it fails before any node is
   * known, so the message names the line */
  reject("{\"nodes\":[\n{\"id\":0,\"size\":99999999999999999999999,\"inputs\":[]}]}", ".json", false,
         ":2", "overflows");
  reject("{\"nodes\":[{\"id\":0,\"size\":\"big\",\"inputs\":[]}]}", ".json", false, "node 0",
         "not a number");
  reject("{\"nodes\":[{\"id\":0,\"outputs\":[5,-5],\"inputs\":[]}]}", ".json", false, "node 0",
         "negative");
  reject("{\"nodes\":[{\"id\":0,\"size\":5,\"workspace\":-3,\"inputs\":[]}]}", ".json", false,
         "node 0", "negative");
  reject("{\"nodes\":[{\"id\":0,\"size\":5,\"workspace\":2.5,\"inputs\":[]}]}", ".json", false,
         "node 0", "fractional");
  reject("{\"nodes\":[{\"id\":0,\"size\":5,\"outputs\":[5],\"inputs\":[]}]}", ".json", false,
         "node 0", "both");
  /* the largest accepted size is 2^56: sums of thousands stay exact */
  reject("{\"nodes\":[{\"id\":0,\"size\":72057594037927937,\"inputs\":[]}]}", ".json", false,
         "node 0", "overflows");
  mp_instance in;
  accept("{\"nodes\":[{\"id\":0,\"size\":72057594037927936,\"inputs\":[]}]}", ".json", false, &in);
  mp_instance_destroy(&in);
  /* 4.0 is an integer written as a real: accepted */
  accept("{\"nodes\":[{\"id\":0,\"size\":4.0,\"inputs\":[]}]}", ".json", false, &in);
  ck_assert_int_eq(in.g->nodes[0].out_size[0], 4);
  mp_instance_destroy(&in);
  tl_cleanup();
}
END_TEST

START_TEST(cycles) {
  /* 1 reads 2, 2 reads 1: a cycle, whatever the flags */
  const char *cyc = "{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[0,2]},"
                    "{\"id\":2,\"size\":5,\"inputs\":[1]}]}";
  reject(cyc, ".json", false, "node", "cycle");
  reject(cyc, ".json", true, "node", "cycle");
  reject("{\"nodes\":[{\"id\":0,\"size\":5,\"inputs\":[0]}]}", ".json", false, "node 0", "cycle");
  /* the node named is on a cycle: not 1, which only waits on two (2-3 and
   * 4-5), but 2, found by walking back through 1's first waiting input */
  const char *two = "{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":4,\"inputs\":[2,4]},"
                    "{\"id\":2,\"size\":4,\"inputs\":[3]},{\"id\":3,\"size\":4,\"inputs\":[2]},"
                    "{\"id\":4,\"size\":4,\"inputs\":[5]},{\"id\":5,\"size\":4,\"inputs\":[4]}]}";
  reject(two, ".json", false, "node 2 is on a cycle of inputs", NULL);
  reject(two, ".json", true, "node 2 is on a cycle of inputs", NULL);
  tl_cleanup();
}
END_TEST

START_TEST(not_topological) {
  /* node 0 reads node 1, which comes later in the file */
  const char *js = "{\"nodes\":[{\"id\":0,\"size\":5,\"inputs\":[1]},"
                   "{\"id\":1,\"size\":7,\"inputs\":[]}]}";
  reject(js, ".json", false, "node 0", "not topological");
  /* --toposort accepts it and runs 1 before 0 */
  mp_instance in;
  accept(js, ".json", true, &in);
  ck_assert_int_eq(in.g->given[0], 1);
  ck_assert_int_eq(in.g->given[1], 0);
  mp_result r;
  ck_assert_int_eq(tl_run(in.g, "given", "bysize", 1, 0, NULL, &r), 0);
  /* 1 [0,1], 0 [1,1] (sink): peak 12 */
  ck_assert_int_eq(r.fig.live_peak, 12);
  mp_result_destroy(&r);
  mp_instance_destroy(&in);
  /* 0 waits on 2, 1 and 2 are ready: 1, then 2 (not 1 again), then 0 */
  accept("{\"nodes\":[{\"id\":0,\"size\":5,\"inputs\":[2]},{\"id\":1,\"size\":5,\"inputs\":[]},"
         "{\"id\":2,\"size\":5,\"inputs\":[]}]}", ".json", true, &in);
  ck_assert(in.g->given[0] == 1 && in.g->given[1] == 2 && in.g->given[2] == 0);
  mp_instance_destroy(&in);
  /* ids in any order are fine as long as the file order is topological */
  accept("{\"nodes\":[{\"id\":1,\"size\":7,\"inputs\":[]},{\"id\":0,\"size\":5,\"inputs\":[1]}]}",
         ".json", false, &in);
  ck_assert_int_eq(in.g->given[0], 1);
  mp_instance_destroy(&in);
  tl_cleanup();
}
END_TEST

START_TEST(bad_alias) {
  /* alias not among the inputs */
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[]},"
         "{\"id\":2,\"size\":5,\"inputs\":[1],\"alias\":0}]}",
         ".json", false, "node 2", "not among its inputs");
  /* [j, k] alias while the input names another output */
  reject("{\"nodes\":[{\"id\":0,\"outputs\":[4,4],\"inputs\":[]},"
         "{\"id\":1,\"size\":4,\"inputs\":[[0,0]],\"alias\":[0,1]}]}",
         ".json", false, "node 1", "not among its inputs");
  /* `j` alone on a node with several outputs (not a view) is ambiguous */
  reject("{\"nodes\":[{\"id\":0,\"outputs\":[4,4],\"inputs\":[]},"
         "{\"id\":1,\"size\":4,\"inputs\":[0],\"alias\":0}]}",
         ".json", false, "node 1", "outputs");
  /* out of range */
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[0],\"alias\":9}]}", ".json", false,
         "node 1", "out of range");
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[0],\"alias\":[0,3]}]}", ".json",
         false, "node 1", "alias");
  /* an alias cycle through node 0: 0 views 1 and 1 views 0 */
  reject("{\"nodes\":[{\"id\":0,\"size\":5,\"inputs\":[1],\"alias\":1},"
         "{\"id\":1,\"size\":5,\"inputs\":[0],\"alias\":0}]}",
         ".json", true, "node 0", "alias cycle");
  /* an alias cycle: 1 views 2 and 2 views 1 */
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[2],\"alias\":2},"
         "{\"id\":2,\"size\":5,\"inputs\":[1],\"alias\":1}]}",
         ".json", true, "node", "alias cycle");
  /* inplace without alias: which storage would it write? */
  reject("{\"nodes\":[" NODE0 ",{\"id\":1,\"size\":5,\"inputs\":[0],\"inplace\":true}]}", ".json",
         false, "node 1", "inplace");
  tl_cleanup();
}
END_TEST

START_TEST(bad_csv) {
  reject("id,lower,upper,size\na,0,3,4\nb,5,3,4\n", ".csv", false, ":3", "lower 5 > upper 3");
  reject("id,lower,size\na,0,4\n", ".csv", false, ":1", "missing column 'upper'");
  reject("id,lower,upper\na,0,4\n", ".csv", false, ":1", "missing column 'size'");
  reject("id,lower,upper,size\na,0,3,4\nb,0,x3,4\n", ".csv", false, ":3", "not an integer");
  reject("id,lower,upper,size\na,0,3,4.5\n", ".csv", false, ":2", "not an integer");
  reject("id,lower,upper,size\na,0,3\n", ".csv", false, ":2", "fields");
  reject("id,lower,upper,size\na,0,3,-4\n", ".csv", false, ":2", "negative");
  reject("id,lower,upper,size\na,-2,3,4\n", ".csv", false, ":2", "negative");
  reject("id,lower,upper,size\na,0,3,99999999999999999999999\n", ".csv", false, ":2", NULL);
  reject("id,lower,upper,size,alignment\na,0,3,4,0\n", ".csv", false, ":2", "alignment");
  reject("", ".csv", false, "empty", NULL);
  reject("\r\n\r\n", ".csv", false, "empty", NULL);
  tl_cleanup();
}
END_TEST

START_TEST(odd_but_valid) {
  mp_instance in;
  /* an empty graph */
  accept("{\"nodes\":[]}", ".json", false, &in);
  ck_assert_int_eq(in.g->n, 0);
  mp_instance_destroy(&in);
  /* unknown keys, shape, dtype, param_bytes: kept or ignored */
  accept("{\"name\":\"u\",\"param_bytes\":12,\"whatever\":[1,2],\"nodes\":[{\"id\":0,\"size\":4,"
         "\"inputs\":[],\"shape\":[1,2],\"dtype\":\"f32\",\"color\":\"red\"}]}",
         ".json", false, &in);
  ck_assert_int_eq(in.g->param_bytes, 12);
  mp_instance_destroy(&in);
  /* CRLF, blank lines, header only, extra unknown column */
  accept("id,lower,upper,size\r\n\r\na,0,3,4\r\n\r\n", ".csv", false, &in);
  ck_assert_int_eq(in.fixed->n, 1);
  ck_assert_str_eq(in.fixed->ids[0], "a");
  ck_assert_int_eq(in.fixed->items[0].size, 4);
  mp_instance_destroy(&in);
  accept("id,lower,upper,size\r\n", ".csv", false, &in);
  ck_assert_int_eq(in.fixed->n, 0);
  mp_instance_destroy(&in);
  accept("id,lower,upper,size,note\na,0,3,4,hello\n", ".csv", false, &in);
  ck_assert_int_eq(in.fixed->n, 1);
  mp_instance_destroy(&in);
  tl_cleanup();
}
END_TEST

/* ---- the verifier rejects tampered plans ---- */

/* Solve g (given order, bysize, align 64), write the plan, let `edit`
 * change the JSON, and expect mp_plan_verify to fail with `want` (NULL:
 * to accept the edited plan). */
typedef void (*plan_edit)(json_t *plan);

static void tamper(const char *graph_json, plan_edit edit, const char *want) {
  char *gpath = tl_write_temp(graph_json, ".json");
  mp_instance in;
  mp_error err;
  mp_load_opts lo = {0};
  ck_assert_msg(mp_instance_load(gpath, &lo, &in, &err) == 0, "%s", err.msg);
  mp_result r;
  ck_assert_int_eq(tl_run(in.g, "given", "bysize", 1, 0, NULL, &r), 0);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(mp_plan_write(f, &in, &r), 0);
  fclose(f);
  char *ppath = tl_write_temp(buf, ".plan.json");
  ck_assert_msg(mp_plan_verify(&in, ppath, 0, &err) == 0, "untampered plan rejected: %s", err.msg);
  json_error_t je;
  json_t *plan = json_loads(buf, 0, &je);
  ck_assert(plan != NULL);
  edit(plan);
  char *txt = json_dumps(plan, JSON_INDENT(1));
  char *tpath = tl_write_temp(txt, ".plan.json");
  if (!want) { /* an edit that keeps the plan valid */
    ck_assert_msg(mp_plan_verify(&in, tpath, 0, &err) == 0, "edited plan rejected: %s\n%s", err.msg, txt);
  } else {
    ck_assert_msg(mp_plan_verify(&in, tpath, 0, &err) != 0, "tampered plan accepted:\n%s", txt);
    ck_assert_msg(strstr(err.msg, want), "message lacks '%s': %s", want, err.msg);
    ck_assert_msg(strstr(err.msg, tpath), "message does not name the plan: %s", err.msg);
    /* the plan is this graph's (its own name): a violation, not another graph */
    ck_assert_msg(!strstr(err.msg, "does not match"), "%s", err.msg);
  }
  free(txt);
  json_decref(plan);
  free(buf);
  free(gpath);
  free(ppath);
  free(tpath);
  mp_result_destroy(&r);
  mp_instance_destroy(&in);
}

/* a (1000) -> b (500) -> c (10): a and b live together at step 1 */
static const char *CHAIN = "{\"nodes\":[{\"id\":0,\"size\":1000,\"inputs\":[]},"
                           "{\"id\":1,\"size\":500,\"inputs\":[0]},"
                           "{\"id\":2,\"size\":10,\"inputs\":[1]}]}";

static void e_overlap(json_t *p) {
  json_t *o = json_object_get(p, "offsets");
  json_object_set_new(o, "1", json_integer(json_integer_value(json_object_get(o, "0")) + 64));
}
static void e_unaligned(json_t *p) {
  json_t *o = json_object_get(p, "offsets");
  json_object_set_new(o, "2", json_integer(json_integer_value(json_object_get(o, "2")) + 1));
}
static void e_arena(json_t *p) {
  json_object_set_new(p, "arena", json_integer(json_integer_value(json_object_get(p, "arena")) + 1));
}
static void e_peak(json_t *p) {
  json_object_set_new(p, "live_peak", json_integer(1));
}
static void e_ratio(json_t *p) {
  json_object_set_new(p, "reuse_ratio", json_real(json_number_value(json_object_get(p, "reuse_ratio")) + 0.01));
}
static void e_missing_offset(json_t *p) { json_object_del(json_object_get(p, "offsets"), "1"); }
static void e_negative(json_t *p) { json_object_set_new(json_object_get(p, "offsets"), "0", json_integer(-64)); }
static void e_short_order(json_t *p) { json_array_remove(json_object_get(p, "order"), 0); }
static void e_dup_order(json_t *p) {
  json_t *o = json_object_get(p, "order");
  json_array_set_new(o, 1, json_integer(json_integer_value(json_array_get(o, 0))));
}
static void e_data_order(json_t *p) {
  json_t *o = json_object_get(p, "order");
  json_t *a = json_incref(json_array_get(o, 0)), *b = json_incref(json_array_get(o, 1));
  json_array_set_new(o, 0, b);
  json_array_set_new(o, 1, a);
}
/* the in-place chain of test_model: r1 (1) must run before w (2) */
static const char *INPLACE =
    "{\"nodes\":[{\"id\":0,\"size\":100,\"inputs\":[]},{\"id\":1,\"size\":10,\"inputs\":[0]},"
    "{\"id\":2,\"size\":100,\"inputs\":[0],\"alias\":0,\"inplace\":true},"
    "{\"id\":3,\"size\":100,\"inputs\":[2],\"alias\":2,\"inplace\":true},"
    "{\"id\":4,\"size\":10,\"inputs\":[3]},{\"id\":5,\"size\":5,\"inputs\":[1,4]}]}";
static void e_inplace_order(json_t *p) {
  json_t *o = json_object_get(p, "order");
  json_array_clear(o);
  int ord[] = {0, 2, 1, 3, 4, 5};
  for (int i = 0; i < 6; i++) json_array_append_new(o, json_integer(ord[i]));
}
static void e_huge(json_t *p) {
  json_object_set_new(json_object_get(p, "offsets"), "1", json_integer(INT64_MAX - 63));
}
static void e_wrapped_id(json_t *p) {
  /* 2^32 + 0: must not pass as node 0 */
  json_t *o = json_object_get(p, "order");
  json_int_t v = json_integer_value(json_array_get(o, 0));
  json_array_set_new(o, 0, json_integer(v + 4294967296LL));
}
static void e_lb_high(json_t *p) { json_object_set_new(p, "lower_bound", json_integer(1 << 30)); }
/* CHAIN at align 64 by bysize: a [0, 1] at 0, b [1, 2] at 1024, c [2, 2]
 * at 0: arena 1524 > live peak 1500 (M = 1000, 1500, 510) = the node
 * bound (b reads a and makes b); a bound of 1501 is below the arena, yet
 * above the live peak: no plan of this order has one */
static void e_lb_above_peak(json_t *p) { json_object_set_new(p, "lower_bound", json_integer(1501)); }
static void e_lb_below_node(json_t *p) { json_object_set_new(p, "lower_bound", json_integer(1)); }
/* off by one part in 10^6: above the 1e-9 tolerance of a figure */
static void e_std(json_t *p) {
  json_object_set_new(p, "profile_std", json_real(json_number_value(json_object_get(p, "profile_std")) * (1 + 1e-6)));
}
static void e_align0(json_t *p) { json_object_set_new(p, "align", json_integer(0)); }
/* a count as a real: the graph check at the top reads integers only */
static void e_nodes_real(json_t *p) { json_object_set_new(p, "nodes", json_real(4.0)); }
/* CHAIN64 (a 1024 -> b 512 -> c 64) at align 64: bysize puts a at 0, b at
 * 1024, c at 0: arena 1536 = the live peak (a and b at step 1).  "optimal"
 * with no lower_bound and an order not searched: the live peak proves it
 * (DESIGN 1.3: for a fixed order, its live peak is a lower bound) */
static const char *CHAIN64 = "{\"nodes\":[{\"id\":0,\"size\":1024,\"inputs\":[]},"
                             "{\"id\":1,\"size\":512,\"inputs\":[0]},"
                             "{\"id\":2,\"size\":64,\"inputs\":[1]}]}";
static void e_no_lb(json_t *p) { json_object_set_new(p, "lower_bound", json_null()); }
/* buffer names other than the keys: "J:0" for a single-output node's
 * tensor is its other name; "J" for one of several outputs and a padded
 * "0J" name nothing */
static void rename_offset(json_t *p, const char *from, const char *to) {
  json_t *o = json_object_get(p, "offsets");
  json_object_set(o, to, json_object_get(o, from));
  json_object_del(o, from);
}
static void e_alt_name(json_t *p) { rename_offset(p, "1", "1:0"); }
static void e_padded_name(json_t *p) { rename_offset(p, "1", "01"); }
/* a (outputs 128 and 64) -> b */
static const char *TUPLE = "{\"nodes\":[{\"id\":0,\"outputs\":[128,64],\"inputs\":[]},"
                           "{\"id\":1,\"size\":64,\"inputs\":[0]}]}";
static void e_bare_tuple(json_t *p) { rename_offset(p, "0:0", "0"); }
/* figures are optional: a plan of order and offsets alone verifies */
static void e_no_figures(json_t *p) {
  const char *keys[] = {"live_peak", "arena", "sum_sizes", "buffers", "nodes", "fragmentation",
                        "reuse_ratio", "lower_bound", "profile_std"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) json_object_del(p, keys[k]);
}

START_TEST(verify_rejects_tampered_plans) {
  tamper(CHAIN, e_overlap, "overlap");
  tamper(CHAIN, e_unaligned, "not a multiple of its alignment 64");
  tamper(CHAIN, e_arena, "figure arena");
  tamper(CHAIN, e_peak, "live_peak");
  tamper(CHAIN, e_ratio, "reuse_ratio");
  tamper(CHAIN, e_missing_offset, "buffer 1");
  tamper(CHAIN, e_negative, "negative");
  tamper(CHAIN, e_short_order, "order");
  tamper(CHAIN, e_dup_order, "twice");
  tamper(CHAIN, e_data_order, "data edge");
  tamper(INPLACE, e_inplace_order, "in-place edge");
  tamper(CHAIN, e_lb_high, "lower_bound");
  tamper(CHAIN, e_lb_above_peak, "lower_bound 1501 exceeds the live peak 1500");
  tamper(CHAIN, e_lb_below_node, "below the bound 1500");
  tamper(CHAIN, e_std, "figure profile_std");
  tamper(CHAIN, e_align0, "\"align\" is not an alignment");
  tamper(CHAIN, e_nodes_real, "figure nodes");
  tamper(CHAIN64, e_no_lb, NULL);
  tamper(CHAIN, e_huge, "buffer 1");
  tamper(CHAIN, e_wrapped_id, "not a node id");
  tamper(CHAIN, e_alt_name, NULL);
  tamper(CHAIN, e_padded_name, "key \"01\" names no buffer");
  tamper(TUPLE, e_bare_tuple, "key \"0\" names no buffer");
  tamper(CHAIN, e_no_figures, NULL);
  tl_cleanup();
}
END_TEST

/* A plan that is not JSON: its line and what is wrong. */
START_TEST(verify_plan_not_json) {
  char *gpath = tl_write_temp(CHAIN, ".json");
  mp_instance in;
  mp_error err;
  mp_load_opts lo = {0};
  ck_assert_msg(mp_instance_load(gpath, &lo, &in, &err) == 0, "%s", err.msg);
  char *bad = tl_write_temp("{\"graph\":\"x\",\"order\":[0,1,\n", ".plan.json");
  ck_assert(mp_plan_verify(&in, bad, 0, &err) != 0);
  ck_assert_msg(strstr(err.msg, ":2: not valid JSON: ']' expected"), "%s", err.msg);
  mp_instance_destroy(&in);
  free(bad);
  free(gpath);
  tl_cleanup();
}
END_TEST

START_TEST(verify_csv_plans) {
  /* a CSV plan with an overlap, and one with a changed lifetime */
  char *prob = tl_write_temp("id,lower,upper,size\na,0,3,4\nb,1,4,4\n", ".csv");
  mp_instance in;
  mp_error err;
  mp_load_opts lo = {0};
  ck_assert(mp_instance_load(prob, &lo, &in, &err) == 0);
  char *good = tl_write_temp("id,lower,upper,size,offset\na,0,3,4,0\nb,1,4,4,4\n", ".csv");
  ck_assert_msg(mp_plan_verify(&in, good, 0, &err) == 0, "%s", err.msg);
  char *over = tl_write_temp("id,lower,upper,size,offset\na,0,3,4,0\nb,1,4,4,2\n", ".csv");
  ck_assert(mp_plan_verify(&in, over, 0, &err) != 0);
  ck_assert_msg(strstr(err.msg, "overlap"), "%s", err.msg);
  char *life = tl_write_temp("id,lower,upper,size,offset\na,0,3,4,0\nb,3,4,4,0\n", ".csv");
  ck_assert(mp_plan_verify(&in, life, 0, &err) != 0);
  ck_assert_msg(strstr(err.msg, "b"), "%s", err.msg);
  /* --align 8 makes offset 4 unaligned */
  ck_assert(mp_plan_verify(&in, good, 8, &err) != 0);
  ck_assert_msg(strstr(err.msg, "alignment"), "%s", err.msg);
  /* a plan of another problem: one row more (c, placed clear of a and b),
   * or b's size changed (8 at offset 4: still no overlap) */
  char *extra = tl_write_temp("id,lower,upper,size,offset\na,0,3,4,0\nb,1,4,4,4\nc,5,6,4,0\n", ".csv");
  ck_assert(mp_plan_verify(&in, extra, 0, &err) != 0);
  ck_assert_msg(strstr(err.msg, "3 buffers, the problem has 2"), "%s", err.msg);
  /* rows match by id, in any order */
  char *swapped = tl_write_temp("id,lower,upper,size,offset\nb,1,4,4,4\na,0,3,4,0\n", ".csv");
  ck_assert_msg(mp_plan_verify(&in, swapped, 0, &err) == 0, "%s", err.msg);
  char *size = tl_write_temp("id,lower,upper,size,offset\na,0,3,4,0\nb,1,4,8,4\n", ".csv");
  ck_assert(mp_plan_verify(&in, size, 0, &err) != 0);
  ck_assert_msg(strstr(err.msg, "lifetime or size differ"), "%s", err.msg);
  mp_instance_destroy(&in);
  free(prob);
  free(good);
  free(over);
  free(swapped);
  free(life);
  free(extra);
  free(size);
  tl_cleanup();
}
END_TEST

/* ---- exact numbers (util.h) ---- */

START_TEST(exact_numbers) {
  int64_t i;
  uint64_t u;
  double d;
  const char *why;
  ck_assert(mp_parse_int64("9223372036854775807", &i, &why) == 0 && i == INT64_MAX);
  ck_assert(mp_parse_int64("-9223372036854775808", &i, &why) == 0 && i == INT64_MIN);
  ck_assert(mp_parse_int64("9223372036854775808", &i, &why) == MP_PARSE_RANGE);
  ck_assert(mp_parse_int64("-99999999999999999999", &i, &why) == MP_PARSE_RANGE);
  ck_assert_msg(strstr(why, "out of range"), "%s", why);
  ck_assert(mp_parse_int64("four", &i, &why) == MP_PARSE_BAD);
  const char *bad_ints[] = {"", " 1", "1 ", "1.0", "0x10", "1e3", "nan", "--1", NULL};
  for (int k = 0; bad_ints[k]; k++)
    ck_assert_msg(mp_parse_int64(bad_ints[k], &i, &why) != 0, "'%s' accepted", bad_ints[k]);
  ck_assert(mp_parse_uint64("18446744073709551615", &u, &why) == 0 && u == UINT64_MAX);
  ck_assert(mp_parse_uint64("18446744073709551616", &u, &why) == MP_PARSE_RANGE);
  ck_assert(mp_parse_uint64("-1", &u, &why) != 0);
  ck_assert(mp_parse_real("0.5", &d, &why) == 0 && d == 0.5);
  ck_assert(mp_parse_real("1e-320", &d, &why) == 0 && d > 0); /* subnormal: still finite */
  const char *bad_reals[] = {"nan", "NAN", "inf", "-inf", "infinity", "1e999", "", " 1", "1x", NULL};
  for (int k = 0; bad_reals[k]; k++)
    ck_assert_msg(mp_parse_real(bad_reals[k], &d, &why) != 0, "'%s' accepted", bad_reals[k]);
  char b[40];
  mp_format_number(1048576, b, sizeof b);
  ck_assert_str_eq(b, "1048576");
  mp_format_number(1e15, b, sizeof b);
  ck_assert_str_eq(b, "1000000000000000");
  mp_format_number(0.1, b, sizeof b);
  ck_assert_str_eq(b, "0.1");
  mp_format_number(1e-9, b, sizeof b);
  ck_assert_str_eq(b, "1e-09");
  mp_format_number(0.995, b, sizeof b);
  ck_assert_str_eq(b, "0.995");
}
END_TEST

/* ---- limits: figures that could not be represented are refused ---- */

START_TEST(limits) {
  /* 17 buffers of 2^56 sum beyond 2^60: the 17th is named */
  char *js = malloc(4096);
  int len = snprintf(js, 4096, "{\"nodes\":[");
  for (int i = 0; i < 17; i++)
    len += snprintf(js + len, 4096 - (size_t)len, "%s{\"id\":%d,\"size\":72057594037927936}",
                    i ? "," : "", i);
  snprintf(js + len, 4096 - (size_t)len, "]}");
  reject(js, ".json", false, "node 16", "2^60");
  /* 16 of them is 2^60 exactly: accepted; one workspace byte more is not */
  len = snprintf(js, 4096, "{\"nodes\":[");
  for (int i = 0; i < 16; i++)
    len += snprintf(js + len, 4096 - (size_t)len, "%s{\"id\":%d,\"size\":72057594037927936}",
                    i ? "," : "", i);
  snprintf(js + len, 4096 - (size_t)len, "]}");
  mp_instance in;
  accept(js, ".json", false, &in);
  mp_instance_destroy(&in);
  snprintf(js + len - 1, 4096 - (size_t)len, ",\"workspace\":1}]}");
  reject(js, ".json", false, "node 15", "workspace 1");
  free(js);
  reject("id,lower,upper,size\na,0,1099511627777,4\n", ".csv", false, ":2", "upper");
  reject("id,lower,end,size\na,0,1099511627776,4\n", ".csv", false, ":2", "end");
  reject("id,lower,upper,size,alignment\na,0,3,4,2147483648\n", ".csv", false, ":2", "alignment");
  reject("id,lower,upper,size,offset\na,0,3,4,2305843009213693952\n", ".csv", false, ":2", "offset");
  /* a real beyond 2^53 may already have rounded: refused, not guessed */
  reject("{\"nodes\":[{\"id\":0,\"size\":9007199254740993.0}]}", ".json", false, "node 0", "exact");
  tl_cleanup();
}
END_TEST

/* ---- node-link (networkx) ---- */

START_TEST(nodelink_exact) {
  mp_instance in;
  /* integers beyond 2^53 stay exact; string ids; found without --input-format */
  accept("{\"directed\":true,\"graph\":{},\"nodes\":[{\"id\":\"a\",\"size\":9007199254740993},"
         "{\"id\":\"b\",\"size\":3,\"workspace\":9007199254740995}],"
         "\"links\":[{\"source\":\"a\",\"target\":\"b\"}]}",
         ".json", false, &in);
  ck_assert(in.g->nodes[0].out_size[0] == 9007199254740993LL);
  ck_assert(in.g->nodes[1].workspace == 9007199254740995LL);
  mp_instance_destroy(&in);
  const char *bad[][3] = {
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1},{\"id\":0,\"size\":2}],\"links\":[]}",
       "nodes[1]", "duplicate id 0"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1}],\"links\":[{\"source\":0,\"target\":7}]}",
       "links[0]", "target 7 names no node"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1}],\"links\":[{\"source\":9,\"target\":0}]}",
       "links[0]", "source 9 names no node"},
      {"{\"directed\":true,\"graph\":{\"host_bandwidth\":-1},\"nodes\":[{\"id\":0,\"size\":1}],"
       "\"links\":[]}", "graph.host_bandwidth", "non-negative number"},
      {"{\"directed\":true,\"graph\":{\"host_bandwidth\":\"fast\"},\"nodes\":[{\"id\":0,\"size\":1}],"
       "\"links\":[]}", "graph.host_bandwidth", "non-negative number"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1},{\"id\":1,\"size\":1}],"
       "\"links\":[{\"source\":0,\"target\":1,\"output\":0.5}]}", "links[0]", "output index 0.5 is not"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1},{\"id\":1,\"size\":1}],"
       "\"links\":[{\"source\":0,\"target\":1,\"output\":2147483647}]}", "node 1", "names output 2147483647, but"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1},{\"id\":1,\"size\":1,\"alias\":0,"
       "\"alias_output\":4294967296}],\"links\":[{\"source\":0,\"target\":1}]}", "node 1", "output index"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1.5}],\"links\":[]}", "node 0", "fractional"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":-1}],\"links\":[]}", "node 0", "negative"},
      {"{\"directed\":true,\"nodes\":[{\"id\":\"a\",\"size\":-1}],\"links\":[]}", "node 0 (id \"a\")",
       "negative"},
      {"{\"directed\":true,\"nodes\":[{\"id\":5,\"size\":-1}],\"links\":[]}", "node 0 (id 5)", "negative"},
      /* plain nodes but for a missing id or size */
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1},{\"size\":2},{\"id\":2,\"size\":3}],"
       "\"links\":[]}", "nodes[1]", "missing id"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1},{\"id\":1},{\"id\":2,\"size\":3}],"
       "\"links\":[]}", "node 1", "no 'size'"},
      /* alias -1 (a parameter) read before the node whose key is -1: the first such alias named,
       * not an earlier node without one */
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1},{\"id\":1,\"size\":1,\"inplace\":false},"
       "{\"id\":2,\"size\":0,\"alias\":-1},{\"id\":3,\"size\":0,\"alias\":-1},{\"id\":-1,\"size\":1}],"
       "\"links\":[]}", "node 2: alias -1 is ambiguous", "node 4 has the key -1"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":0,\"alias\":-1},{\"id\":1,\"size\":0,\"alias\":-1},"
       "{\"id\":-1,\"size\":1}],\"links\":[]}", "node 0: alias -1 is ambiguous", "node 2 has the key -1"},
      {"{\"directed\":true,\"nodes\":[{\"id\":[1],\"size\":1}],\"links\":[]}", "nodes[0]", "integer or a string"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1,\"inplace\":\"yes\"}],\"links\":[]}", "node 0", "boolean"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0}],\"links\":[]}", "no node has a size", NULL},
      {"{\"directed\":false,\"nodes\":[{\"id\":0,\"size\":1}],\"links\":[]}", "undirected", NULL},
      {"{\"directed\":true,\"graph\":{\"order\":[0,0]},\"nodes\":[{\"id\":0,\"size\":1},{\"id\":1,"
       "\"size\":1}],\"links\":[]}", "graph.order[1]", "twice"},
      {"{\"directed\":true,\"graph\":{\"order\":[0]},\"nodes\":[{\"id\":0,\"size\":1},{\"id\":1,"
       "\"size\":1}],\"links\":[]}", "graph.order", "all 2 nodes"},
      {"{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1,\"cost\":-2}],\"links\":[]}", "node 0", "cost"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) reject(bad[k][0], ".json", false, bad[k][1], bad[k][2]);
  tl_cleanup();
}
END_TEST

/* Node-link files the reader must take as they are meant. */
START_TEST(nodelink_accepts) {
  mp_instance in;
  /* an alias naming a later node (in the file; graph.order runs it first) */
  accept("{\"directed\":true,\"graph\":{\"order\":[0,2,1]},\"nodes\":[{\"id\":0,\"size\":1},"
         "{\"id\":1,\"size\":0,\"alias\":2,\"inplace\":true},{\"id\":2,\"size\":8}],"
         "\"links\":[{\"source\":0,\"target\":2},{\"source\":2,\"target\":1}]}", ".json", false, &in);
  ck_assert(in.g->nodes[1].has_alias && in.g->nodes[1].alias.node == 2 && in.g->nodes[1].inplace);
  ck_assert_int_eq(in.g->given[1], 2);
  mp_instance_destroy(&in);
  { /* --size-attr on a graph with no nodes: nothing lacks it */
    char *path = tl_write_temp("{\"directed\":true,\"nodes\":[],\"links\":[]}", ".json");
    mp_load_opts lo = {0};
    lo.size_attr = "bytes";
    mp_error err;
    ck_assert_msg(mp_instance_load(path, &lo, &in, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(in.g->n, 0);
    mp_instance_destroy(&in);
    free(path);
  }
  /* several outputs (memplan's writer), and a link to one of them */
  accept("{\"directed\":true,\"nodes\":[{\"id\":0,\"outputs\":[5,6,7],\"name\":\"a\"},"
         "{\"id\":1,\"size\":2,\"name\":\"bb\"}],\"links\":[{\"source\":0,\"target\":1,\"output\":2}]}",
         ".json", false, &in);
  ck_assert_int_eq(in.g->nodes[0].n_out, 3);
  ck_assert(in.g->nodes[0].out_size[0] == 5 && in.g->nodes[0].out_size[1] == 6 && in.g->nodes[0].out_size[2] == 7);
  ck_assert(in.g->nodes[1].in[0].node == 0 && in.g->nodes[1].in[0].out == 2);
  ck_assert_str_eq(in.g->nodes[1].name, "bb");
  mp_instance_destroy(&in);
  /* a link with "source" beside a "0" key: source and target name its ends */
  accept("{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1},{\"id\":1,\"size\":1},{\"id\":5,"
         "\"size\":1}],\"links\":[{\"source\":0,\"target\":1,\"0\":5,\"1\":0}]}", ".json", false, &in);
  ck_assert(in.g->nodes[1].n_in == 1 && in.g->nodes[1].in[0].node == 0 && in.g->nodes[2].n_in == 0);
  mp_instance_destroy(&in);
  { /* node-link asked for, without a "nodes" array */
    char *path = tl_write_temp("{\"directed\":true,\"links\":[]}", ".json");
    mp_load_opts lo = {0};
    lo.format = "nodelink";
    mp_error err;
    ck_assert(mp_instance_load(path, &lo, &in, &err) != 0);
    ck_assert_msg(strstr(err.msg, "needs \"nodes\" and \"links\""), "%s", err.msg);
    free(path);
  }
  /* a host link of 0 bytes per cost unit is a graph without one */
  accept("{\"directed\":true,\"graph\":{\"host_bandwidth\":0},\"nodes\":[{\"id\":0,\"size\":1}],"
         "\"links\":[]}", ".json", false, &in);
  ck_assert(in.g->host_bandwidth == 0);
  mp_instance_destroy(&in);
  accept("{\"directed\":true,\"graph\":{\"host_bandwidth\":2.5},\"nodes\":[{\"id\":0,\"size\":1}],"
         "\"links\":[]}", ".json", false, &in);
  ck_assert(in.g->host_bandwidth == 2.5);
  mp_instance_destroy(&in);
  tl_cleanup();
}
END_TEST

/* Moccasin's random-layered shape (a hand-made file, not theirs): node key
 * "name", links {"0": source, "1": target}, the given order in graph.order,
 * bytes and time named by the graph's tags. */
START_TEST(nodelink_moccasin_and_checkmate) {
  mp_instance in;
  accept("{\"directed\": true, \"multigraph\": false, \"graph\": {\"name\": \"rl\", "
         "\"node_output_cost_tag\": \"out_cost\", \"node_duration_tag\": \"duration\", "
         "\"order\": [0, 3, 2, 1]}, \"nodes\": ["
         "{\"out_cost\": 10, \"param_cost\": 0, \"duration\": 0, \"name\": 0},"
         "{\"out_cost\": 4, \"param_cost\": 0, \"duration\": 3, \"name\": 1},"
         "{\"out_cost\": 7, \"param_cost\": 0, \"duration\": 2.5, \"name\": 2},"
         "{\"out_cost\": 5, \"param_cost\": 0, \"duration\": 1, \"name\": 3}],"
         "\"links\": [{\"0\": 0, \"1\": 2}, {\"0\": 0, \"1\": 3}, {\"0\": 2, \"1\": 1}, {\"0\": 3, \"1\": 1}]}",
         ".json", false, &in);
  const mp_graph *g = in.g;
  ck_assert_str_eq(g->name, "rl");
  int want_order[] = {0, 3, 2, 1};
  for (int i = 0; i < 4; i++) ck_assert_int_eq(g->given[i], want_order[i]);
  ck_assert_int_eq(g->nodes[2].out_size[0], 7);
  ck_assert(g->nodes[2].has_cost && g->nodes[2].cost == 2.5);
  ck_assert_int_eq(g->n_data_edges, 4);
  /* 0 (10) at 0; 3 (5) at 1; 2 (7) at 2, 0 dies; 1 (4) at 3: peak 10+5+7 = 22 */
  ck_assert_int_eq(mp_order_peak(g, g->given), 22);
  mp_instance_destroy(&in);
  /* Checkmate's shape: cost_ram bytes, cost_cpu time, found by name */
  accept("{\"directed\": true, \"multigraph\": false, \"graph\": {\"name\": \"cm\"}, \"nodes\": ["
         "{\"name\": \"conv\", \"backward\": false, \"cost_cpu\": 90, \"cost_ram\": 3000, \"id\": 0},"
         "{\"name\": \"loss\", \"backward\": false, \"cost_cpu\": 5, \"cost_ram\": 4, \"id\": 1},"
         "{\"name\": \"grad\", \"backward\": true, \"cost_cpu\": 180, \"cost_ram\": 3000, \"id\": 2}],"
         "\"links\": [{\"source\": 0, \"target\": 1}, {\"source\": 0, \"target\": 2},"
         "{\"source\": 1, \"target\": 2}]}",
         ".json", false, &in);
  ck_assert_int_eq(in.g->nodes[0].out_size[0], 3000);
  ck_assert(in.g->nodes[2].has_cost && in.g->nodes[2].cost == 180);
  ck_assert_str_eq(in.g->nodes[1].name, "loss");
  ck_assert_int_eq(in.g->nodes[0].phase, MP_PHASE_FWD); /* from Checkmate's `backward` */
  ck_assert_int_eq(in.g->nodes[2].phase, MP_PHASE_BWD);
  mp_instance_destroy(&in);
  /* --size-attr / --cost-attr choose other attributes, and must exist */
  char *path = tl_write_temp("{\"directed\":true,\"nodes\":[{\"id\":0,\"size\":1,\"mem\":64,\"t\":2}],"
                             "\"links\":[]}", ".json");
  mp_load_opts lo = {.size_attr = "mem", .cost_attr = "t"};
  mp_error err;
  ck_assert_msg(mp_instance_load(path, &lo, &in, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(in.g->nodes[0].out_size[0], 64);
  ck_assert(in.g->nodes[0].cost == 2);
  mp_instance_destroy(&in);
  lo.size_attr = "nosuch";
  ck_assert(mp_instance_load(path, &lo, &in, &err) != 0);
  ck_assert_msg(strstr(err.msg, "nosuch") && strstr(err.msg, "--size-attr"), "%s", err.msg);
  free(path);
  tl_cleanup();
}
END_TEST

/* Moccasin's own files (read from ../shared/anchors, never copied): P(pi)
 * and base_time of DESIGN 6.4.  Tests run in tests/, so the folder is
 * ../../shared/anchors/checkmate; without it the test says so and checks
 * nothing else (the hand-made file above covers the reader). */
START_TEST(moccasin_anchors) {
  const char *dir = "../../shared/anchors/checkmate";
  if (access(dir, R_OK) != 0) {
    printf("badinput: %s is absent: skipped the Moccasin P(pi)/base_time check\n", dir + 3);
    return;
  }
  const char *file[] = {"random_layered_n100.json", "random_layered_n250.json"};
  const int64_t peak[] = {46319, 146840};
  const double base[] = {47769, 125569};
  for (int i = 0; i < 2; i++) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, file[i]);
    mp_error err;
    mp_graph *g = mp_graph_read_json(path, false, &err);
    ck_assert_msg(g != NULL, "%s", g ? "" : err.msg);
    ck_assert_int_eq(mp_order_peak(g, g->given), peak[i]);
    double sum = 0;
    for (int v = 0; v < g->n; v++) {
      ck_assert(g->nodes[v].has_cost);
      sum += g->nodes[v].cost;
    }
    ck_assert_msg(sum == base[i], "%s: base_time %g, DESIGN 6.4 says %g", file[i], sum, base[i]);
    mp_graph_destroy(g);
  }
}
END_TEST

/* ---- GraphML: what igraph's reader would silently change ---- */

#define GML_HEAD                                                                               \
  "<?xml version=\"1.0\"?><graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">"           \
  "<key id=\"s\" for=\"node\" attr.name=\"size\" attr.type=\"double\"/>"                       \
  "<key id=\"o\" for=\"edge\" attr.name=\"output\" attr.type=\"double\"/>"                     \
  "<key id=\"a\" for=\"node\" attr.name=\"alias\" attr.type=\"string\"/>"

START_TEST(graphml_exact) {
  reject(GML_HEAD "<graph edgedefault=\"undirected\"><node id=\"a\"><data key=\"s\">1</data></node>"
         "</graph></graphml>", ".graphml", false, "undirected", NULL);
  reject(GML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"s\">1</data></node>"
         "<edge source=\"a\" target=\"zz\"/></graph></graphml>", ".graphml", false, "\"zz\"", "not a declared node");
  reject(GML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"s\">NaN</data></node>"
         "</graph></graphml>", ".graphml", false, "node 0", "NaN");
  reject(GML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"s\">2.5</data></node>"
         "</graph></graphml>", ".graphml", false, "node 0", "fractional");
  reject(GML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"s\">1</data></node>"
         "<node id=\"b\"><data key=\"s\">1</data></node><edge source=\"a\" target=\"b\">"
         "<data key=\"o\">0.7</data></edge></graph></graphml>", ".graphml", false, "0.7", "output index");
  reject(GML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"s\">1</data></node>"
         "<node id=\"a\"><data key=\"s\">2</data></node></graph></graphml>", ".graphml", false,
         "\"a\"", "declared twice");
  reject(GML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"zz\">1</data></node>"
         "</graph></graphml>", ".graphml", false, "zz", "no declared");
  reject(GML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"s\">1</data>"
         "<data key=\"s\">2</data></node></graph></graphml>", ".graphml", false, "size", "twice");
  reject(GML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"s\">1</data>"
         "</node></graph><graph/></graphml>", ".graphml", false, "second graph", NULL);
  /* inplace without alias: the JSON and node-link readers refuse it
   * themselves, a GraphML graph is refused by the graph's own check */
  reject(GML_HEAD "<key id=\"i\" for=\"node\" attr.name=\"inplace\" attr.type=\"boolean\"/>"
         "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"s\">1</data></node>"
         "<node id=\"b\"><data key=\"s\">1</data><data key=\"i\">true</data></node>"
         "<edge source=\"a\" target=\"b\"/></graph></graphml>", ".graphml", false, "node 1",
         "inplace without alias");
  reject("<graphml><graph><node id=\"a\">", ".graphml", false, "not a readable GraphML", NULL);
  reject("<html/>", ".graphml", false, "not GraphML", NULL);
  /* an alias by node id, a <default>, sizes written as reals */
  mp_instance in;
  accept(GML_HEAD "<key id=\"w\" for=\"node\" attr.name=\"workspace\"><default>16</default></key>"
         "<graph edgedefault=\"directed\"><node id=\"x\"><data key=\"s\">4096.0</data></node>"
         "<node id=\"v\"><data key=\"s\">0</data><data key=\"a\">x</data></node>"
         "<edge source=\"x\" target=\"v\"/></graph></graphml>", ".graphml", false, &in);
  ck_assert_int_eq(in.g->nodes[0].out_size[0], 4096);
  ck_assert_int_eq(in.g->nodes[0].workspace, 16);
  ck_assert(in.g->nodes[1].has_alias && in.g->nodes[1].alias.node == 0);
  mp_instance_destroy(&in);
  tl_cleanup();
}
END_TEST

/* The GraphML reader at its edges (mutants of io_graphml.c that survived). */
#define GML_TWO GML_HEAD "<graph edgedefault=\"directed\"><node id=\"a\"><data key=\"s\">1</data></node>" \
  "<node id=\"b\"><data key=\"s\">1</data></node>"
START_TEST(graphml_edges) {
  reject("\xEF\xBB\xBF \n\t", ".graphml", false, "empty file", NULL);
  reject(" x", ".graphml", false, "not a readable GraphML", NULL);
  /* an edge's direction: an xs:boolean */
  mp_instance in;
  accept(GML_TWO "<edge source=\"a\" target=\"b\" directed=\"1\"/></graph></graphml>", ".graphml", false, &in);
  ck_assert_int_eq(in.g->nodes[1].n_in, 1);
  mp_instance_destroy(&in);
  reject(GML_TWO "<edge source=\"a\" target=\"b\" directed=\"0\"/></graph></graphml>", ".graphml", false,
         "undirected edge", NULL);
  reject(GML_TWO "<edge source=\"a\" target=\"b\" directed=\"yes\"/></graph></graphml>", ".graphml",
         false, "directed=\"yes\"", "true or false");
  reject(GML_TWO "<edge source=\"a\"/></graph></graphml>", ".graphml", false, "needs a source and a target", NULL);
  reject(GML_TWO "<edge target=\"b\"/></graph></graphml>", ".graphml", false, "needs a source and a target", NULL);
  /* which end names no node */
  reject(GML_TWO "<edge source=\"a\" target=\"zz\"/></graph></graphml>", ".graphml", false,
         "an edge to \"zz\"", NULL);
  reject(GML_TWO "<edge source=\"zz\" target=\"a\"/></graph></graphml>", ".graphml", false,
         "an edge from \"zz\"", NULL);
  /* alias indices and output indices at their ranges */
  reject(GML_TWO "<node id=\"c\"><data key=\"s\">0</data><data key=\"a\">3</data></node></graph></graphml>",
         ".graphml", false, "alias 3 is out of range", "0..2");
  reject(GML_TWO "<node id=\"c\"><data key=\"s\">0</data><data key=\"a\">-2</data></node></graph></graphml>",
         ".graphml", false, "alias -2 is out of range", NULL);
  reject(GML_TWO "<edge source=\"a\" target=\"b\"><data key=\"o\">-1</data></edge></graph></graphml>",
         ".graphml", false, "edge output '-1'", NULL);
  reject(GML_TWO "<edge source=\"a\" target=\"b\"><data key=\"o\">2147483648</data></edge></graph></graphml>",
         ".graphml", false, "edge output '2147483648'", NULL);
  reject(GML_TWO "<edge source=\"a\" target=\"b\"><data key=\"o\">2147483647</data></edge></graph></graphml>",
         ".graphml", false, "names output 2147483647, but", NULL);
  reject(GML_TWO "<port name=\"p\"/></graph></graphml>", ".graphml", false, "<port> is not supported", NULL);
  tl_cleanup();
}
END_TEST

/* GraphML keys: defaults, names, costs, aliases by id. */
START_TEST(graphml_keys) {
  mp_instance in;
  /* a <default> after a <desc> in a key: the default, not the description */
  accept(GML_HEAD "<key id=\"w\" for=\"node\" attr.name=\"workspace\"><default>16</default>"
         "<desc>scratch bytes</desc></key><graph edgedefault=\"directed\"><node id=\"x\">"
         "<data key=\"s\">1</data></node></graph></graphml>", ".graphml", false, &in);
  ck_assert_int_eq(in.g->nodes[0].workspace, 16);
  mp_instance_destroy(&in);
  /* a key declared twice, the first of all keys: both lines named */
  reject("<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
         "<key id=\"s\" for=\"node\" attr.name=\"size\"/>\n<key id=\"s\" for=\"node\" attr.name=\"cost\"/>\n"
         "<graph/></graphml>\n", ".graphml", false, ":4: <key id=\"s\"> is declared twice", "(first on line 3)");
  /* no key names the size (other keys do) */
  reject("<?xml version=\"1.0\"?><graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">"
         "<key id=\"a\" for=\"node\" attr.name=\"alias\"/><graph edgedefault=\"directed\">"
         "<node id=\"x\"/></graph></graphml>", ".graphml", false, "no node attribute 'size'", NULL);
  /* a graph with only a size key; names, costs and an alias by id of a node past the first */
  accept("<?xml version=\"1.0\"?><graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">"
         "<key id=\"s\" for=\"node\" attr.name=\"size\"/><graph edgedefault=\"directed\">"
         "<node id=\"x\"><data key=\"s\">3</data></node></graph></graphml>", ".graphml", false, &in);
  ck_assert_str_eq(in.g->nodes[0].name, "x");
  ck_assert_msg(in.g->name && strstr(in.g->name, "t") == in.g->name, "graph name %s", in.g->name);
  mp_instance_destroy(&in);
  accept(GML_HEAD "<key id=\"c\" for=\"node\" attr.name=\"cost\"/><key id=\"n\" for=\"node\" "
         "attr.name=\"name\"/><graph edgedefault=\"directed\"><node id=\"x\"><data key=\"s\">1</data>"
         "<data key=\"c\">2.5</data></node><node id=\"y\"><data key=\"s\">4</data><data key=\"n\">conv"
         "</data></node><node id=\"v\"><data key=\"s\">0</data><data key=\"a\">y</data></node>"
         "<edge source=\"x\" target=\"y\"/><edge source=\"y\" target=\"v\"/></graph></graphml>",
         ".graphml", false, &in);
  ck_assert(in.g->nodes[0].has_cost && in.g->nodes[0].cost == 2.5);
  ck_assert_str_eq(in.g->nodes[1].name, "conv");
  ck_assert(in.g->nodes[2].has_alias && in.g->nodes[2].alias.node == 1);
  mp_instance_destroy(&in);
  tl_cleanup();
}
END_TEST

/* GraphML files as a whole: lines past 65535, libxml2's errors, many ids. */
START_TEST(graphml_files) {
  mp_instance in;
  /* past line 65535 (libxml2 then keeps no line in an element): the node's own line */
  size_t pad = 70000, hl = strlen(GML_HEAD "<graph edgedefault=\"directed\">");
  char *deep = mp_xmalloc(hl + pad + 200);
  memcpy(deep, GML_HEAD "<graph edgedefault=\"directed\">", hl);
  memset(deep + hl, '\n', pad);
  strcpy(deep + hl + pad, "<node id=\"bad\">\n  <data key=\"s\">-1</data></node></graph></graphml>\n");
  reject(deep, ".graphml", false, ":70001:", "negative");
  free(deep);
  /* graph-level <data> after a node is not the node's; a size written 1e3 */
  accept(GML_HEAD "<graph edgedefault=\"directed\"><node id=\"x\"><data key=\"s\">1e3</data></node>"
         "<data key=\"s\">9</data></graph></graphml>", ".graphml", false, &in);
  ck_assert_int_eq(in.g->nodes[0].out_size[0], 1000);
  mp_instance_destroy(&in);
  /* libxml2's first error, on its own line, in one line */
  reject("<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
         "<graph edgedefault=\"directed\">\n<node id=\"a\">\n</graph></graphml>\n", ".graphml", false,
         ":5: not a readable GraphML file: Opening and ending tag mismatch: node line 4 and graph", NULL);
  /* 3000 nodes by id, each reading the one before: the id table grows */
  size_t cap = 3000 * 120, len = 0;
  char *big = mp_xmalloc(cap);
  len += (size_t)snprintf(big, cap, "%s<graph edgedefault=\"directed\">", GML_HEAD);
  for (int v = 0; v < 3000; v++)
    len += (size_t)snprintf(big + len, cap - len, "<node id=\"n%d\"><data key=\"s\">%d</data></node>", v, v + 1);
  for (int v = 1; v < 3000; v++)
    len += (size_t)snprintf(big + len, cap - len, "<edge source=\"n%d\" target=\"n%d\"/>", v - 1, v);
  snprintf(big + len, cap - len, "</graph></graphml>");
  accept(big, ".graphml", false, &in);
  ck_assert_int_eq(in.g->n, 3000);
  for (int v = 1; v < 3000; v++) {
    ck_assert_int_eq(in.g->nodes[v].n_in, 1);
    ck_assert_int_eq(in.g->nodes[v].in[0].node, v - 1);
    ck_assert_int_eq(in.g->nodes[v].out_size[0], v + 1);
  }
  mp_instance_destroy(&in);
  free(big);
  tl_cleanup();
}
END_TEST

/* ---- CSV ---- */

START_TEST(csv_exact) {
  reject("id,lower,upper,size\na,0,3,4\nb,0,3,4\na,1,2,4\n", ".csv", false, ":4", "duplicate id 'a'");
  reject("id,lower,upper,size,size\na,0,3,4,4\n", ".csv", false, ":1", "two columns");
  reject("id,lower,upper,size,offset\na,0,3,8,0\nb,1,4,8,4\n", ".csv", false, "pinned", "overlap");
  char nul[] = "id,lower,upper,size\na,0,3,4\0\n";
  char *path = tl_write_temp("", ".csv");
  FILE *f = fopen(path, "w");
  fwrite(nul, 1, sizeof nul - 1, f);
  fclose(f);
  mp_problem p;
  mp_error err;
  ck_assert(mp_csv_read(path, &p, &err) != 0);
  ck_assert_msg(strstr(err.msg, ":2: a NUL byte"), "%s", err.msg);
  free(path);
  mp_instance in;
  accept("\xEF\xBB\xBF id ,lower , upper,size \r\n a ,0, 3 ,4\r\n", ".csv", false, &in);
  ck_assert_str_eq(in.fixed->ids[0], "a");
  ck_assert_int_eq(in.fixed->items[0].hi, 3);
  mp_instance_destroy(&in);
  accept("buffer,start,end,size\nx,2,2,5\n", ".csv", false, &in); /* end is inclusive */
  ck_assert_int_eq(in.fixed->items[0].hi, 3);
  mp_instance_destroy(&in);
  tl_cleanup();
}
END_TEST

/* The CSV reader at its limits: each limit itself accepted, one past it
 * refused. */
START_TEST(csv_limits) {
  mp_instance in;
  accept("id,lower,upper,size,offset\na,0,1099511627776,72057594037927936,1152921504606846976\n",
         ".csv", false, &in);
  ck_assert(in.fixed->items[0].size == MP_MAX_SIZE && in.fixed->items[0].hi == MP_MAX_TIME &&
            in.fixed->items[0].fixed == MP_MAX_OFFSET);
  mp_instance_destroy(&in);
  accept("id,lower,upper,size,alignment\na,0,1,1,1073741824\n", ".csv", false, &in);
  ck_assert(in.fixed->items[0].align == MP_MAX_ALIGN);
  mp_instance_destroy(&in);
  reject("id,lower,upper,size\na,0,1,72057594037927937\n", ".csv", false, ":2", "outside");
  reject("id,lower,upper,size\na,0,1099511627777,1\n", ".csv", false, ":2", "outside");
  /* sizes adding up to 2^60 exactly, then one byte more */
  char rows[2000];
  int n = snprintf(rows, sizeof rows, "id,lower,upper,size\n");
  for (int i = 0; i < 16; i++) n += snprintf(rows + n, sizeof rows - (size_t)n, "r%d,0,1,72057594037927936\n", i);
  accept(rows, ".csv", false, &in);
  ck_assert_int_eq(in.fixed->n, 16);
  mp_instance_destroy(&in);
  snprintf(rows + n, sizeof rows - (size_t)n, "x,0,1,1\n");
  reject(rows, ".csv", false, ":18", "beyond 2^60");
  tl_cleanup();
}
END_TEST

/* The CSV reader's layouts: columns in any order, blank lines, many ids, a long line. */
START_TEST(csv_layout) {
  mp_instance in;
  int n;
  /* the first column given twice; columns in another order, alignment first */
  reject("id,lower,upper,size,id\na,0,1,1,b\n", ".csv", false, ":1", "two columns give 'id'");
  accept("alignment,lower,id,upper,size\n8,3,a,5,16\n", ".csv", false, &in);
  ck_assert(in.fixed->has_alignment_col && in.fixed->items[0].align == 8 && in.fixed->items[0].lo == 3);
  mp_instance_destroy(&in);
  /* rows after blank lines; the time range is over every row, not the first */
  accept("id,lower,upper,size\n\na,5,8,1\n\n\nb,2,4,1\nc,3,9,1\n", ".csv", false, &in);
  ck_assert_int_eq(in.fixed->n, 3);
  ck_assert(in.fixed->t_begin == 2 && in.fixed->t_end == 9);
  ck_assert(in.fixed->file && strstr(in.fixed->file, ".csv")); /* the path, and its stem as name */
  ck_assert(in.fixed->name && in.fixed->name[0] && !strstr(in.fixed->name, ".csv") &&
            strstr(in.fixed->file, in.fixed->name));
  mp_instance_destroy(&in);
  /* 64 columns (the unknown ones ignored), then 65 */
  char wide[1600];
  n = snprintf(wide, sizeof wide, "id,lower,upper,size");
  for (int i = 4; i < 64; i++) n += snprintf(wide + n, sizeof wide - (size_t)n, ",x%d", i);
  int m = n + snprintf(wide + n, sizeof wide - (size_t)n, "\na,0,1,1");
  for (int i = 4; i < 64; i++) m += snprintf(wide + m, sizeof wide - (size_t)m, ",0");
  snprintf(wide + m, sizeof wide - (size_t)m, "\n");
  accept(wide, ".csv", false, &in);
  mp_instance_destroy(&in);
  snprintf(wide + n, sizeof wide - (size_t)n, ",x64\na,0,1,1\n");
  reject(wide, ".csv", false, ":1", "more than 64 columns");
  /* ids that are not row indices, more than the first table holds: a
   * duplicate of an early one found after the table grew */
  size_t cap = 2100 * 24, len = 0;
  char *big = mp_xmalloc(cap);
  len += (size_t)snprintf(big, cap, "id,lower,upper,size\n");
  for (int i = 0; i < 2000; i++) len += (size_t)snprintf(big + len, cap - len, "b%d,0,1,1\n", i);
  snprintf(big + len, cap - len, "b7,0,1,1\n");
  reject(big, ".csv", false, ":2002", "duplicate id 'b7' (first on line 9)");
  free(big);
  /* a line of 1.5 MiB */
  size_t longn = 3u << 19;
  char *lng = mp_xmalloc(longn + 64);
  memcpy(lng, "id,lower,upper,size\na,0,1,1", 27);
  memset(lng + 27, ' ', longn);
  strcpy(lng + 27 + longn, "\n");
  reject(lng, ".csv", false, ":2", "longer than 1 MiB");
  free(lng);
  tl_cleanup();
}
END_TEST

/* ---- messages ---- */

START_TEST(messages) {
  mp_instance in;
  mp_error err;
  mp_load_opts lo = {0};
  mkdir("tmp", 0755);
  ck_assert(mp_instance_load("tmp", &lo, &in, &err) != 0);
  ck_assert_msg(strstr(err.msg, "is a directory"), "%s", err.msg);
  lo.format = "csv";
  ck_assert(mp_instance_load("tmp", &lo, &in, &err) != 0);
  ck_assert_msg(strstr(err.msg, "is a directory"), "%s", err.msg);
  lo.format = "graphml";
  ck_assert(mp_instance_load("tmp", &lo, &in, &err) != 0);
  ck_assert_msg(strstr(err.msg, "is a directory"), "%s", err.msg);
  /* ids beyond int, as written */
  reject("{\"nodes\":[{\"id\":0,\"size\":1,\"inputs\":[4294967296]}]}", ".json", false,
         "input 4294967296", "out of range");
  reject("{\"nodes\":[{\"id\":0,\"size\":1,\"inputs\":[[0, 4294967296]]}]}", ".json", false,
         "4294967296", "output index");
  tl_cleanup();
}
END_TEST

/* ---- no recursion grows with the input: a long chain of views read on a
 * thread with a 256 KiB stack ---- */

static void *read_views(void *arg) {
  mp_error err;
  mp_graph *g = mp_graph_read_json(arg, false, &err);
  return g;
}

START_TEST(deep_views_small_stack) {
  int n = 100000;
  size_t cap = (size_t)n * 64 + 256;
  char *js = malloc(cap);
  size_t len = (size_t)snprintf(js, cap, "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":64}");
  for (int i = 1; i < n; i++)
    len += (size_t)snprintf(js + len, cap - len, ",{\"id\":%d,\"inputs\":[%d],\"alias\":%d}", i, i - 1, i - 1);
  snprintf(js + len, cap - len, ",{\"id\":%d,\"size\":64,\"inputs\":[%d]}]}", n, n - 1);
  char *path = tl_write_temp(js, ".json");
  free(js);
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setstacksize(&at, 256 * 1024);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, &at, read_views, path), 0);
  void *res = NULL;
  pthread_join(th, &res);
  mp_graph *g = res;
  ck_assert(g != NULL);
  ck_assert_int_eq(g->n_buf, 2);
  ck_assert_int_eq(g->root_of[n - 1][0], g->root_of[0][0]); /* the last view is the input's */
  ck_assert_int_eq(mp_order_peak(g, g->given), 128);
  mp_graph_destroy(g);
  pthread_attr_destroy(&at);
  free(path);
  tl_cleanup();
}
END_TEST

Suite *suite_badinput(void) {
  Suite *s = suite_create("badinput");
  TCase *tc = tcase_create("badinput");
  tcase_add_test(tc, not_json);
  tcase_add_test(tc, truncated);
  tcase_add_test(tc, duplicate_and_missing_id);
  tcase_add_test(tc, input_out_of_range);
  tcase_add_test(tc, output_index_out_of_range);
  tcase_add_test(tc, bad_sizes);
  tcase_add_test(tc, cycles);
  tcase_add_test(tc, not_topological);
  tcase_add_test(tc, bad_alias);
  tcase_add_test(tc, bad_csv);
  tcase_add_test(tc, odd_but_valid);
  tcase_add_test(tc, verify_rejects_tampered_plans);
  tcase_add_test(tc, verify_plan_not_json);
  tcase_add_test(tc, verify_csv_plans);
  tcase_add_test(tc, exact_numbers);
  tcase_add_test(tc, limits);
  tcase_add_test(tc, nodelink_exact);
  tcase_add_test(tc, nodelink_accepts);
  tcase_add_test(tc, nodelink_moccasin_and_checkmate);
  tcase_add_test(tc, moccasin_anchors);
  tcase_add_test(tc, graphml_exact);
  tcase_add_test(tc, graphml_edges);
  tcase_add_test(tc, graphml_keys);
  tcase_add_test(tc, graphml_files);
  tcase_add_test(tc, csv_exact);
  tcase_add_test(tc, csv_limits);
  tcase_add_test(tc, csv_layout);
  tcase_add_test(tc, messages);
  tcase_add_test(tc, deep_views_small_stack);
  suite_add_tcase(s, tc);
  return s;
}
