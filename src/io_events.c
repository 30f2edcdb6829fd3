/* io_events.c - an event plan as the plan JSON's "events" array (DESIGN
 * 6.2): ["run", 5], ["free", "3"], ["out", "4:1"], ["in", "4:1"]; buffers
 * are named as in DESIGN 1.5. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "io_util.h"
#include "util.h"

/* The node or output number at s, as memplan writes it: digits, no sign,
 * space or leading zero; the end of it, or NULL.  Values past INT_MAX stop
 * (no id is that large). */
static const char *parse_number(const char *s, long *out) {
  if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9')) return NULL;
  long v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (v > INT_MAX / 10) return NULL;
    v = v * 10 + (*s - '0');
  }
  *out = v;
  return s;
}

/* "J" or "J:K" exactly: "01", "1:00" or "\t1" name nothing, as offsets'
 * keys (verify.c), so a mangled name is an error, not another buffer. */
int mp_buffer_parse(const mp_graph *g, const char *name) {
  long j, k = -1;
  const char *end = parse_number(name, &j);
  if (!end || j >= g->n) return -1;
  if (*end == ':' && !(end = parse_number(end + 1, &k))) return -1;
  if (*end) return -1;
  const mp_node *nd = &g->nodes[j];
  if (nd->has_alias) return -1; /* a view owns no storage */
  if (k < 0) {
    if (nd->n_out != 1) return -1; /* "J" names the only output */
    k = 0;
  }
  if (k >= nd->n_out) return -1;
  int b = g->root_of[j][k];
  return b >= 0 ? b : -1;
}

json_t *mp_events_to_json(const mp_graph *g, const mp_events *p) {
  json_t *arr = json_array();
  char key[48];
  for (int i = 0; i < p->n; i++) {
    mp_event e = p->ev[i];
    json_t *x;
    if (e.kind == MP_EV_RUN) {
      x = json_integer(e.id);
    } else {
      mp_buffer_key(g, e.id, key, sizeof key);
      x = json_string(key);
    }
    json_array_append_new(arr, json_pack("[so]", mp_event_kind_name(e.kind), x));
  }
  return arr;
}

int mp_event_from_json(const mp_graph *g, const json_t *x, int i, mp_event *e, mp_error *err) {
  if (!json_is_array(x) || json_array_size(x) != 2 || !json_is_string(json_array_get(x, 0)))
    return mp_errorf(err, "events[%d]: expected [\"run\", node] or [\"free\"|\"out\"|\"in\", "
                          "\"buffer\"]", i);
  const char *kind = json_string_value(json_array_get(x, 0));
  if (mp_event_kind_parse(kind, &e->kind))
    return mp_errorf(err, "events[%d]: unknown event \"%s\" (run, free, out, in)", i, kind);
  json_t *arg = json_array_get(x, 1);
  if (e->kind == MP_EV_RUN) {
    if (!json_is_integer(arg) || json_integer_value(arg) < 0 || json_integer_value(arg) >= g->n)
      return mp_errorf(err, "events[%d]: run takes a node id in 0..%d", i, g->n - 1);
    e->id = (int)json_integer_value(arg);
    return 0;
  }
  if (!json_is_string(arg))
    return mp_errorf(err, "events[%d]: %s takes a buffer name (\"J\" or \"J:K\")", i, kind);
  e->id = mp_buffer_parse(g, json_string_value(arg));
  if (e->id < 0)
    return mp_errorf(err, "events[%d]: \"%s\" names no tensor buffer of the graph", i,
                     json_string_value(arg));
  return 0;
}

int mp_events_from_json(const mp_graph *g, const json_t *arr, mp_events *p, mp_error *err) {
  mp_events_clear(p);
  if (!json_is_array(arr)) return mp_errorf(err, "\"events\" is not an array");
  for (size_t i = 0; i < json_array_size(arr); i++) {
    mp_event e;
    if (mp_event_from_json(g, json_array_get(arr, i), (int)i, &e, err)) return -1;
    mp_events_push(p, e.kind, e.id);
  }
  return 0;
}

int mp_events_read_file(const mp_graph *g, const char *path, mp_events *p, mp_error *err) {
  json_error_t je;
  json_t *root = mp_json_load_file(path, 0, &je);
  if (!root) return mp_errorf(err, "%s:%d: not valid JSON: %s", path, je.line, je.text);
  int rc = 0;
  json_t *arr = json_is_object(root) ? json_object_get(root, "events") : NULL;
  if (!arr) {
    rc = mp_errorf(err, "%s: no \"events\" array", path);
  } else if (mp_events_from_json(g, arr, p, err)) {
    rc = -1;
  }
  if (rc && err && !strstr(err->msg, path)) {
    char tmp[sizeof err->msg];
    snprintf(tmp, sizeof tmp, "%.200s: %.300s", path, err->msg);
    memcpy(err->msg, tmp, sizeof err->msg);
  }
  json_decref(root);
  return rc ? -1 : 0;
}
