/* fuzz_experiment.c - the experiment-file parser of src/bench.c. */
#include <stdlib.h>

#include "bench.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".exp.json");
  mp_experiment e;
  char msg[1024];
  (void)mp_experiment_load(path, &e, msg, sizeof msg);
  mp_experiment_destroy(&e);
  return 0;
}
