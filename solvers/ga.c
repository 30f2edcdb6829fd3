/* ga.c - genetic algorithm over topological orders.
 *
 * Encoding: an individual is a valid order itself.  Every operator keeps
 * validity:
 *   - crossover (precedence-preserving one-point order crossover): the
 *     child takes parent A's first c nodes, then the remaining nodes in
 *     parent B's order.  Both parents are topological, so every node's
 *     predecessors come before it in the child;
 *   - mutation: a few moves of one node to a random step between its last
 *     predecessor and its first successor (the moves of `sa`);
 *   - memetic step (option local): a few times per child, one random node
 *     moves to the best step of its window (the child keeps the change);
 *   - new random individuals: a random priority vector decoded by the list
 *     scheduler of listsched.c (always valid).
 * Population: the start order (the chain's previous stage, e.g. greedy in
 * `--order greedy,ga`), the given/greedy/lpmf/bfs/dfs orders, mutants of the
 * start order and random orders.  Fitness: the live peak, ties broken by
 * the number of steps at the peak, then by the mean live memory.  Selection: tournaments of
 * `tournament` individuals; the `elite` best survive unchanged, so the best
 * never gets worse and the result is never worse than the start.  Budget:
 * `generations`, or the time limit (status timeout).  Deterministic for a
 * seed. */
#include <stdlib.h>
#include <string.h>

#include "listsched.h"
#include "solver.h"

#define GA_OPTIONS(X)                                                          \
  X(population, 64, 4, 100000, "individuals")                                  \
  X(generations, 400, 1, 1e9, "generations")                                   \
  X(tournament, 3, 1, 64, "tournament size")                                   \
  X(elite, 2, 1, 1000, "best individuals copied unchanged")                    \
  X(crossover, 0.9, 0, 1, "crossover probability")                             \
  X(mutation, 0.5, 0, 1, "probability of each further mutation move (>= 1 move)") \
  X(local, 0, 0, 1000, "memetic step: best-position moves applied to each child (0: none)") \
  X(fill, 1, 0, 1, "1: with --time-limit, keep evolving until it expires (generations is then a minimum)")
enum { GA_OPTIONS(MP_OPT_ENUM) GA_N_OPTS };
static const mp_option ga_options[] = {GA_OPTIONS(MP_OPT_ENTRY)};

typedef struct indiv {
  int *ord;
  int64_t peak;
  int at_peak; /* steps whose live memory is the peak */
  double mean;
} indiv;

static void evaluate(const mp_graph *g, indiv *x) {
  mp_problem p;
  mp_problem_from_order(g, x->ord, 1, &p);
  int64_t *prof = mp_profile(&p);
  int64_t peak = 0;
  double sum = 0;
  for (int t = 0; t < g->n; t++) {
    if (prof[t] > peak) peak = prof[t];
    sum += (double)prof[t];
  }
  free(p.items);
  int at = 0;
  for (int t = 0; t < g->n; t++) at += prof[t] == peak;
  x->peak = peak;
  x->at_peak = at;
  x->mean = g->n ? sum / g->n : 0;
  free(prof);
}

static bool better(const indiv *a, const indiv *b) {
  if (a->peak != b->peak) return a->peak < b->peak;
  if (a->at_peak != b->at_peak) return a->at_peak < b->at_peak;
  return a->mean < b->mean;
}

/* one validity-preserving move: a node, half the time with the operator
 * chain that follows it in the order (each next node its only successor,
 * with it as only predecessor), goes to a random step of its window */
static void mutate_move(const mp_graph *g, int *ord, int *pos, mp_rng *r) {
  int n = g->n;
  for (int i = 0; i < n; i++) pos[ord[i]] = i;
  int i = (int)mp_rng_below(r, (uint64_t)n), v = ord[i], L = 1;
  if (mp_rng_below(r, 2)) {
    int last = v;
    while (i + L < n && g->n_succ[last] == 1 && g->succ[last][0] == ord[i + L] &&
           g->n_pred[ord[i + L]] == 1)
      last = ord[i + L++];
  }
  int w = ord[i + L - 1];
  int lo = 0, hi = n - 1;
  for (int k = 0; k < g->n_pred[v]; k++)
    if (pos[g->pred[v][k]] + 1 > lo) lo = pos[g->pred[v][k]] + 1;
  for (int k = 0; k < g->n_succ[w]; k++)
    if (pos[g->succ[w][k]] - 1 < hi) hi = pos[g->succ[w][k]] - 1;
  hi -= L - 1;
  if (hi <= lo) return;
  int j = lo + (int)mp_rng_below(r, (uint64_t)(hi - lo));
  if (j >= i) j++;
  int *blk = mp_xmalloc(sizeof(int) * (size_t)L);
  memcpy(blk, ord + i, sizeof(int) * (size_t)L);
  if (j > i)
    memmove(ord + i, ord + i + L, sizeof(int) * (size_t)(j - i));
  else
    memmove(ord + j + L, ord + j, sizeof(int) * (size_t)(i - j));
  memcpy(ord + j, blk, sizeof(int) * (size_t)L);
  free(blk);
}

static void mutate(const mp_graph *g, int *ord, int *pos, mp_rng *r, double pm) {
  do mutate_move(g, ord, pos, r);
  while (mp_rng_unit(r) < pm);
}

static void move_node(int *ord, int i, int j) {
  int v = ord[i];
  if (i < j)
    memmove(ord + i, ord + i + 1, sizeof(int) * (size_t)(j - i));
  else
    memmove(ord + j + 1, ord + j, sizeof(int) * (size_t)(i - j));
  ord[j] = v;
}

/* Memetic step: a random node goes to the best step of its window (all
 * steps between its last predecessor and first successor tried). */
static void local_move(const mp_graph *g, indiv *x, int *pos, mp_rng *r) {
  int n = g->n, *ord = x->ord;
  for (int i = 0; i < n; i++) pos[ord[i]] = i;
  int i = (int)mp_rng_below(r, (uint64_t)n), v = ord[i];
  int lo = 0, hi = n - 1;
  for (int k = 0; k < g->n_pred[v]; k++)
    if (pos[g->pred[v][k]] + 1 > lo) lo = pos[g->pred[v][k]] + 1;
  for (int k = 0; k < g->n_succ[v]; k++)
    if (pos[g->succ[v][k]] - 1 < hi) hi = pos[g->succ[v][k]] - 1;
  if (hi <= lo) return;
  indiv best = *x, cur = *x;
  int bj = i, at = i;
  for (int j = lo; j <= hi; j++) {
    if (j == i) continue;
    move_node(ord, at, j);
    at = j;
    evaluate(g, &cur);
    if (better(&cur, &best)) {
      best = cur;
      bj = j;
    }
  }
  move_node(ord, at, bj);
  x->peak = best.peak;
  x->at_peak = best.at_peak;
  x->mean = best.mean;
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

static int ga_solve(mp_ctx *c) {
  const mp_graph *g = c->g;
  int n = g->n;
  memcpy(c->order, c->start_order, sizeof(int) * (size_t)n);
  c->status = MP_FEASIBLE;
  if (n < 2) return 0;
  int np = (int)c->opt[OPT_population];
  int elite = (int)c->opt[OPT_elite];
  if (elite > np) elite = np;
  long gens = (long)c->opt[OPT_generations];
  int tk = (int)c->opt[OPT_tournament];
  double pc = c->opt[OPT_crossover], pm = c->opt[OPT_mutation];
  mp_rng r;
  mp_rng_seed(&r, c->seed);
  indiv *pop = mp_xcalloc((size_t)np, sizeof(indiv)), *next = mp_xcalloc((size_t)np, sizeof(indiv));
  for (int i = 0; i < np; i++) {
    pop[i].ord = mp_xmalloc(sizeof(int) * (size_t)n);
    next[i].ord = mp_xmalloc(sizeof(int) * (size_t)n);
  }
  int *pos = mp_xmalloc(sizeof(int) * (size_t)n);
  bool *used = mp_xmalloc(sizeof(bool) * (size_t)n);
  double *prio = mp_xmalloc(sizeof(double) * (size_t)n);
  /* initial population */
  for (int i = 0; i < np; i++) {
    if (i == 0) {
      memcpy(pop[i].ord, c->start_order, sizeof(int) * (size_t)n);
    } else if (i <= MP_LS_N_RULES) {
      mp_ls_order(g, (mp_ls_rule)(i - 1), pop[i].ord);
    } else if (i % 2 == 0) {
      memcpy(pop[i].ord, c->start_order, sizeof(int) * (size_t)n);
      mutate(g, pop[i].ord, pos, &r, 0.8);
    } else {
      for (int v = 0; v < n; v++) prio[v] = mp_rng_unit(&r);
      mp_ls_order_prio(g, prio, pop[i].ord);
    }
    evaluate(g, &pop[i]);
  }
  qsort(pop, (size_t)np, sizeof(indiv), cmp_indiv);
  bool cut = false, fill = c->opt[OPT_fill] > 0 && c->deadline > 0;
  long gen = 0;
  for (; (gen < gens || fill) && !cut; gen++) {
    for (int i = 0; i < elite; i++) {
      memcpy(next[i].ord, pop[i].ord, sizeof(int) * (size_t)n);
      next[i].peak = pop[i].peak;
      next[i].at_peak = pop[i].at_peak;
      next[i].mean = pop[i].mean;
    }
    for (int i = elite; i < np; i++) {
      int a = tournament(pop, np, tk, &r);
      if (mp_rng_unit(&r) < pc) {
        int b = tournament(pop, np, tk, &r);
        crossover(n, pop[a].ord, pop[b].ord, next[i].ord, used, &r);
        if (mp_rng_unit(&r) < pm) mutate(g, next[i].ord, pos, &r, pm);
      } else {
        memcpy(next[i].ord, pop[a].ord, sizeof(int) * (size_t)n);
        mutate(g, next[i].ord, pos, &r, pm);
      }
      evaluate(g, &next[i]);
      for (int k = 0; k < (int)c->opt[OPT_local]; k++) local_move(g, &next[i], pos, &r);
      if ((i & 7) == 0 && mp_time_up(c)) {
        /* keep the evaluated part of the new generation */
        for (int k = i + 1; k < np; k++) {
          memcpy(next[k].ord, pop[k].ord, sizeof(int) * (size_t)n);
          next[k].peak = pop[k].peak;
          next[k].at_peak = pop[k].at_peak;
          next[k].mean = pop[k].mean;
        }
        cut = true;
        break;
      }
    }
    indiv *t = pop;
    pop = next;
    next = t;
    qsort(pop, (size_t)np, sizeof(indiv), cmp_indiv);
  }
  /* pop[0] is at least as good as the start order (elitism) */
  memcpy(c->order, pop[0].ord, sizeof(int) * (size_t)n);
  if (cut && gen <= gens) c->status = MP_TIMEOUT; /* cut before the minimum */
  for (int i = 0; i < np; i++) {
    free(pop[i].ord);
    free(next[i].ord);
  }
  free(pop);
  free(next);
  free(pos);
  free(used);
  free(prio);
  return 0;
}

const mp_solver solver_ga = {
    .name = "ga",
    .summary = "genetic algorithm over valid orders (precedence-preserving crossover, tournaments, elitism)",
    .decides = MP_DECIDES_ORDER,
    .options = MP_OPTIONS(ga_options),
    .quick = "population=12,generations=10,fill=0",
    .solve = ga_solve,
};
