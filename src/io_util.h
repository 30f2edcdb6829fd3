/* io_util.h - what the readers in src/io_*.c share (not a public header):
 * opening an input, loading JSON, exact numbers, and the JSON-based graph
 * readers behind mp_graph_read_json / mp_graph_read_nodelink. */
#ifndef MP_IO_UTIL_H
#define MP_IO_UTIL_H

#include <jansson.h>
#include <string.h>

#include "graph.h"

/* Can `path` be read as an input?  Regular files, pipes and devices are
 * (read as streams); a directory or a missing file is an error naming it.
 * 0, or -1 with err set. */
int mp_check_input(const char *path, mp_error *err);

/* A JSON document, or NULL with a message naming the file, line and column. */
json_t *mp_json_load(const char *path, mp_error *err);
/* json_load_file(path, flags, je) with a UTF-8 byte order mark at the start
 * skipped (lines and columns count from after it), as every JSON file
 * memplan reads is read. */
json_t *mp_json_load_file(const char *path, size_t flags, json_error_t *je);

/* A JSON file whose top level is an object, with the arrays named in
 * `stream_keys` (NULL-terminated, at most 4) decoded one element at a time
 * instead of as one tree (io_jdoc.c).  Messages are those of mp_json_load. */
typedef struct mp_jdoc mp_jdoc;
mp_jdoc *mp_jdoc_open(const char *path, const char *const *stream_keys, mp_error *err);

/* How a document is judged and its syntax errors worded: `flags` of the
 * whole-file parse (JSON_REJECT_DUPLICATES or 0), `load` for a file the
 * scan cannot vouch for (read whole: NULL with err), `report` for a syntax
 * error found in a streamed value (line and column in the file's terms). */
typedef struct mp_jdoc_style {
  size_t flags;
  json_t *(*load)(const char *path, mp_error *err);
  void (*report)(const char *path, const json_error_t *je, mp_error *err);
} mp_jdoc_style;
/* The graph readers' (mp_jdoc_open's): mp_json_load and its messages. */
extern const mp_jdoc_style mp_jdoc_graph_style;
/* mp_jdoc_open in another style, without mp_check_input.  With duplicate
 * keys allowed (flags 0), a stream key naming an object streams its members
 * (mp_jdoc_each_member). */
mp_jdoc *mp_jdoc_open_as(const char *path, const char *const *stream_keys,
                         const mp_jdoc_style *style, mp_error *err);
void mp_jdoc_destroy(mp_jdoc *d);
/* A top-level value other than a streamed array (NULL for those: use the
 * calls below), borrowed. */
json_t *mp_jdoc_get(mp_jdoc *d, const char *key);
/* The top-level value itself: the document when it is no object. */
json_t *mp_jdoc_root(const mp_jdoc *d);
/* Is there a top-level member `key` (streamed or not, of any value)? */
bool mp_jdoc_has(mp_jdoc *d, const char *key);
bool mp_jdoc_is_array(mp_jdoc *d, const char *key);
bool mp_jdoc_is_object(mp_jdoc *d, const char *key);
/* An array's elements (an object's members when streamed). */
size_t mp_jdoc_count(mp_jdoc *d, const char *key);
/* Element i of a top-level array, borrowed until the next call for that key
 * (in order: one decode each; going back decodes from the start again).
 * NULL past the end, or on a syntax error (err set). */
json_t *mp_jdoc_elem(mp_jdoc *d, const char *key, size_t i, mp_error *err);
/* A caller that reads element i of a streamed array from its text itself:
 * the text from where the element starts (leading blanks included) to the
 * end of the file, NUL-terminated, when i is the next element to decode,
 * else NULL (then use mp_jdoc_elem). */
const char *mp_jdoc_next_text(mp_jdoc *d, const char *key, size_t i);
/* That element took `used` bytes of the text: true when a ',' or the
 * closing ']' follows as the scan expects (the element then counts as
 * decoded); false: nothing moved, decode it with mp_jdoc_elem. */
bool mp_jdoc_took(mp_jdoc *d, const char *key, size_t used);
/* How many elements mp_jdoc_took accepted (the tests: a plain element must
 * not fall back to jansson, which would only be slower). */
size_t mp_jdoc_taken(const mp_jdoc *d);
/* Plain scalars, the forms both the stream (a plan's order and offsets)
 * and the plain node reader (io_jnode.c) decode without jansson, and only
 * where jansson would make the same value of them.  At b (NUL-terminated
 * text): an integer of an optional '-' (when minus_ok) and at most 18
 * digits, no leading zero, no fraction or exponent after it, its length
 * (and *v), else 0; a string of printable ASCII without escapes, its
 * length with the quotes, else 0. */
size_t mp_plain_int_len(const char *b, bool minus_ok, long long *v);
size_t mp_plain_str_len(const char *b);
/* The plain object at b: each member's name is one of names[0..n) (NULL
 * entries match nothing), member k setting bit 1 << k in *seen, at most
 * once, its value read by `value` (the byte after it, or NULL); blanks
 * between tokens.  The byte after the '}', or NULL for anything else (an
 * empty object, an escape in a name, another name, a repeated one). */
typedef const char *mp_plain_value_fn(const char *p, unsigned bit, void *x);
/* Inline, so that each reader's loop calls its `value` directly (as an
 * exported function it made `memplan info` of a 10^6-node graph JSON file
 * 3-4% slower than the reader's own loop had been). */
static inline const char *mp_plain_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

static inline const char *mp_plain_object(const char *p, const char *const *names, int n,
                                          mp_plain_value_fn *value, void *x, unsigned *seen) {
  *seen = 0;
  p = mp_plain_ws(p);
  if (*p != '{') return NULL;
  p = mp_plain_ws(p + 1);
  for (;;) {
    size_t len = mp_plain_str_len(p);
    if (!len) return NULL;
    unsigned bit = 0;
    for (int k = 0; k < n && !bit; k++)
      if (names[k] && names[k][0] == p[1] && strlen(names[k]) == len - 2 && !memcmp(p + 1, names[k], len - 2))
        bit = 1u << k;
    if (!bit || (*seen & bit)) return NULL;
    *seen |= bit;
    p = mp_plain_ws(p + len);
    if (*p != ':') return NULL;
    if (!(p = value(mp_plain_ws(p + 1), bit, x))) return NULL;
    p = mp_plain_ws(p);
    if (*p == '}') return p + 1;
    if (*p != ',') return NULL;
    p = mp_plain_ws(p + 1);
  }
}

/* Plain strings the readers copy themselves are shorter than this; longer
 * ones are left to jansson. */
#define MP_PLAIN_MAX_STR 256
/* s[0..len) (len < MP_PLAIN_MAX_STR) copied into mem with its NUL,
 * interned when `intern`. */
char *mp_plain_copy(mp_bump *mem, const char *s, size_t len, bool intern);
/* The phase named by s[0..len) (len < MP_PLAIN_MAX_STR), or -1. */
int mp_plain_phase(const char *s, size_t len);
/* A non-negative plain number at b (an integer, or a real jansson reads
 * with strtod in the C locale): its value as json_number_value gives it
 * and the byte after it, else NULL. */
const char *mp_plain_number(const char *b, double *out);
/* Node idx of the graph JSON file d, the next element of its "nodes",
 * read from its text when it has the plain form (io_jnode.c) and what
 * follows it is what the scan expects; false: nothing was read or written,
 * decode it with mp_jdoc_elem and parse it as before. */
bool mp_json_plain_node(mp_jdoc *d, int idx, mp_graph *g, char *seen);
/* Does some element of the top-level array `key` have the member `member`?
 * Stops at the first that has; a streamed array whose bytes cannot hold
 * the name is not decoded at all.  A syntax error reads as "no"
 * (mp_jdoc_settle reports it). */
bool mp_jdoc_some_elem_has(mp_jdoc *d, const char *key, const char *member);
/* Call fn on every member of the top-level object `key` (borrowed name and
 * value), in file order; a duplicate name comes once per occurrence when
 * streamed, once with its last value when read whole.  0, or -1 when fn
 * returns nonzero (its err) or on a syntax error (err set). */
typedef int mp_jdoc_member_fn(void *ctx, const char *name, json_t *value, mp_error *err);
int mp_jdoc_each_member(mp_jdoc *d, const char *key, mp_jdoc_member_fn *fn, void *ctx,
                        mp_error *err);
/* Check the syntax of what was not decoded yet: 0, or -1 with err set to
 * the first syntax error of the file (which wins over any meaning error, as
 * with a whole-file parse; a reader may ignore a NULL from mp_jdoc_elem and
 * leave the message to this call). */
int mp_jdoc_settle(mp_jdoc *d, mp_error *err);

/* The keys the graph readers stream. */
extern const char *const mp_graph_stream_keys[];

/* The top-level key of node-link edges: "links", else "edges", else NULL. */
const char *mp_json_links_key(mp_jdoc *d);
/* networkx node-link data: a "nodes" array beside a "links" (or "edges")
 * key, and no node with "inputs" (a node with "inputs" makes the file
 * graph JSON, DESIGN 1.1, whose unknown keys are ignored). */
bool mp_json_is_nodelink(mp_jdoc *d);

/* Graphs from an open document (borrowed; its arrays are consumed), not
 * finished yet: mp_graph_json_done ends the read. */
mp_graph *mp_graph_from_json(mp_jdoc *d, const char *path, mp_error *err);
mp_graph *mp_graph_from_nodelink(mp_jdoc *d, const char *path, const char *size_attr,
                                 const char *cost_attr, mp_error *err);
/* The end of a graph's read from d (g: NULL when it failed, err set): the
 * rest of the file's syntax checked (a syntax error wins, as in a
 * whole-file parse), d closed before the graph builds its indexes (the
 * file's bytes and the indexes are not held at once), then g finished.
 * Consumes d and g; the graph, or NULL with err. */
mp_graph *mp_graph_json_done(mp_jdoc *d, mp_graph *g, bool toposort, mp_error *err);

/* A JSON value holding an integer exactly: a JSON integer, or a real with no
 * fraction below 2^53 (4.0; 2^53 and beyond a double may already have
 * rounded).  0, or -1 with *why ("not a number", "fractional", "not exact"). */
int mp_json_exact_int(json_t *v, int64_t *out, const char **why);

/* The file name without its directory and, when it ends so, `suffix`
 * (malloc'ed). */
char *mp_file_stem(const char *path, const char *suffix);

#endif
