// VJP of control flow: if / case (the backward is an if / case over the branches' own backward
// passes, differentiating the values the branches capture), while with a static trip count
// (unrolled and differentiated), optimization_barrier, and custom_call through custom_vjp.
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
std::vector<Value> branch_backward(const Block& region, const Op& op, const Cts& cts, const std::vector<Value>& wrt) {
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
  return vjp(ys, gs, wrt);
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
  std::vector<Value> g = op.name() == "stablehlo.if" ? if_(op.operands()[0], branches[0], branches[1])
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
    case DType::i32: return a.to_vector<int32_t>()[0];
    case DType::i64: return a.to_vector<int64_t>()[0];
    case DType::ui32: return a.to_vector<uint32_t>()[0];
    default: return std::nullopt;
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
  bool ok = (a == body.arg(k) && constant_int(b) == 1) || (b == body.arg(k) && constant_int(a) == 1);
  if (!ok) return std::nullopt;
  auto start = constant_int(op.operands()[k]);
  if (!start) return std::nullopt;
  return std::max<int64_t>(0, *limit - *start);
}

}  // namespace

void register_control_flow_rules(Registry& r) {
  r["stablehlo.if"] = branches_rule;
  r["stablehlo.case"] = branches_rule;
  r["stablehlo.while"] = [](const Op& op, const Cts& cts) {
    auto n = static_trip_count(op);
    if (!n)
      unsupported(op, "reverse mode needs a static trip count: a counter operand starting at a constant, "
                      "a condition `counter < constant` and a body returning `counter + 1`");
    std::vector<Value> all_caps = captured_values(op);
    Cts out(op.operands().size() + all_caps.size());
    std::vector<Value> vals(op.operands().begin(), op.operands().end());
    for (int64_t i = 0; i < *n; ++i) vals = inline_region(*op.regions()[1], vals);
    std::vector<Value> ys, wrt;
    std::vector<Cotangent> gs;
    for (size_t i = 0; i < vals.size(); ++i)
      if (cts[i] && is_inexact(vals[i].dtype())) {
        ys.push_back(vals[i]);
        gs.push_back(*cts[i]);
      }
    std::vector<size_t> slots;
    for (size_t i = 0; i < op.operands().size(); ++i)
      if (is_inexact(op.operands()[i].dtype())) {
        wrt.push_back(op.operands()[i]);
        slots.push_back(i);
      }
    for (size_t i = 0; i < all_caps.size(); ++i)
      if (is_inexact(all_caps[i].dtype())) {
        wrt.push_back(all_caps[i]);
        slots.push_back(op.operands().size() + i);
      }
    if (ys.empty() || wrt.empty()) return out;
    std::vector<Value> g = vjp(ys, gs, wrt);
    for (size_t k = 0; k < g.size(); ++k) out[slots[k]] = g[k];
    return out;
  };
  r["stablehlo.optimization_barrier"] = [](const Op& op, const Cts& cts) {
    Cts out(op.operands().size());
    for (size_t i = 0; i < out.size(); ++i)
      if (cts[i] && is_inexact(op.operands()[i].dtype())) out[i] = cts[i];
    return out;
  };
  r["stablehlo.reduce_precision"] = linear_vjp([](const Op&, Value g) { return g; });
  r["stablehlo.custom_call"] = [](const Op& op, const Cts& cts) {
    std::string target = op.attr("call_target_name")->get_if<StringAttr>()->value;
    const VjpRule* rule = find_vjp("custom_call:" + target);
    if (!rule)
      throw Error(fmt::format("vjp: no VJP rule for op 'stablehlo.custom_call' with target '{}' (at {}:{}); "
                              "register one with hhlo::ad::register_custom_vjp(\"{}\", rule)",
                              target, op.loc().file, op.loc().line, target));
    return (*rule)(op, cts);
  };
}

}  // namespace hhlo::ad::detail
