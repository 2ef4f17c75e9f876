// JAX's CPU linear algebra run here (issue 10): every program of tests/linalg/gen_linalg.py
// (jax.export of jnp.linalg in f32/f64/c64/c128, unbatched and batched, well- and
// ill-conditioned; generated into the build folder with JAX's outputs) run through a Session
// (which registers the LAPACK kernels) and through `hhlo run`, against JAX's outputs.
//
// Batched cases also run vmap of the unbatched export (the batching rules of jaxlib's targets)
// against JAX's batched outputs. Tolerance, stated per case from its dtype: |ours - jax|_max <= 64
// * eps(dtype) * max(1, cond)
// * max(1, |jax|_max), eps = 2^-23 (f32, c64) or 2^-52 (f64, c128), cond the input's 2-norm
// condition number (gen_linalg.py): both sides call LAPACK (ours Debian's OpenBLAS, jaxlib its
// own), whose rounding may differ by that much. Non-finite elements must be at the same places
// with the same values (JAX's NaNs for singular / non-positive-definite inputs).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/cli_util.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/core/array.h"
#include "hhlo/ir/parser.h"
#include "hhlo/lapack/kernels.h"
#include "hhlo/runtime/custom_call.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
using C = std::complex<double>;

struct Case {
  std::string name, dtype;
  std::vector<std::string> compare;
  double cond = 1;
  int outputs = 0;
};

std::vector<Case> manifest() {
  std::ifstream in(fs::path(HHLO_LINALG_DIR) / "manifest.json");
  if (!in) return {};
  nlohmann::json j = nlohmann::json::parse(in);
  std::vector<Case> out;
  for (const auto& c : j)
    out.push_back({c["name"], c["dtype"], c["compare"].get<std::vector<std::string>>(),
                   c["cond"].get<double>(), c["outputs"].get<int>()});
  return out;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Array npy(const std::string& name, const char* kind, int k, const fs::path& dir = HHLO_LINALG_DIR) {
  return read_npy((dir / fmt::format("{}.{}{}.npy", name, kind, k)).string());
}

std::vector<Array> inputs(const std::string& name) {
  std::vector<Array> in;
  for (int k = 0; fs::exists(fs::path(HHLO_LINALG_DIR) / fmt::format("{}.in{}.npy", name, k)); ++k)
    in.push_back(npy(name, "in", k));
  return in;
}

/// Every element as a complex double.
std::vector<C> values(const Array& a) {
  std::vector<C> v(a.num_elements());
  if (a.dtype() == DType::c64) {
    auto s = a.values<std::complex<float>>();
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = C(s[i].real(), s[i].imag());
  } else if (a.dtype() == DType::c128) {
    auto s = a.values<std::complex<double>>();
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = s[i];
  } else {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = a.element_as_double(int64_t(i));
  }
  return v;
}

double tolerance(const Case& c) {
  bool single = c.dtype == "float32" || c.dtype == "complex64";
  double eps = single ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
  return 64 * eps * std::max(1.0, c.cond);
}

bool finite(C z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); }

/// `ours` with each column (cols) or row (rows) of every matrix multiplied by the unit factor
/// that best aligns it with `jax`'s (eigenvectors and singular vectors are defined up to one).
/// `perm` (eigvecs) maps our column j to JAX's column perm[j] first.
std::vector<C> aligned(const Array& shape, std::vector<C> ours, const std::vector<C>& jax,
                       bool rows, const std::vector<int64_t>& perm = {}) {
  const auto& d = shape.dims();
  const int64_t m = d[d.size() - 2], n = d[d.size() - 1], mn = m * n;
  const int64_t batch = mn ? int64_t(ours.size()) / mn : 0;
  std::vector<C> out = ours;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t lines = rows ? m : n, len = rows ? n : m;
    for (int64_t j = 0; j < lines; ++j) {
      int64_t tj = perm.empty() ? j : perm[b * n + j];
      auto at = [&](int64_t line, int64_t i) {
        return b * mn + (rows ? line * n + i : i * n + line);
      };
      C dot = 0;
      for (int64_t i = 0; i < len; ++i) dot += std::conj(ours[at(j, i)]) * jax[at(tj, i)];
      C phase = std::abs(dot) > 0 ? dot / std::abs(dot) : C(1);
      for (int64_t i = 0; i < len; ++i) out[at(tj, i)] = ours[at(j, i)] * phase;
    }
  }
  return out;
}

/// Checks ours against JAX's per the case's compare modes; returns "" or what differs.
std::string compare(const Case& c, const std::vector<Array>& ours, const std::vector<Array>& jax) {
  if (ours.size() != jax.size())
    return fmt::format("{} outputs, JAX has {}", ours.size(), jax.size());
  const double tol = tolerance(c);
  std::vector<int64_t> perm;  // eigvals -> eigvecs
  for (std::size_t k = 0; k < jax.size(); ++k) {
    if (ours[k].type() != jax[k].type())
      return fmt::format("output {} is {}, JAX's is {}", k, ours[k].type().to_string(),
                         jax[k].type().to_string());
    std::vector<C> o = values(ours[k]), r = values(jax[k]);
    const std::string& mode = c.compare[k];
    if (mode == "cols" || mode == "rows") o = aligned(jax[k], o, r, mode == "rows");
    if (mode == "eigvals") {  // match each of our eigenvalues to JAX's nearest unused one
      const int64_t n = jax[k].dims().back(), batch = n ? int64_t(o.size()) / n : 0;
      std::vector<C> m(o.size());
      perm.assign(o.size(), 0);
      for (int64_t b = 0; b < batch; ++b) {
        std::vector<bool> used(n, false);
        for (int64_t i = 0; i < n; ++i) {
          int64_t best = -1;
          for (int64_t j = 0; j < n; ++j)
            if (!used[j] && (best < 0 || std::abs(o[b * n + i] - r[b * n + j]) <
                                             std::abs(o[b * n + i] - r[b * n + best])))
              best = j;
          used[best] = true;
          perm[b * n + i] = best;
          m[b * n + best] = o[b * n + i];
        }
      }
      o = m;
    }
    if (mode == "eigvecs") o = aligned(jax[k], o, r, false, perm);
    double scale = 1, err = 0;
    for (C z : r)
      if (finite(z)) scale = std::max(scale, std::abs(z));
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (finite(r[i]) != finite(o[i]) ||
          (!finite(r[i]) && (std::isnan(r[i].real()) != std::isnan(o[i].real()) ||
                             (!std::isnan(r[i].real()) && r[i].real() != o[i].real()))))
        return fmt::format("output {} element {}: ours ({}, {}), JAX's ({}, {})", k, i, o[i].real(),
                           o[i].imag(), r[i].real(), r[i].imag());
      if (finite(r[i])) err = std::max(err, std::abs(o[i] - r[i]));
    }
    if (err > tol * scale)
      return fmt::format("output {} ({}): max error {:.3g} > tolerance {:.3g} (cond {:.3g})", k,
                         mode, err, tol * scale, c.cond);
  }
  return "";
}

Session& session() {
  static Session s(Client::create("cpu"));
  return s;
}

class JaxLinalg : public ::testing::TestWithParam<Case> {};

TEST_P(JaxLinalg, SessionReproducesJax) {
  const Case& c = GetParam();
  std::string text = read_text(fs::path(HHLO_LINALG_DIR) / (c.name + ".mlir"));
  ASSERT_FALSE(text.empty()) << c.name;
  std::vector<Array> ours = session().run(text, inputs(c.name));
  std::vector<Array> jax;
  for (int k = 0; k < c.outputs; ++k) jax.push_back(npy(c.name, "out", k));
  EXPECT_EQ(compare(c, ours, jax), "") << c.name << " (tolerance " << tolerance(c) << ")";
}

INSTANTIATE_TEST_SUITE_P(Exports, JaxLinalg, ::testing::ValuesIn(manifest()),
                         [](const auto& info) { return info.param.name; });

TEST(JaxLinalg, ManifestCoversEveryFunctionAndDtype) {
  std::vector<Case> all = manifest();
  ASSERT_GT(all.size(), 150u) << "generated manifest missing or short: " HHLO_LINALG_DIR;
  for (const char* f : {"solve", "inv", "det", "slogdet", "cholesky", "eigh", "svd_full",
                        "svd_thin", "svdvals", "qr", "lstsq", "pinv", "eig", "trsolve_lower"})
    for (const char* d : {"float32", "float64", "complex64", "complex128"}) {
      std::string prefix = fmt::format("{}_{}_", f, d);
      EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const Case& c) {
        return c.name.rfind(prefix, 0) == 0;
      })) << prefix;
    }
}

// ---- vmap of JAX's unbatched exports: the batching rules of jaxlib's LAPACK custom calls -------

/// The batched cases ("..._b") whose unbatched counterpart ("..._u") was exported too.
std::vector<Case> batched_with_unbatched() {
  std::vector<Case> out;
  std::vector<Case> all = manifest();
  for (const Case& c : all)
    if (c.name.ends_with("_b") &&
        fs::exists(fs::path(HHLO_LINALG_DIR) / (c.name.substr(0, c.name.size() - 1) + "u.mlir")))
      out.push_back(c);
  return out;
}

class JaxLinalgVmap : public ::testing::TestWithParam<Case> {};

TEST_P(JaxLinalgVmap, VmapOfTheUnbatchedExportMatchesJaxsBatchedOne) {
  // The per-example program is JAX's own export (getrf, potrf, trsm, syevd / heevd, gesdd,
  // geqrf, orgqr / ungqr, geev custom calls, JAX's layouts); vmap over the leading axis of the
  // batched case's inputs re-emits each call batched, and must give JAX's batched outputs.
  const Case& c = GetParam();
  std::string unbatched = c.name.substr(0, c.name.size() - 1) + "u";
  Module per = parse_module(read_text(fs::path(HHLO_LINALG_DIR) / (unbatched + ".mlir")));
  std::vector<Array> in = inputs(c.name);
  std::vector<TensorType> types;
  for (const Array& a : in) types.push_back(a.type());
  Module m;
  Func& f = m.add_func("main", types);
  f.ret(ad::vmap(entry_function(per), f.args(), {}, {}, &per));
  std::vector<Array> ours = run(m, in);
  std::vector<Array> jax;
  for (int k = 0; k < c.outputs; ++k) jax.push_back(npy(c.name, "out", k));
  EXPECT_EQ(compare(c, ours, jax), "") << c.name << " (tolerance " << tolerance(c) << ")";
}

INSTANTIATE_TEST_SUITE_P(Exports, JaxLinalgVmap, ::testing::ValuesIn(batched_with_unbatched()),
                         [](const auto& info) { return info.param.name; });

TEST(JaxLinalgVmap, CoversEveryLapackTarget) {
  // The programs vmapped above call every batching rule of jaxlib's targets.
  std::set<std::string> targets;
  for (const Case& c : batched_with_unbatched()) {
    Module per = parse_module(
        read_text(fs::path(HHLO_LINALG_DIR) / (c.name.substr(0, c.name.size() - 1) + "u.mlir")));
    std::function<void(const Block&)> walk = [&](const Block& b) {
      for (const auto& op : b.ops()) {
        if (op->name() == "stablehlo.custom_call")
          targets.insert(op->attr("call_target_name")->get_if<StringAttr>()->value);
        for (const auto& r : op->regions()) walk(*r);
      }
    };
    for (const auto& fn : per.funcs()) walk(fn->body());
  }
  for (const char* t :
       {"lapack_sgetrf_ffi", "lapack_zgetrf_ffi", "lapack_dpotrf_ffi", "lapack_ctrsm_ffi",
        "lapack_ssyevd_ffi", "lapack_zheevd_ffi", "lapack_dgesdd_ffi", "lapack_sgeqrf_ffi",
        "lapack_dorgqr_ffi", "lapack_cungqr_ffi", "lapack_zgeev_ffi"})
    EXPECT_TRUE(targets.count(t)) << t;
}

// ---- hhlo run ---------------------------------------------------------------------------------

/// `hhlo run` on case `name` (inputs from the generator), outputs read back from its -o folder.
std::vector<Array> run_cli(const Case& c, const std::vector<std::string>& extra = {}) {
  std::string dir = test::temp_dir("linalg_" + c.name);
  std::vector<std::string> args{"run", (fs::path(HHLO_LINALG_DIR) / (c.name + ".mlir")).string(),
                                "-o", dir};
  for (int k = 0; fs::exists(fs::path(HHLO_LINALG_DIR) / fmt::format("{}.in{}.npy", c.name, k));
       ++k) {
    args.push_back("-i");
    args.push_back((fs::path(HHLO_LINALG_DIR) / fmt::format("{}.in{}.npy", c.name, k)).string());
  }
  args.insert(args.end(), extra.begin(), extra.end());
  test::ProcessResult r = test::run_hhlo(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<Array> out;
  for (int k = 0; k < c.outputs && r.exit_code == 0; ++k)
    out.push_back(read_npy((fs::path(dir) / fmt::format("out{}.npy", k)).string()));
  return out;
}

TEST(JaxLinalgCli, HhloRunReproducesJaxForEveryFunction) {
  // One case per function and dtype family, batched and unbatched mixed (the Session test runs
  // every case; this one proves `hhlo run` registers the kernels before compiling).
  int ran = 0;
  for (const Case& c : manifest()) {
    bool pick = (c.name.find("float64_u") != std::string::npos ||
                 c.name.find("complex64_b") != std::string::npos) &&
                c.name.find("_illcond") == std::string::npos;
    if (!pick && c.name != "cholesky_not_pd_float32_u" && c.name != "det_singular_complex128_b")
      continue;
    std::vector<Array> jax;
    for (int k = 0; k < c.outputs; ++k) jax.push_back(npy(c.name, "out", k));
    std::vector<Array> ours = run_cli(c);
    EXPECT_EQ(compare(c, ours, jax), "") << c.name;
    ++ran;
  }
  EXPECT_GT(ran, 30);
}

// ---- The kernels themselves -------------------------------------------------------------------

TEST(LapackKernels, RegistersJaxlibsThirtySixTargets) {
  std::vector<std::string> t = jax_cpu_kernel_targets();
  EXPECT_EQ(t.size(), 36u);  // 9 routine families x 4 dtypes
  for (const char* name :
       {"lapack_sgetrf_ffi", "lapack_zgetrf_ffi", "lapack_ctrsm_ffi", "lapack_dpotrf_ffi",
        "lapack_ssyevd_ffi", "lapack_zheevd_ffi", "lapack_cgesdd_ffi", "lapack_dgesvd_ffi",
        "lapack_sgeqrf_ffi", "lapack_dorgqr_ffi", "lapack_cungqr_ffi", "lapack_zgeev_ffi"})
    EXPECT_NE(std::find(t.begin(), t.end(), name), t.end()) << name;
  Client client = Client::create("cpu");
  register_jax_cpu_kernels(client);  // idempotent: a second time is a no-op
  register_jax_cpu_kernels(client);
}

TEST(LapackKernels, MalformedShapeIsAnErrorNamingTheTargetNotACrash) {
  // potrf of a non-square operand: the kernel refuses it (JAX never emits it).
  std::string text =
      "module @m {\n  func.func public @main(%a: tensor<3x2xf32>) -> tensor<3x2xf32> {\n"
      "    %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 "
      ": ui8}} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<i32>)\n"
      "    return %0#0 : tensor<3x2xf32>\n  }\n}\n";
  try {
    session().run(text, {Array::from<float>({3, 2}, {1, 2, 3, 4, 5, 6})});
    FAIL() << "a non-square potrf ran";
  } catch (const PjrtError& e) {
    EXPECT_NE(std::string(e.what()).find("lapack_spotrf_ffi: the operand must be square"),
              std::string::npos)
        << e.what();
  }
}

TEST(LapackKernels, GetrfGivesLapacksOneBasedPivotsAndInfo) {
  // [[0, 1], [2, 3]] row-major: LAPACK pivots row 2 first (ipiv = [2, 2]); singular [[1, 2],
  // [2, 4]] has info = 2 (U(2,2) exactly zero). Hand-derived.
  std::string text =
      "module @m {\n  func.func public @main(%a: tensor<2x2x2xf32>) -> (tensor<2x2xi32>, "
      "tensor<2xi32>) {\n    %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) "
      "{mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], "
      "result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, "
      "dense<0> : tensor<1xindex>]} : (tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, "
      "tensor<2x2xi32>, tensor<2xi32>)\n    return %0#1, %0#2 : tensor<2x2xi32>, tensor<2xi32>\n"
      "  }\n}\n";
  auto out = session().run(text, {Array::from<float>({2, 2, 2}, {0, 1, 2, 3, 1, 2, 2, 4})});
  ASSERT_EQ(out.size(), 2u);
  auto ipiv = out[0].values<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(ipiv.begin(), ipiv.end()), (std::vector<int32_t>{2, 2, 2, 2}));
  auto info = out[1].values<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(info.begin(), info.end()), (std::vector<int32_t>{0, 2}));
}

// ---- hhlo run --custom-call-library -----------------------------------------------------------

const char* kRmsNorm =
    "module @m {\n  func.func public @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
    "    %0 = stablehlo.custom_call @hhlo_example_rms_norm(%a) {api_version = 4 : i32, "
    "backend_config = {epsilon = 0.0 : f32}} : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
    "    return %0 : tensor<2x2xf32>\n  }\n}\n";

TEST(CustomCallLibraryCli, RegistersTheTargetsTheLibraryLists) {
  std::string dir = test::temp_dir("cclib_ok");
  test::write_text(dir + "/p.mlir", kRmsNorm);
  write_npy(dir + "/a.npy", Array::from<float>({2, 2}, {3, 4, 1, 1}));
  test::ProcessResult r = test::run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/a.npy", "-o", dir,
                                          "--custom-call-library", HHLO_CUSTOM_CALL_CPU_LIB});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // rms over rows: [3, 4] / sqrt(12.5), [1, 1] / 1 (hand-derived).
  Array out = read_npy(dir + "/out0.npy");
  auto y = out.values<float>();
  const double s = std::sqrt(12.5);
  EXPECT_NEAR(y[0], 3 / s, 1e-6);
  EXPECT_NEAR(y[1], 4 / s, 1e-6);
  EXPECT_NEAR(y[2], 1, 1e-6);
  EXPECT_NEAR(y[3], 1, 1e-6);
  // Without the library the target is unregistered.
  r = test::run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/a.npy"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("hhlo_example_rms_norm"), std::string::npos) << r.output;
}

void expect_error(const std::vector<std::string>& args, const std::string& message) {
  test::ProcessResult r = test::run_hhlo(args);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
}

TEST(CustomCallLibraryCli, MissingFileNotAKernelLibraryAndDuplicateTargetAreNamedErrors) {
  std::string dir = test::temp_dir("cclib_err");
  test::write_text(dir + "/p.mlir", kRmsNorm);
  write_npy(dir + "/a.npy", Array::from<float>({2, 2}, {3, 4, 1, 1}));
  std::vector<std::string> base{"run", dir + "/p.mlir", "-i", dir + "/a.npy"};
  auto with = [&](std::vector<std::string> libs) {
    std::vector<std::string> a = base;
    for (auto& l : libs) a.insert(a.end(), {"--custom-call-library", l});
    return a;
  };
  expect_error(with({dir + "/nope.so"}), "kernel library '" + dir + "/nope.so' does not exist");
  expect_error(with({HHLO_FIXTURE_NOT_A_KERNEL_LIB}),
               "is not an HHLO kernel library: it does not export hhlo_custom_call_targets");
  expect_error(with({dir + "/p.mlir"}), "cannot load custom-call kernel library");
  // The fixture lists lapack_sgetrf_ffi, which `hhlo run` registered with our LAPACK handler.
  expect_error(with({HHLO_FIXTURE_DUPLICATE_KERNEL_LIB}),
               "target 'lapack_sgetrf_ffi' is already registered");
  expect_error(with({HHLO_FIXTURE_TWICE_KERNEL_LIB}), "lists target 'fixture_twice' twice");
}

}  // namespace
}  // namespace hhlo
