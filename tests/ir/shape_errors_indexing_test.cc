// One violation per checked constraint: gather, scatter, dynamic_slice, dynamic_update_slice,
// pad, reverse, get_dimension_size, bitcast_convert, reduce_precision.
#include <gtest/gtest.h>

#include "hhlo/ir/ops.h"
#include "shape_error_util.h"

namespace hhlo {
namespace {

TensorType T(DType d, Dims s) { return {d, std::move(s)}; }
const DType F = DType::f32, I = DType::i32;
using V = std::vector<int64_t>;

TEST(ShapeErrors, Gather) {
  // Valid base: per-batch take along dim 2 (the exec test's program).
  TensorType op = T(F, {2, 3, 4}), idx = T(I, {2, 2});
  GatherDimensionNumbers b{.offset_dims = {1},
                           .collapsed_slice_dims = {2},
                           .operand_batching_dims = {0},
                           .start_indices_batching_dims = {0},
                           .start_index_map = {2},
                           .index_vector_dim = 2};
  V sizes = {1, 3, 1};
  EXPECT_EQ(infer_gather(op, idx, b, sizes), T(F, {2, 3, 2}));
  auto with = [&](auto change) {
    GatherDimensionNumbers d = b;
    change(d);
    return d;
  };
  EXPECT_SHAPE_ERROR("gather", "C1",
                     infer_gather(op, idx, with([](auto& d) {
                                    d.offset_dims = {1, 2};
                                  }),
                                  sizes));
  EXPECT_SHAPE_ERROR("gather", "C2",
                     infer_gather(op, idx, with([](auto& d) { d.index_vector_dim = 3; }), sizes));
  EXPECT_SHAPE_ERROR("gather", "C3",
                     infer_gather(op, idx, with([](auto& d) {
                                    d.start_index_map = {1, 2};
                                  }),
                                  sizes));
  // 2-D base without batching for C4/C5/C7/C8/C9.
  TensorType o2 = T(F, {3, 4}), i2 = T(I, {2, 1});
  GatherDimensionNumbers g2{.offset_dims = {1},
                            .collapsed_slice_dims = {0},
                            .start_index_map = {0},
                            .index_vector_dim = 1};
  EXPECT_EQ(infer_gather(o2, i2, g2, V{1, 4}), T(F, {2, 4}));
  GatherDimensionNumbers c4{.offset_dims = {1, 0}, .start_index_map = {0}, .index_vector_dim = 1};
  EXPECT_SHAPE_ERROR("gather", "C4", infer_gather(o2, i2, c4, V{1, 4}));
  GatherDimensionNumbers c5 = g2;
  c5.offset_dims = {2};
  EXPECT_SHAPE_ERROR("gather", "C5", infer_gather(o2, i2, c5, V{1, 4}));
  GatherDimensionNumbers c6{.collapsed_slice_dims = {0},
                            .operand_batching_dims = {0},
                            .start_indices_batching_dims = {0},
                            .start_index_map = {1},
                            .index_vector_dim = 1};
  EXPECT_SHAPE_ERROR("gather", "C6", infer_gather(o2, i2, c6, V{1, 1}));
  GatherDimensionNumbers c7{
      .collapsed_slice_dims = {1, 0}, .start_index_map = {0}, .index_vector_dim = 1};
  EXPECT_SHAPE_ERROR("gather", "C7", infer_gather(o2, i2, c7, V{1, 1}));
  GatherDimensionNumbers c8 = g2;
  c8.collapsed_slice_dims = {5};
  EXPECT_SHAPE_ERROR("gather", "C8", infer_gather(o2, i2, c8, V{1, 4}));
  EXPECT_SHAPE_ERROR("gather", "C9", infer_gather(o2, i2, g2, V{2, 4}));
  GatherDimensionNumbers c10{.collapsed_slice_dims = {2},
                             .operand_batching_dims = {1, 0},
                             .start_indices_batching_dims = {0, 1},
                             .start_index_map = {2},
                             .index_vector_dim = 2};
  EXPECT_SHAPE_ERROR("gather", "C10", infer_gather(T(F, {2, 2, 4}), T(I, {2, 2}), c10, V{1, 1, 1}));
  EXPECT_SHAPE_ERROR(
      "gather", "C11",
      infer_gather(op, idx, with([](auto& d) { d.operand_batching_dims = {5}; }), sizes));
  EXPECT_SHAPE_ERROR("gather", "C12", infer_gather(op, idx, b, V{2, 3, 1}));
  EXPECT_SHAPE_ERROR("gather", "C13",
                     infer_gather(op, idx, with([](auto& d) {
                                    d.start_indices_batching_dims = {0, 0};
                                  }),
                                  sizes));
  EXPECT_SHAPE_ERROR(
      "gather", "C14",
      infer_gather(op, idx, with([](auto& d) { d.start_indices_batching_dims = {5}; }), sizes));
  EXPECT_SHAPE_ERROR("gather", "C15",
                     infer_gather(op, T(I, {2, 1}), with([](auto& d) {
                                    d.index_vector_dim = 1;
                                    d.start_indices_batching_dims = {1};
                                  }),
                                  sizes));
  EXPECT_SHAPE_ERROR(
      "gather", "C16",
      infer_gather(op, idx, with([](auto& d) { d.start_indices_batching_dims = {}; }), sizes));
  EXPECT_SHAPE_ERROR("gather", "C17", infer_gather(op, T(I, {3, 2}), b, sizes));
  EXPECT_SHAPE_ERROR("gather", "C18",
                     infer_gather(op, idx, with([](auto& d) { d.start_index_map = {0}; }), sizes));
  EXPECT_SHAPE_ERROR("gather", "C19",
                     infer_gather(op, idx, with([](auto& d) { d.start_index_map = {7}; }), sizes));
  EXPECT_SHAPE_ERROR("gather", "C20", infer_gather(op, idx, b, V{1, 3}));
  EXPECT_SHAPE_ERROR("gather", "C21", infer_gather(op, idx, b, V{1, 5, 1}));
}

TEST(ShapeErrors, Scatter) {
  std::vector<TensorType> in = {T(F, {4, 3})}, up = {T(F, {3, 3})};
  TensorType idx = T(I, {3, 1});
  ScatterDimensionNumbers b{.update_window_dims = {1},
                            .inserted_window_dims = {0},
                            .scatter_dims_to_operand_dims = {0},
                            .index_vector_dim = 1};
  EXPECT_EQ(infer_scatter(in, idx, up, b)[0], T(F, {4, 3}));
  auto with = [&](auto change) {
    ScatterDimensionNumbers d = b;
    change(d);
    return d;
  };
  std::vector<TensorType> two_in = {T(F, {4, 3}), T(F, {4, 4})},
                          two_up = {T(F, {3, 3}), T(F, {3, 3})};
  EXPECT_SHAPE_ERROR("scatter", "C1", infer_scatter(two_in, idx, two_up, b));
  EXPECT_SHAPE_ERROR(
      "scatter", "C2",
      infer_scatter(in, idx, up, with([](auto& d) { d.inserted_window_dims = {}; })));
  std::vector<TensorType> in2 = {T(F, {4, 3}), T(F, {4, 3})}, up2 = {T(F, {3, 3}), T(F, {3, 2})};
  EXPECT_SHAPE_ERROR("scatter", "C3", infer_scatter(in2, idx, up2, b));
  EXPECT_SHAPE_ERROR("scatter", "C4",
                     infer_scatter(in, idx, std::vector<TensorType>{T(F, {2, 3})}, b));
  EXPECT_SHAPE_ERROR("scatter", "C4",
                     infer_scatter(in, idx, std::vector<TensorType>{T(F, {3, 5})}, b));
  EXPECT_SHAPE_ERROR("scatter", "C5", infer_scatter(in, idx, std::vector<TensorType>{}, b));
  EXPECT_SHAPE_ERROR("scatter", "C6",
                     infer_scatter(in, idx, std::vector<TensorType>{T(I, {3, 3})}, b));
  EXPECT_SHAPE_ERROR("scatter", "C8",
                     infer_scatter(in, idx, up, with([](auto& d) { d.update_window_dims = {2}; })));
  EXPECT_SHAPE_ERROR("scatter", "C9", infer_scatter(in, idx, up, with([](auto& d) {
                                                      d.update_window_dims = {};
                                                      d.inserted_window_dims = {0};
                                                      d.input_batching_dims = {0};
                                                    })));
  EXPECT_SHAPE_ERROR(
      "scatter", "C11",
      infer_scatter(in, idx, up, with([](auto& d) { d.inserted_window_dims = {4}; })));
  EXPECT_SHAPE_ERROR("scatter", "C16", infer_scatter(in, idx, up, with([](auto& d) {
                                                       d.update_window_dims = {};
                                                       d.input_batching_dims = {1};
                                                       d.scatter_indices_batching_dims = {1};
                                                     })));
  EXPECT_SHAPE_ERROR("scatter", "C17", infer_scatter(in, idx, up, with([](auto& d) {
                                                       d.update_window_dims = {};
                                                       d.input_batching_dims = {1};
                                                     })));
  EXPECT_SHAPE_ERROR("scatter", "C19", infer_scatter(in, idx, up, with([](auto& d) {
                                                       d.scatter_dims_to_operand_dims = {0, 1};
                                                     })));
  EXPECT_SHAPE_ERROR(
      "scatter", "C21",
      infer_scatter(in, idx, up, with([](auto& d) { d.scatter_dims_to_operand_dims = {9}; })));
  EXPECT_SHAPE_ERROR("scatter", "C22",
                     infer_scatter(in, idx, up, with([](auto& d) { d.index_vector_dim = 3; })));
  Module m;
  Func& f = m.add_func("main", {T(F, {4, 3}), idx, T(F, {3, 3})});
  EXPECT_SHAPE_ERROR("scatter", "C23",
                     scatter({f.arg(0)}, f.arg(1), {f.arg(2)}, b, [](const std::vector<Value>& a) {
                       return std::vector<Value>{a[0], a[1]};
                     }));
}

TEST(ShapeErrors, DynamicSlices) {
  std::vector<TensorType> two = {T(I, {}), T(I, {})}, one = {T(I, {})},
                          mixed = {T(I, {}), T(DType::i64, {})}, vec = {T(I, {1}), T(I, {})};
  TensorType op = T(F, {4, 4});
  EXPECT_SHAPE_ERROR("dynamic_slice", "C2", infer_dynamic_slice(op, one, V{2, 2}));
  EXPECT_SHAPE_ERROR("dynamic_slice", "C2", infer_dynamic_slice(op, vec, V{2, 2}));
  EXPECT_SHAPE_ERROR("dynamic_slice", "C2", infer_dynamic_slice(op, two, V{2}));
  EXPECT_SHAPE_ERROR("dynamic_slice", "C3", infer_dynamic_slice(op, mixed, V{2, 2}));
  EXPECT_SHAPE_ERROR("dynamic_slice", "C4", infer_dynamic_slice(op, two, V{5, 2}));
  EXPECT_SHAPE_ERROR("dynamic_update_slice", "C2",
                     infer_dynamic_update_slice(op, T(I, {2, 2}), two));
  EXPECT_SHAPE_ERROR("dynamic_update_slice", "C3", infer_dynamic_update_slice(op, T(F, {2}), two));
  EXPECT_SHAPE_ERROR("dynamic_update_slice", "C4",
                     infer_dynamic_update_slice(op, T(F, {2, 2}), one));
  EXPECT_SHAPE_ERROR("dynamic_update_slice", "C5",
                     infer_dynamic_update_slice(op, T(F, {2, 2}), mixed));
  EXPECT_SHAPE_ERROR("dynamic_update_slice", "C6",
                     infer_dynamic_update_slice(op, T(F, {5, 2}), two));
}

TEST(ShapeErrors, PadReverseSizeBitcastPrecision) {
  TensorType op = T(F, {3});
  EXPECT_EQ(infer_pad(op, T(F, {}), V{1}, V{-1}, V{2}), T(F, {7}));
  EXPECT_SHAPE_ERROR("pad", "C1", infer_pad(op, T(I, {}), V{0}, V{0}, V{0}));
  EXPECT_SHAPE_ERROR("pad", "C1", infer_pad(op, T(F, {1}), V{0}, V{0}, V{0}));
  EXPECT_SHAPE_ERROR("pad", "C2", infer_pad(op, T(F, {}), V{0, 0}, V{0}, V{0}));
  EXPECT_SHAPE_ERROR("pad", "C3", infer_pad(op, T(F, {}), V{0}, V{0}, V{-1}));
  EXPECT_SHAPE_ERROR("pad", "C4", infer_pad(op, T(F, {}), V{-2}, V{-2}, V{0}));
  EXPECT_SHAPE_ERROR("reverse", "C2", infer_reverse(T(F, {2, 3}), V{0, 0}));
  EXPECT_SHAPE_ERROR("reverse", "C3", infer_reverse(T(F, {2, 3}), V{2}));
  EXPECT_SHAPE_ERROR("get_dimension_size", "C1", infer_get_dimension_size(T(F, {2, 3}), 2));
  EXPECT_EQ(infer_bitcast_convert(T(F, {3}), DType::ui8), T(DType::ui8, {3, 4}));
  EXPECT_EQ(infer_bitcast_convert(T(DType::ui8, {3, 4}), F), T(F, {3}));
  EXPECT_SHAPE_ERROR("bitcast_convert", "C1", infer_bitcast_convert(T(DType::ui8, {3, 2}), F));
  EXPECT_SHAPE_ERROR("bitcast_convert", "C1",
                     infer_bitcast_convert(T(DType::pred, {3}), DType::i8));
  EXPECT_SHAPE_ERROR("bitcast_convert", "C2",
                     infer_bitcast_convert(T(DType::c64, {3}), DType::f64));
  EXPECT_SHAPE_ERROR("reduce_precision", "C1", infer_reduce_precision(T(I, {3}), 5, 10));
  EXPECT_SHAPE_ERROR("reduce_precision", "C2", infer_reduce_precision(op, 0, 10));
  EXPECT_SHAPE_ERROR("reduce_precision", "C3", infer_reduce_precision(op, 5, -1));
}

}  // namespace
}  // namespace hhlo
