/* testlib.c - see testlib.h. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <igraph.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen.h"
#include "lib/pack.h"
#include "testlib.h"

int tl_trials(int normal) {
  const char *q = getenv("MP_QUICK");
  if (q && *q && strcmp(q, "0")) return normal / 5 > 1 ? normal / 5 : 1;
  return normal;
}

static char **temps;
static int n_temps;

char *tl_write_temp(const char *text, const char *suffix) {
  mkdir("tmp", 0755);
  static int counter;
  char path[256];
  snprintf(path, sizeof path, "tmp/t%ld_%d%s", (long)getpid(), counter++, suffix);
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
  temps = realloc(temps, sizeof(char *) * (size_t)(n_temps + 1));
  temps[n_temps++] = strdup(path);
  return strdup(path);
}

void tl_cleanup(void) {
  for (int i = 0; i < n_temps; i++) {
    unlink(temps[i]);
    free(temps[i]);
  }
  free(temps);
  temps = NULL;
  n_temps = 0;
}

mp_graph *tl_graph_try(const char *json, bool toposort, mp_error *err) {
  char *p = tl_write_temp(json, ".json");
  mp_graph *g = mp_graph_read_json(p, toposort, err);
  unlink(p);
  free(p);
  return g;
}

mp_graph *tl_graph(const char *json) {
  mp_error err;
  mp_graph *g = tl_graph_try(json, false, &err);
  ck_assert_msg(g != NULL, "graph did not load: %s", g ? "" : err.msg);
  return g;
}

mp_graph *tl_gen(const char *family, int n, uint64_t seed, bool train) {
  mp_gen_opts o;
  mp_gen_defaults(&o);
  o.family = family;
  o.n = n;
  o.seed = seed;
  if (train) {
    o.backward = true;
    o.ws_prob = 0.2;
    o.inplace_prob = 0.2;
  }
  mp_error err;
  mp_graph *g = mp_gen(&o, NULL, &err);
  ck_assert_msg(g != NULL, "gen %s -n %d --seed %llu: %s", family, n, (unsigned long long)seed,
                g ? "" : err.msg);
  return g;
}

/* ---- random graphs ---- */

typedef struct sbuf {
  char *s;
  size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void sb_printf(sbuf *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    if ((size_t)k < b->cap - b->n) {
      b->n += (size_t)k;
      return;
    }
    b->cap = b->cap * 2 + (size_t)k + 64;
    b->s = realloc(b->s, b->cap);
  }
}

char *tl_random_json(mp_rng *r, int n, int flags) {
  sbuf b = {malloc(256), 0, 256};
  b.s[0] = 0;
  int *nout = calloc((size_t)n + 1, sizeof(int));
  bool *isview = calloc((size_t)n + 1, sizeof(bool));
  int n_inputs = 1 + (int)mp_rng_below(r, 2);
  if (n_inputs > n) n_inputs = n;
  bool outnode = (flags & TL_OUTNODE) && n >= 3 && mp_rng_below(r, 2);
  bool small = flags & TL_SMALL;
  uint64_t size_range = small ? 6 : 4000, out_range = small ? 6 : 3000, ws_range = small ? 4 : 2000;
  sb_printf(&b, "{\"name\":\"random\",\"nodes\":[\n");
  for (int v = 0; v < n; v++) {
    int64_t size = 1 + (int64_t)mp_rng_below(r, size_range);
    if (mp_rng_below(r, 20) == 0) size = 0;
    sb_printf(&b, "%s{\"id\":%d,\"name\":\"n%d\"", v ? ",\n" : "", v, v);
    if (v < n_inputs) {
      sb_printf(&b, ",\"op\":\"input\",\"size\":%lld,\"inputs\":[]}", (long long)size);
      nout[v] = 1;
      continue;
    }
    if (outnode && v == n - 1) {
      /* the output node reads a few earlier tensors */
      sb_printf(&b, ",\"op\":\"output\",\"size\":0,\"inputs\":[");
      int k = 1 + (int)mp_rng_below(r, 3);
      for (int i = 0; i < k; i++) sb_printf(&b, "%s%d", i ? "," : "", (int)mp_rng_below(r, (uint64_t)v));
      sb_printf(&b, "]}");
      nout[v] = 1;
      continue;
    }
    /* inputs: 1-3 earlier tensors, sometimes the same twice */
    int k = 1 + (int)mp_rng_below(r, 3);
    int ins[3], outk[3];
    for (int i = 0; i < k; i++) {
      ins[i] = (int)mp_rng_below(r, (uint64_t)v);
      outk[i] = -1;
      if (nout[ins[i]] > 1 && (mp_rng_below(r, 3) || (flags & TL_MULTI) == 0))
        outk[i] = (int)mp_rng_below(r, (uint64_t)nout[ins[i]]);
    }
    uint64_t kind = mp_rng_below(r, 100);
    bool multi = (flags & TL_MULTI) && kind < 15;
    bool view = (flags & TL_VIEWS) && kind >= 15 && kind < 27;
    bool param_view = (flags & TL_VIEWS) && kind >= 27 && kind < 30;
    bool inplace = (flags & TL_INPLACE) && kind >= 30 && kind < 45;
    /* an alias must name a single output, or a view */
    if ((view || inplace) && outk[0] < 0 && nout[ins[0]] > 1 && !isview[ins[0]]) outk[0] = 0;
    sb_printf(&b, ",\"op\":\"%s\"", multi ? "split" : view ? "view" : inplace ? "relu_" : "op");
    if (multi) {
      nout[v] = 2 + (int)mp_rng_below(r, 2);
      sb_printf(&b, ",\"outputs\":[");
      for (int i = 0; i < nout[v]; i++)
        sb_printf(&b, "%s%lld", i ? "," : "", (long long)(mp_rng_below(r, 6) ? 1 + mp_rng_below(r, out_range) : 0));
      sb_printf(&b, "]");
    } else {
      nout[v] = 1;
      sb_printf(&b, ",\"size\":%lld", (long long)size);
    }
    sb_printf(&b, ",\"inputs\":[");
    for (int i = 0; i < k; i++) {
      if (outk[i] >= 0)
        sb_printf(&b, "%s[%d,%d]", i ? "," : "", ins[i], outk[i]);
      else
        sb_printf(&b, "%s%d", i ? "," : "", ins[i]);
    }
    sb_printf(&b, "]");
    if (view || inplace) {
      isview[v] = true;
      if (outk[0] >= 0)
        sb_printf(&b, ",\"alias\":[%d,%d]", ins[0], outk[0]);
      else
        sb_printf(&b, ",\"alias\":%d", ins[0]);
      if (inplace) sb_printf(&b, ",\"inplace\":true");
    } else if (param_view) {
      isview[v] = true;
      sb_printf(&b, ",\"alias\":-1");
    }
    if ((flags & TL_WS) && mp_rng_below(r, 5) == 0)
      sb_printf(&b, ",\"workspace\":%lld", (long long)(1 + mp_rng_below(r, ws_range)));
    sb_printf(&b, "}");
  }
  sb_printf(&b, "]}\n");
  free(nout);
  free(isview);
  return b.s;
}

mp_graph *tl_random_graph(mp_rng *r, int n, int flags) {
  char *js = tl_random_json(r, n, flags);
  mp_error err;
  mp_graph *g = tl_graph_try(js, false, &err);
  ck_assert_msg(g != NULL, "random graph did not load: %s\n%s", g ? "" : err.msg, js);
  free(js);
  return g;
}

/* ---- exhaustive optimum ---- */

typedef struct each_order {
  const mp_graph *g;
  int *order, *missing;
  bool *done;
  long count, max;
  void (*fn)(const int *order, void *ctx);
  void *ctx;
} each_order;

static void each_rec(each_order *s, int depth) {
  if (s->count > s->max) return;
  const mp_graph *g = s->g;
  if (depth == g->n) {
    if (++s->count <= s->max) s->fn(s->order, s->ctx);
    return;
  }
  for (int v = 0; v < g->n; v++) {
    if (s->done[v] || s->missing[v]) continue;
    s->done[v] = true;
    s->order[depth] = v;
    for (int i = 0; i < g->n_succ[v]; i++) s->missing[g->succ[v][i]]--;
    each_rec(s, depth + 1);
    for (int i = 0; i < g->n_succ[v]; i++) s->missing[g->succ[v][i]]++;
    s->done[v] = false;
  }
}

long tl_each_order(const mp_graph *g, long max_orders, void (*fn)(const int *order, void *ctx),
                   void *ctx) {
  each_order s = {g, calloc((size_t)g->n + 1, sizeof(int)), calloc((size_t)g->n + 1, sizeof(int)),
                  calloc((size_t)g->n + 1, sizeof(bool)), 0, max_orders, fn, ctx};
  for (int v = 0; v < g->n; v++) s.missing[v] = g->n_pred[v];
  each_rec(&s, 0);
  free(s.order);
  free(s.missing);
  free(s.done);
  return s.count > max_orders ? -1 : s.count;
}

typedef struct bf {
  const mp_graph *g;
  int64_t best;
  int *best_order;
} bf;

static void bf_order(const int *order, void *ctx) {
  bf *s = ctx;
  int64_t p = mp_order_peak(s->g, order);
  if (s->best < 0 || p < s->best) {
    s->best = p;
    if (s->best_order) memcpy(s->best_order, order, sizeof(int) * (size_t)s->g->n);
  }
}

int64_t tl_brute_force_peak(const mp_graph *g, long max_orders, int *best_order) {
  bf s = {g, g->n == 0 ? 0 : -1, best_order};
  return tl_each_order(g, max_orders, bf_order, &s) < 0 ? -1 : s.best;
}

/* ---- running the harness ---- */

static int count_sets(const char *const *sets) {
  int n = 0;
  while (sets && sets[n]) n++;
  return n;
}

int tl_run(const mp_graph *g, const char *order, const char *place, uint64_t seed, double limit,
           const char *const *sets, mp_result *r) {
  mp_instance in = {(mp_graph *)g, NULL};
  mp_run_spec spec = {0};
  spec.order = order;
  spec.place = place;
  spec.seed = seed;
  spec.time_limit = limit;
  spec.sets = sets;
  spec.n_sets = count_sets(sets);
  return mp_run(&in, &spec, r);
}

int tl_run_fixed(mp_problem *p, const char *place, uint64_t seed, double limit, int64_t capacity,
                 const char *const *sets, mp_result *r) {
  mp_instance in = {NULL, p};
  mp_run_spec spec = {0};
  spec.place = place;
  spec.seed = seed;
  spec.time_limit = limit;
  spec.capacity = capacity;
  spec.sets = sets;
  spec.n_sets = count_sets(sets);
  return mp_run(&in, &spec, r);
}

static long clock_reads, clock_jump;
static double clock_at; /* the reading from clock_jump on */

static double test_clock(void) {
  long k = clock_reads++;
  return clock_jump >= 0 && k >= clock_jump ? clock_at : TL_CLOCK_T0 + 1e-9 * (double)k;
}

void tl_clock_start(long jump) { tl_clock_start_at(jump, TL_CLOCK_PAST); }

void tl_clock_start_at(long jump, double at) {
  clock_reads = 0;
  clock_jump = jump;
  clock_at = at;
  mp_now_override(test_clock);
}

long tl_clock_stop(void) {
  mp_now_override(NULL);
  return clock_reads;
}

const char *const *tl_quick_sets(const mp_solver *s) {
  static char buf[1024];
  static const char *list[64];
  int n = 0;
  if (s->quick) {
    snprintf(buf, sizeof buf, "%s", s->quick);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && n < 62; t = strtok_r(NULL, ",", &save)) {
      /* qualify with the solver name so chains do not cross-apply */
      static char q[64][128];
      snprintf(q[n], sizeof q[n], "%s.%s", s->name, t);
      list[n] = q[n];
      n++;
    }
  }
  list[n] = NULL;
  return list;
}

/* A W x T rectangle cut into about `pieces` rectangles: repeatedly split a
 * random piece across time or across the address range at a random point.
 * Piece [t0, t1) x [h0, h1) is a buffer of h1 - h0 bytes live in [t0, t1),
 * listed in a random order: a packing in exactly W bytes exists. */
void tl_cut_problem(mp_rng *r, int64_t W, int64_t T, int pieces, mp_problem *p) {
  int64_t(*q)[4] = mp_xmalloc(sizeof *q * (size_t)pieces);
  int n = 1;
  q[0][0] = 0, q[0][1] = T, q[0][2] = 0, q[0][3] = W;
  for (int tries = 0; n < pieces && tries < 100 * pieces; tries++) {
    int k = (int)mp_rng_below(r, (uint64_t)n);
    int d = mp_rng_below(r, 2) ? 0 : 2; /* 0: cut time, 2: cut addresses */
    int64_t lo = q[k][d], hi = q[k][d + 1];
    if (hi - lo < 2) continue;
    int64_t c = lo + 1 + (int64_t)mp_rng_below(r, (uint64_t)(hi - lo - 1));
    memcpy(q[n], q[k], sizeof q[k]);
    q[k][d + 1] = c;
    q[n][d] = c;
    n++;
  }
  for (int i = n - 1; i > 0; i--) {
    int j = (int)mp_rng_below(r, (uint64_t)i + 1);
    int64_t t[4];
    memcpy(t, q[i], sizeof t);
    memcpy(q[i], q[j], sizeof t);
    memcpy(q[j], t, sizeof t);
  }
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)n, sizeof(mp_item));
  p->t_end = T;
  for (int i = 0; i < n; i++) p->items[i] = (mp_item){q[i][3] - q[i][2], q[i][0], q[i][1], 1, -1};
  free(q);
}

bool tl_igraph_is_dag(const mp_graph *g, int *edges) {
  igraph_vector_int_t ev;
  igraph_vector_int_init(&ev, 0);
  for (int v = 0; v < g->n; v++)
    for (int i = 0; i < g->n_succ[v]; i++) {
      igraph_vector_int_push_back(&ev, v);
      igraph_vector_int_push_back(&ev, g->succ[v][i]);
    }
  igraph_t G;
  igraph_create(&G, &ev, g->n, IGRAPH_DIRECTED);
  igraph_bool_t dag = false;
  igraph_is_dag(&G, &dag);
  if (edges) *edges = (int)igraph_ecount(&G);
  igraph_destroy(&G);
  igraph_vector_int_destroy(&ev);
  return dag;
}

bool tl_verbose(void) {
  const char *v = getenv("MP_TEST_VERBOSE");
  return v && !strcmp(v, "1");
}

void tl_stderr_begin(tl_stderr *c) {
  mkdir("tmp", 0755);
  snprintf(c->path, sizeof c->path, "tmp/stderr_%ld.txt", (long)getpid());
  fflush(stderr);
  c->saved = dup(2);
  int fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert_msg(fd >= 0 && c->saved >= 0, "cannot capture stderr");
  dup2(fd, 2);
  close(fd);
}

char *tl_stderr_end(tl_stderr *c) {
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  FILE *f = fopen(c->path, "r");
  char *buf = calloc(1, 4097);
  if (f) {
    size_t n = fread(buf, 1, 4096, f);
    buf[n] = 0;
    fclose(f);
  }
  unlink(c->path);
  return buf;
}

/* ---- random fixed-lifetime problems and their brute-force optimum ---- */

char *tl_random_fixed(mp_rng *r, tl_fixed *p, int n, bool align_col, bool pins) {
  p->n = n;
  size_t cap = 64 + (size_t)n * 96;
  char *s = malloc(cap);
  int len = snprintf(s, cap, "id,lower,upper,size%s%s\n", align_col ? ",alignment" : "",
                     pins ? ",offset" : "");
  for (int i = 0; i < n; i++) {
    p->lo[i] = (int64_t)mp_rng_below(r, 20);
    p->hi[i] = p->lo[i] + (mp_rng_below(r, 12) ? 1 + (int64_t)mp_rng_below(r, 10) : 0); /* empty 1/12 */
    p->size[i] = mp_rng_below(r, 15) ? 1 + (int64_t)mp_rng_below(r, 1000) : 0;
    int64_t aligns[] = {1, 4, 8, 64};
    p->align[i] = align_col ? aligns[mp_rng_below(r, 4)] : 1;
    p->pin[i] = -1;
  }
  if (pins && n >= 2) {
    /* two pinned items that cannot collide whatever their lifetimes */
    p->pin[0] = p->align[0] * (int64_t)mp_rng_below(r, 4);
    int64_t top = p->pin[0] + p->size[0];
    p->pin[1] = (top + p->align[1] - 1) / p->align[1] * p->align[1];
  }
  for (int i = 0; i < n; i++) {
    len += snprintf(s + len, cap - (size_t)len, "x%d,%lld,%lld,%lld", i, (long long)p->lo[i],
                    (long long)p->hi[i], (long long)p->size[i]);
    if (align_col) len += snprintf(s + len, cap - (size_t)len, ",%lld", (long long)p->align[i]);
    if (pins) {
      if (p->pin[i] >= 0)
        len += snprintf(s + len, cap - (size_t)len, ",%lld", (long long)p->pin[i]);
      else
        len += snprintf(s + len, cap - (size_t)len, ",");
    }
    len += snprintf(s + len, cap - (size_t)len, "\n");
  }
  return s;
}

/* the literal half-open test: an empty lifetime meets what lives across it */
static bool fx_meet(const tl_fixed *p, int a, int b) {
  return p->lo[a] < p->hi[b] && p->lo[b] < p->hi[a];
}

typedef struct bfp {
  const tl_fixed *p;
  int m, *items;       /* the unpinned items with bytes */
  int64_t off[32];
  bool placed[32];
  int64_t best;
  long perms, max_perms;
} bfp;

/* the lowest offset of item i, aligned, clear of the placed items it meets:
 * 0 or the aligned top of one of them (the lowest feasible point is one) */
static int64_t bf_lowest(const bfp *s, int i) {
  const tl_fixed *p = s->p;
  int64_t best = -1;
  for (int c = -1; c < p->n; c++) {
    if (c >= 0 && (!s->placed[c] || !fx_meet(p, i, c))) continue;
    int64_t o = c < 0 ? 0 : s->off[c] + p->size[c];
    o = (o + p->align[i] - 1) / p->align[i] * p->align[i];
    if (best >= 0 && o >= best) continue;
    bool clear = true;
    for (int j = 0; j < p->n && clear; j++)
      if (s->placed[j] && p->size[j] > 0 && fx_meet(p, i, j))
        clear = !(o < s->off[j] + p->size[j] && s->off[j] < o + p->size[i]);
    if (clear) best = o;
  }
  return best;
}

static void bf_place(bfp *s, int depth, int64_t arena) {
  if (arena >= s->best || s->perms > s->max_perms) return;
  if (depth == s->m) {
    s->perms++;
    s->best = arena;
    return;
  }
  for (int k = 0; k < s->m; k++) {
    int i = s->items[k];
    if (s->placed[i]) continue;
    s->off[i] = bf_lowest(s, i);
    s->placed[i] = true;
    int64_t top = s->off[i] + s->p->size[i];
    bf_place(s, depth + 1, top > arena ? top : arena);
    s->placed[i] = false;
  }
}

int64_t tl_brute_force_arena(const tl_fixed *p, long max_perms) {
  bfp s;
  memset(&s, 0, sizeof s);
  s.p = p;
  s.max_perms = max_perms;
  int items[32];
  s.items = items;
  int64_t arena = 0;
  for (int i = 0; i < p->n; i++) {
    if (p->pin[i] >= 0) {
      s.off[i] = p->pin[i];
      s.placed[i] = true;
      if (p->pin[i] + p->size[i] > arena) arena = p->pin[i] + p->size[i]; /* size 0: as mp_arena */
    } else if (p->size[i] > 0) {
      items[s.m++] = i;
    }
  }
  long fact = 1;
  for (int k = 2; k <= s.m && fact <= max_perms; k++) fact *= k;
  if (fact > max_perms) return -1;
  s.best = INT64_MAX;
  bf_place(&s, 0, arena);
  return s.best;
}

void tl_check_plan_bytes(const char *plan) {
  json_error_t je;
  json_t *doc = json_loads(plan, 0, &je);
  ck_assert_msg(doc != NULL, "plan file not JSON: %s (line %d)", je.text, je.line);
  char *again = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
  json_decref(doc);
  size_t n = strlen(again);
  ck_assert_msg(strncmp(plan, again, n) == 0 && strcmp(plan + n, "\n") == 0,
                "the plan file differs from jansson's dump of it:\n%s\n--- jansson:\n%s", plan, again);
  free(again);
}

/* ---- the packer by its definition ---- */

void tl_birth_first_fit(const mp_problem *p, int64_t *off) {
  int *seq = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  mp_seq_by_birth(p, seq);
  mp_pack(p, seq, p->n, MP_FIRST_FIT, off);
  free(seq);
}

int64_t tl_pack_direct(const mp_problem *p, const int *seq, int m, enum mp_fit fit, int64_t *off) {
  int *placed = mp_xmalloc(sizeof(int) * (size_t)(p->n ? p->n : 1));
  int np = 0;
  for (int i = 0; i < p->n; i++) off[i] = -1;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0) {
      off[i] = p->items[i].fixed;
      placed[np++] = i;
    }
  for (int k = 0; k < m; k++) {
    int i = seq[k];
    if (off[i] >= 0) continue;
    if (p->items[i].size <= 0) {
      off[i] = 0;
      continue;
    }
    off[i] = mp_pack_one(p, i, placed, np, off, fit);
    placed[np++] = i;
  }
  free(placed);
  int64_t arena = 0;
  for (int i = 0; i < p->n; i++)
    if (off[i] >= 0 && off[i] + p->items[i].size > arena) arena = off[i] + p->items[i].size;
  return arena;
}

int tl_solve_events(const char *name, const mp_graph *g, const int *order, int64_t budget, double bw,
                    const char *const *sets, uint64_t seed, mp_ctx *c, mp_events *ev) {
  const mp_solver *s = mp_solver_find(name);
  ck_assert_msg(s != NULL, "%s is not registered", name);
  ck_assert_int_eq(s->decides, MP_DECIDES_EVENTS);
  memset(c, 0, sizeof *c);
  int n = 0;
  while (sets && sets[n]) n++;
  mp_error err;
  ck_assert_msg(mp_solver_options(s, n, sets, c->opt, &err) == 0, "%s: %s", name, err.msg);
  c->g = g;
  c->start_order = order;
  c->budget = budget;
  c->bandwidth = bw;
  c->events = ev;
  c->seed = seed;
  c->status = MP_FEASIBLE;
  mp_events_clear(ev);
  return s->solve(c);
}

void tl_clique(int n, mp_problem *p) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)n, sizeof(mp_item));
  for (int i = 0; i < n; i++) p->items[i] = (mp_item){.size = 1 + i % 7, .lo = i % 2, .hi = 2, .align = 1, .fixed = -1};
  p->t_begin = 0;
  p->t_end = 2;
}
