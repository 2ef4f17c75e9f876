// matmul and two-operand einsum, both lowered to one stablehlo.dot_general; np::linalg.
#include "hhlo/ops/linalg.h"

#include <fmt/format.h>

#include <algorithm>

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

Tensor cholesky(Tensor a, Loc loc) {
  Value l = hhlo::cholesky(a, true, loc);
  // Zero above the diagonal: the op leaves that triangle implementation-defined.
  TensorType it{DType::i32, a.shape()};
  Value row = iota(a.func(), it, a.rank() - 2, loc), col = iota(a.func(), it, a.rank() - 1, loc);
  return hhlo::select(compare(row, col, ComparisonDirection::GE, std::nullopt, loc), l,
                      full_like(a, 0, loc), loc);
}

Tensor triangular_solve(Tensor a, Tensor b, bool lower, bool transpose, bool unit_diagonal,
                        bool left_side, Loc loc) {
  return hhlo::triangular_solve(
      a, b,
      {.left_side = left_side,
       .lower = lower,
       .unit_diagonal = unit_diagonal,
       .transpose_a = transpose ? Transpose::TRANSPOSE : Transpose::NO_TRANSPOSE},
      loc);
}

}  // namespace hhlo::np::linalg
