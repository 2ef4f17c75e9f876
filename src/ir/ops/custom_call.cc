// custom_call: calls into user kernels (legacy ABI 1..3 or typed FFI 4).
#include <algorithm>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

void check_layouts(std::string_view what, const std::vector<std::vector<int64_t>>& layouts,
                   std::span<const TensorType> types) {
  if (layouts.size() != types.size())
    detail::fail("custom_call", "", "{} has {} entries for {} values", what, layouts.size(),
                 types.size());
  for (size_t i = 0; i < layouts.size(); ++i) {
    std::vector<int64_t> s = layouts[i];
    std::sort(s.begin(), s.end());
    bool ok = static_cast<int64_t>(s.size()) == types[i].rank();
    for (size_t k = 0; ok && k < s.size(); ++k) ok = s[k] == static_cast<int64_t>(k);
    if (!ok)
      detail::fail("custom_call", "", "{} entry {} {} is not a permutation of the dims of {}", what,
                   i, detail::list(layouts[i]), types[i].to_string());
  }
}

}  // namespace

std::vector<Value> custom_call(Func& f, std::string target, const std::vector<Value>& operands,
                               const std::vector<TensorType>& result_types,
                               const CustomCallOptions& o, Loc loc) {
  constexpr std::string_view op = "custom_call";
  if (!operands.empty()) detail::func_of(op, operands);
  f.check_operands(op, operands);
  if (target.empty()) detail::fail(op, "", "call_target_name is empty");
  if (o.api_version < 1 || o.api_version > 4)
    detail::fail(op, "", "api_version {} outside 1..4", o.api_version);
  bool is_dict = std::holds_alternative<DictAttr>(o.backend_config);
  if (o.api_version == 4 && !is_dict && !std::get<std::string>(o.backend_config).empty())
    detail::fail(op, "",
                 "api_version 4 (typed FFI) takes backend_config as a dictionary, got a "
                 "string; pass a DictAttr");
  if (o.api_version < 4 && is_dict && !std::get<DictAttr>(o.backend_config).entries.empty())
    detail::fail(op, "", "api_version {} takes backend_config as a string, got a dictionary",
                 o.api_version);
  if (o.operand_layouts.empty() != o.result_layouts.empty())
    detail::fail(op, "", "operand_layouts and result_layouts must be given together");
  std::vector<NamedAttr> attrs = {{"call_target_name", StringAttr{target}},
                                  {"api_version", i32_attr(o.api_version)},
                                  {"has_side_effect", BoolAttr{o.has_side_effect}}};
  if (o.api_version == 4) {
    attrs.push_back(
        {"backend_config", is_dict ? std::get<DictAttr>(o.backend_config) : DictAttr{}});
  } else {
    attrs.push_back(
        {"backend_config",
         StringAttr{is_dict ? std::string() : std::get<std::string>(o.backend_config)}});
  }
  if (!o.operand_layouts.empty()) {
    check_layouts("operand_layouts", o.operand_layouts, detail::types_of(operands));
    check_layouts("result_layouts", o.result_layouts, result_types);
    attrs.push_back({"operand_layouts", LayoutsAttr{o.operand_layouts}});
    attrs.push_back({"result_layouts", LayoutsAttr{o.result_layouts}});
  }
  return f.append(
      {"stablehlo.custom_call", operands, result_types, std::move(attrs), {}, Location::from(loc)});
}

// Descriptors (op_descriptor.h): the rule on a recorded op.
namespace {

std::vector<TensorType> infer_custom_call_op(const detail::OpInfo& op) {
  op.get<StringAttr>("call_target_name");
  return op.results;  // result types are the caller's declaration
}

constexpr detail::OpDescriptor kOps[] = {{"stablehlo.custom_call", infer_custom_call_op}};

}  // namespace

std::span<const detail::OpDescriptor> detail::custom_call_ops() { return kOps; }

}  // namespace hhlo
