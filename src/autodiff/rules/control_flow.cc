// VJP and JVP of control flow. VJP: if / case (the backward is an if / case over the branches' own
// backward passes, differentiating the values the branches capture), while with a static trip count
// (unrolled and differentiated), optimization_barrier, and custom_call through custom_vjp. JVP:
// if / case / while of any trip count carry the tangents through new control flow; custom_call
// through custom_jvp. A composite takes the rule registered under "composite:<name>", else the
// derivative of its decomposition (inlined at the op and differentiated there); np::stop_gradient
// is the composite "hhlo.stop_gradient" with a zero rule in both modes.
#include <algorithm>

#include "hhlo/ir/inline.h"
#include "rules.h"

namespace hhlo::ad::detail {
namespace {

using Cts = std::vector<Cotangent>;

// Captured float values of `op` (what its regions read from outside).
std::vector<Value> float_captures(const Op& op) {
  std::vector<Value> out;
  for (Value v : captured_values(op))
    if (is_inexact(v.dtype())) out.push_back(v);
  return out;
}

// Backward of one branch: replay it here and differentiate its float results w.r.t. `wrt`.
std::vector<Value> branch_backward(const Block& region, const Op& op, const Cts& cts,
                                   const std::vector<Value>& wrt) {
  std::vector<Value> outs = inline_region(region, {});
  std::vector<Value> ys;
  std::vector<Cotangent> gs;
  for (size_t i = 0; i < outs.size(); ++i)
    if (cts[i] && is_inexact(outs[i].dtype())) {
      ys.push_back(outs[i]);
      gs.push_back(*cts[i]);
    }
  if (ys.empty()) {
    std::vector<Value> z;
    for (Value w : wrt) z.push_back(full_like(w, 0.0));
    return z;
  }
  (void)op;
  return vjp(ys, Wrt{wrt}, Cotangents{gs});
}

// Captured-value cotangents of if/case: the rule's result after the operand entries.
Cts branches_rule(const Op& op, const Cts& cts) {
  std::vector<Value> all_caps = captured_values(op);
  std::vector<Value> caps = float_captures(op);
  Cts out(op.operands().size() + all_caps.size());
  if (caps.empty()) return out;
  std::vector<Branch> branches;
  for (const auto& region : op.regions()) {
    const Block* b = region.get();
    branches.push_back([b, &op, &cts, &caps] { return branch_backward(*b, op, cts, caps); });
  }
  std::vector<Value> g = op.name() == "stablehlo.if"
                             ? if_(op.operands()[0], branches[0], branches[1])
                             : case_(op.operands()[0], branches);
  size_t k = 0;
  for (size_t i = 0; i < all_caps.size(); ++i)
    if (is_inexact(all_caps[i].dtype())) out[op.operands().size() + i] = g[k++];
  return out;
}

// Scalar integer value of a constant op, if `v` is one.
std::optional<int64_t> constant_int(Value v) {
  const Op* d = v.defining_op();
  if (!d || d->name() != "stablehlo.constant" || v.rank() != 0) return std::nullopt;
  const Array& a = *d->attr("value")->get_if<DenseAttr>()->array;
  switch (a.dtype()) {
    case DType::i32:
      return a.to_vector<int32_t>()[0];
    case DType::i64:
      return a.to_vector<int64_t>()[0];
    case DType::ui32:
      return a.to_vector<uint32_t>()[0];
    default:
      return std::nullopt;
  }
}

// The trip count of `while` when it has the canonical counted form: operand k starts at constant
// s, the condition is `arg_k < C` (C constant) and the body returns `arg_k + 1`.
std::optional<int64_t> static_trip_count(const Op& op) {
  const Block& cond = *op.regions()[0];
  const Block& body = *op.regions()[1];
  const Op& cret = *cond.ops().back();
  const Op* cmp = cret.operands().at(0).defining_op();
  if (!cmp || cmp->name() != "stablehlo.compare") return std::nullopt;
  const auto* dir = cmp->attr("comparison_direction")->get_if<ComparisonDirection>();
  if (!dir || *dir != ComparisonDirection::LT) return std::nullopt;
  Value lhs = cmp->operands()[0];
  auto limit = constant_int(cmp->operands()[1]);
  if (!limit || lhs.defining_op() != nullptr) return std::nullopt;
  size_t k = lhs.index();
  if (k >= cond.args().size() || cond.arg(k) != lhs) return std::nullopt;
  const Op& bret = *body.ops().back();
  const Op* inc = bret.operands().at(k).defining_op();
  if (!inc || inc->name() != "stablehlo.add") return std::nullopt;
  Value a = inc->operands()[0], b = inc->operands()[1];
  bool ok =
      (a == body.arg(k) && constant_int(b) == 1) || (b == body.arg(k) && constant_int(a) == 1);
  if (!ok) return std::nullopt;
  auto start = constant_int(op.operands()[k]);
  if (!start) return std::nullopt;
  return std::max<int64_t>(0, *limit - *start);
}

}  // namespace

namespace {

// The reverse pass of an op replayed as ordinary ops (an unrolled while body, an inlined
// decomposition) whose results are `outs`: the float ones with a cotangent in `cts`,
// differentiated w.r.t. the float values of `sources` (the op's operands, then what its regions
// capture). One cotangent per source; a value listed twice (a loop operand also captured, an
// operand given twice) gets its total cotangent once, at its first entry (vjp gives every
// repeated wrt entry the full cotangent).
Cts replayed_vjp(const std::vector<Value>& outs, const Cts& cts,
                 const std::vector<Value>& sources) {
  std::vector<Value> ys, wrt;
  std::vector<Cotangent> gs;
  for (size_t i = 0; i < outs.size(); ++i)
    if (cts[i] && is_inexact(outs[i].dtype())) {
      ys.push_back(outs[i]);
      gs.push_back(*cts[i]);
    }
  Cts out(sources.size());
  std::vector<size_t> slots;
  for (size_t i = 0; i < sources.size(); ++i)
    if (is_inexact(sources[i].dtype()) &&
        std::find(wrt.begin(), wrt.end(), sources[i]) == wrt.end()) {
      wrt.push_back(sources[i]);
      slots.push_back(i);
    }
  if (ys.empty() || wrt.empty()) return out;
  std::vector<Value> g = vjp(ys, Wrt{wrt}, Cotangents{gs});
  for (size_t k = 0; k < g.size(); ++k) out[slots[k]] = g[k];
  return out;
}

}  // namespace

void register_control_flow_rules(Registry& r) {
  r["stablehlo.if"] = branches_rule;
  r["stablehlo.case"] = branches_rule;
  r["stablehlo.while"] = [](const Op& op, const Cts& cts) {
    auto n = static_trip_count(op);
    if (!n)
      unsupported(
          op,
          "reverse mode needs a static trip count: a counter operand starting at a constant, "
          "a condition `counter < constant` and a body returning `counter + 1`");
    std::vector<Value> vals(op.operands().begin(), op.operands().end());
    for (int64_t i = 0; i < *n; ++i) vals = inline_region(*op.regions()[1], vals);
    std::vector<Value> sources = op.operands(), caps = captured_values(op);
    sources.insert(sources.end(), caps.begin(), caps.end());
    return replayed_vjp(vals, cts, sources);
  };
  r["stablehlo.optimization_barrier"] = [](const Op& op, const Cts& cts) {
    Cts out(op.operands().size());
    for (size_t i = 0; i < out.size(); ++i)
      if (cts[i] && is_inexact(op.operands()[i].dtype())) out[i] = cts[i];
    return out;
  };
  r["stablehlo.reduce_precision"] = linear_vjp([](const Op&, Value g) { return g; });
  // np::stop_gradient (jax.lax.stop_gradient): no cotangent reaches the operand.
  r["composite:hhlo.stop_gradient"] = [](const Op& op, const Cts&) {
    return Cts(op.operands().size());
  };
  r["stablehlo.composite"] = [](const Op& op, const Cts& cts) {
    if (const VjpRule* rule = find_vjp("composite:" + composite_name(op))) return (*rule)(op, cts);
    // The decomposition inlined here and differentiated w.r.t. the inputs.
    return replayed_vjp(inline_decomposition(op, op.operands()), cts, op.operands());
  };
  r["stablehlo.custom_call"] = [](const Op& op, const Cts& cts) {
    std::string target = op.attr("call_target_name")->get_if<StringAttr>()->value;
    const VjpRule* rule = find_vjp("custom_call:" + target);
    if (!rule)
      throw Error(
          fmt::format("vjp: no VJP rule for op 'stablehlo.custom_call' with target '{}' (at {}); "
                      "register one with hhlo::ad::register_custom_vjp(\"{}\", rule)",
                      target, where(op), target));
    return (*rule)(op, cts);
  };
}

namespace {

using Ts = std::vector<Tangent>;

// Seeds for the forward walk inside a region: the captured values' tangents (entries after the
// operand entries of `ts`).
std::unordered_map<uint32_t, Value> capture_seeds(const Op& op, const std::vector<Value>& caps,
                                                  const Ts& ts) {
  std::unordered_map<uint32_t, Value> seeds;
  for (size_t j = 0; j < caps.size(); ++j) {
    size_t k = op.operands().size() + j;
    if (k < ts.size() && ts[k]) seeds.emplace(caps[j].id(), *ts[k]);
  }
  return seeds;
}

// if / case: an if / case of the same predicate whose branches replay the original branch and
// return the tangents of its float results (zeros where a branch gives none).
Ts branches_jvp(const Op& op, const Ts& ts) {
  std::vector<Value> caps = captured_values(op);
  std::unordered_map<uint32_t, Value> seeds = capture_seeds(op, caps, ts);
  Ts out(op.results().size());
  std::vector<size_t> slots;
  for (size_t i = 0; i < op.results().size(); ++i)
    if (is_inexact(op.result(i).dtype())) slots.push_back(i);
  if (seeds.empty() || slots.empty()) return out;
  Func& f = op.result(0).func();
  std::vector<Branch> branches;
  for (const auto& region : op.regions()) {
    const Block* b = region.get();
    branches.push_back([b, &f, &seeds, &slots] {
      const Block& here = f.insertion_block();
      size_t start = here.ops().size();
      std::vector<Value> outs = inline_region(*b, {});
      std::vector<Value> ys;
      for (size_t i : slots) ys.push_back(outs[i]);
      Ts t = forward_tangents(here, start, seeds, ys);
      std::vector<Value> res;
      for (size_t k = 0; k < ys.size(); ++k) res.push_back(t[k] ? *t[k] : full_like(ys[k], 0.0));
      return res;
    });
  }
  std::vector<Value> g = op.name() == "stablehlo.if"
                             ? if_(op.operands()[0], branches[0], branches[1])
                             : case_(op.operands()[0], branches);
  for (size_t k = 0; k < slots.size(); ++k) out[slots[k]] = g[k];
  return out;
}

// while (any trip count): a while carrying the primal values and the tangents of the float ones;
// its body replays the original body and runs the forward walk over it (captured tangents are
// captured too). The primal loop is recomputed alongside (JAX's jvp of while_loop).
Ts while_jvp(const Op& op, const Ts& ts) {
  size_t n = op.operands().size();
  std::vector<Value> caps = captured_values(op);
  std::unordered_map<uint32_t, Value> cap_seeds = capture_seeds(op, caps, ts);
  std::vector<size_t> slots;
  for (size_t i = 0; i < n; ++i)
    if (is_inexact(op.operands()[i].dtype())) slots.push_back(i);
  Ts out(n);
  if (slots.empty()) return out;
  std::vector<Value> init(op.operands().begin(), op.operands().end());
  for (size_t i : slots) init.push_back(ts[i] ? *ts[i] : full_like(op.operands()[i], 0.0));
  const Block* cond = op.regions()[0].get();
  const Block* body = op.regions()[1].get();
  Func& f = op.result(0).func();
  std::vector<Value> res = while_loop(
      init,
      [cond, n](const std::vector<Value>& a) {
        return inline_region(*cond,
                             std::vector<Value>(a.begin(), a.begin() + static_cast<long>(n)));
      },
      [&](const std::vector<Value>& a) {
        const Block& here = f.insertion_block();
        size_t start = here.ops().size();
        std::vector<Value> outs =
            inline_region(*body, std::vector<Value>(a.begin(), a.begin() + static_cast<long>(n)));
        std::unordered_map<uint32_t, Value> seeds = cap_seeds;
        for (size_t k = 0; k < slots.size(); ++k)
          seeds.insert_or_assign(a[slots[k]].id(), a[n + k]);
        std::vector<Value> ys;
        for (size_t i : slots) ys.push_back(outs[i]);
        Ts t = forward_tangents(here, start, seeds, ys);
        for (size_t k = 0; k < ys.size(); ++k) {
          // A body result that is one of the body's own arguments carries that argument's tangent.
          Value v = ys[k];
          if (!t[k])
            for (size_t q = 0; q < slots.size(); ++q)
              if (v == a[slots[q]]) t[k] = a[n + q];
          outs.push_back(t[k] ? *t[k] : full_like(ys[k], 0.0));
        }
        return outs;
      });
  for (size_t k = 0; k < slots.size(); ++k) out[slots[k]] = res[n + k];
  return out;
}

}  // namespace

std::string composite_name(const Op& op) {
  const Attribute* a = op.attr("name");
  const auto* s = a ? a->get_if<StringAttr>() : nullptr;
  return s ? s->value : std::string();
}

std::vector<Value> inline_decomposition(const Op& op, const std::vector<Value>& inputs) {
  const Attribute* a = op.attr("decomposition");
  const auto* sym = a ? a->get_if<SymbolRefAttr>() : nullptr;
  if (!sym) unsupported(op, "the composite has no decomposition symbol", "derivative");
  Func& f = inputs.at(0).func();
  return inline_call(f, op.result(0).func().module(), sym->name, inputs);
}

namespace {

Ts composite_jvp(const Op& op, const Ts& ts) {
  if (const JvpRule* rule = find_jvp("composite:" + composite_name(op))) return (*rule)(op, ts);
  return jvp_of_decomposition(
      op, ts, [&op](const std::vector<Value>& in) { return inline_decomposition(op, in); });
}

}  // namespace

void register_control_flow_jvps(JvpRegistry& r) {
  r["stablehlo.composite"] = composite_jvp;
  r["stablehlo.if"] = branches_jvp;
  r["stablehlo.case"] = branches_jvp;
  r["stablehlo.while"] = while_jvp;
  r["stablehlo.optimization_barrier"] = linear_jvp();
  r["stablehlo.reduce_precision"] = linear_jvp();
  // np::stop_gradient: a zero tangent (jax.lax.stop_gradient's JVP).
  r["composite:hhlo.stop_gradient"] = [](const Op& op, const Ts&) {
    return Ts(op.results().size());
  };
  r["stablehlo.custom_call"] = [](const Op& op, const Ts& ts) {
    std::string target = op.attr("call_target_name")->get_if<StringAttr>()->value;
    const JvpRule* rule = find_jvp("custom_call:" + target);
    if (!rule)
      throw Error(
          fmt::format("jvp: no JVP rule for op 'stablehlo.custom_call' with target '{}' (at {}); "
                      "register one with hhlo::ad::register_custom_jvp(\"{}\", rule)",
                      target, where(op), target));
    return (*rule)(op, ts);
  };
}

}  // namespace hhlo::ad::detail
