/* fuzz_plan.c - plan verification: the plan file reader and the verifier
 * (DESIGN 1.5).  The first byte chooses the instance (a small graph with
 * views, an in-place write, two outputs and a workspace, or a CSV
 * problem); the rest is the plan file. */
#include <stdlib.h>
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
static const char csv[] = "id,lower,upper,size,alignment\na,0,3,64,8\nb,1,4,32,1\nc,3,6,64,64\n";

static mp_instance *instance(int which) {
  static mp_instance in[2];
  static bool loaded[2];
  if (!loaded[which]) {
    const char *path = which ? fuzz_file((const uint8_t *)csv, sizeof csv - 1, ".inst.csv")
                             : fuzz_file((const uint8_t *)graph, sizeof graph - 1, ".inst.json");
    mp_error err;
    if (mp_instance_load(path, NULL, &in[which], &err)) abort();
    unlink(path);
    loaded[which] = true;
  }
  return &in[which];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int which = data[0] & 1;
  mp_instance *in = instance(which);
  const char *path = fuzz_file(data + 1, size - 1, which ? ".plan.csv" : ".plan.json");
  mp_error err;
  (void)mp_plan_verify(in, path, data[0] & 2 ? 8 : 0, &err);
  return 0;
}
