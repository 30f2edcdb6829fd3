/* gen.h - synthetic benchmark graphs (`memplan gen`), deterministic for a
 * seed.  Every family builds an operator-level graph of DESIGN 1.1 and
 * validates it with mp_graph_finish; the size distributions are documented
 * in gen.c and graphs/README.md.
 *
 *   randwire  RandWire random wiring (Xie et al., ICCV 2019): WS/ER graph
 *             from igraph, BA graph as the paper defines it (gen.c), edges
 *             lower -> higher index, one input node and one output node;
 *             each RandWire node is expanded to
 *             [weighted_sum] -> relu -> depthwise 3x3 -> pointwise 1x1 -> bn.
 *   nas       NASNet/DARTS-style cells: two cell inputs, B blocks of two ops
 *             summed, final concat of the unused block outputs; stackable.
 *   layered   random layered DAG (Moccasin-style), forward edges only.
 *   tree      in-tree: every non-root node has exactly one successor.
 *   sp        random series-parallel composition.
 *   chain     a chain of operators.
 * Any family with `backward`: the forward as above, a scalar loss, one
 * gradient node per forward operator reading the saved activations (gen.c).
 */
#ifndef MP_GEN_H
#define MP_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* randwire's cap on the expected edge count of its WS/ER/BA graph (and on
 * the expected draws of WS's rewiring): beyond it igraph runs out of memory
 * or for minutes, and the file (about 7 bytes per edge, 3 references per
 * edge with --backward) gets unwieldy.  Refused up front (gen.c); `gen
 * --help` (cmd_gen.c) and graphs/README.md state the figure. */
#define MP_GEN_MAX_RW_EDGES 4000000

typedef struct mp_gen_opts {
  const char *family;   /* randwire nas layered tree sp chain */
  uint64_t seed;
  const char *name;     /* graph name; NULL: derived from the parameters */
  int n;                /* randwire: RandWire nodes; layered/tree/sp/chain: total nodes */
  /* randwire */
  const char *model;    /* ws er ba */
  int k;                /* WS: neighbours (even) */
  double p;             /* WS rewiring / ER edge probability; < 0: model default */
  int m;                /* BA: edges per new node */
  /* tensor-shaped families (randwire, nas) */
  int channels, resolution, batch, dtype_bytes;
  /* nas */
  int cells, blocks;
  /* layered */
  int layers;           /* 0: round(sqrt(nodes - 2)) */
  int fan_in;           /* layered: max drawn in-degree; tree: max children */
  int span;             /* layered: how many earlier layers a node may read */
  /* tree */
  double input_prob;    /* probability that a leaf is a graph input */
  /* sp */
  double par_prob;      /* probability of a parallel (vs series) split */
  /* sizes of the structural families (log-uniform bytes) */
  int64_t min_size, max_size;
  double ws_prob;       /* probability that a compute node has a workspace */
  double inplace_prob;  /* probability that an eligible node is in-place */
  bool backward;        /* append a training step's backward pass (gen.c) */
} mp_gen_opts;

/* Fill defaults (family-independent; family-specific ones are resolved by
 * mp_gen when a field is left at its "unset" value: n = 0, p < 0). */
void mp_gen_defaults(mp_gen_opts *o);

/* Is `family` one of the generator families?  (gen_family.c) */
bool mp_gen_family_known(const char *family);

/* Does `family` take the `memplan gen` option `flag` ("-n", "--cells"; the
 * options every family takes included)?  For randwire, -k, -p and -m belong
 * to some graph models only: `model` (NULL: ws) decides.  An option the
 * family does not read would leave the graph unchanged, so `gen` refuses it. */
bool mp_gen_takes(const char *family, const char *model, const char *flag);

/* The options `family` (with randwire's `model`) takes, as "-n, --layers,
 * ...", into out (cap bytes); "" for an unknown family. */
void mp_gen_flags(const char *family, const char *model, char *out, size_t cap);

/* Generate.  Returns a finished graph (derived structures built) or NULL
 * with err set.  Unless `source` is NULL, *source receives (malloc'ed, the
 * caller frees it; NULL on failure) the canonical command line that
 * regenerates the graph, for the file's "source" field: a shell command,
 * the name quoted when it needs to be. */
mp_graph *mp_gen(const mp_gen_opts *o, char **source, mp_error *err);

#endif
