// Batching of cholesky, triangular_solve and fft (they already take leading batch dimensions:
// the vmapped axis is one more), and of the RNG ops: rng with per-example bounds draws a batch of
// standard values and scales them; rng_bit_generator with a per-example state runs once per
// example (unrolled, the axis size is static) and stacks the results. An RNG op with unbatched
// operands is re-emitted unchanged (the same draw for every example, as JAX's vmap of an
// unbatched key). jaxlib's LAPACK custom calls (lapack_?getrf_ffi, ...; served by kernels/lapack)
// take leading batch dimensions too: the vmapped axis becomes the outermost one, in the types and
// as the most major dimension of every operand and result layout (as JAX's batched exports have
// them). The QR composite ("hhlo.qr") is re-emitted on the batched matrix (np::linalg::qr_composite
// in the target's module), whether or not its input is batched.
#include "hhlo/ops/linalg.h"

#include "batching.h"

namespace hhlo::ad::detail {
namespace {

std::vector<Batched> leading_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<Value> in;
  for (const Batched& b : xs) in.push_back(materialize(b, n));
  return {{emit(op, in, {batched_type(op.result().type(), n)}, op.attrs())[0], true}};
}

std::vector<Batched> rng_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  if (xs[2].batched) unsupported_batching(op, "the shape operand is batched");
  const Attribute* d = op.attr("rng_distribution");
  const auto* dist = d ? d->get_if<RngDistribution>() : nullptr;
  if (!dist) unsupported_batching(op, "no rng_distribution attribute");
  DType t = op.result().dtype();
  if (!is_float(t))
    unsupported_batching(op, "per-example bounds of an integer rng are not supported");
  Func& f = xs[0].value.func();
  Dims shape = batched_type(op.result().type(), n).dims;
  Value z = rng(constant(f, 0.0, t), constant(f, 1.0, t), shape, *dist);
  auto full = [&](const Batched& b) {
    return b.batched ? broadcast_in_dim(b.value, shape, {0}) : broadcast_in_dim(b.value, shape, {});
  };
  Value a = full(xs[0]), b = full(xs[1]);
  // NORMAL: mean a + stddev b * z.
  if (*dist == RngDistribution::NORMAL) return {{add(a, multiply(b, z)), true}};
  // UNIFORM: a + (b - a) u, in [a, b) as the spec's rng is: with u < 1 the sum still rounds up
  // to b where b's spacing is coarse (b = 11, u = 1 - 2^-23: 10.99999988 rounds to 11), and such
  // a draw becomes a (probability about 2^-22 per draw where it can happen at all).
  Value r = add(a, multiply(subtract(b, a), z));
  return {{select(compare(r, b, ComparisonDirection::LT), r, a), true}};
}

std::vector<Batched> rng_bit_generator_batch(const Op& op, const std::vector<Batched>& xs,
                                             int64_t n) {
  Value s = xs[0].value;  // [n] ++ state
  std::vector<Value> states, bits;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> lo(s.rank(), 0), hi = s.dims();
    lo[0] = i;
    hi[0] = i + 1;
    Value si = reshape(slice(s, lo, hi), op.operands()[0].dims());
    std::vector<Value> r = emit(op, {si}, {op.result(0).type(), op.result(1).type()}, op.attrs());
    states.push_back(reshape(r[0], batched_type(r[0].type(), 1).dims));
    bits.push_back(reshape(r[1], batched_type(r[1].type(), 1).dims));
  }
  auto cat = [](const std::vector<Value>& v) { return v.size() == 1 ? v[0] : concatenate(v, 0); };
  return {{cat(states), true}, {cat(bits), true}};
}

/// A minor-to-major layout with a new outermost (most major) dimension 0 in front of the others.
std::vector<int64_t> with_outer_batch(std::vector<int64_t> layout) {
  for (int64_t& d : layout) ++d;
  layout.push_back(0);
  return layout;
}

std::vector<Batched> lapack_batch(const Op& op, const std::vector<Batched>& xs, int64_t n) {
  std::vector<Value> in;
  for (const Batched& b : xs) in.push_back(materialize(b, n));
  std::vector<NamedAttr> attrs;
  for (NamedAttr a : op.attrs()) {
    // JAX's Shardy rule names one factor per dimension: it no longer fits the batched types
    // (XLA refuses "mapping rank must match"), and one device needs none, so it is dropped.
    if (a.name == "sdy.sharding_rule") continue;
    if (a.name == "operand_layouts" || a.name == "result_layouts")
      if (const auto* l = a.value.get_if<LayoutsAttr>()) {
        LayoutsAttr shifted;
        for (const auto& v : l->layouts) shifted.layouts.push_back(with_outer_batch(v));
        a.value = std::move(shifted);
      }
    if (a.name == "mhlo.frontend_attributes")  // JAX's {num_batch_dims = "k"}: one more
      if (const auto* d = a.value.get_if<DictAttr>()) {
        DictAttr next = *d;
        for (auto& [k, v] : next.entries)
          if (const auto* str = k == "num_batch_dims" ? v.get_if<StringAttr>() : nullptr)
            v = StringAttr{std::to_string(std::stoll("0" + str->value) + 1)};
        a.value = std::move(next);
      }
    attrs.push_back(std::move(a));
  }
  return emit_batched(op, in, n, std::move(attrs));
}

std::vector<Batched> qr_composite_batch(const Op& op, const std::vector<Batched>& xs, int64_t) {
  bool full = false;
  if (const Attribute* a = op.attr("composite_attributes"))
    if (const auto* d = a->get_if<DictAttr>())
      for (const auto& [k, v] : d->entries)
        if (const auto* b = k == "full_matrices" ? v.get_if<BoolAttr>() : nullptr) full = b->value;
  std::vector<Value> qr = np::linalg::qr_composite(xs[0].value, full);
  return {{qr[0], xs[0].batched}, {qr[1], xs[0].batched}};
}

}  // namespace

void register_linalg_batching(BatchRegistry& r) {
  // (real, complex) routine names, as kernels/lapack serves them.
  using Names = std::pair<const char*, const char*>;
  for (auto [re, cx] : std::initializer_list<Names>{{"getrf", "getrf"},
                                                    {"trsm", "trsm"},
                                                    {"potrf", "potrf"},
                                                    {"syevd", "heevd"},
                                                    {"gesdd", "gesdd"},
                                                    {"gesvd", "gesvd"},
                                                    {"geqrf", "geqrf"},
                                                    {"orgqr", "ungqr"},
                                                    {"geev", "geev"}})
    for (char p : {'s', 'd', 'c', 'z'})
      r.insert_or_assign(
          fmt::format("custom_call:lapack_{}{}_ffi", p, p == 'c' || p == 'z' ? cx : re),
          lapack_batch);
  r.insert_or_assign("composite:hhlo.qr", qr_composite_batch);
  r.insert_or_assign("stablehlo.cholesky", leading_batch);
  r.insert_or_assign("stablehlo.triangular_solve", leading_batch);
  r.insert_or_assign("stablehlo.fft", leading_batch);
  r.insert_or_assign("stablehlo.rng", rng_batch);
  r.insert_or_assign("stablehlo.rng_bit_generator", rng_bit_generator_batch);
}

}  // namespace hhlo::ad::detail
