// The MLIR lexer of the StableHLO text parser.
#include "parser_lexer.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace hhlo::parse {
namespace {

// Character classes of the lexer, one table lookup each (no locale-dependent <cctype> calls).
enum : uint8_t { kAlpha = 1, kDigit = 2, kHex = 4, kIdExtra = 8, kSuffixExtra = 16 };
struct CharTable {
  uint8_t c[256] = {};
  constexpr CharTable() {
    for (int i = 'a'; i <= 'z'; ++i) c[i] |= kAlpha;
    for (int i = 'A'; i <= 'Z'; ++i) c[i] |= kAlpha;
    for (int i = '0'; i <= '9'; ++i) c[i] |= kDigit | kHex;
    for (int i = 'a'; i <= 'f'; ++i) c[i] |= kHex;
    for (int i = 'A'; i <= 'F'; ++i) c[i] |= kHex;
    c[static_cast<int>('_')] |= kAlpha;  // an identifier may start with '_'
    c[static_cast<int>('$')] |= kIdExtra;
    c[static_cast<int>('.')] |= kIdExtra;
    c[static_cast<int>('-')] |= kSuffixExtra;
  }
};
constexpr CharTable kChars;
inline uint8_t cls(char c) { return kChars.c[static_cast<unsigned char>(c)]; }
inline bool is_id_start(char c) { return (cls(c) & kAlpha) != 0; }
inline bool is_id_char(char c) { return (cls(c) & (kAlpha | kDigit | kIdExtra)) != 0; }
inline bool is_digit(char c) { return (cls(c) & kDigit) != 0; }
inline bool is_hex(char c) { return (cls(c) & kHex) != 0; }

}  // namespace

Lexer::Lexer(std::string_view src) : src_(src) {
  line_starts_.push_back(0);
  const char* base = src.data();
  const char* end = base + src.size();
  for (const char* p = base; p < end;) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
    line_starts_.push_back(static_cast<size_t>(p - base));
  }
}

uint32_t Lexer::line_of(size_t pos) const {
  // Ops are looked up in text order: try the line of the last look-up and the few after it.
  size_t n = line_starts_.size();
  size_t h = line_hint_;
  for (int step = 0; step < 4 && h < n; ++step, ++h) {
    if (line_starts_[h] > pos) break;
    if (h + 1 == n || line_starts_[h + 1] > pos) {
      line_hint_ = h;
      return static_cast<uint32_t>(h + 1);
    }
  }
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
  line_hint_ = static_cast<size_t>(it - line_starts_.begin()) - 1;
  return static_cast<uint32_t>(line_hint_ + 1);
}

std::pair<uint32_t, uint32_t> Lexer::line_col(size_t pos) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  size_t start = line_starts_[line - 1];
  return {static_cast<uint32_t>(line), static_cast<uint32_t>(pos - start + 1)};
}

void Lexer::skip_space() {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

Token Lexer::next() {
  skip_space();
  size_t start = pos_;
  auto make = [&](Tok k) { return Token{k, src_.substr(start, pos_ - start), start}; };
  if (pos_ >= src_.size()) return Token{Tok::eof, {}, src_.size()};
  char c = src_[pos_];
  auto at = [&](size_t i) { return i < src_.size() ? src_[i] : '\0'; };
  switch (c) {
    case '(':
      ++pos_;
      return make(Tok::lparen);
    case ')':
      ++pos_;
      return make(Tok::rparen);
    case '[':
      ++pos_;
      return make(Tok::lbracket);
    case ']':
      ++pos_;
      return make(Tok::rbracket);
    case '{':
      ++pos_;
      if (at(pos_) == '-' && at(pos_ + 1) == '#') {
        pos_ += 2;
        return make(Tok::metadata_open);
      }
      return make(Tok::lbrace);
    case '}':
      ++pos_;
      return make(Tok::rbrace);
    case '<':
      ++pos_;
      return make(Tok::less);
    case '>':
      ++pos_;
      return make(Tok::greater);
    case ',':
      ++pos_;
      return make(Tok::comma);
    case ':':
      ++pos_;
      return make(Tok::colon);
    case '=':
      ++pos_;
      return make(Tok::equal);
    case '?':
      ++pos_;
      return make(Tok::question);
    case '*':
      ++pos_;
      return make(Tok::star);
    case '+':
      ++pos_;
      return make(Tok::plus);
    case '-':
      ++pos_;
      if (at(pos_) == '>') {
        ++pos_;
        return make(Tok::arrow);
      }
      return make(Tok::minus);
    case '"': {
      ++pos_;
      while (pos_ < src_.size() && src_[pos_] != '"') {
        if (src_[pos_] == '\n') break;
        if (src_[pos_] == '\\') ++pos_;
        ++pos_;
      }
      if (pos_ >= src_.size() || src_[pos_] != '"') {
        pos_ = std::min(pos_, src_.size());
        return Token{Tok::error, "an unterminated string", start};
      }
      ++pos_;
      return make(Tok::string);
    }
    case '%':
    case '^':
    case '#':
    case '!':
    case '@': {
      ++pos_;
      if (c == '#' && at(pos_) == '-' && at(pos_ + 1) == '}') {
        pos_ += 2;
        return make(Tok::metadata_close);
      }
      if (c == '@' && at(pos_) == '"') {
        Token s = next();
        if (s.kind != Tok::string) return Token{Tok::error, "an unterminated string", start};
        return make(Tok::symbol);
      }
      uint8_t ok = c == '%' || c == '^' ? (kAlpha | kDigit | kIdExtra | kSuffixExtra)
                                        : (kAlpha | kDigit | kIdExtra);
      size_t body = pos_;
      while (pos_ < src_.size() && (cls(src_[pos_]) & ok)) ++pos_;
      if (pos_ == body) return Token{Tok::error, "a sigil without a name", start};
      if (c == '%' && at(pos_) == '#' && is_digit(at(pos_ + 1))) {
        ++pos_;
        while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
      }
      Tok k = c == '%'   ? Tok::value_id
              : c == '^' ? Tok::caret_id
              : c == '#' ? Tok::hash_id
              : c == '!' ? Tok::bang_id
                         : Tok::symbol;
      return make(k);
    }
    default:
      break;
  }
  if (is_digit(c)) {
    if (c == '0' && at(pos_ + 1) == 'x' && is_hex(at(pos_ + 2))) {
      pos_ += 2;
      while (pos_ < src_.size() && is_hex(src_[pos_])) ++pos_;
      return make(Tok::integer);
    }
    while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    if (at(pos_) != '.') return make(Tok::integer);
    ++pos_;
    while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    if ((at(pos_) == 'e' || at(pos_) == 'E') &&
        (is_digit(at(pos_ + 1)) ||
         ((at(pos_ + 1) == '+' || at(pos_ + 1) == '-') && is_digit(at(pos_ + 2))))) {
      pos_ += 2;
      while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    }
    return make(Tok::float_lit);
  }
  if (is_id_start(c)) {
    while (pos_ < src_.size() && is_id_char(src_[pos_])) ++pos_;
    return make(Tok::bare_id);
  }
  ++pos_;
  return Token{Tok::error, "an unexpected character", start};
}

std::string unescape(std::string_view tok, bool& ok) {
  ok = true;
  std::string out;
  if (tok.size() < 2) {
    ok = false;
    return out;
  }
  std::string_view s = tok.substr(1, tok.size() - 2);
  if (s.find('\\') == std::string_view::npos) return std::string(s);
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (i + 1 >= s.size()) {
      ok = false;
      return out;
    }
    char e = s[++i];
    if (e == '"' || e == '\\') {
      out += e;
    } else if (e == 'n') {
      out += '\n';
    } else if (e == 't') {
      out += '\t';
    } else if (is_hex(e) && i + 1 < s.size() && is_hex(s[i + 1])) {
      auto v = [](char h) {
        return is_digit(h) ? h - '0' : (std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
      };
      out += static_cast<char>(v(e) * 16 + v(s[i + 1]));
      ++i;
    } else {
      ok = false;
      return out;
    }
  }
  return out;
}

std::string describe(const Token& t) {
  if (t.kind == Tok::eof) return "end of input";
  if (t.kind == Tok::error) return std::string(t.text);
  std::string s(t.text.substr(0, 40));
  if (t.text.size() > 40) s += "...";
  return "'" + s + "'";
}

}  // namespace hhlo::parse
