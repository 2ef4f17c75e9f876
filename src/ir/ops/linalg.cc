// triangular_solve and cholesky.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

TensorType infer_triangular_solve(const TensorType& a, const TensorType& b, bool left_side) {
  constexpr std::string_view op = "triangular_solve";
  // (C1)
  if (a.dtype != b.dtype || !(is_float(a.dtype) || is_complex(a.dtype)))
    detail::fail(op, "C1", "a {} and b {} must share a float or complex element type",
                 a.to_string(), b.to_string());
  // (C2)
  if (a.rank() < 2 || a.rank() != b.rank())
    detail::fail(op, "C2", "a {} and b {} must have the same rank >= 2", a.to_string(),
                 b.to_string());
  size_t r = static_cast<size_t>(a.rank());
  // (C3)
  for (size_t i = 0; i + 2 < r; ++i)
    if (!detail::dim_compatible(a.dims[i], b.dims[i]))
      detail::fail(op, "C3", "batch dims differ: a {}, b {}", a.to_string(), b.to_string());
  // (C4)
  int64_t k = b.dims[left_side ? r - 2 : r - 1];
  if (!detail::dim_compatible(a.dims[r - 2], a.dims[r - 1]) ||
      !detail::dim_compatible(a.dims[r - 1], k))
    detail::fail(op, "C4", "a {} must be square and match b {} in dim {}", a.to_string(),
                 b.to_string(), left_side ? -2 : -1);
  return b;
}

TensorType infer_cholesky(const TensorType& a) {
  constexpr std::string_view op = "cholesky";
  if (!(is_float(a.dtype) || is_complex(a.dtype)))
    detail::fail(op, "C1", "a {} must have a float or complex element type", a.to_string());
  // (C2)
  if (a.rank() < 2) detail::fail(op, "C2", "a {} must have rank >= 2", a.to_string());
  // (C3)
  size_t r = static_cast<size_t>(a.rank());
  if (!detail::dim_compatible(a.dims[r - 2], a.dims[r - 1]))
    detail::fail(op, "C3", "a {} must be square in its last two dims", a.to_string());
  return a;
}

Value triangular_solve(Value a, Value b, const TriangularSolveOptions& o, Loc loc) {
  Value ops[] = {a, b};
  Func& f = detail::func_of("triangular_solve", ops);
  TensorType t = infer_triangular_solve(a.type(), b.type(), o.left_side);
  return f.append({"stablehlo.triangular_solve",
                   {a, b},
                   {t},
                   {{"left_side", BoolAttr{o.left_side}},
                    {"lower", BoolAttr{o.lower}},
                    {"unit_diagonal", BoolAttr{o.unit_diagonal}},
                    {"transpose_a", o.transpose_a}},
                   {},
                   Location::from(loc)})[0];
}

Value cholesky(Value a, bool lower, Loc loc) {
  Value ops[] = {a};
  Func& f = detail::func_of("cholesky", ops);
  TensorType t = infer_cholesky(a.type());
  return f.append(
      {"stablehlo.cholesky", {a}, {t}, {{"lower", BoolAttr{lower}}}, {}, Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_triangular_solve_op(const detail::OpInfo& op) {
  op.need(2);
  return {
      infer_triangular_solve(op.operands[0], op.operands[1], op.get<BoolAttr>("left_side").value)};
}

std::vector<TensorType> infer_cholesky_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_cholesky(op.operands[0])};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.cholesky", infer_cholesky_op},
    {"stablehlo.triangular_solve", infer_triangular_solve_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::linalg_ops() { return kOps; }

}  // namespace hhlo
