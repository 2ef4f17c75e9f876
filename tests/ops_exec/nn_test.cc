// Execution: convolution, reduce_window, select_and_scatter, batch_norm_*. Expected values from
// jax.lax (conv_general_dilated, reduce_window, its VJP) and NumPy, generated once and pasted.
#include <gtest/gtest.h>

#include <limits>

#include "exec_util.h"
#include "exec_util_near.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::expect_near;
using test::run;
using test::values;
TensorType f32(Dims d) { return {DType::f32, std::move(d)}; }

ConvDimensionNumbers nchw() { return conv_dimension_numbers("NCHW", "OIHW", "NCHW"); }

Array iota_array(Dims d, float start, float scale = 1) {
  Array a(DType::f32, d);
  auto v = a.values<float>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = (start + static_cast<float>(i)) * scale;
  return a;
}

TEST(NnExec, Convolution) {
  Module m;
  Func& f = m.add_func("main", {f32({1, 1, 5, 5}), f32({1, 1, 3, 3}), f32({1, 4, 3, 3}),
                                f32({4, 2, 2, 2}), f32({1, 3, 3, 2}), f32({2, 2, 2, 3})});
  Value x = f.arg(0), k = f.arg(1);
  ConvDimensionNumbers nhwc = conv_dimension_numbers("NHWC", "HWIO", "NHWC");
  f.ret({convolution(x, k, nchw()),
         convolution(x, k, nchw(), {.window_strides = {2, 2}, .padding = {{1, 1}, {1, 1}}}),
         convolution(x, k, nchw(), {.lhs_dilation = {2, 1}, .rhs_dilation = {1, 2}}),
         convolution(f.arg(2), f.arg(3), nchw(), {.feature_group_count = 2}),
         convolution(f.arg(4), f.arg(5), nhwc,
                     {.precision_config = {Precision::HIGHEST, Precision::HIGHEST}})});
  Array kernel = Array::from<float>({1, 1, 3, 3}, {1, 0, -1, 2, 0, -2, 1, 0, -1});
  Array ones(DType::f32, {2, 2, 2, 3});
  for (float& v : ones.values<float>()) v = 1;
  auto out = run(m, {iota_array({1, 1, 5, 5}, 1), kernel, iota_array({1, 4, 3, 3}, 1),
                     iota_array({4, 2, 2, 2}, 1, 0.5f), iota_array({1, 3, 3, 2}, 1), ones});
  EXPECT_EQ(values(out[0]), std::vector<double>(9, -8));
  EXPECT_EQ(values(out[1]), (std::vector<double>{-11, -6, 17, -48, -8, 56, -61, -6, 67}));
  EXPECT_EQ(out[2].dims(), (Dims{1, 1, 7, 1}));
  EXPECT_EQ(values(out[2]), std::vector<double>(7, -8));
  EXPECT_EQ(values(out[3]), (std::vector<double>{178, 196, 232, 250, 418, 468, 568, 618, 2134, 2216,
                                                 2380, 2462, 2950, 3064, 3292, 3406}));
  EXPECT_EQ(values(out[4]),
            (std::vector<double>{44, 44, 44, 60, 60, 60, 92, 92, 92, 108, 108, 108}));
}

TEST(NnExec, ReduceWindowAndSelectAndScatter) {
  Module m;
  Func& f = m.add_func("main", {f32({3, 4}), f32({2, 2})});
  Value y = f.arg(0);
  Value ninf = constant(f, -std::numeric_limits<float>::infinity(), DType::f32);
  Value zero = constant(f, 0.0f, DType::f32);
  auto mx = [](const std::vector<Value>& a) { return std::vector<Value>{maximum(a[0], a[1])}; };
  auto sm = [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; };
  Value rmax = reduce_window({y}, {ninf}, {2, 2}, {.window_strides = {1, 2}}, mx)[0];
  Value rsum = reduce_window({y}, {zero}, {2, 2}, {.padding = {{1, 0}, {0, 1}}}, sm)[0];
  Value sas = select_and_scatter(
      y, f.arg(1), zero, {2, 2}, {1, 2}, {},
      [](Value a, Value b) { return compare(a, b, ComparisonDirection::GE); },
      [](Value a, Value b) { return add(a, b); });
  f.ret({rmax, rsum, sas});
  auto out = run(m, {Array::from<float>({3, 4}, {1, 5, 2, 0, 3, 4, 8, 1, 0, 2, 9, 7}),
                     Array::from<float>({2, 2}, {10, 20, 30, 40})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{5, 8, 4, 9}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{6, 7, 2, 0, 13, 19, 11, 1, 9, 23, 25, 8}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{0, 10, 0, 0, 0, 30, 20, 0, 0, 0, 40, 0}));
}

TEST(NnExec, BatchNorm) {
  Module m;
  Func& f = m.add_func("main", {f32({3, 2}), f32({2}), f32({2}), f32({3, 2})});
  Value x = f.arg(0), s = f.arg(1), o = f.arg(2), g = f.arg(3);
  auto tr = batch_norm_training(x, s, o, 1e-3f, 1);
  Value inf = batch_norm_inference(x, s, o, tr[1], tr[2], 1e-3f, 1);
  auto gr = batch_norm_grad(x, s, tr[1], tr[2], g, 1e-3f, 1);
  f.ret({tr[0], tr[1], tr[2], inf, gr[0], gr[1], gr[2]});
  auto out =
      run(m, {Array::from<float>({3, 2}, {1, 2, 3, 4, 5, 6}), Array::from<float>({2}, {2, 0.5f}),
              Array::from<float>({2}, {1, -1}), Array::from<float>({3, 2}, {1, 0, 0, 1, 1, 1})});
  std::vector<double> norm = {-1.4490306377410889, -1.612257719039917, 1.0, -1.0,
                              3.449030637741089,   -0.3877423405647278};
  expect_near(values(out[0]), norm);
  expect_near(values(out[1]), {3, 4});
  expect_near(values(out[2]), {2.6666667461395264, 2.6666667461395264});
  expect_near(values(out[3]), norm);
  expect_near(values(out[4]), {0.40817177295684814, -0.051078855991363525, -0.8163435459136963,
                               0.10204294323921204, 0.40817177295684814, -0.05096408724784851});
  expect_near(values(out[5]), {0.0, 1.2245153188705444});
  expect_near(values(out[6]), {2, 2});
}

}  // namespace
}  // namespace hhlo
