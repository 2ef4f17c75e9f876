// Entry selection and the jax.export platform-index argument (hhlo/ir/entry.h).
#include "hhlo/ir/entry.h"

#include <fmt/format.h>

#include <functional>
#include <vector>

#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

std::string public_names(const Module& m) {
  std::string names;
  for (const auto& f : m.funcs())
    if (f->visibility() == Visibility::public_) names += (names.empty() ? "@" : ", @") + f->name();
  return names.empty() ? "none" : names;
}

/// `base_N` for the first N such that no function has that name.
std::string free_name(const Module& m, const std::string& base) {
  for (int n = 0;; ++n) {
    std::string name = fmt::format("{}_{}", base, n);
    if (!m.find(name)) return name;
  }
}

bool uses(const Block& b, const Value& v) {
  for (const auto& op : b.ops()) {
    for (const Value& o : op->operands())
      if (o == v) return true;
    for (const auto& r : op->regions())
      if (uses(*r, v)) return true;
  }
  return false;
}

}  // namespace

std::string resolve_entry(const Module& module, std::string_view requested) {
  if (!requested.empty()) {
    const Func* f = module.find(requested);
    if (!f || f->visibility() != Visibility::public_)
      throw Error(fmt::format("the module has no public function @{} (public functions: {})",
                              requested, public_names(module)));
    return f->name();
  }
  if (module.find("main")) return "main";
  std::vector<const Func*> publics;
  for (const auto& f : module.funcs())
    if (f->visibility() == Visibility::public_) publics.push_back(f.get());
  if (publics.size() != 1)
    throw Error(fmt::format(
        "the module has no @main and {} public functions ({}): choose one (--entry NAME; "
        "PrepareOptions::entry)",
        publics.size(), public_names(module)));
  return publics[0]->name();
}

std::string select_entry(Module& module, std::string_view requested) {
  std::string entry = resolve_entry(module, requested);
  if (entry == "main") return entry;
  if (Func* main = module.find("main")) {
    std::string moved = free_name(module, "main");
    main->set_visibility(Visibility::private_);
    module.rename_func("main", moved);
  }
  module.rename_func(entry, "main");
  return entry;
}

bool uses_argument(const Func& f, size_t i) { return uses(f.body(), f.args().at(i)); }

bool has_platform_index(const Func& f) {
  if (f.arg_types().empty()) return false;
  const TensorType& t = f.arg_types()[0];
  if (t.rank() != 0 || !is_integer(t.dtype)) return false;
  for (const NamedAttr& a : f.arg_attrs(0)) {
    const StringAttr* s = a.value.get_if<StringAttr>();
    if (a.name == "jax.global_constant" && s && s->value == "_platform_index") return true;
  }
  return false;
}

void bind_platform_index(Module& module, int64_t index) {
  Func* old = module.find("main");
  if (!old) throw Error("bind_platform_index: the module has no @main");
  if (!has_platform_index(*old))
    throw Error(
        "bind_platform_index: @main's first argument is not a jax.export platform index "
        "(jax.global_constant = \"_platform_index\")");
  if (index < 0) throw Error(fmt::format("bind_platform_index: negative index {}", index));
  std::string moved = free_name(module, "main");
  old->set_visibility(Visibility::private_);
  module.rename_func("main", moved);
  const Func& callee = *module.find(moved);
  std::vector<TensorType> types(callee.arg_types().begin() + 1, callee.arg_types().end());
  Func& main = module.add_func("main", types);
  std::vector<Value> args{constant(main, Scalar(index), callee.arg_types()[0].dtype)};
  for (size_t i = 1; i < callee.arg_types().size(); ++i) {
    args.push_back(main.arg(i - 1));
    for (const NamedAttr& a : callee.arg_attrs(i)) main.set_arg_attr(i - 1, a);
  }
  main.ret(call(callee, args));
  for (size_t r = 0; r < callee.result_types().size(); ++r)
    for (const NamedAttr& a : callee.result_attrs(r)) main.set_result_attr(r, a);
}

void bind_platform_index(Module& module, std::optional<int64_t> index, std::string_view source) {
  const Func* main = module.find("main");
  if (!index && main && has_platform_index(*main) && uses_argument(*main, 0))
    throw Error(fmt::format(
        "{} is a multi-platform jax.export whose code depends on its _platform_index "
        "argument: give the export's platforms in order (PrepareOptions::export_platforms, "
        "`hhlo run --export-platforms cpu,cuda`; JAX's Exported.platforms)",
        source.empty() ? std::string("the program") : fmt::format("'{}'", source)));
  bind_platform_index(module, index.value_or(0));
}

}  // namespace hhlo
