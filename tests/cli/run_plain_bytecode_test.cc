// `hhlo run` on plain MLIR bytecode of StableHLO (issue 41: `write_bytecode` of a JAX lowering,
// the form of TensorFlow's `stablehlo_serialized` and torch_xla's `forward.bytecode`): every
// program of tests/ir/gen_plain_bytecode.py that runs on one CPU device gives the values JAX
// computed for the same inputs, with the project's JAX and with the newest.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

namespace fs = std::filesystem;

const fs::path kOld = fs::path(HHLO_GENERATED_DIR) / "plain_bytecode";
const fs::path kNew = fs::path(HHLO_GENERATED_DIR) / "plain_bytecode_jax_new";

/// "" when `got` equals JAX's `want` (same dtype and shape; floats within 1e-4 relative or equal
/// (infinities), complex numbers part by part, integers and booleans exactly), else the first
/// difference.
std::string differs(const Array& got, const Array& want) {
  if (got.type() != want.type())
    return "type " + got.type().to_string() + " vs JAX's " + want.type().to_string();
  DType t = want.type().dtype;
  if (!is_float(t) && !is_complex(t))
    return got == want ? "" : "integer or boolean elements differ";
  bool cplx = is_complex(t);
  for (int64_t i = 0; i < want.num_elements(); ++i)
    for (int part = 0; part < (cplx ? 2 : 1); ++part) {
      double g = got.element_as_double(i), w = want.element_as_double(i);
      if (cplx && part == 1) {  // the imaginary part: the second float of the pair
        auto im = [&](const Array& a) {
          return t == DType::c64 ? static_cast<const float*>(a.data())[2 * i + 1]
                                 : static_cast<const double*>(a.data())[2 * i + 1];
        };
        g = im(got);
        w = im(want);
      }
      double tol = (t == DType::bf16 || t == DType::f16 ? 1e-2 : 1e-4) * (1 + std::abs(w));
      if (g != w && !(std::abs(g - w) <= tol) && !(std::isnan(g) && std::isnan(w)))
        return "element " + std::to_string(i) + ": " + std::to_string(g) + " vs JAX's " +
               std::to_string(w);
    }
  return "";
}

/// `hhlo run` of `program` with case `name`'s inputs gives JAX's outputs.
void runs_as_jax(const fs::path& dir, const std::string& name, const nlohmann::json& c,
                 const fs::path& program) {
  std::vector<std::string> args = {"run", program.string()};
  for (int k = 0; k < c["inputs"].get<int>(); ++k)
    args.insert(args.end(), {"-i", (dir / (name + ".in" + std::to_string(k) + ".npy")).string()});
  std::string out = temp_dir("plain_bytecode_" + program.filename().string());
  args.insert(args.end(), {"-o", out});
  ProcessResult r = run_hhlo(args);
  ASSERT_EQ(r.exit_code, 0) << program << ": " << r.output;
  for (int k = 0; k < c["outputs"].get<int>(); ++k) {
    std::string o = "out" + std::to_string(k) + ".npy";
    EXPECT_EQ(differs(read_npy(out + "/" + o), read_npy((dir / (name + "." + o)).string())), "")
        << program << " " << o;
  }
}

/// Every case that runs: its plain bytecode; where the module holds an op StableHLO added after
/// 1.22 (a NAME@vhlo.mlirbc was written), also its text and its VHLO portable artifact.
void runs_as_jax(const fs::path& dir) {
  nlohmann::json manifest;
  std::ifstream(dir / "manifest.json") >> manifest;
  int ran = 0, new_ops = 0;
  for (const auto& [name, c] : manifest["cases"].items()) {
    if (!c["runs"].get<bool>()) continue;
    runs_as_jax(dir, name, c, dir / (name + ".mlirbc"));
    if (fs::exists(dir / (name + "@vhlo.mlirbc"))) {
      runs_as_jax(dir, name, c, dir / (name + ".mlir"));
      runs_as_jax(dir, name, c, dir / (name + "@vhlo.mlirbc"));
      ++new_ops;
    }
    ++ran;
  }
  EXPECT_GE(ran, 17) << "programs run from " << dir;
  if (dir.filename() == "plain_bytecode_jax_new") {
    EXPECT_EQ(new_ops, 3) << "rng, erf_inv and exp2_log2 hold fma / exp2 / log2";
  }
}

TEST(RunPlainBytecode, GivesJaxsValues) {
  if (!fs::exists(kOld / "manifest.json")) GTEST_SKIP() << "no plain bytecode in " << kOld;
  runs_as_jax(kOld);
}

TEST(RunPlainBytecodeJaxNew, GivesJaxsValues) {
  if (!fs::exists(kNew / "manifest.json"))
    GTEST_SKIP() << "no plain bytecode of the newest JAX in " << kNew
                 << ": scripts/setup.sh makes .venv-jax-new (JAX 0.12.1) only where a Python "
                    "3.12 or newer exists; run it, then cmake";
  // JAX 0.12.1 lowers jax.random.normal and erf_inv with stablehlo.fma (StableHLO 1.24), jnp.exp2
  // and jnp.log2 with stablehlo.exp2 / log2 (1.23): the pinned plugin (StableHLO up to 1.20) gets
  // add(multiply), exponential(multiply by ln 2) and multiply(log, log2(e)).
  runs_as_jax(kNew);
}

}  // namespace
}  // namespace hhlo::test
