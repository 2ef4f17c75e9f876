// Shardy ops: sdy.sharding_constraint and sdy.manual_computation (hhlo/ir/spmd.h).
#include "hhlo/ir/spmd.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

const Mesh& mesh_of(const Module& m, const std::string& name, std::string_view op) {
  const Mesh* mesh = m.find_mesh(name);
  if (!mesh)
    throw ShardingError(-1, "",
                        fmt::format("{}: the module has no mesh @{} (Module::add_mesh)", op, name));
  return *mesh;
}

/// Checks `s` against `t` and `mesh` (rank, known axes, each once, divisibility).
void check_fits(const Mesh& mesh, const Sharding& s, const TensorType& t, const std::string& what) {
  if (s.dims.size() != static_cast<size_t>(t.rank()))
    throw ShardingError(-1, "",
                        fmt::format("{}: sharding {} has {} dimensions, the value {} has rank {}",
                                    what, s.to_string(), s.dims.size(), t.to_string(), t.rank()));
  Dims static_dims = t.dims;
  for (int64_t& d : static_dims)
    if (d == kDynamic) d = 0;  // divisibility of dynamic dims is checked at run time
  shard_layout(mesh, s, static_dims);
}

}  // namespace

namespace detail {

TensorType manual_type(const Mesh& mesh, const Sharding& s, const std::vector<std::string>& manual,
                       const TensorType& t, bool to_global, const std::string& what) {
  if (s.dims.size() != static_cast<size_t>(t.rank()))
    throw ShardingError(-1, "",
                        fmt::format("{}: sharding {} has {} dimensions, the value {} has rank {}",
                                    what, s.to_string(), s.dims.size(), t.to_string(), t.rank()));
  if (!to_global) check_fits(mesh, s, t, what);
  TensorType out = t;
  for (size_t i = 0; i < s.dims.size(); ++i) {
    int64_t k = 1;
    for (const std::string& axis : s.dims[i]) {
      if (!manual.empty() && std::find(manual.begin(), manual.end(), axis) == manual.end())
        throw ShardingError(
            static_cast<int64_t>(i), axis,
            fmt::format("{}: axis \"{}\" of dimension {} is not a manual axis", what, axis, i));
      k *= mesh.axes[mesh.axis_index(axis)].size;
    }
    int64_t& d = out.dims[i];
    if (d == kDynamic) continue;
    if (to_global) {
      if (__builtin_mul_overflow(d, k, &d))
        throw ShardingError(static_cast<int64_t>(i), "",
                            fmt::format("{}: dimension {} of {} times its {} devices overflows a "
                                        "64-bit size",
                                        what, i, t.to_string(), k));
    } else {
      d /= k;  // divisible: checked by check_fits
    }
  }
  if (to_global) check_fits(mesh, s, out, what);
  return out;
}

}  // namespace detail

Value sharding_constraint(const Module& module, Value x, const std::string& mesh,
                          const Sharding& sharding, Loc loc) {
  Value ops[] = {x};
  Func& f = detail::func_of("sharding_constraint", ops);
  check_fits(mesh_of(module, mesh, "sharding_constraint"), sharding, x.type(),
             "sharding_constraint");
  return f.append({"sdy.sharding_constraint",
                   {x},
                   {x.type()},
                   {{"sharding", ShardingAttr{mesh, sharding}}},
                   {},
                   Location::from(loc)})[0];
}

NamedAttr mhlo_sharding(const GspmdSharding& s) {
  return {"mhlo.sharding", StringAttr{s.to_string()}};
}

std::optional<GspmdSharding> gspmd_sharding_of(const std::vector<NamedAttr>& attrs) {
  for (const NamedAttr& a : attrs)
    if (a.name == "mhlo.sharding")
      if (const StringAttr* s = a.value.get_if<StringAttr>()) return parse_gspmd_sharding(s->value);
  return std::nullopt;
}

std::vector<Value> manual_computation(const Module& module, const std::vector<Value>& operands,
                                      const std::string& mesh,
                                      const std::vector<Sharding>& in_shardings,
                                      const std::vector<Sharding>& out_shardings,
                                      const std::vector<std::string>& manual_axes,
                                      const RegionBody& body, Loc loc) {
  return detail::manual_computation_over(mesh_of(module, mesh, "manual_computation"), mesh,
                                         operands, in_shardings, out_shardings, manual_axes, body,
                                         loc);
}

namespace detail {

std::vector<std::vector<int64_t>> axis_groups(const Mesh& mesh,
                                              const std::vector<std::string>& axes) {
  std::vector<bool> along(mesh.axes.size(), false);
  for (const std::string& a : axes) along[mesh.axis_index(a)] = true;
  std::vector<std::vector<int64_t>> groups;
  std::vector<std::vector<int64_t>> keys;
  int64_t n = mesh.num_devices();
  for (int64_t k = 0; k < n; ++k) {
    // Row-major coordinates of position k; the key is the coordinates off `axes`.
    std::vector<int64_t> key;
    int64_t rest = k;
    for (size_t i = mesh.axes.size(); i-- > 0;) {
      int64_t c = rest % mesh.axes[i].size;
      rest /= mesh.axes[i].size;
      if (!along[i]) key.insert(key.begin(), c);
    }
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      groups.emplace_back();
      it = keys.end() - 1;
    }
    groups[static_cast<size_t>(it - keys.begin())].push_back(mesh.device(k));
  }
  return groups;
}

std::vector<Value> manual_computation_over(const Mesh& m, const std::string& mesh,
                                           const std::vector<Value>& operands,
                                           const std::vector<Sharding>& in_shardings,
                                           const std::vector<Sharding>& out_shardings,
                                           const std::vector<std::string>& manual_axes,
                                           const RegionBody& body, Loc loc) {
  constexpr std::string_view op = "manual_computation";
  if (operands.empty()) throw Error("manual_computation: needs at least one operand");
  if (in_shardings.size() != operands.size())
    throw Error(fmt::format("manual_computation: {} operands but {} in_shardings", operands.size(),
                            in_shardings.size()));
  Func& f = detail::func_of(op, operands);
  std::set<std::string> seen;
  for (const std::string& a : manual_axes) {
    m.axis_index(a);  // throws for an unknown axis
    if (!seen.insert(a).second)
      throw ShardingError(-1, a, fmt::format("manual_computation: manual axis \"{}\" twice", a));
  }
  if (manual_axes.empty())
    throw ShardingError(-1, "", "manual_computation: needs at least one manual axis");
  std::vector<TensorType> local;
  for (size_t i = 0; i < operands.size(); ++i)
    local.push_back(detail::manual_type(m, in_shardings[i], manual_axes, operands[i].type(), false,
                                        fmt::format("manual_computation operand {}", i)));
  Location l = Location::from(loc);
  std::vector<TensorType> results;
  std::string count_error;
  auto region = f.build_block(local, [&](const std::vector<Value>& args) {
    std::vector<Value> ret = body(args);
    if (ret.size() != out_shardings.size()) {
      count_error = fmt::format("manual_computation: body returns {} values but {} out_shardings",
                                ret.size(), out_shardings.size());
    } else {
      for (size_t i = 0; i < ret.size(); ++i)
        results.push_back(detail::manual_type(m, out_shardings[i], manual_axes, ret[i].type(), true,
                                              fmt::format("manual_computation result {}", i)));
    }
    f.append({"sdy.return", ret, {}, {}, {}, l});
  });
  if (!count_error.empty()) throw Error(count_error);
  ShardingPerValueAttr in, out;
  for (const Sharding& s : in_shardings) in.shardings.push_back({mesh, s});
  for (const Sharding& s : out_shardings) out.shardings.push_back({mesh, s});
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(std::move(region));
  return f.append(
      {"sdy.manual_computation",
       operands,
       results,
       {{"in_shardings", in}, {"manual_axes", ManualAxesAttr{manual_axes}}, {"out_shardings", out}},
       std::move(regions),
       l});
}

}  // namespace detail

}  // namespace hhlo
