// Fact (docs/facts.md): XLA:CPU flushes subnormal floats to zero, in results (FTZ) and in inputs
// (DAZ), for f32 and f64, as JAX on CPU does (jax.jit gives the same zeros); NumPy and IEEE 754
// keep them (1e-38 * 1e-2 = 1e-40 in f32, hand-derived). No XLA CPU DebugOptions field changes
// it: xla_cpu_enable_fast_math=false is the default and flushes too (the only `ftz` option,
// xla_gpu_ftz, is the GPU's).
#include <gtest/gtest.h>

#include "runtime_util.h"

namespace hhlo {
namespace {

const char* kProgram = R"(
func.func @main(%x: tensor<2xTYPE>, %y: tensor<2xTYPE>) -> (tensor<2xTYPE>, tensor<2xTYPE>) {
  %0 = stablehlo.multiply %x, %y : tensor<2xTYPE>
  %1 = stablehlo.add %x, %y : tensor<2xTYPE>
  return %0, %1 : tensor<2xTYPE>, tensor<2xTYPE>
}
)";

std::string with_type(std::string text, const std::string& type) {
  for (std::size_t at; (at = text.find("TYPE")) != std::string::npos;) text.replace(at, 4, type);
  return text;
}

TEST(SubnormalFact, Float32SubnormalsAreFlushedInResultsAndInputs) {
  LoadedExecutable exe = test::compile(with_type(kProgram, "f32"));
  // x * y: 1e-38 * 1e-2 = 1e-40 (subnormal) -> 0; x + y: the subnormal input 1e-40 + 0 -> 0.
  auto out = test::run(
      exe, {Array::from<float>({2}, {1e-38f, 1e-40f}), Array::from<float>({2}, {1e-2f, 0.0f})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0.0f, 0.0f}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{1e-2f, 0.0f}));
  // With fast math explicitly off (the default), the same.
  CompileOptions no_fast_math;
  no_fast_math.xla_options["xla_cpu_enable_fast_math"] = false;
  LoadedExecutable strict = test::compile(with_type(kProgram, "f32"), no_fast_math);
  out = test::run(
      strict, {Array::from<float>({2}, {1e-38f, 1e-40f}), Array::from<float>({2}, {1e-2f, 0.0f})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0.0f, 0.0f}));
}

TEST(SubnormalFact, Float64SubnormalsAreFlushedToo) {
  LoadedExecutable exe = test::compile(with_type(kProgram, "f64"));
  auto out = test::run(
      exe, {Array::from<double>({2}, {1e-300, 1e-310}), Array::from<double>({2}, {1e-10, 0.0})});
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(out[1].to_vector<double>(), (std::vector<double>{1e-10, 0.0}));
}

}  // namespace
}  // namespace hhlo
