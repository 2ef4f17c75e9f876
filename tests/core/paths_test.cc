#include "hhlo/core/paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace hhlo {
namespace {

namespace fs = std::filesystem;

// This test program lives in BUILD/tests/: walking up from it reaches BUILD/share/hhlo, the build
// tree's links to the set-up folder (cmake/install.cmake), as an installed P/bin/hhlo reaches
// P/share/hhlo.
TEST(Paths, ShareDirsWalkUpFromTheProgramToTheBuildTreesShareFolder) {
  std::vector<std::string> dirs = share_dirs();
  fs::path exe = fs::read_symlink("/proc/self/exe");
  std::string build_share = (exe.parent_path().parent_path() / "share" / "hhlo").string();
  EXPECT_NE(std::find(dirs.begin(), dirs.end(), build_share), dirs.end()) << build_share;
  EXPECT_EQ((exe.parent_path() / "share" / "hhlo").string(), dirs.front())
      << "the program's own folder comes first (no find_package source in the build tree)";
  std::vector<std::string> sorted = dirs;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "duplicates";
}

TEST(Paths, FindShareFileFindsTheSetUpPluginAndListsWhereItLooked) {
  std::vector<std::string> looked;
  std::string p = find_share_file("plugins/cpu/pjrt_c_api_cpu_plugin.so", &looked);
  ASSERT_FALSE(p.empty());
  EXPECT_TRUE(fs::exists(p));
  EXPECT_NE(p.find("/share/hhlo/plugins/cpu/"), std::string::npos) << p;
  EXPECT_EQ(looked.back(), p);

  looked.clear();
  EXPECT_EQ(find_share_file("plugins/tpu/none.so", &looked), "");
  EXPECT_EQ(looked.size(), share_dirs().size());
  for (const std::string& l : looked)
    EXPECT_NE(l.find("share/hhlo/plugins/tpu/none.so"), std::string::npos);
}

}  // namespace
}  // namespace hhlo
