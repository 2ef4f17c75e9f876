// value_and_grad_module / vjp_module / jvp_module: an imported function inlined into a new
// module, then the reverse or forward walk of autodiff.cc / jvp.cc over it.
#include "hhlo/autodiff/imported.h"

#include <fmt/format.h>

#include <algorithm>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ir/inline.h"
#include "imported_qr.h"
#include "rules/rules.h"

namespace hhlo::ad {
namespace {

const Func& find_entry(const Module& source, const ImportedOptions& o, const char* what) {
  const Func* f = source.find(o.entry);
  if (!f) {
    std::string names;
    for (const auto& g : source.funcs()) names += (names.empty() ? "@" : ", @") + g->name();
    throw Error(fmt::format("{}: no function @{} in the module; it has {}", what, o.entry,
                            names.empty() ? "none" : names));
  }
  if (!f->returned()) throw Error(fmt::format("{}: @{} has not returned", what, o.entry));
  return *f;
}

/// The arguments `wrt` of `f` and the result names of their derivatives, "LABEL[i]".
std::pair<std::vector<Value>, std::vector<std::string>> wrt_args(const Func& f,
                                                                 const std::vector<size_t>& wrt,
                                                                 const char* label) {
  std::vector<Value> w;
  std::vector<std::string> names;
  for (size_t i : wrt) {
    w.push_back(f.arg(i));
    names.push_back(fmt::format("{}[{}]", label, i));
  }
  return {w, names};
}

std::vector<size_t> wrt_indices(const Func& f, const ImportedOptions& o, const char* what) {
  std::vector<size_t> wrt = o.wrt;
  if (wrt.empty()) {
    for (size_t i = 0; i < f.arg_types().size(); ++i)
      if (detail::is_inexact(f.arg_types()[i].dtype)) wrt.push_back(i);
    if (wrt.empty())
      throw Error(fmt::format("{}: @{} has no float argument to differentiate with respect to",
                              what, f.name()));
  }
  for (size_t i : wrt) {
    if (i >= f.arg_types().size())
      throw Error(fmt::format("{}: wrt index {} out of range (@{} has {} arguments)", what, i,
                              f.name(), f.arg_types().size()));
    if (!detail::is_inexact(f.arg_types()[i].dtype))
      throw Error(fmt::format(
          "{}: cannot differentiate with respect to argument {} of @{} of integer type {}; only "
          "f16/bf16/f32/f64 and complex arguments have gradients",
          what, i, f.name(), f.arg_types()[i].to_string()));
  }
  return wrt;
}

// A new module with one function `name` of `types`, module name and attributes from `source`,
// the first entry.args().size() arguments keeping the entry's argument attributes.
Func& new_function(Module& m, const Module& source, const Func& entry,
                   const std::vector<TensorType>& types, const std::string& name) {
  m.set_name(source.name());
  for (const auto& a : source.attrs()) m.set_attr(a);
  Func& f = m.add_func(name, types);
  for (size_t i = 0; i < entry.args().size(); ++i)
    for (const auto& a : entry.arg_attrs(i))
      if (a.name != "tf.aliasing_output" && a.name != "jax.buffer_donor") f.set_arg_attr(i, a);
  return f;
}

void finish(Func& f, const Func& entry, const std::vector<Value>& results,
            const std::vector<std::string>& extra_names) {
  f.ret(results);
  size_t n = entry.result_types().size();
  for (size_t i = 0; i < n; ++i)
    for (const auto& a : entry.result_attrs(i)) f.set_result_attr(i, a);
  for (size_t k = 0; k < extra_names.size(); ++k)
    f.set_result_attr(n + k, {"jax.result_info", StringAttr{extra_names[k]}});
}

}  // namespace

Module value_and_grad_module(const Module& source, const ImportedOptions& o) {
  const char* what = "value_and_grad_module";
  const Func& entry = find_entry(source, o, what);
  std::vector<size_t> wrt = wrt_indices(entry, o, what);
  if (o.loss >= entry.result_types().size())
    throw Error(fmt::format("{}: loss index {} out of range (@{} has {} results)", what, o.loss,
                            entry.name(), entry.result_types().size()));
  const TensorType& lt = entry.result_types()[o.loss];
  if (lt.rank() != 0 || !is_float(lt.dtype))
    throw Error(
        fmt::format("{}: result {} of @{} has type {}; the loss must be a float scalar "
                    "(use vjp_module for other results)",
                    what, o.loss, entry.name(), lt.to_string()));
  Module m;
  Func& f = new_function(m, source, entry, entry.arg_types(), o.name);
  std::vector<Value> results = inline_call(f, source, o.entry, f.args(), detail::jax_qr_rewrite());
  auto [w, names] = wrt_args(f, wrt, "grad");
  std::vector<Value> g = grad(results[o.loss], w);
  results.insert(results.end(), g.begin(), g.end());
  finish(f, entry, results, names);
  return m;
}

Module vjp_module(const Module& source, const ImportedOptions& o) {
  const char* what = "vjp_module";
  const Func& entry = find_entry(source, o, what);
  std::vector<size_t> wrt = wrt_indices(entry, o, what);
  std::vector<TensorType> types = entry.arg_types();
  types.insert(types.end(), entry.result_types().begin(), entry.result_types().end());
  Module m;
  Func& f = new_function(m, source, entry, types, o.name);
  size_t n = entry.arg_types().size();
  std::vector<Value> args(f.args().begin(), f.args().begin() + static_cast<long>(n));
  std::vector<Value> results = inline_call(f, source, o.entry, args, detail::jax_qr_rewrite());
  std::vector<Cotangent> cts;
  for (size_t i = 0; i < results.size(); ++i) {
    if (detail::is_inexact(results[i].dtype()))
      cts.emplace_back(f.arg(n + i));
    else
      cts.emplace_back(std::nullopt);
  }
  auto [w, names] = wrt_args(f, wrt, "cotangent");
  std::vector<Value> g = vjp(results, Wrt{w}, Cotangents{cts});
  results.insert(results.end(), g.begin(), g.end());
  finish(f, entry, results, names);
  return m;
}

Module jvp_module(const Module& source, const ImportedOptions& o) {
  const char* what = "jvp_module";
  const Func& entry = find_entry(source, o, what);
  std::vector<size_t> wrt = wrt_indices(entry, o, what);
  std::vector<TensorType> types = entry.arg_types();
  for (size_t i : wrt) types.push_back(entry.arg_types()[i]);
  Module m;
  Func& f = new_function(m, source, entry, types, o.name);
  size_t n = entry.arg_types().size();
  std::vector<Value> args(f.args().begin(), f.args().begin() + static_cast<long>(n));
  std::vector<Value> results = inline_call(f, source, o.entry, args, detail::jax_qr_rewrite());
  std::vector<Value> w;
  std::vector<Tangent> ts;
  for (size_t k = 0; k < wrt.size(); ++k) {
    w.push_back(f.arg(wrt[k]));
    ts.emplace_back(f.arg(n + k));
  }
  std::vector<Value> t = jvp(results, Wrt{w}, Tangents{ts});
  std::vector<std::string> names;
  for (size_t i = 0; i < t.size(); ++i) names.push_back(fmt::format("tangent[{}]", i));
  results.insert(results.end(), t.begin(), t.end());
  finish(f, entry, results, names);
  return m;
}

}  // namespace hhlo::ad
