// Golden MLIR text per op family (generic form, locations off). Every form here is also
// compiled and executed on the CPU plugin by tests/ops_exec.
#include <gtest/gtest.h>

#include <complex>
#include <limits>

#include "golden_util.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::body_of;
TensorType T(DType d, Dims s) { return {d, std::move(s)}; }
const DType F = DType::f32, I = DType::i32;

TEST(Golden, Elementwise) {
  EXPECT_EQ(
      body_of({T(F, {2}), T(F, {2})},
              [](Func& f) {
                return std::vector<Value>{
                    add(f.arg(0), f.arg(1)), atan2(f.arg(0), f.arg(1)), not_(is_finite(f.arg(0))),
                    exponential_minus_one(f.arg(0)), real(complex(f.arg(0), f.arg(1)))};
              }),
      R"mlir(%0 = "stablehlo.add"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
%1 = "stablehlo.atan2"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
%2 = "stablehlo.is_finite"(%arg0) : (tensor<2xf32>) -> tensor<2xi1>
%3 = "stablehlo.not"(%2) : (tensor<2xi1>) -> tensor<2xi1>
%4 = "stablehlo.exponential_minus_one"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
%5 = "stablehlo.complex"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>
%6 = "stablehlo.real"(%5) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
)mlir");
}

TEST(Golden, CompareSelectClampConvert) {
  EXPECT_EQ(
      body_of({T(F, {2}), T(F, {2})},
              [](Func& f) {
                Value lt = compare(f.arg(0), f.arg(1), ComparisonDirection::LT);
                Value eq = compare(f.arg(0), f.arg(1), ComparisonDirection::EQ,
                                   ComparisonType::TOTALORDER);
                return std::vector<Value>{lt, select(eq, f.arg(0), f.arg(1)),
                                          convert(f.arg(0), DType::bf16),
                                          clamp(f.arg(0), f.arg(1), f.arg(0))};
              }),
      R"mlir(%0 = "stablehlo.compare"(%arg0, %arg1) {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
%1 = "stablehlo.compare"(%arg0, %arg1) {compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
%2 = "stablehlo.select"(%1, %arg0, %arg1) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
%3 = "stablehlo.convert"(%arg0) : (tensor<2xf32>) -> tensor<2xbf16>
%4 = "stablehlo.clamp"(%arg0, %arg1, %arg0) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
)mlir");
}

TEST(Golden, ConstantsAndIota) {
  EXPECT_EQ(
      body_of({},
              [](Func& f) {
                float nan = std::numeric_limits<float>::quiet_NaN();
                return std::vector<Value>{
                    constant(f, 1.5f, F),
                    constant(f, -0.1, DType::f64, {2}),
                    constant(f, nan, F),
                    constant(f, -std::numeric_limits<double>::infinity(), DType::f64),
                    constant(f, 7, DType::ui64),
                    constant(f, true, DType::pred, {2}),
                    constant(
                        f, Array::from<bool>({2, 2}, std::vector<bool>{true, false, false, true})),
                    constant(f, Array::from<int32_t>({2, 2}, {1, -2, 3, 4})),
                    constant(f, Array::from<float>({3}, {1, 2, 3})),
                    constant(f, Array::from<f16_t>({2}, {f16_t(1.0f), f16_t(-2.0f)})),
                    constant(f, 1.0, DType::bf16),
                    constant(f, Array::from<std::complex<float>>({1}, {{1, -2}})),
                    constant(f, 1e-30f, F),
                    iota(f, T(I, {2, 3}), 1),
                    constant(f, Array(DType::f32, {0}))};
              }),
      R"mlir(%0 = "stablehlo.constant"() {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
%1 = "stablehlo.constant"() {value = dense<-0.1> : tensor<2xf64>} : () -> tensor<2xf64>
%2 = "stablehlo.constant"() {value = dense<0x7FC00000> : tensor<f32>} : () -> tensor<f32>
%3 = "stablehlo.constant"() {value = dense<0xFFF0000000000000> : tensor<f64>} : () -> tensor<f64>
%4 = "stablehlo.constant"() {value = dense<7> : tensor<ui64>} : () -> tensor<ui64>
%5 = "stablehlo.constant"() {value = dense<true> : tensor<2xi1>} : () -> tensor<2xi1>
%6 = "stablehlo.constant"() {value = dense<[[true, false], [false, true]]> : tensor<2x2xi1>} : () -> tensor<2x2xi1>
%7 = "stablehlo.constant"() {value = dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
%8 = "stablehlo.constant"() {value = dense<"0x0000803F0000004000004040"> : tensor<3xf32>} : () -> tensor<3xf32>
%9 = "stablehlo.constant"() {value = dense<"0x003C00C0"> : tensor<2xf16>} : () -> tensor<2xf16>
%10 = "stablehlo.constant"() {value = dense<0x3F80> : tensor<bf16>} : () -> tensor<bf16>
%11 = "stablehlo.constant"() {value = dense<(1.0, -2.0)> : tensor<1xcomplex<f32>>} : () -> tensor<1xcomplex<f32>>
%12 = "stablehlo.constant"() {value = dense<1.0e-30> : tensor<f32>} : () -> tensor<f32>
%13 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x3xi32>
%14 = "stablehlo.constant"() {value = dense<> : tensor<0xf32>} : () -> tensor<0xf32>
)mlir");
}

// i1 data is printed as a list at any size, never as hex: the hex form of i1 differs between MLIR
// versions (packed bits, 8 elements a byte, in the 0.81 plugin's MLIR; one byte per element in
// the 0.115 plugin's, which refuses the packed form), a list reads the same in both.
TEST(Golden, LargeI1ConstantIsAListNotHex) {
  std::vector<bool> v(20);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i % 4 == 1;
  EXPECT_EQ(
      body_of({},
              [&](Func& f) {
                return std::vector<Value>{constant(f, Array::from<bool>({4, 5}, v))};
              }),
      R"mlir(%0 = "stablehlo.constant"() {value = dense<[[false, true, false, false, false], [true, false, false, false, true], [false, false, false, true, false], [false, false, true, false, false]]> : tensor<4x5xi1>} : () -> tensor<4x5xi1>
)mlir");
}

TEST(Golden, ShapeOps) {
  EXPECT_EQ(
      body_of({T(F, {2, 3}), T(F, {3})},
              [](Func& f) {
                return std::vector<Value>{broadcast_in_dim(f.arg(1), {2, 3}, {1}),
                                          reshape(f.arg(0), {3, 2}),
                                          transpose(f.arg(0), {1, 0}),
                                          slice(f.arg(0), {0, 1}, {2, 3}, {1, 2}),
                                          concatenate({f.arg(0), f.arg(0)}, 0),
                                          reverse(f.arg(0), {1}),
                                          get_dimension_size(f.arg(0), 1)};
              }),
      R"mlir(%0 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
%1 = "stablehlo.reshape"(%arg0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
%2 = "stablehlo.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
%3 = "stablehlo.slice"(%arg0) {limit_indices = array<i64: 2, 3>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
%4 = "stablehlo.concatenate"(%arg0, %arg0) {dimension = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
%5 = "stablehlo.reverse"(%arg0) {dimensions = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
%6 = "stablehlo.get_dimension_size"(%arg0) {dimension = 1 : i64} : (tensor<2x3xf32>) -> tensor<i32>
)mlir");
}

TEST(Golden, DotGeneral) {
  EXPECT_EQ(
      body_of({T(F, {2, 3, 4}), T(F, {2, 4, 5})},
              [](Func& f) {
                return std::vector<Value>{
                    dot_general(f.arg(0), f.arg(1), {{0}, {0}, {2}, {1}},
                                {.precision_config = {Precision::DEFAULT, Precision::HIGHEST}}),
                    dot_general(f.arg(0), f.arg(1), {{}, {}, {2}, {1}},
                                {.preferred_element_type = DType::f64})};
              }),
      R"mlir(%0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
%1 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x2x5xf64>
)mlir");
}

TEST(Golden, SortGatherScatterDynamicSlice) {
  EXPECT_EQ(body_of({T(F, {2, 3}), T(I, {2, 1}), T(F, {2, 3})},
                    [](Func& f) {
                      auto s = sort(
                          {f.arg(0), f.arg(2)}, 1,
                          [](const std::vector<Value>& a) {
                            return std::vector<Value>{compare(a[0], a[1], ComparisonDirection::GT)};
                          },
                          true);
                      Value g = gather(f.arg(0), f.arg(1),
                                       {.offset_dims = {1},
                                        .collapsed_slice_dims = {0},
                                        .start_index_map = {0},
                                        .index_vector_dim = 1},
                                       {1, 3});
                      auto sc = scatter(
                          {f.arg(0)}, f.arg(1), {f.arg(2)},
                          {.update_window_dims = {1},
                           .inserted_window_dims = {0},
                           .scatter_dims_to_operand_dims = {0},
                           .index_vector_dim = 1},
                          [](const std::vector<Value>& a) { return std::vector<Value>{a[1]}; },
                          true, true);
                      Value z = constant(f, 0, I);
                      Value ds = dynamic_slice(f.arg(0), {z, z}, {1, 2});
                      return std::vector<Value>{s[0], s[1], g, sc[0],
                                                dynamic_update_slice(f.arg(0), ds, {z, z})};
                    }),
            R"mlir(%0:2 = "stablehlo.sort"(%arg0, %arg2) ({
^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>, %arg5: tensor<f32>, %arg6: tensor<f32>):
%1 = "stablehlo.compare"(%arg3, %arg4) {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
"stablehlo.return"(%1) : (tensor<i1>) -> ()
}) {dimension = 1 : i64, is_stable = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
%2 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
%3 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
"stablehlo.return"(%arg8) : (tensor<f32>) -> ()
}) {indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true} : (tensor<2x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<2x3xf32>
%4 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
%5 = "stablehlo.dynamic_slice"(%arg0, %4, %4) {slice_sizes = array<i64: 1, 2>} : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
%6 = "stablehlo.dynamic_update_slice"(%arg0, %5, %4, %4) : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
)mlir");
}

TEST(Golden, GatherScatterBatching) {
  EXPECT_EQ(
      body_of({T(F, {2, 3, 4}), T(I, {2, 2}), T(F, {2, 3, 2})},
              [](Func& f) {
                Value g = gather(f.arg(0), f.arg(1),
                                 {.offset_dims = {1},
                                  .collapsed_slice_dims = {2},
                                  .operand_batching_dims = {0},
                                  .start_indices_batching_dims = {0},
                                  .start_index_map = {2},
                                  .index_vector_dim = 2},
                                 {1, 3, 1});
                auto sc = scatter({f.arg(0)}, f.arg(1), {f.arg(2)},
                                  {.update_window_dims = {1},
                                   .inserted_window_dims = {2},
                                   .input_batching_dims = {0},
                                   .scatter_indices_batching_dims = {0},
                                   .scatter_dims_to_operand_dims = {2},
                                   .index_vector_dim = 2},
                                  [](const std::vector<Value>& a) {
                                    return std::vector<Value>{add(a[0], a[1])};
                                  });
                return std::vector<Value>{g, sc[0]};
              }),
      R"mlir(%0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3, 1>} : (tensor<2x3x4xf32>, tensor<2x2xi32>) -> tensor<2x3x2xf32>
%1 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
%2 = "stablehlo.add"(%arg3, %arg4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
"stablehlo.return"(%2) : (tensor<f32>) -> ()
}) {indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [2], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [2], index_vector_dim = 2>, unique_indices = false} : (tensor<2x3x4xf32>, tensor<2x2xi32>, tensor<2x3x2xf32>) -> tensor<2x3x4xf32>
)mlir");
}

TEST(Golden, PadBitcastReducePrecision) {
  EXPECT_EQ(
      body_of({T(F, {3}), T(F, {})},
              [](Func& f) {
                return std::vector<Value>{pad(f.arg(0), f.arg(1), {1}, {-1}, {2}),
                                          bitcast_convert(f.arg(0), DType::ui8),
                                          reduce_precision(f.arg(0), 5, 10)};
              }),
      R"mlir(%0 = "stablehlo.pad"(%arg0, %arg1) {edge_padding_high = array<i64: -1>, edge_padding_low = array<i64: 1>, interior_padding = array<i64: 2>} : (tensor<3xf32>, tensor<f32>) -> tensor<7xf32>
%1 = "stablehlo.bitcast_convert"(%arg0) : (tensor<3xf32>) -> tensor<3x4xui8>
%2 = "stablehlo.reduce_precision"(%arg0) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : (tensor<3xf32>) -> tensor<3xf32>
)mlir");
}

TEST(Golden, Convolution) {
  EXPECT_EQ(
      body_of({T(F, {1, 4, 5, 5}), T(F, {6, 2, 3, 3})},
              [](Func& f) {
                ConvDimensionNumbers d = conv_dimension_numbers("NCHW", "OIHW", "NCHW");
                return std::vector<Value>{
                    convolution(f.arg(0), f.arg(1), d,
                                {.window_strides = {2, 1},
                                 .padding = {{1, 1}, {0, 2}},
                                 .rhs_dilation = {2, 1},
                                 .window_reversal = {false, true},
                                 .feature_group_count = 2,
                                 .precision_config = {Precision::DEFAULT, Precision::DEFAULT}})};
              }),
      R"mlir(%0 = "stablehlo.convolution"(%arg0, %arg1) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 2 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<[[1, 1], [0, 2]]> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 2, 1>, window_reversal = array<i1: false, true>, window_strides = array<i64: 2, 1>} : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x2x5xf32>
)mlir");
}

TEST(Golden, BatchNorm) {
  EXPECT_EQ(
      body_of({T(F, {4, 2}), T(F, {2})},
              [](Func& f) {
                auto t = batch_norm_training(f.arg(0), f.arg(1), f.arg(1), 1e-5f, 1);
                Value i = batch_norm_inference(f.arg(0), f.arg(1), f.arg(1), t[1], t[2], 0.001f, 1);
                return std::vector<Value>{
                    batch_norm_grad(f.arg(0), f.arg(1), t[1], t[2], i, 1e-5f, 1)[0]};
              }),
      R"mlir(%0:3 = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg1) {epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
%1 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %0#1, %0#2) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
%2:3 = "stablehlo.batch_norm_grad"(%arg0, %arg1, %0#1, %0#2, %1) {epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
)mlir");
}

TEST(Golden, LinalgFft) {
  EXPECT_EQ(
      body_of({T(DType::f64, {3, 3}), T(DType::c64, {8})},
              [](Func& f) {
                Value c = cholesky(f.arg(0), false);
                return std::vector<Value>{triangular_solve(c, f.arg(0),
                                                           {.left_side = false,
                                                            .lower = false,
                                                            .unit_diagonal = true,
                                                            .transpose_a = Transpose::ADJOINT}),
                                          fft(f.arg(1), FftType::IFFT, {8})};
              }),
      R"mlir(%0 = "stablehlo.cholesky"(%arg0) {lower = false} : (tensor<3x3xf64>) -> tensor<3x3xf64>
%1 = "stablehlo.triangular_solve"(%0, %arg0) {left_side = false, lower = false, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = true} : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
%2 = "stablehlo.fft"(%arg1) {fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type IFFT>} : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
)mlir");
}

TEST(Golden, WindowsAndMap) {
  EXPECT_EQ(
      body_of({T(F, {4, 6}), T(F, {2, 3})},
              [](Func& f) {
                Value z = constant(f, 0.0f, F);
                auto r = reduce_window({f.arg(0)}, {z}, {2, 2},
                                       {.window_strides = {2, 2}, .padding = {{0, 0}, {1, 1}}},
                                       [](const std::vector<Value>& a) {
                                         return std::vector<Value>{add(a[0], a[1])};
                                       });
                Value s = select_and_scatter(
                    f.arg(0), f.arg(1), z, {2, 2}, {2, 2}, {},
                    [](Value a, Value b) { return compare(a, b, ComparisonDirection::GE); },
                    [](Value a, Value b) { return add(a, b); });
                Value m = map({f.arg(0), s}, [](const std::vector<Value>& a) {
                  return std::vector<Value>{maximum(a[0], a[1])};
                });
                return std::vector<Value>{r[0], m};
              }),
      R"mlir(%0 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
%1 = "stablehlo.reduce_window"(%arg0, %0) ({
^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
%2 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
"stablehlo.return"(%2) : (tensor<f32>) -> ()
}) {base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x4xf32>
%3 = "stablehlo.select_and_scatter"(%arg0, %arg1, %0) ({
^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
%4 = "stablehlo.compare"(%arg4, %arg5) {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
"stablehlo.return"(%4) : (tensor<i1>) -> ()
}, {
^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
%5 = "stablehlo.add"(%arg6, %arg7) : (tensor<f32>, tensor<f32>) -> tensor<f32>
"stablehlo.return"(%5) : (tensor<f32>) -> ()
}) {padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<4x6xf32>
%6 = "stablehlo.map"(%arg0, %3) ({
^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
%7 = "stablehlo.maximum"(%arg8, %arg9) : (tensor<f32>, tensor<f32>) -> tensor<f32>
"stablehlo.return"(%7) : (tensor<f32>) -> ()
}) {dimensions = array<i64: 0, 1>} : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
)mlir");
}

TEST(Golden, ControlFlow) {
  EXPECT_EQ(
      body_of({T(DType::pred, {}), T(I, {}), T(F, {2})},
              [](Func& f) {
                Value x = f.arg(2);
                auto w = while_loop(
                    {x}, [&](const std::vector<Value>&) { return std::vector<Value>{f.arg(0)}; },
                    [](const std::vector<Value>& a) { return std::vector<Value>{negate(a[0])}; });
                auto i = if_(
                    f.arg(0), [&] { return std::vector<Value>{x}; },
                    [&] { return std::vector<Value>{w[0]}; });
                auto c = case_(f.arg(1), {[&] { return std::vector<Value>{x}; },
                                          [&] { return std::vector<Value>{i[0]}; }});
                auto b = optimization_barrier({c[0], f.arg(1)});
                return std::vector<Value>{b[0], b[1]};
              }),
      R"mlir(%0 = "stablehlo.while"(%arg2) ({
^bb0(%arg3: tensor<2xf32>):
"stablehlo.return"(%arg0) : (tensor<i1>) -> ()
}, {
^bb0(%arg4: tensor<2xf32>):
%1 = "stablehlo.negate"(%arg4) : (tensor<2xf32>) -> tensor<2xf32>
"stablehlo.return"(%1) : (tensor<2xf32>) -> ()
}) : (tensor<2xf32>) -> tensor<2xf32>
%2 = "stablehlo.if"(%arg0) ({
^bb0():
"stablehlo.return"(%arg2) : (tensor<2xf32>) -> ()
}, {
^bb0():
"stablehlo.return"(%0) : (tensor<2xf32>) -> ()
}) : (tensor<i1>) -> tensor<2xf32>
%3 = "stablehlo.case"(%arg1) ({
^bb0():
"stablehlo.return"(%arg2) : (tensor<2xf32>) -> ()
}, {
^bb0():
"stablehlo.return"(%2) : (tensor<2xf32>) -> ()
}) : (tensor<i32>) -> tensor<2xf32>
%4:2 = "stablehlo.optimization_barrier"(%3, %arg1) : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
)mlir");
}

TEST(Golden, RngAndCustomCall) {
  EXPECT_EQ(
      body_of({T(DType::ui64, {2}), T(F, {})},
              [](Func& f) {
                auto g = rng_bit_generator(f.arg(0), RngAlgorithm::PHILOX, T(DType::ui32, {2, 2}));
                Value r = rng(f.arg(1), f.arg(1), {3}, RngDistribution::NORMAL);
                auto c1 = custom_call(f, "legacy", {r}, {T(F, {3})},
                                      {.api_version = 2,
                                       .backend_config = std::string("cfg\n\"q\""),
                                       .has_side_effect = true});
                auto c4 =
                    custom_call(f, "ffi", {c1[0], g[1]}, {T(F, {3}), T(F, {})},
                                {.backend_config = DictAttr{{{"n", IntAttr{3, DType::i64}},
                                                             {"eps", FloatAttr{1e-5, DType::f32}},
                                                             {"b", BoolAttr{true}}}},
                                 .operand_layouts = {{0}, {1, 0}},
                                 .result_layouts = {{0}, {}}});
                custom_call(f, "no_results", {}, {});
                return std::vector<Value>{c4[0], c4[1], g[0]};
              }),
      R"mlir(%0:2 = "stablehlo.rng_bit_generator"(%arg0) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
%1 = "stablehlo.constant"() {value = dense<3> : tensor<1xi64>} : () -> tensor<1xi64>
%2 = "stablehlo.rng"(%arg1, %arg1, %1) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
%3 = "stablehlo.custom_call"(%2) {api_version = 2 : i32, backend_config = "cfg\0A\"q\"", call_target_name = "legacy", has_side_effect = true} : (tensor<3xf32>) -> tensor<3xf32>
%4:2 = "stablehlo.custom_call"(%3, %0#1) {api_version = 4 : i32, backend_config = {b = true, eps = 1.0e-05 : f32, n = 3 : i64}, call_target_name = "ffi", has_side_effect = false, operand_layouts = [dense<[0]> : tensor<1xindex>, dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[0]> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3xf32>, tensor<2x2xui32>) -> (tensor<3xf32>, tensor<f32>)
"stablehlo.custom_call"() {api_version = 4 : i32, backend_config = {}, call_target_name = "no_results", has_side_effect = false} : () -> ()
)mlir");
}

}  // namespace
}  // namespace hhlo
