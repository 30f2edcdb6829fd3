/* play.c - a rotor schedule (dp.c) played on the shared plan builder
 * (lib/remat_exec.h): F runs a stage (its first runs the first time, then
 * the reruns that bring back X_k, and T_k in mode 1) and keeps what the
 * schedule keeps (rx_exec.keep); a release lets the builder free it at
 * once, or after its last read in the group being run (the horizon); a
 * group runs its first runs.  Anything the schedule did not foresee (a
 * backward node reading another stage's tape, a buffer the chain does not
 * model) is brought back on demand, so the plan is always valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rotor/rotor.h"

struct rt_player {
  rx_exec x;
  const rt_chain *ch;
  int first_done; /* stages whose first runs are done */
  int *last;      /* per buffer: its last reader in the rerun being played */
  int *carry_of;  /* per buffer: the group whose tail carries it, or 0 */
  int *mark, stamp; /* per buffer: wanted by the rerun being planned */
  bool *runs;     /* per rerun position of the stage: runs now */
};
typedef struct rt_player player;

/* Keep (+1) or release (-1) a list; `spare`: a group whose tail's carry
 * stays kept. */
static void keep_list_but(player *p, const int *start, const int *list, int k, int delta, int spare) {
  for (int i = start[k]; i < start[k + 1]; i++) {
    int b = list[i];
    if (delta > 0) p->x.keep[b] += delta;
    else if (p->x.keep[b] > 0 && !(spare && p->carry_of[b] == spare)) rx_release(&p->x, b);
  }
}

static void keep_list(player *p, const int *start, const int *list, int k, int delta) {
  keep_list_but(p, start, list, k, delta, 0);
}

static int run_to(player *p, int pos) {
  while (p->x.p < pos)
    if (rx_step(&p->x)) return -1;
  return 0;
}

/* Worth making now: absent, and not past its anchor (what rebuilding it
 * reads is still there; the builder's rule: a buffer is dropped only when
 * it is never needed after its anchor). */
static bool wanted(const player *p, int b) {
  const ri_info *ri = p->x.ri;
  return !p->x.res[b] && ((ri->flags[b] & RI_HOLD) || ri->anchor[b] >= p->x.p);
}

/* A rerun of stage k in mode m: the nodes that remake what is wanted of
 * X_k (and T_k) and what they read of the stage (one reverse pass over the
 * stage's rerun positions), then those nodes in position order, each of
 * the stage's buffers they read kept until its last reader here has run
 * (the memory the program counts). */
static int rerun(player *p, int k, int m) {
  const rt_chain *ch = p->ch;
  const ri_info *ri = p->x.ri;
  const int *pos = ch->r_pos[m];
  int lo = ch->r_start[m][k], hi = ch->r_start[m][k + 1], first = ch->start[k];
  p->stamp++;
  for (int i = ch->x_start[k]; i < ch->x_start[k + 1]; i++) p->mark[ch->x[i]] = p->stamp;
  for (int i = ch->t_start[k]; m && i < ch->t_start[k + 1]; i++) p->mark[ch->t[i]] = p->stamp;
  for (int i = hi - 1; i >= lo; i--) {
    int v = ri->seq[pos[i]];
    p->runs[i - lo] = false;
    for (int j = ri->own_start[v]; j < ri->own_start[v + 1]; j++) {
      int b = ri->own[j];
      if (p->mark[b] == p->stamp && rt_chain_buf(ri, b) && wanted(p, b)) p->runs[i - lo] = true;
    }
    if (!p->runs[i - lo]) continue;
    for (int j = 0; j < ri_nreads(ri, v); j++) {
      int r = ri_read(ri, v, j);
      if (rt_chain_buf(ri, r) && ri_prod(ri, r) >= first) p->mark[r] = p->stamp;
      if (rt_chain_buf(ri, r) && ri_prod(ri, r) >= first) {
        if (p->last[r] < 0) p->x.keep[r]++;
        if (p->last[r] < i) p->last[r] = i;
      }
    }
  }
  int rc = 0;
  for (int i = lo; i < hi; i++) {
    if (!p->runs[i - lo]) continue;
    int v = ri->seq[pos[i]];
    for (int j = ri->own_start[v]; rc == 0 && j < ri->own_start[v + 1]; j++) {
      int b = ri->own[j];
      if (rt_chain_buf(ri, b) && !p->x.res[b]) {
        rc = rx_materialize(&p->x, b); /* reruns v: all its outputs */
        break;
      }
    }
    for (int j = 0; j < ri_nreads(ri, v); j++) {
      int r = ri_read(ri, v, j);
      if (rt_chain_buf(ri, r) && ri_prod(ri, r) >= first && p->last[r] == i) {
        p->last[r] = -1;
        rx_release(&p->x, r);
      }
    }
  }
  return rc;
}

/* Bring back what is wanted of a list (what the rerun did not make). */
static int materialize(player *p, const int *start, const int *list, int k) {
  for (int i = start[k]; i < start[k + 1]; i++)
    if (wanted(p, list[i]) && rx_materialize(&p->x, list[i])) return -1;
  return 0;
}

static int forward(player *p, int k, int mode) {
  const rt_chain *ch = p->ch;
  keep_list(p, ch->x_start, ch->x, k, +1);
  if (mode) keep_list(p, ch->t_start, ch->t, k, +1);
  p->x.horizon = ch->start[k + 1];
  if (k > p->first_done) {
    p->first_done = k;
    return run_to(p, ch->start[k + 1]);
  }
  if (rerun(p, k, mode)) return -1;
  if (materialize(p, ch->x_start, ch->x, k)) return -1;
  return mode ? materialize(p, ch->t_start, ch->t, k) : 0;
}

/* Group k (its head only: the tail's carry stays kept for RT_TAIL). */
static int group(player *p, int k, int flags) {
  const rt_chain *ch = p->ch;
  int end = flags & RT_G_HEAD ? ch->ts[k] : ch->gend[k], spare = flags & RT_G_HEAD ? k : 0;
  p->x.horizon = end;
  keep_list_but(p, ch->t_start, ch->t, k, -1, spare);
  if (flags & RT_G_TOP) keep_list_but(p, ch->x_start, ch->x, k, -1, spare);
  if (flags & RT_G_INPUT) keep_list(p, ch->x_start, ch->x, k - 1, -1);
  if (p->first_done < ch->L) p->first_done = ch->L; /* the backward has begun */
  return run_to(p, end);
}

/* The tail of group k, deferred until X_{k-1} came back. */
static int tail(player *p, int k) {
  const rt_chain *ch = p->ch;
  p->x.horizon = ch->gend[k];
  for (int i = ch->c_start[k]; i < ch->c_start[k + 1]; i++)
    if (p->x.keep[ch->c[i]] > 0) rx_release(&p->x, ch->c[i]);
  return run_to(p, ch->gend[k]);
}

/* Offload of what the schedule keeps but a sub-chain does not read: the
 * copy out ('o'), the free ('f': it waits for the copy, DESIGN 6.3, so the
 * buffer is resident until then in the plan's order, as the program counts
 * it; with RT_OFF_POLL the 'o' frees each buffer once its copy has ended
 * by the plan's clock, rx_offload, and the 'f' only what is left), the
 * copy back ('i', rx_fetch).  Of X_k, what X_{upto-1} shares stays (the
 * program keeps it for the sub-chain). */
static bool moved(player *p, rt_op op, int b) {
  const rt_chain *ch = p->ch;
  if (!(p->x.ri->flags[b] & RI_SWAP)) return false;
  if (!(op.arg & RT_OFF_X) || op.upto <= 0) return true;
  for (int i = ch->x_start[op.upto - 1]; i < ch->x_start[op.upto]; i++)
    if (ch->x[i] == b) return false;
  return true;
}

static int copy(player *p, rt_op op) {
  const rt_chain *ch = p->ch;
  bool x = op.arg & RT_OFF_X;
  const int *st = x ? ch->x_start : ch->t_start, *list = x ? ch->x : ch->t;
  for (int i = st[op.k]; i < st[op.k + 1]; i++) {
    int b = list[i];
    if (!moved(p, op, b)) continue;
    if (op.op == RT_OUT && (op.arg & RT_OFF_POLL)) rx_offload(&p->x, b);
    else if (op.op == RT_OUT) rx_copy_out(&p->x, b);
    else if (op.op == RT_FREE) {
      if (p->x.host[b]) rx_free(&p->x, b);
    } else if (rx_fetch(&p->x, b)) {
      return -1;
    }
  }
  return 0;
}

static int play_op(player *p, rt_op op) {
  switch (op.op) {
  case RT_F:
    return forward(p, op.k, op.arg);
  case RT_REL:
    keep_list(p, p->ch->x_start, p->ch->x, op.k, -1);
    return 0;
  case RT_GROUP:
    return group(p, op.k, op.arg);
  case RT_TAIL:
    return tail(p, op.k);
  default:
    return p->x.bandwidth > 0 ? copy(p, op) : 0;
  }
}

rt_player *rt_player_new(const ri_info *ri, const rt_chain *ch) {
  player *p = mp_xcalloc(1, sizeof *p);
  p->ch = ch;
  rx_init(&p->x, ri, NULL, INT64_MAX, 0);
  p->last = mp_xmalloc(sizeof(int) * (size_t)(ri->nb + 1));
  for (int b = 0; b < ri->nb; b++) p->last[b] = -1;
  p->carry_of = mp_xcalloc((size_t)ri->nb + 1, sizeof(int));
  p->mark = mp_xcalloc((size_t)ri->nb + 1, sizeof(int));
  p->runs = mp_xcalloc((size_t)ri->turn + 1, sizeof(bool));
  for (int k = 1; k <= ch->L; k++)
    for (int i = ch->c_start[k]; i < ch->c_start[k + 1]; i++) p->carry_of[ch->c[i]] = k;
  return p;
}

void rt_player_free(rt_player *p) {
  if (!p) return;
  free(p->x.keep);
  p->x.keep = NULL;
  rx_destroy(&p->x);
  free(p->last);
  free(p->carry_of);
  free(p->mark);
  free(p->runs);
  free(p);
}

/* The player as rt_player_new left it, its arrays kept: the builder
 * restarted, nothing kept, no rerun in progress (last is all -1 again
 * after a schedule that ran to its end; a failed one may leave marks). */
static void restart(player *p, mp_events *out, double bandwidth) {
  const ri_info *ri = p->x.ri;
  int *keep = p->x.keep;
  rx_restart(&p->x, out, bandwidth);
  p->x.keep = keep ? keep : mp_xmalloc(sizeof(int) * (size_t)(ri->nb + 1));
  memset(p->x.keep, 0, sizeof(int) * (size_t)(ri->nb + 1));
  for (int b = 0; b < ri->nb; b++) p->last[b] = -1;
  p->first_done = 0;
}

rt_result rt_player_play(rt_player *p, const rt_op *ops, int nops, double bandwidth, bool keep_inputs,
                         mp_events *out, double deadline, char *msg, size_t cap) {
  const ri_info *ri = p->x.ri;
  const rt_chain *ch = p->ch;
  restart(p, out, bandwidth);
  p->x.deadline = deadline;
  keep_list(p, ch->x_start, ch->x, 0, keep_inputs ? +2 : +1);
  int rc = rx_start(&p->x);
  for (int i = 0; rc == 0 && i < nops; i++) rc = play_op(p, ops[i]);
  for (int b = 0; rc == 0 && b < ri->nb; b++) /* nothing is kept past the schedule */
    while (p->x.keep[b] > 0) rx_release(&p->x, b);
  if (rc == 0) rc = rx_finish(&p->x);
  rt_result r = {p->x.peak, p->x.duration, p->x.n_reruns, p->x.n_ins, rc == 0};
  if (rc && msg) snprintf(msg, cap, "%s", p->x.msg);
  return r;
}
