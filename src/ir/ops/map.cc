// map: a scalar computation applied elementwise.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

Value map(const std::vector<Value>& inputs, const RegionBody& computation, Loc loc) {
  constexpr std::string_view op = "map";
  // (C2)
  if (inputs.empty()) detail::fail(op, "C2", "needs at least one input");
  Func& f = detail::func_of(op, inputs);
  std::vector<TensorType> types = detail::types_of(inputs);
  // (C1)
  for (size_t i = 1; i < types.size(); ++i)
    if (!detail::dims_compatible(types[i].dims, types[0].dims))
      detail::fail(op, "C1", "input {} {} and input 0 {} differ in shape", i, types[i].to_string(),
                   types[0].to_string());
  std::vector<TensorType> args;
  for (const TensorType& t : types) args.push_back({t.dtype, {}});
  Location l = Location::from(loc);
  auto region = f.build_region(op, args, computation, l);
  // (C4)
  auto ret = region->returned_types();
  if (ret.size() != 1 || ret[0].rank() != 0)
    detail::fail(op, "C4", "computation returns {}, expected one scalar", types_to_string(ret));
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < types[0].rank(); ++i) dims.push_back(i);
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(std::move(region));
  // (C3), (C5)
  return f.append({"stablehlo.map",
                   inputs,
                   {TensorType{ret[0].dtype, types[0].dims}},
                   {{"dimensions", i64_array(std::move(dims))}},
                   std::move(regions),
                   l})[0];
}

// Descriptors (op_descriptor.h): the shape rule on a recorded op.
namespace {

std::vector<TensorType> infer_map_op(const detail::OpInfo& op) {
  const std::vector<TensorType>& in = op.operands;
  if (op.regions->empty()) detail::fail_struct("needs a computation region");
  auto ret = (*op.regions)[0]->returned_types();
  if (in.empty() || ret.size() != 1)
    detail::fail("map", "C4", "computation must return one scalar");
  op.region_sig(0, detail::scalar_types(in), ret, "C4");
  return {TensorType{ret[0].dtype, in[0].dims}};
}

constexpr detail::OpDescriptor kOps[] = {{"stablehlo.map", infer_map_op}};

}  // namespace

std::span<const detail::OpDescriptor> detail::map_ops() { return kOps; }

}  // namespace hhlo
