/* remat_retime.h - where the copies in of a plan's swapped gaps
 * (remat_exec.h: gap[e] == RX_SWAP, prefetch[e]) are issued, given the
 * times of the plan as last measured: as late as lets each copy end before
 * its reader starts, on a stream from the host that takes its copies in
 * plan order (DESIGN 6.3).  Late keeps memory low (a copy in counts from
 * its issue); a copy queued behind another must start earlier than its
 * own length says, which the swap-greedy rounds, placing each copy alone,
 * do not see.
 *
 * The copies are placed from the last need to the first: each must end
 * by its reader's start and by the latest start of the copy needed after
 * it, so that no copy waits behind one needed later; its position is the
 * latest whose run starts by then (its issue time: the run before it has
 * ended), not before the gap's first position (where a copy whose gap
 * begins after the position of a copy needed later goes behind that one
 * on the stream: the order by need holds for the others).  The builder issues the
 * copies of a position in the order of their need, which keeps that
 * order.  Times move once stalls go, so a driver measures again and
 * retimes until the positions settle. */
#ifndef MP_REMAT_RETIME_H
#define MP_REMAT_RETIME_H

#include "lib/remat_info.h"

typedef struct rt_copy {
  int e, b;        /* the gap: buffer b's event e to its next */
  int lo, q;       /* its positions: the first after the event, the reader */
  double len;      /* size / bandwidth */
} rt_copy;

/* New prefetch positions for every swapped gap whose reader is a step
 * (gaps to the end keep theirs), from pos_start (m entries: when each
 * position's first run started).  copies: scratch of ri->ev_start[nb]
 * entries.  Returns the first step the changes reach (rk_first_step), m
 * when none changed. */
int rt_retime(const ri_info *ri, const uint8_t *gap, int *prefetch, const double *pos_start,
              double bandwidth, rt_copy *copies);

#endif
