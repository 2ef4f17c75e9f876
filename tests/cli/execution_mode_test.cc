// `hhlo run/bench/demo --execution sync|async` (issue 26): the CPU client's `asynchronous = false`
// runs each execution on the calling thread; the values are those of the default mode.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo {
namespace {

// y = x * x + x over tensor<4xf32>: [1, 2, 3, 4] -> [2, 6, 12, 20] by hand.
const char* kProgram =
    "module @m {\n  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "    %0 = stablehlo.multiply %x, %x : tensor<4xf32>\n"
    "    %1 = stablehlo.add %0, %x : tensor<4xf32>\n    return %1 : tensor<4xf32>\n  }\n}\n";

std::vector<float> run_in(const std::string& mode) {
  std::string dir = test::temp_dir("execution_" + mode);
  test::write_text(dir + "/p.mlir", kProgram);
  write_npy(dir + "/x.npy", Array::from<float>({4}, {1, 2, 3, 4}));
  test::ProcessResult r = test::run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-o",
                                          dir + "/out", "--execution", mode, "--repeat", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  Array out = read_npy(dir + "/out/out0.npy");
  auto v = out.values<float>();
  return {v.begin(), v.end()};
}

TEST(ExecutionMode, SyncAndAsyncGiveTheSameValues) {
  EXPECT_EQ(run_in("sync"), (std::vector<float>{2, 6, 12, 20}));
  EXPECT_EQ(run_in("async"), (std::vector<float>{2, 6, 12, 20}));
}

TEST(ExecutionMode, SyncOutsideTheCpuAndUnknownModesAreRefused) {
  std::string dir = test::temp_dir("execution_bad");
  test::write_text(dir + "/p.mlir", kProgram);
  write_npy(dir + "/x.npy", Array::from<float>({4}, {1, 2, 3, 4}));
  test::ProcessResult r = test::run_hhlo(
      {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "--execution", "sync", "--platform", "cuda"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--execution sync is an option of the CPU client"), std::string::npos)
      << r.output;
  r = test::run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "--execution", "fast"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = test::run_hhlo(
      {"bench", dir + "/p.mlir", "-i", dir + "/x.npy", "--execution", "sync", "-n", "5"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

/// The lines of `hhlo demo --epochs 2 --no-progress --execution MODE` that carry numbers of the
/// training (losses and accuracies), without the epochs' seconds.
std::vector<std::string> demo_epochs(const std::string& mode) {
  test::ProcessResult r =
      test::run_hhlo({"demo", "--epochs", "2", "--no-progress", "--execution", mode});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> lines;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("epoch ", 0) == 0) lines.push_back(line.substr(0, line.find(" (")));
  return lines;
}

// `hhlo demo --execution sync` trains on a synchronous client: the same losses and accuracies,
// digit for digit, as the default client (the same executables, run on another thread).
TEST(ExecutionMode, TheDemoTrainsTheSameInEitherMode) {
  std::vector<std::string> sync = demo_epochs("sync");
  ASSERT_EQ(sync.size(), 2u);
  EXPECT_NE(sync[1].find("test acc"), std::string::npos) << sync[1];
  EXPECT_EQ(sync, demo_epochs("async"));
}

}  // namespace
}  // namespace hhlo
