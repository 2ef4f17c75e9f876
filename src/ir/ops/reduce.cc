// reduce: reduction of N inputs along dimensions with an arbitrary body.
#include <algorithm>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

std::vector<TensorType> infer_reduce(std::span<const TensorType> inputs,
                                     std::span<const TensorType> inits,
                                     std::span<const int64_t> dimensions) {
  constexpr std::string_view op = "reduce";
  // (C3)
  if (inputs.empty() || inputs.size() != inits.size())
    detail::fail(op, "C3", "needs N > 0 inputs and N init_values; got {} inputs, {} init_values",
                 inputs.size(), inits.size());
  // (C1)
  for (size_t i = 1; i < inputs.size(); ++i)
    if (!detail::dims_compatible(inputs[i].dims, inputs[0].dims))
      detail::fail(op, "C1", "input {} {} and input 0 {} differ in shape", i, inputs[i].to_string(),
                   inputs[0].to_string());
  // (C2)
  for (size_t i = 0; i < inits.size(); ++i)
    if (inits[i].rank() != 0 || inits[i].dtype != inputs[i].dtype)
      detail::fail(op, "C2", "init_value {} {} must be a scalar of input {}'s element type {}", i,
                   inits[i].to_string(), i, mlir_name(inputs[i].dtype));
  // (C4), (C5)
  detail::check_in_range(op, "C4", "dimensions", dimensions, inputs[0].rank());
  detail::check_unique(op, "C5", "dimensions", dimensions);
  std::vector<TensorType> out;
  for (const TensorType& t : inputs) {
    Dims dims;
    for (int64_t d = 0; d < t.rank(); ++d)
      if (std::find(dimensions.begin(), dimensions.end(), d) == dimensions.end())
        dims.push_back(t.dims[static_cast<size_t>(d)]);
    out.push_back(TensorType{t.dtype, dims});
  }
  return out;
}

std::vector<Value> reduce(const std::vector<Value>& inputs, const std::vector<Value>& inits,
                          std::vector<int64_t> dimensions, const RegionBody& body, Loc loc) {
  std::vector<Value> all = inputs;
  all.insert(all.end(), inits.begin(), inits.end());
  Func& f = detail::func_of("reduce", all);
  std::vector<TensorType> results =
      infer_reduce(detail::types_of(inputs), detail::types_of(inits), dimensions);
  std::vector<TensorType> scalars = detail::types_of(inits);
  std::vector<TensorType> args = scalars;
  args.insert(args.end(), scalars.begin(), scalars.end());
  Location l = Location::from(loc);
  auto region = f.build_region("reduce", args, body, l);
  // (C6)
  check_region_results("reduce", "C6", region->returned_types(), scalars);
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(std::move(region));
  return f.append({"stablehlo.reduce",
                   all,
                   results,
                   {{"dimensions", i64_array(std::move(dimensions))}},
                   std::move(regions),
                   l});
}

Value reduce(Value input, Value init, std::vector<int64_t> dimensions,
             const std::function<Value(Value, Value)>& body, Loc loc) {
  return reduce(
      std::vector<Value>{input}, std::vector<Value>{init}, std::move(dimensions),
      [&](const std::vector<Value>& a) { return std::vector<Value>{body(a[0], a[1])}; }, loc)[0];
}

// Descriptors (op_descriptor.h): the shape rule on a recorded op.
namespace {

std::vector<TensorType> infer_reduce_op(const detail::OpInfo& op) {
  const std::vector<TensorType>& in = op.operands;
  size_t nin = in.size() / 2;
  std::vector<TensorType> inputs(in.begin(), in.begin() + static_cast<long>(nin)),
      inits(in.begin() + static_cast<long>(nin), in.end());
  auto out = infer_reduce(inputs, inits, op.i64s("dimensions"));
  auto sc = detail::scalar_types(inits), args = sc;
  args.insert(args.end(), sc.begin(), sc.end());
  op.region_sig(0, args, sc, "C6");
  return out;
}

constexpr detail::OpDescriptor kOps[] = {{"stablehlo.reduce", infer_reduce_op}};

}  // namespace

std::span<const detail::OpDescriptor> detail::reduce_ops() { return kOps; }

}  // namespace hhlo
