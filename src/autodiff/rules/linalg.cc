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
#include "hhlo/ops/linalg.h"

#include <array>
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

// ---- the LAPACK custom calls np::linalg (and jax.export programs) emit
// (JAX's rules, jax/_src/lax/linalg.py; real operands):
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
  if (!cts[0] || !real_tangent(op, a)) return out;
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
  if (!ts[0] || !real_tangent(op, a, "JVP")) return {Tangent{}, Tangent{}, Tangent{}};
  need_square(op, a, "JVP");
  Value lu = op.results()[0];
  Value x = mm(pivot_matrix(op.results()[1], a.dims().back(), a.dtype()), *ts[0]);
  x = triangular_solve(lu, x, {.left_side = true, .lower = true, .unit_diagonal = true});
  x = triangular_solve(lu, x, {.left_side = false, .lower = false});
  Value d = add(mm(unit_lower(lu), triangle(x, true, true)),
                mm(triangle(x, false, false), triangle(lu, false, false)));
  return {d, Tangent{}, Tangent{}};
}

std::vector<Cotangent> syevd_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(1);
  Value a = op.operands()[0];
  if ((!cts[0] && !cts[1]) || !real_tangent(op, a)) return out;
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
  if (!ts[0] || !real_tangent(op, a, "JVP")) return {Tangent{}, Tangent{}, Tangent{}};
  if (lapack_attr(op, "mode", 'V') != 'V')
    unsupported(op, "eigenvalues without eigenvectors (mode 'N') have no rule", "JVP");
  bool lower = lapack_attr(op, "uplo", 'L') == 'L';
  Value e = triangle(*ts[0], lower, false);
  Value da = subtract(add(e, mT(e)), diagonal_part(e));
  Value v = op.results()[0], w = op.results()[1];
  Value mv = mm(mm(mT(v), da), v);
  return {mm(v, multiply(gap_reciprocals(w), mv)), diag_of(mv), Tangent{}};
}

/// {s, U, V} of the gesdd op (thin); mode 'N' recomputes them with a thin SVD of its operand.
std::array<Value, 3> svd_factors(const Op& op, char mode) {
  if (mode == 'S') return {op.results()[1], op.results()[2], mT(op.results()[3])};
  np::linalg::SvdResult r = np::linalg::svd(op.operands()[0], false);
  return {r.s, r.u, mT(r.vh)};
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

std::vector<Cotangent> gesdd_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(1);
  Value a = op.operands()[0];
  if (!real_tangent(op, a) || (!cts[1] && !cts[2] && !cts[3])) return out;
  char mode = svd_mode(op, "VJP");
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

std::vector<Tangent> gesdd_jvp(const Op& op, const std::vector<Tangent>& ts) {
  std::vector<Tangent> out(5);
  Value a = op.operands()[0];
  if (!ts[0] || !real_tangent(op, a, "JVP")) return out;
  char mode = svd_mode(op, "JVP");
  auto [s, u, v] = svd_factors(op, mode);
  int64_t m = a.dims()[a.dims().size() - 2], n = a.dims().back();
  Value da = *ts[0];
  Value ds = mm(mm(mT(u), da), v);
  out[1] = diag_of(ds);
  if (mode != 'S') return out;
  Value f = svd_gaps(s), sj = spread(s, true), si = spread(s, false);
  Value dss = multiply(ds, sj), sds = multiply(si, ds);
  Value du = mm(u, multiply(f, add(dss, mT(dss))));
  Value dv = mm(v, multiply(f, add(sds, mT(sds))));
  if (m > n) {
    Value dav = mm(da, v);
    du = add(du, divide(subtract(dav, mm(u, mm(mT(u), dav))), spread_rows(s, m)));
  }
  if (n > m) {
    Value dau = mm(mT(da), u);
    dv = add(dv, divide(subtract(dau, mm(v, mm(mT(v), dau))), spread_rows(s, n)));
  }
  out[2] = du;
  out[3] = mT(dv);
  return out;
}

}  // namespace

void register_linalg_jvps(JvpRegistry& r) {
  r["stablehlo.triangular_solve"] = triangular_solve_jvp;
  r["stablehlo.cholesky"] = cholesky_jvp;
  r["stablehlo.fft"] = fft_jvp;
  for (char p : {'s', 'd', 'c', 'z'}) {
    bool cplx = p == 'c' || p == 'z';
    r[fmt::format("custom_call:lapack_{}getrf_ffi", p)] = getrf_jvp;
    r[fmt::format("custom_call:lapack_{}{}_ffi", p, cplx ? "heevd" : "syevd")] = syevd_jvp;
    r[fmt::format("custom_call:lapack_{}gesdd_ffi", p)] = gesdd_jvp;
  }
}

void register_linalg_rules(Registry& r) {
  r["stablehlo.triangular_solve"] = triangular_solve_vjp;
  r["stablehlo.cholesky"] = cholesky_vjp;
  r["stablehlo.fft"] = fft_vjp;
  for (char p : {'s', 'd', 'c', 'z'}) {
    bool cplx = p == 'c' || p == 'z';
    r[fmt::format("custom_call:lapack_{}getrf_ffi", p)] = getrf_vjp;
    r[fmt::format("custom_call:lapack_{}{}_ffi", p, cplx ? "heevd" : "syevd")] = syevd_vjp;
    r[fmt::format("custom_call:lapack_{}gesdd_ffi", p)] = gesdd_vjp;
  }
}

}  // namespace hhlo::ad::detail
