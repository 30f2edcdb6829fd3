/* exact.c - complete branch-and-bound placement (MiniMalloc's ideas and more).
 * The solver is this folder: exact.h (private interface), part.c (a part:
 * sections, ranks, twins), infer.c (lowest offsets, inference), search.c
 * (the decision search), memo.c (failed subproblems by full key),
 * portfolio.c (lanes and restarts) and this file (the descriptor, the
 * capacity decision and the minimisation).
 *
 * Decision search "does everything fit below capacity C?":
 *  - time is the virtual time line of lib/sweep.h, on which an empty
 *    lifetime [t, t) is a unit interval of its own inside every lifetime
 *    across t: the search places every buffer, empty lifetimes included;
 *  - time is cut into sections (intervals between consecutive lifetime
 *    boundaries); each item spans a range of sections;
 *  - independent time partitions (no lifetime crosses a cut) are solved
 *    apart, and during the search the unplaced items are split again into
 *    independent components wherever no unplaced item crosses a section
 *    boundary (a failure in one component then needs no backtracking into
 *    the others; every component is checked before any is searched);
 *  - items are placed in non-decreasing offset order (ties by rank), each
 *    at its lowest feasible offset (aligned, clear of pinned buffers, above
 *    the floor = highest top of the placed items in every section it
 *    spans).  Every solution has a gravity normal form (no buffer can move
 *    down) that this enumeration reaches, so the search is complete;
 *  - normal form (option normal): an item whose floors lie below the last
 *    placed offset (the waterline) would float there; it waits until
 *    something is placed under it (and must have some unplaced item in one
 *    of its sections to rest on).  The free form places it at the waterline
 *    (also complete, a different tree);
 *  - restart where the time line is cut (as MiniMalloc's dynamic
 *    decomposition does): when a placement leaves no unplaced item across
 *    a boundary inside its span, the items left form independent problems
 *    above the placed ones; after checking them at the current waterline,
 *    each is searched with the waterline back at 0 and with ranks
 *    recomputed from its own unplaced bytes per section (option rerank).
 *    Measured on MiniMalloc's challenging set (capacity 1048576, 10 s),
 *    without the restart H and I time out, and so they do with the restart
 *    but without the re-ranking; with both they take 10k and 8k nodes;
 *  - inference: every unplaced item must fit; in every section, the
 *    lowest offset of its unplaced items plus their bytes must fit in C
 *    (MiniMalloc's cross-section rule); the next offset becomes the
 *    waterline, so it may not exceed C - unplaced bytes of any section.
 *    Option thresholds adds, for every threshold x, x + the bytes of the
 *    section's items whose lowest offset is >= x <= C: on the challenging
 *    set it saves under 4% of the nodes and doubles the time, so it is off
 *    by default;
 *  - dominance: an item b may come next only if l(b) < l(c) + size(c) for
 *    every unplaced c, l(c) its own lowest offset even below the waterline
 *    (else c could drop to l(c) under every later item, contradicting the
 *    normal form); identical items (size, lifetime, alignment) keep their
 *    input order; items at the same offset come in rank order;
 *  - failed subproblems are remembered by their full key, compared word for
 *    word (a hash collision cannot turn into a false infeasibility proof):
 *    the component's range and unplaced items, the floors of its live
 *    sections, the waterline, the last rank and the rank context (the item
 *    set the current ranks were computed on);
 *  - portfolio: see portfolio.c.  Only a complete run that fails proves
 *    infeasibility.
 * Minimisation: incumbent = lib/pack.h's greedy incumbent (or the previous
 * placer's offsets in a chain); proven bound = lib/sweep.h's placement
 * lower bound (max-live with empty lifetimes, largest buffer, pinned tops,
 * alignment); rounds of decisions with a node limit per decision (x4 every
 * round), each round trying the bound first and then bisecting upwards
 * past undecided capacities; an infeasible decision raises the bound.  A
 * node budget caps the whole run; the deadline is checked every 256 nodes
 * (every node on big parts).  Results depend on the clock only when the
 * time limit cuts the run.
 * Scale: the set-up compares no pair of items (twins by one sort) and keeps
 * one geometry per part for all its rank copies; what grows beyond n is
 * the section entries (the sections each item spans: a save stack of one
 * floor per entry in every search).  Before any of that is allocated, and
 * before the incumbent, the run's bytes are estimated (run_bytes) and the
 * solver refuses above max_mb (status refused, what to do in the message):
 * `memplan gen layered -n 100000` has 8.0e7 entries (estimate 1956 MiB, it
 * runs), -n 1000000 2.6e9 (59841 MiB, refused in about a second).  The
 * deadline is checked between the set-up's steps (the rank copies are built
 * at the first decision); a cut there returns the incumbent as timeout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact/exact.h"

static const mp_option exact_options[] = {EXACT_OPTIONS(MP_OPT_ENTRY)};

void ex_config_init(ex_config *cf, const mp_ctx *c) {
  const double *o = c->opt;
  cf->nodes = (uint64_t)o[OPT_nodes];
  cf->memo = o[OPT_memo] > 0;
  cf->memo_log2 = (int)o[OPT_memo_log2];
  cf->rank = (int)o[OPT_rank];
  cf->restarts = o[OPT_restarts] > 0;
  cf->by_offset = o[OPT_by_offset] > 0;
  cf->thresholds = o[OPT_thresholds] > 0;
  cf->minfirst = (int)o[OPT_minfirst];
  cf->normal = o[OPT_normal] > 0;
  cf->portfolio = (int)o[OPT_portfolio];
  cf->components = o[OPT_components] > 0;
  cf->decompose = o[OPT_decompose] > 0;
  cf->reset = o[OPT_reset] > 0;
  cf->twins = o[OPT_twins] > 0;
  cf->rerank = o[OPT_rerank] > 0;
  cf->rawdom = o[OPT_rawdom] > 0;
  cf->trace = o[OPT_trace] > 0;
}

/* A problem cut into parts: each part's geometry once, and a copy with
 * its ranks and twins per static rank the lanes use. */
typedef struct ex_run {
  const mp_ctx *c;
  const mp_problem *p;
  ex_config cf;
  int np;                  /* parts */
  ex_pins pins;            /* every pinned buffer: an obstacle to every part */
  ex_part *base;           /* base[part]: its geometry */
  ex_part *PM[EX_N_RANKS]; /* PM[rank mode][part], built on first use (NULL: a rank no lane uses) */
  unsigned ranks;          /* the rank modes the lanes use, a bit each */
  int searches;            /* searches alive at once (ex_lanes_need) */
  int64_t *cur;            /* offsets of the items no part holds (size 0): pinned or 0 */
  int64_t *trial;          /* the last decision's placement */
  uint64_t nodes_left;
} ex_run;

/* The geometry of every part in O(n log n), no ranks yet. */
static void run_init(ex_run *R, const mp_ctx *c) {
  const mp_problem *p = c->prob;
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  memset(R, 0, sizeof *R);
  R->c = c;
  R->p = p;
  ex_config_init(&R->cf, c);
  R->nodes_left = R->cf.nodes;
  ex_lanes_need(&R->cf, &R->ranks, &R->searches);
  ex_pins_init(&R->pins, p);
  /* every item with bytes, whatever its lifetime */
  int *members = mp_xmalloc(sizeof(int) * nz), *starts = mp_xmalloc(sizeof(int) * (nz + 1));
  int64_t *vlo = mp_xmalloc(sizeof(int64_t) * nz), *vhi = mp_xmalloc(sizeof(int64_t) * nz);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (p->items[i].size > 0) members[m++] = i;
  mp_sweep_times(p, members, m, vlo, vhi);
  R->np = mp_sweep_parts(members, vlo, vhi, m, R->cf.decompose, starts);
  size_t pz = (size_t)(R->np ? R->np : 1);
  R->base = mp_xcalloc(pz, sizeof(ex_part));
  for (int k = 0; k < R->np; k++) {
    int a = starts[k], b = starts[k + 1];
    ex_part_init(&R->base[k], p, &R->pins, members + a, vlo + a, vhi + a, b - a);
  }
  for (int r = 0; r < EX_N_RANKS; r++)
    if (R->ranks >> r & 1) R->PM[r] = mp_xcalloc(pz, sizeof(ex_part));
  free(members);
  free(starts);
  free(vlo);
  free(vhi);
  R->cur = mp_xmalloc(sizeof(int64_t) * nz);
  for (int i = 0; i < n; i++) R->cur[i] = p->items[i].fixed >= 0 ? p->items[i].fixed : 0;
  R->trial = mp_xmalloc(sizeof(int64_t) * nz);
}

static void run_destroy(ex_run *R) {
  for (int r = 0; r < EX_N_RANKS; r++) {
    if (R->PM[r])
      for (int k = 0; k < R->np; k++) ex_part_destroy(&R->PM[r][k]);
    free(R->PM[r]);
  }
  for (int k = 0; k < R->np; k++) ex_part_destroy(&R->base[k]);
  free(R->base);
  ex_pins_destroy(&R->pins);
  free(R->cur);
  free(R->trial);
}

/* The bytes the run will hold at most (see ex_search_bytes for what the
 * searches' stacks add): the parts' geometry, their section lists (option
 * thresholds) and rank copies, the searches of the largest part, the
 * placements and the obstacles.  false when a figure overflows. */
static bool run_bytes(const ex_run *R, int64_t *bytes, int64_t *spans) {
  int64_t total = 0, search_max = 0;
  int nranks = __builtin_popcount(R->ranks);
  bool ok = mp_add_mul_ok(&total, (int64_t)R->p->n + 1, 4 * 8) && /* cur, trial, best, offsets */
            mp_add_mul_ok(&total, (int64_t)R->pins.np, 4 * 8);
  *spans = 0;
  for (int k = 0; k < R->np && ok; k++) {
    const ex_part *P = &R->base[k];
    int64_t geo, sec, ranked, sb;
    ok = ex_part_bytes(P, &geo, &sec, &ranked) && mp_add_ok(total, geo, &total) &&
         (!R->cf.thresholds || mp_add_ok(total, sec, &total)) && mp_add_mul_ok(&total, ranked, nranks) &&
         ex_search_bytes(&R->cf, P, &sb) &&
         mp_add_ok(*spans, P->spans, spans);
    if (ok && sb > search_max) search_max = sb;
  }
  ok = ok && mp_add_mul_ok(&total, search_max, R->searches);
  *bytes = ok ? total : INT64_MAX;
  return ok;
}

/* Refuse (the harness's status refused) when the run would take more than
 * max_mb MiB, before any of it is allocated. */
static bool run_refuses(const ex_run *R, mp_ctx *c) {
  int64_t bytes, spans;
  bool ok = run_bytes(R, &bytes, &spans);
  double mib = (double)bytes / 1048576.0, cap = c->opt[OPT_max_mb];
  if (R->cf.trace)
    fprintf(stderr, "exact: %d parts, %lld section entries, %d searches, estimate %.0f MiB\n", R->np,
            (long long)spans, R->searches, mib);
  if (ok && mib <= cap) return false;
  c->status = MP_REFUSED;
  if (ok)
    snprintf(c->msg, sizeof c->msg,
             "its parts and searches would take about %.0f MiB (%lld section entries), above "
             "max_mb=%.0f: raise exact.max_mb, or place with hillclimb or bysize", mib,
             (long long)spans, cap);
  else
    snprintf(c->msg, sizeof c->msg,
             "its memory estimate overflows (%lld section entries): place with hillclimb or bysize",
             (long long)spans);
  return true;
}

/* The rank keys' totals, the section lists and the rank copies (each
 * O(section entries) or O(n log n)), the deadline checked before each:
 * false when the time limit cut the set-up (calling again resumes it). */
static bool run_ready(ex_run *R) {
  for (int k = 0; k < R->np; k++) {
    ex_part *B = &R->base[k];
    if (!B->busiest) {
      if (mp_time_up(R->c)) return false;
      ex_part_totals(B);
    }
    if (R->cf.thresholds && !B->sec_start) {
      if (mp_time_up(R->c)) return false;
      ex_part_sec_lists(B);
    }
  }
  for (int r = 0; r < EX_N_RANKS; r++)
    for (int k = 0; R->PM[r] && k < R->np; k++)
      if (!R->PM[r][k].rank) {
        if (mp_time_up(R->c)) return false;
        ex_part_ranked(&R->PM[r][k], &R->base[k], r);
      }
  return true;
}

/* Decide every part at capacity C with at most `limit` nodes: 1 fits
 * (R->trial), 0 infeasible, -1 out of nodes (this limit or the budget) or
 * time. */
static int decide(ex_run *R, int64_t C, uint64_t limit) {
  if (!run_ready(R)) return -1;
  memcpy(R->trial, R->cur, sizeof(int64_t) * (size_t)R->p->n);
  uint64_t left = limit < R->nodes_left ? limit : R->nodes_left, start = left;
  int res = 1;
  for (int k = 0; k < R->np && res == 1; k++)
    res = ex_decide_part(R->c, &R->cf, R->PM, k, C, &left, R->trial);
  R->nodes_left -= start - left;
  return res;
}

/* --capacity C: does a placement fit? */
static void fit_capacity(ex_run *R, mp_ctx *c, int64_t bound, int64_t bestA, const int64_t *best) {
  const mp_problem *p = c->prob;
  size_t bytes = sizeof(int64_t) * (size_t)p->n;
  int64_t C = c->capacity;
  c->bound = bound;
  memcpy(c->offsets, best, bytes);
  if (bestA <= C) {
    c->status = bestA == bound ? MP_OPTIMAL : MP_FEASIBLE;
    return;
  }
  if (bound > C) {
    c->status = MP_INFEASIBLE;
    snprintf(c->msg, sizeof c->msg, "lower bound %lld exceeds the capacity %lld", (long long)bound,
             (long long)C);
    return;
  }
  int res = decide(R, C, UINT64_MAX);
  if (res == 1) {
    memcpy(c->offsets, R->trial, bytes);
    c->status = mp_place_arena(p, R->trial) == bound ? MP_OPTIMAL : MP_FEASIBLE;
  } else if (res == 0) {
    c->status = MP_INFEASIBLE;
    c->bound = C + 1;
    snprintf(c->msg, sizeof c->msg, "proved: no placement fits in %lld bytes", (long long)C);
  } else {
    c->status = MP_TIMEOUT;
    snprintf(c->msg, sizeof c->msg, "%s ran out before deciding capacity %lld (best arena %lld)",
             mp_time_up(c) ? "time limit" : "node budget", (long long)C, (long long)bestA);
  }
}

/* Minimise: lo = proven bound, bestA = incumbent.  Rounds of decisions with
 * a node limit per decision (x4 every round): each round tries the bound
 * first, then bisects [a, bestA) where a rises past every capacity left
 * undecided at this limit (an easier one may still improve the incumbent),
 * so one hard capacity near the bound cannot eat the whole budget. */
static void minimise(ex_run *R, mp_ctx *c, int64_t lo, int64_t bestA, int64_t *best) {
  const mp_problem *p = c->prob;
  size_t bytes = sizeof(int64_t) * (size_t)p->n;
  bool aborted = false;
  for (uint64_t L = 50000; lo < bestA && !aborted; L = L > UINT64_MAX / 4 ? UINT64_MAX : 4 * L) {
    int64_t a = lo, mid = lo;
    bool undecided = false;
    while (lo < bestA) {
      int res = decide(R, mid, L);
      if (res == 1) {
        int64_t ar = mp_place_arena(p, R->trial);
        if (ar < bestA) {
          bestA = ar;
          memcpy(best, R->trial, bytes);
        } else {
          a = mid + 1;
        }
      } else if (res == 0) {
        lo = mid + 1;
        if (a < lo) a = lo;
      } else {
        if (R->nodes_left == 0 || mp_time_up(c)) {
          aborted = true;
          break;
        }
        a = mid + 1;
        undecided = true;
      }
      if (a >= bestA) break;
      mid = a + (bestA - 1 - a) / 2;
    }
    if (!undecided) break; /* a larger limit would decide nothing new */
  }
  memcpy(c->offsets, best, bytes);
  c->bound = lo;
  if (bestA == lo)
    c->status = MP_OPTIMAL;
  else
    c->status = mp_time_up(c) ? MP_TIMEOUT : MP_FEASIBLE;
  if (aborted)
    snprintf(c->msg, sizeof c->msg, "%s ran out: arena %lld, proven bound %lld",
             mp_time_up(c) ? "time limit" : "node budget", (long long)bestA, (long long)lo);
}

static int exact_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  ex_run R;
  run_init(&R, c);
  if (run_refuses(&R, c)) {
    run_destroy(&R);
    return -1;
  }
  int64_t *best = mp_xmalloc(sizeof(int64_t) * (size_t)(p->n ? p->n : 1));
  int64_t bestA = mp_place_incumbent(c, p, best);
  int64_t bound = mp_place_lower_bound(p);
  if (c->capacity > 0)
    fit_capacity(&R, c, bound, bestA, best);
  else
    minimise(&R, c, bound, bestA, best);
  run_destroy(&R);
  free(best);
  return 0;
}

const mp_solver solver_exact = {
    .name = "exact",
    .summary = "complete branch-and-bound placement (canonical offsets, section inference, memo)",
    .decides = MP_DECIDES_OFFSETS,
    .options = MP_OPTIONS(exact_options),
    .quick = "nodes=5000",
    .solve = exact_solve,
};
