// Protobuf wire format, read (hhlo/core/proto_wire.h).
#include "hhlo/core/proto_wire.h"

namespace hhlo {

bool ProtoWire::varint(uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (done()) return false;
    auto b = static_cast<uint8_t>(message_[at_++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

bool ProtoWire::next(ProtoField& f) {
  f = {};
  uint64_t key = 0;
  if (!varint(key)) return false;
  f.number = static_cast<uint32_t>(key >> 3);
  f.wire_type = static_cast<uint32_t>(key & 7);
  std::size_t left = message_.size() - at_;
  switch (f.wire_type) {
    case 0:
      return varint(f.scalar);
    case 1:
    case 5: {
      std::size_t n = f.wire_type == 1 ? 8 : 4;
      if (left < n) return false;
      at_ += n;
      return true;
    }
    case 2: {
      uint64_t n = 0;
      if (!varint(n) || n > message_.size() - at_) return false;
      f.payload = message_.substr(at_, n);
      at_ += n;
      return true;
    }
    default:
      return false;
  }
}

bool append_integers(const ProtoField& f, std::vector<int64_t>& out) {
  if (f.wire_type == 0) {
    out.push_back(static_cast<int64_t>(f.scalar));
    return true;
  }
  if (f.wire_type != 2) return false;
  ProtoWire packed(f.payload);
  while (!packed.done()) {
    uint64_t v = 0;
    if (!packed.varint(v)) return false;
    out.push_back(static_cast<int64_t>(v));
  }
  return true;
}

}  // namespace hhlo
