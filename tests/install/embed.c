/* embed.c - a program that embeds the planner the way a compiler or a
 * runtime would: only <memplan.h>, built against the installed library
 * through pkg-config (tests/install.sh).
 *
 *   embed GRAPH ORDER PLACE PLAN_OUT
 * plans GRAPH, checks the plan in memory and as a file, prints the figures;
 * then plans three buffers given as arrays.  Exit 0 when every check holds. */
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

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: embed GRAPH ORDER PLACE PLAN_OUT\n");
    return 2;
  }
  printf("api %d, %d solvers\n", memplan_api_version(), memplan_solver_count());
  if (memplan_solver_index(argv[2]) < 0 || memplan_solver_index(argv[3]) < 0)
    return fail("unknown solver", NULL);
  return plan_graph(argv[1], argv[2], argv[3], argv[4]) || plan_arrays();
}
