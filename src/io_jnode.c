/* io_jnode.c - a graph JSON node read straight from its text when it has
 * the plain form most files use: the keys id, name, op, size, inputs (plain
 * node ids), cost, workspace and phase, each once, with unescaped ASCII
 * strings and non-negative numbers that jansson would decode to the same
 * values.  Decoding each node with jansson (a tree of a dozen allocations,
 * made and freed) was about a third of `memplan info` on 10^5 nodes.
 * Anything else -- another key, an escape, a sign, a value out of range, an
 * error of any kind -- is declined before anything is written, and the
 * caller decodes that node with jansson as before: messages and results
 * stay those of parse_node. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"
#include "util.h"


typedef struct jn_str {
  const char *s;
  size_t len;
} jn_str;

/* What a plain node holds, before anything is checked against the graph. */
typedef struct jn_node {
  long long id;
  jn_str name, op, phase;
  bool has_name, has_op, has_size, has_phase;
  long long size, workspace;
  double cost;
  bool has_cost;
  const char *inputs; /* the text after '[' */
  int n_in;
  unsigned seen_keys;
} jn_node;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* At '"': a plain string (mp_plain_str_len) shorter than MP_PLAIN_MAX_STR;
 * the byte after it. */
static const char *plain_string(const char *p, jn_str *out) {
  size_t n = mp_plain_str_len(p);
  if (!n || n - 2 >= MP_PLAIN_MAX_STR) return NULL;
  out->s = p + 1;
  out->len = n - 2;
  return p + n;
}

/* A non-negative plain integer (mp_plain_int_len, no sign); the byte
 * after it. */
static const char *plain_int(const char *p, long long *out) {
  size_t n = mp_plain_int_len(p, false, out);
  return n ? p + n : NULL;
}

/* A decimal [s, e) of digits, '.' and digits, with at most 15 digits in
 * all: its mantissa and 10^(fraction digits) are exact doubles, so their
 * quotient is the correctly rounded value strtod gives (costs are written
 * so; strtod took a tenth of `info`). */
static bool exact_decimal(const char *s, const char *e, double *out) {
  static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
                                 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  long long m = 0;
  int digits = 0, frac = -1;
  for (const char *p = s; p < e; p++) {
    if (*p == '.') {
      frac = 0;
      continue;
    }
    if (!is_digit(*p)) return false; /* an exponent */
    m = m * 10 + (*p - '0');
    if (++digits > 15) return false;
    frac += frac >= 0;
  }
  if (frac < 0) return false;
  *out = (double)m / pow10[frac];
  return true;
}

const char *mp_plain_number(const char *p, double *out) {
  const char *s = p;
  while (is_digit(*s)) s++;
  if (*s != '.' && *s != 'e' && *s != 'E') { /* an integer: json_integer */
    long long i;
    const char *q = plain_int(p, &i);
    if (q) *out = (double)i;
    return q;
  }
  s = p;
  if (!is_digit(*p) || (*p == '0' && is_digit(p[1]))) return NULL;
  while (is_digit(*p)) p++;
  if (*p == '.') {
    if (!is_digit(*++p)) return NULL;
    while (is_digit(*p)) p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!is_digit(*p)) return NULL;
    while (is_digit(*p)) p++;
  }
  if (p - s > 64) return NULL;
  if (exact_decimal(s, p, out)) return p;
  char tok[72], *end;
  memcpy(tok, s, (size_t)(p - s));
  tok[p - s] = 0;
  errno = 0;
  double d = strtod(tok, &end);
  if (errno || end != tok + (p - s) || !isfinite(d)) return NULL;
  *out = d;
  return p;
}

static const char *null_word(const char *p) { return strncmp(p, "null", 4) ? NULL : p + 4; }

/* At '[': plain node ids; the byte after ']'. */
static const char *plain_inputs(const char *p, jn_node *nd) {
  if (*p != '[') return NULL;
  nd->inputs = p + 1;
  nd->n_in = 0;
  p = mp_plain_ws(p + 1);
  if (*p == ']') return p + 1;
  for (;;) {
    long long a;
    if (!(p = plain_int(p, &a))) return NULL;
    if (nd->n_in == INT32_MAX) return NULL;
    nd->n_in++;
    p = mp_plain_ws(p);
    if (*p == ']') return p + 1;
    if (*p != ',') return NULL;
    p = mp_plain_ws(p + 1);
  }
}

enum { K_ID = 1, K_NAME = 2, K_OP = 4, K_SIZE = 8, K_INPUTS = 16, K_COST = 32, K_WS = 64,
       K_PHASE = 128 };

/* The value of key `bit` at p; the byte after it. */
static const char *member_value(const char *p, unsigned bit, void *x) {
  jn_node *nd = x;
  const char *q;
  switch (bit) {
  case K_ID: return plain_int(p, &nd->id);
  case K_NAME: return (nd->has_name = true), plain_string(p, &nd->name);
  case K_OP: return (nd->has_op = true), plain_string(p, &nd->op);
  case K_SIZE: return (nd->has_size = true), plain_int(p, &nd->size);
  case K_INPUTS: return plain_inputs(p, nd);
  case K_COST:
    if ((q = null_word(p))) return q;
    return (nd->has_cost = true), mp_plain_number(p, &nd->cost);
  case K_WS:
    if ((q = null_word(p))) return q;
    return plain_int(p, &nd->workspace);
  default: /* K_PHASE */
    if ((q = null_word(p))) return q;
    return (nd->has_phase = true), plain_string(p, &nd->phase);
  }
}

/* The node at p, read as plain (an empty object has no id: jansson's path
 * says so); the byte after its '}', or NULL. */
static const char *read_plain(const char *p, jn_node *nd) {
  static const char *const names[] = {"id", "name", "op", "size", "inputs", "cost", "workspace", "phase"};
  memset(nd, 0, sizeof *nd);
  return mp_plain_object(p, names, 8, member_value, nd, &nd->seen_keys);
}

/* Would parse_node accept it?  The checks it makes, without messages. */
static bool acceptable(const jn_node *nd, const mp_graph *g, const char *seen, int *phase) {
  if (!(nd->seen_keys & K_ID) || nd->id >= g->n || seen[nd->id]) return false;
  if (nd->has_size && nd->size > MP_MAX_SIZE) return false;
  if (nd->workspace > MP_MAX_SIZE) return false;
  *phase = MP_PHASE_NONE;
  if (nd->has_phase) {
    if ((*phase = mp_plain_phase(nd->phase.s, nd->phase.len)) < 0) return false;
  }
  const char *p = mp_plain_ws(nd->inputs ? nd->inputs : "]");
  for (int i = 0; i < nd->n_in; i++) {
    long long a;
    p = mp_plain_ws(plain_int(p, &a));
    if (a >= g->n) return false;
    p = mp_plain_ws(p + 1); /* the ',' or ']' */
  }
  return true;
}

char *mp_plain_copy(mp_bump *mem, const char *s, size_t len, bool intern) {
  char buf[MP_PLAIN_MAX_STR];
  memcpy(buf, s, len);
  buf[len] = 0;
  return intern ? mp_bump_intern(mem, buf) : mp_bump_strdup(mem, buf);
}

int mp_plain_phase(const char *s, size_t len) {
  char word[MP_PLAIN_MAX_STR];
  memcpy(word, s, len);
  word[len] = 0;
  return mp_phase_parse(word);
}

static void store(const jn_node *x, int idx, int phase, mp_graph *g, char *seen) {
  int v = (int)x->id;
  seen[v] = 1;
  g->given[idx] = v;
  mp_node *nd = &g->nodes[v];
  nd->id = v;
  jn_str empty = {"", 0};
  jn_str name = x->has_name ? x->name : empty, op = x->has_op ? x->op : empty;
  nd->name = mp_plain_copy(&g->mem, name.s, name.len, false);
  nd->op = mp_plain_copy(&g->mem, op.s, op.len, true);
  nd->is_input = strcmp(nd->op, "input") == 0;
  nd->is_output = strcmp(nd->op, "output") == 0;
  nd->n_out = 1;
  nd->out_size = mp_bump_array(&g->mem, 1, sizeof(int64_t));
  if (x->has_size) nd->out_size[0] = x->size;
  nd->n_in = x->n_in;
  nd->in = mp_bump_array(&g->mem, (size_t)nd->n_in, sizeof(mp_ref));
  const char *p = mp_plain_ws(x->inputs ? x->inputs : "]");
  for (int i = 0; i < nd->n_in; i++) {
    long long a;
    p = mp_plain_ws(plain_int(p, &a));
    nd->in[i].node = (int)a;
    nd->in[i].out = MP_ALL_OUTPUTS;
    p = mp_plain_ws(p + 1);
  }
  nd->workspace = x->workspace;
  nd->cost = x->has_cost ? x->cost : 0;
  nd->has_cost = x->has_cost;
  nd->phase = phase;
}

bool mp_json_plain_node(mp_jdoc *d, int idx, mp_graph *g, char *seen) {
  const char *text = mp_jdoc_next_text(d, "nodes", (size_t)idx);
  jn_node x;
  int phase;
  const char *end = text ? read_plain(text, &x) : NULL;
  if (!end || !acceptable(&x, g, seen, &phase) || !mp_jdoc_took(d, "nodes", (size_t)(end - text)))
    return false;
  store(&x, idx, phase, g, seen);
  return true;
}
