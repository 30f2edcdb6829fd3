/* search.c - the exact decision search on one part at one capacity: items
 * placed in non-decreasing offset order, each at its lowest feasible
 * offset; components split off and solved apart; the offset order restarts
 * (with fresh ranks) where a placement cuts the time line; failed
 * subproblems remembered by their full keys. */
#include <stdlib.h>
#include <string.h>

#include "exact/exact.h"

static void place(ex_search *S, int i, int64_t o) {
  const ex_part *P = S->P;
  int a = P->s0[i], b = P->s1[i];
  int64_t *sv = S->save + S->sp;
  S->sp += (size_t)(b - a);
  for (int s = a; s < b; s++) {
    sv[s - a] = S->floor[s];
    S->floor[s] = o + P->size[i];
    S->rem[s] -= P->size[i];
  }
  for (int s = a; s < b - 1; s++) S->cross[s]--;
  S->off[i] = o;
  S->trail[S->nt++] = i;
}

static void undo_to(ex_search *S, int mark) {
  const ex_part *P = S->P;
  while (S->nt > mark) {
    int i = S->trail[--S->nt];
    int a = P->s0[i], b = P->s1[i];
    S->sp -= (size_t)(b - a);
    int64_t *sv = S->save + S->sp;
    for (int s = a; s < b; s++) {
      S->floor[s] = sv[s - a];
      S->rem[s] += P->size[i];
    }
    for (int s = a; s < b - 1; s++) S->cross[s]++;
    S->off[i] = -1;
  }
}

/* The unplaced items among by_s0[i0 .. i1) as a bitset appended to key. */
static size_t key_unplaced(const ex_search *S, int i0, int i1, uint64_t *key, size_t len) {
  size_t words = (size_t)(i1 - i0 + 63) / 64;
  memset(key + len, 0, sizeof(uint64_t) * words);
  for (int q = i0; q < i1; q++)
    if (S->off[S->P->by_s0[q]] < 0) key[len + (size_t)((q - i0) >> 6)] |= 1ull << ((q - i0) & 63);
  return len + words;
}

/* Room for one more key on top of the key stack. */
static uint64_t *key_room(ex_search *S) {
  if (S->kused + S->kmax > S->kcap) {
    S->kcap = 2 * (S->kused + S->kmax);
    S->key = mp_xrealloc(S->key, sizeof(uint64_t) * S->kcap);
  }
  return S->key + S->kused;
}

/* Everything the subtree of component [sa, sb) depends on: its range, the
 * waterline, the last rank placed at it, the rank context, its unplaced
 * items and the floors of its live sections (in the normal form what
 * waits depends on the real floors). */
static size_t memo_key(ex_search *S, int sa, int sb, int64_t wl, int lastrank, uint64_t *hp) {
  const ex_part *P = S->P;
  uint64_t *key = key_room(S);
  size_t len = 0;
  key[len++] = (uint64_t)(uint32_t)sa << 32 | (uint32_t)sb;
  key[len++] = (uint64_t)wl;
  key[len++] = (uint64_t)(uint32_t)lastrank;
  key[len++] = S->rctx;
  size_t words = (size_t)(P->first[sb] - P->first[sa] + 63) / 64; /* from ex_infer_range */
  memcpy(key + len, S->ubits, sizeof(uint64_t) * words);
  len += words;
  for (int s = sa; s < sb; s++)
    if (S->rem[s] > 0) key[len++] = (uint64_t)(S->normal || S->floor[s] > wl ? S->floor[s] : wl);
  *hp = ex_memo_hash(key, len);
  return len;
}

typedef struct cand_order {
  int by_offset;
} cand_order;

static int cmp_cand(const void *a, const void *b, void *arg) {
  const ex_cand *x = a, *y = b;
  const cand_order *co = arg;
  if (co->by_offset && x->l != y->l) return x->l < y->l ? -1 : 1;
  return x->r - y->r;
}

/* The children of a node: unplaced items of [sa, sb) that may come next
 * (dominance, normal form, symmetry), pushed on the candidate stack in
 * value order.  Returns how many. */
static size_t candidates(ex_search *S, int sa, int sb, int64_t wl, int lastrank, const ex_infer *in) {
  const ex_part *P = S->P;
  const ex_config *cf = S->cf;
  int i0 = P->first[sa], i1 = P->first[sb];
  size_t base = S->ncs;
  int64_t L = INT64_MAX;
  if (S->minfirst)
    for (int q = i0; q < i1; q++)
      if (S->off[P->by_s0[q]] < 0 && S->lb[P->by_s0[q]] < L) L = S->lb[P->by_s0[q]];
  for (int q = i0; q < i1; q++) {
    int i = P->by_s0[q];
    int64_t l = S->lb[i];
    if (S->off[i] >= 0 || l >= in->U || l > in->omax) continue;
    if (S->wait[i] && S->normal) continue;
    if (S->minfirst && l != L) continue;
    if (l == wl && S->rank[i] < lastrank) continue;
    if (cf->twins && P->twin[i] >= 0 && S->off[P->twin[i]] < 0) continue;
    if (S->ncs == S->cap_cs) {
      S->cap_cs = S->cap_cs ? 2 * S->cap_cs : 1024;
      S->cs = mp_xrealloc(S->cs, sizeof(ex_cand) * S->cap_cs);
    }
    S->cs[S->ncs++] = (ex_cand){i, S->rank[i] + S->noise[i], l};
  }
  size_t nc = S->ncs - base;
  cand_order co = {S->by_offset};
  qsort_r(S->cs + base, nc, sizeof(ex_cand), cmp_cand, &co);
  return nc;
}

/* New ranks for the unplaced items of sections [sa, sb), with the section
 * totals of their unplaced bytes (the old ones go on a stack); the rank
 * context becomes the id of (range, unplaced items). */
static void rerank(ex_search *S, int sa, int sb) {
  const ex_part *P = S->P;
  int m = 0;
  for (int q = P->first[sa]; q < P->first[sb]; q++) {
    int i = P->by_s0[q];
    if (S->off[i] >= 0) continue;
    int64_t t = 0;
    for (int s = P->s0[i]; s < P->s1[i]; s++)
      if (S->rem[s] > t) t = S->rem[s];
    ex_rank_key(P->rank_mode, (double)t, (double)(P->ihi[i] - P->ilo[i]), (double)P->size[i], i,
                S->rkey + 3 * i);
    S->rord[m++] = i;
  }
  ex_rank_sort(S->rord, m, S->rkey, P->gid);
  if (S->rsp + 2 * (size_t)m > S->rcap) {
    S->rcap = 2 * (S->rsp + 2 * (size_t)m);
    S->rstack = mp_xrealloc(S->rstack, sizeof(int) * S->rcap);
  }
  for (int k = 0; k < m; k++) {
    int i = S->rord[k];
    S->rstack[S->rsp++] = i;
    S->rstack[S->rsp++] = S->rank[i];
    S->rank[i] = k;
  }
  if (S->cf->memo) { /* the context key goes above the key stack */
    uint64_t *key = key_room(S);
    size_t len = 0;
    key[len++] = (uint64_t)(uint32_t)sa << 32 | (uint32_t)sb;
    len = key_unplaced(S, P->first[sa], P->first[sb], key, len);
    S->rctx = ex_memo_intern(&S->ranks, key, len);
  }
}

/* The next component of [*s, sb): a maximal run of sections with unplaced
 * bytes joined by items that cross their boundaries.  Returns 0 when there
 * is none left; else its range [*ca, *cb), and *s moves past it. */
static int next_component(const ex_search *S, int *s, int sb, int *ca, int *cb) {
  while (*s < sb && S->rem[*s] == 0) (*s)++;
  if (*s >= sb) return 0;
  int e = *s;
  while (e + 1 < sb && S->cross[e] > 0) e++;
  *ca = *s;
  *cb = e + 1;
  *s = e + 1;
  return 1;
}

/* ---- the search as an explicit stack of frames ----
 * The search descends one level per item placed, so a part of many items
 * would need a recursion as deep as the part is large (and the thread's
 * stack is small); the frames live on the heap instead.  A range frame
 * splits sections [sa, sb), which hold whole components, where no unplaced
 * item crosses a boundary and solves each apart (a failure in one needs no
 * backtracking into the others); a branch frame tries the candidates of one
 * connected component.  Each returns 1 found (the placement stays), 0
 * infeasible, -1 aborted, to the frame below it. */
enum { EX_RANGE, EX_BRANCH, EX_PUSHED = 2 };

typedef struct ex_frame {
  int kind, step;           /* step: 0 on entry, then where it resumes */
  int sa, sb, lastrank;
  int64_t wl;
  bool cut;
  int mark, s;              /* range: trail mark, component iterator */
  size_t rmark;             /* range: rank stack mark */
  uint64_t rctx;            /* range: rank context on entry */
  int depth;                /* branch: trail length on entry */
  size_t kat, klen, base, nc, k; /* branch: memo key, candidates, next one */
  uint64_t h;
} ex_frame;

static int push(ex_search *S, int kind, int sa, int sb, int64_t wl, int lastrank, bool cut) {
  if (S->nf == S->cap_fr) {
    S->cap_fr = S->cap_fr ? 2 * S->cap_fr : 256;
    S->fr = mp_xrealloc(S->fr, sizeof(ex_frame) * S->cap_fr);
  }
  S->fr[S->nf++] = (ex_frame){.kind = kind, .sa = sa, .sb = sb, .wl = wl, .lastrank = lastrank,
                              .cut = cut};
  return EX_PUSHED;
}

/* One connected component: sections [sa, sb), every unplaced item whose
 * span starts there lies inside.  r: what the last child returned. */
static int branch_step(ex_search *S, ex_frame *f, int r) {
  const ex_part *P = S->P;
  if (f->step == 0) {
    f->depth = S->nt;
    if (f->depth > S->maxdepth) S->maxdepth = f->depth;
    ex_infer in;
    if (!ex_infer_range(S, f->sa, f->sb, f->wl, S->cf->memo, &in)) return 0;
    /* the memo key stays on the key stack while the children run */
    f->kat = S->kused;
    if (S->cf->memo) {
      f->klen = memo_key(S, f->sa, f->sb, f->wl, f->lastrank, &f->h);
      if (ex_memo_has(&S->memo, S->key + f->kat, f->klen, f->h)) return 0;
      S->kused += f->klen;
    }
    f->base = S->ncs;
    f->nc = candidates(S, f->sa, f->sb, f->wl, f->lastrank, &in);
    f->step = 1;
    r = 0;
  } else if (r != 1) {
    undo_to(S, f->depth);
  }
  if (f->k < f->nc && r == 0) {
    ex_cand cd = S->cs[f->base + f->k++];
    place(S, cd.i, cd.l);
    bool cut = false;
    for (int t = P->s0[cd.i]; t < P->s1[cd.i] - 1 && !cut; t++) cut = S->cross[t] == 0;
    return push(S, EX_RANGE, f->sa, f->sb, cd.l, S->rank[cd.i], cut);
  }
  S->kused = f->kat;
  if (r != 0) return r; /* found (the placement stays), or aborted */
  S->ncs = f->base;
  if (S->cf->memo) ex_memo_add(&S->memo, S->key + f->kat, f->klen, f->h);
  return 0;
}

/* Entering a range: the node and clock checks, its components, the check
 * of every one at the waterline, the restart of the offset order; then the
 * first branch (or 1: nothing left, 0: a dead component, -1: stopped). */
static int range_enter(ex_search *S, ex_frame *f) {
  const ex_config *cf = S->cf;
  if ((++S->nodes & 255) == 0 && S->nodes >= S->budget) {
    S->aborted = 1;
    return -1;
  }
  /* the clock every 256 nodes, every node on big parts (slow nodes) */
  if (((S->nodes & 255) == 0 || S->P->n > 200) && mp_time_up(S->ctx)) {
    S->aborted = 2;
    return -1;
  }
  int ncomp = 0, ca = -1, cb = -1, a, b, sa = f->sa, sb = f->sb;
  for (int s = sa; next_component(S, &s, sb, &a, &b); ncomp++)
    if (ncomp == 0) ca = a, cb = b;
  if (ncomp == 0) return 1;
  /* when there are several, or the offset order is about to restart, check
   * every one at the current waterline first (a dead one must not wait
   * until the others are solved) */
  bool restart = f->cut && cf->reset;
  if ((restart || cf->components) && (ncomp > 1 || restart)) {
    ex_infer in;
    for (int s = sa; next_component(S, &s, sb, &a, &b);)
      if (!ex_infer_range(S, a, b, f->wl, false, &in)) return 0;
  }
  /* a placement that leaves no unplaced item across some boundary inside
   * its span makes every part left an independent problem above the placed
   * items: each may start its own offset order (any placement of it
   * completes the prefix, so a failure there is a real one).  The check
   * above used the waterline: completions in offset order are all the
   * search needs, and none exists if it fails. */
  f->mark = S->nt;
  f->rmark = S->rsp;
  f->rctx = S->rctx;
  if (restart) {
    f->wl = 0;
    f->lastrank = -1;
    if (cf->rerank) rerank(S, sa, sb);
  }
  f->step = 1;
  if (ncomp == 1) return push(S, EX_BRANCH, ca, cb, f->wl, f->lastrank, false);
  if (!cf->components) { /* one search over the whole range */
    while (S->rem[sa] == 0) sa++;
    while (S->rem[sb - 1] == 0) sb--;
    return push(S, EX_BRANCH, sa, sb, f->wl, f->lastrank, false);
  }
  f->step = 2;
  f->s = f->sa;
  return 1; /* into the component loop */
}

/* Sections [sa, sb) hold whole components: solve them one after another.
 * r: what the last child returned. */
static int range_step(ex_search *S, ex_frame *f, int r) {
  if (f->step == 0) {
    r = range_enter(S, f);
    if (r == EX_PUSHED || f->step == 0) return r;
  } else if (f->step == 2 && r == 0) {
    undo_to(S, f->mark);
  }
  int a, b;
  if (f->step == 2 && r == 1 && next_component(S, &f->s, f->sb, &a, &b))
    return push(S, EX_BRANCH, a, b, f->wl, f->lastrank, false);
  while (S->rsp > f->rmark) {
    S->rsp -= 2;
    S->rank[S->rstack[S->rsp]] = S->rstack[S->rsp + 1];
  }
  S->rctx = f->rctx;
  return r;
}

/* Run the frames from the root range down and back. */
static int run_frames(ex_search *S) {
  S->nf = 0;
  push(S, EX_RANGE, 0, S->P->ns, 0, -1, false);
  int r = 0;
  while (S->nf > 0) {
    ex_frame *f = &S->fr[S->nf - 1];
    int out = f->kind == EX_RANGE ? range_step(S, f, r) : branch_step(S, f, r);
    if (out == EX_PUSHED) continue;
    S->nf--; /* f returns out to the frame below */
    r = out;
  }
  return r;
}

enum { KEY_STACK0 = 4 }; /* longest keys the key stack holds at first */

bool ex_search_bytes(const ex_config *cf, const ex_part *P, int64_t *bytes) {
  int64_t n = P->n ? P->n : 1, ns = P->ns, b = 0;
  /* per section: floor, rem, lows, cross; per item: off, lb, rank, noise,
   * rkey, rord, tbuf, wait, trail, ubits (rounded up); the save stack: a
   * floor per section entry */
  bool ok = mp_add_mul_ok(&b, ns, 8 + 8 + 8 + 4) && mp_add_mul_ok(&b, n, 8 + 8 + 4 + 4 + 24 + 4 + 16 + 1 + 4 + 1) &&
            mp_add_mul_ok(&b, P->spans + 1, 8);
  if (ok && cf->memo) {
    /* the key stack; two memo tables of 16-byte slots and 8 key words a slot */
    int64_t kmax = 5 + n / 64 + 1 + ns;
    int lr = cf->memo_log2 > 12 ? 12 : cf->memo_log2;
    ok = mp_add_mul_ok(&b, kmax, 8 * KEY_STACK0) && mp_add_mul_ok(&b, (int64_t)1 << cf->memo_log2, 16 + 64) &&
         mp_add_mul_ok(&b, (int64_t)1 << lr, 16 + 64);
  }
  *bytes = b;
  return ok;
}

void ex_search_init(ex_search *S, const mp_ctx *c, const ex_config *cf, const ex_part *P, int64_t C) {
  memset(S, 0, sizeof *S);
  S->P = P;
  S->ctx = c;
  S->cf = cf;
  S->C = C;
  S->normal = cf->normal;
  S->by_offset = cf->by_offset;
  int n = P->n, ns = P->ns;
  size_t nz = (size_t)(n ? n : 1);
  S->floor = mp_xcalloc((size_t)ns, sizeof(int64_t));
  S->rem = mp_xcalloc((size_t)ns, sizeof(int64_t));
  S->lows = mp_xmalloc(sizeof(int64_t) * (size_t)ns);
  S->off = mp_xmalloc(sizeof(int64_t) * nz);
  S->lb = mp_xmalloc(sizeof(int64_t) * nz);
  S->rank = mp_xmalloc(sizeof(int) * nz);
  S->noise = mp_xcalloc(nz, sizeof(int));
  S->rkey = mp_xmalloc(sizeof(double) * 3 * nz);
  S->rord = mp_xmalloc(sizeof(int) * nz);
  S->tbuf = mp_xmalloc(sizeof(int64_t) * 2 * nz);
  S->wait = mp_xcalloc(nz, 1);
  S->ubits = mp_xmalloc(sizeof(uint64_t) * (nz / 64 + 1));
  S->trail = mp_xmalloc(sizeof(int) * nz);
  S->cross = mp_xcalloc((size_t)ns, sizeof(int));
  size_t span = 0;
  for (int i = 0; i < n; i++) span += (size_t)(P->s1[i] - P->s0[i]);
  S->save = mp_xmalloc(sizeof(int64_t) * (span + 1));
  if (cf->memo) {
    S->kmax = 5 + nz / 64 + 1 + (size_t)ns;
    S->kcap = KEY_STACK0 * S->kmax; /* key_room grows it */
    S->key = mp_xmalloc(sizeof(uint64_t) * S->kcap);
    ex_memo_init(&S->memo, cf->memo_log2);
    ex_memo_init(&S->ranks, cf->memo_log2 > 12 ? 12 : cf->memo_log2); /* few contexts */
  }
}

void ex_search_destroy(ex_search *S) {
  free(S->floor);
  free(S->rem);
  free(S->lows);
  free(S->off);
  free(S->lb);
  free(S->cs);
  free(S->save);
  free(S->rank);
  free(S->noise);
  free(S->rkey);
  free(S->rord);
  free(S->rstack);
  free(S->tbuf);
  free(S->wait);
  free(S->ubits);
  free(S->trail);
  free(S->cross);
  free(S->key);
  free(S->fr);
  if (S->cf->memo) {
    ex_memo_destroy(&S->memo);
    ex_memo_destroy(&S->ranks);
  }
}

int ex_search_run(ex_search *S, uint64_t limit) {
  const ex_part *P = S->P;
  for (int i = 0; i < P->n; i++) S->off[i] = -1;
  memset(S->rem, 0, sizeof(int64_t) * (size_t)P->ns);
  memset(S->floor, 0, sizeof(int64_t) * (size_t)P->ns);
  memset(S->cross, 0, sizeof(int) * (size_t)P->ns);
  for (int i = 0; i < P->n; i++) {
    for (int s = P->s0[i]; s < P->s1[i]; s++) S->rem[s] += P->size[i];
    for (int s = P->s0[i]; s < P->s1[i] - 1; s++) S->cross[s]++;
  }
  S->nt = 0;
  S->sp = 0;
  memcpy(S->rank, P->rank, sizeof(int) * (size_t)P->n);
  S->rsp = 0;
  S->rctx = 0;
  S->kused = 0;
  S->ncs = 0;
  S->aborted = 0;
  S->budget = S->nodes + limit;
  return run_frames(S);
}
