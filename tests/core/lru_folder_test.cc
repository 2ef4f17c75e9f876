// The folder under a size bound (hhlo/core/lru_folder.h): the bound holds after writes by several
// threads and processes (no ledger update lost), a missing, damaged or wrongly small ledger is
// rebuilt by listing the folder, files removed or added behind the ledger's back are reconciled by
// the next listing, a dead writer's temporary is still removed, and the full listing
// (evict_least_recently_used) evicts oldest first.
#include "hhlo/core/lru_folder.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "hhlo/core/file_io.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kSize = 1000;  // bytes of each entry the tests write
const std::vector<std::string_view> kSuffixes = {".hxc"};

/// The folders the tests made, removed when the test program ends (a forked child _exits).
struct Folders {
  std::vector<fs::path> made;
  ~Folders() {
    std::error_code ec;
    for (const fs::path& d : made) fs::remove_all(d, ec);
  }
} g_folders;

std::string fresh_dir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("hhlo_lru_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  g_folders.made.push_back(dir);
  return dir.string();
}

std::string entry(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / (name + ".hxc")).string();
}

/// A file of `size` bytes at `path`, last written `age_s` seconds ago (the eviction order).
void put(const std::string& path, std::uint64_t size, int age_s) {
  std::ofstream(path, std::ios::binary) << std::string(size, 'x');
  fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::seconds(age_s));
}

/// Writes entry `name` as a writer does, then keeps the folder within `max_bytes`.
void write(const std::string& dir, const std::string& name, std::uint64_t max_bytes,
           std::uint64_t size = kSize, int age_s = 0) {
  write_file_atomically(entry(dir, name), std::string(size, 'x'), "entry");
  fs::last_write_time(entry(dir, name),
                      fs::file_time_type::clock::now() - std::chrono::seconds(age_s));
  evict_after_write(dir, max_bytes, kSuffixes, entry(dir, name));
}

/// The bytes of every file in `dir` but the ledger.
std::uint64_t total(const std::string& dir) {
  std::uint64_t sum = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != kUsageLedger) sum += fs::file_size(e.path());
  return sum;
}

std::string ledger_path(const std::string& dir) { return (fs::path(dir) / kUsageLedger).string(); }

/// A pid no process has: a child's, reaped.
pid_t dead_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

TEST(LruFolder, TheBoundHoldsAfterWritesByManyThreads) {
  // 8 threads x 7 writes: fewer than kMinWritesBetweenScans, so only the ledger sees them; a lost
  // update would leave the ledger under the truth and the folder over the bound.
  std::string dir = fresh_dir("threads");
  const std::uint64_t bound = 20 * kSize;
  write(dir, "first", bound);  // creates the ledger
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 7; ++i)
        write(dir, "t" + std::to_string(t) + "_" + std::to_string(i), bound);
    });
  for (std::thread& t : threads) t.join();
  EXPECT_LE(total(dir), bound);
  EXPECT_GT(total(dir), 0u);
}

TEST(LruFolder, TheLedgerLosesNoUpdateOfConcurrentWriters) {
  // Under the bound and before any listing, the folder's ledger says exactly the bytes written:
  // 1 + 8 x 7 entries of kSize bytes.
  std::string dir = fresh_dir("exact");
  const std::uint64_t bound = std::uint64_t{1} << 40;
  write(dir, "first", bound);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 7; ++i)
        write(dir, "t" + std::to_string(t) + "_" + std::to_string(i), bound);
    });
  for (std::thread& t : threads) t.join();
  std::string ledger = read_regular_file(ledger_path(dir), "ledger");
  EXPECT_NE(ledger.find("total=" + std::string(15, '0') + "57000 "), std::string::npos) << ledger;
  EXPECT_EQ(total(dir), 57 * kSize);
}

TEST(LruFolder, TheBoundHoldsAfterWritesByManyProcesses) {
  std::string dir = fresh_dir("processes");
  const std::uint64_t bound = 20 * kSize;
  write(dir, "first", bound);
  std::vector<pid_t> children;
  for (int p = 0; p < 6; ++p) {
    pid_t pid = ::fork();
    if (pid == 0) {
      for (int i = 0; i < 9; ++i)
        write(dir, "p" + std::to_string(p) + "_" + std::to_string(i), bound);
      ::_exit(0);
    }
    ASSERT_GT(pid, 0);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_LE(total(dir), bound);
  EXPECT_GT(total(dir), 0u);
}

TEST(LruFolder, PastTheBoundTheOldestGoDownToNinetyPercent) {
  // 10 entries, oldest first; the 11th puts 11,000 bytes over a bound of 10,000: down to 9,000.
  std::string dir = fresh_dir("order");
  for (int i = 0; i < 10; ++i) write(dir, "e" + std::to_string(i), 10 * kSize, kSize, 100 - i);
  EXPECT_EQ(total(dir), 10 * kSize);
  write(dir, "e10", 10 * kSize, kSize, 0);
  EXPECT_EQ(total(dir), 9 * kSize);
  EXPECT_FALSE(fs::exists(entry(dir, "e0")));
  EXPECT_FALSE(fs::exists(entry(dir, "e1")));
  for (int i = 2; i <= 10; ++i) EXPECT_TRUE(fs::exists(entry(dir, "e" + std::to_string(i)))) << i;
}

/// Fills `dir` past `bound` behind the ledger's back (10 entries of kSize), then damages the
/// ledger through `damage`; the next write must list the folder and evict.
template <typename F>
void expect_rebuilt_after(const std::string& name, F damage) {
  std::string dir = fresh_dir(name);
  const std::uint64_t bound = 5 * kSize;
  write(dir, "first", bound, kSize, 200);  // a valid ledger: 1,000 bytes
  for (int i = 0; i < 10; ++i) put(entry(dir, "behind" + std::to_string(i)), kSize, 100 - i);
  damage(ledger_path(dir));
  write(dir, "last", bound);
  EXPECT_LE(total(dir), bound) << name;
  EXPECT_TRUE(fs::exists(entry(dir, "last"))) << name;
  EXPECT_FALSE(fs::exists(entry(dir, "first"))) << name << ": the oldest stayed";
  // The ledger written by that listing is read by the next write.
  std::string ledger = read_regular_file(ledger_path(dir), "ledger");
  EXPECT_NE(ledger.find("total="), std::string::npos) << name << ": " << ledger;
  EXPECT_EQ(ledger.back(), '\n') << name;
}

TEST(LruFolder, AMissingLedgerIsRebuiltByListing) {
  expect_rebuilt_after("missing", [](const std::string& p) { fs::remove(p); });
}

TEST(LruFolder, AnEmptyOrTornLedgerIsRebuiltByListing) {
  expect_rebuilt_after("empty", [](const std::string& p) { std::ofstream(p, std::ios::trunc); });
  expect_rebuilt_after("torn", [](const std::string& p) {
    std::string text = read_regular_file(p, "ledger");
    std::ofstream(p, std::ios::trunc) << text.substr(0, text.size() / 2);
  });
}

TEST(LruFolder, ALedgerWithAWrongSmallerTotalIsRebuiltByListing) {
  // A crash (or a user) leaves a well formed ledger saying 0 bytes: its checksum no longer agrees.
  expect_rebuilt_after("zeroed", [](const std::string& p) {
    std::string text = read_regular_file(p, "ledger");
    std::size_t at = text.find("total=") + 6;
    ASSERT_LT(at, text.size());
    text.replace(at, 20, std::string(20, '0'));
    std::ofstream(p, std::ios::trunc) << text;
  });
}

TEST(LruFolder, ALedgerOverwrittenWithOtherTextOrAFolderIsRebuilt) {
  expect_rebuilt_after("json", [](const std::string& p) {
    std::ofstream(p, std::ios::trunc) << "{\"compile_key\": 1}" << std::string(300, ' ');
  });
  expect_rebuilt_after("binary", [](const std::string& p) {
    std::ofstream(p, std::ios::trunc) << std::string(116, '\0');
  });
}

TEST(LruFolder, AFolderInPlaceOfTheLedgerFallsBackToListingEveryWrite) {
  std::string dir = fresh_dir("folder");
  fs::create_directories(ledger_path(dir));
  for (int i = 0; i < 10; ++i) put(entry(dir, "behind" + std::to_string(i)), kSize, 100 - i);
  write(dir, "last", 5 * kSize);
  EXPECT_LE(total(dir), 5 * kSize);
  EXPECT_TRUE(fs::exists(entry(dir, "last")));
  EXPECT_TRUE(fs::is_directory(ledger_path(dir)));
}

TEST(LruFolder, ASymlinkInPlaceOfTheLedgerIsNotFollowed) {
  std::string dir = fresh_dir("symlink");
  std::string outside = fresh_dir("symlink_target") + "/file";
  std::ofstream(outside) << "not a ledger";
  fs::create_symlink(outside, ledger_path(dir));
  for (int i = 0; i < 10; ++i) put(entry(dir, "behind" + std::to_string(i)), kSize, 100 - i);
  write(dir, "last", 5 * kSize);
  EXPECT_LE(total(dir), 5 * kSize);
  EXPECT_EQ(read_regular_file(outside, "target"), "not a ledger");
}

TEST(LruFolder, AMissingFolderIsLeftAsItIs) {
  std::string dir = fresh_dir("absent") + "/not-there";
  EXPECT_NO_THROW(evict_after_write(dir, 0, kSuffixes, entry(dir, "x")));
  EXPECT_NO_THROW(evict_least_recently_used(dir, 0, kSuffixes));
  EXPECT_FALSE(fs::exists(dir));
}

TEST(LruFolder, FilesRemovedBehindItsBackAreReconciledByTheNextListing) {
  // 9 of a bound of 10 written, 8 of them removed by hand: the ledger still says 9. Two more
  // writes put it over the bound; the listing finds 3 and evicts none of them.
  std::string dir = fresh_dir("removed");
  const std::uint64_t bound = 10 * kSize;
  for (int i = 0; i < 9; ++i) write(dir, "e" + std::to_string(i), bound, kSize, 100 - i);
  for (int i = 0; i < 8; ++i) fs::remove(entry(dir, "e" + std::to_string(i)));
  write(dir, "a", bound, kSize, 50);
  write(dir, "b", bound, kSize, 49);
  EXPECT_TRUE(fs::exists(entry(dir, "e8")));
  EXPECT_TRUE(fs::exists(entry(dir, "a")));
  EXPECT_TRUE(fs::exists(entry(dir, "b")));
  // The ledger now counts 3: six more fit without an eviction, the seventh evicts the two oldest.
  for (int i = 0; i < 6; ++i) write(dir, "c" + std::to_string(i), bound, kSize, 40 - i);
  EXPECT_EQ(total(dir), 9 * kSize);
  write(dir, "d", bound, kSize, 0);
  write(dir, "f", bound, kSize, 0);
  EXPECT_EQ(total(dir), 9 * kSize);
  EXPECT_FALSE(fs::exists(entry(dir, "e8")));
  EXPECT_FALSE(fs::exists(entry(dir, "a")));
  EXPECT_TRUE(fs::exists(entry(dir, "b")));
}

TEST(LruFolder, FilesAddedBehindItsBackCountFromTheNextPeriodicListing) {
  // The ledger does not know of 20 entries copied in by hand: the folder is over the bound until
  // the kMinWritesBetweenScans-th write since the last listing lists it.
  std::string dir = fresh_dir("added");
  const std::uint64_t bound = 10 * kSize;
  write(dir, "first", bound, 1, 300);  // listed (no ledger yet): 1 file
  for (int i = 0; i < 20; ++i) put(entry(dir, "behind" + std::to_string(i)), kSize, 200 - i);
  for (std::uint64_t i = 1; i < kMinWritesBetweenScans; ++i)
    write(dir, "small" + std::to_string(i), bound, 1, 100);
  EXPECT_GT(total(dir), bound) << "listed before the periodic listing";
  write(dir, "small0", bound, 1, 100);
  EXPECT_LE(total(dir), bound);
  EXPECT_TRUE(fs::exists(entry(dir, "small0")));
  EXPECT_FALSE(fs::exists(entry(dir, "behind0")));
}

TEST(LruFolder, ADeadWritersTemporaryGoesAtTheNextListingALiveOneStays) {
  std::string dir = fresh_dir("temporaries");
  const std::uint64_t bound = std::uint64_t{1} << 30;
  write(dir, "first", bound);  // the ledger exists: the next writes do not list
  fs::path stale = fs::path(dir) / (".abc.hxc.tmp-" + std::to_string(dead_pid()) + "-0");
  fs::path live = fs::path(dir) / (".def.hxc.tmp-" + std::to_string(::getpid()) + "-0");
  put(stale.string(), 1 << 20, 0);
  put(live.string(), 10, 0);
  for (std::uint64_t i = 0; i < kMinWritesBetweenScans; ++i)
    write(dir, "e" + std::to_string(i), bound, 10);
  EXPECT_FALSE(fs::exists(stale)) << "the dead writer's temporary stayed";
  EXPECT_TRUE(fs::exists(live)) << "a live writer's temporary was removed";
}

TEST(LruFolder, TheFullListingEvictsOldestFirstAndLeavesOtherFiles) {
  std::string dir = fresh_dir("full");
  for (int i = 0; i < 5; ++i) put(entry(dir, "e" + std::to_string(i)), kSize, 100 - i);
  put((fs::path(dir) / "notes.txt").string(), kSize, 200);  // not evictable, but counted
  evict_least_recently_used(dir, 4 * kSize, kSuffixes);
  EXPECT_EQ(total(dir), 4 * kSize);
  EXPECT_FALSE(fs::exists(entry(dir, "e0")));
  EXPECT_FALSE(fs::exists(entry(dir, "e1")));
  EXPECT_TRUE(fs::exists(entry(dir, "e2")));
  EXPECT_TRUE(fs::exists(fs::path(dir) / "notes.txt"));
  EXPECT_FALSE(fs::exists(ledger_path(dir))) << "the full listing wrote a ledger";
}

}  // namespace
}  // namespace hhlo
