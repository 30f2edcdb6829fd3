/* plan_write.c - plan files (DESIGN 1.5): the result's figures, then the
 * order, one offset per buffer (or residency) and, with recomputation, the
 * events.  Those three have an entry per node, buffer or event, so they are
 * written as they go rather than built as one jansson tree (which held about
 * 850 bytes per node at 10^5 nodes): the bytes are exactly those json_dumpf
 * writes for the whole document with PLAN_FLAGS (the small values are
 * jansson's own dumps, re-indented to their depth; every plan the unit
 * tests write is compared with jansson's dump of it: tl_check_plan_bytes). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

#define PLAN_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12))

static void indent(FILE *out, int depth) {
  for (int k = 0; k < depth; k++) fputc(' ', out);
}

/* Value v (its reference is taken) at `depth`: jansson's dump of it with
 * every line after the first indented by depth. */
static void put_json(FILE *out, json_t *v, int depth) {
  char *s = json_dumps(v, PLAN_FLAGS | JSON_ENCODE_ANY);
  json_decref(v);
  for (const char *p = s ? s : "null"; *p; p++) {
    fputc(*p, out);
    if (*p == '\n') indent(out, depth);
  }
  free(s);
}

/* A string as jansson writes it; the plain keys memplan makes (ids,
 * "J:k", "J@k", "ws:J@k") directly. */
static void put_string(FILE *out, const char *s) {
  for (const char *p = s; *p; p++)
    if (*p < 0x20 || *p == '"' || *p == '\\' || (unsigned char)*p >= 0x7f) {
      put_json(out, json_string(s), 0);
      return;
    }
  fprintf(out, "\"%s\"", s);
}

/* Entry k of a member array or object at depth 1: its separator and indent. */
static void entry(FILE *out, int k) {
  fputs(k ? ",\n" : "\n", out);
  indent(out, 2);
}

static void close_member(FILE *out, int n, char open, char close) {
  if (n == 0) {
    fprintf(out, "%c%c", open, close);
    return;
  }
  fputc('\n', out);
  indent(out, 1);
  fputc(close, out);
}

/* The member "name" after the figures, an array or object ('[' / '{') of
 * n entries: opened here, its bracket only when it has entries (an empty
 * one is written whole by close_member). */
static void member(FILE *out, const char *name, int n, char open) {
  fputs(",\n", out);
  indent(out, 1);
  fprintf(out, "\"%s\": ", name);
  if (n) fputc(open, out);
}

static void put_order(FILE *out, const int *order, int n) {
  member(out, "order", n, '[');
  for (int i = 0; i < n; i++) {
    entry(out, i);
    fprintf(out, "%d", order[i]);
  }
  close_member(out, n, '[', ']');
}

static void put_offset(FILE *out, int k, const char *key, int64_t off) {
  entry(out, k);
  put_string(out, key);
  fprintf(out, ": %lld", (long long)off);
}

/* DESIGN 1.5: the order and one offset per buffer, by its key. */
static void plan_of_order(FILE *out, const mp_graph *g, const mp_result *r) {
  put_order(out, r->order, g->n);
  member(out, "offsets", g->n_buf, '{');
  char key[48];
  for (int b = 0; b < g->n_buf; b++) {
    mp_buffer_key(g, b, key, sizeof key);
    put_offset(out, b, key, r->offsets[b]);
  }
  close_member(out, g->n_buf, '{', '}');
}

/* With recomputation: the first-run order, one offset per residency (its
 * id: "J", "J@k" for one made by event k, "ws:J@k"), and the events, each
 * a pair [kind, node id] or [kind, buffer key]. */
static void plan_of_events(FILE *out, const mp_graph *g, const mp_result *r) {
  int *first = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  mp_events_first_order(g, &r->remat.events, first); /* complete: the plan verified */
  put_order(out, first, g->n);
  free(first);
  member(out, "offsets", r->prob.n, '{');
  for (int i = 0; i < r->prob.n; i++) put_offset(out, i, r->prob.ids[i], r->offsets[i]);
  close_member(out, r->prob.n, '{', '}');
  const mp_events *p = &r->remat.events;
  member(out, "events", p->n, '[');
  char key[48];
  for (int i = 0; i < p->n; i++) {
    mp_event e = p->ev[i];
    entry(out, i);
    fputs("[\n", out);
    indent(out, 3);
    put_string(out, mp_event_kind_name(e.kind));
    fputs(",\n", out);
    indent(out, 3);
    if (e.kind == MP_EV_RUN) {
      fprintf(out, "%d", e.id);
    } else {
      mp_buffer_key(g, e.id, key, sizeof key);
      put_string(out, key);
    }
    fputc('\n', out);
    indent(out, 2);
    fputc(']', out);
  }
  close_member(out, p->n, '[', ']');
}

mp_err mp_plan_write(FILE *out, const mp_instance *in, const mp_result *r) {
  if (!r->has_figures) return MP_EUSAGE; /* no verified plan to write */
  if (!in->g) return mp_csv_write(out, &r->prob, r->offsets) ? MP_EIO : MP_OK;
  json_t *o = mp_result_json(in, r);
  char *head = json_dumps(o, PLAN_FLAGS);
  json_decref(o);
  if (!head) return MP_EIO;
  size_t len = strlen(head); /* "{\n ...\n}": the members go before "\n}" */
  if (len < 3 || strcmp(head + len - 2, "\n}") != 0) {
    free(head);
    return MP_EIO;
  }
  fwrite(head, 1, len - 2, out);
  free(head);
  if (r->has_remat)
    plan_of_events(out, in->g, r);
  else
    plan_of_order(out, in->g, r);
  fputs("\n}\n", out);
  return ferror(out) ? MP_EIO : MP_OK;
}
