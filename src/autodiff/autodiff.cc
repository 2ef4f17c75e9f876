// The reverse-mode walk (tinygrad compute_gradient / JAX backward_pass): forward activity from
// `wrt`, then reverse over the active ops of the insertion block, accumulating cotangents.
#include "hhlo/autodiff/autodiff.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"
#include "rules/rules.h"

namespace hhlo::ad {
namespace {

using detail::where;

}  // namespace

std::vector<Value> vjp(const std::vector<Value>& outputs, const Wrt& wrt_values,
                       const Cotangents& seeds) {
  const std::vector<Value>& wrt = wrt_values.values;
  const std::vector<Cotangent>& cotangents = seeds.values;
  if (outputs.size() != cotangents.size())
    throw Error(
        fmt::format("vjp: {} outputs but {} cotangents", outputs.size(), cotangents.size()));
  if (outputs.empty()) throw Error("vjp: no outputs to differentiate");
  Func& f = outputs[0].func();
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (&outputs[i].func() != &f) throw Error("vjp: outputs belong to different functions");
    if (cotangents[i] && cotangents[i]->type() != outputs[i].type())
      throw Error(fmt::format("vjp: cotangent {} has type {}, output has type {}", i,
                              cotangents[i]->type().to_string(), outputs[i].type().to_string()));
  }
  for (size_t i = 0; i < wrt.size(); ++i) {
    if (&wrt[i].func() != &f)
      throw Error("vjp: a wrt value belongs to another function than the outputs");
    if (!detail::is_inexact(wrt[i].dtype()))
      throw Error(fmt::format(
          "vjp: cannot differentiate with respect to an integer tensor (wrt {} has type {}); "
          "only f16/bf16/f32/f64 and complex values have gradients",
          i, wrt[i].type().to_string()));
  }

  // Forward activity over the insertion block: every float or complex result of an op that uses
  // an active value is active (complex intermediates carry cotangents like real ones; only
  // integer and pred results end a chain, their gradient being zero).
  const Block& block = f.insertion_block();
  std::unordered_set<uint32_t> active;
  for (Value w : wrt) active.insert(w.id());
  std::vector<const Op*> tape;
  for (const auto& op : block.ops()) {
    std::vector<Value> uses(op->operands().begin(), op->operands().end());
    for (const auto& r : op->regions()) detail::uses_in(*r, uses);
    bool on = false;
    for (Value v : uses) on = on || active.count(v.id());
    if (!on) continue;
    tape.push_back(op.get());
    for (Value r : op->results())
      if (detail::is_inexact(r.dtype())) active.insert(r.id());
  }

  // Reverse accumulation.
  std::unordered_map<uint32_t, Value> ct;
  auto accumulate = [&](Value target, Value c) {
    auto it = ct.find(target.id());
    if (it == ct.end())
      ct.emplace(target.id(), c);
    else
      it->second = add(it->second, c);
  };
  for (size_t i = 0; i < outputs.size(); ++i)
    if (cotangents[i] && active.count(outputs[i].id())) accumulate(outputs[i], *cotangents[i]);

  for (auto it = tape.rbegin(); it != tape.rend(); ++it) {
    const Op& op = **it;
    std::vector<Cotangent> cts;
    bool any = false;
    for (Value r : op.results()) {
      auto c = ct.find(r.id());
      if (c != ct.end()) {
        cts.emplace_back(c->second);
        any = true;
      } else {
        cts.emplace_back(std::nullopt);
      }
    }
    if (!any) continue;
    const VjpRule* rule = find_vjp(op.name());
    if (!rule)
      throw Error(
          fmt::format("vjp: no VJP rule for op '{}' (at {}); it lies between the "
                      "differentiated inputs and outputs. Register one with "
                      "hhlo::ad::register_vjp(\"{}\", rule) or stop the gradient before it",
                      op.name(), where(op), op.name()));
    std::vector<bool> needed;
    for (Value v : op.operands()) needed.push_back(active.count(v.id()) > 0);
    std::vector<Cotangent> in;
    {
      detail::NeededScope scope(&needed);
      in = (*rule)(op, cts);
    }
    std::vector<Value> targets = op.operands();
    if (in.size() != targets.size()) {
      std::vector<Value> caps = op.regions().empty() ? std::vector<Value>{} : captured_values(op);
      if (caps.empty() || in.size() != targets.size() + caps.size())
        throw Error(
            fmt::format("vjp: the VJP rule of '{}' (at {}) returned {} cotangents for {} operands",
                        op.name(), where(op), in.size(), op.operands().size()));
      targets.insert(targets.end(), caps.begin(), caps.end());
    }
    for (size_t k = 0; k < in.size(); ++k) {
      Value operand = targets[k];
      if (!in[k] || !active.count(operand.id())) continue;
      if (in[k]->type() != operand.type())
        throw Error(fmt::format(
            "vjp: the VJP rule of '{}' (at {}) returned {} for operand {} of type {}", op.name(),
            where(op), in[k]->type().to_string(), k, operand.type().to_string()));
      accumulate(operand, *in[k]);
    }
  }

  std::vector<Value> out;
  for (Value w : wrt) {
    auto c = ct.find(w.id());
    out.push_back(c != ct.end() ? c->second : full_like(w, 0.0));
  }
  return out;
}

std::pair<std::vector<Value>, Pullback> vjp(const TraceFn& f, const std::vector<Value>& primals) {
  if (primals.empty())
    throw Error("vjp: no primals (the function to differentiate needs arguments)");
  Func& fn = primals[0].func();
  for (size_t i = 0; i < primals.size(); ++i) {
    if (&primals[i].func() != &fn) throw Error("vjp: primals belong to different functions");
    if (!detail::is_inexact(primals[i].dtype()))
      throw Error(fmt::format(
          "vjp: cannot differentiate with respect to an integer tensor (primal {} has type {}); "
          "only f16/bf16/f32/f64 and complex values have gradients",
          i, primals[i].type().to_string()));
  }
  std::vector<Value> outs = f(primals);
  Pullback pullback = [outs, primals](const std::vector<Cotangent>& cts) {
    return vjp(outs, Wrt{primals}, Cotangents{cts});
  };
  return {outs, pullback};
}

std::vector<Value> grad(Value loss, const std::vector<Value>& wrt) {
  if (loss.rank() != 0 || !detail::is_float(loss.dtype()))
    throw Error(
        fmt::format("grad requires a scalar loss of a float type, got {}; reduce it first "
                    "(e.g. with ad::reduce_sum) or use vjp with an explicit cotangent",
                    loss.type().to_string()));
  return vjp({loss}, Wrt{wrt}, Cotangents{full_like(loss, 1.0)});
}

namespace detail {

void check_argnums(const char* what, const std::vector<size_t>& argnums, size_t primals) {
  if (argnums.empty()) throw Error(fmt::format("{}: argnums is empty", what));
  for (size_t i = 0; i < argnums.size(); ++i) {
    if (argnums[i] >= primals)
      throw Error(
          fmt::format("{}: argnum {} out of range ({} primals)", what, argnums[i], primals));
    for (size_t j = 0; j < i; ++j)
      if (argnums[j] == argnums[i])
        throw Error(fmt::format("{}: argnum {} given twice", what, argnums[i]));
  }
}

}  // namespace detail

std::pair<Value, std::vector<Value>> value_and_grad(const ScalarFn& f,
                                                    const std::vector<Value>& primals,
                                                    const std::vector<size_t>& argnums) {
  detail::check_argnums("grad", argnums, primals.size());
  std::vector<Value> wrt;
  for (size_t a : argnums) {
    if (!detail::is_inexact(primals[a].dtype()))
      throw Error(fmt::format(
          "grad: cannot differentiate with respect to argnum {} of integer type {}; only float "
          "and complex arguments have gradients",
          a, primals[a].type().to_string()));
    wrt.push_back(primals[a]);
  }
  Value loss = f(primals);
  return {loss, grad(loss, wrt)};
}

std::pair<Value, Value> value_and_grad(const ScalarFn& f, const std::vector<Value>& primals,
                                       size_t argnum) {
  auto [loss, g] = value_and_grad(f, primals, std::vector<size_t>{argnum});
  return {loss, g[0]};
}

std::vector<Value> grad(const ScalarFn& f, const std::vector<Value>& primals,
                        const std::vector<size_t>& argnums) {
  return value_and_grad(f, primals, argnums).second;
}

Value grad(const ScalarFn& f, const std::vector<Value>& primals, size_t argnum) {
  return value_and_grad(f, primals, argnum).second;
}

Params grad(Value loss, const Params& params, const std::vector<std::string>& wrt) {
  Params selected;
  if (wrt.empty()) {
    selected = params;
  } else {
    for (const std::string& w : wrt) {
      Params sub = params.subtree(w);
      if (sub.empty()) {
        std::string names;
        for (const auto& n : params.names()) names += (names.empty() ? "" : ", ") + n;
        throw Error(fmt::format("grad: wrt '{}' names no parameter; parameters: {}", w,
                                names.empty() ? "(none)" : names));
      }
      selected.merge(sub);
    }
  }
  std::vector<Value> values;
  for (const auto& [name, v] : selected) {
    if (!detail::is_inexact(v.dtype()))
      throw Error(
          fmt::format("grad: cannot differentiate with respect to parameter '{}' of integer "
                      "type {}; only f16/bf16/f32/f64 and complex parameters have gradients",
                      name, v.type().to_string()));
    values.push_back(v);
  }
  std::vector<Value> g = grad(loss, values);
  Params out;
  size_t i = 0;
  for (const auto& kv : selected) out.set(kv.first, g[i++]);
  return out;
}

std::pair<Value, Params> value_and_grad(const LossFn& f, const Params& params,
                                        const std::vector<std::string>& wrt) {
  Value loss = f(params);
  return {loss, grad(loss, params, wrt)};
}

Func& vjp_func(Module& module, std::string name, const std::vector<TensorType>& arg_types,
               const std::function<std::vector<Value>(const std::vector<Value>&)>& body,
               std::vector<size_t> wrt) {
  std::vector<TensorType> result_types;
  {
    Module scratch;
    Func& s = scratch.add_func("trace", arg_types);
    for (Value r : body(s.args())) result_types.push_back(r.type());
  }
  if (wrt.empty()) {
    for (size_t i = 0; i < arg_types.size(); ++i)
      if (detail::is_float(arg_types[i].dtype)) wrt.push_back(i);
  }
  for (size_t i : wrt)
    if (i >= arg_types.size())
      throw Error(
          fmt::format("vjp_func: wrt index {} out of range ({} arguments)", i, arg_types.size()));
  std::vector<TensorType> all = arg_types;
  all.insert(all.end(), result_types.begin(), result_types.end());
  Func& f = module.add_func(std::move(name), all);
  std::vector<Value> args(f.args().begin(), f.args().begin() + static_cast<long>(arg_types.size()));
  std::vector<Value> results = body(args);
  if (results.size() != result_types.size())
    throw Error("vjp_func: body returned a different number of results when re-traced");
  std::vector<Cotangent> cts;
  for (size_t i = 0; i < results.size(); ++i) cts.emplace_back(f.arg(arg_types.size() + i));
  std::vector<Value> w;
  for (size_t i : wrt) w.push_back(f.arg(i));
  std::vector<Value> g = vjp(results, Wrt{w}, Cotangents{cts});
  results.insert(results.end(), g.begin(), g.end());
  f.ret(results);
  return f;
}

Func& value_and_grad_func(Module& module, std::string name,
                          const std::vector<TensorType>& arg_types,
                          const std::function<Value(const std::vector<Value>&)>& body,
                          std::vector<size_t> wrt) {
  if (wrt.empty()) {
    for (size_t i = 0; i < arg_types.size(); ++i)
      if (detail::is_float(arg_types[i].dtype)) wrt.push_back(i);
  }
  for (size_t i : wrt)
    if (i >= arg_types.size())
      throw Error(fmt::format("value_and_grad_func: wrt index {} out of range ({} arguments)", i,
                              arg_types.size()));
  Func& f = module.add_func(std::move(name), arg_types);
  Value loss = body(f.args());
  std::vector<Value> w;
  for (size_t i : wrt) w.push_back(f.arg(i));
  std::vector<Value> outs = {loss};
  for (Value g : grad(loss, w)) outs.push_back(g);
  f.ret(outs);
  return f;
}

}  // namespace hhlo::ad
