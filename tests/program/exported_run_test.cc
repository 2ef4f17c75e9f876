// The module of a jax.export artifact, read by read_exported, run on the CPU plugin with the flat
// inputs in the order of `in_names` (the inputs `module_kept_var_idx` keeps) gives the outputs in
// the order of `out_names` that JAX computes from the same artifact (tests/program/
// gen_exported.py: exp.call on the deserialized artifact; the VJP's with a fixed cotangent).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hhlo/core/array.h"
#include "hhlo/program/exported.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
const fs::path kDir = fs::path(HHLO_GENERATED_DIR) / "exported";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void expect_runs_as_jax(const Exported& x, const std::string& stem) {
  SCOPED_TRACE(stem);
  std::vector<Array> args;
  for (int64_t k : x.module_kept_var_idx)
    args.push_back(read_npy((kDir / (stem + ".in" + std::to_string(k) + ".npy")).string()));
  std::vector<Array> got = run(x.module, args);
  ASSERT_EQ(got.size(), x.out_avals.size());
  for (size_t j = 0; j < got.size(); ++j) {
    Array want = read_npy((kDir / (stem + ".out" + std::to_string(j) + ".npy")).string());
    ASSERT_EQ(got[j].type(), want.type()) << x.out_names[j];
    EXPECT_EQ(got[j].type(), x.out_avals[j].type()) << x.out_names[j];
    if (want.dtype() != DType::f32) {
      EXPECT_EQ(got[j].to_vector<int32_t>(), want.to_vector<int32_t>()) << x.out_names[j];
      continue;
    }
    auto g = got[j].to_vector<float>(), w = want.to_vector<float>();
    for (size_t i = 0; i < w.size(); ++i)
      EXPECT_NEAR(g[i], w[i], 1e-5f * (1 + std::abs(w[i]))) << x.out_names[j] << " [" << i << "]";
  }
}

TEST(ExportedRun, ModulesComputeWhatJaxComputes) {
  for (const char* name : {"pytree", "unused_input"}) {
    Exported x = read_exported(slurp(kDir / (std::string(name) + ".jax")));
    expect_runs_as_jax(x, name);
  }
}

TEST(ExportedRun, TheVjpExportComputesJaxsCotangents) {
  Exported x = read_exported(slurp(kDir / "vjp.jax"));
  ASSERT_TRUE(x.has_vjp());
  expect_runs_as_jax(x, "vjp");
  expect_runs_as_jax(*x.vjp, "vjp.vjp");
}

}  // namespace
}  // namespace hhlo
