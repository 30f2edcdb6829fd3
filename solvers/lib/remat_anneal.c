/* remat_anneal.c - local search over a recomputation genome: see
 * remat_anneal.h. */
#include <stdlib.h>
#include <string.h>

#include "lib/remat_anneal.h"

static const double default_pmove[MP_RM_N] = {
    [MP_RM_DROP] = 0.30, [MP_RM_UNDROP] = 0.20, [MP_RM_SWAP] = 0.15, [MP_RM_RETURN] = 0.15,
    [MP_RM_DELAY] = 0.05, [MP_RM_KIND] = 0.05, [MP_RM_RANDOM] = 0.10};

void mp_rsa_init(mp_rsa *s, mp_rdec *d, int64_t budget) {
  memset(s, 0, sizeof *s);
  s->d = d;
  s->budget = budget;
  size_t ms = (size_t)(d->n_slots ? d->n_slots : 1);
  s->cur = mp_xcalloc(ms, sizeof(mp_rgene));
  s->best = mp_xcalloc(ms, sizeof(mp_rgene));
  s->active = mp_xmalloc(sizeof(int) * ms);
  s->where = mp_xmalloc(sizeof(int) * ms);
  s->cand = mp_xmalloc(sizeof(int) * ms);
  mp_events_init(&s->best_plan);
  double runs = mp_events_duration_floor(d->g);
  int busy = 0;
  for (int v = 0; v < d->n; v++) busy += !d->g->nodes[v].is_input;
  if (runs <= 0) runs = 1;
  s->step_penalty = runs / (busy ? busy : 1);
  s->lambda = s->lambda0 = runs / (double)(budget > 0 ? budget : 1);
  double sum = 0;
  for (int k = 0; k < MP_RM_N; k++) {
    s->pmove[k] = default_pmove[k];
    if (d->bw <= 0 && (k == MP_RM_DELAY || k == MP_RM_KIND)) s->pmove[k] = 0;
    sum += s->pmove[k];
  }
  for (int k = 0; k < MP_RM_N; k++) s->pmove[k] /= sum;
  s->best_duration = INFINITY;
}

void mp_rsa_destroy(mp_rsa *s) {
  free(s->cur);
  free(s->best);
  free(s->active);
  free(s->where);
  free(s->cand);
  mp_events_destroy(&s->best_plan);
  memset(s, 0, sizeof *s);
}

double mp_rsa_energy(const mp_rsa *s, const mp_rfig *f) {
  return f->duration + (f->excess > 0 ? s->lambda * f->excess + s->step_penalty : 0);
}

/* ---- the current genome ---- */

/* The active set: the slots that do not keep their buffers. */
static void active_update(mp_rsa *s, int slot, mp_rgene old, mp_rgene g) {
  bool was = old.kind != MP_RK_KEEP, is = g.kind != MP_RK_KEEP;
  if (was == is) return;
  if (is) {
    s->where[slot] = s->n_active;
    s->active[s->n_active++] = slot;
    return;
  }
  int i = s->where[slot], last = s->active[--s->n_active];
  s->active[i] = last;
  s->where[last] = i;
}

static void set_gene(mp_rsa *s, int slot, mp_rgene g) {
  if (s->n_undo == MP_RSA_UNDO) return;
  s->undo_slot[s->n_undo] = slot;
  s->undo_gene[s->n_undo++] = s->cur[slot];
  active_update(s, slot, s->cur[slot], g);
  s->cur[slot] = g;
}

void mp_rsa_undo(mp_rsa *s) {
  while (s->n_undo > 0) {
    s->n_undo--;
    int slot = s->undo_slot[s->n_undo];
    active_update(s, slot, s->cur[slot], s->undo_gene[s->n_undo]);
    s->cur[slot] = s->undo_gene[s->n_undo];
  }
}

static void keep_if_best(mp_rsa *s, const mp_rfig *f) {
  if (!mp_rsa_fits(s, f) || f->duration >= s->best_duration) return;
  s->has_best = true;
  s->best_duration = f->duration;
  memcpy(s->best, s->cur, sizeof(mp_rgene) * (size_t)s->d->n_slots);
  mp_events_copy(&s->best_plan, &s->d->plan);
}

int mp_rsa_eval(mp_rsa *s, mp_rfig *f) {
  s->evals++;
  if (mp_rdec_decode(s->d, s->cur, s->budget, f)) return -1;
  keep_if_best(s, f);
  return 0;
}

int mp_rsa_load(mp_rsa *s, const mp_rgene *genes) {
  mp_rfig f;
  s->evals++;
  if (mp_rdec_decode(s->d, genes, s->budget, &f)) return -1;
  memcpy(s->cur, genes, sizeof(mp_rgene) * (size_t)s->d->n_slots);
  s->n_active = 0;
  for (int k = 0; k < s->d->n_slots; k++)
    if (genes[k].kind != MP_RK_KEEP) {
      s->where[k] = s->n_active;
      s->active[s->n_active++] = k;
    }
  s->n_undo = 0;
  s->fc = f;
  keep_if_best(s, &f);
  return 0;
}

/* ---- moves ---- */

/* Bytes a gap frees per unit of the time its return costs. */
static double score(const mp_rsa *s, int slot) {
  const mp_rdec *d = s->d;
  int b = d->slot_buf[slot];
  double bytes = (double)d->g->bufs[b].size;
  if (!mp_rdec_allows(d, slot, MP_RK_DROP)) return bytes / (0.01 * s->step_penalty + 1e-9);
  return bytes / (d->g->nodes[d->g->bufs[b].owner].cost + 0.01 * s->step_penalty + 1e-9);
}

/* The kept gaps across step `hot` that could be dropped or offloaded (not
 * the tails: their buffers are resident there only when a recomputation
 * reads them later). */
static int hot_candidates(mp_rsa *s, int hot) {
  const mp_rdec *d = s->d;
  int m = 0;
  for (int k = 0; k < d->n_slots; k++)
    if (s->cur[k].kind == MP_RK_KEEP && d->gs[k] < hot && hot < d->ge[k] && d->allow[k] > 1 &&
        d->slot_reader[k] != MP_RSLOT_TAIL)
      s->cand[m++] = k;
  return m;
}

static mp_rgene fresh_gene(const mp_rsa *s, mp_rng *r, int slot) {
  const mp_rdec *d = s->d;
  bool drop = mp_rdec_allows(d, slot, MP_RK_DROP), off = mp_rdec_allows(d, slot, MP_RK_OFFLOAD);
  int kind = drop && (!off || mp_rng_below(r, 2)) ? MP_RK_DROP : MP_RK_OFFLOAD;
  int len = mp_rdec_gap_len(d, slot);
  int back = mp_rng_below(r, 4) ? 0 : (int)mp_rng_below(r, (uint64_t)len);
  int delay = kind == MP_RK_OFFLOAD ? (int)mp_rng_below(r, (uint64_t)len) : 0;
  return (mp_rgene){(uint8_t)kind, back, delay};
}

/* The buffers the recomputation of slot k's buffer reads: dropped after
 * their last use (their tails), so that holding them for it does not keep
 * them across the peak. */
static void drop_input_tails(mp_rsa *s, int k) {
  const mp_rdec *d = s->d;
  int v = d->g->bufs[d->slot_buf[k]].owner;
  for (int i = 0; i < d->g->n_reads[v]; i++) {
    int q = d->g->reads[v][i], tail = d->slot0[q + 1] - 1;
    if (tail < d->slot0[q] || d->slot_reader[tail] != MP_RSLOT_TAIL) continue;
    if (s->cur[tail].kind == MP_RK_KEEP && mp_rdec_allows(d, tail, MP_RK_DROP))
      set_gene(s, tail, (mp_rgene){MP_RK_DROP, 0, 0});
  }
}

static bool move_drop(mp_rsa *s, mp_rng *r, int hot) {
  int m = hot_candidates(s, hot);
  if (m == 0) return false;
  int pick = s->cand[mp_rng_below(r, (uint64_t)m)];
  for (int k = 1; k < 4 && k < m; k++) {
    int c = s->cand[mp_rng_below(r, (uint64_t)m)];
    if (score(s, c) > score(s, pick)) pick = c;
  }
  mp_rgene g = fresh_gene(s, r, pick);
  set_gene(s, pick, g);
  if (g.kind == MP_RK_DROP && mp_rng_below(r, 2)) drop_input_tails(s, pick);
  return true;
}

static bool move_undrop(mp_rsa *s, mp_rng *r);

/* Keep a dropped gap again and, when that goes over the budget, drop
 * another at the new peak: an exchange that stays near the border. */
static bool move_swap(mp_rsa *s, mp_rng *r) {
  if (!move_undrop(s, r)) return false;
  mp_rfig f;
  if (mp_rsa_eval(s, &f)) {
    mp_rsa_undo(s);
    return false;
  }
  if (mp_rsa_fits(s, &f)) return true; /* a plain undrop: evaluated again, but kept simple */
  if (!move_drop(s, r, f.hot_step)) mp_rsa_undo(s);
  return s->n_undo > 0;
}

static int random_active(const mp_rsa *s, mp_rng *r) {
  return s->n_active ? s->active[mp_rng_below(r, (uint64_t)s->n_active)] : -1;
}

static bool move_undrop(mp_rsa *s, mp_rng *r) {
  int k = random_active(s, r);
  if (k < 0) return false;
  set_gene(s, k, (mp_rgene){MP_RK_KEEP, 0, 0});
  return true;
}

/* A new value near or far from x in [0, len - 1]. */
static int32_t nudge(mp_rng *r, int32_t x, int len) {
  if (len <= 1) return 0;
  int64_t y = mp_rng_below(r, 2) ? (int64_t)mp_rng_below(r, (uint64_t)len)
                                 : x + (mp_rng_below(r, 2) ? 1 : -1) * (1 + (int64_t)mp_rng_below(r, 3));
  return (int32_t)(y < 0 ? 0 : y > len - 1 ? len - 1 : y);
}

static bool move_return(mp_rsa *s, mp_rng *r, bool delay) {
  for (int tries = 0; tries < 8; tries++) {
    int k = random_active(s, r);
    if (k < 0) return false;
    mp_rgene g = s->cur[k];
    if (g.kind == MP_RK_KEEP || (delay && g.kind != MP_RK_OFFLOAD)) continue;
    int len = mp_rdec_gap_len(s->d, k);
    if (delay)
      g.delay = nudge(r, g.delay, len);
    else
      g.back = nudge(r, g.back, len);
    set_gene(s, k, g);
    return true;
  }
  return false;
}

static bool move_kind(mp_rsa *s, mp_rng *r) {
  for (int tries = 0; tries < 8; tries++) {
    int k = random_active(s, r);
    if (k < 0) return false;
    if (!mp_rdec_allows(s->d, k, MP_RK_DROP) || !mp_rdec_allows(s->d, k, MP_RK_OFFLOAD)) continue;
    mp_rgene g = s->cur[k];
    g.kind = g.kind == MP_RK_OFFLOAD ? MP_RK_DROP : MP_RK_OFFLOAD;
    set_gene(s, k, g);
    return true;
  }
  return false;
}

static bool move_random(mp_rsa *s, mp_rng *r) {
  if (s->d->n_slots == 0) return false;
  int k = (int)mp_rng_below(r, (uint64_t)s->d->n_slots);
  if (s->d->allow[k] <= 1) return false;
  if (s->cur[k].kind != MP_RK_KEEP && mp_rng_below(r, 2)) {
    set_gene(s, k, (mp_rgene){MP_RK_KEEP, 0, 0});
    return true;
  }
  mp_rgene g = fresh_gene(s, r, k);
  if (g.kind == s->cur[k].kind && g.back == s->cur[k].back && g.delay == s->cur[k].delay) return false;
  set_gene(s, k, g);
  return true;
}

bool mp_rsa_move(mp_rsa *s, mp_rng *r) {
  s->n_undo = 0;
  double u = mp_rng_unit(r);
  int kind = 0;
  while (kind < MP_RM_N - 1 && u >= s->pmove[kind]) u -= s->pmove[kind++];
  switch (kind) {
  case MP_RM_DROP: return move_drop(s, r, s->fc.hot_step);
  case MP_RM_UNDROP: return move_undrop(s, r);
  case MP_RM_SWAP: return move_swap(s, r);
  case MP_RM_RETURN: return move_return(s, r, false);
  case MP_RM_DELAY: return move_return(s, r, true);
  case MP_RM_KIND: return move_kind(s, r);
  default: return move_random(s, r);
  }
}

/* ---- annealing ---- */

double mp_rsa_sample_t0(mp_rsa *s, mp_rng *r, int samples, double heat, double deadline) {
  double e = mp_rsa_energy(s, &s->fc), up = 0;
  int n_up = 0;
  for (int k = 0; k < samples; k++) {
    if (deadline > 0 && mp_now() >= deadline) break; /* a sample is a whole decode */
    if (!mp_rsa_move(s, r)) continue;
    mp_rfig f;
    if (mp_rsa_eval(s, &f) == 0 && mp_rsa_energy(s, &f) > e) {
      up += mp_rsa_energy(s, &f) - e;
      n_up++;
    }
    mp_rsa_undo(s);
  }
  return mp_anneal_t0(up, n_up, heat);
}

/* Strategic oscillation: lambda up while mostly over the budget, down
 * while always within it. */
static void adapt_lambda(mp_rsa *s, int over, int within) {
  if (over > within)
    s->lambda *= 1.5;
  else if (over == 0 && s->lambda > 0.01 * s->lambda0)
    s->lambda /= 1.2;
}

bool mp_rsa_anneal(mp_rsa *s, mp_rng *r, long moves, double t0, double t_end, double deadline) {
  mp_anneal a;
  mp_anneal_start(&a, t0, t_end, moves);
  double ec = mp_rsa_energy(s, &s->fc);
  int over = 0, within = 0;
  for (long it = 0; it < moves; it++) {
    if ((it & 15) == 0 && deadline > 0 && mp_now() >= deadline) return false;
    mp_rfig f;
    if (!mp_rsa_move(s, r) || mp_rsa_eval(s, &f)) {
      mp_rsa_undo(s);
      a.T *= a.alpha;
    } else if (mp_anneal_accept(&a, r, mp_rsa_energy(s, &f) - ec)) {
      s->fc = f;
      ec = mp_rsa_energy(s, &f);
    } else {
      mp_rsa_undo(s);
    }
    s->n_undo = 0;
    if (mp_rsa_fits(s, &s->fc))
      within++;
    else
      over++;
    if ((it & 63) == 63) {
      adapt_lambda(s, over, within);
      ec = mp_rsa_energy(s, &s->fc);
      over = within = 0;
    }
  }
  return true;
}

/* ---- constructive starts ---- */

static int by_score_desc(const void *a, const void *b, void *ctx) {
  double x = score(ctx, *(const int *)a), y = score(ctx, *(const int *)b);
  return (x < y) - (x > y);
}

/* Is figure set a better than b on the way under the budget: less excess,
 * then a lower peak, then a shorter plan? */
static bool closer(const mp_rfig *a, const mp_rfig *b) {
  if (a->excess != b->excess) return a->excess < b->excess;
  if (a->peak != b->peak) return a->peak < b->peak;
  return a->duration < b->duration;
}

/* Slot k dropped just in time (offloaded when it cannot be dropped); with
 * inputs, the buffers its recomputation reads dropped after their last use. */
static void greedy_drop(mp_rsa *s, int k, bool inputs) {
  bool drop = mp_rdec_allows(s->d, k, MP_RK_DROP);
  set_gene(s, k, (mp_rgene){drop ? MP_RK_DROP : MP_RK_OFFLOAD, 0, 0});
  if (drop && inputs) drop_input_tails(s, k);
}

/* One greedy round: among the `tries` best-scoring candidates at the peak,
 * each tried with and without its inputs' tails dropped, the change that
 * brings the plan closest under the budget; false when none improves it. */
static bool greedy_round(mp_rsa *s, int tries, double deadline) {
  int m = hot_candidates(s, s->fc.hot_step), pick = -1;
  bool pick_inputs = false;
  qsort_r(s->cand, (size_t)m, sizeof(int), by_score_desc, s);
  mp_rfig best = s->fc;
  /* a try is a whole decode (ms at 10^5 nodes): the deadline ends the
   * round with the best tried so far */
  for (int i = 0; i < m && i < tries && !(deadline > 0 && mp_now() >= deadline); i++)
    for (int inputs = 0; inputs < 2; inputs++) {
      int k = s->cand[i];
      s->n_undo = 0;
      greedy_drop(s, k, inputs);
      mp_rfig f;
      if (mp_rsa_eval(s, &f) == 0 && closer(&f, &best)) {
        best = f;
        pick = k;
        pick_inputs = inputs;
      }
      mp_rsa_undo(s);
    }
  if (pick < 0) return false;
  s->n_undo = 0;
  greedy_drop(s, pick, pick_inputs);
  s->n_undo = 0;
  s->fc = best;
  return true;
}

bool mp_rsa_greedy(mp_rsa *s, int max_rounds, double deadline) {
  for (int round = 0; round < max_rounds && !mp_rsa_fits(s, &s->fc); round++) {
    if (deadline > 0 && mp_now() >= deadline) break;
    if (!greedy_round(s, 16, deadline)) break;
  }
  return mp_rsa_fits(s, &s->fc);
}

void mp_rgenes_drop_all(mp_rdec *d, mp_rgene *genes) {
  for (int k = 0; k < d->n_slots; k++)
    genes[k] = (mp_rgene){mp_rdec_allows(d, k, MP_RK_DROP) ? MP_RK_DROP : MP_RK_KEEP, 0, 0};
  mp_rfig f;
  for (int round = 0; round <= d->n_slots && mp_rdec_decode(d, genes, INT64_MAX, &f); round++) {
    if (f.fail_slot < 0) { /* cannot happen (see remat_decode.h); keep all then */
      mp_rgenes_keep_all(d, genes);
      return;
    }
    genes[f.fail_slot] = (mp_rgene){MP_RK_KEEP, 0, 0};
  }
}
