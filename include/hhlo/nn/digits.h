// The UCI optical handwritten digits data (scikit-learn's `load_digits`: 1,797 8x8 images with
// pixel values 0..16, 10 classes), read from the gzip CSV the set-up extracts.
#pragma once

#include <cstdint>
#include <string>

#include "hhlo/core/array.h"

namespace hhlo::nn {

/// A fixed train/test split: x f32 [n, 64] scaled to [0, 1], y i32 [n].
struct Digits {
  Array x_train, y_train, x_test, y_test;
};

/// Reads `path` (gzip CSV: 64 pixel columns then the label per row) and splits it: rows are
/// shuffled with std::mt19937_64(`seed`) (Fisher-Yates, our own index draw, identical on every
/// platform); the first `test_size` go to the test set.
/// Throws hhlo::IoError on a missing file or a malformed row.
Digits load_digits(const std::string& path, int64_t test_size = 360, uint64_t seed = 0);

/// Fisher-Yates permutation of [0, n) from `rng_seed` (the draw load_digits and the demo use).
std::vector<int64_t> permutation(int64_t n, uint64_t rng_seed);

}  // namespace hhlo::nn
