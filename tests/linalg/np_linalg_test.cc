// np::linalg against JAX (issue 10): every case of tests/linalg/gen_np_linalg.py (jnp.linalg's
// solve, inv, det, slogdet, eigh, svd, svdvals, qr, lstsq on fixed inputs, f32, f64, complex64
// and complex128, unbatched and batched; generated into the build folder with JAX's outputs and, in
// f64 and complex128, jax.grad of sum_K real(sum(out_K * w_K)) and jax.jvp tangents; for batched
// cases jax.vmap's outputs) built with np::linalg, run through hhlo::run (a Session: the LAPACK
// kernels are registered), and compared with JAX's values, gradients, tangents and vmap values.
//
// Tolerances, from the dtype: |ours - jax|_max <= tol * max(1, |jax|_max) with tol 2e-4 (f32)
// or 1e-10 (f64), complex64 and complex128 likewise, for values (vmap's too) and 1e-8 for the
// f64 and complex128 gradients and tangents. The
// inputs are uniform in [-1, 1) (condition numbers up to ~1e2); both sides call LAPACK (ours
// Debian's OpenBLAS, jaxlib its own build), so the difference is rounding times the condition
// number (squared for gradients). Eigenvectors and singular vectors appear as |v|^2, |u|^2, |vh|^2
// (phase-free), as generated.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/core/array.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ops/linalg.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
namespace la = np::linalg;

struct NpCase {
  std::string name, function, dtype;
  int inputs = 0, outputs = 0;
  bool grad = false, vmap = false;
};

std::vector<NpCase> np_manifest() {
  std::ifstream in(fs::path(HHLO_NP_LINALG_DIR) / "manifest.json");
  if (!in) return {};
  std::vector<NpCase> out;
  for (const auto& c : nlohmann::json::parse(in))
    out.push_back({c["name"], c["function"], c["dtype"], c["inputs"].get<int>(),
                   c["outputs"].get<int>(), c["grad"].get<bool>(), c["vmap"].get<bool>()});
  return out;
}

Array load(const NpCase& c, const char* kind, int k) {
  return read_npy(
      (fs::path(HHLO_NP_LINALG_DIR) / fmt::format("{}.{}{}.npy", c.name, kind, k)).string());
}

/// |x|^2 (real), as the generator's sq.
Value sq(Tensor x) {
  Tensor m = np::abs(x);
  return m * m;
}

/// The function of the case, built with np::linalg exactly as the generator's FUNCS entry.
std::vector<Value> build(const std::string& fn, const std::vector<Value>& x) {
  if (fn == "solve" || fn == "solve_vec") return {la::solve(x[0], x[1])};
  if (fn == "inv") return {la::inv(x[0])};
  if (fn == "cholesky") return {la::cholesky(x[0])};
  if (fn == "cholesky_lower") return {la::cholesky(x[0], /*symmetrize_input=*/false)};
  if (fn == "det") return {la::det(x[0])};
  if (fn == "slogdet") {
    la::SlogdetResult r = la::slogdet(x[0]);
    return {r.sign, r.logabsdet};
  }
  if (fn == "eigh") {
    la::EighResult r = la::eigh(x[0]);
    return {r.eigenvalues, sq(r.eigenvectors)};
  }
  if (fn == "svd_thin" || fn == "svd_full") {
    la::SvdResult r = la::svd(x[0], fn == "svd_full");
    return {sq(r.u), r.s, sq(r.vh)};
  }
  if (fn == "svdvals") return {la::svdvals(x[0])};
  if (fn == "qr" || fn == "qr_complete") {
    la::QrResult r = la::qr(x[0], fn == "qr" ? "reduced" : "complete");
    return {r.q, r.r};
  }
  if (fn == "lstsq") {
    la::LstsqResult r = la::lstsq(x[0], x[1]);
    return {r.x, r.residuals, r.rank, r.s};
  }
  throw Error("np_linalg_test: unknown function " + fn);
}

std::vector<Array> inputs_of(const NpCase& c) {
  std::vector<Array> in;
  for (int k = 0; k < c.inputs; ++k) in.push_back(load(c, "in", k));
  return in;
}

std::vector<TensorType> types(const std::vector<Array>& xs) {
  std::vector<TensorType> t;
  for (const Array& a : xs) t.push_back(a.type());
  return t;
}

/// Every element as a complex double.
std::vector<std::complex<double>> values(const Array& a) {
  std::vector<std::complex<double>> v(static_cast<size_t>(a.num_elements()));
  if (a.dtype() == DType::c64) {
    auto s = a.values<std::complex<float>>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = {s[i].real(), s[i].imag()};
  } else if (a.dtype() == DType::c128) {
    auto s = a.values<std::complex<double>>();
    std::copy(s.begin(), s.end(), v.begin());
  } else {
    for (size_t i = 0; i < v.size(); ++i) v[i] = a.element_as_double(int64_t(i));
  }
  return v;
}

bool finite(std::complex<double> z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); }

/// "" or what differs: dims (and dtype, for inexact outputs; lstsq's rank is i32 here and i64 in
/// JAX with x64) and values within tol * max(1, |jax|_max).
std::string differs(const Array& ours, const Array& jax, double tol) {
  bool inexact = is_float(jax.dtype()) || is_complex(jax.dtype());
  if (ours.dims() != jax.dims() || (inexact && ours.dtype() != jax.dtype()))
    return fmt::format("ours {}, JAX's {}", ours.type().to_string(), jax.type().to_string());
  std::vector<std::complex<double>> o = values(ours), r = values(jax);
  double scale = 1, err = 0;
  for (auto z : r)
    if (finite(z)) scale = std::max(scale, std::abs(z));
  for (size_t i = 0; i < r.size(); ++i) {
    if (finite(r[i]) != finite(o[i]) || (!finite(r[i]) && o[i].real() != r[i].real()))
      return fmt::format("element {}: ours ({}, {}), JAX's ({}, {})", i, o[i].real(), o[i].imag(),
                         r[i].real(), r[i].imag());
    if (finite(r[i])) err = std::max(err, std::abs(o[i] - r[i]));
  }
  if (err > tol * scale) return fmt::format("max error {:.3g} > {:.3g}", err, tol * scale);
  return "";
}

class NpLinalg : public ::testing::TestWithParam<NpCase> {};

TEST_P(NpLinalg, ValuesMatchJax) {
  const NpCase& c = GetParam();
  std::vector<Array> in = inputs_of(c);
  Module m;
  Func& f = m.add_func("main", types(in));
  f.ret(build(c.function, f.args()));
  std::vector<Array> ours = run(m, in);
  ASSERT_EQ(int(ours.size()), c.outputs);
  double tol = c.dtype == "float32" || c.dtype == "complex64" ? 2e-4 : 1e-10;
  for (int k = 0; k < c.outputs; ++k)
    EXPECT_EQ(differs(ours[k], load(c, "out", k), tol), "") << c.name << " output " << k;
}

/// The cases with jax.grad vectors (f64 and complex128; not the full SVD).
std::vector<NpCase> grad_cases() {
  std::vector<NpCase> out;
  for (const NpCase& c : np_manifest())
    if (c.grad) out.push_back(c);
  return out;
}

class NpLinalgGrad : public ::testing::TestWithParam<NpCase> {};

TEST_P(NpLinalgGrad, GradientsMatchJaxGrad) {
  const NpCase& c = GetParam();
  std::vector<Array> in = inputs_of(c);
  Module m;
  Func& f = m.add_func("main", types(in));
  std::vector<Value> outs = build(c.function, f.args());
  std::optional<Tensor> loss;
  for (int k = 0; k < c.outputs; ++k) {
    if (!is_float(outs[k].dtype()) && !is_complex(outs[k].dtype())) continue;
    Tensor term = np::sum(Tensor(outs[k]) * Tensor(constant(f, load(c, "w", k))));
    if (is_complex(term.dtype())) term = hhlo::real(term);
    loss = loss ? Tensor(*loss + term) : term;
  }
  f.ret(ad::grad(*loss, f.args()));
  std::vector<Array> g = run(m, in);
  ASSERT_EQ(int(g.size()), c.inputs);
  for (int k = 0; k < c.inputs; ++k)
    EXPECT_EQ(differs(g[k], load(c, "grad", k), 1e-8), "") << c.name << " d/d input " << k;
}

TEST_P(NpLinalgGrad, JvpMatchesJaxJvp) {
  const NpCase& c = GetParam();
  std::vector<Array> in = inputs_of(c);
  Module m;
  Func& f = m.add_func("main", types(in));
  std::vector<Value> outs = build(c.function, f.args());
  std::vector<ad::Tangent> ts;
  for (int k = 0; k < c.inputs; ++k) ts.emplace_back(constant(f, load(c, "tan", k)));
  std::vector<Value> inexact;
  std::vector<int> which;
  for (int k = 0; k < c.outputs; ++k)
    if (is_float(outs[k].dtype()) || is_complex(outs[k].dtype())) {
      inexact.push_back(outs[k]);
      which.push_back(k);
    }
  f.ret(ad::jvp(inexact, ad::Wrt{f.args()}, ad::Tangents{ts}));
  std::vector<Array> t = run(m, in);
  ASSERT_EQ(t.size(), which.size());
  for (size_t i = 0; i < which.size(); ++i)
    EXPECT_EQ(differs(t[i], load(c, "jvp", which[i]), 1e-8), "")
        << c.name << " tangent of output " << which[i];
}

/// The batched cases (with jax.vmap's outputs).
std::vector<NpCase> vmap_cases() {
  std::vector<NpCase> out;
  for (const NpCase& c : np_manifest())
    if (c.vmap) out.push_back(c);
  return out;
}

/// The in_axes of a batched case: the leading axis of every input of rank >= 3 (solve_vec's
/// vector is shared), as the generator's jax.vmap.
std::vector<ad::Axis> vmap_axes(const std::vector<Array>& in) {
  std::vector<ad::Axis> axes;
  for (const Array& a : in) axes.push_back(a.dims().size() >= 3 ? ad::Axis{0} : ad::Axis{});
  return axes;
}

class NpLinalgVmap : public ::testing::TestWithParam<NpCase> {};

TEST_P(NpLinalgVmap, VmapEqualsTheBatchedCallAndJaxVmap) {
  // vmap of the per-example function (the batching rules of the LAPACK custom calls and of the
  // QR composite re-emit them with a leading batch dimension) against jax.vmap's outputs and
  // against np::linalg called on the batched inputs, in one program.
  const NpCase& c = GetParam();
  std::vector<Array> in = inputs_of(c);
  Module m;
  Func& f = m.add_func("main", types(in));
  std::vector<Value> outs = ad::vmap(
      [&](const std::vector<Value>& x) { return build(c.function, x); }, f.args(), vmap_axes(in));
  std::vector<Value> direct = build(c.function, f.args());
  outs.insert(outs.end(), direct.begin(), direct.end());
  f.ret(outs);
  std::vector<Array> ours = run(m, in);
  ASSERT_EQ(int(ours.size()), 2 * c.outputs);
  double tol = c.dtype == "float32" || c.dtype == "complex64" ? 2e-4 : 1e-10;
  for (int k = 0; k < c.outputs; ++k) {
    EXPECT_EQ(differs(ours[k], load(c, "vmap", k), tol), "") << c.name << " output " << k;
    EXPECT_EQ(differs(ours[k], ours[c.outputs + k], tol), "")
        << c.name << " output " << k << " (vmap vs the batched call)";
  }
}

INSTANTIATE_TEST_SUITE_P(Jax, NpLinalg, ::testing::ValuesIn(np_manifest()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Jax, NpLinalgGrad, ::testing::ValuesIn(grad_cases()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Jax, NpLinalgVmap, ::testing::ValuesIn(vmap_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(NpLinalg, ManifestCoversEveryFunction) {
  std::vector<NpCase> all = np_manifest();
  ASSERT_GE(all.size(), 100u) << "generated manifest missing or short: " HHLO_NP_LINALG_DIR;
  for (const char* fn :
       {"solve", "solve_vec", "inv", "det", "slogdet", "eigh", "svd_thin", "svd_full", "svdvals",
        "qr", "qr_complete", "lstsq", "cholesky", "cholesky_lower"})
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const NpCase& c) {
      return c.function == fn && c.grad == (std::string(fn) != "svd_full");
    })) << fn;
}

// triangular_solve's four switches are named ({.lower, .transpose, .unit_diagonal, .left_side}):
// positional bools, which could be swapped silently, do not compile.
static_assert(!std::is_invocable_v<decltype(&la::triangular_solve), Tensor, Tensor, bool, bool>);
static_assert(
    std::is_invocable_v<decltype(&la::triangular_solve), Tensor, Tensor, la::SolveTriangular, Loc>);
// eigh's two switches likewise ({.lower, .symmetrize_input}).
static_assert(!std::is_invocable_v<decltype(&la::eigh), Tensor, bool, bool, Loc>);

TEST(NpLinalg, TriangularSolveSwitchesAreNamed) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {2, 2}}, TensorType{DType::f64, {2, 1}}});
  Tensor a = f.arg(0), b = f.arg(1);
  f.ret({la::triangular_solve(a, b), la::triangular_solve(a, b, {.transpose = true}),
         la::triangular_solve(a, b, {.lower = false})});
  // a = [[2, 0], [1, 1]], b = [2, 3]: lower x = [1, 2]; a^T x = b gives [-0.5, 3]; the upper
  // triangle [[2, 0], [0, 1]] gives [1, 3].
  std::vector<Array> out =
      run(m, {Array::from<double>({2, 2}, {2, 0, 1, 1}), Array::from<double>({2, 1}, {2, 3})});
  EXPECT_EQ(out.at(0).to_vector<double>(), (std::vector<double>{1, 2}));
  EXPECT_EQ(out.at(1).to_vector<double>(), (std::vector<double>{-0.5, 3}));
  EXPECT_EQ(out.at(2).to_vector<double>(), (std::vector<double>{1, 3}));
}

TEST(NpLinalg, ShapeErrorsNameTheFunction) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {3, 4}}, TensorType{DType::f32, {4, 2}},
                                TensorType{DType::i32, {3, 3}}});
  auto names = [](const std::function<void()>& fn, const std::string& name) {
    try {
      fn();
    } catch (const ShapeError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << name << " did not throw";
  };
  names([&] { la::solve(f.arg(0), f.arg(1)); }, "solve");  // non-square a
  names([&] { la::inv(f.arg(0)); }, "inv");
  names([&] { la::det(f.arg(2)); }, "det");  // integer dtype
  names([&] { la::slogdet(f.arg(0)); }, "slogdet");
  names([&] { la::eigh(f.arg(0)); }, "eigh");
  names([&] { la::svd(f.arg(2)); }, "svd");
  names([&] { la::qr(f.arg(0), "economic"); }, "qr");
  names([&] { la::lstsq(f.arg(0), f.arg(1)); }, "lstsq");  // leading sizes 3 and 4
}

// ---- the custom calls np::linalg emits are JAX's: target, layouts, attributes, types

/// One custom call as text: target, operand/result layouts, backend_config entries, types.
std::string describe(const Op& op) {
  std::string out = op.attr("call_target_name")->get_if<StringAttr>()->value;
  for (const char* l : {"operand_layouts", "result_layouts"}) {
    out += fmt::format(" {}=", l);
    if (const Attribute* a = op.attr(l))
      for (const auto& v : a->get_if<LayoutsAttr>()->layouts)
        out += fmt::format("[{}]", fmt::join(v, ","));
  }
  for (const char* c : {"backend_config", "mhlo.backend_config"})
    if (const Attribute* a = op.attr(c)) {
      const auto* d = a->get_if<DictAttr>();
      if (!d) return out + " (backend_config is not a dictionary)";
      for (const auto& [k, v] : d->entries)
        out += fmt::format(" {}={}", k, v.get_if<IntAttr>() ? v.get_if<IntAttr>()->value : -1);
    }
  for (Value v : op.operands()) out += " " + v.type().to_string();
  out += " ->";
  for (Value v : op.results()) out += " " + v.type().to_string();
  return out;
}

void collect(const Block& b, std::vector<std::string>& out) {
  for (const auto& op : b.ops()) {
    if (op->name() == "stablehlo.custom_call") out.push_back(describe(*op));
    for (const auto& r : op->regions()) collect(*r, out);
  }
}

std::vector<std::string> custom_calls(const Module& m) {
  std::vector<std::string> out;
  for (const auto& f : m.funcs()) collect(f->body(), out);
  return out;
}

TEST(NpLinalg, EmitsJaxsCustomCallsLayoutsAndAttributes) {
  // np::linalg function name as in build(), JAX export of tests/linalg/gen_linalg.py.
  const std::vector<std::pair<std::string, std::string>> pairs{
      {"det", "det_float64_u"},           {"solve", "solve_float32_b"},
      {"eigh", "eigh_float64_b"},         {"eigh", "eigh_complex64_u"},
      {"svd_thin", "svd_thin_float64_u"}, {"svd_full", "svd_full_complex128_b"},
      {"svdvals", "svdvals_float32_b"},   {"qr", "qr_float64_b"},
      {"qr", "qr_wide_complex64_u"},      {"qr_complete", "qr_complete_float64_u"},
      {"lstsq", "lstsq_float64_u"}};
  for (const auto& [fn, jax_case] : pairs) {
    SCOPED_TRACE(jax_case);
    fs::path dir(HHLO_LINALG_DIR);
    std::vector<std::string> theirs =
        custom_calls(parse_module_file((dir / (jax_case + ".mlir")).string()));
    std::vector<Array> in;
    for (int k = 0; fs::exists(dir / fmt::format("{}.in{}.npy", jax_case, k)); ++k)
      in.push_back(read_npy((dir / fmt::format("{}.in{}.npy", jax_case, k)).string()));
    Module m;
    Func& f = m.add_func("main", types(in));
    f.ret(build(fn, f.args()));
    std::vector<std::string> ours = custom_calls(m);
    if (jax_case.ends_with("_b")) {  // and vmap of the per-example function: the same calls
      Module v;
      Func& g = v.add_func("main", types(in));
      g.ret(ad::vmap([&](const std::vector<Value>& x) { return build(fn, x); }, g.args(),
                     vmap_axes(in)));
      std::vector<std::string> batched = custom_calls(v);
      ASSERT_EQ(batched.size(), ours.size());
      ours.insert(ours.end(), batched.begin(), batched.end());
    }
    ASSERT_FALSE(ours.empty());
    for (const std::string& c : ours)
      EXPECT_NE(std::find(theirs.begin(), theirs.end(), c), theirs.end())
          << "ours: " << c << "\nJAX's:\n  " << fmt::format("{}", fmt::join(theirs, "\n  "));
  }
}

}  // namespace
}  // namespace hhlo
