// VJP and JVP of stablehlo.batch_norm_training (through stablehlo.batch_norm_grad) and
// stablehlo.batch_norm_inference (closed form per feature).
#include "rules.h"

namespace hhlo::ad::detail {

using Cts = std::vector<Cotangent>;

void register_batch_norm_rules(Registry& r) {
  r["stablehlo.batch_norm_training"] = [](const Op& op, const Cts& cts) {
    if (cts[1] || cts[2]) unsupported(op, "cotangents of the batch statistics are not supported");
    Cts out(3);
    if (!cts[0]) return out;
    auto eps = static_cast<float>(op.attr("epsilon")->get_if<FloatAttr>()->value);
    int64_t fi = op.attr("feature_index")->get_if<IntAttr>()->value;
    auto g = batch_norm_grad(op.operands()[0], op.operands()[1], op.result(1), op.result(2),
                             *cts[0], eps, fi);
    return Cts{g[0], g[1], g[2]};
  };
  r["stablehlo.batch_norm_inference"] = [](const Op& op, const std::vector<Cotangent>& cts) {
    std::vector<Cotangent> out(5);
    if (!cts[0]) return out;
    double eps = op.attr("epsilon")->get_if<FloatAttr>()->value;
    int64_t fi = op.attr("feature_index")->get_if<IntAttr>()->value;
    Value x = op.operands()[0], scale = op.operands()[1], mean = op.operands()[3],
          var = op.operands()[4];
    Value g = *cts[0];
    std::vector<int64_t> others;
    for (int64_t d = 0; d < x.rank(); ++d)
      if (d != fi) others.push_back(d);
    auto b = [&](Value v) { return broadcast_in_dim(v, x.dims(), {fi}); };
    Value inv = rsqrt(add(var, full_like(var, eps)));
    Value xc = subtract(x, b(mean));
    Value sum_g = reduce_sum(g, others), sum_gxc = reduce_sum(multiply(g, xc), others);
    out[0] = multiply(g, b(multiply(scale, inv)));
    out[1] = multiply(sum_gxc, inv);
    out[2] = sum_g;
    out[3] = negate(multiply(sum_g, multiply(scale, inv)));
    Value inv3 = multiply(inv, multiply(inv, inv));
    out[4] = multiply(sum_gxc, multiply(scale, multiply(inv3, full_like(inv3, -0.5))));
    return out;
  };
}

namespace {

struct BnAttrs {
  double eps;
  int64_t fi;
};
BnAttrs bn_attrs(const Op& op) {
  return {op.attr("epsilon")->get_if<FloatAttr>()->value,
          op.attr("feature_index")->get_if<IntAttr>()->value};
}
std::vector<int64_t> other_dims(Value x, int64_t fi) {
  std::vector<int64_t> d;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (i != fi) d.push_back(i);
  return d;
}
// The epsilon as the spec applies it: an f32 attribute, added in the operand's type.
Value eps_like(Value v, double eps) {
  return full_like(v, static_cast<double>(static_cast<float>(eps)));
}

}  // namespace

// JVP of the batch-norm ops through their decompositions (spec "batch_norm_training",
// "batch_norm_inference", "batch_norm_grad"), differentiated op by op; batch_norm_grad is what the
// VJP of batch_norm_training emits, so second derivatives through batch norm work.
void register_batch_norm_jvps(JvpRegistry& r) {
  r["stablehlo.batch_norm_inference"] = [](const Op& op, const std::vector<Tangent>& ts) {
    BnAttrs a = bn_attrs(op);
    return jvp_of_decomposition(op, ts, [a](const std::vector<Value>& v) {
      Value x = v[0];
      auto b = [&](Value s) { return broadcast_in_dim(s, x.dims(), {a.fi}); };
      Value inv = rsqrt(add(v[4], eps_like(v[4], a.eps)));
      return std::vector<Value>{
          add(multiply(subtract(x, b(v[3])), b(multiply(v[1], inv))), b(v[2]))};
    });
  };
  r["stablehlo.batch_norm_training"] = [](const Op& op, const std::vector<Tangent>& ts) {
    BnAttrs a = bn_attrs(op);
    return jvp_of_decomposition(op, ts, [a](const std::vector<Value>& v) {
      Value x = v[0];
      auto others = other_dims(x, a.fi);
      auto b = [&](Value s) { return broadcast_in_dim(s, x.dims(), {a.fi}); };
      double count = static_cast<double>(x.type().num_elements() / x.dim(a.fi));
      Value mean = divide(reduce_sum(x, others), full_like(v[1], count));
      Value xc = subtract(x, b(mean));
      Value var = divide(reduce_sum(multiply(xc, xc), others), full_like(v[1], count));
      Value inv = rsqrt(add(var, eps_like(var, a.eps)));
      Value y = add(multiply(xc, b(multiply(v[1], inv))), b(v[2]));
      return std::vector<Value>{y, mean, var};
    });
  };
  r["stablehlo.batch_norm_grad"] = [](const Op& op, const std::vector<Tangent>& ts) {
    BnAttrs a = bn_attrs(op);
    return jvp_of_decomposition(op, ts, [a](const std::vector<Value>& v) {
      Value x = v[0], scale = v[1], mean = v[2], var = v[3], gy = v[4];
      auto others = other_dims(x, a.fi);
      auto b = [&](Value s) { return broadcast_in_dim(s, x.dims(), {a.fi}); };
      double count = static_cast<double>(x.type().num_elements() / x.dim(a.fi));
      Value inv = rsqrt(add(var, eps_like(var, a.eps)));
      Value xhat = multiply(subtract(x, b(mean)), b(inv));
      Value sum_g = reduce_sum(gy, others), sum_gx = reduce_sum(multiply(gy, xhat), others);
      Value n = full_like(x, count);
      Value inner = subtract(subtract(multiply(n, gy), b(sum_g)), multiply(xhat, b(sum_gx)));
      Value gx = multiply(b(divide(multiply(scale, inv), full_like(scale, count))), inner);
      return std::vector<Value>{gx, sum_gx, sum_g};
    });
  };
}

}  // namespace hhlo::ad::detail
