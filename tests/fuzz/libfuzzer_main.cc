// The libFuzzer executable of one entry point (HHLO_FUZZ_ENTRY, set per executable by
// tests/fuzz/CMakeLists.txt under HHLO_FUZZ; `make fuzz`).
#include <cstddef>
#include <cstdint>

#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return HHLO_FUZZ_ENTRY(data, size);
}
