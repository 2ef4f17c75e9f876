// Defaults our IR keeps explicit where the StableHLO text may omit them (internal): shared by the
// text parser and the bytecode reader, so both give the same Module.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hhlo/ir/module.h"
#include "op_attributes.h"

namespace hhlo {

/// Adds the attributes `st` lacks that our IR keeps explicit (the op declarations' defaults
/// ones, spatial_ones, one and minus_one, op_attributes.h): reduce_window / select_and_scatter
/// window strides and dilations of 1, convolution strides and dilations 1 and group counts 1,
/// sort dimension -1.
void fill_op_defaults(OpState& st);
/// fill_op_defaults from the declarations `rows` (those of st's op are read; a test hands the
/// table with a row added).
void fill_op_defaults(OpState& st, std::span<const detail::AttrDecl> rows);

/// Why mesh-axes replica groups cannot be flattened: what was expected and what was found (each
/// reader throws it as its ParseError at the op).
struct MeshAxesError {
  std::string expected;
  std::string found;
};

/// StableHLO's flattening of mesh-axes replica groups (ReplicaGroupUtils.cpp,
/// flattenReplicaGroupMeshAxes): the groups of devices of `mesh` (its device ids, or positions
/// when it has none) that differ only along `axes`, each group in the order of `axes` (the first
/// named major). Throws MeshAxesError for an axis the mesh lacks or one named twice.
std::vector<std::vector<int64_t>> flatten_mesh_axes(const Mesh& mesh,
                                                    const std::vector<std::string>& axes);

/// Replaces a `replica_groups` of `st` in StableHLO 1.16+'s mesh-axes form (an OpaqueAttr of
/// `#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = "x">]>`)
/// with the explicit 2-D i64 groups of module mesh @m (flatten_mesh_axes), the form of StableHLO
/// up to 1.15 that the pinned plugin and our IR read. Throws MeshAxesError for another text, an
/// inline mesh, sub-axes, or a mesh the module lacks.
void flatten_mesh_replica_groups(OpState& st, const Module& m);

}  // namespace hhlo
