// Batching of control flow (JAX's _while_loop_batching_rule, _cond_batching_rule):
// - while: a fixpoint over which carried values are batched (a value the body makes batched is
//   carried batched from the start); a batched predicate runs the loop while any example's
//   predicate holds and keeps, per example, the old values once its own predicate is false
//   (select), with every carried value batched.
// - if / case with an unbatched predicate / index: the same op over batched branches whose
//   results are joined (a result batched in one branch is broadcast in the others); with a
//   batched one: every branch is evaluated and the results are selected per example.
#include "batching.h"
#include "hhlo/autodiff/vjp_registry.h"

namespace hhlo::ad::detail {
namespace {

std::vector<Batched> zip_flags(const std::vector<Value>& args, const std::vector<bool>& flags) {
  std::vector<Batched> out;
  for (size_t i = 0; i < args.size(); ++i) out.push_back({args[i], flags[i]});
  return out;
}

// The values of `bs` with the vmapped axis materialized where `flags` says so.
std::vector<Value> to_flags(const std::vector<Batched>& bs, const std::vector<bool>& flags,
                            int64_t n) {
  std::vector<Value> out;
  for (size_t i = 0; i < bs.size(); ++i)
    out.push_back(flags[i] ? materialize(bs[i], n) : bs[i].value);
  return out;
}

// `p` ([n] pred) broadcast over the dims of `like` ([n] ++ dims).
Value pred_like(Value p, Value like) {
  return p.dims() == like.dims() ? p : broadcast_in_dim(p, like.dims(), {0});
}

std::vector<Batched> while_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  const Block& cond = *op.regions()[0];
  const Block& body = *op.regions()[1];
  std::vector<bool> flags;
  for (const Batched& b : xs) flags.push_back(b.batched);
  for (;;) {
    std::vector<bool> out = batched_results(body, flags);
    bool changed = false;
    for (size_t i = 0; i < flags.size(); ++i)
      if (out[i] && !flags[i]) flags[i] = changed = true;
    if (!changed) break;
  }
  bool pred_batched = batched_results(cond, flags)[0];
  if (pred_batched) flags.assign(flags.size(), true);
  std::vector<Value> init = to_flags(xs, flags, n);
  std::vector<Value> res;
  if (!pred_batched) {
    res = while_loop(
        init,
        [&](const std::vector<Value>& a) {
          return std::vector<Value>{batch_block(cond, zip_flags(a, flags))[0].value};
        },
        [&](const std::vector<Value>& a) {
          return to_flags(batch_block(body, zip_flags(a, flags)), flags, n);
        });
  } else {
    auto any_pred = [&](const std::vector<Value>& a) {
      Value p = materialize(batch_block(cond, zip_flags(a, flags))[0], n);
      return p;
    };
    res = while_loop(
        init,
        [&](const std::vector<Value>& a) {
          Value p = any_pred(a);
          Func& f = p.func();
          return std::vector<Value>{reduce(p, constant(f, false, DType::pred), {0},
                                           [](Value acc, Value x) { return or_(acc, x); })};
        },
        [&](const std::vector<Value>& a) {
          Value p = any_pred(a);
          std::vector<Value> next = to_flags(batch_block(body, zip_flags(a, flags)), flags, n);
          std::vector<Value> out;
          for (size_t i = 0; i < a.size(); ++i)
            out.push_back(select(pred_like(p, a[i]), next[i], a[i]));
          return out;
        });
  }
  return zip_flags(res, flags);
}

// if / case: `index` selects among `op`'s regions (if: true is region 0, pred true).
std::vector<Batched> branches_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  bool is_if = op.name() == "stablehlo.if";
  size_t nb = op.regions().size();
  if (!xs[0].batched) {
    std::vector<bool> flags(op.results().size(), false);
    for (const auto& r : op.regions()) {
      std::vector<bool> f = batched_results(*r, {});
      for (size_t i = 0; i < flags.size(); ++i) flags[i] = flags[i] || f[i];
    }
    std::vector<Branch> branches;
    for (const auto& r : op.regions()) {
      const Block* b = r.get();
      branches.push_back([b, &flags, n] { return to_flags(batch_block(*b, {}), flags, n); });
    }
    std::vector<Value> res =
        is_if ? if_(xs[0].value, branches[0], branches[1]) : case_(xs[0].value, branches);
    return zip_flags(res, flags);
  }
  // Batched predicate / index: evaluate every branch, then select per example.
  std::vector<std::vector<Value>> outs;
  for (const auto& r : op.regions()) {
    std::vector<bool> all(op.results().size(), true);
    outs.push_back(to_flags(batch_block(*r, {}), all, n));
  }
  Value idx = xs[0].value;  // [n]
  Func& f = idx.func();
  std::vector<Value> res;
  if (is_if) {
    for (size_t i = 0; i < outs[0].size(); ++i)
      res.push_back(select(pred_like(idx, outs[0][i]), outs[0][i], outs[1][i]));
  } else {
    // An out-of-range index runs the last branch.
    DType t = idx.dtype();
    Value lo = compare(idx, constant(f, 0, t, {n}), ComparisonDirection::LT);
    Value hi = compare(idx, constant(f, static_cast<int64_t>(nb), t, {n}), ComparisonDirection::GE);
    Value last = constant(f, static_cast<int64_t>(nb - 1), t, {n});
    Value k = select(or_(lo, hi), last, idx);
    res = outs[nb - 1];
    for (size_t b = nb - 1; b-- > 0;) {
      Value is_b =
          compare(k, constant(f, static_cast<int64_t>(b), t, {n}), ComparisonDirection::EQ);
      for (size_t i = 0; i < res.size(); ++i)
        res[i] = select(pred_like(is_b, res[i]), outs[b][i], res[i]);
    }
  }
  return zip_flags(res, std::vector<bool>(res.size(), true));
}

}  // namespace

void register_control_flow_batching(BatchRegistry& r) {
  r.insert_or_assign("stablehlo.while", while_batch);
  r.insert_or_assign("stablehlo.if", branches_batch);
  r.insert_or_assign("stablehlo.case", branches_batch);
}

}  // namespace hhlo::ad::detail
