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

/* The plan's bytes go through a buffer of our own: a 10^6-node plan is
 * 33 MB of short entries, and fprintf and fputc per entry took about 0.25 s
 * of a 1.7 s solve (perf).  The figures ahead of the entries are jansson's
 * dump, written through it too. */
typedef struct pw {
  FILE *out;
  size_t n;
  char buf[1 << 16];
} pw;

static void pw_flush(pw *w) {
  if (w->n) fwrite(w->buf, 1, w->n, w->out);
  w->n = 0;
}

static void pw_mem(pw *w, const char *s, size_t n) {
  if (n > sizeof w->buf - w->n) {
    pw_flush(w);
    if (n > sizeof w->buf) {
      fwrite(s, 1, n, w->out);
      return;
    }
  }
  memcpy(w->buf + w->n, s, n);
  w->n += n;
}

static void pw_str(pw *w, const char *s) { pw_mem(w, s, strlen(s)); }

static void pw_char(pw *w, char c) {
  if (w->n == sizeof w->buf) pw_flush(w);
  w->buf[w->n++] = c;
}

static void pw_int(pw *w, int64_t v) {
  char t[24];
  pw_mem(w, t, (size_t)(mp_put_decimal(t, v) - t));
}

static void indent(pw *w, int depth) {
  for (int k = 0; k < depth; k++) pw_char(w, ' ');
}

/* Value v (its reference is taken) at `depth`: jansson's dump of it with
 * every line after the first indented by depth. */
static void put_json(pw *w, json_t *v, int depth) {
  char *s = json_dumps(v, PLAN_FLAGS | JSON_ENCODE_ANY);
  json_decref(v);
  for (const char *p = s ? s : "null"; *p; p++) {
    pw_char(w, *p);
    if (*p == '\n') indent(w, depth);
  }
  free(s);
}

/* A string as jansson writes it; the plain keys memplan makes (ids,
 * "J:k", "J@k", "ws:J@k") directly. */
static void put_string(pw *w, const char *s) {
  for (const char *p = s; *p; p++)
    if (*p < 0x20 || *p == '"' || *p == '\\' || (unsigned char)*p >= 0x7f) {
      put_json(w, json_string(s), 0);
      return;
    }
  pw_char(w, '"');
  pw_str(w, s);
  pw_char(w, '"');
}

/* Entry k of a member array or object at depth 1: its separator and indent. */
static void entry(pw *w, int k) {
  pw_str(w, k ? ",\n  " : "\n  ");
}

static void close_member(pw *w, int n, char open, char close) {
  if (n == 0) {
    pw_char(w, open);
    pw_char(w, close);
    return;
  }
  pw_str(w, "\n ");
  pw_char(w, close);
}

/* The member "name" after the figures, an array or object ('[' / '{') of
 * n entries: opened here, its bracket only when it has entries (an empty
 * one is written whole by close_member). */
static void member(pw *w, const char *name, int n, char open) {
  pw_str(w, ",\n \"");
  pw_str(w, name);
  pw_str(w, "\": ");
  if (n) pw_char(w, open);
}

static void put_order(pw *w, const int *order, int n) {
  member(w, "order", n, '[');
  for (int i = 0; i < n; i++) {
    entry(w, i);
    pw_int(w, order[i]);
  }
  close_member(w, n, '[', ']');
}

static void put_offset(pw *w, int k, const char *key, int64_t off) {
  entry(w, k);
  put_string(w, key);
  pw_str(w, ": ");
  pw_int(w, off);
}

/* DESIGN 1.5: the order and one offset per buffer, by its key. */
static void plan_of_order(pw *w, const mp_graph *g, const mp_result *r) {
  put_order(w, r->order, g->n);
  member(w, "offsets", g->n_buf, '{');
  char key[48];
  for (int b = 0; b < g->n_buf; b++) {
    mp_buffer_key(g, b, key, sizeof key);
    put_offset(w, b, key, r->offsets[b]);
  }
  close_member(w, g->n_buf, '{', '}');
}

/* With recomputation: the first-run order, one offset per residency (its
 * id: "J", "J@k" for one made by event k, "ws:J@k"), and the events, each
 * a pair [kind, node id] or [kind, buffer key]. */
static void plan_of_events(pw *w, const mp_graph *g, const mp_result *r) {
  int *first = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  mp_events_first_order(g, &r->remat.events, first); /* complete: the plan verified */
  put_order(w, first, g->n);
  free(first);
  member(w, "offsets", r->prob.n, '{');
  for (int i = 0; i < r->prob.n; i++) put_offset(w, i, r->prob.ids[i], r->offsets[i]);
  close_member(w, r->prob.n, '{', '}');
  const mp_events *p = &r->remat.events;
  member(w, "events", p->n, '[');
  char key[48];
  for (int i = 0; i < p->n; i++) {
    mp_event e = p->ev[i];
    entry(w, i);
    pw_str(w, "[\n   ");
    put_string(w, mp_event_kind_name(e.kind));
    pw_str(w, ",\n   ");
    if (e.kind == MP_EV_RUN) {
      pw_int(w, e.id);
    } else {
      mp_buffer_key(g, e.id, key, sizeof key);
      put_string(w, key);
    }
    pw_str(w, "\n  ]");
  }
  close_member(w, p->n, '[', ']');
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
  pw *w = mp_xmalloc(sizeof *w);
  w->out = out;
  w->n = 0;
  pw_mem(w, head, len - 2);
  free(head);
  if (r->has_remat)
    plan_of_events(w, in->g, r);
  else
    plan_of_order(w, in->g, r);
  pw_str(w, "\n}\n");
  pw_flush(w);
  free(w);
  return ferror(out) ? MP_EIO : MP_OK;
}
