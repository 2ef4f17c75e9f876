// cmake/code_digest.cmake, the digest of the library's sources in the program stage's record keys
// (src/program/load.cc): it changes with any byte of any listed file, and the header it writes is
// left as it is (no rebuild) when nothing changed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hhlo {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

/// Runs the script over `dir`'s list.txt into digest.h; returns the header's text.
std::string digest(const fs::path& dir) {
  std::string cmd = "cmake -DSOURCE='" + dir.string() + "' -DLIST='" + (dir / "list.txt").string() +
                    "' -DOUT='" + (dir / "digest.h").string() +
                    "' -P '" HHLO_SOURCE_DIR "/cmake/code_digest.cmake'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return slurp(dir / "digest.h");
}

TEST(CodeDigest, ChangesWithAnyByteOfTheSourcesAndOnlyThen) {
  fs::path dir = fs::temp_directory_path() / ("hhlo_code_digest_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "src");
  write(dir / "src/a.cc", "int a() { return 1; }\n");
  write(dir / "src/b.h", "#pragma once\n");
  write(dir / "list.txt", "src/a.cc\nsrc/b.h\n");
  std::string first = digest(dir);
  EXPECT_NE(first.find("#define HHLO_CODE_DIGEST \""), std::string::npos) << first;
  auto written = fs::last_write_time(dir / "digest.h");
  fs::last_write_time(dir / "digest.h", written - std::chrono::hours(1));
  EXPECT_EQ(digest(dir), first);  // nothing changed: the same digest, the header not rewritten
  EXPECT_EQ(fs::last_write_time(dir / "digest.h"), written - std::chrono::hours(1));
  write(dir / "src/a.cc", "int a() { return 2; }\n");
  std::string second = digest(dir);
  EXPECT_NE(second, first);
  write(dir / "list.txt", "src/a.cc\n");  // a file left out of the library changes it too
  EXPECT_NE(digest(dir), second);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hhlo
