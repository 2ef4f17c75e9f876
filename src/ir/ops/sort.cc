// sort: N operands sorted together along one dimension by a comparator region.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

std::vector<TensorType> infer_sort(std::span<const TensorType> inputs, int64_t dimension) {
  constexpr std::string_view op = "sort";
  // (C1)
  if (inputs.empty()) detail::fail(op, "C1", "needs at least one input");
  // (C3)
  for (size_t i = 1; i < inputs.size(); ++i)
    if (!detail::dims_compatible(inputs[i].dims, inputs[0].dims))
      detail::fail(op, "C3", "input {} {} and input 0 {} differ in shape", i, inputs[i].to_string(),
                   inputs[0].to_string());
  // (C4)
  int64_t r = inputs[0].rank();
  if (dimension < -r || dimension >= r)
    detail::fail(op, "C4", "dimension {} outside [-{}, {}) for {}", dimension, r, r,
                 inputs[0].to_string());
  return {inputs.begin(), inputs.end()};
}

std::vector<Value> sort(const std::vector<Value>& inputs, int64_t dimension,
                        const RegionBody& comparator, bool is_stable, Loc loc) {
  if (inputs.empty()) detail::fail("sort", "C1", "needs at least one input");
  Func& f = detail::func_of("sort", inputs);
  std::vector<TensorType> results = infer_sort(detail::types_of(inputs), dimension);
  std::vector<TensorType> args;
  for (const TensorType& t : results) {
    args.push_back({t.dtype, {}});
    args.push_back({t.dtype, {}});
  }
  Location l = Location::from(loc);
  auto region = f.build_region("sort", args, comparator, l);
  // (C5)
  TensorType pred{DType::pred, {}};
  check_region_results("sort", "C5", region->returned_types(), std::span(&pred, 1));
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(std::move(region));
  return f.append({"stablehlo.sort",
                   inputs,
                   results,
                   {{"dimension", i64_attr(dimension)}, {"is_stable", BoolAttr{is_stable}}},
                   std::move(regions),
                   l});
}

// Descriptors (op_descriptor.h): the shape rule on a recorded op.
namespace {

std::vector<TensorType> infer_sort_op(const detail::OpInfo& op) {
  const std::vector<TensorType>& in = op.operands;
  auto out = infer_sort(in, op.integer("dimension"));
  std::vector<TensorType> args;
  for (const auto& t : in) args.insert(args.end(), 2, TensorType{t.dtype, {}});
  op.region_sig(0, args, {TensorType{DType::pred, {}}}, "C5");
  return out;
}

constexpr detail::OpDescriptor kOps[] = {{"stablehlo.sort", infer_sort_op}};

}  // namespace

std::span<const detail::OpDescriptor> detail::sort_ops() { return kOps; }

}  // namespace hhlo
