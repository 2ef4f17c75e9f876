// Execution across element types: half precision and complex arithmetic, narrow and wide
// integers, conversions between every pair of dtypes on values representable in both, and edge
// forms (scalar rng shape `dense<>`, reduce over no dimensions).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "exec_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::run;
using test::values;

TEST(DtypesExec, HalfPrecisionArithmetic) {
  for (DType t : {DType::f16, DType::bf16}) {
    Module m;
    Func& f = m.add_func("main", {{t, {3}}, {t, {3}}});
    Value d = dot_general(f.arg(0), f.arg(1), {{}, {}, {0}, {0}});
    f.ret({add(f.arg(0), f.arg(1)), exponential(f.arg(0)), d, convert(f.arg(0), DType::f32)});
    Array a(t, {3}), b(t, {3});
    float av[] = {1, 2, 0.5f}, bv[] = {4, -1, 2};
    visit_dtype(t, [&](auto z) {
      using T = decltype(z);
      if constexpr (std::is_same_v<T, f16_t> || std::is_same_v<T, bf16_t>)
        for (int i = 0; i < 3; ++i)
          a.values<T>()[static_cast<size_t>(i)] = T(av[i]),
          b.values<T>()[static_cast<size_t>(i)] = T(bv[i]);
    });
    auto out = run(m, {a, b});
    EXPECT_EQ(values(out[0]), (std::vector<double>{5, 1, 2.5})) << dtype_name(t);
    EXPECT_NEAR(values(out[1])[0], std::exp(1.0), 0.02) << dtype_name(t);
    EXPECT_EQ(values(out[2]), (std::vector<double>{3})) << dtype_name(t);
    EXPECT_EQ(out[3].dtype(), DType::f32);
  }
}

TEST(DtypesExec, ComplexArithmetic) {
  Module m;
  TensorType c{DType::c128, {2}};
  Func& f = m.add_func("main", {c, c});
  f.ret({multiply(f.arg(0), f.arg(1)), divide(f.arg(0), f.arg(1)), exponential(f.arg(0)),
         sqrt(f.arg(1)), negate(f.arg(0))});
  using C = std::complex<double>;
  std::vector<C> a = {{1, 2}, {0, -1}}, b = {{3, -1}, {4, 0}};
  auto out = run(m, {Array::from<C>({2}, a), Array::from<C>({2}, b)});
  auto mul = out[0].to_vector<C>(), div = out[1].to_vector<C>(), ex = out[2].to_vector<C>(),
       sq = out[3].to_vector<C>(), ng = out[4].to_vector<C>();
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_LT(std::abs(mul[i] - a[i] * b[i]), 1e-12);
    EXPECT_LT(std::abs(div[i] - a[i] / b[i]), 1e-12);
    EXPECT_LT(std::abs(ex[i] - std::exp(a[i])), 1e-12);
    EXPECT_LT(std::abs(sq[i] - std::sqrt(b[i])), 1e-12);
    EXPECT_EQ(ng[i], -a[i]);
  }
}

TEST(DtypesExec, NarrowAndWideIntegers) {
  Module m;
  Func& f = m.add_func(
      "main", {{DType::i8, {3}}, {DType::ui8, {3}}, {DType::i64, {2}}, {DType::ui64, {2}}});
  f.ret({add(f.arg(0), f.arg(0)), subtract(f.arg(1), constant(f, 1, DType::ui8, {3})),
         multiply(f.arg(2), f.arg(2)),
         shift_right_logical(f.arg(3), constant(f, 60, DType::ui64, {2})),
         compare(f.arg(1), constant(f, 128, DType::ui8, {3}), ComparisonDirection::GE)});
  auto out =
      run(m, {Array::from<int8_t>({3}, {100, -100, 7}), Array::from<uint8_t>({3}, {0, 200, 128}),
              Array::from<int64_t>({2}, {int64_t{1} << 31, -3}),
              Array::from<uint64_t>({2}, {~uint64_t{0}, uint64_t{1} << 62})});
  EXPECT_EQ(out[0].to_vector<int8_t>(), (std::vector<int8_t>{-56, 56, 14}));  // wraps
  EXPECT_EQ(out[1].to_vector<uint8_t>(), (std::vector<uint8_t>{255, 199, 127}));
  EXPECT_EQ(out[2].to_vector<int64_t>(), (std::vector<int64_t>{int64_t{1} << 62, 9}));
  EXPECT_EQ(out[3].to_vector<uint64_t>(), (std::vector<uint64_t>{15, 4}));
  EXPECT_EQ(out[4].to_vector<bool>(), (std::vector<bool>{false, true, true}));
}

// A non-splat i1 constant of 3x7 elements (more than 8, so the hex forms of MLIR versions would
// differ: packed bits in the 0.81 plugin's MLIR, a byte per element in the 0.115 one's). The
// printer writes i1 data as a list, which both read alike; here it goes through convert and select.
// Expected values are the pattern itself (element i is true when i % 3 == 0 or i == 20).
TEST(DtypesExec, NonSplatI1ConstantReadsTheSameOnEveryPlugin) {
  std::vector<bool> pattern(21);
  for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = i % 3 == 0 || i == 20;
  Module m;
  Func& f = m.add_func("main", {});
  Value c = constant(f, Array::from<bool>({3, 7}, pattern));
  f.ret({c, convert(c, DType::i32),
         select(c, constant(f, 1.5f, DType::f32, {3, 7}), constant(f, -2.0f, DType::f32, {3, 7}))});
  auto out = run(m);
  EXPECT_EQ(out[0].to_vector<bool>(), pattern);
  std::vector<int32_t> as_int;
  std::vector<float> selected;
  for (bool b : pattern) {
    as_int.push_back(b ? 1 : 0);
    selected.push_back(b ? 1.5f : -2.0f);
  }
  EXPECT_EQ(out[1].to_vector<int32_t>(), as_int);
  EXPECT_EQ(out[2].to_vector<float>(), selected);
}

TEST(DtypesExec, ConvertBetweenEveryPair) {
  // 0, 1 and 3 are exact in every dtype (pred: 0 and 1 only).
  std::vector<DType> all(std::begin(kClassicDTypes), std::end(kClassicDTypes));
  Module m;
  Func& f = m.add_func("main", {{DType::i32, {3}}});
  std::vector<Value> outs;
  for (DType from : all)
    for (DType to : all) {
      if (is_complex(from) && !is_complex(to)) continue;
      Value x = convert(f.arg(0), from);
      outs.push_back(convert(convert(x, to), DType::c128));
    }
  f.ret(outs);
  auto out = run(m, {Array::from<int32_t>({3}, {0, 1, 3})});
  size_t k = 0;
  for (DType from : all)
    for (DType to : all) {
      if (is_complex(from) && !is_complex(to)) continue;
      auto v = out[k++].to_vector<std::complex<double>>();
      bool through_pred = is_pred(from) || is_pred(to);
      std::vector<double> want =
          through_pred ? std::vector<double>{0, 1, 1} : std::vector<double>{0, 1, 3};
      for (size_t i = 0; i < 3; ++i)
        EXPECT_EQ(v[i].real(), want[i])
            << dtype_name(from) << " -> " << dtype_name(to) << " at " << i;
    }
}

TEST(DtypesExec, EdgeForms) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2, 3}}});
  Value lo = constant(f, 1.0f, DType::f32), hi = constant(f, 2.0f, DType::f32);
  Value r = rng(lo, hi, {}, RngDistribution::UNIFORM);  // scalar: shape operand is dense<>
  Value same = reduce(f.arg(0), constant(f, 0.0f, DType::f32), {},
                      [](Value a, Value b) { return add(a, b); });
  f.ret({r, same});
  auto out = run(m, {Array::from<float>({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(out[0].rank(), 0);
  EXPECT_GE(values(out[0])[0], 1.0);
  EXPECT_LT(values(out[0])[0], 2.0);
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace hhlo
