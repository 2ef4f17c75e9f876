// Finite-difference checks of the convolution and reduce_window rules.
#include <gtest/gtest.h>

#include <limits>

#include "gradcheck_util.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::check_grad;
using test::rand_f64;
using Vs = std::vector<Value>;

ConvDimensionNumbers nhwc() { return conv_dimension_numbers("NHWC", "HWIO", "NHWC"); }
ConvDimensionNumbers nchw_oihw() { return conv_dimension_numbers("NCHW", "OIHW", "NCHW"); }

TEST(AutodiffConv, NhwcStridedPadded) {
  ConvOptions o{.window_strides = {2, 1}, .padding = {{1, 1}, {0, 2}}};
  check_grad({rand_f64({2, 5, 4, 3}, 1), rand_f64({3, 2, 3, 2}, 2)},
             [&](const Vs& a) { return convolution(a[0], a[1], nhwc(), o); });
}

TEST(AutodiffConv, NchwWithRhsDilation) {
  ConvOptions o{.padding = {{1, 1}, {1, 1}}, .rhs_dilation = {2, 1}};
  check_grad({rand_f64({1, 2, 5, 5}, 3), rand_f64({3, 2, 2, 3}, 4)},
             [&](const Vs& a) { return convolution(a[0], a[1], nchw_oihw(), o); });
}

TEST(AutodiffConv, TransposedConvolutionViaLhsDilation) {
  ConvOptions o{.padding = {{1, 1}, {1, 1}}, .lhs_dilation = {2, 2}};
  check_grad({rand_f64({1, 3, 3, 2}, 5), rand_f64({2, 2, 2, 2}, 6)},
             [&](const Vs& a) { return convolution(a[0], a[1], nhwc(), o); });
}

TEST(AutodiffConv, FeatureGroups) {
  ConvOptions o{.feature_group_count = 2};
  check_grad({rand_f64({2, 4, 4, 4}, 7), rand_f64({2, 2, 2, 6}, 8)},
             [&](const Vs& a) { return convolution(a[0], a[1], nhwc(), o); });
}

TEST(AutodiffConv, BatchGroups) {
  ConvOptions o{.batch_group_count = 2};
  check_grad({rand_f64({4, 3, 3, 2}, 9), rand_f64({2, 2, 2, 4}, 10)},
             [&](const Vs& a) { return convolution(a[0], a[1], nhwc(), o); });
}

Value window_reduce(Value x, const char* op, std::vector<int64_t> win, WindowOptions o) {
  double init = std::string(op) == "add" ? 0.0 : std::string(op) == "maximum" ? -1e300 : 1e300;
  return reduce_window({x}, {constant(x.func(), init, DType::f64)}, std::move(win), o,
                       [op](const Vs& a) { return Vs{binary(op, a[0], a[1])}; })[0];
}

TEST(AutodiffReduceWindow, SumWithStridesPaddingAndDilations) {
  WindowOptions o{.window_strides = {1, 2, 1},
                  .base_dilations = {1, 1, 2},
                  .window_dilations = {1, 2, 1},
                  .padding = {{0, 0}, {1, 2}, {1, 0}}};
  check_grad({rand_f64({2, 5, 3}, 11)}, [&](const Vs& a) {
    return window_reduce(a[0], "add", {1, 2, 2}, o);
  });
}

TEST(AutodiffReduceWindow, MaxAndMinPoolingWithPadding) {
  WindowOptions o{.window_strides = {1, 2, 2, 1}, .padding = {{0, 0}, {1, 0}, {0, 1}, {0, 0}}};
  for (const char* op : {"maximum", "minimum"}) {
    SCOPED_TRACE(op);
    check_grad({rand_f64({2, 5, 4, 2}, 12)}, [&](const Vs& a) {
      return window_reduce(a[0], op, {1, 3, 2, 1}, o);
    });
  }
}

TEST(AutodiffReduceWindow, OverlappingMaxWindowsAccumulate) {
  // 1-D [1, 5, 2] with window 2, stride 1: windows (1,5) (5,2) both pick 5, which gets both
  // cotangents.
  auto g = check_grad({Array::from<double>({3}, {1, 5, 2})},
                      [](const Vs& a) { return window_reduce(a[0], "maximum", {2}, {}); });
  auto w = test::rand_f64({2}, 12345, 0.5, 1.5).to_vector<double>();
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{0, w[0] + w[1], 0}));
}

}  // namespace
}  // namespace hhlo
