// xla.CompileOptionsProto in protobuf wire format. Field numbers
// (xla/pjrt/proto/compile_options.proto, checked against the bytes jaxlib's
// CompileOptions.SerializeAsString() produces):
//   CompileOptionsProto: executable_build_options = 3 (message), compile_portable_executable = 4.
//   ExecutableBuildOptionsProto: device_ordinal = 1, num_replicas = 4, num_partitions = 5,
//     use_spmd_partitioning = 6 (bool), device_assignment = 9 (message),
//     use_shardy_partitioner = 19 (bool) (jaxlib 0.10.2 writes these two fields, and only
//     these, when `executable_build_options.use_spmd_partitioning` / `use_shardy_partitioner`
//     are set; both are left out when false, so the bytes of options without them are
//     unchanged).
//   DeviceAssignmentProto: replica_count = 1, computation_count = 2,
//     computation_devices = 3 (repeated message { repeated int64 replica_device_ids = 1 }).
//   CompileOptionsProto.env_option_overrides = 7: map<string, OptionOverrideProto>, each entry a
//     message { string key = 1; OptionOverrideProto value = 2; }.
//   OptionOverrideProto: oneof { string string_field = 1; bool bool_field = 2;
//     int64 int_field = 3; double double_field = 4; } (a oneof member is written even when it is
//     false or 0, as jaxlib does: its presence is what selects the type).
#include "hhlo/runtime/compile_options.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>

#include "hhlo/core/error.h"

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
  varint(out, static_cast<uint64_t>(v));           // negative: ten-byte two's complement
}
void bytes_field(std::string& out, int field, const std::string& bytes) {
  varint(out, (static_cast<uint64_t>(field) << 3) | 2);
  varint(out, bytes.size());
  out += bytes;
}
void double_field(std::string& out, int field, double v) {
  varint(out, (static_cast<uint64_t>(field) << 3) | 1);  // wire type 1: 8 bytes, little-endian
  uint64_t bits = std::bit_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xff);
}

/// One OptionOverrideProto.
std::string option_override(const XlaOptionValue& v) {
  std::string out;
  if (const bool* b = std::get_if<bool>(&v))
    int_field(out, 2, *b ? 1 : 0);
  else if (const int64_t* i = std::get_if<int64_t>(&v))
    int_field(out, 3, *i);
  else if (const double* d = std::get_if<double>(&v))
    double_field(out, 4, *d);
  else
    bytes_field(out, 1, std::get<std::string>(v));
  return out;
}

}  // namespace

std::map<std::string, XlaOptionValue> default_xla_options() {
  return {{"xla_cpu_enable_fast_min_max", false}};
}

std::string serialize_compile_options(const CompileOptions& o) {
  if (o.num_replicas < 1 || o.num_partitions < 1)
    throw Error(
        fmt::format("CompileOptions: num_replicas ({}) and num_partitions ({}) must be >= 1",
                    o.num_replicas, o.num_partitions));
  std::size_t n = static_cast<std::size_t>(o.num_replicas) * o.num_partitions;
  if (!o.device_assignment.empty() && o.device_assignment.size() != n)
    throw Error(
        fmt::format("CompileOptions: device_assignment has {} entries, expected "
                    "num_replicas * num_partitions = {}",
                    o.device_assignment.size(), n));
  if (o.portable && n != 1)
    throw Error("CompileOptions: a portable executable needs num_replicas = num_partitions = 1");
  for (const auto& [name, value] : o.xla_options)
    if (name.empty()) throw Error("CompileOptions: an xla_options entry has an empty name");

  std::string build;
  int_field(build, 1, -1);  // device_ordinal: unset
  int_field(build, 4, o.num_replicas);
  int_field(build, 5, o.num_partitions);
  if (o.use_spmd_partitioning) int_field(build, 6, 1);
  if (!o.device_assignment.empty()) {
    std::string da;
    int_field(da, 1, o.num_replicas);
    int_field(da, 2, o.num_partitions);
    for (int p = 0; p < o.num_partitions; ++p) {
      std::string ids, comp;
      for (int r = 0; r < o.num_replicas; ++r)
        varint(ids, o.device_assignment[r * o.num_partitions + p]);
      bytes_field(comp, 1, ids);  // packed repeated int64
      bytes_field(da, 3, comp);
    }
    bytes_field(build, 9, da);
  }
  if (o.use_shardy_partitioner) int_field(build, 19, 1);
  std::string out;
  bytes_field(out, 3, build);
  if (o.portable) int_field(out, 4, 1);
  for (const auto& [name, value] : o.xla_options) {  // std::map: in name order, deterministic
    std::string entry;
    bytes_field(entry, 1, name);
    bytes_field(entry, 2, option_override(value));
    bytes_field(out, 7, entry);
  }
  return out;
}

XlaOptionValue parse_xla_option_value(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  const char* first = text.data();
  const char* last = first + text.size();
  if (text.size() > 1 && text[0] == '+' && text[1] != '-') ++first;  // from_chars takes '-' only
  int64_t i = 0;
  auto [ip, ie] = std::from_chars(first, last, i);
  if (ie == std::errc() && ip == last && first != last) return i;
  bool looks_numeric = first != last && text.find_first_of(".eE") != std::string::npos &&
                       text.find_first_not_of("+-.eE0123456789") == std::string::npos;
  double d = 0;
  auto [dp, de] = std::from_chars(first, last, d);
  if (looks_numeric && de == std::errc() && dp == last) return d;
  return text;
}

}  // namespace hhlo
