/* pool.c - the runtime size-class allocator of the seed documents.
 * Sizes are rounded up to a class: 256 B, 1 KiB, 4 KiB, 16 KiB, 64 KiB,
 * 256 KiB, 1 MiB, 4 MiB (powers of 4), then powers of 2 above 4 MiB (8 MiB,
 * 16 MiB, ...) so large tensors do not lose up to 3/4 of their block.  The
 * allocator replays the lifetimes in time order, at each time first freeing
 * the buffers that died (their blocks go to the free list of their class),
 * then serving the births (ties: larger first, then index): a free block of
 * the buffer's class whose offset suits the buffer's alignment is reused
 * (the most recently freed), else a new block is carved at the top of the
 * arena.  Blocks never split or merge.
 *
 * Internal fragmentation (bytes lost to rounding) is not visible to the
 * evaluator, which sees only the buffers; the solver reports it in its
 * message: at the time when the live blocks take the most bytes, "internal"
 * = block bytes - buffer bytes live then, as bytes and as a share of the
 * arena.  External fragmentation (arena - live peak of the buffers, what
 * the harness calls fragmentation) then contains it. */
#include <stdlib.h>
#include <string.h>

#include "lib/pack.h"
#include "solver.h"

#define POOL_OPTIONS(X) X(min_class, INT, 256, 1, 1048576, "smallest class in bytes (classes grow x4 to 4 MiB, then x2)")

enum { POOL_OPTIONS(MP_OPT_ENUM) POOL_N_OPTS };
static const mp_option pool_options[] = {POOL_OPTIONS(MP_OPT_ENTRY)};

static int64_t class_of(int64_t size, int64_t min_class) {
  int64_t c = min_class;
  while (c < size) c = c < 4194304 ? c * 4 : c * 2;
  return c;
}

typedef struct ev {
  int64_t t;
  int kind; /* 0 free, 1 alloc */
  int64_t size;
  int i;
} ev;

/* e[0..ne) (made in order of item index) sorted by (t, kind, size
 * descending, index): one radix sort by t of (key, position) pairs,
 * stable, so each run of equal t is in order of index; then each run by
 * (kind, size descending), stably.  Runs are mostly a few events (a node's
 * outputs and the last reads of its step), so the records are read in order
 * instead of gathered at random by three stable passes over them. */
static bool run_before(const ev *a, const ev *b) {
  return a->kind != b->kind ? a->kind < b->kind : a->size > b->size;
}

static int cmp_run(const void *x, const void *y) {
  const ev *a = x, *b = y;
  if (run_before(a, b)) return -1;
  if (run_before(b, a)) return 1;
  return (a->i > b->i) - (a->i < b->i);
}

static void sort_run(ev *e, int n) {
  if (n > 16) { /* with the index last the order is total: qsort is stable here */
    qsort(e, (size_t)n, sizeof *e, cmp_run);
    return;
  }
  for (int k = 1; k < n; k++) {
    ev x = e[k];
    int j = k - 1;
    for (; j >= 0 && run_before(&x, &e[j]); j--) e[j + 1] = e[j];
    e[j + 1] = x;
  }
}

static void sort_events(ev *e, int ne) {
  if (ne < 2) return;
  uint64_t *key = mp_xmalloc(sizeof(uint64_t) * (size_t)ne);
  uint32_t *pos = mp_xmalloc(sizeof(uint32_t) * (size_t)ne);
  for (int k = 0; k < ne; k++) {
    key[k] = mp_radix_key(e[k].t);
    pos[k] = (uint32_t)k;
  }
  mp_radix_sort(key, pos, (size_t)ne);
  ev *out = mp_xmalloc(sizeof(ev) * (size_t)ne);
  for (int k = 0; k < ne; k++) out[k] = e[pos[k]];
  for (int k = 0, j; k < ne; k = j) {
    for (j = k + 1; j < ne && key[j] == key[k]; j++) {}
    if (j - k > 1) sort_run(out + k, j - k);
  }
  memcpy(e, out, sizeof(ev) * (size_t)ne);
  free(out);
  free(key);
  free(pos);
}

typedef struct block {
  int64_t off, cls;
} block;

/* The free blocks, one stack per class in the order they were freed: the
 * most recently freed block of a class that suits an alignment is the
 * topmost such block of its stack.  Classes grow x4 then x2, so there are
 * at most a few dozen of them. */
#define POOL_MAX_CLASSES 64
typedef struct free_lists {
  int n;
  int64_t cls[POOL_MAX_CLASSES];
  int64_t *off[POOL_MAX_CLASSES];
  int len[POOL_MAX_CLASSES], cap[POOL_MAX_CLASSES];
} free_lists;

static int class_slot(free_lists *f, int64_t cls) {
  for (int k = 0; k < f->n; k++)
    if (f->cls[k] == cls) return k;
  int k = f->n++;
  f->cls[k] = cls;
  f->off[k] = NULL;
  f->len[k] = f->cap[k] = 0;
  return k;
}

static void fl_push(free_lists *f, block b) {
  int k = class_slot(f, b.cls);
  if (f->len[k] == f->cap[k]) {
    f->cap[k] = f->cap[k] ? 2 * f->cap[k] : 16;
    f->off[k] = mp_xrealloc(f->off[k], sizeof(int64_t) * (size_t)f->cap[k]);
  }
  f->off[k][f->len[k]++] = b.off;
}

/* Take the most recently freed block of class cls at a multiple of al. */
static bool fl_take(free_lists *f, int64_t cls, int64_t al, block *out) {
  int k = class_slot(f, cls);
  int64_t *o = f->off[k];
  for (int i = f->len[k] - 1; i >= 0; i--)
    if (o[i] % al == 0) {
      *out = (block){o[i], cls};
      memmove(o + i, o + i + 1, sizeof(int64_t) * (size_t)(f->len[k] - i - 1));
      f->len[k]--;
      return true;
    }
  return false;
}

/* Pinned buffers at their offsets, the others at 0 for now; returns the
 * top of the pinned ones (the pool carves its blocks above it). */
static int64_t place_pinned(mp_ctx *c, const mp_problem *p) {
  int64_t top = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    c->offsets[i] = it->fixed >= 0 ? it->fixed : 0;
    if (it->fixed >= 0 && it->size > 0 && it->fixed + it->size > top) top = it->fixed + it->size;
  }
  return top;
}

/* The births and deaths of the buffers the pool serves, sorted; their
 * number in *ne. */
static ev *make_events(const mp_problem *p, size_t nz, int *ne) {
  ev *e = mp_xmalloc(sizeof(ev) * 2 * nz);
  *ne = 0;
  for (int i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->fixed >= 0 || it->size <= 0 || it->hi <= it->lo) continue;
    e[(*ne)++] = (ev){it->lo, 1, it->size, i};
    e[(*ne)++] = (ev){it->hi, 0, it->size, i};
  }
  sort_events(e, *ne);
  return e;
}

/* The peak of the live blocks' bytes, and the buffer bytes live then (the
 * fewest among the times of that peak). */
typedef struct block_peak {
  int64_t blocks, bytes;
} block_peak;

/* Replay the events: each death frees its block to its class's list, each
 * birth takes a freed block or carves one at the top; the offsets in
 * c->offsets.  Returns the block peak. */
static block_peak replay(mp_ctx *c, const mp_problem *p, const ev *e, int ne, int64_t top,
                         size_t nz) {
  int64_t minc = (int64_t)c->opt[OPT_min_class];
  block *blk = mp_xmalloc(sizeof(block) * nz); /* block of each item */
  free_lists fl = {0};
  int64_t live_blocks = 0, live_bytes = 0;
  block_peak best = {0, 0};
  for (int k = 0; k < ne; k++) {
    int i = e[k].i;
    const mp_item *it = &p->items[i];
    if (e[k].kind == 0) {
      fl_push(&fl, blk[i]);
      live_blocks -= blk[i].cls;
      live_bytes -= it->size;
      continue;
    }
    int64_t cls = class_of(it->size, minc), al = it->align < 1 ? 1 : it->align;
    if (!fl_take(&fl, cls, al, &blk[i])) {
      top = mp_align_up(top, al);
      blk[i] = (block){top, cls};
      top += cls;
    }
    c->offsets[i] = blk[i].off;
    live_blocks += cls;
    live_bytes += it->size;
    if (live_blocks > best.blocks || (live_blocks == best.blocks && live_bytes < best.bytes)) {
      best.blocks = live_blocks;
      best.bytes = live_bytes;
    }
  }
  free(blk);
  for (int k = 0; k < fl.n; k++) free(fl.off[k]);
  return best;
}

static int pool_solve(mp_ctx *c) {
  const mp_problem *p = c->prob;
  int n = p->n;
  size_t nz = (size_t)(n ? n : 1);
  int64_t top = place_pinned(c, p);
  int ne;
  ev *e = make_events(p, nz, &ne);
  block_peak peak = replay(c, p, e, ne, top, nz);
  mp_pack_degenerate(p, c->offsets);
  int64_t arena = 0; /* the harness's: max(offset + size), a pinned 0-byte buffer too */
  for (int i = 0; i < n; i++)
    if (c->offsets[i] + p->items[i].size > arena) arena = c->offsets[i] + p->items[i].size;
  int64_t internal = peak.blocks - peak.bytes;
  snprintf(c->msg, sizeof c->msg,
           "internal fragmentation %lld bytes (%.2f%% of the arena) at the block peak %lld",
           (long long)internal, arena > 0 ? 100.0 * (double)internal / (double)arena : 0.0,
           (long long)peak.blocks);
  free(e);
  c->status = MP_FEASIBLE;
  return 0;
}

const mp_solver solver_pool = {
    .name = "pool",
    .summary = "runtime size-class pools (256 B x4 to 4 MiB, then x2), per-class free lists",
    .decides = MP_DECIDES_OFFSETS,
    .options = MP_OPTIONS(pool_options),
    .solve = pool_solve,
};
