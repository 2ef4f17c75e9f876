#include "hhlo/runtime/sharded_array.h"

#include <fmt/format.h>

#include <map>

#include "hhlo/runtime/client.h"

namespace hhlo {

namespace {

const Device& device_for(const std::vector<Device>& devices, int64_t p, const ShardLayout& layout) {
  if (p < 0 || p >= static_cast<int64_t>(devices.size()))
    throw ShardingError(-1, "",
                        fmt::format("sharding {} needs {} devices (logical device {}), but only {} "
                                    "are available",
                                    layout.to_string(), layout.devices.size(), p, devices.size()));
  return devices[p];
}

}  // namespace

ShardedArray ShardedArray::from_host(const Client& client, const Array& array,
                                     const ShardLayout& layout, const std::vector<Device>& given) {
  if (layout.global != array.dims())
    throw ShardingError(-1, "",
                        fmt::format("ShardedArray::from_host: the layout is for an array [{}], the "
                                    "array is {}",
                                    dims_to_string(layout.global), array.type().to_string()));
  std::vector<Device> devices = given.empty() ? client.devices() : given;
  for (int64_t p : layout.devices) device_for(devices, p, layout);  // all checked before copying
  ShardedArray out;
  out.dtype_ = array.dtype();
  out.layout_ = layout;
  for (std::size_t k = 0; k < layout.devices.size(); ++k) {
    Array block = extract_block(array, layout.offsets[k], layout.shard);
    out.shards_.push_back(client.buffer_from_host(block, devices[layout.devices[k]]));
  }
  return out;
}

ShardedArray ShardedArray::from_shards(DType dtype, const ShardLayout& layout,
                                       std::vector<Buffer> shards,
                                       const std::vector<Device>& devices) {
  if (shards.size() != layout.devices.size())
    throw ShardingError(-1, "",
                        fmt::format("ShardedArray: sharding {} has {} shards, {} buffers given",
                                    layout.to_string(), layout.devices.size(), shards.size()));
  for (std::size_t k = 0; k < shards.size(); ++k) {
    const Device& want = device_for(devices, layout.devices[k], layout);
    Device got = shards[k].device();
    if (!(got == want))
      throw ShardingError(-1, "",
                          fmt::format("ShardedArray: shard {} (logical device {}) is on device {}, "
                                      "expected device {}",
                                      k, layout.devices[k], got.id(), want.id()));
    TensorType t = shards[k].type();
    if (t.dtype != dtype || t.dims != layout.shard)
      throw ShardingError(-1, "",
                          fmt::format("ShardedArray: shard {} is {}, expected {}", k, t.to_string(),
                                      TensorType{dtype, layout.shard}.to_string()));
  }
  ShardedArray out;
  out.dtype_ = dtype;
  out.layout_ = layout;
  out.shards_ = std::move(shards);
  return out;
}

const Buffer& ShardedArray::shard_on(int64_t p) const {
  for (std::size_t k = 0; k < layout_.devices.size(); ++k)
    if (layout_.devices[k] == p) return shards_[k];
  throw ShardingError(
      -1, "",
      fmt::format("ShardedArray {}: no shard on logical device {}", layout_.to_string(), p));
}

Array ShardedArray::to_host() const {
  Array out(dtype_, layout_.global);
  std::map<Dims, bool> done;  // replicated blocks are read once
  for (std::size_t k = 0; k < shards_.size(); ++k) {
    if (done[layout_.offsets[k]]) continue;
    done[layout_.offsets[k]] = true;
    insert_block(out, shards_[k].to_host(), layout_.offsets[k]);
  }
  return out;
}

bool ShardedArray::is_deleted() const {
  for (const Buffer& b : shards_)
    if (b.is_deleted()) return true;
  return false;
}

}  // namespace hhlo
