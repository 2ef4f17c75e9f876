// The module copy of the program stage's rewrites (main_copy.h).
#include "main_copy.h"

#include <fmt/format.h>

#include "hhlo/core/error.h"

namespace hhlo::detail {

Module copy_main(const Module& module, const InlineRewrite& rewrite, std::string_view who,
                 RewriteScope scope) {
  const Func* main = module.find("main");
  if (!main || !main->returned())
    throw Error(fmt::format("{}: the module has no @main that returns", who));
  Module out;
  out.set_name(module.name());
  for (const NamedAttr& a : module.attrs()) out.set_attr(a);
  for (const auto& [name, mesh] : module.meshes()) out.add_mesh(name, mesh);
  Func& f = out.add_func("main", main->arg_types());
  for (const NamedAttr& a : main->attrs()) f.set_attr(a);
  for (size_t i = 0; i < main->args().size(); ++i)
    for (const NamedAttr& a : main->arg_attrs(i)) f.set_arg_attr(i, a);
  // At the entry's own func.return location (ret would record this file's).
  f.ret_at(inline_call(f, module, "main", f.args(), rewrite, scope),
           main->body().ops().back()->loc());
  for (size_t i = 0; i < main->result_types().size(); ++i)
    for (const NamedAttr& a : main->result_attrs(i)) f.set_result_attr(i, a);
  return out;
}

}  // namespace hhlo::detail
