/* rotor.h - the rotor solver's pieces (Beaumont, Eyraud-Dubois, Herrmann,
 * Joly, Shilova, "Optimal checkpointing for heterogeneous chains", 2019;
 * with offload: Beaumont, Eyraud-Dubois, Shilova, "Efficient combination
 * of rematerialization and offloading for training DNNs", NeurIPS 2021):
 * the chain a graph is cut into (chain.c), the dynamic program over it
 * (dp.c), the schedule played on the shared plan builder (play.c) and the
 * driver that searches the program's budget (rotor.c).
 *
 * The chain.  The forward [0, turn) is cut into L stages (articulation
 * points first, then the smallest frontiers).  The *chain buffers* are
 * the forward buffers that may be dropped and rerun (remat_info's RI_DROP,
 * computed with inputs that only the forward reads held: RI_HOLD), and
 * those inputs.  Per stage k, in Beaumont et al.'s terms:
 *   X_k  the frontier after stage k: the chain buffers made up to stage k
 *        (inputs at "stage 0") that a later stage reads; x^k, a[k] bytes.
 *        X_0 is the held inputs.
 *   T_k  the tape: chain buffers made in stage k, not in X_k, that the
 *        backward reads; x-bar^k is X_k + T_k, tb[k] = the bytes of T_k.
 *   group k  the backward positions of stage k: a backward node belongs to
 *        the lowest stage whose tape it reads, where reading X_k counts as
 *        reading stage k + 1 (X_k is that stage's input, which its
 *        backward may read: kin[k + 1]); a running minimum over the
 *        backward, so the groups are contiguous and descending (some may be
 *        empty).  kin[k]: group k reads X_{k-1}; kx[k]: group k reads X_k.
 * Everything else is the background, resident as in the keep-all plan:
 * buffers that may not be dropped (in-place storage, outputs of nodes that
 * cannot run again), the backward's own buffers (gradients), workspaces.
 * Its bytes depend on the time, so each step of the program is checked
 * against budget - background at its own time:
 *   needS[m][k]  the first run of stage k (mode m: 0 keeps X_k only, 1
 *                keeps the tape too): the largest sample at its positions
 *                of background + stage k's own chain buffers alive;
 *   needR[m][k]  a rerun of stage k: its nodes that remake X_k (and T_k)
 *                only, chain buffers alive + workspace;
 *   bgF[t]       the background just before group t (when the reruns of a
 *                sub-chain ending at t run);
 *   gneed[k]     group k: background + T_k (+ X_k when kx) alive up to
 *                its last read in the group; gneedx[k] with X_{k-1} too.
 * Group k's tail begins at its first node that reads X_{k-1} (ts[k]).  The
 * program may run it later, after the caller has brought X_{k-1} back (a
 * layer norm's backward reads the block's input last): the head runs alone
 * (ghead[k], the tail's carry of T_k and X_k held through it), and the
 * tail waits (bgT[k] + carry[k] held meanwhile; gtail[k] when it runs,
 * gtailx[k] with X_{k-1} until its last read).
 * What the chain does not model (a backward node reading another stage's
 * tape, multi-node stages rerun in another order) the builder brings back
 * on demand, so a plan is always valid; the driver measures it.
 * A buffer that crosses several boundaries (a residual stream, DenseNet's
 * concatenations) is in each of their frontiers; since those are an
 * interval, the bytes of the frontiers held together are the sum of their
 * sizes less the overlaps of neighbours (ov), which the program counts.
 * fix[i]: the largest boundary j <= i whose frontier holds no chain buffer
 * (nothing before it is needed to rerun what follows), or -1. */
#ifndef MP_ROTOR_H
#define MP_ROTOR_H

#include "lib/remat_exec.h"

typedef struct rt_chain {
  int L;
  int *start;              /* start[k], k = 1..L+1: first position of stage k; start[L+1] = turn */
  int64_t *a, *tb;         /* k = 0..L */
  int64_t *ov;             /* ov[i * (L + 1) + j], i < j: the bytes X_i and X_j share (a buffer
                              in X_i and X_j is in every frontier between) */
  int64_t *needS[2], *needR[2], *gneed, *gneedx, *bgF;
  double *fr_cost[2];      /* cost of a rerun of stage k (mode 0: X_k, 1: X_k and T_k) */
  double *tape_after[2];   /* the cost of stage k's runs (0: its first run, 1: a rerun in mode 1)
                              after the first that makes a buffer of T_k: what its copy out
                              may overlap */
  double *first_cost;      /* cost of stage k's first run: every node of it, in either mode
                              (the nodes that make only background run then too) */
  double *gcost;           /* cost of group k's nodes */
  double *hcost;           /* cost of group k's head: its nodes before ts[k] */
  bool *kin, *kx;
  int *fix;
  int *x_start, *x;        /* X_k, k = 0..L (CSR) */
  int *t_start, *t;        /* T_k (CSR) */
  int *gstart, *gend;      /* group k: positions [gstart[k], gend[k]) */
  int *r_start[2], *r_pos[2]; /* a rerun of stage k in mode m: the positions it runs (CSR) */
  int *ts;                 /* group k's tail: [ts[k], gend[k]), from its first read of X_{k-1} */
  int *c_start, *c;        /* the tail's carry: what it reads of T_k and X_k (CSR) */
  int64_t *carry, *bgT;    /* carry bytes; the background just before the tail */
  int64_t *ghead, *gtail, *gtailx; /* the head (carry held through), the tail (with X_{k-1}) */
  int cross;               /* backward reads of chain buffers the model does not place */
  int64_t floor;           /* the most that is resident at one position in every plan rotor
                              plays: the background, and what the node reads and makes */
} rt_chain;

/* A chain buffer: a forward buffer that may be dropped (RI_DROP), or an
 * input held as X_0 (RI_HOLD); graph outputs are not (the loss stays). */
bool rt_chain_buf(const ri_info *ri, int b);

/* max_stages >= 1; frontier: 0 articulation points only, 1 also the
 * smallest multi-buffer frontiers. */
void rt_chain_init(rt_chain *ch, const ri_info *ri, int max_stages, int frontier);
void rt_chain_destroy(rt_chain *ch);

/* The schedule: F stage k in mode 0 (keep X_k) or 1 (keep the tape too);
 * release X_k ('r'); group k ('B', with what it releases); offload of what
 * a sub-chain does not need: its copy out ('o'), its free ('f': the free
 * waits for the copy, so the bytes are resident until then, as the
 * program counts them) and its copy back ('i'). */
enum { RT_F = 'F', RT_REL = 'r', RT_GROUP = 'B', RT_TAIL = 't', RT_OUT = 'o', RT_FREE = 'f', RT_IN = 'i' };
/* group flags: releases X_{k-1}, releases X_k, runs the head only */
enum { RT_G_INPUT = 1, RT_G_TOP = 2, RT_G_HEAD = 4 };
enum { RT_OFF_X = 1, RT_OFF_T = 2 };    /* what 'o' / 'i' move: X_k, T_k */
/* An 'o' of T_k with RT_OFF_POLL: each buffer is freed as soon as its copy
 * has ended by the plan's clock (rx_offload), at the latest at its 'f'
 * (the free then waits for the copy). */
enum { RT_OFF_POLL = 4 };
/* dp.c's choice of T_k's offload freed after the next stage's run */
enum { RT_OFF_LATE = 3 };

typedef struct rt_op {
  char op;
  int k;
  int arg; /* F: mode; B: RT_G_*; o/f/i: RT_OFF_* */
  int upto; /* o/f/i of X_k: the sweep's end s2 (what X_k shares with X_{s2-1} stays); else 0 */
} rt_op;

/* The sub-problems of an interval (s, t) of stages, X_{s-1} resident
 * (dp.c): star, the enclosing schedule no longer needs X_{s-1}; top, X_t
 * is resident too; def, group s runs its head only; pend, the tail of
 * group t+1 waits for stage t.  Nine combinations are valid. */
enum { RT_V_STAR = 1, RT_V_TOP = 2, RT_V_DEF = 4, RT_V_PEND = 8, RT_NV = 9 };

/* A sub-problem's row: its values for h in [first, last] at pool + off,
 * infinite elsewhere (first > last: infinite everywhere). */
typedef struct rt_ref {
  size_t off;
  int first, last;
} rt_ref;

/* A table's rows (rows.c): each distinct finite part stored once, found
 * again by its bits, and each sub-problem's reference to its row.  A
 * caller that fills several tables keeps one: its pages are faulted in
 * once, and the next table starts from the last one's rows (dp.c refills
 * only the sub-problems whose inputs or sub-problems changed). */
typedef struct rt_rec rt_rec;
typedef struct rt_rows {
  double *pool;            /* the distinct finite parts, back to back */
  size_t n, cap;
  rt_rec *rec;             /* each stored part, by offset */
  size_t nrec, rcap;
  int32_t *slot;           /* open addressing over rec by hash (-1: empty) */
  size_t nslot;
  rt_ref *ref;             /* [var][cell] of the table they hold (rcap of them) */
  int *key;                /* that table's integer inputs (dp.c), nkey of them */
  size_t nkey;
  double key_bw, key_weight;
  bool valid;              /* ref and key describe a whole table */
  int compactions;         /* how often the rows no ref names were dropped */
} rt_rows;

/* Room for `entries` values in at most `rows` parts (and rows refs). */
void rt_rows_init(rt_rows *r, size_t entries, size_t rows);
void rt_rows_clear(rt_rows *r);
void rt_rows_destroy(rt_rows *r);
/* Is there room for n more values? */
bool rt_rows_room(const rt_rows *r, int n);
/* Where the n values v are stored (stored now unless an identical part
 * is).  When rt_rows_room(r, n) fails, compact first: a part more than
 * the room of rt_rows_init makes the pool grow (no pointer into it may be
 * held), one more part than `rows` is a bug (abort). */
size_t rt_rows_put(rt_rows *r, const double *v, int n);
/* Only the parts that ref names kept, moved together (ref updated). */
void rt_rows_compact(rt_rows *r);

typedef struct rt_dp {
  const rt_chain *ch;
  int L, S;                /* stages, memory slots */
  int64_t slot, budget;    /* bytes per slot */
  double bandwidth;        /* 0: no offload */
  double copy_weight;      /* the time a copied byte costs, in units of 1 / bandwidth */
  int *A, *TB, *G, *GX, *GH, *GT, *GTX; /* sizes in slots (rounded to the nearest) */
  int *OV;                 /* overlaps in slots, like rt_chain.ov */
  int SB;                  /* the budget in slots (rounded down) */
  double *FC[2];           /* prefix sums of fr_cost */
  double *FF;              /* prefix sums of first_cost */
  rt_rows *rows;           /* the values (the choice that attains one is recomputed
                              for the cells a schedule visits: rt_dp_program) */
  bool own_rows;           /* rows is the table's own (not the caller's) */
  rt_ref *ref;             /* [var][cell]: its row */
  double *scratch;         /* a row being filled */
  int32_t **how_cache;     /* [var][cell]: the choices per h, for the cells a schedule
                              visited (NULL until then) */
  int *row;                /* offset of cell (s, s) */
  size_t cells;
} rt_dp;

/* The table's entries (values, 8 bytes each) and rows, at most: the
 * room an rt_rows needs for it. */
size_t rt_dp_entries(int L, int slots);
size_t rt_dp_rows(int L);
/* Fill the table for a budget in bytes with `slots` slots (0, or -1 when
 * the deadline passed first).  bandwidth > 0 adds the offload choices,
 * their copies priced at copy_weight x their time on the link.  rows:
 * rt_rows_init'ed with rt_dp_entries(L, slots) and rt_dp_rows(L), kept by
 * the caller across tables, or NULL.  When rows holds a whole table of the
 * same chain shape, link and weight, only the sub-problems whose integer
 * inputs or sub-problems' rows changed are filled again; otherwise rows is
 * cleared first.  A fill cut by the deadline leaves rows marked invalid. */
int rt_dp_init(rt_dp *d, const rt_chain *ch, int64_t budget, int slots, double bandwidth,
               double copy_weight, double deadline, rt_rows *rows);
void rt_dp_destroy(rt_dp *d);
/* The least time with h more slots held from start to end: the program's
 * answer for the budget minus h slots (INFINITY when no schedule fits), so
 * that one table answers a whole range of budgets. */
double rt_dp_value(const rt_dp *d, int h);
/* Its schedule (when rt_dp_value is finite): ops appended to *ops (grown
 * with *cap); returns how many. */
int rt_dp_program(rt_dp *d, int h, rt_op **ops, int *cap);

/* The plan of a schedule, played on the shared builder (play.c). */
typedef struct rt_result {
  int64_t peak;
  double duration;
  int64_t reruns, ins;
  bool ok;
} rt_result;

/* A player keeps its arrays from one schedule to the next (rx_restart),
 * so that a search does not allocate and fault in the builder's memory
 * again for each. */
typedef struct rt_player rt_player;
rt_player *rt_player_new(const ri_info *ri, const rt_chain *ch);
void rt_player_free(rt_player *p);
/* Play a schedule (out: the plan's events, or NULL to measure only).
 * keep_inputs: the held inputs (X_0) stay to the end, whatever the
 * schedule releases (when something the chain does not model reads from
 * them late). */
rt_result rt_player_play(rt_player *p, const rt_op *ops, int nops, double bandwidth,
                         bool keep_inputs, mp_events *out, double deadline, char *msg, size_t cap);

#endif
