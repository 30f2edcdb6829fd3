/* remat_dropq.h - the buffers a driver of the plan builder may free at the
 * run's position, in its order (the largest key first; ties: the lower
 * id), kept up to date as the run moves on instead of listed again from
 * every resident buffer at each look (swap-greedy's rounds without a
 * link, each of which frees a few buffers at the first overflow).
 *
 * The driver's callback says whether buffer b is a candidate and gives its
 * key, from the run's state: b's own state (residency, next event, gap)
 * and the residency of the buffers b's producer reads (a rerun's cost).
 * The driver tells the index which buffers' own state may have changed
 * (dq_touch: those a step read or made, those whose gap it changed); the
 * index itself touches the outputs of every reader of a buffer whose
 * residency changed since it last looked.  dq_settle calls the callback
 * for the buffers touched since the last settle; the others keep their
 * keys.  A heap holds the keys with a version per buffer: an entry whose
 * buffer was looked at again is dropped when it comes up. */
#ifndef MP_REMAT_DROPQ_H
#define MP_REMAT_DROPQ_H

#include "lib/remat_info.h"

/* Is b a candidate now, and its key (*key; the larger first). */
typedef bool (*dq_key_fn)(void *ctx, int b, double *key);

typedef struct dq_entry {
  double key;
  int b, ver;
} dq_entry;

typedef struct dq_queue {
  const ri_info *ri;
  const uint8_t *res;   /* the run's residency (rx_exec.res), per buffer */
  dq_key_fn key;
  void *ctx;
  int *ver;             /* per buffer: the version of its entry (valid or not) */
  uint8_t *mark;        /* per buffer: DQ_RES (the residency last seen), DQ_WORK */
  int *work, nwork, wcap; /* touched since the last settle; room */
  dq_entry *heap;       /* a max-heap on (key, -b) */
  int n, cap, valid;    /* entries, room, entries whose version holds */
} dq_queue;

void dq_init(dq_queue *q, const ri_info *ri, const uint8_t *res, dq_key_fn key, void *ctx);
void dq_destroy(dq_queue *q);
/* b's own state may have changed: look at it at the next settle. */
void dq_touch(dq_queue *q, int b);
/* Every buffer (the run went back to an older state). */
void dq_touch_all(dq_queue *q);
/* The callback for every buffer touched, and for the outputs of the readers
 * of those whose residency changed. */
void dq_settle(dq_queue *q);
/* The first candidate (its key in *key), removed: it comes back only when
 * touched again.  -1 when none is left.  Call after dq_settle. */
int dq_pop(dq_queue *q, double *key);

#endif
