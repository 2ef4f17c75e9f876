// VJP and JVP rules of pad, reverse, dynamic_slice, dynamic_update_slice, gather, scatter (add,
// replace, multiply, minimum, maximum bodies) and sort (JAX lax/slicing.py transposes and JVPs:
// _scatter_mul_jvp_rhs / _scatter_mul_transpose_rule, _scatter_extremal_jvp; sort through the
// permutation as in JAX _sort_jvp).
#include <algorithm>
#include <cstdint>
#include <optional>

#include "rules.h"

namespace hhlo::ad::detail {
namespace {

using Cts = std::vector<Cotangent>;
std::vector<int64_t> i64s(const Op& op, const char* name) {
  return op.attr(name)->get_if<I64ArrayAttr>()->values;
}
Value zeros(Value like) { return full_like(like, 0.0); }
// The largest value of integer type `t`, as int64 (a bound past it is never reached by an index
// of that type, and a constant of it would not fit).
int64_t index_type_max(DType t) {
  int bits = bit_width(t);
  if (bits >= 64) return INT64_MAX;
  return is_unsigned_int(t) ? (int64_t{1} << bits) - 1 : (int64_t{1} << (bits - 1)) - 1;
}
std::vector<int64_t> iota_dims(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 0; i < n; ++i) d.push_back(i);
  return d;
}

// The single op of a scatter body, or "" (add, multiply, minimum, maximum and replace-by-update
// are recognized).
std::string scatter_kind(const Op& op) {
  const Block& b = *op.regions().at(0);
  std::vector<const Op*> real;
  for (const auto& o : b.ops())
    if (o->name() != "stablehlo.return") real.push_back(o.get());
  if (real.empty()) {
    const Op& ret = *b.ops().back();
    if (ret.operands().size() == 1 && ret.operands()[0] == b.arg(1)) return "replace";
    return "";
  }
  if (real.size() != 1) return "";
  for (const char* k : {"add", "multiply", "minimum", "maximum"})
    if (real[0]->name() == std::string("stablehlo.") + k) return k;
  return "";
}

bool attr_true(const Op& op, const char* name) {
  const Attribute* a = op.attr(name);
  const auto* b = a ? a->get_if<BoolAttr>() : nullptr;
  return b && b->value;
}

// The size of scatter `op`'s update window along each operand dimension (1 for the inserted and
// batching dimensions): JAX's slice_sizes of the "inverse of the scatter".
std::vector<int64_t> window_sizes(const Op& op) {
  const auto& dn = *op.attr("scatter_dimension_numbers")->get_if<ScatterDimensionNumbers>();
  Value x = op.operands()[0], upd = op.operands()[2];
  std::vector<int64_t> sizes;
  size_t pos = 0;
  for (int64_t d = 0; d < x.rank(); ++d) {
    auto in = [&](const std::vector<int64_t>& v) {
      return std::find(v.begin(), v.end(), d) != v.end();
    };
    if (in(dn.inserted_window_dims) || in(dn.input_batching_dims))
      sizes.push_back(1);
    else
      sizes.push_back(upd.dim(dn.update_window_dims[pos++]));
  }
  return sizes;
}

// The gather that reads, for scatter `op`, each update's window of the operand (JAX's
// gather_dnums / slice_sizes "inverse of the scatter"): result of the updates' shape. Gather
// clamps a window outside the operand into it: see windows_in_bounds.
Value gather_windows(const Op& op, Value from) {
  const auto& dn = *op.attr("scatter_dimension_numbers")->get_if<ScatterDimensionNumbers>();
  Value idx = op.operands()[1];
  GatherDimensionNumbers gd{.offset_dims = dn.update_window_dims,
                            .collapsed_slice_dims = dn.inserted_window_dims,
                            .operand_batching_dims = dn.input_batching_dims,
                            .start_indices_batching_dims = dn.scatter_indices_batching_dims,
                            .start_index_map = dn.scatter_dims_to_operand_dims,
                            .index_vector_dim = dn.index_vector_dim};
  return gather(from, idx, gd, window_sizes(op));
}

// Whether each update element of scatter `op` lies in a window inside the operand (i1, the
// updates' shape), or nullopt when every window does (no scattered dimension). XLA skips a whole
// update window that does not fit, as JAX's mode="drop" (FILL_OR_DROP, the default of the .at[]
// updates) says; JAX's transposes then gather with the same mode, which masks exactly these
// windows (_gather_fill: 0 <= start <= operand dim - window size). Nothing flows to or from an
// update that was dropped: the gradients of gather_windows are masked with this.
std::optional<Value> windows_in_bounds(const Op& op) {
  const auto& dn = *op.attr("scatter_dimension_numbers")->get_if<ScatterDimensionNumbers>();
  Value x = op.operands()[0], idx = op.operands()[1], upd = op.operands()[2];
  Func& f = idx.func();
  const int64_t ivd = dn.index_vector_dim;
  Dims scatter_shape = idx.dims();
  if (ivd < idx.rank()) scatter_shape.erase(scatter_shape.begin() + ivd);
  std::vector<int64_t> sizes = window_sizes(op);
  std::optional<Value> ok;
  for (size_t k = 0; k < dn.scatter_dims_to_operand_dims.size(); ++k) {
    int64_t d = dn.scatter_dims_to_operand_dims[k];
    int64_t bound = std::min(x.dim(d) - sizes[static_cast<size_t>(d)], index_type_max(idx.dtype()));
    Value start = idx;
    if (ivd < idx.rank()) {
      std::vector<int64_t> lo(static_cast<size_t>(idx.rank()), 0), hi = idx.dims();
      lo[static_cast<size_t>(ivd)] = static_cast<int64_t>(k);
      hi[static_cast<size_t>(ivd)] = static_cast<int64_t>(k) + 1;
      start = reshape(slice(idx, lo, hi), scatter_shape);
    }
    Value in = bound < 0 ? compare(start, start, ComparisonDirection::NE)  // never fits
                         : and_(compare(start, constant(f, 0, idx.dtype(), scatter_shape),
                                        ComparisonDirection::GE),
                                compare(start, constant(f, bound, idx.dtype(), scatter_shape),
                                        ComparisonDirection::LE));
    ok = ok ? and_(*ok, in) : in;
  }
  if (!ok) return std::nullopt;
  std::vector<int64_t> update_scatter_dims;
  for (int64_t d = 0; d < upd.rank(); ++d)
    if (std::find(dn.update_window_dims.begin(), dn.update_window_dims.end(), d) ==
        dn.update_window_dims.end())
      update_scatter_dims.push_back(d);
  return broadcast_in_dim(*ok, upd.dims(), update_scatter_dims);
}

// `v` (of the updates' shape) where scatter `op`'s update windows fit in the operand, else 0.
Value in_bounds_only(const Op& op, Value v) {
  std::optional<Value> ok = windows_in_bounds(op);
  return ok ? select(*ok, v, zeros(v)) : v;
}

// scatter-add of `updates` into `operand` at `op`'s indices, with `op`'s dimension numbers.
Value scatter_add_at(const Op& op, Value operand, Value updates) {
  const auto& dn = *op.attr("scatter_dimension_numbers")->get_if<ScatterDimensionNumbers>();
  return scatter(
      {operand}, op.operands()[1], {updates}, dn,
      [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; },
      attr_true(op, "indices_are_sorted"), attr_true(op, "unique_indices"))[0];
}

// JAX's _scatter_extremal_jvp coefficients for a scatter-min / scatter-max `op`: the tangent of
// the result is scatter_add(t_x, idx, gather(t_x) * operand_coef + t_upd * updates_coef), where
// updates tied with the result share its tangent with a retained operand value (the average).
struct ExtremalCoefs {
  Value operand_coef, updates_coef;
};
ExtremalCoefs extremal_coefs(const Op& op) {
  Value x = op.operands()[0], upd = op.operands()[2], out = op.result(0);
  Value initial = gather_windows(op, x), target = gather_windows(op, out);
  Value ok = compare(upd, target, ComparisonDirection::EQ);
  Value retained = compare(initial, target, ComparisonDirection::EQ);
  Value one = full_like(upd, 1.0), zero = zeros(upd);
  Value num_updates = gather_windows(op, scatter_add_at(op, zeros(x), select(ok, one, zero)));
  Value num_refs = gather_windows(op, scatter_add_at(op, zeros(x), one));
  Value with_op = divide(one, add(num_updates, one)), alone = divide(one, num_updates);
  Value updates_coef = select(ok, select(retained, with_op, alone), zero);
  Value operand_norm = select(retained, with_op, zero);
  Value operand_coef = divide(subtract(operand_norm, one), num_refs);
  return {operand_coef, updates_coef};
}

// Gather start indices clamped the way gather clamps them, so that the scatter transpose touches
// exactly the gathered windows.
Value clamp_gather_indices(Value idx, const GatherDimensionNumbers& dn, const Dims& operand,
                           const std::vector<int64_t>& slice_sizes) {
  Func& f = idx.func();
  std::vector<int64_t> hi;
  for (int64_t d : dn.start_index_map)
    hi.push_back(operand[static_cast<size_t>(d)] - slice_sizes[static_cast<size_t>(d)]);
  Array h(DType::i64, {static_cast<int64_t>(hi.size())});
  for (size_t i = 0; i < hi.size(); ++i)
    static_cast<int64_t*>(h.data())[i] = std::min(hi[i], index_type_max(idx.dtype()));
  // Every integer index type (they were left unclamped but i32 and i64, and the transpose then
  // dropped what gather had clamped).
  Value hv = idx.dtype() == DType::i64 ? constant(f, h) : convert(constant(f, h), idx.dtype());
  Value hb = dn.index_vector_dim < idx.rank()
                 ? broadcast_in_dim(hv, idx.dims(), {dn.index_vector_dim})
                 : broadcast_in_dim(reshape(hv, {}), idx.dims(), {});
  return clamp(constant(f, 0, idx.dtype(), idx.dims()), idx, hb);
}

}  // namespace

void register_indexing_rules(Registry& r) {
  r["stablehlo.pad"] = [](const Op& op, const Cts& cts) {
    Cts out(2);
    if (!cts[0]) return out;
    Value g = *cts[0], x = op.operands()[0];
    auto lo = i64s(op, "edge_padding_low"), hi = i64s(op, "edge_padding_high"),
         in = i64s(op, "interior_padding");
    std::vector<int64_t> nlo, nhi, zero(lo.size(), 0), stride;
    for (size_t i = 0; i < lo.size(); ++i) {
      nlo.push_back(-lo[i]);
      nhi.push_back(-hi[i]);
      stride.push_back(in[i] + 1);
    }
    Value unpadded = pad(g, constant(g.func(), 0.0, g.dtype()), nlo, nhi, zero);
    Value gx = slice(unpadded, zero, unpadded.dims(), stride);
    out[0] = gx;
    if (is_inexact(op.operands()[1].dtype())) {
      auto all = iota_dims(g.rank());
      out[1] = subtract(reduce_sum(g, all), reduce_sum(gx, all));
    }
    (void)x;
    return out;
  };
  r["stablehlo.reverse"] =
      linear_vjp([](const Op& op, Value g) { return reverse(g, i64s(op, "dimensions")); });
  r["stablehlo.dynamic_slice"] = [](const Op& op, const Cts& cts) {
    Cts out(op.operands().size());
    if (!cts[0]) return out;
    Value x = op.operands()[0];
    std::vector<Value> idx(op.operands().begin() + 1, op.operands().end());
    out[0] = dynamic_update_slice(zeros(x), *cts[0], idx);
    return out;
  };
  r["stablehlo.dynamic_update_slice"] = [](const Op& op, const Cts& cts) {
    Cts out(op.operands().size());
    if (!cts[0]) return out;
    Value g = *cts[0], upd = op.operands()[1];
    std::vector<Value> idx(op.operands().begin() + 2, op.operands().end());
    out[0] = dynamic_update_slice(g, zeros(upd), idx);
    if (is_inexact(upd.dtype())) out[1] = dynamic_slice(g, idx, upd.dims());
    return out;
  };
  r["stablehlo.gather"] = [](const Op& op, const Cts& cts) {
    Cts out(2);
    if (!cts[0]) return out;
    const auto& dn = *op.attr("dimension_numbers")->get_if<GatherDimensionNumbers>();
    auto sizes = i64s(op, "slice_sizes");
    Value x = op.operands()[0], g = *cts[0];
    Value idx = clamp_gather_indices(op.operands()[1], dn, x.dims(), sizes);
    ScatterDimensionNumbers sd{.update_window_dims = dn.offset_dims,
                               .inserted_window_dims = dn.collapsed_slice_dims,
                               .input_batching_dims = dn.operand_batching_dims,
                               .scatter_indices_batching_dims = dn.start_indices_batching_dims,
                               .scatter_dims_to_operand_dims = dn.start_index_map,
                               .index_vector_dim = dn.index_vector_dim};
    out[0] = scatter({zeros(x)}, idx, {g}, sd, [](const std::vector<Value>& a) {
      return std::vector<Value>{add(a[0], a[1])};
    })[0];
    return out;
  };
  r["stablehlo.scatter"] = [](const Op& op, const Cts& cts) {
    if (op.operands().size() != 3) unsupported(op, "only single-input scatter is differentiable");
    Cts out(3);
    if (!cts[0]) return out;
    std::string kind = scatter_kind(op);
    if (kind.empty())
      unsupported(op,
                  "only scatter bodies of a single add, multiply, minimum or maximum, or a "
                  "replacement by the update, are differentiable");
    Value x0 = op.operands()[0], u0 = op.operands()[2];
    if (kind == "multiply") {  // JAX's _scatter_mul_transpose_rule
      if (!real_tangent(op, x0)) return out;
      out[0] = reapply(op, {*cts[0], op.operands()[1], u0})[0];
      if (is_inexact(u0.dtype()) && needs_cotangent(2)) {
        if (!attr_true(op, "unique_indices"))
          unsupported(op,
                      "the updates' cotangent of a scatter with a multiply body needs "
                      "unique_indices = true (as JAX's scatter_mul)");
        out[2] = in_bounds_only(op, gather_windows(op, multiply(*cts[0], x0)));
      }
      return out;
    }
    if (kind == "minimum" || kind == "maximum") {  // the transpose of _scatter_extremal_jvp
      if (!real_tangent(op, x0)) return out;
      ExtremalCoefs c = extremal_coefs(op);
      Value gw = gather_windows(op, *cts[0]);
      out[0] = add(*cts[0], scatter_add_at(op, zeros(x0), multiply(gw, c.operand_coef)));
      if (is_inexact(u0.dtype())) out[2] = in_bounds_only(op, multiply(gw, c.updates_coef));
      return out;
    }
    const auto& dn = *op.attr("scatter_dimension_numbers")->get_if<ScatterDimensionNumbers>();
    Value g = *cts[0], idx = op.operands()[1], upd = op.operands()[2];
    if (kind == "add") {
      out[0] = g;
    } else {  // replace: scattered positions lose the operand's cotangent
      Value mask = scatter({full_like(g, 1.0)}, idx, {zeros(upd)}, dn,
                           [](const std::vector<Value>& a) { return std::vector<Value>{a[1]}; })[0];
      out[0] = multiply(g, mask);
    }
    // A dropped update's cotangent is 0 (gather would read the clamped window's).
    if (is_inexact(upd.dtype())) out[2] = in_bounds_only(op, gather_windows(op, g));
    return out;
  };
  r["stablehlo.sort"] = [](const Op& op, const Cts& cts) {
    size_t n = op.operands().size();
    Cts out(n);
    int64_t dim = op.attr("dimension")->get_if<IntAttr>()->value;
    Value x0 = op.operands()[0];
    Func& f = x0.func();
    // 1. The permutation: sort an iota along with the inputs, by the original comparator.
    std::vector<Value> in(op.operands().begin(), op.operands().end());
    in.push_back(iota(f, {DType::i32, x0.dims()}, dim));
    const Block* cmp = op.regions().at(0).get();
    std::vector<Value> sorted = sort(
        in, dim,
        [cmp, n](const std::vector<Value>& a) {
          return inline_region(*cmp,
                               std::vector<Value>(a.begin(), a.begin() + static_cast<long>(2 * n)));
        },
        true);
    Value perm = sorted.back();
    // 2. Scatter each cotangent back by sorting it along with the permutation (ct_x[perm[j]] =
    // ct_y[j]).
    std::vector<Value> back = {perm};
    std::vector<size_t> which;
    for (size_t i = 0; i < n; ++i)
      if (cts[i] && is_inexact(op.operands()[i].dtype())) {
        back.push_back(*cts[i]);
        which.push_back(i);
      }
    if (which.empty()) return out;
    std::vector<Value> un = sort(back, dim, [](const std::vector<Value>& a) {
      return std::vector<Value>{compare(a[0], a[1], ComparisonDirection::LT)};
    });
    for (size_t k = 0; k < which.size(); ++k) out[which[k]] = un[k + 1];
    return out;
  };
}

// JVP: pad (jointly in operand and padding value), reverse, the dynamic slices, gather and
// scatter-add / scatter-replace are linear in their float operands (indices kept); scatter-multiply
// and scatter-min / max take JAX's rules; sort permutes the tangents with the operands (they ride
// along in a sort by the original comparator).
void register_indexing_jvps(JvpRegistry& r) {
  for (const char* n : {"stablehlo.pad", "stablehlo.reverse", "stablehlo.dynamic_slice",
                        "stablehlo.dynamic_update_slice", "stablehlo.gather"})
    r[n] = linear_jvp();
  r["stablehlo.scatter"] = [](const Op& op, const std::vector<Tangent>& ts) {
    if (op.operands().size() != 3)
      unsupported(op, "only single-input scatter is differentiable", "JVP");
    std::string kind = scatter_kind(op);
    if (kind.empty())
      unsupported(op,
                  "only scatter bodies of a single add, multiply, minimum or maximum, or a "
                  "replacement by the update, are differentiable",
                  "JVP");
    if (kind == "add" || kind == "replace") return linear_jvp()(op, ts);
    std::vector<Tangent> out(1);
    Value x = op.operands()[0], idx = op.operands()[1], upd = op.operands()[2];
    if (!real_tangent(op, x, "JVP") || (!ts[0] && !ts[2])) return out;
    if (kind == "multiply") {  // JAX's defjvp of scatter_mul_p
      if (ts[0]) out[0] = reapply(op, {*ts[0], idx, upd})[0];
      if (ts[2]) {
        if (!attr_true(op, "unique_indices"))
          unsupported(op,
                      "the updates' tangent of a scatter with a multiply body needs "
                      "unique_indices = true (as JAX's scatter_mul)",
                      "JVP");
        Value t = multiply(x, scatter_add_at(op, zeros(x), *ts[2]));
        out[0] = out[0] ? add(*out[0], t) : t;
      }
      return out;
    }
    // minimum / maximum: JAX's _scatter_extremal_jvp.
    ExtremalCoefs c = extremal_coefs(op);
    Value tx = ts[0] ? *ts[0] : zeros(x), tu = ts[2] ? *ts[2] : zeros(upd);
    Value tw = add(multiply(gather_windows(op, tx), c.operand_coef), multiply(tu, c.updates_coef));
    out[0] = scatter_add_at(op, tx, tw);
    return out;
  };
  r["stablehlo.sort"] = [](const Op& op, const std::vector<Tangent>& ts) {
    size_t n = op.operands().size();
    std::vector<Tangent> out(n);
    int64_t dim = op.attr("dimension")->get_if<IntAttr>()->value;
    bool stable = false;
    if (const Attribute* a = op.attr("is_stable"))
      if (const auto* b = a->get_if<BoolAttr>()) stable = b->value;
    std::vector<Value> in(op.operands().begin(), op.operands().end());
    std::vector<size_t> which;
    for (size_t i = 0; i < n; ++i)
      if (ts[i] && is_inexact(op.operands()[i].dtype())) {
        in.push_back(*ts[i]);
        which.push_back(i);
      }
    if (which.empty()) return out;
    const Block* cmp = op.regions().at(0).get();
    std::vector<Value> sorted = sort(
        in, dim,
        [cmp, n](const std::vector<Value>& a) {
          return inline_region(*cmp,
                               std::vector<Value>(a.begin(), a.begin() + static_cast<long>(2 * n)));
        },
        stable);
    for (size_t k = 0; k < which.size(); ++k) out[which[k]] = sorted[n + k];
    return out;
  };
}

}  // namespace hhlo::ad::detail
