// A loaded program's inputs placed on its devices and calls of it (hhlo/program/placed_call.h).
#include "hhlo/program/placed_call.h"

namespace hhlo {

PlacedCall::PlacedCall(const Client& client, const LoadedExecutable& exe,
                       const std::vector<Array>& inputs)
    : exe_(exe), sharded_(exe.input_layouts().has_value()) {
  if (sharded_) {
    std::vector<Device> devices = exe.devices();
    devices_ = devices.size();
    for (std::size_t i = 0; i < inputs.size(); ++i)
      shards_.push_back(
          ShardedArray::from_host(client, inputs[i], (*exe.input_layouts())[i], devices));
    for (const ShardedArray& a : shards_) sharded_args_.push_back(&a);
    return;
  }
  for (const Array& a : inputs) buffers_.push_back(client.buffer_from_host(a));
  for (const Buffer& b : buffers_) args_.push_back(&b);
}

std::vector<Array> PlacedCall::to_host() const {
  std::vector<Array> host;
  if (sharded_) {
    for (const ShardedArray& a : exe_.execute_sharded(sharded_args_)) host.push_back(a.to_host());
  } else {
    for (const Buffer& b : exe_.execute(args_)) host.push_back(b.to_host());
  }
  return host;
}

void PlacedCall::call(bool keep_inputs) const {
  std::size_t n = sharded_ ? sharded_args_.size() : args_.size();
  ExecuteOptions options = keep_inputs ? ExecuteOptions::keeping_inputs(n) : ExecuteOptions{};
  if (sharded_)
    exe_.execute_sharded(sharded_args_, options);
  else
    exe_.execute(args_, options);
}

}  // namespace hhlo
