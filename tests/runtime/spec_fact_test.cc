// Facts (docs/facts.md, issue 44): ops the CPU plugin computes otherwise than the StableHLO spec
// or aborts on, found by the StableHLO reference interpreter's own tests
// (stablehlo/tests/interpret). Each program here goes to the plugin as it is (Client::compile of
// a parsed module, no program stage); the program stage's rewrites that give the spec's values
// are tested in tests/program/spec_rewrites_test.cc. Expected spec values are hand-derived from
// the spec's text (docs/spec.md upstream) and NumPy.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <complex>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "hhlo/ir/parser.h"
#include "hhlo/program/compile.h"
#include "runtime_util.h"

namespace hhlo {
namespace {

using c64 = std::complex<float>;

/// Outputs of `text` compiled by the plugin as it is, run on `args`.
std::vector<Array> raw_run(const std::string& text, const std::vector<Array>& args) {
  return test::run(compile(test::cpu(), parse_module(text)), args);
}

/// A 1-D array of `t` (2, 4 or 8 bytes wide) whose elements have the bits `bits`.
Array of_bits(DType t, const std::vector<uint64_t>& bits) {
  Array a(t, {static_cast<int64_t>(bits.size())});
  auto* p = static_cast<unsigned char*>(a.data());
  std::size_t w = byte_size(t);
  for (std::size_t i = 0; i < bits.size(); ++i) std::memcpy(p + i * w, &bits[i], w);
  return a;
}

/// The bits of element `i` of `a`.
uint64_t bits_at(const Array& a, std::size_t i) {
  uint64_t b = 0;
  std::size_t w = byte_size(a.dtype());
  std::memcpy(&b, static_cast<const unsigned char*>(a.data()) + i * w, w);
  return b;
}

// Spec: complex maximum/minimum are lexicographic on (real, imaginary): maximum(1+1j, 1+2j) is
// 1+2j and minimum(1+5j, 1+3j) is 1+3j (NumPy agrees). The plugin compares the real parts only
// and keeps the left operand when they tie.
TEST(SpecFact, PluginComplexMaximumAndMinimumCompareRealPartsOnly) {
  const char* text = R"(
func.func @main(%a: tensor<2xcomplex<f32>>, %b: tensor<2xcomplex<f32>>)
    -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) {
  %0 = stablehlo.maximum %a, %b : tensor<2xcomplex<f32>>
  %1 = stablehlo.minimum %a, %b : tensor<2xcomplex<f32>>
  return %0, %1 : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
})";
  auto out = raw_run(
      text, {Array::from<c64>({2}, {{1, 1}, {1, 5}}), Array::from<c64>({2}, {{1, 2}, {1, 3}})});
  EXPECT_EQ(out[0].to_vector<c64>(), (std::vector<c64>{{1, 1}, {1, 5}}));  // spec 1+2j, 1+5j
  EXPECT_EQ(out[1].to_vector<c64>(), (std::vector<c64>{{1, 1}, {1, 5}}));  // spec 1+1j, 1+3j
}

// Spec: add of booleans is logical OR. The plugin folds an add of i1 constants to XOR
// (true + true = false); an add of parameters gives OR.
TEST(SpecFact, PluginFoldsABooleanAddOfConstantsToXor) {
  const char* text = R"(
func.func @main(%a: tensor<2xi1>, %b: tensor<2xi1>) -> (tensor<2xi1>, tensor<2xi1>) {
  %c = stablehlo.constant dense<[true, true]> : tensor<2xi1>
  %d = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %0 = stablehlo.add %c, %d : tensor<2xi1>
  %1 = stablehlo.add %a, %b : tensor<2xi1>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
})";
  auto out =
      raw_run(text, {Array::from<bool>({2}, {true, true}), Array::from<bool>({2}, {true, false})});
  EXPECT_EQ(out[0].to_vector<bool>(), (std::vector<bool>{false, true}));  // spec true, true
  EXPECT_EQ(out[1].to_vector<bool>(), (std::vector<bool>{true, true}));
}

/// ceil and floor of `x` (1-D, 2 elements of `type`) by the plugin as it is.
std::vector<Array> ceil_floor(const std::string& type, const Array& x) {
  std::string text = R"(
func.func @main(%x: tensor<2xT>) -> (tensor<2xT>, tensor<2xT>) {
  %0 = stablehlo.ceil %x : tensor<2xT>
  %1 = stablehlo.floor %x : tensor<2xT>
  return %0, %1 : tensor<2xT>, tensor<2xT>
})";
  for (std::size_t at; (at = text.find("xT>")) != std::string::npos;) text.replace(at + 1, 1, type);
  return raw_run(text, {x});
}

// Spec (IEEE roundToIntegralTowardPositive/Negative): ceil of the smallest positive subnormal is
// 1, floor of its negative is -1. The plugin reads subnormal arguments as zero (DAZ, as
// SubnormalFact.* says of every op) for bf16, f32 and f64: ceil gives 0 and floor -0. f16 is
// computed in f32, where its subnormals are normal numbers: right.
TEST(SpecFact, PluginReadsSubnormalArgumentsOfCeilAndFloorAsZero) {
  struct Case {
    const char* type;
    DType dtype;
    uint64_t sign, one, minus_one;
  };
  for (const Case& c :
       {Case{"bf16", DType::bf16, 0x8000, 0x3F80, 0xBF80},
        Case{"f32", DType::f32, 0x80000000, 0x3F800000, 0xBF800000},
        Case{"f64", DType::f64, uint64_t{1} << 63, 0x3FF0000000000000, 0xBFF0000000000000}}) {
    // The smallest positive subnormal (bits 1) and its negative.
    auto out = ceil_floor(c.type, of_bits(c.dtype, {1, c.sign | 1}));
    EXPECT_EQ(bits_at(out[0], 0), 0u) << c.type << ": spec 1";
    EXPECT_EQ(bits_at(out[1], 1), c.sign) << c.type << ": spec -1";
  }
  auto f16 = ceil_floor("f16", of_bits(DType::f16, {1, 0x8001}));
  EXPECT_EQ(bits_at(f16[0], 0), 0x3C00u);  // 1
  EXPECT_EQ(bits_at(f16[1], 1), 0xBC00u);  // -1
}

// The reference interpreter gives +inf for reduce_precision of NaN with mantissa_bits = 0 (a
// format without mantissa bits has no NaN: stablehlo/tests/interpret/reduce_precision.mlir);
// the plugin keeps the NaN.
TEST(SpecFact, PluginKeepsNaNInReducePrecisionWithoutMantissaBits) {
  const char* text = R"(
func.func @main(%x: tensor<1xf64>) -> tensor<1xf64> {
  %0 = stablehlo.reduce_precision %x, format = e5m0 : tensor<1xf64>
  return %0 : tensor<1xf64>
})";
  auto out = raw_run(text, {of_bits(DType::f64, {0x7FFFFFFFFFFFFFFF})});
  EXPECT_TRUE(std::isnan(out[0].to_vector<double>()[0]));  // interpreter: +inf
}

// Spec: complex to a real type drops the imaginary part. The plugin does so: [-1.5, 0+1j,
// 2.5-3j] to f64 is [-1.5, 0, 2.5] (NumPy's real part), to i1 [true, false, true].
TEST(SpecFact, PluginConvertsComplexToRealByTheRealPart) {
  const char* text = R"(
func.func @main(%x: tensor<3xcomplex<f64>>) -> (tensor<3xf64>, tensor<3xi1>) {
  %0 = stablehlo.convert %x : (tensor<3xcomplex<f64>>) -> tensor<3xf64>
  %1 = stablehlo.convert %x : (tensor<3xcomplex<f64>>) -> tensor<3xi1>
  return %0, %1 : tensor<3xf64>, tensor<3xi1>
})";
  using c128 = std::complex<double>;
  auto out = raw_run(text, {Array::from<c128>({3}, {{-1.5, 0}, {0, 1}, {2.5, -3}})});
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{-1.5, 0, 2.5}));
  EXPECT_EQ(out[1].to_vector<bool>(), (std::vector<bool>{true, false, true}));
}

// Spec: i1 is one bit, so bitcast_convert of tensor<8xi1> is one ui8 (element k is bit k, the
// interpreter's bitcast_convert.mlir) and a ui8 is tensor<8xi1>. The default plugin takes i1 as a
// byte: its results have other shapes than the program's (8 bytes; one i1), silently. The 0.81
// runner-up ends the process (SIGSEGV). Run in a child: exit 0 is the byte shapes.
TEST(SpecFact, PluginBitcastsI1AsAByteOrCrashes) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const char* text = R"(
func.func @main(%x: tensor<8xi1>, %y: tensor<ui8>) -> (tensor<ui8>, tensor<8xi1>) {
  %0 = stablehlo.bitcast_convert %x : (tensor<8xi1>) -> tensor<ui8>
  %1 = stablehlo.bitcast_convert %y : (tensor<ui8>) -> tensor<8xi1>
  return %0, %1 : tensor<ui8>, tensor<8xi1>
})";
  auto byte_shapes = [&] {
    auto out = raw_run(
        text, {Array::from<bool>({8}, {true, false, false, false, false, false, false, true}),
               Array::from<uint8_t>({}, {0x81})});
    // The spec: a scalar, then 8 elements.
    std::_Exit(out[0].dims() == Dims{8} && out[1].dims() == Dims{} ? 0 : 1);
  };
  auto byte_or_segv = [](int status) {
    return (WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
           (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
  };
  EXPECT_EXIT(byte_shapes(), byte_or_segv, "");
}

// A bitcast_convert of complex<f64> to two complex<f32> (or back) ends the process in a CHECK
// failure of the default plugin's shape code (SIGABRT, exit 134); the 0.81 runner-up refuses it
// ("Conversion between complex and real type", exit 3 here). The program stage refuses it first.
TEST(SpecFact, PluginAbortsOnABitcastBetweenComplexWidths) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const char* text = R"(
func.func @main(%x: tensor<2xcomplex<f64>>) -> tensor<2x2xcomplex<f32>> {
  %0 = stablehlo.bitcast_convert %x : (tensor<2xcomplex<f64>>) -> tensor<2x2xcomplex<f32>>
  return %0 : tensor<2x2xcomplex<f32>>
})";
  auto compile_it = [&] {
    try {
      compile(test::cpu(), parse_module(text));
    } catch (const PjrtError&) {
      std::_Exit(3);
    }
    std::_Exit(0);
  };
  auto abort_or_refusal = [](int status) {
    return (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) ||
           (WIFEXITED(status) && WEXITSTATUS(status) == 3);
  };
  EXPECT_EXIT(compile_it(), abort_or_refusal, "");
}

}  // namespace
}  // namespace hhlo
