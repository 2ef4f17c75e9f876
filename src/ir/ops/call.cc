// func.call between functions of one module.
#include "../infer_util.h"
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

}  // namespace hhlo
