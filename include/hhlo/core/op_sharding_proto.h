// XLA's xla.OpSharding protobuf message (xla/xla_data.proto) decoded into a GspmdSharding
// (hhlo/core/gspmd_sharding.h), with the one protobuf wire reader (hhlo/core/proto_wire.h). The
// one decoder of that message: the runtime reads a compiled executable's entry shardings with it
// (the HloModuleProto the plugin compiled), the program stage a jax.export artifact's shardings
// written before serialization version 9 (serialization.fbs Sharding.hlo_sharding_proto).
#pragma once

#include <string>
#include <string_view>

#include "hhlo/core/gspmd_sharding.h"

namespace hhlo {

/// Decodes one serialized xla.OpSharding. Fields read (xla_data.proto numbering): type = 1
/// (REPLICATED 0, MAXIMAL 1, TUPLE 2, OTHER 3, MANUAL 4, UNKNOWN 5, UNREDUCED 6),
/// tile_assignment_dimensions = 3, tile_assignment_devices = 4, tuple_shardings = 5 (decoded
/// the same way, into `elements`), replicate_on_last_tile_dim = 6, last_tile_dims = 8,
/// iota_reshape_dims = 9 and iota_transpose_perm = 10 (the V2 tile assignment: devices
/// iota(N) reshaped and transposed; an identity permutation is dropped, as XLA prints it),
/// is_shard_group = 11, shard_group_id = 12, shard_group_type = 13 (AS 0, LIKE 1); tile_shape
/// (2), metadata (7), named_sharding (14) and unknown fields are skipped. Every type decodes:
/// whether a caller can lay a MAXIMAL, MANUAL or TUPLE sharding out is its own check.
///
/// Throws ParseError (source `source`, line 0, column 0; expected "an xla.OpSharding proto
/// (...)", found "... at byte N of the proto") for bytes that are not such a message:
/// truncated (a varint or key cut short, a length past the end) or with a group or undefined
/// wire type; a field of another wire type than its declaration's; a type outside 0..6; tuple
/// shardings nested deeper than 64; a MAXIMAL sharding without exactly one device; an OTHER
/// sharding with neither tile_assignment_devices nor iota_reshape_dims, or with both; an
/// iota_transpose_perm whose size is not iota_reshape_dims's (the proto requires it); a
/// last_tile_dims entry other than REPLICATED, MANUAL or UNREDUCED; a tile assignment
/// parse_gspmd_sharding refuses (no tile dimensions or one < 1, a device count other than the
/// tile count, devices repeated or negative, a permutation that is not one).
GspmdSharding decode_op_sharding(std::string_view proto, const std::string& source);

}  // namespace hhlo
