// A bounded reader of protobuf wire format (https://protobuf.dev/programming-guides/encoding/):
// varint keys (field << 3 | wire type), varints, fixed 32- and 64-bit values, length-delimited
// fields, repeated integers packed or not. The one reader of the protos hhlo decodes without
// their generated code: the plugin's HloModuleProto (its program shape, the runtime) and
// xla.OpSharding (hhlo/core/op_sharding_proto.h: the compiled program's shardings and a
// jax.export artifact's). Every read checks the end;
// nothing throws: a caller that must refuse malformed bytes words its own error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace hhlo {

/// One field of a message, as ProtoWire::next reads it.
struct ProtoField {
  /// The field number and the wire type (0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed
  /// 32-bit).
  uint32_t number = 0, wire_type = 0;
  /// The value of a varint field (wire type 0); 0 for the others.
  uint64_t scalar = 0;
  /// The bytes of a length-delimited field (wire type 2), pointing into the message; empty for
  /// the others.
  std::string_view payload;
};

/// Reads the fields of one message in order. Never throws.
class ProtoWire {
 public:
  /// A reader of `message` (kept alive by the caller while fields are read).
  explicit ProtoWire(std::string_view message) : message_(message) {}
  /// True when every byte was read.
  bool done() const { return at_ >= message_.size(); }
  /// The offset of the next byte to read.
  std::size_t offset() const { return at_; }
  /// Reads a varint (at most 10 bytes) into `v`; false when the message ends inside it or it is
  /// longer.
  bool varint(uint64_t& v);
  /// Reads the next field's key and value into `f` (fixed-size values are skipped); false when
  /// the message ends inside it, a length passes the end, or the wire type is a group (3, 4) or
  /// undefined (6, 7).
  bool next(ProtoField& f);

 private:
  std::string_view message_;
  std::size_t at_ = 0;
};

/// Appends the values of repeated integer field `f` to `out`: packed (wire type 2: the varints
/// of its payload) or one value (wire type 0). False for another wire type or a malformed packed
/// payload (what was read before stays appended). Never throws.
bool append_integers(const ProtoField& f, std::vector<int64_t>& out);

}  // namespace hhlo
