// Execution: gather (with batching dims), scatter, sort with several operands, dynamic_slice,
// dynamic_update_slice, pad (negative and interior), reverse, get_dimension_size,
// bitcast_convert. Expected values from JAX (gather/scatter/pad) or by hand.
#include <gtest/gtest.h>

#include "exec_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::run;
using test::values;
TensorType f32(Dims d) { return {DType::f32, std::move(d)}; }
TensorType i32(Dims d) { return {DType::i32, std::move(d)}; }

Array iota_f32(Dims d) {
  Array a(DType::f32, d);
  auto v = a.values<float>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return a;
}

TEST(IndexingExec, GatherWithBatchingDims) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3, 4}), i32({2, 2})});
  GatherDimensionNumbers dn{.offset_dims = {1},
                            .collapsed_slice_dims = {2},
                            .operand_batching_dims = {0},
                            .start_indices_batching_dims = {0},
                            .start_index_map = {2},
                            .index_vector_dim = 2};
  f.ret({gather(f.arg(0), f.arg(1), dn, {1, 3, 1})});
  auto out = run(m, {iota_f32({2, 3, 4}), Array::from<int32_t>({2, 2}, {3, 0, 1, 2})});
  EXPECT_EQ(out[0].dims(), (Dims{2, 3, 2}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{3, 0, 7, 4, 11, 8, 13, 14, 17, 18, 21, 22}));
}

TEST(IndexingExec, ScatterAdd) {
  Module m;
  Func& f = m.add_func("main", {f32({4, 3}), i32({3, 1}), f32({3, 3})});
  ScatterDimensionNumbers dn{.update_window_dims = {1},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1};
  f.ret(scatter({f.arg(0)}, f.arg(1), {f.arg(2)}, dn,
                [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; }));
  auto out = run(
      m, {Array(DType::f32, {4, 3}), Array::from<int32_t>({3, 1}, {1, 3, 1}), iota_f32({3, 3})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 0, 0, 6, 8, 10, 0, 0, 0, 3, 4, 5}));
}

TEST(IndexingExec, ScatterWithBatchingDims) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3, 4}), i32({2, 2}), f32({2, 3, 2})});
  ScatterDimensionNumbers dn{.update_window_dims = {1},
                             .inserted_window_dims = {2},
                             .input_batching_dims = {0},
                             .scatter_indices_batching_dims = {0},
                             .scatter_dims_to_operand_dims = {2},
                             .index_vector_dim = 2};
  f.ret(scatter({f.arg(0)}, f.arg(1), {f.arg(2)}, dn,
                [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; }));
  Array ones(DType::f32, {2, 3, 2});
  for (float& v : ones.values<float>()) v = 100;
  auto out = run(m, {iota_f32({2, 3, 4}), Array::from<int32_t>({2, 2}, {3, 0, 1, 2}), ones});
  // batch 0 adds 100 at columns 3 and 0, batch 1 at columns 1 and 2.
  EXPECT_EQ(values(out[0]),
            (std::vector<double>{100, 1,   2,   103, 104, 5,   6,   107, 108, 9,   10,  111,
                                 12,  113, 114, 15,  16,  117, 118, 19,  20,  121, 122, 23}));
}

TEST(IndexingExec, SortTwoOperands) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3}), i32({2, 3})});
  auto s = sort(
      {f.arg(0), f.arg(1)}, 1,
      [](const std::vector<Value>& a) {
        return std::vector<Value>{compare(a[0], a[1], ComparisonDirection::LT)};
      },
      true);
  f.ret({s[0], s[1]});
  auto out = run(m, {Array::from<float>({2, 3}, {3, 1, 2, 0, -1, 5}),
                     Array::from<int32_t>({2, 3}, {10, 20, 30, 40, 50, 60})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 2, 3, -1, 0, 5}));
  EXPECT_EQ(out[1].to_vector<int32_t>(), (std::vector<int32_t>{20, 30, 10, 50, 40, 60}));
}

TEST(IndexingExec, DynamicSliceAndUpdate) {
  Module m;
  Func& f = m.add_func("main", {f32({4, 4}), i32({}), i32({}), f32({2, 2})});
  Value s = dynamic_slice(f.arg(0), {f.arg(1), f.arg(2)}, {2, 2});
  Value three = constant(f, 3, DType::i32);
  Value clamped = dynamic_slice(f.arg(0), {three, three}, {2, 2});
  Value u = dynamic_update_slice(f.arg(0), f.arg(3), {f.arg(1), f.arg(1)});
  f.ret({s, clamped, u});
  auto out = run(m, {iota_f32({4, 4}), Array::scalar<int32_t>(1), Array::scalar<int32_t>(2),
                     Array::from<float>({2, 2}, {-1, -2, -3, -4})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{6, 7, 10, 11}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{10, 11, 14, 15}));
  EXPECT_EQ(values(out[2]),
            (std::vector<double>{0, 1, 2, 3, 4, -1, -2, 7, 8, -3, -4, 11, 12, 13, 14, 15}));
}

TEST(IndexingExec, PadReverseDimensionSizeBitcast) {
  Module m;
  Func& f = m.add_func("main", {f32({3}), f32({2, 3})});
  Value zero = constant(f, 0.0f, DType::f32), neg = constant(f, -1.0f, DType::f32);
  f.ret({pad(f.arg(0), zero, {1}, {-1}, {2}), pad(f.arg(1), neg, {-1, 0}, {1, 0}, {0, 1}),
         reverse(f.arg(1), {0, 1}), get_dimension_size(f.arg(1), 1),
         bitcast_convert(f.arg(0), DType::ui8), bitcast_convert(f.arg(0), DType::i32)});
  auto out = run(m, {Array::from<float>({3}, {1, 2, 3}), iota_f32({2, 3})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 1, 0, 0, 2, 0, 0}));
  EXPECT_EQ(out[1].dims(), (Dims{2, 5}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{3, -1, 4, -1, 5, -1, -1, -1, -1, -1}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(out[3].to_vector<int32_t>(), (std::vector<int32_t>{3}));
  EXPECT_EQ(out[4].dims(), (Dims{3, 4}));
  EXPECT_EQ(out[4].to_vector<uint8_t>()[3], 0x3F);        // 1.0f = 0x3F800000, little-endian
  EXPECT_EQ(out[5].to_vector<int32_t>()[1], 0x40000000);  // 2.0f
}

}  // namespace
}  // namespace hhlo
