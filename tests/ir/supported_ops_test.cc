// supported_ops() lists every op the builder emits: the names of the op descriptors
// (src/ir/op_descriptor.h), checked against the op names the builder's sources (src/ir/ops/*.cc)
// spell out, so a new builder cannot be left out of the verifier's dispatch and of the
// op-execution coverage check (tests/ops_exec/exec_util.cc) unnoticed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "../../src/ir/op_descriptor.h"
#include "../../src/ir/stablehlo_names.h"
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
    if (entry.path().extension() != ".cc") continue;
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

// The registry the verifier and refinement dispatch through: one descriptor per op, by full name,
// each a StableHLO op or func.call/func.return, each with a shape rule but the four ops the
// verifier checks against the module or the owning op.
TEST(SupportedOps, AreTheDescriptorsOfTheRegistry) {
  const auto& ds = detail::op_descriptors();
  std::vector<std::string_view> names;
  std::set<std::string_view> without_rule;
  for (const detail::OpDescriptor& d : ds) {
    names.push_back(d.name);
    if (!d.infer) without_rule.insert(d.name);
    EXPECT_EQ(detail::find_op_descriptor(d.name), &d) << d.name;
    bool in_dialect = d.name.starts_with("stablehlo.")
                          ? detail::is_stablehlo_op(d.name)
                          : d.name == "func.call" || d.name == "func.return";
    EXPECT_TRUE(in_dialect) << d.name;
  }
  EXPECT_EQ(names, supported_ops());
  EXPECT_THAT(without_rule, ::testing::ElementsAre("func.call", "func.return",
                                                   "stablehlo.composite", "stablehlo.return"));
  EXPECT_EQ(detail::find_op_descriptor("add"), nullptr);  // full names only
  EXPECT_EQ(detail::find_op_descriptor("stablehlo.frobnicate"), nullptr);
}

}  // namespace
}  // namespace hhlo
