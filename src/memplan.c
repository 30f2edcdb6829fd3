/* memplan.c - the public API (memplan.h) over the harness, the registry,
 * the readers and the judge.  Opaque handles wrap the internal objects
 * (memplan_int.h); the instance caches the baseline so it is computed once
 * per alignment.  Event plans: memplan_events.c. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "memplan_int.h"

/* The public enums mirror the internal ones value for value. */
_Static_assert((int)MEMPLAN_ESOLVER == (int)MP_ESOLVER && (int)MEMPLAN_EIO == (int)MP_EIO,
               "memplan_err mirrors mp_err");
_Static_assert((int)MEMPLAN_ERROR == (int)MP_ERROR && (int)MEMPLAN_REFUSED == (int)MP_REFUSED &&
                   (int)MEMPLAN_FIXED == (int)MP_FIXED,
               "memplan_status mirrors mp_status");
_Static_assert(sizeof(memplan_error) == sizeof(mp_error), "memplan_error mirrors mp_error");
_Static_assert(MEMPLAN_MAX_SIZE == MP_MAX_SIZE && MEMPLAN_MAX_TOTAL == MP_MAX_TOTAL &&
                   MEMPLAN_MAX_ALIGN == MP_MAX_ALIGN,
               "the public limits are the model's");
_Static_assert((int)MEMPLAN_DECIDES_BOTH == (int)MP_DECIDES_BOTH &&
                   (int)MEMPLAN_DECIDES_EVENTS == (int)MP_DECIDES_EVENTS,
               "MEMPLAN_DECIDES_* mirror MP_DECIDES_*");

void mp_api_error(memplan_error *err, const char *msg) {
  if (err) mp_msgf(err->msg, sizeof err->msg, "%s", msg);
}

memplan_err mp_api_fail(memplan_error *err, memplan_err code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err) mp_vmsgf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return code;
}

memplan_err mp_api_version_check(int version, const char *what, memplan_error *err) {
  if (version == MEMPLAN_API_VERSION) return MEMPLAN_OK;
  return mp_api_fail(err, MEMPLAN_EUSAGE,
                     "%s has version %d, not %d: initialise it with %s_init (memplan.h)", what,
                     version, MEMPLAN_API_VERSION, what);
}

bool mp_api_strings_ok(const char *const *a, int n) {
  if (n < 0 || (n > 0 && !a)) return false;
  for (int i = 0; i < n; i++)
    if (!a[i]) return false;
  return true;
}

/* The ranges the CLI's options enforce, for a request filled in by hand. */
memplan_err mp_api_request_check(const memplan_request *req, memplan_error *err) {
  if (!req) return mp_api_fail(err, MEMPLAN_EUSAGE, "no memplan_request (NULL)");
  if (mp_api_version_check(req->version, "memplan_request", err)) return MEMPLAN_EUSAGE;
  if (req->align < 0 || req->align > MEMPLAN_MAX_ALIGN)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "align %lld outside [0, 2^30] (0: the default)",
                       (long long)req->align);
  if (req->capacity < 0 || req->capacity > MEMPLAN_MAX_TOTAL)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "capacity %lld outside [0, 2^60] (0: minimise)",
                       (long long)req->capacity);
  if (isnan(req->time_limit))
    return mp_api_fail(err, MEMPLAN_EUSAGE, "time_limit is NaN (<= 0: no limit)");
  if (req->threads < 0)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "threads %d is negative (0: the default)", req->threads);
  if (!mp_api_strings_ok(req->sets, req->n_sets))
    return mp_api_fail(err, MEMPLAN_EUSAGE, "n_sets %d with sets missing or holding NULL",
                       req->n_sets);
  for (int k = 0; k < mp_registry_size; k++) { /* one option set twice: which value was meant? */
    mp_error e;
    if (mp_solver_sets_once(mp_registry[k], req->n_sets, req->sets, &e))
      return mp_api_fail(err, MEMPLAN_EUSAGE, "%s", e.msg);
  }
  return MEMPLAN_OK;
}

memplan_err mp_api_align_check(int64_t align, const char *what, memplan_error *err) {
  if (align >= 0 && align <= MEMPLAN_MAX_ALIGN) return MEMPLAN_OK;
  return mp_api_fail(err, MEMPLAN_EUSAGE, "%s: align %lld outside [0, 2^30] (0: the default)", what,
                     (long long)align);
}

int memplan_api_version(void) { return MEMPLAN_API_VERSION; }

const char *memplan_err_name(memplan_err e) {
  static const char *const names[] = {"ok", "bad input", "bad usage", "solver failed", "i/o error"};
  return (unsigned)e <= MEMPLAN_EIO ? names[e] : "unknown error";
}

const char *memplan_status_name(memplan_status s) { return mp_status_name((mp_status)s); }

/* ------------------------------------------------------------- solvers */

int memplan_solver_count(void) { return mp_registry_size; }

int memplan_solver_index(const char *name) {
  for (int i = 0; name && i < mp_registry_size; i++)
    if (strcmp(mp_registry[i]->name, name) == 0) return i;
  return -1;
}

memplan_err memplan_solver_get(int i, memplan_solver_info *out) {
  if (i < 0 || i >= mp_registry_size) return MEMPLAN_EUSAGE;
  const mp_solver *s = mp_registry[i];
  *out = (memplan_solver_info){s->name, s->summary, s->decides, s->n_options};
  return MEMPLAN_OK;
}

memplan_err memplan_solver_option(int i, int k, memplan_option_info *out) {
  if (i < 0 || i >= mp_registry_size || k < 0 || k >= mp_registry[i]->n_options) return MEMPLAN_EUSAGE;
  const mp_option *o = &mp_registry[i]->options[k];
  *out = (memplan_option_info){o->name, o->def, o->lo, o->hi, o->help, o->kind == MP_OPT_INT};
  return MEMPLAN_OK;
}

/* ----------------------------------------------------------- instances */

void memplan_load_opts_init(memplan_load_opts *o) {
  memset(o, 0, sizeof *o);
  o->version = MEMPLAN_API_VERSION;
}

memplan_err memplan_instance_load(memplan_instance **out, const char *path,
                                  const memplan_load_opts *opts, memplan_error *err) {
  mp_load_opts lo = {0};
  if (out) *out = NULL;
  if (!out || !path)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "memplan_instance_load: no %s (NULL)", out ? "path" : "out");
  if (opts && mp_api_version_check(opts->version, "memplan_load_opts", err))
    return MEMPLAN_EUSAGE;
  /* a format that names none is the caller's mistake, as --input-format's */
  static const char *const formats[] = {"json", "graphml", "nodelink", "csv"};
  bool known = !opts || !opts->format;
  for (size_t i = 0; !known && i < sizeof formats / sizeof *formats; i++) known = !strcmp(opts->format, formats[i]);
  if (!known)
    return mp_api_fail(err, MEMPLAN_EUSAGE,
                       "memplan_instance_load: unknown input format '%.100s' (json, graphml, nodelink, csv)",
                       opts->format);
  if (opts)
    lo = (mp_load_opts){.toposort = opts->toposort, .format = opts->format,
                        .size_attr = opts->size_attr, .cost_attr = opts->cost_attr};
  memplan_instance *h = mp_xcalloc(1, sizeof *h);
  mp_error e;
  if (mp_instance_load(path, &lo, &h->in, &e)) {
    mp_api_error(err, e.msg);
    free(h);
    return MEMPLAN_EINPUT;
  }
  *out = h;
  return MEMPLAN_OK;
}

/* The checks of the CSV reader, for arrays. */
static int check_lifetime(int i, int64_t size, int64_t lo, int64_t hi, int64_t al, int64_t pin,
                          mp_error *e) {
  if (lo < 0) return mp_errorf(e, "buffer %d: negative lower %lld", i, (long long)lo);
  if (lo > hi) return mp_errorf(e, "buffer %d: lower %lld > upper %lld", i, (long long)lo, (long long)hi);
  if (hi > MP_MAX_TIME) return mp_errorf(e, "buffer %d: upper %lld beyond 2^40", i, (long long)hi);
  if (size < 0 || size > MP_MAX_SIZE)
    return mp_errorf(e, "buffer %d: size %lld outside [0, 2^56]", i, (long long)size);
  if (al < 1 || al > MP_MAX_ALIGN) return mp_errorf(e, "buffer %d: alignment outside [1, 2^30]", i);
  if (pin < -1) return mp_errorf(e, "buffer %d: negative offset", i);
  if (pin > MP_MAX_OFFSET) return mp_errorf(e, "buffer %d: offset %lld beyond 2^60", i, (long long)pin);
  return 0;
}

memplan_err memplan_instance_from_lifetimes(memplan_instance **out, int n, const int64_t *size,
                                            const int64_t *lo, const int64_t *hi,
                                            const int64_t *align, const int64_t *pinned,
                                            memplan_error *err) {
  *out = NULL;
  mp_error e;
  if (n < 0 || (n > 0 && (!size || !lo || !hi))) {
    mp_api_error(err, "memplan_instance_from_lifetimes: n < 0, or a NULL array");
    return MEMPLAN_EUSAGE;
  }
  int64_t total = 0;
  for (int i = 0; i < n; i++) {
    int rc = check_lifetime(i, size[i], lo[i], hi[i], align ? align[i] : 1,
                            pinned ? pinned[i] : -1, &e);
    if (!rc && (total += size[i]) > MP_MAX_TOTAL) /* sizes <= 2^56 each: no wrap */
      rc = mp_errorf(&e, "buffer %d: the sizes sum beyond 2^60 bytes", i);
    if (rc) {
      mp_api_error(err, e.msg);
      return MEMPLAN_EINPUT;
    }
  }
  mp_problem *p = mp_xcalloc(1, sizeof *p);
  p->n = n;
  p->items = mp_xcalloc((size_t)(n ? n : 1), sizeof(mp_item));
  p->ids = mp_xcalloc((size_t)(n ? n : 1), sizeof(char *));
  p->name = mp_xstrdup("lifetimes");
  p->has_alignment_col = align != NULL;
  for (int i = 0; i < n; i++) {
    char id[24];
    snprintf(id, sizeof id, "%d", i);
    p->ids[i] = mp_xstrdup(id);
    p->items[i] = (mp_item){size[i], lo[i], hi[i], align ? align[i] : 1, pinned ? pinned[i] : -1};
    if (i == 0 || lo[i] < p->t_begin) p->t_begin = lo[i];
    if (i == 0 || hi[i] > p->t_end) p->t_end = hi[i];
  }
  memplan_instance *h = mp_xcalloc(1, sizeof *h);
  h->in.fixed = p;
  *out = h;
  return MEMPLAN_OK;
}

void memplan_instance_destroy(memplan_instance *in) {
  if (!in) return;
  mp_instance_destroy(&in->in);
  free(in->source);
  free(in);
}

static void graph_counts(const mp_graph *g, memplan_instance_info *o) {
  o->nodes = g->n;
  o->buffers = g->n_buf;
  o->data_edges = g->n_data_edges;
  o->inplace_edges = g->n_inplace_edges;
  o->param_bytes = g->param_bytes;
  for (int v = 0; v < g->n; v++) {
    o->inputs += g->nodes[v].is_input;
    o->views += g->nodes[v].has_alias;
    o->inplace_nodes += g->nodes[v].inplace;
    o->workspaces += g->nodes[v].workspace > 0;
  }
  for (int b = 0; b < g->n_buf; b++) o->graph_outputs += g->bufs[b].graph_output;
}

bool memplan_instance_is_graph(const memplan_instance *in) { return in->in.g != NULL; }

memplan_err memplan_instance_info_get(const memplan_instance *in, memplan_instance_info *out) {
  memset(out, 0, sizeof *out);
  out->name = mp_instance_name(&in->in);
  const mp_graph *g = in->in.g;
  out->is_graph = g != NULL;
  if (g) {
    graph_counts(g, out);
    mp_problem p;
    mp_problem_from_order(g, g->given, 1, &p);
    out->sum_sizes = mp_sum_sizes(&p);
    out->live_peak = mp_live_peak(&p);
    out->lower_bound = mp_node_lower_bound(g);
    mp_problem_destroy(&p);
  } else {
    const mp_problem *p = in->in.fixed;
    out->buffers = p->n;
    out->time_begin = p->t_begin;
    out->time_end = p->t_end;
    out->sum_sizes = mp_sum_sizes(p);
    out->live_peak = out->lower_bound = mp_live_peak(p);
  }
  return MEMPLAN_OK;
}

/* ------------------------------------------------------------ planning */

void memplan_request_init(memplan_request *req) {
  memset(req, 0, sizeof *req);
  req->version = MEMPLAN_API_VERSION;
  req->seed = 1;
}

void mp_api_spec(const memplan_request *req, mp_baselines *baselines, mp_run_spec *spec) {
  *spec = (mp_run_spec){
      .order = req->order, .place = req->place, .align = req->align,
      .time_limit = req->time_limit, .seed = req->seed, .capacity = req->capacity,
      .write_lp = req->write_lp, .n_sets = req->n_sets, .sets = req->sets,
      .verbose = req->verbose, .no_baseline = req->no_baseline, .baselines = baselines,
      .remat = req->remat, .has_budget = req->has_budget, .budget = req->budget,
      .budget_frac = req->budget_frac, .has_bandwidth = req->has_bandwidth,
      .bandwidth = req->bandwidth, .threads = req->threads};
}

memplan_err memplan_solve(memplan_instance *in, const memplan_request *req, memplan_result **out,
                          memplan_error *err) {
  if (out) *out = NULL;
  if (!out || !in)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "memplan_solve: no %s (NULL)", out ? "instance" : "out");
  if (mp_api_request_check(req, err)) return MEMPLAN_EUSAGE;
  mp_run_spec spec;
  mp_api_spec(req, &in->baselines, &spec);
  memplan_result *h = mp_xcalloc(1, sizeof *h);
  h->owner = in;
  mp_err e = mp_run(&in->in, &spec, &h->r);
  if (e) mp_api_error(err, h->r.msg);
  if (e == MP_EUSAGE) {
    memplan_result_destroy(h);
    return MEMPLAN_EUSAGE;
  }
  *out = h;
  return (memplan_err)e;
}

void memplan_result_destroy(memplan_result *r) {
  if (!r) return;
  mp_result_destroy(&r->r);
  free(r);
}

memplan_status memplan_result_status(const memplan_result *r) { return (memplan_status)r->r.status; }
memplan_status memplan_result_order_status(const memplan_result *r) {
  return (memplan_status)r->r.order_status;
}
memplan_status memplan_result_place_status(const memplan_result *r) {
  return (memplan_status)r->r.place_status;
}
memplan_status memplan_result_remat_status(const memplan_result *r) {
  return r->r.has_remat ? (memplan_status)r->r.remat.status : MEMPLAN_FIXED;
}
const char *memplan_result_message(const memplan_result *r) { return r->r.msg; }

/* DESIGN 6.3's figures, when the request had a remat chain. */
static void remat_figures(const mp_result *x, memplan_figures *out) {
  const mp_remat_result *m = &x->remat;
  out->has_remat = x->has_remat;
  out->remat_ms = m->ms;
  out->remat_cpu_ms = m->cpu_ms;
  out->overhead = NAN;
  if (!x->has_remat || !m->known) return;
  out->has_budget = true;
  out->budget = m->budget;
  out->bandwidth = m->bandwidth;
  out->base_time = m->base_time;
  if (!x->has_figures || !m->has_plan) return;
  out->residencies = x->prob.n;
  out->duration = m->fig.duration;
  out->overhead = m->fig.overhead;
  out->recompute_time = m->fig.recompute_time;
  out->stall_time = m->fig.stall_time;
  out->recomputed = m->fig.recomputed;
  out->transferred = m->fig.transferred;
  out->stale_reruns = m->fig.stale_reruns;
}

void memplan_result_figures(const memplan_result *r, memplan_figures *out) {
  const mp_result *x = &r->r;
  const mp_figures *f = &x->fig;
  memset(out, 0, sizeof *out);
  out->has_figures = x->has_figures;
  out->has_baseline = x->has_figures && x->has_baseline;
  out->lower_bound = f->lower_bound;
  out->order_ms = x->order_ms;
  out->place_ms = x->place_ms;
  out->order_cpu_ms = x->order_cpu_ms;
  out->place_cpu_ms = x->place_cpu_ms;
  remat_figures(x, out);
  if (!x->has_figures) return;
  out->live_peak = f->live_peak;
  out->arena = f->arena;
  out->sum_sizes = f->sum_sizes;
  out->fragmentation = f->fragmentation;
  out->reuse_ratio = f->reuse_ratio;
  out->profile_std = f->profile_std;
  out->reduction_vs_noreuse = f->reduction_vs_noreuse;
  if (!x->has_baseline) return;
  out->given_arena = f->given_arena;
  out->reduction_vs_given = f->reduction_vs_given;
}

int memplan_result_order(const memplan_result *r, const int **order) {
  *order = r->r.has_figures ? r->r.order : NULL;
  return *order ? r->r.n : 0;
}

int memplan_result_offsets(const memplan_result *r, const int64_t **offsets) {
  *offsets = r->r.has_figures ? r->r.offsets : NULL;
  return *offsets ? r->r.prob.n : 0;
}

memplan_err memplan_result_buffer(const memplan_result *r, int b, memplan_buffer *out) {
  const mp_problem *p = &r->r.prob;
  if (b < 0 || b >= p->n) return MEMPLAN_EUSAGE;
  memset(out, 0, sizeof *out);
  if (p->g)
    mp_buffer_key(p->g, b, out->key, sizeof out->key);
  else
    snprintf(out->key, sizeof out->key, "%s", p->ids && p->ids[b] ? p->ids[b] : "");
  out->size = p->items[b].size;
  out->lo = p->items[b].lo;
  out->hi = p->items[b].hi;
  out->offset = r->r.has_figures ? r->r.offsets[b] : -1;
  return MEMPLAN_OK;
}

int memplan_result_stage_count(const memplan_result *r) { return r->r.n_stages; }

memplan_err memplan_result_stage(const memplan_result *r, int i, memplan_stage_info *out) {
  if (i < 0 || i >= r->r.n_stages) return MEMPLAN_EUSAGE;
  const mp_stage_result *s = &r->r.stages[i];
  *out = (memplan_stage_info){s->solver->name, (memplan_status)s->status, s->wall_ms, s->cpu_ms,
                              s->bound, s->msg, s->solver->decides, s->duration_bound};
  return MEMPLAN_OK;
}

memplan_err memplan_result_print(const memplan_result *r, FILE *out, const char *format) {
  if (!r || !out) return MEMPLAN_EUSAGE;
  if (format && strcmp(format, "json") == 0)
    mp_result_print_json(out, &r->owner->in, &r->r);
  else if (!format || strcmp(format, "text") == 0)
    mp_result_print_text(out, &r->owner->in, &r->r);
  else
    return MEMPLAN_EUSAGE;
  /* flushed: a full disk shows only when the buffer is written */
  return fflush(out) || ferror(out) ? MEMPLAN_EIO : MEMPLAN_OK;
}

memplan_err memplan_result_write_plan(const memplan_result *r, const char *path, memplan_error *err) {
  if (!r->r.has_figures) {
    mp_api_error(err, "the result holds no plan to write");
    return MEMPLAN_EUSAGE;
  }
  mp_outfile of;
  mp_error e;
  if (mp_out_open(&of, path, &e)) {
    mp_api_error(err, e.msg);
    return MEMPLAN_EIO;
  }
  errno = 0; /* a failed write sets it: the reason, not an older call's */
  if (mp_plan_write(of.fp, &r->owner->in, &r->r)) {
    int why = errno;
    mp_out_abort(&of);
    if (err)
      snprintf(err->msg, sizeof err->msg, "%s: cannot write the plan%s%s",
               path && strcmp(path, "-") ? path : "standard output", why ? ": " : "", why ? strerror(why) : "");
    return MEMPLAN_EIO;
  }
  if (mp_out_commit(&of, &e)) {
    mp_api_error(err, e.msg);
    return MEMPLAN_EIO;
  }
  return MEMPLAN_OK;
}

/* -------------------------------------------------------- verification */

memplan_err memplan_verify_file(const memplan_instance *in, const char *plan_path, int64_t align,
                                memplan_error *err) {
  mp_error e;
  if (!plan_path)
    return mp_api_fail(err, MEMPLAN_EUSAGE, "memplan_verify_file: no plan path (NULL)");
  if (mp_api_align_check(align, "memplan_verify_file", err)) return MEMPLAN_EUSAGE;
  if (mp_plan_verify(&in->in, plan_path, align, &e) == 0) return MEMPLAN_OK;
  mp_api_error(err, e.msg);
  return MEMPLAN_EINPUT;
}

memplan_err memplan_verify_plan(const memplan_instance *in, const int *order,
                                const int64_t *offsets, int64_t align, memplan_error *err) {
  const mp_graph *g = in->in.g;
  mp_error e;
  mp_problem p;
  if (!offsets) /* what memplan_result_offsets hands out for a result without a plan */
    return mp_api_fail(err, MEMPLAN_EUSAGE, "a plan needs offsets (NULL: the result has no plan)");
  if (mp_api_align_check(align, "memplan_verify_plan", err)) return MEMPLAN_EUSAGE;
  if (!g && order) /* an order is a graph's: the plan is of another instance */
    return mp_api_fail(err, MEMPLAN_EUSAGE,
                       "a fixed-lifetime problem's plan has no order (pass NULL): is the plan "
                       "of a graph?");
  if (g) {
    if (!order) {
      mp_api_error(err, "a graph's plan needs an order");
      return MEMPLAN_EUSAGE;
    }
    for (int i = 0; i < g->n; i++)
      if (order[i] < 0 || order[i] >= g->n) {
        if (err) snprintf(err->msg, sizeof err->msg, "order position %d: %d is not a node id", i, order[i]);
        return MEMPLAN_EINPUT;
      }
    if (mp_order_check(g, order, &e) >= 0) {
      mp_api_error(err, e.msg);
      return MEMPLAN_EINPUT;
    }
    mp_problem_from_order(g, order, align > 0 ? align : 64, &p);
  } else {
    mp_problem_copy(in->in.fixed, &p);
    if (align > 0 && !p.has_alignment_col)
      for (int i = 0; i < p.n; i++) p.items[i].align = align;
  }
  int rc = mp_verify_offsets(&p, offsets, &e);
  mp_problem_destroy(&p);
  if (rc == 0) return MEMPLAN_OK;
  mp_api_error(err, e.msg);
  return MEMPLAN_EINPUT;
}
