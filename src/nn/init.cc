#include "hhlo/nn/init.h"

#include <cmath>
#include <random>

namespace hhlo::nn {
namespace {

double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) / 9007199254740992.0;
}

Array fill(const Dims& shape, DType dtype, uint64_t seed, bool normal, double scale) {
  if (dtype != DType::f32 && dtype != DType::f64) throw Error("initializers support f32 and f64");
  Array a(dtype, shape);
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    double v;
    if (normal) {  // Box-Muller
      double u1 = 1.0 - uniform01(rng), u2 = uniform01(rng);
      v = scale * std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2);
    } else {
      v = scale * (2.0 * uniform01(rng) - 1.0);
    }
    if (dtype == DType::f32)
      static_cast<float*>(a.data())[i] = static_cast<float>(v);
    else
      static_cast<double*>(a.data())[i] = v;
  }
  return a;
}

}  // namespace

std::pair<int64_t, int64_t> fans(const Dims& shape) {
  if (shape.empty()) return {1, 1};
  if (shape.size() == 1) return {shape[0], shape[0]};
  int64_t receptive = 1;
  for (size_t i = 0; i + 2 < shape.size(); ++i) receptive *= shape[i];
  return {receptive * shape[shape.size() - 2], receptive * shape.back()};
}

Array glorot_uniform(const Dims& shape, uint64_t seed, DType dtype) {
  auto [fi, fo] = fans(shape);
  return fill(shape, dtype, seed, false, std::sqrt(6.0 / static_cast<double>(fi + fo)));
}
Array glorot_normal(const Dims& shape, uint64_t seed, DType dtype) {
  auto [fi, fo] = fans(shape);
  return fill(shape, dtype, seed, true, std::sqrt(2.0 / static_cast<double>(fi + fo)));
}
Array he_uniform(const Dims& shape, uint64_t seed, DType dtype) {
  return fill(shape, dtype, seed, false, std::sqrt(6.0 / static_cast<double>(fans(shape).first)));
}
Array he_normal(const Dims& shape, uint64_t seed, DType dtype) {
  return fill(shape, dtype, seed, true, std::sqrt(2.0 / static_cast<double>(fans(shape).first)));
}
Array filled(const Dims& shape, double value, DType dtype) {
  Array a = fill(shape, dtype, 0, false, 0.0);
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (dtype == DType::f32)
      static_cast<float*>(a.data())[i] = static_cast<float>(value);
    else
      static_cast<double*>(a.data())[i] = value;
  }
  return a;
}

}  // namespace hhlo::nn
