/* fuzz_nodelink.c - the nodelink reader (and what a loaded instance feeds). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_instance(data, size, ".json", "nodelink");
}
