// Real JAX programs (tests/import/gen_exports.py, generated into the build folder at build time)
// run on the default CPU plugin against JAX's own outputs (made with the programs at build time by
// tests/import/gen_exports.py).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hhlo/core/array.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

const Client& cpu() {
  static Client client = Client::create("cpu");
  return client;
}

std::string program_text(const std::string& name) {
  std::ifstream in(fs::path(HHLO_EXPORTS_DIR) / (name + ".mlir"));
  EXPECT_TRUE(in) << "missing generated program " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// NAME.in0.npy, NAME.in1.npy, ... (or .out) until the first missing index.
std::vector<Array> vectors(const std::string& name, const char* kind) {
  std::vector<Array> out;
  for (int k = 0;; ++k) {
    fs::path p = fs::path(HHLO_EXPORTS_DIR) / "vectors" / fmt::format("{}.{}{}.npy", name, kind, k);
    if (!fs::exists(p)) return out;
    out.push_back(read_npy(p.string()));
  }
}

/// Relative tolerance per dtype: f32 programs may differ from JAX's XLA:CPU in the last bits of
/// transcendental functions and reduction order; half types in their last bit.
double tolerance(DType t) {
  switch (t) {
    case DType::bf16:
      return 2e-2;
    case DType::f16:
      return 2e-3;
    case DType::f32:
    case DType::c64:
      return 2e-5;
    default:
      return 0;
  }
}

void expect_matches(const std::vector<Array>& got, const std::vector<Array>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].type(), want[k].type()) << "output " << k;
    double tol = tolerance(want[k].dtype());
    for (int64_t i = 0; i < want[k].num_elements(); ++i) {
      double g = got[k].element_as_double(i), w = want[k].element_as_double(i);
      ASSERT_LE(std::abs(g - w), tol * (1 + std::abs(w)))
          << "output " << k << " element " << i << ": got " << g << ", JAX " << w;
    }
  }
}

std::vector<Array> run_text(const std::string& text, const std::vector<Array>& inputs) {
  LoadedExecutable exe = compile(cpu(), text);
  std::vector<Buffer> buffers;
  for (const Array& a : inputs) buffers.push_back(cpu().buffer_from_host(a));
  std::vector<const Buffer*> args;
  for (const Buffer& b : buffers) args.push_back(&b);
  std::vector<Array> out;
  for (const Buffer& b : exe.execute(args)) out.push_back(b.to_host());
  return out;
}

class Exports : public ::testing::TestWithParam<std::string> {};

TEST_P(Exports, RunAsExportedMatchesJax) {
  std::vector<Array> in = vectors(GetParam(), "in"), want = vectors(GetParam(), "out");
  ASSERT_FALSE(in.empty());
  ASSERT_FALSE(want.empty());
  expect_matches(run_text(program_text(GetParam()), in), want);
}

// The same program through our parser and printer: parsed (and verified), re-printed, and the
// re-printed text run against the same JAX values.
TEST_P(Exports, ParsedAndReprintedMatchesJax) {
  std::vector<Array> in = vectors(GetParam(), "in"), want = vectors(GetParam(), "out");
  Module m = parse_module(program_text(GetParam()), {.source_name = GetParam() + ".mlir"});
  expect_matches(run_text(to_mlir(m), in), want);
}

INSTANTIATE_TEST_SUITE_P(Jax, Exports,
                         ::testing::Values("mlp", "cnn", "transformer_block", "scan", "while",
                                           "cond", "gather_scatter", "sort", "rng", "fft",
                                           "low_precision", "int8"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hhlo
