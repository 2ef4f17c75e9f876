// VJP of dot_general with any batch / contracting dimensions (JAX _dot_general_transpose_lhs/rhs):
// each operand's cotangent is a dot_general of the result cotangent with the other operand,
// transposed back into the operand's dimension order. Complex operands: the same formula, without
// conjugation (JAX's convention).
#include <algorithm>

#include "rules.h"

namespace hhlo::ad::detail {
namespace {

std::vector<int64_t> free_dims(int64_t rank, const std::vector<int64_t>& batch,
                               const std::vector<int64_t>& contract) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contract.begin(), contract.end(), d) == contract.end())
      out.push_back(d);
  return out;
}

// Cotangent of operand `x` (dims xb batch, xc contracting) given the result cotangent g and the
// other operand y (yb, yc). `x_first` says whether x is the lhs (its free dims come first in g).
Value transpose_operand(Value g, Value x, Value y, const std::vector<int64_t>& xb,
                        const std::vector<int64_t>& xc, const std::vector<int64_t>& yb,
                        const std::vector<int64_t>& yc, bool x_first) {
  auto nb = static_cast<int64_t>(xb.size());
  std::vector<int64_t> xf = free_dims(x.rank(), xb, xc), yf = free_dims(y.rank(), yb, yc);
  auto nxf = static_cast<int64_t>(xf.size()), nyf = static_cast<int64_t>(yf.size());
  // g dims: batch [0, nb), then lhs free, then rhs free.
  int64_t y_free_start = x_first ? nb + nxf : nb;
  DotDimensionNumbers dn;
  for (int64_t i = 0; i < nb; ++i) dn.lhs_batching_dimensions.push_back(i);
  dn.rhs_batching_dimensions = yb;
  for (int64_t i = 0; i < nyf; ++i) dn.lhs_contracting_dimensions.push_back(y_free_start + i);
  dn.rhs_contracting_dimensions = yf;
  DotOptions opts;
  if (g.dtype() != y.dtype()) opts.preferred_element_type = x.dtype();
  Value gy = g.dtype() == y.dtype() ? g : convert(g, y.dtype());
  Value r = dot_general(gy, y, dn, opts);
  // r dims: batch (x's batch dims in order xb), x's free dims (ascending), then y's remaining dims
  // (y's contracting dims, ascending by y index) which pair with x's contracting dims.
  std::vector<int64_t> pos = xb;
  pos.insert(pos.end(), xf.begin(), xf.end());
  std::vector<int64_t> yc_sorted = yc;
  std::sort(yc_sorted.begin(), yc_sorted.end());
  for (int64_t yd : yc_sorted) {
    auto k = std::find(yc.begin(), yc.end(), yd) - yc.begin();
    pos.push_back(xc[static_cast<size_t>(k)]);
  }
  std::vector<int64_t> perm(pos.size());
  for (size_t p = 0; p < pos.size(); ++p)
    perm[static_cast<size_t>(pos[p])] = static_cast<int64_t>(p);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (!identity) r = transpose(r, perm);
  return cast_to(r, x.dtype());
}

}  // namespace

void register_dot_general_rules(Registry& r) {
  r["stablehlo.dot_general"] = [](const Op& op, const std::vector<Cotangent>& cts) {
    std::vector<Cotangent> out(2);
    if (!cts[0]) return out;
    const auto* dn = op.attr("dot_dimension_numbers")->get_if<DotDimensionNumbers>();
    Value lhs = op.operands()[0], rhs = op.operands()[1], g = *cts[0];
    if (is_inexact(lhs.dtype()) && needs_cotangent(0))
      out[0] = transpose_operand(g, lhs, rhs, dn->lhs_batching_dimensions,
                                 dn->lhs_contracting_dimensions, dn->rhs_batching_dimensions,
                                 dn->rhs_contracting_dimensions, true);
    if (is_inexact(rhs.dtype()) && needs_cotangent(1))
      out[1] = transpose_operand(g, rhs, lhs, dn->rhs_batching_dimensions,
                                 dn->rhs_contracting_dimensions, dn->lhs_batching_dimensions,
                                 dn->lhs_contracting_dimensions, false);
    return out;
  };
}

// JVP: bilinear, one term per operand (d(x . y) = dx . y + x . dy), each the op applied again.
void register_dot_general_jvps(JvpRegistry& r) { r["stablehlo.dot_general"] = bilinear_jvp(); }

}  // namespace hhlo::ad::detail
