/* fuzz_common.h - what the fuzz targets share: the input as a file (the
 * readers take paths), and the checks run on whatever loads. */
#ifndef MP_FUZZ_COMMON_H
#define MP_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Write data to a scratch file ending in `suffix`; returns its path
 * (static storage, one per suffix use). */
const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix);

/* Load data as an instance in `format` (--input-format) and, when it loads,
 * exercise it: figures of the given order, a default solve that must
 * verify, and for graphs a round trip through both writers that must keep
 * every figure (else abort: the fuzzer reports it). */
int fuzz_instance(const uint8_t *data, size_t size, const char *suffix, const char *format);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
