/* graph.h - the DAG model of DESIGN 1.1/1.2: nodes, tensors, buffers, alias
 * roots, readers and the in-place ordering edges.  Everything a solver knows
 * about a graph comes from here; nothing here knows any solver. */
#ifndef MP_GRAPH_H
#define MP_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include "bump.h"
#include "util.h"

/* A tensor reference: output `out` of node `node`; out == MP_ALL_OUTPUTS
 * means "every output of node" (the plain `j` form of the file). */
#define MP_ALL_OUTPUTS (-1)
/* alias.node == MP_PARAM_ALIAS: the node views a parameter (alias: -1). */
#define MP_PARAM_ALIAS (-1)

typedef struct mp_ref {
  int node;
  int out;
} mp_ref;

typedef struct mp_node {
  /* (pointers and 8-byte fields first: 80 bytes a node instead of 104,
   * a graph of 10^6 nodes 24 MB less to fault in) */
  char *name;
  char *op;
  int64_t *out_size;  /* bytes of each output tensor */
  mp_ref *in;         /* inputs as written in the file */
  int64_t workspace;
  /* DESIGN 6.1: the time the node takes, in the file's unit.  A reader
   * that finds no cost leaves has_cost false and mp_graph_finish sets the
   * default: 1, or 0 for input and output nodes and for views. */
  double cost;
  mp_ref alias;       /* valid when has_alias; alias.node may be MP_PARAM_ALIAS */
  int id;
  int n_out;          /* number of output tensors */
  int n_in;
  int phase;          /* MP_PHASE_*: fwd, bwd or opt (key `phase`) */
  bool has_alias;
  bool inplace;
  bool is_input;      /* op == "input" */
  bool is_output;     /* op == "output" */
  bool has_cost;
} mp_node;

/* Training phase of a node (key `phase`); MP_PHASE_NONE when absent. */
enum mp_phase { MP_PHASE_NONE = 0, MP_PHASE_FWD, MP_PHASE_BWD, MP_PHASE_OPT };
/* "fwd", "bwd", "opt" (NULL for MP_PHASE_NONE); parse returns -1 if unknown. */
const char *mp_phase_name(int phase);
int mp_phase_parse(const char *s);

/* Kinds of buffer: an output tensor that owns storage, or a workspace. */
enum mp_buf_kind { MP_BUF_TENSOR = 0, MP_BUF_WORKSPACE = 1 };

typedef struct mp_buffer {
  int owner;          /* node id that produces it */
  int out;            /* output index (tensor) or -1 (workspace) */
  enum mp_buf_kind kind;
  int64_t size;
  bool born_at_start; /* output of an `input` node: born at step 0 */
  bool graph_output;  /* lives to the last step */
  int n_readers;      /* distinct nodes that read it, directly or via a view */
  int *readers;       /* sorted node ids */
} mp_buffer;

typedef struct mp_graph {
  char *name;
  char *file;         /* path it was read from (for messages) */
  int n;              /* nodes, ids 0..n-1 */
  mp_node *nodes;     /* indexed by id */
  int *given;         /* file order: given[i] = id of the i-th node */
  int n_buf;
  mp_buffer *bufs;    /* tensor buffers first (in given order), then workspaces */
  /* tensor root: root_of[v][k] = buffer id of output k of v, or
   * MP_NO_BUFFER (size 0 / no storage) or MP_PARAM_BUFFER (views a param). */
  int **root_of;
  int *ws_buf;        /* workspace buffer of v, or -1 */
  /* per node: distinct buffers it reads (sorted), and buffers it owns */
  int *n_reads;
  int **reads;
  /* precedence: data edges plus in-place edges, deduplicated */
  int *n_succ;
  int **succ;
  int *n_pred;
  int **pred;
  int n_data_edges;     /* distinct data edges j -> w */
  int64_t n_inplace_edges; /* edges added by in-place writes (not data edges), counted
                              literally (DESIGN 1.2), not those kept in succ/pred */
  int64_t param_bytes;
  double host_bandwidth; /* DESIGN 6.1: bytes per cost unit on the host link (0: none given) */
  /* What the per-node and per-buffer pointers point into: the nodes'
   * names, ops, sizes and inputs, and each kind of list (succ, pred,
   * reads, root_of, readers) in one block.  Freed by mp_graph_destroy. */
  mp_bump mem;
} mp_graph;

#define MP_NO_BUFFER (-1)
#define MP_PARAM_BUFFER (-2)


/* Build the derived structures (buffers, readers, edges) from nodes.
 * `toposort`: if the file order is not topological, replace it by a
 * topological order instead of failing. Returns 0, or -1 with err set. */
int mp_graph_finish(mp_graph *g, bool toposort, mp_error *err);
void mp_graph_destroy(mp_graph *g);
/* The storage a view v (a node with `alias`) views, following views with
 * `outputs: []` too: a buffer id, MP_PARAM_BUFFER, or MP_NO_BUFFER (v is
 * no view, or the storage has no bytes).  After mp_graph_finish. */
int mp_view_storage(const mp_graph *g, int v);

/* Readers.  Each returns a new graph or NULL with a message naming the file
 * and the node or line.  A graph JSON path holding node-link data (a
 * "links" array) is read as node-link.  size_attr / cost_attr (NULL: found
 * by name, see io_nodelink.c) name the node attributes with output bytes and
 * with the node's time (DESIGN 6.1). */
mp_graph *mp_graph_read_json(const char *path, bool toposort, mp_error *err);
mp_graph *mp_graph_read_graphml(const char *path, const char *size_attr, const char *cost_attr,
                                bool toposort, mp_error *err);
mp_graph *mp_graph_read_nodelink(const char *path, const char *size_attr, const char *cost_attr,
                                 bool toposort, mp_error *err);

/* Writing graphs back out: graph_write.h. */

/* Is `order` (length n) a permutation that respects every precedence edge?
 * Returns -1 if valid, else the position of the first offending entry, with
 * a message in err. */
int mp_order_check(const mp_graph *g, const int *order, mp_error *err);

/* The buffer key of DESIGN 1.5: "J", "J:K" or "ws:J". */
void mp_buffer_key(const mp_graph *g, int b, char *out, size_t cap);


#endif
