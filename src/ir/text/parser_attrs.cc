// Attributes of the StableHLO text parser: integers, integer lists, attribute dictionaries, and
// parse_attribute, which hands each attribute to its kind's reader by its leading token (the
// readers live with their printers under src/ir/attrs/, syntax.h); anything without a typed form
// becomes an OpaqueAttr of its text.
#include <cctype>

#include "../attrs/syntax.h"
#include "parser_internal.h"

namespace hhlo::parse {

int64_t Parser::parse_int() {
  size_t start = tok_.pos;
  bool neg = consume(Tok::minus);
  if (!is(Tok::integer)) fail("an integer");
  IntLit v{neg, 0};
  if (!parse_uint(tok_.text, v.mag)) fail("an integer that fits in 64 bits");
  int64_t out;
  if (!int_in_range(v, DType::i64, out)) fail_at(start, "an integer that fits in i64", "more");
  advance();
  return out;
}

std::vector<int64_t> Parser::parse_int_list() {
  expect(Tok::lbracket, "'['");
  std::vector<int64_t> out;
  if (consume(Tok::rbracket)) return out;
  do out.push_back(parse_int());
  while (consume(Tok::comma));
  expect(Tok::rbracket, "']'");
  return out;
}

void Parser::parse_attr_dict(std::vector<NamedAttr>& out) {
  Depth d(*this);
  expect(Tok::lbrace, "'{'");
  if (consume(Tok::rbrace)) return;
  do {
    std::string key;
    if (is(Tok::bare_id)) {
      key = std::string(tok_.text);
    } else if (is(Tok::string)) {
      bool ok;
      std::string k = unescape(tok_.text, ok);
      if (!ok) fail("a valid string escape");
      bool bare = !k.empty() && (std::isalpha(static_cast<unsigned char>(k[0])) || k[0] == '_');
      for (char c : k)
        bare = bare &&
               (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$');
      key = bare ? k : std::string(tok_.text);
    } else {
      fail("an attribute name");
    }
    advance();
    if (consume(Tok::equal))
      out.push_back({key, parse_attribute(key)});
    else
      out.push_back({key, UnitAttr{}});
  } while (consume(Tok::comma));
  expect(Tok::rbrace, "'}' closing the attribute dictionary");
}

namespace {

// The text from `start` to the bracket closing the one at `open`, kept opaque.
Attribute opaque_to_close(Parser& p, size_t start, size_t open) {
  p.reset_to(p.scan_balanced(open));
  return OpaqueAttr{p.text_from(start)};
}

// At `keyword<`: the typed form of the keyword's reader (detail::kKeywordAttrs), else the text.
Attribute keyword_attr(Parser& p, std::string_view keyword, size_t start, size_t open) {
  for (const detail::KeywordAttr& k : detail::kKeywordAttrs)
    if (k.keyword == keyword) {
      if (std::optional<Attribute> a = k.parse(p)) return std::move(*a);
      break;
    }
  return opaque_to_close(p, start, open);
}

// True when the text right after the current token is `c`.
bool next_char_is(const Parser& p, char c) {
  size_t after = p.lex_.pos();
  return after < p.lex_.src().size() && p.lex_.src()[after] == c;
}

}  // namespace

// `#alias` (its value, read where it is defined), `#dialect<...>` / `#dialect.name<...>`, or a
// bare `#word` kept as text.
Attribute Parser::parse_hash_attr(std::string_view name, size_t start) {
  std::string_view id = tok_.text;
  size_t after = lex_.pos();
  if (next_char_is(*this, '<')) return keyword_attr(*this, id, start, after);
  const size_t* it = find_alias(id);
  if (!it) {
    advance();
    return OpaqueAttr{std::string(id)};
  }
  if (--alias_budget_ < 0) fail("fewer attribute alias expansions");
  reset_to(*it);
  Attribute a = parse_attribute(name);
  reset_to(after);
  return a;
}

// `true`, `false`, `unit`, `dense<...>`, `dense_resource<...>`, `array<...>`; other `word<...>` and
// `loc(...)` kept as text, and other words (a type: `i32`; `none`).
Attribute Parser::parse_word_attr(size_t start) {
  std::string_view w = tok_.text;
  if (w == "true" || w == "false") {
    advance();
    return BoolAttr{w == "true"};
  }
  if (w == "dense") return parse_dense_shared();
  if (w == "dense_resource") return parse_dense_resource();
  size_t after = lex_.pos();
  if (next_char_is(*this, '<')) return keyword_attr(*this, w, start, after);
  if (w == "loc" && next_char_is(*this, '(')) return opaque_to_close(*this, start, after);
  advance();
  if (w == "unit") return UnitAttr{};
  return OpaqueAttr{std::string(w)};
}

Attribute Parser::parse_attribute(std::string_view name) {
  Depth guard(*this);
  size_t start = tok_.pos;
  switch (tok_.kind) {
    case Tok::lbracket:
      return detail::parse_list_attr(*this, start, name);
    case Tok::lbrace:
      return detail::parse_dict_attr(*this);
    case Tok::string:
      return detail::parse_string_attr(*this, start, name);
    case Tok::minus:
    case Tok::integer:
    case Tok::float_lit:
      return detail::parse_number_attr(*this, start);
    case Tok::symbol:
      return detail::parse_symbol_attr(*this, start);
    case Tok::hash_id:
      return parse_hash_attr(name, start);
    case Tok::bare_id:
      return parse_word_attr(start);
    case Tok::lparen:
      return opaque_to_close(*this, start, start);
    default:
      fail("an attribute value");
  }
}

}  // namespace hhlo::parse
