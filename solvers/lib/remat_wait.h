/* remat_wait.h - the buffers the plan builder (remat_exec.h) keeps until
 * their copy out has ended, arranged so that a step visits only those
 * whose fate may have changed instead of every one of them:
 * - the list, in the order the buffers were added, except that rxw_remove
 *   moves the last one into the place of the one removed (an array with
 *   holes: a buffer keeps its place while the others come and go);
 * - a heap by copy-out end: a buffer is due once its copy has ended;
 * - the buffers touched (their state changed) since their last visit.
 * rxw_visits gives the due and touched ones in list order: the order in
 * which a walk of the whole list would have met them.  A buffer's key
 * (the end of its copy out, out_end[b]) must not change while it is
 * listed, nor while it is in the heap: a buffer is copied out once. */
#ifndef MP_REMAT_WAIT_H
#define MP_REMAT_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/iheap.h"

enum { RXW_HEAP = 1, RXW_TOUCHED = 2, RXW_DUE = 4 };

typedef struct rx_wait {
  int nb;
  int *slot;            /* per buffer: its index in list + 1; 0: not listed */
  int *list, end, n;    /* list[0..end): buffers in order, -1 for holes; n listed */
  int cap;              /* 2 (nb + 1): compacted when full */
  mp_iheap heap;        /* by out_end; each buffer at most once, maybe not listed any more */
  const double *out_end;
  uint8_t *mark;        /* per buffer: RXW_HEAP, RXW_TOUCHED, RXW_DUE (during rxw_visits) */
  int *touched, nt;
  int *due;             /* rxw_visits' answer */
} rx_wait;

/* An empty list for buffers 0 .. nb-1 keyed by out_end (the caller's
 * array, read only when a buffer is added and when the heap moves). */
void rxw_init(rx_wait *w, int nb, const double *out_end);
void rxw_destroy(rx_wait *w);
/* Empty again, in time proportional to what it held. */
void rxw_clear(rx_wait *w);
/* dst (rxw_init'ed for the same nb) holds what src holds, in the same
 * places. */
void rxw_copy(rx_wait *dst, const rx_wait *src);
/* b at the end of the list (when not listed) and in the heap. */
void rxw_add(rx_wait *w, int b);
/* b (listed) off the list; the last buffer of the list takes its place. */
void rxw_remove(rx_wait *w, int b);
/* b's state changed: visit it next time (when it is listed then). */
static inline void rxw_touch(rx_wait *w, int b) {
  if (w->mark[b] & RXW_TOUCHED) return;
  w->mark[b] |= RXW_TOUCHED;
  w->touched[w->nt++] = b;
}
/* Every listed buffer touched (their policy may have changed). */
void rxw_touch_all(rx_wait *w);
/* Nothing to visit at time now: no buffer touched, no copy ended. */
static inline bool rxw_idle(const rx_wait *w, double now) {
  return w->nt == 0 && (w->heap.n == 0 || w->out_end[w->heap.a[0]] > now);
}
/* The listed buffers whose copy out has ended by now or that were
 * touched, into w->due in list order; their count.  Each one is then
 * visited (it keeps its place meanwhile: rxw_add of it adds nothing, and
 * no other buffer may be added or removed) and given to rxw_visited. */
int rxw_visits(rx_wait *w, double now);
/* After b's visit: listed (it stays in its place) or not (a hole). */
void rxw_visited(rx_wait *w, int b, bool listed);
/* The listed buffers in order, into out (room for n); their count. */
int rxw_listed(const rx_wait *w, int *out);

#endif
