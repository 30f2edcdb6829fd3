/* fuzz_solve.c - the solvers through the harness (run.h), checked against
 * the judge and an oracle of their own.  The input bytes decode into a
 * small graph (at most 12 nodes: inputs, ops with several outputs, views,
 * in-place writes, parameter views, output nodes, workspaces, zero sizes,
 * costs, a host link), an order chain, an optional recomputation/offload
 * chain with a budget, a placer chain, an alignment, a capacity and option
 * variants; every solver's work is capped so that a run stays fast.  Then:
 * the statuses and figures must agree with each other, the plan written
 * out must pass mp_plan_verify, and the live peaks and bounds must agree
 * with a subset dynamic program over all orders (the true minimum live
 * peak, DESIGN 1.2/1.3, recomputed here from the buffers alone).  Any
 * disagreement aborts, so libFuzzer records the input.
 *
 * The GLPK solvers (ilp, ilp-place, joint-ilp, remat-ilp, remat-lp) come
 * from a byte after all the others (an input that ends before it, as
 * every input made before them, has none): joint-ilp takes 20 s to prove
 * a 10-node graph optimal and ilp-place seconds, so each runs under a
 * GLPK time limit of its own (time=) or the run's (0.3 s), short enough
 * for the fuzzer, long enough that a small model is solved in time.
 * The placers added after them (byconflicts, bybreadth) come from the byte
 * after that one, for the same reason: older inputs decode as before. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "fuzz_common.h"
#include "run.h"

/* ---- the input, read byte by byte (zeros once it runs out) ---- */
typedef struct cursor {
  const uint8_t *p;
  size_t n, at;
} cursor;

static unsigned next(cursor *c) { return c->at < c->n ? c->p[c->at++] : 0; }

/* ---- solvers and the options that keep each run short ---- */
typedef struct choice {
  const char *name;
  const char *caps;        /* always set: work limits */
  const char *variant[8];  /* one of these too, by a byte of the input */
} choice;

static const choice orders[] = {
    {"given", "", {""}},
    {"greedy", "", {""}},
    {"lpmf", "", {""}},
    {"bfs", "", {""}},
    {"dfs", "", {""}},
    {"best", "", {"", "bound_nodes=0"}},
    {"sa", "iters=2000 restarts=2 fill=0",
     {"", "energy=0", "diversify=0 stop=0", "drag=1 reach=2", "energy=0 power=1 smooth=10", "heat=0.001 t_end=1",
      "elite=1 margin=0.5", "iters=1 restarts=1"}},
    {"ga", "population=4 generations=3 local=40 fill=0",
     {"", "stop=0", "crossover=0 mutation=1", "drag=1 local=0", "tournament=64 elite=1000", "margin=0.5 ls_heat=100",
      "population=4 generations=1 local=0 reach=2", "mutation=0 crossover=1"}},
    {"dp", "", {"", "split=0", "cutbound=0", "max_states=5"}},
};
static const choice placers[] = {
    {"noreuse", "", {""}},
    {"firstfit", "", {""}},
    {"bestfit", "", {""}},
    {"bysize", "", {""}},
    {"bysize-ff", "", {""}},
    {"coloring", "", {"", "max_edges=3"}},
    {"pool", "", {"", "min_class=1", "min_class=1048576"}},
    {"exact", "nodes=3000",
     {"", "memo=0 restarts=0", "rank=3 by_offset=1 thresholds=1",
      "minfirst=2 normal=0 components=0 decompose=0 reset=0 twins=0", "rank=4 portfolio=0", "nodes=1",
      "memo_log2=8 rank=1 minfirst=1", "rank=2 thresholds=1 by_offset=1"}},
    {"hillclimb", "iters=50 restarts=2 fill=0",
     {"", "cls=0", "cls=3 smooth=1 band=0.5", "patience=0 kick=1 noise=2", "temp=0 target=0 peak_bias=0",
      "temp=1 target=1 peak_bias=1 cls=1", "iters=1 restarts=1", "noise=10 band=1 smooth=1000"}},
};
static const choice remats[] = {
    {"keepall", "", {""}},
    {"dtr", "", {"", "scan=1"}},
    {"chen-sqrt", "", {""}},
    {"chen-greedy", "", {"", "grid=1"}},
    {"rotor", "", {"", "frontier=0", "offload=0 slots=8", "stages=1 tries=1", "slots=8 tries=1000", "stages=512 slots=100000",
      "frontier=0 offload=0", "stages=2 slots=9"}},
    {"swap-greedy", "", {"", "index=0", "index=1", "rounds=1"}},
    {"remat-sa", "iters=300 restarts=1 fill=0",
     {"", "strict=0", "kick=1 heat=1000", "t_end=1 heat=0.0001", "iters=1 kick=0", "restarts=3 kick=0.5"}},
    {"remat-ga", "population=4 generations=2 local=20 order_moves=200 fill=0",
     {"", "reorder=0", "strict=0 kicks=5", "crossover=0", "mutation=1 elite=1000 tournament=64",
      "local=0 kicks=0 order_moves=0", "ls_heat=1000000 crossover=1", "population=4 generations=1 local=0"}},
    {"remat-exact", "max_labels=20000 max_mb=64", {"", "max_labels=1000"}},
};
/* placers added after the GLPK solvers: a byte of their own (main) */
static const choice late_placers[] = {
    {"byconflicts", "", {""}},
    {"bybreadth", "", {"", "max_steps=0", "max_steps=40", "slack=0"}},
};
/* the GLPK solvers: where each goes, its work limits, its variants */
enum { IN_ORDER, IN_JOINT, IN_PLACE, IN_REMAT };
static const struct glpk_choice {
  int where;
  choice c;
} glpks[] = {
    {IN_ORDER, {"ilp", "", {"", "warm=0", "strong=0", "cuts=0", "backtrack=0", "backtrack=1 cuts=0",
                            "warm=0 strong=0 backtrack=3", "max_nodes=4"}}},
    {IN_JOINT, {"joint-ilp", "time=0.1", {"", "max_nodes=5", "max_buffers=6", "time=0.01"}}},
    {IN_PLACE, {"ilp-place", "time=0.1", {"", "max_items=4", "time=0.01", "max_items=1"}}},
    {IN_REMAT, {"remat-ilp", "",
                {"", "greedy=0 rounds=0", "proof=0 explicit=1", "contract_above=3 segments=2",
                 "strict=1 node_heur=1 cuts=1 branch=2", "bound_share=0.9", "node_heur=0 backtrack=0",
                 "rounds=1 branch=4"}}},
    {IN_REMAT, {"remat-lp", "",
                {"", "retries=0 bound=0", "rounds=0", "rounds=1 shrink=0.5", "contract_above=3 segments=2",
                 "strict=1", "retries=5 shrink=0.99", "bound_share=0.9"}}},
};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The request built from the input: chains, option strings, budget. */
typedef struct request {
  char order[64], place[64], remat[64];
  char sets_text[64][64];
  const char *sets[64];
  int n_sets;
} request;

static void add_sets(request *q, const choice *c, unsigned variant) {
  for (int k = 0; k < q->n_sets; k++) /* a solver named twice: its options once */
    if (!strncmp(q->sets_text[k], c->name, strlen(c->name)) && q->sets_text[k][strlen(c->name)] == '.')
      return;
  char text[160];
  snprintf(text, sizeof text, "%s %s", c->caps, c->variant[variant % 8] ? c->variant[variant % 8] : "");
  for (char *tok = strtok(text, " "); tok && q->n_sets < 64; tok = strtok(NULL, " ")) {
    snprintf(q->sets_text[q->n_sets], sizeof q->sets_text[0], "%s.%s", c->name, tok);
    q->sets[q->n_sets] = q->sets_text[q->n_sets];
    q->n_sets++;
  }
}

/* One or two solvers of `tab` into `out` (a chain "a,b"); byte a picks the
 * first (or none: the harness's default), byte b the second and variants. */
static const char *chain(request *q, const choice *tab, int n, unsigned a, unsigned b, char *out,
                         size_t cap) {
  unsigned first = a % (unsigned)(n + 1);
  if (first == (unsigned)n) return NULL;
  add_sets(q, &tab[first], a >> 5);
  snprintf(out, cap, "%s", tab[first].name);
  if (b & 16) {
    const choice *c = &tab[(b & 15) % (unsigned)n];
    add_sets(q, c, b >> 5);
    size_t len = strlen(out);
    snprintf(out + len, cap - len, ",%s", c->name);
  }
  return out;
}

/* ---- the graph, as graph JSON text ---- */
static const int64_t sizes[16] = {0,   1,   3,    8,    16,    60,      64,      100,
                                  128, 255, 1000, 4096, 65536, 1 << 20, (int64_t)1 << 56, (int64_t)1 << 40};
static const char *const costs[8] = {NULL, "0", "0.5", "1", "2", "3", "1e-06", "100"};
static const char *const bandwidths[4] = {NULL, "1", "64", "1e9"};

typedef struct text {
  char s[8192];
  size_t len;
} text;

static void put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->s + t->len, sizeof t->s - t->len, fmt, ap);
  va_end(ap);
  if (k > 0) t->len += (size_t)k < sizeof t->s - t->len ? (size_t)k : sizeof t->s - t->len - 1;
}

/* A reference to an earlier node: [j, k] for a node of several outputs
 * (or j, all of them, when `whole`), else j. */
static void put_ref(text *t, const int *n_out, const bool *view, int j, unsigned r, bool whole) {
  if (n_out[j] > 1 && !(whole && !view[j]))
    put(t, "[%d, %d]", j, (int)((r >> 4) % (unsigned)n_out[j]));
  else
    put(t, "%d", j);
}

static void graph_text(cursor *c, text *t) {
  int n = 1 + (int)(next(c) % 12);
  const char *bw = bandwidths[next(c) % 4];
  int n_out[12];
  bool view[12];
  put(t, "{\"name\": \"fz\", %s%s%s\"nodes\": [", bw ? "\"host_bandwidth\": " : "", bw ? bw : "",
      bw ? ", " : "");
  for (int i = 0; i < n; i++) {
    unsigned kind = next(c), sz = next(c), extra = next(c);
    int k = (int)(kind & 7), n_in = i ? (int)((kind >> 5) & 3) : 0;
    if ((k == 4 || k == 5 || k == 7) && n_in == 0) n_in = i ? 1 : 0;
    if (i == 0 && k != 6) k = 0;
    unsigned refs[3] = {0};
    for (int m = 0; m < n_in; m++) refs[m] = next(c);
    /* a view needs an earlier tensor to view */
    int target = n_in ? (int)(refs[0] % (unsigned)i) : -1;
    if ((k == 4 || k == 5) && (target < 0 || n_out[target] == 0)) k = 1;
    n_out[i] = 1;
    view[i] = k == 4 || k == 5 || k == 6;
    put(t, "%s{\"id\": %d", i ? ", " : "", i);
    if (k == 0) put(t, ", \"op\": \"input\"");
    if (k == 7) put(t, ", \"op\": \"output\"");
    if (k == 3) {
      n_out[i] = (int)(kind >> 3 & 3);
      put(t, ", \"outputs\": [");
      for (int m = 0; m < n_out[i]; m++)
        put(t, "%s%lld", m ? ", " : "", (long long)sizes[(m ? sz >> 4 : sz) & 15]);
      put(t, "]");
    } else {
      put(t, ", \"size\": %lld", (long long)(k == 7 ? 0 : sizes[sz & 15]));
    }
    put(t, ", \"inputs\": [");
    for (int m = 0; m < n_in; m++) {
      if (m) put(t, ", ");
      put_ref(t, n_out, view, (int)(refs[m] % (unsigned)i), refs[m], (refs[m] & 128) && m);
    }
    put(t, "]");
    if (k == 4 || k == 5) {
      put(t, ", \"alias\": ");
      put_ref(t, n_out, view, target, refs[0], false);
    }
    if (k == 6) put(t, ", \"alias\": -1");
    if (k == 5 || (k == 6 && (kind & 8))) put(t, ", \"inplace\": true");
    if (extra & 1) put(t, ", \"workspace\": %lld", (long long)sizes[extra >> 4]);
    const char *cost = costs[(extra >> 1) & 7];
    if (cost) put(t, ", \"cost\": %s", cost);
    put(t, "}");
  }
  put(t, "]}");
}

/* ---- the oracle: live memory from the buffers alone, over subsets ---- */
typedef struct oracle {
  int n;
  uint32_t pred[12];
  int nb;
  int64_t size[64];
  uint32_t keep[64];   /* readers and the owner: alive while one of them is to run */
  int owner[64];
  bool at_start[64], output[64], dead[64];
  int64_t ws[12];
} oracle;

static void oracle_init(const mp_graph *g, oracle *o) {
  memset(o, 0, sizeof *o);
  o->n = g->n;
  for (int v = 0; v < g->n; v++) {
    for (int k = 0; k < g->n_pred[v]; k++) o->pred[v] |= 1u << g->pred[v][k];
    o->ws[v] = g->ws_buf[v] >= 0 ? g->bufs[g->ws_buf[v]].size : 0;
  }
  for (int b = 0; b < g->n_buf && o->nb < 64; b++) {
    const mp_buffer *B = &g->bufs[b];
    if (B->kind != MP_BUF_TENSOR) continue;
    int i = o->nb++;
    o->size[i] = B->size;
    o->owner[i] = B->owner;
    o->keep[i] = 1u << B->owner;
    for (int k = 0; k < B->n_readers; k++) o->keep[i] |= 1u << B->readers[k];
    o->at_start[i] = B->born_at_start;
    o->output[i] = B->graph_output;
    o->dead[i] = B->n_readers == 0 && !B->graph_output;
  }
}

/* Memory at the step of v when the nodes of `done` ran before it. */
static int64_t step_memory(const oracle *o, uint32_t done, int v) {
  int64_t m = o->ws[v];
  for (int i = 0; i < o->nb; i++) {
    bool born = o->at_start[i] || (done >> o->owner[i] & 1) || o->owner[i] == v;
    if (!born) continue;
    bool alive = o->dead[i] ? (o->at_start[i] ? done == 0 : o->owner[i] == v)
                            : o->output[i] || (o->keep[i] & ~done);
    if (alive) m += o->size[i];
  }
  return m;
}

static int64_t oracle_peak(const oracle *o, const int *order) {
  int64_t peak = 0;
  uint32_t done = 0;
  for (int t = 0; t < o->n; t++) {
    int64_t m = step_memory(o, done, order[t]);
    if (m > peak) peak = m;
    done |= 1u << order[t];
  }
  return peak;
}

/* The least live peak over every topological order. */
static int64_t oracle_best(const oracle *o) {
  uint32_t full = (1u << o->n) - 1;
  int64_t *best = malloc(sizeof(int64_t) << o->n);
  for (uint32_t s = 0; s <= full; s++) best[s] = INT64_MAX;
  best[0] = 0;
  for (uint32_t s = 0; s < full; s++) {
    if (best[s] == INT64_MAX) continue;
    for (int v = 0; v < o->n; v++) {
      if ((s >> v & 1) || (o->pred[v] & ~s)) continue;
      int64_t m = step_memory(o, s, v);
      if (m < best[s]) m = best[s];
      if (m < best[s | 1u << v]) best[s | 1u << v] = m;
    }
  }
  int64_t r = best[full];
  free(best);
  return r;
}

/* ---- the checks ---- */
static const char *what_ran;

static void check(bool ok, const char *fmt, ...) {
  if (ok) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fuzz_solve: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n  request: %s\n", what_ran);
  va_end(ap);
  abort();
}

/* The judge re-reads the plan the harness writes. */
static void check_plan_file(const mp_instance *in, const mp_result *r) {
  char path[256];
  snprintf(path, sizeof path, "%s/memplan-fuzz-plan-%ld.json",
           access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
  FILE *f = fopen(path, "w");
  if (!f) abort();
  check(mp_plan_write(f, in, r) == MP_OK, "the plan cannot be written");
  fclose(f);
  mp_error err;
  mp_err rc = mp_plan_verify(in, path, 0, &err);
  check(rc == MP_OK, "the judge rejects the harness's plan: %s", err.msg);
  unlink(path);
}

static void check_remat(const mp_instance *in, const mp_result *r, const oracle *o) {
  const mp_remat_result *m = &r->remat;
  if (!m->known) return;
  check(m->order_peak == oracle_peak(o, r->order), "remat order_peak %lld, oracle %lld",
        (long long)m->order_peak, (long long)oracle_peak(o, r->order));
  if (m->status == MP_INFEASIBLE)
    check(m->budget < m->order_peak, "infeasible at budget %lld, but the order fits keep-all in %lld",
          (long long)m->budget, (long long)m->order_peak);
  if (!m->has_plan) return;
  double floor = mp_events_duration_floor(in->g);
  check(m->fig.live_peak <= m->budget, "event plan peak %lld over its budget %lld",
        (long long)m->fig.live_peak, (long long)m->budget);
  check(m->fig.duration >= floor * (1 - 1e-9) - 1e-12, "duration %g below the floor %g",
        m->fig.duration, floor);
  check(m->fig.live_peak >= mp_events_floor(in->g), "event plan peak below the events floor");
  if (m->status == MP_OPTIMAL && m->budget >= m->order_peak)
    check(m->fig.duration <= m->base_time * (1 + 1e-9) + 1e-12,
          "optimal duration %.17g, but keep-all fits the budget in %.17g", m->fig.duration,
          m->base_time);
}

static void check_result(const mp_instance *in, const mp_run_spec *spec, mp_err rc,
                         const mp_result *r) {
  const mp_graph *g = in->g;
  check(rc == MP_OK || rc == MP_ESOLVER, "mp_run returned %d: %s", (int)rc, r->msg);
  check(rc != MP_OK || r->has_figures || r->status == MP_INFEASIBLE ||
            (r->has_remat && r->remat.status == MP_INFEASIBLE),
        "MP_OK without a plan or a proof (status %s)", mp_status_name(r->status));
  check(rc == MP_OK || !r->has_figures, "a failed run with figures: %s", r->msg);
  oracle o;
  oracle_init(g, &o);
  int64_t best = oracle_best(&o), node_lb = mp_node_lower_bound(g);
  check(best >= node_lb, "the per-node bound %lld is above the best order's peak %lld",
        (long long)node_lb, (long long)best);
  check(oracle_peak(&o, g->given) == mp_order_peak(g, g->given), "given order: oracle %lld, mp_order_peak %lld",
        (long long)oracle_peak(&o, g->given), (long long)mp_order_peak(g, g->given));
  if (r->has_remat) check_remat(in, r, &o);
  if (r->status == MP_INFEASIBLE && !r->has_remat && spec->capacity) {
    /* every buffer at its own aligned place fits in this, in any order */
    int64_t apart = 0, a = r->align > 0 ? r->align : 1;
    for (int b = 0; b < g->n_buf; b++) apart += (g->bufs[b].size + a - 1) / a * a;
    check(spec->capacity < apart, "infeasible at capacity %lld, but no reuse fits in %lld",
          (long long)spec->capacity, (long long)apart);
  }
  if (!r->has_figures) return;
  const mp_figures *f = &r->fig;
  check(f->arena >= f->live_peak && f->live_peak >= f->lower_bound && f->lower_bound >= 0,
        "arena %lld, live peak %lld, lower bound %lld out of order", (long long)f->arena,
        (long long)f->live_peak, (long long)f->lower_bound);
  check(!spec->capacity || f->arena <= spec->capacity, "arena %lld above the capacity %lld",
        (long long)f->arena, (long long)spec->capacity);
  mp_error err;
  check(mp_order_check(g, r->order, &err) < 0, "the order is invalid: %s", err.msg);
  if (!r->has_remat) {
    int64_t peak = oracle_peak(&o, r->order);
    check(f->live_peak == peak, "live peak %lld, oracle %lld", (long long)f->live_peak, (long long)peak);
    check(f->lower_bound >= node_lb, "lower bound %lld below the per-node bound %lld",
          (long long)f->lower_bound, (long long)node_lb);
    if (r->order_status == MP_FIXED) {
      check(f->lower_bound == peak, "fixed order: lower bound %lld is not its peak %lld",
            (long long)f->lower_bound, (long long)peak);
    } else {
      check(f->lower_bound <= best, "lower bound %lld above the best order's peak %lld",
            (long long)f->lower_bound, (long long)best);
      check(r->order_status != MP_OPTIMAL || peak == best, "order optimal at %lld, the best is %lld",
            (long long)peak, (long long)best);
      /* a stage deciding both (joint-ilp) may prove a bound on every
       * plan's arena above the live peaks' (alignment: two live 1000-byte
       * buffers at 16 need 2008 bytes); the harness calls the plan optimal
       * at it */
      int64_t joint = 0;
      for (int k = 0; k < r->n_stages; k++)
        if (r->stages[k].solver && r->stages[k].solver->decides == MP_DECIDES_BOTH && r->stages[k].bound > joint)
          joint = r->stages[k].bound;
      check(joint <= f->arena, "a joint stage's bound %lld above the arena %lld", (long long)joint,
            (long long)f->arena);
      check(r->status != MP_OPTIMAL || f->arena == (joint > f->lower_bound ? joint : f->lower_bound),
            "plan optimal with arena %lld above the bound %lld over all orders and %lld of a joint stage",
            (long long)f->arena, (long long)f->lower_bound, (long long)joint);
    }
    if (r->has_baseline)
      check(f->given_arena >= mp_order_peak(g, g->given), "baseline arena below the given order's peak");
  }
  check_plan_file(in, r);
}

/* ---- the request ---- */
static const char *const fracs[9] = {"0.1", "0.25", "0.5", "0.6", "0.75", "0.8", "0.9", "1", "1.5"};

static void budget(cursor *c, const mp_graph *g, mp_run_spec *spec) {
  unsigned b = next(c);
  int64_t floor = mp_events_floor(g), given = mp_order_peak(g, g->given);
  int64_t abs[7] = {floor - 1, floor, floor + 1, floor + 64, given - 1, given, 0};
  unsigned k = b % 16;
  if (k < 9) {
    spec->budget_frac = fracs[k];
  } else {
    spec->has_budget = true;
    spec->budget = abs[k - 9] < 0 ? 0 : abs[k - 9];
  }
  unsigned bw = (b >> 4) % 4;
  if (bw) {
    spec->has_bandwidth = true;
    spec->bandwidth = bw == 1 ? 0 : bw == 2 ? 16 : 1e6;
  }
}

/* Is solver `name` (up to the '.' of a setting) in the chain "a,b"? */
static bool in_chain(const char *chain, const char *name, size_t len) {
  for (const char *p = chain; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n == len && !strncmp(p, name, len)) return true;
    p += n + (p[n] == ',');
  }
  return false;
}

/* Drop the settings of solvers no chain names any more (a usage error). */
static void keep_chosen_sets(request *q, const mp_run_spec *spec) {
  int k = 0;
  for (int i = 0; i < q->n_sets; i++) {
    size_t len = strcspn(q->sets_text[i], ".");
    if (!in_chain(spec->order, q->sets_text[i], len) && !in_chain(spec->place, q->sets_text[i], len) &&
        !in_chain(spec->remat, q->sets_text[i], len))
      continue;
    if (k != i) memcpy(q->sets_text[k], q->sets_text[i], sizeof q->sets_text[0]);
    q->sets[k] = q->sets_text[k];
    k++;
  }
  q->n_sets = k;
}

/* The GLPK solver g into its chain, alone or (b & 16) after the chain's
 * solvers; a recomputation chain it starts reads its budget now.
 * joint-ilp decides the offsets too: the order chain's last, no placer,
 * no recomputation (which needs the order before it).  The run's time
 * limit is then at most 0.3 s. */
static void add_glpk(request *q, mp_run_spec *spec, const struct glpk_choice *g, unsigned b, cursor *cur,
                     const mp_graph *graph) {
  char *buf = g->where == IN_PLACE ? q->place : g->where == IN_REMAT ? q->remat : q->order;
  const char **field = g->where == IN_PLACE ? &spec->place : g->where == IN_REMAT ? &spec->remat : &spec->order;
  add_sets(q, &g->c, b >> 5);
  if (g->where == IN_REMAT && !spec->remat) budget(cur, graph, spec);
  if ((b & 16) && *field) {
    size_t len = strlen(buf);
    snprintf(buf + len, sizeof q->order - len, ",%s", g->c.name);
  } else {
    snprintf(buf, sizeof q->order, "%s", g->c.name);
  }
  *field = buf;
  if (g->where == IN_JOINT) {
    spec->place = spec->remat = spec->budget_frac = NULL;
    spec->has_budget = spec->has_bandwidth = false;
  }
  keep_chosen_sets(q, spec);
  if (spec->time_limit > 0.3) spec->time_limit = 0.3;
}

/* Placer x of late_placers into the placer chain, alone or (b & 16) after
 * its solvers; none after joint-ilp, which decides the offsets itself. */
static void add_late_placer(request *q, mp_run_spec *spec, const choice *x, unsigned b) {
  if (in_chain(spec->order, "joint-ilp", strlen("joint-ilp"))) return;
  add_sets(q, x, b >> 5);
  if ((b & 16) && spec->place) {
    size_t len = strlen(q->place);
    snprintf(q->place + len, sizeof q->place - len, ",%s", x->name);
  } else {
    snprintf(q->place, sizeof q->place, "%s", x->name);
  }
  spec->place = q->place;
  keep_chosen_sets(q, spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cursor c = {data, size, 0};
  unsigned h[8];
  for (int i = 0; i < 8; i++) h[i] = next(&c);
  text t = {.len = 0};
  graph_text(&c, &t);
  const char *path = fuzz_file((const uint8_t *)t.s, t.len, ".json");
  mp_instance in;
  mp_error err;
  int loaded = mp_instance_load(path, NULL, &in, &err);
  unlink(path);
  if (getenv("MP_FUZZ_VERBOSE")) fprintf(stderr, "%s\n%s\n", t.s, loaded ? err.msg : "loaded");
  if (loaded) return 0;

  request q = {.n_sets = 0};
  mp_run_spec spec = {0};
  spec.order = chain(&q, orders, COUNT(orders), h[0], h[1], q.order, sizeof q.order);
  spec.place = chain(&q, placers, COUNT(placers), h[2], h[3], q.place, sizeof q.place);
  if (h[4] & 1) {
    spec.remat = chain(&q, remats, COUNT(remats) - 1, h[4] >> 1, h[5], q.remat, sizeof q.remat);
    if (!spec.remat) spec.remat = strcpy(q.remat, "remat-exact"), add_sets(&q, &remats[8], h[5] >> 5);
    budget(&c, in.g, &spec);
  }
  static const int64_t aligns[4] = {0, 1, 8, 16};
  spec.align = aligns[h[6] & 3];
  spec.capacity = h[6] & 4 ? (int64_t)h[7] * 16 : 0;
  /* a tight limit now and then (the timeout paths), else a safety net */
  spec.time_limit = (h[6] & 8) && (h[5] & 6) == 6 ? 0.002 : 2;
  spec.seed = h[6] >> 4;
  spec.no_baseline = h[7] & 1 && !spec.capacity;
  /* a GLPK solver in 5 of 16 inputs (0, the byte of an input that ends
   * before it: none); each run of one takes up to 0.3 s */
  unsigned gk = next(&c);
  if (gk % 16 >= 1 && gk % 16 <= (unsigned)COUNT(glpks)) add_glpk(&q, &spec, &glpks[gk % 16 - 1], gk, &c, in.g);
  unsigned lp = next(&c); /* 0 (an input that ends before it): none */
  if (lp % 8 >= 1 && lp % 8 <= (unsigned)COUNT(late_placers)) add_late_placer(&q, &spec, &late_placers[lp % 8 - 1], lp);
  spec.n_sets = q.n_sets;
  spec.sets = q.sets;

  char desc[512];
  snprintf(desc, sizeof desc, "order %s remat %s place %s budget %s/%lld bw %g align %lld cap %lld tl %g",
           spec.order ? spec.order : "-", spec.remat ? spec.remat : "-", spec.place ? spec.place : "-",
           spec.budget_frac ? spec.budget_frac : "-", (long long)spec.budget,
           spec.has_bandwidth ? spec.bandwidth : -1.0, (long long)spec.align,
           (long long)spec.capacity, spec.time_limit);
  what_ran = desc;
  if (getenv("MP_FUZZ_VERBOSE")) fprintf(stderr, "%s\n", desc);

  mp_result r;
  mp_err rc = mp_run(&in, &spec, &r);
  if (getenv("MP_FUZZ_VERBOSE"))
    for (int k = 0; k < r.n_stages; k++)
      fprintf(stderr, "stage %s %s %.1f ms %s\n", r.stages[k].solver ? r.stages[k].solver->name : "?",
              mp_status_name(r.stages[k].status), r.stages[k].wall_ms, r.stages[k].msg);
  check_result(&in, &spec, rc, &r);
  mp_result_destroy(&r);
  mp_instance_destroy(&in);
  return 0;
}
