// The folding of refine_shapes (hhlo/ir/refine.h) checked against the StableHLO testdata: the
// corpus files of the integer and i1 ops it folds (add ... xor, compare, select, clamp, convert,
// reshape, broadcast, concatenate, slice, transpose) compute an op on constant inputs and check
// it against JAX's expected values. Each is refined (its @inputs/@expected calls inlined, the op
// folded into a constant by our evaluator), printed, compiled and run; the check outputs are
// compared with the corpus's own rules. The expected values are JAX's, not ours.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "conformance/compare.h"
#include "conformance/rewrite.h"
#include "corpus_util.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/refine.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"

namespace hhlo::conformance {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> folded_op_files() {
  static const std::regex name(
      "^(add|sub|mul|div|rem|max|min|abs|neg|sign|and|or|xor|not|eq|ne|gt|ge|lt|le|select|clamp|"
      "convert|reshape|broadcast|broadcast_in_dim|concatenate|slice|transpose|squeeze|expand)_.*"
      "(u?int(8|16|32|64)|bool).*\\.mlir$");
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(test::kConformanceDir)) {
    std::string n = e.path().filename().string();
    if (std::regex_match(n, name)) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Ops of `b` (regions included) other than constants and terminators.
int computing_ops(const Block& b) {
  int n = 0;
  for (const auto& op : b.ops()) {
    const std::string& s = op->name();
    if (s != "stablehlo.constant" && s != "func.return" && s != "stablehlo.return") ++n;
    for (const auto& r : op->regions()) n += computing_ops(*r);
  }
  return n;
}

TEST(RefineCorpus, FoldedIntegerOpsMatchJaxExpectedValues) {
  HHLO_SKIP_WITHOUT_CORPUS();
  std::vector<std::string> files = folded_op_files();
  ASSERT_GE(files.size(), 60u) << "corpus at " << test::kConformanceDir;
  Client client = Client::create("cpu");
  size_t folded = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    std::vector<CheckCall> checks = find_checks(text);
    ASSERT_FALSE(checks.empty());
    Module m = parse_module(rewrite_i1_hex_literals(rewrite_checks_to_outputs(text)));
    refine_shapes(m, m.find("main")->arg_types());
    if (computing_ops(m.find("main")->body()) == 0) ++folded;
    LoadedExecutable exe = compile(client, m);
    std::vector<Buffer> outputs = exe.execute(std::vector<const Buffer*>{});
    ASSERT_GE(outputs.size(), 2 * checks.size());
    size_t base = outputs.size() - 2 * checks.size();
    for (size_t k = 0; k < checks.size(); ++k) {
      Array actual = outputs[base + 2 * k].to_host(),
            expected = outputs[base + 2 * k + 1].to_host();
      ASSERT_EQ(actual.type(), checks[k].type);
      auto mismatch = compare(checks[k].kind, checks[k].type, actual.data(), expected.data());
      EXPECT_FALSE(mismatch) << *mismatch;
    }
  }
  // Most files are folded entirely (the op became a constant); the others keep an op we do not
  // fold (e.g. a shift) and still pass.
  EXPECT_GE(folded, files.size() * 3 / 4) << folded << " of " << files.size() << " folded";
  std::printf("%zu corpus files, %zu folded to constants\n", files.size(), folded);
}

}  // namespace
}  // namespace hhlo::conformance
