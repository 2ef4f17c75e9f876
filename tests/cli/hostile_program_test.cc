// Programs that crashed or hung the plugin (issue 22): recursion, nesting deeper than our parser
// takes, a 100,000-digit literal. `hhlo run` refuses each with our parser's message, and only
// text we read reaches the plugin; `hhlo check` refuses what `run` refuses.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <filesystem>
#include <string>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo {
namespace {

using test::run_hhlo;

struct Files {
  std::string dir, program, input;
};

Files prepare(const std::string& name, const std::string& text) {
  Files f{test::temp_dir(name), "", ""};
  f.program = f.dir + "/p.mlir";
  f.input = f.dir + "/x.npy";
  test::write_text(f.program, text);
  write_npy(f.input, Array::from<float>({}, {1.0f}));
  return f;
}

const char* kRecursive = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @f(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @g(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @g(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})";

TEST(HostileProgram, ACallCycleIsRefusedByRunAndByCheck) {
  Files f = prepare("recursive", kRecursive);
  const std::string cycle = "call cycle @f -> @g -> @f: StableHLO has no recursion";
  test::ProcessResult r = run_hhlo({"run", f.program, "-i", f.input});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(f.program + ":11:5: func.call: " + cycle), std::string::npos) << r.output;
  r = run_hhlo({"check", f.program});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(cycle), std::string::npos) << r.output;
}

// Issue 44: a function naming itself in a custom call's called_computations crashed the plugin's
// compile (SIGSEGV) and `hhlo check` said ok.
TEST(HostileProgram, ACycleThroughCalledComputationsIsRefusedByRunAndByCheck) {
  Files f = prepare("called_computations", R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @f(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.custom_call @t(%x) {called_computations = [@f]} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})");
  const std::string line = f.program +
                           ":7:5: stablehlo.custom_call: function @f calls itself through "
                           "'called_computations': StableHLO has no recursion";
  for (const char* command : {"run", "check"}) {
    test::ProcessResult r = std::string(command) == "run"
                                ? run_hhlo({"run", f.program, "-i", f.input})
                                : run_hhlo({"check", f.program});
    EXPECT_EQ(r.signal, 0) << command << ": " << r.output;
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.output;
    EXPECT_NE(r.output.find(line), std::string::npos) << command << ": " << r.output;
  }
}

TEST(HostileProgram, NestingDeeperThanOurParserTakesNeverReachesThePlugin) {
  // 20,000 nested arrays in an attribute: the plugin's parser recursed until SIGSEGV on it.
  std::string deep = std::string(20000, '[') + std::string(20000, ']');
  Files f = prepare("deep",
                    "module @m {\n  func.func public @main(%x: tensor<f32>) -> tensor<f32> "
                    "{\n    %0 = stablehlo.custom_call @t(%x) {x = " +
                        deep +
                        "} : (tensor<f32>) -> tensor<f32>\n    return %0 : "
                        "tensor<f32>\n  }\n}\n");
  test::ProcessResult r = run_hhlo({"run", f.program, "-i", f.input});
  EXPECT_EQ(r.signal, 0) << r.output.substr(0, 2000);
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find(f.program + ":3:"), std::string::npos) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("nesting"), std::string::npos) << r.output.substr(0, 2000);
  EXPECT_EQ(r.output.find("the plugin could not parse"), std::string::npos);
}

TEST(HostileProgram, AHundredThousandDigitLiteralIsRefusedAtOnce) {
  Files f = prepare("long_literal",
                    "module @m {\n  func.func public @main(%x: tensor<f32>) -> tensor<i64> {\n"
                    "    %0 = stablehlo.constant dense<" +
                        std::string(100000, '7') +
                        "> : tensor<i64>\n    return %0 : tensor<i64>\n  }\n}\n");
  auto t0 = std::chrono::steady_clock::now();
  test::ProcessResult r = run_hhlo({"run", f.program, "-i", f.input});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find(f.program + ":3:"), std::string::npos) << r.output.substr(0, 2000);
  EXPECT_EQ(r.output.find("the plugin could not parse"), std::string::npos);
  // The plugin's parser took more than 30 s on it; ours refuses it without reading it through.
  EXPECT_LT(s, 20.0);
}

/// A while loop of 2^62 iterations: never ends by itself.
constexpr const char* kForever = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<i64> {
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %n = stablehlo.constant dense<4611686018427387904> : tensor<i64>
    %r = stablehlo.while(%i = %zero) : tensor<i64>
    cond {
      %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %next : tensor<i64>
    }
    return %r : tensor<i64>
  }
})";

TEST(HostileProgram, ALongRunIsBoundedByTimeout) {
  Files f = prepare("timeout", kForever);
  auto t0 = std::chrono::steady_clock::now();
  test::ProcessResult r =
      run_hhlo({"run", f.program, "-i", f.input, "-o", f.dir + "/out", "--timeout", "2"});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 124) << r.output;
  EXPECT_NE(r.output.find("hhlo: error: '" + f.program +
                          "' ran longer than --timeout 2 s (compile and execution); stopped"),
            std::string::npos)
      << r.output;
  EXPECT_LT(s, 30.0);
  EXPECT_FALSE(std::filesystem::exists(f.dir + "/out/out0.npy"));
  // A bound that is not a positive number is a usage error.
  EXPECT_EQ(run_hhlo({"run", f.program, "-i", f.input, "--timeout", "-1"}).exit_code, 1);
  test::ProcessResult zero = run_hhlo({"run", f.program, "-i", f.input, "--timeout", "0"});
  EXPECT_EQ(zero.exit_code, 1);
  EXPECT_NE(zero.output.find("--timeout: '0' is not a positive number of seconds"),
            std::string::npos)
      << zero.output;
  EXPECT_LT(zero.output.size(), 400u) << zero.output;  // not CLI11's 300-digit range
}

// `hhlo tune --budget` bounds the whole command: a call that never ends (the defaults' first)
// cannot be cut short, so the command is stopped at twice the budget plus 10 s.
TEST(HostileProgram, TuneOfACallThatNeverEndsIsBoundedByItsBudget) {
  Files f = prepare("tune_forever", kForever);
  auto t0 = std::chrono::steady_clock::now();
  test::ProcessResult r = run_hhlo({"tune", f.program, "-i", f.input, "--budget", "1"},
                                   {.env = {"HHLO_COMPILE_CACHE=" + f.dir + "/cache"}});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 124) << r.output;
  EXPECT_NE(r.output.find("ran longer than twice --budget 1 s plus 10 s; stopped"),
            std::string::npos)
      << r.output;
  EXPECT_GE(s, 12.0);
  EXPECT_LT(s, 40.0);
}

TEST(HostileProgram, MalformedBytecodeUnderRunNamesTheFile) {
  // MLIR bytecode magic, then bytes that are no bytecode: our reader's error, with the file named
  // (it read "- (bytecode ...)" before), and nothing reaches the plugin.
  Files f = prepare("bad_bytecode", std::string("ML\xefR", 4) + std::string(40, '\x07'));
  test::ProcessResult r = run_hhlo({"run", f.program, "-i", f.input});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_NE(r.output.find(f.program + " (bytecode "), std::string::npos) << r.output;
}

TEST(HostileProgram, DemoSaveIntoAMissingFolderIsRefusedBeforeTraining) {
  test::ProcessResult r = run_hhlo({"demo", "--save", "/nonexistent/folder/m.npz"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--save '/nonexistent/folder/m.npz': the folder '/nonexistent/folder' "
                          "does not exist"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("epoch"), std::string::npos) << "trained first\n" << r.output;
}

TEST(HostileProgram, RunRefusesWhatCheckRefuses) {
  // A recorded result type the shape rule contradicts: `check` named it, `run` sent it to the
  // plugin, whose message blamed StableHLO versions (the walk-through). Now both name the op.
  Files f = prepare("wrong_type", R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<2xf32> {
    %0 = stablehlo.negate %x : (tensor<f32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
})");
  for (const char* command : {"run", "check"}) {
    test::ProcessResult r = run_hhlo({command, f.program, "-i", f.input});
    if (std::string(command) == "check") r = run_hhlo({command, f.program});
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(f.program + ":3:"), std::string::npos) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("stablehlo.negate"), std::string::npos) << command << "\n" << r.output;
    EXPECT_EQ(r.output.find("Failed to parse using StableHLO"), std::string::npos) << r.output;
  }
}

TEST(HostileProgram, CheckRefusesAnOpNameOutsideTheStablehloDialect) {
  Files f = prepare("frobnicate", R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = "stablehlo.frobnicate"(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})");
  test::ProcessResult r = run_hhlo({"check", f.program});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(f.program + ":3:5: stablehlo.frobnicate: "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("is not an op of the StableHLO dialect"), std::string::npos) << r.output;
  r = run_hhlo({"run", f.program, "-i", f.input});
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

/// Runs `hhlo run` on `f` (input `input`) and `hhlo check`, expecting each to exit 1 with one line
/// holding `line`.
void expect_refused_by_run_and_check(const Files& f, const std::string& input,
                                     const std::string& line) {
  for (const char* command : {"run", "check"}) {
    test::ProcessResult r = std::string(command) == "run"
                                ? run_hhlo({"run", f.program, "-i", input})
                                : run_hhlo({"check", f.program});
    EXPECT_EQ(r.signal, 0) << command << ": " << r.output;
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.output;
    EXPECT_NE(r.output.find(line), std::string::npos) << command << ": " << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << command << ": " << r.output;
  }
}

// Issue 44: a bitcast_convert of complex<f64> to two complex<f32> ended `hhlo run` in the plugin's
// CHECK failure (SIGABRT, exit 134); `hhlo check` said ok.
TEST(HostileProgram, ABitcastBetweenComplexWidthsIsRefusedBeforeThePlugin) {
  Files f = prepare("complex_bitcast",
                    R"(func.func @main(%x: tensor<2xcomplex<f64>>) -> tensor<2x2xcomplex<f32>> {
  %0 = stablehlo.bitcast_convert %x : (tensor<2xcomplex<f64>>) -> tensor<2x2xcomplex<f32>>
  return %0 : tensor<2x2xcomplex<f32>>
})");
  std::string input = f.dir + "/z.npy";
  write_npy(input, Array::from<std::complex<double>>({2}, {{1, 2}, {3, 4}}));
  expect_refused_by_run_and_check(
      f, input,
      f.program +
          ":2: stablehlo.bitcast_convert of tensor<2xcomplex<f64>> to "
          "tensor<2x2xcomplex<f32>>: a bitcast between complex types of different widths aborts "
          "the XLA CPU plugin's process");
}

// Issue 44: the f6 element types (f6E2M3FN, f6E3M2FN) abort XLA; hhlo reads them, and the program
// stage names the one it found, with the op's line, before anything reaches the plugin.
TEST(HostileProgram, AnF6ElementTypeIsRefusedBeforeThePlugin) {
  for (const char* type : {"f6E2M3FN", "f6E3M2FN"}) {
    Files f = prepare(std::string("f6_") + type,
                      fmt::format(R"(func.func @main(%x: tensor<f32>) -> tensor<{0}> {{
  %0 = stablehlo.convert %x : (tensor<f32>) -> tensor<{0}>
  return %0 : tensor<{0}>
}})",
                                  type));
    expect_refused_by_run_and_check(
        f, f.input,
        fmt::format("{}:2: stablehlo.convert: element type {} aborts the XLA CPU plugin's process",
                    f.program, type));
  }
}

}  // namespace
}  // namespace hhlo
