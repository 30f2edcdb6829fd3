/* test_plainread.c - the readers' paths without jansson (io_jnode.c's plain
 * nodes, io_jdoc.c's plain integers and member names) give exactly what
 * jansson's path gives.  Each random file is read twice: as written, and
 * with every node's "id" key written "\u0069d", which jansson reads as the
 * same key but the plain reader declines, so that every node of the second
 * file goes through jansson; io_nodelink.c's plain links likewise, with
 * "source" written "\u0073ource". */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"
#include "testlib.h"

typedef struct tbuf {
  char *s;
  size_t n, cap;
} tbuf;

static void put(tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(tbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->n + (size_t)k + 1 > b->cap) {
    b->cap = 2 * (b->n + (size_t)k + 1);
    b->s = realloc(b->s, b->cap);
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

static unsigned long long rng_state;
static unsigned rnd(unsigned n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)(rng_state >> 33) % n;
}

static const char *blank(void) {
  static const char *const b[] = {"", "", " ", "\n  ", "\t", "\r\n"};
  return b[rnd(6)];
}

/* A number as a file may write a cost: integers, decimals of 1 to 17
 * digits, exponents (the integer part at most 12 digits: the costs of a
 * graph must add up to less than 2^60). */
static void put_cost(tbuf *b) {
  char d[24];
  int len = 1 + (int)rnd(17);
  for (int i = 0; i < len; i++) d[i] = (char)('0' + rnd(10));
  d[len] = 0;
  char *s = d;
  while (*s == '0' && s[1]) s++; /* no leading zero */
  int slen = (int)strlen(s), point = (int)rnd((unsigned)slen + 1);
  if (point > 12) point = 12;
  switch (rnd(4)) {
  case 0: put(b, "%.12s", s); break;
  case 1: put(b, "%.9s%s%d", s, rnd(2) ? "e-" : "E", (int)rnd(3)); break;
  default:
    if (point == slen) put(b, "%s.%u", s, rnd(100));
    else if (point == 0) put(b, "0.%s", s);
    else put(b, "%.*s.%s", point, s, s + point);
  }
}

static void put_member(tbuf *b, int key, int v, int n, bool escape_id) {
  static const char *const ops[] = {"op", "input", "output", "conv", ""};
  static const char *const phases[] = {"\"fwd\"", "\"bwd\"", "\"opt\"", "null"};
  switch (key) {
  case 0: put(b, "\"%s\":%s%d", escape_id ? "\\u0069d" : "id", blank(), v); break;
  case 1: {
    put(b, "\"name\":%s\"", blank());
    for (int i = (int)rnd(12); i > 0; i--) {
      char c = (char)(0x20 + rnd(95));
      put(b, "%c", c == '"' || c == '\\' ? 'q' : c);
    }
    put(b, "\"");
    break;
  }
  case 2: put(b, "\"op\":%s\"%s\"", blank(), ops[rnd(5)]); break;
  case 3: put(b, "\"size\":%s%llu", blank(), (unsigned long long)rnd(1u << 30) << rnd(20)); break;
  case 4:
    put(b, "\"inputs\":%s[", blank());
    for (int i = 0, k = v ? (int)rnd(4) : 0; i < k; i++)
      put(b, "%s%s%u", i ? "," : "", blank(), rnd((unsigned)v));
    put(b, "%s]", blank());
    break;
  case 5:
    put(b, "\"cost\":%s", blank());
    if (rnd(8) == 0) put(b, "null");
    else put_cost(b);
    break;
  case 6:
    if (rnd(3) == 0) put(b, "\"workspace\":%snull", blank());
    else put(b, "\"workspace\":%s%u", blank(), rnd(1u << 20));
    break;
  default: put(b, "\"phase\":%s%s", blank(), phases[rnd(4)]);
  }
  (void)n;
}

/* A graph of n random plain nodes (their keys in random order, some
 * absent), the ids written plainly or escaped. */
static char *random_graph(int n, unsigned long long seed, bool escape_id) {
  rng_state = seed;
  tbuf b = {0};
  put(&b, "{\"name\": \"plain\", \"nodes\": [");
  for (int v = 0; v < n; v++) {
    int keys[8] = {0, 1, 2, 3, 4, 5, 6, 7}, m = 8;
    for (int i = 7; i > 0; i--) {
      int j = (int)rnd((unsigned)i + 1), t = keys[i];
      keys[i] = keys[j];
      keys[j] = t;
    }
    put(&b, "%s%s{", v ? "," : "", blank());
    bool first = true;
    for (int i = 0; i < m; i++) {
      if (keys[i] != 0 && rnd(4) == 0) continue; /* absent */
      put(&b, "%s%s", first ? "" : ",", blank());
      put_member(&b, keys[i], v, n, escape_id);
      first = false;
    }
    put(&b, "%s}", blank());
  }
  put(&b, "]}\n");
  return b.s;
}

/* The graph of `text` read as graph JSON or as node-link; the message
 * without the file's name in msg. */
static mp_graph *load_as(const char *text, bool nodelink, char *msg, size_t cap) {
  char *path = tl_write_temp(text, ".json");
  mp_error err = {0};
  mp_graph *g = nodelink ? mp_graph_read_nodelink(path, NULL, NULL, false, &err)
                         : mp_graph_read_json(path, false, &err);
  const char *m = strstr(err.msg, path) ? strstr(err.msg, path) + strlen(path) : err.msg;
  snprintf(msg, cap, "%s", m);
  free(path);
  return g;
}

static mp_graph *load(const char *text, char *msg, size_t cap) { return load_as(text, false, msg, cap); }

/* How many elements of text's streamed arrays (nodes; node-link: nodes and
 * links) the plain readers took; the graph must read.  A plain element
 * that falls back to jansson gives the same graph, only slower: the
 * comparisons above cannot see that, this count can. */
static size_t taken_plainly(const char *text, bool nodelink) {
  char *path = tl_write_temp(text, ".json");
  mp_error err = {0};
  mp_jdoc *d = mp_jdoc_open(path, mp_graph_stream_keys, &err);
  ck_assert_msg(d != NULL, "%s", err.msg);
  mp_graph *g = nodelink ? mp_graph_from_nodelink(d, path, NULL, NULL, &err)
                         : mp_graph_from_json(d, path, &err);
  size_t taken = mp_jdoc_taken(d);
  g = mp_graph_json_done(d, g, false, &err);
  ck_assert_msg(g != NULL, "%s", err.msg);
  mp_graph_destroy(g);
  free(path);
  return taken;
}

static void same_nodes(const mp_graph *a, const mp_graph *b) {
  ck_assert_int_eq(a->n, b->n);
  for (int v = 0; v < a->n; v++) {
    const mp_node *x = &a->nodes[v], *y = &b->nodes[v];
    ck_assert_int_eq(a->given[v], b->given[v]);
    ck_assert_int_eq(x->id, y->id);
    ck_assert_str_eq(x->name, y->name);
    ck_assert_str_eq(x->op, y->op);
    ck_assert_int_eq(x->n_out, y->n_out);
    for (int k = 0; k < x->n_out; k++) ck_assert_int_eq(x->out_size[k], y->out_size[k]);
    ck_assert_int_eq(x->n_in, y->n_in);
    for (int k = 0; k < x->n_in; k++) {
      ck_assert_int_eq(x->in[k].node, y->in[k].node);
      ck_assert_int_eq(x->in[k].out, y->in[k].out);
    }
    ck_assert_int_eq(x->workspace, y->workspace);
    ck_assert_msg(memcmp(&x->cost, &y->cost, sizeof x->cost) == 0, "node %d: cost %.17g vs %.17g", v,
                  x->cost, y->cost);
    ck_assert_int_eq(x->has_cost, y->has_cost);
    ck_assert_int_eq(x->phase, y->phase);
    ck_assert_int_eq(x->is_input, y->is_input);
    ck_assert_int_eq(x->is_output, y->is_output);
    ck_assert_int_eq(x->has_alias, y->has_alias);
    ck_assert_int_eq(x->inplace, y->inplace);
  }
}

/* fmt (two "%s" for the nodes' id keys, then one for a member) written with
 * "id" plain and escaped as "\u0069d" (jansson's path for every node). */
static void two_ways(const char *fmt, const char *member, char *plain, char *escaped, size_t cap) {
  snprintf(plain, cap, fmt, "id", "id", member);
  snprintf(escaped, cap, fmt, "\\u0069d", "\\u0069d", member);
}

/* fmt with `member`, written both ways (two_ways), read as graph JSON or as
 * node-link: both must be refused; their messages (without the file's
 * name) in m1 and m2. */
static void refused_both_ways(const char *fmt, const char *member, bool nodelink, char *m1,
                              char *m2, size_t cap) {
  char plain[800], escaped[800];
  two_ways(fmt, member, plain, escaped, sizeof plain);
  mp_graph *a = load_as(plain, nodelink, m1, cap), *b = load_as(escaped, nodelink, m2, cap);
  ck_assert_msg(!a && !b, "accepted: %s", plain);
}

/* The two texts (freed here) read as the same graph, the plain one
 * without jansson (every node taken, and in node-link every link, but
 * perhaps the first node and link: the reader may decode them to learn
 * the file's key style), the escaped one all through jansson; its edges. */
static int same_both_ways(char *plain, char *escaped, bool nodelink, unsigned long long seed) {
  char m1[600], m2[600];
  mp_graph *a = load_as(plain, nodelink, m1, sizeof m1), *b = load_as(escaped, nodelink, m2, sizeof m2);
  ck_assert_msg(a && b, "seed %llu: %s / %s", seed, m1, m2);
  same_nodes(a, b);
  int edges = 0;
  for (int v = 0; v < a->n; v++) edges += a->nodes[v].n_in;
  size_t want = (size_t)a->n;
  if (nodelink) {
    json_t *doc = json_loads(plain, 0, NULL);
    size_t links = json_array_size(json_object_get(doc, "links"));
    want += links;
    json_decref(doc);
  }
  size_t probed = nodelink ? 2 : 0;
  size_t got = taken_plainly(plain, nodelink);
  ck_assert_msg(got <= want && got + probed >= want, "seed %llu, %s: %zu of %zu elements read plainly", seed,
                nodelink ? "node-link" : "graph JSON", got, want);
  ck_assert_uint_eq(taken_plainly(escaped, nodelink), 0);
  mp_graph_destroy(a);
  mp_graph_destroy(b);
  free(plain);
  free(escaped);
  return edges;
}

START_TEST(plain_nodes_as_jansson) {
  for (unsigned long long seed = 1; seed <= 40; seed++) {
    char *plain = random_graph(300, seed, false), *escaped = random_graph(300, seed, true);
    same_both_ways(plain, escaped, false, seed);
  }
  tl_cleanup();
}
END_TEST

/* A node the plain reader must refuse (or judge as jansson's path does):
 * the same message either way. */
START_TEST(plain_node_errors_as_jansson) {
  static const char *const bad[] = {
      "\"size\": -1", "\"size\": 72057594037927937", "\"size\": 1.5", "\"cost\": -2.5",
      "\"cost\": \"1\"", "\"phase\": \"x\"", "\"phase\": 3", "\"inputs\": [7]", "\"inputs\": 1",
      "\"name\": 5", "\"op\": null", "\"workspace\": -3", "\"workspace\": 72057594037927937",
      "\"inplace\": true", "\"size\": 1, \"outputs\": [1]", "\"cost\": 1e308, \"x\": 1",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char m1[600], m2[600];
    refused_both_ways("{\"nodes\": [{\"%s\": 0, \"inputs\": []}, {\"%s\": 1, %s}]}", bad[i], false,
                      m1, m2, sizeof m1);
    ck_assert_str_eq(m1, m2);
  }
  /* a duplicate id and one out of range */
  char m1[600], m2[600];
  ck_assert_ptr_null(load("{\"nodes\": [{\"id\": 0}, {\"id\": 0}]}", m1, sizeof m1));
  ck_assert_ptr_null(load("{\"nodes\": [{\"\\u0069d\": 0}, {\"\\u0069d\": 0}]}", m2, sizeof m2));
  ck_assert_str_eq(m1, m2);
  ck_assert_ptr_null(load("{\"nodes\": [{\"id\": 2}]}", m1, sizeof m1));
  ck_assert_ptr_null(load("{\"nodes\": [{\"\\u0069d\": 2}]}", m2, sizeof m2));
  ck_assert_str_eq(m1, m2);
  tl_cleanup();
}
END_TEST

/* Nodes at the edges of the plain form: read plainly (node 1 included)
 * into what jansson's path makes of them. */
START_TEST(plain_node_edges_as_jansson) {
  char name255[300];
  snprintf(name255, sizeof name255, "\"name\": \"%0255d\"", 7);
  const char *const edge[] = {
      "\"size\": 72057594037927936", "\"workspace\": 72057594037927936", "\"size\": 0",
      "\"cost\": 123456789012345678", "\"cost\": 0", "\"cost\": 0.0", "\"cost\": 0.5",
      "\"cost\": 12345678.1234567", "\"cost\": 1234567890.123456", "\"cost\": 0.000000000000001",
      "\"cost\": 1e+2", "\"cost\": 1E2", "\"cost\": 2.5e-3", "\"cost\": 1e0", "\"cost\": 9.99e10",
      "\"cost\": null", "\"workspace\": null", "\"phase\": null", "\"phase\": \"fwd\"",
      "\"phase\": \"bwd\"", "\"phase\": \"opt\"", "\"inputs\": [0, 0]", "\"inputs\": [ 0 ]",
      "\"inputs\": []", "\"name\": \"\", \"op\": \"\"", "\"op\": \"input\"", "\"op\": \"output\"",
      name255};
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
    char plain[600], escaped[600];
    const char *fmt = "{\"nodes\": [{\"%s\": 0, \"inputs\": []}, {\"%s\": 1, %s}]}";
    two_ways(fmt, edge[i], plain, escaped, sizeof plain);
    same_both_ways(mp_xstrdup(plain), mp_xstrdup(escaped), false, i);
  }
  tl_cleanup();
}
END_TEST

/* Just past those edges: declined, and the same message as jansson's path. */
START_TEST(plain_node_limits_as_jansson) {
  char name256[300];
  snprintf(name256, sizeof name256, "\"name\": \"%0256d\"", 7);
  const char *const past[][2] = {
      {"{\"nodes\": [{\"%s\": 0}, {\"%s\": 2}]}", NULL},                      /* id = n */
      {"{\"nodes\": [{\"%s\": 0}, {\"%s\": 1, \"inputs\": [2]}]}", NULL},     /* input = n */
      {"{\"nodes\": [{\"%s\": 0}, {\"%s\": 1, \"size\": 72057594037927937}]}", NULL},
      {"{\"nodes\": [{\"%s\": 0}, {\"%s\": 1, \"workspace\": 72057594037927937}]}", NULL},
      {"{\"nodes\": [{\"%s\": 0}, {\"%s\": 1, \"inputs\": [1]}]}", NULL},     /* a cycle */
      {"{\"nodes\": [{\"%s\": 0}, {\"%s\": 1, %s}]}", name256},                /* accepted */
  };
  for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
    char plain[800], escaped[800], m1[600], m2[600];
    two_ways(past[i][0], past[i][1], plain, escaped, sizeof plain);
    if (past[i][1]) /* a name too long to copy plainly: node 1 goes through jansson */
      ck_assert_uint_eq(taken_plainly(plain, false), 1);
    mp_graph *a = load(plain, m1, sizeof m1), *b = load(escaped, m2, sizeof m2);
    ck_assert_msg(!a == !b, "%s: %s / %s", plain, m1, m2);
    if (a) {
      same_nodes(a, b);
      mp_graph_destroy(a);
      mp_graph_destroy(b);
    } else {
      ck_assert_str_eq(m1, m2);
    }
  }
  /* not JSON (a leading zero, a bare point): refused both ways, as a whole-file
   * syntax error (its column moves when escaped) */
  static const char *const syntax[] = {"\"cost\": 01.5", "\"cost\": 00", "\"size\": 01",
                                       "\"cost\": 1.", "\"cost\": .5", "\"cost\": 1e+"};
  for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
    char m1[600], m2[600];
    refused_both_ways("{\"nodes\": [{\"%s\": 0}, {\"%s\": 1, %s}]}", syntax[i], false, m1, m2,
                      sizeof m1);
    ck_assert_msg(strstr(m1, "not valid JSON") && strstr(m2, "not valid JSON"), "%s: %s / %s",
                  syntax[i], m1, m2);
  }
  tl_cleanup();
}
END_TEST

/* ---- io_nodelink.c: plain links ---- */

/* A node-link graph of n nodes (integer keys, or string keys "n<v>" when
 * str_keys; a size, and now and then a name, op, cost, workspace and
 * phase) and random links to earlier nodes, each link's members in random
 * order with "key" and "output" now and then; with escape_src every node
 * writes "id" as "\u0069d" and every link "source" as "\u0073ource"
 * (jansson's path for all of them). */
static char *random_nodelink(int n, unsigned long long seed, bool str_keys, bool escape_src) {
  rng_state = seed;
  tbuf b = {0};
  put(&b, "{\"directed\": true, \"multigraph\": true, \"graph\": {}, \"nodes\": [");
  static const char *const ops[] = {"\"op\"", "\"input\"", "\"output\"", "null", "\"\""};
  static const char *const phases[] = {"\"fwd\"", "\"bwd\"", "\"opt\"", "null"};
  for (int v = 0; v < n; v++) {
    const char *id = escape_src ? "\\u0069d" : "id";
    if (str_keys) put(&b, "%s{\"%s\":%s\"n%d\"", v ? "," : "", id, blank(), v);
    else put(&b, "%s{\"%s\":%s%d", v ? "," : "", id, blank(), v);
    put(&b, ",%s\"size\":%s%llu", blank(), blank(), (unsigned long long)rnd(1u << 30) << rnd(20));
    if (rnd(2)) put(&b, ", \"name\": \"nm %u\"", rnd(50));
    if (rnd(2)) put(&b, ", \"op\":%s%s", blank(), ops[rnd(5)]);
    if (rnd(2)) {
      put(&b, ", \"cost\": ");
      if (rnd(6) == 0) put(&b, "null");
      else put_cost(&b);
    }
    if (rnd(3) == 0) put(&b, ", \"workspace\": %s", rnd(3) ? "17" : "null");
    if (rnd(3) == 0) put(&b, ", \"phase\": %s", phases[rnd(4)]);
    put(&b, "%s}", blank());
  }
  put(&b, "],%s\"links\": [", blank());
  bool first = true;
  for (int v = 1; v < n; v++)
    for (int k = (int)rnd(4); k > 0; k--) {
      int u = (int)rnd((unsigned)v), m = 0, order[4] = {0, 1, 2, 3};
      for (int i = 3; i > 0; i--) {
        int j = (int)rnd((unsigned)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      put(&b, "%s%s{", first ? "" : ",", blank());
      first = false;
      for (int i = 0; i < 4; i++) {
        int w = order[i];
        if (w >= 2 && rnd(2)) continue; /* key and output now and then */
        put(&b, "%s%s", m++ ? "," : "", blank());
        int end = w == 0 ? u : v;
        if (w <= 1) {
          put(&b, "\"%s\":%s", w == 0 ? (escape_src ? "\\u0073ource" : "source") : "target", blank());
          if (str_keys) put(&b, "\"n%d\"", end);
          else put(&b, "%d", end);
        } else if (w == 2) {
          put(&b, "\"key\":%s%u", blank(), rnd(3));
        } else {
          put(&b, "\"output\":%s%s", blank(), rnd(2) ? "0" : "null");
        }
      }
      put(&b, "%s}", blank());
    }
  put(&b, "]}\n");
  return b.s;
}

static mp_graph *load_nodelink(const char *text, char *msg, size_t cap) {
  return load_as(text, true, msg, cap);
}

START_TEST(plain_links_as_jansson) {
  for (unsigned long long seed = 1; seed <= 40; seed++) {
    bool str_keys = seed % 2 == 0;
    char *plain = random_nodelink(200, seed, str_keys, false);
    char *escaped = random_nodelink(200, seed, str_keys, true);
    ck_assert_msg(same_both_ways(plain, escaped, true, seed) > 100, "seed %llu: few links", seed);
  }
  tl_cleanup();
}
END_TEST

/* Node-link nodes at the edges of the plain form: node 1 read plainly (as
 * many elements taken as with a plain node 1), into jansson's graph; a
 * name too long to copy plainly goes through jansson. */
START_TEST(plain_nodelink_edges_as_jansson) {
  char name255[300], name256[300];
  snprintf(name255, sizeof name255, "\"size\": 1, \"name\": \"%0255d\"", 7);
  snprintf(name256, sizeof name256, "\"size\": 1, \"name\": \"%0256d\"", 7);
  const char *const edge[] = {"\"size\": 1", "\"size\": 72057594037927936", "\"size\": 0",
                              "\"size\": 1, \"workspace\": 72057594037927936", "\"size\": 1, \"op\": \"\"",
                              "\"size\": 1, \"phase\": \"opt\"", "\"size\": 1, \"cost\": 1e+2",
                              name255, name256};
  const char *fmt = "{\"directed\": true, \"nodes\": [{\"%s\": 0, \"size\": 1}, {\"%s\": 1, %s}, "
                    "{\"%s\": 2, \"size\": 1}], \"links\": [{\"%s\": 0, \"target\": 1}, "
                    "{\"%s\": 1, \"target\": 2}]}";
  size_t base = 0;
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
    char plain[900], escaped[900];
    snprintf(plain, sizeof plain, fmt, "id", "id", edge[i], "id", "source", "source");
    snprintf(escaped, sizeof escaped, fmt, "\\u0069d", "\\u0069d", edge[i], "\\u0069d",
             "\\u0073ource", "\\u0073ource");
    size_t got = taken_plainly(plain, true);
    if (i == 0) base = got; /* node 1 plain: the count to match */
    ck_assert_msg(got == base - (edge[i] == name256), "%s: %zu taken, %zu with a plain node", edge[i],
                  got, base);
    same_both_ways(mp_xstrdup(plain), mp_xstrdup(escaped), true, i);
  }
  tl_cleanup();
}
END_TEST

/* A link or node the plain readers must decline: the same message either
 * way. */
START_TEST(plain_link_errors_as_jansson) {
  static const char *const bad[] = {
      "\"%s\": 0, \"target\": 5",         "\"%s\": 7, \"target\": 1",
      "\"%s\": \"0\", \"target\": 1",     "\"%s\": 0.0, \"target\": 1",
      "\"%s\": 0, \"target\": 1, \"output\": -1", "\"%s\": 0, \"target\": 1, \"output\": 1.5",
      "\"%s\": 0, \"target\": 1, \"output\": 2147483648",
      "\"%s\": 0",                        "\"%s\": 0, \"target\": null",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char link[200], plain[600], escaped[600], m1[600], m2[600];
    const char *fmt = "{\"directed\": true, \"nodes\": [{\"id\": 0, \"size\": 1}, {\"id\": 1, \"size\": 1}], "
                      "\"links\": [{\"source\": 0, \"target\": 1}, {%s}]}";
    snprintf(link, sizeof link, bad[i], "source", "source");
    snprintf(plain, sizeof plain, fmt, link);
    snprintf(link, sizeof link, bad[i], "\\u0073ource", "\\u0073ource");
    snprintf(escaped, sizeof escaped, fmt, link);
    mp_graph *a = load_nodelink(plain, m1, sizeof m1), *b = load_nodelink(escaped, m2, sizeof m2);
    ck_assert_msg(!a && !b, "accepted: %s", plain);
    ck_assert_str_eq(m1, m2);
  }
  /* a node the plain reader must decline: the same message either way */
  static const char *const bad_node[] = {
      "\"size\": -1", "\"size\": 1.5", "\"size\": 72057594037927937", "\"size\": null",
      "\"cost\": -2.5", "\"cost\": \"1\"", "\"phase\": \"x\"", "\"phase\": 3", "\"op\": 3",
      "\"workspace\": -3", "\"workspace\": 72057594037927937", "\"size\": 1, \"inplace\": true",
      "\"size\": 1, \"alias\": 9", "\"size\": 1, \"outputs\": 4",
  };
  for (size_t i = 0; i < sizeof bad_node / sizeof bad_node[0]; i++) {
    char m1[600], m2[600];
    refused_both_ways("{\"directed\": true, \"nodes\": [{\"%s\": 0, \"size\": 1}, {\"%s\": 1, %s}], "
                      "\"links\": []}", bad_node[i], true, m1, m2, sizeof m1);
    ck_assert_str_eq(m1, m2);
  }
  char d1[600], d2[600]; /* a duplicate key */
  ck_assert_ptr_null(load_nodelink("{\"nodes\": [{\"id\": 0, \"size\": 1}, {\"id\": 0, \"size\": 1}], "
                                   "\"links\": []}", d1, sizeof d1));
  ck_assert_ptr_null(load_nodelink("{\"nodes\": [{\"\\u0069d\": 0, \"size\": 1}, {\"\\u0069d\": 0, \"size\": 1}], "
                                   "\"links\": []}", d2, sizeof d2));
  ck_assert_str_eq(d1, d2);
  /* not JSON: jansson's whole-file message (its column moves when escaped) */
  static const char *const syntax[] = {"\"source\": 00, \"target\": 1", "\"source\": 0, \"target\": 1,",
                                       "\"source\": 0, \"target\": 1, \"w\": 1e999"};
  for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
    char plain[600], m[600];
    snprintf(plain, sizeof plain, "{\"directed\": true, \"nodes\": [{\"id\": 0, \"size\": 1}, "
             "{\"id\": 1, \"size\": 1}], \"links\": [{%s}]}", syntax[i]);
    ck_assert_ptr_null(load_nodelink(plain, m, sizeof m));
    ck_assert_msg(strstr(m, "not valid JSON"), "%s: %s", syntax[i], m);
  }
  /* a member twice: jansson's message (its text differs when escaped) */
  char m1[600];
  ck_assert_ptr_null(load_nodelink("{\"directed\": true, \"nodes\": [{\"id\": 0, \"size\": 1}], "
                                   "\"links\": [{\"source\": 0, \"source\": 0, \"target\": 0}]}",
                                   m1, sizeof m1));
  ck_assert_msg(strstr(m1, "duplicate object key"), "%s", m1);
  tl_cleanup();
}
END_TEST

/* ---- io_jdoc.c: plain integers and names, against the whole-file tree ---- */
static const char *const int_tokens[] = {
    "0", "-0", "7", "-7", "10", "123456789012345678", "-123456789012345678",
    "1234567890123456789", "-1234567890123456789", "9223372036854775807", "1.5", "1e3", "-2E-1",
    "\"12\"", "null", "true", "[1, 2]", "{\"a\": 1}", "0.0"};
enum { N_TOKENS = sizeof int_tokens / sizeof int_tokens[0] };

static json_t *load_whole(const char *path, mp_error *err) {
  json_error_t je;
  json_t *j = mp_json_load_file(path, 0, &je);
  if (!j) mp_errorf(err, "%s", je.text);
  return j;
}

static void report(const char *path, const json_error_t *je, mp_error *err) {
  mp_errorf(err, "%s: %s", path, je->text);
}

typedef struct members {
  json_t *whole;
  int seen;
} members;

static int check_member(void *ctx, const char *name, json_t *v, mp_error *err) {
  members *m = ctx;
  (void)err;
  json_t *want = json_object_get(json_object_get(m->whole, "offsets"), name);
  ck_assert_msg(want != NULL, "member '%s' not in the tree", name);
  ck_assert_msg(json_equal(v, want), "member '%s' differs", name);
  ck_assert_int_eq(json_typeof(v), json_typeof(want));
  m->seen++;
  return 0;
}

START_TEST(plain_scalars_as_jansson) {
  rng_state = 99;
  tbuf b = {0};
  int n = 2000;
  put(&b, "{\"order\": [");
  for (int i = 0; i < n; i++) put(&b, "%s%s%s", i ? "," : "", blank(), int_tokens[rnd(N_TOKENS)]);
  put(&b, "],%s\"offsets\": {", blank());
  for (int i = 0; i < n; i++)
    put(&b, "%s%s\"%s%d\":%s%s", i ? "," : "", blank(), rnd(3) ? "k" : "\\u006b", i, blank(),
        int_tokens[rnd(N_TOKENS)]);
  put(&b, "}}");
  char *path = tl_write_temp(b.s, ".json");
  json_error_t je;
  json_t *whole = json_loads(b.s, 0, &je);
  ck_assert_msg(whole != NULL, "%s", je.text);
  static const char *const keys[] = {"order", "offsets", NULL};
  const mp_jdoc_style style = {0, load_whole, report};
  mp_error err = {0};
  mp_jdoc *d = mp_jdoc_open_as(path, keys, &style, &err);
  ck_assert_msg(d != NULL, "%s", err.msg);
  json_t *order = json_object_get(whole, "order");
  for (int i = 0; i < n; i++) {
    json_t *e = mp_jdoc_elem(d, "order", (size_t)i, &err), *want = json_array_get(order, (size_t)i);
    ck_assert_msg(e && json_equal(e, want) && json_typeof(e) == json_typeof(want),
                  "order[%d] differs", i);
  }
  members m = {whole, 0};
  ck_assert_int_eq(mp_jdoc_each_member(d, "offsets", check_member, &m, &err), 0);
  ck_assert_int_eq(m.seen, n);
  ck_assert_int_eq(mp_jdoc_settle(d, &err), 0);
  mp_jdoc_destroy(d);
  json_decref(whole);
  free(path);
  free(b.s);
  tl_cleanup();
}
END_TEST

Suite *suite_plainread(void) {
  Suite *s = suite_create("plainread");
  TCase *tc = tcase_create("plainread");
  tcase_add_test(tc, plain_nodes_as_jansson);
  tcase_add_test(tc, plain_node_errors_as_jansson);
  tcase_add_test(tc, plain_node_edges_as_jansson);
  tcase_add_test(tc, plain_node_limits_as_jansson);
  tcase_add_test(tc, plain_scalars_as_jansson);
  tcase_add_test(tc, plain_links_as_jansson);
  tcase_add_test(tc, plain_nodelink_edges_as_jansson);
  tcase_add_test(tc, plain_link_errors_as_jansson);
  suite_add_tcase(s, tc);
  return s;
}
