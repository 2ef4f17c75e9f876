// `hhlo run` from the compile cache without reading the program (hhlo/program/program_cache.h):
// a second run of the same file on inputs of the same types loads the executable from the record
// of its bytes and gives the same outputs, named as the first run named them, also for a
// jax.export artifact (its unused inputs dropped) and for inputs given by name; damaged records
// are misses, never wrong outputs. That nothing is read on a hit is shown by the Session's count
// (tests/session/source_cache_test.cc); here, the outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

namespace fs = std::filesystem;
const fs::path kDir = fs::path(HHLO_GENERATED_DIR) / "exported";

std::vector<float> floats(const Array& a) { return a.to_vector<float>(); }

/// Runs `hhlo run ARGS -o OUT` with the cache in `cache`; the outputs written to OUT.
ProcessResult run_cached(std::vector<std::string> args, const std::string& cache,
                         const std::string& out) {
  args.insert(args.end(), {"-o", out});
  return run_hhlo(args, {.env = {"HHLO_COMPILE_CACHE=" + cache}});
}

/// The number of entries (executables and records) in the cache folder.
int entries(const std::string& cache) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(cache))
    n += e.path().extension() == ".hxc" || e.path().extension() == ".hrec";
  return n;
}

TEST(RunCache, ASecondRunOfTheSameBytesGivesTheSameOutputs) {
  std::string dir = temp_dir("run_cache_same");
  write_text(dir + "/p.mlir",
             "func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "
             "\"result['y']\"}) {\n  %0 = stablehlo.multiply %a, %a : tensor<2xf32>\n"
             "  return %0 : tensor<2xf32>\n}\n");
  write_npy(dir + "/a.npy", Array::from<float>({2}, {3, -4}));
  std::vector<std::string> args = {"run", dir + "/p.mlir", "-i", dir + "/a.npy"};
  ASSERT_EQ(run_cached(args, dir + "/cache", dir + "/o1").exit_code, 0);
  EXPECT_EQ(entries(dir + "/cache"), 2);  // the executable, the record of the bytes
  ProcessResult r = run_cached(args, dir + "/cache", dir + "/o2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(floats(read_npy(dir + "/o2/y.npy")), (std::vector<float>{9, 16}));
  EXPECT_EQ(entries(dir + "/cache"), 2);
}

TEST(RunCache, AnArtifactByNameFromTheCacheDropsItsUnusedInput) {
  std::string dir = temp_dir("run_cache_artifact");
  std::vector<std::string> args = {"run", (kDir / "unused_input.jax").string()};
  const char* names[] = {"args[0]", "args[1]", "args[2]"};
  for (int k = 0; k < 3; ++k)
    args.insert(args.end(),
                {"-i", std::string(names[k]) + "=" +
                           (kDir / ("unused_input.in" + std::to_string(k) + ".npy")).string()});
  std::vector<float> want = floats(read_npy((kDir / "unused_input.out0.npy").string()));
  ASSERT_EQ(run_cached(args, dir + "/cache", dir + "/o1").exit_code, 0);
  EXPECT_EQ(entries(dir + "/cache"), 3);  // and the record of its names
  ProcessResult r = run_cached(args, dir + "/cache", dir + "/o2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(floats(read_npy(dir + "/o2/out0.npy")), want);
}

TEST(RunCache, DamagedRecordsAreMisses) {
  std::string dir = temp_dir("run_cache_damaged");
  std::vector<std::string> args = {"run", (kDir / "pytree.jax").string()};
  for (int k = 0; k < 4; ++k)
    args.insert(args.end(), {"-i", (kDir / ("pytree.in" + std::to_string(k) + ".npy")).string()});
  ASSERT_EQ(run_cached(args, dir + "/cache", dir + "/o1").exit_code, 0);
  for (const auto& e : fs::directory_iterator(dir + "/cache"))
    if (e.path().extension() == ".hrec")  // the record (JSON), not the executable or the ledger
      std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << "{\"compile_key\": 1}";
  ProcessResult r = run_cached(args, dir + "/cache", dir + "/o2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* stem : {"h", "stats_0", "stats_1_0"})
    EXPECT_EQ(floats(read_npy(dir + "/o2/" + stem + ".npy")),
              floats(read_npy(dir + "/o1/" + stem + ".npy")))
        << stem;
}

}  // namespace
}  // namespace hhlo::test
