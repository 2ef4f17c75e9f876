// broadcast_in_dim, reshape, transpose: ops that rearrange a tensor without computing.
#include <algorithm>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

TensorType infer_broadcast_in_dim(const TensorType& operand, const Dims& result_dims,
                                  std::span<const int64_t> bdims) {
  constexpr std::string_view op = "broadcast_in_dim";
  int64_t rank = static_cast<int64_t>(result_dims.size());
  // (C2)
  if (static_cast<int64_t>(bdims.size()) != operand.rank())
    detail::fail(op, "C2", "broadcast_dimensions {} has {} entries, operand {} has rank {}",
                 detail::list(bdims), bdims.size(), operand.to_string(), operand.rank());
  // (C3)
  detail::check_in_range(op, "C3", "broadcast_dimensions", bdims, rank);
  // (C4)
  detail::check_unique(op, "C4", "broadcast_dimensions", bdims);
  // (C5)
  for (size_t d = 0; d < bdims.size(); ++d) {
    int64_t od = operand.dims[d], rd = result_dims[static_cast<size_t>(bdims[d])];
    if (od != 1 && !detail::dim_compatible(od, rd))
      detail::fail(op, "C5",
                   "operand {} dim {} has size {}, result dim {} has size {}; it must be "
                   "1 or equal",
                   operand.to_string(), d, od, bdims[d], rd);
  }
  return TensorType{operand.dtype, result_dims};
}

TensorType infer_reshape(const TensorType& operand, const Dims& result_dims) {
  TensorType result{operand.dtype, result_dims};
  // (C2); a count that overflows 64 bits is no valid size on either side.
  if (operand.is_static() && result.is_static()) {
    for (const TensorType* t : {&operand, static_cast<const TensorType*>(&result)}) {
      int64_t n = 1;
      bool overflow = false;
      for (int64_t d : t->dims) overflow |= __builtin_mul_overflow(n, d, &n);
      if (overflow && std::find(t->dims.begin(), t->dims.end(), 0) == t->dims.end())
        detail::fail("reshape", "C2", "{} has more elements than a 64-bit count holds",
                     t->to_string());
    }
  }
  if (operand.is_static() && result.is_static() && operand.num_elements() != result.num_elements())
    detail::fail("reshape", "C2", "operand {} has {} elements, result {} has {}",
                 operand.to_string(), operand.num_elements(), result.to_string(),
                 result.num_elements());
  return result;
}

TensorType infer_transpose(const TensorType& operand, std::span<const int64_t> perm) {
  // (C2)
  std::vector<int64_t> sorted(perm.begin(), perm.end());
  std::sort(sorted.begin(), sorted.end());
  bool ok = static_cast<int64_t>(perm.size()) == operand.rank();
  for (size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int64_t>(i);
  if (!ok)
    detail::fail("transpose", "C2", "permutation {} is not a permutation of [0, {}) for {}",
                 detail::list(perm), operand.rank(), operand.to_string());
  Dims dims;
  for (int64_t p : perm) dims.push_back(operand.dims[static_cast<size_t>(p)]);
  return TensorType{operand.dtype, dims};
}

Value broadcast_in_dim(Value operand, Dims result_dims, std::vector<int64_t> bdims, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("broadcast_in_dim", ops);
  TensorType t = infer_broadcast_in_dim(operand.type(), result_dims, bdims);
  return f.append({"stablehlo.broadcast_in_dim",
                   {operand},
                   {t},
                   {{"broadcast_dimensions", i64_array(std::move(bdims))}},
                   {},
                   Location::from(loc)})[0];
}

Value reshape(Value operand, Dims result_dims, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("reshape", ops);
  TensorType t = infer_reshape(operand.type(), result_dims);
  return f.append({"stablehlo.reshape", {operand}, {t}, {}, {}, Location::from(loc)})[0];
}

Value transpose(Value operand, std::vector<int64_t> permutation, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("transpose", ops);
  TensorType t = infer_transpose(operand.type(), permutation);
  return f.append({"stablehlo.transpose",
                   {operand},
                   {t},
                   {{"permutation", i64_array(std::move(permutation))}},
                   {},
                   Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_broadcast_in_dim_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_broadcast_in_dim(op.operands[0], op.results.at(0).dims,
                                 op.i64s("broadcast_dimensions"))};
}

std::vector<TensorType> infer_reshape_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_reshape(op.operands[0], op.results.at(0).dims)};
}

std::vector<TensorType> infer_transpose_op(const detail::OpInfo& op) {
  op.need(1);
  return {infer_transpose(op.operands[0], op.i64s("permutation"))};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.broadcast_in_dim", infer_broadcast_in_dim_op},
    {"stablehlo.reshape", infer_reshape_op},
    {"stablehlo.transpose", infer_transpose_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::shape_ops() { return kOps; }

}  // namespace hhlo
