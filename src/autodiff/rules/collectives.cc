// VJP and JVP rules of the collectives and of sdy.sharding_constraint (JAX's transposes in
// jax/_src/lax/parallel.py, SPMD semantics: every device computes its own copy of the loss and
// the gradient is of their sum). all_reduce-sum is self-transposed (psum of the cotangent),
// all_gather and reduce_scatter-sum transpose into each other, all_to_all into the all_to_all
// that swaps split and concat dimensions, collective_permute into the inverse permutation, and a
// sharding constraint puts the same constraint on the cotangent. All are linear: their JVPs
// apply the op to the tangents.
#include "hhlo/autodiff/jvp_registry.h"
#include "rules.h"

namespace hhlo::ad::detail {
namespace {

/// Whether the reduction region of `op` is `return add(a, b)` of its two arguments.
bool is_sum(const Op& op) {
  if (op.regions().size() != 1) return false;
  const Block& b = *op.regions()[0];
  if (b.ops().size() != 2 || b.args().size() != 2) return false;
  const Op& add = *b.ops()[0];
  const Op& ret = *b.ops()[1];
  if (add.name() != "stablehlo.add" || ret.operands().size() != 1) return false;
  if (ret.operands()[0].id() != add.result().id()) return false;
  uint32_t a0 = add.operands()[0].id(), a1 = add.operands()[1].id();
  uint32_t x = b.args()[0].id(), y = b.args()[1].id();
  return (a0 == x && a1 == y) || (a0 == y && a1 == x);
}

ReplicaGroups groups_of(const Op& op, std::string_view name = "replica_groups") {
  const Attribute* a = op.attr(name);
  std::optional<ReplicaGroups> g = a ? replica_groups_of(*a) : std::nullopt;
  if (!g) unsupported(op, fmt::format("attribute '{}' is not a 2-D i64 dense", name));
  return *g;
}

std::optional<ChannelHandle> channel_of(const Op& op) {
  const Attribute* a = op.attr("channel_handle");
  if (a && a->get_if<ChannelHandle>()) return *a->get_if<ChannelHandle>();
  return std::nullopt;
}

CollectiveOptions options_of(const Op& op) {
  return {channel_of(op), op.attr("use_global_device_ids") != nullptr};
}

int64_t int_of(const Op& op, std::string_view name) {
  return op.attr(name)->get_if<IntAttr>()->value;
}

Value sum(Value a, Value b) { return add(a, b); }

std::vector<Cotangent> all_reduce_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  if (!is_sum(op))
    unsupported(op, "all_reduce is differentiated for a sum (add) reduction only, as JAX's psum");
  std::vector<Cotangent> out(op.operands().size());
  for (size_t i = 0; i < cts.size(); ++i)
    if (cts[i] && real_tangent(op, op.operands()[i]))
      out[i] = all_reduce(*cts[i], groups_of(op), sum, options_of(op));
  return out;
}

std::vector<Cotangent> all_gather_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(op.operands().size());
  for (size_t i = 0; i < cts.size(); ++i)
    if (cts[i] && real_tangent(op, op.operands()[i]))
      out[i] =
          reduce_scatter(*cts[i], int_of(op, "all_gather_dim"), groups_of(op), sum, options_of(op));
  return out;
}

std::vector<Cotangent> reduce_scatter_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  if (!is_sum(op))
    unsupported(op, "reduce_scatter is differentiated for a sum (add) reduction only");
  if (!cts[0] || !real_tangent(op, op.operands()[0])) return {std::nullopt};
  return {all_gather(*cts[0], int_of(op, "scatter_dimension"), groups_of(op), options_of(op))};
}

std::vector<Cotangent> all_to_all_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  std::vector<Cotangent> out(op.operands().size());
  for (size_t i = 0; i < cts.size(); ++i)
    if (cts[i] && real_tangent(op, op.operands()[i]))
      out[i] = all_to_all(*cts[i], int_of(op, "concat_dimension"), int_of(op, "split_dimension"),
                          int_of(op, "split_count"), groups_of(op), channel_of(op));
  return out;
}

std::vector<Cotangent> collective_permute_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  if (!cts[0] || !real_tangent(op, op.operands()[0])) return {std::nullopt};
  std::vector<std::pair<int64_t, int64_t>> inverse;
  for (const auto& p : groups_of(op, "source_target_pairs").groups) inverse.push_back({p[1], p[0]});
  return {collective_permute(*cts[0], inverse, channel_of(op))};
}

std::vector<Cotangent> sharding_constraint_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  if (!cts[0] || !is_inexact(op.operands()[0].dtype())) return {std::nullopt};
  return {reapply(op, {*cts[0]})[0]};
}

}  // namespace

void register_collectives_rules(Registry& r) {
  r["stablehlo.all_reduce"] = all_reduce_vjp;
  r["stablehlo.all_gather"] = all_gather_vjp;
  r["stablehlo.reduce_scatter"] = reduce_scatter_vjp;
  r["stablehlo.all_to_all"] = all_to_all_vjp;
  r["stablehlo.collective_permute"] = collective_permute_vjp;
  r["sdy.sharding_constraint"] = sharding_constraint_vjp;
}

void register_collectives_jvps(JvpRegistry& r) {
  for (const char* n : {"stablehlo.all_gather", "stablehlo.all_to_all",
                        "stablehlo.collective_permute", "sdy.sharding_constraint"})
    r[n] = linear_jvp();
  for (const char* n : {"stablehlo.all_reduce", "stablehlo.reduce_scatter"})
    r[n] = [](const Op& op, const std::vector<Tangent>& tangents) {
      if (!is_sum(op))
        unsupported(op, "differentiated for a sum (add) reduction only, as JAX's psum", "JVP");
      return linear_jvp()(op, tangents);
    };
}

}  // namespace hhlo::ad::detail
