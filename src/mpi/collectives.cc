// hhlo::mpi builder ops: shape rules, the ordering-token chain, one stablehlo.custom_call per
// collective (targets served by kernels/mpi), and their VJP and JVP rules (registered with the
// autodiff registry on first use of a builder).
#include "hhlo/mpi/collectives.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>
#include <string>

#include "hhlo/autodiff/jvp_registry.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/autodiff/vmap.h"

namespace hhlo::mpi {
namespace {

constexpr std::string_view kPrefix = "hhlo_mpi_";

[[noreturn]] void fail(std::string_view op, const std::string& why) {
  throw ShapeError(fmt::format("mpi.{}", op), "", why);
}

const std::string* target_of(const Op& op) {
  if (op.name() != "stablehlo.custom_call") return nullptr;
  const Attribute* a = op.attr("call_target_name");
  const StringAttr* s = a ? a->get_if<StringAttr>() : nullptr;
  return s ? &s->value : nullptr;
}

bool is_mpi_call(const Op& op) {
  const std::string* t = target_of(op);
  return t && t->starts_with(kPrefix);
}

bool holds_mpi(const Block& b) {
  for (const auto& op : b.ops()) {
    if (is_mpi_call(*op)) return true;
    for (const auto& r : op->regions())
      if (holds_mpi(*r)) return true;
  }
  return false;
}

/// An i8 scalar that depends on `v` (its first element converted); its value is never read.
Value token_from(Value v, Loc loc) {
  std::vector<int64_t> start(static_cast<size_t>(v.rank()), 0), limit(start.size(), 1),
      strides(start.size(), 1);
  Value e = v.rank() ? reshape(slice(v, start, limit, strides, loc), {}, loc) : v;
  if (is_complex(e.dtype())) e = real(e, loc);
  return e.dtype() == DType::i8 ? e : convert(e, DType::i8, loc);
}

DictAttr comm_attrs(const Comm& c) {
  DictAttr d;
  d.entries.emplace_back("groups", I64ArrayAttr{c.members});
  d.entries.emplace_back("group_size", i64_attr(c.group_size));
  return d;
}

void register_rules();

/// Appends `target(operands..., token) -> (results..., token)` at f's insertion point. With
/// `in_place`, result 0 aliases operand 0 (output_operand_aliases): the kernel sees one buffer
/// and runs MPI_IN_PLACE, and XLA copies the operand first only when it is still needed after.
std::vector<Value> emit(Func& f, std::string_view name, std::vector<Value> operands,
                        std::vector<TensorType> results, DictAttr attrs, Loc loc,
                        bool in_place = false) {
  register_rules();
  operands.push_back(ordering_token(f, loc));
  results.push_back(TensorType{DType::i8, {}});
  std::string target = fmt::format("{}{}", kPrefix, name);
  if (!in_place) {
    CustomCallOptions o;
    o.api_version = 4;
    o.backend_config = std::move(attrs);
    o.has_side_effect = true;
    return custom_call(f, std::move(target), operands, results, o, loc);
  }
  // custom_call() with one attribute more (CustomCallOptions has no output_operand_aliases):
  // result 0 (of the tuple (y, token)) over operand 0.
  if (operands[0].type() != results[0])
    fail(name, "in place needs the result type " + results[0].to_string() +
                   " to be the operand's " + operands[0].type().to_string());
  f.check_operands("custom_call", operands);
  ArrayAttr aliases;
  aliases.values.push_back(
      OpaqueAttr{"#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, "
                 "operand_tuple_indices = []>"});
  std::vector<NamedAttr> a = {{"call_target_name", StringAttr{std::move(target)}},
                              {"api_version", i32_attr(4)},
                              {"has_side_effect", BoolAttr{true}},
                              {"backend_config", std::move(attrs)},
                              {"output_operand_aliases", std::move(aliases)}};
  return f.append(
      {"stablehlo.custom_call", operands, results, std::move(a), {}, Location::from(loc)});
}

void check_reduce(std::string_view op, Tensor x, ReduceOp r) {
  if (is_complex(x.dtype()) && (r == ReduceOp::min || r == ReduceOp::max))
    fail(op, fmt::format("{} is not defined for complex {} (MPI_MIN and MPI_MAX take real types)",
                         reduce_op_name(r), x.type().to_string()));
}

int64_t known_size(std::string_view op, const Comm& c) {
  if (c.size() <= 0)
    fail(op,
         "needs the communicator size for its result shape: use Comm::world(n) with n = "
         "hhlo::mpi::world_size(), or Comm::groups");
  return c.size();
}

void check_leading(std::string_view op, Tensor x, int64_t n) {
  if (x.rank() == 0 || x.dim(0) != n)
    fail(op, fmt::format("the operand {} must have the communicator size {} as its dimension 0",
                         x.type().to_string(), n));
}

Comm groups_comm(std::vector<int64_t> members, int64_t group_size) {
  Comm c;
  c.members = std::move(members);
  c.group_size = group_size;
  c.world_size = static_cast<int64_t>(c.members.size());
  return c;
}

}  // namespace

std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return "sum";
    case ReduceOp::prod:
      return "prod";
    case ReduceOp::min:
      return "min";
    case ReduceOp::max:
      return "max";
  }
  return "?";
}

Comm Comm::world(int64_t size) {
  if (size < 0) fail("comm", fmt::format("the world size must be >= 0, got {}", size));
  Comm c;
  c.world_size = size;
  return c;
}

Comm Comm::groups(const std::vector<std::vector<int64_t>>& groups) {
  if (groups.empty() || groups[0].empty()) fail("comm", "needs at least one non-empty group");
  size_t n = 0;
  for (const auto& g : groups) n += g.size();
  std::vector<bool> seen(n, false);
  std::vector<int64_t> members;
  for (const auto& g : groups) {
    if (g.size() != groups[0].size())
      fail("comm",
           fmt::format("all groups must have one size (XLA's replica_groups rule): {}", groups));
    for (int64_t r : g) {
      if (r < 0 || r >= static_cast<int64_t>(n) || seen[static_cast<size_t>(r)])
        fail("comm",
             fmt::format("the groups {} must hold every rank 0..{} exactly once", groups, n - 1));
      seen[static_cast<size_t>(r)] = true;
      members.push_back(r);
    }
  }
  return groups_comm(std::move(members), static_cast<int64_t>(groups[0].size()));
}

Comm Comm::split(const std::vector<int64_t>& color, const std::vector<int64_t>& key) {
  if (color.size() != key.size() || color.empty())
    fail("comm", fmt::format("color and key need one entry per world rank, got {} and {}",
                             color.size(), key.size()));
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> by_color;
  for (size_t r = 0; r < color.size(); ++r) {
    if (color[r] < 0)
      fail("comm", fmt::format("rank {} has color {}: every rank must be in a group (no "
                               "MPI_UNDEFINED)",
                               r, color[r]));
    by_color[color[r]].push_back({key[r], static_cast<int64_t>(r)});
  }
  std::vector<std::vector<int64_t>> groups;
  for (auto& [c, members] : by_color) {
    std::sort(members.begin(), members.end());
    std::vector<int64_t> g;
    for (const auto& m : members) g.push_back(m.second);
    groups.push_back(std::move(g));
  }
  return Comm::groups(groups);
}

Tensor ordering_token(Func& f, Loc loc) {
  for (const Block* b = &f.insertion_block(); b != nullptr; b = b->parent()) {
    for (auto it = b->ops().rbegin(); it != b->ops().rend(); ++it) {
      const Op& op = **it;
      if (is_mpi_call(op)) return op.results().back();
      bool inner = std::any_of(op.regions().begin(), op.regions().end(),
                               [](const auto& r) { return holds_mpi(*r); });
      if (!inner) continue;
      for (Value r : op.results())
        if (r.type().is_static() && r.type().num_elements() > 0) return token_from(r, loc);
      fail("ordering_token",
           fmt::format("the {} before this collective holds collectives in its regions but has no "
                       "non-empty result to order the next one after; thread a token through it "
                       "(hhlo::mpi::ordering_token)",
                       op.name()));
    }
  }
  return constant(f, Scalar(0), DType::i8, {}, loc);
}

Tensor allreduce(Tensor x, ReduceOp op, const Comm& comm, Loc loc) {
  check_reduce("allreduce", x, op);
  DictAttr a = comm_attrs(comm);
  a.entries.emplace_back("op", StringAttr{std::string(reduce_op_name(op))});
  return emit(x.func(), "allreduce", {x}, {x.type()}, std::move(a), loc, /*in_place=*/true)[0];
}

Tensor allgather(Tensor x, const Comm& comm, Loc loc) {
  int64_t n = known_size("allgather", comm);
  Dims d = x.shape();
  d.insert(d.begin(), n);
  return emit(x.func(), "allgather", {x}, {TensorType{x.dtype(), d}}, comm_attrs(comm), loc)[0];
}

Tensor reduce_scatter(Tensor x, ReduceOp op, const Comm& comm, Loc loc) {
  int64_t n = known_size("reduce_scatter", comm);
  check_leading("reduce_scatter", x, n);
  check_reduce("reduce_scatter", x, op);
  Dims d(x.shape().begin() + 1, x.shape().end());
  DictAttr a = comm_attrs(comm);
  a.entries.emplace_back("op", StringAttr{std::string(reduce_op_name(op))});
  return emit(x.func(), "reduce_scatter", {x}, {TensorType{x.dtype(), d}}, std::move(a), loc)[0];
}

Tensor alltoall(Tensor x, const Comm& comm, Loc loc) {
  int64_t n = known_size("alltoall", comm);
  check_leading("alltoall", x, n);
  return emit(x.func(), "alltoall", {x}, {x.type()}, comm_attrs(comm), loc)[0];
}

Tensor bcast(Tensor x, int64_t root, const Comm& comm, Loc loc) {
  if (root < 0 || (comm.size() > 0 && root >= comm.size()))
    fail("bcast", fmt::format("root {} is not a rank of a communicator of {}", root,
                              comm.size() > 0 ? std::to_string(comm.size()) : "n >= 1"));
  DictAttr a = comm_attrs(comm);
  a.entries.emplace_back("root", i64_attr(root));
  return emit(x.func(), "bcast", {x}, {x.type()}, std::move(a), loc)[0];
}

Tensor sendrecv(Tensor x, const std::vector<std::pair<int64_t, int64_t>>& pairs, const Comm& comm,
                Loc loc) {
  std::vector<int64_t> flat;
  std::vector<int64_t> sources, targets;
  for (auto [s, t] : pairs) {
    for (int64_t r : {s, t})
      if (r < 0 || (comm.size() > 0 && r >= comm.size()))
        fail("sendrecv", fmt::format("pair ({}, {}) names a rank outside a communicator of {}", s,
                                     t, comm.size()));
    if (std::count(sources.begin(), sources.end(), s) ||
        std::count(targets.begin(), targets.end(), t))
      fail("sendrecv",
           fmt::format("pairs {} name a rank twice as a source or twice as a target", pairs));
    sources.push_back(s);
    targets.push_back(t);
    flat.push_back(s);
    flat.push_back(t);
  }
  DictAttr a = comm_attrs(comm);
  a.entries.emplace_back("pairs", I64ArrayAttr{flat});
  return emit(x.func(), "sendrecv", {x}, {x.type()}, std::move(a), loc)[0];
}

Tensor shift(Tensor x, int64_t by, const Comm& comm, Loc loc) {
  int64_t n = known_size("sendrecv", comm);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t r = 0; r < n; ++r) pairs.push_back({r, (((r + by) % n) + n) % n});
  return sendrecv(x, pairs, comm, loc);
}

void barrier(Func& f, const Comm& comm, Loc loc) {
  emit(f, "barrier", {}, {}, comm_attrs(comm), loc);
}

std::vector<std::string> builder_targets() {
  std::vector<std::string> out;
  for (const char* n :
       {"allreduce", "allgather", "reduce_scatter", "alltoall", "bcast", "sendrecv", "barrier"})
    out.push_back(fmt::format("{}{}", kPrefix, n));
  return out;
}

// ---- VJP and JVP rules --------------------------------------------------------------------------
// All linear in x: allreduce-sum is its own transpose (every rank's y is the sum of every x, so
// the cotangent of x_r is the sum over ranks of ct y); allgather and reduce_scatter-sum transpose
// to each other; alltoall to itself (block s of rank r goes to block r of rank s and back); the
// sendrecv over pairs to the sendrecv over the reversed pairs. JVPs apply the op to the tangent.
// The rules build with the builders above, so the backward collectives join the ordering chain.
// prod, min and max reductions and bcast have no rule here: differentiating them is an error
// naming the op (as mpi4jax, which differentiates only sum).
namespace {

using ad::Cotangent;
using ad::Tangent;

const DictAttr& config_of(const Op& op) {
  static const DictAttr empty;
  const Attribute* a = op.attr("backend_config");
  const DictAttr* d = a ? a->get_if<DictAttr>() : nullptr;
  return d ? *d : empty;
}

const Attribute* entry(const Op& op, std::string_view name) {
  for (const auto& [k, v] : config_of(op).entries)
    if (k == name) return &v;
  return nullptr;
}

Comm comm_of(const Op& op) {
  const Attribute* g = entry(op, "groups");
  const Attribute* s = entry(op, "group_size");
  const I64ArrayAttr* ga = g ? g->get_if<I64ArrayAttr>() : nullptr;
  const IntAttr* sa = s ? s->get_if<IntAttr>() : nullptr;
  if (!ga || !sa || sa->value == 0) return Comm::world();
  return groups_comm(ga->values, sa->value);
}

/// The world size implied by the op's shapes for collectives on the world (allgather's result or
/// reduce_scatter's operand dim 0), so the transposed op can be built.
Comm sized(Comm c, int64_t n) {
  if (c.is_world()) c.world_size = n;
  return c;
}

std::string op_attr(const Op& op) {
  const Attribute* a = entry(op, "op");
  const StringAttr* s = a ? a->get_if<StringAttr>() : nullptr;
  return s ? s->value : "";
}

void require_sum(const Op& op, const char* what) {
  if (op_attr(op) != "sum")
    throw Error(
        fmt::format("hhlo::mpi::{}: only the sum reduction is differentiable, this one is "
                    "\"{}\"",
                    what, op_attr(op)));
}

std::vector<std::pair<int64_t, int64_t>> pairs_of(const Op& op, bool reversed) {
  const Attribute* a = entry(op, "pairs");
  const I64ArrayAttr* p = a ? a->get_if<I64ArrayAttr>() : nullptr;
  std::vector<std::pair<int64_t, int64_t>> out;
  if (!p) return out;
  for (size_t i = 0; i + 1 < p->values.size(); i += 2)
    out.push_back(reversed ? std::pair{p->values[i + 1], p->values[i]}
                           : std::pair{p->values[i], p->values[i + 1]});
  return out;
}

/// The transpose (reversed = true) or the op itself applied to `v`, for the op `op`.
Value apply(const Op& op, Value v, bool transpose) {
  const std::string& t = *target_of(op);
  Comm c = comm_of(op);
  if (t == "hhlo_mpi_allreduce") {
    require_sum(op, "allreduce");
    return allreduce(v, ReduceOp::sum, c);
  }
  if (t == "hhlo_mpi_allgather") {
    Comm cs = sized(c, op.results()[0].dim(0));
    return transpose ? reduce_scatter(v, ReduceOp::sum, cs) : allgather(v, cs);
  }
  if (t == "hhlo_mpi_reduce_scatter") {
    require_sum(op, "reduce_scatter");
    Comm cs = sized(c, op.operands()[0].dim(0));
    return transpose ? allgather(v, cs) : reduce_scatter(v, ReduceOp::sum, cs);
  }
  if (t == "hhlo_mpi_alltoall") return alltoall(v, sized(c, op.operands()[0].dim(0)));
  if (t == "hhlo_mpi_sendrecv") return sendrecv(v, pairs_of(op, transpose), c);
  throw Error(fmt::format("hhlo::mpi: {} has no derivative rule", t));
}

// ---- Batching rules
// ------------------------------------------------------------------------------ vmap of a
// collective: every example of the batch takes part in its own collective, and all of them go in
// one MPI call. Elementwise over ranks (allreduce, bcast, sendrecv): the op on the stacked operand
// [B, ...]. With the communicator axis at dimension 0 (allgather's result, reduce_scatter's and
// alltoall's operand): the op on the operand with the batch axis moved behind it, [n, B, ...], and
// back. The token operand is ignored: the builders order the new call after the last collective of
// the batched function. A collective whose operand is not batched (only its token is) is rebuilt
// unbatched.

ReduceOp reduce_op_of(const Op& op) {
  std::string s = op_attr(op);
  return s == "prod"  ? ReduceOp::prod
         : s == "min" ? ReduceOp::min
         : s == "max" ? ReduceOp::max
                      : ReduceOp::sum;
}

/// Swaps dimensions 0 and 1 of v.
Value swap01(Value v) {
  std::vector<int64_t> perm(static_cast<size_t>(v.rank()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[0], perm[1]);
  return transpose(v, perm);
}

/// `op` rebuilt on `v` (the per-example operand, or the stacked one for the elementwise ops).
Value rebuild(const Op& op, Value v) {
  const std::string& t = *target_of(op);
  Comm c = comm_of(op);
  if (t == "hhlo_mpi_allreduce") return allreduce(v, reduce_op_of(op), c);
  if (t == "hhlo_mpi_bcast") {
    const Attribute* a = entry(op, "root");
    const IntAttr* root = a ? a->get_if<IntAttr>() : nullptr;
    return bcast(v, root ? root->value : 0, c);
  }
  if (t == "hhlo_mpi_sendrecv") return sendrecv(v, pairs_of(op, false), c);
  if (t == "hhlo_mpi_allgather") return allgather(v, sized(c, op.results()[0].dim(0)));
  int64_t n = op.operands()[0].dim(0);
  if (t == "hhlo_mpi_reduce_scatter") return reduce_scatter(v, reduce_op_of(op), sized(c, n));
  if (t == "hhlo_mpi_alltoall") return alltoall(v, sized(c, n));
  throw Error(fmt::format("hhlo::mpi: vmap of {} has no batching rule", t));
}

std::vector<ad::Batched> mpi_batch(const Op& op, const std::vector<ad::Batched>& xs, int64_t) {
  const std::string& t = *target_of(op);
  Func& f = xs.back().value.func();
  if (t == "hhlo_mpi_barrier") {
    barrier(f, comm_of(op));
    return {{ordering_token(f), false}};
  }
  const ad::Batched& x = xs[0];
  Value y;
  if (!x.batched)
    y = rebuild(op, x.value);
  else if (t == "hhlo_mpi_allgather")
    y = swap01(rebuild(op, x.value));
  else if (t == "hhlo_mpi_reduce_scatter")
    y = rebuild(op, swap01(x.value));
  else if (t == "hhlo_mpi_alltoall")
    y = swap01(rebuild(op, swap01(x.value)));
  else
    y = rebuild(op, x.value);
  return {{y, x.batched}, {ordering_token(f), false}};
}

std::vector<Cotangent> mpi_vjp(const Op& op, const std::vector<Cotangent>& cts) {
  // Operands (x, token); results (y, token): the token carries no gradient.
  if (!cts[0]) return {Cotangent{}, Cotangent{}};
  return {apply(op, *cts[0], /*transpose=*/true), Cotangent{}};
}

std::vector<Tangent> mpi_jvp(const Op& op, const std::vector<Tangent>& ts) {
  if (!ts[0]) return {Tangent{}, Tangent{}};
  return {apply(op, *ts[0], /*transpose=*/false), Tangent{}};
}

void register_rules() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char* t : {"hhlo_mpi_allreduce", "hhlo_mpi_allgather", "hhlo_mpi_reduce_scatter",
                          "hhlo_mpi_alltoall", "hhlo_mpi_sendrecv"}) {
      ad::register_custom_vjp(t, mpi_vjp);
      ad::register_custom_jvp(t, mpi_jvp);
    }
    for (const std::string& t : builder_targets()) ad::register_custom_batching(t, mpi_batch);
  });
}

}  // namespace
}  // namespace hhlo::mpi
