/* remat_ga.c - a genetic algorithm over first-run orders and what to keep,
 * recompute or offload, in the manner of SwapAdvisor (ASPLOS'20): an
 * individual is a (first-run order, decisions) pair, the decisions being
 * the genes of solvers/lib/remat_decode.h (one per gap between two uses of
 * a buffer; they name readers, not steps, so they keep their meaning under
 * another order).  The memory check is the budget: plans within it rank
 * first, by duration; the others by the bytes above it, then duration.
 *
 * May change the first-run order (option reorder=1, the default): its
 * plans then follow an order of its own, which it says in its note.
 *
 * Population: the order handed in with the greedy plan of remat-sa's start
 * (gaps across the peak dropped by bytes per unit of recomputation time);
 * with reorder, the list-scheduling orders (greedy, lpmf, bfs, dfs) and
 * randomised greedy orders, each first annealed toward a live peak within
 * the budget (`order_moves` moves of lib/ordls on the bytes x steps above
 * it: an order that fits needs no recomputation), then given the same
 * greedy plan, and every one the local search below; then the start plan
 * (in a chain, the plan before: c->start_events; else Chen's plan when one
 * fits) as a genome (lib/remat_map.h) at its own first-run order, in place
 * of the worst.  Generations:
 * the `elite` best pass on; every other place is a child of two parents
 * chosen by tournaments of `tournament`:
 *   - order crossover keeping topological validity (parent A's first c
 *     nodes, then the others in parent B's order: every node still follows
 *     its predecessors), with probability `crossover`;
 *   - decision crossover: each buffer's genes come from one parent;
 *   - mutation: with probability `mutation` a few order moves (a node to a
 *     random step between its last predecessor and its first successor),
 *     then `kicks` random moves of the decisions (remat-sa's moves);
 *   - a short annealing run on the decisions (`local` moves, the
 *     temperature falling from ls_heat x the mean node cost to 1% of it;
 *     lib/remat_anneal.c).
 * Children whose decisions cannot be decoded keep the slot that fails.
 * The best plan within the budget among all evaluated and the start plan
 * is returned (never longer than the start plan); never one over it;
 * `infeasible` only below the floor of mp_events_floor, `optimal` only at
 * the duration floor (which bounds every plan of every order).  Budget:
 * `generations`, or the time limit (status timeout when it cuts the
 * minimum); with fill=1 and a time limit, it evolves until the limit.
 * Deterministic for a seed when no limit cuts it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/listsched.h"
#include "lib/ordls.h"
#include "lib/remat_anneal.h"
#include "lib/remat_info.h"
#include "lib/remat_map.h"
#include "lib/sim.h"
#include "solver.h"

#define RGA_OPTIONS(X)                                                                          \
  X(population, INT, 16, 4, 10000, "individuals")                                               \
  X(generations, INT, 30, 1, 1e9, "generations (the budget without time limit; the minimum with fill)") \
  X(tournament, INT, 2, 1, 64, "tournament size")                                               \
  X(elite, INT, 2, 1, 1000, "best individuals passed on unchanged")                             \
  X(crossover, REAL, 0.9, 0, 1, "probability of crossover (else a copy of the first parent)")   \
  X(mutation, REAL, 0.3, 0, 1, "probability of order moves in a child")                         \
  X(kicks, INT, 2, 0, 1e6, "random moves of the decisions in a child")                          \
  X(local, INT, 300, 0, 1e9, "annealing moves on the decisions of each child (0: none)")        \
  X(ls_heat, REAL, 0.5, 1e-6, 1e6, "initial temperature of that annealing, times the mean node cost") \
  X(reorder, INT, 1, 0, 1, "1: search first-run orders too; 0: keep the order handed in")       \
  X(order_moves, INT, 20000, 0, 1e9, "reorder: annealing moves lowering each first order's peak toward the budget") \
  X(strict, INT, 1, 0, 1, "1: never rerun a reader of in-place storage after a later write (0: as the verifier allows)") \
  X(fill, INT, 1, 0, 1, "1: with --time-limit, evolve until it expires (generations is then a minimum)")
enum { RGA_OPTIONS(MP_OPT_ENUM) RGA_N_OPTS };
static const mp_option rga_options[] = {RGA_OPTIONS(MP_OPT_ENTRY)};

typedef struct indiv {
  int *ord;
  mp_rgene *genes;
  mp_rfig f;
  bool ok; /* decoded */
} indiv;

typedef struct ga {
  mp_ctx *c;
  const mp_graph *g;
  mp_rdec d;
  mp_rsa s;
  mp_rng r;
  int n, P;                 /* P: the population, at most cap (allocated) */
  int cap;
  indiv *pop, *next;
  int *tmp, *rank;
} ga;

/* ---- ranking ---- */

static bool better(const ga *x, const indiv *a, const indiv *b) {
  if (a->ok != b->ok) return a->ok;
  bool fa = a->f.peak <= x->c->budget, fb = b->f.peak <= x->c->budget;
  if (fa != fb) return fa;
  if (!fa && a->f.excess != b->f.excess) return a->f.excess < b->f.excess;
  return a->f.duration < b->f.duration;
}

static int tournament(ga *x, int k) {
  int w = (int)mp_rng_below(&x->r, (uint64_t)x->P);
  for (int i = 1; i < k; i++) {
    int y = (int)mp_rng_below(&x->r, (uint64_t)x->P);
    if (better(x, &x->pop[y], &x->pop[w])) w = y;
  }
  return w;
}

static void copy_indiv(const ga *x, indiv *dst, const indiv *src) {
  memcpy(dst->ord, src->ord, sizeof(int) * (size_t)x->n);
  memcpy(dst->genes, src->genes, sizeof(mp_rgene) * (size_t)x->d.n_slots);
  dst->f = src->f;
  dst->ok = src->ok;
}

/* ---- operators ---- */

/* A's first c nodes, then the others in B's order. */
static void cross_orders(ga *x, const int *a, const int *b, int *child) {
  int n = x->n, c = (int)mp_rng_below(&x->r, (uint64_t)n + 1);
  char *taken = (char *)x->tmp;
  memset(taken, 0, (size_t)n);
  for (int i = 0; i < c; i++) taken[child[i] = a[i]] = 1;
  for (int i = 0, m = c; i < n; i++)
    if (!taken[b[i]]) child[m++] = b[i];
}

static void cross_genes(ga *x, const mp_rgene *a, const mp_rgene *b, mp_rgene *child) {
  for (int buf = 0; buf < x->d.nb; buf++) {
    const mp_rgene *from = mp_rng_below(&x->r, 2) ? a : b;
    for (int s = x->d.slot0[buf]; s < x->d.slot0[buf + 1]; s++) child[s] = from[s];
  }
}

/* A node to a random step between its last predecessor and its first
 * successor (the order stays topological). */
static void move_node(ga *x, int *ord) {
  const mp_graph *g = x->g;
  int n = x->n, *pos = x->tmp;
  for (int i = 0; i < n; i++) pos[ord[i]] = i;
  int i = (int)mp_rng_below(&x->r, (uint64_t)n), v = ord[i], lo = 0, hi = n - 1;
  for (int k = 0; k < g->n_pred[v]; k++) lo = pos[g->pred[v][k]] + 1 > lo ? pos[g->pred[v][k]] + 1 : lo;
  for (int k = 0; k < g->n_succ[v]; k++) hi = pos[g->succ[v][k]] - 1 < hi ? pos[g->succ[v][k]] - 1 : hi;
  int j = lo + (int)mp_rng_below(&x->r, (uint64_t)(hi - lo + 1));
  if (j < i) memmove(ord + j + 1, ord + j, sizeof(int) * (size_t)(i - j));
  if (j > i) memmove(ord + i, ord + i + 1, sizeof(int) * (size_t)(j - i));
  ord[j] = v;
}

/* Load genes at the decoder's order, keeping the slots that fail to decode
 * (keep-all when the plan grows too long); false when nothing decodes. */
static bool load_repaired(ga *x, mp_rgene *genes) {
  for (int round = 0; round <= x->d.n_slots && !mp_time_up(x->c); round++) {
    if (mp_rsa_load(&x->s, genes) == 0) return true;
    mp_rfig f;
    mp_rdec_decode(&x->d, genes, x->c->budget, &f);
    if (f.fail_slot < 0)
      mp_rgenes_keep_all(&x->d, genes);
    else
      genes[f.fail_slot] = (mp_rgene){MP_RK_KEEP, 0, 0};
  }
  return false;
}

/* Kicks (random moves) and a short annealing run on an individual's
 * decisions at its order. */
static void improve(ga *x, indiv *ch, int kicks) {
  mp_ctx *c = x->c;
  mp_rdec_set_order(&x->d, ch->ord);
  ch->ok = load_repaired(x, ch->genes);
  if (!ch->ok) return;
  for (int k = 0; k < kicks && !mp_time_up(c); k++) { /* a kick decodes: a second at 10^6 nodes */
    mp_rfig f;
    if (!mp_rsa_move(&x->s, &x->r) || mp_rsa_eval(&x->s, &f))
      mp_rsa_undo(&x->s);
    else
      x->s.fc = f;
    x->s.n_undo = 0;
  }
  long local = (long)c->opt[OPT_local];
  if (local > 0)
    mp_rsa_anneal(&x->s, &x->r, local, c->opt[OPT_ls_heat] * x->s.step_penalty, 0.01, c->deadline);
  memcpy(ch->genes, x->s.cur, sizeof(mp_rgene) * (size_t)x->d.n_slots);
  ch->f = x->s.fc;
}

static void make_child(ga *x, indiv *ch) {
  mp_ctx *c = x->c;
  const indiv *a = &x->pop[tournament(x, (int)c->opt[OPT_tournament])];
  const indiv *b = &x->pop[tournament(x, (int)c->opt[OPT_tournament])];
  bool reorder = c->opt[OPT_reorder] > 0;
  if (mp_rng_unit(&x->r) < c->opt[OPT_crossover]) {
    if (reorder)
      cross_orders(x, a->ord, b->ord, ch->ord);
    else
      memcpy(ch->ord, a->ord, sizeof(int) * (size_t)x->n);
    cross_genes(x, a->genes, b->genes, ch->genes);
  } else {
    copy_indiv(x, ch, a);
  }
  if (reorder && mp_rng_unit(&x->r) < c->opt[OPT_mutation]) {
    int moves = 1 + (int)mp_rng_below(&x->r, 3);
    for (int k = 0; k < moves; k++) move_node(x, ch->ord);
  }
  improve(x, ch, (int)c->opt[OPT_kicks]);
}

/* ---- the population ---- */

/* Lower an order's live peak toward the budget before any recomputation:
 * sa's annealing over orders (lib/ordls: shift and drag moves, the profile
 * kept incrementally, its T0 sampling and Metropolis step) on the bytes x
 * steps above the budget.  An order whose peak fits needs no recomputation
 * at all. */
static void order_anneal(ga *x, int *ord, long moves) {
  if (x->n < 2 || moves <= 0) return;
  mp_ols o;
  mp_ols_init(&o, x->g, 1, 8);
  mp_ols_load(&o, ord);
  mp_ols_set_target(&o, x->c->budget);
  int reach = x->n < 64 ? x->n : 64;
  double T = mp_ols_sample_t0(&o, &x->r, 0.3, reach, 0, 100);
  double alpha = pow(1e-3, 1.0 / (double)moves);
  int64_t best = o.xs;
  memcpy(x->tmp, o.ord, sizeof(int) * (size_t)x->n);
  for (long k = 0; k < moves && best > 0; k++, T *= alpha) {
    if ((k & 15) == 0 && mp_time_up(x->c)) break; /* a move costs up to ms at 10^6 nodes */
    mp_ols_eval ev;
    if (mp_ols_anneal_step(&o, &x->r, 0.3, reach, T, 0, &ev) && o.xs < best) {
      best = o.xs;
      memcpy(x->tmp, o.ord, sizeof(int) * (size_t)x->n);
    }
  }
  memcpy(ord, x->tmp, sizeof(int) * (size_t)x->n);
  mp_ols_destroy(&o);
}

/* The greedy plan of remat-sa's start at individual i's order. */
static void seed(ga *x, indiv *ind, double deadline) {
  mp_rdec_set_order(&x->d, ind->ord);
  mp_rgenes_keep_all(&x->d, ind->genes);
  ind->ok = mp_rsa_load(&x->s, ind->genes) == 0;
  if (!ind->ok) return;
  mp_rsa_greedy(&x->s, x->d.n_slots, deadline);
  memcpy(ind->genes, x->s.cur, sizeof(mp_rgene) * (size_t)x->d.n_slots);
  ind->f = x->s.fc;
}

static void init_population(ga *x) {
  mp_ctx *c = x->c;
  bool reorder = c->opt[OPT_reorder] > 0;
  static const mp_ls_rule rules[] = {MP_LS_GREEDY, MP_LS_LPMF, MP_LS_BFS, MP_LS_DFS};
  for (int i = 0; i < x->P; i++) {
    indiv *ind = &x->pop[i];
    int rule = i - 1;
    bool made = true; /* false: the time limit cut the order (seconds at 10^6 nodes) */
    if (i == 0 || !reorder)
      memcpy(ind->ord, c->start_order, sizeof(int) * (size_t)x->n);
    else if (rule < (int)(sizeof rules / sizeof *rules))
      made = mp_ls_order_until(x->g, rules[rule], ind->ord, c->deadline);
    else
      made = mp_ls_order_random_greedy(x->g, &x->r, 0.3 * mp_rng_unit(&x->r), ind->ord, c->deadline);
    if (!made) { /* the population is the individuals made (i >= 1 here) */
      x->P = i;
      return;
    }
    if (i > 0 && reorder) order_anneal(x, ind->ord, (long)c->opt[OPT_order_moves]);
    if (i == 0 || reorder) {
      seed(x, ind, c->deadline);
      improve(x, ind, 0);
    } else { /* the same order: the first plan, kicked */
      copy_indiv(x, ind, &x->pop[0]);
      improve(x, ind, (int)c->opt[OPT_kicks] + 1);
    }
    if (mp_time_up(c)) { /* no copies of the first: megabytes each at 10^6 nodes */
      x->P = i + 1;
      return;
    }
  }
}

static int by_rank(const void *a, const void *b, void *ctx) {
  const ga *x = ctx;
  const indiv *p = &x->pop[*(const int *)a], *q = &x->pop[*(const int *)b];
  return better(x, p, q) ? -1 : better(x, q, p) ? 1 : 0;
}

/* The start plan (a chain's plan before, else Chen's plan when one fits)
 * joins the population in place of its worst individual: at its own
 * first-run order (reorder; when that order is topological) or the order
 * handed in (reorder=0), its genome
 * mapped (lib/remat_map.h), then the same short annealing as every child.  st says what it was, for the end:
 * the start plan is returned when nothing shorter is found. */
static void inject_start(ga *x, const mp_events *start, mp_rstart *st) {
  mp_ctx *c = x->c;
  memset(st, 0, sizeof *st);
  if (!start) return;
  int P = x->P, worst = 0;
  for (int i = 1; i < P; i++)
    if (better(x, &x->pop[worst], &x->pop[i])) worst = i;
  indiv *ind = &x->pop[worst];
  /* a first-run order puts the inputs first (they never run): not
   * topological when an input reads a tensor the graph makes, and
   * move_node needs it to be */
  if (c->opt[OPT_reorder] <= 0 || mp_events_first_order(x->g, start, ind->ord) ||
      !mp_sim_order_ok(x->g, ind->ord, NULL))
    memcpy(ind->ord, c->start_order, sizeof(int) * (size_t)x->n);
  mp_rdec_set_order(&x->d, ind->ord);
  mp_rstart_map(&x->d, start, c->budget, c->deadline, st, ind->genes);
  improve(x, ind, 0); /* genes that do not decode: repaired there, or keep-all */
}

/* The elite pass on, children fill the rest; false when the deadline cut
 * the generation short. */
static bool next_generation(ga *x) {
  int P = x->P, elite = (int)x->c->opt[OPT_elite];
  if (elite > P - 1) elite = P - 1;
  int *rank = x->rank; /* not x->tmp: the children's operators use it */
  for (int i = 0; i < P; i++) rank[i] = i;
  qsort_r(rank, (size_t)P, sizeof(int), by_rank, x);
  for (int i = 0; i < elite; i++) copy_indiv(x, &x->next[i], &x->pop[rank[i]]);
  bool whole = true;
  for (int i = elite; i < P; i++) {
    if (mp_time_up(x->c)) { /* the rest of the old population stays */
      copy_indiv(x, &x->next[i], &x->pop[rank[i]]);
      whole = false;
      continue;
    }
    make_child(x, &x->next[i]);
  }
  indiv *t = x->pop;
  x->pop = x->next;
  x->next = t;
  return whole;
}

static void ga_init(ga *x, mp_ctx *c) {
  memset(x, 0, sizeof *x);
  x->c = c;
  x->g = c->g;
  x->n = c->g->n;
  x->P = x->cap = (int)c->opt[OPT_population];
  mp_rdec_init(&x->d, x->g, c->bandwidth);
  x->d.strict = c->opt[OPT_strict] > 0;
  mp_rdec_set_order(&x->d, c->start_order);
  mp_rsa_init(&x->s, &x->d, c->budget);
  mp_rng_seed(&x->r, c->seed);
  size_t nn = (size_t)(x->n > x->P ? x->n : x->P) + 1, ms = (size_t)x->d.n_slots + 1;
  x->tmp = mp_xmalloc(sizeof(int) * nn);
  x->rank = mp_xmalloc(sizeof(int) * (size_t)x->P);
  x->pop = mp_xcalloc((size_t)x->P, sizeof(indiv));
  x->next = mp_xcalloc((size_t)x->P, sizeof(indiv));
  for (int i = 0; i < 2 * x->cap; i++) {
    indiv *ind = i < x->cap ? &x->pop[i] : &x->next[i - x->cap];
    ind->ord = mp_xmalloc(sizeof(int) * nn);
    ind->genes = mp_xcalloc(ms, sizeof(mp_rgene));
  }
}

static void ga_destroy(ga *x) {
  for (int i = 0; i < 2 * x->cap; i++) {
    indiv *ind = i < x->cap ? &x->pop[i] : &x->next[i - x->cap];
    free(ind->ord);
    free(ind->genes);
  }
  free(x->pop);
  free(x->next);
  free(x->tmp);
  free(x->rank);
  mp_rsa_destroy(&x->s);
  mp_rdec_destroy(&x->d);
}

/* Keep-all at the order handed in, when it fits: nothing runs twice. */
static bool keep_all_fits(ga *x) {
  mp_rgene *keep = x->pop[0].genes;
  mp_rgenes_keep_all(&x->d, keep);
  return mp_rsa_load(&x->s, keep) == 0 && mp_rsa_fits(&x->s, &x->s.fc) &&
         x->s.fc.duration <= x->c->duration_bound * (1 + 1e-12);
}

static bool at_floor(const ga *x) {
  return x->s.has_best && x->s.best_duration <= x->c->duration_bound * (1 + 1e-12);
}

static int rga_solve(mp_ctx *c) {
  int begin = ri_begin(c, "remat-ga");
  if (begin) return begin < 0 ? -1 : 0;
  c->status = MP_FEASIBLE;
  const mp_graph *g = c->g;
  int64_t floor = mp_events_floor(g);
  ga x;
  ga_init(&x, c);
  int gens = (int)c->opt[OPT_generations], gen = 0;
  bool fill = c->opt[OPT_fill] > 0 && c->deadline > 0, cut = false;
  mp_rstart st = {0};
  mp_events own_plan;
  mp_events_init(&own_plan);
  const mp_events *start = c->start_events;
  bool own = false;
  if (!keep_all_fits(&x)) {
    own = !start && mp_rseed_chen(g, c->start_order, c->budget, c->deadline, &own_plan) == 0;
    if (own) start = &own_plan;
    init_population(&x);
    inject_start(&x, start, &st);
    cut = mp_time_up(c);
    for (; (gen < gens || fill) && !cut && !at_floor(&x); gen++) cut = !next_generation(&x);
    /* a child's local search stops at the deadline too: the last ones may
     * have been cut without the generation knowing */
    if (mp_time_up(c)) cut = true;
  }
  int rc = 0;
  if (mp_rstart_wins(&st, x.s.has_best, x.s.best_duration)) {
    mp_events_copy(c->events, start);
    snprintf(c->msg, sizeof c->msg, "no plan shorter than %s found (%ld plans tried)",
             own ? "its Chen start plan" : "the start plan", x.s.evals);
    if (st.duration <= c->duration_bound * (1 + 1e-12))
      c->status = MP_OPTIMAL;
    else if (cut && gen <= gens)
      c->status = MP_TIMEOUT;
  } else if (x.s.has_best) {
    mp_events_copy(c->events, &x.s.best_plan);
    if (at_floor(&x))
      c->status = MP_OPTIMAL;
    else if (cut && gen <= gens) /* the minimum not done */
      c->status = MP_TIMEOUT;
    if (!mp_events_follow(g, c->events, c->start_order))
      snprintf(c->msg, sizeof c->msg,
               "remat-ga changed the first-run order (reorder=1): the plan follows an order of its own");
  } else {
    snprintf(c->msg, sizeof c->msg,
             "no plan within budget %lld found (%ld plans tried; the floor is %lld)%s",
             (long long)c->budget, x.s.evals, (long long)floor, cut ? " before the time limit" : "");
    if (cut) c->status = MP_TIMEOUT; /* the limit, not the search, ended it */
    rc = -1;
  }
  mp_events_destroy(&own_plan);
  ga_destroy(&x);
  return rc;
}

const mp_solver solver_remat_ga = {
    .name = "remat-ga",
    .summary = "genetic algorithm (SwapAdvisor-style) over first-run orders and keep / recompute / "
               "offload decisions; may change the first-run order (reorder=0: keeps it)",
    .decides = MP_DECIDES_EVENTS,
    .options = MP_OPTIONS(rga_options),
    .quick = "population=6,generations=4,local=100,order_moves=300,fill=0",
    .solve = rga_solve,
};
