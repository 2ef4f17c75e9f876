// Argument checks come from the program the plugin compiled (PJRT_Executable_OptimizedProgram),
// never from a scan of the text: each program below once fooled the old `@main(` scan into
// skipping the checks (an i32 buffer reinterpreted as f32) or into refusing correct inputs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "runtime_util.h"

namespace hhlo {
namespace {

/// Runs `exe` on an i32 buffer of 5 elements and expects the dtype check to refuse it, then on
/// an f32 buffer and expects `x + 1`.
void expect_checked(const LoadedExecutable& exe) {
  ASSERT_TRUE(exe.input_types().has_value()) << exe.signature_error();
  EXPECT_EQ(*exe.input_types(), (std::vector<TensorType>{{DType::f32, {5}}}));
  Buffer wrong = test::cpu().buffer_from_host(Array::from<int32_t>({5}, {1, 2, 3, 4, 5}));
  try {
    exe.execute({&wrong});
    FAIL() << "an i32 argument reached an f32 parameter";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("argument 0 has type tensor<5xi32>"), std::string::npos)
        << e.what();
  }
  auto out = test::run(exe, {Array::from<float>({5}, {1, 2, 3, 4, 5.5f})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2, 3, 4, 5, 6.5f}));
}

TEST(Signature, ShardingAttributeOnTheArgumentDoesNotHideTheCheck) {
  expect_checked(test::compile(R"(
func.func @main(%x: tensor<5xf32> {mhlo.sharding = "{devices=[1]<=[1]}"}) -> tensor<5xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<5xf32>
  %0 = stablehlo.add %x, %one : tensor<5xf32>
  return %0 : tensor<5xf32>
}
)"));
}

TEST(Signature, LocationWithAParenthesisDoesNotHideTheCheck) {
  expect_checked(test::compile(R"(
func.func @main(%x: tensor<5xf32> loc("a(b")) -> tensor<5xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<5xf32>
  %0 = stablehlo.add %x, %one : tensor<5xf32>
  return %0 : tensor<5xf32>
}
)"));
}

TEST(Signature, CallOfMainBeforeItsDefinitionDoesNotHideTheCheck) {
  expect_checked(test::compile(R"(
func.func private @helper(%x: tensor<5xf32>) -> tensor<5xf32> {
  %0 = func.call @main(%x) : (tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<5xf32>
  %0 = stablehlo.add %x, %one : tensor<5xf32>
  return %0 : tensor<5xf32>
}
)"));
}

TEST(Signature, CommentNamingMainDoesNotRefuseCorrectInputs) {
  expect_checked(test::compile(R"(
// @main(%arg0: tensor<5xi64>)
func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<5xf32>
  %0 = stablehlo.add %x, %one : tensor<5xf32>
  return %0 : tensor<5xf32>
}
)"));
}

TEST(Signature, EveryDTypeIsReadFromTheCompiledProgram) {
  std::string params, types;
  std::vector<TensorType> want;
  for (DType t : kAllDTypes) {
    if (t == DType::f6E2M3FN || t == DType::f6E3M2FN) continue;  // refused: they abort XLA
    TensorType type{t, {2, static_cast<int64_t>(want.size()) + 1}};
    params += fmt::format("{}%a{}: {}", want.empty() ? "" : ", ", want.size(), type.to_string());
    want.push_back(type);
  }
  LoadedExecutable exe = test::compile(fmt::format(R"(
func.func @main({}) -> tensor<2x1xi1> {{
  return %a0 : tensor<2x1xi1>
}}
)",
                                                   params));
  ASSERT_TRUE(exe.input_types().has_value()) << exe.signature_error();
  EXPECT_EQ(*exe.input_types(), want);
}

TEST(Signature, ScalarAndZeroSizedParameters) {
  LoadedExecutable exe = test::compile(R"(
func.func @main(%a: tensor<f64>, %b: tensor<0x3xi8>) -> tensor<f64> {
  return %a : tensor<f64>
}
)");
  ASSERT_TRUE(exe.input_types().has_value()) << exe.signature_error();
  EXPECT_EQ(*exe.input_types(), (std::vector<TensorType>{{DType::f64, {}}, {DType::i8, {0, 3}}}));
}

TEST(Signature, DeserializedExecutableIsCheckedToo) {
  LoadedExecutable exe = test::compile(R"(
func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<5xf32>
  %0 = stablehlo.add %x, %one : tensor<5xf32>
  return %0 : tensor<5xf32>
}
)");
  expect_checked(test::cpu().deserialize(exe.serialize()));
}

}  // namespace
}  // namespace hhlo
