// The shared StableHLO testdata corpus (upstream printer's pretty forms): every file parses and
// verifies, our printer re-prints it, and the re-printed text parses again to the same text.
// (Running the re-printed programs on the plugin: `hhlo conformance --reprint`, tests/conformance.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "corpus_util.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

TEST(ParserCorpus, EveryFileParsesReprintsAndParsesBackToTheSameText) {
  HHLO_SKIP_WITHOUT_CORPUS();
  std::filesystem::path dir(test::kConformanceDir);
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".mlir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 1000u);
  size_t failures = 0;
  for (const auto& p : files) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      Module m = parse_module(ss.str(), {.source_name = p.filename().string()});
      std::string once = to_mlir(m);
      std::string twice = to_mlir(parse_module(once, {.source_name = "reprint"}));
      if (once != twice) {
        ++failures;
        ADD_FAILURE() << p.filename() << ": re-printed text does not parse back to itself";
      }
    } catch (const std::exception& e) {
      ++failures;
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_EQ(failures, 0u);
}

}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {

// Every *.mlir of the texts tests/ir/gen_jax_texts.py writes at build time from real
// jax.jit(...).lower() and jax.export programs (or of $HHLO_PARSE_DIR, any folder of texts):
// parses, verifies, re-prints to a fixed point.
TEST(ParserCorpus, JaxTextsParseVerifyAndReprint) {
  const char* env = std::getenv("HHLO_PARSE_DIR");
  std::string dir = env ? env : std::string(HHLO_GENERATED_DIR) + "/jax_texts";
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".mlir") continue;
    ++n;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      Module m = parse_module(ss.str(), {.source_name = e.path().filename().string()});
      std::string once = to_mlir(m);
      EXPECT_EQ(to_mlir(parse_module(once, {.source_name = "reprint"})), once) << e.path();
    } catch (const std::exception& ex) {
      ADD_FAILURE() << ex.what();
    }
  }
  EXPECT_GT(n, 0u);
}

}  // namespace
}  // namespace hhlo
