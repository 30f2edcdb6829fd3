/* fuzz_common.c - scratch files and the checks of fuzz_common.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "graph_write.h"
#include "run.h"

const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix) {
  static char path[256];
  const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, sizeof path, "%s/memplan-fuzz-%ld%s", dir, (long)getpid(), suffix);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return path;
}

static void check(bool ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz: %s\n", what);
    abort();
  }
}

/* Write g with `dump`, read it back with the matching reader, compare. */
static void round_trip(const mp_graph *g, int (*dump)(const mp_graph *, FILE *), const char *fmt) {
  static char path[256];
  snprintf(path, sizeof path, "%s/memplan-fuzz-rt-%ld.json",
           access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
  FILE *f = fopen(path, "w");
  if (!f) abort();
  check(dump(g, f) == 0, "a writer failed");
  fclose(f);
  mp_load_opts lo = {.format = fmt};
  mp_instance back;
  mp_error err;
  if (mp_instance_load(path, &lo, &back, &err)) {
    fprintf(stderr, "fuzz: %s does not read back: %s\n", fmt, err.msg);
    abort();
  }
  const mp_graph *h = back.g;
  check(h->n == g->n && h->n_buf == g->n_buf, "round trip: nodes or buffers differ");
  check(h->n_data_edges == g->n_data_edges && h->n_inplace_edges == g->n_inplace_edges,
        "round trip: edges differ");
  check(mp_order_peak(h, h->given) == mp_order_peak(g, g->given), "round trip: live peak differs");
  check(mp_node_lower_bound(h) == mp_node_lower_bound(g), "round trip: lower bound differs");
  check(h->host_bandwidth == g->host_bandwidth, "round trip: host_bandwidth differs");
  for (int i = 0; i < g->n; i++) { /* both writers keep the given order */
    const mp_node *a = &g->nodes[g->given[i]], *b = &h->nodes[h->given[i]];
    check(a->n_out == b->n_out && a->workspace == b->workspace && a->inplace == b->inplace &&
              a->has_alias == b->has_alias && a->phase == b->phase && a->has_cost == b->has_cost,
          "round trip: a node differs");
    for (int k = 0; k < a->n_out; k++) check(a->out_size[k] == b->out_size[k], "round trip: a size differs");
    /* costs are written with 15 significant digits */
    check(fabs(a->cost - b->cost) <= 1e-14 * fabs(a->cost), "round trip: a cost differs");
  }
  mp_instance_destroy(&back);
  unlink(path);
}

static int dump_json(const mp_graph *g, FILE *f) { return mp_graph_dump_json(g, f, NULL); }

static void exercise(const mp_instance *in) {
  int size = in->g ? in->g->n_buf + in->g->n : in->fixed->n;
  if (size > 400) return; /* keep executions fast */
  if (in->g) {
    mp_problem p;
    mp_problem_from_order(in->g, in->g->given, 64, &p);
    check(mp_live_peak(&p) <= mp_sum_sizes(&p), "live peak above the sum of sizes");
    (void)mp_profile_std(&p);
    free(p.items);
    round_trip(in->g, mp_graph_dump_nodelink, "nodelink");
    round_trip(in->g, dump_json, "json");
  }
  mp_run_spec spec = {0};
  spec.seed = 1;
  mp_result r;
  int rc = mp_run(in, &spec, &r);
  check(rc == 0 && r.status != MP_ERROR, "the default solve failed");
  check(r.fig.arena >= r.fig.live_peak, "arena below the live peak");
  mp_result_destroy(&r);
}

int fuzz_instance(const uint8_t *data, size_t size, const char *suffix, const char *format) {
  const char *path = fuzz_file(data, size, suffix);
  mp_load_opts lo = {.format = format};
  mp_instance in;
  mp_error err;
  if (mp_instance_load(path, &lo, &in, &err) == 0) {
    exercise(&in);
    mp_instance_destroy(&in);
  }
  unlink(path);
  return 0;
}
