/* ga.c - genetic algorithm over topological orders (memetic, steady state).
 *
 * Encoding: an individual is a valid order itself.  Every operator keeps
 * validity:
 *   - crossover (precedence-preserving one-point order crossover): the
 *     child takes parent A's first c nodes, then the remaining nodes in
 *     parent B's order.  Both parents are topological, so every node's
 *     predecessors come before it in the child.  A prefix of an order is a
 *     set of executed nodes, which is what decides the live memory at the
 *     cut, so the child inherits A's way into the cut and B's way out;
 *   - mutation: random moves of lib/ordls.c (a node or operator chain to a
 *     random step of its window, or a node dragged with its ancestors or
 *     descendants), `mutation` is the probability of each further move;
 *   - local search (memetic step, `local` moves per child): a short
 *     annealing run with the moves and the incremental evaluation of
 *     lib/ordls.c on the energy "bytes x steps above a target just under
 *     the best peak found" (as in sa, energy 1), the temperature falling
 *     geometrically from T0 * ls_heat to a thousandth of it, T0 the mean
 *     uphill of 200 sampled moves from the start order / ln 2.
 * Population: the start order (the chain's previous stage, e.g. greedy in
 * `--order greedy,ga`), the given/greedy/lpmf/bfs/dfs orders, and orders
 * of a randomised greedy list schedule; every one but the start order goes
 * through the local search.  Fitness: the live peak, ties broken by the
 * number of steps at the peak, then by the mean live memory.
 * Steady state: each step makes one child from parents chosen by
 * tournaments of `tournament` individuals, improves it, and lets it replace
 * the worse of two random individuals outside the `elite` best when it is
 * better and no individual has the same order (diversity: no duplicates,
 * so the population cannot collapse onto one order).  A generation is
 * `population` children.  The best individual is never replaced, so the
 * result is never worse than the start.  Budget:
 * `generations`, or the time limit (status timeout); with fill=1 and a time
 * limit it goes on until the limit.  Deterministic for a seed when no limit
 * cuts the run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/budget.h"
#include "lib/listsched.h"
#include "lib/ordls.h"
#include "schedbound.h"
#include "solver.h"

#define GA_OPTIONS(X)                                                                          \
  X(population, INT, 24, 4, 100000, "individuals")                                             \
  X(generations, INT, 40, 1, 1e9, "generations (of `population` children each)")               \
  X(tournament, INT, 2, 1, 64, "tournament size")                                              \
  X(elite, INT, 1, 1, 1000, "best individuals never replaced")                                 \
  X(crossover, REAL, 0.9, 0, 1, "crossover probability")                                       \
  X(mutation, REAL, 0.5, 0, 1, "probability of each further mutation move (1 to n moves)")      \
  X(local, INT, 3000, 0, 1e9, "memetic step: annealing moves applied to each child (0: none)") \
  X(ls_heat, REAL, 0.3, 1e-4, 100, "initial temperature of the local search (factor of T0)")   \
  X(margin, REAL, 0.02, 0, 0.5, "local search target = best peak * (1 - margin) - 1 byte")     \
  X(drag, REAL, 0.3, 0, 1, "probability of a drag move in mutation and local search")          \
  X(reach, INT, 256, 2, 1e9, "drag moves: the farthest step a node is dragged to")             \
  X(fill, INT, 1, 0, 1, "1: with --time-limit, keep evolving until it expires (generations is then a minimum)") \
  X(stop, INT, 1, 0, 1, "1: stop, proven optimal, once the peak meets the min-cut lower bound of schedbound.h")
enum { GA_OPTIONS(MP_OPT_ENUM) GA_N_OPTS };
static const mp_option ga_options[] = {GA_OPTIONS(MP_OPT_ENTRY)};

typedef struct indiv {
  int *ord;
  int64_t peak;
  int at_peak; /* steps whose live memory is the peak */
  double mean;
} indiv;

/* Fitness from the local-search state holding the individual's order. */
static void fitness(const mp_ols *s, indiv *x) {
  int64_t peak = mp_ols_peak(s);
  double sum = 0;
  int at = 0;
  for (int t = 0; t < s->n; t++) {
    sum += (double)s->M[t];
    at += s->M[t] == peak;
  }
  x->peak = peak;
  x->at_peak = at;
  x->mean = s->n ? sum / s->n : 0;
  memcpy(x->ord, s->ord, sizeof(int) * (size_t)s->n);
}

static bool better(const indiv *a, const indiv *b) {
  if (a->peak != b->peak) return a->peak < b->peak;
  if (a->at_peak != b->at_peak) return a->at_peak < b->at_peak;
  return a->mean < b->mean;
}

typedef struct ga {
  const mp_graph *g;
  mp_ctx *c;
  mp_ols s;
  mp_rng r;
  int n;
  double pdrag, margin, T0, heat;
  long local;
  int reach;
  int64_t best_peak; /* the target follows it */
  bool cut;
} ga;

/* Short annealing run on the order loaded in G->s (energy: excess over the
 * target under the best peak).  Keeps the best state it visits. */
static void local_search(ga *G, int *keep) {
  mp_ols *s = &G->s;
  if (G->local <= 0) return;
  mp_ols_target_below(s, G->best_peak, G->margin);
  int64_t bp = mp_ols_peak(s), bx = s->xs;
  memcpy(keep, s->ord, sizeof(int) * (size_t)G->n);
  double T = G->T0 * G->heat, alpha = pow(1e-3, 1.0 / (double)G->local);
  bool dirty = false; /* the state differs from keep */
  for (long it = 0; it < G->local; it++, T *= alpha) {
    if ((it & 15) == 0 && mp_time_up(G->c)) { /* a step costs ms at 10^6 nodes */
      G->cut = true;
      break;
    }
    mp_ols_eval ev;
    if (!mp_ols_anneal_step(s, &G->r, G->pdrag, G->reach, T, 0, &ev)) continue;
    if (ev.peak < bp || (ev.peak == bp && ev.xs < bx)) {
      bp = ev.peak;
      bx = ev.xs;
      memcpy(keep, s->ord, sizeof(int) * (size_t)G->n);
      dirty = false;
      if (ev.peak < G->best_peak) {
        G->best_peak = ev.peak;
        mp_ols_target_below(s, G->best_peak, G->margin);
        bx = s->xs;
      }
    } else {
      dirty = true;
    }
  }
  if (dirty) mp_ols_load(s, keep);
}

/* One move, then each further one with probability pm, at most n in all:
 * at pm = 1 (in range) the draw alone would never stop. */
static void mutate(ga *G, double pm) {
  int moves = 0;
  do
    if (mp_ols_move(&G->s, &G->r, G->pdrag, G->reach)) mp_ols_commit(&G->s, mp_ols_eval_move(&G->s));
  while (++moves < G->n && mp_rng_unit(&G->r) < pm);
}

static void crossover(int n, const int *a, const int *b, int *child, bool *used, mp_rng *r) {
  int c = (int)mp_rng_below(r, (uint64_t)n + 1), k = 0;
  memset(used, 0, sizeof(bool) * (size_t)n);
  for (int i = 0; i < c; i++) {
    child[k++] = a[i];
    used[a[i]] = true;
  }
  for (int i = 0; i < n; i++)
    if (!used[b[i]]) child[k++] = b[i];
}

static int tournament(const indiv *pop, int np, int k, mp_rng *r) {
  int best = (int)mp_rng_below(r, (uint64_t)np);
  for (int i = 1; i < k; i++) {
    int x = (int)mp_rng_below(r, (uint64_t)np);
    if (better(&pop[x], &pop[best])) best = x;
  }
  return best;
}

static int cmp_indiv(const void *a, const void *b) {
  const indiv *x = a, *y = b;
  if (better(x, y)) return -1;
  if (better(y, x)) return 1;
  return 0;
}

static bool duplicate(const indiv *pop, int np, const indiv *x, int n) {
  for (int i = 0; i < np; i++)
    if (pop[i].peak == x->peak && pop[i].at_peak == x->at_peak &&
        memcmp(pop[i].ord, x->ord, sizeof(int) * (size_t)n) == 0)
      return true;
  return false;
}

static void ga_init(ga *G, mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  memset(G, 0, sizeof *G);
  G->g = g;
  G->c = c;
  G->n = n;
  G->pdrag = c->opt[OPT_drag];
  G->margin = c->opt[OPT_margin];
  G->heat = c->opt[OPT_ls_heat];
  G->local = (long)c->opt[OPT_local];
  G->reach = c->opt[OPT_reach] < n ? (int)c->opt[OPT_reach] : n;
  mp_rng_seed(&G->r, c->seed);
  mp_ols_init(&G->s, g, 1, 1);
  mp_ols_load(&G->s, c->start_order);
  G->best_peak = mp_ols_peak(&G->s);
  mp_ols_target_below(&G->s, G->best_peak, G->margin);
  /* local-search temperature scale: mean uphill of sampled moves */
  G->T0 = mp_ols_sample_t0(&G->s, &G->r, G->pdrag, G->reach, 0, 200);
}

/* Individual i's order before its local search: the start order, a rule's
 * order, or a randomised greedy one (seconds at 10^6 nodes, so the time
 * limit cuts it: false). */
static bool make_individual(ga *G, int i, int *ord) {
  double dl = G->c->deadline;
  if (i == 0) {
    memcpy(ord, G->c->start_order, sizeof(int) * (size_t)G->n);
    return true;
  }
  if (i <= MP_LS_N_RULES) return mp_ls_order_until(G->g, (mp_ls_rule)(i - 1), ord, dl);
  return mp_ls_order_random_greedy(G->g, &G->r, 0.3 * mp_rng_unit(&G->r), ord, dl);
}

/* The initial population, best first: the start order as it is, the rule
 * orders and randomised greedy orders improved.  Returns its size (a time
 * limit, or an individual at the bound, may cut it short). */
static int seed_population(ga *G, indiv *pop, int np, int64_t lb, int *tmp, int *keep) {
  int filled = 0;
  int64_t pop_best = INT64_MAX;
  for (int i = 0; i < np && !G->cut && pop_best != lb; i++) {
    /* an order and its load: one to four seconds at 10^6 nodes */
    if ((i > 0 && mp_time_up(G->c)) || !make_individual(G, i, tmp)) {
      G->cut = true;
      break;
    }
    mp_ols_load(&G->s, tmp);
    if (i > 0) local_search(G, keep);
    fitness(&G->s, &pop[i]);
    if (pop[i].peak < G->best_peak) G->best_peak = pop[i].peak;
    if (pop[i].peak < pop_best) pop_best = pop[i].peak;
    filled = i + 1;
  }
  qsort(pop, (size_t)filled, sizeof(indiv), cmp_indiv);
  return filled;
}

/* One steady-state step: a child from tournament parents, improved,
 * replaces the worse of two random individuals outside the elite when it
 * is better and no individual has its order. */
static void steady_step(ga *G, indiv *pop, int np, int elite, indiv *child, int *tmp, int *keep,
                        bool *used) {
  mp_ctx *c = G->c;
  int tk = (int)c->opt[OPT_tournament];
  double pc = c->opt[OPT_crossover], pm = c->opt[OPT_mutation];
  int a = tournament(pop, np, tk, &G->r);
  if (np > 1 && mp_rng_unit(&G->r) < pc) {
    int b = tournament(pop, np, tk, &G->r);
    if (b == a) b = (a + 1 + (int)mp_rng_below(&G->r, (uint64_t)(np - 1))) % np;
    crossover(G->n, pop[a].ord, pop[b].ord, tmp, used, &G->r);
    mp_ols_load(&G->s, tmp);
    if (mp_rng_unit(&G->r) < pm) mutate(G, pm);
  } else {
    mp_ols_load(&G->s, pop[a].ord);
    mutate(G, pm);
  }
  local_search(G, keep);
  fitness(&G->s, child);
  int v = elite + (int)mp_rng_below(&G->r, (uint64_t)(np - elite));
  int v2 = elite + (int)mp_rng_below(&G->r, (uint64_t)(np - elite));
  if (better(&pop[v], &pop[v2])) v = v2;
  if (better(child, &pop[v]) && !duplicate(pop, np, child, G->n)) {
    int *spare = pop[v].ord;
    pop[v] = *child;
    child->ord = spare;
    qsort(pop, (size_t)np, sizeof(indiv), cmp_indiv);
  }
}

static int ga_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  memcpy(c->order, c->start_order, sizeof(int) * (size_t)n);
  c->status = MP_FEASIBLE;
  if (n < 2) return 0;
  int np = (int)c->opt[OPT_population], npop = np;
  int elite = (int)c->opt[OPT_elite];
  if (elite >= np) elite = np - 1;
  long gens = (long)c->opt[OPT_generations];
  ga G;
  ga_init(&G, c);
  /* only a peak equal to a bound valid for every order proves it optimal
   * (under a time limit the bound gets half the time left, the search the
   * rest: the bound is then the best proven by its share) */
  int64_t lb = c->opt[OPT_stop] > 0 ? mp_sched_lower_bound_until(g, mp_deadline_share(c, 0.5), NULL, NULL) : 0;
  c->bound = lb;
  indiv *pop = mp_xcalloc((size_t)np, sizeof(indiv));
  for (int i = 0; i < np; i++) pop[i].ord = mp_xmalloc(sizeof(int) * (size_t)n);
  indiv child = {mp_xmalloc(sizeof(int) * (size_t)n), 0, 0, 0};
  int *tmp = mp_xmalloc(sizeof(int) * (size_t)n), *keep = mp_xmalloc(sizeof(int) * (size_t)n);
  bool *used = mp_xmalloc(sizeof(bool) * (size_t)n);
  np = seed_population(&G, pop, np, lb, tmp, keep);
  bool fill = c->opt[OPT_fill] > 0 && c->deadline > 0;
  long gen = 0, children = 0;
  while ((gen < gens || fill) && !G.cut && np > elite && pop[0].peak != lb) {
    /* local_search looks at the clock too, but not with local=0, and a
     * child's crossover and load come first */
    if (mp_time_up(c)) {
      G.cut = true;
      break;
    }
    steady_step(&G, pop, np, elite, &child, tmp, keep, used);
    if (++children % np == 0) gen++;
  }
  /* pop[0] is at least as good as the start order (never replaced by a
   * worse one); a cut run still holds a full valid order there */
  memcpy(c->order, pop[0].ord, sizeof(int) * (size_t)n);
  if (pop[0].peak == lb)
    c->status = MP_OPTIMAL;
  else if (G.cut && gen < gens)
    c->status = MP_TIMEOUT; /* cut before the minimum */
  for (int i = 0; i < npop; i++) free(pop[i].ord);
  free(pop);
  free(child.ord);
  free(tmp);
  free(keep);
  free(used);
  mp_ols_destroy(&G.s);
  return 0;
}

const mp_solver solver_ga = {
    .name = "ga",
    .summary = "memetic genetic algorithm over valid orders (order crossover, tournaments, annealing local search, no duplicates)",
    .decides = MP_DECIDES_ORDER,
    .options = MP_OPTIONS(ga_options),
    .quick = "population=8,generations=3,local=50,fill=0",
    .solve = ga_solve,
};
