// VJP and JVP rules of the collectives and of sdy.sharding_constraint (JAX's transposes in
// jax/_src/lax/parallel.py, SPMD semantics: every device computes its own copy of the loss and
// the gradient is of their sum). all_reduce-sum is self-transposed (psum of the cotangent),
// all_gather and reduce_scatter-sum transpose into each other, all_to_all into the all_to_all
// that swaps split and concat dimensions, collective_permute into the inverse permutation, and a
// sharding constraint puts the same constraint on the cotangent. All are linear: their JVPs
// apply the op to the tangents. collective_broadcast transposes into a sum of collective_permutes
// that send each receiver's cotangent back to its group's source (the source's own included).
// sdy.manual_computation (JAX's shard_map) transposes into a manual computation of its body's
// VJP over the same mesh and manual axes, with in and out shardings swapped (jax/_src/
// shard_map.py, _shard_map_transpose, check_vma=False: cotangents of outputs replicated along a
// manual axis are divided by its size, cotangents of inputs replicated along one are summed over
// it); its JVP is a manual computation of the body's JVP.
#include <algorithm>

#include "hhlo/autodiff/jvp_registry.h"
#include "hhlo/ir/spmd.h"
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

// collective_broadcast: result@p = operand@g[0] for p in group g, zero outside every group. Its
// transpose: operand cotangent on source g[0] = sum over the members p of g of ct@p, zero on the
// other processes. Written as collective_permutes (same process groups: cross_replica without a
// channel, cross_partition with one), permute k sending member g[k] to g[0] (k = 0 a self pair).
std::vector<Cotangent> collective_broadcast_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  if (!cts[0] || !real_tangent(op, op.operands()[0])) return {std::nullopt};
  ReplicaGroups groups = groups_of(op);
  size_t width = 0;
  for (const auto& g : groups.groups) width = std::max(width, g.size());
  Value sum_ct;
  for (size_t k = 0; k < width; ++k) {
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (const auto& g : groups.groups)
      if (g.size() > k) pairs.push_back({g[k], g[0]});
    Value part = collective_permute(*cts[0], pairs, channel_of(op));
    sum_ct = sum_ct.valid() ? add(sum_ct, part) : part;
  }
  if (!sum_ct.valid()) return {std::nullopt};  // no groups: every result is zeros
  return {sum_ct};
}

struct ManualParts {
  std::string mesh_name;
  Mesh mesh;
  std::vector<Sharding> in, out;
  std::vector<std::string> manual;
};

ManualParts manual_parts(const Op& op, const char* mode) {
  const Attribute* ia = op.attr("in_shardings");
  const Attribute* oa = op.attr("out_shardings");
  const Attribute* ma = op.attr("manual_axes");
  const auto* ins = ia ? ia->get_if<ShardingPerValueAttr>() : nullptr;
  const auto* outs = oa ? oa->get_if<ShardingPerValueAttr>() : nullptr;
  const auto* manual = ma ? ma->get_if<ManualAxesAttr>() : nullptr;
  if (!ins || !outs || !manual || ins->shardings.size() != op.operands().size() ||
      outs->shardings.size() != op.results().size() || ins->shardings.empty())
    unsupported(op, "in_shardings, out_shardings or manual_axes are not in their typed forms",
                mode);
  if (!captured_values(op).empty())
    unsupported(op, "the body reads values from outside the manual computation", mode);
  ManualParts p;
  p.mesh_name = ins->shardings[0].mesh;
  for (const ShardingAttr& s : ins->shardings) {
    if (s.mesh != p.mesh_name) unsupported(op, "its shardings name more than one mesh", mode);
    p.in.push_back(s.sharding);
  }
  for (const ShardingAttr& s : outs->shardings) {
    if (s.mesh != p.mesh_name) unsupported(op, "its shardings name more than one mesh", mode);
    p.out.push_back(s.sharding);
  }
  std::optional<Mesh> mesh = hhlo::detail::module_mesh(op.operands()[0].func(), p.mesh_name);
  if (!mesh)
    unsupported(op, fmt::format("its module has no mesh @{} (Module::add_mesh)", p.mesh_name),
                mode);
  p.mesh = std::move(*mesh);
  p.manual = manual->axes;
  return p;
}

/// The manual axes that `s` does not mention: the value is replicated along them.
std::vector<std::string> unmentioned(const ManualParts& p, const Sharding& s) {
  std::vector<std::string> out;
  for (const std::string& a : p.manual) {
    bool used = false;
    for (const auto& d : s.dims) used = used || std::find(d.begin(), d.end(), a) != d.end();
    if (!used) out.push_back(a);
  }
  return out;
}

int64_t axes_size(const ManualParts& p, const std::vector<std::string>& axes) {
  int64_t n = 1;
  for (const std::string& a : axes) n *= p.mesh.axes[p.mesh.axis_index(a)].size;
  return n;
}

/// Appends an operand of the derived manual computation and its sharding.
void extend(std::vector<Value>& operands, std::vector<Sharding>& shardings, Value v,
            const Sharding& s) {
  operands.push_back(v);
  shardings.push_back(s);
}

std::vector<Sharding> pick(const std::vector<Sharding>& all, const std::vector<size_t>& which) {
  std::vector<Sharding> out;
  for (size_t i : which) out.push_back(all[i]);
  return out;
}

std::vector<Cotangent> manual_computation_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  ManualParts p = manual_parts(op, "VJP");
  size_t n = op.operands().size();
  std::vector<size_t> wrt, with_ct;
  for (size_t i = 0; i < n; ++i)
    if (needs_cotangent(i) && is_inexact(op.operands()[i].dtype())) wrt.push_back(i);
  for (size_t j = 0; j < cts.size(); ++j)
    if (cts[j] && is_inexact(op.result(j).dtype())) with_ct.push_back(j);
  std::vector<Cotangent> out(n);
  if (wrt.empty() || with_ct.empty()) return out;
  // Cotangents of operands replicated along manual axes are summed over those axes (groups of
  // global device ids: only for a fully manual computation, every axis of size > 1 manual).
  bool fully_manual = true;
  for (const MeshAxis& a : p.mesh.axes)
    if (a.size > 1 && std::find(p.manual.begin(), p.manual.end(), a.name) == p.manual.end())
      fully_manual = false;
  std::vector<std::optional<ReplicaGroups>> psum(wrt.size());
  for (size_t k = 0; k < wrt.size(); ++k) {
    std::vector<std::string> axes = unmentioned(p, p.in[wrt[k]]);
    if (axes_size(p, axes) == 1) continue;
    if (!fully_manual)
      unsupported(op,
                  "an operand replicated along a manual axis in a computation that leaves other "
                  "mesh axes automatic");
    psum[k] = ReplicaGroups{hhlo::detail::axis_groups(p.mesh, axes)};
  }
  std::vector<Value> operands(op.operands().begin(), op.operands().end());
  std::vector<Sharding> in = p.in;
  for (size_t j : with_ct) extend(operands, in, *cts[j], p.out[j]);
  std::vector<Sharding> out_shardings = pick(p.in, wrt);
  const Block& body = *op.regions()[0];
  std::vector<Value> g = hhlo::detail::manual_computation_over(
      p.mesh, p.mesh_name, operands, in, out_shardings, p.manual, [&](const std::vector<Value>& a) {
        std::vector<Value> primal(a.begin(), a.begin() + static_cast<long>(n));
        std::vector<Value> ys = inline_region(body, primal);
        std::vector<Value> outs;
        std::vector<Cotangent> gs;
        for (size_t k = 0; k < with_ct.size(); ++k) {
          outs.push_back(ys[with_ct[k]]);
          Value ct = a[n + k];
          // Every device along an unmentioned axis seeds its own copy of a replicated output.
          int64_t copies = axes_size(p, unmentioned(p, p.out[with_ct[k]]));
          if (copies != 1) ct = multiply(ct, full_like(ct, 1.0 / static_cast<double>(copies)));
          gs.push_back(ct);
        }
        std::vector<Value> xs;
        for (size_t i : wrt) xs.push_back(primal[i]);
        std::vector<Value> gx = vjp(outs, Wrt{xs}, Cotangents{gs});
        for (size_t k = 0; k < wrt.size(); ++k)
          if (psum[k]) gx[k] = all_reduce(gx[k], *psum[k], sum, {ChannelHandle{1, 1}, true});
        return gx;
      });
  for (size_t k = 0; k < wrt.size(); ++k) out[wrt[k]] = g[k];
  return out;
}

std::vector<Tangent> manual_computation_jvp(const Op& op, const std::vector<Tangent>& ts) {
  ManualParts p = manual_parts(op, "JVP");
  size_t n = op.operands().size();
  std::vector<size_t> with_t, slots;
  for (size_t i = 0; i < n && i < ts.size(); ++i)
    if (ts[i] && is_inexact(op.operands()[i].dtype())) with_t.push_back(i);
  for (size_t j = 0; j < op.results().size(); ++j)
    if (is_inexact(op.result(j).dtype())) slots.push_back(j);
  std::vector<Tangent> out(op.results().size());
  if (with_t.empty() || slots.empty()) return out;
  std::vector<Value> operands(op.operands().begin(), op.operands().end());
  std::vector<Sharding> in = p.in;
  for (size_t i : with_t) extend(operands, in, *ts[i], p.in[i]);
  std::vector<Sharding> out_shardings = pick(p.out, slots);
  const Block& body = *op.regions()[0];
  Func& f = op.result(0).func();
  std::vector<Value> t = hhlo::detail::manual_computation_over(
      p.mesh, p.mesh_name, operands, in, out_shardings, p.manual, [&](const std::vector<Value>& a) {
        const Block& here = f.insertion_block();
        size_t start = here.ops().size();
        std::vector<Value> primal(a.begin(), a.begin() + static_cast<long>(n));
        std::vector<Value> ys = inline_region(body, primal);
        std::unordered_map<uint32_t, Value> seeds;
        for (size_t k = 0; k < with_t.size(); ++k) seeds.emplace(primal[with_t[k]].id(), a[n + k]);
        std::vector<Value> outs;
        for (size_t j : slots) outs.push_back(ys[j]);
        std::vector<Tangent> tg = forward_tangents(here, start, seeds, outs);
        std::vector<Value> res;
        for (size_t k = 0; k < outs.size(); ++k) {
          // A result that is a block argument carries that argument's tangent.
          Tangent tk = tg[k];
          for (size_t q = 0; q < with_t.size() && !tk; ++q)
            if (outs[k] == primal[with_t[q]]) tk = a[n + q];
          res.push_back(tk ? *tk : full_like(outs[k], 0.0));
        }
        return res;
      });
  for (size_t k = 0; k < slots.size(); ++k) out[slots[k]] = t[k];
  return out;
}

}  // namespace

void register_collectives_rules(Registry& r) {
  r["stablehlo.all_reduce"] = all_reduce_vjp;
  r["stablehlo.all_gather"] = all_gather_vjp;
  r["stablehlo.reduce_scatter"] = reduce_scatter_vjp;
  r["stablehlo.all_to_all"] = all_to_all_vjp;
  r["stablehlo.collective_permute"] = collective_permute_vjp;
  r["stablehlo.collective_broadcast"] = collective_broadcast_vjp;
  r["sdy.sharding_constraint"] = sharding_constraint_vjp;
  r["sdy.manual_computation"] = manual_computation_vjp;
}

void register_collectives_jvps(JvpRegistry& r) {
  for (const char* n :
       {"stablehlo.all_gather", "stablehlo.all_to_all", "stablehlo.collective_permute",
        "stablehlo.collective_broadcast", "sdy.sharding_constraint"})
    r[n] = linear_jvp();
  for (const char* n : {"stablehlo.all_reduce", "stablehlo.reduce_scatter"})
    r[n] = [](const Op& op, const std::vector<Tangent>& tangents) {
      if (!is_sum(op))
        unsupported(op, "differentiated for a sum (add) reduction only, as JAX's psum", "JVP");
      return linear_jvp()(op, tangents);
    };
  r["sdy.manual_computation"] = manual_computation_jvp;
}

}  // namespace hhlo::ad::detail
