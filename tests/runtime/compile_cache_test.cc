// The persistent compile cache (hhlo/runtime/compile_cache.h): keys, hits within and across
// processes, damaged and foreign entries, an unwritable folder, concurrent fillers, the LRU bound.
#include "hhlo/runtime/compile_cache.h"

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "hhlo/core/lru_folder.h"
#include "hhlo/ir/printer.h"
#include "hhlo/program/compile.h"

extern char** environ;

#include "runtime_util.h"

namespace hhlo {
namespace {

/// The text the cache keys for `program`: what the runtime prints of the module read from it.
std::string printed(const char* program) {
  return std::string(print_program(read_program(program).module).text());
}

namespace fs = std::filesystem;

// y = x * x + 1 on f32[3]: [1, 2, 3] -> [2, 5, 10] by hand.
const char* kSquarePlusOne = R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<3xf32>
  %0 = stablehlo.multiply %x, %x : tensor<3xf32>
  %1 = stablehlo.add %0, %one : tensor<3xf32>
  return %1 : tensor<3xf32>
}
)";
// y = x - 1: [1, 2, 3] -> [0, 1, 2].
const char* kMinusOne = R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<3xf32>
  %0 = stablehlo.subtract %x, %one : tensor<3xf32>
  return %0 : tensor<3xf32>
}
)";
// y = x * 3: [1, 2, 3] -> [3, 6, 9].
const char* kTimesThree = R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %three = stablehlo.constant dense<3.0> : tensor<3xf32>
  %0 = stablehlo.multiply %x, %three : tensor<3xf32>
  return %0 : tensor<3xf32>
}
)";

std::vector<float> run3(const LoadedExecutable& exe) {
  return test::run(exe, {Array::from<float>({3}, {1, 2, 3})}).at(0).to_vector<float>();
}

// A fresh folder per test under the system temp dir.
class CompileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hhlo-cache-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  CompileCache cache(std::uint64_t max_bytes = std::uint64_t{1} << 30) {
    return CompileCache({.dir = dir_.string(), .max_bytes = max_bytes});
  }
  fs::path dir_;
};

// FIPS 180-2, appendix B.1: SHA-256("abc").
TEST(Sha256, MatchesTheStandardsTestVector) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_F(CompileCacheTest, KeyIsStableAndChangesWithProgramAndOptions) {
  CompileCache c = cache();
  std::string k = c.key(test::cpu(), printed(kSquarePlusOne), {});
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(k, c.key(test::cpu(), printed(kSquarePlusOne), {}));
  EXPECT_NE(k, c.key(test::cpu(), printed(kMinusOne), {}));
  CompileOptions fast;
  fast.xla_options["xla_cpu_enable_fast_min_max"] = true;
  EXPECT_NE(k, c.key(test::cpu(), printed(kSquarePlusOne), fast));
  CompileOptions two;
  two.num_replicas = 2;
  EXPECT_NE(k, c.key(test::cpu(), printed(kSquarePlusOne), two));
}

TEST_F(CompileCacheTest, MissWritesAnEntryAndTheNextCompileLoadsIt) {
  CacheOutcome o;
  LoadedExecutable a =
      cache().compile(test::cpu(), print_program(read_program(kSquarePlusOne).module), {}, &o);
  EXPECT_EQ(o, CacheOutcome::miss);
  EXPECT_EQ(run3(a), (std::vector<float>{2, 5, 10}));
  std::string key = cache().key(test::cpu(), printed(kSquarePlusOne), {});
  EXPECT_TRUE(fs::exists(cache().entry_path(key)));
  LoadedExecutable b =
      cache().compile(test::cpu(), print_program(read_program(kSquarePlusOne).module), {}, &o);
  EXPECT_EQ(o, CacheOutcome::hit);
  EXPECT_EQ(run3(b), (std::vector<float>{2, 5, 10}));
  // No temporary file is left behind: the entry and the folder's ledger only.
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.path().filename() != kUsageLedger) {
      EXPECT_EQ(e.path().extension(), ".hxc") << e.path();
    }
}

// Child mode of the cross-process tests: compile kSquarePlusOne through the cache in
// $HHLO_CACHE_TEST_DIR, exit 0 when the values are right, and print the outcome.
int child_main(const char* dir, const char* want) {
  CacheOutcome o;
  LoadedExecutable exe =
      CompileCache({.dir = dir})
          .compile(test::cpu(), print_program(read_program(kSquarePlusOne).module), {}, &o);
  bool right = run3(exe) == std::vector<float>{2, 5, 10};
  std::printf("child outcome %d\n", static_cast<int>(o));
  if (!right) return 3;
  if (std::string(want) == "hit" && o != CacheOutcome::hit) return 4;
  return 0;
}

// Starts this test program again in child mode (the same test: it sees the variables).
// posix_spawn, not fork: the parent has XLA's threads.
pid_t spawn_child(const fs::path& dir, const std::string& want) {
  std::vector<std::string> env = {"HHLO_CACHE_TEST_DIR=" + dir.string(),
                                  "HHLO_CACHE_TEST_WANT=" + want};
  for (char** e = environ; *e; ++e) env.push_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string filter = "--gtest_filter=CompileCacheTest.AnotherProcessLoadsTheEntry";
  std::vector<char*> argv = {self.data(), filter.data(), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0) return -1;
  return pid;
}
int wait_child(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The upstream report (XLA:CPU refusing executables deserialized in another process as built
// for other CPU features) does not hold for the pinned plugin: a second process loads the entry
// and computes right (docs/facts.md).
TEST_F(CompileCacheTest, AnotherProcessLoadsTheEntry) {
  if (const char* child = std::getenv("HHLO_CACHE_TEST_DIR")) {
    int code = child_main(child, std::getenv("HHLO_CACHE_TEST_WANT"));
    std::fflush(stdout);
    _exit(code);
  }
  CacheOutcome o;
  cache().compile(test::cpu(), print_program(read_program(kSquarePlusOne).module), {}, &o);
  ASSERT_EQ(o, CacheOutcome::miss);
  EXPECT_EQ(wait_child(spawn_child(dir_, "hit")), 0) << "the child did not load the entry";
}

TEST_F(CompileCacheTest, TwoProcessesFillingOneEntryBothSucceed) {
  pid_t a = spawn_child(dir_, "any"), b = spawn_child(dir_, "any");
  EXPECT_EQ(wait_child(a), 0);
  EXPECT_EQ(wait_child(b), 0);
  CacheOutcome o;
  EXPECT_EQ(run3(cache().compile(test::cpu(), print_program(read_program(kSquarePlusOne).module),
                                 {}, &o)),
            (std::vector<float>{2, 5, 10}));
  EXPECT_EQ(o, CacheOutcome::hit);
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.path().filename() != kUsageLedger) {
      EXPECT_EQ(e.path().extension(), ".hxc") << e.path();
    }
}

// Rewrites entry `path` through `damage`, then checks the next compile is `rejected` with the
// right values, and the one after a hit again (the entry was replaced).
template <typename F>
void expect_recompiled_after(CompileCache c, const std::string& path, F damage) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  damage(bytes);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  CacheOutcome o;
  EXPECT_EQ(
      run3(c.compile(test::cpu(), print_program(read_program(kSquarePlusOne).module), {}, &o)),
      (std::vector<float>{2, 5, 10}));
  EXPECT_EQ(o, CacheOutcome::rejected);
  c.compile(test::cpu(), print_program(read_program(kSquarePlusOne).module), {}, &o);
  EXPECT_EQ(o, CacheOutcome::hit);
}

TEST_F(CompileCacheTest, TruncatedEntryIsRecompiled) {
  cache().compile(test::cpu(), print_program(read_program(kSquarePlusOne).module));
  std::string path = cache().entry_path(cache().key(test::cpu(), printed(kSquarePlusOne), {}));
  expect_recompiled_after(cache(), path, [](std::string& b) { b.resize(b.size() / 2); });
  expect_recompiled_after(cache(), path, [](std::string& b) { b.resize(10); });  // in the header
  expect_recompiled_after(cache(), path, [](std::string& b) { b.clear(); });
}

TEST_F(CompileCacheTest, CorruptedEntryIsRecompiled) {
  cache().compile(test::cpu(), print_program(read_program(kSquarePlusOne).module));
  std::string path = cache().entry_path(cache().key(test::cpu(), printed(kSquarePlusOne), {}));
  expect_recompiled_after(cache(), path, [](std::string& b) { b[b.size() - 100] ^= 0x40; });
  expect_recompiled_after(cache(), path, [](std::string& b) { b[3] = 'Z'; });  // magic
}

TEST_F(CompileCacheTest, ForeignEntryIsRecompiled) {
  CompileCache c = cache();
  c.compile(test::cpu(), print_program(read_program(kMinusOne).module));
  std::string other = c.entry_path(c.key(test::cpu(), printed(kMinusOne), {}));
  std::string path = c.entry_path(c.key(test::cpu(), printed(kSquarePlusOne), {}));
  // Another program's whole, sound entry under this key: its header names the other key.
  fs::copy_file(other, path);
  expect_recompiled_after(c, path, [](std::string&) {});
  // A well-formed entry (right key and checksum) whose payload is no executable: the plugin
  // refuses it, the cache recompiles.
  ASSERT_TRUE(c.write(c.key(test::cpu(), printed(kSquarePlusOne), {}), "not an executable at all"));
  expect_recompiled_after(c, path, [](std::string&) {});
}

// remove() drops one entry (the next read misses), says whether there was one, and throws
// naming the entry when it cannot: a non-empty folder standing in the entry's place.
TEST_F(CompileCacheTest, RemoveDropsAnEntryAndNamesOneItCannotRemove) {
  CompileCache c = cache();
  std::string key = sha256_hex("an entry");
  ASSERT_TRUE(c.write(key, "payload"));
  EXPECT_EQ(c.read(key), "payload");
  EXPECT_TRUE(c.remove(key));
  EXPECT_FALSE(c.read(key));
  EXPECT_FALSE(c.remove(key));
  fs::create_directories(fs::path(c.entry_path(key)) / "inside");
  try {
    c.remove(key);
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(c.entry_path(key)), std::string::npos) << e.what();
  }
  EXPECT_FALSE(CompileCache({.enabled = false}).remove(key));
}

TEST_F(CompileCacheTest, UnwritableFolderWarnsOnceAndCompiles) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "a file, not a folder";
  CompileCache c({.dir = (dir_ / "file" / "cache").string()});
  test::cpu();  // the plugin's own log lines at client creation are not ours to count
  ::testing::internal::CaptureStderr();
  CacheOutcome o1, o2;
  std::vector<float> y1 =
      run3(c.compile(test::cpu(), print_program(read_program(kSquarePlusOne).module), {}, &o1));
  std::vector<float> y2 =
      run3(c.compile(test::cpu(), print_program(read_program(kMinusOne).module), {}, &o2));
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(y1, (std::vector<float>{2, 5, 10}));
  EXPECT_EQ(y2, (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(o1, CacheOutcome::disabled);
  EXPECT_EQ(o2, CacheOutcome::disabled);
  std::size_t ours = 0;  // lines of ours (the plugin may log its own)
  for (std::size_t at = err.find("hhlo: "); at != std::string::npos;
       at = err.find("hhlo: ", at + 1))
    ++ours;
  EXPECT_EQ(ours, 1u) << err;
  EXPECT_NE(err.find("hhlo: warning: compile cache"), std::string::npos) << err;
  EXPECT_NE(err.find("compiling without it"), std::string::npos) << err;
}

TEST_F(CompileCacheTest, LeastRecentlyUsedEntriesGoPastTheBound) {
  CompileCache c = cache();
  auto path = [&](const char* p) { return c.entry_path(c.key(test::cpu(), printed(p), {})); };
  c.compile(test::cpu(), print_program(read_program(kSquarePlusOne).module));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  c.compile(test::cpu(), print_program(read_program(kMinusOne).module));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CacheOutcome o;
  c.compile(test::cpu(), print_program(read_program(kSquarePlusOne).module), {},
            &o);  // a hit: now the most recent of the two
  ASSERT_EQ(o, CacheOutcome::hit);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // Room for two of the three entries (they are about the same size), not for three.
  std::uint64_t a = fs::file_size(path(kSquarePlusOne)), b = fs::file_size(path(kMinusOne));
  std::uint64_t bound = a + b + a / 2;
  cache(bound).compile(test::cpu(), print_program(read_program(kTimesThree).module), {}, &o);
  EXPECT_EQ(o, CacheOutcome::miss);
  EXPECT_TRUE(fs::exists(path(kSquarePlusOne)));
  EXPECT_FALSE(fs::exists(path(kMinusOne))) << "the least recently used entry stayed";
  EXPECT_TRUE(fs::exists(path(kTimesThree)));
}

TEST_F(CompileCacheTest, ATemporaryLeftByAKilledWriterIsRemovedALiveOneCounted) {
  // A writer killed mid-write (kill -9) leaves `.KEY.hxc.tmp-PID-N` of tens of MB forever; the
  // next write removes it when its process is gone. One of a live writer (this process) stays.
  pid_t dead = 0;
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  ASSERT_EQ(posix_spawn(&dead, "/bin/true", nullptr, nullptr, argv, environ), 0);
  waitpid(dead, nullptr, 0);  // reaped: no process has this pid now
  fs::create_directories(dir_);
  fs::path stale = dir_ / (".abc.hxc.tmp-" + std::to_string(dead) + "-0");
  fs::path live = dir_ / (".def.hxc.tmp-" + std::to_string(getpid()) + "-0");
  std::ofstream(stale) << std::string(1 << 20, 'x');
  std::ofstream(live) << "partial";
  CompileCache c = cache();
  CacheOutcome o;
  EXPECT_EQ(
      run3(c.compile(test::cpu(), print_program(read_program(kSquarePlusOne).module), {}, &o)),
      (std::vector<float>{2, 5, 10}));
  EXPECT_EQ(o, CacheOutcome::miss);
  EXPECT_FALSE(fs::exists(stale)) << "the dead writer's temporary stayed";
  EXPECT_TRUE(fs::exists(live)) << "a live writer's temporary was removed";
}

TEST(CompileCacheOptions, AnInvalidSizeBoundIsTheDefault) {
  const std::uint64_t fallback = CompileCacheOptions{}.max_bytes;
  for (const char* bad : {"1.5", "-5", "17592186044416", "12abc", " 3", "0x10"}) {
    setenv("HHLO_COMPILE_CACHE_MAX_MB", bad, 1);
    EXPECT_EQ(CompileCacheOptions::from_environment().max_bytes, fallback) << bad;
  }
  // The largest bound whose byte count fits 64 bits, and 0 (every entry evicted), are valid.
  setenv("HHLO_COMPILE_CACHE_MAX_MB", "17592186044415", 1);
  EXPECT_EQ(CompileCacheOptions::from_environment().max_bytes, std::uint64_t{17592186044415} << 20);
  setenv("HHLO_COMPILE_CACHE_MAX_MB", "0", 1);
  EXPECT_EQ(CompileCacheOptions::from_environment().max_bytes, 0u);
  unsetenv("HHLO_COMPILE_CACHE_MAX_MB");
}

TEST(CompileCacheOptions, EnvironmentRelocatesOrDisablesTheCache) {
  const char* saved = std::getenv("HHLO_COMPILE_CACHE");
  std::string keep = saved ? saved : "";
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  unsetenv("HHLO_COMPILE_CACHE");
  EXPECT_EQ(CompileCache().dir(), "/xdg/hhlo/compile");
  EXPECT_TRUE(CompileCache().enabled());
  setenv("HHLO_COMPILE_CACHE", "/somewhere/else", 1);
  EXPECT_EQ(CompileCache().dir(), "/somewhere/else");
  for (const char* off : {"off", "0", "false"}) {
    setenv("HHLO_COMPILE_CACHE", off, 1);
    EXPECT_FALSE(CompileCache().enabled()) << off;
    CacheOutcome o;
    EXPECT_EQ(run3(CompileCache().compile(
                  test::cpu(), print_program(read_program(kSquarePlusOne).module), {}, &o)),
              (std::vector<float>{2, 5, 10}));
    EXPECT_EQ(o, CacheOutcome::disabled);
  }
  setenv("HHLO_COMPILE_CACHE_MAX_MB", "3", 1);
  EXPECT_EQ(CompileCacheOptions::from_environment().max_bytes, 3u << 20);
  unsetenv("HHLO_COMPILE_CACHE_MAX_MB");
  unsetenv("XDG_CACHE_HOME");
  if (saved)
    setenv("HHLO_COMPILE_CACHE", keep.c_str(), 1);
  else
    unsetenv("HHLO_COMPILE_CACHE");
  EXPECT_FALSE(CompileCache({.enabled = false}).enabled());
}

}  // namespace
}  // namespace hhlo
