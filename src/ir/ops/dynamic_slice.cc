// dynamic_slice and dynamic_update_slice: slices at run-time start indices.
#include <limits>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"
#include "start_indices.h"

namespace hhlo {
namespace {

void check_start_indices(std::string_view op, std::string_view count_c, std::string_view same_c,
                         std::span<const TensorType> si, int64_t rank) {
  if (static_cast<int64_t>(si.size()) != rank)
    detail::fail(op, count_c, "{} start indices given, operand rank is {}", si.size(), rank);
  for (size_t i = 0; i < si.size(); ++i) {
    if (si[i].rank() != 0 || !is_integer(si[i].dtype))
      detail::fail(op, count_c, "start index {} {} must be a scalar integer", i, si[i].to_string());
    if (si[i].dtype != si[0].dtype)
      detail::fail(op, same_c, "start index {} {} differs in type from start index 0 {}", i,
                   si[i].to_string(), si[0].to_string());
  }
}

/// The start indices made signed (start_indices.h): index d clamped to dims[d] - sizes[d], the
/// largest start the op can use (unknown when either is dynamic).
std::vector<Value> signed_starts(const std::vector<Value>& start_indices, const Dims& dims,
                                 std::span<const int64_t> sizes, Loc loc) {
  std::vector<Value> out;
  for (size_t d = 0; d < start_indices.size(); ++d) {
    int64_t bound = dims[d] == kDynamic || sizes[d] == kDynamic
                        ? std::numeric_limits<int64_t>::max()
                        : dims[d] - sizes[d];
    out.push_back(detail::signed_start_index(start_indices[d], bound, loc));
  }
  return out;
}

}  // namespace

TensorType infer_dynamic_slice(const TensorType& operand, std::span<const TensorType> si,
                               std::span<const int64_t> slice_sizes) {
  constexpr std::string_view op = "dynamic_slice";
  // (C2), (C3)
  check_start_indices(op, "C2", "C3", si, operand.rank());
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank())
    detail::fail(op, "C2", "slice_sizes {} must have rank(operand) = {} entries",
                 detail::list(slice_sizes), operand.rank());
  // (C4)
  for (size_t d = 0; d < slice_sizes.size(); ++d)
    if (slice_sizes[d] < 0 || (operand.dims[d] != kDynamic && slice_sizes[d] > operand.dims[d]))
      detail::fail(op, "C4", "slice size {} of dim {} outside [0, {}] for {}", slice_sizes[d], d,
                   operand.dims[d], operand.to_string());
  return TensorType{operand.dtype, Dims(slice_sizes.begin(), slice_sizes.end())};
}

TensorType infer_dynamic_update_slice(const TensorType& operand, const TensorType& update,
                                      std::span<const TensorType> si) {
  constexpr std::string_view op = "dynamic_update_slice";
  // (C2)
  if (update.dtype != operand.dtype)
    detail::fail(op, "C2", "update {} and operand {} differ in element type", update.to_string(),
                 operand.to_string());
  // (C3)
  if (update.rank() != operand.rank())
    detail::fail(op, "C3", "update {} and operand {} differ in rank", update.to_string(),
                 operand.to_string());
  // (C4), (C5)
  check_start_indices(op, "C4", "C5", si, operand.rank());
  // (C6)
  for (size_t d = 0; d < update.dims.size(); ++d)
    if (operand.dims[d] != kDynamic && update.dims[d] > operand.dims[d])
      detail::fail(op, "C6", "update {} is larger than operand {} in dim {}", update.to_string(),
                   operand.to_string(), d);
  return operand;
}

Value dynamic_slice(Value operand, const std::vector<Value>& start_indices,
                    std::vector<int64_t> slice_sizes, Loc loc) {
  std::vector<Value> all = {operand};
  all.insert(all.end(), start_indices.begin(), start_indices.end());
  Func& f = detail::func_of("dynamic_slice", all);
  TensorType t = infer_dynamic_slice(operand.type(), detail::types_of(start_indices), slice_sizes);
  all = {operand};
  for (Value v : signed_starts(start_indices, operand.type().dims, slice_sizes, loc))
    all.push_back(v);
  return f.append({"stablehlo.dynamic_slice",
                   all,
                   {t},
                   {{"slice_sizes", i64_array(std::move(slice_sizes))}},
                   {},
                   Location::from(loc)})[0];
}

Value dynamic_update_slice(Value operand, Value update, const std::vector<Value>& start_indices,
                           Loc loc) {
  std::vector<Value> all = {operand, update};
  all.insert(all.end(), start_indices.begin(), start_indices.end());
  Func& f = detail::func_of("dynamic_update_slice", all);
  TensorType t =
      infer_dynamic_update_slice(operand.type(), update.type(), detail::types_of(start_indices));
  all = {operand, update};
  for (Value v : signed_starts(start_indices, operand.type().dims, update.type().dims, loc))
    all.push_back(v);
  return f.append({"stablehlo.dynamic_update_slice", all, {t}, {}, {}, Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

std::vector<TensorType> infer_dynamic_slice_op(const detail::OpInfo& op) {
  const std::vector<TensorType>& in = op.operands;
  return {infer_dynamic_slice(in.at(0), std::span(in).subspan(1), op.i64s("slice_sizes"))};
}

std::vector<TensorType> infer_dynamic_update_slice_op(const detail::OpInfo& op) {
  const std::vector<TensorType>& in = op.operands;
  return {infer_dynamic_update_slice(in.at(0), in.at(1), std::span(in).subspan(2))};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.dynamic_slice", infer_dynamic_slice_op},
    {"stablehlo.dynamic_update_slice", infer_dynamic_update_slice_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::dynamic_slice_ops() { return kOps; }

}  // namespace hhlo
