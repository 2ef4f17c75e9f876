// Device meshes and shardings: how one global array is split over devices (the Shardy / JAX
// NamedSharding model), and where each device's shard lies in the global array.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/core/error.h"

namespace hhlo {

/// A sharding that does not fit its array or mesh: a dimension not divisible by its mesh axes,
/// an unknown or repeated axis, a rank mismatch, a mesh larger than the devices at hand, a shard
/// on the wrong device. `dimension()` is the array dimension concerned (-1 when none), `axis()`
/// the mesh axis (empty when none); the message names both and the sizes involved.
class ShardingError : public Error {
 public:
  ShardingError(int64_t dimension, std::string axis, const std::string& message)
      : Error(message), dimension_(dimension), axis_(std::move(axis)) {}
  int64_t dimension() const { return dimension_; }
  const std::string& axis() const { return axis_; }

 private:
  int64_t dimension_;
  std::string axis_;
};

/// One named axis of a device mesh (Shardy `"x"=4`).
struct MeshAxis {
  std::string name;
  int64_t size = 1;
  bool operator==(const MeshAxis&) const = default;
};

/// A logical device mesh (Shardy `sdy.mesh @name = <["x"=2, "y"=2]>`, JAX `Mesh`): named axes,
/// major to minor. Mesh position k (row-major over the axes) holds logical device
/// `device_ids[k]`, or device k when `device_ids` is empty. Logical device p is SPMD partition p,
/// which runs on the p-th device of the executable's device assignment.
struct Mesh {
  std::vector<MeshAxis> axes;
  std::vector<int64_t> device_ids;

  /// Product of the axis sizes (1 for a mesh without axes).
  int64_t num_devices() const;
  /// Index of axis `name` in `axes`; throws ShardingError naming the mesh's axes when absent.
  std::size_t axis_index(std::string_view name) const;
  /// The logical device at row-major mesh position k.
  int64_t device(int64_t k) const { return device_ids.empty() ? k : device_ids.at(k); }
  /// Throws ShardingError for an axis size < 1, a repeated or empty axis name, or device ids that
  /// are not a permutation of 0..num_devices()-1.
  void validate() const;
  /// Shardy's form: `<["x"=2, "y"=2]>`, with `, device_ids=[...]` when given.
  std::string to_string() const;
  bool operator==(const Mesh&) const = default;
};

/// How an array is split over a mesh (JAX's PartitionSpec; Shardy `[{"x"}, {}]`): `dims[i]` lists
/// the mesh axes that split dimension i, major first; an axis listed nowhere replicates the array
/// along it. A rank-0 array has no entries (replicated).
struct Sharding {
  std::vector<std::vector<std::string>> dims;

  /// Replicated over every axis, for an array of `rank` dimensions.
  static Sharding replicated(std::size_t rank) {
    return {std::vector<std::vector<std::string>>(rank)};
  }
  /// Shardy's dimension list: `[{"x"}, {}]`.
  std::string to_string() const;
  bool operator==(const Sharding&) const = default;
};

/// Where each shard of a global array lies: shard k (one per device, in row-major order of the
/// tile assignment) is the block of size `shard` at `offsets[k]`, held by logical device
/// `devices[k]`. Replicated axes give several shards with the same offsets.
struct ShardLayout {
  Dims global;
  Dims shard;
  std::vector<int64_t> devices;
  std::vector<Dims> offsets;
  bool operator==(const ShardLayout&) const = default;
  /// True when both place the same block on every logical device (the order of the shards,
  /// which XLA chooses for replicated tiles, aside).
  bool same_placement(const ShardLayout& other) const;
  /// "f32[8,3] as 4 shards of [2,3]" style summary for messages (dims only).
  std::string to_string() const;
};

/// The layout of an array of dims `global` sharded by `sharding` over `mesh`. Throws
/// ShardingError: rank of the sharding differs from the array's; an axis unknown to the mesh or
/// used twice; dimension i not divisible by the product of its axes' sizes (naming the
/// dimension, its size, the axes and their product).
ShardLayout shard_layout(const Mesh& mesh, const Sharding& sharding, const Dims& global);

/// The layout from an XLA tile assignment (xla.OpSharding of type OTHER or REPLICATED):
/// `tile_dims` has one entry per array dimension plus trailing replication dimensions (XLA's
/// replicate_on_last_tile_dim / last_tile_dims), `tile_devices` the logical device of each tile
/// in row-major tile order. An empty `tile_dims` means replicated on `num_devices` devices.
/// Throws ShardingError when a dimension is not divisible by its tile count or the device list
/// does not match the tile count.
ShardLayout shard_layout_from_tiles(const Dims& global, const Dims& tile_dims,
                                    const std::vector<int64_t>& tile_devices, int64_t num_devices);

/// The block of `global` of size `size` at `offset` (row-major copy). Throws ShapeError when the
/// block does not lie inside the array.
Array extract_block(const Array& global, const Dims& offset, const Dims& size);
/// Writes `block` into `global` at `offset`. Throws ShapeError for a dtype mismatch or a block
/// outside the array.
void insert_block(Array& global, const Array& block, const Dims& offset);

}  // namespace hhlo
