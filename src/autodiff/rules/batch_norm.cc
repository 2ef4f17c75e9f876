// VJP of stablehlo.batch_norm_training (through stablehlo.batch_norm_grad) and
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
    auto g = batch_norm_grad(op.operands()[0], op.operands()[1], op.result(1), op.result(2), *cts[0], eps, fi);
    return Cts{g[0], g[1], g[2]};
  };
  r["stablehlo.batch_norm_inference"] = [](const Op& op, const std::vector<Cotangent>& cts) {
    std::vector<Cotangent> out(5);
    if (!cts[0]) return out;
    double eps = op.attr("epsilon")->get_if<FloatAttr>()->value;
    int64_t fi = op.attr("feature_index")->get_if<IntAttr>()->value;
    Value x = op.operands()[0], scale = op.operands()[1], mean = op.operands()[3], var = op.operands()[4];
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

}  // namespace hhlo::ad::detail
