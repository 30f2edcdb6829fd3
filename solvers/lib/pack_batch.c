/* pack_batch.c - see pack_batch.h.  The rounds are planned first; then
 * per round the calling thread hands its items to the crew, takes part,
 * waits for the items still in the workers' hands, and marks them all. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "lib/pack_batch.h"

/* Window sizes: the share of the window's items that wait for a later
 * round (they cost a conflict test again, no serial work) is kept between
 * SHARE_LOW and SHARE_HIGH by doubling or halving the window (the share
 * grows with it). */
enum { WINDOW_FIRST = 64, WINDOW_MIN = 4, WINDOW_MAX = 1 << 12 };
#define SHARE_LOW 0.2
#define SHARE_HIGH 0.4

/* Rounds of fewer items run on the calling thread alone (a tree of 8000
 * nodes, 1.9 items a round: 1.38x the wall time of one thread when shared
 * from 2 items, 1.01x from 8).  After a long wait for a worker (STALL_S
 * seconds more than this thread's own part), or PACE_ROUNDS shared rounds
 * where the workers did little, the next PAUSE_FIRST rounds, doubling up
 * to PAUSE_MAX, run alone (pace). */
enum { SHARE_MIN = 8, PACE_ROUNDS = 64, PAUSE_FIRST = 16, PAUSE_MAX = 1024 };
#define STALL_S 50e-6
/* A worker spins this long for the next round before it sleeps (yielding
 * instead, it placed 2% of the items on a busy machine; woken from its
 * sleep every round, the main thread lost 70 us a round). */
#define SPIN_S 1e-3

int64_t mp_pack_fit_item(const mp_lifeindex *x, int i, enum mp_fit fit, mp_spanbuf *sb,
                         mp_pack_counts *cnt) {
  const mp_item *it = &x->p->items[i];
  mp_spanbuf_clear(sb);
  mp_lifeindex_query(x, i, sb);
  int64_t off = mp_fit_spans(sb, it->size, it->align, fit);
  if (cnt) {
    cnt->items++;
    cnt->listed += sb->n;
    mp_count_gaps(mp_spanbuf_sorted(sb), sb->n, it->size, &cnt->gaps, &cnt->fitting);
  }
  return off;
}

/* ---- the plan: which items each round places ---- */

typedef struct rounds {
  int *item;  /* the items to place through the index, round by round */
  int *start; /* round r places item[start[r] .. start[r + 1]) */
  int n;
} rounds;

/* Scratch of the conflict test: a window's births sorted, and a Fenwick tree
 * over their ranks of the largest death among the items seen. */
typedef struct conflict_scratch {
  int64_t *lo, *tree;
} conflict_scratch;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Births in s->lo[0..b) below t. */
static int births_below(const conflict_scratch *s, int b, int64_t t) {
  int lo = 0, hi = b;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (s->lo[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* conf[q]: is blk[q] live together with one of blk[0..q)?  j meets k when
 * j.lo < k.hi and k.lo < j.hi (mp_live_together, any lifetime): among the
 * earlier items born before k.hi, the latest death must pass k.lo. */
static int find_conflicts(const mp_problem *p, const int *blk, int b, bool *conf,
                          conflict_scratch *s) {
  for (int q = 0; q < b; q++) {
    s->lo[q] = p->items[blk[q]].lo;
    s->tree[q] = INT64_MIN;
  }
  qsort(s->lo, (size_t)b, sizeof *s->lo, cmp_i64);
  int n_conf = 0;
  for (int q = 0; q < b; q++) {
    const mp_item *k = &p->items[blk[q]];
    int64_t last = INT64_MIN;
    for (int r = births_below(s, b, k->hi); r > 0; r -= r & -r)
      if (s->tree[r - 1] > last) last = s->tree[r - 1];
    conf[q] = last > k->lo;
    n_conf += conf[q];
    for (int r = births_below(s, b, k->lo) + 1; r <= b; r += r & -r)
      if (k->hi > s->tree[r - 1]) s->tree[r - 1] = k->hi;
  }
  return n_conf;
}

/* The items of seq[0..m) the index places (size > 0, not pinned, first
 * time in seq) into item[], their number; items of size 0 get offset 0
 * now, as the sequential packer gives them. */
static int items_to_place(const mp_problem *p, const int *seq, int m, int64_t *off, int *item) {
  unsigned char *seen = mp_xcalloc((size_t)(p->n ? p->n : 1), 1);
  int n = 0;
  for (int k = 0; k < m; k++) {
    int i = seq[k];
    if (off[i] >= 0 || seen[i]) continue;
    if (p->items[i].size <= 0) off[i] = 0;
    else item[n++] = i;
    seen[i] = 1;
  }
  free(seen);
  return n;
}

/* The next round: the items of the window win[0..*nw) that no earlier
 * one of it is live with go to r; the others stay in win, in order.  The
 * share of those that stay. */
static double next_round(const mp_problem *p, int *win, int *nw, bool *conf, conflict_scratch *s,
                         rounds *r) {
  int c = find_conflicts(p, win, *nw, conf, s), keep = 0, out = r->start[r->n];
  for (int q = 0; q < *nw; q++)
    if (!conf[q]) r->item[out++] = win[q];
    else win[keep++] = win[q];
  r->start[++r->n] = out;
  double share = (double)c / *nw;
  *nw = keep;
  return share;
}

/* Rounds over windows of `window` items, or (0) of a size that follows the
 * share of conflicted items. */
static void plan_rounds(const mp_problem *p, const int *seq, int m, int64_t *off, int window,
                        rounds *r) {
  size_t mz = (size_t)(m ? m : 1);
  int *queue = mp_xmalloc(sizeof(int) * mz);
  int n = items_to_place(p, seq, m, off, queue);
  r->item = mp_xmalloc(sizeof(int) * mz);
  r->start = mp_xmalloc(sizeof(int) * (mz + 1));
  r->start[0] = r->n = 0;
  int cap = window > 0 && window < WINDOW_MAX ? window : WINDOW_MAX;
  if (cap > n) cap = n ? n : 1;
  conflict_scratch s = {mp_xmalloc(sizeof(int64_t) * (size_t)cap),
                        mp_xmalloc(sizeof(int64_t) * (size_t)cap)};
  bool *conf = mp_xmalloc(sizeof(bool) * (size_t)cap);
  int *win = mp_xmalloc(sizeof(int) * (size_t)cap);
  int size = window > 0 || cap < WINDOW_FIRST ? cap : WINDOW_FIRST, nw = 0;
  for (int next = 0; nw > 0 || next < n;) {
    while (nw < size && next < n) win[nw++] = queue[next++];
    double share = next_round(p, win, &nw, conf, &s, r);
    if (window == 0 && share < SHARE_LOW && size <= cap / 2) size *= 2;
    else if (window == 0 && share > SHARE_HIGH && size >= 2 * WINDOW_MIN) size /= 2;
  }
  free(queue);
  free(s.lo);
  free(s.tree);
  free(conf);
  free(win);
}

static void rounds_destroy(rounds *r) {
  free(r->item);
  free(r->start);
}

/* ---- the crew: round 1 shared out ---- */

typedef struct lane { /* one thread's part */
  mp_spanbuf sb;
  mp_pack_counts cnt;
} lane;

/* A round's items are taken one at a time from `claim`: its high half the
 * round's item count, its low half the next item (the count travels with
 * the index: a worker late for a round takes nothing, or an item of the
 * round that stands).  `items` changes only while no item is in hand. */
typedef struct crew {
  const mp_lifeindex *x;
  enum mp_fit fit;
  int64_t *off;
  bool count;
  const int *items;       /* the round's items */
  _Atomic uint64_t claim;
  atomic_int done;        /* items finished, every round together */
  atomic_int bell;        /* rung for every round; -1: stop */
  atomic_int sleepers;    /* workers asleep on bell, or going to */
  int n_workers;
  lane lanes[MP_PACK_THREADS_MAX];
  double cpu_s[MP_PACK_THREADS_MAX]; /* each worker's CPU seconds */
} crew;

/* Round 1 on one thread: the items of the round as they come (their costs
 * vary). */
static int take_items(crew *w, lane *l) {
  for (int taken = 0;; taken++) {
    uint64_t c = atomic_fetch_add_explicit(&w->claim, 1, memory_order_acquire);
    uint32_t q = (uint32_t)c, n = (uint32_t)(c >> 32);
    if (q >= n) return taken;
    int i = w->items[q];
    w->off[i] = mp_pack_fit_item(w->x, i, w->fit, &l->sb, w->count ? &l->cnt : NULL);
    atomic_fetch_add_explicit(&w->done, 1, memory_order_release);
  }
}

static inline void spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

#ifdef __linux__
/* Sleep while *v == old (the kernel checks it: no wake-up is lost). */
static void sleep_on(atomic_int *v, int old) {
  syscall(SYS_futex, (int *)v, FUTEX_WAIT_PRIVATE, old, NULL, NULL, 0);
}
static void wake_all(atomic_int *v) { syscall(SYS_futex, (int *)v, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0); }
#else
static void sleep_on(atomic_int *v, int old) {
  (void)v, (void)old;
  sched_yield();
}
static void wake_all(atomic_int *v) { (void)v; }
#endif

/* Wait until *v differs from `old`: spin for SPIN_S, then sleep, counted
 * in `sleepers` (a waker then never blocks: with a mutex and a condition
 * variable the main thread lost 100 us a round on a busy machine, waiting
 * for a worker the scheduler had put off while it held the mutex). */
static int wait_change(crew *w, atomic_int *v, int old) {
  double until = 0;
  for (int s = 0;; s++) {
    int now = atomic_load_explicit(v, memory_order_acquire);
    if (now != old) return now;
    spin_pause();
    if ((s & 255) == 255 && (until ? mp_now() > until : (until = mp_now() + SPIN_S, false))) break;
  }
  int now;
  while ((now = atomic_load(v)) == old) {
    atomic_fetch_add(&w->sleepers, 1); /* sequentially consistent with ring's */
    sleep_on(v, old);
    atomic_fetch_sub(&w->sleepers, 1);
  }
  return now;
}

/* Set *v and wake the sleepers: a waiter counted after ring looks sees the
 * new value (both sequentially consistent), the kernel checks it too. */
static void ring(crew *w, atomic_int *v, int value) {
  atomic_store(v, value);
  if (atomic_load(&w->sleepers) > 0) wake_all(v);
}

typedef struct worker_arg {
  crew *w;
  int k; /* its lane: 1.. */
} worker_arg;

static void *worker(void *arg) {
  worker_arg *a = arg;
  crew *w = a->w;
  double c0 = mp_thread_cpu_now();
  for (int bell = 0; (bell = wait_change(w, &w->bell, bell)) >= 0;) take_items(w, &w->lanes[a->k]);
  w->cpu_s[a->k] = mp_thread_cpu_now() - c0;
  return NULL;
}

static void mark(mp_lifeindex *x, int i, int64_t off) {
  mp_lifeindex_mark(x, i, off, off + x->p->items[i].size);
}

/* A round's items, with the workers when `shared`; returns once all are
 * placed (the workers' offsets visible), with the number this thread
 * placed; *stalled: it then waited for a worker longer than it worked
 * itself (the scheduler put the worker off, or its item was long). */
static int round_items(crew *w, const int *items, int n, bool shared, int *done, int *bell,
                       bool *stalled) {
  w->items = items;
  atomic_store_explicit(&w->claim, (uint64_t)(uint32_t)n << 32, memory_order_release);
  if (shared) ring(w, &w->bell, ++*bell);
  double t0 = mp_now();
  int own = take_items(w, &w->lanes[0]);
  *done += n;
  *stalled = false;
  if (atomic_load_explicit(&w->done, memory_order_acquire) >= *done) return own;
  double t1 = mp_now();
  for (int s = 0; atomic_load_explicit(&w->done, memory_order_acquire) < *done; s++)
    if (s < 1 << 12) spin_pause();
    else sched_yield();
  *stalled = mp_now() - t1 > t1 - t0 + STALL_S;
  return own;
}

/* When the calling thread shares rounds: it goes alone for `pause`
 * rounds after a long wait for a worker, or when over PACE_ROUNDS shared
 * rounds the workers placed under an eighth of the items (on a busy
 * machine the scheduler keeps them off: sharing then cost 1.6x the wall
 * time of one thread); longer each time, shorter after rounds that went
 * well. */
typedef struct pacing {
  int alone, pause;
  int rounds, items, own; /* shared rounds since the last verdict */
  unsigned ended;         /* mp_busy_threads_ended() when `alone` was set */
} pacing;

static void pace(pacing *pc, int n, int own, bool stalled) {
  pc->rounds++;
  pc->items += n;
  pc->own += own;
  bool slow = pc->rounds == PACE_ROUNDS && 8 * (pc->items - pc->own) < pc->items;
  if (stalled || slow) {
    pc->alone = pc->pause;
    pc->ended = mp_busy_threads_ended();
    pc->pause = pc->pause < PAUSE_MAX ? 2 * pc->pause : pc->pause;
  } else if (pc->rounds == PACE_ROUNDS && pc->pause > PAUSE_FIRST) {
    pc->pause /= 2;
  }
  if (stalled || pc->rounds == PACE_ROUNDS) pc->rounds = pc->items = pc->own = 0;
}

/* A pause ends early when a busy thread of the process ended meanwhile (the
 * run's baseline: at 10^6 nodes the packer went on alone for 0.75 s after
 * it, one core idle); it starts short again. */
static void pace_wake(pacing *pc) {
  if (pc->alone > 0 && mp_busy_threads_ended() != pc->ended) {
    pc->alone = 0;
    pc->pause = PAUSE_FIRST;
  }
}

/* Every round, then the marks on this thread alone.  Rounds of a few items
 * are not shared (waking a worker costs more), nor those pace keeps
 * alone.  False when `cancel` was set before a round. */
static bool place_rounds(crew *w, mp_lifeindex *x, const rounds *r, const atomic_int *cancel) {
  int done = 0, bell = 0;
  pacing pc = {0, PAUSE_FIRST, 0, 0, 0, 0};
  for (int k = 0; k < r->n; k++) {
    if (cancel && atomic_load_explicit(cancel, memory_order_relaxed)) return false;
    const int *it = r->item + r->start[k];
    int n = r->start[k + 1] - r->start[k];
    pace_wake(&pc);
    bool shared = n >= SHARE_MIN && pc.alone == 0, stalled;
    pc.alone -= pc.alone > 0;
    int own = round_items(w, it, n, shared, &done, &bell, &stalled);
    if (shared) pace(&pc, n, own, stalled);
    for (int q = 0; q < n; q++) mark(x, it[q], w->off[it[q]]);
  }
  return true;
}

/* Start up to n workers; how many started. */
static int start_workers(crew *w, pthread_t *t, worker_arg *args, int n) {
  int k = 0;
  for (; k < n; k++) {
    args[k] = (worker_arg){w, k + 1};
    if (pthread_create(&t[k], NULL, worker, &args[k]) != 0) break;
  }
  return k;
}

/* Stop the workers, join them; the CPU seconds they used. */
static double stop_workers(crew *w, pthread_t *t) {
  ring(w, &w->bell, -1);
  double cpu = 0;
  for (int k = 0; k < w->n_workers; k++) {
    pthread_join(t[k], NULL);
    cpu += w->cpu_s[k + 1];
  }
  return cpu;
}

static void crew_init(crew *w, const mp_lifeindex *x, enum mp_fit fit, int64_t *off, bool count) {
  memset(w, 0, sizeof *w);
  w->x = x;
  w->fit = fit;
  w->off = off;
  w->count = count;
  atomic_init(&w->claim, 0);
  atomic_init(&w->done, 0);
  atomic_init(&w->bell, 0);
  atomic_init(&w->sleepers, 0);
  for (int k = 0; k < MP_PACK_THREADS_MAX; k++) mp_spanbuf_init(&w->lanes[k].sb);
}

/* Add every lane's counts to *cnt (when not NULL); free the crew's parts. */
static void crew_destroy(crew *w, mp_pack_counts *cnt) {
  for (int k = 0; k < MP_PACK_THREADS_MAX; k++) {
    const lane *l = &w->lanes[k];
    if (cnt) {
      cnt->items += l->cnt.items;
      cnt->listed += l->cnt.listed;
      cnt->gaps += l->cnt.gaps;
      cnt->fitting += l->cnt.fitting;
      cnt->unsorted += l->sb.headed;
    }
    mp_spanbuf_destroy(&w->lanes[k].sb);
  }
}

bool mp_pack_batched(mp_lifeindex *x, const int *seq, int m, enum mp_fit fit, int64_t *off,
                     mp_pack_counts *cnt, int threads, int window, const atomic_int *cancel,
                     double *cpu_s) {
  crew *w = mp_xmalloc(sizeof *w);
  crew_init(w, x, fit, off, cnt != NULL);
  pthread_t t[MP_PACK_THREADS_MAX];
  worker_arg args[MP_PACK_THREADS_MAX];
  if (threads > MP_PACK_THREADS_MAX) threads = MP_PACK_THREADS_MAX;
  w->n_workers = start_workers(w, t, args, threads - 1);
  bool started = w->n_workers > 0, whole = false;
  if (started) {
    rounds r;
    plan_rounds(x->p, seq, m, off, window, &r);
    whole = place_rounds(w, x, &r, cancel);
    rounds_destroy(&r);
    *cpu_s += stop_workers(w, t);
  }
  crew_destroy(w, cnt);
  free(w);
  return whole;
}
