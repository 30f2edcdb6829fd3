/* memplan.h - the public C API of libmemplan: static memory planning for
 * computation graphs (which order the operators run in, which tensors to
 * recompute or offload within a memory budget, and at which offset of one
 * arena each buffer lives).
 *
 * The one header a program needs.  Link with `pkg-config --cflags --libs
 * memplan`.  Conventions (igraph's):
 *   - every fallible call returns a memplan_err (MEMPLAN_OK is 0) and, when
 *     the caller passes a memplan_error, a message naming the file, the node
 *     or the solver;
 *   - objects come in pairs: what memplan_X_load/create/solve makes,
 *     memplan_X_destroy frees (NULL is allowed);
 *   - pointers a result hands out stay valid until it is destroyed; a result
 *     refers to its instance, which must outlive it;
 *   - a pointer argument is required (not NULL) unless its comment allows
 *     NULL; err may always be NULL.  Fallible calls refuse (MEMPLAN_EUSAGE)
 *     a NULL path, options struct or request, a negative count, and an
 *     array of strings that is missing or holds NULL; an instance, result,
 *     experiment or matrix handle and an out pointer are not checked;
 *   - out of memory is no error code: when an allocation fails (or its size
 *     overflows), the library prints "memplan: out of memory (N bytes)" on
 *     stderr and calls exit(3), which ends the program that embeds it
 *     (atexit handlers run; nothing is returned to the caller);
 *   - threads: calls on different objects may run on different threads at
 *     once (the library serialises its own calls into igraph, which is
 *     built without thread safety: a program that calls igraph itself must
 *     not do so while a memplan call runs); one object is used by one thread
 *     at a time (an instance with its results: memplan_solve caches the
 *     baseline in the instance; it computes the baseline on a thread of
 *     its own beside the solvers unless memplan_request.threads is 1, and a
 *     solver may use that many threads of its own); two
 *     calls writing the same output file at once are not supported;
 *     memplan_bench_run handles SIGINT and SIGTERM for the whole process,
 *     so one runs at a time.
 * The semantics of every figure and status are those of memplan's README
 * ("Semantics decisions") and DESIGN.md.
 *
 *   memplan_instance *in;
 *   memplan_result *res;
 *   memplan_request req;
 *   memplan_request_init(&req);
 *   req.order = argv[2];   // a solver or a chain of them, e.g. greedy,sa
 *   req.place = argv[3];   // memplan_solver_get() lists the names
 *   // optional: recompute / offload within 80% of the order's live peak
 *   // req.remat = argv[4]; req.budget_frac = "0.8";
 *   if (memplan_instance_load(&in, "model.json", NULL, &err) == MEMPLAN_OK &&
 *       memplan_solve(in, &req, &res, &err) == MEMPLAN_OK) {
 *     memplan_figures f;
 *     memplan_result_figures(res, &f);   // f.arena, f.live_peak, ...
 *   }
 */
#ifndef MEMPLAN_H
#define MEMPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: recomputation and offload (memplan_request.remat, the figures and
 * events of an event plan); fields were appended to memplan_request,
 * memplan_figures and memplan_stage_info.
 * 3: option structs carry a version (set by their _init); synthetic graphs
 * and writing graphs; experiments, results files and tables; pictures;
 * exact number parsing; the release.
 * 4: memplan_gen_opts.backward (training-shaped synthetic graphs).
 * 5: memplan_bench_graph_bound takes the baseline's time allowance and
 * prints the graph's baseline after its bound.
 * 6: memplan_option_info.integer (integer options refuse fractions).
 * 7: memplan_request.threads (the baseline beside the solvers).
 * 8: memplan_set_prefault.
 * 9: memplan_set_huge_pages. */
#define MEMPLAN_API_VERSION 9

/* The release (CITATION.cff says the same); memplan_commit() names the
 * build's git commit. */
#define MEMPLAN_VERSION "0.9.0"

/* Option structs (memplan_load_opts, memplan_request, memplan_gen_opts,
 * memplan_bench_opts, memplan_table_opts, memplan_plot_opts) begin with
 * `version`: their _init sets MEMPLAN_API_VERSION, and every call refuses
 * (MEMPLAN_EUSAGE) a struct with another version, one the caller did not
 * initialise or built against another header.  Initialise, then set the
 * fields that matter. */

/* The limits every reader and option enforces, so that no figure can wrap
 * around: a buffer at most 2^56 bytes, the sizes of one problem at most
 * 2^60 in sum (so also a capacity), an alignment at most 2^30. */
#define MEMPLAN_MAX_SIZE ((int64_t)1 << 56)
#define MEMPLAN_MAX_TOTAL ((int64_t)1 << 60)
#define MEMPLAN_MAX_ALIGN ((int64_t)1 << 30)
/* The most cells `memplan bench` runs in parallel (memplan_bench_opts.jobs). */
#define MEMPLAN_MAX_JOBS 1024

typedef enum memplan_err {
  MEMPLAN_OK = 0,
  MEMPLAN_EINPUT,  /* bad input: a file or a value that cannot be used */
  MEMPLAN_EUSAGE,  /* bad request: unknown solver or option, wrong kind of solver */
  MEMPLAN_ESOLVER, /* a solver failed or refused, or no plan meets the request */
  MEMPLAN_EIO      /* an output could not be written */
} memplan_err;

typedef struct memplan_error {
  char msg[512];
} memplan_error;

/* What a result claims.  optimal and infeasible come only with a bound the
 * harness checked itself; refused: a solver declined under its documented
 * size cap; fixed is the order status of a plan whose order was not
 * searched (the file order, or a fixed-lifetime problem). */
typedef enum memplan_status {
  MEMPLAN_OPTIMAL = 0,
  MEMPLAN_FEASIBLE,
  MEMPLAN_INFEASIBLE,
  MEMPLAN_TIMEOUT,
  MEMPLAN_ERROR,
  MEMPLAN_REFUSED,
  MEMPLAN_FIXED
} memplan_status;

int memplan_api_version(void);
const char *memplan_err_name(memplan_err e);
const char *memplan_status_name(memplan_status s);
/* The git commit the library was built from, recorded when it was built
 * (`git describe --always` of the source tree, "-dirty" when a file outside
 * results/ differed from it; "unknown" when built without git or outside a
 * git work tree).  Where the program runs from plays no part. */
const char *memplan_commit(void);
/* From now on every block of at least min_bytes the library allocates
 * (not one it grows) is backed with memory at once, by one
 * madvise(MADV_POPULATE_WRITE) call instead of a page fault per page
 * (ignored by kernels before Linux 5.14); 0, the default, leaves page
 * faults to back it.  Cheaper where faults are dear (virtual machines);
 * a block's unused pages then count in the process's memory too.  Call it
 * before any other call, from one thread: the `memplan` program sets 1 MiB
 * (MEMPLAN_PREFAULT=0 in its environment keeps it off). */
void memplan_set_prefault(size_t min_bytes);
/* Whether the blocks memplan_set_prefault backs are put on transparent huge
 * pages first (madvise(MADV_HUGEPAGE) on every whole 2 MiB page of the
 * block; off by default, ignored by kernels without them).  Fewer and
 * cheaper first touches and page-table walks for big arrays; a host that
 * backs huge pages slowly can make it cost instead.  Call it like
 * memplan_set_prefault: the `memplan` program turns it on
 * (MEMPLAN_HUGE_PAGES=0 in its environment keeps it off). */
void memplan_set_huge_pages(bool on);

/* Numbers as the library reads them (files, solver options): the whole
 * text, no blanks, no wrap-around or clamping, no NaN or infinity.
 * MEMPLAN_EUSAGE with *why a short reason ("not an integer", "out of
 * range", "not a finite number"). */
memplan_err memplan_parse_int64(const char *text, int64_t *out, const char **why);
memplan_err memplan_parse_real(const char *text, double *out, const char **why);
/* A number as memplan prints it: integers (|x| < 2^53) without a fraction
 * or an exponent, others with the shortest digits that read back. */
void memplan_format_number(double x, char *out, size_t cap);

/* ---- solvers: the registry ---- */

/* EVENTS: a recomputation/offload solver (an event plan within a budget) */
enum {
  MEMPLAN_DECIDES_ORDER = 1,
  MEMPLAN_DECIDES_OFFSETS = 2,
  MEMPLAN_DECIDES_BOTH = 3,
  MEMPLAN_DECIDES_EVENTS = 4
};

typedef struct memplan_solver_info {
  const char *name;
  const char *summary;
  int decides;    /* MEMPLAN_DECIDES_* */
  int n_options;
} memplan_solver_info;

typedef struct memplan_option_info {
  const char *name;
  double def, lo, hi;
  const char *help;
  int integer; /* 1: integers only (a value with a fraction is refused) */
} memplan_option_info;

int memplan_solver_count(void);
/* Solver i (0 .. count-1); MEMPLAN_EUSAGE when out of range. */
memplan_err memplan_solver_get(int i, memplan_solver_info *out);
/* The index of a solver by name, or -1. */
int memplan_solver_index(const char *name);
/* Option k of solver i. */
memplan_err memplan_solver_option(int i, int k, memplan_option_info *out);

/* ---- instances: a graph, or a fixed-lifetime problem ---- */

typedef struct memplan_instance memplan_instance;

typedef struct memplan_load_opts {
  int version;           /* MEMPLAN_API_VERSION (memplan_load_opts_init) */
  bool toposort;         /* sort a non-topological file order instead of failing */
  const char *format;    /* NULL (by extension), "json", "graphml", "nodelink", "csv" */
  const char *size_attr; /* node-link / GraphML attribute with output bytes (NULL: found by name) */
  const char *cost_attr; /* node-link / GraphML attribute with node times (NULL: found by name) */
} memplan_load_opts;

/* Defaults: the format found from the file, attributes found by name. */
void memplan_load_opts_init(memplan_load_opts *o);

/* Load a graph (JSON, GraphML, node-link) or a MiniMalloc CSV.  opts may
 * be NULL (the defaults).  MEMPLAN_EINPUT with a message naming the file and the node or
 * line; MEMPLAN_EUSAGE for a format that is none of the above (as the CLI's
 * --input-format). */
memplan_err memplan_instance_load(memplan_instance **out, const char *path,
                                  const memplan_load_opts *opts, memplan_error *err);
/* A fixed-lifetime problem from arrays: buffer i has size[i] bytes and is
 * live over [lo[i], hi[i]); align may be NULL (1), pinned may be NULL (or
 * -1 for a free buffer, else its fixed offset). */
memplan_err memplan_instance_from_lifetimes(memplan_instance **out, int n, const int64_t *size,
                                            const int64_t *lo, const int64_t *hi,
                                            const int64_t *align, const int64_t *pinned,
                                            memplan_error *err);
void memplan_instance_destroy(memplan_instance *in);

typedef struct memplan_instance_info {
  const char *name;
  bool is_graph;
  int nodes, buffers;
  /* graphs only */
  int data_edges, inputs, graph_outputs, views, inplace_nodes, workspaces;
  int64_t inplace_edges; /* literal pairs of DESIGN 1.2: may exceed INT_MAX */
  int64_t param_bytes;
  /* fixed-lifetime problems only: the time range */
  int64_t time_begin, time_end;
  /* given order (or the fixed lifetimes) */
  int64_t sum_sizes, live_peak;
  int64_t lower_bound; /* on the live peak of every order (graphs), max-live (fixed) */
} memplan_instance_info;

memplan_err memplan_instance_info_get(const memplan_instance *in, memplan_instance_info *out);
/* A graph (true), or a fixed-lifetime problem; at once, unlike _info_get,
 * which computes the figures of the given order. */
bool memplan_instance_is_graph(const memplan_instance *in);

/* ---- synthetic graphs and writing graphs ---- */

/* A generator family and its parameters (`memplan gen --help` says what
 * each family draws; graphs/README.md the size distributions).  Fields left
 * at their "unset" value (n = 0, p < 0, layers = 0) take the family's
 * default. */
typedef struct memplan_gen_opts {
  int version;           /* MEMPLAN_API_VERSION (memplan_gen_opts_init) */
  const char *family;    /* randwire nas layered tree sp chain */
  uint64_t seed;
  const char *name;      /* the graph's name (NULL: from the parameters) */
  int n;                 /* randwire: RandWire nodes; layered, tree, sp, chain: nodes */
  const char *model;     /* randwire: ws er ba (NULL: ws) */
  int k;                 /* WS: neighbours */
  double p;              /* WS rewiring / ER edge probability (< 0: the model's) */
  int m;                 /* BA: edges per new node */
  int channels, resolution, batch, dtype_bytes; /* randwire and nas tensor sizes */
  int cells, blocks;     /* nas */
  int layers;            /* layered (0: round(sqrt(n - 2))) */
  int fan_in;            /* layered: max in-degree; tree: max children */
  int span;              /* layered: earlier layers a node reads */
  double input_prob;     /* tree: a leaf is a graph input */
  double par_prob;       /* sp: a parallel split */
  int64_t min_size, max_size; /* log-uniform output bytes of the structural families */
  double ws_prob;        /* a compute node has a workspace */
  double inplace_prob;   /* an eligible node writes in place */
  bool backward;         /* append a training step's backward pass (4) */
} memplan_gen_opts;

/* The defaults of every family (seed 1); sets version. */
void memplan_gen_opts_init(memplan_gen_opts *o);
/* Is `family` a generator family? */
bool memplan_gen_family_known(const char *family);
/* Does `family` read the `memplan gen` option `flag` ("-n", "--cells")?
 * For randwire, -k, -p and -m depend on `model` (NULL: ws).  The options
 * every family reads (--seed, --out, ...) count. */
bool memplan_gen_takes(const char *family, const char *model, const char *flag);
/* The options `family` (with `model`) reads, "-n, --layers, ...", into out
 * (cap bytes; out NULL or cap 0: nothing written); "" for an unknown
 * family. */
void memplan_gen_flags(const char *family, const char *model, char *out, size_t cap);
/* A synthetic graph, the same for the same options (a file written from it
 * is byte-identical).  MEMPLAN_EUSAGE for an unknown family or parameters
 * the family cannot use (randwire: over 4,000,000 expected edges, `gen
 * --help`), with a message; also, with igraph's message, when igraph's
 * generator fails (out of memory). */
memplan_err memplan_gen(memplan_instance **out, const memplan_gen_opts *o, memplan_error *err);

/* Write a graph instance to path, atomically (NULL or "-": stdout):
 * format "json" (DESIGN 1.1; a generated graph records how to make it
 * again) or "nodelink" (networkx node-link JSON).  Reading the file back
 * gives the same figures.  MEMPLAN_EUSAGE for another format or a
 * fixed-lifetime problem; MEMPLAN_EIO when the file cannot be written
 * (nothing is left behind). */
memplan_err memplan_instance_write(const memplan_instance *in, const char *path,
                                   const char *format, memplan_error *err);

/* ---- planning ---- */

typedef struct memplan_request {
  int version;           /* MEMPLAN_API_VERSION (memplan_request_init) */
  /* Chains "a,b": each stage starts from the chain's last result; a stage
   * that returns none (a size cap, no plan) hands that one on, and a chain
   * fails only when none of its stages returned one. */
  const char *order;     /* order solver chain "a,b" (NULL: the file order) */
  const char *place;     /* placer chain (NULL: the default placer) */
  int64_t align;         /* offset alignment (0: 64 for graphs, 1 for CSV) */
  double time_limit;     /* seconds for the whole chain (<= 0: none) */
  uint64_t seed;
  int64_t capacity;      /* fit in this many bytes (0: minimise the arena) */
  int n_sets;            /* option overrides "name=value" / "solver.name=value" */
  const char *const *sets;
  bool no_baseline;      /* skip the given-order baseline (reduction_vs_given absent) */
  const char *write_lp;  /* ILP solvers: write the model here (NULL: no) */
  int verbose;
  /* Recomputation and offload (DESIGN 6): a chain of MEMPLAN_DECIDES_EVENTS
   * solvers run between the order and the placement (NULL: none).  The
   * order chain fixes the order of first runs, the remat chain turns it
   * into an event plan within the budget, the placer places its
   * residencies.  Exactly one budget: `budget` bytes (has_budget), or
   * budget_frac, the decimal text of a fraction of the live peak of the
   * order handed to the chain ("0.9": computed exactly, rounded up).
   * has_bandwidth: `bandwidth` bytes per cost unit replaces the graph's
   * host_bandwidth (0: no offload). */
  const char *remat;
  bool has_budget;
  int64_t budget;
  const char *budget_frac;
  bool has_bandwidth;
  double bandwidth;
  /* The threads a solve may use.  0 (the default: 2) or 2 or more: the
   * baseline of reduction_vs_given (a second plan of the given order) is
   * computed on a thread of its own beside the solvers, when the solve
   * needs it and no clock cuts it (no time_limit, no solver option that is
   * a time limit of its own: what a limit cuts must not depend on a thread
   * beside it), and a stage no clock cuts may use this many threads
   * (the one-pass greedy placers bysize, bysize-ff and byconflicts pack on
   * them; the baseline's own packing uses one); 1: everything on the caller's thread, the baseline after the
   * stages.  The plan, figures, statuses and messages are the same either
   * way; a stage's cpu_ms is the CPU time of its thread and of the threads
   * its solver started. */
  int threads;
} memplan_request;

/* Defaults: seed 1, everything else 0 / NULL (no recomputation); sets
 * version.  memplan_solve refuses (MEMPLAN_EUSAGE) the values the CLI's
 * options refuse: align outside [0, 2^30], capacity outside [0, 2^60], a
 * NaN time_limit, negative threads. */
void memplan_request_init(memplan_request *req);

typedef struct memplan_result memplan_result;

/* Run the request on the instance (which caches the baseline of
 * reduction_vs_given, computed once per alignment).
 *   MEMPLAN_OK: *out holds a verified plan, or a checked proof that none
 *     fits the capacity (status infeasible, no figures);
 *   MEMPLAN_ESOLVER: *out says what failed (status error, refused or timeout);
 *   MEMPLAN_EUSAGE: unknown solver or option; *out is NULL.
 * A result that is set must be destroyed. */
memplan_err memplan_solve(memplan_instance *in, const memplan_request *req, memplan_result **out,
                          memplan_error *err);
void memplan_result_destroy(memplan_result *r);

memplan_status memplan_result_status(const memplan_result *r);       /* the whole plan */
memplan_status memplan_result_order_status(const memplan_result *r); /* fixed: not searched */
memplan_status memplan_result_place_status(const memplan_result *r); /* for the final order */
/* The event plan: optimal only when its duration meets a bound the
 * harness checked; MEMPLAN_FIXED when the request had no remat chain (the
 * plan of the order as it is). */
memplan_status memplan_result_remat_status(const memplan_result *r);
const char *memplan_result_message(const memplan_result *r);         /* "" when none */

typedef struct memplan_figures {
  bool has_figures;    /* false: no plan; only lower_bound is set */
  /* lower_bound: on the live peak of every plan the command could choose:
   * the order's own live peak when it was not searched (DESIGN 1.3), the
   * best scheduling bound when it was, max-live for fixed lifetimes */
  bool has_baseline;   /* given_arena and reduction_vs_given are set */
  int64_t live_peak, arena, sum_sizes, lower_bound, given_arena;
  double fragmentation, reuse_ratio, profile_std, reduction_vs_given, reduction_vs_noreuse;
  double order_ms, place_ms, order_cpu_ms, place_cpu_ms; /* solver calls alone */
  /* With a remat chain (has_remat): live_peak is the event plan's largest
   * memory sample, arena the placement of its residencies (`residencies`
   * of them), lower_bound the floor no plan goes under.  has_budget: the
   * chain was reached and budget, bandwidth and base_time are set; with
   * has_figures the figures of DESIGN 6.3 are set too (overhead is NAN
   * when base_time is 0 on a graph with nodes; 0 with no nodes). */
  bool has_remat, has_budget;
  int64_t budget;
  double bandwidth, base_time;
  int residencies;
  double duration, overhead, recompute_time, stall_time;
  int64_t recomputed, transferred;
  double remat_ms, remat_cpu_ms; /* included in nothing above: plan time is
                                    order_ms + remat_ms + place_ms */
  /* with has_figures and a remat chain: reruns that read a storage written
   * in place since (DESIGN 6.2 allows them; a runtime would read changed
   * data): see mp_events_stale_reruns in events.h */
  int64_t stale_reruns;
} memplan_figures;

void memplan_result_figures(const memplan_result *r, memplan_figures *out);

/* The plan: the order (node ids in run order; NULL and 0 for a
 * fixed-lifetime problem; with a remat chain, the order handed to it) and
 * one offset per buffer (per residency with a remat chain; NULL and 0
 * without a plan).  Each returns the array's length. */
int memplan_result_order(const memplan_result *r, const int **order);
int memplan_result_offsets(const memplan_result *r, const int64_t **offsets);

typedef struct memplan_buffer {
  char key[64];        /* "J", "J:K", "ws:J" (DESIGN 1.5), or the CSV id; a
                          residency made again by event k: "J@k" */
  int64_t size;
  int64_t lo, hi;      /* live over [lo, hi): steps of the order, CSV times,
                          or memory samples of an event plan */
  int64_t offset;      /* -1 without a plan */
} memplan_buffer;

/* Buffer b (0 .. number of offsets - 1) of the result's lifetimes. */
memplan_err memplan_result_buffer(const memplan_result *r, int b, memplan_buffer *out);

/* ---- event plans (DESIGN 6.2) ---- */

typedef enum memplan_event_kind {
  MEMPLAN_EV_RUN = 0, /* run a node */
  MEMPLAN_EV_FREE,    /* a buffer stops being resident */
  MEMPLAN_EV_OUT,     /* copy a resident buffer to the host */
  MEMPLAN_EV_IN       /* copy it back */
} memplan_event_kind;

typedef struct memplan_event {
  memplan_event_kind kind;
  int node;            /* run: the node; else the node whose output it is */
  int output;          /* free, out, in: which output of `node`; run: -1 */
  char key[64];        /* free, out, in: the buffer ("J" or "J:K"); run: "" */
} memplan_event;

/* Events of the result's plan: 0 without a remat chain or without a plan. */
int memplan_result_event_count(const memplan_result *r);
memplan_err memplan_result_event(const memplan_result *r, int i, memplan_event *out);

typedef struct memplan_stage_info {
  const char *solver;
  memplan_status status;  /* what the solver claimed */
  double wall_ms, cpu_ms;
  int64_t bound;          /* the bound it reported (0: none) */
  const char *message;
  int decides;            /* MEMPLAN_DECIDES_* of the solver */
  double duration_bound;  /* a remat stage's bound on the duration (0: none) */
} memplan_stage_info;

int memplan_result_stage_count(const memplan_result *r);
memplan_err memplan_result_stage(const memplan_result *r, int i, memplan_stage_info *out);

/* Print the figures as "text" or "json" (the names of DESIGN 1.3). */
memplan_err memplan_result_print(const memplan_result *r, FILE *out, const char *format);
/* Write the plan file (DESIGN 1.5 JSON, or the CSV with offsets) to path,
 * atomically (NULL or "-": stdout).  MEMPLAN_EUSAGE when the result has no
 * plan. */
memplan_err memplan_result_write_plan(const memplan_result *r, const char *path, memplan_error *err);

/* ---- verification: the judge, which shares no code with the solvers ---- */

/* Re-check a plan file: the order is a topological permutation, offsets
 * aligned, no two live buffers overlap, every stated figure recomputes.
 * align > 0 overrides the plan's (0: the plan's; outside [0, 2^30]:
 * MEMPLAN_EUSAGE).  MEMPLAN_EINPUT naming the first violation. */
memplan_err memplan_verify_file(const memplan_instance *in, const char *plan_path, int64_t align,
                                memplan_error *err);
/* The same for a plan in memory: order (a graph: exactly `nodes` entries;
 * a fixed-lifetime problem: NULL, an order is MEMPLAN_EUSAGE) and exactly
 * one offset per buffer (memplan_instance_info; the arrays carry no length,
 * shorter ones are read past their end), at alignment align (0: the
 * default; outside [0, 2^30]: MEMPLAN_EUSAGE).  NULL offsets (a result
 * without a plan) are MEMPLAN_EUSAGE. */
memplan_err memplan_verify_plan(const memplan_instance *in, const int *order,
                                const int64_t *offsets, int64_t align, memplan_error *err);
/* An event plan in memory (kind, node and output of each event; keys are
 * ignored): the rules of DESIGN 6.2 with `bandwidth` (< 0: the graph's
 * host_bandwidth; NaN or infinite: MEMPLAN_EUSAGE), the live peak within
 * `budget` (< 0: none) and, unless offsets is NULL, one offset per
 * residency (memplan_result_buffer's order) at alignment align (0: 64;
 * outside [0, 2^30]: MEMPLAN_EUSAGE).  MEMPLAN_EINPUT naming the first
 * violation: event index, node or buffer, rule. */
memplan_err memplan_verify_events(const memplan_instance *in, int n, const memplan_event *events,
                                  double bandwidth, int64_t budget, const int64_t *offsets,
                                  int64_t align, memplan_error *err);

/* ---- experiments: a matrix of cells run in child processes into a
 * results file (scripts/experiments/README.md) ---- */

typedef struct memplan_experiment memplan_experiment;

/* Read an experiment file (JSON; paths in it are relative to its folder),
 * or with path NULL the defaults (what an empty file means).
 * MEMPLAN_EINPUT with a message naming the file. */
memplan_err memplan_experiment_load(memplan_experiment **out, const char *path,
                                    memplan_error *err);
void memplan_experiment_destroy(memplan_experiment *e);
const char *memplan_experiment_name(const memplan_experiment *e);

/* Change one setting, named as `memplan bench`'s option without its dashes,
 * value as its text.  Lists (graphs, budgets, bandwidth, seeds, time-limit)
 * are comma separated and replace the experiment's; a chain (order, place,
 * remat) is one value: add false replaces the experiment's chains by it,
 * add true appends it; set ("[SOLVER.]OPT=V") replaces the experiment's
 * value of that option; shard ("i/N", 0 <= i < N) keeps the cells k of the
 * sorted matrix with k mod N = i, so the shards partition it; the others
 * (manifest, mem-limit, grace, repeat, capacity, align) are one value.
 * MEMPLAN_EUSAGE with a message for an unknown setting, a value that
 * cannot be read exactly, or a chain that solve would refuse (an unknown
 * solver, one of the wrong kind, too many; "all" and remat "none" pass). */
memplan_err memplan_experiment_set(memplan_experiment *e, const char *setting, const char *value,
                                   bool add, memplan_error *err);

typedef struct memplan_matrix memplan_matrix;

/* The cells of an experiment (of its shard), sorted by key.
 * MEMPLAN_EUSAGE: a solver option it sets is unknown or out of range;
 * MEMPLAN_EINPUT: an unknown solver, a tag that selects nothing, a missing
 * file. */
memplan_err memplan_matrix_build(memplan_matrix **out, const memplan_experiment *e,
                                 memplan_error *err);
void memplan_matrix_destroy(memplan_matrix *m);

typedef struct memplan_matrix_info {
  int cells;             /* of this shard */
  int total;             /* of every shard */
  int skipped;           /* pairs the rules left out (an order solver on a CSV, ...) */
  int shard, shards;     /* shard i of N (0 of 1 without --shard) */
} memplan_matrix_info;

void memplan_matrix_info_get(const memplan_matrix *m, memplan_matrix_info *out);

typedef struct memplan_cell {
  const char *path;      /* the graph as named by the manifest or the user */
  const char *order, *place;
  uint64_t seed;
  double time_limit;     /* seconds (0: none) */
  const char *options;   /* the option overrides that apply, "" when none */
  const char *remat;     /* events chain, "" without a recomputation stage */
  const char *budget;    /* "0.8x" or bytes ("" without remat) */
  const char *bandwidth; /* "" : the graph's */
} memplan_cell;

/* Cell i (0 .. cells-1); its strings live as long as the matrix. */
memplan_err memplan_matrix_cell(const memplan_matrix *m, int i, memplan_cell *out);

typedef struct memplan_bench_opts {
  int version;           /* MEMPLAN_API_VERSION (memplan_bench_opts_init) */
  int jobs;              /* cells in parallel (1; 1 .. MEMPLAN_MAX_JOBS) */
  const char *results;   /* the results file (SQLite) */
  const char *memplan;   /* the program run for each cell (NULL: this one) */
  bool retry_failed;     /* rerun cells whose row says error or timeout */
  bool progress;         /* a progress line on stderr, redrawn (a terminal) */
  double log_every_s;    /* else a progress line every this many seconds (0: none) */
  bool quiet;            /* no per-failure lines */
  bool shared_fs;        /* several hosts share the file: rollback journal, not WAL */
} memplan_bench_opts;

void memplan_bench_opts_init(memplan_bench_opts *o);

typedef struct memplan_bench_stats {
  int total, done_before, stale, run, ok, failed, timeouts, refused;
  int taken;             /* cells another bench process had claimed, left to it */
  int handled;           /* cells whose row another process wrote after this one started */
  int bounds;            /* graph bounds computed */
  int interrupted;       /* the signal that stopped the run, or 0 */
  bool started;          /* the run began (the results file opened) */
  double wall_s;
} memplan_bench_stats;

/* Run the cells of m not yet in the results file (resumable; several
 * processes may share the file).  MEMPLAN_EINPUT with a message when the
 * run could not finish; *st says how far it went. */
memplan_err memplan_bench_run(const memplan_experiment *e, const memplan_matrix *m,
                              const memplan_bench_opts *o, memplan_bench_stats *st,
                              memplan_error *err);
/* What a bench child does for each graph: print its independent lower
 * bound (min-cut for a graph, max-live for a fixed-lifetime file) as one
 * JSON line, then the baseline of reduction_vs_given at the default
 * alignment (given_arena, given_align; or given_message when
 * baseline_limit_s, > 0, cut it or it failed) as another.  MEMPLAN_EINPUT:
 * the graph cannot be read; MEMPLAN_EIO: out cannot be written;
 * MEMPLAN_EUSAGE: a NULL path or out, a NaN baseline_limit_s. */
memplan_err memplan_bench_graph_bound(const char *path, double baseline_limit_s, FILE *out,
                                      memplan_error *err);

/* ---- results files ---- */

/* Add the rows (and graph bounds) of every input to out, created if needed:
 * idempotent, inputs checked first, all or nothing.  Per graph one bound
 * and baseline: of the graph version the rows ran on, with a baseline
 * rather than a cut one, by this build's solvers, else the first met.  Per
 * cell one row: an input's replaces out's when it supersedes it by bench's
 * rerun rule (this build's solvers over stale ones, an answer over a
 * failure, more repeats over fewer, else the later run).  A new out is put
 * in place only if still absent.  *added: rows written, new or superseding
 * (added may be NULL).  MEMPLAN_EUSAGE: out NULL, n_in negative, in missing
 * or holding NULL; MEMPLAN_EINPUT: an input that cannot be read, or out
 * that cannot be written. */
memplan_err memplan_results_merge(const char *out, const char *const *in, int n_in, int *added,
                                  memplan_error *err);
/* Every row as CSV, sorted by cell key, to path (NULL or "-": stdout),
 * atomically. */
memplan_err memplan_results_export(const char *results, const char *path, memplan_error *err);

typedef struct memplan_table_opts {
  int version;           /* MEMPLAN_API_VERSION (memplan_table_opts_init) */
  const char *format;    /* md (NULL), latex, csv */
  const char *view;      /* graphs, suite, both (NULL), pivot, remat, remat-summary */
  const char *metric;    /* pivot cells: peak, arena (NULL), time, status, wall, frag */
  const char *graph;     /* only this graph (name or path; NULL: all) */
  bool best_of_seeds;    /* over seeds the best run (else the lower-median run) */
  bool graph_bound_only; /* gaps against each graph's independent bound alone */
  bool common;           /* only instances every listed solver planned */
  const char *const *solvers;   /* only these labels, in this order */
  int n_solvers;
  const char *const *baselines; /* win/tie/loss against (the best of) these */
  int n_baselines;
  double within;         /* pivot summary: gap threshold, a fraction (0: 1%) */
  double max_overhead;   /* recomputation: overhead threshold, a fraction (0: 20%) */
  bool brief;            /* no explanatory notes */
} memplan_table_opts;

void memplan_table_opts_init(memplan_table_opts *o);
/* Tables from results files (SQLite, or the CSV of memplan_results_export),
 * written atomically to path (NULL or "-": stdout).  MEMPLAN_EUSAGE: a bad
 * option (nothing written); MEMPLAN_EINPUT: an unreadable file, or results
 * that contradict a bound (the tables are written and list them; the
 * message names the first). */
memplan_err memplan_table_write(const char *const *results, int n, const memplan_table_opts *o,
                                const char *path, memplan_error *err);

/* ---- pictures (SVG, PNG or PDF, by the file's extension) ---- */

typedef struct memplan_plot_opts {
  int version;           /* MEMPLAN_API_VERSION (memplan_plot_opts_init) */
  const char *const *outs; /* the same picture in each of these files */
  int n_outs;
  /* profile and placement: how the graph is planned (order, place, seed,
   * time_limit, align, sets of the request) */
  memplan_request request;
  const char *const *orders; /* profile: one curve per order chain */
  int n_orders;
  const char *const *plans;  /* profile: plan files with events; placement: at most one plan */
  int n_plans;
  /* pareto and overhead: from results files */
  const char *graph;     /* pareto: the graph (required); overhead: one graph (NULL: all) */
  bool best_of_seeds;    /* the best run over seeds (else the median) */
  double max_overhead;   /* overhead: the threshold line, a fraction (0: 20%) */
} memplan_plot_opts;

void memplan_plot_opts_init(memplan_plot_opts *o);
/* Draw a picture into every file of o->outs, each written atomically:
 *   "profile"   inputs: one graph; live memory over the steps of each order
 *               (none and no plans: the default order solver), the graph's
 *               lower bound; with plans, over the memory samples of the
 *               event plans, the first split by origin;
 *   "placement" inputs: one graph or CSV; a rectangle per buffer of the
 *               plan file, or of the request's plan;
 *   "pareto"    inputs: results files; arena against planning time on
 *               o->graph, the Pareto front marked;
 *   "overhead"  inputs: results files; recomputation overhead against the
 *               budget, one curve per solver.
 * MEMPLAN_EUSAGE: an unknown kind, or inputs or options it cannot use;
 * MEMPLAN_EINPUT: a file it cannot read, a request a run refused
 * (profile: a remat chain without a budget), or nothing to draw (no file
 * is left); MEMPLAN_EIO: an output it cannot create or put in place (none
 * is changed).  fontconfig (behind cairo's text) keeps a few allocations for
 * the life of the process: LeakSanitizer reports them at exit
 * (LSAN_OPTIONS suppressions: leak:libfontconfig; the CLI suppresses them). */
memplan_err memplan_plot(const char *kind, const char *const *inputs, int n_inputs,
                         const memplan_plot_opts *o, memplan_error *err);

#ifdef __cplusplus
}
#endif

#endif
