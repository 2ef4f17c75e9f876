// A cache hit that reads nothing (hhlo/program/program_cache.h): a later session (as a later
// process would) with the same disk cache runs a program it has never read, from the record of
// its bytes, with the right values; a program at new argument shapes, a damaged record or a
// record whose executable is gone are read and compiled again, never wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hhlo/program/load.h"
#include "hhlo/program/program_cache.h"
#include "hhlo/program/record_store.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScale = R"(
func.func public @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c = stablehlo.constant dense<2.5> : tensor<3xf64>
  %0 = stablehlo.multiply %x, %c : tensor<3xf64>
  return %0 : tensor<3xf64>
}
)";

// A shape-polymorphic entry: refined to each argument shape.
constexpr const char* kDoubled = R"(
func.func public @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
)";

/// A fresh cache folder for one test.
struct CacheDir {
  explicit CacheDir(const std::string& name)
      : path((fs::temp_directory_path() /
              ("hhlo-source-cache-" + name + "-" + std::to_string(getpid())))
                 .string()) {
    fs::remove_all(path);
  }
  ~CacheDir() { fs::remove_all(path); }
  std::string path;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// The path of the source record of running `program` on `args` in a CPU session.
std::string record_path(const CompileCache& cache, std::string_view program,
                        const std::vector<Array>& args) {
  std::vector<TensorType> types;
  for (const Array& a : args) types.push_back(a.type());
  return RecordStore(cache).path(load_key(program, {.prepare = {.arg_types = types}}));
}

TEST(SourceCache, ALaterSessionRunsTheProgramWithoutReadingIt) {
  CacheDir dir("later");
  std::vector<Array> x = {Array::from<double>({3}, {1, -2, 4})};
  Session first(Client::create("cpu"), {.dir = dir.path});
  EXPECT_EQ(first.run(kScale, x).at(0).to_vector<double>(), (std::vector<double>{2.5, -5, 10}));
  EXPECT_EQ(first.programs_read(), 1u);
  EXPECT_TRUE(fs::exists(record_path(first.disk_cache(), kScale, x)));

  Session second(Client::create("cpu"), {.dir = dir.path});
  EXPECT_EQ(second.run(kScale, x).at(0).to_vector<double>(), (std::vector<double>{2.5, -5, 10}));
  EXPECT_EQ(second.programs_read(), 0u);
  EXPECT_EQ(second.last_outcome(), CacheOutcome::hit);
  // Other values of the same types run on the executable loaded.
  EXPECT_EQ(second.run(kScale, {Array::from<double>({3}, {2, 0, -1})}).at(0).to_vector<double>(),
            (std::vector<double>{5, 0, -2.5}));
  EXPECT_EQ(second.programs_read(), 0u);
  EXPECT_EQ(second.cache_size(), 1u);
}

TEST(SourceCache, AShapePolymorphicProgramIsReadOnlyForShapesNotSeenBefore) {
  CacheDir dir("poly");
  Session first(Client::create("cpu"), {.dir = dir.path});
  first.run(kDoubled, {Array::from<float>({2}, {1, 2})});
  Session second(Client::create("cpu"), {.dir = dir.path});
  EXPECT_EQ(second.run(kDoubled, {Array::from<float>({2}, {3, 4})}).at(0).to_vector<float>(),
            (std::vector<float>{6, 8}));
  EXPECT_EQ(second.programs_read(), 0u);
  EXPECT_EQ(second.run(kDoubled, {Array::from<float>({3}, {1, 2, 3})}).at(0).to_vector<float>(),
            (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(second.programs_read(), 1u);
  EXPECT_EQ(second.cache_size(), 2u);
}

TEST(SourceCache, AnArtifactsUnusedInputsAreDroppedOnAHit) {
  CacheDir dir("artifact");
  fs::path gen = fs::path(HHLO_GENERATED_DIR) / "exported";
  std::string artifact = slurp(gen / "unused_input.jax");
  std::vector<Array> args;
  for (int k = 0; k < 3; ++k)
    args.push_back(read_npy((gen / ("unused_input.in" + std::to_string(k) + ".npy")).string()));
  std::vector<float> want = read_npy((gen / "unused_input.out0.npy").string()).to_vector<float>();
  Session first(Client::create("cpu"), {.dir = dir.path});
  EXPECT_EQ(first.run(artifact, args).at(0).to_vector<float>(), want);
  Session second(Client::create("cpu"), {.dir = dir.path});
  EXPECT_EQ(second.run(artifact, args).at(0).to_vector<float>(), want);
  EXPECT_EQ(second.programs_read(), 0u);
}

TEST(SourceCache, ADamagedRecordIsAMissAndTheProgramIsRead) {
  CacheDir dir("damaged");
  std::vector<Array> x = {Array::from<double>({3}, {1, 1, 1})};
  Session(Client::create("cpu"), {.dir = dir.path}).run(kScale, x);
  Session second(Client::create("cpu"), {.dir = dir.path});
  std::string record = record_path(second.disk_cache(), kScale, x);
  std::string bytes = slurp(record);
  ASSERT_GT(bytes.size(), 100u);
  std::ofstream(record, std::ios::binary | std::ios::trunc).write(bytes.data(), 100);
  EXPECT_EQ(second.run(kScale, x).at(0).to_vector<double>(), (std::vector<double>{2.5, 2.5, 2.5}));
  EXPECT_EQ(second.programs_read(), 1u);
  // Read and compiled again, it is remembered again.
  Session third(Client::create("cpu"), {.dir = dir.path});
  third.run(kScale, x);
  EXPECT_EQ(third.programs_read(), 0u);
}

TEST(SourceCache, ARecordWhoseExecutableIsGoneIsAMiss) {
  CacheDir dir("gone");
  std::vector<Array> x = {Array::from<double>({3}, {2, 2, 2})};
  Session first(Client::create("cpu"), {.dir = dir.path});
  first.run(kScale, x);
  std::string record = record_path(first.disk_cache(), kScale, x);
  for (const auto& e : fs::directory_iterator(dir.path))
    if (e.path().string() != record) fs::remove(e.path());
  Session second(Client::create("cpu"), {.dir = dir.path});
  EXPECT_EQ(second.run(kScale, x).at(0).to_vector<double>(), (std::vector<double>{5, 5, 5}));
  EXPECT_EQ(second.programs_read(), 1u);
}

TEST(SourceCache, ARecordFromAnotherClientIsNotLoaded) {
  CacheDir dir("client");
  std::vector<Array> x = {Array::from<double>({3}, {1, 2, 3})};
  Session first(Client::create("cpu"), {.dir = dir.path});
  first.run(kScale, x);
  CompileCache cache({.dir = dir.path});
  std::optional<SourceRecord> r = find_source(
      cache, load_key(kScale, {.prepare = {.arg_types = std::vector<TensorType>{x[0].type()}}}));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->facts.names.results, (std::vector<std::string>{"out0"}));
  EXPECT_TRUE(load_source(cache, Client::create("cpu"), *r).has_value());
  // Eight CPU devices instead of four: another client identity.
  Client eight = Client::create("cpu", {{"cpu_device_count", int64_t{8}}});
  EXPECT_FALSE(load_source(cache, eight, *r).has_value());
}

}  // namespace
}  // namespace hhlo
