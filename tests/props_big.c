/* props_big.c - see props_big.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "props_big.h"
#include "props_trial.h"

/* ---- the larger graphs ---- */

/* One larger graph: tl_random_json of n nodes (family NULL), or `memplan
 * gen family -n n`, as a training graph (backward, in-place writes and
 * workspaces) when train. */
typedef struct big_graph {
  const char *family;
  int n;
  bool train;
} big_graph;

/* (MP_QUICK runs the first alone) */
static const big_graph big_graphs[] = {
    {NULL, 250, false},
    {"layered", 110, true},   /* ~220 nodes */
    {"sp", 90, true},         /* ~180 */
    {NULL, 60, false},        /* within the ILP's default size cap */
    {"randwire", 16, true},   /* ~150 */
    {"tree", 190, true},      /* ~380 */
};
enum { N_BIG_GRAPHS = sizeof big_graphs / sizeof big_graphs[0] };

int props_big_graph_count(void) { return tl_trials(5 * N_BIG_GRAPHS) / 5; }

/* Graph i and, for messages, how it was made (malloc'ed). */
static mp_graph *make_big_graph(int i, mp_rng *r, char **label) {
  const big_graph *b = &big_graphs[i];
  uint64_t seed = 31 + (uint64_t)i;
  char *s = malloc(256);
  if (!b->family) {
    snprintf(s, 256, "tl_random_json(n %d, every feature), larger graph %d of tests/props_big.c", b->n, i);
    *label = s;
    char *js = tl_random_json(r, b->n, TL_ALL);
    mp_error err;
    mp_graph *g = tl_graph_try(js, false, &err);
    ck_assert_msg(g != NULL, "%s: %s", s, g ? "" : err.msg);
    free(js);
    return g;
  }
  snprintf(s, 256, "memplan gen %s -n %d --seed %llu%s", b->family, b->n, (unsigned long long)seed,
           b->train ? " --backward --ws-prob 0.2 --inplace-prob 0.2" : "");
  *label = s;
  return tl_gen(b->family, b->n, seed, b->train);
}

/* ---- the larger fixed-lifetime problems ---- */

/* One larger problem: n items over about n / 4 steps; `odd`: empty
 * lifetimes, sizes 0 and pinned items (else the birth-order sweep
 * applies); `equal`: most sizes from three values; `cut`: instead, a
 * rectangle cut into about n pieces (tl_cut_problem), whose optimum, its
 * width, is known. */
typedef struct big_shape {
  int n;
  bool odd, equal, cut;
} big_shape;

/* (MP_QUICK runs the first alone) */
static const big_shape big_shapes[] = {
    {400, true, true, false},
    {150, false, false, false},
    {60, true, false, false}, /* within the MIP placer's default size cap */
    {900, false, true, false},
    {2000, true, false, false},
    {300, false, false, true},
};
enum { N_BIG_FIXED = sizeof big_shapes / sizeof big_shapes[0] };

int props_big_fixed_count(void) { return tl_trials(5 * N_BIG_FIXED) / 5; }

/* The arrays of a generated problem (one allocation). */
typedef struct big_fixed {
  pc_fixed view;
  int64_t *store;
} big_fixed;

/* Lifetimes mostly short, one in eight long (many items live together: more
 * than the 64 of a bitmap word, more than the 32 spans of the gap choice's
 * simple path); alignments 1 to 256. */
static void draw_items(mp_rng *r, const big_shape *sh, int64_t *lo, int64_t *hi, int64_t *size,
                       int64_t *align) {
  int64_t T = sh->n / 4 + 8;
  static const int64_t aligns[] = {1, 4, 8, 64, 256};
  static const int64_t equal[] = {256, 1024, 4096};
  for (int i = 0; i < sh->n; i++) {
    lo[i] = (int64_t)mp_rng_below(r, (uint64_t)T);
    int64_t len = mp_rng_below(r, 8) ? 1 + (int64_t)mp_rng_below(r, 20) : 1 + (int64_t)mp_rng_below(r, (uint64_t)T);
    hi[i] = lo[i] + len;
    size[i] = sh->equal && mp_rng_below(r, 4) ? equal[mp_rng_below(r, 3)] : 1 + (int64_t)mp_rng_below(r, 5000);
    align[i] = aligns[mp_rng_below(r, 5)];
    if (!sh->odd) continue;
    if (mp_rng_below(r, 12) == 0) hi[i] = lo[i]; /* empty lifetime */
    if (mp_rng_below(r, 15) == 0) size[i] = 0;
  }
}

/* Pinned items (odd shapes): one in 40, stacked from 0 so that no two can
 * collide whatever their lifetimes. */
static void draw_pins(mp_rng *r, const big_shape *sh, const int64_t *size, const int64_t *align, int64_t *pin) {
  int64_t top = 0;
  for (int i = 0; i < sh->n; i++) {
    pin[i] = -1;
    if (!sh->odd || mp_rng_below(r, 40)) continue;
    pin[i] = (top + align[i] - 1) / align[i] * align[i];
    top = pin[i] + size[i];
  }
}

/* A 4096-byte-wide rectangle over n / 4 steps cut into about n pieces;
 * returns its width (the least arena) and sets *n to the pieces made. */
static int64_t draw_cut(mp_rng *r, int *n, int64_t *lo, int64_t *hi, int64_t *size, int64_t *align,
                        int64_t *pin) {
  enum { W = 4096 };
  mp_problem p;
  tl_cut_problem(r, W, *n / 4, *n, &p);
  ck_assert_int_le(p.n, *n);
  *n = p.n;
  for (int i = 0; i < p.n; i++) {
    lo[i] = p.items[i].lo;
    hi[i] = p.items[i].hi;
    size[i] = p.items[i].size;
    align[i] = 1;
    pin[i] = -1;
  }
  mp_problem_destroy(&p);
  return W;
}

/* Problem i as MiniMalloc CSV text (malloc'ed), its arrays in f, its least
 * arena in *opt (-1: unknown). */
static char *make_big_fixed(int i, mp_rng *r, big_fixed *f, int64_t *opt) {
  const big_shape *sh = &big_shapes[i];
  int n = sh->n;
  f->store = malloc(sizeof(int64_t) * 5 * (size_t)n);
  int64_t *lo = f->store, *hi = lo + n, *size = hi + n, *align = size + n, *pin = align + n;
  *opt = -1;
  if (sh->cut) {
    *opt = draw_cut(r, &n, lo, hi, size, align, pin);
  } else {
    draw_items(r, sh, lo, hi, size, align);
    draw_pins(r, sh, size, align, pin);
  }
  f->view = (pc_fixed){n, lo, hi, size, align, pin};
  size_t cap = 64 + (size_t)n * 96;
  char *s = malloc(cap);
  int len = snprintf(s, cap, "id,lower,upper,size,alignment,offset\n");
  for (int k = 0; k < n; k++) {
    len += snprintf(s + len, cap - (size_t)len, "x%d,%lld,%lld,%lld,%lld,", k, (long long)lo[k],
                    (long long)hi[k], (long long)size[k], (long long)align[k]);
    if (pin[k] >= 0) len += snprintf(s + len, cap - (size_t)len, "%lld", (long long)pin[k]);
    len += snprintf(s + len, cap - (size_t)len, "\n");
  }
  return s;
}

/* ---- the greedy placers against the packer's definition ---- */

/* The placers whose offsets are those of tl_pack_direct on one sequence. */
typedef struct direct_placer {
  const char *name;
  bool by_size; /* mp_seq_by_size, else mp_seq_by_birth */
  enum mp_fit fit;
} direct_placer;

static const direct_placer direct_placers[] = {
    {"firstfit", false, MP_FIRST_FIT},
    {"bestfit", false, MP_BEST_FIT},
    {"bysize", true, MP_BEST_FIT},
    {"bysize-ff", true, MP_FIRST_FIT},
};

static const direct_placer *direct_of(const mp_solver *s) {
  for (size_t k = 0; k < sizeof direct_placers / sizeof direct_placers[0]; k++)
    if (strcmp(direct_placers[k].name, s->name) == 0) return &direct_placers[k];
  return NULL;
}

/* r's offsets (no time limit) are those of the definition on r's problem. */
static void check_same_as_direct(const direct_placer *d, const mp_result *r, const char *what,
                                 const char *input) {
  const mp_problem *p = &r->prob;
  int *seq = malloc(sizeof(int) * (size_t)(p->n + 1));
  int64_t *off = malloc(sizeof(int64_t) * (size_t)(p->n + 1));
  if (d->by_size)
    mp_seq_by_size(p, seq);
  else
    mp_seq_by_birth(p, seq);
  tl_pack_direct(p, seq, p->n, d->fit, off);
  for (int i = 0; i < p->n; i++)
    if (r->offsets[i] != off[i])
      ck_abort_msg("%s: item %d at %lld, the definition (mp_pack_one) puts it at %lld\n%s", what, i,
                   (long long)r->offsets[i], (long long)off[i], input);
  free(seq);
  free(off);
}

/* ---- the trials ---- */

void props_big_graph_trials(solver_stats *st) {
  mp_rng r;
  mp_rng_seed(&r, 2024);
  for (int i = 0; i < props_big_graph_count(); i++) {
    char *label;
    mp_graph *g = make_big_graph(i, &r, &label);
    graph_trial T;
    graph_trial_init(&T, g, label, true);
    for (int k = 0; k < mp_registry_size; k++) {
      const mp_solver *s = mp_registry[k];
      if (!pc_selected(s)) continue;
      double t0 = mp_now();
      if (solver_on_graph(s, &T, i, &st[k])) st[k].big_graph_ok++;
      else st[k].big_refusals++;
      const direct_placer *d = direct_of(s);
      if (d) {
        char what[160];
        snprintf(what, sizeof what, "placer %s on larger graph %d (n %d, --order greedy)", s->name, i, T.n);
        mp_result a;
        ck_assert_int_eq(tl_run(T.g, "greedy", s->name, 1, 0, NULL, &a), 0);
        check_same_as_direct(d, &a, what, T.js);
        mp_result_destroy(&a);
        st[k].same_as_direct++;
      }
      st[k].big_secs += mp_now() - t0;
    }
    graph_trial_destroy(&T);
  }
}

void props_big_fixed_trials(solver_stats *st) {
  mp_rng r;
  mp_rng_seed(&r, 9001);
  for (int i = 0; i < props_big_fixed_count(); i++) {
    big_fixed f;
    int64_t opt;
    char *csv = make_big_fixed(i, &r, &f, &opt);
    char label[160];
    snprintf(label, sizeof label, "larger fixed problem %d of tests/props_big.c (%d items%s%s%s)", i, f.view.n,
             big_shapes[i].odd ? ", pins, empty lifetimes, sizes 0" : "", big_shapes[i].equal ? ", equal sizes" : "",
             big_shapes[i].cut ? ", a cut rectangle: optimum known" : "");
    fixed_trial T;
    fixed_trial_init(&T, &f.view, csv, label, true);
    T.opt = opt;
    for (int k = 0; k < mp_registry_size; k++) {
      const mp_solver *s = mp_registry[k];
      if (!pc_selected(s) || s->decides != MP_DECIDES_OFFSETS) continue;
      double t0 = mp_now();
      if (placer_on_fixed(s, &T, i, &st[k])) st[k].big_fixed_ok++;
      else st[k].big_refusals++;
      const direct_placer *d = direct_of(s);
      if (d) {
        char what[200];
        snprintf(what, sizeof what, "placer %s on %s", s->name, label);
        mp_result a;
        ck_assert_int_eq(tl_run_fixed(&T.prob, s->name, 1, 0, 0, NULL, &a), 0);
        check_same_as_direct(d, &a, what, label);
        mp_result_destroy(&a);
        st[k].same_as_direct++;
      }
      st[k].big_secs += mp_now() - t0;
    }
    fixed_trial_destroy(&T);
    free(f.store);
  }
}
