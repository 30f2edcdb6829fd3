/* io_nodelink.c - networkx node-link JSON (node_link_data): "nodes" with a
 * key and attributes, "links" (or "edges") with the two ends.
 *
 * - Node key: "id", or "name" when no node has an "id" (Moccasin's files);
 *   a key is an integer or a string, looked up by hash.  Link ends: "source"
 *   and "target", or "0" and "1" (Moccasin's files).
 * - Given order: the order of "nodes", or graph.order (a list of node keys)
 *   when the file has one.  Link order is input order.
 * - Output bytes: the attribute --size-attr names; without it
 *   graph.node_output_cost_tag (Moccasin), else the first of size,
 *   cost_ram (Checkmate) that some node has.  Node time (DESIGN 6.1):
 *   --cost-attr, else graph.node_duration_tag, else cost or cost_cpu.
 *   An attribute named on the command line must exist on some node.  A
 *   node without outputs and without the size attribute (or with null) is
 *   an error, never 0 bytes: a size forgotten would plan too small an arena.
 * - Links: "links", or "edges" (networkx 3.4+); a file with both, or with a
 *   list that is no array, is refused, as is a "directed" other than true
 *   or false.
 * - Also read: op, name, alias (a node key; the integer -1 a parameter, and
 *   refused as ambiguous when a node has the key -1), inplace,
 *   workspace, phase ("fwd", "bwd", "opt"; Checkmate's boolean `backward`
 *   when there is none), and what `memplan convert --to nodelink` adds:
 *   outputs (a list of bytes; it takes precedence over the size attribute),
 *   alias_output (k of an [j, k] alias), a link's output (k of an [j, k]
 *   input), graph.param_bytes and graph.host_bandwidth.
 * Every number is read exactly (integers beyond 2^53 stay exact) or refused;
 * an undirected graph is refused. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "io_util.h"
#include "util.h"

/* ---- node keys: integers or strings, in an open-addressing hash table ----
 * The table holds node numbers; each node's key is kept as a plain integer
 * or a copy of the string.  A jansson value per node, kept through the
 * read amid the parse's short-lived values, put malloc at a fifth of the
 * read's profile at 10^6 nodes, and every look-up called json_equal. */
typedef struct node_key {
  int64_t num;   /* an integer key */
  char *str;     /* a string key (NUL-free: jansson refuses \u0000), or NULL */
  size_t len;
} node_key;

typedef struct key_table {
  size_t cap;      /* a power of two, at least twice the entries */
  int *slot;       /* node + 1, or 0 when free */
  node_key *key;   /* by node */
} key_table;

/* A key as read: an integer, or a string of len bytes at s (from jansson,
 * or straight from the text by the plain link reader below). */
typedef struct raw_key {
  bool str;
  int64_t num;
  const char *s;
  size_t len;
} raw_key;

static raw_key raw_of(json_t *k) {
  if (json_is_integer(k)) return (raw_key){false, json_integer_value(k), NULL, 0};
  return (raw_key){true, 0, json_string_value(k), json_string_length(k)};
}

static uint64_t key_hash(const raw_key *k) {
  if (!k->str) {
    uint64_t x = (uint64_t)k->num;
    unsigned char b[8]; /* its bytes, the least significant first */
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(x >> (8 * i));
    return mp_hash_more(MP_HASH_START, b, 8);
  }
  uint64_t h = mp_hash_more(MP_HASH_START, k->s, k->len);
  return h ^ 0x9e3779b97f4a7c15ULL; /* "1" and 1 differ */
}

static bool key_ok(json_t *k) { return json_is_integer(k) || json_is_string(k); }

static bool key_is(const node_key *a, const raw_key *k) {
  if (!a->str) return !k->str && k->num == a->num;
  return k->str && k->len == a->len && !memcmp(k->s, a->str, a->len);
}

static void keys_init(key_table *t, int n) {
  t->cap = 16;
  while (t->cap < 2 * (size_t)n) t->cap *= 2;
  t->slot = mp_xcalloc(t->cap, sizeof *t->slot);
  t->key = mp_xcalloc((size_t)(n ? n : 1), sizeof *t->key);
}

static void keys_destroy(key_table *t, int n) {
  for (int v = 0; v < n; v++) free(t->key[v].str);
  free(t->slot);
  free(t->key);
}

/* The node with key k, or -1. */
static int keys_find_raw(const key_table *t, const raw_key *k) {
  for (size_t i = key_hash(k) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    if (!t->slot[i]) return -1;
    if (key_is(&t->key[t->slot[i] - 1], k)) return t->slot[i] - 1;
  }
}

static int keys_find(const key_table *t, json_t *k) {
  if (!key_ok(k)) return -1;
  raw_key r = raw_of(k);
  return keys_find_raw(t, &r);
}

/* Insert node v's key k (v not yet in); false when the key is already there. */
static bool keys_add_raw(key_table *t, const raw_key *r, int v) {
  size_t i = key_hash(r) & (t->cap - 1);
  for (; t->slot[i]; i = (i + 1) & (t->cap - 1))
    if (key_is(&t->key[t->slot[i] - 1], r)) return false;
  node_key *a = &t->key[v];
  if (!r->str) {
    a->num = r->num;
  } else { /* NUL-free (jansson refuses \u0000, the plain reader any escape) */
    a->len = r->len;
    a->str = mp_xmalloc(r->len + 1);
    memcpy(a->str, r->s, r->len);
    a->str[r->len] = 0;
  }
  t->slot[i] = v + 1;
  return true;
}

static bool keys_add(key_table *t, json_t *k, int v) {
  raw_key r = raw_of(k);
  return keys_add_raw(t, &r, v);
}

/* A key for messages: the integer or the string as written. */
static const char *key_text(json_t *k, char *buf, size_t cap) {
  if (json_is_integer(k))
    snprintf(buf, cap, "%lld", (long long)json_integer_value(k));
  else if (json_is_string(k))
    snprintf(buf, cap, "\"%.60s\"", json_string_value(k));
  else
    snprintf(buf, cap, "(not an integer or a string)");
  return buf;
}

/* ---- the document's shape ---- */
/* Node attributes whose presence on some node steers the reading. */
enum { NL_MAX_PROBES = 12 };

typedef struct nl_doc {
  const char *path;
  mp_jdoc *doc;
  const char *links_key; /* "links" or "edges" */
  size_t n_nodes;
  json_t *graph;
  const char *probe[NL_MAX_PROBES]; /* attribute names asked about */
  bool has[NL_MAX_PROBES];          /* ... and whether some node has it */
  int n_probe;
  bool probed_all;                  /* every node looked at: has[] is final */
  const char *node_key, *src_key, *dst_key;
  const char *size_attr, *cost_attr;
  key_table keys;
  bool plain_nodes; /* nodes may be read as plain text (plain_nodes_ok) */
} nl_doc;

/* Node v in messages: by its position, as every reader numbers nodes
 * (README), with its key as written unless that is the same integer:
 * `node 1 (id "1")` and `node 1 (id 0)` (keys 1 and "1" are two nodes, as
 * in networkx: a bare "node 1" would not say which). */
static const char *node_text(const nl_doc *d, int v, char *buf, size_t cap) {
  const node_key *k = &d->keys.key[v];
  if (k->str)
    snprintf(buf, cap, "node %d (%s \"%.60s\")", v, d->node_key, k->str);
  else if (k->num != v)
    snprintf(buf, cap, "node %d (%s %lld)", v, d->node_key, (long long)k->num);
  else
    snprintf(buf, cap, "node %d", v);
  return buf;
}

static void add_probe(nl_doc *d, const char *attr) {
  if (attr && d->n_probe < NL_MAX_PROBES) d->probe[d->n_probe++] = attr;
}

/* Does some node have the probed attribute `attr`?  The nodes are decoded
 * one at a time, so the scan stops at the first node with it and notes the
 * other probes met on the way: the common files need a few nodes, and no
 * file more than one pass.  A syntax error reads as "no" (mp_jdoc_settle
 * reports it). */
static bool some_node_has(nl_doc *d, const char *attr) {
  int want = 0;
  while (want < d->n_probe && strcmp(d->probe[want], attr)) want++;
  if (want == d->n_probe) return false;
  mp_error ignored;
  for (size_t i = 0; i < d->n_nodes && !d->has[want] && !d->probed_all; i++) {
    json_t *o = mp_jdoc_elem(d->doc, "nodes", i, &ignored);
    if (!o) break;
    for (int k = 0; k < d->n_probe && json_is_object(o); k++)
      if (!d->has[k] && json_object_get(o, d->probe[k])) d->has[k] = true;
    if (i + 1 == d->n_nodes) d->probed_all = true;
  }
  return d->has[want];
}

/* The attribute named by the user, by the graph's tag, or the first of
 * `known` that some node has (NULL: none). */
static int pick_attr(nl_doc *d, const char *given, const char *tag, const char *const *known,
                     const char *flag, const char **out, mp_error *err) {
  *out = NULL;
  if (given) {
    if (!some_node_has(d, given) && d->n_nodes > 0)
      return mp_errorf(err, "%s: no node has the attribute '%s' (%s)", d->path, given, flag);
    *out = given;
    return 0;
  }
  json_t *t = d->graph ? json_object_get(d->graph, tag) : NULL;
  if (json_is_string(t) && some_node_has(d, json_string_value(t))) {
    *out = json_string_value(t);
    return 0;
  }
  for (int i = 0; known[i]; i++)
    if (some_node_has(d, known[i])) {
      *out = known[i];
      return 0;
    }
  return 0;
}

/* Every attribute read_shape asks some_node_has about. */
static void probe_attrs(nl_doc *d, const char *size_attr, const char *cost_attr) {
  static const char *const fixed[] = {"id", "name", "size", "cost_ram", "cost", "cost_cpu", "outputs"};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) add_probe(d, fixed[i]);
  add_probe(d, size_attr);
  add_probe(d, cost_attr);
  json_t *t1 = d->graph ? json_object_get(d->graph, "node_output_cost_tag") : NULL;
  json_t *t2 = d->graph ? json_object_get(d->graph, "node_duration_tag") : NULL;
  add_probe(d, json_string_value(t1)); /* NULL when no string */
  add_probe(d, json_string_value(t2));
}

static int read_shape(nl_doc *d, const char *size_attr, const char *cost_attr, mp_error *err) {
  if (!json_is_object(mp_jdoc_root(d->doc)))
    return mp_errorf(err, "%s: the top level is not a JSON object", d->path);
  d->links_key = mp_json_links_key(d->doc);
  if (!mp_jdoc_is_array(d->doc, "nodes") || !d->links_key)
    return mp_errorf(err, "%s: node-link JSON needs \"nodes\" and \"links\" (or \"edges\") arrays",
                     d->path);
  if (mp_jdoc_has(d->doc, "links") && mp_jdoc_has(d->doc, "edges"))
    return mp_errorf(err, "%s: both \"links\" and \"edges\": which are the edges? (node-link data "
                     "has one of them)", d->path);
  if (!mp_jdoc_is_array(d->doc, d->links_key))
    return mp_errorf(err, "%s: \"%s\" is not an array", d->path, d->links_key);
  json_t *dir = mp_jdoc_get(d->doc, "directed");
  if (dir && !json_is_boolean(dir))
    return mp_errorf(err, "%s: \"directed\" is not true or false", d->path);
  if (dir && !json_is_true(dir))
    return mp_errorf(err, "%s: an undirected graph (\"directed\": false): memplan needs the "
                     "direction of every edge", d->path);
  d->n_nodes = mp_jdoc_count(d->doc, "nodes");
  json_t *gr = mp_jdoc_get(d->doc, "graph");
  d->graph = json_is_object(gr) ? gr : NULL;
  if (d->n_nodes > MP_MAX_NODES) return mp_errorf(err, "%s: more than 2^28 nodes", d->path);
  probe_attrs(d, size_attr, cost_attr);
  d->node_key = !some_node_has(d, "id") && some_node_has(d, "name") ? "name" : "id";
  mp_error ignored; /* a syntax error: mp_jdoc_settle reports it */
  json_t *l0 = mp_jdoc_elem(d->doc, d->links_key, 0, &ignored);
  bool numbered = json_is_object(l0) && !json_object_get(l0, "source") && json_object_get(l0, "0");
  d->src_key = numbered ? "0" : "source";
  d->dst_key = numbered ? "1" : "target";
  static const char *const sizes[] = {"size", "cost_ram", NULL}, *const costs[] = {"cost", "cost_cpu", NULL};
  if (pick_attr(d, size_attr, "node_output_cost_tag", sizes, "--size-attr", &d->size_attr, err) ||
      pick_attr(d, cost_attr, "node_duration_tag", costs, "--cost-attr", &d->cost_attr, err))
    return -1;
  if (!d->size_attr && !some_node_has(d, "outputs") && d->n_nodes > 0)
    return mp_errorf(err, "%s: no node has a size attribute (size, cost_ram, or the graph's "
                     "node_output_cost_tag); name it with --size-attr NAME", d->path);
  return 0;
}

/* ---- numbers ---- */
static int bytes_of(json_t *x, const nl_doc *d, int v, const char *what, int64_t *out,
                    mp_error *err) {
  if (!x || json_is_null(x)) return 0;
  const char *why;
  int64_t b;
  char nb[96];
  double r = json_is_real(x) ? json_real_value(x) : 0;
  if (fabs(r) > (double)MP_MAX_SIZE) /* 1e30 was "not exact as a real" */
    return mp_errorf(err, "%s: %s: %s %g %s", d->path, node_text(d, v, nb, sizeof nb), what, r,
                     r < 0 ? "is negative" : "overflows (at most 2^56 bytes)");
  if (mp_json_exact_int(x, &b, &why))
    return mp_errorf(err, "%s: %s: %s is %s", d->path, node_text(d, v, nb, sizeof nb), what, why);
  if (b < 0)
    return mp_errorf(err, "%s: %s: negative %s %lld", d->path, node_text(d, v, nb, sizeof nb), what,
                     (long long)b);
  if (b > MP_MAX_SIZE)
    return mp_errorf(err, "%s: %s: %s %lld overflows (at most 2^56 bytes)", d->path,
                     node_text(d, v, nb, sizeof nb), what, (long long)b);
  *out = b;
  return 0;
}

/* An output index k of [j, k]: an integer in 0..2^31-1 (checked against
 * the node's outputs later). */
static int index_of(json_t *x, int *out, mp_error *err, const char *where, const char *path) {
  const char *why;
  int64_t k;
  if (mp_json_exact_int(x, &k, &why) || k < 0 || k > INT32_MAX) {
    char val[48];
    if (json_is_integer(x))
      snprintf(val, sizeof val, "%lld", (long long)json_integer_value(x));
    else if (json_is_real(x))
      snprintf(val, sizeof val, "%g", json_real_value(x));
    else
      snprintf(val, sizeof val, "(not a number)");
    return mp_errorf(err, "%s: %s: output index %s is not an index 0..2^31-1", path, where, val);
  }
  *out = (int)k;
  return 0;
}

/* ---- nodes ---- */
static int read_key(nl_doc *d, json_t *o, int v, mp_error *err) {
  char kb[96];
  if (!json_is_object(o)) return mp_errorf(err, "%s: nodes[%d] is not an object", d->path, v);
  json_t *k = json_object_get(o, d->node_key);
  if (!k) return mp_errorf(err, "%s: nodes[%d]: missing %s", d->path, v, d->node_key);
  if (!key_ok(k))
    return mp_errorf(err, "%s: nodes[%d]: the %s must be an integer or a string", d->path, v,
                     d->node_key);
  if (!keys_add(&d->keys, k, v))
    return mp_errorf(err, "%s: nodes[%d]: duplicate %s %s", d->path, v, d->node_key,
                     key_text(k, kb, sizeof kb));
  return 0;
}

/* graph.order, when present, is the given order. */
static int read_order(nl_doc *d, mp_graph *g, mp_error *err) {
  json_t *ord = d->graph ? json_object_get(d->graph, "order") : NULL;
  for (int v = 0; v < g->n; v++) g->given[v] = v;
  if (!ord) return 0;
  if (!json_is_array(ord) || json_array_size(ord) != (size_t)g->n)
    return mp_errorf(err, "%s: graph.order must list all %d nodes", d->path, g->n);
  char *seen = mp_xcalloc((size_t)(g->n ? g->n : 1), 1);
  char kb[96];
  int rc = 0;
  for (int i = 0; i < g->n && !rc; i++) {
    json_t *k = json_array_get(ord, (size_t)i);
    int v = keys_find(&d->keys, k);
    if (v < 0)
      rc = mp_errorf(err, "%s: graph.order[%d]: %s names no node", d->path, i, key_text(k, kb, sizeof kb));
    else if (seen[v])
      rc = mp_errorf(err, "%s: graph.order[%d]: node %s appears twice", d->path, i,
                     key_text(k, kb, sizeof kb));
    else
      seen[v] = 1, g->given[i] = v;
  }
  free(seen);
  return rc;
}

static int read_sizes(const nl_doc *d, json_t *o, int v, mp_node *nd, mp_bump *mem,
                      mp_error *err) {
  json_t *outs = json_object_get(o, "outputs"); /* several outputs (memplan's writer) */
  if (!outs || json_is_null(outs)) {
    nd->n_out = 1;
    nd->out_size = mp_bump_array(mem, 1, sizeof(int64_t));
    json_t *x = d->size_attr ? json_object_get(o, d->size_attr) : NULL;
    if (!x || json_is_null(x)) {
      char nb[96];
      return mp_errorf(err, "%s: %s: no %s%s%s (output bytes) and no outputs", d->path,
                       node_text(d, v, nb, sizeof nb), d->size_attr ? "'" : "size attribute",
                       d->size_attr ? d->size_attr : "", d->size_attr ? "'" : "");
    }
    return bytes_of(x, d, v, d->size_attr, &nd->out_size[0], err);
  }
  if (!json_is_array(outs) || json_array_size(outs) > INT32_MAX) {
    char nb[96];
    return mp_errorf(err, "%s: %s: outputs is not a list of sizes", d->path,
                     node_text(d, v, nb, sizeof nb));
  }
  nd->n_out = (int)json_array_size(outs);
  nd->out_size = mp_bump_array(mem, (size_t)nd->n_out, sizeof(int64_t));
  for (int k = 0; k < nd->n_out; k++)
    if (bytes_of(json_array_get(outs, (size_t)k), d, v, "outputs", &nd->out_size[k], err)) return -1;
  return 0;
}

static int read_alias(const nl_doc *d, json_t *o, int v, mp_node *nd, mp_error *err) {
  char nb[96];
  node_text(d, v, nb, sizeof nb);
  json_t *x = json_object_get(o, "alias");
  if (x && !json_is_null(x)) {
    nd->has_alias = true;
    nd->alias.out = MP_ALL_OUTPUTS;
    nd->alias.node = keys_find(&d->keys, x);
    bool param = json_is_integer(x) && json_integer_value(x) == -1;
    if (param && nd->alias.node >= 0)
      return mp_errorf(err, "%s: %s: alias -1 is ambiguous: node %d has the key -1, and alias "
                       "-1 means a parameter", d->path, nb, nd->alias.node);
    if (param)
      nd->alias.node = MP_PARAM_ALIAS;
    else if (nd->alias.node < 0)
      return mp_errorf(err, "%s: %s: alias names no node%s", d->path, nb,
                       json_is_real(x) && json_real_value(x) == -1.0
                           ? " (a parameter's alias is the integer -1, not -1.0)" : "");
    json_t *ao = json_object_get(o, "alias_output");
    if (ao && !json_is_null(ao) && index_of(ao, &nd->alias.out, err, nb, d->path))
      return -1;
  }
  x = json_object_get(o, "inplace");
  if (x && !json_is_null(x)) {
    if (!json_is_boolean(x)) return mp_errorf(err, "%s: %s: inplace is not a boolean", d->path, nb);
    nd->inplace = json_is_true(x);
  }
  if (nd->inplace && !nd->has_alias)
    return mp_errorf(err, "%s: %s: inplace without alias (which storage does it write?)",
                     d->path, nb);
  return 0;
}

/* DESIGN 6.1: the node's time and its phase. */
static int read_time(const nl_doc *d, json_t *o, int v, mp_node *nd, mp_error *err) {
  char nb[96];
  node_text(d, v, nb, sizeof nb);
  json_t *x = d->cost_attr ? json_object_get(o, d->cost_attr) : NULL;
  if (x && !json_is_null(x)) {
    if (!json_is_number(x))
      return mp_errorf(err, "%s: %s: %s is not a number", d->path, nb, d->cost_attr);
    if (json_number_value(x) < 0)
      return mp_errorf(err, "%s: %s: negative %s %g", d->path, nb, d->cost_attr,
                       json_number_value(x));
    nd->cost = json_number_value(x);
    nd->has_cost = true;
  }
  x = json_object_get(o, "phase");
  json_t *bw = json_object_get(o, "backward");
  if (x && !json_is_null(x)) {
    if (!json_is_string(x) || (nd->phase = mp_phase_parse(json_string_value(x))) < 0)
      return mp_errorf(err, "%s: %s: phase must be \"fwd\", \"bwd\" or \"opt\"", d->path, nb);
  } else if (json_is_boolean(bw)) {
    nd->phase = json_is_true(bw) ? MP_PHASE_BWD : MP_PHASE_FWD;
  }
  return 0;
}

static int read_node(const nl_doc *d, json_t *o, int v, mp_node *nd, mp_bump *mem,
                     mp_error *err) {
  nd->id = v;
  json_t *x = json_object_get(o, "name"), *k = json_object_get(o, d->node_key);
  nd->name = mp_bump_strdup(mem, json_is_string(x) ? json_string_value(x)
                                 : json_is_string(k) ? json_string_value(k) : "");
  x = json_object_get(o, "op");
  if (x && !json_is_null(x) && !json_is_string(x)) {
    char nb[96];
    return mp_errorf(err, "%s: %s: op is not a string", d->path, node_text(d, v, nb, sizeof nb));
  }
  nd->op = mp_bump_intern(mem, json_is_string(x) ? json_string_value(x) : "");
  nd->is_input = !strcmp(nd->op, "input");
  nd->is_output = !strcmp(nd->op, "output");
  if (read_sizes(d, o, v, nd, mem, err) ||
      bytes_of(json_object_get(o, "workspace"), d, v, "workspace", &nd->workspace, err) ||
      read_alias(d, o, v, nd, err) || read_time(d, o, v, nd, err))
    return -1;
  return 0;
}

/* ---- plain text: what the plain readers below accept ---- */
/* At a plain integer or string: the key, the byte after it. */
static const char *pl_key(const char *p, raw_key *k) {
  size_t n = mp_plain_str_len(p);
  if (n) {
    *k = (raw_key){true, 0, p + 1, n - 2};
    return p + n;
  }
  long long v;
  n = mp_plain_int_len(p, true, &v);
  *k = (raw_key){false, v, NULL, 0};
  return n ? p + n : NULL;
}

/* A node read straight from its text when it has the plain form of most
 * files: members among the key, "name", "op", the size and cost
 * attributes, "workspace" and "phase", each once, with plain values (no
 * escapes, non-negative numbers jansson reads the same), a size, and no
 * alias.  Decoding each of the 10^6 nodes with jansson took 2 s of a 3.2 s
 * read.  Anything else is declined before anything is written, and the
 * node goes through read_key and read_node as before (their messages). */
enum { PN_KEY = 1, PN_NAME = 2, PN_OP = 4, PN_SIZE = 8, PN_COST = 16, PN_WS = 32, PN_PHASE = 64 };

typedef struct plain_node {
  raw_key key;
  const char *name, *op; /* NULL: absent (or an op of null) */
  size_t name_len, op_len;
  long long size, workspace;
  double cost;
  bool has_cost;
  int phase;
} plain_node;

/* The members a plain node may have, in the order of the PN_ bits. */
enum { PN_NAMES = 7 };
static void node_names(const nl_doc *d, const char *names[PN_NAMES]) {
  const char *all[PN_NAMES] = {d->node_key, "name", "op", d->size_attr, d->cost_attr, "workspace", "phase"};
  memcpy(names, all, sizeof all);
}

/* Plain nodes only when the names the reader looks for are all distinct
 * (a size attribute named "cost", a key "name": jansson's path). */
static bool plain_nodes_ok(const nl_doc *d) {
  const char *names[PN_NAMES];
  node_names(d, names);
  if (!d->size_attr) return false;
  for (int i = 0; i < PN_NAMES; i++)
    for (int j = i + 1; j < PN_NAMES; j++)
      if (names[i] && names[j] && !strcmp(names[i], names[j])) return false;
  return true;
}

/* At a plain string, or null when null_ok: its text (NULL for null). */
static const char *pn_string(const char *p, bool null_ok, const char **s, size_t *len) {
  if (null_ok && !strncmp(p, "null", 4)) return (*s = NULL), p + 4;
  size_t n = mp_plain_str_len(p);
  if (!n || n - 2 >= MP_PLAIN_MAX_STR) return NULL;
  *s = p + 1;
  *len = n - 2;
  return p + n;
}

/* At a byte count at most MP_MAX_SIZE (or null when null_ok: 0). */
static const char *pn_bytes(const char *p, bool null_ok, long long *v) {
  if (null_ok && !strncmp(p, "null", 4)) return (*v = 0), p + 4;
  size_t n = mp_plain_int_len(p, false, v);
  return n && *v <= MP_MAX_SIZE ? p + n : NULL;
}

static const char *pn_value(const char *p, unsigned bit, void *xv) {
  plain_node *x = xv;
  const char *q, *s;
  size_t len;
  switch (bit) {
  case PN_KEY: return pl_key(p, &x->key);
  case PN_NAME: return pn_string(p, false, &x->name, &x->name_len);
  case PN_OP: return pn_string(p, true, &x->op, &x->op_len);
  case PN_SIZE: return pn_bytes(p, false, &x->size);
  case PN_WS: return pn_bytes(p, true, &x->workspace);
  case PN_COST:
    if (!strncmp(p, "null", 4)) return p + 4;
    return (x->has_cost = true), mp_plain_number(p, &x->cost);
  default: /* PN_PHASE */
    if (!(q = pn_string(p, true, &s, &len)) || !s) return q;
    return (x->phase = mp_plain_phase(s, len)) < 0 ? NULL : q;
  }
}

/* The node at p, read as plain; the byte after its '}', or NULL. */
static const char *plain_node_at(const nl_doc *d, const char *p, plain_node *x) {
  const char *names[PN_NAMES];
  node_names(d, names);
  unsigned seen;
  memset(x, 0, sizeof *x);
  p = mp_plain_object(p, names, PN_NAMES, pn_value, x, &seen);
  return p && (seen & (PN_KEY | PN_SIZE)) == (PN_KEY | PN_SIZE) ? p : NULL;
}

/* What read_node makes of it. */
static void plain_store(const plain_node *x, int v, mp_node *nd, mp_bump *mem) {
  nd->id = v;
  nd->name = x->name ? mp_plain_copy(mem, x->name, x->name_len, false)
             : x->key.str ? mp_plain_copy(mem, x->key.s, x->key.len, false) : mp_bump_strdup(mem, "");
  nd->op = x->op ? mp_plain_copy(mem, x->op, x->op_len, true) : mp_bump_intern(mem, "");
  nd->is_input = !strcmp(nd->op, "input");
  nd->is_output = !strcmp(nd->op, "output");
  nd->n_out = 1;
  nd->out_size = mp_bump_array(mem, 1, sizeof(int64_t));
  nd->out_size[0] = x->size;
  nd->workspace = x->workspace;
  nd->cost = x->cost;
  nd->has_cost = x->has_cost;
  nd->phase = x->phase;
}

/* Node v from its text, its key added (and, when `store`, the node made):
 * false when it is not plain or its key is a duplicate (nothing done). */
static bool read_plain_node(nl_doc *d, int v, bool store, mp_graph *g) {
  const char *text = d->plain_nodes ? mp_jdoc_next_text(d->doc, "nodes", (size_t)v) : NULL;
  plain_node x;
  const char *end = text ? plain_node_at(d, text, &x) : NULL;
  if (!end || (x.key.str && x.key.len >= MP_PLAIN_MAX_STR) || keys_find_raw(&d->keys, &x.key) >= 0 ||
      !mp_jdoc_took(d->doc, "nodes", (size_t)(end - text)))
    return false;
  keys_add_raw(&d->keys, &x.key, v);
  if (store) plain_store(&x, v, &g->nodes[v], &g->mem);
  return true;
}

/* An alias naming a key not seen yet (a later node, or none): the node
 * waits for the second pass, when every key is known. */
static bool alias_ahead(const nl_doc *d, json_t *o) {
  json_t *x = json_object_get(o, "alias");
  return x && !json_is_null(x) && keys_find(&d->keys, x) < 0 &&
         !(json_is_integer(x) && json_integer_value(x) == -1);
}

/* The nodes, decoded once (twice from the first node whose alias looks
 * ahead).  The messages come in the order of separate passes: every key,
 * then graph.order, then the first node whose attributes are wrong. */
static int read_nodes(nl_doc *d, mp_graph *g, mp_error *err) {
  keys_init(&d->keys, g->n);
  int resume = -1; /* the first node left for the second pass */
  int param = -1;  /* the first node of the first pass read with alias -1 */
  bool node_failed = false;
  mp_error node_err;
  d->plain_nodes = plain_nodes_ok(d);
  for (int v = 0; v < g->n; v++) {
    if (read_plain_node(d, v, !node_failed && resume < 0, g)) continue;
    json_t *o = mp_jdoc_elem(d->doc, "nodes", (size_t)v, err);
    if (!o || read_key(d, o, v, err)) return -1;
    if (node_failed || resume >= 0) continue;
    if (alias_ahead(d, o))
      resume = v;
    else if (read_node(d, o, v, &g->nodes[v], &g->mem, &node_err))
      node_failed = true;
    else if (param < 0 && g->nodes[v].has_alias && g->nodes[v].alias.node == MP_PARAM_ALIAS)
      param = v;
  }
  if (read_order(d, g, err)) return -1;
  /* alias -1 read before a later node with the key -1 (read_alias refuses
   * it once that key is known) */
  json_t *m1 = json_integer(-1);
  int key_m1 = param >= 0 ? keys_find(&d->keys, m1) : -1;
  json_decref(m1);
  char nb[96];
  if (key_m1 >= 0)
    return mp_errorf(err, "%s: %s: alias -1 is ambiguous: node %d has the key -1, and alias "
                     "-1 means a parameter", d->path, node_text(d, param, nb, sizeof nb), key_m1);
  for (int v = resume; resume >= 0 && v < g->n && !node_failed; v++) {
    json_t *o = mp_jdoc_elem(d->doc, "nodes", (size_t)v, err);
    if (!o) return -1;
    if (read_node(d, o, v, &g->nodes[v], &g->mem, &node_err)) node_failed = true;
  }
  if (node_failed) *err = node_err;
  return node_failed ? -1 : 0;
}

/* ---- links: inputs in link order ---- */

/* A link read straight from its text when it has the plain form most files
 * have: members among the two ends, "key" (a multigraph's) and memplan's
 * "output", each once, the ends plain integers or plain strings (no
 * escapes) that name nodes, "key" one of those too, "output" a plain index
 * or null.  Decoding each of the 3 x 10^6 links of a 10^6-node file with
 * jansson took half of its read.  Anything else (another member, a
 * duplicate, an escape, an end that names no node) is declined before
 * anything is written, and jansson decodes the link as before: the
 * messages stay those of link_by_jansson. */
enum { PL_SRC = 1, PL_DST = 2, PL_KEY = 4, PL_OUT = 8 };

typedef struct plain_link_t {
  raw_key src, dst;
  int out;
} plain_link_t;

/* The value of member `bit` at p; the byte after it, or NULL. */
static const char *pl_value(const char *p, unsigned bit, void *xv) {
  plain_link_t *x = xv;
  raw_key ignored;
  long long v;
  size_t n;
  switch (bit) {
  case PL_SRC: return pl_key(p, &x->src);
  case PL_DST: return pl_key(p, &x->dst);
  case PL_KEY: return pl_key(p, &ignored);
  default: /* PL_OUT */
    if (!strncmp(p, "null", 4)) return p + 4;
    n = mp_plain_int_len(p, false, &v);
    if (!n || v > INT32_MAX) return NULL;
    x->out = (int)v;
    return p + n;
  }
}

/* The link at p, read as plain; the byte after its '}', or NULL. */
static const char *plain_link(const nl_doc *d, const char *p, int *from, int *to, int *out) {
  const char *names[] = {d->src_key, d->dst_key, "key", "output"};
  plain_link_t x = {.out = MP_ALL_OUTPUTS};
  unsigned seen;
  p = mp_plain_object(p, names, 4, pl_value, &x, &seen);
  if (!p || (seen & (PL_SRC | PL_DST)) != (PL_SRC | PL_DST)) return NULL;
  *from = keys_find_raw(&d->keys, &x.src);
  *to = keys_find_raw(&d->keys, &x.dst);
  *out = x.out;
  return *from >= 0 && *to >= 0 ? p : NULL;
}

/* Link i decoded by jansson: its ends and output, or -1 with err set. */
static int link_by_jansson(const nl_doc *d, size_t i, int *from, int *to, int *out, mp_error *err) {
  char kb[96];
  json_t *l = mp_jdoc_elem(d->doc, d->links_key, i, err);
  if (!l) return -1;
  if (!json_is_object(l)) return mp_errorf(err, "%s: %s[%zu] is not an object", d->path, d->links_key, i);
  json_t *s = json_object_get(l, d->src_key), *t = json_object_get(l, d->dst_key);
  *from = keys_find(&d->keys, s);
  *to = keys_find(&d->keys, t);
  if (*from < 0 || *to < 0)
    return mp_errorf(err, "%s: %s[%zu]: %s %s names no node", d->path, d->links_key, i,
                     *from < 0 ? d->src_key : d->dst_key, key_text(*from < 0 ? s : t, kb, sizeof kb));
  json_t *lo = json_object_get(l, "output"); /* [j, k] input (memplan's writer) */
  *out = MP_ALL_OUTPUTS;
  if (lo && !json_is_null(lo)) {
    char w[48];
    snprintf(w, sizeof w, "%s[%zu]", d->links_key, i);
    return index_of(lo, out, err, w, d->path);
  }
  return 0;
}

/* Link i: from its text when plain, else by jansson. */
static int read_link(const nl_doc *d, size_t i, int *from, int *to, int *out, mp_error *err) {
  const char *text = mp_jdoc_next_text(d->doc, d->links_key, i);
  const char *end = text ? plain_link(d, text, from, to, out) : NULL;
  if (end && mp_jdoc_took(d->doc, d->links_key, (size_t)(end - text))) return 0;
  return link_by_jansson(d, i, from, to, out, err);
}

static int read_links(const nl_doc *d, mp_graph *g, mp_error *err) {
  size_t nl = mp_jdoc_count(d->doc, d->links_key);
  int *from = mp_xmalloc(sizeof(int) * (nl ? nl : 1)), *to = mp_xmalloc(sizeof(int) * (nl ? nl : 1));
  int *out = mp_xmalloc(sizeof(int) * (nl ? nl : 1));
  int rc = 0;
  for (size_t i = 0; i < nl && !rc; i++) {
    rc = read_link(d, i, &from[i], &to[i], &out[i], err);
    if (!rc && g->nodes[to[i]].n_in == INT32_MAX) rc = mp_errorf(err, "%s: too many links", d->path);
    if (!rc) g->nodes[to[i]].n_in++;
  }
  for (int v = 0; v < g->n; v++) {
    g->nodes[v].in = mp_bump_array(&g->mem, (size_t)g->nodes[v].n_in, sizeof(mp_ref));
    g->nodes[v].n_in = 0;
  }
  for (size_t i = 0; i < nl && !rc; i++) {
    mp_node *nd = &g->nodes[to[i]];
    nd->in[nd->n_in++] = (mp_ref){from[i], out[i]};
  }
  free(from);
  free(to);
  free(out);
  return rc;
}

mp_graph *mp_graph_from_nodelink(mp_jdoc *doc, const char *path, const char *size_attr,
                                 const char *cost_attr, mp_error *err) {
  nl_doc d = {.path = path, .doc = doc};
  if (read_shape(&d, size_attr, cost_attr, err)) return NULL;
  mp_graph *g = mp_xcalloc(1, sizeof *g);
  g->file = mp_xstrdup(path);
  json_t *nm = d.graph ? json_object_get(d.graph, "name") : NULL;
  g->name = json_is_string(nm) ? mp_xstrdup(json_string_value(nm)) : mp_file_stem(path, ".json");
  json_t *pb = d.graph ? json_object_get(d.graph, "param_bytes") : NULL;
  if (json_is_integer(pb)) g->param_bytes = json_integer_value(pb);
  json_t *hb = d.graph ? json_object_get(d.graph, "host_bandwidth") : NULL;
  if (hb && !json_is_null(hb)) {
    if (!json_is_number(hb) || !(json_number_value(hb) >= 0)) {
      mp_errorf(err, "%s: graph.host_bandwidth must be a non-negative number", path);
      mp_graph_destroy(g);
      return NULL;
    }
    g->host_bandwidth = json_number_value(hb);
  }
  g->n = (int)d.n_nodes;
  g->nodes = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(mp_node));
  g->given = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(int));
  int rc = read_nodes(&d, g, err);
  if (!rc) rc = read_links(&d, g, err);
  keys_destroy(&d.keys, g->n);
  if (rc) {
    mp_graph_destroy(g);
    return NULL;
  }
  return g;
}

mp_graph *mp_graph_read_nodelink(const char *path, const char *size_attr, const char *cost_attr,
                                 bool toposort, mp_error *err) {
  mp_jdoc *doc = mp_jdoc_open(path, mp_graph_stream_keys, err);
  if (!doc) return NULL;
  mp_graph *g = mp_graph_from_nodelink(doc, path, size_attr, cost_attr, err);
  return mp_graph_json_done(doc, g, toposort, err);
}
