// Protobuf messages written by hand in tests, from the encoding rules at
// https://protobuf.dev/programming-guides/encoding/ (the readers under test are hhlo's own: the
// wire reader, the OpSharding decoder, the runtime's HloModuleProto reader).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>

namespace hhlo::test_proto {

/// The bytes `b`, each an int in [0, 255] (or a char).
inline std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s += static_cast<char>(c);
  return s;
}

/// A length-delimited field: key (number << 3 | 2, numbers below 16), varint length, payload.
inline std::string message_field(int number, const std::string& payload) {
  std::string s(1, static_cast<char>(number << 3 | 2));
  for (std::size_t n = payload.size();; n >>= 7) {
    s += static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    if (n < 0x80) break;
  }
  return s + payload;
}

}  // namespace hhlo::test_proto
