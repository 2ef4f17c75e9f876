// A global array held as one device buffer per shard (the runtime half of SPMD execution).
#pragma once

#include <optional>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/core/sharding.h"
#include "hhlo/runtime/buffer.h"
#include "hhlo/runtime/device.h"

namespace hhlo {

class Client;

/// An array of global type `type()` split over devices by `layout()`: shard k is a Buffer of
/// dims `layout().shard` holding the block at `layout().offsets[k]`, on the device that runs
/// logical device (SPMD partition) `layout().devices[k]`. Move-only, like Buffer.
class ShardedArray {
 public:
  ShardedArray() = default;

  /// Splits `array` by `layout` and copies each block to its device: logical device p goes to
  /// `devices[p]` (default: the client's devices, in order; pass an executable's devices() when
  /// it has a device assignment) (PJRT_Client_BufferFromHostBuffer per shard). Throws
  /// ShardingError when the layout's global dims differ from the array's, or the layout names a
  /// logical device beyond `devices` (a mesh larger than the client's devices, naming both
  /// sizes).
  static ShardedArray from_host(const Client& client, const Array& array, const ShardLayout& layout,
                                const std::vector<Device>& devices = {});
  /// Wraps existing shard buffers: `shards[k]` must have dims `layout.shard`, dtype `dtype`, and
  /// live on `devices[layout.devices[k]]`. Throws ShardingError for a shard on the wrong device
  /// (naming the shard, the device it is on and the one expected) or of the wrong shape.
  static ShardedArray from_shards(DType dtype, const ShardLayout& layout,
                                  std::vector<Buffer> shards, const std::vector<Device>& devices);

  /// The global type.
  TensorType type() const { return {dtype_, layout_.global}; }
  const ShardLayout& layout() const { return layout_; }
  const std::vector<Buffer>& shards() const { return shards_; }
  std::vector<Buffer>& shards() { return shards_; }
  /// The shard held by logical device p; throws ShardingError when none is.
  const Buffer& shard_on(int64_t p) const;
  /// Copies every distinct block back and assembles the global array (PJRT_Buffer_ToHostBuffer
  /// per shard; replicated copies are read once). Throws hhlo::PjrtError when a shard was
  /// donated or deleted.
  Array to_host() const;
  /// True when any shard was deleted or donated to an execution.
  bool is_deleted() const;

 private:
  DType dtype_ = DType::f32;
  ShardLayout layout_;
  std::vector<Buffer> shards_;
};

}  // namespace hhlo
