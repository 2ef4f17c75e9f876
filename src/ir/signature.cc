// Function signatures of a (parsed) module, for entry selection and argument checks.
#include <fmt/format.h>

#include "hhlo/ir/parser.h"

namespace hhlo {
namespace {
const Attribute* find_attr(const std::vector<std::vector<NamedAttr>>& lists, size_t i,
                           std::string_view name) {
  if (i >= lists.size()) return nullptr;
  for (const auto& a : lists[i])
    if (a.name == name) return &a.value;
  return nullptr;
}
}  // namespace

const Attribute* FuncSignature::arg_attr(size_t i, std::string_view name) const {
  return find_attr(arg_attrs, i, name);
}
const Attribute* FuncSignature::result_attr(size_t i, std::string_view name) const {
  return find_attr(result_attrs, i, name);
}

FuncSignature signature(const Func& f) {
  if (!f.returned()) throw Error(fmt::format("signature: function @{} has no return", f.name()));
  FuncSignature s;
  s.name = f.name();
  s.visibility = f.visibility();
  s.arg_types = f.arg_types();
  s.result_types = f.result_types();
  for (size_t i = 0; i < s.arg_types.size(); ++i) s.arg_attrs.push_back(f.arg_attrs(i));
  for (size_t i = 0; i < s.result_types.size(); ++i) {
    s.result_attrs.push_back(f.result_attrs(i));
    const Attribute* info = s.result_attr(i, "jax.result_info");
    const StringAttr* str = info ? info->get_if<StringAttr>() : nullptr;
    s.result_names.push_back(str ? str->value : std::string());
  }
  return s;
}

std::vector<FuncSignature> public_functions(const Module& module) {
  std::vector<FuncSignature> out;
  for (const auto& f : module.funcs())
    if (f->visibility() == Visibility::public_) out.push_back(signature(*f));
  return out;
}

const Func& entry_function(const Module& module, std::string_view name) {
  if (const Func* f = module.find(name)) return *f;
  std::string names;
  for (const auto& f : module.funcs())
    if (f->visibility() == Visibility::public_) names += (names.empty() ? "@" : ", @") + f->name();
  throw Error(fmt::format("no function @{} in the module (public functions: {})", name,
                          names.empty() ? "none" : names));
}

}  // namespace hhlo
