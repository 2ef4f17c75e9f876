// Execution on the CPU plugin: the first-cut op set, checked against hand-derived values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "exec_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::run;
using test::values;
TensorType f32(Dims d) { return {DType::f32, std::move(d)}; }

TEST(Exec, AddAndUnary) {
  Module m;
  Func& f = m.add_func("main", {f32({3}), f32({3})});
  f.ret({add(f.arg(0), f.arg(1)), negate(f.arg(0)), exponential(f.arg(1)), sqrt(f.arg(1))});
  auto out = run(m, {Array::from<float>({3}, {1, 2, 3}), Array::from<float>({3}, {0, 1, 4})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 3, 7}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{-1, -2, -3}));
  EXPECT_NEAR(values(out[2])[1], std::exp(1.0), 1e-6);
  EXPECT_EQ(values(out[3]), (std::vector<double>{0, 1, 2}));
}

TEST(Exec, ConstantsExactEveryDtype) {
  Module m;
  Func& f = m.add_func("main", {});
  float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  Array fa = Array::from<float>({4}, {0.1f, nan, -inf, 1e-30f});
  Array da = Array::from<double>({2}, {0.1, 1e300});
  Array ia = Array::from<int8_t>({3}, {-128, 0, 127});
  Array ua = Array::from<uint64_t>({2}, {0, std::numeric_limits<uint64_t>::max()});
  Array pa = Array::from<bool>({2, 2}, std::vector<bool>{true, false, false, true});
  Array ha = Array::from<f16_t>({2}, {f16_t(1.5f), f16_t(-2.0f)});
  Array ba = Array::from<bf16_t>({2}, {bf16_t(3.0f), bf16_t(0.5f)});
  Array ca = Array::from<std::complex<float>>({2}, {{1, 2}, {3, -4}});
  f.ret({constant(f, fa), constant(f, da), constant(f, ia), constant(f, ua), constant(f, pa),
         constant(f, ha), constant(f, ba), constant(f, ca), constant(f, 7, DType::i32, {2}),
         constant(f, nan, DType::f32)});
  auto out = run(m);
  ASSERT_EQ(out.size(), 10u);
  EXPECT_TRUE(out[0] == fa);
  EXPECT_TRUE(out[1] == da);
  EXPECT_TRUE(out[2] == ia);
  EXPECT_TRUE(out[3] == ua);
  EXPECT_TRUE(out[4] == pa);
  EXPECT_TRUE(out[5] == ha);
  EXPECT_TRUE(out[6] == ba);
  EXPECT_TRUE(out[7] == ca);
  EXPECT_EQ(out[8].to_vector<int32_t>(), (std::vector<int32_t>{7, 7}));
  EXPECT_TRUE(std::isnan(out[9].to_vector<float>()[0]));
}

TEST(Exec, SplatAndEmptyConstants) {
  Module m;
  Func& f = m.add_func("main", {});
  f.ret({constant(f, Array::from<std::complex<float>>({2}, {{1, -2}, {1, -2}})),
         constant(f, Array(DType::f32, {0})), constant(f, 1.5, DType::bf16, {2}),
         constant(f, -3.0, DType::f16), constant(f, 1e-30f, DType::f32),
         constant(f, -std::numeric_limits<double>::infinity(), DType::f64)});
  auto out = run(m);
  auto c = out[0].to_vector<std::complex<float>>();
  EXPECT_EQ(c[1], std::complex<float>(1, -2));
  EXPECT_EQ(out[1].num_elements(), 0);
  EXPECT_EQ(static_cast<float>(out[2].to_vector<bf16_t>()[1]), 1.5f);
  EXPECT_EQ(static_cast<float>(out[3].to_vector<f16_t>()[0]), -3.0f);
  EXPECT_EQ(out[4].to_vector<float>()[0], 1e-30f);
  EXPECT_EQ(out[5].to_vector<double>()[0], -std::numeric_limits<double>::infinity());
}

TEST(Exec, CompareSelectClampConvert) {
  Module m;
  Func& f = m.add_func("main", {f32({4}), f32({4})});
  Value lt = compare(f.arg(0), f.arg(1), ComparisonDirection::LT);
  Value lo = constant(f, 0.0f, DType::f32), hi = constant(f, 2.0f, DType::f32);
  f.ret(
      {lt, select(lt, f.arg(0), f.arg(1)), clamp(lo, f.arg(0), hi), convert(f.arg(0), DType::i32)});
  auto out =
      run(m, {Array::from<float>({4}, {-1.5f, 2, 3.7f, 0}), Array::from<float>({4}, {0, 2, 1, 1})});
  EXPECT_EQ(out[0].to_vector<bool>(), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{-1.5, 2, 1, 0}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{0, 2, 2, 0}));
  EXPECT_EQ(out[3].to_vector<int32_t>(), (std::vector<int32_t>{-1, 2, 3, 0}));
}

TEST(Exec, ShapeOps) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3})});
  Value x = f.arg(0);
  Value io = iota(f, {DType::i32, {2, 3}}, 1);
  Value b = broadcast_in_dim(slice(x, {0, 0}, {1, 3}), {2, 1, 3}, {1, 2});
  f.ret({io, transpose(x, {1, 0}), reshape(x, {3, 2}), slice(x, {0, 0}, {2, 3}, {1, 2}), b,
         concatenate({x, x}, 0)});
  auto out = run(m, {Array::from<float>({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(out[2].dims(), (Dims{3, 2}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{1, 3, 4, 6}));
  EXPECT_EQ(values(out[4]), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(out[5].dims(), (Dims{4, 3}));
}

TEST(Exec, DotGeneralBatched) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 2, 3}), f32({2, 3, 1})});
  DotDimensionNumbers dn{.lhs_batching_dimensions = {0},
                         .rhs_batching_dimensions = {0},
                         .lhs_contracting_dimensions = {2},
                         .rhs_contracting_dimensions = {1}};
  f.ret({dot_general(f.arg(0), f.arg(1), dn,
                     {.precision_config = {Precision::HIGHEST, Precision::HIGHEST}})});
  auto out = run(m, {Array::from<float>({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0}),
                     Array::from<float>({2, 3, 1}, {1, 1, 1, 7, 8, 9})});
  EXPECT_EQ(out[0].dims(), (Dims{2, 2, 1}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{6, 15, 7, 8}));
}

TEST(Exec, ReduceTwoOperandsArgmax) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3})});
  Value idx = iota(f, {DType::i32, {2, 3}}, 1);
  Value ninf = constant(f, -std::numeric_limits<float>::infinity(), DType::f32);
  Value zero = constant(f, 0, DType::i32);
  auto r = reduce({f.arg(0), idx}, {ninf, zero}, {1}, [](const std::vector<Value>& a) {
    Value take = compare(a[2], a[0], ComparisonDirection::GT);
    return std::vector<Value>{select(take, a[2], a[0]), select(take, a[3], a[1])};
  });
  f.ret({r[0], r[1]});
  auto out = run(m, {Array::from<float>({2, 3}, {1, 9, 3, 8, 2, 5})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{9, 8}));
  EXPECT_EQ(out[1].to_vector<int32_t>(), (std::vector<int32_t>{1, 0}));
}

TEST(Exec, FuncCall) {
  Module m;
  Func& g = m.add_func("square-it", {f32({2})}, Visibility::private_);  // printed quoted
  g.ret({multiply(g.arg(0), g.arg(0))});
  Func& f = m.add_func("main", {f32({2})});
  f.ret({call(g, {call(g, {f.arg(0)})[0]})[0]});
  auto out = run(m, {Array::from<float>({2}, {2, 3})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{16, 81}));
}

TEST(Exec, CompositeRunsItsDecomposition) {
  // XLA knows no "hhlo.square_plus_one": it compiles the decomposition (x * x + 1).
  Module m;
  Func& d = m.add_func("square_plus_one", {f32({3})}, Visibility::private_);
  d.ret({add(multiply(d.arg(0), d.arg(0)), constant(d, 1.0f, DType::f32, {3}))});
  Func& f = m.add_func("main", {f32({3})});
  f.ret(composite("hhlo.square_plus_one", {f.arg(0)}, d));
  auto out = run(m, {Array::from<float>({3}, {2, -3, 0.5})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{5, 10, 1.25}));
}

}  // namespace
}  // namespace hhlo
