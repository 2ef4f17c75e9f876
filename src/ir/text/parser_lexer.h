// The MLIR lexer of the StableHLO text parser (internal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hhlo::parse {

enum class Tok : uint8_t {
  eof,
  bare_id,    // stablehlo.add, i32, tensor, x, true
  value_id,   // %0, %arg1, %0#1 (the `#N` result index is part of the token)
  symbol,     // @main, @"quoted"
  caret_id,   // ^bb0
  hash_id,    // #loc1, #stablehlo.gather, #stablehlo
  bang_id,    // !stablehlo.token
  string,     // "text" (token text includes the quotes)
  integer,    // 12, 0x7FC00000
  float_lit,  // 1.5, 1.000000e+00
  lparen,
  rparen,
  lbracket,
  rbracket,
  lbrace,
  rbrace,
  less,
  greater,
  comma,
  colon,
  equal,
  arrow,  // ->
  question,
  star,
  plus,
  minus,
  metadata_open,   // `{-#`: the file metadata dictionary (dialect_resources, external_resources)
  metadata_close,  // `#-}`
  error,           // a character or literal that cannot start a token; text says what
};

struct Token {
  Tok kind = Tok::eof;
  std::string_view text;
  size_t pos = 0;
};

/// Splits MLIR text into tokens; skips whitespace and `//` comments. Never reads past the end.
class Lexer {
 public:
  explicit Lexer(std::string_view src);
  /// Lexes the token at the current position and moves past it.
  Token next();
  size_t pos() const { return pos_; }
  void reset(size_t pos) { pos_ = pos < src_.size() ? pos : src_.size(); }
  std::string_view src() const { return src_; }
  /// 1-based line and column of byte offset `pos`.
  std::pair<uint32_t, uint32_t> line_col(size_t pos) const;
  /// 1-based line of byte offset `pos` (fast when offsets come in text order).
  uint32_t line_of(size_t pos) const;

 private:
  void skip_space();
  std::string_view src_;
  size_t pos_ = 0;
  std::vector<size_t> line_starts_;
  mutable size_t line_hint_ = 0;  // index into line_starts_ of the last line_of
};

/// The unescaped contents of a string token (`"a\"b\0A"` -> `a"b\n`). `ok` is false on a bad
/// escape.
std::string unescape(std::string_view token, bool& ok);

/// Short human form of a token for error messages.
std::string describe(const Token& t);

}  // namespace hhlo::parse
