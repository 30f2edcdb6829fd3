/* test_badinput.c - one test per class of bad input (DESIGN 1.1, 1.4): each
 * is rejected by the loader with a message naming the file and the node or
 * line and what is wrong; odd but valid input is accepted; the verifier
 * rejects tampered plans naming the violation.  Exit codes and "no output
 * file" are checked end to end in tests/cli.sh. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * change the JSON, and expect mp_plan_verify to fail with `want`. */
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
  ck_assert_msg(mp_plan_verify(&in, tpath, 0, &err) != 0, "tampered plan accepted:\n%s", txt);
  ck_assert_msg(strstr(err.msg, want), "message lacks '%s': %s", want, err.msg);
  ck_assert_msg(strstr(err.msg, tpath), "message does not name the plan: %s", err.msg);
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
  tamper(CHAIN, e_huge, "buffer 1");
  tamper(CHAIN, e_wrapped_id, "not a node id");
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
  mp_instance_destroy(&in);
  free(prob);
  free(good);
  free(over);
  free(life);
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
  tcase_add_test(tc, verify_csv_plans);
  suite_add_tcase(s, tc);
  return s;
}
