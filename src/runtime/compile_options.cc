// xla.CompileOptionsProto in protobuf wire format. Field numbers (xla/pjrt/proto/compile_options.proto,
// checked against the bytes jaxlib's CompileOptions.SerializeAsString() produces):
//   CompileOptionsProto: executable_build_options = 3 (message), compile_portable_executable = 4.
//   ExecutableBuildOptionsProto: device_ordinal = 1, num_replicas = 4, num_partitions = 5,
//     device_assignment = 9 (message).
//   DeviceAssignmentProto: replica_count = 1, computation_count = 2,
//     computation_devices = 3 (repeated message { repeated int64 replica_device_ids = 1 }).
#include <fmt/format.h>

#include "hhlo/core/error.h"
#include "hhlo/runtime/compile_options.h"

namespace hhlo {
namespace {

void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
void int_field(std::string& out, int field, int64_t v) {
  varint(out, static_cast<uint64_t>(field) << 3);  // wire type 0
  varint(out, static_cast<uint64_t>(v));            // negative: ten-byte two's complement
}
void bytes_field(std::string& out, int field, const std::string& bytes) {
  varint(out, (static_cast<uint64_t>(field) << 3) | 2);
  varint(out, bytes.size());
  out += bytes;
}

}  // namespace

std::string serialize_compile_options(const CompileOptions& o) {
  if (o.num_replicas < 1 || o.num_partitions < 1)
    throw Error(fmt::format("CompileOptions: num_replicas ({}) and num_partitions ({}) must be >= 1",
                            o.num_replicas, o.num_partitions));
  std::size_t n = static_cast<std::size_t>(o.num_replicas) * o.num_partitions;
  if (!o.device_assignment.empty() && o.device_assignment.size() != n)
    throw Error(fmt::format("CompileOptions: device_assignment has {} entries, expected "
                            "num_replicas * num_partitions = {}",
                            o.device_assignment.size(), n));
  if (o.portable && n != 1)
    throw Error("CompileOptions: a portable executable needs num_replicas = num_partitions = 1");

  std::string build;
  int_field(build, 1, -1);  // device_ordinal: unset
  int_field(build, 4, o.num_replicas);
  int_field(build, 5, o.num_partitions);
  if (!o.device_assignment.empty()) {
    std::string da;
    int_field(da, 1, o.num_replicas);
    int_field(da, 2, o.num_partitions);
    for (int p = 0; p < o.num_partitions; ++p) {
      std::string ids, comp;
      for (int r = 0; r < o.num_replicas; ++r) varint(ids, o.device_assignment[r * o.num_partitions + p]);
      bytes_field(comp, 1, ids);  // packed repeated int64
      bytes_field(da, 3, comp);
    }
    bytes_field(build, 9, da);
  }
  std::string out;
  bytes_field(out, 3, build);
  if (o.portable) int_field(out, 4, 1);
  return out;
}

}  // namespace hhlo
