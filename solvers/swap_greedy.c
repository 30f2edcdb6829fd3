/* swap_greedy.c - Capuchin-style swap then recompute (Peng et al.,
 * ASPLOS'20): measure the plan, find the first point where memory exceeds
 * the budget, and free enough of what is resident there but idle (not read
 * until later):
 *   1. swap first: buffers whose idle window hides both copies (free time
 *      FT >= 0: the copy in, queued behind the copies already planned on
 *      its stream, ends before the next use), the largest first; a swap
 *      copies the buffer out right after it is made, frees it after its
 *      last use before the window once the copy has ended, and brings it
 *      back at the latest position that leaves the copy in time;
 *   2. then, for what swapping cannot hide, the option with the most bytes
 *      per unit of overhead (Capuchin's memory saving per second): a swap
 *      that stalls (its unhidden copy time) or a recomputation (the cost of
 *      its producer and of the producers of its reads that are gone);
 * then measure again, until the plan fits.  Each plan that fits has its
 * copies in retimed (lib/remat_retime.h): placed one at a time, each as if
 * its stream were free, they queue behind one another and stall; retimed
 * from the last need back, each ends before its reader and before the
 * copy needed after it starts.  The rounds then go on (an earlier copy in
 * may overflow, freed as any other), a few retimings at most, and the
 * shortest plan that fitted is kept.  Times come from the plan's own
 * simulation (one compute stream, two copy streams, DESIGN 6.3), so later
 * choices see the stalls of earlier ones.  With bandwidth 0 (no host link)
 * it only recomputes.  In-place storage is never moved (DESIGN 6.2).  The
 * bandwidth is the stage's (--bandwidth, else the graph's host_bandwidth).
 * Each round's measurement resumes from a snapshot before the first step
 * the previous round's changes reach (lib/remat_ckpt.h): the same plan as
 * a run from the start, without its unchanged prefix.  With a link it
 * stops at the first overflow and goes on only as far as the choices
 * there read the times (below, "the times past p*").  Without a link a
 * round mostly goes on from its overflow instead (below, "without a
 * link"): the same plan again, in O(n log n) on gen sp training steps. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/iheap.h"
#include "lib/remat_ckpt.h"
#include "lib/remat_dropq.h"
#include "lib/remat_retime.h"
#include "solver.h"

#define SWAP_GREEDY_OPTIONS(X) \
  X(rounds, INT, 100000, 1, 1e9, "measure-and-free rounds at most") \
  X(index, INT, 2, 0, 2, "the rounds' shortcuts (the same plan): without a link, 2 keeps the " \
    "candidates indexed and patches the run for a drop no step in its gap looked at, 1 only " \
    "indexes, 0 lists every resident buffer and measures from a snapshot each round; with " \
    "one, 1 and 2 stop at the largest hidden swaps that cover the overflow, 0 weighs every " \
    "resident buffer")
enum { SWAP_GREEDY_OPTIONS(MP_OPT_ENUM) SWAP_GREEDY_N_OPTS };
static const mp_option swap_greedy_options[] = {SWAP_GREEDY_OPTIONS(MP_OPT_ENTRY)};
/* Snapshots of the rounds' run: more is less stepping on a resume, more
 * copying and memory (one state each, about 35 bytes per buffer, 60 with
 * a link); 8 and 16 take about the same time on gen sp graphs. */
enum { SG_SNAPSHOTS = 8 };
/* Without a link the rounds go back to a snapshot only when a drop's gap
 * holds a step that reran from the buffer (rare: 32 of 3434 rounds on the
 * suite's training graphs), so fewer: the memory of the other five. */
enum { SG_SNAPSHOTS_ALONE = 3 };
/* Retimings of the copies in (each one more measurement at least): the
 * positions mostly settle in two or three. */
enum { SG_RETIMES = 6 };

typedef struct sg_state {
  const ri_info *ri;
  mp_ctx *c;
  double bw;
  uint8_t *gap;     /* per event: the mode of the gap after it */
  int *prefetch;    /* per event: where a swapped buffer comes back */
  rk_run run;       /* the rounds' run, resumed where a round's changes begin */
  /* the run's own arrays, valid up to the position it has run (with a
   * link, past p*: reach()) */
  const double *pos_start, *pos_tout, *pos_tin, *pos_work;
  rx_exec at;       /* with a link: the state at p*, while the run goes on */
  bool at_made;
  int at_p;         /* the position whose state s->at holds (-1: none) */
  bool tail;        /* the choices at p* step the run to the times they read */
  int tail_rc;      /* a step of that run failed (-1: the run's msg) */
  rt_copy *copies;  /* the retiming's scratch */
  int *by_size;     /* with a link: the buffers, the largest first (ties: the id) */
  int snap_to;      /* with a link: the furthest overflow so far (rk_snapshots_to) */
  /* without a link: the candidates kept as the run moves on (lib/remat_dropq.h) */
  dq_queue dq;
  uint8_t *pre_res; /* per read of the last position run: resident before it */
  uint8_t *now;     /* per buffer: read or made at the overflow (no candidate) */
  int pstar;        /* the overflow the callback looks from */
  int *taken, ntaken_cap; /* a round's drops */
  long patched, rerun;    /* rounds that patched the run, that ran it again */
  int seen_to;            /* the index's keys are those of the run at this
                             position, the touched buffers aside (-1: none) */
  int index;              /* the option */
} sg_state;

/* One candidate at the overflow point: buffer b, the gap after event e. */
typedef struct sg_cand {
  int b, e;
  int mode;         /* RX_SWAP or RX_DROP */
  int back;         /* swap: the position it comes back at */
  double ft;        /* swap: free time (>= 0: hidden) */
  double overhead;  /* the cheaper option's estimated cost */
  bool hidden;      /* a swap whose copies the idle window hides */
  double per;       /* bytes per overhead */
} sg_cand;

/* The whole plan found, written to out, with no deadline: the rounds may
 * have ended at it (ri_claim then says timeout). */
static int measure(sg_state *s, mp_events *out, rx_exec *x) {
  rx_init(x, s->ri, out, INT64_MAX, s->bw);
  rx_set_gaps(x, s->gap, s->prefetch);
  int rc = rx_start(x);
  if (rc == 0) rc = rx_finish(x);
  return rc;
}

/* The run's state (at its position) into s->at. */
static void keep_state(sg_state *s) {
  if (!s->at_made) rx_init_snapshot(&s->at, &s->run.x);
  s->at_made = true;
  rx_copy_state_untimed(&s->at, &s->run.x);
  s->at_p = s->run.x.p;
}

/* The copies in planned at position p, from the run's lists (s->at has
 * none); their count. */
static int planned(const sg_state *s, int p, const int **list) {
  const rx_exec *x = &s->run.x;
  if (!x->pre_start) return 0;
  *list = x->pre + x->pre_start[p];
  return x->pre_start[p + 1] - x->pre_start[p];
}

/* The bytes bringing back read r of step p can add: from host, its size;
 * by a rerun whose reads are resident, the rerun's outputs and workspace;
 * deeper reruns: -1 (not bounded). */
static int64_t read_bytes(const rx_exec *x, int r) {
  const ri_info *ri = x->ri;
  if (x->res[r]) return 0;
  if (x->host[r]) return ri->size[r];
  int u = ri_owner(ri, r);
  for (int k = 0; k < ri_nreads(ri, u); k++)
    if (!x->res[ri_read(ri, u, k)]) return -1;
  return ri_run_bytes(ri, u);
}

/* Can step p (the run there) sample more than the budget?  Its samples
 * are the bytes resident before it plus what it has made resident by
 * then (its frees only lower them): at most the copies in planned at p,
 * what bringing back its reads adds and the run's outputs and workspace.
 * With a link the state before a step that may overflow is kept (s->at),
 * so that the choices there need no seek back to it; the bound only saves
 * time, and a step it misses (an unbounded rerun: false, as a copy of the
 * state costs more than a seek) is sought as before.  On gen sp training
 * steps (3x10^4 nodes) it kept 1111 states for 1084 overflows at 0.6 and
 * bandwidth 1e6, 3248 for 2794 at 0.4 and 1e5 (reruns), missing none. */
static bool may_overflow(const sg_state *s, int p) {
  const ri_info *ri = s->ri;
  const rx_exec *x = &s->run.x;
  int v = ri->seq[p];
  int64_t most = x->live + ri_run_bytes(ri, v);
  const int *pre = NULL;
  for (int i = 0, np = planned(s, p, &pre); i < np; i++)
    if (!x->res[pre[i]]) most += ri->size[pre[i]];
  for (int j = 0; j < ri_nreads(ri, v); j++) {
    int64_t add = read_bytes(x, ri_read(ri, v, j));
    if (add < 0) return false;
    most += add;
  }
  return most > s->c->budget;
}

/* A round's measurement: the plan run on from the last state the previous
 * round's changes left as it was, to the first position whose sample
 * exceeds the budget (*pstar; -1: none, m: bringing back the outputs);
 * the run stops just after it (the choices there read the times of later
 * positions: reach() runs on to them).  Before the first overflow every
 * sample fits, and so does the start (the budget is above
 * mp_events_floor): no overflow, no excess. */
static int run_plan(sg_state *s, int *pstar) {
  const ri_info *ri = s->ri;
  rk_run *k = &s->run;
  int64_t budget = s->c->budget;
  *pstar = -1;
  s->at_p = -1;
  int rc = rk_resume(k);
  while (rc == 0 && k->x.p < ri->m) {
    int p = k->x.p;
    if (s->bw > 0 && may_overflow(s, p)) keep_state(s);
    rc = rk_step(k);
    if (rc == 0 && k->pos_peak[p] > budget) {
      *pstar = p;
      /* a round's changes reach no step past its p* (a retiming's may):
       * snapshots past the furthest overflow would mostly go unused */
      if (s->bw > 0 && p > s->snap_to) rk_snapshots_to(k, s->snap_to = p);
      return 0;
    }
  }
  if (rc == 0) rc = rk_finish(k);
  if (rc) return rc;
  if (*pstar < 0 && k->pos_peak[ri->m] > budget) *pstar = ri->m;
  return 0;
}

/* ---- the times past p* ----
 * With a link the choices at p* read the times of positions up to the
 * next use q of each buffer they weigh.  A step's times depend on the
 * steps before it only (the run is a function of the plan, step by step),
 * so the run goes on from p* (the state there kept in s->at for the
 * choices) as far as the largest q weighed, instead of to the end: the
 * times it writes are those of a run to the end, and no time past the
 * run's position is read.  Every choice is weighed before any is taken
 * (take()), so the plan does not change meanwhile. */
static void reach(sg_state *s, int r) {
  rk_run *k = &s->run;
  while (s->tail && s->tail_rc == 0 && k->x.p <= r && k->x.p < s->ri->m) s->tail_rc = rk_step(k);
}

/* When a copy in issued before position r would end: it starts once r's
 * turn comes, the stream from the host is free and the copy out has ended. */
static double in_end(const sg_state *s, int r, double out_end, double len) {
  double t = s->pos_start[r] > s->pos_tin[r] ? s->pos_start[r] : s->pos_tin[r];
  return (t > out_end ? t : out_end) + len;
}

/* The latest position in (after, q] whose copy in ends by q's start (every
 * term of in_end grows with r); the earliest one when none does. */
static int back_position(const sg_state *s, int after, int q, double out_end, double len) {
  int lo = after + 1, hi = q;
  if (lo > hi) return q;
  if (in_end(s, lo, out_end, len) > s->pos_start[q]) return lo;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (in_end(s, mid, out_end, len) <= s->pos_start[q]) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/* The cost of bringing b back by a rerun at p: its producer, and the
 * producers of its reads that are not resident now. */
static double rerun_cost(const rx_exec *x, int b) {
  const ri_info *ri = x->ri;
  int u = ri_owner(ri, b);
  double c = ri->cost[u];
  for (int k = 0; k < ri_nreads(ri, u); k++) {
    int r = ri_read(ri, u, k);
    if (!x->res[r] && !(ri->flags[r] & RI_INPUT)) c += ri->cost[ri_owner(ri, r)];
  }
  return c + 1e-9; /* views cost nothing, yet a rerun is never free */
}

/* A buffer swapped already, brought back before p* by its prefetch: bring
 * it back after p* instead (a later copy in, perhaps a stall). */
static bool consider_later(sg_state *s, const rx_exec *x, int b, int e, int q, int pstar,
                           sg_cand *cd) {
  const ri_info *ri = s->ri;
  if (s->gap[e] != RX_SWAP || !x->host[b] || s->prefetch[e] > pstar) return false;
  double len = (double)ri->size[b] / s->bw;
  int back = back_position(s, pstar, q, x->last_out[b], len);
  if (back <= pstar) back = pstar + 1; /* late: a stall */
  if (back > q) return false;
  double ft = s->pos_start[q] - in_end(s, back, x->last_out[b], len);
  *cd = (sg_cand){.b = b, .e = e, .mode = RX_SWAP, .back = back, .ft = ft, .overhead = ft >= 0 ? 0 : -ft};
  return true;
}

static bool consider(sg_state *s, const rx_exec *x, int b, int pstar, sg_cand *cd) {
  const ri_info *ri = s->ri;
  int e = x->cur[b] - 1;
  if (x->lock[b] || e < ri->ev_start[b] || x->cur[b] >= ri->ev_start[b + 1]) return false;
  int q = ri->ev[x->cur[b]], ls = ri->ev[e];
  if (q <= pstar) return false; /* read right now */
  reach(s, q); /* every time read below is of a position up to q */
  if (s->gap[e] != RX_KEEP) return consider_later(s, x, b, e, q, pstar, cd);
  *cd = (sg_cand){.b = b, .e = e, .mode = -1, .back = -1, .ft = -DBL_MAX, .overhead = DBL_MAX};
  if (s->bw > 0 && (ri->flags[b] & RI_SWAP)) {
    /* copied out after it is made, freed once copied (and used), back in
     * time for q: it helps at p* when the free comes before and the copy
     * in after */
    int pb = ri_prod(ri, b), after = pb + 1 < ri->m ? pb + 1 : pb;
    double len = (double)ri->size[b] / s->bw;
    double made = pb >= 0 ? s->pos_start[pb] + ri->cost[ri->seq[pb]] : 0;
    double out_start = pb >= 0 && x->host[b] == 0 && s->pos_tout[after] > made ? s->pos_tout[after] : made;
    double out_end = x->host[b] ? x->last_out[b] : out_start + len;
    double used = ls >= 0 ? s->pos_start[ls] + ri->cost[ri->seq[ls]] : 0;
    double freed = out_end > used ? out_end : used;
    int back = back_position(s, ls, q, out_end, len);
    if (back <= pstar) back = pstar + 1; /* late: a stall */
    if (back <= q && freed <= s->pos_start[pstar]) {
      cd->mode = RX_SWAP, cd->back = back;
      cd->ft = s->pos_start[q] - in_end(s, back, out_end, len);
      cd->overhead = cd->ft >= 0 ? 0 : -cd->ft;
    }
  }
  if (ri->flags[b] & RI_DROP) {
    double rc = rerun_cost(x, b);
    if (cd->mode < 0 || (cd->ft < 0 && rc < cd->overhead)) cd->mode = RX_DROP, cd->overhead = rc;
  }
  return cd->mode >= 0;
}

/* The order candidates are taken in: hidden swaps first, the largest
 * first; then bytes per overhead; ties: the buffer id (a buffer is a
 * candidate once, so the order is total).  A heap gives them in that order
 * until enough bytes are freed (O(n) to build, O(log n) a candidate),
 * instead of a sort of all of them. */
typedef struct sg_order {
  const ri_info *ri;
  const sg_cand *cd;
} sg_order;

static bool taken_first(const void *ctx, int i, int j) {
  const sg_order *o = ctx;
  const sg_cand *a = &o->cd[i], *b = &o->cd[j];
  if (a->hidden != b->hidden) return a->hidden;
  if (a->hidden) { /* hidden swaps: the most bytes first */
    const int64_t *size = o->ri->size;
    if (size[a->b] != size[b->b]) return size[a->b] > size[b->b];
  } else if (a->per != b->per) {
    return a->per > b->per;
  }
  return a->b < b->b;
}

/* The keys of the order, once per candidate. */
static void rank(const ri_info *ri, sg_cand *cd) {
  cd->hidden = cd->mode == RX_SWAP && cd->ft >= 0;
  cd->per = (double)ri->size[cd->b] / cd->overhead;
}

/* The candidates at p* (x: the state there), into cd; their count. */
static int candidates(sg_state *s, const rx_exec *x, int pstar, sg_cand *cd) {
  const ri_info *ri = s->ri;
  int n = 0;
  int v = pstar < ri->m ? ri->seq[pstar] : -1;
  for (int i = 0; i < x->nres; i++) {
    int b = x->rlist[i];
    bool read_now = false;
    for (int k = 0; v >= 0 && k < ri_nreads(ri, v); k++) read_now |= ri_read(ri, v, k) == b;
    bool ok = !read_now && consider(s, x, b, pstar, &cd[n]);
    if (ok) rank(ri, &cd[n]);
    if (s->c->verbose > 1 && ri->size[b] > 1000000)
      fprintf(stderr, "  resident %d (%lld bytes, flags %d, cur event %d at %d, gap %d, prefetch %d): %s\n", b,
              (long long)ri->size[b], ri->flags[b], x->cur[b] - ri->ev_start[b],
              x->cur[b] < ri->ev_start[b + 1] ? ri->ev[x->cur[b]] : -1,
              x->cur[b] > ri->ev_start[b] ? s->gap[x->cur[b] - 1] : -1,
              x->cur[b] > ri->ev_start[b] ? s->prefetch[x->cur[b] - 1] : -1, ok ? "candidate" : read_now ? "read now" : "no");
    n += ok;
  }
  /* copies in planned at p* itself: bring them back later instead */
  const int *pre = NULL;
  int np = planned(s, pstar, &pre);
  for (int i = 0; i < np; i++) {
    int b = pre[i];
    if (!x->res[b] && consider(s, x, b, pstar, &cd[n])) rank(ri, &cd[n++]);
  }
  return n;
}

/* Is candidate a before b among the hidden swaps (taken_first's order)? */
static bool hidden_before(const ri_info *ri, const sg_cand *a, const sg_cand *b) {
  if (ri->size[a->b] != ri->size[b->b]) return ri->size[a->b] > ri->size[b->b];
  return a->b < b->b;
}

/* The hidden swaps among the copies in planned at p* (few), in
 * taken_first's order, into cd; their count, or -1 when a buffer comes
 * twice (candidates() would list it twice: its path then). */
static int hidden_planned(sg_state *s, const rx_exec *x, int pstar, sg_cand *cd) {
  const ri_info *ri = s->ri;
  const int *list = NULL;
  int np = planned(s, pstar, &list), n = 0;
  for (int i = 0; i < np; i++) {
    int b = list[i];
    sg_cand c;
    if (x->res[b] || !consider(s, x, b, pstar, &c)) continue;
    rank(ri, &c);
    if (!c.hidden) continue;
    int j = n++;
    for (; j > 0 && hidden_before(ri, &c, &cd[j - 1]); j--) cd[j] = cd[j - 1];
    cd[j] = c;
    if (j > 0 && cd[j - 1].b == c.b) return -1;
    if (j + 1 < n && cd[j + 1].b == c.b) return -1;
  }
  return n;
}

/* c at the end of cd (n of them); its bytes. */
static int64_t append(const ri_info *ri, sg_cand *cd, int *n, const sg_cand *c) {
  cd[(*n)++] = *c;
  return ri->size[c->b];
}

/* What take() would take when the hidden swaps cover the excess: they
 * come first, the largest first, so a walk of the resident buffers by
 * size can stop at the prefix that covers it, instead of weighing every
 * candidate.  The prefix into cd, in take()'s order (take() then pops all
 * of it); its length, or -1: take() needs every candidate. */
static int hidden_prefix(sg_state *s, const rx_exec *x, int pstar, int64_t excess, sg_cand *cd) {
  const ri_info *ri = s->ri;
  const int *list = NULL;
  int np = planned(s, pstar, &list);
  sg_cand *pre = mp_xmalloc(sizeof(sg_cand) * (size_t)(np > 0 ? np : 1));
  int npre = hidden_planned(s, x, pstar, pre), n = 0, j = 0;
  int v = pstar < ri->m ? ri->seq[pstar] : -1;
  int64_t sum = 0;
  for (int i = 0; npre >= 0 && i < ri->nb && sum < excess; i++) {
    int b = s->by_size[i];
    sg_cand c;
    if (!x->res[b]) continue;
    bool read_now = false;
    for (int k = 0; v >= 0 && k < ri_nreads(ri, v); k++) read_now |= ri_read(ri, v, k) == b;
    if (read_now || !consider(s, x, b, pstar, &c)) continue;
    rank(ri, &c);
    if (!c.hidden) continue;
    /* the planned ones before it first */
    while (j < npre && sum < excess && hidden_before(ri, &pre[j], &c)) sum += append(ri, cd, &n, &pre[j++]);
    if (sum < excess) sum += append(ri, cd, &n, &c);
  }
  while (npre >= 0 && j < npre && sum < excess) sum += append(ri, cd, &n, &pre[j++]);
  free(pre);
  return npre >= 0 && sum >= excess ? n : -1;
}

/* Candidate k taken: its gap changed.  Returns the first step that sees
 * the change (rk_first_step). */
static int apply(sg_state *s, const sg_cand *k, int pstar, int64_t excess) {
  const ri_info *ri = s->ri;
  int step = rk_first_step(ri, k->b, k->e, s->gap[k->e], k->mode, s->prefetch[k->e],
                           k->mode == RX_SWAP ? k->back : -1);
  int was = s->prefetch[k->e];
  s->gap[k->e] = (uint8_t)k->mode;
  s->prefetch[k->e] = k->mode == RX_SWAP ? k->back : -1;
  if (k->mode == RX_SWAP) rk_prefetch_changed(&s->run, k->b, k->e, was);
  if (s->c->verbose)
    fprintf(stderr, "swap-greedy: at %d (%lld over): %s buffer %d (%lld bytes, gap %d..%d, ft %g, "
            "overhead %g)\n", pstar, (long long)excess, k->mode == RX_SWAP ? "swap" : "recompute",
            k->b, (long long)ri->size[k->b], ri->ev[k->e], ri->ev[k->e + 1], k->ft, k->overhead);
  return step;
}

/* Take candidates in order until `excess` bytes are freed; the gaps
 * changed, the run told where.  Returns how many. */
static int take(sg_state *s, sg_cand *cd, int n, int pstar, int64_t excess) {
  const ri_info *ri = s->ri;
  sg_order ord = {ri, cd};
  mp_iheap q;
  mp_iheap_init(&q, taken_first, &ord);
  mp_iheap_build(&q, NULL, n);
  int64_t freed = 0;
  int changed = 0, first = ri->m;
  while (q.n > 0 && freed < excess) {
    sg_cand k = cd[mp_iheap_pop(&q)];
    int step = apply(s, &k, pstar, excess);
    if (step < first) first = step;
    freed += ri->size[k.b];
    changed++;
  }
  mp_iheap_destroy(&q);
  if (changed) rk_changed(&s->run, first);
  return changed;
}

/* One round: at the first overflow, choose what to free.  Returns the
 * number of gaps changed (0: nothing can be freed there). */
static int free_at_overflow(sg_state *s, int pstar, int64_t excess, char *msg, size_t cap) {
  const ri_info *ri = s->ri;
  rk_run *k = &s->run;
  /* the state at p*: the run is there after bringing back the outputs;
   * with a link, kept by run_plan when its bound saw the overflow come */
  bool kept = s->bw > 0 && s->at_p == pstar;
  if (pstar < ri->m && !kept && rk_seek(k, pstar)) {
    snprintf(msg, cap, "%s", k->x.msg);
    return 0;
  }
  const rx_exec *x = &k->x;
  if (s->bw > 0 && pstar < ri->m) { /* the run goes on past p*: reach() */
    if (!kept) keep_state(s);
    x = &s->at;
    s->tail = true, s->tail_rc = 0;
  }
  const int *pre = NULL;
  int np = planned(s, pstar, &pre);
  sg_cand *cd = mp_xmalloc(sizeof(sg_cand) * (size_t)(x->nres + np + 1));
  int n = s->by_size && s->index > 0 && s->c->verbose < 2 ? hidden_prefix(s, x, pstar, excess, cd) : -1;
  if (n < 0) n = candidates(s, x, pstar, cd);
  s->tail = false;
  if (s->tail_rc) { /* the times read are not the plan's */
    snprintf(msg, cap, "%s", k->x.msg);
    free(cd);
    return 0;
  }
  int changed = take(s, cd, n, pstar, excess);
  if (!changed)
    snprintf(msg, cap, "at position %d, %lld bytes over the budget and nothing resident can be "
             "offloaded or recomputed", pstar, (long long)excess);
  free(cd);
  return changed;
}

/* ---- without a link: the rounds on one forward run ----
 * Without copies, a buffer's residency between two steps follows from its
 * next event and the gap it is in (kept through a KEEP gap, freed in a
 * DROP one: a rerun brings a buffer back for its own step only).  So the
 * step at the first overflow p* leaves every buffer it neither reads nor
 * makes as it found it, and the candidates at p* can be read from the
 * state after it, the reads set back to their residency before it.  A
 * drop whose buffer no step since the gap's start looked at (no rerun read
 * or remade it: rk_run.rerun_seen) changes those steps by its bytes only:
 * the run and its snapshots are patched (rk_patch_free) and it goes on
 * from p* + 1, instead of again from a snapshot before the gap.  The
 * candidates are kept in lib/remat_dropq.h's index, in take()'s order;
 * other drops, and an overflow at the end (bringing back the outputs),
 * take the general path. */

/* dq's callback: is b a candidate at s->pstar (the run just after it), and
 * its key (a rerun's bytes per overhead: no hidden swap without a link). */
static bool drop_key(void *ctx, int b, double *key) {
  sg_state *s = ctx;
  const rx_exec *x = &s->run.x;
  sg_cand cd;
  if (!x->res[b] || s->now[b] || !consider(s, x, b, s->pstar, &cd)) return false;
  rank(s->ri, &cd);
  *key = cd.per;
  return true;
}

/* run_plan without a link: on from where the run is to the first overflow
 * (the run just after it), each step's reads and outputs touched in the
 * index (every buffer when the run goes back), the reads' residency before
 * the step kept (pre_res). */
static void touch_position(sg_state *s, int p) {
  const ri_info *ri = s->ri;
  int v = ri->seq[p];
  for (int j = 0; j < ri_nreads(ri, v); j++) dq_touch(&s->dq, ri_read(ri, v, j));
  for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) dq_touch(&s->dq, ri->own[i]);
}

static int run_plan_fast(sg_state *s, int *pstar) {
  const ri_info *ri = s->ri;
  rk_run *k = &s->run;
  *pstar = -1;
  if (!k->fresh && s->seen_to < 0) dq_touch_all(&s->dq);
  int rc = rk_resume(k);
  if (s->seen_to < 0) s->seen_to = k->x.p;
  while (rc == 0 && k->x.p < ri->m) {
    int p = k->x.p, v = ri->seq[p];
    for (int j = 0; j < ri_nreads(ri, v); j++) s->pre_res[j] = k->x.res[ri_read(ri, v, j)];
    rc = rk_step(k);
    touch_position(s, p);
    if (rc == 0 && k->pos_peak[p] > s->c->budget) {
      *pstar = p;
      /* back from a resume: the buffers of the positions between differ */
      for (int q = p + 1; q < s->seen_to; q++) touch_position(s, q);
      s->seen_to = p + 1;
      return 0;
    }
  }
  s->seen_to = -1; /* the end: bringing back the outputs is no step */
  if (rc == 0) rc = rk_finish(k);
  if (rc == 0 && k->pos_peak[ri->m] > s->c->budget) *pstar = ri->m;
  return rc;
}

/* p*'s reads at their residency before it (on: after -> before, else
 * back), and the buffers it reads or makes marked as no candidate. */
static void at_pstar(sg_state *s, int pstar, bool on) {
  const ri_info *ri = s->ri;
  rx_exec *x = &s->run.x;
  int v = ri->seq[pstar];
  for (int j = 0; j < ri_nreads(ri, v); j++) {
    int r = ri_read(ri, v, j);
    uint8_t other = s->pre_res[j];
    s->pre_res[j] = x->res[r];
    x->res[r] = other;
    s->now[r] = on;
    if (!on) dq_touch(&s->dq, r); /* its key at the next look, from the run's state */
  }
  for (int i = ri->own_start[v]; i < ri->own_start[v + 1]; i++) {
    s->now[ri->own[i]] = on;
    if (!on) dq_touch(&s->dq, ri->own[i]);
  }
}

/* A round without a link at p* < m (the run just after p*): take() from
 * the index; then patch the run, or tell it where its steps change. */
static int free_fast(sg_state *s, int pstar, int64_t excess, char *msg, size_t cap) {
  const ri_info *ri = s->ri;
  rk_run *k = &s->run;
  at_pstar(s, pstar, true);
  s->pstar = pstar;
  dq_settle(&s->dq);
  int64_t freed = 0;
  int changed = 0, first = ri->m;
  bool patch = true;
  while (freed < excess) {
    double key;
    int b = dq_pop(&s->dq, &key);
    if (b < 0) break;
    sg_cand cd;
    consider(s, &k->x, b, pstar, &cd);
    int step = apply(s, &cd, pstar, excess);
    if (step < first) first = step;
    patch &= s->index > 1 && k->rerun_seen[b] <= ri->ev[cd.e];
    if (changed == s->ntaken_cap) {
      s->ntaken_cap = s->ntaken_cap ? 2 * s->ntaken_cap : 64;
      s->taken = mp_xrealloc(s->taken, sizeof(int) * (size_t)s->ntaken_cap);
    }
    s->taken[changed++] = b;
    freed += ri->size[b];
  }
  at_pstar(s, pstar, false);
  patch &= freed >= excess; /* else p* still overflows: it is measured again */
  for (int i = 0; i < changed; i++) {
    int b = s->taken[i];
    if (patch) rk_patch_free(k, b, ri->ev[k->x.cur[b] - 1]);
    dq_touch(&s->dq, b);
  }
  if (changed && !patch) rk_changed(k, first);
  s->patched += changed && patch;
  s->rerun += changed && !patch;
  if (!changed)
    snprintf(msg, cap, "at position %d, %lld bytes over the budget and nothing resident can be "
             "offloaded or recomputed", pstar, (long long)excess);
  return changed;
}

typedef struct sg_sized {
  int64_t size;
  int b;
} sg_sized;

static int larger_first(const void *pa, const void *pb) {
  const sg_sized *a = pa, *b = pb;
  if (a->size != b->size) return a->size > b->size ? -1 : 1;
  return (a->b > b->b) - (a->b < b->b);
}

static int *buffers_by_size(const ri_info *ri) {
  sg_sized *t = mp_xmalloc(sizeof(sg_sized) * (size_t)(ri->nb + 1));
  for (int b = 0; b < ri->nb; b++) t[b] = (sg_sized){ri->size[b], b};
  qsort(t, (size_t)ri->nb, sizeof *t, larger_first);
  int *order = mp_xmalloc(sizeof(int) * (size_t)(ri->nb + 1));
  for (int i = 0; i < ri->nb; i++) order[i] = t[i].b;
  free(t);
  return order;
}

static void sg_init(sg_state *s, const ri_info *ri, mp_ctx *c, double bw) {
  int ne = ri->ev_start[ri->nb];
  *s = (sg_state){.ri = ri, .c = c, .bw = bw};
  s->gap = mp_xcalloc((size_t)ne + 1, 1);
  s->prefetch = mp_xmalloc(sizeof(int) * (size_t)(ne + 1));
  for (int e = 0; e < ne; e++) s->prefetch[e] = -1;
  if (bw > 0) s->copies = mp_xmalloc(sizeof(rt_copy) * (size_t)(ne + 1));
  if (bw > 0) s->by_size = buffers_by_size(ri);
  rk_init(&s->run, ri, bw, bw > 0 ? SG_SNAPSHOTS : SG_SNAPSHOTS_ALONE, c->deadline);
  s->pos_start = s->run.x.pos_start, s->pos_tout = s->run.x.pos_tout;
  s->pos_tin = s->run.x.pos_tin, s->pos_work = s->run.x.pos_work;
  /* the first run snapshots up to its overflow; run_plan then holds
   * them to the furthest overflow seen */
  s->snap_to = 0;
  rk_set_gaps(&s->run, s->gap, s->prefetch);
  if (bw > 0) return;
  dq_init(&s->dq, ri, s->run.x.res, drop_key, s);
  s->seen_to = -1;
  int most = 1;
  for (int v = 0; v < ri->n; v++)
    if (ri_nreads(ri, v) > most) most = ri_nreads(ri, v);
  s->pre_res = mp_xmalloc((size_t)most);
  s->now = mp_xcalloc((size_t)ri->nb + 1, 1);
}

/* The rounds are over: all but the plan (gap, prefetch) goes, before the
 * next run's rounds and the final measurement. */
static void sg_end_rounds(sg_state *s) {
  rk_destroy(&s->run);
  if (s->at_made) rx_destroy(&s->at);
  free(s->copies);
  free(s->by_size);
  if (s->bw > 0) return;
  dq_destroy(&s->dq);
  free(s->pre_res);
  free(s->now);
  free(s->taken);
}

static void sg_destroy(sg_state *s) {
  free(s->gap);
  free(s->prefetch);
}

/* The best plan that fitted so far: its gaps and prefetch positions. */
typedef struct sg_best {
  uint8_t *gap;
  int *prefetch;
  double duration; /* DBL_MAX: none yet */
} sg_best;

static void keep_best(sg_state *s, sg_best *best, double duration) {
  if (duration >= best->duration) return;
  size_t ne = (size_t)s->ri->ev_start[s->ri->nb];
  memcpy(best->gap, s->gap, ne);
  memcpy(best->prefetch, s->prefetch, sizeof(int) * ne);
  best->duration = duration;
}

/* Back to the best plan that fitted (the rounds' run measures it again
 * from the start). */
static void restore_best(sg_state *s, const sg_best *best) {
  size_t ne = (size_t)s->ri->ev_start[s->ri->nb];
  memcpy(s->gap, best->gap, ne);
  memcpy(s->prefetch, best->prefetch, sizeof(int) * ne);
  rk_set_gaps(&s->run, s->gap, s->prefetch);
  rk_changed(&s->run, -1);
}

/* The plan fits: retime its copies in (lib/remat_retime.h) and go on
 * measuring (true), unless the positions have settled or the retimings
 * are spent (false: the best plan that fitted is restored). */
static bool retimed(sg_state *s, sg_best *best, int *left) {
  if (s->bw <= 0) return false;
  keep_best(s, best, s->run.x.duration);
  if (s->c->verbose)
    fprintf(stderr, "swap-greedy: a plan fits, duration %g; retimings left %d\n", s->run.x.duration, *left);
  int first = *left > 0 ? rt_retime(s->ri, s->gap, s->prefetch, s->pos_work, s->bw, s->copies) : s->ri->m;
  if (*left > 0) (*left)--;
  if (first < s->ri->m) {
    rk_set_gaps(&s->run, s->gap, s->prefetch);
    rk_changed(&s->run, first);
    return true;
  }
  if (best->duration < s->run.x.duration) restore_best(s, best);
  return false;
}

/* Measure, free at the first overflow, repeat until the plan fits; with a
 * link, retime the copies in of each plan that fits and go on (overflows
 * the earlier copies cause are freed as any other) a few times, and keep
 * the shortest plan that fitted.  Returns 0 with the plan's duration, or
 * -1 with msg. */
static int greedy(sg_state *s, long max_rounds, double *duration, long *rounds, char *msg, size_t cap) {
  size_t ne = (size_t)s->ri->ev_start[s->ri->nb];
  sg_best best = {.gap = mp_xmalloc(ne + 1), .prefetch = mp_xmalloc(sizeof(int) * (ne + 1)),
                  .duration = DBL_MAX};
  int left = SG_RETIMES, rc = -1;
  for (*rounds = 0; *rounds < max_rounds && !mp_time_up(s->c); (*rounds)++) {
    int pstar;
    bool fast = s->bw <= 0 && s->index > 0;
    if (fast ? run_plan_fast(s, &pstar) : run_plan(s, &pstar)) {
      snprintf(msg, cap, "%s", s->run.x.msg);
      break;
    }
    if (pstar < 0 && retimed(s, &best, &left)) continue;
    if (pstar < 0) {
      *duration = best.duration < s->run.x.duration ? best.duration : s->run.x.duration;
      rc = 0;
      break;
    }
    int64_t excess = s->run.pos_peak[pstar] - s->c->budget;
    bool freed = fast && pstar < s->ri->m ? free_fast(s, pstar, excess, msg, cap)
                                          : free_at_overflow(s, pstar, excess, msg, cap);
    if (!freed) break;
  }
  if (rc && best.duration < DBL_MAX) { /* a retimed plan's overflow ended the rounds */
    restore_best(s, &best);
    *duration = best.duration;
    rc = 0;
  }
  if (rc && !msg[0]) snprintf(msg, cap, "%s", mp_time_up(s->c) ? "time limit" : "rounds exhausted");
  free(best.gap);
  free(best.prefetch);
  return rc;
}

/* With a host link the greedy runs twice, with copies and with
 * recomputation alone, and the shorter plan wins: a slow link must not make
 * the plan worse than not using it. */
static int swap_greedy_solve(mp_ctx *c) {
  int rc = ri_begin(c, "swap-greedy");
  if (rc) return rc > 0 ? 0 : -1;
  ri_info ri;
  ri_init(&ri, c->g, c->start_order);
  double bw = c->bandwidth > 0 ? c->bandwidth : 0;
  sg_state runs[2];
  int ok[2] = {-1, -1};
  double dur[2] = {0, 0};
  long rounds[2] = {0, 0};
  char msg[2][256] = {"", ""};
  for (int k = 0; k < (bw > 0 ? 2 : 1); k++) {
    sg_init(&runs[k], &ri, c, k == 0 ? bw : 0);
    runs[k].index = (int)c->opt[OPT_index];
    ok[k] = greedy(&runs[k], (long)c->opt[OPT_rounds], &dur[k], &rounds[k], msg[k], sizeof msg[k]);
    if (c->verbose)
      fprintf(stderr, "swap-greedy: %s: %s, duration %g, %ld rounds\n",
              k == 0 && bw > 0 ? "with copies" : "recomputing alone", ok[k] == 0 ? "a plan" : "no plan", dur[k],
              rounds[k]);
    if (c->verbose && runs[k].bw <= 0)
      fprintf(stderr, "swap-greedy: %ld rounds patched the run, %ld ran it again\n", runs[k].patched,
              runs[k].rerun);
    sg_end_rounds(&runs[k]);
  }
  int w = ok[0] == 0 && (ok[1] != 0 || dur[0] <= dur[1]) ? 0 : ok[1] == 0 ? 1 : -1;
  rc = -1;
  if (w >= 0) {
    rx_exec x;
    rc = measure(&runs[w], c->events, &x);
    if (rc == 0 && x.peak <= c->budget) {
      ri_claim(c, x.duration);
      snprintf(c->msg, sizeof c->msg, "%ld rounds%s: %lld reruns, %lld copies in", rounds[w],
               bw > 0 && w == 1 ? " (recomputing alone was shorter)" : "", (long long)x.n_reruns,
               (long long)x.n_ins);
    } else {
      rc = -1;
      snprintf(c->msg, sizeof c->msg, "the final plan failed: %.200s", x.msg);
    }
    rx_destroy(&x);
  } else {
    snprintf(c->msg, sizeof c->msg, "no plan within budget %lld: %.200s",
             (long long)c->budget, msg[0]);
    rc = ri_no_plan(c); /* timeout when the limit ended the rounds */
  }
  if (rc) mp_events_clear(c->events);
  for (int k = 0; k < (bw > 0 ? 2 : 1); k++) sg_destroy(&runs[k]);
  ri_destroy(&ri);
  return rc;
}

const mp_solver solver_swap_greedy = {
    .name = "swap-greedy",
    .summary = "Capuchin-style (ASPLOS'20): at each overflow, swap what its idle window hides, "
               "then swap or recompute by bytes saved per overhead",
    .decides = MP_DECIDES_EVENTS,
    .options = MP_OPTIONS(swap_greedy_options),
    .solve = swap_greedy_solve,
};
