// A program's entry batched by vmap (hhlo/program/vmap_main.h).
#include "hhlo/program/vmap_main.h"

#include "hhlo/autodiff/vmap.h"

namespace hhlo {

void vmap_main(Module& module, int64_t batch) {
  if (batch < 1) throw Error("vmap_main: batch size " + std::to_string(batch) + " is below 1");
  if (module.find("main") == nullptr) throw Error("vmap_main: the module has no @main");
  std::string per_example = "main";
  for (int i = 0; module.find(per_example) != nullptr; ++i)
    per_example = "main_per_example" + (i ? "_" + std::to_string(i) : std::string());
  module.rename_func("main", per_example);
  Func& example = *module.find(per_example);
  example.set_visibility(Visibility::private_);
  std::vector<TensorType> types;
  for (const TensorType& t : example.arg_types()) {
    if (!t.is_static())
      throw Error("vmap_main: @main's argument type " + t.to_string() +
                  " is dynamic; batching by vmap needs static per-example types");
    Dims dims = {batch};
    dims.insert(dims.end(), t.dims.begin(), t.dims.end());
    types.push_back(TensorType{t.dtype, dims});
  }
  Func& main = module.add_func("main", types);
  for (std::size_t i = 0; i < types.size(); ++i)
    for (const NamedAttr& a : example.arg_attrs(i)) main.set_arg_attr(i, a);
  std::vector<Value> results = ad::vmap(example, main.args(), {}, {}, &module);
  main.ret_at(results, Location{});  // no source position: the rewrite has none of its own
  for (std::size_t j = 0; j < results.size(); ++j)
    for (const NamedAttr& a : example.result_attrs(j)) main.set_result_attr(j, a);
  module.erase_unreferenced_funcs(0);
}

}  // namespace hhlo
