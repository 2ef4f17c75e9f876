// Length-prefixed key fields: the one encoding of what a cache key is made of (the compile
// cache's executables, the program stage's records and load keys, Session's in-memory keys).
// Each token is its kind, its length and its bytes, so no two different lists of fields write the
// same bytes.
#pragma once

#include <concepts>
#include <string>
#include <string_view>

namespace hhlo {

/// A sink of key bytes: Sha256 (a digest, hhlo/core/sha256.h) or KeyText (the bytes themselves).
template <typename S>
concept KeySink = requires(S& s, std::string_view b) {
  s.update(b);
};

/// A KeySink that keeps the bytes (an in-memory map key: no digest to compute).
struct KeyText {
  std::string text;
  /// Appends `b` to text.
  void update(std::string_view b) { text.append(b.data(), b.size()); }
};

/// Writes one token into `sink`: `kind` (one character), the decimal length of `bytes`, ':', then
/// `bytes` (tokens cannot run into each other). Throws what the sink throws.
template <KeySink S>
void write_token(S& sink, char kind, std::string_view bytes) {
  std::string head(1, kind);
  head += std::to_string(bytes.size());
  head += ':';
  sink.update(head);
  sink.update(bytes);
}

/// Writes a named field: token 'n' of `name`, then token 's' of `value`. Throws what the sink
/// throws.
template <KeySink S>
void write_field(S& sink, std::string_view name, std::string_view value) {
  write_token(sink, 'n', name);
  write_token(sink, 's', value);
}

}  // namespace hhlo
