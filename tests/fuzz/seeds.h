// Seed inputs of the fuzz entry points (fuzz.h), from the test files: the build's generated .npy
// and .npz files and the committed vectors, the JAX texts the parser tests use and the StableHLO
// conformance corpus, command lines built from those; plus the saved crash inputs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hhlo::fuzz {

/// One seed: where it came from (a path, or a name for a built one) and its bytes.
struct Seed {
  std::string name;
  std::string bytes;
};

/// The seed corpus of `target` (a name of kTargets), from the test files of this build. `limit`
/// caps the number of files taken from any large folder (0: all).
std::vector<Seed> seeds(std::string_view target, size_t limit = 0);

/// The saved inputs of `target` that once crashed it (tests/fuzz/regressions/<target>/).
std::vector<Seed> regressions(std::string_view target);

}  // namespace hhlo::fuzz
