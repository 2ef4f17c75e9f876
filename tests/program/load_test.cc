// hhlo::load (hhlo/program/load.h): one key over every field of its options, the tuned choice
// applied before the client is made, a record that loads without reading, the step that failed.
#include "hhlo/program/load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <set>

#include "hhlo/core/error.h"
#include "hhlo/program/request_key.h"
#include "hhlo/program/tune.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr const char* kScale = R"(func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<2.5> : tensor<3xf32>
  %0 = stablehlo.multiply %x, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
})";

/// A fresh cache folder for one test, removed after it.
struct CacheDir {
  explicit CacheDir(const std::string& name)
      : path((fs::temp_directory_path() / ("hhlo-load-" + name + "-" + std::to_string(getpid())))
                 .string()) {
    fs::remove_all(path);
  }
  ~CacheDir() { fs::remove_all(path); }
  std::string path;
};

std::vector<float> run_on(const Loaded& l, const std::vector<float>& x) {
  Buffer in = l.client.buffer_from_host(Array::from<float>({3}, x));
  return l.executable.execute({&in}).at(0).to_host().to_vector<float>();
}

TEST(LoadKey, EveryFieldOfTheOptionsChangesIt) {
  using Change = std::function<void(LoadOptions&)>;
  std::vector<Change> changes = {
      [](LoadOptions& o) { o.vjp_order = 1; },
      [](LoadOptions& o) { o.prepare.entry = "f"; },
      [](LoadOptions& o) {
        o.prepare.export_platforms = {"cpu", "cuda"};
      },
      [](LoadOptions& o) { o.prepare.arg_types = std::vector<TensorType>{}; },
      [](LoadOptions& o) {
        o.prepare.arg_types = std::vector<TensorType>{{DType::f32, {3}}};
      },
      [](LoadOptions& o) { o.prepare.onednn.convolution = true; },
      [](LoadOptions& o) { o.prepare.onednn.dot_general = true; },
      [](LoadOptions& o) { o.prepare.onednn.threads = 1; },
      [](LoadOptions& o) { o.prepare.unroll_loops = 4; },
      [](LoadOptions& o) { o.prepare.vmap_batch = 2; },
      [](LoadOptions& o) { o.prepare.hoist_constants_min_bytes = 65536; },
      [](LoadOptions& o) { o.compile.num_replicas = 2; },
      [](LoadOptions& o) { o.compile.num_partitions = 2; },
      [](LoadOptions& o) { o.compile.use_spmd_partitioning = true; },
      [](LoadOptions& o) { o.compile.use_shardy_partitioner = true; },
      [](LoadOptions& o) { o.compile.device_assignment = {0}; },
      [](LoadOptions& o) { o.compile.portable = true; },
      [](LoadOptions& o) { o.compile.xla_options["xla_cpu_use_xnnpack"] = false; },
      [](LoadOptions& o) { o.compile.xla_options["xla_cpu_enable_fast_min_max"] = int64_t{0}; },
      [](LoadOptions& o) { o.compile.xla_options.clear(); },
      [](LoadOptions& o) { o.client.platform = "cuda"; },
      [](LoadOptions& o) { o.client.execution = ExecutionMode::sync; },
      [](LoadOptions& o) { o.client.execution = ExecutionMode::async; },
      [](LoadOptions& o) { o.client.device_count = 8; },
      [](LoadOptions& o) { o.client.kernel_libraries = {"libk.so"}; },
      [](LoadOptions& o) { o.client.jax_cpu_kernels = false; },
  };
  std::set<std::string> keys = {load_key(kScale, {})};
  for (std::size_t i = 0; i < changes.size(); ++i) {
    LoadOptions o;
    changes[i](o);
    EXPECT_TRUE(keys.insert(load_key(kScale, o)).second) << "change " << i << " left the key";
  }
  // The bytes, and the reader a name chooses (text named *.jax is read as an artifact).
  EXPECT_TRUE(keys.insert(load_key(std::string(kScale) + " ", {})).second);
  EXPECT_TRUE(keys.insert(load_key(kScale, {}, "p.jax")).second);
  EXPECT_EQ(load_key(kScale, {}, "p.mlir"), load_key(kScale, {}));
  // What load does not read is not in it: the program stage's platform (the client's).
  LoadOptions ignored;
  ignored.prepare.platform = "cuda";
  EXPECT_EQ(load_key(kScale, ignored), load_key(kScale, {}));
}

// A field added to the request is in the key with no line of key code: the key writer reads
// every field of an aggregate, nested ones too (here the options as a field of a larger request
// with two fields more).
struct ExtendedOptions {
  LoadOptions options;
  int added = 0;
  struct Nested {
    std::optional<std::string> note;
    std::vector<double> weights;
  } nested;
};

TEST(LoadKey, AFieldAddedToTheRequestIsInTheKeyWithoutKeyCode) {
  std::string base = key_of("test", kScale, ExtendedOptions{});
  ExtendedOptions added;
  added.added = 1;
  ExtendedOptions note;
  note.nested.note = "";
  ExtendedOptions weights;
  weights.nested.weights = {0.5};
  ExtendedOptions inner;
  inner.options.prepare.unroll_loops = 2;
  std::set<std::string> keys = {base};
  for (const ExtendedOptions& e : {added, note, weights, inner})
    EXPECT_TRUE(keys.insert(key_of("test", kScale, e)).second);
  EXPECT_EQ(key_of("test", kScale, ExtendedOptions{}), base);
  // Tokens cannot run into each other: ("ab", "c") and ("a", "bc") differ.
  struct Two {
    std::string a, b;
  };
  EXPECT_NE(key_of("t", "", Two{"ab", "c"}), key_of("t", "", Two{"a", "bc"}));
}

TEST(Load, ASecondLoadOfTheSameRequestReadsNothing) {
  CacheDir dir("record");
  CompileCache cache({.dir = dir.path});
  LoadOptions options{.prepare = {.arg_types = std::vector<TensorType>{{DType::f32, {3}}}}};
  Loaded first = load({.bytes = kScale, .options = options, .cache = &cache});
  EXPECT_TRUE(first.read);
  EXPECT_EQ(first.outcome, CacheOutcome::miss);
  EXPECT_EQ(run_on(first, {1, 2, 4}), (std::vector<float>{2.5, 5, 10}));
  Loaded second = load({.bytes = kScale, .options = options, .cache = &cache});
  EXPECT_FALSE(second.read);
  EXPECT_EQ(second.outcome, CacheOutcome::hit);
  EXPECT_EQ(second.facts.names.results, (std::vector<std::string>{"out0"}));
  EXPECT_EQ(run_on(second, {-2, 0, 2}), (std::vector<float>{-5, 0, 5}));
}

TEST(Load, ATextProgramNamedJaxIsRefusedWhateverTheCacheHolds) {
  CacheDir dir("jax_name");
  CompileCache cache({.dir = dir.path});
  Loaded as_text = load({.bytes = kScale, .name = "p.mlir", .cache = &cache});
  EXPECT_TRUE(as_text.read);
  LoadStage stage = LoadStage::compile;
  EXPECT_THROW(load({.bytes = kScale, .name = "p.jax", .cache = &cache, .stage = &stage}), Error);
  EXPECT_EQ(stage, LoadStage::read);
}

TEST(Load, TheTunedChoiceIsAppliedBeforeTheClientIsMade) {
  CacheDir dir("tuned");
  CompileCache cache({.dir = dir.path});
  LoadOptions options{.prepare = {.arg_types = std::vector<TensorType>{{DType::f32, {3}}}}};
  TuneResult r;
  r.choice.synchronous = true;
  r.choice.xla_options["xla_cpu_use_xnnpack"] = false;
  ASSERT_TRUE(remember_tuned(cache, tuned_key_for(kScale, options),
                             cache.plugin_identity(Plugin::for_platform("cpu")), r));
  Loaded l = load({.bytes = kScale, .options = options, .cache = &cache});
  ASSERT_TRUE(l.tuned);
  EXPECT_TRUE(l.tuned->choice.synchronous);
  EXPECT_EQ(l.options.client.execution, ExecutionMode::sync);
  EXPECT_EQ(std::get<bool>(l.options.compile.xla_options.at("xla_cpu_use_xnnpack")), false);
  EXPECT_EQ(run_on(l, {1, 1, 1}), (std::vector<float>{2.5, 2.5, 2.5}));
  // An explicit mode wins over the choice's, and the choice followed says so.
  LoadOptions async = options;
  async.client.execution = ExecutionMode::async;
  Loaded a = load({.bytes = kScale, .options = async, .cache = &cache});
  ASSERT_TRUE(a.tuned);
  EXPECT_FALSE(a.tuned->choice.synchronous);
  EXPECT_EQ(a.options.client.execution, ExecutionMode::async);
  // Not followed when asked not to, nor when tuned on another plugin.
  EXPECT_FALSE(
      load({.bytes = kScale, .options = options, .cache = &cache, .follow_tuned = false}).tuned);
  ASSERT_TRUE(remember_tuned(cache, tuned_key_for(kScale, options), "another plugin", r));
  EXPECT_FALSE(load({.bytes = kScale, .options = options, .cache = &cache}).tuned);
}

// A remembered choice whose XLA option the plugin refuses (a forged or stale record): the error
// says where the option came from and how to forget it.
TEST(Load, ARefusedOptionOfATunedChoiceNamesTheChoiceAndForget) {
  CacheDir dir("forged");
  CompileCache cache({.dir = dir.path});
  TuneResult r;
  r.choice.xla_options["xla_no_such_option"] = int64_t{1};
  ASSERT_TRUE(remember_tuned(cache, tuned_key_for(kScale, {}),
                             cache.plugin_identity(Plugin::for_platform("cpu")), r));
  LoadStage stage = LoadStage::read;
  try {
    load({.bytes = kScale, .cache = &cache, .stage = &stage});
    ADD_FAILURE() << "an option the plugin does not know compiled";
  } catch (const PjrtError& e) {
    EXPECT_EQ(stage, LoadStage::compile);
    EXPECT_THAT(e.what(), HasSubstr("xla_no_such_option"));
    EXPECT_THAT(e.what(), HasSubstr("compiled with the choice `hhlo tune` remembered"));
    EXPECT_THAT(e.what(), HasSubstr("`hhlo tune --forget`"));
  }
}

TEST(Load, ACallersClientIsUsedWithItsKernelsRegistered) {
  Client client = Client::create("cpu");
  Loaded l = load({.bytes = kScale, .client = &client});
  EXPECT_EQ(l.client.state(), client.state());
  EXPECT_EQ(run_on(l, {2, 2, 2}), (std::vector<float>{5, 5, 5}));
}

TEST(Load, ClientOptionsGiveAPartitionedProgramItsDevices) {
  EXPECT_TRUE(client_options({}, 1).empty());
  EXPECT_TRUE(client_options({}, 4).empty());  // the CPU plugin's own 4
  std::vector<ClientOption> eight = client_options({}, 8);
  ASSERT_EQ(eight.size(), 1u);
  EXPECT_EQ(eight[0].name, "cpu_device_count");
  EXPECT_EQ(std::get<int64_t>(eight[0].value), 8);
  std::vector<ClientOption> sync = client_options({.execution = ExecutionMode::sync}, 1);
  ASSERT_EQ(sync.size(), 1u);
  EXPECT_EQ(sync[0].name, "asynchronous");
  EXPECT_THROW(client_options({.platform = "cuda", .execution = ExecutionMode::sync}, 1), Error);
  EXPECT_TRUE(client_options({.platform = "cuda", .device_count = 8}, 8).empty());
}

TEST(Load, TheStageThatFailedIsReported) {
  LoadStage stage = LoadStage::compile;
  EXPECT_THROW(load({.bytes = "func.func @main(", .stage = &stage}), ParseError);
  EXPECT_EQ(stage, LoadStage::read);
  EXPECT_THROW(load({.bytes = kScale, .options = {.prepare = {.entry = "nope"}}, .stage = &stage}),
               Error);
  EXPECT_EQ(stage, LoadStage::prepare);
  // Two unregistered custom-call targets: the plugin names the first, load names both.
  const char* calls = R"(func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @hhlo_test_missing_a(%x) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.custom_call @hhlo_test_missing_b(%0) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
})";
  try {
    load({.bytes = calls, .stage = &stage});
    ADD_FAILURE() << "an unregistered target compiled";
  } catch (const PjrtError& e) {
    EXPECT_EQ(stage, LoadStage::compile);
    EXPECT_THAT(e.what(), HasSubstr("hhlo_test_missing_a, hhlo_test_missing_b")) << e.what();
  }
}

TEST(Load, StaticInputTypesAreTheEntrysArguments) {
  Program p = read_program(kScale);
  std::optional<std::vector<TensorType>> types = static_input_types(p);
  ASSERT_TRUE(types);
  EXPECT_EQ(*types, (std::vector<TensorType>{{DType::f32, {3}}}));
  Program dynamic = read_program(
      "func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n  return %x : tensor<?xf32>\n}\n");
  EXPECT_FALSE(static_input_types(dynamic));
}

}  // namespace
}  // namespace hhlo
