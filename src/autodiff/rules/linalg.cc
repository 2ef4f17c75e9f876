// VJPs and JVPs of the native linear-algebra ops (JAX's formulas, jax/_src/lax/linalg.py and
// fft.py):
//  - triangular_solve: the b cotangent is the solve with the transposed matrix
//    (_triangular_solve_transpose_rule); the a cotangent is -ct_b x^T (left side, op(a) = a),
//    -x ct_b^T (left, a^T), -x^T ct_b (right, a), -ct_b^T x (right, a^T), kept on a's triangle
//    (strict when unit_diagonal), from _triangular_solve_jvp_rule_a. Complex operands too (plain
//    transposes, JAX's convention; ADJOINT solves with conj(a) and conjugates the a cotangent).
//  - cholesky: with L the factor, P = Phi(L^T ct) (lower triangle, diagonal halved) and
//    S = L^{-T} P L^{-1} (cholesky_jvp_rule transposed), the op reads one triangle of a, so the
//    cotangent is that triangle of S + S^T with S's diagonal once. Real operands.
//  - fft: FFT and IFFT are their own transposes (symmetric DFT matrices); RFFT's is real(FFT of
//    the cotangent zero-padded to the full length) (_rfft_transpose); IRFFT's is conj(RFFT(ct) *
//    [1, 2, ..., 2, (1)] / prod(fft_length)) (_irfft_transpose). Complex cotangents follow JAX's
//    convention (no conjugation of holomorphic maps).
// JVPs: triangular_solve d(op(a)^{-1} b) = op(a)^{-1} (db - op(da) x) (x op(a) = b likewise);
// cholesky dL = L Phi(L^{-1} da L^{-T}) with da the read triangle mirrored; fft is linear.
#include "hhlo/ops/linalg.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <numeric>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ops/reductions.h"
#include "rules.h"

namespace hhlo::ad::detail {
namespace {

/// `x` with its last two dimensions swapped.
Value mT(Value x) {
  std::vector<int64_t> perm(static_cast<size_t>(x.rank()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm);
}

Value conj_of(Value x) { return is_complex(x.dtype()) ? complex(real(x), negate(imag(x))) : x; }

/// The conjugate transpose of each trailing matrix.
Value mH(Value x) { return conj_of(mT(x)); }

/// x as a complex value of x's dtype's real part only (the real tensor itself for a real x).
Value real_part_as(Value x) {
  return is_complex(x.dtype()) ? complex(real(x), full_like(real(x), 0.0)) : x;
}

/// `x` with the elements outside its lower (or upper) triangle zeroed; `strict` zeroes the
/// diagonal too.
Value triangle(Value x, bool lower, bool strict) {
  TensorType it{DType::i32, x.dims()};
  Value row = iota(x.func(), it, x.rank() - 2), col = iota(x.func(), it, x.rank() - 1);
  ComparisonDirection d = lower ? (strict ? ComparisonDirection::GT : ComparisonDirection::GE)
                                : (strict ? ComparisonDirection::LT : ComparisonDirection::LE);
  return select(compare(row, col, d), x, full_like(x, 0.0));
}

/// `x`'s diagonal only (other elements zero).
Value diagonal_part(Value x) {
  TensorType it{DType::i32, x.dims()};
  Value row = iota(x.func(), it, x.rank() - 2), col = iota(x.func(), it, x.rank() - 1);
  return select(compare(row, col, ComparisonDirection::EQ), x, full_like(x, 0.0));
}

Value mm(Value a, Value b) {
  int64_t r = a.rank();
  DotDimensionNumbers dn;
  for (int64_t i = 0; i + 2 < r; ++i) {
    dn.lhs_batching_dimensions.push_back(i);
    dn.rhs_batching_dimensions.push_back(i);
  }
  dn.lhs_contracting_dimensions = {r - 1};
  dn.rhs_contracting_dimensions = {r - 2};
  return dot_general(a, b, dn);
}

/// A triangular solve's configuration: the native op's attributes, or the LAPACK trsm call's.
struct TriSolve {
  bool left, lower, unit;
  Transpose t;
};

TriSolve native_solve(const Op& op) {
  return {op.attr("left_side")->get_if<BoolAttr>()->value,
          op.attr("lower")->get_if<BoolAttr>()->value,
          op.attr("unit_diagonal")->get_if<BoolAttr>()->value,
          *op.attr("transpose_a")->get_if<Transpose>()};
}

/// {ct_a, ct_b} of x = op(a)^{-1} b (or b op(a)^{-1}) for the cotangent `g` of x.
std::vector<Cotangent> solve_cotangents(Value a, Value b, Value x, Value g, const TriSolve& s) {
  std::vector<Cotangent> out(2);
  if (!is_inexact(a.dtype()) || !is_inexact(b.dtype())) return out;
  bool trans = s.t != Transpose::NO_TRANSPOSE;
  // op(a) = conj(a)^T (ADJOINT, complex): op(a)^T = conj(a), and the a cotangent is conjugated.
  bool adjoint = s.t == Transpose::ADJOINT && is_complex(a.dtype());
  TriangularSolveOptions o{.left_side = s.left,
                           .lower = s.lower,
                           .unit_diagonal = s.unit,
                           .transpose_a = trans ? Transpose::NO_TRANSPOSE : Transpose::TRANSPOSE};
  Value gb = triangular_solve(adjoint ? conj_of(a) : a, g, o);  // op(a)^{-T} g or g op(a)^{-T}
  out[1] = gb;
  if (needs_cotangent(0)) {
    Value ga =
        s.left ? (trans ? mm(x, mT(gb)) : mm(gb, mT(x))) : (trans ? mm(mT(gb), x) : mm(mT(x), gb));
    out[0] = triangle(negate(adjoint ? conj_of(ga) : ga), s.lower, s.unit);
  }
  return out;
}

std::vector<Cotangent> triangular_solve_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  if (!cts[0]) return std::vector<Cotangent>(2);
  return solve_cotangents(op.operands()[0], op.operands()[1], op.results()[0], *cts[0],
                          native_solve(op));
}

/// With L the lower factor of the op's read triangle of `factor` (upper: its transpose) and g
/// that triangle of the cotangent `ct`: P = Phi(L^T g), S = L^{-T} P L^{-1}; the cotangent of the
/// read triangle is that triangle of S + S^T with S's diagonal once.
Value cholesky_cotangent(Value factor, Value ct, bool lower) {
  Value l = triangle(factor, lower, false), g = triangle(ct, lower, false);
  if (!lower) {
    l = mT(l);
    g = mT(g);
  }
  Value p = mm(mT(l), g);
  p = add(triangle(p, true, true), multiply(diagonal_part(p), full_like(p, 0.5)));
  Value s = triangular_solve(
      l, p, {.left_side = true, .lower = true, .transpose_a = Transpose::TRANSPOSE});  // L^{-T} P
  s = triangular_solve(l, s, {.left_side = false, .lower = true});                     // ... L^{-1}
  Value sym = add(s, mT(s));
  return subtract(triangle(sym, lower, false), diagonal_part(s));
}

bool cholesky_lower(const Op& op) {
  const Attribute* la = op.attr("lower");
  return la && la->get_if<BoolAttr>() ? la->get_if<BoolAttr>()->value : false;
}

std::vector<Cotangent> cholesky_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(1);
  if (!cts[0] || !real_tangent(op, op.operands()[0])) return out;
  out[0] = cholesky_cotangent(op.results()[0], *cts[0], cholesky_lower(op));
  return out;
}

std::vector<Cotangent> fft_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(1);
  if (!cts[0]) return out;
  Value g = *cts[0];
  FftType type = *op.attr("fft_type")->get_if<FftType>();
  std::vector<int64_t> len = op.attr("fft_length")->get_if<I64ArrayAttr>()->values;
  switch (type) {
    case FftType::FFT:
    case FftType::IFFT:
      out[0] = fft(g, type, len);
      break;
    case FftType::RFFT: {  // pad the last dim from n/2+1 to n, FFT, real part
      int64_t r = g.rank(), n = len.back(), have = g.dims().back();
      std::vector<int64_t> lo(static_cast<size_t>(r), 0), hi(lo), in(lo);
      hi.back() = n - have;
      Value zero = constant(g.func(), Scalar(0.0), g.dtype());
      Value padded = pad(g, zero, lo, hi, in);
      out[0] = real(fft(padded, FftType::FFT, len));
      break;
    }
    case FftType::IRFFT: {
      Value x = fft(g, FftType::RFFT, len);
      int64_t n = x.dims().back(), odd = len.back() % 2;
      double scale = 1.0;
      for (int64_t v : len) scale /= static_cast<double>(v);
      std::vector<double> mask(static_cast<size_t>(n), 2.0 * scale);
      mask.front() = scale;
      if (!odd) mask.back() = scale;
      DType rd = complex_part(x.dtype());
      Array m = rd == DType::f64
                    ? Array::from<double>({n}, mask)
                    : Array::from<float>({n}, std::vector<float>(mask.begin(), mask.end()));
      Value mv = convert(constant(x.func(), m), x.dtype());
      mv = broadcast_in_dim(mv, x.dims(), {x.rank() - 1});
      Value scaled = multiply(x, mv);
      out[0] = complex(real(scaled), negate(imag(scaled)));
      break;
    }
  }
  return out;
}

// ---- JVPs
// ----------------------------------------------------------------------------------------

/// The tangent of the matrix a triangular_solve or cholesky reads: its triangle only.
Value read_triangle(Value t, bool lower, bool unit) { return triangle(t, lower, unit); }

/// The tangent of x = op(a)^{-1} b (left; b op(a)^{-1} right) for the tangents `da`, `db`:
/// op(a)^{-1} (db - op(da) x), (db - x op(da)) op(a)^{-1}; none when both are absent.
Tangent solve_tangent(Value a, Value x, const Tangent& da_t, const Tangent& db, const TriSolve& s) {
  if (!is_inexact(a.dtype())) return {};
  Tangent rhs = db;
  if (da_t) {
    Value da = read_triangle(*da_t, s.lower, s.unit);
    if (s.t == Transpose::ADJOINT) da = mH(da);
    if (s.t == Transpose::TRANSPOSE) da = mT(da);
    Value term = s.left ? mm(da, x) : mm(x, da);
    rhs = rhs ? subtract(*rhs, term) : negate(term);
  }
  if (!rhs) return {};
  return triangular_solve(
      a, *rhs,
      {.left_side = s.left, .lower = s.lower, .unit_diagonal = s.unit, .transpose_a = s.t});
}

std::vector<Tangent> triangular_solve_jvp(const Op& op, const std::vector<Tangent>& ts) {
  return {solve_tangent(op.operands()[0], op.results()[0], ts[0], ts[1], native_solve(op))};
}

/// dL = L Phi(L^{-1} da L^{-T}) (cholesky_jvp_rule) with da the op's read triangle of `t`
/// mirrored, L the read triangle of `factor` (upper factors transposed there and back).
Value cholesky_tangent(Value factor, Value t, bool lower) {
  // The Hermitian perturbation the factorisation sees: strict E + strict E^H + real diag E.
  Value e = triangle(t, lower, true);
  Value da = add(add(e, mH(e)), real_part_as(diagonal_part(t)));
  Value l = triangle(factor, lower, false);
  if (!lower) l = mH(l);
  Transpose h = is_complex(l.dtype()) ? Transpose::ADJOINT : Transpose::TRANSPOSE;
  Value y = triangular_solve(l, da, {.left_side = true, .lower = true});
  y = triangular_solve(l, y, {.left_side = false, .lower = true, .transpose_a = h});
  Value phi = add(triangle(y, true, true), multiply(diagonal_part(y), full_like(y, 0.5)));
  Value dl = mm(l, phi);
  return lower ? dl : mH(dl);
}

std::vector<Tangent> cholesky_jvp(const Op& op, const std::vector<Tangent>& ts) {
  if (!ts[0] || !real_tangent(op, op.operands()[0], "JVP")) return {Tangent{}};
  return {cholesky_tangent(op.results()[0], *ts[0], cholesky_lower(op))};
}

std::vector<Tangent> fft_jvp(const Op& op, const std::vector<Tangent>& ts) {
  if (!ts[0]) return {Tangent{}};
  return {reapply(op, {*ts[0]})[0]};  // linear
}

// ---- the LAPACK custom calls np::linalg (and jax.export programs) emit
// (JAX's rules, jax/_src/lax/linalg.py; real and complex operands):
//  - lapack_?getrf_ffi (lu): a[perm] = L U; JVP (lu_jvp_rule) x = L^{-1} P da U^{-1},
//    d(lu) = L tril(x, -1) + triu(x) U. VJP its transpose: with C the packed cotangent,
//    X = tril(L^T tril(C, -1), -1) + triu(triu(C) U^T), ct_a = P^T L^{-T} X U^{-T}. Square a.
//  - lapack_?syevd_ffi (eigh, the kernel reads one triangle E of its operand, A = E + E^T -
//    diag E): F_ij = 1 / (w_j - w_i) (0 on the diagonal); JVP (eigh_jvp_rule) M = V^T dA V,
//    dV = V (F o M), dw = diag M; VJP G = V (diag(ct_w) + F o (V^T ct_V)) V^T, folded onto the
//    read triangle (G + G^T - diag G there).
//  - lapack_?gesdd_ffi (svd, modes 'S' and 'N'; 'A' is refused as JAX's svd_jvp_rule does):
//    dS = U^T dA V, ds = diag dS, F_ij = 1 / (s_j^2 - s_i^2), dU = U (F o (dS S + S dS^T)) +
//    [m > n] (I - U U^T) dA V S^{-1}, dV = V (F o (S dS + dS^T S)) + [n > m] (I - V V^T) dA^T U
//    S^{-1}; the VJP is its transpose, ct_A = U (diag ct_s + (Ju + Ju^T) S + S (Jv + Jv^T)) V^T
//    + the two projections, Ju = F o (U^T ct_U), Jv = F o (V^T ct_V). Mode 'N' recomputes U, V
//    with a thin SVD.
//  - lapack_?trsm_ffi and lapack_?potrf_ffi (jax.export of solve_triangular, cho_factor,
//    cholesky): the native triangular_solve and cholesky formulas (potrf's untouched triangle
//    passes through); lapack_?gesvd_ffi: gesdd's rule; lapack_?geev_ffi: JAX's eig_jvp_rule
//    (below, with the eigenvectors' _eig_vec_jvp) and its transpose.
// Complex operands: getrf's formulas hold as they are (holomorphic, plain transposes); heevd's
// and gesdd's JVPs are JAX's complex ones (V^H, U^H, real diagonals, svd's imaginary diagonal
// term), and their VJPs the transposes of those JVPs (transpose_of_jvp), as JAX derives them.

/// The ui8 attribute `key` of a LAPACK custom call's backend_config (as built here, or as parsed
/// from JAX's text under mhlo.backend_config), or `fallback`.
char lapack_attr(const Op& op, const char* key, char fallback) {
  for (const char* name : {"backend_config", "mhlo.backend_config"})
    if (const Attribute* c = op.attr(name))
      if (const auto* d = c->get_if<DictAttr>())
        for (const auto& [k, v] : d->entries)
          if (k == key)
            if (const auto* i = v.get_if<IntAttr>()) return static_cast<char>(i->value);
  return fallback;
}

Value eye_like(Value x) {
  TensorType it{DType::i32, x.dims()};
  Value row = iota(x.func(), it, x.rank() - 2), col = iota(x.func(), it, x.rank() - 1);
  return select(compare(row, col, ComparisonDirection::EQ), full_like(x, 1.0), full_like(x, 0.0));
}

std::vector<int64_t> leading(int64_t n) {
  std::vector<int64_t> d(static_cast<size_t>(n));
  std::iota(d.begin(), d.end(), 0);
  return d;
}

/// [..., n] -> [..., n, n] with element [i, j] = v[j] (`cols`) or v[i].
Value spread(Value v, bool cols) {
  Dims d = v.dims();
  d.push_back(v.dims().back());
  std::vector<int64_t> bd = leading(v.rank() - 1);
  bd.push_back(cols ? v.rank() : v.rank() - 1);
  return broadcast_in_dim(v, d, bd);
}

/// [..., k] -> [..., rows, k] with element [i, j] = s[j] (divides column j by s_j).
Value spread_rows(Value s, int64_t rows) {
  Dims d = s.dims();
  d.insert(d.end() - 1, rows);
  std::vector<int64_t> bd = leading(s.rank() - 1);
  bd.push_back(s.rank());
  return broadcast_in_dim(s, d, bd);
}

/// [..., n] -> the diagonal matrix [..., n, n].
Value diag_matrix(Value v) {
  Value m = spread(v, true);
  return multiply(m, eye_like(m));
}

Value diag_of(Value x) { return reduce_sum(diagonal_part(x), {x.rank() - 1}); }

/// F_ij = 1 / (v_j - v_i) off the diagonal, 0 on it.
Value gap_reciprocals(Value v) {
  Value d = subtract(spread(v, true), spread(v, false));
  Value eye = eye_like(d);
  return subtract(divide(full_like(d, 1.0), add(d, eye)), eye);
}

/// The one-hot matrix P [i, j] = (perm[i] == j) of getrf's pivots (1-based ipiv), in `dtype`.
Value pivot_matrix(Value ipiv, int64_t n, DType dtype) {
  Value piv = subtract(ipiv, constant(ipiv.func(), 1, DType::i32, ipiv.dims()));
  Value perm = np::linalg::lu_pivots_to_permutation(piv, n);
  Dims d = perm.dims();
  d.push_back(n);
  Value rows = broadcast_in_dim(perm, d, leading(perm.rank()));
  Value cols = iota(perm.func(), TensorType{DType::i32, d}, perm.rank());
  return convert(compare(rows, cols, ComparisonDirection::EQ), dtype);
}

Value unit_lower(Value lu) { return add(triangle(lu, true, true), eye_like(lu)); }

void need_square(const Op& op, Value a, const char* mode) {
  if (a.dims().back() != a.dims()[a.dims().size() - 2])
    unsupported(op, "the LU rule needs a square matrix", mode);
}

std::vector<Cotangent> getrf_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(1);
  Value a = op.operands()[0];
  if (!cts[0] || !is_inexact(a.dtype())) return out;
  need_square(op, a, "VJP");
  Value lu = op.results()[0], c = *cts[0];
  Value x =
      add(triangle(mm(mT(unit_lower(lu)), triangle(c, true, true)), true, true),
          triangle(mm(triangle(c, false, false), mT(triangle(lu, false, false))), false, false));
  x = triangular_solve(lu, x,
                       {.left_side = true,
                        .lower = true,
                        .unit_diagonal = true,
                        .transpose_a = Transpose::TRANSPOSE});  // L^{-T} X
  x = triangular_solve(
      lu, x,
      {.left_side = false, .lower = false, .transpose_a = Transpose::TRANSPOSE});  // ... U^{-T}
  out[0] = mm(mT(pivot_matrix(op.results()[1], a.dims().back(), a.dtype())), x);
  return out;
}

std::vector<Tangent> getrf_jvp(const Op& op, const std::vector<Tangent>& ts) {
  Value a = op.operands()[0];
  if (!ts[0] || !is_inexact(a.dtype())) return {Tangent{}, Tangent{}, Tangent{}};
  need_square(op, a, "JVP");
  Value lu = op.results()[0];
  Value x = mm(pivot_matrix(op.results()[1], a.dims().back(), a.dtype()), *ts[0]);
  x = triangular_solve(lu, x, {.left_side = true, .lower = true, .unit_diagonal = true});
  x = triangular_solve(lu, x, {.left_side = false, .lower = false});
  Value d = add(mm(unit_lower(lu), triangle(x, true, true)),
                mm(triangle(x, false, false), triangle(lu, false, false)));
  return {d, Tangent{}, Tangent{}};
}

/// lapack_?trsm_ffi's configuration (side, uplo, trans_x, diag).
TriSolve trsm_solve(const Op& op) {
  char t = lapack_attr(op, "trans_x", 'N');
  return {
      lapack_attr(op, "side", 'L') == 'L', lapack_attr(op, "uplo", 'L') == 'L',
      lapack_attr(op, "diag", 'N') == 'U',
      t == 'N' ? Transpose::NO_TRANSPOSE : (t == 'C' ? Transpose::ADJOINT : Transpose::TRANSPOSE)};
}

void need_matching_batch(const Op& op, Value a, Value b, const char* mode) {
  if (a.rank() != b.rank() || !std::equal(a.dims().begin(), a.dims().end() - 2, b.dims().begin()))
    unsupported(op, "the rule needs the triangular matrix batched as the right-hand side", mode);
}

std::vector<Cotangent> trsm_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  if (!cts[0]) return std::vector<Cotangent>(2);
  Value a = op.operands()[0], b = op.operands()[1];
  need_matching_batch(op, a, b, "VJP");
  return solve_cotangents(a, b, op.results()[0], *cts[0], trsm_solve(op));
}

std::vector<Tangent> trsm_jvp(const Op& op, const std::vector<Tangent>& ts) {
  Value a = op.operands()[0], b = op.operands()[1];
  if (ts[0] || ts[1]) need_matching_batch(op, a, b, "JVP");
  return {solve_tangent(a, op.results()[0], ts[0], ts[1], trsm_solve(op))};
}

// lapack_?potrf_ffi: results {factor, info}. The kernel factors the triangle `uplo` of its operand
// and leaves the other strict triangle as it was (JAX's lowering zeroes it afterwards, and
// jnp.linalg.cholesky symmetrizes the operand before the call), so that triangle's cotangent and
// tangent pass straight through, and the factor's are the native cholesky rule's.
Cotangent transpose_of_jvp(Value x, const std::vector<Cotangent>& cts,
                           const std::function<std::vector<Tangent>(Value)>& tangents);

/// {dL, -} of potrf for the operand tangent `dx` (complex: JAX's cholesky_jvp_rule with L^{-H}).
std::vector<Tangent> potrf_tangents(const Op& op, Value dx) {
  bool lower = lapack_attr(op, "uplo", 'L') == 'L';
  return {add(cholesky_tangent(op.results()[0], dx, lower), triangle(dx, !lower, true)), Tangent{}};
}

std::vector<Cotangent> potrf_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(1);
  Value a = op.operands()[0];
  if (!cts[0] || !is_inexact(a.dtype())) return out;
  if (is_complex(a.dtype())) {  // the transpose of the JVP
    out[0] = transpose_of_jvp(a, cts, [&op](Value dx) { return potrf_tangents(op, dx); });
    return out;
  }
  bool lower = lapack_attr(op, "uplo", 'L') == 'L';
  out[0] =
      add(cholesky_cotangent(op.results()[0], *cts[0], lower), triangle(*cts[0], !lower, true));
  return out;
}

std::vector<Tangent> potrf_jvp(const Op& op, const std::vector<Tangent>& ts) {
  if (!ts[0] || !is_inexact(op.operands()[0].dtype())) return {Tangent{}, Tangent{}};
  return potrf_tangents(op, *ts[0]);
}

/// The cotangent of `x` for a rule whose JVP, `tangents(dx)` (one per result of the op, empty
/// where none), is linear in x's tangent dx: its transpose (what JAX's VJP is), by the reverse
/// walk over that JVP built on a placeholder tangent (zeros). Empty when no result has both.
Cotangent transpose_of_jvp(Value x, const std::vector<Cotangent>& cts,
                           const std::function<std::vector<Tangent>(Value)>& tangents) {
  Value dx = full_like(x, 0.0);
  std::vector<Tangent> t = tangents(dx);
  std::vector<Value> ys;
  std::vector<Cotangent> gs;
  for (size_t i = 0; i < t.size() && i < cts.size(); ++i)
    if (cts[i] && t[i]) {
      ys.push_back(*t[i]);
      gs.push_back(*cts[i]);
    }
  if (ys.empty()) return {};
  return vjp(ys, Wrt{dx}, Cotangents{gs})[0];
}

/// {dV, dw, -} of syevd / heevd for the operand tangent `dx`: the kernel reads one triangle E of
/// its operand (A = strict E + strict E^H + real diag E), M = V^H dA V, dV = V (F o M), dw =
/// real diag M.
std::vector<Tangent> syevd_tangents(const Op& op, Value dx) {
  if (lapack_attr(op, "mode", 'V') != 'V')
    unsupported(op, "eigenvalues without eigenvectors (mode 'N') have no rule", "derivative");
  bool lower = lapack_attr(op, "uplo", 'L') == 'L';
  Value e = triangle(dx, lower, true);
  Value da = add(add(e, mH(e)), real_part_as(diagonal_part(dx)));
  Value v = op.results()[0], w = op.results()[1];
  Value mv = mm(mm(mH(v), da), v);
  Value dw = diag_of(mv);
  return {mm(v, multiply(cast_to(gap_reciprocals(w), v.dtype()), mv)),
          is_complex(dw.dtype()) ? real(dw) : dw, Tangent{}};
}

std::vector<Cotangent> syevd_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(1);
  Value a = op.operands()[0];
  if ((!cts[0] && !cts[1]) || !is_inexact(a.dtype())) return out;
  if (is_complex(a.dtype())) {  // heevd: the transpose of the JVP
    out[0] = transpose_of_jvp(a, cts, [&op](Value dx) { return syevd_tangents(op, dx); });
    return out;
  }
  if (lapack_attr(op, "mode", 'V') != 'V')
    unsupported(op, "eigenvalues without eigenvectors (mode 'N') have no rule");
  bool lower = lapack_attr(op, "uplo", 'L') == 'L';
  Value v = op.results()[0], w = op.results()[1];
  Value m = cts[0] ? multiply(gap_reciprocals(w), mm(mT(v), *cts[0])) : full_like(v, 0.0);
  if (cts[1]) m = add(m, diag_matrix(*cts[1]));
  Value g = mm(mm(v, m), mT(v));
  out[0] = subtract(triangle(add(g, mT(g)), lower, false), diagonal_part(g));
  return out;
}

std::vector<Tangent> syevd_jvp(const Op& op, const std::vector<Tangent>& ts) {
  Value a = op.operands()[0];
  if (!ts[0] || !is_inexact(a.dtype())) return {Tangent{}, Tangent{}, Tangent{}};
  return syevd_tangents(op, *ts[0]);
}

/// {s, U, V} of the gesdd op (thin); mode 'N' recomputes them with a thin SVD of its operand.
std::array<Value, 3> svd_factors(const Op& op, char mode) {
  if (mode == 'S') return {op.results()[1], op.results()[2], mH(op.results()[3])};
  np::linalg::SvdResult r = np::linalg::svd(op.operands()[0], false);
  return {r.s, r.u, mH(r.vh)};
}

/// JAX's F for the SVD rule: 1 / (s_j^2 - s_i^2) off the diagonal.
Value svd_gaps(Value s) { return gap_reciprocals(multiply(s, s)); }

char svd_mode(const Op& op, const char* mode) {
  char m = lapack_attr(op, "mode", 'S');
  if (m == 'A')
    unsupported(op, "full_matrices SVD (mode 'A') has no rule, as in JAX (use full_matrices=false)",
                mode);
  return m;
}

std::vector<Tangent> gesdd_tangents(const Op& op, char mode, Value da);

std::vector<Cotangent> gesdd_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(1);
  Value a = op.operands()[0];
  if (!is_inexact(a.dtype()) || (!cts[1] && !cts[2] && !cts[3])) return out;
  char mode = svd_mode(op, "VJP");
  if (is_complex(a.dtype())) {  // the transpose of the JVP
    out[0] =
        transpose_of_jvp(a, cts, [&op, mode](Value dx) { return gesdd_tangents(op, mode, dx); });
    return out;
  }
  auto [s, u, v] = svd_factors(op, mode);
  int64_t m = a.dims()[a.dims().size() - 2], n = a.dims().back();
  Value f = svd_gaps(s), sj = spread(s, true), si = spread(s, false);
  Value cs = cts[1] ? diag_matrix(*cts[1]) : full_like(f, 0.0);
  bool uv = mode == 'S';
  Value cu = uv && cts[2] ? *cts[2] : full_like(u, 0.0);
  Value cv = uv && cts[3] ? mT(*cts[3]) : full_like(v, 0.0);
  Value ju = multiply(f, mm(mT(u), cu)), jv = multiply(f, mm(mT(v), cv));
  Value cds = add(cs, add(multiply(add(ju, mT(ju)), sj), multiply(si, add(jv, mT(jv)))));
  Value g = mm(mm(u, cds), mT(v));
  if (uv && m > n) {
    Value pu = divide(subtract(cu, mm(u, mm(mT(u), cu))), spread_rows(s, m));
    g = add(g, mm(pu, mT(v)));
  }
  if (uv && n > m) {
    Value pv = divide(subtract(cv, mm(v, mm(mT(v), cv))), spread_rows(s, n));
    g = add(g, mm(u, mT(pv)));
  }
  out[0] = g;
  return out;
}

/// The tangents {-, ds, dU, dVt, -} of gesdd in `mode` ('S' or 'N': ds only) for the operand
/// tangent `da` (JAX's _svd_jvp_rule, complex too: dS = U^H dA V, ds = real diag dS, the
/// imaginary diagonal term (dS - dS^H) / 2 diag(1/s) in dU).
std::vector<Tangent> gesdd_tangents(const Op& op, char mode, Value da) {
  std::vector<Tangent> out(5);
  Value a = op.operands()[0];
  DType dt = a.dtype();
  auto [s, u, v] = svd_factors(op, mode);
  int64_t m = a.dims()[a.dims().size() - 2], n = a.dims().back();
  Value ds = mm(mm(mH(u), da), v);
  Value dd = diag_of(ds);
  out[1] = is_complex(dt) ? real(dd) : dd;
  if (mode != 'S') return out;
  Value f = cast_to(svd_gaps(s), dt), sj = cast_to(spread(s, true), dt),
        si = cast_to(spread(s, false), dt);
  Value dss = multiply(ds, sj), sds = multiply(si, ds);
  Value ju = multiply(f, add(dss, mH(dss)));
  if (is_complex(dt)) {  // JAX's dUdV_diag: (dS - dS^H) / 2 on the diagonal over s
    Value zero = full_like(s, 0.0);
    Value is_zero = convert(compare(s, zero, ComparisonDirection::EQ), s.dtype());
    Value s_inv = subtract(divide(full_like(s, 1.0), add(s, is_zero)), is_zero);
    Value half = multiply(subtract(ds, mH(ds)), full_like(ds, 0.5));
    ju = add(ju, multiply(half, cast_to(diag_matrix(s_inv), dt)));
  }
  Value du = mm(u, ju);
  Value dv = mm(v, multiply(f, add(sds, mH(sds))));
  if (m > n) {
    Value dav = mm(da, v);
    du = add(du, divide(subtract(dav, mm(u, mm(mH(u), dav))), cast_to(spread_rows(s, m), dt)));
  }
  if (n > m) {
    Value dau = mm(mH(da), u);
    dv = add(dv, divide(subtract(dau, mm(v, mm(mH(v), dau))), cast_to(spread_rows(s, n), dt)));
  }
  out[2] = du;
  out[3] = mH(dv);
  return out;
}

std::vector<Tangent> gesdd_jvp(const Op& op, const std::vector<Tangent>& ts) {
  Value a = op.operands()[0];
  if (!ts[0] || !is_inexact(a.dtype())) return std::vector<Tangent>(5);
  return gesdd_tangents(op, svd_mode(op, "JVP"), *ts[0]);
}

// lapack_?geev_ffi (jnp.linalg.eig / eigvals): results {wr, wi, vl, vr, info} for a real operand
// (the eigenvalues wr + i wi, complex eigenvector columns), {w, vl, vr, info} for a complex one;
// attributes compute_left / compute_right ('V' or 'N'). JAX's eig_jvp_rule: with vr the right
// eigenvectors (recomputed by a second call when the op has none), P = vr^{-1} dA vr,
// dw = diag P; the eigenvectors' tangents are JAX's _eig_vec_jvp (JAX computes them only with
// lax.linalg.eig(enable_eigvec_derivs=True), which an exported program does not record): with
// F_ij = 1 / (w_j - w_i), U = v (F o P), dv = U + v diag(c), c fixing LAPACK's normalisation
// (unit 2-norm, real largest-magnitude component): c_j = -Re(v_j^H u_j) - i Im(u_kj) / Re(v_kj),
// k = argmax_i |v_ij|; the left ones the same of (conj w, vl, dA^H). The VJP is the transpose.

/// The op's attributes with the ui8 backend_config entry `key` set to `value`.
std::vector<NamedAttr> with_lapack_attr(const Op& op, const char* key, char value) {
  std::vector<NamedAttr> attrs = op.attrs();
  for (NamedAttr& a : attrs)
    if (a.name == "backend_config" || a.name == "mhlo.backend_config")
      if (const auto* d = a.value.get_if<DictAttr>()) {
        DictAttr copy = *d;
        for (auto& [k, v] : copy.entries)
          if (k == key) v = IntAttr{static_cast<unsigned char>(value), DType::ui8};
        a.value = copy;
      }
  return attrs;
}

/// {w (complex), vl, vr} of the geev op, vr from a second call computing it when the op has none.
std::array<Value, 3> geev_parts(const Op& op) {
  bool real_op = op.results().size() == 5;
  size_t iv = real_op ? 2 : 1;
  auto parts = [&](const std::vector<Value>& r) -> std::array<Value, 3> {
    return {real_op ? complex(r[0], r[1]) : r[0], r[iv], r[iv + 1]};
  };
  std::vector<Value> res(op.results().begin(), op.results().end());
  if (lapack_attr(op, "compute_right", 'N') == 'V') return parts(res);
  OpState st;
  st.name = op.name();
  st.operands = std::vector<Value>(op.operands().begin(), op.operands().end());
  for (Value r : res) st.result_types.push_back(r.type());
  st.attrs = with_lapack_attr(op, "compute_right", 'V');
  st.loc = op.loc();
  std::array<Value, 3> p = parts(op.results()[0].func().append(std::move(st)));
  p[1] = res[iv];
  return p;
}

/// {dw, dv} for eigenvalues w, eigenvectors v (columns) and the complex operand tangent da.
std::array<Value, 2> eig_vec_jvp(Value w, Value v, Value da) {
  Value p = mm(np::linalg::inv(v), mm(da, v));
  Value dw = diag_of(p);
  Value u = mm(v, multiply(gap_reciprocals(w), p));
  int64_t rows = v.rank() - 2, n = v.dims().back();
  Value k = np::argmax(abs(v), rows);  // [..., n]: the row of each column's largest element
  Value row = iota(v.func(), TensorType{DType::i32, v.dims()}, rows);
  Value mask = convert(compare(row, spread_rows(k, n), ComparisonDirection::EQ), v.dtype());
  Value re = negate(real(reduce_sum(multiply(conj_of(v), u), {rows})));
  Value im = divide(imag(reduce_sum(multiply(mask, u), {rows})),
                    real(reduce_sum(multiply(mask, v), {rows})));
  Value c = complex(re, negate(im));
  return {dw, add(u, multiply(v, spread_rows(c, n)))};
}

std::vector<Tangent> geev_tangents(const Op& op, Value dx) {
  std::vector<Tangent> out(op.results().size());
  bool real_op = out.size() == 5;
  auto [w, vl, vr] = geev_parts(op);
  Value da = cast_to(dx, vr.dtype());
  auto [dw, dvr] = eig_vec_jvp(w, vr, da);
  size_t iv = real_op ? 2 : 1;
  if (real_op) {
    out[0] = real(dw);
    out[1] = imag(dw);
  } else {
    out[0] = dw;
  }
  if (lapack_attr(op, "compute_left", 'N') == 'V') out[iv] = eig_vec_jvp(conj_of(w), vl, mH(da))[1];
  if (lapack_attr(op, "compute_right", 'N') == 'V') out[iv + 1] = dvr;
  return out;
}

std::vector<Tangent> geev_jvp(const Op& op, const std::vector<Tangent>& ts) {
  if (!ts[0] || !is_inexact(op.operands()[0].dtype()))
    return std::vector<Tangent>(op.results().size());
  return geev_tangents(op, *ts[0]);
}

std::vector<Cotangent> geev_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  Value a = op.operands()[0];
  if (!is_inexact(a.dtype()) ||
      std::none_of(cts.begin(), cts.end(), [](const Cotangent& c) { return c.has_value(); }))
    return {Cotangent{}};
  return {transpose_of_jvp(a, cts, [&op](Value dx) { return geev_tangents(op, dx); })};
}

// ---- the QR composite (np::linalg::qr_composite, "hhlo.qr"): JAX's qr_jvp_rule. With
// _thin_qr_jvp(q, r, dx) for m >= n: Y = dx r^{-1}, Z = q^H Y, O = tril(Z, -1) - tril(Z, -1)^H
// + i imag(diag Z), dq = q (O - Z) + Y, dr = (Z - O) r. Wide (m < n): the thin rule on the
// first m columns, dr2 = dq^H x2 + q^H dx2 for the rest. Complete (full_matrices, m > n): the
// thin rule on q[:, :n], r[:n], then (arXiv 2409.13374, eqs. 32-33) Z_pn = q_pn (q_nn - I)^{-1},
// dq_mp = dq_mn Z_pn^H - (q_mn + q_mp Z_pn) (dq_pn - Z_pn dq_nn)^H, dr's last m - n rows zero.
// The VJP is the transpose of this linear map of dx (as in JAX, which transposes the JVP): the
// reverse walk over the JVP built on a placeholder tangent.

/// x[..., r0:r1, c0:c1].
Value block(Value x, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  size_t r = static_cast<size_t>(x.rank());
  std::vector<int64_t> lo(r, 0), hi(x.dims());
  lo[r - 2] = r0;
  hi[r - 2] = r1;
  lo[r - 1] = c0;
  hi[r - 1] = c1;
  return slice(x, lo, hi, {});
}

std::array<Value, 2> thin_qr_jvp(Value q, Value r, Value dx) {
  Value y = triangular_solve(r, dx, {.left_side = false, .lower = false});  // dx r^{-1}
  Value z = mm(mH(q), y);
  Value low = triangle(z, true, true);
  Value o = subtract(low, mH(low));
  if (is_complex(z.dtype())) o = add(o, diagonal_part(complex(full_like(imag(z), 0.0), imag(z))));
  return {add(mm(q, subtract(o, z)), y), mm(subtract(z, o), r)};
}

bool qr_full_matrices(const Op& op) {
  if (const Attribute* a = op.attr("composite_attributes"))
    if (const auto* d = a->get_if<DictAttr>())
      for (const auto& [k, v] : d->entries)
        if (k == "full_matrices")
          if (const auto* b = v.get_if<BoolAttr>()) return b->value;
  return false;
}

/// {dq, dr} of the QR composite `op` for the input tangent dx.
std::array<Value, 2> qr_tangents(const Op& op, Value dx) {
  Value x = op.operands()[0], q = op.results()[0], r = op.results()[1];
  bool full = qr_full_matrices(op);
  int64_t rank = x.rank(), m = x.dims()[static_cast<size_t>(rank - 2)], n = x.dims().back();
  if (m < n) {
    auto [dq, dr1] = thin_qr_jvp(q, block(r, 0, m, 0, m), block(dx, 0, m, 0, m));
    Value dr2 = add(mm(mH(dq), block(x, 0, m, m, n)), mm(mH(q), block(dx, 0, m, m, n)));
    return {dq, concatenate({dr1, dr2}, rank - 1)};
  }
  Value q_mn = full ? block(q, 0, m, 0, n) : q;
  Value r_nn = full ? block(r, 0, n, 0, n) : r;
  auto [dq_mn, dr_nn] = thin_qr_jvp(q_mn, r_nn, dx);
  if (!full || m == n) return {dq_mn, dr_nn};
  Value q_nn = block(q_mn, 0, n, 0, n), q_pn = block(q_mn, n, m, 0, n), q_mp = block(q, 0, m, n, m);
  Value dq_nn = block(dq_mn, 0, n, 0, n), dq_pn = block(dq_mn, n, m, 0, n);
  Value z_pn_h = np::linalg::solve(mH(subtract(q_nn, eye_like(q_nn))), mH(q_pn));
  Value z_pn = mH(z_pn_h);
  Value dq_mp = subtract(mm(dq_mn, z_pn_h),
                         mm(add(q_mn, mm(q_mp, z_pn)), mH(subtract(dq_pn, mm(z_pn, dq_nn)))));
  Dims zd = dr_nn.dims();
  zd[static_cast<size_t>(rank - 2)] = m - n;
  Value zeros = constant(x.func(), 0.0, x.dtype(), zd);
  return {concatenate({dq_mn, dq_mp}, rank - 1), concatenate({dr_nn, zeros}, rank - 2)};
}

std::vector<Tangent> qr_jvp(const Op& op, const std::vector<Tangent>& ts) {
  if (!ts[0]) return {Tangent{}, Tangent{}};
  auto [dq, dr] = qr_tangents(op, *ts[0]);
  return {dq, dr};
}

std::vector<Cotangent> qr_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  if (!cts[0] && !cts[1]) return {Cotangent{}};
  return {transpose_of_jvp(op.operands()[0], cts, [&op](Value dx) {
    std::array<Value, 2> t = qr_tangents(op, dx);
    return std::vector<Tangent>{t[0], t[1]};
  })};
}

// "hhlo.householder_vectors" (src/autodiff/imported_qr.cc): (x, a) -> x, the Householder part
// of an imported geqrf whose derivative nothing of ours computes: NaN (in `like`'s dims and
// dtype) wherever a nonzero cotangent or tangent `v` would pass it, zero otherwise.
Value nan_if_nonzero(Value v, Value like) {
  Value mag = abs(v);
  std::vector<int64_t> all(static_cast<size_t>(mag.rank()));
  std::iota(all.begin(), all.end(), 0);
  Value s = reduce_sum(mag, all);
  Value zero = constant(v.func(), 0.0, s.dtype());
  Value nan = constant(v.func(), std::numeric_limits<double>::quiet_NaN(), s.dtype());
  Value flag = select(compare(s, zero, ComparisonDirection::NE), nan, zero);
  return cast_to(broadcast_in_dim(flag, like.dims(), {}), like.dtype());
}

std::vector<Cotangent> householder_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(2);
  if (cts[0]) out[1] = nan_if_nonzero(*cts[0], op.operands()[1]);
  return out;
}

std::vector<Tangent> householder_jvp(const Op& op, const std::vector<Tangent>& ts) {
  if (!ts[1]) return {Tangent{}};
  return {nan_if_nonzero(*ts[1], op.results()[0])};
}

}  // namespace

void register_linalg_jvps(JvpRegistry& r) {
  r["composite:hhlo.qr"] = qr_jvp;
  r["composite:hhlo.householder_vectors"] = householder_jvp;
  r["stablehlo.triangular_solve"] = triangular_solve_jvp;
  r["stablehlo.cholesky"] = cholesky_jvp;
  r["stablehlo.fft"] = fft_jvp;
  for (char p : {'s', 'd', 'c', 'z'}) {
    bool cplx = p == 'c' || p == 'z';
    r[fmt::format("custom_call:lapack_{}getrf_ffi", p)] = getrf_jvp;
    r[fmt::format("custom_call:lapack_{}{}_ffi", p, cplx ? "heevd" : "syevd")] = syevd_jvp;
    r[fmt::format("custom_call:lapack_{}gesdd_ffi", p)] = gesdd_jvp;
    r[fmt::format("custom_call:lapack_{}gesvd_ffi", p)] = gesdd_jvp;
    r[fmt::format("custom_call:lapack_{}trsm_ffi", p)] = trsm_jvp;
    r[fmt::format("custom_call:lapack_{}potrf_ffi", p)] = potrf_jvp;
    r[fmt::format("custom_call:lapack_{}geev_ffi", p)] = geev_jvp;
  }
}

void register_linalg_rules(Registry& r) {
  r["composite:hhlo.qr"] = qr_vjp;
  r["composite:hhlo.householder_vectors"] = householder_vjp;
  r["stablehlo.triangular_solve"] = triangular_solve_vjp;
  r["stablehlo.cholesky"] = cholesky_vjp;
  r["stablehlo.fft"] = fft_vjp;
  for (char p : {'s', 'd', 'c', 'z'}) {
    bool cplx = p == 'c' || p == 'z';
    r[fmt::format("custom_call:lapack_{}getrf_ffi", p)] = getrf_vjp;
    r[fmt::format("custom_call:lapack_{}{}_ffi", p, cplx ? "heevd" : "syevd")] = syevd_vjp;
    r[fmt::format("custom_call:lapack_{}gesdd_ffi", p)] = gesdd_vjp;
    r[fmt::format("custom_call:lapack_{}gesvd_ffi", p)] = gesdd_vjp;
    r[fmt::format("custom_call:lapack_{}trsm_ffi", p)] = trsm_vjp;
    r[fmt::format("custom_call:lapack_{}potrf_ffi", p)] = potrf_vjp;
    r[fmt::format("custom_call:lapack_{}geev_ffi", p)] = geev_vjp;
  }
}

}  // namespace hhlo::ad::detail
