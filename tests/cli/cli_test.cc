// The `hhlo` executable end to end: devices, run (outputs, latency, and every bad input giving a
// clear error and exit status 1, never a crash), and the subcommand registry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_util.h"
#include "corpus_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kAdd = R"(module @add {
  func.func public @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = stablehlo.add %a, %b : tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}
)";

/// A folder with add.mlir, a.npy = [1,2,3,4] and b.npy = [10,20,30,40] (both 2x2 f32).
struct AddFixture {
  std::string dir, program, a, b;
  explicit AddFixture(const std::string& name) : dir(temp_dir(name)) {
    program = dir + "/add.mlir";
    a = dir + "/a.npy";
    b = dir + "/b.npy";
    write_text(program, kAdd);
    write_npy(a, Array::from<float>({2, 2}, {1, 2, 3, 4}));
    write_npy(b, Array::from<float>({2, 2}, {10, 20, 30, 40}));
  }
};

/// Exit status 1 with `message` in the output, and no signal.
void expect_clean_error(const ProcessResult& r, const std::string& message) {
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: "));
  EXPECT_THAT(r.output, HasSubstr(message));
}

TEST(Cli, DevicesShowsPluginVersionsAndDevices) {
  ProcessResult r = run_hhlo({"devices"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("platform:        cpu"));
  EXPECT_THAT(r.output, HasSubstr("pjrt_c_api_cpu_plugin.so"));
  EXPECT_THAT(r.output, HasSubstr("PJRT C API:      0."));
  EXPECT_THAT(r.output, HasSubstr("StableHLO:       0.9.0 .. 1."));
  EXPECT_THAT(r.output, HasSubstr("[0] "));
}

TEST(Cli, DevicesRejectsUnknownPlatform) {
  ProcessResult r = run_hhlo({"devices", "--platform", "tpu"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("--platform"));
}

// CLI11's usage errors (unknown option, missing subcommand, a value out of range, a missing
// file) exit with status 1 as every other error does, not with CLI11's own codes (105-109).
TEST(Cli, UsageErrorsExitWithStatusOne) {
  AddFixture f("usage");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {"run"},
                                             {"run", f.program, "--bogus"},
                                             {"bench", f.dir + "/nope.mlir"},
                                             {"devices", "--platform", "tpu"},
                                             {"demo", "--epochs", "0"}}) {
    ProcessResult r = run_hhlo(args);
    EXPECT_EQ(r.signal, 0) << r.output;
    EXPECT_EQ(r.exit_code, 1) << ::testing::PrintToString(args) << ": " << r.output;
  }
  EXPECT_EQ(run_hhlo({"--help"}).exit_code, 0);
}

TEST(Cli, DemoEpochsZeroSaysTheRange) {
  ProcessResult r = run_hhlo({"demo", "--epochs", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--epochs: Value 0 not in range 1 to 1000000"));
}

TEST(Cli, DemoEvalOnlyNeedsLoad) {
  ProcessResult r = run_hhlo({"demo", "--eval-only"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--eval-only requires --load"));
}

TEST(Cli, DemoDevicesThatDoNotDivideTheBatchSayWhyBeforeTraining) {
  ProcessResult r = run_hhlo({"demo", "--devices", "3"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: --devices 3 does not divide --batch 32"));
  EXPECT_THAT(r.output, Not(HasSubstr("hhlo demo: MLP")));  // refused before the header
  EXPECT_THAT(r.output, Not(HasSubstr("sharding")));
}

// The console preview of a complex output shows both parts, as NumPy prints them (it showed the
// real parts only). complex(re, im) of re = [1, -2.5], im = [2, -0.5] is [1+2j, -2.5-0.5j].
TEST(Cli, TheConsolePreviewOfAComplexOutputShowsBothParts) {
  std::string dir = temp_dir("complex_preview");
  write_text(dir + "/p.mlir",
             R"(func.func @main(%re: tensor<2xf32>, %im: tensor<2xf32>) -> tensor<2xcomplex<f32>> {
  %0 = stablehlo.complex %re, %im : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
})");
  write_npy(dir + "/re.npy", Array::from<float>({2}, {1, -2.5}));
  write_npy(dir + "/im.npy", Array::from<float>({2}, {2, -0.5}));
  ProcessResult r =
      run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/re.npy", "-i", dir + "/im.npy"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0: tensor<2xcomplex<f32>> [1+2j, -2.5-0.5j]"));
}

// A usage error is one line worded as every other error (it was CLI11's message without the
// prefix and a second "Run with --help" line).
TEST(Cli, AUsageErrorIsOneErrorLine) {
  ProcessResult r = run_hhlo({"run", "p.mlir", "--timeout", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output,
            "hhlo: error: --timeout: '0' is not a positive number of seconds (inf: no bound)\n");
}

TEST(Cli, TheReadmeExampleProgramRunsChecksAndBenches) {
  // README "The CLI": examples/cli/prog.mlir is x @ y + x. x = [[1,2],[3,4]], y = [[5,6],[7,8]]:
  // x @ y = [[19,22],[43,50]], plus x = [[20,24],[46,54]] (by hand).
  const std::string program = std::string(HHLO_SOURCE_DIR) + "/examples/cli/prog.mlir";
  std::string dir = temp_dir("readme_example");
  write_npy(dir + "/x.npy", Array::from<float>({2, 2}, {1, 2, 3, 4}));
  write_npy(dir + "/y.npy", Array::from<float>({2, 2}, {5, 6, 7, 8}));
  ProcessResult r =
      run_hhlo({"run", program, "-i", dir + "/x.npy", "-i", dir + "/y.npy", "-o", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0: tensor<2x2xf32> [20, 24, 46, 54]"));
  EXPECT_EQ(read_npy(dir + "/out/out0.npy"), Array::from<float>({2, 2}, {20, 24, 46, 54}));
  ProcessResult c = run_hhlo({"check", program});
  EXPECT_EQ(c.exit_code, 0) << c.output;
  EXPECT_THAT(c.output,
              HasSubstr("entry @main(tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>)"));
  ProcessResult b =
      run_hhlo({"bench", program, "-i", dir + "/x.npy", "-i", dir + "/y.npy", "-n", "3"});
  EXPECT_EQ(b.exit_code, 0) << b.output;
}

TEST(Cli, RunPrintsAndWritesOutputs) {
  AddFixture f("run_ok");
  std::string out = f.dir + "/out";
  ProcessResult r =
      run_hhlo({"run", f.program, "--input", f.a, "--input", f.b, "--output-dir", out});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0: tensor<2x2xf32> [11, 22, 33, 44]"));
  Array got = read_npy(out + "/out0.npy");
  EXPECT_EQ(got, Array::from<float>({2, 2}, {11, 22, 33, 44}));
}

TEST(Cli, RunRepeatPrintsLatency) {
  AddFixture f("run_repeat");
  ProcessResult r = run_hhlo({"run", f.program, "-i", f.a, "-i", f.b, "--repeat", "20"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("latency over 20 call(s)"));
  EXPECT_THAT(r.output, HasSubstr("min "));
  EXPECT_THAT(r.output, HasSubstr("median "));
}

TEST(Cli, RunMissingProgram) {
  AddFixture f("missing");
  expect_clean_error(run_hhlo({"run", f.dir + "/nope.mlir"}), "does not exist");
}

TEST(Cli, RunEmptyProgram) {
  AddFixture f("empty");
  write_text(f.program, "\n");
  expect_clean_error(run_hhlo({"run", f.program}), "is empty");
}

TEST(Cli, RunEmptyInputSaysItIsEmpty) {
  // It said "missing \x93NUMPY magic" (issue 44).
  AddFixture f("empty_input");
  write_text(f.a, "");
  expect_clean_error(run_hhlo({"run", f.program, "-i", f.a, "-i", f.b}),
                     f.a + ": not a valid .npy file: it is empty (0 bytes)");
}

TEST(Cli, RunReturnOfAnotherTypeNamesBothTypes) {
  // It named only the declared type (issue 44).
  AddFixture f("return_type");
  write_text(f.program, R"(func.func @main(%x: tensor<3xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<3xf32>
  return %0 : tensor<2xf32>
})");
  expect_clean_error(run_hhlo({"run", f.program}),
                     "expected returned types matching the values (value 0 is tensor<3xf32>), "
                     "found tensor<2xf32>");
}

TEST(Cli, APluginPathFromTheEnvironmentNamesTheVariable) {
  AddFixture f("plugin_env");
  expect_clean_error(
      run_hhlo({"run", f.program, "-i", f.a, "-i", f.b}, {.env = {"HHLO_PJRT_PLUGIN_CPU=/nope"}}),
      "PJRT plugin '/nope' (from HHLO_PJRT_PLUGIN_CPU) does not exist");
}

TEST(Cli, RunMalformedProgram) {
  AddFixture f("malformed");
  write_text(f.program, "module { func.func @main( -> }");
  expect_clean_error(run_hhlo({"run", f.program, "-i", f.a, "-i", f.b}), "cannot compile");
  // The diagnostic points into the file by name, not at the plugin's "-" (stdin) name.
  expect_clean_error(run_hhlo({"run", f.program, "-i", f.a, "-i", f.b}), f.program + ":1:");
  // Our parser's line only: text it refuses never reaches the plugin (issue 22).
  ProcessResult r = run_hhlo({"run", f.program, "-i", f.a, "-i", f.b});
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("Failed to parse using StableHLO"))) << r.output;
}

TEST(Cli, RunWrongInputCount) {
  AddFixture f("count");
  expect_clean_error(run_hhlo({"run", f.program, "-i", f.a}), "@main takes 2 input(s)");
}

TEST(Cli, RunWrongInputDtype) {
  AddFixture f("dtype");
  write_npy(f.b, Array::from<int32_t>({2, 2}, {1, 2, 3, 4}));
  expect_clean_error(run_hhlo({"run", f.program, "-i", f.a, "-i", f.b}),
                     "input 1 ('" + f.b + "') has dtype i32, @main parameter 1 expects f32");
}

TEST(Cli, RunWrongInputShape) {
  AddFixture f("shape");
  write_npy(f.b, Array::from<float>({3}, {1, 2, 3}));
  expect_clean_error(run_hhlo({"run", f.program, "-i", f.a, "-i", f.b}),
                     "has shape [3], @main parameter 1 expects tensor<2x2xf32>");
}

TEST(Cli, RunTruncatedNpy) {
  AddFixture f("npy");
  std::string full = serialize_npy(Array::from<float>({2, 2}, {1, 2, 3, 4}));
  write_text(f.b, full.substr(0, full.size() - 5));
  expect_clean_error(run_hhlo({"run", f.program, "-i", f.a, "-i", f.b}), f.b);
}

TEST(Cli, RunMissingNpy) {
  AddFixture f("npy_missing");
  expect_clean_error(run_hhlo({"run", f.program, "-i", f.a, "-i", f.dir + "/none.npy"}),
                     "none.npy");
}

TEST(Cli, RunOutputDirNotWritable) {
  AddFixture f("outdir");
  // A regular file where a folder is needed: no user (not even root) can create the folder.
  write_text(f.dir + "/file", "x");
  expect_clean_error(
      run_hhlo({"run", f.program, "-i", f.a, "-i", f.b, "--output-dir", f.dir + "/file/sub"}),
      "output directory");
}

TEST(Cli, ConformanceReportsPassAndFailAndWritesMarkdown) {
  HHLO_SKIP_WITHOUT_CORPUS();
  std::string dir = temp_dir("conformance");
  std::string good = test::kConformanceDir + "/abs_int32_20_20.mlir";
  std::ifstream in(good);
  std::stringstream text;
  text << in.rdbuf();
  std::string program = text.str();
  ASSERT_FALSE(program.empty()) << good;
  write_text(dir + "/a_good.mlir", program);
  // Break the check: compare the result with the input instead of the expected values.
  std::string bad = program;
  std::size_t call = bad.find("@check.expect_eq(");
  ASSERT_NE(call, std::string::npos);
  std::size_t comma = bad.find(", ", call);
  bad.replace(comma + 2, bad.find(')', comma) - comma - 2, "%0");
  write_text(dir + "/b_bad.mlir", bad);
  std::string md = dir + "/report.md";
  ProcessResult r = run_hhlo({"conformance", dir, "--markdown", md, "--jobs", "1"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.exit_code, 1) << r.output;  // a failure makes the exit status 1
  EXPECT_THAT(r.output, HasSubstr("conformance: 1 passed, 1 failed, 0 unsupported of 2"));
  EXPECT_THAT(r.output, HasSubstr("failed      b_bad.mlir: check.expect_eq: "));
  std::ifstream report(md);
  std::stringstream report_text;
  report_text << report.rdbuf();
  EXPECT_THAT(report_text.str(), HasSubstr("- `b_bad.mlir`: check.expect_eq"));

  ProcessResult only_good = run_hhlo({"conformance", dir, "--filter", "good"});
  EXPECT_EQ(only_good.exit_code, 0) << only_good.output;
  EXPECT_THAT(only_good.output, HasSubstr("conformance: 1 passed, 0 failed, 0 unsupported of 1"));
}

TEST(Cli, ConformanceOnAMissingFolderIsACleanError) {
  expect_clean_error(run_hhlo({"conformance", "/nonexistent/corpus"}), "is not a directory");
}

TEST(Cli, UnknownSubcommandIsAUsageError) {
  ProcessResult r = run_hhlo({"frobnicate"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, 1 + 255);
}

// Issue 44: a mistyped subcommand got CLI11's "A subcommand is required", as `hhlo` alone.
TEST(Cli, AMistypedSubcommandIsNamedWithTheNearestOne) {
  AddFixture f("mistyped");
  ProcessResult r = run_hhlo({"tun", f.program});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output, "hhlo: error: 'tun' is not a subcommand; did you mean 'tune'?\n");
  EXPECT_EQ(run_hhlo({"rnu", f.program}).output,
            "hhlo: error: 'rnu' is not a subcommand; did you mean 'run'?\n");
  EXPECT_EQ(run_hhlo({"devics"}).output,
            "hhlo: error: 'devics' is not a subcommand; did you mean 'devices'?\n");
  // Nothing near: the subcommands are listed (not the hidden worker).
  r = run_hhlo({"frobnicate"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: 'frobnicate' is not a subcommand; the "
                                  "subcommands are bench, check, "));
  EXPECT_THAT(r.output, Not(HasSubstr("conformance-worker")));
  // `hhlo` alone still says a subcommand is required.
  EXPECT_THAT(run_hhlo({}).output, HasSubstr("A subcommand is required"));
}

// Issue 44 (a new user's walk): `hhlo --nosuchflag` got "A subcommand is required".
TEST(Cli, AnOptionBeforeTheSubcommandIsNamed) {
  ProcessResult r = run_hhlo({"--nosuchflag"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output,
            "hhlo: error: '--nosuchflag' is not an option of hhlo itself; options follow the "
            "subcommand (hhlo SUBCOMMAND [options], e.g. hhlo run --help)\n");
  EXPECT_EQ(run_hhlo({"--timeout", "5", "run"}).exit_code, 1);
  // hhlo's own options still work.
  r = run_hhlo({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo "));
  EXPECT_EQ(run_hhlo({"--help"}).exit_code, 0);
}

TEST(Cli, HelpListsSubcommandsButNotTheWorker) {
  ProcessResult r = run_hhlo({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("devices"));
  EXPECT_THAT(r.output, HasSubstr("run"));
  EXPECT_THAT(r.output, HasSubstr("conformance"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("conformance-worker")));
}

}  // namespace
}  // namespace hhlo::test

namespace hhlo::test {
namespace {

// `hhlo devices --platform cuda` where the CUDA plugin is set up (scripts/setup.sh --cuda, or
// HHLO_PJRT_PLUGIN_CUDA) but no NVIDIA GPU is visible: one line saying so, exit status 1.
TEST(CliDevices, CudaWithoutAnNvidiaGpuSaysSoInOneLine) {
  const char* env = std::getenv("HHLO_PJRT_PLUGIN_CUDA");
  std::string plugin = env && *env ? env : HHLO_THIRD_PARTY_DIR "/pjrt/cuda/xla_cuda_plugin.so";
  if (!std::filesystem::exists(plugin)) GTEST_SKIP() << "no CUDA plugin set up (make setup-cuda)";
  if (std::filesystem::exists("/dev/nvidia0")) GTEST_SKIP() << "this machine has an NVIDIA GPU";
  ProcessResult r = run_hhlo({"devices", "--platform", "cuda"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // The whole output (stdout and stderr) is that one line: the plugin's own multi-line log of
  // the failed cuInit is held back.
  EXPECT_EQ(r.output.find("hhlo: error: no NVIDIA GPU usable by the CUDA plugin"), 0u) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "more than one line: " << r.output;
  EXPECT_NE(r.output.find("No visible GPU devices"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace hhlo::test
