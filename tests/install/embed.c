/* embed.c - a program that embeds the planner the way a compiler or a
 * runtime would: only <memplan.h>, built against the installed library
 * through pkg-config (tests/install.sh).
 *
 *   embed GRAPH ORDER PLACE PLAN_OUT
 * plans GRAPH, checks the plan in memory and as a file, prints the figures;
 * plans it again with a recomputation stage (keepall, the budget at the
 * order's live peak) and checks the event plan in memory and as a file;
 * then plans three buffers given as arrays, and generates a graph, writes it
 * and reads it back.  Exit 0 when every check holds. */
#include <memplan.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, const memplan_error *err) {
  fprintf(stderr, "embed: %s: %s\n", what, err ? err->msg : "");
  return 1;
}

static int plan_graph(const char *path, const char *order, const char *place, const char *out) {
  memplan_instance *in;
  memplan_result *res;
  memplan_error err;
  if (memplan_instance_load(&in, path, NULL, &err)) return fail("load", &err);
  memplan_request req;
  memplan_request_init(&req);
  req.order = order;
  req.place = place;
  if (memplan_solve(in, &req, &res, &err)) return fail("solve", &err);
  memplan_figures f;
  memplan_result_figures(res, &f);
  printf("status %s order %s place %s\n", memplan_status_name(memplan_result_status(res)),
         memplan_status_name(memplan_result_order_status(res)),
         memplan_status_name(memplan_result_place_status(res)));
  printf("live_peak %lld arena %lld lower_bound %lld given_arena %lld\n", (long long)f.live_peak,
         (long long)f.arena, (long long)f.lower_bound, (long long)f.given_arena);
  const int *ord;
  const int64_t *off;
  int n = memplan_result_order(res, &ord), nb = memplan_result_offsets(res, &off);
  int64_t top = 0;
  for (int b = 0; b < nb; b++) {
    memplan_buffer buf;
    if (memplan_result_buffer(res, b, &buf)) return fail("buffer", NULL);
    if (buf.offset + buf.size > top) top = buf.offset + buf.size;
  }
  printf("nodes %d buffers %d top %lld\n", n, nb, (long long)top);
  if (top != f.arena) return fail("the buffers do not reach the arena", NULL);
  if (memplan_verify_plan(in, ord, off, 0, &err)) return fail("verify in memory", &err);
  if (memplan_result_write_plan(res, out, &err)) return fail("write", &err);
  if (memplan_verify_file(in, out, 0, &err)) return fail("verify the file", &err);
  printf("verified\n");
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
  return 0;
}

/* A recomputation stage: the budget, the figures of DESIGN 6.3, the events
 * (checked in memory by the judge), the plan file (checked again). */
static int plan_remat(const char *path, const char *order, const char *place, const char *out) {
  memplan_instance *in;
  memplan_result *res;
  memplan_error err;
  if (memplan_instance_load(&in, path, NULL, &err)) return fail("load", &err);
  memplan_request req;
  memplan_request_init(&req);
  req.order = order;
  req.place = place;
  req.remat = "keepall";
  req.budget_frac = "1";
  if (memplan_solve(in, &req, &res, &err)) return fail("remat solve", &err);
  memplan_figures f;
  memplan_result_figures(res, &f);
  int n = memplan_result_event_count(res);
  printf("remat %s budget %lld live_peak %lld duration %g recomputed %lld events %d\n",
         memplan_status_name(memplan_result_remat_status(res)), (long long)f.budget,
         (long long)f.live_peak, f.duration, (long long)f.recomputed, n);
  memplan_event ev[256];
  if (n > 256) return fail("more events than embed expects", NULL);
  for (int i = 0; i < n; i++)
    if (memplan_result_event(res, i, &ev[i])) return fail("event", NULL);
  const int64_t *off;
  memplan_result_offsets(res, &off);
  if (memplan_verify_events(in, n, ev, -1, f.budget, off, 0, &err)) return fail("verify events", &err);
  if (memplan_result_write_plan(res, out, &err)) return fail("write the event plan", &err);
  if (memplan_verify_file(in, out, 0, &err)) return fail("verify the event plan file", &err);
  printf("remat verified\n");
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
  return f.budget == f.live_peak ? 0 : fail("keepall at budget-frac 1 peaks at the budget", NULL);
}

/* Three buffers: a and b live together, c after a. */
static int plan_arrays(void) {
  const int64_t size[] = {100, 50, 100}, lo[] = {0, 0, 2}, hi[] = {2, 4, 4};
  memplan_instance *in;
  memplan_result *res;
  memplan_error err;
  if (memplan_instance_from_lifetimes(&in, 3, size, lo, hi, NULL, NULL, &err)) return fail("arrays", &err);
  memplan_request req;
  memplan_request_init(&req);
  if (memplan_solve(in, &req, &res, &err)) return fail("solve arrays", &err);
  memplan_figures f;
  memplan_result_figures(res, &f);
  printf("arrays arena %lld status %s\n", (long long)f.arena,
         memplan_status_name(memplan_result_status(res)));
  memplan_result_destroy(res);
  memplan_instance_destroy(in);
  return f.arena == 150 ? 0 : fail("three buffers need 150 bytes", NULL);
}

/* A generated series-parallel graph, written as node-link JSON and read
 * back with the same figures. */
static int gen_graph(const char *out) {
  memplan_gen_opts o;
  memplan_gen_opts_init(&o);
  o.family = "sp";
  o.n = 30;
  memplan_instance *g, *back;
  memplan_error err;
  if (memplan_gen(&g, &o, &err)) return fail("gen", &err);
  if (memplan_instance_write(g, out, "nodelink", &err)) return fail("write the graph", &err);
  if (memplan_instance_load(&back, out, NULL, &err)) return fail("read the graph back", &err);
  memplan_instance_info a, b;
  memplan_instance_info_get(g, &a);
  memplan_instance_info_get(back, &b);
  printf("gen nodes %d live_peak %lld back %d %lld\n", a.nodes, (long long)a.live_peak, b.nodes,
         (long long)b.live_peak);
  memplan_instance_destroy(back);
  memplan_instance_destroy(g);
  return a.nodes == b.nodes && a.live_peak == b.live_peak ? 0 : fail("gen round trip", NULL);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: embed GRAPH ORDER PLACE PLAN_OUT\n");
    return 2;
  }
  printf("api %d, %d solvers\n", memplan_api_version(), memplan_solver_count());
  printf("commit %s\n", memplan_commit());
  if (memplan_solver_index(argv[2]) < 0 || memplan_solver_index(argv[3]) < 0)
    return fail("unknown solver", NULL);
  char remat_out[4096], gen_out[4096];
  snprintf(remat_out, sizeof remat_out, "%s.remat.json", argv[4]);
  snprintf(gen_out, sizeof gen_out, "%s.gen.json", argv[4]);
  return plan_graph(argv[1], argv[2], argv[3], argv[4]) ||
         plan_remat(argv[1], argv[2], argv[3], remat_out) || plan_arrays() || gen_graph(gen_out);
}
