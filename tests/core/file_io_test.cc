// read_regular_file and write_file_atomically (hhlo/core/file_io.h): what is not a regular file
// is refused at once with its path, and a failed write leaves the previous file as it was.
#include "hhlo/core/file_io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <filesystem>
#include <fstream>
#include <string>

#include "hhlo/core/error.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("hhlo_file_io_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string message_of(const std::string& path) {
  try {
    read_regular_file(path, "input 0");
  } catch (const IoError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReadRegularFile, ReadsTheWholeFile) {
  std::string dir = fresh_dir("read");
  std::string bytes("a\0b\nc", 5);
  std::ofstream(dir + "/f", std::ios::binary) << bytes;
  EXPECT_EQ(read_regular_file(dir + "/f", "input 0"), bytes);
}

TEST(ReadRegularFile, ADirectoryIsRefusedWithItsPath) {
  std::string dir = fresh_dir("dir");
  EXPECT_EQ(message_of(dir), "input 0 '" + dir + "' is a directory, not a file");
}

TEST(ReadRegularFile, DevZeroIsRefusedAtOnceNotReadUntilMemoryRunsOut) {
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(message_of("/dev/zero"),
            "input 0 '/dev/zero' is not a regular file (a device, a pipe or a socket): refused");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(ReadRegularFile, AFifoIsRefusedWithoutWaitingForAWriter) {
  std::string fifo = fresh_dir("fifo") + "/p";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message_of(fifo).find("is not a regular file"), std::string::npos);
}

TEST(ReadRegularFile, MissingFileAndOverlongPathAreNamed) {
  EXPECT_EQ(message_of("/nonexistent/x.npy"), "input 0 '/nonexistent/x.npy' does not exist");
  std::string longest = "/tmp/" + std::string(PATH_MAX + 10, 'a');
  EXPECT_NE(message_of(longest).find("path is longer than PATH_MAX"), std::string::npos);
}

TEST(WriteFileAtomically, ReplacesTheFileAndLeavesNoTemporary) {
  std::string dir = fresh_dir("write");
  write_file_atomically(dir + "/out.npy", "old", "output");
  write_file_atomically(dir + "/out.npy", "new contents", "output");
  EXPECT_EQ(read_regular_file(dir + "/out.npy", "output"), "new contents");
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
}

TEST(WriteFileAtomically, AFolderThatIsMissingIsNamedWithTheCause) {
  // A full disk keeping the previous file: HostileOutput.* (tests/cli), on a small tmpfs.
  try {
    write_file_atomically("/nonexistent/out.npy", "new", "output");
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()),
              "output '/nonexistent/out.npy' cannot be written: No such file or directory");
  }
}

TEST(WriteFileAtomically, EmptyPathAndDirectoryAreRefused) {
  std::string dir = fresh_dir("target_dir");
  EXPECT_THROW(write_file_atomically("", "x", "output"), IoError);
  try {
    write_file_atomically(dir, "x", "output");
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()),
              "output '" + dir + "' is a directory; cannot write a file there");
  }
}

}  // namespace
}  // namespace hhlo
