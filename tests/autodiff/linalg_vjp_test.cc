// Finite-difference checks (f64) of the VJP rules of the native linear-algebra ops:
// triangular_solve (every side / triangle / transpose / unit-diagonal combination), cholesky
// (lower and upper: only the triangle the op reads gets a cotangent) and fft (all four types).
// Each check also runs the JVP rule (forward mode) and forward over reverse. Then the rules of
// the LAPACK custom calls (getrf, syevd, gesdd) through np::linalg's solve, inv, det, slogdet,
// eigh, svd, svdvals and lstsq, unbatched and batched, by the same finite differences; the QR
// composite's rules (reduced, complete and "r"; tall, square, wide, batched); a composite
// without a rule, differentiated and batched through its decomposition; and the complex rules of
// getrf, heevd, gesdd and the QR composite by finite differences in real and imaginary parts.
#include <gtest/gtest.h>

#include <cmath>

#include "gradcheck_util.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ops/linalg.h"
#include "hhlo/ops/shape_ops.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

using test::check_grad;
using test::rand_f64;
using Vs = std::vector<Value>;

/// A well-conditioned triangular-friendly matrix: random plus 3 on the diagonal.
Array diag_dominant(int64_t n, uint64_t seed) {
  Array a = rand_f64({n, n}, seed);
  auto v = a.values<double>();
  for (int64_t i = 0; i < n; ++i) v[i * n + i] += 3;
  return a;
}

/// M M^T + n I for a random M: symmetric positive definite.
Array spd(int64_t n, uint64_t seed) {
  Array m = rand_f64({n, n}, seed);
  auto mv = m.values<double>();
  std::vector<double> out(n * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = i == j ? double(n) : 0.0;
      for (int64_t k = 0; k < n; ++k) s += mv[i * n + k] * mv[j * n + k];
      out[i * n + j] = s;
    }
  return Array::from<double>({n, n}, out);
}

TEST(AutodiffLinalg, TriangularSolveEveryConfiguration) {
  for (bool left : {true, false})
    for (bool lower : {true, false})
      for (Transpose t : {Transpose::NO_TRANSPOSE, Transpose::TRANSPOSE}) {
        bool unit = left != lower;  // both diagonal kinds, on half the configurations each
        SCOPED_TRACE(::testing::Message() << "left " << left << " lower " << lower << " unit "
                                          << unit << " transpose " << int(t));
        Array b = left ? rand_f64({3, 2}, 2) : rand_f64({2, 3}, 2);
        check_grad(
            {diag_dominant(3, 1), b},
            [&](const Vs& a) {
              return triangular_solve(
                  a[0], a[1],
                  {.left_side = left, .lower = lower, .unit_diagonal = unit, .transpose_a = t});
            },
            {}, 1e-6, 1e-6);
      }
}

TEST(AutodiffLinalg, TriangularSolveBatched) {
  check_grad(
      {rand_f64({2, 3, 3}, 3, 1.0, 2.0), rand_f64({2, 3, 2}, 4)},
      [](const Vs& a) { return triangular_solve(a[0], a[1], {.lower = true}); }, {}, 1e-6, 1e-6,
      false);
}

TEST(AutodiffLinalg, CholeskyLowerAndUpperReadOneTriangle) {
  for (bool lower : {true, false}) {
    SCOPED_TRACE(lower ? "lower" : "upper");
    // The raw matrix is the input: finite differences of the elements the op does not read are
    // zero, and the rule must give zero there too.
    check_grad(
        {spd(4, 5)}, [&](const Vs& a) { return cholesky(a[0], lower); }, {}, 1e-6, 1e-6);
  }
}

TEST(AutodiffLinalg, CholeskyOfASymmetrizedMatrix) {
  check_grad(
      {rand_f64({2, 3, 3}, 6)},
      [](const Vs& a) {
        Value m = a[0];
        Value s = add(dot_general(m, transpose(m, {0, 2, 1}),
                                  {.lhs_batching_dimensions = {0},
                                   .rhs_batching_dimensions = {0},
                                   .lhs_contracting_dimensions = {2},
                                   .rhs_contracting_dimensions = {1}}),
                      constant(m.func(), Scalar(3.0), DType::f64, {2, 3, 3}));
        return cholesky(s, true);
      },
      {}, 1e-6, 1e-6);
}

TEST(AutodiffLinalg, FftAllFourTypes) {
  // FFT / IFFT over a complex value built from two real inputs; one real output.
  for (FftType t : {FftType::FFT, FftType::IFFT}) {
    check_grad(
        {rand_f64({2, 5}, 7), rand_f64({2, 5}, 8)},
        [&](const Vs& a) {
          Value y = fft(complex(a[0], a[1]), t, {5});
          return add(real(y),
                     multiply(imag(y), constant(y.func(), Scalar(2.0), DType::f64, {2, 5})));
        },
        {}, 1e-6, 1e-6);
  }
  for (int64_t n : {6, 5}) {  // even and odd lengths
    SCOPED_TRACE(n);
    check_grad(
        {rand_f64({2, n}, 9)},
        [&](const Vs& a) {
          Value y = fft(a[0], FftType::RFFT, {n});
          return add(real(y),
                     multiply(imag(y), constant(y.func(), Scalar(-1.5), DType::f64, y.dims())));
        },
        {}, 1e-6, 1e-6);
    int64_t h = n / 2 + 1;
    check_grad(
        {rand_f64({2, h}, 10), rand_f64({2, h}, 11)},
        [&](const Vs& a) { return fft(complex(a[0], a[1]), FftType::IRFFT, {n}); }, {}, 1e-6, 1e-6,
        false);
  }
}

// ---- np::linalg over the LAPACK custom calls (f64, central differences)

namespace la = np::linalg;

TEST(AutodiffNpLinalg, SolveMatrixAndVectorRightHandSides) {
  check_grad({diag_dominant(3, 21), rand_f64({3, 2}, 22)},
             [](const Vs& a) { return la::solve(a[0], a[1]); });
  check_grad({diag_dominant(3, 23), rand_f64({3}, 24)},
             [](const Vs& a) { return la::solve(a[0], a[1]); });
}

TEST(AutodiffNpLinalg, SolveBatchedPivots) {
  // Random entries (no diagonal boost): getrf swaps rows, so the permutation is exercised.
  check_grad({rand_f64({2, 3, 3}, 25), rand_f64({2, 3, 2}, 26)},
             [](const Vs& a) { return la::solve(a[0], a[1]); });
}

TEST(AutodiffNpLinalg, InvDetSlogdet) {
  Array a = rand_f64({3, 3}, 27);  // pivoting
  check_grad({a}, [](const Vs& x) { return la::inv(x[0]); });
  check_grad({a}, [](const Vs& x) { return la::det(x[0]); });
  check_grad({rand_f64({2, 4, 4}, 28)}, [](const Vs& x) { return la::det(x[0]); });
  check_grad({a}, [](const Vs& x) { return la::slogdet(x[0]).logabsdet; });
}

TEST(AutodiffNpLinalg, EighValuesAndSignFreeVectors) {
  // Eigenvectors are defined up to sign: the output uses v * v, plus the eigenvalues per column.
  for (bool lower : {true, false}) {
    SCOPED_TRACE(lower ? "lower" : "upper");
    check_grad({rand_f64({3, 3}, 29)}, [&](const Vs& x) {
      la::EighResult r = la::eigh(x[0], {.lower = lower});
      Tensor v = r.eigenvectors;
      return Value(v * v + r.eigenvalues);
    });
  }
  check_grad({rand_f64({2, 3, 3}, 30)}, [](const Vs& x) {
    la::EighResult r = la::eigh(x[0]);
    return Value(r.eigenvalues);
  });
}

TEST(AutodiffNpLinalg, ThinSvdTallWideSquareAndSvdvals) {
  for (Dims d : {Dims{4, 3}, Dims{3, 4}, Dims{3, 3}, Dims{2, 4, 3}}) {
    SCOPED_TRACE(::testing::Message() << d.size() << "-d, " << d[d.size() - 2] << "x" << d.back());
    // Singular vectors up to sign: (u * u) diag(s) (vh * vh) is sign-free and uses all three.
    check_grad({rand_f64(d, 31)}, [](const Vs& x) {
      la::SvdResult r = la::svd(x[0], false);
      Tensor u = r.u, vh = r.vh;
      Tensor s = np::expand_dims(r.s, r.s.rank() - 1);  // [..., 1, k]
      return Value(np::matmul(u * u * s, vh * vh));
    });
    check_grad({rand_f64(d, 32)}, [](const Vs& x) { return la::svdvals(x[0]); });
  }
}

/// q and r of la::qr(a, mode) flattened into one vector (LAPACK's Householder QR fixes the
/// signs, so both are differentiable as they are).
Value qr_outputs(Value a, const char* mode) {
  la::QrResult r = la::qr(a, mode);
  auto flat = [](Value v) {
    int64_t n = 1;
    for (int64_t d : v.dims()) n *= d;
    return reshape(v, {n});
  };
  return mode == std::string("r") ? flat(r.r) : concatenate({flat(r.q), flat(r.r)}, 0);
}

TEST(AutodiffNpLinalg, QrCompositeReducedCompleteAndRTallSquareWideBatched) {
  // The rules of the "hhlo.qr" composite (JAX's qr_jvp_rule and its transpose); the check runs
  // the VJP, the JVP and forward over reverse.
  // (Square and wide matrices have one Q and R in every mode: "reduced" covers them.)
  const std::vector<std::pair<Dims, const char*>> cases{
      {{5, 3}, "reduced"}, {{5, 3}, "complete"},    {{5, 3}, "r"},         {{3, 3}, "reduced"},
      {{3, 5}, "reduced"}, {{2, 4, 3}, "complete"}, {{2, 3, 4}, "reduced"}};
  for (const auto& [d, mode] : cases) {
    SCOPED_TRACE(::testing::Message()
                 << d.size() << "-d " << d[d.size() - 2] << "x" << d.back() << " " << mode);
    check_grad({rand_f64(d, 35)}, [&](const Vs& x) { return qr_outputs(x[0], mode); });
  }
}

TEST(AutodiffNpLinalg, QrIsOneCompositeWithItsDecomposition) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {5, 3}}, TensorType{DType::f64, {5, 3}}});
  la::QrResult a = la::qr(f.arg(0)), b = la::qr(f.arg(1));
  f.ret({a.q, b.r});
  ASSERT_EQ(m.funcs().size(), 2u);  // one decomposition for both calls of one type and mode
  const Func& d = *m.funcs()[1];
  EXPECT_EQ(d.name(), "hhlo_qr_reduced_f64_5_3");
  EXPECT_EQ(d.visibility(), Visibility::private_);
  const Op& op = *a.q.value().defining_op();
  EXPECT_EQ(op.name(), "stablehlo.composite");
  EXPECT_EQ(op.attr("name")->get_if<StringAttr>()->value, "hhlo.qr");
  std::vector<std::string> calls;
  for (const auto& o : d.body().ops())
    if (o->name() == "stablehlo.custom_call")
      calls.push_back(o->attr("call_target_name")->get_if<StringAttr>()->value);
  EXPECT_EQ(calls, (std::vector<std::string>{"lapack_dgeqrf_ffi", "lapack_dorgqr_ffi"}));
}

TEST(AutodiffComposite, WithoutARuleTheDecompositionIsDifferentiated) {
  // A composite no rule is registered for: VJP, JVP and second order through its decomposition.
  check_grad({rand_f64({2, 3}, 36)}, [](const Vs& x) {
    Func& f = x[0].func();
    std::string name = "square_sin_" + std::to_string(f.module().funcs().size());
    Func& d = f.module().add_func(name, {x[0].type()}, Visibility::private_);
    d.ret({multiply(sine(d.arg(0)), d.arg(0))});
    return composite("test.square_sin", {x[0]}, d)[0];
  });
}

TEST(AutodiffComposite, VmapWithoutARuleBatchesTheDecomposition) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {4, 3}}});
  f.ret(ad::vmap(
      [](const Vs& x) {
        Func& d = x[0].func().module().add_func("dec", {x[0].type()}, Visibility::private_);
        d.ret({multiply(sine(d.arg(0)), d.arg(0))});
        return composite("test.square_sin", {x[0]}, d);
      },
      {f.arg(0)}));
  Array x = rand_f64({4, 3}, 37);
  std::vector<double> got = run(m, {x})[0].to_vector<double>();
  auto xv = x.values<double>();
  ASSERT_EQ(got.size(), xv.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], std::sin(xv[i]) * xv[i], 1e-15);
}

// ---- complex operands: the rules' complex formulas (JAX's: conjugate transposes, the imaginary
// diagonal terms of eigh and svd) by finite differences in the real and imaginary parts. The
// input is complex(re, im) of two f64 arguments and the output stacks real and imaginary parts,
// so the check covers the complex cotangent and tangent conventions (JAX's) end to end.

/// [real(x), imag(x)] flattened, of a complex (or real) x.
Value parts(Value x) {
  int64_t n = 1;
  for (int64_t d : x.dims()) n *= d;
  if (!is_complex(x.dtype())) return reshape(x, {n});
  return concatenate({reshape(real(x), {n}), reshape(imag(x), {n})}, 0);
}

Value cplx(const Vs& a) { return complex(a[0], a[1]); }

TEST(AutodiffNpLinalgComplex, SolveInvAndSlogdetThroughGetrf) {
  Dims d{3, 3};
  check_grad(
      {rand_f64(d, 41), rand_f64(d, 42), rand_f64({3, 2}, 43), rand_f64({3, 2}, 44)},
      [](const Vs& a) { return parts(la::solve(complex(a[0], a[1]), complex(a[2], a[3]))); });
  check_grad({rand_f64(d, 45), rand_f64(d, 46)},
             [](const Vs& a) { return parts(la::inv(cplx(a))); });
  check_grad({rand_f64({2, 3, 3}, 47), rand_f64({2, 3, 3}, 48)},
             [](const Vs& a) { return parts(la::slogdet(cplx(a)).logabsdet); });
}

TEST(AutodiffNpLinalgComplex, EighThroughHeevd) {
  for (bool lower : {true, false}) {
    SCOPED_TRACE(lower ? "lower" : "upper");
    check_grad({rand_f64({3, 3}, 49), rand_f64({3, 3}, 50)}, [&](const Vs& a) {
      la::EighResult r = la::eigh(cplx(a), {.lower = lower});
      Tensor v = r.eigenvectors;
      Tensor vv = np::abs(v);  // phase-free
      return concatenate({parts(r.eigenvalues), parts(Value(vv * vv))}, 0);
    });
  }
}

TEST(AutodiffNpLinalgComplex, SvdThroughGesddTallWideAndSvdvals) {
  for (Dims d : {Dims{4, 3}, Dims{3, 4}, Dims{2, 3, 3}}) {
    SCOPED_TRACE(::testing::Message() << d[d.size() - 2] << "x" << d.back());
    check_grad({rand_f64(d, 51), rand_f64(d, 52)}, [](const Vs& a) {
      la::SvdResult r = la::svd(cplx(a), false);
      Tensor u = np::abs(r.u), vh = np::abs(r.vh);  // phase-free
      Tensor s = np::expand_dims(r.s, r.s.rank() - 1);
      return parts(Value(np::matmul(u * u * s, vh * vh)));
    });
    check_grad({rand_f64(d, 53), rand_f64(d, 54)},
               [](const Vs& a) { return parts(la::svdvals(cplx(a))); });
  }
}

TEST(AutodiffNpLinalgComplex, QrCompositeReducedAndComplete) {
  for (Dims d : {Dims{4, 3}, Dims{3, 3}, Dims{3, 4}})
    for (const char* mode : {"reduced", "complete"}) {
      SCOPED_TRACE(::testing::Message() << d[0] << "x" << d[1] << " " << mode);
      check_grad({rand_f64(d, 55), rand_f64(d, 56)}, [&](const Vs& a) {
        la::QrResult r = la::qr(cplx(a), mode);
        return concatenate({parts(r.q), parts(r.r)}, 0);
      });
    }
}

TEST(AutodiffNpLinalg, LstsqSolution) {
  check_grad({rand_f64({5, 3}, 33), rand_f64({5, 2}, 34)},
             [](const Vs& a) { return la::lstsq(a[0], a[1]).x; });
}

}  // namespace
}  // namespace hhlo
