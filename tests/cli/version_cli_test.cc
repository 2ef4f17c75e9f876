// `hhlo --version`: the library's version first, exit 0, no plugin loaded, whatever else the
// command line holds after it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cli_util.h"
#include "hhlo/core/version.h"
#include "hhlo/runtime/plugin.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(CliVersion, PrintsTheLibraryVersionAndThePjrtApiItSpeaks) {
  ProcessResult r = run_hhlo({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, StartsWith(std::string("hhlo ") + HHLO_VERSION_STRING + "\n"));
  EXPECT_THAT(r.output, HasSubstr("PJRT C API " + std::to_string(Plugin::header_api_major()) + "." +
                                  std::to_string(Plugin::header_api_minor())));
}

TEST(CliVersion, LoadsNoPluginAndNeedsNoSubcommand) {
  // A plugin path that does not exist: any attempt to load one would fail.
  ProcessResult r = run_hhlo({"--version"}, {.env = {"HHLO_PJRT_PLUGIN_CPU=/nonexistent.so"}});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, StartsWith(std::string("hhlo ") + HHLO_VERSION_STRING));
  EXPECT_THAT(run_hhlo({"--help"}).output, HasSubstr("--version"));
}

}  // namespace
}  // namespace hhlo::test
