// Collectives: all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
// collective_broadcast, replica_id and partition_id (spec sections of the same names).
#include <set>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

/// The ids of `g`: (unique) no id twice, (nonneg) none negative.
void check_groups(std::string_view op, std::string_view unique, std::string_view nonneg,
                  const ReplicaGroups& g, std::string_view what = "replica_groups") {
  std::set<int64_t> seen;
  for (size_t i = 1; i < g.groups.size(); ++i)
    if (g.groups[i].size() != g.groups[0].size())
      detail::fail(op, "", "{} are one dense tensor: row {} has {} ids, row 0 has {}", what, i,
                   g.groups[i].size(), g.groups[0].size());
  for (const auto& group : g.groups)
    for (int64_t id : group) {
      if (id < 0) detail::fail(op, nonneg, "{} holds the negative id {}", what, id);
      if (!seen.insert(id).second) detail::fail(op, unique, "{} holds id {} twice", what, id);
    }
}

/// Group size for the ops whose result shape depends on it: at least one group, all one size.
// Dimension `dim` of `t` (not dynamic) times `factor`: a ShapeError (op, c) when the product
// overflows 64 bits (found by fuzzing all_to_all; all_gather has the same product).
void scale_dim(std::string_view op, std::string_view c, TensorType& t, int64_t dim, int64_t factor,
               std::string_view what) {
  int64_t& d = t.dims[static_cast<size_t>(dim)];
  if (d == kDynamic) return;
  if (__builtin_mul_overflow(d, factor, &d))
    detail::fail(op, c, "dim {} times {} {} overflows a 64-bit size", dim, what, factor);
}

int64_t group_size(std::string_view op, std::string_view c, const ReplicaGroups& g) {
  if (g.groups.empty() || g.groups[0].empty())
    detail::fail(op, c, "needs at least one non-empty replica group (its size fixes the result)");
  return static_cast<int64_t>(g.groups[0].size());
}

void check_global_ids(std::string_view op, std::string_view c,
                      const std::optional<ChannelHandle>& h, bool use_global_device_ids) {
  if (use_global_device_ids && (!h || h->handle <= 0))
    detail::fail(op, c, "use_global_device_ids needs a channel_handle with handle > 0, got {}",
                 h ? std::to_string(h->handle) : std::string("none"));
}

void check_dim(std::string_view op, std::string_view c, std::string_view what, int64_t d,
               const TensorType& t) {
  if (d < 0 || d >= t.rank())
    detail::fail(op, c, "{} {} outside [0, {}) for {}", what, d, t.rank(), t.to_string());
}

void check_same_dtype(std::string_view op, std::string_view c, std::span<const TensorType> ts) {
  for (size_t i = 1; i < ts.size(); ++i)
    if (ts[i].dtype != ts[0].dtype)
      detail::fail(op, c, "operand {} {} and operand 0 {} differ in element type", i,
                   ts[i].to_string(), ts[0].to_string());
}

std::vector<NamedAttr> collective_attrs(const ReplicaGroups& g, const CollectiveOptions& o) {
  std::vector<NamedAttr> a;
  if (o.channel_handle) a.push_back({"channel_handle", *o.channel_handle});
  a.push_back({"replica_groups", replica_groups_attr(g)});
  if (o.use_global_device_ids) a.push_back({"use_global_device_ids", UnitAttr{}});
  return a;
}

std::unique_ptr<Block> scalar_region(Func& f, std::string_view op, std::string_view c, DType e,
                                     const RegionBody& body, const Location& l) {
  TensorType s{e, {}};
  auto region = f.build_region(op, {s, s}, body, l);
  check_region_results(op, c, region->returned_types(), std::span(&s, 1));
  return region;
}

RegionBody binary_body(const std::function<Value(Value, Value)>& f) {
  return [f](const std::vector<Value>& a) { return std::vector<Value>{f(a[0], a[1])}; };
}

}  // namespace

std::vector<TensorType> infer_all_reduce(std::span<const TensorType> operands,
                                         const ReplicaGroups& g,
                                         const std::optional<ChannelHandle>& h, bool global_ids) {
  constexpr std::string_view op = "all_reduce";
  if (operands.empty()) detail::fail(op, "C6", "needs at least one operand");
  check_groups(op, "C1", "C3", g);
  check_global_ids(op, "C4", h, global_ids);
  check_same_dtype(op, "C5", operands);
  return {operands.begin(), operands.end()};
}

std::vector<TensorType> infer_all_gather(std::span<const TensorType> operands, int64_t dim,
                                         const ReplicaGroups& g,
                                         const std::optional<ChannelHandle>& h, bool global_ids) {
  constexpr std::string_view op = "all_gather";
  if (operands.empty()) detail::fail(op, "C6", "needs at least one operand");
  for (const TensorType& t : operands) check_dim(op, "C1", "all_gather_dim", dim, t);
  check_groups(op, "C2", "C4", g);
  int64_t n = group_size(op, "C4", g);
  check_global_ids(op, "C5", h, global_ids);
  std::vector<TensorType> out(operands.begin(), operands.end());
  for (TensorType& t : out) {
    scale_dim(op, "C6", t, dim, n, "the group size");
  }
  return out;
}

TensorType infer_reduce_scatter(const TensorType& operand, int64_t dim, const ReplicaGroups& g,
                                const std::optional<ChannelHandle>& h, bool global_ids) {
  constexpr std::string_view op = "reduce_scatter";
  check_dim(op, "C2", "scatter_dimension", dim, operand);
  check_groups(op, "C3", "C5", g);
  int64_t n = group_size(op, "C5", g);
  TensorType out = operand;
  int64_t& d = out.dims[static_cast<size_t>(dim)];
  if (d != kDynamic) {
    if (d % n != 0)
      detail::fail(op, "C1", "dim {} of {} ({}) is not divisible by the group size {}", dim,
                   operand.to_string(), d, n);
    d /= n;
  }
  check_global_ids(op, "C6", h, global_ids);
  return out;
}

std::vector<TensorType> infer_all_to_all(std::span<const TensorType> operands,
                                         int64_t split_dimension, int64_t concat_dimension,
                                         int64_t split_count, const ReplicaGroups& g) {
  constexpr std::string_view op = "all_to_all";
  if (operands.empty()) detail::fail(op, "C9", "needs at least one operand");
  // (C4) first: (C2) divides by it.
  if (split_count <= 0) detail::fail(op, "C4", "split_count {} must be positive", split_count);
  std::vector<TensorType> out(operands.begin(), operands.end());
  for (TensorType& t : out) {
    check_dim(op, "C1", "split_dimension", split_dimension, t);
    check_dim(op, "C3", "concat_dimension", concat_dimension, t);
    int64_t& s = t.dims[static_cast<size_t>(split_dimension)];
    if (s != kDynamic && s % split_count != 0)
      detail::fail(op, "C2", "dim {} of {} ({}) is not divisible by split_count {}",
                   split_dimension, t.to_string(), s, split_count);
    if (split_dimension == concat_dimension) continue;
    if (s != kDynamic) s /= split_count;
    scale_dim(op, "C9", t, concat_dimension, split_count, "split_count");
  }
  check_groups(op, "C5", "C7", g);
  int64_t n = group_size(op, "C8", g);
  if (n != split_count)
    detail::fail(op, "C8", "replica groups of {} ids, but split_count is {}", n, split_count);
  return out;
}

TensorType infer_collective_permute(const TensorType& operand, const ReplicaGroups& pairs) {
  constexpr std::string_view op = "collective_permute";
  std::set<int64_t> sources, targets;
  for (const auto& p : pairs.groups) {
    if (p.size() != 2)
      detail::fail(op, "C1", "source_target_pairs rows must hold 2 ids, a row holds {}", p.size());
    if (p[0] < 0 || p[1] < 0)
      detail::fail(op, "C4", "source_target_pairs holds a negative id ({}, {})", p[0], p[1]);
    if (!sources.insert(p[0]).second)
      detail::fail(op, "C2", "source {} appears twice in source_target_pairs", p[0]);
    if (!targets.insert(p[1]).second)
      detail::fail(op, "C3", "target {} appears twice in source_target_pairs", p[1]);
  }
  return operand;
}

TensorType infer_collective_broadcast(const TensorType& operand, const ReplicaGroups& g) {
  check_groups("collective_broadcast", "C1", "C2", g);
  return operand;
}

std::vector<Value> all_reduce(const std::vector<Value>& operands, const ReplicaGroups& groups,
                              const RegionBody& computation, const CollectiveOptions& o, Loc loc) {
  if (operands.empty()) detail::fail("all_reduce", "C6", "needs at least one operand");
  Func& f = detail::func_of("all_reduce", operands);
  auto results = infer_all_reduce(detail::types_of(operands), groups, o.channel_handle,
                                  o.use_global_device_ids);
  Location l = Location::from(loc);
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(scalar_region(f, "all_reduce", "C5", results[0].dtype, computation, l));
  return f.append({"stablehlo.all_reduce", operands, results, collective_attrs(groups, o),
                   std::move(regions), l});
}

Value all_reduce(Value operand, const ReplicaGroups& groups,
                 const std::function<Value(Value, Value)>& computation, const CollectiveOptions& o,
                 Loc loc) {
  return all_reduce(std::vector<Value>{operand}, groups, binary_body(computation), o, loc)[0];
}

std::vector<Value> all_gather(const std::vector<Value>& operands, int64_t dim,
                              const ReplicaGroups& groups, const CollectiveOptions& o, Loc loc) {
  if (operands.empty()) detail::fail("all_gather", "C6", "needs at least one operand");
  Func& f = detail::func_of("all_gather", operands);
  auto results = infer_all_gather(detail::types_of(operands), dim, groups, o.channel_handle,
                                  o.use_global_device_ids);
  std::vector<NamedAttr> attrs = collective_attrs(groups, o);
  attrs.insert(attrs.begin(), {"all_gather_dim", i64_attr(dim)});
  return f.append(
      {"stablehlo.all_gather", operands, results, std::move(attrs), {}, Location::from(loc)});
}

Value all_gather(Value operand, int64_t dim, const ReplicaGroups& groups,
                 const CollectiveOptions& o, Loc loc) {
  return all_gather(std::vector<Value>{operand}, dim, groups, o, loc)[0];
}

Value reduce_scatter(Value operand, int64_t dim, const ReplicaGroups& groups,
                     const std::function<Value(Value, Value)>& computation,
                     const CollectiveOptions& o, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("reduce_scatter", ops);
  TensorType result =
      infer_reduce_scatter(operand.type(), dim, groups, o.channel_handle, o.use_global_device_ids);
  Location l = Location::from(loc);
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(
      scalar_region(f, "reduce_scatter", "C7", result.dtype, binary_body(computation), l));
  std::vector<NamedAttr> attrs = collective_attrs(groups, o);
  attrs.push_back({"scatter_dimension", i64_attr(dim)});
  return f.append({"stablehlo.reduce_scatter",
                   {operand},
                   {result},
                   std::move(attrs),
                   std::move(regions),
                   l})[0];
}

std::vector<Value> all_to_all(const std::vector<Value>& operands, int64_t split_dimension,
                              int64_t concat_dimension, int64_t split_count,
                              const ReplicaGroups& groups, std::optional<ChannelHandle> h,
                              Loc loc) {
  if (operands.empty()) detail::fail("all_to_all", "C9", "needs at least one operand");
  Func& f = detail::func_of("all_to_all", operands);
  auto results = infer_all_to_all(detail::types_of(operands), split_dimension, concat_dimension,
                                  split_count, groups);
  std::vector<NamedAttr> attrs;
  if (h) attrs.push_back({"channel_handle", *h});
  attrs.push_back({"concat_dimension", i64_attr(concat_dimension)});
  attrs.push_back({"replica_groups", replica_groups_attr(groups)});
  attrs.push_back({"split_count", i64_attr(split_count)});
  attrs.push_back({"split_dimension", i64_attr(split_dimension)});
  return f.append(
      {"stablehlo.all_to_all", operands, results, std::move(attrs), {}, Location::from(loc)});
}

Value all_to_all(Value operand, int64_t split_dimension, int64_t concat_dimension,
                 int64_t split_count, const ReplicaGroups& groups, std::optional<ChannelHandle> h,
                 Loc loc) {
  return all_to_all(std::vector<Value>{operand}, split_dimension, concat_dimension, split_count,
                    groups, h, loc)[0];
}

Value collective_permute(Value operand, const std::vector<std::pair<int64_t, int64_t>>& pairs,
                         std::optional<ChannelHandle> h, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("collective_permute", ops);
  ReplicaGroups g;
  for (auto [s, t] : pairs) g.groups.push_back({s, t});
  TensorType result = infer_collective_permute(operand.type(), g);
  std::vector<NamedAttr> attrs;
  if (h) attrs.push_back({"channel_handle", *h});
  if (g.groups.empty()) {  // tensor<0x2xi64>: a permutation sending nothing
    attrs.push_back({"source_target_pairs", dense_attr(Array(DType::i64, {0, 2}))});
  } else {
    attrs.push_back({"source_target_pairs", replica_groups_attr(g)});
  }
  return f.append({"stablehlo.collective_permute",
                   {operand},
                   {result},
                   std::move(attrs),
                   {},
                   Location::from(loc)})[0];
}

Value collective_broadcast(Value operand, const ReplicaGroups& groups,
                           std::optional<ChannelHandle> h, Loc loc) {
  Value ops[] = {operand};
  Func& f = detail::func_of("collective_broadcast", ops);
  TensorType result = infer_collective_broadcast(operand.type(), groups);
  std::vector<NamedAttr> attrs;
  if (h) attrs.push_back({"channel_handle", *h});
  attrs.push_back({"replica_groups", replica_groups_attr(groups)});
  return f.append({"stablehlo.collective_broadcast",
                   {operand},
                   {result},
                   std::move(attrs),
                   {},
                   Location::from(loc)})[0];
}

Value replica_id(Func& f, Loc loc) {
  return f.append(
      {"stablehlo.replica_id", {}, {TensorType{DType::ui32, {}}}, {}, {}, Location::from(loc)})[0];
}

Value partition_id(Func& f, Loc loc) {
  return f.append({"stablehlo.partition_id",
                   {},
                   {TensorType{DType::ui32, {}}},
                   {},
                   {},
                   Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops.
namespace {

// What collective_attrs writes (and all_to_all, collective_permute and collective_broadcast write
// part of), read back: the optional channel handle and the groups in the attribute `groups` (a
// 2-D i64 dense).
struct Recorded {
  std::optional<ChannelHandle> channel;
  ReplicaGroups groups;
};

// use_global_device_ids (all_reduce, all_gather, reduce_scatter).
bool global_ids(const detail::OpInfo& op) { return op.attr("use_global_device_ids") != nullptr; }

Recorded recorded(const detail::OpInfo& op, std::string_view groups = "replica_groups") {
  Recorded r;
  if (const Attribute* a = op.attr("channel_handle")) {
    if (!a->get_if<ChannelHandle>()) detail::fail_struct("mistyped attribute 'channel_handle'");
    r.channel = *a->get_if<ChannelHandle>();
  }
  const Attribute* ga = op.attr(groups);
  std::optional<ReplicaGroups> g = ga ? replica_groups_of(*ga) : std::nullopt;
  if (!g)
    detail::fail_struct(
        fmt::format("missing or mistyped attribute '{}' (a 2-D i64 dense)", groups));
  r.groups = std::move(*g);
  return r;
}

std::vector<TensorType> infer_all_reduce_op(const detail::OpInfo& op) {
  Recorded r = recorded(op);
  const std::vector<TensorType>& in = op.operands;
  if (in.empty()) detail::fail_struct("expects operands");
  auto out = infer_all_reduce(in, r.groups, r.channel, global_ids(op));
  TensorType e{in[0].dtype, {}};
  op.region_sig(0, {e, e}, {e}, "C5");
  return out;
}

std::vector<TensorType> infer_reduce_scatter_op(const detail::OpInfo& op) {
  Recorded r = recorded(op);
  const std::vector<TensorType>& in = op.operands;
  if (in.empty()) detail::fail_struct("expects operands");
  std::vector<TensorType> out = {infer_reduce_scatter(in[0], op.integer("scatter_dimension"),
                                                      r.groups, r.channel, global_ids(op))};
  op.need(1);
  TensorType e{in[0].dtype, {}};
  op.region_sig(0, {e, e}, {e}, "C7");
  return out;
}

std::vector<TensorType> infer_all_gather_op(const detail::OpInfo& op) {
  Recorded r = recorded(op);
  return infer_all_gather(op.operands, op.integer("all_gather_dim"), r.groups, r.channel,
                          global_ids(op));
}

std::vector<TensorType> infer_all_to_all_op(const detail::OpInfo& op) {
  Recorded r = recorded(op);
  return infer_all_to_all(op.operands, op.integer("split_dimension"),
                          op.integer("concat_dimension"), op.integer("split_count"), r.groups);
}

std::vector<TensorType> infer_collective_permute_op(const detail::OpInfo& op) {
  Recorded r = recorded(op, "source_target_pairs");
  int64_t columns = op.attr("source_target_pairs")->get_if<DenseAttr>()->array->dims()[1];
  if (columns != 2)
    detail::fail("collective_permute", "C1", "source_target_pairs must have 2 columns, has {}",
                 columns);
  op.need(1);
  return {infer_collective_permute(op.operands[0], r.groups)};
}

std::vector<TensorType> infer_collective_broadcast_op(const detail::OpInfo& op) {
  Recorded r = recorded(op);
  op.need(1);
  return {infer_collective_broadcast(op.operands[0], r.groups)};
}

std::vector<TensorType> infer_device_id_op(const detail::OpInfo& op) {
  op.need(0);
  return {TensorType{DType::ui32, {}}};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.all_gather", infer_all_gather_op},
    {"stablehlo.all_reduce", infer_all_reduce_op},
    {"stablehlo.all_to_all", infer_all_to_all_op},
    {"stablehlo.collective_broadcast", infer_collective_broadcast_op},
    {"stablehlo.collective_permute", infer_collective_permute_op},
    {"stablehlo.partition_id", infer_device_id_op},
    {"stablehlo.reduce_scatter", infer_reduce_scatter_op},
    {"stablehlo.replica_id", infer_device_id_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::collective_ops() { return kOps; }

}  // namespace hhlo
