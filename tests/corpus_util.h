// The shared StableHLO conformance corpus, which is not in this repository: where the tests read
// it (HHLO_CONFORMANCE_DIR, a CMake cache variable, tests/CMakeLists.txt) and the skip of a test
// that needs it when it is absent (a clone away from the workspace's ../shared folder).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace hhlo::test {

/// The corpus folder the build was configured with: the CMake cache variable HHLO_CONFORMANCE_DIR,
/// by default ../shared/conformance/stablehlo-testdata beside the checkout.
inline const std::string kConformanceDir = HHLO_CONFORMANCE_DIR;

/// Empty when the corpus folder exists; else the reason a corpus test skips, naming the folder
/// looked at and the variable that moves it.
inline std::string missing_corpus() {
  std::error_code ec;
  if (std::filesystem::is_directory(kConformanceDir, ec)) return "";
  return "no conformance corpus at " + kConformanceDir +
         " (configure with -DHHLO_CONFORMANCE_DIR=<the stablehlo-testdata folder> to run this "
         "test)";
}

}  // namespace hhlo::test

/// In a test body: skips the test (GTEST_SKIP) with missing_corpus()'s reason when the corpus is
/// absent, so a clone away from ../shared reports the corpus tests skipped instead of failed.
#define HHLO_SKIP_WITHOUT_CORPUS()                                                \
  do {                                                                            \
    if (std::string hhlo_why = ::hhlo::test::missing_corpus(); !hhlo_why.empty()) \
      GTEST_SKIP() << hhlo_why;                                                   \
  } while (0)
