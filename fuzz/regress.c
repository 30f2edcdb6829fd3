/* regress.c - replay fuzz inputs without libFuzzer: every file named on the
 * command line (or in a directory named there) goes through the target's
 * LLVMFuzzerTestOneInput once.  Built with the sanitizers by `make
 * test-asan`, it turns the committed corpus, and every crash the fuzzer
 * ever found (saved there), into regression tests. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "regress: cannot read %s\n", path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0, got;
  uint8_t *buf = malloc(cap);
  while ((got = fread(buf + n, 1, cap - n, f)) > 0)
    if ((n += got) == cap) buf = realloc(buf, cap *= 2);
  fclose(f);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int rc = 0, files = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      struct dirent **ents;
      int k = scandir(argv[i], &ents, NULL, alphasort);
      for (int j = 0; j < k; j++) {
        if (ents[j]->d_name[0] != '.') {
          char p[4096];
          snprintf(p, sizeof p, "%s/%s", argv[i], ents[j]->d_name);
          rc |= run_file(p);
          files++;
        }
        free(ents[j]);
      }
      free(ents);
    } else {
      rc |= run_file(argv[i]);
      files++;
    }
  }
  if (files == 0) fprintf(stderr, "regress: no input files\n");
  return rc || files == 0;
}
