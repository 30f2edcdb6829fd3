/* events.h - plans with recomputation and offload (DESIGN 6): a sequence of
 * run / free / out / in events, the verifier that names the first violation,
 * the evaluator (memory in plan order, the time simulation of one compute
 * stream and two copy streams, the figures) and the residencies as a
 * fixed-lifetime problem that every placer places.  Model code: it knows no
 * solver and no harness.
 *
 * Files: events.c (the plan, the plan of an order, bounds, budgets),
 * events_verify.c, events_eval.c (memory, time, figures), events_problem.c
 * (residencies), io_events.c (the plan JSON's "events" array).
 *
 * Decisions where DESIGN 6 leaves room (the README's semantics list):
 * - The start is a memory sample: every input buffer is resident before the
 *   first event.
 * - Events name tensor buffers by their id in g->bufs; a workspace is never
 *   named (it lives during its run only), an input node never runs.
 * - A view is a name for its root's storage: a node that reads a view needs
 *   the root resident, and a recomputed root needs no view to run again.
 * - A host copy, once made, lasts to the end of the plan, whatever happens
 *   to the device copy (a recomputation makes the same bytes).  `out` of a
 *   buffer that already has one is allowed (and refreshes it).
 * - Bandwidth 0 means no host link: every `out` and `in` is invalid.
 * - Time: the first event is issued at 0 and buffers resident at the start
 *   are ready at 0.  An `in J` waits for the latest earlier `out J`.  A
 *   `free J` is issued at the issue floor, takes no time and then raises
 *   the floor to the end of every earlier run that reads J (directly or
 *   through its alias set) and of every earlier `out J`.
 * - base_time counts every node once, inputs included when the file gives
 *   them a cost; overhead is NAN (absent) when base_time is 0.
 * - Residency times count memory samples: time 0 is the start, the k-th
 *   run or in is time k; a residency made at time k lives over [k, f + 1)
 *   where f is the time of the last sample before its free (to the end:
 *   [k, A + 1) with A the number of runs and ins); a workspace over
 *   [k, k + 1).  The live profile of that problem is the sequence of
 *   samples. */
#ifndef MP_EVENTS_H
#define MP_EVENTS_H

#include "lifetime.h"

/* ---- the plan ---- */

typedef enum mp_event_kind { MP_EV_RUN = 0, MP_EV_FREE, MP_EV_OUT, MP_EV_IN } mp_event_kind;

typedef struct mp_event {
  mp_event_kind kind;
  int id; /* run: a node id; free, out, in: a tensor buffer id (g->bufs) */
} mp_event;

typedef struct mp_events {
  int n, cap;
  mp_event *ev;
} mp_events;

void mp_events_init(mp_events *p);
void mp_events_destroy(mp_events *p);
void mp_events_clear(mp_events *p); /* n = 0, storage kept */
void mp_events_push(mp_events *p, mp_event_kind kind, int id);
void mp_events_copy(mp_events *dst, const mp_events *src); /* dst initialised */
const char *mp_event_kind_name(mp_event_kind k);           /* "run" "free" "out" "in" */
int mp_event_kind_parse(const char *s, mp_event_kind *out); /* 0, or -1 */

/* "run 5 (conv1)" / "free 3:1": an event as messages name it. */
void mp_event_label(const mp_graph *g, mp_event e, char *out, size_t cap);

/* The plan of DESIGN 6.2's equivalence rule: every non-input node of
 * `order` (a topological order of all n nodes) runs once, in that order,
 * and right after the run at step t every buffer that dies at t (its last
 * reader, or its birth for a dead value) is freed, in buffer-id order
 * (inputs dying at step 0 before the first run when order[0] is an input).
 * Graph outputs stay resident.  Its live_peak is mp_order_peak(order), its
 * duration the sum of the costs of the non-input nodes. */
void mp_events_from_order(const mp_graph *g, const int *order, mp_events *out);

/* The first-run order as a full order of the n nodes: the inputs first (in
 * the given order), then every other node in the order of its first run.
 * Returns 0, or -1 when some node never runs (order is then partial). */
int mp_events_first_order(const mp_graph *g, const mp_events *p, int *order);

/* Do the first runs of the non-input nodes follow `order` (their relative
 * order in `order`)?  The scope of a solver's optimality claim. */
bool mp_events_follow(const mp_graph *g, const mp_events *p, const int *order);

/* ---- bounds and budgets ---- */

/* Is the start a memory sample?  Only when the graph has an input node:
 * section 1 then has an input step (the input buffers, DESIGN 6.2's
 * equivalence rule); without inputs it has none, and a 0-byte start sample
 * would move profile_std away from section 1's. */
bool mp_events_start_sampled(const mp_graph *g);

/* Bytes resident while v runs in any plan: the distinct buffers v reads,
 * the buffers v owns, its workspace; 0 for an input (it never runs). */
int64_t mp_node_need(const mp_graph *g, int v);
/* A floor on the live_peak of every valid plan: the largest of the sum of
 * the input buffers (the start sample), the sum of the graph-output buffers
 * (resident together at the end) and the largest mp_node_need.  A budget
 * below it is infeasible, and this is the proof. */
int64_t mp_events_floor(const mp_graph *g);
/* Sum of every node's cost, each node once (DESIGN 6.1 base_time). */
double mp_base_time(const mp_graph *g);
/* A lower bound on the duration of every valid plan: the costs of the
 * non-input nodes (each runs at least once on the one compute stream). */
double mp_events_duration_floor(const mp_graph *g);

/* `--budget-frac F`: ceil(F x peak) bytes, computed exactly from the
 * decimal text of F (digits, an optional fraction, an optional exponent:
 * "0.9", ".85", "9e-1"; 0 < F <= 1000, at most 18 significant digits).
 * 0.9 x 146840 is 132156, not the 132157 a double product gives.
 * Returns 0, or -1 with a message. */
int mp_budget_frac(const char *text, int64_t peak, int64_t *budget, mp_error *err);

/* ---- the verifier ---- */

/* The rules of DESIGN 6.2.  At one event the verifier checks, and reports
 * the first that fails:
 *   run v   BAD_ID, INPUT_RUNS, FIRST_ORDER (first run) or INPLACE_RERUN
 *           (a rerun), READ_ABSENT (buffers in id order), ALREADY;
 *   free J  BAD_ID, NOT_RESIDENT, INPLACE_FREE;
 *   out J   BAD_ID, NO_LINK, INPLACE_OUT, NOT_RESIDENT;
 *   in J    BAD_ID, NO_LINK, NO_HOST_COPY, ALREADY;
 *   the end NOT_RUN (lowest node id), OUTPUT_ABSENT (lowest buffer id). */
typedef enum mp_ev_rule {
  MP_EVR_OK = 0,
  MP_EVR_BAD_ID,         /* a node or buffer id out of range, or a workspace named */
  MP_EVR_INPUT_RUNS,     /* an input node never runs */
  MP_EVR_NO_LINK,        /* out or in with bandwidth 0 */
  MP_EVR_FIRST_ORDER,    /* a first run before a predecessor's first run */
  MP_EVR_INPLACE_RERUN,  /* a node of an in-place storage's alias set runs again */
  MP_EVR_INPLACE_OUT,    /* an in-place storage is offloaded */
  MP_EVR_READ_ABSENT,    /* a run reads a buffer that is not resident */
  MP_EVR_ALREADY,        /* a buffer made resident while resident */
  MP_EVR_NOT_RESIDENT,   /* free or out of a buffer that is not resident */
  MP_EVR_INPLACE_FREE,   /* an in-place storage freed before a reader ran */
  MP_EVR_NO_HOST_COPY,   /* in without a host copy */
  MP_EVR_NOT_RUN,        /* at the end: a non-input node never ran */
  MP_EVR_OUTPUT_ABSENT,  /* at the end: a graph output is not resident */
  MP_EVR_N
} mp_ev_rule;

const char *mp_ev_rule_name(mp_ev_rule r); /* a short phrase: "reads resident" */

typedef struct mp_ev_violation {
  int event;       /* event index, or p->n for a rule checked at the end */
  mp_ev_rule rule;
  int node;        /* the node concerned, or -1 */
  int buf;         /* the buffer concerned, or -1 */
} mp_ev_violation;

/* Check every rule of DESIGN 6.2.  bandwidth: bytes per cost unit (0: no
 * host link).  Returns 0, or -1 with the first violation in v (may be NULL)
 * and err (may be NULL): "event 7 (free 3:1): buffer 3:1 is not resident
 * (free and out need it resident)". */
int mp_events_verify(const mp_graph *g, const mp_events *p, double bandwidth,
                     mp_ev_violation *v, mp_error *err);

/* ---- the evaluator (a verified plan) ---- */

typedef struct mp_ev_figures {
  int64_t live_peak;     /* largest memory sample */
  double duration;       /* when the last event ends */
  double base_time;      /* every node's cost, once */
  double overhead;       /* duration / base_time - 1; 0 for a graph with no nodes,
                            NAN when base_time is 0 otherwise */
  double recompute_time; /* the cost of every run after a node's first */
  int64_t recomputed;    /* how many such runs */
  double stall_time;     /* duration - the cost of all runs */
  int64_t transferred;   /* bytes copied, both directions */
  int64_t stale_reruns;  /* reruns that read a storage whose in-place writes since
                            differ from the node's place in the given order
                            (mp_events_stale_reruns) */
  int64_t budget;        /* the budget the plan was made for (carried) */
  int64_t n_samples;     /* runs + ins, + 1 for the start when sampled */
  int n_runs, n_outs, n_ins;
} mp_ev_figures;

/* Memory in plan order (DESIGN 6.3).  samples (may be NULL) receives the
 * n_samples samples (the start's first when sampled).  Returns live_peak. */
int64_t mp_events_memory(const mp_graph *g, const mp_events *p, int64_t *samples);

/* When each event is issued, starts and ends. */
typedef struct mp_ev_time {
  double issue, start, end;
} mp_ev_time;

/* The time simulation of DESIGN 6.3.  t (may be NULL) receives p->n
 * entries.  Returns the duration.  bandwidth must be > 0 when the plan
 * copies. */
double mp_events_simulate(const mp_graph *g, const mp_events *p, double bandwidth, mp_ev_time *t);

/* How many runs after a node's first read a storage written in place at a
 * point other than the node's own: v reads storage b, and the number of b's
 * in-place writers that have run differs from the number of them before v in
 * the given order (DESIGN 1.2's edges make them equal at every first run).
 * Such a rerun reads data changed since (a `clone` rerun after the `relu_`
 * that overwrote its source).  DESIGN 6.2 does not forbid it, so the
 * verifier accepts such plans; this figure says how many reruns a plan
 * needs that a runtime could not replay.  A pure view reads no data. */
int64_t mp_events_stale_reruns(const mp_graph *g, const mp_events *p);

/* Every figure of DESIGN 6.3 (the figures of 1.3 come from placing the
 * residencies: mp_events_problem, then mp_evaluate). */
void mp_events_evaluate(const mp_graph *g, const mp_events *p, double bandwidth, int64_t budget,
                        mp_ev_figures *f);

/* ---- residencies: the placement problem ---- */

/* How a residency began (for pictures: recomputed and offloaded ones). */
typedef enum mp_res_origin {
  MP_RES_START = 0, /* an input buffer, resident at the start */
  MP_RES_RUN,       /* the first run of its node */
  MP_RES_RERUN,     /* a later run: a recomputation */
  MP_RES_IN         /* brought back from its host copy */
} mp_res_origin;

typedef struct mp_residency {
  int buf;    /* g->bufs id (a tensor or a workspace) */
  int made;   /* event that made it resident; -1: resident at the start */
  int freed;  /* event that freed it; -1: resident at the end (a
                 workspace: its run, made == freed) */
  mp_res_origin origin;
} mp_residency;

/* The residencies of a verified plan as a fixed-lifetime problem on sample
 * times (see the header comment): one item per residency, sorted by buffer
 * id and then time, so the plan of mp_events_from_order has item b = buffer
 * b.  Items are aligned to `align`; prob->g is NULL and prob->ids name each
 * residency ("J" for a buffer's first, "J@k" for one made by event k).
 * res (may be NULL) receives a malloc'ed array of prob->n residencies. */
void mp_events_problem(const mp_graph *g, const mp_events *p, int64_t align, mp_problem *prob,
                       mp_residency **res);

/* ---- the plan file (io_events.c) ---- */

struct json_t;
/* The "events" array: ["run", 5], ["free", "3"], ["out", "4:1"], ["in", "4:1"]. */
struct json_t *mp_events_to_json(const mp_graph *g, const mp_events *p);
/* Parse an "events" array (buffer names "J" or "J:K"; "J:0" for a
 * single-output J).  Returns 0, or -1 with a message naming the position. */
int mp_events_from_json(const mp_graph *g, const struct json_t *arr, mp_events *p, mp_error *err);
/* One element i of it: a pair [kind, node id] or [kind, buffer name] (a
 * NULL x is no pair).  0, or -1 with a message naming events[i]. */
int mp_event_from_json(const mp_graph *g, const struct json_t *x, int i, mp_event *e, mp_error *err);
/* Read the "events" array of a plan file.  Returns 0, or -1 with a message
 * naming the file. */
int mp_events_read_file(const mp_graph *g, const char *path, mp_events *p, mp_error *err);
/* A buffer name "J" / "J:K" to its id: a tensor buffer id, or -1. */
int mp_buffer_parse(const mp_graph *g, const char *name);

#endif
