// Execution: while, if, case, optimization_barrier, map, func.call inside regions; rng and
// rng_bit_generator (statistical / determinism checks).
#include <gtest/gtest.h>

#include <cmath>

#include "exec_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::run;
using test::values;
TensorType f32(Dims d) { return {DType::f32, std::move(d)}; }
TensorType i32(Dims d) { return {DType::i32, std::move(d)}; }

TEST(ControlFlowExec, WhileLoop) {
  Module m;
  Func& f = m.add_func("main", {f32({3})});
  Value i0 = constant(f, 0, DType::i32);
  Value three = constant(f, 3, DType::i32);  // captured from the enclosing block
  auto r = while_loop(
      {i0, f.arg(0)},
      [&](const std::vector<Value>& a) {
        return std::vector<Value>{compare(a[0], three, ComparisonDirection::LT)};
      },
      [&](const std::vector<Value>& a) {
        Value one = constant(f, 1, DType::i32);
        return std::vector<Value>{add(a[0], one), add(a[1], a[1])};
      });
  f.ret({r[0], r[1]});
  auto out = run(m, {Array::from<float>({3}, {1, 2, 3})});
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{3}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{8, 16, 24}));
}

TEST(ControlFlowExec, IfAndCase) {
  Module m;
  Func& f = m.add_func("main", {{DType::pred, {}}, i32({}), f32({2})});
  Value x = f.arg(2);
  auto r = if_(
      f.arg(0), [&] { return std::vector<Value>{negate(x)}; },
      [&] { return std::vector<Value>{add(x, x)}; });
  auto c = case_(f.arg(1), {[&] { return std::vector<Value>{x}; },
                            [&] { return std::vector<Value>{multiply(x, x)}; },
                            [&] { return std::vector<Value>{exponential(x)}; }});
  f.ret({r[0], c[0]});
  auto out = run(
      m, {Array::scalar<bool>(true), Array::scalar<int32_t>(1), Array::from<float>({2}, {2, 3})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{-2, -3}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{4, 9}));
  out = run(
      m, {Array::scalar<bool>(false), Array::scalar<int32_t>(7), Array::from<float>({2}, {0, 0})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 0}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 1}));  // out of range: last branch
}

TEST(ControlFlowExec, MapAndOptimizationBarrier) {
  Module m;
  Func& f = m.add_func("main", {f32({3}), f32({3})});
  auto b = optimization_barrier({f.arg(0), f.arg(1)});
  Value mm = map({b[0], b[1]}, [](const std::vector<Value>& a) {
    return std::vector<Value>{compare(a[0], a[1], ComparisonDirection::GT)};
  });
  Value fma = map({f.arg(0), f.arg(1)}, [](const std::vector<Value>& a) {
    return std::vector<Value>{add(multiply(a[0], a[1]), a[0])};
  });
  f.ret({mm, fma});
  auto out = run(m, {Array::from<float>({3}, {1, 5, 3}), Array::from<float>({3}, {2, 2, 3})});
  EXPECT_EQ(out[0].to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{3, 15, 12}));
}

TEST(ControlFlowExec, Rng) {
  Module m;
  Func& f = m.add_func("main", {});
  Value lo = constant(f, 2.0f, DType::f32), hi = constant(f, 5.0f, DType::f32);
  Value zero = constant(f, 0.0f, DType::f32), one = constant(f, 1.0f, DType::f32);
  f.ret({rng(lo, hi, {4000}, RngDistribution::UNIFORM),
         rng(zero, one, {4000}, RngDistribution::NORMAL)});
  auto out = run(m);
  auto u = values(out[0]), n = values(out[1]);
  double su = 0, sn = 0, sn2 = 0;
  for (double v : u) {
    EXPECT_GE(v, 2.0);
    EXPECT_LT(v, 5.0);
    su += v;
  }
  for (double v : n) sn += v, sn2 += v * v;
  EXPECT_NEAR(su / 4000, 3.5, 0.1);
  EXPECT_NEAR(sn / 4000, 0.0, 0.1);
  EXPECT_NEAR(std::sqrt(sn2 / 4000), 1.0, 0.1);
}

TEST(ControlFlowExec, RngBitGeneratorAllAlgorithms) {
  for (RngAlgorithm alg : {RngAlgorithm::DEFAULT, RngAlgorithm::THREE_FRY, RngAlgorithm::PHILOX}) {
    Module m;
    Func& f = m.add_func("main", {{DType::ui64, {2}}});
    auto r = rng_bit_generator(f.arg(0), alg, {DType::ui32, {8}});
    f.ret({r[0], r[1]});
    Array state = Array::from<uint64_t>({2}, {42, 7});
    auto a = run(m, {state}), b = run(m, {state});
    EXPECT_TRUE(a[1] == b[1]) << enum_name(alg);    // deterministic in the state
    EXPECT_FALSE(a[0] == state) << enum_name(alg);  // state advanced
    auto bits = a[1].to_vector<uint32_t>();
    EXPECT_NE(bits[0], bits[1]) << enum_name(alg);
  }
}

}  // namespace
}  // namespace hhlo
