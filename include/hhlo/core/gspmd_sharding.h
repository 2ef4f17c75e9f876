// GSPMD shardings: XLA's HloSharding in its text form, the string of an `mhlo.sharding`
// attribute (`{devices=[2,2]<=[4]}`), which JAX emits with jax_use_shardy_partitioner=False and
// XLA's GSPMD partitioner reads. Read into a typed value, printed back as XLA prints it, laid out
// over devices, and converted to a Mesh and per-dimension axes (hhlo/core/sharding.h) where that
// model can say it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hhlo/core/sharding.h"

namespace hhlo {

/// One HloSharding (xla/hlo/ir/hlo_sharding.h), as its text reads:
/// - `{replicated}`, `{manual}`, `{unknown}`, `{unreduced}`: the kind alone;
/// - `{maximal device=3}`: the whole array on logical device `device`;
/// - `{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}`: tiled. `tile_dims` has one entry
///   per array dimension (tiles along it), then one trailing entry per subgroup: with
///   `last_tile_dim_replicate` the last entry counts replicas, with `last_tile_dims={manual,
///   replicated}` the trailing entries are subgroups of those types. The tile devices are either
///   the explicit list `devices` (`[2,2]0,2,1,3`) or an iota: devices 0..N-1 laid out as
///   `iota_reshape`, transposed by `iota_transpose` (empty: not transposed), read row-major
///   (`<=[4]`, `<=[2,2]T(1,0)`);
/// - `{{replicated}, {maximal device=0}}`: a tuple of `elements`.
/// Each may carry `metadata={...}` (kept as the text inside the braces) and `shard_as N` /
/// `shard_like N`.
struct GspmdSharding {
  enum class Kind { replicated, manual, unknown, unreduced, maximal, tiled, tuple };
  Kind kind = Kind::replicated;
  int64_t device = 0;
  Dims tile_dims;
  std::vector<int64_t> devices;
  Dims iota_reshape;
  std::vector<int64_t> iota_transpose;
  bool last_tile_dim_replicate = false;
  std::vector<std::string> last_tile_dims;
  std::vector<GspmdSharding> elements;
  std::string metadata;
  /// `shard_as` or `shard_like` (empty when absent) and its group id.
  std::string shard_group;
  int64_t shard_group_id = 0;

  /// XLA's text: `{devices=[2,2]<=[4]}` and the others above, byte for byte as
  /// HloSharding::ToString writes them (what parse_gspmd_sharding reads from JAX).
  std::string to_string() const;
  /// The logical device of each tile in row-major tile order (the explicit list, or the iota
  /// resolved); empty unless tiled.
  std::vector<int64_t> tile_devices() const;
  /// Number of array dimensions a tiled sharding splits: tile_dims less the subgroup entries.
  std::size_t data_rank() const;
  bool operator==(const GspmdSharding&) const = default;
};

/// Reads XLA's sharding text (the string of `mhlo.sharding`; spaces between items optional).
/// Throws ParseError (source "mhlo.sharding", line 1, the 1-based column in `text`) for text that
/// is not a sharding: an unknown kind or keyword, a bracket not closed, a non-integer, tile
/// dimensions < 1, a device list or iota whose size differs from the tile count, a transpose
/// that is not a permutation of the iota's dimensions, device ids repeated or negative,
/// last_tile_dim_replicate without tile dimensions.
GspmdSharding parse_gspmd_sharding(std::string_view text);

/// Where each shard of an array of dims `global` lies under `s` on `num_devices` logical
/// devices (replicated: every device holds all of it). Throws ShardingError for a maximal,
/// manual, unknown, unreduced or tuple sharding (no split of one array), a tiled one whose data
/// rank differs from the array's, subgroups other than replicated, or a dimension not divisible
/// by its tiles (as shard_layout_from_tiles).
ShardLayout shard_layout(const GspmdSharding& s, const Dims& global, int64_t num_devices);

/// The same placement as a Mesh and per-dimension axes, for an array of rank `rank` on
/// `num_devices` devices: one mesh axis per tile dimension of size > 1 (named "d0", "d1", ...
/// after the array dimension, "r" for the replicated subgroup), device ids the tile devices
/// (none when they are 0..N-1 in order); replicated: one axis "r" of all devices, listed by no
/// dimension. nullopt where the model cannot say it: maximal, manual, unknown, unreduced,
/// tuples, manual subgroups, or a data rank other than `rank`.
std::optional<std::pair<Mesh, Sharding>> to_mesh_sharding(const GspmdSharding& s, std::size_t rank,
                                                          int64_t num_devices);

/// The GSPMD sharding of `sharding` over `mesh` (what JAX writes for a NamedSharding when it
/// lowers for GSPMD): replicated when no dimension lists an axis, else tiled with the mesh axes
/// each dimension lists (major first), the unlisted axes as a trailing replicated dimension
/// (`last_tile_dim_replicate`), and the tile devices as an iota (a transposed one when the
/// listed axes are out of mesh order) when the mesh has no device ids, else as the list. Throws
/// ShardingError for an unknown or repeated axis.
GspmdSharding gspmd_sharding(const Mesh& mesh, const Sharding& sharding);

}  // namespace hhlo
