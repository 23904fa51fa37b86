/* libfuzzer.c — one target as libFuzzer's entry point; the build picks it
 * with -DSKN_FUZZ_TARGET=skn_fuzz_gltf (bind, skin). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  SKN_FUZZ_TARGET(data, size);
  return 0;
}
