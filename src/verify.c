/* verify.c - the judge of plan files (verify.h).  Model headers only: it
 * never includes the solver interface and never runs a solver.  Event
 * plans (a plan with "events") are checked by verify_events.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"
#include "verify_int.h"

int mp_vf_count(mp_jdoc *plan, const char *key, int64_t want, mp_error *err) {
  json_t *v = mp_jdoc_get(plan, key);
  if (!v || json_is_null(v)) return 0;
  if (json_is_integer(v) ? json_integer_value(v) == want
                         : json_is_real(v) && want < ((int64_t)1 << 53) &&
                               want > -((int64_t)1 << 53) && json_real_value(v) == (double)want)
    return 0;
  if (!json_is_number(v)) return mp_errorf(err, "figure %s is not a number", key);
  if (json_is_integer(v))
    return mp_errorf(err, "figure %s: the plan says %lld, it recomputes to %lld", key,
                     (long long)json_integer_value(v), (long long)want);
  return mp_errorf(err, "figure %s: the plan says %.17g, it recomputes to %lld", key,
                   json_number_value(v), (long long)want);
}

int mp_vf_figure(mp_jdoc *plan, const char *key, double want, bool integer, mp_error *err) {
  json_t *v = mp_jdoc_get(plan, key);
  if (!v || json_is_null(v)) return 0;
  if (!json_is_number(v)) return mp_errorf(err, "figure %s is not a number", key);
  double got = json_number_value(v);
  if (integer ? got != want : fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
    return mp_errorf(err, "figure %s: the plan says %.12g, it recomputes to %.12g", key, got, want);
  return 0;
}

int mp_vf_stated(mp_jdoc *plan, const char *key, int64_t *out, mp_error *err) {
  json_t *v = mp_jdoc_get(plan, key);
  *out = -1;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_integer(v) || json_integer_value(v) < 0)
    return mp_errorf(err, "figure %s is not a non-negative integer", key);
  *out = json_integer_value(v);
  return 0;
}

int mp_vf_align(mp_jdoc *plan, int64_t align_override, int64_t *align, mp_error *err) {
  json_t *ja = mp_jdoc_get(plan, "align");
  double a = json_is_number(ja) ? json_number_value(ja) : 0;
  *align = 64;
  if (ja && !json_is_null(ja)) {
    /* a plan stating 0, a negative or a fractional A would pass every offset */
    if (!json_is_number(ja) || a != floor(a) || a < 1 || a > (double)MP_MAX_ALIGN)
      return mp_errorf(err, "\"align\" is not an alignment (an integer in [1, 2^30])");
    *align = (int64_t)a;
  }
  if (align_override > 0) *align = align_override;
  return 0;
}

static int verify_csv_plan(const mp_instance *in, const char *plan_path, int64_t align,
                           mp_plan_facts *out, mp_error *err) {
  mp_problem plan;
  if (mp_csv_read(plan_path, &plan, err)) return -1;
  const mp_problem *p = in->fixed;
  int rc = 0;
  if (plan.n != p->n) rc = mp_errorf(err, "%s: %d buffers, the problem has %d", plan_path, plan.n, p->n);
  int64_t *off = mp_xcalloc((size_t)(p->n ? p->n : 1), sizeof(int64_t));
  mp_problem q;
  mp_problem_copy(p, &q);
  for (int i = 0; i < p->n && !rc; i++) {
    /* rows match by id; files written by memplan keep the order */
    int j = i;
    if (strcmp(plan.ids[j], p->ids[i]) != 0)
      for (j = 0; j < plan.n && strcmp(plan.ids[j], p->ids[i]); j++) {
      }
    if (j == plan.n) {
      rc = mp_errorf(err, "%s: buffer %s has no row", plan_path, p->ids[i]);
      break;
    }
    if (plan.items[j].lo != p->items[i].lo || plan.items[j].hi != p->items[i].hi ||
        plan.items[j].size != p->items[i].size) {
      rc = mp_errorf(err, "%s: buffer %s: lifetime or size differ from the problem", plan_path,
                     p->ids[i]);
      break;
    }
    off[i] = plan.items[j].fixed;
    if (off[i] < 0) rc = mp_errorf(err, "%s: buffer %s has no offset", plan_path, p->ids[i]);
    if (align > 0 && !p->has_alignment_col) q.items[i].align = align;
  }
  if (!rc) rc = mp_verify_offsets(&q, off, err);
  if (!rc && out) {
    out->align = align > 0 && !p->has_alignment_col ? align : 0;
    out->nodes = -1;
    out->buffers = p->n;
    mp_evaluate(&q, off, 0, 0, &out->fig);
  }
  free(off);
  mp_problem_destroy(&q);
  mp_problem_destroy(&plan);
  return rc ? -1 : 0;
}

/* "order": every node once, in an order that respects every edge. */
static int read_order(const mp_graph *g, mp_jdoc *plan, int *order, mp_error *err) {
  if (!mp_jdoc_is_array(plan, "order") || mp_jdoc_count(plan, "order") != (size_t)g->n)
    return mp_errorf(err, "\"order\" must list all %d nodes", g->n);
  for (int i = 0; i < g->n; i++) {
    json_t *x = mp_jdoc_elem(plan, "order", (size_t)i, err);
    if (!json_is_integer(x)) return mp_errorf(err, "order position %d is not a node id", i);
    json_int_t id = json_integer_value(x);
    if (id < 0 || id >= g->n) /* before the cast: 2^32 must not pass as node 0 */
      return mp_errorf(err, "order position %d: %lld is not a node id", i, (long long)id);
    order[i] = (int)id;
  }
  mp_error e;
  if (mp_order_check(g, order, &e) >= 0) return mp_errorf(err, "%s", e.msg);
  return 0;
}

void mp_vf_slots_init(mp_vf_slots *s, int n, int64_t *off) {
  s->off = off;
  s->state = mp_xcalloc((size_t)(n ? n : 1), 1);
}

void mp_vf_slots_destroy(mp_vf_slots *s) { free(s->state); }

/* A member of "offsets" that names no buffer: -1 with err naming the key. */
static int unknown_key(const char *name, mp_error *err) {
  return mp_errorf(err, "offsets: key \"%.80s\" names no buffer of this graph (keys are \"J\", "
                        "\"J:K\" for output K of a node with several, \"ws:J\" for a workspace)",
                   name);
}

int mp_vf_slots_take(mp_vf_slots *s, int i, unsigned char which, json_t *v) {
  unsigned char names = s->state[i] & (MP_VF_MAIN | MP_VF_ALT);
  if (names && names != which) return -1; /* "J" and "J:0" both: which one holds? */
  s->state[i] = (unsigned char)(which | (json_is_integer(v) ? MP_VF_INT : 0));
  if (json_is_integer(v)) s->off[i] = json_integer_value(v);
  return 0;
}

/* The buffer whose key (mp_buffer_key) is `name` (*which MP_VF_MAIN), or
 * whose key and ":0" is (MP_VF_ALT: a single-output tensor's other name);
 * -1 when none.  The number parsed finds the one candidate; comparing its
 * key decides, so "05" or "5:00" name nothing, as with a lookup by key. */
static int buffer_of_name(const mp_graph *g, const char *name, unsigned char *which) {
  bool ws = strncmp(name, "ws:", 3) == 0;
  const char *s = ws ? name + 3 : name;
  if (*s < '0' || *s > '9') return -1;
  char *end;
  long j = strtol(s, &end, 10), k = 0;
  if (j >= g->n) return -1;
  if (!ws && *end == ':' && end[1] >= '0' && end[1] <= '9') k = strtol(end + 1, &end, 10);
  if (*end || (!ws && k >= g->nodes[j].n_out)) return -1;
  int b = ws ? g->ws_buf[j] : g->root_of[j][k];
  if (b < 0 || g->bufs[b].owner != j) return -1;
  char key[48];
  mp_buffer_key(g, b, key, sizeof key);
  *which = MP_VF_MAIN;
  if (!strcmp(key, name)) return b;
  bool alt = g->bufs[b].kind == MP_BUF_TENSOR && g->nodes[j].n_out == 1;
  *which = MP_VF_ALT;
  snprintf(key + strlen(key), sizeof key - strlen(key), ":0");
  return alt && !strcmp(key, name) ? b : -1;
}

typedef struct buffer_members {
  const mp_graph *g;
  mp_vf_slots slots;
} buffer_members;

static int take_buffer_member(void *ctx, const char *name, json_t *v, mp_error *err) {
  buffer_members *m = ctx;
  unsigned char which;
  int b = buffer_of_name(m->g, name, &which);
  if (b < 0) return unknown_key(name, err);
  if (!mp_vf_slots_take(&m->slots, b, which, v)) return 0;
  char key[48];
  mp_buffer_key(m->g, b, key, sizeof key);
  return mp_errorf(err, "offsets: keys \"%s\" and \"%s:0\" both name buffer %s", key, key, key);
}

/* "offsets": one integer per buffer, under its key ("J" may be "J:0"); a
 * name given twice counts with its last value, as in a whole-file parse; a
 * key that names no buffer is an error (a typo would otherwise pass). */
static int read_offsets(const mp_graph *g, mp_jdoc *plan, int64_t *off, mp_error *err) {
  if (!mp_jdoc_is_object(plan, "offsets")) return mp_errorf(err, "no \"offsets\" object");
  buffer_members m = {g, {0}};
  mp_vf_slots_init(&m.slots, g->n_buf, off);
  int rc = mp_jdoc_each_member(plan, "offsets", take_buffer_member, &m, err);
  for (int b = 0; b < g->n_buf && !rc; b++)
    if (!(m.slots.state[b] & MP_VF_INT)) {
      char key[48];
      mp_buffer_key(g, b, key, sizeof key);
      rc = mp_errorf(err, "buffer %s has no integer offset", key);
    }
  mp_vf_slots_destroy(&m.slots);
  return rc ? -1 : 0;
}

/* Every figure the plan states recomputes from the placement.  The lower
 * bound must be a possible one; reduction_vs_given recomputes from the
 * baseline arena the plan states (the judge runs no placer). */
int mp_vf_figures(const mp_graph *g, mp_jdoc *plan, const mp_problem *p, const int64_t *off,
                  int64_t least_lb, mp_figures *out, mp_error *err) {
  int64_t lb, given;
  if (mp_vf_stated(plan, "lower_bound", &lb, err) || mp_vf_stated(plan, "given_arena", &given, err))
    return -1;
  json_t *red = mp_jdoc_get(plan, "reduction_vs_given");
  if (given < 0 && red && !json_is_null(red))
    return mp_errorf(err, "figure reduction_vs_given cannot be checked: the plan states no given_arena");
  mp_figures f;
  mp_evaluate(p, off, lb < 0 ? 0 : lb, given < 0 ? 0 : given, &f);
  if (lb > f.live_peak)
    return mp_errorf(err, "lower_bound %lld exceeds the live peak %lld", (long long)lb, (long long)f.live_peak);
  if (lb > 0 && lb < least_lb)
    return mp_errorf(err, "lower_bound %lld is below the bound %lld that every plan meets",
                     (long long)lb, (long long)least_lb);
  int rc = mp_vf_count(plan, "live_peak", f.live_peak, err);
  if (!rc) rc = mp_vf_count(plan, "arena", f.arena, err);
  if (!rc) rc = mp_vf_count(plan, "sum_sizes", f.sum_sizes, err);
  if (!rc) rc = mp_vf_count(plan, "buffers", g->n_buf, err);
  if (!rc) rc = mp_vf_count(plan, "nodes", g->n, err);
  if (!rc) rc = mp_vf_figure(plan, "fragmentation", f.fragmentation, false, err);
  if (!rc) rc = mp_vf_figure(plan, "reuse_ratio", f.reuse_ratio, false, err);
  if (!rc) rc = mp_vf_figure(plan, "profile_std", f.profile_std, false, err);
  if (!rc) rc = mp_vf_figure(plan, "reduction_vs_noreuse", f.reduction_vs_noreuse, false, err);
  if (!rc) rc = mp_vf_figure(plan, "reduction_vs_given", f.reduction_vs_given, false, err);
  if (out) *out = f;
  return rc;
}

/* A plan stating "status": "optimal" states a bound its arena meets: the
 * plan's lower_bound, a stage's bound, or (an order not searched, the
 * scope of the proof then) the live peak.  The harness proves no optimum
 * with less (run_verdict.c); whether that bound is true the judge cannot
 * tell (it runs no solver), beyond lower_bound's own checks. */
static int check_optimal(mp_jdoc *plan, int64_t live, int64_t arena, mp_error *err) {
  json_t *st = mp_jdoc_get(plan, "status"), *os = mp_jdoc_get(plan, "order_status");
  if (!json_is_string(st) || strcmp(json_string_value(st), "optimal")) return 0;
  int64_t best = -1;
  if (mp_vf_stated(plan, "lower_bound", &best, err)) return -1;
  if (!json_is_string(os) || !strcmp(json_string_value(os), "fixed")) best = live > best ? live : best;
  json_t *stages = mp_jdoc_get(plan, "stages"), *s;
  size_t i;
  json_array_foreach(stages, i, s) {
    json_t *b = json_object_get(s, "bound");
    if (json_is_integer(b) && json_integer_value(b) > best) best = json_integer_value(b);
  }
  if (arena <= best) return 0;
  return mp_errorf(err, "status: \"optimal\", yet the arena %lld is above every bound the plan states "
                        "(%lld: lower_bound, the stages' bounds%s): nothing proves it",
                   (long long)arena, (long long)best,
                   json_is_string(os) && strcmp(json_string_value(os), "fixed") ? "" : ", the live peak");
}

/* A plan of an order (DESIGN 1.5): order, offsets, figures. */
static int verify_order_plan(const mp_graph *g, mp_jdoc *plan, int64_t align_override,
                             mp_plan_facts *out, mp_error *err) {
  int64_t align;
  if (mp_vf_align(plan, align_override, &align, err)) return -1;
  int *order = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)(g->n_buf ? g->n_buf : 1));
  mp_problem p = {0};
  int rc = read_order(g, plan, order, err);
  if (!rc) rc = read_offsets(g, plan, off, err);
  if (!rc) {
    mp_problem_from_order(g, order, align, &p);
    rc = mp_verify_offsets(&p, off, err);
    if (!rc) rc = mp_vf_figures(g, plan, &p, off, mp_node_lower_bound(g), out ? &out->fig : NULL, err);
    if (!rc) rc = check_optimal(plan, mp_live_peak(&p), mp_arena(&p, off), err);
    if (out) out->align = align;
  }
  mp_problem_destroy(&p);
  free(order);
  free(off);
  return rc ? -1 : 0;
}

/* The statuses a plan states are statuses: "status" one of DESIGN 1.3's,
 * each stage kind's one of mp_status_name's (those add "refused" and
 * "fixed"); absent or null is no claim. */
static int check_statuses(mp_jdoc *plan, mp_error *err) {
  static const char *const design[] = {"optimal", "feasible", "infeasible", "timeout", "error"};
  static const char *const kinds[] = {"status", "order_status", "remat_status", "place_status"};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    json_t *v = mp_jdoc_get(plan, kinds[k]);
    if (!v || json_is_null(v)) continue;
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    mp_status st;
    bool known = s && !mp_status_parse(s, &st);
    if (k == 0) {
      known = false;
      for (size_t d = 0; s && d < sizeof design / sizeof *design; d++) known |= !strcmp(s, design[d]);
    }
    if (known) continue;
    return mp_errorf(err, "%s: %s%.60s%s is not a status (%s)", kinds[k], s ? "\"" : "",
                     s ? s : "not a string", s ? "\"" : "",
                     k == 0 ? "optimal, feasible, infeasible, timeout or error"
                            : "optimal, feasible, infeasible, timeout, error, refused or fixed");
  }
  return 0;
}

/* A plan made for another graph: its node count tells at once; otherwise a
 * violation is prefixed with both names (a renamed copy still verifies). */
static int verify_graph_plan(const mp_instance *in, mp_jdoc *plan, int64_t align_override,
                             mp_plan_facts *out, mp_error *err) {
  const mp_graph *g = in->g;
  json_t *jg = mp_jdoc_get(plan, "graph"), *jn = mp_jdoc_get(plan, "nodes");
  const char *name = json_is_string(jg) ? json_string_value(jg) : NULL;
  bool other = name && strcmp(name, mp_instance_name(in)) != 0;
  if (json_is_integer(jn) && json_integer_value(jn) != g->n)
    return mp_errorf(err, "the graph does not match: the plan is for '%.100s' with %lld nodes, '%.100s' "
                          "has %d", name ? name : "?", (long long)json_integer_value(jn),
                     mp_instance_name(in), g->n);
  int rc = check_statuses(plan, err);
  if (!rc)
    rc = mp_jdoc_has(plan, "events") ? mp_vf_events_plan(g, plan, align_override, out, err)
                                     : verify_order_plan(g, plan, align_override, out, err);
  if (!rc && out) {
    out->nodes = g->n;
    out->buffers = g->n_buf;
  }
  if (rc && other) {
    mp_error why = *err;
    mp_errorf(err, "the graph does not match: the plan is for '%.100s', not '%.100s': %.280s", name,
              mp_instance_name(in), why.msg);
  }
  return rc;
}

/* A plan is read as json_load_file(path, 0) read it whole (a BOM skipped): a duplicate key
 * takes its last value, a syntax error is worded as then and wins over any
 * other error.  The big members are decoded one element at a time. */
static void plan_syntax_error(const char *path, const json_error_t *je, mp_error *err) {
  mp_errorf(err, "%s:%d: not valid JSON: %s", path, je->line, je->text);
}

static json_t *plan_load_whole(const char *path, mp_error *err) {
  json_error_t je;
  json_t *plan = mp_json_load_file(path, 0, &je);
  if (!plan) plan_syntax_error(path, &je, err);
  return plan;
}

static const mp_jdoc_style plan_style = {0, plan_load_whole, plan_syntax_error};
static const char *const plan_stream_keys[] = {"events", "order", "offsets", NULL};

mp_err mp_plan_verify(const mp_instance *in, const char *plan_path, int64_t align_override,
                      mp_error *err) {
  return mp_plan_verify_facts(in, plan_path, align_override, NULL, err);
}

mp_err mp_plan_verify_facts(const mp_instance *in, const char *plan_path, int64_t align_override,
                            mp_plan_facts *out, mp_error *err) {
  if (out) {
    memset(out, 0, sizeof *out);
    out->budget = -1;
  }
  if (mp_check_input(plan_path, err)) return MP_EINPUT; /* missing, or a directory */
  if (!in->g) return verify_csv_plan(in, plan_path, align_override, out, err) ? MP_EINPUT : MP_OK;
  mp_jdoc *plan = mp_jdoc_open_as(plan_path, plan_stream_keys, &plan_style, err);
  if (!plan) return MP_EINPUT;
  int rc = json_is_object(mp_jdoc_root(plan)) ? verify_graph_plan(in, plan, align_override, out, err)
                                              : mp_errorf(err, "not a plan object");
  if (mp_jdoc_settle(plan, err)) {
    rc = -1;
  } else if (rc) {
    mp_error why = *err;
    mp_errorf(err, "%.200s: %.300s", plan_path, why.msg);
  }
  mp_jdoc_destroy(plan);
  return rc ? MP_EINPUT : MP_OK;
}
