// `hhlo run -o` stopped while it writes (issue 44): SIGTERM mid-write removes the output's
// temporary (`.out0.npy.tmp-PID-N`) and ends the run with the signal's status and one line; a
// temporary that a killed writer (SIGKILL, a power cut) left is removed by the next run writing
// there, while a live writer's is kept.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
using test::run_hhlo;
using test::run_shell;

// y = x + 1 over tensor<4xf32>.
const char* kAddOne =
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %c = stablehlo.constant dense<1.0> : tensor<4xf32>\n"
    "  %0 = stablehlo.add %x, %c : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";

// Eight outputs of 64 MiB each (2^24 f32 ones): writing them, each fsync'ed, takes long enough
// to be stopped in the middle.
std::string eight_big_outputs() {
  std::string t = "func.func @main() -> (";
  for (int i = 0; i < 8; ++i) t += std::string(i ? ", " : "") + "tensor<16777216xf32>";
  t += ") {\n  %c = stablehlo.constant dense<1.0> : tensor<f32>\n";
  for (int i = 0; i < 8; ++i)
    t += "  %" + std::to_string(i) +
         " = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<16777216xf32>\n";
  t += "  return %0, %1, %2, %3, %4, %5, %6, %7 : ";
  for (int i = 0; i < 8; ++i) t += std::string(i ? ", " : "") + "tensor<16777216xf32>";
  return t + "\n}\n";
}

/// A pid that no process has: a child's, once it has exited and been reaped.
pid_t dead_pid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

std::vector<std::string> listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(StoppedOutput, SigtermWhileWritingLeavesNoTemporaryAndSaysSo) {
  std::string dir = test::temp_dir("stopped_sigterm");
  test::write_text(dir + "/big.mlir", eight_big_outputs());
  // hhlo in the background; as soon as an output's temporary exists (polled every 10 ms, 60 s at
  // most), SIGTERM; then its exit status, what it printed, and what the folder holds.
  test::ProcessResult r =
      run_shell("cd '" + dir +
                "' && { \"$HHLO\" run big.mlir -o out > log 2>&1 & P=$!; i=0; "
                "while [ $i -lt 6000 ] && ! ls -A out 2>/dev/null | grep -q '[.]tmp-'; do "
                "sleep 0.01; i=$((i + 1)); done; "
                "if ls -A out 2>/dev/null | grep -q '[.]tmp-'; then echo seen; fi; "
                "kill -TERM $P; wait $P; echo rc=$?; cat log; echo files:; ls -A out; }");
  ASSERT_NE(r.output.find("seen"), std::string::npos)
      << "no temporary was seen before the run ended\n"
      << r.output;
  EXPECT_NE(r.output.find("rc=143"), std::string::npos) << r.output;  // 128 + SIGTERM
  EXPECT_NE(r.output.find("hhlo: stopped by SIGTERM; the unfinished output file was removed"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find(".tmp-"), std::string::npos) << "a temporary was left\n" << r.output;
  for (const std::string& name : listing(dir + "/out"))
    EXPECT_EQ(fs::file_size(dir + "/out/" + name), 128u + 4u * 16777216u) << name;  // whole
}

TEST(StoppedOutput, ADeadWritersTemporaryIsRemovedByTheNextRunALiveOnesKept) {
  std::string dir = test::temp_dir("stopped_stale");
  test::write_text(dir + "/p.mlir", kAddOne);
  write_npy(dir + "/x.npy", Array::from<float>({4}, {1.5f, -2.0f, 0.25f, 8.0f}));
  fs::create_directories(dir + "/out");
  std::string dead = std::to_string(dead_pid()), live = std::to_string(::getpid());
  for (const std::string& name : {".out0.npy.tmp-" + dead + "-0", ".out0.npy.tmp-" + live + "-0",
                                  ".r.npz.tmp-" + dead + "-2", ".other.npz.tmp-" + dead + "-0"})
    std::ofstream(dir + "/out/" + name) << "partial";
  test::ProcessResult r =
      run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-o", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_npy(dir + "/out/out0.npy").to_vector<float>(),
            (std::vector<float>{2.5f, -1.0f, 1.25f, 9.0f}));
  EXPECT_EQ(listing(dir + "/out"),
            (std::vector<std::string>{".out0.npy.tmp-" + live + "-0", "out0.npy"}));
  // One file (-o DIR/r.npz): only that file's dead temporaries, in its folder.
  fs::remove(dir + "/out/out0.npy");
  for (const std::string& name : {".r.npz.tmp-" + dead + "-2", ".other.npz.tmp-" + dead + "-0"})
    std::ofstream(dir + "/out/" + name) << "partial";
  r = run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-o", dir + "/out/r.npz"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(listing(dir + "/out"),
            (std::vector<std::string>{".other.npz.tmp-" + dead + "-0",
                                      ".out0.npy.tmp-" + live + "-0", "r.npz"}));
}

}  // namespace
}  // namespace hhlo
