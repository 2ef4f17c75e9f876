// Helpers shared by all op builders.
#include <fmt/format.h>

#include "hhlo/ir/ops.h"

namespace hhlo::detail {

Func& func_of(std::string_view op, std::span<const Value> operands) {
  if (operands.empty()) throw Error(fmt::format("op '{}': needs at least one operand", op));
  for (size_t i = 0; i < operands.size(); ++i)
    if (!operands[i].valid())
      throw Error(
          fmt::format("op '{}': operand {} is an invalid (default-constructed) Value", op, i));
  Func& f = operands[0].func();
  f.check_operands(op, operands);
  return f;
}

namespace {
template <typename Values>
std::vector<TensorType> types_of_values(const Values& values) {
  std::vector<TensorType> out;
  out.reserve(values.size());
  for (const Value& v : values) out.push_back(v.type());
  return out;
}
}  // namespace

std::vector<TensorType> types_of(std::span<const Value> values) { return types_of_values(values); }
std::vector<TensorType> types_of(const ValueRange& values) { return types_of_values(values); }

}  // namespace hhlo::detail
