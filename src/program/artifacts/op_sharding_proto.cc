// xla.OpSharding protos (xla/xla_data.proto) decoded into GspmdSharding: the shardings of
// jax.export artifacts written before serialization version 9 (serialization.fbs
// Sharding.hlo_sharding_proto), read with the one protobuf wire reader (hhlo/core/proto_wire.h).
#include <fmt/format.h>

#include "exported_internal.h"
#include "hhlo/core/proto_wire.h"

namespace hhlo::program_detail {
namespace {

// OpSharding's field numbers and Type values (xla_data.proto).
enum Field : uint32_t {
  kType = 1,
  kTileAssignmentDimensions = 3,
  kTileAssignmentDevices = 4,
  kTupleShardings = 5,
  kReplicateOnLastTileDim = 6,
  kLastTileDims = 8,
  kIotaReshapeDims = 9,
  kIotaTransposePerm = 10,
  kIsShardGroup = 11,
  kShardGroupId = 12,
  kShardGroupType = 13,
};
enum Type : int64_t { kReplicated, kMaximal, kTuple, kOther, kManual, kUnknown, kUnreduced };

constexpr int kMaxTupleDepth = 64;

/// The fields of one OpSharding (hhlo/core/proto_wire.h), each malformed one an error naming
/// `source` and the byte.
class ProtoReader {
 public:
  ProtoReader(std::string_view b, const std::string& source) : wire_(b), source_(source) {}
  bool done() const { return wire_.done(); }
  /// The next field; throws for one the wire format cannot hold here.
  ProtoField next() {
    ProtoField f;
    if (!wire_.next(f))
      bad("a protobuf field of wire type 0, 1, 2 or 5 inside the proto",
          "a truncated or undefined one");
    return f;
  }
  /// The varint value of `f`; throws when `f` is not a varint.
  uint64_t varint(const ProtoField& f) const {
    if (f.wire_type != 0) bad("a varint field", fmt::format("wire type {}", f.wire_type));
    return f.scalar;
  }
  /// The bytes of `f`; throws when `f` is not length-delimited.
  std::string_view bytes(const ProtoField& f) const {
    if (f.wire_type != 2) bad("a length-delimited field", fmt::format("wire type {}", f.wire_type));
    return f.payload;
  }
  /// A repeated integer field: packed (wire type 2) or one value (wire type 0).
  void integers(const ProtoField& f, std::vector<int64_t>& out) const {
    if (!append_integers(f, out))
      bad("a repeated integer field",
          fmt::format("wire type {} or a bad packed varint", f.wire_type));
  }
  [[noreturn]] void bad(const std::string& expected, const std::string& found) const {
    fail(source_, "an xla.OpSharding proto (" + expected + ")",
         fmt::format("{} at byte {} of the proto", found, wire_.offset()));
  }

 private:
  ProtoWire wire_;
  const std::string& source_;
};

GspmdSharding decode(std::string_view proto, const std::string& source, int depth) {
  if (depth > kMaxTupleDepth)
    fail(source, "an xla.OpSharding proto", "tuple shardings nested deeper than 64");
  ProtoReader r(proto, source);
  int64_t type = kReplicated;
  std::vector<int64_t> dims, devices, last_tile_dims, reshape, transpose;
  GspmdSharding s;
  bool shard_group = false;
  int64_t group_type = 0;
  while (!r.done()) {
    ProtoField f = r.next();
    switch (f.number) {
      case kType:
        type = static_cast<int64_t>(r.varint(f));
        break;
      case kTileAssignmentDimensions:
        r.integers(f, dims);
        break;
      case kTileAssignmentDevices:
        r.integers(f, devices);
        break;
      case kTupleShardings:
        s.elements.push_back(decode(r.bytes(f), source, depth + 1));
        break;
      case kReplicateOnLastTileDim:
        s.last_tile_dim_replicate = r.varint(f) != 0;
        break;
      case kLastTileDims:
        r.integers(f, last_tile_dims);
        break;
      case kIotaReshapeDims:
        r.integers(f, reshape);
        break;
      case kIotaTransposePerm:
        r.integers(f, transpose);
        break;
      case kIsShardGroup:
        shard_group = r.varint(f) != 0;
        break;
      case kShardGroupId:
        s.shard_group_id = static_cast<int64_t>(r.varint(f));
        break;
      case kShardGroupType:
        group_type = static_cast<int64_t>(r.varint(f));
        break;
      default:  // tile_shape, metadata: not needed to place the array (read past by next)
        break;
    }
  }
  if (shard_group) s.shard_group = group_type == 0 ? "shard_as" : "shard_like";
  switch (type) {
    case kReplicated:
      s.kind = GspmdSharding::Kind::replicated;
      return s;
    case kManual:
      s.kind = GspmdSharding::Kind::manual;
      return s;
    case kUnknown:
      s.kind = GspmdSharding::Kind::unknown;
      return s;
    case kUnreduced:
      s.kind = GspmdSharding::Kind::unreduced;
      return s;
    case kTuple:
      s.kind = GspmdSharding::Kind::tuple;
      return s;
    case kMaximal:
      if (devices.size() != 1)
        r.bad("a MAXIMAL sharding with one device", fmt::format("{} devices", devices.size()));
      s.kind = GspmdSharding::Kind::maximal;
      s.device = devices[0];
      return s;
    case kOther:
      break;
    default:
      r.bad("an OpSharding type 0 to 6", fmt::format("type {}", type));
  }
  s.kind = GspmdSharding::Kind::tiled;
  s.tile_dims = dims;
  bool identity = true;
  for (size_t i = 0; i < transpose.size(); ++i) identity = identity && transpose[i] == int64_t(i);
  if (!reshape.empty()) {
    s.iota_reshape = reshape;
    if (!identity) s.iota_transpose = transpose;
  } else {
    s.devices = devices;
  }
  for (int64_t t : last_tile_dims) {
    switch (t) {
      case kReplicated:
        s.last_tile_dims.push_back("replicated");
        break;
      case kManual:
        s.last_tile_dims.push_back("manual");
        break;
      case kUnreduced:
        s.last_tile_dims.push_back("unreduced");
        break;
      default:
        r.bad("last_tile_dims of REPLICATED, MANUAL or UNREDUCED", fmt::format("{}", t));
    }
  }
  // The text reader checks what a tile assignment must satisfy (device count, permutation).
  try {
    return parse_gspmd_sharding(s.to_string());
  } catch (const ParseError& e) {
    r.bad("a consistent tile assignment", "'" + s.to_string() + "' (" + e.expected() + ")");
  }
}

}  // namespace

GspmdSharding decode_op_sharding(std::span<const uint8_t> proto, const std::string& source) {
  std::string_view bytes(reinterpret_cast<const char*>(proto.data()), proto.size());
  return decode(bytes, source, 0);
}

}  // namespace hhlo::program_detail
