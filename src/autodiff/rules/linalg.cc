// VJPs and JVPs of the native linear-algebra ops (JAX's formulas, jax/_src/lax/linalg.py and
// fft.py):
//  - triangular_solve: the b cotangent is the solve with the transposed matrix
//    (_triangular_solve_transpose_rule); the a cotangent is -ct_b x^T (left side, op(a) = a),
//    -x ct_b^T (left, a^T), -x^T ct_b (right, a), -ct_b^T x (right, a^T), kept on a's triangle
//    (strict when unit_diagonal), from _triangular_solve_jvp_rule_a. Real operands.
//  - cholesky: with L the factor, P = Phi(L^T ct) (lower triangle, diagonal halved) and
//    S = L^{-T} P L^{-1} (cholesky_jvp_rule transposed), the op reads one triangle of a, so the
//    cotangent is that triangle of S + S^T with S's diagonal once. Real operands.
//  - fft: FFT and IFFT are their own transposes (symmetric DFT matrices); RFFT's is real(FFT of
//    the cotangent zero-padded to the full length) (_rfft_transpose); IRFFT's is conj(RFFT(ct) *
//    [1, 2, ..., 2, (1)] / prod(fft_length)) (_irfft_transpose). Complex cotangents follow JAX's
//    convention (no conjugation of holomorphic maps).
// JVPs: triangular_solve d(op(a)^{-1} b) = op(a)^{-1} (db - op(da) x) (x op(a) = b likewise);
// cholesky dL = L Phi(L^{-1} da L^{-T}) with da the read triangle mirrored; fft is linear.
#include <numeric>

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

std::vector<Cotangent> triangular_solve_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(2);
  if (!cts[0]) return out;
  Value a = op.operands()[0], b = op.operands()[1], x = op.results()[0], g = *cts[0];
  if (!real_tangent(op, a) || !real_tangent(op, b)) return out;
  bool left = op.attr("left_side")->get_if<BoolAttr>()->value;
  bool lower = op.attr("lower")->get_if<BoolAttr>()->value;
  bool unit = op.attr("unit_diagonal")->get_if<BoolAttr>()->value;
  Transpose t = *op.attr("transpose_a")->get_if<Transpose>();
  bool trans = t != Transpose::NO_TRANSPOSE;
  TriangularSolveOptions o{.left_side = left,
                           .lower = lower,
                           .unit_diagonal = unit,
                           .transpose_a = trans ? Transpose::NO_TRANSPOSE : Transpose::TRANSPOSE};
  Value gb = triangular_solve(a, g, o);  // op(a)^{-T} g (left) or g op(a)^{-T} (right)
  out[1] = gb;
  if (needs_cotangent(0)) {
    Value ga =
        left ? (trans ? mm(x, mT(gb)) : mm(gb, mT(x))) : (trans ? mm(mT(gb), x) : mm(mT(x), gb));
    out[0] = triangle(negate(ga), lower, unit);
  }
  return out;
}

std::vector<Cotangent> cholesky_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(1);
  if (!cts[0]) return out;
  Value a = op.operands()[0];
  if (!real_tangent(op, a)) return out;
  const Attribute* la = op.attr("lower");
  bool lower = la && la->get_if<BoolAttr>() ? la->get_if<BoolAttr>()->value : false;
  // Work with the lower factor L (= U^T for an upper factor) and its cotangent.
  Value l = triangle(op.results()[0], lower, false), g = triangle(*cts[0], lower, false);
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
  out[0] = subtract(triangle(sym, lower, false), diagonal_part(s));
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

std::vector<Tangent> triangular_solve_jvp(const Op& op, const std::vector<Tangent>& ts) {
  Value a = op.operands()[0], x = op.results()[0];
  if ((ts[0] && !real_tangent(op, a, "JVP")) ||
      (ts[1] && !real_tangent(op, op.operands()[1], "JVP")))
    return {Tangent{}};
  bool left = op.attr("left_side")->get_if<BoolAttr>()->value;
  bool lower = op.attr("lower")->get_if<BoolAttr>()->value;
  bool unit = op.attr("unit_diagonal")->get_if<BoolAttr>()->value;
  bool trans = *op.attr("transpose_a")->get_if<Transpose>() != Transpose::NO_TRANSPOSE;
  // d(op(a)^{-1} b) = op(a)^{-1} (db - op(da) x) (left); (db - x op(da)) op(a)^{-1} (right).
  Tangent rhs = ts[1];
  if (ts[0]) {
    Value da = read_triangle(*ts[0], lower, unit);
    if (trans) da = mT(da);
    Value term = left ? mm(da, x) : mm(x, da);
    rhs = rhs ? subtract(*rhs, term) : negate(term);
  }
  if (!rhs) return {Tangent{}};
  return {reapply(op, {a, *rhs})[0]};
}

std::vector<Tangent> cholesky_jvp(const Op& op, const std::vector<Tangent>& ts) {
  if (!ts[0] || !real_tangent(op, op.operands()[0], "JVP")) return {Tangent{}};
  const Attribute* la = op.attr("lower");
  bool lower = la && la->get_if<BoolAttr>() ? la->get_if<BoolAttr>()->value : false;
  // The symmetric perturbation the op sees: its triangle of da mirrored.
  Value e = triangle(*ts[0], lower, false);
  Value da = subtract(add(e, mT(e)), diagonal_part(e));
  Value l = triangle(op.results()[0], lower, false);
  if (!lower) l = mT(l);
  // dL = L Phi(L^{-1} da L^{-T}) (cholesky_jvp_rule).
  Value y = triangular_solve(l, da, {.left_side = true, .lower = true});
  y = triangular_solve(l, y,
                       {.left_side = false, .lower = true, .transpose_a = Transpose::TRANSPOSE});
  Value phi = add(triangle(y, true, true), multiply(diagonal_part(y), full_like(y, 0.5)));
  Value dl = mm(l, phi);
  return {lower ? dl : mT(dl)};
}

std::vector<Tangent> fft_jvp(const Op& op, const std::vector<Tangent>& ts) {
  if (!ts[0]) return {Tangent{}};
  return {reapply(op, {*ts[0]})[0]};  // linear
}

}  // namespace

void register_linalg_jvps(JvpRegistry& r) {
  r["stablehlo.triangular_solve"] = triangular_solve_jvp;
  r["stablehlo.cholesky"] = cholesky_jvp;
  r["stablehlo.fft"] = fft_jvp;
}

void register_linalg_rules(Registry& r) {
  r["stablehlo.triangular_solve"] = triangular_solve_vjp;
  r["stablehlo.cholesky"] = cholesky_vjp;
  r["stablehlo.fft"] = fft_vjp;
}

}  // namespace hhlo::ad::detail
