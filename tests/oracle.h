/* oracle.h - an independent reference implementation of DESIGN 1.2 and 1.3,
 * written from the text of DESIGN.md alone, for the tests.  It shares no
 * code with src/graph.c, src/lifetime.c or src/plan.c: it reads only the
 * raw node records of a parsed graph (g->n, g->nodes[], g->given) and
 * recomputes storage roots, buffers, readers, graph outputs, in-place
 * edges, lifetimes, the live profile (by brute force over the steps), the
 * bounds, and checks placements pair by pair.  Deliberately simple and
 * quadratic: it is meant for graphs of a few dozen nodes. */
#ifndef MP_ORACLE_H
#define MP_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "util.h"

#define OR_NONE (-1)   /* a tensor with no storage (size 0) */
#define OR_PARAM (-2)  /* a view of a parameter (alias -1) */

typedef struct or_buf {
  int owner;          /* node that makes it */
  int out;            /* output index, or -1 for a workspace */
  bool ws;
  int64_t size;
  bool input;         /* output of an `input` node */
  bool graph_output;
  bool *reader;       /* reader[w]: node w reads it (directly or via a view) */
  bool *alias_set;    /* alias_set[w]: w is its owner or has it as alias root */
  int birth, death;   /* closed interval under the last or_lifetimes order */
} or_buf;

typedef struct or_model {
  int n;
  int nb;
  or_buf *b;
  int *tbase;         /* tensor (v, k) has index tbase[v] + k */
  int *root;          /* per tensor: buffer index, OR_NONE or OR_PARAM */
  bool *data;         /* n*n: data edge u -> v */
  bool *prec;         /* n*n: data or in-place edge u -> v */
  int n_data, n_inplace;
  int64_t lb;         /* max over v of reads + outputs + workspace */
} or_model;

/* Build from g's raw node records (nodes[], given); 0 or -1 (alias cycle). */
int or_build(const mp_graph *g, or_model *m);
void or_destroy(or_model *m);
/* The oracle buffer for (owner, out) / workspace of owner, or -1. */
int or_find(const or_model *m, int owner, int out, bool ws);
/* Lifetimes under order (a permutation of 0..n-1). */
void or_lifetimes(or_model *m, const int *order);
/* M(t) by brute force over the buffers; peak; population std; sum. */
int64_t or_live_at(const or_model *m, int t);
int64_t or_peak(const or_model *m);
double or_std(const or_model *m);
int64_t or_sum(const or_model *m);
/* Bytes live after step t (not counting workspaces of step t): what a
 * scheduler's simulator calls `after`. */
int64_t or_live_after(const or_model *m, int t);
/* Permutation that respects every data and in-place edge? */
bool or_order_ok(const or_model *m, const int *order);
/* A uniformly random choice among ready nodes at each step. */
void or_random_order(const or_model *m, mp_rng *r, int *order);
/* Check offsets (indexed by oracle buffer) under the last lifetimes: each
 * a non-negative multiple of align, no two buffers that are live at a
 * common step share a byte.  NULL when valid, else a static message. */
const char *or_check_offsets(const or_model *m, const int64_t *off, int64_t align);
int64_t or_arena(const or_model *m, const int64_t *off);

#endif
