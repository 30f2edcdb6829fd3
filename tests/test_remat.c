/* test_remat.c - plans with recomputation and offload (DESIGN 6): the
 * equivalence rule against src/lifetime.c on thousands of random graphs,
 * the verifier and evaluator against the independent oracle on random
 * valid plans and their mutations, every class of invalid plan with its
 * message, the time simulation by hand, the decisions of src/events.h,
 * budgets, costs, and the plan file's "events" array. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "gen.h"
#include "graph_write.h"
#include "oracle.h"
#include "oracle_remat.h"
#include "remat_randplan.h"
#include "testlib.h"

/* ---- conversions between the oracle's events and the model's ---- */

static int buffer_of(const mp_graph *g, int node, int out) {
  if (out < 0) return g->ws_buf[node];
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].kind == MP_BUF_TENSOR && g->bufs[b].owner == node && g->bufs[b].out == out)
      return b;
  return -1;
}

static void to_model(const mp_graph *g, const ox_event *ox, int n, mp_events *p) {
  mp_events_clear(p);
  for (int i = 0; i < n; i++)
    mp_events_push(p, (mp_event_kind)ox[i].kind,
                   ox[i].kind == OX_RUN ? ox[i].node : buffer_of(g, ox[i].node, ox[i].out));
}

static ox_event *to_oracle(const mp_graph *g, const mp_events *p) {
  ox_event *ox = malloc(sizeof(ox_event) * (size_t)(p->n + 1));
  for (int i = 0; i < p->n; i++) {
    mp_event e = p->ev[i];
    if (e.kind == MP_EV_RUN)
      ox[i] = (ox_event){OX_RUN, e.id, 0};
    else
      ox[i] = (ox_event){(int)e.kind, g->bufs[e.id].owner,
                         g->bufs[e.id].kind == MP_BUF_TENSOR ? g->bufs[e.id].out : -1};
  }
  return ox;
}

/* Random costs (tenths) on some nodes: cost given, as a file would. */
static void random_costs(mp_graph *g, mp_rng *r) {
  for (int v = 0; v < g->n; v++)
    if (mp_rng_below(r, 2)) {
      g->nodes[v].cost = (double)mp_rng_below(r, 50) / 10.0;
      g->nodes[v].has_cost = true;
    }
}

static bool near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)); }

/* ---- placing a problem with a registered placer ---- */

static int64_t *place(const mp_solver *s, const mp_problem *p) {
  mp_ctx c;
  memset(&c, 0, sizeof c);
  c.prob = p;
  c.align = 1;
  c.seed = 1;
  const char *const *sets = tl_quick_sets(s);
  int ns = 0;
  while (sets[ns]) ns++;
  mp_error err;
  ck_assert_int_eq(mp_solver_options(s, ns, sets, c.opt, &err), MP_OK);
  c.offsets = calloc((size_t)(p->n ? p->n : 1), sizeof(int64_t));
  c.status = MP_FEASIBLE;
  if (s->solve(&c) != 0) {
    free(c.offsets);
    return NULL;
  }
  return c.offsets;
}

/* Placers that see only the order of the endpoints (and the sizes), not
 * the lengths of the lifetimes: a strictly increasing renaming of times
 * gives them the same problem. */
static const char *const order_placers[] = {"noreuse", "firstfit", "bestfit", "bysize",
                                            "bysize-ff", "coloring", "pool", "bybreadth",
                                            "byconflicts"};

/* ---- the equivalence rule (DESIGN 6.2) ---- */

/* How the event plan's problem b relates to section 1's problem a (same
 * items, same order): every pair of endpoints keeps its order (monotone),
 * equal endpoints stay equal (consistent), and no two distinct endpoints
 * merge (strict: a renaming that every placer sees as the same problem). */
typedef struct relation {
  bool same_items, same_conflicts, monotone, consistent, strict, identical;
} relation;

static relation relate(const mp_problem *a, const mp_problem *b) {
  relation r = {a->n == b->n, true, true, true, true, true};
  if (!r.same_items) return r;
  int m = 2 * a->n;
  int64_t *x = malloc(sizeof(int64_t) * (size_t)(m + 1)), *y = malloc(sizeof(int64_t) * (size_t)(m + 1));
  for (int i = 0; i < a->n; i++) {
    r.same_items &= a->items[i].size == b->items[i].size && a->items[i].align == b->items[i].align;
    x[2 * i] = a->items[i].lo, y[2 * i] = b->items[i].lo;
    x[2 * i + 1] = a->items[i].hi, y[2 * i + 1] = b->items[i].hi;
    r.identical &= x[2 * i] == y[2 * i] && x[2 * i + 1] == y[2 * i + 1];
    for (int j = 0; j < i; j++) {
      const mp_item *p = &a->items[i], *q = &a->items[j], *pp = &b->items[i], *qq = &b->items[j];
      bool ca = p->lo < q->hi && q->lo < p->hi, cb = pp->lo < qq->hi && qq->lo < pp->hi;
      r.same_conflicts &= ca == cb;
    }
  }
  for (int p = 0; p < m; p++)
    for (int q = 0; q < m; q++) {
      if (x[p] < x[q]) {
        r.monotone &= y[p] <= y[q];
        r.strict &= y[p] < y[q];
      }
      if (x[p] == x[q]) r.consistent &= y[p] == y[q];
    }
  r.strict &= r.consistent && r.monotone;
  free(x);
  free(y);
  return r;
}

/* The inputs of `order` moved to its front (a topological order still:
 * inputs have no predecessors). */
static void inputs_first(const mp_graph *g, int *order) {
  int *tmp = malloc(sizeof(int) * (size_t)(g->n ? g->n : 1)), m = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < g->n; i++)
      if (g->nodes[order[i]].is_input == (pass == 0)) tmp[m++] = order[i];
  memcpy(order, tmp, sizeof(int) * (size_t)g->n);
  free(tmp);
}

static bool has_dead_input(const mp_graph *g) {
  for (int b = 0; b < g->n_buf; b++)
    if (g->bufs[b].born_at_start && g->bufs[b].n_readers == 0 && !g->bufs[b].graph_output)
      return true;
  return false;
}

static int count_inputs(const mp_graph *g) {
  int m = 0;
  for (int v = 0; v < g->n; v++) m += g->nodes[v].is_input;
  return m;
}

/* The placers that see only the order of endpoints give the same offsets
 * to both problems. */
static void same_offsets(const mp_problem *a, const mp_problem *b, const char *js) {
  for (size_t k = 0; k < sizeof order_placers / sizeof *order_placers; k++) {
    const mp_solver *s = mp_solver_find(order_placers[k]);
    if (!s) continue;
    int64_t *oa = place(s, a), *ob = place(s, b);
    ck_assert_msg(oa && ob, "%s failed", s->name);
    for (int i = 0; i < a->n; i++)
      ck_assert_msg(oa[i] == ob[i], "%s: item %d at %lld under the order, %lld in the event plan\n%s",
                    s->name, i, (long long)oa[i], (long long)ob[i], js);
    free(oa);
    free(ob);
  }
}

static void check_equivalence(mp_graph *g, const int *order, bool placers, const char *js,
                              int *strict_count, int *inputless_count) {
  mp_events p;
  mp_events_init(&p);
  mp_events_from_order(g, order, &p);
  mp_error err;
  ck_assert_msg(mp_events_verify(g, &p, 0, NULL, &err) == 0, "%s\n%s", err.msg, js);
  ck_assert_msg(mp_events_follow(g, &p, order), "first runs do not follow the order\n%s", js);
  mp_ev_figures f;
  mp_events_evaluate(g, &p, 0, 0, &f);
  ck_assert_int_eq(f.live_peak, mp_order_peak(g, order));
  ck_assert_msg(near(f.duration, mp_events_duration_floor(g)), "duration %g, runs %g", f.duration,
                mp_events_duration_floor(g));
  ck_assert_msg(f.stall_time == 0 && f.recomputed == 0 && f.recompute_time == 0 &&
                    f.transferred == 0, "a plan without copies or reruns stalls or recomputes\n%s", js);
  mp_problem a, b;
  mp_problem_from_order(g, order, 64, &a);
  mp_events_problem(g, &p, 64, &b, NULL);
  relation r = relate(&a, &b);
  ck_assert_msg(r.same_items && r.same_conflicts && r.monotone,
                "the residencies are not section 1's buffers under a monotone renaming\n%s", js);
  bool input_first = g->n == 0 || g->nodes[order[0]].is_input || count_inputs(g) == 0;
  if (input_first) ck_assert_msg(r.consistent, "renaming not a function\n%s", js);
  /* strict whenever the inputs come first and none is dead */
  bool front = true;
  for (int i = 0; i < count_inputs(g); i++) front &= g->nodes[order[i]].is_input;
  if (front && count_inputs(g) > 0 && count_inputs(g) < g->n && !has_dead_input(g))
    ck_assert_msg(r.strict, "inputs first, no dead input, yet the renaming is not strict\n%s", js);
  ck_assert_int_eq(mp_live_peak(&b), f.live_peak);
  ck_assert_int_eq(mp_sum_sizes(&b), mp_sum_sizes(&a));
  /* the profile is the sequence of samples; with one input run first it is
   * section 1's profile */
  int64_t *samples = malloc(sizeof(int64_t) * (size_t)(f.n_samples + 1)), *prof = mp_profile(&b);
  mp_events_memory(g, &p, samples);
  ck_assert_int_eq(b.t_end - b.t_begin, f.n_samples);
  for (int64_t t = 0; t < f.n_samples; t++) ck_assert_int_eq(prof[t], samples[t]);
  /* one input node, run first: the very same problem, so every placer
   * gives the same arena and the profile is section 1's */
  if (count_inputs(g) == 1 && g->nodes[order[0]].is_input) {
    ck_assert_msg(r.identical && a.t_end == b.t_end, "not section 1's problem\n%s", js);
    ck_assert_msg(mp_profile_std(&a) == mp_profile_std(&b), "profile std differs\n%s", js);
  }
  /* no input node: no start sample, so the profile is section 1's step by
   * step (one time later: time 0 stays the start) and so is its std-dev */
  if (count_inputs(g) == 0) {
    int64_t *pa = mp_profile(&a);
    ck_assert_msg(b.t_end - b.t_begin == a.t_end - a.t_begin, "%lld samples, %lld steps\n%s",
                  (long long)(b.t_end - b.t_begin), (long long)(a.t_end - a.t_begin), js);
    for (int64_t t = 0; t < a.t_end - a.t_begin; t++) ck_assert_int_eq(pa[t], prof[t]);
    ck_assert_msg(mp_profile_std(&a) == mp_profile_std(&b), "profile std %.17g, section 1 %.17g\n%s",
                  mp_profile_std(&b), mp_profile_std(&a), js);
    ++*inputless_count;
    free(pa);
  }
  if (r.strict) {
    ++*strict_count;
    if (placers) same_offsets(&a, &b, js);
  }
  free(samples);
  free(prof);
  mp_problem_destroy(&a);
  mp_problem_destroy(&b);
  mp_events_destroy(&p);
}

/* The graph's input nodes become ordinary source nodes ("zeros", the same
 * length as "input"): a graph without inputs, and so without a start
 * sample. */
static void drop_inputs(char *js) {
  for (char *p = js; (p = strstr(p, "\"op\":\"input\"")) != NULL; p += 13) memcpy(p + 6, "zeros", 5);
}

START_TEST(equivalence_rule) {
  mp_rng r;
  mp_rng_seed(&r, 6202);
  int trials = tl_trials(3000), strict = 0, inputless = 0;
  for (int t = 0; t < trials; t++) {
    int n = 1 + t % 14;
    char *js = tl_random_json(&r, n, TL_ALL);
    if (t % 5 == 4) drop_inputs(js);
    mp_graph *g = tl_graph(js);
    if (t % 2) random_costs(g, &r);
    or_model om;
    ck_assert_int_eq(or_build(g, &om), 0);
    int *order = malloc(sizeof(int) * (size_t)n);
    or_random_order(&om, &r, order);
    if (t % 3 == 0) inputs_first(g, order);
    check_equivalence(g, order, t % 10 == 0, js, &strict, &inputless);
    free(order);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  ck_assert_msg(strict > trials / 4, "only %d of %d cases had a strict renaming", strict, trials);
  ck_assert_msg(inputless >= trials / 5, "only %d of %d cases had no input node", inputless, trials);
  tl_cleanup();
}
END_TEST

/* ---- against the oracle ---- */

static void same_result(const mp_graph *g, const mp_events *p, const ox_result *o, double bw,
                        const char *js) {
  mp_ev_figures f;
  mp_events_evaluate(g, p, bw, 123, &f);
  ck_assert_int_eq(f.live_peak, o->peak);
  ck_assert_int_eq(f.n_samples, o->n_samples);
  int64_t *s = malloc(sizeof(int64_t) * (size_t)(f.n_samples + 1));
  mp_events_memory(g, p, s);
  for (int i = 0; i < o->n_samples; i++) ck_assert_int_eq(s[i], o->samples[i]);
  free(s);
  mp_ev_time *t = malloc(sizeof(mp_ev_time) * (size_t)(p->n + 1));
  ck_assert(mp_events_simulate(g, p, bw, t) == o->duration);
  for (int i = 0; i < p->n; i++)
    ck_assert_msg(t[i].issue == o->issue[i] && t[i].start == o->start[i] && t[i].end == o->end[i],
                  "event %d: issue/start/end %g %g %g, oracle %g %g %g\n%s", i, t[i].issue,
                  t[i].start, t[i].end, o->issue[i], o->start[i], o->end[i], js);
  free(t);
  ck_assert(f.duration == o->duration && f.base_time == o->base_time);
  ck_assert(f.recompute_time == o->recompute_time && f.recomputed == o->recomputed);
  ck_assert(f.stall_time == o->stall_time && f.transferred == o->transferred);
  ck_assert(f.budget == 123);
  ck_assert(isnan(o->overhead) ? isnan(f.overhead) : f.overhead == o->overhead);
  /* residencies: the same multiset of (buffer, size, lo, hi) */
  mp_problem pr;
  mp_residency *res;
  mp_events_problem(g, p, 1, &pr, &res);
  ck_assert_int_eq(pr.n, o->n_res);
  bool *used = calloc((size_t)pr.n + 1, sizeof(bool));
  for (int i = 0; i < pr.n; i++) {
    const mp_buffer *bb = &g->bufs[res[i].buf];
    int out = bb->kind == MP_BUF_TENSOR ? bb->out : -1;
    bool found = false;
    for (int j = 0; j < o->n_res && !found; j++)
      if (!used[j] && o->res[j].owner == bb->owner && o->res[j].out == out &&
          o->res[j].size == pr.items[i].size && o->res[j].lo == pr.items[i].lo &&
          o->res[j].hi == pr.items[i].hi)
        found = used[j] = true;
    ck_assert_msg(found, "residency %s [%lld, %lld) unknown to the oracle\n%s", pr.ids[i],
                  (long long)pr.items[i].lo, (long long)pr.items[i].hi, js);
  }
  free(used);
  free(res);
  mp_problem_destroy(&pr);
}

static void same_verdict(const mp_graph *g, const or_model *om, const mp_events *p, double bw,
                         const char *js) {
  ox_event *ox = to_oracle(g, p);
  ox_result o;
  ox_check(g, om, ox, p->n, bw, &o);
  mp_ev_violation v;
  mp_error err;
  int rc = mp_events_verify(g, p, bw, &v, &err);
  ck_assert_msg((rc == 0) == o.valid, "verifier %s, oracle %s (%s at %d)\n%s",
                rc ? err.msg : "valid", o.valid ? "valid" : "invalid", o.rule, o.bad_event, js);
  if (rc) {
    ck_assert_msg(v.event == o.bad_event && !strcmp(mp_ev_rule_name(v.rule), o.rule),
                  "verifier: %s; oracle: event %d, %s\n%s", err.msg, o.bad_event, o.rule, js);
    ck_assert_int_eq(v.node, o.bad_node);
    ck_assert_int_eq(v.buf >= 0 ? g->bufs[v.buf].owner : -1, o.bad_owner);
  } else {
    same_result(g, p, &o, bw, js);
  }
  ox_result_destroy(&o);
  free(ox);
}

/* One random change: drop, duplicate, swap or insert an event. */
static void mutate(const mp_graph *g, mp_rng *r, mp_events *p) {
  int n = p->n, k = n ? (int)mp_rng_below(r, (uint64_t)n) : 0;
  uint64_t what = n ? mp_rng_below(r, 4) : 3;
  if (what == 0) {
    memmove(p->ev + k, p->ev + k + 1, sizeof(mp_event) * (size_t)(n - k - 1));
    p->n--;
  } else if (what == 1 || what == 3) {
    mp_event e = {MP_EV_RUN, 0};
    if (n) e = p->ev[k];
    if (what == 3 || n == 0) {
      int kind = (int)mp_rng_below(r, 4);
      int tensors = 0;
      for (int b = 0; b < g->n_buf; b++) tensors += g->bufs[b].kind == MP_BUF_TENSOR;
      if (kind != MP_EV_RUN && tensors == 0) kind = MP_EV_RUN;
      e = (mp_event){(mp_event_kind)kind, kind == MP_EV_RUN ? (int)mp_rng_below(r, (uint64_t)g->n)
                                                            : (int)mp_rng_below(r, (uint64_t)tensors)};
    }
    mp_events_push(p, MP_EV_RUN, 0);
    memmove(p->ev + k + 1, p->ev + k, sizeof(mp_event) * (size_t)(p->n - k - 1));
    p->ev[k] = e;
  } else if (k + 1 < n) {
    mp_event t = p->ev[k];
    p->ev[k] = p->ev[k + 1];
    p->ev[k + 1] = t;
  }
}

START_TEST(oracle_random_plans) {
  mp_rng r;
  mp_rng_seed(&r, 6203);
  int trials = tl_trials(600), recomputes = 0, copies = 0, invalid = 0;
  for (int t = 0; t < trials; t++) {
    int n = 2 + t % 11;
    char *js = tl_random_json(&r, n, TL_ALL);
    mp_graph *g = tl_graph(js);
    if (t % 2) random_costs(g, &r);
    or_model om;
    ck_assert_int_eq(or_build(g, &om), 0);
    bool copy = t % 3 != 0;
    double bw = copy ? (double)(1 + mp_rng_below(&r, 4000)) / 4 : 0;
    ox_event *ox;
    int m = rp_random_plan(g, &om, &r, copy, &ox);
    ox_result o;
    ox_check(g, &om, ox, m, bw, &o);
    ck_assert_msg(o.valid, "the generator made a plan the oracle refuses: %s at %d\n%s", o.rule,
                  o.bad_event, js);
    recomputes += o.recomputed > 0;
    copies += o.transferred > 0;
    ox_result_destroy(&o);
    mp_events p;
    mp_events_init(&p);
    to_model(g, ox, m, &p);
    same_verdict(g, &om, &p, bw, js);
    for (int k = 0; k < 4; k++) { /* mutants: both judges agree on each */
      mp_events q;
      mp_events_init(&q);
      mp_events_copy(&q, &p);
      mutate(g, &r, &q);
      ox_event *qx = to_oracle(g, &q);
      ox_check(g, &om, qx, q.n, bw, &o);
      invalid += !o.valid;
      ox_result_destroy(&o);
      free(qx);
      same_verdict(g, &om, &q, bw, js);
      mp_events_destroy(&q);
    }
    mp_events_destroy(&p);
    free(ox);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  ck_assert_msg(recomputes > trials / 4 && copies > trials / 4 && invalid > trials,
                "too few recomputations (%d), copies (%d) or invalid mutants (%d)", recomputes,
                copies, invalid);
  tl_cleanup();
}
END_TEST

/* ---- every class of invalid plan, with its message ---- */

/* x -> a -> b (in place on a) -> c, and a tuple node t = split(x) whose
 * second output nobody reads. */
static const char *const small =
    "{\"name\":\"small\",\"nodes\":["
    "{\"id\":0,\"name\":\"x\",\"op\":\"input\",\"size\":100,\"inputs\":[]},"
    "{\"id\":1,\"name\":\"a\",\"size\":10,\"inputs\":[0],\"workspace\":7},"
    "{\"id\":2,\"name\":\"b\",\"size\":10,\"inputs\":[1],\"alias\":1,\"inplace\":true},"
    "{\"id\":3,\"name\":\"t\",\"outputs\":[20,30],\"inputs\":[0]},"
    "{\"id\":4,\"name\":\"c\",\"size\":40,\"inputs\":[2,[3,0]]}]}";

/* Parse a plan from its JSON text against g. */
static void plan_of(const mp_graph *g, const char *text, mp_events *p) {
  json_error_t je;
  json_t *arr = json_loads(text, 0, &je);
  ck_assert_msg(arr != NULL, "bad test plan %s", text);
  mp_error err;
  ck_assert_msg(mp_events_from_json(g, arr, p, &err) == 0, "%s: %s", text, err.msg);
  json_decref(arr);
}

static void refused(const mp_graph *g, const char *text, double bw, mp_ev_rule rule, int event,
                    const char *words) {
  mp_events p;
  mp_events_init(&p);
  plan_of(g, text, &p);
  mp_ev_violation v;
  mp_error err;
  ck_assert_msg(mp_events_verify(g, &p, bw, &v, &err) == -1, "%s was accepted", text);
  ck_assert_msg(v.rule == rule && v.event == event, "%s: got '%s' (rule %s, event %d)", text,
                err.msg, mp_ev_rule_name(v.rule), v.event);
  ck_assert_msg(strstr(err.msg, words) && strstr(err.msg, mp_ev_rule_name(rule)),
                "%s: message '%s' lacks '%s'", text, err.msg, words);
  mp_events_destroy(&p);
}

START_TEST(invalid_classes) {
  mp_graph *g = tl_graph(small);
  /* buffer ids: x=0, a=1, t:0=2, t:1=3, c=4 */
  const char *ok = "[[\"run\",1],[\"run\",2],[\"run\",3],[\"free\",\"3:1\"],[\"free\",\"0\"],"
                   "[\"run\",4],[\"free\",\"1\"],[\"free\",\"3:0\"]]";
  mp_events p;
  mp_events_init(&p);
  plan_of(g, ok, &p);
  mp_error err;
  ck_assert_msg(mp_events_verify(g, &p, 0, NULL, &err) == 0, "%s", err.msg);
  mp_events_destroy(&p);
  refused(g, "[[\"run\",0]]", 0, MP_EVR_INPUT_RUNS, 0, "node 0 is an input");
  refused(g, "[[\"run\",2]]", 0, MP_EVR_FIRST_ORDER, 0, "before the first run of node 1");
  refused(g, "[[\"run\",1],[\"run\",2],[\"run\",2]]", 0, MP_EVR_INPLACE_RERUN, 2, "runs again");
  refused(g, "[[\"run\",1],[\"run\",2],[\"run\",3],[\"run\",4],[\"free\",\"1\"],[\"run\",1]]", 0,
          MP_EVR_INPLACE_RERUN, 5, "node 1 runs again");
  refused(g, "[[\"run\",1],[\"out\",\"1\"]]", 5, MP_EVR_INPLACE_OUT, 1, "written in place");
  refused(g, "[[\"run\",1],[\"free\",\"1\"]]", 0, MP_EVR_INPLACE_FREE, 1, "node 2, which reads it");
  refused(g, "[[\"free\",\"0\"],[\"run\",1]]", 0, MP_EVR_READ_ABSENT, 1, "reads buffer 0");
  refused(g, "[[\"run\",1],[\"run\",2],[\"run\",3],[\"run\",3]]", 0, MP_EVR_ALREADY, 3,
          "still resident");
  refused(g, "[[\"free\",\"3:0\"]]", 0, MP_EVR_NOT_RESIDENT, 0, "not resident");
  refused(g, "[[\"run\",3],[\"free\",\"3:0\"],[\"out\",\"3:0\"]]", 5, MP_EVR_NOT_RESIDENT, 2,
          "not resident");
  refused(g, "[[\"in\",\"0\"]]", 5, MP_EVR_NO_HOST_COPY, 0, "no host copy");
  refused(g, "[[\"out\",\"0\"],[\"in\",\"0\"]]", 5, MP_EVR_ALREADY, 1, "already resident");
  refused(g, "[[\"out\",\"0\"]]", 0, MP_EVR_NO_LINK, 0, "bandwidth 0");
  refused(g, "[[\"run\",1],[\"run\",2],[\"run\",3]]", 0, MP_EVR_NOT_RUN, 3, "node 4 (c) never runs");
  refused(g, "[[\"run\",1],[\"run\",2],[\"run\",3],[\"run\",4],[\"free\",\"4\"]]", 0,
          MP_EVR_OUTPUT_ABSENT, 5, "graph output 4");
  /* ids that name nothing the events may name */
  mp_events q;
  mp_events_init(&q);
  mp_ev_violation v;
  mp_events_push(&q, MP_EV_RUN, 9);
  ck_assert(mp_events_verify(g, &q, 0, &v, &err) == -1 && v.rule == MP_EVR_BAD_ID);
  mp_events_clear(&q);
  mp_events_push(&q, MP_EV_FREE, g->ws_buf[1]);
  ck_assert(mp_events_verify(g, &q, 0, &v, &err) == -1 && v.rule == MP_EVR_BAD_ID);
  ck_assert_msg(strstr(err.msg, "ws:1") && strstr(err.msg, "workspace"), "%s", err.msg);
  /* one past the last node and the last buffer (an API caller's events:
   * the plan reader checks its own) */
  mp_events_clear(&q);
  mp_events_push(&q, MP_EV_RUN, g->n);
  ck_assert(mp_events_verify(g, &q, 0, &v, &err) == -1 && v.rule == MP_EVR_BAD_ID);
  char want[64];
  snprintf(want, sizeof want, "%d is not a node id", g->n);
  ck_assert_msg(strstr(err.msg, want), "%s", err.msg);
  mp_events_clear(&q);
  mp_events_push(&q, MP_EV_FREE, g->n_buf);
  ck_assert(mp_events_verify(g, &q, 0, &v, &err) == -1 && v.rule == MP_EVR_BAD_ID);
  snprintf(want, sizeof want, "%d is not a buffer id", g->n_buf);
  ck_assert_msg(strstr(err.msg, want), "%s", err.msg);
  mp_events_destroy(&q);
  mp_graph_destroy(g);
  /* a node without a name is named by its id alone */
  g = tl_graph("{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":4,\"inputs\":[]},"
               "{\"id\":1,\"size\":4,\"inputs\":[0]}]}");
  mp_events_init(&q);
  ck_assert(mp_events_verify(g, &q, 0, &v, &err) == -1 && v.rule == MP_EVR_NOT_RUN);
  ck_assert_msg(strstr(err.msg, "node 1 never runs") && !strstr(err.msg, "runs)"), "%s", err.msg);
  mp_events_destroy(&q);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* DESIGN 1.1: a graph with no nodes is valid and every figure is 0, the
 * figures of 6.3 too: its only plan is empty, base_time 0, duration 0, and
 * overhead 0 (not 0/0: a base_time of 0 leaves overhead undefined only
 * when some node exists). */
START_TEST(empty_graph_events) {
  mp_graph *g = tl_graph("{\"nodes\":[]}");
  mp_events p;
  mp_events_init(&p);
  mp_error err;
  ck_assert_msg(mp_events_verify(g, &p, 0, NULL, &err) == 0, "%s", err.msg);
  mp_ev_figures f;
  mp_events_evaluate(g, &p, 0, 0, &f);
  ck_assert(f.live_peak == 0 && f.duration == 0 && f.base_time == 0 && f.stall_time == 0);
  ck_assert_msg(f.overhead == 0.0, "overhead %g", f.overhead);
  mp_events_destroy(&p);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- time, by hand ---- */

/* x (input, 400 B) -> a (cost 2, 100 B) -> b (cost 3) -> c (cost 1, reads a and b). */
static const char *const timed =
    "{\"name\":\"timed\",\"nodes\":["
    "{\"id\":0,\"op\":\"input\",\"size\":400,\"inputs\":[]},"
    "{\"id\":1,\"size\":100,\"inputs\":[0],\"cost\":2},"
    "{\"id\":2,\"size\":50,\"inputs\":[1],\"cost\":3},"
    "{\"id\":3,\"size\":10,\"inputs\":[1,2],\"cost\":1}]}";

static void times_are(const mp_graph *g, const char *text, double bw, const double *issue,
                      const double *start, const double *end, double duration) {
  mp_events p;
  mp_events_init(&p);
  plan_of(g, text, &p);
  mp_error err;
  ck_assert_msg(mp_events_verify(g, &p, bw, NULL, &err) == 0, "%s", err.msg);
  mp_ev_time t[32];
  ck_assert_msg(mp_events_simulate(g, &p, bw, t) == duration, "%s: duration %g, want %g", text,
                mp_events_simulate(g, &p, bw, NULL), duration);
  for (int i = 0; i < p.n; i++)
    ck_assert_msg(t[i].issue == issue[i] && t[i].start == start[i] && t[i].end == end[i],
                  "%s: event %d issue/start/end %g %g %g, want %g %g %g", text, i, t[i].issue,
                  t[i].start, t[i].end, issue[i], start[i], end[i]);
  mp_events_destroy(&p);
}

START_TEST(time_by_hand) {
  mp_graph *g = tl_graph(timed);
  /* keep-all: 2 + 3 + 1, the frees take no time */
  times_are(g, "[[\"run\",1],[\"free\",\"0\"],[\"run\",2],[\"run\",3],[\"free\",\"1\"],[\"free\",\"2\"]]",
            0, (double[]){0, 0, 2, 2, 2, 6}, (double[]){0, 0, 2, 5, 2, 6},
            (double[]){2, 0, 5, 6, 2, 6}, 6);
  /* offload a while b runs: the free of x holds the issue back to 2 (the
   * end of a, its reader); out a (100 B at 50 B/unit: 2 units) overlaps b;
   * the free of a holds back the issue of in a until the out (4) and b (5)
   * ended; in a takes 2: c starts at 7 */
  times_are(g, "[[\"run\",1],[\"free\",\"0\"],[\"out\",\"1\"],[\"run\",2],[\"free\",\"1\"],"
               "[\"in\",\"1\"],[\"run\",3]]",
            50, (double[]){0, 0, 2, 2, 2, 5, 5}, (double[]){0, 0, 2, 2, 2, 5, 7},
            (double[]){2, 0, 4, 5, 2, 7, 8}, 8);
  /* the input copied out and back: the in waits for the out */
  times_are(g, "[[\"out\",\"0\"],[\"run\",1],[\"free\",\"0\"],[\"in\",\"0\"],[\"run\",2],[\"run\",3]]",
            100, (double[]){0, 0, 0, 4, 4, 4}, (double[]){0, 0, 0, 4, 4, 7},
            (double[]){4, 2, 0, 8, 7, 8}, 8);
  /* recomputation: a again (cost 2) after its free; c waits for it */
  mp_events p;
  mp_events_init(&p);
  plan_of(g, "[[\"run\",1],[\"free\",\"0\"],[\"run\",2],[\"free\",\"1\"],[\"run\",1],[\"run\",3]]", &p);
  mp_error err;
  ck_assert(mp_events_verify(g, &p, 0, NULL, &err) == -1); /* x is gone: a cannot run again */
  plan_of(g, "[[\"run\",1],[\"run\",2],[\"free\",\"1\"],[\"run\",1],[\"free\",\"0\"],[\"run\",3]]", &p);
  ck_assert_msg(mp_events_verify(g, &p, 0, NULL, &err) == 0, "%s", err.msg);
  mp_ev_figures f;
  mp_events_evaluate(g, &p, 0, 1000, &f);
  ck_assert(f.duration == 8 && f.recomputed == 1 && f.recompute_time == 2 && f.stall_time == 0);
  ck_assert(f.base_time == 6 && f.overhead == 8.0 / 6 - 1 && f.budget == 1000);
  /* residencies: x from the start, a twice (the second a recomputation),
   * b, c; in buffer order */
  mp_problem pr;
  mp_residency *res;
  mp_events_problem(g, &p, 1, &pr, &res);
  ck_assert_int_eq(pr.n, 5);
  mp_res_origin how[] = {MP_RES_START, MP_RES_RUN, MP_RES_RERUN, MP_RES_RUN, MP_RES_RUN};
  int made[] = {-1, 0, 3, 1, 5}, freed[] = {4, 2, -1, -1, -1};
  int64_t lo[] = {0, 1, 3, 2, 4}, hi[] = {4, 3, 5, 5, 5};
  const char *ids[] = {"0", "1", "1@3", "2", "3"};
  for (int i = 0; i < 5; i++)
    ck_assert_msg(res[i].origin == how[i] && res[i].made == made[i] && res[i].freed == freed[i] &&
                      pr.items[i].lo == lo[i] && pr.items[i].hi == hi[i] && !strcmp(pr.ids[i], ids[i]),
                  "residency %d: %s made %d freed %d [%lld, %lld)", i, pr.ids[i], res[i].made,
                  res[i].freed, (long long)pr.items[i].lo, (long long)pr.items[i].hi);
  free(res);
  mp_problem_destroy(&pr);
  /* samples: start 400; a 500; b 550; free a; a 550; free x; c 160 */
  int64_t s[8];
  ck_assert_int_eq(mp_events_memory(g, &p, s), 550);
  int64_t want[] = {400, 500, 550, 550, 160};
  for (int i = 0; i < 5; i++) ck_assert_int_eq(s[i], want[i]);
  mp_events_destroy(&p);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- the decisions of src/events.h, one test each ---- */

START_TEST(decisions) {
  mp_graph *g = tl_graph(timed);
  mp_events p;
  mp_events_init(&p);
  mp_error err;
  /* a host copy survives a recomputation: out a, free a, run a again, free
   * a, in a is still valid */
  plan_of(g, "[[\"run\",1],[\"out\",\"1\"],[\"free\",\"1\"],[\"run\",1],[\"run\",2],"
             "[\"free\",\"1\"],[\"in\",\"1\"],[\"free\",\"0\"],[\"run\",3]]", &p);
  ck_assert_msg(mp_events_verify(g, &p, 10, NULL, &err) == 0, "%s", err.msg);
  /* bandwidth 0: no copy at all */
  mp_ev_violation v;
  ck_assert(mp_events_verify(g, &p, 0, &v, &err) == -1 && v.rule == MP_EVR_NO_LINK && v.event == 1);
  /* an out of a buffer that has a host copy is allowed (and refreshes it):
   * the in starts after the latest out */
  plan_of(g, "[[\"out\",\"0\"],[\"out\",\"0\"],[\"run\",1],[\"free\",\"0\"],[\"in\",\"0\"],"
             "[\"free\",\"0\"],[\"run\",2],[\"run\",3]]", &p);
  ck_assert_msg(mp_events_verify(g, &p, 100, NULL, &err) == 0, "%s", err.msg);
  mp_ev_time t[16];
  mp_events_simulate(g, &p, 100, t);
  ck_assert(t[1].end == 8 && t[4].start == 8);
  /* the first event is issued at 0, inputs are ready at 0 */
  ck_assert(t[0].issue == 0 && t[0].start == 0 && t[2].start == 0);
  /* the start is a sample: an input too big for the budget shows at once */
  plan_of(g, "[[\"free\",\"0\"],[\"run\",1]]", &p);
  int64_t s[4];
  mp_events_memory(g, &p, s);
  ck_assert_int_eq(s[0], 400);
  /* base_time counts an input's cost given in the file; overhead is NAN
   * when base_time is 0 */
  mp_graph *h = tl_graph("{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":8,\"cost\":5,\"inputs\":[]},"
                         "{\"id\":1,\"size\":8,\"inputs\":[0],\"cost\":0}]}");
  ck_assert(mp_base_time(h) == 5 && mp_events_duration_floor(h) == 0);
  mp_graph *z = tl_graph("{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":8,\"inputs\":[]}]}");
  mp_events_clear(&p);
  mp_ev_figures f;
  mp_events_evaluate(z, &p, 0, 0, &f);
  ck_assert(f.base_time == 0 && isnan(f.overhead) && f.duration == 0 && f.live_peak == 8);
  mp_graph_destroy(z);
  mp_graph_destroy(h);
  mp_events_destroy(&p);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- first-run orders ---- */

START_TEST(first_orders) {
  /* a and b both read x; c reads both */
  mp_graph *g = tl_graph("{\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":8,\"inputs\":[]},"
                         "{\"id\":1,\"size\":8,\"inputs\":[0]},"
                         "{\"id\":2,\"size\":8,\"inputs\":[0]},"
                         "{\"id\":3,\"size\":8,\"inputs\":[1,2]},"
                         "{\"id\":4,\"op\":\"input\",\"size\":8,\"inputs\":[]}]}");
  mp_events p;
  mp_events_init(&p);
  plan_of(g, "[[\"run\",2],[\"run\",1],[\"free\",\"2\"],[\"run\",2],[\"run\",3]]", &p);
  int got[5], want[] = {0, 4, 2, 1, 3};
  ck_assert_int_eq(mp_events_first_order(g, &p, got), 0);
  for (int i = 0; i < 5; i++) ck_assert_int_eq(got[i], want[i]);
  ck_assert(mp_events_follow(g, &p, (int[]){0, 2, 4, 1, 3}));
  ck_assert(mp_events_follow(g, &p, (int[]){4, 0, 2, 1, 3}));
  ck_assert(!mp_events_follow(g, &p, (int[]){0, 1, 2, 3, 4}));
  plan_of(g, "[[\"run\",2],[\"run\",1]]", &p); /* node 3 never runs */
  ck_assert_int_eq(mp_events_first_order(g, &p, got), -1);
  /* the plan of an order follows it, and gives it back (inputs first) */
  mp_events_from_order(g, (int[]){4, 0, 1, 2, 3}, &p);
  ck_assert_int_eq(mp_events_first_order(g, &p, got), 0);
  ck_assert(got[2] == 1 && got[3] == 2 && got[4] == 3);
  ck_assert(mp_events_follow(g, &p, (int[]){4, 0, 1, 2, 3}));
  ck_assert(!mp_events_follow(g, &p, (int[]){4, 0, 2, 1, 3}));
  mp_events_destroy(&p);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- a view names its root's storage ---- */

START_TEST(views_and_reruns) {
  /* v views a; c reads v: after a is recomputed, c runs without v again */
  mp_graph *g = tl_graph("{\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":8,\"inputs\":[]},"
                         "{\"id\":1,\"size\":16,\"inputs\":[0]},"
                         "{\"id\":2,\"size\":16,\"inputs\":[1],\"alias\":1},"
                         "{\"id\":3,\"size\":4,\"inputs\":[2]},"
                         "{\"id\":4,\"size\":4,\"inputs\":[2,3]}]}");
  mp_events p;
  mp_events_init(&p);
  plan_of(g, "[[\"run\",1],[\"run\",2],[\"run\",3],[\"free\",\"1\"],[\"run\",1],[\"run\",4]]", &p);
  mp_error err;
  ck_assert_msg(mp_events_verify(g, &p, 0, NULL, &err) == 0, "%s", err.msg);
  /* the view itself costs 0 by default, the others 1 */
  ck_assert(g->nodes[2].cost == 0 && g->nodes[1].cost == 1);
  /* a view owns nothing: "2" names no buffer */
  ck_assert_int_eq(mp_buffer_parse(g, "2"), -1);
  mp_events_destroy(&p);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- reruns that read a storage written in place since ---- */

/* The plan `text` of g (into p) is valid and has exactly one stale rerun. */
static void one_stale_rerun(const mp_graph *g, const char *text, mp_events *p) {
  plan_of(g, text, p);
  mp_error err;
  ck_assert_msg(mp_events_verify(g, p, 0, NULL, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(mp_events_stale_reruns(g, p), 1);
}

START_TEST(stale_reruns_by_hand) {
  /* 2 clones a before 3 overwrites a in place (relu_); 5 reads a after */
  mp_graph *g = tl_graph("{\"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":8,\"inputs\":[]},"
                         "{\"id\":1,\"size\":16,\"inputs\":[0]},"
                         "{\"id\":2,\"size\":16,\"inputs\":[1]},"
                         "{\"id\":3,\"size\":16,\"inputs\":[1],\"alias\":1,\"inplace\":true},"
                         "{\"id\":4,\"size\":4,\"inputs\":[2,3]},"
                         "{\"id\":5,\"size\":4,\"inputs\":[3]}]}");
  const char *plans[] = {
      /* the clone made again after the write reads the overwritten a */
      "[[\"run\",1],[\"run\",2],[\"run\",3],[\"free\",\"2\"],[\"run\",2],[\"run\",4],"
      "[\"run\",5]]",
      /* 5 made again reads a as it did the first time */
      "[[\"run\",1],[\"run\",2],[\"run\",3],[\"run\",4],[\"run\",5],[\"free\",\"5\"],"
      "[\"run\",5]]",
      /* the clone made again before the write: as in the given order */
      "[[\"run\",1],[\"run\",2],[\"free\",\"2\"],[\"run\",2],[\"run\",3],[\"run\",4],"
      "[\"run\",5]]"};
  int64_t want[] = {1, 0, 0};
  mp_events p;
  mp_events_init(&p);
  for (int k = 0; k < 3; k++) {
    plan_of(g, plans[k], &p);
    mp_error err;
    ck_assert_msg(mp_events_verify(g, &p, 0, NULL, &err) == 0, "plan %d: %s", k, err.msg);
    mp_ev_figures f;
    mp_events_evaluate(g, &p, 0, 0, &f);
    ck_assert_int_eq(f.recomputed, 1);
    ck_assert_msg(f.stale_reruns == want[k], "plan %d: %lld stale reruns, want %lld", k,
                  (long long)f.stale_reruns, (long long)want[k]);
  }
  mp_graph_destroy(g);
  /* the storage written is the first one (storage 0): X, read by R, then
   * overwritten by W; R made again after W reads the new X */
  g = tl_graph("{\"nodes\":[{\"id\":0,\"size\":8,\"inputs\":[]},"
               "{\"id\":1,\"size\":4,\"inputs\":[0]},"
               "{\"id\":2,\"size\":8,\"inputs\":[0],\"alias\":0,\"inplace\":true},"
               "{\"id\":3,\"size\":4,\"inputs\":[1,2]}]}");
  one_stale_rerun(g, "[[\"run\",0],[\"run\",1],[\"free\",\"1\"],[\"run\",2],[\"run\",1],[\"run\",3]]", &p);
  mp_graph_destroy(g);
  /* a parameter is a storage too: A made again after the update S of P */
  g = tl_graph("{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":8,\"inputs\":[]},"
               "{\"id\":1,\"op\":\"param\",\"size\":16,\"inputs\":[],\"alias\":-1},"
               "{\"id\":2,\"size\":20,\"inputs\":[0,1]},"
               "{\"id\":3,\"op\":\"sgd_\",\"size\":16,\"inputs\":[1,2],\"alias\":1,"
               "\"inplace\":true}]}");
  one_stale_rerun(g, "[[\"run\",1],[\"run\",2],[\"run\",3],[\"free\",\"2\"],[\"run\",2]]", &p);
  /* S again would apply its update a second time, and P again would view
   * it anew: a parameter written in place is a storage whose alias set
   * runs exactly once (6.2), though it owns no arena memory */
  mp_ev_violation viol;
  plan_of(g, "[[\"run\",1],[\"run\",2],[\"run\",3],[\"run\",3]]", &p);
  ck_assert_int_eq(mp_events_verify(g, &p, 0, &viol, NULL), -1);
  ck_assert_int_eq(viol.rule, MP_EVR_INPLACE_RERUN);
  ck_assert_int_eq(viol.node, 3);
  plan_of(g, "[[\"run\",1],[\"run\",2],[\"run\",3],[\"run\",1]]", &p);
  ck_assert_int_eq(mp_events_verify(g, &p, 0, &viol, NULL), -1);
  ck_assert_int_eq(viol.rule, MP_EVR_INPLACE_RERUN);
  ck_assert_int_eq(viol.node, 1);
  mp_events_destroy(&p);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- bounds and budgets ---- */

START_TEST(budget_frac) {
  /* Moccasin's table (DESIGN 6.4) */
  struct { const char *f; int64_t peak, want; } t[] = {
      {"0.9", 46319, 41688}, {"0.8", 46319, 37056}, {"0.9", 146840, 132156},
      {"0.8", 146840, 117472}, {"1", 46319, 46319}, {".5", 3, 2}, {"9e-1", 146840, 132156},
      {"90E-2", 146840, 132156}, {"0.0000001", 10, 1}, {"2.5", 4, 10}, {"1000", 7, 7000},
      {"0.333333333333333333", 3, 1}, {"1.", 5, 5}, {"0.9", 0, 0}, {"0.55", 100, 55}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    int64_t b = -1;
    mp_error err;
    ck_assert_msg(mp_budget_frac(t[i].f, t[i].peak, &b, &err) == 0, "%s: %s", t[i].f, err.msg);
    ck_assert_msg(b == t[i].want, "%s x %lld = %lld, want %lld", t[i].f, (long long)t[i].peak,
                  (long long)b, (long long)t[i].want);
  }
  /* a double product would be off by one here: 0.55 x 100 = 55.00000000000001 */
  volatile double f55 = 0.55;
  ck_assert_int_eq((int64_t)ceil(f55 * 100), 56);
  const char *bad[] = {"", "0", "0.0", "-0.5", "abc", "0.5x", "1e", "1001", "1e4", "0.9.1", "e5",
                       "1234567890123456789", "1e-40", " 0.5", "+0.5", "nan", "inf"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int64_t b;
    mp_error err;
    ck_assert_msg(mp_budget_frac(bad[i], 100, &b, &err) == -1, "'%s' accepted", bad[i]);
    ck_assert(strstr(err.msg, "budget fraction") != NULL);
  }
  int64_t b;
  mp_error err;
  ck_assert_int_eq(mp_budget_frac("1000", INT64_MAX / 100, &b, &err), -1);
}
END_TEST

START_TEST(floor_is_proven) {
  /* the floor: inputs at the start, outputs at the end, one node's need */
  mp_graph *g = tl_graph(small);
  /* c reads b's storage (a: 10) and t:0 (20), writes 40: need 70; x 100 */
  ck_assert_int_eq(mp_node_need(g, 4), 70);
  ck_assert_int_eq(mp_node_need(g, 0), 0);
  ck_assert_int_eq(mp_node_need(g, 1), 100 + 10 + 7);
  ck_assert_int_eq(mp_node_need(g, 3), 100 + 20 + 30);
  ck_assert_int_eq(mp_events_floor(g), 150);
  mp_graph_destroy(g);
  /* the outputs' term decides: x (input, 1 B) read by a and b (50 B each),
   * both sinks, so graph outputs: 100 B resident at the end, above the
   * inputs (1) and a node's need (1 + 50 = 51) */
  g = tl_graph("{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":1,\"inputs\":[]},"
               "{\"id\":1,\"size\":50,\"inputs\":[0]},{\"id\":2,\"size\":50,\"inputs\":[0]}]}");
  ck_assert_int_eq(mp_node_need(g, 1), 51);
  ck_assert_int_eq(mp_events_floor(g), 100);
  mp_graph_destroy(g);
  /* every valid random plan is at or above it */
  mp_rng r;
  mp_rng_seed(&r, 6204);
  for (int t = 0; t < tl_trials(300); t++) {
    char *js = tl_random_json(&r, 2 + t % 9, TL_ALL);
    g = tl_graph(js);
    or_model om;
    or_build(g, &om);
    ox_event *ox;
    int m = rp_random_plan(g, &om, &r, t % 2, &ox);
    mp_events p;
    mp_events_init(&p);
    to_model(g, ox, m, &p);
    ck_assert_int_ge(mp_events_memory(g, &p, NULL), mp_events_floor(g));
    mp_events_destroy(&p);
    free(ox);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  tl_cleanup();
}
END_TEST

/* ---- the plan file ---- */

START_TEST(json_round_trip) {
  mp_rng r;
  mp_rng_seed(&r, 6205);
  for (int t = 0; t < tl_trials(200); t++) {
    char *js = tl_random_json(&r, 2 + t % 10, TL_ALL);
    mp_graph *g = tl_graph(js);
    or_model om;
    or_build(g, &om);
    ox_event *ox;
    int m = rp_random_plan(g, &om, &r, true, &ox);
    mp_events p, q;
    mp_events_init(&p);
    mp_events_init(&q);
    to_model(g, ox, m, &p);
    json_t *arr = mp_events_to_json(g, &p);
    char *text = json_dumps(arr, 0);
    json_t *back = json_loads(text, 0, NULL);
    mp_error err;
    ck_assert_msg(mp_events_from_json(g, back, &q, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(p.n, q.n);
    for (int i = 0; i < p.n; i++)
      ck_assert(p.ev[i].kind == q.ev[i].kind && p.ev[i].id == q.ev[i].id);
    free(text);
    json_decref(arr);
    json_decref(back);
    mp_events_destroy(&p);
    mp_events_destroy(&q);
    free(ox);
    or_destroy(&om);
    mp_graph_destroy(g);
    free(js);
  }
  /* names: "J" for a single output (or "J:0"), "J:K" otherwise */
  mp_graph *g = tl_graph(small);
  ck_assert_int_eq(mp_buffer_parse(g, "1"), 1);
  ck_assert_int_eq(mp_buffer_parse(g, "1:0"), 1);
  ck_assert_int_eq(mp_buffer_parse(g, "3:1"), 3);
  const char *bad[] = {"3", "2", "1:1", "9", "-1", "1:", "x", "1:0x", " 1", "ws:1", "",
                       /* not as memplan writes them: another buffer must not pass */
                       "\t1", "\n1", "01", "1:00", "01:0", "3:01", "1:+0", "4294967297"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(mp_buffer_parse(g, bad[i]) == -1, "'%s' parsed", bad[i]);
  const char *bad_plans[] = {"{}", "[[\"run\"]]", "[[\"jump\",1]]", "[[\"run\",\"1\"]]",
                             "[[\"run\",5]]", "[[\"free\",1]]", "[[\"free\",\"3\"]]", "[1]"};
  for (size_t i = 0; i < sizeof bad_plans / sizeof bad_plans[0]; i++) {
    json_t *a = json_loads(bad_plans[i], JSON_DECODE_ANY, NULL);
    mp_events p;
    mp_events_init(&p);
    mp_error err;
    ck_assert_msg(mp_events_from_json(g, a, &p, &err) == -1, "%s parsed", bad_plans[i]);
    json_decref(a);
    mp_events_destroy(&p);
  }
  /* a plan file */
  char *path = tl_write_temp("{\"graph\":\"small\",\"events\":[[\"run\",1],[\"free\",\"3:1\"]]}", ".json");
  mp_events p;
  mp_events_init(&p);
  mp_error err;
  ck_assert_msg(mp_events_read_file(g, path, &p, &err) == 0, "%s", err.msg);
  ck_assert(p.n == 2 && p.ev[1].kind == MP_EV_FREE && p.ev[1].id == 3);
  free(path);
  path = tl_write_temp("{\"graph\":\"small\",\"order\":[0,1]}", ".json");
  ck_assert_int_eq(mp_events_read_file(g, path, &p, &err), -1);
  ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "events"), "%s", err.msg);
  free(path);
  mp_events_destroy(&p);
  mp_graph_destroy(g);
  tl_cleanup();
}
END_TEST

/* ---- costs in graph files ---- */

static mp_graph *try_graph(const char *json, mp_error *err) { return tl_graph_try(json, false, err); }

START_TEST(costs_in_files) {
  mp_graph *g = tl_graph("{\"host_bandwidth\": 2.5, \"nodes\":["
                         "{\"id\":0,\"op\":\"input\",\"size\":8,\"inputs\":[]},"
                         "{\"id\":1,\"size\":8,\"inputs\":[0],\"phase\":\"fwd\"},"
                         "{\"id\":2,\"size\":8,\"inputs\":[1],\"alias\":1},"
                         "{\"id\":3,\"size\":8,\"inputs\":[2],\"cost\":0.25,\"phase\":\"bwd\"},"
                         "{\"id\":4,\"op\":\"output\",\"size\":0,\"inputs\":[3],\"phase\":\"opt\"}]}");
  ck_assert(g->host_bandwidth == 2.5);
  ck_assert(g->nodes[0].cost == 0 && g->nodes[1].cost == 1 && g->nodes[2].cost == 0);
  ck_assert(g->nodes[3].cost == 0.25 && g->nodes[3].has_cost && !g->nodes[1].has_cost);
  ck_assert(g->nodes[4].cost == 0);
  ck_assert(g->nodes[0].phase == MP_PHASE_NONE && g->nodes[1].phase == MP_PHASE_FWD);
  ck_assert(g->nodes[3].phase == MP_PHASE_BWD && g->nodes[4].phase == MP_PHASE_OPT);
  ck_assert(mp_base_time(g) == 1.25);
  mp_graph_destroy(g);
  struct { const char *node, *words; } bad[] = {
      {"\"cost\":-1", "node 1: cost -1 is not a finite non-negative number"},
      {"\"cost\":\"fast\"", "node 1: cost is not a number"},
      {"\"cost\":[1]", "node 1: cost is not a number"},
      {"\"cost\":true", "node 1: cost is not a number"},
      {"\"phase\":\"forward\"", "node 1: phase must be"},
      {"\"phase\":1", "node 1: phase must be"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char js[512];
    snprintf(js, sizeof js, "{\"nodes\":[{\"id\":0,\"op\":\"input\",\"size\":8,\"inputs\":[]},"
             "{\"id\":1,\"size\":8,\"inputs\":[0],%s}]}", bad[i].node);
    mp_error err;
    mp_graph *h = try_graph(js, &err);
    ck_assert_msg(h == NULL, "%s accepted", bad[i].node);
    ck_assert_msg(strstr(err.msg, bad[i].words) && strstr(err.msg, ".json"), "%s: '%s'",
                  bad[i].node, err.msg);
  }
  mp_error err;
  ck_assert(try_graph("{\"host_bandwidth\":-2,\"nodes\":[]}", &err) == NULL);
  ck_assert_msg(strstr(err.msg, "host_bandwidth"), "%s", err.msg);
  ck_assert(try_graph("{\"host_bandwidth\":\"fast\",\"nodes\":[]}", &err) == NULL);
  /* a cost too large for a double is refused by the JSON reader */
  ck_assert(try_graph("{\"nodes\":[{\"id\":0,\"size\":8,\"inputs\":[],\"cost\":1e999}]}", &err) == NULL);
  tl_cleanup();
}
END_TEST

/* ---- costs of generated graphs ---- */

START_TEST(gen_costs) {
  const char *families[] = {"randwire", "nas", "layered", "tree", "sp", "chain"};
  for (size_t f = 0; f < sizeof families / sizeof *families; f++) {
    mp_gen_opts o;
    mp_gen_defaults(&o);
    o.family = families[f];
    o.seed = 3;
    o.n = !strcmp(families[f], "randwire") ? 6 : 30;
    o.ws_prob = 0.3;
    o.inplace_prob = 0.3;
    mp_error err;
    mp_graph *g = mp_gen(&o, NULL, &err);
    ck_assert_msg(g != NULL, "%s", err.msg);
    for (int v = 0; v < g->n; v++) {
      const mp_node *nd = &g->nodes[v];
      /* the bytes it moves, in MiB, to 1/1000; inputs 0 */
      double bytes = (double)nd->workspace;
      for (int i = 0; i < g->n_reads[v]; i++) bytes += (double)g->bufs[g->reads[v][i]].size;
      for (int k = 0; k < nd->n_out; k++) bytes += (double)nd->out_size[k];
      double want = nd->is_input ? 0 : round(bytes / 1048.576) / 1000;
      ck_assert_msg(nd->has_cost && nd->cost == want, "%s node %d: cost %g, want %g", families[f], v,
                    nd->cost, want);
    }
    /* written and read back: the same costs */
    char *path = tl_write_temp("", ".json");
    FILE *fp = fopen(path, "w");
    ck_assert_int_eq(mp_graph_dump_json(g, fp, NULL), 0);
    fclose(fp);
    mp_graph *h = mp_graph_read_json(path, false, &err);
    ck_assert_msg(h != NULL, "%s", err.msg);
    for (int v = 0; v < g->n; v++)
      ck_assert(h->nodes[v].cost == g->nodes[v].cost && h->nodes[v].has_cost);
    mp_graph_destroy(h);
    free(path);
    mp_graph_destroy(g);
  }
  tl_cleanup();
}
END_TEST

Suite *suite_remat(void) {
  Suite *s = suite_create("remat");
  TCase *tc = tcase_create("remat");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, equivalence_rule);
  tcase_add_test(tc, oracle_random_plans);
  tcase_add_test(tc, invalid_classes);
  tcase_add_test(tc, empty_graph_events);
  tcase_add_test(tc, time_by_hand);
  tcase_add_test(tc, decisions);
  tcase_add_test(tc, first_orders);
  tcase_add_test(tc, views_and_reruns);
  tcase_add_test(tc, stale_reruns_by_hand);
  tcase_add_test(tc, budget_frac);
  tcase_add_test(tc, floor_is_proven);
  tcase_add_test(tc, json_round_trip);
  tcase_add_test(tc, costs_in_files);
  tcase_add_test(tc, gen_costs);
  suite_add_tcase(s, tc);
  return s;
}
