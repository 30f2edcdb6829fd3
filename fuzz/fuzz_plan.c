/* fuzz_plan.c - plan verification: the plan file reader and the verifier
 * (DESIGN 1.5).  The first byte chooses the instance (a small graph with
 * views, an in-place write, two outputs and a workspace, or a CSV
 * problem; with bit 4, a graph with costs for event plans, DESIGN 6.2);
 * the rest is the plan file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "run.h"

static const char graph[] =
    "{\"name\": \"g\", \"nodes\": ["
    "{\"id\": 0, \"op\": \"input\", \"size\": 64, \"inputs\": []},"
    "{\"id\": 1, \"outputs\": [128, 32], \"inputs\": [0], \"workspace\": 16},"
    "{\"id\": 2, \"size\": 0, \"inputs\": [[1, 0]], \"alias\": [1, 0]},"
    "{\"id\": 3, \"size\": 128, \"inputs\": [2], \"alias\": 2, \"inplace\": true},"
    "{\"id\": 4, \"size\": 48, \"inputs\": [3, [1, 1]]}]}";
/* event plans (bit 4): a training-like graph with costs, a host link,
 * views, an in-place write, two outputs and a workspace; or (bit 8 too)
 * graphs/examples/seed_example.json, default costs, no host link */
static const char ev_graph[] =
    "{\"name\": \"ev\", \"host_bandwidth\": 512, \"nodes\": ["
    "{\"id\": 0, \"op\": \"input\", \"size\": 16, \"inputs\": []},"
    "{\"id\": 1, \"outputs\": [256, 32], \"inputs\": [0], \"workspace\": 16, \"cost\": 2},"
    "{\"id\": 2, \"size\": 64, \"inputs\": [[1, 0]], \"cost\": 1},"
    "{\"id\": 3, \"size\": 0, \"inputs\": [2], \"alias\": 2},"
    "{\"id\": 4, \"size\": 64, \"inputs\": [3], \"alias\": 3, \"inplace\": true, \"cost\": 0.5},"
    "{\"id\": 5, \"size\": 256, \"inputs\": [4], \"cost\": 1.5},"
    "{\"id\": 6, \"size\": 256, \"inputs\": [5], \"cost\": 1},"
    "{\"id\": 7, \"size\": 256, \"inputs\": [6], \"cost\": 1},"
    "{\"id\": 8, \"size\": 64, \"inputs\": [7, 6], \"cost\": 1},"
    "{\"id\": 9, \"size\": 64, \"inputs\": [8, 5], \"cost\": 1},"
    "{\"id\": 10, \"size\": 64, \"inputs\": [9, 4], \"cost\": 1},"
    "{\"id\": 11, \"size\": 64, \"inputs\": [10, [1, 0], [1, 1]], \"cost\": 3},"
    "{\"id\": 12, \"op\": \"output\", \"size\": 0, \"inputs\": [11]}]}";
static const char seed_graph[] =
    "{\"name\":\"seed_example\",\"nodes\":["
    "{\"id\":0,\"name\":\"A\",\"op\":\"op1\",\"size\":4194304,\"inputs\":[]},"
    "{\"id\":1,\"name\":\"B\",\"op\":\"op2\",\"size\":8388608,\"inputs\":[]},"
    "{\"id\":2,\"name\":\"C\",\"op\":\"op3\",\"size\":4194304,\"inputs\":[0]},"
    "{\"id\":3,\"name\":\"D\",\"op\":\"op4\",\"size\":0,\"inputs\":[1]}]}";
static const char csv[] = "id,lower,upper,size,alignment\na,0,3,64,8\nb,1,4,32,1\nc,3,6,64,64\n";

static mp_instance *instance(int which) {
  static const char *const text[] = {graph, csv, ev_graph, seed_graph};
  static mp_instance in[4];
  static bool loaded[4];
  if (!loaded[which]) {
    const char *path = fuzz_file((const uint8_t *)text[which], strlen(text[which]),
                                 which == 1 ? ".inst.csv" : ".inst.json");
    mp_error err;
    if (mp_instance_load(path, NULL, &in[which], &err)) abort();
    unlink(path);
    loaded[which] = true;
  }
  return &in[which];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int which = data[0] & 1 ? 1 : data[0] & 4 ? (data[0] & 8 ? 3 : 2) : 0;
  mp_instance *in = instance(which);
  const char *path = fuzz_file(data + 1, size - 1, which == 1 ? ".plan.csv" : ".plan.json");
  mp_error err;
  mp_err rc = mp_plan_verify(in, path, data[0] & 2 ? 8 : 0, &err);
  if (getenv("MP_FUZZ_VERBOSE")) fprintf(stderr, "%s\n", rc ? err.msg : "valid"); /* a seed's verdict */
  return 0;
}
