// Unsigned start indices of dynamic_slice, dynamic_update_slice, gather and scatter, constant and
// parameter, executed. The CPU plugins misread a constant unsigned start index (docs/facts.md,
// PluginFacts.ConstantUnsignedStartIndexIsMisread); the builder makes such indices
// signed, so these give the spec's values. Expected values by hand from the spec: a start index
// is clamped to [0, dim - size] (dynamic_slice, dynamic_update_slice, gather); a scatter update
// whose index is out of bounds is skipped (XLA's choice, implementation-defined in the spec).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "exec_util.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ops/ops.h"

namespace hhlo {
namespace {

using test::run;

struct Case {
  DType dtype;
  uint64_t index;
  int32_t want;  // iota(200)[clamped index]
};

const Case kCases[] = {
    {DType::ui8, 128, 128},
    {DType::ui8, 250, 199},
    {DType::ui16, 65535, 199},
    {DType::ui32, 4294967295u, 199},
    {DType::ui64, (uint64_t{1} << 63) + 5, 199},
    {DType::ui64, 7, 7},
};

TEST(UnsignedStartIndex, ConstantIndexOfDynamicSlice) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(fmt::format("{} {}", dtype_name(c.dtype), c.index));
    Module m;
    Func& f = m.add_func("main", {});
    Value x = iota(f, {DType::i32, {200}}, 0);
    f.ret({dynamic_slice(x, {constant(f, c.index, c.dtype)}, {1})});
    EXPECT_EQ(run(m)[0].to_vector<int32_t>(), (std::vector<int32_t>{c.want}));
  }
}

TEST(UnsignedStartIndex, ParameterIndexOfDynamicSlice) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(fmt::format("{} {}", dtype_name(c.dtype), c.index));
    Module m;
    Func& f = m.add_func("main", {TensorType{c.dtype, {}}});
    Value x = iota(f, {DType::i32, {200}}, 0);
    f.ret({dynamic_slice(x, {f.arg(0)}, {1})});
    Array index(c.dtype, {});
    visit_dtype(c.dtype, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_integral_v<T>) index.values<T>()[0] = static_cast<T>(c.index);
    });
    EXPECT_EQ(run(m, {index})[0].to_vector<int32_t>(), (std::vector<int32_t>{c.want}));
  }
}

TEST(UnsignedStartIndex, ConstantIndexOfDynamicUpdateSlice) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(fmt::format("{} {}", dtype_name(c.dtype), c.index));
    Module m;
    Func& f = m.add_func("main", {});
    Value x = iota(f, {DType::i32, {200}}, 0);
    Value update = constant<int32_t>(f, {2}, {-1, -2});
    Value u = dynamic_update_slice(x, update, {constant(f, c.index, c.dtype)});
    // The update has 2 elements: the start is clamped to 198, one less than the slice's.
    int64_t start = std::min<int64_t>(c.want, 198);
    f.ret({u});
    std::vector<int32_t> want(200);
    for (int32_t i = 0; i < 200; ++i) want[i] = i;
    want[start] = -1;
    want[start + 1] = -2;
    EXPECT_EQ(run(m)[0].to_vector<int32_t>(), want);
  }
}

TEST(UnsignedStartIndex, ClampBoundAboveTheTypeRange) {
  // dim - size = 299 > 255: every ui8 value is a valid start, none is clamped.
  Module m;
  Func& f = m.add_func("main", {});
  Value x = iota(f, {DType::i32, {300}}, 0);
  f.ret({dynamic_slice(x, {constant(f, uint64_t{255}, DType::ui8)}, {1})});
  EXPECT_EQ(run(m)[0].to_vector<int32_t>(), (std::vector<int32_t>{255}));
}

TEST(UnsignedStartIndex, ConstantIndicesOfGather) {
  // x = iota(4 * 300) as [4, 300]; one start (row, col) per index vector, slice sizes [1, 1]:
  // rows clamp to 3, columns to 299, each by its own bound.
  Module m;
  Func& f = m.add_func("main", {});
  Value x = iota(f, {DType::i32, {4, 300}}, 1);
  Value rows = iota(f, {DType::i32, {4, 300}}, 0);
  x = add(x, multiply(rows, constant(f, 300, DType::i32, {4, 300})));
  Value idx = constant<uint16_t>(f, {3, 2}, {1, 2, 65535, 65535, 2, 299});
  GatherDimensionNumbers dn{.offset_dims = {},
                            .collapsed_slice_dims = {0, 1},
                            .start_index_map = {0, 1},
                            .index_vector_dim = 1};
  f.ret({gather(x, idx, dn, {1, 1})});
  EXPECT_EQ(run(m)[0].to_vector<int32_t>(), (std::vector<int32_t>{302, 3 * 300 + 299, 899}));
}

TEST(UnsignedStartIndex, ConstantIndicesOfNumpyTake) {
  Module m;
  Func& f = m.add_func("main", {});
  Tensor x = iota(f, {DType::i32, {200}}, 0);
  Tensor idx = constant<uint8_t>(f, {3}, {128, 250, 3});
  f.ret({np::take(x, idx)});
  EXPECT_EQ(run(m)[0].to_vector<int32_t>(), (std::vector<int32_t>{128, 199, 3}));
  Module m64;
  Func& g = m64.add_func("main", {});
  Tensor y = iota(g, {DType::i32, {200}}, 0);
  Tensor idx64 = constant<uint64_t>(g, {2}, {(uint64_t{1} << 63) + 5, 128});
  g.ret({np::take(y, idx64)});
  EXPECT_EQ(run(m64)[0].to_vector<int32_t>(), (std::vector<int32_t>{199, 128}));
}

TEST(UnsignedStartIndex, ConstantIndicesOfScatter) {
  // Adds 1000 at each index of [128, 2^63 + 5 (out of bounds: skipped), 3] into iota(200).
  Module m;
  Func& f = m.add_func("main", {});
  Value x = iota(f, {DType::i32, {200}}, 0);
  Value idx = constant<uint64_t>(f, {3, 1}, {128, (uint64_t{1} << 63) + 5, 3});
  Value upd = constant(f, 1000, DType::i32, {3});
  ScatterDimensionNumbers dn{.update_window_dims = {},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1};
  f.ret(scatter({x}, idx, {upd}, dn,
                [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; }));
  std::vector<int32_t> want(200);
  for (int32_t i = 0; i < 200; ++i) want[i] = i;
  want[128] += 1000;
  want[3] += 1000;
  EXPECT_EQ(run(m)[0].to_vector<int32_t>(), want);
  // ui8 250 is out of bounds as well; 128 is in.
  Module m8;
  Func& g = m8.add_func("main", {});
  Value y = iota(g, {DType::i32, {200}}, 0);
  Value idx8 = constant<uint8_t>(g, {2, 1}, {250, 128});
  Value upd8 = constant(g, 1000, DType::i32, {2});
  g.ret(scatter({y}, idx8, {upd8}, dn,
                [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; }));
  std::vector<int32_t> want8(200);
  for (int32_t i = 0; i < 200; ++i) want8[i] = i;
  want8[128] += 1000;
  EXPECT_EQ(run(m8)[0].to_vector<int32_t>(), want8);
}

TEST(UnsignedStartIndex, BuilderEmitsSignedIndices) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::ui8, {}}});
  Value x = iota(f, {DType::i32, {200}}, 0);
  Value s = dynamic_slice(x, {f.arg(0)}, {1});
  f.ret({s});
  std::string text = to_mlir(m);
  EXPECT_NE(text.find("stablehlo.convert"), std::string::npos) << text;
  EXPECT_NE(text.find("(tensor<200xi32>, tensor<i16>) -> tensor<1xi32>"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("(tensor<200xi32>, tensor<ui8>)"), std::string::npos) << text;
}

}  // namespace
}  // namespace hhlo
