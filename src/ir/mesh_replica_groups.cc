// StableHLO 1.16+'s mesh-axes replica groups (`#stablehlo.replica_group_mesh_axes<mesh = @m,
// axes = [#stablehlo.axis_ref<name = "x">, ...]>`, what JAX writes for shard_map collectives
// since jax_use_rgv3) flattened into the explicit groups older StableHLO, the pinned plugin
// (StableHLO up to 1.20) and our IR read: StableHLO's own fallback,
// stablehlo/dialect/ReplicaGroupUtils.cpp flattenReplicaGroupMeshAxes (mesh axes not named
// first, then the named axes in the order given; each group the devices of one position of the
// others). Shared by the text parser and the bytecode reader (op_defaults.h).
#include <fmt/format.h>

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/error.h"
#include "op_defaults.h"

namespace hhlo {
namespace {

constexpr std::string_view kPrefix = "#stablehlo.replica_group_mesh_axes<";

/// `t` without the whitespace outside its string literals (the text parser keeps an attribute's
/// text as written: `mesh = @m` or `mesh=@m`, on one line or several).
std::string compact(std::string_view t) {
  std::string out;
  bool quoted = false;
  for (size_t k = 0; k < t.size(); ++k) {
    char ch = t[k];
    if (quoted && ch == '\\' && k + 1 < t.size()) {
      out += ch;
      out += t[++k];
      continue;
    }
    if (ch == '"') quoted = !quoted;
    if (quoted || !std::isspace(static_cast<unsigned char>(ch))) out += ch;
  }
  return out;
}

/// The mesh name and axis names of the attribute's text; MeshAxesError for any other form.
std::pair<std::string, std::vector<std::string>> read_mesh_axes(std::string_view text) {
  auto bad = [](std::string found) {
    return MeshAxesError{
        "replica_groups as #stablehlo.replica_group_mesh_axes<mesh = @name, "
        "axes = [#stablehlo.axis_ref<name = \"x\">, ...]>",
        std::move(found)};
  };
  std::string t = compact(text);
  std::string_view rest = std::string_view(t).substr(kPrefix.size());
  constexpr std::string_view kMesh = "mesh=@";
  if (!rest.starts_with(kMesh))
    throw MeshAxesError{"replica_groups naming a mesh of the module (@name)",
                        "an inline mesh (not read yet)"};
  rest.remove_prefix(kMesh.size());
  size_t end = rest.find_first_of(",>");
  std::string mesh(rest.substr(0, end));
  if (mesh.empty() || end == std::string_view::npos) throw bad("no mesh = @name");
  rest.remove_prefix(end);
  constexpr std::string_view kAxes = ",axes=[";
  if (!rest.starts_with(kAxes)) throw bad("no axes = [...]");
  rest.remove_prefix(kAxes.size());
  std::vector<std::string> axes;
  constexpr std::string_view kRef = "#stablehlo.axis_ref<name=\"";
  while (rest.starts_with(kRef)) {
    rest.remove_prefix(kRef.size());
    size_t q = rest.find('"');
    if (q == std::string_view::npos) throw bad("an unterminated axis name");
    axes.emplace_back(rest.substr(0, q));
    rest.remove_prefix(q + 1);
    if (rest.starts_with(",sub_axis_info"))
      throw MeshAxesError{
          "whole mesh axes in replica_groups (StableHLO's flattening refuses "
          "sub-axes too)",
          fmt::format("a sub-axis of \"{}\"", axes.back())};
    if (!rest.starts_with(">")) throw bad("more in an axis_ref");
    rest.remove_prefix(1);
    if (rest.starts_with(",")) rest.remove_prefix(1);
  }
  if (rest != "]>") throw bad("other text after the axes");
  return {std::move(mesh), std::move(axes)};
}

}  // namespace

std::vector<std::vector<int64_t>> flatten_mesh_axes(const Mesh& mesh,
                                                    const std::vector<std::string>& axes) {
  for (const std::string& a : axes) {
    bool known = false;
    for (const MeshAxis& m : mesh.axes) known = known || m.name == a;
    if (!known)
      throw MeshAxesError{fmt::format("an axis of the mesh {} in replica_groups", mesh.to_string()),
                          fmt::format("\"{}\"", a)};
  }
  size_t rank = mesh.axes.size();
  std::vector<size_t> order;  // the transpose: axes not named first, then the named ones
  std::vector<bool> named(rank, false);
  for (const std::string& a : axes) {
    size_t i = mesh.axis_index(a);
    if (named[i])
      throw MeshAxesError{"each mesh axis named once in replica_groups",
                          fmt::format("\"{}\" twice", a)};
    named[i] = true;
  }
  for (size_t i = 0; i < rank; ++i)
    if (!named[i]) order.push_back(i);
  for (const std::string& a : axes) order.push_back(mesh.axis_index(a));
  std::vector<int64_t> stride(rank, 1), tsize(rank), tstride(rank, 1);
  for (size_t i = rank; i-- > 1;) stride[i - 1] = stride[i] * mesh.axes[i].size;
  for (size_t i = 0; i < rank; ++i) tsize[i] = mesh.axes[order[i]].size;
  for (size_t i = rank; i-- > 1;) tstride[i - 1] = tstride[i] * tsize[i];
  int64_t per_group = 1;
  for (const std::string& a : axes) per_group *= mesh.axes[mesh.axis_index(a)].size;
  int64_t total = mesh.num_devices();
  std::vector<std::vector<int64_t>> groups(static_cast<size_t>(total / per_group));
  for (int64_t g = 0; g < total / per_group; ++g)
    for (int64_t j = 0; j < per_group; ++j) {
      int64_t linear = g * per_group + j, position = 0;
      for (size_t k = 0; k < rank; ++k)
        position += (linear / tstride[k]) % tsize[k] * stride[order[k]];
      groups[static_cast<size_t>(g)].push_back(mesh.device(position));
    }
  return groups;
}

void flatten_mesh_replica_groups(OpState& st, const Module& m) {
  for (NamedAttr& a : st.attrs) {
    if (a.name != "replica_groups") continue;
    const OpaqueAttr* o = a.value.get_if<OpaqueAttr>();
    if (!o || !std::string_view(o->text).starts_with(kPrefix)) continue;
    auto [name, axes] = read_mesh_axes(o->text);
    const Mesh* mesh = m.find_mesh(name);
    if (!mesh)
      throw MeshAxesError{
          fmt::format("a mesh @{} in the module (its replica_groups name it)", name), "none"};
    ReplicaGroups g;
    g.groups = flatten_mesh_axes(*mesh, axes);
    a.value = replica_groups_attr(g);
  }
}

}  // namespace hhlo
