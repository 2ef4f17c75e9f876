// Shardy ops in the builder: sharding constraints inside a function and manual computations
// (JAX's shard_map), so a program written for global shapes can pin the sharding of a value, or
// switch to per-shard code with explicit collectives (hhlo/ir/ops.h: all_reduce, all_gather...).
// XLA's partitioner reads them when the program is compiled with
// CompileOptions::use_spmd_partitioning and use_shardy_partitioner (docs/spmd.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/gspmd_sharding.h"
#include "hhlo/core/sharding.h"
#include "hhlo/ir/module.h"

namespace hhlo {

/// `sdy.sharding_constraint` (Shardy dialect; JAX's `with_sharding_constraint`): `x` laid out as
/// `sharding` over the mesh `mesh` of the module (Module::add_mesh). Result: x's type. Throws
/// ShardingError when `sharding` does not fit x (rank, unknown or repeated axis, a dimension not
/// divisible by its axes) or the module has no such mesh.
Value sharding_constraint(const Module& module, Value x, const std::string& mesh,
                          const Sharding& sharding, Loc loc = Loc::current());

/// `sdy.manual_computation` (JAX's `shard_map`): `operands` (global arrays, laid out as
/// `in_shardings` over the module's mesh `mesh`) enter `body` as their per-device shards along
/// `manual_axes` (each dimension divided by the product of the sizes of the manual axes its
/// sharding lists); `body` works on those per-shard types, may use collectives over the manual
/// axes, and returns per-shard values, which leave as global arrays laid out as `out_shardings`
/// (their dimensions multiplied back). Every axis the shardings name must be manual here. Returns
/// the global results. Throws ShardingError for a sharding that does not fit its value or the
/// mesh, a non-manual axis in a sharding, or an unknown mesh; hhlo::Error when the counts of
/// operands / in_shardings or of results / out_shardings differ.
std::vector<Value> manual_computation(const Module& module, const std::vector<Value>& operands,
                                      const std::string& mesh,
                                      const std::vector<Sharding>& in_shardings,
                                      const std::vector<Sharding>& out_shardings,
                                      const std::vector<std::string>& manual_axes,
                                      const RegionBody& body, Loc loc = Loc::current());

/// `mhlo.sharding = "{devices=[2,2]<=[4]}"`: the GSPMD sharding `s` as an argument, result or op
/// attribute (a string attribute in MLIR, as XLA's GSPMD partitioner reads it; compile with
/// use_spmd_partitioning and without use_shardy_partitioner).
NamedAttr mhlo_sharding(const GspmdSharding& s);
/// The GSPMD sharding among `attrs` (a string `mhlo.sharding`, as the parser checked it), or
/// nullopt when there is none. Throws ParseError for a malformed string set by hand.
std::optional<GspmdSharding> gspmd_sharding_of(const std::vector<NamedAttr>& attrs);

namespace detail {
/// Per-shard type of a global `global` laid out as `s` over `mesh`, counting only the axes in
/// `manual` (all axes when `manual` is empty); `to_global` multiplies instead. Throws
/// ShardingError as shard_layout does (`what` names the value in messages).
TensorType manual_type(const Mesh& mesh, const Sharding& s, const std::vector<std::string>& manual,
                       const TensorType& t, bool to_global, const std::string& what);
/// manual_computation over the mesh value `mesh`, named `mesh_name` in the shardings (for code
/// that has the mesh but not the Module, e.g. autodiff rules); same checks and errors.
std::vector<Value> manual_computation_over(const Mesh& mesh, const std::string& mesh_name,
                                           const std::vector<Value>& operands,
                                           const std::vector<Sharding>& in_shardings,
                                           const std::vector<Sharding>& out_shardings,
                                           const std::vector<std::string>& manual_axes,
                                           const RegionBody& body, Loc loc = Loc::current());
/// A copy of the mesh @`name` of the module that `f` belongs to (as Module::add_mesh recorded
/// it, parsed modules included), or nullopt when that module has no such mesh. How code that
/// sees only an op and its function (the VJP of sdy.manual_computation) reads the mesh its
/// shardings name.
std::optional<Mesh> module_mesh(const Func& f, std::string_view name);
/// Replica groups (flattened global device ids, i.e. logical devices when there is one
/// replica) of the collectives over the mesh axes `axes`: one group per position of the other
/// axes, holding the devices that differ only along `axes`, in row-major mesh order (what
/// JAX's psum over those axes lowers to). Throws ShardingError for an unknown axis.
std::vector<std::vector<int64_t>> axis_groups(const Mesh& mesh,
                                              const std::vector<std::string>& axes);
}  // namespace detail

}  // namespace hhlo
