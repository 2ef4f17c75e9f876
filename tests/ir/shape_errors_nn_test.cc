// One violation per checked constraint: convolution, batch_norm_*, triangular_solve, cholesky,
// fft, rng, rng_bit_generator, reduce_window, select_and_scatter, map, while, if, case,
// custom_call, call.
#include <gtest/gtest.h>

#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"
#include "shape_error_util.h"

namespace hhlo {
namespace {

TensorType T(DType d, Dims s) { return {d, std::move(s)}; }
const DType F = DType::f32, I = DType::i32;
using V = std::vector<int64_t>;

ConvDimensionNumbers nchw() { return conv_dimension_numbers("NCHW", "OIHW", "NCHW"); }

TEST(ShapeErrors, Convolution) {
  TensorType x = T(F, {2, 4, 5, 5}), k = T(F, {6, 4, 3, 3});
  EXPECT_EQ(infer_convolution(x, k, nchw(), {}), T(F, {2, 6, 3, 3}));
  EXPECT_EQ(
      infer_convolution(x, k, nchw(), {.window_strides = {2, 2}, .padding = {{1, 1}, {1, 1}}}),
      T(F, {2, 6, 3, 3}));
  EXPECT_EQ(infer_convolution(x, T(F, {6, 2, 3, 3}), nchw(), {.feature_group_count = 2}),
            T(F, {2, 6, 3, 3}));
  EXPECT_EQ(infer_convolution(x, k, nchw(), {.batch_group_count = 2}), T(F, {1, 6, 3, 3}));
  auto bad = [&](const char* c, ConvOptions o, ConvDimensionNumbers d = nchw(),
                 TensorType kk = {}) {
    if (kk.dims.empty()) kk = T(F, {6, 4, 3, 3});
    EXPECT_SHAPE_ERROR("convolution", c, infer_convolution(x, kk, d, o));
  };
  EXPECT_SHAPE_ERROR("convolution", "C1", infer_convolution(x, T(F, {6, 4, 3}), nchw(), {}));
  bad("C2", {.window_strides = {1}});
  bad("C3", {.window_strides = {1, 0}});
  bad("C4", {.padding = {{0, 0}}});
  bad("C5", {.lhs_dilation = {1, 1, 1}});
  bad("C6", {.lhs_dilation = {0, 1}});
  bad("C7", {.rhs_dilation = {1}});
  bad("C8", {.rhs_dilation = {1, -1}});
  bad("C9", {.window_reversal = {true}});
  bad("C10", {.batch_group_count = 3}, nchw(), T(F, {6, 4, 3, 3}));
  bad("C11", {.feature_group_count = 3});
  auto d12 = nchw();
  d12.input_spatial_dimensions = {2};
  bad("C12", {}, d12);
  auto d13 = nchw();
  d13.input_feature_dimension = 0;
  bad("C13", {}, d13);
  bad("C14", {}, nchw(), T(F, {6, 3, 3, 3}));
  bad("C15", {.batch_group_count = 2}, nchw(), T(F, {5, 4, 3, 3}));
  bad("C16", {.feature_group_count = 2}, nchw(), T(F, {5, 2, 3, 3}));
  auto d17 = nchw();
  d17.kernel_spatial_dimensions = {2};
  bad("C17", {}, d17);
  auto d18 = nchw();
  d18.kernel_output_feature_dimension = 1;
  bad("C18", {}, d18);
  auto d19 = nchw();
  d19.output_spatial_dimensions = {2, 3, 4};
  bad("C19", {}, d19);
  auto d20 = nchw();
  d20.output_batch_dimension = 7;
  bad("C20", {}, d20);
  bad("C21", {.feature_group_count = 0});
  bad("C22", {.batch_group_count = 0});
  bad("C23", {.feature_group_count = 2, .batch_group_count = 2}, nchw(), T(F, {6, 2, 3, 3}));
  bad("C24", {.precision_config = {Precision::HIGH}});
  EXPECT_SHAPE_ERROR("convolution", "C27",
                     infer_convolution(x, T(DType::f64, {6, 4, 3, 3}), nchw(), {}));
}

TEST(ShapeErrors, BatchNorm) {
  TensorType x = T(F, {8, 3}), v = T(F, {3});
  EXPECT_SHAPE_ERROR("batch_norm_inference", "C1", infer_batch_norm_inference(x, v, v, v, v, 2));
  EXPECT_SHAPE_ERROR("batch_norm_inference", "C2",
                     infer_batch_norm_inference(x, T(DType::f64, {3}), v, v, v, 1));
  EXPECT_SHAPE_ERROR("batch_norm_inference", "C2",
                     infer_batch_norm_inference(T(I, {8, 3}), v, v, v, v, 1));
  EXPECT_SHAPE_ERROR("batch_norm_inference", "C3",
                     infer_batch_norm_inference(x, T(F, {4}), v, v, v, 1));
  EXPECT_SHAPE_ERROR("batch_norm_inference", "C4",
                     infer_batch_norm_inference(x, v, T(F, {3, 1}), v, v, 1));
  EXPECT_SHAPE_ERROR("batch_norm_inference", "C5",
                     infer_batch_norm_inference(x, v, v, T(F, {2}), v, 1));
  EXPECT_SHAPE_ERROR("batch_norm_inference", "C6",
                     infer_batch_norm_inference(x, v, v, v, T(F, {8}), 1));
  EXPECT_SHAPE_ERROR("batch_norm_training", "C1", infer_batch_norm_training(x, v, v, -1));
  EXPECT_SHAPE_ERROR("batch_norm_training", "C3", infer_batch_norm_training(x, T(F, {8}), v, 1));
  EXPECT_SHAPE_ERROR("batch_norm_training", "C4", infer_batch_norm_training(x, v, T(F, {8}), 1));
  EXPECT_SHAPE_ERROR("batch_norm_grad", "C6", infer_batch_norm_grad(x, v, v, v, T(F, {8, 2}), 1));
  EXPECT_EQ(infer_batch_norm_training(x, v, v, 1)[1], v);
}

TEST(ShapeErrors, LinalgFftRng) {
  EXPECT_SHAPE_ERROR("triangular_solve", "C1",
                     infer_triangular_solve(T(F, {3, 3}), T(DType::f64, {3, 2}), true));
  EXPECT_SHAPE_ERROR("triangular_solve", "C2", infer_triangular_solve(T(F, {3}), T(F, {3}), true));
  EXPECT_SHAPE_ERROR("triangular_solve", "C3",
                     infer_triangular_solve(T(F, {2, 3, 3}), T(F, {4, 3, 2}), true));
  EXPECT_SHAPE_ERROR("triangular_solve", "C4",
                     infer_triangular_solve(T(F, {3, 3}), T(F, {2, 3}), true));
  EXPECT_SHAPE_ERROR("triangular_solve", "C4",
                     infer_triangular_solve(T(F, {3, 2}), T(F, {3, 2}), true));
  EXPECT_NO_THROW(infer_triangular_solve(T(F, {3, 3}), T(F, {2, 3}), false));
  EXPECT_SHAPE_ERROR("cholesky", "C1", infer_cholesky(T(I, {3, 3})));
  EXPECT_SHAPE_ERROR("cholesky", "C2", infer_cholesky(T(F, {3})));
  EXPECT_SHAPE_ERROR("cholesky", "C3", infer_cholesky(T(F, {3, 2})));
  EXPECT_SHAPE_ERROR("fft", "C1", infer_fft(T(DType::c64, {4}), FftType::FFT, V{}));
  EXPECT_SHAPE_ERROR("fft", "C1", infer_fft(T(DType::c64, {4}), FftType::FFT, V{2, 2}));
  EXPECT_SHAPE_ERROR("fft", "C2", infer_fft(T(F, {4}), FftType::FFT, V{4}));
  EXPECT_SHAPE_ERROR("fft", "C2", infer_fft(T(DType::c64, {4}), FftType::RFFT, V{4}));
  EXPECT_SHAPE_ERROR("fft", "C3", infer_fft(T(DType::c64, {4}), FftType::FFT, V{8}));
  EXPECT_SHAPE_ERROR("fft", "C3", infer_fft(T(DType::c64, {4}), FftType::IRFFT, V{4}));
  EXPECT_EQ(infer_fft(T(F, {2, 8}), FftType::RFFT, V{8}), T(DType::c64, {2, 5}));
  EXPECT_EQ(infer_fft(T(DType::c128, {5}), FftType::IRFFT, V{8}), T(DType::f64, {8}));
  EXPECT_SHAPE_ERROR("rng", "C1",
                     infer_rng(T(F, {}), T(DType::f64, {}), {2}, RngDistribution::UNIFORM));
  EXPECT_SHAPE_ERROR("rng", "C1", infer_rng(T(F, {1}), T(F, {}), {2}, RngDistribution::UNIFORM));
  EXPECT_SHAPE_ERROR("rng", "C2", infer_rng(T(I, {}), T(I, {}), {2}, RngDistribution::NORMAL));
  TensorType out = T(DType::ui32, {4});
  EXPECT_SHAPE_ERROR("rng_bit_generator", "C1",
                     infer_rng_bit_generator(T(F, {2}), RngAlgorithm::DEFAULT, out));
  EXPECT_SHAPE_ERROR("rng_bit_generator", "C2",
                     infer_rng_bit_generator(T(DType::ui64, {3}), RngAlgorithm::THREE_FRY, out));
  EXPECT_SHAPE_ERROR("rng_bit_generator", "C2",
                     infer_rng_bit_generator(T(DType::ui64, {4}), RngAlgorithm::PHILOX, out));
  EXPECT_SHAPE_ERROR(
      "rng_bit_generator", "C3",
      infer_rng_bit_generator(T(DType::ui64, {2}), RngAlgorithm::DEFAULT, T(DType::pred, {2})));
}

TEST(ShapeErrors, Windows) {
  std::vector<TensorType> in = {T(F, {4, 6})}, init = {T(F, {})}, none;
  std::vector<std::pair<int64_t, int64_t>> nopad, pad1 = {{0, 0}};
  V w = {2, 2}, ones = {1, 1}, empty;
  EXPECT_EQ(infer_reduce_window(in, init, w, V{2, 2}, empty, empty, nopad)[0], T(F, {2, 3}));
  EXPECT_EQ(infer_reduce_window(in, init, w, empty, V{2, 1}, empty, nopad)[0], T(F, {6, 5}));
  EXPECT_SHAPE_ERROR("reduce_window", "C1",
                     infer_reduce_window(in, none, w, empty, empty, empty, nopad));
  std::vector<TensorType> two = {T(F, {4, 6}), T(F, {4, 5})}, two_init = {T(F, {}), T(F, {})};
  EXPECT_SHAPE_ERROR("reduce_window", "C2",
                     infer_reduce_window(two, two_init, w, empty, empty, empty, nopad));
  EXPECT_SHAPE_ERROR(
      "reduce_window", "C3",
      infer_reduce_window(in, std::vector<TensorType>{T(I, {})}, w, empty, empty, empty, nopad));
  EXPECT_SHAPE_ERROR("reduce_window", "C4",
                     infer_reduce_window(in, init, V{2}, empty, empty, empty, nopad));
  EXPECT_SHAPE_ERROR("reduce_window", "C5",
                     infer_reduce_window(in, init, V{2, 0}, empty, empty, empty, nopad));
  EXPECT_SHAPE_ERROR("reduce_window", "C6",
                     infer_reduce_window(in, init, w, V{1}, empty, empty, nopad));
  EXPECT_SHAPE_ERROR("reduce_window", "C7",
                     infer_reduce_window(in, init, w, V{1, 0}, empty, empty, nopad));
  EXPECT_SHAPE_ERROR("reduce_window", "C8",
                     infer_reduce_window(in, init, w, empty, V{1}, empty, nopad));
  EXPECT_SHAPE_ERROR("reduce_window", "C9",
                     infer_reduce_window(in, init, w, empty, V{0, 1}, empty, nopad));
  EXPECT_SHAPE_ERROR("reduce_window", "C10",
                     infer_reduce_window(in, init, w, empty, empty, V{1, 1, 1}, nopad));
  EXPECT_SHAPE_ERROR("reduce_window", "C11",
                     infer_reduce_window(in, init, w, empty, empty, V{1, -2}, nopad));
  EXPECT_SHAPE_ERROR("reduce_window", "C12",
                     infer_reduce_window(in, init, w, empty, empty, empty, pad1));
  Module m;
  Func& f = m.add_func("main", {T(F, {4, 6}), T(F, {2, 3})});
  Value zero = constant(f, 0.0f, F);
  EXPECT_SHAPE_ERROR("reduce_window", "C13",
                     reduce_window({f.arg(0)}, {zero}, w, {}, [](const std::vector<Value>& a) {
                       return std::vector<Value>{a[0], a[1]};
                     }));
  TensorType op = T(F, {4, 6}), src = T(F, {2, 3}), s = T(F, {});
  EXPECT_EQ(infer_select_and_scatter(op, src, s, w, V{2, 2}, nopad), op);
  EXPECT_SHAPE_ERROR("select_and_scatter", "C1",
                     infer_select_and_scatter(op, T(I, {2, 3}), s, w, V{2, 2}, nopad));
  EXPECT_SHAPE_ERROR("select_and_scatter", "C2",
                     infer_select_and_scatter(op, T(F, {3, 3}), s, w, V{2, 2}, nopad));
  EXPECT_SHAPE_ERROR("select_and_scatter", "C3",
                     infer_select_and_scatter(op, src, T(F, {1}), w, V{2, 2}, nopad));
  EXPECT_SHAPE_ERROR("select_and_scatter", "C4",
                     infer_select_and_scatter(op, src, s, V{2}, V{2, 2}, nopad));
  EXPECT_SHAPE_ERROR("select_and_scatter", "C5",
                     infer_select_and_scatter(op, src, s, V{0, 2}, V{2, 2}, nopad));
  EXPECT_SHAPE_ERROR("select_and_scatter", "C6",
                     infer_select_and_scatter(op, src, s, w, V{2}, nopad));
  EXPECT_SHAPE_ERROR("select_and_scatter", "C7",
                     infer_select_and_scatter(op, src, s, w, V{2, 0}, nopad));
  EXPECT_SHAPE_ERROR("select_and_scatter", "C8",
                     infer_select_and_scatter(op, src, s, w, V{2, 2}, pad1));
  auto ge = [](Value a, Value b) { return compare(a, b, ComparisonDirection::GE); };
  auto plus = [](Value a, Value b) { return add(a, b); };
  EXPECT_SHAPE_ERROR("select_and_scatter", "C9",
                     select_and_scatter(f.arg(0), f.arg(1), zero, w, {2, 2}, {}, plus, plus));
  EXPECT_SHAPE_ERROR("select_and_scatter", "C10",
                     select_and_scatter(f.arg(0), f.arg(1), zero, w, {2, 2}, {}, ge, ge));
}

TEST(ShapeErrors, MapControlFlowCalls) {
  Module m;
  Func& f = m.add_func("main", {T(F, {3}), T(F, {4}), T(DType::pred, {}), T(I, {}), T(F, {})});
  EXPECT_SHAPE_ERROR("map", "C1", map({f.arg(0), f.arg(1)}, [](const std::vector<Value>& a) {
                       return std::vector<Value>{a[0]};
                     }));
  EXPECT_SHAPE_ERROR("map", "C2", map({}, [](const std::vector<Value>& a) { return a; }));
  EXPECT_SHAPE_ERROR("map", "C4", map({f.arg(0)}, [](const std::vector<Value>& a) {
                       return std::vector<Value>{a[0], a[0]};
                     }));
  Value x = f.arg(0);
  EXPECT_SHAPE_ERROR("while", "C1",
                     while_loop(
                         {x}, [](const std::vector<Value>& a) { return a; },
                         [](const std::vector<Value>& a) { return a; }));
  Value p = f.arg(2);
  auto cond = [&](const std::vector<Value>&) { return std::vector<Value>{p}; };
  EXPECT_SHAPE_ERROR("while", "C2", while_loop({x}, cond, [&](const std::vector<Value>&) {
                       return std::vector<Value>{f.arg(1)};
                     }));
  EXPECT_SHAPE_ERROR(
      "if", "C2",
      if_(
          p, [&] { return std::vector<Value>{x}; }, [&] { return std::vector<Value>{f.arg(1)}; }));
  EXPECT_SHAPE_ERROR(
      "if", "",
      if_(
          f.arg(3), [&] { return std::vector<Value>{x}; }, [&] { return std::vector<Value>{x}; }));
  EXPECT_SHAPE_ERROR("case", "C1", case_(f.arg(3), {}));
  EXPECT_SHAPE_ERROR("case", "C3",
                     case_(f.arg(3), {[&] { return std::vector<Value>{x}; },
                                      [&] { return std::vector<Value>{}; }}));
  EXPECT_SHAPE_ERROR("case", "", case_(f.arg(4), {[&] { return std::vector<Value>{x}; }}));
  EXPECT_SHAPE_ERROR("custom_call", "", custom_call(f, "t", {x}, {T(F, {3})}, {.api_version = 5}));
  EXPECT_SHAPE_ERROR("custom_call", "",
                     custom_call(f, "t", {x}, {T(F, {3})},
                                 {.api_version = 4, .backend_config = std::string("x")}));
  EXPECT_SHAPE_ERROR(
      "custom_call", "",
      custom_call(f, "t", {x}, {T(F, {3})},
                  {.api_version = 2, .backend_config = DictAttr{{{"a", BoolAttr{true}}}}}));
  EXPECT_SHAPE_ERROR("custom_call", "",
                     custom_call(f, "t", {x}, {T(F, {3})}, {.operand_layouts = {{0}}}));
  EXPECT_SHAPE_ERROR(
      "custom_call", "",
      custom_call(f, "t", {x}, {T(F, {3})}, {.operand_layouts = {{1}}, .result_layouts = {{0}}}));
  EXPECT_SHAPE_ERROR("custom_call", "", custom_call(f, "", {x}, {T(F, {3})}));
  // None of the failed calls above changed the function.
  EXPECT_TRUE(f.body().ops().empty());
}

}  // namespace
}  // namespace hhlo
