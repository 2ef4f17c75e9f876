// read_file, read_regular_file, write_file_atomically and the removal of temporaries
// (hhlo/core/file_io.h): a pipe is read to its end up to a bound named when passed, what is not a
// file is refused at once with its path, a failed write leaves the previous file as it was, and a
// dead writer's temporary is removed while a live one's is kept.
#include "hhlo/core/file_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

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

std::string read_file_message(const std::string& path, std::size_t cap = kMaxStreamBytes) {
  try {
    read_file(path, "input 0", cap);
  } catch (const IoError& e) {
    return e.what();
  }
  return "(no error)";
}

/// A pid that no process has: a child's, once it has exited and been reaped.
pid_t dead_pid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(ReadFile, AFifoIsReadToItsEndOnceItsWriterComes) {
  // 3 MiB and 5 bytes with NULs: more than a pipe's buffer and than one read; the writer opens
  // the FIFO only after the reader is waiting in open.
  std::string fifo = fresh_dir("read_fifo") + "/p";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string bytes(3 * (1 << 20) + 5, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 % 251);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    int fd = ::open(fifo.c_str(), O_WRONLY);
    for (std::size_t at = 0; fd >= 0 && at < bytes.size();) {
      ssize_t n = ::write(fd, bytes.data() + at, std::min<std::size_t>(bytes.size() - at, 4096));
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    ::close(fd);
  });
  std::string got = read_file(fifo, "input 0");
  writer.join();
  EXPECT_EQ(got.size(), bytes.size());
  EXPECT_TRUE(got == bytes);
}

TEST(ReadFile, AFifoWriterThatCameFirstAndLeftAtOnceIsReadWhole) {
  // `cat x.npy > fifo & hhlo run ... -i fifo`: the writer waits in open for the reader, writes
  // a few bytes and closes at once; they are read (not lost to an open made too early, nor
  // waited past by a second open).
  std::string fifo = fresh_dir("fifo_first") + "/p";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    int fd = ::open(fifo.c_str(), O_WRONLY);
    EXPECT_EQ(::write(fd, "small\0input", 11), 11);
    ::close(fd);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::string got = read_file(fifo, "input 0");
  writer.join();
  EXPECT_EQ(got, std::string("small\0input", 11));
}

TEST(ReadFile, AStreamLongerThanTheBoundIsRefusedNamingIt) {
  EXPECT_EQ(read_file_message("/dev/zero", std::size_t{1} << 20),
            "input 0 '/dev/zero' is a stream (a pipe or a device) longer than 1 MiB, the most "
            "read from one: give a regular file");
  EXPECT_EQ(read_file_message("/dev/zero", 1000),
            "input 0 '/dev/zero' is a stream (a pipe or a device) longer than 1000 bytes, the "
            "most read from one: give a regular file");
  EXPECT_EQ(kMaxStreamBytes, std::size_t{1} << 30);  // what docs/reliability.md states
  // A device that ends (/dev/null) is read as empty; a regular file has no such bound.
  EXPECT_EQ(read_file("/dev/null", "input 0"), "");
  std::string dir = fresh_dir("no_bound");
  std::ofstream(dir + "/f", std::ios::binary) << std::string(5000, 'x');
  EXPECT_EQ(read_file(dir + "/f", "input 0", 1000).size(), 5000u);
}

TEST(ReadFile, ADirectoryAndASocketAreRefusedWithTheirPaths) {
  std::string dir = fresh_dir("read_kinds");
  EXPECT_EQ(read_file_message(dir), "input 0 '" + dir + "' is a directory, not a file");
  std::string path = dir + "/s";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(read_file_message(path), "input 0 '" + path + "' is a socket, not a file: refused");
  ::close(fd);
}

TEST(StaleTemporaries, ADeadWritersTemporaryIsRemovedALiveWritersKept) {
  std::string dir = fresh_dir("stale");
  std::string dead = std::to_string(dead_pid()), live = std::to_string(::getpid());
  std::vector<std::string> names = {".out0.npy.tmp-" + dead + "-0",  // removed
                                    ".out0.npy.tmp-" + live + "-3",  // a live writer's
                                    "out0.npy.tmp-" + dead + "-0",   // not hidden: not ours
                                    ".out0.npy.tmp-" + dead + "-x",  // not ours
                                    ".r.npz.tmp-" + dead + "-1",    "out0.npy"};
  for (const std::string& n : names) std::ofstream(dir + "/" + n) << "partial";
  // Only the temporaries of r.npz when that file is named.
  EXPECT_EQ(remove_stale_temporaries(dir, "r.npz"), 1);
  EXPECT_FALSE(fs::exists(dir + "/" + names[4]));
  EXPECT_TRUE(fs::exists(dir + "/" + names[0]));
  EXPECT_EQ(remove_stale_temporaries(dir), 1);
  EXPECT_FALSE(fs::exists(dir + "/" + names[0]));
  for (int i : {1, 2, 3, 5}) EXPECT_TRUE(fs::exists(dir + "/" + names[i])) << names[i];
  // An hour-old temporary is stale whatever its pid (a writer on another host, a reused pid).
  EXPECT_TRUE(is_stale_temporary(dir + "/" + names[1],
                                 fs::file_time_type::clock::now() - std::chrono::hours(2)));
  EXPECT_FALSE(is_stale_temporary(dir + "/" + names[1], fs::file_time_type::clock::now()));
  EXPECT_FALSE(
      is_stale_temporary(dir + "/.x.tmp-99999999999999999999-0", fs::file_time_type::clock::now()));
}

TEST(RemoveUnfinishedTemporaries, NothingIsInProgressAfterAWrite) {
  std::string dir = fresh_dir("unfinished");
  write_file_atomically(dir + "/out.npy", "bytes", "output");
  EXPECT_EQ(remove_unfinished_temporaries(), 0);  // the signal case: StoppedOutput.* (tests/cli)
  EXPECT_EQ(read_regular_file(dir + "/out.npy", "output"), "bytes");
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
