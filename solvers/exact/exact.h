/* exact.h - the exact placer's private interface: its options, one
 * independent part of a problem, the failed-subproblem memo, the decision
 * search and the portfolio that drives it.  See exact.c for the method. */
#ifndef MP_EXACT_H
#define MP_EXACT_H

#include "lib/pack.h"
#include "lib/sweep.h"
#include "solver.h"

#define EXACT_OPTIONS(X)                                                                 \
  X(nodes, INT, 5e7, 1, 1e12, "node budget of the whole run (all decision searches)")    \
  X(memo, INT, 1, 0, 1, "remember failed subproblems (1) or not (0)")                    \
  X(memo_log2, INT, 18, 8, 26, "log2 of the failed-subproblem table's slots (8 key words a slot)") \
  X(rank, INT, 0, 0, 4, "rank: 0 total/area/width, 1 width/area/total, 2 area, 3 size, 4 total/width/area (portfolio 1: rotates its lanes)") \
  X(restarts, INT, 1, 0, 1, "portfolio of ranks and value orders with Luby restarts (1)") \
  X(by_offset, INT, 0, 0, 1, "with restarts=0: try candidates lowest offset first (1) or in rank order (0); the portfolios set each lane's") \
  X(thresholds, INT, 0, 0, 1, "per-section threshold inference (1) or the plain one (0; same nodes within 4% on the challenging set, half the time)") \
  X(minfirst, INT, 0, 0, 2, "lowest-offset-first phase: 0 off, 1 in the portfolio, 2 only (incomplete)") \
  X(normal, INT, 1, 0, 1, "with restarts=0: place only items resting on something (gravity normal form); the portfolios set each lane's") \
  X(portfolio, INT, 1, 0, 1, "restart portfolio: 1 round robin of three ranks, doubling limits; 0 all configurations, Luby limits") \
  X(components, INT, 1, 0, 1, "split the unplaced items into independent components on the fly") \
  X(decompose, INT, 1, 0, 1, "solve independent time partitions apart (1) or together (0)") \
  X(reset, INT, 1, 0, 1, "restart the offset order in the parts left when a placement cuts the time line") \
  X(twins, INT, 1, 0, 1, "identical items are placed in input order (symmetry breaking)") \
  X(rerank, INT, 1, 0, 1, "recompute the ranks (with the unplaced bytes as totals) where the time line is cut") \
  X(rawdom, INT, 1, 0, 1, "dominance against the unplaced items' own lowest offsets (1) or raised ones (0)") \
  X(max_mb, REAL, 2048, 1, 1e6, "refuse (status refused) when its parts and searches would take more than this (MiB, estimated before set-up)") \
  X(trace, INT, 0, 0, 1, "print every decision run (part, capacity, lane, nodes, result) to stderr")

enum { EXACT_OPTIONS(MP_OPT_ENUM) EXACT_N_OPTS };

/* The options, read once. */
typedef struct ex_config {
  uint64_t nodes;
  int memo, memo_log2, rank, restarts, by_offset, thresholds, minfirst, normal, portfolio;
  int components, decompose, reset, twins, rerank, rawdom;
  int trace;
} ex_config;

void ex_config_init(ex_config *cf, const mp_ctx *c);

/* ---- one independent part (part.c) ---- */
#define EX_N_RANKS 5

/* Every pinned buffer of the problem, with raw times: an obstacle to every
 * part (built once, shared by all). */
typedef struct ex_pins {
  int np;
  int64_t *off, *sz, *lo, *hi;
} ex_pins;

void ex_pins_init(ex_pins *Q, const mp_problem *p);
void ex_pins_destroy(ex_pins *Q);

/* A part: its geometry (built once by ex_part_init, the owner) and, in a
 * rank copy (ex_part_ranked), the static ranks and twins of one rank mode;
 * a copy shares every other array with its base. */
typedef struct ex_part {
  int n;            /* items to search (the unpinned ones) */
  int *gid;         /* local -> global item index */
  int64_t *size, *al;
  int *s0, *s1;     /* section span [s0, s1) on the virtual time line */
  int64_t spans;    /* sum of s1 - s0: the section entries */
  double *busiest;  /* the "total" rank key (ex_part_totals) */
  int *rank;        /* static order, 0 = first (rank copies) */
  int rank_mode;    /* -1 in the base */
  int *twin;        /* previous identical item (lower rank) or -1 (rank copies) */
  int *by_s0;       /* items sorted by first section */
  int *first;       /* first[s]: index in by_s0 of the first item starting at >= s */
  int *sec_start, *sec_items; /* CSR: items spanning each section (ex_part_sec_lists) */
  int ns;           /* sections */
  int np;           /* pinned obstacles: every pinned buffer of the problem */
  const int64_t *poff, *psz;
  const int64_t *plo, *phi; /* with raw times: the half-open test also catches empty lifetimes */
  int64_t *ilo, *ihi; /* raw times of the items */
  bool owner;       /* the base: frees the shared arrays */
} ex_part;

/* Build the geometry of a part from the items members[0..m) of p with
 * virtual intervals vlo/vhi (pinned members become obstacles, like every
 * pinned item in pins, which must outlive the part). */
void ex_part_init(ex_part *P, const mp_problem *p, const ex_pins *pins, const int *members,
                  const int64_t *vlo, const int64_t *vhi, int m);
/* The "total" rank key of every item (busiest): the most bytes live in
 * any section it spans (items in the busiest sections first); O(spans). */
void ex_part_totals(ex_part *P);
/* The per-section item lists (spans + ns + 1 ints; only the threshold
 * inference reads them; spans must fit in an int). */
void ex_part_sec_lists(ex_part *P);
/* A rank copy of base (which must outlive it, its totals computed): ranks
 * and twins of rank_mode. */
void ex_part_ranked(ex_part *P, const ex_part *base, int rank_mode);
/* twin[i]: the nearest item before i in the order `rank` with the same
 * size, raw lifetime and alignment, or -1 (O(n log n)). */
void ex_part_twins(const ex_part *P, const int *rank, int *twin);
void ex_part_destroy(ex_part *P);
/* Bytes: of a base (its geometry, built), of its section lists, of one rank
 * copy (with its set-up scratch); false when a figure would overflow. */
bool ex_part_bytes(const ex_part *base, int64_t *geometry, int64_t *sec_lists, int64_t *ranked);

/* The lexicographic rank keys of an item (largest first): "total" t = the
 * most bytes live in a section the item spans, width w = its lifetime,
 * area = w x size. */
void ex_rank_key(int mode, double t, double w, double size, int i, double *k3);
/* Sort item indices by their keys (3 per item, largest first), ties by
 * their global index. */
void ex_rank_sort(int *ord, int m, const double *key, const int *gid);

/* ---- the failed-subproblem memo (memo.c) ----
 * A set of full keys (word strings) in an open-addressing table: a lookup
 * compares the whole key, so a hash collision can never make the search
 * skip a subtree that has a solution.  Bounded: when the table or its key
 * pool is full it starts over empty (forgetting is always safe). */
typedef struct ex_slot {
  uint64_t hash, at;    /* key hash, 1 + its pool offset (0: empty) */
} ex_slot;

typedef struct ex_memo {
  uint64_t mask;        /* slots - 1 */
  ex_slot *slot;
  uint64_t *pool;       /* keys: length word, then the key */
  size_t used, cap, cap_max, count;
  uint64_t next_id;     /* ex_memo_intern: ids handed out so far */
} ex_memo;

void ex_memo_init(ex_memo *M, int log2_slots);
void ex_memo_destroy(ex_memo *M);
uint64_t ex_memo_hash(const uint64_t *key, size_t len);
bool ex_memo_has(const ex_memo *M, const uint64_t *key, size_t len, uint64_t h);
void ex_memo_add(ex_memo *M, const uint64_t *key, size_t len, uint64_t h);
/* An id for a key, the same for equal keys while the table keeps them and
 * never handed out twice (a forgotten key gets a fresh one). */
uint64_t ex_memo_intern(ex_memo *M, const uint64_t *key, size_t len);

/* ---- the decision search on one part at one capacity (search.c) ---- */
typedef struct ex_cand {
  int i, r;         /* item, value-order rank */
  int64_t l;        /* its lowest offset */
} ex_cand;

typedef struct ex_search {
  const ex_part *P;
  const mp_ctx *ctx;
  const ex_config *cf;
  int64_t C;
  int64_t *floor, *rem, *off;
  int64_t *lb;      /* lowest offsets of the current node (scratch) */
  ex_cand *cs;      /* candidate stack: each open node's candidates */
  size_t ncs, cap_cs;
  int64_t *lows;    /* per section scratch */
  int64_t *save;    /* floors saved along the path */
  int *cross;       /* per boundary s|s+1: unplaced items spanning both */
  int *trail;       /* placed items in order */
  int nt;
  size_t sp;
  ex_memo memo;     /* failed subproblems */
  ex_memo ranks;    /* rank contexts (the item sets ranks were computed on) */
  uint64_t *key;    /* memo keys of the open nodes, a stack */
  size_t kused, kmax; /* words in use; the longest key */
  size_t kcap;
  uint64_t nodes, budget;
  int aborted;      /* 1 budget, 2 deadline */
  int maxdepth;
  int normal, minfirst, by_offset; /* this run's lane */
  char *wait;
  uint64_t *ubits;  /* unplaced items of the component last inferred */
  int64_t *tbuf;
  int *rank;        /* current rank: static, recomputed where the time line is cut */
  int *noise;       /* value order of this run = rank + noise (0, or seeded on restarts) */
  int *rstack;      /* saved (item, rank) pairs of the re-rankings on the path */
  size_t rsp, rcap;
  double *rkey;
  int *rord;
  uint64_t rctx;    /* id of the rank context (0: the static ranks) */
  struct ex_frame *fr; /* the search's frames (search.c): a stack on the heap */
  size_t nf, cap_fr;
} ex_search;

/* Bytes ex_search_init allocates for part P, the save stack filled by a
 * complete placement and the memo tables full included (the candidate,
 * frame and key stacks grow with the depth beyond that); false on overflow. */
bool ex_search_bytes(const ex_config *cf, const ex_part *P, int64_t *bytes);
void ex_search_init(ex_search *S, const mp_ctx *c, const ex_config *cf, const ex_part *P, int64_t C);
void ex_search_destroy(ex_search *S);
/* One run from the root with a node limit: 1 found (S->off), 0 no
 * placement of the part fits in C, -1 stopped (limit, budget or clock). */
int ex_search_run(ex_search *S, uint64_t limit);

/* Lowest offsets of the unplaced items of sections [sa, sb) at waterline
 * wl, with the inference (infer.c): 0 when no completion exists.  `bits`:
 * also the bitset of those items in S->ubits (for the memo key). */
typedef struct ex_infer {
  int64_t U;        /* dominance: a candidate must start below it */
  int64_t omax;     /* the highest offset the next item may take */
} ex_infer;
int ex_infer_range(ex_search *S, int sa, int sb, int64_t wl, bool bits, ex_infer *out);

/* ---- the portfolio (portfolio.c) ---- */
/* Decide part k (PM[rank mode][k]) at capacity C: 1 fits (offsets written
 * to goff at the global indices), 0 proven infeasible, -1 out of nodes or
 * time.  *nodes_left is charged for the nodes used. */
/* What the lanes of cf use: a bit per static rank mode, and how many
 * searches live at once (each holds its own memo and scratch). */
void ex_lanes_need(const ex_config *cf, unsigned *ranks, int *searches);
int ex_decide_part(const mp_ctx *c, const ex_config *cf, ex_part *const *PM, int k, int64_t C,
                   uint64_t *nodes_left, int64_t *goff);

#endif
