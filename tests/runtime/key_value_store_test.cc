// The key-value store of multi-process clients (hhlo/runtime/key_value_store.h): the directory
// store on its own, from two threads and from two processes; the PJRT callbacks over a store
// (src/runtime/key_value_callbacks.h) called as a plugin calls them; and what the CPU plugin does
// with `node_id`/`num_nodes` and the callbacks (docs/facts.md, "Multi-process").
#include "hhlo/runtime/key_value_store.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "runtime/key_value_callbacks.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using ::testing::HasSubstr;

/// A fresh, empty directory under the temp directory, removed with the object.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "hhlo_kv_XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// ---- The second process of the two-process test -------------------------------------------
// The test binary runs itself with HHLO_KV_CHILD_DIR and HHLO_KV_CHILD_NODE set; this static
// initializer then plays that node before gtest starts, and exits: 0 on success, 1 with the
// reason on stderr otherwise.
//
// Node n sets "hello/n" = "from node n", waits for "hello/(1-n)", and writes what it read to
// "seen/n"; both nodes then pass the barrier "done/0", "done/1".
int child_main() {
  const char* dir = std::getenv("HHLO_KV_CHILD_DIR");
  const char* node = std::getenv("HHLO_KV_CHILD_NODE");
  if (!dir || !node) return 0;
  try {
    int n = std::atoi(node);
    DirectoryKeyValueStore store(dir);
    store.set(fmt::format("hello/{}", n), fmt::format("from node {}", n));
    std::string other = store.get(fmt::format("hello/{}", 1 - n), milliseconds(20000));
    store.set(fmt::format("seen/{}", n), other);
    store.set(fmt::format("done/{}", n), "");
    store.get(fmt::format("done/{}", 1 - n), milliseconds(20000));
  } catch (const std::exception& e) {
    fmt::print(stderr, "node {}: {}\n", node, e.what());
    std::_Exit(1);
  }
  std::_Exit(0);
}
[[maybe_unused]] const int kChild = child_main();

/// Starts this binary as node `node` of the two-process test; returns its pid.
/// The environment is built before fork: the child only execs (the parent has threads).
pid_t spawn_node(const fs::path& dir, int node) {
  std::vector<std::string> env = {"HHLO_KV_CHILD_DIR=" + dir.string(),
                                  "HHLO_KV_CHILD_NODE=" + std::to_string(node)};
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  char self[] = "/proc/self/exe";
  char* argv[] = {self, nullptr};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execve(self, argv, envp.data());
    std::_Exit(127);
  }
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(KeyValueStore, TwoProcessesRendezvousThroughASharedDirectory) {
  TempDir tmp;
  pid_t a = spawn_node(tmp.path, 0);
  pid_t b = spawn_node(tmp.path, 1);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  EXPECT_EQ(wait_exit_code(a), 0);
  EXPECT_EQ(wait_exit_code(b), 0);
  DirectoryKeyValueStore store(tmp.path);
  EXPECT_EQ(store.try_get("seen/0"), "from node 1");
  EXPECT_EQ(store.try_get("seen/1"), "from node 0");
}

// ---- The directory store ------------------------------------------------------------------

TEST(KeyValueStore, DirectoryStoreSetsGetsAndReplacesValues) {
  TempDir tmp;
  DirectoryKeyValueStore store(tmp.path / "made" / "here");
  EXPECT_TRUE(fs::is_directory(tmp.path / "made" / "here"));
  EXPECT_EQ(store.try_get("k"), std::nullopt);
  store.set("k", "one");
  EXPECT_EQ(store.get("k", milliseconds(0)), "one");
  store.set("k", "two");
  EXPECT_EQ(store.try_get("k"), "two");
  const std::string bytes("a\0b\xff", 4);  // values are bytes, not C strings
  store.set("bin", bytes);
  EXPECT_EQ(store.get("bin", milliseconds(10)), bytes);
  store.set("empty", "");
  EXPECT_EQ(store.try_get("empty"), "");
  // A second store over the same directory (another process's view) sees the same values.
  EXPECT_EQ(DirectoryKeyValueStore(tmp.path / "made" / "here").try_get("k"), "two");
}

TEST(KeyValueStore, KeysAreEncodedIntoOneFileNameEach) {
  TempDir tmp;
  DirectoryKeyValueStore store(tmp.path);
  EXPECT_EQ(store.path_of("gpu:local_topology/cuda/0").filename(),
            "gpu%3Alocal_topology%2Fcuda%2F0");
  EXPECT_EQ(store.path_of("..").filename(), "%2E%2E");
  store.set("a/b", "x");
  store.set("a%2Fb", "y");  // a different key, a different file
  EXPECT_TRUE(fs::exists(tmp.path / "a%2Fb"));
  EXPECT_EQ(store.try_get("a/b"), "x");
  EXPECT_EQ(store.try_get("a%2Fb"), "y");
  EXPECT_FALSE(fs::exists(tmp.path / "a"));
  // Only the two keys' files are left: no temporaries.
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path), fs::directory_iterator{}), 2);
}

TEST(KeyValueStore, GetTimesOutNamingTheKeyAndTheTimeout) {
  TempDir tmp;
  DirectoryKeyValueStore store(tmp.path, milliseconds(2));
  auto start = std::chrono::steady_clock::now();
  try {
    store.get("never/set", milliseconds(60));
    FAIL() << "no timeout";
  } catch (const KeyValueTimeout& e) {
    EXPECT_EQ(e.key(), "never/set");
    EXPECT_EQ(e.timeout(), milliseconds(60));
    EXPECT_THAT(e.what(), HasSubstr("\"never/set\" was not set within 60 ms"));
    EXPECT_THAT(e.what(), HasSubstr(tmp.path.string()));
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(60));
}

TEST(KeyValueStore, GetWaitsForAValueSetLater) {
  TempDir tmp;
  DirectoryKeyValueStore store(tmp.path, milliseconds(1));
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(50));
    DirectoryKeyValueStore(tmp.path).set("late", "here");
  });
  EXPECT_EQ(store.get("late", milliseconds(10000)), "here");
  writer.join();
}

TEST(KeyValueStore, ReadersNeverSeeAPartialValue) {
  TempDir tmp;
  DirectoryKeyValueStore store(tmp.path, milliseconds(1));
  const std::string a(1 << 20, 'a'), b(1 << 20, 'b');
  store.set("big", a);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) store.set("big", i % 2 ? a : b);
  });
  int bad = 0;
  for (int i = 0; i < 200; ++i) {
    std::string v = *store.try_get("big");
    if (v != a && v != b) ++bad;
  }
  stop = true;
  writer.join();
  EXPECT_EQ(bad, 0);
}

TEST(KeyValueStore, BadKeysAndDirectoriesAreErrors) {
  TempDir tmp;
  DirectoryKeyValueStore store(tmp.path);
  EXPECT_THROW(store.set("", "x"), Error);
  try {
    store.set(std::string(100, '/'), "x");  // 300 bytes encoded
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("too long for a file name (300 bytes"));
  }
  std::ofstream(tmp.path / "file") << "x";
  try {
    DirectoryKeyValueStore bad(tmp.path / "file");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), HasSubstr("exists and is not a directory"));
  }
  fs::create_directory(tmp.path / "k");  // a directory where the key's file would be
  try {
    store.set("k", "x");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), HasSubstr("set(\"k\"): cannot rename"));
  }
}

// ---- The PJRT callbacks over a store ------------------------------------------------------

/// What a plugin's PJRT_CallbackError was asked to make. The callbacks return its address as
/// the PJRT_Error*, so a test can tell which error came back.
struct MadeError {
  PJRT_Error_Code code;
  std::string message;
};
std::vector<MadeError>& made() {
  static std::vector<MadeError> v;
  return v;
}
PJRT_Error* make_error(PJRT_Error_Code code, const char* message, size_t size) {
  made().push_back({code, std::string(message, size)});
  return reinterpret_cast<PJRT_Error*>(&made().back());
}
PJRT_CallbackError kMake = &make_error;

/// A store whose every call throws `what`.
struct FailingStore final : KeyValueStore {
  void set(std::string_view, std::string_view) override { throw IoError("disk full"); }
  std::string get(std::string_view, milliseconds) override { throw std::runtime_error("down"); }
  std::optional<std::string> try_get(std::string_view) override { throw 42; }
};

TEST(KeyValueCallbacks, PutGetAndTryGetReachTheStore) {
  TempDir tmp;
  DirectoryKeyValueStore store(tmp.path);
  const std::string value("v\0w", 3);
  PJRT_KeyValuePutCallback_Args put{};
  put.struct_size = sizeof put;
  put.key = "k/1";
  put.key_size = 3;
  put.value = value.data();
  put.value_size = value.size();
  put.callback_error = &kMake;
  put.user_arg = &store;
  EXPECT_EQ(detail::kv_put(&put), nullptr);
  EXPECT_EQ(store.try_get("k/1"), value);

  PJRT_KeyValueGetCallback_Args get{};
  get.struct_size = sizeof get;
  get.key = "k/1";
  get.key_size = 3;
  get.timeout_in_ms = 100;
  get.callback_error = &kMake;
  get.user_arg = &store;
  ASSERT_EQ(detail::kv_get(&get), nullptr);
  EXPECT_EQ(std::string(get.value, get.value_size), value);
  ASSERT_NE(get.value_deleter_callback, nullptr);
  get.value_deleter_callback(get.value);

  PJRT_KeyValueTryGetCallback_Args try_get{};
  try_get.struct_size = sizeof try_get;
  try_get.key = "k/1";
  try_get.key_size = 3;
  try_get.callback_error = &kMake;
  try_get.user_arg = &store;
  ASSERT_EQ(detail::kv_try_get(&try_get), nullptr);
  EXPECT_EQ(std::string(try_get.value, try_get.value_size), value);
  try_get.value_deleter_callback(try_get.value);
}

TEST(KeyValueCallbacks, StoreErrorsBecomePjrtErrorsNamingTheKey) {
  TempDir tmp;
  DirectoryKeyValueStore store(tmp.path, milliseconds(1));
  made().clear();
  made().reserve(8);  // addresses handed out stay valid

  PJRT_KeyValueGetCallback_Args get{};
  get.struct_size = sizeof get;
  get.key = "absent";
  get.key_size = 6;
  get.timeout_in_ms = 20;
  get.callback_error = &kMake;
  get.user_arg = &store;
  PJRT_Error* e = detail::kv_get(&get);
  ASSERT_EQ(made().size(), 1u);
  EXPECT_EQ(e, reinterpret_cast<PJRT_Error*>(&made()[0]));
  EXPECT_EQ(made()[0].code, PJRT_Error_Code_DEADLINE_EXCEEDED);
  EXPECT_THAT(made()[0].message, HasSubstr("KeyValueStore::get(\"absent\"): "));
  EXPECT_THAT(made()[0].message, HasSubstr("not set within 20 ms"));

  PJRT_KeyValueTryGetCallback_Args try_get{};
  try_get.struct_size = sizeof try_get;
  try_get.key = "absent";
  try_get.key_size = 6;
  try_get.callback_error = &kMake;
  try_get.user_arg = &store;
  EXPECT_NE(detail::kv_try_get(&try_get), nullptr);
  ASSERT_EQ(made().size(), 2u);
  EXPECT_EQ(made()[1].code, PJRT_Error_Code_NOT_FOUND);
  EXPECT_EQ(made()[1].message, "KeyValueStore::try_get(\"absent\"): the key is not set");

  FailingStore failing;
  get.user_arg = &failing;
  EXPECT_NE(detail::kv_get(&get), nullptr);
  PJRT_KeyValuePutCallback_Args put{};
  put.struct_size = sizeof put;
  put.key = "p";
  put.key_size = 1;
  put.callback_error = &kMake;
  put.user_arg = &failing;
  EXPECT_NE(detail::kv_put(&put), nullptr);
  try_get.user_arg = &failing;
  EXPECT_NE(detail::kv_try_get(&try_get), nullptr);
  ASSERT_EQ(made().size(), 5u);
  EXPECT_EQ(made()[2].code, PJRT_Error_Code_UNKNOWN);
  EXPECT_EQ(made()[2].message, "KeyValueStore::get(\"absent\"): down");
  EXPECT_EQ(made()[3].message, "KeyValueStore::set(\"p\"): disk full");
  EXPECT_EQ(made()[4].message, "KeyValueStore::try_get(\"absent\"): a non-standard exception");
}

// ---- What the CPU plugin does with them ----------------------------------------------------

/// A directory store that records every call.
struct RecordingStore final : KeyValueStore {
  explicit RecordingStore(const fs::path& dir) : inner(dir) {}
  void set(std::string_view k, std::string_view v) override {
    log("set " + std::string(k));
    inner.set(k, v);
  }
  std::string get(std::string_view k, milliseconds t) override {
    log("get " + std::string(k));
    return inner.get(k, t);
  }
  std::optional<std::string> try_get(std::string_view k) override {
    log("try_get " + std::string(k));
    return inner.try_get(k);
  }
  void log(std::string s) {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back(std::move(s));
  }
  DirectoryKeyValueStore inner;
  std::mutex mu;
  std::vector<std::string> calls;
};

// Fact (docs/facts.md, "Multi-process"): the default CPU plugin (0.115) refuses the `node_id` /
// `num_nodes` create options the CUDA plugin reads (INVALID_ARGUMENT, "Unexpected option name");
// the 0.81 runner-up (compat label) takes them and ignores them: node 1 of 2 still has devices
// 0..3, all addressable. Both take the key-value callbacks and never call them, neither at
// creation nor by a compile and an execute over all four devices. (Neither has a cross-process
// runtime: no Gloo/MPI collectives inside.)
TEST(SpmdFacts, CpuPluginsHaveNoUseForNodeIdAndNeverCallTheKeyValueStore) {
  TempDir tmp;
  auto store = std::make_shared<RecordingStore>(tmp.path);
  const bool refuses = Plugin::for_platform("cpu").api_minor() >= 115;
  for (const char* name : {"node_id", "num_nodes"}) {
    if (!refuses) break;
    try {
      Client::create("cpu", {{name, int64_t{0}}});
      FAIL() << name << " accepted";
    } catch (const PjrtError& e) {
      EXPECT_EQ(e.function(), "PJRT_Client_Create");
      EXPECT_EQ(e.error_code(), PjrtErrorCode::invalid_argument);
      EXPECT_THAT(e.what(), HasSubstr(std::string("Unexpected option name passed to "
                                                  "PJRT_Client_Create: ") +
                                      name));
    }
  }
  ClientCreateOptions node1{.node_id = 1, .num_nodes = 2, .kv_store = store};
  if (refuses) {
    EXPECT_THROW(Client::create("cpu", node1), PjrtError);
  }
  Client c = Client::create("cpu", refuses ? ClientCreateOptions{.kv_store = store} : node1);
  std::vector<Device> devs = c.devices();
  ASSERT_EQ(devs.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(devs[i].id(), i);
    EXPECT_TRUE(devs[i].is_addressable());
  }
  LoadedExecutable exe = compile(c, R"(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
})",
                                 {.num_replicas = 4});
  std::vector<Buffer> in;
  for (int d = 0; d < 4; ++d)
    in.push_back(c.buffer_from_host(Array::from<float>({2}, {1.0f * d, 1}), devs[d]));
  std::vector<std::vector<const Buffer*>> args;
  for (const Buffer& b : in) args.push_back({&b});
  auto out = exe.execute_replicated(args);
  // 0 + 1 + 2 + 3 = 6 and four ones: the all-reduce ran over this process's 4 devices.
  EXPECT_EQ(out.at(3).at(0).to_host().to_vector<float>(), (std::vector<float>{6, 4}));
  std::lock_guard<std::mutex> l(store->mu);
  EXPECT_THAT(store->calls, ::testing::IsEmpty());
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path), fs::directory_iterator{}), 0);
}

TEST(KeyValueCallbacks, ClientCreateChecksNodeIdAndNumNodes) {
  EXPECT_THROW(Client::create("cpu", ClientCreateOptions{.node_id = 0}), Error);
  try {
    Client::create("cpu", ClientCreateOptions{.node_id = 2, .num_nodes = 2});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("node_id 2 is not in [0, num_nodes = 2)"));
  }
  EXPECT_THROW(Client::create("cpu", ClientCreateOptions{.options = {{"node_id", int64_t{0}}},
                                                         .node_id = 0,
                                                         .num_nodes = 1}),
               Error);
}

}  // namespace
}  // namespace hhlo
