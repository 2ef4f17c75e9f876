// Gradients of imported programs that call jaxlib's LAPACK targets (issue 23, "Imported linear
// algebra"): trsm, potrf (cho_factor / cho_solve, a Gaussian-process likelihood), QR (geqrf +
// orgqr, recognised as the hhlo.qr composite), gesvd and geev, exported by JAX
// (tests/import/gen_lapack_grad_exports.py at build time) and differentiated by
// ad::value_and_grad_module / jvp_module, and vmap of the gradient, against jax.value_and_grad,
// jax.jvp and jax.vmap(jax.grad) in f32 and f64 (geev also in c64 and c128).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <type_traits>

#include "hhlo/autodiff/imported.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/core/array.h"
#include "hhlo/ir/inline.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct LapackCase {
  const char* name;
  size_t params;  // the leading arguments differentiated; the rest is data
};

std::string stem(const LapackCase& c, const std::string& dt) {
  return fmt::format("lapack_{}_{}", c.name, dt);
}

std::vector<Array> vectors(const std::string& s, const char* kind) {
  std::vector<Array> out;
  for (int k = 0;; ++k) {
    fs::path p = fs::path(HHLO_GENERATED_DIR) / "vectors" / fmt::format("{}.{}{}.npy", s, kind, k);
    if (!fs::exists(p)) return out;
    out.push_back(read_npy(p.string()));
  }
}

/// The elements of `a` as doubles; complex ones as (real, imaginary) pairs.
std::vector<double> parts(const Array& a) {
  std::vector<double> out;
  auto add = [&out](const auto& values) {
    for (const auto& v : values) {
      out.push_back(std::real(v));
      if constexpr (!std::is_floating_point_v<std::decay_t<decltype(v)>>)
        out.push_back(std::imag(v));
    }
  };
  if (a.dtype() == DType::c64)
    add(a.values<std::complex<float>>());
  else if (a.dtype() == DType::c128)
    add(a.values<std::complex<double>>());
  else
    for (int64_t i = 0; i < a.num_elements(); ++i) out.push_back(a.element_as_double(i));
  return out;
}

/// |got - want| within tol * (1 + max |want|) for each output, real and imaginary parts alike
/// (f32, c64: 2e-4; f64, c128: 1e-9).
void expect_close(const std::vector<Array>& got, const std::vector<Array>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].type(), want[k].type()) << "output " << k;
    std::vector<double> g = parts(got[k]), w = parts(want[k]);
    double scale = 0;
    for (double v : w) scale = std::max(scale, std::abs(v));
    for (size_t i = 0; i < w.size(); ++i)
      ASSERT_LE(std::abs(g[i] - w[i]), tol * (1 + scale))
          << "output " << k << " part " << i << ": got " << g[i] << ", JAX " << w[i];
  }
}

std::vector<size_t> first(size_t n) {
  std::vector<size_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

class LapackGrad : public ::testing::TestWithParam<std::tuple<LapackCase, const char*>> {
 protected:
  LapackCase c() const { return std::get<0>(GetParam()); }
  std::string dt() const { return std::get<1>(GetParam()); }
  std::string s() const { return stem(c(), dt()); }
  double tol() const { return dt() == "float32" || dt() == "complex64" ? 2e-4 : 1e-9; }
  Module exported() const {
    return parse_module_file((fs::path(HHLO_GENERATED_DIR) / (s() + ".mlir")).string());
  }
};

TEST_P(LapackGrad, ValueAndGradMatchesJax) {
  Module g = ad::value_and_grad_module(exported(), {.wrt = first(c().params)});
  expect_close(run(g, vectors(s(), "in")), vectors(s(), "out"), tol());
  // The gradient program is ordinary IR: printed and parsed again, it runs the same.
  Module again = parse_module(to_mlir(g), {.source_name = "grad.mlir"});
  expect_close(run(again, vectors(s(), "in")), vectors(s(), "out"), tol());
}

TEST_P(LapackGrad, JvpMatchesJax) {
  std::vector<Array> in = vectors(s(), "in"), tan = vectors(s(), "tan");
  ASSERT_EQ(tan.size(), c().params);
  Module j = ad::jvp_module(exported(), {.wrt = first(c().params)});
  in.insert(in.end(), tan.begin(), tan.end());
  expect_close(run(j, in), vectors(s(), "jout"), tol());
}

TEST_P(LapackGrad, VmapOfGradMatchesJax) {
  // jax.vmap(jax.grad(loss, params), in_axes=(0, ..., None, ...)): the gradient module inlined
  // into the traced per-example function, then batched (the LAPACK calls' batching rules, the
  // QR composite's).
  Module g = ad::value_and_grad_module(exported(), {.wrt = first(c().params)});
  std::vector<Array> in = vectors(s(), "in"), vin = vectors(s(), "vin");
  ASSERT_EQ(vin.size(), c().params);
  std::vector<TensorType> types;
  std::vector<ad::Axis> axes;
  for (size_t i = 0; i < in.size(); ++i) {
    types.push_back(i < vin.size() ? vin[i].type() : in[i].type());
    axes.push_back(i < vin.size() ? ad::Axis{0} : ad::Axis{std::nullopt});
  }
  Module m;
  ad::vmap_func(
      m, "main", types,
      [&](const std::vector<Value>& a) {
        std::vector<Value> r = inline_call(a[0].func(), g, "main", a);
        return std::vector<Value>(r.begin() + 1, r.end());  // the gradients
      },
      axes);
  std::vector<Array> args = vin;
  args.insert(args.end(), in.begin() + static_cast<long>(vin.size()), in.end());
  expect_close(run(m, args), vectors(s(), "vout"), tol());
}

INSTANTIATE_TEST_SUITE_P(
    Jax, LapackGrad,
    ::testing::Combine(::testing::Values(LapackCase{"trsm", 2}, LapackCase{"cho_solve", 2},
                                         LapackCase{"gp_nll", 3}, LapackCase{"qr", 3},
                                         LapackCase{"gesvd", 2}, LapackCase{"eig", 2}),
                       ::testing::Values("float32", "float64")),
    [](const auto& info) {
      return fmt::format("{}_{}", std::get<0>(info.param).name, std::get<1>(info.param));
    });

// The complex variants: geev's (w, vl, vr, info), eigenvalues and both eigenvectors; potrf and
// trsm ('C' too) in cholesky and cho_solve. Real losses (JAX's convention for complex inputs).
INSTANTIATE_TEST_SUITE_P(JaxComplex, LapackGrad,
                         ::testing::Combine(::testing::Values(LapackCase{"eig_complex", 1},
                                                              LapackCase{"cho_complex", 2}),
                                            ::testing::Values("complex64", "complex128")),
                         [](const auto& info) {
                           return fmt::format("{}_{}", std::get<0>(info.param).name,
                                              std::get<1>(info.param));
                         });

}  // namespace
}  // namespace hhlo
