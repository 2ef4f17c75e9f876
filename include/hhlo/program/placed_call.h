// The execute stage: a loaded program's inputs placed on its devices once, and calls of it, on
// one device or SPMD-partitioned over several. `hhlo run`, `hhlo bench` and the model server
// (hhlo/serve/served_model.h) call programs this way, so each runs what the others run.
#pragma once

#include <cstddef>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/executable.h"
#include "hhlo/runtime/sharded_array.h"

namespace hhlo {

/// The inputs of `exe` on its devices: one buffer each on one device, or for an SPMD executable
/// (input_layouts()) each global input split by the layout the partitioner chose.
class PlacedCall {
 public:
  /// Copies `inputs` (those `@main` takes, in order) to the devices of `exe` on `client`.
  /// Throws what Client::buffer_from_host and ShardedArray::from_host throw. `exe` must outlive
  /// this.
  PlacedCall(const Client& client, const LoadedExecutable& exe, const std::vector<Array>& inputs);

  /// One call, its outputs copied to the host (each global output assembled from its shards).
  /// Throws what execute / execute_sharded throw.
  std::vector<Array> to_host() const;
  /// One call whose outputs are dropped when it returns (execute + await). With `keep_inputs`,
  /// inputs the program donates are kept, so every call runs on the same inputs.
  void call(bool keep_inputs = false) const;
  /// True for an SPMD executable.
  bool sharded() const { return sharded_; }
  /// The devices one call runs on.
  std::size_t devices() const { return devices_; }

 private:
  const LoadedExecutable& exe_;
  bool sharded_ = false;
  std::size_t devices_ = 1;
  std::vector<Buffer> buffers_;
  std::vector<const Buffer*> args_;
  std::vector<ShardedArray> shards_;
  std::vector<const ShardedArray*> sharded_args_;
};

}  // namespace hhlo
