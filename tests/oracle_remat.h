/* oracle_remat.h - an independent reference implementation of DESIGN 6.2
 * and 6.3 (plans with recomputation and offload), written from the text of
 * DESIGN.md and the decisions listed in src/events.h, for the tests.  It
 * shares no code with src/events*.c: it reads the raw node records of a
 * parsed graph and the buffers, readers, alias sets and precedence matrix
 * of tests/oracle.c (itself independent of src/), and recomputes validity
 * with the first violation, the memory samples, the time of every event by
 * backward scans over the plan, the figures and the residencies.
 * Deliberately simple and quadratic: for graphs of a few dozen nodes. */
#ifndef MP_ORACLE_REMAT_H
#define MP_ORACLE_REMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "oracle.h"

enum { OX_RUN = 0, OX_FREE, OX_OUT, OX_IN };

/* An event: run `node`, or free/out/in output `out` of `node` (out == -1
 * names the workspace of node, which no event may name). */
typedef struct ox_event {
  int kind;
  int node;
  int out;
} ox_event;

/* A residency: buffer (owner, out; out -1 a workspace), size, sample times
 * [lo, hi). */
typedef struct ox_res {
  int owner, out;
  int64_t size, lo, hi;
} ox_res;

typedef struct ox_result {
  bool valid;
  int bad_event;     /* first violation: event index, or n for the end */
  const char *rule;  /* its rule, in the words of mp_ev_rule_name */
  int bad_node;      /* the node concerned, or -1 */
  int bad_owner, bad_out; /* the buffer concerned (owner -1: none) */
  /* the rest only when valid */
  int n_samples;
  int64_t *samples;
  int64_t peak;
  double *issue, *start, *end; /* per event */
  double duration, base_time, overhead, recompute_time, stall_time;
  int64_t recomputed, transferred;
  int n_res;
  ox_res *res;
} ox_result;

/* Check and evaluate; bandwidth in bytes per cost unit (0: no host link). */
void ox_check(const mp_graph *g, const or_model *m, const ox_event *ev, int n, double bandwidth,
              ox_result *r);
void ox_result_destroy(ox_result *r);

/* Cost of node v as DESIGN 6.1 defines it from the raw record. */
double ox_cost(const mp_graph *g, int v);

#endif
