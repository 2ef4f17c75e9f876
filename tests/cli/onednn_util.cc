// Helpers of the oneDNN kernel tests (onednn_util.h).
#include "onednn_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace hhlo::test {

std::string tensor_text(const Dims& d, const char* dtype) {
  std::string s = "tensor<";
  for (int64_t n : d) s += std::to_string(n) + "x";
  return s + dtype + ">";
}

Array uniform_values(const Dims& d, uint32_t seed) {
  Array a(DType::f32, d);
  float* p = static_cast<float*>(a.data());
  uint32_t s = seed;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return a;
}

F32Difference f32_difference(const Array& a, const Array& b) {
  auto x = a.values<float>(), y = b.values<float>();
  EXPECT_EQ(x.size(), y.size());
  F32Difference d;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    d.worst = std::max(d.worst, static_cast<double>(std::fabs(x[i] - y[i])));
    d.scale = std::max(d.scale, static_cast<double>(std::fabs(x[i])));
  }
  return d;
}

}  // namespace hhlo::test
