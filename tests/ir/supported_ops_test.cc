// supported_ops() lists every op the builder emits: checked against the op names the builder's
// sources (src/ir/ops/*.cc) spell out, so a new builder cannot be left out of the op-execution
// coverage check (tests/ops_exec/exec_util.cc) unnoticed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

TEST(SupportedOps, ListsEveryOpTheBuilderSourcesEmit) {
  const std::vector<std::string_view> ops = supported_ops();
  std::set<std::string> listed(ops.begin(), ops.end());
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  EXPECT_EQ(listed.size(), ops.size()) << "duplicates in supported_ops()";
  static const std::regex name_re(R"re("(stablehlo\.[a-z_]+)")re");
  std::set<std::string> emitted;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(HHLO_SOURCE_DIR) + "/src/ir/ops")) {
    if (entry.path().extension() != ".cc" || entry.path().filename() == "supported_ops.cc")
      continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    for (std::sregex_iterator it(text.begin(), text.end(), name_re), end; it != end; ++it)
      emitted.insert((*it)[1].str());
  }
  ASSERT_GT(emitted.size(), 30u) << "the builder sources were not found";
  for (const auto& op : emitted)
    EXPECT_TRUE(listed.count(op)) << op << " is not in supported_ops()";
  EXPECT_TRUE(listed.count("stablehlo.triangular_solve"));
}

}  // namespace
}  // namespace hhlo
