// Parameter initializers: host arrays drawn from a seeded generator (deterministic across runs
// and platforms: std::mt19937_64 with our own uniform / Box-Muller transforms).
#pragma once

#include <cstdint>

#include "hhlo/core/array.h"

namespace hhlo::nn {

/// Fan-in and fan-out of a weight shape: dense [in, out]; conv HWIO [kh, kw, in, out] gives
/// (kh*kw*in, kh*kw*out). Rank 1: (n, n).
std::pair<int64_t, int64_t> fans(const Dims& shape);
/// Glorot (Xavier) uniform: U(-l, l), l = sqrt(6 / (fan_in + fan_out)).
Array glorot_uniform(const Dims& shape, uint64_t seed, DType dtype = DType::f32);
/// Glorot normal: N(0, 2 / (fan_in + fan_out)).
Array glorot_normal(const Dims& shape, uint64_t seed, DType dtype = DType::f32);
/// He (Kaiming) uniform: U(-l, l), l = sqrt(6 / fan_in).
Array he_uniform(const Dims& shape, uint64_t seed, DType dtype = DType::f32);
/// He normal: N(0, 2 / fan_in).
Array he_normal(const Dims& shape, uint64_t seed, DType dtype = DType::f32);
/// Filled with `value` (f32/f64).
Array filled(const Dims& shape, double value, DType dtype = DType::f32);

}  // namespace hhlo::nn
