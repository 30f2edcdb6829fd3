/* rotor.c - rotor (Beaumont, Eyraud-Dubois, Herrmann, Joly, Shilova,
 * "Optimal checkpointing for heterogeneous chains: how to train deep
 * neural networks with limited memory", 2019; with a host link, the offload
 * of Beaumont, Eyraud-Dubois and Shilova, "Efficient combination of
 * rematerialization and offloading for training DNNs", NeurIPS 2021): the
 * optimal persistent schedule of a chain by dynamic programming (dp.c),
 * applied to a graph that is not a chain through the sequence of its
 * forward's segments (chain.c: cut at articulation points, then at the
 * smallest frontiers).
 *
 * The keep-all plan is returned whenever it fits (every node once: the
 * least duration there is).  Otherwise the program's schedules are played
 * on the shared plan builder (play.c).  On a chain, with one byte per slot,
 * the program's account is the plan's own: the plan fits and is optimal
 * among the schedules the program knows (Beaumont et al.'s persistent
 * ones, with the variants of dp.c).  Elsewhere the background and the
 * rounding make it an estimate, so the driver plays the schedules of a few
 * tables (each answers a range of program budgets) and keeps the shortest
 * plan whose own measured peak fits.  With a link it searches again with
 * the offload choices, their link time priced at 1, 1/2 and 1/4, and keeps
 * the shortest plan by the plan's own clock.  The claim stays `feasible`
 * unless every node runs once: the program is optimal within its chain
 * model, which the harness cannot check.  Without phases in the graph the
 * forward ends after the loss (lib/remat_info.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rotor/rotor.h"
#include "solver.h"

#define ROTOR_OPTIONS(X)                                                                   \
  X(stages, INT, 64, 1, 512, "stages of the chain, at most")                               \
  X(slots, INT, 200, 8, 100000, "memory slots of the dynamic program")                     \
  X(tries, INT, 3, 1, 1000, "tables filled (each answers a range of program budgets)")     \
  X(frontier, INT, 1, 0, 1, "stage boundaries: 0 articulation points only, 1 also the smallest " \
                       "multi-buffer frontiers")                                           \
  X(offload, INT, 1, 0, 1, "with a host link, also try the offload choices (0: recompute only)")
enum { ROTOR_OPTIONS(MP_OPT_ENUM) ROTOR_N_OPTS };
static const mp_option rotor_options[] = {ROTOR_OPTIONS(MP_OPT_ENTRY)};

/* The table's entries, at most (slots are lowered to stay under it):
 * 512 MiB of 12-byte entries, the cap from when each entry also held its
 * choice (kept: the same slot counts, so the same plans; the table now
 * takes 8 bytes an entry). */
#define ROTOR_TABLE_ENTRIES (((size_t)512 << 20) / 12)

/* A schedule played, by its ops and link: playing is deterministic, so
 * an identical schedule (from another h or another table) has the same
 * result. */
typedef struct played {
  uint64_t hash;
  rt_op *ops;
  int n;
  double bw;
  rt_result r;
  bool keep_in;
  char why[256];    /* why it failed */
} played;

/* The driver's search.  A table filled for a program budget P answers
 * every budget P - h x slot (rt_dp_value); the schedules that differ are
 * played (measured by the builder, without a plan) and the shortest whose
 * own peak fits is kept.  The real peak grows with the program budget, so
 * a bisection over the schedules of one table finds where they stop
 * fitting; a few tables at other P (the model's error extrapolated, or
 * another rounding near the best) look further. */
typedef struct search {
  const ri_info *ri;
  const rt_chain *ch;
  mp_ctx *c;
  int slots, frontier;
  double bw;        /* the link the program and the plan use (0: none) */
  double weight;    /* the program's price of link time (copy_weight) */
  rt_op *ops;
  int cap;
  bool found;
  rt_op *best_ops;  /* the best plan: its schedule, program budget and link */
  int best_n;
  int64_t best_pb, best_P; /* best_P, best_h: its table's budget, its h */
  int best_h;
  double best_bw;
  bool best_keep_in; /* played with the held inputs kept to the end */
  rt_result best;
  int64_t least_peak;
  int fills, plays;
  played *memo;     /* every schedule played (tables repeat schedules) */
  rt_rows *rows;    /* the values of every table filled, in turn */
  rt_player *player; /* every schedule played, in turn */
  int nmemo, memo_cap;
} search;

typedef struct fill_state {
  rt_dp dp;
  int n, *h;        /* candidate h: the last of each run of equal values */
  rt_result *r;     /* per candidate, once played */
  bool *played;
} fill_state;

static bool fits(const search *s, const rt_result *r) { return r->ok && r->peak <= s->c->budget; }

static bool better(const rt_result *a, const rt_result *b) {
  return a->duration < b->duration || (a->duration == b->duration && a->peak < b->peak);
}

static uint64_t ops_hash(const rt_op *ops, int n, double bw) {
  uint64_t h = mp_hash_more(MP_HASH_START, &bw, sizeof bw);
  for (int j = 0; j < n; j++) { /* field by field: rt_op has padding */
    int32_t w[4] = {ops[j].op, ops[j].k, ops[j].arg, ops[j].upto};
    h = mp_hash_more(h, w, sizeof w);
  }
  return h;
}

static bool same_ops(const rt_op *a, const rt_op *b, int n) {
  for (int j = 0; j < n; j++)
    if (a[j].op != b[j].op || a[j].k != b[j].k || a[j].arg != b[j].arg || a[j].upto != b[j].upto) return false;
  return true;
}

static const played *memo_find(const search *s, uint64_t hash, int n) {
  for (int i = 0; i < s->nmemo; i++) {
    const played *e = &s->memo[i];
    if (e->hash == hash && e->n == n && e->bw == s->bw && same_ops(e->ops, s->ops, n)) return e;
  }
  return NULL;
}

static void memo_add(search *s, uint64_t hash, int n, rt_result r, bool keep_in, const char *why) {
  if (s->nmemo == s->memo_cap) {
    s->memo_cap = s->memo_cap ? 2 * s->memo_cap : 16;
    s->memo = mp_xrealloc(s->memo, sizeof(played) * (size_t)s->memo_cap);
  }
  rt_op *ops = mp_xmalloc(sizeof(rt_op) * (size_t)(n + 1));
  for (int j = 0; j < n; j++) ops[j] = s->ops[j];
  played *e = &s->memo[s->nmemo++];
  *e = (played){hash, ops, n, s->bw, r, keep_in, ""};
  snprintf(e->why, sizeof e->why, "%s", why);
}

/* The schedule in s->ops played, or its result from the memo. */
static rt_result play_ops(search *s, int n, bool *keep_in, char *why, size_t cap) {
  uint64_t hash = ops_hash(s->ops, n, s->bw);
  const played *e = memo_find(s, hash, n);
  if (e) {
    *keep_in = e->keep_in;
    snprintf(why, cap, "%s", e->why);
    return e->r;
  }
  *keep_in = false;
  if (!s->player) s->player = rt_player_new(s->ri, s->ch);
  rt_result r = rt_player_play(s->player, s->ops, n, s->bw, false, NULL, s->c->deadline, why, cap);
  if (!r.ok && s->ch->a[0] > 0 && !mp_time_up(s->c)) { /* an input released too early */
    *keep_in = true;
    r = rt_player_play(s->player, s->ops, n, s->bw, true, NULL, s->c->deadline, why, cap);
  }
  if (r.ok || !mp_time_up(s->c)) memo_add(s, hash, n, r, *keep_in, why); /* not a failure by the clock */
  return r;
}

static void keep_best(search *s, const fill_state *f, int i, int n, bool keep_in) {
  s->found = true;
  s->best = f->r[i], s->best_bw = s->bw, s->best_keep_in = keep_in;
  s->best_pb = f->dp.budget - (int64_t)f->h[i] * f->dp.slot;
  s->best_P = f->dp.budget, s->best_h = f->h[i];
  s->best_ops = mp_xrealloc(s->best_ops, sizeof(rt_op) * (size_t)(n + 1));
  for (int j = 0; j < n; j++) s->best_ops[j] = s->ops[j];
  s->best_n = n;
}

static const rt_result *play_cand(search *s, fill_state *f, int i) {
  if (f->played[i]) return &f->r[i];
  int n = rt_dp_program(&f->dp, f->h[i], &s->ops, &s->cap);
  char why[256] = "";
  bool keep_in;
  f->r[i] = play_ops(s, n, &keep_in, why, sizeof why);
  f->played[i] = true;
  s->plays++;
  const rt_result *r = &f->r[i];
  if (r->ok && r->peak < s->least_peak) s->least_peak = r->peak;
  if (fits(s, r) && (!s->found || better(r, &s->best))) keep_best(s, f, i, n, keep_in);
  if (s->c->verbose)
    fprintf(stderr, "rotor: link %g, table %lld, h %d (program budget %lld, value %g): %s%s peak %lld duration %g\n",
            s->bw, (long long)f->dp.budget, f->h[i], (long long)(f->dp.budget - f->h[i] * f->dp.slot),
            rt_dp_value(&f->dp, f->h[i]), r->ok ? "plan" : why, keep_in ? " (held inputs kept)" : "",
            (long long)r->peak, r->duration);
  if (s->c->verbose > 1) {
    for (int j = 0; j < n; j++) fprintf(stderr, " %c%d%s", s->ops[j].op, s->ops[j].k, s->ops[j].op == RT_F ? (s->ops[j].arg ? "a" : "n") : "");
    fprintf(stderr, "\n");
  }
  return r;
}

static void candidates(fill_state *f) {
  int S = f->dp.S, top = S - f->dp.A[0];
  f->h = mp_xmalloc(sizeof(int) * (size_t)(S + 2));
  f->n = 0;
  for (int h = 0; h <= top; h++) {
    double v = rt_dp_value(&f->dp, h);
    if (!isfinite(v)) break;
    if (h < top && rt_dp_value(&f->dp, h + 1) == v) continue;
    f->h[f->n++] = h;
  }
  f->r = mp_xcalloc((size_t)f->n + 1, sizeof(rt_result));
  f->played = mp_xcalloc((size_t)f->n + 1, sizeof(bool));
}

/* One table at program budget P: the cheapest schedule that fits, by
 * bisection, and its neighbours.  Returns the peak of the cheapest
 * schedule (-1 when there is none). */
static int64_t fill(search *s, int64_t P) {
  fill_state f;
  s->fills++;
  if (!s->rows) {
    s->rows = mp_xmalloc(sizeof *s->rows);
    rt_rows_init(s->rows, rt_dp_entries(s->ch->L, s->slots), rt_dp_rows(s->ch->L));
  }
  if (rt_dp_init(&f.dp, s->ch, P, s->slots, s->bw, s->weight, s->c->deadline, s->rows)) {
    rt_dp_destroy(&f.dp);
    return -1;
  }
  candidates(&f);
  int64_t peak0 = -1;
  if (f.n > 0) {
    const rt_result *r0 = play_cand(s, &f, 0);
    peak0 = r0->ok ? r0->peak : INT64_MAX;
    int lo = 0, hi = f.n - 1; /* fits(hi) once checked; the boundary lies in (lo, hi] */
    if (!fits(s, r0) && fits(s, play_cand(s, &f, hi))) {
      while (hi - lo > 1 && !mp_time_up(s->c)) {
        int mid = lo + (hi - lo) / 2;
        if (fits(s, play_cand(s, &f, mid))) hi = mid;
        else lo = mid;
      }
      for (int i = hi - 1; i >= 0 && i >= hi - 3 && !mp_time_up(s->c); i--) play_cand(s, &f, i);
    }
  }
  free(f.h);
  free(f.r);
  free(f.played);
  rt_dp_destroy(&f.dp);
  return peak0;
}

/* Tables at B, then further: above B when even the cheapest schedule of
 * the last table fitted (the model overestimates), else near the best
 * program budget with another rounding. */
static void search_budget(search *s, int tries, int64_t keep_peak) {
  int64_t B = s->c->budget, P = B, cap = keep_peak + keep_peak / 8;
  for (int i = 0; i < tries && !mp_time_up(s->c); i++) {
    int64_t peak0 = fill(s, P);
    if (s->found && s->best.duration <= s->c->duration_bound * (1 + 1e-12)) break;
    int64_t next;
    if (peak0 > 0 && peak0 <= B) {
      /* capped as a double: B / peak0 can be 2^56, the product past int64 */
      double grow = (double)P * ((double)B / (double)peak0) * 1.02 + 1;
      next = grow >= (double)cap ? cap : (int64_t)grow;
    } else if (s->found) next = s->best_P - (int64_t)s->best_h * ((s->best_P + s->slots - 1) / s->slots) + P / 97;
    else if (peak0 < 0) next = P + P / 4; /* no schedule at all: the model may overestimate */
    else break;
    if (next > cap) next = cap;
    if (next <= P / 64 || next == P) break;
    P = next;
  }
}

/* The keep-all plan when it fits: every node once, the least duration. */
static bool keepall_fits(mp_ctx *c) {
  if (mp_order_peak(c->g, c->start_order) > c->budget) return false;
  mp_events_from_order(c->g, c->start_order, c->events);
  ri_claim(c, mp_events_duration_floor(c->g));
  snprintf(c->msg, sizeof c->msg, "the keep-all plan fits the budget");
  return true;
}

static int slots_for(int L, int slots) {
  while (slots > 8 && rt_dp_entries(L, slots) > ROTOR_TABLE_ENTRIES) slots /= 2;
  return slots;
}

/* The best plan found, written to c->events; 0, or -1 with c->msg. */
static int finish(search *s, const rt_chain *ch) {
  mp_ctx *c = s->c;
  mp_events_clear(c->events);
  rt_result r = rt_player_play(s->player, s->best_ops, s->best_n, s->best_bw, s->best_keep_in,
                               c->events, 0, c->msg, sizeof c->msg);
  if (!r.ok || r.peak > c->budget) return -1;
  ri_claim(c, r.duration);
  snprintf(c->msg, sizeof c->msg,
           "a chain of %d forward segments (cut at articulation points%s)%s; %d slots; program budget "
           "%lld bytes (%d tables, %d plays), %lld reruns%s; optimal within the chain model only",
           ch->L, s->frontier ? ", then at the smallest frontiers" : "",
           ch->cross ? ", some backward reads outside it" : "", s->slots, (long long)s->best_pb,
           s->fills, s->plays, (long long)r.reruns, r.ins ? ", with offload" : "");
  return 0;
}

static void free_rows(search *s) {
  if (s->rows) rt_rows_destroy(s->rows);
  free(s->rows);
  s->rows = NULL;
}

static void search_destroy(search *s) {
  for (int i = 0; i < s->nmemo; i++) free(s->memo[i].ops);
  free(s->memo);
  free(s->best_ops);
  free_rows(s);
  rt_player_free(s->player);
  free(s->ops);
}

/* A chain and its program: at most `stages` stages, boundaries by
 * `frontier`, `slots` slots. */
typedef struct attempt {
  int stages, frontier, slots;
} attempt;

/* What the attempts found: the shortest plan (in c->events), the least
 * peak played, the tables filled. */
typedef struct outcome {
  bool found;
  double duration;
  int64_t least_peak, floor;
  int fills, L;
} outcome;

/* One attempt: its tables without a link, then, with one, the offload
 * choices at a few prices of link time; its best plan replaces the one in
 * c->events when it is shorter. */
static void attempt_chain(mp_ctx *c, const ri_info *ri, attempt a, outcome *o) {
  rt_chain ch;
  rt_chain_init(&ch, ri, a.stages, a.frontier);
  search s = {.ri = ri, .ch = &ch, .c = c, .slots = slots_for(ch.L, a.slots), .frontier = a.frontier,
              .least_peak = INT64_MAX};
  int64_t keep_peak = mp_order_peak(c->g, c->start_order);
  int tries = (int)c->opt[OPT_tries];
  o->floor = ch.floor;
  if (!o->L) o->L = ch.L; /* the first attempt's */
  if (ch.floor <= c->budget) {
    search_budget(&s, tries, keep_peak);
    static const double weights[] = {1, 0.5, 0.25};
    for (int w = 0; w < 3 && c->opt[OPT_offload] > 0 && c->bandwidth > 0 && !mp_time_up(c); w++) {
      if (s.found && s.best.duration <= c->duration_bound * (1 + 1e-12)) break;
      s.bw = c->bandwidth, s.weight = weights[w];
      search_budget(&s, tries > 2 ? 2 : tries, keep_peak);
    }
  }
  free_rows(&s); /* no table from here on: its memory goes before the plan is written */
  o->fills += s.fills;
  if (s.least_peak < o->least_peak) o->least_peak = s.least_peak;
  if (s.found && (!o->found || s.best.duration < o->duration)) {
    char msg[sizeof c->msg];
    snprintf(msg, sizeof msg, "%s", c->msg);
    if (finish(&s, &ch) == 0) o->found = true, o->duration = s.best.duration;
    else snprintf(c->msg, sizeof c->msg, "%s", msg);
  }
  search_destroy(&s);
  rt_chain_destroy(&ch);
}

static int rotor_solve(mp_ctx *c) {
  int rc = ri_begin(c, "rotor");
  if (rc) return rc > 0 ? 0 : -1;
  if (keepall_fits(c)) return 0;
  ri_info ri;
  ri_init_hold(&ri, c->g, c->start_order);
  attempt a = {(int)c->opt[OPT_stages], (int)c->opt[OPT_frontier], (int)c->opt[OPT_slots]};
  outcome o = {.least_peak = INT64_MAX};
  mp_events_clear(c->events);
  attempt_chain(c, &ri, a, &o);
  /* No plan: the chain's model was off by more than its tables reach (its
   * rounding, what it does not model).  Other chains and slot grids err
   * differently: 4x the slots, articulation points only, half the stages;
   * the first of them that finds a plan. */
  attempt more[] = {{a.stages, a.frontier, 4 * a.slots}, {a.stages, 0, a.slots}, {o.L / 2, a.frontier, a.slots}};
  for (int i = 0; i < 3 && !o.found && o.floor <= c->budget && !mp_time_up(c); i++) {
    if ((i == 1 && a.frontier == 0) || (i == 2 && more[i].stages < 1)) continue;
    attempt_chain(c, &ri, more[i], &o);
  }
  rc = o.found ? 0 : -1;
  if (o.found) {
    /* c->msg: the plan's chain */
  } else if (o.floor > c->budget) {
    snprintf(c->msg, sizeof c->msg,
             "no plan within budget %lld: what rotor never drops (buffers that cannot be rerun, "
             "with what a node reads and makes) takes %lld bytes at one position",
             (long long)c->budget, (long long)o.floor);
  } else if (o.least_peak < INT64_MAX) {
    snprintf(c->msg, sizeof c->msg,
             "no plan within budget %lld: rotor's least peak over %d tables on its chains (%d stages, "
             "then other slot grids and cuts) is %lld%s", (long long)c->budget, o.fills, o.L,
             (long long)o.least_peak, mp_time_up(c) ? " before the time limit" : "");
    rc = ri_no_plan(c); /* timeout when the limit cut the tables or the other chains */
  } else {
    snprintf(c->msg, sizeof c->msg, "rotor found no plan within budget %lld%s",
             (long long)c->budget, mp_time_up(c) ? " before the time limit" : "");
    rc = ri_no_plan(c);
  }
  if (rc) mp_events_clear(c->events);
  ri_destroy(&ri);
  return rc;
}

const mp_solver solver_rotor = {
    .name = "rotor",
    .summary = "rotor (Beaumont et al.): optimal persistent checkpointing of a chain by dynamic "
               "programming, on the chain of the forward's segments; with a host link, also "
               "offload (NeurIPS'21)",
    .decides = MP_DECIDES_EVENTS,
    .options = MP_OPTIONS(rotor_options),
    .quick = "slots=64,tries=2",
    .solve = rotor_solve,
};
