// xla.OpSharding protos (xla/xla_data.proto) decoded into GspmdSharding: the shardings of
// jax.export artifacts written before serialization version 9 (serialization.fbs
// Sharding.hlo_sharding_proto). Protobuf wire format: varint keys (field << 3 | wire type),
// varints, length-delimited fields; repeated integers packed or not.
#include <fmt/format.h>

#include "exported_internal.h"

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

class ProtoReader {
 public:
  ProtoReader(std::span<const uint8_t> b, const std::string& source) : b_(b), source_(source) {}
  bool done() const { return at_ >= b_.size(); }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) bad("a varint", "the end of the proto");
      uint8_t c = b_[at_++];
      v |= uint64_t{c & 0x7fu} << shift;
      if (!(c & 0x80)) return v;
    }
    bad("a varint of at most 10 bytes", "a longer one");
  }
  std::span<const uint8_t> bytes() {
    uint64_t n = varint();
    if (n > b_.size() - at_) bad("a length-delimited field inside the proto", "a longer length");
    auto s = b_.subspan(at_, n);
    at_ += n;
    return s;
  }
  void skip(uint32_t wire_type) {
    switch (wire_type) {
      case 0:
        varint();
        return;
      case 1:
        advance(8);
        return;
      case 2:
        bytes();
        return;
      case 5:
        advance(4);
        return;
      default:
        bad("a protobuf wire type 0, 1, 2 or 5", fmt::format("wire type {}", wire_type));
    }
  }
  /// A repeated integer field: packed (wire type 2) or one value (wire type 0).
  void integers(uint32_t wire_type, std::vector<int64_t>& out) {
    if (wire_type == 0) {
      out.push_back(static_cast<int64_t>(varint()));
    } else if (wire_type == 2) {
      ProtoReader packed(bytes(), source_);
      while (!packed.done()) out.push_back(static_cast<int64_t>(packed.varint()));
    } else {
      bad("a repeated integer field", fmt::format("wire type {}", wire_type));
    }
  }
  [[noreturn]] void bad(const std::string& expected, const std::string& found) const {
    fail(source_, "an xla.OpSharding proto (" + expected + ")",
         fmt::format("{} at byte {} of the proto", found, at_));
  }

 private:
  void advance(size_t n) {
    if (n > b_.size() - at_) bad("a fixed-size field inside the proto", "the end of the proto");
    at_ += n;
  }
  std::span<const uint8_t> b_;
  const std::string& source_;
  size_t at_ = 0;
};

GspmdSharding decode(std::span<const uint8_t> proto, const std::string& source, int depth) {
  if (depth > kMaxTupleDepth)
    fail(source, "an xla.OpSharding proto", "tuple shardings nested deeper than 64");
  ProtoReader r(proto, source);
  int64_t type = kReplicated;
  std::vector<int64_t> dims, devices, last_tile_dims, reshape, transpose;
  GspmdSharding s;
  bool shard_group = false;
  int64_t group_type = 0;
  while (!r.done()) {
    uint64_t key = r.varint();
    auto field = static_cast<uint32_t>(key >> 3);
    auto wt = static_cast<uint32_t>(key & 7);
    switch (field) {
      case kType:
        type = static_cast<int64_t>(r.varint());
        break;
      case kTileAssignmentDimensions:
        r.integers(wt, dims);
        break;
      case kTileAssignmentDevices:
        r.integers(wt, devices);
        break;
      case kTupleShardings:
        s.elements.push_back(decode(r.bytes(), source, depth + 1));
        break;
      case kReplicateOnLastTileDim:
        s.last_tile_dim_replicate = r.varint() != 0;
        break;
      case kLastTileDims:
        r.integers(wt, last_tile_dims);
        break;
      case kIotaReshapeDims:
        r.integers(wt, reshape);
        break;
      case kIotaTransposePerm:
        r.integers(wt, transpose);
        break;
      case kIsShardGroup:
        shard_group = r.varint() != 0;
        break;
      case kShardGroupId:
        s.shard_group_id = static_cast<int64_t>(r.varint());
        break;
      case kShardGroupType:
        group_type = static_cast<int64_t>(r.varint());
        break;
      default:
        r.skip(wt);  // tile_shape, metadata: not needed to place the array
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
  return decode(proto, source, 0);
}

}  // namespace hhlo::program_detail
