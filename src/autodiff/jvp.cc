// Forward mode (JAX jvp over our IR): the JVP registry, the forward walk, and the transforms built
// on it (jacfwd, jacrev, hvp, hessian).
#include <fmt/format.h>

#include <mutex>
#include <unordered_set>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/jvp_registry.h"
#include "hhlo/ir/ops.h"
#include "rule_table.h"
#include "rules/rules.h"

namespace hhlo::ad {
namespace {

detail::RuleTable<JvpRule>& jvp_registry() {
  static detail::RuleTable<JvpRule> table([](detail::JvpRegistry& r) {
    detail::register_elementwise_jvps(r);
    detail::register_shape_jvps(r);
    detail::register_dot_general_jvps(r);
    detail::register_reduce_jvps(r);
    detail::register_convolution_jvps(r);
    detail::register_reduce_window_jvps(r);
    detail::register_indexing_jvps(r);
    detail::register_control_flow_jvps(r);
    detail::register_batch_norm_jvps(r);
    detail::register_linalg_jvps(r);
    detail::register_collectives_jvps(r);
  });
  return table;
}

using detail::where;

bool is_control_flow(const std::string& n) {
  return n == "stablehlo.if" || n == "stablehlo.case" || n == "stablehlo.while";
}

}  // namespace

void register_jvp(std::string op_name, JvpRule rule) {
  jvp_registry().add(std::move(op_name), std::move(rule));
}

const JvpRule* find_jvp(std::string_view op_name) { return jvp_registry().find(op_name); }

std::vector<std::string> registered_jvps() { return jvp_registry().names(); }

void register_custom_jvp(std::string target, JvpRule rule) {
  register_jvp("custom_call:" + target, std::move(rule));
}

JvpRule zero_jvp() {
  return [](const Op& op, const std::vector<Tangent>&) {
    return std::vector<Tangent>(op.results().size());
  };
}

std::vector<Value> reapply(const Op& op, const std::vector<Value>& operands) {
  if (operands.size() != op.operands().size())
    throw Error(fmt::format("reapply: '{}' takes {} operands, {} given", op.name(),
                            op.operands().size(), operands.size()));
  Func& f = op.results().empty() ? operands.at(0).func() : op.result(0).func();
  OpState st;
  st.name = op.name();
  st.operands = operands;
  for (Value r : op.results()) st.result_types.push_back(r.type());
  st.attrs = op.attrs();
  st.loc = op.loc();
  for (const auto& sub : op.regions()) {
    std::vector<TensorType> types;
    for (Value a : sub->args()) types.push_back(a.type());
    const Block* src = sub.get();
    st.regions.push_back(f.build_region(
        op.name(), types, [src](const std::vector<Value>& a) { return inline_region(*src, a); },
        op.loc()));
  }
  return f.append(std::move(st));
}

JvpRule linear_jvp() {
  return [](const Op& op, const std::vector<Tangent>& ts) {
    std::vector<Value> in;
    for (size_t i = 0; i < op.operands().size(); ++i) {
      Value x = op.operands()[i];
      if (!detail::is_inexact(x.dtype()))
        in.push_back(x);
      else
        in.push_back(ts[i] ? *ts[i] : full_like(x, 0.0));
    }
    std::vector<Value> r = reapply(op, in);
    std::vector<Tangent> out(r.size());
    for (size_t i = 0; i < r.size(); ++i)
      if (detail::is_inexact(r[i].dtype())) out[i] = r[i];
    return out;
  };
}

JvpRule bilinear_jvp() {
  return [](const Op& op, const std::vector<Tangent>& ts) {
    Value lhs = op.operands()[0], rhs = op.operands()[1];
    Tangent acc;
    if (ts[0]) acc = reapply(op, {*ts[0], rhs})[0];
    if (ts[1]) {
      Value b = reapply(op, {lhs, *ts[1]})[0];
      acc = acc ? add(*acc, b) : b;
    }
    return std::vector<Tangent>{acc};
  };
}

std::vector<Tangent> jvp_of_decomposition(const Op& op, const std::vector<Tangent>& ts,
                                          const TraceFn& body) {
  Func& f = op.result(0).func();
  const Block& block = f.insertion_block();
  size_t start = block.ops().size();
  std::vector<Value> outs = body(op.operands());
  std::unordered_map<uint32_t, Value> seeds;
  for (size_t i = 0; i < op.operands().size() && i < ts.size(); ++i)
    if (ts[i]) seeds.emplace(op.operands()[i].id(), *ts[i]);
  return detail::forward_tangents(block, start, std::move(seeds), outs);
}

namespace detail {

std::vector<Tangent> forward_tangents(const Block& block, size_t start,
                                      std::unordered_map<uint32_t, Value> tan,
                                      const std::vector<Value>& outputs) {
  std::vector<const Op*> ops;
  for (size_t i = start; i < block.ops().size(); ++i) ops.push_back(block.ops()[i].get());
  // Backward reachability from the outputs: only ops that feed them run their rules.
  std::unordered_set<uint32_t> needed;
  for (Value o : outputs) needed.insert(o.id());
  std::vector<std::vector<Value>> caps(ops.size());
  std::vector<bool> keep(ops.size(), false);
  for (size_t k = ops.size(); k-- > 0;) {
    const Op& op = *ops[k];
    bool any = false;
    for (Value r : op.results()) any = any || needed.count(r.id());
    if (!any) continue;
    keep[k] = true;
    for (Value v : op.operands()) needed.insert(v.id());
    if (!op.regions().empty()) {
      caps[k] = captured_values(op);
      for (Value v : caps[k]) needed.insert(v.id());
    }
  }
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!keep[k]) continue;
    const Op& op = *ops[k];
    std::vector<Tangent> ts;
    bool any = false;
    auto lookup = [&](Value v) {
      auto it = tan.find(v.id());
      if (it == tan.end()) {
        ts.emplace_back(std::nullopt);
      } else {
        ts.emplace_back(it->second);
        any = true;
      }
    };
    for (Value v : op.operands()) lookup(v);
    size_t n_operands = ts.size();
    for (Value v : caps[k]) lookup(v);
    if (!any) continue;
    if (!is_control_flow(op.name()))
      for (size_t i = n_operands; i < ts.size(); ++i)
        if (ts[i])
          throw Error(fmt::format(
              "jvp: a region of '{}' (at {}) uses a differentiated value of an enclosing "
              "block; only if / case / while regions may capture differentiated values",
              op.name(), where(op)));
    if (!is_control_flow(op.name())) ts.resize(n_operands);
    const JvpRule* rule = find_jvp(op.name());
    if (!rule)
      throw Error(
          fmt::format("jvp: no JVP rule for op '{}' (at {}); it lies between the differentiated "
                      "inputs and outputs. Register one with hhlo::ad::register_jvp(\"{}\", rule)",
                      op.name(), where(op), op.name()));
    std::vector<Tangent> out = (*rule)(op, ts);
    if (out.size() != op.results().size())
      throw Error(
          fmt::format("jvp: the JVP rule of '{}' (at {}) returned {} tangents for {} results",
                      op.name(), where(op), out.size(), op.results().size()));
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i]) continue;
      Value r = op.result(i);
      if (out[i]->type() != r.type())
        throw Error(
            fmt::format("jvp: the JVP rule of '{}' (at {}) returned {} for result {} of type {}",
                        op.name(), where(op), out[i]->type().to_string(), i, r.type().to_string()));
      if (is_inexact(r.dtype())) tan.insert_or_assign(r.id(), *out[i]);
    }
  }
  std::vector<Tangent> res;
  for (Value o : outputs) {
    auto it = tan.find(o.id());
    res.push_back(it == tan.end() ? Tangent{} : Tangent{it->second});
  }
  return res;
}

}  // namespace detail

namespace {

void check_wrt(const char* who, const Func& f, const std::vector<Value>& wrt,
               const std::vector<Tangent>& ts) {
  if (wrt.size() != ts.size())
    throw Error(fmt::format("{}: {} primals but {} tangents", who, wrt.size(), ts.size()));
  for (size_t i = 0; i < wrt.size(); ++i) {
    if (&wrt[i].func() != &f)
      throw Error(fmt::format("{}: primals belong to different functions", who));
    if (!detail::is_inexact(wrt[i].dtype()))
      throw Error(fmt::format(
          "{}: cannot differentiate with respect to an integer tensor (primal {} has type "
          "{}); only f16/bf16/f32/f64 and complex values have tangents",
          who, i, wrt[i].type().to_string()));
    if (ts[i] && ts[i]->type() != wrt[i].type())
      throw Error(fmt::format("{}: tangent {} has type {}, its primal has type {}", who, i,
                              ts[i]->type().to_string(), wrt[i].type().to_string()));
  }
}

std::vector<Value> materialize(const std::vector<Value>& outputs, const std::vector<Tangent>& ts) {
  std::vector<Value> out;
  for (size_t i = 0; i < outputs.size(); ++i)
    out.push_back(ts[i] ? *ts[i] : full_like(outputs[i], 0.0));
  return out;
}

std::vector<Value> jvp_from(size_t start, const std::vector<Value>& outputs,
                            const std::vector<Value>& wrt, const std::vector<Tangent>& tangents) {
  std::unordered_map<uint32_t, Value> seeds;
  for (size_t i = 0; i < wrt.size(); ++i)
    if (tangents[i]) seeds.insert_or_assign(wrt[i].id(), *tangents[i]);
  const Block& block =
      wrt.empty() ? outputs.at(0).func().insertion_block() : wrt[0].func().insertion_block();
  return materialize(outputs, detail::forward_tangents(block, start, std::move(seeds), outputs));
}

// A one-hot constant of x's type with a 1 at flat position k (host data, so it stays a constant).
Value one_hot(Value x, int64_t k) {
  Array h(DType::f64, x.dims());
  auto* p = static_cast<double*>(h.data());
  for (int64_t i = 0; i < h.num_elements(); ++i) p[i] = i == k ? 1.0 : 0.0;
  return detail::cast_to(constant(x.func(), h), x.dtype());
}

// Stacks per-element derivatives d[k] (each of `out` dims) into out.dims ++ in_dims.
Value stack(const std::vector<Value>& d, const Dims& out, const Dims& in) {
  Dims full = out;
  full.insert(full.end(), in.begin(), in.end());
  Dims col = out;
  col.push_back(1);
  std::vector<Value> cols;
  for (Value v : d) cols.push_back(reshape(v, col));
  Value cat = cols.size() == 1 ? cols[0] : concatenate(cols, static_cast<int64_t>(out.size()));
  return reshape(cat, full);
}

// Stacks per-output-element gradients g[j] (each of `in` dims) into out.dims ++ in.
Value stack_rows(const std::vector<Value>& g, const Dims& out, const Dims& in) {
  Dims full = out;
  full.insert(full.end(), in.begin(), in.end());
  Dims row = in;
  row.insert(row.begin(), 1);
  std::vector<Value> rows;
  for (Value v : g) rows.push_back(reshape(v, row));
  Value cat = rows.size() == 1 ? rows[0] : concatenate(rows, 0);
  return reshape(cat, full);
}

}  // namespace

std::vector<Value> jvp(const std::vector<Value>& outputs, const Wrt& wrt_values,
                       const Tangents& seeds) {
  const std::vector<Value>& wrt = wrt_values.values;
  const std::vector<Tangent>& tangents = seeds.values;
  if (outputs.empty()) throw Error("jvp: no outputs to differentiate");
  Func& f = outputs[0].func();
  for (Value o : outputs)
    if (&o.func() != &f) throw Error("jvp: outputs belong to different functions");
  check_wrt("jvp", f, wrt, tangents);
  return jvp_from(0, outputs, wrt, tangents);
}

std::pair<std::vector<Value>, std::vector<Value>> jvp(const TraceFn& f,
                                                      const std::vector<Value>& primals,
                                                      const std::vector<Value>& tangents) {
  if (primals.empty())
    throw Error("jvp: no primals (the function to differentiate needs arguments)");
  std::vector<Tangent> ts(tangents.begin(), tangents.end());
  Func& fn = primals[0].func();
  check_wrt("jvp", fn, primals, ts);
  size_t start = fn.insertion_block().ops().size();
  std::vector<Value> outs = f(primals);
  if (outs.empty()) return {outs, {}};
  return {outs, jvp_from(start, outs, primals, ts)};
}

std::vector<Value> jacfwd(const TraceFn& f, const std::vector<Value>& primals, size_t argnum) {
  if (argnum >= primals.size())
    throw Error(fmt::format("jacfwd: argnum {} out of range ({} primals)", argnum, primals.size()));
  Value x = primals[argnum];
  if (!detail::is_float(x.dtype()))
    throw Error(
        fmt::format("jacfwd: primal {} has type {}; jacfwd needs a real floating-point primal",
                    argnum, x.type().to_string()));
  Func& fn = x.func();
  size_t start = fn.insertion_block().ops().size();
  std::vector<Value> outs = f(primals);
  std::vector<std::vector<Value>> cols(outs.size());
  int64_t n = x.type().num_elements();
  for (int64_t k = 0; k < n; ++k) {
    std::vector<Value> t = jvp_from(start, outs, {x}, {Tangent{one_hot(x, k)}});
    for (size_t j = 0; j < outs.size(); ++j) cols[j].push_back(t[j]);
  }
  std::vector<Value> jac;
  for (size_t j = 0; j < outs.size(); ++j) {
    if (n == 0) {
      Dims full = outs[j].dims();
      full.insert(full.end(), x.dims().begin(), x.dims().end());
      jac.push_back(constant(fn, 0.0, outs[j].dtype(), full));
    } else {
      jac.push_back(stack(cols[j], outs[j].dims(), x.dims()));
    }
  }
  return jac;
}

namespace {

/// The Jacobian of `y` (a result) w.r.t. `x`, from its rows (one cotangent of x per element of y)
/// or, for an empty y, zeros of dims y.dims ++ x.dims.
Value jacobian_from_rows(const std::vector<Value>& rows, Value y, Value x) {
  if (!rows.empty()) return stack_rows(rows, y.dims(), x.dims());
  Dims full = y.dims();
  full.insert(full.end(), x.dims().begin(), x.dims().end());
  return constant(x.func(), 0.0, x.dtype(), full);
}

}  // namespace

std::vector<std::vector<Value>> jacfwd(const TraceFn& f, const std::vector<Value>& primals,
                                       const std::vector<size_t>& argnums) {
  detail::check_argnums("jacfwd", argnums, primals.size());
  std::vector<std::vector<Value>> jac;
  for (size_t i = 0; i < argnums.size(); ++i) {
    // One trace per argnum: a single-argnum jacfwd of f with the other primals held.
    std::vector<Value> cols = jacfwd(f, primals, argnums[i]);
    if (jac.empty()) jac.resize(cols.size());
    for (size_t j = 0; j < cols.size(); ++j) jac[j].push_back(cols[j]);
  }
  return jac;
}

std::vector<std::vector<Value>> jacrev(const TraceFn& f, const std::vector<Value>& primals,
                                       const std::vector<size_t>& argnums) {
  detail::check_argnums("jacrev", argnums, primals.size());
  std::vector<Value> xs;
  for (size_t a : argnums) {
    if (!detail::is_float(primals[a].dtype()))
      throw Error(
          fmt::format("jacrev: primal {} has type {}; jacrev needs a real floating-point primal", a,
                      primals[a].type().to_string()));
    xs.push_back(primals[a]);
  }
  std::vector<Value> outs = f(primals);
  std::vector<std::vector<Value>> jac;
  for (Value y : outs) {
    if (!detail::is_float(y.dtype()))
      throw Error(fmt::format("jacrev: result of type {}; jacrev needs real floating-point results",
                              y.type().to_string()));
    std::vector<std::vector<Value>> rows(xs.size());
    for (int64_t k = 0; k < y.type().num_elements(); ++k) {
      std::vector<Value> cts = vjp({y}, Wrt{xs}, Cotangents{one_hot(y, k)});
      for (size_t i = 0; i < xs.size(); ++i) rows[i].push_back(cts[i]);
    }
    std::vector<Value> per_arg;
    for (size_t i = 0; i < xs.size(); ++i) per_arg.push_back(jacobian_from_rows(rows[i], y, xs[i]));
    jac.push_back(std::move(per_arg));
  }
  return jac;
}

std::vector<std::vector<Value>> hessian(const ScalarFn& f, const std::vector<Value>& primals,
                                        const std::vector<size_t>& argnums) {
  detail::check_argnums("hessian", argnums, primals.size());
  return jacfwd(
      [&](const std::vector<Value>& xs) {
        std::vector<Value> wrt;
        for (size_t a : argnums) wrt.push_back(xs[a]);
        return grad(f(xs), wrt);
      },
      primals, argnums);
}

std::vector<Value> jacrev(const TraceFn& f, const std::vector<Value>& primals, size_t argnum) {
  if (argnum >= primals.size())
    throw Error(fmt::format("jacrev: argnum {} out of range ({} primals)", argnum, primals.size()));
  Value x = primals[argnum];
  if (!detail::is_float(x.dtype()))
    throw Error(
        fmt::format("jacrev: primal {} has type {}; jacrev needs a real floating-point primal",
                    argnum, x.type().to_string()));
  std::vector<Value> outs = f(primals);
  std::vector<Value> jac;
  for (Value y : outs) {
    if (!detail::is_float(y.dtype()))
      throw Error(fmt::format("jacrev: result of type {}; jacrev needs real floating-point results",
                              y.type().to_string()));
    std::vector<Value> rows;
    int64_t m = y.type().num_elements();
    for (int64_t k = 0; k < m; ++k) rows.push_back(vjp({y}, Wrt{x}, Cotangents{one_hot(y, k)})[0]);
    if (m == 0) {
      Dims full = y.dims();
      full.insert(full.end(), x.dims().begin(), x.dims().end());
      jac.push_back(constant(x.func(), 0.0, x.dtype(), full));
    } else {
      jac.push_back(stack_rows(rows, y.dims(), x.dims()));
    }
  }
  return jac;
}

std::vector<Value> hvp(const ScalarFn& f, const std::vector<Value>& primals,
                       const std::vector<Value>& tangents) {
  return jvp([&](const std::vector<Value>& xs) { return grad(f(xs), xs); }, primals, tangents)
      .second;
}

Value hessian(const ScalarFn& f, const std::vector<Value>& primals, size_t argnum) {
  if (argnum >= primals.size())
    throw Error(
        fmt::format("hessian: argnum {} out of range ({} primals)", argnum, primals.size()));
  return jacfwd(
      [&](const std::vector<Value>& xs) {
        return std::vector<Value>{grad(f(xs), {xs[argnum]})[0]};
      },
      primals, argnum)[0];
}

}  // namespace hhlo::ad
