// One violation per checked constraint: elementwise (fma too), compare/select/clamp/convert,
// constant/iota, broadcast_in_dim/reshape/transpose, slice/concatenate, dot_general, reduce, sort.
#include <gtest/gtest.h>

#include "hhlo/ir/ops.h"
#include "shape_error_util.h"

namespace hhlo {
namespace {

TensorType T(DType d, Dims s) { return {d, std::move(s)}; }
const DType F = DType::f32, I = DType::i32;

TEST(ShapeErrors, Elementwise) {
  EXPECT_SHAPE_ERROR("sine", "C1", infer_unary("sine", T(I, {2})));
  EXPECT_SHAPE_ERROR("popcnt", "C1", infer_unary("popcnt", T(F, {2})));
  EXPECT_SHAPE_ERROR("is_finite", "C1", infer_unary("is_finite", T(I, {2})));
  EXPECT_SHAPE_ERROR("frobnicate", "", infer_unary("frobnicate", T(F, {2})));
  EXPECT_SHAPE_ERROR("add", "C1", infer_binary("add", T(F, {2}), T(F, {3})));
  EXPECT_SHAPE_ERROR("add", "C1", infer_binary("add", T(F, {2}), T(DType::f64, {2})));
  EXPECT_SHAPE_ERROR("and", "C1", infer_binary("and", T(F, {2}), T(F, {2})));
  EXPECT_SHAPE_ERROR("complex", "C1",
                     infer_binary("complex", T(DType::f16, {2}), T(DType::f16, {2})));
  EXPECT_SHAPE_ERROR("subtract", "C1",
                     infer_binary("subtract", T(DType::pred, {2}), T(DType::pred, {2})));
  // exp2 / log2 (StableHLO 1.23) take floats and complex numbers; fma (1.24) one such type.
  EXPECT_SHAPE_ERROR("exp2", "C1", infer_unary("exp2", T(I, {2})));
  EXPECT_SHAPE_ERROR("log2", "C1", infer_unary("log2", T(DType::pred, {2})));
  EXPECT_SHAPE_ERROR("fma", "C1", infer_fma(T(F, {2}), T(F, {2}), T(F, {3})));
  EXPECT_SHAPE_ERROR("fma", "C1", infer_fma(T(F, {2}), T(DType::f64, {2}), T(F, {2})));
  EXPECT_SHAPE_ERROR("fma", "C1", infer_fma(T(I, {2}), T(I, {2}), T(I, {2})));
  EXPECT_EQ(infer_fma(T(DType::c64, {2, kDynamic}), T(DType::c64, {2, 3}), T(DType::c64, {2, 3})),
            T(DType::c64, {2, 3}));
  EXPECT_EQ(infer_unary("log2", T(DType::bf16, {})), T(DType::bf16, {}));
  // Results: the documented special cases.
  EXPECT_EQ(infer_unary("abs", T(DType::c64, {2})), T(F, {2}));
  EXPECT_EQ(infer_unary("is_finite", T(F, {2})), T(DType::pred, {2}));
  EXPECT_EQ(infer_binary("complex", T(DType::f64, {}), T(DType::f64, {})), T(DType::c128, {}));
}

TEST(ShapeErrors, CompareSelectClampConvert) {
  EXPECT_SHAPE_ERROR("compare", "C1", infer_compare(T(F, {2}), T(I, {2}), {}));
  EXPECT_SHAPE_ERROR("compare", "C2", infer_compare(T(F, {2}), T(F, {3}), {}));
  EXPECT_SHAPE_ERROR("compare", "C3", infer_compare(T(F, {2}), T(F, {2}), ComparisonType::SIGNED));
  EXPECT_SHAPE_ERROR("compare", "C3",
                     infer_compare(T(I, {2}), T(I, {2}), ComparisonType::TOTALORDER));
  EXPECT_SHAPE_ERROR("select", "C1", infer_select(T(I, {}), T(F, {2}), T(F, {2})));
  EXPECT_SHAPE_ERROR("select", "C1", infer_select(T(DType::pred, {3}), T(F, {2}), T(F, {2})));
  EXPECT_SHAPE_ERROR("select", "C2", infer_select(T(DType::pred, {}), T(F, {2}), T(I, {2})));
  EXPECT_SHAPE_ERROR("clamp", "C1", infer_clamp(T(F, {3}), T(F, {2}), T(F, {})));
  EXPECT_SHAPE_ERROR("clamp", "C2", infer_clamp(T(I, {}), T(F, {2}), T(F, {})));
  // Issue 44: complex to a non-complex type is the spec's (the imaginary part is dropped).
  EXPECT_EQ(infer_convert(T(DType::c64, {2}), F), T(F, {2}));
}

TEST(ShapeErrors, ConstantIota) {
  Module m;
  Func& f = m.add_func("main", {});
  EXPECT_SHAPE_ERROR("constant", "", constant(f, 300, DType::i8));
  EXPECT_SHAPE_ERROR("constant", "", constant(f, -1, DType::ui32));
  EXPECT_SHAPE_ERROR("constant", "", constant(f, 2, DType::pred));
  EXPECT_SHAPE_ERROR("constant", "", constant(f, 1.5, DType::i32));
  EXPECT_SHAPE_ERROR("constant", "", constant(f, uint64_t{1} << 63, DType::i64));
  EXPECT_NO_THROW(constant(f, -128, DType::i8));
  EXPECT_NO_THROW(constant(f, ~uint64_t{0}, DType::ui64));
  EXPECT_SHAPE_ERROR("iota", "C1", infer_iota(T(F, {2}), 1));
  EXPECT_SHAPE_ERROR("iota", "", infer_iota(T(DType::pred, {2}), 0));
}

TEST(ShapeErrors, BroadcastReshapeTranspose) {
  std::vector<int64_t> d0 = {0}, d01 = {0, 1}, d3 = {3}, d00 = {0, 0}, d1 = {1};
  EXPECT_SHAPE_ERROR("broadcast_in_dim", "C2", infer_broadcast_in_dim(T(F, {2}), {2, 3}, d01));
  EXPECT_SHAPE_ERROR("broadcast_in_dim", "C3", infer_broadcast_in_dim(T(F, {2}), {2, 3}, d3));
  EXPECT_SHAPE_ERROR("broadcast_in_dim", "C4", infer_broadcast_in_dim(T(F, {1, 1}), {2, 3}, d00));
  EXPECT_SHAPE_ERROR("broadcast_in_dim", "C5", infer_broadcast_in_dim(T(F, {2}), {2, 3}, d1));
  EXPECT_EQ(infer_broadcast_in_dim(T(F, {1}), {2, 3}, d1), T(F, {2, 3}));
  EXPECT_SHAPE_ERROR("reshape", "C2", infer_reshape(T(F, {2, 3}), {5}));
  std::vector<int64_t> p = {0, 0}, p3 = {0, 1, 2};
  EXPECT_SHAPE_ERROR("transpose", "C2", infer_transpose(T(F, {2, 3}), p));
  EXPECT_SHAPE_ERROR("transpose", "C2", infer_transpose(T(F, {2, 3}), p3));
}

TEST(ShapeErrors, SliceConcatenate) {
  std::vector<int64_t> z1 = {0}, z2 = {0, 0}, l = {2, 3}, big = {3, 3}, s1 = {1, 1}, s0 = {1, 0},
                       st = {2, 0};
  EXPECT_SHAPE_ERROR("slice", "C2", infer_slice(T(F, {2, 3}), z1, l, s1));
  EXPECT_SHAPE_ERROR("slice", "C3", infer_slice(T(F, {2, 3}), z2, big, s1));
  EXPECT_SHAPE_ERROR("slice", "C3", infer_slice(T(F, {2, 3}), st, std::vector<int64_t>{1, 3}, s1));
  EXPECT_SHAPE_ERROR("slice", "C4", infer_slice(T(F, {2, 3}), z2, l, s0));
  EXPECT_EQ(infer_slice(T(F, {2, 7}), z2, std::vector<int64_t>{2, 7}, std::vector<int64_t>{1, 3}),
            T(F, {2, 3}));
  std::vector<TensorType> none;
  std::vector<TensorType> mixed = {T(F, {2, 3}), T(I, {2, 3})},
                          shapes = {T(F, {2, 3}), T(F, {3, 3})};
  EXPECT_SHAPE_ERROR("concatenate", "C1", infer_concatenate(mixed, 0));
  EXPECT_SHAPE_ERROR("concatenate", "C2", infer_concatenate(shapes, 1));
  EXPECT_SHAPE_ERROR("concatenate", "C3", infer_concatenate(none, 0));
  EXPECT_SHAPE_ERROR("concatenate", "C4", infer_concatenate(shapes, 2));
}

TEST(ShapeErrors, DotGeneral) {
  TensorType l = T(F, {2, 3, 4}), r = T(F, {2, 4, 5});
  auto dn = [](std::vector<int64_t> lb, std::vector<int64_t> rb, std::vector<int64_t> lc,
               std::vector<int64_t> rc) {
    return DotDimensionNumbers{lb, rb, lc, rc};
  };
  EXPECT_EQ(infer_dot_general(l, r, dn({0}, {0}, {2}, {1})), T(F, {2, 3, 5}));
  EXPECT_SHAPE_ERROR("dot_general", "C1", infer_dot_general(l, r, dn({0}, {}, {2}, {1})));
  EXPECT_SHAPE_ERROR("dot_general", "C2", infer_dot_general(l, r, dn({0}, {0}, {2}, {})));
  EXPECT_SHAPE_ERROR("dot_general", "C3", infer_dot_general(l, r, dn({0}, {0}, {0}, {1})));
  EXPECT_SHAPE_ERROR("dot_general", "C4", infer_dot_general(l, r, dn({0}, {0}, {2}, {0})));
  EXPECT_SHAPE_ERROR("dot_general", "C5", infer_dot_general(l, r, dn({3}, {0}, {2}, {1})));
  EXPECT_SHAPE_ERROR("dot_general", "C6", infer_dot_general(l, r, dn({0}, {0}, {5}, {1})));
  EXPECT_SHAPE_ERROR("dot_general", "C7", infer_dot_general(l, r, dn({0}, {4}, {2}, {1})));
  EXPECT_SHAPE_ERROR("dot_general", "C8", infer_dot_general(l, r, dn({0}, {0}, {2}, {7})));
  EXPECT_SHAPE_ERROR("dot_general", "C9", infer_dot_general(l, r, dn({1}, {0}, {2}, {1})));
  EXPECT_SHAPE_ERROR("dot_general", "C10", infer_dot_general(l, r, dn({0}, {0}, {2}, {2})));
  EXPECT_SHAPE_ERROR("dot_general", "C11", infer_dot_general(l, r, dn({0}, {0}, {2}, {1}), 1));
  EXPECT_SHAPE_ERROR("dot_general", "C13",
                     infer_dot_general(l, T(I, {2, 4, 5}), dn({0}, {0}, {2}, {1})));
  EXPECT_EQ(infer_dot_general(l, r, dn({0}, {0}, {2}, {1}), 2, DType::f64),
            T(DType::f64, {2, 3, 5}));
}

TEST(ShapeErrors, ReduceAndSort) {
  std::vector<int64_t> d1 = {1}, d5 = {5}, d11 = {1, 1};
  std::vector<TensorType> in = {T(F, {2, 3})}, init = {T(F, {})}, none;
  std::vector<TensorType> two = {T(F, {2, 3}), T(F, {3, 2})}, two_init = {T(F, {}), T(F, {})};
  EXPECT_SHAPE_ERROR("reduce", "C1", infer_reduce(two, two_init, d1));
  EXPECT_SHAPE_ERROR("reduce", "C2", infer_reduce(in, std::vector<TensorType>{T(I, {})}, d1));
  EXPECT_SHAPE_ERROR("reduce", "C2", infer_reduce(in, std::vector<TensorType>{T(F, {1})}, d1));
  EXPECT_SHAPE_ERROR("reduce", "C3", infer_reduce(in, none, d1));
  EXPECT_SHAPE_ERROR("reduce", "C4", infer_reduce(in, init, d5));
  EXPECT_SHAPE_ERROR("reduce", "C5", infer_reduce(in, init, d11));
  Module m;
  Func& f = m.add_func("main", {T(F, {2, 3})});
  Value zero = constant(f, 0.0f, F);
  EXPECT_SHAPE_ERROR("reduce", "C6",
                     reduce(f.arg(0), zero, {1}, [](Value a, Value) { return convert(a, I); }));
  EXPECT_SHAPE_ERROR("sort", "C1", infer_sort(none, 0));
  EXPECT_SHAPE_ERROR("sort", "C3", infer_sort(two, 0));
  EXPECT_SHAPE_ERROR("sort", "C4", infer_sort(in, 2));
  EXPECT_NO_THROW(infer_sort(in, -2));
  EXPECT_SHAPE_ERROR("sort", "C5", sort({f.arg(0)}, 0, [](const std::vector<Value>& a) {
                       return std::vector<Value>{a[0]};
                     }));
}

}  // namespace
}  // namespace hhlo

#include <gtest/gtest-spi.h>

namespace hhlo {
namespace {
// The helper itself reports a wrong constraint and a missing error.
TEST(ShapeErrors, HelperDetectsMismatches) {
  TensorType a{DType::f32, {2}}, b{DType::f32, {3}};
  EXPECT_NONFATAL_FAILURE(EXPECT_SHAPE_ERROR("add", "C2", infer_binary("add", a, b)), "C1");
  EXPECT_NONFATAL_FAILURE(EXPECT_SHAPE_ERROR("add", "C1", infer_binary("add", a, a)),
                          "no ShapeError");
}
}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {
// Messages name the op and constraint, show the offending sizes and both operand types.
TEST(ShapeErrors, MessagesShowOpConstraintAndTypes) {
  try {
    infer_dot_general({DType::f32, {2, 3}}, {DType::f32, {4, 5}}, {{}, {}, {1}, {0}});
    FAIL();
  } catch (const ShapeError& e) {
    std::string w = e.what();
    EXPECT_TRUE(w.starts_with("op 'dot_general' (C10): ")) << w;
    EXPECT_NE(w.find("tensor<2x3xf32>"), std::string::npos) << w;
    EXPECT_NE(w.find("tensor<4x5xf32>"), std::string::npos) << w;
    EXPECT_NE(w.find("size 3"), std::string::npos) << w;
  }
  try {
    infer_binary("add", {DType::f32, {2}}, {DType::f32, {3}});
    FAIL();
  } catch (const ShapeError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("broadcast_in_dim"), std::string::npos) << "hint missing: " << w;
  }
}
}  // namespace
}  // namespace hhlo
