// `hhlo serve` when models fail to load (issue 44): one program file that fails, or a repository
// in --model-control-mode none where none loads, ends at once with the load errors (nothing can
// ever be served); with explicit or poll, or with some models loaded, it keeps serving. Every
// server is stopped by the test, every wait bounded.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_util.h"

namespace hhlo::test {
namespace {

using testing::HasSubstr;
using testing::Not;

const char* kGood = R"(func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.add %x, %x : tensor<2xf32>
  return %r : tensor<2xf32>
})";

/// Writes `text` as model `name`'s version 1 in the repository `dir`.
void add_model(const std::string& dir, const std::string& name, const std::string& text) {
  std::filesystem::create_directories(dir + "/" + name + "/1");
  write_text(dir + "/" + name + "/1/model.mlir", text);
}

/// Runs `hhlo serve ARGS` (free ports) until it prints its HTTP port or exits (60 s at most),
/// then sends SIGTERM; the output ends with "exit=STATUS".
ProcessResult serve(const std::string& dir, const std::string& args) {
  std::string script = "$HHLO serve " + args +
                       " --http-port 0 --grpc-port 0 --metrics-port 0 --grace-period 1 > " + dir +
                       "/log 2>&1 & pid=$!\n"
                       "i=0; while [ $i -lt 600 ] && ! grep -q 'HTTP on' " +
                       dir +
                       "/log && kill -0 $pid 2>/dev/null; do sleep 0.1; i=$((i+1)); done\n"
                       "kill -TERM $pid 2>/dev/null; wait $pid; s=$?; cat " +
                       dir + "/log; echo exit=$s\n";
  return run_shell(script);
}

TEST(ServeCli, OneProgramFileThatFailsToLoadIsAnErrorAtOnce) {
  std::string dir = temp_dir("serve_empty_file");
  write_text(dir + "/empty.mlir", "");
  ProcessResult r = serve(dir, dir + "/empty.mlir");
  EXPECT_THAT(r.output, HasSubstr("exit=1\n"));
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: "));
  EXPECT_THAT(r.output, Not(HasSubstr("UNAVAILABLE")));
  EXPECT_THAT(r.output, Not(HasSubstr("HTTP on")));
}

TEST(ServeCli, RepositoryWhereNoModelLoadsIsAnErrorNamingEachFailureInModeNone) {
  std::string dir = temp_dir("serve_none_loaded");
  add_model(dir + "/repo", "empty", "");
  add_model(dir + "/repo", "broken", "func.func @main(");
  ProcessResult r = serve(dir, dir + "/repo");
  EXPECT_THAT(r.output, HasSubstr("exit=1\n"));
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: no model of repository '" + dir +
                                  "/repo' loaded, and --model-control-mode none loads none "
                                  "later: model broken version 1: "));
  EXPECT_THAT(r.output, HasSubstr("; model empty version 1: "));
  EXPECT_THAT(r.output, Not(HasSubstr("HTTP on")));
}

TEST(ServeCli, RepositoryWhereSomeModelsLoadServesThem) {
  std::string dir = temp_dir("serve_some_loaded");
  add_model(dir + "/repo", "empty", "");
  add_model(dir + "/repo", "good", kGood);
  ProcessResult r = serve(dir, dir + "/repo");
  EXPECT_THAT(r.output, HasSubstr("model good version 1: READY\n"));
  EXPECT_THAT(r.output, HasSubstr("model empty version 1: UNAVAILABLE ("));
  EXPECT_THAT(r.output, HasSubstr("HTTP on"));
  EXPECT_THAT(r.output, HasSubstr("exit=0\n"));
}

TEST(ServeCli, RepositoryWhereNoModelLoadsKeepsServingInModesThatLoadLater) {
  std::string dir = temp_dir("serve_later");
  add_model(dir + "/repo", "empty", "");
  for (const std::string mode : {"explicit --load-model empty", "poll"}) {
    ProcessResult r = serve(dir, dir + "/repo --model-control-mode " + mode);
    EXPECT_THAT(r.output, HasSubstr("model empty version 1: UNAVAILABLE (")) << mode;
    EXPECT_THAT(r.output, HasSubstr("HTTP on")) << mode;
    EXPECT_THAT(r.output, HasSubstr("exit=0\n")) << mode;
  }
}

}  // namespace
}  // namespace hhlo::test
