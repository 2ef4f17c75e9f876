// PrepareOptions::vmap_batch (hhlo/program/vmap_main.h): a per-example program batched over a
// new leading axis by vmap, loaded and run; values derived by hand per example.
#include "hhlo/program/vmap_main.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hhlo/ir/parser.h"
#include "hhlo/program/load.h"
#include "hhlo/program/placed_call.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;

// Per example: y = x * s (x: 2 floats, s: a scalar), z = sum(x); the names JAX would give.
constexpr const char* kPerExample = R"(func.func @main(%x: tensor<2xf32> {jax.arg_info = "x"},
                     %s: tensor<f32> {jax.arg_info = "s"})
    -> (tensor<2xf32> {jax.result_info = "result['y']"}, tensor<f32> {jax.result_info = "result['z']"}) {
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %y = stablehlo.multiply %x, %b : tensor<2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %z = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return %y, %z : tensor<2xf32>, tensor<f32>
})";

TEST(VmapMain, BatchesEveryArgumentAndResultAndKeepsTheirNames) {
  Module m = parse_module(kPerExample);
  vmap_main(m, 3);
  const Func* main = m.find("main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->arg_types()[0], (TensorType{DType::f32, {3, 2}}));
  EXPECT_EQ(main->arg_types()[1], (TensorType{DType::f32, {3}}));
  EXPECT_EQ(main->result_types()[0], (TensorType{DType::f32, {3, 2}}));
  EXPECT_EQ(main->result_types()[1], (TensorType{DType::f32, {3}}));
  EXPECT_EQ(io_names(m).args, (std::vector<std::string>{"x", "s"}));
  EXPECT_EQ(io_names(m).results, (std::vector<std::string>{"result['y']", "result['z']"}));
  EXPECT_EQ(m.funcs().size(), 1u);  // the per-example function is gone
}

TEST(VmapMain, LoadedWithVmapBatchItComputesEachExample) {
  LoadRequest request;
  request.bytes = kPerExample;
  request.name = "per_example.mlir";
  request.options.prepare.vmap_batch = 3;
  Loaded l = load(request);
  std::vector<Array> inputs = {Array::from<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
                               Array::from<float>({3}, {10, -1, 0.5f})};
  std::vector<Array> out = PlacedCall(l.client, l.executable, inputs).to_host();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{10, 20, -3, -4, 2.5f, 3}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{3, 7, 11}));
}

TEST(VmapMain, ADynamicPerExampleTypeOrABatchBelowOneIsRefused) {
  Module dynamic = parse_module(R"(func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
})");
  try {
    vmap_main(dynamic, 2);
    FAIL() << "a dynamic type was batched";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("is dynamic"));
  }
  Module m = parse_module(kPerExample);
  EXPECT_THROW(vmap_main(m, 0), Error);
}

}  // namespace
}  // namespace hhlo
