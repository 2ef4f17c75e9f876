// VJP and JVP rules of the data-movement ops: broadcast_in_dim, reshape, transpose, slice,
// concatenate (all linear: JAX deflinear2 transposes; the same for real and complex values).
#include "rules.h"

namespace hhlo::ad::detail {

// Zero padding of `x` (low/high may be negative: cropping; interior >= 0), built from
// concatenate/reshape/slice so it needs no pad op. Result dims per the spec of stablehlo.pad.
Value pad_zeros(Value x, const std::vector<int64_t>& low, const std::vector<int64_t>& high,
                const std::vector<int64_t>& interior) {
  Func& f = x.func();
  for (int64_t d = 0; d < x.rank(); ++d) {
    auto ud = static_cast<size_t>(d);
    int64_t in = interior.empty() ? 0 : interior[ud];
    if (in > 0 && x.dim(d) > 1) {
      Dims e = x.dims();
      e.insert(e.begin() + d + 1, 1);
      Value xe = reshape(x, e);
      Dims zd = e;
      zd[ud + 1] = in;
      Value cat = concatenate({xe, constant(f, 0.0, x.dtype(), zd)}, d + 1);
      Dims merged = x.dims();
      merged[ud] = x.dim(d) * (in + 1);
      Value flat = reshape(cat, merged);
      std::vector<int64_t> start(static_cast<size_t>(x.rank()), 0), limit = flat.dims();
      limit[ud] -= in;
      x = slice(flat, start, limit);
    }
    for (int side = 0; side < 2; ++side) {
      int64_t amount = side == 0 ? low[ud] : high[ud];
      if (amount > 0) {
        Dims zd = x.dims();
        zd[ud] = amount;
        Value zero = constant(f, 0.0, x.dtype(), zd);
        x = side == 0 ? concatenate({zero, x}, d) : concatenate({x, zero}, d);
      } else if (amount < 0) {
        std::vector<int64_t> start(static_cast<size_t>(x.rank()), 0), limit = x.dims();
        if (side == 0)
          start[ud] = -amount;
        else
          limit[ud] += amount;
        x = slice(x, start, limit);
      }
    }
  }
  return x;
}

void register_shape_rules(Registry& r) {
  r["stablehlo.broadcast_in_dim"] = linear_vjp([](const Op& op, Value g) {
    auto bd = op.attr("broadcast_dimensions")->get_if<I64ArrayAttr>()->values;
    return unbroadcast(g, op.operands()[0].dims(), bd);
  });
  r["stablehlo.reshape"] =
      linear_vjp([](const Op& op, Value g) { return reshape(g, op.operands()[0].dims()); });
  r["stablehlo.transpose"] = linear_vjp([](const Op& op, Value g) {
    auto perm = op.attr("permutation")->get_if<I64ArrayAttr>()->values;
    std::vector<int64_t> inv(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    return transpose(g, inv);
  });
  r["stablehlo.slice"] = linear_vjp([](const Op& op, Value g) {
    auto start = op.attr("start_indices")->get_if<I64ArrayAttr>()->values;
    auto strides = op.attr("strides")->get_if<I64ArrayAttr>()->values;
    const Dims& in = op.operands()[0].dims();
    std::vector<int64_t> low = start, high(in.size()), interior(in.size());
    for (size_t d = 0; d < in.size(); ++d) {
      int64_t s = strides.empty() ? 1 : strides[d];
      interior[d] = s - 1;
      int64_t n = g.dims()[d];
      int64_t covered = n == 0 ? 0 : start[d] + (n - 1) * s + 1;
      high[d] = in[d] - covered;
      if (n == 0) low[d] = 0, high[d] = in[d], interior[d] = 0;
    }
    return pad_zeros(g, low, high, interior);
  });
  r["stablehlo.concatenate"] = [](const Op& op, const std::vector<Cotangent>& cts) {
    std::vector<Cotangent> out(op.operands().size());
    if (!cts[0]) return out;
    Value g = *cts[0];
    int64_t dim = op.attr("dimension")->get_if<IntAttr>()->value;
    int64_t at = 0;
    for (size_t i = 0; i < op.operands().size(); ++i) {
      Value x = op.operands()[i];
      std::vector<int64_t> start(static_cast<size_t>(g.rank()), 0), limit = g.dims();
      start[static_cast<size_t>(dim)] = at;
      limit[static_cast<size_t>(dim)] = at + x.dim(dim);
      at += x.dim(dim);
      if (is_inexact(x.dtype())) out[i] = slice(g, start, limit);
    }
    return out;
  };
}

void register_shape_jvps(JvpRegistry& r) {
  // Linear: each applies itself to the tangents.
  for (const char* n : {"stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.transpose",
                        "stablehlo.slice", "stablehlo.concatenate"})
    r[n] = linear_jvp();
}

}  // namespace hhlo::ad::detail
