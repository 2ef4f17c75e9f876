// VJP and JVP of stablehlo.reduce_window with one input and an add (sum pooling: JAX
// _reduce_window_sum_transpose_rule, a padded reduce_window of the cotangent) or maximum / minimum
// body (max pooling: stablehlo.select_and_scatter routes each window's cotangent to the element
// it chose, as XLA's MaxPoolGrad).
#include "rules.h"

namespace hhlo::ad::detail {
namespace {

std::string single_body_op(const Op& op) {
  const Block& b = *op.regions().at(0);
  std::vector<const Op*> real;
  for (const auto& o : b.ops())
    if (o->name() != "stablehlo.return") real.push_back(o.get());
  if (real.size() != 1) return "";
  return real[0]->name();
}

int64_t dilate(int64_t s, int64_t d) { return s == 0 ? 0 : 1 + d * (s - 1); }

}  // namespace

void register_reduce_window_rules(Registry& r) {
  r["stablehlo.reduce_window"] = [](const Op& op, const std::vector<Cotangent>& cts) {
    if (op.operands().size() != 2)
      unsupported(op, "only single-input reduce_window is differentiable");
    std::vector<Cotangent> out(2);
    if (!cts[0]) return out;
    Value x = op.operands()[0], g = *cts[0];
    auto attr = [&](const char* n) { return op.attr(n)->get_if<I64ArrayAttr>()->values; };
    auto win = attr("window_dimensions"), strides = attr("window_strides"),
         bdil = attr("base_dilations"), wdil = attr("window_dilations");
    auto pv = op.attr("padding")->get_if<DenseAttr>()->array->to_vector<int64_t>();
    std::vector<std::pair<int64_t, int64_t>> padding;
    for (size_t i = 0; i + 1 < pv.size(); i += 2) padding.emplace_back(pv[i], pv[i + 1]);
    std::string kind = single_body_op(op);
    if (kind == "stablehlo.add") {
      std::vector<int64_t> lo, hi, interior;
      for (size_t i = 0; i < win.size(); ++i) {
        int64_t ld = dilate(x.dim(static_cast<int64_t>(i)), bdil[i]), rd = dilate(win[i], wdil[i]);
        int64_t od = dilate(g.dim(static_cast<int64_t>(i)), strides[i]);
        int64_t before = rd - padding[i].first - 1;
        lo.push_back(before);
        hi.push_back(ld + rd - 1 - od - before);
        interior.push_back(strides[i] - 1);
      }
      Value padded = pad(g, constant(g.func(), 0.0, g.dtype()), lo, hi, interior);
      WindowOptions o;
      o.window_strides = bdil;
      o.window_dilations = wdil;
      out[0] = reduce_window(
          {padded}, {constant(g.func(), 0.0, g.dtype())}, win, o,
          [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; })[0];
      if (out[0]->dims() != x.dims())
        unsupported(op, "internal: sum-pool transpose produced the wrong shape");
    } else if (kind == "stablehlo.maximum" || kind == "stablehlo.minimum") {
      real_tangent(op, x);
      for (size_t i = 0; i < win.size(); ++i)
        if (bdil[i] != 1 || wdil[i] != 1)
          unsupported(op, "max/min pooling with dilations is not differentiable here");
      auto dir = kind == "stablehlo.maximum" ? ComparisonDirection::GE : ComparisonDirection::LE;
      out[0] = select_and_scatter(
          x, g, constant(g.func(), 0.0, g.dtype()), win, strides, padding,
          [dir](Value a, Value b) { return compare(a, b, dir); },
          [](Value a, Value b) { return add(a, b); });
    } else {
      unsupported(op, "the reduce_window body is not a single add / maximum / minimum");
    }
    return out;
  };
}

// JVP of reduce_window: sum is linear (applied to the tangents); max / min carry the tangent
// along in a two-input reduce_window that keeps the (value, tangent) pair of the chosen element
// (JAX's select_and_gather_add, written as a pair reduction; padding holds (init, 0)). The
// select_and_scatter that the max-pool VJP emits is linear in (source, init) for fixed selections.
void register_reduce_window_jvps(JvpRegistry& r) {
  r["stablehlo.reduce_window"] = [](const Op& op, const std::vector<Tangent>& ts) {
    if (op.operands().size() != 2)
      unsupported(op, "only single-input reduce_window is differentiable", "JVP");
    std::string kind = single_body_op(op);
    if (kind == "stablehlo.add") return linear_jvp()(op, ts);
    if (kind != "stablehlo.maximum" && kind != "stablehlo.minimum")
      unsupported(op, "the reduce_window body is not a single add / maximum / minimum", "JVP");
    std::vector<Tangent> out(1);
    Value x = op.operands()[0], init = op.operands()[1];
    real_tangent(op, x, "JVP");
    if (ts[1])
      unsupported(op, "the tangent of a max/min reduce_window's init value is not supported",
                  "JVP");
    if (!ts[0]) return out;
    auto attr = [&](const char* n) { return op.attr(n)->get_if<I64ArrayAttr>()->values; };
    WindowOptions o;
    o.window_strides = attr("window_strides");
    o.base_dilations = attr("base_dilations");
    o.window_dilations = attr("window_dilations");
    auto pv = op.attr("padding")->get_if<DenseAttr>()->array->to_vector<int64_t>();
    for (size_t i = 0; i + 1 < pv.size(); i += 2) o.padding.emplace_back(pv[i], pv[i + 1]);
    auto dir = kind == "stablehlo.maximum" ? ComparisonDirection::GE : ComparisonDirection::LE;
    Value tzero = constant(x.func(), 0.0, x.dtype());
    auto res = reduce_window(
        {x, *ts[0]}, {init, tzero}, attr("window_dimensions"), o,
        [dir](const std::vector<Value>& a) {
          Value keep = compare(a[0], a[2], dir);
          return std::vector<Value>{select(keep, a[0], a[2]), select(keep, a[1], a[3])};
        });
    out[0] = res[1];
    return out;
  };
  r["stablehlo.select_and_scatter"] = [](const Op& op, const std::vector<Tangent>& ts) {
    std::string scatter_op;
    {
      const Block& b = *op.regions().at(1);
      std::vector<const Op*> real;
      for (const auto& o : b.ops())
        if (o->name() != "stablehlo.return") real.push_back(o.get());
      if (real.size() == 1) scatter_op = real[0]->name();
    }
    if (scatter_op != "stablehlo.add")
      unsupported(op, "only select_and_scatter with an add scatter body is differentiable", "JVP");
    Value operand = op.operands()[0], source = op.operands()[1], init = op.operands()[2];
    std::vector<Tangent> out(1);
    if (!ts[1] && !ts[2]) return out;  // the operand only chooses positions: piecewise constant
    out[0] = reapply(op, {operand, ts[1] ? *ts[1] : full_like(source, 0.0),
                          ts[2] ? *ts[2] : full_like(init, 0.0)})[0];
    return out;
  };
}

}  // namespace hhlo::ad::detail
