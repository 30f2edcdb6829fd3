/* fuzz_experiment.c - the experiment-file parser of src/bench.c, and the
 * matrix an experiment that loads expands to (its chains, pairs and remat
 * axes), over one tiny graph beside it: "fuzz-g.json". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "fuzz_common.h"
#include "util.h"

/* The graph the experiments may name, in the directory of `path`; the
 * manifest is one there that does not exist (never the repository's,
 * whose graphs are too big to digest at each execution). */
static void beside(const char *path, mp_experiment *e) {
  char dir[256], file[300];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  snprintf(file, sizeof file, "%s/fuzz-g.json", dir);
  static int written;
  if (!written) {
    FILE *f = fopen(file, "w");
    if (!f) abort();
    fputs("{\"nodes\": [{\"id\": 0, \"op\": \"input\", \"size\": 8, \"inputs\": []},"
          " {\"id\": 1, \"size\": 4, \"inputs\": [0], \"cost\": 1}]}\n", f);
    fclose(f);
    written = 1;
  }
  snprintf(file, sizeof file, "%s/fuzz-no-manifest.json", dir);
  free(e->manifest);
  e->manifest = mp_xstrdup(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".exp.json");
  mp_experiment e;
  char msg[1024];
  if (mp_experiment_load(path, &e, msg, sizeof msg) == 0 &&
      mp_experiment_check_options(&e, msg, sizeof msg) == 0) {
    beside(path, &e);
    mp_matrix m;
    if (mp_matrix_build(&e, &m, msg, sizeof msg) == 0) mp_matrix_destroy(&m);
  }
  mp_experiment_destroy(&e);
  unlink(path);
  return 0;
}
