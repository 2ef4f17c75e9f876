// The one decoder of xla.OpSharding (hhlo/core/op_sharding_proto.h). The bytes are written by
// hand from the field numbers of xla/xla_data.proto's OpSharding (type 1, tile_shape 2,
// tile_assignment_dimensions 3, tile_assignment_devices 4, tuple_shardings 5,
// replicate_on_last_tile_dim 6, metadata 7, last_tile_dims 8, iota_reshape_dims 9,
// iota_transpose_perm 10, is_shard_group 11, shard_group_id 12, shard_group_type 13) and the
// encoding rules at https://protobuf.dev/programming-guides/encoding/; the expected texts are
// XLA's HloSharding::ToString forms.
#include "hhlo/core/op_sharding_proto.h"

#include <gtest/gtest.h>

#include <string>

#include "hhlo/core/error.h"
#include "proto_bytes.h"

namespace hhlo {
namespace {

using test_proto::bytes;
using test_proto::message_field;

std::string text(const std::string& proto) { return decode_op_sharding(proto, "t").to_string(); }

/// The ParseError decoding `proto` throws (source "t").
ParseError error(const std::string& proto) {
  try {
    decode_op_sharding(proto, "t");
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "decoded without an error";
  return ParseError("", 0, 0, "", "");
}

TEST(OpShardingProto, IotaTileAssignmentAsJaxWritesIt) {
  // type OTHER, tile_assignment_dimensions [2,1] packed, iota_reshape_dims [2],
  // iota_transpose_perm [0]: the bytes of jax 0.10.2's in_shardings[0] of the legacy artifact
  // (tests/program/gen_exported.py, HloSharding.to_proto()). An identity permutation is dropped.
  std::string p = bytes({0x08, 0x03, 0x1a, 0x02, 0x02, 0x01, 0x4a, 0x01, 0x02, 0x52, 0x01, 0x00});
  GspmdSharding s = decode_op_sharding(p, "t");
  EXPECT_EQ(s.kind, GspmdSharding::Kind::tiled);
  EXPECT_EQ(s.to_string(), "{devices=[2,1]<=[2]}");
  EXPECT_EQ(s.tile_devices(), (std::vector<int64_t>{0, 1}));
}

TEST(OpShardingProto, TransposedIotaWithAReplicatedLastTileDim) {
  // dims [2,1,2], iota [2,2] transposed (1,0), replicate_on_last_tile_dim: devices
  // iota(4).reshape(2,2).T = [[0,2],[1,3]], read row-major.
  std::string p = bytes({0x08, 0x03, 0x1a, 0x03, 0x02, 0x01, 0x02, 0x4a, 0x02, 0x02, 0x02, 0x52,
                         0x02, 0x01, 0x00, 0x30, 0x01});
  GspmdSharding s = decode_op_sharding(p, "t");
  EXPECT_EQ(s.to_string(), "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(s.tile_devices(), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(s.data_rank(), 2u);
}

TEST(OpShardingProto, ExplicitDevicesPackedOrOneFieldEach) {
  // dims [2,2] packed, devices 0,2,1,3 as four varint fields (field 4, key 0x20).
  std::string unpacked =
      bytes({0x08, 0x03, 0x1a, 0x02, 0x02, 0x02, 0x20, 0x00, 0x20, 0x02, 0x20, 0x01, 0x20, 0x03});
  EXPECT_EQ(text(unpacked), "{devices=[2,2]0,2,1,3}");
  std::string packed =
      bytes({0x08, 0x03, 0x1a, 0x02, 0x02, 0x02, 0x22, 0x04, 0x00, 0x02, 0x01, 0x03});
  EXPECT_EQ(decode_op_sharding(packed, "t"), decode_op_sharding(unpacked, "t"));
}

TEST(OpShardingProto, SubgroupTypesOfLastTileDims) {
  // dims [2,2,2], iota [8] perm [0], last_tile_dims [MANUAL = 4] (field 8, packed).
  std::string p = bytes({0x08, 0x03, 0x1a, 0x03, 0x02, 0x02, 0x02, 0x4a, 0x01, 0x08, 0x52, 0x01,
                         0x00, 0x42, 0x01, 0x04});
  EXPECT_EQ(text(p), "{devices=[2,2,2]<=[8] last_tile_dims={manual}}");
}

TEST(OpShardingProto, KindsTuplesAndShardGroups) {
  EXPECT_EQ(text(""), "{replicated}");  // type absent: REPLICATED (proto3 default 0)
  EXPECT_EQ(text(bytes({0x08, 0x01, 0x22, 0x01, 0x03})), "{maximal device=3}");
  EXPECT_EQ(text(bytes({0x08, 0x04})), "{manual}");
  EXPECT_EQ(text(bytes({0x08, 0x05})), "{unknown}");
  EXPECT_EQ(text(bytes({0x08, 0x06})), "{unreduced}");
  // TUPLE of (REPLICATED, MAXIMAL device 0).
  std::string tuple = bytes({0x08, 0x02}) + message_field(5, "") +
                      message_field(5, bytes({0x08, 0x01, 0x20, 0x00}));
  GspmdSharding t = decode_op_sharding(tuple, "t");
  EXPECT_EQ(t.kind, GspmdSharding::Kind::tuple);
  EXPECT_EQ(t.to_string(), "{{replicated}, {maximal device=0}}");
  // is_shard_group, shard_group_id 5, shard_group_type LIKE.
  EXPECT_EQ(text(bytes({0x58, 0x01, 0x60, 0x05, 0x68, 0x01})), "{replicated shard_like 5}");
  EXPECT_EQ(text(bytes({0x58, 0x01, 0x60, 0x02})), "{replicated shard_as 2}");
}

TEST(OpShardingProto, TileShapeMetadataAndUnknownFieldsAreSkipped) {
  // tile_shape (2) and metadata (7) messages, field 20 varint: read past.
  std::string p = bytes({0x08, 0x03}) + message_field(2, bytes({0x10, 0x0b})) +
                  bytes({0x1a, 0x01, 0x02, 0x22, 0x02, 0x01, 0x00}) +
                  message_field(7, bytes({0x12, 0x01, 'x'})) + bytes({0xa0, 0x01, 0x07});
  EXPECT_EQ(text(p), "{devices=[2]1,0}");
}

TEST(OpShardingProto, MalformedBytesNameTheSourceAndTheByte) {
  ParseError cut = error(bytes({0x08}));  // type's value missing
  EXPECT_EQ(cut.source(), "t");
  EXPECT_EQ(cut.line(), 0u);
  EXPECT_NE(cut.found().find("truncated"), std::string::npos) << cut.what();
  EXPECT_NE(std::string(cut.what()).find("xla.OpSharding"), std::string::npos) << cut.what();
  ParseError cut_varint = error(bytes({0x08, 0x96}));  // continuation byte with nothing after
  EXPECT_NE(cut_varint.found().find("truncated"), std::string::npos) << cut_varint.what();
  ParseError past_end = error(bytes({0x1a, 0x05, 0x02}));  // 5 bytes announced, 1 there
  EXPECT_NE(past_end.found().find("truncated"), std::string::npos) << past_end.what();
  ParseError group = error(bytes({0x0b}));  // field 1, wire type 3
  EXPECT_NE(group.found().find("truncated or undefined"), std::string::npos) << group.what();
  ParseError wire = error(bytes({0x0a, 0x00}));  // type as a length-delimited field
  EXPECT_NE(wire.expected().find("a varint field"), std::string::npos) << wire.what();
  EXPECT_NE(wire.found().find("wire type 2"), std::string::npos) << wire.what();
  ParseError tuple_wire = error(bytes({0x28, 0x01}));  // tuple_shardings as a varint
  EXPECT_NE(tuple_wire.expected().find("length-delimited"), std::string::npos);
  ParseError packed = error(bytes({0x1a, 0x01, 0x80}));  // a packed varint cut short
  EXPECT_NE(packed.found().find("bad packed varint"), std::string::npos) << packed.what();
  ParseError fixed = error(bytes({0x1d, 1, 2, 3, 4}));  // dims as a fixed32
  EXPECT_NE(fixed.expected().find("repeated integer"), std::string::npos) << fixed.what();
}

TEST(OpShardingProto, UnsupportedTypeIsAnError) {
  ParseError e = error(bytes({0x08, 0x07}));
  EXPECT_NE(e.expected().find("type 0 to 6"), std::string::npos) << e.what();
  EXPECT_NE(e.found().find("type 7"), std::string::npos) << e.what();
}

TEST(OpShardingProto, MaximalNeedsOneDevice) {
  EXPECT_NE(error(bytes({0x08, 0x01})).found().find("0 devices"), std::string::npos);
  EXPECT_NE(error(bytes({0x08, 0x01, 0x22, 0x02, 0x00, 0x01})).found().find("2 devices"),
            std::string::npos);
}

TEST(OpShardingProto, TileAssignmentChecks) {
  // The text reader's reasons (parse_gspmd_sharding) in `found`, after the sharding's text.
  // dims [2,2] (4 tiles) with 2 devices.
  ParseError count = error(bytes({0x08, 0x03, 0x1a, 0x02, 0x02, 0x02, 0x22, 0x02, 0x00, 0x01}));
  EXPECT_NE(count.expected().find("consistent tile assignment"), std::string::npos) << count.what();
  EXPECT_NE(count.found().find("4 devices"), std::string::npos) << count.what();
  // Repeated device ids.
  ParseError repeated = error(bytes({0x08, 0x03, 0x1a, 0x01, 0x02, 0x22, 0x02, 0x01, 0x01}));
  EXPECT_NE(repeated.found().find("distinct device ids"), std::string::npos) << repeated.what();
  // No device list and no iota.
  ParseError neither = error(bytes({0x08, 0x03, 0x1a, 0x01, 0x02}));
  EXPECT_EQ(neither.found(), "neither at byte 5 of the proto");
  // Both.
  ParseError both = error(bytes(
      {0x08, 0x03, 0x1a, 0x01, 0x02, 0x22, 0x02, 0x00, 0x01, 0x4a, 0x01, 0x02, 0x52, 0x01, 0x00}));
  EXPECT_NE(both.found().find("both"), std::string::npos) << both.what();
  // An iota without its permutation (xla_data.proto: "must have the same size").
  ParseError no_perm = error(bytes({0x08, 0x03, 0x1a, 0x01, 0x04, 0x4a, 0x01, 0x04}));
  EXPECT_NE(no_perm.expected().find("with its permutation"), std::string::npos) << no_perm.what();
  // A permutation that is not one: [0,0] and [0,2] of a [2,2] iota.
  for (int second : {0, 2}) {
    ParseError bad_perm = error(bytes(
        {0x08, 0x03, 0x1a, 0x02, 0x02, 0x02, 0x4a, 0x02, 0x02, 0x02, 0x52, 0x02, 0x00, second}));
    EXPECT_NE(bad_perm.found().find("permutation of 0..1"), std::string::npos) << bad_perm.what();
  }
  // A tile dimension of 0.
  ParseError zero =
      error(bytes({0x08, 0x03, 0x1a, 0x01, 0x00, 0x4a, 0x01, 0x01, 0x52, 0x01, 0x00}));
  EXPECT_NE(zero.found().find("tile dimensions >= 1"), std::string::npos) << zero.what();
  // last_tile_dims MAXIMAL (1) is not a subgroup type.
  ParseError subgroup = error(bytes(
      {0x08, 0x03, 0x1a, 0x02, 0x02, 0x02, 0x4a, 0x01, 0x04, 0x52, 0x01, 0x00, 0x42, 0x01, 0x01}));
  EXPECT_NE(subgroup.expected().find("last_tile_dims of REPLICATED, MANUAL or UNREDUCED"),
            std::string::npos)
      << subgroup.what();
}

TEST(OpShardingProto, TupleNestingIsBounded) {
  auto nested = [](int levels) {
    std::string m;  // the innermost: replicated
    for (int i = 0; i < levels; ++i) m = bytes({0x08, 0x02}) + message_field(5, m);
    return m;
  };
  EXPECT_EQ(decode_op_sharding(nested(64), "t").kind, GspmdSharding::Kind::tuple);
  ParseError deep = error(nested(65));
  EXPECT_EQ(deep.found(), "tuple shardings nested deeper than 64");
  // An error inside a tuple element is the element's.
  ParseError inner = error(bytes({0x08, 0x02}) + message_field(5, bytes({0x08, 0x09})));
  EXPECT_NE(inner.found().find("type 9"), std::string::npos) << inner.what();
}

}  // namespace
}  // namespace hhlo
