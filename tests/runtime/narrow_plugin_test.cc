// The narrow element types (i2, i4, ui2, ui4, f4E2M1FN, f8*) on the CPU plugin: host buffers of
// one byte per element both ways, converts from f32 against ml_dtypes
// (tests/core/gen_narrow_dtypes.py), the StableHLO interpreter's own cases for these types
// (stablehlo/tests/interpret, read here as data: the program, and its check's expected literal),
// and f6E2M3FN/f6E3M2FN refused before the plugin (they abort XLA).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <regex>

#include "hhlo/core/file_io.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"
#include "runtime_util.h"

namespace hhlo {
namespace detail {

/// The program exactly as given, to the plugin's own reader (PrintedProgram's friend for these
/// tests).
struct PluginTextProbe {
  static LoadedExecutable compile(const Client& client, const std::string& program) {
    return client.compile(PrintedProgram(program));
  }
};

}  // namespace detail
namespace {

/// The narrow types as the default plugin (PJRT C API 0.115, StableHLO 1.20) runs them: the facts
/// pinned here are its own. The 0.81 runner-up (compat label) emits invalid LLVM IR for some
/// narrow programs and refuses the f6 constant that aborts the default one: its tests are skipped.
class NarrowPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Plugin::for_platform("cpu").api_minor() < 115)
      GTEST_SKIP() << "the narrow types' facts are the default plugin's (PJRT C API 0.115)";
  }
};

std::string generated(const std::string& name) {
  return std::string(HHLO_GENERATED_DIR) + "/narrow/" + name;
}

bool aborts_xla(DType t) { return t == DType::f6E2M3FN || t == DType::f6E3M2FN; }

TEST_F(NarrowPlugin, HostBuffersHoldOneElementPerByteBothWays) {
  for (DType t : kNarrowDTypes) {
    if (aborts_xla(t)) continue;
    SCOPED_TRACE(std::string(mlir_name(t)));
    Array a(t, {3, 5});
    auto* b = static_cast<uint8_t*>(a.data());
    for (std::size_t i = 0; i < a.byte_size(); ++i)
      b[i] = static_cast<uint8_t>((7 * i + 3) & ((1u << bit_width(t)) - 1));
    Buffer buf = test::cpu().buffer_from_host(a);
    EXPECT_EQ(buf.dtype(), t);
    EXPECT_EQ(buf.to_host(), a);
  }
}

TEST_F(NarrowPlugin, F6TypesAreRefusedBeforeThePlugin) {
  for (DType t : {DType::f6E2M3FN, DType::f6E3M2FN}) {
    SCOPED_TRACE(std::string(mlir_name(t)));
    std::string ty = TensorType{t, {2}}.to_string();
    try {
      test::compile("func.func @main(%x: tensor<2xf32>) -> " + ty +
                    " {\n  %0 = stablehlo.convert %x : (tensor<2xf32>) -> " + ty +
                    "\n  return %0 : " + ty + "\n}\n");
      ADD_FAILURE() << "compiled";
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(std::string(mlir_name(t))), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    EXPECT_THROW(test::cpu().buffer_from_host(Array(t, {2})), Error);
  }
}

// The fact behind the refusal above: a program converting an f32 constant to an f6 type, given to
// the plugin as bytecode (which our text check does not read), ends the process in XLA's constant
// folding ("Check failed: ... (0 vs. 2)", array.h). Converting an f32 argument to f6, or adding
// two f6 values, fails the compile with an error instead; an f6 argument returned as it is, and an
// f6 constant converted to f32, run (docs/facts.md). (tests/core/gen_narrow_dtypes.py, jaxlib's
// serializer.)
TEST_F(NarrowPlugin, PluginAbortsOnAnF6Program) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const char* t : {"f6E2M3FN", "f6E3M2FN"}) {
    std::string bytes = read_file(generated(std::string(t) + "_convert.mlirbc"), "program");
    EXPECT_EXIT(detail::PluginTextProbe::compile(test::cpu(), bytes),
                testing::KilledBySignal(SIGABRT), "Check failed")
        << t;
  }
}

/// Both NaN, or equal bit patterns.
bool same_code(DType t, uint8_t a, uint8_t b) {
  return visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kIsFloatStruct<T> && sizeof(T) == 1) {
      if (std::isnan(T::decode(a)) || std::isnan(T::decode(b)))
        return std::isnan(T::decode(a)) && std::isnan(T::decode(b));
    }
    return a == b;
  });
}

TEST_F(NarrowPlugin, ConvertsFromF32AsMlDtypes) {
  Array in = read_npy(generated("plugin_inputs.npy"));
  const int64_t n = in.num_elements();
  for (DType t : kNarrowDTypes) {
    if (!is_float(t) || aborts_xla(t)) continue;
    SCOPED_TRACE(std::string(mlir_name(t)));
    std::string ty = TensorType{t, {n}}.to_string(), f = TensorType{DType::f32, {n}}.to_string();
    LoadedExecutable exe =
        test::compile(fmt::format("func.func @main(%x: {1}) -> ({0}, {1}) {{\n"
                                  "  %0 = stablehlo.convert %x : ({1}) -> {0}\n"
                                  "  %1 = stablehlo.convert %0 : ({0}) -> {1}\n"
                                  "  return %0, %1 : {0}, {1}\n}}\n",
                                  ty, f));
    std::vector<Array> out = test::run(exe, {in});
    Array want = read_npy(generated(std::string(mlir_name(t)) + "_plugin.npy"));
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i) {
      uint8_t got = static_cast<const uint8_t*>(out[0].data())[i];
      uint8_t w = want.values<uint8_t>()[static_cast<size_t>(i)];
      if (!same_code(t, got, w))
        ADD_FAILURE() << ++bad << ": " << in.values<float>()[static_cast<size_t>(i)] << " gives 0x"
                      << std::hex << +got << ", ml_dtypes 0x" << +w;
      double back = out[1].element_as_double(i), dw = out[0].element_as_double(i);
      if (!(back == dw || (std::isnan(back) && std::isnan(dw))))
        ADD_FAILURE() << ++bad << ": the code converts back to " << back << ", not " << dw;
    }
  }
}

/// One case of stablehlo/tests/interpret: the function's body, with its check.
struct InterpretCase {
  const char* name;
  const char* body;
};

// stablehlo/tests/interpret/{add,subtract,negate,and,or,xor,not,maximum,minimum,convert,iota,
// dot_general}.mlir: the cases of the narrow types, each function's body as written there.
constexpr InterpretCase kInterpretCases[] = {
    {"add_op_test_si2", R"(
  %0 = stablehlo.constant dense<[1, 0, -1, -2]> : tensor<4xi2>
  %1 = stablehlo.constant dense<[-1, 1, 1, 1]> : tensor<4xi2>
  %2 = stablehlo.add %0, %1 : tensor<4xi2>
  check.expect_eq_const %2, dense<[0, 1, 0, -1]> : tensor<4xi2>)"},
    {"add_op_test_ui2", R"(
  %0 = stablehlo.constant dense<[0, 2]> : tensor<2xui2>
  %1 = stablehlo.constant dense<[1, 1]> : tensor<2xui2>
  %2 = stablehlo.add %0, %1 : tensor<2xui2>
  check.expect_eq_const %2, dense<[1, 3]> : tensor<2xui2>)"},
    {"add_op_test_si4", R"(
  %0 = stablehlo.constant dense<[0, 1, 2, -3, 0]> : tensor<5xi4>
  %1 = stablehlo.constant dense<[-8, -1, 2, -3, 7]> : tensor<5xi4>
  %2 = stablehlo.add %0, %1 : tensor<5xi4>
  check.expect_eq_const %2, dense<[-8, 0, 4, -6, 7]> : tensor<5xi4>)"},
    {"add_op_test_ui4", R"(
  %0 = stablehlo.constant dense<[0, 2]> : tensor<2xui4>
  %1 = stablehlo.constant dense<[15, 3]> : tensor<2xui4>
  %2 = stablehlo.add %0, %1 : tensor<2xui4>
  check.expect_eq_const %2, dense<[15, 5]> : tensor<2xui4>)"},
    {"add_op_scalar", R"(
  %0 = stablehlo.constant dense<2> : tensor<i4>
  %1 = stablehlo.constant dense<3> : tensor<i4>
  %2 = stablehlo.add %0, %1 : tensor<i4>
  check.expect_eq_const %2, dense<5> : tensor<i4>)"},
    {"subtract_op_test_si4", R"(
  %0 = stablehlo.constant dense<[0, 1, 2, -3, 0]> : tensor<5xi4>
  %1 = stablehlo.constant dense<[-8, -1, 2, -3, 7]> : tensor<5xi4>
  %2 = stablehlo.subtract %0, %1 : tensor<5xi4>
  check.expect_eq_const %2, dense<[-8, 2, 0, 0, -7]> : tensor<5xi4>)"},
    {"subtract_op_test_ui4", R"(
  %0 = stablehlo.constant dense<[0, 2]> : tensor<2xui4>
  %1 = stablehlo.constant dense<[15, 3]> : tensor<2xui4>
  %2 = stablehlo.subtract %0, %1 : tensor<2xui4>
  check.expect_eq_const %2, dense<[1, 15]> : tensor<2xui4>)"},
    {"negate_op_test_si4", R"(
  %0 = stablehlo.constant dense<[-8, -1, 0, 1, 7]> : tensor<5xi4>
  %1 = stablehlo.negate %0 : tensor<5xi4>
  check.expect_eq_const %1, dense<[-8, 1, 0, -1, -7]> : tensor<5xi4>)"},
    {"negate_op_test_ui4", R"(
  %0 = stablehlo.constant dense<[0, 8, 15]> : tensor<3xui4>
  %1 = stablehlo.negate %0 : tensor<3xui4>
  check.expect_eq_const %1, dense<[0, 8, 1]> : tensor<3xui4>)"},
    {"and_op_test_si4", R"(
  %0 = stablehlo.constant dense<[7, -8, -8]> : tensor<3xi4>
  %1 = stablehlo.constant dense<[0, 7, -8]> : tensor<3xi4>
  %2 = stablehlo.and %0, %1 : tensor<3xi4>
  check.expect_eq_const %2, dense<[0, 0, -8]> : tensor<3xi4>)"},
    {"or_op_test_si4", R"(
  %0 = stablehlo.constant dense<[7, -8, -8]> : tensor<3xi4>
  %1 = stablehlo.constant dense<[0, 7, -8]> : tensor<3xi4>
  %2 = stablehlo.or %0, %1 : tensor<3xi4>
  check.expect_eq_const %2, dense<[7, -1, -8]> : tensor<3xi4>)"},
    {"xor_op_test_ui4", R"(
  %0 = stablehlo.constant dense<[0, 7, 15]> : tensor<3xui4>
  %1 = stablehlo.constant dense<15> : tensor<3xui4>
  %2 = stablehlo.xor %0, %1 : tensor<3xui4>
  check.expect_eq_const %2, dense<[15, 8, 0]> : tensor<3xui4>)"},
    {"not_op_test_si4", R"(
  %0 = stablehlo.constant dense<[7, -8, 0]> : tensor<3xi4>
  %1 = stablehlo.not %0 : tensor<3xi4>
  check.expect_eq_const %1, dense<[-8, 7, -1]> : tensor<3xi4>)"},
    {"max_op_test_si4", R"(
  %0 = stablehlo.constant dense<[0, 1, 2, -3, 0]> : tensor<5xi4>
  %1 = stablehlo.constant dense<[-8, -1, 2, -3, 7]> : tensor<5xi4>
  %2 = stablehlo.maximum %0, %1 : tensor<5xi4>
  check.expect_eq_const %2, dense<[0, 1, 2, -3, 7]> : tensor<5xi4>)"},
    {"min_op_test_ui4", R"(
  %0 = stablehlo.constant dense<[0, 2]> : tensor<2xui4>
  %1 = stablehlo.constant dense<[15, 3]> : tensor<2xui4>
  %2 = stablehlo.minimum %0, %1 : tensor<2xui4>
  check.expect_eq_const %2, dense<[0, 2]> : tensor<2xui4>)"},
    {"convert_op_test_si64_to_c128", R"(
  %operand = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi4>
  %result = stablehlo.convert %operand : (tensor<3xi4>) -> tensor<3xcomplex<f64>>
  check.expect_almost_eq_const %result, dense<[(-1.0, 0.0), (0.0, 0.0), (1.0, 0.0)]> : tensor<3xcomplex<f64>>)"},
    {"convert_op_test_ui64_to_ui64", R"(
  %operand = stablehlo.constant dense<[0, 1]> : tensor<2xui4>
  %result = stablehlo.convert %operand : (tensor<2xui4>) -> tensor<2xui64>
  check.expect_eq_const %result, dense<[0, 1]> : tensor<2xui64>)"},
    {"iota_op_test_si4_dim_1", R"(
  %0 = stablehlo.iota dim = 1 : tensor<3x4xi4>
  check.expect_eq_const %0, dense<[[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]> : tensor<3x4xi4>)"},
    {"add_op_test_f8E3M4 (dot_general.mlir)", R"(
  %0 = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf8E3M4>
  %result = stablehlo.dot_general %0, %0,
    contracting_dims = [0] x [0]
    : (tensor<4xf8E3M4>, tensor<4xf8E3M4>) -> tensor<f8E3M4>
  check.expect_almost_eq_const %result, dense<14.0> : tensor<f8E3M4>)"},
    {"add_op_test_f8E4M3 (dot_general.mlir)", R"(
  %0 = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0,
                                 4.0, 5.0, 6.0, 7.0]> : tensor<8xf8E4M3>
  %result = stablehlo.dot_general %0, %0,
    contracting_dims = [0] x [0]
    : (tensor<8xf8E4M3>, tensor<8xf8E4M3>) -> tensor<f8E4M3>
  check.expect_almost_eq_const %result, dense<140.0> : tensor<f8E4M3>)"},
};

/// The case as a program returning the checked value, and the expected literal's array.
std::pair<std::string, Array> program_of(const InterpretCase& c) {
  static const std::regex check(
      R"(\n\s*check\.expect_(almost_)?eq_const (%\w+), (dense<[\s\S]*>) : (tensor<[^\n]*>)$)");
  std::cmatch m;
  std::string body = c.body;
  if (!std::regex_search(body.c_str(), m, check)) throw Error("no check in the case");
  std::string value = m[2], literal = m[3], type = m[4];
  std::string program = "func.func @main() -> " + type + " {" + body.substr(0, m.position(0)) +
                        "\n  return " + value + " : " + type + "\n}\n";
  Module want = parse_module("func.func @main() -> " + type + " {\n  %0 = stablehlo.constant " +
                             literal + " : " + type + "\n  return %0 : " + type + "\n}\n");
  return {program, *want.funcs()[0]->body().ops()[0]->attr("value")->get_if<DenseAttr>()->array};
}

TEST_F(NarrowPlugin, InterpreterCasesOfTheNarrowTypes) {
  for (const InterpretCase& c : kInterpretCases) {
    SCOPED_TRACE(c.name);
    auto [program, want] = program_of(c);
    Module m = parse_module(program);
    verify(m);
    std::vector<Array> out = test::run(test::compile(to_mlir(m)), {});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].type(), want.type());
    for (int64_t i = 0; i < want.num_elements(); ++i)  // almost_eq: within 1e-4 (exact here)
      EXPECT_NEAR(out[0].element_as_double(i), want.element_as_double(i), 1e-4) << i;
  }
}

// stablehlo/tests/interpret/after_all.mlir, as written there (its function renamed @main):
// tokens made by after_all and create_token, read, printed and run.
TEST(TokenPlugin, TheInterpretersAfterAllCaseRuns) {
  Module m = parse_module(R"(func.func @main() {
  %input0 = stablehlo.after_all : !stablehlo.token
  %input1 = stablehlo.after_all : !stablehlo.token
  %result = stablehlo.after_all %input0, %input1 : !stablehlo.token
  func.return
})");
  verify(m);
  std::string text = to_mlir(m);
  EXPECT_EQ(to_mlir(parse_module(text)), text);
  EXPECT_TRUE(test::run(test::compile(text), {}).empty());
}

TEST(TokenPlugin, CreateTokenAndAfterAllBesideValues) {
  Module m = parse_module(R"(func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = stablehlo.create_token : !stablehlo.token
  %u = "stablehlo.after_all"(%t, %t) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  %y = stablehlo.add %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
})");
  verify(m);
  std::vector<Array> out =
      test::run(test::compile(to_mlir(m)), {Array::from<float>({2}, {1.5f, -2.0f})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3.0f, -4.0f}));
  EXPECT_THROW(verify(parse_module(R"(func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %u = "stablehlo.after_all"(%x) : (tensor<2xf32>) -> !stablehlo.token
  return %x : tensor<2xf32>
})")),
               Error);
}

}  // namespace
}  // namespace hhlo
