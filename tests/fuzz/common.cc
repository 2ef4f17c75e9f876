// fuzz_fail: shared by the libFuzzer executables and the replay test.
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "fuzz.h"

namespace hhlo::fuzz {
namespace {
const std::string* failure_input = nullptr;
}  // namespace

void set_failure_input(const std::string* bytes) { failure_input = bytes; }

void fuzz_fail(std::string_view target, std::string_view what) {
  std::fprintf(stderr, "hhlo fuzz target '%.*s': %.*s\n", static_cast<int>(target.size()),
               target.data(), static_cast<int>(what.size()), what.data());
  if (failure_input) {
    std::string path = "fuzz-failure-" + std::string(target);
    std::ofstream(path, std::ios::binary) << *failure_input;
    std::fprintf(stderr, "the input (%zu bytes) is in %s\n", failure_input->size(), path.c_str());
  }
  std::abort();
}

}  // namespace hhlo::fuzz
