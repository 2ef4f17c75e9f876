// xla.OpSharding protos (xla/xla_data.proto) decoded into GspmdSharding
// (hhlo/core/op_sharding_proto.h), read with the one protobuf wire reader (hhlo/core/proto_wire.h).
#include "hhlo/core/op_sharding_proto.h"

#include <fmt/format.h>

#include "hhlo/core/error.h"
#include "hhlo/core/proto_wire.h"

namespace hhlo {
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

/// The fields of one OpSharding (hhlo/core/proto_wire.h), each malformed one a ParseError naming
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
    throw ParseError(source_, 0, 0, "an xla.OpSharding proto (" + expected + ")",
                     fmt::format("{} at byte {} of the proto", found, wire_.offset()));
  }

 private:
  ProtoWire wire_;
  const std::string& source_;
};

/// The fields of one OpSharding as read, before they are checked against each other.
struct Fields {
  int64_t type = kReplicated;
  std::vector<int64_t> dims, devices, last_tile_dims, reshape, transpose;
  bool shard_group = false;
  int64_t group_type = 0;
  GspmdSharding s;  // elements, last_tile_dim_replicate and shard_group_id as read
};

GspmdSharding decode(std::string_view proto, const std::string& source, int depth);

/// Reads every field of the message in `r` (tuple elements decoded one level deeper).
Fields read_fields(ProtoReader& r, const std::string& source, int depth) {
  Fields x;
  while (!r.done()) {
    ProtoField f = r.next();
    switch (f.number) {
      case kType:
        x.type = static_cast<int64_t>(r.varint(f));
        break;
      case kTileAssignmentDimensions:
        r.integers(f, x.dims);
        break;
      case kTileAssignmentDevices:
        r.integers(f, x.devices);
        break;
      case kTupleShardings:
        x.s.elements.push_back(decode(r.bytes(f), source, depth + 1));
        break;
      case kReplicateOnLastTileDim:
        x.s.last_tile_dim_replicate = r.varint(f) != 0;
        break;
      case kLastTileDims:
        r.integers(f, x.last_tile_dims);
        break;
      case kIotaReshapeDims:
        r.integers(f, x.reshape);
        break;
      case kIotaTransposePerm:
        r.integers(f, x.transpose);
        break;
      case kIsShardGroup:
        x.shard_group = r.varint(f) != 0;
        break;
      case kShardGroupId:
        x.s.shard_group_id = static_cast<int64_t>(r.varint(f));
        break;
      case kShardGroupType:
        x.group_type = static_cast<int64_t>(r.varint(f));
        break;
      default:  // tile_shape, metadata, named_sharding: not needed to place the array
        break;
    }
  }
  return x;
}

/// The subgroup types of last_tile_dims as the text names them.
std::vector<std::string> subgroup_types(const ProtoReader& r, const std::vector<int64_t>& types) {
  std::vector<std::string> out;
  for (int64_t t : types) {
    switch (t) {
      case kReplicated:
        out.push_back("replicated");
        break;
      case kManual:
        out.push_back("manual");
        break;
      case kUnreduced:
        out.push_back("unreduced");
        break;
      default:
        r.bad("last_tile_dims of REPLICATED, MANUAL or UNREDUCED", fmt::format("{}", t));
    }
  }
  return out;
}

/// The tile assignment of an OTHER sharding: the explicit device list or the iota, checked as
/// the text reader checks a tile assignment (device count, permutation).
GspmdSharding tiled(const ProtoReader& r, Fields x) {
  GspmdSharding s = std::move(x.s);
  s.kind = GspmdSharding::Kind::tiled;
  s.tile_dims = x.dims;
  if (x.devices.empty() == x.reshape.empty())
    r.bad("tile_assignment_devices or iota_reshape_dims, one of them",
          x.devices.empty() ? "neither" : "both");
  if (!x.reshape.empty()) {
    if (x.transpose.size() != x.reshape.size())
      r.bad(
          "an iota tile assignment with its permutation (iota_transpose_perm, one entry per "
          "iota_reshape_dims)",
          fmt::format("{} entries for {} dimensions", x.transpose.size(), x.reshape.size()));
    bool identity = true;
    for (size_t i = 0; i < x.transpose.size(); ++i)
      identity = identity && x.transpose[i] == int64_t(i);
    s.iota_reshape = x.reshape;
    if (!identity) s.iota_transpose = x.transpose;
  } else {
    s.devices = x.devices;
  }
  s.last_tile_dims = subgroup_types(r, x.last_tile_dims);
  try {
    return parse_gspmd_sharding(s.to_string());
  } catch (const ParseError& e) {
    r.bad("a consistent tile assignment", "'" + s.to_string() + "' (" + e.expected() + ")");
  }
}

GspmdSharding decode(std::string_view proto, const std::string& source, int depth) {
  if (depth > kMaxTupleDepth)
    throw ParseError(source, 0, 0, "an xla.OpSharding proto",
                     "tuple shardings nested deeper than 64");
  ProtoReader r(proto, source);
  Fields x = read_fields(r, source, depth);
  if (x.shard_group) x.s.shard_group = x.group_type == 0 ? "shard_as" : "shard_like";
  GspmdSharding s = x.s;
  switch (x.type) {
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
      if (x.devices.size() != 1 || x.devices[0] < 0)
        r.bad("a MAXIMAL sharding with one device id >= 0",
              x.devices.size() == 1 ? fmt::format("device {}", x.devices[0])
                                    : fmt::format("{} devices", x.devices.size()));
      s.kind = GspmdSharding::Kind::maximal;
      s.device = x.devices[0];
      return s;
    case kOther:
      return tiled(r, std::move(x));
    default:
      r.bad("an OpSharding type 0 to 6", fmt::format("type {}", x.type));
  }
}

}  // namespace

GspmdSharding decode_op_sharding(std::string_view proto, const std::string& source) {
  return decode(proto, source, 0);
}

}  // namespace hhlo
