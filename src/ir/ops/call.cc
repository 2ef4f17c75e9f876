// func.call between functions of one module, and stablehlo.composite (a named op whose meaning
// is a function of the module).
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

std::vector<Value> call(const Func& callee, const std::vector<Value>& args, Loc loc) {
  if (args.empty())
    throw Error(
        "op 'call': calls without arguments are not supported by call(); give the "
        "callee at least one parameter");
  Func& f = detail::func_of("call", args);
  if (!f.same_module(callee))
    throw Error("op 'call': callee @" + callee.name() + " belongs to another Module than caller @" +
                f.name());
  if (!callee.returned())
    throw Error("op 'call': callee @" + callee.name() + " has not returned yet (call ret() first)");
  std::vector<TensorType> types = detail::types_of(args);
  if (types != callee.arg_types())
    detail::fail("call", "", "arguments {} do not match @{} parameters {}", types_to_string(types),
                 callee.name(), types_to_string(callee.arg_types()));
  return f.append({"func.call",
                   args,
                   callee.result_types(),
                   {{"callee", SymbolRefAttr{callee.name()}}},
                   {},
                   Location::from(loc)});
}

std::vector<Value> composite(std::string name, const std::vector<Value>& inputs,
                             const Func& decomposition, DictAttr composite_attributes,
                             int32_t version, Loc loc) {
  // (C1) is_namespaced_op_name(name): "dialect.op", neither part empty.
  size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size())
    detail::fail("composite", "C1", "name \"{}\" is not a namespaced op name (\"dialect.op\")",
                 name);
  if (inputs.empty())
    throw Error(
        "op 'composite': composites without inputs are not supported by composite(); give "
        "the decomposition at least one parameter");
  Func& f = detail::func_of("composite", inputs);
  // (C2) is_defined_in_parent_scope(decomposition).
  if (!f.same_module(decomposition))
    throw Error("op 'composite': decomposition @" + decomposition.name() +
                " belongs to another Module than @" + f.name());
  if (!decomposition.returned())
    throw Error("op 'composite': decomposition @" + decomposition.name() +
                " has not returned yet (call ret() first)");
  // (C3) types(inputs...) == input_types(decomposition).
  std::vector<TensorType> types = detail::types_of(inputs);
  if (types != decomposition.arg_types())
    detail::fail("composite", "C3", "inputs {} do not match @{} parameters {}",
                 types_to_string(types), decomposition.name(),
                 types_to_string(decomposition.arg_types()));
  // (C4) types(results...) == output_types(decomposition).
  return f.append({"stablehlo.composite",
                   inputs,
                   decomposition.result_types(),
                   {{"name", StringAttr{std::move(name)}},
                    {"composite_attributes", std::move(composite_attributes)},
                    {"decomposition", SymbolRefAttr{decomposition.name()}},
                    {"version", IntAttr{version, DType::i32}}},
                   {},
                   Location::from(loc)});
}

// Descriptors (op_descriptor.h). None has a shape rule of its own: the verifier checks func.call
// and stablehlo.composite against their callee and decomposition, and func.return (emitted by
// Func::ret) against the function's result types.
namespace {

constexpr detail::OpDescriptor kOps[] = {
    {"func.call", nullptr},
    {"func.return", nullptr},
    {"stablehlo.composite", nullptr},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::call_ops() { return kOps; }

}  // namespace hhlo
