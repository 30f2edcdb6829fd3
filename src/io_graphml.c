/* io_graphml.c - GraphML, read exactly with libxml2's streaming reader.
 *
 * Node data: the size attribute (--size-attr, default "size": output
 * bytes), op, name, alias (a node index in file order, -1 for a parameter
 * view, or a node id), inplace, workspace and the cost attribute
 * (--cost-attr, default "cost": the node's time, DESIGN 6.1).  Edge data:
 * output (k of an [j, k] input).  Node order is the given order, edge order
 * the input order.  <key> defaults apply.  Every node has a size: its own
 * data or the key's <default>; without either it is an error, not 0.
 *
 * Not igraph's reader, which cannot read exactly: it merges duplicate node
 * ids, invents a node for an edge end nobody declared, reads an undirected
 * graph with its edges turned around, and folds a NaN value into "absent".
 * Here each of those is an error naming the file and the line, as are
 * fractional sizes and output indices, several graphs and hyperedges.
 * Only elements of GraphML's namespace (or of none) count; a value read is
 * text only; edgedefault and directed take the schema's values; a key id
 * is declared once; an entity reference in a value is refused (not
 * expanded, the parser would drop it: "1&e;" read as 1). */
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <limits.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "io_util.h"
#include "util.h"

enum { A_SIZE, A_OP, A_NAME, A_ALIAS, A_INPLACE, A_WS, A_COST, A_OUTPUT, A_N };

typedef struct gml_elem { /* a node */
  char *id;
  int line;
  char *val[A_N];
} gml_elem;

/* An edge: kept small, as a graph has several per node.  An end names a
 * node declared before it by index (from/to, its string then NULL), a later
 * one by its id string (from/to -1). */
typedef struct gml_edge {
  char *src, *dst, *output;
  int from, to, line;
} gml_edge;

/* Node ids to indices, by hash (FNV-1a, open addressing), filled while the
 * file is read. */
typedef struct id_slot {
  const char *id;  /* the node's own string; NULL: a free slot */
  uint32_t hash;   /* compared before the strings; kept for growing */
  int node;
} id_slot;

typedef struct id_table {
  size_t cap, used;
  id_slot *slot;
} id_table;

typedef struct gml_key {
  char *id;
  int line;
  unsigned slots;       /* bit A_* set: the key feeds that slot (0: kept by nobody) */
  char *def;            /* <default> text, or NULL */
} gml_key;

typedef struct gml {
  const char *path;
  const char *names[A_N]; /* attribute names, per slot */
  gml_elem *nodes;
  gml_edge *edges;
  int n_nodes, n_edges, cap_nodes, cap_edges;
  id_table ids;
  int dup_node, dup_first; /* the first node whose id was declared before (-1: none) */
  gml_key *keys;
  int n_keys, cap_keys;
  id_table key_ids;     /* key ids to indices */
  const char *def[A_N]; /* each slot's <default> (find_defaults) */
  int graphs;
  gml_elem *cur;        /* the node whose <data> come next */
  gml_edge *cur_edge;   /* ... or the edge */
  gml_key *cur_key;     /* the <key> whose <default> comes next */
  char xml_err[256];    /* first libxml2 error */
  int xml_line;
  char gen_err[256];    /* what libxml2 wrote as generic errors (encodings, I/O) */
  bool gen_done;        /* ... its first line is complete */
  bool size_declared, cost_declared;
} gml;

static void on_xml_error(void *ctx, xmlErrorPtr e) {
  gml *p = ctx;
  if (p->xml_err[0] || !e || !e->message) return;
  snprintf(p->xml_err, sizeof p->xml_err, "%s", e->message);
  size_t n = strlen(p->xml_err);
  while (n && p->xml_err[n - 1] == '\n') p->xml_err[--n] = 0;
  p->xml_line = e->line;
}

static char *attr(xmlTextReaderPtr r, const char *name) {
  xmlChar *v = xmlTextReaderGetAttribute(r, (const xmlChar *)name);
  char *s = v ? mp_xstrdup((const char *)v) : NULL;
  xmlFree(v);
  return s;
}

/* libxml2's generic errors (an input its encoding cannot convert, say)
 * bypass the reader's handler: kept for the message, not printed. */
static void on_generic_error(void *ctx, const char *fmt, ...) {
  gml *p = ctx;
  size_t n = strlen(p->gen_err);
  if (p->gen_done || n + 1 >= sizeof p->gen_err) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->gen_err + n, sizeof p->gen_err - n, fmt, ap);
  va_end(ap);
  char *nl = strchr(p->gen_err, '\n'); /* its first line only */
  if (nl) *nl = 0, p->gen_done = true;
}

/* The first libxml2 error: the reader's, else the first generic line. */
static const char *xml_error_text(const gml *p) {
  return p->xml_err[0] ? p->xml_err : p->gen_err[0] ? p->gen_err : "XML error";
}

/* ---- node ids ---- */
static uint32_t id_hash(const char *s) {
  uint64_t h = mp_str_hash(s);
  return (uint32_t)(h ^ (h >> 32));
}

/* The slot holding s, or the free slot where it would go. */
static size_t id_lookup(const id_table *t, const char *s, uint32_t h) {
  size_t i = h & (t->cap - 1);
  while (t->slot[i].id && (t->slot[i].hash != h || strcmp(t->slot[i].id, s))) i = (i + 1) & (t->cap - 1);
  return i;
}

static int id_find(const id_table *t, const char *s) {
  if (!t->cap) return -1;
  size_t i = id_lookup(t, s, id_hash(s));
  return t->slot[i].id ? t->slot[i].node : -1;
}

static void id_grow(id_table *t) {
  id_table old = *t;
  t->cap = old.cap ? 2 * old.cap : 64;
  t->slot = mp_xcalloc(t->cap, sizeof *t->slot);
  for (size_t i = 0; i < old.cap; i++)
    if (old.slot[i].id) { /* ids in the table differ: the first free slot */
      size_t j = old.slot[i].hash & (t->cap - 1);
      while (t->slot[j].id) j = (j + 1) & (t->cap - 1);
      t->slot[j] = old.slot[i];
    }
  free(old.slot);
}

/* Put s (kept by the caller, not copied) for v: -1, or the entry that had
 * s already (then t is unchanged). */
static int id_put(id_table *t, const char *s, int v) {
  if (2 * (t->used + 1) > t->cap) id_grow(t);
  uint32_t h = id_hash(s);
  size_t i = id_lookup(t, s, h);
  if (t->slot[i].id) return t->slot[i].node;
  t->slot[i] = (id_slot){s, h, v};
  t->used++;
  return -1;
}

/* Node v's id; the first id declared twice is remembered for the message. */
static void id_add(gml *p, int v) {
  int first = id_put(&p->ids, p->nodes[v].id, v);
  if (first >= 0 && p->dup_node < 0) p->dup_node = v, p->dup_first = first;
}

static void *push(void *a, size_t size, int *n, int *cap) {
  if (*n == *cap) a = mp_xrealloc(a, size * (size_t)(*cap = *cap ? 2 * *cap : 64));
  memset((char *)a + size * (size_t)(*n)++, 0, size);
  return a;
}

/* An edge end: a node declared already by index, else its id. */
static void edge_end(gml *p, char **s, int *v) {
  *v = id_find(&p->ids, *s);
  if (*v >= 0) {
    free(*s);
    *s = NULL;
  }
}

/* Which slots a <key> feeds: node attributes for="node"/"all", output for
 * edges.  Several when --size-attr or --cost-attr names an attribute read
 * for itself too (--cost-attr name: the node's name and its time). */
static unsigned key_slots(const gml *p, const char *dom, const char *name) {
  if (!name) return 0;
  bool node = !dom || !strcmp(dom, "node") || !strcmp(dom, "all");
  bool edge = !dom || !strcmp(dom, "edge") || !strcmp(dom, "all");
  unsigned slots = 0;
  for (int a = 0; a < A_N; a++)
    if (p->names[a] && !strcmp(p->names[a], name) && (a == A_OUTPUT ? edge : node)) slots |= 1u << a;
  return slots;
}

/* The newlines in a text node's content. */
static long newlines(const xmlChar *t) {
  long k = 0;
  for (; t && *t; t++) k += *t == '\n';
  return k;
}

/* A node's line (xmlGetLineNo), else `line`.  Past line 65535 libxml2
 * keeps no line in an element: xmlGetLineNo gives that of its first child,
 * and a text child's line is where the text ends, so the newlines of a
 * leading text child are taken off (an element on line 70000 whose first
 * child is the "\n" after its start tag read 70001). */
static int node_line(xmlNodePtr n, int line) {
  long l = xmlGetLineNo(n);
  if (l > 65535 && n->type == XML_ELEMENT_NODE && n->line == 65535 && n->children &&
      n->children->type == XML_TEXT_NODE)
    l -= newlines(n->children->content);
  return l > 0 && l <= INT_MAX ? (int)l : line;
}

/* The line of the element the reader stands on.  The parser's own line
 * (xmlTextReaderGetParserLineNumber) is where its look-ahead has read to:
 * on a small file its last line, whatever element the error is about. */
static int reader_line(xmlTextReaderPtr r) {
  return node_line(xmlTextReaderCurrentNode(r), xmlTextReaderGetParserLineNumber(r));
}

static int on_key(gml *p, xmlTextReaderPtr r, mp_error *err) {
  /* grown by doubling: one realloc per key copied them all each time */
  p->keys = push(p->keys, sizeof *p->keys, &p->n_keys, &p->cap_keys);
  gml_key *k = &p->keys[p->n_keys - 1];
  char *dom = attr(r, "for"), *name = attr(r, "attr.name");
  k->id = attr(r, "id");
  k->line = reader_line(r);
  k->slots = key_slots(p, dom, name);
  k->def = NULL;
  if (k->slots & 1u << A_SIZE) p->size_declared = true;
  if (k->slots & 1u << A_COST) p->cost_declared = true;
  free(dom);
  free(name);
  if (!k->id) return mp_errorf(err, "%s:%d: a <key> without an id", p->path, k->line);
  /* a <data> names one key: with two of one id, which one it is is a guess;
   * looked up by hash, as every <data> is (a scan per <data> made 50000
   * keys and nodes a 20 s read) */
  int first = id_put(&p->key_ids, k->id, p->n_keys - 1);
  if (first >= 0)
    return mp_errorf(err, "%s:%d: <key id=\"%s\"> is declared twice (first on line %d)", p->path,
                     k->line, k->id, p->keys[first].line);
  p->cur_key = xmlTextReaderIsEmptyElement(r) ? NULL : k;
  return 0;
}

/* A value read is text: an element inside <data> (a foreign one, say) would
 * have its text run into the value's ("8<x:y>9</x:y>" read as 89). */
static int text_only(const gml *p, xmlTextReaderPtr r, int line, const char *attr_name,
                     mp_error *err) {
  if (xmlTextReaderIsEmptyElement(r)) return 0;
  xmlNodePtr n = xmlTextReaderExpand(r);
  if (!n) return mp_errorf(err, "%s:%d: not a readable GraphML file: %s", p->path, line,
                           xml_error_text(p));
  for (xmlNodePtr c = n->children; c; c = c->next) {
    /* entities are not expanded: "1&e;" would read as 1 (character
     * references and &amp; &lt; &gt; &quot; &apos; are text already) */
    if (c->type == XML_ENTITY_REF_NODE)
      return mp_errorf(err, "%s:%d: %s%s%s holds the entity reference &%s;: memplan does not expand "
                       "entities (write the value itself)", p->path,
                       node_line(n, line),
                       attr_name ? "the <data> of '" : "a <default>", attr_name ? attr_name : "",
                       attr_name ? "'" : "", (const char *)c->name);
    if (c->type == XML_ELEMENT_NODE)
      return mp_errorf(err, "%s:%d: %s%s%s holds an element <%s%s%s>: a value is text only",
                       p->path, node_line(c, line),
                       attr_name ? "the <data> of '" : "a <default>", attr_name ? attr_name : "",
                       attr_name ? "'" : "",
                       c->ns && c->ns->prefix ? (const char *)c->ns->prefix : "",
                       c->ns && c->ns->prefix ? ":" : "", (const char *)c->name);
  }
  return 0;
}

static int on_data(gml *p, xmlTextReaderPtr r, mp_error *err) {
  int line = reader_line(r);
  char *key = attr(r, "key");
  int ki = key ? id_find(&p->key_ids, key) : -1;
  unsigned slots = ki >= 0 ? p->keys[ki].slots : 0;
  if (ki < 0) {
    int rc = mp_errorf(err, "%s:%d: <data key=\"%s\"> names no declared <key>", p->path, line,
                       key ? key : "");
    free(key);
    return rc;
  }
  free(key);
  xmlChar *text = NULL;
  int rc = 0;
  for (int slot = 0; slot < A_N && !rc; slot++) {
    if (!(slots & 1u << slot)) continue;
    /* data nobody reads, graph data, a node key on an edge or back */
    char **dst = slot == A_OUTPUT ? (p->cur_edge ? &p->cur_edge->output : NULL)
                                  : (p->cur ? &p->cur->val[slot] : NULL);
    if (!dst) continue;
    if (*dst) {
      rc = mp_errorf(err, "%s:%d: %s given twice for one element", p->path, line, p->names[slot]);
      break;
    }
    if (!text && (rc = text_only(p, r, line, p->names[slot], err))) break;
    if (!text) text = xmlTextReaderReadString(r);
    *dst = mp_xstrdup(text ? (const char *)text : "");
  }
  xmlFree(text);
  return rc;
}

static int on_node(gml *p, xmlTextReaderPtr r, int line, mp_error *err) {
  /* refused here, as push's int counts would wrap long before the end */
  if (p->n_nodes >= MP_MAX_NODES) return mp_errorf(err, "%s:%d: more than 2^28 nodes", p->path, line);
  p->nodes = push(p->nodes, sizeof *p->nodes, &p->n_nodes, &p->cap_nodes);
  gml_elem *e = &p->nodes[p->n_nodes - 1];
  e->line = line;
  p->cur = xmlTextReaderIsEmptyElement(r) ? NULL : e;
  p->cur_edge = NULL; /* the <data> that follow are the node's */
  e->id = attr(r, "id");
  if (!e->id) return mp_errorf(err, "%s:%d: a <node> without an id", p->path, line);
  id_add(p, p->n_nodes - 1);
  return 0;
}

static int on_edge(gml *p, xmlTextReaderPtr r, int line, mp_error *err) {
  /* each edge is an input: the limit of mp_graph_finish */
  if (p->n_edges >= 1 << 28) return mp_errorf(err, "%s:%d: more than 2^28 edges", p->path, line);
  p->edges = push(p->edges, sizeof *p->edges, &p->n_edges, &p->cap_edges);
  gml_edge *e = &p->edges[p->n_edges - 1];
  e->line = line;
  p->cur_edge = xmlTextReaderIsEmptyElement(r) ? NULL : e;
  p->cur = NULL;
  e->src = attr(r, "source");
  e->dst = attr(r, "target");
  /* GraphML's schema: directed is an xs:boolean (true, false, 1, 0) */
  char *dir = attr(r, "directed");
  bool directed = !dir || !strcmp(dir, "true") || !strcmp(dir, "1");
  bool undirected = dir && (!strcmp(dir, "false") || !strcmp(dir, "0"));
  int rc = 0;
  if (!e->src || !e->dst)
    rc = mp_errorf(err, "%s:%d: an <edge> needs a source and a target", p->path, line);
  else if (undirected)
    rc = mp_errorf(err, "%s:%d: an undirected edge (directed=\"%s\")", p->path, line, dir);
  else if (!directed)
    rc = mp_errorf(err, "%s:%d: an edge with directed=\"%s\" (GraphML: true or false)", p->path,
                   line, dir);
  free(dir);
  if (rc) return rc;
  edge_end(p, &e->src, &e->from);
  edge_end(p, &e->dst, &e->to);
  return 0;
}

/* One element start: what it declares. */
static int on_element(gml *p, xmlTextReaderPtr r, const char *el, int depth, mp_error *err) {
  int line = reader_line(r);
  if (!strcmp(el, "key")) return on_key(p, r, err);
  if (!strcmp(el, "default") && p->cur_key) {
    int rc = text_only(p, r, line, NULL, err);
    if (rc) return rc;
    xmlChar *text = xmlTextReaderReadString(r);
    free(p->cur_key->def);
    p->cur_key->def = mp_xstrdup(text ? (const char *)text : "");
    xmlFree(text);
    return 0;
  }
  if (!strcmp(el, "graph")) {
    if (p->graphs++)
      return mp_errorf(err, "%s:%d: a second graph (nested or not): memplan reads one graph per "
                       "file", p->path, line);
    /* edgedefault: directed (also when absent) or undirected */
    char *ed = attr(r, "edgedefault");
    int rc = 0;
    if (ed && !strcmp(ed, "undirected"))
      rc = mp_errorf(err, "%s:%d: an undirected graph (edgedefault=\"undirected\"): memplan "
                     "needs the direction of every edge", p->path, line);
    else if (ed && strcmp(ed, "directed"))
      rc = mp_errorf(err, "%s:%d: edgedefault=\"%s\" (GraphML: directed or undirected)", p->path,
                     line, ed);
    free(ed);
    return rc;
  }
  if (!strcmp(el, "hyperedge") || !strcmp(el, "port"))
    return mp_errorf(err, "%s:%d: <%s> is not supported", p->path, line, el);
  if (!strcmp(el, "node") || !strcmp(el, "edge")) {
    if (!p->graphs) return mp_errorf(err, "%s:%d: <%s> outside a <graph>", p->path, line, el);
    return el[0] == 'n' ? on_node(p, r, line, err) : on_edge(p, r, line, err);
  }
  if (!strcmp(el, "data")) return on_data(p, r, err);
  (void)depth;
  return 0;
}

#define GRAPHML_NS "http://graphml.graphdrawing.org/xmlns"

/* Is the reader at an element of GraphML's namespace (or of none)?  The
 * node's own namespace, not the reader's copy (a look-up in its dictionary
 * each call); *known: the last namespace found to be GraphML's. */
static bool graphml_ns(xmlTextReaderPtr r, const xmlNs **known) {
  xmlNodePtr n = xmlTextReaderCurrentNode(r);
  if (!n || !n->ns || n->ns == *known) return true;
  if (!n->ns->href || strcmp((const char *)n->ns->href, GRAPHML_NS)) return false;
  *known = n->ns;
  return true;
}

/* A file with nothing but blanks (and a byte order mark) in it? */
static bool blank_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
  int c, i = 0;
  bool blank = true;
  while (blank && (c = getc(f)) != EOF) {
    blank = c == ' ' || c == '\t' || c == '\n' || c == '\r' || (i < 3 && c == bom[i]);
    i++;
  }
  fclose(f);
  return blank;
}

/* The elements in file order.  An element of another namespace is skipped
 * with all it holds (yEd's graphics, say), as is all a <data> holds after
 * its value: neither declares nodes or edges. */
static int parse_file(gml *p, mp_error *err) {
  /* libxml2 (2.9) sets up its per-thread globals on first use and asks for
   * xmlInitParser before threads share it: once, whichever thread is first */
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, xmlInitParser);
  /* BIG_LINES: an element's own line number stopped at 65535 without it */
  /* the caller's handler (a program linking libmemplan) comes back after */
  xmlGenericErrorFunc old_fn = xmlGenericError;
  void *old_ctx = xmlGenericErrorContext;
  xmlSetGenericErrorFunc(p, on_generic_error);
  xmlTextReaderPtr r = xmlReaderForFile(p->path, NULL, XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
  if (!r) {
    xmlSetGenericErrorFunc(old_ctx, old_fn);
    return mp_errorf(err, "%s: cannot open", p->path);
  }
  xmlTextReaderSetStructuredErrorHandler(r, on_xml_error, p);
  int rc = 0, ret = xmlTextReaderRead(r);
  bool root_seen = false;
  const xmlNs *known = NULL;
  while (!rc && ret == 1) {
    int type = xmlTextReaderNodeType(r);
    const char *el = (const char *)xmlTextReaderConstLocalName(r);
    bool skip = false;
    if (type == XML_READER_TYPE_ELEMENT) {
      bool ours = graphml_ns(r, &known);
      if (!root_seen && (strcmp(el, "graphml") || !ours))
        rc = mp_errorf(err, "%s:%d: not GraphML (the root element is <%s>%s%s)", p->path,
                       xmlTextReaderGetParserLineNumber(r), (const char *)xmlTextReaderConstName(r),
                       ours ? "" : " of the namespace ",
                       ours ? "" : (const char *)xmlTextReaderConstNamespaceUri(r));
      root_seen = true;
      skip = !ours || !strcmp(el, "data");
      if (!rc && ours) rc = on_element(p, r, el, xmlTextReaderDepth(r), err);
    } else if (type == XML_READER_TYPE_END_ELEMENT && graphml_ns(r, &known)) {
      if (!strcmp(el, "node") || !strcmp(el, "edge")) p->cur = NULL, p->cur_edge = NULL;
      if (!strcmp(el, "key")) p->cur_key = NULL;
    }
    if (!rc) ret = skip ? xmlTextReaderNext(r) : xmlTextReaderRead(r);
  }
  if (!rc && ret < 0 && !root_seen && blank_file(p->path))
    rc = mp_errorf(err, "%s: empty file (no <graphml> element)", p->path);
  int line = p->xml_line > 0 ? p->xml_line : xmlTextReaderGetParserLineNumber(r);
  if (!rc && ret < 0)
    rc = mp_errorf(err, "%s:%d: not a readable GraphML file: %s", p->path, line > 0 ? line : 1,
                   xml_error_text(p));
  if (!rc && !root_seen) rc = mp_errorf(err, "%s: not a GraphML file (no <graphml> element)", p->path);
  xmlFreeTextReader(r);
  xmlSetGenericErrorFunc(old_ctx, old_fn);
  return rc;
}

/* ---- values, exactly ---- */
/* Each slot's default: the <default> of the first key feeding it that has
 * one, found once (not per node and slot: keys x nodes). */
static void find_defaults(gml *p) {
  for (int slot = 0; slot < A_N; slot++)
    for (int i = 0; i < p->n_keys && !p->def[slot]; i++)
      if (p->keys[i].slots & 1u << slot && p->keys[i].def) p->def[slot] = p->keys[i].def;
}

static const char *key_default(const gml *p, int slot) { return p->def[slot]; }

static const char *value(const gml *p, const gml_elem *e, int slot) {
  return e->val[slot] ? e->val[slot] : p->def[slot];
}

/* Bytes: an integer, or a real with no fraction below 2^53.  Absent: 0
 * for the workspace; the size has no such fallback (only the key's
 * <default> stands in for it), as a 0 read for a forgotten size would plan
 * too small an arena. */
static int bytes_value(const gml *p, const gml_elem *e, int v, int slot, int64_t *out, mp_error *err) {
  const char *s = value(p, e, slot), *why;
  if (!s && slot == A_SIZE)
    return mp_errorf(err, "%s:%d: node %d (id \"%s\"): no '%s' data (output bytes) and its <key> "
                     "has no <default>", p->path, e->line, v, e->id, p->names[slot]);
  if (!s) return 0;
  int64_t x;
  double d;
  if (mp_parse_int64(s, &x, &why)) {
    if (mp_parse_real(s, &d, &why))
      return mp_errorf(err, "%s:%d: node %d: %s '%s' is %s", p->path, e->line, v, p->names[slot], s, why);
    if (d != floor(d))
      return mp_errorf(err, "%s:%d: node %d: fractional %s %s", p->path, e->line, v, p->names[slot], s);
    if (fabs(d) >= 9007199254740992.0)
      return mp_errorf(err, "%s:%d: node %d: %s %s overflows or is not exact (at most 2^56 bytes, "
                       "written as an integer)", p->path, e->line, v, p->names[slot], s);
    x = (int64_t)d;
  }
  if (x < 0) return mp_errorf(err, "%s:%d: node %d: negative %s %s", p->path, e->line, v, p->names[slot], s);
  if (x > MP_MAX_SIZE)
    return mp_errorf(err, "%s:%d: node %d: %s %s overflows (at most 2^56 bytes)", p->path, e->line,
                     v, p->names[slot], s);
  *out = x;
  return 0;
}

static int bool_value(const gml *p, const gml_elem *e, int v, bool *out, mp_error *err) {
  const char *s = value(p, e, A_INPLACE);
  if (!s) return 0;
  if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "1")) *out = true;
  else if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "0")) *out = false;
  else return mp_errorf(err, "%s:%d: node %d: inplace '%s' is not a boolean", p->path, e->line, v, s);
  return 0;
}

/* The first id declared twice, found while reading. */
static int check_ids(const gml *p, mp_error *err) {
  if (p->dup_node < 0) return 0;
  const gml_elem *e = &p->nodes[p->dup_node];
  return mp_errorf(err, "%s:%d: node id \"%s\" is declared twice (first as node %d)", p->path,
                   e->line, e->id, p->dup_first);
}

static int alias_value(const gml *p, const id_table *t, const gml_elem *e, int v, mp_node *nd,
                       mp_error *err) {
  const char *s = value(p, e, A_ALIAS), *why;
  if (!s || !*s) return 0;
  int64_t x;
  nd->has_alias = true;
  nd->alias.out = MP_ALL_OUTPUTS;
  if (!mp_parse_int64(s, &x, &why)) {
    if (x == -1) {
      nd->alias.node = MP_PARAM_ALIAS;
      return 0;
    }
    if (x < 0 || x >= p->n_nodes)
      return mp_errorf(err, "%s:%d: node %d: alias %s is out of range (node indices are 0..%d)",
                       p->path, e->line, v, s, p->n_nodes - 1);
    nd->alias.node = (int)x;
    return 0;
  }
  nd->alias.node = id_find(t, s);
  if (nd->alias.node < 0)
    return mp_errorf(err, "%s:%d: node %d: alias \"%s\" is neither a node index nor a node id",
                     p->path, e->line, v, s);
  return 0;
}

static int build_node(const gml *p, const id_table *t, int v, mp_node *nd, mp_bump *mem,
                      mp_error *err) {
  const gml_elem *e = &p->nodes[v];
  nd->id = v;
  nd->name = mp_bump_strdup(mem, value(p, e, A_NAME) ? value(p, e, A_NAME) : e->id);
  nd->op = mp_bump_intern(mem, value(p, e, A_OP) ? value(p, e, A_OP) : "");
  nd->is_input = !strcmp(nd->op, "input");
  nd->is_output = !strcmp(nd->op, "output");
  nd->n_out = 1;
  nd->out_size = mp_bump_array(mem, 1, sizeof(int64_t));
  if (bytes_value(p, e, v, A_SIZE, &nd->out_size[0], err) ||
      bytes_value(p, e, v, A_WS, &nd->workspace, err) || alias_value(p, t, e, v, nd, err) ||
      bool_value(p, e, v, &nd->inplace, err))
    return -1;
  const char *c = value(p, e, A_COST), *why;
  if (c) {
    if (mp_parse_real(c, &nd->cost, &why) || nd->cost < 0)
      return mp_errorf(err, "%s:%d: node %d: %s '%s' is not a non-negative number", p->path,
                       e->line, v, p->names[A_COST], c);
    nd->has_cost = true;
  }
  return 0;
}

static int build_edges(const gml *p, const id_table *t, mp_graph *g, mp_error *err) {
  int *from = mp_xmalloc(sizeof(int) * (size_t)(p->n_edges ? p->n_edges : 1));
  int *to = mp_xmalloc(sizeof(int) * (size_t)(p->n_edges ? p->n_edges : 1));
  int rc = 0;
  for (int i = 0; i < p->n_edges && !rc; i++) {
    const gml_edge *e = &p->edges[i];
    from[i] = e->src ? id_find(t, e->src) : e->from;
    to[i] = e->dst ? id_find(t, e->dst) : e->to;
    if (from[i] < 0 || to[i] < 0)
      rc = mp_errorf(err, "%s:%d: an edge %s \"%s\", which is not a declared node", p->path,
                     e->line, from[i] < 0 ? "from" : "to", from[i] < 0 ? e->src : e->dst);
    else
      g->nodes[to[i]].n_in++;
  }
  for (int v = 0; v < g->n; v++) {
    g->nodes[v].in = mp_bump_array(&g->mem, (size_t)g->nodes[v].n_in, sizeof(mp_ref));
    g->nodes[v].n_in = 0;
  }
  for (int i = 0; i < p->n_edges && !rc; i++) {
    const gml_edge *e = &p->edges[i];
    mp_ref ref = {from[i], MP_ALL_OUTPUTS};
    const char *s = e->output ? e->output : key_default(p, A_OUTPUT), *why;
    int64_t k;
    if (s && *s) {
      if (mp_parse_int64(s, &k, &why) || k < 0 || k > INT32_MAX) {
        rc = mp_errorf(err, "%s:%d: edge output '%s' is not an output index 0..2^31-1", p->path,
                       e->line, s);
        break;
      }
      ref.out = (int)k;
    }
    mp_node *nd = &g->nodes[to[i]];
    nd->in[nd->n_in++] = ref;
  }
  free(from);
  free(to);
  return rc;
}

static void free_values(gml_elem *e) {
  for (int a = 0; a < A_N; a++) {
    free(e->val[a]);
    e->val[a] = NULL;
  }
}

static void gml_destroy(gml *p) {
  for (int i = 0; i < p->n_nodes; i++) {
    free(p->nodes[i].id);
    free_values(&p->nodes[i]);
  }
  for (int i = 0; i < p->n_edges; i++) {
    free(p->edges[i].src);
    free(p->edges[i].dst);
    free(p->edges[i].output);
  }
  free(p->nodes);
  free(p->edges);
  free(p->ids.slot);
  free(p->key_ids.slot);
  for (int i = 0; i < p->n_keys; i++) {
    free(p->keys[i].id);
    free(p->keys[i].def);
  }
  free(p->keys);
}

static int check_attrs(const gml *p, const char *size_attr, const char *cost_attr, mp_error *err) {
  if (p->n_nodes > MP_MAX_NODES) return mp_errorf(err, "%s: more than 2^28 nodes", p->path);
  if (!p->size_declared && p->n_nodes > 0)
    return mp_errorf(err, "%s: no node attribute '%s'%s", p->path, p->names[A_SIZE],
                     size_attr ? " (--size-attr)" : " (output bytes; --size-attr NAME names another)");
  if (cost_attr && !p->cost_declared && p->n_nodes > 0)
    return mp_errorf(err, "%s: no node attribute '%s' (--cost-attr)", p->path, cost_attr);
  return 0;
}

mp_graph *mp_graph_read_graphml(const char *path, const char *size_attr, const char *cost_attr,
                                bool toposort, mp_error *err) {
  if (mp_check_input(path, err)) return NULL;
  gml p = {.path = path,
           .names = {size_attr ? size_attr : "size", "op", "name", "alias", "inplace",
                     "workspace", cost_attr ? cost_attr : "cost", "output"},
           .dup_node = -1};
  int rc = parse_file(&p, err);
  find_defaults(&p);
  if (!rc) rc = check_attrs(&p, size_attr, cost_attr, err);
  const id_table *t = &p.ids;
  if (!rc) rc = check_ids(&p, err);
  mp_graph *g = NULL;
  if (!rc) {
    g = mp_xcalloc(1, sizeof *g);
    g->file = mp_xstrdup(path);
    g->name = mp_file_stem(path, ".graphml");
    g->n = p.n_nodes;
    g->nodes = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(mp_node));
    g->given = mp_xcalloc((size_t)(g->n ? g->n : 1), sizeof(int));
    for (int v = 0; v < g->n; v++) g->given[v] = v;
    for (int v = 0; v < g->n && !rc; v++) {
      rc = build_node(&p, t, v, &g->nodes[v], &g->mem, err);
      free_values(&p.nodes[v]); /* as we go: the later allocations reuse their memory */
    }
    if (!rc) rc = build_edges(&p, t, g, err);
  }
  gml_destroy(&p); /* before the graph's own indexes: the peak is one of the two */
  if (!rc) rc = mp_graph_finish(g, toposort, err);
  if (rc) {
    mp_graph_destroy(g);
    return NULL;
  }
  return g;
}
