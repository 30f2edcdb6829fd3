/* report.c - results as text and JSON, and plan files written.  Figures a
 * result does not have are absent: JSON null, no line in text.  A run with
 * a recomputation stage adds its own lines and names (DESIGN 6.3); a run
 * without one prints exactly what it printed before.  Plan files:
 * plan_write.c. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static void human_bytes(int64_t b, char *out, size_t cap) {
  const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double x = (double)b;
  int i = 0;
  while (x >= 1024 && i < 4) {
    x /= 1024;
    i++;
  }
  if (i == 0)
    snprintf(out, cap, "%lld B", (long long)b);
  else
    snprintf(out, cap, "%.2f %s", x, u[i]);
}

const char *mp_instance_name(const mp_instance *in) {
  if (in->g) return in->g->name ? in->g->name : "";
  return in->fixed->name ? in->fixed->name : "";
}

/* Buffers of the instance (the residencies are counted apart). */
static int n_buffers(const mp_instance *in, const mp_result *r) {
  return in->g ? in->g->n_buf : r->prob.n;
}

/* The event plan's figures are known. */
static bool has_remat_figures(const mp_result *r) {
  return r->has_figures && r->has_remat && r->remat.has_plan;
}

/* ------------------------------------------------------------------ text */

/* "optimal (order fixed: not searched; remat optimal; placement optimal)" */
static void print_status(FILE *out, const mp_result *r) {
  char remat[48] = "";
  if (r->has_remat) snprintf(remat, sizeof remat, "remat %s; ", mp_status_name(r->remat.status));
  fprintf(out, "status        %s", mp_status_name(r->status));
  if (r->order_status == MP_FIXED)
    fprintf(out, " (order fixed: not searched; %splacement %s)", remat, mp_status_name(r->place_status));
  else
    fprintf(out, " (order %s; %splacement %s)", mp_status_name(r->order_status), remat,
            mp_status_name(r->place_status));
  fprintf(out, "%s%s\n", r->msg[0] ? ": " : "", r->msg);
}

static void print_bytes(FILE *out, const char *label, int64_t b) {
  char h[32];
  human_bytes(b, h, sizeof h);
  fprintf(out, "%-13s %lld bytes (%s)\n", label, (long long)b, h);
}

static void print_figures(FILE *out, const mp_result *r) {
  const mp_figures *f = &r->fig;
  print_bytes(out, "live peak", f->live_peak);
  print_bytes(out, "arena", f->arena);
  print_bytes(out, "lower bound", f->lower_bound);
  print_bytes(out, "sum of sizes", f->sum_sizes);
  fprintf(out, "fragmentation %.4f %%\n", 100.0 * f->fragmentation);
  fprintf(out, "reuse ratio   %.3fx\n", f->reuse_ratio);
  const mp_solver *base = mp_solver_with_role(MP_ROLE_BASELINE, MP_DECIDES_OFFSETS);
  if (r->has_baseline)
    fprintf(out, "reduction     %.2f %% vs given order + %s (%lld bytes), %.2f %% vs no reuse\n",
            100.0 * f->reduction_vs_given, base ? base->name : "baseline", (long long)f->given_arena,
            100.0 * f->reduction_vs_noreuse);
  else
    fprintf(out, "reduction     %.2f %% vs no reuse (no baseline)\n", 100.0 * f->reduction_vs_noreuse);
  fprintf(out, "profile std   %.1f bytes\n", f->profile_std);
}

/* The request of the recomputation stage: budget and host link. */
static void print_remat_request(FILE *out, const mp_remat_result *m) {
  char h[32];
  human_bytes(m->budget, h, sizeof h);
  fprintf(out, "budget        %lld bytes (%s)", (long long)m->budget, h);
  if (m->frac[0])
    fprintf(out, ", %s x the order's live peak %lld", m->frac, (long long)m->order_peak);
  fprintf(out, "\n");
  if (m->bandwidth > 0)
    fprintf(out, "bandwidth     %.6g bytes per cost unit\n", m->bandwidth);
  else
    fprintf(out, "bandwidth     none (no offload)\n");
}

static void print_remat_figures(FILE *out, const mp_result *r) {
  const mp_ev_figures *f = &r->remat.fig;
  fprintf(out, "residencies   %d\n", r->prob.n);
  fprintf(out, "duration      %.6g (base time %.6g", f->duration, f->base_time);
  if (isfinite(f->overhead)) fprintf(out, ", overhead %.2f %%", 100.0 * f->overhead);
  fprintf(out, ")\n");
  fprintf(out, "recomputed    %lld runs, %.6g time\n", (long long)f->recomputed, f->recompute_time);
  fprintf(out, "stall time    %.6g\n", f->stall_time);
  if (f->stale_reruns)
    fprintf(out, "stale reruns  %lld (read a storage written in place since; DESIGN 6.2 allows them)\n",
            (long long)f->stale_reruns);
  print_bytes(out, "transferred", f->transferred);
}

static void print_stages(FILE *out, const mp_result *r) {
  for (int i = 0; i < r->n_stages; i++) {
    const mp_stage_result *s = &r->stages[i];
    char bound[48] = "";
    if (s->kind == MP_STAGE_EVENTS && s->duration_bound > 0)
      snprintf(bound, sizeof bound, "  duration bound %.6g", s->duration_bound);
    else if (s->bound)
      snprintf(bound, sizeof bound, "  bound %lld", (long long)s->bound);
    fprintf(out, "stage %-9s %-10s %9.3f ms wall %9.3f ms cpu%s%s%s\n", s->solver->name,
            mp_status_name(s->status), s->wall_ms, s->cpu_ms, bound, s->msg[0] ? "  " : "", s->msg);
  }
}

void mp_result_print_text(FILE *out, const mp_instance *in, const mp_result *r) {
  fprintf(out, "graph         %s (%d nodes, %d buffers, align %lld)\n", mp_instance_name(in),
          in->g ? in->g->n : 0, n_buffers(in, r), (long long)r->align);
  if (r->has_remat)
    fprintf(out, "solvers       order %s, remat %s, place %s, seed %llu\n", r->order_name, r->remat.name,
            r->place_name, (unsigned long long)r->seed);
  else
    fprintf(out, "solvers       order %s, place %s, seed %llu\n", r->order_name, r->place_name,
            (unsigned long long)r->seed);
  print_status(out, r);
  if (r->has_remat && r->remat.known) print_remat_request(out, &r->remat);
  if (r->has_figures)
    print_figures(out, r);
  else
    print_bytes(out, "lower bound", r->fig.lower_bound);
  if (has_remat_figures(r)) print_remat_figures(out, r);
  print_stages(out, r);
  if (r->has_remat)
    fprintf(out, "plan time     order %.3f ms + remat %.3f ms + place %.3f ms = %.3f ms\n", r->order_ms,
            r->remat.ms, r->place_ms, r->order_ms + r->remat.ms + r->place_ms);
  else
    fprintf(out, "plan time     order %.3f ms + place %.3f ms = %.3f ms\n", r->order_ms, r->place_ms,
            r->order_ms + r->place_ms);
}

/* ------------------------------------------------------------------ JSON */

/* Round to 12 significant digits so that results files carry no float noise. */
static json_t *jreal(double x) { return json_real(isfinite(x) ? mp_round12(x) : 0); }

/* A figure of the plan, or null when there is none. */
static json_t *jfig_int(const mp_result *r, bool known, int64_t x) {
  return r->has_figures && known ? json_integer(x) : json_null();
}
static json_t *jfig_real(const mp_result *r, bool known, double x) {
  return r->has_figures && known ? jreal(x) : json_null();
}
/* A value known apart from any plan (a request, a time), or null. */
static json_t *jint_if(bool known, int64_t x) { return known ? json_integer(x) : json_null(); }
static json_t *jreal_if(bool known, double x) { return known && isfinite(x) ? jreal(x) : json_null(); }

static void figures_json(json_t *o, const mp_result *r) {
  const mp_figures *f = &r->fig;
  json_object_set_new(o, "live_peak", jfig_int(r, true, f->live_peak));
  json_object_set_new(o, "arena", jfig_int(r, true, f->arena));
  json_object_set_new(o, "fragmentation", jfig_real(r, true, f->fragmentation));
  json_object_set_new(o, "reuse_ratio", jfig_real(r, true, f->reuse_ratio));
  json_object_set_new(o, "sum_sizes", jfig_int(r, true, f->sum_sizes));
  json_object_set_new(o, "lower_bound", json_integer(f->lower_bound));
  json_object_set_new(o, "profile_std", jfig_real(r, true, f->profile_std));
  json_object_set_new(o, "reduction_vs_given", jfig_real(r, r->has_baseline, f->reduction_vs_given));
  json_object_set_new(o, "reduction_vs_noreuse", jfig_real(r, true, f->reduction_vs_noreuse));
  json_object_set_new(o, "given_arena", jfig_int(r, r->has_baseline, f->given_arena));
}

/* DESIGN 6.3's figures: null without a recomputation stage, and (but for
 * the request and base_time) without an event plan. */
static void remat_json(json_t *o, const mp_result *r) {
  const mp_remat_result *m = &r->remat;
  const mp_ev_figures *f = &m->fig;
  bool known = r->has_remat && m->known, plan = has_remat_figures(r);
  json_object_set_new(o, "budget", jint_if(known, m->budget));
  json_object_set_new(o, "bandwidth", jreal_if(known, m->bandwidth));
  json_object_set_new(o, "residencies", jint_if(plan, r->prob.n));
  json_object_set_new(o, "duration", jreal_if(plan, f->duration));
  json_object_set_new(o, "base_time", jreal_if(known, m->base_time));
  json_object_set_new(o, "overhead", jreal_if(plan, f->overhead)); /* NaN (base_time 0): null */
  json_object_set_new(o, "recompute_time", jreal_if(plan, f->recompute_time));
  json_object_set_new(o, "recomputed", jint_if(plan, f->recomputed));
  json_object_set_new(o, "stall_time", jreal_if(plan, f->stall_time));
  json_object_set_new(o, "transferred", jint_if(plan, f->transferred));
  json_object_set_new(o, "stale_reruns", jint_if(plan, f->stale_reruns));
}

/* per stage: what each solver claimed, its own time, bound and note (the
 * pool placer's internal fragmentation, a refusal, ...) */
static json_t *stages_json(const mp_result *r) {
  json_t *st = json_array();
  for (int i = 0; i < r->n_stages; i++) {
    const mp_stage_result *s = &r->stages[i];
    json_t *so = json_object();
    json_object_set_new(so, "solver", json_string(s->solver->name));
    json_object_set_new(so, "status", json_string(mp_status_name(s->status)));
    json_object_set_new(so, "wall_ms", jreal(s->wall_ms));
    json_object_set_new(so, "cpu_ms", jreal(s->cpu_ms));
    json_object_set_new(so, "bound", json_integer(s->bound));
    if (s->kind == MP_STAGE_EVENTS) json_object_set_new(so, "duration_bound", jreal(s->duration_bound));
    if (s->msg[0]) json_object_set_new(so, "message", json_string(s->msg));
    json_array_append_new(st, so);
  }
  return st;
}

static void times_json(json_t *o, const mp_result *r) {
  double remat = r->has_remat ? r->remat.ms : 0;
  json_object_set_new(o, "order_ms", jreal(r->order_ms));
  json_object_set_new(o, "remat_ms", jreal_if(r->has_remat, r->remat.ms));
  json_object_set_new(o, "place_ms", jreal(r->place_ms));
  json_object_set_new(o, "plan_ms", jreal(r->order_ms + remat + r->place_ms));
  json_object_set_new(o, "order_cpu_ms", jreal(r->order_cpu_ms));
  json_object_set_new(o, "remat_cpu_ms", jreal_if(r->has_remat, r->remat.cpu_ms));
  json_object_set_new(o, "place_cpu_ms", jreal(r->place_cpu_ms));
}

json_t *mp_result_json(const mp_instance *in, const mp_result *r) {
  json_t *o = json_object();
  json_object_set_new(o, "graph", json_string(mp_instance_name(in)));
  json_object_set_new(o, "nodes", json_integer(in->g ? in->g->n : 0));
  json_object_set_new(o, "buffers", json_integer(n_buffers(in, r)));
  json_object_set_new(o, "align", json_integer(r->align));
  json_object_set_new(o, "order_solver", json_string(r->order_name));
  json_object_set_new(o, "remat_solver", r->has_remat ? json_string(r->remat.name) : json_null());
  json_object_set_new(o, "place_solver", json_string(r->place_name));
  json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
  json_object_set_new(o, "status", json_string(mp_status_name(r->status)));
  json_object_set_new(o, "order_status", json_string(mp_status_name(r->order_status)));
  json_object_set_new(o, "remat_status",
                      r->has_remat ? json_string(mp_status_name(r->remat.status)) : json_null());
  json_object_set_new(o, "place_status", json_string(mp_status_name(r->place_status)));
  json_object_set_new(o, "has_figures", json_boolean(r->has_figures));
  figures_json(o, r);
  remat_json(o, r);
  times_json(o, r);
  if (r->msg[0]) json_object_set_new(o, "message", json_string(r->msg));
  json_object_set_new(o, "stages", stages_json(r));
  return o;
}

void mp_result_print_json(FILE *out, const mp_instance *in, const mp_result *r) {
  json_t *o = mp_result_json(in, r);
  json_dumpf(o, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
  fputc('\n', out);
  json_decref(o);
}
