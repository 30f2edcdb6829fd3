/* report.c - results as text and JSON, plan files written and re-checked. */
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

void mp_result_print_text(FILE *out, const mp_instance *in, const mp_result *r) {
  char a[32], b[32];
  const mp_figures *f = &r->fig;
  fprintf(out, "graph         %s (%d nodes, %d buffers, align %lld)\n", mp_instance_name(in),
          in->g ? in->g->n : 0, r->prob.n, (long long)r->align);
  fprintf(out, "solvers       order %s, place %s, seed %llu\n", r->order_name, r->place_name,
          (unsigned long long)r->seed);
  fprintf(out, "status        %s%s%s\n", mp_status_name(r->status), r->msg[0] ? ": " : "", r->msg);
  human_bytes(f->live_peak, a, sizeof a);
  fprintf(out, "live peak     %lld bytes (%s)\n", (long long)f->live_peak, a);
  human_bytes(f->arena, a, sizeof a);
  fprintf(out, "arena         %lld bytes (%s)\n", (long long)f->arena, a);
  human_bytes(f->lower_bound, a, sizeof a);
  fprintf(out, "lower bound   %lld bytes (%s)%s\n", (long long)f->lower_bound, a,
          f->live_peak > 0 ? "" : "");
  human_bytes(f->sum_sizes, b, sizeof b);
  fprintf(out, "sum of sizes  %lld bytes (%s)\n", (long long)f->sum_sizes, b);
  fprintf(out, "fragmentation %.4f %%\n", 100.0 * f->fragmentation);
  fprintf(out, "reuse ratio   %.3fx\n", f->reuse_ratio);
  fprintf(out, "reduction     %.2f %% vs given order + bysize (%lld bytes), %.2f %% vs no reuse\n",
          100.0 * f->reduction_vs_given, (long long)f->given_arena, 100.0 * f->reduction_vs_noreuse);
  fprintf(out, "profile std   %.1f bytes\n", f->profile_std);
  for (int i = 0; i < r->n_stages; i++) {
    const mp_stage_result *s = &r->stages[i];
    char bound[48] = "";
    if (s->bound) snprintf(bound, sizeof bound, "  bound %lld", (long long)s->bound);
    fprintf(out, "stage %-9s %-10s %9.3f ms wall %9.3f ms cpu%s%s%s\n", s->solver->name,
            mp_status_name(s->status), s->wall_ms, s->cpu_ms, bound, s->msg[0] ? "  " : "", s->msg);
  }
  fprintf(out, "plan time     order %.3f ms + place %.3f ms = %.3f ms\n", r->order_ms, r->place_ms,
          r->order_ms + r->place_ms);
}

/* Round to 12 significant digits so that results files carry no float noise. */
static json_t *jreal(double x) {
  if (!isfinite(x)) return json_real(0);
  char buf[64];
  snprintf(buf, sizeof buf, "%.12g", x);
  return json_real(strtod(buf, NULL));
}

static json_t *result_json(const mp_instance *in, const mp_result *r, uint64_t seed) {
  const mp_figures *f = &r->fig;
  json_t *o = json_object();
  json_object_set_new(o, "graph", json_string(mp_instance_name(in)));
  json_object_set_new(o, "nodes", json_integer(in->g ? in->g->n : 0));
  json_object_set_new(o, "buffers", json_integer(r->prob.n));
  json_object_set_new(o, "align", json_integer(r->align));
  json_object_set_new(o, "order_solver", json_string(r->order_name));
  json_object_set_new(o, "place_solver", json_string(r->place_name));
  json_object_set_new(o, "seed", json_integer((json_int_t)seed));
  json_object_set_new(o, "status", json_string(mp_status_name(r->status)));
  json_object_set_new(o, "live_peak", json_integer(f->live_peak));
  json_object_set_new(o, "arena", json_integer(f->arena));
  json_object_set_new(o, "fragmentation", jreal(f->fragmentation));
  json_object_set_new(o, "reuse_ratio", jreal(f->reuse_ratio));
  json_object_set_new(o, "sum_sizes", json_integer(f->sum_sizes));
  json_object_set_new(o, "lower_bound", json_integer(f->lower_bound));
  json_object_set_new(o, "profile_std", jreal(f->profile_std));
  json_object_set_new(o, "reduction_vs_given", jreal(f->reduction_vs_given));
  json_object_set_new(o, "reduction_vs_noreuse", jreal(f->reduction_vs_noreuse));
  json_object_set_new(o, "order_ms", jreal(r->order_ms));
  json_object_set_new(o, "place_ms", jreal(r->place_ms));
  json_object_set_new(o, "plan_ms", jreal(r->order_ms + r->place_ms));
  json_object_set_new(o, "order_cpu_ms", jreal(r->order_cpu_ms));
  json_object_set_new(o, "place_cpu_ms", jreal(r->place_cpu_ms));
  if (r->msg[0]) json_object_set_new(o, "message", json_string(r->msg));
  /* per stage: what each solver claimed, its own time, bound and note (the
   * pool placer's internal fragmentation, a refusal, ...) */
  json_t *st = json_array();
  for (int i = 0; i < r->n_stages; i++) {
    const mp_stage_result *s = &r->stages[i];
    json_t *so = json_object();
    json_object_set_new(so, "solver", json_string(s->solver->name));
    json_object_set_new(so, "status", json_string(mp_status_name(s->status)));
    json_object_set_new(so, "wall_ms", jreal(s->wall_ms));
    json_object_set_new(so, "cpu_ms", jreal(s->cpu_ms));
    json_object_set_new(so, "bound", json_integer(s->bound));
    if (s->msg[0]) json_object_set_new(so, "message", json_string(s->msg));
    json_array_append_new(st, so);
  }
  json_object_set_new(o, "stages", st);
  return o;
}

void mp_result_print_json(FILE *out, const mp_instance *in, const mp_result *r) {
  json_t *o = result_json(in, r, r->seed);
  json_dumpf(o, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
  fputc('\n', out);
  json_decref(o);
}

int mp_plan_write(FILE *out, const mp_instance *in, const mp_result *r) {
  if (!in->g) return mp_csv_write(out, &r->prob, r->offsets);
  const mp_graph *g = in->g;
  json_t *o = result_json(in, r, r->seed);
  json_t *ord = json_array();
  for (int i = 0; i < g->n; i++) json_array_append_new(ord, json_integer(r->order[i]));
  json_object_set_new(o, "order", ord);
  json_t *offs = json_object();
  char key[48];
  for (int b = 0; b < g->n_buf; b++) {
    mp_buffer_key(g, b, key, sizeof key);
    json_object_set_new(offs, key, json_integer(r->offsets[b]));
  }
  json_object_set_new(o, "offsets", offs);
  int rc = json_dumpf(o, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
  fputc('\n', out);
  json_decref(o);
  return rc ? -1 : 0;
}

/* Figures recompute: integers exactly, ratios to 1e-9 (they were printed
 * with 12 significant digits). */
static int check_fig(json_t *plan, const char *key, double want, bool integer, mp_error *err) {
  json_t *v = json_object_get(plan, key);
  if (!v) return 0;
  if (!json_is_number(v)) return mp_errorf(err, "figure %s is not a number", key);
  double got = json_number_value(v);
  if (integer ? got != want : fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
    return mp_errorf(err, "figure %s: the plan says %.12g, it recomputes to %.12g", key, got, want);
  return 0;
}

static int verify_csv_plan(const mp_instance *in, const char *plan_path, int64_t align,
                           mp_error *err) {
  mp_problem plan;
  if (mp_csv_read(plan_path, &plan, err)) return -1;
  const mp_problem *p = in->fixed;
  int rc = 0;
  if (plan.n != p->n) {
    rc = mp_errorf(err, "%s: %d buffers, the problem has %d", plan_path, plan.n, p->n);
  }
  int64_t *off = mp_xcalloc((size_t)(p->n ? p->n : 1), sizeof(int64_t));
  mp_problem q;
  mp_problem_copy(p, &q);
  for (int i = 0; i < p->n && !rc; i++) {
    /* rows match by id; files written by memplan keep the order */
    int j = i;
    if (strcmp(plan.ids[j], p->ids[i]) != 0)
      for (j = 0; j < plan.n && strcmp(plan.ids[j], p->ids[i]); j++) {
      }
    if (j == plan.n) {
      rc = mp_errorf(err, "%s: buffer %s has no row", plan_path, p->ids[i]);
      break;
    }
    if (plan.items[j].lo != p->items[i].lo || plan.items[j].hi != p->items[i].hi ||
        plan.items[j].size != p->items[i].size) {
      rc = mp_errorf(err, "%s: buffer %s: lifetime or size differ from the problem", plan_path,
                     p->ids[i]);
      break;
    }
    off[i] = plan.items[j].fixed;
    if (off[i] < 0) rc = mp_errorf(err, "%s: buffer %s has no offset", plan_path, p->ids[i]);
    if (align > 0 && !p->has_alignment_col) q.items[i].align = align;
  }
  if (!rc) rc = mp_verify_offsets(&q, off, err);
  free(off);
  mp_problem_free(&q);
  mp_problem_free(&plan);
  return rc ? -1 : 0;
}

int mp_plan_verify(const mp_instance *in, const char *plan_path, int64_t align_override,
                   mp_error *err) {
  if (!in->g) return verify_csv_plan(in, plan_path, align_override, err);
  const mp_graph *g = in->g;
  json_error_t je;
  json_t *plan = json_load_file(plan_path, 0, &je);
  if (!plan) return mp_errorf(err, "%s:%d: not valid JSON: %s", plan_path, je.line, je.text);
  int rc = 0;
  int64_t align = 64;
  json_t *ja = json_object_get(plan, "align");
  if (json_is_integer(ja)) align = json_integer_value(ja);
  if (align_override > 0) align = align_override;
  json_t *jo = json_object_get(plan, "order"), *joff = json_object_get(plan, "offsets");
  int *order = mp_xmalloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
  int64_t *off = mp_xmalloc(sizeof(int64_t) * (size_t)(g->n_buf ? g->n_buf : 1));
  mp_problem p = {0};
  if (!json_is_array(jo) || (int)json_array_size(jo) != g->n) {
    rc = mp_errorf(err, "%s: \"order\" must list all %d nodes", plan_path, g->n);
    goto done;
  }
  for (int i = 0; i < g->n; i++) {
    json_t *x = json_array_get(jo, (size_t)i);
    if (!json_is_integer(x)) {
      rc = mp_errorf(err, "%s: order position %d is not a node id", plan_path, i);
      goto done;
    }
    json_int_t id = json_integer_value(x);
    if (id < 0 || id >= g->n) { /* before the cast: 2^32 must not pass as node 0 */
      rc = mp_errorf(err, "%s: order position %d: %lld is not a node id", plan_path, i, (long long)id);
      goto done;
    }
    order[i] = (int)id;
  }
  mp_error e;
  if (mp_order_check(g, order, &e) >= 0) {
    rc = mp_errorf(err, "%s: %s", plan_path, e.msg);
    goto done;
  }
  if (!json_is_object(joff)) {
    rc = mp_errorf(err, "%s: no \"offsets\" object", plan_path);
    goto done;
  }
  char key[48];
  for (int b = 0; b < g->n_buf; b++) {
    mp_buffer_key(g, b, key, sizeof key);
    json_t *x = json_object_get(joff, key);
    if (!x && g->bufs[b].kind == MP_BUF_TENSOR && g->nodes[g->bufs[b].owner].n_out == 1) {
      snprintf(key + strlen(key), sizeof key - strlen(key), ":0");
      x = json_object_get(joff, key);
    }
    if (!json_is_integer(x)) {
      mp_buffer_key(g, b, key, sizeof key);
      rc = mp_errorf(err, "%s: buffer %s has no integer offset", plan_path, key);
      goto done;
    }
    off[b] = json_integer_value(x);
  }
  mp_problem_from_order(g, order, align, &p);
  if (mp_verify_offsets(&p, off, &e)) {
    rc = mp_errorf(err, "%s: %s", plan_path, e.msg);
    goto done;
  }
  mp_figures f;
  json_t *jlb = json_object_get(plan, "lower_bound");
  int64_t lb = json_is_integer(jlb) ? json_integer_value(jlb) : 0;
  mp_evaluate(&p, off, lb, mp_given_baseline(in, align), &f);
  if (lb > f.live_peak)
    rc = mp_errorf(err, "%s: lower_bound %lld exceeds the live peak %lld", plan_path, (long long)lb,
                   (long long)f.live_peak);
  else if (lb > 0 && lb < mp_node_lower_bound(g))
    rc = mp_errorf(err, "%s: lower_bound %lld is below the per-node bound %lld", plan_path,
                   (long long)lb, (long long)mp_node_lower_bound(g));
  if (!rc) rc = check_fig(plan, "live_peak", (double)f.live_peak, true, err);
  if (!rc) rc = check_fig(plan, "arena", (double)f.arena, true, err);
  if (!rc) rc = check_fig(plan, "sum_sizes", (double)f.sum_sizes, true, err);
  if (!rc) rc = check_fig(plan, "buffers", (double)g->n_buf, true, err);
  if (!rc) rc = check_fig(plan, "nodes", (double)g->n, true, err);
  if (!rc) rc = check_fig(plan, "fragmentation", f.fragmentation, false, err);
  if (!rc) rc = check_fig(plan, "reuse_ratio", f.reuse_ratio, false, err);
  if (!rc) rc = check_fig(plan, "profile_std", f.profile_std, false, err);
  if (!rc) rc = check_fig(plan, "reduction_vs_noreuse", f.reduction_vs_noreuse, false, err);
  if (!rc) rc = check_fig(plan, "reduction_vs_given", f.reduction_vs_given, false, err);
  if (rc && strncmp(err->msg, plan_path, strlen(plan_path)) != 0) {
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%.200s: %.300s", plan_path, err->msg);
    memcpy(err->msg, tmp, sizeof err->msg);
  }
done:
  if (p.items) free(p.items);
  free(order);
  free(off);
  /* a plan made for another graph: say so first (a renamed copy of the
   * same graph still verifies) */
  json_t *jg = json_object_get(plan, "graph");
  if (rc && err && json_is_string(jg) && strcmp(json_string_value(jg), mp_instance_name(in))) {
    mp_error why = *err;
    mp_errorf(err, "%s: the plan is for graph '%s', not for '%s' (%s): %s", plan_path,
              json_string_value(jg), mp_instance_name(in), g->file ? g->file : "", why.msg);
  }
  json_decref(plan);
  return rc ? -1 : 0;
}
