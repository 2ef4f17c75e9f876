// matmul and two-operand einsum, both lowered to one stablehlo.dot_general; np::linalg.
#include "hhlo/ops/linalg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "hhlo/ir/infer.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/ops/shape_ops.h"

namespace hhlo::np {

Tensor matmul(Tensor a, Tensor b, Loc loc) {
  if (a.rank() == 0 || b.rank() == 0)
    throw ShapeError("matmul", "", "operands must have rank >= 1 (use * for scalars)");
  bool a1 = a.rank() == 1, b1 = b.rank() == 1;
  Tensor A = a1 ? reshape(a, {1, a.dim(0)}, loc) : a;
  Tensor B = b1 ? reshape(b, {b.dim(0), 1}, loc) : b;
  if (A.dim(-1) != B.dim(-2))
    throw ShapeError("matmul", "",
                     fmt::format("inner sizes differ: {} (size {}) and {} (size {})",
                                 a.type().to_string(), A.dim(-1), b.type().to_string(), B.dim(-2)));
  Dims ba(A.shape().begin(), A.shape().end() - 2), bb(B.shape().begin(), B.shape().end() - 2);
  Dims batch = broadcast_shapes(ba, bb);
  auto with = [&](Tensor t) {
    Dims s = batch;
    s.push_back(t.dim(-2));
    s.push_back(t.dim(-1));
    return broadcast_to(t, s, loc);
  };
  A = with(A);
  B = with(B);
  int64_t nb = static_cast<int64_t>(batch.size());
  DotDimensionNumbers dn;
  for (int64_t i = 0; i < nb; ++i) {
    dn.lhs_batching_dimensions.push_back(i);
    dn.rhs_batching_dimensions.push_back(i);
  }
  dn.lhs_contracting_dimensions = {nb + 1};
  dn.rhs_contracting_dimensions = {nb};
  Tensor r = hhlo::dot_general(A, B, dn, {}, loc);
  Dims s = r.shape();
  if (b1) s.erase(s.end() - 1);
  if (a1) s.erase(s.end() - (b1 ? 1 : 2));
  return s == r.shape() ? r : Tensor(hhlo::reshape(r, s, loc));
}

Tensor einsum(std::string_view spec, Tensor a, Tensor b, Loc loc) {
  auto bad = [&](const std::string& why) -> ShapeError {
    return ShapeError("einsum", "", fmt::format("spec \"{}\": {}", spec, why));
  };
  auto comma = spec.find(','), arrow = spec.find("->");
  if (comma == std::string_view::npos || arrow == std::string_view::npos || arrow < comma)
    throw bad("expected the form \"ab,bc->ac\"");
  std::string la(spec.substr(0, comma)), lb(spec.substr(comma + 1, arrow - comma - 1)),
      lo(spec.substr(arrow + 2));
  auto unique = [&](const std::string& s, const char* what) {
    for (size_t i = 0; i < s.size(); ++i) {
      if (!std::isalpha(static_cast<unsigned char>(s[i])))
        throw bad(fmt::format("{} has a non-letter label '{}' (no ellipsis support)", what, s[i]));
      if (s.find(s[i], i + 1) != std::string::npos)
        throw bad(fmt::format("{} repeats label '{}'", what, s[i]));
    }
  };
  unique(la, "lhs");
  unique(lb, "rhs");
  unique(lo, "output");
  if (static_cast<int64_t>(la.size()) != a.rank() || static_cast<int64_t>(lb.size()) != b.rank())
    throw bad(fmt::format("label counts {} and {} do not match ranks {} and {}", la.size(),
                          lb.size(), a.rank(), b.rank()));
  for (char c : lo)
    if (la.find(c) == std::string::npos && lb.find(c) == std::string::npos)
      throw bad(fmt::format("output label '{}' appears in no operand", c));
  // Sum labels that occur in one operand only and not in the output.
  auto presum = [&](Tensor t, std::string& l, const std::string& other) {
    Axes ax;
    std::string kept;
    for (size_t i = 0; i < l.size(); ++i) {
      if (other.find(l[i]) == std::string::npos && lo.find(l[i]) == std::string::npos)
        ax.push_back(static_cast<int64_t>(i));
      else
        kept += l[i];
    }
    if (ax.empty()) return t;
    l = kept;
    return sum(t, ax, false, loc);
  };
  a = presum(a, la, lb);
  b = presum(b, lb, la);
  DotDimensionNumbers dn;
  std::string result;
  for (size_t i = 0; i < la.size(); ++i) {
    auto j = lb.find(la[i]);
    if (j == std::string::npos) continue;
    if (a.dim(static_cast<int64_t>(i)) != b.dim(static_cast<int64_t>(j)))
      throw bad(fmt::format("label '{}' has size {} in lhs and {} in rhs", la[i],
                            a.dim(static_cast<int64_t>(i)), b.dim(static_cast<int64_t>(j))));
    bool batch = lo.find(la[i]) != std::string::npos;
    (batch ? dn.lhs_batching_dimensions : dn.lhs_contracting_dimensions)
        .push_back(static_cast<int64_t>(i));
    (batch ? dn.rhs_batching_dimensions : dn.rhs_contracting_dimensions)
        .push_back(static_cast<int64_t>(j));
    if (batch) result += la[i];
  }
  for (char c : la)
    if (lb.find(c) == std::string::npos) result += c;
  for (char c : lb)
    if (la.find(c) == std::string::npos) result += c;
  Tensor r = hhlo::dot_general(a, b, dn, {}, loc);
  std::vector<int64_t> perm;
  for (char c : lo) perm.push_back(static_cast<int64_t>(result.find(c)));
  return transpose(r, perm, loc);
}

}  // namespace hhlo::np

namespace hhlo::np::linalg {

Tensor cholesky(Tensor a, bool symmetrize_input, Loc loc) {
  if (symmetrize_input) {
    // JAX's symmetrize, (a + a^H) / 2; first the op's ShapeError for a bad `a`.
    infer_cholesky(a.type());
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < a.rank() - 2; ++d) perm.push_back(d);
    perm.push_back(a.rank() - 1);
    perm.push_back(a.rank() - 2);
    Value at = hhlo::transpose(a, perm, loc);
    if (is_complex(a.dtype()))
      at = hhlo::complex(hhlo::real(at, loc), hhlo::negate(hhlo::imag(at, loc), loc), loc);
    a = hhlo::divide(hhlo::add(a, at, loc), full_like(a, 2, loc), loc);
  }
  Value l = hhlo::cholesky(a, true, loc);
  // Zero above the diagonal: the op leaves that triangle implementation-defined.
  TensorType it{DType::i32, a.shape()};
  Value row = iota(a.func(), it, a.rank() - 2, loc), col = iota(a.func(), it, a.rank() - 1, loc);
  return hhlo::select(compare(row, col, ComparisonDirection::GE, std::nullopt, loc), l,
                      full_like(a, 0, loc), loc);
}

Tensor triangular_solve(Tensor a, Tensor b, SolveTriangular how, Loc loc) {
  return hhlo::triangular_solve(
      a, b,
      {.left_side = how.left_side,
       .lower = how.lower,
       .unit_diagonal = how.unit_diagonal,
       .transpose_a = how.transpose ? Transpose::TRANSPOSE : Transpose::NO_TRANSPOSE},
      loc);
}

}  // namespace hhlo::np::linalg

// ---- LAPACK-backed functions: custom calls to jaxlib's targets, as JAX lowers them on CPU
// (jax/_src/lax/linalg.py, *_cpu_gpu_lowering), plus native ops for the rest.

namespace hhlo::np::linalg {
namespace {

/// LAPACK's type prefix of `t` (s, d, c, z); ShapeError naming `fn` for any other dtype.
char lapack_prefix(DType t, const char* fn) {
  switch (t) {
    case DType::f32:
      return 's';
    case DType::f64:
      return 'd';
    case DType::c64:
      return 'c';
    case DType::c128:
      return 'z';
    default:
      throw ShapeError(
          fn, "", fmt::format("dtype {} is not f32, f64, complex64 or complex128", dtype_name(t)));
  }
}

DType real_dtype(DType t) { return is_complex(t) ? complex_part(t) : t; }

/// Checks that `a` is a batch of matrices (square ones when `square`) of a LAPACK dtype.
void need_matrix(Tensor a, const char* fn, bool square) {
  if (a.rank() < 2)
    throw ShapeError(fn, "",
                     fmt::format("operand must have rank >= 2, got {}", a.type().to_string()));
  if (square && a.dim(-1) != a.dim(-2))
    throw ShapeError(
        fn, "", fmt::format("operand must be square [..., n, n], got {}", a.type().to_string()));
  lapack_prefix(a.dtype(), fn);
}

Dims batch_dims(const Tensor& a, size_t trailing) {
  return Dims(a.shape().begin(), a.shape().end() - static_cast<std::ptrdiff_t>(trailing));
}

Dims with_tail(Dims d, std::initializer_list<int64_t> tail) {
  d.insert(d.end(), tail.begin(), tail.end());
  return d;
}

/// Minor-to-major layout: column-major trailing matrix with batch dims outermost (`matrix`), or
/// row-major.
std::vector<int64_t> layout(int64_t rank, bool matrix) {
  std::vector<int64_t> l;
  if (matrix) l = {rank - 2, rank - 1};
  for (int64_t i = rank - (matrix ? 3 : 1); i >= 0; --i) l.push_back(i);
  return l;
}

/// One stablehlo.custom_call to a jaxlib LAPACK target (api_version 4, backend_config the ui8
/// attributes `config`), with JAX's operand and result layouts.
std::vector<Value> lapack_call(const std::string& target, const std::vector<Value>& operands,
                               const std::vector<bool>& operand_matrix,
                               const std::vector<TensorType>& results,
                               const std::vector<bool>& result_matrix,
                               std::initializer_list<std::pair<const char*, char>> config,
                               Loc loc) {
  CustomCallOptions o;
  o.api_version = 4;
  DictAttr d;
  for (const auto& [k, v] : config) d.entries.emplace_back(k, IntAttr{v, DType::ui8});
  o.backend_config = d;
  for (size_t i = 0; i < operands.size(); ++i)
    o.operand_layouts.push_back(layout(operands[i].rank(), operand_matrix[i]));
  for (size_t i = 0; i < results.size(); ++i)
    o.result_layouts.push_back(layout(results[i].rank(), result_matrix[i]));
  return custom_call(operands.at(0).func(), target, operands, results, o, loc);
}

std::string target(char p, const char* routine) {
  return fmt::format("lapack_{}{}_ffi", p, routine);
}

Value swap_last(Value x, Loc loc) {
  std::vector<int64_t> perm(static_cast<size_t>(x.rank()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return hhlo::transpose(x, perm, loc);
}

Value conj(Value x, Loc loc) {
  if (!is_complex(x.dtype())) return x;
  return hhlo::complex(hhlo::real(x, loc), hhlo::negate(hhlo::imag(x, loc), loc), loc);
}

/// The conjugate transpose of each trailing matrix.
Value adjoint(Value x, Loc loc) { return conj(swap_last(x, loc), loc); }

/// i1 [..., m, n]: row `dir` col (GE: on or below the diagonal, EQ: on it, ...).
Value tri_mask(Func& f, const Dims& d, ComparisonDirection dir, Loc loc) {
  TensorType it{DType::i32, d};
  int64_t r = static_cast<int64_t>(d.size());
  return compare(iota(f, it, r - 2, loc), iota(f, it, r - 1, loc), dir, std::nullopt, loc);
}

/// `x` where `mask`, else zero.
Value keep(Value mask, Value x, Loc loc) {
  return hhlo::select(mask, x, constant(x.func(), 0, x.dtype(), x.dims(), loc), loc);
}

/// The diagonal [..., n] of each trailing [n, n] matrix.
Value diagonal(Value x, Loc loc) {
  Value d = keep(tri_mask(x.func(), x.dims(), ComparisonDirection::EQ, loc), x, loc);
  return sum(d, {x.rank() - 1}, false, loc);
}

/// `x` [batch..., ...] where ok [batch...] holds, NaN elsewhere (JAX's answer for info != 0).
Value nan_unless(Value ok, Value x, Loc loc) {
  std::vector<int64_t> bd(static_cast<size_t>(ok.rank()));
  std::iota(bd.begin(), bd.end(), 0);
  Value okb = broadcast_in_dim(ok, x.dims(), bd, loc);
  return hhlo::select(
      okb, x,
      constant(x.func(), std::numeric_limits<double>::quiet_NaN(), x.dtype(), x.dims(), loc), loc);
}

Value info_ok(Value info, Loc loc) {
  return compare(info, constant(info.func(), 0, DType::i32, info.dims(), loc),
                 ComparisonDirection::EQ, std::nullopt, loc);
}

/// The one-hot [..., n, n] matrix P with P[i, j] = (perm[i] == j), of `dtype`: P a = a[perm].
Value permutation_matrix(Value perm, DType dtype, Loc loc) {
  int64_t n = perm.dim(-1);
  Dims d = perm.dims();
  d.push_back(n);
  std::vector<int64_t> bd(static_cast<size_t>(perm.rank()));
  std::iota(bd.begin(), bd.end(), 0);
  Value rows = broadcast_in_dim(perm, d, bd, loc);
  Value cols = iota(perm.func(), TensorType{DType::i32, d}, perm.rank(), loc);
  return convert(compare(rows, cols, ComparisonDirection::EQ, std::nullopt, loc), dtype, loc);
}

/// U^{-1} L^{-1} (P rhs) for the packed factors of lu().
Value lu_solve(const LuResult& f, Value rhs, Loc loc) {
  Value pb = matmul(permutation_matrix(f.permutation, rhs.dtype(), loc), rhs, loc);
  Value y = hhlo::triangular_solve(f.lu, pb,
                                   {.left_side = true, .lower = true, .unit_diagonal = true}, loc);
  return hhlo::triangular_solve(f.lu, y, {.left_side = true, .lower = false}, loc);
}

}  // namespace

Tensor lu_pivots_to_permutation(Tensor pivots, int64_t n, Loc loc) {
  if (pivots.dtype() != DType::i32 || pivots.rank() < 1 || n < pivots.dim(-1))
    throw ShapeError(
        "lu_pivots_to_permutation", "",
        fmt::format("pivots must be i32 [..., k] with k <= permutation_size {}, got {}", n,
                    pivots.type().to_string()));
  Func& f = pivots.func();
  int64_t r = pivots.rank(), k = pivots.dim(-1);
  Dims pd = pivots.shape();
  pd.back() = n;
  std::vector<int64_t> bd(static_cast<size_t>(r - 1));
  std::iota(bd.begin(), bd.end(), 0);
  Value perm0 = iota(f, TensorType{DType::i32, pd}, r - 1, loc);
  Value i0 = constant(f, 0, DType::i32, {}, loc);
  std::vector<Value> out = while_loop(
      {i0, perm0, pivots},
      [k, loc](const std::vector<Value>& v) {
        return std::vector<Value>{compare(v[0], constant(v[0].func(), k, DType::i32, {}, loc),
                                          ComparisonDirection::LT, std::nullopt, loc)};
      },
      [r, bd, loc](const std::vector<Value>& v) {
        Value i = v[0], perm = v[1], piv = v[2];
        Func& g = i.func();
        auto at = [&](Value x, Value idx_b) {  // x[..., idx] with idx [...] broadcast
          Value col = iota(g, TensorType{DType::i32, x.dims()}, r - 1, loc);
          Value hit = compare(col, idx_b, ComparisonDirection::EQ, std::nullopt, loc);
          return sum(keep(hit, x, loc), {r - 1}, false, loc);
        };
        auto bc = [&](Value s, const Dims& d) {  // [...] or [] to d
          return s.rank() == 0 ? broadcast_in_dim(s, d, {}, loc) : broadcast_in_dim(s, d, bd, loc);
        };
        Value j = at(piv, bc(i, piv.dims()));
        Value ib = bc(i, perm.dims()), jb = bc(j, perm.dims());
        Value pi = at(perm, ib), pj = at(perm, jb);
        Value col = iota(g, TensorType{DType::i32, perm.dims()}, r - 1, loc);
        Value is_i = compare(col, ib, ComparisonDirection::EQ, std::nullopt, loc);
        Value is_j = compare(col, jb, ComparisonDirection::EQ, std::nullopt, loc);
        Value next = hhlo::select(is_i, bc(pj, perm.dims()),
                                  hhlo::select(is_j, bc(pi, perm.dims()), perm, loc), loc);
        return std::vector<Value>{hhlo::add(i, constant(g, 1, DType::i32, {}, loc), loc), next,
                                  piv};
      },
      loc);
  return out[1];
}

LuResult lu(Tensor a, Loc loc) {
  need_matrix(a, "lu", false);
  char p = lapack_prefix(a.dtype(), "lu");
  Dims b = batch_dims(a, 2);
  int64_t m = a.dim(-2), k = std::min(m, a.dim(-1));
  std::vector<Value> r =
      lapack_call(target(p, "getrf"), {a}, {true},
                  {a.type(), TensorType{DType::i32, with_tail(b, {k})}, TensorType{DType::i32, b}},
                  {true, false, false}, {}, loc);
  // getrf's ipiv is 1-based; info > 0 (an exact zero on U's diagonal) keeps the factors, as JAX.
  Value piv = hhlo::subtract(r[1], constant(a.func(), 1, DType::i32, r[1].dims(), loc), loc);
  return {r[0], piv, lu_pivots_to_permutation(piv, m, loc)};
}

Tensor solve(Tensor a, Tensor b, Loc loc) {
  need_matrix(a, "solve", true);
  bool vec = b.rank() == 1;  // JAX >= 0.5: only a rank-1 b is one vector (for every matrix)
  if (b.rank() < 1 || b.dtype() != a.dtype() || b.dim(vec ? -1 : -2) != a.dim(-1))
    throw ShapeError("solve", "",
                     fmt::format("b must be [..., n, k] or [n] of a's dtype for a {}, got {}",
                                 a.type().to_string(), b.type().to_string()));
  Tensor B = vec ? expand_dims(b, 1, loc) : b;
  Dims batch = broadcast_shapes(batch_dims(a, 2), batch_dims(B, 2));
  Tensor A = broadcast_to(a, with_tail(batch, {a.dim(-2), a.dim(-1)}), loc);
  B = broadcast_to(B, with_tail(batch, {B.dim(-2), B.dim(-1)}), loc);
  Tensor x = lu_solve(lu(A, loc), B, loc);
  return vec ? squeeze(x, {x.rank() - 1}, loc) : x;
}

Tensor inv(Tensor a, Loc loc) {
  need_matrix(a, "inv", true);
  LuResult f = lu(a, loc);
  // P I = P: the permutation matrix itself is the right-hand side.
  Value pm = permutation_matrix(f.permutation, a.dtype(), loc);
  Value y = hhlo::triangular_solve(f.lu, pm,
                                   {.left_side = true, .lower = true, .unit_diagonal = true}, loc);
  return hhlo::triangular_solve(f.lu, y, {.left_side = true, .lower = false}, loc);
}

SlogdetResult slogdet(Tensor a, Loc loc) {
  need_matrix(a, "slogdet", true);
  LuResult f = lu(a, loc);
  Func& fn = a.func();
  DType dt = a.dtype(), rd = real_dtype(dt);
  Value diag = diagonal(f.lu, loc);
  Value zero = constant(fn, 0, dt, diag.dims(), loc);
  Value zeros =
      sum(convert(compare(diag, zero, ComparisonDirection::EQ, std::nullopt, loc), DType::i32, loc),
          {diag.rank() - 1}, false, loc);
  Value is_zero = compare(zeros, constant(fn, 0, DType::i32, zeros.dims(), loc),
                          ComparisonDirection::GT, std::nullopt, loc);
  Value ar = iota(fn, TensorType{DType::i32, f.pivots.shape()}, f.pivots.rank() - 1, loc);
  auto count = [&](Value pred) {
    return sum(convert(pred, DType::i32, loc), {pred.rank() - 1}, false, loc);
  };
  Value parity = count(compare(f.pivots, ar, ComparisonDirection::NE, std::nullopt, loc));
  Value sign;
  Dims bd = is_zero.dims();
  if (is_complex(dt)) {
    Value unit = hhlo::divide(diag, convert(hhlo::abs(diag, loc), dt, loc), loc);
    Value one = constant(fn, 1, dt, {}, loc);
    sign = reduce(
        unit, one, {unit.rank() - 1}, [loc](Value x, Value y) { return hhlo::multiply(x, y, loc); },
        loc);
  } else {
    parity = hhlo::add(parity,
                       count(compare(diag, zero, ComparisonDirection::LT, std::nullopt, loc)), loc);
    sign = constant(fn, 1, dt, bd, loc);
  }
  Value odd =
      compare(hhlo::remainder(parity, constant(fn, 2, DType::i32, bd, loc), loc),
              constant(fn, 1, DType::i32, bd, loc), ComparisonDirection::EQ, std::nullopt, loc);
  sign = hhlo::multiply(
      sign, hhlo::select(odd, constant(fn, -1, dt, bd, loc), constant(fn, 1, dt, bd, loc), loc),
      loc);
  sign = hhlo::select(is_zero, constant(fn, 0, dt, bd, loc), sign, loc);
  Value logabs = sum(hhlo::log(hhlo::abs(diag, loc), loc), {diag.rank() - 1}, false, loc);
  logabs = hhlo::select(
      is_zero, constant(fn, -std::numeric_limits<double>::infinity(), rd, bd, loc), logabs, loc);
  return {sign, logabs};
}

Tensor det(Tensor a, Loc loc) {
  need_matrix(a, "det", true);
  // jnp.linalg.det (n > 3): sign * exp(logabsdet).
  SlogdetResult s = slogdet(a, loc);
  return hhlo::multiply(s.sign, convert(hhlo::exponential(s.logabsdet, loc), a.dtype(), loc), loc);
}

EighResult eigh(Tensor a, Eigh how, Loc loc) {
  const bool lower = how.lower;
  need_matrix(a, "eigh", true);
  char p = lapack_prefix(a.dtype(), "eigh");
  Value x = a;
  if (how.symmetrize_input)
    x = hhlo::multiply(hhlo::add(x, adjoint(x, loc), loc),
                       constant(a.func(), 0.5, a.dtype(), a.shape(), loc), loc);
  Dims b = batch_dims(a, 2);
  int64_t n = a.dim(-1);
  std::vector<Value> r = lapack_call(
      target(p, is_complex(a.dtype()) ? "heevd" : "syevd"), {x}, {true},
      {a.type(), TensorType{real_dtype(a.dtype()), with_tail(b, {n})}, TensorType{DType::i32, b}},
      {true, false, false}, {{"mode", 'V'}, {"uplo", lower ? 'L' : 'U'}}, loc);
  Value ok = info_ok(r[2], loc);
  return {nan_unless(ok, r[1], loc), nan_unless(ok, r[0], loc)};
}

namespace {

/// gesdd in `mode` ('A', 'S', 'N'): {s, u, vt} with NaNs where info != 0.
std::vector<Value> gesdd(Tensor a, char mode, const char* fn, Loc loc) {
  need_matrix(a, fn, false);
  char p = lapack_prefix(a.dtype(), fn);
  Dims b = batch_dims(a, 2);
  int64_t m = a.dim(-2), n = a.dim(-1), k = std::min(m, n);
  int64_t ucols = mode == 'S' ? k : m, vrows = mode == 'S' ? k : n;
  std::vector<Value> r =
      lapack_call(target(p, "gesdd"), {a}, {true},
                  {a.type(), TensorType{real_dtype(a.dtype()), with_tail(b, {k})},
                   TensorType{a.dtype(), with_tail(b, {m, ucols})},
                   TensorType{a.dtype(), with_tail(b, {vrows, n})}, TensorType{DType::i32, b}},
                  {true, false, true, true, false}, {{"mode", mode}}, loc);
  Value ok = info_ok(r[4], loc);
  return {nan_unless(ok, r[1], loc), nan_unless(ok, r[2], loc), nan_unless(ok, r[3], loc)};
}

}  // namespace

SvdResult svd(Tensor a, bool full_matrices, Loc loc) {
  std::vector<Value> r = gesdd(a, full_matrices ? 'A' : 'S', "svd", loc);
  return {r[1], r[0], r[2]};
}

Tensor svdvals(Tensor a, Loc loc) { return gesdd(a, 'N', "svdvals", loc)[0]; }

namespace {

/// JAX's QR lowering (_qr_lowering): geqrf, then orgqr / ungqr on the Householder vectors
/// (padded with zero columns to [m, m] when `full_matrices`, sliced to [m, m] when m < n);
/// returns {q, r}.
std::vector<Value> qr_decomposition(Value a, bool full_matrices, Loc loc) {
  char p = lapack_prefix(a.dtype(), "qr");
  Dims b(a.dims().begin(), a.dims().end() - 2);
  int64_t r = a.rank(), m = a.dims()[static_cast<size_t>(r - 2)], n = a.dims().back(),
          k = std::min(m, n);
  std::vector<Value> h =
      lapack_call(target(p, "geqrf"), {a}, {true},
                  {a.type(), TensorType{a.dtype(), with_tail(b, {k})}}, {true, false}, {}, loc);
  Value packed = h[0];
  Value rr = keep(tri_mask(a.func(), packed.dims(), ComparisonDirection::LE, loc), packed, loc);
  if (!full_matrices && m > n) {  // the reduced R: the first n rows
    std::vector<int64_t> lo(static_cast<size_t>(r), 0), hi(packed.dims());
    hi[static_cast<size_t>(r - 2)] = n;
    rr = hhlo::slice(rr, lo, hi, {}, loc);
  }
  Value house = packed;
  if (m < n) {  // Q is m x m: the first m columns hold the Householder vectors
    std::vector<int64_t> lo(static_cast<size_t>(r), 0), hi(packed.dims());
    hi.back() = m;
    house = hhlo::slice(packed, lo, hi, {}, loc);
  } else if (full_matrices && m > n) {  // zero columns up to m x m
    std::vector<int64_t> lo(static_cast<size_t>(r), 0), hi(lo), in(lo);
    hi.back() = m - n;
    house = pad(packed, constant(a.func(), 0, a.dtype(), {}, loc), lo, hi, in, loc);
  }
  Value q = lapack_call(target(p, is_complex(a.dtype()) ? "ungqr" : "orgqr"), {house, h[1]},
                        {true, false}, {house.type()}, {true}, {}, loc)[0];
  return {q, rr};
}

}  // namespace

std::vector<Value> qr_composite(Tensor a, bool full_matrices, Loc loc) {
  need_matrix(a, "qr", false);
  // One private decomposition per operand type and mode, shared by every QR of the module.
  std::string name =
      fmt::format("hhlo_qr_{}_{}", full_matrices ? "complete" : "reduced", dtype_name(a.dtype()));
  for (int64_t d : a.shape()) name += d < 0 ? "_dyn" : fmt::format("_{}", d);
  Module& module = a.func().module();
  const Func* decomposition = module.find(name);
  if (!decomposition) {
    Func& g = module.add_func(name, {a.type()}, Visibility::private_);
    g.ret(qr_decomposition(g.arg(0), full_matrices, loc), loc);
    decomposition = &g;
  }
  DictAttr attrs;
  attrs.entries.emplace_back("full_matrices", BoolAttr{full_matrices});
  return composite("hhlo.qr", {a}, *decomposition, std::move(attrs), 0, loc);
}

QrResult qr(Tensor a, std::string_view mode, Loc loc) {
  need_matrix(a, "qr", false);
  if (mode != "reduced" && mode != "complete" && mode != "r")
    throw ShapeError(
        "qr", "", fmt::format("mode must be \"reduced\", \"complete\" or \"r\", got \"{}\"", mode));
  // Mode "r" computes Q too (as JAX does; XLA drops it when unused).
  std::vector<Value> f = qr_composite(a, mode == "complete", loc);
  if (mode == "r") return {Tensor(), f[1]};
  return {f[0], f[1]};
}

LstsqResult lstsq(Tensor a, Tensor b, double rcond, Loc loc) {
  if (a.rank() != 2 || (b.rank() != 1 && b.rank() != 2) || b.dtype() != a.dtype() ||
      b.dim(0) != a.dim(0))
    throw ShapeError("lstsq", "",
                     fmt::format("a must be [m, n] and b [m, k] or [m] of a's dtype, got {} and {}",
                                 a.type().to_string(), b.type().to_string()));
  need_matrix(a, "lstsq", false);
  bool vec = b.rank() == 1;
  Tensor B = vec ? expand_dims(b, 1, loc) : b;
  Func& f = a.func();
  DType dt = a.dtype(), rd = real_dtype(dt);
  int64_t m = a.dim(0), n = a.dim(1);
  if (rcond < 0)
    rcond = std::ldexp(1.0, rd == DType::f32 ? -23 : -52) * static_cast<double>(std::max(m, n));
  std::vector<Value> usv = gesdd(a, 'S', "lstsq", loc);
  Value s = usv[0], u = usv[1], vt = usv[2];
  int64_t k = s.dim(0);
  Value s0 = broadcast_in_dim(hhlo::slice(s, {0}, {1}, {}, loc), {k}, {0}, loc);
  Value zero = constant(f, 0, rd, {k}, loc);
  Value mask = hhlo::and_(compare(s, zero, ComparisonDirection::GT, std::nullopt, loc),
                          compare(s, hhlo::multiply(constant(f, rcond, rd, {k}, loc), s0, loc),
                                  ComparisonDirection::GE, std::nullopt, loc),
                          loc);
  Value rank = sum(convert(mask, DType::i32, loc), {0}, false, loc);
  Value safe = hhlo::select(mask, s, constant(f, 1, rd, {k}, loc), loc);
  Value sinv = hhlo::select(mask, hhlo::divide(constant(f, 1, rd, {k}, loc), safe, loc), zero, loc);
  Value sinv_b = broadcast_in_dim(convert(sinv, dt, loc), {k, B.dim(1)}, {0}, loc);
  Value utb = matmul(adjoint(u, loc), B, loc);
  Tensor x = matmul(adjoint(vt, loc), hhlo::multiply(sinv_b, utb, loc), loc);
  Value res = hhlo::subtract(B, matmul(a, x, loc), loc);
  Value res2 = is_complex(dt)
                   ? hhlo::add(hhlo::multiply(hhlo::real(res, loc), hhlo::real(res, loc), loc),
                               hhlo::multiply(hhlo::imag(res, loc), hhlo::imag(res, loc), loc), loc)
                   : hhlo::multiply(res, res, loc);
  Value resid = sum(res2, {0}, false, loc);
  return {vec ? squeeze(x, {1}, loc) : x, resid, rank, s};
}

}  // namespace hhlo::np::linalg
